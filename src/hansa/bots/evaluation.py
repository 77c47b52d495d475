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

With the Big Box modules (docs/rules.md §8; every term is skipped, at the cost of one test, in a game without them):

* **final** counts what the modules change: every collected marker (face-down tile markers, Tribute and Block
  markers beside routes), F-CITY's 4 PP per controlled city and F-ABIL's 7 PP per developed ability.
* **tiles** — an owned Emperor's Favour tile is worth ``tile_value`` × the share of the game still to come
  (:func:`game_left`): F-ACT is an extra action every turn, F-INC a piece per rival's Income, and so on; F-CITY and
  F-ABIL also count in **final** once they pay.
* **tributes** — a Tribute marker beside a route is worth the tributes its owner can still expect: a pair of pieces
  for every office still likely to be established in either city (free printed offices, weighted by how busy the
  routes into the city are, times :func:`game_left`).
* **blocks** — a route a seat builds on alone, beside ``k`` Block markers and not full yet, counts ``block_hold ** k``
  of its value (every piece still to place there costs one more per Block), so the bot builds such a route only
  when it is worth the surcharge; the owner of each such Block gains ``block_piece`` per free house of the route
  (the surcharges that rival has still to pay).
* **mission** — for one seat only, the ``viewer`` given to :func:`evaluate` (the bot's own seat: a bot never reads
  another seat's card): the mission points it holds (1 per listed city with an office) plus a growing share of the
  +5 for the listed cities it controls; its city table adds the same to an office in a listed city, so its routes
  and claims lean towards its mission.

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
    F_ABIL,
    F_CITY,
    F_INC,
    FAVOUR_ABILITY_POINTS,
    FAVOUR_CONTROL_POINTS,
    FULL_ABILITY_POINTS,
    KEYS,
    MISSION_ALL_POINTS,
    MISSION_CARDS,
    MISSION_CITY_POINTS,
    NEUTRAL,
    PRIVILEGE,
    WIN_SCORE,
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
    #: An unused bonus marker (its effect is still to come), by type (extra, swap, +3, +4, improve, remove3, and the
    #: Big Box promo markers exchange, tribute, block).  Exchange is worth less than the markers it can take (+4,
    #: Improve, Extra office, +3), so the bot exchanges it for one of them; Tribute and Block less than what they
    #: bring beside a good route (``tribute_pair``, ``block_piece``), so the bot puts them out where they pay.
    unused_marker: tuple[float, ...] = (1.5, 0.5, 1.5, 2.0, 2.0, 0.8, 1.0, 1.0, 0.4)
    #: Emperor's Favour: what owning each tile (F-FREE, F-ACT, F-INC, F-TWO, F-CITY, F-ABIL) is worth at the start of
    #: the game, scaled by :func:`game_left`.  F-ACT is an action more every turn (Actions levels are worth
    #: ``ability_level[1]`` and most of them add one action); F-INC a piece per rival's Income (the value is for
    #: three rivals, scaled by their number); F-FREE and F-TWO soften displacements; F-CITY and F-ABIL the control
    #: and abilities still to come (what they already pay is in the final score).
    tile_value: tuple[float, ...] = (1.5, 8.0, 3.0, 1.5, 2.0, 1.5)
    #: Heuristic bot: what taking a tile costs per action of the turn it ends, on top of the ``tempo`` of those
    #: actions (an action played is worth more than the tempo of an action still to play).
    tile_turn: float = 0.4
    #: A pair of pieces from the stock to the supply (a Tribute's payment): about half an Income action.
    tribute_pair: float = 0.8
    #: Offices expected in a city per free printed office (at most three counted), for a Tribute beside it:
    #: ``tribute_base`` + ``tribute_busy`` × the share of the houses filled on the routes into the city (calibrated
    #: on heuristic games: a Tribute put out around round 8 saw about 1.1 offices in its two cities).
    tribute_base: float = 0.13
    tribute_busy: float = 0.4
    #: A route beside a Block marker that its (sole) owner has not filled yet counts this share of its value per
    #: Block: each Place there costs a piece more (back to the stock), about a third of an Income action.
    block_hold: float = 0.7
    #: What a Block marker's owner gains per free house of a route beside it that one rival builds on alone (every
    #: piece that rival still places there costs it a piece more).
    block_piece: float = 0.35
    #: Mission Cards: the share of the +5 for controlling all three listed cities counted while 0, 1, 2 or 3 of them
    #: are controlled, times ``(1 - game_left) ** mission_late`` (:func:`mission_late`).  Control changes hands
    #: until the end, and chasing it early cost the bot more than it won: in heuristic-vs-heuristic games
    #: (benchmarks/bots_modules.md) shares of (0, 0.15, 0.4, 1) from the start lost 1.9 points a game to a bot
    #: ignoring its mission, while only the third city, more and more as the game nears its end, won 0.3-0.6.
    #: The 1 PP per listed city with an office always counts in full.
    mission_control: tuple[float, ...] = (0.0, 0.0, 0.0, 1.0)
    mission_late: float = 1.0
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
    dict[tuple[object, ...], tuple[Weights, CityTable]], list[int],
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
    """Final score of seat ``p`` if the game ended now (docs/rules.md §4.3), module points included (not the
    mission, which only its seat may see)."""
    final = _final_modules if state.favour or state.tributes or state.blocks else _final
    return final(state, p, _office_facts(state))


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


def _final_modules(state: GameState, p: int, facts: _Facts) -> float:
    """:func:`_final` with Emperor's Favour tiles or Tribute and Block markers: F-ABIL's and F-CITY's points, and
    every collected marker (face down under a tile, beside a route) (docs/rules.md §8.9)."""
    _, _, networks, controlled, _, _, countries = facts
    total = state.score[p]
    levels = state.levels
    favour = state.favour
    full = FAVOUR_ABILITY_POINTS if favour and favour[F_ABIL] == p else FULL_ABILITY_POINTS
    for a in (ACTIONS, PRIVILEGE, BOOK, BAGS):
        if levels[p * 5 + a] == ABILITY_MAX[a]:
            total += full
    collected = len(state.markers[p]) + len(state.used_markers[p]) + len(state.facedown[p])
    collected += sum(1 for _, owner in state.tributes + state.blocks if owner == p)
    total += marker_points(collected)
    for (points, _), code in zip(state.board.coellen_table, state.table):
        if code >= 0 and code >> 1 == p:
            total += points
    total += control_points(state, p) * controlled[p]
    total += networks[p] * ABILITY_VALUES[KEYS][levels[p * 5 + KEYS]]
    return total + countries[p]


def control_points(state: GameState, p: int) -> int:
    """Final-scoring points per city ``p`` controls: 2, or 4 with F-CITY (docs/rules.md §8.4)."""
    favour = state.favour
    return FAVOUR_CONTROL_POINTS if favour and favour[F_CITY] == p else CONTROL_POINTS


def game_left(state: GameState) -> float:
    """Roughly the share of the game still to come (1 at the start, at least 0.1): the nearer of the two usual
    ends, 20 prestige points (§4.1) and the completed cities that end the game."""
    done = max(max(state.score) / WIN_SCORE, state.completed / state.board.cities_to_end)
    return max(0.1, 1.0 - done)


#: City indexes of each mission card, by board (memo of :func:`mission_cities`).
_MISSION_CITIES: dict[tuple[object, int], tuple[int, ...]] = {}


def mission_cities(state: GameState, card: int) -> tuple[int, ...]:
    """The cities (indexes) of mission card ``card`` on ``state``'s board."""
    key = (state.board.side, card)
    cities = _MISSION_CITIES.get(key)
    if cities is None:
        index = state.board.city_index
        cities = _MISSION_CITIES[key] = tuple(index[code] for code in MISSION_CARDS[card])
    return cities


def mission_late(state: GameState, w: Weights = DEFAULT) -> float:
    """How much of ``mission_control`` counts now: ``((1 - game_left) / 0.9) ** mission_late``, rounded to a tenth
    (a key of the city-table memo)."""
    if not w.mission_late:
        return 1.0
    share: float = min(1.0, (1.0 - game_left(state)) / 0.9) ** w.mission_late
    return round(share, 1)


def mission_value(state: GameState, p: int, card: int, w: Weights = DEFAULT) -> float:
    """What ``p``'s mission ``card`` is worth now: 1 per listed city with an office of ``p`` plus
    ``mission_control[k]`` of the +5, ``k`` = listed cities ``p`` controls (all three: the full 8 of the card)."""
    return _mission_value(p, mission_cities(state, card), _office_facts(state), w)


def _mission_value(p: int, cities: tuple[int, ...], facts: _Facts, w: Weights, late: float = 1.0) -> float:
    ctrl, held = facts[0], facts[1]
    offices = sum(1 for c in cities if held[p].get(c))
    controlled = sum(1 for c in cities if ctrl[c] == p)
    return MISSION_CITY_POINTS * offices + MISSION_ALL_POINTS * w.mission_control[controlled] * late


def claim_value(state: GameState, p: int, r: int, w: Weights = DEFAULT, viewer: int = -1) -> float:
    """What claiming route ``r`` would be worth to ``p`` (control points now + the best benefit + its marker; with
    ``p == viewer``, what an office brings ``p``'s mission too)."""
    return claim_with(state, p, r, city_table(state, p, w, viewer), w)


def city_table(state: GameState, p: int, w: Weights = DEFAULT, viewer: int = -1) -> CityTable:
    """Per city, what claiming a route beside it brings ``p`` (for :func:`claim_with`); ``p``'s mission counts
    when ``p`` is the ``viewer``, F-CITY's 4 PP per controlled city when ``p`` holds it."""
    facts = _office_facts(state)
    card = viewer_card(state, p, viewer)
    if card or state.favour:
        return _city_table_modules(state, p, w, facts, card)
    return _city_table(state, p, w, facts)


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
    offices (memoized with them), ``p``'s abilities and whether ``p`` holds an extra-office marker.  (No module:
    see :func:`_city_table_modules`.)"""
    levels = state.levels
    own = tuple(levels[p * 5 : p * 5 + 5])
    extra = EXTRA_OFFICE in state.markers[p]
    key = (p, own, extra)
    cached = facts[5].get(key)
    if cached is not None and cached[0] is w:
        return cached[1]
    out = _build_city_table(state, p, w, facts, own, extra, CONTROL_POINTS, None)
    facts[5][key] = (w, out)
    return out


def _city_table_modules(state: GameState, p: int, w: Weights, facts: _Facts, card: int) -> CityTable:
    """:func:`_city_table` with the Big Box modules: F-CITY's control points for its owner, and the mission
    ``card`` counted for ``p`` (0: none; only ever the bot's own card)."""
    levels = state.levels
    own = tuple(levels[p * 5 : p * 5 + 5])
    extra = EXTRA_OFFICE in state.markers[p]
    control = control_points(state, p)
    key = (p, own, extra, card, control, mission_late(state, w) if card else 0.0)
    cached = facts[5].get(key)
    if cached is not None and cached[0] is w:
        return cached[1]
    mission = _mission_bonus(state, p, card, facts, w) if card else None
    out = _build_city_table(state, p, w, facts, own, extra, control, mission)
    facts[5][key] = (w, out)
    return out


def _build_city_table(
    state: GameState, p: int, w: Weights, facts: _Facts, own: tuple[int, ...], extra: bool, control: int,
    mission: dict[int, float] | None,
) -> CityTable:
    ctrl = facts[0]
    board = state.board
    priv = ABILITY_VALUES[PRIVILEGE][own[PRIVILEGE]]
    keys = ABILITY_VALUES[KEYS][own[KEYS]]
    out = []
    for c, city in enumerate(board.cities):
        owner = ctrl[c]
        filled = state.city_filled[c]
        office = w.office_held + keys + (control if owner is None else 0)
        if mission is not None:
            office += mission.get(c, 0.0)
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
    return out


def _mission_bonus(state: GameState, p: int, card: int, facts: _Facts, w: Weights) -> dict[int, float]:
    """Per listed city of ``p``'s mission ``card``: what one more office of ``p`` there adds to the mission (the
    first office's point, and the step of ``mission_control`` when the office would make ``p`` control the city)."""
    ctrl, held = facts[0], facts[1]
    cities = mission_cities(state, card)
    controlled = sum(1 for c in cities if ctrl[c] == p)
    steps = w.mission_control
    out: dict[int, float] = {}
    for c in cities:
        mine = held[p].get(c, 0)
        bonus = 0.0 if mine else float(MISSION_CITY_POINTS)
        late = mission_late(state, w)
        if ctrl[c] != p:
            rival = max((held[q].get(c, 0) for q in range(state.players) if q != p), default=0)
            if ctrl[c] is None or (ctrl[c] != NEUTRAL and mine + 1 >= rival):
                bonus += MISSION_ALL_POINTS * (steps[controlled + 1] - steps[controlled]) * late
        out[c] = bonus
    return out


def pawn_distances(state: GameState) -> tuple[int, ...] | None:
    """Pawn variant: for every route, how many borders the pawn must cross to stand beside it (None without pawn)."""
    if state.pawn < 0:
        return None
    return state.board.pawn_route_distance[state.pawn]


def hold_factor(own: int, spaces: int, w: Weights = DEFAULT) -> float:
    """Share of a route's claim value that ``own`` pieces (of ``spaces``, all one owner's) are worth now."""
    return w.full_route_hold if own == spaces else w.route_hold * (own / spaces) ** w.route_power


def evaluate(state: GameState, w: Weights = DEFAULT, viewer: int = -1) -> list[float]:
    """Value of the position for every seat (higher is better); see the module docstring.  ``viewer`` is the seat
    whose mission card counts (the bot's own; -1: nobody's).  A game without the Big Box modules runs the code it
    ran before them; with them, :func:`_module_terms` adds theirs afterwards."""
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
    if state.favour or state.tributes or state.blocks or state.missions:
        _module_terms(state, values, w, viewer, facts, tables)
    return values


def sole_owners(state: GameState) -> list[tuple[int, int, int]]:
    """``(route, owner, pieces)`` for every route whose pieces all belong to one seat (not the neutral player)."""
    houses = state.houses
    out = []
    for route in state.board.routes:
        owner = -1
        own = 0
        for h in route.houses:
            code = houses[h]
            if code < 0:
                continue
            if owner >= 0 and code >> 1 != owner:
                owner = -2
                break
            owner = code >> 1
            own += 1
        if 0 <= owner < state.players:
            out.append((route.index, owner, own))
    return out


def viewer_card(state: GameState, p: int, viewer: int) -> int:
    """The mission card that counts for seat ``p`` when ``viewer`` looks: ``viewer``'s own, nobody else's."""
    return state.missions[viewer] if p == viewer and viewer >= 0 and state.missions else 0


def _module_terms(
    state: GameState, values: list[float], w: Weights, viewer: int, facts: _Facts, tables: dict[int, CityTable]
) -> None:
    """The Big Box terms of :func:`evaluate`, added to ``values`` (computed as without the modules, with the plain
    city ``tables`` of the seats holding routes): the final score's module points (F-ABIL, F-CITY, every collected
    marker), the ``viewer``'s mission, and the routes of the seats whose city table the modules change (the
    ``viewer``'s mission cities, F-CITY's owner) valued again; tiles owned, Tribute markers' expected payments,
    Block markers beside routes built by one seat."""
    n = state.players
    favour = state.favour
    if favour or state.tributes or state.blocks:
        for p in range(n):
            values[p] += _final_modules(state, p, facts) - _final(state, p, facts)
    card = viewer_card(state, viewer, viewer)
    special: dict[int, CityTable] = {}
    for p in range(n):
        c = card if p == viewer else 0
        if c or (favour and favour[F_CITY] == p):
            special[p] = _city_table_modules(state, p, w, facts, c)
    if card:
        values[viewer] += _mission_value(viewer, mission_cities(state, card), facts, w, mission_late(state, w))
    routes = state.board.routes
    held = sole_owners(state) if special or state.blocks else []
    for r, owner, own in held:
        table = special.get(owner)
        if table is not None:
            plain = tables.get(owner) or _city_table(state, owner, w, facts)
            factor = hold_factor(own, routes[r].spaces, w)
            values[owner] += factor * (claim_with(state, owner, r, table, w) - claim_with(state, owner, r, plain, w))
    left = game_left(state)
    if favour:
        for t, owner in enumerate(favour):
            if 0 <= owner < n:
                value = w.tile_value[t] * left
                if t == F_INC:
                    value *= (n - 1) / 3.0
                values[owner] += value
    if state.tributes:
        expected = tribute_outlook(state, w)
        for r, owner in state.tributes:
            values[owner] += w.tribute_pair * expected[r]
    if state.blocks:
        blocked: dict[int, list[int]] = {}
        for r, blocker in state.blocks:
            blocked.setdefault(r, []).append(blocker)
        for r, owner, own in held:
            blockers = blocked.get(r)
            free = state.route_free[r]
            if blockers is None or not free:
                continue
            for blocker in blockers:
                if blocker != owner:
                    values[blocker] += w.block_piece * free
            table = special.get(owner) or tables.get(owner) or _city_table(state, owner, w, facts)
            worth = hold_factor(own, routes[r].spaces, w) * claim_with(state, owner, r, table, w)
            values[owner] -= (1.0 - w.block_hold ** len(blockers)) * worth


def tribute_outlook(state: GameState, w: Weights = DEFAULT) -> list[float]:
    """Per route, the offices still likely to be established in its two cities (what a Tribute marker beside it can
    expect to be paid for): per city, its free printed offices (at most 3) × (``tribute_base`` + ``tribute_busy`` ×
    the share of houses filled on the routes into it), times :func:`game_left`."""
    board = state.board
    routes = board.routes
    filled = [1.0 - state.route_free[r] / route.spaces for r, route in enumerate(routes)]
    left = game_left(state)
    city_rate = []
    for c, city in enumerate(board.cities):
        free = min(3, len(city.offices) - state.city_filled[c])
        if free <= 0 or not city.routes:
            city_rate.append(0.0)
            continue
        busy = sum(filled[r] for r in city.routes) / len(city.routes)
        city_rate.append(free * (w.tribute_base + w.tribute_busy * busy) * left)
    return [city_rate[a] + city_rate[b] for a, b in (route.cities for route in routes)]


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
            table = city_table(state, p, w, p)
        loss += (factor - 1.0) * hold_factor(own, len(route.houses), w) * claim_with(state, p, route.index, table, w)
    return loss


#: Phases in which the active seat's turn goes on: its actions, a Move, and the Big Box decisions other seats take in
#: the middle of its turn (F-INC's share after its Income, a tribute after its claim).
_OWN_TURN = (Phase.ACTIONS, Phase.MOVE, Phase.SHARE, Phase.TRIBUTE)


def tempo(state: GameState, p: int, w: Weights = DEFAULT) -> float:
    """``w.tempo`` × the actions ``p`` still has this turn (0 unless it is ``p``'s turn, in its actions)."""
    if state.is_over or state.current != p or state.phase not in _OWN_TURN:
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
    "DEFAULT", "CityTable", "Weights", "action_points", "city_table", "claim_value", "claim_with", "control_points",
    "controllers", "evaluate", "final_now", "game_left", "hold_factor", "largest_network", "mission_cities",
    "mission_value", "office_summary", "pawn_distances", "pawn_reach", "relative", "sole_owners",
    "tempo", "tribute_outlook", "viewer_card",
]
