"""Seats played by accounts: attaching a seat link to an account, an account's games, and an account's deletion.

The game service knows an account only as a number on a seat (``Seat.account``): such a seat has no token and is
played through its account's session (:class:`~hansa.server.live.AccountKey`).  The club's modules
(hansa.server.accounts, tables) decide who is signed in; this part only keeps the seats.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from ..errors import ServiceError
from ..live import my_game_entry
from ..names import name_key
from ..rows import bot_turn, clock_columns, copy_clock
from ..store import RUNNING, Damaged, seats_of_row
from .base import ServiceBase

log = logging.getLogger("hansa.server")

#: The WebSocket close code that makes a page reconnect at once (and so see the seat as it now is).
RECONNECT = 4408
#: The bot that plays on for a deleted account in its running games.
DELETED_BOT = "heuristic"


class SeatOwnersMixin(ServiceBase):
    """Seats of accounts."""

    async def attach_seat(self, game_id: str, token: str, account: int) -> int:
        """Make the seat of ``token`` (a seat link) the account's: from now on only the account's sessions play
        it; the link only watches.  The seat's number."""
        live = await self.get(game_id)
        async with self._locked(live, None):
            seats, actor = live.authority(token)
            if actor == "hotseat":
                raise ServiceError(409, "a hot-seat link plays every seat of its game: it cannot be one account's")
            if actor != "seat" or not seats:
                raise ServiceError(403, "this link is no seat's (it may only watch the game)")
            seat = seats[0]
            before = live.seats
            after = list(before)
            after[seat] = replace(before[seat], token_hash=None, account=account)
            live.seats = after
            try:
                live.stored = await self.write(self.store.store_owner, live.id,
                                               {"players": [s.to_json() for s in after]}, live.stored, seat, account)
            except BaseException:
                live.seats = before
                raise
            self._changed(live)
            # sockets opened with the link reconnect, and then watch
            for sub in list(self.hub.by_game.get(live.id, ())):
                if seat in sub.seats:
                    sub.request_close(RECONNECT, "this seat is now played by an account")
        log.info("game %s: seat %d attached to account %d", live.id, seat, account)
        return seat

    async def account_games(self, account: int, limit: int = 100) -> dict[str, Any]:
        """The games an account plays or played (newest first), as "my games" entries."""
        ids = await self.read(self.store.account_game_ids, account, limit)
        rows = await self.read(self.store.summaries, ids)
        now = self.now()
        out = []
        for game_id in ids:
            row = rows.get(game_id)
            if row is None:
                continue
            entry = my_game_entry(row, self.games.get(game_id), "", now)
            live = self.games.get(game_id)
            seats = live.seats if live is not None else None
            if seats is None:
                try:
                    seats = seats_of_row(row["players"])
                except Damaged:
                    seats = []
            entry["you"] = [i for i, s in enumerate(seats) if s.account == account]
            decider = entry.get("decider")
            entry["your_turn"] = decider is not None and decider in entry["you"] and not any(
                p.get("away") for i, p in enumerate(entry.get("players", [])) if i == decider)
            out.append(entry)
        return {"now": now, "games": out}

    async def set_account_away(self, game_id: str, account: int) -> int:
        """An account was disabled: its seats in the running game ``game_id`` are marked away, so that the game's
        timeout bot plays them (as after a timeout; the player may take them back once enabled again).  How many
        seats were handed over."""
        live = await self.get(game_id)
        async with self._locked(live, None):
            if live.status != RUNNING:
                return 0
            seats = [i for i, s in enumerate(live.seats)
                     if s.account == account and s.type == "human" and not live.clock.is_away(i)]
            if not seats:
                return 0
            clock = copy_clock(live.clock)
            for seat in seats:
                clock.set_away(seat, True, self.now())
            live.stored = await self.write(self.store.store_seats, live.id, {
                **clock_columns(clock), "bot_turn": bot_turn(live, None, clock)}, live.stored)
            live.clock = clock
            self._changed(live)
            self._deadline_stored(live)
        log.info("game %s: seats %s of a disabled account handed to the timeout bot", live.id, seats)
        self.kick(live)
        return len(seats)

    async def forget_account(self, account: int, name: str) -> None:
        """An account is being deleted: in each of its games its seats are renamed "Deleted player" (numbered when
        the game has several), and in running games a bot plays them on."""
        for game_id in await self.read(self.store.account_game_ids, account, 10_000):
            try:
                live = await self.get(game_id)
            except ServiceError as exc:  # a damaged game: its seat rows go with the account
                log.warning("game %s: not renamed for a deleted account: %s", game_id, exc.message)
                continue
            async with self._locked(live, None):
                before = live.seats
                after = list(before)
                taken = {name_key(s.name) for s in before}
                for i, s in enumerate(before):
                    if s.account != account:
                        continue
                    new = name
                    n = 2
                    while name_key(new) in taken:
                        new, n = f"{name} {n}", n + 1
                    taken.add(name_key(new))
                    # the seat keeps the account's number (nobody can sign in as it any more): a rated game still
                    # rates the deleted account, listed nowhere, rather than crediting the bot that plays on
                    seat = replace(s, name=new)
                    if live.status == RUNNING and s.type == "human":
                        seat = replace(seat, type="bot", bot=DELETED_BOT, webhook=None, webhook_suspended=False,
                                       taken_over=True)
                    after[i] = seat
                live.seats = after
                values: dict[str, Any] = {"players": [s.to_json() for s in after],
                                          "has_human": any(s.type == "human" for s in after),
                                          "bot_turn": bot_turn(live)}
                try:
                    live.stored = await self.write(self.store.store_seats, live.id, values, live.stored)
                except BaseException:
                    live.seats = before
                    raise
                # the names are in the game's record: load it again with them
                self.games.pop(live.id, None)
                self._cancel_bots(live)
                self.hub.close_game(live.id, RECONNECT, "a player deleted their account")
            await self._revive(game_id)
        await self.write(self.store.forget_account_seats, account)
