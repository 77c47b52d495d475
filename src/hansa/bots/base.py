"""The bot interface."""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..core.moves import Move
from ..core.state import GameState


class Bot(ABC):
    """A player program: given a position where it must decide, return one of ``state.legal_moves()``."""

    name: str = "bot"

    @abstractmethod
    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        """Pick a move for ``state.decider``.  ``legal`` may pass the already generated legal moves."""
