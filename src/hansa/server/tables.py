"""Open tables: how a game is gathered, how a seat gets taken, and quick play.

A table is a game being gathered.  Its creator (signed in) chooses the player count, map and options, the clock,
whether it is *rated*, *private* (reached by its link only) or listed in the lobby, and whether guests (a name, no
account) may sit.  Anyone signed in takes a free seat with one click — or a guest, if the table allows guests.  The
creator may fill the free seats with bots, remove a player, close the table, or start it with the players seated
(at least two); a table whose seats are all taken starts by itself.  A table not started within ``--table-expiry``
seconds closes.

**How a seat gets taken** (:meth:`TableStore.take_seat`): in one transaction, the table's row is moved on by one
revision *only if it is still open* (on PostgreSQL that row lock makes concurrent joins of one table wait for each
other), the free seat is chosen, and the seat's row is inserted.  The seat row's primary key (table, seat) and the
unique (table, account) make the same seat taken once and an account seated once, whichever process the requests
went to: the loser gets 409.

**How a table starts** (:meth:`Tables.start`): its status moves from open to *starting* in one conditional update
(exactly one process wins), the seats are shuffled (rematches keep their rotated order), and the game is created by
the game service with the table's id as its id: account seats are played through their account's session (no seat
link), a guest's table token becomes its seat token, bots are bots.  A process killed between the two steps leaves a
starting table, which the keeper finishes (creating a game whose id exists already is recognised as done).

The game service knows nothing of tables: this module uses it and is not used by it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from ..core.errors import HansaError
from ..game import Game
from .accounts import Accounts, Session, same_site
from .clocks import ClockError, ClockSettings
from .config import ServerConfig
from .db import ACCOUNTS, TABLE_SEATS, TABLES, utcnow
from .errors import ServiceError, StrictRoute
from .live import token_hash
from .middleware import client_key
from .names import BadName, clean_name, duplicate_names, name_key
from .ratelimit import RateLimiter
from .store import PALETTE, map_of_row

log = logging.getLogger("hansa.server")

#: Table statuses.
OPEN, STARTING, STARTED, CLOSED = "open", "starting", "started", "closed"
#: Bots that may sit at a table.
TABLE_BOTS = ("random", "purpose", "heuristic", "mcts:easy", "mcts:medium", "mcts:hard")
#: Seconds after which a table left *starting* (its process died) is started again by the keeper.
STARTING_GRACE = 20.0
#: The PostgreSQL advisory lock that makes quick play's find-or-open one step across processes.
QUICK_LOCK = 7_157_342


class TableError(ServiceError):
    pass


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat() + "Z"


class TableStore:
    """Blocking database access for tables and their seats."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"

    def insert(self, values: dict[str, Any], seats: list[dict[str, Any]]) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(TABLES).values(**values))
            if seats:  # (every row with every column: one executemany statement)
                blank = {"account_id": None, "bot": None, "colour": None, "token_hash": None, "accepted": True}
                conn.execute(insert(TABLE_SEATS), [{**blank, **s, "table_id": values["id"]} for s in seats])

    def get(self, table_id: str) -> dict[str, Any] | None:
        """The table and its seats (``seats``: seat number -> row)."""
        with self.engine.connect() as conn:
            return self._get(conn, table_id)

    @staticmethod
    def _get(conn: Connection, table_id: str) -> dict[str, Any] | None:
        row = conn.execute(
            select(TABLES, ACCOUNTS.c.name.label("creator_name"))
            .outerjoin(ACCOUNTS, ACCOUNTS.c.id == TABLES.c.creator_account)
            .where(TABLES.c.id == table_id)
        ).mappings().first()
        if row is None:
            return None
        table = dict(row)
        table["seats"] = {
            int(s["seat"]): dict(s)
            for s in conn.execute(select(TABLE_SEATS).where(TABLE_SEATS.c.table_id == table_id)).mappings()
        }
        return table

    def open_tables(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """Public open tables, newest first, with their seats (two queries, whatever the number of tables)."""
        now = utcnow()
        with self.engine.connect() as conn:
            tables = [dict(r) for r in conn.execute(
                select(TABLES, ACCOUNTS.c.name.label("creator_name"))
                .outerjoin(ACCOUNTS, ACCOUNTS.c.id == TABLES.c.creator_account)
                .where(TABLES.c.status == OPEN, TABLES.c.private.is_(False), TABLES.c.expires_at > now)
                .order_by(TABLES.c.created_at.desc(), TABLES.c.id).limit(limit).offset(offset)).mappings()]
            for t in tables:
                t["seats"] = {}
            by_id = {t["id"]: t for t in tables}
            if by_id:
                for seat in conn.execute(select(TABLE_SEATS).where(TABLE_SEATS.c.table_id.in_(list(by_id)))).mappings():
                    by_id[seat["table_id"]]["seats"][int(seat["seat"])] = dict(seat)
            return tables

    def _bump(self, conn: Connection, table_id: str, status: str = OPEN) -> bool:
        """Move the table on by one revision if its status is ``status`` (the row lock of PostgreSQL serialises
        the changes of one table); False if it is not."""
        result = conn.execute(
            update(TABLES).where(TABLES.c.id == table_id, TABLES.c.status == status)
            .values(revision=TABLES.c.revision + 1, updated_at=utcnow())
        )
        return bool(result.rowcount == 1)

    def take_seat(self, table_id: str, seat: int | None, values: dict[str, Any]) -> int:
        """Take ``seat`` (None: the first free one) for ``values`` (kind, account_id, name, bot, colour,
        token_hash).  The seat taken; raises :class:`TableError` 409 when the table is not open, the seat is taken or
        the account sits at the table already, 400 when the name is a seated player's."""
        try:
            with self.engine.begin() as conn:
                if not self._bump(conn, table_id):
                    raise TableError(409, "this table is no longer open")
                size = int(conn.execute(select(TABLES.c.size).where(TABLES.c.id == table_id)).scalar_one())
                taken = {int(s.seat): s for s in conn.execute(
                    select(TABLE_SEATS.c.seat, TABLE_SEATS.c.name, TABLE_SEATS.c.account_id)
                    .where(TABLE_SEATS.c.table_id == table_id))}
                if values.get("account_id") is not None and any(
                        s.account_id == values["account_id"] for s in taken.values()):
                    raise TableError(409, "you sit at this table already")
                if duplicate_names([s.name for s in taken.values()] + [values["name"]]) is not None:
                    raise TableError(409, "a player at this table has that name; choose another")
                if seat is None:
                    free = [i for i in range(size) if i not in taken]
                    if not free:
                        raise TableError(409, "every seat of this table is taken")
                    seat = free[0]
                elif seat >= size:
                    raise TableError(400, f"this table has seats 0 to {size - 1}")
                elif seat in taken:
                    raise TableError(409, "that seat is taken")
                conn.execute(insert(TABLE_SEATS).values(table_id=table_id, seat=seat, joined_at=utcnow(), **values))
                return seat
        except IntegrityError:  # another process took the seat (or seated the account) between our read and insert
            raise TableError(409, "that seat was just taken; look again") from None

    def fill_with_bots(self, table_id: str, bot: str) -> int:
        """Put ``bot`` on every free seat; how many."""
        with self.engine.begin() as conn:
            if not self._bump(conn, table_id):
                raise TableError(409, "this table is no longer open")
            size = int(conn.execute(select(TABLES.c.size).where(TABLES.c.id == table_id)).scalar_one())
            taken = {int(r[0]): r[1] for r in conn.execute(
                select(TABLE_SEATS.c.seat, TABLE_SEATS.c.name).where(TABLE_SEATS.c.table_id == table_id))}
            names = list(taken.values())
            added = 0
            for seat in range(size):
                if seat in taken:
                    continue
                name = bot_name(bot, names)
                names.append(name)
                conn.execute(insert(TABLE_SEATS).values(table_id=table_id, seat=seat, kind="bot", name=name, bot=bot,
                                                        joined_at=utcnow()))
                added += 1
            return added

    def free_seat(self, table_id: str, seat: int) -> bool:
        """Remove the player of ``seat`` (before the start); False if nobody sat there."""
        with self.engine.begin() as conn:
            if not self._bump(conn, table_id):
                raise TableError(409, "this table is no longer open")
            result = conn.execute(delete(TABLE_SEATS).where(TABLE_SEATS.c.table_id == table_id,
                                                            TABLE_SEATS.c.seat == seat))
            return bool(result.rowcount)

    def begin_start(self, table_id: str) -> bool:
        """open -> starting (exactly one caller wins); also a starting table left by a dead process."""
        with self.engine.begin() as conn:
            result = conn.execute(
                update(TABLES).where(TABLES.c.id == table_id, TABLES.c.status == OPEN)
                .values(status=STARTING, revision=TABLES.c.revision + 1, updated_at=utcnow()))
            return bool(result.rowcount == 1)

    def set_status(self, table_id: str, status: str, note: str | None, only_if: str,
                   game_id: str | None = None) -> bool:
        values: dict[str, Any] = {"status": status, "status_note": note, "revision": TABLES.c.revision + 1,
                                  "updated_at": utcnow()}
        if game_id is not None:
            values["game_id"] = game_id
        with self.engine.begin() as conn:
            result = conn.execute(update(TABLES).where(TABLES.c.id == table_id, TABLES.c.status == only_if)
                                  .values(**values))
            return bool(result.rowcount == 1)

    def expired(self, now: datetime) -> list[str]:
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(TABLES.c.id).where(TABLES.c.status == OPEN, TABLES.c.expires_at <= now).limit(200))]

    def stuck_starting(self, before: datetime) -> list[str]:
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(TABLES.c.id).where(TABLES.c.status == STARTING, TABLES.c.updated_at <= before).limit(50))]

    def full_open(self) -> list[str]:
        """Open tables whose seats are all taken and accepted (a start that failed, e.g. the server was full)."""
        taken = (select(TABLE_SEATS.c.table_id, func.count().label("n"))
                 .where(TABLE_SEATS.c.accepted.is_(True)).group_by(TABLE_SEATS.c.table_id).subquery())
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(TABLES.c.id).join(taken, taken.c.table_id == TABLES.c.id)
                .where(TABLES.c.status == OPEN, taken.c.n == TABLES.c.size).limit(50))]

    def quick_candidates(self, conn: Connection, size: int, rated: bool | None, guests: bool) -> list[str]:
        stmt = (select(TABLES.c.id, TABLES.c.clock, TABLES.c.options)
                .where(TABLES.c.status == OPEN, TABLES.c.private.is_(False), TABLES.c.size == size,
                       TABLES.c.expires_at > utcnow()).order_by(TABLES.c.created_at))
        if rated is not None:
            stmt = stmt.where(TABLES.c.rated.is_(rated))
        if guests:
            stmt = stmt.where(TABLES.c.allow_guests.is_(True))
        return [r[0] for r in conn.execute(stmt)]

    def count_open_by(self, account: int) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(TABLES).where(
                TABLES.c.status == OPEN, TABLES.c.creator_account == account)).scalar_one())

    def forget_account(self, account: int) -> None:
        """An account deleted: its seats at open tables are freed and its open tables closed."""
        with self.engine.begin() as conn:
            self._forget_account(conn, account)

    def _forget_account(self, conn: Connection, account: int) -> None:
        tables = [r[0] for r in conn.execute(
            select(TABLE_SEATS.c.table_id).join(TABLES, TABLES.c.id == TABLE_SEATS.c.table_id)
            .where(TABLE_SEATS.c.account_id == account, TABLES.c.status == OPEN))]
        for table_id in tables:
            conn.execute(delete(TABLE_SEATS).where(TABLE_SEATS.c.table_id == table_id,
                                                   TABLE_SEATS.c.account_id == account))
            self._bump(conn, table_id)
        conn.execute(update(TABLES).where(TABLES.c.creator_account == account, TABLES.c.status == OPEN)
                     .values(status=CLOSED, status_note="its creator deleted their account",
                             revision=TABLES.c.revision + 1, updated_at=utcnow()))


