"""Bot decisions for the server, fairly shared.

MCTS decisions run in worker processes.  They are handed to the pool one per worker, taken from a priority queue:
games with a human seat (someone is waiting) before games of bots only, first come first served within each.  So
a human's bot opponent waits at most for the decisions already running, however many bot-only games queue up.
The cheap bots (random, purpose, heuristic) decide in threads.

Workers run at a lower CPU priority than the server (moves and views stay quick while they think) and exit when
the server process is gone, even after ``kill -9`` (a thread in each watches its parent).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..bots import make_bot
from ..core.state import GameState
from .engines import EngineSeats

log = logging.getLogger("hansa.server")

HUMAN_WAITING, BOTS_ONLY = 0, 1
#: How often a worker checks that the server still runs.
PARENT_CHECK = 0.5


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_CHECK)
        if os.getppid() != parent:
            os._exit(0)


def _worker_init(parent: int) -> None:
    with contextlib.suppress(OSError):
        os.nice(10)
    threading.Thread(target=_watch_parent, args=(parent,), name="hansa-parent-watch", daemon=True).start()


def _decide_snapshot(snapshot: dict[str, Any], spec: str, seed: int) -> str:
    """One bot decision in a worker process; returns the move's text."""
    state = GameState.from_snapshot(snapshot)
    return make_bot(spec, seed).choose(state).text()


def _decide(state: GameState, spec: str, seed: int) -> str:
    return make_bot(spec, seed).choose(state).text()


def uses_process(spec: str) -> bool:
    return spec.startswith("mcts")


class BotPool:
    """Runs bot decisions: ``await pool.decide(state, spec, seed, priority)``."""

    def __init__(self, processes: int, engines: dict[str, list[str]] | None = None, engine_seconds: float = 5.0) -> None:
        self.processes = processes
        #: The engine seats' processes (``engine:NAME`` bots of the operator's allow-list), decided in threads.
        self.engines = EngineSeats(engines or {}, engine_seconds)
        self._executor: ProcessPoolExecutor | None = None
        self._queue: asyncio.PriorityQueue[tuple[int, int, asyncio.Future[str], dict[str, Any], str, int]] | None = None
        self._order = itertools.count()
        self._runners: list[asyncio.Task[None]] = []

    def start(self) -> None:
        if self.processes <= 0:
            return
        self._executor = self._new_executor()
        self._queue = asyncio.PriorityQueue()
        self._runners = [asyncio.create_task(self._run(), name=f"bot-runner-{i}") for i in range(self.processes)]

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init, initargs=(os.getpid(),),
        )

    def worker_pids(self) -> list[int]:
        executor = self._executor
        return list(executor._processes) if executor is not None and executor._processes else []

    async def stop(self) -> None:
        for task in self._runners:
            task.cancel()
        for task in self._runners:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(self.engines.close)

    def waiting(self) -> int:
        return self._queue.qsize() if self._queue is not None else 0

    async def decide(self, state: GameState, spec: str, seed: int, priority: int, key: tuple[str, int] = ("", 0)) -> str:
        """The move (text) the bot ``spec`` chooses in ``state``; ``key`` (game id, seat) picks an engine seat's
        process.  Engine decisions wait in a thread, never on the event loop."""
        if spec.startswith("engine:"):
            return await asyncio.to_thread(self.engines.decide, key, spec, state.copy(), seed)
        if self._queue is None or not uses_process(spec):
            return await asyncio.to_thread(_decide, state.copy(), spec, seed)
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((priority, next(self._order), future, state.to_snapshot(), spec, seed))
        return await future

    async def _run(self) -> None:
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        while True:
            _priority, _order, future, snapshot, spec, seed = await self._queue.get()
            if future.done():  # the game stopped waiting (deleted, stopped, server closing)
                continue
            executor = self._executor
            assert executor is not None
            try:
                text = await loop.run_in_executor(executor, _decide_snapshot, snapshot, spec, seed)
            except BrokenProcessPool as exc:
                log.error("a bot worker process died; starting new workers")
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._new_executor()
                if not future.done():
                    future.set_exception(exc)
            except Exception as exc:  # noqa: BLE001 - handed to the game's bot loop, which logs and retries
                if not future.done():
                    future.set_exception(exc)
            else:
                if not future.done():
                    future.set_result(text)
