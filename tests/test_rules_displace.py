"""Focused rule tests for docs/rule-scenarios.md §7.5 (Displace and relocation, scenarios 25-44).

Fixture G: r0 = P-Q[3], r1 = Q-R[2], r2 = P-S[2], r3 = R-T[3], r4 = S-U[2], r5 = T-V[2];
distances from r0: r1, r2 = 1; r3, r4 = 2; r5 = 3 (V-K and K-Y are further out).
"""

from __future__ import annotations

import support
from hansa.core.constants import MERCHANT, PLUS3, TRADER
from hansa.core.errors import WrongPlayerError
from hansa.core.moves import (
    Claim,
    Displace,
    Done,
    EndTurn,
    Income,
    Lift,
    LiftExtra,
    Place,
    Relocate,
    TakeExtra,
    UseMarker,
)
from hansa.core.state import GameState, Phase
from support import R1, R2, R3, R4, R5, A, B, C, refuse

TARGET = "P-Q:2"  # B's piece on r0


def houses_of(state: GameState, *routes: str) -> set[str]:
    return {h for r in routes for h in support.route_houses(state, r)}


def free_houses_of(state: GameState, *routes: str) -> set[str]:
    return {h for h in houses_of(state, *routes) if state.piece_at(h) is None}


def displaces(state: GameState) -> list[Displace]:
    return [m for m in state.legal_moves() if isinstance(m, Displace)]


def relocate_targets(state: GameState) -> set[str]:
    return {m.house for m in state.legal_moves() if isinstance(m, Relocate)}


def g_state(b_kind: str = "T", a_sup: tuple[int, int] = (2, 0)) -> GameState:
    """Fixture G, B's piece on house 2 of r0, A active with the given Supply."""
    state = support.new_state(3, board=support.fixture_board())
    support.put(state, TARGET, B, b_kind)
    support.set_pools(state, A, sup=a_sup)
    return state


def displace_b_trader(state: GameState) -> None:
    move = Displace(TARGET, "T", "T")
    assert move in state.legal_moves()
    state.play(move)
    assert state.phase == Phase.RELOCATE and state.decider == B


def assert_relocation_over(state: GameState) -> None:
    assert state.phase == Phase.ACTIONS
    assert state.decider == A and state.current == A
    assert state.hand == ()


# ---------------------------------------------------------------------------------------------- cost


def test_s25_displace_trader_basic():
    """25. Fixture G. B Trader on r0; A Sup{2,0} -> Displace with a Trader -> A's Trader there; A Sup{0,0}, Stk +1T; B puts it on r1 or r2 and may add 1 from his Stock."""
    state = g_state()
    (_, a_stk) = support.pools(state, A)
    b_pools = support.pools(state, B)
    assert Displace(TARGET, "M", "T") not in state.legal_moves()  # A has no Merchant
    assert Displace(TARGET, "T", "M") not in state.legal_moves()
    state.play(Displace(TARGET, "T", "T"))
    assert state.piece_at(TARGET) == (A, "T")
    assert support.pools(state, A) == ((0, 0), (a_stk[0] + 1, a_stk[1]))
    assert state.actions_used == 1
    assert state.phase == Phase.RELOCATE
    assert state.decider == B and state.current == A
    assert state.hand == (TRADER,)
    assert relocate_targets(state) == houses_of(state, R1, R2)
    assert TakeExtra("T") in state.legal_moves()
    assert TakeExtra("M") not in state.legal_moves()  # B's Stock holds only Traders
    state.play(TakeExtra("T"), player=B)
    assert support.pools(state, B) == (b_pools[0], (b_pools[1][0] - 1, b_pools[1][1]))
    assert TakeExtra("T") not in state.legal_moves()  # only 1 extra for a Trader
    state.play(Relocate("Q-R:1", "T"), player=B)
    state.play(Relocate("P-S:1", "T"), player=B)
    assert state.piece_at("Q-R:1") == (B, "T") and state.piece_at("P-S:1") == (B, "T")
    assert_relocation_over(state)
    assert state.actions_used == 1 and state.actions_left() == 1


