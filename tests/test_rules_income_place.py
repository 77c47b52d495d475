"""Focused rule tests for docs/rule-scenarios.md §7.3 (Income, scenarios 15-19) and §7.4 (Place, scenarios 20-24)."""

from __future__ import annotations

import pytest

import support
from hansa.core.constants import BAGS
from hansa.core.errors import IllegalMoveError
from hansa.core.moves import Income, Place
from hansa.core.state import GameState, Phase
from support import A, B, snapshot


def incomes(state: GameState) -> set[tuple[int, int]]:
    return {(m.traders, m.merchants) for m in state.legal_moves() if isinstance(m, Income)}


def places(state: GameState) -> list[Place]:
    return [m for m in state.legal_moves() if isinstance(m, Place)]


def income_state(bags_level: int, stock: tuple[int, int], **options) -> GameState:
    state = support.new_state(3, **options)
    support.set_level(state, A, BAGS, bags_level)
    support.set_pools(state, A, sup=(0, 0), stk=stock)
    return state


# ---------------------------------------------------------------------------------------------- 7.3 income


def test_s15_income_money_bags_3():
    """15. Money bags 3, Stk{6,0} -> Income -> Sup +3T, Stk{3,0}; 1 action used."""
    state = income_state(0, (6, 0))
    assert incomes(state) == {(3, 0)}
    state.play(Income(3, 0))
    assert support.pools(state, A) == ((3, 0), (3, 0))
    assert state.actions_used == 1
    assert state.current == A and state.phase == Phase.ACTIONS


def test_s16_income_short_stock():
    """16. Money bags 5, Stk{2,1} -> Income -> all 3 moved (Stk empty)."""
    state = income_state(1, (2, 1))
    assert incomes(state) == {(2, 1)}
    state.play(Income(2, 1))
    assert support.pools(state, A) == ((2, 1), (0, 0))
    assert state.actions_used == 1


def test_s17_income_money_bags_all():
    """17. Money bags C, Stk{12,2} -> Income -> all 14 moved."""
    state = income_state(3, (12, 2))
    assert incomes(state) == {(12, 2)}
    before = snapshot(state)
    with pytest.raises(IllegalMoveError):
        state.play(Income(7, 0))
    assert snapshot(state) == before
    state.play(Income(12, 2))
    assert support.pools(state, A) == ((12, 2), (0, 0))
    assert state.actions_used == 1


def test_s18_income_choose_mix():
    """18. Money bags 3, Stk{2,2} -> A chooses e.g. 2M+1T; Stk keeps 1T."""
    state = income_state(0, (2, 2))
    assert incomes(state) == {(2, 1), (1, 2)}
    state.play(Income(1, 2))
    assert support.pools(state, A) == ((1, 2), (1, 0))
    assert state.actions_used == 1


def test_s19_income_exact_vs_up_to():
    """19. Default: Money bags 5, Stk{9,0}, A asks for 2 -> refused (must take 5). With opt.incomeUpTo=true -> allowed."""
    state = income_state(1, (9, 0))
    assert incomes(state) == {(5, 0)}
    assert Income(2, 0) not in state.legal_moves()
    before = snapshot(state)
    with pytest.raises(IllegalMoveError):
        state.play(Income(2, 0))
    assert snapshot(state) == before
    state.play(Income(5, 0))
    assert support.pools(state, A) == ((5, 0), (4, 0))

    up = income_state(1, (9, 0), income_up_to=True)
    assert Income(2, 0) in up.legal_moves()
    assert Income(5, 0) in up.legal_moves()
    assert Income(6, 0) not in up.legal_moves()
    up.play(Income(2, 0))
    assert support.pools(up, A) == ((2, 0), (7, 0))
    assert up.actions_used == 1


# ---------------------------------------------------------------------------------------------- 7.4 place


def place_state() -> GameState:
    state = support.new_state(3, board=support.fixture_board())
    support.put(state, "P-Q:1", B)
    return state


def test_s20_place_next_to_opponent():
    """20. Sup{1,0}, house 2 of a 3-house route free, house 1 holds B -> Place on house 2 -> legal; Sup{0,0}."""
    state = place_state()
    support.set_pools(state, A, sup=(1, 0))
    assert Place("P-Q:2", "T") in state.legal_moves()
    state.play(Place("P-Q:2", "T"))
    assert state.piece_at("P-Q:2") == (A, "T")
    assert state.piece_at("P-Q:1") == (B, "T")
    assert support.pools(state, A)[0] == (0, 0)
    assert state.actions_used == 1


def test_s21_place_on_occupied_house():
    """21. Place on an occupied house -> illegal."""
    state = place_state()
    assert Place("P-Q:1", "T") not in state.legal_moves()
    assert Place("P-Q:1", "M") not in state.legal_moves()
    before = snapshot(state)
    with pytest.raises(IllegalMoveError):
        state.play(Place("P-Q:1", "T"))
    assert snapshot(state) == before
    assert state.piece_at("P-Q:1") == (B, "T")


def test_s22_place_from_stock():
    """22. Sup empty, Stk non-empty -> Place -> illegal."""
    state = place_state()
    support.set_pools(state, A, sup=(0, 0), stk=(6, 1))
    assert places(state) == []
    before = snapshot(state)
    for piece in "TM":
        with pytest.raises(IllegalMoveError):
            state.play(Place("P-Q:2", piece))
    assert snapshot(state) == before
    assert state.piece_at("P-Q:2") is None


def test_s23_place_merchant():
    """23. Place a Merchant on a house -> legal."""
    state = place_state()
    support.set_pools(state, A, sup=(0, 1))
    assert Place("P-Q:3", "M") in state.legal_moves()
    assert Place("P-Q:3", "T") not in state.legal_moves()
    state.play(Place("P-Q:3", "M"))
    assert state.piece_at("P-Q:3") == (A, "M")
    assert support.pools(state, A)[0] == (0, 0)
    assert state.actions_used == 1


def test_s24_place_into_city_office():
    """24. Place directly into a city office -> illegal."""
    state = place_state()
    board = state.board
    # every Place the engine offers targets a free house of a route, never a city office
    assert places(state)
    assert all(m.house in board.house_index and state.piece_at(m.house) is None for m in places(state))
    before = snapshot(state)
    for target in ("P", "K", "Q:1", "K:1"):
        with pytest.raises(IllegalMoveError):
            state.play(Place(target, "T"))
    assert snapshot(state) == before
    assert all(code < 0 for code in state.offices)
