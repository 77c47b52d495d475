// HTML panels shared by the game page and the replay viewer: player desks, status line, move log,
// final score table, and human-readable labels for moves.  Names go in with textContent only.

import { h, clear } from "./dom.js";
import { MARKER_LABEL, MARKER_NAME, PRIVILEGE_FILL } from "./board.js";
import { caption, pointsText, routeName } from "./captions.js";

export const ABILITIES = [
  ["keys", "Keys", "Town keys (network multiplier)"],
  ["actions", "Actions", "Actions per turn"],
  ["privilege", "Privilege", "Privilege: office colours allowed"],
  ["book", "Book", "Liber Sophiae: pieces per Move action"],
  ["bags", "Bags", "Money bags: Income amount"],
];
const ABILITY_NAME = Object.fromEntries(ABILITIES.map(([k, n]) => [k, n]));
const PIECE_NAME = { T: "Trader", M: "Merchant" };

export function pieceIcon(kind, colour) {
  return h("span", { class: `pc pc-${kind}`, style: colour ? { "--pc": colour } : undefined, title: PIECE_NAME[kind] });
}

export function seatName(ctx, seat) {
  if (seat < 0) return "neutral";
  const p = ctx.players[seat];
  return p ? p.name : `seat ${seat + 1}`;
}

/** Only the seat's colour swatch (with its symbol in colour-blind mode), the name in a tooltip: for sentences that
 * name the player themselves. */
export function swatchTag(ctx, seat) {
  const p = seat < 0 ? null : ctx.players[seat];
  const colour = seat < 0 ? ctx.neutral : p && p.colour;
  return h("span", { class: "name-tag swatch-only", style: { "--pc": colour || "#777" }, title: seatName(ctx, seat) }, h("span", { class: "swatch", "data-symbol": seat < 0 ? "N" : (p && p.symbol) || "" }));
}

export function nameTag(ctx, seat) {
  const p = seat < 0 ? null : ctx.players[seat];
  const colour = seat < 0 ? ctx.neutral : p && p.colour;
  const symbol = seat < 0 ? "N" : (p && p.symbol) || "";
  return h("span", { class: "name-tag", style: { "--pc": colour || "#777" } }, h("span", { class: "swatch", "data-symbol": symbol }), h("span", { class: "nm", text: seatName(ctx, seat) }));
}

function cityName(ctx, code) {
  const c = ctx.layout && ctx.layout.cities.find((x) => x.code === code);
  return c ? c.name : code;
}

/** A short human label for a legal move's JSON (used in popups and buttons). */
export function describeMove(m, ctx) {
  switch (m.type) {
    case "income": {
      const parts = [];
      if (m.traders) parts.push(`${m.traders} Trader${m.traders > 1 ? "s" : ""}`);
      if (m.merchants) parts.push(`${m.merchants} Merchant${m.merchants > 1 ? "s" : ""}`);
      return `Income: ${parts.join(" + ") || "nothing"}`;
    }
    case "place":
      return `Place ${PIECE_NAME[m.piece]}`;
    case "displace": {
      const pay = [...m.pay].map((x) => PIECE_NAME[x]).join(" + ");
      return `Displace with ${PIECE_NAME[m.piece]}, pay ${pay}`;
    }
    case "lift":
      return "Lift this piece (Move)";
    case "drop":
      return `Drop ${PIECE_NAME[m.piece]} here`;
    case "relocate":
      return `Relocate ${PIECE_NAME[m.piece]} here`;
    case "take":
      return `Take an extra ${PIECE_NAME[m.piece]}`;
    case "take-from":
      return "Take this piece as an extra";
    case "done":
      return ctx.phase === "remove" ? "Stop removing" : "Done (no more extras)";
    case "claim":
      switch (m.benefit) {
        case "office":
          return `Office in ${cityName(ctx, m.target)}`;
        case "extra":
          return `Extra office in ${cityName(ctx, m.target)} (with a ${PIECE_NAME[m.piece]})`;
        case "ability":
          return `Improve ${abilityOfCity(ctx, m.target)} (${cityName(ctx, m.target)})`;
        case "table": {
          const sp = ctx.layout && ctx.layout.coellen_table.find((x) => x.colour === m.target);
          return `Coellen table, ${m.target} space${sp ? `: ${sp.points} points at the end` : ""}`;
        }
        default:
          return `No benefit (points and marker only)`;
      }
    case "use":
      return `Use ${MARKER_NAME[m.marker] || m.marker}`;
    case "improve":
      return `Improve ${ABILITY_NAME[m.ability] || m.ability}`;
    case "swap":
      return `Swap offices ${m.office} ↔ ${m.office + 1} in ${cityName(ctx, m.city)}`;
    case "remove":
      return "Remove this piece";
    case "shift":
      return `Move piece to ${m.to}`;
    case "end":
      return ctx.phase === "pawn_end" ? "End turn (no pawn move)" : "End turn";
    case "marker":
      return `Place the bonus marker on ${routeName(ctx, m.route)}`;
    case "pawn":
      return `Pawn to ${m.province}${m.paid ? " (costs 1 action)" : ""}`;
    case "neutral-office":
      return `Neutral office in ${cityName(ctx, m.city)}`;
    default:
      return m.type;
  }
}

