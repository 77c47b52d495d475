// A player's profile: /player/NAME (an account: GET /api/players/{name}) or /bot/SPEC (a bot level:
// GET /api/bots/{spec}/profile).  The rating (provisional marked) and rank, the rating history as a chart, win share
// by map and by player count, the favourite opponents and the games, a page at a time.

import { api } from "./api.js";
import { $, clear, h } from "./dom.js";
import { errorMessage, initLanguage, t, tn } from "./i18n.js";
import { botLabel } from "./clock.js";
import { ratingChart } from "./chart.js";
import { dateText, percent, ratingTag, topBar, whoTag } from "./club.js";
import { account, loadSession } from "./session.js";

const PAGE = 20;
const el = {
  error: $("#pf-error"), missing: $("#pf-missing"), card: $("#pf-card"), name: $("#pf-name"), since: $("#pf-since"),
  stats: $("#pf-stats"), fresh: $("#pf-new"), freshText: $("#pf-new-text"), history: $("#pf-history"), chart: $("#pf-chart"),
  shares: $("#pf-shares"), byMap: $("#pf-by-map"), byPlayers: $("#pf-by-players"), opponents: $("#pf-opponents"),
  oppList: $("#pf-opp-list"), games: $("#pf-games"), gameList: $("#pf-game-list"), prev: $("#pf-prev"), next: $("#pf-next"),
  range: $("#pf-range"),
};

/** {kind: "account", name} or {kind: "bot", bot} from /player/NAME or /bot/SPEC. */
function subject() {
  const parts = location.pathname.split("/").filter(Boolean);
  let rest = "";
  try {
    rest = decodeURIComponent(parts.slice(1).join("/"));
  } catch {
    rest = "";
  }
  return parts[0] === "bot" ? { kind: "bot", bot: rest } : { kind: "account", name: rest };
}

const who = subject();
const page = { offset: 0 };

function stat(label, value, id) {
  return [h("dt", { text: label }), h("dd", { id }, value)];
}

function shareTable(rows, labelOf, caption) {
  if (!rows.length) return null;
  return h("table", { class: "club-table share-table" },
    h("caption", { text: caption }),
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "" }), h("th", { scope: "col", class: "num", text: t("club.games") }),
      h("th", { scope: "col", class: "num", text: t("club.wins") }), h("th", { scope: "col", class: "share-col", text: t("club.share") }))),
    h("tbody", {}, ...rows.map((r) => h("tr", {},
      h("th", { scope: "row", text: labelOf(r) }),
      h("td", { class: "num", text: String(r.games) }),
      h("td", { class: "num", text: String(r.wins) }),
      h("td", { class: "share-col" }, h("span", { class: "share-bar", "aria-hidden": "true" }, h("span", { class: "fill", style: { width: `${Math.round(r.share * 100)}%` } })), h("span", { class: "share-num", text: percent(r.share) }))))));
}

function mapName(m) {
  const text = t(`map.${m}`);
  return text === `map.${m}` ? t("club.unknownMap") : text;
}

