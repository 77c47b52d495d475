"""The database side of the server: every statement it runs, as blocking methods (the service runs them on its
database threads), and the replay of a stored game with every way it can be damaged named.

Reads never go through the ORM's JSON decoding: a row whose JSON is damaged must be reported, not crash the query
that met it.  The lobby reads summary columns only (never the snapshot).
"""

from __future__ import annotations

import base64
import itertools
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Text, bindparam, cast, delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.dml import Update

from ..bots import bot_spec_ok
from ..core.errors import HansaError
from ..game import Game
from ..view import move_delta
from .answers import CHUNK
from .clocks import Clock
from .db import ACCOUNT_SEATS, GAMES, MOVES, UNDOS, utcnow
from .engines import engine_name

#: The PostgreSQL notification channel of game changes (payload: "game_id revision origin").
CHANNEL = "hansa_games"
#: Game statuses.  Only "running" games take moves; "damaged" ones are never served for play.
RUNNING, OVER, STOPPED, ABANDONED, DAMAGED = "running", "over", "stopped", "abandoned", "damaged"
#: Moves whose changes (``move_delta``) are kept for the log: as many as the view's log shows.
DELTA_TAIL = 60
#: Serial numbers of kept deltas (see :func:`kept_delta`).
_DELTA_SERIALS = itertools.count(1)


def kept_delta(delta: dict[str, Any]) -> tuple[int, str]:
    """A move's delta (``move_delta``) as games keep it for the log: its JSON text (the log goes out as text, and a
    string costs the garbage collector nothing, unlike the dicts and lists it was made of), with a number no other
    delta in this process has (what the view's cached log entries are checked against)."""
    return next(_DELTA_SERIALS), json.dumps(delta, separators=(",", ":"))
ENDED = (OVER, STOPPED, ABANDONED)


