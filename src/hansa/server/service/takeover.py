"""Takeover votes: a bot for an abandoned seat.

The other players of a game may hand a human seat that is abandoned (away after a timeout, or deciding for
``takeover_after`` seconds without a move) to a bot for the rest of the game: more than half of the other human
seats still present decide.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from ..clocks import TIMEOUT_BOTS
from ..errors import ServiceError
from ..live import Credential, LiveGame
from ..rows import bot_turn, clock_columns, copy_clock
from .base import ServiceBase

log = logging.getLogger("hansa.server")


class TakeoverMixin(ServiceBase):
    """Votes to hand an abandoned seat to a bot."""

    def abandoned(self, live: LiveGame, seat: int) -> bool:
        """A human seat the other players may hand to a bot: away after a timeout, or deciding for
        ``takeover_after`` seconds without a move."""
        clock = live.clock
        return live.seats[seat].type == "human" and (
            clock.is_away(seat) or clock.idle(seat, self.now()) >= self.config.takeover_after
        )

    async def vote_takeover(self, game_id: str, token: Credential, target: int, bot: str | None) -> LiveGame:
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
