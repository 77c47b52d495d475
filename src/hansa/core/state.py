"""The game state and the rules: setup, legal moves, and applying moves (RULES.md §1-§4).

:class:`GameState` is a position plus whose decision it is.  At every point exactly one player must decide
(:attr:`GameState.decider`): the active player, or the owner of a displaced piece while relocating it.
:meth:`GameState.legal_moves` lists every atomic decision that player may take, and :meth:`GameState.play`
validates a move against the rules and applies it, or raises an :class:`~hansa.core.errors.IllegalMoveError`
naming the rule and leaves the state unchanged.  The state holds no history; :class:`hansa.game.Game` adds
the move list, undo and records.  :meth:`GameState.copy` is cheap (a handful of flat lists), for search.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from enum import IntEnum
from itertools import chain
from typing import Any

from .board import Board, board_for_players
from .constants import (
    ABILITY_MAX,
    ABILITY_NAMES,
    ABILITY_RELEASES,
    ABILITY_VALUES,
    ACTIONS,
    BAGS,
    BOOK,
    CITIES_TO_END,
    EAST_WEST_BONUS,
    EMPTY,
    EXTRA_OFFICE,
    IMPROVE,
    MARKER_NAMES,
    MARKER_PRESETS,
    MERCHANT,
    NEUTRAL,
    PLUS3,
    PLUS4,
    PRIVILEGE,
    PRIVILEGE_COLOURS,
    REMOVE3,
    START_STOCK_TRADERS,
    START_SUPPLY_TRADERS,
    SWAP_OFFICES,
    TAVERN_MARKERS,
    TRADER,
    WIN_SCORE,
)
from .errors import GameOverError, IllegalMoveError, InvalidOptionError, WrongPlayerError
from .moves import (
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
from .movetable import MoveTable, move_table
from .options import GameOptions

_LETTER = {"T": TRADER, "M": MERCHANT}
_ACTION_VALUES = ABILITY_VALUES[ACTIONS]
_BOOK_VALUES = ABILITY_VALUES[BOOK]
_BAG_VALUES = ABILITY_VALUES[BAGS]
_END_TURN = EndTurn()
_DONE = Done()
_USE = {PLUS3: UseMarker("+3"), PLUS4: UseMarker("+4"), REMOVE3: UseMarker("remove3")}
_USE_BY_NAME = {"+3": PLUS3, "+4": PLUS4, "remove3": REMOVE3}
_TAKE = (TakeExtra("T"), TakeExtra("M"))


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


class GameState:
    """A Hansa Teutonica position for 2-5 players on one board side.

    Create one with :meth:`new`.  Public read-only attributes describe the position (see the attribute list
    in ``docs/engine.md``); change it only through :meth:`play`.
    """

    __slots__ = (
        "board", "options", "players", "seed", "_mt",
        # board
        "houses", "route_free", "free_total", "route_marker", "offices", "city_filled", "extras", "table",
        "completed", "ew_paid", "marker_supply",
        # players
        "sup_t", "sup_m", "stk_t", "stk_m", "levels", "score", "markers", "used_markers", "plate",
        # turn
        "start_player", "current", "turn", "actions_used", "bonus_actions", "phase",
        "hand", "lifted", "dropping", "rl_owner", "rl_route", "rl_extras", "rm_left",
        "end_triggers", "_t2", "discarded",
        # two players
        "pawn", "pawn_free_used", "neutral_pending", "neutral_discards", "_allowed",
    )

    board: Board
    options: GameOptions
    players: int
    seed: int | None
    houses: list[int]
    route_free: list[int]
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
    ) -> GameState:
        """Set up a new game (RULES.md §1.6) for ``players`` (2-5) from ``seed``.

        The seed decides the start player (unless ``start_player`` is given), which starting marker lies on
        which tavern, and the order of the face-down marker supply.  The same seed and moves always give the
        same game.  ``board`` replaces the printed board side (custom topologies for research and tests).
        """
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 5:
            raise InvalidOptionError(f"Hansa Teutonica is played by 2 to 5 players, not {players!r}")
        opts = options if isinstance(options, GameOptions) else GameOptions.from_dict(options)
        if start_player is not None and not (isinstance(start_player, int) and 0 <= start_player < players):
            raise InvalidOptionError(f"start player must be a seat from 0 to {players - 1}, not {start_player!r}")
        rng = random.Random(seed)
        board = board if board is not None else board_for_players(players)
        self = cls.__new__(cls)
        self.board = board
        self.options = opts
        self.players = players
        self.seed = seed
        self._mt = move_table(board)
        self.houses = [EMPTY] * board.house_count
        self.route_free = [r.spaces for r in board.routes]
        self.free_total = board.house_count
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
        if players == 2:
            self._setup_two_players()
        return self

    def _setup_two_players(self) -> None:
        """RULES.md §5: variant A puts neutral Traders on the board; variant B waits for the pawn."""
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
        """True in a two-player game with neutral traders (RULES.md §5.A)."""
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
        h = middle if middle in free else free[0]
        self.houses[h] = NEUTRAL * 2
        self.route_free[r] -= 1
        self.free_total -= 1

    def copy(self) -> GameState:
        """An independent copy of this position (cheap: a few flat lists are copied)."""
        new = GameState.__new__(GameState)
        new.board = self.board
        new.options = self.options
        new.players = self.players
        new.seed = self.seed
        new._mt = self._mt
        new.houses = self.houses[:]
        new.route_free = self.route_free[:]
        new.free_total = self.free_total
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
        return new

    __copy__ = copy

    def determinized(self, rng: random.Random) -> GameState:
        """A copy in which the hidden markers (face-down supply and every plate) are reshuffled among themselves.

        Nobody knows these markers, not even a plate's owner, so every bot that looks ahead should search on a
        determinized copy: the result depends only on public information and ``rng``."""
        new = self.copy()
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
            self.neutral_discards,
        )

    _SNAPSHOT_FIELDS = (
        "players", "seed", "houses", "route_free", "free_total", "route_marker", "offices", "city_filled", "extras",
        "table", "completed", "ew_paid", "marker_supply", "sup_t", "sup_m", "stk_t", "stk_m", "levels", "score",
        "markers", "used_markers", "plate", "start_player", "current", "turn", "actions_used", "bonus_actions",
        "phase", "hand", "lifted", "dropping", "rl_owner", "rl_route", "rl_extras", "rm_left", "end_triggers",
        "_t2", "discarded", "pawn", "pawn_free_used", "neutral_pending", "neutral_discards",
    )

    def to_snapshot(self) -> dict[str, Any]:
        """The whole position as JSON-ready data (hidden markers included: for storage, never for players)."""
        out: dict[str, Any] = {"side": self.board.side, "options": self.options.to_dict()}
        for name in self._SNAPSHOT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, list):
                value = [list(v) if isinstance(v, tuple) else v for v in value]
            out[name] = int(value) if isinstance(value, Phase) else value
        return out

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> GameState:
        """Rebuild a position saved by :meth:`to_snapshot` (printed board sides only)."""
        from .board import load_board

        self = cls.__new__(cls)
        self.board = load_board(data["side"])
        self.options = GameOptions.from_dict(data["options"])
        self._mt = move_table(self.board)
        tuple_lists = {"extras", "markers", "used_markers", "plate"}
        tuples = {"hand", "end_triggers", "neutral_pending"}
        for name in cls._SNAPSHOT_FIELDS:
            value = data[name]
            if name in tuple_lists:
                value = [tuple(v) for v in value]
            elif name in tuples:
                value = tuple(value)
            elif isinstance(value, list):
                value = list(value)
            setattr(self, name, value)
        self.phase = Phase(data["phase"])
        self._allowed = frozenset(self.board.provinces[self.pawn].routes) if self.pawn >= 0 else None
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.key() == other.key()

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
        """Actions the active player may take this turn (Actions value + bonus actions), RULES.md §2.1."""
        return _ACTION_VALUES[self.levels[self.current * 5 + ACTIONS]] + self.bonus_actions

    def actions_left(self) -> int:
        """Actions the active player may still start this turn."""
        return max(0, self.allowance() - self.actions_used)

    def piece_at(self, house: str) -> tuple[int, str] | None:
        """``(owner, "T"|"M")`` of the piece on a house such as ``"GRO-EMD:2"``, or ``None`` if it is free."""
        code = self.houses[self.board.house_index[house]]
        return None if code < 0 else (code >> 1, "TM"[code & 1])

    def office_owners(self, city: int) -> list[int]:
        """Owners of the printed offices of ``city`` left to right (-1 for a free office)."""
        c = self.board.cities[city]
        return [code >> 1 if code >= 0 else -1 for code in self.offices[c.office_base : c.office_base + len(c.offices)]]

    def controller(self, city: int) -> int | None:
        """The owner controlling ``city`` (RULES.md §2.8.1), or ``None`` when it has no office."""
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
        if not counts:
            return None
        best = max(counts.values())
        return max((o for o, n in counts.items() if n == best), key=last.__getitem__)

    def office_count(self, player: int) -> int:
        """Offices of ``player`` on the board (printed and extra)."""
        n = sum(1 for code in self.offices if code >= 0 and code >> 1 == player)
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
        return per_city

    def network_components(self, player: int) -> list[tuple[list[int], int]]:
        """Components of ``player``'s office graph (RULES.md §2.8.2): ``(cities, office count)`` each."""
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
        counts = Counter(chain(self.houses, self.offices, self.table, *self.extras))
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
            out.append((t, m))
        return out

    # ------------------------------------------------------------------------------------------ legal moves

    def legal_moves(self) -> list[Move]:
        """Every move the deciding player may make now (empty once the game is over)."""
        phase = self.phase
        if phase == Phase.ACTIONS:
            return self._gen_actions()
        if phase == Phase.RELOCATE:
            return self._gen_relocate()
        if phase == Phase.MOVE:
            return self._gen_move()
        if phase == Phase.REMOVE:
            return self._gen_remove()
        if phase == Phase.MARKERS:
            return [PlaceMarker(self.board.routes[r].code) for r in self._marker_routes()]
        if phase == Phase.OVER:
            return []
        return self._gen_two_player()

    def _gen_two_player(self) -> list[Move]:
        phase = self.phase
        if phase == Phase.PAWN_SETUP:
            return list(self._mt.pawn[False])
        if phase == Phase.PAWN_END:
            return self._pawn_options(paid=False) + [_END_TURN]
        if phase == Phase.NEUTRAL_OFFICE:
            return [NeutralOffice(self.board.cities[c].code) for c in self._neutral_office_cities()]
        return []

    def _neutral_office_cities(self) -> list[int]:
        """Cities of the pending neutral claim that have a free printed office."""
        if not self.neutral_pending:
            return []
        route = self.board.routes[self.neutral_pending[0]]
        return [c for c in route.cities if self.city_filled[c] < len(self.board.cities[c].offices)]

    def _gen_actions(self) -> list[Move]:
        p = self.current
        mt = self._mt
        out: list[Move] = []
        houses = self.houses
        allowed = self._allowed
        if self.actions_used < self.allowance():
            # Income
            st, sm = self.stk_t[p], self.stk_m[p]
            if st or sm:
                out.extend(self._income_options(p))
            # Place
            sp_t, sp_m = self.sup_t[p], self.sup_m[p]
            if sp_t or sp_m:
                if allowed is None:
                    free = [h for h, code in enumerate(houses) if code < 0]
                else:
                    house_route = self.board.house_route
                    free = [h for h, code in enumerate(houses) if code < 0 and house_route[h] in allowed]
                pt, pm = mt.place
                if sp_t:
                    out.extend([pt[h] for h in free])
                if sp_m:
                    out.extend([pm[h] for h in free])
            # Displace (the options per house and supply are precomputed)
            if sp_t + sp_m >= 2:
                base = (min(sp_t, 3) * 4 + min(sp_m, 3)) * 2
                table = mt.displace_options
                house_route = self.board.house_route
                for h, code in enumerate(houses):
                    if code < 0 or code >> 1 == p:
                        continue
                    if allowed is not None and house_route[h] not in allowed:
                        continue
                    out.extend(table[h][base + (code & 1)])
            # Move (lift own pieces)
            lift = mt.lift
            out.extend([lift[h] for h, code in enumerate(houses) if code >> 1 == p])
            # Claim
            for r in self._claimable_routes(p):
                out.extend(self._claim_options(p, r))
            # Paid pawn move (two players)
            if self.pawn >= 0:
                out.extend(self._pawn_options(paid=True))
        if self.pawn >= 0 and self.actions_used == 0 and self._free_pawn_move_open(before=True):
            out.extend(self._pawn_options(paid=False))
        out.extend(self._marker_options(p))
        out.append(_END_TURN)
        return out

    def _income_options(self, p: int) -> list[Move]:
        st, sm = self.stk_t[p], self.stk_m[p]
        n = min(_BAG_VALUES[self.levels[p * 5 + BAGS]], st + sm)
        if self.options.income_up_to:
            return [Income(t, m) for total in range(1, n + 1) for m in range(max(0, total - st), min(sm, total) + 1) for t in (total - m,)]
        return [Income(n - m, m) for m in range(max(0, n - st), min(sm, n) + 1)]

    def _claimable_routes(self, p: int) -> list[int]:
        out = []
        houses = self.houses
        lo = p * 2
        allowed = self._allowed
        for r, free in enumerate(self.route_free):
            if free:
                continue
            if allowed is not None and r not in allowed:
                continue
            for h in self.board.routes[r].houses:
                code = houses[h]
                if code != lo and code != lo + 1:
                    break
            else:
                out.append(r)
        return out

    def _route_kinds(self, r: int) -> tuple[bool, bool]:
        """(has a Trader, has a Merchant) among the pieces on route ``r``."""
        has_t = has_m = False
        for h in self.board.routes[r].houses:
            if self.houses[h] & 1:
                has_m = True
            else:
                has_t = True
        return has_t, has_m

    def _claim_options(self, p: int, r: int) -> list[Move]:
        board = self.board
        route = board.routes[r]
        has_t, has_m = self._route_kinds(r)
        priv = _priv(self, p)
        out: list[Move] = [Claim(route.code)]
        has_extra = EXTRA_OFFICE in self.markers[p]
        for c in route.cities:
            city = board.cities[c]
            filled = self.city_filled[c]
            if filled < len(city.offices):
                o = city.offices[filled]
                if o.privilege <= priv and (has_m if o.round else has_t):
                    out.append(Claim(route.code, "office", city.code))
            if has_extra and (filled or self.extras[c]):
                if has_t:
                    out.append(Claim(route.code, "extra", city.code, "T"))
                if has_m:
                    out.append(Claim(route.code, "extra", city.code, "M"))
            if city.ability is not None and self.levels[p * 5 + city.ability] < ABILITY_MAX[city.ability]:
                out.append(Claim(route.code, "ability", city.code))
        if r == board.coellen_route and has_m:
            for i, (_, colour) in enumerate(board.coellen_table):
                if self.table[i] < 0 and colour <= priv:
                    out.append(Claim(route.code, "table", PRIVILEGE_COLOURS[colour - 1]))
        return out

    def _marker_options(self, p: int) -> list[Move]:
        held = self.markers[p]
        if not held:
            return []
        out: list[Move] = []
        for kind in sorted(set(held)):
            if kind in (PLUS3, PLUS4):
                out.append(_USE[kind])
            elif kind == IMPROVE:
                out.extend(Improve(ABILITY_NAMES[a]) for a in range(5) if self.levels[p * 5 + a] < ABILITY_MAX[a])
            elif kind == REMOVE3:
                if self._removable_any(p):
                    out.append(_USE[REMOVE3])
            elif kind == SWAP_OFFICES:
                out.extend(self._swap_options(p))
        return out

    def _has_usable_marker(self, p: int) -> bool:
        for kind in set(self.markers[p]):
            if kind in (PLUS3, PLUS4):
                return True
            if kind == IMPROVE and any(self.levels[p * 5 + a] < ABILITY_MAX[a] for a in range(5)):
                return True
            if kind == REMOVE3 and self._removable_any(p):
                return True
            if kind == SWAP_OFFICES and self._swap_options(p):
                return True
        return False

    def _swap_options(self, p: int) -> list[Move]:
        out: list[Move] = []
        need_own = self.options.swap_needs_own
        offices = self.offices
        for city in self.board.cities:
            base = city.office_base
            for i in range(len(city.offices) - 1):
                a, b = offices[base + i], offices[base + i + 1]
                if a < 0 or b < 0:
                    continue
                if need_own and a >> 1 != p and b >> 1 != p:
                    continue
                out.append(Swap(city.code, i + 1))
        return out

    def _removable(self, p: int, code: int) -> bool:
        if code < 0:
            return False
        if self.options.remove3_mode == "move" or self.options.remove3_targets == "opponents":
            return code >> 1 != p
        return True

    def _removable_any(self, p: int) -> bool:
        if self.options.remove3_mode == "move" and self.free_total == 0:
            return False
        return any(self._removable(p, code) for code in self.houses)

    def _gen_move(self) -> list[Move]:
        p = self.current
        out: list[Move] = []
        houses = self.houses
        if not self.dropping and self.lifted < _BOOK_VALUES[self.levels[p * 5 + BOOK]]:
            lift = self._mt.lift
            out.extend([lift[h] for h, code in enumerate(houses) if code >> 1 == p])
        free = [h for h, code in enumerate(houses) if code < 0]
        d_t, d_m = self._mt.drop
        hand = self.hand
        if TRADER in hand:
            out.extend([d_t[h] for h in free])
        if MERCHANT in hand:
            out.extend([d_m[h] for h in free])
        return out

    def _relocation_distance(self) -> int:
        """Smallest ring distance from the displacement route holding a free house (0 if none)."""
        free = self.route_free
        for d, ring in enumerate(self.board.rings[self.rl_route], start=1):
            for r in ring:
                if free[r]:
                    return d
        return 0

    def _gen_relocate(self) -> list[Move]:
        out: list[Move] = []
        board = self.board
        if self.hand:
            d = self._relocation_distance()
            if d:
                rel = self._mt.relocate
                kinds = sorted(set(self.hand))
                houses = self.houses
                for r in board.rings[self.rl_route][d - 1]:
                    if self.route_free[r]:
                        for h in board.routes[r].houses:
                            if houses[h] < 0:
                                for k in kinds:
                                    out.append(rel[k][h])
        out.extend(self._extra_options())
        if not self.hand:
            out.append(_DONE)
        return out

    def _extra_options(self) -> list[Move]:
        """Ways the displaced owner may take one more extra piece into hand (RULES.md §2.4.3.2)."""
        if self.rl_extras <= 0:
            return []
        b = self.rl_owner
        free_out = self.free_total - self.route_free[self.rl_route]
        need = len(self.hand) + 1
        if b == NEUTRAL:  # optional extra neutral (opt.neutralExtraMandatory = false) comes from the pool
            return [_TAKE[TRADER]] if free_out >= need else []
        if self.stk_t[b] or self.stk_m[b]:
            if free_out < need:
                return []
            return [_TAKE[k] for k, n in ((0, self.stk_t[b]), (1, self.stk_m[b])) if n]
        if self.sup_t[b] or self.sup_m[b]:
            if free_out < need:
                return []
            return [_TAKE[k] for k, n in ((0, self.sup_t[b]), (1, self.sup_m[b])) if n]
        out: list[Move] = []
        lo = b * 2
        house_route = self.board.house_route
        lift = self._mt.lift_extra
        for h, code in enumerate(self.houses):
            if code == lo or code == lo + 1:
                if house_route[h] != self.rl_route or free_out >= need:
                    out.append(lift[h])
        return out

    def _gen_remove(self) -> list[Move]:
        p = self.current
        out: list[Move] = []
        if self.rm_left > 0:
            if self.options.remove3_mode == "move":
                free = [self.board.house_names[h] for h, code in enumerate(self.houses) if code < 0]
                for h, code in enumerate(self.houses):
                    if self._removable(p, code):
                        src = self.board.house_names[h]
                        out.extend(Shift(src, dst) for dst in free)
            else:
                rem = self._mt.remove
                out.extend(rem[h] for h, code in enumerate(self.houses) if self._removable(p, code))
        out.append(_DONE)
        return out

    def _marker_routes(self) -> list[int]:
        """Routes that may take a replacement marker now (RULES.md §3.4)."""
        board = self.board
        out = []
        free_office = self.options.marker_city_rule == "freeOffice"
        for r, route in enumerate(board.routes):
            if self.route_marker[r] >= 0 or self.route_free[r] != route.spaces:
                continue
            for c in route.cities:
                if free_office:
                    if self.city_filled[c] < len(board.cities[c].offices):
                        break
                elif self.city_filled[c] or self.extras[c]:
                    break
            else:
                continue
            out.append(r)
        return out

    def _pawn_options(self, paid: bool) -> list[Move]:
        """Pawn moves: paid to any other province, free across 1 or 2 borders (RULES.md §5.B)."""
        moves = self._mt.pawn[paid]
        if paid:
            return [m for i, m in enumerate(moves) if i != self.pawn]
        dist = self.board.province_distance[self.pawn]
        return [m for i, m in enumerate(moves) if 1 <= dist[i] <= 2]

    def _free_pawn_move_open(self, before: bool) -> bool:
        """May the active player still make a free pawn move (before the first / after the last action)?"""
        used = self.pawn_free_used
        if self.options.pawn_free_moves == "once":
            return used == 0
        return not used & (1 if before else 2)

    # ------------------------------------------------------------------------------------------ playing

    def play(self, move: Move, player: int | None = None) -> None:
        """Validate ``move`` for the deciding player and apply it.

        ``player`` (optional) is the seat submitting the move; a move from any other seat than
        :attr:`decider` raises :class:`WrongPlayerError`.  Any illegal move raises an
        :class:`IllegalMoveError` subclass whose message names the rule; the state is then unchanged.
        """
        if self.phase == Phase.OVER:
            raise GameOverError("the game is over; no more moves", "§4.2")
        if player is not None and player != self.decider:
            raise WrongPlayerError(
                f"seat {player} cannot move now: seat {self.decider} must decide ({self.phase.name.lower()})",
                "§2.1",
            )
        handler = _HANDLERS.get(type(move))
        if handler is None:
            raise IllegalMoveError(f"{move!r} is not a Hansa move")
        handler(self, move)

    # -- helpers shared by the handlers

    def _house(self, name: str) -> int:
        h = self.board.house_index.get(name)
        if h is None:
            raise IllegalMoveError(f"there is no house {name!r} on the {self.board.side} board", "Appendix A")
        return h

    def _route(self, code: str) -> int:
        r = self.board.route_index.get(code)
        if r is None:
            raise IllegalMoveError(f"there is no route {code!r} on the {self.board.side} board", "Appendix A")
        return r

    def _city(self, code: str | None) -> int:
        c = self.board.city_index.get(code) if isinstance(code, str) else None
        if c is None:
            raise IllegalMoveError(f"there is no city {code!r}", "Appendix A")
        return c

    def _kind(self, letter: str) -> int:
        k = _LETTER.get(letter)
        if k is None:
            raise IllegalMoveError(f"{letter!r} is not a piece (T or M)")
        return k

    def _need_phase(self, phase: Phase, what: str) -> None:
        if self.phase != phase:
            raise IllegalMoveError(f"{what} is not possible now: {_PHASE_TEXT[self.phase]}", _PHASE_RULE[self.phase])

    def _start_action(self, what: str) -> None:
        self._need_phase(Phase.ACTIONS, what)
        if self.actions_used >= self.allowance():
            raise IllegalMoveError(
                f"{what} needs an action, but all {self.allowance()} actions of this turn are used", "§2.1"
            )

    def _check_route_allowed(self, r: int, what: str) -> None:
        if self._allowed is not None and r not in self._allowed:
            raise IllegalMoveError(
                f"{what} is only possible on routes bordering the pawn's province", "§5.B"
            )

    # -- actions

    def _do_income(self, move: Income) -> None:
        self._start_action("Income")
        p = self.current
        st, sm = self.stk_t[p], self.stk_m[p]
        t, m = move.traders, move.merchants
        if not isinstance(t, int) or not isinstance(m, int) or t < 0 or m < 0:
            raise IllegalMoveError("Income takes a non-negative number of Traders and Merchants", "§2.2")
        if st + sm == 0:
            raise IllegalMoveError("Income with an empty stock does nothing and is refused", "§2.2")
        if t > st or m > sm:
            raise IllegalMoveError(f"your stock holds only {st} Traders and {sm} Merchants", "§2.2")
        n = min(_BAG_VALUES[self.levels[p * 5 + BAGS]], st + sm)
        if self.options.income_up_to:
            if not 1 <= t + m <= n:
                raise IllegalMoveError(f"Income takes 1 to {n} pieces now", "§2.2 opt.incomeUpTo")
        elif t + m != n:
            raise IllegalMoveError(f"Income must take exactly {n} pieces (Money bags and stock allow {n})", "§2.2")
        self.stk_t[p] -= t
        self.stk_m[p] -= m
        self.sup_t[p] += t
        self.sup_m[p] += m
        self.actions_used += 1
        self._after_action()

    def _do_place(self, move: Place) -> None:
        self._start_action("Place")
        p = self.current
        h = self._house(move.house)
        kind = self._kind(move.piece)
        if self.houses[h] >= 0:
            raise IllegalMoveError(f"house {move.house} is occupied", "§2.3")
        if (self.sup_m if kind else self.sup_t)[p] <= 0:
            raise IllegalMoveError(f"you have no {_KIND_NAME[kind]} in your supply", "§2.3")
        r = self.board.house_route[h]
        self._check_route_allowed(r, "Place")
        (self.sup_m if kind else self.sup_t)[p] -= 1
        self.houses[h] = p * 2 + kind
        self.route_free[r] -= 1
        self.free_total -= 1
        self.actions_used += 1
        self._after_action()

    def _do_displace(self, move: Displace) -> None:
        self._start_action("Displace")
        p = self.current
        h = self._house(move.house)
        kind = self._kind(move.piece)
        code = self.houses[h]
        if code < 0:
            raise IllegalMoveError(f"house {move.house} is empty: there is nothing to displace", "§2.4")
        if code >> 1 == p:
            raise IllegalMoveError("you cannot displace your own piece", "§2.4")
        r = self.board.house_route[h]
        self._check_route_allowed(r, "Displace")
        k = 1 + (code & 1)
        st, sm = self.sup_t[p], self.sup_m[p]
        if st + sm < 1 + k:
            raise IllegalMoveError(
                f"displacing a {_KIND_NAME[code & 1]} needs {1 + k} pieces in your supply, you have {st + sm}", "§2.4"
            )
        if (sm if kind else st) < 1:
            raise IllegalMoveError(f"you have no {_KIND_NAME[kind]} in your supply", "§2.4")
        pay = move.pay
        if not isinstance(pay, str) or len(pay) != k or any(ch not in "TM" for ch in pay):
            raise IllegalMoveError(f"the penalty for a {_KIND_NAME[code & 1]} is {k} piece(s), like {'T' * k}", "§2.4")
        pay_m = pay.count("M")
        rt, rm = st - (kind == 0), sm - (kind == 1)
        if pay_m > rm or k - pay_m > rt:
            raise IllegalMoveError(f"after placing, your supply cannot pay {pay}", "§2.4")
        # Apply: the displacing piece, the penalty, then the relocation.
        self.sup_t[p] = rt - (k - pay_m)
        self.sup_m[p] = rm - pay_m
        self.stk_t[p] += k - pay_m
        self.stk_m[p] += pay_m
        self.houses[h] = p * 2 + kind
        self.actions_used += 1
        owner = code >> 1
        if self.free_total - self.route_free[r] <= 0:
            # RULES.md §2.4.3.5 [REC]: nowhere to go -> the displaced piece goes to its owner's stock.
            if owner != NEUTRAL:
                (self.stk_m if code & 1 else self.stk_t)[owner] += 1
            self._after_action()
            return
        self.phase = Phase.RELOCATE
        self.rl_owner = owner
        self.rl_route = r
        self.hand = (code & 1,)
        self.rl_extras = k
        self._begin_relocation()

    def _begin_relocation(self) -> None:
        """A displaced neutral Trader brings one more neutral Trader from the pool (RULES.md §5.A)."""
        if self.rl_owner != NEUTRAL:
            return
        self.rl_extras = 1
        if self.options.neutral_extra_mandatory:
            self.rl_extras = 0
            if self.free_total - self.route_free[self.rl_route] >= 2:
                self.hand = (TRADER, TRADER)

    def _do_lift(self, move: Lift) -> None:
        p = self.current
        if self.phase == Phase.ACTIONS:
            self._start_action("Move")
            starting = True
        else:
            self._need_phase(Phase.MOVE, "Lifting a piece")
            starting = False
            if self.dropping:
                raise IllegalMoveError("you already started putting the lifted pieces down", "§2.5")
            book = _BOOK_VALUES[self.levels[p * 5 + BOOK]]
            if self.lifted >= book:
                raise IllegalMoveError(f"Liber Sophiae {book} lets you move at most {book} pieces", "§2.5")
        h = self._house(move.house)
        code = self.houses[h]
        if code < 0 or code >> 1 != p:
            raise IllegalMoveError(f"you can only move your own pieces on routes; {move.house} holds none", "§2.5")
        if starting:
            self.actions_used += 1
            self.phase = Phase.MOVE
            self.lifted = 0
            self.dropping = False
            self.hand = ()
        self.houses[h] = EMPTY
        r = self.board.house_route[h]
        self.route_free[r] += 1
        self.free_total += 1
        self.hand = self.hand + (code & 1,)
        self.lifted += 1

    def _do_drop(self, move: Drop) -> None:
        self._need_phase(Phase.MOVE, "Dropping a piece")
        p = self.current
        h = self._house(move.house)
        kind = self._kind(move.piece)
        if kind not in self.hand:
            raise IllegalMoveError(f"you have not lifted a {_KIND_NAME[kind]}", "§2.5")
        if self.houses[h] >= 0:
            raise IllegalMoveError(f"house {move.house} is occupied; moving never displaces", "§2.5")
        self.houses[h] = p * 2 + kind
        r = self.board.house_route[h]
        self.route_free[r] -= 1
        self.free_total -= 1
        self.hand = _without(self.hand, kind)
        self.dropping = True
        if not self.hand:
            self.phase = Phase.ACTIONS
            self.lifted = 0
            self.dropping = False
            self._after_action()

    def _do_claim(self, move: Claim) -> None:
        self._start_action("Claim")
        p = self.current
        r = self._route(move.route)
        route = self.board.routes[r]
        lo = p * 2
        for h in route.houses:
            code = self.houses[h]
            if code < 0:
                raise IllegalMoveError(f"route {move.route} has a free house; it cannot be claimed", "§2.6")
            if code != lo and code != lo + 1:
                raise IllegalMoveError(f"route {move.route} holds another owner's piece; it cannot be claimed", "§2.6")
        self._check_route_allowed(r, "Claim")
        benefit = self._check_benefit(p, r, move)
        self._apply_claim(p, r, benefit)
        self.actions_used += 1
        self._after_action()

    def _check_benefit(self, p: int, r: int, move: Claim) -> tuple[str, int, int]:
        """Validate the claim's benefit (RULES.md §2.6 c); return ``(benefit, city or space, piece kind)``."""
        board = self.board
        route = board.routes[r]
        benefit = move.benefit
        has_t, has_m = self._route_kinds(r)
        priv = _priv(self, p)
        if benefit == "nothing":
            if move.target is not None or move.piece is not None:
                raise IllegalMoveError("the benefit 'nothing' takes no city or piece", "§2.6")
            return ("nothing", -1, -1)
        if benefit == "table":
            if r != board.coellen_route:
                raise IllegalMoveError("only the Coellen-Warburg route reaches the Coellen table", "§2.6")
            if move.target not in PRIVILEGE_COLOURS:
                raise IllegalMoveError(f"{move.target!r} is not a Coellen table colour", "§2.6")
            colour = PRIVILEGE_COLOURS.index(move.target) + 1
            space = next(i for i, (_, c) in enumerate(board.coellen_table) if c == colour)
            if not has_m:
                raise IllegalMoveError("the Coellen table takes only a Merchant from the route", "§2.6")
            if self.table[space] >= 0:
                raise IllegalMoveError(f"the {move.target} Coellen table space is taken", "§2.6")
            if colour > priv:
                raise IllegalMoveError(
                    f"your Privilege ({PRIVILEGE_COLOURS[priv - 1]}) does not allow the {move.target} space", "§2.6"
                )
            if move.piece not in (None, "M"):
                raise IllegalMoveError("the Coellen table takes a Merchant", "§2.6")
            return ("table", space, MERCHANT)
        c = self._city(move.target)
        if c not in route.cities:
            raise IllegalMoveError(f"{move.target} is not a city of route {route.code}", "§2.6")
        city = board.cities[c]
        if benefit == "office":
            filled = self.city_filled[c]
            if filled >= len(city.offices):
                raise IllegalMoveError(f"{city.name} has no free office", "§2.7")
            o = city.offices[filled]
            if o.privilege > priv:
                raise IllegalMoveError(
                    f"the next office of {city.name} is {o.colour}; your Privilege is {PRIVILEGE_COLOURS[priv - 1]}",
                    "§2.7",
                )
            kind = MERCHANT if o.round else TRADER
            if not (has_m if o.round else has_t):
                raise IllegalMoveError(
                    f"the next office of {city.name} is {o.shape} and needs a {_KIND_NAME[kind]} from the route", "§2.7"
                )
            if move.piece not in (None, "TM"[kind]):
                raise IllegalMoveError(f"the next office of {city.name} takes a {_KIND_NAME[kind]}", "§2.7")
            return ("office", c, kind)
        if benefit == "extra":
            if EXTRA_OFFICE not in self.markers[p]:
                raise IllegalMoveError("you hold no unused Extra-office marker from an earlier action", "§3.3")
            if not (self.city_filled[c] or self.extras[c]):
                raise IllegalMoveError(f"an extra office needs a city with an office; {city.name} has none", "§3.3")
            kind = self._kind(move.piece) if move.piece is not None else -1
            if kind < 0:
                raise IllegalMoveError("say which route piece becomes the extra office (T or M)", "§3.3")
            if not (has_m if kind else has_t):
                raise IllegalMoveError(f"route {route.code} has no {_KIND_NAME[kind]} of yours", "§3.3")
            return ("extra", c, kind)
        if benefit == "ability":
            if city.ability is None:
                raise IllegalMoveError(f"{city.name} is not an ability city", "§2.6")
            if self.levels[p * 5 + city.ability] >= ABILITY_MAX[city.ability]:
                raise IllegalMoveError(f"your {ABILITY_NAMES[city.ability]} ability is already fully developed", "§1.3")
            if move.piece is not None:
                raise IllegalMoveError("an ability upgrade takes no piece argument", "§2.6")
            return ("ability", c, -1)
        raise IllegalMoveError(f"unknown claim benefit {benefit!r}", "§2.6")

    def _apply_claim(self, p: int, r: int, benefit: tuple[str, int, int]) -> None:
        board = self.board
        route = board.routes[r]
        # (a) control points, computed before the new office
        for c in route.cities:
            ctrl = self.controller(c)
            if ctrl is not None and ctrl != NEUTRAL:
                self.score[ctrl] += 1
        # (b) bonus marker and its face-down replacement
        marker = self.route_marker[r]
        if marker >= 0:
            self.route_marker[r] = EMPTY
            self.markers[p] = self.markers[p] + (marker,)
            if self.marker_supply:
                self.plate[p] = self.plate[p] + (self.marker_supply.pop(),)
            else:
                self._t2 = True
        # (c) the benefit, then (d) every other route piece to the stock
        kind_t = kind_m = 0
        for h in route.houses:
            if self.houses[h] & 1:
                kind_m += 1
            else:
                kind_t += 1
            self.houses[h] = EMPTY
        self.route_free[r] = route.spaces
        self.free_total += route.spaces
        what, target, kind = benefit
        if kind == TRADER:
            kind_t -= 1
        elif kind == MERCHANT:
            kind_m -= 1
        self.stk_t[p] += kind_t
        self.stk_m[p] += kind_m
        code = p * 2 + kind
        if what == "office":
            self._establish(p, target, code)
        elif what == "extra":
            self._use_marker(p, EXTRA_OFFICE)
            self.extras[target] = (code,) + self.extras[target]
            self._check_east_west(p)
        elif what == "ability":
            ability = board.cities[target].ability
            assert ability is not None
            self._upgrade(p, ability)
        elif what == "table":
            self.table[target] = code

    def _establish(self, owner: int, c: int, code: int) -> None:
        """Put ``code`` on the leftmost free printed office of city ``c`` (RULES.md §2.7 steps 4-7)."""
        city = self.board.cities[c]
        filled = self.city_filled[c]
        self.offices[city.office_base + filled] = code
        self.city_filled[c] = filled + 1
        if owner != NEUTRAL and city.offices[filled].coin:
            self.score[owner] += 1
        if filled + 1 == len(city.offices):
            self.completed += 1
        if owner != NEUTRAL:
            self._check_east_west(owner)

    def _check_east_west(self, p: int) -> None:
        if p in self.ew_paid:
            return
        per_city = self.cities_with_office(p)
        if len(self.board.east_west) != 2:
            return
        a, b = self.board.east_west
        if not per_city[a] or not per_city[b]:
            return
        seen = {a}
        stack = [a]
        cities = self.board.cities
        while stack:
            c = stack.pop()
            if c == b:
                paid = len(self.ew_paid)
                self.score[p] += EAST_WEST_BONUS[paid] if paid < len(EAST_WEST_BONUS) else 0
                self.ew_paid.append(p)
                return
            for nb in cities[c].neighbours:
                if per_city[nb] and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)

    def _upgrade(self, p: int, ability: int) -> None:
        self.levels[p * 5 + ability] += 1
        if ABILITY_RELEASES[ability] == MERCHANT:
            self.sup_m[p] += 1
        else:
            self.sup_t[p] += 1

    def _use_marker(self, p: int, kind: int) -> None:
        self.markers[p] = _without(self.markers[p], kind)
        self.used_markers[p] = self.used_markers[p] + (kind,)

    # -- relocation

    def _do_relocate(self, move: Relocate) -> None:
        self._need_phase(Phase.RELOCATE, "Relocating")
        h = self._house(move.house)
        kind = self._kind(move.piece)
        if kind not in self.hand:
            raise IllegalMoveError(f"you have no {_KIND_NAME[kind]} to relocate", "§2.4")
        if self.houses[h] >= 0:
            raise IllegalMoveError(f"house {move.house} is occupied", "§2.4")
        r = self.board.house_route[h]
        if r == self.rl_route:
            raise IllegalMoveError("a displaced piece cannot go back onto the route it was displaced from", "§2.4")
        d = self._relocation_distance()
        dist = self.board.distance[self.rl_route][r]
        if dist != d:
            raise IllegalMoveError(
                f"relocated pieces go to the nearest routes with a free house (distance {d}); "
                f"{self.board.routes[r].code} is at distance {dist}",
                "§2.4",
            )
        self.houses[h] = self.rl_owner * 2 + kind
        self.route_free[r] -= 1
        self.free_total -= 1
        self.hand = _without(self.hand, kind)
        self._after_neutral_placement(r)
        self._relocation_progress()

    def _after_neutral_placement(self, r: int) -> None:
        """A route whose every house holds a neutral piece is claimed at once (RULES.md §5.A)."""
        if self.rl_owner != NEUTRAL or self.route_free[r]:
            return
        neutral = NEUTRAL * 2
        if any(self.houses[h] != neutral for h in self.board.routes[r].houses):
            return
        # 1. control points for real controllers, before the office
        for c in self.board.routes[r].cities:
            ctrl = self.controller(c)
            if ctrl is not None and ctrl != NEUTRAL:
                self.score[ctrl] += 1
        # 2. the marker is discarded; its replacement goes to the active player's plate
        if self.route_marker[r] >= 0:
            self.route_marker[r] = EMPTY
            self.neutral_discards += 1
            if self.marker_supply:
                self.plate[self.current] = self.plate[self.current] + (self.marker_supply.pop(),)
            else:
                self._t2 = True
        self.neutral_pending = (r,)
        cities = self._neutral_office_cities()
        if len(cities) == 2:
            self.phase = Phase.NEUTRAL_OFFICE  # the active player chooses the city
            return
        self._neutral_office(cities[0] if cities else -1)

    def _neutral_office(self, c: int) -> None:
        """3-4 of a neutral claim: office in city ``c`` (or none), the rest back to the pool."""
        r = self.neutral_pending[0]
        self.neutral_pending = ()
        route = self.board.routes[r]
        if c >= 0:
            self._establish(NEUTRAL, c, NEUTRAL * 2)
        for h in route.houses:
            self.houses[h] = EMPTY
        self.route_free[r] = route.spaces
        self.free_total += route.spaces
        if self.options.neutral_keep_on_ability_route and self._neutral_setup_route(r):
            self._put_neutral(r)
        self.phase = Phase.RELOCATE

    def _do_neutral_office(self, move: NeutralOffice) -> None:
        self._need_phase(Phase.NEUTRAL_OFFICE, "Choosing the city of a neutral claim")
        c = self._city(move.city)
        if c not in self._neutral_office_cities():
            route = self.board.routes[self.neutral_pending[0]]
            raise IllegalMoveError(
                f"the neutral claim of {route.code} establishes in one of its cities with a free office", "§5.A"
            )
        self._neutral_office(c)
        self._relocation_progress()

    def _relocation_progress(self) -> None:
        if self.phase != Phase.RELOCATE or self.hand:
            return
        if not self._extra_options():
            self._finish_relocation()

    def _finish_relocation(self) -> None:
        self.phase = Phase.ACTIONS
        self.hand = ()
        self.rl_owner = -1
        self.rl_route = -1
        self.rl_extras = 0
        self._after_action()

    def _do_take_extra(self, move: TakeExtra) -> None:
        self._need_phase(Phase.RELOCATE, "Taking an extra piece")
        kind = self._kind(move.piece)
        b = self.rl_owner
        if self.rl_extras <= 0:
            raise IllegalMoveError("no more extra pieces may be relocated", "§2.4")
        free_out = self.free_total - self.route_free[self.rl_route]
        if free_out < len(self.hand) + 1:
            raise IllegalMoveError("there is no free house left for another extra piece", "§2.4")
        if b == NEUTRAL:
            if kind != TRADER:
                raise IllegalMoveError("the neutral player has only Traders", "§5.A")
            self.hand = self.hand + (TRADER,)
            self.rl_extras -= 1
            return
        if self.stk_t[b] or self.stk_m[b]:
            src_t, src_m, where = self.stk_t, self.stk_m, "stock"
        elif self.sup_t[b] or self.sup_m[b]:
            src_t, src_m, where = self.sup_t, self.sup_m, "supply"
        else:
            raise IllegalMoveError("your stock and supply are empty; take a piece from the board instead", "§2.4")
        src = src_m if kind else src_t
        if src[b] <= 0:
            raise IllegalMoveError(
                f"extra pieces come from your {where} while it is not empty, and it has no {_KIND_NAME[kind]}", "§2.4"
            )
        src[b] -= 1
        self.hand = self.hand + (kind,)
        self.rl_extras -= 1

    def _do_lift_extra(self, move: LiftExtra) -> None:
        self._need_phase(Phase.RELOCATE, "Taking an extra piece")
        b = self.rl_owner
        h = self._house(move.house)
        if b == NEUTRAL or self.rl_extras <= 0:
            raise IllegalMoveError("no more extra pieces may be relocated", "§2.4")
        if self.stk_t[b] or self.stk_m[b] or self.sup_t[b] or self.sup_m[b]:
            raise IllegalMoveError("extra pieces come from your stock, then your supply, before the board", "§2.4")
        code = self.houses[h]
        if code < 0 or code >> 1 != b:
            raise IllegalMoveError(f"house {move.house} holds no piece of yours", "§2.4")
        r = self.board.house_route[h]
        free_out = self.free_total - self.route_free[self.rl_route]
        if r == self.rl_route and free_out < len(self.hand) + 1:
            raise IllegalMoveError("there is no free house left for another extra piece", "§2.4")
        self.houses[h] = EMPTY
        self.route_free[r] += 1
        self.free_total += 1
        self.hand = self.hand + (code & 1,)
        self.rl_extras -= 1

    def _do_done(self, move: Done) -> None:
        if self.phase == Phase.RELOCATE:
            if self.hand:
                raise IllegalMoveError("the displaced piece (and every extra taken) must be placed first", "§2.4")
            self._finish_relocation()
        elif self.phase == Phase.REMOVE:
            self._finish_remove()
        else:
            raise IllegalMoveError(f"'done' is not possible now: {_PHASE_TEXT[self.phase]}", _PHASE_RULE[self.phase])

    # -- bonus markers

    def _marker_turn(self, what: str, kind: int) -> int:
        self._need_phase(Phase.ACTIONS, what)
        p = self.current
        if kind not in self.markers[p]:
            raise IllegalMoveError(f"you hold no unused {MARKER_NAMES[kind]} marker", "§3.2")
        return p

    def _do_use(self, move: UseMarker) -> None:
        kind = _USE_BY_NAME.get(move.marker)
        if kind is None:
            raise IllegalMoveError(f"unknown marker {move.marker!r}", "§3.3")
        p = self._marker_turn(f"Using {move.marker}", kind)
        if kind == REMOVE3:
            if not self._removable_any(p):
                raise IllegalMoveError("there is no piece Remove 3 could take", "§3.3")
            self._use_marker(p, kind)
            self.phase = Phase.REMOVE
            self.rm_left = 3
            return
        self._use_marker(p, kind)
        self.bonus_actions += 3 if kind == PLUS3 else 4

    def _do_improve(self, move: Improve) -> None:
        p = self._marker_turn("Improve ability", IMPROVE)
        if move.ability not in ABILITY_NAMES:
            raise IllegalMoveError(f"{move.ability!r} is not an ability", "§1.3")
        a = ABILITY_NAMES.index(move.ability)
        if self.levels[p * 5 + a] >= ABILITY_MAX[a]:
            raise IllegalMoveError(f"your {move.ability} ability is already fully developed", "§3.3")
        self._use_marker(p, IMPROVE)
        self._upgrade(p, a)
        self._maybe_auto_end()

    def _do_swap(self, move: Swap) -> None:
        p = self._marker_turn("Swap offices", SWAP_OFFICES)
        c = self._city(move.city)
        city = self.board.cities[c]
        i = move.office
        if not isinstance(i, int) or not 1 <= i < len(city.offices):
            raise IllegalMoveError(
                f"swap needs two neighbouring printed offices of {city.name}: office 1..{len(city.offices) - 1} "
                "and the one to its right",
                "§3.3",
            )
        a, b = city.office_base + i - 1, city.office_base + i
        if self.offices[a] < 0 or self.offices[b] < 0:
            raise IllegalMoveError("both swapped offices must be occupied", "§3.3")
        if self.options.swap_needs_own and self.offices[a] >> 1 != p and self.offices[b] >> 1 != p:
            raise IllegalMoveError("one of the swapped offices must be yours", "§3.3 opt.swapNeedsOwn")
        self._use_marker(p, SWAP_OFFICES)
        self.offices[a], self.offices[b] = self.offices[b], self.offices[a]
        self._maybe_auto_end()

    def _do_remove(self, move: Remove) -> None:
        self._need_phase(Phase.REMOVE, "Removing a piece")
        if self.options.remove3_mode == "move":
            raise IllegalMoveError("with opt.remove3Mode=move the marker moves pieces (shift)", "§3.3")
        p = self.current
        h = self._house(move.house)
        code = self.houses[h]
        if code < 0:
            raise IllegalMoveError(f"house {move.house} is empty", "§3.3")
        if not self._removable(p, code):
            raise IllegalMoveError("Remove 3 may take only opponents' pieces here", "§3.3 opt.remove3Targets")
        if self.rm_left <= 0:
            raise IllegalMoveError("Remove 3 takes at most 3 pieces", "§3.3")
        owner = code >> 1
        self.houses[h] = EMPTY
        r = self.board.house_route[h]
        self.route_free[r] += 1
        self.free_total += 1
        if owner != NEUTRAL:
            (self.sup_m if code & 1 else self.sup_t)[owner] += 1
        self.rm_left -= 1
        if self.rm_left == 0 or not self._removable_any(p):
            self._finish_remove()

    def _do_shift(self, move: Shift) -> None:
        self._need_phase(Phase.REMOVE, "Moving a piece with the marker")
        if self.options.remove3_mode != "move":
            raise IllegalMoveError("Remove 3 removes pieces; 'shift' needs opt.remove3Mode=move", "§3.3")
        p = self.current
        h = self._house(move.house)
        to = self._house(move.to)
        code = self.houses[h]
        if code < 0 or code >> 1 == p:
            raise IllegalMoveError("Move 3 moves opponents' pieces", "§3.3 opt.remove3Mode")
        if self.houses[to] >= 0:
            raise IllegalMoveError(f"house {move.to} is occupied", "§3.3")
        if self.rm_left <= 0:
            raise IllegalMoveError("the marker moves at most 3 pieces", "§3.3")
        self.houses[h] = EMPTY
        self.houses[to] = code
        hr, tr = self.board.house_route[h], self.board.house_route[to]
        self.route_free[hr] += 1
        self.route_free[tr] -= 1
        self.rm_left -= 1
        if self.rm_left == 0 or not self._removable_any(p):
            self._finish_remove()

    def _finish_remove(self) -> None:
        self.phase = Phase.ACTIONS
        self.rm_left = 0
        self._maybe_auto_end()

    # -- end of action / turn / game

    def _after_action(self) -> None:
        """Called when an action is completely resolved: game-end check (RULES.md §4.2), then auto end of turn."""
        if self._t2 or self.completed >= CITIES_TO_END or max(self.score) >= WIN_SCORE:
            triggers = []
            if max(self.score) >= WIN_SCORE:
                triggers.append("score")
            if self._t2:
                triggers.append("markers")
            if self.completed >= CITIES_TO_END:
                triggers.append("cities")
            self.end_triggers = tuple(triggers)
            self.phase = Phase.OVER
            self.discarded = sum(len(pl) for pl in self.plate)
            self.plate = [()] * self.players
            self.hand = ()
            return
        self._maybe_auto_end()

    def _maybe_auto_end(self) -> None:
        """End the turn by itself when no action is left and no marker can be used (nothing to decide)."""
        if self.phase == Phase.ACTIONS and self.actions_used >= self.allowance() and not self._has_usable_marker(self.current):
            self._end_turn()

    def _do_end_turn(self, move: EndTurn) -> None:
        if self.phase == Phase.PAWN_END:  # decline the free pawn move
            self._finish_turn()
            return
        self._need_phase(Phase.ACTIONS, "Ending the turn")
        self._end_turn()

    def _end_turn(self) -> None:
        if self.plate[self.current] and self._marker_routes():
            self.phase = Phase.MARKERS
            return
        self._after_markers()

    def _after_markers(self) -> None:
        """§2.9 step 3: the optional free pawn move after the last action, then the next turn."""
        if self.pawn >= 0 and self._free_pawn_move_open(before=False):
            self.phase = Phase.PAWN_END
            return
        self._finish_turn()

    def _do_place_marker(self, move: PlaceMarker) -> None:
        self._need_phase(Phase.MARKERS, "Placing a bonus marker")
        r = self._route(move.route)
        if r not in self._marker_routes():
            route = self.board.routes[r]
            if self.route_marker[r] >= 0:
                why = "it already has a bonus marker"
            elif self.route_free[r] != route.spaces:
                why = "it is not empty"
            elif self.options.marker_city_rule == "freeOffice":
                why = "neither of its cities has a free office"
            else:
                why = "neither of its cities has an office"
            raise IllegalMoveError(f"a bonus marker cannot go on {route.code}: {why}", "§3.4")
        p = self.current
        self.route_marker[r] = self.plate[p][0]
        self.plate[p] = self.plate[p][1:]
        self._after_marker_placed(r)
        if not self.plate[p] or not self._marker_routes():
            self._after_markers()

    def _after_marker_placed(self, r: int) -> None:
        """Neutral variant: a neutral Trader joins each route that just received a marker (§5.A)."""
        if self.neutral_variant:
            self._put_neutral(r)

    def _finish_turn(self) -> None:
        self.current = (self.current + 1) % self.players
        self.turn += 1
        self.actions_used = 0
        self.bonus_actions = 0
        self.pawn_free_used = 0
        self.phase = Phase.ACTIONS

    def _do_pawn(self, move: Pawn) -> None:
        if self.players != 2 or self.options.two_player_variant != "pawn":
            raise IllegalMoveError("there is no pawn in this game", "§5.B")
        target = self.board.province_index.get(move.province) if isinstance(move.province, str) else None
        if target is None:
            raise IllegalMoveError(f"there is no province {move.province!r}", "§5.B")
        phase = self.phase
        if phase == Phase.PAWN_SETUP:
            if move.paid:
                raise IllegalMoveError("placing the pawn at the start costs nothing", "§5.B")
            self._set_pawn(target)
            self.phase = Phase.ACTIONS
            return
        if move.paid:
            self._start_action("A paid pawn move")
            if target == self.pawn:
                raise IllegalMoveError("the pawn is already in that province", "§5.B")
            self._set_pawn(target)
            self.actions_used += 1
            self._after_action()
            return
        dist = self.board.province_distance[self.pawn][target]
        if phase == Phase.ACTIONS:
            if self.actions_used:
                raise IllegalMoveError(
                    "the free pawn move comes before the first action or after the last one (end the turn first)",
                    "§5.B",
                )
            before = True
        elif phase == Phase.PAWN_END:
            before = False
        else:
            raise IllegalMoveError(f"moving the pawn is not possible now: {_PHASE_TEXT[phase]}", _PHASE_RULE[phase])
        if not self._free_pawn_move_open(before):
            raise IllegalMoveError("the free pawn move of this turn is used", "§5.B opt.pawnFreeMoves")
        if not 1 <= dist <= 2:
            raise IllegalMoveError(
                f"a free pawn move crosses 1 or 2 borders; {move.province} is {dist} away (pay an action to go further)",
                "§5.B",
            )
        self._set_pawn(target)
        self.pawn_free_used |= 1 if before else 2
        if phase == Phase.PAWN_END:
            self._finish_turn()

    def _set_pawn(self, province: int) -> None:
        self.pawn = province
        self._allowed = frozenset(self.board.provinces[province].routes)

    # ------------------------------------------------------------------------------------------ misc

    def __repr__(self) -> str:
        return (
            f"<GameState {self.players}p turn {self.turn} seat {self.current} {self.phase.name.lower()} "
            f"scores {self.score}>"
        )


