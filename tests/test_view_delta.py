"""A move's delta (``hansa.view.move_delta``) is complete: the public position before any move is the position
after it with the delta's "before" sides put back.  This is what lets the table show every recent position whole
(board, desks, turn, result) from the newest view alone (static/js/playback.js ``undoDelta`` does the same)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from hansa.core.state import GameState
from hansa.view import move_delta, public_state


def undo_delta(after: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The public position before a move, from the one after it and the move's delta (as the client does)."""
    st = copy.deepcopy(after)
    for house, (before, _) in delta.get("houses", {}).items():
        if before:
            st["houses"][house] = before
        else:
            del st["houses"][house]
    for city, i, before, _ in delta.get("offices", []):
        st["offices"][city][i] = before
    for key in ("extra_offices", "right_offices"):
        for city, before, _ in delta.get(key, []):
            if before:
                st[key][city] = before
            else:
                del st[key][city]
    for i, before, _ in delta.get("coellen_table", []):
        st["coellen_table"][i] = before
    for route, before, _ in delta.get("route_markers", []):
        if before:
            st["route_markers"][route] = before
        else:
            del st["route_markers"][route]
    for city, before, _ in delta.get("controllers", []):
        if before is None:
            del st["controllers"][city]
        else:
            st["controllers"][city] = before
    if "pawn" in delta:
        st["pawn"] = delta["pawn"][0]
    if "completed_cities" in delta:
        st["completed_cities"] = delta["completed_cities"][0]
    for seat, key, before, _ in delta.get("players", []):
        st["players"][seat][key] = before
    for key, (before, _) in delta.get("turn", {}).items():
        if before is None:
            del st["turn"][key]
        else:
            st["turn"][key] = before
    for key, (before, _) in delta.get("public", {}).items():
        if key == "result" and before is None:
            del st["result"]
        else:
            st[key] = before
    return st


CONFIGS = [
    (3, {}),
    (5, {}),
    (2, {}),
    (2, {"two_player_variant": "pawn"}),
    (4, {"map": "east"}),
    (3, {"map": "britannia"}),
]


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=[f"{p}p-{o}" for p, o in CONFIGS])
def test_every_position_is_the_next_one_with_the_delta_undone(players: int, options: dict[str, Any]) -> None:
    rng = random.Random(players * 7 + len(options))
    for seed in range(2):
        state = GameState.new(players, seed, dict(options))
        before_pub = public_state(state)
        moves = 0
        while not state.is_over and moves < 1500:
            legal = state.legal_moves()
            claims = [m for m in legal if type(m).__name__ == "Claim"]
            move = rng.choice(claims if claims and rng.random() < 0.7 else legal)
            before = state.copy()
            state.play(move)
            after_pub = public_state(state)
            delta = json.loads(json.dumps(move_delta(before, state)))  # as the client gets it
            assert undo_delta(after_pub, delta) == before_pub, (seed, moves, move)
            before_pub = after_pub
            moves += 1
        assert moves > 50


def test_the_last_move_of_a_game_carries_its_result() -> None:
    state = GameState.new(3, 4, {})
    rng = random.Random(4)
    while True:
        legal = state.legal_moves()
        claims = [m for m in legal if type(m).__name__ == "Claim"]
        before = state.copy()
        state.play(rng.choice(claims or legal))
        if state.is_over:
            break
    delta = move_delta(before, state)
    assert delta["public"]["over"] == [False, True]
    assert delta["public"]["result"][0] is None and delta["public"]["result"][1] == public_state(state)["result"]
