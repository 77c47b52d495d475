// Nothing silent: what happens to the seats outside the moves themselves — a seat's time ran out, the clock ended a
// turn, a takeover vote was cast or withdrawn, a seat was taken over by vote or taken back, the game ended — told in a
// banner over the table (it does not move the board) and in a line of the move log, worded for the player concerned
// ("Your time ran out…") and for the others ("Ann's time ran out…").
//
// Everything is derived from two consecutive views (the previous one this page saw and the new one): seats' `away`,
// `takeover_votes`, `taken_over`, the game's `status`, and the log entries made by the clock (`by: "clock"`).  The
// first view of a page announces nothing (the away banner and the end panel show the lasting state).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { botLabel, votesNeeded } from "./clock.js";
import { seatName } from "./panels.js";

const STAY = { mine: 12000, others: 7000 }; // ms a banner stays (the one concerned gets longer)
const MAX = 3; // banners kept at once (phones show two): the oldest goes first
const ENDED = new Set(["over", "stopped", "abandoned"]);

/** The events between two views: [{kind, seat, ...}] (kind: timeout, clockEnd, vote, unvote, takenOver, back, end). */
export function noticeEvents(prev, v) {
  const events = [];
  if (!prev || !v || prev.id !== v.id) return events;
  const running = prev.status === "running";
  v.players.forEach((p, seat) => {
    const was = prev.players[seat];
    if (!was || !running) return;
    if (p.taken_over && !was.taken_over) events.push({ kind: "takenOver", seat, bot: p.bot });
    else if (p.away && !was.away) events.push({ kind: "timeout", seat });
    else if (was.away && !p.away && !p.taken_over && p.type === "human") events.push({ kind: "back", seat });
    if (p.taken_over && !was.taken_over) return; // the votes that decided it are told by the takeover
    const before = new Set(was.takeover_votes || []);
    const now = new Set(p.takeover_votes || []);
    for (const voter of now) if (!before.has(voter)) events.push({ kind: "vote", seat, voter, votes: now.size });
    // A vote is void when its seat comes back (the server drops them): that is no withdrawal.
    if (!(was.away && !p.away)) for (const voter of before) if (!now.has(voter)) events.push({ kind: "unvote", seat, voter });
  });
  // Turns the clock ended: one event per seat and turn (a turn may take several moves by the clock).
  const seen = new Set();
  for (const e of v.log || []) {
    if (e.n <= prev.version || e.by !== "clock") continue;
    const key = `${e.seat}:${e.turn}`;
    if (seen.has(key)) continue;
    seen.add(key);
    events.push({ kind: "clockEnd", seat: e.seat, turn: e.turn });
  }
  if (running && ENDED.has(v.status)) events.push({ kind: "end", status: v.status });
  return events;
}

