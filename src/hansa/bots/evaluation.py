"""A readable evaluation of a Hansa Teutonica position, used by the heuristic and MCTS bots.

``evaluate(state)`` returns one number per seat: an estimate of that seat's final score plus the value of what it
is building.  Every term is listed in :class:`Weights` with the reason for its size.  Only public information is
used: the face-down marker supply and the plates count, their contents do not.

Terms for seat ``p``:

* **score** — in-game prestige points (certain).
* **final** — final scoring if the game ended now: fully developed abilities, bonus markers held, Coellen table,
  controlled cities (2 each), largest network × Town keys.
* **abilities** — progress on each track, by how much a level is worth for the rest of the game.
* **routes** — for every route holding only ``p``'s pieces: the fraction filled, squared, times what claiming
  it would bring (control points, the best benefit, the marker on it); a full own route counts
  ``full_route_hold`` of it.
* **pieces** — pieces in the supply (ready) and in the stock (one Income away).
* **mobility** — a penalty when fewer than ``mobile_floor`` of ``p``'s pieces can still move (supply, stock,
  routes, hand): a piece in an office or on the desk never plays again, and a player left with one or two such
  pieces can complete no route, score no point and so never end the game it leads.
* **markers** — unused bonus markers (their effect is still to come).

Not in ``evaluate``, because they depend on who is looking: the actions the deciding seat has left this turn
(:func:`tempo`) and, in the pawn variant, what its routes lose while the pawn is away from them
(:func:`pawn_reach`).  The bots add both for themselves only.

The bots maximise ``value[p] - Weights.rivalry * max(value[q] for q != p) + tempo + pawn_reach``: a position is
good when it is good for me and not for my strongest opponent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.constants import (
    ABILITY_MAX,
    ABILITY_VALUES,
    ACTIONS,
    BAGS,
    BOOK,
    CONTROL_POINTS,
    EXTRA_OFFICE,
    FULL_ABILITY_POINTS,
    KEYS,
    NEUTRAL,
    PRIVILEGE,
    marker_points,
)
from ..core.scoring import country_points
from ..core.state import GameState, Phase


@dataclass(frozen=True)
class Weights:
    """Weights of the evaluation terms (points per unit)."""

    #: Value of one level of each ability (keys, actions, privilege, book, bags): Actions is the strongest engine
    #: in the game, Privilege opens offices, Keys multiply the network, Book and Bags are logistics.
    ability_level: tuple[float, ...] = (2.2, 2.8, 1.8, 1.0, 1.2)
    #: Base value of claiming a route (the action it costs is paid later; the pieces return to the stock).
    claim_base: float = 0.5
    #: Value of holding an office beyond what final scoring would give for it now (future control, network growth,
    #: the tie-break); counted for every office in the evaluation, so claims realise it.
    office_held: float = 1.5
    #: Value of an ability upgrade obtained by a claim (on top of ability_level).
    ability_claim: float = 1.0
    #: A bonus marker lying on a route, for whoever claims it.
    route_marker: float = 2.5
    #: How a partly filled own route is discounted: hold × value × (filled fraction) ** route_power.  ``hold`` < 1
    #: makes claiming a full route better than sitting on it.
    route_power: float = 2.0
    route_hold: float = 0.6
    #: A *full* own route counts less than ``route_hold``: its pieces are idle until claimed, and several full
    #: routes into one city all count that city's next office, which only one of them can take.
    full_route_hold: float = 0.45
    #: Pieces ready to use: ``liquidity × sqrt(1 + supply + stock_share × stock)``.  Concave, so the first pieces
    #: matter most: a player with nothing left values getting pieces back (claiming a dead route) highly.  The 1
    #: keeps the last piece from looking so precious that a bot never completes a route with it.
    liquidity: float = 1.0
    stock_share: float = 0.4
    #: Mobility: ``stranded × (mobile_floor - mobile)²`` is subtracted while a seat has fewer than ``mobile_floor``
    #: pieces outside the offices and the desk.  Every office taken spends a piece for good and only an ability
    #: upgrade gives one back, so a bot that took offices greedily could end with every piece placed for good,
    #: stuck a point short of the end of a game it led by fifty (seen against random opponents).
    mobile_floor: int = 4
    stranded: float = 1.0
    #: A piece in hand during a Move or a relocation (about to land on the board).
    supply_piece: float = 0.15
    #: An action still available to the deciding seat in its own turn (ending a turn early forfeits them).  Not
    #: part of :func:`evaluate`, which would otherwise credit the next player with a whole turn of actions the moment
    #: a turn passes and so make every turn-ending action (a claim as the last action) look worse than an idle
    #: one; the bots add it for themselves with :func:`tempo`.
    tempo: float = 0.6
    #: An unused bonus marker (its effect is still to come), by type (extra, swap, +3, +4, improve, remove3).
    unused_marker: tuple[float, ...] = (1.5, 0.5, 1.5, 2.0, 2.0, 0.8)
    #: How much the strongest opponent's value is subtracted.
    rivalry: float = 0.8
    #: Two-player pawn variant: a route's value is multiplied by how easily the pawn reaches it (Place, Displace
    #: and Claim need the pawn beside the route): already there, a free move away (1-2 borders), or a paid action.
    pawn_reach: tuple[float, float, float] = (1.0, 0.8, 0.55)
    #: Stall breaker of the heuristic bot (:func:`hansa.bots.heuristic.progress_pressure`): after this many rounds
    #: claims gain, and moves that change nothing on the routes lose, ``pressure_per_round`` per further round.
    long_game_rounds: float = 60.0
    pressure_per_round: float = 0.25


DEFAULT = Weights()


def controllers(state: GameState) -> list[int | None]:
    """Controller of every city (index by city)."""
    return office_summary(state)[0]


def office_summary(state: GameState) -> tuple[list[int | None], list[dict[int, int]]]:
    """One pass over the cities: the controller of every city (as :meth:`GameState.controller`) and, per seat,
    the offices it holds in each city (``{city: count}``, printed and extra offices).  Memoized on the offices
    (they change only when a route is claimed, so a search meets the same few office layouts again and again);
    the returned lists are shared and must not be changed."""
    facts = _office_facts(state)
    return facts[0], facts[1]


#: Per city: (control point now, next office needs a Merchant, best benefit with that kind, best otherwise).
CityTable = list[tuple[float, bool, float, float]]
_Facts = tuple[
    list[int | None], list[dict[int, int]], list[int], list[int], list[int],
    dict[tuple[int, tuple[int, ...], bool], tuple[Weights, CityTable]], list[int],
]
#: Memo of :func:`_office_facts`, keyed by board side, seat count and the office layout.
_FACTS: dict[tuple[object, ...], _Facts] = {}
_FACTS_LIMIT = 20_000


def _office_facts(state: GameState) -> _Facts:
    """Controllers, offices held per seat and city, per seat: largest network, cities controlled, offices held;
    and a memo of :func:`_city_table`."""
    key = (state.board.side, state.players, tuple(state.offices), tuple(state.extras), tuple(state.right_offices))
    facts = _FACTS.get(key)
    if facts is not None:
        return facts
    board = state.board
    offices = state.offices
    extras = state.extras
    filled = state.city_filled
    n = state.players
    ctrl: list[int | None] = [None] * len(board.cities)
    held: list[dict[int, int]] = [{} for _ in range(n)]
    right = state.right_offices
    for c, city in enumerate(board.cities):
        ex = extras[c]
        if not filled[c] and not ex and not right[c]:
            continue
        counts: dict[int, int] = {}
        last: dict[int, int] = {}
        pos = 0
        for code in ex:
            o = code >> 1
            counts[o] = counts.get(o, 0) + 1
            last[o] = pos
            pos += 1
        base = city.office_base
        for i in range(base, base + len(city.offices)):
            code = offices[i]
            if code >= 0:
                o = code >> 1
                counts[o] = counts.get(o, 0) + 1
                last[o] = pos
            pos += 1
        for code in right[c]:  # East: offices the permanent marker put right of a green city's offices
            o = code >> 1
            counts[o] = counts.get(o, 0) + 1
            last[o] = pos
            pos += 1
        if len(counts) == 1:
            (owner,) = counts
        else:
            top = max(counts.values())
            owner = max((o for o, k in counts.items() if k == top), key=last.__getitem__)
        ctrl[c] = owner
        for o, k in counts.items():
            if o < n:
                held[o][c] = k
    networks = [largest_network(state, held[p]) for p in range(n)]
    controlled = [sum(1 for owner in ctrl if owner == p) for p in range(n)]
    countries = (
        country_points(board, n, ctrl, lambda p, c: held[p].get(c, 0)) if board.country_scoring else [0] * n
    )

    totals = [sum(held[p].values()) for p in range(n)]
    if len(_FACTS) >= _FACTS_LIMIT:
        _FACTS.clear()
    facts = (ctrl, held, networks, controlled, totals, {}, countries)
    _FACTS[key] = facts
    return facts


def largest_network(state: GameState, held: dict[int, int]) -> int:
    """Offices in the largest connected group of cities of ``held`` (``{city: offices}``, docs/rules.md §2.8.2)."""
    cities = state.board.cities
    seen: set[int] = set()
    best = 0
    for start in held:
        if start in seen:
            continue
        seen.add(start)
        stack = [start]
        total = 0
        while stack:
            c = stack.pop()
            total += held[c]
            for nb in cities[c].neighbours:
                if nb in held and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
        if total > best:
            best = total
    return best


def final_now(state: GameState, p: int) -> float:
    """Final score of seat ``p`` if the game ended now (docs/rules.md §4.3)."""
    return _final(state, p, _office_facts(state))


def _final(state: GameState, p: int, facts: _Facts) -> float:
    _, _, networks, controlled, _, _, countries = facts
    total = state.score[p]
    levels = state.levels
    for a in (ACTIONS, PRIVILEGE, BOOK, BAGS):
        if levels[p * 5 + a] == ABILITY_MAX[a]:
            total += FULL_ABILITY_POINTS
    total += marker_points(len(state.markers[p]) + len(state.used_markers[p]))
    for (points, _), code in zip(state.board.coellen_table, state.table):
        if code >= 0 and code >> 1 == p:
            total += points
    total += CONTROL_POINTS * controlled[p]
    total += networks[p] * ABILITY_VALUES[KEYS][levels[p * 5 + KEYS]]
    return total + countries[p]


def claim_value(state: GameState, p: int, r: int, w: Weights = DEFAULT) -> float:
    """What claiming route ``r`` would be worth to ``p`` (control points now + the best benefit + its marker)."""
    return claim_with(state, p, r, _city_table(state, p, w, _office_facts(state)), w)


def city_table(state: GameState, p: int, w: Weights = DEFAULT) -> CityTable:
    """Per city, what claiming a route beside it brings ``p`` (for :func:`claim_with`)."""
    return _city_table(state, p, w, _office_facts(state))


def claim_with(state: GameState, p: int, r: int, table: CityTable, w: Weights = DEFAULT) -> float:
    """:func:`claim_value` with ``p``'s :func:`city_table` at hand (saves recomputing it for every route)."""
    board = state.board
    route = board.routes[r]
    # Which piece kinds the claim will have: those on the route, or (route not full yet) those p can still add.
    has_t = has_m = free = False
    houses = state.houses
    for h in route.houses:
        code = houses[h]
        if code < 0:
            free = True
        elif code & 1:
            has_m = True
        else:
            has_t = True
    if free:
        has_t = True
        has_m = has_m or state.sup_m[p] > 0
    value = w.claim_base
    best = 0.0
    for c in route.cities:
        bonus, needs_m, if_kind, otherwise = table[c]
        value += bonus
        b = if_kind if (has_m if needs_m else has_t) else otherwise
        if b > best:
            best = b
    if r == board.coellen_route and has_m:
        priv = ABILITY_VALUES[PRIVILEGE][state.levels[p * 5 + PRIVILEGE]]
        for (points, colour), code in zip(board.coellen_table, state.table):
            if code < 0 and colour <= priv:
                best = max(best, points * 0.8)
                break
    if state.route_marker[r] >= 0:
        value += w.route_marker
    elif route.permanent is not None:  # a sea route's permanent bonus marker: a free extra, every claim
        value += w.route_marker
    return value + best


