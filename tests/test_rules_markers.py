"""Focused rule tests for docs/rule-scenarios.md §7.10 (bonus markers, scenarios 82-100) and §7.11 (replacement markers,
scenarios 101-105).

Most positions use the fixture board (no taverns, so no marker lies on a route unless a test puts one there);
East-West, Coellen and tavern scenarios use the real 2-3 board.
"""

from __future__ import annotations

from typing import Any

import support
from hansa.core.constants import (
    BAGS,
    BOOK,
    EXTRA_OFFICE,
    IMPROVE,
    MERCHANT,
    PLUS3,
    PLUS4,
    REMOVE3,
    SWAP_OFFICES,
    TRADER,
    piece_code,
)
from hansa.core.errors import WrongPlayerError
from hansa.core.moves import (
    Claim,
    Displace,
    Done,
    EndTurn,
    Improve,
    Place,
    PlaceMarker,
    Relocate,
    Remove,
    Swap,
    UseMarker,
)
from hansa.core.scoring import final_scores
from hansa.core.state import GameState, Phase
from support import A, B, C, refuse

AT, AM = piece_code(A, TRADER), piece_code(A, MERCHANT)
BT, BM = piece_code(B, TRADER), piece_code(B, MERCHANT)
CT, CM = piece_code(C, TRADER), piece_code(C, MERCHANT)
FREE = -1


# ---------------------------------------------------------------------------------------------- helpers


def fixture(**options: Any) -> GameState:
    return support.new_state(3, board=support.fixture_board(), **options)


def city(state: GameState, code: str) -> int:
    return state.board.city_index[code]


def office_codes(state: GameState, code: str) -> list[int]:
    c = state.board.cities[city(state, code)]
    return state.offices[c.office_base : c.office_base + len(c.offices)]


def route_index(state: GameState, route: str) -> int:
    return state.board.route(route).index


def swaps(state: GameState) -> set[Swap]:
    return {m for m in state.legal_moves() if isinstance(m, Swap)}


def marker_routes(state: GameState) -> set[str]:
    return {m.route for m in state.legal_moves() if isinstance(m, PlaceMarker)}


def end_turns(state: GameState, n: int) -> None:
    for _ in range(n):
        state.play(EndTurn())


# ---------------------------------------------------------------------------------------------- 7.10 bonus markers


def test_s082_plus3_after_allowance_unused_actions_lost():
    """82. A used 2/2 actions -> uses +3 -> 3 more actions; ends turn with 1 unused -> lost."""
    state = fixture()
    support.give_markers(state, A, PLUS3)
    state.play(Place("P-Q:1", "T"))
    state.play(Place("P-Q:2", "T"))
    assert state.actions_used == 2 and state.allowance() == 2
    assert state.current == A and state.phase == Phase.ACTIONS  # a usable marker keeps the turn open
    refuse(state, Place("P-Q:3", "T"))
    assert UseMarker("+3") in state.legal_moves()
    state.play(UseMarker("+3"))
    assert state.allowance() == 5 and state.actions_left() == 3
    state.play(Place("P-Q:3", "T"))
    state.play(Place("Q-R:1", "T"))
    assert state.actions_left() == 1
    state.play(EndTurn())
    assert state.current == B and state.actions_used == 0 and state.bonus_actions == 0
    end_turns(state, 2)
    assert state.current == A and state.allowance() == 2 and state.bonus_actions == 0
    assert state.markers[A] == () and state.used_markers[A] == (PLUS3,)


def test_s083_marker_from_last_action_usable_after_it():
    """83. A's last action claims a route carrying +4 -> after the action A uses +4 -> 4 more actions this turn."""
    state = fixture()
    support.set_marker(state, "V-K", PLUS4)
    support.fill_route(state, "V-K", A)
    state.play(Place("P-Q:1", "T"))
    state.play(Claim("V-K"))
    assert state.actions_used == 2 and state.actions_left() == 0
    assert state.current == A and state.phase == Phase.ACTIONS
    assert state.markers[A] == (PLUS4,)
    refuse(state, Place("P-Q:2", "T"))
    state.play(UseMarker("+4"))
    assert state.actions_left() == 4 and state.bonus_actions == 4
    state.play(Place("P-Q:2", "T"))
    assert state.actions_used == 3 and state.current == A


