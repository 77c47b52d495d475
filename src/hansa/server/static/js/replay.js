// The replay viewer (/replay/{id}): the position after any number of moves, with a slider, the arrow keys and a
// move list (click or Enter jumps to a move); the scores after the shown move, the final scoring of a finished
// game and a chart of the scores over the game.

import { api, gameIdFromLocation } from "./api.js";
import { BoardView } from "./board.js";
import { h, clear, $, isLight } from "./dom.js";
import { renderDesks, renderStatus, scoreColumns, scoreLabel, swatchTag } from "./panels.js";
import { caption } from "./captions.js";
import { scoreChart, setChartCursor } from "./chart.js";
import { loadSettings, saveSettings } from "./settings.js";
import { errorMessage, initLanguage, languagePicker, t, tn } from "./i18n.js";
import { mountAccount } from "./account.js";
import { ChatPanel } from "./chat.js";

const gameId = gameIdFromLocation();
const el = {
  title: $("#replay-title"),
  status: $("#status"),
  board: $("#board-wrap"),
  desks: $("#desks"),
  slider: $("#slider"),
  prev: $("#prev-btn"),
  next: $("#next-btn"),
  first: $("#first-btn"),
  last: $("#last-btn"),
  num: $("#move-num"),
  text: $("#move-text"),
  who: $("#move-who"),
  error: $("#error"),
  gameLink: $("#game-link"),
  recordLink: $("#record-link"),
  moveList: $("#move-list"),
  scoresTitle: $("#scores-title"),
  scoreNow: $("#score-now"),
  final: $("#final"),
  finalTable: $("#final-table"),
  chartBox: $("#chart-box"),
  chart: $("#chart"),
};

let view = null;
let board = null;
let ctx = null;
let colours = null;
let history = null; // {turns: [{n, turn, move, scores}], final}
let moveLog = null; // move number -> {n, seat, turn, move, json, delta} (GET /log), for the sentences
let total = 0;
let current = -1;
let wanted = 0;
let loading = false;
let chart = null;
const logSeat = new Map(); // move number -> seat that made it (the view's log: the latest moves only)
const items = new Map(); // move number -> its <li> in the move list

// The rows of the final scoring, each named by replay.row.<key> (on East and Britannia the special table by its city,
// and Britannia's countries: panels.js scoreColumns and scoreLabel; the missions with Mission Cards).
const finalRows = () => scoreColumns(ctx && ctx.layout, view && view.state.result);
const rowLabel = (key) => (key === "countries" || (key === "coellen" && ctx && ctx.layout.map) ? scoreLabel(key, ctx.layout)[0] : t(`replay.row.${key}`));

function showError(message) {
  el.error.textContent = message;
  el.error.hidden = false;
}

// ------------------------------------------------------------------ players

function player(seat) {
  return (view && view.players[seat]) || { name: t("common.seat", { n: seat + 1 }), colour: "#777", symbol: "" };
}

/** A player's colour with his colour-blind symbol. */
function chip(seat) {
  const p = player(seat);
  return h("span", { class: `rp-chip${isLight(p.colour) ? " light" : ""}`, style: { "--pc": p.colour }, "aria-hidden": "true", text: p.symbol || "" });
}

function seatTag(seat, extraClass = "") {
  return h("span", { class: `name-tag rp-tag${extraClass ? ` ${extraClass}` : ""}`, "data-seat": seat }, chip(seat), h("span", { class: "nm", text: player(seat).name }));
}

/** The seat whose turn it is in turn t (turns go round the table from the start player). */
function turnPlayer(turn) {
  const n = view.players.length;
  const start = view.state.turn.start_player ?? 0;
  return (((start + turn - 1) % n) + n) % n;
}

/** The seat that made move n, when known (the history's seat, else the view's log of the latest moves). */
function mover(n) {
  const entry = history && history.turns[n];
  if (entry && Number.isInteger(entry.seat)) return entry.seat;
  if (moveLog && moveLog.has(n)) return moveLog.get(n).seat;
  return logSeat.has(n) ? logSeat.get(n) : null;
}

function gains(n) {
  if (!history || n <= 0 || n >= history.turns.length) return [];
  const now = history.turns[n].scores;
  const before = history.turns[n - 1].scores;
  return now.map((v, seat) => ({ seat, d: v - before[seat] })).filter((g) => g.d !== 0);
}

// ------------------------------------------------------------------ move list

