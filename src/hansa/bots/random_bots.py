"""Random bots: uniform over legal moves, and the simulator's default that always claims when it can."""

from __future__ import annotations

import random

from ..core.moves import Claim, Move
from ..core.state import GameState
from .base import Bot


class UniformRandomBot(Bot):
    """Uniformly random over all legal moves.  Games between these bots practically never end."""

    name = "uniform"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        return moves[self.rng.randrange(len(moves))]


class ClaimingRandomBot(Bot):
    """Claims a route whenever a claim is legal (uniform among the claims), otherwise uniform over legal moves."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        claims = [m for m in moves if type(m) is Claim]
        pool = claims or moves
        return pool[self.rng.randrange(len(pool))]
