// HTML panels shared by the game page and the replay viewer: player desks, status line, move log,
// final score table, and human-readable labels for moves.  Names go in with textContent only.

import { h, clear, isLight } from "./dom.js";
import { markerShort, PRIVILEGE_FILL } from "./board.js";
import { caption, pointsText, routeName, pieceName, abilityName, markerName } from "./captions.js";
import { t, tn } from "./i18n.js";
import { deskModules, tileName } from "./modules.js";

/** The abilities in the order of the player board. */
export const ABILITIES = ["keys", "actions", "privilege", "book", "bags"];

export function pieceIcon(kind, colour) {
  return h("span", { class: `pc pc-${kind}`, style: colour ? { "--pc": colour } : undefined, title: pieceName(kind) });
}

export function seatName(ctx, seat) {
  if (seat < 0) return t("board.neutral");
  const p = ctx.players[seat];
  return p ? p.name : t("common.seat", { n: seat + 1 });
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
      if (m.traders) parts.push(tn("move.traders", m.traders));
      if (m.merchants) parts.push(tn("move.merchants", m.merchants));
      return t("move.income", { pieces: parts.join(" + ") || t("move.nothing") });
    }
    case "place":
      // On a route beside Block markers a Place costs more pieces (docs/rules.md §8.8).
      if (m.pay) return t("move.placePay", { piece: pieceName(m.piece), pay: payText(m.pay) });
      return t("move.place", { piece: pieceName(m.piece) });
    case "displace": {
      const pay = [...m.pay].map((x) => pieceName(x)).join(" + ");
      return t("move.displace", { piece: pieceName(m.piece), pay });
    }
    case "lift":
      return t("move.lift");
    case "drop":
      return t("move.drop", { piece: pieceName(m.piece) });
    case "relocate":
      return t("move.relocate", { piece: pieceName(m.piece) });
    case "take":
      return t("move.take", { piece: pieceName(m.piece) });
    case "take-from":
      return t("move.takeFrom");
    case "done":
      if (ctx.phase === "share") return t("move.shareDecline");
      return t(ctx.phase === "remove" ? "move.stopRemoving" : ctx.phase === "permanent" ? "prompt.permanentDone" : "move.done");
    case "claim":
      switch (m.benefit) {
        case "office":
          return t("move.claimOffice", { city: cityName(ctx, m.target) });
        case "extra":
          return t("move.claimExtra", { city: cityName(ctx, m.target), piece: pieceName(m.piece) });
        case "ability":
          return t("move.claimAbility", { ability: m.ability ? abilityName(m.ability) : abilityOfCity(ctx, m.target), city: cityName(ctx, m.target) });
        case "table": {
          const sp = ctx.layout && ctx.layout.coellen_table.find((x) => x.colour === m.target);
          if (ctx.layout && ctx.layout.map) return t("move.claimTableOf", { city: cityName(ctx, ctx.layout.coellen), colour: t(`privilege.${m.target}`), points: sp ? sp.points : "?" });
          return t("move.claimTable", { colour: t(`privilege.${m.target}`), points: sp ? sp.points : "?" });
        }
        default:
          return t("move.claimNothing");
      }
    case "use":
      return t("move.use", { marker: markerName(m.marker) });
    case "improve":
      return t("move.improve", { ability: abilityName(m.ability) });
    case "swap":
      return t("move.swap", { a: m.office, b: m.office + 1, city: cityName(ctx, m.city) });
    case "remove":
      return t("move.remove");
    case "shift":
      return t("move.shift", { to: m.to });
    case "end":
      return t(ctx.phase === "pawn_end" ? "move.endNoPawn" : "move.end");
    case "marker":
      return t("move.marker", { route: routeName(ctx, m.route) });
    case "pawn":
      return t(m.paid ? "move.pawnPaid" : "move.pawn", { province: m.province });
    case "neutral-office":
      return t("move.neutralOffice", { city: cityName(ctx, m.city) });
    case "exchange":
      return t("move.exchange", { a: m.house, b: m.other });
    case "develop":
      return t("move.develop", { ability: abilityName(m.ability) });
    case "green-office":
      return t("move.greenOffice", { city: cityName(ctx, m.city), piece: pieceName(m.piece) });
    // The Big Box modules (docs/rules.md §8).
    case "tile":
      return t("move.tile", { tile: tileName(m.tile), a: markerName(m.first), b: markerName(m.second) });
    case "share":
      return t("move.share", { piece: pieceName(m.piece) });
    case "tribute":
      return t("move.tribute", { pieces: piecesText(m.traders, m.merchants) });
    case "use-exchange":
      return t("move.useExchange", { name: seatName(ctx, m.seat), marker: markerName(m.marker) });
    case "use-tribute":
      return t("move.useTribute", { route: routeName(ctx, m.route) });
    case "use-block":
      return t("move.useBlock", { route: routeName(ctx, m.route) });
    default:
      return m.type;
  }
}

