// The game page (/game/{id}#token=...): live board, player desks, move log, and acting by clicking.
// The seat token is read from the URL fragment (never sent to the server in a URL) and travels in the
// X-Hansa-Token header (REST) or as a WebSocket subprotocol.

import { api, ApiError, CLOSE, LiveSocket, gameIdFromLocation, tokenFromLocation } from "./api.js";
import { BoardView } from "./board.js";
import { h, clear, put, $ } from "./dom.js";
import { describeMove, renderDesks, renderLog, renderStatus, scoreTable, nameTag, seatName } from "./panels.js";
import { scoreChart } from "./chart.js";

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
  desks: $("#desks"),
  log: $("#log"),
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
};

let view = null;
let layout = null;
let board = null;
let ctx = null;
let byKey = new Map();
let mode = null; // null | {type: "swap"} | {type: "pawn"} | {type: "shift", from}
let busy = false;
let endgameFor = null;
let firstView = true;

// ------------------------------------------------------------------ helpers

// Only running games take moves; the others show their status (over, stopped, abandoned; or, known from the
// WebSocket's close code, deleted or damaged) and keep the record and the replay.
const running = (v) => !!v && v.status === "running";
const mine = (v) => running(v) && v.legal.length > 0;
const HALTED = {
  stopped: "Game stopped",
  abandoned: "Game abandoned",
  deleted: "This game was deleted",
  damaged: "This game is damaged",
};
const GONE = new Set(["deleted", "damaged"]); // nothing left to download or replay
const routeOfHouse = (house) => house.slice(0, house.lastIndexOf(":"));

function showError(err) {
  clear(el.error);
  const status = err instanceof ApiError && err.status ? ` [${err.status}]` : "";
  put(
    el.error,
    h("span", { class: "err-text", text: `${err.message}${status}` }),
    err.rule ? h("span", { class: "err-rule", text: ` (rule ${err.rule})` }) : null,
    h("button", { class: "err-close", type: "button", title: "dismiss", text: "×", onclick: clearError }),
  );
  el.error.hidden = false;
}

function clearError() {
  el.error.hidden = true;
  clear(el.error);
}

function setTitle() {
  const base = `hansa — game ${gameId}`;
  if (view && view.status === "over") document.title = `Game over — ${base}`;
  else if (view && HALTED[view.status]) document.title = `${HALTED[view.status]} — ${base}`;
  else document.title = mine(view) ? `● Your move — ${base}` : base;
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
};

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
        if (j.benefit === "table") add(`t:${j.target}`, m);
        break;
      case "marker":
        add(`r:${j.route}`, m);
        break;
      case "swap":
        add(`o:${j.city}:${j.office - 1}`, m);
        add(`o:${j.city}:${j.office}`, m);
        add(`c:${j.city}`, m);
        break;
      case "neutral-office":
        add(`c:${j.city}`, m);
        break;
      case "pawn":
        add(`p:${j.province}`, m);
        break;
      case "improve":
        add(`a:${j.ability}`, m);
        break;
      default:
        break;
    }
  }
  return map;
}

/** Moves reachable from a key in the current mode. */
function movesAt(key) {
  let list = byKey.get(key) || [];
  if (key.startsWith("h:")) list = list.concat(byKey.get(`r:${routeOfHouse(key.slice(2))}`) || []);
  if (mode && mode.type === "swap") return list.filter((m) => m.json.type === "swap");
  list = list.filter((m) => m.json.type !== "swap");
  if (mode && mode.type === "pawn") return list.filter((m) => m.json.type === "pawn");
  // Paid pawn moves only through the pawn mode (they cost an action), unless no free move is possible.
  return list.filter((m) => !(m.json.type === "pawn" && m.json.paid));
}

