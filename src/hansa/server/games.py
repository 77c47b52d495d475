"""Live games on the server: creation, moves, undo, bots, the game lifecycle, persistence and change notification.

A game in memory is a :class:`LiveGame` (a :class:`hansa.game.Game` guarded by an ``asyncio.Lock``).  A move is
validated by the engine, written to the database in one transaction (move row + game row) and only then
acknowledged and offered to the game's WebSockets (offering never waits: ``sockets.py``).  If writing fails the move
is taken back in memory and the client gets 503 (nothing changed).

Memory holds the games in play: games in which a bot must decide are restored at start, the others are loaded
(replayed from their record) when first asked for, and a janitor sends idle games that nobody watches, finished
ones included, back out of memory, and marks games idle past ``abandon_after`` abandoned.  A stored game that does
not replay is quarantined as damaged (never served for play); the rest of the server carries on.

Bots: a task per game plays the bot seats; decisions run in threads or worker processes (``bots.py``).  Database
errors and bot failures are logged, shown on the game and retried with backoff: a bot never stops silently.

Clocks (``clocks.py``): every move advances the game's clock in the same transaction, and the row keeps the
deciding seat's deadline.  A timer task sleeps until the earliest stored deadline (at most ``clock_poll`` seconds)
and applies the game's timeout policy: the seat is marked away and the timeout bot plays it until its player comes
back, or the seat's turn is ended for it.  The timer reads the stored deadlines only when it looks (at a deadline,
every ``clock_poll`` seconds, and about a second after another process's change notice): in between, it keeps the
earliest one in memory, lowered by every deadline this process stores, so that a move costs the timer no database
read.  The time source is injectable (``now``), so tests drive the clocks without sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar

from sqlalchemy.exc import DataError, SQLAlchemyError

from ..core.errors import HansaError
from ..core.moves import Done, EndTurn, Move
from ..core.scoring import final_scores, winners
from ..game import Game
from ..record.record import FORMAT as RECORD_FORMAT
from ..record.record import VERSION as RECORD_VERSION
from ..view import move_delta
from .answers import (
    CHUNK,
    Builders,
    ByteCache,
    build_hint,
    build_history_chunk,
    build_log_chunk,
    build_position,
    build_record,
)
from .bots import BOTS_ONLY, HUMAN_WAITING, BotPool
from .clocks import TIMEOUT_BOTS, Clock, ClockError, ClockSettings
from .config import ServerConfig
from .db import utcnow
from .errors import ServiceError
from .live import LiveGame, Seat, client_hash, my_game_entry, token_hash, view_message
from .notify import conninfo, listen
from .ratelimit import RateLimiter
from .rows import (
    bot_for,
    bot_turn,
    clock_columns,
    copy_clock,
    game_row,
    live_from_stored,
    prepare_move,
    to_datetime,
    to_seconds,
    undoable,
)
from .sockets import SocketHub
from .store import (
    ABANDONED,
    DAMAGED,
    ENDED,
    OVER,
    RUNNING,
    STOPPED,
    Damaged,
    StaleVersion,
    Store,
    StoredGame,
    StoredMove,
    Unsettled,
    assign_colours,
    clock_of_row,
    decode_cursor,
    seats_of_row,
)
from .webhooks import WebhookRefused, Webhooks

T = TypeVar("T")

log = logging.getLogger("hansa.server")


def _changing_fast(exc: Unsettled) -> ServiceError:
    """503 for a game that kept changing while it was read (see :meth:`Store.load`)."""
    log.info("%s", exc)
    return ServiceError(503, "the game is changing fast; try again", None, {"Retry-After": "1"})


SERVER_BOTS = ("random", "purpose", "heuristic", "mcts:easy", "mcts:medium", "mcts:hard")
#: Consecutive failures of a bot after which one random legal move is played instead (logged and shown).
BOT_FALLBACK_AFTER = 3
#: Seconds between a change notice from another process (for a game not held here) and the timer's look at the
#: stored deadlines, which also takes every other notice that comes meanwhile.
REMOTE_LOOK_DELAY = 1.0
#: Seconds before the timer looks again when its look left a deadline that has passed (a game it could not time
#: out now: busy or unreadable), instead of looking again at once.
STUCK_RETRY = 1.0


class StaleCopy(ServiceError):
    """This process's copy of a game is behind the database (another process, or a reloaded copy, wrote first):
    the copy is dropped and loaded again; nothing changed."""

    def __init__(self) -> None:
        super().__init__(409, "the game changed meanwhile; nothing changed here, reload")


def backoff(failures: int) -> float:
    """Seconds to wait after ``failures`` failures in a row: 0.25, 0.5, 1, ... up to 30, with jitter."""
    return min(30.0, 0.25 * 2.0 ** max(0, failures - 1)) * random.uniform(0.8, 1.2)


class GameService:
    """All games of one server process."""

    def __init__(
        self, store: Store, config: ServerConfig, hub: SocketHub, now: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.config = config
        self.hub = hub
        #: The time source of the clocks (seconds since the epoch); tests inject their own.
        self.now = now
        self.webhooks = Webhooks(
            config.webhook_hosts, config.webhook_timeout, delay=config.webhook_delay, interval=config.webhook_interval,
            suspend_after=config.webhook_suspend_after, stands=self._webhook_stands, on_suspend=self._webhook_failing,
        )
        self._clock_wake = asyncio.Event()
        #: The earliest deadline of a running game as far as this process knows (seconds since the epoch, None: no
        #: deadline known): read at each look of the timer and lowered by every deadline this process stores.
        self._earliest: float | None = None
        #: The lowest deadline stored here while a look was reading the stored ones (the read may not see it).
        self._stored_during_look: float | None = None
        self._in_look = False
        #: The timer's last look left a deadline that has passed (it looks again after STUCK_RETRY seconds).
        self._clock_stuck = False
        #: The timer must look at the stored deadlines (at start, when asked to, after a reconnection).
        self._look_wanted = True
        #: ``time.monotonic()`` by which the timer looks because another process changed a game not held here.
        self._remote_look: float | None = None
        #: Set once this process listens for other processes' changes (PostgreSQL only).
        self.listening: asyncio.Event | None = None
        self._refreshing: set[str] = set()
        #: The newest revision other processes announced, per game being brought up to date.
        self._wanted: dict[str, int] = {}
        self.games: dict[str, LiveGame] = {}
        self.damaged: dict[str, str] = {}
        #: Stored running games replayed since this process started and found sound (see ``_sweep``).
        self._checked: set[str] = set()
        self._checking: dict[str, asyncio.Task[str | None]] = {}
        self.bots = BotPool(config.bot_processes)
        self._load_locks: dict[str, asyncio.Lock] = {}
        # SQLite allows one writer at a time (a waiting writer sleeps in its busy handler), so all SQLite writes go
        # through one thread in arrival order; reads have threads of their own (WAL: readers never block the
        # writer).  PostgreSQL takes concurrent transactions.
        sqlite = store.engine.dialect.name == "sqlite"
        self._writer = ThreadPoolExecutor(max_workers=1 if sqlite else 4, thread_name_prefix="hansa-db-write")
        self._reader = ThreadPoolExecutor(max_workers=2, thread_name_prefix="hansa-db-read")
        #: Long answers (log, history, record, replays, hints): built fairly off the event loop, kept within a budget.
        self.builders = Builders(config.replay_processes, config.replay_per_client)
        self.answers = ByteCache(config.replay_cache)
        self._undos = RateLimiter(config.undo_per_minute / 60.0, 10)
        self._votes = RateLimiter(config.votes_per_minute / 60.0, 3)
        self._lobby: dict[tuple[Any, ...], tuple[float, str]] = {}
        self._closing = False
        self._tasks: list[asyncio.Task[None]] = []

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

    async def _revive(self, game_id: str) -> None:
        """Load a game again from the database and let its bots go on (after its copy in memory went stale)."""
        with contextlib.suppress(ServiceError):
            self.kick(await self.get(game_id))  # (loading it pushes it to the sockets, which saw the stale copy)

    # ------------------------------------------------------------------ other processes' changes (PostgreSQL)

    def _on_change(self, game_id: str, revision: int, origin: str) -> None:
        """A notice from another process: the game changed (revision -1: it was deleted)."""
        if origin == self.store.origin:
            return
        self._lobby.clear()
        if revision < 0:
            live = self.games.pop(game_id, None)
            self.webhooks.forget(game_id)
            if live is not None:
                self._cancel_bots(live)
                live.status = "deleted"
            self.hub.close_game(game_id, 4410, "the game was deleted")
            return
        if game_id not in self.games:
            self._look_soon()  # its deadline may have changed
            self._reload_for_sockets(game_id)
            return
        self._want(game_id, revision)

    def _on_reconnect(self) -> None:
        """Notices may have been missed while the connection was down: check every game held in memory, load
        again the watched ones that are not, and look at the stored deadlines."""
        self.wake_clocks()
        for game_id, live in list(self.games.items()):
            self._want(game_id, live.stored + 1)
        for game_id in list(self.hub.by_game):
            self._reload_for_sockets(game_id)

    def _reload_for_sockets(self, game_id: str) -> None:
        """A game not in memory changed: if sockets here watch it (its copy was dropped because it could not be
        brought up to date), load it again, which pushes it to them; nobody else would until the next request."""
        if game_id not in self.games and self.hub.watched(game_id):
            asyncio.get_running_loop().create_task(self._revive(game_id), name=f"reload-{game_id}")

    def _want(self, game_id: str, revision: int) -> None:
        """The stored game is at ``revision`` (at least): bring the copy there.  Notices that come while a copy is
        being brought up to date raise the mark, and the same task goes on until the copy reaches it."""
        live = self.games.get(game_id)
        if live is None or revision <= live.stored:
            return
        self._wanted[game_id] = max(revision, self._wanted.get(game_id, -1))
        if game_id not in self._refreshing:
            self._refreshing.add(game_id)
            asyncio.get_running_loop().create_task(self._refresh(game_id), name=f"refresh-{game_id}")

    async def _refresh(self, game_id: str) -> None:
        try:
            while True:
                live = self.games.get(game_id)
                if live is None or self._wanted.get(game_id, -1) <= live.stored:
                    return
                if not await self._refresh_once(game_id, live):
                    self._look_soon()  # the game's stored deadline is not known here
                    return  # nothing newer is stored (or the database is away): the next notice starts again
                self._deadline_stored(live)
                self.kick(live)
        finally:
            self._refreshing.discard(game_id)
            self._wanted.pop(game_id, None)

    async def _refresh_once(self, game_id: str, live: LiveGame) -> bool:
        """Bring the copy up to the stored game and push the new views: the new moves are played on the copy when
        its own moves are still the stored ones, otherwise (an undo elsewhere, anything unexpected) the game is
        loaded again.  False when nothing newer was found."""
        async with live.lock:
            try:
                tail = await self.read(self.store.load_tail, game_id, max(1, live.version))
            except ServiceError:
                return False
            if tail is None:
                self.games.pop(game_id, None)
                self._cancel_bots(live)
                self.hub.close_game(game_id, 4410, "the game was deleted")
                return False
            row, moves = tail
            if int(row["revision"]) <= live.stored:
                return False
            if not self._catch_up(live, row, moves):
                try:
                    stored = await self.read(self.store.load, game_id)
                except (ServiceError, Damaged):
                    self.games.pop(game_id, None)  # loaded (and checked) again at the next request
                    return False
                if stored is None:
                    return False
                fresh = self._live(stored)
                live.adopt(fresh)
            self._changed(live)
            return True

    @staticmethod
    def _catch_up(live: LiveGame, row: dict[str, Any], moves: list[StoredMove]) -> bool:
        """Play the stored moves after the copy's on it and take the row's seats, clock and status; False (copy
        untouched) when the copy's last move is not the stored one or anything does not fit."""
        game = live.game
        have = live.version
        if int(row["version"]) < have:
            return False
        if have and (not moves or moves[0][:2] != (have, live.texts[-1])):
            return False
        new = moves[1:] if have else moves
        if [n for n, *_ in new] != list(range(have + 1, int(row["version"]) + 1)):
            return False
        try:
            seats, clock = seats_of_row(row["players"]), clock_of_row(row["clock"])
            if len(seats) != len(live.seats):
                return False
            states = []
            state = game.state.copy()
            for _, text, _actor in new:
                before = state.copy()
                state.play(game.parse(text))
                states.append(before)
        except (Damaged, HansaError):
            return False
        for (n, text, actor), before in zip(new, states):
            move = game.play(text)
            live.moved(move.text(), actor)
            live.record_delta(n, move_delta(before, game.state))
            live.scores.append(list(game.state.score))
        live.seats = seats
        if clock is not None:
            live.clock = clock
        live.status, live.status_note, live.stored = row["status"], row["status_note"], int(row["revision"])
        if live.status == RUNNING and game.state.is_over:
            live.status = OVER
        return True

    # ------------------------------------------------------------------ creation and loading

    async def create(
        self, players: list[dict[str, Any]], options: dict[str, Any], seed: int | None,
        table: dict[str, Any] | None = None, clock: dict[str, Any] | None = None, client: str = "unknown",
        prefix: list[tuple[int, str]] | None = None,
    ) -> tuple[LiveGame, list[str | None], str | None, str]:
        """Create and store a game.  ``players`` are ``{name, type, bot, colour}`` (colour a key of PALETTE or
        None); ``table`` the table options (``hotseat``: every human seat is played at one screen, with one
        hot-seat token and no seat tokens; otherwise each human seat has its own token and there is no hot-seat
        token); ``clock`` the clock settings (:class:`ClockSettings`, None: no clock); ``client`` the creating
        client's address (the per-client cap on running games); ``prefix`` moves (seat, text) played at once, before
        any bot moves (a tutorial that starts from a late position).  Returns the game, the token of every human seat
        (None for bots and in hot-seat games), the hot-seat token (None unless hot seat) and the creator token."""
        try:
            settings = ClockSettings.from_json(clock)
        except ClockError as exc:
            raise ServiceError(400, str(exc)) from exc
        creator_client = client_hash(client)
        running, mine = await self.read(self.store.count_running, creator_client)
        if running >= self.config.max_live_games:
            raise ServiceError(
                429, f"the server has {running} games in play (its limit); try again later", None, {"Retry-After": "60"}
            )
        if mine >= self.config.max_live_games_per_client:
            raise ServiceError(
                429, f"this client has created {mine} games that are still in play (the limit per client); finish, "
                     "stop or delete one first", None, {"Retry-After": "600"},
            )
        hot_seat = bool((table or {}).get("hotseat", False))
        seats: list[Seat] = []
        tokens: list[str | None] = []
        chosen_colours = [p.get("colour") for p in players if p.get("colour")]
        if len(set(chosen_colours)) != len(chosen_colours):
            raise ServiceError(400, "two seats chose the same colour")
        for p in players:
            colour = p.get("colour") or ""
            if p["type"] == "bot" or hot_seat:
                seats.append(Seat(p["name"], p["type"], p["bot"], None, colour))
                tokens.append(None)
            else:
                token = secrets.token_urlsafe(18)
                seats.append(Seat(p["name"], "human", None, token_hash(token), colour))
                tokens.append(token)
        assign_colours(seats)
        table_opts: dict[str, Any] = {"hints": bool((table or {}).get("hints", True)), "hotseat": hot_seat}
        if (table or {}).get("tutorial"):
            table_opts["tutorial"] = str((table or {})["tutorial"])
        hotseat: str | None = secrets.token_urlsafe(18) if hot_seat else None
        creator = secrets.token_urlsafe(18)
        chosen = seed is not None
        if seed is None:
            # 53 bits: too many to search for the seed that matches what the board shows, and still a number that
            # JavaScript reads exactly
            seed = secrets.randbits(53)
        try:
            game = Game([s.name for s in seats], seed=seed, options=options, undo="own")
        except HansaError as exc:
            raise ServiceError(400, str(exc)) from exc
        game_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        live = LiveGame(
            game_id, game, seats, token_hash(hotseat) if hotseat else "", creator_hash=token_hash(creator), seed_public=chosen,
            scores=[list(game.state.score)], table=table_opts,
            clock=Clock.start(settings, len(seats), game.state.decider, self.now()),
            takeover_after=self.config.takeover_after,
        )
        now = utcnow()
        await self.write(self.store.insert_game, {
            "id": game_id, "seed": seed, "options": game.options.changed(),
            "players": [s.to_json() for s in seats],
            "clock": live.clock.to_json(), "deadline": to_datetime(live.clock.deadline()),
            "table_options": table_opts,
            "hotseat_hash": live.hotseat_hash, "creator_hash": live.creator_hash, "seed_public": chosen,
            "status": RUNNING, "status_note": None, "version": 0, "turn": game.state.turn,
            "snapshot": game.state.to_snapshot(), "bot_turn": bot_turn(live), "created_at": now, "updated_at": now,
            "has_human": live.has_human, "creator_client": creator_client, "active_at": now,
        })
        self.games[game_id] = live
        if prefix:
            async with live.lock:
                for seat, text in prefix:
                    await self._apply(live, text, seat, "bot" if seats[seat].type == "bot" else ("hotseat" if hot_seat else "seat"))
        self._lobby.clear()
        self._deadline_stored(live)
        self.kick(live)
        self._notify_turn(live, -1)
        return live, tokens, hotseat, creator

    async def get(self, game_id: str) -> LiveGame:
        """The game, loaded from the database (by replaying its record) on first use.  404 for an unknown game,
        409 for a damaged one."""
        live = self.games.get(game_id)
        if live is not None:
            live.touched = time.monotonic()
            return live
        if game_id in self.damaged:
            raise self._damaged_error(game_id, self.damaged[game_id])
        lock = self._load_locks.setdefault(game_id, asyncio.Lock())
        try:
            async with lock:
                live = self.games.get(game_id)
                if live is None:
                    live = await self._load(game_id)
                    self.games[game_id] = live
                    if self.hub.watched(game_id):
                        # sockets that outlived the game's last copy (sent out of memory after it went stale or could
                        # not be brought up to date) get the game as it is now: no notice will come for it
                        self._changed(live)
        finally:
            if not lock.locked():
                self._load_locks.pop(game_id, None)
        return live

    async def _load(self, game_id: str) -> LiveGame:
        try:
            stored = await asyncio.get_running_loop().run_in_executor(self._reader, self.store.load, game_id)
        except Unsettled as exc:
            raise _changing_fast(exc) from exc
        except Damaged as exc:
            await self._quarantine(game_id, exc.reason)
            raise self._damaged_error(game_id, exc.reason) from None
        except SQLAlchemyError as exc:
            if not isinstance(exc, DataError):  # the database is busy or gone, not the row damaged
                raise ServiceError(503, "the database is busy or unavailable; try again", None, {"Retry-After": "2"}) from exc
            reason = f"unreadable row ({type(exc).__name__})"
            await self._quarantine(game_id, reason)
            raise self._damaged_error(game_id, reason) from None
        except Exception as exc:  # noqa: BLE001 - a row the database driver cannot even decode
            reason = f"unreadable row ({type(exc).__name__})"
            log.exception("game %s: %s", game_id, reason)
            await self._quarantine(game_id, reason)
            raise self._damaged_error(game_id, reason) from None
        if stored is None:
            raise ServiceError(404, f"there is no game {game_id!r}")
        if stored.status == DAMAGED:
            self.damaged[game_id] = stored.status_note or "damaged"
            raise self._damaged_error(game_id, self.damaged[game_id])
        if not stored.snapshot_matches:
            log.warning("game %s: stored snapshot differs from the replayed record; the record wins", game_id)
        return self._live(stored)

    def _live(self, stored: StoredGame) -> LiveGame:
        return live_from_stored(stored, self.config.takeover_after)

    async def _quarantine(self, game_id: str, reason: str) -> None:
        log.error("game %s is damaged and quarantined: %s", game_id, reason)
        self.damaged[game_id] = reason
        self._lobby.clear()
        try:
            await self.write(self.store.set_status, game_id, DAMAGED, reason[:500])
        except ServiceError:
            pass  # listed as damaged in memory; marked in the database at the next load

    @staticmethod
    def _damaged_error(game_id: str, reason: str) -> ServiceError:
        return ServiceError(
            409, f"game {game_id} is damaged and not served for play: {reason} (`hansa db check` lists damaged games)"
        )

    async def lobby(self, limit: int, cursor: str | None, status: str | None) -> str:
        """A page of the lobby list as JSON (summary columns only), served from memory for ``lobby_cache`` seconds."""
        before = None
        if cursor:
            try:
                before = decode_cursor(cursor)
            except (ValueError, UnicodeDecodeError):
                raise ServiceError(400, "before: not a cursor this server gave out") from None
        key = (limit, cursor, status)
        now = time.monotonic()
        hit = self._lobby.get(key)
        if hit is not None and hit[0] > now:
            return hit[1]
        data = await self.read(self.store.list_games, limit, before, status)
        for entry in data["games"]:
            # a stored game not checked since this process started (the background sweep may not have reached
            # it yet): checked now, so that a damaged game is never listed as running
            game_id = entry["id"]
            if entry["status"] == RUNNING and game_id not in self.games and game_id not in self._checked:
                reason = self.damaged.get(game_id) or await self._check_stored(game_id)
                if reason is not None:
                    entry["status"], entry["note"] = DAMAGED, reason
        page = json.dumps(data, separators=(",", ":"))
        if len(self._lobby) > 64:
            self._lobby.clear()
        self._lobby[key] = (now + self.config.lobby_cache, page)
        return page

    # ------------------------------------------------------------------ moves

    @contextlib.asynccontextmanager
    async def _locked(self, live: LiveGame, still_wanted: Callable[[], Awaitable[bool]] | None) -> Any:
        """The game's lock, waited for at most ``lock_timeout`` seconds (503 after that, nothing done); a request
        whose client gave up meanwhile is not carried out."""
        waited = live.lock.locked()
        if not waited:
            await live.lock.acquire()  # free: taken at once
        else:
            try:
                await asyncio.wait_for(live.lock.acquire(), self.config.lock_timeout)
            except TimeoutError:
                raise ServiceError(503, "the game is busy; nothing changed, try again", None, {"Retry-After": "1"}) from None
        try:
            if waited and still_wanted is not None and not await still_wanted():
                raise ServiceError(408, "the client gave up before the game was free; nothing changed")
            yield
        finally:
            live.lock.release()

    def _check_seat(self, live: LiveGame, token: str | None, seat: int | None) -> tuple[int, str]:
        """The seat a request acts for (``seat``, or by default the deciding seat if the token controls it) and
        the kind of token (``seat`` or ``hotseat``); 403 when the token does not control it."""
        seats, actor = live.authority(token)
        if not seats or actor is None:
            raise ServiceError(403, "this link may only watch the game (no valid seat token)")
        decider = live.game.state.decider
        if seat is None:
            seat = decider if decider in seats else seats[0]
        if seat not in seats:
            raise ServiceError(403, f"your token does not control seat {seat}")
        return seat, actor

    @staticmethod
    def _check_running(live: LiveGame) -> None:
        if live.status == OVER:
            raise ServiceError(422, "the game is over", "§4.2")
        if live.status != RUNNING:
            raise ServiceError(409, f"the game was {live.status}" + (f": {live.status_note}" if live.status_note else ""))

    async def play(
        self, game_id: str, token: str | None, move: Any, version: int | None, seat: int | None,
        still_wanted: Callable[[], Awaitable[bool]] | None = None,
    ) -> LiveGame:
        """Play a seat's move.  When this process's copy of the game turns out to be behind the database (another
        process took a move first), the game is loaded again and the move tried once more on it: checked against
        the new position and the client's ``version`` (so the same move sent to two processes is taken once)."""
        try:
            return await self._play(game_id, token, move, version, seat, still_wanted)
        except StaleCopy:
            return await self._play(game_id, token, move, version, seat, still_wanted)

    async def _play(
        self, game_id: str, token: str | None, move: Any, version: int | None, seat: int | None,
        still_wanted: Callable[[], Awaitable[bool]] | None,
    ) -> LiveGame:
        live = await self.get(game_id)
        async with self._locked(live, still_wanted):
            seat, actor = self._check_seat(live, token, seat)
            if version is not None and version != live.version:
                raise ServiceError(409, f"the game has moved on (version {live.version}, you sent {version}); reload")
            self._check_running(live)
            state = live.game.state
            if seat != state.decider:
                raise ServiceError(403, f"it is not your decision: {live.seats[state.decider].name} (seat {state.decider}) must decide")
            # a player whose seat a bot plays after a timeout is back as soon as they move
            await self._apply(live, move, seat, actor, back=live.clock.is_away(seat))
        self.kick(live)
        return live

    async def _apply(self, live: LiveGame, move: Any, seat: int, actor: str, back: bool = False,
                     for_player: bool = False) -> Move:
        """Validate the move on a copy of the position, store the result, and only then play it on the game: memory
        never shows a move the database does not hold (a failed write leaves the game untouched: 503).  ``actor``:
        the kind of token that made it (``seat``, ``hotseat``, ``bot``, ``clock``).  The move that reaches
        ``--max-moves`` stops the game.  Caller holds the lock."""
        game = live.game
        try:
            parsed = game.parse(move)
        except HansaError as exc:
            raise ServiceError(400, str(exc)) from exc
        before = game.state.decider
        try:
            prepared = prepare_move(live, parsed, seat, self.now(), back, for_player and live.seats[seat].type == "human",
                                    cap=self.config.max_moves)
        except HansaError as exc:
            raise ServiceError(422, str(exc), getattr(exc, "rule", None) or None) from exc
        n, after, clock = prepared.n, prepared.after, prepared.clock
        text = parsed.text()
        live.stored = await self.write(
            self.store.store_move, live.id, n, seat, prepared.turn, text, prepared.row, live.stored, actor,
        )
        live.record_delta(n, move_delta(game.state, after))
        game.play(parsed, seat)
        live.moved(text, actor)
        live.clock = clock
        if game.state.is_over:
            live.status = OVER
        elif prepared.capped:
            live.status, live.status_note = STOPPED, prepared.row["status_note"]
            self._lobby.clear()
            log.info("game %s stopped at the move cap (%d moves)", live.id, n)
        live.scores.append(list(game.state.score))
        self._changed(live)
        self._deadline_stored(live)
        self._notify_turn(live, before)
        return parsed

    async def undo(
        self, game_id: str, token: str | None, version: int | None, seat: int | None,
        still_wanted: Callable[[], Awaitable[bool]] | None = None,
    ) -> LiveGame:
        live = await self.get(game_id)
        async with self._locked(live, still_wanted):
            seats, actor = live.authority(token)
            if not seats:
                raise ServiceError(403, "this link may only watch the game (no valid seat token)")
            if version is not None and version != live.version:
                raise ServiceError(409, f"the game has moved on (version {live.version}, you sent {version}); reload")
            self._check_running(live)
            game = live.game
            if seat is None:
                seat = game.movers[-1] if game.movers and game.movers[-1] in seats else seats[0]
            if seat not in seats:
                raise ServiceError(403, f"your token does not control seat {seat}")
            if undoable(live, seat) < 1:
                raise ServiceError(422, "nothing to undo: only your own latest moves, before anyone else moves or a marker is revealed")
            self._limit(self._undos, live, seat, "undos", self.config.undo_per_minute)
            before = len(game.moves)
            earlier = game.state_before()
            clock = copy_clock(live.clock)
            clock.undo(earlier.decider, game.state.turn - earlier.turn, self.now())
            live.stored = await self.write(
                self.store.store_undo, live.id, game_row(live, earlier, before - 1, clock), live.stored, seat,
                actor or "seat", live.texts[-1],
            )
            log.info("game %s: seat %d (%s token) took back move %d", live.id, seat, actor, before)
            game.undo_own(seat)
            live.undone()
            live.clock = clock
            live.scores.pop()
            live.deltas.pop(before, None)
            self._changed(live)
            self._deadline_stored(live)
        return live

    def _limit(self, limiter: RateLimiter, live: LiveGame, seat: int, what: str, per_minute: float) -> None:
        """429 when ``seat`` of ``live`` has used up its rate of ``what`` (nothing done)."""
        wait = limiter.take(f"{live.id}:{seat}")
        if wait > 0:
            raise ServiceError(
                429, f"a seat may make {per_minute:g} {what} a minute; wait {math.ceil(wait)} s", None,
                {"Retry-After": str(math.ceil(wait))},
            )

    def _changed(self, live: LiveGame) -> None:
        """The game changed: new revision, and its new views offered to its sockets (offering never waits)."""
        live.revision += 1
        live.touched = time.monotonic()
        self.hub.publish(live.id, lambda seats: view_message(live, seats))

    # ------------------------------------------------------------------ stop, delete, abandon

    def _require_creator(self, live: LiveGame, token: str | None) -> None:
        if not live.is_creator(token):
            raise ServiceError(403, "only the game's creator (with the creator token) may do this")

    async def stop_game(self, game_id: str, token: str | None) -> LiveGame:
        """The creator ends a running game (status "stopped"; its bots stop; the seed is published)."""
        live = await self.get(game_id)
        self._require_creator(live, token)
        self._check_running(live)
        await self._end(live, STOPPED, "stopped by its creator")
        return live

    async def delete_game(self, game_id: str, token: str | None) -> None:
        """The creator deletes a game: its rows, its place in memory, its sockets (closed with 4410)."""
        live = await self.get(game_id)
        self._require_creator(live, token)
        async with self._locked(live, None):
            self._cancel_bots(live)
            await self.write(self.store.delete_game, game_id)
            self.webhooks.forget(game_id)
            live.status = "deleted"
            self.games.pop(game_id, None)
            self._lobby.clear()
        self.hub.close_game(game_id, 4410, "the game was deleted")

    async def _end(self, live: LiveGame, status: str, note: str) -> bool:
        """End a running game with ``status`` (stopped or abandoned).  False if it was no longer running."""
        async with self._locked(live, None):
            if live.status != RUNNING:
                return False
            if live.bot_task is not asyncio.current_task():
                self._cancel_bots(live)
            changed = await self.write(self.store.set_status, live.id, status, note, RUNNING)
            if changed is None:
                return False
            live.stored = changed
            live.status, live.status_note = status, note
            self._lobby.clear()
            log.info("game %s %s: %s", live.id, status, note)
            self._changed(live)
        return True

    @staticmethod
    def _cancel_bots(live: LiveGame) -> None:
        if live.bot_task is not None and not live.bot_task.done() and live.bot_task is not asyncio.current_task():
            live.bot_task.cancel()

    async def _janitor(self) -> None:
        """Every ``janitor_interval`` seconds: mark games idle past ``abandon_after`` abandoned, and send games
        nobody watches or plays (no bot thinking, no move for ``evict_after`` seconds) out of memory."""
        while not self._closing:
            await asyncio.sleep(self.config.janitor_interval)
            try:
                await self.sweep_idle()
            except Exception:  # noqa: BLE001 - the janitor must live on
                log.exception("janitor pass failed")

    async def sweep_idle(self) -> None:
        for game_id in await self.read(self.store.idle_running, self.config.abandon_after):
            try:
                live = await self.get(game_id)
            except ServiceError:
                continue
            idle_days = self.config.abandon_after / 86400
            await self._end(live, ABANDONED, f"no move for {idle_days:g} days")
        now = time.monotonic()
        for game_id, live in list(self.games.items()):
            busy = live.bot_task is not None and not live.bot_task.done()
            if busy or live.lock.locked() or self.hub.watched(game_id):
                continue
            if now - live.touched >= self.config.evict_after:
                del self.games[game_id]

    async def _sweep(self) -> None:
        """Replay, one at a time and in the background, every running game not in memory, newest first (the
        order of the lobby): damaged ones are quarantined (and listed as such) without waiting for someone to open
        them."""
        try:
            ids = await self.read(self.store.running_ids)
        except Exception:  # noqa: BLE001
            log.exception("could not list the running games to check them")
            return
        checked = 0
        for game_id in ids:
            if self._closing:
                return
            if game_id in self.games or game_id in self.damaged or game_id in self._checked:
                continue
            await self._check_stored(game_id)
            checked += 1
            await asyncio.sleep(0.002)
        log.info("checked %d stored running games", checked)

    async def _check_stored(self, game_id: str) -> str | None:
        """Replay a stored game to see that it is sound: quarantine it if it is damaged (the reason), None if it is
        sound or cannot be read just now (a busy database is no damage: it is checked again later).  Concurrent
        checks of one game share the work."""
        pending = self._checking.get(game_id)
        if pending is not None:
            return await asyncio.shield(pending)
        task = asyncio.get_running_loop().create_task(self._check_once(game_id))
        self._checking[game_id] = task
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                self._checking.pop(game_id, None)

    async def _check_once(self, game_id: str) -> str | None:
        reason: str | None = None
        try:
            await asyncio.get_running_loop().run_in_executor(self._reader, self.store.load, game_id)
        except Damaged as exc:
            reason = exc.reason
        except (Unsettled, SQLAlchemyError) as exc:
            if not isinstance(exc, DataError):
                return None
            reason = f"unreadable row ({type(exc).__name__})"
        except Exception as exc:  # noqa: BLE001 - a row the database driver cannot even decode
            reason = f"unreadable row ({type(exc).__name__})"
        if reason is None:
            self._checked.add(game_id)
            return None
        await self._quarantine(game_id, reason)
        return reason

    # ------------------------------------------------------------------ bots

    def kick(self, live: LiveGame) -> None:
        """Make sure the game's bot task runs if a bot must decide (with ``--bots queue`` the bot workers play
        them: nothing to do here)."""
        if self._closing or self.config.bots == "queue" or not bot_turn(live):
            return
        if live.bot_task is None or live.bot_task.done():
            live.bot_task = asyncio.create_task(self._run_bots(live), name=f"bots-{live.id}")

    def _set_error(self, live: LiveGame, error: str | None) -> None:
        if live.error != error:
            live.error = error
            self._changed(live)

    async def _run_bots(self, live: LiveGame) -> None:
        failures = 0
        while not self._closing and live.status == RUNNING and self.games.get(live.id) is live:
            state = live.game.state
            if state.is_over:
                return
            seat = state.decider
            spec = bot_for(live, seat)
            if spec is None:
                return
            if not live.has_human and live.version >= self.config.bot_move_budget:
                budget = self.config.bot_move_budget
                await self._end(live, STOPPED, f"stopped after {budget} moves (the move budget of games between bots)")
                return
            if self.config.bot_delay:
                await asyncio.sleep(self.config.bot_delay)
            version = live.version
            seed = (live.game.seed or 0) * 7919 + version * 31 + seat + failures
            fallback = failures >= BOT_FALLBACK_AFTER
            try:
                if fallback:
                    text = await self.bots.decide(state, "random", seed, HUMAN_WAITING)
                else:
                    text = await self.bots.decide(state, spec, seed, HUMAN_WAITING if live.has_human else BOTS_ONLY)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - a bot bug or a dead worker must not stop the game
                failures += 1
                log.exception("bot %s failed in game %s (%d in a row)", spec, live.id, failures)
                self._set_error(live, f"the {spec} bot failed ({type(exc).__name__}); retrying")
                await asyncio.sleep(backoff(failures))
                continue
            try:
                async with live.lock:
                    if live.version != version or live.status != RUNNING or bot_for(live, seat) != spec:
                        continue  # someone undid or moved meanwhile, or the seat's player came back: think again
                    await self._apply(live, text, seat, "bot", for_player=True)
            except StaleCopy:
                return  # this copy was dropped; the game is loaded again and its bots go on from there
            except ServiceError as exc:
                failures += 1
                if exc.status == 503:
                    log.warning("game %s: the database refused a bot move (%d in a row); retrying", live.id, failures)
                    if failures >= 2:
                        self._set_error(live, "the database is not answering; the bots will go on when it does")
                else:  # an illegal bot move would be a bot bug
                    log.error("bot %s made an illegal move %s in game %s: %s", spec, text, live.id, exc.message)
                    self._set_error(live, f"the {spec} bot made an illegal move; retrying")
                await asyncio.sleep(backoff(failures))
                continue
            if fallback:
                log.error("game %s: the %s bot failed %d times; a random move was played", live.id, spec, failures)
            failures = 0
            self._set_error(live, None)

    # ------------------------------------------------------------------ clocks, away seats, takeovers, webhooks

    def wake_clocks(self) -> None:
        """Make the timer look at the stored deadlines now (when a test moved its time source on, or notices from
        other processes may have been missed)."""
        self._look_wanted = True
        self._clock_wake.set()

    def _look_soon(self) -> None:
        """Another process changed a game whose clock this process does not hold: the timer looks at the stored
        deadlines within REMOTE_LOOK_DELAY seconds (one look for all the notices that come meanwhile)."""
        if self._remote_look is None:
            self._remote_look = time.monotonic() + REMOTE_LOOK_DELAY
            self._clock_wake.set()

    def _deadline_stored(self, live: LiveGame) -> None:
        """This process has just stored ``live``'s clock: a deadline earlier than the earliest the timer knows
        wakes it, to sleep until then instead (a later one needs nothing: the timer looks again when the
        deadline it knows comes, and then reads the stored ones)."""
        deadline = live.clock.deadline() if live.status == RUNNING else None
        if deadline is None:
            return
        if self._in_look and (self._stored_during_look is None or deadline < self._stored_during_look):
            self._stored_during_look = deadline
        if self._earliest is None or deadline < self._earliest:
            self._earliest = deadline
            self._clock_stuck = False
            self._clock_wake.set()

    async def _look_at_clocks(self) -> bool:
        """Time out the games whose deciding seat has run out of time, then read the earliest stored deadline; True
        when a deadline that has passed is left (a game that could not be timed out now)."""
        done = 0
        try:
            done = await self.check_clocks()
        except Exception:  # noqa: BLE001 - the timer must live on
            log.exception("clock pass failed")
        self._in_look, self._stored_during_look = True, None
        try:
            earliest = await self.read(self.store.next_deadline)
            known = to_seconds(earliest) if earliest is not None else None
        except ServiceError:
            known = None  # the database is not answering: look again after clock_poll
        finally:
            stored, self._in_look, self._stored_during_look = self._stored_during_look, False, None
        if known is None or (stored is not None and stored < known):
            known = stored
        self._earliest = known
        return done == 0 and known is not None and known <= self.now()

    async def _clock_loop(self) -> None:
        """Look at the clocks (:meth:`_look_at_clocks`), then sleep until the earliest deadline known, at most
        ``clock_poll`` seconds, or until another process's change or :meth:`wake_clocks` asks for a look; a move
        here that stores an earlier deadline shortens the sleep."""
        poll = self.config.clock_poll
        while not self._closing:
            self._look_wanted, self._remote_look = False, None
            self._clock_stuck = await self._look_at_clocks()
            looked = time.monotonic()
            while not self._closing:
                mono = time.monotonic()
                if self._look_wanted or mono - looked >= poll:
                    break
                if self._remote_look is not None and mono >= self._remote_look:
                    break
                wait = poll - (mono - looked)
                if self._remote_look is not None:
                    wait = min(wait, self._remote_look - mono)
                if self._earliest is not None:
                    until = self._earliest - self.now()
                    if self._clock_stuck and until <= 0:
                        until = looked + STUCK_RETRY - mono  # not again at once for a deadline it could not apply
                    if until <= 0:
                        break
                    wait = min(wait, until)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._clock_wake.wait(), wait)
                self._clock_wake.clear()

    async def check_clocks(self) -> int:
        """Apply the timeout policy to every game whose deciding seat has run out of time; how many timed out."""
        ids = await self.read(self.store.expired_ids, to_datetime(self.now()))
        done = 0
        for game_id in ids:
            try:
                live = await self.get(game_id)
                done += await self._time_out(live)
            except ServiceError as exc:
                log.warning("game %s: timeout not applied: %s", game_id, exc.message)
        return done

    async def _time_out(self, live: LiveGame) -> bool:
        async with self._locked(live, None):
            now = self.now()
            clock = live.clock
            if live.status != RUNNING or live.game.state.is_over or not clock.expired(now):
                # the stored deadline is out of date (the game moved on meanwhile): store the right one
                live.stored = await self.write(self.store.store_seats, live.id, clock_columns(clock), live.stored)
                self._deadline_stored(live)
                return False
            seat = clock.seat
            log.info("game %s: seat %d ran out of time (%s)", live.id, seat, clock.settings.on_timeout)
            if clock.settings.on_timeout == "bot":
                changed = copy_clock(clock)
                changed.set_away(seat, True, now)
                live.stored = await self.write(self.store.store_seats, live.id, {
                    **clock_columns(changed), "bot_turn": bot_turn(live, None, changed),
                }, live.stored)
                live.clock = changed
                self._changed(live)
                self._deadline_stored(live)
            else:
                await self._end_turn_for(live, seat)
        self.kick(live)
        return True

    async def _end_turn_for(self, live: LiveGame, seat: int) -> None:
        """The end-turn policy: ``end`` (or ``done``) when it is legal, else the heuristic bot's choice, until
        another seat must decide.  Caller holds the lock."""
        for _ in range(200):  # a turn has far fewer decisions; the bound only guards against a loop
            state = live.game.state
            if live.status != RUNNING or state.is_over or state.decider != seat:
                return
            legal = state.legal_moves()
            forced = next((m for m in legal if isinstance(m, (EndTurn, Done))), None)
            if forced is not None:
                text = forced.text()
            else:
                text = await self.bots.decide(state, "heuristic", (live.game.seed or 0) + live.version, HUMAN_WAITING)
            await self._apply(live, text, seat, "clock", for_player=True)

    async def come_back(self, game_id: str, token: str | None, seat: int | None) -> LiveGame:
        """The player of a seat that a bot plays after a timeout takes it back."""
        live = await self.get(game_id)
        async with self._locked(live, None):
            seats = [s for s in live.seats_of(token) if live.seats[s].type == "human"]
            if not seats:
                raise ServiceError(403, "only the seat's player may take it back (no valid seat token)")
            if seat is None:
                seat = next((s for s in seats if live.clock.is_away(s)), seats[0])
            if seat not in seats:
                raise ServiceError(403, f"your token does not control seat {seat}")
            self._check_running(live)
            if not live.clock.is_away(seat):
                raise ServiceError(409, f"seat {seat} is not away: nothing to take back")
            clock = copy_clock(live.clock)
            clock.set_away(seat, False, self.now())
            live.stored = await self.write(self.store.store_seats, live.id, {
                **clock_columns(clock), "bot_turn": bot_turn(live, None, clock),
            }, live.stored)
            live.clock = clock
            self._changed(live)
            self._deadline_stored(live)
        return live

    def abandoned(self, live: LiveGame, seat: int) -> bool:
        """A human seat the other players may hand to a bot: away after a timeout, or deciding for
        ``takeover_after`` seconds without a move."""
        clock = live.clock
        return live.seats[seat].type == "human" and (
            clock.is_away(seat) or clock.idle(seat, self.now()) >= self.config.takeover_after
        )

    async def vote_takeover(self, game_id: str, token: str | None, target: int, bot: str | None) -> LiveGame:
        """A player votes for a bot (level ``bot``; None withdraws the vote) to take over the abandoned seat
        ``target`` for the rest of the game.  More than half of the other human seats still present decide; the
        seat then becomes a bot seat and its token may only watch."""
        live = await self.get(game_id)
        async with self._locked(live, None):
            self._check_running(live)
            if not 0 <= target < len(live.seats):
                raise ServiceError(404, f"there is no seat {target}")
            voters = [s for s in live.seats_of(token) if s != target and live.seats[s].type == "human"]
            if not voters:
                raise ServiceError(403, "only the other players of the game may vote (a seat token of another seat)")
            if bot is not None and bot not in TIMEOUT_BOTS:
                raise ServiceError(400, f"bot: one of {', '.join(TIMEOUT_BOTS)}")
            if live.seats[target].type != "human":
                raise ServiceError(409, f"seat {target} is already played by a bot")
            if bot is not None and not self.abandoned(live, target):
                hours = self.config.takeover_after / 3600
                raise ServiceError(
                    409, f"seat {target} is not abandoned: a bot may take over a seat that timed out or has been "
                         f"deciding for {hours:g} hours without a move",
                )
            unchanged = all(live.clock.votes.get(target, {}).get(v) == bot for v in voters)
            if unchanged and bot is None:
                raise ServiceError(409, f"you have no vote on seat {target} to withdraw")
            if not unchanged:
                self._limit(self._votes, live, voters[0], "takeover votes", self.config.votes_per_minute)
            clock = copy_clock(live.clock)
            for voter in voters:
                clock.vote(target, voter, bot)
            electorate = [s for s, seat in enumerate(live.seats)
                          if seat.type == "human" and s != target and not clock.is_away(s)]
            ballots = clock.votes.get(target, {})
            values: dict[str, Any] = {}
            seats = live.seats
            if bot is not None and 2 * sum(1 for v in ballots if v in electorate) > len(electorate):
                seats = list(live.seats)
                seats[target] = replace(seats[target], type="bot", bot=bot, token_hash=None, webhook=None,
                                        webhook_suspended=False, taken_over=True)
                self.webhooks.forget(live.id, target)
                clock.set_away(target, False, self.now())
                clock.votes.pop(target, None)
                values["players"] = [s.to_json() for s in seats]
                values["has_human"] = any(s.type == "human" for s in seats)
                log.info("game %s: seat %d taken over by the %s bot on a vote", live.id, target, bot)
            elif unchanged:
                return live  # the same vote again and no majority yet: nothing changes, nothing is written
            before = live.seats
            live.seats = seats
            try:
                values.update(clock_columns(clock), bot_turn=bot_turn(live, None, clock))
                live.stored = await self.write(self.store.store_seats, live.id, values, live.stored)
            except BaseException:
                live.seats = before
                raise
            live.clock = clock
            self._changed(live)
            self._deadline_stored(live)
        self.kick(live)
        return live

    async def set_webhook(self, game_id: str, token: str | None, seat: int | None, url: str | None) -> dict[str, Any]:
        """A player sets (or, with None, removes) the address that receives their seat's "your turn" notices."""
        if not self.webhooks.enabled:
            raise ServiceError(403, "webhooks are off on this server (the operator enables them with --webhook-hosts)")
        live = await self.get(game_id)
        async with self._locked(live, None):
            seat, _actor = self._check_seat(live, token, seat)
            if live.seats[seat].type != "human":
                raise ServiceError(409, f"seat {seat} is played by a bot")
            if url is not None:
                try:
                    url = self.webhooks.check(url)
                except WebhookRefused as exc:
                    raise ServiceError(400, f"webhook: {exc}") from None
            seats = list(live.seats)
            seats[seat] = replace(seats[seat], webhook=url, webhook_suspended=False)
            live.stored = await self.write(self.store.store_seats, live.id, {"players": [s.to_json() for s in seats]}, live.stored)
            live.seats = seats
            self.webhooks.forget(live.id, seat)
            self._changed(live)
        return {"seat": seat, "webhook": url}

    def _webhook_stands(self, game_id: str, seat: int, url: str) -> bool:
        """Whether a queued "your turn" notice still stands: the decision is still with ``seat`` and its webhook is
        still ``url`` (a game no longer in memory cannot say: its notice stands)."""
        live = self.games.get(game_id)
        if live is None:
            return True
        state = live.game.state
        s = live.seats[seat] if 0 <= seat < len(live.seats) else None
        return (
            live.status == RUNNING and not state.is_over and state.decider == seat and s is not None
            and s.webhook == url and not s.webhook_suspended and not live.clock.is_away(seat)
        )

    def _webhook_failing(self, game_id: str, seat: int, url: str) -> None:
        """The seat's webhook failed too often in a row: suspend it (stored, shown to the seat) until its player sets
        it again."""
        asyncio.get_running_loop().create_task(self._suspend_webhook(game_id, seat, url), name=f"suspend-{game_id}")

    async def _suspend_webhook(self, game_id: str, seat: int, url: str) -> None:
        try:
            live = await self.get(game_id)
            async with self._locked(live, None):
                current = live.seats[seat] if 0 <= seat < len(live.seats) else None
                if current is None or current.webhook != url or current.webhook_suspended:
                    return
                seats = list(live.seats)
                seats[seat] = replace(current, webhook_suspended=True)
                live.stored = await self.write(
                    self.store.store_seats, live.id, {"players": [s.to_json() for s in seats]}, live.stored
                )
                live.seats = seats
                self._changed(live)
        except ServiceError as exc:
            log.warning("game %s: could not suspend the webhook of seat %d: %s", game_id, seat, exc.message)

    def _notify_turn(self, live: LiveGame, before: int) -> None:
        """Send the "your turn" notice to the deciding seat's webhook when the decision has just passed to it."""
        state = live.game.state
        if live.status != RUNNING or state.is_over or not self.webhooks.enabled:
            return
        seat = state.decider
        hook = live.seats[seat].webhook
        if seat == before or not hook or live.seats[seat].webhook_suspended or live.clock.is_away(seat):
            return
        left = live.clock.time_left(seat, self.now())
        self.webhooks.notify(live.id, seat, hook, {
            "type": "your-turn", "game": live.id, "seat": seat, "player": live.seats[seat].name,
            "version": live.version, "turn": state.turn,
            "url": f"{self.config.public_url.rstrip('/')}/game/{live.id}",
            "time_left": None if left == float("inf") else round(left, 1),
        })

    async def my_games(self, entries: list[tuple[str, str]]) -> dict[str, Any]:
        """For each ``(game id, seat token)``: the game's status, whose decision it is, the token's seats and
        their time left.  An unknown game or a token of no seat is reported per entry, never as an error."""
        ids = list(dict.fromkeys(game_id for game_id, _ in entries))
        rows = await self.read(self.store.summaries, ids)
        now = self.now()
        out = []
        for game_id, token in entries:
            live = self.games.get(game_id)
            row = rows.get(game_id)
            if row is None:
                out.append({"id": game_id, "error": "there is no such game"})
                continue
            entry = my_game_entry(row, live, token, now)
            out.append(entry)
        return {"now": now, "games": out}

    # ------------------------------------------------------------------ long answers (answers.py)

    def _setup(self, live: LiveGame) -> tuple[int, int, dict[str, Any]]:
        game = live.game
        return len(game.names), game.seed, game.options.to_dict()

    @staticmethod
    def _checkpoint(live: LiveGame, k: int) -> int:
        """The latest checkpoint at or before move ``k`` (0: the start of the game).  Every CHUNK moves have one;
        were one missing, an earlier one only costs more replaying."""
        base = (k // CHUNK) * CHUNK
        while base and base not in live.checkpoints:
            base -= CHUNK
        return base

    def _chunk_key(self, live: LiveGame, kind: str, chunk: int) -> tuple[Any, ...]:
        """The cache key of chunk ``chunk`` (moves ``chunk * CHUNK + 1`` ...) of an answer: a complete chunk stays
        valid as the game goes on (until an undo or a reload changes the epoch); the last, partial one is keyed by
        how many moves it holds."""
        end = min(live.version, (chunk + 1) * CHUNK)
        return (live.id, live.epoch, kind, chunk, end)

    async def _log_chunk(self, live: LiveGame, chunk: int, client: str) -> tuple[bytes, ...]:
        key = self._chunk_key(live, "log", chunk)
        hit: tuple[bytes, ...] | None = self.answers.get(key)
        if hit is not None:
            return hit
        start, end = chunk * CHUNK, min(live.version, (chunk + 1) * CHUNK)
        base = self._checkpoint(live, start)
        game = live.game
        players, seed, options = self._setup(live)
        built = await self.builders.run(
            client, build_log_chunk, players, seed, options, live.checkpoints.get(base), live.texts[base:start],
            start, live.texts[start:end], game.movers[start:end], game.move_turns[start:end], live.actors[start:end],
        )
        value = tuple(built)
        if key == self._chunk_key(live, "log", chunk):  # the game did not change under it
            self.answers.put(key, value)
        return value

    async def move_log(self, live: LiveGame, start: int, limit: int, client: str) -> bytes:
        """Moves ``start + 1`` ... ``start + limit`` of the game with their seat, turn, JSON form, delta and the kind
        of token that made them (public information only), as JSON: ``{moves, start, log, next}``."""
        total = live.version
        start = min(max(0, start), total)
        end = min(total, start + limit)
        entries: list[bytes] = []
        for chunk in range(start // CHUNK, (end - 1) // CHUNK + 1 if end > start else start // CHUNK):
            part = await self._log_chunk(live, chunk, client)
            first = chunk * CHUNK
            entries.extend(part[max(0, start - first):end - first])
        nxt = end if end < total else None
        head = f'{{"moves":{total},"start":{start},"next":{json.dumps(nxt)},"log":['.encode()
        return head + b",".join(entries) + b"]}"

    async def history(self, live: LiveGame, start: int, limit: int, client: str) -> bytes:
        """In-game scores after moves ``start`` ... (``start`` 0: the start of the game), and the final score
        breakdown once the game is over: ``{moves, start, turns, final, next}``."""
        total = live.version
        start = min(max(0, start), total)
        end = min(total, start + limit)  # entries for moves start+1 .. end, and move 0 when start is 0
        entries: list[bytes] = []
        if start == 0:
            entries.append(json.dumps({"n": 0, "turn": 1, "move": None, "scores": live.scores[0]},
                                      separators=(",", ":")).encode())
        game = live.game
        for chunk in range(start // CHUNK, (end - 1) // CHUNK + 1 if end > start else start // CHUNK):
            key = self._chunk_key(live, "history", chunk)
            part: tuple[bytes, ...] | None = self.answers.get(key)
            if part is None:
                a, b = chunk * CHUNK, min(total, (chunk + 1) * CHUNK)
                part = tuple(await self.builders.run(
                    client, build_history_chunk, a, live.texts[a:b], game.move_turns[a:b], live.scores[a + 1:b + 1],
                ))
                if key == self._chunk_key(live, "history", chunk):
                    self.answers.put(key, part)
            first = chunk * CHUNK
            entries.extend(part[max(0, start - first):end - first])
        final = None
        if game.state.is_over:
            final = [s.to_json() for s in final_scores(game.state)]
        nxt = end if end < total else None
        head = (f'{{"moves":{total},"start":{start},"next":{json.dumps(nxt)},'
                f'"final":{json.dumps(final, separators=(",", ":"))},"turns":[').encode()
        return head + b",".join(entries) + b"]}"

    async def record_json(self, live: LiveGame, client: str) -> bytes:
        """The game record; while the game runs, without the seed (published at the end) unless it is public.
        Built off the event loop and cached per revision of the game."""
        key = (live.id, live.epoch, "record", live.version, live.seed_shown, live.status)
        text: bytes | None = self.answers.get(key)
        if text is None:
            game = live.game
            state = game.state
            result: dict[str, Any] = {"over": state.is_over, "moves": live.version, "turn": state.turn}
            if state.is_over:
                scores = final_scores(state)
                result.update(end_triggers=list(state.end_triggers), scores=[s.to_json() for s in scores],
                              winners=winners(state, scores))
            elif live.status in ENDED:
                result["ended"] = {"status": live.status, "note": live.status_note}
            record = {
                "format": RECORD_FORMAT, "version": RECORD_VERSION, "players": list(game.names),
                "seed": game.seed if live.seed_shown else None, "options": game.options.changed(),
                "start_player": game.start_player_override, "moves": list(live.texts), "result": result,
            }
            text = await self.builders.run(client, build_record, record)
            self.answers.put(key, text)
        return text

    async def hint(self, game_id: str, token: str | None, client: str) -> bytes:
        """The heuristic bot's move for the seat that must decide, for that seat's player (``hints.py``)."""
        live = await self.get(game_id)
        self._check_running(live)
        decider = live.game.state.decider
        if decider not in live.seats_of(token):
            raise ServiceError(403, "hints are for the player who must decide")
        if not live.table.get("hints", True):
            raise ServiceError(409, "hints are off in this game (chosen at its creation)")
        key = (live.id, live.epoch, "hint", live.version)
        answer: bytes | None = self.answers.get(key)
        if answer is None:
            snapshot = json.dumps(live.game.state.to_snapshot(), separators=(",", ":"))
            answer = await self.builders.run(
                client, build_hint, snapshot, (live.game.seed or 0) + live.version, live.version,
            )
            self.answers.put(key, answer)
        return answer

    async def replay_at(self, live: LiveGame, k: int, client: str) -> bytes:
        """The public position after move ``k``, replayed off the event loop from the nearest checkpoint (at most
        CHUNK moves) and cached."""
        total = live.version
        if not 0 <= k <= total:
            raise ServiceError(404, f"move {k} does not exist (the game has {total} moves)")
        key = (live.id, live.epoch, "replay", k, total if k == total else -1)
        hit: bytes | None = self.answers.get(key)
        if hit is not None:
            return hit
        base = self._checkpoint(live, k)
        players, seed, options = self._setup(live)
        answer = await self.builders.run(
            client, build_position, players, seed, options, live.checkpoints.get(base), live.texts[base:k], k, total,
            live.texts[k - 1] if k else None,
        )
        self.answers.put(key, answer)
        return answer
