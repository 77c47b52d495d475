// The "rules in five minutes" page (/rules/quick): the whole game on one page for a newcomer, each part linked to
// its section of the full rules (/rules#s2-4 ...).  The pictures are small scenes drawn by the table's own BoardView
// (board.js) with real cities of the base board (offices, abilities and names from GET /api/boards/4-5) placed
// close together, and pieces on them; each picture is cropped to what it shows.
//
// Every text is an i18n key (quick.*) in the page's language (i18n.js: ?lang=, the remembered choice, the browser's
// languages); the language picker reloads the page in the chosen one.

import { api } from "./api.js";
import { BoardView, uniqueIds } from "./board.js";
import { $, clear, h } from "./dom.js";
import { initLanguage, languagePicker, t } from "./i18n.js";
import { mountAccount } from "./account.js";

const el = { nav: $(".rules-top"), body: $("#quick"), error: $("#error") };

const RED = 0;
const BLUE = 1;
const COLOURS = () => ({ players: ["#d62828", "#1d4ed8"], neutral: "#8d8d8d", names: [t("quick.red"), t("quick.blue")] });

// ------------------------------------------------------------------ the scenes

/**
 * A scene: a few real cities at chosen places, routes between them (``["GRO-EMD", 3]``: code and houses), and a
 * state to draw (houses, offices, controllers, markers), with rings on the places that changed (``marks``).
 * The positions are in the real board's units (the board's width stays 1071, so pieces keep their real size).
 */
const SCENES = {
  place: {
    cities: { GRO: [60, 60], EMD: [270, 60] },
    routes: [["GRO-EMD", 3]],
    houses: { "GRO-EMD:2": [RED, "T"], "GRO-EMD:3": [BLUE, "M"] },
    marks: ["h:GRO-EMD:2"],
  },
  displaceBefore: {
    cities: { GRO: [60, 60], EMD: [270, 60], STA: [170, 215] },
    routes: [["GRO-EMD", 3], ["EMD-STA", 3]],
    houses: { "GRO-EMD:1": [RED, "T"], "GRO-EMD:2": [BLUE, "T"] },
    marks: ["h:GRO-EMD:2"],
  },
  displaceAfter: {
    cities: { GRO: [60, 60], EMD: [270, 60], STA: [170, 215] },
    routes: [["GRO-EMD", 3], ["EMD-STA", 3]],
    houses: { "GRO-EMD:1": [RED, "T"], "GRO-EMD:2": [RED, "T"], "EMD-STA:1": [BLUE, "T"], "EMD-STA:2": [BLUE, "T"] },
    marks: ["h:GRO-EMD:2", "h:EMD-STA:1", "h:EMD-STA:2"],
  },
  moveBefore: {
    cities: { STA: [60, 60], HAM: [270, 60], LUB: [170, 215] },
    routes: [["STA-HAM", 3], ["LUB-HAM", 3]],
    houses: { "STA-HAM:1": [RED, "T"], "LUB-HAM:1": [RED, "T"], "LUB-HAM:2": [BLUE, "T"], "LUB-HAM:3": [RED, "M"] },
    marks: ["h:LUB-HAM:1", "h:LUB-HAM:3"],
  },
  moveAfter: {
    cities: { STA: [60, 60], HAM: [270, 60], LUB: [170, 215] },
    routes: [["STA-HAM", 3], ["LUB-HAM", 3]],
    houses: { "STA-HAM:1": [RED, "T"], "STA-HAM:2": [RED, "T"], "STA-HAM:3": [RED, "M"], "LUB-HAM:2": [BLUE, "T"] },
    marks: ["h:STA-HAM:2", "h:STA-HAM:3"],
  },
  claimBefore: {
    cities: { STA: [60, 60], HAM: [270, 60] },
    routes: [["STA-HAM", 3]],
    houses: { "STA-HAM:1": [RED, "T"], "STA-HAM:2": [RED, "T"], "STA-HAM:3": [RED, "M"] },
    offices: { STA: [[BLUE, "M"]] },
  },
  claimAfter: {
    cities: { STA: [60, 60], HAM: [270, 60] },
    routes: [["STA-HAM", 3]],
    houses: {},
    offices: { STA: [[BLUE, "M"]], HAM: [[RED, "T"], null, null] },
    marks: ["o:HAM:0", "o:STA:0"],
  },
  marker: {
    cities: { OSN: [60, 110], BRE: [270, 110] },
    routes: [["OSN-BRE", 3, [165, 40]]],
    houses: { "OSN-BRE:1": [RED, "T"], "OSN-BRE:2": [RED, "M"], "OSN-BRE:3": [RED, "T"] },
    markers: { "OSN-BRE": "swap" },
  },
  scoring: {
    cities: { LUB: [60, 60], HAM: [270, 60], LUN: [170, 215] },
    routes: [["LUB-HAM", 3], ["LUN-HAM", 4]],
    houses: { "LUN-HAM:2": [BLUE, "T"] },
    offices: { LUB: [[RED, "T"], [RED, "T"]], HAM: [[BLUE, "T"], [RED, "T"], null], LUN: [[RED, "M"], [BLUE, "T"]] },
  },
};