def test_s084_using_markers_costs_no_action():
    """84. Using a marker does not increase `actionsUsed`."""
    state = fixture()
    support.give_markers(state, A, PLUS3, IMPROVE, PLUS4)
    state.play(UseMarker("+4"))
    assert state.actions_used == 0
    state.play(Place("P-Q:1", "T"))
    assert state.actions_used == 1
    state.play(UseMarker("+3"))
    assert state.actions_used == 1
    state.play(Improve("bags"))
    assert state.actions_used == 1
    assert state.allowance() == 2 + 3 + 4
    assert state.used_markers[A] == (PLUS4, PLUS3, IMPROVE)


def test_s085_marker_not_usable_on_another_players_turn():
    """85. B tries to use a marker during A's turn (e.g. while relocating) -> illegal."""
    state = fixture()
    support.give_markers(state, B, PLUS3)
    support.put(state, "P-Q:1", B)
    state.play(Displace("P-Q:1", "T", "T"))
    assert state.phase == Phase.RELOCATE and state.decider == B
    assert not any(isinstance(m, UseMarker) for m in state.legal_moves())
    refuse(state, UseMarker("+3"), player=B)
    refuse(state, UseMarker("+3"))
    state.play(Relocate("Q-R:1", "T"), B)
    state.play(Done(), B)
    assert state.phase == Phase.ACTIONS and state.decider == A
    refuse(state, UseMarker("+3"), player=B, error=WrongPlayerError)
    refuse(state, UseMarker("+3"))  # A holds no +3: B's marker is not A's
    assert state.markers[B] == (PLUS3,) and state.used_markers[B] == ()
    assert state.bonus_actions == 0


def _remove_position(**options: Any) -> GameState:
    state = fixture(**options)
    support.give_markers(state, A, REMOVE3)
    support.put(state, "P-Q:1", B, "T")
    support.put(state, "Q-R:1", C, "M")
    support.put(state, "P-S:1", A, "T")
    for p in (A, B, C):
        support.set_pools(state, p, sup=(2, 0), stk=(0, 0))
    return state


def test_s086_remove3_any_owner_to_supply():
    """86. Remove 3: removes B's Trader, C's Merchant and A's own Trader -> B Sup +1T, C Sup +1M, A Sup +1T. With `opt.remove3Targets=opponents` the own piece is illegal."""
    state = _remove_position()
    state.play(UseMarker("remove3"))
    assert state.phase == Phase.REMOVE and state.decider == A
    assert {m for m in state.legal_moves() if isinstance(m, Remove)} == {
        Remove("P-Q:1"),
        Remove("Q-R:1"),
        Remove("P-S:1"),
    }
    state.play(Remove("P-Q:1"))
    state.play(Remove("Q-R:1"))
    state.play(Remove("P-S:1"))
    assert state.phase == Phase.ACTIONS
    assert all(state.piece_at(h) is None for h in ("P-Q:1", "Q-R:1", "P-S:1"))
    assert support.pools(state, A) == ((3, 0), (0, 0))
    assert support.pools(state, B) == ((3, 0), (0, 0))
    assert support.pools(state, C) == ((2, 1), (0, 0))
    assert state.markers[A] == () and state.used_markers[A] == (REMOVE3,)
    assert state.actions_used == 0

    opp = _remove_position(remove3_targets="opponents")
    opp.play(UseMarker("remove3"))
    refuse(opp, Remove("P-S:1"))
    opp.play(Remove("P-Q:1"))
    assert opp.piece_at("P-S:1") == (A, "T")
    assert support.pools(opp, B) == ((3, 0), (0, 0))


def test_s087_remove3_up_to_three():
    """87. Remove 3 used on 2 pieces only -> legal ("up to"); marker spent."""
    state = fixture()
    support.give_markers(state, A, REMOVE3)
    support.put(state, "P-Q:1", B)
    support.put(state, "P-Q:2", B)
    support.put(state, "Q-R:1", C)
    state.play(UseMarker("remove3"))
    state.play(Remove("P-Q:1"))
    state.play(Remove("Q-R:1"))
    assert state.phase == Phase.REMOVE and Done() in state.legal_moves()
    state.play(Done())
    assert state.phase == Phase.ACTIONS and state.current == A
    assert state.piece_at("P-Q:2") == (B, "T")
    assert state.markers[A] == () and state.used_markers[A] == (REMOVE3,)
    refuse(state, Remove("P-Q:2"))
    refuse(state, UseMarker("remove3"))


