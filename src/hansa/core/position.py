"""The position: every piece of game state, setup from a seed, copies, snapshots and read-only queries.

:class:`Position` is the data layer of :class:`hansa.core.state.GameState`; the legal-move generator
(:mod:`hansa.core.movegen`) and the rules (:mod:`hansa.core.state`) are built on top of it.
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from collections import Counter
from enum import IntEnum
from itertools import chain
from typing import Any, Self

from .board import Board, board_for_players
from .constants import (
    ABILITY_MAX,
    ABILITY_RELEASES,
    ABILITY_VALUES,
    ACTIONS,
    BAGS,
    BOOK,
    EMPTY,
    F_ACT,
    F_INC,
    MARKER_NAMES,
    MARKER_PRESETS,
    MERCHANT,
    MISSION_CARDS,
    NEUTRAL,
    PRIVILEGE,
    START_STOCK_TRADERS,
    START_SUPPLY_TRADERS,
    TAVERN_MARKERS,
    TILE_CODES,
    TILE_DISPLAY,
    TILE_OUT,
    TRADER,
)
from .errors import InvalidOptionError
from .moves import Move
from .movetable import MoveTable, move_table
from .options import GameOptions

_ACTION_VALUES = ABILITY_VALUES[ACTIONS]
_BOOK_VALUES = ABILITY_VALUES[BOOK]
_BAG_VALUES = ABILITY_VALUES[BAGS]

class Phase(IntEnum):
    """What kind of decision is pending."""

    ACTIONS = 0  #: active player: start an action, use a marker, or end the turn
    MOVE = 1  #: active player inside a Move action: lift more pieces or drop lifted ones
    RELOCATE = 2  #: displaced piece's owner relocates it (and optional extras)
    REMOVE = 3  #: active player is using Remove 3
    MARKERS = 4  #: active player places replacement markers at the end of his turn
    PAWN_SETUP = 5  #: two-player pawn variant: the non-start player places the pawn
    PAWN_END = 6  #: two-player pawn variant: optional free pawn move after the last action
    NEUTRAL_OFFICE = 7  #: two-player neutral variant: active player picks the city of a neutral claim
    OVER = 8  #: the game has ended
    PERMANENT = 9  #: expansion maps: the claimer resolves the claimed sea route's permanent bonus marker
    SHARE = 10  #: Emperor's Favour: the F-INC tile's owner takes a piece after another player's Income, or not
    TRIBUTE = 11  #: promo markers: a Tribute marker's owner chooses the kinds of the two pieces it pays

#: The names of every attribute of a position (its slots), hidden and derived ones included.
STATE_FIELDS: tuple[str, ...] = (
    "board", "options", "players", "seed", "_mt",
    # board
    "houses", "route_free", "free_total", "free", "free_moves", "own", "full", "route_marker", "offices",
    "city_filled", "extras", "table", "completed", "ew_paid", "marker_supply",
    # players
    "sup_t", "sup_m", "stk_t", "stk_m", "levels", "score", "markers", "used_markers", "plate",
    # turn
    "start_player", "current", "turn", "actions_used", "bonus_actions", "phase",
    "hand", "lifted", "dropping", "rl_owner", "rl_route", "rl_extras", "rm_left",
    "end_triggers", "_t2", "discarded",
    # two players
    "pawn", "pawn_free_used", "neutral_pending", "neutral_discards", "_allowed",
    # expansion maps
    "right_offices", "hand_from", "perm_used", "perm_holders", "pm_kind", "pm_left", "pm_route",
    # Big Box modules
    "missions", "favour", "facedown", "tributes", "blocks", "tribute_due", "fav_flags",
)


#: The attributes :meth:`Position.to_snapshot` saves: all but the board, options, move table, pawn's routes and the
#: house indexes (derived again on loading).
_SNAPSHOT_FIELDS: tuple[str, ...] = tuple(
    name for name in STATE_FIELDS if name not in ("board", "options", "_mt", "free", "free_moves", "own", "full", "_allowed")
)


#: Values of the expansion fields in a snapshot written before they existed.
_EXPANSION_DEFAULTS: dict[str, Any] = {
    "right_offices": None, "hand_from": [], "perm_used": 0, "perm_holders": [], "pm_kind": -1, "pm_left": 0,
    "pm_route": -1,
}

#: Values of the Big Box module fields in a snapshot written before they existed.
_MODULE_DEFAULTS: dict[str, Any] = {
    "missions": [], "favour": [], "facedown": None, "tributes": [], "blocks": [], "tribute_due": [], "fav_flags": 0,
}


class Position:
    """A Hansa Teutonica position for 2-5 players on one board side: the data and its read-only queries.

    Public read-only attributes describe the position (see the attribute list in ``docs/engine.md``).
    """

    __slots__ = STATE_FIELDS

    board: Board
    options: GameOptions
    players: int
    seed: int | None
    houses: list[int]
    route_free: list[int]
    free: list[int]
    free_moves: list[list[Move]]
    own: list[list[int]]
    full: list[int]
    route_marker: list[int]
    offices: list[int]
    city_filled: list[int]
    extras: list[tuple[int, ...]]
    table: list[int]
    marker_supply: list[int]
    sup_t: list[int]
    sup_m: list[int]
    stk_t: list[int]
    stk_m: list[int]
    levels: list[int]
    score: list[int]
    markers: list[tuple[int, ...]]
    used_markers: list[tuple[int, ...]]
    plate: list[tuple[int, ...]]
    ew_paid: list[int]
    hand: tuple[int, ...]
    end_triggers: tuple[str, ...]
    neutral_pending: tuple[int, ...]
    neutral_discards: int
    _allowed: frozenset[int] | None
    _mt: MoveTable
    free_total: int
    completed: int
    start_player: int
    current: int
    turn: int
    actions_used: int
    bonus_actions: int
    phase: Phase
    lifted: int
    dropping: bool
    rl_owner: int
    rl_route: int
    rl_extras: int
    rm_left: int
    _t2: bool
    discarded: int
    pawn: int
    pawn_free_used: int
    right_offices: list[tuple[int, ...]]
    hand_from: tuple[int, ...]
    perm_used: int
    perm_holders: tuple[int, ...]
    pm_kind: int
    pm_left: int
    pm_route: int
    missions: list[int]
    favour: list[int]
    facedown: list[tuple[int, ...]]
    tributes: tuple[tuple[int, int], ...]
    blocks: tuple[tuple[int, int], ...]
    tribute_due: tuple[int, ...]
    fav_flags: int

    # ------------------------------------------------------------------------------------------ setup

    @classmethod
    def new(
        cls,
        players: int,
        seed: int | None = None,
        options: GameOptions | dict[str, Any] | None = None,
        *,
        start_player: int | None = None,
        board: Board | None = None,
    ) -> Self:
        """Set up a new game (docs/rules.md §1.6) for ``players`` (2-5) from ``seed``.

        The seed decides the start player (unless ``start_player`` is given), which starting marker lies on
        which tavern, and the order of the face-down marker supply.  The same seed and moves always give the
        same game.  The ``map`` option chooses the board (the side follows the player count; the expansion maps
        take 3 to 5 players); ``board`` replaces the printed board (custom topologies for research and tests).
        """
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 5:
            raise InvalidOptionError(f"Hansa Teutonica is played by 2 to 5 players, not {players!r}")
        opts = options if isinstance(options, GameOptions) else GameOptions.from_dict(options)
        if start_player is not None and not (isinstance(start_player, int) and 0 <= start_player < players):
            raise InvalidOptionError(f"start player must be a seat from 0 to {players - 1}, not {start_player!r}")
        rng = random.Random(seed)
        if board is None:
            try:
                board = board_for_players(players, opts.map)
            except ValueError as err:
                raise InvalidOptionError(str(err)) from None
        if opts.missions and any(code not in board.city_index for card in MISSION_CARDS.values() for code in card):
            raise InvalidOptionError("option 'missions' needs the base map's cities, which this board lacks")
        self = cls.__new__(cls)
        self.board = board
        self.options = opts
        self.players = players
        self.seed = seed
        self._mt = move_table(board)
        self.houses = [EMPTY] * board.house_count
        self._reindex()
        self.route_marker = [EMPTY] * len(board.routes)
        self.offices = [EMPTY] * board.office_count
        self.city_filled = [0] * len(board.cities)
        self.extras = [()] * len(board.cities)
        self.table = [EMPTY] * len(board.coellen_table)
        self.completed = 0
        self.ew_paid = []
        first = rng.randrange(players)
        self.start_player = first if start_player is None else start_player
        taverns = list(TAVERN_MARKERS)
        rng.shuffle(taverns)
        for route, marker in zip(board.tavern_order, taverns):
            self.route_marker[route] = marker
        if opts.marker_supply is not None:
            supply = sorted(MARKER_NAMES.index(name) for name in opts.marker_supply)
        else:
            supply = [m for m, count in enumerate(MARKER_PRESETS[opts.marker_set]) for _ in range(count)]
        rng.shuffle(supply)
        self.marker_supply = supply
        self.sup_t, self.sup_m, self.stk_t, self.stk_m = [], [], [], []
        for p in range(players):
            seat = (p - self.start_player) % players
            self.sup_t.append(START_SUPPLY_TRADERS[seat])
            self.sup_m.append(1)
            self.stk_t.append(START_STOCK_TRADERS[seat])
            self.stk_m.append(0)
        self.levels = [0] * (5 * players)
        self.score = [0] * players
        self.markers = [()] * players
        self.used_markers = [()] * players
        self.plate = [()] * players
        self.current = self.start_player
        self.turn = 1
        self.actions_used = 0
        self.bonus_actions = 0
        self.phase = Phase.ACTIONS
        self.hand = ()
        self.lifted = 0
        self.dropping = False
        self.rl_owner = -1
        self.rl_route = -1
        self.rl_extras = 0
        self.rm_left = 0
        self.end_triggers = ()
        self._t2 = False
        self.discarded = 0
        self.pawn = -1
        self.pawn_free_used = 0
        self.neutral_pending = ()
        self.neutral_discards = 0
        self._allowed = None
        self.right_offices = [()] * len(board.cities)
        self.hand_from = ()
        self.perm_used = 0
        self.perm_holders = ()
        self.pm_kind = -1
        self.pm_left = 0
        self.pm_route = -1
        if board.permission_cities:
            self.perm_holders = self._permission_holders()
        # Big Box modules (docs/rules.md §8): dealt after everything else, so a game without them is unchanged
        self.missions = []
        if opts.missions:
            cards = sorted(MISSION_CARDS)
            rng.shuffle(cards)
            self.missions = cards[:players]
        self.favour = []
        if opts.emperors_favour:
            order = list(range(len(TILE_CODES)))
            rng.shuffle(order)
            shown = set(order[:players])
            self.favour = [TILE_DISPLAY if t in shown else TILE_OUT for t in range(len(TILE_CODES))]
        self.facedown = [()] * players
        self.tributes = ()
        self.blocks = ()
        self.tribute_due = ()
        self.fav_flags = 0
        if players == 2:
            self._setup_two_players()
        return self

    def _setup_two_players(self) -> None:
        """docs/rules.md §5: variant A puts neutral Traders on the board; variant B waits for the pawn."""
        if self.options.two_player_variant == "pawn":
            if not self.board.provinces:
                raise InvalidOptionError("the pawn variant needs a board with provinces (the 2-3 side)")
            self.phase = Phase.PAWN_SETUP
            return
        for route in self.board.routes:
            if self._neutral_setup_route(route.index) or self.route_marker[route.index] >= 0:
                self._put_neutral(route.index)

    @property
    def neutral_variant(self) -> bool:
        """True in a two-player game with neutral traders (docs/rules.md §5.A)."""
        return self.players == 2 and self.options.two_player_variant == "neutral"

    def _neutral_setup_route(self, r: int) -> bool:
        """Does route ``r`` end at a city where something other than an office is gained (§5.A)?"""
        board = self.board
        for c in board.routes[r].cities:
            if board.cities[c].ability is not None or (c == board.coellen and self.options.neutral_coellen):
                return True
        return False

    def _put_neutral(self, r: int) -> None:
        """Put a neutral Trader on the middle free house of an empty-enough route (setup, new marker routes)."""
        houses = self.board.routes[r].houses
        free = [h for h in houses if self.houses[h] < 0]
        if not free:
            return
        middle = houses[(len(houses) - 1) // 2]
        self._occupy(middle if middle in free else free[0], NEUTRAL * 2)

    # ------------------------------------------------------------------------------------------ house indexes

    def _reindex(self) -> None:
        """Recompute everything derived from :attr:`houses`: free-house counters, the free houses with their
        Place/Drop moves, each owner's houses and the full routes.  The rules keep these in step move by move
        (:meth:`_occupy`, :meth:`_vacate`, :meth:`_replace`); this rebuilds them after the houses were set
        directly (setup, snapshots, test builders)."""
        (self.route_free, self.free_total, self.free, self.free_moves, self.own, self.full) = self._indexes()

    def _indexes(self) -> tuple[list[int], int, list[int], list[list[Move]], list[list[int]], list[int]]:
        """``(route_free, free_total, free, free_moves, own, full)`` computed from the houses alone."""
        board = self.board
        mt = self._mt
        route_free = [0] * len(board.routes)
        house_route = board.house_route
        free: list[int] = []
        own: list[list[int]] = [[] for _ in range(NEUTRAL + 1)]
        for h, code in enumerate(self.houses):
            if code < 0:
                route_free[house_route[h]] += 1
                free.append(h)
            else:
                own[code >> 1].append(h)
        free_moves: list[list[Move]] = [[table[h] for h in free] for table in mt.free_house]
        full = [r for r, n in enumerate(route_free) if n == 0]
        return route_free, len(free), free, free_moves, own, full

    def _occupy(self, h: int, code: int) -> None:
        """Put the piece ``code`` on the free house ``h``."""
        self.houses[h] = code
        r = self.board.house_route[h]
        left = self.route_free[r] - 1
        self.route_free[r] = left
        self.free_total -= 1
        if left == 0:
            insort(self.full, r)
        free = self.free
        i = bisect_left(free, h)
        del free[i]
        for moves in self.free_moves:
            del moves[i]
        insort(self.own[code >> 1], h)

    def _vacate(self, h: int) -> int:
        """Take the piece off the occupied house ``h``; return its code."""
        houses = self.houses
        code = houses[h]
        houses[h] = EMPTY
        r = self.board.house_route[h]
        left = self.route_free[r]
        if left == 0:
            self.full.remove(r)
        self.route_free[r] = left + 1
        self.free_total += 1
        free = self.free
        i = bisect_left(free, h)
        free.insert(i, h)
        for moves, table in zip(self.free_moves, self._mt.free_house):
            moves.insert(i, table[h])
        self.own[code >> 1].remove(h)
        return code

    def _replace(self, h: int, code: int) -> int:
        """Put ``code`` on the occupied house ``h`` in place of its piece; return the old piece's code."""
        houses = self.houses
        old = houses[h]
        houses[h] = code
        if old >> 1 != code >> 1:
            self.own[old >> 1].remove(h)
            insort(self.own[code >> 1], h)
        return old

    def copy(self) -> Self:
        """An independent copy of this position (cheap: a few flat lists are copied)."""
        new = type(self).__new__(type(self))
        new.board = self.board
        new.options = self.options
        new.players = self.players
        new.seed = self.seed
        new._mt = self._mt
        new.houses = self.houses[:]
        new.route_free = self.route_free[:]
        new.free_total = self.free_total
        new.free = self.free[:]
        new.free_moves = [moves[:] for moves in self.free_moves]
        new.own = [houses[:] for houses in self.own]
        new.full = self.full[:]
        new.route_marker = self.route_marker[:]
        new.offices = self.offices[:]
        new.city_filled = self.city_filled[:]
        new.extras = self.extras[:]
        new.table = self.table[:]
        new.completed = self.completed
        new.ew_paid = self.ew_paid[:]
        new.marker_supply = self.marker_supply[:]
        new.sup_t = self.sup_t[:]
        new.sup_m = self.sup_m[:]
        new.stk_t = self.stk_t[:]
        new.stk_m = self.stk_m[:]
        new.levels = self.levels[:]
        new.score = self.score[:]
        new.markers = self.markers[:]
        new.used_markers = self.used_markers[:]
        new.plate = self.plate[:]
        new.start_player = self.start_player
        new.current = self.current
        new.turn = self.turn
        new.actions_used = self.actions_used
        new.bonus_actions = self.bonus_actions
        new.phase = self.phase
        new.hand = self.hand
        new.lifted = self.lifted
        new.dropping = self.dropping
        new.rl_owner = self.rl_owner
        new.rl_route = self.rl_route
        new.rl_extras = self.rl_extras
        new.rm_left = self.rm_left
        new.end_triggers = self.end_triggers
        new._t2 = self._t2
        new.discarded = self.discarded
        new.pawn = self.pawn
        new.pawn_free_used = self.pawn_free_used
        new.neutral_pending = self.neutral_pending
        new.neutral_discards = self.neutral_discards
        new._allowed = self._allowed
        new.right_offices = self.right_offices[:]
        new.hand_from = self.hand_from
        new.perm_used = self.perm_used
        new.perm_holders = self.perm_holders
        new.pm_kind = self.pm_kind
        new.pm_left = self.pm_left
        new.pm_route = self.pm_route
        new.missions = self.missions
        if self.favour:  # only games with Emperor's Favour change these lists in place
            new.favour = self.favour[:]
            new.facedown = self.facedown[:]
        else:
            new.favour = self.favour
            new.facedown = self.facedown
        new.tributes = self.tributes
        new.blocks = self.blocks
        new.tribute_due = self.tribute_due
        new.fav_flags = self.fav_flags
        return new

    def __copy__(self) -> Self:
        return self.copy()

    def determinized(self, rng: random.Random, viewer: int | None = None) -> Self:
        """A copy in which the hidden markers (face-down supply and every plate) are reshuffled among themselves,
        and, with mission cards, every card but ``viewer``'s is dealt again from the 8 cards ``viewer`` cannot see.

        Nobody knows the markers, not even a plate's owner, so every bot that looks ahead should search on a
        determinized copy: the result depends only on what ``viewer`` (default: the deciding seat) may know and
        ``rng``."""
        new = self.copy()
        if self.missions:
            seat = self.decider if viewer is None else viewer
            if 0 <= seat < self.players:
                own = self.missions[seat]
                unseen = [c for c in sorted(MISSION_CARDS) if c != own]
                rng.shuffle(unseen)
                new.missions = [own if q == seat else unseen[q] for q in range(self.players)]
        pool = list(self.marker_supply)
        for plate in self.plate:
            pool.extend(plate)
        rng.shuffle(pool)
        k = len(self.marker_supply)
        new.marker_supply = pool[:k]
        for p, plate in enumerate(self.plate):
            new.plate[p] = tuple(pool[k : k + len(plate)])
            k += len(plate)
        return new

    def key(self) -> tuple[Any, ...]:
        """A hashable value identifying the whole position, hidden marker order included (two states with
        equal keys behave identically for every future move)."""
        return (
            self.board.side, self.options, self.players, tuple(self.houses), tuple(self.route_marker),
            tuple(self.offices), tuple(self.extras), tuple(self.table), self.completed, tuple(self.ew_paid),
            tuple(self.marker_supply), tuple(self.sup_t), tuple(self.sup_m), tuple(self.stk_t), tuple(self.stk_m),
            tuple(self.levels), tuple(self.score), tuple(self.markers), tuple(self.used_markers), tuple(self.plate),
            self.start_player, self.current, self.turn, self.actions_used, self.bonus_actions, self.phase,
            self.hand, self.lifted, self.dropping, self.rl_owner, self.rl_route, self.rl_extras, self.rm_left,
            self.end_triggers, self._t2, self.discarded, self.pawn, self.pawn_free_used, self.neutral_pending,
            self.neutral_discards, tuple(self.right_offices), self.hand_from, self.perm_used, self.perm_holders,
            self.pm_kind, self.pm_left, self.pm_route, tuple(self.missions), tuple(self.favour), tuple(self.facedown),
            self.tributes, self.blocks, self.tribute_due, self.fav_flags,
        )

    def public_key(self) -> tuple[Any, ...]:
        """Like :meth:`key`, but with only the *number* of hidden markers (face-down supply, plates) and mission
        cards: equal for two positions no player can tell apart, e.g. determinizations of one position.  For
        transposition tables of searches."""
        return (
            self.board.side, self.options, self.players, tuple(self.houses), tuple(self.route_marker),
            tuple(self.offices), tuple(self.extras), tuple(self.table), self.completed, tuple(self.ew_paid),
            len(self.marker_supply), tuple(self.sup_t), tuple(self.sup_m), tuple(self.stk_t), tuple(self.stk_m),
            tuple(self.levels), tuple(self.score), tuple(self.markers), tuple(self.used_markers),
            tuple(len(plate) for plate in self.plate),
            self.start_player, self.current, self.turn, self.actions_used, self.bonus_actions, self.phase,
            self.hand, self.lifted, self.dropping, self.rl_owner, self.rl_route, self.rl_extras, self.rm_left,
            self.end_triggers, self._t2, self.discarded, self.pawn, self.pawn_free_used, self.neutral_pending,
            self.neutral_discards, tuple(self.right_offices), self.hand_from, self.perm_used, self.perm_holders,
            self.pm_kind, self.pm_left, self.pm_route, len(self.missions), tuple(self.favour), tuple(self.facedown),
            self.tributes, self.blocks, self.tribute_due, self.fav_flags,
        )

    def to_snapshot(self) -> dict[str, Any]:
        """The whole position as JSON-ready data (hidden markers included: for storage, never for players)."""
        out: dict[str, Any] = {"side": self.board.side, "options": self.options.to_dict()}
        for name in _SNAPSHOT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, tuple):
                value = [list(v) if isinstance(v, tuple) else v for v in value]
            elif isinstance(value, list):
                value = [list(v) if isinstance(v, tuple) else v for v in value]
            out[name] = int(value) if isinstance(value, Phase) else value
        return out

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> Self:
        """Rebuild a position saved by :meth:`to_snapshot` (printed board sides only)."""
        from .board import load_board

        self = cls.__new__(cls)
        self.board = load_board(data["side"])
        self.options = GameOptions.from_dict(data["options"])
        self._mt = move_table(self.board)
        tuple_lists = {"extras", "markers", "used_markers", "plate", "right_offices", "facedown"}
        tuples = {"hand", "end_triggers", "neutral_pending", "hand_from", "perm_holders", "tribute_due"}
        pairs = {"tributes", "blocks"}
        players = len(data["score"])
        for name in _SNAPSHOT_FIELDS:
            if name in _EXPANSION_DEFAULTS and name not in data:  # a snapshot saved before the expansions
                value = _EXPANSION_DEFAULTS[name]
                if name == "right_offices":
                    value = [[] for _ in self.board.cities]
            elif name in _MODULE_DEFAULTS and name not in data:  # a snapshot saved before the Big Box modules
                value = _MODULE_DEFAULTS[name]
                if name == "facedown":
                    value = [[] for _ in range(players)]
            else:
                value = data[name]
            if name in tuple_lists:
                value = [tuple(v) for v in value]
            elif name in tuples:
                value = tuple(value)
            elif name in pairs:
                value = tuple((int(a), int(b)) for a, b in value)
            elif name == "phase":
                value = Phase(value)
            elif isinstance(value, list):
                value = list(value)
            setattr(self, name, value)
        self._reindex()
        self._allowed = frozenset(self.board.provinces[self.pawn].routes) if self.pawn >= 0 else None
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable: hash ``key()`` instead

    # ------------------------------------------------------------------------------------------ queries

    @property
    def decider(self) -> int:
        """The seat (0-based) that must decide now, or -1 when the game is over."""
        phase = self.phase
        if phase == Phase.OVER:
            return -1
        if phase == Phase.RELOCATE:
            return self.rl_owner if self.rl_owner != NEUTRAL else (self.current + 1) % self.players
        if phase == Phase.PAWN_SETUP:
            return (self.current + 1) % self.players
        if phase == Phase.SHARE:
            return self.favour[F_INC]
        if phase == Phase.TRIBUTE:
            return self.tribute_due[0]
        return self.current

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.phase == Phase.OVER

    def ability_level(self, player: int, ability: int) -> int:
        """Level index (0 = leftmost space) of ``ability`` for ``player``."""
        return self.levels[player * 5 + ability]

    def ability_value(self, player: int, ability: int) -> int:
        """Current value of an ability track (Money bags "C" is :data:`~hansa.core.constants.BAGS_ALL`)."""
        return ABILITY_VALUES[ability][self.levels[player * 5 + ability]]

    def allowance(self) -> int:
        """Actions the active player may take this turn (Actions value + bonus actions), docs/rules.md §2.1."""
        p = self.current
        favour = self.favour
        return _ACTION_VALUES[self.levels[p * 5 + ACTIONS]] + self.bonus_actions + (1 if favour and favour[F_ACT] == p else 0)

    def actions_left(self) -> int:
        """Actions the active player may still start this turn."""
        return max(0, self.allowance() - self.actions_used)

    def piece_at(self, house: str) -> tuple[int, str] | None:
        """``(owner, "T"|"M")`` of the piece on a house such as ``"GRO-EMD:2"``, or ``None`` if it is free."""
        code = self.houses[self.board.house_index[house]]
        return None if code < 0 else (code >> 1, "TM"[code & 1])

    def city_offices(self, city: int) -> list[int]:
        """Codes of every office of ``city`` left to right: extra offices, printed offices (free ones as -1), then
        the offices East's permanent marker put right of them in a green city."""
        c = self.board.cities[city]
        return [*self.extras[city], *self.offices[c.office_base : c.office_base + len(c.offices)], *self.right_offices[city]]

    def holder(self, city: int) -> int:
        """Britannia: the seat holding ``city``'s permission (docs/rules-expansions.md §E4.2 4), -1 for nobody:
        the owner of its rightmost occupied office, or its controller under ``opt.permissionHolder=controller``."""
        if self.options.permission_holder == "controller":
            ctrl = self.controller(city)
            return -1 if ctrl is None else ctrl
        for code in reversed(self.city_offices(city)):
            if code >= 0:
                return code >> 1
        return -1

    def _permission_holders(self) -> tuple[int, ...]:
        return tuple(self.holder(c) for c, _ in self.board.permission_cities)

    def office_owners(self, city: int) -> list[int]:
        """Owners of the printed offices of ``city`` left to right (-1 for a free office)."""
        c = self.board.cities[city]
        return [code >> 1 if code >= 0 else -1 for code in self.offices[c.office_base : c.office_base + len(c.offices)]]

    def controller(self, city: int) -> int | None:
        """The owner controlling ``city`` (docs/rules.md §2.8.1), or ``None`` when it has no office."""
        counts: dict[int, int] = {}
        last: dict[int, int] = {}
        pos = 0
        for code in self.extras[city]:
            owner = code >> 1
            counts[owner] = counts.get(owner, 0) + 1
            last[owner] = pos
            pos += 1
        c = self.board.cities[city]
        for code in self.offices[c.office_base : c.office_base + len(c.offices)]:
            if code >= 0:
                owner = code >> 1
                counts[owner] = counts.get(owner, 0) + 1
                last[owner] = pos
            pos += 1
        for code in self.right_offices[city]:
            owner = code >> 1
            counts[owner] = counts.get(owner, 0) + 1
            last[owner] = pos
            pos += 1
        if not counts:
            return None
        best = max(counts.values())
        return max((o for o, n in counts.items() if n == best), key=last.__getitem__)

    def office_count(self, player: int) -> int:
        """Offices of ``player`` on the board (printed and extra)."""
        n = sum(1 for code in self.offices if code >= 0 and code >> 1 == player)
        n += sum(1 for ex in self.right_offices for code in ex if code >> 1 == player)
        return n + sum(1 for ex in self.extras for code in ex if code >> 1 == player)

    def cities_with_office(self, player: int) -> list[int]:
        """Number of offices (printed + extra) ``player`` holds in each city, indexed by city."""
        per_city = [0] * len(self.board.cities)
        office_city = self.board.office_city
        for i, code in enumerate(self.offices):
            if code >= 0 and code >> 1 == player:
                per_city[office_city[i]] += 1
        for c, ex in enumerate(self.extras):
            for code in ex:
                if code >> 1 == player:
                    per_city[c] += 1
        for c, ex in enumerate(self.right_offices):
            for code in ex:
                if code >> 1 == player:
                    per_city[c] += 1
        return per_city

    def network_components(self, player: int) -> list[tuple[list[int], int]]:
        """Components of ``player``'s office graph (docs/rules.md §2.8.2): ``(cities, office count)`` each."""
        per_city = self.cities_with_office(player)
        seen = [False] * len(per_city)
        out = []
        cities = self.board.cities
        for start, n in enumerate(per_city):
            if not n or seen[start]:
                continue
            seen[start] = True
            stack = [start]
            comp = []
            while stack:
                c = stack.pop()
                comp.append(c)
                for nb in cities[c].neighbours:
                    if per_city[nb] and not seen[nb]:
                        seen[nb] = True
                        stack.append(nb)
            out.append((sorted(comp), sum(per_city[c] for c in comp)))
        return out

    def neutral_discarded_markers(self) -> int:
        """Markers discarded by neutral claims (two-player variant A)."""
        return self.neutral_discards

    def markers_on_board(self) -> int:
        """Number of bonus markers lying on routes."""
        return sum(1 for m in self.route_marker if m >= 0)

    def hidden_marker_count(self) -> int:
        """Markers left in the face-down supply (their types and order are hidden)."""
        return len(self.marker_supply)

    def pieces_accounted(self, player: int) -> tuple[int, int]:
        """``(traders, merchants)`` of ``player`` found anywhere (invariant: always ``(27, 4)``)."""
        return self.census()[player]

    def census(self) -> list[tuple[int, int]]:
        """``(traders, merchants)`` found anywhere for every seat: supply, stock, tracks, score marker, houses,
        offices, extra offices, Coellen table, and pieces in hand during a Move or a relocation."""
        counts = Counter(chain(self.houses, self.offices, self.table, *self.extras, *self.right_offices))
        holder = self.rl_owner if self.phase == Phase.RELOCATE else self.current if self.phase == Phase.MOVE else -1
        out = []
        for p in range(self.players):
            t = self.sup_t[p] + self.stk_t[p] + 1 + counts[p * 2]  # +1: the score marker
            m = self.sup_m[p] + self.stk_m[p] + counts[p * 2 + 1]
            for a in range(5):
                covering = ABILITY_MAX[a] - self.levels[p * 5 + a]
                if ABILITY_RELEASES[a] == MERCHANT:
                    m += covering
                else:
                    t += covering
            if holder == p:
                t += self.hand.count(TRADER)
                m += self.hand.count(MERCHANT)
            for _, owner in self.tributes + self.blocks:  # the Trader beside a Tribute or Block marker
                t += owner == p
            out.append((t, m))
        return out


def _priv(state: Position, p: int) -> int:
    return ABILITY_VALUES[PRIVILEGE][state.levels[p * 5 + PRIVILEGE]]


def _without(items: tuple[int, ...], value: int) -> tuple[int, ...]:
    i = items.index(value)
    return items[:i] + items[i + 1 :]