function highlights() {
  const keys = new Map();
  const selected = new Set();
  if (!mine(view)) return { keys, selected };
  if (mode && mode.type === "shift") {
    selected.add(`h:${mode.from}`);
    for (const m of byKey.get(`h:${mode.from}`) || []) if (m.json.type === "shift") keys.set(`h:${m.json.to}`, "free");
    return { keys, selected };
  }
  for (const [key, moves] of byKey) {
    if (key.startsWith("a:")) continue;
    const usable = moves.filter((m) => {
      const t = m.json.type;
      if (mode && mode.type === "swap") return t === "swap";
      if (t === "swap") return false;
      if (mode && mode.type === "pawn") return t === "pawn";
      if (t === "pawn" && m.json.paid) return false;
      return true;
    });
    if (!usable.length) continue;
    const kind = KIND[usable[0].json.type] || "free";
    keys.set(key, kind);
  }
  return { keys, selected };
}

// ------------------------------------------------------------------ acting

// The version a move is in flight for: no second move for the same position (double clicks), but once the
// WebSocket has delivered the new position (it may overtake the HTTP answer) the next move may be sent.
let pending = null;

async function send(move) {
  if (!view || busy || pending === view.version) return;
  closePopup();
  const sent = view.version;
  pending = sent;
  document.body.classList.add("busy");
  const seat = view.you.length > 1 && view.you.includes(view.state.turn.decider) ? view.state.turn.decider : undefined;
  try {
    const v = await api.move(gameId, token, move, sent, seat);
    clearError();
    if (v.version >= view.version) apply(v);
  } catch (err) {
    showError(err);
    if (err.status === 409 || err.status === 403) refresh();
  } finally {
    if (pending === sent) pending = null;
    document.body.classList.remove("busy");
  }
}

async function undo() {
  if (busy || pending !== null || !view) return;
  busy = true;
  try {
    const v = await api.undo(gameId, token, view.version);
    clearError();
    mode = null;
    apply(v);
  } catch (err) {
    showError(err);
    if (err.status === 409) refresh();
  } finally {
    busy = false;
  }
}

async function refresh() {
  try {
    apply(await api.view(gameId, token));
  } catch (err) {
    showError(err);
  }
}

function onBoardClick(key, ev) {
  if (!view || !mine(view)) return;
  if (!key) {
    if (mode) {
      mode = null;
      redraw();
    }
    closePopup();
    return;
  }
  if (mode && mode.type === "shift") {
    const m = (byKey.get(`h:${mode.from}`) || []).find((x) => x.json.type === "shift" && `h:${x.json.to}` === key);
    if (m) send(m.text);
    else {
      mode = null;
      redraw();
    }
    return;
  }
  let moves = movesAt(key);
  if (!moves.length && key.startsWith("o:")) {
    // An office without a move of its own stands for its city (e.g. the neutral office's city choice).
    key = `c:${key.split(":")[1]}`;
    moves = movesAt(key);
  }
  if (!moves.length) {
    if (mode) {
      mode = null;
      redraw();
    }
    return;
  }
  const shifts = moves.filter((m) => m.json.type === "shift");
  if (shifts.length && shifts.length === moves.length) {
    mode = { type: "shift", from: key.slice(2) };
    redraw();
    return;
  }
  if (moves.length === 1 && moves[0].json.type !== "claim" && !(moves[0].json.type === "pawn" && moves[0].json.paid)) {
    send(moves[0].text);
    return;
  }
  openPopup(popupTitle(key, moves), moves, ev);
}

function popupTitle(key, moves) {
  const [kind, ...rest] = key.split(":");
  const what = rest.join(":");
  if (moves.every((m) => m.json.type === "claim")) return `Claim ${moves[0].json.route} — choose the benefit`;
  if (kind === "h") return `House ${what}`;
  if (kind === "r") return `Route ${what}`;
  if (kind === "c" || kind === "o") return layout.cities.find((c) => c.code === rest[0])?.name || what;
  if (kind === "t") return `Coellen table (${what})`;
  if (kind === "p") return `Province ${what}`;
  return "Choose";
}

// ------------------------------------------------------------------ popup

let popupKeys = null;

