"""Exceptions raised by the rules engine.  Every one leaves the game state unchanged."""

from __future__ import annotations


class HansaError(Exception):
    """Base class of every error the hansa library raises on bad input."""


class IllegalMoveError(HansaError):
    """The move is well formed but the rules forbid it now.  ``rule`` names the docs/rules.md section."""

    def __init__(self, message: str, rule: str = "") -> None:
        self.rule = rule
        super().__init__(f"{message} ({rule})" if rule else message)


class WrongPlayerError(IllegalMoveError):
    """A player tried to decide while another player must decide."""


class GameOverError(IllegalMoveError):
    """A move was submitted after the game ended."""


class MalformedMoveError(HansaError):
    """A move's text or JSON form cannot be parsed."""


class InvalidOptionError(HansaError):
    """A game option is unknown or has an invalid value."""


class RecordError(HansaError):
    """A game record is corrupt, or one of its moves is illegal."""

    def __init__(self, message: str, move_index: int | None = None) -> None:
        self.move_index = move_index
        super().__init__(message)
