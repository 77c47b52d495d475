"""The bots and the Big Box modules: A/B games between heuristic variants, and the heuristic's speed without them.

    python benchmarks/bench_bots_modules.py ab heuristic no-mission --players 3 --games 400
    python benchmarks/bench_bots_modules.py ab heuristic no-tiles --players 4 --games 300
    python benchmarks/bench_bots_modules.py ab "w:mission_control=0,0,0,0" no-mission --players 3 --games 400
    python benchmarks/bench_bots_modules.py timing --games 12

``ab A B``: games on the base map with every module (``--modules``: ``all`` = missions, emperors_favour and the
marker_supply below; ``favour`` = without missions; ``none``), seats A, B, A, B, ... rotated by one each game, seeds
1000, 1001, ...  Prints A's share of the wins (0.5 = as strong as B), the mean score difference A - B per game with
its standard error, and the mission points of each.  Variants: ``heuristic``; ``no-mission`` (its evaluation counts
no mission card); ``no-tiles``, ``no-tribute``, ``no-block``, ``no-exchange``, ``no-promo`` (never takes a tile /
uses that marker); ``w:NAME=V;NAME=V`` (:class:`hansa.bots.evaluation.Weights` fields changed; tuples as ``a,b,c``).

``timing``: the heuristic bot's decisions in 3-player base games without any module (three heuristic seats, seeds
0..N-1): milliseconds per decision, best and median of 5 passes over the positions of N games, and a digest of the
games' moves (equal digests = the bots played the very same games).  Run it with two source trees on PYTHONPATH,
interleaved, to compare their speed.  Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import statistics
import time
from typing import Any

from hansa.bots import HeuristicBot
from hansa.bots.evaluation import DEFAULT, evaluate, pawn_reach, relative, tempo
from hansa.core.moves import Move, TakeTile, UseBlock, UseExchange, UseTribute
from hansa.core.scoring import final_scores, winners
from hansa.core.state import GameState

SUPPLY = [
    "extra-office", "extra-office", "swap", "+3", "+4", "improve", "remove3",
    "exchange", "exchange", "tribute", "tribute", "block",
]  # fmt: skip
MODULES: dict[str, dict[str, Any]] = {
    "all": {"missions": True, "emperors_favour": True, "marker_supply": SUPPLY},
    "favour": {"emperors_favour": True, "marker_supply": SUPPLY},
    "none": {},
}


class NoMission(HeuristicBot):
    """The heuristic bot whose evaluation counts no mission card."""

    def value(self, state: GameState, me: int, press: float = 0.0) -> float:
        w = self.weights
        return relative(evaluate(state, w), me, w) + tempo(state, me, w) + pawn_reach(state, me, w)


class Without(HeuristicBot):
    """The heuristic bot that never plays the move classes ``drop`` (when something else is possible)."""

    drop: tuple[type, ...] = ()

    def candidates(self, state: GameState, moves: list[Move], me: int) -> list[Move]:
        out = super().candidates(state, moves, me)
        return [m for m in out if not isinstance(m, self.drop)] or out


def variant(name: str, seed: int) -> HeuristicBot:
    dropped = {
        "no-tiles": (TakeTile,), "no-tribute": (UseTribute,), "no-block": (UseBlock,), "no-exchange": (UseExchange,),
        "no-promo": (UseTribute, UseBlock, UseExchange),
    }  # fmt: skip
    if name == "heuristic":
        return HeuristicBot(seed)
    if name == "no-mission":
        return NoMission(seed)
    if name in dropped:
        bot = Without(seed)
        bot.drop = dropped[name]
        return bot
    if name.startswith("w:"):
        changes: dict[str, Any] = {}
        for part in name[2:].split(";"):
            key, _, value = part.partition("=")
            current = getattr(DEFAULT, key)
            changes[key] = tuple(float(x) for x in value.split(",")) if isinstance(current, tuple) else type(current)(value)
        return HeuristicBot(seed, weights=dataclasses.replace(DEFAULT, **changes))
    raise SystemExit(f"unknown variant {name!r}")


def ab(a: str, b: str, players: int, games: int, modules: str, board: str) -> None:
    wins = {a: 0.0, b: 0.0}
    diffs: list[float] = []
    missions: dict[str, list[int]] = {a: [], b: []}
    rounds: list[float] = []
    start = time.perf_counter()
    for g in range(games):
        names = [a if (i + g) % 2 == 0 else b for i in range(players)]
        state = GameState.new(players, 1000 + g, {**MODULES[modules], "map": board})
        bots = [variant(name, 1000 * g + i) for i, name in enumerate(names)]
        while not state.is_over and state.turn < 2000:
            state.play(bots[state.decider].choose(state))
        scores = final_scores(state)
        won = winners(state)
        for p in won:
            wins[names[p]] += 1 / len(won)
        mean = {n: statistics.fmean(scores[p].total for p in range(players) if names[p] == n) for n in (a, b)}
        diffs.append(mean[a] - mean[b])
        for p in range(players):
            missions[names[p]].append(scores[p].missions or 0)
        rounds.append(state.turn / players)
    print(
        f"{a} vs {b}, {board} map, {players} players, modules {modules}, {games} games: "
        f"win share of {a} {wins[a] / games:.3f} (even: 0.500), score difference {statistics.fmean(diffs):+.2f} "
        f"± {statistics.stdev(diffs) / games**0.5:.2f} (standard error), mission points {a} "
        f"{statistics.fmean(missions[a]):.2f} / {b} {statistics.fmean(missions[b]):.2f}, "
        f"{statistics.fmean(rounds):.1f} rounds a game, {time.perf_counter() - start:.0f} s"
    )


def timing(games: int) -> None:
    positions: list[GameState] = []
    digest = hashlib.sha1()
    for seed in range(games):
        state = GameState.new(3, seed)
        bots = [HeuristicBot(seed * 10 + i) for i in range(3)]
        while not state.is_over:
            if len(state.legal_moves()) > 1:
                positions.append(state.copy())
            move = bots[state.decider].choose(state)
            digest.update(move.text().encode())
            state.play(move)
    passes = []
    for _ in range(5):
        t0 = time.perf_counter()
        for i, s in enumerate(positions):
            HeuristicBot(i).choose(s)
        passes.append(time.perf_counter() - t0)
    n = len(positions)
    print(
        f"heuristic, 3-player base games without modules, seeds 0..{games - 1}: {n} decisions, "
        f"best {1000 * min(passes) / n:.3f} ms, median {1000 * statistics.median(passes) / n:.3f} ms per decision; "
        f"moves digest {digest.hexdigest()[:12]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    p_ab = sub.add_parser("ab", help="A/B games of two heuristic variants")
    p_ab.add_argument("a")
    p_ab.add_argument("b")
    p_ab.add_argument("--players", type=int, default=4)
    p_ab.add_argument("--games", type=int, default=300)
    p_ab.add_argument("--modules", choices=sorted(MODULES), default="all")
    p_ab.add_argument("--map", default="base")
    p_t = sub.add_parser("timing", help="heuristic decision time without the modules")
    p_t.add_argument("--games", type=int, default=12)
    args = parser.parse_args()
    if args.what == "ab":
        ab(args.a, args.b, args.players, args.games, args.modules, args.map)
    else:
        timing(args.games)


if __name__ == "__main__":
    main()
