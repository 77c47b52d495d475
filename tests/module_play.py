"""Play with the Big Box modules (docs/rules-modules.md) for the AI adapters' tests (tests/test_ai_modules.py):
configurations on every map the modules apply to, and a bot that takes tiles and uses the promo markers often, so
that every module decision (a tile, F-INC's share, a tribute's payment, Tribute, Block and Exchange markers, a Place
paying the Block surcharge) comes up in short random games."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hansa.core.constants import F_INC, MISSION_CARDS
from hansa.core.moves import Move
from hansa.core.position import Phase
from hansa.core.state import GameState

#: A legal ``marker_supply`` with every promo marker, and one that is mostly promo markers.
PROMO = [
    "extra-office", "extra-office", "swap", "+3", "+4", "improve", "remove3",
    "exchange", "exchange", "tribute", "tribute", "block",
]  # fmt: skip
PROMO_HEAVY = [
    "exchange", "exchange", "tribute", "tribute", "block", "block", "+3", "+4", "improve", "swap", "extra-office",
    "remove3",
]  # fmt: skip
ALL = {"missions": True, "emperors_favour": True, "marker_supply": PROMO}
ALL_HEAVY = {**ALL, "marker_supply": PROMO_HEAVY}
#: Every map the modules apply to: the base board (both sides, 2-5 players) with all three, East and Britannia (both
#: sides) with Emperor's Favour and the promo markers (Mission Cards are base-map only).
MODULE_CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (2, ALL_HEAVY),
    (2, {**ALL, "two_player_variant": "pawn"}),
    (3, ALL_HEAVY),
    (4, ALL),
    (5, ALL_HEAVY),
    (3, {"map": "east", "emperors_favour": True, "marker_supply": PROMO_HEAVY}),
    (3, {"map": "britannia", "emperors_favour": True, "marker_supply": PROMO_HEAVY}),
    (5, {"map": "britannia", "emperors_favour": True, "marker_supply": PROMO}),
]
MODULE_IDS = ["base-2n", "base-2p", "base-3", "base-4", "base-5", "east-3", "britannia-3", "britannia-5"]

#: How eagerly :class:`ModuleBot` makes each kind of module move when it is legal.
EAGER = (("tile", 0.5), ("use-tribute", 0.4), ("use-block", 0.4), ("use-exchange", 0.5))


class ModuleBot:
    """Plays fast random games that gain markers: claims (of routes with a bonus marker first), places pieces (on
    such routes first), takes Income when its supply runs low, rarely starts a Move; takes tiles and uses Tribute,
    Block and Exchange markers often; every other decision at random."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        rng = self.rng
        by: dict[str, list[Move]] = {}
        for m in moves:
            by.setdefault(m.type, []).append(m)
        for kind, p in EAGER:
            if kind in by and rng.random() < p:
                return rng.choice(by[kind])
        if state.phase not in (Phase.ACTIONS, Phase.MOVE):
            return rng.choice(moves)
        board = state.board
        marked = {r.code for r in board.routes if state.route_marker[r.index] >= 0}
        q = state.current
        houses = state.houses
        # Fill one route at a time: the route holding most of the player's pieces (one with a marker first).
        own = {r.code: sum(1 for h in r.houses if houses[h] >= 0 and houses[h] >> 1 == q) + (r.code in marked)
               for r in board.routes}

        def score(m: Move) -> float:
            return own[getattr(m, "house", "").rsplit(":", 1)[0]] + 2 * rng.random()
        if state.phase == Phase.MOVE:  # a Move action: drop the pieces where the player has most
            drops = by.get("drop", [])
            return max(drops, key=score) if drops else rng.choice(moves)
        if "claim" in by:
            claims = by["claim"]
            return rng.choice([m for m in claims if getattr(m, "route", "") in marked] or claims)
        if "income" in by and (state.sup_t[q] + state.sup_m[q] < 2 or rng.random() < 0.05):
            return rng.choice(by["income"])
        pieces = by.get("place", []) + by.get("displace", [])
        if pieces and rng.random() < 0.9:
            return max(pieces, key=lambda m: score(m) - (m.type == "displace"))
        if "lift" in by and not pieces and rng.random() < 0.5:  # stuck: move pieces from the weakest route
            return min(by["lift"], key=score)
        rest = [m for m in moves if m.type not in ("lift", "pawn")] if rng.random() < 0.95 else moves
        return rng.choice(rest or moves)


def module_positions(
    players: int, options: dict[str, Any], seed: int, every: int = 1, limit: int = 4000
) -> Iterator[GameState]:
    """Every ``every``-th position of a game of :class:`ModuleBot` (at most ``limit`` moves), the last one included.
    Rigged copies reach the decisions random games reach late: with Emperor's Favour, at every 10th turn start a
    copy where another seat holds F-INC and the active player takes Income (F-INC's share); with the promo markers,
    at every 3rd position where an office may be claimed a copy where the next seat has a Tribute marker beside
    every route and Traders and Merchants in its stock, and the office is claimed (a tribute's payment)."""
    state = GameState.new(players, seed, options)
    bot = ModuleBot(seed)
    n = turns = offices = 0
    while not state.is_over and n < limit:
        if n % every == 0:
            yield state
        moves = state.legal_moves()
        payee = (state.current + 1) % players
        if state.favour and state.phase == Phase.ACTIONS and state.actions_used == 0:
            turns += 1
            income = [m for m in moves if m.type == "income"]
            if turns % 10 == 0 and income:
                rig = state.copy()
                rig.favour[F_INC] = payee
                rig.play(income[0])
                yield rig
        office = [m for m in moves if m.type == "claim" and getattr(m, "benefit", "") == "office"]
        if state.options.marker_supply is not None and office:
            offices += 1
            if offices % 3 == 0:
                rig = state.copy()
                rig.tributes = tuple((r.index, payee) for r in state.board.routes)
                rig.stk_t[payee] = max(2, rig.stk_t[payee])
                rig.stk_m[payee] = max(2, rig.stk_m[payee])
                rig.play(office[0])
                yield rig
        state.play(bot.choose(state, moves))
        n += 1
    yield state


def other_cards(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of ``state`` in which every seat but ``seat`` holds another mission card (``seat``'s own kept)."""
    own = state.missions[seat]
    while True:
        unseen = [c for c in MISSION_CARDS if c != own]
        rng.shuffle(unseen)
        cards = [own if q == seat else unseen[q] for q in range(state.players)]
        if all(cards[q] != state.missions[q] for q in range(state.players) if q != seat):
            break
    other = state.copy()
    other.missions = cards
    return other
