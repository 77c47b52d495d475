"""WCAG AA text contrast on the lobby, the replay viewer, the rules page and the rules in five minutes, at desktop and phone size (the game
table's own check is in test_game_table.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, CONTRAST, Server, play_out_via_api

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_pages_meet_wcag_aa(new_page: Any, server: Server, phone: bool) -> None:
    game = server.create([{"name": "Ann", "type": "human"}, {"name": "Bot", "type": "bot", "bot": "heuristic"}], seed=5)
    play_out_via_api(server, game)
    page = new_page(phone=phone)
    for path, ready in [
        ("/", "#recent-games .game-row, #recent-games > *"),
        (f"/replay/{game['id']}", "#move-list li"),
        ("/rules", "#toc li"),
        ("/rules/quick", "body[data-ready='1'] svg.scene"),
    ]:
        page.goto(server.base + path)
        page.wait_for_selector(ready, state="attached", timeout=15000)
        page.wait_for_timeout(200)
        assert page.evaluate(CONTRAST) == [], path