/** "1 Trader", "2 Traders + 1 Merchant": counted pieces in words. */
export function piecesText(traders, merchants) {
  const parts = [];
  if (traders) parts.push(tn("move.traders", traders));
  if (merchants) parts.push(tn("move.merchants", merchants));
  return parts.join(" + ") || t("move.nothing");
}

/** The extra pieces a Place pays for Block markers ("T", "TM"), in words. */
export function payText(pay) {
  const list = [...String(pay)];
  return piecesText(list.filter((x) => x === "T").length, list.filter((x) => x === "M").length);
}

function abilityOfCity(ctx, code) {
  const c = ctx.layout && ctx.layout.cities.find((x) => x.code === code);
  return abilityName(c && c.ability);
}

const PHASES = new Set(["move", "remove", "markers", "pawn_setup", "pawn_end", "neutral_office", "permanent", "share", "tribute"]);

/** The status line, one short line: turn, whose, what is going on, actions used. */
export function renderStatus(el, state, ctx) {
  clear(el);
  const tu = state.turn;
  if (state.over) {
    el.append(h("b", { text: t("status.over") }), " ", tn("status.afterTurns", tu.number));
    return;
  }
  el.append(h("span", { class: "st-turn", text: t("status.turn", { n: tu.number }) }), " · ", nameTag(ctx, tu.current));
  if (tu.relocation) {
    // A displacement: who relocates, from where, and how many more they may take.
    const who = tu.relocation.owner;
    el.append(" · ", nameTag(ctx, tu.decider), h("span", { class: "st-phase", text: " " + t(who < 0 ? "status.relocatesNeutral" : "status.relocates", { route: routeName(ctx, tu.relocation.route) }) }));
  } else if (PHASES.has(tu.phase)) el.append(" · ", h("span", { class: "st-phase", text: t(`phase.${tu.phase}`) }));
  if (tu.phase === "actions" || tu.phase === "move" || tu.phase === "remove") {
    const left = tu.allowance - tu.actions_used;
    el.append(" · ", h("span", { class: "st-actions", title: t("status.actionsTitle"), text: t("status.actions", { used: tu.actions_used, allowance: tu.allowance }) }));
    if (tu.bonus_actions) el.append(h("span", { class: "st-bonus", text: ` (+${tu.bonus_actions})` }));
    el.dataset.left = String(left);
  }
  if (tu.remove_left !== undefined) el.append(h("span", { text: " · " + t("status.toRemove", { n: tu.remove_left }) }));
  if (tu.hand && tu.hand.length) {
    el.append(" · ");
    const col = tu.relocation ? (tu.relocation.owner < 0 ? ctx.neutral : ctx.players[tu.relocation.owner].colour) : ctx.players[tu.current].colour;
    for (const p of tu.hand) el.append(pieceIcon(p, col));
  }
  if (tu.decider !== tu.current && !tu.relocation) el.append(" · " + t("status.decides") + " ", nameTag(ctx, tu.decider));
}

/** Player desks. opts: {you: [seats], ended (no turn to mark: over, stopped...), abilityKeys: Map(ability -> kind),
 * onAbility(ability), clock(seat) -> the seat's clock element or null, note(seat) -> a line under the seat's name
 * (away, takeover votes) or null} */
