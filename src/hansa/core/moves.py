"""Moves: small immutable values, one per atomic decision, with a text form and a JSON form.

Every move names board things by their public codes (houses ``"GRO-EMD:2"``, routes ``"GRO-EMD"``, cities
``"GRO"``, provinces ``"P05"``) and pieces by letter (``"T"`` Trader, ``"M"`` Merchant), so a move means the same
thing to a person, to a record file and to the engine.  ``str(move)`` is the text form (docs/notation.md);
:func:`parse_move` reads it back, :meth:`Move.to_json` / :func:`move_from_json` are the JSON form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from .constants import ABILITY_NAMES, MARKER_NAMES, PRIVILEGE_COLOURS, TILE_CODES
from .errors import MalformedMoveError

if TYPE_CHECKING:
    from .board import Board

PIECES = ("T", "M")
BENEFITS = ("nothing", "office", "extra", "ability", "table")
USABLE_MARKERS = ("+3", "+4", "remove3")


class Move:
    """Base class of all moves.  Subclasses are frozen dataclasses; equal moves compare and hash equal."""

    __slots__ = ()
    #: The ``"type"`` of the JSON form.
    type: ClassVar[str] = ""

    def text(self) -> str:
        """The move's text form (docs/notation.md)."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """The move's JSON form: ``{"type": ..., field: value, ...}``."""
        out: dict[str, Any] = {"type": self.type}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def __str__(self) -> str:
        return self.text()


def _pieces(traders: int, merchants: int) -> str:
    """A count of pieces as the notation writes it: ``3T``, ``2T1M``, ``1M``, ``0``."""
    return ((f"{traders}T" if traders else "") + (f"{merchants}M" if merchants else "")) or "0"


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of a move class, in order (cached: ``dataclasses.fields`` is slow)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass(frozen=True, slots=True)
class Income(Move):
    """Action: move ``traders`` + ``merchants`` pieces from stock to supply (docs/rules.md §2.2)."""

    type: ClassVar[str] = "income"
    traders: int
    merchants: int

    def text(self) -> str:
        return f"income {_pieces(self.traders, self.merchants)}"


@dataclass(frozen=True, slots=True)
class Place(Move):
    """Action: put a piece from the supply on a free house (§2.3).  ``pay`` names the extra pieces a Place on a
    route beside Block markers costs (§8.8), one per marker; ``None`` elsewhere."""

    type: ClassVar[str] = "place"
    house: str
    piece: str
    pay: str | None = None

    def text(self) -> str:
        if self.pay:
            return f"place {self.piece} {self.house} pay {self.pay}"
        return f"place {self.piece} {self.house}"


@dataclass(frozen=True, slots=True)
class Displace(Move):
    """Action: replace another owner's piece on ``house`` with own ``piece``; ``pay`` = penalty pieces (§2.4)."""

    type: ClassVar[str] = "displace"
    house: str
    piece: str
    pay: str

    def text(self) -> str:
        return f"displace {self.house} with {self.piece} pay {self.pay}"


@dataclass(frozen=True, slots=True)
class Lift(Move):
    """Move action (§2.5): lift one of the mover's own pieces from ``house`` (the first lift starts the action)."""

    type: ClassVar[str] = "lift"
    house: str

    def text(self) -> str:
        return f"lift {self.house}"


@dataclass(frozen=True, slots=True)
class Drop(Move):
    """Move action: put a lifted ``piece`` on a free house; the action ends when every lifted piece is down."""

    type: ClassVar[str] = "drop"
    house: str
    piece: str

    def text(self) -> str:
        return f"drop {self.piece} {self.house}"


