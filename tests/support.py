"""Position builders for focused rule tests.

Players are seats 0, 1, 2, ... and tests call them A, B, C, D.  ``new_state`` fixes the start player to A so
seat 0 is active.  The builders edit a :class:`GameState` directly (tests only) and keep the derived counters
(free houses and their moves, each owner's houses, full routes, filled offices per city, completed cities) consistent.
"""

from __future__ import annotations

from typing import Any

import pytest

from hansa.core.board import Board
from hansa.core.constants import EMPTY, MERCHANT, TRADER
from hansa.core.errors import IllegalMoveError
from hansa.core.position import STATE_FIELDS
from hansa.core.state import GameState, Phase

A, B, C, D, E = range(5)
KIND = {"T": TRADER, "M": MERCHANT}


def new_state(players: int = 3, seed: int = 0, board: Board | None = None, **options: Any) -> GameState:
    """A fresh game with seat A (0) as start player and active."""
    return GameState.new(players, seed, options, start_player=0, board=board)


def house(state: GameState, name: str) -> int:
    return state.board.house_index[name]


def route_houses(state: GameState, route: str) -> list[str]:
    r = state.board.route(route)
    return [state.board.house_names[h] for h in r.houses]


def put(state: GameState, name: str, owner: int, kind: str = "T") -> None:
    """Put a piece of ``owner`` on house ``name`` (created from nowhere: tests of piece counts use real moves)."""
    state.houses[house(state, name)] = owner * 2 + KIND[kind]
    state._reindex()


def clear(state: GameState, name: str) -> None:
    state.houses[house(state, name)] = EMPTY
    state._reindex()


def fill_route(state: GameState, route: str, owner: int, kinds: str | None = None) -> None:
    """Fill every house of ``route`` with ``owner``'s pieces (``kinds`` like "TTM"; default all Traders)."""
    names = route_houses(state, route)
    kinds = kinds or "T" * len(names)
    assert len(kinds) == len(names), (route, kinds)
    for n, k in zip(names, kinds):
        put(state, n, owner, k)


def fill_all_except(state: GameState, keep_free: list[str], owner: int) -> None:
    """Fill every free house of every route not in ``keep_free`` with ``owner``'s Traders."""
    keep = {state.board.route(r).index for r in keep_free}
    for r in state.board.routes:
        if r.index in keep:
            continue
        for h in r.houses:
            if state.houses[h] < 0:
                put(state, state.board.house_names[h], owner)


def set_pools(state: GameState, player: int, sup: tuple[int, int] | None = None, stk: tuple[int, int] | None = None) -> None:
    """Set a player's supply and/or stock as (Traders, Merchants)."""
    if sup is not None:
        state.sup_t[player], state.sup_m[player] = sup
    if stk is not None:
        state.stk_t[player], state.stk_m[player] = stk