def _city_table(state: GameState, p: int, w: Weights, facts: _Facts) -> CityTable:
    """Per city, what a claim beside it brings ``p``: (control point now, whether the next office needs a
    Merchant, best benefit when the claim has that piece kind, best benefit otherwise).  Depends only on the
    offices (memoized with them), ``p``'s abilities and whether ``p`` holds an extra-office marker."""
    levels = state.levels
    own = tuple(levels[p * 5 : p * 5 + 5])
    extra = EXTRA_OFFICE in state.markers[p]
    key = (p, own, extra)
    cached = facts[5].get(key)
    if cached is not None and cached[0] is w:
        return cached[1]
    ctrl = facts[0]
    board = state.board
    priv = ABILITY_VALUES[PRIVILEGE][own[PRIVILEGE]]
    keys = ABILITY_VALUES[KEYS][own[KEYS]]
    out = []
    for c, city in enumerate(board.cities):
        owner = ctrl[c]
        filled = state.city_filled[c]
        office = w.office_held + keys + (CONTROL_POINTS if owner is None else 0)
        spec = city.offices[filled] if filled < len(city.offices) else None
        with_kind = without = 0.0
        if extra and (filled or state.extras[c] or city.green):
            with_kind = without = office - 1.0
        if spec is not None and spec.privilege <= priv:
            with_kind = office + float(spec.points if spec.coin else 0)
        for a in city.abilities:
            if own[a] < ABILITY_MAX[a]:
                ability = w.ability_level[a] + w.ability_claim
                with_kind = max(with_kind, ability)
                without = max(without, ability)
        out.append((1.0 if owner == p else 0.0, bool(spec is not None and spec.round), with_kind, without))
    facts[5][key] = (w, out)
    return out