function gainChips(n) {
  const list = gains(n);
  if (!list.length) return null;
  return h(
    "span",
    { class: "ml-gains" },
    ...list.map((g) => h("span", { class: `ml-gain${isLight(player(g.seat).colour) ? " light" : ""}`, style: { "--pc": player(g.seat).colour }, title: player(g.seat).name, text: `${player(g.seat).symbol || ""}${g.d > 0 ? "+" : ""}${g.d}` })),
  );
}

function buildMoveList() {
  clear(el.moveList);
  items.clear();
  if (!history) return;
  const start = h("li", { class: "ml-move ml-start", role: "option", tabindex: "-1", "data-n": 0, "aria-selected": "false" }, h("span", { class: "ml-n", text: "0" }), h("span", { class: "ml-text", text: t("replay.start") }));
  el.moveList.append(start);
  items.set(0, start);
  let turn = null;
  for (const entry of history.turns.slice(1)) {
    if (entry.turn !== turn) {
      turn = entry.turn;
      el.moveList.append(h("li", { class: "ml-turn", role: "presentation", "data-turn": turn }, h("span", { class: "ml-turn-no", text: t("replay.turn", { n: turn }) }), seatTag(turnPlayer(turn))));
    }
    const who = mover(entry.n);
    const other = who !== null && who !== turnPlayer(entry.turn);
    // In a sentence when the move log is there ("Ana placed a Trader on Groningen–Emden."), else in notation; the
    // notation is always in the tooltip.
    const full = moveLog && moveLog.get(entry.n);
    const text = full ? h("span", { class: "ml-text ml-sentence", text: caption(full, ctx).text }) : h("code", { class: "ml-text", text: entry.move });
    const li = h(
      "li",
      { class: "ml-move", role: "option", tabindex: "-1", "data-n": entry.n, "aria-selected": "false", title: entry.move },
      h("span", { class: "ml-n", text: String(entry.n) }),
      full ? swatchTag(ctx, full.seat) : other ? seatTag(who, "ml-who") : null,
      text,
      gainChips(entry.n),
    );
    el.moveList.append(li);
    items.set(entry.n, li);
  }
}

/** Keep a move of the list visible inside the list's own scroll box (never scrolls the page). */
function keepInView(li) {
  const list = el.moveList;
  if (list.scrollHeight <= list.clientHeight) return;
  // The turn headers stick to the top of the list: a move must not hide under its turn's header (and a sticky
  // header's offsetTop is where it sticks, so only the moves' offsets are used).
  const sticky = el.moveList.querySelector(".ml-turn");
  const top = li.offsetTop - (sticky ? sticky.offsetHeight : 0) - 2;
  const bottom = li.offsetTop + li.offsetHeight + 4;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}

function markMove(k, focus = false) {
  const old = el.moveList.querySelector(".ml-move.current");
  if (old) {
    old.classList.remove("current");
    old.setAttribute("aria-selected", "false");
    old.setAttribute("tabindex", "-1");
  }
  const li = items.get(k);
  if (!li) return;
  li.classList.add("current");
  li.setAttribute("aria-selected", "true");
  li.setAttribute("tabindex", "0");
  keepInView(li);
  if (focus) li.focus({ preventScroll: true });
}

function onListClick(ev) {
  const li = ev.target.closest(".ml-move");
  if (li && el.moveList.contains(li)) show(Number(li.dataset.n));
}

function onListKey(ev) {
  const li = ev.target.closest(".ml-move");
  if (ev.key === "Enter" || ev.key === " ") {
    if (!li) return;
    ev.preventDefault();
    show(Number(li.dataset.n), true);
  } else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    ev.preventDefault();
    const from = li ? Number(li.dataset.n) : wanted;
    show(from + (ev.key === "ArrowDown" ? 1 : -1), true);
  }
}

// ------------------------------------------------------------------ scores

function renderScoreNow(k) {
  clear(el.scoreNow);
  if (!history || !history.turns[k]) {
    el.scoresTitle.textContent = t("replay.scores");
    return;
  }
  el.scoresTitle.textContent = k === 0 ? t("replay.scoresStart") : t("replay.scoresAfter", { n: k });
  const scores = history.turns[k].scores;
  const best = Math.max(...scores);
  const moved = new Map(gains(k).map((g) => [g.seat, g.d]));
  const body = h("tbody");
  scores.forEach((v, seat) => {
    const d = moved.get(seat);
    body.append(
      h(
        "tr",
        { "data-seat": seat, class: v === best && best > 0 ? "leader" : null },
        h("td", { class: "sn-player" }, seatTag(seat)),
        h("td", { class: "sn-score", text: String(v) }),
        h("td", { class: "sn-gain", text: d ? (d > 0 ? `+${d}` : String(d)) : "" }),
      ),
    );
  });
  el.scoreNow.append(
    h(
      "table",
      { class: "score-now-table" },
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", { scope: "col", text: t("replay.player") }),
          h("th", { scope: "col", text: t("replay.inGame") }),
          h("th", { scope: "col", title: t("replay.thisMoveTitle"), text: t("replay.thisMove") }),
        ),
      ),
      body,
    ),
  );
}

