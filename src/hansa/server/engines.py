"""Engine seats: bot seats played by engine programs the operator allowed (``--engines`` / ``HANSA_ENGINES``).

The setting is ``NAME=COMMAND;NAME=COMMAND`` (a command line each, ``shlex`` rules, no shell).  A client may give a
bot seat ``engine:NAME`` for an allowed NAME, never a command: the server runs only what its operator listed.  Each
(game, seat) gets its own engine process, kept while the game's bot turns go on and closed after
:data:`IDLE_CLOSE` seconds without a decision (or when the server stops).  A failing engine raises (no fallback in
:class:`~hansa.engine.EngineBot`): the game's bot loop logs it, shows it on the game, retries with backoff, and after
three failures in a row plays one random move (docs/api.md, "Engine seats").
"""

from __future__ import annotations

import contextlib
import re
import threading
import time

from ..core.state import GameState
from ..engine import EngineBot, split_command

#: An engine's name in ``engine:NAME``.
ENGINE_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,29}")
ENGINE_SPEC = re.compile(r"engine:[a-z0-9][a-z0-9_.-]{0,29}")
#: Seconds without a decision after which a seat's engine process is closed.
IDLE_CLOSE = 120.0
#: Starts of one seat's engine process (the first and restarts) before it is refused until it has been idle.
RESTARTS = 10


def parse_engines(text: str) -> dict[str, list[str]]:
    """The allow-list ``NAME=COMMAND;...`` as ``{name: argv}``; :class:`ValueError` naming what is wrong."""
    out: dict[str, list[str]] = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        name, sep, command = item.partition("=")
        name = name.strip()
        if not sep or not ENGINE_NAME.fullmatch(name):
            raise ValueError(f"engines: {item.strip()[:60]!r} is not NAME=COMMAND with a NAME of lower-case letters, "
                             "digits, '_', '.', '-' (at most 30)")
        if name in out:
            raise ValueError(f"engines: {name!r} is listed twice")
        out[name] = split_command(command)
    return out


def engine_name(spec: str) -> str | None:
    """NAME for a seat's bot spec ``engine:NAME``, else None."""
    return spec[len("engine:"):] if ENGINE_SPEC.fullmatch(spec) else None


class EngineSeats:
    """The engine processes of the engine seats this process plays, one per (game, seat)."""

    def __init__(self, engines: dict[str, list[str]], seconds: float) -> None:
        self.engines = engines
        self.seconds = seconds
        self._bots: dict[tuple[str, int], tuple[EngineBot, float]] = {}
        self._lock = threading.Lock()

    def decide(self, key: tuple[str, int], spec: str, state: GameState, seed: int) -> str:
        """The move (text) of the engine seat ``spec`` (``engine:NAME``) for ``key`` = (game id, seat); runs in a
        thread.  Raises :class:`~hansa.engine.EngineError` (or ValueError for a name not allowed)."""
        name = engine_name(spec)
        if name is None or name not in self.engines:
            raise ValueError(f"engine {spec!r} is not allowed on this server (--engines)")
        self.close_idle()
        with self._lock:
            held = self._bots.pop(key, None)
        bot = held[0] if held is not None else None
        if bot is None or bot.label != name:
            if bot is not None:
                bot.close()
            bot = EngineBot(self.engines[name], seed=seed, seconds=self.seconds, fallback=None, restarts=RESTARTS,
                            label=name)
        try:
            return bot.choose(state).text()
        finally:
            with self._lock:
                self._bots[key] = (bot, time.monotonic())

    def close_idle(self, idle: float = IDLE_CLOSE) -> None:
        """Close the engines that have not decided for ``idle`` seconds."""
        now = time.monotonic()
        with self._lock:
            old = [k for k, (_, t) in self._bots.items() if now - t >= idle]
            bots = [self._bots.pop(k)[0] for k in old]
        for bot in bots:
            with contextlib.suppress(Exception):
                bot.close()

    def close(self) -> None:
        """Close every engine process (the server stops)."""
        self.close_idle(idle=-1.0)

    def running(self) -> int:
        with self._lock:
            return len(self._bots)
