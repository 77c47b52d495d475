"""The bot arena (``hansa.arena`` and ``hansa arena``): determinism across jobs, rotation, statistics, outputs."""

from __future__ import annotations

import csv
import json
import math
import shutil
import statistics
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
    lineup,
    pairwise_outcomes,
    parse_seats,
    read_journal,
    run_arena,
    seat_labels,
    summarize,
    wilson_interval,
    write_outputs,
)
from hansa.core.scoring import CATEGORIES
from hansa.record import replay_record

HANSA = shutil.which("hansa") or str(Path(sys.executable).parent / "hansa")
SEATS = "heuristic,purpose,random"


@pytest.fixture(scope="module")
def serial() -> ArenaResult:
    return run_arena(ArenaConfig.build(3, SEATS, games=4, seed=11, jobs=1))


def test_jobs_do_not_change_results(serial: ArenaResult) -> None:
    parallel = run_arena(ArenaConfig.build(3, SEATS, games=4, seed=11, jobs=2))
    assert [r.outcome() for r in parallel.rows] == [r.outcome() for r in serial.rows]
    assert [r.index for r in parallel.rows] == [0, 1, 2, 3]
    assert parallel.ratings == serial.ratings
    for a, b in zip(parallel.bots, serial.bots):
        assert (a.wins, a.mean_total, a.mean_breakdown, a.decisions) == (b.wins, b.mean_total, b.mean_breakdown, b.decisions)


def test_rotation_seeds_and_stats(serial: ArenaResult) -> None:
    labels = ["heuristic", "purpose", "random"]
    for i, row in enumerate(serial.rows):
        assert row.seed == 11 + i and row.finished
        assert [s.entry for s in row.seats] == lineup(i, 3) == [(s - i) % 3 for s in range(3)]
        assert [s.label for s in row.seats] == [labels[e] for e in lineup(i, 3)]
        assert math.isclose(sum(s.win for s in row.seats), 1.0)
        assert sum(s.decisions for s in row.seats) == row.moves
        for s in row.seats:
            assert s.total == sum(s.breakdown[c] for c in CATEGORIES)
    seats_played = {e: sorted(s.seat for r in serial.rows for s in r.seats if s.entry == e) for e in range(3)}
    assert seats_played[0] == [0, 0, 1, 2]  # 4 games: entry 0 sits in seats 0, 1, 2, 0
    assert math.isclose(sum(b.wins for b in serial.bots), 4.0)
    for b in serial.bots:
        assert b.games == 4 and b.ci_low <= b.win_share <= b.ci_high
        assert b.mean_moves > 0 and b.mean_turns > 0 and b.seconds_per_decision > 0
        assert math.isclose(b.mean_total, sum(b.mean_breakdown.values()))
    assert statistics.fmean(r.rating for r in serial.ratings) == pytest.approx(1500.0)
    assert all(r.comparisons == 8 for r in serial.ratings)


def test_outputs_exist_and_parse(serial: ArenaResult, tmp_path: Path) -> None:
    paths = write_outputs(serial, tmp_path / "out")
    data = json.loads(paths["results.json"].read_text())
    assert data["config"]["seats"] == SEATS.split(",") and data["games_played"] == 4
    assert len(data["games"]) == 4 and len(data["bots"]) == 3 and len(data["ratings"]) == 3
    assert [GameRow.from_json(g).outcome() for g in data["games"]] == [r.outcome() for r in serial.rows]
    with paths["games.csv"].open() as fh:
        games = list(csv.DictReader(fh))
    assert len(games) == 4 * 3
    assert {g["label"] for g in games} == {"heuristic", "purpose", "random"}
    assert sum(float(g["win"]) for g in games) == pytest.approx(4.0)
    with paths["bots.csv"].open() as fh:
        bots = list(csv.DictReader(fh))
    assert [b["label"] for b in bots] == ["heuristic", "purpose", "random"]
    assert all(float(b["ci_low"]) <= float(b["win_share"]) <= float(b["ci_high"]) for b in bots)
    png = paths["scores.png"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == 1.0
    lo, hi = wilson_interval(1, 10)
    assert lo == pytest.approx(0.0179, abs=1e-4) and hi == pytest.approx(0.4042, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    narrow, wide = wilson_interval(500, 1000), wilson_interval(5, 10)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]


def test_ratings() -> None:
    always = [("champ", "chump", 1.0)] * 20 + [("champ", "mid", 1.0)] * 20 + [("mid", "chump", 0.5)] * 20
    r = fit_ratings(always)
    assert r["champ"] > r["mid"] and r["champ"] > r["chump"]
    assert math.isfinite(r["champ"]) and sum(r.values()) / 3 == pytest.approx(1500.0)
    # Elo scale: a 75% score is 400 * log10(3) = 190.8 points.
    r = fit_ratings([("a", "b", 1.0)] * 300 + [("a", "b", 0.0)] * 100, prior_draws=0.0)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3), abs=0.1)
    assert r["a"] + r["b"] == pytest.approx(3000.0)
    assert fit_ratings([("x", "y", 0.5)] * 10, ["x", "y", "z"]) == pytest.approx({"x": 1500, "y": 1500, "z": 1500})
    assert fit_ratings([], ["solo"]) == {"solo": 1500.0}


