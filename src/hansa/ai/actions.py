"""A fixed, versioned enumeration of every atomic decision on a board side: the action space of the AI adapters.

Every move a player can make on a board has one index, built from the board's topology in a documented order
(``docs/ai.md``): the families below, each laid out over the board's houses, routes, cities or provinces in their
data order.  Move 3's shift (take a piece from one house to another) is a two-step decision: ``shift-from``
picks the piece, then ``shift-to`` its new house, so the space grows with the houses, not with their square.

The expansion maps (East, Britannia: docs/rules-expansions.md) have their own index per board side: the same
families over that board, then families only they have (:data:`EXPANSION_FAMILIES`): Waren's claim naming the
ability, the permanent markers' exchange (two steps again, ``exchange-from`` then ``exchange-to``), Privilege
developed, an office in a green city, and swaps in a green city.  The base sides' index is unchanged.

A game with the Big Box modules (options ``missions``, ``emperors_favour``, ``marker_supply``: docs/rules-modules.md)
has the index of its board side and module set: the same families, then :data:`MODULE_FAMILIES` (taking an Emperor's
Favour tile, F-INC's share, a Tribute's payment, using Tribute, Block and Exchange markers, a Place paying the Block
surcharge), empty for a module the game does not use.  A game without the modules keeps its board side's index.

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
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.board import Board, load_board
from ..core.constants import (
    ABILITY_NAMES,
    MARKER_NAMES,
    MERCHANTS_PER_PLAYER,
    PRIVILEGE_COLOURS,
    TILE_CODES,
    TRADERS_PER_PLAYER,
)
from ..core.features import action_flags
from ..core.moves import (
    Claim,
    Develop,
    Displace,
    Done,
    Drop,
    EndTurn,
    Exchange,
    GreenOffice,
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
    TakeTile,
    TakeTribute,
    UseBlock,
    UseExchange,
    UseMarker,
    UseTribute,
    tile_move,
)
from ..core.options import GameOptions
from ..core.state import GameState

#: Bumped whenever the enumeration changes: a model trained on one version refuses another.  (The expansion boards'
#: families came later without changing the base sides' enumeration, so the version stayed.)
VERSION = 1

#: Offices of a green city (East) whose neighbours' swaps have an index: positions 1..GREEN_SWAPS of the city's row
#: (extra offices, then the permanent marker's offices).  A row holds at most 6 offices: extra offices come only from
#: extra-office markers (at most 4 in the face-down supply of any marker set, plus the tavern's one) and the right
#: ones only from the one-time *office in a green city* marker; so every swap has an index, with room to spare
#: (tests/test_ai_actions.py checks the bound).
GREEN_SWAPS = 7

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

#: The families only the expansion boards have, after the base ones (empty where the board lacks the feature).
EXPANSION_FAMILIES = (
    ("claim-ability", "route x ability of a two-ability city at its end (East's Waren: actions, bags)"),
    ("exchange-from", "house (first step of a move-any-2 exchange)"),
    ("exchange-to", "house (second step)"),
    ("develop", "one: develop Privilege (permanent marker), on a board with that marker"),
    ("green-office", "green city x piece (T, M): the permanent marker's office"),
    ("green-swap", f"green city x office 1..{GREEN_SWAPS} of its row (swapped with the next)"),
)

#: The Big Box modules (docs/rules-modules.md), by option name, in the order a configuration names them.
MODULES = ("missions", "emperors_favour", "marker_supply")
#: Marker types a tile's pair names without / with the promo markers (``MARKER_NAMES`` order).
BASE_MARKER_TYPES = 6
#: Seats an Exchange may name (0-based, the game's seat order).
EXCHANGE_SEATS = 5
#: The Block surcharges a Place may name: one piece per Block marker beside the route, at most 2 Blocks in any game
#: (``marker_supply`` names at most 2), Traders first as the engine writes them.
PLACE_PAYS = ("T", "M", "TT", "TM", "MM")
#: The tribute payments: two pieces, or what the Stock holds (1 piece, none).
TRIBUTES = ((2, 0), (1, 1), (0, 2), (1, 0), (0, 1), (0, 0))

#: The families a game with the Big Box modules has, after all the others (each empty when its module is off:
#: ``tile`` and ``share`` need ``emperors_favour``, the others ``marker_supply``).
MODULE_FAMILIES = (
    ("tile", "tile (F-FREE, F-ACT, F-INC, F-TWO, F-CITY, F-ABIL) x unordered pair of marker types (the 6 base types, "
             "all 9 with marker_supply; MARKER_NAMES order)"),
    ("share", "piece (T, M): F-INC's owner takes it from the stock (done declines)"),
    ("tribute", "payment: 2T, 1T1M, 2M, 1T, 1M, 0"),
    ("use-tribute", "route"),
    ("use-block", "route"),
    ("use-exchange", f"seat 0-{EXCHANGE_SEATS - 1} x marker type (9)"),
    ("place-pay", "house x piece (T, M) x Block surcharge: " + ", ".join(PLACE_PAYS)),
)

Mask = npt.NDArray[np.bool_]

#: Move classes the engine hands out as the same (interned) objects every time (hansa.core.movetable and the move
#: generator's constants): worth remembering by identity.  Claims, improvements, marker placements, shifts and
#: exchanges are made afresh and looked up by value (so are green cities' swaps, unlike the printed offices' ones).
_INTERNED = (
    Income, Place, Displace, Lift, Drop, Relocate, LiftExtra, Remove, Pawn, Swap, EndTurn, Done, TakeExtra, UseMarker,
    Develop, Share,
)


def game_modules(options: GameOptions) -> tuple[str, ...]:
    """The Big Box modules a game's options turn on (:data:`MODULES` order): ``missions``, ``emperors_favour``,
    ``marker_supply`` (given at all, whatever it names)."""
    if not (options.missions or options.emperors_favour or options.marker_supply is not None):
        return ()
    on = (options.missions, options.emperors_favour, options.marker_supply is not None)
    return tuple(name for name, flag in zip(MODULES, on) if flag)


def check_modules(modules: tuple[str, ...] | list[str] | frozenset[str]) -> tuple[str, ...]:
    """``modules`` as the canonical tuple (:data:`MODULES` order); ``ValueError`` for an unknown name."""
    unknown = set(modules) - set(MODULES)
    if unknown:
        raise ValueError(f"unknown module(s) {', '.join(sorted(unknown))}; the modules are {', '.join(MODULES)}")
    return tuple(name for name in MODULES if name in modules)


def config_name(side: str, modules: tuple[str, ...]) -> str:
    """The name of a board side with a module set: ``"2-3"``, ``"2-3+missions+emperors_favour+marker_supply"``."""
    return side + "".join(f"+{m}" for m in modules)


@dataclass(frozen=True, slots=True)
class ShiftFrom:
    """The first half of a shift: the piece on ``house`` is chosen; its destination comes next."""

    house: str


@dataclass(frozen=True, slots=True)
class ExchangeFrom:
    """The first half of an exchange (*move any 2*): the piece on ``house`` is chosen; the other piece comes next."""

    house: str


@dataclass(frozen=True, slots=True)
class ExchangeTo:
    """The second half of an exchange: the piece on ``house`` trades places with the chosen one."""

    house: str


Item = Move | ShiftFrom | ExchangeFrom | ExchangeTo | str


class ActionIndex:
    """The action space of one board side: ``size`` indices, each one move (or one half of a shift)."""

    def __init__(self, board: Board, modules: tuple[str, ...] = ()) -> None:
        self.board = board
        self.side = board.side
        #: The Big Box modules of the games this index serves (docs/rules-modules.md), :data:`MODULES` order.
        self.modules = check_modules(modules)
        #: The board side and the modules: ``"2-3"``, ``"4-5+emperors_favour+marker_supply"``, ...
        self.config = config_name(self.side, self.modules)
        entries: list[tuple[str, Item]] = []
        self.families: dict[str, range] = {}

        def family(name: str, items: list[Item]) -> None:
            start = len(entries)
            entries.extend((name, item) for item in items)
            self.families[name] = range(start, len(entries))

        houses = board.house_names
        family("income", [Income(t, m) for t in range(TRADERS_PER_PLAYER + 1) for m in range(MERCHANTS_PER_PLAYER + 1)])
        family("place", [Place(h, k) for k in "TM" for h in houses])
        family("displace", [Displace(h, k, pay) for h in houses for k in "TM" for pay in ("T", "M", "TT", "TM", "MM")])
        family("lift", [Lift(h) for h in houses])
        family("drop", [Drop(h, k) for k in "TM" for h in houses])
        claims: list[Item] = []
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
        if board.expansion:
            self._expansion_families(board, family)
        if self.modules:
            self._module_families(board, self.modules, family)
        self.size = len(entries)
        self._items = [item for _, item in entries]
        #: The move of every index that is one by itself (``move(i)`` without a pending step), None for the others.
        self.plain: list[Move | None] = [item if isinstance(item, Move) else None for item in self._items]
        self._index: dict[Item, int] = {
            item: i for i, (_, item) in enumerate(entries) if not isinstance(item, str)
        }
        self._house = {h: i for i, h in enumerate(houses)}
        #: index by id() of move objects met before (interned by the engine, kept alive in _keep)
        self._by_id: dict[int, int] = {}
        self._keep: list[Move] = []
        self._shift_from = self.families["shift-from"].start
        self._shift_to = self.families["shift-to"].start
        exchange = self.families.get("exchange-from")
        self._exchange_from = exchange.start if exchange else -1
        self._exchange_to = self.families["exchange-to"].start if exchange else -1
        self._green = frozenset(board.cities[c].code for c in board.green_cities)
        #: indices whose moves the engine makes afresh although their class is interned elsewhere (green swaps, a
        #: Place paying the Block surcharge)
        self._fresh = tuple(self.families[name] for name in ("green-swap", "place-pay") if name in self.families)
        self.labels: tuple[str, ...] = tuple(self._label(name, item) for name, item in entries)
        digest = hashlib.sha256(f"hansa-actions/{VERSION}/{self.config}\n".encode())
        digest.update("\n".join(self.labels).encode())
        #: ``hansa-actions/<version>/<config>/<size>/<hash>``: what a model trained on this index records; ``config``
        #: is the board side, followed by ``+module`` for each Big Box module the games use.
        self.fingerprint = f"hansa-actions/{VERSION}/{self.config}/{self.size}/{digest.hexdigest()[:16]}"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and deep-copied) as its board and modules: the receiving process uses its own cached index, whose
        lookup of the engine's interned moves by identity is valid there (:mod:`hansa.core.pickling`)."""
        return _for_config, (self.board, self.modules)

    @staticmethod
    def _expansion_families(board: Board, family: Callable[[str, list[Item]], None]) -> None:
        """The families of :data:`EXPANSION_FAMILIES` over an expansion board."""
        houses = board.house_names
        effects = {r.permanent for r in board.routes}
        green = [board.cities[c].code for c in board.green_cities]
        family("claim-ability", [
            Claim(r.code, "ability", board.cities[c].code, None, ABILITY_NAMES[a])
            for r in board.routes for c in r.cities if len(board.cities[c].abilities) > 1
            for a in board.cities[c].abilities
        ])
        moves_any = "move_any_2" in effects
        family("exchange-from", [ExchangeFrom(h) for h in houses] if moves_any else [])
        family("exchange-to", [ExchangeTo(h) for h in houses] if moves_any else [])
        family("develop", [Develop("privilege")] if "develop_privilege" in effects else [])
        family("green-office", [GreenOffice(c, k) for c in green for k in "TM"])
        family("green-swap", [Swap(c, i) for c in green for i in range(1, GREEN_SWAPS + 1)])

    @staticmethod
    def _module_families(board: Board, modules: tuple[str, ...], family: Callable[[str, list[Item]], None]) -> None:
        """The families of :data:`MODULE_FAMILIES` (each empty when its module is off)."""
        favour = "emperors_favour" in modules
        promo = "marker_supply" in modules
        types = MARKER_NAMES if promo else MARKER_NAMES[:BASE_MARKER_TYPES]
        pairs = [(a, b) for i, a in enumerate(types) for b in types[i:]]
        family("tile", [tile_move(t, a, b) for t in TILE_CODES for a, b in pairs] if favour else [])
        family("share", [Share(k) for k in "TM"] if favour else [])
        family("tribute", [TakeTribute(t, m) for t, m in TRIBUTES] if promo else [])
        family("use-tribute", [UseTribute(r.code) for r in board.routes] if promo else [])
        family("use-block", [UseBlock(r.code) for r in board.routes] if promo else [])
        family("use-exchange", [UseExchange(q, m) for q in range(EXCHANGE_SEATS) for m in MARKER_NAMES] if promo else [])
        family("place-pay", [
            Place(h, k, pay) for h in board.house_names for k in "TM" for pay in PLACE_PAYS
        ] if promo else [])

    @staticmethod
    def _label(family: str, item: Item) -> str:
        if isinstance(item, ShiftFrom):
            return f"shift-from {item.house}"
        if isinstance(item, ExchangeFrom):
            return f"exchange-from {item.house}"
        if isinstance(item, ExchangeTo):
            return f"exchange-to {item.house}"
        if isinstance(item, str):
            return f"shift-to {item}"
        return item.text()

    @classmethod
    def for_side(cls, side: str, modules: tuple[str, ...] | list[str] | frozenset[str] = ()) -> ActionIndex:
        """The (cached) index of a printed board side (``"2-3"``, ``"4-5"``, ``"east"``, ...) for games with the Big
        Box ``modules`` (:data:`MODULES` names; none by default)."""
        board = load_board(side)
        return _for_config(board, check_modules(modules)) if modules else _for_board(board)

    @classmethod
    def for_state(cls, state: GameState) -> ActionIndex:
        """The (cached) index of the game's board and Big Box modules."""
        modules = game_modules(state.options)
        return _for_config(state.board, modules) if modules else _for_board(state.board)

    def check(self, fingerprint: str) -> None:
        """Refuse an index a model was not trained on (another board side, module set or version)."""
        if fingerprint != self.fingerprint:
            raise ValueError(f"action index mismatch: the model was trained on {fingerprint}, this is {self.fingerprint}")

    def family_of(self, i: int) -> str:
        """The family name of index ``i``."""
        for name, span in self.families.items():
            if i in span:
                return name
        raise IndexError(i)

    def index(self, move: Move | ShiftFrom | ExchangeFrom) -> int:
        """The index of a move (a shift or an exchange has two: use :meth:`indices`)."""
        if isinstance(move, Shift | Exchange):
            raise ValueError(f"a {move.type} is two decisions: use indices(move)")
        if isinstance(move, TakeTile):
            move = tile_move(move.tile, move.first, move.second)  # the two markers in their canonical order
        try:
            return self._index[move]
        except KeyError:
            raise ValueError(f"{move!r} has no index on the {self.side} side") from None

    def indices(self, move: Move) -> tuple[int, ...]:
        """The decisions that make ``move``: one index, or for a shift ``(shift-from, shift-to)``, for an exchange
        ``(exchange-from, exchange-to)``."""
        if isinstance(move, Shift):
            return self._shift_from + self._house[move.house], self._shift_to + self._house[move.to]
        if isinstance(move, Exchange):
            if self._exchange_from < 0:
                raise ValueError(f"{move!r} has no index on the {self.side} side")
            return self._exchange_from + self._house[move.house], self._exchange_to + self._house[move.other]
        return (self.index(move),)

    def move(self, i: int, pending: int | None = None) -> Move | None:
        """The move of index ``i``; ``None`` for a shift-from or an exchange-from (the decision goes on: pass
        ``pending=i`` to the next :meth:`mask` and :meth:`move`).  A shift-to needs the pending shift-from, an
        exchange-to the pending exchange-from."""
        if not 0 <= i < self.size:
            raise IndexError(f"action {i} is outside 0..{self.size - 1}")
        item = self._items[i]
        if isinstance(item, ShiftFrom | ExchangeFrom):
            return None
        src = self._items[pending] if pending is not None and 0 <= pending < self.size else None
        if isinstance(item, str):
            if not isinstance(src, ShiftFrom):
                raise ValueError("a shift-to needs the shift-from chosen before it (pending)")
            return Shift(src.house, item)
        if isinstance(item, ExchangeTo):
            if not isinstance(src, ExchangeFrom):
                raise ValueError("an exchange-to needs the exchange-from chosen before it (pending)")
            return Exchange(src.house, item.house)
        if pending is not None:
            raise ValueError("after a shift-from only a shift-to may follow, after an exchange-from an exchange-to")
        return item

    def _index_of(self, m: Move) -> int:
        """The index of one move (a shift's shift-from, an exchange's exchange-from) by value; an interned move is
        remembered by identity.  -1 for a swap in a green city beyond :data:`GREEN_SWAPS` (which no game reaches)."""
        if type(m) is Shift:
            return self._shift_from + self._house[m.house]
        if type(m) is Exchange:
            return self._exchange_from + self._house[m.house]
        i = self._index.get(m, -1)
        if i < 0:
            if type(m) is Swap and m.city in self._green:
                return -1
            raise ValueError(f"{m!r} has no index on the {self.side} side")
        if type(m) in _INTERNED and not any(i in fresh for fresh in self._fresh) and len(self._by_id) < 20_000:
            self._by_id[id(m)] = i
            self._keep.append(m)  # the id stays valid while the object lives
        return i

    def _flags(self, moves: list[Move]) -> bytearray:
        """One byte per index, 1 for the first step of every move.  The engine hands out the same interned objects
        for house moves every time: the compiled core finds those by identity, the few others are looked up here."""
        flags, missed = action_flags(moves, self._by_id, self.size)
        if missed:
            self._set_flags(flags, missed)
        return flags

    def _set_flags(self, flags: bytearray, missed: list[Move]) -> None:
        """Set the flags of the moves the compiled lookup by identity did not find (looked up by value)."""
        for m in missed:
            i = self._index_of(m)
            if i >= 0:
                flags[i] = 1

    def pending_house(self, pending: int | None) -> str | None:
        """The house of a pending shift-from (what the observation marks), or None."""
        item = self._items[pending] if pending is not None else None
        return item.house if isinstance(item, ShiftFrom) else None

    def pending_exchange(self, pending: int | None) -> str | None:
        """The house of a pending exchange-from (what the observation marks on an expansion board), or None."""
        item = self._items[pending] if pending is not None else None
        return item.house if isinstance(item, ExchangeFrom) else None

    def legal(self, state: GameState, pending: int | None = None, moves: list[Move] | None = None) -> list[int]:
        """The indices the deciding seat may choose now (sorted).  ``moves``: ``state.legal_moves()`` when the caller
        has it already."""
        if moves is None:
            moves = state.legal_moves()
        if pending is not None:
            src = self._items[pending]
            if isinstance(src, ShiftFrom):
                to = self._shift_to
                return sorted({to + self._house[m.to] for m in moves if isinstance(m, Shift) and m.house == src.house})
            if isinstance(src, ExchangeFrom):
                to = self._exchange_to
                return sorted({
                    to + self._house[m.other] for m in moves if isinstance(m, Exchange) and m.house == src.house
                })
            raise ValueError(f"pending must be a shift-from or an exchange-from index, not {self.labels[pending]!r}")
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


@cache
def _for_config(board: Board, modules: tuple[str, ...]) -> ActionIndex:
    return ActionIndex(board, modules) if modules else _for_board(board)
