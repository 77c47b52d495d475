// The leaderboard page (/leaderboard): GET /api/leaderboard, a page at a time; "established only" leaves out the
// provisional ratings.  The page and the toggle live in the address (?page=2&established=1), so a link keeps them.

import { api } from "./api.js";
import { $, clear, h } from "./dom.js";
import { errorMessage, initLanguage, t } from "./i18n.js";
import { ratingTag, topBar, whoTag } from "./club.js";

const PAGE = 50;
const el = { body: $("#lb-body"), error: $("#lb-error"), established: $("#established"), prev: $("#lb-prev"), next: $("#lb-next"), range: $("#lb-range") };
const state = { page: 0, established: false, total: 0 };

function readAddress() {
  const q = new URLSearchParams(location.search);
  state.page = Math.max(0, (parseInt(q.get("page") || "1", 10) || 1) - 1);
  state.established = q.get("established") === "1";
}

function writeAddress() {
  const q = new URLSearchParams(location.search);
  if (state.page) q.set("page", String(state.page + 1));
  else q.delete("page");
  if (state.established) q.set("established", "1");
  else q.delete("established");
  const rest = q.toString();
  history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}`);
}

function table(players) {
  const head = h("tr", {},
    h("th", { scope: "col", class: "num", text: t("club.rank") }),
    h("th", { scope: "col", text: t("club.player") }),
    h("th", { scope: "col", class: "num", text: t("club.rating") }),
    h("th", { scope: "col", class: "num", text: t("club.games") }),
    h("th", { scope: "col", class: "num", text: t("club.wins") }));
  const rows = players.map((p) => h("tr", { class: p.kind === "bot" ? "bot-row" : "" },
    h("td", { class: "num rank", text: String(p.rank) }),
    h("td", { class: "who-cell" }, whoTag(p)),
    h("td", { class: "num" }, ratingTag(p)),
    h("td", { class: "num", text: String(p.games) }),
    h("td", { class: "num", text: String(p.wins) })));
  return h("table", { class: "club-table leaderboard" }, h("thead", {}, head), h("tbody", {}, ...rows));
}

async function load() {
  el.error.hidden = true;
  el.body.setAttribute("aria-busy", "true");
  try {
    const data = await api.leaderboard(PAGE, state.page * PAGE, state.established);
    state.total = data.total;
    clear(el.body);
    if (!data.players.length && state.page > 0 && data.total > 0) {
      state.page = Math.floor((data.total - 1) / PAGE);
      return load();
    }
    if (!data.players.length) {
      el.body.append(h("p", { class: "empty-state", text: t(state.established ? "club.noEstablished" : "club.noRatings") }));
    } else {
      el.body.append(table(data.players));
    }
    const first = data.players.length ? data.offset + 1 : 0;
    el.range.textContent = data.total ? t("club.range", { first, last: data.offset + data.players.length, total: data.total }) : "";
    el.prev.disabled = state.page === 0;
    el.next.disabled = data.offset + data.players.length >= data.total;
    writeAddress();
  } catch (err) {
    el.error.textContent = errorMessage(err);
    el.error.hidden = false;
  } finally {
    el.body.removeAttribute("aria-busy");
  }
  return undefined;
}

async function main() {
  await initLanguage();
  topBar($("#top-actions"));
  readAddress();
  el.established.checked = state.established;
  el.established.addEventListener("change", () => {
    state.established = el.established.checked;
    state.page = 0;
    load();
  });
  el.prev.addEventListener("click", () => {
    state.page = Math.max(0, state.page - 1);
    load();
  });
  el.next.addEventListener("click", () => {
    state.page += 1;
    load();
  });
  await load();
  document.body.dataset.ready = "1";
}

main();
