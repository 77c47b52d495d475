"""JSON views of a game for clients: the public position (no hidden markers) and the board layout.

Used by the web server; any front end can use them.  Everything here is derived from the engine's public
attributes; the face-down supply and the plates appear only as counts.
"""

from __future__ import annotations

import math
from typing import Any

from .core.board import COUNTRIES, Board
from .core.constants import (
    ABILITY_MAX,
    ABILITY_NAMES,
    ABILITY_VALUES,
    BAGS_ALL,
    MARKER_NAMES,
    MISSION_CARDS,
    NEUTRAL,
    PRIVILEGE_COLOURS,
    TILE_CODES,
    TILE_DISPLAY,
)
from .core.scoring import final_scores, winners
from .core.state import GameState, Phase

PIECE = ("T", "M")


def _piece(code: int) -> list[Any] | None:
    """``[owner, "T"|"M"]`` (owner -1 for the neutral player) or ``None``."""
    if code < 0:
        return None
    owner = code >> 1
    return [-1 if owner == NEUTRAL else owner, PIECE[code & 1]]


def _owner(owner: int | None) -> int | None:
    """A seat, -1 for the neutral player, None for nobody."""
    return None if owner is None else -1 if owner == NEUTRAL else owner


def _ability_value(ability: int, level: int) -> int | str:
    value = ABILITY_VALUES[ability][level]
    if ability == 2:
        return PRIVILEGE_COLOURS[value - 1]
    return "C" if value == BAGS_ALL else value


def public_state(state: GameState) -> dict[str, Any]:
    """The position as every player may see it (JSON-ready)."""
    board = state.board
    houses = {board.house_names[h]: _piece(code) for h, code in enumerate(state.houses) if code >= 0}
    markers = {board.routes[r].code: MARKER_NAMES[m] for r, m in enumerate(state.route_marker) if m >= 0}
    offices = {}
    extras = {}
    for c in board.cities:
        offices[c.code] = [_piece(state.offices[c.office_base + i]) for i in range(len(c.offices))]
        if state.extras[c.index]:
            extras[c.code] = [_piece(code) for code in state.extras[c.index]]
    # East: offices put right of a green city's offices by the Malmoe-Visby permanent marker
    right = {board.cities[c].code: [_piece(code) for code in row] for c, row in enumerate(state.right_offices) if row}
    controllers = {}
    for c in board.cities:
        owner = state.controller(c.index)
        if owner is not None:
            controllers[c.code] = -1 if owner == NEUTRAL else owner
    out: dict[str, Any] = {
        "side": board.side,
        "players": players_json(state),
        "houses": houses,
        "route_markers": markers,
        "offices": offices,
        "extra_offices": extras,
        "right_offices": right,
        "controllers": controllers,
        "coellen_table": [_piece(code) for code in state.table],
        "completed_cities": state.completed,
        "east_west_paid": list(state.ew_paid),
        "hidden_markers": len(state.marker_supply),
        "turn": turn_json(state),
        "pawn": board.provinces[state.pawn].code if state.pawn >= 0 else None,
        "over": state.is_over,
    }
    out.update(modules_json(state))
    if state.is_over:
        out["result"] = result_json(state)
    return out


def modules_json(state: GameState) -> dict[str, Any]:
    """The public state of the Big Box modules in play (docs/rules.md §8): the Emperor's Favour tiles (``favour``:
    the display and each taken tile's owner) and the Tribute and Block markers beside routes (``[route, seat]`` in
    the order put out).  Mission cards are secret: see :func:`mission_json`; they appear in :func:`result_json`."""
    out: dict[str, Any] = {}
    if state.favour:
        out["favour"] = {
            "display": [TILE_CODES[t] for t, where in enumerate(state.favour) if where == TILE_DISPLAY],
            "owners": {TILE_CODES[t]: where for t, where in enumerate(state.favour) if where >= 0},
        }
    if state.options.marker_supply is not None:
        routes = state.board.routes
        out["tributes"] = [[routes[r].code, seat] for r, seat in state.tributes]
        out["blocks"] = [[routes[r].code, seat] for r, seat in state.blocks]
    return out


