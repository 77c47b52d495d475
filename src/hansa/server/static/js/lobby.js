// The lobby (/): create a game, share its links, list recent games and the games this browser created
// (which it may stop or delete: it keeps their creator token).

import { api, fragmentLink } from "./api.js";
import { h, clear, $, copyText, absUrl } from "./dom.js";

const STORE = "hansa.myGames";
const PAGE = 30; // games per page of the recent list
const el = {
  form: $("#create-form"),
  count: $("#player-count"),
  seats: $("#seats"),
  variantBox: $("#variant-box"),
  options: $("#options"),
  seed: $("#seed"),
  hotseat: $("#hotseat"),
  createBtn: $("#create-btn"),
  error: $("#create-error"),
  created: $("#created"),
  myGames: $("#my-games"),
  myError: $("#my-games-error"),
  recent: $("#recent-games"),
  refresh: $("#refresh-games"),
  more: $("#more-games"),
};

let bots = { bots: ["heuristic"], default: "heuristic" };
let options = {};
const seatState = []; // remembered per seat index across count changes

const OPTION_LABELS = {
  marker_set: "Bonus marker set",
  marker_city_rule: "Replacement marker city rule",
  swap_needs_own: "Swap needs an own office",
  remove3_targets: "Remove 3 targets",
  remove3_mode: "Remove 3 mode",
  income_up_to: "Income: up to the amount",
  tie_break: "Tie-break",
  neutral_coellen: "2p neutral: Coellen routes get a neutral trader",
  neutral_keep_on_ability_route: "2p neutral: keep one neutral on ability routes",
  neutral_extra_mandatory: "2p neutral: extra neutral piece is mandatory",
  pawn_free_moves: "2p pawn: free pawn moves",
};

// ------------------------------------------------------------------ my games (localStorage)

