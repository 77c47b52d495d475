"""A game held in memory by the server (:class:`LiveGame`) and the JSON answers made from it: the view of a
seat's token, the WebSocket message carrying it, the score history.  Each is cached per revision of the game (a
move's answer and its WebSocket pushes share the work)."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..game import Game
from ..view import mission_json, public_state
from .answers import CHUNK
from .clocks import Clock, ClockSettings
from .store import (
    DAMAGED,
    DELTA_TAIL,
    ENDED,
    PALETTE,
    RUNNING,
    Damaged,
    StoredSeat,
    clock_of_row,
    kept_delta,
    map_of_row,
    seats_of_row,
)

NEUTRAL_COLOUR = "#8d8d8d"
LOG_TAIL = DELTA_TAIL
_EPOCHS = itertools.count(1)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def client_hash(client: str) -> str:
    """What a game row keeps of its creator's address (for the per-client cap on running games)."""
    return hashlib.sha256(f"hansa-client:{client}".encode()).hexdigest()[:32]


Seat = StoredSeat


@dataclass(frozen=True)
class AccountKey:
    """A request made by a signed-in account (its session checked by hansa.server.accounts): it acts for the human
    seats that account plays, as a seat token acts for its seat."""

    account: int


#: What a request acts with: a token (seat, hot-seat or creator token), an account's session, or nothing.
Credential = str | AccountKey | None


