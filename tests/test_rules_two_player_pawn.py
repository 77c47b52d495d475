"""Focused rule tests for docs/rules.md §5.B / docs/rule-scenarios.md §7.15 (two-player variant B, pawn and border
guards, scenarios 129-134) and the open questions Q-2P-8 and Q-2P-9 of docs/rules-decisions.md, on the real 2-3 board.

Province facts are taken from the shared boards.json (or its vendored copy tests/fixtures/boards.json) (``provinces_2p_pawn_variant``), independently of
the engine's copy.  Most positions start with the pawn in P05 (Bremen-Hamburg-Lueneburg-Hannover: routes BRE-HAM,
BRE-HAN, HAN-LUN, LUN-HAM).  From P05: P03, P04, P11, P13 are 1 border away; P06 is 2; P01, P07, P08 are 3.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import support
from hansa.core.constants import ACTIONS, PLUS3, REMOVE3
from hansa.core.errors import WrongPlayerError
from hansa.core.moves import (
    Claim,
    Displace,
    Drop,
    EndTurn,
    Income,
    Lift,
    Pawn,
    Place,
    PlaceMarker,
    Relocate,
    Remove,
    UseMarker,
)
from hansa.core.state import GameState, Phase
from support import A, B, changed, house_changes, refuse, snapshot

_SHARED = Path(__file__).parent.parent.parent / "shared" / "boards.json"
BOARDS = _SHARED if _SHARED.exists() else Path(__file__).parent / "fixtures" / "boards.json"
P05_ROUTES = {"BRE-HAM", "BRE-HAN", "HAN-LUN", "LUN-HAM"}


# ---------------------------------------------------------------------------------------------- helpers


def shared_provinces() -> list[dict[str, Any]]:
    data = json.loads(BOARDS.read_text(encoding="utf-8"))
    return data["provinces_2p_pawn_variant"]["provinces"]


def shared_distances(start: str) -> dict[str, int]:
    """Borders to cross from province ``start`` (BFS over the boards.json neighbour lists)."""
    neigh = {p["id"]: p["neighbours"] for p in shared_provinces()}
    dist = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for q in neigh[p]:
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def pawn_code(state: GameState) -> str:
    return state.board.provinces[state.pawn].code


def pawn_moves(state: GameState, paid: bool) -> set[str]:
    return {m.province for m in state.legal_moves() if isinstance(m, Pawn) and m.paid == paid}


def place_routes(state: GameState) -> set[str]:
    return {m.house.split(":")[0] for m in state.legal_moves() if isinstance(m, Place)}


def new_pawn(province: str | None = "P05", **options: Any) -> GameState:
    """Pawn variant, A (seat 0) starts; B has put the pawn in ``province`` (None: still in PAWN_SETUP)."""
    state = support.new_state(2, 0, two_player_variant="pawn", **options)
    if province is not None:
        state.play(Pawn(province), B)
    return state


def free_moves_from(start: str) -> set[str]:
    return {p for p, d in shared_distances(start).items() if 1 <= d <= 2}


# ---------------------------------------------------------------------------------------------- §7.15


def test_s129_setup_other_player_places_pawn():
    """129. Setup: start player random; the other player places the pawn in any province."""
    starts = set()
    for seed in range(16):
        s = GameState.new(2, seed, {"two_player_variant": "pawn"})
        starts.add(s.start_player)
        assert s.phase == Phase.PAWN_SETUP
        assert s.current == s.start_player
        assert s.decider == 1 - s.start_player
    assert starts == {0, 1}  # the seed decides the start player
    state = new_pawn(None)
    assert state.board.side == "2-3"
    assert state.phase == Phase.PAWN_SETUP and state.current == A and state.decider == B
    assert state.pawn == -1
    codes = [p["id"] for p in shared_provinces()]
    assert len(codes) == 16
    assert set(state.legal_moves()) == {Pawn(c) for c in codes}
    # no neutral pieces in this variant; the tavern markers are out
    assert all(code < 0 for code in state.houses)
    assert state.markers_on_board() == 3
    refuse(state, Pawn("P05"), A, WrongPlayerError)  # the start player does not place the pawn
    refuse(state, Pawn("P05", paid=True), B)
    refuse(state, Place("BRE-HAM:1", "T"))
    refuse(state, Income(3, 0))
    refuse(state, Pawn("P17"), B)
    before = snapshot(state)
    state.play(Pawn("P05"), B)
    assert changed(before, state) == {"pawn", "phase", "decider"}
    assert state.pawn == state.board.province_index["P05"]
    assert state.phase == Phase.ACTIONS and state.decider == A and state.current == A
    assert state.actions_used == 0 and state.turn == 1
    assert support.pools(state, A) == ((5, 1), (6, 0))
    assert support.pools(state, B) == ((6, 1), (5, 0))


def test_s130_place_only_on_pawn_province_routes():
    """130. A places on a route not bordering the pawn's province -> illegal; Income and Move anywhere -> legal."""
    state = new_pawn("P05")
    assert place_routes(state) == P05_ROUTES
    refuse(state, Place("GRO-EMD:1", "T"))
    refuse(state, Place("DUI-DOR:1", "M"))
    # Displace is restricted the same way
    support.put(state, "GRO-EMD:3", B)
    support.put(state, "BRE-HAN:1", B)
    displaced = {m.house for m in state.legal_moves() if isinstance(m, Displace)}
    assert displaced == {"BRE-HAN:1"}
    refuse(state, Displace("GRO-EMD:3", "T", "T"))
    # a legal Place on a bordering route
    placed = state.copy()
    before = snapshot(placed)
    placed.play(Place("BRE-HAM:1", "T"))
    assert changed(before, placed) == {"houses", "sup_t", "actions_used"}
    assert house_changes(before, placed) == {"BRE-HAM:1": (None, (A, "T"))}
    assert placed.actions_used == 1
    # Income is unrestricted
    assert Income(3, 0) in state.legal_moves()
    before = snapshot(state)
    state.play(Income(3, 0))
    assert changed(before, state) == {"sup_t", "stk_t", "actions_used"}
    assert support.pools(state, A) == ((8, 1), (3, 0))
    # Move is unrestricted: lift from and drop onto routes far from P05
    support.put(state, "GRO-EMD:1", A)
    assert Lift("GRO-EMD:1") in state.legal_moves()
    state.play(Lift("GRO-EMD:1"))
    assert state.phase == Phase.MOVE
    assert Drop("DUI-DOR:1", "T") in state.legal_moves()
    before = snapshot(state)
    state.play(Drop("DUI-DOR:1", "T"))
    assert house_changes(before, state) == {"DUI-DOR:1": (None, (A, "T"))}
    assert state.piece_at("GRO-EMD:1") is None
    assert state.actions_used == 2
    # A's last action: the turn ends and the unused free pawn move is offered
    assert state.phase == Phase.PAWN_END and state.decider == A


