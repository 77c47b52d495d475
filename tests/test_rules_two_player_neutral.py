"""Focused rule tests for docs/rules.md §5.A / docs/rule-scenarios.md §7.14 (two-player variant A, neutral traders,
scenarios 122-128) and the open questions Q-2P-1 .. Q-2P-6 and Q-2P-10 of docs/rules-decisions.md, on the real 2-3 board.

Setup (default options) puts one neutral Trader on the middle house of GRO-EMD, STA-HAM, LUB-HAM, GOE-QUE,
HAL-QUE, COE-WAR and the three tavern routes OSN-BRE, LUN-PER, GOS-HIL (docs/rules.md §A).
Most neutral claims are built around Arnheim-Duisburg (ARN-DUI[3]), whose distance-1 routes are KAM-ARN,
ARN-MUN and DUI-DOR[2].
"""

from __future__ import annotations

from typing import Any

import pytest

import support
from hansa.core.constants import NEUTRAL, REMOVE3, SWAP_OFFICES, TRADER, piece_code
from hansa.core.errors import GameOverError, WrongPlayerError
from hansa.core.invariants import InvariantError, check_invariants
from hansa.core.moves import (
    Claim,
    Displace,
    Done,
    Drop,
    EndTurn,
    Lift,
    NeutralOffice,
    Place,
    PlaceMarker,
    Relocate,
    Remove,
    Shift,
    Swap,
    TakeExtra,
    UseMarker,
)
from hansa.core.scoring import final_scores, winners
from hansa.core.state import GameState, Phase
from support import A, B, changed, house_changes, refuse, snapshot

N = NEUTRAL
NT = piece_code(NEUTRAL, TRADER)
AT = piece_code(A, TRADER)
BT = piece_code(B, TRADER)
FREE = -1

SETUP_ROUTES = {"GRO-EMD", "STA-HAM", "LUB-HAM", "GOE-QUE", "HAL-QUE", "COE-WAR", "OSN-BRE", "LUN-PER", "GOS-HIL"}


# ---------------------------------------------------------------------------------------------- helpers


def city(state: GameState, code: str) -> int:
    return state.board.city_index[code]


def office_owners(state: GameState, code: str) -> list[int]:
    return state.office_owners(city(state, code))


def rindex(state: GameState, code: str) -> int:
    return state.board.route(code).index


def houses_of(state: GameState, *routes: str) -> set[str]:
    return {h for r in routes for h in support.route_houses(state, r)}


def free_houses_of(state: GameState, *routes: str) -> set[str]:
    return {h for h in houses_of(state, *routes) if state.piece_at(h) is None}


def relocate_targets(state: GameState) -> set[str]:
    return {m.house for m in state.legal_moves() if isinstance(m, Relocate)}


def neutral_houses(state: GameState) -> set[str]:
    return {state.board.house_names[h] for h, code in enumerate(state.houses) if code == NT}


def neutrals_on(state: GameState, route: str) -> int:
    return sum(1 for h in support.route_houses(state, route) if state.piece_at(h) == (N, "T"))


def new2(**options: Any) -> GameState:
    return support.new_state(2, 0, **options)


def arn_dui_position(**options: Any) -> GameState:
    """Neutral Trader on ARN-DUI:2 (to be displaced) and on DUI-DOR:1; KAM-ARN full of B's Traders; ARN-MUN:1-2
    B's, ARN-MUN:3 free.  The distance-1 free houses of ARN-DUI are DUI-DOR:2 and ARN-MUN:3.  A Sup{2,0}."""
    state = new2(**options)
    support.put(state, "ARN-DUI:2", N)
    support.put(state, "DUI-DOR:1", N)
    support.fill_route(state, "KAM-ARN", B)
    support.put(state, "ARN-MUN:1", B)
    support.put(state, "ARN-MUN:2", B)
    support.set_pools(state, A, sup=(2, 0))
    return state


def complete_nine_cities(state: GameState) -> None:
    """9 completed cities, all B's: Dortmund (Merchant, Trader) and eight one/two-office cities elsewhere."""
    support.set_office(state, "DOR", 0, B, "M")
    support.set_office(state, "DOR", 1, B)
    for code in ("BRE", "STA", "LUN", "BRA", "GOS"):
        support.set_office(state, code, 0, B)
    for code in ("EMD", "HAN", "HIL"):
        support.set_office(state, code, 0, B)
        support.set_office(state, code, 1, B)
    assert state.completed == 9


def displace_neutral(state: GameState, house: str) -> None:
    move = Displace(house, "T", "T")
    assert move in state.legal_moves()
    state.play(move)
    assert state.phase == Phase.RELOCATE
    assert state.decider == B and state.current == A
    assert state.piece_at(house) == (A, "T")


# ---------------------------------------------------------------------------------------------- §7.14