def mission_json(state: GameState, seat: int) -> dict[str, Any] | None:
    """Seat ``seat``'s mission card (``{"card": id, "cities": [codes]}``), or ``None`` without Mission Cards.  Secret:
    show it to that seat only while the game runs."""
    if not state.missions or not 0 <= seat < len(state.missions):
        return None
    card = state.missions[seat]
    return {"card": card, "cities": list(MISSION_CARDS[card])}


def result_json(state: GameState) -> dict[str, Any]:
    """The final result of an ended game: what ended it, every seat's scoring by category, the winners."""
    scores = final_scores(state)
    out = {
        "end_triggers": list(state.end_triggers),
        "scores": [s.to_json() for s in scores],
        "winners": winners(state, scores),
    }
    if state.missions:  # shown to everybody at the end
        out["missions"] = [mission_json(state, seat) for seat in range(state.players)]
    return out


def players_json(state: GameState) -> list[dict[str, Any]]:
    """Every seat's desk as every player may see it: supply, stock, abilities, score, markers, offices."""
    return [desk_json(state, p) for p in range(state.players)]


def desk_json(state: GameState, p: int) -> dict[str, Any]:
    """One seat's desk (an item of :func:`players_json`)."""
    abilities = {}
    for a, name in enumerate(ABILITY_NAMES):
        level = state.ability_level(p, a)
        abilities[name] = {
            "level": level,
            "max": ABILITY_MAX[a],
            "value": _ability_value(a, level),
            "track": [_ability_value(a, i) for i in range(ABILITY_MAX[a] + 1)],
        }
    return {
        "seat": p,
        "supply": {"T": state.sup_t[p], "M": state.sup_m[p]},
        "stock": {"T": state.stk_t[p], "M": state.stk_m[p]},
        "abilities": abilities,
        "score": state.score[p],
        "markers": [MARKER_NAMES[m] for m in state.markers[p]],
        "used_markers": [MARKER_NAMES[m] for m in state.used_markers[p]],
        "plate": len(state.plate[p]),
        "offices": state.office_count(p),
        "east_west": p in state.ew_paid,
        **({"facedown_markers": [MARKER_NAMES[m] for m in state.facedown[p]]} if state.favour else {}),
    }


def _desk_key(state: GameState, p: int) -> tuple[Any, ...]:
    """What :func:`desk_json` of seat ``p`` is made of, cheap to compare (a desk is built only when it changed)."""
    return (
        state.sup_t[p], state.sup_m[p], state.stk_t[p], state.stk_m[p], state.score[p],
        tuple(state.ability_level(p, a) for a in range(len(ABILITY_NAMES))),
        tuple(state.markers[p]), tuple(state.used_markers[p]), len(state.plate[p]), state.office_count(p),
        p in state.ew_paid, state.facedown[p],
    )


def turn_json(state: GameState) -> dict[str, Any]:
    """Whose decision it is and where the turn stands (phase, actions, the relocation or permanent marker at hand)."""
    board = state.board
    turn: dict[str, Any] = {
        "number": state.turn,
        "current": state.current,
        "decider": state.decider,
        "phase": state.phase.name.lower(),
        "actions_used": state.actions_used,
        "allowance": state.allowance(),
        "bonus_actions": state.bonus_actions,
        "hand": [PIECE[k] for k in state.hand],
        "start_player": state.start_player,
    }
    if state.phase == Phase.RELOCATE:
        turn["relocation"] = {
            "route": board.routes[state.rl_route].code,
            "owner": -1 if state.rl_owner == NEUTRAL else state.rl_owner,
            "extras_left": state.rl_extras,
        }
    if state.phase == Phase.REMOVE:
        turn["remove_left"] = state.rm_left
    if state.phase == Phase.TRIBUTE:
        turn["tribute"] = {"payee": state.decider, "due": len(state.tribute_due)}
    if state.phase == Phase.PERMANENT:
        route = board.routes[state.pm_route]
        turn["permanent"] = {"route": route.code, "effect": route.permanent, "left": state.pm_left}
    if board.permission_cities:  # Britannia: who holds each permission city (None: nobody), used this turn or not
        holders = [
            state.perm_holders[i]
            if state.options.permission_timing == "turnStart" and i < len(state.perm_holders)
            else state.holder(c)
            for i, (c, _) in enumerate(board.permission_cities)
        ]
        turn["permissions"] = [
            {
                "city": board.cities[c].code,
                "countries": [COUNTRIES[k] for k in range(len(COUNTRIES)) if mask >> k & 1],
                "holder": holders[i] if holders[i] >= 0 else None,
                "used": bool(state.perm_used >> i & 1) and not state.is_over,  # "this turn": no turn after the end
            }
            for i, (c, mask) in enumerate(board.permission_cities)
        ]
    return turn