def pools(state: GameState, player: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """((supply T, M), (stock T, M)) of a player."""
    return (state.sup_t[player], state.sup_m[player]), (state.stk_t[player], state.stk_m[player])


def set_level(state: GameState, player: int, ability: int, level: int) -> None:
    """Set an ability track level index directly."""
    state.levels[player * 5 + ability] = level


def set_office(state: GameState, city: str, position: int, owner: int | None, kind: str = "T") -> None:
    """Occupy (or free, with ``owner=None``) printed office ``position`` (0-based) of ``city``."""
    c = state.board.city_index[city]
    i = state.board.cities[c].office_base + position
    was = state.offices[i] >= 0
    state.offices[i] = EMPTY if owner is None else owner * 2 + KIND[kind]
    now = state.offices[i] >= 0
    full_before = state.city_filled[c] == len(state.board.cities[c].offices)
    state.city_filled[c] += int(now) - int(was)
    full_after = state.city_filled[c] == len(state.board.cities[c].offices)
    state.completed += int(full_after) - int(full_before)


def add_extra_office(state: GameState, city: str, owner: int, kind: str = "T") -> None:
    """Add an extra office (it goes left of every existing office)."""
    c = state.board.city_index[city]
    state.extras[c] = (owner * 2 + KIND[kind],) + state.extras[c]


def give_markers(state: GameState, player: int, *kinds: int) -> None:
    """Give a player unused bonus markers (types from hansa.core.constants)."""
    state.markers[player] = state.markers[player] + tuple(kinds)


def clear_markers(state: GameState) -> None:
    """Remove every bonus marker from the routes."""
    state.route_marker = [EMPTY] * len(state.board.routes)


def set_marker(state: GameState, route: str, kind: int) -> None:
    state.route_marker[state.board.route(route).index] = kind


def texts(moves: list[Any]) -> set[str]:
    return {m.text() for m in moves}


def in_phase(state: GameState, phase: Phase) -> bool:
    return state.phase == phase


# ---------------------------------------------------------------------------------------------- state snapshots

# Observable parts of the state plus the ``decider`` property (the derived counters route_free / free_total /
# city_filled follow houses / offices).  ``changed`` reports names from this set, so tests assert on it exactly.
OBSERVED_FIELDS: tuple[str, ...] = (
    "houses", "route_marker", "offices", "extras", "table", "completed", "ew_paid", "marker_supply",
    "sup_t", "sup_m", "stk_t", "stk_m", "levels", "score", "markers", "used_markers", "plate",
    "current", "turn", "actions_used", "bonus_actions", "phase", "hand", "end_triggers", "discarded",
    "neutral_discards", "pawn", "decider",
)  # fmt: skip

# Every slot of the state (hidden and derived ones included) plus ``decider``: what ``refuse`` compares.
ALL_FIELDS: tuple[str, ...] = (*STATE_FIELDS, "decider")


def freeze(value: Any) -> Any:
    """``value`` with every nested list/tuple turned into a tuple (so snapshots do not alias the state)."""
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def snapshot(state: GameState, fields: tuple[str, ...] = OBSERVED_FIELDS) -> dict[str, Any]:
    """``{field: frozen value}`` for ``fields`` (default :data:`OBSERVED_FIELDS`; :data:`ALL_FIELDS` for all)."""
    return {name: freeze(getattr(state, name, None)) for name in fields}


def changed(before: dict[str, Any], state: GameState) -> set[str]:
    """Names of the fields of the snapshot ``before`` whose value in ``state`` differs now."""
    now = snapshot(state, tuple(before))
    return {k for k in before if before[k] != now[k]}


def decode_piece(code: int) -> tuple[int, str] | None:
    """``(owner, "T"|"M")`` for a house/office code, or ``None`` for a free one (as ``GameState.piece_at``)."""
    return None if code < 0 else (code >> 1, "TM"[code & 1])


def house_changes(before: dict[str, Any], state: GameState) -> dict[str, tuple[Any, Any]]:
    """``{house: (old piece, new piece)}`` for every house whose content changed since the snapshot ``before``."""
    names = state.board.house_names
    out = {}
    for h, (old, new) in enumerate(zip(before["houses"], state.houses)):
        if old != new:
            out[names[h]] = (decode_piece(old), decode_piece(new))
    return out


def refuse(state: GameState, move: Any, player: int | None = None, error: type[Exception] = IllegalMoveError) -> None:
    """``move`` is not legal and changes nothing.

    Unless ``player`` is someone other than the decider, ``move`` must not be among ``state.legal_moves()``;
    playing it (as ``player`` when given) must raise ``error``; afterwards ``state.key()`` and every slot of the
    state (:data:`ALL_FIELDS`) must be as before.
    """
    if player is None or player == state.decider:
        assert move not in state.legal_moves()
    before_key, before = state.key(), snapshot(state, ALL_FIELDS)
    with pytest.raises(error):
        if player is None:
            state.play(move)
        else:
            state.play(move, player)
    assert state.key() == before_key
    assert snapshot(state, ALL_FIELDS) == before


# Fixture G (docs/rule-scenarios.md §7): cities P, Q, R, S, T, U, V; r0 = P-Q[3], r1 = Q-R[2], r2 = P-S[2], r3 = R-T[3],
# r4 = S-U[2], r5 = T-V[2].  Distances from r0: r1, r2 = 1; r3, r4 = 2; r5 = 3.
# Fixture K (city row): city K with k1 square white (coin), k2 round white, k3 square orange, k4 square pink.
# K hangs off V by V-K[3] and K-Y[2] (distance 4 and 5 from r0), so Fixture K never disturbs Fixture G distances.

_O = lambda colour, shape="square", coin=False: {"privilege": colour, "shape": shape, "coin": coin}  # noqa: E731

FIXTURE_DATA: dict[str, Any] = {
    "cities": [
        {"name": "P", "offices": [_O("white")], "ability": None},
        {"name": "Q", "offices": [_O("white")], "ability": None},
        {"name": "R", "offices": [_O("white")], "ability": None},
        {"name": "S", "offices": [_O("white")], "ability": None},
        {"name": "T", "offices": [_O("white")], "ability": None},
        {"name": "U", "offices": [_O("white")], "ability": None},
        {"name": "V", "offices": [_O("white")], "ability": None},
        {"name": "K", "offices": [_O("white", coin=True), _O("white", "circle"), _O("orange"), _O("pink")], "ability": None},
        {"name": "Y", "offices": [_O("white")], "ability": None},
    ],
    "routes": [
        {"cities": ["P", "Q"], "spaces": 3},
        {"cities": ["Q", "R"], "spaces": 2},
        {"cities": ["P", "S"], "spaces": 2},
        {"cities": ["R", "T"], "spaces": 3},
        {"cities": ["S", "U"], "spaces": 2},
        {"cities": ["T", "V"], "spaces": 2},
        {"cities": ["V", "K"], "spaces": 3},
        {"cities": ["K", "Y"], "spaces": 2},
    ],
    "taverns": [],
    "coellen_table": [],
    "east_west": [],
}
R0, R1, R2, R3, R4, R5 = "P-Q", "Q-R", "P-S", "R-T", "S-U", "T-V"


def fixture_board() -> Board:
    """The generic fixture board (Fixture G + Fixture K), built fresh."""
    return Board("fixture", FIXTURE_DATA)
