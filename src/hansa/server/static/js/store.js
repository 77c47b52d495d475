// The games this browser plays, kept in localStorage ("hansa.myGames"): the lobby adds the games it creates, the game
// page the games it is opened with a seat token, and the "My games" page (/my-games) asks the server about them all.
//
// Entries: {id, created, players, open, hotseat?, seats: [{name, url}], spectator, creatorToken, status, note, seed,
// clock, played: [tokens]}.  ``open`` is the link this browser plays from (a seat's or the hot seat's, else the
// spectators'); ``hotseat`` is kept only for a hot-seat game (whose human seats have no links of their own: its
// ``seats`` is empty), ``seats`` only for a game of seat links; no entry keeps a null link.  ``played`` are the
// other seat tokens the game page was opened with here.  The links carry seat tokens in the fragment
// (/game/{id}#token=...); older entries stored "?token=" links, which are rewritten when read.

import { fragmentLink } from "./api.js";

const STORE = "hansa.myGames";
const KEEP = 100; // entries kept, newest first (the server answers about at most 100 games per request)
const PLAYED = 5; // other seat tokens kept per game

export function loadMine() {
  let list;
  try {
    list = JSON.parse(localStorage.getItem(STORE) || "[]");
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  return list.filter((g) => g && typeof g.id === "string").map(cleanEntry);
}

const isLink = (url) => typeof url === "string" && url !== "";

/** A stored entry as this version keeps it: links in the fragment form, and no null link (older lobbies stored
 * ``hotseat: null`` for games of seat links, and seat links of null for hot-seat games). */
function cleanEntry(g) {
  const { hotseat, ...entry } = g;
  entry.open = isLink(g.open) ? fragmentLink(g.open) : isLink(g.spectator) ? g.spectator : `/game/${encodeURIComponent(g.id)}`;
  if (isLink(hotseat)) entry.hotseat = fragmentLink(hotseat);
  entry.seats = Array.isArray(g.seats) ? g.seats.filter((x) => x && isLink(x.url)).map((x) => ({ ...x, url: fragmentLink(x.url) })) : [];
  entry.played = Array.isArray(g.played) ? g.played.filter((x) => typeof x === "string" && x) : [];
  return entry;
}

export function saveMine(list) {
  try {
    localStorage.setItem(STORE, JSON.stringify(list.slice(0, KEEP)));
  } catch {
    /* storage full or disabled */
  }
}

/** The seat token of a link "/game/{id}#token=..." (null for a spectator's link). */
export function tokenOf(url) {
  if (typeof url !== "string") return null;
  const i = url.indexOf("#");
  if (i < 0) return null;
  return new URLSearchParams(url.slice(i + 1)).get("token") || null;
}

/** The seat tokens this browser plays a stored game with: its ``open`` link's and those the game page was opened with. */
export function seatTokens(entry) {
  return [...new Set([tokenOf(entry.open), ...(entry.played || [])].filter(Boolean))];
}

/** A game's link with a seat token, as the server gives them out. */
export function seatLink(id, token) {
  return `/game/${encodeURIComponent(id)}#token=${encodeURIComponent(token)}`;
}

/** A status only ever leaves "running": the newer of two reports is the one that is not "running". */
export function laterStatus(a, b) {
  return a && a.status && a.status !== "running" ? a : b;
}

/** Record what the server says about one of my games ({status, note, seed}). */
export function updateMine(id, fields) {
  const list = loadMine();
  const g = list.find((x) => x.id === id);
  if (!g) return;
  const next = laterStatus(g, fields);
  if (next === g && g.note !== undefined) return;
  Object.assign(g, { status: next.status, note: next.note ?? null });
  if (fields.seed !== undefined && fields.seed !== null) g.seed = fields.seed;
  saveMine(list);
}

/**
 * The game page was opened with a seat token that controls seats of ``view``: remember the game (a new entry first
 * in the list), or the token with a game this browser already knows.
 */
/** A seat token now kept by an account (its link only watches): the stored game opens without it from now on. */
export function forgetSeatToken(id, token) {
  const list = loadMine();
  const g = list.find((x) => x.id === id);
  if (!g) return;
  if (tokenOf(g.open) === token) g.open = `/game/${encodeURIComponent(id)}`;
  g.played = (g.played || []).filter((x) => x !== token);
  saveMine(list);
}

export function rememberSeat(view, token) {
  if (!token || !view || !view.you || !view.you.length) return;
  const list = loadMine();
  const g = list.find((x) => x.id === view.id);
  if (!g) {
    list.unshift({
      id: view.id,
      created: new Date().toISOString(),
      players: view.players.map((p) => ({ name: p.name, type: p.type, bot: p.bot })),
      open: seatLink(view.id, token),
      seats: [],
      spectator: `/game/${encodeURIComponent(view.id)}`,
      creatorToken: null,
      status: view.status,
      note: view.note ?? null,
      seed: view.seed ?? null,
      clock: view.clock && view.clock.kind !== "none" ? clockSettings(view.clock) : null,
      played: [],
    });
    saveMine(list);
    return;
  }
  let changed = false;
  if (!tokenOf(g.open)) {
    g.open = seatLink(view.id, token); // known as a spectator until now
    changed = true;
  } else if (!seatTokens(g).includes(token)) {
    g.played = [token, ...g.played].slice(0, PLAYED);
    changed = true;
  }
  if (view.status !== "running" && g.status !== view.status) {
    Object.assign(g, { status: view.status, note: view.note ?? null });
    changed = true;
  }
  if (changed) saveMine(list);
}

/** Forget a game (the game goes on). */
export function forgetMine(id) {
  saveMine(loadMine().filter((x) => x.id !== id));
}

/** The clock settings worth keeping with an entry. */
export function clockSettings(clock) {
  return { kind: clock.kind, base: clock.base, increment: clock.increment, bank: clock.bank };
}
