"""Legal-move generation: every decision the deciding seat may take now (docs/rules.md §2-§5)."""

from __future__ import annotations

from .constants import (
    ABILITY_MAX,
    ABILITY_NAMES,
    BAGS,
    BLOCK,
    BOOK,
    EXCHANGE,
    EXTRA_OFFICE,
    F_FREE,
    IMPROVE,
    MARKER_NAMES,
    MERCHANT,
    NEUTRAL,
    PLUS3,
    PLUS4,
    PRIVILEGE_COLOURS,
    REMOVE3,
    SWAP_OFFICES,
    TILE_CODES,
    TILE_DISPLAY,
    TRADER,
    TRIBUTE,
)
from .expansion import ExpansionQueries
from .moves import (
    Claim,
    Done,
    EndTurn,
    Improve,
    Move,
    NeutralOffice,
    Place,
    PlaceMarker,
    Share,
    Shift,
    Swap,
    TakeExtra,
    TakeTribute,
    UseBlock,
    UseExchange,
    UseMarker,
    UseTribute,
    tile_move,
)
from .movetable import INCOME
from .position import _BAG_VALUES, _BOOK_VALUES, Phase, _priv

_END_TURN = EndTurn()
_DONE = Done()
_USE = {PLUS3: UseMarker("+3"), PLUS4: UseMarker("+4"), REMOVE3: UseMarker("remove3")}
_TAKE = (TakeExtra("T"), TakeExtra("M"))
_SHARE = (Share("T"), Share("M"))


