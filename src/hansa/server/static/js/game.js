// The game page (/game/{id}#token=...): live board, player desks, move log, and acting by clicking or tapping.
// The seat token is read from the URL fragment (never sent to the server in a URL) and travels in the
// X-Hansa-Token header (REST) or as a WebSocket subprotocol.
//
// Following the game: one timeline (playback.js).  The page shows one position at a time on every part of it
// (board, caption, desks, log, top bar); the moves of others are played back one at a time (settings: slow,
// normal, fast, instant) with a caption in plain words, pieces flying from where they came and points rising where
// they were scored, never more than ~2 s behind the newest move and never backwards; when this page must decide,
// the newest position and the prompt show at once.  Every place the others changed stays marked until your next
// move.  The log tells every move in sentences;
// pointing at an entry marks its place on the board.

import { api, ApiError, CLOSE, LiveSocket, gameIdFromLocation, tokenFromLocation } from "./api.js";
import { BoardView, PRIVILEGE_FILL, permanentKey, permanentShort } from "./board.js";
import { caption, markerName, pointsText, routeName, cityName } from "./captions.js";
import { h, clear, put, $ } from "./dom.js";
import { describeMove, renderDesks, renderStatus, scoreTable, nameTag, seatName, swatchTag } from "./panels.js";
import { scoreChart } from "./chart.js";
import { PACES, Timeline } from "./playback.js";
import { loadSettings, saveSettings } from "./settings.js";
import { Zoom } from "./zoom.js";
import { errorHead, errorMessage, initLanguage, language, languagePicker, t, tn, touchScreen } from "./i18n.js";
import { ServerTime, TIMEOUT_BOTS, abandoned, botLabel, formatClock, formatLong, seatClock, thinking, votesNeeded } from "./clock.js";
import { forgetSeatToken, rememberSeat } from "./store.js";
import { closedNote, currentAccount, gameLinkOf, proposer } from "./tables.js";
import { MoveLog } from "./movelog.js";
import { Notices } from "./notices.js";
import * as tutorial from "./tutorial.js";
import { mountAccount } from "./account.js";
import { ChatPanel } from "./chat.js";
import { TILE_ICON, missionsResult, renderModules, tileHelp, tileName } from "./modules.js";

const gameId = gameIdFromLocation();
const token = tokenFromLocation();
// Pasting another seat's link into this tab changes only the fragment (no page load): start over with it.
window.addEventListener("hashchange", () => {
  if (new URLSearchParams(location.hash.slice(1)).get("token") !== token) location.reload();
});

const el = {
  title: $("#game-title"),
  status: $("#status"),
  board: $("#board-wrap"),
  viewport: $("#board-viewport"),
  caption: $("#caption"),
  desks: $("#desks"),
  log: $("#log"),
  logNew: $("#log-new"),
  controls: $("#controls"),
  prompt: $("#prompt"),
  buttons: $("#action-buttons"),
  form: $("#move-form"),
  input: $("#move-input"),
  datalist: $("#legal-list"),
  sendBtn: $("#move-send"),
  error: $("#error"),
  conn: $("#conn-banner"),
  serverError: $("#server-error"),
  info: $("#game-info"),
  turnBanner: $("#turn-banner"),
  spectator: $("#spectator-note"),
  undo: $("#undo-btn"),
  notify: $("#notify-btn"),
  replayLink: $("#replay-link"),
  recordLink: $("#record-link"),
  endgame: $("#endgame"),
  popup: $("#popup"),
  dialog: $("#dialog"),
  settingsBtn: $("#settings-btn"),
  settings: $("#settings"),
  tabs: $("#side-tabs"),
  zoomIn: $("#zoom-in"),
  zoomOut: $("#zoom-out"),
  zoomReset: $("#zoom-reset"),
  awayBanner: $("#away-banner"),
  clockBar: $("#clock-bar"),
  takeover: $("#takeover"),
  modules: $("#modules-panel"),
};

let latest = null; // the newest view from the server
let view = null; // the view the page shows: `latest`, or while moves are played back the position of one of them
let drawn = -1; // the version the page was last drawn at
let youShown = null; // the seats this page played when it was last drawn
let layout = null;
let board = null;
let zoom = null;
let ctx = null;
let byKey = new Map();
let mode = null; // null | {type: "swap"} | {type: "pawn"} | {type: "shift", from} | {type: "tribute"} | {type: "block"}
let busy = false;
let endgameFor = null;
let firstView = true;
let wasMyDecision = false;
let settings = loadSettings();
let lastMarks = new Map(); // places changed by others since this seat's last move
let hintMarks = new Map();
let hoverMarks = new Map();
let missionMarks = new Map(); // the viewer's mission cities, while the card is pointed at or pinned
let missionPinned = null; // the seat whose mission card was tapped (its cities stay marked), or null
let hintShown = null; // {version, move, text}
const timeline = new Timeline({ show: showStep });
let moveLog = null; // the whole game's log (movelog.js), made once the language is known
const serverTime = new ServerTime(); // the clocks count from the server's time, never the browser's
let chat = null; // the table chat (chat.js)
let notices = null; // banners and log lines for timeouts, takeovers, seats taken back, the end (notices.js)

// ------------------------------------------------------------------ helpers

// Only running games take moves; the others show their status (over, stopped, abandoned; or, known from the
// WebSocket's close code, deleted or damaged) and keep the record and the replay.
const running = (v) => !!v && v.status === "running";
const mine = (v) => running(v) && v.legal.length > 0 && v === latest;
/** The page is behind the newest view (moves of others being played back). */
const behind = () => !!latest && view !== latest;
const HALTED = new Set(["stopped", "abandoned", "deleted", "damaged"]);
const GONE = new Set(["deleted", "damaged"]); // nothing left to download or replay
const routeOfHouse = (house) => house.slice(0, house.lastIndexOf(":"));
const controls = (seat) => !!view && view.you.includes(seat);
/** The viewer's own decision, not one the timeout bot makes for an away seat: the banner, the title, notifications. */
const myDecision = (v) => mine(v) && !(v.players[v.state.turn.decider] || {}).away;

/** The rules section an error names ("§2.6" -> "2.6"), for a link to /rules#s2-6. */
function ruleSection(rule) {
  const m = rule ? String(rule).match(/§\s*([0-9A-Z]+(?:\.[0-9A-Z]+)*)/) : null;
  return m ? m[1] : null;
}

/** An error in the player's language: what went wrong by its kind (the HTTP status, or the rule a move broke),
 * the server's own words (English) beneath when they add something, and a link to the rule. */
function showError(err) {
  clear(el.error);
  const status = err instanceof ApiError ? err.status : 0;
  const section = ruleSection(err.rule);
  const head = err.key ? t(err.key, err.params || {}) : errorHead(err);
  // The server names the rule in its words too ("... (§2.6)"): the link says it once.
  const detail = err.key ? null : section ? String(err.message).replace(/\s*\(§[^)]*\)\s*$/, "") : err.message;
  el.error.dataset.status = status ? String(status) : "";
  put(
    el.error,
    h("span", { class: "err-text", text: head || detail }),
    head && detail ? h("span", { class: "err-detail", lang: "en", text: ` ${detail}` }) : null,
    section
      ? h("span", { class: "err-rule" }, " — ", h("a", { href: `/rules#s${section.replace(/\./g, "-")}`, target: "_blank", rel: "noopener", text: t("error.ruleLink", { rule: section }) }))
      : null,
    h("button", { class: "err-close", type: "button", title: t("error.dismiss"), "aria-label": t("error.dismiss"), text: "×", onclick: clearError }),
  );
  el.error.hidden = false;
}

/** An error of this page itself, in the player's language. */
const pageError = (key, params) => Object.assign(new Error(t(key, params)), { key, params });

function clearError() {
  el.error.hidden = true;
  clear(el.error);
}

function setTitle() {
  const base = t("title.game", { id: gameId });
  if (view && view.status === "over") document.title = `${t("status.over")} — ${base}`;
  else if (view && HALTED.has(view.status)) document.title = `${t(`halted.${view.status}`)} — ${base}`;
  else document.title = myDecision(view) ? `● ${t("title.yourMove")} — ${base}` : base;
}

// ------------------------------------------------------------------ legal moves -> board targets

const KIND = {
  place: "free",
  drop: "free",
  relocate: "free",
  displace: "enemy",
  lift: "own",
  "take-from": "own",
  remove: "remove",
  shift: "remove",
  claim: "claim",
  marker: "marker",
  swap: "swap",
  "neutral-office": "claim",
  pawn: "free",
  improve: "claim",
  exchange: "remove",
  develop: "claim",
  "green-office": "claim",
  "use-tribute": "marker",
  "use-block": "marker",
};

/** The modes in which a promotional marker is put beside the route the player clicks (docs/rules.md §8.7, §8.8). */
const ROUTE_MODES = { tribute: "use-tribute", block: "use-block" };

/** How many choices a permanent bonus marker offers at most (what "left" counts down from). */
const PERMANENT_MOVES = { move_any_2: 2, reuse_2_from_route: 2, place_2_in_wales_or_scotland: 2, develop_privilege: 1, office_in_green_city: 1 };

const isGreen = (city) => !!(layout && layout.cities.some((c) => c.code === city && c.green));

/** The index of the office a claim with benefit "office" in ``city`` would take (the leftmost free one). */
function nextOffice(city) {
  const list = (view && view.state.offices[city]) || [];
  const i = list.findIndex((o) => !o);
  return i < 0 ? null : i;
}

