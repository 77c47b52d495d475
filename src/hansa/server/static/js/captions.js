// Plain-language sentences for moves ("Bo displaced your Trader on Hamburg–Lübeck; you relocate it and up to
// 1 more. +0"), for the caption under the board and the move log.  Every sentence is a template with named
// parameters (CAPTION), so that the interface can say it in another language.
//
// caption(entry, ctx) -> {text, points: [[seat, n], ...], keys: [board keys the move touched]}
//   entry: a log entry of the view ({n, seat, turn, move, json, delta})
//   ctx: {players, layout, you: [seats], neutral}

export const CAPTION = {
  place: "{who} placed a {piece} on {route}.",
  displace: "{who} displaced {whose} {victim} on {route}, paying {paid} to the stock.",
  displaceYou: "{who} displaced your {victim} on {route}: you relocate it and up to {extra} more.",
  lift: "{who} picked up a {piece} from {route} (Move).",
  drop: "{who} moved a {piece} to {route}.",
  relocate: "{who} relocated a {piece} to {route}.",
  relocateOther: "{who} relocated {whose} {piece} to {route}.",
  take: "{who} added an extra {piece} to the relocation.",
  takeFrom: "{who} added the {piece} from {route} to the relocation.",
  done: "{who} finished.",
  claim: "{who} claimed {route}{benefit}.",
  claimOffice: " and opened an office in {city}",
  claimExtra: " and opened an extra office in {city}",
  claimAbility: " and improved {ability} ({city})",
  claimTable: " and put a Merchant on the Coellen table ({points} points at the end)",
  claimNothing: " (no benefit)",
  tookMarker: " They took the {marker} bonus marker.",
  income: "{who} took income: {pieces}.",
  use: "{who} used the {marker} bonus marker.",
  improve: "{who} improved {ability}.",
  swap: "{who} swapped two offices in {city}.",
  remove: "{who} removed {whose} {piece} from {route}.",
  shift: "{who} moved {whose} {piece} from {route} to {to}.",
  end: "{who} ended the turn.",
  marker: "{who} placed a {marker} bonus marker on {route}.",
  pawn: "{who} moved the pawn to province {province}.",
  pawnPaid: "{who} moved the pawn to province {province} (1 action).",
  neutralOffice: "The neutral player opened an office in {city}.",
  points: "{name} +{n}",
  you: "You",
  your: "your",
  neutral: "the neutral",
  neutralWhose: "a neutral",
};

export const PIECE = { T: "Trader", M: "Merchant" };
export const ABILITY = { keys: "Keys", actions: "Actions", privilege: "Privilege", book: "Liber Sophiae", bags: "Money bags" };
export const MARKER = {
  "extra-office": "Extra office",
  swap: "Swap offices",
  "+3": "+3 actions",
  "+4": "+4 actions",
  improve: "Improve ability",
  remove3: "Remove 3",
};

/** Fill a template's {names}. */
export function fmt(template, params) {
  return template.replace(/\{(\w+)\}/g, (_, k) => (params[k] === undefined ? `{${k}}` : String(params[k])));
}

export function cityName(ctx, code) {
  const c = ctx.layout && ctx.layout.cities.find((x) => x.code === code);
  return c ? c.name : code;
}

export function routeName(ctx, code) {
  const [a, b] = code.split("-");
  return `${cityName(ctx, a)}–${cityName(ctx, b)}`;
}

