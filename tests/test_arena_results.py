"""The arena journals kept in ``benchmarks/results/``: each is a readable journal of the games its README command
plays (so ``--resume`` continues it, or writes its tables once it is complete), and the README reports what it holds.
"""

from __future__ import annotations

import csv
import json
import re
import shlex
from pathlib import Path

import pytest
import typer.main

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from hansa.arena import ArenaConfig, read_journal, wilson_interval  # noqa: E402
from hansa.cli import app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = "benchmarks/results/ismcts-1s"


def _readme_row() -> str:
    """The README's Bots row of the 1-second comparison (the one whose command writes to ``OUT``)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    rows = [line for line in lines if line.startswith("|") and f"--out {OUT}" in line]
    assert len(rows) == 1, f"one README table row names --out {OUT}"
    return rows[0]


def _config(row: str) -> ArenaConfig:
    """The arena config of the row's ``hansa arena`` command, its words parsed by the CLI itself."""
    match = re.search(r"`hansa arena ([^`]*)`", row)
    assert match is not None
    command = typer.main.get_command(app).commands["arena"]
    p = command.make_context("arena", shlex.split(match.group(1))).params
    assert p["out"] == Path(OUT) and not p["option"] and p["map_name"] is None
    return ArenaConfig.build(p["players"], p["seats"], p["games"], seed=p["seed"], jobs=p["jobs"],
                             variant=p["variant"], max_moves=p["max_moves"], clock=p["clock"])


def test_journal_matches_the_readme() -> None:
    row = _readme_row()
    config = _config(row)
    games = read_journal(ROOT / OUT / "games.jsonl", config)
    assert games, "the journal holds finished games"
    assert len({g.index for g in games}) == len(games)
    for game in games:
        assert game.seed == config.seed + game.index
        assert sorted(s.spec for s in game.seats) == sorted(config.seats)
        assert game.finished or game.moves == config.move_limit
        assert abs(sum(s.win for s in game.seats) - (1 if game.finished else 0)) < 1e-9
    wins = sum(s.win for g in games for s in g.seats if s.spec == config.seats[0])
    lo, hi = wilson_interval(wins, len(games))
    n = len(games)
    # The README states the count, the wins and their interval as the journal has them.
    count = f"{n} of {config.games}" if n == config.games else f"after {n} of the {config.games} games"
    assert count.lower() in row.lower(), f"the README row should say {count!r}"
    assert f"{wins:g}" in row
    high = "100" if hi >= 1 else f"{100 * hi:.1f}"
    assert f"Wilson 95 % CI {100 * lo:.1f}–{high} %" in row


def test_complete_journal_has_its_tables() -> None:
    """Once every game is in, the tables the command wrote are kept beside the journal and agree with it."""
    config = _config(_readme_row())
    games = read_journal(ROOT / OUT / "games.jsonl", config)
    if len(games) < config.games:
        pytest.skip(f"{len(games)} of {config.games} games played: the command has not written its tables yet")
    results = json.loads((ROOT / OUT / "results.json").read_text(encoding="utf-8"))
    assert results["games_played"] == config.games
    assert [g["index"] for g in results["games"]] == sorted(g.index for g in games)
    wins = sum(s.win for g in games for s in g.seats if s.spec == config.seats[0])
    hero = next(b for b in results["bots"] if b["spec"] == config.seats[0])
    assert abs(hero["wins"] - wins) < 1e-9
    with (ROOT / OUT / "bots.csv").open(encoding="utf-8", newline="") as fh:
        rows = {row["label"]: row for row in csv.DictReader(fh)}
    assert abs(float(rows[hero["label"]]["wins"]) - wins) < 1e-9