def test_s26_displace_trader_needs_two_pieces():
    """26. A Sup{1,0} -> Displace B's Trader -> illegal (needs 2 pieces)."""
    state = g_state(a_sup=(1, 0))
    assert displaces(state) == []
    refuse(state, Displace(TARGET, "T", "T"))
    refuse(state, Displace(TARGET, "T", "M"))
    assert state.piece_at(TARGET) == (B, "T")


def test_s27_displace_merchant_needs_three_pieces():
    """27. A Sup{2,0} -> Displace B's Merchant -> illegal (needs 3). A Sup{3,0} -> legal; A Stk +2."""
    state = g_state("M", (2, 0))
    assert displaces(state) == []
    refuse(state, Displace(TARGET, "T", "T"))
    refuse(state, Displace(TARGET, "T", "TT"))
    assert state.piece_at(TARGET) == (B, "M")

    state = g_state("M", (3, 0))
    stk = support.pools(state, A)[1]
    assert Displace(TARGET, "T", "T") not in state.legal_moves()  # penalty for a Merchant is 2
    refuse(state, Displace(TARGET, "T", "T"))
    assert Displace(TARGET, "T", "TT") in state.legal_moves()
    state.play(Displace(TARGET, "T", "TT"))
    assert state.piece_at(TARGET) == (A, "T")
    assert support.pools(state, A) == ((0, 0), (stk[0] + 2, stk[1]))
    assert state.phase == Phase.RELOCATE and state.decider == B and state.hand == (MERCHANT,)


def test_s28_trader_displaces_merchant_two_extras():
    """28. A displaces B's Merchant using a Trader (Sup{3,0}) -> legal; penalty 2; B relocates the Merchant + up to 2 extras."""
    state = g_state("M", (3, 0))
    a_stk = support.pools(state, A)[1]
    b_stk = support.pools(state, B)[1]
    state.play(Displace(TARGET, "T", "TT"))
    assert state.piece_at(TARGET) == (A, "T")
    assert support.pools(state, A) == ((0, 0), (a_stk[0] + 2, a_stk[1]))
    assert state.hand == (MERCHANT,)
    state.play(TakeExtra("T"), player=B)
    state.play(TakeExtra("T"), player=B)
    assert sorted(state.hand) == [TRADER, TRADER, MERCHANT]
    assert support.pools(state, B)[1] == (b_stk[0] - 2, b_stk[1])
    assert not any(isinstance(m, (TakeExtra, LiftExtra)) for m in state.legal_moves())
    refuse(state, TakeExtra("T"), player=B)
    state.play(Relocate("Q-R:1", "M"), player=B)
    state.play(Relocate("Q-R:2", "T"), player=B)
    state.play(Relocate("P-S:1", "T"), player=B)
    assert state.piece_at("Q-R:1") == (B, "M")
    assert state.piece_at("Q-R:2") == (B, "T") and state.piece_at("P-S:1") == (B, "T")
    assert_relocation_over(state)


def test_s29_merchant_displaces_trader():
    """29. A displaces B's Trader using his Merchant; pays the penalty with a Trader -> legal; A's Merchant now on the house."""
    state = g_state("T", (1, 1))
    stk = support.pools(state, A)[1]
    assert Displace(TARGET, "M", "T") in state.legal_moves()
    state.play(Displace(TARGET, "M", "T"))
    assert state.piece_at(TARGET) == (A, "M")
    assert support.pools(state, A) == ((0, 0), (stk[0] + 1, stk[1]))
    assert state.phase == Phase.RELOCATE and state.decider == B and state.hand == (TRADER,)


def test_s30_penalty_paid_with_merchant():
    """30. A pays the penalty with a Merchant -> legal (Merchant stands in for Trader)."""
    state = g_state("T", (1, 1))
    stk = support.pools(state, A)[1]
    assert Displace(TARGET, "T", "M") in state.legal_moves()
    state.play(Displace(TARGET, "T", "M"))
    assert state.piece_at(TARGET) == (A, "T")
    assert support.pools(state, A) == ((0, 0), (stk[0], stk[1] + 1))
    assert state.phase == Phase.RELOCATE and state.decider == B


