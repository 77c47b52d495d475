"""E-mail: address verification, turn notices and reminders, unsubscribing; sent through SMTP in the background.

A module of the club beside the game service (which knows nothing of it): :class:`MailKeeper`, a background task
of every server process, reads the database and writes the **outbox** (``mail_outbox``), one row per e-mail.

**Who gets e-mail.**  A signed-in player who gave an address (``POST /api/account/email``) and confirmed it by the
link of the verification mail.  Notices only for running games with a **turn-based** clock, only while the decision
is with the account's own seat (not a seat a bot plays after a timeout), and not after the player unsubscribed from
that game or from all e-mail.

**What is sent.**  A *notice* when the decision passes to the player (one per period of decisions: the key is the
clock's ``since``, when the seat's decision began, so several moves of one seat in a row are one period); a
*reminder* ``--reminder-before`` seconds before the seat's time runs out, unless an e-mail of this game was already
sent to the player within that window.  Each holds the game's link (``--public-url``/game/ID), whose turn it is,
the time left, and two one-click unsubscribe links (this game, all games), also in a ``List-Unsubscribe`` header
(RFC 8058 one-click).  The texts are the ``mail.*`` keys of the client's translations, in the language of the page
the address was given on.

**Batching.**  At most one e-mail per account and game in ``--notice-period`` seconds: a notice or reminder due
sooner waits, and is made when the period is over if the decision is still the player's (a player who moved
meanwhile gets nothing).

**Exactly once, whatever the number of processes.**  Outbox rows are made idempotently (``dedupe`` is unique:
``notice:<account>:<game>:<seat>:<period>``), one process at a time (a PostgreSQL advisory lock; on SQLite the
database's write lock, taken first).  A row is *claimed* before it is sent (``claimed_by``/``claimed_until``:
``FOR UPDATE SKIP LOCKED`` on PostgreSQL, a conditional update everywhere), so one process sends it.  A process
killed between the SMTP server's acceptance and marking the row sent sends it again when the claim has run out
(:data:`CLAIM` seconds): the one case of a second copy.

**Never blocking a move.**  Nothing here runs in a move's request: the keeper looks every ``--mail-interval``
seconds (and at once when a verification mail is asked for), off the event loop.  A failed sending is logged,
counted (``mail_failed`` in ``/api/stats``) and tried again after ``--mail-retry`` seconds, doubled at each failure
(at most :data:`MAX_BACKOFF`), up to :data:`MAX_ATTEMPTS` tries.  Right before sending, a notice is checked again:
one that no longer stands is *dropped*.

**Tokens.**  Verification and unsubscribe tokens are random (``secrets.token_urlsafe``), made when the mail is
written; only their SHA-256 is stored.  A verification link works for :data:`VERIFY_HOURS` hours; unsubscribe
links work while their mail's row is kept (:data:`KEEP_DAYS` days).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import html
import json
import logging
import math
import os
import re
import secrets
import smtplib
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, StringConstraints
from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from .db import ACCOUNT_SEATS, ACCOUNTS, GAMES, MAIL, MAIL_OPTOUTS, utcnow
from .errors import ServiceError, StrictRoute

if TYPE_CHECKING:
    from .accounts import Accounts

log = logging.getLogger("hansa.server.mail")

#: The languages of e-mails (the client's).
LANGUAGES = ("en", "pt", "it", "es", "cs")
I18N = Path(__file__).parent / "static" / "i18n"
#: Longest address (RFC 5321's path limit).
MAX_EMAIL = 254
#: An address: an ASCII local part of the usual characters and a domain of labels (what SMTP servers accept
#: without extensions); no white space, no quotes, nothing that could end a header.
EMAIL = re.compile(
    r"^(?!\.)(?!.*\.\.)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}(?<!\.)"
    r"@(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$"
)
#: Verification mails one account may ask for per hour (429 beyond).
VERIFY_PER_HOUR = 5
#: Verification e-mails one address may be sent a day, whatever accounts ask.
VERIFY_PER_ADDRESS = 3
#: A verification link works this long.
VERIFY_HOURS = 48
#: Sent, failed and dropped rows (and their unsubscribe links) are kept this long.
KEEP_DAYS = 30
#: Tries of one e-mail before it is given up (status failed).
MAX_ATTEMPTS = 8
#: Longest wait between two tries (seconds).
MAX_BACKOFF = 6 * 3600.0
#: How long a process holds a claimed row before another may send it (seconds).
CLAIM = 120.0
#: Rows one look claims at most (the next look takes the rest).
BATCH = 50
#: The PostgreSQL advisory lock held while notices are made.
MAIL_LOCK = 7_157_343
#: All games (an opt-out's ``game_id``).
ALL = "*"


# ---------------------------------------------------------------------------------------------------- SMTP


@dataclass(frozen=True)
class SmtpSettings:
    """Where e-mail goes: ``security`` is ``none``, ``starttls`` or ``ssl`` (smtps)."""

    host: str
    port: int
    user: str | None
    password: str | None
    security: str
    timeout: float = 20.0


def parse_smtp_url(url: str) -> SmtpSettings:
    """``smtp://[user[:password]@]host[:port][?starttls=1]`` (port 25; 587 is usual with STARTTLS) or
    ``smtps://...`` (TLS from the start, port 465).  Raises ``ValueError`` for anything else."""
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError("smtp_url: smtp://[user:password@]host[:port][?starttls=1] or smtps://...")
    try:
        port = parts.port
    except ValueError:
        raise ValueError("smtp_url: the port is not a number from 1 to 65535") from None
    if not parts.hostname:
        raise ValueError("smtp_url: no host")
    query = parse_qs(parts.query)
    unknown = set(query) - {"starttls", "timeout"}
    if unknown:
        raise ValueError(f"smtp_url: unknown parameter(s) {', '.join(sorted(unknown))}")
    starttls = query.get("starttls", ["0"])[-1] in ("1", "true", "yes")
    if parts.scheme == "smtps" and starttls:
        raise ValueError("smtp_url: smtps is TLS from the start; starttls is for smtp://")
    try:
        timeout = float(query.get("timeout", ["20"])[-1])
    except ValueError:
        raise ValueError("smtp_url: timeout is seconds") from None
    if not 0 < timeout <= 300:
        raise ValueError("smtp_url: timeout from 0 to 300 seconds")
    security = "ssl" if parts.scheme == "smtps" else "starttls" if starttls else "none"
    return SmtpSettings(
        host=parts.hostname, port=port or (465 if security == "ssl" else 25),
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
        security=security, timeout=timeout,
    )


