"""Focused rule tests for docs/rule-scenarios.md §7.12 (game end, scenarios 106-113) and §7.13 (final scoring, 114-121).

Scenarios 106-108 need an office that is at once a coin office, the last free office of a city and the link
that closes the East-West chain.  No city of either printed side is all three (every coin city is a dead end
off the Arnheim-Stendal paths), so they use END, a small custom board built here: East-West cities W and E
joined through Y (one square white coin office), X next to Y, and filler cities F0..F8.
"""

from __future__ import annotations

from typing import Any

import pytest

import support
from hansa.core.board import Board
from hansa.core.constants import (
    ACTIONS,
    BAGS,
    BOOK,
    EXTRA_OFFICE,
    IMPROVE,
    KEYS,
    MERCHANT,
    PLUS3,
    PLUS4,
    PRIVILEGE,
    REMOVE3,
    SWAP_OFFICES,
    TRADER,
    piece_code,
)
from hansa.core.errors import GameOverError
from hansa.core.moves import Claim, Displace, Done, EndTurn, Place, Relocate, UseMarker
from hansa.core.scoring import final_scores, winners
from hansa.core.state import GameState, Phase
from support import A, B, C, refuse

AT, AM = piece_code(A, TRADER), piece_code(A, MERCHANT)
BM = piece_code(B, MERCHANT)
FREE = -1


def _o(coin: bool = False) -> dict[str, Any]:
    return {"privilege": "white", "shape": "square", "coin": coin}


END_DATA: dict[str, Any] = {
    "cities": [
        {"name": "W", "offices": [_o()], "ability": None},
        {"name": "E", "offices": [_o(), _o()], "ability": None},
        {"name": "Y", "offices": [_o(coin=True)], "ability": None},
        {"name": "X", "offices": [_o(), _o()], "ability": None},
    ]
    + [{"name": f"F{i}", "offices": [_o()], "ability": None} for i in range(9)],
    "routes": [
        {"cities": ["W", "Y"], "spaces": 2},
        {"cities": ["Y", "E"], "spaces": 2},
        {"cities": ["X", "Y"], "spaces": 3},
        {"cities": ["X", "F0"], "spaces": 2},
    ]
    + [{"cities": [f"F{i}", f"F{i + 1}"], "spaces": 2} for i in range(8)],
    "taverns": [],
    "coellen_table": [],
    "east_west": ["W", "E"],
}


# ---------------------------------------------------------------------------------------------- helpers


def end_board_state() -> GameState:
    return support.new_state(3, board=Board("end-fixture", END_DATA))


def fixture() -> GameState:
    return support.new_state(3, board=support.fixture_board())


def city(state: GameState, code: str) -> int:
    return state.board.city_index[code]


def office_codes(state: GameState, code: str) -> list[int]:
    c = state.board.cities[city(state, code)]
    return state.offices[c.office_base : c.office_base + len(c.offices)]


def assert_over(state: GameState, triggers: tuple[str, ...]) -> None:
    """The game has ended: nobody decides, no move is legal or accepted."""
    assert state.is_over and state.phase == Phase.OVER
    assert state.end_triggers == triggers
    assert state.legal_moves() == []
    assert state.decider == -1
    assert all(pl == () for pl in state.plate)
    for move in (EndTurn(), UseMarker("+3")):
        refuse(state, move, error=GameOverError)


# ---------------------------------------------------------------------------------------------- 7.12 game end


def test_s106_other_player_reaches_20_claim_finishes_then_game_ends():
    """106. B at 19 PP controls X; A claims X-Y (first of A's 3 actions) -> B 20; A still finishes the claim (office, coin, East-West); then the game ends; A's 2 other actions are lost; plate markers discarded."""
    state = end_board_state()
    support.set_office(state, "W", 0, A)
    support.set_office(state, "E", 0, A)
    support.set_office(state, "X", 0, B)
    state.score[B] = 19
    support.set_level(state, A, ACTIONS, 1)  # 3 actions
    support.set_marker(state, "X-Y", PLUS3)
    support.fill_route(state, "X-Y", A)
    assert state.completed == 1  # W
    move = Claim("X-Y", "office", "Y")
    assert move in state.legal_moves()
    state.play(move)
    assert state.score == [1 + 7, 20, 0]  # A: coin + East-West, after B's step-a point
    assert office_codes(state, "Y") == [AT]
    assert state.completed == 2
    assert state.ew_paid == [A]
    assert state.markers[A] == (PLUS3,)  # kept (scores), but unusable
    assert state.discarded == 1  # the replacement drawn in this claim was discarded, not placed
    assert state.markers_on_board() == 0
    assert state.actions_used == 1 and state.current == A
    assert_over(state, ("score",))
    refuse(state, Place("X-F0:1", "T"), error=GameOverError)


