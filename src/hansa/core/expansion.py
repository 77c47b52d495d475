"""Rule hooks of the expansion maps, East and Britannia (docs/rules-expansions.md).

Every hook is switched on by a fact of the board (ship spaces, countries, permission cities, green cities,
permanent bonus markers), so the base game never takes these paths.  This module answers the questions the
move generator (:mod:`hansa.core.movegen`) and the rules (:mod:`hansa.core.state`) ask on those maps:

* which houses accept which piece (§E2.1: a ship space holds only a Merchant);
* where a player may act (§E4.2: Wales and Scotland routes need a permission, spent once per turn);
* where a piece may go when it moves (§E4.3-4.4: from a Wales route to Wales or England, and so on);
* whether the pieces in hand can all still be put down (a Move or a relocation must never get stuck);
* the choices of a permanent bonus marker (§E2.2, §E3.5, §E4.7).
"""

from __future__ import annotations

from .board import ENGLAND, PERMANENT_EFFECTS
from .constants import ABILITY_MAX, MERCHANT, PRIVILEGE, TRADER
from .moves import Develop, Done, Exchange, GreenOffice, Move, Shift
from .position import Position

#: Indices of the permanent effects (:data:`hansa.core.board.PERMANENT_EFFECTS`).
MOVE_ANY_2, DEVELOP_PRIVILEGE, GREEN_OFFICE, REUSE_2, PLACE_2 = range(len(PERMANENT_EFFECTS))
#: Origin of a piece that may go to any country (pieces from a Stock or Supply).
ANYWHERE = -1

_DONE = Done()
_DEVELOP = Develop("privilege")


