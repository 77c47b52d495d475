"""Table chat: every game's players talk, spectators read (and write, when the table allows it).

A message is plain text (at most ``--chat-max`` characters, one line, nothing in it is ever markup: the pages put it
in text nodes) or a *preset phrase* (:data:`PRESETS`), stored as its key so that each reader sees it in their own
language.  Messages are kept with the game (table ``chat_messages``; not in the game's record) and numbered 1, 2, ...
per game without gaps in commit order (:meth:`ChatStore.insert`).

**Who may write**: the game's players, with their seat token or their account's session (a seat a bot took over
no longer writes); spectators only at tables created with ``spectator_chat`` and only signed in (a name to show);
nobody muted by an operator.  Writers are limited per seat (``--chat-per-minute``, bursts of 5) and per address
(three times that): 429 with ``Retry-After``.  Bots never chat, except at tables created with ``bot_chat``:
there each bot says "Good game" when the game is over.

**Live**: a stored message is pushed to every WebSocket of the game as ``{"type": "chat", "message": ...}``.  Each
process pushes the messages of a game in order, each once (it keeps the last number it pushed per game and reads
from there); on PostgreSQL a message stored by another process arrives by ``NOTIFY hansa_chat`` (sent in the
message's transaction).  A page reads the chat once (``GET /api/games/{id}/chat``) and then takes the pushed
messages whose number follows the last it has: in order, each once, whatever process stored them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import unicodedata
from collections.abc import Callable
from datetime import timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request
from pydantic import BaseModel, ConfigDict, StringConstraints, model_validator
from sqlalchemy import Text, bindparam, cast, func, insert, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from .accounts import Accounts, Session
from .config import ServerConfig
from .db import ACCOUNTS, CHAT, CHAT_REPORTS, GAMES, utcnow
from .errors import ServiceError, StrictRoute
from .live import AccountKey, Credential, LiveGame, client_hash
from .middleware import client_key
from .ratelimit import RateLimiter
from .sockets import SocketHub
from .store import DAMAGED, OVER

log = logging.getLogger("hansa.server")

#: The PostgreSQL channel of new chat messages (payload: "<game id> <n> <origin>").
CHAT_CHANNEL = "hansa_chat"
#: Preset phrases (their keys; the pages word them in each reader's language).
PRESETS = ("hello", "gg", "well_played", "your_turn", "thinking", "misclick", "thanks", "bye")
#: The PostgreSQL advisory lock (with the game's hash) under which a bot's "Good game" is written once.
BOT_CHAT_LOCK = 7_157_343
#: Messages one read returns at most.
MAX_READ = 500
#: Code points refused in a message: bidirectional controls (they reorder what others see) and the like.
_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
_REFUSED = {"Cc", "Cs", "Co", "Cn"}


class ChatError(ServiceError):
    pass


def clean_text(raw: str, max_length: int) -> str:
    """A message's stored form: NFC, white space runs made one space, trimmed; :class:`ChatError` 400 when it is
    empty, too long, or holds control characters or bidirectional controls."""
    text = unicodedata.normalize("NFC", " ".join(raw.split()))
    if not text:
        raise ChatError(400, "text: a message needs visible characters")
    if len(text) > max_length:
        raise ChatError(400, f"text: a message has at most {max_length} characters")
    for ch in text:
        if unicodedata.category(ch) in _REFUSED or ord(ch) in _BIDI:
            raise ChatError(400, f"text: a message may not hold control characters (U+{ord(ch):04X})")
    return text


def message_json(row: Any) -> dict[str, Any]:
    """A message as the pages get it (a hidden one without its words)."""
    hidden = bool(row["hidden"])
    return {
        "n": int(row["n"]), "id": int(row["id"]), "seat": row["seat"], "author": row["author"],
        "account": row["account_id"] is not None,
        "preset": None if hidden else row["preset"], "text": None if hidden else row["text"],
        "at": row["created_at"].isoformat() + "Z", "hidden": hidden,
    }


_NOTIFY = select(func.pg_notify(CHAT_CHANNEL, bindparam("payload", type_=Text)))


class ChatStore:
    """Blocking database access for chat messages and reports."""

    def __init__(self, engine: Engine, origin: str) -> None:
        self.engine = engine
        self.origin = origin
        self.postgres = engine.dialect.name == "postgresql"

    def insert(self, game_id: str, values: dict[str, Any]) -> dict[str, Any]:
        """Store a message as the game's next number (the unique (game, n) makes a concurrent writer take the one
        after: numbers have no gaps and commit in order); the stored row."""
        for _ in range(50):
            try:
                with self.engine.begin() as conn:
                    return self._insert(conn, game_id, values)
            except IntegrityError:  # another writer took that number: take the next
                continue
        raise ChatError(503, "the chat is too busy; try again", None, {"Retry-After": "1"})

    def _insert(self, conn: Connection, game_id: str, values: dict[str, Any]) -> dict[str, Any]:
        n = int(conn.execute(select(func.coalesce(func.max(CHAT.c.n), 0)).where(CHAT.c.game_id == game_id))
                .scalar_one()) + 1
        now = utcnow()
        result = conn.execute(insert(CHAT).values(game_id=game_id, n=n, created_at=now, hidden=False, **values))
        if self.postgres:
            conn.execute(_NOTIFY, {"payload": f"{game_id} {n} {self.origin}"})
        return {"id": int(result.inserted_primary_key[0]), "n": n, "created_at": now,  # type: ignore[index]
                "hidden": False, **values}

    def bot_farewells(self, window: float) -> list[tuple[str, int, str]]:
        """Bots' "Good game" owed: (game, seat, bot's name) for the bot seats of games that ended ``over`` within
        ``window`` seconds at tables whose ``bot_chat`` option is on, whose bots have not spoken yet."""
        cutoff = utcnow() - timedelta(seconds=window)
        out: list[tuple[str, int, str]] = []
        with self.engine.connect() as conn:
            rows = conn.execute(select(GAMES.c.id, cast(GAMES.c.players, Text), cast(GAMES.c.table_options, Text))
                                .where(GAMES.c.status == OVER, GAMES.c.updated_at >= cutoff)).all()
            for game_id, players, table in rows:
                try:
                    if not json.loads(table or "{}").get("bot_chat"):
                        continue
                    seats = json.loads(players)
                except (ValueError, AttributeError):
                    continue
                bots = [i for i, p in enumerate(seats) if isinstance(p, dict) and p.get("type") == "bot"]
                spoken = {int(s) for (s,) in conn.execute(
                    select(CHAT.c.seat).where(CHAT.c.game_id == game_id, CHAT.c.seat.in_(bots))) if s is not None}
                out += [(game_id, i, str(seats[i].get("name", "Bot"))) for i in bots if i not in spoken]
        return out

    def farewell(self, game_id: str, seat: int, name: str) -> dict[str, Any] | None:
        """A bot's "Good game", once per seat whatever the processes (PostgreSQL: under a lock of the game's)."""
        values = {"seat": seat, "account_id": None, "author": name, "preset": "gg", "text": None, "client": None}
        for _ in range(50):
            try:
                with self.engine.begin() as conn:
                    if self.postgres:
                        conn.execute(select(func.pg_advisory_xact_lock(BOT_CHAT_LOCK, func.hashtext(game_id))))
                    if conn.execute(select(CHAT.c.id).where(CHAT.c.game_id == game_id, CHAT.c.seat == seat)).first():
                        return None
                    return self._insert(conn, game_id, values)
            except IntegrityError:  # a player's message took that number: again
                continue
        return None

    def since(self, game_id: str, after: int, limit: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(
                select(CHAT).where(CHAT.c.game_id == game_id, CHAT.c.n > after).order_by(CHAT.c.n).limit(limit)
            ).mappings()]

    def one(self, game_id: str, n: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(CHAT).where(CHAT.c.game_id == game_id, CHAT.c.n == n)).mappings().first()
            return dict(row) if row is not None else None

    def muted(self, account: int) -> bool:
        with self.engine.connect() as conn:
            return bool(conn.execute(select(ACCOUNTS.c.chat_muted).where(ACCOUNTS.c.id == account)).scalar())

    def report(self, message: dict[str, Any], reporter: str, reason: str | None) -> bool:
        """Keep a report with a copy of the message; False when this reporter reported it already."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(CHAT_REPORTS).values(
                    message_id=message["id"], game_id=message["game_id"], author=message["author"],
                    author_account=message["account_id"],
                    text=message["text"] if message["text"] is not None else f"[{message['preset']}]",
                    reporter=reporter, reason=reason, created_at=utcnow()))
            return True
        except IntegrityError:
            return False


