"""Creating a game.

The caps on games in play are checked, the players seated (their tokens and colours), the seed chosen and the game
stored; then any prefix moves are played (a tutorial that starts from a late position) and the bots set going.
"""

from __future__ import annotations

import secrets
from typing import Any

from ...core.errors import HansaError
from ...game import Game
from ..clocks import Clock, ClockError, ClockSettings
from ..db import utcnow
from ..errors import ServiceError
from ..live import LiveGame, Seat, client_hash, token_hash
from ..rows import bot_turn, to_datetime
from ..store import RUNNING, GameExists, assign_colours
from .base import ServiceBase


class CreationMixin(ServiceBase):
    """New games."""

    async def create(
        self, players: list[dict[str, Any]], options: dict[str, Any], seed: int | None,
        table: dict[str, Any] | None = None, clock: dict[str, Any] | None = None, client: str = "unknown",
        prefix: list[tuple[int, str]] | None = None, game_id: str | None = None, rated: bool = False,
    ) -> tuple[LiveGame, list[str | None], str | None, str]:
        """Create and store a game.  ``players`` are ``{name, type, bot, colour}`` (colour a key of PALETTE or
        None); ``table`` the table options (``hotseat``: every human seat is played at one screen, with one
        hot-seat token and no seat tokens; otherwise each human seat has its own token and there is no hot-seat
        token); ``clock`` the clock settings (:class:`ClockSettings`, None: no clock); ``client`` the creating
        client's address (the per-client cap on running games); ``prefix`` moves (seat, text) played at once, before
        any bot moves (a tutorial that starts from a late position).  Returns the game, the token of every human seat
        (None for bots and in hot-seat games), the hot-seat token (None unless hot seat) and the creator token.

        For the club (hansa.server.tables, which uses this and is not used by it): a player may carry ``account``
        (the seat is that account's: played through its session, no token) or ``token_hash`` (the seat's token is
        one its player holds already: a guest's table token; None is returned for it); ``game_id`` is the id to
        give the game (409 if a game has it: created already); ``rated``: the finish updates the ratings."""
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
            elif p.get("account") is not None:
                seats.append(Seat(p["name"], "human", None, None, colour, account=int(p["account"])))
                tokens.append(None)
            elif p.get("token_hash"):
                seats.append(Seat(p["name"], "human", None, str(p["token_hash"]), colour))
                tokens.append(None)
            else:
                token = secrets.token_urlsafe(18)
                seats.append(Seat(p["name"], "human", None, token_hash(token), colour))
                tokens.append(token)
        assign_colours(seats)
        table_opts: dict[str, Any] = {"hints": bool((table or {}).get("hints", True)), "hotseat": hot_seat}
        if rated:
            table_opts["rated"] = True
        if (table or {}).get("spectator_chat"):
            table_opts["spectator_chat"] = True
        if (table or {}).get("bot_chat"):
            table_opts["bot_chat"] = True
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
        game_id = game_id or secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        live = LiveGame(
            game_id, game, seats, token_hash(hotseat) if hotseat else "", creator_hash=token_hash(creator), seed_public=chosen,
            scores=[list(game.state.score)], table=table_opts,
            clock=Clock.start(settings, len(seats), game.state.decider, self.now()),
            takeover_after=self.config.takeover_after,
        )
        now = utcnow()
        try:
            await self.write(self.store.insert_game, {
                "id": game_id, "seed": seed, "options": game.options.changed(),
                "players": [s.to_json() for s in seats],
                "clock": live.clock.to_json(), "deadline": to_datetime(live.clock.deadline()),
                "table_options": table_opts,
                "hotseat_hash": live.hotseat_hash, "creator_hash": live.creator_hash, "seed_public": chosen,
                "status": RUNNING, "status_note": None, "version": 0, "turn": game.state.turn,
                "snapshot": game.state.to_snapshot(), "bot_turn": bot_turn(live), "created_at": now, "updated_at": now,
                "has_human": live.has_human, "creator_client": creator_client, "active_at": now, "rated": rated,
            }, [(i, s.account) for i, s in enumerate(seats) if s.account is not None])
        except GameExists:
            raise ServiceError(409, f"a game {game_id} exists already") from None
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
