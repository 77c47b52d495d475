// "My games" (/my-games): every game this browser holds a seat token for (localStorage, store.js), with whose
// decision it is, the time left and when it last changed, checked with POST /api/my-games every 20 seconds and
// whenever the page comes back into view.  The games where it is your turn come first; the tab's title counts them
// and a desktop notification tells when one newly becomes your turn.

import { api } from "./api.js";
import { h, clear, $ } from "./dom.js";
import { errorMessage, initLanguage, language, languagePicker, t, tn } from "./i18n.js";
import { formatClock } from "./clock.js";
import { forgetMine, loadMine, seatLink, seatTokens, tokenOf, updateMine } from "./store.js";
import { mountAccount } from "./account.js";

const POLL = 20000; // ms between two checks
const BATCH = 100; // games per request (the server's limit)

const el = {
  summary: $("#mg-summary"),
  checked: $("#mg-checked"),
  refresh: $("#mg-refresh"),
  error: $("#mg-error"),
  list: $("#mg-list"),
  notify: $("#notify-btn"),
};

let rows = []; // [{entry, info (merged answer) | null, error, token}]
let yourTurn = null; // ids of the games where it was your turn at the last check (null before the first)
let checking = false;
let checkedAt = null; // server time of the last answer
let checkedLocal = null; // when it came, for "checked at 14:05" in the browser's time zone

// ------------------------------------------------------------------ asking the server

/** Ask about every (game, seat token) pair this browser holds, in batches of at most 100. */
async function ask(entries) {
  const pairs = [];
  for (const g of entries) for (const token of seatTokens(g)) pairs.push({ id: g.id, token });
  const answers = [];
  for (let i = 0; i < pairs.length; i += BATCH) {
    const batch = pairs.slice(i, i + BATCH);
    const data = await api.myGames(batch);
    checkedAt = data.now;
    data.games.forEach((info, k) => answers.push({ ...info, token: batch[k] ? batch[k].token : null }));
  }
  return answers;
}

/** One game's answers (one per token this browser holds for it) as one: the seats of every token together. */
function merge(answers) {
  const ok = answers.filter((a) => !a.error);
  if (!ok.length) return { error: answers[0].error };
  const best = ok.find((a) => a.your_turn) || ok.find((a) => a.you && a.you.length) || ok[0];
  const you = [...new Set(ok.flatMap((a) => a.you || []))].sort((a, b) => a - b);
  return { ...best, you, your_turn: ok.some((a) => a.your_turn), token: best.token };
}

/** The signed-in account's games (GET /api/account/games: its seats on every device), [] for a guest. */
async function accountGames() {
  const res = await fetch("/api/account/games", { credentials: "same-origin" });
  if (res.status === 401) return [];
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const data = await res.json();
  checkedAt = data.now;
  return data.games;
}

/** Add the account's games to the rows: a game this browser also holds a link of gets the account's seats too. */
function withAccountGames(list, received) {
  for (const info of list) {
    const row = rows.find((r) => r.entry.id === info.id);
    if (!row) {
      rows.push({ entry: { id: info.id, players: info.players, open: `/game/${info.id}` }, info: { ...info, token: null }, received });
    } else if (row.info.error) {
      row.info = { ...info, token: null };
    } else {
      const you = [...new Set([...(row.info.you || []), ...info.you])].sort((x, y) => x - y);
      row.info = { ...row.info, you, your_turn: row.info.your_turn || info.your_turn };
    }
  }
}

async function check() {
  if (checking) return;
  checking = true;
  el.refresh.disabled = true;
  const entries = loadMine().filter((g) => seatTokens(g).length);
  try {
    const account = await accountGames();
    const answers = entries.length ? await ask(entries) : [];
    const byId = new Map();
    for (const a of answers) {
      if (!byId.has(a.id)) byId.set(a.id, []);
      byId.get(a.id).push(a);
    }
    const received = Date.now() / 1000;
    checkedLocal = new Date();
    rows = entries.map((entry) => {
      const got = byId.get(entry.id);
      const info = got ? merge(got) : { error: "no answer" };
      if (!info.error && info.status) updateMine(entry.id, { status: info.status, note: info.note });
      return { entry, info, received };
    });
    withAccountGames(account, received);
    el.error.hidden = true;
    render();
    announce();
  } catch (err) {
    el.error.textContent = t("mygames.errCheck", { error: errorMessage(err) });
    el.error.hidden = false;
    if (!rows.length) render();
  } finally {
    checking = false;
    el.refresh.disabled = false;
  }
}

// ------------------------------------------------------------------ showing them

const isYourTurn = (r) => !r.info.error && r.info.status === "running" && r.info.your_turn;
const isWaiting = (r) => !r.info.error && r.info.status === "running" && !r.info.your_turn;