def test_s122_setup_neutral_traders():
    """122. Setup -> one neutral Trader on every route touching Groningen, Stade, Luebeck, Goettingen, Halle, Coellen and on the 3 tavern routes (one per route)."""
    state = new2()
    board = state.board
    ability_or_coellen = {"GRO", "STA", "LUB", "GOE", "HAL", "COE"}
    expected = {r.code for r in board.routes if {board.cities[c].code for c in r.cities} & ability_or_coellen}
    expected |= {board.routes[r].code for r in board.tavern_order}
    assert expected == SETUP_ROUTES
    assert board.side == "2-3"
    for r in board.routes:
        pieces = [state.piece_at(h) for h in support.route_houses(state, r.code)]
        if r.code in SETUP_ROUTES:
            assert pieces.count((N, "T")) == 1, r.code
            assert pieces.count(None) == r.spaces - 1, r.code
        else:
            assert pieces == [None] * r.spaces, r.code
    assert len(neutral_houses(state)) == 9
    # the tavern markers lie on the tavern routes; nothing else changed for the real players
    assert {board.routes[r].code for r, m in enumerate(state.route_marker) if m >= 0} == {"OSN-BRE", "LUN-PER", "GOS-HIL"}
    assert support.pools(state, A) == ((5, 1), (6, 0))
    assert support.pools(state, B) == ((6, 1), (5, 0))
    assert all(code == FREE for code in state.offices)
    assert state.phase == Phase.ACTIONS and state.decider == A
    assert state.score == [0, 0] and state.completed == 0


def test_s123_displace_neutral_trader():
    """123. A displaces a neutral Trader (Sup{2,0}) -> A pays 1; B places that neutral + 1 more neutral on adjacent routes (distance rule)."""
    state = new2()
    support.set_pools(state, A, sup=(2, 0))
    target = "GOE-QUE:2"
    assert state.piece_at(target) == (N, "T")
    assert Displace(target, "T", "T") in state.legal_moves()
    assert Displace(target, "M", "T") not in state.legal_moves()  # A has no Merchant
    refuse(state, Displace(target, "T", "TT"))  # a neutral Trader costs exactly 1
    (_, (a_stk_t, _)) = support.pools(state, A)
    b_pools = support.pools(state, B)
    before = snapshot(state)
    state.play(Displace(target, "T", "T"))
    assert changed(before, state) == {"houses", "sup_t", "stk_t", "actions_used", "phase", "hand", "decider"}
    assert house_changes(before, state) == {target: ((N, "T"), (A, "T"))}
    assert support.pools(state, A) == ((0, 0), (a_stk_t + 1, 0))
    assert state.actions_used == 1
    assert state.phase == Phase.RELOCATE and state.decider == B and state.current == A
    assert state.hand == (TRADER, TRADER)  # the displaced neutral + the compulsory extra
    # distance rule: the distance-1 routes of GOE-QUE are GOS-QUE and HAL-QUE (both have free houses)
    expected = free_houses_of(state, "GOS-QUE", "HAL-QUE")
    assert len(expected) == 7
    assert relocate_targets(state) == expected
    assert not any(isinstance(m, (TakeExtra, Done)) for m in state.legal_moves())
    refuse(state, Relocate("GOS-HIL:1", "T"), B)  # distance 2
    refuse(state, Relocate("GOE-QUE:1", "T"), B)  # the route it was displaced from
    refuse(state, Relocate("HAL-QUE:2", "T"), B)  # occupied
    refuse(state, Relocate("HAL-QUE:1", "T"), A, WrongPlayerError)  # B decides for the neutral
    before = snapshot(state)
    state.play(Relocate("HAL-QUE:1", "T"), B)
    assert changed(before, state) == {"houses", "hand"}
    assert house_changes(before, state) == {"HAL-QUE:1": (None, (N, "T"))}
    assert state.hand == (TRADER,) and state.phase == Phase.RELOCATE and state.decider == B
    assert relocate_targets(state) == free_houses_of(state, "GOS-QUE", "HAL-QUE")
    before = snapshot(state)
    state.play(Relocate("GOS-QUE:1", "T"), B)
    assert changed(before, state) == {"houses", "hand", "phase", "decider"}
    assert house_changes(before, state) == {"GOS-QUE:1": (None, (N, "T"))}
    assert state.phase == Phase.ACTIONS and state.decider == A and state.hand == ()
    assert state.actions_used == 1
    assert support.pools(state, B) == b_pools  # B's own pieces are never used for the neutral
    assert len(neutral_houses(state)) == 10  # 9 - 1 displaced + 2 relocated
    assert state.score == [0, 0]


