"""A game: setup, the list of moves played, undo, and conversion to and from a game record."""

from __future__ import annotations

import secrets
from typing import Any, Literal

from .core.errors import HansaError, MalformedMoveError
from .core.moves import Move, PlaceMarker, move_from_json, parse_move
from .core.options import GameOptions
from .core.scoring import ScoreBreakdown, final_scores, winners
from .core.state import GameState


class Game:
    """A Hansa Teutonica game with history.

    ``Game(["Ann", "Bo", "Cy"], seed=7)`` sets up a game; :meth:`play` accepts a :class:`Move` or its text
    form; :meth:`undo` takes back the last move; :meth:`to_record` / :func:`hansa.record.game_from_record` save
    and replay it.  ``game.state`` is the current :class:`GameState` (read it, do not change it).
    """

    def __init__(
        self,
        players: int | list[str],
        seed: int | None = None,
        options: GameOptions | dict[str, Any] | None = None,
        *,
        start_player: int | None = None,
        undo: bool | Literal["own"] = True,
    ) -> None:
        if isinstance(players, int) and not isinstance(players, bool):
            names = [f"Player {i + 1}" for i in range(players)]
        elif isinstance(players, (list, tuple)) and all(isinstance(n, str) for n in players):
            names = list(players)
        else:
            raise HansaError("players must be a count (2-5) or a list of 2-5 names")
        self.names: list[str] = names
        if seed is None:  # every game gets a seed, so that its record always replays
            seed = secrets.randbelow(2**31)
        self.seed: int = seed
        self.start_player_override = start_player
        self.state: GameState = GameState.new(len(names), seed, options, start_player=start_player)
        self.options: GameOptions = self.state.options
        self.moves: list[Move] = []
        #: Seat that made each move, and the turn number it was made in (parallel to ``moves``).
        self.movers: list[int] = []
        self.move_turns: list[int] = []
        self._snapshots: list[GameState] = []
        #: Keep a snapshot per move so :meth:`undo` works (switch off for fast self-play with records).
        #: ``"own"`` keeps only the snapshots :meth:`undo_own` can use (the current seat's latest moves since
        #: another seat moved or a marker was revealed), which bounds the memory of a long-running server.
        if undo not in (True, False, "own"):
            raise HansaError(f"undo must be true, false or 'own', not {undo!r}")
        self.keep_undo = bool(undo)
        self._undo_own_only = undo == "own"

    # ------------------------------------------------------------------ playing

    def parse(self, move: Move | str | dict[str, Any]) -> Move:
        """Turn text or JSON into a :class:`Move` for this game's board (a Move is returned as is)."""
        if isinstance(move, Move):
            return move
        if isinstance(move, str):
            return parse_move(move, self.state.board)
        if isinstance(move, dict):
            return move_from_json(move, self.state.board)
        raise MalformedMoveError(f"a move must be a Move, its text or its JSON form, not {type(move).__name__}")

    def play(self, move: Move | str | dict[str, Any], player: int | None = None) -> Move:
        """Validate and play a move (see :meth:`GameState.play`); returns the parsed move."""
        parsed = self.parse(move)
        mover, turn = self.state.decider, self.state.turn
        if self.keep_undo:
            before = self.state.copy()
            self.state.play(parsed, player)
            if self._undo_own_only and self.moves and (self.movers[-1] != mover or isinstance(self.moves[-1], PlaceMarker)):
                self._snapshots.clear()  # no longer reachable by undo_own
            self._snapshots.append(before)
        else:
            self.state.play(parsed, player)
        self.moves.append(parsed)
        self.movers.append(mover)
        self.move_turns.append(turn)
        return parsed

    def undo(self) -> Move:
        """Take back the last move and return it."""
        if not self._snapshots:
            raise HansaError("there is no move to undo")
        self.state = self._snapshots.pop()
        self.movers.pop()
        self.move_turns.pop()
        return self.moves.pop()

    def state_before(self) -> GameState:
        """The position :meth:`undo` would go back to (read it, do not change it)."""
        if not self._snapshots:
            raise HansaError("there is no move to undo")
        return self._snapshots[-1]

    def undoable(self, seat: int) -> int:
        """How many of the last moves ``seat`` may take back: its own latest moves, as long as no other seat has
        moved since (a relocation, the next turn) and no hidden information was revealed (a replacement marker
        placed face up).  The last action of a turn that ended by itself can be taken back until the next player
        acts.  0 when the game is over."""
        if self.state.is_over or not self._snapshots:
            return 0
        count = 0
        for i in range(len(self.moves) - 1, -1, -1):
            if count >= len(self._snapshots) or self.movers[i] != seat:
                break
            if isinstance(self.moves[i], PlaceMarker):
                break
            count += 1
        return count

    def undo_own(self, seat: int) -> Move:
        """Take back ``seat``'s last move if :meth:`undoable` allows it (the table rule for players)."""
        if self.undoable(seat) < 1:
            raise HansaError("nothing to undo: only your own latest moves, before anyone else moves or a marker is revealed")
        return self.undo()

    def legal_moves(self) -> list[Move]:
        """The deciding player's legal moves."""
        return self.state.legal_moves()

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def scores(self) -> list[ScoreBreakdown]:
        """Final score breakdown (a projection while the game runs)."""
        return final_scores(self.state)

    def winners(self) -> list[int]:
        """Winning seats (several when shared)."""
        return winners(self.state)

    # ------------------------------------------------------------------ records

    def to_record(self) -> dict[str, Any]:
        """The game record: format version, options, seed, players and moves (text form), plus the result."""
        from .record import game_to_record

        return game_to_record(self)

    def __repr__(self) -> str:
        return f"<Game {len(self.names)} players, {len(self.moves)} moves, {self.state!r}>"
