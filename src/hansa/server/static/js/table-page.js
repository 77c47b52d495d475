// The table page (/table/{id}): a game being gathered.  The seats (an open one taken with one click, in a colour of
// one's choosing), who created it, its map, options and clock; the creator removes players, fills the open seats
// with bots, starts or closes it; a rematch's players accept or decline.  The page asks the server every 2 s and,
// once the game has started, moves everyone to it (a guest with its token, which is its seat token).

import { api } from "./api.js";
import { mountAccount } from "./account.js";
import { onSession } from "./session.js";
import { h, clear, $, copyText, absUrl, isLight } from "./dom.js";
import { errorMessage, initLanguage, languagePicker, t } from "./i18n.js";
import { botLabel, formatRealtime } from "./clock.js";
import { changedOptions, closedNote, currentAccount, gameLinkOf, proposer, saveTableToken, seated, signInFirst, tableTags, tableToken, timeLeft } from "./tables.js";

const POLL = 2000;
const tableId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
let token = null; // a guest's table token
let account = null;
let table = null;
let palette = [];
let colour = null; // the colour chosen to sit with
let busy = false;

function readToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromLink = fragment.get("token");
  if (fromLink) {
    saveTableToken(tableId, fromLink);
    // the address bar keeps no token: a copied address is the table's, not this guest's seat
    history.replaceState(history.state, "", location.pathname + location.search);
  }
  return fromLink || tableToken(tableId);
}

function showError(err) {
  const box = $("#tp-error");
  box.textContent = err ? (typeof err === "string" ? err : errorMessage(err)) : "";
  box.hidden = !err;
}

function colourInfo(name) {
  return palette.find((c) => c.name === name) || null;
}

function chip(name) {
  const info = colourInfo(name);
  if (!info) return h("span", { class: "colour-chip blank", "aria-hidden": "true" });
  return h("span", { class: `colour-chip${isLight(info.colour) ? " light" : ""}`, style: { "--pc": info.colour }, "aria-hidden": "true", text: info.symbol });
}

function colourName(name) {
  const key = `colour.${name}`;
  return t(key) === key ? name : t(key);
}

const canSit = (tb) => tb.status === "open" && tb.you === null && !tb.rematch_of && (account || tb.allow_guests);

async function act(fn) {
  if (busy) return;
  busy = true;
  showError(null);
  try {
    const answer = await fn();
    if (answer && answer.id) render(answer);
  } catch (err) {
    showError(err);
    poll();
  } finally {
    busy = false;
  }
}

async function sit(seat) {
  const body = { seat };
  if (colour) body.colour = colour;
  if (!account) {
    const name = $("#tp-name").value.trim();
    if (!name) {
      showError(t("tables.errGuestName"));
      $("#tp-name").focus();
      return;
    }
    body.name = name;
    try {
      localStorage.setItem("hansa.guestName", name);
    } catch {
      /* storage disabled */
    }
  }
  await act(async () => {
    const joined = await api.joinTable(tableId, body);
    if (joined.table_token) {
      token = joined.table_token;
      saveTableToken(tableId, token);
    }
    return joined;
  });
}

function seatRow(tb, s) {
  const info = colourInfo(s.colour);
  const li = h("li", { class: `tp-seat ${s.kind}${tb.you === s.seat ? " you" : ""}`, "data-seat": s.seat, "data-kind": s.kind, style: info ? { "--pc": info.colour } : null });
  li.append(chip(s.colour), h("span", { class: "seat-no", text: t("lobby.seat", { n: s.seat + 1 }) }));
  if (s.kind === "open") li.append(h("span", { class: "tp-open", text: t("tables.openSeat") }));
  else {
    li.append(h("span", { class: "tp-name pname", text: s.name }));
    if (s.kind === "bot") li.append(h("span", { class: "tag", text: botLabel(s.bot) }));
    if (s.kind === "guest") li.append(h("span", { class: "tag guest-tag", text: t("tables.guest") }));
    if (tb.you === s.seat) li.append(h("span", { class: "tag you-tag", text: t("tables.you") }));
    if (s.kind === "account" && s.name === tb.creator) li.append(h("span", { class: "tag", text: t("tablePage.creator") }));
    if (tb.rematch_of) li.append(h("span", { class: `tag ${s.accepted ? "accepted-tag" : "waiting-tag"}`, text: s.accepted ? t("rematch.accepted") : t("rematch.waiting") }));
  }
  const actions = h("span", { class: "tp-seat-actions" });
  if (s.kind === "open" && canSit(tb)) actions.append(h("button", { type: "button", class: "small primary sit-btn", text: t("tablePage.sit"), onclick: () => sit(s.seat) }));
  if (s.kind !== "open" && tb.creator_you && tb.you !== s.seat && tb.status === "open" && !tb.rematch_of) {
    actions.append(h("button", { type: "button", class: "small danger remove-btn", text: t("tablePage.remove"), title: t("tablePage.removeTitle", { name: s.name }), onclick: () => act(() => api.tableAction(tableId, "remove", token, { seat: s.seat })) }));
  }
  if (actions.childNodes.length) li.append(actions);
  return li;
}

