"""Open tables, quick play, seats of accounts (issue "The club"), against real `hansa serve` processes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from server_support import Server, two_processes
from test_accounts import PASSWORD, client, db_rows, me, sign_up
from test_api import wait_for
from test_hostile import is_api_error


class Player:
    """A signed-in browser: its cookie jar and CSRF token."""

    def __init__(self, server: Server, name: str, new: bool = True) -> None:
        self.http = client(server)
        self.name = name
        if new:
            self.csrf = sign_up(self.http, name)["csrf"]
        else:
            r = self.http.post("/api/account/signin", json={"name": name, "password": PASSWORD})
            assert r.status_code == 200, r.text
            self.csrf = r.json()["csrf"]

    def post(self, path: str, body: Any = None, csrf: bool = True) -> httpx.Response:
        headers = {"X-CSRF-Token": self.csrf} if csrf else {}
        return self.http.post(path, json=body if body is not None else {}, headers=headers)

    def get(self, path: str) -> httpx.Response:
        return self.http.get(path)

    def close(self) -> None:
        self.http.close()


def new_table(p: Player, **body: Any) -> dict[str, Any]:
    r = p.post("/api/tables", {"players": 2, **body})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def play_a_move(p: Player, game_id: str) -> httpx.Response:
    view = p.get(f"/api/games/{game_id}").json()
    assert view["legal"], view
    return p.post(f"/api/games/{game_id}/moves", {"move": view["legal"][0]["text"], "version": view["version"]})


def test_a_table_is_made_listed_joined_and_started(server: Server, players: Callable[[str], Player]) -> None:
    ann, bob = players("Ann"), players("Bob")
    table = new_table(ann, players=2, clock={"kind": "turn", "base": 86400, "increment": 0})
    assert table["status"] == "open" and table["you"] == 0 and table["creator_you"] is True
    assert [s["kind"] for s in table["seats"]] == ["account", "open"] and table["seats"][0]["name"] == "Ann"
    listed = httpx.get(server.url + "/api/tables").json()["tables"]
    assert [t["id"] for t in listed] == [table["id"]]
    entry = listed[0]
    assert entry["map"] == "base" and entry["players"] == 2 and entry["creator"] == "Ann" and entry["you"] is None
    assert entry["clock"]["kind"] == "turn" and "table_token" not in entry
    r = bob.post(f"/api/tables/{table['id']}/join", {})
    assert r.status_code == 200, r.text
    joined = r.json()
    assert joined["you"] == 1 and joined["status"] == "started" and joined["game"] == table["id"]
    assert httpx.get(server.url + "/api/tables").json()["tables"] == []
    # the game: both accounts play their seat through their session; nobody else does
    game_id = joined["game"]
    views = {p.name: p.get(f"/api/games/{game_id}").json() for p in (ann, bob)}
    names = [pl["name"] for pl in views["Ann"]["players"]]
    assert sorted(names) == ["Ann", "Bob"]
    assert views["Ann"]["you"] == [names.index("Ann")] and views["Bob"]["you"] == [names.index("Bob")]
    first = ann if views["Ann"]["legal"] else bob
    other = bob if first is ann else ann
    assert other.get(f"/api/games/{game_id}").json()["legal"] == []
    anonymous = httpx.get(f"{server.url}/api/games/{game_id}").json()
    assert anonymous["you"] == [] and anonymous["legal"] == []
    # a move by the wrong account, and without the CSRF token, changes nothing
    legal = first.get(f"/api/games/{game_id}").json()["legal"][0]["text"]
    assert is_api_error(other.post(f"/api/games/{game_id}/moves", {"move": legal, "version": 0}), 403)
    assert is_api_error(first.post(f"/api/games/{game_id}/moves", {"move": legal, "version": 0}, csrf=False), 403)
    assert first.get(f"/api/games/{game_id}").json()["version"] == 0
    r = play_a_move(first, game_id)
    assert r.status_code == 200, r.text
    assert first.get(f"/api/games/{game_id}").json()["version"] == 1
    # the seats are the accounts': no seat links were made
    rows = db_rows(server, "SELECT seat, account_id FROM account_seats WHERE game_id = :g ORDER BY seat", g=game_id)
    assert len(rows) == 2


def test_table_creation_needs_an_account_and_a_valid_setup(server: Server, players: Callable[[str], Player]) -> None:
    with client(server) as guest:
        assert is_api_error(guest.post("/api/tables", json={"players": 3}), 401)
    ann = players("Creator")
    for body in ({"players": 6}, {"players": 1}, {"players": 3, "options": {"map": "nowhere"}},
                 {"players": 2, "rated": True, "allow_guests": True}, {"players": 3, "bots": ["heuristic"] * 3},
                 {"players": 3, "bots": ["deep blue"]}, {"players": 3, "clock": {"kind": "sundial"}},
                 {"players": 3, "extra": 1}):
        r = ann.post("/api/tables", body)
        assert is_api_error(r, 400), (body, r.text)
    assert db_rows(server, "SELECT count(*) FROM tables")[0][0] == 0
    assert is_api_error(ann.post("/api/tables", {"players": 3}, csrf=False), 403)


def test_private_tables_are_reached_by_their_link_only(server: Server, players: Callable[[str], Player]) -> None:
    ann, bob = players("Private"), players("Friend")
    table = new_table(ann, players=2, private=True)
    assert httpx.get(server.url + "/api/tables").json()["tables"] == []
    assert bob.get(f"/api/tables/{table['id']}").json()["seats"][1]["kind"] == "open"
    assert bob.post(f"/api/tables/{table['id']}/join", {}).json()["status"] == "started"


def test_the_creator_fills_with_bots_removes_and_starts(server: Server, players: Callable[[str], Player]) -> None:
    ann, bob, cy = players("Host"), players("Visitor"), players("Late")
    table = new_table(ann, players=4)
    tid = table["id"]
    assert bob.post(f"/api/tables/{tid}/join", {}).json()["you"] == 1
    assert is_api_error(bob.post(f"/api/tables/{tid}/remove", {"seat": 0}), 403)  # not the creator
    assert is_api_error(bob.post(f"/api/tables/{tid}/start"), 403)
    assert is_api_error(bob.post(f"/api/tables/{tid}/join", {}), 409)  # seated already
    r = ann.post(f"/api/tables/{tid}/remove", {"seat": 1})
    assert r.status_code == 200 and r.json()["seats"][1]["kind"] == "open"
    assert cy.post(f"/api/tables/{tid}/join", {"seat": 2}).json()["you"] == 2
    r = ann.post(f"/api/tables/{tid}/bots", {"bot": "random"})
    assert r.status_code == 200, r.text
    started = r.json()
    assert started["status"] == "started"
    assert sorted(s["kind"] for s in started["seats"]) == ["account", "account", "bot", "bot"]
    view = httpx.get(f"{server.url}/api/games/{tid}").json()
    assert sorted(p["name"] for p in view["players"]) == ["Bot random", "Bot random 2", "Host", "Late"]


def test_start_with_fewer_players(server: Server, players: Callable[[str], Player]) -> None:
    ann, bob = players("Eager"), players("Joiner")
    tid = new_table(ann, players=4)["id"]
    assert is_api_error(ann.post(f"/api/tables/{tid}/start"), 409)  # alone
    bob.post(f"/api/tables/{tid}/join", {})
    r = ann.post(f"/api/tables/{tid}/start")
    assert r.status_code == 200 and r.json()["status"] == "started"
    assert len(httpx.get(f"{server.url}/api/games/{tid}").json()["players"]) == 2
    assert is_api_error(ann.post(f"/api/tables/{tid}/close"), 409)


def test_guests_sit_where_allowed(server: Server, players: Callable[[str], Player]) -> None:
    ann = players("Welcoming")
    closed = new_table(ann, players=3)
    with client(server) as guest:
        assert is_api_error(guest.post(f"/api/tables/{closed['id']}/join", json={"name": "Gus"}), 401)
        tid = new_table(ann, players=2, allow_guests=True)["id"]
        assert is_api_error(guest.post(f"/api/tables/{tid}/join", json={}), 400)
        assert is_api_error(guest.post(f"/api/tables/{tid}/join", json={"name": "welcoming"}), 409)
        assert is_api_error(guest.post(f"/api/tables/{tid}/join", json={"name": "Gus"},
                                        headers={"Origin": "http://evil.example"}), 403)
        r = guest.post(f"/api/tables/{tid}/join", json={"name": "Gus"})
        assert r.status_code == 200, r.text
        token = r.json()["table_token"]
        assert r.json()["status"] == "started" and r.json()["you"] is not None
    # the guest's table token is the seat's token in the game
    view = httpx.get(f"{server.url}/api/games/{tid}", headers={"X-Hansa-Token": token}).json()
    names = [p["name"] for p in view["players"]]
    assert view["you"] == [names.index("Gus")]


def test_open_tables_close_when_not_filled(make_server: Callable[..., Server]) -> None:
    srv = make_server("--table-expiry", "1", "--janitor-interval", "0.3")
    ann = Player(srv, "Patient")
    tid = new_table(ann, players=3)["id"]
    table = wait_for(lambda: (t := ann.get(f"/api/tables/{tid}").json())["status"] == "closed" and t)
    assert "not filled" in table["note"]
    with client(srv) as c:
        sign_up(c, "Too late")
        r = c.post(f"/api/tables/{tid}/join", json={}, headers={"X-CSRF-Token": me(c)["csrf"]})
        assert is_api_error(r, 409)
    ann.close()


def test_quick_play_meets_at_one_table(server: Server, players: Callable[[str], Player]) -> None:
    ann, bob = players("Quick1"), players("Quick2")
    r = ann.post("/api/tables/quick", {"players": 2})
    assert r.status_code == 200, r.text
    first = r.json()
    assert first["status"] == "open" and first["rated"] is True and first["you"] == 0
    r = bob.post("/api/tables/quick", {"players": 2})
    assert r.status_code == 200, r.text
    assert r.json()["id"] == first["id"] and r.json()["status"] == "started"
    r = bob.post("/api/tables/quick", {"players": 3, "clock": {"kind": "realtime", "base": 600, "increment": 5}})
    assert r.json()["id"] != first["id"] and r.json()["players"] == 3


def test_a_seat_link_attached_to_an_account(server: Server, players: Callable[[str], Player]) -> None:
    """A guest game's seat, attached to an account, is played by that account's sessions only: its old link, and
    any other account, can no longer act for it."""
    r = httpx.post(server.url + "/api/games", json={"players": [{"name": "Ann"}, {"name": "Bea"}]})
    game = r.json()
    gid, token0, token1 = game["id"], game["seats"][0]["token"], game["seats"][1]["token"]
    ann, mallory = players("AnnAccount"), players("Mallory")
    r = ann.post("/api/account/seats", {"game": gid}, csrf=True)
    assert is_api_error(r, 400)  # no seat token given
    r = ann.http.post("/api/account/seats", json={"game": gid},
                      headers={"X-CSRF-Token": ann.csrf, "X-Hansa-Token": token0})
    assert r.status_code == 200, r.text
    assert r.json() == {"game": gid, "seat": 0}
    # the link is spent: it no longer acts or sees the seat
    view = httpx.get(f"{server.url}/api/games/{gid}", headers={"X-Hansa-Token": token0}).json()
    assert view["you"] == []
    r = mallory.http.post("/api/account/seats", json={"game": gid},
                          headers={"X-CSRF-Token": mallory.csrf, "X-Hansa-Token": token0})
    assert is_api_error(r, 403)
    assert mallory.get(f"/api/games/{gid}").json()["you"] == []
    assert ann.get(f"/api/games/{gid}").json()["you"] == [0]
    # a second device of the same account plays it too, and sees it in "my games"
    laptop = Player(server, "AnnAccount", new=False)
    assert laptop.get(f"/api/games/{gid}").json()["you"] == [0]
    mine = laptop.get("/api/account/games").json()["games"]
    assert [g["id"] for g in mine] == [gid] and mine[0]["you"] == [0]
    assert mallory.get("/api/account/games").json()["games"] == []
    # seat 1 keeps its link
    assert httpx.get(f"{server.url}/api/games/{gid}", headers={"X-Hansa-Token": token1}).json()["you"] == [1]
    laptop.close()


def test_the_same_seat_taken_at_once_from_two_processes(tmp_path: Path) -> None:
    with two_processes(tmp_path) as (a, b):
        host = Player(a, "Host")
        tid = new_table(host, players=5)["id"]
        joiners = [Player(a if i % 2 else b, f"Racer{i}") for i in range(8)]
        answers: list[int] = []
        barrier = threading.Barrier(len(joiners))

        def take(p: Player) -> None:
            barrier.wait()
            answers.append(p.post(f"/api/tables/{tid}/join", {"seat": 3}).status_code)

        threads = [threading.Thread(target=take, args=(p,)) for p in joiners]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(answers) == [200] + [409] * 7
        seated = db_rows(a, "SELECT seat FROM table_seats WHERE table_id = :t ORDER BY seat", t=tid)
        assert [s for (s,) in seated] == [0, 3]
        # and all at once for any seat: the table fills exactly, once
        answers.clear()
        barrier = threading.Barrier(len(joiners))

        def any_seat(p: Player) -> None:
            barrier.wait()
            answers.append(p.post(f"/api/tables/{tid}/join", {}).status_code)

        threads = [threading.Thread(target=any_seat, args=(p,)) for p in joiners]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert answers.count(200) == 3
        table = wait_for(lambda: (t := host.get(f"/api/tables/{tid}").json())["status"] == "started" and t)
        assert len(httpx.get(f"{a.url}/api/games/{table['game']}").json()["players"]) == 5
        for p in [host, *joiners]:
            p.close()


def test_table_requests_are_bounded(server: Server, players: Callable[[str], Player]) -> None:
    ann = players("Bounded")
    tid = new_table(ann, players=3)["id"]
    for path, body in ((f"/api/tables/{tid}/join", {"seat": 7}), (f"/api/tables/{tid}/join", {"name": "x" * 500}),
                       (f"/api/tables/{tid}/remove", {"seat": "1"}), (f"/api/tables/{tid}/bots", {"bot": "god"}),
                       ("/api/tables/quick", {"players": 9})):
        assert is_api_error(ann.post(path, body), 400), (path, body)
    for bad in ("x" * 17, "a-b", "nope"):
        assert is_api_error(httpx.get(f"{server.url}/api/tables/{bad}"), 404)
    assert is_api_error(httpx.get(f"{server.url}/api/tables?limit=1000"), 400)


def test_a_deleted_account_leaves_its_games_to_a_neutral_name(server: Server, players: Callable[[str], Player]) -> None:
    ann, bob = players("Leaver"), players("Stayer")
    tid = new_table(ann, players=2)["id"]
    bob.post(f"/api/tables/{tid}/join", {})
    open_tid = new_table(ann, players=3)["id"]
    bob.post(f"/api/tables/{open_tid}/join", {})
    r = ann.post("/api/account/delete", {"password": PASSWORD})
    assert r.status_code == 200, r.text
    view = wait_for(lambda: (v := bob.get(f"/api/games/{tid}").json())["players"] and v)
    names = sorted(p["name"] for p in view["players"])
    assert names == ["Deleted player", "Stayer"]
    gone = next(p for p in view["players"] if p["name"] == "Deleted player")
    assert gone["type"] == "bot" and gone["taken_over"] is True  # a bot plays on for the deleted player
    assert view["you"] == [next(p["seat"] for p in view["players"] if p["name"] == "Stayer")]
    # the record carries the neutral name too, and nothing of the account remains in the game's row
    record = httpx.get(f"{server.url}/api/games/{tid}/record").json()
    assert "Leaver" not in str(record)
    [(players_json,)] = db_rows(server, "SELECT players FROM games WHERE id = :g", g=tid)
    assert "Leaver" not in str(players_json)
    # its open table is closed, and its seat at others' tables freed
    assert bob.get(f"/api/tables/{open_tid}").json()["status"] == "closed"
    assert db_rows(server, "SELECT count(*) FROM account_seats")[0][0] == 1  # Stayer's seat


def test_a_guest_acts_at_the_table_with_its_token(server: Server, players: Callable[[str], Player]) -> None:
    ann = players("Hostess")
    tid = new_table(ann, players=3, allow_guests=True)["id"]
    r = httpx.post(f"{server.url}/api/tables/{tid}/join", json={"name": "Guesty"})
    token = r.json()["table_token"]
    seat = r.json()["you"]
    table = httpx.get(f"{server.url}/api/tables/{tid}", headers={"X-Hansa-Token": token}).json()
    assert table["you"] == seat and table["creator_you"] is False
    assert httpx.get(f"{server.url}/api/tables/{tid}").json()["you"] is None
    assert is_api_error(httpx.post(f"{server.url}/api/tables/{tid}/start", headers={"X-Hansa-Token": token}), 403)
    r = httpx.post(f"{server.url}/api/tables/{tid}/leave", headers={"X-Hansa-Token": token})
    assert r.status_code == 200 and r.json()["seats"][seat]["kind"] == "open" and r.json()["you"] is None


def test_a_game_socket_takes_the_session_only_from_the_servers_own_pages(server: Server,
                                                                          players: Callable[[str], Player]) -> None:
    """A WebSocket is not bound by the same-origin policy: another site's page could open one with the cookie. The
    session counts only when the socket's Origin is this server."""
    import asyncio
    import json

    import websockets

    ann = players("Socketeer")
    tid = new_table(ann, players=2, bots=["random"])["id"]
    seat = ann.get(f"/api/games/{tid}").json()["you"]
    assert len(seat) == 1
    cookie = f"hansa_session={ann.http.cookies['hansa_session']}"
    url = server.url.replace("http", "ws") + f"/api/games/{tid}/ws"

    async def you(origin: str | None) -> list[int]:
        headers = {"Cookie": cookie, **({"Origin": origin} if origin else {})}
        async with websockets.connect(url, subprotocols=["hansa"], additional_headers=headers,
                                      origin=None) as ws:  # type: ignore[arg-type]
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            return message["view"]["you"]  # type: ignore[no-any-return]

    assert asyncio.run(you(server.url)) == seat
    assert asyncio.run(you("http://evil.example")) == []
    assert asyncio.run(you(None)) == []


def test_a_full_table_that_could_not_start_starts_later(make_server: Callable[..., Server]) -> None:
    """The server is full when the last seat is taken: the table stays open with the reason, and starts by itself
    once a game ends."""
    srv = make_server("--max-live-games", "1", "--janitor-interval", "0.3")
    blocker = httpx.post(srv.url + "/api/games", json={"players": [{"name": "A"}, {"name": "B"}]}).json()
    ann, bob = Player(srv, "Full1"), Player(srv, "Full2")
    tid = new_table(ann, players=2)["id"]
    r = bob.post(f"/api/tables/{tid}/join", {})
    assert is_api_error(r, 429)
    table = ann.get(f"/api/tables/{tid}").json()
    assert table["status"] == "open" and "could not start" in table["note"] and table["seats"][1]["kind"] == "account"
    httpx.post(f"{srv.url}/api/games/{blocker['id']}/stop", headers={"X-Hansa-Token": blocker["creator_token"]})
    started = wait_for(lambda: (t := ann.get(f"/api/tables/{tid}").json())["status"] == "started" and t)
    assert started["game"] == tid and len(ann.get(f"/api/games/{tid}").json()["you"]) == 1
    ann.close()
    bob.close()
