"""Load benchmark: N concurrent simulated clients play bot-driven games against `hansa serve` process(es).

Each client creates a two-player game in which it holds both seats (hot-seat token), keeps a WebSocket open
to receive the live views, and plays every decision by choosing a legal move with a bot policy (claim when
possible, else build on own routes) and POSTing it.  A client waits ``--think`` seconds (uniformly 0.5x-1.5x)
between moves, like a quick player; ``--think 0`` measures saturation throughput.  Reported: completed moves,
moves per second, and the latency of the move POST (request sent -> response with the new view received),
p50 / p90 / p99 / max.  The clients join evenly over ``--ramp`` seconds (creating their game and opening the
WebSocket); moves are counted and timed from the moment all have joined, for ``--seconds`` seconds.  Game
creation latency is reported separately.

    python benchmarks/bench_server.py --clients 50 200 --seconds 60 --think 1.0 --ramp 10

The server runs with SQLite (the default database) in its own process; the clients run in this process.
``--database-url postgresql://...`` runs it on PostgreSQL, and ``--processes P`` starts P `hansa serve`
processes on that database (as behind a load balancer: client i talks to process i mod P, its moves' views reach
the other processes through LISTEN/NOTIFY).  The database's write rate during the measured window is reported
(PostgreSQL: committed transactions per second from pg_stat_database; both: moves stored per second).
The client process runs with garbage collection off (its pauses are not the server's latency).
Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

#: The server is an older hansa (``--legacy``).
LEGACY = False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def choose(view: dict[str, Any], rng: random.Random) -> str:
    """Bot-driven client policy on the view's legal moves: claim with a benefit if possible, else prefer
    placing/moving onto routes without opponents, else anything but ending the turn early."""
    legal = [m["text"] for m in view["legal"]]
    claims = [m for m in legal if m.startswith("claim")]
    if claims:
        better = [m for m in claims if len(m.split()) > 2]
        return rng.choice(better or claims)
    houses = view["state"]["houses"]
    seat = view["state"]["turn"]["decider"]

    def own_route(house: str) -> bool:
        route = house.split(":")[0]
        return all(v[0] == seat for k, v in houses.items() if k.startswith(route + ":"))

    builds = [m for m in legal if m.split()[0] in ("place", "drop", "relocate") and own_route(m.split()[-1])]
    if builds and rng.random() < 0.8:
        return rng.choice(builds)
    rest = [m for m in legal if m not in ("end", "done")]
    return rng.choice(rest or legal)


async def client(
    base: str, seed: int, start_at: float, measure_from: float, until: float, think: float,
    latencies: list[float], creations: list[float], errors: list[str], http: httpx.AsyncClient,
) -> int:
    rng = random.Random(seed)
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    t0 = time.perf_counter()
    # a hot-seat game: one token plays both human seats (an older server, before hot seat was a choice, gives every
    # game a hot-seat token and refuses the field)
    body: dict[str, Any] = {"players": [{"name": f"c{seed}a"}, {"name": f"c{seed}b"}], "seed": seed}
    if not LEGACY:
        body["table"] = {"hotseat": True}
    r = await http.post("/api/games", json=body)
    r.raise_for_status()
    game = r.json()
    gid, token = game["id"], game["hotseat_token"]
    creations.append(time.perf_counter() - t0)
    moves = 0
    ws_url = base.replace("http", "ws") + f"/api/games/{gid}/ws"
    headers = {"X-Hansa-Token": token}
    async with websockets.connect(ws_url, max_size=2**24, additional_headers=headers) as ws:
        view = json.loads(await ws.recv())["view"]
        while time.perf_counter() < until and view["status"] == "running":
            if think:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            move = choose(view, rng)
            t0 = time.perf_counter()
            try:
                r = await http.post(f"/api/games/{gid}/moves", headers=headers, json={"move": move, "version": view["version"]})
            except httpx.TransportError as exc:
                errors.append(f"transport: {exc!r}")
                view = (await http.get(f"/api/games/{gid}", headers=headers)).json()
                continue
            elapsed = time.perf_counter() - t0
            measured = t0 >= measure_from
            if measured:
                latencies.append(elapsed)
            if r.status_code != 200:
                errors.append(f"{r.status_code} {r.text[:120]}")
                view = (await http.get(f"/api/games/{gid}", headers=headers)).json()
                continue
            view = r.json()
            moves += measured
            # drain pushed views (the response already carries the newest one)
            try:
                while True:
                    json.loads(await asyncio.wait_for(ws.recv(), 0.0001))
            except TimeoutError:
                pass
    return moves


def database_counters(url: str | None) -> dict[str, int]:
    """Moves stored so far, and on PostgreSQL the database's committed transactions."""
    if url is None:
        return {}
    import sqlalchemy

    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as conn:
        out = {"moves": int(conn.execute(sqlalchemy.text("SELECT count(*) FROM moves")).scalar_one())}
        if engine.dialect.name == "postgresql":
            out["commits"] = int(conn.execute(sqlalchemy.text(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")).scalar_one())
    engine.dispose()
    return out


async def run(bases: list[str], clients: int, seconds: float, think: float, ramp: float,
              database: str | None = None) -> dict[str, Any]:
    latencies: list[float] = []
    creations: list[float] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
    https = [httpx.AsyncClient(base_url=b, timeout=60, limits=limits) for b in bases]
    try:
        begin = time.perf_counter()
        start = begin + ramp  # every client has joined: the measured window starts
        until = start + seconds

        async def window() -> tuple[dict[str, int], dict[str, int]]:
            await asyncio.sleep(max(0.0, start - time.perf_counter()))
            first = await asyncio.to_thread(database_counters, database)
            await asyncio.sleep(max(0.0, until - time.perf_counter()))
            return first, await asyncio.to_thread(database_counters, database)

        counter = asyncio.create_task(window())
        counts = await asyncio.gather(*[
            client(bases[i % len(bases)], 1000 + i, begin + ramp * i / clients, start, until, think, latencies,
                   creations, errors, https[i % len(bases)])
            for i in range(clients)
        ])
        elapsed = time.perf_counter() - start
        first, last = await counter
    finally:
        for http in https:
            await http.aclose()
    lat = sorted(latencies)

    def pct(p: float, values: list[float] = lat) -> float:
        return round(values[min(len(values) - 1, int(p * len(values)))] * 1000, 1) if values else float("nan")

    created = sorted(creations)

    return {
        "clients": clients,
        "think_s": think,
        "ramp_s": ramp,
        "seconds": round(elapsed, 1),
        "moves": sum(counts),
        "moves_per_s": round(sum(counts) / elapsed, 1),
        "latency_ms": {
            "p50": pct(0.50), "p90": pct(0.90), "p99": pct(0.99), "max": pct(1.0) if lat else None,
            "mean": round(statistics.fmean(lat) * 1000, 1) if lat else None,
        },
        "create_ms": {"p50": pct(0.5, created), "p99": pct(0.99, created)},
        "errors": len(errors),
        "error_sample": errors[:3],
        "processes": len(bases),
        "database": {k: round((last[k] - first[k]) / seconds, 1) for k in first} if first else None,
    }


def main() -> None:
    # The clients' own garbage collections (a thousand connections' objects) paused this process for up to 100 ms,
    # which the latencies counted as the server's: collection is off in the client process.
    gc.disable()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between a client's moves")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which the clients join (evenly); moves are measured after it")
    parser.add_argument("--url", help="use a running server instead of starting one")
    parser.add_argument("--database-url", help="database of the started servers (default: a new SQLite file)")
    parser.add_argument("--processes", type=int, default=1, help="`hansa serve` processes to start on the database")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--legacy", action="store_true",
                        help="the server (--url) is an older hansa, before hot-seat games were a choice at creation")
    args = parser.parse_args()
    global LEGACY
    LEGACY = args.legacy
    results = []
    for n in args.clients:
        procs: list[subprocess.Popen[bytes]] = []
        bases = [args.url] if args.url else []
        database = args.database_url
        if not bases:
            if database is None:
                database = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite3'}"
            hansa = str(Path(sys.executable).parent / "hansa")
            for _ in range(args.processes):
                port = free_port()
                procs.append(subprocess.Popen(
                    [hansa, "serve", "--port", str(port), "--database-url", database, "--bot-delay", "0",
                     "--bot-processes", "0", "--create-per-minute", "100000", "--ws-per-client", "100000",
                     "--max-live-games", "100000", "--max-live-games-per-client", "100000",
                     "--http-per-client", "100000"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                ))
                bases.append(f"http://127.0.0.1:{port}")
                for _ in range(300):
                    try:
                        if httpx.get(bases[-1] + "/api/bots", timeout=1).status_code == 200:
                            break
                    except httpx.HTTPError:
                        time.sleep(0.1)
        try:
            result = asyncio.run(run(bases, n, args.seconds, args.think, args.ramp, database))
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait()
        results.append(result)
        print(json.dumps(result))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
