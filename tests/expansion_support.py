"""Position builders and checks for the rule tests of the expansion maps (docs/rules-expansions.md §E8).

Built on ``support`` (seat A = 0 starts and is active).  Cities are named by their notation codes, routes by
either direction (``route_code`` turns them into the data-order code a ``Claim`` needs), houses as ``"ROUTE:N"``.
"""

from __future__ import annotations

from typing import Any

import support
from hansa.core.constants import MERCHANT, TRADER, piece_code
from hansa.core.moves import Claim, EndTurn, Move
from hansa.core.state import GameState, Phase
from support import A, B, C, D, E

AT, AM = piece_code(A, TRADER), piece_code(A, MERCHANT)
BT, BM = piece_code(B, TRADER), piece_code(B, MERCHANT)
CT, CM = piece_code(C, TRADER), piece_code(C, MERCHANT)
DT, DM = piece_code(D, TRADER), piece_code(D, MERCHANT)
FREE = -1

__all__ = ["A", "B", "C", "D", "E", "AT", "AM", "BT", "BM", "CT", "CM", "DT", "DM", "FREE"]

#: The observed fields of ``support`` plus the expansion state: what ``changed`` compares in these tests.
FIELDS: tuple[str, ...] = (
    *support.OBSERVED_FIELDS, "right_offices", "city_filled", "perm_used", "perm_holders", "pm_kind", "pm_left",
    "pm_route", "rl_owner", "rl_route", "rl_extras",
)


def east(players: int = 3, **options: Any) -> GameState:
    return support.new_state(players, map="east", **options)


def britannia(players: int = 3, **options: Any) -> GameState:
    return support.new_state(players, map="britannia", **options)


def snap(state: GameState) -> dict[str, Any]:
    return support.snapshot(state, FIELDS)


def route_code(state: GameState, route: str) -> str:
    """The data-order code of a route given in either direction."""
    return state.board.route(route).code


def route_index(state: GameState, route: str) -> int:
    return state.board.route(route).index


def city(state: GameState, code: str) -> int:
    return state.board.city_index[code]


def offices(state: GameState, code: str) -> list[int]:
    """Every office of a city left to right (extra offices, printed ones with -1 for free, right offices)."""
    return state.city_offices(city(state, code))


def printed(state: GameState, code: str) -> list[int]:
    c = state.board.cities[city(state, code)]
    return state.offices[c.office_base : c.office_base + len(c.offices)]


def complete(state: GameState, *codes: str, owner: int = B) -> None:
    """Fill every printed office of each city with ``owner``'s Traders (the completed counter follows)."""
    for code in codes:
        for i in range(len(state.board.cities[city(state, code)].offices)):
            support.set_office(state, code, i, owner)


def green_office(state: GameState, code: str, owner: int, kind: str = "T", right: bool = True) -> None:
    """An office in a green city: right of all (permanent marker) or left of all (Extra office); the first one
    completes the city."""
    c = city(state, code)
    assert state.board.cities[c].green
    if not (state.extras[c] or state.right_offices[c]):
        state.completed += 1
    piece = owner * 2 + support.KIND[kind]
    if right:
        state.right_offices[c] = state.right_offices[c] + (piece,)
    else:
        state.extras[c] = (piece,) + state.extras[c]


def extra_office(state: GameState, code: str, owner: int, kind: str = "T") -> None:
    """An Extra office (left of all) in any city, completing a green city if it is its first office."""
    c = city(state, code)
    if state.board.cities[c].green:
        green_office(state, code, owner, kind, right=False)
    else:
        support.add_extra_office(state, code, owner, kind)


def claims(state: GameState, route: str) -> set[Claim]:
    """The legal Claim moves of a route."""
    code = route_code(state, route)
    return {m for m in state.legal_moves() if isinstance(m, Claim) and m.route == code}


def of_type(state: GameState, cls: type) -> list[Any]:
    return [m for m in state.legal_moves() if isinstance(m, cls)]


def houses_of(state: GameState, *routes: str) -> set[str]:
    return {h for r in routes for h in support.route_houses(state, r)}


def free_houses_of(state: GameState, *routes: str) -> set[str]:
    return {h for h in houses_of(state, *routes) if state.piece_at(h) is None}


def ship(state: GameState, house: str) -> bool:
    return state.board.house_ship[support.house(state, house)]


def refresh_holders(state: GameState) -> None:
    """Recompute the turn-start permission holders after a test edited the offices (opt.permissionTiming)."""
    state.perm_holders = state._permission_holders()


def perm_bit(state: GameState, code: str) -> int:
    """The bit of ``state.perm_used`` of a permission city."""
    c = city(state, code)
    for i, (pc, _) in enumerate(state.board.permission_cities):
        if pc == c:
            return 1 << i
    raise KeyError(code)


def play(state: GameState, move: Move, player: int | None = None) -> None:
    """Play a move that must be legal for the decider."""
    assert move in state.legal_moves(), (move, state.phase)
    state.play(move, player)


def claim_for_plate(state: GameState, route: str) -> None:
    """A claims a route holding a bonus marker (nothing else) so that a replacement marker lies on A's plate, then
    ends the turn: the replacement-marker phase begins."""
    r = route_index(state, route)
    assert state.route_marker[r] >= 0
    support.fill_route(state, route_code(state, route), A)
    play(state, Claim(route_code(state, route)))
    assert state.plate[A]
    play(state, EndTurn())
    assert state.phase == Phase.MARKERS and state.decider == A


def control_points(state: GameState, route: str) -> list[int]:
    """Step a of a claim of ``route`` (+1 to each of its cities' controllers), per seat."""
    out = [0] * state.players
    for c in state.board.route(route).cities:
        owner = state.controller(c)
        if owner is not None:
            out[owner] += 1
    return out
