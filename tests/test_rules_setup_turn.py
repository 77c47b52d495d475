"""Focused rule tests for docs/rule-scenarios.md §7.1 (setup, scenarios 1-7) and §7.2 (turn and allowance, scenarios 8-14)."""

from __future__ import annotations

from collections import Counter

import pytest

import support
from hansa.core.constants import (
    ACTIONS,
    BAGS,
    BOOK,
    EXTRA_OFFICE,
    IMPROVE,
    KEYS,
    PLUS3,
    PLUS4,
    PRIVILEGE,
    REMOVE3,
    SWAP_OFFICES,
)
from hansa.core.errors import IllegalMoveError, WrongPlayerError
from hansa.core.moves import Claim, EndTurn, Improve, Income, Place, UseMarker
from hansa.core.state import GameState, Phase
from support import A, B, D, E, snapshot

TAVERN_PAIRS = (("Osnabrueck", "Bremen"), ("Lueneburg", "Perleberg"), ("Hildesheim", "Goslar"))


def coin_offices(state: GameState) -> int:
    return sum(1 for c in state.board.cities for o in c.offices if o.coin)


def start_counts(state: GameState, seat_from_start: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """pools() of the player sitting ``seat_from_start`` places after the start player (0 = start player)."""
    return support.pools(state, (state.start_player + seat_from_start) % state.players)


def places(state: GameState, n: int) -> None:
    """A takes ``n`` Place actions on free houses (Traders)."""
    for _ in range(n):
        move = next(m for m in state.legal_moves() if isinstance(m, Place) and m.piece == "T")
        state.play(move)


# ---------------------------------------------------------------------------------------------- 7.1 setup


def test_s01_four_players_front_side_and_pieces():
    """1. 4 players -> front side; seats 1-4 Supply = 1M+5T, 1M+6T, 1M+7T, 1M+8T; Stock = 6T, 5T, 4T, 3T; every player totals 27T/4M."""
    expected = [((5, 1), (6, 0)), ((6, 1), (5, 0)), ((7, 1), (4, 0)), ((8, 1), (3, 0))]
    state = support.new_state(4)
    assert state.board.side == "4-5"
    assert state.start_player == A
    for p in range(4):
        assert support.pools(state, p) == expected[p]
        # 15 Traders and 3 Merchants still cover the tracks (all levels at the leftmost space)
        assert [state.ability_level(p, a) for a in range(5)] == [0, 0, 0, 0, 0]
        assert state.pieces_accounted(p) == (27, 4)
    # A random start player: the distribution follows the seat relative to the start player.
    for seed in range(6):
        s = GameState.new(4, seed)
        assert s.board.side == "4-5"
        for k in range(4):
            assert start_counts(s, k) == expected[k]
        assert [s.pieces_accounted(p) for p in range(4)] == [(27, 4)] * 4


def test_s02_five_players_seat_five():
    """2. 5 players -> seat 5 Supply 1M+9T, Stock 2T."""
    state = support.new_state(5)
    assert state.board.side == "4-5"
    assert support.pools(state, E) == ((9, 1), (2, 0))
    assert support.pools(state, D) == ((8, 1), (3, 0))
    assert [state.pieces_accounted(p) for p in range(5)] == [(27, 4)] * 5
    s = GameState.new(5, 3)
    assert start_counts(s, 4) == ((9, 1), (2, 0))


def test_s03_two_players_back_side():
    """3. 2 players -> back side; seat 1 Sup 1M+5T / Stk 6T; seat 2 Sup 1M+6T / Stk 5T."""
    state = support.new_state(2)
    assert state.board.side == "2-3"
    assert support.pools(state, A)[0] == (5, 1)
    assert support.pools(state, A)[1][0] == 6
    assert support.pools(state, B)[0] == (6, 1)
    assert support.pools(state, B)[1][0] == 5


def test_s04_board_side_coin_offices():
    """4. 3 players -> back side; 6 coin offices exist on the board; 4-5 players -> 4."""
    s3 = support.new_state(3)
    assert s3.board.side == "2-3"
    assert coin_offices(s3) == 6
    for n in (4, 5):
        s = support.new_state(n)
        assert s.board.side == "4-5"
        assert coin_offices(s) == 4


def test_s05_start_levels():
    """5. Start levels: Keys 1, Actions 2, Privilege white, Book 2, Money bags 3."""
    state = support.new_state(3)
    for p in range(3):
        assert state.ability_value(p, KEYS) == 1
        assert state.ability_value(p, ACTIONS) == 2
        assert state.ability_value(p, PRIVILEGE) == 1  # white
        assert state.ability_value(p, BOOK) == 2
        assert state.ability_value(p, BAGS) == 3
    assert state.allowance() == 2


@pytest.mark.parametrize("players", [3, 4])
def test_s06_tavern_markers_and_supply(players):
    """6. Tavern routes Osnabrueck-Bremen, Lueneburg-Perleberg, Hildesheim-Goslar each hold one of {Remove 3, Swap, Extra office}; supply = 13 (IT4)."""
    for seed in range(5):
        state = support.new_state(players, seed=seed)
        board = state.board
        tavern_routes = {board.route_between(a, b).index for a, b in TAVERN_PAIRS}
        assert set(board.tavern_order) == tavern_routes
        on_taverns = sorted(state.route_marker[r] for r in tavern_routes)
        assert on_taverns == sorted([REMOVE3, SWAP_OFFICES, EXTRA_OFFICE])
        assert all(m < 0 for r, m in enumerate(state.route_marker) if r not in tavern_routes)
        assert len(state.marker_supply) == 13
        assert Counter(state.marker_supply) == Counter(
            {EXTRA_OFFICE: 3, SWAP_OFFICES: 2, PLUS3: 2, PLUS4: 2, IMPROVE: 3, REMOVE3: 1}
        )
    pt = support.new_state(3, marker_set="PT15")
    assert len(pt.marker_supply) == 12
    en = support.new_state(3, marker_set="EN16")
    assert len(en.marker_supply) == 13
    assert Counter(en.marker_supply)[EXTRA_OFFICE] == 4
    assert Counter(en.marker_supply)[SWAP_OFFICES] == 1


def test_s07_initial_counters():
    """7. Completed-cities counter 0, all scores 0, East-West list empty, 3 markers on board."""
    for n in (3, 4, 5):
        state = support.new_state(n)
        assert state.completed == 0
        assert state.score == [0] * n
        assert state.ew_paid == []
        assert state.markers_on_board() == 3
        assert sum(1 for m in state.route_marker if m >= 0) == 3
        assert state.phase == Phase.ACTIONS and state.current == A and state.actions_used == 0


# ---------------------------------------------------------------------------------------------- 7.2 turn


def test_s08_third_action_refused():
    """8. A (Actions 2) takes 2 actions -> a 3rd action is refused; A may end the turn."""
    state = support.new_state(3)
    support.give_markers(state, A, PLUS3)  # a usable marker keeps the turn open after the 2nd action
    places(state, 2)
    assert state.current == A and state.phase == Phase.ACTIONS
    assert state.actions_used == 2 and state.actions_left() == 0
    legal = state.legal_moves()
    assert not any(isinstance(m, (Place, Income, Claim)) for m in legal)
    assert EndTurn() in legal
    before = snapshot(state)
    with pytest.raises(IllegalMoveError):
        state.play(Place("GRO-EMD:1", "T"))
    with pytest.raises(IllegalMoveError):
        state.play(Income(3, 0))
    assert snapshot(state) == before
    state.play(EndTurn())
    assert state.current == B and state.actions_used == 0
    # Without a usable marker the turn ends by itself after the 2nd action: A cannot act any more.
    s = support.new_state(3)
    places(s, 2)
    assert s.current == B
    before = snapshot(s)
    with pytest.raises(WrongPlayerError):
        s.play(Place("GRO-EMD:1", "T"), player=A)
    assert snapshot(s) == before


def test_s09_unused_action_lost():
    """9. A takes 1 action and ends the turn -> the 2nd action is lost (no carry-over)."""
    state = support.new_state(3)
    places(state, 1)
    assert state.actions_left() == 1
    state.play(EndTurn())
    assert state.current == B and state.actions_used == 0 and state.allowance() == 2
    state.play(EndTurn())
    state.play(EndTurn())
    assert state.current == A
    assert state.actions_used == 0
    assert state.allowance() == 2
    assert state.actions_left() == 2


def claim_actions_state(level: int) -> GameState:
    """A at Actions level ``level`` with a full Goettingen-Quedlinburg route ready to claim."""
    state = support.new_state(3)
    support.set_level(state, A, ACTIONS, level)
    support.fill_route(state, "GOE-QUE", A, "TTT")
    return state


def upgrade_actions_by_claim(state: GameState) -> None:
    move = Claim("GOE-QUE", "ability", "GOE")
    assert move in state.legal_moves()
    state.play(move)


def test_s10_claim_goettingen_raises_allowance():
    """10. A (Actions value 2) first action: claims a Goettingen route and upgrades Actions -> value 3 -> 2 more actions (3 total)."""
    state = claim_actions_state(0)
    (sup, stk) = support.pools(state, A)
    assert state.allowance() == 2
    upgrade_actions_by_claim(state)
    assert state.ability_level(A, ACTIONS) == 1
    assert state.ability_value(A, ACTIONS) == 3
    assert state.allowance() == 3
    assert state.actions_used == 1 and state.actions_left() == 2
    assert support.pools(state, A) == ((sup[0] + 1, sup[1]), (stk[0] + 3, stk[1]))
    assert all(state.piece_at(f"GOE-QUE:{i}") is None for i in (1, 2, 3))
    assert state.current == A and state.phase == Phase.ACTIONS
    places(state, 2)
    assert state.current == B  # 3 actions in all, then the turn ended


def test_s11_upgrade_without_value_change():
    """11. A (Actions value 3 at level 2) upgrades to level 3 (value 3) -> allowance unchanged."""
    state = claim_actions_state(1)  # index 1 = level 2 (value 3)
    assert state.allowance() == 3
    upgrade_actions_by_claim(state)
    assert state.ability_level(A, ACTIONS) == 2
    assert state.ability_value(A, ACTIONS) == 3
    assert state.allowance() == 3
    assert state.actions_used == 1 and state.actions_left() == 2
    places(state, 2)
    assert state.current == B  # still 3 actions in all


@pytest.mark.parametrize(
    "level, before, after",
    [(2, 3, 4), (3, 4, 4), (4, 4, 5)],  # 1-based levels 3->4, 4->5, 5->6
)
def test_s12_upgrade_value_steps(level, before, after):
    """12. A at level 3 (value 3) -> level 4 (value 4) +1 action; level 4->5 (4->4) +0; 5->6 (4->5) +1."""
    state = claim_actions_state(level)
    assert state.allowance() == before
    upgrade_actions_by_claim(state)
    assert state.ability_level(A, ACTIONS) == level + 1
    assert state.ability_value(A, ACTIONS) == after
    assert state.allowance() == after
    assert state.actions_used == 1
    assert state.actions_left() == after - 1


def test_s13_improve_marker_after_last_action():
    """13. A used 2/2 actions, then uses an Improve-ability marker on Actions (2->3) -> A may take 1 more action."""
    state = support.new_state(3)
    support.give_markers(state, A, IMPROVE)
    places(state, 2)
    assert state.current == A and state.actions_left() == 0
    assert Improve("actions") in state.legal_moves()
    sup_t = state.sup_t[A]
    state.play(Improve("actions"))
    assert state.ability_value(A, ACTIONS) == 3
    assert state.allowance() == 3
    assert state.actions_used == 2  # using a marker is not an action
    assert state.actions_left() == 1
    assert state.sup_t[A] == sup_t + 1  # the released Trader goes to the Supply
    assert IMPROVE not in state.markers[A] and IMPROVE in state.used_markers[A]
    places(state, 1)
    assert state.current == B


def test_s14_plus4_and_plus3_same_turn():
    """14. A (Actions 2) uses +4 after 2 actions -> 4 more; uses +3 too -> 3 more (total 9 this turn); next turn allowance is 2."""
    state = support.new_state(3)
    support.set_pools(state, A, sup=(12, 1))
    support.give_markers(state, A, PLUS4, PLUS3)
    places(state, 2)
    assert state.current == A and state.actions_left() == 0
    state.play(UseMarker("+4"))
    assert state.actions_used == 2 and state.allowance() == 6 and state.actions_left() == 4
    state.play(UseMarker("+3"))
    assert state.actions_used == 2 and state.allowance() == 9 and state.actions_left() == 7
    places(state, 6)
    assert state.current == A and state.actions_used == 8 and state.actions_left() == 1
    places(state, 1)
    assert state.current == B  # 9 actions taken, turn over
    state.play(EndTurn())
    state.play(EndTurn())
    assert state.current == A
    assert state.bonus_actions == 0
    assert state.allowance() == 2 and state.actions_left() == 2
