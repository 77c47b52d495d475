// A small SVG line chart of the scores (GET /api/games/{id}/history): the in-game score of every player after
// every move and, once the game is over, the final totals (after the end scoring) as dots beyond the last move.
//
// scoreChart(history, players, opts) -> a <figure>; the game page calls scoreChart(hist, view.players).
// opts (optional): {current: move number to mark, onPick(k): called when the chart is clicked at move k}.
// setChartCursor(figure, k) moves the mark without drawing the chart again.
//
// The chart draws itself again at its real width when that changes (text stays legible on phones), and carries its
// colours as SVG presentation attributes (no style attributes: the pages' CSP), so it needs no stylesheet.

import { h, s } from "./dom.js";
import { t } from "./i18n.js";

const INK = "#6b5b45";
const GRID = "#eee6d3";
const GOAL = "#ca8a04";
const MAX_WIDTH = 720; // app.css: svg.chart { max-width: 720px }

function niceStep(max) {
  for (const step of [5, 10, 20, 25, 50, 100]) if (max / step <= 7) return step;
  return 200;
}

/** Push labels apart vertically (at least `gap` between centres), keeping them inside [top, bottom]. */
function spread(items, gap, top, bottom) {
  const sorted = [...items].sort((a, b) => a.y - b.y);
  for (let i = 1; i < sorted.length; i++) sorted[i].y = Math.max(sorted[i].y, sorted[i - 1].y + gap);
  const over = sorted.length ? sorted[sorted.length - 1].y - bottom : 0;
  if (over > 0) for (const it of sorted) it.y -= over;
  for (let i = sorted.length - 2; i >= 0; i--) sorted[i].y = Math.min(sorted[i].y, sorted[i + 1].y - gap);
  for (const it of sorted) it.y = Math.max(it.y, top);
  return items;
}