def bot_name(bot: str, taken: list[str]) -> str:
    """A bot's name at a table: its level, numbered when the level sits there already."""
    base = "Bot " + bot
    name, n = base, 2
    keys = {name_key(t) for t in taken}
    while name_key(name) in keys:
        name, n = f"{base} {n}", n + 1
    return name


def check_setup(size: int, options: dict[str, Any], clock: dict[str, Any] | None) -> None:
    """400 unless a game of ``size`` players with ``options`` and ``clock`` can be created."""
    try:
        ClockSettings.from_json(clock)
    except ClockError as exc:
        raise TableError(400, str(exc)) from None
    try:
        Game([f"p{i}" for i in range(size)], seed=0, options=options)
    except HansaError as exc:
        raise TableError(400, str(exc)) from None


_STRICT = ConfigDict(extra="forbid", strict=True)
_Key = Annotated[str, StringConstraints(min_length=1, max_length=40)]
_Word = Annotated[str, StringConstraints(max_length=40)]
_Name = Annotated[str, StringConstraints(min_length=1, max_length=400)]
_Colour = Literal[tuple(PALETTE)]  # type: ignore[valid-type]
_Bot = Literal[TABLE_BOTS]  # type: ignore[valid-type]


class TableOptionsIn(BaseModel):
    model_config = _STRICT
    hints: bool = True
    #: spectators (signed in) may write in the game's chat
    spectator_chat: bool = False
    #: the bots say "Good game" when the game is over (otherwise bots never chat)
    bot_chat: bool = False


