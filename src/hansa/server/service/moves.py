"""Moves and undo: how a move gets applied.

A game in memory is a :class:`~hansa.server.live.LiveGame` (a :class:`hansa.game.Game` guarded by an
``asyncio.Lock``).  A move is validated by the engine, written to the database in one transaction (move row + game
row) and only then acknowledged and offered to the game's WebSockets (offering never waits: ``sockets.py``).  If
writing fails the move is taken back in memory and the client gets 503 (nothing changed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ...core.errors import HansaError
from ...core.moves import Move
from ...view import move_delta
from ..errors import ServiceError
from ..live import Credential, LiveGame, view_message
from ..ratelimit import RateLimiter
from ..rows import copy_clock, game_row, prepare_move, undoable
from ..store import OVER, RUNNING, STOPPED
from .base import ServiceBase, StaleCopy

log = logging.getLogger("hansa.server")


class MovesMixin(ServiceBase):
    """Seats' moves and undos, and the checks every request that changes a game makes."""

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

    def _check_seat(self, live: LiveGame, token: Credential, seat: int | None) -> tuple[int, str]:
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
        self, game_id: str, token: Credential, move: Any, version: int | None, seat: int | None,
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
        self, game_id: str, token: Credential, move: Any, version: int | None, seat: int | None,
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
        self, game_id: str, token: Credential, version: int | None, seat: int | None,
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
