"""Focused rule tests of the East map: docs/rules-expansions.md §E8.3 (permanent markers, scenarios 11-21) and §E8.4
(green cities, Waren and other East specifics, scenarios 22-35).

Sea routes (ship spaces as houses): Wismar-Stralsund WIS-STR [1, ship 2, ship 3] move any 2; Stralsund-Malmoe
STR-MAL [1, ship 2, ship 3] develop Privilege; Malmoe-Visby MAL-VIS [1, ship 2, 3] office in a green city;
Danzig-Malmoe DAN-MAL [1, 2, 3, ship 4] reuse 2.  Green cities: Belgard BEL, Waren WAR, Dresden DRE.
"""

from __future__ import annotations

import support
from expansion_support import (
    AM,
    AT,
    BT,
    CT,
    FREE,
    A,
    B,
    C,
    D,
    city,
    claim_for_plate,
    claims,
    complete,
    control_points,
    east,
    extra_office,
    green_office,
    of_type,
    offices,
    play,
    printed,
    route_code,
    route_index,
    snap,
)
from hansa.core.constants import (
    ACTIONS,
    BAGS,
    BOOK,
    EXTRA_OFFICE,
    PRIVILEGE,
    SWAP_OFFICES,
)
from hansa.core.expansion import DEVELOP_PRIVILEGE, GREEN_OFFICE, MOVE_ANY_2, REUSE_2
from hansa.core.moves import (
    Claim,
    Develop,
    Done,
    EndTurn,
    Exchange,
    GreenOffice,
    PlaceMarker,
    Shift,
    Swap,
)
from hansa.core.scoring import final_scores
from hansa.core.state import GameState, Phase
from support import changed, house_changes, refuse

# ---------------------------------------------------------------------------------------------- E8.3 permanent markers


def test_e11_develop_privilege_after_the_office():
    """11. A claims Stralsund-Malmoe (Privilege white) taking an office in Malmoe: the office must be Malmoe's first office
    (round white) with a Merchant; after the action A may develop Privilege -> orange; A's Supply +1 Trader; A collects
    no marker; bonus-marker count at game end unchanged."""
    state = east()
    support.fill_route(state, "STR-MAL", A, "TMM")
    # Stralsund's first office is orange: only Malmoe (round white, a Merchant) is open to Privilege white.
    assert claims(state, "STR-MAL") == {Claim("STR-MAL"), Claim("STR-MAL", "office", "MAL")}
    refuse(state, Claim("STR-MAL", "office", "STR"))
    refuse(state, Claim("STR-MAL", "office", "MAL", "T"))
    markers_before = final_scores(state)[A].markers
    before = snap(state)
    state.play(Claim("STR-MAL", "office", "MAL"))
    assert offices(state, "MAL") == [AM, FREE, FREE]
    assert support.pools(state, A) == ((5, 1), (7, 1))
    assert state.phase == Phase.PERMANENT and state.pm_kind == DEVELOP_PRIVILEGE and state.pm_left == 1
    assert set(state.legal_moves()) == {Develop("privilege"), Done()}
    refuse(state, Develop("book"))
    refuse(state, GreenOffice("BEL", "T"))
    refuse(state, Shift("STR-MAL:1", "HAL-WIT:1"))
    mid = snap(state)
    state.play(Develop("privilege"))
    assert state.ability_level(A, PRIVILEGE) == 1 and state.ability_value(A, PRIVILEGE) == 2
    assert support.pools(state, A) == ((6, 1), (7, 1))
    assert state.phase == Phase.ACTIONS and state.pm_kind == -1
    assert changed(mid, state) == {"levels", "sup_t", "phase", "pm_kind", "pm_left", "pm_route"}
    assert state.markers[A] == () and state.used_markers[A] == () and state.plate[A] == ()
    assert state.route_marker == list(before["route_marker"])
    assert final_scores(state)[A].markers == markers_before == 0
    assert state.actions_used == 1


def test_e12_develop_privilege_maxed_does_nothing():
    """12. Same claim with Privilege already black -> the permanent effect does nothing; the claim is still legal."""
    state = east()
    support.set_level(state, A, PRIVILEGE, 3)
    support.fill_route(state, "STR-MAL", A, "TMM")
    assert Claim("STR-MAL", "office", "MAL") in claims(state, "STR-MAL")
    assert Claim("STR-MAL", "office", "STR") in claims(state, "STR-MAL")
    before = snap(state)
    state.play(Claim("STR-MAL", "office", "MAL"))
    assert state.phase == Phase.ACTIONS and state.pm_kind == -1  # nothing to choose: the claim is over
    assert state.ability_level(A, PRIVILEGE) == 3
    assert offices(state, "MAL") == [AM, FREE, FREE]
    assert changed(before, state) == {"houses", "offices", "city_filled", "stk_t", "stk_m", "actions_used"}
    refuse(state, Develop("privilege"))
    assert Develop("privilege") not in state.legal_moves()