function indexLegal(legal) {
  const map = new Map();
  const add = (key, m) => {
    if (!map.has(key)) map.set(key, []);
    map.get(key).push(m);
  };
  for (const m of legal) {
    const j = m.json;
    switch (j.type) {
      case "place":
      case "displace":
      case "lift":
      case "drop":
      case "relocate":
      case "take-from":
      case "remove":
      case "shift":
        add(`h:${j.house}`, m);
        break;
      case "claim":
        add(`r:${j.route}`, m);
        // Claim by clicking what you want: the office it would take, the city of an extra office, the ability,
        // the Coellen table space.
        if (j.benefit === "table") add(`t:${j.target}`, m);
        if (j.benefit === "office" && nextOffice(j.target) !== null) add(`o:${j.target}:${nextOffice(j.target)}`, m);
        if (j.benefit === "extra") add(`c:${j.target}`, m);
        // Waren (East) offers two abilities, each its own pill on the board.
        if (j.benefit === "ability") add(j.ability ? `ab:${j.target}:${j.ability}` : `ab:${j.target}`, m);
        break;
      case "exchange":
        // Move any 2: the two pieces exchange places; either house starts it.
        add(`h:${j.house}`, m);
        add(`h:${j.other}`, m);
        break;
      case "marker":
      case "use-tribute": // a Tribute or Block marker beside the route clicked (in its mode)
      case "use-block":
        add(`r:${j.route}`, m);
        break;
      case "swap": {
        // A green city's offices (East) are counted left to right over its Extra and permanent-marker offices.
        const prefix = isGreen(j.city) ? "g" : "o";
        add(`${prefix}:${j.city}:${j.office - 1}`, m);
        add(`${prefix}:${j.city}:${j.office}`, m);
        add(`c:${j.city}`, m);
        break;
      }
      case "neutral-office":
      case "green-office": // East: a permanent marker's office in a green city
        add(`c:${j.city}`, m);
        break;
      case "pawn":
        add(`p:${j.province}`, m);
        break;
      case "improve":
      case "develop": // East: a permanent marker's free development
        add(`a:${j.ability}`, m);
        break;
      default:
        break;
    }
  }
  return map;
}

function usable(m) {
  const type = m.json.type;
  if (mode && ROUTE_MODES[mode.type]) return type === ROUTE_MODES[mode.type];
  if (type === "use-tribute" || type === "use-block") return false;
  if (mode && mode.type === "swap") return type === "swap";
  if (type === "swap") return false;
  if (mode && mode.type === "pawn") return type === "pawn";
  // Paid pawn moves only through the pawn mode (they cost an action).
  return !(type === "pawn" && m.json.paid);
}

/** Moves reachable from a key in the current mode. */
function movesAt(key) {
  let list = byKey.get(key) || [];
  if (key.startsWith("h:")) list = list.concat((byKey.get(`r:${routeOfHouse(key.slice(2))}`) || []).filter((m) => m.json.type === "claim"));
  return list.filter(usable);
}

function highlights() {
  const keys = new Map();
  const selected = new Set();
  if (!mine(view)) return { keys, selected };
  if (mode && mode.type === "shift") {
    selected.add(`h:${mode.from}`);
    for (const m of byKey.get(`h:${mode.from}`) || []) {
      if (m.json.type === "shift") keys.set(`h:${m.json.to}`, "free");
      if (m.json.type === "exchange") keys.set(`h:${m.json.house === mode.from ? m.json.other : m.json.house}`, "swap");
    }
    return { keys, selected };
  }
  for (const [key, moves] of byKey) {
    if (key.startsWith("a:")) continue;
    const ok = moves.filter(usable);
    if (!ok.length) continue;
    keys.set(key, KIND[ok[0].json.type] || "free");
  }
  return { keys, selected };
}

// ------------------------------------------------------------------ acting

// The version a move is in flight for: no second move for the same position (double clicks), but once the
// WebSocket has delivered the new position (it may overtake the HTTP answer) the next move may be sent.
let pending = null;

async function send(move) {
  if (tutorial.refuses(move)) return; // "Learn to play": only the scripted move
  if (!view || busy || pending === view.version || behind()) return;
  closePopup();
  const sent = view.version;
  pending = sent;
  document.body.classList.add("busy");
  const seat = view.you.length > 1 && view.you.includes(view.state.turn.decider) ? view.state.turn.decider : undefined;
  try {
    const v = await api.move(gameId, token, move, sent, seat);
    clearError();
    receive(v);
    if (zoom) zoom.decided(); // [zoom] the tap-to-zoom for this decision goes back
  } catch (err) {
    showError(err);
    if (err.status === 409 || err.status === 403) refresh();
  } finally {
    if (pending === sent) pending = null;
    document.body.classList.remove("busy");
  }
}

/** End the turn; while actions remain, ask first (the safe answer, keep playing, has the focus). */
function endTurn(move) {
  const tu = view.state.turn;
  const left = tu.allowance - tu.actions_used;
  if (settings.confirmEnd && tu.phase === "actions" && left > 0) {
    ask(
      tn("confirm.endTurn", left),
      [
        { text: t("confirm.keepPlaying"), id: "end-cancel", safe: true },
        { text: t("move.end"), id: "end-confirm", danger: true, onclick: () => send(move) },
      ],
    );
    return;
  }
  send(move);
}

/** A small modal question: buttons [{text, id, onclick, safe, danger}]; Esc or a click outside is the safe answer. */
function ask(question, buttons) {
  clear(el.dialog);
  const box = h("div", { class: "dialog-box", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "dialog-q" });
  box.append(h("p", { id: "dialog-q", class: "dialog-q", text: question }));
  const row = h("div", { class: "dialog-buttons" });
  let safe = null;
  for (const b of buttons) {
    const btn = h("button", {
      type: "button", id: b.id, class: b.danger ? "danger" : b.safe ? "primary" : "",
      text: b.text, onclick: () => { closeDialog(); if (b.onclick) b.onclick(); },
    });
    if (b.safe) safe = btn;
    row.append(btn);
  }
  box.append(row);
  el.dialog.append(box);
  el.dialog.hidden = false;
  (safe || row.firstChild).focus();
}

function closeDialog() {
  el.dialog.hidden = true;
  clear(el.dialog);
}

el.dialog.addEventListener("click", (ev) => {
  if (ev.target === el.dialog) closeDialog();
});

async function undo() {
  if (busy || pending !== null || !view || behind()) return;
  busy = true;
  try {
    const v = await api.undo(gameId, token, view.version);
    clearError();
    mode = null;
    receive(v, { back: true }); // the board goes back: draw the answer as it is
  } catch (err) {
    showError(err);
    if (err.status === 409) refresh();
  } finally {
    busy = false;
  }
}

async function refresh() {
  try {
    receive(await api.view(gameId, token));
  } catch (err) {
    showError(err);
  }
}

async function hint() {
  if (!mine(view) || busy) return;
  busy = true;
  try {
    const answer = await api.hint(gameId, token);
    if (answer.version !== view.version) return;
    const m = view.legal.find((x) => x.text === answer.move) || { text: answer.move, json: answer.json };
    const entry = { n: view.version + 1, seat: view.state.turn.decider, json: m.json, move: m.text, delta: null };
    const keys = new Set(caption(entry, ctx).keys);
    for (const [key, moves] of byKey) if (moves.some((x) => x.text === m.text)) keys.add(key);
    hintMarks = new Map([...keys].map((k) => [k, "hint"]));
    hintShown = { version: view.version, move: m, text: `${describeMove(m.json, ctx)} — ${hintReason(answer.reason)}` };
    drawMarks();
    renderControls();
  } catch (err) {
    showError(err);
  } finally {
    busy = false;
  }
}

const HINT_KINDS = new Set(["claim", "place", "drop", "relocate", "displace", "income", "lift", "take-extra", "remove", "marker", "use-marker", "swap", "improve", "pawn", "neutral-office", "end"]);

function hintReason(reason) {
  const params = {
    ...reason,
    route: reason.route ? routeName(ctx, reason.route) : "",
    victim: reason.victim !== undefined && reason.victim !== null ? seatName(ctx, reason.victim) : "",
  };
  let text = t(HINT_KINDS.has(reason.kind) ? `hint.reason.${reason.kind}` : "hint.reason.default", params);
  if (reason.points) text += ` ${tn("hint.points", reason.points)}`;
  return text;
}

function onBoardClick(key, ev) {
  if (!view || !mine(view)) return;
  // On a touch screen, a tap where the targets are smaller than a fingertip zooms in there first.
  if (key && ev && ev.pointerType === "touch" && zoom && houseOnScreen() < 40) {
    zoom.tapZoom(ev.clientX, ev.clientY, 46 / houseOnScreen()); // [zoom] undone once the decision is made
    return;
  }
  if (!key) {
    if (mode) {
      mode = null;
      redraw();
    }
    closePopup();
    return;
  }
  if (mode && mode.type === "shift") {
    const target = key.slice(2);
    const m = (byKey.get(`h:${mode.from}`) || []).find(
      (x) => (x.json.type === "shift" && x.json.to === target) || (x.json.type === "exchange" && [x.json.house, x.json.other].includes(target) && target !== mode.from),
    );
    if (m) send(m.text);
    else {
      mode = null;
      redraw();
    }
    return;
  }
  // Putting a Tribute or Block marker: a house or the route's line both stand for the route.
  if (mode && ROUTE_MODES[mode.type] && key.startsWith("h:")) key = `r:${routeOfHouse(key.slice(2))}`;
  let moves = movesAt(key);
  if (!moves.length && key.startsWith("h:")) {
    // A house of a route that takes a replacement bonus marker stands for the route (a finger finds a house).
    const route = `r:${routeOfHouse(key.slice(2))}`;
    const markers = movesAt(route).filter((m) => m.json.type === "marker");
    if (markers.length) {
      key = route;
      moves = markers;
    }
  }
  if (!moves.length && (key.startsWith("o:") || key.startsWith("g:"))) {
    // An office without a move of its own stands for its city (e.g. the neutral office's city choice).
    key = `c:${key.split(":")[1]}`;
    moves = movesAt(key);
  }
  if (!moves.length) {
    tutorial.refused();
    if (mode) {
      mode = null;
      redraw();
    }
    return;
  }
  // Moving a piece (Move 3, a permanent marker's move or exchange): this piece, then where it goes.
  const shifts = moves.filter((m) => m.json.type === "shift" || m.json.type === "exchange");
  if (shifts.length && shifts.length === moves.length) {
    mode = { type: "shift", from: key.slice(2) };
    redraw();
    return;
  }
  // One move: do it, except a claim of a route with several benefits (the chooser shows them all).
  const claimRoutes = new Set(moves.filter((m) => m.json.type === "claim").map((m) => m.json.route));
  // A Place beside a Block marker costs more pieces: the chooser says so even when there is one way to pay.
  if (moves.length === 1 && !(moves[0].json.type === "pawn" && moves[0].json.paid) && !moves[0].json.pay) {
    const only = moves[0];
    if (only.json.type !== "claim" || key.startsWith("o:") || key.startsWith("t:") || key.startsWith("ab:") || key.startsWith("c:")) {
      send(only.text);
      return;
    }
  }
  if (claimRoutes.size === 1 && moves.every((m) => m.json.type === "claim") && (key.startsWith("r:") || key.startsWith("h:"))) {
    const route = [...claimRoutes][0];
    openPopup(t("popup.claim", { route: routeName(ctx, route) }), view.legal.filter((m) => m.json.type === "claim" && m.json.route === route), ev);
    return;
  }
  openPopup(popupTitle(key, moves), moves, ev);
}

