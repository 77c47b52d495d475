"""The numbers of one seat's AI observation, gathered in the compiled core (no numpy here).

:func:`hansa.ai.observation.observe` turns these parts into the flat float32 vector documented in ``docs/ai.md``;
this module only walks the position, once, in compiled code.  The layout constants (field starts) come from the
caller, so the layout itself lives in one place (``hansa.ai.observation.ObservationSpec``).
"""

from __future__ import annotations

from typing import Final

from .constants import NEUTRAL
from .position import Phase
from .state import GameState

#: Offsets of the code regions in the observer's lookup table (pieces 0-12, route markers, city controllers).
MARKER_REGION = 13
CONTROLLER_REGION = 20
#: Player features per slot (``hansa.ai.observation.PLAYER_FEATURES``) and padded slots.
PLAYER_WIDTH = 23
SLOTS = 5
#: Length of the second dense block: relocation (8), remove_left (1), markers (2).
TAIL = 11
PHASES: Final = len(Phase)
_OVER: Final = int(Phase.OVER)
_RELOCATE: Final = int(Phase.RELOCATE)
_REMOVE: Final = int(Phase.REMOVE)


def observation_parts(
    state: GameState, seat: int, extras_at: int, players_at: int, relocation_route_at: int, pawn_at: int, game_at: int,
) -> tuple[bytes, bytes, list[int], list[float]]:
    """One seat's observation as parts:

    * ``codes``: one byte per house, printed office, Coellen table space (when the board has the table), route and
      city: the piece code + 1 (0 = empty), 13 + marker type + 1 on routes (13 = none), 20 + controller + 1 on
      cities (20 = none) — the caller maps them through the observer's table to one-hot positions;
    * ``dense``: one byte per value of the fields ``city_filled``, ``players`` (slot order), ``phase``, ``turn``,
      ``hand`` and then ``relocation``, ``remove_left``, ``markers``, as they lie in the vector: the counts before
      their division (the caller divides by ``ObservationSpec._dense_div``; the scores are left 0 here);
    * ``at`` / ``values``: the few other non-zero entries (extra offices, scores, relocation route, pawn, game
      kind), by absolute position.
    """
    n = state.players
    slot = [5] * 6
    for q in range(n):
        slot[q] = (q - seat) % n
    slot[NEUTRAL] = 5
    codes: list[int] = [code + 1 for code in state.houses]
    codes.extend([code + 1 for code in state.offices])
    if len(state.table) == 4:
        codes.extend([code + 1 for code in state.table])
    codes.extend([MARKER_REGION + m + 1 for m in state.route_marker])
    at: list[int] = []
    values: list[float] = []
    cities = state.board.cities
    offices = state.offices
    dense: list[int] = [0] * len(cities)
    office_n = [0] * 6  # offices (printed and extra) per owner, for the player features
    for c in range(len(cities)):
        filled = state.city_filled[c]
        extra = state.extras[c]
        if not filled and not extra:
            codes.append(CONTROLLER_REGION)
            continue
        # The controller (docs/rules.md §2.8.1): most offices, ties to the owner of the rightmost; extra offices
        # lie to the left of the printed ones.  Hand-inlined GameState.controller, one pass for the office counts.
        counts = [0] * 6
        last = [-1] * 6
        pos = 0
        for code in extra:
            o = code >> 1
            counts[o] += 1
            last[o] = pos
            pos += 1
        if extra:
            for k in range(6):
                if counts[k]:
                    at.append(extras_at + c * 6 + slot[k])
                    values.append(float(counts[k]))
        first = cities[c].office_base
        for i in range(first, first + len(cities[c].offices)):
            code = offices[i]
            if code >= 0:
                o = code >> 1
                counts[o] += 1
                last[o] = pos
            pos += 1
        owner = 0
        for k in range(1, 6):
            if counts[k] > counts[owner] or (counts[k] == counts[owner] and last[k] > last[owner]):
                owner = k
        for k in range(6):
            office_n[k] += counts[k]
        codes.append(CONTROLLER_REGION + 1 + owner)
        if filled:
            dense[c] = filled
    # Players, in slot order (the observer first), padded to five slots.
    phase = int(state.phase)
    over = phase == _OVER
    decider = -1 if over else state.decider
    current = -1 if over else state.current
    rows: list[list[int]] = [[0] * PLAYER_WIDTH for _ in range(SLOTS)]
    for q in range(n):
        lv = q * 5
        levels = state.levels
        row = [
            1, state.sup_t[q], state.sup_m[q], state.stk_t[q], state.stk_m[q],
            levels[lv], levels[lv + 1], levels[lv + 2], levels[lv + 3], levels[lv + 4], 0,
            0, 0, 0, 0, 0, 0,
            len(state.used_markers[q]), len(state.plate[q]), office_n[q],
            1 if q in state.ew_paid else 0, 1 if q == current else 0, 1 if q == decider else 0,
        ]
        for m in state.markers[q]:
            row[11 + m] += 1
        rows[slot[q]] = row
        if state.score[q]:  # the one value that may pass 255: given by position
            at.append(players_at + slot[q] * PLAYER_WIDTH + 10)
            values.append(state.score[q] / 20)
    for row in rows:
        dense.extend(row)
    phases = [0] * PHASES
    phases[phase] = 1
    dense.extend(phases)
    hand = state.hand
    n_t = 0
    for k in hand:
        if k == 0:
            n_t += 1
    dense.extend([
        state.actions_used, state.allowance(), state.bonus_actions, state.actions_left(), min(state.turn, 100),
        state.completed, n_t, len(hand) - n_t,
    ])
    tail = [0] * TAIL
    if phase == _RELOCATE and state.rl_route >= 0:
        at.append(relocation_route_at + state.rl_route)
        values.append(1.0)
        tail[0] = state.rl_extras
        owner = state.rl_owner
        tail[2 + slot[owner] if 0 <= owner <= NEUTRAL else 1] = 1
    else:
        tail[1] = 1
    if phase == _REMOVE and state.rm_left > 0:
        tail[8] = state.rm_left
    tail[9] = len(state.marker_supply)
    tail[10] = state.markers_on_board()
    dense.extend(tail)
    if state.pawn >= 0 and state.board.provinces:
        at.append(pawn_at + state.pawn)
        values.append(1.0)
    at.append(game_at + n - 2)
    values.append(1.0)
    if n == 2:
        at.append(game_at + (4 if state.options.two_player_variant == "neutral" else 5))
        values.append(1.0)
    return bytes(codes), bytes(dense), at, values
