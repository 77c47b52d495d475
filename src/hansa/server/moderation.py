"""Moderation: reports, hiding a chat message, muting an account in chat, disabling and re-enabling an account.

The operator acts with ``hansa admin ...`` (the database directly, see cli.py) or, signed in with an account marked
admin (``hansa admin make-admin NAME``), through ``/api/admin/...``.  Every act is written to ``moderation_log`` with
who (``cli`` or ``admin:<name>``) and when, in the same transaction as the act.

What each act does, at once:

* **hide** a message: its words are no longer served (``GET .../chat`` gives it as hidden); the pages showing it are
  told (``{"type": "chat_hidden", "n"}`` on the game's sockets: directly from an admin request, through ``NOTIFY
  hansa_chat`` from the command line on PostgreSQL; with SQLite, a page sees it when it reads the chat again);
* **mute** an account in chat: its next message is refused (403), in every game;
* **disable** an account: every session ends (it can no longer sign in or act: sign-in answers 403) and each server
  process hands its seats in running games to the game's timeout bot (the seat is marked away, as after a timeout:
  the player can take it back once re-enabled); **enable** undoes the block.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, StringConstraints
from sqlalchemy import Text, bindparam, delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine

from .accounts import Accounts, Session
from .chat import CHAT_CHANNEL
from .db import ACCOUNT_SEATS, ACCOUNTS, CHAT, CHAT_REPORTS, GAMES, MODERATION, SESSIONS, utcnow
from .errors import ServiceError, StrictRoute
from .names import name_key
from .store import RUNNING

log = logging.getLogger("hansa.server")

_NOTIFY = select(func.pg_notify(CHAT_CHANNEL, bindparam("payload", type_=Text)))


class ModerationError(ServiceError):
    pass


def _iso(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat() + "Z"


class Moderation:
    """Blocking database side of every moderation act (used by the command line and the admin routes)."""

    def __init__(self, engine: Engine, origin: str = "cli") -> None:
        self.engine = engine
        self.origin = origin

    def _log(self, conn: Connection, actor: str, action: str, target: str, note: str | None = None) -> None:
        conn.execute(insert(MODERATION).values(at=utcnow(), actor=actor, action=action, target=target, note=note))

    def _account(self, conn: Connection, name: str) -> Any:
        row = conn.execute(select(ACCOUNTS.c.id, ACCOUNTS.c.name).where(
            ACCOUNTS.c.name_key == name_key(name), ACCOUNTS.c.deleted_at.is_(None))).first()
        if row is None:
            raise ModerationError(404, f"there is no account {name!r}")
        return row

    def reports(self, include_resolved: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            stmt = select(CHAT_REPORTS, CHAT.c.n, CHAT.c.hidden).outerjoin(CHAT, CHAT.c.id == CHAT_REPORTS.c.message_id)
            if not include_resolved:
                stmt = stmt.where(CHAT_REPORTS.c.resolved_at.is_(None))
            rows = conn.execute(stmt.order_by(CHAT_REPORTS.c.id).limit(limit)).mappings()
            return [{"id": r["id"], "game": r["game_id"], "n": r["n"], "author": r["author"], "text": r["text"],
                     "reporter": r["reporter"], "reason": r["reason"], "at": _iso(r["created_at"]),
                     "hidden": bool(r["hidden"]), "resolved": _iso(r["resolved_at"]), "resolved_by": r["resolved_by"]}
                    for r in rows]

    def resolve(self, report: int, actor: str) -> None:
        with self.engine.begin() as conn:
            done = conn.execute(update(CHAT_REPORTS).where(CHAT_REPORTS.c.id == report,
                                                           CHAT_REPORTS.c.resolved_at.is_(None))
                                .values(resolved_at=utcnow(), resolved_by=actor)).rowcount
            if not done:
                raise ModerationError(404, f"there is no open report {report}")
            self._log(conn, actor, "resolve", f"report:{report}")

    def hide(self, game_id: str, n: int, actor: str, hidden: bool = True) -> None:
        """Hide (or show again) message ``n`` of a game; the pages are told (see the module's docstring)."""
        with self.engine.begin() as conn:
            done = conn.execute(update(CHAT).where(CHAT.c.game_id == game_id, CHAT.c.n == n).values(
                hidden=hidden, hidden_by=actor if hidden else None, hidden_at=utcnow() if hidden else None)).rowcount
            if not done:
                raise ModerationError(404, f"game {game_id} has no chat message {n}")
            self._log(conn, actor, "hide" if hidden else "unhide", f"message:{game_id}:{n}")
            if self.engine.dialect.name == "postgresql" and hidden:
                conn.execute(_NOTIFY, {"payload": f"{game_id} {-n} {self.origin}"})

    def mute(self, name: str, actor: str, muted: bool = True) -> str:
        with self.engine.begin() as conn:
            account = self._account(conn, name)
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account.id).values(chat_muted=muted))
            self._log(conn, actor, "mute" if muted else "unmute", f"account:{account.name}")
            return str(account.name)

    def disable(self, name: str, actor: str, disabled: bool = True, note: str | None = None) -> str:
        """Disable (every session ends at once) or enable an account."""
        with self.engine.begin() as conn:
            account = self._account(conn, name)
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account.id).values(disabled=disabled))
            if disabled:
                conn.execute(delete(SESSIONS).where(SESSIONS.c.account_id == account.id))
            self._log(conn, actor, "disable" if disabled else "enable", f"account:{account.name}", note)
            return str(account.name)

    def make_admin(self, name: str, actor: str, admin: bool = True) -> str:
        with self.engine.begin() as conn:
            account = self._account(conn, name)
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account.id).values(admin=admin))
            self._log(conn, actor, "make-admin" if admin else "remove-admin", f"account:{account.name}")
            return str(account.name)

    def entries(self, limit: int = 100) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(MODERATION).order_by(MODERATION.c.id.desc()).limit(limit)).mappings()
            return [{"at": _iso(r["at"]), "actor": r["actor"], "action": r["action"], "target": r["target"],
                     "note": r["note"]} for r in rows]

    def disabled_seats(self) -> list[tuple[str, int]]:
        """(game, account) of every running game in which a disabled account has a seat."""
        with self.engine.connect() as conn:
            return [(r[0], int(r[1])) for r in conn.execute(
                select(ACCOUNT_SEATS.c.game_id, ACCOUNT_SEATS.c.account_id)
                .join(ACCOUNTS, ACCOUNTS.c.id == ACCOUNT_SEATS.c.account_id)
                .join(GAMES, GAMES.c.id == ACCOUNT_SEATS.c.game_id)
                .where(ACCOUNTS.c.disabled.is_(True), GAMES.c.status == RUNNING).distinct())]


