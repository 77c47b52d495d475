"""Several server processes on one PostgreSQL database: the database is the single source of truth, moves are
taken by whichever process receives them (an optimistic revision check), and live views reach every process's
WebSockets through LISTEN/NOTIFY.  Real `hansa serve` processes, real HTTP and WebSocket clients."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy
import websockets
from server_support import POSTGRES_URL, Server, postgres_database

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="HANSA_TEST_POSTGRES_URL is not set")

HUMANS = [{"name": "Ada"}, {"name": "Bea"}, {"name": "Cy"}]


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Server, Server, str]]:
    """Two `hansa serve` processes (as behind a load balancer) on one fresh PostgreSQL database."""
    url = postgres_database()
    a = Server(url, tmp_path / "a.log")
    b = Server(url, tmp_path / "b.log")
    a.start()
    b.start()
    yield a, b, url
    a.stop()
    b.stop()


def create(server: Server) -> dict[str, Any]:
    r = httpx.post(server.url + "/api/games", json={"players": HUMANS, "seed": 4}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def view(server: Server, gid: str, token: str | None = None) -> dict[str, Any]:
    r = httpx.get(f"{server.url}/api/games/{gid}", headers={"X-Hansa-Token": token} if token else {}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def move(server: Server, gid: str, token: str, text: str, version: int | None = None) -> httpx.Response:
    body: dict[str, Any] = {"move": text}
    if version is not None:
        body["version"] = version
    return httpx.post(f"{server.url}/api/games/{gid}/moves", json=body, headers={"X-Hansa-Token": token}, timeout=10)


def stored_moves(url: str, gid: str) -> list[tuple[int, str]]:
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(sqlalchemy.text("SELECT n, text FROM moves WHERE game_id = :g ORDER BY n"), {"g": gid})
        out = [(int(n), str(t)) for n, t in rows]
    engine.dispose()
    return out


async def next_view(ws: Any, version: int, timeout: float = 10.0) -> dict[str, Any]:
    """The first view pushed on ``ws`` at ``version`` or later."""
    async def wait() -> dict[str, Any]:
        while True:
            data = json.loads(await ws.recv())
            if data["type"] == "view" and data["view"]["version"] >= version:
                return data["view"]  # type: ignore[no-any-return]
    return await asyncio.wait_for(wait(), timeout)


def test_clients_on_different_processes_see_each_others_moves_live(pair: tuple[Server, Server, str]) -> None:
    a, b, _ = pair
    g = create(a)
    gid, hot = g["id"], g["hotseat_token"]
    assert httpx.get(a.url + "/api/stats").json()["pid"] != httpx.get(b.url + "/api/stats").json()["pid"]

    async def run() -> None:
        ws_a = await websockets.connect(a.url.replace("http", "ws") + f"/api/games/{gid}/ws", subprotocols=["hansa"])
        ws_b = await websockets.connect(b.url.replace("http", "ws") + f"/api/games/{gid}/ws", subprotocols=["hansa"])
        try:
            assert (await next_view(ws_a, 0))["version"] == 0 and (await next_view(ws_b, 0))["version"] == 0
            v = view(a, gid, hot)
            for k in range(1, 7):  # moves alternate between the processes; both sockets see every one
                server = a if k % 2 else b
                legal = [m["text"] for m in v["legal"]]
                r = move(server, gid, hot, next((t for t in legal if t.startswith("place")), legal[-1]), v["version"])
                assert r.status_code == 200, r.text
                v = r.json()
                seen_a, seen_b = await next_view(ws_a, k), await next_view(ws_b, k)
                assert seen_a["version"] == seen_b["version"] == k
                assert seen_a["state"] == seen_b["state"] == v["state"]
        finally:
            await ws_a.close()
            await ws_b.close()

    asyncio.run(run())


def send_at_once(server: Server, start: threading.Barrier, results: list[httpx.Response], gid: str, token: str,
                 text: str) -> None:
    start.wait()
    results.append(move(server, gid, token, text, 0))


def test_the_same_move_sent_to_two_processes_at_once_is_taken_once(pair: tuple[Server, Server, str]) -> None:
    a, b, url = pair
    for round_ in range(5):
        g = create(a)
        gid, hot = g["id"], g["hotseat_token"]
        view(b, gid)  # both processes hold the game in memory
        v = view(a, gid, hot)
        text = next(m["text"] for m in v["legal"] if m["text"].startswith("place"))
        results: list[httpx.Response] = []
        start = threading.Barrier(2)
        threads = [threading.Thread(target=send_at_once, args=(s, start, results, gid, hot, text)) for s in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(r.status_code for r in results) == [200, 409], (round_, [r.text for r in results])
        assert stored_moves(url, gid) == [(1, text)]
        assert view(a, gid)["version"] == view(b, gid)["version"] == 1


def test_kill_9_of_a_process_loses_no_acknowledged_move(pair: tuple[Server, Server, str]) -> None:
    a, b, url = pair
    g = create(a)
    gid, hot = g["id"], g["hotseat_token"]
    acknowledged = []
    v = view(a, gid, hot)
    for k in range(12):
        server = a if k % 3 else b
        legal = [m["text"] for m in v["legal"]]
        text = next((t for t in legal if t.startswith("place")), legal[-1])
        r = move(server, gid, hot, text)
        assert r.status_code == 200, r.text
        v = r.json()
        acknowledged.append(text)
    a.kill()
    assert [t for _, t in stored_moves(url, gid)] == acknowledged
    assert view(b, gid)["version"] == len(acknowledged)
    a.start()
    assert view(a, gid)["version"] == len(acknowledged) and view(a, gid)["state"] == view(b, gid)["state"]


def test_serve_workers_runs_several_processes_on_one_port(tmp_path: Path) -> None:
    server = Server(postgres_database(), tmp_path / "w.log", "--workers", "2")
    server.start()
    try:
        pids: set[int] = set()
        deadline = time.monotonic() + 30  # the second process may still be starting
        while len(pids) < 2 and time.monotonic() < deadline:
            pids.add(httpx.get(server.url + "/api/stats", timeout=10).json()["pid"])  # a new connection each time
        assert len(pids) == 2
        g = create(server)
        v = view(server, g["id"], g["hotseat_token"])
        for _ in range(4):  # every request may land on either process; each sees the last move
            text = next(m["text"] for m in v["legal"] if m["text"].startswith(("place", "end")))
            r = move(server, g["id"], g["hotseat_token"], text, v["version"])
            assert r.status_code == 200, r.text
            v = r.json()
    finally:
        server.stop()
    sqlite = Server(f"sqlite:///{tmp_path / 'x.sqlite3'}", tmp_path / "s.log", "--workers", "2")
    with pytest.raises(RuntimeError, match="needs a PostgreSQL database"):
        sqlite.start()
