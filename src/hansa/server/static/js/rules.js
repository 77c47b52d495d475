// The rules page (/rules): the rules the engine implements, from GET /api/rules/{lang}, with a table of contents,
// anchors (/rules#s2-6 scrolls to §2.6 and highlights it) and both board sides drawn by BoardView without pieces.
// The rules come in the page's language (i18n.js: ?lang=, else the choice remembered in localStorage "hansa.lang" and
// shared with the other pages, else the browser's languages, else English); the language picker reloads the page in
// the chosen language at the section the reader was at.
//
// The rules HTML comes from this server's own package data, rendered by markdown-it with raw HTML disabled: it is
// trusted and inserted as HTML.  Everything else is built with textContent (dom.js).

import { api, parseJson } from "./api.js";
import { BoardView, uniqueIds } from "./board.js";
import { $, clear, h } from "./dom.js";
import { initLanguage, language, languagePicker, t } from "./i18n.js";
import { mountAccount } from "./account.js";

const PLACE = "hansa.rulesPlace"; // sessionStorage: the section in view when the language was switched

// The section number at the start of a heading, as the server reads it (hansa/server/rules.py), letters included:
// "2.6 Action 5 — Claim" → "2.6", "5.A Variant A" → "5.A", "A. Board facts" → "A".
const NUMBER = /^\s*§?\s*((?:\d+|[A-Z])(?:\.(?:\d+|[A-Z]))*)[.)]?\s/;

const el = {
  nav: $(".rules-top"),
  toc: $("#toc"),
  tocBox: $("#toc-box"),
  body: $("#rules"),
  error: $("#error"),
};

let current = null; // {lang, sections}
let loadSeq = 0;

// ------------------------------------------------------------------ loading and rendering

async function fetchRules(lang) {
  const res = await fetch(`/api/rules/${encodeURIComponent(lang)}`);
  const text = await res.text();
  if (!res.ok) {
    let message = `HTTP ${res.status}`;
    try {
      message = parseJson(text).error || message;
    } catch {
      // not JSON: keep the status
    }
    throw new Error(message);
  }
  return parseJson(text);
}

function showError(lang, err) {
  clear(el.error);
  el.error.append(
    h("span", { text: t("rules.failed", { error: err.message || err }) }),
    " ",
    h("button", { type: "button", class: "small", text: t("common.retry"), onclick: () => load(lang) }),
  );
  el.error.hidden = false;
}

/** The heading id nearest above the top of the window, to keep the reader's place across a language switch. */
function sectionInView() {
  const heads = el.body.querySelectorAll("h2[id], h3[id], h4[id]");
  let best = null;
  for (const head of heads) {
    if (head.getBoundingClientRect().top <= 80) best = head.id;
    else break;
  }
  return best;
}

/** Remember the section in view across the reload of a language switch (an anchor in the address wins). */
function rememberPlace() {
  try {
    const place = location.hash ? null : sectionInView();
    if (place) sessionStorage.setItem(PLACE, place);
  } catch {
    /* no storage: the page opens at the top */
  }
}

function takePlace() {
  try {
    const place = sessionStorage.getItem(PLACE);
    sessionStorage.removeItem(PLACE);
    return place;
  } catch {
    return null;
  }
}

async function load(lang, { place = null } = {}) {
  const seq = ++loadSeq;
  el.error.hidden = true;
  let page;
  try {
    page = await fetchRules(lang);
  } catch (err) {
    if (seq === loadSeq) showError(lang, err);
    return;
  }
  if (seq !== loadSeq) return; // a newer choice won
  current = { lang, sections: page.sections };
  document.title = t("rules.docTitle");
  renderBody(page);
  renderToc(page.sections);
  addBoards();
  document.body.dataset.ready = "1";
  document.body.dataset.lang = lang;
  if (location.hash) followHash({ smooth: false });
  else if (place) document.getElementById(place)?.scrollIntoView();
}

function renderBody(page) {
  // Trusted HTML (see the top of this file).
  el.body.innerHTML = page.html;
  // Tables scroll inside their own box on narrow screens instead of widening the page.
  for (const table of el.body.querySelectorAll("table")) {
    const wrap = h("div", { class: "table-wrap" });
    table.replaceWith(wrap);
    wrap.append(table);
  }
  const link = t("rules.link");
  for (const head of el.body.querySelectorAll("h2[id], h3[id], h4[id]")) {
    head.append(" ", h("a", { class: "anchor", href: `#${head.id}`, title: link, "aria-label": link, text: "#" }));
  }
  sectionize(el.body);
}

const HEADINGS = ["H1", "H2", "H3", "H4", "H5", "H6"];

/** Wrap every heading of level 2-4 and what follows it (up to the next heading of its level or higher) in a
 *  <section class="rule-sec">, nested like the headings, so that a whole section can be highlighted. */
function sectionize(root) {
  const nodes = [...root.children];
  const stack = []; // [{level, box}]
  for (const node of nodes) {
    const level = HEADINGS.indexOf(node.tagName) + 1;
    if (level >= 2 && level <= 4) {
      while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
      const box = h("section", { class: `rule-sec rule-l${level}` });
      (stack.length ? stack[stack.length - 1].box : root).append(box);
      stack.push({ level, box });
      box.append(node);
    } else if (level === 1) {
      stack.length = 0;
      root.append(node);
    } else {
      (stack.length ? stack[stack.length - 1].box : root).append(node);
    }
  }
}

