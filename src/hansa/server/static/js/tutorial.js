// "Learn to play": the guided first game on the real table (a game created by POST /api/tutorial, marked
// view.table.tutorial).  The chapter's script (GET /api/tutorial/{chapter}) lists every move of the game in order:
// the learner (seat 0) may make only the scripted move, which is the only one the table highlights; any other click
// is answered with a hint and sends nothing.  The other seats' moves are played by this page after a short pause,
// and a panel beside the board (below it on phones) explains each step.
//
// A chapter with a prefix (the chapter "end") starts from a late position the server created: the other seats are
// server bots, the learner first makes the scripted move(s), then plays on freely (nothing refused) to the end of the
// game; on the end screen the panel explains the score table column by column, highlighting each.
//
// Leaving (the leave button, the next chapter, a real game) stops a running tutorial game with the creator token
// that the lobby put in the page's fragment (#token=...&creator=...), so tutorial games do not pile up.
//
// game.js calls: init(view, hooks) once, filter(view) on every view it receives, refuses(move) before sending,
// refused(key) for a click on nothing the learner may do, shown(view) after a view is shown.  Outside a tutorial
// game every call does nothing.

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { t, touchScreen } from "./i18n.js";

/** Milliseconds the page waits before playing a scripted player's move, so that the learner sees each one. */
const PAUSE = 900;

let script = null; // {chapter, steps: [{seat, move, text, lesson}]}
let hooks = null; // {gameId, token, receive, describe}
let lessons = []; // the learner's lessons in order, one per panel step (consecutive moves of a lesson share it)
let numbers = [];
let panel = null;
let timer = null;
let timerFor = -1;
let last = null; // the latest view (filtered)
let wrong = null; // the hint after a refused click: {at: version}
let doneShown = false;
let freePlay = false;
let focusedFor = -1; // the position whose move the phone's board was zoomed to
let scoreAt = 0; // the end screen: the score column explained (END_COLS), END_COLS.length: the last words
let placedAtEnd = false;

/** The end screen's columns, in the order the panel explains them (those the table shows). */
const END_COLS = ["in_game", "abilities", "markers", "coellen", "control", "network", "total"]; // the base map's
const late = () => !!(script && script.prefix);
const shownCols = () => END_COLS.filter((k) => document.querySelector(`#endgame .score-table th[data-col="${k}"]`));

const introKey = () => `hansa.tutorial.${hooks.gameId}.intro`;
const introDone = () => sessionStorage.getItem(introKey()) === "1";

export const active = () => !!script;

/** Start the tutorial when `view` is a tutorial game: load its script and put up the panel. */
export async function init(view, h0) {
  const chapter = view && view.table && view.table.tutorial;
  if (!chapter || !view.you.includes(0)) return;
  hooks = h0;
  script = await api.tutorial(chapter);
  lessons = [];
  for (const s of script.steps) if (s.seat === 0 && s.lesson && lessons[lessons.length - 1] !== s.lesson) lessons.push(s.lesson);
  // numbers[k]: the panel step while k moves are played (the lesson of the learner's next move)
  numbers = new Array(script.steps.length);
  let next = lessons.length + 2;
  let group = lessons.length;
  for (let k = script.steps.length - 1; k >= 0; k--) {
    const s = script.steps[k];
    if (s.seat === 0) {
      next = group + 1;
      const before = script.steps.slice(0, k).reverse().find((x) => x.seat === 0);
      if (!before || before.lesson !== s.lesson) group--;
    }
    numbers[k] = next;
  }
  document.body.classList.add("tutorial");
  panel = h("section", { id: "tutorial", class: "panel tutorial tab-play", "aria-live": "polite" });
  const side = document.querySelector(".side-col");
  side.prepend(panel);
  const phone = window.matchMedia("(max-width: 760px)");
  const place = () => {
    // Phones: right under the board, where the learner looks; desktop: beside the board, above the controls.
    if (phone.matches) document.querySelector(".board-frame").after(panel);
    else side.prepend(panel);
  };
  phone.addEventListener("change", place);
  place();
}

