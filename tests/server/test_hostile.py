"""A real `hansa serve` against hostile and careless clients, bad data and overload (docs/api.md lists every limit).

Each test names the audit item it covers; each fails on a server without the protection it checks.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from server_support import HANSA, POSTGRES_URL, Server, postgres_database
from test_api import auth, create, run_coroutine, view, wait_for

HUMAN = {"name": "Ann", "type": "human"}
BOT = {"name": "Bot", "type": "bot", "bot": "purpose"}


def post_move(server: Server, gid: str, token: str | None, body: Any, timeout: float = 10) -> httpx.Response:
    return httpx.post(f"{server.url}/api/games/{gid}/moves", headers=auth(token), json=body, timeout=timeout)


def is_api_error(r: httpx.Response, status: int | None = None) -> bool:
    """An error in the documented format (a 4xx unless ``status`` says otherwise), small (no echo of large input)."""
    ok = r.status_code == status if status is not None else 400 <= r.status_code < 500
    body = r.json()
    return ok and set(body) == {"error", "rule"} and isinstance(body["error"], str) and len(r.content) < 1000


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def sqlite_file(server: Server) -> str:
    assert server.database_url.startswith("sqlite:///")
    return server.database_url.removeprefix("sqlite:///")


# ---------------------------------------------------------------------------------------------- raw WebSockets


class RawSocket:
    """A WebSocket client on a bare TCP socket with a tiny receive buffer: it can stop reading, or flood."""

    def __init__(self, server: Server, gid: str, token: str | None = None) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect(("127.0.0.1", server.port))
        key = base64.b64encode(os.urandom(16)).decode()
        protocols = f"Sec-WebSocket-Protocol: hansa, hansa.token.{token}\r\n" if token else ""
        self.sock.sendall(
            (f"GET /api/games/{gid}/ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{protocols}\r\n").encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            assert chunk, "connection closed during the handshake"
            head += chunk
        self.status = int(head.split()[1])

    def send_text(self, text: str) -> None:
        payload = text.encode()
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        assert len(payload) < 126
        self.sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)

    def closed_by_server(self, timeout: float) -> bool:
        """Read everything; True if the server closed (or reset) the connection within ``timeout`` seconds."""
        self.sock.settimeout(timeout)
        deadline = time.time() + timeout
        try:
            while time.time() < deadline:
                if not self.sock.recv(65536):
                    return True
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
        return False

    def close(self) -> None:
        self.sock.close()


def play_random_moves(server: Server, gid: str, token: str | list[str], n: int, seed: int = 1) -> list[float]:
    """Play ``n`` moves (random legal moves, never ending the game on purpose) with the hot-seat token, or with every
    seat's token (a list by seat: each move with the deciding seat's); returns the seconds each move POST took."""
    rng = random.Random(seed)

    def token_of(v: dict[str, Any]) -> str:
        return token[v["state"]["turn"]["decider"]] if isinstance(token, list) else token

    def deciders_view(v: dict[str, Any]) -> dict[str, Any]:
        """The view as the deciding seat sees it (a seat token's answer has no legal moves on others' decisions)."""
        return v if v["legal"] or v["status"] != "running" else view(server, gid, token_of(v))

    v = deciders_view(view(server, gid, token[0] if isinstance(token, list) else token))
    times = []
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for _ in range(n):
            legal = [m["text"] for m in v["legal"]]
            preferred = [m for m in legal if m.split()[0] in ("place", "claim", "relocate", "marker")]
            text = rng.choice(preferred or legal)
            t0 = time.perf_counter()
            r = client.post(f"/api/games/{gid}/moves", headers=auth(token_of(v)),
                            json={"move": text, "version": v["version"], "seat": v["state"]["turn"]["decider"]})
            times.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.text
            v = r.json()
            if v["status"] != "running":
                break
            v = deciders_view(v)
    return times


# ---------------------------------------------------------------------------------------------- 1. slow sockets


def test_non_reading_and_flooding_sockets_never_delay_moves(make_server: Any) -> None:
    """Audit 1: a spectator socket that never reads, and one that floods pings without reading, while 800 moves of a
    four-player game are played (more views than the kernel's socket buffers hold): every move is answered in under
    a second; the flooder is closed (1008), the stalled reader is dropped after --ws-send-timeout, and a
    well-behaved watcher still gets the latest view."""
    server = make_server("--ws-send-timeout", "2")
    g = create(server, [HUMAN, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}], hotseat=True, seed=3)
    gid, hot = g["id"], g["hotseat_token"]
    stalled = RawSocket(server, gid)
    flooder = RawSocket(server, gid)
    assert stalled.status == 101 and flooder.status == 101
    for _ in range(200):
        flooder.send_text('{"type":"ping"}')
    times = play_random_moves(server, gid, hot, 800)
    assert len(times) == 800 and max(times) < 1.0, f"slowest move {max(times):.2f} s"
    wait_for(lambda: httpx.get(server.url + "/api/stats").json()["sockets"] == 0, timeout=15)
    assert flooder.closed_by_server(5)
    assert stalled.closed_by_server(5)
    version = view(server, gid)["version"]

    async def watch() -> int:
        async with websockets.connect(server.url.replace("http", "ws") + f"/api/games/{gid}/ws") as ws:
            return int(json.loads(await asyncio.wait_for(ws.recv(), 5))["view"]["version"])

    assert run_coroutine(watch()) == version
    stalled.close()
    flooder.close()


def test_socket_limits(make_server: Any) -> None:
    """Audit 5: WebSockets per client and per game are capped (429 before the upgrade); a seat holder still gets in
    when the spectator places are taken; oversized client messages close the socket."""
    server = make_server("--ws-per-client", "3", "--ws-per-game", "2")
    g = create(server, [HUMAN, {"name": "Bo"}], seed=5)
    gid, token = g["id"], g["seats"][0]["token"]
    url = server.url.replace("http", "ws") + f"/api/games/{gid}/ws"

    async def scenario() -> list[Any]:
        out: list[Any] = []
        spectators = [await websockets.connect(url) for _ in range(2)]
        try:
            await websockets.connect(url)
        except websockets.InvalidStatus as exc:
            out.append(exc.response.status_code)
            out.append(json.loads(exc.response.body)["error"])
        player = await websockets.connect(url, subprotocols=["hansa", "hansa.token." + token])
        out.append(json.loads(await player.recv())["view"]["you"])
        other = create(server, [HUMAN, {"name": "Bo"}], seed=6)["id"]
        try:
            await websockets.connect(server.url.replace("http", "ws") + f"/api/games/{other}/ws")
        except websockets.InvalidStatus as exc:
            out.append(exc.response.status_code)
        await player.send("x" * 10_000)
        try:
            await asyncio.wait_for(player.recv(), 5)
            await asyncio.wait_for(player.recv(), 5)
        except websockets.ConnectionClosed as exc:
            out.append(exc.rcvd.code if exc.rcvd else None)
        for ws in spectators:
            await ws.close()
        return out

    status, message, you, status_client, code = run_coroutine(scenario())
    assert status == 429 and "spectators" in message
    assert you == [0]
    assert status_client == 429
    assert code == 1009


# ---------------------------------------------------------------------------------------------- 2. hidden markers


def test_running_game_hides_seed_until_the_end(make_server: Any) -> None:
    """Audit 2: the record of a running game has no seed (so the face-down order cannot be replayed); stopping the
    game publishes it; a chosen seed is shown to every seat and spectator; spectators and players see the same
    public state."""
    server = make_server()
    g = create(server, [HUMAN, {"name": "Bo"}])
    gid, seats = g["id"], [s["token"] for s in g["seats"]]
    assert g["seed"] is None
    play_random_moves(server, gid, seats, 30)
    record = httpx.get(f"{server.url}/api/games/{gid}/record").json()
    assert record["seed"] is None and len(record["moves"]) == 30
    # the same in a hot-seat game, for its hot-seat token
    h = create(server, [HUMAN, {"name": "Bo"}], hotseat=True)
    hot = h["hotseat_token"]
    assert h["seed"] is None
    play_random_moves(server, h["id"], hot, 10)
    for game_id, token in ((gid, None), (gid, seats[0]), (gid, seats[1]), (h["id"], None), (h["id"], hot)):
        v = view(server, game_id, token)
        assert v["seed"] is None
        assert "marker_supply" not in json.dumps(v) and isinstance(v["state"]["hidden_markers"], int)
    assert view(server, gid, seats[0])["state"] == view(server, gid)["state"] == view(server, gid, seats[1])["state"]
    assert view(server, h["id"], hot)["state"] == view(server, h["id"])["state"]
    lobby = httpx.get(server.url + "/api/games").json()["games"]
    assert [e["seed"] for e in lobby if e["id"] == gid] == [None]
    r = httpx.post(f"{server.url}/api/games/{gid}/stop", headers=auth(g["creator_token"]))
    assert r.status_code == 200 and r.json()["status"] == "stopped"
    record = httpx.get(f"{server.url}/api/games/{gid}/record").json()
    assert isinstance(record["seed"], int)  # published now that the game has ended
    from hansa.record import game_from_record

    assert len(game_from_record(record).moves) == 30  # the published record replays
    chosen = create(server, [HUMAN, {"name": "Bo"}], seed=77)
    assert chosen["seed"] == 77
    assert [view(server, chosen["id"], token)["seed"] for token in (None, *(s["token"] for s in chosen["seats"]))] == [77] * 3
    chosen_hot = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=78)
    assert chosen_hot["seed"] == 78 and view(server, chosen_hot["id"], chosen_hot["hotseat_token"])["seed"] == 78
    lobby = httpx.get(server.url + "/api/games").json()["games"]
    assert [e["seed"] for e in lobby if e["id"] == chosen["id"]] == [77]


# ---------------------------------------------------------------------------------------------- 3, 8. bad input


def test_oversize_bodies_and_headers(make_server: Any) -> None:
    """Audit 3: a 100 MB body is refused by its Content-Length (413) or after 64 KiB when streamed; multi-MB
    headers get 431; nothing is echoed and the server's memory stays put."""
    server = make_server()
    g = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=9)
    gid, hot = g["id"], g["hotseat_token"]
    assert server.proc is not None
    before = rss_kb(server.proc.pid)
    big = b'{"move": "' + b"x" * (100 * 1024 * 1024) + b'"}'
    r = httpx.post(f"{server.url}/api/games/{gid}/moves", headers={**auth(hot), "Content-Type": "application/json"},
                   content=big, timeout=30)
    assert r.status_code == 413 and is_api_error(r, 413)

    def chunks() -> Any:
        yield b'{"move": "'
        for _ in range(100):
            yield b"x" * (1024 * 1024)
        yield b'"}'

    try:
        r = httpx.post(f"{server.url}/api/games/{gid}/moves", headers={**auth(hot), "Content-Type": "application/json"},
                       content=chunks(), timeout=30)
        assert r.status_code == 413 and is_api_error(r, 413)
    except (httpx.WriteError, httpx.RemoteProtocolError, httpx.ReadError):
        pass  # the server answered 413 and closed while the client was still sending: also a refusal
    r = httpx.get(f"{server.url}/api/games/{gid}", headers={"X-Junk": "y" * (4 * 1024 * 1024)}, timeout=30)
    assert r.status_code == 431 and is_api_error(r, 431)
    r = httpx.get(f"{server.url}/api/games/{gid}", headers={f"X-H{i}": "z" * 100 for i in range(400)}, timeout=30)
    assert r.status_code == 431
    assert rss_kb(server.proc.pid) - before < 50_000
    assert view(server, gid, hot)["version"] == 0


