"""The numbers of one seat's AI observation, gathered in the compiled core (no numpy here).

:func:`hansa.ai.observation.observe` turns these parts into the flat float32 vector documented in ``docs/ai.md``;
this module only walks the position, once, in compiled code.  The layout constants (field starts) come from the
caller, so the layout itself lives in one place (``hansa.ai.observation.ObservationSpec``).
"""

from __future__ import annotations

from typing import Any, Final

from .constants import MISSION_CARDS, NEUTRAL, TILE_DISPLAY, TILE_OUT
from .moves import Move
from .position import Phase
from .state import GameState

#: Player features per slot (``hansa.ai.observation.PLAYER_FEATURES``) and padded slots.
PLAYER_WIDTH = 23
SLOTS = 5
PHASES: Final = int(Phase.OVER) + 1  # the base game's phases (Phase.PERMANENT is an expansion phase)
#: Phases on an expansion board (Phase.PERMANENT included).
EXPANSION_PHASES: Final = int(Phase.PERMANENT) + 1
#: Phases of a game with the Big Box modules, on any board (Phase.SHARE and Phase.TRIBUTE included).
MODULE_PHASES: Final = int(Phase.TRIBUTE) + 1
#: Bonus marker types with a player feature of their own (extra office ... remove3); the promo markers (Exchange,
#: Tribute, Block) are counted in the module fields.
BASE_MARKER_TYPES: Final = 6
#: Flags of the module layout (its last entry): which Big Box modules the game uses.
MODULE_MISSIONS: Final = 1
MODULE_FAVOUR: Final = 2
MODULE_PROMO: Final = 4
_OVER: Final = int(Phase.OVER)
_RELOCATE: Final = int(Phase.RELOCATE)
_REMOVE: Final = int(Phase.REMOVE)
_MOVE: Final = int(Phase.MOVE)
_PERMANENT: Final = int(Phase.PERMANENT)


def action_flags(moves: list[Move], by_id: dict[int, int], size: int) -> tuple[bytearray, list[Move]]:
    """The action mask's bytes: ``size`` bytes, 1 at the index of every move of ``moves`` found in ``by_id`` (index
    by ``id()`` of the engine's interned move objects, kept by the caller, ``hansa.ai.actions``), and the moves not
    found there (made afresh: claims, improvements, marker placements, shifts), for the caller to look up by value."""
    flags = bytearray(size)
    missed: list[Move] = []
    for m in moves:
        i = by_id.get(id(m), -1)
        if i >= 0:
            flags[i] = 1
        else:
            missed.append(m)
    return flags, missed


