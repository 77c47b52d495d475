"""Focused rule tests of the Britannia map: docs/rules-expansions.md §E8.5 (permissions, scenarios 36-45), §E8.6
(movement and relocation, 46-50) and §E8.7 (markers, offices, scoring, 51-66).

Three players play the small side (England and Wales), four or five the large side (with Scotland).  Wales routes
(small side): Conway-Chester CON-CHE, Montgomery-Conway MON-CON, Montgomery-Hereford MON-HER, Montgomery-Pembroke
MON-PEM, Montgomery-Cardiff MON-CDF, Cardiff-Pembroke CDF-PEM, Conway-Isle of Man CON-IOM [ship 1, ship 2, 3].
Permission cities: Cardiff (Wales), Carlisle (Scotland, large side), London (Wales, or Scotland on the large side).
Sea routes: Canterbury-Calais CAN-CAL [1, ship 2, 3] move any 2; Calais-Southampton CAL-SOU [1, ship 2, ship 3]
place 2; Carlisle-Isle of Man CAR-IOM [1, ship 2, ship 3] (small side: England, move any 2; large side: Scotland).
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
    britannia,
    city,
    claim_for_plate,
    claims,
    complete,
    control_points,
    extra_office,
    free_houses_of,
    of_type,
    offices,
    perm_bit,
    play,
    printed,
    refresh_holders,
    route_code,
    route_index,
    ship,
    snap,
)
from hansa.core.board import ENGLAND, SCOTLAND, WALES
from hansa.core.constants import ACTIONS, PRIVILEGE, REMOVE3
from hansa.core.expansion import MOVE_ANY_2, PLACE_2
from hansa.core.moves import (
    Claim,
    Displace,
    Done,
    Drop,
    EndTurn,
    Exchange,
    Lift,
    Place,
    PlaceMarker,
    Relocate,
    Remove,
    Shift,
    TakeExtra,
    UseMarker,
)
from hansa.core.scoring import categories, country_scores, final_scores
from hansa.core.state import GameState, Phase
from support import changed, house_changes, refuse


def places_in(state: GameState, country: int) -> list[Place]:
    """Legal Place moves on routes of ``country``."""
    board = state.board
    return [m for m in of_type(state, Place) if board.house_country[support.house(state, m.house)] == country]


def finish_relocation(state: GameState) -> None:
    """The displaced player puts the displaced piece on the first legal house and declines extras."""
    while state.phase == Phase.RELOCATE:
        moves = of_type(state, Relocate) if state.hand else [Done()]
        state.play(moves[0], state.decider)


# ---------------------------------------------------------------------------------------------- E8.5 permissions


def test_e36_wales_needs_a_permission():
    """36. Small side, A holds no permission -> Place on Conway-Chester (Wales) -> illegal; on Chester-Hereford (England)
    -> legal."""
    state = britannia()
    assert state.board.route("CON-CHE").country == WALES and state.board.route("HER-CHE").country == ENGLAND
    assert places_in(state, WALES) == []
    refuse(state, Place("CON-CHE:1", "T"))
    refuse(state, Place("CON-CHE:1", "M"))
    support.put(state, "MON-CON:2", B)
    refuse(state, Displace("MON-CON:2", "T", "T"))  # a Displace in Wales needs it too
    assert Place("HER-CHE:1", "T") in state.legal_moves()
    before = snap(state)
    state.play(Place("HER-CHE:1", "T"))
    assert house_changes(before, state) == {"HER-CHE:1": (None, (A, "T"))}
    assert state.perm_used == 0
    assert changed(before, state) == {"houses", "sup_t", "actions_used"}


def test_e37_cardiff_gives_one_wales_action_per_turn():
    """37. A holds Cardiff's rightmost office -> one Place in Wales this turn -> legal; a second Place in Wales -> illegal;
    a Displace in Wales after the Place -> illegal."""
    state = britannia()
    support.set_office(state, "CDF", 0, A)
    support.put(state, "MON-HER:1", B)
    assert state.holder(city(state, "CDF")) == A
    assert Place("CON-CHE:1", "T") in state.legal_moves()
    assert Displace("MON-HER:1", "T", "T") in state.legal_moves()
    before = snap(state)
    state.play(Place("CON-CHE:1", "T"))
    assert house_changes(before, state) == {"CON-CHE:1": (None, (A, "T"))}
    assert state.perm_used == perm_bit(state, "CDF")
    assert changed(before, state) == {"houses", "sup_t", "actions_used", "perm_used"}
    assert places_in(state, WALES) == []
    refuse(state, Place("MON-CON:1", "T"))
    refuse(state, Displace("MON-HER:1", "T", "T"))
    assert Place("HER-CHE:1", "T") in state.legal_moves()  # England stays open
    # Next turn of A the permission is fresh again.
    state.play(EndTurn())
    assert state.perm_used == 0 and state.current == B


def test_e38_cardiff_and_london_give_two_wales_actions():
    """38. A holds Cardiff and London (small side) -> two Wales actions this turn (Place, then Displace) -> legal; a
    third -> illegal."""
    state = britannia()
    support.set_office(state, "CDF", 0, A)
    support.set_office(state, "LON", 0, A)
    support.set_level(state, A, ACTIONS, 1)  # 3 actions
    support.put(state, "MON-HER:1", B)
    play(state, Place("CON-CHE:1", "T"))
    assert state.perm_used == perm_bit(state, "CDF")  # Cardiff first, London kept
    before = snap(state)
    play(state, Displace("MON-HER:1", "T", "T"))
    assert state.perm_used == perm_bit(state, "CDF") | perm_bit(state, "LON")
    assert house_changes(before, state) == {"MON-HER:1": ((B, "T"), (A, "T"))}
    assert state.phase == Phase.RELOCATE and state.decider == B
    finish_relocation(state)
    assert state.phase == Phase.ACTIONS and state.actions_used == 2
    assert places_in(state, WALES) == []
    refuse(state, Place("MON-CON:1", "T"))
    support.put(state, "MON-PEM:1", B)
    refuse(state, Displace("MON-PEM:1", "T", "T"))
    play(state, Place("HER-CHE:1", "T"))  # the third action ends the turn
    assert state.current == B and state.perm_used == 0 and state.actions_used == 0


def test_e39_london_covers_wales_or_scotland_once():
    """39. Large side, A holds London only -> one action in Wales or Scotland; after a Scotland Place, a Wales Place ->
    illegal."""
    state = britannia(4)
    support.set_office(state, "LON", 0, A)
    assert state.board.route("DUN-EDI").country == SCOTLAND
    assert Place("DUN-EDI:1", "T") in state.legal_moves() and Place("CON-CHE:1", "T") in state.legal_moves()
    before = snap(state)
    state.play(Place("DUN-EDI:1", "T"))
    assert state.perm_used == perm_bit(state, "LON")
    assert house_changes(before, state) == {"DUN-EDI:1": (None, (A, "T"))}
    assert places_in(state, WALES) == [] and places_in(state, SCOTLAND) == []
    refuse(state, Place("CON-CHE:1", "T"))
    refuse(state, Place("GLA-EDI:1", "T"))
    assert Place("HER-CHE:1", "T") in state.legal_moves()


def test_e40_country_permission_spent_before_london():
    """40. Large side, A holds Carlisle and London -> Place in Scotland uses Carlisle automatically; a later Wales Place
    uses London -> legal."""
    state = britannia(4)
    support.set_office(state, "CAR", 0, A)
    support.set_office(state, "LON", 0, A)
    support.set_level(state, A, ACTIONS, 1)
    play(state, Place("DUN-EDI:1", "T"))
    assert state.perm_used == perm_bit(state, "CAR")
    assert places_in(state, WALES) and places_in(state, SCOTLAND)  # London still covers either
    play(state, Place("CON-CHE:1", "T"))
    assert state.perm_used == perm_bit(state, "CAR") | perm_bit(state, "LON")
    assert state.piece_at("DUN-EDI:1") == (A, "T") and state.piece_at("CON-CHE:1") == (A, "T")
    refuse(state, Place("GLA-EDI:1", "T"))
    refuse(state, Place("MON-CON:1", "T"))


def test_e41_permission_holder_rightmost_or_controller():
    """41. Cardiff: B has 2 offices, A has the rightmost (third) office -> A holds the permission (not B, the controller)
    by default; with opt.permissionHolder = controller B holds it."""
    def cardiff(**options: object) -> GameState:
        state = britannia(**options)
        support.set_office(state, "CDF", 0, B)
        support.set_office(state, "CDF", 1, B)
        support.set_office(state, "CDF", 2, A)
        return state

    state = cardiff()
    cdf = city(state, "CDF")
    assert state.controller(cdf) == B and state.holder(cdf) == A
    play(state, Place("CON-CHE:1", "T"))
    assert state.perm_used == perm_bit(state, "CDF")
    state = cardiff(permission_holder="controller")
    assert state.holder(cdf) == B
    assert places_in(state, WALES) == []
    refuse(state, Place("CON-CHE:1", "T"))
    play(state, EndTurn())
    assert state.current == B
    play(state, Place("CON-CHE:1", "T"))
    assert state.perm_used == perm_bit(state, "CDF")


def test_e42_permission_won_during_the_turn():
    """42. A holds nothing at turn start; A's first action claims Cardiff-Pembroke and puts an office on Cardiff's next
    free office (now the rightmost occupied) -> A's second action may be a Place in Wales (live); refused with
    opt.permissionTiming = turnStart."""
    def position(**options: object) -> GameState:
        state = britannia(**options)
        support.set_office(state, "CDF", 0, B)
        refresh_holders(state)
        support.set_level(state, A, PRIVILEGE, 1)
        support.set_level(state, A, ACTIONS, 1)  # 3 actions: the turn goes on after the Place
        support.fill_route(state, "CDF-PEM", A)
        return state

    state = position()
    cdf = city(state, "CDF")
    assert state.holder(cdf) == B
    refuse(state, Place("MON-CON:1", "T"))
    play(state, Claim("CDF-PEM", "office", "CDF"))  # a Wales route: claims need no permission
    assert offices(state, "CDF") == [BT, AT, FREE, FREE] and state.holder(cdf) == A
    assert state.score == [0, 1, 0]  # step a: B controlled Cardiff
    play(state, Place("MON-CON:1", "T"))
    assert state.perm_used == perm_bit(state, "CDF")
    # opt.permissionTiming = turnStart: B held Cardiff when A's turn began.
    state = position(permission_timing="turnStart")
    assert state.perm_holders == (B, -1)
    play(state, Claim("CDF-PEM", "office", "CDF"))
    assert state.holder(cdf) == A and state.perm_holders == (B, -1)
    refuse(state, Place("MON-CON:1", "T"))
    assert places_in(state, WALES) == []
    # B's turn starts with A holding Cardiff: B has no permission although B held it earlier.
    play(state, EndTurn())
    assert state.current == B and state.perm_holders == (A, -1)
    refuse(state, Place("MON-CON:1", "T"))


def test_e43_isle_of_man_routes():
    """43. Small side, A holds London -> Place on Carlisle-Isle of Man (an England route) -> needs no permission; Place on
    Conway-Isle of Man (Wales, first two spaces ships) -> uses the London permission and needs a Merchant on a ship
    space."""
    state = britannia()
    support.set_office(state, "LON", 0, A)
    support.set_level(state, A, ACTIONS, 1)  # 3 actions
    assert state.board.route("CAR-IOM").country == ENGLAND and state.board.route("CON-IOM").country == WALES
    assert ship(state, "CON-IOM:1") and ship(state, "CON-IOM:2") and not ship(state, "CON-IOM:3")
    play(state, Place("CAR-IOM:1", "T"))
    assert state.perm_used == 0
    refuse(state, Place("CON-IOM:1", "T"))
    refuse(state, Place("CON-IOM:2", "T"))
    before = snap(state)
    play(state, Place("CON-IOM:1", "M"))
    assert house_changes(before, state) == {"CON-IOM:1": (None, (A, "M"))}
    assert state.perm_used == perm_bit(state, "LON")
    assert changed(before, state) == {"houses", "sup_m", "actions_used", "perm_used"}


def test_e44_claim_in_wales_needs_no_permission():
    """44. A may claim Conway-Montgomery (Wales) without any permission."""
    state = britannia()
    support.fill_route(state, "MON-CON", A)
    r = route_code(state, "MON-CON")
    assert state.board.route(r).country == WALES and places_in(state, WALES) == []
    assert claims(state, r) == {Claim(r), Claim(r, "office", "CON")}  # Montgomery's first office is orange
    before = snap(state)
    state.play(Claim(r, "office", "CON"))
    assert offices(state, "CON") == [AT, FREE]
    assert state.perm_used == 0
    assert changed(before, state) == {"houses", "offices", "city_filled", "stk_t", "actions_used"}
    assert places_in(state, WALES) == []  # an office in Conway grants no permission


def test_e45_relocation_from_wales_needs_no_permission():
    """45. B's relocation after A displaced B's Trader on a Wales route (with permission) needs no permission; it may go to
    Wales or England routes only."""
    state = britannia(4)
    support.set_office(state, "CDF", 0, A)
    support.put(state, "CON-IOM:3", B)
    # Conway-Isle of Man's neighbours: Conway-Chester, Montgomery-Conway (Wales) and Carlisle-Isle of Man (Scotland).
    # C fills the two Wales ones, so the nearest free houses are the Scotland route's and those at distance 2.
    support.fill_route(state, "CON-CHE", C)
    support.fill_route(state, "MON-CON", C)
    assert state.permitted_countries(B) == 1 << ENGLAND
    play(state, Displace("CON-IOM:3", "T", "T"))
    assert state.perm_used == perm_bit(state, "CDF")
    assert state.phase == Phase.RELOCATE and state.decider == B
    targets = {m.house for m in of_type(state, Relocate)}
    eligible = (
        free_houses_of(state, "HER-CHE", "MON-HER", "MON-PEM", "MON-CDF", "RIC-CAR", "DUR-CAR")
        | {"CHE-CAR:3"}  # its first two houses are ship spaces
    )
    assert targets == eligible
    refuse(state, Relocate("CAR-IOM:1", "T"), B)  # Scotland, distance 1: not for a piece from Wales
    refuse(state, Relocate("CAR-FAL:1", "T"), B)  # Scotland, distance 2
    play(state, TakeExtra("T"), B)
    before = snap(state)
    state.play(Relocate("MON-HER:1", "T"), B)  # Wales
    state.play(Relocate("HER-CHE:1", "T"), B)  # England
    assert house_changes(before, state) == {"MON-HER:1": (None, (B, "T")), "HER-CHE:1": (None, (B, "T"))}
    assert state.phase == Phase.ACTIONS and state.decider == A
    assert state.perm_used == perm_bit(state, "CDF")


# ---------------------------------------------------------------------------------------------- E8.6 movement


def test_e46_relocation_from_england_stays_in_england():
    """46. A displaces B's Trader on Hereford-Lancaster (England); the free houses at distance 1 are on Montgomery-Hereford
    (Wales) and Coventry-Hereford (England) -> B must use Coventry-Hereford; Montgomery-Hereford is illegal."""
    state = britannia()
    support.put(state, "HER-LAN:1", B)
    for r in ("HER-CHE", "RIC-LAN", "DUR-LAN"):
        support.fill_route(state, r, C)
    play(state, Displace("HER-LAN:1", "T", "T"))
    assert state.perm_used == 0  # England: no permission
    assert {m.house for m in of_type(state, Relocate)} == free_houses_of(state, "COV-HER")
    refuse(state, Relocate("MON-HER:1", "T"), B)
    refuse(state, Relocate("MON-HER:2", "T"), B)
    play(state, Relocate("COV-HER:2", "T"), B)
    assert state.piece_at("COV-HER:2") == (B, "T")
    play(state, Done(), B)
    assert state.phase == Phase.ACTIONS and state.decider == A


def test_e47_scotland_merchant_relocates_past_a_wales_route():
    """47. Large side, A displaces B's Merchant on Carlisle-Isle of Man (Scotland); the only free house at distance 1 is on
    Conway-Isle of Man (Wales) -> not eligible; B goes to the nearest eligible Scotland or England route."""
    state = britannia(4)
    support.set_office(state, "CAR", 0, A)  # Scotland permission
    support.put(state, "CAR-IOM:1", B, "M")
    for r, kinds in (("RIC-CAR", None), ("DUR-CAR", None), ("CAR-FAL", None), ("CHE-CAR", "MMT")):
        support.fill_route(state, r, C, kinds)
    support.put(state, "CAR-IOM:2", C, "M")
    support.put(state, "CAR-IOM:3", C, "M")
    support.put(state, "CON-IOM:1", C, "M")
    support.put(state, "CON-IOM:2", C, "M")
    support.set_pools(state, A, sup=(3, 0))
    assert state.board.route("CAR-IOM").country == SCOTLAND
    play(state, Displace("CAR-IOM:1", "T", "TT"))
    assert state.perm_used == perm_bit(state, "CAR")
    assert state.phase == Phase.RELOCATE and state.hand == (1,) and state.rl_extras == 2
    distance2 = free_houses_of(state, "RIC-LAN", "DUR-NEW", "DUR-LAN", "DUR-YOR", "GLA-FAL", "HER-CHE")
    assert {m.house for m in of_type(state, Relocate)} == distance2
    refuse(state, Relocate("CON-IOM:3", "M"), B)
    refuse(state, Relocate("CON-CHE:1", "M"), B)  # Wales, distance 2
    play(state, Relocate("GLA-FAL:1", "M"), B)
    assert state.piece_at("GLA-FAL:1") == (B, "M")
    play(state, Done(), B)
    assert state.phase == Phase.ACTIONS and state.piece_at("CON-IOM:3") is None


def test_e48_move_action_from_wales_to_england_not_back():
    """48. Move action: A's Trader on Montgomery-Cardiff (Wales) -> to an England route -> legal; A's Trader on an England
    route -> to a Wales route -> illegal."""
    state = britannia()
    support.put(state, "MON-CDF:1", A)
    support.put(state, "HER-CHE:1", A)
    play(state, Lift("MON-CDF:1"))
    assert state.hand == (0,) and state.hand_from == (WALES,)
    play(state, Lift("HER-CHE:1"))
    assert state.hand_from == (WALES, ENGLAND)
    before = snap(state)
    play(state, Drop("CON-CHE:2", "T"))  # Wales: only the piece from Wales may go there
    assert state.hand == (0,) and state.hand_from == (ENGLAND,)
    refuse(state, Drop("MON-HER:1", "T"))  # the other Trader came from England
    assert not [m for m in of_type(state, Drop) if state.board.house_country[support.house(state, m.house)] == WALES]
    play(state, Drop("COV-HER:1", "T"))
    assert house_changes(before, state) == {"CON-CHE:2": (None, (A, "T")), "COV-HER:1": (None, (A, "T"))}
    assert state.phase == Phase.ACTIONS and state.actions_used == 1 and state.perm_used == 0
    # Wales -> England alone.
    state = britannia()
    support.put(state, "MON-CDF:1", A)
    play(state, Lift("MON-CDF:1"))
    play(state, Drop("COV-HER:1", "T"))
    assert state.piece_at("COV-HER:1") == (A, "T") and state.phase == Phase.ACTIONS
    # England -> Wales alone.
    state = britannia()
    support.put(state, "HER-CHE:1", A)
    play(state, Lift("HER-CHE:1"))
    refuse(state, Drop("CON-CHE:1", "T"))
    refuse(state, Drop("MON-CDF:1", "T"))


def test_e49_move_3_stays_in_its_country():
    """49. Move 3 (Britannia default move): A moves B's Trader from a Wales route to an England route -> illegal; to
    another Wales route -> legal.  With opt.remove3Mode = remove B's Trader simply returns to B's Supply."""
    state = britannia()
    support.give_markers(state, A, REMOVE3)
    support.put(state, "MON-CDF:1", B)
    support.put(state, "HER-CHE:1", C)
    play(state, UseMarker("remove3"))
    assert state.phase == Phase.REMOVE and state.rm_left == 3
    refuse(state, Shift("MON-CDF:1", "COV-HER:1"))
    refuse(state, Shift("HER-CHE:1", "CON-CHE:1"))  # England -> Wales neither
    refuse(state, Remove("MON-CDF:1"))
    before = snap(state)
    play(state, Shift("MON-CDF:1", "MON-HER:2"))
    assert house_changes(before, state) == {"MON-CDF:1": ((B, "T"), None), "MON-HER:2": (None, (B, "T"))}
    assert state.perm_used == 0 and state.rm_left == 2
    play(state, Done())
    assert state.phase == Phase.ACTIONS
    # opt.remove3Mode = remove
    state = britannia(remove3_mode="remove")
    support.give_markers(state, A, REMOVE3)
    support.put(state, "MON-CDF:1", B)
    b_sup = support.pools(state, B)[0]
    play(state, UseMarker("remove3"))
    refuse(state, Shift("MON-CDF:1", "MON-HER:2"))
    play(state, Remove("MON-CDF:1"))
    assert state.piece_at("MON-CDF:1") is None
    assert support.pools(state, B)[0] == (b_sup[0] + 1, b_sup[1])


def test_e50_move_any_2_keeps_pieces_in_their_country():
    """50. Move any 2 (Canterbury-Calais): A moves C's Trader from an England route to a Wales route -> illegal; within
    England -> legal."""
    state = britannia()
    support.fill_route(state, "CAN-CAL", A, "TMT")
    support.put(state, "HER-CHE:1", C)
    support.put(state, "MON-CON:1", B)
    play(state, Claim("CAN-CAL"))
    assert state.phase == Phase.PERMANENT and state.pm_kind == MOVE_ANY_2
    refuse(state, Shift("HER-CHE:1", "CON-CHE:1"))
    refuse(state, Shift("MON-CON:1", "COV-HER:1"))  # Wales -> England neither
    refuse(state, Exchange("HER-CHE:1", "MON-CON:1"))
    assert not [m for m in of_type(state, Shift) if m.house == "HER-CHE:1"
                and state.board.house_country[support.house(state, m.to)] != ENGLAND]
    before = snap(state)
    play(state, Shift("HER-CHE:1", "COV-HER:1"))
    play(state, Shift("MON-CON:1", "CON-CHE:3"))  # within Wales
    assert house_changes(before, state) == {
        "HER-CHE:1": ((C, "T"), None), "COV-HER:1": (None, (C, "T")),
        "MON-CON:1": ((B, "T"), None), "CON-CHE:3": (None, (B, "T")),
    }
    assert state.phase == Phase.ACTIONS and state.perm_used == 0


# ---------------------------------------------------------------------------------------------- E8.7 markers, offices


def test_e51_replacement_markers_on_britannia():
    """51. End of turn, replacement marker: candidate Montgomery-Hereford (Wales, empty, Montgomery has a free office) ->
    illegal; Canterbury-Calais (permanent marker) -> illegal; large side Chester-Carlisle (England sea route, empty,
    Carlisle has a free office) -> legal."""
    state = britannia(4)
    claim_for_plate(state, "SAL-SOU")
    legal = {m.route for m in of_type(state, PlaceMarker)}
    for r in ("MON-HER", "CAN-CAL", "CAL-SOU", "CAR-IOM", "CON-IOM", "DUN-EDI"):
        assert route_code(state, r) not in legal
        refuse(state, PlaceMarker(route_code(state, r)))
    che_car = state.board.route("CHE-CAR")
    assert che_car.ships and che_car.country == ENGLAND and not che_car.permanent
    assert che_car.code in legal
    assert all(state.board.route(r).country == ENGLAND and not state.board.route(r).permanent for r in legal)
    marker = state.plate[A][0]
    play(state, PlaceMarker(che_car.code))
    assert state.route_marker[che_car.index] == marker and state.current == B
    # Small side: Carlisle-Isle of Man is an England route but has a permanent marker.
    state = britannia()
    claim_for_plate(state, "SAL-SOU")
    refuse(state, PlaceMarker(route_code(state, "CAR-IOM")))
    refuse(state, PlaceMarker(route_code(state, "MON-HER")))


def _calais_southampton(stk: tuple[int, int], kinds: str = "TMM") -> GameState:
    state = britannia()
    support.fill_route(state, "CAL-SOU", A, kinds)
    support.set_pools(state, A, stk=stk)
    return state


def test_e52_place_2_sources_stock_supply_board():
    """52. A claims Calais-Southampton with Stk{2,0} -> A may put those 2 Traders on free Wales houses (small side) without
    permission.  With Stk empty and Sup{1,1} -> the Trader and the Merchant come from the Supply.  With Stk and Sup
    empty -> A may lift his own pieces from any houses.  A Trader may not go on a Wales ship space.

    The clean-up (§E2.2 d) puts at least two of the route's pieces into the Stock before the effect, so a Stock of
    exactly {2,0}, or an empty one, cannot occur at the effect after a real claim: the first part keeps Stk{2,0} from
    before the claim (the Stock then also holds the two Merchants, A picks the Traders); the second and third parts
    set A's pools at the start of the effect."""
    state = _calais_southampton((2, 0))
    play(state, Claim("CAL-SOU", "office", "CAL"))
    assert offices(state, "CAL") == [AT, FREE, FREE]
    assert support.pools(state, A) == ((5, 1), (2, 2))
    assert state.phase == Phase.PERMANENT and state.pm_kind == PLACE_2 and state.pm_left == 2
    assert places_in(state, ENGLAND) == [] and places_in(state, WALES)
    assert {m.house for m in of_type(state, Place) if m.piece == "T"} == {
        h for h in free_houses_of(state, *[r.code for r in state.board.routes if r.country == WALES])
        if not ship(state, h)
    }
    refuse(state, Place("HER-CHE:1", "T"))  # England
    refuse(state, Place("CON-IOM:1", "T"))  # a Wales ship space
    before = snap(state)
    state.play(Place("CON-CHE:1", "T"))
    state.play(Place("MON-CDF:2", "T"))
    assert house_changes(before, state) == {"CON-CHE:1": (None, (A, "T")), "MON-CDF:2": (None, (A, "T"))}
    assert support.pools(state, A) == ((5, 1), (0, 2))
    assert state.perm_used == 0 and state.phase == Phase.ACTIONS
    assert changed(before, state) == {"houses", "stk_t", "phase", "pm_kind", "pm_left", "pm_route"}
    # Stock empty, Supply {1,1}: both from the Supply.
    state = _calais_southampton((0, 0))
    play(state, Claim("CAL-SOU", "office", "CAL"))
    support.set_pools(state, A, sup=(1, 1), stk=(0, 0))
    assert state.place2_source(A) == "supply"
    refuse(state, Place("CON-IOM:1", "T"))
    play(state, Place("CON-IOM:1", "M"))
    assert support.pools(state, A) == ((1, 0), (0, 0))
    play(state, Place("CON-CHE:2", "T"))
    assert support.pools(state, A) == ((0, 0), (0, 0))
    assert state.piece_at("CON-IOM:1") == (A, "M") and state.piece_at("CON-CHE:2") == (A, "T")
    assert state.phase == Phase.ACTIONS
    # Stock and Supply empty: A lifts his own pieces from any houses.
    state = _calais_southampton((0, 0))
    support.put(state, "HER-CHE:1", A, "T")
    support.put(state, "SAL-OXF:1", A, "M")
    support.put(state, "COV-HER:1", B, "T")
    play(state, Claim("CAL-SOU", "office", "CAL"))
    support.set_pools(state, A, sup=(0, 0), stk=(0, 0))
    assert state.place2_source(A) == "board"
    assert of_type(state, Place) == []
    refuse(state, Place("CON-CHE:1", "T"))
    refuse(state, Shift("HER-CHE:1", "CON-IOM:1"))  # a Trader onto a ship space
    refuse(state, Shift("COV-HER:1", "CON-CHE:1"))  # not A's piece
    refuse(state, Shift("HER-CHE:1", "COV-HER:2"))  # England
    before = snap(state)
    play(state, Shift("SAL-OXF:1", "CON-IOM:2"))
    play(state, Shift("HER-CHE:1", "MON-PEM:1"))
    assert house_changes(before, state) == {
        "SAL-OXF:1": ((A, "M"), None), "CON-IOM:2": (None, (A, "M")),
        "HER-CHE:1": ((A, "T"), None), "MON-PEM:1": (None, (A, "T")),
    }
    assert state.phase == Phase.ACTIONS and state.perm_used == 0


