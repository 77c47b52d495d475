"""What the parts of :class:`hansa.server.games.GameService` share: its state, the database threads, and the
methods one part calls on another.

:class:`ServiceBase` declares, for the type checker only, the attributes ``GameService.__init__`` sets and the
methods one mixin calls on another (each defined in the module named beside it: mypy checks that the definitions
keep these signatures).  It defines :meth:`~ServiceBase.read` and :meth:`~ServiceBase.write`, which every part uses:
blocking database work runs off the event loop, reads on reader threads and writes on the writer thread(s), and
database errors become 503.  A write that finds the stored game moved on without this copy raises
:class:`StaleCopy` after dropping the copy (``copies.py`` loads it again).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from ...core.moves import Move
from ..answers import Builders, ByteCache
from ..bots import BotPool
from ..config import ServerConfig
from ..errors import ServiceError
from ..live import Credential, LiveGame
from ..ratelimit import RateLimiter
from ..sockets import SocketHub
from ..store import StaleVersion, Store, StoredGame, Unsettled
from ..webhooks import Webhooks

T = TypeVar("T")

log = logging.getLogger("hansa.server")


def _changing_fast(exc: Unsettled) -> ServiceError:
    """503 for a game that kept changing while it was read (see :meth:`Store.load`)."""
    log.info("%s", exc)
    return ServiceError(503, "the game is changing fast; try again", None, {"Retry-After": "1"})


class StaleCopy(ServiceError):
    """This process's copy of a game is behind the database (another process, or a reloaded copy, wrote first):
    the copy is dropped and loaded again; nothing changed."""

    def __init__(self) -> None:
        super().__init__(409, "the game changed meanwhile; nothing changed here, reload")


class ServiceBase:
    """The state and database threads of :class:`~hansa.server.games.GameService`, which every mixin uses."""

    store: Store
    config: ServerConfig
    hub: SocketHub
    #: The time source of the clocks (seconds since the epoch); tests inject their own.
    now: Callable[[], float]
    webhooks: Webhooks
    _clock_wake: asyncio.Event
    #: The earliest deadline of a running game as far as this process knows (seconds since the epoch, None: no
    #: deadline known): read at each look of the timer and lowered by every deadline this process stores.
    _earliest: float | None
    #: The lowest deadline stored here while a look was reading the stored ones (the read may not see it).
    _stored_during_look: float | None
    _in_look: bool
    #: The timer's last look left a deadline that has passed (it looks again after STUCK_RETRY seconds).
    _clock_stuck: bool
    #: The timer must look at the stored deadlines (at start, when asked to, after a reconnection).
    _look_wanted: bool
    #: ``time.monotonic()`` by which the timer looks because another process changed a game not held here.
    _remote_look: float | None
    #: Set once this process listens for other processes' changes (PostgreSQL only).
    listening: asyncio.Event | None
    _refreshing: set[str]
    #: The newest revision other processes announced, per game being brought up to date.
    _wanted: dict[str, int]
    games: dict[str, LiveGame]
    damaged: dict[str, str]
    #: Stored running games replayed since this process started and found sound (see ``_sweep``).
    _checked: set[str]
    _checking: dict[str, asyncio.Task[str | None]]
    bots: BotPool
    _load_locks: dict[str, asyncio.Lock]
    _writer: ThreadPoolExecutor
    _reader: ThreadPoolExecutor
    #: Long answers (log, history, record, replays, hints): built fairly off the event loop, kept within a budget.
    builders: Builders
    answers: ByteCache
    _undos: RateLimiter
    _votes: RateLimiter
    _lobby: dict[tuple[Any, ...], tuple[float, str]]
    _closing: bool
    _tasks: list[asyncio.Task[None]]

    if TYPE_CHECKING:
        # loading.py
        async def get(self, game_id: str) -> LiveGame: ...
        def _live(self, stored: StoredGame) -> LiveGame: ...
        async def _quarantine(self, game_id: str, reason: str) -> None: ...

        # moves.py
        def _locked(
            self, live: LiveGame, still_wanted: Callable[[], Awaitable[bool]] | None,
        ) -> AbstractAsyncContextManager[Any]: ...
        def _check_seat(self, live: LiveGame, token: Credential, seat: int | None) -> tuple[int, str]: ...
        @staticmethod
        def _check_running(live: LiveGame) -> None: ...
        async def _apply(self, live: LiveGame, move: Any, seat: int, actor: str, back: bool = False,
                         for_player: bool = False) -> Move: ...
        def _limit(self, limiter: RateLimiter, live: LiveGame, seat: int, what: str, per_minute: float) -> None: ...
        def _changed(self, live: LiveGame) -> None: ...

        # ending.py
        async def _end(self, live: LiveGame, status: str, note: str) -> bool: ...
        @staticmethod
        def _cancel_bots(live: LiveGame) -> None: ...
        async def _check_stored(self, game_id: str) -> str | None: ...

        # copies.py
        async def _revive(self, game_id: str) -> None: ...

        # bot_turns.py
        def kick(self, live: LiveGame) -> None: ...

        # timer.py
        def wake_clocks(self) -> None: ...
        def _look_soon(self) -> None: ...
        def _deadline_stored(self, live: LiveGame) -> None: ...

        # seat_webhooks.py
        def _notify_turn(self, live: LiveGame, before: int) -> None: ...

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking database reads ``fn(*args)`` on a reader thread; database errors become 503."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self._reader, fn, *args)
        except Unsettled as exc:
            raise _changing_fast(exc) from exc
        except SQLAlchemyError as exc:
            log.warning("database read failed: %s", str(exc).splitlines()[0][:200])
            raise ServiceError(503, "the database is busy or unavailable; try again", None, {"Retry-After": "2"}) from exc

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking database writes ``fn(*args)`` on the writer thread(s); database errors become 503."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self._writer, fn, *args)
        except StaleVersion as exc:
            # the stored game moved on without this copy (it was sent out of memory and loaded again meanwhile):
            # forget this copy; the next request loads the stored game
            stale = self.games.pop(exc.game_id, None)
            if stale is not None:
                self._cancel_bots(stale)
                asyncio.get_running_loop().create_task(self._revive(exc.game_id))
            log.info("game %s: %s", exc.game_id, exc)
            raise StaleCopy() from exc
        except SQLAlchemyError as exc:
            log.warning("database write failed: %s", str(exc).splitlines()[0][:200])
            raise ServiceError(
                503, "the database is busy or unavailable; nothing changed, try again", None, {"Retry-After": "2"}
            ) from exc
