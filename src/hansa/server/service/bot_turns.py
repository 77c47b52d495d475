"""Bot turns: a task per game plays the bot seats.

Decisions run in threads or worker processes (``bots.py``; with ``--bots queue`` the bot workers of
``botworker.py`` play them instead).  Database errors and bot failures are logged, shown on the game and retried with
backoff: a bot never stops silently.
"""

from __future__ import annotations

import asyncio
import logging
import random

from ..bots import BOTS_ONLY, HUMAN_WAITING
from ..errors import ServiceError
from ..live import LiveGame
from ..rows import bot_for, bot_turn
from ..store import RUNNING, STOPPED
from .base import ServiceBase, StaleCopy

log = logging.getLogger("hansa.server")

#: Consecutive failures of a bot after which one random legal move is played instead (logged and shown).
BOT_FALLBACK_AFTER = 3


def backoff(failures: int) -> float:
    """Seconds to wait after ``failures`` failures in a row: 0.25, 0.5, 1, ... up to 30, with jitter."""
    return min(30.0, 0.25 * 2.0 ** max(0, failures - 1)) * random.uniform(0.8, 1.2)


class BotTurnsMixin(ServiceBase):
    """The bot task of each game."""

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
                    text = await self.bots.decide(state, spec, seed, HUMAN_WAITING if live.has_human else BOTS_ONLY,
                                                  key=(live.id, seat))
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
