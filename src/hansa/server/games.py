"""Live games on the server: creation, moves, undo, bots, the game lifecycle, persistence and change notification.

:class:`GameService` holds all games of one server process.  It is put together from mixins, one module per concern
in ``hansa/server/service/``, each with the concern's own description:

- ``base.py``: the state every part shares, the database threads (``read``, ``write``) and :class:`StaleCopy`;
- ``copies.py``: keeping this process's copy of a game in step with the database (other processes' change notices);
- ``creation.py``: creating a game;
- ``loading.py``: loading games into memory (``get``), quarantining damaged ones, the lobby list;
- ``moves.py``: playing and undoing moves (how a move is applied and stored);
- ``ending.py``: stopping, deleting and abandoning games, the janitor, the background check of stored games;
- ``bot_turns.py``: the bot task of each game (``kick``);
- ``timer.py``: the clocks' timer (``check_clocks``, timeouts, ``come_back``);
- ``takeover.py``: votes to hand an abandoned seat to a bot;
- ``seat_webhooks.py``: the seats' "your turn" webhooks;
- ``my_games.py``: the "my games" summary;
- ``replays.py``: long answers (move log, history, record, hints, replayed positions);
- ``seat_owners.py``: seats played by accounts (attaching a seat link, an account's games, a deleted account).

The club (accounts, open tables, ratings, profiles: ``accounts.py``, ``tables.py``, ``ratings.py``,
``profiles.py`` beside this file) uses this service and is not used by it.

This module keeps the constructor, :meth:`GameService.start` and :meth:`GameService.stop`, and the names other
modules import from it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from .answers import Builders, ByteCache
from .bots import BotPool
from .config import ServerConfig
from .engines import parse_engines
from .errors import ServiceError
from .notify import conninfo, listen
from .ratelimit import RateLimiter
from .service.base import StaleCopy
from .service.bot_turns import BOT_FALLBACK_AFTER, BotTurnsMixin, backoff
from .service.copies import CopiesMixin
from .service.creation import CreationMixin
from .service.ending import EndingMixin
from .service.loading import LoadingMixin
from .service.moves import MovesMixin
from .service.my_games import MyGamesMixin
from .service.replays import ReplaysMixin
from .service.seat_owners import SeatOwnersMixin
from .service.seat_webhooks import SeatWebhooksMixin
from .service.takeover import TakeoverMixin
from .service.timer import REMOTE_LOOK_DELAY, STUCK_RETRY, TimerMixin
from .sockets import SocketHub
from .store import Store
from .webhooks import Webhooks

__all__ = [
    "BOT_FALLBACK_AFTER", "REMOTE_LOOK_DELAY", "SERVER_BOTS", "server_bots", "STUCK_RETRY", "GameService", "StaleCopy", "backoff",
]

log = logging.getLogger("hansa.server")

SERVER_BOTS = ("random", "purpose", "heuristic", "mcts:easy", "mcts:medium", "mcts:hard")


def server_bots(config: ServerConfig) -> tuple[str, ...]:
    """The bots a client may choose on this server: :data:`SERVER_BOTS` and ``engine:NAME`` for every engine of
    the operator's allow-list (``--engines``)."""
    return SERVER_BOTS + tuple(f"engine:{name}" for name in parse_engines(config.engines))


class GameService(
    CopiesMixin, CreationMixin, LoadingMixin, MovesMixin, EndingMixin, BotTurnsMixin, TimerMixin, TakeoverMixin,
    SeatWebhooksMixin, MyGamesMixin, ReplaysMixin, SeatOwnersMixin,
):
    """All games of one server process."""

    def __init__(
        self, store: Store, config: ServerConfig, hub: SocketHub, now: Callable[[], float] = time.time,
    ) -> None:
        # (the attributes are described where ServiceBase declares them: service/base.py)
        self.store = store
        self.config = config
        self.hub = hub
        self.now = now
        self.webhooks = Webhooks(
            config.webhook_hosts, config.webhook_timeout, delay=config.webhook_delay, interval=config.webhook_interval,
            suspend_after=config.webhook_suspend_after, stands=self._webhook_stands, on_suspend=self._webhook_failing,
        )
        self._clock_wake = asyncio.Event()
        self._earliest = None
        self._stored_during_look = None
        self._in_look = False
        self._clock_stuck = False
        self._look_wanted = True
        self._remote_look = None
        self.listening = None
        self._refreshing = set()
        self._wanted = {}
        self.games = {}
        self.damaged = {}
        self._checked = set()
        self._checking = {}
        self.bots = BotPool(config.bot_processes, parse_engines(config.engines), config.engine_seconds)
        self._load_locks = {}
        # SQLite allows one writer at a time (a waiting writer sleeps in its busy handler), so all SQLite writes go
        # through one thread in arrival order; reads have threads of their own (WAL: readers never block the
        # writer).  PostgreSQL takes concurrent transactions.
        sqlite = store.engine.dialect.name == "sqlite"
        self._writer = ThreadPoolExecutor(max_workers=1 if sqlite else 4, thread_name_prefix="hansa-db-write")
        self._reader = ThreadPoolExecutor(max_workers=2, thread_name_prefix="hansa-db-read")
        self.builders = Builders(config.replay_processes, config.replay_per_client)
        self.answers = ByteCache(config.replay_cache)
        self._undos = RateLimiter(config.undo_per_minute / 60.0, 10)
        self._votes = RateLimiter(config.votes_per_minute / 60.0, 3)
        self._lobby = {}
        self._closing = False
        self._tasks = []

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Restore the games in which a bot must decide (their bots carry on), then start the janitor and a
        background check of every other running game (damaged ones are quarantined)."""
        self.bots.start()
        self.builders.start()
        ids = await self.read(self.store.ids_waiting_for_bots) if self.config.bots == "inline" else []
        restored = 0
        for game_id in ids:
            try:
                live = await self.get(game_id)
            except ServiceError:
                continue  # damaged (quarantined and logged) or gone
            restored += 1
            self.kick(live)
        log.info("restored %d games waiting for bots", restored)
        self.webhooks.start()
        if self.store.notifies:
            self.listening = asyncio.Event()
            self._tasks.append(asyncio.create_task(
                listen(conninfo(self.store.engine), self._on_change, self._on_reconnect, lambda: self._closing,
                       self.listening),
                name="hansa-listen",
            ))
            await asyncio.wait_for(self.listening.wait(), 30)
        self._tasks.append(asyncio.create_task(self._clock_loop(), name="hansa-clocks"))
        self._tasks.append(asyncio.create_task(self._janitor(), name="hansa-janitor"))
        self._tasks.append(asyncio.create_task(self._sweep(), name="hansa-sweep"))

    async def stop(self) -> None:
        self._closing = True
        tasks = [g.bot_task for g in self.games.values() if g.bot_task and not g.bot_task.done()] + self._tasks
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.bots.stop()
        await self.webhooks.stop()
        await self.builders.stop()
        self._reader.shutdown(wait=True)
        self._writer.shutdown(wait=True)
