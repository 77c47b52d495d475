"""Browser tests of the lobby's game lists: stopping and deleting the games this browser created, and paging
through the recent games."""

from __future__ import annotations

import json
import urllib.error
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, Server, create_in_lobby, open_game

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

PAGE = 30  # the lobby's page size (lobby.js)


def row(page: Any, list_id: str, game_id: str) -> Any:
    return page.locator(f"#{list_id} .game-item[data-id='{game_id}']")


def test_lobby_stop_and_delete_my_games(new_page: Any, server: Server) -> None:
    page = new_page()
    dialogs: list[str] = []
    answer = {"accept": True}

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        if answer["accept"]:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    a = create_in_lobby(page, bot="random")
    b = create_in_lobby(page, bot="random")
    stored = {g["id"]: g for g in json.loads(page.evaluate("localStorage.getItem('hansa.myGames')"))}
    assert stored[a["id"]]["creatorToken"] == a["creator_token"]
    assert stored[b["id"]]["open"] == f"/game/{b['id']}#token={b['seats'][0]['token']}"
    mine_a = row(page, "my-games", a["id"])
    assert mine_a.get_attribute("data-status") == "running"
    # Stop needs a confirmation: dismissed, nothing happens.
    answer["accept"] = False
    mine_a.locator(".stop-btn").click()
    page.wait_for_timeout(300)
    assert len(dialogs) == 1 and "Stop" in dialogs[0]
    assert server.call("GET", f"/api/games/{a['id']}")["status"] == "running"
    assert mine_a.get_attribute("data-status") == "running"
    # Confirmed: the game is stopped, its row says so and offers no Stop any more.
    answer["accept"] = True
    mine_a.locator(".stop-btn").click()
    page.wait_for_selector(f"#my-games .game-item[data-id='{a['id']}'][data-status='stopped']")
    assert mine_a.locator(".status-tag").inner_text() == "stopped"
    assert "stopped by its creator" in mine_a.inner_text()
    assert mine_a.locator(".stop-btn").count() == 0
    assert mine_a.locator(".delete-btn").count() == 1
    assert server.call("GET", f"/api/games/{a['id']}")["status"] == "stopped"
    page.wait_for_selector(f"#recent-games .game-item[data-id='{a['id']}'][data-status='stopped']")
    # Someone watches B; B is deleted: it leaves both lists, the server forgets it, the watcher is told.
    watcher = new_page()
    open_game(watcher, server, b["spectator_url"])
    watcher.wait_for_function("() => document.body.dataset.conn === 'open'")
    row(page, "my-games", b["id"]).locator(".delete-btn").click()
    page.wait_for_selector(f"#my-games .game-item[data-id='{b['id']}']", state="detached")
    assert len(dialogs) == 3 and "Delete" in dialogs[2]
    with pytest.raises(urllib.error.HTTPError) as exc:
        server.call("GET", f"/api/games/{b['id']}")
    assert exc.value.code == 404
    assert row(page, "recent-games", b["id"]).count() == 0
    assert b["id"] not in page.evaluate("localStorage.getItem('hansa.myGames')")
    watcher.wait_for_selector("#halted-title")
    assert watcher.locator("#halted-title").inner_text() == "This game was deleted"
    assert watcher.evaluate("document.body.dataset.status") == "deleted"
    assert watcher.locator("#record-link").is_hidden()
    # The stopped game's page: its status and note, no actions, the record and the replay still there.
    mine_a.locator("a", has_text="Open").click()
    page.wait_for_selector("#halted-title")
    assert page.locator("#halted-title").inner_text() == "Game stopped"
    assert "stopped by its creator" in page.locator("#endgame").inner_text().lower()
    assert page.evaluate("document.body.dataset.status") == "stopped"
    assert page.evaluate("document.body.dataset.mine") == "0"
    assert page.locator("#controls").is_hidden()
    assert page.locator("#turn-banner").is_hidden()
    assert page.locator("#undo-btn").is_hidden()
    assert page.locator("svg.board .hl").count() == 0
    assert page.locator("#status").inner_text().startswith("Stopped")
    assert page.title().startswith("Game stopped")
    assert page.locator("#end-record").get_attribute("href") == f"/api/games/{a['id']}/record"
    assert page.locator("#end-replay").get_attribute("href") == f"/replay/{a['id']}"
    assert page.locator("#record-link").is_visible()
    # A stopped game publishes its seed: shown in the game info.
    seed = server.call("GET", f"/api/games/{a['id']}")["seed"]
    assert seed is not None
    assert f"seed {seed}" in page.locator("#game-info").inner_text()


def test_lobby_more_loads_older_games(new_page: Any, server: Server) -> None:
    players = [{"name": "Pager", "type": "human"}, {"name": "Other", "type": "human"}]
    ids = [server.create(players)["id"] for _ in range(PAGE + 3)]
    newest_first = ids[::-1]  # (creating a game empties the server's lobby cache)
    page = new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("#recent-games .game-item")
    rows = page.locator("#recent-games .game-item")
    shown = [rows.nth(i).get_attribute("data-id") for i in range(rows.count())]
    assert shown == newest_first[:PAGE]
    assert page.locator("#more-games").is_visible()
    with page.expect_request(lambda r: "/api/games?" in r.url and "before=" in r.url):
        page.click("#more-games")
    page.wait_for_selector(f"#recent-games .game-item[data-id='{ids[0]}']")
    shown = [rows.nth(i).get_attribute("data-id") for i in range(rows.count())]
    assert len(shown) > PAGE and len(shown) == len(set(shown))
    assert shown[: len(ids)] == newest_first
