"""Rematch: the same players, map and options again, with the seat order rotated.

At the end of a game any of its players proposes a rematch (``POST /api/games/{id}/rematch``): a private table
(hansa.server.tables) is opened with the game's players in the rotated order (the second player first, the first
last), its map, options, clock, table options and ratedness.  The proposer's seat and every bot's have accepted;
each other player accepts (or declines, which closes the table); once all have, the table starts as any full table
does, keeping its order.  An account's seat is kept for that account; a guest's seat keeps the guest's seat token, so
the same link plays the new game.  A game has at most one rematch: the table's ``rematch_of`` is unique, so two
proposals at once (from any processes) make one table.

A hot-seat game is not rematched here (its one screen opens a new game from the lobby).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from .accounts import Session
from .db import TABLE_SEATS, TABLES, utcnow
from .errors import StrictRoute
from .live import AccountKey, Credential, LiveGame, token_hash
from .middleware import client_key
from .store import ENDED
from .tables import CLOSED, OPEN, TableError, Tables

#: Longest time a rematch waits for its players (seconds; the server's --table-expiry if shorter).
REMATCH_WAIT = 900.0


def rotated_seats(live: LiveGame, proposer: list[int]) -> list[dict[str, Any]]:
    """The rematch's seats: the game's seats in the rotated order, as table seat rows."""
    n = len(live.seats)
    out = []
    now = utcnow()
    for new, old in enumerate([(i + 1) % n for i in range(n)]):
        s = live.seats[old]
        row: dict[str, Any] = {"seat": new, "name": s.name, "colour": s.colour, "joined_at": now,
                               "accepted": old in proposer}
        if s.type == "bot":  # a bot seat, or a seat a bot took over (its player left it): the bot plays again
            row.update(kind="bot", bot=s.bot, accepted=True)
        elif s.account is not None:
            row.update(kind="account", account_id=s.account)
        else:
            row.update(kind="guest", token_hash=s.token_hash)
        out.append(row)
    return out


class Rematches:
    """Proposing, accepting and declining rematches."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    def _existing(self, game_id: str) -> str | None:
        with self.tables.store.engine.connect() as conn:
            return conn.execute(select(TABLES.c.id).where(TABLES.c.rematch_of == game_id)).scalar_one_or_none()

    async def of_game(self, game_id: str) -> dict[str, Any] | None:
        table_id = await asyncio.to_thread(self._existing, game_id)
        return None if table_id is None else await self.tables.get(table_id)

    async def propose(self, game_id: str, credential: Credential, session: Session | None,
                      client: str) -> dict[str, Any]:
        """The game's rematch table (made now, or the one proposed already)."""
        live: LiveGame = await self.tables.service.get(game_id)
        if live.status not in ENDED:
            raise TableError(409, "the game is not over yet")
        seats, actor = live.authority(credential)
        if actor == "hotseat":
            raise TableError(409, "a hot-seat game is played again from the lobby (New game)")
        if not seats:
            raise TableError(403, "only the game's players may propose a rematch")
        existing = await self.of_game(game_id)
        if existing is not None:
            return existing
        now = utcnow()
        rows = rotated_seats(live, seats)
        clock = live.clock.settings.to_json()
        expiry = min(self.tables.config.table_expiry, REMATCH_WAIT)
        table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        values = {
            "id": table_id, "created_at": now, "updated_at": now, "revision": 0, "status": OPEN, "private": True,
            "allow_guests": any(r["kind"] == "guest" for r in rows), "rated": bool(live.table.get("rated")),
            "size": len(rows), "options": live.game.options.changed(),
            "clock": None if clock.get("kind", "none") == "none" else clock,
            "table_options": {"hints": bool(live.table.get("hints", True))},
            "creator_account": session.account if session is not None else None,
            "creator_hash": token_hash(credential) if isinstance(credential, str) else token_hash(secrets.token_hex(16)),
            "expires_at": now + timedelta(seconds=expiry), "rematch_of": game_id,
        }
        try:
            await asyncio.to_thread(self.tables.store.insert, values, rows)
        except IntegrityError:  # another request (or process) proposed it first
            table = await self.of_game(game_id)
            if table is None:
                raise
            return table
        await self.tables._start_if_full(table_id, client)
        return await self.tables.get(table_id)

    def _accept(self, table_id: str, seat: int) -> None:
        with self.tables.store.engine.begin() as conn:
            if not self.tables.store._bump(conn, table_id):
                raise TableError(409, "this rematch is no longer open")
            conn.execute(update(TABLE_SEATS).where(TABLE_SEATS.c.table_id == table_id, TABLE_SEATS.c.seat == seat)
                         .values(accepted=True))

    async def accept(self, table_id: str, session: Session | None, token: str | None, client: str) -> dict[str, Any]:
        table = await self.tables.get(table_id)
        seat = self._seat(table, session, token)
        await asyncio.to_thread(self._accept, table_id, seat)
        await self.tables._start_if_full(table_id, client)
        return await self.tables.get(table_id)

    async def decline(self, table_id: str, session: Session | None, token: str | None) -> dict[str, Any]:
        table = await self.tables.get(table_id)
        seat = self._seat(table, session, token)
        name = table["seats"][seat]["name"]
        if not await asyncio.to_thread(self.tables.store.set_status, table_id, CLOSED,
                                       f"{name} declined the rematch", OPEN):
            raise TableError(409, "this rematch is no longer open")
        return await self.tables.get(table_id)

    def _seat(self, table: dict[str, Any], session: Session | None, token: str | None) -> int:
        if table["rematch_of"] is None:
            raise TableError(409, "this table is not a rematch")
        you = self.tables.public(table, session, token)["you"]
        if you is None:
            raise TableError(403, "you have no seat in this rematch")
        return int(you)


#: A guest's table token or a seat token (module level: FastAPI resolves the routes' annotations here).
TokenHeader = Annotated[str | None, Header(alias="X-Hansa-Token", max_length=64)]


def routes(club: Callable[[], Rematches]) -> APIRouter:
    """``/api/games/{id}/rematch`` and ``/api/tables/{id}/accept|decline``."""
    router = APIRouter(route_class=StrictRoute)

    async def session_of(request: Request, token: str | None) -> Session | None:
        return None if token else await club().tables.accounts.session_of(request)

    def check_id(game_id: str) -> None:
        if not 1 <= len(game_id) <= 16 or not game_id.isascii() or not game_id.isalnum():
            raise TableError(404, "there is no such game")

    @router.get("/api/games/{game_id}/rematch")
    async def get_rematch(game_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        check_id(game_id)
        table = await club().of_game(game_id)
        session = await session_of(request, x_hansa_token)
        return {"table": None if table is None else club().tables.public(table, session, x_hansa_token)}

    @router.post("/api/games/{game_id}/rematch")
    async def propose(game_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        check_id(game_id)
        session = await session_of(request, x_hansa_token)
        cred: Credential = x_hansa_token or (AccountKey(session.account) if session is not None else None)
        table = await club().propose(game_id, cred, session, client_key(request.scope))
        return {"table": club().tables.public(table, session, x_hansa_token)}

    @router.post("/api/tables/{table_id}/accept")
    async def accept(table_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        session = await session_of(request, x_hansa_token)
        table = await club().accept(table_id, session, x_hansa_token,
                                    client_key(request.scope))
        return club().tables.public(table, session, x_hansa_token)

    @router.post("/api/tables/{table_id}/decline")
    async def decline(table_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        session = await session_of(request, x_hansa_token)
        return club().tables.public(await club().decline(table_id, session, x_hansa_token), session, x_hansa_token)

    return router