@dataclass
class LiveGame:
    """A game held in memory."""

    id: str
    game: Game
    seats: list[Seat]
    hotseat_hash: str
    creator_hash: str | None = None
    seed_public: bool = False
    status: str = RUNNING
    status_note: str | None = None
    #: A problem the players should see (a bot or the database failing; cleared when it recovers).
    error: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task[None] | None = None
    #: Increases on every change of the game (moves, undos, status, error).
    revision: int = 0
    #: In-game scores after every move (index 0: the start), for the score chart.
    scores: list[list[int]] = field(default_factory=list)
    #: Serialized views of the current revision, by the seats of the viewer, and other per-revision answers.
    view_cache: dict[tuple[int, ...], str] = field(default_factory=dict)
    cached: dict[Any, Any] = field(default_factory=dict)
    cache_revision: int = -1
    #: ``time.monotonic()`` of the last change or request.
    touched: float = field(default_factory=time.monotonic)
    #: The table's options, chosen at creation and shown to all: {"hints": bool}.
    table: dict[str, Any] = field(default_factory=lambda: {"hints": True})
    #: What each of the last LOG_TAIL moves changed on the table (hansa.view.move_delta, kept as
    #: :func:`~hansa.server.store.kept_delta`: a serial number and the JSON text), by move number.
    deltas: dict[int, tuple[int, str]] = field(default_factory=dict)
    #: The clocks, away seats and takeover votes (a clock of kind "none" when the game has no clock).
    clock: Clock = field(default_factory=lambda: Clock(ClockSettings(), []))
    #: Seconds a human seat may decide without a move before the others may vote a bot in (the server's setting).
    takeover_after: float = 86400.0
    #: The stored row's revision this copy is at (every write expects it and moves it on by one).
    stored: int = 0
    #: Every move's text (as stored) and the kind of token that made it (``seat``, ``hotseat``, ``bot``, ``clock``;
    #: None when not recorded), parallel to ``game.moves``.
    texts: list[str] = field(default_factory=list)
    actors: list[str | None] = field(default_factory=list)
    #: The position after every CHUNK moves, as snapshot JSON (move count -> text): long answers replay from the
    #: nearest (answers.py).
    checkpoints: dict[int, str] = field(default_factory=dict)
    #: Changes whenever moves already played may have changed (an undo, the game loaded again): pages of long
    #: answers are cached under it.  Unique in the process.
    epoch: int = field(default_factory=lambda: next(_EPOCHS))
    #: The view's log entries as JSON text, by move number, with the serial number of the delta each was made with
    #: (a move played again after an undo, or a game loaded again, has new deltas: its entry is made again).
    log_json: dict[int, tuple[int, str]] = field(default_factory=dict)

    def record_delta(self, n: int, delta: dict[str, Any]) -> None:
        self.deltas[n] = kept_delta(delta)
        self.deltas.pop(n - LOG_TAIL, None)

    def moved(self, text: str, actor: str | None) -> None:
        """Bookkeeping after ``game.play``: the move's text and actor, and a checkpoint every CHUNK moves."""
        self.texts.append(text)
        self.actors.append(actor)
        n = len(self.texts)
        if n % CHUNK == 0:
            self.checkpoints[n] = json.dumps(self.game.state.to_snapshot(), separators=(",", ":"))

    def undone(self) -> None:
        """Bookkeeping after ``game.undo_own``."""
        n = len(self.game.moves)
        del self.texts[n:]
        del self.actors[n:]
        for k in [k for k in self.checkpoints if k > n]:
            del self.checkpoints[k]
        self.epoch = next(_EPOCHS)

    def adopt(self, other: LiveGame) -> None:
        """Take the game as ``other`` (the same game, loaded again) has it."""
        self.game, self.seats, self.clock, self.stored = other.game, other.seats, other.clock, other.stored
        self.status, self.status_note, self.scores = other.status, other.status_note, other.scores
        self.deltas, self.table = other.deltas, other.table
        self.texts, self.actors, self.checkpoints = other.texts, other.actors, other.checkpoints
        self.epoch = next(_EPOCHS)

    @property
    def version(self) -> int:
        return len(self.game.moves)

    @property
    def has_human(self) -> bool:
        return any(s.type == "human" for s in self.seats)

    @property
    def seed_shown(self) -> bool:
        """The seed may be shown: the creator chose it (every seat knows it), or the game has ended."""
        return self.seed_public or self.status in ENDED

    def seats_of(self, token: Credential) -> list[int]:
        """Seats a token controls: one human seat (its seat token), every human seat (the hot-seat token of a
        hot-seat game), the seats of an account (its session), or none."""
        return self.authority(token)[0]

    def authority(self, token: Credential) -> tuple[list[int], str | None]:
        """The seats a token controls and what kind of token it is: ``"seat"``, ``"hotseat"``, ``"account"`` or
        None."""
        if isinstance(token, AccountKey):
            mine = [i for i, s in enumerate(self.seats) if s.account == token.account and s.type == "human"]
            return mine, ("account" if mine else None)
        if not token:
            return [], None
        digest = token_hash(token)
        if self.hotseat_hash and secrets.compare_digest(digest, self.hotseat_hash):
            return [i for i, s in enumerate(self.seats) if s.type == "human"], "hotseat"
        seats = [i for i, s in enumerate(self.seats) if s.token_hash and secrets.compare_digest(digest, s.token_hash)]
        return seats, ("seat" if seats else None)

    def is_creator(self, token: Credential) -> bool:
        if not isinstance(token, str):
            return False
        return bool(token and self.creator_hash and secrets.compare_digest(token_hash(token), self.creator_hash))

    def per_revision(self) -> dict[Any, Any]:
        """Answers cached for the current revision (dropped when the game changes)."""
        if self.cache_revision != self.revision:
            self.view_cache = {}
            self.cached = {}
            self.cache_revision = self.revision
        return self.cached



def with_now(text: str, now: float) -> str:
    """A view (or a view message) with the server's time added (``"now"``: seconds since the epoch), so that clients
    can count the clocks down; the view itself stays cached."""
    if text.endswith("}}") and text.startswith('{"type":"view"'):
        return f'{text[:-2]},"now":{now:.3f}}}}}'
    return f'{text[:-1]},"now":{now:.3f}}}'