def test_e13_move_any_2_moves_opponents_and_own_pieces():
    """13. A claims Wismar-Stralsund -> after clean-up A moves B's Trader from Anklam-Stettin to a free house of
    Luebeck-Wismar and his own Merchant (from another route) to a ship space of the just-emptied Wismar-Stralsund ->
    legal; B gets no relocation extras."""
    state = east()
    support.fill_route(state, "WIS-STR", A, "TMM")
    support.put(state, "STE-ANK:2", B, "T")
    support.put(state, "HAL-WIT:1", A, "M")
    b_pools = support.pools(state, B)
    play(state, Claim("WIS-STR"))
    assert state.phase == Phase.PERMANENT and state.pm_kind == MOVE_ANY_2
    assert support.pools(state, A) == ((5, 1), (7, 2))  # clean-up first: every route piece in the Stock
    assert all(state.piece_at(h) is None for h in support.route_houses(state, "WIS-STR"))
    refuse(state, Shift("STE-ANK:2", "WIS-STR:2"))  # B's Trader never onto a ship space
    before = snap(state)
    play(state, Shift("STE-ANK:2", "WIS-LUB:1"))
    assert state.phase == Phase.PERMANENT and state.pm_left == 1
    play(state, Shift("HAL-WIT:1", "WIS-STR:2"))
    assert house_changes(before, state) == {
        "STE-ANK:2": ((B, "T"), None), "WIS-LUB:1": (None, (B, "T")),
        "HAL-WIT:1": ((A, "M"), None), "WIS-STR:2": (None, (A, "M")),
    }
    assert state.phase == Phase.ACTIONS and state.decider == A and state.pm_kind == -1
    assert support.pools(state, B) == b_pools and state.rl_owner == -1
    assert changed(before, state) == {"houses", "phase", "pm_kind", "pm_left", "pm_route"}
    assert state.actions_used == 1


def test_e14_move_any_2_exchange_never_puts_a_trader_on_a_ship():
    """14. Move any 2: A exchanges the places of his Merchant (on a ship space) and C's Trader (on a land house) ->
    illegal (the Trader would end on a ship space); exchanging two land-house pieces -> legal."""
    state = east()
    support.fill_route(state, "WIS-STR", A, "TMM")
    support.put(state, "MAL-VIS:2", A, "M")
    support.put(state, "HAL-WIT:1", C, "T")
    support.put(state, "KUL-ELB:1", B, "T")
    play(state, Claim("WIS-STR"))
    assert state.phase == Phase.PERMANENT and state.pm_kind == MOVE_ANY_2
    refuse(state, Exchange("MAL-VIS:2", "HAL-WIT:1"))
    refuse(state, Exchange("HAL-WIT:1", "MAL-VIS:2"))
    refuse(state, Shift("HAL-WIT:1", "MAL-VIS:2"))  # occupied anyway
    refuse(state, Exchange("HAL-WIT:1", "HAL-WIT:2"))  # a free house: not an exchange
    assert Exchange("HAL-WIT:1", "KUL-ELB:1") in state.legal_moves()
    refuse(state, Exchange("KUL-ELB:1", "HAL-WIT:1"))  # one move per exchange: the houses in board order
    before = snap(state)
    state.play(Exchange("HAL-WIT:1", "KUL-ELB:1"))
    assert house_changes(before, state) == {"HAL-WIT:1": ((C, "T"), (B, "T")), "KUL-ELB:1": ((B, "T"), (C, "T"))}
    assert state.phase == Phase.ACTIONS and state.pm_left == 0 and state.pm_kind == -1  # the exchange is both moves
    assert changed(before, state) == {"houses", "phase", "pm_kind", "pm_left", "pm_route"}


def _malmoe_visby(sup: tuple[int, int] = (5, 1)) -> GameState:
    """A holds Malmoe-Visby (Trader, Merchant on the ship space, Trader) with Privilege orange."""
    state = east()
    support.fill_route(state, "MAL-VIS", A, "TMT")
    support.set_level(state, A, PRIVILEGE, 1)
    support.set_pools(state, A, sup=sup)
    return state


