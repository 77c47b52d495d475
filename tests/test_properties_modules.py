"""Property tests of the Big Box modules (docs/rules.md §8): random games with Mission Cards, Emperor's Favour and
the promo markers on every map and player count that allows them keep every invariant after every move and end;
``legal_moves()`` and ``play()`` agree.

HANSA_PROPERTY_GAMES sets the number of games per configuration (a third of it here, at least 4).  Scenario M35's
1,000 games with all three modules on the base 4-5 side ran with ``hansa simulate --check`` (see the README).
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hansa.bots import ClaimingRandomBot
from hansa.core.invariants import check_invariants, check_turn_start
from hansa.core.state import GameState
from module_play import ALL, PROMO, PROMO_HEAVY
from universe import check_refused, move_universe, random_shifts

GAMES = max(4, int(os.environ.get("HANSA_PROPERTY_GAMES", "40")) // 3)


CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (4, ALL),
    (5, {**ALL, "marker_supply": PROMO_HEAVY}),
    (3, ALL),
    (2, ALL),
    (2, {**ALL, "two_player_variant": "pawn"}),
    (4, {"map": "east", "emperors_favour": True, "marker_supply": PROMO_HEAVY}),
    (5, {"map": "britannia", "emperors_favour": True, "marker_supply": PROMO}),
    (3, {"map": "britannia", "emperors_favour": True, "marker_supply": PROMO_HEAVY}),
]
IDS = ["base-4", "base-5-heavy", "base-3", "neutral-2", "pawn-2", "east-4", "britannia-5", "britannia-3"]


def play_checked(players: int, seed: int, options: dict[str, Any]) -> GameState:
    state = GameState.new(players, seed, options)
    bots = [ClaimingRandomBot(seed * 7 + i) for i in range(players)]
    rng = random.Random(seed)
    check_invariants(state)
    previous = state.score[:]
    moves = 0
    while not state.is_over:
        legal = state.legal_moves()
        # mostly the claiming policy; sometimes a uniformly random move, so that tiles and promo markers get used
        move = legal[rng.randrange(len(legal))] if rng.random() < 0.2 else bots[state.decider].choose(state, legal)
        state.play(move)
        moves += 1
        assert moves < 400_000, "game did not terminate"
        check_invariants(state, previous)
        check_turn_start(state)
        previous = state.score[:]
    return state


@pytest.mark.parametrize("players, options", CONFIGS, ids=IDS)
@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_random_games_with_modules_keep_invariants_and_end(players: int, options: dict[str, Any], seed: int) -> None:
    state = play_checked(players, seed, options)
    assert state.is_over and state.end_triggers


@pytest.mark.parametrize("players, options", CONFIGS, ids=IDS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), data=st.data())
def test_legal_moves_agree_with_play_with_modules(
    players: int, options: dict[str, Any], seed: int, data: st.DataObject
) -> None:
    state = GameState.new(players, seed, options)
    rng = random.Random(seed)
    universe = move_universe(state.board)
    bot = ClaimingRandomBot(seed)
    for step in range(data.draw(st.integers(200, 2500), label="steps")):
        if state.is_over:
            break
        legal = state.legal_moves()
        assert len(set(legal)) == len(legal), "legal_moves lists a move twice"
        if step % 29 == 0:
            for move in legal:
                trial = state.copy()
                trial.play(move)
                check_invariants(trial)
            check_refused(state, legal, rng.sample(universe, 300) + random_shifts(state.board, rng, 20))
        move = legal[rng.randrange(len(legal))] if rng.random() < 0.3 else bot.choose(state, legal)
        state.play(move)


def test_modules_are_used_in_random_games() -> None:
    """The random games above do reach the new decisions (so the invariants are checked on them)."""
    seen: set[str] = set()
    for seed in range(40):
        state = GameState.new(4, seed, {**ALL, "marker_supply": PROMO_HEAVY})
        rng = random.Random(seed)
        while not state.is_over:
            legal = state.legal_moves()
            move = legal[rng.randrange(len(legal))]
            seen.add(move.type if getattr(move, "pay", None) is None or move.type != "place" else "place-pay")
            state.play(move)
    # (a tribute's choice of kinds is rare in random games: scenarios M28-M29 of test_rules_modules.py test it)
    assert {"tile", "share", "use-tribute", "use-block", "use-exchange", "place-pay"} <= seen
