"""Accounts: signing up, signing in and out, sessions, CSRF, sign-in throttling, changing the password, deleting.

Accounts are optional: a guest plays with seat links exactly as before.  What is stored about an account: its name,
an argon2id hash of its password, when it was made, its sessions (a hash of each cookie, when it was made and last
seen), an e-mail address if its player gave one, the seats it played and its rating.  Deleting the account removes
the password, the address and every session and replaces the name with "Deleted player" everywhere (games keep their
moves; see :meth:`AccountStore.delete`).

Security, each with a test (tests/server/test_accounts.py):

* **Passwords** are hashed with argon2id by ``argon2-cffi`` with its default parameters (RFC 9106's second
  recommended choice: 64 MiB, 3 passes, 4 lanes, 16-byte salt), off the event loop, at most
  :data:`HASHING_AT_ONCE` at a time per process (a flood of sign-ins cannot exhaust memory).  A hash made with older
  parameters is renewed at the next sign-in.
* **Sessions** live in an ``HttpOnly; SameSite=Lax`` cookie (``Secure`` over HTTPS) holding a random token; the
  database keeps its SHA-256 only.  Signing out deletes the session; changing the password deletes every other
  session and renews the current one; deleting the account deletes them all.  Sessions expire after
  ``--session-days``.
* **CSRF**: every request that changes something and is authenticated by the cookie must carry the session's
  ``X-CSRF-Token`` header (given by ``GET /api/account``); sign-up and sign-in (no session yet) are refused when
  the browser says the request comes from another site (``Origin``/``Sec-Fetch-Site``).  Requests authenticated by
  an ``X-Hansa-Token`` header (seat links, programs) cannot be forged by another site and ignore the cookie.
* **Throttling**: failed sign-ins are counted per account name (names nobody has included) and per client address
  in the database, so every process sees them; past ``--sign-in-failures-per-name`` or ``-per-address`` within
  ``--sign-in-block`` seconds the name or address gets 429 with ``Retry-After`` until the block ends, without its
  password being tried.  Sign-ups are limited per address (``--signups-per-hour``).
* **No enumeration**: a failed sign-in says "wrong name or password" whether the name exists or not, after the same
  argon2 work (an unknown name is checked against a dummy hash), and is throttled the same way.  Names are public
  (profiles, the leaderboard), so sign-up may say that a name is taken; it does so only after hashing the password,
  so that it takes the time of a successful sign-up.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from fastapi import APIRouter, Request, Response, WebSocket
from pydantic import BaseModel, ConfigDict, StringConstraints
from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from .config import ServerConfig
from .db import ACCOUNTS, SESSIONS, SIGN_IN_FAILURES, utcnow
from .errors import ServiceError, StrictRoute
from .middleware import client_key
from .names import BadName, clean_name, name_key
from .ratelimit import RateLimiter

log = logging.getLogger("hansa.server")

#: The session cookie.
COOKIE = "hansa_session"
#: The header that carries a session's CSRF token.
CSRF_HEADER = "X-CSRF-Token"
#: Password lengths (characters).
MIN_PASSWORD, MAX_PASSWORD = 8, 200
#: Shortest account name.
MIN_NAME = 2
#: Characters an account name may not hold (it appears in /player/NAME links; ``:`` is kept for bot levels).
NAME_FORBIDDEN = set("/\\:?#%&<>\"'`")
#: argon2 hashes computed at once in one process.
HASHING_AT_ONCE = 2
#: What a deleted account is called (in its games, ratings and everywhere else).
DELETED_NAME = "Deleted player"
#: A session's ``seen_at`` is written at most this often (seconds).
SEEN_EVERY = 300.0
#: The failed sign-in answer, the same whether the name exists or not.
WRONG = "wrong name or password"

#: The hasher: argon2id with argon2-cffi's defaults (RFC 9106 low-memory choice).
HASHER = PasswordHasher()


def session_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def address_hash(address: str) -> str:
    """The key of a client address in the database (the address itself is not stored)."""
    return hashlib.sha256(("sign-in " + address).encode()).hexdigest()[:40]


@dataclass(frozen=True)
class Session:
    """A signed-in request's account."""

    account: int
    name: str
    csrf: str
    id_hash: str
    admin: bool = False


class AccountError(ServiceError):
    pass


def account_name(raw: str, max_length: int) -> str:
    """The stored form of a new account's name, or :class:`BadName`."""
    name = clean_name(raw, max_length)
    if len(name) < MIN_NAME:
        raise BadName(f"an account name has at least {MIN_NAME} characters")
    bad = sorted(NAME_FORBIDDEN & set(name))
    if bad:
        raise BadName("an account name may not hold any of " + " ".join(sorted(NAME_FORBIDDEN)))
    if name_key(name) == name_key(DELETED_NAME):
        raise BadName("that name is kept for deleted accounts")
    return name