class ExpansionQueries(Position):
    """Queries of the expansion rules, shared by the move generator and the rules."""

    __slots__ = ()

    # ------------------------------------------------------------------------------------------ houses

    def accepts(self, h: int, kind: int) -> bool:
        """May a piece of ``kind`` stand on house ``h`` (a ship space holds only a Merchant, §E2.1)?"""
        return kind == MERCHANT or not self.board.house_ship[h]

    def _may_go(self, h: int, kind: int, origin: int) -> bool:
        """May a piece of ``kind`` coming from a route of country ``origin`` go to the free house ``h``?

        A piece from an England route stays in England; from Wales it goes to Wales or England; from Scotland to
        Scotland or England (§E4.3, §E4.4); :data:`ANYWHERE` goes anywhere."""
        board = self.board
        if kind == TRADER and board.house_ship[h]:
            return False
        if origin == ANYWHERE:
            return True
        country = board.house_country[h]
        return country == origin or country == ENGLAND

    def fits(self, pieces: list[tuple[int, int]], skip_route: int = -1, taken: int = -1, freed: int = -1) -> bool:
        """Can every ``(kind, origin)`` piece still be put on its own free house?

        Free houses of ``skip_route`` do not count, nor house ``taken`` (about to be filled); house ``freed``
        (about to be emptied) does.  Houses differ only by ship space and country, so the check matches pieces
        to those few kinds of houses."""
        if not pieces:
            return True
        board = self.board
        ship = board.house_ship
        country = board.house_country
        route_of = board.house_route
        counts: dict[tuple[bool, int], int] = {}
        for h in self.free:
            if h == taken or route_of[h] == skip_route:
                continue
            key = (ship[h], country[h])
            counts[key] = counts.get(key, 0) + 1
        if freed >= 0 and route_of[freed] != skip_route:
            key = (ship[freed], country[freed])
            counts[key] = counts.get(key, 0) + 1
        return _assign(_ordered(pieces), 0, counts)

    # ------------------------------------------------------------------------------------------ permissions

    def permitted_countries(self, p: int) -> int:
        """Bit set of the countries where ``p`` may Place or Displace now: England, plus each country of a
        permission city ``p`` holds and has not used this turn (§E4.2)."""
        mask = 1 << ENGLAND
        for i, (city, countries) in enumerate(self.board.permission_cities):
            if not self.perm_used >> i & 1 and self._holds(p, i, city):
                mask |= countries
        return mask

    def permission_slot(self, p: int, country: int) -> int:
        """The permission city (index into ``board.permission_cities``) ``p`` spends to act in ``country``: the
        country's own city first, London last (§E4.2 7); -1 when none is available."""
        for i, (city, countries) in enumerate(self.board.permission_cities):
            if countries >> country & 1 and not self.perm_used >> i & 1 and self._holds(p, i, city):
                return i
        return -1

    def _holds(self, p: int, i: int, city: int) -> bool:
        if self.options.permission_timing == "turnStart":
            return self.perm_holders[i] == p
        return self.holder(city) == p

    # ------------------------------------------------------------------------------------------ generation

    def expansion_places(self, p: int) -> list[Move]:
        """Place moves on a map with ship spaces or countries."""
        board = self.board
        ship = board.house_ship
        country = board.house_country
        pt, pm = self._mt.place
        has_t, has_m = self.sup_t[p] > 0, self.sup_m[p] > 0
        mask = self.permitted_countries(p) if board.countries else 1
        out: list[Move] = []
        for h in self.free:
            if not mask >> country[h] & 1:
                continue
            if has_t and not ship[h]:
                out.append(pt[h])
            if has_m:
                out.append(pm[h])
        return out

    def displace_allowed(self, h: int, mask: int, piece: str) -> bool:
        """May a Displace on house ``h`` with ``piece`` be taken (its country permitted; a Merchant on a ship)?"""
        board = self.board
        if not mask >> board.house_country[h] & 1:
            return False
        return piece == "M" or not board.house_ship[h]

    def expansion_drops(self) -> list[Move]:
        """Drop moves of a Move action on a map with ship spaces or countries.

        A free house matters only by its kind (ship space or not, country: ``board.house_kind``), so the piece a
        Drop would put down and whether the rest of the hand still fits are worked out once per kind of house
        and piece, then read for every free house."""
        board = self.board
        kinds = board.house_kind
        pieces = list(zip(self.hand, self.hand_from))
        several = len(pieces) > 1
        counts = self._free_kinds() if several else {}
        out: list[Move] = []
        for kind in (TRADER, MERCHANT):
            if kind not in self.hand:
                continue
            verdict = [False] * 6
            for ship in (False, True):
                if kind == TRADER and ship:
                    continue
                for country in range(3):
                    i = self._piece_for(kind, country)
                    if i < 0:
                        continue
                    key = (ship, country)
                    if several:
                        n = counts.get(key, 0)
                        if not n:
                            continue
                        counts[key] = n - 1
                        verdict[int(ship) * 3 + country] = _assign(_ordered(pieces[:i] + pieces[i + 1 :]), 0, counts)
                        counts[key] = n
                    else:
                        verdict[int(ship) * 3 + country] = True
            if all(verdict):
                out.extend(self.free_moves[2 + kind])
            else:
                drop = self._mt.drop[kind]
                out.extend([drop[h] for h in self.free if verdict[kinds[h]]])
        return out

    def _piece_for(self, kind: int, country: int) -> int:
        """:meth:`drop_piece` for a house of ``country`` (that takes ``kind``)."""
        best = -1
        for i, (k, origin) in enumerate(zip(self.hand, self.hand_from)):
            if k != kind:
                continue
            if origin == country:
                return i
            if best < 0 and (origin == ANYWHERE or country == ENGLAND):
                best = i
        return best

    def _free_kinds(self) -> dict[tuple[bool, int], int]:
        """Free houses counted by kind: (ship space, country)."""
        ship = self.board.house_ship
        country = self.board.house_country
        counts: dict[tuple[bool, int], int] = {}
        for h in self.free:
            key = (ship[h], country[h])
            counts[key] = counts.get(key, 0) + 1
        return counts

    def drop_piece(self, h: int, kind: int) -> int:
        """Which piece of the hand (its index) a Drop of ``kind`` on ``h`` puts down, or -1 if none may go there:
        a piece from the house's own country if one is in hand, else one from elsewhere that may go there."""
        best = -1
        for i, (k, origin) in enumerate(zip(self.hand, self.hand_from)):
            if k != kind or not self._may_go(h, kind, origin):
                continue
            if origin == self.board.house_country[h]:
                return i
            if best < 0:
                best = i
        return best

    def relocation_rings(self) -> tuple[tuple[int, ...], ...]:
        """Distance rings from the displacement route (§E4.3: through eligible routes only under
        ``opt.relocationRings=eligibleOnly``)."""
        board = self.board
        if board.countries and self.options.relocation_rings == "eligibleOnly":
            return board.country_rings[board.routes[self.rl_route].country][self.rl_route]
        return board.rings[self.rl_route]

    def relocation_origin(self, route: int = -1) -> int:
        """Country whose routes (with England's) pieces displaced from ``route`` (default: the relocation's) may go
        to; :data:`ANYWHERE` off Britannia."""
        board = self.board
        return board.routes[self.rl_route if route < 0 else route].country if board.countries else ANYWHERE

    def kind_distance(self, kind: int) -> int:
        """Nearest ring holding a free house a relocated piece of ``kind`` may take (0 if none)."""
        origin = self.relocation_origin()
        routes = self.board.routes
        houses = self.houses
        free = self.route_free
        for d, ring in enumerate(self.relocation_rings(), start=1):
            for r in ring:
                if free[r]:
                    for h in routes[r].houses:
                        if houses[h] < 0 and self._may_go(h, kind, origin):
                            return d
        return 0

    def relocation_pieces(self, extra: tuple[int, ...] = ()) -> list[tuple[int, int]]:
        origin = self.relocation_origin()
        return [(k, origin) for k in self.hand + extra]

    def expansion_relocations(self) -> list[Move]:
        out: list[Move] = []
        rel = self._mt.relocate
        routes = self.board.routes
        houses = self.houses
        origin = self.relocation_origin()
        rings = self.relocation_rings()
        pieces = self.relocation_pieces()
        for kind in sorted(set(self.hand)):
            d = self.kind_distance(kind)
            if not d:
                continue
            rest = list(pieces)
            rest.remove((kind, origin))
            for r in rings[d - 1]:
                if not self.route_free[r]:
                    continue
                for h in routes[r].houses:
                    if houses[h] < 0 and self._may_go(h, kind, origin) and self.fits(rest, self.rl_route, taken=h):
                        out.append(rel[kind][h])
        return out

    def shift_targets(self, h: int, strict: bool) -> list[int]:
        """Free houses the piece on ``h`` may be moved to by Move 3 or *move any 2*: a Trader never onto a ship
        space, and on Britannia only within its own country (§E4.4; ``strict`` is always true there)."""
        board = self.board
        kind = self.houses[h] & 1
        country = board.house_country[h]
        ship = board.house_ship
        house_country = board.house_country
        return [
            t for t in self.free
            if (kind == MERCHANT or not ship[t]) and (not strict or house_country[t] == country)
        ]

    # ------------------------------------------------------------------------------------------ permanent markers

    def permanent_options(self) -> list[Move]:
        """The choices of the permanent bonus marker being resolved (Phase.PERMANENT), ``done`` included."""
        kind = self.pm_kind
        p = self.current
        board = self.board
        out: list[Move] = []
        names = board.house_names
        if kind == MOVE_ANY_2:
            strict = board.countries
            occupied = [h for h, code in enumerate(self.houses) if code >= 0]
            for h in occupied:
                for t in self.shift_targets(h, strict):
                    out.append(Shift(names[h], names[t]))
            if self.pm_left >= 2:
                for i, a in enumerate(occupied):
                    for b in occupied[i + 1 :]:
                        if self.exchange_ok(a, b):
                            out.append(Exchange(names[a], names[b]))
        elif kind == DEVELOP_PRIVILEGE:
            if self.levels[p * 5 + PRIVILEGE] < ABILITY_MAX[PRIVILEGE]:
                out.append(_DEVELOP)
        elif kind == GREEN_OFFICE:
            for c in board.green_cities:
                code = board.cities[c].code
                if self.sup_t[p]:
                    out.append(GreenOffice(code, "T"))
                if self.sup_m[p]:
                    out.append(GreenOffice(code, "M"))
        elif kind == REUSE_2:
            route = board.routes[self.pm_route]
            for h in route.houses:
                if self.houses[h] >= 0:
                    for t in self.shift_targets(h, False):
                        if board.house_route[t] != self.pm_route:
                            out.append(Shift(names[h], names[t]))
        elif kind == PLACE_2:
            out.extend(self.place2_options(p))
        out.append(_DONE)
        return out

    def exchange_ok(self, a: int, b: int) -> bool:
        """*Move any 2*: may the pieces on ``a`` and ``b`` exchange places (each allowed on the other's house)?"""
        board = self.board
        ka, kb = self.houses[a] & 1, self.houses[b] & 1
        if not self.accepts(b, ka) or not self.accepts(a, kb):
            return False
        if board.countries and board.house_country[a] != board.house_country[b]:
            return False
        return True

    def place2_source(self, p: int) -> str:
        """Where *place 2*'s next piece comes from: ``stock`` while it is not empty, then ``supply``, then
        ``board`` (one of the player's own pieces lifted from a house) (§E4.7)."""
        if self.stk_t[p] or self.stk_m[p]:
            return "stock"
        if self.sup_t[p] or self.sup_m[p]:
            return "supply"
        return "board"

    def place2_targets(self) -> list[int]:
        """Free houses of routes outside England (Wales, and Scotland on the large side)."""
        country = self.board.house_country
        return [h for h in self.free if country[h] != ENGLAND]

    def place2_options(self, p: int) -> list[Move]:
        board = self.board
        source = self.place2_source(p)
        targets = self.place2_targets()
        out: list[Move] = []
        if source == "board":
            names = board.house_names
            for h in self.own[p]:
                kind = self.houses[h] & 1
                for t in targets:
                    if self.accepts(t, kind):
                        out.append(Shift(names[h], names[t]))
            return out
        st, sm = (self.stk_t[p], self.stk_m[p]) if source == "stock" else (self.sup_t[p], self.sup_m[p])
        pt, pm = self._mt.place
        for t in targets:
            if st and not board.house_ship[t]:
                out.append(pt[t])
            if sm:
                out.append(pm[t])
        return out


def _ordered(pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Most restricted pieces first (Traders: no ship space; then pieces bound to a country), which lets
    :func:`_assign` find a matching quickly."""
    return sorted(pieces, key=lambda kp: (kp[0] != TRADER, kp[1] == ANYWHERE))


def _assign(pieces: list[tuple[int, int]], i: int, counts: dict[tuple[bool, int], int]) -> bool:
    """Backtracking match of ``pieces[i:]`` to house kinds ``(ship space, country)`` with free counts."""
    if i == len(pieces):
        return True
    kind, origin = pieces[i]
    for key, n in counts.items():
        if not n:
            continue
        ship, country = key
        if kind == TRADER and ship:
            continue
        if origin != ANYWHERE and country != origin and country != ENGLAND:
            continue
        counts[key] = n - 1
        ok = _assign(pieces, i + 1, counts)
        counts[key] = n
        if ok:
            return True
    return False
