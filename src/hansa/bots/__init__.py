"""Bots that play through the engine's public API (``legal_moves`` / ``play`` / ``determinized``).

No bot reads the face-down marker supply or the plates: every lookahead runs on
:meth:`~hansa.core.state.GameState.determinized` copies.

Bot specs (``make_bot``): ``uniform``; ``random`` (claims whenever it can, else uniform; the simulator's
default); ``purpose`` (random with purpose); ``heuristic``; ``mcts`` = ``mcts:medium``; ``mcts:easy``,
``mcts:medium``, ``mcts:hard``; ``mcts:iterations=N``; ``mcts:seconds=S``.

Bots from outside hansa's own search, loaded only when asked for (they need an optional extra):
``openspiel-ismcts:seconds=S`` and ``openspiel-mcts:seconds=S`` (OpenSpiel's ISMCTS and MCTS, rollouts by a hansa bot;
``hansa[openspiel]``, see :mod:`hansa.ai.openspiel_bots`) and ``policy:NAME`` / ``policy:FILE`` (a shipped
policy by its bare name, or a model file by a path with a ``.``, ``/`` or ``\\``, as trained by
``examples/train_ppo.py`` or ``examples/train_policy.py``; ``hansa[rl]``, see :mod:`hansa.ai.policy`).

``engine:COMMAND`` runs an engine program that speaks ``hansa-engine/1`` (docs/engine-protocol.md) as a subprocess:
COMMAND is a command line (``shlex`` rules, no shell), optionally after options
``seconds=S/grace=G/restarts=N/fallback=BOT:``; see :mod:`hansa.engine`.  The process starts at the bot's first
decision; call ``bot.close()`` when the game is over.
"""

from __future__ import annotations

import importlib
from typing import Any

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
        bot: Bot = _extra("hansa.ai.openspiel_bots", "openspiel").make_openspiel_bot(name, arg, seed)
        return bot
    if name == "policy" and arg:
        policy: Bot = _extra("hansa.ai.policy", "rl").PolicyBot.from_spec(arg, seed)
        return policy
    if name == "engine" and arg:
        engine: Bot = importlib.import_module("hansa.engine").engine_bot_from_spec(arg, seed)
        return engine
    raise ValueError(f"unknown bot {spec!r}; bots are {', '.join(BOT_NAMES)}, mcts:iterations=N, mcts:seconds=S, "
                     "openspiel-ismcts:seconds=S, openspiel-mcts:seconds=S, policy:NAME, policy:FILE, engine:COMMAND")


def _extra(module: str, extra: str) -> Any:
    """A bot module that needs an optional extra, imported by name: hansa.bots (compiled with the core) must not
    depend on hansa.ai and numpy, which the core's build does not have."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"{module} needs the {extra} extra: pip install 'hansa[{extra}]' ({exc})") from None


def bot_spec_ok(spec: str) -> bool:
    """True if ``make_bot(spec)`` would succeed."""
    try:
        make_bot(spec, 0)
    except ValueError:
        return False
    return True