function openPopup(title, moves, ev) {
  clear(el.popup);
  popupKeys = new Map();
  el.popup.append(h("div", { class: "popup-title", text: title }));
  const list = h("div", { class: "popup-list" });
  // Claims first (the benefit chooser), then the rest in the server's order.
  moves = [...moves].sort((a, b) => (a.json.type === "claim" ? 0 : 1) - (b.json.type === "claim" ? 0 : 1));
  const pieceMoves = moves.every((m) => ["place", "drop", "relocate"].includes(m.json.type));
  moves.forEach((m, i) => {
    let hotkey = String(i + 1);
    if (pieceMoves && m.json.piece) hotkey = m.json.piece;
    if (i >= 9 && !pieceMoves) hotkey = "";
    const btn = h(
      "button",
      { type: "button", class: `popup-choice kind-${m.json.type}`, "data-move": m.text, onclick: () => send(m.text) },
      hotkey ? h("kbd", { text: hotkey }) : null,
      h("span", { class: "popup-label" }, h("span", { text: describeMove(m.json, ctx) }), h("code", { class: "popup-text", text: m.text })),
    );
    if (hotkey) popupKeys.set(hotkey.toLowerCase(), m.text);
    list.append(btn);
  });
  el.popup.append(list, h("button", { type: "button", class: "popup-cancel", text: "Cancel (Esc)", onclick: closePopup }));
  el.popup.hidden = false;
  // Position near the click, kept inside the viewport.
  const rect = el.popup.getBoundingClientRect();
  let x = ev && ev.clientX !== undefined ? ev.clientX + 12 : window.innerWidth / 2 - rect.width / 2;
  let y = ev && ev.clientY !== undefined ? ev.clientY + 12 : window.innerHeight / 3;
  x = Math.max(8, Math.min(x, window.innerWidth - rect.width - 8));
  y = Math.max(8, Math.min(y, window.innerHeight - rect.height - 8));
  el.popup.style.left = `${x}px`;
  el.popup.style.top = `${y}px`;
  const first = el.popup.querySelector("button");
  if (first) first.focus({ preventScroll: true });
}

function closePopup() {
  el.popup.hidden = true;
  popupKeys = null;
}

document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") {
    closePopup();
    if (mode) {
      mode = null;
      redraw();
    }
    return;
  }
  if (!el.popup.hidden && popupKeys && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
    const text = popupKeys.get(ev.key.toLowerCase());
    if (text) {
      ev.preventDefault();
      send(text);
    }
  }
});

document.addEventListener("mousedown", (ev) => {
  if (!el.popup.hidden && !el.popup.contains(ev.target) && !ev.target.closest("svg.board") && !ev.target.closest("#action-buttons")) closePopup();
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
  const legal = running(view) ? view.legal : [];
  el.input.disabled = !legal.length;
  el.sendBtn.disabled = !legal.length;
  for (const m of legal) el.datalist.append(h("option", { value: m.text }));
  if (!legal.length) {
    if (!st.over) el.prompt.append("Waiting for ", nameTag(ctx, st.turn.decider), "…");
    return;
  }
  const types = new Set(legal.map((m) => m.json.type));
  el.prompt.append(h("b", { text: view.you.length > 1 ? `${seatName(ctx, st.turn.decider)}: ` : "Your decision: " }), promptText(st, types));
  const groups = [];
  const button = (label, onclick, cls = "", attrs = {}) => h("button", { type: "button", class: `act ${cls}`, onclick, text: label, ...attrs });
  const byType = (t) => legal.filter((m) => m.json.type === t);
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
          button(`Claim ${r}…`, (ev) => openPopup(`Claim ${r} — choose the benefit`, byType("claim").filter((m) => m.json.route === r), ev), "claim-btn", { "data-route": r }),
        ),
      ),
    );
  }
  // Markers and their choosers.
  const markerBtns = [];
  for (const m of byType("use")) markerBtns.push(button(describeMove(m.json, ctx), () => send(m.text), "marker-btn", { "data-move": m.text }));
  const improve = byType("improve");
  if (improve.length) markerBtns.push(button("Improve ability…", (ev) => openPopup("Improve which ability?", improve, ev), "marker-btn", { "data-action": "improve" }));
  const swaps = byType("swap");
  if (swaps.length) {
    markerBtns.push(
      button(mode && mode.type === "swap" ? "Cancel swap" : "Swap offices…", () => {
        mode = mode && mode.type === "swap" ? null : { type: "swap" };
        redraw();
      }, `marker-btn${mode && mode.type === "swap" ? " active" : ""}`, { "data-action": "swap" }),
    );
  }
  if (markerBtns.length) groups.push(h("div", { class: "btn-group" }, ...markerBtns));
  // Pawn: paid moves through a mode.
  const paid = byType("pawn").filter((m) => m.json.paid);
  if (paid.length) {
    groups.push(
      h(
        "div",
        { class: "btn-group" },
        button(mode && mode.type === "pawn" ? "Cancel pawn move" : "Move pawn (1 action)…", () => {
          mode = mode && mode.type === "pawn" ? null : { type: "pawn" };
          redraw();
        }, mode && mode.type === "pawn" ? "active" : "", { "data-action": "pawn" }),
      ),
    );
  }
  const neutral = byType("neutral-office");
  if (neutral.length) groups.push(h("div", { class: "btn-group" }, ...neutral.map((m) => button(describeMove(m.json, ctx), () => send(m.text), "", { "data-move": m.text }))));
  // Relocation extras, done, end.
  const tail = [];
  for (const m of byType("take")) tail.push(button(describeMove(m.json, ctx), () => send(m.text), "", { "data-move": m.text }));
  for (const m of byType("done")) tail.push(button(describeMove(m.json, ctx), () => send(m.text), "", { "data-move": "done", id: "done-btn" }));
  for (const m of byType("end")) tail.push(button(describeMove(m.json, ctx), () => send(m.text), "end-btn", { "data-move": "end", id: "end-btn" }));
  if (mode && mode.type === "shift") tail.push(button("Cancel", () => { mode = null; redraw(); }, "", { id: "cancel-mode" }));
  if (tail.length) groups.push(h("div", { class: "btn-group" }, ...tail));
  el.buttons.append(...groups);
}