def board_layout(board: Board) -> dict[str, Any]:
    """Board data for drawing: cities, routes with a position for every house, taverns, Coellen table."""
    xs = [c.xy[0] for c in board.cities]
    ys = [c.xy[1] for c in board.cities]
    width, height = max(xs) + min(xs), max(ys) + min(ys)
    routes = []
    for r in board.routes:
        (x1, y1), (x2, y2) = (board.cities[c].xy for c in r.cities)
        n = r.spaces
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        margin = min(0.3, 70 / length)
        houses = []
        for i in range(n):
            t = margin + (1 - 2 * margin) * (i + 0.5) / n
            house = {"name": f"{r.code}:{i + 1}", "x": round(x1 + (x2 - x1) * t, 1), "y": round(y1 + (y2 - y1) * t, 1)}
            if i in r.ships:
                house["ship"] = True  # a ship space: Merchants only
            houses.append(house)
        route: dict[str, Any] = {
            "code": r.code,
            "cities": [board.cities[c].code for c in r.cities],
            "houses": houses,
            "tavern": list(r.tavern_xy) if r.tavern_xy else None,
        }
        if r.permanent:
            route["permanent"] = r.permanent
        if board.countries:
            route["country"] = COUNTRIES[r.country]
        routes.append(route)
    cities = []
    for c in board.cities:
        city: dict[str, Any] = {
            "code": c.code,
            "name": board.printed_names.get(c.name, c.name),
            "x": c.xy[0],
            "y": c.xy[1],
            "ability": ABILITY_NAMES[c.ability] if c.ability is not None else None,
            "offices": [{"colour": o.colour, "shape": o.shape, "coin": o.coin} for o in c.offices],
        }
        if len(c.abilities) > 1:
            city["abilities"] = [ABILITY_NAMES[a] for a in c.abilities]
        if c.green:
            city["green"] = True
        if any(o.points > 1 for o in c.offices):
            for o, spec in zip(c.offices, city["offices"]):
                spec["points"] = o.points
        if board.countries:
            city["countries"] = [COUNTRIES[k] for k in range(len(COUNTRIES)) if c.countries >> k & 1]
        cities.append(city)
    extra: dict[str, Any] = {}
    if board.expansion:
        extra = {
            "map": "east" if board.side == "east" else "britannia",
            "cities_to_end": board.cities_to_end,
            "east_west_awards": list(board.east_west_awards),
            "permission_cities": {
                board.cities[c].code: [COUNTRIES[k] for k in range(len(COUNTRIES)) if mask >> k & 1]
                for c, mask in board.permission_cities
            },
            "country_scoring": {
                COUNTRIES[country]: {"cities": [board.cities[c].code for c in cities_of], "awards": list(awards)}
                for country, cities_of, awards in board.country_scoring
            },
        }
    return {
        **extra,
        "side": board.side,
        "width": width,
        "height": height,
        "cities": cities,
        "routes": routes,
        "coellen_table": [{"points": p, "colour": PRIVILEGE_COLOURS[c - 1]} for p, c in board.coellen_table],
        "coellen": board.cities[board.coellen].code if board.coellen >= 0 else None,
        "east_west": [board.cities[c].code for c in board.east_west],
        "provinces": [
            {
                "code": p.code, "x": p.xy[0], "y": p.xy[1], "routes": [board.routes[r].code for r in p.routes],
                "guards": [[board.cities[a].code, board.cities[b].code] for a, b in p.guards],
                "neighbours": [board.provinces[q].code for q in p.neighbours],
            }
            for p in board.provinces
        ],
    }


