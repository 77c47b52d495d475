"""The bot interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from ..core.moves import Move
from ..core.state import GameState

if TYPE_CHECKING:
    from ..game import Game


class Bot(ABC):
    """A player program: given a position where it must decide, return one of ``state.legal_moves()``."""

    name: str = "bot"

    @abstractmethod
    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        """Pick a move for ``state.decider``.  ``legal`` may pass the already generated legal moves."""

    def bind(self, game: Game) -> None:  # noqa: B027 - optional hook, most bots need nothing
        """The host plays ``game`` with this bot (called once, before the first decision).  Bots that want the
        game's history (:class:`hansa.engine.EngineBot` sends the moves so far) keep it; the default ignores it."""

    def close(self) -> None:  # noqa: B027 - optional hook, most bots hold nothing
        """The game is over: free what the bot holds (an engine process).  Hosts call it once at the end."""