def test_e53_place_2_takes_the_claimed_pieces_from_the_stock_first():
    """53. A claims Calais-Southampton (Trader, Merchant, Merchant) taking nothing in step (c) -> clean-up puts 1T+2M into
    A's Stock -> place 2 then takes its pieces from that Stock (e.g. both Merchants, onto Wales ship spaces).  With
    Stk{1,0}, Sup{3,0} before the effect, taking both pieces from the Supply -> illegal (Stock first).

    A Place names no source (the rule picks it), so the second part checks that the first piece comes from the Stock and
    only the second from the Supply, and that a Merchant may not be taken from the Supply while the Stock still holds a
    Trader (the Supply here also holds a Merchant).  The clean-up makes a Stock of {1,0} impossible at the effect of a
    real claim, so A's pools are set at the start of the effect."""
    state = _calais_southampton((0, 0))
    play(state, Claim("CAL-SOU"))
    assert support.pools(state, A) == ((5, 1), (1, 2))
    assert state.phase == Phase.PERMANENT and state.pm_kind == PLACE_2
    before = snap(state)
    state.play(Place("CON-IOM:1", "M"))
    state.play(Place("CON-IOM:2", "M"))
    assert house_changes(before, state) == {"CON-IOM:1": (None, (A, "M")), "CON-IOM:2": (None, (A, "M"))}
    assert support.pools(state, A) == ((5, 1), (1, 0))  # the Supply was not touched
    assert state.phase == Phase.ACTIONS
    # Stock {1,0}, Supply {3,1}: Stock first, no skipping.
    state = _calais_southampton((0, 0))
    play(state, Claim("CAL-SOU"))
    support.set_pools(state, A, sup=(3, 1), stk=(1, 0))
    assert state.place2_source(A) == "stock"
    assert {m.piece for m in of_type(state, Place)} == {"T"}
    refuse(state, Place("CON-IOM:1", "M"))
    play(state, Place("CON-CHE:1", "T"))
    assert support.pools(state, A) == ((3, 1), (0, 0))  # from the Stock
    assert state.place2_source(A) == "supply"
    play(state, Place("CON-CHE:2", "T"))
    assert support.pools(state, A) == ((2, 1), (0, 0))  # then from the Supply
    assert state.phase == Phase.ACTIONS