// Entries: {id, created, players, open, hotseat, seats: [{name, url}], spectator, creatorToken, status, note, seed}.
// The links carry seat tokens in the fragment (/game/{id}#token=...); older entries stored "?token=" links,
// which are rewritten when read.
function loadMine() {
  let list;
  try {
    list = JSON.parse(localStorage.getItem(STORE) || "[]");
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  return list
    .filter((g) => g && typeof g.id === "string")
    .map((g) => ({
      ...g,
      open: fragmentLink(g.open),
      hotseat: fragmentLink(g.hotseat),
      seats: Array.isArray(g.seats) ? g.seats.map((x) => ({ ...x, url: fragmentLink(x.url) })) : [],
    }));
}

function saveMine(list) {
  try {
    localStorage.setItem(STORE, JSON.stringify(list.slice(0, 50)));
  } catch {
    /* storage full or disabled */
  }
}

// ------------------------------------------------------------------ form

function defaultSeat(i) {
  return i === 0 ? { type: "human", name: "Player 1", bot: bots.default } : { type: "bot", name: `Bot ${i + 1}`, bot: bots.default };
}

function renderSeats() {
  const n = Number(el.count.value);
  // Remember what is typed before redrawing.
  el.seats.querySelectorAll(".seat").forEach((row, i) => {
    seatState[i] = {
      type: row.querySelector(".seat-type").value,
      name: row.querySelector(".seat-name").value,
      bot: row.querySelector(".seat-bot").value,
    };
  });
  clear(el.seats);
  for (let i = 0; i < n; i++) {
    const st = seatState[i] || defaultSeat(i);
    const type = h("select", { class: "seat-type", name: `type${i}`, "aria-label": `seat ${i + 1} type` }, h("option", { value: "human", text: "Human" }), h("option", { value: "bot", text: "Bot" }));
    type.value = st.type;
    const name = h("input", { class: "seat-name", name: `name${i}`, maxlength: "30", required: true, "aria-label": `seat ${i + 1} name` });
    name.value = st.name;
    const bot = h("select", { class: "seat-bot", name: `bot${i}`, "aria-label": `seat ${i + 1} bot level` }, ...bots.bots.map((b) => h("option", { value: b, text: b })));
    bot.value = st.bot || bots.default;
    const row = h("div", { class: `seat seat-${st.type}`, "data-seat": i }, h("span", { class: "seat-no", text: `Seat ${i + 1}` }), type, name, bot);
    bot.hidden = st.type !== "bot";
    type.addEventListener("change", () => {
      row.className = `seat seat-${type.value}`;
      bot.hidden = type.value !== "bot";
      if (type.value === "bot" && /^Player \d+$/.test(name.value)) name.value = `Bot ${i + 1}`;
      if (type.value === "human" && /^Bot \d+$/.test(name.value)) name.value = `Player ${i + 1}`;
    });
    el.seats.append(row);
  }
  el.variantBox.hidden = n !== 2;
  // Options of the two-player variants only matter with two players.
  el.options.querySelectorAll("[data-two-player]").forEach((row) => (row.hidden = n !== 2));
}

function renderOptions() {
  clear(el.options);
  for (const [key, spec] of Object.entries(options)) {
    if (key === "two_player_variant") continue;
    const sel = h("select", { "data-option": key, name: key }, ...spec.values.map((v) => h("option", { value: JSON.stringify(v), text: String(v) + (v === spec.default ? " (default)" : "") })));
    sel.value = JSON.stringify(spec.default);
    const twoPlayer = key.startsWith("neutral_") || key.startsWith("pawn_");
    el.options.append(h("label", { class: "row opt", "data-two-player": twoPlayer ? "1" : null }, h("span", { text: OPTION_LABELS[key] || key.replaceAll("_", " ") }), sel));
  }
}

function collect() {
  const players = [...el.seats.querySelectorAll(".seat")].map((row) => {
    const type = row.querySelector(".seat-type").value;
    const p = { name: row.querySelector(".seat-name").value.trim(), type };
    if (type === "bot") p.bot = row.querySelector(".seat-bot").value;
    return p;
  });
  const opts = {};
  el.options.querySelectorAll("select[data-option]").forEach((sel) => {
    if (sel.closest("[hidden]")) return;
    const key = sel.dataset.option;
    const value = JSON.parse(sel.value);
    if (options[key] && value !== options[key].default) opts[key] = value;
  });
  if (players.length === 2) {
    const v = el.form.querySelector("input[name=variant]:checked");
    if (v && options.two_player_variant && v.value !== options.two_player_variant.default) opts.two_player_variant = v.value;
  }
  const body = { players, options: opts };
  if (el.seed.value.trim() !== "") body.seed = Number(el.seed.value);
  return body;
}

async function create(ev) {
  ev.preventDefault();
  el.error.hidden = true;
  const body = collect();
  const bad = body.players.find((p) => !p.name);
  if (bad) {
    showError("Every seat needs a name.");
    return;
  }
  el.createBtn.disabled = true;
  try {
    const game = await api.createGame(body);
    const hotseat = el.hotseat.checked;
    showCreated(game, hotseat);
    const humans = game.seats.filter((x) => x.type === "human");
    const entry = {
      id: game.id,
      created: new Date().toISOString(),
      players: game.seats.map((x) => ({ name: x.name, type: x.type, bot: x.bot })),
      open: hotseat ? game.hotseat_url : humans.length ? humans[0].url : game.spectator_url,
      hotseat: game.hotseat_url,
      seats: humans.map((x) => ({ name: x.name, url: x.url })),
      spectator: game.spectator_url,
      creatorToken: game.creator_token,
      status: "running",
      note: null,
      seed: game.seed,
    };
    saveMine([entry, ...loadMine().filter((g) => g.id !== game.id)]);
    renderMine();
    loadRecent();
  } catch (err) {
    showError(err.message); // e.g. 429 "this client may create 10 games a minute; wait 7 s"
  } finally {
    el.createBtn.disabled = false;
  }
}

function showError(message) {
  el.error.textContent = message;
  el.error.hidden = false;
}

function linkRow(label, url, extra) {
  const abs = absUrl(url);
  const input = h("input", { class: "link", readonly: true, value: abs, onfocus: (e) => e.target.select() });
  const btn = h("button", { type: "button", class: "small copy-btn", text: "Copy" });
  btn.addEventListener("click", async () => {
    const ok = await copyText(abs);
    btn.textContent = ok ? "Copied ✓" : "Copy failed";
    setTimeout(() => (btn.textContent = "Copy"), 1500);
  });
  return h("div", { class: "link-row", ...extra }, h("span", { class: "link-label", text: label }), input, btn, h("a", { href: url, class: "small btn", target: "_blank", rel: "noopener", text: "Open" }));
}

function showCreated(game, hotseat) {
  clear(el.created);
  el.created.hidden = false;
  const humans = game.seats.filter((x) => x.type === "human");
  const openUrl = hotseat ? game.hotseat_url : humans.length ? humans[0].url : game.spectator_url;
  el.created.append(h("h3", { text: `Game ${game.id} created` }));
  el.created.append(h("p", { class: "muted", text: humans.length ? "Send each human player his own join link (it is his seat's secret)." : "Only bots play: watch with the spectator link." }));
  for (const seat of humans) el.created.append(linkRow(`Seat ${seat.seat + 1}: ${seat.name}`, seat.url, { "data-seat": seat.seat, class: "link-row seat-link" }));
  if (hotseat && humans.length) el.created.append(linkRow("Hot seat (all human seats)", game.hotseat_url, { class: "link-row hotseat-link" }));
  el.created.append(linkRow("Spectators", game.spectator_url, { class: "link-row spectator-link" }));
  el.created.append(h("p", null, h("a", { href: openUrl, class: "btn primary", id: "open-game", text: hotseat ? "Open game (hot seat)" : "Open game" })));
  el.created.scrollIntoView({ behavior: "smooth", block: "nearest" });
}

// ------------------------------------------------------------------ lists

const STATUS_TEXT = { over: "finished", stopped: "stopped", abandoned: "abandoned", damaged: "damaged" };
const deleted = new Set(); // deleted from this page: the server's lobby cache may list them a moment longer

function playersLine(players) {
  const span = h("span", { class: "players" });
  players.forEach((p, i) => {
    if (i) span.append(" · ");
    span.append(h("span", { class: "pname", text: p.name }));
    if (p.type === "bot") span.append(h("span", { class: "tag", text: p.bot || "bot" }));
  });
  return span;
}

function statusTag(status, turn) {
  const text = status === "running" ? (turn ? `turn ${turn}` : "running") : STATUS_TEXT[status] || status;
  return h("span", { class: `status-tag ${status}`, "data-status": status, text });
}

/** A game's status only ever leaves "running": the newer of two reports is the one that is not "running". */
function laterStatus(a, b) {
  return a && a.status && a.status !== "running" ? a : b;
}

/** Record what the server says about one of my games (from a lobby page or an answer). */
function updateMine(id, fields) {
  const list = loadMine();
  const g = list.find((x) => x.id === id);
  if (!g) return;
  const next = laterStatus(g, fields);
  if (next === g && g.note !== undefined) return;
  Object.assign(g, { status: next.status, note: next.note ?? null });
  if (fields.seed !== undefined && fields.seed !== null) g.seed = fields.seed;
  saveMine(list);
}

function showMineError(message) {
  el.myError.textContent = message;
  el.myError.hidden = !message;
}

async function stopGame(g) {
  if (!window.confirm(`Stop game ${g.id}? No one can move in it any more (the record and the replay stay).`)) return;
  showMineError("");
  try {
    const view = await api.stop(g.id, g.creatorToken);
    updateMine(g.id, { status: view.status, note: view.note, seed: view.seed });
  } catch (err) {
    showMineError(`Could not stop game ${g.id}: ${err.message}`);
    if (err.status === 409 || err.status === 422) {
      // Over, stopped or abandoned meanwhile: learn its status.
      try {
        const view = await api.view(g.id, null);
        updateMine(g.id, { status: view.status, note: view.note, seed: view.seed });
      } catch {
        /* damaged or gone: the message says so */
      }
    }
  }
  renderMine();
  loadRecent();
}

async function deleteGame(g) {
  if (!window.confirm(`Delete game ${g.id} for everyone? Its record and replay are deleted too; this cannot be undone.`)) return;
  showMineError("");
  try {
    await api.deleteGame(g.id, g.creatorToken);
  } catch (err) {
    if (err.status !== 404) {
      showMineError(`Could not delete game ${g.id}: ${err.message}`);
      return;
    }
    // 404: it is gone already.
  }
  deleted.add(g.id);
  saveMine(loadMine().filter((x) => x.id !== g.id));
  renderMine();
  for (const item of el.recent.querySelectorAll(".game-item")) if (item.dataset.id === g.id) item.remove();
  loadRecent();
}

function renderMine() {
  const list = loadMine();
  clear(el.myGames);
  if (!list.length) {
    el.myGames.append(h("p", { class: "muted", text: "Games created in this browser appear here." }));
    return;
  }
  for (const g of list) {
    const status = g.status || "running";
    const button = (label, cls, onclick, title) => h("button", { type: "button", class: `small ${cls}`, text: label, title, onclick });
    const forget = button("Forget", "forget-btn", () => {
      saveMine(loadMine().filter((x) => x.id !== g.id));
      renderMine();
    }, "remove from this list (the game goes on)");
    const when = new Date(g.created);
    const playable = status !== "damaged";
    el.myGames.append(
      h(
        "div",
        { class: `game-item mine ${status}`, "data-id": g.id, "data-status": status },
        h("code", { text: g.id }),
        playersLine(g.players || []),
        statusTag(status),
        h("span", { class: "muted when", text: isNaN(when) ? "" : when.toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" }) }),
        h(
          "span",
          { class: "actions" },
          playable ? h("a", { href: g.open, class: "btn small", text: "Open" }) : null,
          playable ? h("a", { href: `/replay/${encodeURIComponent(g.id)}`, class: "btn small", text: "Replay" }) : null,
          g.creatorToken && status === "running" ? button("Stop", "stop-btn", () => stopGame(g), "end the game for everyone") : null,
          g.creatorToken ? button("Delete", "delete-btn danger", () => deleteGame(g), "delete the game for everyone") : null,
          forget,
        ),
        g.note && status !== "running" ? h("span", { class: "game-note", text: g.note }) : null,
      ),
    );
  }
}

function recentRow(g, my) {
  const shown = laterStatus(my, g); // my own action may be newer than the server's cached lobby page
  const status = shown.status;
  const note = status !== "running" ? shown.note : null;
  const watch = status === "damaged" ? null : h("a", { href: my ? my.open : `/game/${encodeURIComponent(g.id)}`, class: "btn small", text: my ? "Open" : "Watch" });
  const replay = status === "damaged" ? null : h("a", { href: `/replay/${encodeURIComponent(g.id)}`, class: "btn small", text: "Replay" });
  return h(
    "div",
    { class: `game-item ${status}`, "data-id": g.id, "data-status": status },
    h("code", { text: g.id, title: g.seed !== null && g.seed !== undefined ? `seed ${g.seed}` : null }),
    playersLine(g.players),
    statusTag(status, g.turn),
    h("span", { class: "muted", text: `${g.moves} move${g.moves === 1 ? "" : "s"}` }),
    watch || replay ? h("span", { class: "actions" }, watch, replay) : null,
    note ? h("span", { class: "game-note", text: note }) : null,
  );
}

let listGeneration = 0; // a newer first-page load makes older answers (and "More" pages) obsolete
let nextCursor = null;

function showPage(data, generation, append) {
  if (generation !== listGeneration) return;
  const mine = new Map(loadMine().map((g) => [g.id, g]));
  for (const g of data.games) if (mine.has(g.id)) updateMine(g.id, g);
  if (!append) clear(el.recent);
  const seen = new Set([...el.recent.querySelectorAll(".game-item")].map((x) => x.dataset.id));
  const games = data.games.filter((g) => !deleted.has(g.id) && !seen.has(g.id));
  if (!append && !games.length) el.recent.append(h("p", { class: "muted", text: "No games yet." }));
  for (const g of games) el.recent.append(recentRow(g, mine.get(g.id)));
  nextCursor = data.next || null;
  el.more.hidden = !nextCursor;
}

async function loadRecent() {
  const generation = ++listGeneration;
  el.more.disabled = false;
  try {
    const data = await api.listGames(PAGE);
    showPage(data, generation, false);
    renderMine(); // statuses learnt from the list
  } catch (err) {
    if (generation !== listGeneration) return;
    clear(el.recent).append(h("p", { class: "error", text: `Could not load games: ${err.message}` }));
    el.more.hidden = true;
  }
}

async function loadMore() {
  if (!nextCursor) return;
  const generation = listGeneration;
  el.more.disabled = true;
  try {
    showPage(await api.listGames(PAGE, nextCursor), generation, true);
    renderMine(); // statuses learnt from the older page
  } catch (err) {
    if (generation === listGeneration) el.recent.append(h("p", { class: "error", text: `Could not load more games: ${err.message}` }));
  } finally {
    el.more.disabled = false;
  }
}

async function main() {
  el.count.addEventListener("change", renderSeats);
  el.form.addEventListener("submit", create);
  el.refresh.addEventListener("click", loadRecent);
  el.more.addEventListener("click", loadMore);
  renderMine();
  loadRecent();
  try {
    const [b, o] = await Promise.all([api.bots(), api.options()]);
    bots = b;
    options = o.options;
  } catch (err) {
    showError(`Could not load bots/options: ${err.message}`);
  }
  renderOptions();
  renderSeats();
  document.body.dataset.ready = "1";
}

main();
