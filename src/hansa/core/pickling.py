"""Pickling and deep copies of the compiled engine's classes: :class:`GameState` and :class:`Board`.

The engine's classes are compiled by mypyc, whose classes Python's default pickling cannot rebuild (a board has no
argument-free constructor, and a position holds the board's interned move objects).  This module, which is not
compiled, registers reducers with :mod:`copyreg` when ``hansa`` is imported, so ``pickle``, ``copy.deepcopy`` and
everything built on them (``multiprocessing``, ``concurrent.futures`` process pools, Ray, replay buffers) work on
positions, games and the AI environments, with no change to the compiled code or to :meth:`GameState.copy`'s speed.

* A **board** is sent by name when it is a printed side (``load_board(side)``: the receiving process loads its own,
  cached, copy) and by its data (:meth:`Board.to_json`) when it is a custom one.
* A **position** is sent as its board and the values of its fields (:data:`SAVED_FIELDS`: every field the rules
  read, the hidden ones included: the face-down marker supply, the plates and the mission cards, so a copy is the
  same game, not a determinization); the indexes derived from the houses (free houses, their move objects, each
  owner's houses, full routes) are rebuilt on loading from the board's own move table, so the copy shares the
  engine's interned move objects like any other position of that process.

``copy.deepcopy(state)`` is :meth:`GameState.copy` (an independent position: the lists the rules change are copied,
the immutable parts shared), set here as the class's ``__deepcopy__``, so deep copies of games and environments cost
what a copy costs.  A pickle is for the same hansa version: it holds the fields of this version.
"""

from __future__ import annotations

import copyreg
from typing import Any

from .board import SIDES, Board, load_board
from .movetable import move_table
from .position import STATE_FIELDS
from .state import GameState

#: The fields a pickled position carries: all but the board, its move table and what :meth:`Position._reindex`
#: derives from the houses.
SAVED_FIELDS: tuple[str, ...] = tuple(
    name for name in STATE_FIELDS
    if name not in ("board", "_mt", "route_free", "free_total", "free", "free_moves", "own", "full")
)


def _board_reduce(board: Board) -> tuple[Any, ...]:
    if board.side in SIDES and load_board(board.side) is board:
        return load_board, (board.side,)
    codes = {city.name: city.code for city in board.cities}
    return Board, (board.side, board.to_json(), codes)


def _state_reduce(state: GameState) -> tuple[Any, ...]:
    return _restore_state, (type(state), state.board, tuple(getattr(state, name) for name in SAVED_FIELDS))


def _restore_state(cls: type[GameState], board: Board, values: tuple[Any, ...]) -> GameState:
    """A position from :func:`_state_reduce`'s parts (``values`` in :data:`SAVED_FIELDS` order)."""
    if not (isinstance(board, Board) and isinstance(values, tuple) and len(values) == len(SAVED_FIELDS)):
        raise ValueError(
            f"not a pickled hansa position of this version: {len(SAVED_FIELDS)} fields expected"
        )
    state = cls.__new__(cls)
    state.board = board
    state._mt = move_table(board)
    for name, value in zip(SAVED_FIELDS, values):
        setattr(state, name, value)
    state._reindex()
    return state


def _state_deepcopy(state: GameState, memo: dict[int, Any]) -> GameState:
    return state.copy()


def _board_deepcopy(board: Board, memo: dict[int, Any]) -> Board:
    return board  # never changed after loading: shared, like the engine's own copies share it


def register() -> None:
    """Register the reducers and deep copies (idempotent; importing ``hansa`` calls it)."""
    copyreg.pickle(Board, _board_reduce)
    copyreg.pickle(GameState, _state_reduce)
    type.__setattr__(GameState, "__deepcopy__", _state_deepcopy)
    type.__setattr__(Board, "__deepcopy__", _board_deepcopy)


register()