def send_message(settings: SmtpSettings, message: EmailMessage) -> None:
    """Hand ``message`` to the SMTP server (blocking); raises ``OSError``/``smtplib.SMTPException`` on failure."""
    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    if settings.security == "ssl":
        smtp = smtplib.SMTP_SSL(settings.host, settings.port, timeout=settings.timeout, context=context)
    else:
        smtp = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
    with smtp:
        if settings.security == "starttls":
            smtp.starttls(context=context)
        if settings.user is not None:
            smtp.login(settings.user, settings.password or "")
        smtp.send_message(message)


# ---------------------------------------------------------------------------------------------------- addresses


class BadAddress(ValueError):
    """An address the server does not take."""


def clean_address(raw: str) -> str:
    """The stored form of an address (the domain lower-cased), or :class:`BadAddress`."""
    address = raw.strip()
    if not address or len(address) > MAX_EMAIL:
        raise BadAddress(f"an e-mail address has 3 to {MAX_EMAIL} characters")
    if not EMAIL.match(address):
        raise BadAddress("that is not an e-mail address this server can send to (name@example.org)")
    local, domain = address.rsplit("@", 1)
    return f"{local}@{domain.lower()}"


def token_hash(token: str) -> str:
    return hashlib.sha256(("mail " + token).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------------- texts


@cache
def texts(lang: str) -> dict[str, str]:
    """The ``mail.*`` texts of ``lang`` (English for a missing one)."""
    english = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
    own = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8")) if lang in LANGUAGES else {}
    return {k: own.get(k, v) for k, v in english.items() if k.startswith("mail.")}


def say(lang: str, key: str, **params: Any) -> str:
    text = texts(lang)[f"mail.{key}"]
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def duration(lang: str, seconds: float) -> str:
    """``2 d 3 h``, ``5 h 20 min``, ``12 min`` in ``lang``."""
    minutes = max(0, math.ceil(seconds / 60))
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    if days:
        return say(lang, "daysHours", d=days, h=hours)
    if hours:
        return say(lang, "hoursMinutes", h=hours, m=mins)
    return say(lang, "minutes", m=mins)


# ---------------------------------------------------------------------------------------------------- the outbox


def _lock(conn: Connection) -> None:
    """One maker of notices at a time: PostgreSQL's advisory lock; SQLite's write lock, taken before any read."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(MAIL_LOCK)))
    else:
        conn.execute(update(MAIL).where(MAIL.c.id == -1).values(attempts=0))


@dataclass(frozen=True)
class Due:
    """A seat of an account that is deciding in a running turn-based game."""

    account: int
    game: str
    seat: int
    period: int
    deadline: datetime
    recipient: str
    lang: str


class MailStore:
    """Blocking database access for the outbox, addresses and opt-outs."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ addresses

    def address(self, account: int) -> dict[str, Any]:
        with self.engine.connect() as conn:
            row = conn.execute(select(ACCOUNTS.c.email, ACCOUNTS.c.email_verified)
                               .where(ACCOUNTS.c.id == account)).first()
            off = conn.execute(select(MAIL_OPTOUTS.c.game_id).where(
                MAIL_OPTOUTS.c.account_id == account, MAIL_OPTOUTS.c.game_id == ALL)).first()
        return {"email": row.email if row else None, "verified": bool(row and row.email_verified),
                "notices": off is None}

    def verifications_since(self, account: int, since: datetime) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(MAIL).where(
                MAIL.c.account_id == account, MAIL.c.kind == "verify", MAIL.c.created_at >= since)).scalar() or 0)

    def verifications_to(self, email: str, since: datetime) -> int:
        """Verification mails queued for ``email`` since ``since``, whatever account asked (a cap per address: no
        one can use the server to flood someone else's mailbox)."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(MAIL).where(
                MAIL.c.recipient == email, MAIL.c.kind == "verify", MAIL.c.created_at >= since)).scalar() or 0)

    def set_address(self, account: int, email: str, lang: str) -> bool:
        """A new address to verify (a verification mail queued); False when it is the account's verified address
        already (nothing changes)."""
        now = utcnow()
        with self.engine.begin() as conn:
            row = conn.execute(select(ACCOUNTS.c.email, ACCOUNTS.c.email_verified)
                               .where(ACCOUNTS.c.id == account)).first()
            if row is not None and row.email == email and row.email_verified:
                conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account).values(email_lang=lang))
                return False
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account).values(
                email=email, email_verified=False, email_lang=lang))
            conn.execute(insert(MAIL).values(
                dedupe=f"verify:{account}:{secrets.token_hex(8)}", kind="verify", account_id=account,
                recipient=email, lang=lang, status="pending", attempts=0, next_try=now, created_at=now))
        return True

    def remove_address(self, account: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account).values(
                email=None, email_verified=False, email_lang=None))

    def set_notices(self, account: int, on: bool, game: str = ALL) -> None:
        """Turn e-mail on or off for one game or (``ALL``) every game."""
        with self.engine.begin() as conn:
            conn.execute(delete(MAIL_OPTOUTS).where(MAIL_OPTOUTS.c.account_id == account,
                                                    MAIL_OPTOUTS.c.game_id == game))
            if not on:
                conn.execute(insert(MAIL_OPTOUTS).values(account_id=account, game_id=game, created_at=utcnow()))

    def forget(self, account: int) -> None:
        """A deleted account: its e-mails (with the address they went to) and opt-outs go."""
        with self.engine.begin() as conn:
            conn.execute(delete(MAIL).where(MAIL.c.account_id == account))
            conn.execute(delete(MAIL_OPTOUTS).where(MAIL_OPTOUTS.c.account_id == account))

    def verify(self, token: str) -> str | None:
        """Confirm the address of a verification token: the language of its mail, None for a token that is
        unknown, expired or for an address the account no longer has."""
        now = utcnow()
        with self.engine.begin() as conn:
            row = conn.execute(select(MAIL.c.account_id, MAIL.c.recipient, MAIL.c.lang, MAIL.c.token_expires).where(
                MAIL.c.token_hash == token_hash(token), MAIL.c.kind == "verify")).first()
            if row is None or row.token_expires is None or row.token_expires < now:
                return None
            done = conn.execute(update(ACCOUNTS).where(
                ACCOUNTS.c.id == row.account_id, ACCOUNTS.c.email == row.recipient, ACCOUNTS.c.deleted_at.is_(None),
            ).values(email_verified=True)).rowcount
            if not done:
                return None
            conn.execute(update(MAIL).where(MAIL.c.token_hash == token_hash(token)).values(token_expires=now))
            return str(row.lang)

    def unsubscribe(self, token: str, scope: str) -> tuple[str, str | None] | None:
        """The opt-out of an unsubscribe link (``scope``: game or all): the mail's language and game, None for an
        unknown token."""
        with self.engine.connect() as conn:
            row = conn.execute(select(MAIL.c.account_id, MAIL.c.game_id, MAIL.c.lang).where(
                MAIL.c.token_hash == token_hash(token), MAIL.c.kind.in_(("notice", "reminder")))).first()
        if row is None or row.game_id is None:
            return None
        game = row.game_id if scope == "game" else ALL
        with self.engine.begin() as conn:
            exists = conn.execute(select(MAIL_OPTOUTS.c.game_id).where(
                MAIL_OPTOUTS.c.account_id == row.account_id, MAIL_OPTOUTS.c.game_id == game)).first()
            if exists is None:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(MAIL_OPTOUTS).values(account_id=row.account_id, game_id=game,
                                                                 created_at=utcnow()))
                except IntegrityError:
                    pass  # the same link opened twice at once
        return str(row.lang), row.game_id

    # ------------------------------------------------------------------ notices

    def deciding(self) -> list[Due]:
        """The seats of accounts with a confirmed address, not unsubscribed, deciding in running turn-based games."""
        with self.engine.connect() as conn:
            games = conn.execute(
                select(GAMES.c.id, GAMES.c.clock, GAMES.c.players, GAMES.c.deadline)
                .where(GAMES.c.status == "running", GAMES.c.deadline.is_not(None),
                       GAMES.c.id.in_(select(ACCOUNT_SEATS.c.game_id)))
            ).all()
            seats: list[tuple[int, str, int, int, datetime]] = []
            for g in games:
                clock = g.clock or {}
                try:
                    if clock["settings"]["kind"] != "turn":
                        continue
                    seat = int(clock["seat"])
                    if seat < 0 or clock["away"][seat]:
                        continue
                    player = g.players[seat]
                    account = player.get("account")
                    if account is None or player.get("type") != "human":
                        continue
                    seats.append((int(account), g.id, seat, round(float(clock["since"]) * 1000), g.deadline))
                except (KeyError, IndexError, TypeError, ValueError):
                    continue  # a damaged game: the game service reports it
            if not seats:
                return []
            accounts = {a for a, *_ in seats}
            rows = conn.execute(select(ACCOUNTS.c.id, ACCOUNTS.c.email, ACCOUNTS.c.email_lang).where(
                ACCOUNTS.c.id.in_(accounts), ACCOUNTS.c.email.is_not(None), ACCOUNTS.c.email_verified.is_(True),
                ACCOUNTS.c.deleted_at.is_(None), ACCOUNTS.c.disabled.is_(False))).all()
            addresses = {r.id: (r.email, r.email_lang or "en") for r in rows}
            off = {(r.account_id, r.game_id) for r in conn.execute(
                select(MAIL_OPTOUTS.c.account_id, MAIL_OPTOUTS.c.game_id)
                .where(MAIL_OPTOUTS.c.account_id.in_(accounts)))}
        return [Due(a, g, s, p, d, *addresses[a]) for a, g, s, p, d in seats
                if a in addresses and (a, ALL) not in off and (a, g) not in off]

    def make_notices(self, due: list[Due], now: datetime, period: float, before: float) -> int:
        """Make the notices and reminders that are due (see the module's docstring): how many were made."""
        if not due:
            return 0
        made = 0
        with self.engine.begin() as conn:
            _lock(conn)
            for d in due:
                notice = f"notice:{d.account}:{d.game}:{d.seat}:{d.period}"
                reminder = f"reminder:{d.account}:{d.game}:{d.seat}:{d.period}"
                existing = {r[0] for r in conn.execute(select(MAIL.c.dedupe).where(
                    MAIL.c.dedupe.in_((notice, reminder))))}
                latest = conn.execute(select(func.max(MAIL.c.created_at)).where(
                    MAIL.c.account_id == d.account, MAIL.c.game_id == d.game, MAIL.c.status != "dropped")).scalar()
                quiet = latest is None or latest <= now - timedelta(seconds=period)
                kind: str | None = None
                if notice not in existing:
                    kind = "notice" if quiet else None
                elif reminder not in existing and before > 0:
                    window = d.deadline - timedelta(seconds=before)
                    if window <= now < d.deadline and quiet and (latest is None or latest < window):
                        kind = "reminder"
                if kind is None:
                    continue
                conn.execute(insert(MAIL).values(
                    dedupe=notice if kind == "notice" else reminder, kind=kind, account_id=d.account,
                    game_id=d.game, seat=d.seat, period=d.period, recipient=d.recipient, lang=d.lang,
                    status="pending", attempts=0, next_try=now, created_at=now))
                made += 1
        return made

    # ------------------------------------------------------------------ sending

    def claim(self, owner: str, now: datetime, limit: int = BATCH) -> list[int]:
        """Claim up to ``limit`` rows due now for ``owner`` (no other process sends them until the claim ends)."""
        free = or_(MAIL.c.claimed_until.is_(None), MAIL.c.claimed_until < now)
        with self.engine.begin() as conn:
            query = (select(MAIL.c.id).where(MAIL.c.status == "pending", MAIL.c.next_try <= now, free)
                     .order_by(MAIL.c.next_try, MAIL.c.id).limit(limit))
            if conn.dialect.name == "postgresql":
                query = query.with_for_update(skip_locked=True)
            ids = [r[0] for r in conn.execute(query)]
            claimed = []
            for mail_id in ids:
                if conn.execute(update(MAIL).where(MAIL.c.id == mail_id, MAIL.c.status == "pending", free).values(
                        claimed_by=owner, claimed_until=now + timedelta(seconds=CLAIM))).rowcount:
                    claimed.append(mail_id)
        return claimed

    def load(self, mail_id: int) -> dict[str, Any] | None:
        """A claimed row with what writing it needs: the account, and the game of a notice."""
        with self.engine.connect() as conn:
            row = conn.execute(select(MAIL).where(MAIL.c.id == mail_id)).mappings().first()
            if row is None:
                return None
            out = dict(row)
            account = conn.execute(select(ACCOUNTS.c.name, ACCOUNTS.c.email, ACCOUNTS.c.email_verified,
                                          ACCOUNTS.c.deleted_at, ACCOUNTS.c.disabled)
                                   .where(ACCOUNTS.c.id == out["account_id"])).mappings().first()
            out["account"] = dict(account) if account else None
            out["game"] = None
            out["optout"] = False
            if out["game_id"] is not None:
                game = conn.execute(select(GAMES.c.status, GAMES.c.clock, GAMES.c.players, GAMES.c.deadline)
                                    .where(GAMES.c.id == out["game_id"])).mappings().first()
                out["game"] = dict(game) if game else None
                out["optout"] = conn.execute(select(MAIL_OPTOUTS.c.game_id).where(
                    MAIL_OPTOUTS.c.account_id == out["account_id"],
                    MAIL_OPTOUTS.c.game_id.in_((ALL, out["game_id"])))).first() is not None
        return out

    def finish(self, mail_id: int, owner: str, values: dict[str, Any]) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(MAIL).where(MAIL.c.id == mail_id, MAIL.c.claimed_by == owner)
                         .values(claimed_by=None, claimed_until=None, **values))

    def keep_token(self, mail_id: int, owner: str, digest: str, expires: datetime | None) -> None:
        """Store the hash of the token of a row about to be sent (its claim renewed)."""
        with self.engine.begin() as conn:
            conn.execute(update(MAIL).where(MAIL.c.id == mail_id, MAIL.c.claimed_by == owner).values(
                token_hash=digest, token_expires=expires, claimed_until=utcnow() + timedelta(seconds=CLAIM)))

    def pending(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(MAIL)
                                    .where(MAIL.c.status == "pending")).scalar() or 0)

    def sweep(self, now: datetime) -> int:
        """Delete the rows older than :data:`KEEP_DAYS` days that are done."""
        with self.engine.begin() as conn:
            return int(conn.execute(delete(MAIL).where(
                MAIL.c.created_at < now - timedelta(days=KEEP_DAYS), MAIL.c.status != "pending")).rowcount)