def observation_parts(
    state: GameState, seat: int, extras_at: int, dense_at: int, players_at: int, relocation_route_at: int,
    pawn_at: int, dense_end: int, phases: int = PHASES, expansion: list[int] | None = None,
    modules: list[int] | None = None,
) -> tuple[bytes, bytes, bytes, list[int], list[float]]:
    """One seat's observation as parts (field starts in the flat vector: ``extras_at`` of ``extra_offices``,
    ``dense_at`` of ``city_filled``, ``players_at`` of ``players``, ... as laid out by ``ObservationSpec``):

    * ``entries``: one byte per one-hot entry — houses, printed offices, the Coellen table spaces (when the board has
      the table), routes, cities, in that order — its place within its block: 0 for the default (an empty house,
      office or table space, a route without a marker, a city without a controller), else the piece (1 + Trader of
      slot 0-5, 7 + Merchant of slot 0-5), the marker type (1 + type) or the controller (1 + slot);
    * ``dense``: one byte per value of the contiguous fields from ``city_filled`` to ``pawn`` (``city_filled``,
      ``players`` (slot order), ``phase`` (``phases`` wide: the base game's 9, or 10 on an expansion board),
      ``turn``, ``hand``, ``relocation_route``, ``relocation``, ``remove_left``, ``markers``, ``pawn``), as they
      lie in the vector: the counts before their division (the caller divides by ``ObservationSpec._dense_div``;
      the ``game`` field, the same all game, is the caller's);
    * ``on``: the expansion fields' places to set to 1, as uint16 positions (little-endian; the caller clears the
      default place of a green city's row entry); empty on a base side;
    * ``at`` / ``values``: the few other non-zero entries (extra offices, the expansion's counts), by position.

    A city's offices, for its controller and the players' office counts, are its extra offices, its printed ones and
    (East's green cities) the permanent marker's offices right of them, left to right.  ``expansion`` (an expansion
    board's layout, see :func:`_expansion_parts`) adds that board's state fields to ``on`` and ``at`` / ``values``;
    ``modules`` (a Big Box game's layout, see :func:`_module_parts`) the modules' fields, the observing seat's own
    mission card and no other.  The players' marker features count the six base types only (the promo markers are
    the modules' fields).
    """
    n = state.players
    slot = [5] * 6
    for q in range(n):
        slot[q] = (q - seat) % n
    slot[NEUTRAL] = 5
    # One-hot place of a piece code within its block: empty, Trader of slot 0-5, Merchant of slot 0-5.
    piece_place = [0] * 12
    for code in range(12):
        piece_place[code] = 1 + (code & 1) * 6 + slot[code >> 1]
    houses = state.houses
    offices = state.offices
    table = state.table
    route_marker = state.route_marker
    cities = state.board.cities
    n_cities = len(cities)
    n_houses = len(houses)
    n_offices = len(offices)
    n_table = 4 if len(table) == 4 else 0
    n_routes = len(route_marker)
    entries = [0] * (n_houses + n_offices + n_table + n_routes + n_cities)
    for i, code in enumerate(houses):
        if code >= 0:
            entries[i] = piece_place[code]
    e = n_houses
    for i, code in enumerate(offices):
        if code >= 0:
            entries[e + i] = piece_place[code]
    e += n_offices
    if n_table:
        for i, code in enumerate(table):
            if code >= 0:
                entries[e + i] = piece_place[code]
        e += 4
    markers_on_board = 0
    for i, code in enumerate(route_marker):
        if code >= 0:
            entries[e + i] = 1 + code
            markers_on_board += 1
    e += n_routes
    at: list[int] = []
    values: list[float] = []
    # Positions within ``dense``.
    players_d = players_at - dense_at
    phase_d = players_d + SLOTS * PLAYER_WIDTH
    turn_d = phase_d + phases
    relocation_route_d = relocation_route_at - dense_at
    tail = relocation_route_d + n_routes  # relocation, remove_left, markers
    dense = [0] * (dense_end - dense_at)
    office_n = [0] * 6  # offices (printed and extra) per owner, for the player features
    counts = [0] * 6  # offices per owner in the city being scanned (back to 0 after each city)
    right_offices = state.right_offices
    city_filled = state.city_filled
    extras = state.extras
    for c in range(n_cities):
        filled = city_filled[c]
        extra = extras[c]
        right = right_offices[c]
        if not filled and not extra and not right:
            continue
        # The controller (docs/rules.md §2.8.1): most offices, ties to the owner of the rightmost; extra offices
        # lie to the left of the printed ones.  Scanning left to right, the owner whose count reaches the most
        # the latest is the controller (``best``: the controller's count so far).
        owner = 0
        best = 0
        for code in extra:
            o = code >> 1
            k = counts[o] + 1
            counts[o] = k
            if k >= best:
                owner = o
                best = k
        if extra:
            for o in range(6):
                if counts[o]:
                    at.append(extras_at + c * 6 + slot[o])
                    values.append(float(counts[o]))
        city = cities[c]
        first = city.office_base
        for i in range(first, first + len(city.offices)):
            code = offices[i]
            if code >= 0:
                o = code >> 1
                k = counts[o] + 1
                counts[o] = k
                if k >= best:
                    owner = o
                    best = k
        for code in right:
            o = code >> 1
            k = counts[o] + 1
            counts[o] = k
            if k >= best:
                owner = o
                best = k
        # Add the city's offices to their owners' totals and clear its counts (only the owners present).
        for o in range(6):
            k = counts[o]
            if k:
                office_n[o] += k
                counts[o] = 0
        entries[e + c] = 1 + slot[owner]
        dense[c] = filled
    # Players, in slot order (the observer first), padded to five slots (the empty slots stay 0).
    phase = int(state.phase)
    over = phase == _OVER
    decider = -1 if over else state.decider
    current = -1 if over else state.current
    levels = state.levels
    for q in range(n):
        row = players_d + slot[q] * PLAYER_WIDTH
        lv = q * 5
        dense[row] = 1
        dense[row + 1] = state.sup_t[q]
        dense[row + 2] = state.sup_m[q]
        dense[row + 3] = state.stk_t[q]
        dense[row + 4] = state.stk_m[q]
        for j in range(5):
            dense[row + 5 + j] = levels[lv + j]
        dense[row + 10] = state.score[q]
        for m in state.markers[q]:
            if m < BASE_MARKER_TYPES:
                dense[row + 11 + m] += 1
        dense[row + 17] = len(state.used_markers[q])
        dense[row + 18] = len(state.plate[q])
        dense[row + 19] = office_n[q]
        if q in state.ew_paid:
            dense[row + 20] = 1
        if q == current:
            dense[row + 21] = 1
        if q == decider:
            dense[row + 22] = 1
    dense[phase_d + phase] = 1
    n_t = 0
    hand = state.hand
    for piece in hand:
        if piece == 0:
            n_t += 1
    allowance = state.allowance()
    dense[turn_d] = state.actions_used
    dense[turn_d + 1] = allowance
    dense[turn_d + 2] = state.bonus_actions
    dense[turn_d + 3] = max(0, allowance - state.actions_used)
    dense[turn_d + 4] = min(state.turn, 100)
    dense[turn_d + 5] = state.completed
    dense[turn_d + 6] = n_t
    dense[turn_d + 7] = len(hand) - n_t
    if phase == _RELOCATE and state.rl_route >= 0:
        dense[relocation_route_d + state.rl_route] = 1
        dense[tail] = state.rl_extras
        owner = state.rl_owner
        dense[tail + (2 + slot[owner] if 0 <= owner <= NEUTRAL else 1)] = 1
    else:
        dense[tail + 1] = 1
    if phase == _REMOVE and state.rm_left > 0:
        dense[tail + 8] = state.rm_left
    dense[tail + 9] = len(state.marker_supply)
    dense[tail + 10] = markers_on_board
    if state.pawn >= 0 and state.board.provinces:
        dense[pawn_at - dense_at + state.pawn] = 1
    on: list[int] = []
    if expansion:
        _expansion_parts(state, slot, expansion, on, at, values)
    if modules:
        _module_parts(state, seat, slot, modules, on, at, values)
    return bytes(entries), bytes(dense), bytes(on), at, values


