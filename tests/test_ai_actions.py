"""The action index (hansa.ai.actions): a fixed enumeration per board side whose mask equals ``legal_moves()`` on
every position of random games of every configuration, with Move 3's shift as two decisions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hansa.ai.actions import VERSION, ActionIndex
from hansa.bots import ClaimingRandomBot
from hansa.core.board import load_board
from hansa.core.moves import Move, Shift
from hansa.core.state import GameState

CONFIGS = [
    (2, {"two_player_variant": "neutral"}),
    (2, {"two_player_variant": "pawn"}),
    (2, {"two_player_variant": "pawn", "pawn_free_moves": "beforeAndAfter", "marker_set": "EN16"}),
    (3, {}),
    (3, {"remove3_mode": "move", "marker_set": "BB15"}),
    (4, {"swap_needs_own": False, "remove3_targets": "opponents", "income_up_to": True}),
    (4, {"remove3_mode": "move", "tie_break": "BB", "marker_set": "BB15"}),
    (5, {"marker_set": "PT15"}),
    (5, {"remove3_mode": "move", "marker_set": "BB15"}),
]


def expected(actions: ActionIndex, moves: list[Move]) -> tuple[set[int], dict[int, set[int]]]:
    """What the mask must hold: one index per move, a shift-from per shifted piece with its shift-tos."""
    first: set[int] = set()
    tos: dict[int, set[int]] = {}
    for m in moves:
        ix = actions.indices(m)
        first.add(ix[0])
        if isinstance(m, Shift):
            tos.setdefault(ix[0], set()).add(ix[1])
    return first, tos


@pytest.mark.parametrize("side", ["2-3", "4-5"])
def test_every_index_decodes_and_encodes_back(side: str) -> None:
    actions = ActionIndex.for_side(side)
    board = load_board(side)
    assert actions.size == sum(len(r) for r in actions.families.values())
    assert len(set(actions.labels)) == actions.size  # every decision is a different one
    spans = sorted(actions.families.values(), key=lambda r: r.start)
    assert spans[0].start == 0 and all(a.stop == b.start for a, b in zip(spans, spans[1:], strict=False))
    assert len(actions.families["shift-from"]) == len(actions.families["shift-to"]) == board.house_count
    pending = actions.families["shift-from"].start
    for i in range(actions.size):
        family = actions.family_of(i)
        if family == "shift-from":
            assert actions.move(i) is None
        elif family == "shift-to":
            move = actions.move(i, pending)
            assert isinstance(move, Shift) and actions.indices(move) == (pending, i)
            with pytest.raises(ValueError):
                actions.move(i)
        else:
            move = actions.move(i)
            assert move is not None and actions.index(move) == i and move.text() == actions.labels[i]
    with pytest.raises(IndexError):
        actions.move(actions.size)


def test_fingerprint_names_side_and_version_and_refuses_another() -> None:
    small, large = ActionIndex.for_side("2-3"), ActionIndex.for_side("4-5")
    assert small.fingerprint.startswith(f"hansa-actions/{VERSION}/2-3/{small.size}/")
    assert ActionIndex(load_board("4-5")).fingerprint == large.fingerprint  # stable, built from the topology
    large.check(large.fingerprint)
    with pytest.raises(ValueError, match="mismatch"):
        large.check(small.fingerprint)
    assert ActionIndex.for_state(GameState.new(4, seed=1)) is large


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=[f"{p}p-{i}" for i, (p, _) in enumerate(CONFIGS)])
def test_mask_equals_the_legal_moves_on_every_position(players: int, options: dict) -> None:
    """Random games (claiming random bots, choosing through the index) of every configuration: at every position
    the mask is exactly the legal moves mapped through the index, and each shift-from's mask its destinations."""
    positions = shifts = 0
    for seed in range(3):
        state = GameState.new(players, seed, options)
        actions = ActionIndex.for_state(state)
        bot = ClaimingRandomBot(seed)
        rng = random.Random(seed)
        while not state.is_over and positions < 40_000:
            moves = state.legal_moves()
            first, tos = expected(actions, moves)
            mask = actions.mask(state)
            assert mask.dtype == np.bool_ and mask.shape == (actions.size,)
            assert set(np.flatnonzero(mask).tolist()) == first
            assert np.array_equal(actions.mask(state, moves=moves), mask)  # the caller's legal moves, not made again
            assert actions.legal(state, moves=moves) == sorted(first)
            for src, dst in tos.items():
                assert set(actions.legal(state, src)) == dst
                shifts += 1
            # Play the bot's move through the index half of the time, a random masked action otherwise.
            if rng.random() < 0.5:
                move = bot.choose(state)
                ix = actions.indices(move)
                decoded = actions.move(ix[0]) if len(ix) == 1 else actions.move(ix[1], ix[0])
            else:
                i = int(rng.choice(np.flatnonzero(mask)))
                decoded = actions.move(i)
                if decoded is None:
                    decoded = actions.move(int(rng.choice(actions.legal(state, i))), i)
            assert decoded in moves
            state.play(decoded)
            positions += 1
    assert positions > 300
    if options.get("remove3_mode") == "move":
        assert shifts > 0, "no Move-3 shift was met: the two-step decision went untested"
