"""Bring your own bot: the engine protocol ``hansa-engine/1`` (docs/engine-protocol.md).

* :func:`serve` — for engine authors: run a bot (or any ``state -> move`` function) as an engine program.
* :class:`EngineBot` — for hosts: a :class:`~hansa.bots.base.Bot` that runs an engine program as a subprocess;
  ``make_bot("engine:COMMAND")`` makes one, so ``hansa arena --seats`` and ``hansa play --seats`` take engines.
* The errors an engine's failures raise: :class:`EngineError` and its kinds.
"""

from .client import FALLBACKS, EngineBot, EngineProcess, engine_bot_from_spec, split_command
from .protocol import (
    PROTOCOL,
    EngineCrashed,
    EngineError,
    EngineIllegalMove,
    EngineProtocolError,
    EngineRefused,
    EngineStartError,
    EngineTimeout,
    decide_message,
)
from .serve import answer, serve

__all__ = [
    "FALLBACKS", "PROTOCOL", "EngineBot", "EngineCrashed", "EngineError", "EngineIllegalMove", "EngineProcess",
    "EngineProtocolError", "EngineRefused", "EngineStartError", "EngineTimeout", "answer", "decide_message",
    "engine_bot_from_spec", "serve", "split_command",
]