def test_s088_remove3_never_takes_offices():
    """88. Remove 3 on an office piece -> illegal."""
    state = fixture()
    support.give_markers(state, A, REMOVE3)
    support.set_office(state, "K", 0, B)
    support.set_office(state, "Y", 0, C)
    # Only office pieces on the board: the marker has nothing to remove and is not usable.
    refuse(state, UseMarker("remove3"))
    support.put(state, "P-Q:1", B)
    state.play(UseMarker("remove3"))
    assert {m for m in state.legal_moves() if isinstance(m, Remove)} == {Remove("P-Q:1")}
    refuse(state, Remove("K"))
    refuse(state, Remove("K-Y:1"))  # an empty house next to the office city
    assert office_codes(state, "K") == [BT, FREE, FREE, FREE]
    assert office_codes(state, "Y") == [CT]


def test_s089_swap_ignores_shape():
    """89. Swap: Fixture K, A on k1 (square), B on k2 (round) -> swap -> B on k1, A on k2; A's Trader now on a round office; legal."""
    state = fixture()
    support.give_markers(state, A, SWAP_OFFICES)
    support.set_office(state, "K", 0, A, "T")
    support.set_office(state, "K", 1, B, "M")
    assert Swap("K", 1) in state.legal_moves()
    state.play(Swap("K", 1))
    assert office_codes(state, "K") == [BM, AT, FREE, FREE]
    assert state.markers[A] == () and state.used_markers[A] == (SWAP_OFFICES,)
    assert state.actions_used == 0 and state.score == [0, 0, 0]


def test_s090_swap_ignores_privilege():
    """90. Fixture K: A on k3, B on k4 (pink); A has Privilege white -> swap -> A on k4, B on k3; legal (privilege ignored)."""
    state = fixture()
    support.give_markers(state, A, SWAP_OFFICES)
    support.set_office(state, "K", 0, C, "T")
    support.set_office(state, "K", 1, C, "M")
    support.set_office(state, "K", 2, A, "T")
    support.set_office(state, "K", 3, B, "T")
    assert state.ability_value(A, 2) == 1  # white
    assert Swap("K", 3) in state.legal_moves()
    state.play(Swap("K", 3))
    assert office_codes(state, "K") == [CT, CM, BT, AT]
    assert state.completed == 1


def test_s091_swap_onto_coin_gives_no_points():
    """91. Fixture K: B on k1 (coin), A on k2 -> swap -> A on k1; A gains no PP."""
    state = fixture()
    support.give_markers(state, A, SWAP_OFFICES)
    support.set_office(state, "K", 0, B, "T")
    support.set_office(state, "K", 1, A, "M")
    state.play(Swap("K", 1))
    assert office_codes(state, "K") == [AM, BT, FREE, FREE]
    assert state.score == [0, 0, 0]


def test_s092_swap_only_neighbouring_printed_offices():
    """92. Swap with an extra office, or with a Coellen table space, or k1 with k3 (not neighbours) -> illegal."""
    # Extra office: Y has one printed office (B) and A's extra office.
    state = fixture()
    support.give_markers(state, A, SWAP_OFFICES)
    support.set_office(state, "Y", 0, B)
    support.add_extra_office(state, "Y", A)
    assert swaps(state) == set()
    refuse(state, Swap("Y", 0))
    refuse(state, Swap("Y", 1))
    assert state.extras[city(state, "Y")] == (AT,) and office_codes(state, "Y") == [BT]

    # Not neighbours: A on k1, B on k2 and k3 -> only the pair (k1, k2) can be swapped, never k1 with k3.
    state = fixture(swap_needs_own=False)
    support.give_markers(state, A, SWAP_OFFICES)
    support.set_office(state, "K", 0, A, "T")
    support.set_office(state, "K", 1, B, "M")
    support.set_office(state, "K", 2, C, "T")
    assert swaps(state) == {Swap("K", 1), Swap("K", 2)}  # pairs of neighbours only
    refuse(state, Swap("K", 3))  # k3 with the free k4
    refuse(state, Swap("K", 0))

    # Coellen table: A's Merchant on the table cannot be swapped with B's office in Coellen.
    state = support.new_state(3)
    support.give_markers(state, A, SWAP_OFFICES)
    state.table[0] = AM
    support.set_office(state, "COE", 0, B)
    assert swaps(state) == set()
    refuse(state, Swap("COE", 1))
    assert state.table == [AM, FREE, FREE, FREE]


