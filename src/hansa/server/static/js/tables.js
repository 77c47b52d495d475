// Open tables on the client: who is signed in, the guest's table tokens, and a table in a few words (the lobby's
// list and the table page share these).

import { h } from "./dom.js";
import { loadSession } from "./session.js";
import { openSignIn } from "./account.js";
import { t, tn } from "./i18n.js";
import { clockSummary } from "./clock.js";

/** The signed-in account ({id, name}) or null (session.js: asked once a page; it gives api.js the CSRF token). */
export function currentAccount() {
  return loadSession();
}

/** Ask the player to sign in (the top bar's sign-in dialog). */
export function signInFirst() {
  openSignIn("signin");
}

// A guest's table tokens (its seat's token once the game starts), kept in this browser: {tableId: token}.
const TOKENS = "hansa.tableTokens";

function loadTokens() {
  try {
    const data = JSON.parse(localStorage.getItem(TOKENS) || "{}");
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

export function tableToken(id) {
  const v = loadTokens()[id];
  return typeof v === "string" ? v : null;
}

export function saveTableToken(id, token) {
  const all = loadTokens();
  if (token) all[id] = token;
  else delete all[id];
  const keys = Object.keys(all);
  for (const k of keys.slice(0, Math.max(0, keys.length - 30))) delete all[k]; // the newest 30
  try {
    localStorage.setItem(TOKENS, JSON.stringify(all));
  } catch {
    /* storage full or disabled */
  }
}

/** The page to go to once the table's game started: a guest with its token (its seat token), an account without. */
export function gameLinkOf(table, token) {
  const url = table.game_url || `/game/${encodeURIComponent(table.game)}`;
  return token ? `${url}#token=${encodeURIComponent(token)}` : url;
}

/** The table page's link (a guest's token in the fragment: it never reaches the server in a URL). */
export function tableLinkOf(table, token) {
  return token ? `${table.url}#token=${encodeURIComponent(token)}` : table.url;
}

export const seated = (table) => table.seats.filter((s) => s.kind !== "open").length;

/** The Big Box modules a table plays (docs/rules.md §8): a tag each, with the module's name. */
const MODULE_TAGS = { missions: "lobby.opt.missions.label", emperors_favour: "lobby.opt.emperors_favour.label", marker_supply: "lobby.opt.marker_supply.label" };

/** The rule options a table changes, as "label: value" texts in the page's language. */
export function changedOptions(table) {
  const out = [];
  for (const [key, value] of Object.entries(table.options || {})) {
    if (key === "map") continue;
    if (key === "two_player_variant" || MODULE_TAGS[key]) continue; // their own tags (tableTags)
    const label = t(`lobby.opt.${key}.label`);
    const val = t(`lobby.opt.${key}.val.${String(value)}`);
    out.push(`${label === `lobby.opt.${key}.label` ? key : label}: ${val === `lobby.opt.${key}.val.${String(value)}` ? String(value) : val}`);
  }
  return out;
}

/** The tags of a table: map, clock, the two-player variant, options changed, rated, guests, private. */
export function tableTags(table) {
  const changed = changedOptions(table);
  const clock = clockSummary(table.clock);
  return [
    h("span", { class: `tag map-tag map-${table.map}`, "data-map": table.map, text: t(`map.${table.map}`) }),
    h("span", { class: "tag clock-tag", title: t("lobby.clock") }, h("span", { class: "clock-icon", "aria-hidden": "true" }), ` ${clock || t("lobby.clock.none")}`),
    // two players: which two-player variant (the default, neutral traders, too: it changes the whole game)
    table.players === 2 ? h("span", { class: "tag variant-tag", title: t("lobby.variant"), "data-variant": (table.options || {}).two_player_variant || "neutral",
      text: t((table.options || {}).two_player_variant === "pawn" ? "lobby.variantPawn" : "lobby.variantNeutral") }) : null,
    ...Object.entries(MODULE_TAGS).filter(([key]) => (table.options || {})[key]).map(([key, label]) => h("span", { class: "tag module-tag", "data-module": key, text: t(label) })),
    changed.length ? h("span", { class: "tag changed-tag", title: changed.join("\n"), text: tn("lobby.changed", changed.length) }) : null,
    table.rated ? h("span", { class: "tag rated-tag", text: t("tables.rated") }) : null,
    table.allow_guests ? h("span", { class: "tag guests-tag", text: t("tables.guests") }) : null,
    table.private ? h("span", { class: "tag private-tag", text: t("tables.private") }) : null,
  ];
}

/** "12 min" left before an open table closes (null once past). */
export function timeLeft(table, now = Date.now()) {
  const end = Date.parse(table.expires);
  if (!Number.isFinite(end)) return null;
  return Math.max(0, Math.round((end - now) / 1000));
}

/** The server's note on a closed table (English), in the page's language when it is one we know. */
export function closedNote(note) {
  let m;
  if (note === "closed by its creator") return t("tablePage.note.creator");
  if (note === "its seats were not filled in time") return t("tablePage.note.expired");
  if (note && (m = /^(.*) declined the rematch$/.exec(note))) return t("tablePage.note.declined", { name: m[1] });
  return note || "";
}

/** Who proposed a rematch: its creator (an account), else the one human seat that accepted from the start. */
export function proposer(table) {
  if (table.creator) return table.creator;
  const humans = table.seats.filter((s) => s.accepted && s.kind !== "bot");
  return humans.length ? humans[0].name : "?";
}