def test_s131_free_move_up_to_two_borders():
    """131. Before the first action A moves the pawn across 2 borders -> free; across 3 -> illegal unless paid."""
    dist = shared_distances("P05")
    assert dist["P06"] == 2 and dist["P01"] == 3 and dist["P03"] == 1
    state = new_pawn("P05")
    assert pawn_moves(state, paid=False) == free_moves_from("P05")
    assert "P01" not in pawn_moves(state, paid=False)
    refuse(state, Pawn("P01"))  # 3 borders
    refuse(state, Pawn("P05"))  # 0 borders is not a move
    assert Pawn("P01", paid=True) in state.legal_moves()
    paid = state.copy()
    before = snapshot(state)
    state.play(Pawn("P06"))
    assert changed(before, state) == {"pawn"}
    assert pawn_code(state) == "P06"
    assert state.actions_used == 0 and state.phase == Phase.ACTIONS and state.decider == A
    assert place_routes(state) == {"LUN-PER", "STE-PER", "STE-BRA"}
    refuse(state, Place("BRE-HAM:1", "T"))
    # across 3 borders for an action
    before = snapshot(paid)
    paid.play(Pawn("P01", paid=True))
    assert changed(before, paid) == {"pawn", "actions_used"}
    assert pawn_code(paid) == "P01" and paid.actions_used == 1
    assert place_routes(paid) == {"KAM-OSN", "KAM-ARN", "ARN-MUN"}


