"""Bot workers (``hansa bots --workers K``): processes that play the bot turns of the games in a PostgreSQL
database, beside any number of web processes started with ``--bots queue``.

The queue is the games table itself: a game whose ``bot_turn`` is set waits for a bot.  A worker takes one with
``SELECT … FOR UPDATE SKIP LOCKED`` and a lease (``--bot-lease`` seconds): it loads the game, lets the seat's bot
decide, and stores the move with the same optimistic revision check as a web process, clearing the lease in that
transaction.  A worker killed while it thinks loses nothing: its lease runs out and another worker takes the turn.
A move that meets a changed game (a human undid, a player came back) is dropped and the turn taken again later.

Games with a human seat come first, then the longest waiting; a game is taken only ``--bot-delay`` seconds after
its last change, so bot moves stay watchable.  Idle workers wait for the database's change notices (or look again
every quarter second).  Decisions that fail are retried with backoff; after three failures a random legal move is
played (logged), as in the web process.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Engine

from .bots import _decide
from .config import ServerConfig
from .db import make_engine, migrate
from .engines import EngineSeats, parse_engines
from .notify import conninfo, parse
from .rows import bot_for, live_from_stored, prepare_move, to_datetime
from .store import CHANNEL, DAMAGED, RUNNING, STOPPED, Damaged, StaleVersion, Store

log = logging.getLogger("hansa.bots")

#: Failures of one decision after which a random legal move is played instead.
FALLBACK_AFTER = 3
#: Longest idle wait between two looks at the queue.
IDLE_WAIT = 0.25


class BotWorker:
    """One worker: ``step()`` plays at most one bot turn."""

    def __init__(self, engine: Engine, config: ServerConfig, name: str, now: Callable[[], float] = time.time) -> None:
        self.store = Store(engine, origin=name)
        self.config = config
        self.name = name
        self.now = now
        self.failures: dict[tuple[str, int], int] = {}
        #: The engine seats' processes (``engine:NAME`` of this worker's ``HANSA_ENGINES``).
        self.engines = EngineSeats(parse_engines(config.engines), config.engine_seconds)
        #: Bot moves stored by this worker.
        self.played = 0

    def step(self) -> str | None:
        """Take the next bot turn and play it; the game's id, or None when no turn waits."""
        now = self.now()
        game_id = self.store.claim_bot_turn(
            self.name, to_datetime(now), to_datetime(now + self.config.bot_lease),  # type: ignore[arg-type]
            to_datetime(now - self.config.bot_delay),  # type: ignore[arg-type]
        )
        if game_id is None:
            return None
        try:
            self._play(game_id)
        except Exception:  # noqa: BLE001 - a worker must live on; the lease makes the turn come back
            log.exception("bot turn of game %s failed", game_id)
            self.store.release_bot_turn(game_id, self.name, to_datetime(self.now() + 1.0))
        return game_id

    def _play(self, game_id: str) -> None:
        try:
            stored = self.store.load(game_id)
        except Damaged as exc:
            log.error("game %s is damaged and quarantined: %s", game_id, exc.reason)
            self.store.set_status(game_id, DAMAGED, exc.reason[:500])
            return
        if stored is None:
            return
        live = live_from_stored(stored, self.config.takeover_after)
        state = live.game.state
        seat = state.decider
        spec = bot_for(live, seat) if live.status == RUNNING and not state.is_over else None
        if spec is None:  # the flag was out of date: no bot must decide
            self.store.store_seats(game_id, {"bot_turn": False, "bot_lease_until": None, "bot_lease_owner": None},
                                   stored.revision)
            return
        if not live.has_human and live.version >= self.config.bot_move_budget:
            budget = self.config.bot_move_budget
            self.store.set_status(game_id, STOPPED, f"stopped after {budget} moves (the move budget of games between bots)")
            return
        key = (game_id, live.version)
        failures = self.failures.get(key, 0)
        seed = (live.game.seed or 0) * 7919 + live.version * 31 + seat + failures
        try:
            if spec.startswith("engine:") and failures < FALLBACK_AFTER:
                text = self.engines.decide((game_id, seat), spec, state.copy(), seed)
            else:
                text = _decide(state.copy(), spec if failures < FALLBACK_AFTER else "random", seed)
            prepared = prepare_move(live, live.game.parse(text), seat, self.now(),
                                    for_player=live.seats[seat].type == "human", cap=self.config.max_moves)
        except Exception as exc:  # noqa: BLE001 - a bot bug (or an illegal move: HansaError) must not stop the game
            self.failures[key] = failures + 1
            log.exception("bot %s failed in game %s (%d in a row): %s", spec, game_id, failures + 1, exc)
            wait = min(30.0, 0.25 * 2.0 ** failures) * random.uniform(0.8, 1.2)
            self.store.release_bot_turn(game_id, self.name, to_datetime(self.now() + wait))
            return
        if failures >= FALLBACK_AFTER:
            log.error("game %s: the %s bot failed %d times; a random move was played", game_id, spec, failures)
        self.failures.pop(key, None)
        row = {**prepared.row, "bot_lease_until": None, "bot_lease_owner": None}
        try:
            self.store.store_move(game_id, prepared.n, seat, prepared.turn, text, row, stored.revision, "bot")
        except StaleVersion:
            log.info("game %s changed while its bot thought; the turn is taken again", game_id)
            return
        self.played += 1


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


def run_worker(database_url: str, config: ServerConfig, name: str, parent: int | None = None,
               stop: threading.Event | None = None) -> None:
    """A worker's loop (until ``stop`` is set, or for ever): play bot turns, wait for change notices when idle."""
    import psycopg

    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s {name} %(levelname)s %(message)s")
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    with_notices = database_url.startswith("postgresql")
    engine = make_engine(database_url, config.db_busy_timeout)
    migrate(engine)
    worker = BotWorker(engine, config, name)
    listener: Any = None
    if with_notices:
        listener = psycopg.connect(conninfo(engine), autocommit=True)
        listener.execute(f"LISTEN {CHANNEL}")
    log.info("bot worker %s ready", name)
    while stop is None or not stop.is_set():
        try:
            played = worker.step()
        except Exception:  # noqa: BLE001 - the database is away: wait and look again
            log.exception("bot worker %s: the queue could not be read", name)
            time.sleep(1.0)
            continue
        if played is not None:
            continue
        if listener is not None:
            for notice in listener.notifies(timeout=IDLE_WAIT, stop_after=1):
                parse(notice.payload)
        else:
            time.sleep(IDLE_WAIT)


def run_workers(database_url: str, config: ServerConfig, workers: int) -> None:
    """``hansa bots``: start ``workers`` worker processes and wait for them (Ctrl-C or SIGTERM stops them all)."""
    context = multiprocessing.get_context("spawn")
    prefix = f"{os.uname().nodename}-{os.getpid()}"
    procs = [
        context.Process(target=run_worker, args=(database_url, config, f"{prefix}-{i}", os.getpid()), daemon=True)
        for i in range(workers)
    ]
    for proc in procs:
        proc.start()

    def stop(*_: Any) -> None:
        for proc in procs:
            proc.terminate()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        while True:
            for i, proc in enumerate(procs):
                if not proc.is_alive():  # a worker died: start another in its place (its turns come back by lease)
                    log.warning("bot worker %d exited (%s); starting another", i, proc.exitcode)
                    procs[i] = context.Process(target=run_worker, args=(database_url, config, f"{prefix}-{i}r",
                                                                        os.getpid()), daemon=True)
                    procs[i].start()
            time.sleep(1.0)
    except KeyboardInterrupt:
        stop()