def test_e15_green_office_goes_right_of_all_and_controls_on_tie():
    """15. A claims Malmoe-Visby (office in Visby) and then uses the permanent marker: one Trader from A's Supply goes
    into Belgard, which holds B's office -> A's piece sits right of B's; Belgard was already complete -> counter
    unchanged; Belgard control: 1-1 tie -> A (rightmost)."""
    state = _malmoe_visby()
    green_office(state, "BEL", B)
    assert state.completed == 1 and state.controller(city(state, "BEL")) == B
    play(state, Claim("MAL-VIS", "office", "VIS"))
    assert offices(state, "VIS") == [AM]
    assert state.completed == 2  # Visby's only office
    assert state.phase == Phase.PERMANENT and state.pm_kind == GREEN_OFFICE
    assert set(state.legal_moves()) == {
        GreenOffice(c, k) for c in ("BEL", "WAR", "DRE") for k in "TM"
    } | {Done()}
    refuse(state, GreenOffice("VIS", "T"))  # not a green city
    refuse(state, GreenOffice("MAL", "T"))
    before = snap(state)
    state.play(GreenOffice("BEL", "T"))
    assert offices(state, "BEL") == [BT, AT]
    assert state.right_offices[city(state, "BEL")] == (BT, AT)
    assert state.completed == 2
    assert state.controller(city(state, "BEL")) == A
    assert support.pools(state, A)[0] == (4, 1)
    assert state.phase == Phase.ACTIONS
    assert changed(before, state) == {"right_offices", "sup_t", "phase", "pm_kind", "pm_left", "pm_route"}


def test_e16_green_office_first_office_completes_and_can_end_the_game():
    """16. Same, Dresden empty -> A's piece is Dresden's first office -> counter +1; if this is the 10th completed city,
    the game ends after the action."""
    state = _malmoe_visby()
    play(state, Claim("MAL-VIS"))
    assert state.phase == Phase.PERMANENT
    before = snap(state)
    state.play(GreenOffice("DRE", "M"))
    assert offices(state, "DRE") == [AM]
    assert state.completed == 1 and state.phase == Phase.ACTIONS
    assert changed(before, state) == {"right_offices", "completed", "sup_m", "phase", "pm_kind", "pm_left", "pm_route"}
    # The 10th completed city: the game ends after the action.
    state = _malmoe_visby()
    complete(state, "PER", "TAN", "WIT", "BER", "MAG", "ANK", "KOE", "ELB", "HAL")
    assert state.completed == 9
    play(state, Claim("MAL-VIS"))
    assert state.phase == Phase.PERMANENT and state.end_triggers == ()
    state.play(GreenOffice("DRE", "T"))
    assert offices(state, "DRE") == [AT]
    assert state.completed == 10
    assert state.phase == Phase.OVER and state.end_triggers == ("cities",)
    assert state.legal_moves() == []


def test_e17_green_office_needs_a_supply_piece():
    """17. A claims Malmoe-Visby with an empty Supply -> the green-city effect cannot be used."""
    state = _malmoe_visby(sup=(0, 0))
    before = snap(state)
    state.play(Claim("MAL-VIS", "office", "VIS"))
    assert state.phase == Phase.ACTIONS and state.pm_kind == -1  # the effect had nothing to offer
    assert all(state.right_offices[c] == () for c in range(len(state.board.cities)))
    assert offices(state, "VIS") == [AM] and state.completed == 1
    assert support.pools(state, A) == ((0, 0), (8, 0))
    assert changed(before, state) == {"houses", "offices", "city_filled", "completed", "stk_t", "actions_used"}
    refuse(state, GreenOffice("BEL", "T"))
    assert of_type(state, GreenOffice) == []


def _danzig_malmoe() -> GameState:
    state = east()
    support.fill_route(state, "DAN-MAL", A, "TTTM")
    return state


