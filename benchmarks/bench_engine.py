"""Engine throughput benchmark: random-playout games/s and moves/s on one core.

Every step generates the full list of legal moves (``state.legal_moves()``), the bot picks one, and the engine
validates and applies it (``state.play``), exactly as any bot would.  Policy: ``random`` (claims whenever a
claim is legal, otherwise uniform).  Also measures the cost of ``copy()`` and of ``legal_moves()`` alone.

    python benchmarks/bench_engine.py --games 30 --json benchmarks/results-engine.json

This measures; it asserts nothing.  Numbers are reported in the README.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

from hansa import compiled
from hansa.bots import make_bot
from hansa.core.state import GameState

PROMO = ["extra-office", "extra-office", "swap", "+3", "+4", "improve", "remove3", "exchange", "exchange", "tribute",
         "tribute", "block"]
CONFIGS = {
    "2n": (2, {"two_player_variant": "neutral"}),
    "2p": (2, {"two_player_variant": "pawn"}),
    "3": (3, {}),
    "4": (4, {}),
    "5": (5, {}),
    "east3": (3, {"map": "east"}),
    "east4": (4, {"map": "east"}),
    "east5": (5, {"map": "east"}),
    "brit3": (3, {"map": "britannia"}),
    "brit4": (4, {"map": "britannia"}),
    "brit5": (5, {"map": "britannia"}),
    # the Big Box modules (docs/rules.md §8), all three on the base map
    "mods3": (3, {"missions": True, "emperors_favour": True, "marker_supply": PROMO}),
    "mods4": (4, {"missions": True, "emperors_favour": True, "marker_supply": PROMO}),
}
#: The configurations run by default (the expansion maps with --configs east3 ... brit5).
DEFAULT_CONFIGS = ["2n", "2p", "3", "4", "5"]


def bench_games(label: str, games: int, seed: int, policy: str) -> dict[str, object]:
    players, options = CONFIGS[label]
    moves = 0
    turns = []
    lengths = []
    start = time.perf_counter()
    for g in range(games):
        state = GameState.new(players, seed + g, options)
        bots = [make_bot(policy, (seed + g) * 10 + i) for i in range(players)]
        n = 0
        while not state.is_over:
            legal = state.legal_moves()
            state.play(bots[state.decider].choose(state, legal))
            n += 1
        moves += n
        lengths.append(n)
        turns.append(state.turn)
    elapsed = time.perf_counter() - start
    return {
        "config": label,
        "players": players,
        "options": options,
        "games": games,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 2),
        "moves_per_s": round(moves / elapsed),
        "moves_per_game": round(statistics.fmean(lengths), 1),
        "turns_per_game": round(statistics.fmean(turns), 1),
    }


def bench_primitives(players: int, seed: int) -> dict[str, float]:
    """Microsecond costs of copy() and legal_moves() averaged over the positions of one game."""
    state = GameState.new(players, seed)
    bot = make_bot("random", seed)
    positions = []
    while not state.is_over:
        positions.append(state.copy())
        state.play(bot.choose(state))
    positions = positions[:: max(1, len(positions) // 2000)]
    t0 = time.perf_counter()
    for s in positions:
        s.copy()
    t1 = time.perf_counter()
    for s in positions:
        s.legal_moves()
    t2 = time.perf_counter()
    return {
        "positions": len(positions),
        "copy_us": round((t1 - t0) / len(positions) * 1e6, 2),
        "legal_moves_us": round((t2 - t1) / len(positions) * 1e6, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--configs", nargs="*", default=DEFAULT_CONFIGS, choices=list(CONFIGS),
                        help="2n = two players neutral variant, 2p = two players pawn variant, 3, 4, 5 (base map); "
                             "east3..east5, brit3..brit5: the expansion maps; mods3, mods4: the Big Box modules")
    parser.add_argument("--policy", default="random")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    results = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "policy": args.policy,
        "engine": "compiled" if compiled() else "pure Python",
        "games": [bench_games(c, args.games, args.seed, args.policy) for c in args.configs],
        "primitives": [dict(players=p, **bench_primitives(p, args.seed)) for p in (3, 4, 5)],
    }
    print(f"engine: {results['engine']} (HANSA_PURE_PYTHON=1 for the pure-Python sources)")
    print(f"{'config':>7} {'games':>6} {'games/s':>8} {'moves/s':>8} {'moves/game':>10} {'turns/game':>10}")
    for r in results["games"]:
        print(f"{r['config']:>7} {r['games']:>6} {r['games_per_s']:>8} {r['moves_per_s']:>8} "
              f"{r['moves_per_game']:>10} {r['turns_per_game']:>10}")
    for r in results["primitives"]:
        print(f"{r['players']}p: copy() {r['copy_us']} us, legal_moves() {r['legal_moves_us']} us "
              f"(mean over {r['positions']} positions)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
