// The lobby (/): create a game, share its links, list recent games and the games this browser created
// (which it may stop or delete: it keeps their creator token).

import { api, parseJson } from "./api.js";
import { h, clear, $, copyText, absUrl, isLight } from "./dom.js";
import { errorMessage, initLanguage, language, languagePicker, t, tn } from "./i18n.js";
import { TIMEOUT_BOTS, botLabel, clockSummary, formatLong } from "./clock.js";
import { clockSettings, laterStatus, loadMine, saveMine, updateMine } from "./store.js";
import { currentAccount, saveTableToken, seated, signInFirst, tableLinkOf, tableTags } from "./tables.js";
import { mountAccount } from "./account.js";
import { onSession } from "./session.js";

const PAGE = 30; // games per page of the recent list
const el = {
  form: $("#create-form"),
  count: $("#player-count"),
  seats: $("#seats"),
  variantBox: $("#variant-box"),
  mapBox: $("#map-box"),
  mapHelp: $("#map-help"),
  mapNote: $("#map-note"),
  advanced: $("#advanced"),
  options: $("#options"),
  seed: $("#seed"),
  hints: $("#hints"),
  spectatorChat: $("#spectator-chat"),
  botChat: $("#bot-chat"),
  hotseat: $("#hotseat"),
  createBtn: $("#create-btn"),
  error: $("#create-error"),
  created: $("#created"),
  myGames: $("#my-games"),
  myError: $("#my-games-error"),
  recent: $("#recent-games"),
  refresh: $("#refresh-games"),
  more: $("#more-games"),
  clockBox: $("#clock-box"),
  clockRealtime: $("#clock-realtime"),
  clockTurn: $("#clock-turn"),
  clockTimeout: $("#clock-timeout"),
  clockMinutes: $("#clock-minutes"),
  clockIncrement: $("#clock-increment"),
  clockPerMove: $("#clock-per-move"),
  clockPerMoveUnit: $("#clock-per-move-unit"),
  clockBank: $("#clock-bank"),
  clockBankUnit: $("#clock-bank-unit"),
  clockPolicy: $("#clock-policy"),
  clockBot: $("#clock-bot"),
  clockBotRow: $("#clock-bot-row"),
  clockSummary: $("#clock-summary"),
};

let bots = { bots: ["heuristic"], default: "heuristic" };
let options = {};
let mapDefaults = {}; // GET /api/options: the defaults that differ on a map ({britannia: {remove3_mode: "move"}})
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

// Every rule option of GET /api/options in plain words, in the translations: lobby.opt.<option>.label, .help, and
// per value .val.<value> (a short text for the menu) and .about.<value> (a longer one for the help).  Here: the
// option's section of the rules page (§6.x, /rules#s6-1 ...) and the rule it changes; "variant": shown only in
// two-player games of that variant; "map": shown only on that map.
const OPTION_INFO = {
  marker_set: { section: "6.1", rule: "1.5" },
  marker_city_rule: { section: "6.2", rule: "3.4" },
  swap_needs_own: { section: "6.3", rule: "3.3" },
  remove3_targets: { section: "6.4", rule: "3.3" },
  remove3_mode: { section: "6.5", rule: "3.3" },
  income_up_to: { section: "6.6", rule: "2.2" },
  tie_break: { section: "6.7", rule: "4.4" },
  neutral_coellen: { variant: "neutral", section: "6.9", rule: "5.A" },
  neutral_keep_on_ability_route: { variant: "neutral", section: "6.10", rule: "5.A" },
  neutral_extra_mandatory: { variant: "neutral", section: "6.11", rule: "5.A" },
  pawn_free_moves: { variant: "pawn", section: "6.12", rule: "5.B" },
  permission_holder: { map: "britannia", section: "6.14", rule: "7.6" },
  permission_timing: { map: "britannia", section: "6.15", rule: "7.6" },
  relocation_rings: { map: "britannia", section: "6.16", rule: "7.7" },
  green_city_swap: { map: "east", section: "6.17", rule: "7.5" },
  green_city_free_for_markers: { map: "east", section: "6.18", rule: "3.4" },
  // The Big Box modules (docs/rules.md §8): each its §6 section and the chapter 8 rule it adds; "baseOnly": the
  // option cannot be chosen on the expansion maps (the mission cards name base-board cities).
  missions: { section: "6.19", rule: "8.2", baseOnly: true },
  emperors_favour: { section: "6.20", rule: "8.3" },
  marker_supply: { section: "6.21", rule: "8.5" },
};
// Chosen in their own places of the form, not among the advanced options.
const OWN_PLACE = new Set(["two_player_variant", "map", "missions", "emperors_favour", "marker_supply"]);
// The modules' box of the form: a checkbox each; marker_supply's list is made with a counter per marker.
const MODULES = ["missions", "emperors_favour", "marker_supply"];
// The supply a player gets on ticking "promotional markers" (docs/rules.md §8.5's example): every promotional marker
// in, at most as many of each as the server allows (GET /api/options: marker_supply.most).
const PROMO_SUPPLY = { "extra-office": 2, swap: 1, "+3": 1, "+4": 1, improve: 1, remove3: 1, exchange: 2, tribute: 2, block: 1 };
const PROMO_MARKERS = new Set(["exchange", "tribute", "block"]);
let supply = { ...PROMO_SUPPLY }; // the counts the form shows (marker name -> n)

// The face-down bonus markers of each marker set (the three on the taverns come on top), listed in its help.
const MARKER_SETS = {
  IT4: { "extra-office": 3, swap: 2, "+3": 2, "+4": 2, improve: 3, remove3: 1 },
  EN16: { "extra-office": 4, swap: 1, "+3": 2, "+4": 2, improve: 3, remove3: 1 },
  PT15: { "extra-office": 3, swap: 1, "+3": 2, "+4": 2, improve: 3, remove3: 1 },
  BB15: { "extra-office": 3, swap: 2, "+3": 2, "+4": 2, improve: 2, remove3: 1 },
};

/** The names the option texts fill in ({remove3}, {bags} ...): the game's own terms in the page's language. */
function optionTerms(key, value) {
  const terms = {
    remove3: t("marker.remove3"),
    swap: t("marker.swap"),
    extra: t("marker.extra-office"),
    bags: t("ability.bags"),
    actions: t("ability.actions"),
  };
  const set = key === "marker_set" ? MARKER_SETS[String(value)] : null;
  if (set) terms.list = Object.entries(set).map(([m, n]) => t("lobby.markerCount", { n, marker: t(`marker.${m}`) })).join(", ");
  return terms;
}

