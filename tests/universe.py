"""Every move that could be written for a board: used to check that ``legal_moves()`` and ``play()`` agree."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from hansa.core.board import Board
from hansa.core.constants import ABILITY_NAMES, MARKER_NAMES, PRIVILEGE_COLOURS, TILE_CODES
from hansa.core.errors import IllegalMoveError
from hansa.core.moves import (
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
    Share,
    Shift,
    Swap,
    TakeExtra,
    TakeTribute,
    UseBlock,
    UseExchange,
    UseMarker,
    UseTribute,
    tile_move,
)
from hansa.core.state import GameState


def move_universe(board: Board) -> list[Move]:
    """All syntactically valid moves for ``board`` (except Shift, sampled separately)."""
    out: list[Move] = [EndTurn(), Done(), TakeExtra("T"), TakeExtra("M"), UseMarker("+3"), UseMarker("+4"), UseMarker("remove3")]
    out += [Income(t, m) for t in range(9) for m in range(4)]
    out += [Improve(a) for a in ABILITY_NAMES]
    for name in board.house_names:
        for piece in "TM":
            out += [Place(name, piece), Drop(name, piece), Relocate(name, piece)]
            out += [Displace(name, piece, pay) for pay in ("T", "M", "TT", "TM", "MM")]
        out += [Lift(name), LiftExtra(name), Remove(name)]
    for r in board.routes:
        out.append(PlaceMarker(r.code))
        out.append(Claim(r.code))
        for c in r.cities:
            code = board.cities[c].code
            out += [Claim(r.code, "office", code), Claim(r.code, "ability", code)]
            out += [Claim(r.code, "extra", code, p) for p in "TM"]
        out += [Claim(r.code, "table", colour) for colour in PRIVILEGE_COLOURS]
    for c in board.cities:
        out += [Swap(c.code, i) for i in range(1, max(2, len(c.offices)))]
        out.append(NeutralOffice(c.code))
    for p in board.provinces:
        out += [Pawn(p.code), Pawn(p.code, True)]
    # the Big Box modules (docs/rules.md §8)
    out += [Share("T"), Share("M")] + [TakeTribute(t, m) for t in range(3) for m in range(3)]
    out += [tile_move(t, a, b) for t in TILE_CODES for i, a in enumerate(MARKER_NAMES) for b in MARKER_NAMES[i:]]
    out += [UseExchange(seat, name) for seat in range(5) for name in MARKER_NAMES]
    for r in board.routes:
        out += [UseTribute(r.code), UseBlock(r.code)]
    for name in board.house_names:
        for piece in "TM":
            out += [Place(name, piece, pay) for pay in ("T", "M", "TT", "TM", "MM")]
    return out


def random_shifts(board: Board, rng: random.Random, n: int) -> list[Move]:
    names = board.house_names
    return [Shift(rng.choice(names), rng.choice(names)) for _ in range(n)]


def check_refused(state: GameState, legal: Iterable[Move], sample: Iterable[Move]) -> None:
    """Every move of ``sample`` that is not in ``legal`` is refused by ``play()`` and leaves the position unchanged."""
    legal_set = set(legal)
    before = state.key()
    for move in sample:
        if move in legal_set:
            continue
        with pytest.raises(IllegalMoveError):
            state.play(move)
        assert state.key() == before, f"{move} was refused but changed the state"
