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
export const PRIVILEGE_FILL = { white: "#fbf8ef", orange: "#f08c2b", pink: "#e977ab", black: "#2a2a2a" };
/** Short labels drawn on the board: "Keys", "Off+", ...; the full names are ability.* and marker.*. */
export const abilityShort = (ability) => t(`abilityShort.${ability}`);
export const markerShort = (type) => t(`markerShort.${type}`);
const markerFull = (type) => t(`marker.${type}`);

function bezier(a, c, b, f) {
  const u = 1 - f;
  return [u * u * a[0] + 2 * u * f * c[0] + f * f * b[0], u * u * a[1] + 2 * u * f * c[1] + f * f * b[1]];
}

export class BoardView {
  constructor(container, layout, { onClick, trackIn } = {}) {
    this.layout = layout;
    this.k = layout.width / BASE_WIDTH;
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
      "aria-label": t("board.aria", { side: layout.side }),
    });
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
    const n = c.offices.length;
    const O = 19 * k;
    const G = 4 * k;
    const P = 4 * k;
    const w = n * O + (n - 1) * G + 2 * P;
    const hgt = O + 2 * P;
    return { x: c.x - w / 2, y: c.y - hgt / 2, w, h: hgt, O, G, P };
  }

  officeCentre(c, i) {
    const b = this.cityBox(c);
    return [b.x + b.P + i * (b.O + b.G) + b.O / 2, c.y];
  }

  inCity(pt, c, margin) {
    const b = this.cityBox(c);
    return pt[0] > b.x - margin && pt[0] < b.x + b.w + margin && pt[1] > b.y - margin && pt[1] < b.y + b.h + margin;
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
      let chosen = null;
      for (let step = 0; step <= 16; step++) {
        const bulge = step * 0.09 * len * side;
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
        chosen = { ctrl, pts, cum, i0, i1, usable, bulge };
        if (usable >= n * pitch) break;
      }
      const { ctrl, pts, cum, i0, usable } = chosen;
      const p = Math.min(maxPitch, Math.max(usable / n, 14 * k));
      const start = cum[i0] + (usable - n * p) / 2;
      const at = (dist) => {
        let j = 1;
        while (j < cum.length - 1 && cum[j] < dist) j++;
        const t = (dist - cum[j - 1]) / (cum[j] - cum[j - 1] || 1);
        return [pts[j - 1][0] + (pts[j][0] - pts[j - 1][0]) * t, pts[j - 1][1] + (pts[j][1] - pts[j - 1][1]) * t];
      };
      r.houses.forEach((hs, i) => this.houseXY.set(hs.name, at(start + p * (i + 0.5))));
      const apex = bezier(a, ctrl, b, 0.5);
      // The marker sits beside the route, on the side with more room.
      const mside = chosen.bulge !== 0 ? Math.sign(chosen.bulge) : side;
      const markerNormal = [nrm[0] * mside, nrm[1] * mside];
      const path = chosen.bulge === 0 ? `M${a[0]},${a[1]} L${b[0]},${b[1]}` : `M${a[0]},${a[1]} Q${ctrl[0]},${ctrl[1]} ${b[0]},${b[1]}`;
      this.routeGeom.set(r.code, { path, apex, markerNormal, tavern: r.tavern, ctrl: chosen.bulge === 0 ? null : ctrl, a: r.cities[0], b: r.cities[1] });
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
    this.gPawn = s("g", { class: "pawn-layer" });
    this.gMarks = s("g", { class: "marks" });
    this.gFx = s("g", { class: "effects" });
    svg.append(this.gProvinces, this.gRoutes, this.gTaverns, this.gHouses, this.gCities, this.gTable, this.gMarkers, this.gPawn, this.gMarks, this.gFx);
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
      } else if (type === "o" && this.cityByCode.has(rest[0])) {
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
    if (type === "o") {
      const c = this.cityByCode.get(rest[0]);
      return c ? this.officeCentre(c, Number(rest[1])) : null;
    }
    if (type === "c") {
      const c = this.cityByCode.get(rest[0]);
      if (!c) return null;
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
      const grp = s("g", { class: `route${kind ? ` hl hl-${kind}` : ""}`, "data-key": key });
      grp.append(s("title", { text: t("board.routeTitle", { a: r.cities[0], b: r.cities[1], n: r.houses.length }) }));
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
      const [x, y] = r.tavern;
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
        const grp = s("g", {
          class: `house${kind ? ` hl hl-${kind}` : ""}${selected.has(key) ? " selected" : ""}${occ ? " occupied" : " free"}`,
          "data-key": key,
        });
        const label = occ ? t("board.houseTaken", { house: hs.name, piece: t(`piece.${occ[1]}`), owner: occ[0] < 0 ? t("board.neutral") : this.ownerName(occ[0]) }) : t("board.houseFree", { house: hs.name });
        grp.append(s("title", { text: label }));
        if (kind || selected.has(key)) grp.append(s("rect", { x: x - H / 2 - 4 * k, y: y - H / 2 - 4 * k, width: H + 8 * k, height: H + 8 * k, rx: 5 * k, class: "hl-ring" }));
        grp.append(s("rect", { x: x - 11 * k, y: y - 11 * k, width: 22 * k, height: 22 * k, class: "house-hit" }));
        grp.append(s("rect", { x: x - H / 2, y: y - H / 2, width: H, height: H, rx: 3 * k, class: "house-slot", "stroke-width": 1.3 * k }));
        if (occ) grp.append(this.piece(occ[1], occ[0], x, y, 12.5 * k));
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
    for (const c of this.layout.cities) {
      const b = this.cityBox(c);
      const ckey = `c:${c.code}`;
      const ckind = keys.get(ckey);
      const controller = state.controllers[c.code];
      const offices = state.offices[c.code] || [];
      const complete = offices.length > 0 && offices.every((o) => o);
      const grp = s("g", { class: `city${ckind ? ` hl hl-${ckind}` : ""}${complete ? " complete" : ""}`, "data-key": ckey });
      grp.append(s("title", { text: `${c.name} (${c.code})${controller !== undefined ? t("board.controlledBy", { owner: controller < 0 ? t("board.neutral") : this.ownerName(controller) }) : ""}${complete ? t("board.completed") : ""}` }));
      if (ckind) grp.append(s("rect", { x: b.x - 6 * k, y: b.y - 6 * k, width: b.w + 12 * k, height: b.h + 12 * k, rx: 9 * k, class: "hl-ring" }));
      const box = s("rect", {
        x: b.x, y: b.y, width: b.w, height: b.h, rx: 6 * k, class: "city-box", filter: "url(#shadow)",
        "stroke-width": controller !== undefined ? 3.2 * k : 1.4 * k,
      });
      if (controller !== undefined) box.setAttribute("stroke", this.colour(controller));
      grp.append(box);
      if (controller !== undefined) {
        // A pennant in the controller's colour on the box's top-left corner.
        const px = b.x + 2 * k;
        const py = b.y - 1 * k;
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
        og.append(s("title", { text: t(o.coin ? "board.officeCoin" : "board.office", { city: c.name, n: i + 1, colour: t(`privilege.${o.colour}`), piece: t(o.shape === "circle" ? "piece.M" : "piece.T") }) }));
        if (okind) og.append(s("rect", { x: ox - b.O / 2 - 3 * k, y: oy - b.O / 2 - 3 * k, width: b.O + 6 * k, height: b.O + 6 * k, rx: 4 * k, class: "hl-ring" }));
        const fill = PRIVILEGE_FILL[o.colour] || "#fff";
        const attrs = { fill, class: "office-slot", "stroke-width": 1.2 * k };
        if (o.shape === "circle") og.append(s("circle", { cx: ox, cy: oy, r: b.O / 2, ...attrs }));
        else og.append(s("rect", { x: ox - b.O / 2, y: oy - b.O / 2, width: b.O, height: b.O, rx: 1.5 * k, ...attrs }));
        const occ = offices[i];
        if (occ) og.append(this.piece(occ[1], occ[0], ox, oy, 12 * k, { stroke: o.colour === "black" ? "#fff" : "#1b1b1b" }));
        if (o.coin) {
          og.append(
            s("circle", { cx: ox + b.O / 2 - 1 * k, cy: oy - b.O / 2 + 1 * k, r: 4.6 * k, class: "coin", "stroke-width": 0.9 * k }),
            s("text", { x: ox + b.O / 2 - 1 * k, y: oy - b.O / 2 + 3.2 * k, "font-size": 6.5 * k, class: "coin-label", text: "1" }),
          );
        }
        grp.append(og);
      });
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
      // Name below, ability above.
      grp.append(s("text", { x: c.x, y: b.y + b.h + 12 * k, "font-size": 11.5 * k, class: "city-name", text: c.name }));
      if (c.ability) {
        const label = abilityShort(c.ability);
        const w = (label.length * 5.6 + 12) * k;
        const akey = `ab:${c.code}`;
        const akind = keys.get(akey);
        // Clicking the ability claims a route ending here with the ability as its benefit (when one can).
        grp.append(
          s(
            "g",
            { class: `ability${akind ? ` hl hl-${akind}` : ""}`, "data-key": akey },
            s("title", { text: t("board.abilityTitle", { city: c.name, ability: t(`ability.${c.ability}`) }) }),
            akind ? s("rect", { x: c.x - w / 2 - 3 * k, y: b.y - 18 * k, width: w + 6 * k, height: 18 * k, rx: 9 * k, class: "hl-ring" }) : null,
            s("rect", { x: c.x - w / 2, y: b.y - 15 * k, width: w, height: 12 * k, rx: 6 * k, class: "ability-pill" }),
            s("text", { x: c.x, y: b.y - 6 * k, "font-size": 8.5 * k, class: "ability-label", text: `▲ ${label}` }),
          ),
        );
      }
      if (this.layout.east_west && this.layout.east_west.includes(c.code)) {
        grp.append(
          s("text", { x: b.x + b.w + 3 * k, y: b.y + 4 * k, "font-size": 8 * k, class: "ew-label", "text-anchor": "start", text: t("board.ew") }),
        );
      }
      g.append(grp);
    }
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
      s("text", { x: c.x, y: y + 25 * k, "font-size": 8 * k, class: "table-label", text: t("board.table") }),
    );
    this.tableXY = new Map();
    spaces.forEach((sp, i) => {
      const x = x0 + i * step;
      this.tableXY.set(sp.colour, [x, y]);
      const key = `t:${sp.colour}`;
      const kind = keys.get(key);
      const grp = s("g", { class: `table-space${kind ? ` hl hl-${kind}` : ""}`, "data-key": key });
      grp.append(s("title", { text: t("board.tableTitle", { colour: t(`privilege.${sp.colour}`), points: sp.points }) }));
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

  drawMarkers(state, keys) {
    const k = this.k;
    const g = clear(this.gMarkers);
    // A "Claim" badge on every claimable route (clicking it opens the benefit chooser).
    for (const [key, kind] of keys) {
      if (kind !== "claim" || !key.startsWith("r:")) continue;
      const geo = this.routeGeom.get(key.slice(2));
      if (!geo) continue;
      const hasMarker = state.route_markers && state.route_markers[key.slice(2)] && !geo.tavern;
      const [x, y] = this.besideRoute(geo, 44 * k, 18 * k, hasMarker ? 26 * k : 0);
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
    for (const [route, type] of Object.entries(state.route_markers || {})) {
      const geo = this.routeGeom.get(route);
      if (!geo) continue;
      const label = markerShort(type);
      const w = Math.max(24, label.length * 7 + 10) * k;
      const [x, y] = geo.tavern || this.besideRoute(geo, w, 20 * k);
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
    // Completed cities 0..10.
    const y1 = 54;
    g.append(s("text", { x: 5, y: y1 + 20, class: "track-caption", "text-anchor": "start", text: t("board.completedCities") }));
    for (let i = 0; i <= 10; i++) {
      const x = 120 + i * 30;
      g.append(
        s("rect", { x, y: y1 + 4, width: 27, height: 24, rx: 3, class: `track-cell${i === 10 ? " goal" : ""}` }),
        s("text", { x: x + 13.5, y: y1 + 14, class: "track-num", text: String(i) }),
      );
      if (i === state.completed_cities) g.append(s("rect", { x: x + 8, y: y1 + 16, width: 10, height: 10, rx: 1.5, fill: "#111", class: "completed-cube" }));
    }
    // Scores as numbers.
    let x = 470;
    g.append(s("text", { x, y: y1 + 20, class: "track-caption", "text-anchor": "start", text: t("board.score") }));
    x += 42;
    state.players.forEach((p) => {
      const name = this.ownerName(p.seat);
      const short = name.length > 12 ? `${name.slice(0, 11)}…` : name;
      g.append(
        s("rect", { x, y: y1 + 10, width: 12, height: 12, rx: 2, fill: this.colour(p.seat), stroke: "#111", "stroke-width": 0.8 }),
        s("text", { x: x + 16, y: y1 + 20, class: "track-score", "text-anchor": "start", "data-seat": p.seat, text: `${short} ${p.score}` }),
      );
      x += 16 + (short.length + 4) * 6.6;
    });
  }
}
