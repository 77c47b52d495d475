// SVG board renderer, shared by the game page and the replay viewer.
//
// new BoardView(container, layout, {onClick}) draws the board of GET /api/boards/{side}; render(state, colours, hl)
// draws a public state on it.  Every clickable thing carries data-key:
//   h:<house>  r:<route>  c:<city>  o:<city>:<index>  t:<table colour>  p:<province>
// hl = {keys: Map(key -> kind), selected: Set(key)} marks legal targets (kind picks the highlight colour).

import { s, clear } from "./dom.js";

const BASE_WIDTH = 1071; // the 4-5 side; the 2-3 side is drawn at a larger scale
export const PRIVILEGE_FILL = { white: "#fbf8ef", orange: "#f08c2b", pink: "#e977ab", black: "#2a2a2a" };
const ABILITY_LABEL = { keys: "Keys", actions: "Actions", privilege: "Privilege", book: "Book", bags: "Bags" };
export const MARKER_LABEL = {
  "extra-office": "Off+",
  swap: "Swap",
  "+3": "+3",
  "+4": "+4",
  improve: "Abil+",
  remove3: "Rem3",
};
export const MARKER_NAME = {
  "extra-office": "Extra office",
  swap: "Swap offices",
  "+3": "+3 actions",
  "+4": "+4 actions",
  improve: "Improve ability",
  remove3: "Remove 3",
};

function bezier(a, c, b, t) {
  const u = 1 - t;
  return [u * u * a[0] + 2 * u * t * c[0] + t * t * b[0], u * u * a[1] + 2 * u * t * c[1] + t * t * b[1]];
}

