"""Focused rule tests for docs/rule-scenarios.md §7.9 (East-West bonus, scenarios 77-81), on the real board.

The chain used is Arnheim - Muenster - Minden - Braunschweig - Stendal (routes ARN-MUN, MUN-MIN, MIN-BRA,
STE-BRA); the office that closes it is usually established in Stendal by claiming Stendal-Magdeburg.
"""

from __future__ import annotations

import support
from hansa.core.constants import PRIVILEGE, TRADER, piece_code
from hansa.core.moves import Claim, EndTurn
from hansa.core.state import GameState, Phase
from support import A, B, C, D

CHAIN = ("ARN", "MUN", "MIN", "BRA", "STE")


def city(state: GameState, code: str) -> int:
    return state.board.city_index[code]


def connected(state: GameState, p: int, a: str, b: str) -> bool:
    ca, cb = city(state, a), city(state, b)
    return any(ca in comp and cb in comp for comp, _ in state.network_components(p))


def claim_stendal(state: GameState, p: int, kinds: str = "TTM") -> None:
    """Player ``p`` (active) fills Stendal-Magdeburg and claims it with an office in Stendal."""
    assert state.current == p and state.phase == Phase.ACTIONS
    route = state.board.route_between("Stendal", "Magdeburg").code
    support.fill_route(state, route, p, kinds)
    move = Claim(route, "office", "STE")
    assert move in state.legal_moves()
    state.play(move)


def test_s077_first_chain_pays_seven():
    """77. A establishes an office completing a chain Arnheim...Stendal (offices in every city of a route path) -> A +7."""
    state = support.new_state(3)
    for code in ("ARN", "MUN", "MIN", "BRA"):
        support.set_office(state, code, 0, A)
    assert not connected(state, A, "ARN", "STE")
    claim_stendal(state, A, "TTT")
    assert connected(state, A, "ARN", "STE")
    assert state.score == [7, 0, 0]  # Stendal and Magdeburg had no offices: no step-a points
    assert state.ew_paid == [A]


def test_s078_later_chains_pay_four_two_zero():
    """78. Later B completes his chain -> +4; C -> +2; D -> +0."""
    state = support.new_state(4)
    for p in (A, B, C, D):
        support.set_level(state, p, PRIVILEGE, 2)  # pink: Stendal's k3 (orange) and k4 (pink) reachable
        support.set_office(state, "ARN", p, p)
        support.set_office(state, "MIN", p, p)
    support.set_office(state, "MUN", 0, A)
    support.set_office(state, "MUN", 1, B, "M")
    support.add_extra_office(state, "MUN", C)
    support.add_extra_office(state, "MUN", D)
    support.set_office(state, "BRA", 0, A)
    for p in (B, C, D):
        support.add_extra_office(state, "BRA", p)

    claim_stendal(state, A)
    assert state.score == [7, 0, 0, 0] and state.ew_paid == [A]
    state.play(EndTurn())

    claim_stendal(state, B)  # step a: A controls Stendal -> A +1
    assert state.score == [8, 4, 0, 0] and state.ew_paid == [A, B]
    state.play(EndTurn())

    claim_stendal(state, C)  # step a: 1-1 in Stendal, B rightmost -> B +1
    assert state.score == [8, 5, 2, 0] and state.ew_paid == [A, B, C]
    state.play(EndTurn())

    claim_stendal(state, D)  # step a: C rightmost -> C +1
    assert state.score == [8, 5, 3, 0] and state.ew_paid == [A, B, C, D]
    assert all(connected(state, p, "ARN", "STE") for p in (A, B, C, D))


def test_s079_second_chain_pays_nothing():
    """79. A completes a second chain later -> nothing."""
    state = support.new_state(3)
    for code in ("ARN", "MUN", "MIN", "BRA", "HAN", "LUN"):
        support.set_office(state, code, 0, A, "M" if code in ("MUN", "LUN") else "T")
    claim_stendal(state, A, "TTT")
    assert state.score[A] == 7 and state.ew_paid == [A]
    for _ in range(3):  # A, B and C end their turns; A's next turn
        state.play(EndTurn())
    assert state.current == A
    # Second chain Minden - Hannover - Lueneburg - Perleberg - Stendal, closed by an office in Perleberg.
    route = state.board.route_between("Stendal", "Perleberg").code
    support.fill_route(state, route, A)
    state.play(Claim(route, "office", "PER"))
    assert state.offices[state.board.cities[city(state, "PER")].office_base] == piece_code(A, TRADER)
    assert state.score[A] == 8  # only step a (A controls Stendal)
    assert state.ew_paid == [A]


def test_s080_extra_office_counts_and_control_irrelevant():
    """80. A's chain passes a city where A holds only an extra office -> counts; A controls none of the cities -> still counts."""
    state = support.new_state(3)
    support.set_office(state, "ARN", 0, A)
    support.set_office(state, "ARN", 1, B, "M")
    support.set_office(state, "MUN", 0, A, "M")
    support.set_office(state, "MUN", 1, C)
    support.set_office(state, "MIN", 0, C)
    support.add_extra_office(state, "MIN", A)
    support.set_office(state, "BRA", 0, B)
    support.add_extra_office(state, "BRA", A)
    support.set_office(state, "STE", 0, B)
    support.set_office(state, "STE", 1, B, "M")
    support.set_level(state, A, PRIVILEGE, 1)  # orange for Stendal's k3
    claim_stendal(state, A, "TTT")
    assert state.ew_paid == [A]
    assert state.score == [7, 1, 0]  # B controlled Stendal at step a
    assert all(state.controller(city(state, c)) != A for c in CHAIN)


def test_s081_missing_intermediate_city_no_bonus():
    """81. A has offices in Arnheim and Stendal but the intermediate city lacks A's office -> no bonus."""
    state = support.new_state(3)
    for code in ("ARN", "MUN", "MIN"):
        support.set_office(state, code, 0, A, "M" if code == "MUN" else "T")
    support.set_level(state, A, PRIVILEGE, 1)
    claim_stendal(state, A, "TTT")
    assert state.office_count(A) == 4
    assert not connected(state, A, "ARN", "STE")
    assert state.score == [0, 0, 0]
    assert state.ew_paid == []
    # Control: the office in Braunschweig (the missing city) closes the chain and pays.
    route = state.board.route_between("Minden", "Braunschweig").code
    support.fill_route(state, route, A)
    state.play(Claim(route, "office", "BRA"))
    assert state.score[A] == 1 + 7  # step a for Minden, then the bonus
    assert state.ew_paid == [A]
