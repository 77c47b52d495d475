"""POST /api/tutorial: a "Learn to play" game is an ordinary stored hot-seat game of the chapter's script, bounded
and counted like POST /api/games; bad bodies are refused in the documented error format and create nothing."""

from __future__ import annotations

import time
from typing import Any

import httpx
from server_support import Server

from hansa.server.tutorial import chapter


def games(server: Server) -> list[dict[str, Any]]:
    return httpx.get(server.url + "/api/games", timeout=10).json()["games"]  # type: ignore[no-any-return]


def test_tutorial_game_is_the_scripts_game(sqlite_server: Server) -> None:
    r = httpx.post(sqlite_server.url + "/api/tutorial", json={"chapter": "basics", "name": "Zoë"}, timeout=10)
    assert r.status_code == 201, r.text
    game = r.json()
    assert [s["name"] for s in game["seats"]] == ["Zoë", "Hanna", "Jan"]
    assert game["hotseat_url"] == f"/game/{game['id']}#token={game['hotseat_token']}"
    token = game["hotseat_token"]
    view = httpx.get(sqlite_server.url + f"/api/games/{game['id']}", headers={"X-Hansa-Token": token}, timeout=10).json()
    assert view["table"] == {"hints": False, "hotseat": True, "tutorial": "basics"}
    assert view["seed"] == chapter("basics")["seed"] and view["you"] == [0, 1, 2]
    # every scripted move is accepted by the server, in order, for its seat
    for n, step in enumerate(chapter("basics")["steps"]):
        r = httpx.post(sqlite_server.url + f"/api/games/{game['id']}/moves", headers={"X-Hansa-Token": token},
                       json={"move": step["text"], "version": n, "seat": step["seat"]}, timeout=10)
        assert r.status_code == 200, (n, step, r.text)
    assert r.json()["state"]["players"][0]["score"] == 2
    script = httpx.get(sqlite_server.url + "/api/tutorial/basics", timeout=10).json()
    assert script["chapter"] == "basics" and script["steps"] == chapter("basics")["steps"]


def test_tutorial_bad_requests_create_nothing(sqlite_server: Server) -> None:
    bad = [
        {},
        {"chapter": "advanced"},
        {"chapter": 1},
        {"chapter": "basics", "name": ""},
        {"chapter": "basics", "name": "x" * 200},
        {"chapter": "basics", "name": "Hanna"},  # a scripted player's name
        {"chapter": "basics", "name": "hanna"},
        {"chapter": "basics", "extra": True},
    ]
    for body in bad:
        r = httpx.post(sqlite_server.url + "/api/tutorial", json=body, timeout=10)
        assert r.status_code == 400, (body, r.status_code, r.text)
        assert isinstance(r.json()["error"], str) and r.json()["error"], r.text
    assert "taken by a player of the tutorial" in httpx.post(
        sqlite_server.url + "/api/tutorial", json={"chapter": "basics", "name": "Hanna"}, timeout=10).json()["error"]
    assert games(sqlite_server) == []
    assert httpx.get(sqlite_server.url + "/api/tutorial/advanced", timeout=10).status_code == 404


def test_tutorial_counts_in_the_creation_cap(sqlite_server: Server) -> None:
    codes = [httpx.post(sqlite_server.url + "/api/tutorial", json={"chapter": "basics"}, timeout=10).status_code
             for _ in range(11)]
    assert codes[:10] == [201] * 10 and codes[10] == 429  # 10 games a minute, as POST /api/games
    r = httpx.post(sqlite_server.url + "/api/games", json={"players": [{"name": "A"}, {"name": "B"}]}, timeout=10)
    assert r.status_code == 429 and "Retry-After" in r.headers


def test_end_chapter_starts_late_against_server_bots(sqlite_server: Server) -> None:
    """The chapter "end": the game is created at the script's late position (its prefix played by the server), the
    other seats are server bots of the lobby's easiest level, the learner's scripted claim is accepted, and from there
    the learner plays freely and the bots answer until the game is over."""
    data = chapter("end")
    r = httpx.post(sqlite_server.url + "/api/tutorial", json={"chapter": "end", "name": "Zoë"}, timeout=30)
    assert r.status_code == 201, r.text
    game = r.json()
    assert [(s["name"], s["type"], s["bot"]) for s in game["seats"]] == [
        ("Zoë", "human", None), ("Hanna", "bot", "random"), ("Jan", "bot", "random")]
    assert game["version"] == data["prefix"] and game["creator_token"]
    token, url = game["hotseat_token"], sqlite_server.url + f"/api/games/{game['id']}"
    view = httpx.get(url, headers={"X-Hansa-Token": token}, timeout=10).json()
    assert view["table"] == {"hints": False, "hotseat": True, "tutorial": "end"} and view["you"] == [0]
    assert view["version"] == data["prefix"] and view["state"]["turn"]["decider"] == 0
    for n, step in enumerate(data["steps"][data["prefix"]:], start=data["prefix"]):
        r = httpx.post(url + "/moves", headers={"X-Hansa-Token": token},
                       json={"move": step["text"], "version": n, "seat": 0}, timeout=10)
        assert r.status_code == 200, (n, step, r.text)
    script = httpx.get(sqlite_server.url + "/api/tutorial/end", timeout=10).json()
    assert script["prefix"] == data["prefix"] and script["bots"] == [None, "random", "random"]
    # free play: the learner makes any legal move (here the first one offered) until the game is over
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = httpx.get(url, headers={"X-Hansa-Token": token}, timeout=10).json()
        if view["status"] != "running":
            break
        if view["legal"]:
            httpx.post(url + "/moves", headers={"X-Hansa-Token": token},
                       json={"move": view["legal"][0]["text"], "version": view["version"], "seat": 0}, timeout=10)
        else:
            time.sleep(0.1)
    assert view["status"] == "over", view["status"]
    assert view["state"]["result"]["scores"]


def test_end_chapter_bad_requests_create_nothing(sqlite_server: Server) -> None:
    for body in ({"chapter": "End"}, {"chapter": "end", "name": "Jan"}, {"chapter": "end", "prefix": 3},
                 {"chapter": ["end"]}):
        r = httpx.post(sqlite_server.url + "/api/tutorial", json=body, timeout=10)
        assert r.status_code == 400, (body, r.status_code, r.text)
    assert games(sqlite_server) == []
    assert httpx.get(sqlite_server.url + "/api/tutorial/End", timeout=10).status_code == 404


def test_stopped_tutorials_do_not_count_toward_the_running_games_cap(make_server: Any) -> None:
    """A learner who leaves a tutorial stops it (creator token): it no longer counts among the client's running
    games, so tutorials do not pile up against --max-live-games-per-client."""
    srv = make_server("--max-live-games-per-client", "2")
    made = [httpx.post(srv.url + "/api/tutorial", json={"chapter": c}, timeout=30).json() for c in ("basics", "end")]
    r = httpx.post(srv.url + "/api/tutorial", json={"chapter": "basics"}, timeout=10)
    assert r.status_code == 429 and "still in play" in r.json()["error"]
    stop = httpx.post(srv.url + f"/api/games/{made[0]['id']}/stop", headers={"X-Hansa-Token": made[0]["creator_token"]},
                      timeout=10)
    assert stop.status_code == 200, stop.text
    assert httpx.post(srv.url + "/api/tutorial", json={"chapter": "end"}, timeout=30).status_code == 201
