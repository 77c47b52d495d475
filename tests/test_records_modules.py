"""Records of games with the Big Box modules (docs/rules.md §8): the dealt setup (tiles on display, mission cards) is
recorded and checked on replay; ``hansa simulate --check`` and ``hansa replay`` play them from the command line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from hansa.core.errors import RecordError
from hansa.core.scoring import final_scores
from hansa.game import Game
from hansa.record import game_from_record, game_to_record
from module_play import ALL
from test_cli import run

PROMO = ",".join(ALL["marker_supply"])


def played(seed: int, moves: int | None = None) -> Game:
    game = Game(["Ann", "Bo", "Cy", "Di"], seed=seed, options=ALL)
    rng = random.Random(seed)
    while not game.state.is_over and (moves is None or len(game.moves) < moves):
        legal = game.state.legal_moves()
        claims = [m for m in legal if m.type == "claim"]  # claiming whenever it can, a random game ends sooner
        game.play(rng.choice(claims if claims and rng.random() < 0.8 else legal))
    return game


def test_a_record_holds_and_checks_the_setup() -> None:
    game = played(3)
    record = game_to_record(game)
    assert record["setup"]["missions"] == game.state.missions
    assert len(record["setup"]["tiles"]) == 4
    assert record["result"]["scores"][0]["missions"] == final_scores(game.state)[0].missions
    again = game_from_record(json.loads(json.dumps(record)))
    assert again.state == game.state
    bad = json.loads(json.dumps(record))
    bad["setup"]["missions"] = list(reversed(bad["setup"]["missions"]))
    with pytest.raises(RecordError, match="setup says missions"):
        game_from_record(bad)
    bad["setup"] = {"tiles": ["F-ACT"] * 4}
    with pytest.raises(RecordError, match="setup says tiles"):
        game_from_record(bad)
    bad["setup"] = {"cards": []}
    with pytest.raises(RecordError, match="setup"):
        game_from_record(bad)
    plain = Game(["Ann", "Bo", "Cy"], seed=1)
    assert "setup" not in game_to_record(plain)
    record = game_to_record(plain)
    record["setup"] = {"missions": [1, 2, 3]}
    with pytest.raises(RecordError, match="deals none"):
        game_from_record(record)


def test_simulate_check_and_replay_with_modules(tmp_path: Path) -> None:
    out = run("simulate", "-p", "4", "-n", "2", "-s", "7", "--check", "--records", str(tmp_path), "--json",
              "-o", "missions=true", "-o", "emperors_favour=true", "-o", f"marker_supply={PROMO}")
    summary = json.loads(out.stdout)
    assert summary["finished"] == 2
    for f in sorted(tmp_path.glob("*.json")):
        rec = json.loads(f.read_text())
        assert rec["options"]["marker_supply"] == ALL["marker_supply"] and "missions" in rec["setup"]
        replay = json.loads(run("replay", str(f), "--json").stdout)
        assert replay["scores"] == rec["result"]["scores"]
        assert all("missions" in s for s in replay["scores"])
    bad = run("simulate", "-p", "4", "-n", "1", "-o", "marker_supply=block,block,block", check=False)
    assert bad.returncode != 0 and "marker_supply" in bad.stderr
