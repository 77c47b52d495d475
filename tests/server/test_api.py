"""The web API through a real HTTP client against a real server process (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx
import pytest
import websockets
from server_support import Server

from hansa.record import game_from_record

T = TypeVar("T")

HUMAN = {"name": "Ann", "type": "human"}


def create(server: Server, players: list[dict[str, Any]], hotseat: bool = False, **extra: Any) -> dict[str, Any]:
    """Create a game: of seat links (a token per human seat), or with ``hotseat`` (or ``table={"hotseat": True}``)
    a hot-seat game (one token for every human seat, no seat tokens)."""
    if hotseat:
        extra["table"] = {**extra.get("table", {}), "hotseat": True}
    r = httpx.post(server.url + "/api/games", json={"players": players, **extra}, timeout=10)
    assert r.status_code == 201, r.text
    game = r.json()
    if extra.get("table", {}).get("hotseat"):
        assert game["hotseat_token"] and all(s["token"] is None for s in game["seats"])
    else:
        assert game["hotseat_token"] is None and game["hotseat_url"] is None
    return game  # type: ignore[no-any-return]


def auth(token: str | None) -> dict[str, str]:
    """Seat tokens travel in the X-Hansa-Token header (never in a URL)."""
    return {"X-Hansa-Token": token} if token else {}


def view(server: Server, game_id: str, token: str | None = None) -> dict[str, Any]:
    """The game as the token sees it, without the server's time (``now``, which every answer carries)."""
    r = httpx.get(f"{server.url}/api/games/{game_id}", headers=auth(token), timeout=10)
    assert r.status_code == 200, r.text
    data = r.json()
    assert isinstance(data.pop("now"), float)
    return data


def move(server: Server, game_id: str, token: str | None, text: Any, version: int | None, seat: int | None = None) -> httpx.Response:
    body: dict[str, Any] = {"move": text, "version": version}
    if seat is not None:
        body["seat"] = seat
    return httpx.post(f"{server.url}/api/games/{game_id}/moves", headers=auth(token), json=body, timeout=10)


def paged(server: Server, game_id: str, what: str, key: str, limit: int | None = None) -> dict[str, Any]:
    """The whole of a paged answer (``/log`` or ``/history``), following ``next`` page by page: the last page's
    answer with ``key`` (``log`` or ``turns``) holding every page's entries."""
    entries: list[Any] = []
    start: int | None = 0
    page: dict[str, Any] = {}
    while start is not None:
        params = {"start": start, **({"limit": limit} if limit else {})}
        r = httpx.get(f"{server.url}/api/games/{game_id}/{what}", params=params, timeout=30)
        assert r.status_code == 200, r.text
        page = r.json()
        assert page["start"] == start
        entries += page[key]
        assert page["next"] is None or page["next"] > start
        start = page["next"]
    return {**page, key: entries}


def full_log(server: Server, game_id: str, limit: int | None = None) -> dict[str, Any]:
    """``GET /log`` of every move: ``{"moves", "log": [...]}``."""
    return paged(server, game_id, "log", "log", limit)


