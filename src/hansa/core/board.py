"""Immutable board topology loaded from the package's data files (docs/rules.md §A).

A :class:`Board` holds the cities (printed offices left to right), routes with their houses, taverns, the
Coellen table, the East-West cities, and precomputed route-distance rings used by displacement.  Every
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

from .constants import ABILITY_NAMES, PRIVILEGE_COLOURS

SIDES = ("2-3", "4-5")
_DATA_ABILITY = {"keys": "keys", "actions": "actions", "privilege": "privilege", "book": "book", "bank": "bags"}
_ABILITY_DATA = {v: k for k, v in _DATA_ABILITY.items()}


@dataclass(frozen=True, slots=True)
class OfficeSpec:
    """A printed office: privilege colour rank (1 white .. 4 black), shape and coin."""

    privilege: int
    round: bool
    coin: bool

    @property
    def colour(self) -> str:
        return PRIVILEGE_COLOURS[self.privilege - 1]

    @property
    def shape(self) -> str:
        return "circle" if self.round else "square"


@dataclass(frozen=True, slots=True)
class City:
    """A city: printed offices left to right, optional ability pictogram, routes touching it."""

    index: int
    name: str
    code: str
    offices: tuple[OfficeSpec, ...]
    ability: int | None
    xy: tuple[int, int]
    office_base: int  # index of the first printed office in the state's flat office list
    routes: tuple[int, ...]
    neighbours: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Route:
    """A trade route between two cities with 2-4 houses numbered from ``cities[0]``."""

    index: int
    code: str
    cities: tuple[int, int]
    houses: tuple[int, ...]  # global house indices
    tavern: bool
    tavern_xy: tuple[int, int] | None
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
            routes.append(Route(i, f"{codes[names[a]]}-{codes[names[b]]}", (a, b), houses, bool(r.get("tavern", False)), xy))
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
                OfficeSpec(PRIVILEGE_COLOURS.index(o["privilege"]) + 1, o["shape"] == "circle", bool(o.get("coin")))
                for o in c["offices"]
            )
            ability = None if c.get("ability") is None else ABILITY_NAMES.index(_DATA_ABILITY[c["ability"]])
            touching = tuple(r.index for r in routes if i in r.cities)
            neigh = tuple(sorted({r.cities[0] if r.cities[1] == i else r.cities[1] for r in routes if i in r.cities}))
            cities.append(City(i, c["name"], codes[c["name"]], offices, ability, tuple(c.get("approx_xy", (0, 0))), base, touching, neigh))
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
        #: Coellen and the Coellen-Warburg route (-1 on a custom board without them).
        self.coellen = self.city_index.get("Coellen", -1)
        warburg = self.city_index.get("Warburg", -1)
        self.coellen_route = (
            self._route_between(self.coellen, warburg).index if self.coellen >= 0 and warburg >= 0 else -1
        )
        ew = data.get("east_west") or ()
        #: The two cities of the East-West bonus (Stendal, Arnheim); empty on a custom board without it.
        self.east_west: tuple[int, ...] = tuple(self.city_index[c] for c in ew)

        self.distance: tuple[tuple[int, ...], ...] = self._route_distances()
        self.rings: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(
                tuple(r2 for r2 in range(len(routes)) if self.distance[r][r2] == d)
                for d in range(1, max(self.distance[r]) + 1)
            )
            for r in range(len(routes))
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
        """This side in exactly the schema of one ``sides`` entry of the shared ``boards.json``."""
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


def side_for_players(players: int) -> str:
    """Board side used by a player count (docs/rules.md §1.2)."""
    if players in (2, 3):
        return "2-3"
    if players in (4, 5):
        return "4-5"
    raise ValueError(f"Hansa Teutonica is played by 2 to 5 players, not {players}")


@cache
def load_board(side: str) -> Board:
    """Load (once) and return the board side ``"2-3"`` or ``"4-5"`` from the package data."""
    if side not in SIDES:
        raise ValueError(f"unknown board side {side!r}; sides are {', '.join(SIDES)}")
    pkg = resources.files("hansa.data")
    data = json.loads((pkg / f"board_{side}.json").read_text(encoding="utf-8"))
    codes = json.loads((pkg / "city_codes.json").read_text(encoding="utf-8"))["codes"]
    return Board(side, data, codes)


def board_for_players(players: int) -> Board:
    """The board side used by ``players`` players."""
    return load_board(side_for_players(players))
