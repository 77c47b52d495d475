"""Seat webhooks: "your turn" notices.

A player may set an address for their seat's "your turn" notices (sent by ``webhooks.py``, which asks here whether
a queued notice still stands); a webhook that fails too often in a row is suspended until its player sets it again.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any

from ..errors import ServiceError
from ..live import Credential, LiveGame
from ..store import RUNNING
from ..webhooks import WebhookRefused
from .base import ServiceBase

log = logging.getLogger("hansa.server")


class SeatWebhooksMixin(ServiceBase):
    """"Your turn" webhooks of the seats."""

    async def set_webhook(self, game_id: str, token: Credential, seat: int | None, url: str | None) -> dict[str, Any]:
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
