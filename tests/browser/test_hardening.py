"""Browser tests of the client's side of the server's hardening (docs/api.md): a strict Content-Security-Policy,
seat tokens that never travel in a URL, old ``?token=`` links, the WebSocket's close codes and the view's
``error`` banner."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_support import (
    CHROMIUM,
    Server,
    create_in_lobby,
    open_game,
    page_view,
    place_by_click,
    version,
    wait_mine_or_over,
    wait_until,
    wait_version_change,
)

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

SOCKET = re.compile(r"/api/games/\w+/ws$")


# ---------------------------------------------------------------------------------------------- CSP


def test_no_csp_violation_on_lobby_game_and_replay(new_page: Any, server: Server, csp_violations: list[str]) -> None:
    page = new_page()
    # Lobby: the form, the advanced options, a created game's links, "my games" with Stop / Delete.
    res = page.goto(server.base + "/")
    assert res is not None and "script-src 'self'" in res.headers["content-security-policy"]
    page.wait_for_selector("body[data-ready='1']")
    page.click("#advanced summary")
    game = create_in_lobby(page)
    page.wait_for_selector("#created .seat-link")
    page.wait_for_selector(f"#my-games .game-item[data-id='{game['id']}'] .stop-btn")
    page.wait_for_selector(f"#recent-games .game-item[data-id='{game['id']}']")
    assert csp_violations == []
    # Game page: board clicks, the piece popup, undo, the end of the turn, the bot's answer over the socket.
    page.click("#open-game")
    page.wait_for_selector("svg.board .house")
    wait_mine_or_over(page)
    place_by_click(page)
    before = version(page)
    page.click("#undo-btn")
    wait_version_change(page, before)
    place_by_click(page)
    before = version(page)
    page.click("#end-btn")
    wait_version_change(page, before)
    wait_mine_or_over(page)
    page.locator("svg.board g.house.free.hl").first.click()
    if page.locator("#popup").is_visible():
        page.keyboard.press("Escape")
    assert page_view(page)["version"] >= 3
    assert csp_violations == []
    # Replay page: the slider and the keys.
    page.goto(f"{server.base}/replay/{game['id']}")
    page.wait_for_selector("body[data-ready='1']")
    page.locator("#slider").focus()
    page.keyboard.press("Home")
    page.wait_for_function("() => document.body.dataset.k === '0'")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.body.dataset.k === '1'")
    assert csp_violations == []
    # The watch works (else the assertions above prove nothing): an inline style attribute is refused and reported.
    page.evaluate("document.body.setAttribute('style', 'outline: 3px solid red')")
    wait_until(page, lambda: any('"directive":"style-src-attr"' in v for v in csp_violations))
    wait_until(page, lambda: any(v.startswith("console:") for v in csp_violations))  # reported twice
    page.wait_for_timeout(200)
    csp_violations.clear()


# ---------------------------------------------------------------------------------------------- tokens


def test_seat_token_never_in_a_url(new_page: Any, server: Server) -> None:
    page = new_page()
    requests: list[Any] = []
    sockets: list[Any] = []
    frames: list[str] = []

    def on_socket(ws: Any) -> None:
        sockets.append(ws)
        ws.on("framereceived", lambda payload: frames.append(payload if isinstance(payload, str) else payload.decode()))

    page.on("request", lambda r: requests.append(r))
    page.on("websocket", on_socket)
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    game = create_in_lobby(page)
    seat = next(s for s in game["seats"] if s["type"] == "human")
    token = seat["token"]
    assert game["hotseat_token"] is None  # a game of seat links
    assert page.locator("#created .seat-link input").input_value().endswith(f"/game/{game['id']}#token={token}")
    page.click("#open-game")
    page.wait_for_selector("svg.board .house")
    assert page.url.endswith(f"#token={token}")
    wait_mine_or_over(page)
    place_by_click(page)
    before = version(page)
    page.click("#undo-btn")
    wait_version_change(page, before)
    place_by_click(page)
    # A hot-seat game: its one token for every human seat travels the same way.
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.check("#hotseat")
    hot_game = create_in_lobby(page)
    hot = hot_game["hotseat_token"]
    assert hot and all(s["token"] is None for s in hot_game["seats"])
    assert page.locator("#created .hotseat-link input").input_value().endswith(f"/game/{hot_game['id']}#token={hot}")
    page.click("#open-game")
    page.wait_for_selector("svg.board .house")
    assert page.url.endswith(f"/game/{hot_game['id']}#token={hot}")
    wait_mine_or_over(page)
    place_by_click(page)
    secrets = [token, hot, game["creator_token"], hot_game["creator_token"]]
    # What reaches the server: the URL without its fragment (browsers never send the fragment).
    sent = [urlsplit(r.url)._replace(fragment="").geturl() for r in requests] + [ws.url for ws in sockets]
    assert sockets and all(SOCKET.search(ws.url) for ws in sockets), [ws.url for ws in sockets]
    for url in sent:
        for secret in secrets:
            assert secret not in url, url
    # The token does reach the server: in the X-Hansa-Token header of the game's REST calls, in no other header.
    for g, expected, calls in ((game, token, {game["id"], "moves", "undo"}), (hot_game, hot, {hot_game["id"], "moves"})):
        game_calls = [r for r in requests if urlsplit(r.url).path.startswith(f"/api/games/{g['id']}")]
        assert {urlsplit(r.url).path.rsplit("/", 1)[-1] for r in game_calls} >= calls
        for r in game_calls:
            if urlsplit(r.url).path.endswith(("/history", "/record")) or (
                    r.method == "GET" and urlsplit(r.url).path.endswith("/chat")):  # public reads: no token needed
                continue
            assert r.all_headers().get("x-hansa-token") == expected, r.url
    for r in requests:
        for name, value in r.all_headers().items():
            if name != "x-hansa-token":
                assert all(secret not in value for secret in secrets), (r.url, name)
    # ... and the sockets, which got them as a subprotocol, push the seat's own view (the human seat's for the hot seat).
    for g, you in ((game, seat["seat"]), (hot_game, 0)):
        wait_until(page, lambda g=g, you=you: any(f'"id":"{g["id"]}"' in f and f'"you":[{you}]' in f for f in frames))


def test_legacy_query_token_link_still_plays(new_page: Any, server: Server) -> None:
    game = server.create([{"name": "Ann", "type": "human"}, {"name": "Ben", "type": "human"}], seed=4)
    decider = server.call("GET", f"/api/games/{game['id']}")["state"]["turn"]["decider"]
    token = game["seats"][decider]["token"]
    page = new_page()
    open_game(page, server, f"/game/{game['id']}?token={token}")
    # The address bar (and the history entry) lose the query: the token now sits in the fragment.
    assert page.url == f"{server.base}/game/{game['id']}#token={token}"
    assert page.evaluate("location.search") == ""
    wait_mine_or_over(page)
    assert page_view(page)["you"] == [decider]
    house = place_by_click(page)
    assert server.call("GET", f"/api/games/{game['id']}")["state"]["houses"][house][0] == decider
    # A reload of the rewritten address still holds the seat.
    page.reload()
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    assert page_view(page)["you"] == [decider]


# ---------------------------------------------------------------------------------------------- WebSocket


def test_socket_close_codes_and_server_error_banner(new_page: Any, server: Server) -> None:
    """Through a WebSocket route in the middle: the view's ``error`` banner, and 4408 / 1008 / 4409 closes."""
    game = server.create([{"name": "Ann", "type": "human"}, {"name": "Ben", "type": "human"}], seed=4)
    page = new_page()
    routes: list[Any] = []
    opened: list[float] = []
    held: list[tuple[Any, Any]] = []  # the server's messages while the test's own views are on the page
    holding = [False]

    def handler(ws: Any) -> None:
        routes.append(ws)
        opened.append(time.monotonic())
        upstream = ws.connect_to_server()  # the page's messages pass through; the server's through from_server

        def from_server(message: Any) -> None:
            if holding[0]:
                held.append((ws, message))
            else:
                ws.send(message)

        upstream.on_message(from_server)

    page.route_web_socket(SOCKET, handler)
    open_game(page, server, game["seats"][0]["url"])
    page.wait_for_function("() => document.body.dataset.conn === 'open'")
    assert page.locator("#server-error").is_hidden()
    # A transient server problem shows in a banner while the view carries it, and goes away with it.
    # (The server's own pushes wait meanwhile: one arriving between the two views would replace the banner.)
    view = page_view(page)
    problem = "the database is not answering; the bots will go on when it does"
    holding[0] = True
    routes[-1].send(json.dumps({"type": "view", "view": {**view, "error": problem}}))
    page.wait_for_selector("#server-error:not([hidden])")
    assert problem in page.locator("#server-error").inner_text()
    routes[-1].send(json.dumps({"type": "view", "view": {**view, "error": None}}))
    page.wait_for_selector("#server-error", state="hidden")
    holding[0] = False
    for ws, message in held:
        ws.send(message)
    # 4408 (too slow): back at once, without the "reconnecting" banner (a backoff waits 320 ms at least).
    n = len(routes)
    closed = time.monotonic()
    routes[-1].close(code=4408, reason="too slow: reconnect")
    wait_until(page, lambda: len(routes) > n)
    assert opened[-1] - closed < 0.3, opened[-1] - closed
    page.wait_for_function("() => document.body.dataset.conn === 'open'")
    assert page.locator("#conn-banner").is_hidden()
    # 1008 (too many messages): reconnects with the normal backoff.
    n = len(routes)
    routes[-1].close(code=1008, reason="too many messages")
    page.wait_for_selector("#conn-banner:not([hidden])")
    assert "attempt 1" in page.locator("#conn-banner").inner_text()
    wait_until(page, lambda: len(routes) > n)
    page.wait_for_function("() => document.body.dataset.conn === 'open'")
    page.wait_for_selector("#conn-banner", state="hidden")
    # 4409 (damaged): stops for good and shows the reason; no actions are left.
    n = len(routes)
    reason = f"game {game['id']} is damaged and not served for play: move 3"
    routes[-1].close(code=4409, reason=reason)
    page.wait_for_selector("#halted-title")
    assert page.locator("#halted-title").inner_text() == "This game is damaged"
    assert reason.lower() in page.locator("#endgame").inner_text().lower()
    assert page.evaluate("document.body.dataset.status") == "damaged"
    assert page.locator("#controls").is_hidden()
    assert page.locator("svg.board .hl").count() == 0
    page.wait_for_timeout(1500)
    assert len(routes) == n