def test_s107_claimant_keeps_scoring_past_20_within_the_action():
    """107. A at 18 controls X and Y, claims X-Y -> 20; establishes on a coin office -> 21; completes East-West first -> 28; game ends after the action with 28."""
    # An office that closes the chain must be in a city where A had no office yet, so A cannot control both
    # X and Y here: A starts at 19 and controls X (step a -> 20), then coin (21) and East-West (28).
    state = end_board_state()
    support.set_office(state, "W", 0, A)
    support.set_office(state, "E", 0, A)
    support.set_office(state, "X", 0, A)
    state.score[A] = 19
    support.fill_route(state, "X-Y", A)
    state.play(Claim("X-Y", "office", "Y"))
    assert state.score[A] == 28
    assert state.ew_paid == [A]
    assert_over(state, ("score",))
    assert final_scores(state)[A].in_game == 28


def test_s108_tenth_city_completed_coin_and_east_west_still_apply():
    """108. A's office completes the 10th city -> coin and East-West still apply; game ends after the action."""
    state = end_board_state()
    support.set_office(state, "W", 0, A)
    support.set_office(state, "E", 0, A)
    support.set_office(state, "E", 1, B)
    support.set_office(state, "X", 0, B)
    support.set_office(state, "X", 1, B)
    for i in range(6):
        support.set_office(state, f"F{i}", 0, C)
    support.fill_route(state, "X-Y", A)
    assert state.completed == 9
    state.play(Claim("X-Y", "office", "Y"))
    assert state.completed == 10
    assert state.score == [1 + 7, 1, 0]  # A: coin + East-West; B: step a for X
    assert state.ew_paid == [A]
    assert_over(state, ("cities",))


def test_s109_empty_supply_draw_ends_game_marker_kept():
    """109. Supply empty; A claims a route with a marker -> A keeps the marker (scores at end, cannot be used); draw fails -> game ends after the action."""
    state = fixture()
    state.marker_supply.clear()
    support.set_marker(state, "V-K", PLUS3)
    support.fill_route(state, "V-K", A)
    state.play(Claim("V-K", "office", "K"))
    assert office_codes(state, "K")[0] == AT and state.score[A] == 1  # the claim was finished (coin)
    assert state.markers[A] == (PLUS3,) and state.used_markers[A] == ()
    assert state.plate[A] == ()
    assert state.actions_used == 1
    assert_over(state, ("markers",))
    refuse(state, Place("P-S:1", "T"), error=GameOverError)  # A's second action is lost
    assert final_scores(state)[A].markers == 1


def test_s110_last_marker_drawn_game_continues_next_draw_ends():
    """110. Supply has 1 marker; A claims a marker route -> draws the last one -> game continues; the next claim of a marker route ends the game."""
    state = fixture()
    state.marker_supply[:] = [IMPROVE]
    support.set_marker(state, "V-K", PLUS3)
    support.set_marker(state, "K-Y", PLUS4)
    support.fill_route(state, "V-K", A)
    support.fill_route(state, "K-Y", A)
    state.play(Claim("V-K"))
    assert state.plate[A] == (IMPROVE,) and state.marker_supply == []
    assert not state.is_over and state.phase == Phase.ACTIONS and state.end_triggers == ()
    state.play(Claim("K-Y"))
    assert state.markers[A] == (PLUS3, PLUS4)
    assert state.discarded == 1
    assert_over(state, ("markers",))


def test_s111_plate_marker_discarded_when_game_ends():
    """111. A claimed a marker route earlier this turn (replacement on plate); a later action triggers T1 -> the plate marker is discarded, not placed, not scored."""
    state = fixture()
    support.set_marker(state, "P-Q", PLUS3)
    support.fill_route(state, "P-Q", A)
    support.set_office(state, "V", 0, B)
    state.score[B] = 19
    support.fill_route(state, "V-K", A)
    state.play(Claim("P-Q"))
    assert len(state.plate[A]) == 1
    state.play(Claim("V-K"))
    assert state.score[B] == 20
    assert state.discarded == 1
    assert state.markers_on_board() == 0
    assert state.markers[A] == (PLUS3,)
    assert_over(state, ("score",))
    refuse(state, Place("P-S:1", "T"), error=GameOverError)
    assert final_scores(state)[A].markers == 1  # 2 markers would score 3