def test_malformed_requests_get_4xx_and_change_nothing(make_server: Any) -> None:
    """Audit 8: NaN, Infinity, invalid UTF-8, deep nesting, huge numbers, wrong types, unknown fields, long names and
    moves, bad ids and cursors: each a 4xx in the {"error", "rule"} format, and the game is unchanged."""
    server = make_server()
    g = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=4)
    gid, hot = g["id"], g["hotseat_token"]
    before = view(server, gid, hot)
    headers = {**auth(hot), "Content-Type": "application/json"}
    raw_bodies = [
        b'{"move": NaN}', b'{"move": Infinity}', b'{"move": -Infinity, "version": 0}', b'{"move": "end", "version": NaN}',
        b'{"move": "\xff\xfe"}', b"\xc3\x28", b"[" * 50_000, b'{"move": "end", "version": ' + b"9" * 10_000 + b"}",
        b"", b"null", b"[]", b'"end"', b'{"move": {"type": "place", "house": "' + b"A" * 5000 + b'"}}',
        b'{"move": "' + b"x" * 5000 + b'"}', b'{"move": "end", "seat": 9}', b'{"move": "end", "bogus": 1}',
        b'{"move": {"type": "place", "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8}}',
        b'{"move": {"type": "place", "house": {"nested": [1, 2, 3]}}}', b'{"move": ["place"]}', b'{"move": true}',
    ]
    for body in raw_bodies:
        r = httpx.post(f"{server.url}/api/games/{gid}/moves", headers=headers, content=body, timeout=10)
        assert is_api_error(r), (body[:60], r.status_code, r.text[:200])
        assert "NaN" not in r.text or r.status_code == 400
    bad_creates = [
        {"players": [HUMAN, {"name": "x" * 31}]}, {"players": [HUMAN, {"name": "\u0085\u0085"}]},
        {"players": [HUMAN, {"name": "B", "type": "bot", "bot": "mcts:seconds=3600"}]},
        {"players": [HUMAN, {"name": "Bo"}], "options": {f"o{i}": i for i in range(40)}},
        {"players": [HUMAN, {"name": "Bo"}], "options": {"marker_set": ["IT4"]}},
        {"players": [HUMAN, {"name": "Bo"}], "seed": 2**53}, {"players": [HUMAN, {"name": "Bo"}], "creator": "me"},
        {"players": [HUMAN, {"name": "Bo"}], "table": {"hotseat": True, "seats": 2}},
        {"players": [HUMAN, {"name": "B\u2067o"}]}, {"players": [HUMAN, {"name": "a\u0301nn"}, {"name": "\u00e1nn"}]},
    ]
    for body in bad_creates:
        assert is_api_error(httpx.post(server.url + "/api/games", json=body, timeout=10)), body
    for path in (f"/api/games/{'x' * 5000}", "/api/games/%00%ff", f"/api/games/{gid}/replay/-1",
                 f"/api/games/{gid}/replay/{'9' * 5000}", f"/api/games/{gid}/replay/abc", "/api/games?limit=0",
                 "/api/games?limit=abc", "/api/games?before=%%%", "/api/games?status=bogus", "/api/boards/" + "9" * 500,
                 "/api/nothing", f"/api/games/{gid}/record/extra"):
        r = httpx.get(server.url + path, timeout=10)
        assert is_api_error(r), (path, r.status_code, r.text[:200])
    r = httpx.put(server.url + "/api/games", timeout=10)
    assert is_api_error(r, 405)
    r = httpx.post(f"{server.url}/api/games/{gid}/undo", headers=headers, content=b'{"version": "x"}', timeout=10)
    assert is_api_error(r, 400)
    # tokens only count in the header: a seat token in the URL controls nothing
    r = httpx.get(f"{server.url}/api/games/{gid}", params={"token": hot}, timeout=10)
    assert r.json()["you"] == []
    after = view(server, gid, hot)
    assert after == before