/** Size on screen (CSS px) of a house's tap area at the current zoom. */
function houseOnScreen() {
  const svg = board && board.svg;
  if (!svg || !layout) return 99;
  return (22 * board.k * svg.getBoundingClientRect().width) / layout.width;
}

function popupTitle(key, moves) {
  const [kind, ...rest] = key.split(":");
  const what = rest.join(":");
  if (kind === "h") return t("popup.house", { route: routeName(ctx, routeOfHouse(what)), n: what.split(":").pop() });
  if (kind === "r") return t("popup.route", { route: routeName(ctx, what) });
  if (kind === "c" || kind === "o" || kind === "g" || kind === "ab") return cityName(ctx, rest[0]);
  if (kind === "t") return t("popup.table", { colour: t(`privilege.${what}`) });
  if (kind === "p") return t("popup.province", { code: what });
  return moves.length ? describeMove(moves[0].json, ctx) : t("popup.choose");
}

// ------------------------------------------------------------------ popup

let popupKeys = null;

/** What a claim's benefit gives, as a small picture: the office's colour, shape and coin; the ability; the table. */
function benefitIcon(m) {
  const j = m.json;
  if (j.benefit === "office") {
    const c = layout.cities.find((x) => x.code === j.target);
    const i = nextOffice(j.target);
    const o = c && i !== null ? c.offices[i] : null;
    if (!o) return null;
    return h("span", { class: `office-icon shape-${o.shape}`, style: { "--fill": PRIVILEGE_FILL[o.colour] }, title: t(o.coin ? "popup.officeCoin" : "popup.office", { colour: t(`privilege.${o.colour}`), piece: t(o.shape === "circle" ? "piece.M" : "piece.T") }) }, o.coin ? h("span", { class: "coin-dot", text: "1" }) : null);
  }
  if (j.benefit === "extra") return h("span", { class: "office-icon extra", text: "+" });
  if (j.benefit === "table") {
    const sp = layout.coellen_table.find((x) => x.colour === j.target);
    return h("span", { class: "office-icon shape-circle", style: { "--fill": PRIVILEGE_FILL[j.target] } }, h("span", { class: `table-pts${j.target === "black" ? " on-dark" : ""}`, text: sp ? String(sp.points) : "" }));
  }
  if (j.benefit === "ability") return h("span", { class: "office-icon ability", text: "▲", title: j.ability ? t(`ability.${j.ability}`) : null });
  return h("span", { class: "office-icon none", text: "–" });
}

const BENEFIT_ORDER = { office: 0, extra: 1, ability: 2, table: 3, nothing: 9 };

function openPopup(title, moves, ev) {
  clear(el.popup);
  popupKeys = new Map();
  el.popup.append(h("div", { class: "popup-title", id: "popup-title", text: title }));
  el.popup.setAttribute("aria-labelledby", "popup-title");
  const list = h("div", { class: "popup-list" });
  // Claims first, the benefits that give something before "no benefit"; then the rest in the server's order.
  moves = [...moves].sort((a, b) => {
    const ca = a.json.type === "claim" ? 0 : 1;
    const cb = b.json.type === "claim" ? 0 : 1;
    if (ca !== cb) return ca - cb;
    if (!ca) return (BENEFIT_ORDER[a.json.benefit] ?? 5) - (BENEFIT_ORDER[b.json.benefit] ?? 5);
    return 0;
  });
  // A piece's letter for its choice, unless two choices place the same piece (paid differently beside a Block).
  const pieceMoves = moves.every((m) => ["place", "drop", "relocate", "green-office"].includes(m.json.type)) && new Set(moves.map((m) => m.json.piece)).size === moves.length;
  moves.forEach((m, i) => {
    let hotkey = String(i + 1);
    if (pieceMoves && m.json.piece) hotkey = m.json.piece;
    if (i >= 9 && !pieceMoves) hotkey = "";
    const btn = h(
      "button",
      { type: "button", class: `popup-choice kind-${m.json.type}${m.json.benefit === "nothing" ? " benefit-none" : ""}`, "data-move": m.text, onclick: () => send(m.text) },
      hotkey ? h("kbd", { text: hotkey }) : null,
      m.json.type === "claim" ? benefitIcon(m) : null,
      m.json.type === "use-exchange" ? swatchTag(ctx, m.json.seat) : null,
      h("span", { class: "popup-label" }, h("span", { text: describeMove(m.json, ctx) }), h("code", { class: "popup-text", text: m.text })),
    );
    if (hotkey) popupKeys.set(hotkey.toLowerCase(), m.text);
    list.append(btn);
  });
  el.popup.append(list, h("button", { type: "button", class: "popup-cancel", text: t("popup.cancel"), onclick: closePopup }));
  showPopup(ev);
  const first = el.popup.querySelector(".popup-choice");
  if (first) first.focus({ preventScroll: true });
}

/** Show the popup near the click, kept inside the viewport (on phones: a sheet at the bottom, see app.css). */
function showPopup(ev) {
  el.popup.hidden = false;
  const rect = el.popup.getBoundingClientRect();
  let x = ev && ev.clientX !== undefined ? ev.clientX + 12 : window.innerWidth / 2 - rect.width / 2;
  let y = ev && ev.clientY !== undefined ? ev.clientY + 12 : window.innerHeight / 3;
  x = Math.max(8, Math.min(x, window.innerWidth - rect.width - 8));
  y = Math.max(8, Math.min(y, window.innerHeight - rect.height - 8));
  el.popup.style.left = `${x}px`;
  el.popup.style.top = `${y}px`;
}

/**
 * Emperor's Favour (docs/rules.md §8.3): a tile of the display and two of the player's unused markers, turned face
 * down for it; taking it ends the turn.  ``code``: the tile clicked on the display (null: the action bar's button).
 */
function openTileChooser(code, ev) {
  const moves = view.legal.filter((m) => m.json.type === "tile");
  if (!moves.length) return;
  const tiles = [...new Set(moves.map((m) => m.json.tile))];
  let tile = code && tiles.includes(code) ? code : tiles.length === 1 ? tiles[0] : null;
  const held = (view.state.players[view.state.turn.decider] || { markers: [] }).markers; // one chip per marker
  const chosen = []; // indexes into held, at most two
  clear(el.popup);
  popupKeys = null;
  const tileRow = h("div", { class: "tile-choices", role: "radiogroup", "aria-label": t("favour.title") });
  const markerRow = h("div", { class: "marker-choices", role: "group", "aria-label": t("popup.tileMarkers") });
  const confirm = h("button", { type: "button", class: "primary tile-confirm", id: "tile-confirm" });
  const match = () => {
    if (!tile || chosen.length !== 2) return null;
    const [a, b] = chosen.map((i) => held[i]);
    return moves.find((m) => m.json.tile === tile && ((m.json.first === a && m.json.second === b) || (m.json.first === b && m.json.second === a))) || null;
  };
  const update = () => {
    for (const btn of tileRow.children) {
      const on = btn.dataset.tile === tile;
      btn.classList.toggle("selected", on);
      btn.setAttribute("aria-checked", on ? "true" : "false");
    }
    [...markerRow.children].forEach((btn, i) => {
      const on = chosen.includes(i);
      btn.classList.toggle("selected", on);
      btn.setAttribute("aria-pressed", on ? "true" : "false");
    });
    const m = match();
    confirm.disabled = !m;
    confirm.textContent = tile ? t("popup.tileTake", { tile: tileName(tile) }) : t("popup.tileChoose");
    confirm.dataset.move = m ? m.text : "";
  };
  for (const c of tiles) {
    tileRow.append(
      h(
        "button",
        { type: "button", role: "radio", class: "tile-choice", "data-tile": c, onclick: () => { tile = c; update(); } },
        h("span", { class: "tile-icon", "aria-hidden": "true", text: TILE_ICON[c] || "✦" }),
        h("span", { class: "tile-text" }, h("span", { class: "tile-name", text: tileName(c) }), h("span", { class: "tile-help", text: tileHelp(c) })),
      ),
    );
  }
  held.forEach((marker, i) => {
    markerRow.append(
      h("button", {
        type: "button", class: "marker-choice chip", "data-marker": marker, "aria-pressed": "false", text: markerName(marker),
        onclick: () => {
          const at = chosen.indexOf(i);
          if (at >= 0) chosen.splice(at, 1);
          else {
            if (chosen.length === 2) chosen.shift(); // a third marker replaces the first one chosen
            chosen.push(i);
          }
          update();
        },
      }),
    );
  });
  confirm.addEventListener("click", () => {
    const m = match();
    if (m) send(m.text);
  });
  el.popup.setAttribute("aria-labelledby", "popup-title");
  put(
    el.popup,
    h("div", { class: "popup-title", id: "popup-title", text: t("popup.tile") }),
    tileRow,
    h("p", { class: "popup-note", text: t("popup.tileMarkers") }),
    markerRow,
    h("p", { class: "popup-note muted", text: t("popup.tileEnds") }),
    confirm,
    h("button", { type: "button", class: "popup-cancel", text: t("popup.cancel"), onclick: closePopup }),
  );
  update();
  showPopup(ev);
  (tileRow.querySelector(".selected") ? markerRow.firstChild : tileRow.firstChild)?.focus({ preventScroll: true });
}

function closePopup() {
  el.popup.hidden = true;
  popupKeys = null;
}

document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") {
    if (!el.dialog.hidden) closeDialog();
    closePopup();
    el.settings.hidden = true;
    if (mode) {
      mode = null;
      redraw();
    }
    return;
  }
  if (!el.dialog.hidden) return;
  const typing = ev.target && (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT" || ev.target.tagName === "TEXTAREA");
  if (ev.ctrlKey || ev.metaKey || ev.altKey || typing) return;
  if (!el.popup.hidden && popupKeys) {
    const text = popupKeys.get(ev.key.toLowerCase());
    if (text) {
      ev.preventDefault();
      send(text);
    }
    return;
  }
  // Keyboard play: Tab through the highlighted targets and Enter; these keys for the rest.
  const key = ev.key.toLowerCase();
  if (key === "e" && $("#end-btn")) {
    ev.preventDefault();
    $("#end-btn").click();
  } else if (key === "u" && !el.undo.hidden && !el.undo.disabled) {
    ev.preventDefault();
    undo();
  } else if (key === "h" && $("#hint-btn")) {
    ev.preventDefault();
    hint();
  } else if (key === " " && behind()) {
    ev.preventDefault();
    timeline.skip();
  } else if ((key === "+" || key === "=") && zoom) zoom.step(1.4);
  else if (key === "-" && zoom) zoom.step(1 / 1.4);
  else if (key === "0" && zoom) zoom.reset();
});

