"""Bot speed: heuristic decision time and MCTS playouts per second on mid-game positions (one core).

    python benchmarks/bench_bots.py --positions 20 --seconds 1.0

Positions come from heuristic self-play games (3 players) between turns 15 and 45.  Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from hansa.bots import HeuristicBot
from hansa.bots.mcts import MctsBot
from hansa.core.state import GameState


def midgame_positions(n: int, seed: int) -> list[GameState]:
    out: list[GameState] = []
    game = 0
    while len(out) < n:
        state = GameState.new(3, seed + game)
        bots = [HeuristicBot(seed + game + i) for i in range(3)]
        while not state.is_over and len(out) < n:
            if 15 <= state.turn <= 45 and state.turn % 6 == 0 and state.actions_used == 0 and len(state.legal_moves()) > 1:
                out.append(state.copy())
            state.play(bots[state.decider].choose(state))
        game += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=1.0, help="MCTS budget per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write results here")
    args = parser.parse_args()
    positions = midgame_positions(args.positions, args.seed)
    heuristic = HeuristicBot(1)
    times = []
    for s in positions:
        t0 = time.perf_counter()
        heuristic.choose(s)
        times.append(time.perf_counter() - t0)
    rates = []
    spent = []
    for s in positions:
        bot = MctsBot(1, seconds=args.seconds)
        t0 = time.perf_counter()
        bot.choose(s)
        spent.append(time.perf_counter() - t0)
        rates.append(bot.last_stats["playouts_per_second"])
    result = {
        "positions": len(positions),
        "heuristic_ms_per_decision": {"mean": round(statistics.fmean(times) * 1000, 2), "max": round(max(times) * 1000, 2)},
        "mcts_playouts_per_second": {
            "mean": round(statistics.fmean(rates)),
            "min": round(min(rates)),
            "max": round(max(rates)),
            "per_position": [round(r) for r in rates],
        },
        "mcts_budget_seconds": args.seconds,
        "mcts_seconds_used": {"mean": round(statistics.fmean(spent), 4), "max": round(max(spent), 4)},
    }
    print(json.dumps(result, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