def full_history(server: Server, game_id: str, limit: int | None = None) -> dict[str, Any]:
    """``GET /history`` of every move (move 0 included): ``{"moves", "final", "turns": [...]}``."""
    return paged(server, game_id, "history", "turns", limit)


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on a fresh event loop in its own thread.

    ``asyncio.run`` refuses to start when the calling thread already has a running loop, which is
    the case in a pytest worker that earlier ran the Playwright (sync API) browser tests.
    """
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def wait_for(predicate, timeout: float = 20.0) -> Any:  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while time.time() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError("condition not reached")


def test_create_validation(server: Server) -> None:
    bad = [
        {"players": [HUMAN]},
        {"players": [HUMAN] * 6},
        {"players": [HUMAN, {"name": "B", "type": "bot", "bot": "genius"}]},
        {"players": [HUMAN, {"name": "x" * 31}]},
        {"players": [HUMAN, {"name": "   "}]},
        {"players": [HUMAN, {"name": "Bo"}, {"name": "Cy"}], "options": {"colour": "red"}},
        {"players": [HUMAN, {"name": "Bo"}], "options": {"two_player_variant": "chess"}},
        {"players": [HUMAN, {"name": "Bo"}], "seed": -1},
        {"players": [HUMAN, {"name": "Bo"}], "table": {"hotseat": "yes"}},
        # names: no two seats alike (case and compatibility forms folded), nothing invisible
        {"players": [HUMAN, HUMAN]},
        {"players": [HUMAN, {"name": "Bot", "type": "bot", "bot": "random"}, {"name": "Bot", "type": "bot", "bot": "random"}]},
        {"players": [HUMAN, {"name": "ANN"}]},
        {"players": [HUMAN, {"name": "\uff21nn"}]},  # full-width A
        {"players": [HUMAN, {"name": "B\u200bo"}]},
        {"players": [HUMAN, {"name": "Bo\u202e"}]},
    ]
    for body in bad:
        r = httpx.post(server.url + "/api/games", json=body, timeout=10)
        assert 400 <= r.status_code < 500, (body, r.status_code, r.text)
    assert "same name" in httpx.post(server.url + "/api/games", json=bad[10], timeout=10).json()["error"]  # two bots "Bot"
    # names are stored in NFC: "Zoe" with a combining acute accent is "Zoé"
    g = create(server, [HUMAN, {"name": "Zoe\u0301"}])
    assert [s["name"] for s in g["seats"]] == ["Ann", "Zo\u00e9"]
    assert httpx.get(server.url + "/api/games/nope").status_code == 404
    assert httpx.get(server.url + "/api/boards/9-9").status_code == 404


def test_seats_tokens_and_moves(server: Server) -> None:
    g = create(server, [HUMAN, {"name": "Bo", "type": "human"}, {"name": "Cy", "type": "human"}], seed=5)
    gid = g["id"]
    tokens = [s["token"] for s in g["seats"]]
    first = view(server, gid, tokens[0])
    decider = first["state"]["turn"]["decider"]
    me = tokens[decider]
    other = tokens[(decider + 1) % 3]
    mine = view(server, gid, me)
    assert mine["you"] == [decider] and mine["legal"]
    assert view(server, gid, other)["legal"] == []
    spectator = view(server, gid)
    assert spectator["you"] == [] and spectator["legal"] == []
    place = next(m["text"] for m in mine["legal"] if m["text"].startswith("place T"))
    # wrong seat, spectator, malformed, illegal, stale: clear errors, nothing changes
    assert move(server, gid, other, place, 0).status_code == 403
    assert move(server, gid, None, place, 0).status_code == 403
    assert move(server, gid, "forged-token", place, 0).status_code == 403
    r = move(server, gid, me, "fly me to the moon", 0)
    assert r.status_code == 400 and "cannot read move" in r.json()["error"]
    r = move(server, gid, me, "claim GRO-EMD", 0)
    assert r.status_code == 422 and r.json()["rule"] == "§2.6"
    assert move(server, gid, me, place, 7).status_code == 409
    assert view(server, gid, me)["version"] == 0
    r = move(server, gid, me, place, 0)
    assert r.status_code == 200
    after = r.json()
    assert after["version"] == 1 and after["log"][-1]["move"] == place
    # JSON form of a move works too
    nxt = next(m for m in after["legal"] if m["text"].startswith("place"))
    r = move(server, gid, me, nxt["json"], 1)
    assert r.status_code == 200 and r.json()["version"] == 2


def test_hotseat_and_undo(server: Server) -> None:
    g = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=3)
    gid, hot = g["id"], g["hotseat_token"]
    v = view(server, gid, hot)
    assert sorted(v["you"]) == [0, 1] and v["legal"]
    first = next(m["text"] for m in v["legal"] if m["text"].startswith("place"))
    v = move(server, gid, hot, first, 0).json()
    assert v["undo"] == 1
    r = httpx.post(f"{server.url}/api/games/{gid}/undo", headers=auth(hot), json={"version": 1}, timeout=10)
    assert r.status_code == 200 and r.json()["version"] == 0 and r.json()["log"] == []
    r = httpx.post(f"{server.url}/api/games/{gid}/undo", headers=auth(hot), json={"version": 0}, timeout=10)
    assert r.status_code == 422


def test_bots_answer_and_record_replays(server: Server) -> None:
    g = create(server, [HUMAN, {"name": "B1", "type": "bot", "bot": "heuristic"}, {"name": "B2", "type": "bot", "bot": "purpose"}], seed=11)
    gid, tok = g["id"], g["seats"][0]["token"]
    # Play the human seat with "end" whenever it must decide; the bots must keep answering.
    for _ in range(6):
        v = wait_for(lambda: (lambda x: x if x["legal"] else None)(view(server, gid, tok)))
        assert v["state"]["turn"]["decider"] == 0
        end = next((m["text"] for m in v["legal"] if m["text"] == "end"), v["legal"][0]["text"])
        assert move(server, gid, tok, end, v["version"]).status_code == 200
    # Wait until the bots have answered and the human must decide again: the game is then at rest,
    # so the log, the record and the history all describe the same moves.
    v = wait_for(lambda: (lambda x: x if x["legal"] else None)(view(server, gid, tok)))
    bot_moves = [e for e in v["log"] if e["seat"] != 0]
    assert bot_moves, "bots did not move"
    record = httpx.get(f"{server.url}/api/games/{gid}/record").json()
    game = game_from_record(record)
    assert [m.text() for m in game.moves] == [e["move"] for e in v["log"]] or len(game.moves) >= v["version"]
    history = full_history(server, gid)
    assert history["turns"][0]["scores"] == [0, 0, 0] and len(history["turns"]) == len(game.moves) + 1
    assert [e["n"] for e in history["turns"]] == list(range(len(game.moves) + 1))
    # small pages give the same entries as one
    assert full_history(server, gid, limit=7)["turns"] == history["turns"]
    k = len(game.moves) // 2
    replay = httpx.get(f"{server.url}/api/games/{gid}/replay/{k}").json()
    assert replay["k"] == k and replay["move"] == game.moves[k - 1].text()
    assert httpx.get(f"{server.url}/api/games/{gid}/replay/99999").status_code == 404
    # The whole move log: every move with its seat, turn, JSON and delta, the same as the view's latest entries.
    log = full_log(server, gid)
    assert log["moves"] == len(game.moves) and [e["move"] for e in log["log"]] == [m.text() for m in game.moves]
    assert [e["n"] for e in log["log"]] == list(range(1, len(game.moves) + 1))
    assert full_log(server, gid, limit=5)["log"] == log["log"]
    # who made each move: the human seat's token, or a bot
    assert {e["by"] for e in log["log"] if e["seat"] == 0} == {"seat"}
    assert {e["by"] for e in log["log"] if e["seat"] != 0} == {"bot"}
    by_n = {e["n"]: e for e in log["log"]}
    for e in v["log"]:
        assert by_n[e["n"]]["seat"] == e["seat"] and by_n[e["n"]]["turn"] == e["turn"] and by_n[e["n"]]["json"] == e["json"]
        assert by_n[e["n"]]["by"] == e["by"]
        if e["delta"] is not None:
            assert by_n[e["n"]]["delta"] == e["delta"], e["n"]
    assert httpx.get(f"{server.url}/api/games/nosuchgame/log").status_code == 404


def test_websocket_pushes_views(server: Server) -> None:
    g = create(server, [HUMAN, {"name": "Bo"}, {"name": "Cy"}], seed=2)
    gid = g["id"]
    tokens = [s["token"] for s in g["seats"]]
    decider = view(server, gid)["state"]["turn"]["decider"]
    watcher_token = tokens[(decider + 1) % 3]
    ws_url = server.url.replace("http", "ws") + f"/api/games/{gid}/ws"

    async def scenario() -> list[dict[str, Any]]:
        async with websockets.connect(ws_url, subprotocols=["hansa", "hansa.token." + watcher_token]) as ws:
            assert ws.subprotocol == "hansa"
            first = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert first["type"] == "view" and first["view"]["version"] == 0
            v = view(server, gid, tokens[decider])
            text = next(m["text"] for m in v["legal"] if m["text"].startswith("place"))
            await asyncio.to_thread(move, server, gid, tokens[decider], text, 0)
            pushed = json.loads(await asyncio.wait_for(ws.recv(), 5))
            await ws.send(json.dumps({"type": "ping"}))
            pong = json.loads(await asyncio.wait_for(ws.recv(), 5))
            return [pushed, pong]

    pushed, pong = run_coroutine(scenario())
    assert pushed["view"]["version"] == 1 and pushed["view"]["you"] == [(decider + 1) % 3]
    assert pushed["view"]["legal"] == []
    assert pong == {"type": "pong", "version": 1}


def test_concurrent_moves_one_wins(server: Server) -> None:
    g = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=8)
    gid, hot = g["id"], g["hotseat_token"]
    legal = [m["text"] for m in view(server, gid, hot)["legal"] if m["text"].startswith("place")]

    async def both() -> list[int]:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            rs = await asyncio.gather(*[
                client.post(f"/api/games/{gid}/moves", headers=auth(hot), json={"move": legal[i], "version": 0})
                for i in range(2)
            ])
            return sorted(r.status_code for r in rs)

    assert run_coroutine(both()) == [200, 409]
    assert view(server, gid, hot)["version"] == 1


def test_lobby_lists_games(server: Server) -> None:
    g = create(server, [{"name": "<b>Ann</b>"}, {"name": "Bot", "type": "bot", "bot": "random"}])
    games = httpx.get(server.url + "/api/games").json()["games"]
    assert games[0]["id"] == g["id"]
    assert games[0]["players"][0]["name"] == "<b>Ann</b>"  # stored as text; the client escapes it
    assert "token" not in json.dumps(games)


@pytest.mark.parametrize("how", ["restart", "kill -9"])
def test_games_survive_restart_and_kill(sqlite_server: Server, how: str) -> None:
    server = sqlite_server
    g = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=21)
    gid, hot = g["id"], g["hotseat_token"]
    acknowledged = []
    for _ in range(12):
        v = view(server, gid, hot)
        text = v["legal"][len(v["legal"]) // 2]["text"]
        r = move(server, gid, hot, text, v["version"])
        assert r.status_code == 200
        acknowledged.append(text)
    if how == "restart":
        server.restart()
    else:
        server.kill()
        server.start()
    v = view(server, gid, hot)
    assert v["version"] == len(acknowledged)
    assert [e["move"] for e in v["log"]] == acknowledged
    # and the game goes on
    assert move(server, gid, hot, v["legal"][0]["text"], v["version"]).status_code == 200


def test_bots_resume_after_kill(sqlite_server: Server) -> None:
    server = sqlite_server
    g = create(server, [{"name": "B1", "type": "bot", "bot": "purpose"}, {"name": "B2", "type": "bot", "bot": "purpose"}], seed=4)
    gid = g["id"]
    wait_for(lambda: view(server, gid)["version"] > 5)
    server.kill()
    server.start()
    version = view(server, gid)["version"]
    wait_for(lambda: view(server, gid)["version"] > version + 5)
