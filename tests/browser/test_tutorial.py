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
        if not checked_wrong:
            # a click on a house that is not highlighted: refused with a hint, nothing sent, nothing changed
            other = page.locator("svg.board g.house.free:not(.hl)").nth(5)
            press(page, other, phone)
            if phone and not page.locator("#tutorial-wrong").count():
                press(page, page.locator("svg.board g.house.free:not(.hl)").nth(5), phone)  # the first tap zoomed
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
