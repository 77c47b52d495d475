// The Big Box modules on the table (docs/rules.md §8), shared by the game page and the replay viewer:
// the Emperor's Favour display and the tiles taken, the viewer's own mission card (its cities marked on the board
// while pointed at or tapped, its points so far), each seat's tiles and face-down markers on its desk, and every
// dealt mission card in the final result.  Names go in with textContent only.

import { h, clear } from "./dom.js";
import { t, tn } from "./i18n.js";

/** The six tiles in the engine's order, and a symbol drawn on each (its name and effect are translated). */
export const TILES = ["F-FREE", "F-ACT", "F-INC", "F-TWO", "F-CITY", "F-ABIL"];
export const TILE_ICON = { "F-FREE": "⤳", "F-ACT": "+1", "F-INC": "⇡", "F-TWO": "×2", "F-CITY": "♜", "F-ABIL": "★" };

export const tileName = (code) => t(`favour.${code}`);
export const tileHelp = (code) => t(`favourHelp.${code}`);
/** "F-ACT: +1 action every turn, also above 5." for tooltips. */
export const tileTitle = (code) => `${tileName(code)} (${code}): ${tileHelp(code)}`;

/** Whether a state plays Emperor's Favour / Mission Cards (the view carries their parts only then). */
export const hasFavour = (state) => !!(state && state.favour);

/** A tile as a small card: its symbol and name, the effect in the tooltip (and below the name when ``long``). */
export function tileCard(code, { long = false, tag = "span", attrs = {} } = {}) {
  return h(
    tag,
    { class: `tile-card${long ? " long" : ""}`, "data-tile": code, title: tileTitle(code), ...attrs },
    h("span", { class: "tile-icon", "aria-hidden": "true", text: TILE_ICON[code] || "✦" }),
    h("span", { class: "tile-text" }, h("span", { class: "tile-name", text: tileName(code) }), long ? h("span", { class: "tile-help", text: tileHelp(code) }) : null),
  );
}

/** The tiles a seat owns, in the engine's order. */
export function tilesOf(state, seat) {
  const owners = (state.favour && state.favour.owners) || {};
  return TILES.filter((code) => owners[code] === seat);
}

/**
 * A seat's mission now: for each listed city whether the seat holds an office there (printed or extra) and whether
 * it controls it, and the points the card would score now (1 per city with an office, 5 more for controlling all
 * three; docs/rules.md §8.2).
 */
export function missionNow(state, seat, cities) {
  const rows = cities.map((code) => {
    const printed = (state.offices && state.offices[code]) || [];
    const extra = (state.extra_offices && state.extra_offices[code]) || [];
    const right = (state.right_offices && state.right_offices[code]) || [];
    const office = [...printed, ...extra, ...right].some((o) => o && o[0] === seat);
    const control = state.controllers && state.controllers[code] === seat;
    return { code, office, control };
  });
  const offices = rows.filter((r) => r.office).length;
  const all = rows.length === 3 && rows.every((r) => r.control);
  return { rows, points: offices + (all ? 5 : 0) };
}

function cityName(ctx, code) {
  const c = ctx.layout && ctx.layout.cities.find((x) => x.code === code);
  return c ? c.name : code;
}

/** One mission card: its number, its three cities (an office there: ✓, controlled: ♛), the points. */
export function missionCard(state, seat, mission, ctx, { points = true } = {}) {
  const now = missionNow(state, seat, mission.cities);
  const cities = h("span", { class: "mission-cities" });
  for (const r of now.rows) {
    const marks = `${r.office ? "✓" : ""}${r.control ? "♛" : ""}`;
    const title = t(r.control ? "mission.cityControl" : r.office ? "mission.cityOffice" : "mission.cityNone", { city: cityName(ctx, r.code) });
    cities.append(
      h("span", { class: `mission-city${r.office ? " office" : ""}${r.control ? " control" : ""}`, "data-city": r.code, title },
        h("span", { class: "mc-name", text: cityName(ctx, r.code) }),
        marks ? h("span", { class: "mc-mark", "aria-hidden": "true", text: marks }) : null),
    );
  }
  return h(
    "span",
    { class: "mission-card", "data-card": mission.card, "data-seat": seat },
    h("span", { class: "mission-no", title: t("mission.cardTitle", { n: mission.card }), text: t("mission.card", { n: mission.card }) }),
    cities,
    points ? h("span", { class: "mission-points", title: t("mission.pointsTitle"), text: tn("mission.points", now.points) }) : null,
  );
}

/**
 * The modules' panel of the table: the Emperor's Favour display (tiles that may be taken; clickable when the viewer
 * may take one) with the tiles already taken beside their owners, and the viewer's own mission card(s).
 * opts: {missions: view.missions ({seat: {card, cities}}), you: [seats], takeable: Set(tile codes),
 *        onTile(code, event), onMission(cities | null, pinned), pinned: bool, nameTag(seat)}
 */