/** Seconds left now of a row's deciding seat (counting down from the answer), or null. */
function leftNow(r) {
  const info = r.info;
  if (info.error || info.time_left === null || info.time_left === undefined || info.status !== "running") return null;
  const decider = info.decider;
  const away = decider !== null && decider !== undefined && info.players[decider] && info.players[decider].away;
  return away ? info.time_left : Math.max(0, info.time_left - (Date.now() / 1000 - r.received));
}

function updatedAt(info) {
  let ms = Date.parse(info.updated);
  if (Number.isNaN(ms) && typeof info.updated === "string") ms = Date.parse(info.updated.replace(/Z$/, ""));
  return Number.isNaN(ms) ? null : ms / 1000;
}

/** "5 minutes ago", measured on the server's clock. */
function ago(seconds) {
  const rtf = new Intl.RelativeTimeFormat(language(), { numeric: "auto" });
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return rtf.format(-s, "second");
  if (s < 3600) return rtf.format(-Math.floor(s / 60), "minute");
  if (s < 86400) return rtf.format(-Math.floor(s / 3600), "hour");
  return rtf.format(-Math.floor(s / 86400), "day");
}

function statusText(info) {
  if (info.status === "running") return info.your_turn ? t("mygames.yourTurn") : t("mygames.waiting");
  const known = ["over", "stopped", "abandoned", "damaged"].includes(info.status);
  return known ? t(`lobby.status.${info.status}`) : String(info.status);
}

function playersLine(info) {
  const line = h("span", { class: "mg-players" });
  const you = new Set(info.you || []);
  info.players.forEach((p, i) => {
    if (i) line.append(" · ");
    const cls = ["mg-player"];
    if (you.has(i)) cls.push("me");
    if (i === info.decider && info.status === "running") cls.push("deciding");
    line.append(
      h(
        "span",
        { class: cls.join(" ") },
        h("span", { class: "pname", text: p.name }),
        you.has(i) ? h("span", { class: "tag you-tag", text: t("desk.you") }) : null,
        p.type === "bot" ? h("span", { class: "tag", text: t("lobby.botTag") }) : null,
        p.away ? h("span", { class: "tag away-tag", text: t("mygames.away") }) : null,
      ),
    );
  });
  return line;
}

function gameRow(r) {
  const { entry, info } = r;
  if (info.error) {
    return h(
      "article",
      { class: "mg-item gone", "data-id": entry.id, "data-state": "gone" },
      h("div", { class: "mg-main" }, h("span", { class: "mg-badge gone", text: t("mygames.gone") }), h("code", { text: entry.id }), h("span", { class: "mg-players muted", text: (entry.players || []).map((p) => p.name).join(" · ") })),
      h("div", { class: "mg-actions" }, h("button", { type: "button", class: "small forget-btn", text: t("lobby.forget"), title: t("mygames.forgetTitle"), onclick: () => forget(entry.id) })),
    );
  }
  const state = isYourTurn(r) ? "your-turn" : isWaiting(r) ? "waiting" : "ended";
  const link = info.token ? seatLink(entry.id, info.token) : entry.open;
  const decider = info.decider !== null && info.decider !== undefined ? info.players[info.decider] : null;
  const left = leftNow(r);
  let whose = null;
  // Your turn: the badge says it; a hot seat says which of its seats decides.
  if (state === "your-turn" && info.you.length > 1 && decider) whose = h("span", { class: "mg-whose", text: t("mygames.toDecide", { name: decider.name }) });
  else if (state === "waiting" && decider) whose = h("span", { class: "mg-whose", text: t("mygames.waitingFor", { name: decider.name }) });
  const clockKind = info.clock && info.clock !== "none" ? info.clock : null;
  const time =
    left !== null && clockKind
      ? h(
          "span",
          { class: `mg-time${state === "your-turn" ? " mine" : ""}`, "data-left-id": entry.id, title: state === "your-turn" ? t("mygames.yourTime") : t("mygames.theirTime") },
          h("span", { class: "clock-icon", "aria-hidden": "true" }),
          h("span", { class: "mg-left", text: formatClock(clockKind, left) }),
        )
      : null;
  const updated = updatedAt(info);
  const meta = [];
  if (info.status === "running" && info.turn) meta.push(t("lobby.turn", { n: info.turn }));
  meta.push(info.moves ? tn("lobby.moves", info.moves) : t("lobby.noMoves"));
  if (updated !== null && checkedAt !== null) meta.push(t("mygames.updated", { when: ago(checkedAt - updated) }));
  return h(
    "article",
    { class: `mg-item ${state}`, "data-id": entry.id, "data-state": state, "data-status": info.status },
    h(
      "div",
      { class: "mg-main" },
      h("span", { class: `mg-badge ${state} ${info.status}`, text: statusText(info) }),
      whose,
      time,
    ),
    playersLine(info),
    h(
      "div",
      { class: "mg-meta muted" },
      h("code", { text: entry.id }),
      info.map && info.map !== "base" ? h("span", { class: `tag map-tag map-${info.map}`, "data-map": info.map, title: t("lobby.map"), text: t(`map.${info.map}`) }) : null,
      ` · ${meta.join(" · ")}`,
    ),
    h(
      "div",
      { class: "mg-actions" },
      h("a", { class: `btn small${state === "your-turn" ? " primary" : ""} open-link`, href: link, text: state === "your-turn" ? t("mygames.play") : t("lobby.open") }),
    ),
  );
}