@dataclass(frozen=True, slots=True)
class Claim(Move):
    """Action: claim a route (§2.6) and take one benefit.

    ``benefit`` is ``nothing``, ``office`` (``target`` = city code), ``extra`` (extra-office marker; ``target`` =
    city code, ``piece`` = the route piece that becomes the office), ``ability`` (``target`` = the ability city;
    ``ability`` names the track where the city offers two, East's Waren) or ``table`` (the Coellen table, or the
    map's special table; ``target`` = the space's colour).
    """

    type: ClassVar[str] = "claim"
    route: str
    benefit: str = "nothing"
    target: str | None = None
    piece: str | None = None
    ability: str | None = None

    def text(self) -> str:
        out = f"claim {self.route}"
        if self.benefit != "nothing":
            out += f" {self.benefit} {self.target}"
            if self.piece:
                out += f" {self.piece}"
            if self.ability:
                out += f" {self.ability}"
        return out


@dataclass(frozen=True, slots=True)
class Relocate(Move):
    """Displaced player: put a ``piece`` from hand (the displaced piece or an extra) on ``house`` (§2.4, step 3)."""

    type: ClassVar[str] = "relocate"
    house: str
    piece: str

    def text(self) -> str:
        return f"relocate {self.piece} {self.house}"


@dataclass(frozen=True, slots=True)
class TakeExtra(Move):
    """Displaced player: take an extra ``piece`` into hand, from the stock or, when it is empty, the supply."""

    type: ClassVar[str] = "take"
    piece: str

    def text(self) -> str:
        return f"take {self.piece}"


@dataclass(frozen=True, slots=True)
class LiftExtra(Move):
    """Displaced player with empty stock and supply: take an own piece from ``house`` as an extra piece."""

    type: ClassVar[str] = "take-from"
    house: str

    def text(self) -> str:
        return f"take {self.house}"


@dataclass(frozen=True, slots=True)
class Done(Move):
    """Stop an optional sequence: decline remaining relocation extras, or stop removing with Remove 3."""

    type: ClassVar[str] = "done"

    def text(self) -> str:
        return "done"


@dataclass(frozen=True, slots=True)
class UseMarker(Move):
    """Use a bonus marker that needs no argument: ``+3``, ``+4`` or ``remove3`` (§3.3)."""

    type: ClassVar[str] = "use"
    marker: str

    def text(self) -> str:
        return f"use {self.marker}"


@dataclass(frozen=True, slots=True)
class Improve(Move):
    """Use an Improve-ability marker on ``ability`` (keys, actions, privilege, book, bags)."""

    type: ClassVar[str] = "improve"
    ability: str

    def text(self) -> str:
        return f"use improve {self.ability}"


@dataclass(frozen=True, slots=True)
class Swap(Move):
    """Use a Swap-offices marker: exchange printed offices ``office`` and ``office + 1`` (1-based) of ``city``."""

    type: ClassVar[str] = "swap"
    city: str
    office: int

    def text(self) -> str:
        return f"use swap {self.city} {self.office}"


@dataclass(frozen=True, slots=True)
class Remove(Move):
    """Remove 3 in progress: take the piece on ``house`` back to its owner's supply."""

    type: ClassVar[str] = "remove"
    house: str

    def text(self) -> str:
        return f"remove {self.house}"


@dataclass(frozen=True, slots=True)
class Shift(Move):
    """Remove 3 in ``move`` mode (opt.remove3Mode=move): move an opponent's piece to a free house."""

    type: ClassVar[str] = "shift"
    house: str
    to: str

    def text(self) -> str:
        return f"shift {self.house} {self.to}"


@dataclass(frozen=True, slots=True)
class EndTurn(Move):
    """End the turn; unused actions are lost (§2.9)."""

    type: ClassVar[str] = "end"

    def text(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class PlaceMarker(Move):
    """End of turn: put the next replacement marker from the plate on ``route`` (§3.4)."""

    type: ClassVar[str] = "marker"
    route: str

    def text(self) -> str:
        return f"marker {self.route}"


@dataclass(frozen=True, slots=True)
class Pawn(Move):
    """Two-player pawn variant: put or move the pawn to ``province``; ``paid`` costs one action (§5.B)."""

    type: ClassVar[str] = "pawn"
    province: str
    paid: bool = False

    def text(self) -> str:
        return f"pawn {self.province}" + (" paid" if self.paid else "")

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "province": self.province, "paid": self.paid}