/** An option's text in the page's language: "label" or "help" of the option, "val"/"about" of one of its values. */
function optionText(key, part, value) {
  const id = value === undefined ? `lobby.opt.${key}.${part}` : `lobby.opt.${key}.${part}.${String(value)}`;
  const text = t(id, optionTerms(key, value));
  return text === id ? null : text; // an option or value this page does not know yet
}

/** The rules page's anchor of a section number: "5.A" -> "/rules#s5-A" (ids are "s" + the number, dots as dashes). */
function ruleHref(section) {
  return `/rules#s${section.replaceAll(".", "-")}`;
}

// ------------------------------------------------------------------ seats and colours

/** The name a seat gets until one is typed: "Player 1", "Bot 2" ... */
function defaultName(type, i) {
  return t(type === "bot" ? "lobby.defaultBot" : "lobby.defaultHuman", { n: i + 1 });
}

function defaultSeat(i) {
  return i === 0 ? { type: "human", name: defaultName("human", 0), bot: bots.default } : { type: "bot", name: defaultName("bot", i), bot: bots.default };
}

function colourInfo(name) {
  return palette.colours.find((c) => c.name === name) || null;
}

/** A player colour's name, capitalised: colour.<name> of the translations, else the name itself. */
function colourLabel(name) {
  const key = `colour.${name}`;
  const text = t(key) === key ? name : t(key);
  return text.charAt(0).toLocaleUpperCase(language()) + text.slice(1);
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
  btn.setAttribute("aria-label", t("lobby.seatColourIs", { n: i + 1, colour: colourLabel(name) }));
  btn.title = t("lobby.colourIs", { colour: colourLabel(name) });
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
    const type = h(
      "select",
      { class: "seat-type", name: `type${i}`, "aria-label": t("lobby.seatType", { n: i + 1 }) },
      h("option", { value: "human", text: t("lobby.human") }),
      h("option", { value: "bot", text: t("lobby.bot") }),
    );
    type.value = st.type;
    const name = h("input", { class: "seat-name", name: `name${i}`, maxlength: "30", required: true, "aria-label": t("lobby.seatName", { n: i + 1 }) });
    name.value = st.name;
    const bot = h("select", { class: "seat-bot", name: `bot${i}`, "aria-label": t("lobby.seatBot", { n: i + 1 }) }, ...bots.bots.map((b) => h("option", { value: b, text: botLabel(b) })));
    bot.value = st.bot || bots.default;
    const colourBtn = h("button", { type: "button", class: "seat-colour", "aria-haspopup": "listbox", "aria-expanded": "false" });
    colourBtn.addEventListener("click", () => toggleColourMenu(row));
    // At an open table the first human seat is the creator's and the other human seats are open seats.
    const openLabel = h("span", { class: "seat-open-label muted" });
    const row = h("div", { class: `seat seat-${st.type}`, "data-seat": i }, colourBtn, h("span", { class: "seat-no", text: t("lobby.seat", { n: i + 1 }) }), type, name, openLabel, bot);
    bot.hidden = st.type !== "bot";
    type.addEventListener("change", () => {
      row.className = `seat seat-${type.value}`;
      bot.hidden = type.value !== "bot";
      if (type.value === "bot" && name.value === defaultName("human", i)) name.value = defaultName("bot", i);
      if (type.value === "human" && name.value === defaultName("bot", i)) name.value = defaultName("human", i);
      labelOpenSeats();
    });
    // A remembered colour stays unless an earlier seat has it now.
    const colour = st.colour && colourInfo(st.colour) && !taken.has(st.colour) ? st.colour : freeColour(taken);
    taken.add(colour);
    setSeatColour(row, colour);
    el.seats.append(row);
  }
  el.variantBox.hidden = n !== 2;
  labelOpenSeats();
  updateOptionRows();
}

/** At an open table: "You" on the first human seat, "Open seat" on the other human seats. */
function labelOpenSeats() {
  let first = true;
  for (const row of seatRows()) {
    row.querySelector(".seat-name").required = mode() !== "table"; // hidden at an open table: not asked for
    const human = row.querySelector(".seat-type").value === "human";
    row.querySelector(".seat-open-label").textContent = human ? (first ? t("tables.you") : t("tables.openSeat")) : "";
    if (human) first = false;
  }
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
  const menu = h("div", { class: "colour-menu", id: "colour-menu", role: "listbox", "aria-label": t("lobby.seatColour", { n: i + 1 }) });
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
        title: owner !== undefined ? t("lobby.colourTaken", { colour: colourLabel(c.name), n: owner + 1 }) : colourLabel(c.name),
      },
      colourChip(c.name, "big"),
      h("span", { class: "colour-name", text: colourLabel(c.name) }),
      owner !== undefined ? h("span", { class: "colour-owner", text: t("lobby.seat", { n: owner + 1 }) }) : null,
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

// ------------------------------------------------------------------ the clock

// Presets: real time, minutes per player + seconds per turn; turn-based, time per move + bank (seconds).
const REALTIME_PRESETS = [[5, 3], [10, 5], [25, 10], [60, 30]];
const TURN_PRESETS = [[12 * 3600, 12 * 3600], [86400, 86400], [3 * 86400, 3 * 86400]];
// The server's bounds (docs/api.md, "Clocks"), in seconds.
const CLOCK_LIMITS = { base: [60, 10800], increment: [0, 600], perMove: [60, 14 * 86400], bank: [0, 30 * 86400] };

function clockKind() {
  const r = el.form.querySelector("input[name=clock-kind]:checked");
  return r ? r.value : "none";
}

/** An amount in a unit select (hours or days) as seconds. */
const amount = (input, unit) => Number(input.value) * Number(unit.value);

/** A length in seconds in the largest of the units (days, hours) that divides it: [number, unit seconds]. */
function inUnits(seconds) {
  return seconds % 86400 === 0 && seconds ? [seconds / 86400, 86400] : [seconds / 3600, 3600];
}