def move_delta(before: GameState, after: GameState) -> dict[str, Any]:
    """What one move changed on the table, in public terms (for clients that show or animate it): the houses,
    offices, extra offices, Coellen table spaces and route markers that changed (``[before, after]`` each, pieces
    as in :func:`public_state`), the score gained per seat, the pawn and the completed-cities count; the desks'
    fields that changed (``players``: ``[seat, key, before, after]``), the turn's (``turn``: ``{key: [before,
    after]}``, null for a key absent on that side) and the rest of the public state's (``public``:
    ``east_west_paid``, ``hidden_markers``, ``over``, ``result``), so that every recent position can be shown whole
    from the newest one.  Only the parts that changed are present.  No hidden information: markers are named only once face up on the board."""
    board = before.board
    out: dict[str, Any] = {}
    # each part is compared whole first (a list comparison): a move changes few of them
    if before.houses != after.houses:
        houses = {
            board.house_names[h]: [_piece(a), _piece(b)]
            for h, (a, b) in enumerate(zip(before.houses, after.houses))
            if a != b
        }
        if houses:
            out["houses"] = houses
    offices: list[list[Any]] = []
    if before.offices != after.offices:
        offices = [
            [c.code, i, _piece(before.offices[c.office_base + i]), _piece(after.offices[c.office_base + i])]
            for c in board.cities
            for i in range(len(c.offices))
            if before.offices[c.office_base + i] != after.offices[c.office_base + i]
        ]
        if offices:
            out["offices"] = offices
    for key, was, now in (("extra_offices", before.extras, after.extras),
                          ("right_offices", before.right_offices, after.right_offices)):
        if was != now:
            changed = [[c.code, [_piece(x) for x in was[c.index]], [_piece(x) for x in now[c.index]]]
                       for c in board.cities if was[c.index] != now[c.index]]
            if changed:
                out[key] = changed
    if before.table != after.table:
        table = [[i, _piece(a), _piece(b)] for i, (a, b) in enumerate(zip(before.table, after.table)) if a != b]
        if table:
            out["coellen_table"] = table
    if before.route_marker != after.route_marker:
        markers = [
            [board.routes[r].code, MARKER_NAMES[a] if a >= 0 else None, MARKER_NAMES[b] if b >= 0 else None]
            for r, (a, b) in enumerate(zip(before.route_marker, after.route_marker))
            if a != b
        ]
        if markers:
            out["route_markers"] = markers
    touched = {row[0] for key in ("offices", "extra_offices", "right_offices") for row in out.get(key, ())}  # with offices
    if touched:
        controllers = []
        for c in board.cities:
            if c.code in touched:
                a, b = before.controller(c.index), after.controller(c.index)
                if a != b:
                    controllers.append([c.code, _owner(a), _owner(b)])
        if controllers:
            out["controllers"] = controllers
    gained = [b - a for a, b in zip(before.score, after.score)]
    if any(gained):
        out["score"] = gained
    if before.pawn != after.pawn:
        out["pawn"] = [
            board.provinces[x].code if x >= 0 else None for x in (before.pawn, after.pawn)
        ]
    if before.completed != after.completed:
        out["completed_cities"] = [before.completed, after.completed]
    # the desks, the turn and the rest of the public state, so that a client can show any recent position whole
    desks: list[list[Any]] = []
    for seat in range(after.players):
        if _desk_key(before, seat) != _desk_key(after, seat):
            desk_was, desk_now = desk_json(before, seat), desk_json(after, seat)
            desks.extend([seat, key, desk_was[key], desk_now[key]] for key in desk_now if desk_was[key] != desk_now[key])
    if desks:
        out["players"] = desks
    turn_before, turn_after = turn_json(before), turn_json(after)
    turn = {
        key: [turn_before.get(key), turn_after.get(key)]
        for key in (*turn_before, *(k for k in turn_after if k not in turn_before))
        if turn_before.get(key) != turn_after.get(key)
    }
    if turn:
        out["turn"] = turn
    rest: dict[str, Any] = {}
    if before.ew_paid != after.ew_paid:
        rest["east_west_paid"] = [list(before.ew_paid), list(after.ew_paid)]
    if len(before.marker_supply) != len(after.marker_supply):
        rest["hidden_markers"] = [len(before.marker_supply), len(after.marker_supply)]
    if before.favour != after.favour or before.tributes != after.tributes or before.blocks != after.blocks:
        modules_was, modules_now = modules_json(before), modules_json(after)
        for name, value in modules_now.items():
            if modules_was.get(name) != value:
                rest[name] = [modules_was.get(name), value]
    if before.is_over != after.is_over:
        rest["over"] = [before.is_over, after.is_over]
        rest["result"] = [result_json(before) if before.is_over else None, result_json(after) if after.is_over else None]
    if rest:
        out["public"] = rest
    return out
