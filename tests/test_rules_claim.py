"""Focused rule tests for docs/rule-scenarios.md §7.7 (claim steps a and b, scenarios 51-60) and §7.8 (claim step c and
office placement, scenarios 61-76).

Fixture K scenarios use ``support.fixture_board()``: city K (k1 square white coin, k2 round white, k3 square
orange, k4 square pink) reached by V-K[3] and K-Y[2]; P..V and Y have one square white office each.
Ability-city and Coellen scenarios use the real 2-3 board (``new_state(3)``).
"""

from __future__ import annotations

import pytest

import support
from hansa.core.constants import (
    ACTIONS,
    BOOK,
    EXTRA_OFFICE,
    MERCHANT,
    PLUS3,
    PLUS4,
    PRIVILEGE,
    TRADER,
    piece_code,
)
from hansa.core.moves import Claim, UseMarker
from hansa.core.scoring import final_scores
from hansa.core.state import GameState, Phase
from support import A, B, C, refuse

AT, AM = piece_code(A, TRADER), piece_code(A, MERCHANT)
BT, BM = piece_code(B, TRADER), piece_code(B, MERCHANT)
CT, CM = piece_code(C, TRADER), piece_code(C, MERCHANT)
FREE = -1


# ---------------------------------------------------------------------------------------------- helpers


def claims(state: GameState, route: str) -> set[Claim]:
    """The legal Claim moves of ``route``."""
    return {m for m in state.legal_moves() if isinstance(m, Claim) and m.route == route}


def city(state: GameState, code: str) -> int:
    return state.board.city_index[code]


def office_codes(state: GameState, code: str) -> list[int]:
    c = state.board.cities[city(state, code)]
    return state.offices[c.office_base : c.office_base + len(c.offices)]


def route_empty(state: GameState, route: str) -> bool:
    return all(state.piece_at(h) is None for h in support.route_houses(state, route))


def fixture() -> GameState:
    return support.new_state(3, board=support.fixture_board())


# ---------------------------------------------------------------------------------------------- 7.7 claim (a), (b)


def test_s051_claim_needs_every_house_held_by_claimant():
    """51. Route with one B piece among A's -> Claim illegal; route with a free house -> illegal."""
    state = fixture()
    support.put(state, "V-K:1", A)
    support.put(state, "V-K:2", B)
    support.put(state, "V-K:3", A)
    support.put(state, "K-Y:1", A)  # K-Y:2 stays free
    assert claims(state, "V-K") == set()
    assert claims(state, "K-Y") == set()
    refuse(state, Claim("V-K"))
    refuse(state, Claim("V-K", "office", "K"))
    refuse(state, Claim("K-Y"))
    refuse(state, Claim("K-Y", "office", "Y"))
    assert state.actions_used == 0
    assert state.piece_at("V-K:2") == (B, "T")
    # Control: once B's piece is replaced by A's and the free house filled, both claims become legal.
    support.put(state, "V-K:2", A)
    support.put(state, "K-Y:2", A)
    assert Claim("V-K") in claims(state, "V-K")
    assert Claim("K-Y") in claims(state, "K-Y")


def test_s052_claim_with_traders_and_merchant_is_legal():
    """52. Route of A's 2 Traders + 1 Merchant -> Claim legal."""
    state = fixture()
    support.fill_route(state, "V-K", A, "TTM")
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    legal = claims(state, "V-K")
    assert Claim("V-K") in legal
    assert Claim("V-K", "office", "K") in legal
    assert Claim("V-K", "office", "V") in legal
    state.play(Claim("V-K", "office", "K"))
    assert office_codes(state, "K") == [AT, FREE, FREE, FREE]
    assert state.score[A] == 1  # k1 coin
    assert support.pools(state, A) == ((5, 1), (7, 1))  # the other Trader and the Merchant to the stock
    assert route_empty(state, "V-K")
    assert state.actions_used == 1
    assert state.phase == Phase.ACTIONS and state.decider == A