/** The clock the form asks for: {clock} (null: none), or {error} (a key of the translations). */
function collectClock() {
  const kind = clockKind();
  if (kind === "none") return { clock: null };
  const timeout = { on_timeout: el.clockPolicy.value, bot: el.clockBot.value || "heuristic" };
  const inRange = (v, [lo, hi]) => Number.isFinite(v) && v >= lo && v <= hi;
  if (kind === "realtime") {
    const base = Math.round(Number(el.clockMinutes.value) * 60);
    const increment = Math.round(Number(el.clockIncrement.value));
    if (el.clockMinutes.value.trim() === "" || !inRange(base, CLOCK_LIMITS.base)) return { error: "lobby.clock.errMinutes" };
    if (el.clockIncrement.value.trim() === "" || !inRange(increment, CLOCK_LIMITS.increment)) return { error: "lobby.clock.errIncrement" };
    return { clock: { kind, base, increment, bank: 0, ...timeout } };
  }
  const base = Math.round(amount(el.clockPerMove, el.clockPerMoveUnit));
  const bank = Math.round(amount(el.clockBank, el.clockBankUnit));
  if (el.clockPerMove.value.trim() === "" || !inRange(base, CLOCK_LIMITS.perMove)) return { error: "lobby.clock.errPerMove" };
  if (el.clockBank.value.trim() === "" || !inRange(bank, CLOCK_LIMITS.bank)) return { error: "lobby.clock.errBank" };
  return { clock: { kind, base, increment: 0, bank, ...timeout } };
}

/** What a clock means, in a sentence. */
function clockSentence(c) {
  if (c.kind === "realtime") return t(c.increment ? "lobby.clock.explain.realtimeInc" : "lobby.clock.explain.realtime", { base: formatLong(c.base), inc: formatLong(c.increment) });
  return t(c.bank ? "lobby.clock.explain.turnBank" : "lobby.clock.explain.turn", { base: formatLong(c.base), bank: formatLong(c.bank) });
}

/** Show the chosen kind's fields, mark the preset they match, and say what the clock will be in a sentence. */
function updateClock() {
  const kind = clockKind();
  el.clockRealtime.hidden = kind !== "realtime";
  el.clockTurn.hidden = kind !== "turn";
  el.clockTimeout.hidden = kind === "none";
  el.clockBotRow.hidden = el.clockPolicy.value !== "bot";
  el.clockBox.dataset.kind = kind;
  // A hidden field takes no part in the form's own checks (its min and max would block the form unseen).
  for (const panel of [el.clockRealtime, el.clockTurn, el.clockTimeout]) for (const f of panel.querySelectorAll("input, select")) f.disabled = panel.hidden;
  const { clock, error } = collectClock();
  el.clockSummary.hidden = kind === "none";
  el.clockSummary.classList.toggle("bad", !!error);
  if (kind !== "none") {
    el.clockSummary.textContent = error ? t(error) : `${clockSentence(clock)} ${t(clock.on_timeout === "bot" ? "lobby.clock.explain.bot" : "lobby.clock.explain.end", { bot: botLabel(clock.bot) })}`;
  }
  for (const btn of el.clockBox.querySelectorAll(".preset")) {
    const a = Number(btn.dataset.a);
    const b = Number(btn.dataset.b);
    const on = !!clock && clock.kind === btn.dataset.kind && clock.base === a && (clock.kind === "realtime" ? clock.increment === b : clock.bank === b);
    btn.setAttribute("aria-pressed", on ? "true" : "false");
  }
}

function setupClock() {
  clear(el.clockBot).append(...TIMEOUT_BOTS.map((b) => h("option", { value: b, text: botLabel(b) })));
  el.clockBot.value = "heuristic";
  const preset = (kind, a, b, onclick) => h("button", { type: "button", class: "small preset", "data-kind": kind, "data-a": a, "data-b": b, "aria-pressed": "false", text: clockSummary(kind === "realtime" ? { kind, base: a, increment: b } : { kind, base: a, bank: b }), onclick });
  clear($("#presets-realtime")).append(
    ...REALTIME_PRESETS.map(([min, inc]) =>
      preset("realtime", min * 60, inc, () => {
        el.clockMinutes.value = String(min);
        el.clockIncrement.value = String(inc);
        updateClock();
      }),
    ),
  );
  clear($("#presets-turn")).append(
    ...TURN_PRESETS.map(([per, bank]) =>
      preset("turn", per, bank, () => {
        [el.clockPerMove.value, el.clockPerMoveUnit.value] = inUnits(per).map(String);
        [el.clockBank.value, el.clockBankUnit.value] = inUnits(bank).map(String);
        updateClock();
      }),
    ),
  );
  el.clockBox.addEventListener("input", updateClock);
  el.clockBox.addEventListener("change", updateClock);
  updateClock();
}

// ------------------------------------------------------------------ rule options

// ------------------------------------------------------------------ the map

function currentMap() {
  const r = el.form.querySelector("input[name=map]:checked");
  return r ? r.value : "base";
}

/** An option's default on the chosen map (Britannia plays Move 3 unless told otherwise). */
function defaultOf(key) {
  const own = mapDefaults[currentMap()] || {};
  if (key in own) return own[key];
  return options[key] ? options[key].default : undefined;
}

/** East and Britannia take 3 to 5 players: two players cannot be chosen there (a note says why). */
function updateMap(previous) {
  const map = currentMap();
  const expansion = map !== "base";
  const two = el.count.querySelector("option[value='2']");
  if (two) two.disabled = expansion;
  el.mapNote.hidden = !expansion;
  el.mapHelp.textContent = t(`lobby.mapHelp.${map}`);
  el.mapBox.dataset.map = map;
  document.body.dataset.map = map;
  for (const label of el.mapBox.querySelectorAll(".map-option")) label.classList.toggle("chosen", label.querySelector("input").checked);
  if (expansion && el.count.value === "2") {
    el.count.value = "3";
    renderSeats();
  }
  relabelOptions(previous);
  updateOptionRows();
  updateModules();
}

function variant() {
  const v = el.form.querySelector("input[name=variant]:checked");
  return v ? v.value : "neutral";
}

/** Two-player options show only in two-player games of their variant, the expansions' options only on their map;
 * hidden options are not sent. */
function updateOptionRows() {
  const two = Number(el.count.value) === 2;
  const v = variant();
  const map = currentMap();
  el.options.querySelectorAll(".opt").forEach((row) => {
    row.hidden = (row.dataset.variant && (!two || row.dataset.variant !== v)) || (row.dataset.map && row.dataset.map !== map) || false;
  });
  markChanged();
}

/** The "(default)" marks follow the map's defaults; an option left at the old map's default takes the new one. */
function relabelOptions(previous) {
  el.options.querySelectorAll("select[data-option]").forEach((sel) => {
    const key = sel.dataset.option;
    const spec = options[key];
    if (!spec) return;
    const now = defaultOf(key);
    const was = previous === undefined ? now : (mapDefaults[previous] || {})[key] ?? spec.default;
    for (const opt of sel.options) {
      const v = JSON.parse(opt.value);
      opt.textContent = v === now ? `${optionText(key, "val", v) || String(v)} ${t("lobby.defaultMark")}` : optionText(key, "val", v) || String(v);
    }
    if (JSON.parse(sel.value) === was) sel.value = JSON.stringify(now);
    const row = sel.closest(".opt");
    for (const dt of row.querySelectorAll(".opt-values dt")) {
      const tag = dt.querySelector(".default-tag");
      const isDefault = dt.dataset.value === JSON.stringify(now);
      if (tag && !isDefault) tag.remove();
      if (!tag && isDefault) dt.append(h("span", { class: "tag default-tag", text: t("lobby.default") }));
    }
  });
}