export function renderModules(el, state, ctx, opts = {}) {
  clear(el);
  const favour = state.favour;
  const missions = Object.entries(opts.missions || {}).filter(([, m]) => m && m.cities);
  el.hidden = !favour && !missions.length;
  if (el.hidden) return;
  if (favour) {
    const display = h("div", { class: "favour-tiles", role: "list" });
    const takeable = opts.takeable || new Set();
    for (const code of favour.display) {
      const can = takeable.has(code);
      const card = tileCard(code, {
        long: true,
        tag: "button",
        attrs: { type: "button", role: "listitem", class: `tile-card long${can ? " hl" : ""}`, disabled: !can, "aria-label": tileTitle(code) },
      });
      if (can && opts.onTile) card.addEventListener("click", (ev) => opts.onTile(code, ev));
      display.append(card);
    }
    if (!favour.display.length) display.append(h("span", { class: "muted favour-empty", text: t("favour.empty") }));
    const taken = TILES.filter((code) => favour.owners[code] !== undefined);
    el.append(
      h(
        "div",
        { class: "favour", id: "favour" },
        h("div", { class: "mod-head", title: t("favour.howTo") },
          h("span", { class: "mod-title", text: t("favour.title") }),
          state.over ? null : h("span", { class: `muted mod-sub${takeable.size ? " take" : " howto"}`, text: takeable.size ? t("favour.takeHint") : t("favour.howTo") }),
          h("a", { class: "rule-link", href: "/rules#s8-4", target: "_blank", rel: "noopener", text: "§8.4" })),
        display,
        taken.length
          ? h("div", { class: "favour-taken" }, h("span", { class: "lbl", text: t("favour.taken") }),
            ...taken.map((code) => h("span", { class: "taken-item", "data-tile": code }, tileCard(code), opts.nameTag ? opts.nameTag(favour.owners[code]) : null)))
          : null,
      ),
    );
  }
  for (const [seat, mission] of missions) {
    const card = missionCard(state, Number(seat), mission, ctx);
    const you = (opts.you || []).length > 1 && opts.nameTag ? opts.nameTag(Number(seat)) : null;
    const box = h(
      "button",
      {
        type: "button",
        class: `mission${opts.pinned === Number(seat) ? " pinned" : ""}`,
        "data-seat": seat,
        "aria-pressed": opts.pinned === Number(seat) ? "true" : "false",
        title: t("mission.showTitle"),
      },
      h("span", { class: "mod-title", text: t("mission.yours") }),
      you,
      card,
    );
    if (opts.onMission) {
      box.addEventListener("pointerenter", (ev) => ev.pointerType !== "touch" && opts.onMission(mission.cities, false, Number(seat)));
      box.addEventListener("pointerleave", (ev) => ev.pointerType !== "touch" && opts.onMission(null, false, Number(seat)));
      box.addEventListener("focus", () => opts.onMission(mission.cities, false, Number(seat)));
      box.addEventListener("blur", () => opts.onMission(null, false, Number(seat)));
      box.addEventListener("click", () => opts.onMission(mission.cities, true, Number(seat)));
    }
    el.append(box);
  }
}

/** The desk's row of the modules: the tiles the seat owns, its markers turned face down for them, and its
 * Tribute and Block markers beside routes (they count as collected markers at the end). */
export function deskModules(state, seat, ctx, routeName) {
  const tiles = hasFavour(state) ? tilesOf(state, seat) : [];
  const p = state.players.find((x) => x.seat === seat) || {};
  const facedown = p.facedown_markers || [];
  const beside = [
    ...(state.tributes || []).filter(([, s]) => s === seat).map(([route]) => ["tribute", route]),
    ...(state.blocks || []).filter(([, s]) => s === seat).map(([route]) => ["block", route]),
  ];
  if (!tiles.length && !facedown.length && !beside.length) return null;
  const row = h("div", { class: "desk-modules" });
  if (tiles.length) row.append(h("span", { class: "lbl", text: t("favour.desk") }), ...tiles.map((code) => tileCard(code)));
  for (const m of facedown) row.append(h("span", { class: "chip facedown", title: t("desk.markerFacedown", { marker: t(`marker.${m}`) }), text: t(`markerShort.${m}`) }));
  for (const [type, route] of beside) {
    row.append(h("span", { class: `chip beside beside-${type}`, "data-route": route, title: t(`desk.marker.${type}`, { route: routeName(ctx, route) }), text: t(`markerShort.${type}`) }));
  }
  return row;
}

/** Every dealt mission card at the end (state.result.missions), each with its owner and its points. */
export function missionsResult(result, state, ctx, nameTag) {
  if (!result || !Array.isArray(result.missions)) return null;
  const list = h("ul", { class: "missions-result", id: "missions-result" });
  result.missions.forEach((mission, seat) => {
    if (!mission) return;
    const score = (result.scores || []).find((sc) => sc.player === seat);
    list.append(
      h("li", { "data-seat": seat }, nameTag(seat), missionCard(state, seat, mission, ctx, { points: false }),
        h("span", { class: "mission-points", text: tn("mission.scored", score ? score.missions ?? 0 : 0) })),
    );
  });
  return h("div", { class: "missions-end" }, h("h3", { text: t("mission.allCards") }), list);
}