def test_s053_step_a_controller_of_one_city_scores_one():
    """53. Step a: X controlled by B, Y has no offices -> B +1, nobody else."""
    state = fixture()
    support.set_office(state, "V", 0, B)
    support.fill_route(state, "V-K", A)
    state.play(Claim("V-K"))
    assert state.score == [0, 1, 0]


def test_s054_controller_of_both_cities_scores_two():
    """54. Same player C controls X and Y -> C +2."""
    state = fixture()
    support.set_office(state, "V", 0, C)
    support.set_office(state, "K", 0, C)
    support.fill_route(state, "V-K", A)
    state.play(Claim("V-K"))
    assert state.score == [0, 0, 2]


def test_s055_claimant_scores_for_own_controlled_city():
    """55. A controls X -> A +1 (claimant can score)."""
    state = fixture()
    support.set_office(state, "V", 0, A)
    support.fill_route(state, "V-K", A)
    state.play(Claim("V-K"))
    assert state.score == [1, 0, 0]


def test_s056_tie_two_two_rightmost_office_controls():
    """56. Fixture K: A on k1, k3; B on k2, k4 (2-2) -> B controls (k4 rightmost)."""
    state = fixture()
    support.set_office(state, "K", 0, A, "T")
    support.set_office(state, "K", 1, B, "M")
    support.set_office(state, "K", 2, A, "T")
    support.set_office(state, "K", 3, B, "T")
    assert state.controller(city(state, "K")) == B
    support.fill_route(state, "V-K", A)
    state.play(Claim("V-K"))
    assert state.score == [0, 1, 0]
    assert final_scores(state)[B].control == 2
    assert final_scores(state)[A].control == 0


def test_s057_three_way_tie_rightmost_controls():
    """57. Fixture K: A on k1; B on k2; C on k3 (1-1-1) -> C controls."""
    state = fixture()
    support.set_office(state, "K", 0, A, "T")
    support.set_office(state, "K", 1, B, "M")
    support.set_office(state, "K", 2, C, "T")
    assert state.controller(city(state, "K")) == C
    support.fill_route(state, "V-K", A)
    state.play(Claim("V-K"))
    assert state.score == [0, 0, 1]


def test_s058_step_a_is_scored_before_the_new_office():
    """58. City Y: B on the only occupied office; A claims X-Y and establishes in Y -> step a paid B +1 before A's office; A gets nothing for Y."""
    state = fixture()
    support.set_office(state, "K", 0, B, "T")
    support.fill_route(state, "V-K", A, "TTM")
    assert Claim("V-K", "office", "K") in claims(state, "V-K")
    state.play(Claim("V-K", "office", "K"))
    assert office_codes(state, "K") == [BT, AM, FREE, FREE]
    assert state.score == [0, 1, 0]
    # After the claim A would control K (1-1, A rightmost), but that came too late for step a.
    assert state.controller(city(state, "K")) == A


def test_s059_marker_taken_replacement_drawn_usable_after_action():
    """59. Route with a +3 marker -> A takes it; draws 1 replacement face down to the plate; A cannot use +3 during this claim but may use it right after this action (same turn)."""
    state = fixture()
    support.set_marker(state, "V-K", PLUS3)
    support.fill_route(state, "V-K", A)
    supply_before = list(state.marker_supply)
    assert UseMarker("+3") not in state.legal_moves()
    state.play(Claim("V-K"))
    assert state.route_marker[state.board.route("V-K").index] == FREE
    assert state.markers[A] == (PLUS3,)
    assert state.plate[A] == (supply_before[-1],)
    assert state.marker_supply == supply_before[:-1]
    assert state.bonus_actions == 0 and state.used_markers[A] == ()  # not used inside the claim
    assert state.actions_used == 1
    assert state.phase == Phase.ACTIONS and state.decider == A
    assert UseMarker("+3") in state.legal_moves()
    state.play(UseMarker("+3"))
    assert state.bonus_actions == 3
    assert state.allowance() == 5 and state.actions_used == 1
    assert state.markers[A] == () and state.used_markers[A] == (PLUS3,)


