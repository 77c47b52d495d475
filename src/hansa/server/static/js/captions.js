// Plain-language sentences for moves ("Bo displaced your Trader on Hamburg–Lübeck; you relocate it and up to
// 1 more. +0"), for the caption under the board and the move log.  Every sentence is a template with named
// parameters in the language files (cap.* in /static/i18n/<lang>.json).
//
// caption(entry, ctx) -> {text, points: [[seat, n], ...], keys: [board keys the move touched]}
//   entry: a log entry of the view ({n, seat, turn, move, json, delta, by})
//   ctx: {players, layout, you: [seats], neutral}
// A move a bot made for a human seat (by "bot") or the clock made when the seat's time ran out (by "clock") is
// told as theirs: "The bot, for Ann, placed …", "Ann's time ran out: the clock ended the turn."

import { t, tn } from "./i18n.js";


/** The piece, ability and marker names of the current language. */
export const pieceName = (kind) => t(`piece.${kind}`);
export const abilityName = (ability) => (ability ? t(`ability.${ability}`) : t("cap.anAbility"));
export const markerName = (marker) => (marker ? t(`marker.${marker}`) : t("cap.bonus"));

export function cityName(ctx, code) {
  const c = ctx.layout && ctx.layout.cities.find((x) => x.code === code);
  return c ? c.name : code;
}

export function routeName(ctx, code) {
  const [a, b] = code.split("-");
  return `${cityName(ctx, a)}–${cityName(ctx, b)}`;
}

function name(ctx, seat) {
  if (seat < 0) return t("cap.neutral");
  const p = ctx.players[seat];
  return p ? p.name : t("common.seat", { n: seat + 1 });
}

const routeOf = (house) => house.slice(0, house.lastIndexOf(":"));

/** The piece that stood on ``house`` before the move (from the delta), as [owner, kind]. */
function before(delta, house) {
  const d = delta && delta.houses && delta.houses[house];
  return d ? d[0] : null;
}

