"""Interned move objects for one board side, so move generation allocates nothing on the hot path."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .board import Board
from .constants import MERCHANTS_PER_PLAYER, TRADERS_PER_PLAYER
from .moves import Displace, Drop, Income, Lift, LiftExtra, Pawn, Place, Relocate, Remove, Swap

_PAYS = (("T", "M"), ("TT", "TM", "MM"))  # penalty strings by (k - 1) and number of Merchants paid


@dataclass(frozen=True, slots=True)
class MoveTable:
    """Every house-addressed move of a board, indexed by ``[kind][house]`` or ``[house]``."""

    place: tuple[tuple[Place, ...], tuple[Place, ...]]
    drop: tuple[tuple[Drop, ...], tuple[Drop, ...]]
    relocate: tuple[tuple[Relocate, ...], tuple[Relocate, ...]]
    lift: tuple[Lift, ...]
    lift_extra: tuple[LiftExtra, ...]
    remove: tuple[Remove, ...]
    #: displace[house][kind][k - 1][merchants paid]
    displace: tuple[tuple[tuple[tuple[Displace, ...], ...], ...], ...]
    #: pawn[paid][province]
    pawn: tuple[tuple[Pawn, ...], tuple[Pawn, ...]]
    #: displace_options[house][(min(supply T, 3) * 4 + min(supply M, 3)) * 2 + k - 1]: every legal Displace there
    displace_options: tuple[tuple[tuple[Displace, ...], ...], ...]
    #: swap[city][i]: swap printed offices i and i + 1 (0-based) of the city
    swap: tuple[tuple[Swap, ...], ...]
    #: the moves a free house offers, by house: Place T, Place M, Drop T, Drop M (the order of ``free_moves``)
    free_house: tuple[tuple[Place, ...] | tuple[Drop, ...], ...]


#: INCOME[traders][merchants] for every amount an Income can take (Money bags "C" takes the whole stock)
INCOME = tuple(
    tuple(Income(t, m) for m in range(MERCHANTS_PER_PLAYER + 1)) for t in range(TRADERS_PER_PLAYER + 1)
)


def _displace_options(row: tuple[tuple[tuple[Displace, ...], ...], ...]) -> tuple[tuple[Displace, ...], ...]:
    out = []
    for t in range(4):
        for m in range(4):
            for k in (1, 2):
                options: list[Displace] = []
                if t + m >= 1 + k:
                    for kind in (0, 1):
                        rt, rm = t - (kind == 0), m - (kind == 1)
                        if rt < 0 or rm < 0:
                            continue
                        for pay_m in range(max(0, k - rt), min(k, rm) + 1):
                            options.append(row[kind][k - 1][pay_m])
                out.append(tuple(options))
    return tuple(out)


@cache
def move_table(board: Board) -> MoveTable:
    """The (cached) move table of a board."""
    names = board.house_names
    letters = ("T", "M")
    displace = tuple(
        tuple(tuple(tuple(Displace(n, letters[kind], pay) for pay in _PAYS[k]) for k in (0, 1)) for kind in (0, 1))
        for n in names
    )
    place = tuple(tuple(Place(n, letters[k]) for n in names) for k in (0, 1))
    drop = tuple(tuple(Drop(n, letters[k]) for n in names) for k in (0, 1))
    return MoveTable(
        place=place,  # type: ignore[arg-type]
        drop=drop,  # type: ignore[arg-type]
        relocate=tuple(tuple(Relocate(n, letters[k]) for n in names) for k in (0, 1)),  # type: ignore[arg-type]
        lift=tuple(Lift(n) for n in names),
        lift_extra=tuple(LiftExtra(n) for n in names),
        remove=tuple(Remove(n) for n in names),
        displace=displace,
        pawn=tuple(tuple(Pawn(p.code, paid) for p in board.provinces) for paid in (False, True)),  # type: ignore[arg-type]
        displace_options=tuple(_displace_options(row) for row in displace),
        swap=tuple(tuple(Swap(c.code, i + 1) for i in range(len(c.offices) - 1)) for c in board.cities),
        free_house=(*place, *drop),
    )