def test_s31_illegal_targets():
    """31. Targets: own piece, an office, a Coellen table Merchant -> all illegal."""
    state = support.new_state(3)
    support.set_pools(state, A, sup=(5, 2))
    support.put(state, "GRO-EMD:1", A, "T")
    support.set_office(state, "GRO", 0, B, "T")
    support.set_office(state, "COE", 0, B, "T")
    state.table[0] = B * 2 + MERCHANT  # B's Merchant on the Coellen table
    assert displaces(state) == []
    refuse(state, Displace("GRO-EMD:1", "T", "T"))
    for not_a_house in ("GRO", "COE", "GRO:1", "COE:1"):
        refuse(state, Displace(not_a_house, "T", "T"))
        refuse(state, Displace(not_a_house, "T", "TT"))
    # control: a B piece on a house is a target, and it is the only one
    support.put(state, "EMD-OSN:1", B, "T")
    assert {m.house for m in displaces(state)} == {"EMD-OSN:1"}


# ---------------------------------------------------------------------------------------------- distance


def test_s32_nearest_ring_only():
    """32. Fixture G, r1 and r2 have free houses -> B tries to put the displaced piece on r3 -> illegal; on r0 -> illegal."""
    state = g_state()
    displace_b_trader(state)
    assert relocate_targets(state) == houses_of(state, R1, R2)
    refuse(state, Relocate("R-T:1", "T"), player=B)
    refuse(state, Relocate("S-U:1", "T"), player=B)
    refuse(state, Relocate("P-Q:1", "T"), player=B)
    refuse(state, Relocate("P-Q:3", "T"), player=B)
    state.play(Relocate("P-S:2", "T"), player=B)
    assert state.piece_at("P-S:2") == (B, "T")


def test_s33_distance_two_when_ring_one_full():
    """33. Fixture G, r1 and r2 full -> B may use r3 or r4 (distance 2), not r5."""
    state = g_state()
    support.fill_route(state, R1, C)
    support.fill_route(state, R2, C)
    displace_b_trader(state)
    assert relocate_targets(state) == houses_of(state, R3, R4)
    refuse(state, Relocate("T-V:1", "T"), player=B)
    refuse(state, Relocate("P-Q:1", "T"), player=B)
    state.play(Relocate("S-U:2", "T"), player=B)
    assert state.piece_at("S-U:2") == (B, "T")
    state.play(Done(), player=B)
    assert_relocation_over(state)


def test_s34_distance_three():
    """34. Fixture G, r1/r2 full, r3/r4 full -> B must use r5."""
    state = g_state()
    for r in (R1, R2, R3, R4):
        support.fill_route(state, r, C)
    displace_b_trader(state)
    assert relocate_targets(state) == houses_of(state, R5)
    refuse(state, Relocate("V-K:1", "T"), player=B)
    refuse(state, Relocate("P-Q:1", "T"), player=B)
    state.play(Relocate("T-V:2", "T"), player=B)
    assert state.piece_at("T-V:2") == (B, "T")


def test_s35_rings_recomputed_per_piece():
    """35. Fixture G, exactly 1 free house among r1, r2; displaced Trader + 1 extra -> first to that house, second to r3 or r4; both to r3/r4 -> illegal."""
    state = g_state()
    support.fill_route(state, R1, C)
    support.put(state, "P-S:1", C)
    displace_b_trader(state)
    state.play(TakeExtra("T"), player=B)
    assert state.hand == (TRADER, TRADER)
    assert relocate_targets(state) == {"P-S:2"}
    refuse(state, Relocate("R-T:1", "T"), player=B)
    refuse(state, Relocate("S-U:1", "T"), player=B)
    state.play(Relocate("P-S:2", "T"), player=B)
    assert relocate_targets(state) == houses_of(state, R3, R4)
    refuse(state, Relocate("T-V:1", "T"), player=B)
    state.play(Relocate("S-U:1", "T"), player=B)
    assert state.piece_at("P-S:2") == (B, "T") and state.piece_at("S-U:1") == (B, "T")
    assert_relocation_over(state)