def test_s132_paid_move_mid_turn_to_any_province():
    """132. Mid-turn A moves the pawn to any province -> costs 1 action."""
    state = new_pawn("P05")
    support.set_level(state, A, ACTIONS, 1)  # 3 actions
    state.play(Income(3, 0))
    assert state.actions_used == 1
    assert pawn_moves(state, paid=False) == set()  # no free move between actions
    refuse(state, Pawn("P03"))
    codes = {p["id"] for p in shared_provinces()}
    assert pawn_moves(state, paid=True) == codes - {"P05"}
    refuse(state, Pawn("P05", paid=True))  # already there
    before = snapshot(state)
    state.play(Pawn("P07", paid=True))  # 3 borders away
    assert changed(before, state) == {"pawn", "actions_used"}
    assert pawn_code(state) == "P07"
    assert state.actions_used == 2 and state.actions_left() == 1
    assert state.phase == Phase.ACTIONS and state.decider == A
    assert place_routes(state) == {"ARN-DUI", "ARN-MUN", "DUI-DOR"}
    state.play(Place("DUI-DOR:1", "T"))
    assert state.piece_at("DUI-DOR:1") == (A, "T") and state.actions_used == 3


def test_s133_claim_only_on_pawn_province_routes():
    """133. A claims a full route of his not bordering the pawn's province -> illegal until the pawn is adjacent."""
    state = new_pawn("P05")
    support.fill_route(state, "GRO-EMD", A)
    assert not any(isinstance(m, Claim) for m in state.legal_moves())
    refuse(state, Claim("GRO-EMD"))
    refuse(state, Claim("GRO-EMD", "office", "GRO"))
    state.play(Pawn("P11"))  # free, 1 border; GRO-EMD borders P11
    assert pawn_code(state) == "P11"
    claims = {m for m in state.legal_moves() if isinstance(m, Claim)}
    assert Claim("GRO-EMD", "office", "GRO") in claims and Claim("GRO-EMD") in claims
    before = snapshot(state)
    state.play(Claim("GRO-EMD", "office", "GRO"))
    assert changed(before, state) == {"houses", "offices", "stk_t", "score", "actions_used"}
    assert state.office_owners(state.board.city_index["GRO"]) == [A, -1]
    assert state.score == [1, 0]  # Groningen's first office shows a coin
    assert support.pools(state, A) == ((5, 1), (8, 0))
    assert all(state.piece_at(h) is None for h in support.route_houses(state, "GRO-EMD"))
    assert state.actions_used == 1


def test_s134_one_free_move_per_turn_by_default():
    """134. Default: A used the free move before his first action -> a second free move after his last action is refused; allowed with pawnFreeMoves=beforeAndAfter."""
    state = new_pawn("P05")
    state.play(Pawn("P04"))
    state.play(Income(3, 0))
    before = snapshot(state)
    state.play(Place("HAN-LUN:1", "T"))  # last action: the turn passes without a PAWN_END step
    assert state.phase == Phase.ACTIONS and state.current == B and state.decider == B
    assert pawn_code(state) == "P04"
    assert changed(before, state) == {"houses", "sup_t", "current", "turn", "actions_used", "decider"}
    # ending the turn early after the free move: no second free move either
    early = new_pawn("P05")
    early.play(Pawn("P04"))
    early.play(Income(3, 0))
    early.play(EndTurn())
    assert early.phase == Phase.ACTIONS and early.current == B and pawn_code(early) == "P04"
    # beforeAndAfter
    both = new_pawn("P05", pawn_free_moves="beforeAndAfter")
    both.play(Pawn("P04"))
    refuse(both, Pawn("P03"))  # only one free move before the first action
    both.play(Income(3, 0))
    both.play(Place("HAN-LUN:1", "T"))
    assert both.phase == Phase.PAWN_END and both.current == A and both.decider == A
    assert pawn_moves(both, paid=False) == free_moves_from("P04")
    assert EndTurn() in both.legal_moves()
    before = snapshot(both)
    both.play(Pawn("P06"))
    assert changed(before, both) == {"pawn", "current", "turn", "actions_used", "phase", "decider"}
    assert pawn_code(both) == "P06" and both.current == B and both.phase == Phase.ACTIONS