def test_e54_two_point_offices():
    """54. A establishes an office in Bristol -> +2 PP; in Plymouth's round office with a Merchant -> +2 PP."""
    state = britannia()
    support.set_level(state, A, PRIVILEGE, 1)
    support.fill_route(state, "SAL-BRI", A)
    r = route_code(state, "SAL-BRI")
    before = snap(state)
    play(state, Claim(r, "office", "BRI"))
    assert offices(state, "BRI") == [AT] and state.score == [2, 0, 0]
    assert state.completed == 1
    assert changed(before, state) == {"houses", "offices", "city_filled", "completed", "score", "stk_t", "actions_used"}
    # Plymouth: the square white office gives nothing, the round orange one 2.
    state = britannia()
    support.set_level(state, A, PRIVILEGE, 1)
    support.fill_route(state, "SAL-PLY", A, "TTTM")
    r = route_code(state, "SAL-PLY")
    play(state, Claim(r, "office", "PLY"))
    assert offices(state, "PLY") == [AT, FREE] and state.score == [0, 0, 0]
    support.fill_route(state, "SAL-PLY", A, "TTTM")
    play(state, Claim(r, "office", "PLY"))
    assert offices(state, "PLY") == [AT, AM]
    assert state.score == [1 + 2, 0, 0]  # step a: A controlled Plymouth; then the coin
    # With only Traders on the route the round office is out of reach.
    state = britannia()
    support.set_level(state, A, PRIVILEGE, 1)
    support.set_office(state, "PLY", 0, B)
    support.fill_route(state, "SAL-PLY", A)
    refuse(state, Claim(r, "office", "PLY"))


