"""The clocks' timer: timeouts, and away seats coming back.

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
import logging
import time

from ...core.moves import Done, EndTurn
from ..bots import HUMAN_WAITING
from ..errors import ServiceError
from ..live import Credential, LiveGame
from ..rows import bot_turn, clock_columns, copy_clock, to_datetime, to_seconds
from ..store import RUNNING
from .base import ServiceBase

log = logging.getLogger("hansa.server")

#: Seconds between a change notice from another process (for a game not held here) and the timer's look at the
#: stored deadlines, which also takes every other notice that comes meanwhile.
REMOTE_LOOK_DELAY = 1.0
#: Seconds before the timer looks again when its look left a deadline that has passed (a game it could not time
#: out now: busy or unreadable), instead of looking again at once.
STUCK_RETRY = 1.0


class TimerMixin(ServiceBase):
    """The timer task and the timeout policies."""

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

    async def come_back(self, game_id: str, token: Credential, seat: int | None) -> LiveGame:
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