export function renderDesks(el, state, ctx, opts = {}) {
  clear(el);
  const you = new Set(opts.you || []);
  const tu = state.turn;
  const live = !state.over && !opts.ended;
  state.players.forEach((p) => {
    const info = ctx.players[p.seat] || { name: t("common.seat", { n: p.seat + 1 }), colour: "#777", type: "human" };
    const classes = ["desk"];
    if (live && tu.current === p.seat) classes.push("current");
    if (live && tu.decider === p.seat) classes.push("decider");
    if (you.has(p.seat)) classes.push("you");
    if (live && info.away) classes.push("away");
    if (state.result && state.result.winners.includes(p.seat)) classes.push("winner");
    const desk = h("section", { class: classes.join(" "), style: { "--pc": info.colour }, "data-seat": p.seat });
    const head = h(
      "div",
      { class: "desk-head" },
      h("span", { class: "swatch big" }),
      h("span", { class: "desk-name", text: info.name }),
      info.type === "bot" ? h("span", { class: "tag", text: t("desk.bot", { bot: info.bot || "" }) }) : null,
      you.has(p.seat) ? h("span", { class: "tag you-tag", text: t("desk.you") }) : null,
      live && tu.current === p.seat ? h("span", { class: "tag turn-tag", text: t("desk.turn") }) : null,
      opts.clock ? opts.clock(p.seat) : null,
      deskScore(state, p, info.colour),
    );
    desk.append(head);
    const note = opts.note ? opts.note(p.seat) : null;
    if (note) desk.append(note);
    desk.append(
      h(
        "div",
        { class: "desk-counts" },
        h("span", { class: "cnt", title: t("desk.supplyTitle") }, h("span", { class: "lbl", text: t("desk.supply") }), pieceIcon("T", info.colour), h("b", { text: String(p.supply.T) }), pieceIcon("M", info.colour), h("b", { text: String(p.supply.M) })),
        h("span", { class: "cnt", title: t("desk.stockTitle") }, h("span", { class: "lbl", text: t("desk.stock") }), pieceIcon("T", info.colour), h("b", { text: String(p.stock.T) }), pieceIcon("M", info.colour), h("b", { text: String(p.stock.M) })),
        h("span", { class: "cnt", title: t("desk.officesTitle") }, h("span", { class: "lbl", text: t("desk.offices") }), h("b", { text: String(p.offices) })),
        h("span", { class: `cnt${p.plate ? " plate-full" : ""}`, title: t("desk.plateTitle") }, h("span", { class: "lbl", text: t("desk.plate") }), h("b", { text: String(p.plate) })),
        p.east_west ? h("span", { class: "cnt ew", title: t("desk.ewTitle"), text: t("desk.ew") }) : null,
      ),
    );
    const tracks = h("div", { class: "tracks" });
    for (const key of ABILITIES) {
      const label = t(`abilityShort.${key}`);
      const title = t(`abilityHelp.${key}`);
      const a = p.abilities[key];
      const kind = opts.abilityKeys && you.has(p.seat) && p.seat === tu.decider ? opts.abilityKeys.get(key) : undefined;
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
          cell.title = t("desk.covered", { v: key === "privilege" ? t(`privilege.${v}`) : v });
          cell.append(h("span", { class: `cover ${key === "book" ? "pc-M" : "pc-T"}` }));
          if (key !== "privilege") cell.append(h("span", { class: "tv-small", text: String(v) }));
          else cell.append(h("span", { class: "priv-small", style: { "--fill": PRIVILEGE_FILL[v] } }));
        } else if (key === "privilege") {
          cell.append(h("span", { class: "priv", style: { "--fill": PRIVILEGE_FILL[v] }, title: t(`privilege.${v}`) }));
        } else cell.append(h("span", { class: "tv", text: String(v) }));
        row.append(cell);
      });
      tracks.append(row);
    }
    desk.append(tracks);
    const mk = h("div", { class: "desk-markers" });
    if (p.markers.length || p.used_markers.length) {
      mk.append(h("span", { class: "lbl", text: t("desk.markers") }));
      for (const m of p.markers) mk.append(h("span", { class: "chip", title: t("desk.markerUnused", { marker: markerName(m) }), text: markerShort(m) }));
      for (const m of p.used_markers) mk.append(h("span", { class: "chip used", title: t("desk.markerUsed", { marker: markerName(m) }), text: markerShort(m) }));
    } else mk.append(h("span", { class: "lbl muted", text: t("desk.noMarkers") }));
    desk.append(mk);
    const modules = deskModules(state, p.seat, ctx, routeName);
    if (modules) desk.append(modules);
    el.append(desk);
  });
}

