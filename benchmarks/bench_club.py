"""The club's costs beside its anchor: a move and a view asked with a signed-in session (cookie + CSRF token: one
session read in the database per request) against the same with a seat token (no database read), interleaved in one
run on one server; sign-in (argon2id) latency; the open tables list with 100 open tables.

    python benchmarks/bench_club.py --moves 300

Two 2-player games against the `random` bot: one of a guest's seat link, one of an account's seat taken at an open
table.  Each round plays one move in each game (alternating which goes first) and times the POST (request sent ->
answer with the new view); the views are timed the same way.  Medians and p90 in milliseconds.  Measures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hostile import Server  # noqa: E402

PASSWORD = "correct horse battery"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=300, help="moves timed in each game")
    parser.add_argument("--hansa", default=str(Path(sys.executable).with_name("hansa")), help="the hansa command")
    args = parser.parse_args()
    server = Server(args.hansa, False, ["--bot-delay", "0", "--signups-per-hour", "1000",
                                        "--max-open-tables-per-account", "200", "--max-live-games-per-client", "1000",
                                        "--create-per-minute", "1000"])
    try:
        run(server.base, args.moves)
    finally:
        server.stop()


def run(base: str, moves: int) -> None:
    account = httpx.Client(base_url=base, timeout=30)
    signup = account.post("/api/account/signup", json={"name": "Bencher", "password": PASSWORD}).json()
    csrf = signup["csrf"]
    guest = httpx.Client(base_url=base, timeout=30)
    results: dict[str, list[float]] = {"move token": [], "move session": [], "view token": [], "view session": []}
    rounds = 0
    while min(len(results["move token"]), len(results["move session"])) < moves and rounds < 50:
        rounds += 1
        game = guest.post("/api/games", json={"players": [{"name": "G"}, {"name": "R", "type": "bot", "bot": "random"}]}).json()
        gid, token = game["id"], game["seats"][0]["token"]
        table = account.post("/api/tables", json={"players": 2, "bots": ["random"]}, headers={"X-CSRF-Token": csrf}).json()
        tid = table["game"]
        sides = [("token", guest, gid, {"X-Hansa-Token": token}), ("session", account, tid, {"X-CSRF-Token": csrf})]
        live = {gid, tid}
        i = 0
        while live and min(len(results["move token"]), len(results["move session"])) < moves:
            i += 1
            for kind, http, game_id, headers in (sides if i % 2 else sides[::-1]):
                if game_id not in live:
                    continue
                start = time.perf_counter()
                view = http.get(f"/api/games/{game_id}", headers={k: v for k, v in headers.items() if k != "X-CSRF-Token"})
                results[f"view {kind}"].append(time.perf_counter() - start)
                v = view.json()
                if v["status"] != "running":
                    live.discard(game_id)
                    continue
                if not v["legal"]:
                    time.sleep(0.01)
                    continue
                start = time.perf_counter()
                r = http.post(f"/api/games/{game_id}/moves", json={"move": v["legal"][0]["text"], "version": v["version"]},
                              headers=headers)
                if r.status_code == 200:
                    results[f"move {kind}"].append(time.perf_counter() - start)
    sign_ins = []
    for _ in range(10):
        c = httpx.Client(base_url=base, timeout=30)
        start = time.perf_counter()
        assert c.post("/api/account/signin", json={"name": "Bencher", "password": PASSWORD}).status_code == 200
        sign_ins.append(time.perf_counter() - start)
        c.close()
    for n in range(100):
        account.post("/api/tables", json={"players": 5, "bots": ["random"] * (n % 3)}, headers={"X-CSRF-Token": csrf})
    lists = []
    for _ in range(50):
        start = time.perf_counter()
        assert len(guest.get("/api/tables?limit=100").json()["tables"]) == 100
        lists.append(time.perf_counter() - start)
    out = {k: {"n": len(v), "p50_ms": round(pct(v, 0.5), 2), "p90_ms": round(pct(v, 0.9), 2)} for k, v in results.items()}
    out["sign in (argon2id)"] = {"n": len(sign_ins), "p50_ms": round(pct(sign_ins, 0.5), 1),
                                 "p90_ms": round(pct(sign_ins, 0.9), 1)}
    out["GET /api/tables (100 open)"] = {"n": len(lists), "p50_ms": round(pct(lists, 0.5), 2),
                                        "p90_ms": round(pct(lists, 0.9), 2)}
    print(json.dumps(out, indent=1))
    print("median move, session/token:", round(statistics.median(results["move session"])
                                               / statistics.median(results["move token"]), 2))


if __name__ == "__main__":
    main()