class Chat:
    """The chat of a server process: writing, reading, reporting, and pushing messages to the game's sockets."""

    def __init__(self, engine: Engine, config: ServerConfig, hub: SocketHub, service: Any, accounts: Accounts,
                 origin: str) -> None:
        self.store = ChatStore(engine, origin)
        self.config = config
        self.hub = hub
        #: hansa.server.games.GameService (used, never using this module)
        self.service = service
        self.accounts = accounts
        self._per_writer = RateLimiter(config.chat_per_minute / 60.0, 5)
        self._per_address = RateLimiter(3 * config.chat_per_minute / 60.0, 15)
        #: The last message number pushed to this process's sockets, per game.
        self._pushed: dict[str, int] = {}
        self._pushing: dict[str, asyncio.Lock] = {}

    # ------------------------------------------------------------------ writing

    async def write(self, live: LiveGame, credential: Credential, session: Session | None, text: str | None,
                    preset: str | None, client: str) -> dict[str, Any]:
        if live.status == DAMAGED:
            raise ChatError(409, "this game is damaged")
        seats = [s for s in live.seats_of(credential) if live.seats[s].type == "human"]
        account = session.account if session is not None else None
        if seats:
            seat: int | None = seats[0]
            author = live.seats[seats[0]].name
            account = live.seats[seats[0]].account if account is None else account
            writer = f"seat:{live.id}:{seat}"
        elif session is not None and live.table.get("spectator_chat"):
            seat, author, writer = None, session.name, f"account:{session.account}"
        elif session is None and not live.table.get("spectator_chat"):
            raise ChatError(403, "only the game's players may write in its chat")
        elif session is None:
            raise ChatError(401, "sign in to write in this game's chat as a spectator")
        else:
            raise ChatError(403, "only the game's players may write in its chat")
        if account is not None and await asyncio.to_thread(self.store.muted, account):
            raise ChatError(403, "you are muted in chat by the server's operator")
        for limiter, key, what in ((self._per_writer, writer, "you"), (self._per_address, client_hash(client),
                                                                       "this address")):
            wait = limiter.take(key)
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                raise ChatError(429, f"{what} may send {self.config.chat_per_minute} chat messages a minute; wait "
                                     f"{seconds} s", None, {"Retry-After": str(seconds)})
        values = {"seat": seat, "account_id": account, "author": author, "preset": preset,
                  "text": clean_text(text, self.config.chat_max) if text is not None else None,
                  "client": client_hash(client)}
        row = await asyncio.to_thread(self.store.insert, live.id, values)
        await self.push(live.id, int(row["n"]))
        return message_json(row)

    # ------------------------------------------------------------------ bots

    async def keep(self, every: float) -> None:
        """At tables created with ``bot_chat``, each bot says "Good game" once the game is over (a task of the app;
        otherwise bots never chat)."""
        while True:
            try:
                for game_id, seat, name in await asyncio.to_thread(self.store.bot_farewells, max(600.0, 4 * every)):
                    row = await asyncio.to_thread(self.store.farewell, game_id, seat, name)
                    if row is not None:
                        await self.push(game_id, int(row["n"]))
            except Exception:  # noqa: BLE001 - logged, tried again at the next round
                log.exception("the bots' chat failed")
            await asyncio.sleep(every)

    # ------------------------------------------------------------------ pushing

    async def push(self, game_id: str, n: int) -> None:
        """Push the game's messages up to number ``n`` that this process has not pushed yet, in order."""
        if not self.hub.by_game.get(game_id):
            self._pushed.pop(game_id, None)
            return
        lock = self._pushing.setdefault(game_id, asyncio.Lock())
        async with lock:
            last = self._pushed.get(game_id, n - 1)
            if n <= last:
                return
            rows = await asyncio.to_thread(self.store.since, game_id, last, MAX_READ)
            for row in rows:
                self.hub.publish_chat(game_id, json.dumps({"type": "chat", "message": message_json(row)},
                                                          separators=(",", ":")))
                last = int(row["n"])
            self._pushed[game_id] = last
        if not lock.locked() and len(self._pushing) > 1000:
            self._pushing = {g: lk for g, lk in self._pushing.items() if lk.locked() or g in self.hub.by_game}

    def hidden(self, game_id: str, n: int) -> None:
        """Message ``n`` was hidden by an operator: the pages showing it drop its words."""
        self.hub.publish_chat(game_id, json.dumps({"type": "chat_hidden", "n": n}, separators=(",", ":")))

    def on_notice(self, game_id: str, n: int, origin: str) -> None:
        """A message stored by another process (PostgreSQL NOTIFY); ``-n``: message ``n`` was hidden."""
        if origin == self.store.origin or not self.hub.by_game.get(game_id):
            return
        if n < 0:
            self.hidden(game_id, -n)
        else:
            asyncio.get_running_loop().create_task(self._push_logged(game_id, n))

    async def _push_logged(self, game_id: str, n: int) -> None:
        try:
            await self.push(game_id, n)
        except Exception:  # noqa: BLE001 - the pages read the chat again when they reconnect
            log.exception("pushing chat message %d of game %s failed", n, game_id)

    def on_reconnect(self) -> None:
        """Notices may have been lost: forget where each game was (the next message pushes from the pages' reads)."""
        self._pushed.clear()