def test_s124_relocation_fills_route_neutral_claim():
    """124. B's relocation fills X-Y[2] with neutral pieces -> claimed immediately: real controllers +1; A chooses X or Y; neutral takes the leftmost free office regardless of colour/shape; other neutral pieces to the pool."""
    state = arn_dui_position()
    support.add_extra_office(state, "DUI", A)  # A controls Duisburg (printed office still free)
    support.add_extra_office(state, "DOR", B)  # B controls Dortmund (printed offices still free)
    displace_neutral(state, "ARN-DUI:2")
    assert relocate_targets(state) == {"DUI-DOR:2", "ARN-MUN:3"}
    before = snapshot(state)
    state.play(Relocate("DUI-DOR:2", "T"), B)
    assert state.score == [1, 1]  # step (a) for the real controllers of Duisburg and Dortmund
    assert state.phase == Phase.NEUTRAL_OFFICE
    assert state.decider == A and state.current == A  # the active player chooses the city
    assert set(state.legal_moves()) == {NeutralOffice("DUI"), NeutralOffice("DOR")}
    assert state.offices == list(before["offices"])  # no office yet
    refuse(state, NeutralOffice("ARN"))  # not a city of DUI-DOR
    refuse(state, NeutralOffice("DOR"), B, WrongPlayerError)
    refuse(state, EndTurn())
    refuse(state, Done())
    state.play(NeutralOffice("DOR"))
    # Dortmund's leftmost free printed office is a white circle: the neutral cube takes it (shape ignored)
    assert state.board.city("DOR").offices[0].round
    assert office_owners(state, "DUI") == [FREE]
    assert office_owners(state, "DOR") == [N, FREE]
    assert state.offices[state.board.office_index(city(state, "DOR"), 0)] == NT
    assert state.controller(city(state, "DOR")) == N  # 1-1 tie, the neutral's printed office is rightmost
    assert state.controller(city(state, "DUI")) == A
    assert state.completed == 0
    assert state.ew_paid == []
    # every other neutral piece of DUI-DOR went back to the pool (not an ability route)
    assert [state.piece_at(h) for h in ("DUI-DOR:1", "DUI-DOR:2")] == [None, None]
    assert state.phase == Phase.RELOCATE and state.decider == B and state.hand == (TRADER,)
    assert relocate_targets(state) == {"DUI-DOR:1", "DUI-DOR:2", "ARN-MUN:3"}
    state.play(Relocate("ARN-MUN:3", "T"), B)
    assert changed(before, state) == {"houses", "offices", "score", "phase", "hand", "decider"}
    assert house_changes(before, state) == {
        "DUI-DOR:1": ((N, "T"), None),
        "ARN-MUN:3": (None, (N, "T")),
    }
    assert state.score == [1, 1]
    assert state.phase == Phase.ACTIONS and state.decider == A and state.actions_used == 1
    assert support.pools(state, A) == ((0, 0), (7, 0))
    assert support.pools(state, B) == ((6, 1), (5, 0))


def test_s125_neutral_claim_discards_marker_replacement_to_active_plate():
    """125. That neutral route carried a marker -> marker discarded; a replacement goes to A's plate; at A's end of turn A places it and adds a neutral Trader on that route."""
    state = new2()
    gh = rindex(state, "GOS-HIL")
    tavern_marker = state.route_marker[gh]
    assert tavern_marker >= 0
    support.put(state, "GOS-HIL:1", N)  # GOS-HIL:2 holds the setup neutral, GOS-HIL:3 is free
    support.put(state, "PAD-HIL:2", N)
    support.set_pools(state, A, sup=(2, 0))
    supply = list(state.marker_supply)
    displace_neutral(state, "PAD-HIL:2")
    assert "GOS-HIL:3" in relocate_targets(state)
    before = snapshot(state)
    state.play(Relocate("GOS-HIL:3", "T"), B)
    assert state.route_marker[gh] == FREE
    assert state.neutral_discards == 1
    assert state.markers == [(), ()] and state.used_markers == [(), ()]  # discarded, nobody gets it
    assert state.plate[A] == (supply[-1],) and state.plate[B] == ()
    assert state.marker_supply == supply[:-1]
    assert state.markers_on_board() == 2
    assert state.phase == Phase.NEUTRAL_OFFICE and state.decider == A
    assert set(state.legal_moves()) == {NeutralOffice("GOS"), NeutralOffice("HIL")}
    state.play(NeutralOffice("HIL"))
    assert office_owners(state, "HIL") == [N, FREE]
    assert state.phase == Phase.RELOCATE and state.decider == B
    assert support.route_houses(state, "GOS-HIL") and free_houses_of(state, "GOS-HIL") == houses_of(state, "GOS-HIL")
    state.play(Relocate("MIN-PAD:1", "T"), B)
    assert changed(before, state) == {
        "houses", "route_marker", "offices", "marker_supply", "plate", "phase", "hand", "decider", "neutral_discards",
    }
    assert house_changes(before, state) == {
        "GOS-HIL:1": ((N, "T"), None),
        "GOS-HIL:2": ((N, "T"), None),
        "MIN-PAD:1": (None, (N, "T")),
    }
    assert state.phase == Phase.ACTIONS and state.current == A and state.actions_used == 1
    assert state.score == [0, 0]
    # end of A's turn: the replacement marker is placed, then a neutral Trader joins that route
    state.play(EndTurn())
    assert state.phase == Phase.MARKERS and state.decider == A
    options = {m.route for m in state.legal_moves() if isinstance(m, PlaceMarker)}
    assert "MUN-MIN" in options and "GOS-HIL" in options
    assert "MIN-PAD" not in options and "OSN-BRE" not in options
    refuse(state, PlaceMarker("MIN-PAD"))  # not empty (neutral piece)
    refuse(state, PlaceMarker("OSN-BRE"))  # already has a marker
    before = snapshot(state)
    state.play(PlaceMarker("MUN-MIN"))
    assert state.route_marker[rindex(state, "MUN-MIN")] == supply[-1]
    assert state.plate == [(), ()]
    assert neutrals_on(state, "MUN-MIN") == 1
    assert len(free_houses_of(state, "MUN-MIN")) == 2
    assert set(house_changes(before, state)) <= houses_of(state, "MUN-MIN")
    assert len(house_changes(before, state)) == 1
    assert state.markers_on_board() == 3
    assert state.phase == Phase.ACTIONS and state.current == B and state.decider == B
    assert state.actions_used == 0 and state.turn == 2
    assert changed(before, state) == {"houses", "route_marker", "plate", "current", "turn", "actions_used", "phase", "decider"}