function renderColours(tb) {
  const taken = new Set(tb.seats.map((s) => s.colour).filter(Boolean));
  if (colour && taken.has(colour)) colour = null;
  const list = clear($("#tp-colour-list"));
  const any = h("button", { type: "button", class: "small tp-colour-any", role: "radio", "aria-checked": colour ? "false" : "true", text: t("tablePage.anyColour") });
  any.addEventListener("click", () => {
    colour = null;
    renderColours(tb);
  });
  list.append(any);
  for (const c of palette) {
    if (taken.has(c.name)) continue;
    const btn = h("button", { type: "button", class: "tp-colour", role: "radio", "data-colour": c.name, "aria-checked": colour === c.name ? "true" : "false", title: colourName(c.name), "aria-label": colourName(c.name) }, chip(c.name));
    btn.addEventListener("click", () => {
      colour = c.name;
      renderColours(tb);
    });
    list.append(btn);
  }
}

function renderStatus(tb) {
  const status = $("#tp-status");
  status.classList.toggle("closed", tb.status === "closed");
  if (tb.status === "open") {
    const left = timeLeft(tb);
    const waiting = tb.rematch_of ? t("rematch.waitingAll") : t("tablePage.waiting", { n: seated(tb), of: tb.players });
    status.textContent = left === null ? waiting : `${waiting} · ${t("tablePage.closesIn", { time: formatRealtime(left) })}`;
  } else status.textContent = t(`tablePage.status.${tb.status}`);
}

function render(tb) {
  table = tb;
  document.body.dataset.status = tb.status;
  document.body.dataset.you = tb.you === null ? "" : String(tb.you);
  if (tb.status === "started" && tb.game) {
    location.replace(gameLinkOf(tb, tb.you !== null ? token : null));
    return;
  }
  $("#tp-title").textContent = t(tb.rematch_of ? "tablePage.rematchTitle" : "tablePage.heading", { map: t(`map.${tb.map}`), n: tb.players });
  document.title = `${$("#tp-title").textContent} — hansa`;
  renderStatus(tb);
  const rematch = $("#tp-rematch");
  rematch.hidden = !tb.rematch_of;
  if (tb.rematch_of) {
    clear(rematch).append(t("rematch.proposed", { name: proposer(tb) }), " ", t("rematch.of"), " ", h("a", { href: `/game/${encodeURIComponent(tb.rematch_of)}`, text: tb.rematch_of }));
  }
  const closed = $("#tp-closed");
  closed.hidden = tb.status !== "closed";
  if (tb.status === "closed") {
    clear(closed).append(t("tablePage.closed"), tb.note ? ` ${closedNote(tb.note)}` : "", h("a", { href: "/", class: "btn small", text: t("common.lobby") }));
  } else if (tb.note) {
    showError(tb.note); // e.g. "could not start: ..." (the table is open again)
  }
  clear($("#tp-tags")).append(...tableTags(tb).filter(Boolean));
  if (tb.table && tb.table.hints === false) $("#tp-tags").append(h("span", { class: "tag", text: t("tablePage.noHints") }));
  $("#tp-by").hidden = !!tb.rematch_of; // a rematch says who proposed it instead
  clear($("#tp-by")).append(t("tables.by"), " ", h("span", { class: "pname", text: tb.creator || "" }));
  clear($("#tp-options")).append(...changedOptions(tb).map((x) => h("li", { text: x })));
  const sitting = canSit(tb);
  $("#tp-sit").hidden = !sitting;
  $("#tp-name-row").hidden = !!account;
  if (sitting) renderColours(tb);
  $("#tp-signin").hidden = !(tb.status === "open" && tb.you === null && !account && !tb.allow_guests && !tb.rematch_of);
  clear($("#tp-seats")).append(...tb.seats.map((s) => seatRow(tb, s)));
  const mine = tb.you !== null && tb.status === "open";
  $("#tp-mine").hidden = !mine;
  const me = tb.you !== null ? tb.seats[tb.you] : null;
  const toAnswer = mine && tb.rematch_of && me && !me.accepted;
  $("#tp-accept").hidden = !toAnswer;
  $("#tp-decline").hidden = !toAnswer;
  $("#tp-leave").hidden = !!tb.rematch_of;
  $("#tp-creator").hidden = !(tb.creator_you && tb.status === "open");
  const open = tb.seats.filter((s) => s.kind === "open").length;
  $("#tp-bots").disabled = open === 0;
  $("#tp-bot").disabled = open === 0;
  $("#tp-start").disabled = seated(tb) < 2;
  const share = $("#tp-share");
  share.hidden = tb.status !== "open" || (tb.rematch_of && !tb.creator_you);
  if (!share.hidden) {
    $("#tp-share-help").textContent = t(tb.private ? "tablePage.sharePrivate" : "tablePage.sharePublic");
    const row = $("#tp-share-row");
    if (!row.firstChild) row.append(linkRow(tb.url));
  }
  document.body.dataset.ready = "1";
}