def stands(row: dict[str, Any]) -> bool:
    """Whether a claimed e-mail is still to be sent: its address is still the account's (and confirmed, for a
    notice), and a notice's seat still decides in the same period, the account not unsubscribed."""
    account = row["account"]
    if account is None or account["deleted_at"] is not None or account["disabled"]:
        return False
    if account["email"] != row["recipient"]:
        return False
    if row["kind"] == "verify":
        return not account["email_verified"]
    game = row["game"]
    if not account["email_verified"] or row["optout"] or game is None or game["status"] != "running":
        return False
    clock = game["clock"] or {}
    try:
        seat = int(clock["seat"])
        return (seat == row["seat"] and round(float(clock["since"]) * 1000) == row["period"]
                and not clock["away"][seat] and game["deadline"] is not None)
    except (KeyError, IndexError, TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------------------- messages


@dataclass(frozen=True)
class Written:
    """A written e-mail and the hash and end of its token."""

    message: EmailMessage
    token_hash: str
    token_expires: datetime | None


class Writer:
    """Writes the e-mails (plain text) from outbox rows."""

    def __init__(self, public_url: str, sender: str) -> None:
        self.base = public_url.rstrip("/")
        host = urlsplit(self.base).hostname or "localhost"
        self.sender = sender or formataddr(("hansa", f"hansa@{host}"))
        self.domain = host

    def _message(self, to: str, subject: str, body: str) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        message["Message-ID"] = make_msgid(domain=self.domain)
        message["Auto-Submitted"] = "auto-generated"
        message.set_content(body)
        return message

    def write(self, row: dict[str, Any], now: datetime) -> Written:
        token = secrets.token_urlsafe(24)
        lang = row["lang"] if row["lang"] in LANGUAGES else "en"
        name = row["account"]["name"]
        if row["kind"] == "verify":
            link = f"{self.base}/email/verify?token={token}"
            body = "\n\n".join([say(lang, "hello", name=name), say(lang, "verifyBody"), link,
                                say(lang, "verifyExpires", hours=VERIFY_HOURS), say(lang, "verifyIgnore")])
            return Written(self._message(row["recipient"], say(lang, "verifySubject"), body + "\n"),
                           token_hash(token), now + timedelta(hours=VERIFY_HOURS))
        game_id = row["game_id"]
        game = row["game"]
        players = [str(p.get("name", "?")) for p in game["players"]]
        left = max(0.0, (game["deadline"] - now).total_seconds())
        game_link = f"{self.base}/game/{game_id}"
        off_game = f"{self.base}/email/unsubscribe?token={token}&scope=game"
        off_all = f"{self.base}/email/unsubscribe?token={token}&scope=all"
        if row["kind"] == "notice":
            subject = say(lang, "noticeSubject", game=game_id)
            lead = say(lang, "noticeBody", name=name, game=game_id)
        else:
            subject = say(lang, "reminderSubject", game=game_id, left=duration(lang, left))
            lead = say(lang, "reminderBody", name=name, game=game_id)
        body = "\n\n".join([
            say(lang, "hello", name=name), lead,
            say(lang, "players", players=", ".join(players)),
            say(lang, "timeLeft", left=duration(lang, left)),
            say(lang, "open") + "\n" + game_link,
            "-- \n" + say(lang, "why"),
            say(lang, "unsubscribeGame") + "\n" + off_game,
            say(lang, "unsubscribeAll") + "\n" + off_all,
        ])
        message = self._message(row["recipient"], subject, body + "\n")
        message["List-Unsubscribe"] = f"<{off_game}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        return Written(message, token_hash(token), None)


# ---------------------------------------------------------------------------------------------------- the keeper


class MailKeeper:
    """A server process's background e-mail: makes the notices and reminders that are due, and sends the outbox.

    Counts (this process): ``sent``, ``failed`` (tries that failed, each logged), ``dropped`` (no longer standing
    when their turn came), ``given_up``; ``pending`` is the outbox's pending rows at the last look."""

    def __init__(self, engine: Engine, smtp_url: str, public_url: str, sender: str, period: float,
                 reminder_before: float, interval: float, retry: float) -> None:
        self.store = MailStore(engine)
        self.smtp = parse_smtp_url(smtp_url) if smtp_url else None
        self.writer = Writer(public_url, sender)
        self.period = period
        self.reminder_before = reminder_before
        self.interval = interval
        self.retry = retry
        self.owner = f"{socket.gethostname()[:30]}:{os.getpid()}:{secrets.token_hex(4)}"
        self.sent = self.failed = self.dropped = self.given_up = self.pending = 0
        self._task: asyncio.Task[None] | None = None
        self._look: asyncio.Future[None] | None = None
        self._wake = asyncio.Event()
        self._closing = False
        self._swept: datetime | None = None

    @property
    def enabled(self) -> bool:
        return self.smtp is not None

    def start(self) -> None:
        """Start looking (the first look at once); nothing without an SMTP server."""
        if self.enabled:
            self._task = asyncio.create_task(self._run(), name="hansa-mail")

    def wake(self) -> None:
        """Look now (a verification mail was asked for)."""
        self._wake.set()

    async def stop(self) -> None:
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._look is not None:
            with contextlib.suppress(Exception):
                await self._look

    def stats(self) -> dict[str, Any]:
        """For /api/stats."""
        return {"mail_sent": self.sent, "mail_failed": self.failed, "mail_dropped": self.dropped,
                "mail_given_up": self.given_up, "mail_pending": self.pending}

    def look(self) -> None:
        """One look (blocking): make the due notices, then send what is due; failures are logged and counted."""
        now = utcnow()
        try:
            if self._swept is None or now - self._swept > timedelta(hours=1):
                self.store.sweep(now)
                self._swept = now
            self.store.make_notices(self.store.deciding(), now, self.period, self.reminder_before)
        except Exception as exc:
            log.warning("making turn notices failed (tried again later): %s", _first_line(exc))
        try:
            for mail_id in self.store.claim(self.owner, utcnow()):
                if self._closing:
                    return
                self.deliver(mail_id)
            self.pending = self.store.pending()
        except Exception as exc:
            log.warning("sending e-mail failed (tried again later): %s", _first_line(exc))

    def deliver(self, mail_id: int) -> None:
        """Write and send one claimed row, then mark it sent, dropped, or to be tried again."""
        assert self.smtp is not None
        row = self.store.load(mail_id)
        if row is None:
            return
        now = utcnow()
        if not stands(row):
            self.store.finish(mail_id, self.owner, {"status": "dropped"})
            self.dropped += 1
            return
        written = self.writer.write(row, now)
        # the token is stored before the mail leaves: its links work as soon as it arrives
        self.store.keep_token(mail_id, self.owner, written.token_hash, written.token_expires)
        try:
            send_message(self.smtp, written.message)
        except (OSError, smtplib.SMTPException) as exc:
            attempts = row["attempts"] + 1
            self.failed += 1
            error = _first_line(exc)
            if attempts >= MAX_ATTEMPTS:
                self.given_up += 1
                log.warning("e-mail %d (%s) failed %d times, given up: %s", mail_id, row["kind"], attempts, error)
                self.store.finish(mail_id, self.owner, {"status": "failed", "attempts": attempts,
                                                        "last_error": error})
            else:
                wait = min(MAX_BACKOFF, self.retry * 2 ** (attempts - 1))
                log.warning("e-mail %d (%s) failed (try %d, again in %.0f s): %s", mail_id, row["kind"], attempts,
                            wait, error)
                self.store.finish(mail_id, self.owner, {"attempts": attempts, "last_error": error,
                                                        "next_try": utcnow() + timedelta(seconds=wait)})
            return
        self.store.finish(mail_id, self.owner, {"status": "sent", "sent_at": utcnow(), "attempts": row["attempts"] + 1,
                                                "last_error": None})
        self.sent += 1

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            self._look = asyncio.ensure_future(asyncio.to_thread(self.look))
            await asyncio.shield(self._look)
            self._look = None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval)