def test_s36_split_between_routes():
    """36. Fixture G, r1 and r2 each have a free house -> displaced piece on r1 and the extra on r2 (split) -> legal."""
    state = g_state()
    support.put(state, "Q-R:1", C)
    support.put(state, "P-S:1", C)
    displace_b_trader(state)
    state.play(TakeExtra("T"), player=B)
    assert relocate_targets(state) == {"Q-R:2", "P-S:2"}
    state.play(Relocate("Q-R:2", "T"), player=B)
    assert relocate_targets(state) == {"P-S:2"}
    state.play(Relocate("P-S:2", "T"), player=B)
    assert state.piece_at("Q-R:2") == (B, "T") and state.piece_at("P-S:2") == (B, "T")
    assert_relocation_over(state)


# ---------------------------------------------------------------------------------------------- extras


def test_s37_extra_from_supply_when_stock_empty():
    """37. B Stk empty, Sup{2,0} -> the extra comes from Sup."""
    state = g_state()
    support.set_pools(state, B, sup=(2, 0), stk=(0, 0))
    displace_b_trader(state)
    assert TakeExtra("T") in state.legal_moves()
    assert TakeExtra("M") not in state.legal_moves()
    refuse(state, TakeExtra("M"), player=B)
    state.play(TakeExtra("T"), player=B)
    assert support.pools(state, B) == ((1, 0), (0, 0))
    state.play(Relocate("Q-R:1", "T"), player=B)
    state.play(Relocate("Q-R:2", "T"), player=B)
    assert_relocation_over(state)
    assert support.pools(state, B) == ((1, 0), (0, 0))


def test_s38_extras_stock_then_supply():
    """38. B Stk{1,0}, Sup{3,0}, B's Merchant displaced -> extra 1 from Stk, extra 2 from Sup."""
    state = g_state("M", (3, 0))
    support.set_pools(state, B, sup=(3, 0), stk=(1, 0))
    state.play(Displace(TARGET, "T", "TT"))
    assert state.decider == B and state.hand == (MERCHANT,)
    state.play(TakeExtra("T"), player=B)
    assert support.pools(state, B) == ((3, 0), (0, 0))
    state.play(TakeExtra("T"), player=B)
    assert support.pools(state, B) == ((2, 0), (0, 0))
    assert sorted(state.hand) == [TRADER, TRADER, MERCHANT]
    state.play(Relocate("P-S:1", "M"), player=B)
    state.play(Relocate("P-S:2", "T"), player=B)
    state.play(Relocate("Q-R:1", "T"), player=B)
    assert_relocation_over(state)
    assert state.piece_at("P-S:1") == (B, "M")
    assert support.pools(state, B) == ((2, 0), (0, 0))


def test_s39_no_supply_extra_while_stock_nonempty():
    """39. B Stk{1,0} -> B tries to take the extra from Sup -> illegal while Stk non-empty."""
    state = g_state()
    support.set_pools(state, B, sup=(0, 1), stk=(1, 0))
    support.put(state, "T-V:1", B)
    displace_b_trader(state)
    legal = state.legal_moves()
    assert TakeExtra("T") in legal
    assert TakeExtra("M") not in legal  # the only Merchant is in the Supply
    assert not any(isinstance(m, LiftExtra) for m in legal)
    refuse(state, TakeExtra("M"), player=B)
    refuse(state, LiftExtra("T-V:1"), player=B)
    state.play(TakeExtra("T"), player=B)
    assert support.pools(state, B) == ((0, 1), (0, 0))
    assert state.hand == (TRADER, TRADER)


def test_s40_extra_lifted_from_board():
    """40. B Stk and Sup empty, B has a Trader on r4 -> B may lift it as the extra (placed by the distance rule, recomputed after lifting)."""
    state = g_state()
    support.set_pools(state, B, sup=(0, 0), stk=(0, 0))
    for r in (R1, R2, R3):
        support.fill_route(state, r, C)
    support.put(state, "S-U:1", B)
    support.put(state, "S-U:2", C)
    displace_b_trader(state)
    assert relocate_targets(state) == houses_of(state, R5)  # distance 2 is full before lifting
    assert LiftExtra("S-U:1") in state.legal_moves()
    assert not any(isinstance(m, TakeExtra) for m in state.legal_moves())
    state.play(LiftExtra("S-U:1"), player=B)
    assert state.piece_at("S-U:1") is None
    assert state.hand == (TRADER, TRADER)
    assert relocate_targets(state) == {"S-U:1"}  # the freed house is at distance 2 now
    refuse(state, Relocate("T-V:1", "T"), player=B)
    state.play(Relocate("S-U:1", "T"), player=B)
    assert relocate_targets(state) == houses_of(state, R5)
    state.play(Relocate("T-V:1", "T"), player=B)
    assert state.piece_at("S-U:1") == (B, "T") and state.piece_at("T-V:1") == (B, "T")
    assert_relocation_over(state)


