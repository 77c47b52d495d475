"""Immutable board topology loaded from the package's data files (docs/rules.md §A).

A :class:`Board` holds the cities (printed offices left to right), routes with their houses, taverns, the
Coellen table, the East-West cities, and precomputed route-distance rings used by displacement.  Five boards are
printed: the base game's two sides (``"2-3"``, ``"4-5"``) and the expansion maps (docs/rules-expansions.md):
``"east"`` (3-5 players), ``"britannia_3"`` (3 players) and ``"britannia_45"`` (4-5 players).  An expansion map
adds data the rules switch on: ship spaces (Merchant-only houses), permanent bonus markers on sea routes, green
cities, two-ability cities, 2-point offices, the special table city, countries, permission cities and the
country scoring, and its own end threshold and East-West awards.  Every
identifier a player sees is a string: cities by three-letter code (``"GRO"``), routes by their two city codes
in board order (``"GRO-EMD"``), houses by route and 1-based position from the route's first city
(``"GRO-EMD:2"``).  Internally everything is numbered for speed.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from .constants import ABILITY_NAMES, CITIES_TO_END, EAST_WEST_BONUS, PRIVILEGE_COLOURS

SIDES = ("2-3", "4-5", "east", "britannia_3", "britannia_45")
#: The maps a game can be played on (the ``map`` option) and the board each player count uses there.
MAPS: dict[str, dict[int, str]] = {
    "base": {2: "2-3", 3: "2-3", 4: "4-5", 5: "4-5"},
    "east": {3: "east", 4: "east", 5: "east"},
    "britannia": {3: "britannia_3", 4: "britannia_45", 5: "britannia_45"},
}
#: Countries of the Britannia map (a route's colour, a city's banner); every base and East route is England's.
COUNTRIES = ("England", "Wales", "Scotland")
ENGLAND, WALES, SCOTLAND = 0, 1, 2
#: Permanent bonus markers of sea routes (docs/rules-expansions.md §E2.2).
PERMANENT_EFFECTS = (
    "move_any_2", "develop_privilege", "office_in_green_city", "reuse_2_from_route", "place_2_in_wales_or_scotland",
)
_DATA_ABILITY = {"keys": "keys", "actions": "actions", "privilege": "privilege", "book": "book", "bank": "bags"}
_ABILITY_DATA = {v: k for k, v in _DATA_ABILITY.items()}
_META_KEYS = ("name", "players", "printed_player_range", "sides_note", "canvas", "counts", "provenance")


@dataclass(frozen=True, slots=True)
class OfficeSpec:
    """A printed office: privilege colour rank (1 white .. 4 black), shape and coin (``points``: 1, or 2 on
    Britannia's 2-point offices)."""

    privilege: int
    round: bool
    coin: bool
    points: int = 0

    @property
    def colour(self) -> str:
        return PRIVILEGE_COLOURS[self.privilege - 1]

    @property
    def shape(self) -> str:
        return "circle" if self.round else "square"


@dataclass(frozen=True, slots=True)
class City:
    """A city: printed offices left to right, optional ability pictogram, routes touching it.

    ``abilities`` lists every ability a claim beside it may develop (two for East's Waren, whose ``ability`` is
    then ``None``); ``green`` marks East's green cities (no printed offices); ``countries`` is a bit set of
    :data:`COUNTRIES` (England only off Britannia)."""

    index: int
    name: str
    code: str
    offices: tuple[OfficeSpec, ...]
    ability: int | None
    xy: tuple[int, int]
    office_base: int  # index of the first printed office in the state's flat office list
    routes: tuple[int, ...]
    neighbours: tuple[int, ...]
    abilities: tuple[int, ...] = ()
    green: bool = False
    countries: int = 1


@dataclass(frozen=True, slots=True)
class Route:
    """A trade route between two cities with 2-4 houses numbered from ``cities[0]``.

    ``ships`` are the positions (0-based) of its ship spaces, ``permanent`` its permanent bonus marker (one of
    :data:`PERMANENT_EFFECTS`) and ``country`` its country (an index of :data:`COUNTRIES`)."""

    index: int
    code: str
    cities: tuple[int, int]
    houses: tuple[int, ...]  # global house indices
    tavern: bool
    tavern_xy: tuple[int, int] | None
    ships: tuple[int, ...] = ()
    permanent: str | None = None
    country: int = 0
    #: Number of houses (``len(houses)``, stored because the engine asks for it constantly).
    spaces: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "spaces", len(self.houses))


