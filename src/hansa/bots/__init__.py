"""Bots that play through the engine's public API (``legal_moves`` / ``play``), never peeking at hidden markers."""

from .base import Bot
from .random_bots import ClaimingRandomBot, UniformRandomBot

__all__ = ["Bot", "ClaimingRandomBot", "UniformRandomBot", "make_bot", "BOT_NAMES"]

BOT_NAMES = ("random", "uniform")


def make_bot(name: str, seed: int | None = None) -> Bot:
    """Create a bot by name: ``random`` (claims whenever it can, otherwise uniform) or ``uniform``."""
    if name == "random":
        return ClaimingRandomBot(seed)
    if name == "uniform":
        return UniformRandomBot(seed)
    raise ValueError(f"unknown bot {name!r}; bots are {', '.join(BOT_NAMES)}")
