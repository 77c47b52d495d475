// SVG board renderer, shared by the game page and the replay viewer.
//
// new BoardView(container, layout, {onClick}) draws the board of GET /api/boards/{side}; render(state, colours, hl)
// draws a public state on it.  Every clickable thing carries data-key:
//   h:<house>  r:<route>  c:<city>  o:<city>:<index>  t:<table colour>  p:<province>
// hl = {keys: Map(key -> kind), selected: Set(key)} marks legal targets (kind picks the highlight colour); they are
// focusable (Tab) and act on Enter/Space like a click.
// setMarks(Map(key -> kind)) rings places that changed ("last": the latest moves of others, "hover": a log entry
// under the pointer, "hint": a suggested move); animate(delta, sources, ms) flies pieces to where a move put them.
// Every piece carries its owner's symbol, shown in colour-blind mode (body.cb-mode).

import { s, clear } from "./dom.js";
import { t } from "./i18n.js";

const BASE_WIDTH = 1071; // the 4-5 side; the 2-3 side is drawn at a larger scale
const BASE_HEIGHT = 830;
/** The smallest a house's tap area (22 k units) is drawn on a wide screen, in CSS px: the base board's at 1280x800. */
const HOUSE_PX = 18.5;
/** Britannia's countries: the colour of their routes and city banners (England's routes are the plain ones). */
export const COUNTRY_COLOUR = { England: "#efe3c0", Wales: "#93592a", Scotland: "#2f68b0" };
/** The permanent markers of the expansion maps' sea routes: a symbol drawn on the badge. */
const PERMANENT_ICON = {
  move_any_2: "⇄",
  develop_privilege: "▲",
  office_in_green_city: "⌂",
  reuse_2_from_route: "↻",
  place_2_in_wales_or_scotland: "⤵",
};
/** The name of a permanent effect for its texts: *place 2* names only Wales on Britannia's small side. */
export function permanentKey(effect, layout) {
  if (effect === "place_2_in_wales_or_scotland" && layout && !layout.routes.some((r) => r.country === "Scotland")) return "place_2_wales";
  return effect;
}
export const permanentShort = (effect, layout) => t(`permShort.${permanentKey(effect, layout)}`);
/** The whole rule of a permanent marker (on Britannia, moved pieces stay in their country). */
export function permanentFull(effect, layout) {
  const text = t(`perm.${permanentKey(effect, layout)}`);
  return layout && layout.map === "britannia" && effect === "move_any_2" ? `${text} ${t("perm.countryNote")}` : text;
}
export const PRIVILEGE_FILL = { white: "#fbf8ef", orange: "#f08c2b", pink: "#e977ab", black: "#2a2a2a" };
/** Short labels drawn on the board: "Keys", "Off+", ...; the full names are ability.* and marker.*. */
export const abilityShort = (ability) => t(`abilityShort.${ability}`);
export const markerShort = (type) => t(`markerShort.${type}`);
const markerFull = (type) => t(`marker.${type}`);

function bezier(a, c, b, f) {
  const u = 1 - f;
  return [u * u * a[0] + 2 * u * f * c[0] + f * f * b[0], u * u * a[1] + 2 * u * f * c[1] + f * f * b[1]];
}

/** The width of an SVG text in its own units as drawn (the fonts of this browser), or ``guess`` while it is not
 * laid out (a hidden page). */
function textWidth(el, guess) {
  try {
    const w = el.getComputedTextLength();
    return w > 0 ? w : guess;
  } catch {
    return guess;
  }
}

export class BoardView {
  constructor(container, layout, { onClick, trackIn } = {}) {
    this.layout = layout;
    // The pieces' size follows the board's width, or its area where that is larger (Britannia's tall canvas has
    // room for larger pieces than its width alone would give).
    this.k = Math.max(layout.width / BASE_WIDTH, 0.9 * Math.sqrt((layout.width * layout.height) / (BASE_WIDTH * BASE_HEIGHT)));
    this.expansion = !!layout.map;
    this.onClick = onClick || (() => {});
    this.cityByCode = new Map(layout.cities.map((c) => [c.code, c]));
    this.routeByCode = new Map(layout.routes.map((r) => [r.code, r]));
    this.provinceByCode = new Map((layout.provinces || []).map((p) => [p.code, p]));
    this.computeGeometry();
    this.placeProvinces();

    this.svg = s("svg", {
      class: "board",
      viewBox: `0 0 ${layout.width} ${layout.height}`,
      role: "img",
      "aria-label": layout.map ? t("board.ariaMap", { map: t(`map.${layout.map}`) }) : t("board.aria", { side: layout.side }),
    });
    // Beside the side column a tall map is fitted to the window's height (app.css), but never drawn so small that a
    // house's tap area is under HOUSE_PX CSS px (the base board's at 1280x800): the floor of that height.
    this.svg.style.setProperty("--board-floor", `${Math.ceil((layout.height * HOUSE_PX) / (22 * this.k))}px`);
    this.track = s("svg", { class: "track", viewBox: "0 0 1000 92", role: "img", "aria-label": t("board.track") });
    clear(container);
    container.append(this.svg);
    if (trackIn) clear(trackIn).append(this.track);
    else container.append(this.track);
    this.svg.addEventListener("click", (ev) => this.handleClick(ev));
    this.svg.addEventListener("keydown", (ev) => this.handleKey(ev));
    this.marks = new Map();
    this.drawStatic();
  }

  handleClick(ev) {
    const el = ev.target.closest("[data-key]");
    if (!el || !this.svg.contains(el)) {
      this.onClick(null, ev);
      return;
    }
    this.onClick(el.dataset.key, ev);
  }

  // ------------------------------------------------------------------ geometry

  cityBox(c) {
    const k = this.k;
    // A green city (East) has no printed offices: its castle is drawn two offices wide (and grows with them).
    const n = c.green ? Math.max(2, this.greenCount(c)) : c.offices.length;
    const O = 19 * k;
    const G = 4 * k;
    const P = 4 * k;
    const w = n * O + (n - 1) * G + 2 * P;
    const hgt = O + 2 * P;
    return { x: c.x - w / 2, y: c.y - hgt / 2, w, h: hgt, O, G, P };
  }

  /** A green city's offices now: the Extra offices (left) and those of the permanent marker (right). */
  greenRow(c) {
    const st = this.state;
    if (!st) return [];
    return [...((st.extra_offices || {})[c.code] || []), ...((st.right_offices || {})[c.code] || [])];
  }

  greenCount(c) {
    return this.greenRow(c).length;
  }

  officeCentre(c, i) {
    const b = this.cityBox(c);
    return [b.x + b.P + i * (b.O + b.G) + b.O / 2, c.y];
  }

  inCity(pt, c, margin) {
    const b = this.cityBox(c);
    const inBox = pt[0] > b.x - margin && pt[0] < b.x + b.w + margin && pt[1] > b.y - margin && pt[1] < b.y + b.h + margin;
    if (inBox) return true;
    // What the city draws above its box and takes clicks for it: the ability pills and Britannia's permission seal.
    const above = this.cityTop(c);
    if (!above) return false;
    return pt[0] > c.x - above.w / 2 - margin && pt[0] < c.x + above.w / 2 + margin && pt[1] > above.y - margin && pt[1] < b.y;
  }

  /** The band above a city's box taken by its ability pills and permission seal ({y: top, w: width}), or null. */
  cityTop(c) {
    const k = this.k;
    const b = this.cityBox(c);
    const abilities = c.abilities || (c.ability ? [c.ability] : []);
    const seal = (this.layout.permission_cities || {})[c.code];
    if (!abilities.length && !seal) return null;
    let y = b.y - ((c.countries || []).some((x) => x !== "England") ? 4.5 * k : 0) - (c.green ? 4 * k : 0);
    let w = 0;
    if (abilities.length) {
      y -= 15 * k;
      w = abilities.reduce((x, a) => x + ((abilityShort(a).length) * 5.6 + 12) * k + 4 * k, 0);
    }
    if (seal) {
      const label = `✉ ${seal.map((x) => t(`country.${x}.short`)).join("/")}`;
      y -= 16 * k;
      w = Math.max(w, (label.length * 5.4 + 16) * k);
    }
    return { y, w };
  }

