"""A fixed, versioned enumeration of every atomic decision on a board side: the action space of the AI adapters.

Every move a player can make on a board has one index, built from the board's topology in a documented order
(``docs/ai.md``): the families below, each laid out over the board's houses, routes, cities or provinces in their
data order.  Move 3's shift (take a piece from one house to another) is the one two-step decision: ``shift-from``
picks the piece, then ``shift-to`` its new house, so the space grows with the houses, not with their square.

    >>> from hansa.core.state import GameState
    >>> state = GameState.new(3, seed=1)
    >>> actions = ActionIndex.for_state(state)
    >>> mask = actions.mask(state)                 # numpy bool array of actions.size
    >>> i = int(mask.nonzero()[0][0])
    >>> state.play(actions.move(i))                # or, for a shift-from, keep ``pending=i`` for the next mask

A trained model stores :attr:`ActionIndex.fingerprint` and calls :meth:`ActionIndex.check` on loading, so it refuses
an index of another board side or version.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from ..core.board import Board, load_board
from ..core.constants import ABILITY_NAMES, MERCHANTS_PER_PLAYER, PRIVILEGE_COLOURS, TRADERS_PER_PLAYER
from ..core.features import action_flags
from ..core.moves import (
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
)
from ..core.state import GameState

#: Bumped whenever the enumeration changes: a model trained on one version refuses another.
VERSION = 1

#: The families in index order, with what each is laid out over.
FAMILIES = (
    ("income", "traders 0-27 x merchants 0-4"),
    ("place", "piece (T, M) x house"),
    ("displace", "house x (piece, payment): T/T, T/M, T/TT, T/TM, T/MM, M/T, M/M, M/TT, M/TM, M/MM"),
    ("lift", "house"),
    ("drop", "piece x house"),
    ("claim", "route x benefit: nothing, office at either city, extra office at either city with T or M, "
              "ability at either city, Coellen table white/orange/pink/black"),
    ("relocate", "piece x house"),
    ("take", "piece"),
    ("take-from", "house"),
    ("done", "one"),
    ("use", "+3, +4, remove3"),
    ("improve", "ability: keys, actions, privilege, book, bags"),
    ("swap", "city x printed office 1..n-1 (swapped with the next)"),
    ("remove", "house"),
    ("shift-from", "house (first step of a Move-3 shift)"),
    ("shift-to", "house (second step)"),
    ("end", "one"),
    ("marker", "route"),
    ("pawn", "province x (free, paid)"),
    ("neutral-office", "city"),
)

Mask = npt.NDArray[np.bool_]

#: Move classes the engine hands out as the same (interned) objects every time (hansa.core.movetable and the move
#: generator's constants): worth remembering by identity.  Claims, improvements, marker placements and shifts are
#: made afresh and looked up by value.
_INTERNED = (Income, Place, Displace, Lift, Drop, Relocate, LiftExtra, Remove, Pawn, Swap, EndTurn, Done, TakeExtra, UseMarker)


@dataclass(frozen=True, slots=True)
class ShiftFrom:
    """The first half of a shift: the piece on ``house`` is chosen; its destination comes next."""

    house: str


class ActionIndex:
    """The action space of one board side: ``size`` indices, each one move (or one half of a shift)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.side = board.side
        entries: list[tuple[str, Move | ShiftFrom | str]] = []
        self.families: dict[str, range] = {}

        def family(name: str, items: list[Move | ShiftFrom | str]) -> None:
            start = len(entries)
            entries.extend((name, item) for item in items)
            self.families[name] = range(start, len(entries))

        houses = board.house_names
        family("income", [Income(t, m) for t in range(TRADERS_PER_PLAYER + 1) for m in range(MERCHANTS_PER_PLAYER + 1)])
        family("place", [Place(h, k) for k in "TM" for h in houses])
        family("displace", [Displace(h, k, pay) for h in houses for k in "TM" for pay in ("T", "M", "TT", "TM", "MM")])
        family("lift", [Lift(h) for h in houses])
        family("drop", [Drop(h, k) for k in "TM" for h in houses])
        claims: list[Move | ShiftFrom | str] = []
        for r in board.routes:
            ends = [board.cities[c].code for c in r.cities]
            claims.append(Claim(r.code))
            claims += [Claim(r.code, "office", c) for c in ends]
            claims += [Claim(r.code, "extra", c, k) for c in ends for k in "TM"]
            claims += [Claim(r.code, "ability", c) for c in ends]
            claims += [Claim(r.code, "table", colour) for colour in PRIVILEGE_COLOURS]
        family("claim", claims)
        family("relocate", [Relocate(h, k) for k in "TM" for h in houses])
        family("take", [TakeExtra(k) for k in "TM"])
        family("take-from", [LiftExtra(h) for h in houses])
        family("done", [Done()])
        family("use", [UseMarker(m) for m in ("+3", "+4", "remove3")])
        family("improve", [Improve(a) for a in ABILITY_NAMES])
        family("swap", [Swap(c.code, i) for c in board.cities for i in range(1, len(c.offices))])
        family("remove", [Remove(h) for h in houses])
        family("shift-from", [ShiftFrom(h) for h in houses])
        family("shift-to", list(houses))
        family("end", [EndTurn()])
        family("marker", [PlaceMarker(r.code) for r in board.routes])
        family("pawn", [Pawn(p.code, paid) for paid in (False, True) for p in board.provinces])
        family("neutral-office", [NeutralOffice(c.code) for c in board.cities])
        self.size = len(entries)
        self._items = [item for _, item in entries]
        self._index: dict[Move | ShiftFrom, int] = {
            item: i for i, (_, item) in enumerate(entries) if not isinstance(item, str)
        }
        self._house = {h: i for i, h in enumerate(houses)}
        #: index by id() of move objects met before (interned by the engine, kept alive in _keep)
        self._by_id: dict[int, int] = {}
        self._keep: list[Move] = []
        self._shift_from = self.families["shift-from"].start
        self._shift_to = self.families["shift-to"].start
        self.labels: tuple[str, ...] = tuple(self._label(name, item) for name, item in entries)
        digest = hashlib.sha256(f"hansa-actions/{VERSION}/{self.side}\n".encode())
        digest.update("\n".join(self.labels).encode())
        #: ``hansa-actions/<version>/<side>/<size>/<hash>``: what a model trained on this index records.
        self.fingerprint = f"hansa-actions/{VERSION}/{self.side}/{self.size}/{digest.hexdigest()[:16]}"

    @staticmethod
    def _label(family: str, item: Move | ShiftFrom | str) -> str:
        if isinstance(item, ShiftFrom):
            return f"shift-from {item.house}"
        if isinstance(item, str):
            return f"shift-to {item}"
        return item.text()

    @classmethod
    def for_side(cls, side: str) -> ActionIndex:
        """The (cached) index of a printed board side, ``"2-3"`` or ``"4-5"``."""
        return _for_board(load_board(side))

    @classmethod
    def for_state(cls, state: GameState) -> ActionIndex:
        """The (cached) index of the board the game is played on."""
        return _for_board(state.board)

    def check(self, fingerprint: str) -> None:
        """Refuse an index a model was not trained on (another board side or version)."""
        if fingerprint != self.fingerprint:
            raise ValueError(f"action index mismatch: the model was trained on {fingerprint}, this is {self.fingerprint}")

    def family_of(self, i: int) -> str:
        """The family name of index ``i``."""
        for name, span in self.families.items():
            if i in span:
                return name
        raise IndexError(i)

    def index(self, move: Move | ShiftFrom) -> int:
        """The index of a move (a shift has two: use :meth:`indices`)."""
        if isinstance(move, Shift):
            raise ValueError("a shift is two decisions: use indices(move)")
        try:
            return self._index[move]
        except KeyError:
            raise ValueError(f"{move!r} has no index on the {self.side} side") from None

    def indices(self, move: Move) -> tuple[int, ...]:
        """The decisions that make ``move``: one index, or for a shift ``(shift-from, shift-to)``."""
        if isinstance(move, Shift):
            return self._shift_from + self._house[move.house], self._shift_to + self._house[move.to]
        return (self.index(move),)

    def move(self, i: int, pending: int | None = None) -> Move | None:
        """The move of index ``i``; ``None`` for a shift-from (the decision goes on: pass ``pending=i`` to the next
        :meth:`mask` and :meth:`move`).  A shift-to needs the pending shift-from."""
        if not 0 <= i < self.size:
            raise IndexError(f"action {i} is outside 0..{self.size - 1}")
        item = self._items[i]
        if isinstance(item, ShiftFrom):
            return None
        if isinstance(item, str):
            if pending is None or not isinstance(self._items[pending], ShiftFrom):
                raise ValueError("a shift-to needs the shift-from chosen before it (pending)")
            src = self._items[pending]
            assert isinstance(src, ShiftFrom)
            return Shift(src.house, item)
        if pending is not None:
            raise ValueError("after a shift-from only a shift-to may follow")
        return item

    def _index_of(self, m: Move) -> int:
        """The index of one move (a shift's shift-from) by value; an interned move is remembered by identity."""
        if type(m) is Shift:
            return self._shift_from + self._house[m.house]
        i = self._index[m]
        if type(m) in _INTERNED and len(self._by_id) < 20_000:
            self._by_id[id(m)] = i
            self._keep.append(m)  # the id stays valid while the object lives
        return i

    def _flags(self, moves: list[Move]) -> bytearray:
        """One byte per index, 1 for the first step of every move.  The engine hands out the same interned objects
        for house moves every time: the compiled core finds those by identity, the few others are looked up here."""
        flags, missed = action_flags(moves, self._by_id, self.size)
        for m in missed:
            flags[self._index_of(m)] = 1
        return flags

    def pending_house(self, pending: int | None) -> str | None:
        """The house of a pending shift-from (what the observation marks), or None."""
        item = self._items[pending] if pending is not None else None
        return item.house if isinstance(item, ShiftFrom) else None

    def legal(self, state: GameState, pending: int | None = None, moves: list[Move] | None = None) -> list[int]:
        """The indices the deciding seat may choose now (sorted).  ``moves``: ``state.legal_moves()`` when the caller
        has it already."""
        if moves is None:
            moves = state.legal_moves()
        if pending is not None:
            src = self._items[pending]
            if not isinstance(src, ShiftFrom):
                raise ValueError(f"pending must be a shift-from index, not {self.labels[pending]!r}")
            return sorted({self._shift_to + self._house[m.to] for m in moves if isinstance(m, Shift) and m.house == src.house})
        return np.flatnonzero(np.frombuffer(self._flags(moves), dtype=np.bool_)).tolist()

    def mask(self, state: GameState, pending: int | None = None, moves: list[Move] | None = None) -> Mask:
        """``legal()`` as a bool array of ``size``.  ``moves``: ``state.legal_moves()`` when the caller has it
        already (it is not generated again)."""
        if moves is None:
            moves = state.legal_moves()
        if pending is None:
            return np.frombuffer(self._flags(moves), dtype=np.bool_)
        mask = np.zeros(self.size, dtype=np.bool_)
        mask[self.legal(state, pending, moves)] = True
        return mask


@cache
def _for_board(board: Board) -> ActionIndex:
    return ActionIndex(board)