# ---------------------------------------------------------------------------------------------- Q-2P (docs/rules-decisions.md) (variant B)


def test_q2p_8_one_free_move_paid_to_any_province():
    """Q-2P-8. One free pawn move per turn (default); the paid move goes to ANY province."""
    state = new_pawn("P05")
    state.play(Pawn("P13"))
    assert state.actions_used == 0
    assert pawn_moves(state, paid=False) == set()  # the one free move is used
    refuse(state, Pawn("P14"))  # 1 border, but no second free move
    codes = {p["id"] for p in shared_provinces()}
    assert pawn_moves(state, paid=True) == codes - {"P13"}
    far = max((d, p) for p, d in shared_distances("P13").items())[1]
    assert shared_distances("P13")[far] >= 3
    before = snapshot(state)
    state.play(Pawn(far, paid=True))
    assert changed(before, state) == {"pawn", "actions_used"}
    assert pawn_code(state) == far and state.actions_used == 1
    # next turn, B has a free move of his own again
    state.play(EndTurn())
    assert state.current == B and state.phase == Phase.ACTIONS
    assert pawn_moves(state, paid=False) == free_moves_from(far)


def test_q2p_9_relocation_and_markers_not_restricted():
    """Q-2P-9. Relocation after a displacement and bonus markers are not restricted by the pawn; the back side is used."""
    state = new_pawn("P05")
    assert state.board.side == "2-3"
    # relocation: B's piece displaced from BRE-HAM may go to OSN-BRE / BRE-MIN / STA-HAM / LUB-HAM (not P05 routes)
    support.put(state, "BRE-HAM:1", B)
    state.play(Displace("BRE-HAM:1", "T", "T"))
    assert state.phase == Phase.RELOCATE and state.decider == B
    targets = {m.house.split(":")[0] for m in state.legal_moves() if isinstance(m, Relocate)}
    assert targets == {"OSN-BRE", "BRE-MIN", "BRE-HAN", "STA-HAM", "LUB-HAM", "LUN-HAM"}
    before = snapshot(state)
    state.play(Relocate("OSN-BRE:1", "T"), B)
    assert house_changes(before, state) == {"OSN-BRE:1": (None, (B, "T"))}
    assert state.hand == ()
    # Remove 3 on a route far from P05
    marker = new_pawn("P05")
    support.give_markers(marker, A, REMOVE3)
    support.put(marker, "GRO-EMD:1", B)
    support.put(marker, "BRE-HAM:1", B)
    marker.play(UseMarker("remove3"))
    assert {m.house for m in marker.legal_moves() if isinstance(m, Remove)} == {"GRO-EMD:1", "BRE-HAM:1"}
    before = snapshot(marker)
    marker.play(Remove("GRO-EMD:1"))
    assert house_changes(before, marker) == {"GRO-EMD:1": ((B, "T"), None)}
    assert support.pools(marker, B) == ((7, 1), (5, 0))


