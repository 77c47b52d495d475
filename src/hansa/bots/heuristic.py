"""The heuristic bot: one-action lookahead with the evaluation of :mod:`hansa.bots.evaluation`.

For every decision the bot ranks the legal moves with a cheap prior (how a move changes the routes it touches),
keeps the best ``width`` house moves plus every other move, plays each of them on a copy of the position (with the
hidden markers reshuffled, so it cannot learn them) and picks the move whose resulting position evaluates best
for it relative to its strongest opponent.  Ties are broken by its seeded random generator.

The Big Box modules (docs/rules.md §8) go through the same lookahead, with a few cuts and one correction
(:meth:`HeuristicBot.promo_candidates`): an Emperor's Favour tile is tried once per tile, with the two markers the
bot values least, and judged by the evaluation's tile value minus the markers and the turn it costs (``tile_turn``
per action, on top of their tempo); a Tribute is tried beside the three routes whose cities will see most offices,
a Block beside the three routes rivals build on alone; an Exchange for every used marker of the rivals except
another Exchange (a no-op that could be repeated for ever).  F-INC's share and a tribute's mix are decided like any
move; inside a lookahead they are settled at once (the first option), so an Income or a claim is judged with them
paid.  The evaluation counts the bot's own mission card only (``viewer``); the lookahead runs on a determinized
copy, whose other seats' cards are dealt again.
"""

from __future__ import annotations

import random

from ..core.constants import MARKER_NAMES, NEUTRAL
from ..core.moves import (
    Claim,
    Displace,
    Done,
    Drop,
    EndTurn,
    Exchange,
    Lift,
    LiftExtra,
    Move,
    Pawn,
    Place,
    PlaceMarker,
    Relocate,
    Remove,
    Shift,
    TakeTile,
    UseBlock,
    UseExchange,
    UseTribute,
)
from ..core.state import GameState, Phase
from .base import Bot
from .evaluation import (
    DEFAULT,
    Weights,
    city_table,
    claim_with,
    evaluate,
    pawn_reach,
    relative,
    tempo,
    tribute_outlook,
)

_HOUSE_MOVES = (Place, Drop, Relocate, Displace, Lift, LiftExtra, Remove)
_HOUSE_TYPES = frozenset(_HOUSE_MOVES)
_TAKE_BACK = frozenset((Lift, LiftExtra, Remove))
_IDLE = frozenset((EndTurn, Pawn, TakeTile))
#: Decisions a lookahead finishes greedily before judging the action: a Move, Remove 3, a permanent marker.
_COMPLETED = (Phase.MOVE, Phase.REMOVE, Phase.PERMANENT)
#: Big Box decisions in the middle of a turn (F-INC's share, a tribute's mix) that a lookahead settles with the
#: first option (a Trader, two Traders): what matters to the action's judge is that the pieces move.
_SETTLED = (Phase.SHARE, Phase.TRIBUTE)
_SHARE = Phase.SHARE
#: How many routes a lookahead tries for a Tribute or a Block marker (the best by :func:`tribute_outlook` or
#: :func:`block_targets`).
_PROMO_ROUTES = 3


def full_routes(state: GameState, me: int) -> int:
    """Routes whose every house holds a piece of ``me`` (claimable, pawn permitting)."""
    houses = state.houses
    n = 0
    for route in state.board.routes:
        for h in route.houses:
            code = houses[h]
            if code < 0 or code >> 1 != me:
                break
        else:
            n += 1
    return n


def progress_pressure(state: GameState, w: Weights = DEFAULT) -> float:
    """Stall breaker: 0 until round ``w.long_game_rounds`` (no real game lasts that long), then growing by
    ``w.pressure_per_round`` per round.  The heuristic bot adds it to claims, half of it to every full route of
    its own (so that it gathers scattered pieces into a claimable route) and subtracts it from moves that leave
    the routes as they were (ending the turn, moving the pawn, putting pieces back), so that two bots that each
    find standing still slightly better than helping the other still end their game."""
    rounds = state.turn / state.players
    if rounds <= w.long_game_rounds:
        return 0.0
    return w.pressure_per_round * (rounds - w.long_game_rounds)