def pawn_distances(state: GameState) -> tuple[int, ...] | None:
    """Pawn variant: for every route, how many borders the pawn must cross to stand beside it (None without pawn)."""
    if state.pawn < 0:
        return None
    return state.board.pawn_route_distance[state.pawn]


def hold_factor(own: int, spaces: int, w: Weights = DEFAULT) -> float:
    """Share of a route's claim value that ``own`` pieces (of ``spaces``, all one owner's) are worth now."""
    return w.full_route_hold if own == spaces else w.route_hold * (own / spaces) ** w.route_power


def evaluate(state: GameState, w: Weights = DEFAULT) -> list[float]:
    """Value of the position for every seat (higher is better); see the module docstring."""
    n = state.players
    facts = _office_facts(state)
    totals = facts[4]
    tables: dict[int, CityTable] = {}
    values = [_final(state, p, facts) + w.office_held * totals[p] for p in range(n)]
    levels = state.levels
    holder = -1
    if state.phase == Phase.MOVE or state.phase == Phase.RELOCATE:  # pieces in hand are about to land
        holder = state.current if state.phase == Phase.MOVE else state.rl_owner
    for p in range(n):
        v = 0.0
        for a in range(5):
            v += w.ability_level[a] * levels[p * 5 + a]
        ready = state.sup_t[p] + state.sup_m[p] + w.stock_share * (state.stk_t[p] + state.stk_m[p])
        v += w.liquidity * math.sqrt(ready + 1.0)
        mobile = state.sup_t[p] + state.sup_m[p] + state.stk_t[p] + state.stk_m[p] + len(state.own[p])  # own: its houses
        if p == holder:
            mobile += len(state.hand)
        if mobile < w.mobile_floor and not state.is_over:
            v -= w.stranded * (w.mobile_floor - mobile) ** 2
        for kind in state.markers[p]:
            v += w.unused_marker[kind]
        values[p] += v
    if 0 <= holder < n:
        values[holder] += w.supply_piece * len(state.hand)
    # Routes held by one seat only.
    houses = state.houses
    for route in state.board.routes:
        owner = -1
        own = 0
        mixed = False
        for h in route.houses:
            code = houses[h]
            if code < 0:
                continue
            o = code >> 1
            if owner < 0:
                owner = o
            elif o != owner:
                mixed = True
                break
            own += 1
        if mixed or owner < 0 or owner == NEUTRAL:
            continue
        table = tables.get(owner)
        if table is None:
            table = tables[owner] = _city_table(state, owner, w, facts)
        values[owner] += hold_factor(own, len(route.houses), w) * claim_with(state, owner, route.index, table, w)
    return values


