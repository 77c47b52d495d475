"""Property tests over random games (hypothesis): invariants after every move, termination, and exact agreement
between ``legal_moves()`` and ``play()``.

The number of complete games is set by HANSA_PROPERTY_GAMES (per player count, default 40).  The closing
check of the engine issue ran 1,000 games per player count with `hansa simulate --check` (see README).
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hansa.bots import ClaimingRandomBot
from hansa.core.invariants import check_invariants, check_turn_start
from hansa.core.state import GameState
from universe import check_refused, move_universe, random_shifts

GAMES = int(os.environ.get("HANSA_PROPERTY_GAMES", "40"))
MOVE_LIMIT = 400_000  # far above the longest random game seen (about 40,000 moves)

OPTION_SETS = [
    {},
    {"marker_set": "EN16"},
    {"marker_set": "PT15", "marker_city_rule": "hasOffice"},
    {"swap_needs_own": False, "remove3_targets": "opponents", "income_up_to": True},
    {"remove3_mode": "move", "tie_break": "BB", "marker_set": "BB15"},
]


def play_checked(players: int, seed: int, options: dict) -> GameState:
    state = GameState.new(players, seed, options)
    bots = [ClaimingRandomBot(seed * 7 + i) for i in range(players)]
    check_invariants(state)
    check_turn_start(state)
    previous = state.score[:]
    moves = 0
    while not state.is_over:
        state.play(bots[state.decider].choose(state))
        moves += 1
        assert moves < MOVE_LIMIT, "game did not terminate"
        check_invariants(state, previous)
        check_turn_start(state)
        previous = state.score[:]
    return state


TWO_PLAYER_SETS = {
    "neutral": [
        {"two_player_variant": "neutral"},
        {"neutral_coellen": False, "neutral_keep_on_ability_route": False, "neutral_extra_mandatory": False},
        {"swap_needs_own": False, "remove3_targets": "opponents", "marker_set": "PT15"},
    ],
    "pawn": [
        {"two_player_variant": "pawn"},
        {"two_player_variant": "pawn", "pawn_free_moves": "beforeAndAfter", "marker_set": "EN16"},
    ],
}


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=False)
@given(seed=st.integers(0, 2**31 - 1), options=st.sampled_from(OPTION_SETS))
def test_random_games_keep_invariants_and_end(players: int, seed: int, options: dict) -> None:
    check_finished(play_checked(players, seed, options))


@pytest.mark.parametrize("variant", ["neutral", "pawn"])
@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), data=st.data())
def test_random_two_player_games_keep_invariants_and_end(variant: str, seed: int, data: st.DataObject) -> None:
    options = data.draw(st.sampled_from(TWO_PLAYER_SETS[variant]), label="options")
    check_finished(play_checked(2, seed, options))


def check_finished(state: GameState) -> None:
    assert state.is_over
    assert state.end_triggers, "a finished game names its end trigger"
    assert max(state.score) >= 20 or "markers" in state.end_triggers or "cities" in state.end_triggers


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), options=st.sampled_from(OPTION_SETS), data=st.data())
def test_legal_moves_agree_with_play(players: int, seed: int, options: dict, data: st.DataObject) -> None:
    """At sampled positions: every legal move plays; every other move of the universe raises and changes nothing."""
    if players == 2:
        options = data.draw(st.sampled_from(TWO_PLAYER_SETS["neutral"] + TWO_PLAYER_SETS["pawn"]), label="2p options")
    state = GameState.new(players, seed, options)
    rng = random.Random(seed)
    universe = move_universe(state.board)
    bot = ClaimingRandomBot(seed)
    steps = data.draw(st.integers(200, 3000), label="steps")
    for step in range(steps):
        if state.is_over:
            break
        legal = state.legal_moves()
        assert len(set(legal)) == len(legal), "legal_moves lists a move twice"
        if step % 37 == 0:
            for move in legal:
                trial = state.copy()
                trial.play(move)
            check_refused(state, legal, rng.sample(universe, 300) + random_shifts(state.board, rng, 20))
        # Mostly the claiming policy, sometimes a uniformly random move, so that odd phases get visited.
        move = legal[rng.randrange(len(legal))] if rng.random() < 0.3 else bot.choose(state, legal)
        state.play(move)


def test_wrong_seat_is_refused_and_changes_nothing() -> None:
    from hansa.core.errors import WrongPlayerError

    state = GameState.new(4, 3)
    move = state.legal_moves()[0]
    before = state.key()
    other = (state.decider + 1) % 4
    with pytest.raises(WrongPlayerError):
        state.play(move, player=other)
    assert state.key() == before
    state.play(move, player=state.decider)
    assert state.key() != before


def test_same_seed_same_game() -> None:
    a = play_checked(4, 1234, {})
    b = play_checked(4, 1234, {})
    assert a.key() == b.key()
    c = GameState.new(4, 1235)
    assert c.key() != GameState.new(4, 1234).key() or c.marker_supply != GameState.new(4, 1234).marker_supply


def test_copy_is_independent() -> None:
    state = GameState.new(3, 5)
    bot = ClaimingRandomBot(1)
    for _ in range(500):
        state.play(bot.choose(state))
    twin = state.copy()
    assert twin == state
    key = state.key()
    for _ in range(200):
        if twin.is_over:
            break
        twin.play(bot.choose(twin))
    assert state.key() == key
