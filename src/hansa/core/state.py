"""The game state and the rules: setup, legal moves, and applying moves (docs/rules.md §1-§4).

:class:`GameState` is a position plus whose decision it is.  At every point exactly one player must decide
(:attr:`GameState.decider`): the active player, or the owner of a displaced piece while relocating it.
:meth:`GameState.legal_moves` lists every atomic decision that player may take, and :meth:`GameState.play`
validates a move against the rules and applies it, or raises an :class:`~hansa.core.errors.IllegalMoveError`
naming the rule and leaves the state unchanged.  The state holds no history; :class:`hansa.game.Game` adds
the move list, undo and records.  :meth:`GameState.copy` is cheap (a handful of flat lists), for search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .board import COUNTRIES, ENGLAND, PERMANENT_EFFECTS
from .constants import (
    ABILITY_MAX,
    ABILITY_NAMES,
    ABILITY_RELEASES,
    BAGS,
    BLOCK,
    BOOK,
    EMPTY,
    EXCHANGE,
    EXTRA_OFFICE,
    F_INC,
    F_TWO,
    IMPROVE,
    MARKER_NAMES,
    MERCHANT,
    NEUTRAL,
    PLUS3,
    PLUS4,
    PRIVILEGE,
    PRIVILEGE_COLOURS,
    REMOVE3,
    SWAP_OFFICES,
    TILE_CODES,
    TILE_DISPLAY,
    TRADER,
    TRIBUTE,
    WIN_SCORE,
)
from .errors import GameOverError, IllegalMoveError, WrongPlayerError
from .expansion import DEVELOP_PRIVILEGE, GREEN_OFFICE, MOVE_ANY_2, PLACE_2, REUSE_2
from .movegen import MoveGenerator
from .moves import (
    Claim,
    Develop,
    Displace,
    Done,
    Drop,
    EndTurn,
    Exchange,
    GreenOffice,
    Improve,
    Income,
    Lift,
    LiftExtra,
    Move,
    NeutralOffice,
    Pawn,
    Place,
    PlaceMarker,
    Relocate,
    Remove,
    Share,
    Shift,
    Swap,
    TakeExtra,
    TakeTile,
    TakeTribute,
    UseBlock,
    UseExchange,
    UseMarker,
    UseTribute,
)
from .position import _BAG_VALUES, _BOOK_VALUES, Phase, Position, _priv, _without

_LETTER = {"T": TRADER, "M": MERCHANT}
_USE_BY_NAME = {"+3": PLUS3, "+4": PLUS4, "remove3": REMOVE3}

__all__ = ["GameState", "Phase", "Position", "iter_players"]


class GameState(MoveGenerator):
    """A Hansa Teutonica position for 2-5 players on one board side, with the rules.

    Create one with :meth:`new`.  Public read-only attributes describe the position (see the attribute list
    in ``docs/engine.md``); change it only through :meth:`play`.
    """

    __slots__ = ()

    # ------------------------------------------------------------------------------------------ playing

    def play(self, move: Move, player: int | None = None) -> None:
        """Validate ``move`` for the deciding player and apply it.

        ``player`` (optional) is the seat submitting the move; a move from any other seat than
        :attr:`decider` raises :class:`WrongPlayerError`.  Any illegal move raises an
        :class:`IllegalMoveError` subclass whose message names the rule; the state is then unchanged.
        """
        if self.phase == Phase.OVER:
            raise GameOverError("the game is over; no more moves", "§4.2")
        if player is not None and player != self.decider:
            raise WrongPlayerError(
                f"seat {player} cannot move now: seat {self.decider} must decide ({self.phase.name.lower()})",
                "§2.1",
            )
        handler = _HANDLERS.get(type(move))
        if handler is None:
            raise IllegalMoveError(f"{move!r} is not a Hansa move")
        handler(self, move)

    # -- helpers shared by the handlers

    def _house(self, name: str) -> int:
        h = self.board.house_index.get(name)
        if h is None:
            raise IllegalMoveError(f"there is no house {name!r} on the {self.board.side} board", "Appendix A")
        return h

    def _route(self, code: str) -> int:
        r = self.board.route_index.get(code)
        if r is None:
            raise IllegalMoveError(f"there is no route {code!r} on the {self.board.side} board", "Appendix A")
        return r

    def _city(self, code: str | None) -> int:
        c = self.board.city_index.get(code) if isinstance(code, str) else None
        if c is None:
            raise IllegalMoveError(f"there is no city {code!r}", "Appendix A")
        return c

    def _kind(self, letter: str) -> int:
        k = _LETTER.get(letter)
        if k is None:
            raise IllegalMoveError(f"{letter!r} is not a piece (T or M)")
        return k

    def _need_phase(self, phase: Phase, what: str) -> None:
        if self.phase != phase:
            raise IllegalMoveError(f"{what} is not possible now: {_PHASE_TEXT[self.phase]}", _PHASE_RULE[self.phase])

    def _start_action(self, what: str) -> None:
        self._need_phase(Phase.ACTIONS, what)
        if self.actions_used >= self.allowance():
            raise IllegalMoveError(
                f"{what} needs an action, but all {self.allowance()} actions of this turn are used", "§2.1"
            )

    def _check_ship(self, h: int, kind: int, what: str) -> None:
        if kind == TRADER and self.board.house_ship[h]:
            raise IllegalMoveError(
                f"{what}: {self.board.house_names[h]} is a ship space and holds only a Merchant", "§7.2"
            )

    def _spend_permission(self, p: int, h: int, what: str) -> None:
        """Britannia: a Place or Displace on a Wales or Scotland route spends a permission (§E4.2)."""
        country = self.board.house_country[h]
        if country == ENGLAND:
            return
        slot = self.permission_slot(p, country)
        if slot < 0:
            raise IllegalMoveError(
                f"{what} on a {COUNTRIES[country]} route needs a {COUNTRIES[country]} permission: hold the rightmost "
                "office of a permission city whose permission you have not used this turn",
                "§7.6",
            )
        self.perm_used |= 1 << slot

    def _check_route_allowed(self, r: int, what: str) -> None:
        if self._allowed is not None and r not in self._allowed:
            raise IllegalMoveError(
                f"{what} is only possible on routes bordering the pawn's province", "§5.B"
            )

    # -- actions

    def _do_income(self, move: Income) -> None:
        self._start_action("Income")
        p = self.current
        st, sm = self.stk_t[p], self.stk_m[p]
        t, m = move.traders, move.merchants
        if not isinstance(t, int) or not isinstance(m, int) or t < 0 or m < 0:
            raise IllegalMoveError("Income takes a non-negative number of Traders and Merchants", "§2.2")
        if st + sm == 0:
            raise IllegalMoveError("Income with an empty stock does nothing and is refused", "§2.2")
        if t > st or m > sm:
            raise IllegalMoveError(f"your stock holds only {st} Traders and {sm} Merchants", "§2.2")
        n = min(_BAG_VALUES[self.levels[p * 5 + BAGS]], st + sm)
        if self.options.income_up_to:
            if not 1 <= t + m <= n:
                raise IllegalMoveError(f"Income takes 1 to {n} pieces now", "§2.2 opt.incomeUpTo")
        elif t + m != n:
            raise IllegalMoveError(f"Income must take exactly {n} pieces (Money bags and stock allow {n})", "§2.2")
        self.stk_t[p] -= t
        self.stk_m[p] -= m
        self.sup_t[p] += t
        self.sup_m[p] += m
        self.actions_used += 1
        favour = self.favour
        if favour and favour[F_INC] >= 0 and favour[F_INC] != p:
            q = favour[F_INC]
            if self.stk_t[q] or self.stk_m[q]:
                self.phase = Phase.SHARE  # §8.4: F-INC's owner decides before the active player goes on
                return
        self._after_action()

    def _do_place(self, move: Place) -> None:
        if self.phase == Phase.PERMANENT:
            self._place_two(move)
            return
        self._start_action("Place")
        p = self.current
        h = self._house(move.house)
        kind = self._kind(move.piece)
        if self.houses[h] >= 0:
            raise IllegalMoveError(f"house {move.house} is occupied", "§2.3")
        if (self.sup_m if kind else self.sup_t)[p] <= 0:
            raise IllegalMoveError(f"you have no {_KIND_NAME[kind]} in your supply", "§2.3")
        r = self.board.house_route[h]
        self._check_route_allowed(r, "Place")
        pay_t, pay_m = self._block_surcharge(p, r, kind, move.pay)
        if self.board.expansion:
            self._check_ship(h, kind, "Place")
            self._spend_permission(p, h, "Place")
        (self.sup_m if kind else self.sup_t)[p] -= 1
        if pay_t or pay_m:
            self.sup_t[p] -= pay_t
            self.sup_m[p] -= pay_m
            self.stk_t[p] += pay_t
            self.stk_m[p] += pay_m
        self._occupy(h, p * 2 + kind)
        self.actions_used += 1
        self._after_action()

    def _block_surcharge(self, p: int, r: int, kind: int, pay: str | None) -> tuple[int, int]:
        """Check the pieces a Place on route ``r`` pays for the Block markers beside it (§8.8); return (Traders,
        Merchants) paid."""
        k = self.block_count(r) if self.blocks else 0
        if not k:
            if pay:
                raise IllegalMoveError("only a Place on a route beside a Block marker pays extra pieces", "§8.8")
            return 0, 0
        if not isinstance(pay, str) or len(pay) != k or any(ch not in "TM" for ch in pay):
            route = self.board.routes[r].code
            raise IllegalMoveError(
                f"a Place on {route} costs {k} more piece(s) for its Block marker(s): name them, like pay {'T' * k}",
                "§8.8",
            )
        pay_m = pay.count("M")
        rt, rm = self.sup_t[p] - (kind == TRADER), self.sup_m[p] - (kind == MERCHANT)
        if pay_m > rm or k - pay_m > rt:
            raise IllegalMoveError(f"after placing, your supply cannot pay {pay} for the Block marker", "§8.8")
        return k - pay_m, pay_m

    def _do_displace(self, move: Displace) -> None:
        self._start_action("Displace")
        p = self.current
        h = self._house(move.house)
        kind = self._kind(move.piece)
        code = self.houses[h]
        if code < 0:
            raise IllegalMoveError(f"house {move.house} is empty: there is nothing to displace", "§2.4")
        if code >> 1 == p:
            raise IllegalMoveError("you cannot displace your own piece", "§2.4")
        r = self.board.house_route[h]
        self._check_route_allowed(r, "Displace")
        if self.board.expansion and self.board.house_ship[h] and kind != MERCHANT:
            raise IllegalMoveError("a piece on a ship space can only be displaced by a Merchant", "§7.2")
        k = 1 + (code & 1)
        st, sm = self.sup_t[p], self.sup_m[p]
        if st + sm < 1 + k:
            raise IllegalMoveError(
                f"displacing a {_KIND_NAME[code & 1]} needs {1 + k} pieces in your supply, you have {st + sm}", "§2.4"
            )
        if (sm if kind else st) < 1:
            raise IllegalMoveError(f"you have no {_KIND_NAME[kind]} in your supply", "§2.4")
        pay = move.pay
        if not isinstance(pay, str) or len(pay) != k or any(ch not in "TM" for ch in pay):
            raise IllegalMoveError(f"the penalty for a {_KIND_NAME[code & 1]} is {k} piece(s), like {'T' * k}", "§2.4")
        pay_m = pay.count("M")
        rt, rm = st - (kind == 0), sm - (kind == 1)
        if pay_m > rm or k - pay_m > rt:
            raise IllegalMoveError(f"after placing, your supply cannot pay {pay}", "§2.4")
        if self.board.countries:
            self._spend_permission(p, h, "Displace")
        # Apply: the displacing piece, the penalty, then the relocation.
        self.sup_t[p] = rt - (k - pay_m)
        self.sup_m[p] = rm - pay_m
        self.stk_t[p] += k - pay_m
        self.stk_m[p] += pay_m
        self._replace(h, p * 2 + kind)
        self.actions_used += 1
        owner = code >> 1
        if self.board.expansion:
            nowhere = not self.fits([(code & 1, self.relocation_origin(r))], r)
        else:
            nowhere = self.free_total - self.route_free[r] <= 0
        if nowhere:
            # docs/rules.md §2.4, step 3.5: nowhere to go -> the displaced piece goes to its owner's stock.
            if owner != NEUTRAL:
                (self.stk_m if code & 1 else self.stk_t)[owner] += 1
            self._after_action()
            return
        self.phase = Phase.RELOCATE
        self.rl_owner = owner
        self.rl_route = r
        self.hand = (code & 1,)
        self.rl_extras = k
        if code & 1 == TRADER and self.favour and self.favour[F_TWO] == owner:
            self.rl_extras = 2  # §8.4 F-TWO: a displaced Trader brings up to 2 extra pieces
        self._begin_relocation()

    def _begin_relocation(self) -> None:
        """A displaced neutral Trader brings one more neutral Trader from the pool (docs/rules.md §5.A)."""
        if self.rl_owner != NEUTRAL:
            return
        self.rl_extras = 1
        if self.options.neutral_extra_mandatory:
            self.rl_extras = 0
            if self.free_total - self.route_free[self.rl_route] >= 2:
                self.hand = (TRADER, TRADER)

    def _do_lift(self, move: Lift) -> None:
        p = self.current
        if self.phase == Phase.ACTIONS:
            self._start_action("Move")
            starting = True
        else:
            self._need_phase(Phase.MOVE, "Lifting a piece")
            starting = False
            if self.dropping:
                raise IllegalMoveError("you already started putting the lifted pieces down", "§2.5")
            book = _BOOK_VALUES[self.levels[p * 5 + BOOK]]
            if self.lifted >= book:
                raise IllegalMoveError(f"Liber Sophiae {book} lets you move at most {book} pieces", "§2.5")
        h = self._house(move.house)
        code = self.houses[h]
        if code < 0 or code >> 1 != p:
            raise IllegalMoveError(f"you can only move your own pieces on routes; {move.house} holds none", "§2.5")
        if starting:
            self.actions_used += 1
            self.phase = Phase.MOVE
            self.lifted = 0
            self.dropping = False
            self.hand = ()
        if starting:
            self.hand_from = ()
        self._vacate(h)
        self.hand = self.hand + (code & 1,)
        if self.board.expansion:
            self.hand_from = self.hand_from + (self.board.house_country[h] if self.board.countries else -1,)
        self.lifted += 1

    def _do_drop(self, move: Drop) -> None:
        self._need_phase(Phase.MOVE, "Dropping a piece")
        p = self.current
        h = self._house(move.house)
        kind = self._kind(move.piece)
        if kind not in self.hand:
            raise IllegalMoveError(f"you have not lifted a {_KIND_NAME[kind]}", "§2.5")
        if self.houses[h] >= 0:
            raise IllegalMoveError(f"house {move.house} is occupied; moving never displaces", "§2.5")
        if self.board.expansion:
            self._check_ship(h, kind, "Moving")
            i = self.drop_piece(h, kind)
            if i < 0:
                raise IllegalMoveError(
                    f"no lifted {_KIND_NAME[kind]} may go to a {COUNTRIES[self.board.house_country[h]]} route: "
                    "a piece from an England route stays in England",
                    "§7.7",
                )
            rest = list(zip(self.hand, self.hand_from))
            del rest[i]
            if not self.fits(rest, taken=h):
                raise IllegalMoveError("then the other lifted pieces could not all be put down", "§7.7")
            self.hand_from = self.hand_from[:i] + self.hand_from[i + 1 :]
            self.hand = self.hand[:i] + self.hand[i + 1 :]
            self._occupy(h, p * 2 + kind)
            self.dropping = True
            if not self.hand:
                self.phase = Phase.ACTIONS
                self.lifted = 0
                self.dropping = False
                self._after_action()
            return
        self._occupy(h, p * 2 + kind)
        self.hand = _without(self.hand, kind)
        self.dropping = True
        if not self.hand:
            self.phase = Phase.ACTIONS
            self.lifted = 0
            self.dropping = False
            self._after_action()

    def _do_claim(self, move: Claim) -> None:
        self._start_action("Claim")
        p = self.current
        r = self._route(move.route)
        route = self.board.routes[r]
        lo = p * 2
        for h in route.houses:
            code = self.houses[h]
            if code < 0:
                raise IllegalMoveError(f"route {move.route} has a free house; it cannot be claimed", "§2.6")
            if code != lo and code != lo + 1:
                raise IllegalMoveError(f"route {move.route} holds another owner's piece; it cannot be claimed", "§2.6")
        self._check_route_allowed(r, "Claim")
        benefit = self._check_benefit(p, r, move)
        self.actions_used += 1
        self._apply_claim(p, r, benefit)
        if self.phase == Phase.PERMANENT:
            return  # the claim ends when its permanent bonus marker is resolved
        self._after_action()

    def _check_benefit(self, p: int, r: int, move: Claim) -> tuple[str, int, int, int]:
        """Validate the claim's benefit (docs/rules.md §2.6 c); return ``(benefit, city or space, piece kind,
        ability)`` (-1 where it does not apply)."""
        board = self.board
        route = board.routes[r]
        benefit = move.benefit
        has_t, has_m = self._route_kinds(r)
        priv = _priv(self, p)
        if move.ability is not None and benefit != "ability":
            raise IllegalMoveError("only an ability benefit names an ability", "§2.6")
        if benefit == "nothing":
            if move.target is not None or move.piece is not None:
                raise IllegalMoveError("the benefit 'nothing' takes no city or piece", "§2.6")
            return ("nothing", -1, -1, -1)
        if benefit == "table":
            if r != board.coellen_route:
                if board.coellen_route < 0:
                    raise IllegalMoveError("this board has no special table", "§2.6")
                special = board.routes[board.coellen_route].code
                raise IllegalMoveError(f"only the {special} route reaches the {board.cities[board.coellen].name} table", "§2.6")
            if move.target not in PRIVILEGE_COLOURS:
                raise IllegalMoveError(f"{move.target!r} is not a Coellen table colour", "§2.6")
            colour = PRIVILEGE_COLOURS.index(move.target) + 1
            space = next(i for i, (_, c) in enumerate(board.coellen_table) if c == colour)
            if not has_m:
                raise IllegalMoveError("the Coellen table takes only a Merchant from the route", "§2.6")
            if self.table[space] >= 0:
                raise IllegalMoveError(f"the {move.target} Coellen table space is taken", "§2.6")
            if colour > priv:
                raise IllegalMoveError(
                    f"your Privilege ({PRIVILEGE_COLOURS[priv - 1]}) does not allow the {move.target} space", "§2.6"
                )
            if move.piece not in (None, "M"):
                raise IllegalMoveError("the Coellen table takes a Merchant", "§2.6")
            return ("table", space, MERCHANT, -1)
        c = self._city(move.target)
        if c not in route.cities:
            raise IllegalMoveError(f"{move.target} is not a city of route {route.code}", "§2.6")
        city = board.cities[c]
        if benefit == "office":
            filled = self.city_filled[c]
            if filled >= len(city.offices):
                raise IllegalMoveError(f"{city.name} has no free office", "§2.7")
            o = city.offices[filled]
            if o.privilege > priv:
                raise IllegalMoveError(
                    f"the next office of {city.name} is {o.colour}; your Privilege is {PRIVILEGE_COLOURS[priv - 1]}",
                    "§2.7",
                )
            kind = MERCHANT if o.round else TRADER
            if not (has_m if o.round else has_t):
                raise IllegalMoveError(
                    f"the next office of {city.name} is {o.shape} and needs a {_KIND_NAME[kind]} from the route", "§2.7"
                )
            if move.piece not in (None, "TM"[kind]):
                raise IllegalMoveError(f"the next office of {city.name} takes a {_KIND_NAME[kind]}", "§2.7")
            return ("office", c, kind, -1)
        if benefit == "extra":
            if EXTRA_OFFICE not in self.markers[p]:
                raise IllegalMoveError("you hold no unused Extra-office marker from an earlier action", "§3.3")
            if not (self.city_filled[c] or self.extras[c] or city.green):
                raise IllegalMoveError(f"an extra office needs a city with an office; {city.name} has none", "§3.3")
            kind = self._kind(move.piece) if move.piece is not None else -1
            if kind < 0:
                raise IllegalMoveError("say which route piece becomes the extra office (T or M)", "§3.3")
            if not (has_m if kind else has_t):
                raise IllegalMoveError(f"route {route.code} has no {_KIND_NAME[kind]} of yours", "§3.3")
            return ("extra", c, kind, -1)
        if benefit == "ability":
            if not city.abilities:
                raise IllegalMoveError(f"{city.name} is not an ability city", "§2.6")
            if move.ability is None:
                if len(city.abilities) > 1:
                    names = " or ".join(ABILITY_NAMES[a] for a in city.abilities)
                    raise IllegalMoveError(f"{city.name} offers two abilities: say which ({names})", "§7.5")
                ability = city.abilities[0]
            elif len(city.abilities) == 1:
                raise IllegalMoveError(
                    f"{city.name} develops only {ABILITY_NAMES[city.abilities[0]]}: the claim names no ability", "§2.6"
                )
            elif move.ability in ABILITY_NAMES and ABILITY_NAMES.index(move.ability) in city.abilities:
                ability = ABILITY_NAMES.index(move.ability)
            else:
                raise IllegalMoveError(f"{city.name} does not develop {move.ability!r}", "§2.6")
            if self.levels[p * 5 + ability] >= ABILITY_MAX[ability]:
                raise IllegalMoveError(f"your {ABILITY_NAMES[ability]} ability is already fully developed", "§1.3")
            if move.piece is not None:
                raise IllegalMoveError("an ability upgrade takes no piece argument", "§2.6")
            return ("ability", c, -1, ability)
        raise IllegalMoveError(f"unknown claim benefit {benefit!r}", "§2.6")

    def _apply_claim(self, p: int, r: int, benefit: tuple[str, int, int, int]) -> None:
        board = self.board
        route = board.routes[r]
        # (a) control points, computed before the new office
        for c in route.cities:
            ctrl = self.controller(c)
            if ctrl is not None and ctrl != NEUTRAL:
                self.score[ctrl] += 1
        # (b) bonus marker and its face-down replacement
        marker = self.route_marker[r]
        if marker >= 0:
            self.route_marker[r] = EMPTY
            self.markers[p] = self.markers[p] + (marker,)
            if self.marker_supply:
                self.plate[p] = self.plate[p] + (self.marker_supply.pop(),)
            else:
                self._t2 = True
        # (c) the benefit, then (d) every other route piece to the stock
        what, target, kind, ability = benefit
        if route.permanent == "reuse_2_from_route":
            # §E3.5: the pieces left after the benefit stay on the route until the player has set aside up to two
            self._begin_permanent(p, r, kind)
            code = p * 2 + kind
        else:
            kind_t = kind_m = 0
            for h in route.houses:
                if self._vacate(h) & 1:
                    kind_m += 1
                else:
                    kind_t += 1
            if kind == TRADER:
                kind_t -= 1
            elif kind == MERCHANT:
                kind_m -= 1
            self.stk_t[p] += kind_t
            self.stk_m[p] += kind_m
            code = p * 2 + kind
        if what == "office":
            self._establish(p, target, code)
        elif what == "extra":
            self._use_marker(p, EXTRA_OFFICE)
            if board.cities[target].green and not (self.extras[target] or self.right_offices[target]):
                self.completed += 1  # §E3.3 4: a green city is complete with its first office
            self.extras[target] = (code,) + self.extras[target]
            self._check_east_west(p)
            if self.tributes:
                self._tribute_due(target)
        elif what == "ability":
            self._upgrade(p, ability)
        elif what == "table":
            self.table[target] = code
        # (e) the permanent bonus marker of a sea route (§E2.2)
        if route.permanent is not None and route.permanent != "reuse_2_from_route":
            self._begin_permanent(p, r, -1)

    def _establish(self, owner: int, c: int, code: int) -> None:
        """Put ``code`` on the leftmost free printed office of city ``c`` (docs/rules.md §2.7 steps 4-7)."""
        city = self.board.cities[c]
        filled = self.city_filled[c]
        self.offices[city.office_base + filled] = code
        self.city_filled[c] = filled + 1
        if owner != NEUTRAL and city.offices[filled].coin:
            self.score[owner] += city.offices[filled].points or 1
        if filled + 1 == len(city.offices):
            self.completed += 1
        if owner != NEUTRAL:
            self._check_east_west(owner)
            if self.tributes:
                self._tribute_due(c)

    def _tribute_due(self, c: int) -> None:
        """An office was established in city ``c``: every Tribute marker beside a route of ``c`` will pay its owner
        (§8.7), once the action is resolved."""
        routes = self.board.routes
        for r, owner in self.tributes:
            if c in routes[r].cities:
                self.tribute_due = self.tribute_due + (owner,)

    def _check_east_west(self, p: int) -> None:
        if p in self.ew_paid:
            return
        per_city = self.cities_with_office(p)
        if len(self.board.east_west) != 2:
            return
        a, b = self.board.east_west
        if not per_city[a] or not per_city[b]:
            return
        seen = {a}
        stack = [a]
        cities = self.board.cities
        while stack:
            c = stack.pop()
            if c == b:
                paid = len(self.ew_paid)
                awards = self.board.east_west_awards
                self.score[p] += awards[paid] if paid < len(awards) else 0
                self.ew_paid.append(p)
                return
            for nb in cities[c].neighbours:
                if per_city[nb] and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)

    def _upgrade(self, p: int, ability: int) -> None:
        self.levels[p * 5 + ability] += 1
        if ABILITY_RELEASES[ability] == MERCHANT:
            self.sup_m[p] += 1
        else:
            self.sup_t[p] += 1

    def _use_marker(self, p: int, kind: int) -> None:
        self.markers[p] = _without(self.markers[p], kind)
        self.used_markers[p] = self.used_markers[p] + (kind,)
        self.fav_flags |= 1  # a marker was used this turn: no Emperor's Favour tile any more (§8.3)

    # -- relocation

    def _do_relocate(self, move: Relocate) -> None:
        self._need_phase(Phase.RELOCATE, "Relocating")
        h = self._house(move.house)
        kind = self._kind(move.piece)
        if kind not in self.hand:
            raise IllegalMoveError(f"you have no {_KIND_NAME[kind]} to relocate", "§2.4")
        if self.houses[h] >= 0:
            raise IllegalMoveError(f"house {move.house} is occupied", "§2.4")
        r = self.board.house_route[h]
        if r == self.rl_route:
            raise IllegalMoveError("a displaced piece cannot go back onto the route it was displaced from", "§2.4")
        free = self.free_relocation()  # F-FREE (§8.4): any free house off the route, not only the nearest
        if self.board.expansion:
            self._check_expansion_relocation(h, kind, nearest=not free)
            self._occupy(h, self.rl_owner * 2 + kind)
            self.hand = _without(self.hand, kind)
            self._relocation_progress()
            return
        d = self._relocation_distance()
        dist = self.board.distance[self.rl_route][r]
        if dist != d and not free:
            raise IllegalMoveError(
                f"relocated pieces go to the nearest routes with a free house (distance {d}); "
                f"{self.board.routes[r].code} is at distance {dist}",
                "§2.4",
            )
        self._occupy(h, self.rl_owner * 2 + kind)
        self.hand = _without(self.hand, kind)
        if self.rl_owner == NEUTRAL:
            self._neutral_claim_check(r)
        self._relocation_progress()

    def _neutral_claim_check(self, r: int) -> None:
        """After a neutral piece was put on route ``r`` (relocated, or shifted by Move 3): a route whose every house
        holds a neutral piece is claimed at once (docs/rules.md §5.A)."""
        if self.route_free[r]:
            return
        neutral = NEUTRAL * 2
        if any(self.houses[h] != neutral for h in self.board.routes[r].houses):
            return
        # 1. control points for real controllers, before the office
        for c in self.board.routes[r].cities:
            ctrl = self.controller(c)
            if ctrl is not None and ctrl != NEUTRAL:
                self.score[ctrl] += 1
        # 2. the marker is discarded; its replacement goes to the active player's plate
        if self.route_marker[r] >= 0:
            self.route_marker[r] = EMPTY
            self.neutral_discards += 1
            if self.marker_supply:
                self.plate[self.current] = self.plate[self.current] + (self.marker_supply.pop(),)
            else:
                self._t2 = True
        self.neutral_pending = (r,)
        cities = self._neutral_office_cities()
        if len(cities) == 2:
            self.phase = Phase.NEUTRAL_OFFICE  # the active player chooses the city
            return
        self._neutral_office(cities[0] if cities else -1)

    def _neutral_office(self, c: int) -> None:
        """3-4 of a neutral claim: office in city ``c`` (or none), the rest back to the pool."""
        r = self.neutral_pending[0]
        self.neutral_pending = ()
        route = self.board.routes[r]
        if c >= 0:
            self._establish(NEUTRAL, c, NEUTRAL * 2)
        for h in route.houses:
            self._vacate(h)
        if self.options.neutral_keep_on_ability_route and self._neutral_setup_route(r):
            self._put_neutral(r)
        # back to what the neutral piece's placement interrupted: a relocation, or Move 3's shifts
        self.phase = Phase.RELOCATE if self.rl_route >= 0 else Phase.REMOVE

    def _do_neutral_office(self, move: NeutralOffice) -> None:
        self._need_phase(Phase.NEUTRAL_OFFICE, "Choosing the city of a neutral claim")
        c = self._city(move.city)
        if c not in self._neutral_office_cities():
            route = self.board.routes[self.neutral_pending[0]]
            raise IllegalMoveError(
                f"the neutral claim of {route.code} establishes in one of its cities with a free office", "§5.A"
            )
        self._neutral_office(c)
        if self.phase == Phase.RELOCATE:
            self._relocation_progress()
        else:
            self._remove_progress()

    def _relocation_progress(self) -> None:
        if self.phase != Phase.RELOCATE or self.hand:
            return
        if not self._extra_options():
            self._finish_relocation()

    def _finish_relocation(self) -> None:
        self.phase = Phase.ACTIONS
        self.hand = ()
        self.rl_owner = -1
        self.rl_route = -1
        self.rl_extras = 0
        self._after_action()

    def _do_take_extra(self, move: TakeExtra) -> None:
        self._need_phase(Phase.RELOCATE, "Taking an extra piece")
        kind = self._kind(move.piece)
        b = self.rl_owner
        if self.rl_extras <= 0:
            raise IllegalMoveError("no more extra pieces may be relocated", "§2.4")
        free_out = self.free_total - self.route_free[self.rl_route]
        if free_out < len(self.hand) + 1:
            raise IllegalMoveError("there is no free house left for another extra piece", "§2.4")
        if b == NEUTRAL:
            if kind != TRADER:
                raise IllegalMoveError("the neutral player has only Traders", "§5.A")
            self.hand = self.hand + (TRADER,)
            self.rl_extras -= 1
            return
        if self.board.expansion and not self.extra_fits(kind):
            raise IllegalMoveError(f"there is no free house left that an extra {_KIND_NAME[kind]} may take", "§7.2")
        if self.stk_t[b] or self.stk_m[b]:
            src_t, src_m, where = self.stk_t, self.stk_m, "stock"
        elif self.sup_t[b] or self.sup_m[b]:
            src_t, src_m, where = self.sup_t, self.sup_m, "supply"
        else:
            raise IllegalMoveError("your stock and supply are empty; take a piece from the board instead", "§2.4")
        src = src_m if kind else src_t
        if src[b] <= 0:
            raise IllegalMoveError(
                f"extra pieces come from your {where} while it is not empty, and it has no {_KIND_NAME[kind]}", "§2.4"
            )
        src[b] -= 1
        self.hand = self.hand + (kind,)
        self.rl_extras -= 1

    def _do_lift_extra(self, move: LiftExtra) -> None:
        self._need_phase(Phase.RELOCATE, "Taking an extra piece")
        b = self.rl_owner
        h = self._house(move.house)
        if b == NEUTRAL or self.rl_extras <= 0:
            raise IllegalMoveError("no more extra pieces may be relocated", "§2.4")
        if self.stk_t[b] or self.stk_m[b] or self.sup_t[b] or self.sup_m[b]:
            raise IllegalMoveError("extra pieces come from your stock, then your supply, before the board", "§2.4")
        code = self.houses[h]
        if code < 0 or code >> 1 != b:
            raise IllegalMoveError(f"house {move.house} holds no piece of yours", "§2.4")
        r = self.board.house_route[h]
        free_out = self.free_total - self.route_free[self.rl_route]
        if self.board.expansion:
            if not self.extra_fits(code & 1, h):
                raise IllegalMoveError("there is no free house left that this extra piece may take", "§7.2")
        elif r == self.rl_route and free_out < len(self.hand) + 1:
            raise IllegalMoveError("there is no free house left for another extra piece", "§2.4")
        self._vacate(h)
        self.hand = self.hand + (code & 1,)
        self.rl_extras -= 1

    def _do_done(self, move: Done) -> None:
        if self.phase == Phase.SHARE:
            self.phase = Phase.ACTIONS  # F-INC declined
            self._after_action()
            return
        if self.phase == Phase.RELOCATE:
            if self.hand:
                raise IllegalMoveError("the displaced piece (and every extra taken) must be placed first", "§2.4")
            self._finish_relocation()
        elif self.phase == Phase.REMOVE:
            self._finish_remove()
        elif self.phase == Phase.PERMANENT:
            self._finish_permanent()
        else:
            raise IllegalMoveError(f"'done' is not possible now: {_PHASE_TEXT[self.phase]}", _PHASE_RULE[self.phase])

    # -- bonus markers

    def _marker_turn(self, what: str, kind: int) -> int:
        self._need_phase(Phase.ACTIONS, what)
        p = self.current
        if kind not in self.markers[p]:
            raise IllegalMoveError(f"you hold no unused {MARKER_NAMES[kind]} marker", "§3.2")
        return p

    def _do_use(self, move: UseMarker) -> None:
        kind = _USE_BY_NAME.get(move.marker)
        if kind is None:
            raise IllegalMoveError(f"unknown marker {move.marker!r}", "§3.3")
        p = self._marker_turn(f"Using {move.marker}", kind)
        if kind == REMOVE3:
            if not self._removable_any(p):
                raise IllegalMoveError("there is no piece Remove 3 could take", "§3.3")
            self._use_marker(p, kind)
            self.phase = Phase.REMOVE
            self.rm_left = 3
            return
        self._use_marker(p, kind)
        self.bonus_actions += 3 if kind == PLUS3 else 4

    def _do_improve(self, move: Improve) -> None:
        p = self._marker_turn("Improve ability", IMPROVE)
        if move.ability not in ABILITY_NAMES:
            raise IllegalMoveError(f"{move.ability!r} is not an ability", "§1.3")
        a = ABILITY_NAMES.index(move.ability)
        if self.levels[p * 5 + a] >= ABILITY_MAX[a]:
            raise IllegalMoveError(f"your {move.ability} ability is already fully developed", "§3.3")
        self._use_marker(p, IMPROVE)
        self._upgrade(p, a)
        self._maybe_auto_end()

    def _do_swap(self, move: Swap) -> None:
        p = self._marker_turn("Swap offices", SWAP_OFFICES)
        c = self._city(move.city)
        city = self.board.cities[c]
        i = move.office
        if city.green:
            self._swap_green(p, c, i)
            return
        if not isinstance(i, int) or not 1 <= i < len(city.offices):
            raise IllegalMoveError(
                f"swap needs two neighbouring printed offices of {city.name}: office 1..{len(city.offices) - 1} "
                "and the one to its right",
                "§3.3",
            )
        a, b = city.office_base + i - 1, city.office_base + i
        if self.offices[a] < 0 or self.offices[b] < 0:
            raise IllegalMoveError("both swapped offices must be occupied", "§3.3")
        if self.options.swap_needs_own and self.offices[a] >> 1 != p and self.offices[b] >> 1 != p:
            raise IllegalMoveError("one of the swapped offices must be yours", "§3.3 opt.swapNeedsOwn")
        self._use_marker(p, SWAP_OFFICES)
        self.offices[a], self.offices[b] = self.offices[b], self.offices[a]
        self._maybe_auto_end()

    def _do_remove(self, move: Remove) -> None:
        self._need_phase(Phase.REMOVE, "Removing a piece")
        if self.options.remove3_mode == "move":
            raise IllegalMoveError("with opt.remove3Mode=move the marker moves pieces (shift)", "§3.3")
        p = self.current
        h = self._house(move.house)
        code = self.houses[h]
        if code < 0:
            raise IllegalMoveError(f"house {move.house} is empty", "§3.3")
        if not self._removable(p, code):
            raise IllegalMoveError("Remove 3 may take only opponents' pieces here", "§3.3 opt.remove3Targets")
        if self.rm_left <= 0:
            raise IllegalMoveError("Remove 3 takes at most 3 pieces", "§3.3")
        owner = code >> 1
        self._vacate(h)
        if owner != NEUTRAL:
            (self.sup_m if code & 1 else self.sup_t)[owner] += 1
        self.rm_left -= 1
        self._remove_progress()

    def _do_shift(self, move: Shift) -> None:
        if self.phase == Phase.PERMANENT:
            self._permanent_shift(move)
            return
        self._need_phase(Phase.REMOVE, "Moving a piece with the marker")
        if self.options.remove3_mode != "move":
            raise IllegalMoveError("Remove 3 removes pieces; 'shift' needs opt.remove3Mode=move", "§3.3")
        p = self.current
        h = self._house(move.house)
        to = self._house(move.to)
        code = self.houses[h]
        if code < 0 or code >> 1 == p:
            raise IllegalMoveError("Move 3 moves opponents' pieces", "§3.3 opt.remove3Mode")
        if self.houses[to] >= 0:
            raise IllegalMoveError(f"house {move.to} is occupied", "§3.3")
        if self.rm_left <= 0:
            raise IllegalMoveError("the marker moves at most 3 pieces", "§3.3")
        if self.board.expansion and to not in self.shift_targets(h, self.board.countries):
            raise IllegalMoveError(
                "Move 3 cannot put a Trader on a ship space, nor move a piece out of its country", "§7.2 §7.7"
            )
        self._vacate(h)
        self._occupy(to, code)
        self.rm_left -= 1
        if code >> 1 == NEUTRAL:  # a shifted neutral piece may fill its new route (docs/rules.md §5.A)
            self._neutral_claim_check(self.board.house_route[to])
        self._remove_progress()

    def _remove_progress(self) -> None:
        if self.phase != Phase.REMOVE:  # a neutral claim waits for the active player's choice of city
            return
        if self.rm_left == 0 or not self._removable_any(self.current):
            self._finish_remove()

    def _finish_remove(self) -> None:
        self.phase = Phase.ACTIONS
        self.rm_left = 0
        # A neutral claim caused by a shift may have raised a game-end trigger (docs/rules.md §5.A 5); otherwise none
        # can hold between actions and this only ends the turn when nothing is left to do.
        self._after_action()

    # -- expansion maps (docs/rules-expansions.md)

    def _check_expansion_relocation(self, h: int, kind: int, nearest: bool = True) -> None:
        """A relocated piece: allowed on that house (ship space, country), on the nearest ring where a piece of
        its kind may go (unless not ``nearest``: F-FREE, §8.4), and leaving room for the rest of the hand (§E2.1 3,
        §E4.3)."""
        origin = self.relocation_origin()
        board = self.board
        if not self._may_go(h, kind, origin):
            if kind == TRADER and board.house_ship[h]:
                raise IllegalMoveError(f"{board.house_names[h]} is a ship space and holds only a Merchant", "§7.2")
            raise IllegalMoveError(
                f"pieces displaced from a {COUNTRIES[origin]} route go to {COUNTRIES[origin]} or England routes only",
                "§7.7",
            )
        d = self.kind_distance(kind) if nearest else -1
        r = board.house_route[h]
        if nearest and (not d or r not in self.relocation_rings()[d - 1]):
            raise IllegalMoveError(
                f"relocated pieces go to the nearest routes with a free house they may take (distance {d})", "§7.7"
            )
        rest = self.relocation_pieces()
        rest.remove((kind, origin))
        if not self.fits(rest, self.rl_route, taken=h):
            raise IllegalMoveError("then the other pieces in hand could not all be relocated", "§7.2")

    def _swap_green(self, p: int, c: int, i: int) -> None:
        """Swap offices in a green city: its offices counted left to right, under opt.greenCitySwap (§E3.3 7)."""
        city = self.board.cities[c]
        if not isinstance(i, int) or i - 1 not in self.green_swaps(c):
            raise IllegalMoveError(
                f"offices {i} and {i + 1 if isinstance(i, int) else '?'} of {city.name} cannot be swapped "
                f"(opt.greenCitySwap={self.options.green_city_swap})",
                "§7.5",
            )
        row = list(self.extras[c]) + list(self.right_offices[c])
        if self.options.swap_needs_own and row[i - 1] >> 1 != p and row[i] >> 1 != p:
            raise IllegalMoveError("one of the swapped offices must be yours", "§3.3 opt.swapNeedsOwn")
        self._use_marker(p, SWAP_OFFICES)
        row[i - 1], row[i] = row[i], row[i - 1]
        left = len(self.extras[c])
        self.extras[c] = tuple(row[:left])
        self.right_offices[c] = tuple(row[left:])
        self._maybe_auto_end()

    def _begin_permanent(self, p: int, r: int, taken: int) -> None:
        """Open the claim's permanent bonus marker (§E2.2).  For *reuse 2* (called before the clean-up) the piece
        that became the benefit leaves the route first (``taken``: its kind, -1 for none); the others stay until
        the player has set aside up to two."""
        route = self.board.routes[r]
        assert route.permanent is not None
        effect = PERMANENT_EFFECTS.index(route.permanent)
        if effect == REUSE_2 and taken >= 0:
            for h in route.houses:
                if self.houses[h] >= 0 and self.houses[h] & 1 == taken:
                    self._vacate(h)
                    break
        self.phase = Phase.PERMANENT
        self.pm_kind = effect
        self.pm_left = 2 if effect in (MOVE_ANY_2, REUSE_2, PLACE_2) else 1
        self.pm_route = r
        if len(self.permanent_options()) == 1:  # nothing to choose but declining
            self._close_permanent()

    def _close_permanent(self) -> None:
        """End the permanent effect: *reuse 2*'s remaining route pieces go to the Stock (the claim's clean-up)."""
        if self.pm_kind == REUSE_2:
            p = self.current
            for h in self.board.routes[self.pm_route].houses:
                if self.houses[h] >= 0:
                    if self._vacate(h) & 1:
                        self.stk_m[p] += 1
                    else:
                        self.stk_t[p] += 1
        self.phase = Phase.ACTIONS
        self.pm_kind = -1
        self.pm_left = 0
        self.pm_route = -1

    def _finish_permanent(self) -> None:
        self._close_permanent()
        self._after_action()

    def _permanent_progress(self) -> None:
        if self.pm_left <= 0 or len(self.permanent_options()) == 1:
            self._finish_permanent()

    def _need_permanent(self, effect: int, what: str) -> None:
        self._need_phase(Phase.PERMANENT, what)
        if self.pm_kind != effect:
            route = self.board.routes[self.pm_route]
            raise IllegalMoveError(f"{what} is not what the permanent marker of {route.code} does", "§7.3")

    def _permanent_shift(self, move: Shift) -> None:
        h = self._house(move.house)
        to = self._house(move.to)
        p = self.current
        board = self.board
        kind = self.pm_kind
        code = self.houses[h]
        if code < 0:
            raise IllegalMoveError(f"house {move.house} is empty", "§7.3")
        if self.houses[to] >= 0:
            raise IllegalMoveError(f"house {move.to} is occupied", "§7.3")
        if kind == MOVE_ANY_2:
            if to not in self.shift_targets(h, board.countries):
                raise IllegalMoveError(
                    "move any 2 cannot put a Trader on a ship space, nor move a piece out of its country",
                    "§7.3 §7.7",
                )
        elif kind == REUSE_2:
            if board.house_route[h] != self.pm_route:
                raise IllegalMoveError("reuse 2 takes pieces from the claimed route", "§7.3")
            if board.house_route[to] == self.pm_route or not self.accepts(to, code & 1):
                raise IllegalMoveError(
                    "a reused piece goes to a free house of another route (a Trader never on a ship space)", "§7.3"
                )
        elif kind == PLACE_2:
            if self.place2_source(p) != "board":
                raise IllegalMoveError(
                    f"place 2 takes its pieces from your {self.place2_source(p)} while it is not empty", "§7.3"
                )
            if code >> 1 != p:
                raise IllegalMoveError("place 2 lifts only your own pieces", "§7.3")
            if to not in self.place2_targets() or not self.accepts(to, code & 1):
                raise IllegalMoveError("place 2 puts pieces on free houses of Wales or Scotland routes", "§7.3")
        else:
            raise IllegalMoveError("this permanent marker moves no piece", "§7.3")
        if self.pm_left <= 0:
            raise IllegalMoveError("the permanent marker moves at most 2 pieces", "§7.3")
        self._vacate(h)
        self._occupy(to, code)
        self.pm_left -= 1
        self._permanent_progress()

    def _place_two(self, move: Place) -> None:
        if move.pay:
            raise IllegalMoveError("pieces put by a permanent marker pay nothing for Block markers", "§8.8")
        self._need_permanent(PLACE_2, "Placing a piece")
        p = self.current
        h = self._house(move.house)
        kind = self._kind(move.piece)
        source = self.place2_source(p)
        if source == "board":
            raise IllegalMoveError("your stock and supply are empty: move one of your pieces (shift)", "§7.3")
        src = (self.stk_m if kind else self.stk_t) if source == "stock" else (self.sup_m if kind else self.sup_t)
        if src[p] <= 0:
            raise IllegalMoveError(f"place 2 takes from your {source} while it is not empty, and it has no "
                                   f"{_KIND_NAME[kind]}", "§7.3")
        if self.houses[h] >= 0:
            raise IllegalMoveError(f"house {move.house} is occupied", "§7.3")
        if h not in self.place2_targets():
            raise IllegalMoveError("place 2 puts pieces on free houses of Wales or Scotland routes", "§7.3")
        self._check_ship(h, kind, "Place")
        src[p] -= 1
        self._occupy(h, p * 2 + kind)
        self.pm_left -= 1
        self._permanent_progress()

    def _do_exchange(self, move: Exchange) -> None:
        self._need_permanent(MOVE_ANY_2, "Exchanging two pieces")
        a = self._house(move.house)
        b = self._house(move.other)
        if self.houses[a] < 0 or self.houses[b] < 0:
            raise IllegalMoveError("both exchanged houses must hold a piece", "§7.3")
        if a == b or self.pm_left < 2:
            raise IllegalMoveError("an exchange moves two pieces: it is the whole of move any 2", "§7.3")
        if a > b:
            raise IllegalMoveError(f"name the two houses in board order: exchange {move.other} {move.house}", "§7.3")
        if not self.exchange_ok(a, b):
            raise IllegalMoveError(
                "neither piece may end where it may not stand: a Trader on a ship space, a piece out of its country",
                "§7.2 §7.7",
            )
        code_a = self._replace(a, self.houses[b])
        self._replace(b, code_a)
        self.pm_left = 0
        self._permanent_progress()

    def _do_develop(self, move: Develop) -> None:
        self._need_permanent(DEVELOP_PRIVILEGE, "Developing Privilege")
        p = self.current
        if move.ability != "privilege":
            raise IllegalMoveError("this permanent marker develops Privilege", "§7.3")
        if self.levels[p * 5 + PRIVILEGE] >= ABILITY_MAX[PRIVILEGE]:
            raise IllegalMoveError("your Privilege is already fully developed", "§7.3")
        self._upgrade(p, PRIVILEGE)
        self._finish_permanent()

    def _do_green_office(self, move: GreenOffice) -> None:
        self._need_permanent(GREEN_OFFICE, "An office in a green city")
        p = self.current
        c = self._city(move.city)
        kind = self._kind(move.piece)
        if not self.board.cities[c].green:
            raise IllegalMoveError(f"{self.board.cities[c].name} is not a green city", "§7.5")
        supply = self.sup_m if kind else self.sup_t
        if supply[p] <= 0:
            raise IllegalMoveError(f"you have no {_KIND_NAME[kind]} in your supply", "§7.5")
        supply[p] -= 1
        if not (self.extras[c] or self.right_offices[c]):
            self.completed += 1
        self.right_offices[c] = self.right_offices[c] + (p * 2 + kind,)
        self._check_east_west(p)
        if self.tributes:
            self._tribute_due(c)
        self._finish_permanent()

    # -- end of action / turn / game

    def _after_action(self) -> None:
        """Called when an action is completely resolved: game-end check (docs/rules.md §4.2), then auto end of turn."""
        threshold = self.board.cities_to_end
        if self._t2 or self.completed >= threshold or max(self.score) >= WIN_SCORE:
            triggers = []
            if max(self.score) >= WIN_SCORE:
                triggers.append("score")
            if self._t2:
                triggers.append("markers")
            if self.completed >= threshold:
                triggers.append("cities")
            self.end_triggers = tuple(triggers)
            self.phase = Phase.OVER
            self.discarded = sum(len(pl) for pl in self.plate)
            self.plate = [()] * self.players
            self.hand = ()
            self.tribute_due = ()
            return
        if self.tribute_due and not self._pay_tributes():
            return
        self._maybe_auto_end()

    def _pay_tributes(self) -> bool:
        """Pay the Tribute markers due (§8.7) in order; stop at a payee who must choose the kinds (phase TRIBUTE).
        True when every tribute is paid."""
        while self.tribute_due:
            q = self.tribute_due[0]
            options = self.tribute_options(q)
            if len(options) > 1:
                self.phase = Phase.TRIBUTE
                return False
            for move in options:
                assert isinstance(move, TakeTribute)
                self._take_tribute(q, move.traders, move.merchants)
            self.tribute_due = self.tribute_due[1:]
        return True

    def _take_tribute(self, q: int, t: int, m: int) -> None:
        self.stk_t[q] -= t
        self.stk_m[q] -= m
        self.sup_t[q] += t
        self.sup_m[q] += m

    def _maybe_auto_end(self) -> None:
        """End the turn by itself when no action is left and no marker can be used (nothing to decide)."""
        if self.phase == Phase.ACTIONS and self.actions_used >= self.allowance() and not self._has_usable_marker(self.current):
            self._end_turn()

    def _do_end_turn(self, move: EndTurn) -> None:
        if self.phase == Phase.PAWN_END:  # decline the free pawn move
            self._finish_turn()
            return
        self._need_phase(Phase.ACTIONS, "Ending the turn")
        self._end_turn()

    def _end_turn(self) -> None:
        if self.plate[self.current] and self._any_marker_route():
            self.phase = Phase.MARKERS
            return
        self._after_markers()

    def _after_markers(self) -> None:
        """§2.9 step 3: the optional free pawn move after the last action, then the next turn."""
        if self.pawn >= 0 and self._free_pawn_move_open(before=False):
            self.phase = Phase.PAWN_END
            return
        self._finish_turn()

    def _do_place_marker(self, move: PlaceMarker) -> None:
        self._need_phase(Phase.MARKERS, "Placing a bonus marker")
        r = self._route(move.route)
        if not self._marker_route_ok(r):
            route = self.board.routes[r]
            if self.route_marker[r] >= 0:
                why = "it already has a bonus marker"
            elif self.route_free[r] != route.spaces:
                why = "it is not empty"
            elif self.options.marker_city_rule == "freeOffice":
                why = "neither of its cities has a free office"
            else:
                why = "neither of its cities has an office"
            raise IllegalMoveError(f"a bonus marker cannot go on {route.code}: {why}", "§3.4")
        p = self.current
        self.route_marker[r] = self.plate[p][0]
        self.plate[p] = self.plate[p][1:]
        self._after_marker_placed(r)
        if not self.plate[p] or not self._any_marker_route():
            self._after_markers()

    def _after_marker_placed(self, r: int) -> None:
        """Neutral variant: a neutral Trader joins each route that just received a marker (§5.A)."""
        if self.neutral_variant:
            self._put_neutral(r)

    def _finish_turn(self) -> None:
        self.current = (self.current + 1) % self.players
        self.turn += 1
        self.actions_used = 0
        self.bonus_actions = 0
        self.pawn_free_used = 0
        self.fav_flags = 0
        self.phase = Phase.ACTIONS
        if self.board.permission_cities:
            self.perm_used = 0
            self.perm_holders = self._permission_holders()

    def _do_pawn(self, move: Pawn) -> None:
        if self.players != 2 or self.options.two_player_variant != "pawn":
            raise IllegalMoveError("there is no pawn in this game", "§5.B")
        target = self.board.province_index.get(move.province) if isinstance(move.province, str) else None
        if target is None:
            raise IllegalMoveError(f"there is no province {move.province!r}", "§5.B")
        phase = self.phase
        if phase == Phase.PAWN_SETUP:
            if move.paid:
                raise IllegalMoveError("placing the pawn at the start costs nothing", "§5.B")
            self._set_pawn(target)
            self.phase = Phase.ACTIONS
            return
        if move.paid:
            self._start_action("A paid pawn move")
            if target == self.pawn:
                raise IllegalMoveError("the pawn is already in that province", "§5.B")
            self._set_pawn(target)
            self.actions_used += 1
            self._after_action()
            return
        dist = self.board.province_distance[self.pawn][target]
        if phase == Phase.ACTIONS:
            if self.actions_used:
                raise IllegalMoveError(
                    "the free pawn move comes before the first action or after the last one (end the turn first)",
                    "§5.B",
                )
            before = True
        elif phase == Phase.PAWN_END:
            before = False
        else:
            raise IllegalMoveError(f"moving the pawn is not possible now: {_PHASE_TEXT[phase]}", _PHASE_RULE[phase])
        if not self._free_pawn_move_open(before):
            raise IllegalMoveError("the free pawn move of this turn is used", "§5.B opt.pawnFreeMoves")
        if not 1 <= dist <= 2:
            raise IllegalMoveError(
                f"a free pawn move crosses 1 or 2 borders; {move.province} is {dist} away (pay an action to go further)",
                "§5.B",
            )
        self._set_pawn(target)
        self.pawn_free_used |= 1 if before else 2
        if phase == Phase.PAWN_END:
            self._finish_turn()

    def _set_pawn(self, province: int) -> None:
        self.pawn = province
        self._allowed = frozenset(self.board.provinces[province].routes)

    # -- Big Box modules (docs/rules.md §8)

    def _do_take_tile(self, move: TakeTile) -> None:
        self._need_phase(Phase.ACTIONS, "Taking an Emperor's Favour tile")
        p = self.current
        if not self.favour:
            raise IllegalMoveError("this game is played without Emperor's Favour", "§8.1")
        if self.actions_used or self.fav_flags:
            raise IllegalMoveError(
                "a tile is taken at the start of the turn, before any action or marker, and once a turn", "§8.3"
            )
        t = TILE_CODES.index(move.tile) if move.tile in TILE_CODES else -1
        if t < 0 or self.favour[t] != TILE_DISPLAY:
            shown = ", ".join(TILE_CODES[i] for i, w in enumerate(self.favour) if w == TILE_DISPLAY) or "none"
            raise IllegalMoveError(f"{move.tile!r} is not on the display (tiles there: {shown})", "§8.3")
        kinds = []
        for name in (move.first, move.second):
            if name not in MARKER_NAMES:
                raise IllegalMoveError(f"{name!r} is not a bonus marker", "§8.3")
            kinds.append(MARKER_NAMES.index(name))
        held = self.markers[p]
        if len(held) < 2 or any(held.count(k) < kinds.count(k) for k in kinds):
            raise IllegalMoveError("a tile costs two of your unused bonus markers, and you do not hold those", "§8.3")
        for k in kinds:
            held = _without(held, k)
        self.markers[p] = held
        self.facedown[p] = self.facedown[p] + tuple(kinds)
        self.favour[t] = p
        self.fav_flags |= 2
        self._end_turn()  # the turn has no actions left: it ends at once

    def _do_share(self, move: Share) -> None:
        self._need_phase(Phase.SHARE, "Taking a piece with F-INC")
        q = self.favour[F_INC]
        kind = self._kind(move.piece)
        stock = self.stk_m if kind else self.stk_t
        if stock[q] <= 0:
            raise IllegalMoveError(f"your stock has no {_KIND_NAME[kind]}", "§8.4")
        stock[q] -= 1
        (self.sup_m if kind else self.sup_t)[q] += 1
        self.phase = Phase.ACTIONS
        self._after_action()

    def _do_take_tribute(self, move: TakeTribute) -> None:
        self._need_phase(Phase.TRIBUTE, "Taking a tribute")
        q = self.tribute_due[0]
        if move not in self.tribute_options(q):
            mixes = ", ".join(m.text() for m in self.tribute_options(q))
            raise IllegalMoveError(f"the tribute is 2 pieces from your stock (or what it has): {mixes}", "§8.7")
        self._take_tribute(q, move.traders, move.merchants)
        self.tribute_due = self.tribute_due[1:]
        self.phase = Phase.ACTIONS
        self._after_action()

    def _promo_marker(self, what: str, kind: int, route: str) -> tuple[int, int]:
        p = self._marker_turn(what, kind)
        r = self._route(route)
        if self.sup_t[p] <= 0:
            section = "§8.7" if kind == TRIBUTE else "§8.8"
            raise IllegalMoveError(f"{what} puts a Trader from your supply beside the route; you have none", section)
        self.markers[p] = _without(self.markers[p], kind)
        self.sup_t[p] -= 1
        self.fav_flags |= 1
        return p, r

    def _do_use_tribute(self, move: UseTribute) -> None:
        p, r = self._promo_marker("Tribute", TRIBUTE, move.route)
        self.tributes = self.tributes + ((r, p),)
        self._maybe_auto_end()

    def _do_use_block(self, move: UseBlock) -> None:
        p, r = self._promo_marker("Block", BLOCK, move.route)
        self.blocks = self.blocks + ((r, p),)
        self._maybe_auto_end()

    def _do_use_exchange(self, move: UseExchange) -> None:
        p = self._marker_turn("Exchange", EXCHANGE)
        q = move.seat
        if not isinstance(q, int) or not 0 <= q < self.players or q == p:
            raise IllegalMoveError(f"Exchange takes a marker of another player (seat 0 to {self.players - 1})", "§8.6")
        kind = MARKER_NAMES.index(move.marker) if move.marker in MARKER_NAMES else -1
        if kind not in self.used_markers[q]:
            held = ", ".join(MARKER_NAMES[k] for k in self.used_markers[q]) or "none"
            raise IllegalMoveError(f"seat {q} holds no used {move.marker} marker (used: {held})", "§8.6")
        if kind == EXCHANGE:
            raise IllegalMoveError("Exchange cannot take a used Exchange marker (it would change nothing)", "§8.10")
        self.markers[p] = _without(self.markers[p], EXCHANGE) + (kind,)
        self.used_markers[q] = _without(self.used_markers[q], kind) + (EXCHANGE,)
        self.fav_flags |= 1
        self._maybe_auto_end()

    # ------------------------------------------------------------------------------------------ misc

    def __repr__(self) -> str:
        return (
            f"<GameState {self.players}p turn {self.turn} seat {self.current} {self.phase.name.lower()} "
            f"scores {self.score}>"
        )


_KIND_NAME = ("Trader", "Merchant")
_PHASE_TEXT = {
    Phase.ACTIONS: "the active player is choosing an action",
    Phase.MOVE: "a Move action is in progress (lift or drop pieces)",
    Phase.RELOCATE: "a displaced player is relocating pieces",
    Phase.REMOVE: "Remove 3 is in progress",
    Phase.MARKERS: "replacement bonus markers must be placed",
    Phase.PAWN_SETUP: "the pawn must be placed",
    Phase.PAWN_END: "the turn is ending (free pawn move)",
    Phase.NEUTRAL_OFFICE: "the city of a neutral claim must be chosen",
    Phase.OVER: "the game is over",
    Phase.PERMANENT: "the claimed sea route's permanent bonus marker is being resolved",
    Phase.SHARE: "the owner of the F-INC tile takes a piece or declines",
    Phase.TRIBUTE: "a Tribute marker's owner chooses the pieces it pays",
}
_PHASE_RULE = {
    Phase.ACTIONS: "§2.1",
    Phase.MOVE: "§2.5",
    Phase.RELOCATE: "§2.4",
    Phase.REMOVE: "§3.3",
    Phase.MARKERS: "§3.4",
    Phase.PAWN_SETUP: "§5.B",
    Phase.PAWN_END: "§5.B",
    Phase.NEUTRAL_OFFICE: "§5.A",
    Phase.OVER: "§4.2",
    Phase.PERMANENT: "§7.3",
    Phase.SHARE: "§8.4",
    Phase.TRIBUTE: "§8.7",
}

_HANDLERS: dict[type, Callable[[GameState, Any], None]] = {
    Income: GameState._do_income,
    Place: GameState._do_place,
    Displace: GameState._do_displace,
    Lift: GameState._do_lift,
    Drop: GameState._do_drop,
    Claim: GameState._do_claim,
    Relocate: GameState._do_relocate,
    TakeExtra: GameState._do_take_extra,
    LiftExtra: GameState._do_lift_extra,
    Done: GameState._do_done,
    UseMarker: GameState._do_use,
    Improve: GameState._do_improve,
    Swap: GameState._do_swap,
    Remove: GameState._do_remove,
    Shift: GameState._do_shift,
    EndTurn: GameState._do_end_turn,
    PlaceMarker: GameState._do_place_marker,
    Pawn: GameState._do_pawn,
    NeutralOffice: GameState._do_neutral_office,
    Exchange: GameState._do_exchange,
    Develop: GameState._do_develop,
    GreenOffice: GameState._do_green_office,
    TakeTile: GameState._do_take_tile,
    Share: GameState._do_share,
    TakeTribute: GameState._do_take_tribute,
    UseTribute: GameState._do_use_tribute,
    UseBlock: GameState._do_use_block,
    UseExchange: GameState._do_use_exchange,
}


def iter_players(state: GameState) -> Iterable[int]:
    """Seats in turn order starting with the start player."""
    return ((state.start_player + i) % state.players for i in range(state.players))
