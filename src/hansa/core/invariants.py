"""Invariants every reachable position satisfies (used by the property tests and ``hansa simulate --check``)."""

from __future__ import annotations

from .constants import (
    F_INC,
    MARKER_PRESETS,
    MARKER_SUPPLY_SIZE,
    MERCHANTS_PER_PLAYER,
    MISSION_CARDS,
    NEUTRAL,
    TAVERN_MARKERS,
    TILE_CODES,
    TILE_OUT,
    TRADERS_PER_PLAYER,
)
from .state import GameState, Phase


class InvariantError(AssertionError):
    """A position broke one of the engine's invariants (always a bug)."""


def check_invariants(state: GameState, previous_scores: list[int] | None = None) -> None:
    """Raise :class:`InvariantError` if ``state`` breaks an invariant.

    * each player's 27 Traders and 4 Merchants are all accounted for;
    * every house holds at most one piece and the free-house counters and house indexes agree with the houses;
    * printed offices fill left to right without gaps; the completed-cities counter matches;
    * scores never fall (when ``previous_scores`` is given);
    * every bonus marker is somewhere: board, plates, players (unused or used), face-down supply, or discarded;
    * exactly one player must decide while the game runs;
    * expansion maps: no Trader stands on a ship space; no bonus marker lies on a route with a permanent marker;
    * Big Box modules: one distinct mission card per seat with Mission Cards; as many Emperor's Favour tiles on the
      display or owned as there are players, the rest out of the game; Tribute and Block markers beside real
      routes (their Traders are in the piece count above);
    * two-player neutral variant: no route is filled with neutral pieces alone outside a neutral claim in
      progress (such a route is claimed at once, docs/rules.md §5.A; left standing it would be blocked for ever).
    """
    board = state.board
    for p, got in enumerate(state.census()):
        if got != (TRADERS_PER_PLAYER, MERCHANTS_PER_PLAYER):
            raise InvariantError(f"seat {p} has {got[0]} Traders and {got[1]} Merchants, not 27 and 4")
        if min(state.sup_t[p], state.sup_m[p], state.stk_t[p], state.stk_m[p]) < 0:
            raise InvariantError(f"seat {p} has a negative supply or stock")
    route_free, free_total, free, free_moves, own, full = state._indexes()
    if route_free != state.route_free:
        raise InvariantError(f"free-house counters {state.route_free} disagree with the houses {route_free}")
    if free_total != state.free_total:
        raise InvariantError(f"free-house total {state.free_total} != {free_total}")
    for name, value in (("free", free), ("free_moves", free_moves), ("own", own), ("full", full)):
        if value != getattr(state, name):
            raise InvariantError(f"house index {name} {getattr(state, name)} disagrees with the houses ({value})")
    completed = 0
    offices = state.offices
    for c in board.cities:
        n = len(c.offices)
        filled = state.city_filled[c.index]
        row = offices[c.office_base : c.office_base + n]
        if filled > n or min(row[:filled], default=0) < 0 or max(row[filled:], default=-1) >= 0:
            raise InvariantError(f"offices of {c.name} are not filled left to right ({row}, counter {filled})")
        if c.green:  # docs/rules-expansions.md §E3.3 4: complete with its first office
            completed += bool(state.extras[c.index] or state.right_offices[c.index])
        else:
            completed += filled == n
            if state.right_offices[c.index]:
                raise InvariantError(f"{c.name} is not a green city but has offices right of its printed ones")
    if completed != state.completed:
        raise InvariantError(f"completed-cities counter {state.completed} but {completed} cities are complete")
    if board.ships:
        for h, code in enumerate(state.houses):
            if code >= 0 and not code & 1 and board.house_ship[h]:
                raise InvariantError(f"a Trader stands on the ship space {board.house_names[h]}")
    for route in board.routes:
        if route.permanent and state.route_marker[route.index] >= 0:
            raise InvariantError(f"a bonus marker lies on {route.code}, which has a permanent marker")
    if previous_scores is not None:
        for p, (old, new) in enumerate(zip(previous_scores, state.score)):
            if new < old:
                raise InvariantError(f"seat {p}'s score fell from {old} to {new}")
    if state.options.marker_supply is not None:
        total = MARKER_SUPPLY_SIZE + len(TAVERN_MARKERS)
    else:
        total = sum(MARKER_PRESETS[state.options.marker_set]) + len(TAVERN_MARKERS)
    found = (
        len(state.tributes)
        + len(state.blocks)
        + sum(len(x) for x in state.facedown)
        + state.markers_on_board()
        + sum(len(x) for x in state.plate)
        + sum(len(x) for x in state.markers)
        + sum(len(x) for x in state.used_markers)
        + len(state.marker_supply)
        + state.discarded
        + state.neutral_discarded_markers()
    )
    if found != total:
        raise InvariantError(f"{found} bonus markers accounted for, the game has {total}")
    _check_modules(state)
    if not state.neutral_pending:
        neutral = NEUTRAL * 2
        for route in board.routes:
            if not state.route_free[route.index] and all(state.houses[h] == neutral for h in route.houses):
                raise InvariantError(f"route {route.code} is full of neutral pieces and was not claimed")
    if state.is_over:
        if state.legal_moves():
            raise InvariantError("the game is over but moves are still legal")
    else:
        if not 0 <= state.decider < state.players:
            raise InvariantError(f"no player must decide (decider {state.decider})")
        if not state.legal_moves():
            raise InvariantError(f"the deciding seat {state.decider} has no legal move in phase {state.phase.name}")


def _check_modules(state: GameState) -> None:
    if state.options.missions:
        cards = state.missions
        if len(cards) != state.players or len(set(cards)) != len(cards) or not set(cards) <= set(MISSION_CARDS):
            raise InvariantError(f"mission cards {cards} are not one distinct card per seat")
    elif state.missions:
        raise InvariantError("mission cards dealt in a game without Mission Cards")
    if state.options.emperors_favour:
        favour = state.favour
        if len(favour) != len(TILE_CODES) or any(not (TILE_OUT <= w < state.players) for w in favour):
            raise InvariantError(f"Emperor's Favour tiles {favour} are not each out, on display or a seat's")
        if sum(1 for w in favour if w != TILE_OUT) != state.players:
            raise InvariantError(f"{sum(1 for w in favour if w != TILE_OUT)} tiles in play for {state.players} players")
        if state.phase == Phase.SHARE and not (0 <= favour[F_INC] != state.current):
            raise InvariantError("F-INC asks a seat that does not hold it, or the active player")
    elif state.favour or any(state.facedown):
        raise InvariantError("Emperor's Favour tiles or face-down markers in a game without Emperor's Favour")
    routes = len(state.board.routes)
    for r, owner in state.tributes + state.blocks:
        if not (0 <= r < routes and 0 <= owner < state.players):
            raise InvariantError(f"a Tribute or Block marker ({r}, {owner}) beside no route or of no seat")


def check_turn_start(state: GameState) -> None:
    """At the start of every turn of a running game exactly 3 bonus markers lie on the board (docs/rules.md §1.6),
    unless a replacement could not be placed and waits on a plate (docs/rules.md §3.4 [REC])."""
    if state.is_over or state.phase != Phase.ACTIONS or state.actions_used:
        return
    on_board = state.markers_on_board()
    waiting = sum(len(x) for x in state.plate)
    if on_board + waiting != 3 or (waiting and on_board == 3):
        raise InvariantError(f"{on_board} markers on the board and {waiting} waiting on plates at a turn start")
