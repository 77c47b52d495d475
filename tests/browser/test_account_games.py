"""The account's games on every device (issue "The club"): "My games" lists the seats of the signed-in account,
also on a browser that never held a link of them; a guest's list stays the browser's."""

from __future__ import annotations

from typing import Any

from browser_support import Server

PASSWORD = "correct horse battery"


def sign_up(page: Any, club_server: Server, name: str) -> str:
    """Sign up through the API with the page's own context (its cookie lands there); the CSRF token."""
    r = page.context.request.post(club_server.base + "/api/account/signup", data={"name": name, "password": PASSWORD})
    assert r.status == 201, r.text()
    return str(r.json()["csrf"])


def sign_in(page: Any, club_server: Server, name: str) -> str:
    r = page.context.request.post(club_server.base + "/api/account/signin", data={"name": name, "password": PASSWORD})
    assert r.status == 200, r.text()
    return str(r.json()["csrf"])


def test_my_games_lists_the_accounts_games_on_another_device(new_page: Any, club_server: Server) -> None:
    phone = new_page(phone=True)
    csrf = sign_up(phone, club_server, "Traveller")
    r = phone.context.request.post(club_server.base + "/api/tables", data={"players": 2, "bots": ["random"]},
                                   headers={"X-CSRF-Token": csrf})
    assert r.status == 201, r.text()
    game_id = r.json()["game"]
    assert game_id
    laptop = new_page()
    sign_in(laptop, club_server, "Traveller")
    laptop.goto(club_server.base + "/my-games")
    row = laptop.locator(f'.mg-item[data-id="{game_id}"]')
    row.wait_for()
    assert row.locator("a.open-link").get_attribute("href") == f"/game/{game_id}"
    assert "Traveller" in row.inner_text()
    # and in the lobby's "My games", where it cannot be forgotten (it is the account's seat, not a link)
    laptop.goto(club_server.base + "/")
    item = laptop.locator(f'#my-games .game-item[data-id="{game_id}"]')
    item.wait_for()
    assert item.locator(".forget-btn").count() == 0
    assert item.locator("a.btn").first.get_attribute("href") == f"/game/{game_id}"
    # the game opens as the account's seat, without a link
    laptop.goto(club_server.base + f"/game/{game_id}")
    laptop.wait_for_function("() => window.hansaGame && window.hansaGame.view && window.hansaGame.view.you.length === 1")
    # a guest on another browser does not see it
    guest = new_page()
    guest.goto(club_server.base + "/my-games")
    guest.locator(".mg-empty").wait_for()
    assert guest.locator(f'.mg-item[data-id="{game_id}"]').count() == 0
    guest.goto(club_server.base + "/")
    guest.locator("#my-games p.muted").wait_for()
    assert guest.locator(f'#my-games .game-item[data-id="{game_id}"]').count() == 0