/** The controller of a city by §2.8.1 (most offices; on a tie, the holder of the rightmost of them). */
function controllerOf(row) {
  const count = new Map();
  for (const occ of row) if (occ) count.set(occ[0], (count.get(occ[0]) || 0) + 1);
  if (!count.size) return undefined;
  const most = Math.max(...count.values());
  for (let i = row.length - 1; i >= 0; i--) if (row[i] && count.get(row[i][0]) === most) return row[i][0];
  return undefined;
}

/** The scene's own small board: the real cities' offices, abilities and names at the scene's places. */
function sceneLayout(scene, board) {
  const real = new Map(board.cities.map((c) => [c.code, c]));
  const cities = Object.entries(scene.cities).map(([code, [x, y]]) => ({ ...real.get(code), x, y }));
  const routes = scene.routes.map(([code, n, tavern]) => ({
    code,
    cities: code.split("-"),
    houses: Array.from({ length: n }, (_, i) => ({ name: `${code}:${i + 1}` })),
    tavern: tavern || null,
  }));
  return { side: board.side, width: board.width, height: board.height, cities, routes, coellen: null, coellen_table: [], provinces: [] };
}

function sceneState(scene, layout) {
  const offices = {};
  const controllers = {};
  for (const c of layout.cities) {
    const row = c.offices.map((_, i) => ((scene.offices || {})[c.code] || [])[i] || null);
    offices[c.code] = row;
    const who = controllerOf(row);
    if (who !== undefined) controllers[c.code] = who;
  }
  return {
    houses: scene.houses || {},
    offices,
    controllers,
    extra_offices: {},
    coellen_table: [],
    route_markers: scene.markers || {},
    pawn: null,
    turn: { phase: "actions" },
    players: [],
    completed_cities: 0,
  };
}

/** Draw a scene into ``slot`` and crop the picture to its routes, cities, pieces and markers. */
function drawScene(slot, name, board, caption) {
  const scene = SCENES[name];
  const layout = sceneLayout(scene, board);
  const view = new BoardView(slot, layout, { trackIn: h("div") }); // the score track is not part of a scene
  view.render(sceneState(scene, layout), COLOURS());
  view.setMarks(new Map((scene.marks || []).map((key) => [key, "last"])));
  uniqueIds(view.svg, name);
  const svg = view.svg;
  svg.classList.add("scene");
  svg.dataset.scene = name;
  svg.setAttribute("aria-label", caption);
  let box = null;
  for (const g of svg.querySelectorAll(":scope > g")) {
    if (!g.childElementCount) continue;
    const b = g.getBBox();
    if (!b.width && !b.height) continue;
    box = box ? { x1: Math.min(box.x1, b.x), y1: Math.min(box.y1, b.y), x2: Math.max(box.x2, b.x + b.width), y2: Math.max(box.y2, b.y + b.height) } : { x1: b.x, y1: b.y, x2: b.x + b.width, y2: b.y + b.height };
  }
  const pad = 10;
  if (box) svg.setAttribute("viewBox", `${box.x1 - pad} ${box.y1 - pad} ${box.x2 - box.x1 + 2 * pad} ${box.y2 - box.y1 + 2 * pad}`);
  return view;
}

// ------------------------------------------------------------------ the page

/**
 * The parts of the page: a heading, the full rules' sections it sums up, its paragraphs (i18n keys; a list for
 * ``items``), and its pictures (a scene each, with its caption).
 */
