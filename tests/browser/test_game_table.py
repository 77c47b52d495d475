"""The game table's second edition in a real browser: following others' moves (playback, captions, marks, the log),
safe decisions (end-turn question, claim popup, claiming by clicking the office), hints, colour-blind mode,
keyboard play, the pawn variant's provinces, phones (no sideways scrolling, tap-to-zoom, tabs), the end of a game,
and readable contrast."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    CHROMIUM,
    CONTRAST,
    Server,
    open_game,
    page_view,
    place_by_click,
    play_out_via_api,
    version,
    wait_mine_or_over,
    wait_version_change,
)

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

HUMAN = {"name": "Alice", "type": "human"}
CAPTIONS = """
window.__caps = [];
new MutationObserver(() => {
  const t = document.querySelector('#caption .cap-text');
  if (t && window.__caps[window.__caps.length - 1] !== t.textContent) window.__caps.push(t.textContent);
}).observe(document.querySelector('#caption'), {childList: true, subtree: true, characterData: true});
"""


def api_move(server: Server, game: dict[str, Any], text: str) -> dict[str, Any]:
    view = server.call("GET", f"/api/games/{game['id']}", token=game["hotseat_token"])
    return server.call(  # type: ignore[no-any-return]
        "POST", f"/api/games/{game['id']}/moves",
        {"move": text, "version": view["version"], "seat": view["state"]["turn"]["decider"]}, token=game["hotseat_token"],
    )


def no_sideways_scroll(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


def test_bot_turns_are_played_back_with_captions_and_marks(new_page: Any, paced_server: Server) -> None:
    """At the "fast" pace the bots' moves (at the server's default pace) appear one at a time, each with its
    sentence; afterwards the places they changed stay marked, and the log tells them in sentences (pointing at one
    marks its place)."""
    server = paced_server
    game = server.create([HUMAN, {"name": "Heuri", "type": "bot", "bot": "heuristic"}, {"name": "Purp", "type": "bot", "bot": "purpose"}], seed=11)
    page = new_page(settings={"pace": "fast"})
    open_game(page, server, game["seats"][0]["url"])
    wait_mine_or_over(page)
    page.evaluate(CAPTIONS)
    place_by_click(page)
    place_by_click(page) if page.evaluate("document.body.dataset.mine") == "1" else None
    if page.locator("#end-btn").count():
        page.click("#end-btn")
    page.wait_for_function("() => window.__caps.length >= 3", timeout=30000)
    wait_mine_or_over(page, timeout=60000)
    caps: list[str] = page.evaluate("window.__caps")
    bot_caps = [c for c in caps if c.startswith(("Heuri ", "Purp "))]
    assert len(bot_caps) >= 3, caps  # one sentence per bot move, shown one after the other
    view = page_view(page)
    bot_moves = [e for e in view["log"] if e["seat"] != 0 and e["n"] > 2]
    assert len(bot_caps) >= min(len(bot_moves), 3)
    assert page.locator("svg.board .mark-last").count() >= 1
    # The log: sentences, the notation in the tooltip; pointing at an entry marks its place.
    last = page.locator("#log .log-move").last
    assert last.get_attribute("title") == view["log"][-1]["move"]
    assert " " in last.locator(".log-text").inner_text()
    entry = page.locator("#log .log-move").filter(has_text="placed").first
    entry.hover()
    assert page.locator("svg.board .mark-hover").count() >= 1
    page.mouse.move(5, 5)
    assert page.locator("svg.board .mark-hover").count() == 0


def test_end_turn_asks_while_actions_remain(new_page: Any, server: Server) -> None:
    game = server.create([HUMAN, {"name": "Bo", "type": "human"}], seed=4, hotseat=True)
    page = new_page(settings={"confirmEnd": True})
    open_game(page, server, game["hotseat_url"])
    wait_mine_or_over(page)
    before = version(page)
    page.click("#end-btn")
    page.wait_for_selector("#dialog:not([hidden])")
    assert "2 actions" in page.locator("#dialog").inner_text()
    assert page.evaluate("document.activeElement.id") == "end-cancel"  # the safe answer has the focus
    page.keyboard.press("Enter")  # Enter keeps playing
    assert page.locator("#dialog").is_hidden() and version(page) == before
    page.click("#end-btn")
    page.keyboard.press("Escape")
    assert page.locator("#dialog").is_hidden() and version(page) == before
    page.click("#end-btn")
    page.click("#end-confirm")
    wait_version_change(page, before)
    assert page_view(page)["log"][-1]["move"] == "end"
    # Its colours stay readable when pointed at (the old hover rule turned its label white on cream).
    wait_mine_or_over(page)
    page.hover("#end-btn")
    colour, background = page.evaluate(
        "(() => { const s = getComputedStyle(document.querySelector('#end-btn')); return [s.color, s.backgroundImage]; })()"
    )
    assert colour == "rgb(255, 255, 255)" and "gradient" in background


def test_claim_by_clicking_the_office_and_the_claim_popup(new_page: Any, server: Server) -> None:
    """A full route: the office it would take glows and a click on it claims with that office; the route's chooser
    shows every benefit with its office colour and focuses a benefit, never "no benefit"."""
    game = server.create([HUMAN, {"name": "Bo", "type": "human"}], seed=4, options={}, hotseat=True)
    first = server.call("GET", f"/api/games/{game['id']}")["state"]["turn"]["current"]
    api_move(server, game, "place T KAM-OSN:1")
    api_move(server, game, "place T KAM-OSN:2")  # the second action ends the turn
    view = server.call("GET", f"/api/games/{game['id']}")
    assert view["state"]["turn"]["current"] != first
    api_move(server, game, "end")
    page = new_page()
    open_game(page, server, game["hotseat_url"])
    wait_mine_or_over(page)
    # The chooser: claims first, a benefit focused, "no benefit" last, with the office's picture.
    page.locator("svg.board .claim-badge[data-key='r:KAM-OSN']").click()
    page.wait_for_selector("#popup:not([hidden])")
    choices = page.locator("#popup .popup-choice")
    assert "benefit-none" not in (page.evaluate("document.activeElement.className") or "")
    assert "No benefit" in choices.last.inner_text()
    assert page.locator("#popup .office-icon.shape-square").count() >= 1
    page.keyboard.press("Escape")
    # The office glows; clicking it claims with that benefit.
    office = page.locator("svg.board g.office.hl[data-key='o:OSN:0']")
    assert office.count() == 1
    before = version(page)
    office.click()
    wait_version_change(page, before)
    assert page_view(page)["log"][-1]["move"] == "claim KAM-OSN office OSN"
    assert page.locator("svg.board [data-key='o:OSN:0'] .piece").count() == 1


def test_hint_colour_blind_mode_and_keyboard_play(new_page: Any, server: Server) -> None:
    game = server.create([HUMAN, {"name": "Bo", "type": "human"}], seed=6, hotseat=True)
    page = new_page()
    open_game(page, server, game["hotseat_url"])
    wait_mine_or_over(page)
    # Hint: the heuristic bot's move, marked on the board, with a reason; "Play it" plays it.
    page.click("#hint-btn")
    page.wait_for_selector("#hint-box")
    assert "Hint:" in page.locator("#hint-box").inner_text()
    assert page.locator("svg.board .mark-hint").count() >= 1
    hinted = page.evaluate("window.hansaGame.view.version")
    before = version(page)
    page.click("#hint-play")
    wait_version_change(page, before)
    assert page_view(page)["version"] == hinted + 1
    # Colour-blind mode: every piece shows its owner's symbol.
    page.click("#settings-btn")
    page.check("#cb-toggle")
    page.keyboard.press("Escape")
    mover = page_view(page)["log"][-1]["seat"]
    symbol = page.locator(f"svg.board .piece-g[data-owner='{mover}'] .piece-symbol").first
    assert symbol.is_visible()
    assert symbol.text_content() == page_view(page)["players"][mover]["symbol"]
    page.reload()
    page.wait_for_selector("svg.board .house")
    assert page.evaluate("document.body.classList.contains('cb-mode')")  # remembered
    # Keyboard: Tab to a highlighted house, Enter, the piece key; E ends the turn.
    wait_mine_or_over(page)
    page.focus("svg.board g.house.free.hl")
    before = version(page)
    page.keyboard.press("Enter")
    if page.locator("#popup").is_visible():
        page.keyboard.press("t")
    wait_version_change(page, before)
    before = version(page)
    page.keyboard.press("e")
    wait_version_change(page, before)
    assert page_view(page)["log"][-1]["move"] == "end"


def test_pawn_provinces_are_shaded_regions(new_page: Any, server: Server) -> None:
    game = server.create([HUMAN, {"name": "Bo", "type": "human"}], seed=3, options={"two_player_variant": "pawn"}, hotseat=True)
    page = new_page()
    open_game(page, server, game["hotseat_url"])
    wait_mine_or_over(page)
    assert page.locator("svg.board .province-region").count() == 16
    view = page_view(page)
    if view["state"]["turn"]["phase"] == "pawn_setup":
        before = version(page)
        page.locator("svg.board g.province[data-key='p:P09'] .province-spot").click()
        wait_version_change(page, before)
    wait_mine_or_over(page)
    pawn = page_view(page)["state"]["pawn"]
    assert page.locator(f"svg.board g.province.pawn-here[data-key='p:{pawn}']").count() == 1
    # Pointing at a province previews the routes that border it.
    layout = page.evaluate("window.hansaGame.board.layout")
    p05 = next(p for p in layout["provinces"] if p["code"] == "P05")
    page.hover("svg.board g.province[data-key='p:P05'] .province-spot")
    previewed = page.locator("svg.board g.route.preview").evaluate_all("els => els.map((e) => e.dataset.key.slice(2))")
    assert sorted(previewed) == sorted(p05["routes"])


def test_phone_layout_tap_to_zoom_and_tabs(new_page: Any, server: Server) -> None:
    game = server.create([HUMAN, {"name": "Bot", "type": "bot", "bot": "heuristic"}], seed=9)
    page = new_page(phone=True)
    open_game(page, server, game["seats"][0]["url"])
    wait_mine_or_over(page)
    assert no_sideways_scroll(page)
    # A tap on a tiny house zooms in there; at a fingertip's size the next tap acts.
    house = page.locator("svg.board g.house.free.hl").nth(4)
    box = house.bounding_box()
    assert box["width"] < 40
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("() => document.querySelector('#board-viewport').classList.contains('zoomed')")
    box = house.bounding_box()
    assert box["width"] >= 30  # the house itself; its tap area is larger (≥ 40 px)
    before = version(page)
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    if page.locator("#popup").is_visible():
        page.locator("#popup .popup-choice").first.tap()
    wait_version_change(page, before)
    page.locator("#zoom-reset").tap()
    assert no_sideways_scroll(page)
    for tab, shown, hidden in (("players", "#desks", "#controls"), ("log", "#log", "#desks"), ("play", "#controls", "#log")):
        page.locator(f"#side-tabs button[data-tab='{tab}']").tap()
        assert page.locator(shown).is_visible() and page.locator(hidden).is_hidden(), tab
        assert no_sideways_scroll(page)


def test_the_end_on_desks_and_chart(new_page: Any, server: Server) -> None:
    game = server.create([HUMAN, {"name": "Bo", "type": "human"}, {"name": "Cy", "type": "human"}], seed=8, hotseat=True)
    final = play_out_via_api(server, game, limit=120)
    for phone in (False, True):
        page = new_page(phone=phone)
        open_game(page, server, game["hotseat_url"])
        page.wait_for_selector("#endgame .score-table")
        totals = {s["player"]: s for s in final["state"]["result"]["scores"]}
        for seat, sc in totals.items():
            desk = page.locator(f".desk[data-seat='{seat}'] .desk-score.final")
            assert desk.locator(".final-total").text_content() == str(sc["total"])
            assert str(sc["in_game"]) in desk.locator(".final-ingame").text_content()
        page.wait_for_selector("#endgame svg.chart", state="attached")  # drawn once the score history has loaded
        assert page.locator("#endgame svg.chart").count() == 1
        assert page.locator("#undo-btn").is_hidden() and page.locator("#notify-btn").is_hidden()
        if phone:
            assert no_sideways_scroll(page)
            table = page.locator("#endgame .score-table").bounding_box()
            assert table["x"] + table["width"] <= 390  # every column fits


def test_text_contrast_meets_wcag_aa(new_page: Any, server: Server) -> None:
    game = server.create([HUMAN, {"name": "Bot", "type": "bot", "bot": "heuristic"}], seed=12)
    page = new_page()
    open_game(page, server, game["seats"][0]["url"])
    wait_mine_or_over(page)
    place_by_click(page)
    time.sleep(0.3)
    assert page.evaluate(CONTRAST) == []


def test_the_log_stays_in_view_with_five_desks(new_page: Any, server: Server) -> None:
    """At 1280x800 the move log is on screen next to the board however many desks there are (they scroll)."""
    bots = [{"name": f"Bot{i}", "type": "bot", "bot": "heuristic"} for i in range(4)]
    game = server.create([HUMAN, *bots], seed=11)
    page = new_page(viewport={"width": 1280, "height": 800})
    open_game(page, server, game["seats"][0]["url"])
    wait_mine_or_over(page)
    log = page.locator(".log-panel").bounding_box()
    assert log and log["y"] + log["height"] <= 800 and log["height"] >= 120, log
    assert page.locator("#log .log-move").last.is_visible()
    desks = page.locator("#desks")
    assert desks.evaluate("el => el.scrollHeight > el.clientHeight")  # five desks: they scroll in their box
