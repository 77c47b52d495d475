"""Live games on the server: creation, moves, undo, bots, persistence and change notification.

Every game in memory is a :class:`hansa.game.Game` guarded by an ``asyncio.Lock``.  A move is validated by the
engine, written to the database in one transaction (move row + game row with the new version and snapshot) and
only then acknowledged and broadcast.  If writing fails the move is taken back in memory.  Bot seats are played
by a background task per game; bot decisions run in a worker thread (cheap bots) or a worker process (MCTS) so
the event loop is never blocked.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from ..bots import make_bot
from ..core.errors import HansaError
from ..core.moves import Move
from ..core.state import GameState
from ..game import Game
from ..view import public_state
from .db import GAMES, MOVES, GameRow, MoveRow, utcnow

T = TypeVar("T")

log = logging.getLogger("hansa.server")

COLOURS = ("#d62828", "#1d4ed8", "#e9a400", "#2a9d3f", "#7b2cbf")
NEUTRAL_COLOUR = "#8d8d8d"
SERVER_BOTS = ("random", "purpose", "heuristic", "mcts:easy", "mcts:medium", "mcts:hard")
LOG_TAIL = 60


class ServiceError(Exception):
    """An error for the client: HTTP ``status``, message, and the rule it names (if any)."""

    def __init__(self, status: int, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.rule = rule


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Seat:
    name: str
    type: str  # "human" or "bot"
    bot: str | None = None
    token_hash: str | None = None

    def to_row(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "bot": self.bot, "token_hash": self.token_hash}


@dataclass
class LiveGame:
    """A game held in memory."""

    id: str
    game: Game
    seats: list[Seat]
    hotseat_hash: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[Any] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    #: Increases on every change of the game (moves and undos).
    revision: int = 0
    #: Serialized views of the current revision, by the seats of the viewer.
    view_cache: dict[tuple[int, ...], str] = field(default_factory=dict)
    view_cache_revision: int = -1

    @property
    def version(self) -> int:
        return len(self.game.moves)

    def seats_of(self, token: str | None) -> list[int]:
        """Seats a token controls: one human seat, every human seat (hot-seat token), or none."""
        if not token:
            return []
        digest = token_hash(token)
        if secrets.compare_digest(digest, self.hotseat_hash):
            return [i for i, s in enumerate(self.seats) if s.type == "human"]
        return [i for i, s in enumerate(self.seats) if s.token_hash and secrets.compare_digest(digest, s.token_hash)]


def _bot_decision(snapshot: dict[str, Any], spec: str, seed: int) -> str:
    """Run one bot decision (in a worker); returns the move's text."""
    state = GameState.from_snapshot(snapshot)
    return make_bot(spec, seed).choose(state).text()


def _bot_choose(state: GameState, spec: str, seed: int) -> str:
    return make_bot(spec, seed).choose(state).text()