@dataclass(frozen=True, slots=True)
class NeutralOffice(Move):
    """Two-player neutral variant: the active player picks the city where a neutral claim's office goes (§5.A)."""

    type: ClassVar[str] = "neutral-office"
    city: str

    def text(self) -> str:
        return f"neutral {self.city}"


@dataclass(frozen=True, slots=True)
class Exchange(Move):
    """Expansion maps, permanent marker *move any 2*: the pieces on ``house`` and ``other`` exchange places."""

    type: ClassVar[str] = "exchange"
    house: str
    other: str

    def text(self) -> str:
        return f"exchange {self.house} {self.other}"


@dataclass(frozen=True, slots=True)
class Develop(Move):
    """East, permanent marker of Stralsund-Malmoe: develop the ``ability`` (always ``privilege``) at no cost."""

    type: ClassVar[str] = "develop"
    ability: str

    def text(self) -> str:
        return f"develop {self.ability}"


@dataclass(frozen=True, slots=True)
class GreenOffice(Move):
    """East, permanent marker of Malmoe-Visby: a ``piece`` from the supply becomes an office in the green
    ``city``, right of its offices."""

    type: ClassVar[str] = "green-office"
    city: str
    piece: str

    def text(self) -> str:
        return f"green {self.city} {self.piece}"


@dataclass(frozen=True, slots=True)
class TakeTile(Move):
    """Emperor's Favour (§8.3): give up the turn to take ``tile`` (``F-ACT`` ...) from the display, turning the
    unused markers ``first`` and ``second`` face down."""

    type: ClassVar[str] = "tile"
    tile: str
    first: str
    second: str

    def text(self) -> str:
        return f"tile {self.tile} {self.first} {self.second}"


@dataclass(frozen=True, slots=True)
class Share(Move):
    """Emperor's Favour, F-INC (§8.4): the tile's owner takes a ``piece`` from the stock after another player's
    Income (``done`` declines)."""

    type: ClassVar[str] = "share"
    piece: str

    def text(self) -> str:
        return f"share {self.piece}"


@dataclass(frozen=True, slots=True)
class TakeTribute(Move):
    """Tribute marker (§8.7): its owner takes ``traders`` + ``merchants`` pieces (2, or what the stock has) from
    the stock."""

    type: ClassVar[str] = "tribute"
    traders: int
    merchants: int

    def text(self) -> str:
        return f"tribute {_pieces(self.traders, self.merchants)}"


@dataclass(frozen=True, slots=True)
class UseTribute(Move):
    """Use a Tribute marker (§8.7): put it beside ``route`` with a Trader from the supply."""

    type: ClassVar[str] = "use-tribute"
    route: str

    def text(self) -> str:
        return f"use tribute {self.route}"


@dataclass(frozen=True, slots=True)
class UseBlock(Move):
    """Use a Block marker (§8.8): put it beside ``route`` with a Trader from the supply."""

    type: ClassVar[str] = "use-block"
    route: str

    def text(self) -> str:
        return f"use block {self.route}"


@dataclass(frozen=True, slots=True)
class UseExchange(Move):
    """Use an Exchange marker (§8.6): take the used ``marker`` of the player at ``seat`` (0-based)."""

    type: ClassVar[str] = "use-exchange"
    seat: int
    marker: str

    def text(self) -> str:
        return f"use exchange {self.seat} {self.marker}"


def tile_move(tile: str, first: str, second: str) -> TakeTile:
    """A :class:`TakeTile` with its two markers in the canonical order (the order of ``MARKER_NAMES``)."""
    a, b = sorted((first, second), key=lambda n: MARKER_NAMES.index(n) if n in MARKER_NAMES else 99)
    return TakeTile(tile, a, b)


MOVE_TYPES: dict[str, type[Move]] = {
    cls.type: cls
    for cls in (
        Income, Place, Displace, Lift, Drop, Claim, Relocate, TakeExtra, LiftExtra, Done,
        UseMarker, Improve, Swap, Remove, Shift, EndTurn, PlaceMarker, Pawn, NeutralOffice,
        Exchange, Develop, GreenOffice, TakeTile, Share, TakeTribute, UseTribute, UseBlock, UseExchange,
    )
}

