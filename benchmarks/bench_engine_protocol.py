"""Cost of a decision through the engine protocol: the same bot (``purpose``) in seat 0 of a 3-player game,
in-process and as an engine subprocess (examples/engine_random.py) over hansa-engine/1, in one interleaved run.

    python benchmarks/bench_engine_protocol.py [--rounds 3] [--decisions 300]

Prints the median wall time per seat-0 decision of each and their ratio (measures, never asserts)."""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from pathlib import Path

from hansa import Game
from hansa.bots import Bot, make_bot
from hansa.engine import EngineBot

ENGINE = f"{shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).resolve().parent.parent / 'examples' / 'engine_random.py'))}"


def per_decision(bot: Bot, decisions: int, seed: int) -> float:
    """Seconds per decision of ``bot`` in seat 0 (the other seats: purpose), over ``decisions`` of its decisions."""
    game = Game(3, seed=seed, undo=False)
    bot.bind(game)
    others = [make_bot("purpose", seed + s) for s in range(3)]
    spent, done = 0.0, 0
    while done < decisions and not game.is_over:
        state = game.state
        if state.decider == 0:
            t0 = time.perf_counter()
            move = bot.choose(state)
            spent += time.perf_counter() - t0
            done += 1
        else:
            move = others[state.decider].choose(state)
        game.play(move)
    return spent / max(1, done)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--decisions", type=int, default=300)
    args = parser.parse_args()
    local, remote = [], []
    for r in range(args.rounds):
        local.append(per_decision(make_bot("purpose", r), args.decisions, 100 + r))
        with EngineBot(ENGINE, seed=r) as engine:
            engine.choose(Game(3, seed=1).state)  # start the process outside the measurement
            remote.append(per_decision(engine, args.decisions, 100 + r))
    a, b = statistics.median(local), statistics.median(remote)
    print(f"purpose in-process : {a * 1e3:8.3f} ms/decision")
    print(f"purpose as engine  : {b * 1e3:8.3f} ms/decision (examples/engine_random.py over hansa-engine/1)")
    print(f"ratio engine/in-process: {b / a:.1f}")


if __name__ == "__main__":
    main()