def test_s060_extra_office_marker_not_usable_in_the_claim_that_gains_it():
    """60. Route with an Extra-office marker -> A cannot use that marker in this same claim's step (c)."""
    state = fixture()
    support.set_office(state, "K", 0, B)  # K holds an office, so an extra office would otherwise be possible
    support.set_marker(state, "V-K", EXTRA_OFFICE)
    support.fill_route(state, "V-K", A)
    assert state.markers[A] == ()
    assert not any(m.benefit == "extra" for m in claims(state, "V-K"))
    refuse(state, Claim("V-K", "extra", "K", "T"))
    state.play(Claim("V-K"))
    assert state.markers[A] == (EXTRA_OFFICE,)
    assert state.extras[city(state, "K")] == ()
    # A later claim of the same turn may use it.
    support.fill_route(state, "K-Y", A)
    assert Claim("K-Y", "extra", "K", "T") in claims(state, "K-Y")
    state.play(Claim("K-Y", "extra", "K", "T"))
    assert state.extras[city(state, "K")] == (AT,)
    assert state.markers[A] == () and state.used_markers[A] == (EXTRA_OFFICE,)


# ---------------------------------------------------------------------------------------------- 7.8 claim (c)


def test_s061_office_on_k1_with_coin():
    """61. Fixture K empty, A Privilege white, route has a Trader -> office on k1 (square white); coin -> A +1."""
    state = fixture()
    support.fill_route(state, "V-K", A)
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    assert Claim("V-K", "office", "K") in claims(state, "V-K")
    state.play(Claim("V-K", "office", "K"))
    assert office_codes(state, "K") == [AT, FREE, FREE, FREE]
    assert state.score[A] == 1
    assert state.city_filled[city(state, "K")] == 1
    assert state.completed == 0
    assert support.pools(state, A) == ((5, 1), (8, 0))


def test_s062_round_office_needs_merchant_other_city_possible():
    """62. Fixture K with k1 occupied; route has only Traders -> k2 is round -> cannot establish in K; may use the other city."""
    state = fixture()
    support.set_office(state, "K", 0, B)
    support.fill_route(state, "V-K", A, "TTT")
    legal = claims(state, "V-K")
    assert Claim("V-K", "office", "K") not in legal
    assert Claim("V-K", "office", "V") in legal
    refuse(state, Claim("V-K", "office", "K"))
    refuse(state, Claim("V-K", "office", "K", "T"))
    state.play(Claim("V-K", "office", "V"))
    assert office_codes(state, "V") == [AT]
    assert office_codes(state, "K") == [BT, FREE, FREE, FREE]
    assert state.score == [0, 1, 0]  # step a: B controls K


def test_s063_privilege_too_low_for_next_office():
    """63. Fixture K with k1, k2 occupied, A Privilege white -> k3 is orange -> cannot establish in K."""
    state = fixture()
    support.set_office(state, "K", 0, B, "T")
    support.set_office(state, "K", 1, C, "M")
    support.fill_route(state, "V-K", A, "TTT")
    assert Claim("V-K", "office", "K") not in claims(state, "V-K")
    refuse(state, Claim("V-K", "office", "K"))
    # The same claim is legal once A's Privilege reaches orange.
    support.set_level(state, A, PRIVILEGE, 1)
    assert Claim("V-K", "office", "K") in claims(state, "V-K")
    state.play(Claim("V-K", "office", "K"))
    assert office_codes(state, "K") == [BT, CM, AT, FREE]