class MoveGenerator(ExpansionQueries):
    """Adds :meth:`legal_moves` (and the queries the rules share with it) to :class:`Position`."""

    __slots__ = ()

    # ------------------------------------------------------------------------------------------ legal moves

    def legal_moves(self) -> list[Move]:
        """Every move the deciding player may make now (empty once the game is over)."""
        phase = self.phase
        if phase == Phase.ACTIONS:
            return self._gen_actions()
        if phase == Phase.RELOCATE:
            return self._gen_relocate()
        if phase == Phase.MOVE:
            return self._gen_move()
        if phase == Phase.REMOVE:
            return self._gen_remove()
        if phase == Phase.MARKERS:
            return [PlaceMarker(self.board.routes[r].code) for r in self._marker_routes()]
        if phase == Phase.OVER:
            return []
        if phase == Phase.PERMANENT:
            return self.permanent_options()
        if phase == Phase.SHARE:
            return self._share_options()
        if phase == Phase.TRIBUTE:
            return self.tribute_options(self.tribute_due[0])
        return self._gen_two_player()

    def can_claim(self) -> bool:
        """True when the deciding player may claim a route now, i.e. :meth:`legal_moves` holds a Claim (cheaper
        than scanning the list)."""
        return (
            self.phase == Phase.ACTIONS
            and self.actions_used < self.allowance()
            and bool(self._claimable_routes(self.current))
        )

    def _gen_two_player(self) -> list[Move]:
        phase = self.phase
        if phase == Phase.PAWN_SETUP:
            return list(self._mt.pawn[False])
        if phase == Phase.PAWN_END:
            return self._pawn_options(paid=False) + [_END_TURN]
        if phase == Phase.NEUTRAL_OFFICE:
            return [NeutralOffice(self.board.cities[c].code) for c in self._neutral_office_cities()]
        return []

    def _neutral_office_cities(self) -> list[int]:
        """Cities of the pending neutral claim that have a free printed office."""
        if not self.neutral_pending:
            return []
        route = self.board.routes[self.neutral_pending[0]]
        return [c for c in route.cities if self.city_filled[c] < len(self.board.cities[c].offices)]

    def _gen_actions(self) -> list[Move]:
        p = self.current
        mt = self._mt
        out: list[Move] = []
        houses = self.houses
        allowed = self._allowed
        if self.actions_used < self.allowance():
            # Income
            st, sm = self.stk_t[p], self.stk_m[p]
            if st or sm:
                out.extend(self._income_options(p))
            # Place (the Place moves of the free houses are kept up to date move by move)
            sp_t, sp_m = self.sup_t[p], self.sup_m[p]
            expansion = self.board.expansion
            if (sp_t or sp_m) and self.blocks:
                out.extend(self._blocked_places(p))
            elif sp_t or sp_m:
                if expansion:
                    out.extend(self.expansion_places(p))
                elif allowed is None:
                    if sp_t:
                        out.extend(self.free_moves[0])
                    if sp_m:
                        out.extend(self.free_moves[1])
                else:
                    house_route = self.board.house_route
                    free = [h for h in self.free if house_route[h] in allowed]
                    pt, pm = mt.place
                    if sp_t:
                        out.extend([pt[h] for h in free])
                    if sp_m:
                        out.extend([pm[h] for h in free])
            # Displace (the options per house and supply are precomputed): other owners' pieces, seat by seat
            if sp_t + sp_m >= 2:
                base = (min(sp_t, 3) * 4 + min(sp_m, 3)) * 2
                table = mt.displace_options
                house_route = self.board.house_route
                mask = self.permitted_countries(p) if expansion else 0
                for q, owned in enumerate(self.own):
                    if q == p:
                        continue
                    for h in owned:
                        if allowed is not None and house_route[h] not in allowed:
                            continue
                        if expansion:
                            out.extend([m for m in table[h][base + (houses[h] & 1)] if self.displace_allowed(h, mask, m.piece)])
                            continue
                        out.extend(table[h][base + (houses[h] & 1)])
            # Move (lift own pieces)
            lift = mt.lift
            out.extend([lift[h] for h in self.own[p]])
            # Claim
            for r in self._claimable_routes(p):
                out.extend(self._claim_options(p, r))
            # Paid pawn move (two players)
            if self.pawn >= 0:
                out.extend(self._pawn_options(paid=True))
        if self.pawn >= 0 and self.actions_used == 0 and self._free_pawn_move_open(before=True):
            out.extend(self._pawn_options(paid=False))
        if self.favour and self.actions_used == 0:
            out.extend(self._tile_options(p))
        out.extend(self._marker_options(p))
        out.append(_END_TURN)
        return out

    # -- Big Box modules (docs/rules.md §8)

    def _blocked_places(self, p: int) -> list[Move]:
        """Place moves when Block markers stand beside routes: on such a route each Block costs one more piece from
        the supply, named in the move's ``pay`` (§8.8)."""
        out: list[Move] = []
        sp_t, sp_m = self.sup_t[p], self.sup_m[p]
        board = self.board
        if board.expansion:
            plain: list[Move] = self.expansion_places(p)
        else:
            allowed = self._allowed
            route_of = board.house_route
            pt, pm = self._mt.place
            free = [h for h in self.free if allowed is None or route_of[h] in allowed]
            plain = [pt[h] for h in free] if sp_t else []
            if sp_m:
                plain.extend([pm[h] for h in free])
        for m in plain:
            assert isinstance(m, Place)
            k = self.block_count(board.house_route[board.house_index[m.house]])
            if not k:
                out.append(m)
                continue
            rt, rm = sp_t - (m.piece == "T"), sp_m - (m.piece == "M")
            for pay_m in range(k + 1):
                if pay_m <= rm and k - pay_m <= rt:
                    out.append(Place(m.house, m.piece, "T" * (k - pay_m) + "M" * pay_m))
        return out

    def block_count(self, r: int) -> int:
        """Block markers beside route ``r`` (§8.8)."""
        return sum(1 for route, _ in self.blocks if route == r)

    def _tile_options(self, p: int) -> list[Move]:
        """Taking an Emperor's Favour tile at the start of the turn with two unused markers (§8.3)."""
        held = self.markers[p]
        if len(held) < 2 or self.fav_flags or TILE_DISPLAY not in self.favour:
            return []
        kinds = sorted(set(held))
        pairs = [(a, b) for i, a in enumerate(kinds) for b in kinds[i:] if a != b or held.count(a) >= 2]
        out: list[Move] = []
        for t, where in enumerate(self.favour):
            if where == TILE_DISPLAY:
                out.extend(tile_move(TILE_CODES[t], MARKER_NAMES[a], MARKER_NAMES[b]) for a, b in pairs)
        return out

    def _share_options(self) -> list[Move]:
        """F-INC: the tile's owner takes a Trader or a Merchant from the stock, or declines (§8.4)."""
        q = self.decider
        out: list[Move] = []
        if self.stk_t[q]:
            out.append(_SHARE[TRADER])
        if self.stk_m[q]:
            out.append(_SHARE[MERCHANT])
        out.append(_DONE)
        return out

    def tribute_options(self, q: int) -> list[Move]:
        """The mixes of two pieces (or what the stock has) a Tribute pays seat ``q`` (§8.7)."""
        st, sm = self.stk_t[q], self.stk_m[q]
        n = min(2, st + sm)
        return [TakeTribute(n - m, m) for m in range(max(0, n - st), min(sm, n) + 1)]

    def _exchange_options(self, p: int) -> list[Move]:
        """Exchange: take one used marker of another player (§8.6), but not a used Exchange (it would change
        nothing and could be repeated without end: §8.10)."""
        out: list[Move] = []
        for q in range(self.players):
            if q != p:
                out.extend(UseExchange(q, MARKER_NAMES[k]) for k in sorted(set(self.used_markers[q])) if k != EXCHANGE)
        return out

    def _income_options(self, p: int) -> list[Move]:
        st, sm = self.stk_t[p], self.stk_m[p]
        n = min(_BAG_VALUES[self.levels[p * 5 + BAGS]], st + sm)
        if self.options.income_up_to:
            return [INCOME[total - m][m] for total in range(1, n + 1) for m in range(max(0, total - st), min(sm, total) + 1)]
        return [INCOME[n - m][m] for m in range(max(0, n - st), min(sm, n) + 1)]

    def _claimable_routes(self, p: int) -> list[int]:
        out = []
        houses = self.houses
        lo = p * 2
        allowed = self._allowed
        for r in self.full:
            if allowed is not None and r not in allowed:
                continue
            for h in self.board.routes[r].houses:
                code = houses[h]
                if code != lo and code != lo + 1:
                    break
            else:
                out.append(r)
        return out

    def _route_kinds(self, r: int) -> tuple[bool, bool]:
        """(has a Trader, has a Merchant) among the pieces on route ``r``."""
        has_t = has_m = False
        for h in self.board.routes[r].houses:
            if self.houses[h] & 1:
                has_m = True
            else:
                has_t = True
        return has_t, has_m

    def _claim_options(self, p: int, r: int) -> list[Move]:
        board = self.board
        route = board.routes[r]
        has_t, has_m = self._route_kinds(r)
        priv = _priv(self, p)
        out: list[Move] = [Claim(route.code)]
        has_extra = EXTRA_OFFICE in self.markers[p]
        for c in route.cities:
            city = board.cities[c]
            filled = self.city_filled[c]
            if filled < len(city.offices):
                o = city.offices[filled]
                if o.privilege <= priv and (has_m if o.round else has_t):
                    out.append(Claim(route.code, "office", city.code))
            if has_extra and (filled or self.extras[c] or city.green):
                if has_t:
                    out.append(Claim(route.code, "extra", city.code, "T"))
                if has_m:
                    out.append(Claim(route.code, "extra", city.code, "M"))
            if city.ability is not None:
                if self.levels[p * 5 + city.ability] < ABILITY_MAX[city.ability]:
                    out.append(Claim(route.code, "ability", city.code))
            elif city.abilities:  # East's Waren: the claimer names the track
                for a in city.abilities:
                    if self.levels[p * 5 + a] < ABILITY_MAX[a]:
                        out.append(Claim(route.code, "ability", city.code, None, ABILITY_NAMES[a]))
        if r == board.coellen_route and has_m:
            for i, (_, colour) in enumerate(board.coellen_table):
                if self.table[i] < 0 and colour <= priv:
                    out.append(Claim(route.code, "table", PRIVILEGE_COLOURS[colour - 1]))
        return out

    def _marker_options(self, p: int) -> list[Move]:
        held = self.markers[p]
        if not held:
            return []
        out: list[Move] = []
        for kind in sorted(set(held)):
            if kind in (PLUS3, PLUS4):
                out.append(_USE[kind])
            elif kind == IMPROVE:
                out.extend(Improve(ABILITY_NAMES[a]) for a in range(5) if self.levels[p * 5 + a] < ABILITY_MAX[a])
            elif kind == REMOVE3:
                if self._removable_any(p):
                    out.append(_USE[REMOVE3])
            elif kind == SWAP_OFFICES:
                out.extend(self._swap_options(p))
            elif kind == EXCHANGE:
                out.extend(self._exchange_options(p))
            elif kind == TRIBUTE or kind == BLOCK:
                if self.sup_t[p]:
                    use = UseTribute if kind == TRIBUTE else UseBlock
                    out.extend(use(route.code) for route in self.board.routes)
        return out

    def _has_usable_marker(self, p: int) -> bool:
        for kind in set(self.markers[p]):
            if kind in (PLUS3, PLUS4):
                return True
            if kind == IMPROVE and any(self.levels[p * 5 + a] < ABILITY_MAX[a] for a in range(5)):
                return True
            if kind == REMOVE3 and self._removable_any(p):
                return True
            if kind == SWAP_OFFICES and self._swap_options(p, first=True):
                return True
            if kind == EXCHANGE and any(k != EXCHANGE for q in range(self.players) if q != p for k in self.used_markers[q]):
                return True
            if (kind == TRIBUTE or kind == BLOCK) and self.sup_t[p]:
                return True
        return False

    def _swap_options(self, p: int, first: bool = False) -> list[Move]:
        """The legal Swap-offices moves (only the first one found when ``first``)."""
        out: list[Move] = []
        need_own = self.options.swap_needs_own
        offices = self.offices
        swap = self._mt.swap
        filled = self.city_filled
        for city in self.board.cities:
            n = filled[city.index]
            if n < 2:  # printed offices fill left to right: two neighbours need two filled offices
                continue
            base = city.office_base
            for i in range(n - 1):
                a, b = offices[base + i], offices[base + i + 1]
                if need_own and a >> 1 != p and b >> 1 != p:
                    continue
                out.append(swap[city.index][i])
                if first:
                    return out
        for c in self.board.green_cities:
            for i in self.green_swaps(c):
                row = self.city_offices(c)
                if need_own and row[i] >> 1 != p and row[i + 1] >> 1 != p:
                    continue
                out.append(Swap(self.board.cities[c].code, i + 1))
                if first:
                    return out
        return out

    def green_swaps(self, c: int) -> list[int]:
        """Green city ``c``: positions ``i`` (0-based, left to right) whose offices ``i`` and ``i + 1`` may be swapped
        under ``opt.greenCitySwap`` (docs/rules-expansions.md §E3.3 7)."""
        rule = self.options.green_city_swap
        left = len(self.extras[c])
        total = left + len(self.right_offices[c])
        if rule == "none" or total < 2:
            return []
        if rule == "all":
            return list(range(total - 1))
        return list(range(left, total - 1))  # permanentOnly: two neighbouring permanent-marker offices

    def _removable(self, p: int, code: int) -> bool:
        if code < 0:
            return False
        if self.options.remove3_mode == "move" or self.options.remove3_targets == "opponents":
            return code >> 1 != p
        return True

    def _removable_any(self, p: int) -> bool:
        if self.options.remove3_mode == "move" and self.free_total == 0:
            return False
        if self.options.remove3_mode == "move" and self.board.expansion:
            strict = self.board.countries
            return any(self._removable(p, code) and self.shift_targets(h, strict) for h, code in enumerate(self.houses))
        return any(self._removable(p, code) for code in self.houses)

    def _gen_move(self) -> list[Move]:
        p = self.current
        out: list[Move] = []
        if not self.dropping and self.lifted < _BOOK_VALUES[self.levels[p * 5 + BOOK]]:
            lift = self._mt.lift
            out.extend([lift[h] for h in self.own[p]])
        hand = self.hand
        if self.board.expansion:
            out.extend(self.expansion_drops())
            return out
        if TRADER in hand:
            out.extend(self.free_moves[2])
        if MERCHANT in hand:
            out.extend(self.free_moves[3])
        return out

    def _relocation_distance(self) -> int:
        """Smallest ring distance from the displacement route holding a free house (0 if none)."""
        free = self.route_free
        for d, ring in enumerate(self.board.rings[self.rl_route], start=1):
            for r in ring:
                if free[r]:
                    return d
        return 0

    def _gen_relocate(self) -> list[Move]:
        out: list[Move] = []
        board = self.board
        if self.hand and self.free_relocation():
            out.extend(self._free_relocations())
        elif self.hand and board.expansion:
            out.extend(self.expansion_relocations())
        elif self.hand:
            d = self._relocation_distance()
            if d:
                rel = self._mt.relocate
                kinds = sorted(set(self.hand))
                houses = self.houses
                for r in board.rings[self.rl_route][d - 1]:
                    if self.route_free[r]:
                        for h in board.routes[r].houses:
                            if houses[h] < 0:
                                for k in kinds:
                                    out.append(rel[k][h])
        out.extend(self._extra_options())
        if not self.hand:
            out.append(_DONE)
        return out

    def free_relocation(self) -> bool:
        """Does the relocating owner hold F-FREE (relocation to any free house off the route, §8.4)?"""
        favour = self.favour
        return bool(favour) and favour[F_FREE] == self.rl_owner

    def _free_relocations(self) -> list[Move]:
        """F-FREE: every free house off the displacement's route the piece may take (ship spaces and Britannia's
        countries still apply) that leaves room for the rest of the hand."""
        out: list[Move] = []
        rel = self._mt.relocate
        route_of = self.board.house_route
        origin = self.relocation_origin()
        pieces = self.relocation_pieces()
        expansion = self.board.expansion
        for kind in sorted(set(self.hand)):
            rest = list(pieces)
            rest.remove((kind, origin))
            for h in self.free:
                if route_of[h] == self.rl_route:
                    continue
                if expansion and not (self._may_go(h, kind, origin) and self.fits(rest, self.rl_route, taken=h)):
                    continue
                out.append(rel[kind][h])
        return out

    def _extra_options(self) -> list[Move]:
        """Ways the displaced owner may take one more extra piece into hand (docs/rules.md §2.4, step 3.2)."""
        if self.rl_extras <= 0:
            return []
        b = self.rl_owner
        free_out = self.free_total - self.route_free[self.rl_route]
        need = len(self.hand) + 1
        if b == NEUTRAL:  # optional extra neutral (opt.neutralExtraMandatory = false) comes from the pool
            return [_TAKE[TRADER]] if free_out >= need else []
        expansion = self.board.expansion
        for st, sm in ((self.stk_t[b], self.stk_m[b]), (self.sup_t[b], self.sup_m[b])):
            if st or sm:
                if expansion:
                    return [_TAKE[k] for k, n in ((0, st), (1, sm)) if n and self.extra_fits(k)]
                if free_out < need:
                    return []
                return [_TAKE[k] for k, n in ((0, st), (1, sm)) if n]
        out: list[Move] = []
        lo = b * 2
        house_route = self.board.house_route
        lift = self._mt.lift_extra
        for h, code in enumerate(self.houses):
            if code == lo or code == lo + 1:
                if expansion:
                    if self.extra_fits(code & 1, h):
                        out.append(lift[h])
                elif house_route[h] != self.rl_route or free_out >= need:
                    out.append(lift[h])
        return out

    def extra_fits(self, kind: int, lifted: int = -1) -> bool:
        """Expansion maps: can the hand plus one more extra piece of ``kind`` (lifted from house ``lifted``, which
        then is free) all be relocated?"""
        return self.fits(self.relocation_pieces((kind,)), self.rl_route, freed=lifted)

    def _gen_remove(self) -> list[Move]:
        p = self.current
        out: list[Move] = []
        if self.rm_left > 0:
            if self.options.remove3_mode == "move" and self.board.expansion:
                names = self.board.house_names
                strict = self.board.countries
                for h, code in enumerate(self.houses):
                    if self._removable(p, code):
                        out.extend(Shift(names[h], names[t]) for t in self.shift_targets(h, strict))
            elif self.options.remove3_mode == "move":
                free = [self.board.house_names[h] for h, code in enumerate(self.houses) if code < 0]
                for h, code in enumerate(self.houses):
                    if self._removable(p, code):
                        src = self.board.house_names[h]
                        out.extend(Shift(src, dst) for dst in free)
            else:
                rem = self._mt.remove
                out.extend(rem[h] for h, code in enumerate(self.houses) if self._removable(p, code))
        out.append(_DONE)
        return out

    def _marker_routes(self) -> list[int]:
        """Routes that may take a replacement marker now (docs/rules.md §3.4)."""
        ok = self._marker_route_ok
        return [r for r in range(len(self.board.routes)) if ok(r)]

    def _any_marker_route(self) -> bool:
        """Is there at least one route that may take a replacement marker now?"""
        ok = self._marker_route_ok
        return any(ok(r) for r in range(len(self.board.routes)))

    def _marker_route_ok(self, r: int) -> bool:
        """May route ``r`` take a replacement marker now: no marker, empty, and a city beside it with an office
        (or, under the ``freeOffice`` option, a free office) (docs/rules.md §3.4)?"""
        route = self.board.routes[r]
        if self.route_marker[r] >= 0 or self.route_free[r] != route.spaces:
            return False
        filled = self.city_filled
        if self.board.expansion:
            if route.permanent or self.board.marker_forbidden_countries >> route.country & 1:
                return False  # docs/rules-expansions.md §E2.2, §E4.6
        if self.options.marker_city_rule == "freeOffice":
            cities = self.board.cities
            for c in route.cities:
                if filled[c] < len(cities[c].offices):
                    return True
                if cities[c].green and self.options.green_city_free_for_markers and not (
                    self.extras[c] or self.right_offices[c]
                ):
                    return True
            return False
        extras = self.extras
        return any(filled[c] or extras[c] or self.right_offices[c] for c in route.cities)

    def _pawn_options(self, paid: bool) -> list[Move]:
        """Pawn moves: paid to any other province, free across 1 or 2 borders (docs/rules.md §5.B)."""
        moves = self._mt.pawn[paid]
        if paid:
            return [m for i, m in enumerate(moves) if i != self.pawn]
        dist = self.board.province_distance[self.pawn]
        return [m for i, m in enumerate(moves) if 1 <= dist[i] <= 2]

    def _free_pawn_move_open(self, before: bool) -> bool:
        """May the active player still make a free pawn move (before the first / after the last action)?"""
        used = self.pawn_free_used
        if self.options.pawn_free_moves == "once":
            return used == 0
        return not used & (1 if before else 2)