def test_s093_swap_needs_own_office_by_default():
    """93. Swap of two B offices by A -> illegal by default; legal with `opt.swapNeedsOwn=false`."""
    state = fixture()
    support.give_markers(state, A, SWAP_OFFICES)
    support.set_office(state, "K", 0, B, "T")
    support.set_office(state, "K", 1, B, "M")
    refuse(state, Swap("K", 1))
    assert state.markers[A] == (SWAP_OFFICES,)

    state = fixture(swap_needs_own=False)
    support.give_markers(state, A, SWAP_OFFICES)
    support.set_office(state, "K", 0, B, "T")
    support.set_office(state, "K", 1, B, "M")
    assert Swap("K", 1) in state.legal_moves()
    state.play(Swap("K", 1))
    assert office_codes(state, "K") == [BM, BT, FREE, FREE]
    assert state.used_markers[A] == (SWAP_OFFICES,)


def test_s094_improve_refused_on_maxed_track():
    """94. Improve ability marker on a maxed track -> illegal; on another track -> legal."""
    state = fixture()
    support.give_markers(state, A, IMPROVE)
    support.set_level(state, A, BOOK, 3)
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    refuse(state, Improve("book"))
    assert Improve("bags") in state.legal_moves()
    state.play(Improve("bags"))
    assert state.ability_level(A, BAGS) == 1 and state.ability_value(A, BAGS) == 5
    assert support.pools(state, A) == ((6, 1), (6, 0))
    assert state.markers[A] == () and state.used_markers[A] == (IMPROVE,)
    assert state.actions_used == 0


def test_s095_extra_office_in_completed_city():
    """95. Extra office: A holds it from a previous turn; claims X-Y, Y completed -> A places a route piece (Trader or Merchant) left of Y's offices; counter unchanged; no privilege/shape check; marker turned face down."""
    state = fixture()
    support.give_markers(state, A, EXTRA_OFFICE)
    support.set_office(state, "Y", 0, B, "T")
    support.add_extra_office(state, "Y", C, "T")
    support.fill_route(state, "K-Y", A, "TM")
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    assert state.completed == 1
    legal = {m for m in state.legal_moves() if isinstance(m, Claim)}
    assert Claim("K-Y", "extra", "Y", "T") in legal and Claim("K-Y", "extra", "Y", "M") in legal
    state.play(Claim("K-Y", "extra", "Y", "M"))  # a Merchant although Y's printed office is square
    assert state.extras[city(state, "Y")] == (AM, CT)  # leftmost, left of the older extra office too
    assert office_codes(state, "Y") == [BT]
    assert state.completed == 1
    assert state.markers[A] == () and state.used_markers[A] == (EXTRA_OFFICE,)
    assert support.pools(state, A) == ((5, 1), (7, 0))
    assert state.score == [0, 1, 0]  # step a: B controlled Y


def test_s096_extra_office_needs_an_office_in_city():
    """96. Extra office in a city with no office -> illegal."""
    state = fixture()
    support.give_markers(state, A, EXTRA_OFFICE)
    support.fill_route(state, "V-K", A)
    assert not any(isinstance(m, Claim) and m.benefit == "extra" for m in state.legal_moves())
    refuse(state, Claim("V-K", "extra", "K", "T"))
    refuse(state, Claim("V-K", "extra", "V", "T"))
    assert state.markers[A] == (EXTRA_OFFICE,)