def test_s064_leftmost_free_office_cannot_be_skipped():
    """64. Fixture K with k1 occupied; A has a Merchant and Traders; A wants k3 -> illegal (k2 must be taken first)."""
    state = fixture()
    support.set_office(state, "K", 0, B)
    support.set_level(state, A, PRIVILEGE, 1)  # orange: k3 would fit if skipping were allowed
    support.fill_route(state, "V-K", A, "TTM")
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    office_claims = {m for m in claims(state, "V-K") if m.benefit == "office" and m.target == "K"}
    assert office_claims == {Claim("V-K", "office", "K")}
    refuse(state, Claim("V-K", "office", "K", "T"))  # a Trader could only go to k3
    state.play(Claim("V-K", "office", "K"))
    assert office_codes(state, "K") == [BT, AM, FREE, FREE]
    assert support.pools(state, A) == ((5, 1), (8, 0))


def test_s065_merchant_cannot_take_square_office():
    """65. A Merchant on the route, next free office is square -> the Merchant cannot take it."""
    state = fixture()
    support.fill_route(state, "K-Y", A, "MM")  # k1 and Y's office are both square
    assert claims(state, "K-Y") == {Claim("K-Y")}
    refuse(state, Claim("K-Y", "office", "Y"))
    refuse(state, Claim("K-Y", "office", "Y", "M"))
    refuse(state, Claim("K-Y", "office", "K"))
    # With a Trader on the route the square office is reachable (by the Trader).
    support.put(state, "K-Y:1", A, "T")
    assert Claim("K-Y", "office", "Y") in claims(state, "K-Y")
    state.play(Claim("K-Y", "office", "Y"))
    assert office_codes(state, "Y") == [AT]


def test_s066_filling_last_office_completes_city():
    """66. City with 1 free office left; A fills it -> completed-cities counter +1."""
    state = fixture()
    support.set_office(state, "K", 0, B, "T")
    support.set_office(state, "K", 1, C, "M")
    support.set_office(state, "K", 2, B, "T")
    support.set_level(state, A, PRIVILEGE, 2)  # pink
    support.fill_route(state, "V-K", A)
    assert state.completed == 0
    state.play(Claim("V-K", "office", "K"))
    assert office_codes(state, "K") == [BT, CM, BT, AT]
    assert state.city_filled[city(state, "K")] == 4
    assert state.completed == 1
    assert state.score == [0, 1, 0]  # step a: B (2 offices) controls K; no coin on k4


def _both_completed() -> GameState:
    state = fixture()
    support.set_office(state, "K", 0, B, "T")
    support.set_office(state, "K", 1, C, "M")
    support.set_office(state, "K", 2, B, "T")
    support.set_office(state, "K", 3, C, "T")  # 2-2, C rightmost -> C controls K
    support.set_office(state, "Y", 0, B, "T")
    support.set_level(state, A, PRIVILEGE, 3)
    support.set_marker(state, "K-Y", PLUS4)
    support.fill_route(state, "K-Y", A, "TT")
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    return state


def test_s067_both_cities_completed_only_nothing():
    """67. Both endpoint cities completed, no ability city, not Coellen -> only "Nothing" (or Extra office if held); step a and b still apply; all pieces -> A's Stock."""
    state = _both_completed()
    assert state.completed == 2
    assert claims(state, "K-Y") == {Claim("K-Y")}
    refuse(state, Claim("K-Y", "office", "K"))
    refuse(state, Claim("K-Y", "office", "Y"))
    top = state.marker_supply[-1]
    state.play(Claim("K-Y"))
    assert state.score == [0, 1, 1]  # C for K, B for Y
    assert state.markers[A] == (PLUS4,) and state.plate[A] == (top,)
    assert support.pools(state, A) == ((5, 1), (8, 0))
    assert route_empty(state, "K-Y")
    assert state.completed == 2
    # Holding an Extra-office marker adds the extra-office options, nothing else.
    held = _both_completed()
    support.give_markers(held, A, EXTRA_OFFICE)
    assert claims(held, "K-Y") == {Claim("K-Y"), Claim("K-Y", "extra", "K", "T"), Claim("K-Y", "extra", "Y", "T")}


