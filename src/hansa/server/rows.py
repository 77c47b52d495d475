"""What a move (or a seat change) writes to a game's row, worked out from a game in memory: shared by the server
processes (``games.py``) and the bot workers (``botworker.py``), so both store exactly the same thing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..core.moves import Move
from ..core.state import GameState
from .clocks import Clock, ClockSettings
from .live import LiveGame
from .store import OVER, RUNNING, STOPPED, StoredGame


def to_datetime(seconds: float | None) -> datetime | None:
    """Seconds since the epoch as the naive UTC datetime the database stores (None stays None)."""
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)


def to_seconds(moment: datetime) -> float:
    return moment.replace(tzinfo=UTC).timestamp()


def copy_clock(clock: Clock) -> Clock:
    """A clock to change before the change is stored (the game's own clock changes only once it is)."""
    return Clock(clock.settings, list(clock.left), clock.seat, clock.since,
                 list(clock.away) if clock.away is not None else None,
                 {t: dict(b) for t, b in clock.votes.items()}, clock.undo_floor)


def bot_for(live: LiveGame, seat: int, clock: Clock | None = None) -> str | None:
    """The bot that plays ``seat`` now: the seat's own, the timeout bot while its player is away, or None."""
    s = live.seats[seat]
    if s.type == "bot":
        return s.bot
    clock = clock or live.clock
    return clock.settings.bot if clock.is_away(seat) else None


def bot_turn(live: LiveGame, state: GameState | None = None, clock: Clock | None = None) -> bool:
    """A bot must decide in ``state`` (default: the game's position) with ``clock``."""
    state = state or live.game.state
    return live.status == RUNNING and not state.is_over and bot_for(live, state.decider, clock) is not None


def undoable(live: LiveGame, seat: int) -> int:
    """How many moves ``seat``'s player may take back now: their own latest moves (the game's rule), never one a
    bot or a timeout made for them."""
    return max(0, min(live.game.undoable(seat), live.version - live.clock.undo_floor))


def clock_columns(clock: Clock) -> dict[str, Any]:
    return {"clock": clock.to_json(), "deadline": to_datetime(clock.deadline())}


def game_row(live: LiveGame, state: GameState, version: int, clock: Clock) -> dict[str, Any]:
    """The game row's columns for ``state`` after ``version`` moves, with ``clock``."""
    status = OVER if state.is_over else live.status
    return {
        "version": version, "status": status, "turn": state.turn, "snapshot": state.to_snapshot(),
        "bot_turn": bot_turn(live, state, clock), **clock_columns(clock),
    }


def cap_note(cap: int) -> str:
    """The note of a game stopped by the move cap."""
    return f"stopped at the move cap: {cap} moves, the most a game may have on this server"


@dataclass
class PreparedMove:
    """A move checked on a copy of the position, with what storing it writes."""

    move: Move
    seat: int
    n: int
    turn: int
    after: GameState
    clock: Clock
    row: dict[str, Any]
    #: The move reaches the move cap: the game stops with it (``row`` says so).
    capped: bool = False


def prepare_move(live: LiveGame, move: Move, seat: int, now: float, back: bool = False, for_player: bool = False,
                 cap: int | None = None) -> PreparedMove:
    """Play ``move`` for ``seat`` on a copy of the position and advance a copy of the clock at ``now`` (``back``:
    the seat's player is back from being away; ``for_player``: a bot or a timeout policy makes the move for a
    human seat, so that its player cannot take it back; ``cap``: the move cap, at which a game that the rules have
    not ended is stopped); raises the engine's error for an illegal move."""
    after = live.game.state.copy()
    turn = after.turn
    after.play(move, seat)
    n = len(live.game.moves) + 1
    capped = cap is not None and n >= cap and not after.is_over
    clock = copy_clock(live.clock)
    if back:
        clock.set_away(seat, False, now)
    ended = after.is_over or capped
    clock.advance(after.decider, after.turn != turn or ended, now, over=ended)
    if for_player:
        clock.undo_floor = n
    row = game_row(live, after, n, clock)
    if capped:
        row.update(status=STOPPED, status_note=cap_note(n), bot_turn=False)
    return PreparedMove(move, seat, n, turn, after, clock, row, capped)


def live_from_stored(stored: StoredGame, takeover_after: float) -> LiveGame:
    """A game in memory from its stored form (games stored before clocks get a clock of kind "none" whose period
    counts from the game's last change)."""
    status = stored.status
    state = stored.game.state
    if status == RUNNING and state.is_over:
        status = OVER
    clock = stored.clock
    if clock is None:
        clock = Clock.start(ClockSettings(), len(stored.seats), state.decider, to_seconds(stored.updated_at))
        if state.is_over:
            clock.seat = -1
    return LiveGame(
        stored.id, stored.game, stored.seats, stored.hotseat_hash, creator_hash=stored.creator_hash,
        seed_public=stored.seed_public, status=status, status_note=stored.status_note, scores=stored.scores,
        table=stored.table, deltas=stored.deltas, clock=clock, takeover_after=takeover_after, stored=stored.revision,
        texts=stored.texts, actors=stored.actors, checkpoints=stored.checkpoints,
    )