function draw(state, width) {
  const { history, players, opts } = state;
  const W = Math.max(280, Math.min(MAX_WIDTH, Math.round(width)));
  const narrow = W < 520;
  const H = narrow ? 230 : 270;
  const pts = history.turns;
  const final = Array.isArray(history.final) && history.final.length ? history.final : null;
  const totals = final ? players.map((_, seat) => (final.find((f) => f.player === seat) || final[seat] || {}).total ?? null) : null;
  const m = { l: 34, r: final ? (narrow ? 58 : 76) : 14, t: 12, b: 34 };
  const n = Math.max(1, pts.length - 1);
  const top = Math.max(20, ...pts.flatMap((p) => p.scores), ...(totals || []).filter((x) => x !== null));
  const step = niceStep(top);
  const maxY = Math.ceil(top / step) * step;
  const plotRight = W - m.r;
  const x = (i) => m.l + ((plotRight - m.l) * i) / n;
  const y = (v) => H - m.b - ((H - m.t - m.b) * v) / maxY;
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("chart.label"), "font-family": "inherit" });
  // Grid and axes.
  for (let v = 0; v <= maxY; v += step) {
    svg.append(
      s("line", { x1: m.l, x2: plotRight, y1: y(v), y2: y(v), class: "grid", stroke: GRID }),
      s("text", { x: m.l - 6, y: y(v) + 4, class: "axis-label", "text-anchor": "end", "font-size": 10, fill: INK, text: String(v) }),
    );
  }
  svg.append(s("line", { x1: m.l, x2: plotRight, y1: y(20), y2: y(20), class: "goal-line", stroke: GOAL, "stroke-dasharray": "4 3" }, s("title", { text: t("chart.goal") })));
  // Turn ticks: at most ~10 labels (fewer on narrow charts).
  const lastTurn = pts[pts.length - 1].turn;
  const every = Math.max(1, Math.ceil(lastTurn / (narrow ? 6 : 10)));
  let seen = -1;
  pts.forEach((p, i) => {
    if (p.turn !== seen && (p.turn - 1) % every === 0) {
      seen = p.turn;
      svg.append(
        s("line", { x1: x(i), x2: x(i), y1: H - m.b, y2: H - m.b + 4, class: "axis", stroke: INK }),
        s("text", { x: x(i), y: H - m.b + 15, class: "axis-label", "text-anchor": "middle", "font-size": 10, fill: INK, text: String(p.turn) }),
      );
    } else if (p.turn !== seen) seen = p.turn;
  });
  svg.append(
    s("line", { x1: m.l, x2: plotRight, y1: H - m.b, y2: H - m.b, class: "axis", stroke: INK }),
    s("line", { x1: m.l, x2: m.l, y1: m.t, y2: H - m.b, class: "axis", stroke: INK }),
    s("text", { x: (plotRight + m.l) / 2, y: H - 3, class: "axis-title", "text-anchor": "middle", "font-size": 11, fill: INK, text: t("chart.turn") }),
  );
  // The shown move (replay).
  const cursor = s("line", { class: "chart-cursor", x1: 0, x2: 0, y1: m.t, y2: H - m.b, stroke: "#2b2118", "stroke-width": 1.2, "stroke-dasharray": "3 2", visibility: "hidden" });
  svg.append(cursor);
  players.forEach((p, seat) => {
    const d = pts.map((q, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(q.scores[seat]).toFixed(1)}`).join(" ");
    svg.append(s("path", { d, class: "series", fill: "none", stroke: p.colour, "stroke-width": 2.4, "stroke-linejoin": "round", "data-seat": seat }, s("title", { text: p.name })));
  });
  if (final) {
    // Final totals: a dot per player beyond the last move, joined to his last in-game score by a dashed line.
    const fx = plotRight + (narrow ? 18 : 24);
    svg.append(
      s("line", { x1: plotRight, x2: plotRight, y1: m.t, y2: H - m.b, stroke: INK, "stroke-dasharray": "2 3", class: "final-sep" }),
      s("text", { x: fx, y: H - m.b + 15, "text-anchor": "middle", "font-size": 10, "font-weight": 700, fill: INK, class: "axis-label final-label", text: t("chart.final") }),
    );
    const labels = [];
    players.forEach((p, seat) => {
      const total = totals[seat];
      if (total === null || total === undefined) return;
      const last = pts[pts.length - 1].scores[seat];
      svg.append(
        s("line", { x1: x(n), y1: y(last), x2: fx, y2: y(total), stroke: p.colour, "stroke-width": 1.6, "stroke-dasharray": "4 3", opacity: 0.8, class: "final-link", "data-seat": seat }),
      );
      labels.push({ seat, total, colour: p.colour, name: p.name, symbol: p.symbol, y: y(total) });
    });
    for (const lb of labels) {
      const g = s("g", { class: "final-total", "data-seat": lb.seat }, s("title", { text: t("chart.total", { name: lb.name, total: lb.total }) }));
      g.append(s("circle", { cx: fx, cy: lb.y, r: 7, fill: lb.colour, stroke: "#fff", "stroke-width": 1.5 }));
      if (lb.symbol) g.append(s("text", { x: fx, y: lb.y + 3.2, "text-anchor": "middle", "font-size": 8, fill: "#fff", text: lb.symbol, "pointer-events": "none" }));
      svg.append(g);
    }
    spread(labels, 12, m.t + 4, H - m.b);
    for (const lb of labels) {
      svg.append(s("text", { x: fx + 11, y: lb.y + 4, "font-size": 11, "font-weight": 700, fill: "#2b2118", class: "final-value", "data-seat": lb.seat, text: String(lb.total) }));
    }
  }
  state.geometry = { x, n, W, left: m.l, right: plotRight, cursor };
  return svg;
}

function placeCursor(state) {
  const g = state.geometry;
  if (!g) return;
  const k = state.current;
  if (k === null || k === undefined || !Number.isFinite(k)) {
    g.cursor.setAttribute("visibility", "hidden");
    return;
  }
  const px = g.x(Math.max(0, Math.min(g.n, k)));
  g.cursor.setAttribute("x1", px.toFixed(1));
  g.cursor.setAttribute("x2", px.toFixed(1));
  g.cursor.setAttribute("visibility", "visible");
}

const STATES = new WeakMap();

/** history: {turns: [{n, turn, scores}], final: [{player, total, ...}] or null}; players: [{name, colour, symbol}]. */
export function scoreChart(history, players, opts = {}) {
  const state = { history, players, opts, current: opts.current ?? null, width: 640, geometry: null };
  const final = Array.isArray(history.final) && history.final.length ? history.final : null;
  const pts = history.turns;
  const legend = h("div", { class: "chart-legend" });
  players.forEach((p, seat) => {
    const last = pts[pts.length - 1].scores[seat];
    const total = final ? (final.find((f) => f.player === seat) || {}).total : undefined;
    legend.append(
      h(
        "span",
        { class: "name-tag chart-key", style: { "--pc": p.colour }, "data-seat": seat },
        h("span", { class: "swatch" }),
        h("span", { class: "nm", text: p.name }),
        final ? h("span", { class: "muted", text: t("chart.inGame") }) : null,
        h("b", { class: "key-in-game", text: String(last) }),
        total !== undefined ? h("span", { class: "muted", text: t("chart.final") }) : null,
        total !== undefined ? h("b", { class: "key-final", text: String(total) }) : null,
      ),
    );
  });
  const caption = final ? t("chart.captionFinal") : t("chart.caption");
  const box = h("div", { class: "chart-box" }, draw(state, state.width));
  const figure = h("figure", { class: "chart-wrap" }, box, legend, h("figcaption", { class: "muted", text: caption }));
  STATES.set(figure, state);
  placeCursor(state);
  if (opts.onPick) {
    box.classList.add("pickable");
    box.addEventListener("click", (ev) => {
      const svg = box.querySelector("svg");
      const g = state.geometry;
      if (!svg || !g) return;
      const rect = svg.getBoundingClientRect();
      const px = ((ev.clientX - rect.left) * g.W) / rect.width;
      const k = Math.round(((px - g.left) / (g.right - g.left)) * g.n);
      opts.onPick(Math.max(0, Math.min(g.n, k)));
    });
  }
  if (typeof ResizeObserver === "function") {
    const ro = new ResizeObserver(() => {
      const w = Math.min(MAX_WIDTH, Math.round(box.clientWidth));
      if (!w || Math.abs(w - state.width) < 8) return;
      state.width = w;
      box.replaceChildren(draw(state, w));
      placeCursor(state);
    });
    ro.observe(box);
  }
  return figure;
}

/** Mark move k on a chart made by scoreChart (null: no mark). */
export function setChartCursor(figure, k) {
  const state = STATES.get(figure);
  if (!state) return;
  state.current = k;
  placeCursor(state);
}

// ------------------------------------------------------------------ a player's rating history (the profile page)

/** The rating a new player starts from (ratings.py: 24 × (mu − 3 sigma) + 1000 with OpenSkill's defaults). */
export const START_RATING = 1000;

function drawRatings(state, width) {
  const { history, opts } = state;
  const W = Math.max(280, Math.min(MAX_WIDTH, Math.round(width)));
  const narrow = W < 520;
  const H = narrow ? 200 : 240;
  const m = { l: 42, r: 14, t: 12, b: 34 };
  const values = [START_RATING, ...history.map((p) => p.rating)];
  const n = Math.max(1, history.length);
  const lo0 = Math.min(...values);
  const hi0 = Math.max(...values);
  const span = Math.max(40, hi0 - lo0);
  const step = [10, 20, 25, 50, 100, 200, 250, 500].find((st) => span / st <= (narrow ? 4 : 6)) || 1000;
  const lo = Math.floor((lo0 - span * 0.08) / step) * step;
  const hi = Math.ceil((hi0 + span * 0.08) / step) * step;
  const pad = 12; // the start and the last game stand clear of the axes
  const x = (i) => m.l + pad + ((W - m.r - m.l - 2 * pad) * i) / n;
  const y = (v) => H - m.b - ((H - m.t - m.b) * (v - lo)) / (hi - lo);
  const svg = s("svg", { class: "chart rating-chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("club.chartLabel"), "font-family": "inherit" });
  for (let v = lo; v <= hi; v += step) {
    svg.append(
      s("line", { x1: m.l, x2: W - m.r, y1: y(v), y2: y(v), class: "grid", stroke: GRID }),
      s("text", { x: m.l - 6, y: y(v) + 4, class: "axis-label", "text-anchor": "end", "font-size": 10, fill: INK, text: String(v) }),
    );
  }
  const every = Math.max(1, Math.ceil(n / (narrow ? 6 : 10)));
  for (let i = 0; i <= n; i += every) {
    svg.append(
      s("line", { x1: x(i), x2: x(i), y1: H - m.b, y2: H - m.b + 4, class: "axis", stroke: INK }),
      s("text", { x: x(i), y: H - m.b + 15, class: "axis-label", "text-anchor": "middle", "font-size": 10, fill: INK, text: String(i) }),
    );
  }
  svg.append(
    s("line", { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, class: "axis", stroke: INK }),
    s("line", { x1: m.l, x2: m.l, y1: m.t, y2: H - m.b, class: "axis", stroke: INK }),
    s("text", { x: (W - m.r + m.l) / 2, y: H - 3, class: "axis-title", "text-anchor": "middle", "font-size": 11, fill: INK, text: t("club.chartGames") }),
  );
  const d = values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  svg.append(s("path", { d, class: "series rating-line", fill: "none", stroke: "#8c2f1b", "stroke-width": 2.2, "stroke-linejoin": "round" }));
  svg.append(s("circle", { cx: x(0), cy: y(START_RATING), r: 3, fill: "#fff", stroke: INK, "stroke-width": 1.2, class: "start-point" }, s("title", { text: t("club.chartStart", { rating: START_RATING }) })));
  // One dot per rated game, a link to its replay; a win is gold.
  history.forEach((p, i) => {
    const label = t("club.chartPoint", { n: i + 1, rating: p.rating, place: p.place, players: p.players });
    const dot = s("circle", { cx: x(i + 1), cy: y(p.rating), r: narrow ? 4 : 3.6, fill: p.place === 1 ? "#ca8a04" : "#8c2f1b", stroke: "#fff", "stroke-width": 1.2, class: `point${p.place === 1 ? " won" : ""}`, "data-game": p.game }, s("title", { text: label }));
    svg.append(opts.link ? s("a", { href: opts.link(p), "aria-label": label }, dot) : dot);
  });
  return svg;
}

/** history: [{at, game, rating, place, players}] oldest first (GET /api/players/{name}); opts.link(point) -> a URL. */
export function ratingChart(history, opts = {}) {
  const state = { history, opts, width: 640 };
  const box = h("div", { class: "chart-box" }, drawRatings(state, state.width));
  const figure = h("figure", { class: "chart-wrap" }, box, h("figcaption", { class: "muted", text: t("club.chartCaption") }));
  if (typeof ResizeObserver === "function") {
    const ro = new ResizeObserver(() => {
      const w = Math.min(MAX_WIDTH, Math.round(box.clientWidth));
      if (!w || Math.abs(w - state.width) < 8) return;
      state.width = w;
      box.replaceChildren(drawRatings(state, w));
    });
    ro.observe(box);
  }
  return figure;
}