export function caption(entry, ctx) {
  const j = entry.json || {};
  const d = entry.delta || {};
  const you = new Set(ctx.you || []);
  const single = you.size === 1; // "you" reads well only for one seat (not for a hot-seat table)
  const isYou = (seat) => single && you.has(seat);
  // Who made the move: the seat's player, or for them the bot that plays their seat (taken over on a vote, or away
  // after a timeout) or the clock when their time ran out (entry.by, the kind of token that made it).
  const mover = ctx.players && ctx.players[entry.seat];
  const byBot = entry.by === "bot" && !!mover && (mover.type === "human" || !!mover.taken_over);
  const byClock = entry.by === "clock" && !!mover;
  const forYou = isYou(entry.seat);
  let who = forYou ? t("cap.you") : name(ctx, entry.seat);
  if (byBot) who = forYou ? t("cap.botForYou") : t("cap.botFor", { name: name(ctx, entry.seat) });
  else if (byClock) who = forYou ? t("cap.clockForYou") : t("cap.clockFor", { name: name(ctx, entry.seat) });
  const whose = (seat) => (seat < 0 ? t("cap.neutralWhose") : isYou(seat) ? t("cap.your") : t("cap.whose", { name: name(ctx, seat) }));
  const keys = [];
  let text;
  const house = j.house;
  if (house) keys.push(`h:${house}`);
  switch (j.type) {
    case "place":
      text = j.pay // beside Block markers: the extra pieces to the stock (docs/rules.md §8.8)
        ? t("cap.placePay", { who, piece: pieceName(j.piece), route: routeName(ctx, routeOf(house)), pay: payWords(j.pay) })
        : t("cap.place", { who, piece: pieceName(j.piece), route: routeName(ctx, routeOf(house)) });
      break;
    case "displace": {
      const victim = before(d, house) || [-1, "T"];
      const route = routeName(ctx, routeOf(house));
      const extra = victim[1] === "M" ? 2 : 1;
      text = isYou(victim[0])
        ? t("cap.displaceYou", { who, victim: pieceName(victim[1]), route, extra })
        : t("cap.displace", { who, whose: whose(victim[0]), victim: pieceName(victim[1]), route, paid: j.pay ? j.pay.length : extra });
      break;
    }
    case "lift": {
      const p = before(d, house) || [entry.seat, "T"];
      text = t("cap.lift", { who, piece: pieceName(p[1]), route: routeName(ctx, routeOf(house)) });
      break;
    }
    case "drop":
      text = t("cap.drop", { who, piece: pieceName(j.piece), route: routeName(ctx, routeOf(house)) });
      break;
    case "relocate": {
      const after = d.houses && d.houses[house] ? d.houses[house][1] : [entry.seat, j.piece];
      const route = routeName(ctx, routeOf(house));
      text = after[0] === entry.seat
        ? t("cap.relocate", { who, piece: pieceName(j.piece), route })
        : t("cap.relocateOther", { who, whose: whose(after[0]), piece: pieceName(j.piece), route });
      break;
    }
    case "take":
      text = t("cap.take", { who, piece: pieceName(j.piece) });
      break;
    case "take-from": {
      const p = before(d, house) || [entry.seat, "T"];
      text = t("cap.takeFrom", { who, piece: pieceName(p[1]), route: routeName(ctx, routeOf(house)) });
      break;
    }
    case "done":
      // Declining the Emperor's Favour share of another's Income (docs/rules.md §8.4) is a "done" too.
      text = d.turn && d.turn.phase && d.turn.phase[0] === "share" ? t("cap.shareDecline", { who }) : t("cap.done", { who });
      break;
    case "claim": {
      keys.push(`r:${j.route}`);
      let benefit = t("cap.claimNothing");
      if (j.benefit === "office") benefit = t("cap.claimOffice", { city: cityName(ctx, j.target) });
      else if (j.benefit === "extra") benefit = t("cap.claimExtra", { city: cityName(ctx, j.target) });
      else if (j.benefit === "ability") {
        const c = ctx.layout && ctx.layout.cities.find((x) => x.code === j.target);
        benefit = t("cap.claimAbility", { ability: abilityName(j.ability || (c && c.ability)), city: cityName(ctx, j.target) });
      } else if (j.benefit === "table") {
        const sp = ctx.layout && ctx.layout.coellen_table.find((x) => x.colour === j.target);
        benefit = ctx.layout && ctx.layout.map
          ? t("cap.claimTableOf", { city: cityName(ctx, ctx.layout.coellen), points: sp ? sp.points : "?" })
          : t("cap.claimTable", { points: sp ? sp.points : "?" });
      }
      if (j.target && (j.benefit === "office" || j.benefit === "extra")) keys.push(`c:${j.target}`);
      text = t("cap.claim", { who, route: routeName(ctx, j.route), benefit });
      const taken = (d.route_markers || []).find(([r, b, a]) => r === j.route && b && !a);
      if (taken) text += t("cap.tookMarker", { who, marker: markerName(taken[1]) }); // the same person as the claim: "You … You took …"
      break;
    }
    case "income": {
      const parts = [];
      if (j.traders) parts.push(`${j.traders} × ${pieceName("T")}`);
      if (j.merchants) parts.push(`${j.merchants} × ${pieceName("M")}`);
      text = t("cap.income", { who, pieces: parts.join(" + ") || "0" });
      break;
    }
    case "use":
      text = t("cap.use", { who, marker: markerName(j.marker) });
      break;
    case "improve":
      text = t("cap.improve", { who, ability: abilityName(j.ability) });
      break;
    case "swap":
      keys.push(`c:${j.city}`);
      text = t("cap.swap", { who, city: cityName(ctx, j.city) });
      break;
    case "remove": {
      const p = before(d, house) || [-1, "T"];
      text = t("cap.remove", { who, whose: whose(p[0]), piece: pieceName(p[1]), route: routeName(ctx, routeOf(house)) });
      break;
    }
    case "shift": {
      const p = before(d, house) || [-1, "T"];
      keys.push(`h:${j.to}`);
      text = t("cap.shift", { who, whose: whose(p[0]), piece: pieceName(p[1]), route: routeName(ctx, routeOf(house)), to: routeName(ctx, routeOf(j.to)) });
      break;
    }
    case "end":
      if (byClock) text = forYou ? t("cap.clockEndYou") : t("cap.clockEnd", { name: name(ctx, entry.seat) });
      else text = t("cap.end", { who });
      break;
    case "marker":
      keys.push(`r:${j.route}`);
      text = t("cap.marker", { who, marker: markerName((d.route_markers || []).find(([r]) => r === j.route)?.[2]), route: routeName(ctx, j.route) });
      break;
    case "pawn":
      keys.push(`p:${j.province}`);
      text = t(j.paid ? "cap.pawnPaid" : "cap.pawn", { who, province: j.province });
      break;
    case "neutral-office":
      keys.push(`c:${j.city}`);
      text = t("cap.neutralOffice", { city: cityName(ctx, j.city) });
      break;
    case "exchange": {
      // Move any 2 (a permanent marker): two pieces exchange places.
      const a = before(d, j.house) || [-1, "T"];
      const b = before(d, j.other) || [-1, "T"];
      keys.push(`h:${j.other}`);
      text = t("cap.exchange", { who, a: `${whose(a[0])} ${pieceName(a[1])}`, b: `${whose(b[0])} ${pieceName(b[1])}`, from: routeName(ctx, routeOf(j.house)), to: routeName(ctx, routeOf(j.other)) });
      break;
    }
    case "develop":
      text = t("cap.develop", { who, ability: abilityName(j.ability) });
      break;
    case "green-office":
      keys.push(`c:${j.city}`);
      text = t("cap.greenOffice", { who, piece: pieceName(j.piece), city: cityName(ctx, j.city) });
      break;
    // The Big Box modules (docs/rules.md §8).
    case "tile":
      text = t("cap.tile", { who, tile: t(`favour.${j.tile}`), code: j.tile, a: markerName(j.first), b: markerName(j.second) });
      break;
    case "share":
      text = t("cap.share", { who, piece: pieceName(j.piece) });
      break;
    case "tribute":
      text = t("cap.tribute", { who, pieces: piecesWords(j.traders, j.merchants) });
      break;
    case "use-exchange":
      text = t("cap.useExchange", { who, marker: markerName(j.marker), name: name(ctx, j.seat) });
      break;
    case "use-tribute":
      keys.push(`r:${j.route}`);
      text = t("cap.useTribute", { who, route: routeName(ctx, j.route) });
      break;
    case "use-block":
      keys.push(`r:${j.route}`);
      text = t("cap.useBlock", { who, route: routeName(ctx, j.route) });
      break;
    default:
      text = t("cap.unknown", { who, move: entry.move });
  }
  // Tributes the move made other seats' stocks pay at once (no choice to make): say who received how much.
  if (["claim", "use", "green-office"].includes(j.type)) text += tributesPaid(d, ctx, entry.seat, releasedPiece(j, ctx));
  // Everything the move changed on the board is part of its place (for marks and hover).
  for (const h of Object.keys(d.houses || {})) if (!keys.includes(`h:${h}`)) keys.push(`h:${h}`);
  for (const [city, i] of d.offices || []) keys.push(`o:${city}:${i}`);
  for (const [city] of d.extra_offices || []) keys.push(`c:${city}`);
  for (const [city] of d.right_offices || []) if (!keys.includes(`c:${city}`)) keys.push(`c:${city}`);
  const points = (d.score || []).map((n, seat) => [seat, n]).filter(([, n]) => n);
  return { text, points, keys };
}

