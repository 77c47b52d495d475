// The lobby (/): create a game, share its links, list recent games and the games this browser created.

import { api } from "./api.js";
import { h, clear, $, copyText, absUrl } from "./dom.js";

const STORE = "hansa.myGames";
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
  recent: $("#recent-games"),
  refresh: $("#refresh-games"),
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

function loadMine() {
  try {
    const list = JSON.parse(localStorage.getItem(STORE) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
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
    };
    saveMine([entry, ...loadMine().filter((g) => g.id !== game.id)]);
    renderMine();
    loadRecent();
  } catch (err) {
    showError(err.message);
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

function playersLine(players) {
  const span = h("span", { class: "players" });
  players.forEach((p, i) => {
    if (i) span.append(" · ");
    span.append(h("span", { class: "pname", text: p.name }));
    if (p.type === "bot") span.append(h("span", { class: "tag", text: p.bot || "bot" }));
  });
  return span;
}

function renderMine() {
  const list = loadMine();
  clear(el.myGames);
  if (!list.length) {
    el.myGames.append(h("p", { class: "muted", text: "Games created in this browser appear here." }));
    return;
  }
  for (const g of list) {
    const forget = h("button", { type: "button", class: "small", text: "Forget" });
    forget.addEventListener("click", () => {
      saveMine(loadMine().filter((x) => x.id !== g.id));
      renderMine();
    });
    const when = new Date(g.created);
    el.myGames.append(
      h(
        "div",
        { class: "game-item mine", "data-id": g.id },
        h("code", { text: g.id }),
        playersLine(g.players || []),
        h("span", { class: "muted", text: isNaN(when) ? "" : when.toLocaleString() }),
        h("span", { class: "actions" }, h("a", { href: g.open, class: "btn small", text: "Open" }), h("a", { href: `/replay/${encodeURIComponent(g.id)}`, class: "btn small", text: "Replay" }), forget),
      ),
    );
  }
}

async function loadRecent() {
  try {
    const data = await api.listGames(30);
    const mine = new Map(loadMine().map((g) => [g.id, g]));
    clear(el.recent);
    if (!data.games.length) el.recent.append(h("p", { class: "muted", text: "No games yet." }));
    for (const g of data.games) {
      const my = mine.get(g.id);
      el.recent.append(
        h(
          "div",
          { class: `game-item ${g.status}`, "data-id": g.id },
          h("code", { text: g.id }),
          playersLine(g.players),
          h("span", { class: `status-tag ${g.status}`, text: g.status === "over" ? "finished" : `turn ${g.turn}` }),
          h("span", { class: "muted", text: `${g.moves} moves` }),
          h(
            "span",
            { class: "actions" },
            h("a", { href: my ? my.open : `/game/${encodeURIComponent(g.id)}`, class: "btn small", text: my ? "Open" : "Watch" }),
            h("a", { href: `/replay/${encodeURIComponent(g.id)}`, class: "btn small", text: "Replay" }),
          ),
        ),
      );
    }
  } catch (err) {
    clear(el.recent).append(h("p", { class: "error", text: `Could not load games: ${err.message}` }));
  }
}

async function main() {
  el.count.addEventListener("change", renderSeats);
  el.form.addEventListener("submit", create);
  el.refresh.addEventListener("click", loadRecent);
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