def test_s097_extra_office_loses_tie_to_printed():
    """97. Y: B on the only printed office; A's extra office -> 1-1 -> B controls."""
    state = fixture()
    support.give_markers(state, A, EXTRA_OFFICE)
    support.set_office(state, "Y", 0, B)
    support.fill_route(state, "K-Y", A)
    state.play(Claim("K-Y", "extra", "Y", "T"))
    assert state.extras[city(state, "Y")] == (AT,)
    assert state.controller(city(state, "Y")) == B
    scores = final_scores(state)
    assert scores[B].control == 2 and scores[A].control == 0


def test_s098_newer_extra_office_sits_further_left():
    """98. Y already has A's extra office; C adds an extra office -> C's sits further left; control ties: B (printed) > A (older extra) > C (newer extra)."""
    state = fixture()
    support.set_office(state, "Y", 0, B)
    support.add_extra_office(state, "Y", A)
    end_turns(state, 2)
    assert state.current == C
    support.give_markers(state, C, EXTRA_OFFICE)
    support.fill_route(state, "K-Y", C)
    state.play(Claim("K-Y", "extra", "Y", "T"))
    y = city(state, "Y")
    assert state.extras[y] == (CT, AT)
    assert state.controller(y) == B
    assert state.score == [0, 1, 0]
    support.set_office(state, "Y", 0, None)  # without the printed office: the older extra (A) beats C's
    assert state.controller(y) == A


def test_s099_extra_office_replaces_normal_office():
    """99. A uses Extra office and also a normal office in the same claim -> illegal."""
    state = fixture()
    support.give_markers(state, A, EXTRA_OFFICE, EXTRA_OFFICE)
    support.set_office(state, "K", 0, B)
    support.set_marker(state, "V-K", EXTRA_OFFICE)
    support.fill_route(state, "V-K", A, "TTM")
    support.set_pools(state, A, sup=(5, 1), stk=(6, 0))
    legal = {m for m in state.legal_moves() if isinstance(m, Claim) and m.route == "V-K"}
    assert Claim("V-K", "extra", "K", "T") in legal and Claim("V-K", "office", "K") in legal
    state.play(Claim("V-K", "extra", "K", "T"))
    assert state.extras[city(state, "K")] == (AT,)
    assert office_codes(state, "K") == [BT, FREE, FREE, FREE]  # no printed office as well
    assert state.office_count(A) == 1
    assert support.pools(state, A) == ((5, 1), (7, 1))
    # One held marker spent; the one gained in this claim is unused.
    assert state.markers[A] == (EXTRA_OFFICE, EXTRA_OFFICE) and state.used_markers[A] == (EXTRA_OFFICE,)
    refuse(state, Claim("V-K", "office", "K"))


def test_s100_extra_office_completes_east_west():
    """100. A's extra office gives A presence in the last missing city of his Arnheim-Stendal chain -> East-West bonus paid."""
    state = support.new_state(3)
    for code in ("ARN", "MUN", "MIN", "STE"):
        support.set_office(state, code, 0, A, "M" if code == "MUN" else "T")
    support.set_office(state, "BRA", 0, B)  # Braunschweig is complete
    support.give_markers(state, A, EXTRA_OFFICE)
    route = state.board.route_between("Minden", "Braunschweig").code
    support.fill_route(state, route, A)
    completed = state.completed
    move = Claim(route, "extra", "BRA", "T")
    assert move in state.legal_moves()
    state.play(move)
    assert state.extras[city(state, "BRA")] == (AT,)
    assert state.ew_paid == [A]
    assert state.score == [1 + 7, 1, 0]  # step a: A controls Minden, B Braunschweig; then the bonus
    assert state.completed == completed


# ---------------------------------------------------------------------------------------------- 7.11 replacement markers