def test_s068_choosing_nothing_sends_all_to_stock():
    """68. A could establish an office but chooses Nothing -> all pieces to Stock; step a points stand."""
    state = fixture()
    support.set_office(state, "V", 0, B)
    support.fill_route(state, "V-K", A, "TTM")
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    assert Claim("V-K", "office", "K") in claims(state, "V-K")
    state.play(Claim("V-K"))
    assert support.pools(state, A) == ((5, 1), (8, 1))
    assert office_codes(state, "K") == [FREE] * 4
    assert state.score == [0, 1, 0]
    assert route_empty(state, "V-K")
    assert state.office_count(A) == 0


def test_s069_goettingen_upgrades_actions():
    """69. Route adjacent to Goettingen -> Ability chosen -> all route pieces -> A's Stock; leftmost Actions cube -> A's Supply; Actions value rises."""
    state = support.new_state(3)
    route = state.board.route_between("Goettingen", "Quedlinburg").code
    support.fill_route(state, route, A)
    assert support.pools(state, A) == ((5, 1), (6, 0))
    assert state.ability_value(A, ACTIONS) == 2
    assert Claim(route, "ability", "GOE") in claims(state, route)
    state.play(Claim(route, "ability", "GOE"))
    assert support.pools(state, A) == ((6, 1), (9, 0))
    assert state.ability_level(A, ACTIONS) == 1 and state.ability_value(A, ACTIONS) == 3
    assert state.allowance() == 3 and state.actions_used == 1 and state.actions_left() == 2
    assert office_codes(state, "GOE") == [FREE, FREE]
    assert route_empty(state, route)


def test_s070_groningen_upgrades_book_with_merchant():
    """70. Route adjacent to Groningen -> Book upgrade -> a Merchant goes to A's Supply; Book 2->3."""
    state = support.new_state(3)
    route = state.board.route_between("Groningen", "Emden").code
    support.fill_route(state, route, A)
    state.play(Claim(route, "ability", "GRO"))
    assert support.pools(state, A) == ((5, 2), (9, 0))
    assert state.ability_level(A, BOOK) == 1 and state.ability_value(A, BOOK) == 3


def test_s071_maxed_ability_not_available():
    """71. A's ability of that city is maxed -> Ability option unavailable; Office/Nothing still available."""
    state = support.new_state(3)
    route = state.board.route_between("Goettingen", "Quedlinburg").code
    support.set_level(state, A, ACTIONS, 5)
    support.fill_route(state, route, A)
    legal = claims(state, route)
    assert not any(m.benefit == "ability" for m in legal)
    assert Claim(route) in legal and Claim(route, "office", "GOE") in legal
    refuse(state, Claim(route, "ability", "GOE"))
    state.play(Claim(route, "office", "GOE"))
    assert office_codes(state, "GOE") == [AT, FREE]
    assert state.ability_level(A, ACTIONS) == 5


def test_s072_only_one_benefit_per_claim():
    """72. A wants both an office and an ability upgrade from one claim -> illegal (exactly one benefit)."""
    state = support.new_state(3)
    route = state.board.route_between("Goettingen", "Quedlinburg").code
    support.fill_route(state, route, A)
    refuse(state, Claim(route, "office+ability", "GOE"))
    legal = claims(state, route)
    assert Claim(route, "ability", "GOE") in legal and Claim(route, "office", "GOE") in legal
    state.play(Claim(route, "ability", "GOE"))
    assert state.ability_level(A, ACTIONS) == 1
    assert office_codes(state, "GOE") == [FREE, FREE]
    # The claim is over: the office cannot be added afterwards (the route is empty).
    refuse(state, Claim(route, "office", "GOE"))
    assert support.pools(state, A) == ((6, 1), (9, 0))


