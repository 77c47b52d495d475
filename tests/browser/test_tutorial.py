""""Learn to play": the guided first game, started from the lobby and played to its end by clicking (desktop, English)
and by tapping (phone, Portuguese) only what the table highlights; each step's text in the chosen language; a wrong
click refused with a hint that changes nothing; a screenshot of every step at both sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_support import SCREENSHOTS, SIDEWAYS, Server, version

ROOT = Path(__file__).resolve().parents[2]
I18N = ROOT / "src" / "hansa" / "server" / "static" / "i18n"
SCRIPT = json.loads((ROOT / "src" / "hansa" / "server" / "tutorial" / "basics.json").read_text(encoding="utf-8"))
SHOTS = SCREENSHOTS / "tutorial"
#: A point of a route's line that a click reaches (not covered by a house or a marker), in page coordinates.
ROUTE_POINT = """(code) => {
  const g = document.querySelector(`svg.board g.route[data-key="r:${code}"]`);
  const path = g && g.querySelector('.route-hit');
  if (!path) return null;
  const len = path.getTotalLength();
  const m = path.getScreenCTM();
  for (const f of [0.5, 0.35, 0.65, 0.2, 0.8, 0.12, 0.88]) {
    const p = path.getPointAtLength(len * f);
    const x = m.a * p.x + m.c * p.y + m.e, y = m.b * p.x + m.d * p.y + m.f;
    const el = document.elementFromPoint(x, y);
    const hit = el && el.closest('[data-key]');
    if (hit && hit.dataset.key === `r:${code}`) return [x, y];
  }
  return null;
}"""


def strings(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def panel_text(page: Any) -> str:
    return page.locator("#tutorial-text").inner_text()  # type: ignore[no-any-return]


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def press(page: Any, target: Any, phone: bool) -> None:
    if phone:
        target.tap()
    else:
        target.click()


#: The index (among the free houses not highlighted) of one lying inside the board's visible part, or null.
IN_SIGHT = """
() => {
  const port = document.querySelector('#board-viewport').getBoundingClientRect();
  const houses = [...document.querySelectorAll('svg.board g.house.free:not(.hl)')];
  const inside = (r) => r.width > 0 && r.left >= port.left + 10 && r.right <= port.right - 10 && r.top >= port.top + 10 && r.bottom <= port.bottom - 10;
  const i = houses.findIndex((el, k) => k >= 5 && inside(el.getBoundingClientRect()));
  return i >= 0 ? i : (houses.findIndex((el) => inside(el.getBoundingClientRect())) >= 0 ? houses.findIndex((el) => inside(el.getBoundingClientRect())) : null);
}
"""


#: The largest highlighted house, office or city on screen, in CSS px (its smaller side), within the board's
#: visible part (0 when none is in sight).
TARGET_SIZE = """
() => {
  const port = document.querySelector('#board-viewport').getBoundingClientRect();
  let best = 0;
  for (const el of document.querySelectorAll('svg.board g.hl')) {
    const r = el.getBoundingClientRect();
    if (r.left < port.left || r.right > port.right || r.top < port.top || r.bottom > port.bottom) continue;
    best = Math.max(best, Math.min(r.width, r.height));
  }
  return best;
}
"""


def make_move(page: Any, step: dict[str, Any], phone: bool) -> None:
    """Make the learner's scripted move by clicking what the table offers for it: its button, else its highlighted
    place on the board (the office, ability or city of a claim before the route), then its choice in a popup."""
    before = version(page)
    text = step["text"]
    for _ in range(4):  # a tap on a phone may zoom in first
        button = page.locator(f"#action-buttons [data-move='{text}']")
        if button.count():
            press(page, button.first, phone)
        else:
            marks = page.locator("svg.board .hl")
            keys = [marks.nth(i).get_attribute("data-key") for i in range(marks.count())]
            assert keys, f"nothing highlighted for {text}"
            key = next((k for k in keys if k and k[:2] in ("o:", "ab", "c:")), keys[0])
            badge = page.locator(f"svg.board .claim-badge[data-key='{key}']")
            if key.startswith("r:") and badge.count():
                press(page, badge.first, phone)
            elif key.startswith("r:"):  # a route's line, where no house or badge covers it
                point = page.evaluate(ROUTE_POINT, key[2:])
                assert point, f"no place to click on {key}"
                if phone:
                    page.touchscreen.tap(point[0], point[1])
                else:
                    page.mouse.click(point[0], point[1])
            else:
                press(page, page.locator(f"svg.board [data-key='{key}']").first, phone)
        popup = page.locator("#popup")
        if popup.is_visible():
            press(page, popup.locator(f".popup-choice[data-move='{text}']"), phone)
        try:
            page.wait_for_function(f"() => document.body.dataset.version !== '{before}'", timeout=3000)
            return
        except Exception:  # noqa: BLE001 - a zoom or a popup took the click; try again
            continue
    raise AssertionError(f"could not make the move {text}")


def play_basics(page: Any, server: Server, lang: str, phone: bool, size: str) -> None:
    tr = strings(lang)
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#learn-btn").inner_text() == tr["lobby.learn"]
    shot(page, f"{size}-00-lobby")
    press(page, page.locator("#learn-btn"), phone)
    page.wait_for_url("**/game/**")
    page.wait_for_selector("#tutorial #tutorial-text")
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    assert panel_text(page) == tr["tutorial.basics.intro"]
    assert page.locator("svg.board .hl").count() == 0  # nothing to do before Next
    assert page.evaluate(SIDEWAYS) == []
    shot(page, f"{size}-01-intro")
    press(page, page.locator("#tutorial-next"), phone)
    lessons: list[str] = []
    checked_wrong = False
    while True:
        page.wait_for_function(
            "() => document.body.dataset.mine === '1' || (document.querySelector('#tutorial') || {}).dataset.lesson === 'done'",
            timeout=30000,
        )
        lesson = page.locator("#tutorial").get_attribute("data-lesson")
        if lesson == "done":
            break
        n = version(page)
        step = SCRIPT["steps"][n]
        assert step["seat"] == 0 and step["lesson"] == lesson
        assert panel_text(page).startswith(tr[f"tutorial.basics.{lesson}"])
        if not lessons or lessons[-1] != lesson:
            lessons.append(lesson)
            shot(page, f"{size}-{len(lessons) + 1:02d}-{lesson}")
        # only the scripted move is offered
        assert [m["text"] for m in page.evaluate("window.hansaGame.view.legal")] == [step["text"]]
        if phone and page.locator("svg.board g.hl").count():
            # the board zoomed to the move by itself: its place is in sight and big enough for a fingertip
            page.wait_for_timeout(450)
            assert page.evaluate(TARGET_SIZE) >= 24, f"the move's place is too small to tap at step {n}"
        if not checked_wrong:
            # a click on a house that is not highlighted: refused with a hint, nothing sent, nothing changed
            # (one in sight: on a phone the board is zoomed to the move to make)
            index = page.evaluate(IN_SIGHT)
            assert index is not None, "no other free house in sight"
            other = page.locator("svg.board g.house.free:not(.hl)").nth(index)
            press(page, other, phone)
            if phone and not page.locator("#tutorial-wrong").count():
                press(page, other, phone)  # the first tap zoomed
            page.wait_for_selector("#tutorial-wrong")
            assert page.locator("#tutorial-wrong").inner_text().startswith(tr["tutorial.notYet"].split(":")[0])
            page.wait_for_timeout(300)
            assert version(page) == n
            assert page.locator(".error:not([hidden])").count() == 0
            shot(page, f"{size}-02b-wrong-click")
            if phone:
                page.locator("#zoom-reset").tap()
            checked_wrong = True
        make_move(page, step, phone)
        assert page.evaluate(SIDEWAYS) == []
    assert lessons == list(dict.fromkeys(s["lesson"] for s in SCRIPT["steps"] if s["seat"] == 0))
    assert version(page) == len(SCRIPT["steps"])
    assert panel_text(page) == tr["tutorial.basics.done"]
    assert page.locator("#tutorial-play").get_attribute("href").startswith("/")
    total = len(lessons) + 2
    assert page.locator("#tutorial-progress").inner_text() == tr["tutorial.progress"].format(k=total, n=total)
    shot(page, f"{size}-{len(lessons) + 2:02d}-done")
    view = page.evaluate("window.hansaGame.view")
    assert view["table"]["tutorial"] == "basics"
    assert view["state"]["players"][0]["score"] == 2  # a point for Goslar at each of the last two claims


@pytest.mark.parametrize(("lang", "phone"), [("en", False), ("pt", True)], ids=["en-desktop", "pt-phone"])
def test_learn_to_play(new_page: Any, server: Server, lang: str, phone: bool) -> None:
    page = new_page(viewport={"width": 390, "height": 844} if phone else {"width": 1280, "height": 800}, phone=phone,
                    settings={"pace": "normal"})
    page.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")
    play_basics(page, server, lang, phone, "phone" if phone else "desktop")


END_FILE = ROOT / "src" / "hansa" / "server" / "tutorial" / "end.json"
#: The score table's columns on the base map, in the order the panel explains them.
SCORE_COLS = ["in_game", "abilities", "markers", "coellen", "control", "network", "total"]


def free_move(page: Any, phone: bool) -> None:
    """A move of the learner's own choosing in free play: a Trader on a free highlighted house while actions are
    left, else the end of the turn (confirmed when asked) or the first button offered (a relocation's choice...)."""
    before = version(page)
    house = page.locator("svg.board g.house.free.hl")
    end = page.locator("#end-btn")
    left = page.evaluate("(() => { const tu = window.hansaGame.view.state.turn; return tu.allowance - tu.actions_used; })()")
    if house.count() and left > 0 and page.evaluate("window.hansaGame.view.state.turn.phase") == "actions":
        press(page, house.first, phone)
        if phone and version(page) == before and not page.locator("#popup").is_visible():
            page.wait_for_timeout(400)  # the first tap zoomed in: wait for the zoom, tap again
            press(page, page.locator("svg.board g.house.free.hl").first, phone)
        popup = page.locator("#popup")
        if popup.is_visible():
            press(page, popup.locator(".popup-choice").first, phone)
    elif end.count():
        press(page, end, phone)
        confirm = page.locator("#end-confirm")
        try:
            confirm.wait_for(timeout=1000)
            press(page, confirm, phone)
        except Exception:  # noqa: BLE001 - no confirmation asked (no action left)
            pass
    else:
        press(page, page.locator("#action-buttons [data-move]").first, phone)
    page.wait_for_function(f"() => document.body.dataset.version !== '{before}'", timeout=10000)


def play_end(page: Any, server: Server, lang: str, phone: bool, size: str) -> None:
    tr = strings(lang)
    end_script = json.loads(END_FILE.read_text(encoding="utf-8"))
    # The basics chapter played to its last step (by the API, as its own test plays it by clicking) leads into this one.
    game = server.call("POST", "/api/tutorial", {"chapter": "basics", "name": tr["tutorial.you"]})
    for n, step in enumerate(SCRIPT["steps"]):
        server.call("POST", f"/api/games/{game['id']}/moves", {"move": step["text"], "version": n, "seat": step["seat"]},
                   token=game["hotseat_token"])
    page.goto(server.base + f"{game['hotseat_url']}&creator={game['creator_token']}")
    page.wait_for_selector("#tutorial #tutorial-next")
    press(page, page.locator("#tutorial-next"), phone)
    page.wait_for_selector("#tutorial[data-lesson='done'] #tutorial-next-chapter")
    assert page.locator("#tutorial-next-chapter").inner_text() == tr["tutorial.nextChapter"]
    shot(page, f"end-{size}-00-basics-done")
    press(page, page.locator("#tutorial-next-chapter"), phone)
    page.wait_for_url(lambda u: f"/game/{game['id']}" not in u)
    assert server.call("GET", f"/api/games/{game['id']}")["status"] == "stopped"  # the finished chapter's game is stopped
    page.wait_for_selector("#tutorial #tutorial-text")
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    assert version(page) == end_script["prefix"]
    assert panel_text(page) == tr["tutorial.end.intro"]
    assert page.locator("svg.board .hl").count() == 0
    assert page.evaluate(SIDEWAYS) == []
    shot(page, f"end-{size}-01-intro")
    press(page, page.locator("#tutorial-next"), phone)
    # the scripted move(s), highlighted and the only ones offered
    for step in end_script["steps"][end_script["prefix"]:]:
        page.wait_for_function(f"() => document.body.dataset.mine === '1' && document.body.dataset.version === '{version(page)}'")
        page.wait_for_selector(f"#tutorial[data-lesson='{step['lesson']}']")
        assert panel_text(page).startswith(tr[f"tutorial.end.{step['lesson']}"])
        assert [m["text"] for m in page.evaluate("window.hansaGame.view.legal")] == [step["text"]]
        shot(page, f"end-{size}-02-{step['lesson']}")
        make_move(page, step, phone)
    # free play: nothing refused, every legal move offered, until the game is over (the bots are the server's)
    page.wait_for_selector("#tutorial[data-lesson='free']")
    assert panel_text(page).startswith(tr["tutorial.end.free"])
    assert len(page.evaluate("window.hansaGame.view.legal")) > 1
    shot(page, f"end-{size}-03-free")
    for _ in range(40):
        page.wait_for_function("() => document.body.dataset.mine === '1' || window.hansaGame.view.status !== 'running'",
                               timeout=30000)
        if page.evaluate("window.hansaGame.view.status") != "running":
            break
        free_move(page, phone)
    page.wait_for_selector("#endgame .score-table")
    assert page.evaluate("window.hansaGame.view.status") == "over"
    # the end screen: one explanation per score column, that column highlighted
    total = 1 + 1 + 1 + len(SCORE_COLS) + 1
    for k, col in enumerate(SCORE_COLS):
        page.wait_for_selector(f"#tutorial[data-lesson='score-{col}']")
        assert panel_text(page) == tr[f"tutorial.end.score.{col}"]
        marked = page.locator("#endgame .tutorial-col")
        assert {marked.nth(i).get_attribute("data-col") for i in range(marked.count())} == {col}
        assert marked.count() == 1 + 3  # the header and the three players' cells
        assert page.locator("#tutorial-progress").inner_text() == tr["tutorial.progress"].format(k=k + 4, n=total)
        assert page.evaluate(SIDEWAYS) == []
        shot(page, f"end-{size}-{k + 4:02d}-score-{col}")
        press(page, page.locator("#tutorial-next"), phone)
    page.wait_for_selector("#tutorial[data-lesson='done']")
    assert panel_text(page) == tr["tutorial.end.done"]
    assert page.locator("#endgame .tutorial-col").count() == 0
    assert page.locator("#tutorial-play").get_attribute("href") == "/#new-game"
    shot(page, f"end-{size}-{total:02d}-done")


@pytest.mark.parametrize(("lang", "phone"), [("en", False), ("cs", True)], ids=["en-desktop", "cs-phone"])
def test_learn_to_play_the_end(new_page: Any, server: Server, lang: str, phone: bool) -> None:
    """Chapter two: from the basics' last step to a late game against the server's easiest bots, the scripted claim,
    free play to the game's end, and the final scoring explained column by column on the end screen."""
    page = new_page(viewport={"width": 390, "height": 844} if phone else {"width": 1280, "height": 800}, phone=phone,
                    settings={"pace": "normal"})
    page.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")
    play_end(page, server, lang, phone, "phone" if phone else "desktop")


def test_leaving_a_tutorial_stops_its_game(new_page: Any, server: Server) -> None:
    """The lobby's "Learn to play" keeps the creator token in the page's fragment; the panel's leave button stops the
    game, so that tutorial games do not count among the client's running games."""
    page = new_page(viewport={"width": 1280, "height": 800})
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#learn p, #learn .learn-text").first.inner_text()
    page.locator("#learn-btn").click()
    page.wait_for_url("**/game/**")
    assert "creator=" in page.evaluate("location.hash")
    game_id = page.evaluate("location.pathname").rsplit("/", 1)[1]
    page.wait_for_selector("#tutorial #tutorial-leave")
    assert server.call("GET", f"/api/games/{game_id}")["status"] == "running"
    page.locator("#tutorial-leave").click()
    page.wait_for_url(server.base + "/")
    assert server.call("GET", f"/api/games/{game_id}")["status"] == "stopped"