def test_e55_plymouth_table():
    """55. A claims Salisbury-Plymouth with a Merchant, Privilege white -> may take the Plymouth table space 7 -> 7 PP at
    the end."""
    state = britannia()
    support.fill_route(state, "SAL-PLY", A, "TTTM")
    r = route_code(state, "SAL-PLY")
    assert state.board.coellen == city(state, "PLY") and state.board.coellen_route == route_index(state, r)
    assert claims(state, r) == {Claim(r), Claim(r, "office", "PLY"), Claim(r, "table", "white")}
    refuse(state, Claim(r, "table", "orange"))
    before = snap(state)
    state.play(Claim(r, "table", "white"))
    assert state.table == [AM, FREE, FREE, FREE]
    assert state.score == [0, 0, 0]
    assert final_scores(state)[A].coellen == 7
    assert changed(before, state) == {"houses", "table", "stk_t", "actions_used"}


def test_e56_east_west_oxford_york():
    """56. First player to connect Oxford and York -> +7; second +4; third +2."""
    state = britannia()
    assert {state.board.cities[c].code for c in state.board.east_west} == {"OXF", "YOR"}
    # The chain Oxford-Cardiff-Coventry-Nottingham-York, each player missing one city of it.
    chains = {A: ("OXF", "CDF", "NOT", "YOR"), B: ("OXF", "CDF", "COV", "YOR"), C: ("OXF", "COV", "NOT", "YOR")}
    for p, cities in chains.items():
        for code in cities:
            extra_office(state, code, p)
    support.set_level(state, B, PRIVILEGE, 1)  # Nottingham's first office is orange
    plays = ((A, "COV-HER", "COV", 7), (B, "NOT-NOR", "NOT", 4), (C, "OXF-CDF", "CDF", 2))
    for n, (p, route, target, award) in enumerate(plays):
        assert state.current == p
        r = route_code(state, route)
        support.fill_route(state, r, p)
        expected = [s + c for s, c in zip(state.score, control_points(state, r))]
        expected[p] += award
        play(state, Claim(r, "office", target))
        assert printed(state, target)[0] == p * 2
        assert state.ew_paid == [A, B, C][: n + 1]
        assert state.score == expected
        play(state, EndTurn())