function abilityOfCity(ctx, code) {
  const c = ctx.layout && ctx.layout.cities.find((x) => x.code === code);
  return c && c.ability ? ABILITY_NAME[c.ability] || c.ability : "ability";
}

const PHASE_TEXT = {
  move: "moving pieces",
  remove: "Remove 3",
  markers: "placing bonus markers",
  pawn_setup: "placing the pawn",
  pawn_end: "free pawn move",
  neutral_office: "the neutral office's city",
};

/** The status line, one short line: turn, whose, what is going on, actions used. */
export function renderStatus(el, state, ctx) {
  clear(el);
  const t = state.turn;
  if (state.over) {
    el.append(h("b", { text: "Game over" }), ` after ${t.number} turns`);
    return;
  }
  el.append(h("span", { class: "st-turn", text: `Turn ${t.number}` }), " · ", nameTag(ctx, t.current));
  if (t.relocation) {
    // A displacement: who relocates, from where, and how many more they may take.
    const who = t.relocation.owner;
    el.append(" · ", nameTag(ctx, t.decider), h("span", { class: "st-phase", text: ` relocates${who < 0 ? " neutral" : ""} from ${routeName(ctx, t.relocation.route)}` }));
  } else if (PHASE_TEXT[t.phase]) el.append(" · ", h("span", { class: "st-phase", text: PHASE_TEXT[t.phase] }));
  if (t.phase === "actions" || t.phase === "move" || t.phase === "remove") {
    const left = t.allowance - t.actions_used;
    el.append(" · ", h("span", { class: "st-actions", title: "actions used / allowance this turn", text: `${t.actions_used}/${t.allowance} actions` }));
    if (t.bonus_actions) el.append(h("span", { class: "st-bonus", text: ` (+${t.bonus_actions})` }));
    el.dataset.left = String(left);
  }
  if (t.remove_left !== undefined) el.append(h("span", { text: ` · ${t.remove_left} to remove` }));
  if (t.hand && t.hand.length) {
    el.append(" · ");
    const col = t.relocation ? (t.relocation.owner < 0 ? ctx.neutral : ctx.players[t.relocation.owner].colour) : ctx.players[t.current].colour;
    for (const p of t.hand) el.append(pieceIcon(p, col));
  }
  if (t.decider !== t.current && !t.relocation) el.append(" · decides: ", nameTag(ctx, t.decider));
}

/** Player desks. opts: {you: [seats], ended (no turn to mark: over, stopped...), abilityKeys: Map(ability -> kind),
 * onAbility(ability)} */