def test_s112_coellen_points_never_trigger_end():
    """112. A places a Merchant on the Coellen 11 space while at 15 PP -> no in-game PP; no trigger."""
    state = support.new_state(3)
    route = state.board.route_between("Coellen", "Warburg").code
    support.fill_route(state, route, A, "TTTM")
    support.set_level(state, A, PRIVILEGE, 3)
    state.score[A] = 15
    state.play(Claim(route, "table", "black"))
    assert state.table[3] == AM
    assert state.score[A] == 15
    assert not state.is_over and state.end_triggers == ()
    assert state.phase == Phase.ACTIONS and state.current == A and state.actions_left() == 1
    s = final_scores(state)[A]
    assert s.in_game == 15 and s.coellen == 11


def test_s113_displacement_never_ends_game():
    """113. A displacement action in the base game never triggers the end (no scoring in it)."""
    state = fixture()
    state.score[B] = 19
    for code in ("P", "Q", "R", "S", "T", "U", "V", "Y"):
        support.set_office(state, code, 0, C)
    support.put(state, "P-Q:1", B)
    support.put(state, "Q-R:1", B)
    support.set_marker(state, "Q-R", SWAP_OFFICES)
    supply = list(state.marker_supply)
    state.play(Displace("P-Q:1", "T", "T"))
    assert state.phase == Phase.RELOCATE and state.decider == B
    state.play(Relocate("Q-R:2", "T"), B)  # fills Q-R with B's pieces: no claim
    state.play(Done(), B)
    assert state.phase == Phase.ACTIONS and state.current == A and not state.is_over
    assert state.end_triggers == ()
    assert state.score == [0, 19, 0]
    assert state.route_marker[state.board.route("Q-R").index] == SWAP_OFFICES
    assert state.markers[B] == () and state.marker_supply == supply
    assert state.piece_at("Q-R:1") == (B, "T") and state.piece_at("Q-R:2") == (B, "T")


# ---------------------------------------------------------------------------------------------- 7.13 final scoring