def _priv(state: GameState, p: int) -> int:
    return ABILITY_VALUES[PRIVILEGE][state.levels[p * 5 + PRIVILEGE]]


def _without(items: tuple[int, ...], value: int) -> tuple[int, ...]:
    i = items.index(value)
    return items[:i] + items[i + 1 :]


_KIND_NAME = ("Trader", "Merchant")
_PHASE_TEXT = {
    Phase.ACTIONS: "the active player is choosing an action",
    Phase.MOVE: "a Move action is in progress (lift or drop pieces)",
    Phase.RELOCATE: "a displaced player is relocating pieces",
    Phase.REMOVE: "Remove 3 is in progress",
    Phase.MARKERS: "replacement bonus markers must be placed",
    Phase.PAWN_SETUP: "the pawn must be placed",
    Phase.PAWN_END: "the turn is ending (free pawn move)",
    Phase.NEUTRAL_OFFICE: "the city of a neutral claim must be chosen",
    Phase.OVER: "the game is over",
}
_PHASE_RULE = {
    Phase.ACTIONS: "§2.1",
    Phase.MOVE: "§2.5",
    Phase.RELOCATE: "§2.4",
    Phase.REMOVE: "§3.3",
    Phase.MARKERS: "§3.4",
    Phase.PAWN_SETUP: "§5.B",
    Phase.PAWN_END: "§5.B",
    Phase.NEUTRAL_OFFICE: "§5.A",
    Phase.OVER: "§4.2",
}

_HANDLERS: dict[type, Callable[[GameState, Any], None]] = {
    Income: GameState._do_income,
    Place: GameState._do_place,
    Displace: GameState._do_displace,
    Lift: GameState._do_lift,
    Drop: GameState._do_drop,
    Claim: GameState._do_claim,
    Relocate: GameState._do_relocate,
    TakeExtra: GameState._do_take_extra,
    LiftExtra: GameState._do_lift_extra,
    Done: GameState._do_done,
    UseMarker: GameState._do_use,
    Improve: GameState._do_improve,
    Swap: GameState._do_swap,
    Remove: GameState._do_remove,
    Shift: GameState._do_shift,
    EndTurn: GameState._do_end_turn,
    PlaceMarker: GameState._do_place_marker,
    Pawn: GameState._do_pawn,
    NeutralOffice: GameState._do_neutral_office,
}


def iter_players(state: GameState) -> Iterable[int]:
    """Seats in turn order starting with the start player."""
    return ((state.start_player + i) % state.players for i in range(state.players))
