"""Several server processes on one PostgreSQL database: the database is the single source of truth, moves are
taken by whichever process receives them (an optimistic revision check), and live views reach every process's
WebSockets through LISTEN/NOTIFY.  Real `hansa serve` processes, real HTTP and WebSocket clients."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy
import websockets
from server_support import POSTGRES_URL, Server, next_view, postgres_database
from test_api import wait_for

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


def create(server: Server, hotseat: bool = False) -> dict[str, Any]:
    """A game of the three HUMANS: of seat links, or with ``hotseat`` played with one hot-seat token."""
    body: dict[str, Any] = {"players": HUMANS, "seed": 4, "table": {"hotseat": hotseat}}
    r = httpx.post(server.url + "/api/games", json=body, timeout=10)
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


def test_clients_on_different_processes_see_each_others_moves_live(pair: tuple[Server, Server, str]) -> None:
    a, b, _ = pair
    g = create(a, hotseat=True)
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
        g = create(a, hotseat=True)
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
    g = create(a, hotseat=True)
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
    # b hears of a's last moves by NOTIFY, delivered at commit and applied a moment later: it catches up, nothing lost
    wait_for(lambda: view(b, gid)["version"] == len(acknowledged), 10)
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
        g = create(server, hotseat=True)
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


class BotWorkers:
    """A `hansa bots --workers 1` process (in a process group of its own, so that kill -9 takes its worker too)."""

    def __init__(self, url: str, log: Path) -> None:
        import os
        import subprocess

        from server_support import HANSA

        self.proc = subprocess.Popen(
            [HANSA, "bots", "--database-url", url, "--workers", "1", "--bot-lease", "2", "--bot-delay", "0"],
            stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True, env=os.environ.copy(),
        )

    def kill(self) -> None:
        import os
        import signal

        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def signal(self, signum: int) -> None:
        import os

        os.killpg(self.proc.pid, signum)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.kill()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[Server, Server, list[BotWorkers], str]]:
    """Two web processes with --bots queue and two bot workers on one PostgreSQL database."""
    url = postgres_database()
    a = Server(url, tmp_path / "a.log", "--bots", "queue")
    b = Server(url, tmp_path / "b.log", "--bots", "queue")
    a.start()
    b.start()
    workers = [BotWorkers(url, tmp_path / f"bots{i}.log") for i in range(2)]
    yield a, b, workers, url
    for w in workers:
        w.stop()
    a.stop()
    b.stop()


def wait_until(check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def her_turn(server: Server, gid: str, token: str, after: int) -> dict[str, Any]:
    """The view once the token's seat must decide again, after version ``after``."""

    def ready() -> dict[str, Any] | None:
        v = view(server, gid, token)
        return v if v["legal"] and v["version"] > after else None

    return wait_until(ready, timeout=60)  # type: ignore[no-any-return]


def test_bot_workers_play_the_bots_of_every_web_process(cluster: Any) -> None:
    a, b, _, url = cluster
    players = [{"name": "Ada"}, {"name": "B1", "type": "bot", "bot": "purpose"}, {"name": "B2", "type": "bot", "bot": "heuristic"}]
    r = httpx.post(a.url + "/api/games", json={"players": players, "seed": 4}, timeout=10)
    gid, ada = r.json()["id"], r.json()["seats"][0]["token"]

    async def run() -> None:
        ws = await websockets.connect(a.url.replace("http", "ws") + f"/api/games/{gid}/ws", subprotocols=["hansa"])
        try:
            for _ in range(3):  # Ada ends her turn on process B; the workers play both bots; A's socket sees it
                # The HTTP polling runs in a thread: blocking the event loop for the bots' whole turn would leave the
                # socket's pings unanswered (and the server may drop a client that does not answer them).
                v = await asyncio.to_thread(her_turn, b, gid, ada, -1)
                assert move(b, gid, ada, "end", v["version"]).status_code == 200
                back = await asyncio.to_thread(her_turn, a, gid, ada, v["version"])
                assert {1, 2} <= {e["seat"] for e in back["log"] if e["n"] > v["version"] + 1}
                assert (await next_view(ws, back["version"], timeout=30))["version"] >= back["version"]
        finally:
            await ws.close()

    asyncio.run(run())
    moves = stored_moves(url, gid)
    assert [n for n, _ in moves] == list(range(1, len(moves) + 1))


def lease_owner(url: str, gid: str) -> str | None:
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as conn:
        owner = conn.execute(sqlalchemy.text("SELECT bot_lease_owner FROM games WHERE id = :g"), {"g": gid}).scalar()
    engine.dispose()
    return owner  # type: ignore[no-any-return]


def test_a_bot_worker_killed_while_it_thinks_loses_no_bot_turn(cluster: Any) -> None:
    a, _, workers, url = cluster
    bots3 = [{"name": f"R{i}", "type": "bot", "bot": "mcts:medium"} for i in range(3)]
    gid = httpx.post(a.url + "/api/games", json={"players": bots3, "seed": 9}, timeout=10).json()["id"]
    wait_until(lambda: view(a, gid)["version"] >= 5, timeout=60)
    # kill -9 the first worker while it holds this game's turn (its name is "<host>-<pid of hansa bots>-0"):
    # frozen first (SIGSTOP), so that it cannot finish the turn between the look at the lease and the kill
    import signal

    mark = f"-{workers[0].proc.pid}-"
    for _ in range(100):
        wait_until(lambda: mark in (lease_owner(url, gid) or ""), timeout=60)
        workers[0].signal(signal.SIGSTOP)
        if mark in (lease_owner(url, gid) or ""):
            break
        workers[0].signal(signal.SIGCONT)
    workers[0].kill()
    held = view(a, gid)["version"]
    assert mark in (lease_owner(url, gid) or "")  # the dead worker's lease still holds the turn
    # once the lease (2 s) runs out, the other worker takes the turn and the game goes on
    wait_until(lambda: view(a, gid)["version"] >= held + 6, timeout=60)
    moves = stored_moves(url, gid)
    assert [n for n, _ in moves] == list(range(1, len(moves) + 1))
    assert mark not in (lease_owner(url, gid) or "")