def test_pawn_province_routes_match_boards_json():
    """§5.B: the pawn province's bordering routes are exactly the ones in boards.json for that province."""
    provinces = shared_provinces()
    for p in provinces:
        state = new_pawn(p["id"])
        board = state.board
        expected = {board.route_between(a, b).code for a, b in p["bordering_routes"]}
        assert {board.routes[r].code for r in board.provinces[state.pawn].routes} == expected, p["id"]
        assert place_routes(state) == expected, p["id"]
        # and every house of those routes (the board is empty) may take a piece
        places = {m.house for m in state.legal_moves() if isinstance(m, Place) and m.piece == "T"}
        assert places == {h for r in expected for h in support.route_houses(state, r)}, p["id"]


def test_paid_move_costs_action_refused_without_actions():
    """§5.B: a paid pawn move costs an action and is refused without actions left."""
    state = new_pawn("P05")
    support.give_markers(state, A, PLUS3)  # keeps the turn open after the last action
    state.play(Income(3, 0))
    state.play(Place("BRE-HAM:1", "T"))
    assert state.actions_used == 2 and state.actions_left() == 0
    assert state.phase == Phase.ACTIONS and state.current == A
    assert pawn_moves(state, paid=True) == set()
    refuse(state, Pawn("P01", paid=True))
    refuse(state, Pawn("P03"))  # the free move comes after the turn ends
    state.play(UseMarker("+3"))
    assert "P01" in pawn_moves(state, paid=True)
    before = snapshot(state)
    state.play(Pawn("P01", paid=True))
    assert changed(before, state) == {"pawn", "actions_used"}
    assert state.actions_used == 3 and state.actions_left() == 2


def test_free_move_after_markers_in_pawn_end_and_end_declines():
    """§2.9/§5.B: the free move after the last action happens at the end of the turn (PAWN_END) after replacement markers are placed; `end` declines it."""
    state = new_pawn("P06")
    lp = state.board.route("LUN-PER").index
    tavern = state.route_marker[lp]
    supply = list(state.marker_supply)
    support.fill_route(state, "LUN-PER", A)
    state.play(Income(3, 0))
    state.play(Claim("LUN-PER"))  # last action: takes the tavern marker, draws a replacement
    assert state.markers[A] == (tavern,)
    assert state.plate[A] == (supply[-1],)
    assert state.phase == Phase.MARKERS and state.decider == A
    assert pawn_moves(state, paid=False) == set() and pawn_moves(state, paid=True) == set()
    refuse(state, Pawn("P04"))
    refuse(state, EndTurn())
    # marker placement is not restricted by the pawn (GRO-EMD does not border P06)
    assert PlaceMarker("GRO-EMD") in state.legal_moves()
    state.play(PlaceMarker("GRO-EMD"))
    assert state.route_marker[state.board.route("GRO-EMD").index] == supply[-1]
    assert state.plate[A] == ()
    assert state.phase == Phase.PAWN_END and state.current == A and state.decider == A
    assert set(state.legal_moves()) == {Pawn(p) for p in free_moves_from("P06")} | {EndTurn()}
    refuse(state, Pawn("P01"))  # 4 borders
    refuse(state, Pawn("P01", paid=True))  # no paid move after the turn's actions
    refuse(state, Place("LUN-PER:1", "T"))
    declined = state.copy()
    before = snapshot(declined)
    declined.play(EndTurn())
    assert changed(before, declined) == {"current", "turn", "actions_used", "phase", "decider"}
    assert pawn_code(declined) == "P06"
    assert declined.phase == Phase.ACTIONS and declined.current == B and declined.actions_used == 0
    before = snapshot(state)
    state.play(Pawn("P04"))
    assert changed(before, state) == {"pawn", "current", "turn", "actions_used", "phase", "decider"}
    assert pawn_code(state) == "P04" and state.current == B and state.phase == Phase.ACTIONS
    # ending the turn with EndTurn (actions left) also leads to the PAWN_END step
    early = new_pawn("P05")
    early.play(Income(3, 0))
    early.play(EndTurn())
    assert early.phase == Phase.PAWN_END and early.current == A