def clock_view(live: LiveGame) -> dict[str, Any]:
    """The clock as the table shows it: settings, the running period (seat and start, server time), each seat's
    time left at the period's start, and the deadline; ``takeover_after`` for games without a clock."""
    clock = live.clock
    return {
        **clock.settings.to_json(),
        "seat": clock.seat,
        "since": clock.since,
        "left": clock.left,
        "deadline": clock.deadline(),
        "takeover_after": live.takeover_after,
    }


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def view_json(live: LiveGame, seats: list[int]) -> str:
    """The view as JSON text, cached per revision and seats (a move's response and its WebSocket pushes share
    the work).  The same text as ``json.dumps(view_for(live, seats), separators=(",", ":"))``, put together from
    parts: the public position's text is made once per revision for every seat, and each log entry's text once
    per move (the log repeats the last LOG_TAIL moves in every view)."""
    cache = live.per_revision()
    key = tuple(seats)
    cached = live.view_cache.get(key)
    if cached is None:
        head, state, middle, tail = _view_parts(live, seats)
        state_text: str | None = cache.get("state")
        if state_text is None:
            state_text = cache["state"] = _dumps(state())
        cached = "".join((
            _dumps(head)[:-1], ',"state":', state_text, ",", _dumps(middle)[1:-1], ',"log":', _log_json(live), ",",
            _dumps(tail)[1:],
        ))
        live.view_cache[key] = cached
    return cached


def view_message(live: LiveGame, seats: tuple[int, ...]) -> str:
    """The WebSocket message carrying the view (one string per revision and seats, shared by every socket)."""
    cache = live.per_revision()
    key = ("message", seats)
    text: str | None = cache.get(key)
    if text is None:
        text = cache[key] = '{"type":"view","view":' + view_json(live, list(seats)) + "}"
    return text


def view_for(live: LiveGame, seats: list[int]) -> dict[str, Any]:
    head, state, middle, tail = _view_parts(live, seats)
    return {**head, "state": state(), **middle, "log": _log(live), **tail}