_STRICT = ConfigDict(extra="forbid", strict=True)


class MessageIn(BaseModel):
    model_config = _STRICT
    text: Annotated[str, StringConstraints(min_length=1, max_length=2000)] | None = None
    preset: Literal[PRESETS] | None = None  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _one(self) -> MessageIn:
        if (self.text is None) == (self.preset is None):
            raise ValueError("send either text or a preset phrase")
        return self


class ReportIn(BaseModel):
    model_config = _STRICT
    reason: Annotated[str, StringConstraints(max_length=200)] | None = None


#: A seat token (module level: FastAPI resolves the routes' annotations here).
TokenHeader = Annotated[str | None, Header(alias="X-Hansa-Token", max_length=64)]


def routes(club: Callable[[], Chat], game: Callable[[str], Any]) -> APIRouter:
    """``/api/games/{id}/chat``: read, write, report.  ``game(id)`` is the app's checked loader of a game."""
    router = APIRouter(route_class=StrictRoute)

    async def who(request: Request, token: str | None) -> tuple[Credential, Session | None]:
        if token:
            return token, None
        session = await club().accounts.session_of(request)
        return (AccountKey(session.account) if session is not None else None), session

    @router.get("/api/games/{game_id}/chat")
    async def read(game_id: str, after: Annotated[int, Query(ge=0, le=10**9)] = 0,
                   limit: Annotated[int, Query(ge=1, le=MAX_READ)] = 200) -> dict[str, Any]:
        live = await game(game_id)
        rows = await asyncio.to_thread(club().store.since, live.id, after, limit)
        return {"messages": [message_json(r) for r in rows], "presets": list(PRESETS),
                "spectators_write": bool(live.table.get("spectator_chat"))}

    @router.post("/api/games/{game_id}/chat", status_code=201)
    async def write(game_id: str, body: MessageIn, request: Request,
                    x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        live = await game(game_id)
        credential, session = await who(request, x_hansa_token)
        message = await club().write(live, credential, session, body.text, body.preset, client_key(request.scope))
        return {"message": message}

    @router.post("/api/games/{game_id}/chat/{n}/report")
    async def report(game_id: str, n: int, body: ReportIn, request: Request,
                     x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        live = await game(game_id)
        credential, session = await who(request, x_hansa_token)
        seats = live.seats_of(credential)
        if seats:
            reporter = f"seat:{live.id}:{seats[0]}"
        elif session is not None:
            reporter = f"account:{session.account}"
        else:
            raise ChatError(403, "only players and signed-in spectators may report a message")
        if not 1 <= n <= 10**9:
            raise ChatError(404, "there is no such message")
        message = await asyncio.to_thread(club().store.one, live.id, n)
        if message is None:
            raise ChatError(404, "there is no such message")
        new = await asyncio.to_thread(club().store.report, message, reporter, body.reason)
        return {"reported": True, "new": new}

    return router
