"""Clocks in the browser: the lobby's clock choice reaches the server and every seat's clock on the table (counting
down from the server's time), the "My games" page (your turn first, the title's count, notifications, games that
no longer exist), away seats ("take back my seat"), takeover votes and the webhook setting.  Away seats and takeovers
need the server's time moved on: those tests run the app in a thread with an injected time source
(tests/server/clock_support.py)."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_support import CHROMIUM, CONTRAST, SCREENSHOTS, SIDEWAYS, Server, open_game, wait_mine_or_over

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from clock_support import ClockServer, FakeTime, clock_server  # noqa: E402

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

PHONE = 390
REALTIME = re.compile(r"^\d+:\d\d$")
HUMANS = [{"name": "Ada", "type": "human"}, {"name": "Bea", "type": "human"}, {"name": "Cy", "type": "human"}]
#: Replaces the browser's notifications with a recorder that has permission, and makes the page look unfocused.
FAKE_NOTIFICATIONS = """
window.__notes = [];
window.Notification = class {
  constructor(title, opts) { window.__notes.push({ title, body: (opts || {}).body || "" }); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
Document.prototype.hasFocus = () => false;
"""


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[ClockServer]:
    """The app with a fake time source (starts at clock_support.T0 and stands still until moved on)."""
    with clock_server(f"sqlite:///{tmp_path / 'clocks.sqlite3'}", FakeTime(), takeover_after=3600.0,
                      webhook_hosts="hooks.example.org") as srv:
        yield srv


def create(srv: ClockServer, clock: dict[str, Any] | None, players: list[dict[str, Any]] | None = None,
           seed: int = 4) -> dict[str, Any]:
    body: dict[str, Any] = {"players": players or HUMANS, "seed": seed}
    if clock is not None:
        body["clock"] = clock
    r = srv.post("/api/games", body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def open_at(page: Any, base: str, url: str) -> None:
    page.goto(base + url)
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => document.body.dataset.version !== undefined")


def clock_text(page: Any, seat: int) -> str:
    return page.locator(f".desk[data-seat='{seat}'] .desk-clock .clock-time").inner_text()  # type: ignore[no-any-return]


def seconds(text: str) -> int:
    parts = [int(x) for x in text.split(":")]
    return sum(v * 60**i for i, v in enumerate(reversed(parts)))


# ---------------------------------------------------------------------------------------------- lobby -> table


def fill_lobby(page: Any) -> None:
    page.select_option("#player-count", "3")
    seats = page.locator("#seats .seat")
    seats.nth(0).locator(".seat-name").fill("Alice")
    for i, bot in ((1, "random"), (2, "purpose")):
        seats.nth(i).locator(".seat-type").select_option("bot")
        seats.nth(i).locator(".seat-bot").select_option(bot)


def test_realtime_clock_from_the_lobby_counts_down_on_every_desk(new_page: Any, server: Server) -> None:
    page = new_page(viewport={"width": 1366, "height": 900})
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    fill_lobby(page)
    assert page.locator("#clock-realtime").is_hidden() and page.locator("#clock-summary").is_hidden()
    page.check("input[name=clock-kind][value=realtime]")
    assert page.locator("#clock-realtime").is_visible() and page.locator("#clock-timeout").is_visible()
    assert page.locator("#presets-realtime .preset[aria-pressed=true]").inner_text() == "10 min + 5 s"
    page.locator("#presets-realtime .preset", has_text="5 min + 3 s").click()
    assert page.locator("#clock-minutes").input_value() == "5" and page.locator("#clock-increment").input_value() == "3"
    page.select_option("#clock-bot", "random")
    summary = page.locator("#clock-summary").inner_text()
    assert "5 min" in summary and "3 s" in summary and "random" in summary
    # A value out of the server's bounds is caught before sending.
    page.fill("#clock-minutes", "500")
    assert "1 to 180" in page.locator("#clock-summary").inner_text()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.method + " " + urlsplit(r.url).path))
    page.click("#create-btn")
    page.wait_for_timeout(200)
    assert page.locator("#clock-minutes").evaluate("e => !e.validity.valid") and "POST /api/games" not in requests
    page.fill("#clock-minutes", "5")
    # Turn-based has its own fields; the screenshot shows it, then back to real time.
    page.check("input[name=clock-kind][value=turn]")
    assert page.locator("#clock-turn").is_visible() and page.locator("#clock-realtime").is_hidden()
    assert page.locator("#presets-turn .preset[aria-pressed=true]").count() == 1  # 1 day + 1 day bank
    page.check("input[name=clock-kind][value=realtime]")
    page.locator("#clock-box").scroll_into_view_if_needed()
    shot(page, "clocks-lobby-desktop")
    with page.expect_request(lambda r: urlsplit(r.url).path == "/api/games" and r.method == "POST") as info:
        page.click("#create-btn")
    sent = info.value.post_data_json
    assert sent["clock"] == {"kind": "realtime", "base": 300, "increment": 3, "bank": 0, "on_timeout": "bot", "bot": "random"}
    page.wait_for_selector("#created .seat-link")
    mine = json.loads(page.evaluate("localStorage.getItem('hansa.myGames')"))
    assert mine[0]["clock"] == {"kind": "realtime", "base": 300, "increment": 3, "bank": 0}
    assert "5 min + 3 s" in page.locator("#my-games .game-item").first.inner_text()
    page.click("#open-game")
    page.wait_for_selector("svg.board .house")
    wait_mine_or_over(page)
    # Every seat shows its clock; the deciding seat's runs.
    for seat in range(3):
        assert REALTIME.match(clock_text(page, seat)), clock_text(page, seat)
    assert page.locator(".desk-clock.running").count() == 1
    assert page.locator(".desk[data-seat='0'] .desk-clock").evaluate("e => e.classList.contains('running')")
    before = seconds(clock_text(page, 0))
    assert 280 <= before <= 300 + 3 * 3
    page.wait_for_timeout(2300)
    assert seconds(clock_text(page, 0)) <= before - 2
    # The bots have moved and earned their increments; their clocks stand still.
    bot_clock = clock_text(page, 1)
    page.wait_for_timeout(1100)
    assert clock_text(page, 1) == bot_clock
    assert page.locator("#clock-bar").is_hidden()  # the phones' strip
    assert page.title().startswith("●")
    assert page.evaluate(CONTRAST) == []
    shot(page, "clocks-table-desktop")


def test_lobby_clock_form_on_a_phone(new_page: Any, server: Server) -> None:
    page = new_page(phone=True)
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.check("input[name=clock-kind][value=turn]")
    page.select_option("#clock-policy", "end-turn")
    assert page.locator("#clock-bot-row").is_hidden()
    assert "ended" in page.locator("#clock-summary").inner_text()
    assert page.evaluate(SIDEWAYS) == []
    page.locator("#clock-box").scroll_into_view_if_needed()
    shot(page, "clocks-lobby-phone")
    page.check("input[name=clock-kind][value=realtime]")
    assert page.evaluate(SIDEWAYS) == []
    with page.expect_request(lambda r: urlsplit(r.url).path == "/api/games" and r.method == "POST") as info:
        page.click("#create-btn")
    assert info.value.post_data_json["clock"]["on_timeout"] == "end-turn"
    page.click("#open-game")
    page.wait_for_selector("svg.board .house")
    wait_mine_or_over(page)
    # On a phone the desks are on another tab: the clocks are in a strip above the board.
    assert page.locator("#clock-bar").is_visible()
    assert page.locator("#clock-bar .clock-chip").count() == 3
    assert page.locator("#clock-bar .clock.running").count() == 1
    assert REALTIME.match(page.locator("#clock-bar .clock-chip").first.locator(".clock-time").inner_text())
    assert page.evaluate(SIDEWAYS) == []


def test_turn_based_clock_shows_days_and_hours(new_page: Any, server: Server) -> None:
    clock = {"kind": "turn", "base": 86400, "bank": 2 * 86400 + 3 * 3600}
    game = server.call("POST", "/api/games", {"players": HUMANS[:2], "seed": 4, "clock": clock})
    page = new_page()
    open_game(page, server, game["seats"][1]["url"])
    assert page.locator(".desk[data-seat='1'] .desk-clock").inner_text().endswith("3 d 3 h")  # a period + its bank
    running = page.locator(".desk[data-seat='0'] .desk-clock .clock-time").inner_text()
    assert re.match(r"^3 d 2 h$|^3 d 3 h$", running), running
    assert "2 d 3 h" in page.locator(".desk[data-seat='0'] .desk-clock").get_attribute("title")


# ---------------------------------------------------------------------------------------------- my games


def test_my_games_lists_this_browsers_games_your_turn_first(new_page: Any, server: Server) -> None:
    page = new_page(viewport={"width": 1366, "height": 900})
    page.add_init_script(FAKE_NOTIFICATIONS)
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#my-games-link").get_attribute("href") == "/my-games"

    def lobby_game(bob: bool, seed: int) -> dict[str, Any]:
        seats = page.locator("#seats .seat")
        page.select_option("#player-count", "2")
        seats.nth(0).locator(".seat-name").fill("Alice")
        seats.nth(1).locator(".seat-type").select_option("human" if bob else "bot")
        seats.nth(1).locator(".seat-name").fill("Bob" if bob else "Botty")
        if not bob:
            seats.nth(1).locator(".seat-bot").select_option("random")
        page.fill("#seed", str(seed))
        with page.expect_response(lambda r: urlsplit(r.url).path == "/api/games" and r.request.method == "POST") as info:
            page.click("#create-btn")
        game: dict[str, Any] = info.value.json()
        page.wait_for_selector(f"#my-games .game-item[data-id='{game['id']}']")
        return game

    page.click("#advanced summary")
    page.check("input[name=clock-kind][value=realtime]")
    vs_bot = lobby_game(False, 4)  # Alice starts: her turn
    waiting = lobby_game(True, 5)  # Bob starts: Alice waits
    gone = lobby_game(True, 4)
    server.call("DELETE", f"/api/games/{gone['id']}", token=gone["creator_token"])
    # A game this browser did not create, opened with a seat link: the game page remembers it.
    other = server.create([{"name": "Dora", "type": "human"}, {"name": "Eve", "type": "human"}], seed=4)
    open_game(page, server, other["seats"][0]["url"])
    stored = json.loads(page.evaluate("localStorage.getItem('hansa.myGames')"))
    assert stored[0]["id"] == other["id"] and stored[0]["open"] == other["seats"][0]["url"]
    page.goto(server.base + "/my-games")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("() => document.querySelectorAll('.mg-item').length === 4")
    items = page.locator(".mg-item")
    states = items.evaluate_all("els => els.map((e) => [e.dataset.id, e.dataset.state])")
    assert sorted(states[:2]) == sorted([[vs_bot["id"], "your-turn"], [other["id"], "your-turn"]])
    assert states[2:] == [[waiting["id"], "waiting"], [gone["id"], "gone"]]
    assert page.title() == "(2) Your turn — hansa"
    assert page.locator("#mg-summary").inner_text() == "Your turn in 2 games"
    mine = page.locator(f".mg-item[data-id='{vs_bot['id']}']")
    assert "Your turn" in mine.locator(".mg-badge").inner_text()
    assert REALTIME.match(mine.locator(".mg-left").inner_text())
    assert mine.locator("a.open-link").get_attribute("href") == f"/game/{vs_bot['id']}#token={vs_bot['seats'][0]['token']}"
    assert "Bob to decide" in page.locator(f".mg-item[data-id='{waiting['id']}']").inner_text()
    assert "no longer exists" in page.locator(f".mg-item[data-id='{gone['id']}']").inner_text().lower()
    # The time left counts down.
    left = seconds(mine.locator(".mg-left").inner_text())
    page.wait_for_timeout(2200)
    assert seconds(mine.locator(".mg-left").inner_text()) <= left - 1
    assert page.evaluate(CONTRAST) == []
    shot(page, "clocks-my-games-desktop")
    # Bob ends his turn: at the next check the game is Alice's turn, the title counts 3 and a notification tells.
    assert page.evaluate("window.__notes.length") == 0
    server.call("POST", f"/api/games/{waiting['id']}/moves", {"move": "end"}, token=waiting["seats"][1]["token"])
    page.evaluate("window.hansaMyGames.check()")
    page.wait_for_function("() => document.title.startsWith('(3)')")
    notes = page.evaluate("window.__notes")
    assert len(notes) == 1 and "Alice" in notes[0]["body"] and "Bob" in notes[0]["body"]
    # A game that no longer exists is forgotten with a click.
    page.locator(f".mg-item[data-id='{gone['id']}'] .forget-btn").click()
    page.wait_for_selector(f".mg-item[data-id='{gone['id']}']", state="detached")
    assert gone["id"] not in page.evaluate("localStorage.getItem('hansa.myGames')")
    # Keyboard: the first game's link is reached with Tab.
    page.locator(".mg-item a.open-link").first.focus()
    assert page.evaluate("document.activeElement.classList.contains('open-link')")
    # A phone.
    phone = new_page(phone=True)
    phone.goto(server.base + "/")
    phone.evaluate("(s) => localStorage.setItem('hansa.myGames', s)", page.evaluate("localStorage.getItem('hansa.myGames')"))
    phone.goto(server.base + "/my-games")
    phone.wait_for_function("() => document.querySelectorAll('.mg-item').length === 3")
    assert phone.evaluate(SIDEWAYS) == []
    assert phone.evaluate(CONTRAST) == []
    shot(phone, "clocks-my-games-phone")


def test_my_games_without_games_points_to_the_lobby(new_page: Any, server: Server) -> None:
    page = new_page()
    page.goto(server.base + "/my-games")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator(".mg-empty a").get_attribute("href") == "/"
    assert page.title() == "My games — hansa"


# ---------------------------------------------------------------------------------------------- away, takeover


def test_away_banner_take_back_and_takeover_votes(clocked: ClockServer, new_page: Any) -> None:
    clock = {"kind": "realtime", "base": 600, "increment": 0, "on_timeout": "bot", "bot": "random"}
    g = create(clocked, clock)
    gid = g["id"]
    clocked.time.advance(601)  # Ada (seat 0) runs out of time: the random bot plays her turn
    clocked.tick()
    clocked.idle(gid)
    view = clocked.view(gid)  # the public view: away and the clock are public
    assert view["players"][0]["away"] and view["clock"]["seat"] == 1
    ada = new_page(viewport={"width": 1366, "height": 900})
    open_at(ada, clocked.url, g["seats"][0]["url"])
    banner = ada.locator("#away-banner")
    assert banner.is_visible()
    assert "A bot (random) is playing for you" in banner.inner_text()
    assert "Away — the random bot plays" in ada.locator(".desk[data-seat='0'] .desk-note").inner_text()
    assert ada.locator(".desk[data-seat='0'] .desk-clock").evaluate("e => e.classList.contains('away')")
    assert ada.locator(".desk[data-seat='0'] .desk-clock .clock-time").inner_text() == "0:00"
    assert ada.locator("#takeover").is_hidden()  # nobody else is abandoned
    # Bea votes for a bot to take over Ada; a second click withdraws the vote.
    bea = new_page(viewport={"width": 1366, "height": 900})
    open_at(bea, clocked.url, g["seats"][1]["url"])
    box = bea.locator("#takeover")
    assert box.is_visible()
    btn = box.locator(".takeover-btn[data-seat='0']")
    assert btn.inner_text() == "Vote to let a bot take over Ada" and btn.get_attribute("aria-pressed") == "false"
    assert "Votes: 0 of the 2 needed" in box.inner_text()
    assert "ran out of time" in box.inner_text()
    btn.click()
    bea.wait_for_function("() => document.querySelector('#takeover').textContent.includes('Votes: 1 of the 2')")
    btn = box.locator(".takeover-btn[data-seat='0']")
    assert btn.get_attribute("aria-pressed") == "true" and btn.inner_text().startswith("Withdraw")
    assert clocked.view(gid)["players"][0]["takeover_votes"] == [1]
    ada.wait_for_function("() => document.querySelector(\".desk[data-seat='0'] .desk-note\").textContent.includes('1 vote')")
    btn.click()
    bea.wait_for_function("() => document.querySelector('#takeover').textContent.includes('Votes: 0 of the 2')")
    assert clocked.view(gid)["players"][0]["takeover_votes"] == []
    # Keyboard: the vote button takes Enter.
    box.locator(".takeover-btn[data-seat='0']").focus()
    bea.keyboard.press("Enter")
    bea.wait_for_function("() => document.querySelector('#takeover').textContent.includes('Votes: 1 of the 2')")
    assert bea.evaluate(CONTRAST) == []
    assert ada.evaluate(CONTRAST) == []
    shot(ada, "clocks-away-desktop")
    shot(bea, "clocks-takeover-desktop")
    # Phones: the banner, the clock strip and the vote fit.
    ada_phone = new_page(phone=True)
    open_at(ada_phone, clocked.url, g["seats"][0]["url"])
    assert ada_phone.locator("#away-banner").is_visible() and ada_phone.locator("#clock-bar").is_visible()
    assert ada_phone.locator("#clock-bar .clock-chip.away").count() == 1
    assert ada_phone.evaluate(SIDEWAYS) == []
    shot(ada_phone, "clocks-away-phone")
    bea_phone = new_page(phone=True)
    open_at(bea_phone, clocked.url, g["seats"][1]["url"])
    assert bea_phone.locator("#takeover").is_visible()
    assert bea_phone.evaluate(SIDEWAYS) == []
    shot(bea_phone, "clocks-takeover-phone")
    bea_phone.locator("#side-tabs button[data-tab='players']").tap()
    assert "Away" in bea_phone.locator(".desk[data-seat='0']").inner_text()
    shot(bea_phone, "clocks-desks-phone")
    # Ada takes her seat back: her banner goes, the votes against her are void, Bea's offer goes.
    ada.locator("#away-banner .back-btn").click()
    ada.wait_for_selector("#away-banner", state="hidden")
    assert not clocked.view(gid)["players"][0]["away"]
    bea.wait_for_selector("#takeover", state="hidden")
    assert ada.locator(".desk[data-seat='0'] .desk-note").count() == 0


def test_takeover_of_a_seat_idle_too_long_without_a_clock(clocked: ClockServer, new_page: Any) -> None:
    g = create(clocked, None)
    clocked.time.advance(3599)
    bea = new_page()
    open_at(bea, clocked.url, g["seats"][1]["url"])
    assert bea.locator("#takeover").is_hidden()
    assert bea.locator(".desk-clock").count() == 0  # no clock: nothing to count
    # An hour without a move (the server's takeover_after): the offer appears as the time goes by.
    bea.wait_for_selector("#takeover", state="visible", timeout=5000)
    assert "Ada has been deciding without a move for" in bea.locator("#takeover").inner_text()
    clocked.time.advance(5)  # the server's time stands still unless moved on; the page's counts on by itself
    # Bea and Cy vote: more than half of the other seats, Ada's seat becomes a bot's.
    bea.locator("#takeover .takeover-bot").select_option("random")
    bea.locator(".takeover-btn[data-seat='0']").click()
    bea.wait_for_function("() => document.querySelector('#takeover').textContent.includes('Votes: 1 of the 2')")
    cy = new_page()
    open_at(cy, clocked.url, g["seats"][2]["url"])
    cy.locator(".takeover-btn[data-seat='0']").click()
    bea.wait_for_selector("#takeover", state="hidden")
    assert bea.locator(".desk[data-seat='0'] .tag", has_text="bot").count() == 1
    clocked.idle(g["id"])
    assert clocked.view(g["id"])["players"][0]["type"] == "bot"


# ---------------------------------------------------------------------------------------------- webhook


def test_webhook_setting_for_the_seat(clocked: ClockServer, server: Server, new_page: Any) -> None:
    g = create(clocked, None)
    page = new_page()
    open_at(page, clocked.url, g["seats"][0]["url"])
    page.click("#settings-btn")
    box = page.locator("#set-notify")
    assert box.is_visible()
    page.fill("#webhook-url", "https://evil.example.com/hook")
    page.click("#webhook-save")
    page.wait_for_function("() => document.querySelector('#webhook-msg').textContent.includes('does not call evil.example.com')")
    assert page.locator("#webhook-msg").evaluate("e => e.classList.contains('bad')")
    page.fill("#webhook-url", "https://hooks.example.org/t/1")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#webhook-msg').textContent.startsWith('Saved')")
    assert clocked.view(g["id"], g["seats"][0]["token"])["webhooks"] == {"0": "https://hooks.example.org/t/1"}
    shot(page, "clocks-webhook-desktop")
    page.click("#webhook-remove")
    page.wait_for_function("() => document.querySelector('#webhook-msg').textContent.startsWith('Removed')")
    assert clocked.view(g["id"], g["seats"][0]["token"])["webhooks"] == {}
    # A spectator has no such setting; on a server without webhooks the player is told why.
    spectator = new_page()
    open_at(spectator, clocked.url, g["spectator_url"])
    spectator.click("#settings-btn")
    assert spectator.locator("#set-notify").is_hidden()
    plain = server.create(HUMANS[:2], seed=4)
    other = new_page(phone=True)
    open_game(other, server, plain["seats"][0]["url"])
    other.locator("#settings-btn").tap()
    other.fill("#webhook-url", "https://hooks.example.org/t/1")
    other.locator("#webhook-save").tap()
    other.wait_for_function("() => document.querySelector('#webhook-msg').textContent.includes('webhooks are off')")
    assert other.evaluate(SIDEWAYS) == []
    shot(other, "clocks-webhook-phone")


def test_a_suspended_webhook_is_shown_to_its_seat_until_saved_again(tmp_path: Path, new_page: Any) -> None:
    """A webhook that failed ``--webhook-suspend-after`` notices in a row is suspended: its seat's settings say so
    (in red), and saving the address again resumes it."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Failing(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server name
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    receiver = ThreadingHTTPServer(("127.0.0.3", 0), Failing)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook = f"http://127.0.0.3:{receiver.server_address[1]}/hook"
    try:
        with clock_server(f"sqlite:///{tmp_path / 'hooks.sqlite3'}", FakeTime(), webhook_hosts="127.0.0.3",
                          webhook_delay=0.05, webhook_interval=0.05, webhook_suspend_after=2) as srv:
            g = create(srv, None, HUMANS[:2])
            gid = g["id"]
            decider = srv.view(gid)["state"]["turn"]["decider"]
            hooked = 1 - decider
            token = g["seats"][hooked]["token"]
            assert srv.put(f"/api/games/{gid}/webhook", {"url": hook}, token).status_code == 200
            assert srv.post(f"/api/games/{gid}/moves", {"move": "end"}, g["seats"][decider]["token"]).status_code == 200
            deadline = time.monotonic() + 20
            while srv.view(gid, token)["webhooks_suspended"] != [hooked]:
                assert time.monotonic() < deadline, "the webhook was not suspended"
                time.sleep(0.05)
            for phone in (False, True):
                page = new_page(phone=phone)
                open_at(page, srv.url, g["seats"][hooked]["url"])
                page.click("#settings-btn")
                msg = page.locator("#webhook-msg")
                assert msg.inner_text().startswith("Suspended") and msg.evaluate("e => e.classList.contains('bad')")
                assert page.locator("#webhook-url").input_value() == hook
                assert page.evaluate(SIDEWAYS) == []
                shot(page, f"clocks-webhook-suspended-{'phone' if phone else 'desktop'}")
            page.click("#webhook-save")
            page.wait_for_function("() => document.querySelector('#webhook-msg').textContent.startsWith('Saved')")
            assert srv.view(gid, token)["webhooks_suspended"] == []
    finally:
        receiver.shutdown()
        receiver.server_close()
