// The replay viewer (/replay/{id}): the position after any number of moves, with a slider and the arrow keys.

import { api, gameIdFromLocation } from "./api.js";
import { BoardView } from "./board.js";
import { h, clear, $ } from "./dom.js";
import { renderDesks, renderStatus, nameTag } from "./panels.js";

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
};

let board = null;
let ctx = null;
let colours = null;
let total = 0;
let current = -1;
let wanted = 0;
let loading = false;
let log = [];

function showError(message) {
  el.error.textContent = message;
  el.error.hidden = false;
}

async function show(k) {
  wanted = Math.max(0, Math.min(total, k));
  el.slider.value = String(wanted);
  el.num.textContent = `${wanted} / ${total}`;
  if (loading) return; // the latest wanted position is fetched when the current request returns
  loading = true;
  try {
    while (current !== wanted) {
      const target = wanted;
      const data = await api.replay(gameId, target);
      total = data.moves;
      el.slider.max = String(total);
      current = target;
      if (target !== wanted) continue;
      ctx.phase = data.state.turn.phase;
      board.render(data.state, colours);
      renderStatus(el.status, data.state, ctx);
      renderDesks(el.desks, data.state, ctx);
      el.text.textContent = data.move || "start of the game";
      clear(el.who);
      const entry = log.find((e) => e.n === target);
      if (entry) el.who.append("by ", nameTag(ctx, entry.seat), ` (turn ${entry.turn})`);
      el.num.textContent = `${target} / ${total}`;
      document.body.dataset.k = String(target);
      el.prev.disabled = target <= 0;
      el.first.disabled = target <= 0;
      el.next.disabled = target >= total;
      el.last.disabled = target >= total;
    }
  } catch (err) {
    showError(err.message);
  } finally {
    loading = false;
  }
}

async function main() {
  if (!gameId) {
    showError("no game id in the address");
    return;
  }
  el.gameLink.href = `/game/${encodeURIComponent(gameId)}`;
  el.recordLink.href = api.recordUrl(gameId);
  el.recordLink.setAttribute("download", `hansa-${gameId}.json`);
  let view;
  try {
    view = await api.view(gameId, null);
  } catch (err) {
    showError(err.message);
    el.status.textContent = "Could not load the game.";
    return;
  }
  const layout = await api.board(view.board_side);
  ctx = { players: view.players, neutral: view.neutral_colour, layout, phase: null };
  colours = { players: view.players.map((p) => p.colour), neutral: view.neutral_colour, names: view.players.map((p) => p.name) };
  log = view.log;
  total = view.version;
  el.title.textContent = `${gameId}: ${view.players.map((p) => p.name).join(" · ")}`;
  el.slider.max = String(total);
  board = new BoardView(el.board, layout);
  const params = new URLSearchParams(location.search);
  const start = params.has("k") ? Number(params.get("k")) : total;
  el.slider.addEventListener("input", () => show(Number(el.slider.value)));
  el.prev.addEventListener("click", () => show(wanted - 1));
  el.next.addEventListener("click", () => show(wanted + 1));
  el.first.addEventListener("click", () => show(0));
  el.last.addEventListener("click", () => show(total));
  document.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLInputElement) return; // the slider handles its own keys
    const step = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 }[ev.key];
    if (step !== undefined) {
      ev.preventDefault();
      show(wanted + step);
    } else if (ev.key === "Home") {
      ev.preventDefault();
      show(0);
    } else if (ev.key === "End") {
      ev.preventDefault();
      show(total);
    }
  });
  await show(Number.isFinite(start) ? start : total);
  document.body.dataset.ready = "1";
}

main();