/** The script's step for a view (the move number is the view's version), or null past its end (or before the
 * learner's start in a chapter with a prefix). */
const stepOf = (v) => (script && v.version >= (script.prefix || 0) && v.version < script.steps.length ? script.steps[v.version] : null);

/** The chapter "end" after its scripted moves: the learner plays freely. */
const free = (v) => late() && v.version >= script.steps.length;

/** The creator token of this game (the lobby or the previous chapter put it in the fragment), or null. */
const creatorToken = () => new URLSearchParams(location.hash.slice(1)).get("creator");

/** Stop this tutorial game if it still runs (so that it no longer counts among the client's running games). */
async function stopGame() {
  const creator = creatorToken();
  if (!creator || !last || last.status !== "running") return;
  try {
    await api.stop(hooks.gameId, creator);
  } catch {
    // already over or stopped meanwhile: nothing to do
  }
}

/** Leave for `href` (the lobby, a new game form), stopping the game first. */
async function leaveTo(ev, href) {
  ev.preventDefault();
  await stopGame();
  location.assign(href);
}

/** The next chapter: stop this game, create the chapter's game and open it (its creator token in the fragment). */
async function nextChapter(ev) {
  const btn = ev.currentTarget;
  btn.disabled = true;
  try {
    await stopGame();
    const game = await api.createTutorial("end", last.players[0].name);
    location.assign(`${game.hotseat_url}&creator=${encodeURIComponent(game.creator_token)}`);
  } catch (err) {
    btn.disabled = false;
    panel.append(h("p", { class: "tutorial-wrong", role: "alert", text: err.message }));
  }
}

/** The view as the table should use it: only the scripted move is legal for the learner, nothing else is. */
export function filter(v) {
  if (!script || v.status !== "running" || (free(v) && introDone())) return v;
  const step = stepOf(v);
  const legal = step && step.seat === 0 && introDone() ? v.legal.filter((m) => m.text === step.text) : [];
  return { ...v, legal, undo: 0 };
}

/** True when `move` (text) is not the scripted one: the table must not send it. */
export function refuses(move) {
  if (!script || !last || free(last)) return false;
  const step = stepOf(last);
  if (step && step.seat === 0 && move === step.text) return false;
  refused(null);
  return true;
}

/** A click on something the learner may not do now: say what to do instead. */
export function refused() {
  if (!script || !last || last.status !== "running") return;
  const step = stepOf(last);
  if (!step || step.seat !== 0) return;
  wrong = { at: last.version };
  render();
  showTarget(); // a tap that zoomed in elsewhere must not hide the place to play
  const hint = panel.querySelector(".tutorial-wrong");
  if (hint) {
    hint.classList.remove("flash");
    void hint.offsetWidth; // restart the animation
    hint.classList.add("flash");
  }
}

/** After a view is shown: explain the step; play the scripted players' moves after a pause. */
export function shown(v) {
  if (!script) return;
  last = v;
  if (wrong && wrong.at !== v.version) wrong = null;
  render();
  const step = stepOf(v);
  if (step && step.seat === 0) showTarget();
  if (late() && !step && !freePlay) {
    freePlay = true; // the scripted moves are made: the learner plays on the whole board, as at any table
    if (hooks.wholeBoard) hooks.wholeBoard();
  }
  if (late()) {
    const table = document.querySelector("#endgame .table-scroll");
    if (v.status === "over" && table && table.nextElementSibling !== panel) {
      // the end screen: the panel goes right under the score table it explains (again if the table was redrawn)
      table.after(panel);
      highlightColumn();
      if (!placedAtEnd) panel.scrollIntoView({ block: "nearest" });
      placedAtEnd = true;
    }
    return; // the server's bots play the other seats
  }
  if (!step && !doneShown) {
    doneShown = true;
    if (hooks.wholeBoard) hooks.wholeBoard(); // the end: the whole board the learner has built on
  }
  if (v.status !== "running" || !step || step.seat === 0 || timerFor === v.version) return;
  clearTimeout(timer);
  timerFor = v.version;
  timer = setTimeout(() => play(v.version, step), PAUSE);
}

