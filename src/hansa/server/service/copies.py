"""Keeping this process's copy of a game in step with the database.

Several server processes may serve one database (PostgreSQL): each holds its own copies of the games in play, and
every write announces the game's new revision to the others (``notify.py``).  On a notice, a copy held here is
brought up to the stored game: the new moves are played on it when its own moves are still the stored ones,
otherwise (an undo elsewhere, anything unexpected) the game is loaded again.  A game not held here but watched by
sockets here is loaded again, which pushes it to them.  After a lost connection every copy is checked.  A copy that
turns out to be behind when it writes (:class:`~hansa.server.service.base.StaleCopy`) is dropped and revived from
the database.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ...core.errors import HansaError
from ...view import move_delta
from ..errors import ServiceError
from ..live import LiveGame
from ..store import OVER, RUNNING, Damaged, StoredMove, clock_of_row, seats_of_row
from .base import ServiceBase


class CopiesMixin(ServiceBase):
    """Other processes' changes: the copies in memory brought up to the stored games."""

    async def _revive(self, game_id: str) -> None:
        """Load a game again from the database and let its bots go on (after its copy in memory went stale)."""
        with contextlib.suppress(ServiceError):
            self.kick(await self.get(game_id))  # (loading it pushes it to the sockets, which saw the stale copy)

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
