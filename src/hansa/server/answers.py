"""The answers whose size grows with a game — its move log, score history, record and replayed positions — built
with bounded work per request, off the event loop, fairly shared between clients, and kept within a byte budget.

* **Paged.** The log and the history are served in pages (at most :data:`MAX_LOG_LIMIT` and
  :data:`MAX_HISTORY_LIMIT` moves).  Work is done in *chunks* of :data:`CHUNK` moves: the server keeps a snapshot of
  the position every :data:`CHUNK` moves of every game (``LiveGame.checkpoints``), so building a chunk of the log,
  or the position after move k, replays at most :data:`CHUNK` moves whatever the game's length.  A game has at most
  ``--max-moves`` moves, which bounds the record (one download) and everything else.
* **Off the event loop.** Chunks, records, replayed positions and hints are built by :class:`Builders`: worker
  processes (``--replay-processes``, at a lower CPU priority than the server, ending with it) or, with 0, one thread.
  They are plain functions of plain data (move texts, snapshots), so nothing of a live game is shared.
* **Fair.** :class:`Builders` takes jobs per client (its address): at most ``--replay-per-client`` in the making at
  once per client (429 beyond), served round-robin between clients, so a client asking for many cannot make others
  wait behind its own.
* **Within a byte budget.** Built chunks and answers are kept, as bytes, in :class:`ByteCache` (``--replay-cache``
  bytes, least recently used go first).  A chunk's key holds the game's *epoch* (which changes when moves already
  played may have changed: an undo, the game loaded again), so completed chunks stay valid while the game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..core.moves import parse_move
from ..core.options import GameOptions
from ..core.state import GameState
from ..view import move_delta, public_state
from .errors import ServiceError

log = logging.getLogger("hansa.server")

T = TypeVar("T")

#: Moves per chunk of work, and between two checkpoints of a game's position.
CHUNK = 200
#: Most entries of the move log one request may ask for (``limit``), and the default.
MAX_LOG_LIMIT = 1000
LOG_LIMIT = 200
#: Most entries of the score history one request may ask for, and the default.
MAX_HISTORY_LIMIT = 5000
HISTORY_LIMIT = 1000
#: Jobs waiting for a builder, over all clients, before more are refused with 503.
MAX_WAITING = 256


# ---------------------------------------------------------------------------------------------- the builders' work


def _start_state(players: int, seed: int, options: dict[str, Any], snapshot: str | None) -> GameState:
    if snapshot is not None:
        return GameState.from_snapshot(json.loads(snapshot))
    return GameState.new(players, seed, GameOptions.from_dict(options))


def build_log_chunk(
    players: int, seed: int, options: dict[str, Any], snapshot: str | None, skip: list[str], start: int,
    texts: list[str], movers: list[int], turns: list[int], actors: list[str | None],
) -> list[bytes]:
    """The log entries of moves ``start + 1`` ... ``start + len(texts)``, each as JSON bytes: ``{n, seat, turn,
    move, json, delta, by}``.  ``snapshot``: a position before them (None: the start of the game), from which the
    moves ``skip`` lead to the position after ``start`` moves."""
    state = _start_state(players, seed, options, snapshot)
    for text in skip:
        state.play(parse_move(text, state.board))
    out = []
    for i, text in enumerate(texts):
        move = parse_move(text, state.board)
        before = state.copy()
        state.play(move)
        out.append(json.dumps({
            "n": start + i + 1, "seat": movers[i], "turn": turns[i], "move": text, "json": move.to_json(),
            "delta": move_delta(before, state), "by": actors[i],
        }, separators=(",", ":")).encode())
    return out


def build_position(players: int, seed: int, options: dict[str, Any], snapshot: str | None, texts: list[str],
                   k: int, total: int, move_text: str | None) -> bytes:
    """The replay answer for the position after move ``k`` (``texts``: the moves from ``snapshot`` to ``k``;
    ``move_text``: move ``k``)."""
    state = _start_state(players, seed, options, snapshot)
    for text in texts:
        state.play(parse_move(text, state.board))
    answer = {"k": k, "moves": total, "move": move_text if k else None, "state": public_state(state)}
    return json.dumps(answer, separators=(",", ":")).encode()


def build_history_chunk(start: int, texts: list[str], turns: list[int], scores: list[list[int]]) -> list[bytes]:
    """History entries for moves ``start + 1`` ... (``scores[i]``: the in-game scores after that move)."""
    return [
        json.dumps({"n": start + i + 1, "turn": turns[i], "move": text, "scores": scores[i]},
                   separators=(",", ":")).encode()
        for i, text in enumerate(texts)
    ]


def build_record(record: dict[str, Any]) -> bytes:
    """A game record as the download's bytes."""
    return (json.dumps(record, indent=1) + "\n").encode()


def build_hint(snapshot: str, seed: int, version: int) -> bytes:
    """The hint answer for the position ``snapshot`` (hints.py)."""
    from .hints import hint

    state = GameState.from_snapshot(json.loads(snapshot))
    return json.dumps({"version": version, **hint(state, seed)}, separators=(",", ":")).encode()


# ---------------------------------------------------------------------------------------------- the cache


