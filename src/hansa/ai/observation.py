"""What one seat may know of a position, as numbers: a flat float32 vector and a structured (graph) form.

The observing seat is rotated to player slot 0 (the next seat in turn order is slot 1, ...), padded to 5 seats;
the neutral player of the two-player variant is slot 5 where pieces are concerned.  Only public information goes in
(everything in Hansa Teutonica is public except the face-down marker supply and the markers on the plates, which
appear as counts): two positions that differ only in hidden markers give identical observations.

Every field of the flat vector is listed, in order, by :attr:`ObservationSpec.fields` (name, size, meaning) and in
``docs/ai.md``.  Pieces are one-hot over 13 values: empty, Trader of slot 0..5, Merchant of slot 0..5.

On an expansion board (East, Britannia) the layout has the same fields (its phase block one wider, for the
permanent-marker phase) and then the expansion's own (:data:`EXPANSION_FIELDS`): the map's static facts (ship spaces,
countries, permanent markers, abilities, green cities, 2-point offices) and its state (green cities' offices, the
permanent marker being resolved, permissions, where the pieces in hand come from, a pending exchange).  The base
sides' observation is unchanged.

A game with the Big Box modules (options ``missions``, ``emperors_favour``, ``marker_supply``) has its own layout per
board and module set (:func:`spec_for_state`): the same fields (the phase block 12 wide for the phases SHARE and
TRIBUTE, the route markers one-hot over 9 types with ``marker_supply``), then :data:`MODULE_FIELDS`, empty for a
module the game does not use.  Its mission field holds the observing seat's own card only: two positions that differ
only in the other seats' cards give that seat identical observations.  A game without the modules keeps its board
side's observation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.board import COUNTRIES, PERMANENT_EFFECTS, SIDES, Board, load_board
from ..core.constants import ABILITY_MAX, MARKER_NAMES, MISSION_CARDS, TILE_CODES
from ..core.features import (
    EXPANSION_PHASES,
    MODULE_FAVOUR,
    MODULE_MISSIONS,
    MODULE_PHASES,
    MODULE_PROMO,
    PLAYER_WIDTH,
    SeatDelta,
    board_parts,
    observation_parts,
)
from ..core.position import Phase
from ..core.state import GameState
from .actions import GREEN_SWAPS, MODULES, check_modules, config_name

Vector = npt.NDArray[np.float32]

SLOTS = 5  #: player slots (padded)
PIECE = 13  #: one-hot piece: empty, T of slot 0-5, M of slot 0-5 (slot 5 = neutral)
OWNER = 7  #: one-hot owner: none, slot 0-5
MARKER_TYPES = 6  #: extra-office, swap, +3, +4, improve, remove3
#: Marker types with the promo markers (``marker_supply``): the six above, then exchange, tribute, block.
ALL_MARKER_TYPES = len(MARKER_NAMES)
#: Promo marker types (Exchange, Tribute, Block), counted in ``promo_markers``.
PROMO_TYPES = ALL_MARKER_TYPES - MARKER_TYPES
#: Mission cards (ids 1..9).
MISSIONS = len(MISSION_CARDS)
#: Places of a tile's one-hot: out of the game, on the display, owner slot 0-4.
TILE_PLACES = 2 + SLOTS
#: Phases of the base game (the expansion maps add Phase.PERMANENT, which the base observation never meets).
PHASES = int(Phase.OVER) + 1
#: Offices of a green city's row shown one by one (the action index names swaps up to the last of them).
GREEN_ROW = GREEN_SWAPS + 1
#: The expansion maps, one-hot in the ``map`` field.
EXPANSION_SIDES = tuple(side for side in SIDES if side not in ("2-3", "4-5"))
#: The fields only an expansion board's observation has, after the base ones (size given per board in docs/ai.md).
EXPANSION_FIELDS = (
    ("ship_houses", "per house: 1 for a ship space (holds only a Merchant)"),
    ("route_country", "per route: its country, one-hot over England, Wales, Scotland"),
    ("route_permanent", "per route: its permanent bonus marker, one-hot over " + ", ".join(PERMANENT_EFFECTS)),
    ("city_abilities", "per city: the abilities a claim beside it may develop (keys, actions, privilege, book, bags)"),
    ("city_green", "per city: 1 for a green city (East)"),
    ("city_countries", "per city: 1 for each of its countries (England, Wales, Scotland)"),
    ("office_points", "per printed office: points for taking it / 2 (0, 1 point, 2 points)"),
    ("green_row", f"per green city: its offices 1..{GREEN_ROW} left to right (extra offices, then the permanent "
                  "marker's), one-hot over 13 (empty past the row's end)"),
    ("green_right", "per green city: the permanent marker's offices (right of the row) of slot 0-5 (counts)"),
    ("permanent", "permanent marker being resolved: effect one-hot (5), pieces left to move or place / 2"),
    ("permanent_route", "route whose permanent marker is being resolved, one-hot"),
    ("permissions", "per permission city (board order of use): holder one-hot over none + slot 0-5, used this turn"),
    ("hand_origin", "pieces in hand during a Move by kind (T, M) x country lifted from (England, Wales, Scotland) / 5"),
    ("pending_exchange", "house whose piece was chosen by an exchange-from, one-hot (zeros otherwise)"),
    ("map", "east, britannia_3, britannia_45 one-hot; completed cities that end the game / 10"),
)
#: The fields of a game with the Big Box modules, after all the others (sizes per board and module set in
#: docs/ai.md; a field of a module the game does not use is empty).
MODULE_FIELDS = (
    ("modules", "missions, emperors_favour, marker_supply: 1 for each module the game uses"),
    ("mission", "missions: the observing seat's own mission card, one-hot over cards 1-9 (never another seat's)"),
    ("mission_cities", "missions: per city, 1 for the three cities of the observing seat's own card"),
    ("favour_tiles", "emperors_favour: per tile (F-FREE, F-ACT, F-INC, F-TWO, F-CITY, F-ABIL), one-hot over out of the "
                     "game, on the display, owner slot 0-4"),
    ("favour_turn", "emperors_favour: this turn a marker was used, a tile was taken (no tile may be taken then)"),
    ("facedown", "emperors_favour: per slot 0-4, markers turned face down for tiles (count)"),
    ("promo_markers", "marker_supply: per slot 0-4, unused Exchange, Tribute, Block markers (counts)"),
    ("used_by_type", "marker_supply: per slot 0-4, used markers by type, the 9 types of MARKER_NAMES (counts: what an "
                     "Exchange may take)"),
    ("route_tributes", "marker_supply: per route, Tribute markers beside it by owner slot 0-4 (counts)"),
    ("route_blocks", "marker_supply: per route, Block markers beside it by owner slot 0-4 (counts)"),
    ("tribute_due", "marker_supply: per slot 0-4, tribute payments still owed to it after the current action (counts)"),
)
PLAYER_FEATURES = (
    ("present", "1 if the slot holds a player"),
    ("supply_traders", "Traders in the supply / 27"),
    ("supply_merchants", "Merchants in the supply / 4"),
    ("stock_traders", "Traders in the stock / 27"),
    ("stock_merchants", "Merchants in the stock / 4"),
    ("keys", "Keys level / max"),
    ("actions", "Actions level / max"),
    ("privilege", "Privilege level / max"),
    ("book", "Liber Sophiae level / max"),
    ("bags", "Money bags level / max"),
    ("score", "in-game score / 20"),
    ("marker_extra_office", "unused Extra office markers"),
    ("marker_swap", "unused Swap markers"),
    ("marker_plus3", "unused +3 markers"),
    ("marker_plus4", "unused +4 markers"),
    ("marker_improve", "unused Improve markers"),
    ("marker_remove3", "unused Remove 3 markers"),
    ("used_markers", "used markers (count; they score at the end)"),
    ("plate", "face-down markers on the plate (count only)"),
    ("offices", "offices on the board / 10"),
    ("east_west", "1 if paid the East-West bonus"),
    ("current", "1 if it is this slot's turn"),
    ("decider", "1 if this slot must decide now"),
)


@dataclass(frozen=True, slots=True)
class Field:
    """One block of the flat vector: ``size`` floats from ``start``."""

    name: str
    start: int
    size: int
    meaning: str


class ObservationSpec:
    """The layout of the observation on one board side, for games with the Big Box ``modules`` (none by default)."""

    def __init__(self, board: Board, modules: tuple[str, ...] = ()) -> None:
        self.board = board
        #: The Big Box modules of the games this layout serves, :data:`hansa.ai.actions.MODULES` order.
        self.modules = check_modules(modules)
        #: The board side and the modules, as in the action index's fingerprint.
        self.config = config_name(board.side, self.modules)
        missions = "missions" in self.modules
        favour = "emperors_favour" in self.modules
        promo = "marker_supply" in self.modules
        #: Marker types of the route markers' one-hot (the promo ones only with ``marker_supply``).
        self.marker_types = ALL_MARKER_TYPES if promo else MARKER_TYPES
        self.houses = board.house_count
        self.routes = len(board.routes)
        self.cities = len(board.cities)
        self.offices = sum(len(c.offices) for c in board.cities)
        self.provinces = len(board.provinces)
        self.expansion = board.expansion
        self.green = len(board.green_cities)
        self.permission_cities = len(board.permission_cities)
        phases = MODULE_PHASES if self.modules else EXPANSION_PHASES if self.expansion else PHASES
        fields: list[Field] = []

        def add(name: str, size: int, meaning: str) -> None:
            start = fields[-1].start + fields[-1].size if fields else 0
            fields.append(Field(name, start, size, meaning))

        add("houses", self.houses * PIECE, "per house (board order): the piece on it, one-hot over 13")
        add("offices", self.offices * PIECE, "per printed office (cities in board order, left to right): its piece, one-hot over 13")
        add("extra_offices", self.cities * 6, "per city: extra offices of slot 0-5 (counts)")
        add("coellen_table", 4 * PIECE, "per Coellen table space (7, 8, 9, 11): its piece, one-hot over 13")
        add("route_markers", self.routes * (1 + self.marker_types),
            f"per route: bonus marker lying there, one-hot over none + {self.marker_types} types")
        add("controllers", self.cities * OWNER, "per city: controller, one-hot over none + slot 0-5")
        add("city_filled", self.cities, "per city: printed offices taken / printed offices")
        add("players", SLOTS * len(PLAYER_FEATURES), "per slot 0-4: the player features (docs/ai.md)")
        add("phase", phases, "pending decision: actions, move, relocate, remove, markers, pawn_setup, pawn_end, neutral_office, over"
            + (", permanent" if self.expansion or self.modules else "") + (", share, tribute" if self.modules else ""))
        add("turn", 6, "actions used / 5, allowance / 6, bonus actions / 4, actions left / 6, turn number / 100 (at most 1), completed cities / 10")
        add("hand", 2, "pieces in hand (Move or relocation): Traders / 5, Merchants / 5")
        add("relocation_route", self.routes, "route of the displacement being relocated, one-hot (zeros otherwise)")
        add("relocation", 1 + OWNER, "extra pieces left / 2; owner of the displaced piece, one-hot over none + slot 0-5")
        add("remove_left", 1, "pieces left to remove or move with Remove/Move 3 / 3")
        add("markers", 2, "face-down markers left in the supply / 20 (count only); markers lying on routes / 10")
        add("pawn", self.provinces, "pawn's province, one-hot (two-player pawn variant; empty on the 4-5 side)")
        add("pending_shift", self.houses, "house whose piece was chosen by a shift-from, one-hot (zeros otherwise)")
        add("game", 6, "players 2, 3, 4, 5 one-hot; neutral variant; pawn variant")
        if self.expansion:
            sizes = {
                "ship_houses": self.houses, "route_country": self.routes * len(COUNTRIES),
                "route_permanent": self.routes * len(PERMANENT_EFFECTS), "city_abilities": self.cities * 5,
                "city_green": self.cities, "city_countries": self.cities * len(COUNTRIES), "office_points": self.offices,
                "green_row": self.green * GREEN_ROW * PIECE, "green_right": self.green * 6,
                "permanent": len(PERMANENT_EFFECTS) + 1, "permanent_route": self.routes,
                "permissions": self.permission_cities * (OWNER + 1), "hand_origin": 2 * len(COUNTRIES),
                "pending_exchange": self.houses, "map": len(EXPANSION_SIDES) + 1,
            }
            for name, meaning in EXPANSION_FIELDS:
                add(name, sizes[name], meaning)
        if self.modules:
            sizes = {
                "modules": len(MODULES), "mission": MISSIONS * missions, "mission_cities": self.cities * missions,
                "favour_tiles": len(TILE_CODES) * TILE_PLACES * favour, "favour_turn": 2 * favour,
                "facedown": SLOTS * favour, "promo_markers": SLOTS * PROMO_TYPES * promo,
                "used_by_type": SLOTS * ALL_MARKER_TYPES * promo, "route_tributes": self.routes * SLOTS * promo,
                "route_blocks": self.routes * SLOTS * promo, "tribute_due": SLOTS * promo,
            }
            for name, meaning in MODULE_FIELDS:
                add(name, sizes[name], meaning)
        assert len(PLAYER_FEATURES) == PLAYER_WIDTH, "hansa.core.features writes PLAYER_WIDTH features per slot"
        self.fields = tuple(fields)
        self.size = fields[-1].start + fields[-1].size
        self._at = {f.name: f for f in fields}
        self._start = {f.name: f.start for f in fields}
        # Row offsets of the one-hot blocks, and house numbers, for observe().
        self._house_rows = np.arange(self.houses, dtype=np.int64) * PIECE
        self._office_rows = np.arange(self.offices, dtype=np.int64) * PIECE
        self._table_rows = np.arange(4, dtype=np.int64) * PIECE
        self._route_rows = np.arange(self.routes, dtype=np.int64) * (1 + self.marker_types)
        self._house_number = {h: i for i, h in enumerate(board.house_names)}
        # For observe(): where each entry of observation_parts() has its one-hot block (houses, offices, the
        # Coellen table when the board has it, routes, cities): the entry's place is added to it.
        a = self._start
        parts = [a["houses"] + self._house_rows, a["offices"] + self._office_rows]
        tail = [a["route_markers"] + self._route_rows, a["controllers"] + np.arange(self.cities, dtype=np.int64) * OWNER]
        self._base_plain = np.concatenate(parts + tail)
        self._base_table = np.concatenate([*parts, a["coellen_table"] + self._table_rows, *tail])
        # The values that never change in a game: zeros on a base side; an expansion board's facts and its green
        # rows' defaults (every entry empty).
        self._template = self._expansion_template(board) if self.expansion else np.zeros(self.size, dtype=np.float32)
        if self.modules:
            self.view(self._template, "modules")[:] = [float(m in self.modules) for m in MODULES]
        # For the expansion's places: the default place of its one-hot block (itself outside the green rows).
        self._default_of = np.arange(self.size, dtype=np.int64)
        #: The expansion fields' starts for the compiled walk (None on a base side).
        self._expansion_layout: list[int] | None = None
        if self.expansion:
            self._expansion_layout = [
                a[name] for name in ("green_row", "green_right", "permanent", "permanent_route", "permissions", "hand_origin")
            ] + [GREEN_ROW]
            for entry in range(self.green * GREEN_ROW):
                base = a["green_row"] + entry * PIECE
                self._default_of[base : base + PIECE] = base
        #: The module fields' starts and flags for the compiled walk (None without the modules).
        self._module_layout: list[int] | None = None
        if self.modules:
            self._module_layout = [
                a[name] for name, _ in MODULE_FIELDS if name != "modules"
            ] + [MODULE_MISSIONS * missions | MODULE_FAVOUR * favour | MODULE_PROMO * promo]
        # The dense fields, contiguous from city_filled to pawn, and what each of their bytes is divided by
        # (float32: the quotient of two float32 integers is correctly rounded, so it is the float32 of Python's own
        # int / int; the one-hot fields by 1).
        self._dense_at = a["city_filled"]
        self._dense_end = a["pawn"] + self.provinces
        players = [1, 27, 4, 27, 4, *ABILITY_MAX, 20, *[1] * MARKER_TYPES, 1, 1, 10, 1, 1, 1]
        self._dense_div = np.array(
            [max(1, len(c.offices)) for c in board.cities] + players * SLOTS + [1] * phases
            + [5, 6, 4, 6, 100, 10, 5, 5] + [1] * self.routes + [2, *[1] * OWNER, 3, 20, 10]
            + [1] * self.provinces,
            dtype=np.float32,
        )
        self._phases = phases
        assert len(self._dense_div) == self._dense_end - self._dense_at
        names = [f.name for f in fields]
        assert names[names.index("city_filled") : names.index("pawn") + 1] == [
            "city_filled", "players", "phase", "turn", "hand", "relocation_route", "relocation", "remove_left",
            "markers", "pawn",
        ]
        #: The template per game kind (players, two-player variant): the static values and the ``game`` field.
        self._templates: dict[tuple[int, str], Vector] = {}
        self._extras_at = a["extra_offices"]
        self._relocation_route_at = a["relocation_route"]
        self._pawn_at = a["pawn"]
        # Static structure for graph networks: house -> route, route -> its two cities, office -> city.
        house_route = [(h, r.index) for r in board.routes for h in r.houses]
        self.edges: dict[str, npt.NDArray[np.int64]] = {
            "house_route": np.array(sorted(house_route), dtype=np.int64).T.reshape(2, -1),
            "route_city": np.array([(r.index, c) for r in board.routes for c in r.cities], dtype=np.int64).T.reshape(2, -1),
            "office_city": np.array(
                [(c.office_base + i, c.index) for c in board.cities for i in range(len(c.offices))], dtype=np.int64
            ).T.reshape(2, -1),
        }
        self._office_static = np.array(
            [[*np.eye(4)[o.privilege - 1], float(o.round), float(o.coin)] for c in board.cities for o in c.offices],
            dtype=np.float32,
        ).reshape(self.offices, 6)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and deep-copied) as its board and modules: the receiving process uses its own cached layout."""
        return spec_for, (self.board, self.modules)

    def _template_for(self, players: int, variant: str) -> Vector:
        """The values that are the same all game: the board's (:attr:`_template`) and the ``game`` field."""
        out = self._template.copy()
        game = self.view(out, "game")
        game[players - 2] = 1.0
        if players == 2:
            game[4 if variant == "neutral" else 5] = 1.0
        return out

    def _expansion_template(self, board: Board) -> Vector:
        """The expansion fields' values that never change in a game (the map's facts) and the defaults of the green
        rows (every entry empty)."""
        out = np.zeros(self.size, dtype=np.float32)

        def v(name: str) -> Vector:
            return self.view(out, name)
        v("ship_houses")[:] = board.house_ship
        countries = len(COUNTRIES)
        for r in board.routes:
            v("route_country")[r.index * countries + r.country] = 1.0
            if r.permanent is not None:
                v("route_permanent")[r.index * len(PERMANENT_EFFECTS) + PERMANENT_EFFECTS.index(r.permanent)] = 1.0
        for c in board.cities:
            for a in c.abilities:
                v("city_abilities")[c.index * 5 + a] = 1.0
            v("city_green")[c.index] = float(c.green)
            for k in range(countries):
                v("city_countries")[c.index * countries + k] = float(c.countries >> k & 1)
        v("office_points")[:] = [o.points / 2 for c in board.cities for o in c.offices]
        v("green_row")[::PIECE] = 1.0
        if board.side in EXPANSION_SIDES:  # (a custom board with expansion features is none of them)
            v("map")[EXPANSION_SIDES.index(board.side)] = 1.0
        v("map")[-1] = board.cities_to_end / 10
        return out

    def field(self, name: str) -> Field:
        return self._at[name]

    def view(self, vector: Vector, name: str) -> Vector:
        """The block ``name`` of a flat vector (a view, not a copy)."""
        f = self._at[name]
        return vector[f.start : f.start + f.size]