class NewTable(BaseModel):
    """POST /api/tables."""

    model_config = _STRICT
    players: int = Field(ge=2, le=5)
    options: dict[_Key, bool | int | _Word | None | Annotated[list[_Word], Field(max_length=16)]] = Field(
        default_factory=dict, max_length=32
    )
    clock: dict[_Key, bool | int | float | _Word | None] | None = Field(default=None, max_length=8)
    table: TableOptionsIn = Field(default_factory=TableOptionsIn)
    private: bool = False
    allow_guests: bool = False
    rated: bool = False
    #: the creator takes a seat (seat 0 until the start shuffles them)
    sit: bool = True
    colour: _Colour | None = None  # type: ignore[valid-type]
    #: bots seated at once (at most players - 1)
    bots: list[_Bot] = Field(default_factory=list, max_length=4)


class JoinIn(BaseModel):
    model_config = _STRICT
    seat: int | None = Field(default=None, ge=0, le=4)
    #: a guest's name (no account); ignored for a signed-in player
    name: _Name | None = None
    colour: _Colour | None = None  # type: ignore[valid-type]


class SeatIn(BaseModel):
    model_config = _STRICT
    seat: int = Field(ge=0, le=4)


class BotsIn(BaseModel):
    model_config = _STRICT
    bot: _Bot = "heuristic"