def test_e18_reuse_2_sets_aside_up_to_two_route_pieces():
    """18. A claims Danzig-Malmoe (3 Traders + 1 Merchant on the ship space) choosing an office in Danzig with a Trader ->
    the 3 remaining pieces: A sets aside the Merchant and a Trader, the last Trader goes to Stock, then places the two
    on free houses of other routes (the Merchant may take a ship space).  Choosing to place only one -> legal."""
    state = _danzig_malmoe()
    play(state, Claim("DAN-MAL", "office", "DAN"))
    assert offices(state, "DAN") == [AT, FREE, FREE, FREE]
    assert state.phase == Phase.PERMANENT and state.pm_kind == REUSE_2 and state.pm_left == 2
    # During the effect the remaining pieces wait on the route; the benefit's Trader has left it.
    assert [state.piece_at(h) for h in support.route_houses(state, "DAN-MAL")] == [None, (A, "T"), (A, "T"), (A, "M")]
    assert support.pools(state, A) == ((5, 1), (6, 0))
    shifts = of_type(state, Shift)
    assert {m.house for m in shifts} == {"DAN-MAL:2", "DAN-MAL:3", "DAN-MAL:4"}
    assert Shift("DAN-MAL:4", "MAL-VIS:2") in shifts and Shift("DAN-MAL:2", "MAL-VIS:2") not in shifts
    refuse(state, Shift("DAN-MAL:2", "MAL-VIS:2"))  # a Trader never onto a ship space
    before = snap(state)
    state.play(Shift("DAN-MAL:4", "MAL-VIS:2"))
    assert state.phase == Phase.PERMANENT and state.pm_left == 1
    state.play(Shift("DAN-MAL:2", "HAL-WIT:1"))
    assert house_changes(before, state) == {
        "DAN-MAL:4": ((A, "M"), None), "MAL-VIS:2": (None, (A, "M")),
        "DAN-MAL:2": ((A, "T"), None), "HAL-WIT:1": (None, (A, "T")),
        "DAN-MAL:3": ((A, "T"), None),
    }
    assert support.pools(state, A) == ((5, 1), (7, 0))  # only the last Trader went to the Stock
    assert state.phase == Phase.ACTIONS and state.pm_kind == -1 and state.actions_used == 1
    # Only one piece reused: the other two go to the Stock.
    state = _danzig_malmoe()
    play(state, Claim("DAN-MAL", "office", "DAN"))
    play(state, Shift("DAN-MAL:4", "WIS-STR:3"))
    before = snap(state)
    play(state, Done())
    assert house_changes(before, state) == {"DAN-MAL:2": ((A, "T"), None), "DAN-MAL:3": ((A, "T"), None)}
    assert state.piece_at("WIS-STR:3") == (A, "M")
    assert support.pools(state, A) == ((5, 1), (8, 0))
    assert state.phase == Phase.ACTIONS


def test_e19_reuse_2_never_back_onto_the_claimed_route():
    """19. Reuse 2: A tries to put a set-aside piece back on Danzig-Malmoe -> illegal."""
    state = _danzig_malmoe()
    play(state, Claim("DAN-MAL", "office", "DAN"))
    assert state.piece_at("DAN-MAL:1") is None  # freed by the office's Trader
    refuse(state, Shift("DAN-MAL:2", "DAN-MAL:1"))
    refuse(state, Shift("DAN-MAL:4", "DAN-MAL:1"))
    assert not [m for m in of_type(state, Shift) if m.to.startswith(route_code(state, "DAN-MAL") + ":")]
    refuse(state, Shift("HAL-WIT:1", "WIS-LUB:1"))  # nor any piece from elsewhere
    play(state, Shift("DAN-MAL:3", "WIS-LUB:1"))
    play(state, Done())
    assert state.piece_at("WIS-LUB:1") == (A, "T")
    assert support.pools(state, A) == ((5, 1), (7, 1))


def test_e20_no_replacement_marker_on_sea_routes():
    """20. Normal replacement marker at end of turn -> any sea route is refused as a target (it has a permanent marker)."""
    state = east()
    claim_for_plate(state, "BRA-TAN")
    legal = {m.route for m in of_type(state, PlaceMarker)}
    for r in ("WIS-STR", "STR-MAL", "MAL-VIS", "DAN-MAL"):
        route = state.board.route(r)
        assert route.permanent and state.route_free[route.index] == route.spaces  # empty, beside free offices
        assert route.code not in legal
        refuse(state, PlaceMarker(route.code))
    assert route_code(state, "HAL-WIT") in legal
    marker = state.plate[A][0]
    play(state, PlaceMarker(route_code(state, "HAL-WIT")))
    assert state.route_marker[route_index(state, "HAL-WIT")] == marker
    assert state.plate[A] == () and state.current == B and state.phase == Phase.ACTIONS


def test_e21_permanent_effect_resolved_after_twenty_points():
    """21. A at 19 PP controls Danzig; A claims Danzig-Malmoe -> +1 (20, T1 set); A still resolves reuse 2; then the
    game ends."""
    state = _danzig_malmoe()
    support.set_office(state, "DAN", 0, A)
    state.score[A] = 19
    play(state, Claim("DAN-MAL"))
    assert state.score == [20, 0, 0]
    assert state.phase == Phase.PERMANENT and state.pm_kind == REUSE_2 and state.end_triggers == ()
    play(state, Shift("DAN-MAL:4", "MAL-VIS:2"))
    assert state.phase == Phase.PERMANENT
    before = snap(state)
    state.play(Done())
    assert house_changes(before, state) == {
        "DAN-MAL:1": ((A, "T"), None), "DAN-MAL:2": ((A, "T"), None), "DAN-MAL:3": ((A, "T"), None),
    }
    assert state.piece_at("MAL-VIS:2") == (A, "M")
    assert support.pools(state, A) == ((5, 1), (9, 0))
    assert state.phase == Phase.OVER and state.end_triggers == ("score",)


