"""Bots that play through the engine's public API (``legal_moves`` / ``play`` / ``determinized``).

No bot reads the face-down marker supply or the plates: every lookahead runs on
:meth:`~hansa.core.state.GameState.determinized` copies.

Bot specs (``make_bot``): ``uniform``; ``random`` (claims whenever it can, else uniform; the simulator's
default); ``purpose`` (random with purpose); ``heuristic``; ``mcts`` = ``mcts:medium``; ``mcts:easy``,
``mcts:medium``, ``mcts:hard``; ``mcts:iterations=N``; ``mcts:seconds=S``.

Bots from outside hansa's own search, loaded only when asked for (they need an optional extra):
``openspiel-ismcts:seconds=S`` and ``openspiel-mcts:seconds=S`` (OpenSpiel's ISMCTS and MCTS with random rollouts;
``hansa[openspiel]``, see :mod:`hansa.ai.openspiel_bots`) and ``policy:FILE`` (a policy trained by
``examples/train_policy.py``; ``hansa[rl]``, see :mod:`hansa.ai.policy`).
"""

from __future__ import annotations

from .base import Bot
from .heuristic import HeuristicBot
from .random_bots import ClaimingRandomBot, PurposefulRandomBot, UniformRandomBot

__all__ = [
    "BOT_NAMES", "Bot", "ClaimingRandomBot", "HeuristicBot", "PurposefulRandomBot", "UniformRandomBot",
    "bot_spec_ok", "make_bot",
]

BOT_NAMES = ("random", "uniform", "purpose", "heuristic", "mcts", "mcts:easy", "mcts:medium", "mcts:hard")


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """Create a bot from its spec (see the module docstring)."""
    name, _, arg = spec.partition(":")
    if name == "random" and not arg:
        return ClaimingRandomBot(seed)
    if name == "uniform" and not arg:
        return UniformRandomBot(seed)
    if name == "purpose" and not arg:
        return PurposefulRandomBot(seed)
    if name == "heuristic" and not arg:
        return HeuristicBot(seed)
    if name == "mcts":
        from .mcts import MctsBot

        return MctsBot.from_spec(arg or "medium", seed)
    if name in ("openspiel-ismcts", "openspiel-mcts"):
        try:
            from ..ai.openspiel_bots import make_openspiel_bot
        except ImportError as exc:
            raise ValueError(f"{name} needs OpenSpiel: pip install 'hansa[openspiel]' ({exc})") from None
        return make_openspiel_bot(name, arg, seed)
    if name == "policy" and arg:
        try:
            from ..ai.policy import PolicyBot
        except ImportError as exc:
            raise ValueError(f"policy bots need numpy: pip install 'hansa[rl]' ({exc})") from None
        return PolicyBot.from_file(arg, seed)
    raise ValueError(f"unknown bot {spec!r}; bots are {', '.join(BOT_NAMES)}, mcts:iterations=N, mcts:seconds=S, "
                     "openspiel-ismcts:seconds=S, openspiel-mcts:seconds=S, policy:FILE")


def bot_spec_ok(spec: str) -> bool:
    """True if ``make_bot(spec)`` would succeed."""
    try:
        make_bot(spec, 0)
    except ValueError:
        return False
    return True