def _view_parts(
    live: LiveGame, seats: list[int],
) -> tuple[dict[str, Any], Callable[[], dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """The view's keys before ``state``; a function giving ``state``; the keys between it and ``log``; the keys
    after ``log`` (in the view's order)."""
    game = live.game
    # A seat handed to a bot by a vote is no one's any more: a socket opened with its token before then watches.
    seats = [s for s in seats if live.seats[s].type == "human"]
    state = game.state
    decider = state.decider
    legal: list[dict[str, Any]] = []
    if live.status == RUNNING and not state.is_over and decider in seats:
        legal = [{"text": m.text(), "json": m.to_json()} for m in state.legal_moves()]
    undo = 0
    if live.status == RUNNING and game.movers and game.movers[-1] in seats:
        undo = max(0, min(game.undoable(game.movers[-1]), live.version - live.clock.undo_floor))
    head = {
        "id": live.id,
        "version": live.version,
        "revision": live.stored,
        "status": live.status,
        "note": live.status_note,
        "error": live.error,
        "seed": game.seed if live.seed_shown else None,
        "board_side": state.board.side,
        "players": [
            {"seat": i, "name": s.name, "type": s.type, "bot": s.bot, "colour": PALETTE[s.colour][0],
             "colour_name": s.colour, "symbol": PALETTE[s.colour][1], "away": live.clock.is_away(i),
             "takeover_votes": sorted(live.clock.votes.get(i, {})), "taken_over": s.taken_over}
            for i, s in enumerate(live.seats)
        ],
        "clock": clock_view(live),
        "webhooks": {str(i): live.seats[i].webhook for i in seats if live.seats[i].webhook},
        "webhooks_suspended": [i for i in seats if live.seats[i].webhook and live.seats[i].webhook_suspended],
        "neutral_colour": NEUTRAL_COLOUR,
        "you": seats,
    }
    middle: dict[str, Any] = {"legal": legal, "undo": undo}
    if state.missions and seats and not state.is_over:  # each seat's secret card, for its own player only (docs/rules.md §8.2)
        middle["missions"] = {str(i): mission_json(state, i) for i in seats}
    return head, lambda: public_state(state), middle, {
        "options": game.options.changed(),
        "table": live.table,
    }


def _log_entry(live: LiveGame, i: int) -> dict[str, Any]:
    game = live.game
    kept = live.deltas.get(i + 1)
    return {
        "n": i + 1, "seat": game.movers[i], "turn": game.move_turns[i], "move": live.texts[i],
        "json": game.moves[i].to_json(), "delta": json.loads(kept[1]) if kept is not None else None,
        "by": live.actors[i],
    }


def _log(live: LiveGame) -> list[dict[str, Any]]:
    """The last LOG_TAIL moves with their seat, turn, JSON form and delta."""
    return [_log_entry(live, i) for i in range(max(0, live.version - LOG_TAIL), live.version)]


def _log_entry_json(live: LiveGame, i: int, delta: str | None) -> str:
    """:func:`_log_entry` as JSON text, with the delta's text put in as it is kept."""
    game = live.game
    head = _dumps({
        "n": i + 1, "seat": game.movers[i], "turn": game.move_turns[i], "move": live.texts[i],
        "json": game.moves[i].to_json(),
    })
    return f'{head[:-1]},"delta":{delta if delta is not None else "null"},"by":{_dumps(live.actors[i])}}}'


def _log_json(live: LiveGame) -> str:
    """:func:`_log` as JSON text, each entry's text made once per delta (an entry without a delta, which only the
    first entry after an undo can be, is made each time)."""
    made = live.log_json
    start = max(0, live.version - LOG_TAIL)
    texts = []
    for i in range(start, live.version):
        kept = live.deltas.get(i + 1)
        if kept is None:
            texts.append(_log_entry_json(live, i, None))
            continue
        entry = made.get(i + 1)
        if entry is None or entry[0] != kept[0]:
            entry = made[i + 1] = (kept[0], _log_entry_json(live, i, kept[1]))
        texts.append(entry[1])
    if len(made) > 2 * LOG_TAIL:
        for n in [n for n in made if n <= start]:
            del made[n]
    return "[" + ",".join(texts) + "]"


def my_game_entry(row: dict[str, Any], live: LiveGame | None, token: str, now: float) -> dict[str, Any]:
    """One game of "my games" for a seat token: the game in memory when it is there (fresher), else its stored row
    (summary columns and clock, never the position).  Only what any spectator may see, plus the token's seats."""
    entry: dict[str, Any] = {"id": row["id"], "updated": row["updated_at"].isoformat() + "Z"}
    clock: Clock | None
    try:
        if live is not None:
            seats, clock, status, note = live.seats, live.clock, live.status, live.status_note
            turn, moves = live.game.state.turn, live.version
            hotseat = live.hotseat_hash
            map_name: str = live.game.options.map
        else:
            seats, clock = seats_of_row(row["players"]), clock_of_row(row["clock"])
            status, note, turn, moves, hotseat = row["status"], row["status_note"], row["turn"], row["version"], row["hotseat_hash"]
            map_name = map_of_row(row)
    except Damaged as exc:
        return {**entry, "status": DAMAGED, "note": exc.reason, "players": [], "you": [], "decider": None,
                "your_turn": False, "time_left": None, "clock": None}
    digest = token_hash(token)
    if hotseat and secrets.compare_digest(digest, hotseat):
        you = [i for i, s in enumerate(seats) if s.type == "human"]
    else:
        you = [i for i, s in enumerate(seats) if s.token_hash and secrets.compare_digest(digest, s.token_hash)]
    running = status == RUNNING and clock is not None and clock.seat >= 0
    decider = clock.seat if running and clock is not None else None
    left = clock.time_left(decider, now) if clock is not None and decider is not None else None
    return {
        **entry, "status": status, "note": note, "turn": turn, "moves": moves, "map": map_name,
        "players": [{"name": s.name, "type": s.type, "away": bool(clock and clock.is_away(i))} for i, s in enumerate(seats)],
        "you": you, "decider": decider,
        "your_turn": decider is not None and decider in you and not (clock is not None and clock.is_away(decider)),
        "time_left": None if left is None or left == float("inf") else round(left, 1),
        "clock": clock.settings.kind if clock is not None else "none",
    }