@pytest.mark.parametrize(
    "count,points",
    [(0, 0), (1, 1), (2, 3), (3, 3), (4, 6), (5, 6), (6, 10), (7, 10), (8, 15), (9, 15), (10, 21), (12, 21)],
)
def test_s114_marker_points_table(count: int, points: int):
    """114. Markers held 0/1/2/3/4/5/6/7/8/9/10/12 -> 0/1/3/3/6/6/10/10/15/15/21/21 PP."""
    state = support.new_state(3)
    kinds = [EXTRA_OFFICE, SWAP_OFFICES, PLUS3, PLUS4, IMPROVE, REMOVE3] * 2
    state.markers[A] = tuple(kinds[: count // 2])  # unused
    state.used_markers[A] = tuple(kinds[count // 2 : count])  # used
    state.plate[A] = (PLUS3, PLUS4)  # plate markers never count
    assert final_scores(state)[A].markers == points
    assert final_scores(state)[B].markers == 0


def test_s115_fully_developed_abilities_keys_excluded():
    """115. A maxed Actions, Money bags and Keys -> 8 PP (Keys excluded)."""
    state = support.new_state(3)
    support.set_level(state, A, ACTIONS, 5)
    support.set_level(state, A, BAGS, 3)
    support.set_level(state, A, KEYS, 4)
    support.set_level(state, A, PRIVILEGE, 2)  # one short of the maximum
    support.set_level(state, A, BOOK, 2)
    assert final_scores(state)[A].abilities == 8
    support.set_level(state, B, PRIVILEGE, 3)
    support.set_level(state, B, BOOK, 3)
    assert final_scores(state)[B].abilities == 8
    assert final_scores(state)[C].abilities == 0


def test_s116_network_counts_offices_of_best_component():
    """116. A component 1: 3 cities x 1 office = 3; component 2: 2 cities x 2 offices = 4 -> network 4 x Keys."""
    state = fixture()
    for code in ("P", "Q", "R"):
        support.set_office(state, code, 0, A)
    support.set_office(state, "K", 0, A, "T")
    support.set_office(state, "K", 1, A, "M")
    support.set_office(state, "Y", 0, A)
    support.add_extra_office(state, "Y", A)
    support.set_level(state, A, KEYS, 1)  # value 2
    assert sorted(n for _, n in state.network_components(A)) == [3, 4]
    assert final_scores(state)[A].network == 8


def test_s117_six_offices_keys_three():
    """117. A has 6 offices in one component, Keys 3 -> 18 PP."""
    state = fixture()
    for i in range(4):
        support.set_office(state, "K", i, A, "M" if i == 1 else "T")
    support.set_office(state, "Y", 0, A)
    support.set_office(state, "V", 0, A)
    support.set_level(state, A, KEYS, 3)  # value 3
    assert [n for _, n in state.network_components(A)] == [6]
    assert final_scores(state)[A].network == 18


def test_s118_unconnected_cities_are_separate_components():
    """118. A's offices in two cities not joined by any route -> separate components."""
    state = fixture()
    support.set_office(state, "P", 0, A)
    support.set_office(state, "R", 0, A)
    support.set_level(state, A, KEYS, 1)  # value 2
    assert len(state.network_components(A)) == 2
    assert final_scores(state)[A].network == 2  # 1 office x 2
    support.set_office(state, "Q", 0, A)  # Q joins them (P-Q, Q-R)
    assert [n for _, n in state.network_components(A)] == [3]
    assert final_scores(state)[A].network == 6


def test_s119_control_points_with_ties():
    """119. A controls 5 cities -> 10 PP; tied cities resolved by rightmost office."""
    state = fixture()
    for code in ("P", "Q", "R"):
        support.set_office(state, code, 0, A)
    support.set_office(state, "K", 0, B, "T")
    support.set_office(state, "K", 1, A, "M")
    support.set_office(state, "K", 2, B, "T")
    support.set_office(state, "K", 3, A, "T")  # 2-2, A rightmost
    support.set_office(state, "Y", 0, A)
    support.add_extra_office(state, "Y", B)  # 1-1, the printed office beats the extra office
    support.set_office(state, "S", 0, B)
    support.set_office(state, "T", 0, C)
    scores = final_scores(state)
    assert scores[A].control == 10
    assert scores[B].control == 2
    assert scores[C].control == 2


def test_s120_coellen_table_points():
    """120. A Merchants on Coellen 9 and 11 -> 20 PP."""
    state = support.new_state(3)
    state.table[:] = [BM, FREE, AM, AM]
    scores = final_scores(state)
    assert scores[A].coellen == 20
    assert scores[B].coellen == 7
    assert scores[C].coellen == 0


def _tie_position(tie_break: str, a_actions: int, b_actions: int, a_offices: int, b_offices: int) -> GameState:
    state = support.new_state(3, tie_break=tie_break)
    support.set_level(state, A, ACTIONS, a_actions)
    support.set_level(state, B, ACTIONS, b_actions)
    a_cities = [("MIN", 4), ("OSN", 3)]
    b_cities = [("ARN", 4), ("HAM", 3)]
    for owner, cities, n in ((A, a_cities, a_offices), (B, b_cities, b_offices)):
        for code, size in cities:
            for i in range(min(size, n)):
                support.set_office(state, code, i, owner)
            n -= min(size, n)
    state.score[A] = 30
    scores = final_scores(state)
    # Equal totals: B's in-game score makes up the difference.
    state.score[B] = scores[A].total - (scores[B].total - scores[B].in_game)
    assert state.score[B] >= 0
    scores = final_scores(state)
    assert scores[A].total == scores[B].total > scores[C].total
    assert state.office_count(A) == a_offices and state.office_count(B) == b_offices
    return state


def test_s121_tie_breaks():
    """121. Tie on total: A Actions 3, B Actions 4 -> A wins. Both 4; A 7 offices, B 6 -> A wins. Same offices -> shared. With `opt.tieBreak=SHARED` -> shared immediately."""
    # Fewer actions per turn wins (A value 3 at level 1; B value 4 at level 3).
    state = _tie_position("PT", 1, 3, 0, 0)
    assert winners(state) == [A]
    # Both value 4 (A at level 4, B at level 3: the value counts, not the track position) -> more offices.
    state = _tie_position("PT", 4, 3, 7, 6)
    assert winners(state) == [A]
    state = _tie_position("PT", 3, 4, 6, 7)
    assert winners(state) == [B]
    # Same offices too -> shared.
    state = _tie_position("PT", 4, 3, 6, 6)
    assert winners(state) == [A, B]
    # SHARED: every tie is shared at once.
    state = _tie_position("SHARED", 1, 3, 0, 0)
    assert winners(state) == [A, B]
    state = _tie_position("SHARED", 4, 3, 7, 6)
    assert winners(state) == [A, B]