export function renderDesks(el, state, ctx, opts = {}) {
  clear(el);
  const you = new Set(opts.you || []);
  const t = state.turn;
  const live = !state.over && !opts.ended;
  state.players.forEach((p) => {
    const info = ctx.players[p.seat] || { name: `seat ${p.seat + 1}`, colour: "#777", type: "human" };
    const classes = ["desk"];
    if (live && t.current === p.seat) classes.push("current");
    if (live && t.decider === p.seat) classes.push("decider");
    if (you.has(p.seat)) classes.push("you");
    if (state.result && state.result.winners.includes(p.seat)) classes.push("winner");
    const desk = h("section", { class: classes.join(" "), style: { "--pc": info.colour }, "data-seat": p.seat });
    const head = h(
      "div",
      { class: "desk-head" },
      h("span", { class: "swatch big" }),
      h("span", { class: "desk-name", text: info.name }),
      info.type === "bot" ? h("span", { class: "tag", text: `bot ${info.bot || ""}` }) : null,
      you.has(p.seat) ? h("span", { class: "tag you-tag", text: "you" }) : null,
      live && t.current === p.seat ? h("span", { class: "tag turn-tag", text: "turn" }) : null,
      deskScore(state, p),
    );
    desk.append(head);
    desk.append(
      h(
        "div",
        { class: "desk-counts" },
        h("span", { class: "cnt", title: "supply (usable pieces)" }, h("span", { class: "lbl", text: "Supply" }), pieceIcon("T", info.colour), h("b", { text: String(p.supply.T) }), pieceIcon("M", info.colour), h("b", { text: String(p.supply.M) })),
        h("span", { class: "cnt", title: "stock" }, h("span", { class: "lbl", text: "Stock" }), pieceIcon("T", info.colour), h("b", { text: String(p.stock.T) }), pieceIcon("M", info.colour), h("b", { text: String(p.stock.M) })),
        h("span", { class: "cnt", title: "offices on the board" }, h("span", { class: "lbl", text: "Offices" }), h("b", { text: String(p.offices) })),
        h("span", { class: `cnt${p.plate ? " plate-full" : ""}`, title: "face-down replacement markers on the plate" }, h("span", { class: "lbl", text: "Plate" }), h("b", { text: String(p.plate) })),
        p.east_west ? h("span", { class: "cnt ew", title: "East-West bonus received", text: "E–W ✓" }) : null,
      ),
    );
    const tracks = h("div", { class: "tracks" });
    for (const [key, label, title] of ABILITIES) {
      const a = p.abilities[key];
      const kind = opts.abilityKeys && you.has(p.seat) && p.seat === t.decider ? opts.abilityKeys.get(key) : undefined;
      const row = h("div", { class: `track-row${kind ? ` hl hl-${kind}` : ""}`, title, "data-ability": key });
      if (kind && opts.onAbility) row.addEventListener("click", () => opts.onAbility(key));
      row.append(h("span", { class: "track-label", text: label }));
      a.track.forEach((v, i) => {
        const cls = ["tcell"];
        if (i === a.level) cls.push("now");
        if (i > a.level) cls.push("covered");
        const cell = h("span", { class: cls.join(" ") });
        if (i > a.level) {
          // Still covered by a piece of the player's colour (Merchants on the Book track).
          cell.title = `${v} (covered)`;
          cell.append(h("span", { class: `cover ${key === "book" ? "pc-M" : "pc-T"}` }));
          if (key !== "privilege") cell.append(h("span", { class: "tv-small", text: String(v) }));
          else cell.append(h("span", { class: "priv-small", style: { "--fill": PRIVILEGE_FILL[v] } }));
        } else if (key === "privilege") {
          cell.append(h("span", { class: "priv", style: { "--fill": PRIVILEGE_FILL[v] }, title: v }));
        } else cell.append(h("span", { class: "tv", text: String(v) }));
        row.append(cell);
      });
      tracks.append(row);
    }
    desk.append(tracks);
    const mk = h("div", { class: "desk-markers" });
    if (p.markers.length || p.used_markers.length) {
      mk.append(h("span", { class: "lbl", text: "Markers" }));
      for (const m of p.markers) mk.append(h("span", { class: "chip", title: `${MARKER_NAME[m] || m} (unused)`, text: MARKER_LABEL[m] || m }));
      for (const m of p.used_markers) mk.append(h("span", { class: "chip used", title: `${MARKER_NAME[m] || m} (used)`, text: MARKER_LABEL[m] || m }));
    } else mk.append(h("span", { class: "lbl muted", text: "No bonus markers" }));
    desk.append(mk);
    el.append(desk);
  });
}