class HeuristicBot(Bot):
    """Greedy one-action lookahead on a documented evaluation (see :mod:`hansa.bots.evaluation`)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, weights: Weights = DEFAULT, width: int = 10) -> None:
        self.rng = random.Random(seed)
        self.weights = weights
        self.width = width

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        me = state.decider
        base = state.determinized(self.rng)
        press = progress_pressure(state, self.weights)
        if press and state.phase == Phase.MOVE and state.lifted:  # keep to the plan of the whole Move
            return self.completion(base, me, press, True)
        candidates = self.candidates(base, moves, me)
        best: Move = candidates[0]
        best_value = float("-inf")
        # Taking a tile ends the turn: the actions it costs are worth more than their tempo.
        tile_cost = self.weights.tile_turn * base.actions_left() if base.favour else 0.0
        for move in candidates:
            child = base.copy()
            child.play(move)
            self.complete_action(child, me, press)
            value = self.value(child, me, press) + self.rng.random() * 1e-6
            if tile_cost and type(move) is TakeTile:
                value -= tile_cost
            if press:
                if type(move) is Claim:
                    value += press
                elif type(move) in _IDLE or (type(move) is Lift and child.houses == base.houses):
                    value -= press
            if value > best_value:
                best, best_value = move, value
        return best

    def value(self, state: GameState, me: int, press: float = 0.0) -> float:
        """How good ``state`` is for ``me``: its evaluation relative to the strongest rival, plus the actions it
        still has this turn (and, under the stall breaker's ``press``, half of it per full route of its own)."""
        w = self.weights
        value = relative(evaluate(state, w, me), me, w) + tempo(state, me, w) + pawn_reach(state, me, w)
        if press:
            value += 0.5 * press * full_routes(state, me)
        return value

    def complete_action(self, state: GameState, me: int, press: float = 0.0, deep: bool | None = None) -> None:
        """Finish a Move action or a Remove 3 in progress greedily, so that a ``lift`` is judged by where the
        piece will go (one-*action* lookahead rather than one-decision).

        Under the stall breaker (``press`` > 0, or ``deep``) the bot also plans a Move as a whole: it may lift more
        pieces (up to three; the two most promising lifts are tried) and judges each drop by where the pieces
        still in hand will go.  Gathering scattered pieces onto an empty short route, which a piece-by-piece
        greedy never does, is how a player with nothing left to place gets going again."""
        if deep is None:
            deep = press > 0
        while not state.is_over and state.decider == me and state.phase in _COMPLETED:
            state.play(self.completion(state, me, press, deep))
        if state.phase in _SETTLED:
            while state.phase in _SETTLED:
                state.play(state.legal_moves()[0])
            self.complete_action(state, me, press, deep)

    def completion(self, state: GameState, me: int, press: float, deep: bool) -> Move:
        """The next decision of :meth:`complete_action` (``state`` is in ``me``'s Move or Remove 3)."""
        moves = state.legal_moves()
        more: list[Move] = []
        if state.phase == Phase.MOVE:
            if deep and len(state.hand) < 3:
                more = [m for m in moves if type(m) is Lift]
            moves = [m for m in moves if isinstance(m, Drop)]
        options = self.candidates(state, moves, me)
        best, best_value = options[0], float("-inf")
        for move in options:
            child = state.copy()
            child.play(move)
            if deep and child.hand:
                self.complete_action(child, me, press, deep=False)
            value = self.value(child, me, press)
            if value > best_value:
                best, best_value = move, value
        if more:
            gain = route_gains(state, me, self.weights)
            board = state.board
            more.sort(key=lambda m: gain[board.house_route[board.house_index[m.house]]])  # type: ignore[attr-defined]
            for move in more[:2]:
                child = state.copy()
                child.play(move)
                self.complete_action(child, me, press, deep=True)
                value = self.value(child, me, press)
                if value > best_value:
                    best, best_value = move, value
        return best

    def candidates(self, state: GameState, moves: list[Move], me: int) -> list[Move]:
        """Every non-house move, plus the ``width`` house moves with the best prior (at most one per kind of move
        and route while there are enough routes) and at most ``width`` replacement-marker placements (on the routes
        that gain ``me`` most), in the order a search should try them: claims, house moves (best prior first),
        marker placements, other moves, pawn moves, ending the turn."""
        if state.phase in (Phase.PERMANENT, Phase.REMOVE) and len(moves) > 2 * self.width:
            return self.permanent_candidates(state, moves, me)
        if state.phase == _SHARE:  # F-INC: a piece from the stock to the supply is never worse than nothing
            return [m for m in moves if type(m) is not Done] or moves
        claims: list[Move] = []
        others: list[Move] = []
        pawn_moves: list[Move] = []
        ends: list[Move] = []
        markers: list[Move] = []
        house_moves: list[Move] = []
        promo: list[Move] = []
        for m in moves:
            kind = type(m)
            if kind in _HOUSE_TYPES:
                house_moves.append(m)
            elif kind is Claim:
                claims.append(m)
            elif kind is Pawn:
                pawn_moves.append(m)
            elif kind is EndTurn:
                ends.append(m)
            elif kind is PlaceMarker:
                markers.append(m)
            elif kind is TakeTile or kind is UseTribute or kind is UseBlock:
                promo.append(m)
            elif kind is UseExchange and m.marker == "exchange":  # type: ignore[attr-defined]
                continue  # an Exchange for a used Exchange changes nothing, and could be repeated for ever
            else:
                others.append(m)
        if len(house_moves) > self.width:
            gain = route_gains(state, me, self.weights)
            board = state.board
            house_route = board.house_route
            house_index = board.house_index
            noise = self.rng.random
            scored = []
            for m in house_moves:
                r = house_route[house_index[m.house]]  # type: ignore[attr-defined]
                g = -gain[r] if type(m) in _TAKE_BACK else gain[r]
                scored.append((g + noise() * 1e-3, r, m))
            scored.sort(key=lambda t: t[0], reverse=True)
            # One move per (kind of move, route) first: the houses of one route are nearly interchangeable, and
            # ``width`` moves onto the same two routes would leave the lookahead blind to every other route.
            picked: list[Move] = []
            spare: list[Move] = []
            seen: set[tuple[type, int]] = set()
            for _, r, m in scored:
                key = (type(m), r)
                if key in seen:
                    spare.append(m)
                else:
                    seen.add(key)
                    picked.append(m)
                    if len(picked) == self.width:
                        break
            house_moves = picked + spare[: self.width - len(picked)]
        if len(markers) > self.width:  # where to put a replacement marker: the routes it helps most
            gain = route_gains(state, me, self.weights)
            index = state.board.route_index
            markers.sort(key=lambda m: gain[index[m.route]], reverse=True)  # type: ignore[attr-defined]
            markers = markers[: self.width]
        if promo:
            others.extend(self.promo_candidates(state, promo, me))
        return claims + house_moves + markers + others + pawn_moves + ends

    def promo_candidates(self, state: GameState, moves: list[Move], me: int) -> list[Move]:
        """Emperor's Favour tiles and the Tribute and Block markers, cut to the moves worth a lookahead: per tile the
        two markers ``me`` values least (the evaluation is the same otherwise), a Tribute beside the
        ``_PROMO_ROUTES`` routes whose cities will see most offices, a Block beside the routes a rival builds on
        alone (only those: a Block elsewhere charges nobody yet)."""
        w = self.weights
        tiles: dict[str, TakeTile] = {}
        cost: dict[str, float] = {}
        tributes: list[Move] = []
        blocks: list[Move] = []
        for m in moves:
            if isinstance(m, TakeTile):
                c = w.unused_marker[MARKER_NAMES.index(m.first)] + w.unused_marker[MARKER_NAMES.index(m.second)]
                if m.tile not in tiles or c < cost[m.tile]:
                    tiles[m.tile], cost[m.tile] = m, c
            elif isinstance(m, UseTribute):
                tributes.append(m)
            else:
                blocks.append(m)
        out: list[Move] = list(tiles.values())
        index = state.board.route_index
        if tributes:
            outlook = tribute_outlook(state, w)
            tributes.sort(key=lambda m: outlook[index[m.route]], reverse=True)  # type: ignore[attr-defined]
            out.extend(tributes[:_PROMO_ROUTES])
        if blocks:
            need = block_targets(state, me)
            blocks = [m for m in blocks if need[index[m.route]] > 0]  # type: ignore[attr-defined]
            blocks.sort(key=lambda m: need[index[m.route]], reverse=True)  # type: ignore[attr-defined]
            out.extend(blocks[:_PROMO_ROUTES])
        return out


    def permanent_candidates(self, state: GameState, moves: list[Move], me: int) -> list[Move]:
        """A permanent marker's many piece moves (*move any 2*, *reuse 2*, *place 2*), or Move 3's shifts, cut to the
        ``width`` with the best prior: where ``me``'s pieces gain most, and opponents' pieces taken off the routes
        they hold most of; every other choice (develop, green office, remove, done) is kept."""
        gain = route_gains(state, me, self.weights)
        board = state.board
        index = board.house_index
        route_of = board.house_route
        houses = state.houses

        def shift_prior(src: int, dst: int) -> float:
            code = houses[src]
            if code >> 1 == me:
                return gain[route_of[dst]] - gain[route_of[src]]
            route = board.routes[route_of[src]]
            held = sum(1 for h in route.houses if houses[h] >= 0 and houses[h] >> 1 == code >> 1)
            return 0.3 * held / route.spaces

        scored: list[tuple[float, Move]] = []
        kept: list[Move] = []
        noise = self.rng.random
        for m in moves:
            if isinstance(m, Shift):
                scored.append((shift_prior(index[m.house], index[m.to]) + noise() * 1e-3, m))
            elif isinstance(m, Exchange):
                a, b = index[m.house], index[m.other]
                scored.append((shift_prior(a, b) + shift_prior(b, a) + noise() * 1e-3, m))
            elif isinstance(m, Place):
                scored.append((gain[route_of[index[m.house]]] + noise() * 1e-3, m))
            else:
                kept.append(m)
        scored.sort(key=lambda t: t[0], reverse=True)
        return [m for _, m in scored[: self.width]] + kept


def block_targets(state: GameState, me: int) -> list[float]:
    """Per route, how much a rival needs it (for a Block marker): a route one rival builds on alone, by its free
    houses (each will cost that rival a piece more) and the share the rival already holds; 0 elsewhere."""
    houses = state.houses
    out = []
    for r, route in enumerate(state.board.routes):
        free = state.route_free[r]
        owner = -1
        for h in route.houses:
            code = houses[h]
            if code >= 0:
                if owner >= 0 and code >> 1 != owner:
                    owner = -2
                    break
                owner = code >> 1
        if owner < 0 or owner == me or owner == NEUTRAL or not free:
            out.append(0.0)
        else:
            out.append(free * (1.0 + (route.spaces - free) / route.spaces))
    return out


def route_gains(state: GameState, me: int, w: Weights = DEFAULT) -> list[float]:
    """Cheap prior per route: roughly how much one more piece of ``me`` there is worth (less beside a Block)."""
    table = city_table(state, me, w, me)
    houses = state.houses
    out = []
    for route in state.board.routes:
        own = other = 0
        for h in route.houses:
            code = houses[h]
            if code < 0:
                continue
            if code >> 1 == me:
                own += 1
            else:
                other += 1
        if other:
            out.append(-0.5 + 0.2 * own)  # contested: little value in adding more
            continue
        value = claim_with(state, me, route.index, table, w)
        n = route.spaces
        out.append(value * (((own + 1) / n) ** 2 - (own / n) ** 2))
    if state.blocks:
        for r, _ in state.blocks:
            if out[r] > 0:
                out[r] *= w.block_hold
    return out