def _module_parts(
    state: GameState, seat: int, slot: list[int], layout: list[int], on: list[int], at: list[int], values: list[float]
) -> None:
    """The Big Box modules' fields (docs/ai.md), added to ``on`` (places set to 1) and ``at`` / ``values`` (counts).
    ``layout``: the starts of ``mission``, ``mission_cities``, ``favour_tiles``, ``favour_turn``, ``facedown``,
    ``promo_markers``, ``used_by_type``, ``route_tributes``, ``route_blocks`` and ``tribute_due``, then the modules'
    flags (:data:`MODULE_MISSIONS` | :data:`MODULE_FAVOUR` | :data:`MODULE_PROMO`).  Of the mission cards only
    ``seat``'s own is read."""
    mission_at, cities_at, tiles_at, turn_at, facedown_at, promo_at, used_at, tributes_at, blocks_at, due_at, flags = (
        layout
    )
    n = state.players
    if flags & MODULE_MISSIONS and 0 <= seat < len(state.missions):
        card = state.missions[seat]
        _put(on, mission_at + card - 1)
        city_index = state.board.city_index
        for code in MISSION_CARDS[card]:
            _put(on, cities_at + city_index[code])
    if flags & MODULE_FAVOUR and state.favour:
        for t, where in enumerate(state.favour):
            place = 0 if where == TILE_OUT else 1 if where == TILE_DISPLAY else 2 + slot[where]
            _put(on, tiles_at + t * 7 + place)
        if state.fav_flags & 1:
            _put(on, turn_at)
        if state.fav_flags & 2:
            _put(on, turn_at + 1)
        for q in range(n):
            k = len(state.facedown[q])
            if k:
                at.append(facedown_at + slot[q])
                values.append(float(k))
    if flags & MODULE_PROMO:
        for q in range(n):
            counts = [0] * 9
            for m in state.markers[q]:
                if m >= BASE_MARKER_TYPES:
                    counts[m] += 1
            for m in range(BASE_MARKER_TYPES, 9):
                if counts[m]:
                    at.append(promo_at + slot[q] * 3 + m - BASE_MARKER_TYPES)
                    values.append(float(counts[m]))
            used = [0] * 9
            for m in state.used_markers[q]:
                used[m] += 1
            for m in range(9):
                if used[m]:
                    at.append(used_at + slot[q] * 9 + m)
                    values.append(float(used[m]))
        _beside(state.tributes, tributes_at, slot, at, values)
        _beside(state.blocks, blocks_at, slot, at, values)
        if state.tribute_due:
            due = [0] * 5
            for q in state.tribute_due:
                due[slot[q]] += 1
            for o in range(5):
                if due[o]:
                    at.append(due_at + o)
                    values.append(float(due[o]))