def test_e57_eighth_city_ends_the_game_after_the_whole_claim():
    """57. The 8th city is completed by A's office -> the game ends after that claim (whole action finished)."""
    state = britannia()
    complete(state, "RIC", "DUR", "LAN", "IPS", "BRI", "YOR", "NOT")
    support.set_office(state, "CAL", 0, B)
    support.set_office(state, "CAL", 1, B, "M")
    support.set_level(state, A, PRIVILEGE, 2)
    support.fill_route(state, "CAL-SOU", A, "TMM")
    assert state.completed == 7
    play(state, Claim("CAL-SOU", "office", "CAL"))
    assert printed(state, "CAL") == [2, 3, AT]
    assert state.completed == 8
    # The claim goes on with its permanent marker (place 2) before the game ends.
    assert state.phase == Phase.PERMANENT and state.end_triggers == ()
    play(state, Place("CON-IOM:1", "M"))
    assert state.phase == Phase.PERMANENT
    play(state, Done())
    assert state.phase == Phase.OVER and state.end_triggers == ("cities",)
    assert state.piece_at("CON-IOM:1") == (A, "M")
    assert state.score == [0, 1, 0]


# ---------------------------------------------------------------------------------------------- E8.7 Wales/Scotland scoring


def _assert_countries(state: GameState, expected: list[int]) -> None:
    assert country_scores(state) == expected
    assert [s.countries for s in final_scores(state)] == expected


