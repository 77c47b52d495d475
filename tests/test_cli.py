"""The `hansa` command line, run as a real subprocess through the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HANSA = shutil.which("hansa") or str(Path(sys.executable).parent / "hansa")
SHARED = Path(__file__).parent.parent.parent / "shared" / "boards.json"
VENDORED = Path(__file__).parent / "fixtures" / "boards.json"


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([HANSA, *args], capture_output=True, text=True, timeout=600)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.parametrize("players,side", [(3, "2-3"), (4, "4-5")])
def test_board_json_equals_shared_side(players: int, side: str) -> None:
    ref = json.loads((SHARED if SHARED.exists() else VENDORED).read_text())["sides"][side]
    out = json.loads(run("board", "--players", str(players), "--json").stdout)
    assert out == ref


def test_board_table_and_bad_count() -> None:
    assert "Groningen" in run("board", "--players", "5").stdout
    bad = run("board", "--players", "7", check=False)
    assert bad.returncode == 2 and "2 to 5 players" in bad.stderr


def test_simulate_writes_records_that_replay(tmp_path: Path) -> None:
    out = run("simulate", "--players", "3", "--games", "2", "--seed", "5", "--records", str(tmp_path), "--json")
    summary = json.loads(out.stdout)
    assert summary["games"] == 2 and summary["finished"] == 2
    assert summary["moves_per_game"]["mean"] > 0 and summary["moves_per_second"] > 0
    files = sorted(tmp_path.glob("*.json"))
    assert [f.name for f in files] == ["game-3p-5.json", "game-3p-6.json"]
    for f in files:
        rec = json.loads(f.read_text())
        replay = json.loads(run("replay", str(f), "--json").stdout)
        assert replay["over"] is True
        assert replay["scores"] == rec["result"]["scores"]
        assert replay["winners"] == rec["result"]["winners"]
    table = run("replay", str(files[0])).stdout
    assert "network" in table and "winner:" in table


def test_simulate_checked_text_summary() -> None:
    out = run("simulate", "--players", "4", "--games", "1", "--seed", "2", "--check").stdout
    assert "every invariant held" in out and "moves/s" in out and "end triggers" in out


def test_simulate_rejects_bad_arguments() -> None:
    assert "unknown policy" in run("simulate", "--policy", "clever", check=False).stderr
    assert "2 to 5 players" in run("simulate", "--players", "6", check=False).stderr


def test_replay_reports_first_bad_move(tmp_path: Path) -> None:
    rec = {"format": "hansa-record", "version": 1, "players": ["a", "b", "c"], "seed": 1,
           "moves": ["end", "claim GRO-EMD"]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    proc = run("replay", str(path), check=False)
    assert proc.returncode == 2
    assert "move 2 (claim GRO-EMD)" in proc.stderr
    path.write_text("{not json")
    proc = run("replay", str(path), check=False)
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr
    proc = run("replay", str(tmp_path / "missing.json"), check=False)
    assert proc.returncode == 2 and "cannot read" in proc.stderr