class ByteCache:
    """Least-recently-used values of bytes (or tuples of bytes) within a byte budget."""

    #: What one entry costs besides its bytes (its key, the dict slot).
    OVERHEAD = 200

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.size = 0
        self._items: OrderedDict[Any, tuple[int, Any]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _cost(value: bytes | tuple[bytes, ...]) -> int:
        if isinstance(value, bytes):
            return len(value) + ByteCache.OVERHEAD
        return sum(len(b) + 60 for b in value) + ByteCache.OVERHEAD

    def get(self, key: Any) -> Any:
        item = self._items.get(key)
        if item is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return item[1]

    def put(self, key: Any, value: bytes | tuple[bytes, ...]) -> None:
        cost = self._cost(value)
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= old[0]
        if cost > self.budget:
            return
        self._items[key] = (cost, value)
        self.size += cost
        while self.size > self.budget:
            _, (dropped, _) = self._items.popitem(last=False)
            self.size -= dropped

    def __len__(self) -> int:
        return len(self._items)


# ---------------------------------------------------------------------------------------------- the builders


def _worker_init(parent: int) -> None:
    from .bots import _worker_init as bot_worker_init

    bot_worker_init(parent)


class Builders:
    """Runs build jobs off the event loop, at most ``per_client`` in the making per client, round-robin between
    clients.  ``processes`` worker processes (started at the first job), or one thread with 0."""

    def __init__(self, processes: int, per_client: int) -> None:
        self.processes = processes
        self.per_client = per_client
        self._executor: Executor | None = None
        self._queues: OrderedDict[str, deque[tuple[asyncio.Future[Any], Callable[..., Any], tuple[Any, ...]]]] = (
            OrderedDict()
        )
        self._busy: dict[str, int] = {}  # jobs queued or running, per client
        self._waiting = 0
        self._running = 0
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        #: Jobs done and refused (for /api/stats).
        self.done = 0
        self.refused = 0

    @property
    def slots(self) -> int:
        return max(1, self.processes)

    def start(self) -> None:
        self._wake = asyncio.Event()
        self._task = asyncio.create_task(self._dispatch(), name="hansa-builders")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for queue in self._queues.values():
            for future, _fn, _args in queue:
                if not future.done():
                    future.cancel()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    def worker_pids(self) -> list[int]:
        executor = self._executor
        if isinstance(executor, ProcessPoolExecutor) and executor._processes:
            return list(executor._processes)
        return []

    def _new_executor(self) -> Executor:
        if self.processes <= 0:
            return ThreadPoolExecutor(max_workers=1, thread_name_prefix="hansa-build")
        return ProcessPoolExecutor(
            self.processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init, initargs=(os.getpid(),),
        )

    async def run(self, client: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` built for ``client``; 429 when the client has ``per_client`` jobs in the making, 503 when
        too many jobs wait in all."""
        if self._busy.get(client, 0) >= self.per_client:
            self.refused += 1
            raise ServiceError(
                429, f"this client has {self.per_client} long answers (logs, records, replays) in the making; "
                     "wait for them", None, {"Retry-After": "1"},
            )
        if self._waiting >= MAX_WAITING:
            self.refused += 1
            raise ServiceError(503, "the server is busy building long answers; try again", None, {"Retry-After": "1"})
        assert self._wake is not None, "Builders.start() was not called"
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queues.setdefault(client, deque()).append((future, fn, args))
        self._busy[client] = self._busy.get(client, 0) + 1
        self._waiting += 1
        self._wake.set()
        try:
            return await future
        finally:
            left = self._busy.get(client, 1) - 1
            if left > 0:
                self._busy[client] = left
            else:
                self._busy.pop(client, None)

    def _next(self) -> tuple[asyncio.Future[Any], Callable[..., Any], tuple[Any, ...]] | None:
        """The first job of the client whose turn it is (round-robin: that client goes to the back)."""
        while self._queues:
            client, queue = next(iter(self._queues.items()))
            job = queue.popleft()
            if queue:
                self._queues.move_to_end(client)
            else:
                del self._queues[client]
            self._waiting -= 1
            if not job[0].done():  # the request went away meanwhile
                return job
        return None

    async def _dispatch(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._running < self.slots:
                job = self._next()
                if job is None:
                    break
                self._running += 1
                asyncio.get_running_loop().create_task(self._execute(*job))

    async def _execute(self, future: asyncio.Future[Any], fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        loop = asyncio.get_running_loop()
        try:
            if self._executor is None:
                self._executor = self._new_executor()
            executor = self._executor
            try:
                result = await loop.run_in_executor(executor, fn, *args)
            except BrokenProcessPool:
                log.error("a process building long answers died; starting a new one")
                executor.shutdown(wait=False, cancel_futures=True)
                if self._executor is executor:
                    self._executor = None
                if not future.done():
                    future.set_exception(ServiceError(503, "the server is busy; try again", None, {"Retry-After": "1"}))
                return
            except Exception as exc:  # noqa: BLE001 - handed to the request, which answers for it
                if not future.done():
                    future.set_exception(exc)
                return
            self.done += 1
            if not future.done():
                future.set_result(result)
        finally:
            self._running -= 1
            if self._wake is not None:
                self._wake.set()