@cache
def spec_for(board: Board, modules: tuple[str, ...] = ()) -> ObservationSpec:
    """The (cached) layout of a board, for games with the Big Box ``modules`` (:data:`hansa.ai.actions.MODULES`
    order; none by default)."""
    return ObservationSpec(board, modules)


def spec_for_side(side: str, modules: tuple[str, ...] | list[str] | frozenset[str] = ()) -> ObservationSpec:
    """The (cached) layout of a board side (``"2-3"``, ``"east"``, ...) for games with the Big Box ``modules``."""
    return spec_for(load_board(side), check_modules(modules)) if modules else spec_for(load_board(side))


def spec_for_state(state: GameState) -> ObservationSpec:
    """The (cached) layout of a game's observation: its board and its Big Box modules."""
    o = state.options
    if not (o.missions or o.emperors_favour or o.marker_supply is not None):
        return spec_for(state.board)
    return _spec_for_modules(state.board, o.missions, o.emperors_favour, o.marker_supply is not None)


@cache
def _spec_for_modules(board: Board, missions: bool, favour: bool, promo: bool) -> ObservationSpec:
    return spec_for(board, tuple(m for m, on in zip(MODULES, (missions, favour, promo)) if on))


def observe(
    state: GameState, seat: int, pending_house: str | None = None, pending_exchange: str | None = None,
    out: Vector | None = None,
) -> Vector:
    """The flat observation of ``seat`` (float32, ``spec_for_state(state).size`` long).  ``pending_house``: the
    house chosen by a shift-from whose destination is the decision now; ``pending_exchange``: the house chosen by an
    exchange-from (expansion boards), whose partner is the decision now (the AI adapters pass them:
    :meth:`ActionIndex.pending_house`, :meth:`ActionIndex.pending_exchange`).  ``out``: a float32 array of that size
    to write into (every value is written) and return, instead of a new array: e.g. OpenSpiel's observer buffer.

    Written for speed: the compiled core walks the position once (:func:`hansa.core.features.observation_parts`)
    and reports the place of every one-hot entry, which numpy sets in one step, and the contiguous dense fields as
    counts, which it divides into place in one step.  ``tests/test_ai_observation.py``
    checks it against a plain reference implementation on whole games of every configuration.

    In a game with Mission Cards the vector holds ``seat``'s own card and no other seat's."""
    spec = spec_for_state(state)
    if spec._module_layout is None:
        entries, dense, on, at, values = observation_parts(
            state, seat, spec._extras_at, spec._dense_at, spec._start["players"], spec._relocation_route_at,
            spec._pawn_at, spec._dense_end, spec._phases, spec._expansion_layout,
        )
    else:
        entries, dense, on, at, values = observation_parts(
            state, seat, spec._extras_at, spec._dense_at, spec._start["players"], spec._relocation_route_at,
            spec._pawn_at, spec._dense_end, spec._phases, spec._expansion_layout, spec._module_layout,
        )
    kind = (state.players, state.options.two_player_variant)
    template = spec._templates.get(kind)
    if template is None:
        template = spec._templates[kind] = spec._template_for(*kind)
    if out is None:
        out = template.copy()
    elif out.dtype != np.float32 or out.shape != template.shape:
        raise ValueError(f"out must be a float32 array of shape {template.shape}, not {out.dtype} {out.shape}")
    else:
        np.copyto(out, template)
    out[(spec._base_table if len(state.table) == 4 else spec._base_plain) + np.frombuffer(entries, dtype=np.uint8)] = 1.0
    np.divide(np.frombuffer(dense, dtype=np.uint8), spec._dense_div, out=out[spec._dense_at : spec._dense_end])
    if on:
        places = np.frombuffer(on, dtype="<u2")
        out[spec._default_of[places]] = 0.0  # their one-hot entries (green rows) are off their defaults
        out[places] = 1.0
    for i, v in zip(at, values):
        out[i] = v
    if pending_house is not None:
        out[spec._start["pending_shift"] + spec._house_number[pending_house]] = 1.0
    if pending_exchange is not None:
        if not spec.expansion:
            raise ValueError(f"there is no exchange on the {state.board.side} side")
        out[spec._start["pending_exchange"] + spec._house_number[pending_exchange]] = 1.0
    return out


