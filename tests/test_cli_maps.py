"""The command line on the expansion maps: `hansa board --map`, `simulate --map`, `arena --map`, and the terminal
board's expansion marks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from hansa.bots import make_bot
from hansa.core.state import GameState
from hansa.tui.render import render_board, render_scores
from test_cli import run

SHARED = Path(__file__).parent.parent.parent / "shared" / "expansions" / "maps.json"
VENDORED = Path(__file__).parent / "fixtures" / "maps.json"


@pytest.mark.parametrize(
    "map_name,players,key",
    [("east", 3, "east"), ("east", 5, "east"), ("britannia", 3, "britannia_3"), ("britannia", 4, "britannia_45"),
     ("britannia", 5, "britannia_45")],
)
def test_board_json_equals_the_expansion_data(map_name: str, players: int, key: str) -> None:
    """`hansa board --map M --players N --json` is exactly the matching map of the expansions' maps.json."""
    ref = json.loads((SHARED if SHARED.exists() else VENDORED).read_text())["maps"][key]
    out = json.loads(run("board", "--map", map_name, "--players", str(players), "--json").stdout)
    assert out == ref


def test_vendored_maps_equal_the_shared_file_when_present() -> None:
    if not SHARED.exists():
        pytest.skip("the shared expansion data is not beside this checkout (CI uses the vendored copy)")
    assert json.loads(SHARED.read_text()) == json.loads(VENDORED.read_text())


def test_two_players_are_refused_on_the_expansion_maps() -> None:
    for args in (("board", "--map", "east", "--players", "2"), ("simulate", "--map", "britannia", "--players", "2")):
        bad = run(*args, check=False)
        assert bad.returncode == 2 and "3 to 5 players" in bad.stderr and "Traceback" not in bad.stderr
    bad = run("board", "--map", "atlantis", check=False)
    assert bad.returncode == 2 and "unknown map" in bad.stderr


@pytest.mark.parametrize("map_name,players", [("east", 4), ("britannia", 3), ("britannia", 5)])
def test_simulate_checked_games_on_each_map(map_name: str, players: int, tmp_path: Path) -> None:
    out = run("simulate", "--map", map_name, "--players", str(players), "--games", "2", "--seed", "11",
              "--policy", "purpose", "--check", "--records", str(tmp_path), "--json")
    summary = json.loads(out.stdout)
    assert summary["finished"] == 2 and summary["invariants_checked"] is True
    for record in sorted(tmp_path.glob("*.json")):
        data = json.loads(record.read_text())
        assert data["options"]["map"] == map_name
        replay = json.loads(run("replay", str(record), "--json").stdout)
        assert replay["over"] is True and replay["scores"] == data["result"]["scores"]


def test_arena_plays_on_a_map(tmp_path: Path) -> None:
    run("arena", "--players", "3", "--seats", "heuristic,purpose,purpose", "--games", "2", "--jobs", "1",
        "--map", "east", "--out", str(tmp_path))
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["config"]["options"] == {"map": "east"}
    assert results["games_finished"] == 2


def _played(map_name: str, players: int, moves: int) -> GameState:
    state = GameState.new(players, 3, {"map": map_name})
    bots = [make_bot("heuristic", i) for i in range(players)]
    for _ in range(moves):
        if state.is_over:
            break
        state.play(bots[state.decider].choose(state))
    return state


def test_terminal_board_shows_the_expansion_marks() -> None:
    east = Console(width=160, record=True)
    east.print(render_board(_played("east", 4, 60)))
    text = east.export_text()
    assert "Koenigsberg table" in text and "/10" in text
    assert "≈" in text and "★move any 2" in text and "★reuse 2 from route" in text
    assert "Waren ↑actions/bags" in text
    britannia = Console(width=160, record=True)
    state = _played("britannia", 5, 60)
    britannia.print(render_board(state))
    text = britannia.export_text()
    assert "Plymouth table" in text and "/8" in text and "Permissions: CAR (Scotland)" in text
    assert "(W)" in text and "(S)" in text and "[Wales+Scotland]" in text
    final = Console(width=160, record=True)
    final.print(render_scores(state, [f"P{i}" for i in range(5)]))
    assert "countries" in final.export_text()