class QuickIn(BaseModel):
    model_config = _STRICT
    players: int = Field(ge=2, le=5)
    clock: dict[_Key, bool | int | float | _Word | None] | None = Field(default=None, max_length=8)
    #: a guest's name (no account)
    name: _Name | None = None


class Tables:
    """The tables of a server process: creation, seats, start, quick play, and the keeper (expiry, retries)."""

    def __init__(self, engine: Engine, config: ServerConfig, service: Any, accounts: Accounts) -> None:
        self.store = TableStore(engine)
        self.config = config
        #: hansa.server.games.GameService (used, never using this module)
        self.service = service
        self.accounts = accounts
        self._quick = asyncio.Lock()
        #: Seats a guest (no account) may take per minute from one address: as many as games it may create.
        self._guests = RateLimiter(config.create_per_minute / 60.0, config.create_per_minute)

    # ------------------------------------------------------------------ reading

    def public(self, table: dict[str, Any], session: Session | None, token: str | None) -> dict[str, Any]:
        """A table as everyone may see it, plus which seat is the asker's and whether they created it."""
        digest = token_hash(token) if token else None
        you = None
        seats = []
        for i in range(table["size"]):
            s = table["seats"].get(i)
            if s is None:
                seats.append({"seat": i, "kind": "open", "name": None, "bot": None, "colour": None})
                continue
            mine = (session is not None and s["account_id"] == session.account) or (
                digest is not None and s["token_hash"] is not None and secrets.compare_digest(digest, s["token_hash"]))
            if mine:
                you = i
            seats.append({"seat": i, "kind": s["kind"], "name": s["name"], "bot": s["bot"], "colour": s["colour"],
                          "accepted": bool(s["accepted"])})
        creator = (session is not None and table["creator_account"] == session.account) or (
            digest is not None and secrets.compare_digest(digest, table["creator_hash"]))
        return {
            "id": table["id"], "status": table["status"], "note": table["status_note"], "url": f"/table/{table['id']}",
            "created": _iso(table["created_at"]), "expires": _iso(table["expires_at"]),
            "players": table["size"], "map": map_of_row({"options": table["options"]}), "options": table["options"],
            "clock": table["clock"], "table": table["table_options"], "private": table["private"],
            "allow_guests": table["allow_guests"], "rated": table["rated"],
            "creator": table["creator_name"], "seats": seats, "you": you, "creator_you": creator,
            "game": table["game_id"], "game_url": f"/game/{table['game_id']}" if table["game_id"] else None,
            "rematch_of": table["rematch_of"], "revision": table["revision"],
        }

    async def get(self, table_id: str) -> dict[str, Any]:
        if not 1 <= len(table_id) <= 16 or not table_id.isascii() or not table_id.isalnum():
            raise TableError(404, "there is no such table")
        table = await asyncio.to_thread(self.store.get, table_id)
        if table is None:
            raise TableError(404, "there is no such table")
        return table

    # ------------------------------------------------------------------ changing

    async def create(self, body: NewTable, session: Session, client: str) -> tuple[dict[str, Any], str]:
        if body.rated and body.allow_guests:
            raise TableError(400, "a rated table is for signed-in players (and bots): it cannot allow guests")
        if len(body.bots) >= body.players:
            raise TableError(400, "a table needs at least one seat that is not a bot")
        clock = {k: v for k, v in (body.clock or {}).items() if v is not None} or None
        await asyncio.to_thread(check_setup, body.players, dict(body.options), clock)
        mine = await asyncio.to_thread(self.store.count_open_by, session.account)
        if mine >= self.config.max_open_tables_per_account:
            raise TableError(429, f"you have {mine} open tables (the limit); start or close one first", None,
                             {"Retry-After": "60"})
        table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        token = secrets.token_urlsafe(18)
        now = utcnow()
        seats: list[dict[str, Any]] = []
        if body.sit:
            seats.append({"seat": 0, "kind": "account", "account_id": session.account, "name": session.name,
                          "colour": body.colour, "joined_at": now})
        names = [s["name"] for s in seats]
        for bot in body.bots:
            name = bot_name(bot, names)
            names.append(name)
            seats.append({"seat": len(seats), "kind": "bot", "name": name, "bot": bot, "joined_at": now})
        await asyncio.to_thread(self.store.insert, {
            "id": table_id, "created_at": now, "updated_at": now, "revision": 0, "status": OPEN,
            "private": body.private, "allow_guests": body.allow_guests, "rated": body.rated, "size": body.players,
            "options": dict(body.options), "clock": clock, "table_options": body.table.model_dump(),
            "creator_account": session.account, "creator_hash": token_hash(token),
            "expires_at": now + timedelta(seconds=self.config.table_expiry),
        }, seats)
        if len(seats) == body.players:
            await self.start(table_id, client, shuffle=True)
        return await self.get(table_id), token

    async def join(self, table_id: str, body: JoinIn, session: Session | None,
                   client: str) -> tuple[dict[str, Any], str | None]:
        """Take a seat: a signed-in player as their account, a guest with a name where guests are allowed (the
        guest's token, returned once, is their seat's token once the game starts)."""
        table = await self.get(table_id)
        token: str | None = None
        if session is not None:
            values: dict[str, Any] = {"kind": "account", "account_id": session.account, "name": session.name}
        else:
            if not table["allow_guests"]:
                raise TableError(401, "sign in to sit at this table (it does not take guests)")
            if body.name is None:
                raise TableError(400, "a guest needs a name")
            wait = self._guests.take(client)
            if wait > 0:
                raise TableError(429, f"a guest may take {self.config.create_per_minute} seats a minute from one "
                                      f"address; wait {math.ceil(wait)} s", None, {"Retry-After": str(math.ceil(wait))})
            try:
                name = clean_name(body.name, self.config.max_name)
            except BadName as exc:
                raise TableError(400, f"name: {exc}") from None
            if await asyncio.to_thread(self.accounts.store.by_name, name) is not None:
                raise TableError(409, "that name belongs to an account: sign in, or choose another name")
            token = secrets.token_urlsafe(18)
            values = {"kind": "guest", "name": name, "token_hash": token_hash(token)}
        if body.colour is not None:
            if any(s["colour"] == body.colour for s in table["seats"].values()):
                raise TableError(409, "a player at this table has that colour")
            values["colour"] = body.colour
        await asyncio.to_thread(self.store.take_seat, table_id, body.seat, values)
        await self._start_if_full(table_id, client)
        return await self.get(table_id), token

    async def _start_if_full(self, table_id: str, client: str) -> None:
        table = await self.get(table_id)
        if table["status"] == OPEN and len(table["seats"]) == table["size"] and all(
                s["accepted"] for s in table["seats"].values()):
            await self.start(table_id, client, shuffle=table["rematch_of"] is None)

    def _require_creator(self, table: dict[str, Any], session: Session | None, token: str | None) -> None:
        if not self.public(table, session, token)["creator_you"]:
            raise TableError(403, "only the table's creator may do that")

    async def leave(self, table_id: str, session: Session | None, token: str | None) -> dict[str, Any]:
        table = await self.get(table_id)
        you = self.public(table, session, token)["you"]
        if you is None:
            raise TableError(403, "you have no seat at this table")
        await asyncio.to_thread(self.store.free_seat, table_id, you)
        return await self.get(table_id)

    async def remove(self, table_id: str, seat: int, session: Session | None, token: str | None) -> dict[str, Any]:
        table = await self.get(table_id)
        self._require_creator(table, session, token)
        if not await asyncio.to_thread(self.store.free_seat, table_id, seat):
            raise TableError(409, "nobody sits there")
        return await self.get(table_id)

    async def add_bots(self, table_id: str, bot: str, session: Session | None, token: str | None,
                       client: str) -> dict[str, Any]:
        table = await self.get(table_id)
        self._require_creator(table, session, token)
        await asyncio.to_thread(self.store.fill_with_bots, table_id, bot)
        await self._start_if_full(table_id, client)
        return await self.get(table_id)

    async def close(self, table_id: str, session: Session | None, token: str | None) -> dict[str, Any]:
        table = await self.get(table_id)
        self._require_creator(table, session, token)
        if not await asyncio.to_thread(self.store.set_status, table_id, CLOSED, "closed by its creator", OPEN):
            raise TableError(409, "this table is no longer open")
        return await self.get(table_id)

    async def start_now(self, table_id: str, session: Session | None, token: str | None,
                        client: str) -> dict[str, Any]:
        """The creator starts with the players seated (at least two)."""
        table = await self.get(table_id)
        self._require_creator(table, session, token)
        if table["status"] != OPEN:
            raise TableError(409, "this table is no longer open")
        if len(table["seats"]) < 2:
            raise TableError(409, "a game needs at least two players: wait for someone, or add bots")
        if not any(s["kind"] != "bot" for s in table["seats"].values()):
            raise TableError(409, "a game of bots only is not started from a table")
        if not all(s["accepted"] for s in table["seats"].values()):
            raise TableError(409, "not every player has accepted the rematch yet")
        await self.start(table_id, client, shuffle=table["rematch_of"] is None)
        return await self.get(table_id)

    async def start(self, table_id: str, client: str, shuffle: bool, retry: bool = False) -> None:
        """Create the table's game (see the module's docstring).  Raises :class:`ServiceError` when the game
        cannot be created (the table is open again, with the reason as its note)."""
        if not retry and not await asyncio.to_thread(self.store.begin_start, table_id):
            return  # another request (or process) is starting it
        table = await self.get(table_id)
        seats = [table["seats"][i] for i in sorted(table["seats"])]
        if shuffle:
            random.SystemRandom().shuffle(seats)
        players: list[dict[str, Any]] = []
        for s in seats:
            player: dict[str, Any] = {"name": s["name"], "type": "bot" if s["kind"] == "bot" else "human",
                                      "bot": s["bot"], "colour": s["colour"]}
            if s["kind"] == "account":
                player["account"] = s["account_id"]
            elif s["kind"] == "guest":
                player["token_hash"] = s["token_hash"]
            players.append(player)
        clock = table["clock"]
        try:
            await self.service.create(players, dict(table["options"]), None,
                                      {**table["table_options"], "hotseat": False}, clock, client=client,
                                      game_id=table_id, rated=table["rated"])
        except ServiceError as exc:
            if exc.status == 409:  # the game exists: a process died after creating it
                pass
            else:
                await asyncio.to_thread(self.store.set_status, table_id, OPEN, f"could not start: {exc.message}",
                                        STARTING)
                raise
        await asyncio.to_thread(self.store.set_status, table_id, STARTED, None, STARTING, table_id)

    async def quick(self, body: QuickIn, session: Session | None, client: str) -> tuple[dict[str, Any], str | None]:
        """Play now: a seat at the oldest matching open table (same player count and clock, base game), or a new
        table.  Signed-in players get rated tables; guests tables that take guests."""
        clock = {k: v for k, v in (body.clock or {}).items() if v is not None} or None
        await asyncio.to_thread(check_setup, body.players, {}, clock)
        async with self._quick:  # one process: one quick play at a time; PostgreSQL: see _quick_match
            found = await asyncio.to_thread(self._quick_match, body.players, clock, session is not None)
            for table_id in found:
                try:
                    return await self.join(table_id, JoinIn(name=body.name), session, client)
                except TableError as exc:
                    if exc.status != 409:
                        raise
            if session is None:
                raise TableError(401, "no open table takes guests right now: sign in to open one")
            table, token = await self.create(NewTable(players=body.players, clock=body.clock, rated=True), session, client)
            return table, None

    def _quick_match(self, size: int, clock: dict[str, Any] | None, signed_in: bool) -> list[str]:
        with self.store.engine.begin() as conn:
            if self.store.postgres:
                conn.execute(select(func.pg_advisory_xact_lock(QUICK_LOCK)))
            ids = self.store.quick_candidates(conn, size, True if signed_in else None, not signed_in)
            out = []
            for table_id in ids:
                table = self.store._get(conn, table_id)
                if table is not None and table["options"] == {} and (table["clock"] or None) == clock:
                    out.append(table_id)
            return out[:5]

    # ------------------------------------------------------------------ keeper

    async def keep(self, every: float) -> None:
        """Close expired tables, start full tables whose start failed (the server was full, the database busy) and
        finish starts a dead process left (a task of the app)."""
        while True:
            try:
                now = utcnow()
                for table_id in await asyncio.to_thread(self.store.expired, now):
                    await asyncio.to_thread(self.store.set_status, table_id, CLOSED,
                                            "its seats were not filled in time", OPEN)
                for table_id in await asyncio.to_thread(self.store.full_open):
                    try:
                        await self._start_if_full(table_id, "table keeper")
                    except ServiceError as exc:
                        log.warning("table %s could not be started: %s", table_id, exc.message)
                before = now - timedelta(seconds=STARTING_GRACE)
                for table_id in await asyncio.to_thread(self.store.stuck_starting, before):
                    try:
                        await self.start(table_id, "table keeper", shuffle=False, retry=True)
                    except ServiceError as exc:
                        log.warning("table %s could not be started: %s", table_id, exc.message)
            except Exception:  # noqa: BLE001 - logged, tried again at the next round
                log.exception("the table keeper failed")
            await asyncio.sleep(every)