def test_s126_neutral_office_completes_tenth_city_during_displacement():
    """126. Neutral's office fills the 10th city during A's displacement -> relocation finishes, then game ends; A's remaining actions lost."""
    state = arn_dui_position()
    complete_nine_cities(state)
    displace_neutral(state, "ARN-DUI:2")
    assert state.actions_used == 1 and state.allowance() == 2
    before = snapshot(state)
    state.play(Relocate("DUI-DOR:2", "T"), B)
    # only Duisburg has a free office: the neutral office is placed at once and completes the 10th city
    assert office_owners(state, "DUI") == [N]
    assert state.completed == 10
    assert state.score == [0, 1]  # B controls Dortmund; Duisburg had no office
    # ... but the action goes on: the second neutral must still be relocated
    assert state.phase == Phase.RELOCATE and state.decider == B and state.hand == (TRADER,)
    assert not state.is_over
    assert relocate_targets(state) == {"DUI-DOR:1", "DUI-DOR:2", "ARN-MUN:3"}
    state.play(Relocate("ARN-MUN:3", "T"), B)
    assert state.is_over and state.phase == Phase.OVER and state.decider == -1
    assert state.end_triggers == ("cities",)
    assert state.legal_moves() == []
    assert state.actions_used == 1 and state.current == A  # A's second action is lost
    assert changed(before, state) == {"houses", "offices", "completed", "score", "phase", "hand", "decider", "end_triggers"}
    assert house_changes(before, state) == {"DUI-DOR:1": ((N, "T"), None), "ARN-MUN:3": (None, (N, "T"))}
    before_key = state.key()
    with pytest.raises(GameOverError):
        state.play(EndTurn())
    with pytest.raises(GameOverError):
        state.play(Place("GOS-QUE:1", "T"))
    assert state.key() == before_key


def test_s127_end_scoring_neutral_city_scores_nobody():
    """127. End scoring: city X neutral 2 offices, A 1 -> nobody gets 2 PP for X; neutral score never counted."""
    state = new2()
    support.set_office(state, "HAM", 0, N)
    support.set_office(state, "HAM", 1, N)
    support.set_office(state, "HAM", 2, A)
    assert state.controller(city(state, "HAM")) == N
    scores = final_scores(state)
    assert [s.player for s in scores] == [A, B]  # the neutral is not a scored player
    assert scores[A].control == 0 and scores[B].control == 0
    # A's own city still scores 2: only the neutral city gives nothing
    support.set_office(state, "BRE", 0, A)
    scores = final_scores(state)
    assert [s.player for s in scores] == [A, B]
    assert scores[A].control == 2 and scores[B].control == 0
    assert scores[A].network == 2  # HAM + BRE offices of A, Town keys 1
    assert scores[A].total == 4 and scores[B].total == 0
    assert winners(state, scores) == [A]


def test_s128_claim_next_to_neutral_controlled_city():
    """128. A claims a route where the neutral controls the adjacent city -> nobody gets that city's point."""
    state = new2()
    support.fill_route(state, "DUI-DOR", A)
    support.set_office(state, "DOR", 0, N)  # the neutral controls Dortmund
    support.set_office(state, "DUI", 0, B)  # B controls Duisburg
    assert state.controller(city(state, "DOR")) == N
    claims = {m for m in state.legal_moves() if isinstance(m, Claim)}
    # Duisburg is complete; Dortmund's next office is orange (A has white Privilege)
    assert claims == {Claim("DUI-DOR")}
    before = snapshot(state)
    state.play(Claim("DUI-DOR"))
    assert state.score == [0, 1]  # B for Duisburg; nothing for the neutral's Dortmund
    assert changed(before, state) == {"houses", "stk_t", "score", "actions_used"}
    assert house_changes(before, state) == {"DUI-DOR:1": ((A, "T"), None), "DUI-DOR:2": ((A, "T"), None)}
    assert support.pools(state, A) == ((5, 1), (8, 0))
    assert state.actions_used == 1 and state.phase == Phase.ACTIONS
    assert office_owners(state, "DOR") == [N, FREE]


# ---------------------------------------------------------------------------------------------- Q-2P (docs/rules-decisions.md) (variant A)