/** The final scoring of a finished game: a column per player (best first), a row per category; fits phones. */
function renderFinal() {
  const result = view.state.result;
  if (!result || !Array.isArray(result.scores)) {
    el.final.hidden = true;
    return;
  }
  clear(el.finalTable);
  const cols = [...result.scores].sort((a, b) => b.total - a.total || a.player - b.player);
  const winners = new Set(result.winners || []);
  const head = h("tr", null, h("th", { scope: "col", class: "ft-cat" }, h("span", { class: "visually-hidden", text: t("replay.category") })));
  for (const sc of cols) {
    const win = winners.has(sc.player);
    head.append(
      h(
        "th",
        { scope: "col", class: `ft-player${win ? " winner" : ""}`, "data-seat": sc.player, style: { "--pc": player(sc.player).colour } },
        chip(sc.player),
        h("span", { class: "ft-name", text: player(sc.player).name, title: player(sc.player).name }),
        win ? h("span", { class: "win-mark", title: t("replay.winner"), text: "★" }) : null,
      ),
    );
  }
  const body = h("tbody");
  for (const key of finalRows()) {
    const row = h("tr", { class: `ft-row ft-${key}`, "data-row": key }, h("th", { scope: "row", class: "ft-cat", text: rowLabel(key) }));
    for (const sc of cols) row.append(h("td", { class: winners.has(sc.player) ? "winner" : null, "data-seat": sc.player, text: String(sc[key] ?? 0) }));
    body.append(row);
  }
  const winnerLine = h("p", { class: "ft-winners" }, h("span", { class: "ft-winners-label", text: tn("replay.winners", winners.size) }), ...[...winners].map((w) => seatTag(w)));
  el.finalTable.append(winnerLine, h("div", { class: "table-scroll" }, h("table", { class: `final-table${cols.length >= 4 ? " many" : ""}`, id: "final-scores" }, h("thead", null, head), body)));
  el.final.hidden = false;
}

function renderChart() {
  if (!history || history.turns.length < 2) {
    el.chartBox.hidden = true;
    return;
  }
  chart = scoreChart(history, view.players, { current: wanted, onPick: (k) => show(k) });
  clear(el.chart).append(chart);
  el.chartBox.hidden = false;
}

// ------------------------------------------------------------------ position

/** Mark move k at once (list, scores, chart, slider); the board follows when the server answers. */
function mark(k, focus) {
  el.slider.value = String(k);
  el.num.textContent = `${k} / ${total}`;
  renderScoreNow(k); // first: its height changes the list's
  markMove(k, focus);
  if (chart) setChartCursor(chart, k);
}

/** The sticky header's height, for the side column beside the board (replay.css). */
function trackHead() {
  const head = $("#rp-head");
  const set = () => document.body.style.setProperty("--rp-head", `${Math.ceil(head.getBoundingClientRect().height)}px`);
  set();
  if (typeof ResizeObserver === "function") new ResizeObserver(set).observe(head);
  // The list's box changes with the layout: keep the shown move in view.
  if (typeof ResizeObserver === "function") {
    new ResizeObserver(() => {
      const li = items.get(wanted);
      if (li) keepInView(li);
    }).observe(el.moveList);
  }
}

async function show(k, focus = false) {
  if (!Number.isFinite(k)) return;
  wanted = Math.max(0, Math.min(total, Math.round(k)));
  mark(wanted, focus);
  if (loading) return; // the latest wanted position is fetched when the current request returns
  loading = true;
  try {
    while (current !== wanted) {
      const target = wanted;
      const data = await api.replay(gameId, target);
      if (data.moves > total) {
        total = data.moves;
        el.slider.max = String(total);
      }
      current = target;
      if (target !== wanted) continue;
      ctx.phase = data.state.turn.phase;
      board.render(data.state, colours);
      renderStatus(el.status, data.state, ctx);
      renderDesks(el.desks, data.state, ctx);
      el.text.textContent = data.move || t("replay.startMove");
      clear(el.who);
      if (target > 0 && history && history.turns[target]) {
        const entry = history.turns[target];
        const who = mover(target);
        el.who.append(h("span", { class: "who-turn muted", text: t("replay.turn", { n: entry.turn }) }), seatTag(who !== null ? who : turnPlayer(entry.turn)));
      }
      el.num.textContent = `${target} / ${total}`;
      document.body.dataset.k = String(target);
      el.prev.disabled = target <= 0;
      el.first.disabled = target <= 0;
      el.next.disabled = target >= total;
      el.last.disabled = target >= total;
    }
  } catch (err) {
    showError(errorMessage(err));
  } finally {
    loading = false;
  }
}

