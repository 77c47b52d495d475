"""The engine side of ``hansa-engine/1``: :func:`serve` turns a bot into an engine program.

::

    from hansa.bots import make_bot
    from hansa.engine import serve

    serve(make_bot("purpose"), name="my-bot", author="me")

reads requests from stdin, rebuilds each position with :meth:`GameState.from_snapshot`, asks the bot and writes
the answer.  Bad input never stops it: a line it cannot use is answered with ``{"type": "error"}`` and it reads on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from ..bots.base import Bot
from ..core.moves import Move
from ..core.state import GameState
from .protocol import MAX_LINE, PROTOCOL, encode, parse_line

#: What :func:`serve` accepts: a bot, or a function from the position to a move (a Move or its text).
Player = Bot | Callable[[GameState], Move | str]


def _error(request: Any, message: str) -> dict[str, Any]:
    return {"type": "error", "id": request if isinstance(request, int) and not isinstance(request, bool) else None,
            "message": message[:500]}


def answer(request: dict[str, Any], player: Player) -> dict[str, Any]:
    """The answer to one decision request (a ``move`` or an ``error`` message)."""
    rid = request.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int):
        return _error(None, "'id' must be an integer")
    position = request.get("position")
    if not isinstance(position, dict):
        return _error(rid, "'position' must be an object (a position snapshot)")
    try:
        state = GameState.from_snapshot(position)
    except Exception as exc:  # noqa: BLE001 - any malformed snapshot is the host's error, answered as such
        return _error(rid, f"the position cannot be read: {type(exc).__name__}: {exc}")
    if state.is_over:
        return _error(rid, "the game in 'position' is over: nobody decides")
    seat = request.get("seat")
    if seat != state.decider:
        return _error(rid, f"'seat' is {seat!r} but seat {state.decider} decides in 'position'")
    try:
        legal = state.legal_moves()
        move = player.choose(state, legal) if isinstance(player, Bot) else player(state)
        text = move if isinstance(move, str) else move.text()
    except Exception as exc:  # noqa: BLE001 - the bot's bug is reported to the host, the engine lives on
        return _error(rid, f"the bot failed: {type(exc).__name__}: {exc}")
    return {"type": "move", "id": rid, "move": text}


def serve(
    player: Player, *, name: str = "hansa-engine", author: str = "", stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> int:
    """Run an engine on ``stdin``/``stdout`` (default: the process's) until ``quit`` or the end of input; returns
    the exit status (0).  ``player`` is a :class:`~hansa.bots.base.Bot` or a callable ``state -> move``."""
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer

    def send(message: dict[str, Any]) -> None:
        out.write(encode(message))
        out.flush()

    while True:
        line = inp.readline(MAX_LINE + 1)
        if not line:
            return 0
        if not line.strip():
            continue
        try:
            message = parse_line(line)
        except ValueError as exc:
            send(_error(None, f"cannot read the line: {exc}"))
            if len(line) > MAX_LINE:  # skip the rest of the over-long line
                while line and not line.endswith(b"\n"):
                    line = inp.readline(MAX_LINE + 1)
            continue
        kind = message["type"]
        if kind == "hello":
            if message.get("protocol") != PROTOCOL:
                send({"type": "error", "id": None, "message": f"this engine speaks {PROTOCOL}, "
                      f"not {message.get('protocol')!r}"})
                continue
            send({"type": "hello", "protocol": PROTOCOL, "name": name, "author": author})
        elif kind == "decide":
            send(answer(message, player))
        elif kind == "quit":
            return 0
        else:
            send(_error(message.get("id"), f"unknown message type {kind!r}"))
