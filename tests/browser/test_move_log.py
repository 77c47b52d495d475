"""The table's move log: it follows new moves unless the reader scrolled up (then a "new moves" button brings them
back), it holds the whole game (older moves load on demand, the reading position kept), and moves a bot made for a
human seat (after a takeover) or the clock made when the seat's time ran out are told as such."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, Server, choose, open_game

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from clock_support import ClockServer, FakeTime, clock_server  # noqa: E402

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

DESKTOP = {"width": 1280, "height": 800}
BOTS = [{"name": "Bo", "type": "bot", "bot": "random"}, {"name": "Cy", "type": "bot", "bot": "random"}]
#: How far the log's bottom is from the newest entry (0 when it shows the newest entry in full).
BELOW = "() => { const el = document.querySelector('#log'); return el.scrollHeight - el.scrollTop - el.clientHeight; }"


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def play(server: Server, game_id: str, token: str, count: int) -> int:
    """Make ``count`` decisions with ``token`` (waiting for the bots between them); returns the game's version."""
    made = 0
    deadline = time.monotonic() + 60
    while made < count:
        assert time.monotonic() < deadline, "the game did not go on"
        view = server.call("GET", f"/api/games/{game_id}", token=token)
        if view["status"] != "running":
            break
        if not view["legal"]:
            time.sleep(0.02)
            continue
        server.call("POST", f"/api/games/{game_id}/moves",
                    {"move": choose(view)["text"], "version": view["version"], "seat": view["state"]["turn"]["decider"]},
                    token=token)
        made += 1
    while time.monotonic() < deadline:  # the bots' answers too
        view = server.call("GET", f"/api/games/{game_id}", token=token)
        if view["legal"] or view["status"] != "running":
            break
        time.sleep(0.02)
    return int(view["version"])


def caught_up(page: Any, server: Server, game_id: str) -> None:
    """Wait until the page shows the game's newest move in its log."""
    n = server.call("GET", f"/api/games/{game_id}")["version"]
    page.wait_for_selector(f"#log .log-move[data-n='{n}']", state="attached")
    page.wait_for_function(f"() => document.body.dataset.version === '{n}'")
    page.wait_for_timeout(100)  # the log scrolls after it has grown


def logged(page: Any) -> list[int]:
    return page.eval_on_selector_all("#log .log-move", "els => els.map((e) => Number(e.dataset.n))")  # type: ignore[no-any-return]


def test_the_log_follows_new_moves_until_the_reader_scrolls_up(new_page: Any, server: Server) -> None:
    game = server.create([{"name": "Ann", "type": "human"}, *BOTS], seed=21)
    gid, ann = game["id"], game["seats"][0]["token"]
    page = new_page(viewport=DESKTOP)
    open_game(page, server, game["seats"][0]["url"])
    # Twenty decisions of Ann, each answered by two bots: after every one the log shows the newest entry.
    for i in range(20):
        play(server, gid, ann, 1)
        caught_up(page, server, gid)
        assert page.evaluate(BELOW) <= 1, f"the log stopped following after decision {i + 1}"
        newest = page.locator("#log .log-move").last.bounding_box()
        box = page.locator("#log").bounding_box()
        assert newest["y"] + newest["height"] <= box["y"] + box["height"] + 1
    assert page.locator("#log-new").is_hidden()
    # The reader scrolls up to read: the log stays where it is while moves arrive, and offers the new moves.
    page.locator("#log").hover()
    page.mouse.wheel(0, -400)
    page.wait_for_function(f"() => ({BELOW})() > 300")
    top = page.evaluate("document.querySelector('#log').scrollTop")
    first_seen = page.evaluate("""() => { const box = document.querySelector('#log').getBoundingClientRect();
      return [...document.querySelectorAll('#log .log-move')].find((e) => e.getBoundingClientRect().top >= box.top).dataset.n; }""")
    play(server, gid, ann, 3)
    caught_up(page, server, gid)
    assert page.evaluate("document.querySelector('#log').scrollTop") == top
    assert page.evaluate(f"""() => {{ const box = document.querySelector('#log').getBoundingClientRect();
      return document.querySelector("#log .log-move[data-n='{first_seen}']").getBoundingClientRect().top >= box.top; }}""")
    new = page.locator("#log-new")
    assert new.is_visible()
    shot(page, "move-log-new-moves-desktop")
    new.click()
    page.wait_for_function(f"() => ({BELOW})() <= 1")
    assert new.is_hidden()
    # Following again: the next moves keep it at the bottom.
    play(server, gid, ann, 2)
    caught_up(page, server, gid)
    assert page.evaluate(BELOW) <= 1