const PARTS = [
  { id: "goal", rules: ["4-1", "4-2"], paras: ["quick.goal.1", "quick.goal.2"] },
  { id: "turn", rules: ["2-1", "2-2", "0"], paras: ["quick.turn.1", "quick.turn.2", "quick.turn.3"] },
  { id: "place", rules: ["2-3"], paras: ["quick.place.1"], figures: [["place", "quick.place.fig"]] },
  {
    id: "displace",
    rules: ["2-4"],
    paras: ["quick.displace.1", "quick.displace.2"],
    figures: [["displaceBefore", "quick.displace.before"], ["displaceAfter", "quick.displace.after"]],
  },
  { id: "move", rules: ["2-5"], paras: ["quick.move.1"], figures: [["moveBefore", "quick.move.before"], ["moveAfter", "quick.move.after"]] },
  {
    id: "claim",
    rules: ["2-6", "2-7", "2-8-1"],
    paras: ["quick.claim.1", "quick.claim.2", "quick.claim.3"],
    items: ["quick.claim.office", "quick.claim.ability", "quick.claim.coellen", "quick.claim.nothing"],
    after: ["quick.claim.4", "quick.claim.ew"],
    figures: [["claimBefore", "quick.claim.before"], ["claimAfter", "quick.claim.after"]],
  },
  { id: "markers", rules: ["3", "3-3"], paras: ["quick.markers.1", "quick.markers.2", "quick.markers.3"], figures: [["marker", "quick.markers.fig"]] },
  {
    id: "abilities",
    rules: ["1-3"],
    paras: ["quick.abilities.1"],
    items: ["quick.abilities.keys", "quick.abilities.actions", "quick.abilities.privilege", "quick.abilities.book", "quick.abilities.bags"],
    after: ["quick.abilities.2"],
  },
  {
    id: "scoring",
    rules: ["4-3", "2-8-3", "4-4"],
    paras: ["quick.scoring.1"],
    items: ["quick.scoring.abilities", "quick.scoring.markers", "quick.scoring.coellen", "quick.scoring.control", "quick.scoring.network"],
    after: ["quick.scoring.ties"],
    figures: [["scoring", "quick.scoring.fig"]],
  },
];

/** The parameters of a paragraph: the markers' names, as the table calls them. */
const MARKERS = ["extra-office", "swap", "+3", "+4", "improve", "remove3"];
const PARAMS = { "quick.markers.3": () => ({ list: MARKERS.map((m) => t(`marker.${m}`)).join(", ") }) };

/** A link to another page in the language asked for in this page's address (?lang=), if any. */
function withLang(href) {
  const asked = new URLSearchParams(location.search).get("lang");
  if (!asked) return href;
  const [path, hash] = href.split("#");
  return `${path}?lang=${encodeURIComponent(asked)}${hash ? `#${hash}` : ""}`;
}

/** "§2.6" as the full rules number it: "2-8-1" → "2.8.1". */
const number = (rule) => rule.replaceAll("-", ".");

function ruleLinks(rules) {
  return h(
    "p",
    { class: "quick-links" },
    h("span", { class: "quick-links-label", text: t("quick.fullRulesOf") }),
    " ",
    rules.flatMap((rule, i) => [i ? " · " : null, h("a", { class: "rule-link", href: withLang(`/rules#s${rule}`), text: `§${number(rule)}` })]),
  );
}

function render(board) {
  clear(el.body);
  el.body.append(
    h("h1", { text: t("quick.title") }),
    h("p", { class: "quick-intro", text: t("quick.intro") }),
    h("nav", { class: "quick-toc", "aria-label": t("rules.contents") },
      h("ol", null, PARTS.map((p) => h("li", null, h("a", { href: `#${p.id}`, text: t(`quick.${p.id}.title`) }))))),
  );
  PARTS.forEach((part, i) => {
    const sec = h("section", { class: "quick-part", id: part.id, dataset: { part: part.id } });
    el.body.append(sec); // attached first: a scene is measured as it is drawn
    sec.append(h("h2", { text: `${i + 1}. ${t(`quick.${part.id}.title`)}` }));
    const text = h("div", { class: "quick-text" });
    for (const key of part.paras) text.append(h("p", { text: t(key, PARAMS[key] && PARAMS[key]()) }));
    if (part.items) text.append(h("ul", null, part.items.map((key) => h("li", { text: t(key) }))));
    for (const key of part.after || []) text.append(h("p", { text: t(key) }));
    text.append(ruleLinks(part.rules));
    sec.append(text);
    if (part.figures) {
      const figs = h("div", { class: `quick-figures n${part.figures.length}` });
      sec.append(figs);
      for (const [scene, key] of part.figures) {
        const caption = t(key);
        const slot = h("div", { class: "board-wrap quick-scene" });
        figs.append(h("figure", { class: "quick-figure" }, slot, h("figcaption", { text: caption })));
        try {
          drawScene(slot, scene, board, caption);
        } catch (err) {
          slot.replaceWith(h("p", { class: "error", text: t("rules.boardFailed", { error: err.message || err }) }));
        }
      }
    }
  });
}

async function main() {
  await initLanguage();
  document.title = t("quick.docTitle");
  const picker = languagePicker();
  picker.id = "lang";
  el.nav.prepend(picker);
  mountAccount(el.nav);
  $("#full-rules-link").href = withLang("/rules");
  let board;
  try {
    board = await api.board("4-5");
  } catch (err) {
    el.error.textContent = t("rules.boardFailed", { error: err.message || err });
    el.error.hidden = false;
    return;
  }
  render(board);
  document.body.dataset.ready = "1";
  document.body.dataset.lang = document.documentElement.lang;
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
}

main();