def test_q2p_1_real_controllers_score_on_neutral_claim():
    """Q-2P-1. Neutral claim: real controllers of the endpoint cities get step (a) points (yes)."""
    state = arn_dui_position()
    support.set_office(state, "DUI", 0, A)  # A controls Duisburg (complete)
    support.set_office(state, "DOR", 0, B, "M")  # B controls Dortmund
    displace_neutral(state, "ARN-DUI:2")
    before = snapshot(state)
    state.play(Relocate("DUI-DOR:2", "T"), B)
    assert state.score == [1, 1]
    # only Dortmund has a free office: placed without a choice, colour (orange) ignored
    assert state.phase == Phase.RELOCATE and state.decider == B
    assert office_owners(state, "DOR") == [B, N]
    assert state.board.city("DOR").offices[1].colour == "orange"
    assert state.completed == before["completed"] + 1  # Dortmund is now complete
    assert changed(before, state) == {"houses", "offices", "completed", "score", "hand"}
    assert free_houses_of(state, "DUI-DOR") == {"DUI-DOR:1", "DUI-DOR:2"}


def _stendal_braunschweig_claim() -> GameState:
    """Neutral offices in Arnheim, Muenster, Minden, Stendal (a chain that only lacks Braunschweig); STE-BRA:1-3
    neutral, STE-BRA:4 free; A displaces a neutral from STE-PER:2 and B fills STE-BRA."""
    state = new2()
    for code in ("ARN", "MUN", "MIN", "STE"):
        support.set_office(state, code, 0, N)
    for h in ("STE-BRA:1", "STE-BRA:2", "STE-BRA:3", "STE-PER:2"):
        support.put(state, h, N)
    support.set_pools(state, A, sup=(2, 0))
    displace_neutral(state, "STE-PER:2")
    assert "STE-BRA:4" in relocate_targets(state)
    state.play(Relocate("STE-BRA:4", "T"), B)
    return state


def test_q2p_2_neutral_office_completion_no_east_west_no_coin():
    """Q-2P-2. Neutral office: counts for completion; no East-West slot; no coin."""
    # completion + East-West: the neutral office in Braunschweig completes it and closes a Stendal-Arnheim chain
    state = _stendal_braunschweig_claim()
    assert state.phase == Phase.NEUTRAL_OFFICE and state.decider == A
    assert set(state.legal_moves()) == {NeutralOffice("STE"), NeutralOffice("BRA")}
    state.play(NeutralOffice("BRA"))
    assert office_owners(state, "BRA") == [N]
    assert state.completed == 1
    assert state.ew_paid == []  # the neutral takes no East-West slot
    assert state.score == [0, 0]
    assert state.phase == Phase.RELOCATE and state.decider == B
    # coin: Stade's only office shows a coin; the neutral takes it and nobody scores the coin point
    state = new2()
    for i in range(3):
        support.set_office(state, "HAM", i, B)  # Hamburg complete, controlled by B
    assert state.completed == 1
    support.put(state, "STA-HAM:1", N)  # STA-HAM:2 holds the setup neutral
    support.set_pools(state, A, sup=(2, 0))
    displace_neutral(state, "LUB-HAM:2")
    assert "STA-HAM:3" in relocate_targets(state)
    before = snapshot(state)
    state.play(Relocate("STA-HAM:3", "T"), B)
    assert state.board.city("STA").offices[0].coin
    assert office_owners(state, "STA") == [N]
    assert state.score == [0, 1]  # only B's control point for Hamburg, no coin point
    assert state.completed == 2
    assert state.ew_paid == []
    assert changed(before, state) == {"houses", "offices", "completed", "score", "hand"}


def test_q2p_3_extra_neutral_compulsory_by_default():
    """Q-2P-3. The extra neutral on relocation is compulsory (default); optional with neutral_extra_mandatory=False."""
    state = new2()
    support.set_pools(state, A, sup=(2, 0))
    displace_neutral(state, "GOE-QUE:2")
    assert state.hand == (TRADER, TRADER)
    assert not any(isinstance(m, (TakeExtra, Done)) for m in state.legal_moves())
    state.play(Relocate("HAL-QUE:1", "T"), B)
    refuse(state, Done(), B)  # the extra neutral must be placed too
    refuse(state, TakeExtra("T"), B)
    state.play(Relocate("HAL-QUE:3", "T"), B)
    assert state.phase == Phase.ACTIONS and state.decider == A
    assert len(neutral_houses(state)) == 10
    # optional extra
    opt = new2(neutral_extra_mandatory=False)
    support.set_pools(opt, A, sup=(2, 0))
    displace_neutral(opt, "GOE-QUE:2")
    assert opt.hand == (TRADER,)
    assert TakeExtra("T") in opt.legal_moves()
    assert TakeExtra("M") not in opt.legal_moves()
    refuse(opt, Done(), B)  # the displaced neutral itself must be placed
    opt.play(Relocate("HAL-QUE:1", "T"), B)
    assert opt.phase == Phase.RELOCATE and opt.decider == B and opt.hand == ()
    assert {TakeExtra("T"), Done()} <= set(opt.legal_moves())
    took = opt.copy()
    before = snapshot(opt)
    opt.play(Done(), B)  # decline the extra neutral
    assert changed(before, opt) == {"phase", "decider"}
    assert opt.phase == Phase.ACTIONS and opt.decider == A
    assert len(neutral_houses(opt)) == 9  # 9 - 1 + 1
    took.play(TakeExtra("T"), B)
    assert took.hand == (TRADER,)
    refuse(took, TakeExtra("T"), B)  # only one extra
    took.play(Relocate("GOS-QUE:2", "T"), B)
    assert took.phase == Phase.ACTIONS and took.decider == A
    assert len(neutral_houses(took)) == 10
    assert support.pools(took, B) == ((6, 1), (5, 0))