function renderToc(sections) {
  clear(el.toc);
  for (const sec of sections) {
    if (sec.level < 2 || sec.level > 4) continue;
    el.toc.append(
      h("li", { class: `toc-l${sec.level}` }, h("a", { href: `#${sec.id}`, dataset: { id: sec.id }, text: sec.title.replace(/`/g, "") })),
    );
  }
}

// ------------------------------------------------------------------ the board

const EMPTY_STATE = {
  houses: {},
  controllers: {},
  offices: {},
  extra_offices: {},
  coellen_table: [null, null, null, null],
  route_markers: {},
  pawn: null,
  turn: { phase: "actions" },
  players: [],
  completed_cities: 0,
};
const NO_COLOURS = { players: [], neutral: "#8d8d8d", names: [] };

/** Both board sides, without pieces, as a figure after the introduction of the board-facts section (§A). */
async function addBoards() {
  const anchor = document.getElementById("sA-1") || document.getElementById("sA");
  if (!anchor) return;
  const figure = h("figure", { class: "rules-boards", "aria-label": t("rules.board") });
  // Before the section A.1 (sectionize wrapped the heading), i.e. after the introduction of §A.
  (anchor.parentElement && anchor.parentElement.classList.contains("rule-sec") && anchor.id !== "sA" ? anchor.parentElement : anchor).before(figure);
  const sides = [
    ["4-5", t("rules.board45"), "actions"],
    ["2-3", t("rules.board23"), "pawn_setup"], // the provinces are drawn in the pawn variant's setup phase
  ];
  for (const [side, caption, phase] of sides) {
    const slot = h("div", { class: "board-wrap rules-board", dataset: { side } });
    // On a phone the board keeps a readable size and scrolls sideways inside its own box.
    figure.append(h("div", { class: "rules-board-item" }, h("div", { class: "board-scroll" }, slot), h("figcaption", { text: caption })));
    try {
      const layout = await api.board(side);
      if (!figure.isConnected) return; // the language changed meanwhile
      const view = new BoardView(slot, layout);
      view.render({ ...EMPTY_STATE, turn: { phase } }, NO_COLOURS);
      uniqueIds(view.svg, side);
    } catch (err) {
      slot.replaceWith(h("p", { class: "error", text: t("rules.boardFailed", { error: err.message || err }) }));
    }
  }
}

// ------------------------------------------------------------------ anchors

/** The heading for a fragment like "s2-6": its own id, or (for "s5-A") the heading whose number is 5.A. */
function headingFor(fragment) {
  let id;
  try {
    id = decodeURIComponent(fragment);
  } catch {
    id = fragment;
  }
  const direct = document.getElementById(id);
  if (direct && el.body.contains(direct)) return direct;
  if (!current) return null;
  const m = /^(?:s|§)?(.+)$/.exec(id);
  const wanted = m ? m[1].replace(/-/g, ".") : id;
  const numberOf = (sec) => {
    const n = NUMBER.exec(`${sec.title} `);
    return n ? n[1] : null;
  };
  let sec = current.sections.find((x) => numberOf(x) === wanted);
  if (!sec) sec = current.sections.find((x) => (numberOf(x) || "").toLowerCase() === wanted.toLowerCase());
  return sec ? document.getElementById(sec.id) : null;
}

function clearHighlight() {
  for (const node of el.body.querySelectorAll(".hl-target, .hl-section")) node.classList.remove("hl-target", "hl-section");
  for (const a of el.toc.querySelectorAll("a.current")) a.classList.remove("current");
}

/** Highlight a heading and its section (the heading's <section class="rule-sec">, see sectionize). */
function highlight(head) {
  clearHighlight();
  head.classList.add("hl-target");
  const box = head.parentElement;
  if (box && box.classList.contains("rule-sec")) box.classList.add("hl-section");
  const link = el.toc.querySelector(`a[data-id="${CSS.escape(head.id)}"]`);
  if (link) {
    link.classList.add("current");
    // Keep the current entry in view inside the (sticky, scrolling) contents, without moving the page.
    const box = el.toc.closest(".rules-toc");
    if (box && box.scrollHeight > box.clientHeight) {
      const r = link.getBoundingClientRect();
      const b = box.getBoundingClientRect();
      if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 3;
    }
  }
}

function followHash({ smooth = true } = {}) {
  const fragment = location.hash.slice(1);
  if (!fragment) return;
  const head = headingFor(fragment);
  if (!head) return;
  highlight(head);
  head.scrollIntoView({ behavior: smooth ? "smooth" : "auto", block: "start" });
  if (head.id !== fragment) history.replaceState(history.state, "", `${location.pathname}${location.search}#${head.id}`);
}

// ------------------------------------------------------------------ start

window.addEventListener("hashchange", () => followHash());

el.toc.addEventListener("click", (ev) => {
  // On a phone the contents fold away once a section is chosen.
  if (ev.target.closest("a") && window.matchMedia("(max-width: 860px)").matches) el.tocBox.open = false;
});

if (window.matchMedia("(max-width: 860px)").matches) el.tocBox.open = false;

async function main() {
  await initLanguage();
  const picker = languagePicker();
  picker.id = "lang";
  picker.addEventListener("change", rememberPlace); // (the picker itself stores the choice and reloads the page)
  el.nav.prepend(picker);
  mountAccount(el.nav);
  // The rules in five minutes, in the language asked for in this address (?lang=), if any.
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked) $("#quick-link").href = `/rules/quick?lang=${encodeURIComponent(asked)}`;
  load(language(), { place: takePlace() });
}

main();