class ModerationKeeper:
    """In each server process: hands the seats of disabled accounts in running games to the timeout bot."""

    def __init__(self, moderation: Moderation, service: Any, every: float) -> None:
        self.moderation = moderation
        #: hansa.server.games.GameService (used, never using this module)
        self.service = service
        self.every = every

    async def run(self) -> None:
        while True:
            try:
                await self.once()
            except Exception:  # noqa: BLE001 - logged, tried again at the next round
                log.exception("handing disabled accounts' seats to bots failed")
            await asyncio.sleep(self.every)

    async def once(self) -> int:
        handed = 0
        for game_id, account in await asyncio.to_thread(self.moderation.disabled_seats):
            try:
                handed += await self.service.set_account_away(game_id, account)
            except ServiceError as exc:
                log.warning("game %s: a disabled account's seat not handed over: %s", game_id, exc.message)
        return handed


_STRICT = ConfigDict(extra="forbid", strict=True)
_Name = Annotated[str, StringConstraints(min_length=1, max_length=400)]


class OnOff(BaseModel):
    model_config = _STRICT
    on: bool = True
    note: Annotated[str, StringConstraints(max_length=500)] | None = None


def routes(moderation: Callable[[], Moderation], accounts: Callable[[], Accounts], chat: Callable[[], Any],
           keeper: Callable[[], ModerationKeeper]) -> APIRouter:
    """``/api/admin/...`` for accounts marked admin (403 for anyone else)."""
    router = APIRouter(route_class=StrictRoute)

    async def admin(request: Request) -> Session:
        session = await accounts().require(request)
        if not session.admin:
            raise ModerationError(403, "only the server's administrators may do that")
        return session

    def actor(session: Session) -> str:
        return f"admin:{session.name}"

    @router.get("/api/admin/reports")
    async def reports(request: Request, all: bool = False,
                      limit: Annotated[int, Query(ge=1, le=500)] = 100) -> dict[str, Any]:
        await admin(request)
        return {"reports": await asyncio.to_thread(moderation().reports, all, limit)}

    @router.post("/api/admin/reports/{report}/resolve")
    async def resolve(report: int, request: Request) -> dict[str, Any]:
        session = await admin(request)
        await asyncio.to_thread(moderation().resolve, report, actor(session))
        return {"resolved": report}

    @router.post("/api/admin/games/{game_id}/chat/{n}/hide")
    async def hide(game_id: str, n: int, body: OnOff, request: Request) -> dict[str, Any]:
        session = await admin(request)
        if not 1 <= len(game_id) <= 16 or not game_id.isalnum() or not 1 <= n <= 10**9:
            raise ModerationError(404, "there is no such message")
        await asyncio.to_thread(moderation().hide, game_id, n, actor(session), body.on)
        if body.on:
            chat().hidden(game_id, n)
        return {"game": game_id, "n": n, "hidden": body.on}

    @router.post("/api/admin/accounts/{name}/mute")
    async def mute(name: str, body: OnOff, request: Request) -> dict[str, Any]:
        session = await admin(request)
        shown = await asyncio.to_thread(moderation().mute, name[:400], actor(session), body.on)
        return {"account": shown, "chat_muted": body.on}

    @router.post("/api/admin/accounts/{name}/disable")
    async def disable(name: str, body: OnOff, request: Request) -> dict[str, Any]:
        session = await admin(request)
        shown = await asyncio.to_thread(moderation().disable, name[:400], actor(session), body.on, body.note)
        if body.on:
            await keeper().once()  # this process hands the seats over at once; the others at their next round
        return {"account": shown, "disabled": body.on}

    @router.get("/api/admin/log")
    async def moderation_log(request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 100) -> dict[str, Any]:
        await admin(request)
        return {"entries": await asyncio.to_thread(moderation().entries, limit)}

    return router