function linkRow(url) {
  const abs = absUrl(url);
  const input = h("input", { class: "link", id: "tp-link", readonly: true, value: abs, "aria-label": t("tablePage.share"), onfocus: (e) => e.target.select() });
  const btn = h("button", { type: "button", class: "small copy-btn", text: t("lobby.copy") });
  btn.addEventListener("click", async () => {
    const ok = await copyText(abs);
    btn.textContent = ok ? t("lobby.copied") : t("lobby.copyFailed");
    setTimeout(() => (btn.textContent = t("lobby.copy")), 1500);
  });
  return h("div", { class: "link-row" }, input, btn);
}

let polling = false;

async function poll() {
  if (polling) return;
  polling = true;
  try {
    render(await api.table(tableId, token));
  } catch (err) {
    if (err.status === 404) {
      $("#tp-title").textContent = t("tablePage.notFound");
      document.body.dataset.status = "missing";
      stop();
    }
    showError(err);
  } finally {
    polling = false;
  }
}

let timer = null;
let ticker = null;

function stop() {
  clearInterval(timer);
  clearInterval(ticker);
}

async function main() {
  await initLanguage();
  $("#top-actions").prepend(languagePicker());
  mountAccount($("#top-actions"));
  token = readToken();
  const colours = fetch("/api/colours")
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);
  account = await currentAccount();
  const pal = await colours;
  palette = pal && Array.isArray(pal.colours) ? pal.colours : [];
  try {
    const bots = await api.bots();
    const levels = ["random", "purpose", "heuristic", "mcts:easy", "mcts:medium", "mcts:hard"].filter((b) => bots.bots.includes(b));
    clear($("#tp-bot")).append(...levels.map((b) => h("option", { value: b, text: botLabel(b) })));
    $("#tp-bot").value = "heuristic";
  } catch (err) {
    showError(err);
  }
  $("#tp-name").value = (() => {
    try {
      return localStorage.getItem("hansa.guestName") || "";
    } catch {
      return "";
    }
  })();
  $("#tp-signin-btn").addEventListener("click", signInFirst);
  $("#tp-leave").addEventListener("click", () => act(() => api.tableAction(tableId, "leave", token)));
  $("#tp-accept").addEventListener("click", () => act(() => api.tableAction(tableId, "accept", token)));
  $("#tp-decline").addEventListener("click", () => act(() => api.tableAction(tableId, "decline", token)));
  $("#tp-bots").addEventListener("click", () => act(() => api.tableAction(tableId, "bots", token, { bot: $("#tp-bot").value })));
  $("#tp-start").addEventListener("click", () => act(() => api.tableAction(tableId, "start", token)));
  $("#tp-close").addEventListener("click", () => {
    if (window.confirm(t("tablePage.confirmClose"))) act(() => api.tableAction(tableId, "close", token));
  });
  onSession((now) => {
    account = now; // signed in (or out) in the top bar: sitting changes
    poll();
  });
  await poll();
  timer = setInterval(() => {
    if (table && table.status !== "closed") poll();
  }, POLL);
  ticker = setInterval(() => table && table.status === "open" && renderStatus(table), 1000);
  window.addEventListener("focus", poll);
}

main();