function forget(id) {
  forgetMine(id);
  rows = rows.filter((r) => r.entry.id !== id);
  render();
}

function group(title, cls, list) {
  if (!list.length) return null;
  return h("section", { class: `mg-group ${cls}` }, h("h2", { class: "mg-group-title", text: `${title} (${list.length})` }), ...list.map(gameRow));
}

function render() {
  const mineTurn = rows.filter(isYourTurn).sort((a, b) => (leftNow(a) ?? Infinity) - (leftNow(b) ?? Infinity));
  const byUpdate = (a, b) => (updatedAt(b.info) || 0) - (updatedAt(a.info) || 0);
  const waiting = rows.filter(isWaiting).sort(byUpdate);
  const ended = rows.filter((r) => !r.info.error && r.info.status !== "running").sort(byUpdate);
  const gone = rows.filter((r) => r.info.error);
  clear(el.list);
  document.body.dataset.yourTurn = String(mineTurn.length);
  if (!rows.length) {
    el.summary.textContent = t("mygames.title");
    el.list.append(h("p", { class: "mg-empty" }, t("mygames.empty"), " ", h("a", { href: "/", text: t("mygames.toLobby") })));
  } else {
    el.summary.textContent = mineTurn.length ? tn("mygames.summaryTurn", mineTurn.length) : t("mygames.summaryNone");
    el.list.append(
      ...[
        group(t("mygames.groupTurn"), "g-turn", mineTurn),
        group(t("mygames.groupWaiting"), "g-waiting", waiting),
        group(t("mygames.groupEnded"), "g-ended", ended),
        group(t("mygames.groupGone"), "g-gone", gone),
      ].filter(Boolean),
    );
  }
  el.checked.textContent = checkedLocal ? t("mygames.checked", { time: checkedLocal.toLocaleTimeString(language(), { timeStyle: "short" }) }) : "";
  document.title = mineTurn.length ? `(${mineTurn.length}) ${t("mygames.yourTurnTitle")}` : t("mygames.docTitle");
  document.body.dataset.ready = "1";
}

/** Count the time left down, once a second. */
function tick() {
  for (const r of rows) {
    const node = el.list.querySelector(`[data-left-id="${CSS.escape(r.entry.id)}"] .mg-left`);
    if (!node) continue;
    const left = leftNow(r);
    const text = left === null ? "" : formatClock(r.info.clock, left);
    if (node.textContent !== text) node.textContent = text;
  }
}

// ------------------------------------------------------------------ notifications

/** A desktop notification for each game that has newly become your turn (not for those at the first check). */
function announce() {
  const now = new Set(rows.filter(isYourTurn).map((r) => r.entry.id));
  const before = yourTurn;
  yourTurn = now;
  if (!before || !("Notification" in window) || Notification.permission !== "granted") return;
  if (!document.hidden && document.hasFocus()) return; // the player is looking at this page
  for (const r of rows) {
    if (!now.has(r.entry.id) || before.has(r.entry.id)) continue;
    try {
      const n = new Notification(t("notify.title"), {
        body: t("mygames.notifyBody", { players: r.info.players.map((p) => p.name).join(" · "), n: r.info.turn || 1 }),
        tag: `hansa-${r.entry.id}`,
      });
      n.onclick = () => {
        window.focus();
        location.href = seatLink(r.entry.id, r.info.token || tokenOf(r.entry.open));
      };
    } catch {
      /* some browsers only allow notifications from a service worker */
    }
  }
}

function setupNotifyButton() {
  if (!("Notification" in window)) {
    el.notify.hidden = true;
    return;
  }
  const update = () => {
    const p = Notification.permission;
    el.notify.textContent = t(p === "granted" ? "table.notifyOn" : p === "denied" ? "table.notifyBlocked" : "table.notify");
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

// ------------------------------------------------------------------ start

async function main() {
  await initLanguage();
  $("#top-actions").prepend(languagePicker());
  mountAccount($("#top-actions"));
  setupNotifyButton();
  el.refresh.addEventListener("click", check);
  window.addEventListener("focus", check);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) check();
  });
  // Another tab of this browser created, opened or forgot a game.
  window.addEventListener("storage", (ev) => {
    if (ev.key === "hansa.myGames") check();
  });
  setInterval(check, POLL);
  setInterval(tick, 1000);
  await check();
  window.hansaMyGames = { get rows() { return rows; }, check };
}

main();