/** Colour-blind mode: the player's setting (settings.js, shared with the game page), switched here too. */
function colourBlindSwitch() {
  const box = $("#cb-toggle");
  const settings = loadSettings();
  box.checked = !!settings.colourBlind;
  document.body.classList.toggle("cb-mode", box.checked);
  box.addEventListener("change", () => {
    document.body.classList.toggle("cb-mode", box.checked);
    saveSettings({ ...loadSettings(), colourBlind: box.checked });
  });
}

async function main() {
  await initLanguage();
  $(".topbar").append(languagePicker()); // last on a wide screen, beside the title on a phone (replay.css)
  mountAccount($("#top-actions"));
  colourBlindSwitch();
  if (!gameId) {
    showError(t("replay.noId"));
    return;
  }
  el.gameLink.href = `/game/${encodeURIComponent(gameId)}`;
  el.recordLink.href = api.recordUrl(gameId);
  el.recordLink.setAttribute("download", `hansa-${gameId}.json`);
  try {
    view = await api.view(gameId, null);
  } catch (err) {
    showError(errorMessage(err));
    el.status.textContent = t("replay.errGame");
    return;
  }
  for (const e of view.log || []) logSeat.set(e.n, e.seat);
  // The game's chat, all of it (the move log gives no times to place messages between moves).
  const chat = new ChatPanel($("#chat"), { gameId, readOnly: true });
  chat.setContext({ players: view.players, you: [], account: null });
  chat.load().catch((err) => chat.showError(err));
  const [layout, hist, log] = await Promise.all([
    api.board(view.board_side),
    api.history(gameId).catch((err) => {
      showError(t("replay.errHistory", { error: errorMessage(err) }));
      return null;
    }),
    api.moveLog(gameId).catch(() => null), // without it the list shows the notation
  ]);
  if (log && Array.isArray(log.log)) moveLog = new Map(log.log.map((e) => [e.n, e]));
  history = hist && Array.isArray(hist.turns) && hist.turns.length ? hist : null;
  ctx = { players: view.players, neutral: view.neutral_colour, layout, phase: null };
  colours = {
    players: view.players.map((p) => p.colour),
    neutral: view.neutral_colour,
    names: view.players.map((p) => p.name),
    symbols: view.players.map((p) => p.symbol),
  };
  total = Math.max(view.version, history ? history.turns.length - 1 : 0);
  el.title.textContent = `${gameId}: ${view.players.map((p) => p.name).join(" · ")}`;
  document.title = t("replay.docTitleOf", { id: gameId });
  el.slider.max = String(total);
  board = new BoardView(el.board, layout);
  trackHead();
  buildMoveList();
  renderFinal();
  renderChart();
  const params = new URLSearchParams(location.search);
  const start = params.has("k") ? Number(params.get("k")) : total;
  el.slider.addEventListener("input", () => show(Number(el.slider.value)));
  el.prev.addEventListener("click", () => show(wanted - 1));
  el.next.addEventListener("click", () => show(wanted + 1));
  el.first.addEventListener("click", () => show(0));
  el.last.addEventListener("click", () => show(total));
  el.moveList.addEventListener("click", onListClick);
  el.moveList.addEventListener("keydown", onListKey);
  document.addEventListener("keydown", (ev) => {
    const target = ev.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return; // the slider handles its own keys
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const inList = el.moveList.contains(target);
    const step = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 }[ev.key];
    if (step !== undefined) {
      ev.preventDefault();
      show(wanted + step, inList);
    } else if (ev.key === "Home") {
      ev.preventDefault();
      show(0, inList);
    } else if (ev.key === "End") {
      ev.preventDefault();
      show(total, inList);
    }
  });
  await show(Number.isFinite(start) ? start : total);
  document.body.dataset.ready = "1";
}

main();