function render(p) {
  const isBot = p.kind === "bot";
  const title = isBot ? t("club.botTitle", { level: botLabel(p.bot) }) : p.name;
  document.title = t("club.profileTitle", { name: title });
  clear(el.name);
  if (isBot) el.name.append(h("span", { class: "bot-mark", text: t("club.botTag") }), " ");
  el.name.append(title);
  const me = account();
  if (!isBot && me && me.name === p.name) el.name.append(" ", h("span", { class: "you-tag", text: t("club.you") }));
  el.since.textContent = isBot ? t("club.botSince") : t("club.memberSince", { date: dateText(p.since) });
  clear(el.stats);
  const r = p.rating;
  el.stats.append(
    ...stat(t("club.rating"), ratingTag(r), "pf-rating"),
    ...stat(t("club.rank"), r ? `#${r.rank}` : "—", "pf-rank"),
    ...stat(t("club.ratedGames"), String(r ? r.games : 0), "pf-rated-games"),
    ...stat(t("club.wins"), String(r ? r.wins : 0), "pf-wins"),
  );
  el.card.hidden = false;

  const rated = p.history.length > 0;
  el.fresh.hidden = rated;
  el.freshText.textContent = isBot ? t("club.noRatedBot") : t("club.noRatedText");
  el.history.hidden = !rated;
  clear(el.chart);
  if (rated) el.chart.append(ratingChart(p.history, { link: (pt) => `/replay/${encodeURIComponent(pt.game)}` }));

  el.shares.hidden = !rated;
  clear(el.byMap);
  clear(el.byPlayers);
  el.byMap.append(shareTable(p.by_map, (row) => mapName(row.map), t("club.byMap")) || "");
  el.byPlayers.append(shareTable(p.by_players, (row) => tn("club.nPlayers", row.players), t("club.byPlayers")) || "");

  el.opponents.hidden = !p.opponents.length;
  clear(el.oppList);
  el.oppList.append(h("ul", { class: "opp-list" }, ...p.opponents.map((o) => h("li", { class: "opp" },
    whoTag(o),
    h("span", { class: "muted opp-count", text: tn("club.gamesTogether", o.games) }),
    h("span", { class: "opp-score", title: t("club.aheadBehindTitle"), text: t("club.aheadBehind", { wins: o.wins, losses: o.losses }) })))));
  showGames(p.games);
}

function gameItem(g) {
  const live = g.status === "running";
  const href = live ? `/game/${encodeURIComponent(g.id)}` : `/replay/${encodeURIComponent(g.id)}`;
  const names = g.players.map((n, i) => h("span", { class: i === g.seat ? "pname me" : "pname", text: n }));
  const joined = [];
  names.forEach((n, i) => joined.push(i ? ", " : "", n));
  let result = null;
  if (g.place === 1) result = h("span", { class: "place won", text: t("club.won") });
  else if (g.place) result = h("span", { class: "place", text: t("club.place", { place: g.place, players: g.players.length }) });
  return h("div", { class: "game-item pf-game", "data-id": g.id },
    h("span", { class: "muted when", text: dateText(g.created) }),
    h("span", { class: "map-tag", text: mapName(g.map) }),
    h("span", { class: "players" }, ...joined),
    h("span", { class: `status-tag ${g.status}`, text: t(`lobby.status.${g.status}`) }),
    g.rated ? h("span", { class: "rated-tag", text: t("club.rated") }) : null,
    result,
    h("span", { class: "actions" }, h("a", { class: "btn small", href, text: live ? t("club.open") : t("club.replay") })));
}

function showGames(data) {
  clear(el.gameList);
  el.games.hidden = false;
  page.offset = data.offset;
  if (!data.games.length) el.gameList.append(h("p", { class: "empty-state muted", text: t("club.noGames") }));
  else el.gameList.append(...data.games.map(gameItem));
  el.range.textContent = data.total ? t("club.range", { first: data.offset + 1, last: data.offset + data.games.length, total: data.total }) : "";
  el.prev.disabled = data.offset === 0;
  el.next.disabled = data.offset + data.games.length >= data.total;
  el.prev.parentElement.hidden = data.total <= data.limit;
}

async function loadGames(offset) {
  try {
    const data = who.kind === "bot" ? await api.botGames(who.bot, PAGE, offset) : await api.playerGames(who.name, PAGE, offset);
    showGames(data);
  } catch (err) {
    el.error.textContent = errorMessage(err);
    el.error.hidden = false;
  }
}

async function main() {
  await initLanguage();
  topBar($("#top-actions"));
  el.prev.addEventListener("click", () => loadGames(Math.max(0, page.offset - PAGE)));
  el.next.addEventListener("click", () => loadGames(page.offset + PAGE));
  try {
    const p = who.kind === "bot" ? await api.botProfile(who.bot) : await api.player(who.name);
    await loadSession(); // (to mark the signed-in player's own profile)
    render(p);
  } catch (err) {
    if (err.status === 404) {
      el.missing.hidden = false;
      document.title = t("club.noSuchPlayer");
    } else {
      el.error.textContent = errorMessage(err);
      el.error.hidden = false;
    }
  }
  document.body.dataset.ready = "1";
}

main();