function markChanged() {
  let changed = 0;
  el.options.querySelectorAll(".opt").forEach((row) => {
    const sel = row.querySelector("select[data-option]");
    const spec = options[sel.dataset.option];
    const differs = spec && JSON.parse(sel.value) !== defaultOf(sel.dataset.option);
    row.classList.toggle("changed", differs);
    if (differs && !row.hidden) changed += 1;
  });
  const count = $("#options-changed");
  if (count) {
    count.hidden = !changed;
    count.textContent = tn("lobby.changed", changed);
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
    if (OWN_PLACE.has(key)) continue;
    const info = OPTION_INFO[key] || {};
    const valueText = (v) => optionText(key, "val", v) || String(v);
    const id = `opt-${key}`;
    const sel = h(
      "select",
      { "data-option": key, name: key, id },
      ...spec.values.map((v) => h("option", { value: JSON.stringify(v), text: v === spec.default ? `${valueText(v)} ${t("lobby.defaultMark")}` : valueText(v) })),
    );
    sel.value = JSON.stringify(defaultOf(key));
    sel.addEventListener("change", markChanged);
    const helpId = `help-${key}`;
    const btn = h("button", { type: "button", class: "help-btn", "aria-expanded": "false", "aria-controls": helpId, title: t("lobby.optionHelp"), "aria-label": t("lobby.optionHelp"), text: "?" });
    const list = h("dl", { class: "opt-values" });
    for (const v of spec.values) {
      const long = optionText(key, "about", v);
      list.append(
        h("dt", { "data-value": JSON.stringify(v) }, h("span", { text: valueText(v) }), v === spec.default ? h("span", { class: "tag default-tag", text: t("lobby.default") }) : null),
        long ? h("dd", { text: long }) : null,
      );
    }
    const help = optionText(key, "help");
    const panel = h(
      "div",
      { class: "opt-help", id: helpId, role: "note", hidden: true },
      help ? h("p", { text: help }) : null,
      list,
      h(
        "p",
        { class: "opt-links" },
        info.section ? h("a", { class: "rule-link opt-rule", href: ruleHref(info.section), target: "_blank", rel: "noopener", text: t("lobby.rulesSection", { section: info.section }) }) : null,
        info.rule ? h("a", { class: "rule-link base-rule", href: ruleHref(info.rule), target: "_blank", rel: "noopener", title: t("lobby.baseRule"), text: `§${info.rule}` }) : null,
      ),
    );
    btn.addEventListener("click", () => toggleHelp(btn, panel));
    el.options.append(
      h(
        "div",
        { class: "opt", "data-option-row": key, "data-variant": info.variant || null, "data-map": info.map || null },
        h("div", { class: "opt-main" }, h("label", { class: "opt-label", for: id, text: optionText(key, "label") || key.replaceAll("_", " ") }), sel, btn),
        panel,
      ),
    );
  }
  relabelOptions();
  updateOptionRows();
}

function resetOptions() {
  el.options.querySelectorAll("select[data-option]").forEach((sel) => {
    const spec = options[sel.dataset.option];
    if (spec) sel.value = JSON.stringify(defaultOf(sel.dataset.option));
  });
  markChanged();
}

// ------------------------------------------------------------------ the Big Box modules

const supplySpec = () => options.marker_supply || { values: [], most: {}, length: 12 };
const supplyTotal = () => Object.values(supply).reduce((a, b) => a + b, 0);

/** The counts as the list the server takes: each name as often as chosen, in the server's order. */
function supplyList() {
  return supplySpec().values.flatMap((name) => Array(supply[name] || 0).fill(name));
}

/** A module's checkbox (null when the server does not offer the option). */
const moduleBox = (key) => el.form.querySelector(`input[data-module="${key}"]`);

/** The counters of the marker supply: one row per marker with − and +, the total against the 12 needed. */
function supplyEditor() {
  const spec = supplySpec();
  const grid = h("div", { class: "supply-grid", role: "group", "aria-label": t("lobby.supply.label") });
  for (const name of spec.values) {
    const marker = t(`marker.${name}`);
    const step = (d) => () => {
      supply[name] = Math.max(0, Math.min(spec.most[name] ?? 0, (supply[name] || 0) + d));
      updateSupply();
    };
    grid.append(
      h(
        "div",
        { class: `supply-row${PROMO_MARKERS.has(name) ? " promo" : ""}`, "data-marker": name },
        h("span", { class: "supply-name" }, h("span", { text: marker }), PROMO_MARKERS.has(name) ? h("span", { class: "tag promo-tag", text: t("lobby.supply.promo") }) : null),
        h(
          "span",
          { class: "stepper" },
          h("button", { type: "button", class: "small step less", "aria-label": t("lobby.supply.less", { marker }), text: "−", onclick: step(-1) }),
          h("output", { class: "supply-count", "aria-live": "polite", "aria-label": marker }),
          h("button", { type: "button", class: "small step more", "aria-label": t("lobby.supply.more", { marker }), text: "+", onclick: step(1) }),
        ),
        h("span", { class: "muted supply-most", text: t("lobby.supply.most", { n: spec.most[name] ?? 0 }) }),
      ),
    );
  }
  return h(
    "div",
    { class: "supply-editor", id: "supply-editor", hidden: true },
    h("p", { class: "muted supply-help", text: t("lobby.supply.help", { n: spec.length }) }),
    grid,
    h(
      "div",
      { class: "supply-foot" },
      h("span", { class: "supply-total", id: "supply-total", "aria-live": "polite" }),
      h("button", { type: "button", class: "small", id: "supply-reset", text: t("lobby.supply.reset"), onclick: () => {
        supply = { ...PROMO_SUPPLY };
        updateSupply();
      } }),
    ),
  );
}

/** The counters as they are now: a counter at its most or with the supply full cannot go up, at 0 not down. */
function updateSupply() {
  const editor = $("#supply-editor");
  if (!editor) return;
  const spec = supplySpec();
  const total = supplyTotal();
  for (const row of editor.querySelectorAll(".supply-row")) {
    const name = row.dataset.marker;
    const n = supply[name] || 0;
    row.querySelector(".supply-count").textContent = String(n);
    row.querySelector(".less").disabled = n <= 0;
    row.querySelector(".more").disabled = n >= (spec.most[name] ?? 0) || total >= spec.length;
    row.classList.toggle("none", n === 0);
  }
  const out = $("#supply-total");
  const missing = spec.length - total;
  out.textContent = missing ? tn("lobby.supply.missing", missing, { total, length: spec.length }) : t("lobby.supply.full", { length: spec.length });
  out.classList.toggle("bad", missing !== 0);
}