function name(ctx, seat) {
  if (seat < 0) return CAPTION.neutral;
  const p = ctx.players[seat];
  return p ? p.name : `seat ${seat + 1}`;
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
  const who = isYou(entry.seat) ? CAPTION.you : name(ctx, entry.seat);
  const whose = (seat) => (seat < 0 ? CAPTION.neutralWhose : isYou(seat) ? CAPTION.your : `${name(ctx, seat)}’s`);
  const keys = [];
  let text;
  const house = j.house;
  if (house) keys.push(`h:${house}`);
  switch (j.type) {
    case "place":
      text = fmt(CAPTION.place, { who, piece: PIECE[j.piece], route: routeName(ctx, routeOf(house)) });
      break;
    case "displace": {
      const victim = before(d, house) || [-1, "T"];
      const route = routeName(ctx, routeOf(house));
      const extra = victim[1] === "M" ? 2 : 1;
      text = isYou(victim[0])
        ? fmt(CAPTION.displaceYou, { who, victim: PIECE[victim[1]], route, extra })
        : fmt(CAPTION.displace, { who, whose: whose(victim[0]), victim: PIECE[victim[1]], route, paid: j.pay ? j.pay.length : extra });
      break;
    }
    case "lift": {
      const p = before(d, house) || [entry.seat, "T"];
      text = fmt(CAPTION.lift, { who, piece: PIECE[p[1]], route: routeName(ctx, routeOf(house)) });
      break;
    }
    case "drop":
      text = fmt(CAPTION.drop, { who, piece: PIECE[j.piece], route: routeName(ctx, routeOf(house)) });
      break;
    case "relocate": {
      const after = d.houses && d.houses[house] ? d.houses[house][1] : [entry.seat, j.piece];
      const route = routeName(ctx, routeOf(house));
      text = after[0] === entry.seat
        ? fmt(CAPTION.relocate, { who, piece: PIECE[j.piece], route })
        : fmt(CAPTION.relocateOther, { who, whose: whose(after[0]), piece: PIECE[j.piece], route });
      break;
    }
    case "take":
      text = fmt(CAPTION.take, { who, piece: PIECE[j.piece] });
      break;
    case "take-from": {
      const p = before(d, house) || [entry.seat, "T"];
      text = fmt(CAPTION.takeFrom, { who, piece: PIECE[p[1]], route: routeName(ctx, routeOf(house)) });
      break;
    }
    case "done":
      text = fmt(CAPTION.done, { who });
      break;
    case "claim": {
      keys.push(`r:${j.route}`);
      let benefit = CAPTION.claimNothing;
      if (j.benefit === "office") benefit = fmt(CAPTION.claimOffice, { city: cityName(ctx, j.target) });
      else if (j.benefit === "extra") benefit = fmt(CAPTION.claimExtra, { city: cityName(ctx, j.target) });
      else if (j.benefit === "ability") {
        const c = ctx.layout && ctx.layout.cities.find((x) => x.code === j.target);
        benefit = fmt(CAPTION.claimAbility, { ability: ABILITY[c && c.ability] || "an ability", city: cityName(ctx, j.target) });
      } else if (j.benefit === "table") {
        const sp = ctx.layout && ctx.layout.coellen_table.find((x) => x.colour === j.target);
        benefit = fmt(CAPTION.claimTable, { points: sp ? sp.points : "?" });
      }
      if (j.target && (j.benefit === "office" || j.benefit === "extra")) keys.push(`c:${j.target}`);
      text = fmt(CAPTION.claim, { who, route: routeName(ctx, j.route), benefit });
      const taken = (d.route_markers || []).find(([r, b, a]) => r === j.route && b && !a);
      if (taken) text += fmt(CAPTION.tookMarker, { marker: MARKER[taken[1]] || taken[1] });
      break;
    }
    case "income": {
      const parts = [];
      if (j.traders) parts.push(`${j.traders} × ${PIECE.T}`);
      if (j.merchants) parts.push(`${j.merchants} × ${PIECE.M}`);
      text = fmt(CAPTION.income, { who, pieces: parts.join(" + ") || "0" });
      break;
    }
    case "use":
      text = fmt(CAPTION.use, { who, marker: MARKER[j.marker] || j.marker });
      break;
    case "improve":
      text = fmt(CAPTION.improve, { who, ability: ABILITY[j.ability] || j.ability });
      break;
    case "swap":
      keys.push(`c:${j.city}`);
      text = fmt(CAPTION.swap, { who, city: cityName(ctx, j.city) });
      break;
    case "remove": {
      const p = before(d, house) || [-1, "T"];
      text = fmt(CAPTION.remove, { who, whose: whose(p[0]), piece: PIECE[p[1]], route: routeName(ctx, routeOf(house)) });
      break;
    }
    case "shift": {
      const p = before(d, house) || [-1, "T"];
      keys.push(`h:${j.to}`);
      text = fmt(CAPTION.shift, { who, whose: whose(p[0]), piece: PIECE[p[1]], route: routeName(ctx, routeOf(house)), to: routeName(ctx, routeOf(j.to)) });
      break;
    }
    case "end":
      text = fmt(CAPTION.end, { who });
      break;
    case "marker":
      keys.push(`r:${j.route}`);
      text = fmt(CAPTION.marker, { who, marker: MARKER[(d.route_markers || []).find(([r]) => r === j.route)?.[2]] || "bonus", route: routeName(ctx, j.route) });
      break;
    case "pawn":
      keys.push(`p:${j.province}`);
      text = fmt(j.paid ? CAPTION.pawnPaid : CAPTION.pawn, { who, province: j.province });
      break;
    case "neutral-office":
      keys.push(`c:${j.city}`);
      text = fmt(CAPTION.neutralOffice, { city: cityName(ctx, j.city) });
      break;
    default:
      text = `${who}: ${entry.move}`;
  }
  // Everything the move changed on the board is part of its place (for marks and hover).
  for (const h of Object.keys(d.houses || {})) if (!keys.includes(`h:${h}`)) keys.push(`h:${h}`);
  for (const [city, i] of d.offices || []) keys.push(`o:${city}:${i}`);
  for (const [city] of d.extra_offices || []) keys.push(`c:${city}`);
  const points = (d.score || []).map((n, seat) => [seat, n]).filter(([, n]) => n);
  return { text, points, keys };
}

/** "Ann +2 · Bo +1" for the points a move scored. */
export function pointsText(points, ctx) {
  return points.map(([seat, n]) => fmt(CAPTION.points, { name: name(ctx, seat), n })).join(" · ");
}