def _row(index: int, totals: list[int], specs: list[str], wins: list[int]) -> GameRow:
    labels = seat_labels(specs)
    seats = [
        SeatResult(s, s, labels[s], specs[s], t, {c: (t if c == "in_game" else 0) for c in CATEGORIES},
                   1 / len(wins) if s in wins else 0.0, 10, 0.01)
        for s, t in enumerate(totals)
    ]
    return GameRow(index, index, 30, 10, True, ["score"], wins, seats, 0.5)


def test_pooling_shared_wins_and_pairs() -> None:
    specs = ["heuristic", "heuristic", "random"]
    assert seat_labels(specs) == ["heuristic#1", "heuristic#2", "random"]
    rows = [_row(0, [10, 10, 3], specs, [0, 1]), _row(1, [5, 2, 5], specs, [0, 2])]
    outcomes = pairwise_outcomes(rows)
    # Same-spec seats are never compared; two heuristic-vs-random pairs per game.
    assert outcomes == [("heuristic", "random", 1.0), ("heuristic", "random", 1.0),
                        ("heuristic", "random", 0.5), ("heuristic", "random", 0.0)]
    stats = summarize(rows, seat_labels(specs), specs)
    assert [b.wins for b in stats] == [1.0, 0.5, 0.5]
    assert stats[0].mean_total == 7.5 and stats[0].seconds_per_decision == pytest.approx(0.001)