/** The modules' box: a checkbox per module the server offers, a line on what it adds and its rules' sections. */
function renderModules() {
  const box = $("#modules");
  clear(box);
  const present = MODULES.filter((key) => options[key]);
  $("#modules-box").hidden = !present.length;
  for (const key of present) {
    const info = OPTION_INFO[key];
    const id = `mod-${key}`;
    const input = h("input", { type: "checkbox", id, "data-module": key });
    const row = h(
      "div",
      { class: "module", "data-module-row": key },
      h(
        "label",
        { class: "module-choice", for: id },
        input,
        h("span", { class: "module-text" }, h("b", { class: "module-label", text: optionText(key, "label") || key }), " ", h("span", { class: "muted module-line", text: optionText(key, "line") || "" })),
      ),
      h(
        "p",
        { class: "opt-links module-links" },
        h("a", { class: "rule-link opt-rule", href: ruleHref(info.section), target: "_blank", rel: "noopener", text: t("lobby.rulesSection", { section: info.section }) }),
        h("a", { class: "rule-link base-rule", href: ruleHref(info.rule), target: "_blank", rel: "noopener", title: t("lobby.moduleRule"), text: `§${info.rule}` }),
      ),
      info.baseOnly ? h("p", { class: "module-note", hidden: true, text: t("lobby.baseOnly") }) : null,
      key === "marker_supply" ? supplyEditor() : null,
    );
    input.addEventListener("change", () => {
      row.classList.toggle("on", input.checked);
      if (key === "marker_supply") $("#supply-editor").hidden = !input.checked;
    });
    box.append(row);
  }
  updateSupply();
  updateModules();
}

/** Mission cards only on the base board: off (and not sent) on the expansion maps, a note says why; back on the base
 * board the box is ticked again if it was. */
function updateModules() {
  const input = moduleBox("missions");
  if (!input) return;
  const row = input.closest(".module");
  const off = currentMap() !== "base";
  if (off && !input.disabled) {
    input.dataset.was = input.checked ? "1" : "";
    input.checked = false;
  } else if (!off && input.disabled) input.checked = input.dataset.was === "1";
  input.disabled = off;
  row.classList.toggle("disabled", off);
  row.classList.toggle("on", input.checked);
  row.querySelector(".module-note").hidden = !off;
}

/** The chosen modules as options ({missions: true, marker_supply: [...]}): the ticked boxes that may be chosen. */
function moduleOptions() {
  const out = {};
  for (const key of MODULES) {
    const input = moduleBox(key);
    if (!input || !input.checked || input.disabled) continue;
    out[key] = key === "marker_supply" ? supplyList() : true;
  }
  return out;
}

/** What keeps the modules' choice from being sent (a key of the translations with its parameters), or null. */
function moduleError() {
  const input = moduleBox("marker_supply");
  if (!input || !input.checked) return null;
  const total = supplyTotal();
  return total === supplySpec().length ? null : { key: "lobby.supply.errCount", params: { length: supplySpec().length, total } };
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
    if (options[key] && value !== defaultOf(key)) opts[key] = value;
  });
  Object.assign(opts, moduleOptions());
  if (currentMap() !== "base") opts.map = currentMap();
  if (players.length === 2) {
    const v = variant();
    if (options.two_player_variant && v !== options.two_player_variant.default) opts.two_player_variant = v;
  }
  const body = { players, options: opts, table: { hints: el.hints.checked, hotseat: el.hotseat.checked, spectator_chat: el.spectatorChat.checked, bot_chat: el.botChat.checked } };
  if (el.seed.value.trim() !== "") body.seed = Number(el.seed.value);
  const { clock } = collectClock();
  if (clock) body.clock = clock;
  return body;
}