/** The move to make must be in sight: when the board is zoomed in (a tap on a phone zooms) and no highlighted place
 * is in the visible part, show the whole board again. */
function showTarget() {
  const port = document.querySelector("#board-viewport");
  const marks = [...document.querySelectorAll("svg.board .hl")];
  if (!port || !marks.length || !hooks.wholeBoard) return;

  const box = port.getBoundingClientRect();
  const seen = marks.some((m) => {
    const r = m.getBoundingClientRect();
    return r.width > 0 && r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom;
  });
  // On a touch screen the board zooms to the move, big enough for a fingertip (no tap-to-zoom first), and again
  // whenever it is out of sight (a tap zoomed elsewhere); elsewhere the whole board comes back.
  if (touchScreen() && hooks.focus && last) {
    if (focusedFor !== last.version || !seen) {
      focusedFor = last.version;
      hooks.focus(marks);
    }
    return;
  }
  if (!seen) hooks.wholeBoard();
}

async function play(version, step) {
  if (!last || last.version !== version) return;
  try {
    const nv = await api.move(hooks.gameId, hooks.token, step.text, version, step.seat);
    hooks.receive(nv);
  } catch {
    // another tab of this game moved first (409): the socket brings the new view, which schedules the next move
    timerFor = -1;
  }
}

/** The panel's step number of a view: 1 the introduction, then one per lesson (the lesson of the learner's next
 * move), the last the end. */
function stepNumber(v) {
  if (!introDone()) return 1;
  if (late()) {
    if (v.status === "over") return lessons.length + 3 + scoreAt;
    const step = stepOf(v);
    return step ? lessons.indexOf(step.lesson) + 2 : lessons.length + 2;
  }
  return v.version < numbers.length ? numbers[v.version] : lessons.length + 2;
}

/** The total of panel steps: the introduction, the lessons, the end (basics); in the chapter "end" also the free
 * play and one step per score column. */
const totalSteps = () => (late() ? lessons.length + 3 + END_COLS.length : lessons.length + 2);

/** Mark the score column the panel explains (header and cells), nothing when past the columns. */
function highlightColumn() {
  for (const c of document.querySelectorAll("#endgame .tutorial-col")) c.classList.remove("tutorial-col");
  const key = shownCols()[scoreAt];
  if (!key) return;
  for (const c of document.querySelectorAll(`#endgame .score-table [data-col="${key}"]`)) c.classList.add("tutorial-col");
}

/** The panel's text and buttons for the chapter "end" past its scripted moves: free play, then the score table. */
function renderLate(v, text, buttons) {
  if (v.status === "running") {
    panel.dataset.lesson = "free";
    text.textContent = t("tutorial.end.free");
    const decider = v.state.turn.decider;
    if (decider !== 0) text.append(h("span", { class: "tutorial-todo", text: ` ${t("tutorial.othersPlay", { name: v.players[decider].name })}` }));
    else text.append(h("span", { class: "tutorial-todo", text: ` ${t("tutorial.end.yourTurn")}` }));
    return;
  }
  if (v.status !== "over") {
    panel.dataset.lesson = "done";
    text.textContent = t("tutorial.end.done");
    buttons.append(h("a", { class: "btn primary", id: "tutorial-play", href: "/#new-game", text: t("tutorial.playReal"), onclick: (ev) => leaveTo(ev, "/#new-game") }));
    return;
  }
  const cols = shownCols();
  const key = cols[scoreAt];
  const move = (d) => () => {
    scoreAt = Math.max(0, Math.min(cols.length, scoreAt + d));
    highlightColumn();
    render();
    const cell = document.querySelector("#endgame .tutorial-col");
    if (cell) cell.scrollIntoView({ block: "nearest", inline: "center" });
  };
  if (scoreAt > 0) buttons.append(h("button", { type: "button", class: "act", id: "tutorial-prev", text: t("tutorial.back"), onclick: move(-1) }));
  if (key) {
    panel.dataset.lesson = `score-${key}`;
    text.textContent = t(`tutorial.end.score.${key}`);
    buttons.append(h("button", { type: "button", class: "act primary", id: "tutorial-next", text: t("tutorial.next"), onclick: move(1) }));
  } else {
    panel.dataset.lesson = "done";
    text.textContent = t("tutorial.end.done");
    buttons.append(h("a", { class: "btn primary", id: "tutorial-play", href: "/#new-game", text: t("tutorial.playReal") }));
  }
}