# ---------------------------------------------------------------------------------------------- parsing

_HOUSE = re.compile(r"^([A-Z]{1,3})-([A-Z]{1,3}):([1-9])$")
_ROUTE = re.compile(r"^([A-Z]{1,3})-([A-Z]{1,3})$")
_CITY = re.compile(r"^[A-Z]{1,3}$")
_PROVINCE = re.compile(r"^P[0-9]{2}$")
_INCOME = re.compile(r"^(?:(\d+)T)?(?:(\d+)M)?$")
_PAY = re.compile(r"^[TM]{1,2}$")


def _bad(text: str, why: str) -> MalformedMoveError:
    return MalformedMoveError(f"cannot read move {text!r}: {why}")


def _route(token: str, text: str, board: Board | None) -> str:
    token = token.upper()
    if not _ROUTE.match(token):
        raise _bad(text, f"{token!r} is not a route (like GRO-EMD)")
    if board is not None:
        if token in board.route_index:
            return token
        a, b = token.split("-")
        if f"{b}-{a}" in board.route_index:
            return f"{b}-{a}"
        raise _bad(text, f"there is no route {token} on the {board.side} board")
    return token


def _house(token: str, text: str, board: Board | None) -> str:
    token = token.upper()
    m = _HOUSE.match(token)
    if not m:
        raise _bad(text, f"{token!r} is not a house (like GRO-EMD:2)")
    if board is not None:
        a, b, pos = m.group(1), m.group(2), int(m.group(3))
        code = _route(f"{a}-{b}", text, board)
        route = board.route(code)
        if code != f"{a}-{b}":  # written in reverse direction: count houses from the other end
            pos = route.spaces + 1 - pos
        if not 1 <= pos <= route.spaces:
            raise _bad(text, f"route {code} has {route.spaces} houses, not {m.group(3)}")
        return f"{code}:{pos}"
    return token


def _piece(token: str, text: str) -> str:
    token = token.upper()
    if token not in PIECES:
        raise _bad(text, f"{token!r} is not a piece (T for Trader, M for Merchant)")
    return token


def _city(token: str, text: str, board: Board | None) -> str:
    token = token.upper()
    if not _CITY.match(token):
        raise _bad(text, f"{token!r} is not a city code (like GRO)")
    if board is not None and token not in board.city_index:
        raise _bad(text, f"there is no city {token}")
    return token


def _counts(token: str, text: str, usage: str) -> tuple[int, int]:
    """(Traders, Merchants) of a count of pieces (``3T``, ``2T1M``, ``0``), as :func:`_pieces` writes it."""
    if token == "0":
        return 0, 0
    m = _INCOME.match(token.upper())
    if not m or not token:
        raise _bad(text, usage)
    return int(m.group(1) or 0), int(m.group(2) or 0)