class GameService:
    """All live games of one server process."""

    def __init__(
        self,
        sessions: sessionmaker,  # type: ignore[type-arg]
        bot_delay: float = 0.3,
        process_pool: Executor | None = None,
    ) -> None:
        self.sessions = sessions
        self.bot_delay = bot_delay
        self.games: dict[str, LiveGame] = {}
        self._load_lock = asyncio.Lock()
        self._pool = process_pool
        # Database work runs on its own threads.  SQLite allows one writer at a time and makes a waiting
        # writer sleep in its busy handler (up to 100 ms per try), so all SQLite work goes through one thread
        # in arrival order; PostgreSQL takes concurrent transactions.
        bind = sessions.kw.get("bind")
        writers = 1 if bind is None or bind.dialect.name == "sqlite" else 4
        self._db = ThreadPoolExecutor(max_workers=writers, thread_name_prefix="hansa-db")
        self._closing = False
        #: Called after every change with the game (the app broadcasts to WebSockets).
        self.on_change: Callable[[LiveGame], Awaitable[None]] | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Restore every running game and let its bots continue."""
        ids = await self.db_call(self._running_ids)
        for game_id in ids:
            live = await self.get(game_id)
            self.kick(live)
        log.info("restored %d running games", len(ids))

    async def stop(self) -> None:
        self._closing = True
        tasks = [g.bot_task for g in self.games.values() if g.bot_task and not g.bot_task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - shutting down
                pass
        if isinstance(self._pool, ProcessPoolExecutor):
            self._pool.shutdown(cancel_futures=True)
        self._db.shutdown(wait=True)

    async def db_call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking database work ``fn(*args)`` on the database thread(s)."""
        return await asyncio.get_running_loop().run_in_executor(self._db, fn, *args)

    def _running_ids(self) -> list[str]:
        with self.sessions() as session:
            return list(session.scalars(select(GameRow.id).where(GameRow.status == "running")))

    # ------------------------------------------------------------------ creation and loading

    async def create(self, players: list[dict[str, Any]], options: dict[str, Any], seed: int | None) -> tuple[LiveGame, list[str | None], str]:
        """Create and store a game.  Returns it, the token of every human seat (None for bots) and the hot-seat token."""
        seats: list[Seat] = []
        tokens: list[str | None] = []
        for p in players:
            if p["type"] == "bot":
                seats.append(Seat(p["name"], "bot", p["bot"]))
                tokens.append(None)
            else:
                token = secrets.token_urlsafe(18)
                seats.append(Seat(p["name"], "human", None, token_hash(token)))
                tokens.append(token)
        hotseat = secrets.token_urlsafe(18)
        if seed is None:
            seed = secrets.randbelow(2**31)
        try:
            game = Game([s.name for s in seats], seed=seed, options=options, undo="own")
        except HansaError as exc:
            raise ServiceError(400, str(exc)) from exc
        game_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        live = LiveGame(game_id, game, seats, token_hash(hotseat))
        row = GameRow(
            id=game_id, seed=seed, options=game.options.changed(), players=[s.to_row() for s in seats],
            hotseat_hash=live.hotseat_hash, status="running", version=0, turn=game.state.turn,
            snapshot=game.state.to_snapshot(), created_at=utcnow(), updated_at=utcnow(),
        )
        await self.db_call(self._insert, row)
        self.games[game_id] = live
        self.kick(live)
        return live, tokens, hotseat

    def _insert(self, row: GameRow) -> None:
        with self.sessions.begin() as session:
            session.add(row)

    async def get(self, game_id: str) -> LiveGame:
        """The live game, loaded from the database (by replaying its record) on first use."""
        live = self.games.get(game_id)
        if live is not None:
            return live
        async with self._load_lock:
            live = self.games.get(game_id)
            if live is None:
                live = await self.db_call(self._load, game_id)
                self.games[game_id] = live
        return live

    def _load(self, game_id: str) -> LiveGame:
        with self.sessions() as session:
            row = session.get(GameRow, game_id)
            if row is None:
                raise ServiceError(404, f"there is no game {game_id!r}")
            moves = list(session.scalars(select(MoveRow.text).where(MoveRow.game_id == game_id).order_by(MoveRow.n)))
        seats = [Seat(p["name"], p["type"], p.get("bot"), p.get("token_hash")) for p in row.players]
        game = Game([s.name for s in seats], seed=row.seed, options=row.options, undo="own")
        for i, text in enumerate(moves):
            try:
                game.play(text)
            except HansaError as exc:  # pragma: no cover - only a corrupt database gets here
                log.error("game %s: stored move %d (%s) does not replay: %s", game_id, i + 1, text, exc)
                break
        if game.state.to_snapshot() != row.snapshot:
            log.warning("game %s: stored snapshot differs from the replayed record; the record wins", game_id)
        return LiveGame(game_id, game, seats, row.hotseat_hash)

    def list_games(self, limit: int = 50) -> list[dict[str, Any]]:
        with self.sessions() as session:
            rows = session.scalars(select(GameRow).order_by(GameRow.created_at.desc()).limit(limit)).all()
            return [
                {
                    "id": r.id,
                    "created": r.created_at.isoformat() + "Z",
                    "players": [{"name": p["name"], "type": p["type"], "bot": p.get("bot")} for p in r.players],
                    "status": r.status,
                    "turn": r.turn,
                    "moves": r.version,
                }
                for r in rows
            ]

    # ------------------------------------------------------------------ moves

    def _check_seat(self, live: LiveGame, token: str | None, seat: int | None) -> int:
        seats = live.seats_of(token)
        if not seats:
            raise ServiceError(403, "this link may only watch the game (no valid seat token)")
        decider = live.game.state.decider
        if seat is None:
            seat = decider if decider in seats else seats[0]
        if seat not in seats:
            raise ServiceError(403, f"your token does not control seat {seat}")
        return seat

    async def play(self, game_id: str, token: str | None, move: Any, version: int | None, seat: int | None) -> LiveGame:
        live = await self.get(game_id)
        async with live.lock:
            seat = self._check_seat(live, token, seat)
            if version is not None and version != live.version:
                raise ServiceError(409, f"the game has moved on (version {live.version}, you sent {version}); reload")
            state = live.game.state
            if state.is_over:
                raise ServiceError(422, "the game is over", "§4.2")
            if seat != state.decider:
                raise ServiceError(403, f"it is not your decision: {live.seats[state.decider].name} (seat {state.decider}) must decide")
            await self._apply(live, move, seat)
        self.kick(live)
        return live

    async def _apply(self, live: LiveGame, move: Any, seat: int) -> Move:
        """Validate, apply in memory, persist; take back in memory if persisting fails.  Caller holds the lock."""
        game = live.game
        try:
            parsed = game.parse(move)
        except HansaError as exc:
            raise ServiceError(400, str(exc)) from exc
        try:
            game.play(parsed, seat)
        except HansaError as exc:
            raise ServiceError(422, str(exc), getattr(exc, "rule", None) or None) from exc
        try:
            await self.db_call(self._store_move, live, parsed, seat)
        except Exception:
            game.undo()
            raise
        await self._changed(live)
        return parsed

    def _store_move(self, live: LiveGame, move: Move, seat: int) -> None:
        game = live.game
        n = len(game.moves)
        # Core statements (no ORM unit of work): this runs once per move and is the server's hot path.
        with self.sessions.begin() as session:
            session.connection().execute(
                insert(MOVES),
                [{"game_id": live.id, "n": n, "seat": seat, "turn": game.move_turns[-1], "text": move.text(), "created_at": utcnow()}],
            )
            self._update_row(session, live, n - 1)

    def _update_row(self, session: Session, live: LiveGame, expected: int) -> None:
        state = live.game.state
        result = session.connection().execute(
            update(GAMES)
            .where(GAMES.c.id == live.id, GAMES.c.version == expected)
            .values(
                version=len(live.game.moves), status="over" if state.is_over else "running", turn=state.turn,
                snapshot=state.to_snapshot(), updated_at=utcnow(),
            )
        )
        if result.rowcount != 1:
            raise RuntimeError(f"game {live.id}: stored version is not {expected}; another writer changed it")

    async def undo(self, game_id: str, token: str | None, version: int | None, seat: int | None) -> LiveGame:
        live = await self.get(game_id)
        async with live.lock:
            seats = live.seats_of(token)
            if not seats:
                raise ServiceError(403, "this link may only watch the game (no valid seat token)")
            if version is not None and version != live.version:
                raise ServiceError(409, f"the game has moved on (version {live.version}, you sent {version}); reload")
            game = live.game
            if seat is None:
                seat = game.movers[-1] if game.movers and game.movers[-1] in seats else seats[0]
            if seat not in seats:
                raise ServiceError(403, f"your token does not control seat {seat}")
            if game.undoable(seat) < 1:
                raise ServiceError(422, "nothing to undo: only your own latest moves, before anyone else moves or a marker is revealed")
            before = len(game.moves)
            move = game.undo_own(seat)
            try:
                await self.db_call(self._store_undo, live, before)
            except Exception:
                game.play(move, seat)
                raise
            await self._changed(live)
        return live

    def _store_undo(self, live: LiveGame, before: int) -> None:
        with self.sessions.begin() as session:
            session.execute(delete(MoveRow).where(MoveRow.game_id == live.id, MoveRow.n > len(live.game.moves)))
            self._update_row(session, live, before)

    async def _changed(self, live: LiveGame) -> None:
        live.revision += 1
        if self.on_change is not None:
            await self.on_change(live)

    # ------------------------------------------------------------------ bots

    def kick(self, live: LiveGame) -> None:
        """Make sure the game's bot task runs if a bot must decide."""
        if self._closing:
            return
        state = live.game.state
        if state.is_over or live.seats[state.decider].type != "bot":
            return
        if live.bot_task is None or live.bot_task.done():
            live.bot_task = asyncio.create_task(self._run_bots(live), name=f"bots-{live.id}")

    async def _run_bots(self, live: LiveGame) -> None:
        loop = asyncio.get_running_loop()
        while not self._closing:
            state = live.game.state
            if state.is_over:
                return
            seat = state.decider
            spec = live.seats[seat].bot
            if live.seats[seat].type != "bot" or spec is None:
                return
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            version = live.version
            snapshot = state.to_snapshot()
            seed = (live.game.seed or 0) * 7919 + version * 31 + seat
            try:
                if spec.startswith("mcts") and self._pool is not None:
                    text = await loop.run_in_executor(self._pool, _bot_decision, snapshot, spec, seed)
                else:
                    text = await run_in_threadpool(_bot_choose, state.copy(), spec, seed)
            except Exception:  # pragma: no cover - a bot bug must not kill the server
                log.exception("bot %s failed in game %s", spec, live.id)
                return
            async with live.lock:
                if live.version != version:  # someone undid or moved meanwhile: think again
                    continue
                try:
                    await self._apply(live, text, seat)
                except ServiceError as exc:  # pragma: no cover - would be a bot bug
                    log.error("bot %s made an illegal move %s in game %s: %s", spec, text, live.id, exc.message)
                    return

    # ------------------------------------------------------------------ views

    def view(self, live: LiveGame, token: str | None) -> dict[str, Any]:
        """The game as a token sees it (see docs/api.md)."""
        seats = live.seats_of(token)
        return self.view_for(live, seats)

    def view_json(self, live: LiveGame, seats: list[int]) -> str:
        """The view as JSON text, cached per version and seats (a move's response and its WebSocket pushes share
        the work)."""
        key = tuple(seats)
        if live.view_cache_revision != live.revision:
            live.view_cache = {}
            live.view_cache_revision = live.revision
        cached = live.view_cache.get(key)
        if cached is None:
            cached = json.dumps(self.view_for(live, seats), separators=(",", ":"))
            live.view_cache[key] = cached
        return cached

    def view_for(self, live: LiveGame, seats: list[int]) -> dict[str, Any]:
        game = live.game
        state = game.state
        decider = state.decider
        legal: list[dict[str, Any]] = []
        if not state.is_over and decider in seats:
            legal = [{"text": m.text(), "json": m.to_json()} for m in state.legal_moves()]
        undo = 0
        if game.movers and game.movers[-1] in seats:
            undo = game.undoable(game.movers[-1])
        start = max(0, len(game.moves) - LOG_TAIL)
        return {
            "id": live.id,
            "version": live.version,
            "status": "over" if state.is_over else "running",
            "board_side": state.board.side,
            "players": [
                {"seat": i, "name": s.name, "type": s.type, "bot": s.bot, "colour": COLOURS[i]}
                for i, s in enumerate(live.seats)
            ],
            "neutral_colour": NEUTRAL_COLOUR,
            "you": seats,
            "state": public_state(state),
            "legal": legal,
            "undo": undo,
            "log": [
                {"n": i + 1, "seat": game.movers[i], "turn": game.move_turns[i], "move": game.moves[i].text()}
                for i in range(start, len(game.moves))
            ],
            "options": game.options.changed(),
        }

    def history(self, live: LiveGame) -> dict[str, Any]:
        """In-game scores after every move (replayed from the record), for the score chart."""
        game = live.game
        state = GameState.new(len(game.names), game.seed, game.options)
        turns: list[dict[str, Any]] = [{"n": 0, "turn": state.turn, "move": None, "scores": list(state.score)}]
        for i, move in enumerate(game.moves):
            state.play(move)
            turns.append({"n": i + 1, "turn": state.turn, "move": move.text(), "scores": list(state.score)})
        final = None
        if state.is_over:
            final = public_state(state)["result"]["scores"]
        return {"turns": turns, "final": final}

    def replay_at(self, live: LiveGame, k: int) -> dict[str, Any]:
        game = live.game
        if not 0 <= k <= len(game.moves):
            raise ServiceError(404, f"move {k} does not exist (the game has {len(game.moves)} moves)")
        state = GameState.new(len(game.names), game.seed, game.options)
        for move in game.moves[:k]:
            state.play(move)
        return {"k": k, "moves": len(game.moves), "move": game.moves[k - 1].text() if k else None, "state": public_state(state)}
