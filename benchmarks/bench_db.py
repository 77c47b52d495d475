"""The database's move writes per second: the ceiling under every web process and bot worker.

W writer processes each store moves into games of their own for ``--seconds`` seconds, each move exactly the
transaction a web process runs (``Store.store_move``: the game row updated under its revision check, the move row
inserted, and on PostgreSQL the change notice), with a snapshot of a real position.  Reported per writer count:
moves stored per second and the commit latency p50 / p99.

    python benchmarks/bench_db.py --database-url postgresql://USER:PW@127.0.0.1/DB --writers 1 2 4 8
    python benchmarks/bench_db.py --writers 1      # SQLite (a new file; one writer at a time by design)

Measures; asserts nothing.  The engine is not in the loop: the moves are stored, not played.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from hansa.core.state import GameState
from hansa.server.db import make_engine, migrate, utcnow
from hansa.server.store import Store


def writer(url: str, seconds: float, start_at: float, out: Any) -> None:
    engine = make_engine(url)
    store = Store(engine)
    snapshot = GameState.new(3, seed=1).to_snapshot()
    game_id = secrets.token_hex(4)
    now = utcnow()
    store.insert_game({
        "id": game_id, "seed": 1, "options": {}, "players": [{"name": "a", "type": "human", "bot": None,
                                                              "token_hash": None, "colour": "red"}],
        "table_options": {}, "hotseat_hash": "x", "creator_hash": None, "seed_public": False, "status": "running",
        "status_note": None, "version": 0, "turn": 1, "snapshot": snapshot, "bot_turn": False, "created_at": now,
        "updated_at": now, "clock": None, "deadline": None, "has_human": True,
    })
    revision, n = 0, 0
    latencies = []
    while time.time() < start_at:
        time.sleep(0.001)
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        n += 1
        row = {"version": n, "status": "running", "turn": 1, "snapshot": snapshot, "bot_turn": False}
        t0 = time.perf_counter()
        revision = store.store_move(game_id, n, 0, 1, "end", row, revision)
        latencies.append(time.perf_counter() - t0)
    out.put(latencies)
    engine.dispose()


def run(url: str, writers: int, seconds: float) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    start_at = time.time() + 3.0
    procs = [context.Process(target=writer, args=(url, seconds, start_at, out)) for _ in range(writers)]
    for p in procs:
        p.start()
    latencies = sorted(x for _ in procs for x in out.get())
    for p in procs:
        p.join()
    pct = lambda q: round(latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000, 2)  # noqa: E731
    return {"writers": writers, "seconds": seconds, "moves": len(latencies),
            "moves_per_s": round(len(latencies) / seconds, 1), "commit_ms": {"p50": pct(0.5), "p99": pct(0.99),
            "mean": round(statistics.fmean(latencies) * 1000, 2)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: a new SQLite file")
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    url = args.database_url or f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite3'}"
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    migrate(make_engine(url))
    results = []
    for w in args.writers:
        result = run(url, w, args.seconds)
        results.append(result)
        print(json.dumps(result))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