def test_e58_wales_scoring_seven_four_two():
    """58. Wales scoring, 4 players: A controls 2 Wales cities (3 offices there), B 1 city (2 offices), C 0 cities
    (2 offices), D 0 cities (1 office) -> A 7, B 4, C 2, D 0."""
    state = britannia(4)
    support.set_office(state, "CON", 0, A)
    support.set_office(state, "CON", 1, A)
    extra_office(state, "CON", C)
    support.set_office(state, "MON", 0, A)
    support.set_office(state, "CDF", 0, B)
    support.set_office(state, "CDF", 1, B)
    support.set_office(state, "CDF", 2, C)
    extra_office(state, "CDF", D)
    assert [state.controller(city(state, c)) for c in ("CON", "MON", "CDF")] == [A, A, B]
    _assert_countries(state, [7, 4, 2, 0])


def test_e59_wales_scoring_tie_for_first():
    """59. A and B each control 2 Wales cities with 3 offices each, C controls 1 -> A 5, B 5 (floor(11/2)), C 2."""
    state = britannia()
    support.set_office(state, "CON", 0, A)
    support.set_office(state, "CON", 1, A)
    support.set_office(state, "MON", 0, A)
    support.set_office(state, "CHE", 0, B)
    support.set_office(state, "CHE", 1, B, "M")
    support.set_office(state, "PEM", 0, B)
    support.set_office(state, "CDF", 0, C)
    _assert_countries(state, [5, 5, 2])


