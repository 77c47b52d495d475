"""The zoom serves the player (phone, touch): a tap-to-zoom made for a decision goes back once the decision is made (to
the whole board, or to the player's own zoom from before), and a move of others that happened off screen on a zoomed
board is brought into view."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    CHROMIUM,
    SCREENSHOTS,
    Server,
    choose,
    open_game,
    version,
    wait_mine_or_over,
    wait_version_change,
)

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

HUMAN = {"name": "Ada", "type": "human"}
BOT = {"name": "Bot", "type": "bot", "bot": "heuristic"}


def scale(page: Any) -> float:
    transform = page.locator("#board-wrap").evaluate("e => e.style.transform")
    m = re.search(r"scale\(([\d.]+)\)", transform)
    return float(m.group(1)) if m else 1.0


def settle(page: Any) -> None:
    page.wait_for_timeout(500)  # the zoom's animation (0.35 s)


def tap_centre(page: Any, box: dict[str, float]) -> None:
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def decide_by_tapping(page: Any) -> None:
    """Tap a small free house (tap-to-zoom), tap it again at fingertip size to place there, and wait for the move."""
    house = page.locator("svg.board g.house.free.hl").nth(4)
    box = house.bounding_box()
    assert box and box["width"] < 40
    before_scale = scale(page)
    tap_centre(page, box)
    page.wait_for_function("() => document.querySelector('#board-viewport').classList.contains('zoomed')")
    assert scale(page) > before_scale
    box = house.bounding_box()
    assert box and box["width"] >= 30
    before = version(page)
    tap_centre(page, box)
    if page.locator("#popup").is_visible():
        page.locator("#popup .popup-choice").first.tap()
    wait_version_change(page, before)
    settle(page)


def test_tap_to_zoom_goes_back_after_the_decision(new_page: Any, server: Server) -> None:
    game = server.create([HUMAN, BOT], seed=9)
    page = new_page(phone=True)
    open_game(page, server, game["seats"][0]["url"])
    wait_mine_or_over(page)
    # From the whole board: back to the whole board once the house is placed.
    decide_by_tapping(page)
    page.wait_for_function("() => !document.querySelector('#board-viewport').classList.contains('zoomed')")
    assert scale(page) == 1.0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "zoom-back-after-decision-phone.png"))
    # The player's own zoom (the + button) is theirs: a tap-to-zoom goes back to it, not further.
    wait_mine_or_over(page)
    page.locator("#zoom-in").tap()
    settle(page)
    own = scale(page)
    assert own == pytest.approx(1.5)
    decide_by_tapping(page)
    assert scale(page) == pytest.approx(own)


def test_a_move_off_screen_is_brought_into_view(new_page: Any, server: Server) -> None:
    game = server.create([HUMAN, BOT], seed=9)
    token = game["seats"][0]["token"]
    page = new_page(phone=True)
    open_game(page, server, game["seats"][0]["url"])
    wait_mine_or_over(page)
    # The player zooms in far on the board's top left corner (pinch-like: the buttons, then a pan by drag).
    for _ in range(4):
        page.locator("#zoom-in").tap()
    settle(page)
    vp = page.locator("#board-viewport").bounding_box()
    assert vp
    page.locator("#board-viewport").evaluate(
        """(v) => {
          const r = v.getBoundingClientRect();
          const fire = (type, x, y) => v.dispatchEvent(new PointerEvent(type, { pointerId: 7, pointerType: 'touch', clientX: x, clientY: y, bubbles: true, buttons: 1 }));
          fire('pointerdown', r.left + 10, r.top + 10);
          fire('pointermove', r.left + r.width * 3, r.top + r.height * 3);
          fire('pointerup', r.left + r.width * 3, r.top + r.height * 3);
        }"""
    )
    settle(page)
    zoomed = scale(page)
    assert zoomed > 4
    # Ada's turn by the API (the page follows by its socket); then the bot plays its turn somewhere else.
    turn = server.call("GET", f"/api/games/{game['id']}", token=token)["state"]["turn"]["number"]
    while True:
        v = server.call("GET", f"/api/games/{game['id']}", token=token)
        if not v["legal"] or v["state"]["turn"]["number"] != turn:
            break
        move = choose(v)
        server.call("POST", f"/api/games/{game['id']}/moves", {"move": move["text"], "version": v["version"]}, token=token)
    for _ in range(200):  # the bot's turn
        v = server.call("GET", f"/api/games/{game['id']}", token=token)
        if v["legal"]:
            break
        page.wait_for_timeout(50)
    page.wait_for_function(f"() => Number(document.body.dataset.version) >= {v['version']}")
    assert any(e["seat"] == 1 for e in v["log"])
    page.wait_for_function("() => document.querySelectorAll('svg.board .mark-last').length > 0")
    settle(page)
    vp = page.locator("#board-viewport").bounding_box()
    marks = page.locator("svg.board .mark-last")
    assert marks.count() > 0
    for i in range(marks.count()):
        b = marks.nth(i).bounding_box()
        assert b, "a mark of the bot's move is not drawn"
        inside = b["x"] >= vp["x"] - 1 and b["y"] >= vp["y"] - 1 and b["x"] + b["width"] <= vp["x"] + vp["width"] + 1 \
            and b["y"] + b["height"] <= vp["y"] + vp["height"] + 1
        assert inside, f"the bot's move at {b} lies outside the board's viewport {vp}"
    # The player's zoom is kept as far as the places allow (zoomed out only as much as they need, never reset).
    assert 1.0 <= scale(page) <= zoomed
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "zoom-follow-bot-move-phone.png"))
