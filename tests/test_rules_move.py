"""Focused rule tests for docs/rule-scenarios.md §7.6 (Move action, scenarios 45-50) on Fixture G.

Fixture G: r0 = P-Q[3], r1 = Q-R[2], r2 = P-S[2], r3 = R-T[3], r4 = S-U[2], r5 = T-V[2].
"""

from __future__ import annotations

import support
from hansa.core.constants import BOOK
from hansa.core.moves import Claim, Drop, Lift
from hansa.core.state import GameState, Phase
from support import R0, R1, R3, A, B, refuse


def g_state() -> GameState:
    return support.new_state(3, board=support.fixture_board())


def lifts(state: GameState) -> set[str]:
    return {m.house for m in state.legal_moves() if isinstance(m, Lift)}


def test_s45_move_two_pieces_one_action():
    """45. Book 2: A moves 2 of his pieces from r0 to free houses on r3 -> 1 action; legal."""
    state = g_state()
    support.put(state, "P-Q:1", A, "T")
    support.put(state, "P-Q:2", A, "M")
    pools = support.pools(state, A)
    state.play(Lift("P-Q:1"))
    assert state.phase == Phase.MOVE and state.actions_used == 1
    state.play(Lift("P-Q:2"))
    assert state.actions_used == 1
    assert Drop("R-T:1", "T") in state.legal_moves() and Drop("R-T:3", "M") in state.legal_moves()
    state.play(Drop("R-T:1", "T"))
    assert state.phase == Phase.MOVE
    state.play(Drop("R-T:3", "M"))
    assert state.phase == Phase.ACTIONS
    assert state.actions_used == 1 and state.actions_left() == 1
    assert state.hand == ()
    assert state.piece_at("P-Q:1") is None and state.piece_at("P-Q:2") is None
    assert state.piece_at("R-T:1") == (A, "T") and state.piece_at("R-T:3") == (A, "M")
    assert support.pools(state, A) == pools


def test_s46_book_limits_pieces_moved():
    """46. Book 2: A tries to move 3 pieces -> illegal. Book 4 -> up to 4."""
    state = g_state()
    support.fill_route(state, R0, A, "TTT")
    support.put(state, "Q-R:1", A)
    state.play(Lift("P-Q:1"))
    state.play(Lift("P-Q:2"))
    assert lifts(state) == set()
    refuse(state, Lift("P-Q:3"))
    assert state.lifted == 2 and len(state.hand) == 2

    state = g_state()
    support.set_level(state, A, BOOK, 2)
    assert state.ability_value(A, BOOK) == 4
    support.fill_route(state, R0, A, "TTT")
    support.fill_route(state, R1, A, "TT")
    for h in ("P-Q:1", "P-Q:2", "P-Q:3", "Q-R:1"):
        state.play(Lift(h))
    assert state.actions_used == 1 and len(state.hand) == 4
    refuse(state, Lift("Q-R:2"))
    for h in ("R-T:1", "R-T:2", "R-T:3", "S-U:1"):
        state.play(Drop(h, "T"))
    assert state.phase == Phase.ACTIONS and state.actions_used == 1
    assert all(state.piece_at(h) == (A, "T") for h in ("R-T:1", "R-T:2", "R-T:3", "S-U:1", "Q-R:2"))


def test_s47_swap_own_trader_and_merchant():
    """47. A swaps his Trader on r1 with his Merchant on r2 (Book >= 2) -> legal; both count."""
    state = g_state()
    support.put(state, "Q-R:1", A, "T")
    support.put(state, "P-S:1", A, "M")
    support.put(state, "P-Q:1", A, "T")
    state.play(Lift("Q-R:1"))
    state.play(Lift("P-S:1"))
    assert state.lifted == 2
    refuse(state, Lift("P-Q:1"))  # the swap used both moves of Book 2
    state.play(Drop("Q-R:1", "M"))
    state.play(Drop("P-S:1", "T"))
    assert state.piece_at("Q-R:1") == (A, "M")
    assert state.piece_at("P-S:1") == (A, "T")
    assert state.phase == Phase.ACTIONS and state.actions_used == 1


def test_s48_move_onto_occupied_house():
    """48. A moves onto a house held by B -> illegal."""
    state = g_state()
    support.put(state, "P-Q:1", A)
    support.put(state, "R-T:1", B)
    state.play(Lift("P-Q:1"))
    refuse(state, Drop("R-T:1", "T"))
    assert state.piece_at("R-T:1") == (B, "T")
    assert state.hand == (0,)
    state.play(Drop("R-T:2", "T"))
    assert state.piece_at("R-T:2") == (A, "T") and state.phase == Phase.ACTIONS


def test_s49_move_other_piece_or_office():
    """49. A moves B's piece, or a piece from an office -> illegal."""
    state = g_state()
    support.put(state, "P-Q:1", B)
    support.set_office(state, "P", 0, A, "T")
    support.put(state, "Q-R:1", A)
    assert lifts(state) == {"Q-R:1"}
    refuse(state, Lift("P-Q:1"))
    for office in ("P", "P:1"):
        refuse(state, Lift(office))
    assert state.actions_used == 0 and state.phase == Phase.ACTIONS
    # inside a Move action as well
    state.play(Lift("Q-R:1"))
    refuse(state, Lift("P-Q:1"))
    refuse(state, Drop("P", "T"))
    assert state.office_owners(state.board.city_index["P"]) == [A]


def test_s50_moving_does_not_claim():
    """50. A completes a route of his own by moving -> route not claimed until a Claim action."""
    state = g_state()
    support.put(state, "R-T:1", A)
    support.put(state, "R-T:2", A, "M")
    support.put(state, "P-Q:1", A)
    pools = support.pools(state, A)
    score = list(state.score)
    state.play(Lift("P-Q:1"))
    state.play(Drop("R-T:3", "T"))
    assert [state.piece_at(f"R-T:{i}") for i in (1, 2, 3)] == [(A, "T"), (A, "M"), (A, "T")]
    assert state.score == score
    assert support.pools(state, A) == pools
    assert state.actions_used == 1 and state.phase == Phase.ACTIONS
    assert Claim(R3) in state.legal_moves()
    state.play(Claim(R3))
    assert all(state.piece_at(f"R-T:{i}") is None for i in (1, 2, 3))
    assert support.pools(state, A) == (pools[0], (pools[1][0] + 2, pools[1][1] + 1))
