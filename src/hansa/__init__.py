"""hansa: an open, rules-exact implementation of the board game Hansa Teutonica (Argentum, 2009).

Quick use::

    import hansa
    game = hansa.Game(["Ann", "Bo", "Cy"], seed=1)
    print(game.legal_moves()[:5])
    game.play("place T GRO-EMD:2")
"""

from . import _native

_native.install()  # before any engine module is imported: compiled core, or its sources when those are newer

from ._native import compiled
from .core import pickling as _pickling  # noqa: F401  # pickle and deepcopy of the compiled classes (copyreg)
from .core.board import Board, board_for_players, load_board
from .core.errors import (
    GameOverError,
    HansaError,
    IllegalMoveError,
    InvalidOptionError,
    MalformedMoveError,
    RecordError,
    WrongPlayerError,
)
from .core.moves import (
    Claim,
    Displace,
    Done,
    Drop,
    EndTurn,
    Improve,
    Income,
    Lift,
    LiftExtra,
    Move,
    NeutralOffice,
    Pawn,
    Place,
    PlaceMarker,
    Relocate,
    Remove,
    Shift,
    Swap,
    TakeExtra,
    UseMarker,
    move_from_json,
    parse_move,
)
from .core.options import GameOptions
from .core.scoring import ScoreBreakdown, final_scores, winners
from .core.state import GameState, Phase
from .game import Game

__version__ = "0.1.0"

__all__ = [
    "Board", "Claim", "Displace", "Done", "Drop", "EndTurn", "Game", "GameOptions", "GameOverError", "GameState",
    "HansaError", "IllegalMoveError", "Improve", "Income", "InvalidOptionError", "Lift", "LiftExtra",
    "MalformedMoveError", "Move", "NeutralOffice", "Pawn", "Phase", "Place", "PlaceMarker", "RecordError", "Relocate", "Remove",
    "ScoreBreakdown", "compiled", "Shift", "Swap", "TakeExtra", "UseMarker", "WrongPlayerError", "board_for_players",
    "final_scores", "load_board", "move_from_json", "parse_move", "winners",
]
