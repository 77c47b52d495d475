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