document.addEventListener("mousedown", (ev) => {
  if (!el.popup.hidden && !el.popup.contains(ev.target) && !ev.target.closest("svg.board") && !ev.target.closest("#action-buttons")) closePopup();
  if (!el.settings.hidden && !el.settings.contains(ev.target) && ev.target !== el.settingsBtn) el.settings.hidden = true;
});

// ------------------------------------------------------------------ controls

function renderControls() {
  clear(el.buttons);
  clear(el.prompt);
  clear(el.datalist);
  const isPlayer = view.you.length > 0;
  el.controls.hidden = !isPlayer || !running(view);
  el.spectator.hidden = isPlayer || !running(view);
  if (!isPlayer) return;
  const st = view.state;
  if (behind()) {
    el.prompt.append(h("b", { text: t("prompt.watching") + " " }));
    el.buttons.append(h("div", { class: "btn-group" }, h("button", { type: "button", class: "act", id: "skip-btn", text: t("prompt.skip"), onclick: () => timeline.skip() })));
    el.input.disabled = true;
    el.sendBtn.disabled = true;
    return;
  }
  const legal = running(view) ? view.legal : [];
  el.input.disabled = !legal.length;
  el.sendBtn.disabled = !legal.length;
  for (const m of legal) el.datalist.append(h("option", { value: m.text }));
  if (!legal.length) {
    if (!st.over) el.prompt.append(t("prompt.waiting") + " ", nameTag(ctx, st.turn.decider), "…");
    return;
  }
  const types = new Set(legal.map((m) => m.json.type));
  el.prompt.append(h("b", { text: view.you.length > 1 ? `${seatName(ctx, st.turn.decider)}: ` : `${t("prompt.yours")}: ` }), promptText(st, types));
  const groups = [];
  const button = (label, onclick, cls = "", attrs = {}) => h("button", { type: "button", class: `act ${cls}`, onclick, text: label, ...attrs });
  const byType = (type) => legal.filter((m) => m.json.type === type);
  // Income variants.
  const income = byType("income");
  if (income.length) groups.push(h("div", { class: "btn-group" }, ...income.map((m) => button(describeMove(m.json, ctx), () => send(m.text), "", { "data-move": m.text }))));
  // Claims: one button per route, opening the benefit chooser.
  const claimRoutes = [...new Set(byType("claim").map((m) => m.json.route))];
  if (claimRoutes.length) {
    groups.push(
      h(
        "div",
        { class: "btn-group" },
        ...claimRoutes.map((r) =>
          button(t("prompt.claimRoute", { route: routeName(ctx, r) }), (ev) => openPopup(t("popup.claim", { route: routeName(ctx, r) }), byType("claim").filter((m) => m.json.route === r), ev), "claim-btn", { "data-route": r }),
        ),
      ),
    );
  }
  // Markers and their choosers.
  const markerBtns = [];
  for (const m of byType("use")) markerBtns.push(button(describeMove(m.json, ctx), () => send(m.text), "marker-btn", { "data-move": m.text }));
  const improve = byType("improve");
  if (improve.length) markerBtns.push(button(t("prompt.improve"), (ev) => openPopup(t("popup.improve"), improve, ev), "marker-btn", { "data-action": "improve" }));
  const swaps = byType("swap");
  if (swaps.length) {
    markerBtns.push(
      button(mode && mode.type === "swap" ? t("prompt.cancelSwap") : t("prompt.swap"), () => {
        mode = mode && mode.type === "swap" ? null : { type: "swap" };
        redraw();
      }, `marker-btn${mode && mode.type === "swap" ? " active" : ""}`, { "data-action": "swap" }),
    );
  }
  // The promotional markers (docs/rules.md §8.6-§8.8): Exchange takes a used marker of another player (a chooser);
  // Tribute and Block go beside the route clicked next.
  const exchanges = byType("use-exchange");
  if (exchanges.length) markerBtns.push(button(`${t("marker.exchange")}…`, (ev) => openPopup(t("popup.exchange"), exchanges, ev), "marker-btn", { "data-action": "use-exchange", title: t("prompt.exchangeTitle") }));
  for (const [kind, type] of Object.entries(ROUTE_MODES)) {
    if (!byType(type).length) continue;
    const on = !!mode && mode.type === kind;
    markerBtns.push(
      button(on ? t("prompt.cancelMarker", { marker: t(`marker.${kind}`) }) : `${t(`marker.${kind}`)}…`, () => {
        mode = on ? null : { type: kind };
        redraw();
      }, `marker-btn${on ? " active" : ""}`, { "data-action": type, title: t(`prompt.${kind}Title`) }),
    );
  }
  if (markerBtns.length) groups.push(h("div", { class: "btn-group" }, ...markerBtns));
  // Emperor's Favour: take a tile instead of the turn (the display beside the desks takes clicks too).
  if (byType("tile").length) groups.push(h("div", { class: "btn-group" }, button(`${t("prompt.tile")}…`, (ev) => openTileChooser(null, ev), "tile-btn", { "data-action": "tile", title: t("prompt.tileTitle") })));
  // Someone else took Income and this seat holds F-INC: a piece from the stock, or nothing (the Done button).
  const shares = byType("share");
  if (shares.length) groups.push(h("div", { class: "btn-group" }, ...shares.map((m) => button(describeMove(m.json, ctx), () => send(m.text), "share-btn", { "data-move": m.text }))));
  // A tribute with a choice of pieces.
  const tributes = byType("tribute");
  if (tributes.length) groups.push(h("div", { class: "btn-group" }, ...tributes.map((m) => button(describeMove(m.json, ctx), () => send(m.text), "tribute-btn", { "data-move": m.text }))));
  // Pawn: paid moves through a mode.
  const paid = byType("pawn").filter((m) => m.json.paid);
  if (paid.length) {
    groups.push(
      h(
        "div",
        { class: "btn-group" },
        button(mode && mode.type === "pawn" ? t("prompt.cancelPawn") : t("prompt.pawn"), () => {
          mode = mode && mode.type === "pawn" ? null : { type: "pawn" };
          redraw();
        }, mode && mode.type === "pawn" ? "active" : "", { "data-action": "pawn" }),
      ),
    );
  }
  // A permanent bonus marker (East, Britannia): its one-step choices as buttons (the board takes the others).
  const permanentBtns = [];
  for (const m of byType("develop")) permanentBtns.push(button(describeMove(m.json, ctx), () => send(m.text), "marker-btn", { "data-move": m.text }));
  if (permanentBtns.length) groups.push(h("div", { class: "btn-group" }, ...permanentBtns));
  const neutral = byType("neutral-office");
  if (neutral.length) groups.push(h("div", { class: "btn-group" }, ...neutral.map((m) => button(describeMove(m.json, ctx), () => send(m.text), "", { "data-move": m.text }))));
  // Relocation extras, done, hint, end.
  const tail = [];
  for (const m of byType("take")) tail.push(button(describeMove(m.json, ctx), () => send(m.text), "", { "data-move": m.text }));
  for (const m of byType("done")) {
    // A permanent marker not yet used is declined; once used, the player is done with it.
    const pm = st.turn.permanent;
    const label = pm ? t(pm.left >= (PERMANENT_MOVES[pm.effect] || 1) ? "prompt.permanentDecline" : "prompt.permanentDone") : describeMove(m.json, ctx);
    tail.push(button(label, () => send(m.text), pm ? "permanent-done" : "", { "data-move": "done", id: "done-btn" }));
  }
  if (view.table && view.table.hints) tail.push(button(t("hint.button"), () => hint(), "hint-btn", { id: "hint-btn", title: t("hint.title") }));
  for (const m of byType("end")) tail.push(button(describeMove(m.json, ctx), () => endTurn(m.text), "end-btn", { "data-move": "end", id: "end-btn", title: t("prompt.endTitle") }));
  if (mode && mode.type === "shift") tail.push(button(t("common.cancel"), () => { mode = null; redraw(); }, "", { id: "cancel-mode" }));
  if (tail.length) groups.push(h("div", { class: "btn-group" }, ...tail));
  el.buttons.append(...groups);
  if (hintShown && hintShown.version === view.version) {
    el.buttons.append(
      h("div", { class: "hint-box", id: "hint-box" },
        h("span", { class: "hint-text", text: t("hint.text", { text: hintShown.text }) }),
        h("button", { type: "button", class: "act primary", id: "hint-play", text: t("hint.play"), onclick: () => send(hintShown.move.text) })),
    );
  }
}

function promptText(st, types) {
  const tu = st.turn;
  if (mode && mode.type === "swap") return t("prompt.modeSwap");
  if (mode && mode.type === "pawn") return t("prompt.modePawn");
  if (mode && mode.type === "shift") {
    const exchange = (byKey.get(`h:${mode.from}`) || []).some((m) => m.json.type === "exchange");
    return t(exchange ? "prompt.modeShiftExchange" : "prompt.modeShift");
  }
  if (mode && ROUTE_MODES[mode.type]) return t(`prompt.mode.${mode.type}`);
  switch (tu.phase) {
    case "actions": {
      const bits = [];
      for (const type of ["place", "displace", "lift", "claim", "pawn"]) if (types.has(type)) bits.push(t(`prompt.click.${type}`));
      const text = bits.length ? t("prompt.click", { what: bits.join(", ") }) : t("prompt.buttons");
      return types.has("tile") ? `${text} ${t("prompt.orTile")}` : text;
    }
    case "share":
      return t("prompt.share", { name: seatName(ctx, tu.current) });
    case "tribute":
      return t("prompt.tribute");
    case "relocate":
      return t(types.has("relocate") ? "prompt.relocate" : "prompt.relocateDone");
    case "permanent": {
      // What the route's permanent marker does, what to click, and how many moves are left.
      const pm = tu.permanent;
      if (!pm) return t("prompt.choose");
      const route = routeName(ctx, pm.route);
      const what = t(`prompt.permanent.${permanentKey(pm.effect, layout)}`, { route, n: pm.left });
      const many = (PERMANENT_MOVES[pm.effect] || 1) > 1;
      return `${t("prompt.permanent", { route, marker: permanentShort(pm.effect, layout) })} ${what}${many ? ` ${tn("prompt.permanentLeft", pm.left)}` : ""}`;
    }
    case "remove":
      return t("prompt.remove", { n: tu.remove_left });
    case "move":
    case "markers":
    case "pawn_setup":
    case "pawn_end":
    case "neutral_office":
      return t(`prompt.${tu.phase}`);
    default:
      return t("prompt.choose");
  }
}