function promptText(st, types) {
  const t = st.turn;
  if (mode && mode.type === "swap") return "click a highlighted office to swap it with its neighbour.";
  if (mode && mode.type === "pawn") return "click a province to move the pawn there (costs 1 action).";
  if (mode && mode.type === "shift") return "click a free house to move the selected piece there.";
  switch (t.phase) {
    case "actions": {
      const bits = [];
      if (types.has("place")) bits.push("a free house to place");
      if (types.has("displace")) bits.push("an opponent's piece to displace");
      if (types.has("lift")) bits.push("your piece to move it");
      if (types.has("claim")) bits.push("a glowing route to claim");
      if (types.has("pawn")) bits.push("a province to move the pawn");
      return bits.length ? `click ${bits.join(", ")} — or use the buttons.` : "use the buttons below.";
    }
    case "move":
      return "click your pieces to lift more, or a free house to drop a piece from your hand.";
    case "relocate":
      return types.has("relocate") ? "click a highlighted free house to relocate a piece from your hand." : "take extra pieces or finish.";
    case "remove":
      return `click pieces to remove (${t.remove_left} left), or stop.`;
    case "markers":
      return "click a highlighted route to place the bonus marker.";
    case "pawn_setup":
      return "click a province to place the pawn.";
    case "pawn_end":
      return "click a province for the free pawn move, or end the turn.";
    case "neutral_office":
      return "click the city that gets the neutral office.";
    default:
      return "choose a move.";
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

// ------------------------------------------------------------------ rendering

function apply(v) {
  const wasMine = mine(view);
  const changed = !view || v.version !== view.version;
  view = v;
  if (changed) mode = null;
  ctx = { players: v.players, neutral: v.neutral_colour, layout, phase: v.state.turn.phase };
  byKey = indexLegal(v.legal);
  if (changed) closePopup();
  redraw();
  renderLog(el.log, v.log, ctx);
  el.undo.disabled = !(running(v) && v.undo > 0);
  el.undo.hidden = v.you.length === 0 || !running(v);
  if (v.you.length === 0 || !running(v)) el.notify.hidden = true;
  // A problem on the server's side (a bot or the database failing) shows while it lasts.
  el.serverError.hidden = !v.error;
  el.serverError.textContent = v.error ? `Server problem: ${v.error}` : "";
  renderInfo(v);
  el.undo.title = v.undo > 0 ? `take back ${v.undo} move(s)` : "nothing to undo";
  const names = v.players.map((p) => p.name).join(" · ");
  el.title.textContent = `${names}`;
  document.body.dataset.version = String(v.version);
  document.body.dataset.mine = mine(v) ? "1" : "0";
  document.body.dataset.status = v.status;
  document.body.dataset.phase = v.state.turn.phase;
  // Your-decision notifications.
  const now = mine(v);
  el.turnBanner.hidden = !now;
  if (now) {
    clear(el.turnBanner).append(
      h("b", { text: v.you.length > 1 ? `${seatName(ctx, v.state.turn.decider)} to decide` : "Your decision" }),
      " — ",
      v.state.turn.phase === "relocate" ? "relocate your displaced piece" : `turn ${v.state.turn.number}`,
    );
  }
  if (now && !wasMine && !firstView) notify(v);
  firstView = false;
  setTitle();
  if (v.status === "over") renderEndgame();
  else if (HALTED[v.status]) renderHalted();
  else {
    el.endgame.hidden = true;
    endgameFor = null;
  }
}

/** The discreet game info under the move log: the id, and the seed once it is public (or chosen). */
function renderInfo(v) {
  clear(el.info).append(h("span", { text: `Game ${v.id}` }));
  if (v.seed !== null && v.seed !== undefined) el.info.append(" · ", h("span", { class: "seed", text: `seed ${v.seed}` }));
}

function redraw() {
  const colours = { players: view.players.map((p) => p.colour), neutral: view.neutral_colour, names: view.players.map((p) => p.name) };
  const hl = highlights();
  board.render(view.state, colours, hl);
  renderStatus(el.status, view.state, ctx);
  if (HALTED[view.status]) el.status.prepend(h("b", { class: "st-halted", text: view.status[0].toUpperCase() + view.status.slice(1) }), " · ");
  const abilityKeys = new Map();
  if (mine(view)) for (const m of view.legal) if (m.json.type === "improve") abilityKeys.set(m.json.ability, "claim");
  renderDesks(el.desks, view.state, ctx, {
    you: view.you,
    ended: view.status !== "running",
    abilityKeys,
    onAbility: (a) => {
      const m = view.legal.find((x) => x.json.type === "improve" && x.json.ability === a);
      if (m) send(m.text);
    },
  });
  renderControls();
}

function notify(v) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.hasFocus()) return;
  try {
    const n = new Notification("hansa: your move", { body: `Game ${v.id}, turn ${v.state.turn.number}`, tag: `hansa-${v.id}` });
    n.onclick = () => window.focus();
  } catch {
    /* some browsers only allow notifications from a service worker */
  }
}

