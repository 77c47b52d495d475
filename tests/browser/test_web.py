"""Browser tests of the web client (lobby, game page, replay) against a real server, in headless Chromium."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    CHROMIUM,
    Server,
    choose,
    history_turns,
    log_count,
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

EVIL = "<img src=x onerror=alert(1)>"


# ---------------------------------------------------------------------------------------------- a


def test_lobby_create_and_play_vs_bots(new_page: Any, server: Server) -> None:
    page = new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#player-count", "3")
    seats = page.locator("#seats .seat")
    assert seats.count() == 3
    seats.nth(0).locator(".seat-name").fill("Alice")
    seats.nth(1).locator(".seat-type").select_option("bot")
    seats.nth(1).locator(".seat-bot").select_option("random")
    seats.nth(2).locator(".seat-type").select_option("bot")
    seats.nth(2).locator(".seat-bot").select_option("purpose")
    page.click("#advanced summary")
    assert page.locator("#options select[data-option='marker_set']").input_value() == '"IT4"'
    page.fill("#seed", "21")
    page.click("#create-btn")
    page.wait_for_selector("#created .seat-link")
    assert page.locator("#created .seat-link").count() == 1
    link = page.locator("#created .seat-link input").input_value()
    assert "/game/" in link and "#token=" in link and "?" not in link
    assert page.locator("#created .spectator-link").count() == 1
    assert page.locator("#created .hotseat-link").count() == 0  # a game of seat links has no hot-seat link
    mine = json.loads(page.evaluate("localStorage.getItem('hansa.myGames')"))
    assert mine and mine[0]["players"][0]["name"] == "Alice"
    assert "hotseat" not in mine[0] and server.base + mine[0]["open"] == link
    page.click("#open-game")
    page.wait_for_url(re.compile(r"/game/\w+#token=[\w-]+$"))
    page.wait_for_selector("svg.board .house")
    wait_mine_or_over(page)
    assert page.locator("#turn-banner").is_visible()
    assert page.title().startswith("●")
    n_log = log_count(page)
    # Place a piece by clicking a highlighted house, then take it back and place again.
    house = place_by_click(page)
    assert page.locator(f"svg.board [data-key='h:{house}'] .piece").count() == 1
    assert log_count(page) == n_log + 1
    assert page.locator("#undo-btn").is_enabled()
    before = version(page)
    page.click("#undo-btn")
    wait_version_change(page, before)
    assert page.locator(f"svg.board [data-key='h:{house}'] .piece").count() == 0
    house = place_by_click(page)
    # End the turn with the button; the bots answer (the log grows) and it is our turn again.
    n_log = log_count(page)
    before = version(page)
    page.click("#end-btn")
    wait_version_change(page, before)
    page.wait_for_function(f"() => document.querySelectorAll('#log .log-move').length >= {n_log + 3}")
    wait_mine_or_over(page)
    seats_moved = {m["seat"] for m in page_view(page)["log"]}
    assert {1, 2} <= seats_moved
    assert page.locator("#log").inner_text().count("place") >= 2


# ---------------------------------------------------------------------------------------------- b


def test_two_humans_live_updates(new_page: Any, server: Server) -> None:
    game = server.create([{"name": "Ann", "type": "human"}, {"name": "Ben", "type": "human"}], seed=4)
    p1, p2 = new_page(), new_page()
    open_game(p1, server, game["seats"][0]["url"])
    open_game(p2, server, game["seats"][1]["url"])
    first = page_view(p1)["state"]["turn"]["current"]
    active, waiting = (p1, p2) if first == 0 else (p2, p1)
    assert active.evaluate("document.body.dataset.mine") == "1"
    assert waiting.evaluate("document.body.dataset.mine") == "0"
    assert waiting.locator("svg.board .hl").count() == 0
    v0 = version(waiting)
    house = place_by_click(active)
    # The other page sees the piece over the WebSocket without reloading.
    wait_version_change(waiting, v0)
    assert waiting.locator(f"svg.board [data-key='h:{house}'] .piece").count() == 1
    assert waiting.locator(f"#log .log-move[title='place T {house}'], #log .log-move[title='place M {house}']").count() == 1
    v1 = version(waiting)
    active.click("#end-btn")
    wait_version_change(waiting, v1)
    waiting.wait_for_function("() => document.body.dataset.mine === '1'")
    assert waiting.locator("#turn-banner").is_visible()
    v2 = version(active)
    house2 = place_by_click(waiting)
    wait_version_change(active, v2)
    assert active.locator(f"svg.board [data-key='h:{house2}'] .piece").count() == 1
    assert active.evaluate("document.body.dataset.mine") == "0"


# ---------------------------------------------------------------------------------------------- c


def act_in_page(page: Any, move: dict[str, Any]) -> None:
    """Make ``move`` through the page: clicks on the board and buttons, the text box otherwise."""
    j = move["json"]
    before = version(page)
    if j["type"] == "place":
        page.locator(f"svg.board [data-key='h:{j['house']}']").click()
        if page.locator("#popup").is_visible():
            page.locator(f"#popup button[data-move='{move['text']}']").click()
    elif j["type"] == "claim":
        page.locator(f"svg.board .claim-badge[data-key='r:{j['route']}']").click()
        page.locator(f"#popup button[data-move='{move['text']}']").click()
    elif j["type"] in ("end", "done"):
        page.locator(f"#action-buttons button[data-move='{j['type']}']").click()
    elif j["type"] == "income":
        page.locator(f"#action-buttons button[data-move='{move['text']}']").click()
    else:
        page.fill("#move-input", move["text"])
        page.press("#move-input", "Enter")
    wait_version_change(page, before)


def test_finish_game_vs_bot(new_page: Any, server: Server) -> None:
    game = server.create([{"name": "Hero", "type": "human"}, {"name": "Robo", "type": "bot", "bot": "heuristic"}], seed=13)
    page = new_page()
    open_game(page, server, game["seats"][0]["url"])
    deadline = time.monotonic() + 120
    clicks = 0
    while time.monotonic() < deadline:
        wait_mine_or_over(page)
        view = page_view(page)
        if view["status"] == "over":
            break
        if not view["legal"]:
            continue
        act_in_page(page, choose(view))
        clicks += 1
    else:
        raise AssertionError("the game did not end in time")
    page.wait_for_selector("#endgame .score-table")
    rows = page.locator("#endgame .score-table tbody tr")
    assert rows.count() == 2
    assert page.locator("#endgame .score-table tr.winner").count() >= 1
    headers = page.locator("#endgame .score-table th").all_inner_texts()
    assert headers == ["Player", "In game", "Abilities", "Markers", "Coellen", "Control", "Network", "Total"]
    page.wait_for_selector("#endgame svg.chart path.series", state="attached")  # a flat 0-point line has no height
    assert page.locator("#endgame svg.chart path.series").count() == 2
    assert page.locator("#end-record").get_attribute("href") == f"/api/games/{game['id']}/record"
    assert page.locator("#end-replay").get_attribute("href") == f"/replay/{game['id']}"
    assert page.locator("#controls").is_hidden()
    assert page.title().startswith("Game over")
    assert clicks > 5


# ---------------------------------------------------------------------------------------------- d


def test_replay_slider(new_page: Any, server: Server) -> None:
    game = server.create([{"name": "Hero", "type": "human"}, {"name": "Robo", "type": "bot", "bot": "heuristic"}], seed=17)
    final = play_out_via_api(server, game)
    total = final["version"]
    moves = [t["move"] for t in history_turns(server, game["id"])]  # moves[k]: move k
    page = new_page()
    page.goto(f"{server.base}/replay/{game['id']}")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#slider").get_attribute("max") == str(total)
    assert page.evaluate("document.body.dataset.k") == str(total)
    pieces_end = page.locator("svg.board .piece").count()
    last_text = page.locator("#move-text").inner_text()
    assert last_text == moves[total]
    # Keyboard: Home goes to the start (empty board apart from neutral pieces), arrows step.
    page.locator("#slider").focus()
    page.keyboard.press("Home")
    page.wait_for_function("() => document.body.dataset.k === '0'")
    assert page.locator("#move-text").inner_text() == "start of the game"
    pieces_start = page.locator("svg.board .piece").count()
    assert pieces_start != pieces_end
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.body.dataset.k === '1'")
    assert page.locator("#move-text").inner_text() == moves[1]
    page.click("#next-btn")
    page.wait_for_function("() => document.body.dataset.k === '2'")
    assert page.locator("#move-text").inner_text() == moves[2]
    page.click("#prev-btn")
    page.wait_for_function("() => document.body.dataset.k === '1'")
    # Drag the slider to the middle.
    box = page.locator("#slider").bounding_box()
    assert box
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(f"() => Math.abs(Number(document.body.dataset.k) - {total // 2}) <= {max(3, total // 10)}")
    k = int(page.evaluate("document.body.dataset.k"))
    assert page.locator("#move-text").inner_text() == moves[k]
    assert page.locator("#move-num").inner_text() == f"{k} / {total}"
    assert page.locator("#record-link").get_attribute("href") == f"/api/games/{game['id']}/record"


# ---------------------------------------------------------------------------------------------- e


def test_illegal_and_stale_moves_and_spectator(new_page: Any, server: Server) -> None:
    game = server.create([{"name": "Ann", "type": "human"}, {"name": "Ben", "type": "human"}], seed=4)
    view0 = server.call("GET", f"/api/games/{game['id']}")
    seat = view0["state"]["turn"]["decider"]
    page = new_page()
    open_game(page, server, game["seats"][seat]["url"])
    assert page.locator("#error").is_hidden()
    v = version(page)
    n_pieces = page.locator("svg.board .piece").count()
    # An illegal move typed in the box: the claim needs a full route of own pieces.
    page.fill("#move-input", "claim GRO-EMD")
    page.press("#move-input", "Enter")
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#error").get_attribute("data-status") == "422"
    text = page.locator("#error").inner_text()
    assert "That move is not allowed now." in text and "null" not in text
    assert text.count("§2.6") == 1 and page.locator("#error a[href='/rules#s2-6']").count() == 1
    assert version(page) == v
    assert page.locator("svg.board .piece").count() == n_pieces
    # Nonsense text: a 400 from the notation parser.
    page.click("#error .err-close")
    page.fill("#move-input", "fly to the moon")
    page.press("#move-input", "Enter")
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#error").get_attribute("data-status") == "400"
    assert "That move was not understood." in page.locator("#error").inner_text()
    # A stale move: the request carries another version (as if another tab had moved meanwhile; versions are
    # never negative, so at version 0 the "stale" one is the next).
    def stale(route: Any) -> None:
        body = json.loads(route.request.post_data or "{}")
        body["version"] = body.get("version", 0) + 1
        route.continue_(post_data=json.dumps(body))

    page.route("**/moves", stale)
    page.click("#error .err-close")
    page.locator("svg.board g.house.free.hl").first.click()
    if page.locator("#popup").is_visible():
        page.keyboard.press("t")
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#error").get_attribute("data-status") == "409"
    assert "null" not in page.locator("#error").inner_text()
    assert version(page) == v
    assert page.locator("svg.board .piece").count() == n_pieces
    page.unroute("**/moves")
    # A spectator link shows the board but no controls and no targets.
    spectator = new_page()
    open_game(spectator, server, game["spectator_url"])
    assert spectator.locator("#spectator-note").is_visible()
    assert spectator.locator("#controls").is_hidden()
    assert spectator.locator("#undo-btn").is_hidden()
    assert spectator.locator("svg.board .hl").count() == 0
    assert spectator.evaluate("document.body.dataset.mine") == "0"
    spectator.locator("svg.board g.house.free").first.click()
    assert spectator.locator("#popup").is_hidden()
    assert version(spectator) == v


# ---------------------------------------------------------------------------------------------- f


def test_malicious_player_name_is_text(new_page: Any, server: Server) -> None:
    page = new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#player-count", "2")
    seats = page.locator("#seats .seat")
    seats.nth(0).locator(".seat-name").fill(EVIL)
    seats.nth(1).locator(".seat-type").select_option("human")
    seats.nth(1).locator(".seat-name").fill("Bob")
    # A game of seat links shows the names in its seat links ...
    page.click("#create-btn")
    page.wait_for_selector("#created .seat-link")
    assert EVIL in page.locator("#created").inner_text()
    # ... and a hot-seat game (played here) in the lists.
    page.click("#hotseat")
    page.click("#create-btn")
    page.wait_for_selector("#created .hotseat-link")
    page.wait_for_selector("#recent-games .game-item")
    assert EVIL in page.locator("#my-games").inner_text()
    assert page.locator("img").count() == 0
    page.click("#open-game")
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    assert page.locator(".desk[data-seat='0'] .desk-name").inner_text() == EVIL
    assert EVIL[:11] in page.locator("svg.track").text_content()  # shortened on the track
    # Hot seat: both seats are "you"; make a move so the name also appears in the log.
    wait_mine_or_over(page)
    place_by_click(page)
    before = version(page)
    page.click("#end-btn")
    wait_version_change(page, before)
    place_by_click(page)
    assert page.locator("#log").inner_text().count("place") == 2
    assert EVIL in page.locator("#log").inner_text()
    assert "Bob" in page.locator("#log").inner_text()
    game_id = page_view(page)["id"]
    page.goto(f"{server.base}/replay/{game_id}")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator(".desk[data-seat='0'] .desk-name").inner_text() == EVIL
    assert page.locator("img").count() == 0
    assert not dialogs


# ---------------------------------------------------------------------------------------------- g


def test_reconnects_after_server_restart(new_page: Any, tmp_path: Path) -> None:
    srv = Server(tmp_path)
    srv.start()
    try:
        game = srv.create([{"name": "Ann", "type": "human"}, {"name": "Ben", "type": "human"}], seed=4, hotseat=True)
        page = new_page()
        open_game(page, srv, game["hotseat_url"])
        page.wait_for_function("() => document.body.dataset.conn === 'open'")
        srv.stop()
        page.wait_for_selector("#conn-banner:not([hidden])")
        assert "reconnecting" in page.locator("#conn-banner").inner_text().lower()
        # While the page is offline another client moves; after the restart the page catches up.
        srv.start()
        view = srv.call("GET", f"/api/games/{game['id']}", token=game["hotseat_token"])
        move = choose(view)
        srv.call("POST", f"/api/games/{game['id']}/moves", {"move": move["text"], "version": view["version"]}, token=game["hotseat_token"])
        page.wait_for_function("() => document.body.dataset.conn === 'open'", timeout=20000)
        page.wait_for_function(f"() => document.body.dataset.version === '{view['version'] + 1}'")
        assert page.locator("#conn-banner").is_hidden()
        assert page.locator(f"#log .log-move[title='{move['text']}']").count() == 1
    finally:
        srv.stop()


# ---------------------------------------------------------------------------------------------- h


def test_displace_relocate_and_claim_by_clicking(new_page: Any, server: Server) -> None:
    """Hot seat, three humans: a displacement with its relocation and a claim with its benefit, all by clicks."""
    game = server.create([{"name": n, "type": "human"} for n in ("Ann", "Ben", "Cid")], seed=2, hotseat=True)
    token = game["hotseat_token"]

    def api_move(text: str) -> None:
        view = server.call("GET", f"/api/games/{game['id']}", token=token)
        server.call("POST", f"/api/games/{game['id']}/moves", {"move": text, "version": view["version"], "seat": view["state"]["turn"]["decider"]}, token=token)

    first = server.call("GET", f"/api/games/{game['id']}")["state"]["turn"]["current"]
    api_move("place T KAM-OSN:1")
    api_move("place T KAM-OSN:2")  # the second action ends the turn by itself
    api_move("place T GRO-EMD:1")
    api_move("end")
    page = new_page()
    open_game(page, server, game["hotseat_url"])
    wait_mine_or_over(page)
    victim = (first + 1) % 3
    # Displace the Trader on GRO-EMD:1: the popup lists the variants (piece and payment).
    page.locator("svg.board [data-key='h:GRO-EMD:1'].hl-enemy").click()
    page.wait_for_selector("#popup:not([hidden])")
    assert "displace" in page.locator("#popup").inner_text().lower()
    before = version(page)
    page.locator("#popup button[data-move='displace GRO-EMD:1 with T pay T']").click()
    wait_version_change(page, before)
    assert page.evaluate("document.body.dataset.phase") == "relocate"
    assert page_view(page)["state"]["turn"]["decider"] == victim
    # The displaced owner relocates by clicking highlighted houses, then declines further extras.
    while page.evaluate("document.body.dataset.phase") == "relocate":
        before = version(page)
        targets = page.locator("svg.board g.house.free.hl")
        if targets.count():
            targets.first.click()
            if page.locator("#popup").is_visible():
                page.keyboard.press("t")
        else:
            page.click("#done-btn")
        wait_version_change(page, before)
    # The log tells the moves in sentences; their notation is in each entry's tooltip.
    notation = page.locator("#log .log-move").evaluate_all("items => items.map((i) => i.title)")
    assert "displace GRO-EMD:1 with T pay T" in notation and any(t.startswith("relocate T") for t in notation)
    assert "displaced" in page.locator("#log").inner_text()
    before = version(page)
    page.click("#end-btn")
    wait_version_change(page, before)
    # The first player claims KAM-OSN through the badge on the board and takes the office in Osnabrueck.
    assert page_view(page)["state"]["turn"]["current"] == first
    page.locator("svg.board .claim-badge[data-key='r:KAM-OSN']").click()
    page.wait_for_selector("#popup:not([hidden])")
    choices = page.locator("#popup .popup-choice").all_inner_texts()
    assert any("Office in Osnabrück" in c for c in choices) and any("No benefit" in c for c in choices)
    before = version(page)
    page.locator("#popup button[data-move='claim KAM-OSN office OSN']").click()
    wait_version_change(page, before)
    office = page_view(page)["state"]["offices"]["OSN"][0]
    assert office == [first, "T"]
    assert page.locator("svg.board [data-key='o:OSN:0'] .piece").count() == 1
    assert page.locator("svg.board [data-key='h:KAM-OSN:1'] .piece").count() == 0