# ---------------------------------------------------------------------------------------------- 4, 5. caps


def test_creation_rate_and_live_game_limits(make_server: Any) -> None:
    """Audit 5: games created per client per minute and games in play are capped (429 with Retry-After)."""
    server = make_server("--create-per-minute", "5")
    for _ in range(5):
        create(server, [HUMAN, BOT])
    r = httpx.post(server.url + "/api/games", json={"players": [HUMAN, BOT]}, timeout=10)
    assert is_api_error(r, 429) and 1 <= int(r.headers["Retry-After"]) <= 12
    server2 = make_server("--max-live-games", "2")
    first = create(server2, [HUMAN, BOT])
    create(server2, [HUMAN, BOT])
    r = httpx.post(server2.url + "/api/games", json={"players": [HUMAN, BOT]}, timeout=10)
    assert is_api_error(r, 429) and r.headers["Retry-After"]
    # a stopped game no longer counts
    assert httpx.post(f"{server2.url}/api/games/{first['id']}/stop", headers=auth(first["creator_token"])).status_code == 200
    create(server2, [HUMAN, BOT])


def test_lobby_is_paged_summaries(make_server: Any) -> None:
    """Audit 4: the lobby answers pages of summaries (no positions), linked by cursors."""
    server = make_server()
    made = [create(server, [HUMAN, BOT])["id"] for _ in range(7)]
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 3}
        if cursor:
            params["before"] = cursor
        page = httpx.get(server.url + "/api/games", params=params).json()
        assert len(page["games"]) <= 3
        for entry in page["games"]:
            assert set(entry) == {"id", "created", "updated", "players", "status", "note", "turn", "moves", "seed", "map"}
            assert entry["map"] == "base"
        seen += [e["id"] for e in page["games"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == made[::-1]
    assert httpx.get(server.url + "/api/games", params={"status": "over"}).json()["games"] == []


def test_creator_stops_and_deletes_and_bot_games_have_a_budget(make_server: Any) -> None:
    """Audit 5: the creator (only the creator) can stop and delete a game; bot-only games stop at the move budget;
    watchers of a deleted game are told (4410)."""
    server = make_server("--bot-move-budget", "40")
    bots = create(server, [BOT, {"name": "B2", "type": "bot", "bot": "random"}], seed=8)
    v = wait_for(lambda: (lambda x: x if x["status"] != "running" else None)(view(server, bots["id"])))
    assert v["status"] == "stopped" and "40 moves" in v["note"] and v["version"] == 40
    assert isinstance(v["seed"], int)  # published once the game has ended
    g = create(server, [HUMAN, BOT])
    gid = g["id"]
    hot = create(server, [HUMAN, BOT], hotseat=True)
    for game, token in ((g, None), (g, g["seats"][0]["token"]), (hot, None), (hot, hot["hotseat_token"])):
        assert is_api_error(httpx.post(f"{server.url}/api/games/{game['id']}/stop", headers=auth(token)), 403)
        assert is_api_error(httpx.delete(f"{server.url}/api/games/{game['id']}", headers=auth(token)), 403)

    async def watch_delete() -> int | None:
        async with websockets.connect(server.url.replace("http", "ws") + f"/api/games/{gid}/ws") as ws:
            await ws.recv()
            await asyncio.to_thread(httpx.delete, f"{server.url}/api/games/{gid}", headers=auth(g["creator_token"]))
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), 5)
            except websockets.ConnectionClosed as exc:
                return exc.rcvd.code if exc.rcvd else None

    assert run_coroutine(watch_delete()) == 4410
    assert httpx.get(f"{server.url}/api/games/{gid}").status_code == 404
    assert gid not in [e["id"] for e in httpx.get(server.url + "/api/games").json()["games"]]