/** "2 Traders + 1 Merchant" in words. */
function piecesWords(traders, merchants) {
  const parts = [];
  if (traders) parts.push(tn("move.traders", traders));
  if (merchants) parts.push(tn("move.merchants", merchants));
  return parts.join(" + ") || t("move.nothing");
}

/** The extra pieces of a Place beside Block markers ("T", "TM") in words. */
function payWords(pay) {
  const list = [...String(pay)];
  return piecesWords(list.filter((x) => x === "T").length, list.filter((x) => x === "M").length);
}

/** The piece a claim for an ability releases into the claimer's Supply: a Merchant from the Liber Sophiae track,
 * else a Trader (null: no ability claimed). */
function releasedPiece(j, ctx) {
  if (j.type !== "claim" || j.benefit !== "ability") return null;
  const c = ctx.layout && ctx.layout.cities.find((x) => x.code === j.target);
  return (j.ability || (c && c.ability)) === "book" ? "M" : "T";
}

/** " Bo received a tribute of 2 Traders." for every seat whose Supply grew in a move that established an office
 * (the Tribute markers pay from the Stock into the Supply, docs/rules.md §8.7): besides a tribute only the piece an
 * ability claim releases makes a Supply grow there (``released``, the claimer's). */
function tributesPaid(d, ctx, mover, released) {
  let out = "";
  for (const [seat, key, before, after] of d.players || []) {
    if (key !== "supply" || !before || !after) continue;
    let traders = after.T - before.T;
    let merchants = after.M - before.M;
    if (seat === mover && released === "T") traders -= 1;
    if (seat === mover && released === "M") merchants -= 1;
    if (traders < 0 || merchants < 0 || traders + merchants <= 0) continue;
    out += t("cap.tributePaid", { name: name(ctx, seat), pieces: piecesWords(traders, merchants) });
  }
  return out;
}

/** "Ann +2 · Bo +1" for the points a move scored. */
export function pointsText(points, ctx) {
  return points.map(([seat, n]) => t("cap.points", { name: name(ctx, seat), n })).join(" · ");
}
