"""Browser tests of open tables (issue 29, "The club"): separate browser contexts sign up, open a table from the
lobby, see it in another lobby and sit, fill it with bots, pair through "Play now", let a guest sit, keep a seat
link in an account, and rematch a finished game; every page moves into the game once it starts."""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, SIDEWAYS, Server, choose, open_game, place_by_click

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

PASSWORD = "correct horse battery"
SHOTS = SCREENSHOTS / "tables"
_names = itertools.count(1)


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own: these tests sign up more accounts from one address than the default allows an hour."""
    old = os.environ.get("HANSA_SIGNUPS_PER_HOUR")
    os.environ["HANSA_SIGNUPS_PER_HOUR"] = "1000"
    srv = Server(tmp_path_factory.mktemp("hansa-club"))
    try:
        srv.start()
    finally:
        if old is None:
            del os.environ["HANSA_SIGNUPS_PER_HOUR"]
        else:
            os.environ["HANSA_SIGNUPS_PER_HOUR"] = old
    yield srv
    srv.stop()


def name(base: str) -> str:
    return f"{base}{next(_names)}x{int(time.time()) % 10000}"


def sign_up(page: Any, server: Server, who: str) -> str:
    """Sign ``who`` up in the page's browser context (the session cookie lands there); returns its CSRF token."""
    r = page.context.request.post(server.base + "/api/account/signup", data={"name": who, "password": PASSWORD})
    assert r.status == 201, r.text()
    return r.json()["csrf"]  # type: ignore[no-any-return]


def post(page: Any, server: Server, csrf: str, path: str, body: Any) -> Any:
    """A JSON POST with the context's session cookie and its CSRF token."""
    r = page.context.request.post(server.base + path, data=body, headers={"X-CSRF-Token": csrf})
    assert r.ok, r.text()
    return r.json()


