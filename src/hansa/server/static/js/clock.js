// Game clocks on the client (docs/api.md, "Clocks").  The server sends its time with every view ("now", seconds
// since the epoch): the page counts down from it with its own timer and never trusts the browser's absolute clock,
// which may be wrong by minutes.

import { t } from "./i18n.js";

/** The server's time as this page counts it: the offset to the browser's clock is learnt from every answer. */
export class ServerTime {
  constructor() {
    this.offset = null;
  }

  /** An answer carrying the server's time ``now`` has just arrived. */
  sync(now) {
    if (typeof now === "number" && Number.isFinite(now)) this.offset = now - Date.now() / 1000;
  }

  now() {
    return Date.now() / 1000 + (this.offset || 0);
  }
}

/** The levels a timeout bot may have (the server's TIMEOUT_BOTS). */
export const TIMEOUT_BOTS = ["random", "purpose", "heuristic", "mcts:easy", "mcts:medium"];

/** A bot's level in words ("mcts:easy" -> lobby.botLevel.mcts-easy), else its name. */
export function botLabel(bot) {
  const key = `lobby.botLevel.${String(bot).replace(/[^\w-]/g, "-")}`;
  const text = t(key);
  return text === key ? String(bot) : text;
}

const two = (n) => String(n).padStart(2, "0");

/** A real-time clock: "9:59", "1:05:00". */
export function formatRealtime(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const hours = Math.floor(s / 3600);
  const min = Math.floor((s % 3600) / 60);
  return hours ? `${hours}:${two(min)}:${two(s % 60)}` : `${min}:${two(s % 60)}`;
}

/** A long time in words, two units at most: "2 d 3 h", "5 h 12 min", "12 min 5 s", "40 s". */
export function formatLong(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return h ? t("clock.dh", { d, h }) : t("clock.d", { d });
  if (h) return m ? t("clock.hm", { h, m }) : t("clock.h", { h });
  if (m) return s % 60 ? t("clock.ms", { m, s: s % 60 }) : t("clock.m", { m });
  return t("clock.s", { s });
}

/** A seat's clock in the format of the game's kind of clock. */
export function formatClock(kind, seconds) {
  return kind === "realtime" ? formatRealtime(seconds) : formatLong(seconds);
}

/** The settings in a few words: "10 min + 5 s", "1 d per move + 1 d bank". */
export function clockSummary(c) {
  if (!c || c.kind === "none" || !c.kind) return "";
  if (c.kind === "realtime") return c.increment ? t("clock.summary.realtimeInc", { base: formatLong(c.base), inc: formatLong(c.increment) }) : t("clock.summary.realtime", { base: formatLong(c.base) });
  return c.bank ? t("clock.summary.turnBank", { base: formatLong(c.base), bank: formatLong(c.bank) }) : t("clock.summary.turn", { base: formatLong(c.base) });
}

/**
 * A seat's clock at the server time ``now``: {left (seconds, or null: nothing to show), running (it counts down
 * now), low (little time left), bank (turn-based: the bank left)}.  The running seat has ``deadline - now``; another
 * seat ``left[i]`` (real time) or ``base + left[i]`` (turn-based: a fresh period plus its bank).  Games over show
 * the real-time clocks as they stopped, turn-based ones nothing.
 */
export function seatClock(view, seat, now) {
  const c = view && view.clock;
  if (!c || !c.kind || c.kind === "none" || !Array.isArray(c.left) || c.left[seat] === undefined) return null;
  const live = view.status === "running";
  if (!live && c.kind !== "realtime") return null;
  const running = live && c.seat === seat && typeof c.deadline === "number";
  let left;
  if (running) left = Math.max(0, c.deadline - now);
  else left = c.kind === "realtime" ? c.left[seat] : c.base + c.left[seat];
  const low = live && (c.kind === "realtime" ? left < 30 : left < 0.1 * c.base);
  let bank = null;
  if (c.kind === "turn") bank = running ? Math.min(c.left[seat], left) : c.left[seat];
  return { left, running, low, bank, kind: c.kind };
}

/** Seconds the deciding ``seat`` has been thinking at the server time ``now`` (0 for another seat). */
export function thinking(view, seat, now) {
  const c = view && view.clock;
  if (!c || view.status !== "running" || c.seat !== seat || typeof c.since !== "number") return 0;
  return Math.max(0, now - c.since);
}

/** A human seat the other players may hand to a bot: away after a timeout, or deciding for ``takeover_after``. */
export function abandoned(view, seat, now) {
  const p = view.players[seat];
  if (!p || p.type !== "human" || view.status !== "running") return false;
  const after = view.clock && typeof view.clock.takeover_after === "number" ? view.clock.takeover_after : Infinity;
  return !!p.away || thinking(view, seat, now) >= after;
}

/** The votes a takeover of ``seat`` needs: more than half of the other human seats still present. */
export function votesNeeded(view, seat) {
  const electorate = view.players.filter((p, i) => i !== seat && p.type === "human" && !p.away).length;
  return Math.floor(electorate / 2) + 1;
}
