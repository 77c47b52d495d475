"""The club from end to end (issue "The club", "Done when"): three separate browser contexts sign up, one opens a
rated table in the lobby, the two others sit from their lobbies, they play the game to the end, rematch from the
game page, and then see the ratings on the leaderboard and the profiles change."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SIDEWAYS, Server
from test_accounts_ui import sign_up as sign_up_in_dialog
from test_tables_ui import PASSWORD, lobby, moved_to_game, name, play_to_the_end, shot

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")


def movers(server: Server, game_id: str, pages: dict[str, Any], csrf: dict[str, str]) -> dict[int, Any]:
    """Each seat's player moving through its own context (cookie + CSRF token), by seat number."""
    view = server.call("GET", f"/api/games/{game_id}")
    out = {}
    for i, p in enumerate(view["players"]):
        page = pages[p["name"]]

        def move(method: str, body: Any, page: Any = page, who: str = p["name"]) -> Any:
            if method == "GET":
                return page.context.request.get(f"{server.base}/api/games/{game_id}").json()
            return page.context.request.post(f"{server.base}/api/games/{game_id}/moves", data=body,
                                             headers={"X-CSRF-Token": csrf[who]}).json()

        out[i] = move
    return out


def csrf_of(page: Any, server: Server) -> str:
    return str(page.context.request.get(server.base + "/api/account").json()["csrf"])


def test_three_players_meet_play_rematch_and_see_their_ratings(new_page: Any, club_server: Server) -> None:
    ann_name, bob_name, cy_name = name("Ann"), name("Bob"), name("Cy")
    ann = new_page(viewport={"width": 1280, "height": 800})
    bob = new_page(phone=True)
    cy = new_page(viewport={"width": 1280, "height": 800})
    pages = {ann_name: ann, bob_name: bob, cy_name: cy}
    for who, page in pages.items():  # each signs up in the top bar's dialog
        lobby(page, club_server)
        sign_up_in_dialog(page, who, PASSWORD)
    csrf = {who: csrf_of(page, club_server) for who, page in pages.items()}

    # Ann opens a rated table for three in the lobby
    ann.check("input[name=mode][value=table]")
    ann.select_option("#player-count", "3")
    for i in (1, 2):
        ann.locator("#seats .seat").nth(i).locator(".seat-type").select_option("human")
    ann.check("#table-rated")
    ann.click("#create-btn")
    ann.wait_for_url("**/table/*")
    table_id = ann.url.rsplit("/", 1)[1]

    # Bob (phone) and Cy sit from their lobbies
    for page in (bob, cy):
        lobby(page, club_server)
        row = page.locator(f"#open-tables .table-item[data-id='{table_id}']")
        row.wait_for()
        if page is bob:
            assert page.evaluate(SIDEWAYS) == []
            row.locator(".join-btn").tap()
        else:
            row.locator(".join-btn").click()
    for page in pages.values():
        moved_to_game(page, table_id)
    views = {who: page.evaluate("window.hansaGame.view") for who, page in pages.items()}
    assert sorted(s for v in views.values() for s in v["you"]) == [0, 1, 2]
    assert views[ann_name]["table"].get("rated") is True

    # they play to the end (through their own sessions; the pages follow live)
    play_to_the_end(club_server, table_id, movers(club_server, table_id, pages, csrf))
    for page in pages.values():  # (the pages play the moves back: on a loaded machine this takes a while)
        page.wait_for_function("() => document.body.dataset.status === 'over'", timeout=60000)
        page.wait_for_selector("#rematch-btn")

    # ratings: each player has one rated game, provisional, on the leaderboard and the profiles
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        board = club_server.call("GET", "/api/leaderboard?limit=100")["players"]
        rated = {e["name"]: e for e in board if e["kind"] == "account"}
        if all(who in rated for who in pages):
            break
        time.sleep(0.2)
    assert all(rated[who]["games"] == 1 and rated[who]["provisional"] for who in pages)
    ann.goto(club_server.base + "/leaderboard")
    ann.wait_for_selector("body[data-ready='1']")
    text = ann.locator("main").inner_text()
    assert all(who in text for who in pages)
    shot(ann, "club-flow-leaderboard")
    bob.goto(club_server.base + f"/player/{ann_name}")
    bob.wait_for_selector("body[data-ready='1']")
    assert bob.locator(f".pf-game[data-id='{table_id}']").count() == 1
    assert bob_name in bob.locator("main").inner_text() and cy_name in bob.locator("main").inner_text()  # opponents
    assert bob.evaluate(SIDEWAYS) == []
    shot(bob, "club-flow-profile-phone")
    before = club_server.call("GET", f"/api/players/{ann_name}")

    # rematch: Cy proposes on the game page, Ann and Bob accept there, everyone moves to the new game
    for page in pages.values():
        page.goto(club_server.base + f"/game/{table_id}")
        page.wait_for_function("() => document.body.dataset.status === 'over'", timeout=60000)
    cy.click("#rematch-btn")
    for page in (ann, bob):
        page.wait_for_selector("#rematch-accept", timeout=15000)
    ann.click("#rematch-accept")
    bob.locator("#rematch-accept").tap()
    rematch = club_server.call("GET", f"/api/games/{table_id}/rematch")["table"]
    for page in pages.values():
        moved_to_game(page, rematch["id"])
    old_order = [p["name"] for p in views[ann_name]["players"]]
    new_view = ann.evaluate("window.hansaGame.view")
    assert [p["name"] for p in new_view["players"]] == old_order[1:] + old_order[:1]
    assert new_view["table"].get("rated") is True

    # the rematch played to the end changes the ratings again: two points of history now
    play_to_the_end(club_server, rematch["id"], movers(club_server, rematch["id"], pages, csrf))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        after = club_server.call("GET", f"/api/players/{ann_name}")
        if len(after["history"]) == 2:
            break
        time.sleep(0.2)
    assert [h["game"] for h in after["history"]] == [table_id, rematch["id"]]
    assert after["rating"]["games"] == 2 and after["rating"]["rating"] != before["rating"]["rating"]
    ann.goto(club_server.base + f"/player/{ann_name}")
    ann.wait_for_selector("body[data-ready='1']")
    assert ann.locator(f".pf-game[data-id='{rematch['id']}']").count() == 1
    shot(ann, "club-flow-profile-desktop")