def test_e60_wales_scoring_three_way_tie():
    """60. A, B, C each control 1 Wales city with 2 offices -> each floor(13/3) = 4."""
    state = britannia()
    for p, code in ((A, "CON"), (B, "CDF"), (C, "MON")):
        support.set_office(state, code, 0, p)
        support.set_office(state, code, 1, p)
    _assert_countries(state, [4, 4, 4])


def test_e61_wales_scoring_tie_for_second():
    """61. A controls 2 cities; B and C each control 1 with 2 offices; D none -> A 7, B 3, C 3 (floor(6/2)), D 0."""
    state = britannia(4)
    support.set_office(state, "CON", 0, A)
    support.set_office(state, "CON", 1, A)
    support.set_office(state, "MON", 0, A)
    support.set_office(state, "CHE", 0, B)
    support.set_office(state, "CHE", 1, B, "M")
    support.set_office(state, "PEM", 0, C)
    support.set_office(state, "PEM", 1, C)
    _assert_countries(state, [7, 3, 3, 0])
    extra_office(state, "CON", D)  # D with an office but no city: fourth place is worth nothing either
    assert state.controller(city(state, "CON")) == A
    _assert_countries(state, [7, 3, 3, 0])


def test_e62_wales_scoring_tie_for_third():
    """62. A controls 2, B controls 1, C and D each 0 cities with 1 office -> A 7, B 4, C 1, D 1 (floor(2/2))."""
    state = britannia(4)
    support.set_office(state, "CON", 0, A)
    support.set_office(state, "CON", 1, A)
    support.set_office(state, "MON", 0, A)
    support.set_office(state, "CHE", 0, B)
    extra_office(state, "CON", C)
    extra_office(state, "CHE", D)
    assert state.controller(city(state, "CHE")) == B  # 1-1, B's office is the rightmost
    _assert_countries(state, [7, 4, 1, 1])