function render() {
  const v = last;
  const chapter = script.chapter;
  const total = totalSteps();
  const n = stepNumber(v);
  const step = stepOf(v);
  clear(panel);
  const head = h("div", { class: "tutorial-head" },
    h("b", { class: "tutorial-title", text: t("tutorial.title") }),
    h("span", { class: "tutorial-progress", id: "tutorial-progress", text: t("tutorial.progress", { k: n, n: total }) }),
  );
  const fill = h("span", { class: "tutorial-fill" });
  fill.style.width = `${Math.round((n / total) * 100)}%`; // CSSOM, which the page's CSP allows (no style attribute)
  const bar = h("div", { class: "tutorial-bar", role: "progressbar", "aria-valuemin": "1", "aria-valuemax": String(total), "aria-valuenow": String(n) }, fill);
  panel.append(head, bar);
  const text = h("p", { class: "tutorial-text", id: "tutorial-text" });
  const buttons = h("div", { class: "tutorial-buttons" });
  panel.dataset.lesson = "";
  if (!introDone()) {
    panel.dataset.lesson = "intro";
    text.textContent = t(`tutorial.${chapter}.intro`);
    buttons.append(h("button", {
      type: "button", class: "act primary", id: "tutorial-next", text: t("tutorial.next"),
      onclick: () => {
        sessionStorage.setItem(introKey(), "1");
        hooks.refresh();
      },
    }));
  } else if (late() && (!step || v.status !== "running")) {
    renderLate(v, text, buttons);
  } else if (!step || v.status !== "running") {
    panel.dataset.lesson = "done";
    text.textContent = t(`tutorial.${chapter}.done`);
    buttons.append(h("button", { type: "button", class: "act primary", id: "tutorial-next-chapter", text: t("tutorial.nextChapter"), onclick: nextChapter }));
    buttons.append(h("a", { class: "btn", id: "tutorial-play", href: "/#new-game", text: t("tutorial.playReal"), onclick: (ev) => leaveTo(ev, "/#new-game") }));
  } else if (step.seat !== 0) {
    panel.dataset.lesson = "others";
    const prev = [...script.steps.slice(0, v.version)].reverse().find((s) => s.seat === 0);
    if (prev && prev.lesson === "displace" && v.state.turn.phase === "relocate") text.textContent = t(`tutorial.${chapter}.relocation`, { name: v.players[step.seat].name });
    else text.textContent = t("tutorial.othersPlay", { name: v.players[step.seat].name });
  } else {
    panel.dataset.lesson = step.lesson;
    text.textContent = t(`tutorial.${chapter}.${step.lesson}`);
    text.append(h("span", { class: "tutorial-todo", text: ` ${t("tutorial.yourMove", { move: hooks.describe(step.move) })}` }));
  }
  panel.append(text);
  if (wrong) panel.append(h("p", { class: "tutorial-wrong", id: "tutorial-wrong", role: "alert", text: t("tutorial.notYet", { move: hooks.describe(step.move) }) }));
  buttons.append(h("a", { class: "btn", id: "tutorial-leave", href: "/", text: t("tutorial.leave"), onclick: (ev) => leaveTo(ev, "/") }));
  panel.append(buttons);
  document.body.dataset.tutorialStep = String(n);
}