/** The score on a desk: the in-game points while the game runs; at the end the final total (and the in-game). */
function deskScore(state, p) {
  const final = state.result && state.result.scores.find((sc) => sc.player === p.seat);
  if (final) {
    return h(
      "span",
      { class: "desk-score final", title: `final score (in game ${final.in_game})` },
      h("span", { class: "final-total", text: String(final.total) }),
      h("span", { class: "final-ingame", text: ` (${final.in_game} in game)` }),
    );
  }
  return h("span", { class: "desk-score", title: "in-game score", text: String(p.score) });
}

/**
 * The move log (view.log), newest last: every move in a sentence with its points; the notation in a tooltip.
 * opts.onHover(entry | null) when the pointer enters or leaves an entry (the page marks its place on the board).
 */
export function renderLog(el, log, ctx, opts = {}) {
  const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 30;
  clear(el);
  let turn = null;
  const list = h("ol", { class: "log-list" });
  for (const e of log) {
    if (e.turn !== turn) {
      turn = e.turn;
      list.append(h("li", { class: "log-turn", text: `Turn ${turn}` }));
    }
    const c = caption(e, ctx);
    const item = h(
      "li",
      { class: "log-move", "data-n": e.n, title: e.move, tabindex: opts.onHover ? "0" : undefined },
      h("span", { class: "log-n", text: String(e.n) }),
      swatchTag(ctx, e.seat),
      h("span", { class: "log-text", text: c.text }),
      c.points.length ? h("span", { class: "log-points", text: pointsText(c.points, ctx) }) : null,
      h("code", { class: "log-move-text", text: e.move }),
    );
    if (opts.onHover) {
      item.addEventListener("pointerenter", () => opts.onHover(e));
      item.addEventListener("pointerleave", () => opts.onHover(null));
      item.addEventListener("focus", () => opts.onHover(e));
      item.addEventListener("blur", () => opts.onHover(null));
    }
    list.append(item);
  }
  if (!log.length) list.append(h("li", { class: "muted", text: "No moves yet." }));
  el.append(list);
  if (atBottom || el.dataset.init !== "1") el.scrollTop = el.scrollHeight;
  el.dataset.init = "1";
}

const SCORE_COLS = [
  ["in_game", "In game", "Game"],
  ["abilities", "Abilities", "Abil."],
  ["markers", "Markers", "Mark."],
  ["coellen", "Coellen", "Coel."],
  ["control", "Control", "Ctrl"],
  ["network", "Network", "Net"],
  ["total", "Total", "Total"],
];

/** A header with a long and a short label (the short one on narrow screens, the long one in its tooltip). */
const headCell = (long, short) => h("th", { title: long }, h("span", { class: "long", text: long }), h("span", { class: "short", text: short }));

/** Final score breakdown (state.result). */
export function scoreTable(result, ctx) {
  const table = h("table", { class: "score-table" });
  table.append(h("thead", null, h("tr", null, h("th", { text: "Player" }), ...SCORE_COLS.map(([, long, short]) => headCell(long, short)))));
  const body = h("tbody");
  const rows = [...result.scores].sort((a, b) => b.total - a.total);
  for (const sc of rows) {
    const win = result.winners.includes(sc.player);
    body.append(
      h(
        "tr",
        { class: win ? "winner" : "", "data-seat": sc.player },
        h("td", null, nameTag(ctx, sc.player), win ? h("span", { class: "win-mark", title: "winner" }, " ★", h("span", { class: "long", text: " winner" })) : null),
        ...SCORE_COLS.map(([k]) => h("td", { class: k === "total" ? "total" : "", text: String(sc[k]) })),
      ),
    );
  }
  table.append(body);
  return table;
}