class Damaged(Exception):
    """A stored game that cannot be served: what is wrong, and the first bad move (1-based) if a move is."""

    def __init__(self, reason: str, move: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.move = move


class GameExists(Exception):
    """A game with that id is stored already."""


class Unsettled(Exception):
    """The game changed between the reads of its row and its moves on every try (a busy game: try again later)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} kept changing while it was read")
        self.game_id = game_id


#: A stored move: its number, its text and the kind of token that made it (None before that was recorded).
StoredMove = tuple[int, str, str | None]

#: How many times a game's row and moves are read again when a write came between them (see :meth:`Store.load`).
READ_TRIES = 20


class StaleVersion(Exception):
    """The stored game is not at the revision the writer expected: another copy of it (in this process or another
    one) wrote first."""

    def __init__(self, game_id: str, expected: int) -> None:
        super().__init__(f"stored revision is not {expected}; another writer changed the game")
        self.game_id = game_id


#: Player colours a game may use: name -> (colour, the symbol drawn on its pieces in colour-blind mode).  None of
#: them is near a privilege colour of the board (white, orange, pink, black) or the neutral grey.
PALETTE: dict[str, tuple[str, str]] = {
    "red": ("#d62828", "▲"),
    "blue": ("#1d4ed8", "●"),
    "green": ("#2a9d3f", "■"),
    "purple": ("#7b2cbf", "◆"),
    "teal": ("#0e8c8c", "★"),
    "yellow": ("#f2d21b", "✚"),
    "brown": ("#8b5a2b", "✖"),
}
#: Longest webhook address a seat may store.
MAX_WEBHOOK = 500
#: Colours given in seat order to the seats that choose none.
DEFAULT_COLOURS = ("red", "blue", "green", "purple", "teal")


@dataclass
class StoredSeat:
    name: str
    type: str  # "human" or "bot"
    bot: str | None
    token_hash: str | None
    colour: str = "red"  # a key of PALETTE
    #: Where the seat's "your turn" notices go (set by its player; only to hosts the operator allows).
    webhook: str | None = None
    #: The webhook failed too many notices in a row: none are sent until the seat's player sets it again.
    webhook_suspended: bool = False
    #: A human seat that a bot plays since a takeover vote (its moves are the bot's, for the seat's player).
    taken_over: bool = False
    #: The account that plays the seat (hansa.server.accounts), None for a guest's or a bot's seat.  Such a seat has
    #: no token of its own: it is played through its account's session.
    account: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": self.type, "bot": self.bot, "token_hash": self.token_hash,
                                "colour": self.colour}
        if self.webhook:
            data["webhook"] = self.webhook
        if self.webhook_suspended:
            data["webhook_suspended"] = True
        if self.taken_over:
            data["taken_over"] = True
        if self.account is not None:
            data["account"] = self.account
        return data


@dataclass
class StoredGame:
    """A game as replayed from its record (setup row + move rows)."""

    id: str
    game: Game
    seats: list[StoredSeat]
    hotseat_hash: str
    creator_hash: str | None
    seed_public: bool
    status: str
    status_note: str | None
    created_at: datetime
    updated_at: datetime
    #: in-game scores after every move (index 0: before the first move), collected while replaying
    scores: list[list[int]]
    snapshot_matches: bool
    #: the table's options (not rules): {"hints": bool}
    table: dict[str, Any]
    #: what each of the last DELTA_TAIL moves changed (hansa.view.move_delta; :func:`kept_delta`), by move number
    deltas: dict[int, tuple[int, str]]
    #: the stored clock (None in games stored before clocks: they get a clock of kind "none" when loaded)
    clock: Clock | None = None
    #: the row's revision when it was read
    revision: int = 0
    #: every move's text, the kind of token that made it (None when not recorded), and the position's snapshot
    #: after every CHUNK moves (see answers.py)
    texts: list[str] = field(default_factory=list)
    actors: list[str | None] = field(default_factory=list)
    checkpoints: dict[int, str] = field(default_factory=dict)


def _json_text(value: Any, what: str) -> Any:
    if value is None:
        raise Damaged(f"{what} is missing")
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError as exc:
        raise Damaged(f"{what} is not valid JSON ({exc})") from None


def seats_of_row(players: Any) -> list[StoredSeat]:
    """The seats of a stored ``players`` column (JSON text or value); raises :class:`Damaged`."""
    return _seats(_json_text(players, "players"))


def clock_of_row(value: Any) -> Clock | None:
    """The clock of a stored ``clock`` column (None before clocks: SQL NULL or JSON null); raises
    :class:`Damaged`."""
    data = _json_text(value, "clock") if value is not None else None
    if data is None:
        return None
    try:
        return Clock.from_json(data)
    except ValueError as exc:
        raise Damaged(str(exc)) from None


def _seats(players: Any) -> list[StoredSeat]:
    if not isinstance(players, list) or not 2 <= len(players) <= 5:
        raise Damaged("players is not a list of 2 to 5 seats")
    seats = []
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or p.get("type") not in ("human", "bot"):
            raise Damaged(f"seat {i} is not a {{name, type: human|bot}} object")
        bot = p.get("bot")
        if p["type"] == "bot" and not (isinstance(bot, str) and (bot_spec_ok(bot) or engine_name(bot))):
            raise Damaged(f"seat {i} names no known bot ({str(bot)[:40]!r})")
        token = p.get("token_hash")
        if token is not None and not isinstance(token, str):
            raise Damaged(f"seat {i} has a malformed token hash")
        colour = p.get("colour")
        if colour is not None and colour not in PALETTE:
            raise Damaged(f"seat {i} has no known colour ({str(colour)[:20]!r})")
        webhook = p.get("webhook")
        if webhook is not None and not (isinstance(webhook, str) and len(webhook) <= MAX_WEBHOOK):
            raise Damaged(f"seat {i} has a malformed webhook")
        suspended = p.get("webhook_suspended", False)
        if not isinstance(suspended, bool):
            raise Damaged(f"seat {i} has a malformed webhook state")
        taken_over = p.get("taken_over", False)
        if not isinstance(taken_over, bool):
            raise Damaged(f"seat {i} has a malformed takeover mark")
        account = p.get("account")
        if account is not None and (isinstance(account, bool) or not isinstance(account, int)):
            raise Damaged(f"seat {i} has a malformed account")
        seats.append(StoredSeat(p["name"], p["type"], bot if p["type"] == "bot" else None, token, colour or "", webhook,
                                suspended, taken_over, account))
    return assign_colours(seats)


def assign_colours(seats: list[StoredSeat]) -> list[StoredSeat]:
    """Give every seat without a colour the first default colour nobody has (games stored before colours could be
    chosen get red, blue, green, purple, teal in seat order)."""
    taken = {s.colour for s in seats if s.colour}
    free = [c for c in DEFAULT_COLOURS if c not in taken] + [c for c in PALETTE if c not in taken and c not in DEFAULT_COLOURS]
    for seat in seats:
        if not seat.colour:
            seat.colour = free.pop(0)
    return seats


def replay_stored(row: dict[str, Any], moves: list[StoredMove] | list[tuple[int, str]]) -> StoredGame:
    """Rebuild a game from its row and its ``(n, text)`` move rows; raises :class:`Damaged` naming the first problem."""
    players = _seats(_json_text(row["players"], "players"))
    options = _json_text(row["options"], "options")
    if not isinstance(options, dict):
        raise Damaged("options is not an object")
    seed = row["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise Damaged("seed is not an integer")
    try:
        game = Game([s.name for s in players], seed=seed, options=options, undo="own")
    except HansaError as exc:
        raise Damaged(f"the setup does not load: {exc}") from None
    scores = [list(game.state.score)]
    deltas: dict[int, tuple[int, str]] = {}
    tail = len(moves) - DELTA_TAIL
    texts: list[str] = []
    actors: list[str | None] = []
    checkpoints: dict[int, str] = {}
    for i, (n, text, *rest) in enumerate(moves):
        if n != i + 1:
            raise Damaged(f"move {i + 1} is missing (the next stored move is number {n})", i + 1)
        if not isinstance(text, str):
            raise Damaged(f"move {n} is not text", n)
        before = game.state.copy() if i >= tail else None
        try:
            move = game.play(text)
        except HansaError as exc:
            raise Damaged(f"move {n} ({text[:60]!r}) does not replay: {exc}", n) from None
        texts.append(move.text())
        actor = rest[0] if rest else None
        actors.append(actor if isinstance(actor, str) else None)
        if n % CHUNK == 0:
            checkpoints[n] = json.dumps(game.state.to_snapshot(), separators=(",", ":"))
        scores.append(list(game.state.score))
        if before is not None:
            deltas[n] = kept_delta(move_delta(before, game.state))
    if row["version"] != len(moves):
        raise Damaged(f"the game row says {row['version']} moves but {len(moves)} are stored", len(moves) + 1)
    snapshot = row.get("snapshot")
    try:
        matches = snapshot is not None and _json_text(snapshot, "snapshot") == game.state.to_snapshot()
    except Damaged:
        matches = False
    clock = clock_of_row(row.get("clock"))
    if clock is not None and len(clock.left) != len(players):
        raise Damaged("the clock does not have one entry per seat")
    return StoredGame(
        id=row["id"], game=game, seats=players, hotseat_hash=row["hotseat_hash"], creator_hash=row["creator_hash"],
        seed_public=bool(row["seed_public"]), status=row["status"], status_note=row["status_note"],
        created_at=row["created_at"], updated_at=row["updated_at"], scores=scores, snapshot_matches=matches,
        table=table_options(row.get("table_options")), deltas=deltas, clock=clock, revision=int(row.get("revision") or 0),
        texts=texts, actors=actors, checkpoints=checkpoints,
    )


def table_options(value: Any) -> dict[str, Any]:
    """The table options of a stored game (games stored before they existed allow hints; ``hotseat`` is absent in
    games stored before it was a choice: their hot-seat token, if any, plays every human seat as it did then)."""
    data = _json_text(value, "table options") if value is not None else {}
    if (not isinstance(data, dict) or not isinstance(data.get("hints", True), bool)
            or not isinstance(data.get("hotseat", False), bool)):
        raise Damaged("table options are not {hints: true|false, hotseat: true|false}")
    out = {"hints": data.get("hints", True)}
    if data.get("rated") is True:  # a rated game (from a table of the club)
        out["rated"] = True
    if data.get("spectator_chat") is True:  # spectators may write in the chat (hansa.server.chat)
        out["spectator_chat"] = True
    if data.get("bot_chat") is True:  # bots say "Good game" at the end (hansa.server.chat)
        out["bot_chat"] = True
    if "hotseat" in data:
        out["hotseat"] = data["hotseat"]
    if "tutorial" in data:  # a "Learn to play" game: the chapter (hansa.server.tutorial)
        if not isinstance(data["tutorial"], str) or len(data["tutorial"]) > 40:
            raise Damaged("table option tutorial is not a chapter's name")
        out["tutorial"] = data["tutorial"]
    return out


_ROW_COLUMNS = [
    GAMES.c.id, GAMES.c.created_at, GAMES.c.updated_at, GAMES.c.seed, GAMES.c.hotseat_hash, GAMES.c.creator_hash,
    GAMES.c.seed_public, GAMES.c.status, GAMES.c.status_note, GAMES.c.version, GAMES.c.revision, GAMES.c.turn,
    cast(GAMES.c.options, Text).label("options"), cast(GAMES.c.players, Text).label("players"),
    cast(GAMES.c.table_options, Text).label("table_options"), cast(GAMES.c.clock, Text).label("clock"),
]
_SUMMARY_COLUMNS = [
    GAMES.c.id, GAMES.c.created_at, GAMES.c.updated_at, GAMES.c.status, GAMES.c.status_note, GAMES.c.version,
    GAMES.c.turn, GAMES.c.seed, GAMES.c.seed_public, cast(GAMES.c.players, Text).label("players"),
    cast(GAMES.c.options, Text).label("options"),
]


def encode_cursor(created: datetime, game_id: str) -> str:
    return base64.urlsafe_b64encode(f"{created.isoformat()}|{game_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """Raises ValueError for anything that is not a cursor this server made."""
    if len(cursor) > 100:
        raise ValueError("cursor too long")
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    stamp, _, game_id = raw.partition("|")
    if not game_id or len(game_id) > 16:
        raise ValueError("not a cursor")
    return datetime.fromisoformat(stamp), game_id


#: The statement that stores a move (built once: building a statement costs more than running it).
_INSERT_MOVE = insert(MOVES)
#: The change notice of a game (PostgreSQL).
_NOTIFY = select(func.pg_notify(CHANNEL, bindparam("payload", type_=Text)))
#: Revision-checked updates of a game row, by the columns they set (a few sets: one per kind of write).
_UPDATES: dict[tuple[str, ...], Update] = {}


def _update_statement(columns: tuple[str, ...]) -> Update:
    """``UPDATE games SET <columns> WHERE id = :_id AND revision = :_expected``, built once per set of columns."""
    stmt = _UPDATES.get(columns)
    if stmt is None:
        stmt = (
            update(GAMES)
            .where(GAMES.c.id == bindparam("_id"), GAMES.c.revision == bindparam("_expected"))
            .values({c: bindparam(c, type_=GAMES.c[c].type) for c in columns})
        )
        if len(_UPDATES) < 64:
            _UPDATES[columns] = stmt
    return stmt


class Store:
    """Blocking database access for one server process."""

    def __init__(self, engine: Engine, origin: str | None = None) -> None:
        self.engine = engine
        #: This process's name in change notifications (it ignores its own).
        self.origin = origin or secrets.token_hex(6)
        self.notifies = engine.dialect.name == "postgresql"

    # ------------------------------------------------------------------ games

    def insert_game(self, values: dict[str, Any], accounts: list[tuple[int, int]] | None = None) -> None:
        """Store a new game (and, in the same transaction, the ``(seat, account)`` seats accounts play).  Raises
        :class:`GameExists` when a game has the id."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(GAMES), [{**values, "revision": 0}])
                if accounts:
                    conn.execute(insert(ACCOUNT_SEATS), [
                        {"game_id": values["id"], "seat": seat, "account_id": account, "created_at": values["created_at"]}
                        for seat, account in accounts])
                self._notify(conn, values["id"], 0)
        except IntegrityError as exc:
            with self.engine.connect() as conn:
                if conn.execute(select(GAMES.c.id).where(GAMES.c.id == values["id"])).first() is not None:
                    raise GameExists(values["id"]) from exc
            raise

    def load(self, game_id: str) -> StoredGame | None:
        """The game replayed from its record, None if there is no such game; raises :class:`Damaged` (and
        :class:`Unsettled` if the game kept changing while it was read)."""
        read = self._consistent(game_id, 1, cast(GAMES.c.snapshot, Text).label("snapshot"))
        return None if read is None else replay_stored(*read)

    def load_tail(self, game_id: str, since: int) -> tuple[dict[str, Any], list[StoredMove]] | None:
        """The game row and its moves from number ``since`` on (for a process bringing its copy up to date);
        None if there is no such game.  Raises :class:`Unsettled` if the game kept changing while it was read."""
        return self._consistent(game_id, since)

    def _consistent(self, game_id: str, since: int, *extra: Any) -> tuple[dict[str, Any], list[StoredMove]] | None:
        """The game row and its moves from ``since`` on, as one revision of the game.

        The row and the moves are two reads, and a write (a move and its row, in one transaction) can commit between
        them: PostgreSQL's default isolation gives each statement its own snapshot, and SQLite reads outside a
        transaction.  Such a pair would look like a damaged record.  Every write of a game raises its row's revision,
        so the revision is read again after the moves: unchanged, the pair is one revision; changed, it is read
        again."""
        for _ in range(READ_TRIES):
            with self.engine.connect() as conn:
                row = conn.execute(select(*_ROW_COLUMNS, *extra).where(GAMES.c.id == game_id)).mappings().first()
                if row is None:
                    return None
                moves = [(int(n), text, actor) for n, text, actor in conn.execute(
                    select(MOVES.c.n, MOVES.c.text, MOVES.c.actor).where(MOVES.c.game_id == game_id, MOVES.c.n >= since)
                    .order_by(MOVES.c.n)
                )]
                revision = conn.execute(select(GAMES.c.revision).where(GAMES.c.id == game_id)).scalar()
            if revision == row["revision"]:
                return dict(row), moves
        raise Unsettled(game_id)

    def load_row(self, game_id: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(*_ROW_COLUMNS).where(GAMES.c.id == game_id)).mappings().first()
            return dict(row) if row is not None else None

    def store_move(self, game_id: str, n: int, seat: int, turn: int, text: str, row: dict[str, Any],
                   expected: int, actor: str | None = None) -> int:
        """Move ``n`` and the game row (expected at revision ``expected``) in one transaction; the new revision.
        ``actor`` is the kind of token that made the move (``seat``, ``hotseat``, ``bot``, ``clock``).
        The row is updated first: a concurrent writer of the same game waits for its lock and then finds the
        revision moved on (:class:`StaleVersion`), before it could try to store a second move ``n``."""
        now = utcnow()
        try:
            with self.engine.begin() as conn:
                revision = self._update(conn, game_id, expected, {**row, "active_at": now})
                conn.execute(
                    _INSERT_MOVE,
                    {"game_id": game_id, "n": n, "seat": seat, "turn": turn, "text": text, "created_at": now,
                     "actor": actor},
                )
                return revision
        except IntegrityError as exc:  # move n is stored already: another writer was first
            raise StaleVersion(game_id, expected) from exc

    def store_undo(self, game_id: str, row: dict[str, Any], expected: int, seat: int = -1, actor: str = "seat",
                   move: str = "") -> int:
        """Delete the moves after ``row["version"]`` and update the game row (expected at revision ``expected``);
        the undo is kept in the audit table (the move taken back, the seat and the kind of token that asked)."""
        now = utcnow()
        with self.engine.begin() as conn:
            conn.execute(delete(MOVES).where(MOVES.c.game_id == game_id, MOVES.c.n > row["version"]))
            revision = self._update(conn, game_id, expected, {**row, "active_at": now})
            conn.execute(insert(UNDOS), [{"game_id": game_id, "n": int(row["version"]) + 1, "seat": seat,
                                          "actor": actor, "move": move, "created_at": now}])
            return revision

    def undos(self, game_id: str) -> list[dict[str, Any]]:
        """The game's undos, oldest first: ``{n, seat, actor, move, at}``."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(UNDOS.c.n, UNDOS.c.seat, UNDOS.c.actor, UNDOS.c.move, UNDOS.c.created_at)
                .where(UNDOS.c.game_id == game_id).order_by(UNDOS.c.id)
            ).mappings()
            return [{"n": r["n"], "seat": r["seat"], "actor": r["actor"], "move": r["move"],
                     "at": r["created_at"].isoformat() + "Z"} for r in rows]

    def actors(self, game_id: str) -> list[str | None]:
        """The kind of token that made each stored move, in order."""
        with self.engine.connect() as conn:
            return [a for (a,) in conn.execute(
                select(MOVES.c.actor).where(MOVES.c.game_id == game_id).order_by(MOVES.c.n))]

    def _update(self, conn: Connection, game_id: str, expected: int, row: dict[str, Any]) -> int:
        values = {"updated_at": utcnow(), "revision": expected + 1, **row}
        result = conn.execute(_update_statement(tuple(values)), {"_id": game_id, "_expected": expected, **values})
        if result.rowcount != 1:
            raise StaleVersion(game_id, expected)
        self._notify(conn, game_id, expected + 1)
        return expected + 1

    def _notify(self, conn: Connection, game_id: str, revision: int) -> None:
        """Tell every process (PostgreSQL LISTEN/NOTIFY, delivered at commit) that the game changed."""
        if self.notifies:
            conn.execute(_NOTIFY, {"payload": f"{game_id} {revision} {self.origin}"})

    def store_seats(self, game_id: str, values: dict[str, Any], expected: int) -> int:
        """Change the game row's clock/deadline/players/bot_turn without a move (expected at revision
        ``expected``); the new revision."""
        with self.engine.begin() as conn:
            return self._update(conn, game_id, expected, values)

    def store_owner(self, game_id: str, values: dict[str, Any], expected: int, seat: int, account: int) -> int:
        """Change the game row's players (a seat now played by ``account``) and record the account's seat, in one
        transaction; the new revision."""
        with self.engine.begin() as conn:
            revision = self._update(conn, game_id, expected, values)
            conn.execute(delete(ACCOUNT_SEATS).where(ACCOUNT_SEATS.c.game_id == game_id, ACCOUNT_SEATS.c.seat == seat))
            conn.execute(insert(ACCOUNT_SEATS).values(game_id=game_id, seat=seat, account_id=account,
                                                      created_at=utcnow()))
            return revision

    def forget_account_seats(self, account: int) -> None:
        """The account's seats are no longer its (the account is being deleted)."""
        with self.engine.begin() as conn:
            conn.execute(delete(ACCOUNT_SEATS).where(ACCOUNT_SEATS.c.account_id == account))

    def account_game_ids(self, account: int, limit: int) -> list[str]:
        """The games an account plays or played, newest first."""
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(ACCOUNT_SEATS.c.game_id).join(GAMES, GAMES.c.id == ACCOUNT_SEATS.c.game_id)
                .where(ACCOUNT_SEATS.c.account_id == account)
                .group_by(ACCOUNT_SEATS.c.game_id, GAMES.c.created_at)
                .order_by(GAMES.c.created_at.desc()).limit(limit))]

    def set_status(self, game_id: str, status: str, note: str | None, only_if: str | None = None) -> int | None:
        """Set a game's status (and note); with ``only_if`` only when its status is that one.  The new revision,
        None if nothing changed."""
        stmt = update(GAMES).where(GAMES.c.id == game_id)
        if only_if is not None:
            stmt = stmt.where(GAMES.c.status == only_if)
        with self.engine.begin() as conn:
            result = conn.execute(
                stmt.values(status=status, status_note=note, bot_turn=False, updated_at=utcnow(),
                            revision=GAMES.c.revision + 1).returning(GAMES.c.revision)
            ).first()
            if result is None:
                return None
            self._notify(conn, game_id, int(result[0]))
            return int(result[0])

    def delete_game(self, game_id: str) -> None:
        """Delete the game and its moves (the change notice carries revision -1)."""
        with self.engine.begin() as conn:
            conn.execute(delete(MOVES).where(MOVES.c.game_id == game_id))
            conn.execute(delete(UNDOS).where(UNDOS.c.game_id == game_id))
            conn.execute(delete(GAMES).where(GAMES.c.id == game_id))
            self._notify(conn, game_id, -1)

    # ------------------------------------------------------------------ queries

    def count_running(self, creator_client: str | None = None) -> tuple[int, int]:
        """Running games on the server, and those of them created by ``creator_client`` (see ``client_hash``)."""
        with self.engine.connect() as conn:
            total = int(conn.execute(select(func.count()).select_from(GAMES).where(GAMES.c.status == RUNNING)).scalar_one())
            mine = 0
            if creator_client is not None:
                mine = int(conn.execute(
                    select(func.count()).select_from(GAMES)
                    .where(GAMES.c.status == RUNNING, GAMES.c.creator_client == creator_client)
                ).scalar_one())
            return total, mine

    def ids_waiting_for_bots(self) -> list[str]:
        """Running games in which a bot must decide: restored at start so that their bots carry on."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(GAMES.c.id).where(GAMES.c.status == RUNNING, GAMES.c.bot_turn.is_(True)))
            return [r[0] for r in rows]

    def running_ids(self) -> list[str]:
        """The running games, newest first."""
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(GAMES.c.id).where(GAMES.c.status == RUNNING).order_by(GAMES.c.created_at.desc()))]

    def idle_running(self, idle: float) -> list[str]:
        """Running games without a move or undo for ``idle`` seconds (votes and seat settings do not count)."""
        cutoff = utcnow() - timedelta(seconds=idle)
        with self.engine.connect() as conn:
            rows = conn.execute(select(GAMES.c.id).where(
                GAMES.c.status == RUNNING, func.coalesce(GAMES.c.active_at, GAMES.c.updated_at) < cutoff,
            ))
            return [r[0] for r in rows]

    def claim_bot_turn(self, owner: str, now: datetime, until: datetime, settled: datetime) -> str | None:
        """Take the next bot turn for the bot worker ``owner`` until ``until``: a running game in which a bot must
        decide, whose lease is free or ran out, last changed at or before ``settled`` (the bots' pause); games with
        a human first, then the longest waiting.  ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so that workers
        never wait for each other or take the same turn.  The game id, None when no turn waits."""
        pick = (
            select(GAMES.c.id)
            .where(GAMES.c.status == RUNNING, GAMES.c.bot_turn.is_(True), GAMES.c.updated_at <= settled,
                   (GAMES.c.bot_lease_until.is_(None)) | (GAMES.c.bot_lease_until < now))
            .order_by(GAMES.c.has_human.desc(), GAMES.c.updated_at)
            .limit(1)
            .with_for_update(skip_locked=True)
        )
        with self.engine.begin() as conn:
            game_id = conn.execute(pick).scalar_one_or_none()
            if game_id is None:
                return None
            conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(bot_lease_until=until, bot_lease_owner=owner))
            return str(game_id)

    def release_bot_turn(self, game_id: str, owner: str, until: datetime | None = None) -> None:
        """Give a bot turn back (``until``: not before then, after a failure)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(GAMES).where(GAMES.c.id == game_id, GAMES.c.bot_lease_owner == owner)
                .values(bot_lease_until=until, bot_lease_owner=None)
            )

    def next_deadline(self) -> datetime | None:
        """The earliest deadline of a running game's clock."""
        with self.engine.connect() as conn:
            return conn.execute(
                select(func.min(GAMES.c.deadline)).where(GAMES.c.status == RUNNING, GAMES.c.deadline.is_not(None))
            ).scalar_one_or_none()

    def expired_ids(self, now: datetime, limit: int = 100) -> list[str]:
        """Running games whose deciding seat ran out of time at ``now``, earliest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(GAMES.c.id).where(GAMES.c.status == RUNNING, GAMES.c.deadline <= now)
                .order_by(GAMES.c.deadline).limit(limit)
            )
            return [r[0] for r in rows]

    def summaries(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Summary columns, clock and players of the games ``ids`` (for "my games"; never the snapshot)."""
        if not ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*_SUMMARY_COLUMNS, cast(GAMES.c.clock, Text).label("clock"), GAMES.c.hotseat_hash)
                .where(GAMES.c.id.in_(ids))
            ).mappings()
            return {r["id"]: dict(r) for r in rows}

    def list_games(self, limit: int, before: tuple[datetime, str] | None, status: str | None) -> dict[str, Any]:
        """One page of the lobby, newest first: summary columns only, and the cursor of the next page."""
        stmt = select(*_SUMMARY_COLUMNS).order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc()).limit(limit + 1)
        if status is not None:
            stmt = stmt.where(GAMES.c.status == status)
        if before is not None:
            created, game_id = before
            stmt = stmt.where(
                (GAMES.c.created_at < created) | ((GAMES.c.created_at == created) & (GAMES.c.id < game_id))
            )
        with self.engine.connect() as conn:
            rows = list(conn.execute(stmt).mappings())
        more = len(rows) > limit
        rows = rows[:limit]
        games = [summary(r) for r in rows]
        cursor = encode_cursor(rows[-1]["created_at"], rows[-1]["id"]) if more and rows else None
        return {"games": games, "next": cursor}