def test_idle_games_are_abandoned_and_leave_memory(make_server: Any) -> None:
    """Audit 5: a game idle past --abandon-after is marked abandoned (no more moves, seed published); games nobody
    watches leave memory after --evict-after and load again on demand."""
    server = make_server("--abandon-after", "2", "--evict-after", "1", "--janitor-interval", "0.3")
    g = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=12)
    gid, hot = g["id"], g["hotseat_token"]
    play_random_moves(server, gid, hot, 5)
    wait_for(lambda: httpx.get(server.url + "/api/stats").json()["games_in_memory"] == 0, timeout=10)
    v = view(server, gid, hot)  # loaded again from the database
    assert v["version"] == 5 and v["status"] == "running"
    v = wait_for(lambda: (lambda x: x if x["status"] == "abandoned" else None)(view(server, gid, hot)), timeout=10)
    assert v["legal"] == [] and "no move" in v["note"] and v["seed"] == 12
    r = post_move(server, gid, hot, {"move": "end", "version": 5})
    assert is_api_error(r, 409) and "abandoned" in r.json()["error"]


# ---------------------------------------------------------------------------------------------- 6. bots and the database


def test_bot_survives_a_locked_database(make_server: Any) -> None:
    """Audit 6: while another process holds SQLite's write lock past the busy timeout, the bots' moves fail; the
    game shows the error, a human's move gets 503 (nothing changed), and the bots go on once the lock is gone."""
    server = make_server("--db-busy-timeout", "0.3", "--bot-delay", "0.05")
    g = create(server, [BOT, {"name": "B2", "type": "bot", "bot": "random"}], seed=14)
    gid = g["id"]
    wait_for(lambda: view(server, gid)["version"] > 3)
    human = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=15)
    blocker = sqlite3.connect(sqlite_file(server), timeout=10, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        held = view(server, gid)["version"]
        v = wait_for(lambda: (lambda x: x if x.get("error") else None)(view(server, gid)), timeout=20)
        assert "database" in v["error"] and v["version"] in (held, held + 1)
        r = post_move(server, human["id"], human["hotseat_token"], {"move": "end", "version": 0})
        assert is_api_error(r, 503) and r.headers["Retry-After"]
        assert view(server, human["id"])["version"] == 0
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    v = wait_for(lambda: (lambda x: x if x["version"] > held + 5 and x["error"] is None else None)(view(server, gid)), timeout=40)
    assert v["status"] in ("running", "over")


# ---------------------------------------------------------------------------------------------- 7. damaged data


def test_damaged_rows_are_quarantined_and_the_rest_plays(make_server: Any, tmp_path: Path) -> None:
    """Audit 7: a row with invalid options JSON, one with a garbage move, one with a missing move: the server still
    starts, lists the three as damaged with the first bad move, refuses to serve them (409) and plays the others;
    `hansa db check` reports all three."""
    server = make_server()
    ids = {}
    for name in ("options", "garbage", "missing", "healthy", "bots"):
        players = [BOT, {"name": "B2", "type": "bot", "bot": "random"}] if name == "bots" else [HUMAN, {"name": "Bo"}]
        g = create(server, players, hotseat=name != "bots", seed=20)
        ids[name] = g
        if name != "bots":
            play_random_moves(server, g["id"], g["hotseat_token"], 12)
    wait_for(lambda: view(server, ids["bots"]["id"])["version"] > 12)
    server.stop()
    db = sqlite3.connect(sqlite_file(server))
    db.execute("UPDATE games SET options = '{not json' WHERE id = ?", (ids["options"]["id"],))
    db.execute("UPDATE moves SET text = 'fly me to the moon' WHERE game_id = ? AND n = 7", (ids["garbage"]["id"],))
    db.execute("DELETE FROM moves WHERE game_id = ? AND n = 5", (ids["missing"]["id"],))
    db.execute("UPDATE games SET players = 'garbage' WHERE id = ?", (ids["bots"]["id"],))
    db.commit()
    db.close()
    server.start()  # the service starts although a game it must restore (the bots') is damaged

    def damaged() -> dict[str, str] | None:
        games = httpx.get(server.url + "/api/games", params={"limit": 100}).json()["games"]
        found = {e["id"]: e["note"] for e in games if e["status"] == "damaged"}
        return found if len(found) == 4 else None

    notes = wait_for(damaged, timeout=20)
    assert "options" in notes[ids["options"]["id"]]
    assert "move 7" in notes[ids["garbage"]["id"]]
    assert "move 5" in notes[ids["missing"]["id"]]
    assert "players" in notes[ids["bots"]["id"]]
    for name in ("options", "garbage", "missing", "bots"):
        r = httpx.get(f"{server.url}/api/games/{ids[name]['id']}")
        assert is_api_error(r, 409) and "damaged" in r.json()["error"]
    healthy = ids["healthy"]
    assert view(server, healthy["id"])["version"] == 12
    assert len(play_random_moves(server, healthy["id"], healthy["hotseat_token"], 3)) == 3
    server.stop()
    out = subprocess.run([HANSA, "db", "check", "--database-url", server.database_url, "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["games"] == 5
    assert {d["id"]: d["move"] for d in report["damaged"]} == {
        ids["options"]["id"]: None, ids["garbage"]["id"]: 7, ids["missing"]["id"]: 5, ids["bots"]["id"]: None,
    }


# ---------------------------------------------------------------------------------------------- 9. the rest


def test_security_headers_everywhere(make_server: Any) -> None:
    """Audit 9: CSP with frame-ancestors, nosniff, no referrer on every page, static file and API answer; join
    links carry the token in the fragment."""
    server = make_server()
    g = create(server, [HUMAN, BOT])
    assert g["seats"][0]["url"] == f"/game/{g['id']}#token={g['seats'][0]['token']}"
    hot = create(server, [HUMAN, BOT], hotseat=True)
    assert hot["hotseat_url"] == f"/game/{hot['id']}#token={hot['hotseat_token']}"
    for path in ("/", f"/game/{g['id']}", f"/replay/{g['id']}", "/static/js/api.js", "/api/bots", "/api/nothing"):
        r = httpx.get(server.url + path)
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
        assert r.headers["x-frame-options"] == "DENY"


def test_children_die_with_the_server_after_kill_9(make_server: Any) -> None:
    """Audit 9: the MCTS worker processes end when the server is killed with SIGKILL."""
    server = make_server("--bot-processes", "2")
    g = create(server, [{"name": "M1", "type": "bot", "bot": "mcts:easy"}, {"name": "M2", "type": "bot", "bot": "mcts:easy"}])
    wait_for(lambda: view(server, g["id"])["version"] > 2, timeout=60)
    assert server.proc is not None
    kids = children(server.proc.pid)
    assert len(kids) >= 2  # the workers (and multiprocessing's resource tracker)
    server.kill()
    wait_for(lambda: not any(alive(pid) for pid in kids), timeout=10)


def test_undo_of_a_client_that_gave_up_is_not_carried_out(make_server: Any) -> None:
    """Audit 9: an undo that waited for the game while its client timed out and left is not carried out later."""
    server = make_server("--db-busy-timeout", "4")
    g = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=31)
    gid, hot = g["id"], g["hotseat_token"]
    v = view(server, gid, hot)
    first = next(m["text"] for m in v["legal"] if m["text"].startswith("place"))
    v = post_move(server, gid, hot, {"move": first, "version": 0}).json()
    second = next(m["text"] for m in v["legal"] if m["text"].startswith("place"))
    blocker = sqlite3.connect(sqlite_file(server), timeout=10, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    results: dict[str, Any] = {}

    def slow_move() -> None:  # holds the game's lock while its write waits for the database
        results["move"] = post_move(server, gid, hot, {"move": second, "version": 1}, timeout=30).status_code

    mover = threading.Thread(target=slow_move)
    mover.start()
    time.sleep(0.5)
    with pytest.raises(httpx.TimeoutException):
        httpx.post(f"{server.url}/api/games/{gid}/undo", headers=auth(hot), json={}, timeout=0.7)
    time.sleep(0.5)
    blocker.execute("ROLLBACK")
    blocker.close()
    mover.join()
    assert results["move"] == 200
    time.sleep(1.0)
    v = view(server, gid, hot)
    assert v["version"] == 2 and v["undo"] == 2  # the undo was dropped: both moves stand


def test_human_is_served_before_bot_only_games(make_server: Any) -> None:
    """Audit 5: with one MCTS worker busy with six games of mcts:hard bots, a human's mcts:easy opponent still
    answers first: games with a human seat are served first.  Measured by moves, not seconds (a loaded machine
    slows every decision): while the human waits for the bot's answer, the hard games may finish the decision in
    progress when each of the easy bot's decisions is asked for, no more; served in turn, each easy decision would
    wait behind about six hard ones (one per game)."""
    server = make_server("--bot-processes", "1")
    hard = {"type": "bot", "bot": "mcts:hard"}
    hard_ids = [create(server, [{"name": f"H{i}a", **hard}, {"name": f"H{i}b", **hard}])["id"] for i in range(6)]
    time.sleep(2)
    g = create(server, [HUMAN, {"name": "Easy", "type": "bot", "bot": "mcts:easy"}], seed=41)
    gid, token = g["id"], g["seats"][0]["token"]

    def hard_moves() -> int:
        return sum(view(server, h)["version"] for h in hard_ids)

    waits = []
    for _ in range(3):
        v = wait_for(lambda: (lambda x: x if x["legal"] else None)(view(server, gid, token)), timeout=60)
        legal = [m["text"] for m in v["legal"]]
        text = "end" if "end" in legal else legal[0]
        t0, hard_before = time.perf_counter(), hard_moves()
        assert post_move(server, gid, token, {"move": text, "version": v["version"]}).status_code == 200
        answered = wait_for(lambda: (lambda x: x if x["legal"] else None)(view(server, gid, token)), timeout=60)
        easy_decisions = answered["version"] - v["version"] - 1  # the bot's moves after the human's one
        hard_during = hard_moves() - hard_before
        waits.append((round(time.perf_counter() - t0, 2), easy_decisions, hard_during))
        assert easy_decisions >= 1, waits
        assert hard_during <= easy_decisions + 1, waits
    assert hard_moves() > 0  # the hard games were playing all along


@pytest.mark.skipif(not POSTGRES_URL, reason="HANSA_TEST_POSTGRES_URL is not set")
def test_hostile_basics_on_postgresql(tmp_path: Path) -> None:
    """The limits and the error format hold on PostgreSQL too."""
    server = Server(postgres_database(), tmp_path / "pg.log", "--create-per-minute", "3")
    server.start()
    try:
        g = create(server, [HUMAN, {"name": "Bo"}], hotseat=True)
        r = httpx.post(f"{server.url}/api/games/{g['id']}/moves", headers={**auth(g["hotseat_token"]), "Content-Type": "application/json"},
                       content=b'{"move": NaN}')
        assert is_api_error(r, 400)
        create(server, [HUMAN, BOT])
        create(server, [HUMAN, BOT])
        assert is_api_error(httpx.post(server.url + "/api/games", json={"players": [HUMAN, BOT]}), 429)
        play_random_moves(server, g["id"], g["hotseat_token"], 10)
        assert httpx.post(f"{server.url}/api/games/{g['id']}/stop", headers=auth(g["creator_token"])).json()["status"] == "stopped"
    finally:
        server.stop()

