"""The table in the players' languages: a Portuguese game on a desktop (clicks) and a Czech one on a phone (taps)
played to the end against a bot, with the captions, prompts, desks, log and final table in that language and no
English left on screen; switching the language on the table; errors translated with a link to the rule."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    CHROMIUM,
    ROOT,
    Server,
    choose,
    open_game,
    page_view,
    version,
    wait_mine_or_over,
    wait_version_change,
)

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

I18N = ROOT / "src" / "hansa" / "server" / "static" / "i18n"
SCREENS = ROOT / "artifacts" / "review"


def strings(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def english_left(page: Any, lang: str) -> list[str]:
    """English interface sentences still on screen: the English texts (of a few words, without parameters) whose
    translation differs, found in the page's visible text."""
    en, tr = strings("en"), strings(lang)
    text = page.evaluate("document.body.innerText")
    return [v for k, v in en.items() if "{" not in v and v.count(" ") >= 2 and tr.get(k) != v and v in text]


def set_language(page: Any, lang: str) -> None:
    page.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")


def tap(page: Any, locator: Any) -> None:
    """Tap a board target like a finger: a target smaller than a fingertip zooms in there first."""
    for _ in range(3):
        # The board glides back to the whole board after a decision made by tap-to-zoom: tap where it comes to rest.
        page.wait_for_function("() => !document.querySelector('#board-wrap').style.transition")
        box = locator.bounding_box()
        assert box, "the target is not on screen"
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_timeout(120)
        if page.locator("#popup").is_visible() or not page.locator("#board-viewport.zoomed").count() or box["width"] >= 30:
            return
    raise AssertionError("the tap never acted")


def act(page: Any, move: dict[str, Any], phone: bool) -> None:
    """Make ``move`` by clicking (desktop) or tapping (phone) the board and the buttons; the notation box only for the
    rare moves without a board target in this loop (as a player may)."""
    j = move["json"]
    before = version(page)
    press = (lambda loc: tap(page, loc)) if phone else (lambda loc: loc.click())
    button = (lambda loc: loc.tap()) if phone else (lambda loc: loc.click())
    if j["type"] == "place":
        press(page.locator(f"svg.board [data-key='h:{j['house']}']"))
        if page.locator("#popup").is_visible():
            button(page.locator(f"#popup button[data-move='{move['text']}']"))
    elif j["type"] == "claim":
        for _ in range(3):  # a tap lost while the board glided (after the bot's moves) is made again
            press(page.locator(f"svg.board .claim-badge[data-key='r:{j['route']}']"))
            try:
                page.locator("#popup").wait_for(state="visible", timeout=2000)
                break
            except Exception:  # noqa: BLE001 - no popup yet
                continue
        button(page.locator(f"#popup button[data-move='{move['text']}']"))
    elif j["type"] in ("end", "done"):
        button(page.locator(f"#action-buttons button[data-move='{j['type']}']"))
    elif j["type"] == "income":
        button(page.locator(f"#action-buttons button[data-move='{move['text']}']"))
    else:
        page.fill("#move-input", move["text"])
        page.press("#move-input", "Enter")
    wait_version_change(page, before)
    if phone and page.locator("#board-viewport.zoomed").count():
        page.locator("#zoom-reset").tap()


@pytest.mark.parametrize(("lang", "phone"), [("pt", False), ("cs", True)], ids=["pt-desktop", "cs-phone"])
def test_a_game_to_the_end_in(new_page: Any, server: Server, lang: str, phone: bool) -> None:
    tr = strings(lang)
    game = server.create([{"name": "Ana", "type": "human"}, {"name": "Robo", "type": "bot", "bot": "heuristic"}], seed=13)
    page = new_page(phone=phone) if phone else new_page(viewport={"width": 1280, "height": 800})
    set_language(page, lang)
    open_game(page, server, game["seats"][0]["url"])
    assert page.evaluate("document.documentElement.lang") == lang
    deadline = time.monotonic() + 240
    moves = 0
    checked_caption = False
    while time.monotonic() < deadline:
        wait_mine_or_over(page)
        view = page_view(page)
        if view["status"] == "over":
            break
        if not view["legal"]:
            continue
        if not checked_caption and view["log"] and view["log"][-1]["seat"] == 1:
            # After the bot's turn: its last move is marked and told in the player's language.
            caption = page.locator("#caption .cap-text").inner_text()
            assert caption and not re.search(r"\b(placed|displaced|claimed|ended the turn|took income)\b", caption), caption
            assert page.locator("svg.board .mark-last").count() >= 1
            prompt = page.locator("#prompt").inner_text()
            assert tr["prompt.yours"] in prompt, prompt
            assert english_left(page, lang) == []
            checked_caption = True
        act(page, choose(view), phone)
        moves += 1
        if moves == 12:
            page.screenshot(path=str(SCREENS / f"table-{lang}-{'phone' if phone else 'desktop'}.png"))
    else:
        raise AssertionError("the game did not end in time")
    assert checked_caption
    page.wait_for_selector("#endgame .score-table")
    headers = page.locator("#endgame .score-table thead th").evaluate_all(
        "els => els.map((e) => (e.querySelector('.long') || e).textContent)")
    assert headers[0] == tr["score.player"] and headers[-1] == tr["score.total"]
    assert page.title().startswith(tr["status.over"])
    assert english_left(page, lang) == []
    if phone:
        for tab in ("players", "log"):
            page.locator(f"#side-tabs button[data-tab='{tab}']").tap()
            assert english_left(page, lang) == [], tab
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"table-end-{lang}-{'phone' if phone else 'desktop'}.png"), full_page=True)
    assert moves > 5


def test_switch_language_on_the_table_and_errors(new_page: Any, server: Server) -> None:
    game = server.create([{"name": "Ana", "type": "human"}, {"name": "Bea", "type": "human"}], seed=4)
    seat = server.call("GET", f"/api/games/{game['id']}")["state"]["turn"]["decider"]
    page = new_page()
    open_game(page, server, game["seats"][seat]["url"])
    assert page.evaluate("document.documentElement.lang") == "en"
    page.click("#settings-btn")
    with page.expect_navigation():
        page.select_option("#settings .lang-picker", "cs")
    page.wait_for_selector("svg.board .house")
    cs = strings("cs")
    assert page.evaluate("document.documentElement.lang") == "cs"
    assert page.evaluate("localStorage.getItem('hansa.lang')") == "cs"
    assert page.locator("#side-tabs button[data-tab='log']").inner_text() == cs["tabs.log"]
    # An illegal move: the error in Czech, the server's English words beneath, the rule linked once.
    wait_mine_or_over(page)
    page.fill("#move-input", "claim GRO-EMD")
    page.press("#move-input", "Enter")
    page.wait_for_selector("#error:not([hidden])")
    text = page.locator("#error").inner_text()
    assert cs["error.rule"] in text and "null" not in text
    assert page.locator("#error a[href='/rules#s2-6']").inner_text() == cs["error.ruleLink"].replace("{rule}", "2.6")
    # The choice holds on the other pages.
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("document.documentElement.lang") == "cs"