def _beside(markers: tuple[tuple[int, int], ...], start: int, slot: list[int], at: list[int], values: list[float]) -> None:
    """Counts of Tribute (Block) markers per route and owner slot, as positions from ``start`` (5 per route)."""
    if not markers:
        return
    counts: dict[int, int] = {}
    for r, owner in markers:
        position = start + r * 5 + slot[owner]
        counts[position] = counts.get(position, 0) + 1
    for position, k in counts.items():
        at.append(position)
        values.append(float(k))


def _expansion_parts(
    state: GameState, slot: list[int], layout: list[int], on: list[int], at: list[int], values: list[float]
) -> None:
    """The expansion board's state fields (docs/ai.md), added to ``on`` (places set to 1: the caller clears the
    default "empty" place of a green city's row entry, as for a house) and ``at`` / ``values``.  ``layout``: the
    starts of ``green_row``, ``green_right``, ``permanent``, ``permanent_route``, ``permissions`` and ``hand_origin``,
    then the number of row entries per green city."""
    green_row_at, green_right_at, permanent_at, permanent_route_at, permissions_at, hand_origin_at, green_row = layout
    board = state.board
    # Green cities: the row of offices (extra offices, then the permanent marker's) and the right ones per slot.
    for g, c in enumerate(board.green_cities):
        row = [*state.extras[c], *state.right_offices[c]]
        base = green_row_at + g * green_row * 13
        for i in range(min(len(row), green_row)):
            code = row[i]
            _put(on, base + i * 13 + 1 + (code & 1) * 6 + slot[code >> 1])
        right = state.right_offices[c]
        if right:
            counts = [0] * 6
            for code in right:
                counts[slot[code >> 1]] += 1
            for o in range(6):
                if counts[o]:
                    at.append(green_right_at + g * 6 + o)
                    values.append(float(counts[o]))
    phase = int(state.phase)
    if phase == _PERMANENT and state.pm_kind >= 0:
        _put(on, permanent_at + state.pm_kind)
        at.append(permanent_at + 5)
        values.append(state.pm_left / 2)
        if state.pm_route >= 0:
            _put(on, permanent_route_at + state.pm_route)
    # Permissions (Britannia): whose permission each city is now (its holder, or under opt.permissionTiming=turnStart
    # its holder when the turn began), and whether it was used this turn.
    turn_start = state.options.permission_timing == "turnStart"
    for i, (city, _) in enumerate(board.permission_cities):
        holder = state.perm_holders[i] if turn_start and i < len(state.perm_holders) else state.holder(city)
        _put(on, permissions_at + i * 8 + (1 + slot[holder] if 0 <= holder < 6 else 0))
        if state.perm_used >> i & 1:
            _put(on, permissions_at + i * 8 + 7)
    # The pieces in hand during a Move, by kind and the country of the route each was lifted from.
    if phase == _MOVE and state.hand_from:
        counts = [0] * 6
        for kind, origin in zip(state.hand, state.hand_from):
            if origin >= 0:
                counts[kind * 3 + origin] += 1
        for j in range(6):
            if counts[j]:
                at.append(hand_origin_at + j)
                values.append(counts[j] / 5)


def _put(on: list[int], position: int) -> None:
    """One more place to set to 1 (two bytes, little-endian)."""
    on.append(position & 255)
    on.append(position >> 8)