  computeGeometry() {
    const k = this.k;
    const pitch = 22 * k;
    const maxPitch = 34 * k;
    const margin = 9 * k;
    this.houseXY = new Map();
    this.routeGeom = new Map();
    const cities = this.layout.cities;
    for (const r of this.layout.routes) {
      const A = this.cityByCode.get(r.cities[0]);
      const B = this.cityByCode.get(r.cities[1]);
      const a = [A.x, A.y];
      const b = [B.x, B.y];
      const dx = b[0] - a[0];
      const dy = b[1] - a[1];
      const len = Math.hypot(dx, dy) || 1;
      const nrm = [-dy / len, dx / len];
      const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      const n = r.houses.length;
      // Which side has more room: the one farther from other cities.
      const room = (sign) => {
        const p = [mid[0] + nrm[0] * sign * 40 * k, mid[1] + nrm[1] * sign * 40 * k];
        let best = Infinity;
        for (const c of cities) {
          if (c === A || c === B) continue;
          best = Math.min(best, Math.hypot(c.x - p[0], c.y - p[1]));
        }
        return best;
      };
      const side = room(1) >= room(-1) ? 1 : -1;
      // The straight line, then ever larger bulges (the roomier side first): the first curve long enough for the
      // houses whose houses keep clear of other routes' houses (two routes leaving a city at a narrow angle), or
      // else the first long enough.
      const placedHouses = [...this.houseXY.values()];
      const curve = (bulge) => {
        const ctrl = [mid[0] + nrm[0] * bulge * 2, mid[1] + nrm[1] * bulge * 2];
        const N = 120;
        const pts = [];
        const cum = [0];
        for (let i = 0; i <= N; i++) {
          pts.push(bezier(a, ctrl, b, i / N));
          if (i) cum.push(cum[i - 1] + Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]));
        }
        let i0 = 0;
        while (i0 < N && this.inCity(pts[i0], A, margin)) i0++;
        let i1 = N;
        while (i1 > 0 && this.inCity(pts[i1], B, margin)) i1--;
        const usable = cum[i1] - cum[i0];
        const p = Math.min(maxPitch, Math.max(usable / n, 14 * k));
        const start = cum[i0] + (usable - n * p) / 2;
        const at = (dist) => {
          let j = 1;
          while (j < cum.length - 1 && cum[j] < dist) j++;
          const t = (dist - cum[j - 1]) / (cum[j] - cum[j - 1] || 1);
          return [pts[j - 1][0] + (pts[j][0] - pts[j - 1][0]) * t, pts[j - 1][1] + (pts[j][1] - pts[j - 1][1]) * t];
        };
        const spots = r.houses.map((_, i) => at(start + p * (i + 0.5)));
        const clear = spots.every(([x, y]) => placedHouses.every(([hx, hy]) => Math.hypot(hx - x, hy - y) >= pitch));
        return { ctrl, spots, usable, bulge, clear };
      };
      let chosen = null;
      let fallback = null;
      for (let step = 0; step <= 16 && !chosen; step++) {
        for (const sign of step ? [side, -side] : [side]) {
          const c = curve(step * 0.09 * len * sign);
          if (c.usable < n * pitch && step < 16) continue;
          if (!fallback && sign === side) fallback = c;
          if (c.clear) {
            chosen = c;
            break;
          }
        }
      }
      chosen = chosen || fallback || curve(16 * 0.09 * len * side);
      const { ctrl } = chosen;
      r.houses.forEach((hs, i) => this.houseXY.set(hs.name, chosen.spots[i]));
      const apex = bezier(a, ctrl, b, 0.5);
      // The marker sits beside the route, on the side with more room.
      const mside = chosen.bulge !== 0 ? Math.sign(chosen.bulge) : side;
      const markerNormal = [nrm[0] * mside, nrm[1] * mside];
      const path = chosen.bulge === 0 ? `M${a[0]},${a[1]} L${b[0]},${b[1]}` : `M${a[0]},${a[1]} Q${ctrl[0]},${ctrl[1]} ${b[0]},${b[1]}`;
      this.routeGeom.set(r.code, { path, apex, markerNormal, tavern: r.tavern, ctrl: chosen.bulge === 0 ? null : ctrl, a: r.cities[0], b: r.cities[1] });
    }
    // A tavern (where a start marker lies) printed over a house or a city as this board draws them moves to the
    // nearest clear spot, so that its marker never covers a house.
    const taverns = [];
    for (const r of this.layout.routes) {
      if (!r.tavern) continue;
      const geo = this.routeGeom.get(r.code);
      const [w, hgt] = [38 * k, 30 * k];
      let spot = null;
      for (let d = 0; d <= 120 * k && !spot; d += 4 * k) {
        for (let i = 0; i < (d ? 24 : 1); i++) {
          const x = r.tavern[0] + d * Math.cos((i * Math.PI) / 12);
          const y = r.tavern[1] + d * Math.sin((i * Math.PI) / 12);
          if (!this.tileClash(x, y, w, hgt, taverns)) {
            spot = [x, y];
            break;
          }
        }
      }
      geo.tavern = spot || r.tavern;
      taverns.push({ x: geo.tavern[0], y: geo.tavern[1], w, hgt });
    }
  }

  /**
   * Province regions (two-player pawn variant): each province is bounded by its routes (drawn along their curves)
   * and border guards (straight); the six outer provinces are closed along the board's edge, by the shorter way
   * between the points of the edge nearest their two end cities.  regions: code -> SVG path; provinceXY: label spot.
   */
  placeProvinces() {
    this.regions = new Map();
    this.provinceXY = new Map();
    const W = this.layout.width;
    const H = this.layout.height;
    const xy = (code) => {
      const c = this.cityByCode.get(code);
      return [c.x, c.y];
    };
    const perimeter = 2 * (W + H);
    // A point of the board's edge as a distance along it (clockwise from the top-left corner), and back.
    const along = ([x, y]) => (y === 0 ? x : x === W ? W + y : y === H ? W + H + (W - x) : W + H + W + (H - y));
    const at = (t) => {
      t = ((t % perimeter) + perimeter) % perimeter;
      if (t <= W) return [t, 0];
      if (t <= W + H) return [W, t - W];
      if (t <= 2 * W + H) return [W - (t - W - H), H];
      return [0, H - (t - 2 * W - H)];
    };
    const nearestEdge = ([x, y]) => {
      const options = [[x, 0, y], [W, y, W - x], [x, H, H - y], [0, y, x]];
      options.sort((a, b) => a[2] - b[2]);
      return [options[0][0], options[0][1]];
    };
    for (const p of this.layout.provinces || []) {
      const edges = [
        ...p.routes.map((code) => ({ a: code.split("-")[0], b: code.split("-")[1], route: code })),
        ...(p.guards || []).map(([a, b]) => ({ a, b, route: null })),
      ].filter((e) => this.cityByCode.has(e.a) && this.cityByCode.has(e.b));
      if (!edges.length) continue;
      const adj = new Map();
      for (const e of edges) {
        for (const c of [e.a, e.b]) {
          if (!adj.has(c)) adj.set(c, []);
          adj.get(c).push(e);
        }
      }
      const ends = [...adj].filter(([, list]) => list.length !== 2).map(([c]) => c);
      const start = ends.length ? ends[0] : edges[0].a;
      const used = new Set();
      const points = [xy(start)];
      let d = `M${xy(start).join(",")}`;
      let cur = start;
      for (;;) {
        const e = adj.get(cur).find((x) => !used.has(x));
        if (!e) break;
        used.add(e);
        const next = e.a === cur ? e.b : e.a;
        const geo = e.route ? this.routeGeom.get(e.route) : null;
        d += geo && geo.ctrl ? ` Q${geo.ctrl.join(",")} ${xy(next).join(",")}` : ` L${xy(next).join(",")}`;
        points.push(xy(next));
        cur = next;
        if (cur === start) break;
      }
      if (ends.length) {
        // Close along the board's edge, the shorter way round.
        const from = nearestEdge(xy(cur));
        const to = nearestEdge(xy(start));
        const t0 = along(from);
        let t1 = along(to);
        let dt = t1 - t0;
        if (dt > perimeter / 2) dt -= perimeter;
        if (dt < -perimeter / 2) dt += perimeter;
        t1 = t0 + dt;
        d += ` L${from.join(",")}`;
        points.push(from);
        const corners = [0, W, W + H, 2 * W + H].flatMap((c) => [c - perimeter, c, c + perimeter]);
        const between = corners.filter((c) => (dt > 0 ? c > t0 && c < t1 : c < t0 && c > t1)).sort((a, b) => (dt > 0 ? a - b : b - a));
        for (const c of between) {
          d += ` L${at(c).join(",")}`;
          points.push(at(c));
        }
        d += ` L${to.join(",")}`;
        points.push(to);
      }
      this.regions.set(p.code, `${d} Z`);
      const cx = points.reduce((a, q) => a + q[0], 0) / points.length;
      const cy = points.reduce((a, q) => a + q[1], 0) / points.length;
      this.provinceXY.set(p.code, this.clearSpot(cx, cy));
    }
  }

  /** A spot near (x, y) clear of cities and houses, for a province's label and the pawn. */
  clearSpot(x0, y0) {
    const k = this.k;
    const houses = [...this.houseXY.values()];
    const clash = (x, y) =>
      this.layout.cities.some((c) => this.inCity([x, y], c, 20 * k)) ||
      houses.some(([hx, hy]) => Math.hypot(hx - x, hy - y) < 24 * k) ||
      [...this.provinceXY.values()].some(([px, py]) => Math.hypot(px - x, py - y) < 34 * k);
    for (let r = 0; r <= 120 * k; r += 6 * k) {
      for (let a = 0; a < 16; a++) {
        const x = x0 + r * Math.cos((a * Math.PI) / 8 + Math.PI / 2);
        const y = y0 + r * Math.sin((a * Math.PI) / 8 + Math.PI / 2);
        if (!clash(x, y)) return [x, y];
        if (r === 0) break;
      }
    }
    return [x0, y0];
  }

  // ------------------------------------------------------------------ static layers

  drawStatic() {
    const k = this.k;
    const { width, height } = this.layout;
    const svg = this.svg;
    svg.append(
      s(
        "defs",
        null,
        s(
          "filter",
          { id: "shadow", x: "-20%", y: "-20%", width: "140%", height: "140%" },
          s("feDropShadow", { dx: 0, dy: 1.2 * k, stdDeviation: 1.2 * k, "flood-opacity": 0.35 }),
        ),
        s(
          "radialGradient",
          { id: "paper", cx: "50%", cy: "45%", r: "75%" },
          s("stop", { offset: "0%", "stop-color": "#f3ead0" }),
          s("stop", { offset: "100%", "stop-color": "#dccb9f" }),
        ),
      ),
      s("rect", { x: 0, y: 0, width, height, fill: "url(#paper)", rx: 14 * k }),
    );
    this.gRoutes = s("g", { class: "routes" });
    this.gProvinces = s("g", { class: "provinces" });
    this.gTaverns = s("g", { class: "taverns" });
    this.gHouses = s("g", { class: "houses" });
    this.gCities = s("g", { class: "cities" });
    this.gTable = s("g", { class: "coellen-table" });
    this.gMarkers = s("g", { class: "markers" });
    this.gPermanent = s("g", { class: "permanent-markers" });
    this.gLegend = s("g", { class: "legend" });
    this.gPawn = s("g", { class: "pawn-layer" });
    this.gMarks = s("g", { class: "marks" });
    this.gFx = s("g", { class: "effects" });
    svg.append(this.gProvinces, this.gRoutes, this.gTaverns, this.gHouses, this.gCities, this.gTable, this.gPermanent, this.gMarkers, this.gLegend, this.gPawn, this.gMarks, this.gFx);
    this.drawLegend();
  }

  /**
   * The legend of an expansion map, in the emptiest corner of the board: ship spaces, permanent markers, and East's
   * green cities or Britannia's countries and permission seals.
   */
  drawLegend() {
    const k = this.k;
    const g = clear(this.gLegend);
    const L = this.layout;
    if (!L.map) return;
    const rows = [];
    const fs = 9 * k;
    const rowH = 15 * k;
    const icon = 22 * k; // the icon column
    rows.push({
      key: "ship",
      text: t("legend.ship"),
      draw: (x, y) => [
        s("path", { d: `M${x - 8 * k},${y + 1 * k} L${x + 8 * k},${y + 1 * k} L${x + 5 * k},${y + 6 * k} L${x - 5 * k},${y + 6 * k} Z`, class: "ship-hull", "stroke-width": 1 * k }),
        s("circle", { cx: x, cy: y - 1 * k, r: 5 * k, class: "house-slot ship-slot", "stroke-width": 1 * k }),
      ],
    });
    rows.push({
      key: "permanent",
      text: t("legend.permanent"),
      draw: (x, y) => [s("rect", { x: x - 9 * k, y: y - 6 * k, width: 18 * k, height: 12 * k, rx: 3 * k, class: "permanent-tile", "stroke-width": 1 * k }), s("text", { x, y: y + 3 * k, "font-size": 8 * k, class: "permanent-label", text: "★" })],
    });
    if (L.cities.some((c) => c.green)) {
      rows.push({
        key: "green",
        text: t("legend.green"),
        draw: (x, y) => [this.castle({ x: x - 9 * k, y: y - 4 * k, w: 18 * k, h: 10 * k })],
      });
    }
    const countries = Object.keys(COUNTRY_COLOUR).filter((x) => L.routes.some((r) => r.country === x));
    for (const country of countries) {
      rows.push({
        key: `country-${country}`,
        text: t(country === "England" ? "legend.england" : "legend.country", { country: t(`country.${country}`) }),
        draw: (x, y) => [
          s("line", { x1: x - 9 * k, y1: y, x2: x + 9 * k, y2: y, class: "legend-route-edge", "stroke-width": 7 * k }),
          s("line", { x1: x - 9 * k, y1: y, x2: x + 9 * k, y2: y, class: `legend-route country-${country}`, "stroke-width": 4.5 * k }),
        ],
      });
    }
    if (Object.keys(L.permission_cities || {}).length) {
      rows.push({
        key: "permission",
        text: t("legend.permission"),
        draw: (x, y) => [
          s("rect", { x: x - 10 * k, y: y - 6 * k, width: 20 * k, height: 12 * k, rx: 3 * k, fill: COUNTRY_COLOUR.Wales, class: "permission-frame", "stroke-width": 1 * k }),
          s("text", { x, y: y + 3 * k, "font-size": 8 * k, class: "permission-label", text: "✉" }),
        ],
      });
    }
    const title = t("legend.title");
    const textW = Math.max(title.length * 5.6 * k, ...rows.map((r) => r.text.length * 4.9 * k));
    const w = icon + textW + 14 * k;
    const hgt = rows.length * rowH + 24 * k;
    const [x0, y0] = this.emptyCorner(w, hgt);
    g.append(
      s("rect", { x: x0, y: y0, width: w, height: hgt, rx: 7 * k, class: "legend-box", "stroke-width": 1 * k }),
      s("text", { x: x0 + 8 * k, y: y0 + 14 * k, "font-size": 10 * k, class: "legend-title", text: title }),
    );
    rows.forEach((r, i) => {
      const y = y0 + 26 * k + i * rowH;
      g.append(s("g", { class: `legend-row legend-${r.key}` }, ...r.draw(x0 + 8 * k + icon / 2, y - 1 * k), s("text", { x: x0 + 10 * k + icon, y: y + 3 * k, "font-size": fs, class: "legend-text", text: r.text })));
    });
  }

  /** The top-left corner of a w x h box in the board's corner with the fewest cities, houses and taverns. */
  emptyCorner(w, hgt) {
    const k = this.k;
    const { width, height } = this.layout;
    const m = 8 * k;
    const corners = [[width - w - m, m], [m, height - hgt - m], [m, m], [width - w - m, height - hgt - m]];
    const houses = [...this.houseXY.values()];
    const cost = ([x, y]) => {
      const inBox = (px, py, pad) => px > x - pad && px < x + w + pad && py > y - pad && py < y + hgt + pad;
      let n = 0;
      for (const c of this.layout.cities) {
        const b = this.cityBox(c);
        if (b.x < x + w + 30 * k && b.x + b.w > x - 30 * k && b.y - 20 * k < y + hgt && b.y + b.h + 16 * k > y) n += 10;
      }
      for (const [hx, hy] of houses) if (inBox(hx, hy, 10 * k)) n += 3;
      for (const r of this.layout.routes) if (r.tavern && inBox(r.tavern[0], r.tavern[1], 25 * k)) n += 5;
      return n;
    };
    let best = corners[0];
    let bestCost = Infinity;
    for (const c of corners) {
      const v = cost(c);
      if (v < bestCost) {
        best = c;
        bestCost = v;
      }
    }
    return best;
  }

  // ------------------------------------------------------------------ dynamic drawing

  /**
   * colours: {players: ["#..."], neutral: "#..."} ; hl: {keys: Map, selected: Set}
   */
  render(state, colours, hl = {}) {
    this.state = state;
    this.colours = colours;
    const keys = hl.keys || new Map();
    const selected = hl.selected || new Set();
    this.svg.classList.toggle("interactive", keys.size > 0);
    this.drawRoutes(state, keys);
    this.drawProvinces(state, keys);
    this.drawHouses(state, keys, selected);
    this.drawCities(state, keys);
    this.drawTable(state, keys);
    this.drawPermanent(state, keys);
    this.drawMarkers(state, keys);
    this.drawPawn(state);
    this.drawTrack(state);
    this.drawMarks();
    this.makeFocusable();
  }

  /** Rings on changed or pointed-at places: marks = Map(key -> "last" | "mine" | "hover" | "hint"). */
  setMarks(marks) {
    this.marks = marks || new Map();
    if (this.state) this.drawMarks();
  }

  drawMarks() {
    const k = this.k;
    const g = clear(this.gMarks);
    for (const [key, kind] of this.marks || new Map()) {
      const [type, ...rest] = key.split(":");
      let shape = null;
      if (type === "h" && this.houseXY.has(rest.join(":"))) {
        const [x, y] = this.houseXY.get(rest.join(":"));
        shape = s("circle", { cx: x, cy: y, r: 13.5 * k });
      } else if ((type === "o" || type === "g") && this.cityByCode.has(rest[0])) {
        const [x, y] = this.officeCentre(this.cityByCode.get(rest[0]), Number(rest[1]));
        shape = s("circle", { cx: x, cy: y, r: 14.5 * k });
      } else if (type === "c" && this.cityByCode.has(rest[0])) {
        const b = this.cityBox(this.cityByCode.get(rest[0]));
        shape = s("rect", { x: b.x - 7 * k, y: b.y - 7 * k, width: b.w + 14 * k, height: b.h + 14 * k, rx: 9 * k });
      } else if (type === "r" && this.routeGeom.has(rest[0])) {
        shape = s("path", { d: this.routeGeom.get(rest[0]).path, "stroke-width": 14 * k, fill: "none" });
      } else if (type === "p" && this.regions && this.regions.has(rest[0])) {
        shape = s("path", { d: this.regions.get(rest[0]), "stroke-width": 5 * k });
      }
      if (shape) {
        shape.setAttribute("class", `mark mark-${kind}${type === "r" ? " mark-route" : ""}${type === "p" ? " mark-province" : ""}`);
        if (type !== "r" && type !== "p") shape.setAttribute("stroke-width", String(3 * k));
        g.append(shape);
      }
    }
  }

  /** Highlighted targets take the keyboard focus in board order; Enter or Space acts on them. */
  makeFocusable() {
    for (const el of this.svg.querySelectorAll("[data-key]")) {
      if (el.classList.contains("hl")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "button");
        const title = el.querySelector("title");
        if (title) el.setAttribute("aria-label", title.textContent);
      } else el.removeAttribute("tabindex");
    }
  }

  handleKey(ev) {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const el = ev.target.closest && ev.target.closest("[data-key]");
    if (!el || !this.svg.contains(el)) return;
    ev.preventDefault();
    const r = el.getBoundingClientRect();
    this.onClick(el.dataset.key, { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, keyboard: true });
  }

  /** Where a piece of ``key`` stands on the board (houses, offices, extra offices, Coellen table). */
  placeXY(key) {
    const [type, ...rest] = key.split(":");
    if (type === "h") return this.houseXY.get(rest.join(":")) || null;
    if (type === "o" || type === "g") {
      const c = this.cityByCode.get(rest[0]);
      return c ? this.officeCentre(c, Number(rest[1])) : null;
    }
    if (type === "c") {
      const c = this.cityByCode.get(rest[0]);
      if (!c) return null;
      if (c.green) return this.officeCentre(c, 0); // a green city's newest Extra office is its leftmost
      const b = this.cityBox(c);
      return [b.x - b.O / 2 - b.G, c.y];
    }
    if (type === "t") return this.tableXY ? this.tableXY.get(rest[0]) || null : null;
    return null;
  }

  /**
   * Animate one move that has just been drawn: pieces that arrived fly in from where they left (in this move or
   * in ``sources``, places emptied earlier in the same playback), the others fade in; pieces that left without
   * arriving anywhere fade out; points float up where they were scored.  ``sources``: [{key, owner, kind}] is
   * consumed and refilled.  ms: duration.
   */
  animate(delta, sources, ms, scoredAt) {
    if (!ms || !delta) return;
    const k = this.k;
    const arrivals = [];
    const departures = [];
    const note = (key, b, a) => {
      if (b && (!a || a[0] !== b[0] || a[1] !== b[1])) departures.push({ key, owner: b[0], kind: b[1] });
      if (a && (!b || a[0] !== b[0] || a[1] !== b[1])) arrivals.push({ key, owner: a[0], kind: a[1] });
    };
    for (const [house, [b, a]] of Object.entries(delta.houses || {})) note(`h:${house}`, b, a);
    for (const [city, i, b, a] of delta.offices || []) note(`o:${city}:${i}`, b, a);
    for (const [city, b, a] of delta.extra_offices || []) if (a.length > b.length) note(`c:${city}`, null, a[0]);
    for (const [city, b, a] of delta.right_offices || []) {
      const left = ((this.state && this.state.extra_offices) || {})[city] || [];
      if (a.length > b.length) note(`g:${city}:${left.length + a.length - 1}`, null, a[a.length - 1]);
    }
    for (const [i, b, a] of delta.coellen_table || []) note(`t:${this.layout.coellen_table[i].colour}`, b, a);
    const pool = sources.concat(departures);
    const used = new Set();
    for (const arr of arrivals) {
      const to = this.placeXY(arr.key);
      const el = this.pieceAt(arr.key);
      if (!to || !el) continue;
      let from = null;
      for (let i = pool.length - 1; i >= 0; i--) {
        const src = pool[i];
        if (!used.has(i) && src.owner === arr.owner && src.kind === arr.kind && src.key !== arr.key) {
          from = this.placeXY(src.key);
          used.add(i);
          break;
        }
      }
      if (from) {
        el.animate([{ transform: `translate(${from[0] - to[0]}px, ${from[1] - to[1]}px) scale(1.25)` }, { transform: "translate(0, 0) scale(1)" }], { duration: ms, easing: "ease-in-out" });
      } else {
        el.animate([{ opacity: 0, transform: `translate(0, ${-18 * k}px)` }, { opacity: 1, transform: "translate(0, 0)" }], { duration: ms, easing: "ease-out" });
      }
    }
    departures.forEach((dep, j) => {
      const at = this.placeXY(dep.key);
      if (!at) return;
      const ghost = this.piece(dep.kind, dep.owner, at[0], at[1], 12.5 * k);
      ghost.classList.add("ghost");
      this.gFx.append(ghost);
      const matched = used.has(sources.length + j);
      ghost.animate([{ opacity: matched ? 0.35 : 0.9 }, { opacity: 0 }], { duration: ms, easing: "ease-in" }).onfinish = () => ghost.remove();
    });
    // Places emptied in this move may be where a later move's piece comes from (a lift before its drop, a
    // displacement before the relocation).
    sources.splice(0, sources.length, ...pool.filter((_, i) => !used.has(i)));
    for (const [seat, n] of (delta.score || []).map((n, seat) => [seat, n]).filter(([, n]) => n)) {
      const at = scoredAt ? this.placeXY(scoredAt) || this.routeApex(scoredAt) : null;
      const [x, y] = at || [this.layout.width / 2, 40 * k];
      const label = s("text", { x, y, "font-size": 20 * k, class: "score-pop", fill: this.colour(seat), text: `+${n}` });
      this.gFx.append(label);
      label.animate([{ opacity: 1, transform: "translate(0, 0)" }, { opacity: 0, transform: `translate(0, ${-40 * k}px)` }], { duration: Math.max(ms * 1.6, 700), easing: "ease-out" }).onfinish = () => label.remove();
    }
  }

  routeApex(key) {
    const geo = key && key.startsWith("r:") ? this.routeGeom.get(key.slice(2)) : null;
    return geo ? geo.apex : null;
  }

  pieceAt(key) {
    const [type, ...rest] = key.split(":");
    if (type === "c" && this.cityByCode.has(rest[0]) && this.cityByCode.get(rest[0]).green) return this.pieceAt(`g:${rest[0]}:0`);
    if (type === "c") {
      const pieces = this.svg.querySelectorAll(`g.city[data-key="c:${rest[0]}"] > .piece-g`);
      return pieces.length ? pieces[0] : null;
    }
    const group = this.svg.querySelector(`[data-key="${CSS.escape(key)}"]`);
    return group ? group.querySelector(".piece-g") : null;
  }

  colour(owner) {
    if (owner < 0) return this.colours.neutral || "#8d8d8d";
    return this.colours.players[owner] || "#555";
  }

  piece(kind, owner, cx, cy, size, extra = {}) {
    const fill = this.colour(owner);
    const attrs = { fill, stroke: "#1b1b1b", "stroke-width": 1.1 * this.k, class: `piece ${kind === "M" ? "merchant" : "trader"}`, ...extra };
    const shape = kind === "M" ? s("circle", { cx, cy, r: size / 2, ...attrs }) : s("rect", { x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: 1.6 * this.k, ...attrs });
    const symbol = this.symbol(owner);
    return s(
      "g",
      { class: "piece-g", "data-owner": owner, "data-kind": kind },
      shape,
      symbol ? s("text", { x: cx, y: cy + size * 0.3, "font-size": size * 0.78, class: `piece-symbol${this.lightColour(owner) ? " on-light" : ""}`, text: symbol }) : null,
    );
  }

  symbol(owner) {
    if (owner < 0) return "N";
    return (this.colours.symbols && this.colours.symbols[owner]) || "";
  }

  lightColour(owner) {
    const hex = this.colour(owner).replace("#", "");
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55;
  }

  drawRoutes(state, keys) {
    const k = this.k;
    const g = clear(this.gRoutes);
    const pawnRoutes = new Set();
    if (state.pawn && this.provinceByCode.has(state.pawn)) for (const r of this.provinceByCode.get(state.pawn).routes) pawnRoutes.add(r);
    for (const r of this.layout.routes) {
      const geo = this.routeGeom.get(r.code);
      const key = `r:${r.code}`;
      const kind = keys.get(key);
      const grp = s("g", { class: `route${kind ? ` hl hl-${kind}` : ""}${r.country ? ` country-${r.country}` : ""}${r.permanent ? " sea-route" : ""}`, "data-key": key, "data-country": r.country || null });
      let title = t("board.routeTitle", { a: r.cities[0], b: r.cities[1], n: r.houses.length });
      if (r.country) title += ` — ${t(`country.${r.country}`)}`;
      grp.append(s("title", { text: title }));
      if (pawnRoutes.has(r.code)) grp.append(s("path", { d: geo.path, class: "pawn-border", "stroke-width": 16 * k }));
      if (kind) grp.append(s("path", { d: geo.path, class: "route-glow", "stroke-width": 18 * k }));
      grp.append(s("path", { d: geo.path, class: "route-edge", "stroke-width": 9 * k }));
      grp.append(s("path", { d: geo.path, class: "route-line", "stroke-width": 6 * k }));
      grp.append(s("path", { d: geo.path, class: "route-hit", "stroke-width": 22 * k }));
      g.append(grp);
    }
    // Taverns (static, but cheap enough to redraw).
    const taverns = clear(this.gTaverns);
    for (const r of this.layout.routes) {
      if (!r.tavern) continue;
      const geo = this.routeGeom.get(r.code);
      const [x, y] = geo.tavern;
      taverns.append(
        s("line", { x1: x, y1: y, x2: geo.apex[0], y2: geo.apex[1], class: "tavern-link", "stroke-width": 2 * k }),
        s("rect", { x: x - 19 * k, y: y - 15 * k, width: 38 * k, height: 30 * k, rx: 5 * k, class: "tavern" }),
        s("text", { x, y: y + 24 * k, class: "tavern-label", "font-size": 8 * k, text: t("board.tavern") }),
      );
    }
  }

  drawProvinces(state, keys) {
    const k = this.k;
    const g = clear(this.gProvinces);
    const provinces = this.layout.provinces || [];
    const show = provinces.length && (state.pawn || state.turn.phase === "pawn_setup" || [...keys.keys()].some((x) => x.startsWith("p:")));
    this.svg.classList.toggle("pawn-variant", !!show);
    if (!show) return;
    for (const p of provinces) {
      const key = `p:${p.code}`;
      const kind = keys.get(key);
      const [x, y] = this.provinceXY.get(p.code);
      const here = state.pawn === p.code;
      const grp = s(
        "g",
        { class: `province${kind ? ` hl hl-${kind}` : ""}${here ? " pawn-here" : ""}`, "data-key": key },
        s("title", { text: t("board.provinceTitle", { code: p.code, n: p.routes.length }) }),
        s("path", { d: this.regions.get(p.code), class: "province-region", "stroke-width": 2 * k }),
        s("circle", { cx: x, cy: y, r: 15 * k, class: "province-spot" }),
        s("text", { x, y: y + 3.5 * k, "font-size": 9.5 * k, class: "province-label", text: p.code }),
      );
      // The province under the pointer shows which routes border it (where the pawn would let one build).
      grp.addEventListener("pointerenter", () => this.previewProvince(p.code));
      grp.addEventListener("pointerleave", () => this.previewProvince(null));
      g.append(grp);
    }
  }

  previewProvince(code) {
    const routes = new Set(code && this.provinceByCode.has(code) ? this.provinceByCode.get(code).routes : []);
    for (const el of this.gRoutes.querySelectorAll("g.route")) el.classList.toggle("preview", routes.has(el.dataset.key.slice(2)));
    this.gProvinces.classList.toggle("previewing", !!code);
  }

  drawHouses(state, keys, selected) {
    const k = this.k;
    const g = clear(this.gHouses);
    const H = 16 * k;
    for (const r of this.layout.routes) {
      for (const hs of r.houses) {
        const [x, y] = this.houseXY.get(hs.name);
        const key = `h:${hs.name}`;
        const kind = keys.get(key);
        const occ = state.houses[hs.name];
        const ship = !!hs.ship;
        const grp = s("g", {
          class: `house${kind ? ` hl hl-${kind}` : ""}${selected.has(key) ? " selected" : ""}${occ ? " occupied" : " free"}${ship ? " ship" : ""}${r.country ? ` country-${r.country}` : ""}`,
          "data-key": key,
        });
        let label = occ ? t("board.houseTaken", { house: hs.name, piece: t(`piece.${occ[1]}`), owner: occ[0] < 0 ? t("board.neutral") : this.ownerName(occ[0]) }) : t("board.houseFree", { house: hs.name });
        if (ship) label += ` — ${t("board.shipSpace")}`;
        grp.append(s("title", { text: label }));
        if (kind || selected.has(key)) {
          grp.append(ship
            ? s("circle", { cx: x, cy: y, r: H / 2 + 5 * k, class: "hl-ring" })
            : s("rect", { x: x - H / 2 - 4 * k, y: y - H / 2 - 4 * k, width: H + 8 * k, height: H + 8 * k, rx: 5 * k, class: "hl-ring" }));
        }
        grp.append(s("rect", { x: x - 11 * k, y: y - 11 * k, width: 22 * k, height: 22 * k, class: "house-hit" }));
        if (ship) {
          // A ship space (Merchants only): a round slot in a boat's hull.
          const w = 12.5 * k;
          grp.append(
            s("path", { d: `M${x - w},${y + 2 * k} L${x + w},${y + 2 * k} L${x + w * 0.6},${y + 10 * k} L${x - w * 0.6},${y + 10 * k} Z`, class: "ship-hull", "stroke-width": 1.1 * k }),
            s("circle", { cx: x, cy: y - 1 * k, r: H / 2, class: "house-slot ship-slot", "stroke-width": 1.3 * k }),
          );
        } else grp.append(s("rect", { x: x - H / 2, y: y - H / 2, width: H, height: H, rx: 3 * k, class: "house-slot", "stroke-width": 1.3 * k }));
        if (occ) grp.append(this.piece(occ[1], occ[0], x, ship ? y - 1 * k : y, 12.5 * k));
        g.append(grp);
      }
    }
  }

  ownerName(seat) {
    return (this.colours.names && this.colours.names[seat]) || `seat ${seat + 1}`;
  }

  drawCities(state, keys) {
    const k = this.k;
    const g = clear(this.gCities);
    const permissions = new Map(((state.turn && state.turn.permissions) || []).map((p) => [p.city, p]));
    const permCities = this.layout.permission_cities || {};
    for (const c of this.layout.cities) {
      const b = this.cityBox(c);
      const ckey = `c:${c.code}`;
      const ckind = keys.get(ckey);
      const controller = state.controllers[c.code];
      const offices = state.offices[c.code] || [];
      const green = !!c.green;
      const row = green ? this.greenRow(c) : [];
      const complete = green ? row.length > 0 : offices.length > 0 && offices.every((o) => o);
      const grp = s("g", { class: `city${ckind ? ` hl hl-${ckind}` : ""}${complete ? " complete" : ""}${green ? " green-city" : ""}`, "data-key": ckey });
      let title = `${c.name} (${c.code})${controller !== undefined ? t("board.controlledBy", { owner: controller < 0 ? t("board.neutral") : this.ownerName(controller) }) : ""}${complete ? t("board.completed") : ""}`;
      if (green) title += ` — ${t("board.greenTitle")}`;
      if (c.countries && c.countries.some((x) => x !== "England")) title += ` — ${c.countries.map((x) => t(`country.${x}`)).join(", ")}`;
      grp.append(s("title", { text: title }));
      if (ckind) grp.append(s("rect", { x: b.x - 6 * k, y: b.y - 6 * k, width: b.w + 12 * k, height: b.h + 12 * k, rx: 9 * k, class: "hl-ring" }));
      if (green) grp.append(this.castle(b));
      else {
        const box = s("rect", {
          x: b.x, y: b.y, width: b.w, height: b.h, rx: 6 * k, class: "city-box", filter: "url(#shadow)",
          "stroke-width": controller !== undefined ? 3.2 * k : 1.4 * k,
        });
        if (controller !== undefined) box.setAttribute("stroke", this.colour(controller));
        grp.append(box);
      }
      if (green && controller !== undefined) grp.append(s("rect", { x: b.x, y: b.y, width: b.w, height: b.h, rx: 2 * k, fill: "none", stroke: this.colour(controller), "stroke-width": 3.2 * k, class: "controller-ring" }));
      // Britannia: the banner of a city of Wales or Scotland (the Isle of Man has both) along the box's top.
      const banners = (c.countries || []).filter((x) => x !== "England");
      banners.forEach((country, i) => {
        const w = b.w / banners.length;
        grp.append(s("rect", { x: b.x + i * w, y: b.y - 4.5 * k, width: w, height: 4 * k, fill: COUNTRY_COLOUR[country], class: `country-banner banner-${country}`, "data-country": country }));
      });
      if (controller !== undefined) {
        // A pennant in the controller's colour on the box's top-left corner.
        const px = b.x + 2 * k;
        const py = b.y - 1 * k - (banners.length ? 4 * k : 0);
        grp.append(
          s("path", {
            d: `M${px},${py} L${px},${py - 13 * k} L${px + 11 * k},${py - 9 * k} L${px},${py - 5 * k}`,
            fill: this.colour(controller), stroke: "#1b1b1b", "stroke-width": 0.9 * k, class: "controller-flag",
          }),
        );
      }
      // Printed offices, left to right.
      c.offices.forEach((o, i) => {
        const [ox, oy] = this.officeCentre(c, i);
        const okey = `o:${c.code}:${i}`;
        const okind = keys.get(okey);
        const og = s("g", { class: `office${okind ? ` hl hl-${okind}` : ""}`, "data-key": okey });
        const points = o.coin ? o.points || 1 : 0;
        const piece = t(o.shape === "circle" ? "piece.M" : "piece.T");
        og.append(s("title", { text: points ? t("board.officeCoinPoints", { city: c.name, n: i + 1, colour: t(`privilege.${o.colour}`), piece, points }) : t("board.office", { city: c.name, n: i + 1, colour: t(`privilege.${o.colour}`), piece }) }));
        if (okind) og.append(s("rect", { x: ox - b.O / 2 - 3 * k, y: oy - b.O / 2 - 3 * k, width: b.O + 6 * k, height: b.O + 6 * k, rx: 4 * k, class: "hl-ring" }));
        const fill = PRIVILEGE_FILL[o.colour] || "#fff";
        const attrs = { fill, class: "office-slot", "stroke-width": 1.2 * k };
        if (o.shape === "circle") og.append(s("circle", { cx: ox, cy: oy, r: b.O / 2, ...attrs }));
        else og.append(s("rect", { x: ox - b.O / 2, y: oy - b.O / 2, width: b.O, height: b.O, rx: 1.5 * k, ...attrs }));
        const occ = offices[i];
        if (occ) og.append(this.piece(occ[1], occ[0], ox, oy, 12 * k, { stroke: o.colour === "black" ? "#fff" : "#1b1b1b" }));
        if (points) {
          // A coin: its points at once (1 on the base and East boards, 2 on Britannia's).
          const big = points > 1;
          const r = (big ? 5.6 : 4.6) * k;
          og.append(
            s("circle", { cx: ox + b.O / 2 - 1 * k, cy: oy - b.O / 2 + 1 * k, r, class: `coin${big ? " coin-2" : ""}`, "stroke-width": 0.9 * k }),
            s("text", { x: ox + b.O / 2 - 1 * k, y: oy - b.O / 2 + (big ? 3.8 : 3.2) * k, "font-size": (big ? 8 : 6.5) * k, class: "coin-label", text: String(points) }),
          );
        }
        grp.append(og);
      });
      if (green) this.drawGreenOffices(grp, c, b, state, keys);
      else {
        // Extra offices, leftmost (newest) first, to the left of the box.
        const extras = state.extra_offices[c.code] || [];
        extras.forEach((occ, j) => {
          const n = extras.length;
          const ox = b.x - (n - j) * (b.O + b.G) + b.O / 2 - b.G;
          const oy = c.y;
          grp.append(
            s("rect", { x: ox - b.O / 2 - 1.5 * k, y: oy - b.O / 2 - 1.5 * k, width: b.O + 3 * k, height: b.O + 3 * k, rx: 3 * k, class: "extra-slot", "stroke-width": 1.2 * k }),
            this.piece(occ[1], occ[0], ox, oy, 12 * k),
          );
        });
      }
      // Name below, ability above.
      grp.append(s("text", { x: c.x, y: b.y + b.h + 12 * k, "font-size": 11.5 * k, class: "city-name", text: c.name }));
      const abilities = c.abilities || (c.ability ? [c.ability] : []);
      const top = b.y - (banners.length ? 4.5 * k : 0) - (green ? 4 * k : 0);
      const labels = abilities.map((a) => `▲ ${abilityShort(a)}`);
      const widths = labels.map((label) => ((label.length - 2) * 5.6 + 12) * k);
      const gap = 4 * k;
      let ax = c.x - (widths.reduce((x, w) => x + w, 0) + gap * (widths.length - 1)) / 2;
      abilities.forEach((ability, i) => {
        const w = widths[i];
        const cx = ax + w / 2;
        ax += w + gap;
        // Clicking the ability claims a route ending here with the ability as its benefit (when one can); Waren
        // (East) offers two, each its own target.
        const akey = abilities.length > 1 ? `ab:${c.code}:${ability}` : `ab:${c.code}`;
        const akind = keys.get(akey);
        grp.append(
          s(
            "g",
            { class: `ability${akind ? ` hl hl-${akind}` : ""}`, "data-key": akey, "data-ability": ability },
            s("title", { text: t(abilities.length > 1 ? "board.abilityOrTitle" : "board.abilityTitle", { city: c.name, ability: t(`ability.${ability}`) }) }),
            akind ? s("rect", { x: cx - w / 2 - 3 * k, y: top - 18 * k, width: w + 6 * k, height: 18 * k, rx: 9 * k, class: "hl-ring" }) : null,
            s("rect", { x: cx - w / 2, y: top - 15 * k, width: w, height: 12 * k, rx: 6 * k, class: "ability-pill" }),
            s("text", { x: cx, y: top - 6 * k, "font-size": 8.5 * k, class: "ability-label", text: labels[i] }),
          ),
        );
      });
      if (this.layout.east_west && this.layout.east_west.includes(c.code)) {
        const awards = (this.layout.east_west_awards || [7, 4, 2]).join("/");
        grp.append(
          s("text", { x: b.x + b.w + 3 * k, y: b.y + 4 * k, "font-size": 8 * k, class: "ew-label", "text-anchor": "start", text: t("board.ew") },
            s("title", { text: t("board.ewTitle", { a: this.cityByCode.get(this.layout.east_west[0]).name, b: this.cityByCode.get(this.layout.east_west[1]).name, awards }) })),
        );
      }
      if (permCities[c.code]) grp.append(this.permissionBadge(c, b, permCities[c.code], permissions.get(c.code), top));
      g.append(grp);
    }
  }

  /** A green city's castle: a green box with battlements. */
  castle(b) {
    const k = this.k;
    const m = 4.5 * k; // battlement size
    const n = Math.max(2, Math.floor(b.w / (2 * m)));
    const step = b.w / n;
    let d = `M${b.x},${b.y + b.h} L${b.x},${b.y - m}`;
    for (let i = 0; i < n; i++) {
      const x = b.x + i * step;
      d += ` L${x + step / 2},${b.y - m} L${x + step / 2},${b.y} L${x + step},${b.y}`;
      if (i < n - 1) d += ` L${x + step},${b.y - m}`;
    }
    d += ` L${b.x + b.w},${b.y - m} L${b.x + b.w},${b.y + b.h} Z`;
    return s("path", { d, class: "castle", filter: "url(#shadow)", "stroke-width": 1.4 * k });
  }

  /** The offices of a green city inside its castle: Extra offices on the left, the permanent marker's on the
   * right (a dashed line between them), or an empty slot while it has none.  Keys g:<city>:<index>. */
  drawGreenOffices(grp, c, b, state, keys) {
    const k = this.k;
    const left = ((state.extra_offices || {})[c.code] || []).length;
    const row = this.greenRow(c);
    if (!row.length) {
      grp.append(s("rect", { x: c.x - b.O / 2, y: c.y - b.O / 2, width: b.O, height: b.O, rx: 2 * k, class: "green-empty", "stroke-width": 1.2 * k }));
      return;
    }
    row.forEach((occ, i) => {
      const [ox, oy] = this.officeCentre(c, i);
      const key = `g:${c.code}:${i}`;
      const kind = keys.get(key);
      const og = s("g", { class: `office green-office${kind ? ` hl hl-${kind}` : ""}`, "data-key": key });
      og.append(s("title", { text: t(i < left ? "board.greenExtra" : "board.greenRight", { city: c.name, n: i + 1, owner: occ[0] < 0 ? t("board.neutral") : this.ownerName(occ[0]) }) }));
      if (kind) og.append(s("rect", { x: ox - b.O / 2 - 3 * k, y: oy - b.O / 2 - 3 * k, width: b.O + 6 * k, height: b.O + 6 * k, rx: 4 * k, class: "hl-ring" }));
      og.append(s("rect", { x: ox - b.O / 2, y: oy - b.O / 2, width: b.O, height: b.O, rx: 2 * k, class: "green-slot", "stroke-width": 1 * k }));
      og.append(this.piece(occ[1], occ[0], ox, oy, 12 * k));
      grp.append(og);
    });
    if (left && left < row.length) {
      const x = b.x + b.P + left * (b.O + b.G) - b.G / 2;
      grp.append(s("line", { x1: x, y1: b.y + 2 * k, x2: x, y2: b.y + b.h - 2 * k, class: "green-divider", "stroke-width": 1.2 * k }));
    }
  }

  /** Britannia: a permission city's seal (the countries it opens) with its holder's colour; faded once used. */
  permissionBadge(c, b, countries, info, top) {
    const k = this.k;
    const label = `✉ ${countries.map((x) => t(`country.${x}.short`)).join("/")}`;
    const w = (label.length * 5.4 + 16) * k;
    const hgt = 13 * k;
    const x = c.x - w / 2;
    const y = top - hgt - 3 * k - (c.abilities || c.ability ? 15 * k : 0);
    const holder = info ? info.holder : null;
    const used = !!(info && info.used);
    const holderName = holder === null || holder === undefined ? t("board.permissionNobody") : this.ownerName(holder);
    const grp = s("g", { class: `permission${used ? " used" : ""}`, "data-permission": c.code, "data-holder": holder === null || holder === undefined ? "" : String(holder) });
    grp.append(s("title", { text: t(used ? "board.permissionUsed" : "board.permissionTitle", { city: c.name, countries: countries.map((x) => t(`country.${x}`)).join(t("board.or")), holder: holderName }) }));
    const stripes = countries.length;
    countries.forEach((country, i) => {
      grp.append(s("rect", { x: x + (i * w) / stripes, y, width: w / stripes, height: hgt, fill: COUNTRY_COLOUR[country], class: "permission-band" }));
    });
    grp.append(s("rect", { x, y, width: w, height: hgt, rx: 3 * k, class: "permission-frame", "stroke-width": 1 * k }));
    // The holder's colour in a square on the badge's left end (empty: nobody holds it).
    const sq = 8 * k;
    grp.append(s("rect", { x: x + 2.5 * k, y: y + (hgt - sq) / 2, width: sq, height: sq, rx: 1.5 * k, fill: holder === null || holder === undefined ? "none" : this.colour(holder), class: "permission-holder", "stroke-width": 0.9 * k }));
    grp.append(s("text", { x: x + sq + 4 * k + (w - sq - 4 * k) / 2, y: y + hgt - 3.6 * k, "font-size": 8 * k, class: "permission-label", text: label }));
    if (used) grp.append(s("line", { x1: x + 2 * k, y1: y + hgt - 2 * k, x2: x + w - 2 * k, y2: y + 2 * k, class: "permission-strike", "stroke-width": 1.4 * k }));
    return grp;
  }

  drawTable(state, keys) {
    const k = this.k;
    const g = clear(this.gTable);
    if (!this.layout.coellen) return;
    const c = this.cityByCode.get(this.layout.coellen);
    const b = this.cityBox(c);
    const spaces = this.layout.coellen_table;
    const step = 25 * k;
    const y = b.y + b.h + 38 * k;
    const x0 = c.x - ((spaces.length - 1) * step) / 2;
    g.append(
      s("rect", { x: x0 - 16 * k, y: y - 15 * k, width: (spaces.length - 1) * step + 32 * k, height: 30 * k, rx: 6 * k, class: "table-box" }),
      s("text", { x: c.x, y: y + 25 * k, "font-size": 8 * k, class: "table-label", text: this.expansion ? t("board.tableOf", { city: c.name }) : t("board.table") }),
    );
    this.tableXY = new Map();
    spaces.forEach((sp, i) => {
      const x = x0 + i * step;
      this.tableXY.set(sp.colour, [x, y]);
      const key = `t:${sp.colour}`;
      const kind = keys.get(key);
      const grp = s("g", { class: `table-space${kind ? ` hl hl-${kind}` : ""}`, "data-key": key });
      grp.append(s("title", { text: this.expansion ? t("board.tableOfTitle", { city: c.name, colour: t(`privilege.${sp.colour}`), points: sp.points }) : t("board.tableTitle", { colour: t(`privilege.${sp.colour}`), points: sp.points }) }));
      if (kind) grp.append(s("circle", { cx: x, cy: y, r: 14 * k, class: "hl-ring" }));
      grp.append(s("circle", { cx: x, cy: y, r: 10.5 * k, fill: PRIVILEGE_FILL[sp.colour], class: "office-slot", "stroke-width": 1.2 * k }));
      const occ = state.coellen_table[i];
      if (occ) grp.append(this.piece(occ[1], occ[0], x, y, 13 * k, { stroke: sp.colour === "black" ? "#fff" : "#1b1b1b" }));
      else grp.append(s("text", { x, y: y + 3.5 * k, "font-size": 9.5 * k, class: `table-points ${sp.colour === "black" ? "on-dark" : ""}`, text: String(sp.points) }));
      g.append(grp);
    });
  }

  /** Centre of a w x h tile beside a route (clear of its houses), `extra` further out. */
  besideRoute(geo, w, hgt, extra = 0) {
    const [nx, ny] = geo.markerNormal;
    const d = 8 * this.k + 4 * this.k + Math.abs(nx) * (w / 2) + Math.abs(ny) * (hgt / 2) + extra;
    const out = [geo.apex[0] + nx * d, geo.apex[1] + ny * d];
    const inside = ([x, y]) => x - w / 2 > 4 && y - hgt / 2 > 4 && x + w / 2 < this.layout.width - 4 && y + hgt / 2 < this.layout.height - 4;
    if (inside(out)) return out;
    return [geo.apex[0] - nx * d, geo.apex[1] - ny * d]; // no room at the board's edge: the other side
  }

  /** Whether a w x hgt tile centred on (x, y) leaves the board or covers a house's tap area, a city (its box and
   * what it draws above) or a tile of ``placed`` ({x, y, w, hgt}). */
  tileClash(x, y, w, hgt, placed = []) {
    const k = this.k;
    return x - w / 2 < 4 || y - hgt / 2 < 4 || x + w / 2 > this.layout.width - 4 || y + hgt / 2 > this.layout.height - 4 ||
      placed.some((r) => Math.abs(r.x - x) < (r.w + w) / 2 + 3 * k && Math.abs(r.y - y) < (r.hgt + hgt) / 2 + 3 * k) ||
      [...this.houseXY.values()].some(([hx, hy]) => Math.abs(hx - x) < w / 2 + 12.5 * k && Math.abs(hy - y) < hgt / 2 + 12.5 * k) ||
      this.layout.cities.some((c) => {
        const b = this.cityBox(c);
        const top = this.cityTop(c);
        const inBox = x + w / 2 > b.x - 3 * k && x - w / 2 < b.x + b.w + 3 * k && y + hgt / 2 > b.y - 6 * k && y - hgt / 2 < b.y + b.h + 3 * k;
        const inTop = top && x + w / 2 > c.x - top.w / 2 - 3 * k && x - w / 2 < c.x + top.w / 2 + 3 * k && y + hgt / 2 > top.y - 3 * k && y - hgt / 2 < b.y;
        return inBox || inTop;
      });
  }

  /**
   * Centre of a w x hgt tile beside a route, clear of every house's tap area, the cities (their boxes and what they
   * draw above them) and the tiles in ``placed`` ({x, y, w, hgt}): the nearest such spot on the roomier side, then
   * the other, further out step by step (besideRoute's spot when there is none).
   */
  clearBeside(geo, w, hgt, placed, extra = 0) {
    const k = this.k;
    const clash = (x, y) => this.tileClash(x, y, w, hgt, placed);
    const [nx, ny] = geo.markerNormal;
    for (const more of [0, 4, 8, 13, 19, 26, 34, 43, 53, 64, 76].map((v) => v * k + extra)) {
      for (const side of [1, -1]) {
        const d = 12 * k + Math.abs(nx) * (w / 2) + Math.abs(ny) * (hgt / 2) + more;
        const x = geo.apex[0] + side * nx * d;
        const y = geo.apex[1] + side * ny * d;
        if (!clash(x, y)) return [x, y];
      }
    }
    return this.besideRoute(geo, w, hgt, extra);
  }

  drawMarkers(state, keys) {
    const k = this.k;
    const g = clear(this.gMarkers);
    if (!this.permanentXY) this.permanentXY = this.placePermanent();
    // Tiles already on the board: the permanent markers' badges, then each bonus marker as it is placed.
    const placed = [...this.permanentXY.values()].map(({ x, y, w, hgt }) => ({ x, y, w, hgt }));
    const markers = [];
    for (const [route, type] of Object.entries(state.route_markers || {})) {
      const geo = this.routeGeom.get(route);
      if (!geo) continue;
      const label = markerShort(type);
      const w = Math.max(24, label.length * 7 + 10) * k;
      const [x, y] = geo.tavern || this.clearBeside(geo, w, 20 * k, placed);
      placed.push({ x, y, w, hgt: 20 * k });
      markers.push({ route, type, label, x, y, w });
    }
    // Tribute and Block markers beside their routes (docs/rules.md §8.7, §8.8): a tile edged in the owner's colour
    // with the owner's Trader on it, clear of the bonus markers; clicking it is clicking the route.
    const beside = [
      ...(state.tributes || []).map(([route, owner]) => ({ type: "tribute", route, owner })),
      ...(state.blocks || []).map(([route, owner]) => ({ type: "block", route, owner })),
    ];
    for (const b of beside) {
      const geo = this.routeGeom.get(b.route);
      if (!geo) continue;
      const label = markerShort(b.type);
      const w = (label.length * 6.2 + 28) * k;
      const hgt = 20 * k;
      const [x, y] = this.clearBeside(geo, w, hgt, placed);
      placed.push({ x, y, w, hgt });
      Object.assign(b, { label, x, y, w, hgt });
    }
    // A "Claim" badge on every claimable route (clicking it opens the benefit chooser), clear of the markers.
    for (const [key, kind] of keys) {
      if (kind !== "claim" || !key.startsWith("r:")) continue;
      const geo = this.routeGeom.get(key.slice(2));
      if (!geo) continue;
      const [x, y] = this.clearBeside(geo, 44 * k, 18 * k, placed);
      placed.push({ x, y, w: 44 * k, hgt: 18 * k });
      g.append(
        s(
          "g",
          { class: "claim-badge hl hl-claim", "data-key": key },
          s("title", { text: t("board.claimTitle", { route: key.slice(2) }) }),
          s("rect", { x: x - 22 * k, y: y - 9 * k, width: 44 * k, height: 18 * k, rx: 9 * k, class: "claim-tile", "stroke-width": 1.3 * k }),
          s("text", { x, y: y + 3.8 * k, "font-size": 10 * k, class: "claim-label", text: t("board.claim") }),
        ),
      );
    }
    for (const { route, type, label, x, y, w } of markers) {
      const key = `r:${route}`;
      const kind = keys.get(key);
      g.append(
        s(
          "g",
          { class: `bonus-marker${kind ? ` hl hl-${kind}` : ""}`, "data-key": key, "data-marker": type },
          s("title", { text: t("board.markerTitle", { marker: markerFull(type), route }) }),
          s("rect", { x: x - w / 2, y: y - 10 * k, width: w, height: 20 * k, rx: 5 * k, class: "marker-tile", "stroke-width": 1.3 * k, filter: "url(#shadow)" }),
          s("text", { x, y: y + 4 * k, "font-size": 10.5 * k, class: "marker-label", text: label }),
        ),
      );
    }
    for (const b of beside) if (b.label) g.append(this.besideMarker(b, keys));
  }

  /** A Tribute or Block marker beside its route, with its owner's Trader (drawMarkers placed it). */
  besideMarker({ type, route, owner, label, x, y, w, hgt }, keys) {
    const k = this.k;
    const key = `r:${route}`;
    const kind = keys.get(key);
    const geo = this.routeGeom.get(route);
    const r = this.layout.routes.find((x) => x.code === route);
    const names = r ? r.cities.map((c) => (this.cityByCode.get(c) || { name: c }).name).join("–") : route;
    return s(
      "g",
      { class: `beside-marker beside-${type}${kind ? ` hl hl-${kind}` : ""}`, "data-key": key, "data-beside": type, "data-route": route, "data-owner": owner },
      s("title", { text: t(`board.${type}Title`, { owner: this.ownerName(owner), route: names }) }),
      geo ? s("line", { x1: x, y1: y, x2: geo.apex[0], y2: geo.apex[1], class: "beside-link", stroke: this.colour(owner), "stroke-width": 1.6 * k }) : null,
      s("rect", { x: x - w / 2, y: y - hgt / 2, width: w, height: hgt, rx: 5 * k, class: "beside-tile", stroke: this.colour(owner), "stroke-width": 2.6 * k, filter: "url(#shadow)" }),
      this.piece("T", owner, x - w / 2 + 10 * k, y, 10 * k),
      s("text", { x: x + 7 * k, y: y + 3.8 * k, "font-size": 10 * k, class: "beside-label", text: label }),
    );
  }

  /** The permanent bonus markers of the sea routes (East, Britannia): a badge with a symbol and a short name, the
   * whole rule in its tooltip; the one being resolved now glows. */
  drawPermanent(state, keys) {
    const k = this.k;
    const g = clear(this.gPermanent);
    const now = state.turn && state.turn.permanent ? state.turn.permanent.route : null;
    if (!this.permanentXY) this.permanentXY = this.placePermanent();
    for (const r of this.layout.routes) {
      if (!r.permanent) continue;
      const { x, y, w, hgt, label } = this.permanentXY.get(r.code);
      const active = now === r.code;
      g.append(
        s(
          "g",
          { class: `permanent-marker${active ? " active" : ""}`, "data-route": r.code, "data-effect": r.permanent },
          s("title", { text: t("board.permanentTitle", { route: `${this.cityByCode.get(r.cities[0]).name}–${this.cityByCode.get(r.cities[1]).name}`, rule: permanentFull(r.permanent, this.layout) }) }),
          active ? s("rect", { x: x - w / 2 - 4 * k, y: y - hgt / 2 - 4 * k, width: w + 8 * k, height: hgt + 8 * k, rx: 8 * k, class: "permanent-glow", "stroke-width": 3 * k }) : null,
          s("rect", { x: x - w / 2, y: y - hgt / 2, width: w, height: hgt, rx: 4 * k, class: "permanent-tile", "stroke-width": 1.4 * k, filter: "url(#shadow)" }),
          s("text", { x, y: y + 3.6 * k, "font-size": 9.5 * k, class: "permanent-label", text: label }),
        ),
      );
    }
  }

  /** Where each permanent marker's badge goes: beside its route, clear of the other badges, the cities and the
   * houses (two sea routes meet at Calais, three at Malmö). */
  placePermanent() {
    const k = this.k;
    const out = new Map();
    const placed = [];
    const houses = [...this.houseXY.values()];
    const clash = (x, y, w, hgt) =>
      x - w / 2 < 4 || y - hgt / 2 < 4 || x + w / 2 > this.layout.width - 4 || y + hgt / 2 > this.layout.height - 4 ||
      placed.some((r) => Math.abs(r.x - x) < (r.w + w) / 2 + 3 * k && Math.abs(r.y - y) < (r.hgt + hgt) / 2 + 3 * k) ||
      this.layout.cities.some((c) => {
        const b = this.cityBox(c);
        return x + w / 2 > b.x - 4 * k && x - w / 2 < b.x + b.w + 4 * k && y + hgt / 2 > b.y - 18 * k && y - hgt / 2 < b.y + b.h + 16 * k;
      }) ||
      houses.some(([hx, hy]) => Math.abs(hx - x) < w / 2 + 9 * k && Math.abs(hy - y) < hgt / 2 + 9 * k);
    for (const r of this.layout.routes) {
      if (!r.permanent) continue;
      const geo = this.routeGeom.get(r.code);
      const label = `${PERMANENT_ICON[r.permanent] || "★"} ${permanentShort(r.permanent, this.layout)}`;
      const w = (label.length * 5.5 + 12) * k;
      const hgt = 17 * k;
      const [nx, ny] = geo.markerNormal;
      let spot = null;
      for (const extra of [0, 10, 20, 32, 46, 62].map((v) => v * k)) {
        for (const side of [1, -1]) {
          const d = 12 * k + Math.abs(nx) * (w / 2) + Math.abs(ny) * (hgt / 2) + extra;
          const x = geo.apex[0] + side * nx * d;
          const y = geo.apex[1] + side * ny * d;
          if (!clash(x, y, w, hgt)) {
            spot = [x, y];
            break;
          }
        }
        if (spot) break;
      }
      const [x, y] = spot || this.besideRoute(geo, w, hgt);
      placed.push({ x, y, w, hgt });
      out.set(r.code, { x, y, w, hgt, label });
    }
    return out;
  }

  drawPawn(state) {
    const k = this.k;
    const g = clear(this.gPawn);
    if (!state.pawn) return;
    const p = this.provinceByCode.get(state.pawn);
    if (!p) return;
    const [x, py] = this.provinceXY.get(p.code);
    const y = py - 6 * k;
    g.append(
      s(
        "g",
        { class: "pawn", filter: "url(#shadow)" },
        s("title", { text: t("board.pawnTitle", { code: p.code }) }),
        s("path", { d: `M${x - 10 * k},${y + 16 * k} L${x - 5 * k},${y + 2 * k} L${x + 5 * k},${y + 2 * k} L${x + 10 * k},${y + 16 * k} Z`, "stroke-width": 1.5 * k }),
        s("circle", { cx: x, cy: y - 3 * k, r: 6.5 * k, "stroke-width": 1.5 * k }),
      ),
    );
  }

  drawTrack(state) {
    const g = clear(this.track);
    const maxScore = Math.max(25, ...state.players.map((p) => p.score));
    const cells = maxScore + 1;
    const cw = 990 / cells;
    const y0 = 6;
    const ch = 38;
    g.append(s("text", { x: 5, y: y0 - 1, class: "track-title", text: "" }));
    for (let i = 0; i < cells; i++) {
      const x = 5 + i * cw;
      g.append(
        s("rect", { x, y: y0, width: cw - 2, height: ch, rx: 3, class: `track-cell${i === 20 ? " goal" : ""}` }),
        s("text", { x: x + cw / 2 - 1, y: y0 + 11, class: "track-num", text: String(i) }),
      );
    }
    // Player markers stacked in their cell.
    const byScore = new Map();
    state.players.forEach((p) => {
      const list = byScore.get(p.score) || [];
      list.push(p.seat);
      byScore.set(p.score, list);
    });
    for (const [score, seats] of byScore) {
      seats.forEach((seat, j) => {
        const x = 5 + score * cw + 3 + (j % 3) * ((cw - 8) / 3);
        const y = y0 + 16 + Math.floor(j / 3) * 10;
        const sz = Math.min(9, (cw - 8) / 3 - 1);
        g.append(s("rect", { x, y, width: sz, height: sz, rx: 1.5, fill: this.colour(seat), stroke: "#111", "stroke-width": 0.8, class: "track-piece", "data-seat": seat }));
      });
    }
    // Completed cities 0..10 (East too; 8 on Britannia), then the scores as numbers: each label measured in its own
    // language, so the cells and swatches start after it ("Cidades concluídas" is longer than "Completed cities");
    // what does not fit the width goes on a further line.
    const y1 = 54;
    const goal = this.layout.cities_to_end || 10;
    const label = (x, y, text, cls = "track-caption") => {
      const el = s("text", { x, y, class: cls, "text-anchor": "start", text });
      g.append(el);
      return Math.ceil(textWidth(el, text.length * 7.4)) + 8;
    };
    let x = 5 + label(5, y1 + 20, t("board.completedCities"));
    for (let i = 0; i <= goal; i++, x += 30) {
      g.append(
        s("rect", { x, y: y1 + 4, width: 27, height: 24, rx: 3, class: `track-cell${i === goal ? " goal" : ""}`, "data-completed": i }),
        s("text", { x: x + 13.5, y: y1 + 14, class: "track-num", text: String(i) }),
      );
      if (i === state.completed_cities) g.append(s("rect", { x: x + 8, y: y1 + 16, width: 10, height: 10, rx: 1.5, fill: "#111", class: "completed-cube" }));
    }
    const RIGHT = 995;
    let y = y1;
    x += 20;
    const scores = state.players.map((p) => {
      const name = this.ownerName(p.seat);
      return { seat: p.seat, text: `${name.length > 12 ? `${name.slice(0, 11)}…` : name} ${p.score}` };
    });
    // The caption and the first score stay together on one line.
    const caption = t("board.score");
    if (x + (caption.length + (scores.length ? scores[0].text.length : 0)) * 7.4 + 30 > RIGHT) [x, y] = [5, y + 28];
    x += label(x, y + 20, caption);
    for (const sc of scores) {
      const el = s("text", { x: x + 16, y: y + 20, class: "track-score", "text-anchor": "start", "data-seat": sc.seat, text: sc.text });
      g.append(el);
      let w = 16 + Math.ceil(textWidth(el, sc.text.length * 6.6)) + 12;
      if (x + w > RIGHT && x > 5) {
        [x, y] = [5, y + 28];
        el.setAttribute("x", String(x + 16));
        el.setAttribute("y", String(y + 20));
        w = 16 + Math.ceil(textWidth(el, sc.text.length * 6.6)) + 12;
      }
      g.append(s("rect", { x, y: y + 10, width: 12, height: 12, rx: 2, fill: this.colour(sc.seat), stroke: "#111", "stroke-width": 0.8, class: "track-swatch", "data-seat": sc.seat }));
      x += w;
    }
    this.track.setAttribute("viewBox", `0 0 1000 ${y + 38}`);
  }
}

/**
 * BoardView gives its gradient and shadow fixed ids ("paper", "shadow"): with several boards on one page the ids would
 * repeat, and Chromium then paints the later boards' background black.  Suffix them (the rules page's sides, the
 * quick rules' scenes).
 */
export function uniqueIds(svg, suffix) {
  const renamed = new Map();
  for (const node of svg.querySelectorAll("defs [id]")) {
    const id = `${node.id}-${suffix}`;
    renamed.set(node.id, id);
    node.id = id;
  }
  for (const node of svg.querySelectorAll("[fill], [filter], [stroke]")) {
    for (const attr of ["fill", "filter", "stroke"]) {
      const value = node.getAttribute(attr);
      const m = value && /^url\(#([^)]+)\)$/.exec(value);
      if (m && renamed.has(m[1])) node.setAttribute(attr, `url(#${renamed.get(m[1])})`);
    }
  }
}