#: A guest's table token or a seat token (module level: FastAPI resolves the routes' annotations here).
TokenHeader = Annotated[str | None, Header(alias="X-Hansa-Token", max_length=64)]


def routes(club: Callable[[], Tables], config: ServerConfig) -> APIRouter:
    """``/api/tables``: list, create, look at, join, leave, remove a player, add bots, start, close, quick play."""
    router = APIRouter(route_class=StrictRoute)

    async def session_of(request: Request, token: str | None) -> Session | None:
        # a request that carries a token acts with it alone (the cookie is ignored: no CSRF question)
        return None if token else await club().accounts.session_of(request)

    @router.get("/api/tables")
    async def list_tables(limit: Annotated[int, Query(ge=1, le=100)] = 50,
                          offset: Annotated[int, Query(ge=0, le=10_000)] = 0) -> dict[str, Any]:
        tables = await asyncio.to_thread(club().store.open_tables, limit, offset)
        return {"tables": [club().public(t, None, None) for t in tables]}

    @router.post("/api/tables", status_code=201)
    async def create_table(body: NewTable, request: Request) -> dict[str, Any]:
        session = await club().accounts.require(request)
        table, token = await club().create(body, session, client_key(request.scope))
        return {**club().public(table, session, None), "table_token": token}

    @router.post("/api/tables/quick")
    async def quick(body: QuickIn, request: Request) -> dict[str, Any]:
        session = await club().accounts.session_of(request)
        if session is None:
            same_site(request)
        table, token = await club().quick(body, session, client_key(request.scope))
        return {**club().public(table, session, token), "table_token": token}

    @router.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        session = await session_of(request, x_hansa_token)
        return club().public(await club().get(table_id), session, x_hansa_token)

    @router.post("/api/tables/{table_id}/join")
    async def join(table_id: str, body: JoinIn, request: Request) -> dict[str, Any]:
        session = await club().accounts.session_of(request)
        if session is None:
            same_site(request)
        table, token = await club().join(table_id, body, session, client_key(request.scope))
        return {**club().public(table, session, token), "table_token": token}

    @router.post("/api/tables/{table_id}/leave")
    async def leave(table_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        session = await session_of(request, x_hansa_token)
        return club().public(await club().leave(table_id, session, x_hansa_token), session, x_hansa_token)

    @router.post("/api/tables/{table_id}/remove")
    async def remove(table_id: str, body: SeatIn, request: Request,
                     x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        session = await session_of(request, x_hansa_token)
        table = await club().remove(table_id, body.seat, session, x_hansa_token)
        return club().public(table, session, x_hansa_token)

    @router.post("/api/tables/{table_id}/bots")
    async def bots(table_id: str, body: BotsIn, request: Request,
                   x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        session = await session_of(request, x_hansa_token)
        table = await club().add_bots(table_id, body.bot, session, x_hansa_token, client_key(request.scope))
        return club().public(table, session, x_hansa_token)

    @router.post("/api/tables/{table_id}/start")
    async def start(table_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        session = await session_of(request, x_hansa_token)
        table = await club().start_now(table_id, session, x_hansa_token, client_key(request.scope))
        return club().public(table, session, x_hansa_token)

    @router.post("/api/tables/{table_id}/close")
    async def close(table_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        session = await session_of(request, x_hansa_token)
        return club().public(await club().close(table_id, session, x_hansa_token), session, x_hansa_token)

    return router