def parse_move(text: str, board: Board | None = None) -> Move:
    """Read a move from its text form.  With ``board``, route and house names are checked and a route written
    in the reverse direction (``EMD-GRO:1``) is normalised to the board's direction (``GRO-EMD:3``)."""
    if not isinstance(text, str):
        raise MalformedMoveError(f"a move's text form must be a string, not {type(text).__name__}")
    words = text.split()
    if not words:
        raise _bad(text, "empty text")
    verb, args = words[0].lower(), words[1:]

    def need(n: int, usage: str) -> None:
        if len(args) != n:
            raise _bad(text, f"expected `{usage}`")

    if verb == "income":
        need(1, "income 3T | income 2T1M")
        return Income(*_counts(args[0], text, "expected `income 3T` or `income 2T1M`"))
    if verb == "place":
        if len(args) == 4 and args[2].lower() == "pay":
            pay = args[3].upper()
            if not _PAY.match(pay):
                raise _bad(text, "the Block surcharge is one or two pieces, like T, M, TT or TM")
            return Place(_house(args[1], text, board), _piece(args[0], text), "".join(sorted(pay, reverse=True)))
        need(2, "place T GRO-EMD:2 | place T GRO-EMD:2 pay T")
        return Place(_house(args[1], text, board), _piece(args[0], text))
    if verb == "displace":
        need(5, "displace GRO-EMD:2 with T pay TM")
        if args[1].lower() != "with" or args[3].lower() != "pay":
            raise _bad(text, "expected `displace GRO-EMD:2 with T pay TM`")
        pay = args[4].upper()
        if not _PAY.match(pay):
            raise _bad(text, "the penalty is one or two pieces, like T, M, TT or TM")
        return Displace(_house(args[0], text, board), _piece(args[2], text), "".join(sorted(pay, reverse=True)))
    if verb == "lift":
        need(1, "lift GRO-EMD:2")
        return Lift(_house(args[0], text, board))
    if verb == "drop":
        need(2, "drop T GRO-EMD:2")
        return Drop(_house(args[1], text, board), _piece(args[0], text))
    if verb == "claim":
        if not args:
            raise _bad(text, "expected `claim GRO-EMD [benefit ...]`")
        route = _route(args[0], text, board)
        if len(args) == 1 or (len(args) == 2 and args[1].lower() == "nothing"):
            return Claim(route)
        benefit = args[1].lower()
        if benefit == "ability" and len(args) == 4:
            ability = args[3].lower()
            if ability not in ABILITY_NAMES:
                raise _bad(text, f"{args[3]!r} is not an ability; abilities are {', '.join(ABILITY_NAMES)}")
            return Claim(route, benefit, _city(args[2], text, board), None, ability)
        if benefit in ("office", "ability"):
            need(3, f"claim {route} {benefit} CITY" + (" [ABILITY]" if benefit == "ability" else ""))
            return Claim(route, benefit, _city(args[2], text, board))
        if benefit == "extra":
            need(4, f"claim {route} extra CITY T|M")
            return Claim(route, benefit, _city(args[2], text, board), _piece(args[3], text))
        if benefit == "table":
            need(3, f"claim {route} table white|orange|pink|black")
            colour = args[2].lower()
            if colour not in PRIVILEGE_COLOURS:
                raise _bad(text, f"{args[2]!r} is not a Coellen table colour")
            return Claim(route, benefit, colour)
        raise _bad(text, f"unknown benefit {args[1]!r}; benefits are {', '.join(BENEFITS)}")
    if verb == "relocate":
        need(2, "relocate T GRO-EMD:2")
        return Relocate(_house(args[1], text, board), _piece(args[0], text))
    if verb == "take":
        need(1, "take T | take GRO-EMD:2")
        if args[0].upper() in PIECES:
            return TakeExtra(args[0].upper())
        return LiftExtra(_house(args[0], text, board))
    if verb == "done":
        need(0, "done")
        return Done()
    if verb == "use":
        if not args:
            raise _bad(
                text,
                "expected `use +3 | use +4 | use remove3 | use improve ABILITY | use swap CITY N | use tribute ROUTE "
                "| use block ROUTE | use exchange SEAT MARKER`",
            )
        what = args[0].lower()
        if what in ("tribute", "block"):
            need(2, f"use {what} GRO-EMD")
            route = _route(args[1], text, board)
            return UseTribute(route) if what == "tribute" else UseBlock(route)
        if what == "exchange":
            need(3, "use exchange SEAT MARKER")
            if not args[1].isdigit() or int(args[1]) > 4:
                raise _bad(text, "the seat is a number from 0 to 4")
            if args[2].lower() not in MARKER_NAMES:
                raise _bad(text, f"{args[2]!r} is not a bonus marker; markers are {', '.join(MARKER_NAMES)}")
            return UseExchange(int(args[1]), args[2].lower())
        if what in USABLE_MARKERS:
            need(1, f"use {what}")
            return UseMarker(what)
        if what == "improve":
            need(2, "use improve keys|actions|privilege|book|bags")
            ability = args[1].lower()
            if ability not in ABILITY_NAMES:
                raise _bad(text, f"{args[1]!r} is not an ability; abilities are {', '.join(ABILITY_NAMES)}")
            return Improve(ability)
        if what == "swap":
            need(3, "use swap CITY N")
            if not args[2].isdigit() or int(args[2]) < 1:
                raise _bad(text, "the office number is 1 or more")
            return Swap(_city(args[1], text, board), int(args[2]))
        raise _bad(text, f"unknown marker {args[0]!r}")
    if verb == "tile":
        need(3, "tile F-ACT +3 improve")
        tile = args[0].upper()
        if tile not in TILE_CODES:
            raise _bad(text, f"{args[0]!r} is not an Emperor's Favour tile; tiles are {', '.join(TILE_CODES)}")
        for name in args[1:]:
            if name.lower() not in MARKER_NAMES:
                raise _bad(text, f"{name!r} is not a bonus marker; markers are {', '.join(MARKER_NAMES)}")
        return tile_move(tile, args[1].lower(), args[2].lower())
    if verb == "share":
        need(1, "share T | share M")
        return Share(_piece(args[0], text))
    if verb == "tribute":
        need(1, "tribute 2T | tribute 1T1M | tribute 2M")
        return TakeTribute(*_counts(args[0], text, "expected `tribute 2T`, `tribute 1T1M` or `tribute 2M`"))
    if verb == "remove":
        need(1, "remove GRO-EMD:2")
        return Remove(_house(args[0], text, board))
    if verb == "shift":
        need(2, "shift GRO-EMD:2 HAM-LUB:1")
        return Shift(_house(args[0], text, board), _house(args[1], text, board))
    if verb == "end":
        need(0, "end")
        return EndTurn()
    if verb == "marker":
        need(1, "marker OSN-BRE")
        return PlaceMarker(_route(args[0], text, board))
    if verb == "neutral":
        need(1, "neutral CITY")
        return NeutralOffice(_city(args[0], text, board))
    if verb == "exchange":
        need(2, "exchange WIS-STR:2 LUB-WIS:1")
        return Exchange(_house(args[0], text, board), _house(args[1], text, board))
    if verb == "develop":
        need(1, "develop privilege")
        if args[0].lower() != "privilege":
            raise _bad(text, "only privilege is developed by a permanent marker")
        return Develop("privilege")
    if verb == "green":
        need(2, "green WAR T|M")
        return GreenOffice(_city(args[0], text, board), _piece(args[1], text))
    if verb == "pawn":
        if len(args) not in (1, 2) or (len(args) == 2 and args[1].lower() != "paid"):
            raise _bad(text, "expected `pawn P05` or `pawn P05 paid`")
        province = args[0].upper()
        if not _PROVINCE.match(province) or (board is not None and province not in board.province_index):
            raise _bad(text, f"{args[0]!r} is not a province")
        return Pawn(province, len(args) == 2)
    raise _bad(text, f"unknown move {words[0]!r}")