def test_s073_coellen_table_by_privilege():
    """73. Coellen-Warburg with A's Merchant on it, Privilege pink, table free -> A may choose 7, 8 or 9; 11 (black) illegal; no PP now; 9 PP at end."""
    state = support.new_state(3)
    route = state.board.route_between("Coellen", "Warburg").code
    support.fill_route(state, route, A, "TTTM")
    support.set_level(state, A, PRIVILEGE, 2)
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    tables = {m.target for m in claims(state, route) if m.benefit == "table"}
    assert tables == {"white", "orange", "pink"}
    refuse(state, Claim(route, "table", "black"))
    state.play(Claim(route, "table", "pink"))
    assert state.table == [FREE, FREE, AM, FREE]
    assert state.score[A] == 0
    assert support.pools(state, A) == ((5, 1), (9, 0))
    assert final_scores(state)[A].coellen == 9


def test_s074_coellen_table_needs_merchant():
    """74. Coellen-Warburg with only Traders -> table option unavailable (office possible)."""
    state = support.new_state(3)
    route = state.board.route_between("Coellen", "Warburg").code
    support.fill_route(state, route, A, "TTTT")
    support.set_level(state, A, PRIVILEGE, 3)
    legal = claims(state, route)
    assert not any(m.benefit == "table" for m in legal)
    assert Claim(route, "office", "COE") in legal
    refuse(state, Claim(route, "table", "white"))
    state.play(Claim(route, "office", "COE"))
    assert office_codes(state, "COE") == [AT, FREE]
    assert state.table == [FREE] * 4
    assert state.score[A] == 1  # coin office


def test_s075_coellen_table_any_free_space_no_order():
    """75. Coellen table orange space occupied by B -> A may take any other eligible free space (no order)."""
    state = support.new_state(3)
    route = state.board.route_between("Coellen", "Warburg").code
    state.table[1] = BM
    support.fill_route(state, route, A, "MTTT")
    support.set_level(state, A, PRIVILEGE, 3)  # black
    tables = {m.target for m in claims(state, route) if m.benefit == "table"}
    assert tables == {"white", "pink", "black"}
    refuse(state, Claim(route, "table", "orange"))
    state.play(Claim(route, "table", "black"))  # white is still free: no left-to-right order
    assert state.table == [FREE, BM, FREE, AM]


def _claim_case(kind: str) -> tuple[GameState, Claim, str, int]:
    """(state, claim, route, pieces that leave the route for an office/table)."""
    if kind == "ability":
        state = support.new_state(3)
        route = state.board.route_between("Goettingen", "Quedlinburg").code
        support.fill_route(state, route, A, "TTM")
        return state, Claim(route, "ability", "GOE"), route, 0
    if kind == "table":
        state = support.new_state(3)
        route = state.board.route_between("Coellen", "Warburg").code
        support.fill_route(state, route, A, "TTMM")
        return state, Claim(route, "table", "white"), route, 1
    state = fixture()
    support.fill_route(state, "V-K", A, "TTM")
    if kind == "nothing":
        return state, Claim("V-K"), "V-K", 0
    if kind == "office":
        return state, Claim("V-K", "office", "K"), "V-K", 1
    support.set_office(state, "K", 0, B)
    support.give_markers(state, A, EXTRA_OFFICE)
    return state, Claim("V-K", "extra", "K", "M"), "V-K", 1


@pytest.mark.parametrize("kind", ["nothing", "office", "extra", "ability", "table"])
def test_s076_claimed_route_empties_into_stock_never_supply(kind: str):
    """76. After any claim -> no A piece remains on the route; none went to A's Supply (except an ability-track piece)."""
    state, move, route, used = _claim_case(kind)
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    on_route = len(support.route_houses(state, route))
    assert move in claims(state, route)
    state.play(move)
    assert route_empty(state, route)
    (sup_t, sup_m), (stk_t, stk_m) = support.pools(state, A)
    assert (sup_t, sup_m) == ((6, 1) if kind == "ability" else (5, 1))
    assert stk_t + stk_m == 6 + on_route - used