@dataclass(frozen=True, slots=True)
class Province:
    """A province of the two-player pawn variant (docs/rules.md §5.B)."""

    index: int
    code: str
    name: str
    routes: tuple[int, ...]
    guards: tuple[tuple[int, int], ...]
    neighbours: tuple[int, ...]
    xy: tuple[int, int]


class Board:
    """One side of the board, with every derived table the engine needs.  Never mutated after loading."""

    def __init__(self, side: str, data: dict[str, Any], codes: dict[str, str] | None = None) -> None:
        """Build a board from data in the schema of one ``sides`` entry of ``boards.json``.

        ``codes`` maps city names to notation codes; by default a city's ``code`` key, else the first three
        letters of its name in capitals.  Custom boards (research, tests) need no Coellen table or East-West
        cities: ``coellen_table`` and ``east_west`` may be empty.
        """
        self.side = side
        if codes is None:
            codes = {c["name"]: c.get("code", c["name"][:3].upper()) for c in data["cities"]}
        if len(set(codes.values())) != len(codes):
            raise ValueError("city codes must be unique")
        names = [c["name"] for c in data["cities"]]
        self.city_index: dict[str, int] = {}
        for i, name in enumerate(names):
            self.city_index[name] = i
            self.city_index[codes[name]] = i
        # Routes first: cities need their route lists.
        route_cities: list[tuple[int, int]] = [
            (self.city_index[r["cities"][0]], self.city_index[r["cities"][1]]) for r in data["routes"]
        ]
        tavern_xy = {
            (self.city_index[t["route"][0]], self.city_index[t["route"][1]]): tuple(t["approx_xy"])
            for t in data.get("taverns", ())
        }
        self.tavern_order: tuple[int, ...] = ()
        routes: list[Route] = []
        house_route: list[int] = []
        house_pos: list[int] = []
        for i, (r, (a, b)) in enumerate(zip(data["routes"], route_cities)):
            start = len(house_route)
            houses = tuple(range(start, start + r["spaces"]))
            house_route.extend([i] * r["spaces"])
            house_pos.extend(range(1, r["spaces"] + 1))
            xy = tavern_xy.get((a, b)) or tavern_xy.get((b, a))
            ships = tuple(sorted(r.get("merchant_only_spaces") or ()))
            if any(not 0 <= k < r["spaces"] for k in ships):
                raise ValueError(f"route {names[a]}-{names[b]}: ship space outside the route")
            permanent = r.get("permanent_bonus")
            if permanent is not None and permanent not in PERMANENT_EFFECTS:
                raise ValueError(f"route {names[a]}-{names[b]}: unknown permanent bonus {permanent!r}")
            routes.append(Route(
                i, f"{codes[names[a]]}-{codes[names[b]]}", (a, b), houses, bool(r.get("tavern", False)), xy,
                ships, permanent, COUNTRIES.index(r.get("country", "England")),
            ))
        self.routes: tuple[Route, ...] = tuple(routes)
        self.house_route: tuple[int, ...] = tuple(house_route)
        self.house_pos: tuple[int, ...] = tuple(house_pos)
        self.tavern_order = tuple(
            self._route_between(self.city_index[t["route"][0]], self.city_index[t["route"][1]]).index
            for t in data.get("taverns", ())
        )

        cities: list[City] = []
        base = 0
        for i, c in enumerate(data["cities"]):
            offices = tuple(
                OfficeSpec(
                    PRIVILEGE_COLOURS.index(o["privilege"]) + 1, o["shape"] == "circle", bool(o.get("coin")),
                    int(o.get("coin_points", 1 if o.get("coin") else 0)),
                )
                for o in c["offices"]
            )
            ability = None if c.get("ability") is None else ABILITY_NAMES.index(_DATA_ABILITY[c["ability"]])
            names_ab = c.get("abilities")
            abilities = (
                tuple(ABILITY_NAMES.index(_DATA_ABILITY[a]) for a in names_ab) if names_ab is not None
                else (() if ability is None else (ability,))
            )
            countries = 0
            for country in c.get("countries") or ("England",):
                countries |= 1 << COUNTRIES.index(country)
            touching = tuple(r.index for r in routes if i in r.cities)
            neigh = tuple(sorted({r.cities[0] if r.cities[1] == i else r.cities[1] for r in routes if i in r.cities}))
            cities.append(City(
                i, c["name"], codes[c["name"]], offices, ability, tuple(c.get("approx_xy", (0, 0))), base, touching,
                neigh, abilities, bool(c.get("green_city")), countries,
            ))
            base += len(offices)
        self.cities: tuple[City, ...] = tuple(cities)
        self.office_count = base
        self.office_city: tuple[int, ...] = tuple(c.index for c in cities for _ in c.offices)

        self.route_index: dict[str, int] = {r.code: r.index for r in routes}
        self.house_index: dict[str, int] = {
            f"{r.code}:{k + 1}": h for r in routes for k, h in enumerate(r.houses)
        }
        self.house_names: tuple[str, ...] = tuple(f"{routes[house_route[h]].code}:{house_pos[h]}" for h in range(len(house_route)))

        self.coellen_table: tuple[tuple[int, int], ...] = tuple(
            (t["points"], PRIVILEGE_COLOURS.index(t["privilege"]) + 1) for t in data.get("coellen_table", ())
        )
        #: The special table's city and its route: Coellen and Coellen-Warburg on the base board, Koenigsberg and
        #: Danzig-Koenigsberg on East, Plymouth and Salisbury-Plymouth on Britannia (-1 on a board without one).
        special = data.get("special_prestige_city")
        special_routes = data.get("special_prestige_routes")
        if special is None and "Coellen" in self.city_index and "Warburg" in self.city_index:
            special, special_routes = "Coellen", [["Coellen", "Warburg"]]
        self.coellen = self.city_index[special] if special is not None else -1
        self.coellen_route = (
            self._route_between(self.city_index[special_routes[0][0]], self.city_index[special_routes[0][1]]).index
            if special is not None and special_routes else -1
        )
        ew = data.get("east_west") or ()
        #: The two cities of the East-West bonus (Stendal, Arnheim); empty on a custom board without it.
        self.east_west: tuple[int, ...] = tuple(self.city_index[c] for c in ew)
        #: Points for the first, second and third player to connect them.
        self.east_west_awards: tuple[int, ...] = tuple(data.get("east_west_awards") or EAST_WEST_BONUS)
        #: Completed cities that end the game (docs/rules.md §4.1 T3; 10 on East, 8 on Britannia).
        self.cities_to_end: int = int(data.get("completed_cities_to_end") or CITIES_TO_END)

        # -- expansion map facts (docs/rules-expansions.md); all empty or false on the base board
        #: Per house: a ship space (holds only a Merchant)?
        self.house_ship: tuple[bool, ...] = tuple(
            k in r.ships for r in routes for k in range(r.spaces)
        )
        #: Per house: the country of its route.
        self.house_country: tuple[int, ...] = tuple(routes[r].country for r in house_route)
        #: Per house: its kind for the expansion rules, ``ship space * 3 + country`` (0-5).
        self.house_kind: tuple[int, ...] = tuple(int(s) * 3 + c for s, c in zip(self.house_ship, self.house_country))
        #: Does the board have ship spaces at all (the rules skip the checks when not)?
        self.ships = any(self.house_ship)
        #: Does the board have countries other than England (Britannia)?
        self.countries = any(r.country for r in routes)
        self.green_cities: tuple[int, ...] = (
            tuple(self.city_index[n] for n in data["green_cities"]) if data.get("green_cities")
            else tuple(c.index for c in cities if c.green)
        )
        if any(not cities[c].green for c in self.green_cities) or len(self.green_cities) != sum(c.green for c in cities):
            raise ValueError("green_cities must list exactly the cities marked green_city")
        #: The routes with a permanent bonus marker (in the data's order).
        listed = [
            self._route_between(self.city_index[e["route"][0]], self.city_index[e["route"][1]]).index
            for e in data.get("permanent_bonus_routes") or ()
        ]
        self.permanent_routes: tuple[int, ...] = tuple(listed) or tuple(r.index for r in routes if r.permanent)
        if sorted(self.permanent_routes) != [r.index for r in routes if r.permanent]:
            raise ValueError("permanent_bonus_routes must list exactly the routes with a permanent_bonus")
        #: Permission cities (Britannia) and the bit set of countries each opens, in the order they are spent:
        #: country-specific ones first, London last (docs/rules-expansions.md §E4.2 7).
        perms = []
        for name, countries_of in (data.get("permission_cities") or {}).items():
            mask = 0
            for country in countries_of:
                mask |= 1 << COUNTRIES.index(country)
            perms.append((self.city_index[name], mask))
        self.permission_cities: tuple[tuple[int, int], ...] = tuple(sorted(perms, key=lambda cm: (bin(cm[1]).count("1"), cm[0])))
        #: Final scoring of Wales and Scotland: ``(country, cities, awards)`` each.
        self.country_scoring: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...] = tuple(
            (COUNTRIES.index(name), tuple(self.city_index[c] for c in spec["cities"]), tuple(spec["awards"]))
            for name, spec in (data.get("country_scoring") or {}).items()
        )
        forbidden = 0
        for name in data.get("bonus_markers_forbidden_countries") or ():
            forbidden |= 1 << COUNTRIES.index(name)
        #: Countries whose routes never take a replacement bonus marker.
        self.marker_forbidden_countries = forbidden
        #: Does any rule of the expansions apply on this board?
        self.expansion = bool(
            self.ships or self.countries or self.green_cities or any(r.permanent for r in routes)
            or any(len(c.abilities) > 1 for c in cities) or side in ("east", "britannia_3", "britannia_45")
        )
        #: Descriptive fields of the map data kept for :meth:`to_json` (name, canvas, provenance ...).
        self.meta: dict[str, Any] = {k: v for k, v in data.items() if k in _META_KEYS}
        #: Spellings printed on the board where they differ from the name (Britannia's "Southamton").
        #: The order in which the data lists a city's countries (the Isle of Man: Scotland, Wales).
        self.country_lists: dict[str, list[str]] = {c["name"]: list(c["countries"]) for c in data["cities"] if "countries" in c}
        self.printed_names: dict[str, str] = {c["name"]: c["printed_name"] for c in data["cities"] if "printed_name" in c}

        self.distance: tuple[tuple[int, ...], ...] = self._route_distances()
        self.rings: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(
                tuple(r2 for r2 in range(len(routes)) if self.distance[r][r2] == d)
                for d in range(1, max(self.distance[r]) + 1)
            )
            for r in range(len(routes))
        )
        #: Britannia, opt.relocationRings=eligibleOnly: ``country_rings[c][r]`` are the distance rings from route
        #: ``r`` over the routes of country ``c`` and England only (empty tuples off Britannia).
        self.country_rings: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
            self._country_rings(c) if self.countries else () for c in range(len(COUNTRIES))
        )
        self.provinces: tuple[Province, ...] = self._load_provinces(data.get("provinces_2p_pawn_variant"), codes)
        self.province_index: dict[str, int] = {p.code: p.index for p in self.provinces}
        self.province_distance: tuple[tuple[int, ...], ...] = self._province_distances()
        #: Pawn variant: borders the pawn must cross from province ``p`` to stand beside route ``r``
        #: (``pawn_route_distance[p][r]``; 99 for a route beside no province).
        self.pawn_route_distance: tuple[tuple[int, ...], ...] = self._pawn_route_distances()

    # ------------------------------------------------------------------ derived tables

    def _route_between(self, a: int, b: int) -> Route:
        for r in self.routes:
            if r.cities == (a, b) or r.cities == (b, a):
                return r
        raise KeyError((a, b))

    def _route_distances(self) -> tuple[tuple[int, ...], ...]:
        n = len(self.routes)
        adjacent = [
            [r2.index for r2 in self.routes if r2.index != r.index and set(r.cities) & set(r2.cities)]
            for r in self.routes
        ]
        table = []
        for start in range(n):
            dist = [-1] * n
            dist[start] = 0
            queue = deque([start])
            while queue:
                r = queue.popleft()
                for r2 in adjacent[r]:
                    if dist[r2] < 0:
                        dist[r2] = dist[r] + 1
                        queue.append(r2)
            table.append(tuple(dist))
        return tuple(table)

    def _country_rings(self, country: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """Distance rings from every route through the routes of ``country`` and England only."""
        ok = [r.country in (ENGLAND, country) for r in self.routes]
        out = []
        for start in self.routes:
            dist = [-1] * len(self.routes)
            dist[start.index] = 0
            queue = deque([start.index])
            while queue:
                r = queue.popleft()
                for r2 in self.routes:
                    if dist[r2.index] < 0 and ok[r2.index] and set(self.routes[r].cities) & set(r2.cities):
                        dist[r2.index] = dist[r] + 1
                        queue.append(r2.index)
            top = max(dist)
            out.append(tuple(tuple(r for r in range(len(dist)) if dist[r] == d) for d in range(1, top + 1)))
        return tuple(out)

    def _load_provinces(self, data: dict[str, Any] | None, codes: dict[str, str]) -> tuple[Province, ...]:
        if not data:
            return ()
        ids = [p["id"] for p in data["provinces"]]
        out = []
        for i, p in enumerate(data["provinces"]):
            routes = tuple(self._route_between(self.city_index[a], self.city_index[b]).index for a, b in p["bordering_routes"])
            guards = tuple((self.city_index[a], self.city_index[b]) for a, b in p["bordering_guards"])
            neigh = tuple(ids.index(q) for q in p["neighbours"])
            out.append(Province(i, p["id"], p["name"], routes, guards, neigh, tuple(p["approx_xy"])))
        return tuple(out)

    def _pawn_route_distances(self) -> tuple[tuple[int, ...], ...]:
        beside: list[list[int]] = [[] for _ in self.routes]
        for province in self.provinces:
            for r in province.routes:
                beside[r].append(province.index)
        return tuple(
            tuple(min((self.province_distance[start][q] for q in beside[r]), default=99) for r in range(len(self.routes)))
            for start in range(len(self.provinces))
        )

    def _province_distances(self) -> tuple[tuple[int, ...], ...]:
        table = []
        for start in range(len(self.provinces)):
            dist = [-1] * len(self.provinces)
            dist[start] = 0
            queue = deque([start])
            while queue:
                p = queue.popleft()
                for q in self.provinces[p].neighbours:
                    if dist[q] < 0:
                        dist[q] = dist[p] + 1
                        queue.append(q)
            table.append(tuple(dist))
        return tuple(table)

    # ------------------------------------------------------------------ lookups

    @property
    def house_count(self) -> int:
        return len(self.house_route)

    def city(self, key: str | int) -> City:
        """A city by name, code or index."""
        return self.cities[key if isinstance(key, int) else self.city_index[key]]

    def route(self, key: str | int) -> Route:
        """A route by code (either direction) or index."""
        if isinstance(key, int):
            return self.routes[key]
        if key in self.route_index:
            return self.routes[self.route_index[key]]
        a, _, b = key.partition("-")
        return self.routes[self.route_index[f"{b}-{a}"]]

    def route_between(self, a: str, b: str) -> Route:
        """The route joining two cities given by name or code."""
        return self._route_between(self.city_index[a], self.city_index[b])

    def house(self, route: str, position: int) -> int:
        """Global house index of the ``position``-th house (1-based, from the route's first city)."""
        return self.house_index[f"{self.route(route).code}:{position}"]

    def office_index(self, city: int, position: int) -> int:
        """Index into the state's flat printed-office list of the ``position``-th (0-based) office of ``city``."""
        return self.cities[city].office_base + position

    # ------------------------------------------------------------------ export

    def to_json(self) -> dict[str, Any]:
        """This side in exactly the schema of one ``sides`` entry of ``boards.json``; an expansion map in the
        schema of its entry in the expansions' ``maps.json`` (base schema plus the expansion fields)."""
        if not self.expansion:
            return self._base_json()
        out = self._base_json()
        east = not self.countries
        for c, spec in zip(self.cities, out["cities"]):
            for o, ospec in zip(c.offices, spec["offices"]):
                ospec["coin_points"] = o.points
            spec["ability"] = None if c.ability is None else _ABILITY_DATA[ABILITY_NAMES[c.ability]]
            spec["abilities"] = [_ABILITY_DATA[ABILITY_NAMES[a]] for a in c.abilities]
            if east:
                spec["green_city"] = c.green
            else:
                names = [COUNTRIES[k] for k in range(len(COUNTRIES)) if c.countries >> k & 1]
                listed = self.country_lists.get(c.name, names)
                if sorted(listed) != sorted(names):
                    raise AssertionError(c.name)
                spec["countries"] = listed
                spec["country"] = "+".join(names)
            if c.name in self.printed_names:
                spec["printed_name"] = self.printed_names[c.name]
        for r, spec in zip(self.routes, out["routes"]):
            spec["maritime"] = bool(r.ships)
            spec["merchant_only_spaces"] = list(r.ships)
            spec["permanent_bonus"] = r.permanent
            if not east:
                spec["country"] = COUNTRIES[r.country]
        name = self.cities[self.coellen].name
        out["special_prestige_city"] = name
        route = self.routes[self.coellen_route]
        out["special_prestige_routes"] = [[self.cities[route.cities[0]].name, self.cities[route.cities[1]].name]]
        out["east_west_awards"] = list(self.east_west_awards)
        out["completed_cities_to_end"] = self.cities_to_end
        out["permanent_bonus_routes"] = [
            {"route": [self.cities[self.routes[r].cities[0]].name, self.cities[self.routes[r].cities[1]].name],
             "type": self.routes[r].permanent}
            for r in self.permanent_routes
        ]
        if east:
            out["green_cities"] = [self.cities[c].name for c in self.green_cities]
        else:
            out["permission_cities"] = {
                self.cities[c].name: [COUNTRIES[k] for k in range(len(COUNTRIES)) if mask >> k & 1]
                for c, mask in self.permission_cities
            }
            out["country_scoring"] = {
                COUNTRIES[country]: {"awards": list(awards), "cities": [self.cities[c].name for c in cities]}
                for country, cities, awards in self.country_scoring
            }
            out["bonus_markers_forbidden_countries"] = [
                COUNTRIES[k] for k in range(len(COUNTRIES)) if self.marker_forbidden_countries >> k & 1
            ]
        out.update(self.meta)
        return out

    def _base_json(self) -> dict[str, Any]:
        return {
            "cities": [
                {
                    "name": c.name,
                    "offices": [{"privilege": o.colour, "shape": o.shape, "coin": o.coin} for o in c.offices],
                    "ability": None if c.ability is None else _ABILITY_DATA[ABILITY_NAMES[c.ability]],
                    "approx_xy": list(c.xy),
                }
                for c in self.cities
            ],
            "routes": [
                {"cities": [self.cities[r.cities[0]].name, self.cities[r.cities[1]].name], "spaces": r.spaces, "tavern": r.tavern}
                for r in self.routes
            ],
            "taverns": [
                {
                    "route": [self.cities[self.routes[t].cities[0]].name, self.cities[self.routes[t].cities[1]].name],
                    "approx_xy": list(self.routes[t].tavern_xy or ()),
                }
                for t in self.tavern_order
            ],
            "coellen_table": [{"points": p, "privilege": PRIVILEGE_COLOURS[c - 1]} for p, c in self.coellen_table],
            "east_west": [self.cities[c].name for c in self.east_west],
        }

    def __repr__(self) -> str:
        return f"<Board side {self.side}: {len(self.cities)} cities, {len(self.routes)} routes, {self.house_count} houses>"


def side_for_players(players: int, map: str = "base") -> str:
    """Board side used by a player count on a map (docs/rules.md §1.2, docs/rules-expansions.md §E1.1).

    Raises ``ValueError`` for an unknown map or a player count the map is not played with (the expansion maps
    are for 3 to 5 players)."""
    sides = MAPS.get(map)
    if sides is None:
        raise ValueError(f"unknown map {map!r}; maps are {', '.join(MAPS)}")
    side = sides.get(players) if isinstance(players, int) and not isinstance(players, bool) else None
    if side is None:
        if map == "base":
            raise ValueError(f"Hansa Teutonica is played by 2 to 5 players, not {players}")
        raise ValueError(
            f"the {map} map is played by 3 to 5 players, not {players} (no rules exist for two players there)"
        )
    return side


@cache
def load_board(side: str) -> Board:
    """Load (once) and return a printed board from the package data: a base side (``"2-3"``, ``"4-5"``) or an
    expansion map (``"east"``, ``"britannia_3"``, ``"britannia_45"``)."""
    if side not in SIDES:
        raise ValueError(f"unknown board side {side!r}; sides are {', '.join(SIDES)}")
    pkg = resources.files("hansa.data")
    if side in ("2-3", "4-5"):
        data = json.loads((pkg / f"board_{side}.json").read_text(encoding="utf-8"))
        codes = json.loads((pkg / "city_codes.json").read_text(encoding="utf-8"))["codes"]
        return Board(side, data, codes)
    pack = json.loads((pkg / f"map_{side}.json").read_text(encoding="utf-8"))
    return Board(side, pack["map"], pack["codes"])


def board_for_players(players: int, map: str = "base") -> Board:
    """The board side used by ``players`` players on ``map`` (``base``, ``east`` or ``britannia``)."""
    return load_board(side_for_players(players, map))