def move_from_json(data: Any, board: Board | None = None) -> Move:
    """Read a move from its JSON form (a mapping with ``"type"``), checking every field."""
    if not isinstance(data, dict):
        raise MalformedMoveError(f"a move's JSON form must be an object, not {type(data).__name__}")
    kind = data.get("type")
    cls = MOVE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedMoveError(f"unknown move type {kind!r}; types are {', '.join(MOVE_TYPES)}")
    names = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    extra = set(data) - set(names) - {"type"}
    if extra:
        raise MalformedMoveError(f"move type {kind!r} has no field(s) {', '.join(sorted(extra))}")
    values = {k: v for k, v in data.items() if k != "type"}
    for name, f in names.items():
        if name not in values and f.default is f.default_factory:
            raise MalformedMoveError(f"move type {kind!r} needs field {name!r}")
        if name in values:
            v = values[name]
            expected = int if name in ("traders", "merchants", "office", "seat") else bool if name == "paid" else str
            if type(v) is not expected and not (v is None and f.default is None):
                raise MalformedMoveError(f"field {name!r} of a {kind!r} move must be {expected.__name__}, not {v!r}")
    move = cls(**values)
    # Round-trip through the text form so both forms obey one grammar (and get the board's normalisation).
    return parse_move(move.text(), board)