def pawn_reach(state: GameState, p: int, w: Weights = DEFAULT) -> float:
    """Pawn variant: what ``p``'s routes lose because the pawn is away from them (``w.pawn_reach``), ≤ 0.

    Only the deciding seat counts this for itself (like :func:`tempo`): were it part of :func:`evaluate`, every
    bot would also value moving the pawn away from its rival's routes, and two bots would spend their actions
    chasing the pawn back and forth."""
    reach = pawn_distances(state)
    if reach is None:
        return 0.0
    here, near, far = w.pawn_reach
    table: CityTable | None = None
    houses = state.houses
    loss = 0.0
    for route in state.board.routes:
        d = reach[route.index]
        factor = here if d == 0 else near if d <= 2 else far
        if factor == 1.0:
            continue
        own = 0
        for h in route.houses:
            code = houses[h]
            if code < 0:
                continue
            if code >> 1 != p:
                own = -1
                break
            own += 1
        if own <= 0:
            continue
        if table is None:
            table = _city_table(state, p, w, _office_facts(state))
        loss += (factor - 1.0) * hold_factor(own, len(route.houses), w) * claim_with(state, p, route.index, table, w)
    return loss


def tempo(state: GameState, p: int, w: Weights = DEFAULT) -> float:
    """``w.tempo`` × the actions ``p`` still has this turn (0 unless it is ``p``'s turn, in its actions)."""
    if state.is_over or state.current != p or state.phase not in (Phase.ACTIONS, Phase.MOVE):
        return 0.0
    return w.tempo * state.actions_left()


def relative(values: list[float], p: int, w: Weights = DEFAULT) -> float:
    """``values[p]`` minus ``rivalry`` × the best opponent's value."""
    best_other = max(v for q, v in enumerate(values) if q != p)
    return values[p] - w.rivalry * best_other


def action_points(state: GameState, p: int) -> int:
    """Actions per turn of seat ``p`` (used by the bots to value tempo)."""
    return ABILITY_VALUES[ACTIONS][state.levels[p * 5 + ACTIONS]]


__all__ = [
    "DEFAULT", "CityTable", "Weights", "action_points", "city_table", "claim_value", "claim_with", "controllers", "evaluate", "final_now", "hold_factor",
    "largest_network", "office_summary", "pawn_distances", "pawn_reach", "relative", "tempo",
]