# ---------------------------------------------------------------------------------------------- E8.4 green cities


def test_e22_waren_claim_options():
    """22. A claims Stettin-Waren -> options: upgrade Actions, upgrade Bank, an office in Stettin (if legal), an Extra
    office in Waren or Stettin (if A holds the marker), nothing; a normal office in Waren -> never offered."""
    state = east()
    support.fill_route(state, "STE-WAR", A, "TTTM")
    support.set_level(state, A, PRIVILEGE, 1)  # Stettin's first office is orange
    extra_office(state, "STE", B)  # Stettin holds an office, so an Extra office may go there
    support.give_markers(state, A, EXTRA_OFFICE)
    r = route_code(state, "STE-WAR")
    assert claims(state, r) == {
        Claim(r),
        Claim(r, "ability", "WAR", None, "actions"),
        Claim(r, "ability", "WAR", None, "bags"),
        Claim(r, "office", "STE"),
        Claim(r, "extra", "WAR", "T"), Claim(r, "extra", "WAR", "M"),
        Claim(r, "extra", "STE", "T"), Claim(r, "extra", "STE", "M"),
    }
    refuse(state, Claim(r, "office", "WAR"))
    refuse(state, Claim(r, "office", "WAR", "T"))
    refuse(state, Claim(r, "ability", "WAR"))  # two abilities: the claim must name one
    refuse(state, Claim(r, "ability", "WAR", None, "book"))
    refuse(state, Claim(r, "ability", "STE", None, "actions"))
    before = snap(state)
    state.play(Claim(r, "ability", "WAR", None, "actions"))
    assert state.ability_level(A, ACTIONS) == 1 and state.ability_level(A, BAGS) == 0
    assert support.pools(state, A) == ((6, 1), (9, 1))
    assert state.score == [0, 1, 0]  # step a: B controls Stettin
    assert offices(state, "WAR") == [] and state.completed == 0
    assert state.markers[A] == (EXTRA_OFFICE,)  # not used
    assert changed(before, state) == {"houses", "levels", "sup_t", "stk_t", "stk_m", "score", "actions_used"}


def test_e23_waren_bank_upgrade():
    """23. A claims Stettin-Waren and picks Bank (level 3->5) -> the leftmost Bank Trader goes to A's Supply; Actions
    unchanged."""
    state = east()
    support.fill_route(state, "STE-WAR", A)
    r = route_code(state, "STE-WAR")
    assert state.ability_value(A, BAGS) == 3
    before = snap(state)
    play(state, Claim(r, "ability", "WAR", None, "bags"))
    assert state.ability_level(A, BAGS) == 1 and state.ability_value(A, BAGS) == 5
    assert state.ability_level(A, ACTIONS) == 0 and state.allowance() == 2
    assert support.pools(state, A) == ((6, 1), (10, 0))
    assert changed(before, state) == {"houses", "levels", "sup_t", "stk_t", "actions_used"}


def test_e24_extra_office_completes_empty_waren_and_checks_east_west():
    """24. A holds an Extra-office marker from an earlier turn; Waren is empty; A claims Wismar-Waren with the Extra
    office in Waren -> A's piece is Waren's first office; counter +1; East-West check runs."""
    state = east()
    # A's chain Luebeck-Wismar-(Waren)-Stettin-Anklam-Belgard-Danzig misses only Waren.
    support.set_office(state, "LUB", 0, A)
    support.set_office(state, "WIS", 0, A)
    support.set_office(state, "STE", 0, A)
    support.set_office(state, "ANK", 0, A)
    green_office(state, "BEL", A)
    support.set_office(state, "DAN", 0, A)
    assert state.completed == 1
    support.give_markers(state, A, EXTRA_OFFICE)
    support.fill_route(state, "WAR-WIS", A, "TTM")
    r = route_code(state, "WAR-WIS")
    assert Claim(r, "extra", "WAR", "T") in claims(state, r)
    assert Claim(r, "office", "WAR") not in claims(state, r)
    before = snap(state)
    state.play(Claim(r, "extra", "WAR", "T"))
    assert offices(state, "WAR") == [AT] and state.extras[city(state, "WAR")] == (AT,)
    assert state.completed == 2
    assert state.ew_paid == [A]
    assert state.score == [1 + 7, 0, 0]  # step a: A controls Wismar; then East-West 7
    assert state.markers[A] == () and state.used_markers[A] == (EXTRA_OFFICE,)
    assert support.pools(state, A) == ((5, 1), (7, 1))
    assert changed(before, state) == {
        "houses", "extras", "completed", "ew_paid", "stk_t", "stk_m", "score", "markers", "used_markers", "actions_used",
    }