export class BoardView {
  constructor(container, layout, { onClick } = {}) {
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
      "aria-label": `Hansa Teutonica board, ${layout.side} player side`,
    });
    this.track = s("svg", { class: "track", viewBox: "0 0 1000 92", role: "img", "aria-label": "score track" });
    const wrap = container;
    clear(wrap);
    wrap.append(this.svg, this.track);
    this.svg.addEventListener("click", (ev) => this.handleClick(ev));
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
      this.routeGeom.set(r.code, { path, apex, markerNormal, tavern: r.tavern });
    }
  }

  /** Province spots, nudged off cities and houses (some province centres lie under a city). */
  placeProvinces() {
    const k = this.k;
    this.provinceXY = new Map();
    const houses = [...this.houseXY.values()];
    const clash = (x, y) =>
      this.layout.cities.some((c) => this.inCity([x, y], c, 20 * k)) ||
      houses.some(([hx, hy]) => Math.hypot(hx - x, hy - y) < 24 * k) ||
      [...this.provinceXY.values()].some(([px, py]) => Math.hypot(px - x, py - y) < 34 * k);
    for (const p of this.layout.provinces || []) {
      let best = [p.x, p.y];
      search: for (let r = 0; r <= 90 * k; r += 6 * k) {
        for (let a = 0; a < 16; a++) {
          const x = p.x + r * Math.cos((a * Math.PI) / 8 + Math.PI / 2);
          const y = p.y + r * Math.sin((a * Math.PI) / 8 + Math.PI / 2);
          if (!clash(x, y)) {
            best = [x, y];
            break search;
          }
          if (r === 0) break;
        }
      }
      this.provinceXY.set(p.code, best);
    }
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
    svg.append(this.gRoutes, this.gProvinces, this.gTaverns, this.gHouses, this.gCities, this.gTable, this.gMarkers, this.gPawn);
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
  }

  colour(owner) {
    if (owner < 0) return this.colours.neutral || "#8d8d8d";
    return this.colours.players[owner] || "#555";
  }

  piece(kind, owner, cx, cy, size, extra = {}) {
    const fill = this.colour(owner);
    const attrs = { fill, stroke: "#1b1b1b", "stroke-width": 1.1 * this.k, class: `piece ${kind === "M" ? "merchant" : "trader"}`, ...extra };
    if (kind === "M") return s("circle", { cx, cy, r: size / 2, ...attrs });
    return s("rect", { x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: 1.6 * this.k, ...attrs });
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
      grp.append(s("title", { text: `${r.cities[0]}–${r.cities[1]} (${r.houses.length} houses)` }));
      if (pawnRoutes.has(r.code)) grp.append(s("path", { d: geo.path, class: "pawn-border", "stroke-width": 16 * k }));
      if (kind) grp.append(s("path", { d: geo.path, class: "route-glow", "stroke-width": 18 * k }));
      grp.append(s("path", { d: geo.path, class: "route-edge", "stroke-width": 9 * k }));
      grp.append(s("path", { d: geo.path, class: "route-line", "stroke-width": 6 * k }));
      grp.append(s("path", { d: geo.path, class: "route-hit", "stroke-width": 22 * k }));
      g.append(grp);
    }
    // Taverns (static, but cheap enough to redraw).
    const t = clear(this.gTaverns);
    for (const r of this.layout.routes) {
      if (!r.tavern) continue;
      const geo = this.routeGeom.get(r.code);
      const [x, y] = r.tavern;
      t.append(
        s("line", { x1: x, y1: y, x2: geo.apex[0], y2: geo.apex[1], class: "tavern-link", "stroke-width": 2 * k }),
        s("rect", { x: x - 19 * k, y: y - 15 * k, width: 38 * k, height: 30 * k, rx: 5 * k, class: "tavern" }),
        s("text", { x, y: y + 24 * k, class: "tavern-label", "font-size": 8 * k, text: "Tavern" }),
      );
    }
  }

  drawProvinces(state, keys) {
    const k = this.k;
    const g = clear(this.gProvinces);
    const provinces = this.layout.provinces || [];
    const show = provinces.length && (state.pawn || state.turn.phase === "pawn_setup" || [...keys.keys()].some((x) => x.startsWith("p:")));
    if (!show) return;
    for (const p of provinces) {
      const key = `p:${p.code}`;
      const kind = keys.get(key);
      g.append(
        s(
          "g",
          { class: `province${kind ? ` hl hl-${kind}` : ""}`, "data-key": key },
          s("title", { text: `Province ${p.code}` }),
          s("circle", { cx: this.provinceXY.get(p.code)[0], cy: this.provinceXY.get(p.code)[1], r: 15 * k, class: "province-spot" }),
          s("text", { x: this.provinceXY.get(p.code)[0], y: this.provinceXY.get(p.code)[1] + 3.5 * k, "font-size": 9.5 * k, class: "province-label", text: p.code }),
        ),
      );
    }
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
        const label = occ ? `${hs.name}: ${occ[1] === "M" ? "Merchant" : "Trader"} of ${occ[0] < 0 ? "neutral" : this.ownerName(occ[0])}` : `${hs.name} (free)`;
        grp.append(s("title", { text: label }));
        if (kind || selected.has(key)) grp.append(s("rect", { x: x - H / 2 - 4 * k, y: y - H / 2 - 4 * k, width: H + 8 * k, height: H + 8 * k, rx: 5 * k, class: "hl-ring" }));
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
      grp.append(s("title", { text: `${c.name} (${c.code})${controller !== undefined ? ` — controlled by ${controller < 0 ? "neutral" : this.ownerName(controller)}` : ""}${complete ? " — completed" : ""}` }));
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
        og.append(s("title", { text: `${c.name} office ${i + 1}: ${o.colour} ${o.shape === "circle" ? "(Merchant)" : "(Trader)"}${o.coin ? ", coin" : ""}` }));
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
        const label = ABILITY_LABEL[c.ability] || c.ability;
        const w = (label.length * 5.6 + 12) * k;
        grp.append(
          s("rect", { x: c.x - w / 2, y: b.y - 15 * k, width: w, height: 12 * k, rx: 6 * k, class: "ability-pill" }),
          s("text", { x: c.x, y: b.y - 6 * k, "font-size": 8.5 * k, class: "ability-label", text: `▲ ${label}` }),
        );
      }
      if (this.layout.east_west && this.layout.east_west.includes(c.code)) {
        grp.append(
          s("text", { x: b.x + b.w + 3 * k, y: b.y + 4 * k, "font-size": 8 * k, class: "ew-label", "text-anchor": "start", text: "E–W" }),
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
      s("text", { x: c.x, y: y + 25 * k, "font-size": 8 * k, class: "table-label", text: "Coellen table" }),
    );
    spaces.forEach((sp, i) => {
      const x = x0 + i * step;
      const key = `t:${sp.colour}`;
      const kind = keys.get(key);
      const grp = s("g", { class: `table-space${kind ? ` hl hl-${kind}` : ""}`, "data-key": key });
      grp.append(s("title", { text: `Coellen table: ${sp.colour}, ${sp.points} PP` }));
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
          s("title", { text: `Claim ${key.slice(2)}` }),
          s("rect", { x: x - 22 * k, y: y - 9 * k, width: 44 * k, height: 18 * k, rx: 9 * k, class: "claim-tile", "stroke-width": 1.3 * k }),
          s("text", { x, y: y + 3.8 * k, "font-size": 10 * k, class: "claim-label", text: "Claim" }),
        ),
      );
    }
    for (const [route, type] of Object.entries(state.route_markers || {})) {
      const geo = this.routeGeom.get(route);
      if (!geo) continue;
      const label = MARKER_LABEL[type] || type;
      const w = Math.max(24, label.length * 7 + 10) * k;
      const [x, y] = geo.tavern || this.besideRoute(geo, w, 20 * k);
      const key = `r:${route}`;
      const kind = keys.get(key);
      g.append(
        s(
          "g",
          { class: `bonus-marker${kind ? ` hl hl-${kind}` : ""}`, "data-key": key, "data-marker": type },
          s("title", { text: `Bonus marker: ${MARKER_NAME[type] || type} (route ${route})` }),
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
        s("title", { text: `Pawn in province ${p.code}` }),
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
    g.append(s("text", { x: 5, y: y1 + 20, class: "track-caption", "text-anchor": "start", text: "Completed cities" }));
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
    g.append(s("text", { x, y: y1 + 20, class: "track-caption", "text-anchor": "start", text: "Score" }));
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