class Observer:
    """Observations kept up to date by differences: the same vectors as :func:`observe`, several times faster when
    the positions observed follow each other (a game, move by move), as in the AI environments.

        observer = Observer()
        vec = observer.observe(state, seat)      # a new float32 array, equal to observe(state, seat)

    Per seat it keeps the last vector and what the compiled core saw (:class:`hansa.core.features.SeatDelta`), and
    writes only the values a move changed; any position may be observed (another game, another map: a position of
    another layout starts that seat again from the template), the answer is always exactly :func:`observe`'s
    (``tests/test_ai_observation.py`` checks it at every step of whole games of every configuration).  Not
    thread-safe: one observer per environment."""

    def __init__(self) -> None:
        self._seats: dict[int, _SeatView] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and copied) empty: what it keeps is only a cache, rebuilt at the next observation."""
        return Observer, ()

    def __deepcopy__(self, memo: Any) -> Observer:
        return Observer()

    def observe(
        self, state: GameState, seat: int, pending_house: str | None = None, pending_exchange: str | None = None,
        out: Vector | None = None,
    ) -> Vector:
        """``observe(state, seat, pending_house, pending_exchange, out)``, by differences from this seat's last."""
        view = self._seats.get(seat)
        if view is None or view.board is not state.board or view.options is not state.options or (
            view.kind[0] != state.players
        ):
            view = self._view(state, seat, view)
        spec = view.spec
        vec = view.vec
        if view.delta.update(state):  # started again from the template
            view.touched = None
            view.pending = []
        if view.layouts:
            if view.touched is not None:
                vec[view.touched] = view.template[view.touched]
            on, at2, values2 = board_parts(state, seat, spec._expansion_layout, spec._module_layout)
            places = np.frombuffer(on, dtype="<u2").astype(np.int64)
            defaults = spec._default_of[places]
            vec[defaults] = 0.0  # their one-hot entries (green rows) are off their defaults
            vec[places] = 1.0
            if at2:
                vec[at2] = values2
            view.touched = np.concatenate([defaults, places, np.array(at2, dtype=np.int64)])
        if view.pending or pending_house is not None or pending_exchange is not None:
            for i in view.pending:
                vec[i] = 0.0
            pending = []
            if pending_house is not None:
                pending.append(spec._start["pending_shift"] + spec._house_number[pending_house])
            if pending_exchange is not None:
                if not spec.expansion:
                    view.pending = []
                    raise ValueError(f"there is no exchange on the {state.board.side} side")
                pending.append(spec._start["pending_exchange"] + spec._house_number[pending_exchange])
            for i in pending:
                vec[i] = 1.0
            view.pending = pending
        if out is None:
            return vec.copy()
        if out.dtype != np.float32 or out.shape != vec.shape:
            raise ValueError(f"out must be a float32 array of shape {vec.shape}, not {out.dtype} {out.shape}")
        np.copyto(out, vec)
        return out

    def _view(self, state: GameState, seat: int, view: _SeatView | None) -> _SeatView:
        """The seat's view for a position of another game (its board and options): kept when the layout and the
        game kind are the same, else a new one."""
        spec = spec_for_state(state)
        kind = (state.players, state.options.two_player_variant)
        if view is None or view.spec is not spec or view.kind != kind:
            view = self._seats[seat] = _SeatView(spec, kind, seat, len(state.table) == 4)
        view.board, view.options = state.board, state.options
        return view