async function create(ev) {
  ev.preventDefault();
  el.error.hidden = true;
  closeColourMenu();
  if (mode() === "table") {
    await createTable();
    return;
  }
  const body = collect();
  const bad = body.players.find((p) => !p.name);
  if (bad) {
    showError(t("lobby.errNoName"));
    return;
  }
  const colours = body.players.map((p) => p.colour);
  if (new Set(colours).size !== colours.length) {
    showError(t("lobby.errSameColour"));
    return;
  }
  const clockError = collectClock().error;
  if (clockError) {
    showError(t(clockError));
    return;
  }
  const modulesWrong = moduleError();
  if (modulesWrong) {
    showError(t(modulesWrong.key, modulesWrong.params));
    return;
  }
  el.createBtn.disabled = true;
  try {
    const game = await api.createGame(body);
    showCreated(game);
    const { hotseat, seats } = gameLinks(game);
    const entry = {
      id: game.id,
      created: new Date().toISOString(),
      players: game.seats.map((x) => ({ name: x.name, type: x.type, bot: x.bot })),
      open: openLink(game),
      ...(hotseat ? { hotseat } : {}),
      seats: seats.map((x) => ({ name: x.name, url: x.url })),
      spectator: game.spectator_url,
      creatorToken: game.creator_token,
      status: "running",
      note: null,
      seed: game.seed,
      clock: body.clock ? clockSettings(body.clock) : null,
      map: body.options.map || "base",
      played: [],
    };
    saveMine([entry, ...loadMine().filter((g) => g.id !== game.id)]);
    renderMine();
    loadRecent();
  } catch (err) {
    showError(errorMessage(err)); // e.g. 429 "this client may create 10 games a minute; wait 7 s"
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
  const btn = h("button", { type: "button", class: "small copy-btn", text: t("lobby.copy") });
  btn.addEventListener("click", async () => {
    const ok = await copyText(abs);
    btn.textContent = ok ? t("lobby.copied") : t("lobby.copyFailed");
    setTimeout(() => (btn.textContent = t("lobby.copy")), 1500);
  });
  return h("div", { class: "link-row", ...extra }, h("span", { class: "link-label", text: label }), input, btn, h("a", { href: url, class: "small btn", target: "_blank", rel: "noopener", text: t("lobby.open") }));
}

/**
 * The links a creation answer gives to players: a hot-seat game (``table.hotseat``) has one hot-seat link that plays
 * every human seat and no seat links; a game of seat links has a link per human seat and no hot-seat link.  Games of
 * bots only have neither (a hot-seat token without a human seat plays nothing).
 */
function gameLinks(game) {
  const humans = game.seats.filter((x) => x.type === "human");
  const hotseat = game.hotseat_url && humans.length ? game.hotseat_url : null;
  return { hotseat, seats: hotseat ? [] : humans.filter((x) => x.url) };
}

/** The link this browser plays a new game from: the hot-seat link, the first human seat's, or the spectators'. */
function openLink(game) {
  const { hotseat, seats } = gameLinks(game);
  return hotseat || (seats.length ? seats[0].url : game.spectator_url);
}

function showCreated(game) {
  clear(el.created);
  el.created.hidden = false;
  const { hotseat, seats } = gameLinks(game);
  el.created.append(h("h3", { text: t("lobby.created", { id: game.id }) }));
  el.created.append(h("p", { class: "muted", text: hotseat ? t("lobby.hotseat") : seats.length ? t("lobby.sendLinks") : t("lobby.onlyBots") }));
  for (const seat of seats) el.created.append(linkRow(t("lobby.seatLink", { n: seat.seat + 1, name: seat.name }), seat.url, { "data-seat": seat.seat, class: "link-row seat-link" }));
  if (hotseat) el.created.append(linkRow(t("lobby.hotseatLink"), hotseat, { class: "link-row hotseat-link" }));
  el.created.append(linkRow(t("lobby.spectators"), game.spectator_url, { class: "link-row spectator-link" }));
  el.created.append(h("p", null, h("a", { href: openLink(game), class: "btn primary", id: "open-game", text: hotseat ? t("lobby.openHotseat") : t("lobby.openGame") })));
  el.created.scrollIntoView({ behavior: "smooth", block: "nearest" });
}

// ------------------------------------------------------------------ open tables

let account = null; // the signed-in account, or null (a guest)
const GUEST_NAME = "hansa.guestName";

function mode() {
  const r = el.form.querySelector("input[name=mode]:checked");
  return r ? r.value : "links";
}

/** "Open table": its own options, no hot seat and no seed (the table's game takes a random one). */
function updateMode() {
  const open = mode() === "table";
  el.form.classList.toggle("mode-table", open);
  $("#table-box").hidden = !open;
  $("#table-signin").hidden = !open || !!account;
  el.form.querySelector(".hotseat-row").hidden = open;
  el.form.querySelector(".seed-row").hidden = open;
  el.createBtn.textContent = open ? t("tables.open") : t("lobby.create");
  labelOpenSeats();
  updateRated();
}

/** A rated table is for signed-in players: it cannot take guests. */
function updateRated() {
  const rated = $("#table-rated").checked;
  const guests = $("#table-guests");
  if (rated) guests.checked = false;
  guests.disabled = rated;
}

/** POST /api/tables from the form: the first human seat is the creator's, other human seats open, bots at once. */
async function createTable() {
  if (!account) {
    showError(t("tables.signInToOpen"));
    signInFirst();
    return;
  }
  const clockChoice = collectClock();
  if (clockChoice.error) {
    showError(t(clockChoice.error));
    return;
  }
  const modulesWrong = moduleError();
  if (modulesWrong) {
    showError(t(modulesWrong.key, modulesWrong.params));
    return;
  }
  const base = collect();
  const rows = seatRows();
  const firstHuman = rows.find((r) => r.querySelector(".seat-type").value === "human");
  if (!firstHuman) {
    showError(t("tables.errNoSeat"));
    return;
  }
  const body = {
    players: rows.length,
    options: base.options,
    clock: clockChoice.clock,
    table: { hints: el.hints.checked, spectator_chat: el.spectatorChat.checked, bot_chat: el.botChat.checked },
    private: $("#table-private").checked,
    rated: $("#table-rated").checked,
    allow_guests: $("#table-guests").checked && !$("#table-rated").checked,
    sit: true,
    colour: firstHuman.dataset.colour,
    bots: rows.filter((r) => r.querySelector(".seat-type").value === "bot").map((r) => r.querySelector(".seat-bot").value),
  };
  el.createBtn.disabled = true;
  try {
    const table = await api.createTable(body);
    location.assign(table.status === "started" && table.game_url ? table.game_url : table.url);
  } catch (err) {
    showError(errorMessage(err));
    el.createBtn.disabled = false;
  }
}

function showTablesError(message) {
  $("#tables-error").textContent = message;
  $("#tables-error").hidden = !message;
}

/** Take a seat at a listed table: signed in at once; a guest with a name, where guests are welcome. */
async function sitAt(table, btn, nameInput) {
  showTablesError("");
  const body = {};
  if (!account) {
    const name = nameInput ? nameInput.value.trim() : "";
    if (!name) {
      nameInput?.focus();
      showTablesError(t("tables.errGuestName"));
      return;
    }
    body.name = name;
    try {
      localStorage.setItem(GUEST_NAME, name);
    } catch {
      /* storage disabled */
    }
  }
  btn.disabled = true;
  try {
    const joined = await api.joinTable(table.id, body);
    if (joined.table_token) saveTableToken(joined.id, joined.table_token);
    location.assign(tableLinkOf(joined, joined.table_token));
  } catch (err) {
    btn.disabled = false;
    showTablesError(errorMessage(err));
    loadTables();
  }
}

function guestName() {
  try {
    return localStorage.getItem(GUEST_NAME) || "";
  } catch {
    return "";
  }
}

function tableRow(table) {
  const mine = account && table.seats.some((x) => x.kind === "account" && x.name === account.name);
  const players = h("span", { class: "players table-seats" });
  table.seats.forEach((x, i) => {
    if (i) players.append(" · ");
    if (x.kind === "open") players.append(h("span", { class: "open-seat", text: t("tables.openSeat") }));
    else {
      players.append(h("span", { class: "pname", text: x.name }));
      if (x.kind === "bot") players.append(h("span", { class: "tag", text: botLabel(x.bot) }));
      if (x.kind === "guest") players.append(h("span", { class: "tag guest-tag", text: t("tables.guest") }));
    }
  });
  const actions = h("span", { class: "actions" });
  let nameInput = null;
  if (mine) actions.append(h("a", { class: "btn small", href: table.url, text: t("lobby.open") }));
  else if (account || table.allow_guests) {
    if (!account) {
      nameInput = h("input", { class: "guest-name", maxlength: "30", placeholder: t("tables.guestName"), "aria-label": t("tables.guestName"), value: guestName() });
      actions.append(nameInput);
    }
    const btn = h("button", { type: "button", class: "small primary join-btn", text: t("tables.join") });
    btn.addEventListener("click", () => sitAt(table, btn, nameInput));
    actions.append(btn);
  } else actions.append(h("button", { type: "button", class: "small signin-btn", text: t("tables.signInToPlay"), onclick: signInFirst }));
  return h(
    "div",
    { class: "game-item table-item", "data-id": table.id },
    h("span", { class: "seated", title: t("tables.seatedTitle"), text: t("tables.seated", { n: seated(table), of: table.players }) }),
    players,
    h("span", { class: "table-tags" }, ...tableTags(table)),
    h("span", { class: "muted table-by" }, t("tables.by"), " ", h("span", { class: "pname", text: table.creator || "" })),
    actions,
  );
}

let tablesBusy = false;

async function loadTables() {
  if (tablesBusy) return;
  tablesBusy = true;
  const list = $("#open-tables");
  try {
    const data = await api.tables(50);
    // a guest typing a name in a row keeps it: the list is redrawn only when nobody is typing there
    if (list.contains(document.activeElement) && document.activeElement.tagName === "INPUT") return;
    clear(list);
    if (!data.tables.length) list.append(h("p", { class: "muted", text: t("tables.none") }));
    for (const table of data.tables) list.append(tableRow(table));
    showTablesError("");
    document.body.dataset.tables = String(data.tables.length);
  } catch (err) {
    showTablesError(t("tables.errList", { error: errorMessage(err) }));
  } finally {
    tablesBusy = false;
  }
}

// Quick play: a few clocks to choose from (none, real time, turn-based).
const QUICK_CLOCKS = [
  null,
  { kind: "realtime", base: 300, increment: 3 },
  { kind: "realtime", base: 600, increment: 5 },
  { kind: "realtime", base: 1500, increment: 10 },
  { kind: "turn", base: 86400, increment: 0, bank: 86400 },
];

function setupQuick() {
  const sel = $("#quick-clock");
  if (!account) $("#quick-name").value = guestName();
  clear(sel).append(...QUICK_CLOCKS.map((c, i) => h("option", { value: String(i), text: c ? clockSummary(c) : t("lobby.clock.none") })));
  sel.value = "2";
  $("#quick-name-row").hidden = !!account;
  $("#quick-note").hidden = !!account;
  $("#quick-form").addEventListener("submit", quickPlay);
}

async function quickPlay(ev) {
  ev.preventDefault();
  const error = $("#quick-error");
  error.hidden = true;
  const body = { players: Number($("#quick-players").value), clock: QUICK_CLOCKS[Number($("#quick-clock").value)] };
  if (!account) {
    const name = $("#quick-name").value.trim();
    if (!name) {
      error.textContent = t("tables.errGuestName");
      error.hidden = false;
      $("#quick-name").focus();
      return;
    }
    body.name = name;
    try {
      localStorage.setItem(GUEST_NAME, name);
    } catch {
      /* storage disabled */
    }
  }
  const btn = $("#quick-btn");
  btn.disabled = true;
  try {
    const table = await api.quickPlay(body);
    if (table.table_token) saveTableToken(table.id, table.table_token);
    location.assign(tableLinkOf(table, table.table_token));
  } catch (err) {
    btn.disabled = false;
    error.textContent = err.status === 401 ? t("tables.quickNoGuestTable") : errorMessage(err);
    error.hidden = false;
  }
}

// ------------------------------------------------------------------ lists

const deleted = new Set(); // deleted from this page: the server's lobby cache may list them a moment longer

function playersLine(players) {
  const span = h("span", { class: "players" });
  players.forEach((p, i) => {
    if (i) span.append(" · ");
    span.append(h("span", { class: "pname", text: p.name }));
    if (p.type === "bot") span.append(h("span", { class: "tag", text: p.bot ? botLabel(p.bot) : t("lobby.botTag") }));
  });
  return span;
}

/** The server's note on a game that ended early (English), in the page's language when it is one we know. */
function noteText(note) {
  let m;
  if (note === "stopped by its creator") return t("lobby.note.stopped");
  if ((m = /^no move for ([\d.]+) days$/.exec(note))) return tn("lobby.note.idle", Number(m[1]));
  if ((m = /^stopped after (\d+) moves \(the move budget of games between bots\)$/.exec(note))) return tn("lobby.note.budget", Number(m[1]));
  return note;
}

/** The map of a game in the lists (nothing for the base board). */
function mapTag(map) {
  if (!map || map === "base") return null;
  return h("span", { class: `tag map-tag map-${map}`, "data-map": map, title: t("lobby.map"), text: t(`map.${map}`) });
}

function statusTag(status, turn) {
  const known = ["running", "over", "stopped", "abandoned", "damaged"].includes(status);
  const text = status === "running" && turn ? t("lobby.turn", { n: turn }) : known ? t(`lobby.status.${status}`) : status;
  return h("span", { class: `status-tag ${status}`, "data-status": status, text });
}

function showMineError(message) {
  el.myError.textContent = message;
  el.myError.hidden = !message;
}

async function stopGame(g) {
  if (!window.confirm(t("lobby.confirmStop", { id: g.id }))) return;
  showMineError("");
  try {
    const view = await api.stop(g.id, g.creatorToken);
    updateMine(g.id, { status: view.status, note: view.note, seed: view.seed });
  } catch (err) {
    showMineError(t("lobby.errStop", { id: g.id, error: errorMessage(err) }));
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
  if (!window.confirm(t("lobby.confirmDelete", { id: g.id }))) return;
  showMineError("");
  try {
    await api.deleteGame(g.id, g.creatorToken);
  } catch (err) {
    if (err.status !== 404) {
      showMineError(t("lobby.errDelete", { id: g.id, error: errorMessage(err) }));
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

/** The signed-in account's games (its seats, on every device): fetched on load and when the session changes. */
let accountMine = [];

async function loadAccountMine() {
  if (!account) {
    accountMine = [];
  } else {
    try {
      const res = await fetch("/api/account/games", { credentials: "same-origin" });
      accountMine = res.ok ? (await res.json()).games : [];
    } catch {
      accountMine = [];
    }
  }
  renderMine();
}

/** This browser's games, then the account's that this browser holds no link of. */
function mineList() {
  const list = loadMine();
  const have = new Set(list.map((g) => g.id));
  for (const info of accountMine) {
    if (have.has(info.id)) continue;
    list.push({ id: info.id, players: info.players, status: info.status, note: info.note, map: info.map, created: info.updated,
                open: `/game/${encodeURIComponent(info.id)}`, account: true });
  }
  return list;
}

function renderMine() {
  const list = mineList();
  clear(el.myGames);
  if (!list.length) {
    el.myGames.append(h("p", { class: "muted", text: t("lobby.noMine") }));
    return;
  }
  for (const g of list) {
    const status = g.status || "running";
    const button = (label, cls, onclick, title) => h("button", { type: "button", class: `small ${cls}`, text: label, title, onclick });
    // the account's games stay listed (they are its seats): only this browser's links can be forgotten
    const forget = g.account ? null : button(t("lobby.forget"), "forget-btn", () => {
      saveMine(loadMine().filter((x) => x.id !== g.id));
      renderMine();
    }, t("lobby.forgetTitle"));
    const when = new Date(g.created);
    const playable = status !== "damaged";
    el.myGames.append(
      h(
        "div",
        { class: `game-item mine ${status}`, "data-id": g.id, "data-status": status },
        h("code", { text: g.id }),
        playersLine(g.players || []),
        statusTag(status),
        mapTag(g.map),
        g.clock ? h("span", { class: "tag clock-tag", title: t("lobby.clock") }, h("span", { class: "clock-icon", "aria-hidden": "true" }), ` ${clockSummary(g.clock)}`) : null,
        h("span", { class: "muted when", text: isNaN(when) ? "" : when.toLocaleString(language(), { dateStyle: "short", timeStyle: "short" }) }),
        h(
          "span",
          { class: "actions" },
          playable ? h("a", { href: g.open, class: "btn small", text: t("lobby.open") }) : null,
          playable ? h("a", { href: `/replay/${encodeURIComponent(g.id)}`, class: "btn small", text: t("lobby.replay") }) : null,
          g.creatorToken && status === "running" ? button(t("lobby.stop"), "stop-btn", () => stopGame(g), t("lobby.stopTitle")) : null,
          g.creatorToken ? button(t("lobby.delete"), "delete-btn danger", () => deleteGame(g), t("lobby.deleteTitle")) : null,
          forget,
        ),
        g.note && status !== "running" ? h("span", { class: "game-note", text: noteText(g.note) }) : null,
      ),
    );
  }
}

function recentRow(g, my) {
  const shown = laterStatus(my, g); // my own action may be newer than the server's cached lobby page
  const status = shown.status;
  const note = status !== "running" ? shown.note : null;
  const watch = status === "damaged" ? null : h("a", { href: my ? my.open : `/game/${encodeURIComponent(g.id)}`, class: "btn small", text: my ? t("lobby.open") : t("lobby.watch") });
  const replay = status === "damaged" ? null : h("a", { href: `/replay/${encodeURIComponent(g.id)}`, class: "btn small", text: t("lobby.replay") });
  return h(
    "div",
    { class: `game-item ${status}`, "data-id": g.id, "data-status": status },
    h("code", { text: g.id, title: g.seed !== null && g.seed !== undefined ? t("lobby.seedOf", { seed: g.seed }) : null }),
    playersLine(g.players),
    mapTag(g.map),
    statusTag(status, g.turn),
    h("span", { class: "muted", text: g.moves ? tn("lobby.moves", g.moves) : t("lobby.noMoves") }),
    watch || replay ? h("span", { class: "actions" }, watch, replay) : null,
    note ? h("span", { class: "game-note", text: noteText(note) }) : null,
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
  if (!append && !games.length) el.recent.append(h("p", { class: "muted", text: t("lobby.noGames") }));
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
    clear(el.recent).append(h("p", { class: "error", text: t("lobby.errGames", { error: errorMessage(err) }) }));
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
    if (generation === listGeneration) el.recent.append(h("p", { class: "error", text: t("lobby.errMore", { error: errorMessage(err) }) }));
  } finally {
    el.more.disabled = false;
  }
}

/** "Learn to play": a new tutorial game, opened at once (hot seat: this page plays every seat of it).  The creator
 * token goes in the fragment only, so that the tutorial page can stop the game when the learner leaves it. */
async function learn() {
  const btn = $("#learn-btn");
  btn.disabled = true;
  try {
    const game = await api.createTutorial("basics", t("tutorial.you"));
    location.assign(`${game.hotseat_url}&creator=${encodeURIComponent(game.creator_token)}`);
  } catch (err) {
    showError(errorMessage(err));
    btn.disabled = false;
  }
}

async function main() {
  await initLanguage();
  $("#learn-btn").addEventListener("click", learn);
  $("#top-actions").prepend(languagePicker());
  mountAccount($("#top-club"));
  for (const a of document.querySelectorAll("a.rule-link[data-section]")) a.textContent = t("lobby.rulesSection", { section: a.dataset.section });
  el.count.addEventListener("change", renderSeats);
  el.form.addEventListener("submit", create);
  el.refresh.addEventListener("click", loadRecent);
  el.more.addEventListener("click", loadMore);
  el.form.querySelectorAll("input[name=variant]").forEach((r) => r.addEventListener("change", updateOptionRows));
  let shownMap = currentMap();
  el.form.querySelectorAll("input[name=map]").forEach((r) =>
    r.addEventListener("change", () => {
      updateMap(shownMap);
      shownMap = currentMap();
    }),
  );
  $("#reset-options").addEventListener("click", resetOptions);
  setupClock();
  renderMine();
  loadRecent();
  account = await currentAccount();
  document.body.dataset.account = account ? account.name : "";
  loadAccountMine();
  setupQuick();
  onSession((now) => {
    // signed in or out in the top bar: the tables panel, the form and "My games" follow
    account = now;
    document.body.dataset.account = account ? account.name : "";
    loadAccountMine();
    $("#quick-name-row").hidden = !!account;
    $("#quick-note").hidden = !!account;
    updateMode();
    loadTables();
  });
  el.form.querySelectorAll("input[name=mode]").forEach((r) => r.addEventListener("change", updateMode));
  $("#table-rated").addEventListener("change", updateRated);
  $("#table-signin-btn").addEventListener("click", signInFirst);
  $("#refresh-tables").addEventListener("click", loadTables);
  updateMode();
  loadTables();
  setInterval(() => {
    if (document.visibilityState === "visible") loadTables();
  }, 5000);
  window.addEventListener("focus", loadTables);
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && loadTables());
  const colours = loadColours().catch((err) => err);
  try {
    const [b, o] = await Promise.all([api.bots(), api.options()]);
    bots = b;
    options = o.options;
    mapDefaults = o.map_defaults || {};
  } catch (err) {
    showError(t("lobby.errOptions", { error: errorMessage(err) }));
  }
  const pal = await colours;
  if (pal instanceof Error) showError(t("lobby.errColours", { error: errorMessage(pal) }));
  else palette = pal;
  renderOptions();
  renderModules();
  renderSeats();
  updateMap();
  document.body.dataset.ready = "1";
}

main();