@pytest.fixture(scope="module")
def long_game(server: Server) -> dict[str, Any]:
    """A hot-seat game of 300+ moves, played quickly over HTTP."""
    names = ["Ann", "Bea", "Cy", "Dag", "Eva"]
    game = server.create([{"name": n, "type": "human"} for n in names], seed=5, hotseat=True)
    version = play(server, game["id"], game["hotseat_token"], 320)
    assert version >= 300, version
    return game


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_whole_game_can_be_read_from_move_one(new_page: Any, server: Server, long_game: dict[str, Any],
                                                  phone: bool) -> None:
    total = server.call("GET", f"/api/games/{long_game['id']}")["version"]
    page = new_page(viewport=None if phone else DESKTOP, phone=phone)
    open_game(page, server, long_game["hotseat_url"])
    if phone:
        page.locator("#side-tabs button[data-tab='log']").tap()
    page.wait_for_selector(f"#log .log-move[data-n='{total}']")
    assert page.evaluate(BELOW) <= 1  # opened at the newest move
    # Scrolling to the top loads the earlier moves, page by page, keeping the entry read in place.
    for _ in range(20):
        if page.locator("#log .log-move[data-n='1']").count():
            break
        first = logged(page)[0]
        page.locator("#log").hover()
        page.evaluate("document.querySelector('#log').scrollTop = 0")
        page.mouse.wheel(0, -50)
        page.wait_for_function(f"() => Number(document.querySelector('#log .log-move').dataset.n) < {first}")
        page.wait_for_timeout(50)
        # The entry that was at the top is still where the reader saw it (not jumped away by the prepended moves).
        y = page.evaluate(f"""() => document.querySelector("#log .log-move[data-n='{first}']").getBoundingClientRect().top
                              - document.querySelector('#log').getBoundingClientRect().top""")
        # (within a few lines: the prepended page alone is 200 lines, thousands of px, above it)
        assert -5 <= y <= 150, y
    page.locator("#log .log-move[data-n='1']").scroll_into_view_if_needed()
    assert page.locator("#log .log-move[data-n='1']").is_visible()
    assert logged(page) == list(range(1, total + 1))  # every move once, in order
    assert page.locator("#log .log-start").is_visible()  # the start of the game, nothing more to load
    shot(page, f"move-log-long-{'phone' if phone else 'desktop'}")
    # Moves arriving meanwhile and an undo keep the log whole: no duplicates, no gaps.
    token = long_game["hotseat_token"]
    total = play(server, long_game["id"], token, 2)
    caught_up(page, server, long_game["id"])
    assert logged(page) == list(range(1, total + 1))
    page.locator("#undo-btn").click()  # on a phone the button is in the top bar too
    page.wait_for_function(f"() => Number(document.body.dataset.version) < {total}")
    total = server.call("GET", f"/api/games/{long_game['id']}")["version"]
    assert page.evaluate("document.body.dataset.version") == str(total)
    page.wait_for_timeout(100)
    assert logged(page) == list(range(1, total + 1))


# ---------------------------------------------------------------------------------------------- bots and clocks

HUMANS = [{"name": "Ada", "type": "human"}, {"name": "Bea", "type": "human"}, {"name": "Cy", "type": "human"}]


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[ClockServer]:
    with clock_server(f"sqlite:///{tmp_path / 'clocks.sqlite3'}", FakeTime(), takeover_after=3600.0) as srv:
        yield srv


def open_at(page: Any, base: str, url: str) -> None:
    page.goto(base + url)
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => document.body.dataset.version !== undefined")


def entry_text(page: Any, n: int) -> str:
    return page.locator(f"#log .log-move[data-n='{n}'] .log-text").inner_text()  # type: ignore[no-any-return]


def test_clock_and_takeover_moves_are_told_as_theirs(clocked: ClockServer, new_page: Any) -> None:
    clock = {"kind": "realtime", "base": 60, "increment": 0, "bank": 0, "on_timeout": "end-turn"}
    r = clocked.post("/api/games", {"players": HUMANS, "seed": 4, "clock": clock})
    assert r.status_code == 201, r.text
    g = r.json()
    gid = g["id"]
    bea = new_page(viewport=DESKTOP)
    open_at(bea, clocked.url, g["seats"][1]["url"])
    ada = new_page(viewport=DESKTOP)
    open_at(ada, clocked.url, g["seats"][0]["url"])
    # Ada's time runs out: the clock ends her turn.
    clocked.time.advance(61)
    clocked.tick()
    assert clocked.view(gid)["log"][0]["by"] == "clock"
    bea.wait_for_selector("#log .log-move[data-n='1']")
    assert entry_text(bea, 1) == "Ada’s time ran out: the clock ended the turn."
    ada.wait_for_selector("#log .log-move[data-n='1']")
    assert entry_text(ada, 1) == "Your time ran out: the clock ended the turn."
    # Bea and Cy play their turns; then Ada stays idle an hour, and the others vote her seat to a bot.
    for seat in (1, 2):
        token = g["seats"][seat]["token"]
        while clocked.view(gid)["state"]["turn"]["decider"] == seat:
            clocked.move(gid, token, "end")
    clocked.time.advance(3601)
    for voter in (1, 2):
        r = clocked.post(f"/api/games/{gid}/takeover", {"seat": 0, "bot": "random"}, g["seats"][voter]["token"])
        assert r.status_code == 200, r.text
    clocked.idle(gid)
    log = clocked.view(gid)["log"]
    bot_moves = [e for e in log if e["seat"] == 0 and e["by"] == "bot"]
    assert bot_moves, log
    first = bot_moves[0]
    bea.wait_for_selector(f"#log .log-move[data-n='{first['n']}']")
    text = entry_text(bea, first["n"])
    assert text.startswith("The bot, for Ada, "), text
    assert "Ada placed" not in text and not text.startswith("Ada ")
    bea.locator(f"#log .log-move[data-n='{first['n']}']").scroll_into_view_if_needed()
    shot(bea, "move-log-bot-for-player-desktop")
    # In another language, and on a phone.
    phone = new_page(phone=True)
    phone.add_init_script("localStorage.setItem('hansa.lang', 'pt')")
    open_at(phone, clocked.url, g["seats"][2]["url"])
    phone.locator("#side-tabs button[data-tab='log']").tap()
    phone.wait_for_selector(f"#log .log-move[data-n='{first['n']}']")
    assert entry_text(phone, first["n"]).startswith("O bot, por Ada, ")
    assert entry_text(phone, 1) == "O tempo de Ada acabou: o relógio encerrou o turno."
    phone.locator(f"#log .log-move[data-n='{first['n']}']").scroll_into_view_if_needed()
    shot(phone, "move-log-bot-for-player-phone")