/** The score on a desk: the in-game points while the game runs; at the end the final total (and the in-game). */
function deskScore(state, p, colour) {
  const final = state.result && state.result.scores.find((sc) => sc.player === p.seat);
  const light = isLight(colour) ? " on-light" : ""; // dark digits where they read better (green, teal)
  if (final) {
    return h(
      "span",
      { class: `desk-score final${light}`, title: t("desk.finalTitle", { n: final.in_game }) },
      h("span", { class: "final-total", text: String(final.total) }),
      h("span", { class: "final-ingame", text: " " + t("desk.inGame", { n: final.in_game }) }),
    );
  }
  return h("span", { class: `desk-score${light}`, title: t("desk.scoreTitle"), text: String(p.score) });
}

/**
 * One entry of the move log: the move in a sentence with its points; the notation in a tooltip.
 * opts.onHover(entry | null) when the pointer enters or leaves the entry (the page marks its place on the board).
 */
export function logItem(e, ctx, opts = {}) {
  const c = caption(e, ctx);
  const item = h(
    "li",
    { class: "log-move", "data-n": e.n, "data-turn": e.turn, "data-by": e.by || undefined, title: e.move, tabindex: opts.onHover ? "0" : undefined },
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
  return item;
}

/** The heading of a turn in the move log. */
export const logTurnHead = (turn) => h("li", { class: "log-turn", "data-turn-head": turn, text: t("status.turn", { n: turn }) });

const SCORE_COLS = ["in_game", "abilities", "markers", "coellen", "control", "network", "total"];

/** The score categories of the map: Britannia adds its countries (Wales, and Scotland on the large side); a game with
 * Mission Cards its missions (``result``: the final result, whose scores carry ``missions`` then). */
export function scoreColumns(layout, result = null) {
  const cols = SCORE_COLS.slice(0, -1);
  if (countriesScored(layout).length) cols.push("countries");
  if (result && (result.scores || []).some((sc) => sc.missions !== undefined)) cols.push("missions");
  return [...cols, "total"];
}

/** The countries a map scores at the end (Britannia: ["Wales"] or ["Wales", "Scotland"]). */
export const countriesScored = (layout) => Object.keys((layout && layout.country_scoring) || {});

/** A score category's name, long and short: the special table is named after its city on the expansion maps. */
export function scoreLabel(key, layout) {
  if (key === "coellen" && layout && layout.map) {
    const c = layout.cities.find((x) => x.code === layout.coellen);
    return [t("score.tableOf", { city: c ? c.name : layout.coellen }), t("score.tableOf.short")];
  }
  if (key === "countries") {
    const list = countriesScored(layout);
    // Narrow screens: the countries' initials ("W/S"), so the whole table fits a phone.
    return [list.map((x) => t(`country.${x}`)).join(" + "), list.map((x) => t(`country.${x}.short`).charAt(0)).join("/")];
  }
  return [t(`score.${key}`), t(`score.${key}.short`)];
}

/** A header with a long and a short label (the short one on narrow screens, the long one in its tooltip). */
const headCell = (long, short, key) => h("th", { title: long, "data-col": key }, h("span", { class: "long", text: long }), h("span", { class: "short", text: short }));

/** Final score breakdown (state.result). */
export function scoreTable(result, ctx) {
  const SCORE_COLS = scoreColumns(ctx.layout, result);
  // Eight categories (the missions on the base board): narrower cells on a phone (app.css).
  const table = h("table", { class: `score-table${SCORE_COLS.length >= 8 ? " many" : ""}` });
  table.append(h("thead", null, h("tr", null, h("th", { text: t("score.player") }), ...SCORE_COLS.map((k) => headCell(...scoreLabel(k, ctx.layout), k)))));
  const body = h("tbody");
  const rows = [...result.scores].sort((a, b) => b.total - a.total);
  for (const sc of rows) {
    const win = result.winners.includes(sc.player);
    body.append(
      h(
        "tr",
        { class: win ? "winner" : "", "data-seat": sc.player },
        h("td", null, nameTag(ctx, sc.player), win ? h("span", { class: "win-mark", title: t("score.winner") }, " ★", h("span", { class: "long", text: " " + t("score.winner") })) : null),
        ...SCORE_COLS.map((k) => h("td", { class: k === "total" ? "total" : "", "data-col": k, text: String(sc[k] ?? 0) })),
      ),
    );
  }
  table.append(body);
  return table;
}
