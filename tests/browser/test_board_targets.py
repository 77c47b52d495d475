"""Every map's clickable targets on the board, at desktop (1280x800) and phone (390x844, touch) size: each is reached
by a click at its centre, no two overlap, and they are large enough to read and hit.

Maps: the base board's 2-3 and 4-5 sides, East, Britannia's small (3 players) and large (4-5) sides.  Two positions
on each, built by playing moves over HTTP with the hot-seat token:

* the start, where placing is legal: every free house is a target, and the start's bonus markers lie on the board
  (clickable too: a click on one is a click on its route);
* a route filled by the deciding player: its claim badge, the offices and abilities of its cities, its route and
  the Coellen table are targets.

Targets are the board's ``[data-key]`` elements highlighted as legal (``.hl``) and every bonus marker.  Checks:

* ``document.elementFromPoint`` at each target's centre (after scrolling it into view) hits the target or a child
  of it;
* no two targets' bounding boxes overlap by more than ``OVERLAP`` CSS px in both directions (nested targets, such as
  an office in its city, are not compared; routes are lines, checked by the centre test only); two houses, whose tap
  areas are round (a diagonal route's neighbours have overlapping square boxes but not overlapping circles), are at
  least their tap area's width apart, less ``OVERLAP``;
* desktop: a house's tap square and the city names are at least the base board's (4-5 side at 1280x800: 18.0 and
  9.4 px; asserted >= ``HOUSE_DESKTOP`` and ``TEXT_DESKTOP``) and no board text is smaller than the base board's
  smallest (its coin labels, 5.3 px; asserted >= ``SMALLEST_TEXT``);
* phone: after a tap on a house zooms the board in (tap-to-zoom), every target is at least ``PHONE_TARGET`` CSS px
  in both directions (a route: its tap stroke's width); and no page scrolls sideways.

Screenshots of every map at both sizes go to artifacts/screenshots/ (test names).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, SIDEWAYS, Server, open_game, wait_mine_or_over

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

DESKTOP = {"width": 1280, "height": 800}
OVERLAP = 2.0  # CSS px
HOUSE_DESKTOP = 17.9  # the base board's 18.0 px, less rounding
TEXT_DESKTOP = 9.3  # the base board's city names, 9.4 px
SMALLEST_TEXT = 5.3  # the base board's smallest text (coin labels), 5.31 px
PHONE_TARGET = 24.0

MAPS = [
    # id, players, options, board side
    pytest.param(2, {}, "2-3", id="base-2-3"),
    pytest.param(4, {}, "4-5", id="base-4-5"),
    pytest.param(3, {"map": "east"}, "east", id="east"),
    pytest.param(3, {"map": "britannia"}, "britannia_3", id="britannia-small"),
    pytest.param(4, {"map": "britannia"}, "britannia_45", id="britannia-large"),
]

#: The targets of the board: per target its key, kind, box (CSS px, after scrolling it into view) and whether a
#: click at its centre reaches it (else what it reaches); plus the pairs of targets whose boxes overlap.
TARGETS = """(tolerance) => {
  const svg = document.querySelector('svg.board');
  const all = [...svg.querySelectorAll('[data-key].hl, .bonus-marker[data-key]')];
  const name = (e) => `${e.getAttribute('class').split(' ')[0]} ${e.dataset.key}`;
  const missed = [];
  const boxes = [];
  for (const e of all) {
    e.scrollIntoView({ block: 'center', inline: 'center' });
    if (e.matches('g.route')) {
      // A route is a line: some point of it between its houses reaches it.
      const path = e.querySelector('.route-hit');
      const len = path.getTotalLength();
      const m = path.getScreenCTM();
      const ok = [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9].some((f) => {
        const p = path.getPointAtLength(len * f);
        const hit = document.elementFromPoint(m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f);
        return hit && e.contains(hit);
      });
      if (!ok) missed.push(`${name(e)}: no point of the line reaches it`);
      continue;
    }
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !e.contains(hit)) {
      const over = hit && hit.closest('[data-key]');
      missed.push(`${name(e)}: its centre reaches ${hit ? (over ? name(over) : hit.getAttribute('class') || hit.tagName) : 'nothing'}`);
    }
    const y0 = window.scrollY;
    boxes.push({ e, key: name(e), l: r.left + window.scrollX, t: r.top + y0, r: r.right + window.scrollX, b: r.bottom + y0 });
  }
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.e.contains(b.e) || b.e.contains(a.e)) continue;
      if (a.e.matches('g.house') && b.e.matches('g.house')) {
        // Two houses: their round tap areas (a house's tap square's width across) must not overlap.
        const d = Math.hypot((a.l + a.r - b.l - b.r) / 2, (a.t + a.b - b.t - b.b) / 2);
        const tap = Math.min(a.e.querySelector('.house-hit').getBoundingClientRect().width, b.e.querySelector('.house-hit').getBoundingClientRect().width);
        if (d < tap - tolerance) overlaps.push(`${a.key} / ${b.key}: centres ${d.toFixed(1)} px apart, tap areas ${tap.toFixed(1)} px across`);
        continue;
      }
      const w = Math.min(a.r, b.r) - Math.max(a.l, b.l);
      const h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
      if (w > tolerance && h > tolerance) overlaps.push(`${a.key} / ${b.key}: ${w.toFixed(1)} x ${h.toFixed(1)} px`);
    }
  }
  window.scrollTo(0, 0);
  const kinds = {};
  for (const e of all) kinds[e.getAttribute('class').split(' ')[0]] = (kinds[e.getAttribute('class').split(' ')[0]] || 0) + 1;
  return { count: all.length, kinds, missed, overlaps };
}"""

#: Sizes on screen (CSS px): the house tap square, the city names, the smallest board text (its class), the board.
SIZES = """() => {
  const svg = document.querySelector('svg.board');
  const scale = svg.getScreenCTM().a;
  let smallest = [Infinity, ''];
  for (const t of svg.querySelectorAll('text')) {
    const f = parseFloat(t.getAttribute('font-size')) * scale;
    if (f < smallest[0]) smallest = [f, t.getAttribute('class')];
  }
  const names = [...svg.querySelectorAll('text.city-name')].map((t) => parseFloat(t.getAttribute('font-size')) * scale);
  const house = svg.querySelector('.house-hit').getBoundingClientRect();
  const box = svg.getBoundingClientRect();
  return { house: Math.min(house.width, house.height), text: Math.min(...names), smallest: smallest[0], smallestClass: smallest[1],
           board: [Math.round(box.width), Math.round(box.height)] };
}"""

#: After the tap-to-zoom: the smallest target (both directions, CSS px) and what it is.
SMALLEST_TARGET = """() => {
  const svg = document.querySelector('svg.board');
  let small = [Infinity, ''];
  const scale = svg.getScreenCTM().a;
  for (const e of svg.querySelectorAll('[data-key].hl, .bonus-marker[data-key]')) {
    const r = e.getBoundingClientRect();
    // A route is a line: its tap area is as wide as its (invisible) hit stroke.
    const m = e.matches('g.route') ? parseFloat(e.querySelector('.route-hit').getAttribute('stroke-width')) * scale : Math.min(r.width, r.height);
    if (m < small[0]) small = [m, `${e.getAttribute('class').split(' ')[0]} ${e.dataset.key}`];
  }
  return small;
}"""


def api_view(server: Server, game: dict[str, Any]) -> dict[str, Any]:
    return server.call("GET", f"/api/games/{game['id']}", token=game["hotseat_token"])  # type: ignore[no-any-return]


def api_play(server: Server, game: dict[str, Any], text: str) -> dict[str, Any]:
    view = api_view(server, game)
    return server.call(  # type: ignore[no-any-return]
        "POST", f"/api/games/{game['id']}/moves",
        {"move": text, "version": view["version"], "seat": view["state"]["turn"]["decider"]}, token=game["hotseat_token"],
    )


def fill_a_route(server: Server, game: dict[str, Any], layout: dict[str, Any]) -> str:
    """The first player places Traders on a short land route of England or the base board until it is full (the
    others end their turns); returns the route, now claimable by the player who decides."""
    hero = api_view(server, game)["state"]["turn"]["decider"]
    routes = [r for r in layout["routes"] if not r.get("permanent") and r.get("country", "England") == "England"
              and not any(h.get("ship") for h in r["houses"])]
    route = min(routes, key=lambda r: (len(r["houses"]), r["code"]))
    queue = [f"place T {h['name']}" for h in route["houses"]]
    while True:
        view = api_view(server, game)
        decider = view["state"]["turn"]["decider"]
        legal = [m["text"] for m in view["legal"]]
        if decider != hero:
            api_play(server, game, "end")
            continue
        if not queue:
            assert any(t.startswith(f"claim {route['code']}") for t in legal), legal[:8]
            return str(route["code"])
        assert queue[0] in legal, (queue[0], legal[:8])
        api_play(server, game, queue.pop(0))


def check_targets(page: Any, where: str) -> dict[str, Any]:
    found = page.evaluate(TARGETS, OVERLAP)
    assert found["count"] > 0, where
    assert not found["missed"], f"{where}: targets a click at their centre does not reach: {found['missed'][:8]}"
    assert not found["overlaps"], f"{where}: overlapping targets: {found['overlaps'][:8]}"
    return found  # type: ignore[no-any-return]


def shoot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize(("players", "options", "side"), MAPS)
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_board_targets(new_page: Any, server: Server, players: int, options: dict[str, Any], side: str, phone: bool) -> None:
    game = server.create([{"name": n, "type": "human"} for n in ("Ann", "Bo", "Cy", "Di", "Ed")[:players]], seed=1, options=options,
                         hotseat=True)
    page = new_page(phone=True) if phone else new_page(viewport=DESKTOP)
    open_game(page, server, game["hotseat_url"])
    wait_mine_or_over(page)
    assert page.evaluate("window.hansaGame.view.board_side") == side
    size = "phone" if phone else "desktop"
    assert page.evaluate(SIDEWAYS) == []
    # The start: houses and the bonus markers.
    start = check_targets(page, f"{side} {size} at the start")
    assert start["kinds"].get("house", 0) > 20 and start["kinds"].get("bonus-marker", 0) >= 1, start["kinds"]
    sizes = page.evaluate(SIZES)
    print(f"{side} {size}: {sizes}")
    if not phone:
        assert sizes["house"] >= HOUSE_DESKTOP, sizes
        assert sizes["text"] >= TEXT_DESKTOP, sizes
        assert sizes["smallest"] >= SMALLEST_TEXT, sizes
    shoot(page, f"targets-{side}-{size}-start")
    # A full route: its claim badge, offices, abilities and the route.
    layout = page.evaluate("window.hansaGame.board.layout")
    route = fill_a_route(server, game, layout)
    page.reload()
    page.wait_for_selector("svg.board .house")
    wait_mine_or_over(page)
    page.wait_for_selector(f"svg.board .claim-badge[data-key='r:{route}']")
    claim = check_targets(page, f"{side} {size} with {route} to claim")
    assert claim["kinds"].get("claim-badge", 0) == 1 and claim["kinds"].get("route", 0) == 1, claim["kinds"]
    assert page.evaluate(SIDEWAYS) == []
    shoot(page, f"targets-{side}-{size}-claim")
    if phone:
        # A tap on a house zooms in (tap-to-zoom): then every target is a fingertip's size.
        house = page.locator("svg.board g.house.free.hl").nth(3)
        house.scroll_into_view_if_needed()
        box = house.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function("() => document.querySelector('#board-viewport').classList.contains('zoomed')")
        smallest, what = page.evaluate(SMALLEST_TARGET)
        print(f"{side} phone zoomed: smallest target {smallest:.1f} px ({what})")
        assert smallest >= PHONE_TARGET, (smallest, what)
        shoot(page, f"targets-{side}-phone-zoomed")
        page.locator("#zoom-reset").tap()
        assert page.evaluate(SIDEWAYS) == []
