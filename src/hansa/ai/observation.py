"""What one seat may know of a position, as numbers: a flat float32 vector and a structured (graph) form.

The observing seat is rotated to player slot 0 (the next seat in turn order is slot 1, ...), padded to 5 seats;
the neutral player of the two-player variant is slot 5 where pieces are concerned.  Only public information goes in
(everything in Hansa Teutonica is public except the face-down marker supply and the markers on the plates, which
appear as counts): two positions that differ only in hidden markers give identical observations.

Every field of the flat vector is listed, in order, by :attr:`ObservationSpec.fields` (name, size, meaning) and in
``docs/ai.md``.  Pieces are one-hot over 13 values: empty, Trader of slot 0..5, Merchant of slot 0..5.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.board import Board, load_board
from ..core.constants import ABILITY_MAX, NEUTRAL
from ..core.position import Phase
from ..core.state import GameState

Vector = npt.NDArray[np.float32]

SLOTS = 5  #: player slots (padded)
PIECE = 13  #: one-hot piece: empty, T of slot 0-5, M of slot 0-5 (slot 5 = neutral)
OWNER = 7  #: one-hot owner: none, slot 0-5
MARKER_TYPES = 6  #: extra-office, swap, +3, +4, improve, remove3
PHASES = len(Phase)
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
    """The layout of the observation on one board side."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.houses = board.house_count
        self.routes = len(board.routes)
        self.cities = len(board.cities)
        self.offices = sum(len(c.offices) for c in board.cities)
        self.provinces = len(board.provinces)
        fields: list[Field] = []

        def add(name: str, size: int, meaning: str) -> None:
            start = fields[-1].start + fields[-1].size if fields else 0
            fields.append(Field(name, start, size, meaning))

        add("houses", self.houses * PIECE, "per house (board order): the piece on it, one-hot over 13")
        add("offices", self.offices * PIECE, "per printed office (cities in board order, left to right): its piece, one-hot over 13")
        add("extra_offices", self.cities * 6, "per city: extra offices of slot 0-5 (counts)")
        add("coellen_table", 4 * PIECE, "per Coellen table space (7, 8, 9, 11): its piece, one-hot over 13")
        add("route_markers", self.routes * (1 + MARKER_TYPES), "per route: bonus marker lying there, one-hot over none + 6 types")
        add("controllers", self.cities * OWNER, "per city: controller, one-hot over none + slot 0-5")
        add("city_filled", self.cities, "per city: printed offices taken / printed offices")
        add("players", SLOTS * len(PLAYER_FEATURES), "per slot 0-4: the player features (docs/ai.md)")
        add("phase", PHASES, "pending decision: actions, move, relocate, remove, markers, pawn_setup, pawn_end, neutral_office, over")
        add("turn", 6, "actions used / 5, allowance / 6, bonus actions / 4, actions left / 6, turn number / 100 (at most 1), completed cities / 10")
        add("hand", 2, "pieces in hand (Move or relocation): Traders / 5, Merchants / 5")
        add("relocation_route", self.routes, "route of the displacement being relocated, one-hot (zeros otherwise)")
        add("relocation", 1 + OWNER, "extra pieces left / 2; owner of the displaced piece, one-hot over none + slot 0-5")
        add("remove_left", 1, "pieces left to remove or move with Remove/Move 3 / 3")
        add("markers", 2, "face-down markers left in the supply / 20 (count only); markers lying on routes / 10")
        add("pawn", self.provinces, "pawn's province, one-hot (two-player pawn variant; empty on the 4-5 side)")
        add("pending_shift", self.houses, "house whose piece was chosen by a shift-from, one-hot (zeros otherwise)")
        add("game", 6, "players 2, 3, 4, 5 one-hot; neutral variant; pawn variant")
        self.fields = tuple(fields)
        self.size = fields[-1].start + fields[-1].size
        self._at = {f.name: f for f in fields}
        self._start = {f.name: f.start for f in fields}
        # Row offsets of the one-hot blocks, and house numbers, for observe().
        self._house_rows = np.arange(self.houses, dtype=np.int64) * PIECE
        self._office_rows = np.arange(self.offices, dtype=np.int64) * PIECE
        self._table_rows = np.arange(4, dtype=np.int64) * PIECE
        self._route_rows = np.arange(self.routes, dtype=np.int64) * (1 + MARKER_TYPES)
        self._house_number = {h: i for i, h in enumerate(board.house_names)}
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

    def field(self, name: str) -> Field:
        return self._at[name]

    def view(self, vector: Vector, name: str) -> Vector:
        """The block ``name`` of a flat vector (a view, not a copy)."""
        f = self._at[name]
        return vector[f.start : f.start + f.size]


@cache
def spec_for(board: Board) -> ObservationSpec:
    """The (cached) layout of a board."""
    return ObservationSpec(board)


def spec_for_side(side: str) -> ObservationSpec:
    return spec_for(load_board(side))


def _slots(state: GameState, seat: int) -> npt.NDArray[np.int64]:
    """Owner code 0-5 -> slot (the observer is slot 0, then the turn order; neutral stays 5)."""
    n = state.players
    out = np.full(6, 5, dtype=np.int64)
    for q in range(n):
        out[q] = (q - seat) % n
    out[NEUTRAL] = 5
    return out