def _first_line(exc: BaseException) -> str:
    return ((str(exc).splitlines() or [type(exc).__name__])[0] or type(exc).__name__)[:300]


# ---------------------------------------------------------------------------------------------------- pages


def page(lang: str, title: str, text: str, status: int = 200) -> tuple[str, int]:
    """A small page (no script, no inline style) with ``text`` and a link to the lobby."""
    lang = lang if lang in LANGUAGES else "en"
    return (
        f'<!doctype html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)} — hansa</title>\n"
        '<link rel="stylesheet" href="/static/css/app.css">\n<link rel="stylesheet" href="/static/css/lobby.css">\n'
        '</head>\n<body class="lobby-page mail-page">\n<main class="mail-result">\n'
        f"<h1>{html.escape(title)}</h1>\n<p>{html.escape(text)}</p>\n"
        f'<p><a class="btn" href="/">{html.escape(say(lang, "toLobby"))}</a></p>\n</main>\n</body>\n</html>\n',
        status,
    )


def verify_page(store: MailStore, token: str | None) -> tuple[str, int]:
    if not token or len(token) > 100:
        return page("en", say("en", "verifyFailedTitle"), say("en", "verifyFailed"), 400)
    lang = store.verify(token)
    if lang is None:
        return page("en", say("en", "verifyFailedTitle"), say("en", "verifyFailed"), 404)
    return page(lang, say(lang, "verifiedTitle"), say(lang, "verified"))


