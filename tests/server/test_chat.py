"""Table chat (issue "Table talk"): who may write, bounds and limits, presets, order and numbering, live delivery
over the game's WebSocket (also from another process), reports and an operator's mute; real `hansa serve`."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from server_support import Server, two_processes
from test_accounts import db_rows
from test_hostile import is_api_error
from test_tables import Player, new_table


def guest_game(server: Server, **table: Any) -> dict[str, Any]:
    r = httpx.post(server.url + "/api/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}],
                                                     **({"table": table} if table else {})})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def say(server: Server, gid: str, token: str | None, **body: Any) -> httpx.Response:
    return httpx.post(f"{server.url}/api/games/{gid}/chat", json=body,
                      headers={"X-Hansa-Token": token} if token else {})


def chat(server: Server, gid: str, after: int = 0) -> list[dict[str, Any]]:
    r = httpx.get(f"{server.url}/api/games/{gid}/chat?after={after}")
    assert r.status_code == 200, r.text
    return r.json()["messages"]  # type: ignore[no-any-return]


def test_players_talk_and_spectators_read(server: Server) -> None:
    g = guest_game(server)
    gid, ann, bob = g["id"], g["seats"][0]["token"], g["seats"][1]["token"]
    r = say(server, gid, ann, text="  Hello   <b>Bob</b> <script>alert(1)</script> ")
    assert r.status_code == 201, r.text
    first = r.json()["message"]
    assert first["n"] == 1 and first["seat"] == 0 and first["author"] == "Ann" and first["account"] is False
    assert first["text"] == "Hello <b>Bob</b> <script>alert(1)</script>"  # kept as text: the pages never parse it
    assert say(server, gid, bob, preset="gg").status_code == 201
    messages = chat(server, gid)
    assert [(m["n"], m["author"], m["text"], m["preset"]) for m in messages] == [
        (1, "Ann", first["text"], None), (2, "Bob", None, "gg")]
    assert chat(server, gid, after=1) == messages[1:]
    info = httpx.get(f"{server.url}/api/games/{gid}/chat").json()
    assert "gg" in info["presets"] and info["spectators_write"] is False
    # a spectator reads but does not write
    assert is_api_error(say(server, gid, None, text="hi"), 403)
    assert is_api_error(say(server, gid, g["creator_token"], text="hi"), 403)  # the creator's token is no seat
    assert len(chat(server, gid)) == 2


@pytest.mark.parametrize("body", [
    {"text": "x" * 301}, {"text": "   "}, {"text": "a\u202eb"}, {"text": "bell\u0007"}, {"text": "a", "preset": "gg"},
    {}, {"preset": "insult"}, {"text": 7}, {"text": "hi", "extra": 1}, {"text": "y" * 2001},
])
def test_bounds(sqlite_server: Server, body: dict[str, Any]) -> None:
    g = guest_game(sqlite_server)
    r = say(sqlite_server, g["id"], g["seats"][0]["token"], **body)
    assert is_api_error(r, 400), r.text
    assert chat(sqlite_server, g["id"]) == []


def test_rate_limit_per_seat(make_server: Callable[..., Server]) -> None:
    srv = make_server("--chat-per-minute", "6")
    g = guest_game(srv)
    ann, bob = g["seats"][0]["token"], g["seats"][1]["token"]
    answers = [say(srv, g["id"], ann, text=f"m{i}") for i in range(7)]
    assert [a.status_code for a in answers[:5]] == [201] * 5
    refused = answers[5]
    assert is_api_error(refused, 429) and int(refused.headers["Retry-After"]) >= 1
    assert "6 chat messages a minute" in refused.json()["error"]
    assert say(srv, g["id"], bob, text="my turn to speak").status_code == 201  # another seat is not limited
    assert [m["text"] for m in chat(srv, g["id"])] == ["m0", "m1", "m2", "m3", "m4", "my turn to speak"]


def test_spectators_write_where_the_table_allows_it(server: Server, players: Callable[[str], Player]) -> None:
    g = guest_game(server, spectator_chat=True)
    assert httpx.get(f"{server.url}/api/games/{g['id']}/chat").json()["spectators_write"] is True
    assert is_api_error(say(server, g["id"], None, text="hello"), 401)  # a spectator needs a name: sign in
    fan = players("Fan")
    r = fan.post(f"/api/games/{g['id']}/chat", {"text": "go Ann!"})
    assert r.status_code == 201, r.text
    assert r.json()["message"]["seat"] is None and r.json()["message"]["author"] == "Fan"
    assert is_api_error(fan.post(f"/api/games/{g['id']}/chat", {"text": "no csrf"}, csrf=False), 403)


def test_account_seats_write_with_their_session(server: Server, players: Callable[[str], Player]) -> None:
    ann = players("Talker")
    tid = new_table(ann, players=2, bots=["random"])["id"]
    r = ann.post(f"/api/games/{tid}/chat", {"preset": "hello"})
    assert r.status_code == 201 and r.json()["message"]["author"] == "Talker" and r.json()["message"]["account"]
    # an operator's mute takes effect at once
    url = server.database_url.replace("postgresql://", "postgresql+psycopg://")
    from sqlalchemy import create_engine, text
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE accounts SET chat_muted = true WHERE name = 'Talker'"))
    engine.dispose()
    r = ann.post(f"/api/games/{tid}/chat", {"text": "still there?"})
    assert is_api_error(r, 403) and "muted" in r.json()["error"]
    assert len(chat(server, tid)) == 1


def test_reports_keep_the_message(server: Server) -> None:
    g = guest_game(server)
    gid, ann, bob = g["id"], g["seats"][0]["token"], g["seats"][1]["token"]
    say(server, gid, ann, text="something rude")
    url = f"{server.url}/api/games/{gid}/chat/1/report"
    assert is_api_error(httpx.post(url, json={}), 403)  # a spectator without an account
    r = httpx.post(url, json={"reason": "insult"}, headers={"X-Hansa-Token": bob})
    assert r.status_code == 200 and r.json() == {"reported": True, "new": True}
    r = httpx.post(url, json={"reason": "again"}, headers={"X-Hansa-Token": bob})
    assert r.json()["new"] is False
    assert is_api_error(httpx.post(f"{server.url}/api/games/{gid}/chat/9/report", json={},
                                   headers={"X-Hansa-Token": bob}), 404)
    assert is_api_error(httpx.post(url, json={"reason": "r" * 201}, headers={"X-Hansa-Token": bob}), 400)
    [(text_, author, reporter, reason)] = db_rows(server, "SELECT text, author, reporter, reason FROM chat_reports")
    assert (text_, author, reason) == ("something rude", "Ann", "insult") and reporter == f"seat:{gid}:1"


async def collect(url: str, want: int, ready: threading.Event | None = None) -> list[dict[str, Any]]:
    """The chat messages a socket receives until ``want`` have come."""
    got: list[dict[str, Any]] = []
    async with websockets.connect(url, subprotocols=["hansa"]) as ws:
        if ready is not None:
            ready.set()
        while len(got) < want:
            data = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if data.get("type") == "chat":
                got.append(data["message"])
    return got


def test_messages_arrive_live_on_the_games_socket(server: Server) -> None:
    g = guest_game(server)
    gid, ann, bob = g["id"], g["seats"][0]["token"], g["seats"][1]["token"]
    ws_url = server.url.replace("http", "ws") + f"/api/games/{gid}/ws"
    ready = threading.Event()
    result: list[list[dict[str, Any]]] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(collect(ws_url, 6, ready))))
    thread.start()
    assert ready.wait(10)
    for i in range(3):
        assert say(server, gid, ann, text=f"a{i}").status_code == 201
        assert say(server, gid, bob, text=f"b{i}").status_code == 201
    thread.join(30)
    assert [m["text"] for m in result[0]] == ["a0", "b0", "a1", "b1", "a2", "b2"]
    assert [m["n"] for m in result[0]] == [1, 2, 3, 4, 5, 6]


def test_two_processes_deliver_every_message_in_order_once(tmp_path: Path) -> None:
    with two_processes(tmp_path, "--chat-per-minute", "1000") as (a, b):
        g = guest_game(a)
        gid, ann, bob = g["id"], g["seats"][0]["token"], g["seats"][1]["token"]
        sockets = {}
        threads = []
        readies = []
        for srv in (a, b):
            ready = threading.Event()
            readies.append(ready)
            ws_url = srv.url.replace("http", "ws") + f"/api/games/{gid}/ws"
            box: list[list[dict[str, Any]]] = []
            sockets[srv.url] = box
            t = threading.Thread(target=lambda u=ws_url, bx=box, r=ready: bx.append(asyncio.run(collect(u, 40, r))))
            t.start()
            threads.append(t)
        assert all(r.wait(10) for r in readies)

        def writer(srv: Server, token: str, tag: str) -> None:
            for i in range(20):
                assert say(srv, gid, token, text=f"{tag}{i}").status_code == 201

        writers = [threading.Thread(target=writer, args=(a, ann, "a")), threading.Thread(target=writer, args=(b, bob, "b"))]
        for t in writers:
            t.start()
        for t in writers + threads:
            t.join(60)
        stored = chat(a, gid, 0)
        assert [m["n"] for m in stored] == list(range(1, 41))
        for box in sockets.values():
            got = box[0]
            assert [m["n"] for m in got] == list(range(1, 41))  # every message, in order, once
            assert [m["text"] for m in got] == [m["text"] for m in stored]


def test_bots_chat_only_when_the_table_asks_them(make_server: Callable[..., Server]) -> None:
    """Bots never chat, except at tables created with ``bot_chat``: then each says "Good game" once, at the end."""
    from test_api import wait_for

    srv = make_server("--janitor-interval", "0.3")
    bots = [{"name": "Bot A", "type": "bot", "bot": "heuristic"}, {"name": "Bot B", "type": "bot", "bot": "heuristic"}]
    games = {}
    for flag in (True, False):
        r = httpx.post(srv.url + "/api/games", json={"players": bots, "table": {"bot_chat": flag}, "seed": 5})
        assert r.status_code == 201, r.text
        games[flag] = r.json()["id"]
    for gid in games.values():
        wait_for(lambda gid=gid: httpx.get(f"{srv.url}/api/games/{gid}").json()["status"] == "over", timeout=120)
    said = wait_for(lambda: len(m := chat(srv, games[True])) == 2 and m, timeout=20)
    assert sorted((m["author"], m["preset"], m["seat"]) for m in said) == [("Bot A", "gg", 0), ("Bot B", "gg", 1)]
    import time
    time.sleep(1.0)  # several rounds of the keeper: still once each, and nothing where the table did not ask
    assert len(chat(srv, games[True])) == 2 and chat(srv, games[False]) == []