def test_e25_extra_office_sits_left_of_a_permanent_marker_office():
    """25. Waren holds A's office (from the permanent marker); B adds an Extra office there -> B's piece sits left; 1-1
    tie -> A controls (rightmost)."""
    state = east()
    green_office(state, "WAR", A)
    assert state.completed == 1
    play(state, EndTurn())
    assert state.current == B
    support.give_markers(state, B, EXTRA_OFFICE)
    support.fill_route(state, "WAR-HAV", B)
    r = route_code(state, "WAR-HAV")
    assert Claim(r, "extra", "WAR", "T") in claims(state, r)
    before = snap(state)
    state.play(Claim(r, "extra", "WAR", "T"))
    assert offices(state, "WAR") == [BT, AT]
    assert state.extras[city(state, "WAR")] == (BT,) and state.right_offices[city(state, "WAR")] == (AT,)
    assert state.controller(city(state, "WAR")) == A
    assert state.completed == 1
    assert state.score == [1, 0, 0]  # step a: A controlled Waren
    assert changed(before, state) == {"houses", "extras", "stk_t", "score", "markers", "used_markers", "actions_used"}


def test_e26_swap_in_a_green_city():
    """26. Swap marker in Belgard with B's Extra office and A's permanent-marker office as neighbours -> illegal by
    default; legal with opt.greenCitySwap = all.  Two neighbouring permanent-marker offices (one A's) -> legal."""
    bel = "BEL"
    state = east()
    green_office(state, bel, A)
    green_office(state, bel, B, right=False)
    support.give_markers(state, A, SWAP_OFFICES)
    assert offices(state, bel) == [BT, AT]
    assert of_type(state, Swap) == []
    refuse(state, Swap(bel, 1))
    # opt.greenCitySwap = none: never.
    state = east(green_city_swap="none")
    green_office(state, bel, A)
    green_office(state, bel, C)
    support.give_markers(state, A, SWAP_OFFICES)
    refuse(state, Swap(bel, 1))
    # opt.greenCitySwap = all: the Extra office may be swapped too.
    state = east(green_city_swap="all")
    green_office(state, bel, A)
    green_office(state, bel, B, right=False)
    support.give_markers(state, A, SWAP_OFFICES)
    assert of_type(state, Swap) == [Swap(bel, 1)]
    before = snap(state)
    state.play(Swap(bel, 1))
    assert offices(state, bel) == [AT, BT]
    assert state.extras[city(state, bel)] == (AT,) and state.right_offices[city(state, bel)] == (BT,)
    assert state.markers[A] == () and state.used_markers[A] == (SWAP_OFFICES,)
    assert changed(before, state) == {"extras", "right_offices", "markers", "used_markers"}
    # Default: two neighbouring permanent-marker offices, one of them A's.
    state = east()
    green_office(state, bel, C)
    green_office(state, bel, A)
    support.give_markers(state, A, SWAP_OFFICES)
    assert state.controller(city(state, bel)) == A
    assert of_type(state, Swap) == [Swap(bel, 1)]
    refuse(state, Swap(bel, 2))
    before = snap(state)
    state.play(Swap(bel, 1))
    assert offices(state, bel) == [AT, CT] and state.controller(city(state, bel)) == C
    assert changed(before, state) == {"right_offices", "markers", "used_markers"}
    # ... but not two offices neither of which is A's (opt.swapNeedsOwn).
    state = east()
    green_office(state, bel, C)
    green_office(state, bel, B)
    support.give_markers(state, A, SWAP_OFFICES)
    refuse(state, Swap(bel, 1))


def test_e27_green_city_is_never_a_free_office_for_markers():
    """27. End of turn, replacement marker: candidate Kulm-Belgard, empty, Kulm completed, Belgard empty -> illegal by
    default (Belgard never counts as having a free office); legal with opt.greenCityFreeForMarkers = true."""
    state = east()
    complete(state, "KUL")
    claim_for_plate(state, "BRA-TAN")
    kb = route_code(state, "KUL-BEL")
    assert kb not in {m.route for m in of_type(state, PlaceMarker)}
    refuse(state, PlaceMarker(kb))
    state = east(green_city_free_for_markers=True)
    complete(state, "KUL")
    claim_for_plate(state, "BRA-TAN")
    assert kb in {m.route for m in of_type(state, PlaceMarker)}
    probe = state.copy()
    marker = probe.plate[A][0]
    probe.play(PlaceMarker(kb))
    assert probe.route_marker[route_index(probe, kb)] == marker and probe.plate[A] == ()
    # ... only until Belgard's first office.
    green_office(state, "BEL", B)
    refuse(state, PlaceMarker(kb))