def _piece_table(slots: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Piece code + 1 (0 = empty, codes 0..11) -> position in the 13-way one-hot, for this observer."""
    table = np.zeros(13, dtype=np.int64)
    for code in range(12):
        table[code + 1] = 1 + (code & 1) * 6 + slots[code >> 1]
    return table


def observe(state: GameState, seat: int, pending_house: str | None = None) -> Vector:
    """The flat observation of ``seat`` (float32, ``spec_for(state.board).size`` long).  ``pending_house``: the
    house chosen by a shift-from whose destination is the decision now (the AI adapters pass it).

    Written for speed: the one-hot blocks are positions computed with numpy, every other value is collected in
    Python lists and written with one fancy assignment."""
    spec = spec_for(state.board)
    out = np.zeros(spec.size, dtype=np.float32)
    slots = _slots(state, seat)
    pieces = _piece_table(slots)
    at = spec._start
    ones: list[npt.NDArray[np.int64]] = []
    # Pieces on houses, offices and the Coellen table; bonus markers on routes.
    ones.append(at["houses"] + spec._house_rows + pieces[np.asarray(state.houses, dtype=np.int64) + 1])
    ones.append(at["offices"] + spec._office_rows + pieces[np.asarray(state.offices, dtype=np.int64) + 1])
    if len(state.table) == 4:
        ones.append(at["coellen_table"] + spec._table_rows + pieces[np.asarray(state.table, dtype=np.int64) + 1])
    ones.append(at["route_markers"] + spec._route_rows + np.asarray(state.route_marker, dtype=np.int64) + 1)
    out[np.concatenate(ones)] = 1.0

    idx: list[int] = []
    val: list[float] = []
    slot = slots.tolist()
    extras_at, controllers_at, filled_at = at["extra_offices"], at["controllers"], at["city_filled"]
    for city in state.board.cities:
        c = city.index
        filled = state.city_filled[c]
        codes = state.extras[c]
        if codes:
            counts = [0.0] * 6  # several extra offices of one owner add up (one assignment keeps the last value)
            for code in codes:
                counts[slot[code >> 1]] += 1.0
            idx.extend(range(extras_at + c * 6, extras_at + c * 6 + 6))
            val.extend(counts)
        owner = state.controller(c) if filled or codes else None
        idx.append(controllers_at + c * OWNER + (0 if owner is None else 1 + slot[owner]))
        val.append(1.0)
        if filled:
            idx.append(filled_at + c)
            val.append(filled / len(city.offices))
    players_at = at["players"]
    width = len(PLAYER_FEATURES)
    over = state.is_over
    decider = -1 if over else state.decider
    current = -1 if over else state.current
    for q in range(state.players):
        base = players_at + slot[q] * width
        levels = state.levels[q * 5 : q * 5 + 5]
        row = [
            1.0, state.sup_t[q] / 27, state.sup_m[q] / 4, state.stk_t[q] / 27, state.stk_m[q] / 4,
            levels[0] / ABILITY_MAX[0], levels[1] / ABILITY_MAX[1], levels[2] / ABILITY_MAX[2],
            levels[3] / ABILITY_MAX[3], levels[4] / ABILITY_MAX[4], state.score[q] / 20,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            float(len(state.used_markers[q])), float(len(state.plate[q])), state.office_count(q) / 10,
            1.0 if q in state.ew_paid else 0.0, 1.0 if q == current else 0.0, 1.0 if q == decider else 0.0,
        ]
        for m in state.markers[q]:
            row[11 + m] += 1.0
        idx.extend(range(base, base + width))
        val.extend(row)
    phase = state.phase
    hand = state.hand
    n_t = sum(1 for k in hand if k == 0)
    idx.append(at["phase"] + int(phase))
    val.append(1.0)
    turn_at = at["turn"]
    idx.extend(range(turn_at, turn_at + 6))
    val.extend((state.actions_used / 5, state.allowance() / 6, state.bonus_actions / 4, state.actions_left() / 6,
                min(state.turn / 100, 1.0), state.completed / 10))
    idx.extend((at["hand"], at["hand"] + 1))
    val.extend((n_t / 5, (len(hand) - n_t) / 5))
    rel = at["relocation"]
    if phase == Phase.RELOCATE and state.rl_route >= 0:
        idx.extend((at["relocation_route"] + state.rl_route, rel, rel + (2 + slot[state.rl_owner] if 0 <= state.rl_owner <= NEUTRAL else 1)))
        val.extend((1.0, state.rl_extras / 2, 1.0))
    else:
        idx.append(rel + 1)
        val.append(1.0)
    if phase == Phase.REMOVE and state.rm_left > 0:
        idx.append(at["remove_left"])
        val.append(state.rm_left / 3)
    idx.extend((at["markers"], at["markers"] + 1))
    val.extend((state.hidden_marker_count() / 20, state.markers_on_board() / 10))
    if state.pawn >= 0 and spec.provinces:
        idx.append(at["pawn"] + state.pawn)
        val.append(1.0)
    if pending_house is not None:
        idx.append(at["pending_shift"] + spec._house_number[pending_house])
        val.append(1.0)
    idx.append(at["game"] + state.players - 2)
    val.append(1.0)
    if state.players == 2:
        idx.append(at["game"] + (4 if state.options.two_player_variant == "neutral" else 5))
        val.append(1.0)
    out[idx] = val
    return out


def observe_graph(state: GameState, seat: int, pending_house: str | None = None) -> dict[str, Any]:
    """The same information for graph networks: node features per house, route, office and city, the player
    table, the globals, and the board's static edge lists (``spec.edges``)."""
    spec = spec_for(state.board)
    flat = observe(state, seat, pending_house)

    def v(name: str) -> Vector:
        return spec.view(flat, name)
    routes = np.zeros((spec.routes, 1 + MARKER_TYPES + 3), dtype=np.float32)
    routes[:, : 1 + MARKER_TYPES] = v("route_markers").reshape(spec.routes, -1)
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
    return {
        "houses": houses, "routes": routes, "offices": offices, "cities": cities,
        "players": v("players").reshape(SLOTS, -1), "globals": glob, "edges": spec.edges,
    }
