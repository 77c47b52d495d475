"""Ending games: stopped or deleted by their creator, abandoned when idle, sent out of memory, checked in the
background.

A janitor sends idle games that nobody watches, finished ones included, back out of memory, and marks games idle
past ``abandon_after`` abandoned.  In the background, every stored running game not in memory is replayed once so
that damaged ones are quarantined before someone opens them.
"""

from __future__ import annotations

import asyncio
import logging
import time

from sqlalchemy.exc import DataError, SQLAlchemyError

from ..errors import ServiceError
from ..live import LiveGame
from ..store import ABANDONED, RUNNING, STOPPED, Damaged, Unsettled
from .base import ServiceBase

log = logging.getLogger("hansa.server")


class EndingMixin(ServiceBase):
    """The end of games, the janitor and the background check of stored games."""

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