def test_q2p_4_coellen_routes_in_setup():
    """Q-2P-4. Coellen routes are included in the neutral setup (default); not with neutral_coellen=False."""
    state = new2()
    assert neutrals_on(state, "COE-WAR") == 1
    assert {state.board.route(state.board.house_names[h].split(":")[0]).code for h, c in enumerate(state.houses) if c == NT} == SETUP_ROUTES
    no_coellen = new2(neutral_coellen=False)
    assert neutrals_on(no_coellen, "COE-WAR") == 0
    assert free_houses_of(no_coellen, "COE-WAR") == houses_of(no_coellen, "COE-WAR")
    routes = {no_coellen.board.house_names[h].split(":")[0] for h, c in enumerate(no_coellen.houses) if c == NT}
    assert routes == SETUP_ROUTES - {"COE-WAR"}
    assert len(neutral_houses(no_coellen)) == 8


def _goettingen_claim(**options: Any) -> GameState:
    """GOE-QUE:1-2 neutral, GOE-QUE:3 free; A displaces the neutral of HAL-QUE:2 and B fills GOE-QUE."""
    state = new2(**options)
    support.put(state, "GOE-QUE:1", N)
    support.set_pools(state, A, sup=(2, 0))
    displace_neutral(state, "HAL-QUE:2")
    assert relocate_targets(state) == free_houses_of(state, "GOS-QUE", "GOE-QUE")
    state.play(Relocate("GOE-QUE:3", "T"), B)
    assert state.phase == Phase.NEUTRAL_OFFICE and state.decider == A
    assert set(state.legal_moves()) == {NeutralOffice("GOE"), NeutralOffice("QUE")}
    state.play(NeutralOffice("QUE"))
    # Quedlinburg's leftmost office is an orange circle: colour and shape ignored
    assert office_owners(state, "QUE") == [N, FREE]
    assert state.phase == Phase.RELOCATE and state.decider == B and state.hand == (TRADER,)
    return state


def test_q2p_5_one_neutral_stays_on_ability_route():
    """Q-2P-5. After a neutral claim one neutral Trader stays on an ability route (default); none with neutral_keep_on_ability_route=False."""
    state = _goettingen_claim()
    assert neutrals_on(state, "GOE-QUE") == 1
    assert len(free_houses_of(state, "GOE-QUE")) == 2
    state.play(Relocate("GOS-QUE:1", "T"), B)
    assert state.phase == Phase.ACTIONS
    assert neutrals_on(state, "GOE-QUE") == 1
    off = _goettingen_claim(neutral_keep_on_ability_route=False)
    assert neutrals_on(off, "GOE-QUE") == 0
    assert free_houses_of(off, "GOE-QUE") == houses_of(off, "GOE-QUE")
    off.play(Relocate("GOS-QUE:1", "T"), B)
    assert off.phase == Phase.ACTIONS
    assert neutrals_on(off, "GOE-QUE") == 0


def test_q2p_6_neutral_claim_compulsory():
    """Q-2P-6. A route filled with neutral pieces is claimed compulsorily, even when no office can be placed."""
    state = arn_dui_position()
    support.set_office(state, "DUI", 0, A)
    support.set_office(state, "DOR", 0, B, "M")
    support.set_office(state, "DOR", 1, B)
    completed = state.completed
    displace_neutral(state, "ARN-DUI:2")
    before = snapshot(state)
    state.play(Relocate("DUI-DOR:2", "T"), B)
    # claimed at once: points, route back to the pool, no office (both cities complete), no choice offered
    assert state.score == [1, 1]
    assert free_houses_of(state, "DUI-DOR") == {"DUI-DOR:1", "DUI-DOR:2"}
    assert state.offices == list(before["offices"]) and state.completed == completed
    assert state.phase == Phase.RELOCATE and state.decider == B and state.hand == (TRADER,)
    assert changed(before, state) == {"houses", "score", "hand"}
    assert house_changes(before, state) == {"DUI-DOR:1": ((N, "T"), None)}


def _swap_position(**options: Any) -> GameState:
    state = new2(**options)
    support.set_office(state, "HAM", 0, A)
    support.set_office(state, "HAM", 1, N)
    support.set_office(state, "HAM", 2, B)
    support.give_markers(state, A, SWAP_OFFICES)
    return state


