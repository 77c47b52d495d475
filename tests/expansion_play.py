"""Play on the expansion maps for the AI adapters' tests (tests/test_ai_*.py): configurations, and positions of a sea
route's claim with its permanent marker, which random games alone reach too rarely (the ship spaces take Merchants).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hansa.core.constants import EXTRA_OFFICE, SWAP_OFFICES
from hansa.core.moves import Claim
from hansa.core.position import Phase
from hansa.core.state import GameState

#: Expansion maps (docs/rules-expansions.md): every side, with the options that change what may be chosen.
EXPANSION_CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (3, {"map": "east"}),
    (4, {"map": "east", "green_city_swap": "all", "remove3_mode": "move", "marker_set": "BB15"}),
    (5, {"map": "east", "green_city_free_for_markers": True, "swap_needs_own": False}),
    (3, {"map": "britannia"}),
    (4, {"map": "britannia", "permission_timing": "turnStart", "relocation_rings": "eligibleOnly"}),
    (5, {"map": "britannia", "permission_holder": "controller", "marker_set": "BB15"}),
]
EXPANSION_IDS = [f"{o['map']}-{p}p-{i}" for i, (p, o) in enumerate(EXPANSION_CONFIGS)]


def rig_sea_claim(state: GameState, rng: random.Random) -> tuple[GameState, str]:
    """A copy of ``state`` (a turn's start) where the active player's pieces fill a sea route with a permanent marker
    (one of Waren's routes a fifth of the time on East), a Merchant on each ship space, and his supply has a few
    pieces; on East, 40 % of the time, a green city gets offices (left and right of its row) and the player a Swap
    and an Extra-office marker.  Pieces come from nowhere: only the decisions are of interest.  Returns the copy and
    the route's code (the copy's legal moves claim it)."""
    board = state.board
    waren = [r for r in board.routes if any(len(board.cities[c].abilities) > 1 for c in r.cities)]
    route = rng.choice(waren if waren and rng.random() < 0.2 else [r for r in board.routes if r.permanent])
    rig = state.copy()
    p = rig.current
    for h in route.houses:
        rig.houses[h] = p * 2 + (1 if board.house_ship[h] or rng.random() < 0.3 else 0)
    rig._reindex()
    rig.sup_t[p] = max(rig.sup_t[p], rng.randrange(3))
    rig.sup_m[p] = max(rig.sup_m[p], rng.randrange(2))
    if board.green_cities and rng.random() < 0.4:
        c = rng.choice(board.green_cities)
        seats = range(rig.players)
        rig.extras[c] += tuple(rng.choice(seats) * 2 + rng.randrange(2) for _ in range(rng.randrange(3)))
        rig.right_offices[c] += tuple(rng.choice(seats) * 2 + rng.randrange(2) for _ in range(1 + rng.randrange(3)))
        rig.markers[p] += (SWAP_OFFICES, EXTRA_OFFICE)
    return rig, route.code


def sea_claim_positions(state: GameState, rng: random.Random) -> Iterator[GameState]:
    """The positions of a rigged claim (:func:`rig_sea_claim`): before it, then every decision of its permanent
    marker (choices at random, declined a tenth of the time)."""
    rig, code = rig_sea_claim(state, rng)
    yield rig
    claims = [m for m in rig.legal_moves() if isinstance(m, Claim) and m.route == code]
    assert claims, f"{code} filled by the active player but not claimable"
    rig.play(rng.choice(claims))
    while rig.phase == Phase.PERMANENT:
        yield rig
        moves = rig.legal_moves()
        rig.play(rng.choice(moves) if rng.random() < 0.9 else moves[-1])
