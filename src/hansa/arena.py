"""Bot arena: play many games between different bots and compare them (``hansa arena``).

An arena is a list of bot specs, one per seat (see :func:`hansa.bots.make_bot`).  Each entry of that list is
one *entry*, labelled by its spec, or ``spec#k`` (k = 1, 2, ...) when the same spec sits in several seats.

* **Rotation.**  Game ``i`` (0-based) uses the seed ``seed + i`` and rotates the lineup by ``i``: entry ``j``
  sits in seat ``(j + i) % players``.  Over a multiple of ``players`` games every entry plays every seat
  equally often.
* **Pool (a ladder).**  With ``pool=True`` the specs are a pool of ``players`` or more distinct bots
  (``hansa arena --pool``); game ``i`` seats the combination ``i % C`` of the pool's ``C = comb(len(pool),
  players)`` combinations (in :func:`itertools.combinations` order) rotated by ``(i // C) % players``
  (:func:`pool_lineup`).  Over a multiple of ``C * players`` games every combination plays every rotation equally
  often; for any number of games the counts of two combinations differ by at most one.
* **Determinism.**  Every game is played by fresh bots; the bot in seat ``s`` of a game with seed ``g`` is
  seeded with ``g * 10 + s`` (as :func:`hansa.sim.run_game` does).  A game's outcome therefore depends only on
  its index, never on the number of worker processes (``jobs``) or the order in which games finish.  Bots with
  a time budget (``mcts:hard``, ``mcts:seconds=S``) are the exception: how far they search depends on the
  machine's speed and, on the default ``wall`` clock, its load.  With ``clock="cpu"`` (``--clock cpu``) budgets
  and thinking times count the thinking thread's CPU time (:mod:`hansa.bots.clock`), so other work on the machine
  slows a game down but does not weaken its bots.
* **Backends.**  ``process`` (the default) plays the games in this process (``jobs`` 1) or in a pool of
  ``jobs`` worker processes; ``ray`` plays every game as a Ray task, on a local Ray instance or on the cluster at
  ``address`` (:mod:`hansa.arena_ray`; needs the ``ray`` extra).  Both hand the same :class:`GameTask` to
  :func:`play_game`, so the rows are the same whichever backend played them.
* **Win share.**  A win shared by ``k`` seats counts ``1/k`` for each; games cut unfinished by ``max_moves``
  have no winner.  The 95% interval is Wilson's score interval (:func:`wilson_interval`).
* **Ratings.**  Elo-style ratings are a Bradley-Terry fit (:func:`fit_ratings`) of every pairwise outcome
  between seats holding *different* specs in every finished game (higher final total wins, equal totals draw);
  entries with the same spec are pooled into one rated bot.  A rating's 95% interval is the 2.5 and 97.5
  percentiles of the ratings fitted to :data:`BOOTSTRAP` resamples of the games (drawn with replacement, a fixed
  seed: the same games give the same interval; :func:`rating_intervals`).

Outputs (:func:`write_outputs`): ``results.json`` (config, per-game rows, per-bot statistics, ratings),
``games.csv`` (one row per game and seat), ``bots.csv`` (one row per entry) and ``scores.png`` (box plot of
final totals and bar chart of the mean score breakdown per entry).  With ``records_dir`` every game's record is
written as well (:func:`hansa.record.save_record`).
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from .bots import clock as budget_clock
from .bots.clock import CLOCKS
from .core.errors import HansaError
from .core.options import GameOptions
from .core.scoring import CATEGORIES, final_scores, winners
from .core.state import GameState

__all__ = [
    "BACKENDS", "ArenaConfig", "ArenaError", "ArenaResult", "BotStats", "GameRow", "GameTask", "Rating",
    "SeatResult", "bot_seed", "fit_ratings", "lineup", "pairwise_outcomes", "parse_pool", "parse_seats",
    "play_game", "plot_scores", "pool_lineup", "print_summary", "rating_intervals", "run_arena", "seat_labels",
    "summarize", "wilson_interval", "write_outputs",
]

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054
#: Move limit applied when a ``uniform`` bot plays and no limit is given (such games practically never end).
UNIFORM_MOVE_LIMIT = 100_000
#: Rating of the average bot.
ANCHOR = 1500.0
#: Where the games can be played (:func:`run_arena`); the first is the default.
BACKENDS = ("process", "ray")
#: Most bots in a pool (``--pool``): 20 bots at 5 players are 15,504 combinations already.
MAX_POOL = 20
#: Bootstrap resamples of the games behind a rating's 95% interval, and their seed.
BOOTSTRAP = 200
BOOTSTRAP_SEED = 20240601


class ArenaError(ValueError):
    """Invalid arena input (bad seats, counts or options); the message says what is wrong."""


# ---------------------------------------------------------------------------------------------- configuration


def parse_seats(seats: str | Sequence[str], players: int) -> list[str]:
    """Split and check a comma list of bot specs, one per seat.

    Raises :class:`ArenaError` for a player count outside 2-5, a list of the wrong length, an empty entry or an
    unknown spec (the message lists the valid specs)."""
    from .bots import make_bot

    if not 2 <= players <= 5:
        raise ArenaError(f"--players must be 2 to 5, not {players}")
    items = seats.split(",") if isinstance(seats, str) else list(seats)
    specs = [s.strip() for s in items]
    if any(not s for s in specs):
        raise ArenaError(f"--seats has an empty bot spec: {','.join(specs)!r}")
    if len(specs) != players:
        raise ArenaError(f"--seats lists {len(specs)} bot(s) but --players is {players}: give one bot spec per seat")
    for k, spec in enumerate(specs):
        try:
            make_bot(spec, 0)
        except ValueError as exc:
            raise ArenaError(f"seat {k + 1}: {exc}") from None
    return specs


def parse_pool(pool: str | Sequence[str], players: int) -> list[str]:
    """Split and check a comma list of distinct bot specs, at least ``players`` and at most :data:`MAX_POOL`.

    Raises :class:`ArenaError` for a player count outside 2-5, too few or too many bots, an empty or repeated entry
    or an unknown spec."""
    from .bots import make_bot

    if not 2 <= players <= 5:
        raise ArenaError(f"--players must be 2 to 5, not {players}")
    items = pool.split(",") if isinstance(pool, str) else list(pool)
    specs = [s.strip() for s in items]
    if any(not s for s in specs):
        raise ArenaError(f"--pool has an empty bot spec: {','.join(specs)!r}")
    if not players <= len(specs) <= MAX_POOL:
        raise ArenaError(f"--pool lists {len(specs)} bot(s): give {players} to {MAX_POOL} for {players}-player games")
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        raise ArenaError(f"--pool lists {', '.join(repeated)} more than once: every bot of a pool is rated once")
    for k, spec in enumerate(specs):
        try:
            make_bot(spec, 0)
        except ValueError as exc:
            raise ArenaError(f"pool bot {k + 1}: {exc}") from None
    return specs


def pool_lineup(index: int, size: int, players: int) -> list[int]:
    """Pool entry in each seat for game ``index`` of a pool of ``size`` bots: combination ``index % C`` (of the
    ``C`` combinations of ``players`` entries, :func:`itertools.combinations` order) rotated by
    ``(index // C) % players``: its ``j``-th entry sits in seat ``(j + rotation) % players``."""
    count = math.comb(size, players)
    combo = _combination(index % count, size, players)
    rotation = (index // count) % players
    return [combo[(s - rotation) % players] for s in range(players)]


def _combination(rank: int, size: int, players: int) -> tuple[int, ...]:
    """The ``rank``-th combination of ``players`` out of ``range(size)`` in lexicographic order (without listing
    the others)."""
    out: list[int] = []
    start = 0
    for left in range(players, 0, -1):
        for first in range(start, size):
            block = math.comb(size - first - 1, left - 1)
            if rank < block:
                out.append(first)
                start = first + 1
                break
            rank -= block
    return tuple(out)


def seat_labels(specs: Sequence[str]) -> list[str]:
    """Entry labels: the spec itself, or ``spec#1``, ``spec#2``, ... when a spec appears more than once."""
    counts: dict[str, int] = {}
    for s in specs:
        counts[s] = counts.get(s, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        if counts[s] == 1:
            out.append(s)
        else:
            seen[s] = seen.get(s, 0) + 1
            out.append(f"{s}#{seen[s]}")
    return out


def lineup(index: int, players: int) -> list[int]:
    """Entry index in each seat for game ``index``: entry ``j`` sits in seat ``(j + index) % players``."""
    return [(s - index) % players for s in range(players)]


def bot_seed(game_seed: int, seat: int) -> int:
    """Seed of the bot in ``seat`` of the game with seed ``game_seed``."""
    return game_seed * 10 + seat


@dataclass(frozen=True)
class ArenaConfig:
    """What to play: ``games`` games of ``players`` players between the bots of ``seats`` (one spec per seat)."""

    players: int
    seats: tuple[str, ...]
    games: int
    seed: int = 0
    jobs: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    max_moves: int | None = None
    records_dir: Path | None = None
    backend: str = "process"
    address: str | None = None
    clock: str = "wall"
    #: ``seats`` is a pool of bots, more than seats allowed, played in every combination (:func:`pool_lineup`).
    pool: bool = False

    @classmethod
    def build(
        cls,
        players: int,
        seats: str | Sequence[str],
        games: int,
        seed: int = 0,
        jobs: int = 1,
        options: dict[str, Any] | None = None,
        variant: str | None = None,
        max_moves: int | None = None,
        records_dir: Path | None = None,
        backend: str = "process",
        address: str | None = None,
        clock: str = "wall",
        pool: bool = False,
    ) -> ArenaConfig:
        """Validate the input and build a config; raises :class:`ArenaError` with a clear message.  With ``pool``
        ``seats`` is a pool of distinct bots (:func:`parse_pool`) rather than one spec per seat."""
        specs = parse_pool(seats, players) if pool else parse_seats(seats, players)
        if games < 1:
            raise ArenaError("--games must be at least 1")
        if jobs < 1:
            raise ArenaError("--jobs must be at least 1")
        if max_moves is not None and max_moves < 1:
            raise ArenaError("--max-moves must be at least 1")
        if backend not in BACKENDS:
            raise ArenaError(f"--backend must be {' or '.join(BACKENDS)}, not {backend!r}")
        if address is not None and backend != "ray":
            raise ArenaError("--address applies to --backend ray only")
        if address is not None and not address.strip():
            raise ArenaError("--address is empty")
        if clock not in CLOCKS:
            raise ArenaError(f"--clock must be {' or '.join(CLOCKS)}, not {clock!r}")
        opts = dict(options or {})
        if variant is not None:
            if players != 2:
                raise ArenaError("--variant applies to two-player games only")
            if variant not in ("neutral", "pawn"):
                raise ArenaError(f"--variant must be neutral or pawn, not {variant!r}")
            opts["two_player_variant"] = variant
        try:
            GameOptions.from_dict(opts)
        except HansaError as exc:
            raise ArenaError(str(exc)) from None
        return cls(players, tuple(specs), games, seed, jobs, opts, max_moves, records_dir, backend, address, clock,
                   pool)

    @property
    def labels(self) -> list[str]:
        """Entry labels (see :func:`seat_labels`)."""
        return seat_labels(self.seats)

    @property
    def move_limit(self) -> int | None:
        """``max_moves``, or :data:`UNIFORM_MOVE_LIMIT` when a ``uniform`` bot plays and no limit was given."""
        if self.max_moves is None and "uniform" in self.seats:
            return UNIFORM_MOVE_LIMIT
        return self.max_moves

    def task(self, index: int) -> GameTask:
        """The self-contained description of game ``index`` handed to a worker."""
        order = pool_lineup(index, len(self.seats), self.players) if self.pool else lineup(index, self.players)
        labels = self.labels
        seed = self.seed + index
        record = None
        if self.records_dir is not None:
            record = str(self.records_dir / f"game-{index:04d}-seed{seed}.json")
        return GameTask(
            index, seed, self.players, tuple(self.seats[e] for e in order), tuple(order),
            tuple(labels[e] for e in order), dict(self.options), self.move_limit, record, self.clock,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players, "seats": list(self.seats), "labels": self.labels, "games": self.games,
            "seed": self.seed, "jobs": self.jobs, "backend": self.backend, "address": self.address,
            "options": self.options, "max_moves": self.move_limit, "clock": self.clock,
            "records_dir": str(self.records_dir) if self.records_dir is not None else None,
            "pool": self.pool,
            "rotation": "game i uses seed seed+i; "
            + ("it seats combination i % C of the pool's C combinations (itertools order), its j-th bot in seat "
               "(j + i // C) % players" if self.pool else "entry j sits in seat (j+i) % players"),
            "bot_seed": "game_seed * 10 + seat",
        }


# ---------------------------------------------------------------------------------------------- playing


@dataclass(frozen=True)
class GameTask:
    """One game to play: seat-ordered specs, entry indices and labels (picklable for worker processes)."""

    index: int
    seed: int
    players: int
    specs: tuple[str, ...]
    entries: tuple[int, ...]
    labels: tuple[str, ...]
    options: dict[str, Any]
    max_moves: int | None
    record_path: str | None = None
    #: The clock of the bots' time budgets and of ``think_seconds`` (:mod:`hansa.bots.clock`).
    clock: str = "wall"


@dataclass
class SeatResult:
    """One seat of one game: who sat there and how it did."""

    seat: int
    entry: int
    label: str
    spec: str
    total: int
    breakdown: dict[str, int]
    win: float
    decisions: int
    think_seconds: float
    #: Decisions an engine seat (``engine:COMMAND``) failed and its fallback bot played (docs/engine-protocol.md).
    fallbacks: int = 0


@dataclass
class GameRow:
    """The result of one arena game (``seats`` in seat order)."""

    index: int
    seed: int
    moves: int
    turns: int
    finished: bool
    end_triggers: list[str]
    winners: list[int]
    seats: list[SeatResult]
    seconds: float

    def outcome(self) -> dict[str, Any]:
        """The row without its timings: identical whatever the machine, load or number of jobs (for bots
        without a time budget)."""
        data = asdict(self)
        data.pop("seconds")
        for s in data["seats"]:
            s.pop("think_seconds")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRow:
        fields_ = dict(data)
        fields_["seats"] = [SeatResult(**s) for s in data["seats"]]
        return cls(**fields_)


def play_game(task: GameTask) -> GameRow:
    """Play one game with fresh bots (seat ``s`` seeded by :func:`bot_seed`), timing every ``choose`` call on the
    task's clock (which the bots' time budgets use too).

    With ``task.record_path`` the game is played through :class:`hansa.game.Game` (``undo=False``) and its
    record saved there.  Runs in a worker process when the arena has several jobs."""
    with budget_clock.using(task.clock):
        return _play_game(task)


def _play_game(task: GameTask) -> GameRow:
    from .bots import make_bot
    from .game import Game

    start = time.perf_counter()
    n = task.players
    engines = any(spec.startswith("engine:") for spec in task.specs)  # engines are sent the moves so far
    with_game = task.record_path is not None or engines
    game = Game(list(task.labels), seed=task.seed, options=task.options, undo=False) if with_game else None
    state = game.state if game is not None else GameState.new(n, task.seed, task.options)
    bots = [make_bot(spec, bot_seed(task.seed, s)) for s, spec in enumerate(task.specs)]
    decisions = [0] * n
    think = [0.0] * n
    limit = task.max_moves if task.max_moves is not None else 10**12
    moves = 0
    clock = budget_clock.now
    try:
        if game is not None:
            for bot in bots:
                bot.bind(game)
        while not state.is_over and moves < limit:
            legal = state.legal_moves()
            seat = state.decider
            t0 = clock()
            move = bots[seat].choose(state, legal)
            think[seat] += clock() - t0
            decisions[seat] += 1
            if game is not None:
                game.play(move)
            else:
                state.play(move)
            moves += 1
    finally:
        for bot in bots:
            bot.close()  # an engine's process ends with its game
    fallbacks = [int(getattr(bot, "fallbacks", 0)) for bot in bots]
    scores = final_scores(state)
    wins = winners(state, scores) if state.is_over else []
    if game is not None and task.record_path is not None:
        from .record import save_record

        save_record(game, task.record_path)
    seats = [
        SeatResult(
            s, task.entries[s], task.labels[s], task.specs[s], scores[s].total,
            {c: int(getattr(scores[s], c) or 0) for c in CATEGORIES},
            1.0 / len(wins) if s in wins else 0.0, decisions[s], think[s], fallbacks[s],
        )
        for s in range(n)
    ]
    return GameRow(
        task.index, task.seed, moves, state.turn, state.is_over, list(state.end_triggers), list(wins), seats,
        time.perf_counter() - start,
    )


# ---------------------------------------------------------------------------------------------- statistics


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n`` (``successes`` may be fractional: shared wins).

    ``(0.0, 1.0)`` when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = min(max(successes / n, 0.0), 1.0)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if p == 0.0 else max(0.0, centre - half)
    high = 1.0 if p == 1.0 else min(1.0, centre + half)
    return low, high


@dataclass
class BotStats:
    """Aggregate of one entry (one seat of the lineup) over all games."""

    label: str
    spec: str
    games: int
    wins: float
    win_share: float
    ci_low: float
    ci_high: float
    mean_total: float
    sd_total: float
    mean_breakdown: dict[str, float]
    mean_moves: float
    mean_turns: float
    decisions: int
    seconds_per_decision: float


def summarize(rows: Sequence[GameRow], labels: Sequence[str], specs: Sequence[str]) -> list[BotStats]:
    """Per-entry statistics (entries in lineup order)."""
    out = []
    for entry, (label, spec) in enumerate(zip(labels, specs)):
        mine = [(row, s) for row in rows for s in row.seats if s.entry == entry]
        games = len(mine)
        wins = sum(s.win for _, s in mine)
        lo, hi = wilson_interval(wins, games)
        totals = [s.total for _, s in mine]
        decisions = sum(s.decisions for _, s in mine)
        think = sum(s.think_seconds for _, s in mine)
        out.append(BotStats(
            label, spec, games, round(wins, 4), wins / games if games else 0.0, lo, hi,
            statistics.fmean(totals) if totals else 0.0,
            statistics.pstdev(totals) if totals else 0.0,
            {c: statistics.fmean(s.breakdown[c] for _, s in mine) if mine else 0.0 for c in CATEGORIES},
            statistics.fmean(r.moves for r, _ in mine) if mine else 0.0,
            statistics.fmean(r.turns for r, _ in mine) if mine else 0.0,
            decisions, think / decisions if decisions else 0.0,
        ))
    return out


def pairwise_outcomes(rows: Sequence[GameRow]) -> list[tuple[str, str, float]]:
    """``(spec_a, spec_b, score_a)`` for every pair of seats with different specs in every finished game:
    score 1 if a's final total is higher, 0 if lower, 0.5 if equal."""
    out = []
    for row in rows:
        if not row.finished:
            continue
        seats = row.seats
        for i in range(len(seats)):
            for j in range(i + 1, len(seats)):
                a, b = seats[i], seats[j]
                if a.spec == b.spec:
                    continue
                score = 1.0 if a.total > b.total else 0.0 if a.total < b.total else 0.5
                out.append((a.spec, b.spec, score))
    return out


@dataclass
class Rating:
    """Elo-style rating of one bot spec (all entries with that spec pooled)."""

    spec: str
    rating: float
    comparisons: int
    wins: int
    draws: int
    losses: int
    score: float
    #: The rating's 95% interval from a bootstrap over games (:func:`rating_intervals`).
    ci_low: float = ANCHOR
    ci_high: float = ANCHOR


def fit_ratings(
    outcomes: Sequence[tuple[str, str, float]],
    bots: Sequence[str] | None = None,
    prior_draws: float = 1.0,
    anchor: float = ANCHOR,
    max_iterations: int = 10_000,
    tolerance: float = 1e-10,
) -> dict[str, float]:
    """Elo-style ratings by a Bradley-Terry maximum-likelihood fit.

    Each bot ``i`` has a strength ``g_i = 10 ** (R_i / 400)`` and scores ``g_i / (g_i + g_j)`` in expectation
    against ``j`` — exactly Elo's expected score ``1 / (1 + 10 ** ((R_j - R_i) / 400))``.  ``outcomes`` are
    ``(a, b, score_a)`` with ``score_a`` 1 (a won), 0.5 (draw: counted as half a win for each) or 0.  The
    likelihood is maximised with Hunter's minorisation-maximisation iteration
    ``g_i <- W_i / sum_j n_ij / (g_i + g_j)``; ``prior_draws`` virtual draws between every pair of bots keep
    the ratings finite when a bot wins (or loses) every comparison.  Unlike sequential Elo updates the result
    does not depend on the order of the games.  Ratings are shifted so that their mean is ``anchor`` (1500).
    """
    names = list(bots) if bots is not None else sorted({a for a, _, _ in outcomes} | {b for _, b, _ in outcomes})
    names = list(dict.fromkeys(names))
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    if k == 0:
        return {}
    if k == 1:
        return {names[0]: anchor}
    n = [[0.0] * k for _ in range(k)]
    w = [0.0] * k
    for a, b, score in outcomes:
        i, j = index[a], index[b]
        if i == j:
            continue
        n[i][j] += 1
        n[j][i] += 1
        w[i] += score
        w[j] += 1.0 - score
    for i in range(k):
        for j in range(i + 1, k):
            n[i][j] += prior_draws
            n[j][i] += prior_draws
            w[i] += prior_draws / 2
            w[j] += prior_draws / 2
    logs = [0.0] * k  # natural log of the strengths
    for _ in range(max_iterations):
        g = [math.exp(x) for x in logs]
        new = []
        for i in range(k):
            denom = sum(n[i][j] / (g[i] + g[j]) for j in range(k) if j != i and n[i][j])
            new.append(math.log(w[i] / denom) if denom and w[i] > 0 else logs[i] - 50.0)
        mean = statistics.fmean(new)
        new = [x - mean for x in new]
        change = max(abs(x - y) for x, y in zip(new, logs))
        logs = new
        if change < tolerance:
            break
    ratings = [400.0 * x / math.log(10) for x in logs]
    mean = statistics.fmean(ratings)
    return {name: anchor + r - mean for name, r in zip(names, ratings)}


def rating_intervals(
    rows: Sequence[GameRow], specs: Sequence[str], resamples: int = BOOTSTRAP, seed: int = BOOTSTRAP_SEED,
) -> dict[str, tuple[float, float]]:
    """95% intervals of the ratings of the distinct ``specs``: the 2.5 and 97.5 percentiles of the ratings fitted to
    ``resamples`` bootstrap resamples of the games (as many games, drawn with replacement from a
    :class:`random.Random` seeded with ``seed``, so the same games give the same intervals).  Resampling whole games
    keeps the pairs of one game together (they are not independent)."""
    distinct = list(dict.fromkeys(specs))
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    per_game = [pairwise_outcomes([row]) for row in rows if row.finished]
    if not per_game or len(distinct) < 2:
        return {spec: (ANCHOR, ANCHOR) for spec in distinct}
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {spec: [] for spec in distinct}
    for _ in range(resamples):
        outcomes = [o for _ in per_game for o in per_game[rng.randrange(len(per_game))]]
        for spec, rating in fit_ratings(outcomes, distinct, tolerance=1e-6).items():
            samples[spec].append(rating)
    out = {}
    for spec, values in samples.items():
        values.sort()
        out[spec] = (_percentile(values, 0.025), _percentile(values, 0.975))
    return out


def _percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated linearly between neighbours."""
    pos = q * (len(ordered) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def rating_table(rows: Sequence[GameRow], specs: Sequence[str], resamples: int = BOOTSTRAP) -> list[Rating]:
    """Ratings of the distinct specs (pooled over entries), best first, with their pairwise records and 95%
    intervals (:func:`rating_intervals`)."""
    distinct = list(dict.fromkeys(specs))
    outcomes = pairwise_outcomes(rows)
    fitted = fit_ratings(outcomes, distinct)
    intervals = rating_intervals(rows, distinct, resamples)
    out = []
    for spec in distinct:
        w = d = lost = 0
        for a, b, score in outcomes:
            if spec not in (a, b):
                continue
            mine = score if a == spec else 1.0 - score
            if mine == 1.0:
                w += 1
            elif mine == 0.0:
                lost += 1
            else:
                d += 1
        total = w + d + lost
        out.append(Rating(spec, fitted[spec], total, w, d, lost, (w + d / 2) / total if total else 0.0,
                          *intervals[spec]))
    return sorted(out, key=lambda r: -r.rating)


# ---------------------------------------------------------------------------------------------- the run


@dataclass
class ArenaResult:
    """Everything an arena run produced."""

    config: ArenaConfig
    rows: list[GameRow]
    bots: list[BotStats]
    ratings: list[Rating]
    seconds: float

    @property
    def wins_by_seat(self) -> list[float]:
        """Wins (shared wins split) by seat position, whoever sat there."""
        out = [0.0] * self.config.players
        for row in self.rows:
            for s in row.seats:
                out[s.seat] += s.win
        return out

    def to_json(self) -> dict[str, Any]:
        finished = sum(r.finished for r in self.rows)
        return {
            "config": self.config.to_json(),
            "games_played": len(self.rows),
            "games_finished": finished,
            "seconds": round(self.seconds, 3),
            "wins_by_seat": [round(x, 4) for x in self.wins_by_seat],
            "bots": [asdict(b) for b in self.bots],
            "ratings": [asdict(r) for r in self.ratings],
            "rating_method": "Bradley-Terry MLE over pairwise final-total outcomes between different specs "
            "(draws = half win, 1 virtual draw per pair), Elo scale, mean 1500; 95% CI: 2.5/97.5 percentiles of "
            f"{BOOTSTRAP} bootstrap resamples of the finished games (seed {BOOTSTRAP_SEED})",
            "games": [asdict(r) for r in self.rows],
        }


#: What makes two arena runs the same games (a resumed run must match the journal's).
_SAME_GAMES = ("players", "seats", "pool", "games", "seed", "options", "max_moves", "clock")


def read_journal(path: Path, config: ArenaConfig) -> list[GameRow]:
    """The games a journal (``games.jsonl``, written by :func:`run_arena`) holds for ``config``: its first line is
    the configuration, each further line one finished game.  :class:`ArenaError` when the journal is of other games
    or damaged (a line cut short by a kill at the end is ignored: that game is played again)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    if not lines:
        return []
    try:
        head = json.loads(lines[0])
    except ValueError:
        raise ArenaError(f"{path}: not an arena journal") from None
    want = config.to_json()
    if isinstance(head, dict):
        head.setdefault("clock", "wall")  # journals written before --clock existed
        head.setdefault("pool", False)  # and before --pool
    if not isinstance(head, dict) or any(head.get(k) != want[k] for k in _SAME_GAMES):
        raise ArenaError(f"{path} holds other games ({', '.join(_SAME_GAMES)} differ): use another --out")
    rows: dict[int, GameRow] = {}
    for n, line in enumerate(lines[1:], start=2):
        try:
            row = GameRow.from_json(json.loads(line))
        except (ValueError, TypeError, KeyError):
            if n == len(lines):
                break  # the last line, cut short
            raise ArenaError(f"{path}:{n}: damaged line") from None
        if not 0 <= row.index < config.games:
            raise ArenaError(f"{path}:{n}: game {row.index} is not one of these {config.games}")
        rows[row.index] = row
    return [rows[i] for i in sorted(rows)]


def run_arena(
    config: ArenaConfig, on_game: Callable[[GameRow], None] | None = None, journal: Path | None = None,
    done: Sequence[GameRow] = (),
) -> ArenaResult:
    """Play every game of ``config`` and summarise them: with the ``process`` backend in this process (``jobs``
    1) or in ``config.jobs`` worker processes, with the ``ray`` backend as Ray tasks (:mod:`hansa.arena_ray`;
    :class:`ArenaError` when Ray is not installed or the cluster cannot be reached).

    ``on_game`` is called in this process after each game, in completion order; the returned rows are in game
    order.  ``journal``: a file each finished game is appended to at once (flushed to disk), so a long run that is
    stopped loses no finished game; ``done``: games already played (:func:`read_journal`), not played again."""
    start = time.perf_counter()
    if config.records_dir is not None:
        config.records_dir.mkdir(parents=True, exist_ok=True)
    finished = {row.index for row in done}
    tasks = [config.task(i) for i in range(config.games) if i not in finished]
    if journal is not None:
        journal.parent.mkdir(parents=True, exist_ok=True)
        _drop_cut_line(journal)
        log = journal.open("a", encoding="utf-8")
        if journal.stat().st_size == 0:
            log.write(json.dumps(config.to_json()) + "\n")
        user_on_game = on_game

        def on_game(row: GameRow) -> None:
            log.write(json.dumps(asdict(row)) + "\n")
            log.flush()
            os.fsync(log.fileno())
            if user_on_game is not None:
                user_on_game(row)

    try:
        rows = _play(config, tasks, on_game)
    finally:
        if journal is not None:
            log.close()
    rows = sorted([*done, *rows], key=lambda r: r.index)
    bots = summarize(rows, config.labels, config.seats)
    ratings = rating_table(rows, config.seats)
    return ArenaResult(config, rows, bots, ratings, time.perf_counter() - start)


def _drop_cut_line(path: Path) -> None:
    """Cut a journal back to its last whole line (a kill while a line was written leaves part of it)."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)


def _play(config: ArenaConfig, tasks: list[GameTask], on_game: Callable[[GameRow], None] | None) -> list[GameRow]:
    rows: list[GameRow] = []
    if not tasks:
        return rows
    if config.backend == "ray":
        from .arena_ray import run_games

        rows = sorted(run_games(tasks, config.address, on_game), key=lambda r: r.index)
    elif config.jobs == 1:
        for task in tasks:
            row = play_game(task)
            rows.append(row)
            if on_game is not None:
                on_game(row)
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(config.jobs, len(tasks)), mp_context=context) as pool:
            futures = [pool.submit(play_game, task) for task in tasks]
            try:
                for future in as_completed(futures):
                    row = future.result()
                    rows.append(row)
                    if on_game is not None:
                        on_game(row)
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
    return rows


# ---------------------------------------------------------------------------------------------- output

GAME_COLUMNS = [
    "game", "seed", "seat", "label", "spec", "total", *CATEGORIES, "win", "winner", "moves", "turns", "finished",
    "end_triggers", "decisions", "think_seconds", "fallbacks",
]
BOT_COLUMNS = [
    "label", "spec", "games", "wins", "win_share", "ci_low", "ci_high", "mean_total", "sd_total",
    *(f"mean_{c}" for c in CATEGORIES), "mean_moves", "mean_turns", "decisions", "seconds_per_decision", "rating",
    "rating_ci_low", "rating_ci_high",
]


def write_outputs(result: ArenaResult, out_dir: Path) -> dict[str, Path]:
    """Write ``results.json``, ``games.csv``, ``bots.csv`` and ``scores.png`` into ``out_dir``; return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: out_dir / name for name in ("results.json", "games.csv", "bots.csv", "scores.png")}
    paths["results.json"].write_text(json.dumps(result.to_json(), indent=1) + "\n", encoding="utf-8")
    with paths["games.csv"].open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(GAME_COLUMNS)
        for row in result.rows:
            for s in row.seats:
                writer.writerow([
                    row.index, row.seed, s.seat, s.label, s.spec, s.total, *(s.breakdown[c] for c in CATEGORIES),
                    round(s.win, 6), int(s.seat in row.winners), row.moves, row.turns, int(row.finished),
                    " ".join(row.end_triggers), s.decisions, round(s.think_seconds, 6), s.fallbacks,
                ])
    ratings = {r.spec: r for r in result.ratings}
    with paths["bots.csv"].open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(BOT_COLUMNS)
        for b in result.bots:
            writer.writerow([
                b.label, b.spec, b.games, b.wins, round(b.win_share, 6), round(b.ci_low, 6), round(b.ci_high, 6),
                round(b.mean_total, 4), round(b.sd_total, 4), *(round(b.mean_breakdown[c], 4) for c in CATEGORIES),
                round(b.mean_moves, 2), round(b.mean_turns, 2), b.decisions, round(b.seconds_per_decision, 8),
                *_rating_columns(ratings.get(b.spec)),
            ])
    plot_scores(result, paths["scores.png"])
    return paths


def _rating_columns(rating: Rating | None) -> list[float]:
    """``rating``, ``rating_ci_low``, ``rating_ci_high`` of a bot (the anchor for a spec without a rating)."""
    if rating is None:
        return [ANCHOR, ANCHOR, ANCHOR]
    return [round(rating.rating, 1), round(rating.ci_low, 1), round(rating.ci_high, 1)]


def plot_scores(result: ArenaResult, path: Path) -> None:
    """PNG with a box plot of final totals per entry and a stacked bar chart of the mean score breakdown.

    Uses :class:`matplotlib.figure.Figure` directly (Agg canvas), so no GUI backend or pyplot state is involved."""
    from matplotlib.figure import Figure

    labels = result.config.labels
    totals = [[s.total for row in result.rows for s in row.seats if s.entry == e] for e in range(len(labels))]
    fig = Figure(figsize=(max(7.0, 1.6 * len(labels) * 2), 4.8), layout="constrained")
    box_ax, bar_ax = fig.subplots(1, 2)
    box_ax.boxplot(totals, showmeans=True)
    box_ax.set_xticks(range(1, len(labels) + 1), labels, rotation=20)
    box_ax.set_ylabel("final score")
    box_ax.set_title(f"Final scores, {len(result.rows)} games, {result.config.players} players")
    box_ax.grid(axis="y", alpha=0.3)
    bottom = [0.0] * len(labels)
    xs = list(range(len(labels)))
    for c in CATEGORIES:
        heights = [b.mean_breakdown[c] for b in result.bots]
        bar_ax.bar(xs, heights, bottom=bottom, label=c.replace("_", "-"))
        bottom = [x + h for x, h in zip(bottom, heights)]
    bar_ax.set_xticks(xs, labels, rotation=20)
    bar_ax.set_ylabel("mean points")
    bar_ax.set_title("Mean score breakdown")
    bar_ax.legend(fontsize="small")
    fig.savefig(path, dpi=100)


def print_summary(result: ArenaResult, console: Console) -> None:
    """Print the per-entry table, the score-breakdown table and the rating table with rich.

    When the console is not a terminal (a pipe or a file) tables are printed at their natural width instead of
    being squeezed into 80 columns."""
    cfg = result.config

    def show(table: Table) -> None:
        natural = Measurement.get(console, console.options.update(width=10_000), table).maximum
        if console.is_terminal or natural <= console.width:
            console.print(table)
        else:
            Console(file=console.file, width=natural, color_system=None).print(table)

    variant = f" ({cfg.options.get('two_player_variant', 'neutral')} variant)" if cfg.players == 2 else ""
    finished = sum(r.finished for r in result.rows)
    lineups = (f"a pool of {len(cfg.seats)}: every combination of {cfg.players}, seats rotated" if cfg.pool
               else "seats rotated")
    table = Table(title=f"Arena: {len(result.rows)} games, {cfg.players} players{variant}, "
                        f"seeds {cfg.seed}..{cfg.seed + cfg.games - 1}, {lineups}")
    for name in ("Bot", "games", "wins", "win share", "95% CI", "mean score", "sd", "Elo", "Elo 95% CI",
                 "moves/game", "turns/game", "ms/decision"):
        table.add_column(name, justify="left" if name == "Bot" else "right")
    by_spec = {r.spec: r for r in result.ratings}
    bots = sorted(result.bots, key=lambda b: -by_spec[b.spec].rating) if cfg.pool else result.bots
    for b in bots:
        r = by_spec.get(b.spec)
        table.add_row(
            b.label, str(b.games), f"{b.wins:g}", f"{b.win_share:.1%}", f"{b.ci_low:.1%}-{b.ci_high:.1%}",
            f"{b.mean_total:.1f}", f"{b.sd_total:.1f}", f"{r.rating:.0f}" if r else "-",
            f"{r.ci_low:.0f}-{r.ci_high:.0f}" if r else "-", f"{b.mean_moves:.0f}", f"{b.mean_turns:.0f}",
            f"{b.seconds_per_decision * 1000:.2f}",
        )
    show(table)
    breakdown = Table(title="Mean score breakdown")
    breakdown.add_column("Bot")
    for c in CATEGORIES:
        breakdown.add_column(c.replace("_", "-"), justify="right")
    breakdown.add_column("total", justify="right", style="bold")
    for b in result.bots:
        breakdown.add_row(b.label, *(f"{b.mean_breakdown[c]:.1f}" for c in CATEGORIES), f"{b.mean_total:.1f}")
    show(breakdown)
    ratings = Table(title="Elo-style ratings (Bradley-Terry fit of pairwise final totals, mean 1500)")
    for name in ("Bot", "rating", "95% CI", "pairs", "won", "drawn", "lost", "score"):
        ratings.add_column(name, justify="left" if name == "Bot" else "right")
    for r in result.ratings:
        ratings.add_row(r.spec, f"{r.rating:.0f}", f"{r.ci_low:.0f}-{r.ci_high:.0f}", str(r.comparisons),
                        str(r.wins), str(r.draws), str(r.losses), f"{r.score:.1%}")
    show(ratings)
    seats = ", ".join(f"{i + 1}: {w:g}" for i, w in enumerate(result.wins_by_seat))
    console.print(f"finished games: {finished}/{len(result.rows)}   wins by seat position: {seats}")
    failed: dict[str, list[int]] = {}
    for row in result.rows:
        for s in row.seats:
            if s.spec.startswith("engine:"):
                counts = failed.setdefault(s.label, [0, 0])
                counts[0] += s.fallbacks
                counts[1] += s.decisions
    for label, (fell, decided) in failed.items():
        console.print(f"{label}: {fell} of {decided} decisions played by the fallback bot (engine failures; "
                      "see docs/engine-protocol.md)", highlight=False)
    where = f"{cfg.jobs} job(s)" if cfg.backend == "process" else "Ray" + (f" at {cfg.address}" if cfg.address else "")
    console.print(f"wall time {result.seconds:.1f} s with {where}")