def test_q2p_10_swap_with_neutral_office_needs_own():
    """Q-2P-10. Swap with a neutral office only if one office is the user's (default); with swap_needs_own=False two non-own offices may be swapped."""
    state = _swap_position()
    swaps = {m for m in state.legal_moves() if isinstance(m, Swap)}
    assert swaps == {Swap("HAM", 1)}  # A <-> neutral; neutral <-> B is not offered
    refuse(state, Swap("HAM", 2))
    before = snapshot(state)
    state.play(Swap("HAM", 1))
    assert office_owners(state, "HAM") == [N, A, B]
    assert changed(before, state) == {"offices", "markers", "used_markers"}
    assert state.markers[A] == () and state.used_markers[A] == (SWAP_OFFICES,)
    assert state.actions_used == 0 and state.score == [0, 0] and state.phase == Phase.ACTIONS
    # opt.swapNeedsOwn = false: neutral <-> B may be swapped too
    free = _swap_position(swap_needs_own=False)
    assert {m for m in free.legal_moves() if isinstance(m, Swap)} == {Swap("HAM", 1), Swap("HAM", 2)}
    before = snapshot(free)
    free.play(Swap("HAM", 2))
    assert office_owners(free, "HAM") == [A, B, N]
    assert free.controller(city(free, "HAM")) == N
    assert changed(before, free) == {"offices", "markers", "used_markers"}
    assert free.completed == 1 and free.score == [0, 0]


# ---------------------------------------------------------------------------------------------- other §5.A rules


def test_neutral_controlled_city_no_final_control_points():
    """§4.3/§5.A: a neutral-controlled city gives nobody final control points (tie won by the neutral's rightmost office)."""
    state = new2()
    support.set_office(state, "MIN", 0, A)
    support.set_office(state, "MIN", 1, N)
    assert state.controller(city(state, "MIN")) == N
    scores = final_scores(state)
    assert len(scores) == 2
    assert scores[A].control == 0 and scores[B].control == 0
    # the mirror image: A's office rightmost -> A controls and scores 2
    mirror = new2()
    support.set_office(mirror, "MIN", 0, N)
    support.set_office(mirror, "MIN", 1, A)
    assert mirror.controller(city(mirror, "MIN")) == A
    assert final_scores(mirror)[A].control == 2


def test_real_player_cannot_claim_route_with_neutral_piece():
    """§5.A: a real player can never claim a route that holds any neutral piece."""
    state = new2()
    support.put(state, "GOE-QUE:1", A)
    support.put(state, "GOE-QUE:3", A)  # GOE-QUE:2 holds the setup neutral: the route is full
    support.put(state, "DUI-DOR:1", A)
    support.put(state, "DUI-DOR:2", N)
    support.fill_route(state, "GOS-MAG", A)  # control: a full route of A's own is claimable
    claimed = {m.route for m in state.legal_moves() if isinstance(m, Claim)}
    assert claimed == {"GOS-MAG"}
    for route in ("GOE-QUE", "DUI-DOR"):
        refuse(state, Claim(route))
    refuse(state, Claim("GOE-QUE", "ability", "GOE"))
    refuse(state, Claim("GOE-QUE", "office", "GOE"))


def test_remove3_removes_neutral_pieces():
    """§3.3/§5.A: Remove 3 can remove neutral pieces (back to the pool)."""
    state = new2()
    support.give_markers(state, A, REMOVE3)
    state.play(UseMarker("remove3"))
    assert state.phase == Phase.REMOVE and state.decider == A
    removable = {m.house for m in state.legal_moves() if isinstance(m, Remove)}
    assert removable == neutral_houses(state)
    a_pools, b_pools = support.pools(state, A), support.pools(state, B)
    before = snapshot(state)
    state.play(Remove("GOE-QUE:2"))
    assert changed(before, state) == {"houses"}
    assert house_changes(before, state) == {"GOE-QUE:2": ((N, "T"), None)}
    state.play(Remove("COE-WAR:2"))
    state.play(Done())
    assert state.phase == Phase.ACTIONS and state.actions_used == 0
    assert state.piece_at("GOE-QUE:2") is None and state.piece_at("COE-WAR:2") is None
    assert len(neutral_houses(state)) == 7
    assert support.pools(state, A) == a_pools and support.pools(state, B) == b_pools
    assert state.markers[A] == () and state.used_markers[A] == (REMOVE3,)


def test_move_never_offers_neutral_pieces():
    """§2.5/§5.A: Move never lifts neutral pieces and never drops onto them."""
    state = new2()
    support.put(state, "DUI-DOR:1", A)
    lifts = {m.house for m in state.legal_moves() if isinstance(m, Lift)}
    assert lifts == {"DUI-DOR:1"}
    refuse(state, Lift("GOE-QUE:2"))
    state.play(Lift("DUI-DOR:1"))
    assert state.phase == Phase.MOVE and state.hand == (TRADER,)
    lifts = {m.house for m in state.legal_moves() if isinstance(m, Lift)}
    assert lifts == set()  # A has no other piece; neutral ones are never offered
    refuse(state, Lift("GOE-QUE:2"))
    drops = {m.house for m in state.legal_moves() if isinstance(m, Drop)}
    assert not drops & neutral_houses(state)
    refuse(state, Drop("GOE-QUE:2", "T"))
    before = snapshot(state)
    state.play(Drop("GOE-QUE:1", "T"))
    assert house_changes(before, state) == {"GOE-QUE:1": (None, (A, "T"))}
    assert state.piece_at("GOE-QUE:2") == (N, "T")
    assert state.phase == Phase.ACTIONS and state.actions_used == 1