el.form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = el.input.value.trim();
  if (!text) return;
  el.input.value = "";
  const hit = view.legal.find((m) => m.text.toLowerCase() === text.toLowerCase());
  send(hit ? hit.text : text);
});

// ------------------------------------------------------------------ receiving views and playing them back

/** ``v`` is at least as new as ``old``: a later revision of the stored game (moves, undos, votes, clocks all count),
 * or for views without one, at least as many moves. */
function newer(v, old) {
  if (v.revision !== undefined && old.revision !== undefined) return v.revision > old.revision || (v.revision === old.revision && v.version >= old.version);
  return v.version >= old.version;
}

/** A view from the server (a move's answer, the socket, a reload): onto the timeline. */
function receive(v, { back = false } = {}) {
  v = tutorial.filter(v);
  serverTime.sync(v.now);
  if (!back && latest && !newer(v, latest) && v.status === latest.status) return; // an older answer overtaken
  // A game that has stopped, ended or gone never runs again: a late answer from before (a reload sent as the
  // socket said "damaged") must not bring it back.
  if (!back && latest && latest.status !== "running" && v.status === "running" && v.version <= latest.version) return;
  latest = v;
  if (chat) chat.setContext({ players: v.players, you: v.you, account });
  timeline.update(v, {
    // The viewer must decide: the newest position and the prompt now, whatever was playing (no clock time lost).
    jump: back || (running(v) && v.legal.length > 0) || !view,
    pace: PACES[settings.pace],
    // moves this page made itself are known already: no pause for them
    quick: (e) => controls(e.seat) && e.by !== "bot" && e.by !== "clock",
  });
}

function context(v) {
  return { players: v.players, neutral: v.neutral_colour, layout, phase: v.state.turn.phase, you: v.you };
}

/** The newest view as it was at move ``n`` (whose public position is ``state``): nothing to decide there yet. */
function viewAt(v, n, state) {
  return { ...v, version: n, state, legal: [], undo: 0, status: v.status === "over" ? "running" : v.status, log: v.log.filter((e) => e.n <= n) };
}

let playSources = [];

/** The timeline shows a position: the whole page at it, and the move that led there animated over ``ms``. */
function showStep(step, ms) {
  const before = view;
  view = step.latest ? latest : viewAt(latest, step.entry.n, step.after);
  const entry = step.entry;
  if (!entry || !playSources.turn || playSources.turn !== entry.turn) {
    playSources = [];
    playSources.turn = entry ? entry.turn : null;
  }
  // While moves are played back, the one on screen is marked; at the newest, all the others made since ours.
  adopt(step.latest ? null : new Map(caption(entry, context(view)).keys.map((k) => [k, "last"])));
  // [notices] nothing silent: timeouts, votes, takeovers, the end, told when the page shows them
  if (notices) notices.update(before, view, ctx);
  if (!entry) return;
  const animated = [...(step.also || []).map((s) => s.entry), entry];
  for (const e of animated) {
    if (!e.delta) continue;
    const cap = caption(e, ctx);
    const scoredAt = e.json && e.json.type === "claim" ? `r:${e.json.route}` : cap.keys[0];
    board.animate(e.delta, playSources, Math.round(ms * 0.7), scoredAt);
  }
}

/** Show the view the timeline is at completely: board, desks, controls, log, banners. */
function adopt(marks = null) {
  const v = view;
  const changed = drawn !== v.version;
  drawn = v.version;
  if (changed) {
    mode = null;
    closePopup();
    hintMarks = new Map();
    if (hintShown && hintShown.version !== v.version) hintShown = null;
  }
  ctx = context(v);
  byKey = indexLegal(v.legal);
  lastMarks = marks || marksOfOthers(v);
  redraw();
  followLast(v.version); // [zoom]
  moveLog.update(v.log, v.version);
  // A seat this page played was handed to a bot: its moves are no longer "yours" in the log.
  const youKey = v.you.join(",");
  if (youShown !== null && youShown !== youKey) moveLog.relabel();
  youShown = youKey;
  renderCaption();
  el.undo.disabled = !(running(v) && v.undo > 0);
  el.undo.hidden = v.you.length === 0 || !running(v);
  if (v.you.length === 0 || !running(v)) el.notify.hidden = true;
  // A problem on the server's side (a bot or the database failing) shows while it lasts.
  el.serverError.hidden = !v.error;
  el.serverError.textContent = v.error ? t("table.serverProblem", { error: v.error }) : "";
  renderInfo(v);
  el.undo.title = v.undo > 0 ? tn("table.undoTitle", v.undo) : t("table.nothingToUndo");
  el.title.textContent = v.players.map((p) => p.name).join(" · ");
  document.body.dataset.version = String(v.version);
  document.body.dataset.shown = String(v.version);
  document.body.dataset.latest = String(latest.version);
  document.body.dataset.mine = mine(v) ? "1" : "0";
  document.body.dataset.status = v.status;
  document.body.dataset.phase = v.state.turn.phase;
  // Your-decision notifications.  The banner's line stays while this page plays a seat of a running game, saying
  // whom the table waits for between its decisions, so the board below does not jump when a decision comes or goes.
  const now = myDecision(v);
  const seated = v.you.length > 0 && running(v);
  el.turnBanner.hidden = !seated;
  el.turnBanner.classList.toggle("waiting", seated && !now);
  el.turnBanner.classList.toggle("decide", !!now);
  if (now) {
    clear(el.turnBanner).append(
      h("b", { text: v.you.length > 1 ? t("banner.toDecide", { name: seatName(ctx, v.state.turn.decider) }) : t("prompt.yours") }),
      " — ",
      v.state.turn.phase === "relocate" ? t("banner.relocate") : t("banner.turn", { n: v.state.turn.number }),
    );
  } else if (seated) {
    const decider = v.state.turn.decider;
    const ours = v.you.includes(decider); // ours while the others' moves play back, or while a bot plays for an away seat
    clear(el.turnBanner).append(
      h("span", {
        class: "banner-name",
        text: ours && behind() ? t("prompt.watching") : t(ours ? "banner.toDecide" : "banner.waiting", { name: seatName(ctx, decider) }),
      }),
      " — ",
      t("banner.turn", { n: v.state.turn.number }),
    );
  }
  if (now && !wasMyDecision && !firstView) notify(v);
  wasMyDecision = now;
  firstView = false;
  setTitle();
  renderAway(v);
  renderTakeover(v);
  renderClockBar(v);
  renderNotifySettings(v);
  tickClocks();
  if (token && !GONE.has(v.status) && v === latest) rememberSeat(v, token); // "My games" (/my-games) lists it from now on
  renderKeepSeat(v);
  if (v.status === "over") renderEndgame();
  else if (HALTED.has(v.status)) renderHalted();
  else {
    el.endgame.hidden = true;
    endgameFor = null;
  }
  if (v === latest) tutorial.shown(v); // "Learn to play": the next step, once the newest position shows
}

/** The places changed by others since the last move of a seat this page plays (spectators: the last turn). */
function marksOfOthers(v) {
  const marks = new Map();
  const log = v.log;
  let i = log.length - 1;
  if (v.you.length) {
    while (i >= 0 && !v.you.includes(log[i].seat)) i--;
  } else {
    const last = log.length ? log[log.length - 1].turn : null;
    while (i >= 0 && log[i].turn === last) i--;
  }
  for (const e of log.slice(i + 1)) {
    if (v.you.includes(e.seat)) continue;
    for (const k of caption(e, context(v)).keys) marks.set(k, "last");
  }
  return marks;
}

/** [zoom] The places of the latest move (its "last" marks) brought into view on a zoomed board, once per move. */
function followLast(n) {
  if (zoom && board && board.svg) zoom.follow(board.svg.querySelectorAll(".mark-last"), n);
}

function hoverEntry(entry) {
  hoverMarks = entry ? new Map(caption(entry, ctx).keys.map((k) => [k, "hover"])) : new Map();
  drawMarks();
}

function drawMarks() {
  if (!board) return;
  board.setMarks(new Map([...lastMarks, ...missionMarks, ...hintMarks, ...hoverMarks]));
}

/** The mission card pointed at (``pin``: tapped or clicked, which keeps its cities marked until the next tap):
 * its three cities ringed on the board. */
function showMission(cities, pin, seat) {
  if (pin) {
    missionPinned = missionPinned === seat ? null : seat;
    renderModulesPanel(); // marks the pinned card and its cities
  } else {
    const pinned = missionPinned !== null && view.missions ? view.missions[String(missionPinned)] : null;
    missionMarks = new Map((cities || (pinned ? pinned.cities : [])).map((c) => [`c:${c}`, "mission"]));
  }
  drawMarks();
}

/** The modules' panel (Emperor's Favour, the viewer's mission card): the tiles may be clicked when one may be taken. */
let modulesShown = null; // what the panel was drawn for: drawn again only when it changes (a card pointed at stays)

function renderModulesPanel() {
  const takeable = new Set(mine(view) ? view.legal.filter((m) => m.json.type === "tile").map((m) => m.json.tile) : []);
  const key = JSON.stringify([view.version, view.status, [...takeable], missionPinned, behind()]);
  if (key === modulesShown) return;
  modulesShown = key;
  // The card drawn anew is no longer pointed at: only a pinned card keeps its cities marked (none once the cards
  // are no longer in the view: the game is over).
  const pinned = missionPinned !== null && view.missions && view.missions[String(missionPinned)];
  if (!pinned) missionPinned = null;
  missionMarks = new Map((pinned ? pinned.cities : []).map((c) => [`c:${c}`, "mission"]));
  renderModules(el.modules, view.state, ctx, {
    missions: view.missions,
    you: view.you,
    takeable,
    onTile: (code, ev) => openTileChooser(code, ev),
    onMission: showMission,
    pinned: missionPinned,
    nameTag: (seat) => nameTag(ctx, seat),
  });
}

