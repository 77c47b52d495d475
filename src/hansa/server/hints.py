"""Hints on request: the heuristic bot's choice for the seat that must decide, with a one-line reason.

The reason is data (a ``kind`` and its parameters: route and city codes, counts, points), not a sentence, so that
the browser can say it in the player's language.  It is worked out by playing the move on a copy of the position
whose hidden markers are reshuffled: a hint never reveals what the player cannot see.
"""

from __future__ import annotations

import random
from typing import Any

from ..bots import HeuristicBot
from ..core.moves import (
    Claim,
    Displace,
    Done,
    Drop,
    EndTurn,
    Improve,
    Income,
    Lift,
    LiftExtra,
    Move,
    NeutralOffice,
    Pawn,
    Place,
    PlaceMarker,
    Relocate,
    Remove,
    Shift,
    Swap,
    TakeExtra,
    UseMarker,
)
from ..core.state import GameState


def _route_of(state: GameState, house: str) -> str:
    return house.split(":")[0]


def _own_on_route(state: GameState, route_code: str, seat: int) -> tuple[int, int]:
    """(houses of ``route_code`` holding ``seat``'s pieces, houses of the route)."""
    route = state.board.route(route_code)
    own = sum(1 for h in route.houses if state.houses[h] >= 0 and state.houses[h] >> 1 == seat)
    return own, route.spaces


def explain(before: GameState, move: Move, after: GameState, seat: int) -> dict[str, Any]:
    """Why ``move`` (played from ``before`` to ``after`` by ``seat``): ``{"kind": ..., ...}``."""
    gained = after.score[seat] - before.score[seat]
    reason: dict[str, Any]
    if isinstance(move, Claim):
        reason = {"kind": "claim", "route": move.route, "benefit": move.benefit, "target": move.target}
    elif isinstance(move, Place | Drop | Relocate):
        own, spaces = _own_on_route(after, _route_of(after, move.house), seat)
        kind = {Place: "place", Drop: "drop", Relocate: "relocate"}[type(move)]
        reason = {"kind": kind, "route": _route_of(after, move.house), "own": own, "spaces": spaces}
    elif isinstance(move, Displace):
        code = before.houses[before.board.house_index[move.house]]
        own, spaces = _own_on_route(after, _route_of(after, move.house), seat)
        reason = {"kind": "displace", "route": _route_of(after, move.house), "victim": code >> 1 if code >= 0 else None,
                  "own": own, "spaces": spaces}
    elif isinstance(move, Income):
        reason = {"kind": "income", "traders": move.traders, "merchants": move.merchants}
    elif isinstance(move, Lift | LiftExtra):
        reason = {"kind": "lift", "route": _route_of(after, move.house)}
    elif isinstance(move, TakeExtra):
        reason = {"kind": "take-extra", "piece": move.piece}
    elif isinstance(move, Remove | Shift):
        reason = {"kind": "remove", "route": _route_of(after, move.house)}
    elif isinstance(move, PlaceMarker):
        reason = {"kind": "marker", "route": move.route}
    elif isinstance(move, UseMarker):
        reason = {"kind": "use-marker", "marker": move.marker}
    elif isinstance(move, Swap):
        reason = {"kind": "swap", "city": move.city}
    elif isinstance(move, Improve):
        reason = {"kind": "improve", "ability": move.ability}
    elif isinstance(move, Pawn):
        reason = {"kind": "pawn", "province": move.province}
    elif isinstance(move, NeutralOffice):
        reason = {"kind": "neutral-office", "city": move.city}
    elif isinstance(move, EndTurn | Done):
        reason = {"kind": "end"}
    else:  # pragma: no cover - every move type is named above
        reason = {"kind": "best"}
    reason["points"] = gained
    return reason


def hint(state: GameState, seed: int) -> dict[str, Any]:
    """The heuristic bot's move for ``state.decider`` and why: ``{"move", "json", "reason"}``."""
    seat = state.decider
    move = HeuristicBot(seed).choose(state)
    after = state.determinized(random.Random(seed))
    after.play(move)
    return {"move": move.text(), "json": move.to_json(), "reason": explain(state, move, after, seat)}