function setupNotifyButton() {
  if (!("Notification" in window)) {
    el.notify.hidden = true;
    return;
  }
  const update = () => {
    const p = Notification.permission;
    el.notify.textContent = p === "granted" ? "Notifications on" : p === "denied" ? "Notifications blocked" : "Enable notifications";
    el.notify.disabled = p !== "default";
  };
  update();
  el.notify.addEventListener("click", async () => {
    try {
      await Notification.requestPermission();
    } catch {
      /* ignore */
    }
    update();
  });
}

async function renderEndgame() {
  if (endgameFor === view.version) return;
  endgameFor = view.version;
  const st = view.state;
  clear(el.endgame);
  el.endgame.hidden = false;
  el.endgame.className = "panel endgame";
  const winners = st.result.winners;
  const head = h("h2", null, "Game over — ", winners.length > 1 ? "winners: " : "winner: ");
  winners.forEach((w, i) => head.append(i ? ", " : "", nameTag(ctx, w)));
  const triggers = (st.result.end_triggers || []).join(", ");
  put(
    el.endgame,
    head,
    triggers ? h("p", { class: "muted", text: `Ended by: ${triggers}` }) : null,
    scoreTable(st.result, ctx),
    h(
      "p",
      { class: "end-links" },
      h("a", { href: api.recordUrl(gameId), download: `hansa-${gameId}.json`, class: "btn", id: "end-record", text: "Download record" }),
      " ",
      h("a", { href: `/replay/${encodeURIComponent(gameId)}`, class: "btn", id: "end-replay", text: "Open replay" }),
      " ",
      h("a", { href: "/", class: "btn", text: "Lobby" }),
    ),
  );
  const chartSlot = h("div", { class: "chart-slot", text: "Loading score chart…" });
  el.endgame.append(chartSlot);
  try {
    const hist = await api.history(gameId);
    clear(chartSlot).append(scoreChart(hist, view.players));
  } catch (err) {
    chartSlot.textContent = `Could not load the score history: ${err.message}`;
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
    h("h2", { id: "halted-title", text: HALTED[view.status] }),
    view.note ? h("p", { class: "halted-note", id: "halted-note", text: view.note[0].toUpperCase() + view.note.slice(1) }) : null,
    view.status === "deleted" ? h("p", { class: "muted", text: "Its creator deleted it: its record and its moves are gone." }) : null,
    gone ? null : h("p", { class: "muted", text: `No more moves can be made. It ended in turn ${view.state.turn.number}, after ${view.version} move${view.version === 1 ? "" : "s"}.` }),
    h(
      "p",
      { class: "end-links" },
      gone ? null : h("a", { href: api.recordUrl(gameId), download: `hansa-${gameId}.json`, class: "btn", id: "end-record", text: "Download record" }),
      gone ? null : h("a", { href: `/replay/${encodeURIComponent(gameId)}`, class: "btn", id: "end-replay", text: "Open replay" }),
      h("a", { href: "/", class: "btn", text: "Lobby" }),
    ),
  );
  if (gone || view.version === 0) return;
  const chartSlot = h("div", { class: "chart-slot", text: "Loading score chart…" });
  el.endgame.append(chartSlot);
  try {
    const hist = await api.history(gameId);
    // A chart of flat zeros (a game stopped early) says nothing.
    if (hist.turns.some((t) => t.scores.some((x) => x > 0))) clear(chartSlot).append(scoreChart(hist, view.players));
    else chartSlot.remove();
  } catch (err) {
    chartSlot.textContent = `Could not load the score history: ${err.message}`;
  }
}

