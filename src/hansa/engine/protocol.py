"""The engine protocol ``hansa-engine/1`` (docs/engine-protocol.md): its messages and its errors.

One JSON object per line (UTF-8) each way over the engine's stdin (hansa → engine) and stdout (engine → hansa);
the engine's stderr is logged, never read as protocol.  This module builds and checks the messages; the host side
is :mod:`hansa.engine.client`, the engine side :mod:`hansa.engine.serve`.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

from ..core.errors import HansaError

if TYPE_CHECKING:
    from ..core.state import GameState
    from ..game import Game

PROTOCOL = "hansa-engine/1"
#: Longest line either side accepts (bytes); a longer one is a protocol error.
MAX_LINE = 1 << 20
#: Longest text kept from what an engine said (error messages quote at most this much).
SAID = 300

__all__ = [
    "MAX_LINE", "PROTOCOL", "EngineCrashed", "EngineError", "EngineIllegalMove", "EngineProtocolError",
    "EngineRefused", "EngineStartError", "EngineTimeout", "decide_message", "hello_message", "parse_line",
]


class EngineError(HansaError):
    """An engine failed to give a move.  ``engine`` is its name (or command), ``said`` what it said last (stdout
    or stderr, shortened), ``reason`` the failure in words."""

    #: Whether the engine process is unusable afterwards (killed, restarted for the next decision).
    fatal = True

    def __init__(self, engine: str, reason: str, said: str = "") -> None:
        self.engine = engine
        self.reason = reason
        self.said = said[:SAID]
        super().__init__(f"engine {engine!r}: {reason}" + (f" (it said: {self.said!r})" if self.said else ""))


class EngineStartError(EngineError):
    """The engine could not be started, or its handshake failed (no hello, wrong protocol, an error)."""


class EngineCrashed(EngineError):
    """The engine process exited (or closed its stdout) while it was expected to answer."""


class EngineTimeout(EngineError):
    """No answer within the time budget plus the grace period: the engine is killed."""


class EngineProtocolError(EngineError):
    """The engine wrote something that is not a protocol message: not JSON, not an object, an unknown type, a
    wrong request id, a line too long (garbage on stdout)."""


class EngineIllegalMove(EngineError):
    """The engine answered a move that cannot be read or is not legal in the position.  The engine stays usable."""

    fatal = False


class EngineRefused(EngineError):
    """The engine answered ``{"type": "error"}`` to a decision.  The engine stays usable."""

    fatal = False


def hello_message() -> dict[str, Any]:
    """hansa's greeting, the first line an engine reads."""
    from .. import __version__

    return {"type": "hello", "protocol": PROTOCOL, "hansa": __version__}


def game_json(game: Game) -> dict[str, Any]:
    """The game so far as a record without its seed and result (docs/records.md): players, options, start player,
    moves in text form.  ``seed`` is null: it decides the face-down markers, which no player may know."""
    from ..record import FORMAT, VERSION

    return {
        "format": FORMAT, "version": VERSION, "players": list(game.names), "seed": None,
        "options": game.options.changed(), "start_player": game.start_player_override,
        "moves": [m.text() for m in game.moves],
    }


def decide_message(
    request: int, state: GameState, seconds: float, rng: random.Random, *, game: Game | None = None,
    legal: bool = True,
) -> dict[str, Any]:
    """A decision request for ``state.decider``: the position as a snapshot in which everything the seat cannot
    see (the face-down markers, the plates, the other seats' mission cards) is dealt again at random with ``rng``,
    the game's record so far (without the seed) when ``game`` is given, the budget, and the legal moves."""
    seat = state.decider
    position = state.determinized(rng, viewer=seat).to_snapshot()
    position["seed"] = 0  # the game's seed would tell the face-down order: never sent
    message: dict[str, Any] = {
        "type": "decide", "id": request, "seat": seat, "seconds": seconds, "position": position,
        "game": game_json(game) if game is not None else None,
    }
    if legal:
        message["legal"] = [m.text() for m in state.legal_moves()]
    return message


def parse_line(line: bytes) -> dict[str, Any]:
    """One protocol line as an object with a string ``type``; :class:`ValueError` saying why not."""
    if len(line) > MAX_LINE:
        raise ValueError(f"a line longer than {MAX_LINE} bytes")
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ValueError("not a JSON object with a string 'type'")
    return data


def encode(message: dict[str, Any]) -> bytes:
    """A message as one line (compact JSON, no NaN)."""
    return (json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")
