"""Persistence: SQLAlchemy 2 models, engine setup and Alembic migrations.

A game is stored as its record (players, options, seed, and one row per move) plus a snapshot of the position.
Every accepted move is written in one transaction (move row + game row) before it is acknowledged.  SQLite
(the default) runs in WAL mode; PostgreSQL is used through ``postgresql+psycopg://`` URLs on the same code path.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    create_engine,
    event,
    false,
    func,
    select,
    true,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

DEFAULT_URL = "sqlite:///hansa.sqlite3"


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    """A game: setup, players (with hashed seat tokens), current version and a snapshot of the position.

    ``status`` is running, over, stopped (by its creator or the move budget), abandoned (idle too long) or damaged
    (its record does not replay); ``status_note`` says why.  ``bot_turn`` is true while a bot must decide (such
    games are restored at start; the others load on demand).  ``seed_public``: the creator chose the seed, so every
    seat is shown it (otherwise it is published only when the game has ended)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    __table_args__ = (
        Index("ix_games_status_bot_turn", "status", "bot_turn"),
        Index("ix_games_status_deadline", "status", "deadline"),
        Index("ix_games_status_creator", "status", "creator_client"),
        Index("ix_games_status_active", "status", "active_at"),
        Index("ix_games_rated_status", "rated", "status"),
    )

    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    seed: Mapped[int] = mapped_column(BigInteger)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    players: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    hotseat_hash: Mapped[str] = mapped_column(String(64))
    creator_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    seed_public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    status: Mapped[str] = mapped_column(String(16), default="running", index=True)
    status_note: Mapped[str | None] = mapped_column(Text, nullable=True)
    bot_turn: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The table's options (not rules), e.g. {"hints": true}; null in games stored before they existed.
    table_options: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: The game's clock and seat states (hansa.server.clocks.Clock.to_json); null in games stored before clocks.
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    #: When the deciding seat's time runs out (UTC); null without a running clock.
    deadline: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    #: Increases with every write of the game (moves, undos, status, clock, seats): the optimistic check of every
    #: write, and what change notifications carry.
    revision: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    #: A human plays: bot turns of such games come first.
    has_human: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The bot worker holding the game's bot turn, and until when (a worker that dies loses it then).
    bot_lease_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    bot_lease_owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    turn: Mapped[int] = mapped_column(Integer, default=1)
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: Who created the game: a hash of the client's address (the per-client cap on running games counts it).
    creator_client: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: The last move or undo (creation at first): a game idle past ``--abandon-after`` by this is abandoned.  Votes,
    #: webhooks and other seat changes do not count as activity.
    active_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: Created as *rated* (from an open table of accounts and bots): its finish updates the players' ratings once.
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class MoveRow(Base):
    """One accepted move of a game, in order (``n`` is 1-based)."""

    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    turn: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: Which token made the move: ``seat`` (the seat's own), ``hotseat``, ``bot`` (a bot seat or the timeout bot) or
    #: ``clock`` (the end-turn timeout policy); null in moves stored before it was recorded.
    actor: Mapped[str | None] = mapped_column(String(16), nullable=True)


class UndoRow(Base):
    """An undo: which move it took back and which token asked for it (an audit trail; the record holds no undos)."""

    __tablename__ = "undos"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(16), ForeignKey("games.id", ondelete="CASCADE"), index=True)
    n: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    actor: Mapped[str] = mapped_column(String(16))
    move: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


# ---------------------------------------------------------------------------------------------------- the club
# Accounts, their sessions and seats, open tables, ratings (issue "The club").  The game tables above know nothing
# of them except a seat's owner account (``players[i].account``) and ``games.rated``.


