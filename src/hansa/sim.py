"""Self-play simulation: play many complete games with bots and summarise them (``hansa simulate``)."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._native import compiled
from .bots import make_bot
from .core.invariants import check_invariants, check_turn_start
from .core.scoring import final_scores, winners
from .core.state import GameState
from .game import Game
from .record import save_record


@dataclass
class GameResult:
    """Summary of one simulated game."""

    seed: int
    moves: int
    turns: int
    finished: bool
    end_triggers: tuple[str, ...]
    totals: list[int]
    winners: list[int]
    seconds: float


@dataclass
class Summary:
    """Aggregate of a simulation run."""

    players: int
    policy: str
    results: list[GameResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return len(self.results)

    @property
    def total_moves(self) -> int:
        return sum(r.moves for r in self.results)

    def to_json(self) -> dict[str, Any]:
        moves = [r.moves for r in self.results]
        turns = [r.turns for r in self.results]
        totals = [t for r in self.results for t in r.totals]
        best = [max(r.totals) for r in self.results]
        triggers: Counter[str] = Counter(t for r in self.results for t in r.end_triggers)
        wins: Counter[int] = Counter(w for r in self.results for w in r.winners)
        return {
            "players": self.players,
            "policy": self.policy,
            "games": self.games,
            "finished": sum(r.finished for r in self.results),
            "moves_per_game": _stats(moves),
            "turns_per_game": _stats(turns),
            "final_score": _stats(totals),
            "winning_score": _stats(best),
            "end_triggers": dict(triggers),
            "wins_by_seat": {str(k): v for k, v in sorted(wins.items())},
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games / self.seconds, 2) if self.seconds else None,
            "moves_per_second": round(self.total_moves / self.seconds) if self.seconds else None,
            "engine": "compiled" if compiled() else "pure Python",
        }


def _stats(values: list[int]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "mean": round(statistics.fmean(values), 2),
        "sd": round(statistics.pstdev(values), 2),
        "min": min(values),
        "max": max(values),
    }


def run_game(
    players: int,
    seed: int,
    policy: str = "random",
    max_moves: int | None = None,
    keep_record: bool = False,
    check: bool = False,
    options: dict[str, Any] | None = None,
) -> tuple[GameResult, Game | None]:
    """Play one game with ``policy`` bots in every seat; with ``keep_record`` also return the :class:`Game`.

    With ``check`` every invariant of :mod:`hansa.core.invariants` is checked after every move (slow)."""
    start = time.perf_counter()
    names = [f"{policy}-{i + 1}" for i in range(players)]
    game = Game(names, seed=seed, options=options, undo=False) if keep_record else None
    state = game.state if game is not None else GameState.new(players, seed, options)
    bots = [make_bot(policy, seed * 10 + i) for i in range(players)]
    moves = 0
    limit = max_moves if max_moves is not None else 10**9
    previous = state.score[:]
    if check:
        check_invariants(state)
    while not state.is_over and moves < limit:
        legal = state.legal_moves()
        move = bots[state.decider].choose(state, legal)
        if game is not None:
            game.play(move)
        else:
            state.play(move)
        moves += 1
        if check:
            check_invariants(state, previous)
            check_turn_start(state)
            previous = state.score[:]
    elapsed = time.perf_counter() - start
    scores = final_scores(state)
    result = GameResult(
        seed, moves, state.turn, state.is_over, state.end_triggers, [s.total for s in scores],
        winners(state, scores) if state.is_over else [], elapsed,
    )
    return result, game


def simulate(
    players: int,
    games: int,
    seed: int = 0,
    policy: str = "random",
    records_dir: Path | None = None,
    max_moves: int | None = None,
    on_game: Callable[[GameResult], None] | None = None,
    check: bool = False,
    options: dict[str, Any] | None = None,
) -> Summary:
    """Play ``games`` games (game ``i`` uses seed ``seed + i``) and return the summary."""
    summary = Summary(players, policy)
    start = time.perf_counter()
    if records_dir is not None:
        records_dir.mkdir(parents=True, exist_ok=True)
    for i in range(games):
        game_seed = seed + i
        result, game = run_game(players, game_seed, policy, max_moves, keep_record=records_dir is not None, check=check, options=options)
        if game is not None and records_dir is not None:
            save_record(game, records_dir / f"game-{players}p-{game_seed}.json")
        summary.results.append(result)
        if on_game:
            on_game(result)
    summary.seconds = time.perf_counter() - start
    return summary
