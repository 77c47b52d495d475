"""Rematch (issue "The club"), and a rated table game played to the end that changes its players' ratings, against
real `hansa serve` processes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from server_support import Server, two_processes
from test_api import wait_for
from test_hostile import is_api_error
from test_tables import Player, new_table


def finish_by_hints(server: Server, game_id: str, p: Player | None = None, token: str | None = None,
                    limit: int = 3000) -> dict[str, Any]:
    """Play every decision of the asker's seats with the server's hint (the heuristic bot's move) until the end."""
    headers = {"X-Hansa-Token": token} if token else {}
    http = p.http if p is not None else httpx.Client(base_url=server.url, timeout=30)
    if p is not None:
        headers["X-CSRF-Token"] = p.csrf
    for _ in range(limit):
        view = http.get(f"/api/games/{game_id}", headers=headers).json()
        if view["status"] != "running":
            return view  # type: ignore[no-any-return]
        if not view["legal"]:
            wait_for(lambda: (v := http.get(f"/api/games/{game_id}", headers=headers).json())["legal"]
                     or v["status"] != "running", timeout=30)
            continue
        hint = http.post(f"/api/games/{game_id}/hint", headers=headers)
        assert hint.status_code == 200, hint.text
        r = http.post(f"/api/games/{game_id}/moves", json={"move": hint.json()["move"], "version": view["version"]},
                      headers=headers)
        assert r.status_code in (200, 409), r.text
    raise AssertionError("the game did not end")


def test_rematch_rotates_the_seats_and_starts_when_all_accept(server: Server, players: Callable[[str], Player]) -> None:
    ann, bob = players("Ann"), players("Bob")
    tid = new_table(ann, players=3, bots=["random"])["id"]
    table = bob.post(f"/api/tables/{tid}/join", {}).json()
    assert table["status"] == "started"
    order = [p["name"] for p in httpx.get(f"{server.url}/api/games/{tid}").json()["players"]]
    # not over yet: no rematch
    assert is_api_error(ann.post(f"/api/games/{tid}/rematch"), 409)
    # a game ends: here stopped by the server's move budget is not possible, so play it out
    players_of = {"Ann": ann, "Bob": bob}
    done = threading.Event()

    def play(p: Player) -> None:
        finish_by_hints(server, tid, p)
        done.set()

    threads = [threading.Thread(target=play, args=(q,)) for q in (ann, bob)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert httpx.get(f"{server.url}/api/games/{tid}").json()["status"] == "over"
    with httpx.Client(base_url=server.url) as stranger:
        assert is_api_error(stranger.post(f"/api/games/{tid}/rematch"), 403)
    r = bob.post(f"/api/games/{tid}/rematch")
    assert r.status_code == 200, r.text
    rematch = r.json()["table"]
    assert rematch["rematch_of"] == tid and rematch["private"] is True and rematch["status"] == "open"
    assert [s["name"] for s in rematch["seats"]] == order[1:] + order[:1]  # rotated
    accepted = {s["name"]: s["accepted"] for s in rematch["seats"]}
    assert accepted == {"Bob": True, "Ann": False, "Bot random": True}
    # proposing again (from the other player too) gives the same table
    assert ann.post(f"/api/games/{tid}/rematch").json()["table"]["id"] == rematch["id"]
    assert ann.get(f"/api/games/{tid}/rematch").json()["table"]["you"] is not None
    r = players_of["Ann"].post(f"/api/tables/{rematch['id']}/accept")
    assert r.status_code == 200, r.text
    started = r.json()
    assert started["status"] == "started" and started["game"] == rematch["id"]
    new_order = [p["name"] for p in httpx.get(f"{server.url}/api/games/{started['game']}").json()["players"]]
    assert new_order == order[1:] + order[:1]
    assert ann.get(f"/api/games/{started['game']}").json()["you"] == [new_order.index("Ann")]


def test_a_rated_table_game_changes_the_ratings_once(make_server: Callable[..., Server]) -> None:
    srv = make_server("--rating-interval", "0.5")
    ann = Player(srv, "Rated Ann")
    tid = new_table(ann, players=2, rated=True, bots=["heuristic"])["id"]
    view = finish_by_hints(srv, tid, ann)
    assert view["status"] == "over"
    profile = wait_for(lambda: (p := ann.get("/api/players/Rated Ann").json())["rating"] and p, timeout=30)
    assert profile["rating"]["games"] == 1 and profile["rating"]["provisional"] is True
    assert [h["game"] for h in profile["history"]] == [tid]
    board = httpx.get(srv.url + "/api/leaderboard").json()["players"]
    assert sorted(e["kind"] for e in board) == ["account", "bot"]
    ann.close()


def test_guest_rematch_keeps_the_guest_link(server: Server) -> None:
    r = httpx.post(server.url + "/api/games", json={"players": [{"name": "Gus"}, {"name": "Gil"}]})
    game = r.json()
    gid = game["id"]
    tokens = [s["token"] for s in game["seats"]]
    assert httpx.post(f"{server.url}/api/games/{gid}/stop", headers={"X-Hansa-Token": game["creator_token"]}).status_code == 200
    r = httpx.post(f"{server.url}/api/games/{gid}/rematch", headers={"X-Hansa-Token": tokens[0]})
    assert r.status_code == 200, r.text
    table = r.json()["table"]
    assert [s["name"] for s in table["seats"]] == ["Gil", "Gus"] and table["you"] == 1
    r = httpx.post(f"{server.url}/api/tables/{table['id']}/decline", headers={"X-Hansa-Token": "not a token"})
    assert is_api_error(r, 403)
    r = httpx.post(f"{server.url}/api/tables/{table['id']}/accept", headers={"X-Hansa-Token": tokens[1]})
    assert r.status_code == 200 and r.json()["status"] == "started"
    new = r.json()["game"]
    for seat, token in enumerate(tokens):  # the same links play the new game, in the rotated seats
        view = httpx.get(f"{server.url}/api/games/{new}", headers={"X-Hansa-Token": token}).json()
        assert view["you"] == [1 - seat]


def test_declining_closes_the_rematch(server: Server) -> None:
    game = httpx.post(server.url + "/api/games", json={"players": [{"name": "Di"}, {"name": "Do"}]}).json()
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    httpx.post(f"{server.url}/api/games/{gid}/stop", headers={"X-Hansa-Token": game["creator_token"]})
    table = httpx.post(f"{server.url}/api/games/{gid}/rematch", headers={"X-Hansa-Token": tokens[1]}).json()["table"]
    r = httpx.post(f"{server.url}/api/tables/{table['id']}/decline", headers={"X-Hansa-Token": tokens[0]})
    assert r.status_code == 200 and r.json()["status"] == "closed" and "Di declined" in r.json()["note"]
    assert is_api_error(httpx.post(f"{server.url}/api/tables/{table['id']}/accept",
                                   headers={"X-Hansa-Token": tokens[0]}), 409)
    hot = httpx.post(server.url + "/api/games", json={"players": [{"name": "A"}, {"name": "B"}],
                                                    "table": {"hotseat": True}}).json()
    httpx.post(f"{server.url}/api/games/{hot['id']}/stop", headers={"X-Hansa-Token": hot["creator_token"]})
    assert is_api_error(httpx.post(f"{server.url}/api/games/{hot['id']}/rematch",
                                   headers={"X-Hansa-Token": hot["hotseat_token"]}), 409)


def test_one_rematch_from_two_processes(tmp_path: Path) -> None:
    with two_processes(tmp_path) as (a, b):
        game = httpx.post(a.url + "/api/games", json={"players": [{"name": "P1"}, {"name": "P2"}, {"name": "P3"}]}).json()
        gid, tokens = game["id"], [s["token"] for s in game["seats"]]
        httpx.post(f"{a.url}/api/games/{gid}/stop", headers={"X-Hansa-Token": game["creator_token"]})
        ids: list[str] = []
        barrier = threading.Barrier(6)

        def propose(i: int) -> None:
            srv = (a, b)[i % 2]
            barrier.wait()
            r = httpx.post(f"{srv.url}/api/games/{gid}/rematch", headers={"X-Hansa-Token": tokens[i % 3]}, timeout=30)
            assert r.status_code == 200, r.text
            ids.append(r.json()["table"]["id"])

        threads = [threading.Thread(target=propose, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(ids) == 6 and len(set(ids)) == 1
        # accepted from both processes at once: it starts once
        table = ids[0]
        answers: list[int] = []
        barrier = threading.Barrier(3)

        def accept(i: int) -> None:
            barrier.wait()
            answers.append(httpx.post(f"{(a, b)[i % 2].url}/api/tables/{table}/accept",
                                      headers={"X-Hansa-Token": tokens[i]}, timeout=30).status_code)

        threads = [threading.Thread(target=accept, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        started = wait_for(lambda: (t := httpx.get(f"{a.url}/api/tables/{table}").json())["status"] == "started" and t)
        assert len(httpx.get(f"{b.url}/api/games/{started['game']}").json()["players"]) == 3