def test_s101_replacement_marker_route_conditions():
    """101. End of turn, 1 marker on plate: candidate route is empty, no marker, both cities completed -> illegal; a route with one piece on it -> illegal; a route with a marker -> illegal; empty route whose city has a free office -> legal."""
    state = fixture()
    for i, p in enumerate((B, C, B, C)):
        support.set_office(state, "K", i, p)
    support.set_office(state, "Y", 0, C)
    support.put(state, "P-Q:1", B)
    support.set_marker(state, "Q-R", SWAP_OFFICES)
    state.plate[A] = (PLUS3,)
    state.play(EndTurn())
    assert state.phase == Phase.MARKERS and state.decider == A and state.current == A
    assert marker_routes(state) == {"P-S", "R-T", "S-U", "T-V", "V-K"}
    refuse(state, PlaceMarker("K-Y"))
    refuse(state, PlaceMarker("P-Q"))
    refuse(state, PlaceMarker("Q-R"))
    state.play(PlaceMarker("P-S"))
    assert state.route_marker[route_index(state, "P-S")] == PLUS3
    assert state.plate[A] == ()
    assert state.markers_on_board() == 2
    assert state.phase == Phase.ACTIONS and state.current == B


def test_s102_has_office_option():
    """102. With `opt.markerCityRule=hasOffice`: route whose endpoints are empty cities (no offices) -> illegal; route whose completed city has offices -> legal."""
    state = fixture(marker_city_rule="hasOffice")
    for i, p in enumerate((B, C, B, C)):
        support.set_office(state, "K", i, p)
    support.set_office(state, "Y", 0, C)
    state.plate[A] = (IMPROVE,)
    state.play(EndTurn())
    assert state.phase == Phase.MARKERS
    assert marker_routes(state) == {"V-K", "K-Y"}
    refuse(state, PlaceMarker("P-Q"))
    state.play(PlaceMarker("K-Y"))
    assert state.route_marker[route_index(state, "K-Y")] == IMPROVE
    assert state.current == B


def test_s103_two_plate_markers_two_routes():
    """103. A claimed two marker routes this turn -> 2 markers placed at end of turn on 2 different routes."""
    state = fixture()
    support.set_marker(state, "P-Q", PLUS3)
    support.set_marker(state, "Q-R", PLUS4)
    support.fill_route(state, "P-Q", A)
    support.fill_route(state, "Q-R", A)
    first, second = state.marker_supply[-1], state.marker_supply[-2]
    state.play(Claim("P-Q"))
    state.play(Claim("Q-R"))
    assert state.plate[A] == (first, second)
    assert state.markers_on_board() == 0
    state.play(EndTurn())
    assert state.phase == Phase.MARKERS
    state.play(PlaceMarker("R-T"))
    assert state.phase == Phase.MARKERS and state.current == A and state.plate[A] == (second,)
    refuse(state, PlaceMarker("R-T"))
    state.play(PlaceMarker("S-U"))
    assert state.route_marker[route_index(state, "R-T")] == first
    assert state.route_marker[route_index(state, "S-U")] == second
    assert state.plate[A] == ()
    assert state.phase == Phase.ACTIONS and state.current == B


def test_s104_three_markers_at_start_of_every_turn():
    """104. Start of every turn (game running) -> exactly 3 markers on the board."""
    state = support.new_state(3)
    taverns = ["OSN-BRE", "LUN-PER", "GOS-HIL"]
    for p, route in zip((A, B, C), taverns, strict=True):
        assert state.current == p and state.actions_used == 0
        assert state.markers_on_board() == 3
        support.fill_route(state, route, p)
        state.play(Claim(route))
        assert state.markers_on_board() == 2 and len(state.plate[p]) == 1
        state.play(EndTurn())
        assert state.phase == Phase.MARKERS
        state.play(next(m for m in state.legal_moves() if isinstance(m, PlaceMarker)))
        assert state.plate[p] == ()
    assert state.current == A and not state.is_over
    assert state.markers_on_board() == 3


def test_s105_replacement_revealed_only_when_placed():
    """105. A replacement is revealed only when placed; A does not learn its type earlier."""
    state = fixture()
    state.marker_supply[-1] = PLUS3  # the next replacement happens to be a +3
    support.set_marker(state, "V-K", IMPROVE)
    support.fill_route(state, "V-K", A)
    state.play(Claim("V-K"))
    assert state.plate[A] == (PLUS3,)
    assert state.markers[A] == (IMPROVE,)  # the plate marker is not A's
    assert state.markers_on_board() == 0
    refuse(state, UseMarker("+3"))
    state.play(EndTurn())
    state.play(PlaceMarker("P-Q"))
    assert state.route_marker[route_index(state, "P-Q")] == PLUS3
    assert final_scores(state)[A].markers == 1
