"""Property tests of the expansion maps (docs/rules-expansions.md): random games on East (3-5 players) and
Britannia (3 players: small side, 4-5: large side) keep every invariant after every move; snapshots and copies of
their positions are exact; ``legal_moves()`` and ``play()`` agree; the map data the engine loads is the project's
transcription and has the map's printed figures.

HANSA_PROPERTY_GAMES_EXPANSIONS sets the number of complete games per map and player count (default 3; each game is
a few seconds with the pure-Python engine).
"""

from __future__ import annotations

import json
import os
import random
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hansa.bots import ClaimingRandomBot
from hansa.cli import app
from hansa.core.board import MAPS, load_board
from hansa.core.constants import ABILITY_NAMES
from hansa.core.invariants import check_invariants, check_turn_start
from hansa.core.moves import Claim, Develop, Exchange, GreenOffice, Move
from hansa.core.state import GameState, Phase
from universe import check_refused, move_universe, random_shifts

GAMES = int(os.environ.get("HANSA_PROPERTY_GAMES_EXPANSIONS", "3"))
MOVE_LIMIT = 400_000
GAMES_ON = [("east", 3), ("east", 4), ("east", 5), ("britannia", 3), ("britannia", 4), ("britannia", 5)]

OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "east": [
        {},
        {"green_city_swap": "all", "green_city_free_for_markers": True, "marker_city_rule": "hasOffice"},
        {"green_city_swap": "none", "remove3_mode": "move", "swap_needs_own": False, "marker_set": "BB15"},
    ],
    "britannia": [
        {},
        {"permission_holder": "controller", "permission_timing": "turnStart", "relocation_rings": "eligibleOnly"},
        {"remove3_mode": "remove", "remove3_targets": "opponents", "income_up_to": True, "marker_set": "EN16"},
    ],
}


def check_snapshot_and_copy(state: GameState) -> None:
    """The snapshot (through JSON) rebuilds an equal position; a copy is equal and independent."""
    data = state.to_snapshot()
    again = GameState.from_snapshot(json.loads(json.dumps(data)))
    assert again == state and again.key() == state.key()
    assert again.to_snapshot() == data
    assert again.legal_moves() == state.legal_moves()
    twin = state.copy()
    assert twin == state and twin.key() == state.key()
    key = state.key()
    legal = twin.legal_moves()
    if legal:
        twin.play(legal[-1])
        assert state.key() == key


def play_checked(map_name: str, players: int, seed: int, options: dict[str, Any]) -> GameState:
    """A complete game of claiming random bots, with a uniformly random move now and then (so that rare phases and
    declined choices get visited), checked after every move."""
    state = GameState.new(players, seed, {"map": map_name, **options})
    rng = random.Random(seed)
    bots = [ClaimingRandomBot(seed * 7 + i) for i in range(players)]
    check_invariants(state)
    check_turn_start(state)
    previous = state.score[:]
    moves = 0
    phases = set()
    while not state.is_over:
        legal = state.legal_moves()
        assert len(set(legal)) == len(legal), "legal_moves lists a move twice"
        move = legal[rng.randrange(len(legal))] if rng.random() < 0.15 else bots[state.decider].choose(state, legal)
        state.play(move)
        phases.add(state.phase)
        moves += 1
        assert moves < MOVE_LIMIT, "game did not terminate"
        check_invariants(state, previous)
        check_turn_start(state)
        previous = state.score[:]
        if moves % 97 == 0 or state.phase == Phase.PERMANENT:
            check_snapshot_and_copy(state)
    check_snapshot_and_copy(state)
    assert state.end_triggers
    return state


@pytest.mark.parametrize("map_name,players", GAMES_ON)
@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), data=st.data())
def test_random_games_keep_invariants(map_name: str, players: int, seed: int, data: st.DataObject) -> None:
    options = data.draw(st.sampled_from(OPTION_SETS[map_name]), label="options")
    state = play_checked(map_name, players, seed, options)
    assert state.board.side == MAPS[map_name][players]
    assert max(state.score) >= 20 or state.completed >= state.board.cities_to_end or "markers" in state.end_triggers


def expansion_universe(state: GameState) -> list[Move]:
    """Every move of the base universe plus the expansions' own moves for this board."""
    board = state.board
    out = move_universe(board)
    out.append(Develop("privilege"))
    out.append(Develop("book"))
    for c in board.cities:
        out += [GreenOffice(c.code, "T"), GreenOffice(c.code, "M")]
    for r in board.routes:
        for c in r.cities:
            out += [Claim(r.code, "ability", board.cities[c].code, None, a) for a in ABILITY_NAMES]
    return out


def random_exchanges(state: GameState, rng: random.Random, n: int) -> list[Move]:
    names = state.board.house_names
    occupied = [names[h] for h, code in enumerate(state.houses) if code >= 0] or list(names)
    return [Exchange(rng.choice(occupied), rng.choice(occupied)) for _ in range(n)]


@pytest.mark.parametrize("map_name,players", GAMES_ON)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), data=st.data())
def test_legal_moves_agree_with_play(map_name: str, players: int, seed: int, data: st.DataObject) -> None:
    """At sampled positions: every legal move plays; every other move sampled from the universe raises and changes
    nothing.  Positions in the permanent-marker phase are always checked."""
    options = data.draw(st.sampled_from(OPTION_SETS[map_name]), label="options")
    state = GameState.new(players, seed, {"map": map_name, **options})
    rng = random.Random(seed)
    universe = expansion_universe(state)
    bot = ClaimingRandomBot(seed)
    steps = data.draw(st.integers(300, 2000), label="steps")
    for step in range(steps):
        if state.is_over:
            break
        legal = state.legal_moves()
        if step % 41 == 0 or state.phase == Phase.PERMANENT:
            for move in legal:
                trial = state.copy()
                trial.play(move)
                check_invariants(trial)
            check_refused(state, legal, rng.sample(universe, 250) + random_shifts(state.board, rng, 30) + random_exchanges(state, rng, 20))
        move = legal[rng.randrange(len(legal))] if rng.random() < 0.3 else bot.choose(state, legal)
        state.play(move)


# ---------------------------------------------------------------------------------------------- map data


def _data(side: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((resources.files("hansa.data") / f"map_{side}.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("map_name,players", GAMES_ON)
def test_board_json_is_the_map_data(map_name: str, players: int) -> None:
    """`hansa board --map M --players N --json` is exactly the "map" entry of the project's data file of that side."""
    result = CliRunner().invoke(app, ["board", "--map", map_name, "--players", str(players), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == _data(MAPS[map_name][players])["map"]


@pytest.mark.parametrize("side", ["east", "britannia_3", "britannia_45"])
def test_loaded_board_has_the_printed_counts(side: str) -> None:
    """The figures in the data's "counts" are met by the loaded board."""
    counts = _data(side)["map"]["counts"]
    board = load_board(side)
    got = {
        "cities": len(board.cities),
        "routes": len(board.routes),
        "houses": board.house_count,
        "merchant_only_spaces": sum(board.house_ship),
        "maritime_routes": sum(1 for r in board.routes if r.ships),
        "printed_offices": board.office_count,
        "coin_offices": sum(1 for c in board.cities for o in c.offices if o.coin),
        "taverns": sum(1 for r in board.routes if r.tavern),
        "permanent_bonus_routes": sum(1 for r in board.routes if r.permanent),
    }
    assert got == counts
    assert len(board.tavern_order) == counts["taverns"]
    assert len(board.permanent_routes) == counts["permanent_bonus_routes"]