class AccountRow(Base):
    """A player's account.  ``name_key`` (hansa.server.names.name_key) makes names that differ only in case or form
    the same name.  A deleted account keeps its row (its games and ratings point to it) with the name replaced by a
    neutral one, and no password, address or sessions."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(80))
    name_key: Mapped[str] = mapped_column(String(255), unique=True)
    #: argon2id hash (argon2-cffi, PHC string); null once the account is deleted
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    email_verified: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: Disabled by an operator: cannot sign in or act.
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: Muted in every game's chat by an operator (hansa.server.moderation).
    chat_muted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The language of the e-mails sent to ``email`` (the page's language when the address was given).
    email_lang: Mapped[str | None] = mapped_column(String(8), nullable=True)


class SessionRow(Base):
    """A signed-in browser or client.  The cookie holds a random token; only its SHA-256 is stored, so a copy of the
    database signs nobody in.  Deleting the row revokes the session (sign-out, password change, account deletion)."""

    __tablename__ = "sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    #: The session's CSRF token: every state-changing request made with the cookie must send it back in a header.
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime, index=True)


class SignInFailureRow(Base):
    """Failed sign-ins counted per account name (``name:<key>``, also for names nobody has) and per client address
    (``addr:<hash>``): past a limit the key is blocked until ``blocked_until``."""

    __tablename__ = "sign_in_failures"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    window_start: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    blocked_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class AccountSeatRow(Base):
    """A seat of a game played by an account (the index behind "my games" and profiles; the game's own players
    column says the same in ``account``, written in the same transaction)."""

    __tablename__ = "account_seats"

    game_id: Mapped[str] = mapped_column(String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class TableRow(Base):
    """A table: a game being gathered.  ``status``: open (taking players), starting (its game is being created),
    started (``game_id`` is the game, same id), closed (not filled in time, or closed by its creator).  A private
    table is reached by its link only; a public one is listed in the lobby.  ``rematch_of``: the game it rematches
    (at most one rematch per game)."""

    __tablename__ = "tables"
    __table_args__ = (Index("ix_tables_status_private", "status", "private"),)

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    revision: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    status: Mapped[str] = mapped_column(String(16), default="open")
    status_note: Mapped[str | None] = mapped_column(Text, nullable=True)
    private: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    allow_guests: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: number of seats (2-5)
    size: Mapped[int] = mapped_column(Integer)
    #: the game's rules options, clock settings and table options as POST /api/games takes them
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    table_options: Mapped[dict[str, Any]] = mapped_column(JSON)
    creator_account: Mapped[int | None] = mapped_column(Integer, ForeignKey("accounts.id", ondelete="SET NULL"),
                                                        nullable=True)
    #: SHA-256 of the creator's table token (a guest creator's only credential; accounts get one too)
    creator_hash: Mapped[str] = mapped_column(String(64))
    #: when an open table that is not full closes
    expires_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    game_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    rematch_of: Mapped[str | None] = mapped_column(String(16), nullable=True, unique=True)


class TableSeatRow(Base):
    """A taken (or, for a rematch, reserved) seat of a table.  The primary key makes a seat taken once, whatever
    process took it; (table, account) is unique so an account sits once at a table."""

    __tablename__ = "table_seats"
    __table_args__ = (Index("ux_table_seats_account", "table_id", "account_id", unique=True),)

    table_id: Mapped[str] = mapped_column(String(16), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: account, guest or bot
    kind: Mapped[str] = mapped_column(String(8))
    account_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("accounts.id", ondelete="CASCADE"),
                                                   nullable=True)
    name: Mapped[str] = mapped_column(String(80))
    bot: Mapped[str | None] = mapped_column(String(40), nullable=True)
    colour: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: SHA-256 of a guest's table token (what lets the guest leave, accept a rematch, and receive the seat's token)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: a rematch seat kept for its player until they accept (bots accept at once)
    accepted: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    joined_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class RatingRow(Base):
    """A rated player's current rating: an account (``account:<id>``) or a bot level (``bot:<spec>``).  OpenSkill
    Plackett-Luce: ``mu`` and ``sigma``."""

    __tablename__ = "ratings"

    subject: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class RatedGameRow(Base):
    """A rated game whose finish has been applied to the ratings: inserted in the transaction that applies it, so a
    game is rated exactly once whichever process (or restart) gets to it."""

    __tablename__ = "rated_games"

    game_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    rated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)


class RatingEventRow(Base):
    """One player's rating change by one game (the profile's rating history)."""

    __tablename__ = "rating_events"
    __table_args__ = (Index("ux_rating_events_game_subject", "game_id", "subject", unique=True),
                      Index("ix_rating_events_subject_at", "subject", "rated_at"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(16))
    subject: Mapped[str] = mapped_column(String(64))
    seat: Mapped[int] = mapped_column(Integer)
    #: 1 = first; tied players share a place
    place: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    rated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


# ---------------------------------------------------------------------------------------------------- table talk


class ChatMessageRow(Base):
    """A message of a game's chat (kept with the game, not in its record).  ``n`` numbers a game's messages 1, 2, ...
    without gaps, in commit order (unique per game: a writer that lost the race takes the next number).  A preset
    phrase is stored as its key (each reader sees it in their language); ``text`` is plain text, never markup."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ux_chat_messages_game_n", "game_id", "n", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(16), ForeignKey("games.id", ondelete="CASCADE"))
    n: Mapped[int] = mapped_column(Integer)
    #: the writer's seat (None: a spectator)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    account_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("accounts.id", ondelete="SET NULL"),
                                                   nullable=True)
    author: Mapped[str] = mapped_column(String(80))
    preset: Mapped[str | None] = mapped_column(String(32), nullable=True)
    text: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: a hash of the writer's address (the per-address limit; what an operator sees)
    client: Mapped[str | None] = mapped_column(String(64), nullable=True)
    hidden: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    hidden_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    hidden_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class ChatReportRow(Base):
    """A chat message reported by a player: the message is copied, so that the operator sees it as it was."""

    __tablename__ = "chat_reports"
    __table_args__ = (Index("ux_chat_reports_message_reporter", "message_id", "reporter", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[int] = mapped_column(Integer, index=True)
    game_id: Mapped[str] = mapped_column(String(16))
    author: Mapped[str] = mapped_column(String(80))
    author_account: Mapped[int | None] = mapped_column(Integer, nullable=True)
    text: Mapped[str] = mapped_column(Text)
    #: who reported: ``account:<id>`` or ``seat:<game>:<n>``
    reporter: Mapped[str] = mapped_column(String(80))
    reason: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    resolved_by: Mapped[str | None] = mapped_column(String(80), nullable=True)


class ModerationRow(Base):
    """Every act of moderation: who (``cli`` or ``admin:<name>``), when, what, on what."""

    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(200))
    note: Mapped[str | None] = mapped_column(Text, nullable=True)


# ---------------------------------------------------------------------------------------------------- e-mail
# Address verification and turn notices (hansa.server.mail).


class MailRow(Base):
    """One e-mail to send (the outbox): made once (``dedupe`` is unique), claimed by one process, sent, kept
    :data:`hansa.server.mail.KEEP_DAYS` days.  ``status``: pending, sent, failed (given up after its tries) or
    dropped (no longer stands when its turn to be sent came: the player moved, removed the address, unsubscribed).
    The message is written when it is sent, with a fresh token whose SHA-256 is ``token_hash``: the verification
    token of a ``verify`` mail, the unsubscribe token of a ``notice`` or ``reminder``."""

    __tablename__ = "mail_outbox"
    __table_args__ = (
        Index("ix_mail_outbox_status_next", "status", "next_try"),
        Index("ix_mail_outbox_account_game", "account_id", "game_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: ``verify:<account>:<random>``, ``notice:<account>:<game>:<seat>:<period>``, ``reminder:...`` (period: when
    #: the seat's decision began, in ms since the epoch)
    dedupe: Mapped[str] = mapped_column(String(160), unique=True)
    #: verify, notice or reminder
    kind: Mapped[str] = mapped_column(String(16))
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id", ondelete="CASCADE"))
    game_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: the deciding seat's period (clock ``since``, ms since the epoch) a notice or reminder is about
    period: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    recipient: Mapped[str] = mapped_column(String(254))
    lang: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_try: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(300), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    #: a verification token's end (unsubscribe tokens live as long as their row)
    token_expires: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class MailOptOutRow(Base):
    """An account's "no more e-mail" for one game (``game_id``) or for all games (``*``)."""

    __tablename__ = "mail_optouts"

    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


def make_engine(url: str, busy_timeout: float = 5.0) -> Engine:
    """Create the engine; SQLite gets WAL, a busy timeout (seconds a write waits for another writer's lock before it
    fails) and foreign keys."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": busy_timeout})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


#: The PostgreSQL advisory lock held while migrating.
MIGRATION_LOCK = 7_157_341


def migrate(engine: Engine) -> None:
    """Bring the database schema up to date with the Alembic migrations shipped in the package."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            # several processes may start at once (hansa serve --workers N, bot workers): one migrates, the others
            # wait for it and then find the schema up to date
            connection.execute(select(func.pg_advisory_xact_lock(MIGRATION_LOCK)))
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def make_sessionmaker(engine: Engine) -> sessionmaker:  # type: ignore[type-arg]
    return sessionmaker(engine, expire_on_commit=False)


#: The two tables as Core objects, for the per-move statements that skip the ORM unit of work.
GAMES = cast(Table, GameRow.__table__)
MOVES = cast(Table, MoveRow.__table__)
UNDOS = cast(Table, UndoRow.__table__)
ACCOUNTS = cast(Table, AccountRow.__table__)
SESSIONS = cast(Table, SessionRow.__table__)
SIGN_IN_FAILURES = cast(Table, SignInFailureRow.__table__)
ACCOUNT_SEATS = cast(Table, AccountSeatRow.__table__)
TABLES = cast(Table, TableRow.__table__)
TABLE_SEATS = cast(Table, TableSeatRow.__table__)
RATINGS = cast(Table, RatingRow.__table__)
RATED_GAMES = cast(Table, RatedGameRow.__table__)
RATING_EVENTS = cast(Table, RatingEventRow.__table__)
CHAT = cast(Table, ChatMessageRow.__table__)
CHAT_REPORTS = cast(Table, ChatReportRow.__table__)
MODERATION = cast(Table, ModerationRow.__table__)
MAIL = cast(Table, MailRow.__table__)
MAIL_OPTOUTS = cast(Table, MailOptOutRow.__table__)