def check_password(password: str, name: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise AccountError(400, f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError(400, f"a password has at most {MAX_PASSWORD} characters")
    if name_key(password) == name_key(name):
        raise AccountError(400, "the password may not be the account's name")


class AccountStore:
    """Blocking database access for accounts, sessions and sign-in failures."""

    def __init__(self, engine: Engine, config: ServerConfig) -> None:
        self.engine = engine
        self.config = config

    # ------------------------------------------------------------------ accounts

    def create(self, name: str, password_hash: str) -> int | None:
        """A new account's id, None when the name (or one that is the same: see names.name_key) is taken."""
        try:
            with self.engine.begin() as conn:
                result = conn.execute(insert(ACCOUNTS).values(
                    name=name, name_key=name_key(name), password_hash=password_hash, created_at=utcnow()))
                return int(result.inserted_primary_key[0])  # type: ignore[index]
        except IntegrityError:
            return None

    def by_name(self, name: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(ACCOUNTS).where(ACCOUNTS.c.name_key == name_key(name))).mappings().first()
            return dict(row) if row is not None else None

    def by_id(self, account: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(ACCOUNTS).where(ACCOUNTS.c.id == account)).mappings().first()
            return dict(row) if row is not None else None

    def set_password(self, account: int, password_hash: str, keep: str | None) -> None:
        """New password hash; every session but ``keep`` (an id hash) is deleted in the same transaction."""
        with self.engine.begin() as conn:
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account).values(password_hash=password_hash))
            stmt = delete(SESSIONS).where(SESSIONS.c.account_id == account)
            if keep is not None:
                stmt = stmt.where(SESSIONS.c.id_hash != keep)
            conn.execute(stmt)

    def rehash(self, account: int, old: str, new: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account, ACCOUNTS.c.password_hash == old)
                         .values(password_hash=new))

    def delete(self, account: int, also: Callable[[Connection], None] | None = None) -> None:
        """Delete an account: its password, address and sessions go, its name becomes :data:`DELETED_NAME` (the name
        is free again); ``also`` runs in the same transaction (the club's modules remove what they keep of it)."""
        with self.engine.begin() as conn:
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account).values(
                name=DELETED_NAME, name_key=f"deleted:{account}", password_hash=None, email=None,
                email_verified=False, deleted_at=utcnow()))
            conn.execute(delete(SESSIONS).where(SESSIONS.c.account_id == account))
            if also is not None:
                also(conn)

    # ------------------------------------------------------------------ sessions

    def new_session(self, account: int, replace: str | None = None) -> tuple[str, str]:
        """A new session (and the one it replaces deleted): its cookie token and CSRF token."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = utcnow()
        with self.engine.begin() as conn:
            if replace is not None:
                conn.execute(delete(SESSIONS).where(SESSIONS.c.id_hash == replace))
            conn.execute(insert(SESSIONS).values(
                id_hash=session_hash(token), account_id=account, csrf=csrf, created_at=now, seen_at=now,
                expires_at=now + timedelta(days=self.config.session_days)))
        return token, csrf

    def session(self, token: str) -> Session | None:
        """The live session of a cookie token (not expired, its account neither deleted nor disabled)."""
        digest = session_hash(token)
        now = utcnow()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(SESSIONS.c.account_id, SESSIONS.c.csrf, SESSIONS.c.seen_at, ACCOUNTS.c.name, ACCOUNTS.c.admin)
                .join(ACCOUNTS, ACCOUNTS.c.id == SESSIONS.c.account_id)
                .where(SESSIONS.c.id_hash == digest, SESSIONS.c.expires_at > now, ACCOUNTS.c.deleted_at.is_(None),
                       ACCOUNTS.c.disabled.is_(False))
            ).first()
        if row is None:
            return None
        if (now - row.seen_at).total_seconds() > SEEN_EVERY:
            with self.engine.begin() as conn:
                conn.execute(update(SESSIONS).where(SESSIONS.c.id_hash == digest).values(seen_at=now))
        return Session(int(row.account_id), row.name, row.csrf, digest, bool(row.admin))

    def end_session(self, id_hash: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(SESSIONS).where(SESSIONS.c.id_hash == id_hash))

    def end_sessions(self, account: int, keep: str | None = None) -> int:
        with self.engine.begin() as conn:
            stmt = delete(SESSIONS).where(SESSIONS.c.account_id == account)
            if keep is not None:
                stmt = stmt.where(SESSIONS.c.id_hash != keep)
            return int(conn.execute(stmt).rowcount)

    def sessions(self, account: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(SESSIONS.c.id_hash, SESSIONS.c.created_at, SESSIONS.c.seen_at)
                .where(SESSIONS.c.account_id == account, SESSIONS.c.expires_at > utcnow())
                .order_by(SESSIONS.c.seen_at.desc())
            ).mappings()
            return [dict(r) for r in rows]

    def sweep_sessions(self) -> int:
        """Delete expired sessions and old failure counts."""
        now = utcnow()
        with self.engine.begin() as conn:
            gone = int(conn.execute(delete(SESSIONS).where(SESSIONS.c.expires_at <= now)).rowcount)
            old = now - timedelta(seconds=2 * self.config.sign_in_block)
            conn.execute(delete(SIGN_IN_FAILURES).where(
                SIGN_IN_FAILURES.c.window_start < old,
                (SIGN_IN_FAILURES.c.blocked_until.is_(None)) | (SIGN_IN_FAILURES.c.blocked_until < now)))
            return gone

    # ------------------------------------------------------------------ throttling

    def blocked_for(self, keys: list[str]) -> float:
        """Seconds until every key may try again (0: none is blocked)."""
        now = utcnow()
        with self.engine.connect() as conn:
            rows = conn.execute(select(SIGN_IN_FAILURES.c.blocked_until)
                                .where(SIGN_IN_FAILURES.c.key.in_(keys), SIGN_IN_FAILURES.c.blocked_until > now))
            return max([(r[0] - now).total_seconds() for r in rows], default=0.0)

    def failed(self, keys: dict[str, int]) -> None:
        """Count a failed sign-in for each key (key -> its limit): a key past its limit within the window is blocked
        for ``sign_in_block`` seconds."""
        window = timedelta(seconds=self.config.sign_in_block)
        for _ in range(5):
            try:
                with self.engine.begin() as conn:
                    for key, limit in keys.items():
                        self._count(conn, key, limit, window)
                return
            except IntegrityError:  # another process inserted the same key first: count again
                continue

    @staticmethod
    def _count(conn: Connection, key: str, limit: int, window: timedelta) -> None:
        now = utcnow()
        row = conn.execute(
            select(SIGN_IN_FAILURES.c.failures, SIGN_IN_FAILURES.c.window_start)
            .where(SIGN_IN_FAILURES.c.key == key).with_for_update()
        ).first()
        if row is None:
            conn.execute(insert(SIGN_IN_FAILURES).values(key=key, failures=1, window_start=now,
                                                         blocked_until=now + window if limit <= 1 else None))
            return
        failures, start = (1, now) if now - row.window_start > window else (row.failures + 1, row.window_start)
        values: dict[str, Any] = {"failures": failures, "window_start": start}
        if failures >= limit:
            values["blocked_until"] = now + window
        conn.execute(update(SIGN_IN_FAILURES).where(SIGN_IN_FAILURES.c.key == key).values(**values))

    def succeeded(self, key: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(SIGN_IN_FAILURES).where(SIGN_IN_FAILURES.c.key == key))


class Accounts:
    """The accounts of a server process: the async side of :class:`AccountStore`, with the password work."""

    def __init__(self, engine: Engine, config: ServerConfig) -> None:
        self.store = AccountStore(engine, config)
        self.config = config
        self._hashing = asyncio.Semaphore(HASHING_AT_ONCE)
        self._dummy: str | None = None
        self._signups = RateLimiter(config.signups_per_hour / 3600.0, max(1, config.signups_per_hour))

    async def sweep_forever(self, every: float = 3600.0) -> None:
        """Delete expired sessions and stale failure counts now and then (a task of the app)."""
        while True:
            try:
                await asyncio.to_thread(self.store.sweep_sessions)
            except Exception:  # noqa: BLE001 - logged, tried again later
                log.exception("sweeping expired sessions failed")
            await asyncio.sleep(every)

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(HASHER.hash, password)

    async def _verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored``; with no stored hash, the same work against a dummy one."""
        if stored is None:
            if self._dummy is None:
                self._dummy = await self._hash(secrets.token_urlsafe(16))
            stored = self._dummy
            password = password + "\x00never"  # never matches, costs the same
        async with self._hashing:
            try:
                return await asyncio.to_thread(HASHER.verify, stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

    async def sign_up(self, raw_name: str, password: str, address: str) -> tuple[dict[str, Any], str, str]:
        wait = self._signups.take(address_hash(address))
        if wait > 0:
            raise AccountError(429, f"this address may create {self.config.signups_per_hour} accounts an hour; "
                                    f"wait {math.ceil(wait)} s", None, {"Retry-After": str(math.ceil(wait))})
        try:
            name = account_name(raw_name, self.config.max_name)
        except BadName as exc:
            raise AccountError(400, f"name: {exc}") from None
        check_password(password, name)
        hashed = await self._hash(password)  # before the name is looked at: a taken name costs the same time
        account = await asyncio.to_thread(self.store.create, name, hashed)
        if account is None:
            raise AccountError(409, "that name is taken (names that differ only in case or form are the same)")
        token, csrf = await asyncio.to_thread(self.store.new_session, account)
        return {"id": account, "name": name}, token, csrf

    def _keys(self, raw_name: str, address: str) -> dict[str, int]:
        return {"name:" + name_key(" ".join(raw_name.split()))[:200]: self.config.sign_in_failures_per_name,
                "addr:" + address_hash(address): self.config.sign_in_failures_per_address}

    async def _throttled(self, keys: dict[str, int]) -> None:
        wait = await asyncio.to_thread(self.store.blocked_for, list(keys))
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise AccountError(429, f"too many failed sign-ins; try again in {seconds} s", None,
                               {"Retry-After": str(seconds)})

    async def sign_in(self, raw_name: str, password: str, address: str) -> tuple[dict[str, Any], str, str]:
        keys = self._keys(raw_name, address)
        await self._throttled(keys)
        row = await asyncio.to_thread(self.store.by_name, raw_name) if len(raw_name) <= 4 * self.config.max_name else None
        live = row is not None and row["deleted_at"] is None
        stored = row["password_hash"] if live and row is not None else None
        if not await self._verify(stored, password) or row is None:
            await asyncio.to_thread(self.store.failed, keys)
            raise AccountError(401, WRONG)
        if row["disabled"]:
            raise AccountError(403, "this account is disabled by the server's operator")
        name_k = next(iter(keys))
        await asyncio.to_thread(self.store.succeeded, name_k)
        if stored is not None and HASHER.check_needs_rehash(stored):
            await asyncio.to_thread(self.store.rehash, row["id"], stored, await self._hash(password))
        token, csrf = await asyncio.to_thread(self.store.new_session, row["id"])
        return {"id": row["id"], "name": row["name"]}, token, csrf

    async def confirm_password(self, session: Session, password: str, address: str) -> None:
        """401 unless ``password`` is the session's account's (throttled like a sign-in)."""
        keys = self._keys(session.name, address)
        await self._throttled(keys)
        row = await asyncio.to_thread(self.store.by_id, session.account)
        if row is None or not await self._verify(row["password_hash"], password):
            await asyncio.to_thread(self.store.failed, keys)
            raise AccountError(401, "wrong password")

    async def change_password(self, session: Session, old: str, new: str, address: str) -> tuple[str, str]:
        """Every other session ends; the current one is renewed (its new cookie and CSRF token)."""
        await self.confirm_password(session, old, address)
        check_password(new, session.name)
        hashed = await self._hash(new)
        await asyncio.to_thread(self.store.set_password, session.account, hashed, session.id_hash)
        return await asyncio.to_thread(self.store.new_session, session.account, session.id_hash)

    async def session_of(self, request: Request) -> Session | None:
        """The request's session (cookie), None without a live one; state-changing requests must carry its CSRF
        token (403 otherwise).  Requests authenticated by ``X-Hansa-Token`` never reach this."""
        token = request.cookies.get(COOKIE)
        if not token or len(token) > 100:
            return None
        session = await asyncio.to_thread(self.store.session, token)
        if session is not None and request.method not in ("GET", "HEAD", "OPTIONS"):
            sent = request.headers.get(CSRF_HEADER, "")
            if not secrets.compare_digest(sent.encode(), session.csrf.encode()):
                raise AccountError(403, f"this request needs the session's {CSRF_HEADER} header (GET /api/account)")
        return session

    async def socket_session(self, ws: WebSocket) -> Session | None:
        """A WebSocket's session: its cookie, only when the browser opened it from this server's own pages (a
        WebSocket is not subject to the same-origin policy: another site's page could open one with the cookie)."""
        token = ws.cookies.get(COOKIE)
        origin = ws.headers.get("origin")
        if not token or len(token) > 100 or origin is None:
            return None
        if urlsplit(origin).netloc.lower() != ws.headers.get("host", "").lower():
            return None
        return await asyncio.to_thread(self.store.session, token)

    async def require(self, request: Request) -> Session:
        session = await self.session_of(request)
        if session is None:
            raise AccountError(401, "sign in first")
        return session


def same_site(request: Request) -> None:
    """403 for a request the browser says comes from another site (sign-up and sign-in have no session, so no CSRF
    token, yet must not be made by another site: login CSRF)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        raise AccountError(403, "requests from other sites are refused")
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        host = request.headers.get("host", "")
        if urlsplit(origin).netloc.lower() != host.lower():
            raise AccountError(403, "requests from other sites are refused")
    elif origin == "null":
        raise AccountError(403, "requests from other sites are refused")


def set_cookie(response: Response, request: Request, token: str, days: float) -> None:
    response.set_cookie(COOKIE, token, max_age=int(days * 86400), httponly=True, samesite="lax", path="/",
                        secure=request.url.scheme == "https")


def clear_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https")


_STRICT = ConfigDict(extra="forbid", strict=True)
#: Raw names may be longer than the stored form (white space is collapsed); account_name bounds the stored form.
_Name = Annotated[str, StringConstraints(min_length=1, max_length=400)]
_Password = Annotated[str, StringConstraints(min_length=1, max_length=MAX_PASSWORD * 4)]


class Credentials(BaseModel):
    model_config = _STRICT
    name: _Name
    password: _Password


class PasswordChange(BaseModel):
    model_config = _STRICT
    old: _Password
    new: _Password


class PasswordOnly(BaseModel):
    model_config = _STRICT
    password: _Password


def routes(club: Callable[[], Accounts], config: ServerConfig,
           on_delete: list[Callable[[int], Any]]) -> APIRouter:
    """``/api/account``: sign up, sign in, sign out (here or everywhere), the signed-in account, password, delete.
    ``club()`` is the process's :class:`Accounts` (made when the app starts); ``on_delete``: what the club's other
    modules do when an account is deleted (awaited in order, before the account itself is deleted)."""
    router = APIRouter(route_class=StrictRoute)
    def answer(account: dict[str, Any], csrf: str) -> dict[str, Any]:
        return {"account": {"id": account["id"], "name": account["name"]}, "csrf": csrf}

    @router.post("/api/account/signup", status_code=201)
    async def sign_up(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        same_site(request)
        account, token, csrf = await club().sign_up(body.name, body.password, client_key(request.scope))
        set_cookie(response, request, token, config.session_days)
        return answer(account, csrf)

    @router.post("/api/account/signin")
    async def sign_in(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        same_site(request)
        account, token, csrf = await club().sign_in(body.name, body.password, client_key(request.scope))
        set_cookie(response, request, token, config.session_days)
        return answer(account, csrf)

    @router.get("/api/account")
    async def me(request: Request) -> dict[str, Any]:
        session = await club().session_of(request)
        if session is None:
            return {"account": None, "csrf": None}
        return {"account": {"id": session.account, "name": session.name}, "csrf": session.csrf}

    @router.post("/api/account/signout")
    async def sign_out(request: Request, response: Response) -> dict[str, Any]:
        session = await club().session_of(request)
        if session is not None:
            await asyncio.to_thread(club().store.end_session, session.id_hash)
        clear_cookie(response, request)
        return {"signed_out": True}

    @router.post("/api/account/signout-everywhere")
    async def sign_out_everywhere(request: Request, response: Response) -> dict[str, Any]:
        session = await club().require(request)
        ended = await asyncio.to_thread(club().store.end_sessions, session.account)
        clear_cookie(response, request)
        return {"signed_out": True, "sessions": ended}

    @router.get("/api/account/sessions")
    async def sessions(request: Request) -> dict[str, Any]:
        session = await club().require(request)
        rows = await asyncio.to_thread(club().store.sessions, session.account)
        return {"sessions": [{"current": r["id_hash"] == session.id_hash, "created": iso(r["created_at"]),
                              "seen": iso(r["seen_at"])} for r in rows]}

    @router.post("/api/account/password")
    async def change_password(body: PasswordChange, request: Request, response: Response) -> dict[str, Any]:
        session = await club().require(request)
        token, csrf = await club().change_password(session, body.old, body.new, client_key(request.scope))
        set_cookie(response, request, token, config.session_days)
        return {"account": {"id": session.account, "name": session.name}, "csrf": csrf}

    @router.post("/api/account/delete")
    async def delete_account(body: PasswordOnly, request: Request, response: Response) -> dict[str, Any]:
        session = await club().require(request)
        await club().confirm_password(session, body.password, client_key(request.scope))
        for hook in on_delete:
            result = hook(session.account)
            if asyncio.iscoroutine(result):
                await result
        await asyncio.to_thread(club().store.delete, session.account)
        clear_cookie(response, request)
        return {"deleted": True}

    return router


def iso(moment: datetime) -> str:
    return moment.isoformat() + "Z"