/** The line under the board: the move being played back, else the latest move, in plain words with its points. */
function renderCaption(entry = null, cap = null) {
  clear(el.caption);
  const log = view ? view.log : [];
  const e = entry || log[log.length - 1];
  if (!e) {
    el.caption.append(h("span", { class: "muted", text: t("log.empty") }));
    return;
  }
  const c = cap || caption(e, ctx);
  el.caption.classList.toggle("playing", behind());
  put(
    el.caption,
    h("span", { class: "cap-n", text: `${e.n}.` }),
    swatchTag(ctx, e.seat),
    h("span", { class: "cap-text", text: c.text }),
    c.points.length ? h("span", { class: "cap-points", text: pointsText(c.points, ctx) }) : null,
  );
}

/** The discreet game info under the move log: the id, and the seed once it is public (or chosen). */
function renderInfo(v) {
  clear(el.info).append(h("span", { text: t("info.game", { id: v.id }) }));
  if (v.seed !== null && v.seed !== undefined) el.info.append(" · ", h("span", { class: "seed", text: t("info.seed", { seed: v.seed }) }));
  el.info.append(" · ", h("span", { text: t(v.table && v.table.hints ? "info.hints" : "info.noHints") }));
}

function colours() {
  return {
    players: view.players.map((p) => p.colour),
    symbols: view.players.map((p) => p.symbol),
    neutral: view.neutral_colour,
    names: view.players.map((p) => p.name),
  };
}

function redraw() {
  const hl = highlights();
  renderModulesPanel(); // first: it says which mission cities stay marked
  board.render(view.state, colours(), hl);
  drawMarks();
  renderStatus(el.status, view.state, ctx);
  if (HALTED.has(view.status)) el.status.prepend(h("b", { class: "st-halted", text: t(`state.${view.status}`) }), " · ");
  const abilityKeys = new Map();
  if (mine(view)) for (const m of view.legal) if (m.json.type === "improve" || m.json.type === "develop") abilityKeys.set(m.json.ability, "claim");
  renderDesks(el.desks, view.state, ctx, {
    you: view.you,
    ended: view.status !== "running",
    clock: deskClock,
    note: deskNote,
    abilityKeys,
    onAbility: (a) => {
      const m = view.legal.find((x) => (x.json.type === "improve" || x.json.type === "develop") && x.json.ability === a);
      if (m) send(m.text);
    },
  });
  tickClocks();
  renderControls();
}

function notify(v) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (!document.hidden && document.hasFocus()) return; // the player is looking at the page
  try {
    const n = new Notification(t("notify.title"), { body: t("notify.body", { id: v.id, n: v.state.turn.number }), tag: `hansa-${v.id}` });
    n.onclick = () => window.focus();
  } catch {
    /* some browsers only allow notifications from a service worker */
  }
}

function setupNotifyButton() {
  if (!notifySupported()) {
    el.notify.hidden = true;
    return;
  }
  updateNotifyButtons();
  el.notify.addEventListener("click", askNotify);
}

// ------------------------------------------------------------------ clocks, away seats, takeover votes

const timeoutBot = (v) => (v.clock && v.clock.bot) || "heuristic";
const hasClock = (v) => !!v && !!v.clock && !!v.clock.kind && v.clock.kind !== "none";

/** A seat's clock (filled in and counted down by tickClocks). */
function clockNode(seat, cls) {
  return h("span", { class: cls, role: "timer", "data-clock-seat": seat, hidden: true }, h("span", { class: "clock-icon", "aria-hidden": "true" }), h("span", { class: "clock-time" }));
}

function deskClock(seat) {
  return hasClock(view) ? clockNode(seat, "clock desk-clock") : null;
}

/** Under a seat's name: away (a bot plays it since its time ran out), and the votes to hand it to a bot. */
function deskNote(seat) {
  const p = view.players[seat];
  if (!p || !running(view)) return null;
  const votes = (p.takeover_votes || []).length;
  if (!p.away && !votes) return null;
  return h(
    "div",
    { class: "desk-note" },
    p.away ? h("span", { class: "away-mark", text: t("away.mark", { bot: botLabel(timeoutBot(view)) }) }) : null,
    votes ? h("span", { class: "vote-mark", text: tn("takeover.votesOn", votes) }) : null,
  );
}

/** The phone's strip of every seat's clock above the board (the desks are on another tab there). */
function renderClockBar(v) {
  clear(el.clockBar);
  el.clockBar.hidden = !hasClock(v) || !running(v);
  if (el.clockBar.hidden) return;
  v.players.forEach((p, seat) => {
    el.clockBar.append(
      h(
        "span",
        { class: `clock-chip${v.clock.seat === seat ? " deciding" : ""}${p.away ? " away" : ""}`, style: { "--pc": p.colour }, "data-seat": seat, title: p.name },
        h("span", { class: "swatch", "data-symbol": p.symbol || "" }),
        h("span", { class: "chip-name", text: p.name }),
        clockNode(seat, "clock bar-clock"),
      ),
    );
  });
}

/** Count the clocks down (once a second), from the server's time. */
function tickClocks() {
  if (!view) return;
  const now = serverTime.now();
  for (const node of document.querySelectorAll("[data-clock-seat]")) {
    const seat = Number(node.dataset.clockSeat);
    const c = seatClock(view, seat, now);
    node.hidden = !c;
    if (!c) continue;
    const text = formatClock(c.kind, c.left);
    const out = node.querySelector(".clock-time");
    if (out.textContent !== text) out.textContent = text;
    node.classList.toggle("running", c.running);
    node.classList.toggle("low", c.low);
    node.classList.toggle("away", !!(view.players[seat] || {}).away);
    const title = c.kind === "realtime" ? t("clock.title.realtime") : t("clock.title.turn", { bank: formatLong(c.bank || 0) });
    if (node.title !== title) {
      node.title = title;
      node.setAttribute("aria-label", `${view.players[seat] ? view.players[seat].name : ""}: ${text}`);
    }
  }
  for (const node of document.querySelectorAll("[data-think-seat]")) {
    const text = formatLong(thinking(view, Number(node.dataset.thinkSeat), now));
    if (node.textContent !== text) node.textContent = text;
  }
  // A seat deciding for takeover_after without a move becomes abandoned as time goes by.
  if (running(view) && abandonedKey(view, now) !== takeoverShown) renderTakeover(view);
}

/** The seats the viewer may vote to hand to a bot now: other human seats that are away or idle too long. */
function takeoverTargets(v, now) {
  if (!running(v)) return [];
  const voters = v.you.filter((s) => v.players[s] && v.players[s].type === "human");
  return v.players.map((p, seat) => seat).filter((seat) => !v.you.includes(seat) && voters.length && abandoned(v, seat, now));
}

const abandonedKey = (v, now) => takeoverTargets(v, now).join(",");
let takeoverShown = "";
const takeoverLevel = new Map(); // seat -> the bot level chosen for it (kept when the offer is drawn again)

/** The viewer's seats that are away: a banner with "take back my seat". */
function renderAway(v) {
  const away = running(v) ? v.you.filter((s) => v.players[s] && v.players[s].away) : [];
  el.awayBanner.hidden = !away.length;
  clear(el.awayBanner);
  document.body.dataset.away = away.join(",");
  for (const seat of away) {
    const name = v.players[seat].name;
    const solo = v.you.length === 1;
    el.awayBanner.append(
      h(
        "div",
        { class: "away-row" },
        h("span", { class: "away-text", text: solo ? t("away.banner", { bot: botLabel(timeoutBot(v)) }) : t("away.bannerSeat", { name, bot: botLabel(timeoutBot(v)) }) }),
        h("button", { type: "button", class: "primary back-btn", "data-seat": seat, text: solo ? t("away.back") : t("away.backSeat", { name }), onclick: (ev) => comeBack(seat, ev.currentTarget) }),
      ),
    );
  }
}

async function comeBack(seat, btn) {
  btn.disabled = true;
  try {
    const v = await api.back(gameId, token, view.you.length > 1 ? seat : undefined);
    clearError();
    receive(v);
  } catch (err) {
    showError(pageError("away.failed", { error: err.message }));
    if (err.status === 409) refresh();
  } finally {
    btn.disabled = false;
  }
}

/** Offer the other players a vote to let a bot take over an abandoned seat; a second click withdraws the vote. */
function renderTakeover(v) {
  const now = serverTime.now();
  const targets = takeoverTargets(v, now);
  takeoverShown = targets.join(",");
  const focused = el.takeover.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
  clear(el.takeover);
  el.takeover.hidden = !targets.length;
  for (const seat of targets) {
    const p = v.players[seat];
    const votes = (p.takeover_votes || []).filter((s) => v.players[s] && v.players[s].type === "human" && !v.players[s].away);
    const mineVoted = v.you.some((s) => (p.takeover_votes || []).includes(s));
    const level = h("select", { class: "takeover-bot", "aria-label": t("takeover.level"), "data-focus-key": `level-${seat}` }, ...TIMEOUT_BOTS.map((b) => h("option", { value: b, text: botLabel(b) })));
    level.value = takeoverLevel.get(seat) || timeoutBot(v);
    level.disabled = mineVoted;
    level.addEventListener("change", () => takeoverLevel.set(seat, level.value));
    const why = p.away
      ? h("p", { class: "takeover-why", text: t("takeover.away", { name: p.name }) })
      : h("p", { class: "takeover-why" }, t("takeover.idle", { name: p.name }), " ", h("b", { "data-think-seat": seat, text: formatLong(thinking(v, seat, now)) }));
    const btn = h("button", {
      type: "button",
      class: `takeover-btn${mineVoted ? " voted" : ""}`,
      "data-seat": seat,
      "data-focus-key": `vote-${seat}`,
      "aria-pressed": mineVoted ? "true" : "false",
      text: mineVoted ? t("takeover.withdraw", { name: p.name }) : t("takeover.vote", { name: p.name }),
      onclick: (ev) => vote(seat, mineVoted ? null : level.value, ev.currentTarget),
    });
    el.takeover.append(
      h(
        "div",
        { class: "takeover-seat", "data-seat": seat, style: { "--pc": p.colour } },
        why,
        h("div", { class: "takeover-row" }, btn, h("label", { class: "takeover-level" }, h("span", { text: t("takeover.level") }), level)),
        h("p", { class: "takeover-count", text: t("takeover.count", { votes: votes.length, needed: votesNeeded(v, seat) }) }),
      ),
    );
  }
  if (focused) {
    const again = el.takeover.querySelector(`[data-focus-key="${focused}"]`);
    if (again) again.focus();
  }
}