@pytest.mark.parametrize("players,seats,message", [
    (3, "heuristic,purpose", "lists 2 bot(s) but --players is 3"),
    (3, "heuristic,,random", "empty bot spec"),
    (3, "heuristic,alphazero,random", "seat 2: unknown bot 'alphazero'; bots are random, uniform, purpose"),
    (3, "heuristic,mcts:turbo,random", "seat 2: unknown mcts budget"),
    (6, "random,random,random,random,random,random", "2 to 5"),
])
def test_bad_seats_rejected(players: int, seats: str, message: str) -> None:
    with pytest.raises(ArenaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_seats(seats, players)


def test_bad_config_rejected() -> None:
    with pytest.raises(ArenaError, match="two-player games only"):
        ArenaConfig.build(3, SEATS, 4, variant="pawn")
    with pytest.raises(ArenaError, match="neutral or pawn"):
        ArenaConfig.build(2, "heuristic,random", 4, variant="bishop")
    with pytest.raises(ArenaError, match="--games"):
        ArenaConfig.build(3, SEATS, 0)
    with pytest.raises(ArenaError, match="--jobs"):
        ArenaConfig.build(3, SEATS, 4, jobs=0)
    with pytest.raises(ArenaError, match="unknown option"):
        ArenaConfig.build(3, SEATS, 4, options={"no_such_option": 1})
    cfg = ArenaConfig.build(2, "heuristic, random", 4, variant="pawn")
    assert cfg.seats == ("heuristic", "random") and cfg.options == {"two_player_variant": "pawn"}
    assert ArenaConfig.build(2, "uniform,random", 1).move_limit == 100_000


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([HANSA, "arena", *args], capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_cli_arena_json_and_records(tmp_path: Path) -> None:
    out = tmp_path / "res"
    proc = run_cli("--players", "3", "--seats", SEATS, "--games", "2", "--seed", "11", "--out", str(out),
                   "--records", "--json")
    data = json.loads(proc.stdout)
    assert data["games_played"] == 2 and [b["label"] for b in data["bots"]] == SEATS.split(",")
    assert {"results.json", "games.csv", "bots.csv", "scores.png", "records"} <= {p.name for p in out.iterdir()}
    records = sorted((out / "records").glob("*.json"))
    assert [r.name for r in records] == ["game-0000-seed11.json", "game-0001-seed12.json"]
    for rec, row in zip(records, data["games"]):
        game = replay_record(rec)
        assert game.names == [s["label"] for s in row["seats"]]
        assert [s.total for s in game.scores()] == [s["total"] for s in row["seats"]]
        assert len(game.moves) == row["moves"]


def test_cli_arena_tables_and_errors(tmp_path: Path) -> None:
    text = run_cli("-p", "2", "--seats", "purpose,random", "-n", "2", "--variant", "pawn", "--out", str(tmp_path)).stdout
    assert "win share" in text and "Elo-style ratings" in text and "results written to" in text
    bad = run_cli("--players", "3", "--seats", "heuristic,nobody,random", "--out", str(tmp_path), check=False)
    assert bad.returncode == 2 and "unknown bot 'nobody'" in bad.stderr and "heuristic" in bad.stderr
    bad = run_cli("--players", "4", "--seats", SEATS, "--out", str(tmp_path), check=False)
    assert bad.returncode == 2 and "one bot spec per seat" in bad.stderr
    bad = run_cli("--players", "3", "--seats", SEATS, "-o", "nonsense", "--out", str(tmp_path), check=False)
    assert bad.returncode == 2 and "NAME=VALUE" in bad.stderr


def test_journal_keeps_finished_games_and_a_resumed_run_plays_only_the_rest(serial: ArenaResult, tmp_path: Path) -> None:
    config = ArenaConfig.build(3, SEATS, games=4, seed=11, jobs=1)
    journal = tmp_path / "games.jsonl"
    first = run_arena(ArenaConfig.build(3, SEATS, games=4, seed=11, jobs=1), journal=journal)
    lines = journal.read_text().splitlines()
    assert len(lines) == 5 and json.loads(lines[0])["seats"] == SEATS.split(",")
    # A run stopped after two games (and a third line cut short by the kill) goes on with games 2 and 3 only.
    journal.write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])
    done = read_journal(journal, config)
    assert [r.index for r in done] == [0, 1]
    played: list[int] = []
    resumed = run_arena(config, on_game=lambda row: played.append(row.index), journal=journal, done=done)
    assert sorted(played) == [2, 3]
    assert [r.outcome() for r in resumed.rows] == [r.outcome() for r in first.rows] == [r.outcome() for r in serial.rows]
    assert [r.index for r in read_journal(journal, config)] == [0, 1, 2, 3]
    # Another run's journal is refused, and so is a damaged line before the last.
    with pytest.raises(ArenaError, match="other games"):
        read_journal(journal, ArenaConfig.build(3, SEATS, games=4, seed=12, jobs=1))
    journal.write_text("\n".join([lines[0], "{broken", lines[1]]) + "\n")
    with pytest.raises(ArenaError, match="damaged line"):
        read_journal(journal, config)


def test_cli_arena_resume(tmp_path: Path) -> None:
    out = tmp_path / "res"
    args = ("--players", "3", "--seats", SEATS, "--games", "3", "--seed", "11", "--out", str(out), "--json")
    whole = json.loads(run_cli(*args).stdout)
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join(lines[:2]) + "\n")  # as if stopped after the first game
    resumed = json.loads(run_cli(*args, "--resume").stdout)
    strip = lambda g: {k: v for k, v in g.items() if k != "seconds"} | {  # noqa: E731
        "seats": [{k: v for k, v in s.items() if k != "think_seconds"} for s in g["seats"]]}
    assert [strip(g) for g in resumed["games"]] == [strip(g) for g in whole["games"]]
    other = run_cli("--players", "3", "--seats", SEATS, "--games", "3", "--seed", "99", "--out", str(out), "--resume",
                    check=False)
    assert other.returncode == 2 and "other games" in other.stderr