# ---------------------------------------------------------------------------------------------- Move 3 shifts


def shift_position() -> GameState:
    """remove3_mode=move: DUI-DOR[2] holds a neutral Trader on DUI-DOR:1 and is free on DUI-DOR:2; A owns Move 3
    and controls Duisburg (extra office), B controls Dortmund (extra office); both cities keep free printed
    offices."""
    state = new2(remove3_mode="move")
    support.put(state, "DUI-DOR:1", N)
    support.add_extra_office(state, "DUI", A)
    support.add_extra_office(state, "DOR", B)
    support.give_markers(state, A, REMOVE3)
    state.play(UseMarker("remove3"))
    assert state.phase == Phase.REMOVE and state.rm_left == 3 and state.decider == A
    return state


def test_shift_of_a_neutral_piece_fills_route_neutral_claim():
    """§5.A (Move 3 may shift neutral pieces): a shifted neutral piece that fills a route makes the neutral claim
    at once, as after a relocation: control points, the active player chooses the city, the neutral takes its
    leftmost free office, the rest go back to the pool; then the shifts go on."""
    state = shift_position()
    shift = Shift("GOE-QUE:2", "DUI-DOR:2")
    assert shift in state.legal_moves()
    before = snapshot(state)
    state.play(shift)
    assert state.score == [1, 1]  # step (a): A controls Duisburg, B Dortmund
    assert state.phase == Phase.NEUTRAL_OFFICE and state.decider == A
    assert set(state.legal_moves()) == {NeutralOffice("DUI"), NeutralOffice("DOR")}
    refuse(state, Shift("COE-WAR:2", "DUI-DOR:2"))
    refuse(state, Done())
    refuse(state, NeutralOffice("DOR"), B, WrongPlayerError)
    state.play(NeutralOffice("DOR"))
    assert office_owners(state, "DOR") == [N, FREE]  # leftmost free office, a circle: shape ignored
    assert state.completed == 0
    assert [state.piece_at(h) for h in ("DUI-DOR:1", "DUI-DOR:2")] == [None, None]  # back to the pool
    assert state.phase == Phase.REMOVE and state.rm_left == 2 and state.decider == A
    assert any(isinstance(m, Shift) for m in state.legal_moves()) and Done() in state.legal_moves()
    assert changed(before, state) == {"houses", "offices", "score"}
    assert house_changes(before, state) == {"GOE-QUE:2": ((N, "T"), None), "DUI-DOR:1": ((N, "T"), None)}
    state.play(Done())
    assert state.phase == Phase.ACTIONS and state.actions_used == 0 and state.current == A
    assert state.score == [1, 1]


def test_last_shift_neutral_claim_one_city_then_actions_resume():
    """The third shift fills a route whose only city with a free office (Duisburg, one office) is taken at once;
    the marker use then ends
    and the active player goes on with his actions."""
    state = shift_position()
    support.set_office(state, "DOR", 0, B)
    support.set_office(state, "DOR", 1, B, "M")  # Dortmund full: only Duisburg can take the neutral office
    state.play(Shift("COE-WAR:2", "KAM-ARN:1"))
    state.play(Shift("KAM-ARN:1", "KAM-ARN:2"))
    assert state.rm_left == 1
    state.play(Shift("GOE-QUE:2", "DUI-DOR:2"))
    assert office_owners(state, "DUI") == [N]
    assert state.completed == 2  # Dortmund and now Duisburg
    assert state.piece_at("DUI-DOR:1") is None and state.piece_at("DUI-DOR:2") is None
    assert state.phase == Phase.ACTIONS and state.rm_left == 0 and state.actions_used == 0
    assert state.decider == A and any(isinstance(m, Place) for m in state.legal_moves())


def test_shift_neutral_claim_tenth_city_ends_game_after_marker_use():
    """A neutral office placed after a shift completes the 10th city: the game ends when the marker use ends, as
    a neutral claim during a displacement ends it when the relocation ends (§5.A 5: after the current action)."""
    state = shift_position()
    complete_nine_cities(state)
    state.play(Shift("GOE-QUE:2", "DUI-DOR:2"))
    assert state.completed == 10
    assert state.phase == Phase.REMOVE and state.rm_left == 2
    state.play(Done())
    assert state.phase == Phase.OVER and state.end_triggers == ("cities",)
    assert state.legal_moves() == []


def test_invariant_route_full_of_neutral_pieces():
    """The invariant checker refuses a route left full of neutral pieces outside a neutral claim."""
    state = new2()
    check_invariants(state)
    support.put(state, "DUI-DOR:1", N)
    check_invariants(state)
    support.put(state, "DUI-DOR:2", N)
    with pytest.raises(InvariantError, match="DUI-DOR"):
        check_invariants(state)
