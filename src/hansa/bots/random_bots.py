"""Random bots: uniform over legal moves, and the simulator's default that always claims when it can."""

from __future__ import annotations

import random

from ..core.moves import Claim, Done, Drop, EndTurn, Lift, Move, Place, Relocate
from ..core.state import GameState
from .base import Bot


class UniformRandomBot(Bot):
    """Uniformly random over all legal moves.  Games between these bots practically never end."""

    name = "uniform"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        return moves[int(self.rng.random() * len(moves))]


class ClaimingRandomBot(Bot):
    """Claims a route whenever a claim is legal (uniform among the claims), otherwise uniform over legal moves."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        if state.can_claim():  # cheap test first: most positions have no claim
            moves = [m for m in moves if type(m) is Claim] or moves
        return moves[int(self.rng.random() * len(moves))]


class PurposefulRandomBot(Bot):
    """"Random with purpose": random, but claims whenever it can, never ends a turn with an action left while
    something else is possible, picks the kind of action uniformly (not the individual move), and puts pieces
    on routes no opponent occupies when there are such houses.  Its games finish in a few hundred turns."""

    name = "purpose"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        claims = [m for m in moves if type(m) is Claim]
        if claims:
            return self.rng.choice(claims)
        groups: dict[type, list[Move]] = {}
        for m in moves:
            groups.setdefault(type(m), []).append(m)
        if len(groups) > 1:
            groups.pop(EndTurn, None)
            groups.pop(Done, None)
        kind = self.rng.choice(sorted(groups, key=lambda t: t.__name__))
        options = groups[kind]
        if kind in (Place, Drop, Relocate):
            me = state.decider
            good = [m for m in options if _route_is_free_of_others(state, m.house, me)]  # type: ignore[attr-defined]
            options = good or options
        elif kind is Lift:
            me = state.decider
            contested = [m for m in options if not _route_is_free_of_others(state, m.house, me)]  # type: ignore[attr-defined]
            options = contested or options
        return self.rng.choice(options)


def _route_is_free_of_others(state: GameState, house: str, me: int) -> bool:
    board = state.board
    route = board.routes[board.house_route[board.house_index[house]]]
    return all(state.houses[h] < 0 or state.houses[h] >> 1 == me for h in route.houses)