/** The socket said the game is gone for good (4410 deleted, 4409 damaged): show it like a halted game. */
function gameGone(status, reason) {
  clearError();
  if (!view) {
    showError(new Error(reason || HALTED[status]));
    return;
  }
  apply({ ...view, status, note: reason || null, legal: [], undo: 0, error: null });
}

// ------------------------------------------------------------------ start

async function main() {
  if (!gameId) {
    showError(new Error("no game id in the address"));
    return;
  }
  el.replayLink.href = `/replay/${encodeURIComponent(gameId)}`;
  el.recordLink.href = api.recordUrl(gameId);
  el.recordLink.setAttribute("download", `hansa-${gameId}.json`);
  el.undo.addEventListener("click", undo);
  setupNotifyButton();
  let v;
  try {
    v = await api.view(gameId, token);
    layout = await api.board(v.board_side);
  } catch (err) {
    showError(err);
    el.status.textContent = "Could not load the game.";
    return;
  }
  board = new BoardView(el.board, layout, { onClick: onBoardClick });
  if (token && v.you.length === 0) showError(new Error("this link's token does not control any seat: watching only"));
  apply(v);
  const socket = new LiveSocket(gameId, token, {
    onView: (nv) => apply(nv),
    onStatus: (status, attempt, info = {}) => {
      const wasDown = document.body.dataset.conn === "reconnecting";
      document.body.dataset.conn = status;
      if (status === "open") {
        el.conn.hidden = true;
        if (wasDown) refresh(); // the socket also pushes the view; this makes sure nothing is missed
      } else if (status === "reconnecting") {
        // attempt 0: dropped for reading too slowly (4408), back at once: no need to alarm anyone.
        el.conn.hidden = attempt === 0;
        el.conn.textContent = `Connection lost — reconnecting… (attempt ${attempt})`;
      } else if (info.code === CLOSE.DELETED) {
        el.conn.hidden = true;
        gameGone("deleted", null);
      } else if (info.code === CLOSE.DAMAGED) {
        el.conn.hidden = true;
        gameGone("damaged", info.reason);
      } else {
        el.conn.hidden = false;
        el.conn.textContent = info.reason ? `The game is not available: ${info.reason}` : "The game is not available.";
      }
    },
  });
  socket.connect();
  window.hansaGame = { get view() { return view; }, socket };
}

main();