def test_e28_magdeburg_privilege_halle_nothing():
    """28. A claims Magdeburg-Halle -> may upgrade Privilege (Magdeburg); Halle offers no ability on this map."""
    state = east()
    support.fill_route(state, "MAG-HAL", A)
    r = route_code(state, "MAG-HAL")
    assert claims(state, r) == {
        Claim(r), Claim(r, "ability", "MAG"), Claim(r, "office", "MAG"), Claim(r, "office", "HAL"),
    }
    refuse(state, Claim(r, "ability", "HAL"))
    before = snap(state)
    state.play(Claim(r, "ability", "MAG"))
    assert state.ability_level(A, PRIVILEGE) == 1
    assert support.pools(state, A) == ((6, 1), (9, 0))
    assert changed(before, state) == {"houses", "levels", "sup_t", "stk_t", "actions_used"}


def test_e29_kulm_has_no_ability():
    """29. A claims Kulm-Elbing -> no ability option (Kulm has none on the board)."""
    state = east()
    support.fill_route(state, "KUL-ELB", A)
    r = route_code(state, "KUL-ELB")
    assert claims(state, r) == {Claim(r), Claim(r, "office", "KUL")}  # Elbing's first office is orange
    refuse(state, Claim(r, "ability", "KUL"))
    refuse(state, Claim(r, "ability", "ELB"))
    for ability in ("keys", "actions", "privilege", "book", "bags"):
        refuse(state, Claim(r, "ability", "KUL", None, ability))


def test_e30_luebeck_has_no_ability_on_east():
    """30. A claims Luebeck-Wismar -> no ability option (Luebeck has no ability on the East board)."""
    state = east()
    support.fill_route(state, "WIS-LUB", A)
    r = route_code(state, "WIS-LUB")
    assert claims(state, r) == {Claim(r), Claim(r, "office", "LUB")}  # Wismar's first office is orange
    refuse(state, Claim(r, "ability", "LUB"))
    refuse(state, Claim(r, "ability", "WIS"))
    play(state, Claim(r, "office", "LUB"))
    assert offices(state, "LUB") == [AT, FREE, FREE]
    assert state.levels[A * 5 : A * 5 + 5] == [0, 0, 0, 0, 0]


def test_e31_breslau_book_releases_a_merchant():
    """31. A claims Krakau-Breslau -> may upgrade Book (Breslau; a Merchant goes to A's Supply)."""
    state = east()
    support.fill_route(state, "KRA-BRE", A)
    r = route_code(state, "KRA-BRE")
    assert Claim(r, "ability", "BRE") in claims(state, r)
    refuse(state, Claim(r, "ability", "KRA"))
    refuse(state, Claim(r, "ability", "BRE", None, "book"))  # only Waren's claims name the ability
    before = snap(state)
    state.play(Claim(r, "ability", "BRE"))
    assert state.ability_level(A, BOOK) == 1 and state.ability_value(A, BOOK) == 3
    assert support.pools(state, A) == ((5, 2), (9, 0))
    assert changed(before, state) == {"houses", "levels", "sup_m", "stk_t", "actions_used"}


