// The lobby (/): create a game, share its links, list recent games and the games this browser created
// (which it may stop or delete: it keeps their creator token).

import { api, fragmentLink, parseJson } from "./api.js";
import { h, clear, $, copyText, absUrl, isLight } from "./dom.js";

const STORE = "hansa.myGames";
const PAGE = 30; // games per page of the recent list
const el = {
  form: $("#create-form"),
  count: $("#player-count"),
  seats: $("#seats"),
  variantBox: $("#variant-box"),
  advanced: $("#advanced"),
  options: $("#options"),
  seed: $("#seed"),
  hints: $("#hints"),
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
// The player colours (GET /api/colours): [{name, colour, symbol}]; the symbol marks pieces in colour-blind mode.
let palette = {
  colours: [
    { name: "red", colour: "#d62828", symbol: "▲" },
    { name: "blue", colour: "#1d4ed8", symbol: "●" },
    { name: "green", colour: "#2a9d3f", symbol: "■" },
    { name: "purple", colour: "#7b2cbf", symbol: "◆" },
    { name: "teal", colour: "#0e8c8c", symbol: "★" },
  ],
  default: ["red", "blue", "green", "purple", "teal"],
};
const seatState = []; // remembered per seat index across count changes

const COLOUR_NAMES = {
  red: "Red",
  blue: "Blue",
  green: "Green",
  purple: "Purple",
  teal: "Teal",
  yellow: "Yellow",
  brown: "Brown",
};

const DEFAULT_MARK = "(default)";

// Every rule option of GET /api/options in plain words: a label, what it is about, each value (a short text for
// the menu, a longer one for the help), the option's section of the rules page (§6.x, /rules#s6-1 ...) and the
// rule it changes.
// "variant": shown only in two-player games of that variant.
const OPTION_INFO = {
  marker_set: {
    label: "Bonus marker set",
    help: "How many bonus markers of each kind are in the game. Three start face up on the taverns (Remove 3, Swap offices, Extra office); the others are shuffled face down and replace the markers players take. When a replacement is needed and none is left, the game ends. The rulebooks disagree on the counts.",
    values: {
      IT4: ["IT4: 16 markers (Italian rules)", "16 markers, as in the Italian rulebook, the latest edition. Face down: 3 Extra office, 2 Swap offices, 2 +3 actions, 2 +4 actions, 3 Improve ability, 1 Remove 3."],
      EN16: ["EN16: 16 markers (English rules)", "16 markers, as in the English rulebook: one Extra office more, one Swap offices fewer. Face down: 4 Extra office, 1 Swap offices, 2 +3 actions, 2 +4 actions, 3 Improve ability, 1 Remove 3."],
      PT15: ["PT15: 15 markers (Portuguese rules)", "15 markers, as in the Portuguese rulebook: one Swap offices fewer, so the supply runs out a little sooner. Face down: 3 Extra office, 1 Swap offices, 2 +3 actions, 2 +4 actions, 3 Improve ability, 1 Remove 3."],
      BB15: ["BB15: 15 markers (Big Box, for reference)", "15 markers, as in the Big Box edition (another edition, kept for reference). Face down: 3 Extra office, 2 Swap offices, 2 +3 actions, 2 +4 actions, 2 Improve ability, 1 Remove 3."],
    },
    section: "6.1",
    rule: "1.5",
  },
  marker_city_rule: {
    label: "Where replacement markers may go",
    help: "At the end of a turn, each replacement marker drawn goes on an empty route without a marker. This option says what one of the route's two cities must have.",
    values: {
      freeOffice: ["Next to a city with a free office", "At least one of the route's cities still has an unoccupied office (most rulebooks)."],
      hasOffice: ["Next to a city with an occupied office", "At least one of the route's cities already holds somebody's office (the English rulebook's main text)."],
    },
    section: "6.2",
    rule: "3.4",
  },
  swap_needs_own: {
    label: "Swap offices needs one of yours",
    help: "The Swap offices marker exchanges the occupants of two neighbouring offices in one city. The rulebooks do not say whose offices may be swapped.",
    values: {
      true: ["Yes: one of the two must be yours", "One of the two offices must be yours (as in the Big Box rules)."],
      false: ["No: any two neighbouring offices", "Any two neighbouring occupied offices, even two of other players."],
    },
    section: "6.3",
    rule: "3.3",
  },
  remove3_targets: {
    label: "Remove 3: whose pieces",
    help: "The Remove 3 marker takes up to 3 pieces off the routes; they go back to their owners' supply. Offices and the Coellen table are never touched.",
    values: {
      any: ["Anyone's pieces, yours too", "Any pieces on the routes, your own included (English, Italian and Czech rulebooks)."],
      opponents: ["Only other players' pieces", "Only pieces of other players, and neutral pieces (the Portuguese rulebook's summary)."],
    },
    section: "6.4",
    rule: "3.3",
  },
  remove3_mode: {
    label: "Remove 3 marker: effect",
    help: "What the Remove 3 marker does.",
    values: {
      remove: ["Remove up to 3 pieces", "Take up to 3 pieces off the routes; they return to their owners' supply (all rulebooks)."],
      move: ["Move 3: move other players' pieces", "Move up to 3 pieces of other players (neutral ones too) to free houses of any routes; nothing is displaced, your own pieces never move (the Big Box's Move 3 marker)."],
    },
    section: "6.5",
    rule: "3.3",
  },
  income_up_to: {
    label: "Income: may take fewer pieces",
    help: "The Income action moves pieces from your stock to your supply: as many as your Money bags show, or all of them at the top level.",
    values: {
      false: ["No: take the full amount", "Take exactly the Money bags amount, or the whole stock if it holds fewer (the rulebooks)."],
      true: ["Yes: take up to the amount", "Take any number of pieces up to the Money bags amount (the Big Box wording)."],
    },
    section: "6.6",
    rule: "2.2",
  },
  tie_break: {
    label: "Tie-break for the win",
    help: "Who wins when the highest final totals are equal.",
    values: {
      PT: ["Fewer actions, then more offices", "The tied player with fewer actions per turn wins; then the one with more offices on the board; then they share the win (the Portuguese rulebook, the only one with a tie-break)."],
      SHARED: ["Tied players share the win", "Every tied player wins (Spanish and Czech rulebooks)."],
      BB: ["Less developed Actions, then network", "The tied player with the less developed Actions track wins; then the one with the higher network score; then they share the win (Big Box)."],
    },
    section: "6.7",
    rule: "4.4",
  },
  neutral_coellen: {
    label: "Neutral traders on Coellen's routes",
    variant: "neutral",
    help: "Two players with neutral traders: at the start, a neutral trader stands on every route to a city that gives an ability instead of an office, and on the three tavern routes.",
    values: {
      true: ["Yes: ability cities and Coellen", "Also on the routes to Coellen (the Portuguese list: Groningen, Stade, Lübeck, Coellen, Göttingen, Halle)."],
      false: ["No: only the ability cities", "Only on the routes to the five ability cities (the English and Italian rulebooks' scroll cities)."],
    },
    section: "6.9",
    rule: "5.A",
  },
  neutral_keep_on_ability_route: {
    label: "A neutral stays after a neutral claim",
    variant: "neutral",
    help: "Two players with neutral traders: when every house of a route holds a neutral piece, the route is claimed for the neutral at once and its pieces go back to the pool.",
    values: {
      true: ["Yes, on routes to ability cities", "If the route leads to an ability city (or to Coellen, with the option above), one neutral trader stays on it (Portuguese rulebook)."],
      false: ["No: every piece returns to the pool", "Every neutral piece of the claimed route goes back to the pool."],
    },
    section: "6.10",
    rule: "5.A",
  },
  neutral_extra_mandatory: {
    label: "A displaced neutral brings another",
    variant: "neutral",
    help: "Two players with neutral traders: when a neutral trader is displaced, the other player puts it on a nearby route, together with one more neutral trader from the pool.",
    values: {
      true: ["Yes, always", "The additional neutral trader must be placed (the rulebooks: it moves together with an additional one)."],
      false: ["Optional", "The player who relocates may decline the additional neutral trader."],
    },
    section: "6.11",
    rule: "5.A",
  },
  pawn_free_moves: {
    label: "Free pawn moves",
    variant: "pawn",
    help: "Two players with the pawn: you may place, displace and claim only on the routes around the pawn's province. The pawn may cross up to 2 borders for free; moving it anywhere else costs an action.",
    values: {
      once: ["Once: before or after your actions", "One free move a turn, before your first action or after your last (Spanish rulebook)."],
      beforeAndAfter: ["Before and after your actions", "A free move before your first action and another after your last (Czech rulebook)."],
    },
    section: "6.12",
    rule: "5.B",
  },
};

/** The rules page's anchor of a section number: "5.A" -> "/rules#s5-A" (ids are "s" + the number, dots as dashes). */
function ruleHref(section) {
  return `/rules#s${section.replaceAll(".", "-")}`;
}

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

// ------------------------------------------------------------------ seats and colours

function defaultSeat(i) {
  return i === 0 ? { type: "human", name: "Player 1", bot: bots.default } : { type: "bot", name: `Bot ${i + 1}`, bot: bots.default };
}

function colourInfo(name) {
  return palette.colours.find((c) => c.name === name) || null;
}

function colourLabel(name) {
  return COLOUR_NAMES[name] || name;
}

/** A colour chip with its colour-blind symbol. */
function colourChip(name, extraClass = "") {
  const info = colourInfo(name);
  const colour = info ? info.colour : "#888";
  return h("span", {
    class: `colour-chip${isLight(colour) ? " light" : ""}${extraClass ? ` ${extraClass}` : ""}`,
    style: { "--pc": colour },
    "aria-hidden": "true",
    text: info ? info.symbol : "",
  });
}

/** The first colour no other seat has: the defaults in order, then the rest of the palette. */
function freeColour(taken) {
  const order = [...palette.default, ...palette.colours.map((c) => c.name)];
  return order.find((c) => colourInfo(c) && !taken.has(c)) || null;
}

function seatRows() {
  return [...el.seats.querySelectorAll(".seat")];
}

function setSeatColour(row, name) {
  const info = colourInfo(name);
  const i = Number(row.dataset.seat);
  row.dataset.colour = name;
  row.style.setProperty("--pc", info ? info.colour : "#888");
  const btn = row.querySelector(".seat-colour");
  clear(btn).append(colourChip(name));
  btn.dataset.colour = name;
  btn.setAttribute("aria-label", `Seat ${i + 1} colour: ${colourLabel(name)}`);
  btn.title = `Colour: ${colourLabel(name)}`;
}

function renderSeats() {
  const n = Number(el.count.value);
  closeColourMenu();
  // Remember what is typed before redrawing.
  seatRows().forEach((row, i) => {
    seatState[i] = {
      type: row.querySelector(".seat-type").value,
      name: row.querySelector(".seat-name").value,
      bot: row.querySelector(".seat-bot").value,
      colour: row.dataset.colour,
    };
  });
  clear(el.seats);
  const taken = new Set();
  for (let i = 0; i < n; i++) {
    const st = seatState[i] || defaultSeat(i);
    const type = h("select", { class: "seat-type", name: `type${i}`, "aria-label": `seat ${i + 1} type` }, h("option", { value: "human", text: "Human" }), h("option", { value: "bot", text: "Bot" }));
    type.value = st.type;
    const name = h("input", { class: "seat-name", name: `name${i}`, maxlength: "30", required: true, "aria-label": `seat ${i + 1} name` });
    name.value = st.name;
    const bot = h("select", { class: "seat-bot", name: `bot${i}`, "aria-label": `seat ${i + 1} bot level` }, ...bots.bots.map((b) => h("option", { value: b, text: b })));
    bot.value = st.bot || bots.default;
    const colourBtn = h("button", { type: "button", class: "seat-colour", "aria-haspopup": "listbox", "aria-expanded": "false" });
    colourBtn.addEventListener("click", () => toggleColourMenu(row));
    const row = h("div", { class: `seat seat-${st.type}`, "data-seat": i }, colourBtn, h("span", { class: "seat-no", text: `Seat ${i + 1}` }), type, name, bot);
    bot.hidden = st.type !== "bot";
    type.addEventListener("change", () => {
      row.className = `seat seat-${type.value}`;
      bot.hidden = type.value !== "bot";
      if (type.value === "bot" && /^Player \d+$/.test(name.value)) name.value = `Bot ${i + 1}`;
      if (type.value === "human" && /^Bot \d+$/.test(name.value)) name.value = `Player ${i + 1}`;
    });
    // A remembered colour stays unless an earlier seat has it now.
    const colour = st.colour && colourInfo(st.colour) && !taken.has(st.colour) ? st.colour : freeColour(taken);
    taken.add(colour);
    setSeatColour(row, colour);
    el.seats.append(row);
  }
  el.variantBox.hidden = n !== 2;
  updateOptionRows();
}

// The colour menu: one popover shared by the seats; a colour another seat has is shown but cannot be chosen.
let colourMenu = null;
let menuRow = null;

function closeColourMenu(focusButton = false) {
  if (!colourMenu) return;
  colourMenu.remove();
  colourMenu = null;
  if (menuRow) {
    const btn = menuRow.querySelector(".seat-colour");
    btn.setAttribute("aria-expanded", "false");
    if (focusButton) btn.focus();
  }
  menuRow = null;
}

function toggleColourMenu(row) {
  const same = menuRow === row;
  closeColourMenu();
  if (!same) openColourMenu(row);
}

function openColourMenu(row) {
  const i = Number(row.dataset.seat);
  const owners = new Map(seatRows().filter((r) => r !== row).map((r) => [r.dataset.colour, Number(r.dataset.seat)]));
  const btn = row.querySelector(".seat-colour");
  const menu = h("div", { class: "colour-menu", id: "colour-menu", role: "listbox", "aria-label": `Seat ${i + 1} colour` });
  for (const c of palette.colours) {
    const owner = owners.get(c.name);
    const selected = row.dataset.colour === c.name;
    const opt = h(
      "button",
      {
        type: "button",
        class: `colour-option${selected ? " selected" : ""}`,
        role: "option",
        "aria-selected": selected ? "true" : "false",
        "data-colour": c.name,
        disabled: owner !== undefined,
        title: owner !== undefined ? `${colourLabel(c.name)}: taken by seat ${owner + 1}` : colourLabel(c.name),
      },
      colourChip(c.name, "big"),
      h("span", { class: "colour-name", text: colourLabel(c.name) }),
      owner !== undefined ? h("span", { class: "colour-owner", text: `Seat ${owner + 1}` }) : null,
    );
    opt.addEventListener("click", () => {
      setSeatColour(row, c.name);
      closeColourMenu(true);
    });
    menu.append(opt);
  }
  menu.addEventListener("keydown", (ev) => {
    const items = [...menu.querySelectorAll(".colour-option:not(:disabled)")];
    const at = items.indexOf(document.activeElement);
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
    if (step !== undefined && items.length) {
      ev.preventDefault();
      items[(at + step + items.length) % items.length].focus();
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      closeColourMenu(true);
    } else if (ev.key === "Tab") closeColourMenu();
  });
  document.body.append(menu);
  colourMenu = menu;
  menuRow = row;
  btn.setAttribute("aria-expanded", "true");
  placeMenu();
  (menu.querySelector(".colour-option.selected:not(:disabled)") || menu.querySelector(".colour-option:not(:disabled)"))?.focus();
}

/** Under the seat's colour button, inside the viewport. */
function placeMenu() {
  if (!colourMenu || !menuRow) return;
  const r = menuRow.querySelector(".seat-colour").getBoundingClientRect();
  const width = colourMenu.offsetWidth;
  const left = Math.max(8, Math.min(r.left, document.documentElement.clientWidth - width - 8));
  colourMenu.style.setProperty("left", `${left + window.scrollX}px`);
  colourMenu.style.setProperty("top", `${r.bottom + 4 + window.scrollY}px`);
}

document.addEventListener("pointerdown", (ev) => {
  if (colourMenu && !colourMenu.contains(ev.target) && !(menuRow && menuRow.querySelector(".seat-colour").contains(ev.target))) closeColourMenu();
});
window.addEventListener("resize", placeMenu);

// ------------------------------------------------------------------ rule options

function variant() {
  const v = el.form.querySelector("input[name=variant]:checked");
  return v ? v.value : "neutral";
}

/** Two-player options show only in two-player games of their variant; hidden options are not sent. */
function updateOptionRows() {
  const two = Number(el.count.value) === 2;
  const v = variant();
  el.options.querySelectorAll(".opt[data-variant]").forEach((row) => {
    row.hidden = !two || row.dataset.variant !== v;
  });
  markChanged();
}

function markChanged() {
  let changed = 0;
  el.options.querySelectorAll(".opt").forEach((row) => {
    const sel = row.querySelector("select[data-option]");
    const spec = options[sel.dataset.option];
    const differs = spec && JSON.parse(sel.value) !== spec.default;
    row.classList.toggle("changed", differs);
    if (differs && !row.hidden) changed += 1;
  });
  const count = $("#options-changed");
  if (count) {
    count.hidden = !changed;
    count.textContent = changed === 1 ? "1 changed" : `${changed} changed`;
  }
  const reset = $("#reset-options");
  if (reset) reset.disabled = !changed;
}

function toggleHelp(btn, panel) {
  const open = panel.hidden;
  panel.hidden = !open;
  btn.setAttribute("aria-expanded", open ? "true" : "false");
  btn.classList.toggle("active", open);
}

function renderOptions() {
  clear(el.options);
  for (const [key, spec] of Object.entries(options)) {
    if (key === "two_player_variant") continue;
    const info = OPTION_INFO[key] || { label: key.replaceAll("_", " "), help: "", values: {} };
    const valueText = (v) => (info.values[String(v)] ? info.values[String(v)][0] : String(v));
    const id = `opt-${key}`;
    const sel = h(
      "select",
      { "data-option": key, name: key, id },
      ...spec.values.map((v) => h("option", { value: JSON.stringify(v), text: v === spec.default ? `${valueText(v)} ${DEFAULT_MARK}` : valueText(v) })),
    );
    sel.value = JSON.stringify(spec.default);
    sel.addEventListener("change", markChanged);
    const helpId = `help-${key}`;
    const btn = h("button", { type: "button", class: "help-btn", "aria-expanded": "false", "aria-controls": helpId, title: "What does this option do?", "aria-label": "What does this option do?", text: "?" });
    const list = h("dl", { class: "opt-values" });
    for (const v of spec.values) {
      const [short, long] = info.values[String(v)] || [String(v), ""];
      list.append(
        h("dt", null, h("span", { text: short }), v === spec.default ? h("span", { class: "tag default-tag", text: "default" }) : null),
        long ? h("dd", { text: long }) : null,
      );
    }
    const panel = h(
      "div",
      { class: "opt-help", id: helpId, role: "note", hidden: true },
      info.help ? h("p", { text: info.help }) : null,
      list,
      h(
        "p",
        { class: "opt-links" },
        info.section ? h("a", { class: "rule-link opt-rule", href: ruleHref(info.section), target: "_blank", rel: "noopener", text: `Rules §${info.section}` }) : null,
        info.rule ? h("a", { class: "rule-link base-rule", href: ruleHref(info.rule), target: "_blank", rel: "noopener", title: "the rule this option changes", text: `§${info.rule}` }) : null,
      ),
    );
    btn.addEventListener("click", () => toggleHelp(btn, panel));
    el.options.append(
      h(
        "div",
        { class: "opt", "data-option-row": key, "data-variant": info.variant || null },
        h("div", { class: "opt-main" }, h("label", { class: "opt-label", for: id, text: info.label }), sel, btn),
        panel,
      ),
    );
  }
  updateOptionRows();
}

function resetOptions() {
  el.options.querySelectorAll("select[data-option]").forEach((sel) => {
    const spec = options[sel.dataset.option];
    if (spec) sel.value = JSON.stringify(spec.default);
  });
  markChanged();
}

function collect() {
  const players = seatRows().map((row) => {
    const type = row.querySelector(".seat-type").value;
    const p = { name: row.querySelector(".seat-name").value.trim(), type, colour: row.dataset.colour };
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
    const v = variant();
    if (options.two_player_variant && v !== options.two_player_variant.default) opts.two_player_variant = v;
  }
  const body = { players, options: opts, table: { hints: el.hints.checked } };
  if (el.seed.value.trim() !== "") body.seed = Number(el.seed.value);
  return body;
}

async function create(ev) {
  ev.preventDefault();
  el.error.hidden = true;
  closeColourMenu();
  const body = collect();
  const bad = body.players.find((p) => !p.name);
  if (bad) {
    showError("Every seat needs a name.");
    return;
  }
  const colours = body.players.map((p) => p.colour);
  if (new Set(colours).size !== colours.length) {
    showError("Two seats have the same colour: choose another one.");
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

/** GET /api/colours (api.js has no call for it yet). */
async function loadColours() {
  const res = await fetch("/api/colours");
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const data = parseJson(await res.text());
  if (!data || !Array.isArray(data.colours) || !data.colours.length) throw new Error("no colours");
  return data;
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
  el.form.querySelectorAll("input[name=variant]").forEach((r) => r.addEventListener("change", updateOptionRows));
  $("#reset-options").addEventListener("click", resetOptions);
  renderMine();
  loadRecent();
  const colours = loadColours().catch((err) => err);
  try {
    const [b, o] = await Promise.all([api.bots(), api.options()]);
    bots = b;
    options = o.options;
  } catch (err) {
    showError(`Could not load bots/options: ${err.message}`);
  }
  const pal = await colours;
  if (pal instanceof Error) showError(`Could not load the player colours: ${pal.message}`);
  else palette = pal;
  renderOptions();
  renderSeats();
  document.body.dataset.ready = "1";
}

main();