def test_e63_no_wales_office_no_wales_points():
    """63. A player with no office in any Wales city scores 0 for Wales even if only two players have offices there."""
    state = britannia()
    support.set_office(state, "CON", 0, A)
    extra_office(state, "CON", B)
    support.set_office(state, "HER", 0, C)
    support.set_office(state, "LON", 0, C)
    _assert_countries(state, [7, 4, 0])


def test_e64_isle_of_man_counts_for_wales_and_scotland():
    """64. Large side: A's only western office is one office in the Isle of Man (A controls it).  C has both occupied
    offices of Cardiff; B has an extra office in Cardiff.  Wales: C (1 city, 2 offices) 7, A (1 city, 1 office) 4, B
    (0 cities, 1 office) 2.  Scotland: A is the only candidate -> 7."""
    state = britannia(4)
    iom = state.board.city("IOM")
    assert iom.countries == 1 << WALES | 1 << SCOTLAND
    support.set_office(state, "IOM", 0, A, "M")
    support.set_office(state, "CDF", 0, C)
    support.set_office(state, "CDF", 1, C)
    extra_office(state, "CDF", B)
    assert offices(state, "IOM") == [AM, FREE]
    assert offices(state, "CDF") == [BT, CT, CT, FREE, FREE, FREE]
    assert state.controller(iom.index) == A and state.controller(city(state, "CDF")) == C
    _assert_countries(state, [4 + 7, 2, 7, 0])


def test_e65_hereford_is_in_england():
    """65. Small side, A's only office in the west is in Hereford -> A is not a Wales candidate (Hereford is in England)."""
    state = britannia()
    assert state.board.city("HER").countries == 1 << ENGLAND
    support.set_office(state, "HER", 0, A)
    support.set_office(state, "CON", 0, B)
    _assert_countries(state, [0, 7, 0])


def test_e66_small_side_has_no_scotland_scoring():
    """66. Small side, game end -> no Scotland scoring exists."""
    state = britannia()
    assert [country for country, _, _ in state.board.country_scoring] == [WALES]
    assert "countries" in categories(state)
    # A holds every office of Carlisle and Newcastle (Scotland on the large side, England here), B one in Wales.
    complete(state, "CAR", "NEW", owner=A)
    complete(state, "RIC", "DUR", "LAN", "IPS", "YOR")
    support.set_office(state, "CON", 0, B)
    assert state.completed == 7
    support.set_level(state, A, PRIVILEGE, 1)
    support.fill_route(state, "SAL-BRI", A)
    play(state, Claim(route_code(state, "SAL-BRI"), "office", "BRI"))  # the 8th completed city
    assert state.completed == 8
    assert state.phase == Phase.OVER and state.end_triggers == ("cities",)
    _assert_countries(state, [0, 7, 0])