/** The words of an event for this page: {text, mine, action?} (mine: the page plays the seat concerned). */
export function noticeText(ev, v, ctx, you) {
  const solo = you.length === 1;
  const me = (seat) => solo && you[0] === seat; // a hot-seat page names every seat
  const name = (seat) => seatName(ctx, seat);
  const bot = (level) => botLabel(level || (v.clock && v.clock.bot) || "heuristic");
  switch (ev.kind) {
    case "timeout":
      return me(ev.seat)
        ? { text: t("notice.timeoutYou", { bot: bot() }), mine: true, action: "back" }
        : { text: t("notice.timeout", { name: name(ev.seat), bot: bot() }), mine: you.includes(ev.seat), action: you.includes(ev.seat) ? "back" : null };
    case "clockEnd":
      return me(ev.seat)
        ? { text: t("notice.clockEndYou"), mine: true }
        : { text: t("notice.clockEnd", { name: name(ev.seat) }), mine: you.includes(ev.seat) };
    case "vote": {
      const params = { name: name(ev.seat), voter: name(ev.voter), votes: ev.votes, needed: votesNeeded(v, ev.seat) };
      if (me(ev.seat)) return { text: t("notice.voteOnYou", params), mine: true };
      if (me(ev.voter)) return { text: t("notice.voteByYou", params), mine: false };
      return { text: t("notice.vote", params), mine: false };
    }
    case "unvote": {
      const params = { name: name(ev.seat), voter: name(ev.voter) };
      if (me(ev.seat)) return { text: t("notice.unvoteOnYou", params), mine: true };
      if (me(ev.voter)) return { text: t("notice.unvoteByYou", params), mine: false };
      return { text: t("notice.unvote", params), mine: false };
    }
    case "takenOver":
      return me(ev.seat)
        ? { text: t("notice.takenOverYou", { bot: bot(ev.bot) }), mine: true }
        : { text: t("notice.takenOver", { name: name(ev.seat), bot: bot(ev.bot) }), mine: you.includes(ev.seat) };
    case "back":
      return me(ev.seat)
        ? { text: t("notice.backYou"), mine: true }
        : { text: t("notice.back", { name: name(ev.seat) }), mine: you.includes(ev.seat) };
    case "end": {
      if (ev.status !== "over") return { text: t(`notice.${ev.status}`), mine: true };
      const winners = ((v.state && v.state.result && v.state.result.winners) || []);
      if (solo && winners.includes(you[0])) return { text: winners.length > 1 ? t("notice.overSharedYou") : t("notice.overWonYou"), mine: true };
      return { text: t("notice.over", { names: winners.map(name).join(", ") }), mine: true };
    }
    default:
      return null;
  }
}

/**
 * The banners over the table.  box: the fixed area they stack in; onLog(text, kind): a line for the move log;
 * onBack(seat, button): "Take back my seat".
 */
export class Notices {
  constructor(box, { onLog, onBack } = {}) {
    this.box = box;
    this.onLog = onLog || (() => {});
    this.onBack = onBack || (() => {});
    box.setAttribute("role", "status");
    box.setAttribute("aria-live", "polite");
  }

  /** Tell what happened between the views ``prev`` and ``v`` (ctx: the captions' context of ``v``). */
  update(prev, v, ctx) {
    if (!prev) return;
    const you = [...new Set([...(prev.you || []), ...(v.you || [])])]; // a seat taken over still hears of it
    for (const ev of noticeEvents(prev, v)) {
      const words = noticeText(ev, v, ctx, you);
      if (!words) continue;
      // "Take back my seat" is stale once the seat is back or handed to a bot.
      if (ev.kind === "back" || ev.kind === "takenOver") for (const old of this.box.querySelectorAll(`.notice-timeout[data-seat="${ev.seat}"]`)) old.remove();
      this.onLog(words.text, ev.kind, v.version);
      this.show(words, ev);
    }
  }

  show(words, ev) {
    const close = () => {
      clearTimeout(item.timer);
      item.remove();
    };
    const item = h(
      "div",
      { class: `notice notice-${ev.kind}${words.mine ? " mine" : ""}`, "data-kind": ev.kind, "data-seat": ev.seat ?? undefined, "data-turn": ev.turn ?? undefined },
      h("span", { class: "notice-text", text: words.text }),
      words.action === "back"
        ? h("button", { type: "button", class: "primary notice-back", text: t("away.back"), onclick: (e) => { this.onBack(ev.seat, e.currentTarget); close(); } })
        : null,
      h("button", { type: "button", class: "notice-close", title: t("error.dismiss"), "aria-label": t("error.dismiss"), text: "×", onclick: close }),
    );
    // One that asks something of the player ("Take back my seat") stays until answered, closed or out of date.
    if (!words.action) item.timer = setTimeout(close, words.mine ? STAY.mine : STAY.others);
    else item.classList.add("sticky");
    this.box.append(item);
    while (this.box.children.length > MAX) (this.box.querySelector(".notice:not(.sticky)") || this.box.firstElementChild).remove();
  }
}