class _SeatView:
    """One seat's last vector in an :class:`Observer`, and the compiled core's memory of it."""

    def __init__(self, spec: ObservationSpec, kind: tuple[int, str], seat: int, table: bool) -> None:
        self.spec, self.kind = spec, kind
        self.board: Board | None = None  # the board and options of the last position seen (their layout: spec)
        self.options: Any = None
        template = spec._templates.get(kind)
        if template is None:
            template = spec._templates[kind] = spec._template_for(*kind)
        self.template: Vector = template
        self.vec: Vector = template.copy()
        self.delta = SeatDelta(
            seat, (spec._base_table if table else spec._base_plain).tolist(), spec._dense_div.tolist(),
            spec._extras_at, spec._dense_at, spec._start["players"], spec._relocation_route_at, spec._pawn_at,
            spec._dense_end, spec._phases, self.vec.data, template.data.toreadonly(),
        )
        self.layouts = spec._expansion_layout is not None or spec._module_layout is not None
        self.touched: npt.NDArray[np.int64] | None = None  # the expansion and module places set last time
        self.pending: list[int] = []  # the pending shift's (exchange's) places set last time


def observe_graph(
    state: GameState, seat: int, pending_house: str | None = None, pending_exchange: str | None = None
) -> dict[str, Any]:
    """The same information for graph networks: node features per house, route, office and city, the player
    table, the globals, and the board's static edge lists (``spec.edges``).  On an expansion board the rows get the
    expansion's fields too, in a game with the Big Box modules the modules' fields (docs/ai.md)."""
    spec = spec_for_state(state)
    flat = observe(state, seat, pending_house, pending_exchange)

    def v(name: str) -> Vector:
        return spec.view(flat, name)
    types = spec.marker_types
    routes = np.zeros((spec.routes, 1 + types + 3), dtype=np.float32)
    routes[:, : 1 + types] = v("route_markers").reshape(spec.routes, -1)
    routes[:, -3] = [state.route_free[r.index] / r.spaces for r in state.board.routes]
    routes[:, -2] = [float(r.tavern) for r in state.board.routes]
    routes[:, -1] = v("relocation_route")
    cities = np.concatenate(
        [v("controllers").reshape(spec.cities, -1), v("city_filled").reshape(spec.cities, 1),
         v("extra_offices").reshape(spec.cities, -1),
         np.array([[c.ability is not None, c.ability or 0] for c in state.board.cities], dtype=np.float32)],
        axis=1,
    )
    houses = np.concatenate([v("houses").reshape(spec.houses, PIECE), v("pending_shift").reshape(spec.houses, 1)], axis=1)
    offices = np.concatenate([v("offices").reshape(spec.offices, PIECE), spec._office_static], axis=1)
    glob = np.concatenate([v(name) for name in ("phase", "turn", "hand", "relocation", "remove_left", "markers", "pawn",
                                                "game", "coellen_table")])
    if spec.expansion:
        houses = np.concatenate(
            [houses, v("ship_houses").reshape(spec.houses, 1), v("pending_exchange").reshape(spec.houses, 1)], axis=1
        )
        routes = np.concatenate([
            routes, v("route_country").reshape(spec.routes, -1), v("route_permanent").reshape(spec.routes, -1),
            v("permanent_route").reshape(spec.routes, 1),
        ], axis=1)
        offices = np.concatenate([offices, v("office_points").reshape(spec.offices, 1)], axis=1)
        green_right = np.zeros((spec.cities, 6), dtype=np.float32)
        green_right[list(state.board.green_cities)] = v("green_right").reshape(spec.green, 6)
        cities = np.concatenate([
            cities, v("city_abilities").reshape(spec.cities, -1), v("city_green").reshape(spec.cities, 1),
            v("city_countries").reshape(spec.cities, -1), green_right,
        ], axis=1)
        glob = np.concatenate(
            [glob, *(v(name) for name in ("permanent", "permissions", "hand_origin", "map", "green_row"))]
        )
    players = v("players").reshape(SLOTS, -1)
    if spec.modules:
        routes = np.concatenate(
            [routes, v("route_tributes").reshape(spec.routes, -1), v("route_blocks").reshape(spec.routes, -1)], axis=1
        )
        cities = np.concatenate([cities, v("mission_cities").reshape(spec.cities, -1)], axis=1)
        players = np.concatenate([players, *(
            v(name).reshape(SLOTS, -1) for name in ("facedown", "promo_markers", "used_by_type", "tribute_due")
        )], axis=1)
        glob = np.concatenate([glob, *(v(name) for name in ("modules", "mission", "favour_tiles", "favour_turn"))])
    return {
        "houses": houses, "routes": routes, "offices": offices, "cities": cities,
        "players": players, "globals": glob, "edges": spec.edges,
    }