def summary(row: Any) -> dict[str, Any]:
    """A lobby entry.  A row whose players cannot be read is listed as damaged, never dropped."""
    status, note = row["status"], row["status_note"]
    try:
        players = [{"name": s.name, "type": s.type, "bot": s.bot} for s in _seats(_json_text(row["players"], "players"))]
    except Damaged as exc:
        players = []
        if status != DAMAGED:
            status, note = DAMAGED, exc.reason
    return {
        "id": row["id"],
        "created": row["created_at"].isoformat() + "Z",
        "updated": row["updated_at"].isoformat() + "Z",
        "players": players,
        "status": status,
        "note": note,
        "turn": row["turn"],
        "moves": row["version"],
        "seed": row["seed"] if row["seed_public"] else None,
        "map": map_of_row(row),
    }


def map_of_row(row: Any) -> str:
    """The map a stored game is played on (``base``, ``east``, ``britannia``) from its options; ``base`` when they
    cannot be read (the game itself is then reported damaged when it is loaded)."""
    try:
        options = _json_text(row["options"], "options")
    except (Damaged, KeyError):
        return "base"
    value = options.get("map", options.get("board", "base")) if isinstance(options, dict) else "base"
    return value if value in ("base", "east", "britannia") else "base"


def check_database(engine: Engine) -> dict[str, Any]:
    """Replay every stored game (``hansa db check``): the damaged ones with their first problem, and the games
    whose stored snapshot differs from their replayed record (harmless: the record wins)."""
    store = Store(engine)
    damaged: list[dict[str, Any]] = []
    snapshot_differs: list[str] = []
    with engine.connect() as conn:
        ids = [r[0] for r in conn.execute(select(GAMES.c.id).order_by(GAMES.c.created_at))]
    for game_id in ids:
        try:
            stored = store.load(game_id)
        except Damaged as exc:
            damaged.append({"id": game_id, "move": exc.move, "reason": exc.reason})
            continue
        except Exception as exc:  # noqa: BLE001 - a row the database itself cannot give back
            damaged.append({"id": game_id, "move": None, "reason": f"unreadable row: {type(exc).__name__}: {exc}"})
            continue
        if stored is not None and not stored.snapshot_matches:
            snapshot_differs.append(game_id)
    return {"games": len(ids), "damaged": damaged, "snapshot_differs": snapshot_differs}