async function vote(seat, bot, btn) {
  btn.disabled = true;
  try {
    const v = await api.takeover(gameId, token, seat, bot);
    clearError();
    receive(v);
  } catch (err) {
    showError(pageError("takeover.failed", { error: err.message }));
    if (err.status === 409) refresh();
  } finally {
    btn.disabled = false;
  }
}

// ------------------------------------------------------------------ notifications: desktop and webhook

const notifySupported = () => "Notification" in window;

/** The permission buttons' texts (the top bar's and the settings'): ask, on, or blocked by the browser. */
function updateNotifyButtons() {
  for (const btn of [el.notify, $("#notify-perm")]) {
    if (!btn) continue;
    const p = Notification.permission;
    btn.textContent = t(p === "granted" ? "table.notifyOn" : p === "denied" ? "table.notifyBlocked" : "table.notify");
    btn.disabled = p !== "default";
  }
}

async function askNotify() {
  try {
    await Notification.requestPermission();
  } catch {
    /* ignore */
  }
  updateNotifyButtons();
}

let notifyFor = null; // the seats the settings' notify section was drawn for

/** The settings' "Notify me" section: desktop notifications, and a webhook for the viewer's seat. */
function renderNotifySettings(v) {
  const box = $("#set-notify");
  if (!box) return;
  const seats = running(v) ? v.you.filter((s) => v.players[s] && v.players[s].type === "human") : [];
  const key = `${seats.join(",")}|${JSON.stringify(v.webhooks || {})}|${(v.webhooks_suspended || []).join(",")}`;
  if (notifyFor === key || box.contains(document.activeElement)) return;
  notifyFor = key;
  clear(box);
  box.hidden = !v.you.length;
  box.append(h("legend", { text: t("notifyMe.title") }));
  if (notifySupported()) {
    box.append(
      h("p", { class: "set-note", text: t("notifyMe.desktop") }),
      h("button", { type: "button", id: "notify-perm", onclick: askNotify }),
    );
    updateNotifyButtons();
  }
  if (!seats.length) return;
  const hooks = v.webhooks || {};
  const seatSel = seats.length > 1 ? h("select", { id: "webhook-seat", "aria-label": t("notifyMe.seat") }, ...seats.map((s) => h("option", { value: String(s), text: v.players[s].name }))) : null;
  const input = h("input", { type: "url", id: "webhook-url", placeholder: "https://…", maxlength: "500", spellcheck: "false", autocomplete: "off" });
  const seatNow = () => (seatSel ? Number(seatSel.value) : seats[0]);
  const fill = () => {
    input.value = hooks[String(seatNow())] || "";
  };
  fill();
  if (seatSel) seatSel.addEventListener("change", fill);
  const msg = h("p", { id: "webhook-msg", class: "set-note webhook-msg", role: "status" });
  const suspended = new Set(v.webhooks_suspended || []);
  const showSuspended = () => {
    // The server stopped calling a webhook that failed too many notices in a row; saving it again resumes.
    const off = suspended.has(seatNow()) && input.value;
    msg.classList.toggle("bad", !!off);
    msg.textContent = off ? t("notifyMe.suspended") : "";
  };
  showSuspended();
  if (seatSel) seatSel.addEventListener("change", showSuspended);
  const save = async (url) => {
    msg.classList.remove("bad");
    msg.textContent = "";
    if (url !== null && !/^https?:\/\/\S+$/i.test(url)) {
      msg.classList.add("bad");
      msg.textContent = t("notifyMe.badUrl");
      return;
    }
    try {
      const answer = await api.webhook(gameId, token, seatSel ? seatNow() : undefined, url);
      hooks[String(answer.seat)] = answer.webhook;
      suspended.delete(answer.seat);
      input.value = answer.webhook || "";
      msg.textContent = answer.webhook ? t("notifyMe.saved") : t("notifyMe.removed");
    } catch (err) {
      msg.classList.add("bad");
      // The server says why (webhooks off on this server, an address it may not call) in its words.
      msg.textContent = err.status ? t("notifyMe.refused", { error: err.message }) : errorMessage(err);
    }
  };
  put(
    box,
    h("label", { class: "set-note webhook-label", for: "webhook-url", text: t("notifyMe.webhook") }),
    seatSel,
    h(
      "form",
      { class: "webhook-form", onsubmit: (ev) => { ev.preventDefault(); save(input.value.trim()); } },
      input,
      h("div", { class: "webhook-buttons" },
        h("button", { type: "submit", id: "webhook-save", text: t("notifyMe.save") }),
        h("button", { type: "button", id: "webhook-remove", text: t("notifyMe.remove"), onclick: () => save(null) })),
    ),
    msg,
  );
}

// ------------------------------------------------------------------ settings

function setupSettings() {
  const apply = () => {
    document.body.classList.toggle("cb-mode", !!settings.colourBlind);
    document.body.dataset.pace = settings.pace;
  };
  const paceRow = h("fieldset", { class: "set-pace" }, h("legend", { text: t("settings.pace") }));
  for (const name of ["slow", "normal", "fast", "instant"]) {
    const label = t(`settings.pace.${name}`);
    const input = h("input", { type: "radio", name: "pace", value: name, id: `pace-${name}` });
    input.checked = settings.pace === name;
    input.addEventListener("change", () => {
      settings.pace = name;
      saveSettings(settings);
      apply();
    });
    paceRow.append(h("label", { for: `pace-${name}` }, input, ` ${label}`));
  }
  const toggle = (id, label, keyName) => {
    const input = h("input", { type: "checkbox", id });
    input.checked = !!settings[keyName];
    input.addEventListener("change", () => {
      settings[keyName] = input.checked;
      saveSettings(settings);
      apply();
    });
    return h("label", { class: "set-toggle", for: id }, input, ` ${label}`);
  };
  put(
    el.settings,
    h("h2", { text: t("settings.title") }),
    h("label", { class: "set-lang" }, h("span", { text: `${t("common.language")} ` }), languagePicker()),
    paceRow,
    toggle("cb-toggle", t("settings.colourBlind"), "colourBlind"),
    toggle("confirm-toggle", t("settings.confirmEnd"), "confirmEnd"),
    h("fieldset", { id: "set-notify", class: "set-notify", hidden: true }),
    touchScreen() ? null : h("p", { class: "set-keys muted", text: t("settings.keys") }), // no keys on a touch screen
    h(
      "p",
      { class: "set-links" },
      h("a", { href: `/rules?lang=${language()}`, target: "_blank", rel: "noopener", text: t("common.rules") }),
      " · ",
      h("a", { href: "/", text: t("common.lobby") }),
      " · ",
      h("a", { href: "/my-games", text: t("common.myGames") }),
    ),
  );
  el.settingsBtn.addEventListener("click", () => {
    el.settings.hidden = !el.settings.hidden;
  });
  apply();
}

// ------------------------------------------------------------------ phone tabs

function setupTabs() {
  for (const btn of el.tabs.querySelectorAll("button[data-tab]")) {
    btn.addEventListener("click", () => {
      document.body.dataset.tab = btn.dataset.tab;
      for (const b of el.tabs.querySelectorAll("button[data-tab]")) b.setAttribute("aria-selected", String(b === btn));
      if (btn.dataset.tab === "chat" && chat) chat.seen();
    });
  }
  document.body.dataset.tab = "play";
}

// ------------------------------------------------------------------ the end

async function renderEndgame() {
  if (endgameFor === view.version) return;
  endgameFor = view.version;
  const st = view.state;
  clear(el.endgame);
  el.endgame.hidden = false;
  el.endgame.className = "panel endgame";
  const winners = st.result.winners;
  const head = h("h2", null, `${t("status.over")} — `, `${t(winners.length > 1 ? "end.winners" : "end.winner")}: `);
  winners.forEach((w, i) => head.append(i ? ", " : "", nameTag(ctx, w)));
  const triggers = (st.result.end_triggers || []).map((x) => t(`trigger.${x}`)).join(", ");
  put(
    el.endgame,
    head,
    triggers ? h("p", { class: "muted", text: t("end.triggers", { triggers }) }) : null,
    h("div", { class: "table-scroll" }, scoreTable(st.result, ctx)),
    missionsResult(st.result, st, ctx, (seat) => nameTag(ctx, seat)),
    h(
      "p",
      { class: "end-links" },
      h("a", { href: api.recordUrl(gameId), download: `hansa-${gameId}.json`, class: "btn", id: "end-record", text: t("end.record") }),
      " ",
      h("a", { href: `/replay/${encodeURIComponent(gameId)}`, class: "btn", id: "end-replay", text: t("end.replay") }),
      " ",
      h("a", { href: "/", class: "btn", text: t("common.lobby") }),
    ),
    h("div", { id: "rematch", class: "rematch", "aria-live": "polite", hidden: true }),
  );
  rematchShown = "";
  watchRematch();
  if (rematchTimer) renderRematch();
  const chartSlot = h("div", { class: "chart-slot", text: t("end.chartLoading") });
  el.endgame.append(chartSlot);
  try {
    const hist = await api.history(gameId);
    clear(chartSlot).append(scoreChart(hist, view.players));
  } catch (err) {
    chartSlot.textContent = t("end.chartFailed", { error: err.message });
  }
}

