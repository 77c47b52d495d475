"""The host side of ``hansa-engine/1``: :class:`EngineProcess` (one running engine) and :class:`EngineBot` (a
:class:`~hansa.bots.base.Bot` that asks an engine program for its moves).

What happens when an engine misbehaves (docs/engine-protocol.md, "Failures"): every failure is an
:class:`~hansa.engine.protocol.EngineError` naming the engine and quoting what it said.  By default the
:class:`EngineBot` then plays its *fallback* bot's move for that decision (counted in :attr:`EngineBot.fallbacks`,
logged, reported by ``hansa arena`` and ``hansa play``); an engine that crashed, hung or wrote garbage is killed and
started again for the next decision, at most ``restarts`` times a game, after which the fallback bot plays the
seat's remaining decisions.  With ``fallback=None`` the error is raised instead (the server does this and retries).
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import queue
import random
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from ..bots.base import Bot
from ..core.errors import HansaError
from ..core.moves import Move, parse_move
from ..core.state import GameState
from .protocol import (
    MAX_LINE,
    PROTOCOL,
    EngineCrashed,
    EngineError,
    EngineIllegalMove,
    EngineProtocolError,
    EngineRefused,
    EngineStartError,
    EngineTimeout,
    decide_message,
    encode,
    hello_message,
    parse_line,
)

if TYPE_CHECKING:
    from ..game import Game

log = logging.getLogger("hansa.engine")

#: Defaults of :class:`EngineBot`: the budget sent with each decision, the grace after it, restarts per game.
DEFAULT_SECONDS = 5.0
DEFAULT_GRACE = 2.0
DEFAULT_RESTARTS = 2
DEFAULT_START_TIMEOUT = 10.0
#: Bots an engine seat may fall back to (specs without a colon, so that they fit in ``engine:OPTIONS:COMMAND``).
FALLBACKS = ("random", "uniform", "purpose", "heuristic", "mcts")
_EOF = b""


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command line as argv (``shlex`` rules, no shell), checked: not empty, the program found."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    except ValueError as exc:
        raise ValueError(f"engine command {command!r} cannot be split: {exc}") from None
    if not argv:
        raise ValueError("engine command is empty")
    program = argv[0]
    if shutil.which(program) is None and not (os.sep in program and os.access(program, os.X_OK)):
        raise ValueError(f"engine command {command!r}: program {program!r} not found or not executable")
    return argv


class EngineProcess:
    """One engine program, started and greeted (:meth:`start`), asked (:meth:`ask`) and ended (:meth:`close`).

    Two threads read its stdout (protocol lines, into a queue) and its stderr (logged at INFO on the
    ``hansa.engine`` logger, the last lines kept for error messages, never parsed)."""

    def __init__(self, argv: Sequence[str], label: str, *, cwd: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.label = label
        self.cwd = cwd
        self.env = env
        #: The engine's hello (name, author, ...), once :meth:`start` succeeded.
        self.hello: dict[str, Any] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=5)
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ life

    def start(self, timeout: float = DEFAULT_START_TIMEOUT) -> dict[str, Any]:
        """Start the program and do the handshake; its hello message.  :class:`EngineStartError` on failure."""
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.cwd,
                env=self.env, start_new_session=True,
            )
        except OSError as exc:
            raise EngineStartError(self.label, f"cannot be started: {exc.strerror or exc}") from None
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._threads = [
            threading.Thread(target=self._read_stdout, args=(self._proc.stdout,), daemon=True,
                             name=f"engine-out-{self._proc.pid}"),
            threading.Thread(target=self._read_stderr, args=(self._proc.stderr,), daemon=True,
                             name=f"engine-err-{self._proc.pid}"),
        ]
        for t in self._threads:
            t.start()
        try:
            self._send(hello_message())
            reply = self._next(time.monotonic() + timeout, "the handshake", budget=timeout)
        except EngineError as exc:
            self.close(0.0)
            raise EngineStartError(self.label, f"handshake failed: {exc.reason}", exc.said) from None
        if reply["type"] == "error":
            self.close(0.0)
            raise EngineStartError(self.label, "refused the handshake", str(reply.get("message", "")))
        if reply["type"] != "hello" or reply.get("protocol") != PROTOCOL:
            self.close(0.0)
            raise EngineStartError(self.label, f"answered the hello with something else than a {PROTOCOL} hello",
                                   _shown(reply))
        self.hello = reply
        name = reply.get("name")
        log.info("engine %s started (pid %d): %s by %s", self.label, self._proc.pid, name, reply.get("author"))
        return reply

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def close(self, wait: float = 1.0) -> None:
        """Ask the engine to quit, then kill it (and anything it started) if it has not exited within ``wait``."""
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        if proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                assert proc.stdin is not None
                proc.stdin.write(encode({"type": "quit"}))
                proc.stdin.flush()
            with contextlib.suppress(OSError, ValueError):
                assert proc.stdin is not None
                proc.stdin.close()
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(proc.pid, signal.SIGKILL)  # its session: the engine and its children
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5.0)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    # ------------------------------------------------------------------ talking

    def ask(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a decision request; the engine's ``move`` answer to it.  Raises :class:`EngineTimeout`,
        :class:`EngineCrashed`, :class:`EngineProtocolError` or :class:`EngineRefused`."""
        rid = message["id"]
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._next(deadline, f"decision {rid}", budget=timeout)
            kind = reply["type"]
            if kind == "info":
                log.info("engine %s: %s", self.label, str(reply.get("message", ""))[:500])
                continue
            if kind == "error" and reply.get("id") in (rid, None):
                raise EngineRefused(self.label, f"refused decision {rid}", str(reply.get("message", "")))
            if kind != "move" or reply.get("id") != rid:
                raise EngineProtocolError(self.label, f"answered decision {rid} with an unexpected message",
                                          _shown(reply))
            return reply

    def _send(self, message: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineCrashed(self.label, "is not running")
        try:
            proc.stdin.write(encode(message))
            proc.stdin.flush()
        except (OSError, ValueError):
            raise EngineCrashed(self.label, self._exit_words(), self._last_said()) from None

    def _next(self, deadline: float, what: str, budget: float) -> dict[str, Any]:
        """The next protocol message, by ``deadline``."""
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise EngineTimeout(self.label, f"no answer to {what} within {budget:g} s", self._last_said()) from None
        if line is _EOF or not line:
            raise EngineCrashed(self.label, f"{self._exit_words()} during {what}", self._last_said())
        try:
            return parse_line(line)
        except ValueError as exc:
            raise EngineProtocolError(self.label, f"wrote garbage on stdout during {what}: {exc}",
                                      line[:300].decode("utf-8", "replace")) from None

    def _exit_words(self) -> str:
        proc = self._proc
        if proc is None:
            return "is not running"
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(1.0)
        code = proc.returncode
        if code is None:
            return "closed its stdout"
        return f"exited with status {code}" if code >= 0 else f"was killed by signal {-code}"

    def _last_said(self) -> str:
        """The engine's last stderr lines.  Once it has exited, its stderr reader first reads to the end (the pipe
        closes with the process; a second at most), so that what it wrote just before it died is quoted."""
        proc = self._proc
        if proc is not None and proc.poll() is not None:
            for thread in self._threads[1:]:
                if thread is not threading.current_thread():
                    thread.join(1.0)
        return " | ".join(self._stderr)

    def _read_stdout(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                line = stream.readline(MAX_LINE + 1)
                if not line:
                    break
                if line.strip():
                    self._lines.put(line)
        self._lines.put(_EOF)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in iter(lambda: stream.readline(8192), b""):
                text = raw.decode("utf-8", "replace").rstrip()
                if text:
                    self._stderr.append(text[:300])
                    log.info("engine %s stderr: %s", self.label, text[:1000])


def _shown(message: dict[str, Any]) -> str:
    import json

    return json.dumps(message)[:300]


class EngineBot(Bot):
    """A bot that asks an engine program (``command``, started on the first decision, kept for the game) for
    every move, with a budget of ``seconds`` per decision and ``grace`` seconds more before it counts as hung.

    ``fallback`` (a bot spec of :data:`FALLBACKS`, or ``None`` to raise) plays a decision the engine failed;
    ``restarts`` bounds how often a crashed, hung or garbling engine is started again in one game.  Call
    :meth:`close` when the game is over (the arena and ``hansa play`` do)."""

    def __init__(
        self, command: str | Sequence[str], *, seed: int | None = None, seconds: float = DEFAULT_SECONDS,
        grace: float = DEFAULT_GRACE, restarts: int = DEFAULT_RESTARTS, fallback: str | None = "random",
        start_timeout: float = DEFAULT_START_TIMEOUT, send_legal: bool = True, label: str | None = None,
        cwd: str | None = None,
    ) -> None:
        self.argv = split_command(command)
        if not 0 < seconds <= 3600:
            raise ValueError(f"engine seconds must be above 0 and at most 3600, not {seconds!r}")
        if not 0 <= grace <= 600:
            raise ValueError(f"engine grace must be 0 to 600 seconds, not {grace!r}")
        if not 0 <= restarts <= 100:
            raise ValueError(f"engine restarts must be 0 to 100, not {restarts!r}")
        if not 0 < start_timeout <= 600:
            raise ValueError(f"engine start timeout must be above 0 and at most 600 seconds, not {start_timeout!r}")
        if fallback is not None and fallback not in FALLBACKS:
            raise ValueError(f"engine fallback must be one of {', '.join(FALLBACKS)}, not {fallback!r}")
        self.label = label or shlex.join(self.argv)
        self.name = f"engine:{self.label}"
        self.seconds = float(seconds)
        self.grace = float(grace)
        self.restarts = restarts
        self.start_timeout = float(start_timeout)
        self.send_legal = send_legal
        self.cwd = cwd
        self.fallback = fallback
        self.rng = random.Random(seed)
        self._fallback_bot: Bot | None = None
        if fallback is not None:
            from ..bots import make_bot

            self._fallback_bot = make_bot(fallback, seed)
        #: Every failure of the engine in this game, in order.
        self.errors: list[EngineError] = []
        #: Decisions the fallback bot played instead of the engine.
        self.fallbacks = 0
        #: Decisions the engine answered with a legal move.
        self.answered = 0
        #: Engine processes started (the first and every restart).
        self.starts = 0
        self._process: EngineProcess | None = None
        self._game: Game | None = None
        #: The game's record to send when no game is bound (``hansa bot-bridge`` sets the server's).
        self.record: dict[str, Any] | None = None
        self._request = 0

    def bind(self, game: Game) -> None:
        """Send ``game``'s record (its moves so far) with every decision taken in ``game.state``."""
        self._game = game

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        if self.retired:  # said once when it happened: the fallback plays the rest of the game
            if self._fallback_bot is None:
                raise EngineCrashed(self.label, f"failed to run {self.starts} times in this game; not started again")
            self.fallbacks += 1
            return self._fallback_bot.choose(state, legal)
        try:
            return self._ask(state)
        except EngineError as exc:
            self.errors.append(exc)
            if exc.fatal:
                self._stop(wait=0.0)  # broken (hung, dead, garbling): killed at once
            if self.retired:
                log.error("%s; it failed to run %d times in this game and is not started again%s", exc, self.starts,
                          f": the {self.fallback} bot plays its remaining decisions" if self.fallback else "")
            if self._fallback_bot is None:
                raise
            self.fallbacks += 1
            if not self.retired:
                log.warning("%s; the %s bot plays this move instead (%d so far)", exc, self.fallback, self.fallbacks)
            return self._fallback_bot.choose(state, legal)

    def close(self) -> None:
        """End the engine process (if one runs)."""
        self._stop()

    def __enter__(self) -> EngineBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def retired(self) -> bool:
        """True once the engine failed to run more than ``restarts`` times: the fallback plays from then on."""
        return self._process is None and self.starts > self.restarts

    def _engine(self) -> EngineProcess:
        if self._process is not None and self._process.alive:
            return self._process
        self._stop()
        self.starts += 1
        process = EngineProcess(self.argv, self.label, cwd=self.cwd)
        process.start(self.start_timeout)
        self._process = process
        return process

    def _ask(self, state: GameState) -> Move:
        process = self._engine()
        self._request += 1
        game = self._game if self._game is not None and self._game.state is state else None
        message = decide_message(self._request, state, self.seconds, self.rng, game=game, legal=self.send_legal)
        if game is None and self.record is not None:
            message["game"] = self.record
        reply = process.ask(message, self.seconds + self.grace)
        text = reply.get("move")
        if not isinstance(text, str) or not text or len(text) > 500:
            raise EngineIllegalMove(self.label, f"answered decision {self._request} without a move text",
                                    _shown(reply))
        try:
            move = parse_move(text, state.board)
            state.copy().play(move, state.decider)
        except HansaError as exc:
            raise EngineIllegalMove(self.label, f"answered an illegal move {text!r}: {exc}") from None
        self.answered += 1
        return move

    def _stop(self, wait: float = 1.0) -> None:
        if self._process is not None:
            self._process.close(wait)
            self._process = None


def engine_bot_from_spec(arg: str, seed: int | None) -> EngineBot:
    """The bot of the spec ``engine:ARG``: ``ARG`` is a command line, optionally after options
    ``seconds=S/grace=G/restarts=N/fallback=BOT:`` (e.g. ``engine:seconds=0.5/fallback=purpose:./my-engine``)."""
    options, command = _split_options(arg)
    kwargs: dict[str, Any] = {}
    for key, value in options.items():
        try:
            if key in ("seconds", "grace"):
                kwargs[key] = float(value)
            elif key == "restarts":
                kwargs[key] = int(value)
            elif key == "fallback":
                kwargs[key] = value
            else:
                raise ValueError(f"unknown engine option {key!r}: seconds, grace, restarts, fallback")
        except ValueError as exc:
            raise ValueError(f"engine option {key}={value}: {exc}") from None
    return EngineBot(command, seed=seed, **kwargs)


def _split_options(arg: str) -> tuple[dict[str, str], str]:
    head, sep, rest = arg.partition(":")
    if sep and head and " " not in head and all("=" in part for part in head.split("/")):
        options = {}
        for part in head.split("/"):
            key, _, value = part.partition("=")
            if not key or not value or key in options:
                raise ValueError(f"bad engine option {part!r} in {arg!r}")
            options[key] = value
        return options, rest
    return {}, arg
