"""Loading games into memory, quarantining damaged ones, and the lobby list.

Memory holds the games in play: games in which a bot must decide are restored at start, the others are loaded
(replayed from their record) when first asked for (the janitor, ``ending.py``, sends idle ones back out of memory).
A stored game that does not replay is quarantined as damaged (never served for play); the rest of the server carries
on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

from sqlalchemy.exc import DataError, SQLAlchemyError

from ..errors import ServiceError
from ..live import LiveGame
from ..rows import live_from_stored
from ..store import DAMAGED, RUNNING, Damaged, StoredGame, Unsettled, decode_cursor
from .base import ServiceBase, _changing_fast

log = logging.getLogger("hansa.server")


class LoadingMixin(ServiceBase):
    """Games loaded from the database on first use; damaged ones quarantined."""

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