def unsubscribe_page(store: MailStore, token: str | None, scope: str | None) -> tuple[str, int]:
    if not token or len(token) > 100 or scope not in ("game", "all"):
        return page("en", say("en", "unsubscribeFailedTitle"), say("en", "unsubscribeFailed"), 400)
    done = store.unsubscribe(token, scope)
    if done is None:
        return page("en", say("en", "unsubscribeFailedTitle"), say("en", "unsubscribeFailed"), 404)
    lang, game = done
    text = say(lang, "unsubscribedGame", game=game) if scope == "game" else say(lang, "unsubscribedAll")
    return page(lang, say(lang, "unsubscribedTitle"), text)



# ---------------------------------------------------------------------------------------------------- requests


#: A link's token and scope (longer ones are answered 400 by the page, not FastAPI's 422).
Token = Annotated[str | None, Query(max_length=400)]
Scope = Annotated[str | None, Query(max_length=40)]


class AddressIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    email: Annotated[str, StringConstraints(min_length=1, max_length=MAX_EMAIL + 10)]
    lang: Literal[LANGUAGES] = "en"  # type: ignore[valid-type]


class NoticesIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    on: bool


def routes(keeper: Callable[[], MailKeeper], club: Callable[[], Accounts]) -> APIRouter:
    """``/api/account/email`` (the signed-in account's address, its verification, the notices switch) and the
    pages of the e-mails' links, ``/email/verify`` and ``/email/unsubscribe``."""
    router = APIRouter(route_class=StrictRoute)

    def enabled() -> bool:
        return keeper().enabled

    async def state(account: int) -> dict[str, Any]:
        return {"enabled": enabled(), **await asyncio.to_thread(keeper().store.address, account)}

    @router.get("/api/account/email")
    async def get_address(request: Request) -> dict[str, Any]:
        session = await club().require(request)
        return await state(session.account)

    @router.post("/api/account/email", status_code=202)
    async def set_address(body: AddressIn, request: Request) -> dict[str, Any]:
        """Give (or change) the address: a verification mail goes to it; notices start once it is confirmed."""
        session = await club().require(request)
        if not enabled():
            raise ServiceError(403, "e-mail is off on this server (the operator sets --smtp-url)")
        try:
            email = clean_address(body.email)
        except BadAddress as exc:
            raise ServiceError(400, f"email: {exc}") from None
        store = keeper().store
        hour_ago = utcnow() - timedelta(hours=1)
        if await asyncio.to_thread(store.verifications_since, session.account, hour_ago) >= VERIFY_PER_HOUR:
            raise ServiceError(429, f"at most {VERIFY_PER_HOUR} verification e-mails an hour; try again later",
                               None, {"Retry-After": "3600"})
        day_ago = utcnow() - timedelta(days=1)
        if await asyncio.to_thread(store.verifications_to, email, day_ago) >= VERIFY_PER_ADDRESS:
            raise ServiceError(429, f"at most {VERIFY_PER_ADDRESS} verification e-mails a day go to one address; "
                                    "try again tomorrow", None, {"Retry-After": "86400"})
        if await asyncio.to_thread(store.set_address, session.account, email, body.lang):
            keeper().wake()
        return await state(session.account)

    @router.delete("/api/account/email")
    async def remove_address(request: Request) -> dict[str, Any]:
        """Remove the address: nothing more is sent to it (e-mails not yet sent are dropped)."""
        session = await club().require(request)
        await asyncio.to_thread(keeper().store.remove_address, session.account)
        return await state(session.account)

    @router.put("/api/account/email/notices")
    async def notices(body: NoticesIn, request: Request) -> dict[str, Any]:
        """Turn turn notices and reminders on or off for every game."""
        session = await club().require(request)
        await asyncio.to_thread(keeper().store.set_notices, session.account, body.on)
        return await state(session.account)

    @router.get("/email/verify", include_in_schema=False)
    async def verify(token: Token = None) -> HTMLResponse:
        text, status = await asyncio.to_thread(verify_page, keeper().store, token)
        return HTMLResponse(text, status_code=status, headers={"Cache-Control": "no-store"})

    @router.get("/email/unsubscribe", include_in_schema=False)
    @router.post("/email/unsubscribe", include_in_schema=False)
    async def unsubscribe(token: Token = None, scope: Scope = None) -> HTMLResponse:
        """One click (GET, the link) or RFC 8058's one-click POST (the List-Unsubscribe header)."""
        text, status = await asyncio.to_thread(unsubscribe_page, keeper().store, token, scope)
        return HTMLResponse(text, status_code=status, headers={"Cache-Control": "no-store"})

    return router
