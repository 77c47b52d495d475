// A small SVG line chart: in-game score of every player after every move (GET /api/games/{id}/history).

import { h, s } from "./dom.js";

/** history: {turns: [{n, turn, scores}]}; players: [{name, colour}] -> an element. */
export function scoreChart(history, players) {
  const W = 640;
  const H = 260;
  const m = { l: 40, r: 14, t: 14, b: 34 };
  const pts = history.turns;
  const n = Math.max(1, pts.length - 1);
  const maxY = Math.max(20, ...pts.flatMap((p) => p.scores));
  const x = (i) => m.l + ((W - m.l - m.r) * i) / n;
  const y = (v) => H - m.b - ((H - m.t - m.b) * v) / maxY;
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "score over time" });
  // Grid and axes.
  const step = maxY > 40 ? 10 : 5;
  for (let v = 0; v <= maxY; v += step) {
    svg.append(
      s("line", { x1: m.l, x2: W - m.r, y1: y(v), y2: y(v), class: "grid" }),
      s("text", { x: m.l - 6, y: y(v) + 4, class: "axis-label", "text-anchor": "end", text: String(v) }),
    );
  }
  svg.append(s("line", { x1: m.l, x2: W - m.r, y1: y(20), y2: y(20), class: "goal-line" }));
  // Turn ticks: at most ~10 labels.
  const lastTurn = pts[pts.length - 1].turn;
  const every = Math.max(1, Math.ceil(lastTurn / 10));
  let seen = -1;
  pts.forEach((p, i) => {
    if (p.turn !== seen && (p.turn - 1) % every === 0) {
      seen = p.turn;
      svg.append(
        s("line", { x1: x(i), x2: x(i), y1: H - m.b, y2: H - m.b + 4, class: "axis" }),
        s("text", { x: x(i), y: H - m.b + 15, class: "axis-label", text: String(p.turn) }),
      );
    } else if (p.turn !== seen) seen = p.turn;
  });
  svg.append(
    s("line", { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, class: "axis" }),
    s("line", { x1: m.l, x2: m.l, y1: m.t, y2: H - m.b, class: "axis" }),
    s("text", { x: (W + m.l) / 2, y: H - 3, class: "axis-title", text: "turn" }),
  );
  players.forEach((p, seat) => {
    const d = pts.map((q, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(q.scores[seat]).toFixed(1)}`).join(" ");
    svg.append(s("path", { d, class: "series", stroke: p.colour, "data-seat": seat }, s("title", { text: `${p.name}` })));
  });
  const legend = h("div", { class: "chart-legend" });
  players.forEach((p, seat) => {
    const last = pts[pts.length - 1].scores[seat];
    legend.append(h("span", { class: "name-tag", style: { "--pc": p.colour } }, h("span", { class: "swatch" }), h("span", { class: "nm", text: p.name }), h("span", { class: "muted", text: ` ${last}` })));
  });
  return h("figure", { class: "chart-wrap" }, svg, legend, h("figcaption", { class: "muted", text: "In-game score after every move" }));
}