class SeatDelta:
    """One seat's observation kept up to date by differences, for :class:`hansa.ai.observation.Observer`.

    It remembers what the last :meth:`update` saw (copies of the houses, offices, Coellen table, route markers and
    the cities' office rows, the one-hot place of every entry, the dense fields' counts, the extra-office counts) and
    writes into the seat's vector only the values that changed since: a move touches a few houses and counters, so a
    step costs a few comparisons instead of the whole walk of :func:`observation_parts`, whose layout and values it
    reproduces exactly (``tests/test_ai_observation.py`` compares them at every step).  The cities are walked again
    only when an office, an extra office or a filled count changed.  The expansion and module fields and the pending
    shift are the caller's.

    ``base``: the flat position of every entry's one-hot block (houses, offices, the Coellen table when the board
    has it, routes, cities), as ``ObservationSpec`` lays them out; ``dense_div``: what each dense count is divided by;
    ``vec`` and ``template``: writable and read-only float32 memoryviews of the seat's vector and of the game kind's
    template (the values that never change in a game), which :meth:`update` copies into ``vec`` when it starts again.
    """

    def __init__(
        self, seat: int, base: list[int], dense_div: list[float], extras_at: int, dense_at: int, players_at: int,
        relocation_route_at: int, pawn_at: int, dense_end: int, phases: int, vec: Any, template: Any,
    ) -> None:
        self.seat = seat
        self.vec: Any = vec
        self.template: Any = template
        self.base = base
        self.dense_div = dense_div
        self.extras_at = extras_at
        self.dense_at = dense_at
        self.players_at = players_at
        self.relocation_route_at = relocation_route_at
        self.pawn_at = pawn_at
        self.dense_end = dense_end
        self.phases = phases
        self.players = -1  # no position seen yet
        self.slot: list[int] = []
        self.piece_place: list[int] = []
        self.houses: list[int] = []
        self.offices: list[int] = []
        self.table: list[int] = []
        self.route_marker: list[int] = []
        self.extras: list[tuple[int, ...]] = []
        self.right: list[tuple[int, ...]] = []
        self.filled: list[int] = []
        self.place: list[int] = []  # the one-hot place of every entry now (-1: none written yet)
        self.dense: list[int] = []
        self.office_n: list[int] = [0] * 6
        self.extra_counts: dict[int, int] = {}  # flat position of an extra-office count -> the count
        self.markers_on_board = 0
        self.relocation_route = -1  # the relocation route's one-hot place now (-1: none)
        self.phase = -1  # the phase's one-hot place now (-1: none)
        self.pawn = -1  # the pawn's province's one-hot place now (-1: none)

    def forget(self) -> None:
        """Start again from the template (a new game kind): the next update reports every non-default value."""
        self.players = -1

    def _reset(self, state: GameState) -> None:
        n = state.players
        self.players = n
        slot = [5] * 6
        for q in range(n):
            slot[q] = (q - self.seat) % n
        slot[NEUTRAL] = 5
        self.slot = slot
        self.piece_place = [1 + (code & 1) * 6 + slot[code >> 1] for code in range(12)]
        # Impossible codes, so that every entry is compared and reported once.
        self.houses = [-2] * len(state.houses)
        self.offices = [-2] * len(state.offices)
        self.table = [-2] * (4 if len(state.table) == 4 else 0)
        self.route_marker = [-2] * len(state.route_marker)
        self.extras = []
        self.right = []
        self.filled = []
        self.place = [-1] * len(self.base)  # not written yet: every entry's place is reported once
        self.dense = [0] * (self.dense_end - self.dense_at)
        self.office_n = [0] * 6
        self.extra_counts = {}
        self.markers_on_board = 0
        self.relocation_route = -1
        self.phase = -1
        self.pawn = -1

    def _entry(self, e: int, place: int) -> None:
        old = self.place[e]
        if place != old:
            b = self.base[e]
            if old >= 0:
                self.vec[b + old] = 0.0
            self.vec[b + place] = 1.0
            self.place[e] = place

    def update(self, state: GameState) -> bool:
        """Write into the vector what changed since the last update.  True when it started again from the template
        (the first update, after :meth:`forget`, or a position of another size): every value was written."""
        fresh = False
        if (
            state.players != self.players or len(state.houses) != len(self.houses)
            or len(state.offices) != len(self.offices) or (4 if len(state.table) == 4 else 0) != len(self.table)
        ):
            self._reset(state)
            self.vec[:] = self.template
            fresh = True
        piece_place = self.piece_place
        e = 0
        houses = state.houses
        seen = self.houses
        # (A list comparison in C first: most moves leave the offices, the table and the markers as they were.)
        for i in range(len(houses) if houses != seen else 0):
            code = houses[i]
            if code != seen[i]:
                seen[i] = code
                self._entry(e + i, piece_place[code] if code >= 0 else 0)
        e += len(houses)
        offices = state.offices
        seen = self.offices
        cities_changed = False
        for i in range(len(offices) if offices != seen else 0):
            code = offices[i]
            if code != seen[i]:
                seen[i] = code
                cities_changed = True
                self._entry(e + i, piece_place[code] if code >= 0 else 0)
        e += len(offices)
        if self.table:
            table = state.table
            seen = self.table
            for i in range(4):
                code = table[i]
                if code != seen[i]:
                    seen[i] = code
                    self._entry(e + i, piece_place[code] if code >= 0 else 0)
            e += 4
        route_marker = state.route_marker
        seen = self.route_marker
        for i in range(len(route_marker) if route_marker != seen else 0):
            code = route_marker[i]
            if code != seen[i]:
                if seen[i] >= 0:
                    self.markers_on_board -= 1
                if code >= 0:
                    self.markers_on_board += 1
                seen[i] = code
                self._entry(e + i, 1 + code if code >= 0 else 0)
        e += len(route_marker)
        if cities_changed or state.extras != self.extras or state.right_offices != self.right or (
            state.city_filled != self.filled
        ):
            self.extras = list(state.extras)
            self.right = list(state.right_offices)
            self.filled = list(state.city_filled)
            self._cities(state, e)
        self._dense(state)
        return fresh

    def _cities(self, state: GameState, e: int) -> None:
        """The controllers, the players' office counts and the extra-office counts, from the cities again."""
        slot = self.slot
        offices = state.offices
        cities = state.board.cities
        office_n = [0] * 6
        counts = [0] * 6
        extra_counts: dict[int, int] = {}
        for c in range(len(cities)):
            extra = self.extras[c]
            right = self.right[c]
            owner = 0
            best = 0
            for code in extra:
                o = code >> 1
                k = counts[o] + 1
                counts[o] = k
                if k >= best:
                    owner = o
                    best = k
            if extra:
                for o in range(6):
                    if counts[o]:
                        extra_counts[self.extras_at + c * 6 + slot[o]] = counts[o]
            city = cities[c]
            first = city.office_base
            for i in range(first, first + len(city.offices)):
                code = offices[i]
                if code >= 0:
                    o = code >> 1
                    k = counts[o] + 1
                    counts[o] = k
                    if k >= best:
                        owner = o
                        best = k
            for code in right:
                o = code >> 1
                k = counts[o] + 1
                counts[o] = k
                if k >= best:
                    owner = o
                    best = k
            for o in range(6):
                k = counts[o]
                if k:
                    office_n[o] += k
                    counts[o] = 0
            # A city without offices has no controller (place 0), as in observation_parts.
            self._entry(e + c, 1 + slot[owner] if best else 0)
            self._put(c, self.filled[c])
        self.office_n = office_n
        old = self.extra_counts
        for position, k in extra_counts.items():
            if old.get(position, 0) != k:
                self.vec[position] = float(k)
        for position in old:
            if position not in extra_counts:
                self.vec[position] = 0.0
        self.extra_counts = extra_counts

    def _put(self, j: int, k: int) -> None:
        """Dense count ``j`` is ``k`` now: reported if it changed."""
        if self.dense[j] != k:
            self.dense[j] = k
            self.vec[self.dense_at + j] = k / self.dense_div[j]

    def _dense(self, state: GameState) -> None:
        """The dense fields (``city_filled`` .. ``pawn``) again, each compared with what it was."""
        n = state.players
        slot = self.slot
        players_d = self.players_at - self.dense_at
        phase_d = players_d + SLOTS * PLAYER_WIDTH
        turn_d = phase_d + self.phases
        relocation_route_d = self.relocation_route_at - self.dense_at
        tail = relocation_route_d + len(state.route_marker)
        phase = int(state.phase)
        over = phase == _OVER
        decider = -1 if over else state.decider
        current = -1 if over else state.current
        levels = state.levels
        office_n = self.office_n
        dense = self.dense
        div = self.dense_div
        start = self.dense_at
        ew_paid = state.ew_paid
        vec = self.vec
        row_values = [0] * PLAYER_WIDTH
        for q in range(n):
            # The player's 23 values, then compared with what they were in one tight loop.
            lv = q * 5
            row_values[0] = 1
            row_values[1] = state.sup_t[q]
            row_values[2] = state.sup_m[q]
            row_values[3] = state.stk_t[q]
            row_values[4] = state.stk_m[q]
            for j in range(5):
                row_values[5 + j] = levels[lv + j]
            row_values[10] = state.score[q]
            for m in range(BASE_MARKER_TYPES):
                row_values[11 + m] = 0
            for m in state.markers[q]:
                if m < BASE_MARKER_TYPES:
                    row_values[11 + m] += 1
            row_values[17] = len(state.used_markers[q])
            row_values[18] = len(state.plate[q])
            row_values[19] = office_n[q]
            row_values[20] = 1 if q in ew_paid else 0
            row_values[21] = 1 if q == current else 0
            row_values[22] = 1 if q == decider else 0
            row = players_d + slot[q] * PLAYER_WIDTH
            for j in range(PLAYER_WIDTH):
                k = row_values[j]
                if dense[row + j] != k:
                    dense[row + j] = k
                    vec[start + row + j] = k / div[row + j]
        if phase != self.phase:
            if self.phase >= 0:
                self._put(phase_d + self.phase, 0)
            self._put(phase_d + phase, 1)
            self.phase = phase
        n_t = 0
        hand = state.hand
        for piece in hand:
            if piece == 0:
                n_t += 1
        allowance = state.allowance()
        self._put(turn_d, state.actions_used)
        self._put(turn_d + 1, allowance)
        self._put(turn_d + 2, state.bonus_actions)
        self._put(turn_d + 3, max(0, allowance - state.actions_used))
        self._put(turn_d + 4, min(state.turn, 100))
        self._put(turn_d + 5, state.completed)
        self._put(turn_d + 6, n_t)
        self._put(turn_d + 7, len(hand) - n_t)
        # The relocation's route (one-hot), extras and owner (one-hot: none, neutral's place, slot 0-5).
        route = state.rl_route if phase == _RELOCATE and state.rl_route >= 0 else -1
        if route != self.relocation_route:
            if self.relocation_route >= 0:
                self._put(relocation_route_d + self.relocation_route, 0)
            if route >= 0:
                self._put(relocation_route_d + route, 1)
            self.relocation_route = route
        place = 1
        extras = 0
        if route >= 0:
            extras = state.rl_extras
            owner = state.rl_owner
            place = 2 + slot[owner] if 0 <= owner <= NEUTRAL else 1
        self._put(tail, extras)
        for j in range(1, 8):
            self._put(tail + j, 1 if j == place else 0)
        self._put(tail + 8, state.rm_left if phase == _REMOVE and state.rm_left > 0 else 0)
        self._put(tail + 9, len(state.marker_supply))
        self._put(tail + 10, self.markers_on_board)
        pawn = state.pawn if state.pawn >= 0 and state.board.provinces else -1
        if pawn != self.pawn:
            pawn_d = self.pawn_at - self.dense_at
            if self.pawn >= 0:
                self._put(pawn_d + self.pawn, 0)
            if pawn >= 0:
                self._put(pawn_d + pawn, 1)
            self.pawn = pawn

def board_parts(
    state: GameState, seat: int, expansion: list[int] | None, modules: list[int] | None
) -> tuple[bytes, list[int], list[float]]:
    """The expansion and module fields of ``seat``'s observation alone (``on``, ``at``, ``values`` as in
    :func:`observation_parts`), for the incremental observer, which keeps the other fields by differences."""
    n = state.players
    slot = [5] * 6
    for q in range(n):
        slot[q] = (q - seat) % n
    slot[NEUTRAL] = 5
    on: list[int] = []
    at: list[int] = []
    values: list[float] = []
    if expansion:
        _expansion_parts(state, slot, expansion, on, at, values)
    if modules:
        _module_parts(state, seat, slot, modules, on, at, values)
    return bytes(on), at, values