def test_s41_extras_declined():
    """41. B declines all extras -> only the displaced piece is placed; B's Stk and Sup unchanged."""
    state = g_state()
    b_pools = support.pools(state, B)
    displace_b_trader(state)
    state.play(Relocate("Q-R:1", "T"), player=B)
    assert state.phase == Phase.RELOCATE  # B could still take an extra
    assert Done() in state.legal_moves()
    state.play(Done(), player=B)
    assert_relocation_over(state)
    assert support.pools(state, B) == b_pools
    b_on_board = [h for h in state.board.house_names if (state.piece_at(h) or (None,))[0] == B]
    assert b_on_board == ["Q-R:1"]


def test_s42_displaced_piece_cannot_go_to_supply():
    """42. B tries to put the displaced piece into his Supply -> illegal."""
    state = g_state()
    b_pools = support.pools(state, B)
    displace_b_trader(state)
    legal = state.legal_moves()
    assert Done() not in legal
    assert all(isinstance(m, (Relocate, TakeExtra, LiftExtra)) for m in legal)
    refuse(state, Done(), player=B)
    refuse(state, EndTurn(), player=B)
    refuse(state, Place("Q-R:1", "T"), player=B)
    assert state.hand == (TRADER,)
    assert support.pools(state, B) == b_pools


def test_s43_relocation_never_claims():
    """43. Relocation completes a route with only B's pieces -> no claim; A continues; B may claim on his turn if still full."""
    state = g_state()
    support.put(state, "Q-R:1", B)
    support.fill_route(state, R2, C)
    b_pools = support.pools(state, B)
    scores = list(state.score)
    displace_b_trader(state)
    state.play(Relocate("Q-R:2", "T"), player=B)
    state.play(Done(), player=B)
    assert state.piece_at("Q-R:1") == (B, "T") and state.piece_at("Q-R:2") == (B, "T")
    assert state.score == scores
    assert support.pools(state, B) == b_pools
    assert_relocation_over(state)
    assert state.actions_used == 1 and state.actions_left() == 1
    state.play(EndTurn())
    assert state.current == B
    assert Claim(R1) in state.legal_moves()
    state.play(Claim(R1), player=B)
    assert state.piece_at("Q-R:1") is None and state.piece_at("Q-R:2") is None
    assert support.pools(state, B)[1] == (b_pools[1][0] + 2, b_pools[1][1])


def test_s44_active_player_waits_for_relocation():
    """44. During relocation A cannot take an action or use a marker until B has finished."""
    state = g_state(a_sup=(4, 1))
    support.give_markers(state, A, PLUS3)
    displace_b_trader(state)
    legal = state.legal_moves()
    assert legal
    assert all(isinstance(m, (Relocate, TakeExtra, LiftExtra, Done)) for m in legal)
    assert EndTurn() not in legal and UseMarker("+3") not in legal
    for move in (EndTurn(), UseMarker("+3"), Place("T-V:1", "T"), Income(3, 0), Lift(TARGET), Relocate("Q-R:1", "T")):
        refuse(state, move, player=A, error=WrongPlayerError)
    for move in (EndTurn(), UseMarker("+3"), Place("T-V:1", "T"), Income(3, 0), Lift(TARGET)):
        refuse(state, move)  # submitted without a seat: still not possible during the relocation
    assert state.decider == B
    state.play(Relocate("Q-R:1", "T"), player=B)
    state.play(Done(), player=B)
    assert state.decider == A
    assert UseMarker("+3") in state.legal_moves()
    state.play(UseMarker("+3"), player=A)
    assert state.allowance() == 5 and state.actions_used == 1