def test_e32_koenigsberg_table():
    """32. A claims Danzig-Koenigsberg with a Merchant on it, Privilege pink -> may put the Merchant on the Koenigsberg
    table 7, 8 or 9 (not 11); no PP now; 9 PP at game end; or instead an office in Koenigsberg (square orange, needs a
    Trader)."""
    state = east()
    support.set_level(state, A, PRIVILEGE, 2)
    support.fill_route(state, "DAN-KOE", A, "TTTM")
    r = route_code(state, "DAN-KOE")
    assert state.board.coellen == city(state, "KOE") and state.board.coellen_route == route_index(state, r)
    assert claims(state, r) == {
        Claim(r), Claim(r, "office", "KOE"), Claim(r, "office", "DAN"),
        Claim(r, "table", "white"), Claim(r, "table", "orange"), Claim(r, "table", "pink"),
    }
    refuse(state, Claim(r, "table", "black"))
    before = snap(state)
    state.play(Claim(r, "table", "pink"))
    assert state.table == [FREE, FREE, AM, FREE]
    assert state.score == [0, 0, 0]
    assert final_scores(state)[A].coellen == 9
    assert support.pools(state, A) == ((5, 1), (9, 0))
    assert changed(before, state) == {"houses", "table", "stk_t", "actions_used"}
    # The office instead: Koenigsberg's first office is square orange and takes the Trader.
    state = east()
    support.set_level(state, A, PRIVILEGE, 2)
    support.fill_route(state, "DAN-KOE", A, "TTTM")
    play(state, Claim(r, "office", "KOE"))
    assert offices(state, "KOE") == [AT, FREE] and state.table == [FREE] * 4
    assert final_scores(state)[A].coellen == 0
    # With only Merchants on the route the square office is out of reach; the table is not.
    state = east()
    support.set_level(state, A, PRIVILEGE, 2)
    support.fill_route(state, "DAN-KOE", A, "MMMM")
    assert Claim(r, "office", "KOE") not in claims(state, r)
    refuse(state, Claim(r, "office", "KOE"))
    assert Claim(r, "table", "pink") in claims(state, r)


def test_e33_east_west_luebeck_danzig_awards():
    """33. A has offices in Luebeck, Wismar, Stralsund, Malmoe; establishes an office in Danzig -> first Luebeck-Danzig
    connection -> +7; B second -> +4; C third -> +2; D fourth -> 0."""
    state = east(4)
    for p in (A, B, C, D):
        for code in ("LUB", "WIS", "STR", "MAL"):
            extra_office(state, code, p)
        support.set_level(state, p, PRIVILEGE, p)  # Danzig's offices are white, orange, pink, black
    support.clear_markers(state)
    plays = ((A, "DAN-BEL", 7), (B, "DAN-KOE", 4), (C, "BRN-DAN", 2), (D, "DAN-MAL", 0))
    for n, (p, route, award) in enumerate(plays):
        assert state.current == p
        r = route_code(state, route)
        support.fill_route(state, r, p)
        if route == "DAN-MAL":
            support.put(state, "DAN-MAL:4", p, "M")
        expected = [s + c for s, c in zip(state.score, control_points(state, r))]
        expected[p] += award
        play(state, Claim(r, "office", "DAN"))
        if state.phase == Phase.PERMANENT:  # Danzig-Malmoe's reuse 2, declined
            play(state, Done())
        assert printed(state, "DAN")[n] == p * 2
        assert state.ew_paid == [A, B, C, D][: n + 1]
        assert state.score == expected
        play(state, EndTurn())
    assert state.ew_paid == [A, B, C, D]


def test_e34_east_west_through_a_permanent_marker_office():
    """34. A's chain Luebeck-Wismar-Waren-Stettin-Anklam-Belgard-Danzig where A's only presence in Belgard is a
    permanent-marker office placed this action -> East-West paid."""
    state = _malmoe_visby()
    for code in ("LUB", "WIS", "STE", "ANK", "DAN"):
        support.set_office(state, code, 0, A)
    green_office(state, "WAR", A)
    play(state, Claim("MAL-VIS"))
    assert state.ew_paid == [] and state.score == [0, 0, 0]
    before = snap(state)
    state.play(GreenOffice("BEL", "T"))
    assert offices(state, "BEL") == [AT]
    assert state.ew_paid == [A] and state.score == [7, 0, 0]
    assert state.completed == 2  # Waren, then Belgard
    assert changed(before, state) == {
        "right_offices", "completed", "ew_paid", "score", "sup_t", "phase", "pm_kind", "pm_left", "pm_route",
    }


def test_e35_tenth_completed_city_ends_the_game():
    """35. East: A's office completes the 9th city -> play continues; the next completion (10th) ends the game after that
    action."""
    state = east()
    complete(state, "TAN", "BER", "MAG", "ANK", "KOE", "ELB", "ALL", "KUL")
    assert state.completed == 8
    support.set_level(state, A, PRIVILEGE, 2)
    support.fill_route(state, "HAV-PER", A)
    support.fill_route(state, "HAL-WIT", A)
    play(state, Claim(route_code(state, "HAV-PER"), "office", "PER"))
    assert offices(state, "PER") == [AT]
    assert state.completed == 9
    assert state.phase == Phase.ACTIONS and state.end_triggers == () and state.actions_used == 1
    play(state, Claim(route_code(state, "HAL-WIT"), "office", "WIT"))
    assert offices(state, "WIT") == [AT]
    assert state.completed == 10
    assert state.phase == Phase.OVER and state.end_triggers == ("cities",)