def shot(page: Any, label: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{label}.png"), full_page=True)


def lobby(page: Any, server: Server) -> None:
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("() => document.body.dataset.tables !== undefined")


def moved_to_game(page: Any, game_id: str) -> None:
    page.wait_for_url(f"**/game/{game_id}**", timeout=15000)
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => document.body.dataset.version !== undefined")


def test_open_a_table_in_the_lobby_another_player_sits_and_both_move_to_the_game(new_page: Any, club: Server) -> None:
    ann_name, bob_name = name("Ann"), name("Bob")
    ann = new_page(viewport={"width": 1280, "height": 800})
    sign_up(ann, club, ann_name)
    lobby(ann, club)
    ann.check("input[name=mode][value=table]")
    assert ann.locator("#table-box").is_visible() and not ann.locator("#hotseat").is_visible()
    assert ann.locator("#create-btn").inner_text() == "Open the table"
    ann.select_option("#player-count", "2")
    seats = ann.locator("#seats .seat")
    seats.nth(1).locator(".seat-type").select_option("human")
    assert seats.nth(0).locator(".seat-open-label").inner_text() == "You"
    assert seats.nth(1).locator(".seat-open-label").inner_text() == "Open seat"
    ann.check("#table-rated")
    assert ann.locator("#table-guests").is_disabled()  # a rated table takes no guests
    ann.click("input[name=clock-kind][value=realtime]")
    ann.locator("#presets-realtime .preset").nth(1).click()  # 10 min + 5 s
    ann.click("#create-btn")
    ann.wait_for_url("**/table/*")
    table = club.call("GET", f"/api/tables/{ann.url.rsplit('/', 1)[1]}")
    assert table["rated"] and table["clock"]["base"] == 600 and table["seats"][0]["name"] == ann_name
    ann.wait_for_selector("body[data-ready='1']")
    assert ann.locator("#tp-seats .tp-seat").count() == 2
    assert ann.locator("#tp-seats .tp-seat[data-seat='0'] .tp-name").inner_text() == ann_name
    assert ann.locator("#tp-seats .tp-seat[data-seat='1'][data-kind='open']").count() == 1
    assert ann.locator("#tp-creator").is_visible() and ann.locator("#tp-start").is_disabled()
    assert "closes in" in ann.locator("#tp-status").inner_text()
    assert ann.locator("#tp-tags .rated-tag").count() == 1
    shot(ann, "table-page-desktop")

    bob = new_page(phone=True)
    sign_up(bob, club, bob_name)
    lobby(bob, club)
    row = bob.locator(f"#open-tables .table-item[data-id='{table['id']}']")
    row.wait_for()
    assert row.locator(".seated").inner_text() == "1/2"
    assert ann_name in row.inner_text() and "10 min + 5 s" in row.inner_text()
    assert row.locator(".rated-tag").count() == 1
    variant = row.locator(".variant-tag")  # a two-player table says which two-player variant it plays
    assert variant.get_attribute("data-variant") == "neutral" and variant.inner_text() == "Neutral traders"
    shot(bob, "lobby-open-tables-phone")
    assert bob.evaluate(SIDEWAYS) == []
    row.locator(".join-btn").tap()
    # The table fills and starts: Bob's page goes to the game (via the table page), Ann's table page follows.
    moved_to_game(bob, table["id"])
    moved_to_game(ann, table["id"])
    assert "#token=" not in ann.url and "#token=" not in bob.url  # accounts play through their session
    views = [p.evaluate("window.hansaGame.view") for p in (ann, bob)]
    assert sorted(s for v in views for s in v["you"]) == [0, 1]
    # Whoever's turn it is moves with a click: the session's cookie and CSRF token carry the move.
    first = ann if views[0]["state"]["turn"]["decider"] in views[0]["you"] else bob
    first.wait_for_function("() => document.body.dataset.mine === '1'")
    place_by_click(first)
    assert club.call("GET", f"/api/games/{table['id']}")["version"] >= 1


def test_the_creator_removes_a_player_and_fills_the_table_with_bots(new_page: Any, club: Server) -> None:
    ann_name, bob_name = name("Ann"), name("Bob")
    ann = new_page(phone=True)
    csrf = sign_up(ann, club, ann_name)
    table = post(ann, club, csrf, "/api/tables", {"players": 3, "private": True})
    assert table["private"]
    # A private table is not listed; its link is the way in.
    lobby(ann, club)
    assert ann.locator(f"#open-tables .table-item[data-id='{table['id']}']").count() == 0
    ann.goto(club.base + table["url"])
    ann.wait_for_selector("body[data-ready='1']")
    assert ann.locator("#tp-share").is_visible()
    assert ann.locator("#tp-link").input_value() == club.base + table["url"]
    bob = new_page(viewport={"width": 1280, "height": 800})
    sign_up(bob, club, bob_name)
    bob.goto(club.base + table["url"])
    bob.wait_for_selector("body[data-ready='1']")
    assert not bob.locator("#tp-creator").is_visible()
    bob.locator("#tp-colour-list .tp-colour[data-colour='teal']").click()
    assert bob.locator("#tp-colour-list .tp-colour[data-colour='teal']").get_attribute("aria-checked") == "true"
    shot(bob, "table-page-sit-desktop")
    bob.locator("#tp-seats .tp-seat[data-seat='2'] .sit-btn").click()
    bob.wait_for_selector("body[data-you='2']")
    assert bob.locator("#tp-seats .tp-seat[data-seat='2'] .tp-name").inner_text() == bob_name
    assert bob.locator("#tp-leave").is_visible()
    # Ann sees Bob within a poll, and removes him.
    ann.wait_for_selector("#tp-seats .tp-seat[data-seat='2'][data-kind='account']")
    assert not ann.locator("#tp-start").is_disabled()
    shot(ann, "table-page-creator-phone")
    assert ann.evaluate(SIDEWAYS) == []
    ann.locator("#tp-seats .tp-seat[data-seat='2'] .remove-btn").tap()
    ann.wait_for_selector("#tp-seats .tp-seat[data-seat='2'][data-kind='open']")
    bob.wait_for_selector("body[data-you='']")
    assert bob.locator("#tp-seats .sit-btn").count() == 2  # he may sit again
    # Fill with bots of a chosen level: the table is full and starts; both pages move to the game.
    ann.select_option("#tp-bot", "random")
    ann.locator("#tp-bots").tap()
    moved_to_game(ann, table["id"])
    moved_to_game(bob, table["id"])
    view = ann.evaluate("window.hansaGame.view")
    assert [p["bot"] for p in view["players"] if p["type"] == "bot"] == ["random", "random"]
    assert bob.evaluate("window.hansaGame.view")["you"] == []  # he watches


def test_play_now_pairs_three_players(new_page: Any, club: Server) -> None:
    pages = []
    for i, who in enumerate(("Ann", "Bob", "Cy")):
        page = new_page(phone=i == 1)
        sign_up(page, club, name(who))
        lobby(page, club)
        assert not page.locator("#quick-name-row").is_visible()  # signed in: no guest name
        page.select_option("#quick-players", "3")
        page.select_option("#quick-clock", "0")  # no clock
        pages.append(page)
    tables = []
    for page in pages:
        page.locator("#quick-btn").click()
        # the last of the three fills the table: his page may pass /table/ID and be at /game/ID by the time we look
        page.wait_for_url(re.compile(r".*/(table|game)/[^/#?]+"))
        tables.append(re.split(r"/(?:table|game)/", page.url)[1].split("#")[0].split("?")[0])
    assert len(set(tables)) == 1, tables  # one table for the three of them
    for page in pages:
        moved_to_game(page, tables[0])
    assert sorted(s for p in pages for s in p.evaluate("window.hansaGame.view")["you"]) == [0, 1, 2]


def test_a_guest_sits_at_a_table_that_takes_guests(new_page: Any, club: Server) -> None:
    ann = new_page(viewport={"width": 1280, "height": 800})
    csrf = sign_up(ann, club, name("Ann"))
    closed = post(ann, club, csrf, "/api/tables", {"players": 2})  # no guests here
    table = post(ann, club, csrf, "/api/tables", {"players": 2, "allow_guests": True})
    lobby(ann, club)
    ann.check("input[name=mode][value=table]")
    assert ann.locator("#table-signin").is_hidden()  # signed in: nothing to ask
    assert ann.locator(f"#open-tables .table-item[data-id='{table['id']}'] .btn").inner_text() == "Open"  # her own
    shot(ann, "lobby-desktop")
    guest = new_page(phone=True)
    lobby(guest, club)
    guest.check("input[name=mode][value=table]")
    assert guest.locator("#table-signin").is_visible()  # a guest cannot open a table
    guest.check("input[name=mode][value=links]")
    # A guest may not sit at the table without guests: it offers to sign in instead.
    assert guest.locator(f"#open-tables .table-item[data-id='{closed['id']}'] .signin-btn").count() == 1
    row = guest.locator(f"#open-tables .table-item[data-id='{table['id']}']")
    assert row.locator(".guests-tag").count() == 1
    row.locator(".join-btn").tap()
    assert guest.locator("#tables-error").inner_text() == "Type a name to sit as a guest."
    row.locator(".guest-name").fill("Gus")
    row.locator(".join-btn").tap()
    guest.wait_for_url(f"**/game/{table['id']}#token=*", timeout=15000)
    guest.wait_for_selector("svg.board .house")
    view = guest.evaluate("window.hansaGame.view")
    assert len(view["you"]) == 1 and view["players"][view["you"][0]]["name"] == "Gus"
    # Another guest signs up from the table without guests ("Sign in to play": the top bar's dialog); the lobby
    # follows at once: the row offers a seat, without a guest name.
    other = new_page(viewport={"width": 1280, "height": 800})
    lobby(other, club)
    other_row = other.locator(f"#open-tables .table-item[data-id='{closed['id']}']")
    other_row.locator(".signin-btn").click()
    other.wait_for_selector("#signin-dialog[open]")
    if other.locator("#signin-dialog").get_attribute("data-mode") != "signup":
        other.locator("#acc-switch").click()
    who = name("Dee")
    other.fill("#acc-name", who)
    other.fill("#acc-password", PASSWORD)
    other.fill("#acc-password2", PASSWORD)
    other.locator("#acc-password2").press("Enter")
    other.wait_for_selector(f"body[data-account='{who}']")
    other_row.locator(".join-btn").wait_for()
    assert other_row.locator(".guest-name").count() == 0 and other.locator("#quick-name-row").is_hidden()
    # The creator closes the other table: its page says so.
    ann.goto(club.base + closed["url"])
    ann.wait_for_selector("body[data-ready='1']")
    ann.on("dialog", lambda d: d.accept())
    ann.click("#tp-close")
    ann.wait_for_selector("body[data-status='closed']")
    assert ann.locator("#tp-closed").is_visible() and "Its creator closed it." in ann.locator("#tp-closed").inner_text()
    assert ann.locator("#tp-creator").is_hidden()


def test_a_signed_in_player_keeps_a_seat_link_in_the_account(new_page: Any, club: Server) -> None:
    game = club.create([{"name": "Kim", "type": "human"}, {"name": "Bot", "type": "bot", "bot": "random"}], seed=5)
    page = new_page()
    sign_up(page, club, name("Kim"))
    open_game(page, club, game["seats"][0]["url"])
    keep = page.locator("#keep-seat-btn")
    keep.wait_for()
    shot(page, "keep-seat-desktop")
    keep.click()
    page.wait_for_url(f"**/game/{game['id']}")
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => window.hansaGame && window.hansaGame.view.you.length === 1")
    assert "#token=" not in page.url and page.locator("#keep-seat").is_hidden()
    # The old link only watches now; opened again in this browser, it moves to the account's seat.
    open_game(page, club, game["seats"][0]["url"])
    page.wait_for_url(f"**/game/{game['id']}")
    page.wait_for_function("() => window.hansaGame && window.hansaGame.view.you.length === 1")
    if page.evaluate("window.hansaGame.view.state.turn.decider") == 0:
        place_by_click(page)


def play_to_the_end(server: Server, game_id: str, movers: dict[int, Any]) -> None:
    """Play the human seats of a game through the API (``movers[seat](path, body)``) until it is over."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        view = server.call("GET", f"/api/games/{game_id}")
        if view["status"] == "over":
            return
        decider = view["state"]["turn"]["decider"]
        if decider not in movers:
            time.sleep(0.02)
            continue
        mine = movers[decider]("GET", None)
        if not mine["legal"]:
            time.sleep(0.02)
            continue
        movers[decider]("POST", {"move": choose(mine)["text"], "version": mine["version"], "seat": decider})
    raise AssertionError("the game did not end in time")


def test_rematch_is_proposed_accepted_and_both_move_to_the_new_game(new_page: Any, club: Server) -> None:
    ann_name = name("Ann")
    ann = new_page(viewport={"width": 1280, "height": 800})
    csrf = sign_up(ann, club, ann_name)
    table = post(ann, club, csrf, "/api/tables", {"players": 3, "allow_guests": True, "bots": ["heuristic"]})
    joined = club.call("POST", f"/api/tables/{table['id']}/join", {"name": "Gus"})
    gus_token = joined["table_token"]
    game_id = table["id"]
    assert club.call("GET", f"/api/tables/{game_id}")["status"] == "started"
    view = club.call("GET", f"/api/games/{game_id}")
    seat_of = {p["name"]: i for i, p in enumerate(view["players"])}

    def ann_moves(method: str, body: Any) -> Any:
        if method == "GET":
            return ann.context.request.get(f"{club.base}/api/games/{game_id}").json()
        r = ann.context.request.post(f"{club.base}/api/games/{game_id}/moves", data=body, headers={"X-CSRF-Token": csrf})
        return r.json()

    def gus_moves(method: str, body: Any) -> Any:
        if method == "GET":
            return club.call("GET", f"/api/games/{game_id}", token=gus_token)
        return club.call("POST", f"/api/games/{game_id}/moves", body, token=gus_token)

    play_to_the_end(club, game_id, {seat_of[ann_name]: ann_moves, seat_of["Gus"]: gus_moves})
    gus = new_page(phone=True)
    open_game(ann, club, f"/game/{game_id}")
    open_game(gus, club, f"/game/{game_id}#token={gus_token}")
    for page in (ann, gus):
        page.wait_for_function("() => document.body.dataset.status === 'over'")
        page.wait_for_selector("#rematch-btn")
    ann.click("#rematch-btn")
    ann.wait_for_function("() => document.body.dataset.rematch === 'open'")
    assert f"{ann_name} proposes a rematch." in ann.locator("#rematch").inner_text()
    assert ann.locator("#rematch-accept").count() == 0  # the proposer has accepted
    gus.wait_for_selector("#rematch-accept", timeout=10000)
    assert f"{ann_name} proposes a rematch." in gus.locator("#rematch").inner_text()
    shot(gus, "rematch-phone")
    shot(ann, "rematch-desktop")
    rematch = club.call("GET", f"/api/games/{game_id}/rematch")["table"]
    assert rematch["rematch_of"] == game_id
    gus.locator("#rematch-accept").tap()
    moved_to_game(gus, rematch["id"])
    moved_to_game(ann, rematch["id"])
    assert gus.url.endswith(f"#token={gus_token}")  # the guest's link plays the new game too
    new = gus.evaluate("window.hansaGame.view")
    assert len(new["you"]) == 1 and new["players"][new["you"][0]]["name"] == "Gus"
    assert len(ann.evaluate("window.hansaGame.view")["you"]) == 1


def test_no_english_on_the_table_page_and_the_lobby_tables(new_page: Any, club: Server) -> None:
    """The four other languages on a phone: the lobby's open tables and open-table form, a table page (creator)."""
    from test_no_english import EnglishChecker, english_on, proper_names

    ann = new_page(phone=True)
    csrf = sign_up(ann, club, name("Ann"))
    table = post(ann, club, csrf, "/api/tables", {"players": 3, "allow_guests": True, "private": False,
                                                  "clock": {"kind": "realtime", "base": 300, "increment": 3},
                                                  "options": {"income_up_to": True}})
    guest = new_page(phone=True)
    left: dict[str, list[str]] = {}
    for lang in ("pt", "it", "es", "cs"):
        checker = EnglishChecker(lang, proper_names(club))
        guest.goto(f"{club.base}/?lang={lang}")
        guest.wait_for_selector("body[data-ready='1']")
        guest.wait_for_selector(f"#open-tables .table-item[data-id='{table['id']}']")
        guest.check("input[name=mode][value=table]")
        left[f"{lang} lobby"] = english_on(guest, checker)
        ann.goto(f"{club.base}{table['url']}?lang={lang}")
        ann.wait_for_selector("body[data-ready='1']")
        left[f"{lang} table"] = english_on(ann, checker)
        shot(ann, f"table-page-{lang}")
    assert not any(left.values()), left


def test_a_declined_rematch_is_shown_to_both_players(new_page: Any, club: Server) -> None:
    from browser_support import play_out_via_api

    game = club.create([{"name": "Ana", "type": "human"}, {"name": "Bo", "type": "human"}], seed=3)
    play_out_via_api(club, game)
    ana, bo = new_page(), new_page(phone=True)
    open_game(ana, club, game["seats"][0]["url"])
    open_game(bo, club, game["seats"][1]["url"])
    ana.wait_for_selector("#rematch-btn")
    club.call("POST", f"/api/games/{game['id']}/rematch", {}, token=game["seats"][0]["token"])
    bo.wait_for_selector("#rematch-decline", timeout=10000)
    assert "Ana proposes a rematch." in bo.locator("#rematch").inner_text()
    bo.locator("#rematch-decline").tap()
    for page in (ana, bo):
        page.wait_for_selector("#rematch-closed", timeout=10000)
        assert page.locator("#rematch-closed").inner_text() == "Bo declined the rematch."
        assert page.locator("#rematch-btn, #rematch-accept").count() == 0