/** Stopped or abandoned (from the view), deleted or damaged (from the socket): no actions; what is left. */
async function renderHalted() {
  const key = `${view.status}:${view.version}`;
  if (endgameFor === key) return;
  endgameFor = key;
  const gone = GONE.has(view.status);
  clear(el.endgame);
  el.endgame.hidden = false;
  el.endgame.className = `panel endgame halted halted-${view.status}`;
  el.replayLink.hidden = gone;
  el.recordLink.hidden = gone;
  put(
    el.endgame,
    h("h2", { id: "halted-title", text: t(`halted.${view.status}`) }),
    view.note ? h("p", { class: "halted-note", id: "halted-note", text: view.note[0].toUpperCase() + view.note.slice(1) }) : null,
    view.status === "deleted" ? h("p", { class: "muted", text: t("halted.deletedText") }) : null,
    gone ? null : h("p", { class: "muted", text: tn("halted.text", view.version, { turn: view.state.turn.number }) }),
    h(
      "p",
      { class: "end-links" },
      gone ? null : h("a", { href: api.recordUrl(gameId), download: `hansa-${gameId}.json`, class: "btn", id: "end-record", text: t("end.record") }),
      gone ? null : h("a", { href: `/replay/${encodeURIComponent(gameId)}`, class: "btn", id: "end-replay", text: t("end.replay") }),
      h("a", { href: "/", class: "btn", text: t("common.lobby") }),
    ),
  );
  if (gone || view.version === 0) return;
  const chartSlot = h("div", { class: "chart-slot", text: t("end.chartLoading") });
  el.endgame.append(chartSlot);
  try {
    const hist = await api.history(gameId);
    // A chart of flat zeros (a game stopped early) says nothing.
    if (hist.turns.some((tr) => tr.scores.some((x) => x > 0))) clear(chartSlot).append(scoreChart(hist, view.players));
    else chartSlot.remove();
  } catch (err) {
    chartSlot.textContent = t("end.chartFailed", { error: err.message });
  }
}

/** The socket said the game is gone for good (4410 deleted, 4409 damaged): show it like a halted game. */
function gameGone(status, reason) {
  clearError();
  if (!view) {
    showError(reason ? new Error(reason) : pageError(`halted.${status}`));
    return;
  }
  timeline.stop();
  latest = { ...latest, status, note: reason || null, legal: [], undo: 0, error: null };
  view = latest;
  adopt();
}

// ------------------------------------------------------------------ accounts: keeping a seat, rematch

let account = null; // the signed-in account, or null
/** A "Learn to play" or hot-seat game: no seat to keep, no rematch. */
const special = (v) => !!(v.table && (v.table.tutorial || v.table.hotseat));

/** Signed in and opened with a seat link: offer to keep the seat in the account (the link then only watches). */
function renderKeepSeat(v) {
  const box = $("#keep-seat");
  const show = !!(account && token && v.you.length && !special(v) && v.status === "running");
  box.hidden = !show;
  if (!show || box.firstChild) return;
  const btn = h("button", { type: "button", class: "small", id: "keep-seat-btn", text: t("keep.button") });
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    try {
      await api.attachSeat(gameId, token);
      forgetSeatToken(gameId, token);
      location.replace(`/game/${encodeURIComponent(gameId)}`); // from now on the session plays the seat
    } catch (err) {
      btn.disabled = false;
      showError(err);
    }
  });
  box.append(h("span", { class: "muted", text: t("keep.text", { name: account.name }) }), " ", btn);
}

let rematchTimer = null;
let rematchShown = "";

/** At the end: propose a rematch, or see who accepted the one proposed (and accept or decline it); once it has
 * started, go there (a guest with the same token: its seat's token in the new game too). */
async function renderRematch() {
  const box = $("#rematch");
  if (!box || !view || view.status !== "over" || !view.you.length || special(view)) return;
  let tb;
  try {
    tb = (await api.rematchOf(gameId, token)).table;
  } catch (err) {
    if (err.status === 404 || err.status === 405) {
      box.hidden = true; // a server without rematches
      clearInterval(rematchTimer);
      return;
    }
    tb = undefined;
  }
  if (tb === undefined) return;
  if (tb && tb.status === "started" && tb.game) {
    clearInterval(rematchTimer);
    location.assign(gameLinkOf(tb, token));
    return;
  }
  const key = JSON.stringify(tb && [tb.status, tb.seats.map((s) => s.accepted), tb.you]);
  if (key === rematchShown) return;
  rematchShown = key;
  box.hidden = false;
  clear(box);
  document.body.dataset.rematch = tb ? tb.status : "none";
  if (!tb) {
    const btn = h("button", { type: "button", class: "primary", id: "rematch-btn", text: t("rematch.propose") });
    btn.addEventListener("click", () => answerRematch(btn, () => api.rematch(gameId, token)));
    put(box, btn, " ", h("span", { class: "muted", text: t("rematch.text") }));
    return;
  }
  if (tb.status === "closed") {
    box.append(h("p", { class: "rematch-head", id: "rematch-closed", text: tb.note ? closedNote(tb.note) : t("rematch.declined") }));
    return;
  }
  box.append(h("p", { class: "rematch-head", text: t("rematch.proposed", { name: proposer(tb) }) }));
  const list = h("ul", { class: "rematch-seats" });
  for (const s of tb.seats) {
    list.append(h("li", { "data-seat": s.seat, class: s.accepted ? "accepted" : "waiting" }, h("span", { class: "pname", text: s.name || t("tables.openSeat") }), " ", h("span", { class: `tag ${s.accepted ? "accepted-tag" : "waiting-tag"}`, text: s.accepted ? t("rematch.accepted") : t("rematch.waiting") })));
  }
  box.append(list);
  const me = tb.you !== null && tb.you !== undefined ? tb.seats[tb.you] : null;
  const actions = h("p", { class: "end-links" });
  if (me && !me.accepted) {
    const yes = h("button", { type: "button", class: "primary", id: "rematch-accept", text: t("rematch.accept") });
    const no = h("button", { type: "button", class: "decline-btn", id: "rematch-decline", text: t("rematch.decline") });
    yes.addEventListener("click", () => answerRematch(yes, () => api.tableAction(tb.id, "accept", token)));
    no.addEventListener("click", () => answerRematch(no, () => api.tableAction(tb.id, "decline", token)));
    actions.append(yes, no);
  } else actions.append(h("span", { class: "muted", text: t("rematch.waitingAll") }));
  actions.append(h("a", { class: "btn", href: tb.url, text: t("rematch.table") }));
  box.append(actions);
}

async function answerRematch(btn, call) {
  btn.disabled = true;
  try {
    await call();
  } catch (err) {
    showError(err);
  }
  btn.disabled = false;
  rematchShown = "";
  await renderRematch();
}

function watchRematch() {
  if (rematchTimer || !view.you.length || special(view)) return;
  renderRematch();
  rematchTimer = setInterval(() => document.visibilityState === "visible" && renderRematch(), 3000);
}

// ------------------------------------------------------------------ start

async function main() {
  await initLanguage();
  mountAccount($(".topbar .top-actions"));
  if (!gameId) {
    showError(pageError("error.noGame"));
    return;
  }
  el.replayLink.href = `/replay/${encodeURIComponent(gameId)}`;
  el.recordLink.href = api.recordUrl(gameId);
  el.recordLink.setAttribute("download", `hansa-${gameId}.json`);
  el.undo.addEventListener("click", undo);
  moveLog = new MoveLog(el.log, el.logNew, {
    loadPage: (start, limit) => api.logPage(gameId, start, limit),
    context: () => ctx,
    onHover: hoverEntry,
  });
  // [notices] the log lines of the events the clock's own moves do not already tell
  notices = new Notices($("#notices"), { onLog: (text, kind, after) => kind !== "clockEnd" && moveLog.note(text, kind, after), onBack: comeBack });
  setupNotifyButton();
  setupSettings();
  setupTabs();
  account = await currentAccount(); // also gives api.js the session's CSRF token: an account's seat plays by its session
  let v;
  try {
    v = await api.view(gameId, token);
    if (token && account && v.you.length === 0) {
      // a seat link kept in the account only watches now: the account's session plays the seat
      const mine = await api.view(gameId, null);
      if (mine.you.length) {
        location.replace(`/game/${encodeURIComponent(gameId)}`);
        return;
      }
    }
    layout = await api.board(v.board_side);
  } catch (err) {
    showError(err);
    el.status.textContent = t("error.load");
    return;
  }
  board = new BoardView(el.board, layout, { onClick: onBoardClick, trackIn: $("#track-wrap") });
  zoom = new Zoom(el.viewport, el.board, { max: 8 });
  el.zoomIn.addEventListener("click", () => zoom.step(1.5));
  el.zoomOut.addEventListener("click", () => zoom.step(1 / 1.5));
  el.zoomReset.addEventListener("click", () => zoom.reset());
  window.addEventListener("resize", () => zoom.apply());
  if (token && v.you.length === 0) showError(pageError("error.watchOnly"));
  try {
    await tutorial.init(v, { gameId, token, receive: (nv) => receive(nv), refresh, describe: (j) => describeMove(j, ctx), wholeBoard: () => zoom.reset(), focus: (marks) => zoom.focus(marks, (46 * zoom.scale) / houseOnScreen()) });
  } catch (err) {
    showError(err);
  }
  chat = new ChatPanel($("#chat"), {
    gameId,
    token,
    phoneTab: () => document.body.dataset.tab === "chat",
    onUnread: (n) => {
      const badge = $("#chat-tab-badge");
      badge.hidden = n === 0;
      badge.textContent = n ? String(n) : "";
    },
  });
  receive(v);
  chat.load().catch((err) => chat.showError(err));
  setInterval(tickClocks, 500);
  const socket = new LiveSocket(gameId, token, {
    onView: (nv) => receive(nv),
    onChat: (message) => chat.receive(message),
    onChatHidden: (n) => chat.hideMessage(n),
    onStatus: (status, attempt, info = {}) => {
      const wasDown = document.body.dataset.conn === "reconnecting";
      document.body.dataset.conn = status;
      if (status === "open") {
        el.conn.hidden = true;
        if (wasDown) {
          refresh(); // the socket also pushes the view; this makes sure nothing is missed
          chat.load().catch(() => null); // and the messages written while it was down
        }
      } else if (status === "reconnecting") {
        // attempt 0: dropped for reading too slowly (4408), back at once: no need to alarm anyone.
        el.conn.hidden = attempt === 0;
        el.conn.textContent = t("table.connLost", { n: attempt });
      } else if (info.code === CLOSE.DELETED) {
        el.conn.hidden = true;
        gameGone("deleted", null);
      } else if (info.code === CLOSE.DAMAGED) {
        el.conn.hidden = true;
        gameGone("damaged", info.reason);
      } else {
        el.conn.hidden = false;
        el.conn.textContent = info.reason ? t("table.unavailableWhy", { reason: info.reason }) : t("table.unavailable");
      }
    },
  });
  socket.connect();
  window.hansaGame = { get view() { return view; }, get latest() { return latest; }, socket, chat, get shown() { return timeline.shown; }, timeline, board };
}

main();
