"""The arena's ladder (``hansa arena --pool``): a pool of more bots than seats played in every combination, seats
rotated, ranked in one table with win shares and Elo ratings, each with a 95% interval."""

from __future__ import annotations

import collections
import csv
import itertools
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hansa.arena import (
    ArenaConfig,
    ArenaError,
    ArenaResult,
    GameRow,
    SeatResult,
    fit_ratings,
    pairwise_outcomes,
    parse_pool,
    pool_lineup,
    rating_intervals,
    read_journal,
    run_arena,
)

HANSA = shutil.which("hansa") or str(Path(sys.executable).parent / "hansa")
POOL = "heuristic,purpose,random,uniform"


@pytest.mark.parametrize("size,players", [(4, 3), (5, 3), (6, 4), (5, 2), (7, 5), (3, 3)])
def test_pool_lineups_cover_every_combination_and_rotation_evenly(size: int, players: int) -> None:
    count = math.comb(size, players)
    games = count * players
    seen = collections.Counter()
    for i in range(games):
        seats = pool_lineup(i, size, players)
        assert len(set(seats)) == players and all(0 <= e < size for e in seats)
        combo = tuple(sorted(seats))
        rotation = (i // count) % players
        assert [combo[(s - rotation) % players] for s in range(players)] == seats
        seen[(combo, rotation)] += 1
    # Every combination in every rotation exactly once per round: every bot in every seat equally often.
    assert set(seen) == {(c, r) for c in itertools.combinations(range(size), players) for r in range(players)}
    assert set(seen.values()) == {1}
    seat_counts = collections.Counter((e, s) for i in range(games) for s, e in enumerate(pool_lineup(i, size, players)))
    assert len(set(seat_counts.values())) == 1 and len(seat_counts) == size * players
    # Any number of games: two combinations' counts differ by at most one.
    for partial in (1, max(1, count - 1), count + 2, 2 * count + 1):
        counts = collections.Counter(tuple(sorted(pool_lineup(i, size, players))) for i in range(partial))
        fewest = min(counts.get(c, 0) for c in itertools.combinations(range(size), players))
        assert max(counts.values()) - fewest <= 1


@pytest.fixture(scope="module")
def ladder() -> ArenaResult:
    return run_arena(ArenaConfig.build(3, POOL, games=8, seed=21, jobs=1, max_moves=1500, pool=True))


def test_pool_games_ratings_and_tables(ladder: ArenaResult) -> None:
    names = POOL.split(",")
    assert len(ladder.rows) == 8
    for i, row in enumerate(ladder.rows):
        assert row.seed == 21 + i
        assert [s.entry for s in row.seats] == pool_lineup(i, 4, 3)
        assert [s.spec for s in row.seats] == [names[e] for e in pool_lineup(i, 4, 3)]
    # Each of the 4 combinations twice (two rotations): every bot in 6 games.
    assert [b.games for b in ladder.bots] == [6, 6, 6, 6]
    assert sum(b.wins for b in ladder.bots) == pytest.approx(sum(r.finished for r in ladder.rows))
    ratings = {r.spec: r for r in ladder.ratings}
    assert set(ratings) == set(names)
    for r in ratings.values():
        assert r.ci_low <= r.rating <= r.ci_high
    # The heuristic bot wins every finished game it plays here: first, its interval above uniform's.
    assert ladder.ratings[0].spec == "heuristic"
    assert ratings["heuristic"].ci_low > ratings["uniform"].ci_high
    data = ladder.to_json()
    assert data["config"]["pool"] is True and data["config"]["seats"] == names
    assert "bootstrap" in data["rating_method"]


def test_rating_intervals_bootstrap() -> None:
    """The same games give the same intervals; more games give a narrower one; the fit on the original games lies
    inside."""

    def rows(n: int) -> list[GameRow]:
        out = []
        for g in range(n):
            a_wins = g % 4 != 0  # a beats b three games in four
            seats = [SeatResult(0, 0, "a", "a", 10 if a_wins else 5, {}, float(a_wins), 1, 0.0),
                     SeatResult(1, 1, "b", "b", 5 if a_wins else 10, {}, float(not a_wins), 1, 0.0)]
            out.append(GameRow(g, g, 10, 5, True, [], [0 if a_wins else 1], seats, 0.0))
        return out

    small, large = rows(20), rows(400)
    first = rating_intervals(small, ["a", "b"])
    assert first == rating_intervals(small, ["a", "b"])
    point = fit_ratings(pairwise_outcomes(small), ["a", "b"])
    assert first["a"][0] < point["a"] < first["a"][1]
    wide = first["a"][1] - first["a"][0]
    narrow = rating_intervals(large, ["a", "b"])
    assert narrow["a"][1] - narrow["a"][0] < wide / 2
    assert narrow["a"][0] > 1500 > narrow["b"][1]
    assert rating_intervals([], ["a", "b"]) == {"a": (1500.0, 1500.0), "b": (1500.0, 1500.0)}
    with pytest.raises(ValueError):
        rating_intervals(small, ["a", "b"], resamples=0)


@pytest.mark.parametrize(
    "players,pool,message",
    [
        (3, "heuristic,purpose", "give 3 to 20"),
        (3, "heuristic,purpose,heuristic", "more than once"),
        (3, "heuristic,,purpose,random", "empty bot spec"),
        (3, "heuristic,purpose,nobody", "unknown bot 'nobody'"),
        (6, "heuristic,purpose,random,uniform,mcts:easy,mcts:medium", "2 to 5"),
        (2, ",".join(["random"] + [f"mcts:iterations={n}" for n in range(1, 21)]), "give 2 to 20"),
    ],
)
def test_bad_pools_rejected(players: int, pool: str, message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        parse_pool(pool, players)
    with pytest.raises(ArenaError, match=message):
        ArenaConfig.build(players, pool, games=1, pool=True)


def test_pool_journal_is_not_a_seats_journal(tmp_path: Path) -> None:
    journal = tmp_path / "games.jsonl"
    config = ArenaConfig.build(3, "heuristic,purpose,random", games=1, seed=3, pool=True)
    run_arena(config, journal=journal)
    assert [r.index for r in read_journal(journal, config)] == [0]
    with pytest.raises(ArenaError, match="other games"):
        read_journal(journal, ArenaConfig.build(3, "heuristic,purpose,random", games=1, seed=3))


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([HANSA, "arena", *args], capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_cli_pool_table_and_outputs(tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    text = run_cli("--players", "2", "--pool", "heuristic,purpose,random", "--games", "6", "--seed", "5",
                   "--max-moves", "1500", "--out", str(out)).stdout
    assert "a pool of 3: every combination of 2" in text and "Elo 95% CI" in text
    with (out / "bots.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["spec"] for r in rows] == ["heuristic", "purpose", "random"]
    assert all(int(r["games"]) == 4 for r in rows)
    assert all(float(r["rating_ci_low"]) <= float(r["rating"]) <= float(r["rating_ci_high"]) for r in rows)
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["pool"] is True and len(data["games"]) == 6
    both = run_cli("--players", "3", "--seats", "a,b,c", "--pool", "a,b,c", "--out", str(out), check=False)
    assert both.returncode == 2 and "not both" in both.stderr
    neither = run_cli("--players", "3", "--out", str(out), check=False)
    assert neither.returncode == 2 and "--seats" in neither.stderr and "--pool" in neither.stderr
