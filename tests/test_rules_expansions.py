"""Focused rule tests of the expansion maps: docs/rules-expansions.md §E8.1 (setup and map facts, scenarios 1-5)
and §E8.2 (ship spaces, scenarios 6-10).

East scenarios 11-35 are in test_rules_expansions_east.py, Britannia scenarios 36-66 in
test_rules_expansions_britannia.py.  Ship spaces (0-based in the data) are houses ``ROUTE:N`` with N 1-based:
Wismar-Stralsund WIS-STR:2, :3; Stralsund-Malmoe STR-MAL:2, :3; Malmoe-Visby MAL-VIS:2; Danzig-Malmoe DAN-MAL:4.
"""

from __future__ import annotations

import pytest

import support
from expansion_support import (
    AT,
    FREE,
    A,
    B,
    C,
    claims,
    east,
    free_houses_of,
    houses_of,
    offices,
    play,
    ship,
    snap,
)
from hansa.core.board import COUNTRIES, SCOTLAND, load_board
from hansa.core.constants import MERCHANT, PRIVILEGE, TAVERN_MARKERS, TRADER
from hansa.core.errors import InvalidOptionError
from hansa.core.expansion import MOVE_ANY_2
from hansa.core.moves import Claim, Displace, Done, Drop, Lift, Place, Relocate, TakeExtra
from hansa.core.state import GameState, Phase
from support import changed, house_changes, refuse

# ---------------------------------------------------------------------------------------------- E8.1 setup


def test_e01_east_is_for_three_to_five_players():
    """1. East with 3, 4 or 5 players -> East board; with 2 players -> refused."""
    for players in (3, 4, 5):
        state = support.new_state(players, map="east")
        assert state.board is load_board("east")
        assert state.board.side == "east" and state.players == players
        assert state.options.map == "east"
        assert state.board.cities_to_end == 10
    with pytest.raises(InvalidOptionError, match="3 to 5 players"):
        support.new_state(2, map="east")
    with pytest.raises(InvalidOptionError, match="3 to 5 players"):
        GameState.new(2, 0, {"map": "east"})
    # The base map still takes two players.
    assert support.new_state(2).board.side == "2-3"


def test_e02_britannia_side_follows_the_player_count():
    """2. Britannia with 3 players -> small side (no Scotland routes exist); with 4 or 5 -> large side; 2 -> refused."""
    small = support.new_state(3, map="britannia")
    assert small.board is load_board("britannia_3")
    assert not any(r.country == SCOTLAND for r in small.board.routes)
    assert {COUNTRIES[r.country] for r in small.board.routes} == {"England", "Wales"}
    assert not any(c.countries >> SCOTLAND & 1 for c in small.board.cities)
    for players in (4, 5):
        large = support.new_state(players, map="britannia")
        assert large.board is load_board("britannia_45")
        assert {COUNTRIES[r.country] for r in large.board.routes} == {"England", "Wales", "Scotland"}
    with pytest.raises(InvalidOptionError, match="3 to 5 players"):
        support.new_state(2, map="britannia")
    # §E1.3: Move 3 is Britannia's default; an explicit choice wins; East keeps the global default.
    assert small.options.remove3_mode == "move"
    assert support.new_state(3, map="britannia", remove3_mode="remove").options.remove3_mode == "remove"
    assert east().options.remove3_mode == "remove"


def _markers_on(state: GameState) -> dict[str, int]:
    return {r.code: state.route_marker[r.index] for r in state.board.routes if state.route_marker[r.index] >= 0}


def test_e03_east_setup_start_markers_and_counter():
    """3. East setup -> the start markers lie on Stettin-Kulm, Allenstein-Braunsberg, Brandenburg-Tangermuende; none on a
    sea route; completed-cities counter 0 of 10."""
    for players, seed in ((3, 0), (4, 7), (5, 123)):
        state = support.new_state(players, seed, map="east")
        on = _markers_on(state)
        board = state.board
        assert set(on) == {board.route("STE-KUL").code, board.route("ALL-BRN").code, board.route("BRA-TAN").code}
        assert sorted(on.values()) == sorted(TAVERN_MARKERS)
        assert all(not board.route(code).ships and not board.route(code).permanent for code in on)
        assert state.completed == 0 and board.cities_to_end == 10
        assert state.phase == Phase.ACTIONS and state.current == A


def test_e04_britannia_setup_start_markers_and_counter():
    """4. Britannia setup (either side) -> start markers on Richmond-Lancaster, Coventry-Nottingham,
    Salisbury-Southampton; counter 0 of 8."""
    for players, seed in ((3, 1), (4, 2), (5, 3)):
        state = support.new_state(players, seed, map="britannia")
        on = _markers_on(state)
        board = state.board
        assert set(on) == {board.route("RIC-LAN").code, board.route("COV-NOT").code, board.route("SAL-SOU").code}
        assert sorted(on.values()) == sorted(TAVERN_MARKERS)
        assert all(board.routes[board.route(code).index].country == 0 for code in on)
        assert state.completed == 0 and board.cities_to_end == 8


def test_e05_board_data_counts():
    """5. Board data: East 28 cities / 32 routes / 98 houses / 55 printed offices; Britannia small 26/35/111/60;
    large 30/40/121/72 (plus ship spaces, sea routes and permanent markers of §E1.2)."""
    expected = {
        # cities, routes, houses, printed offices, sea routes, ship spaces, permanent-marker routes
        "east": (28, 32, 98, 55, 4, 6, 4),
        "britannia_3": (26, 35, 111, 60, 4, 7, 3),
        "britannia_45": (30, 40, 121, 72, 5, 9, 2),
    }
    for side, want in expected.items():
        b = load_board(side)
        got = (
            len(b.cities), len(b.routes), b.house_count, b.office_count, sum(1 for r in b.routes if r.ships),
            sum(b.house_ship), sum(1 for r in b.routes if r.permanent),
        )
        assert got == want, side
        assert len(b.house_names) == b.house_count == len(b.house_ship) == len(b.house_country)


# ---------------------------------------------------------------------------------------------- E8.2 ship spaces


def test_e06_ship_space_takes_only_a_merchant():
    """6. East, A Sup{3,0} -> Place a Trader on the ship space of Malmoe-Visby -> illegal; Sup{2,1} -> Place the
    Merchant there -> legal."""
    state = east()
    assert ship(state, "MAL-VIS:2") and not ship(state, "MAL-VIS:1") and not ship(state, "MAL-VIS:3")
    support.set_pools(state, A, sup=(3, 0))
    assert Place("MAL-VIS:2", "T") not in state.legal_moves()
    assert Place("MAL-VIS:1", "T") in state.legal_moves()  # the land houses of the sea route take Traders
    refuse(state, Place("MAL-VIS:2", "T"))
    refuse(state, Place("MAL-VIS:2", "M"))  # no Merchant in the supply
    support.set_pools(state, A, sup=(2, 1))
    refuse(state, Place("MAL-VIS:2", "T"))
    assert Place("MAL-VIS:2", "M") in state.legal_moves()
    before = snap(state)
    state.play(Place("MAL-VIS:2", "M"))
    assert house_changes(before, state) == {"MAL-VIS:2": (None, (A, "M"))}
    assert support.pools(state, A) == ((2, 0), (6, 0))
    assert state.actions_used == 1
    assert changed(before, state) == {"houses", "sup_m", "actions_used"}


def test_e07_displace_on_ship_space_needs_a_merchant():
    """7. B's Merchant on a ship space of Wismar-Stralsund; A Sup{3,0} -> Displace -> illegal (the replacing piece must
    be a Merchant); A Sup{2,1} -> legal, A's Merchant on the ship space, A Stk +2."""
    state = east()
    support.put(state, "WIS-STR:2", B, "M")
    support.set_pools(state, A, sup=(3, 0))
    assert not [m for m in state.legal_moves() if isinstance(m, Displace) and m.house == "WIS-STR:2"]
    for pay in ("TT", "T", "TM", "MM"):
        refuse(state, Displace("WIS-STR:2", "T", pay))
    support.set_pools(state, A, sup=(2, 1))
    legal = {m for m in state.legal_moves() if isinstance(m, Displace) and m.house == "WIS-STR:2"}
    assert legal == {Displace("WIS-STR:2", "M", "TT")}
    refuse(state, Displace("WIS-STR:2", "T", "TM"))  # a Trader may not replace the Merchant on the ship space
    b_pools = support.pools(state, B)
    before = snap(state)
    state.play(Displace("WIS-STR:2", "M", "TT"))
    assert house_changes(before, state) == {"WIS-STR:2": ((B, "M"), (A, "M"))}
    assert support.pools(state, A) == ((0, 0), (8, 0))
    assert support.pools(state, B) == b_pools
    assert state.phase == Phase.RELOCATE and state.decider == B and state.hand == (MERCHANT,)
    assert state.rl_extras == 2 and state.actions_used == 1
    # B's Merchant goes to distance 1 (ship spaces included: it is a Merchant), never back onto Wismar-Stralsund.
    targets = {m.house for m in state.legal_moves() if isinstance(m, Relocate)}
    assert targets == free_houses_of(state, "WIS-LUB", "WAR-WIS", "STR-MAL")
    assert "STR-MAL:2" in targets
    refuse(state, Relocate("WIS-STR:3", "M"))
    state.play(Relocate("STR-MAL:3", "M"), B)
    state.play(Done(), B)
    assert state.piece_at("STR-MAL:3") == (B, "M")
    assert state.phase == Phase.ACTIONS and state.decider == A and support.pools(state, B) == b_pools


def test_e08_relocated_trader_skips_ship_space_extra_merchant_takes_it():
    """8. Relocation: the only free house at distance 1 is a ship space; B relocates his displaced Trader -> it goes to
    distance 2; B may add an extra Merchant from his Stock into the ship space."""
    state = east()
    # Luebeck-Wismar's only neighbours are Waren-Wismar and Wismar-Stralsund (distance 1); C fills them except the
    # ship space WIS-STR:3.
    support.fill_route(state, "WAR-WIS", C)
    support.put(state, "WIS-STR:1", C, "T")
    support.put(state, "WIS-STR:2", C, "M")
    support.put(state, "WIS-LUB:2", B, "T")
    support.set_pools(state, B, stk=(5, 1))
    play(state, Displace("WIS-LUB:2", "T", "T"))
    assert state.phase == Phase.RELOCATE and state.decider == B and state.hand == (TRADER,)
    distance2 = free_houses_of(state, "WAR-HAV", "STE-WAR", "STR-MAL") - {"STR-MAL:2", "STR-MAL:3"}
    assert {m.house for m in state.legal_moves() if isinstance(m, Relocate)} == distance2
    refuse(state, Relocate("WIS-STR:3", "T"), B)  # a Trader never on a ship space
    refuse(state, Relocate("STR-MAL:2", "T"), B)
    refuse(state, Relocate("HAV-PER:1", "T"), B)  # distance 3
    assert TakeExtra("M") in state.legal_moves()
    state.play(TakeExtra("M"), B)
    assert support.pools(state, B)[1] == (5, 0) and state.hand == (TRADER, MERCHANT)
    # Rings per piece: the Merchant's nearest free house is the ship space at distance 1.
    legal = {m for m in state.legal_moves() if isinstance(m, Relocate)}
    assert {m.house for m in legal if m.piece == "M"} == {"WIS-STR:3"}
    assert {m.house for m in legal if m.piece == "T"} == distance2
    refuse(state, Relocate("STE-WAR:1", "M"), B)  # distance 2: the Merchant has a nearer house
    before = snap(state)
    state.play(Relocate("STE-WAR:1", "T"), B)
    state.play(Relocate("WIS-STR:3", "M"), B)
    assert house_changes(before, state) == {"STE-WAR:1": (None, (B, "T")), "WIS-STR:3": (None, (B, "M"))}
    assert state.phase == Phase.ACTIONS and state.decider == A and state.hand == ()
    assert support.pools(state, B) == ((6, 1), (5, 0))


def test_e09_move_action_trader_never_onto_ship_space():
    """9. Move action: A tries to move his Trader onto a free ship space -> illegal; his Merchant -> legal."""
    state = east()
    support.put(state, "HAL-WIT:1", A, "T")
    support.put(state, "HAL-WIT:2", A, "M")
    play(state, Lift("HAL-WIT:1"))
    assert state.phase == Phase.MOVE and state.hand == (TRADER,)
    refuse(state, Drop("MAL-VIS:2", "T"))
    refuse(state, Drop("WIS-STR:3", "T"))
    assert not {m.house for m in state.legal_moves() if isinstance(m, Drop)} & {"MAL-VIS:2", "WIS-STR:2", "DAN-MAL:4"}
    play(state, Lift("HAL-WIT:2"))
    assert state.hand == (TRADER, MERCHANT)
    refuse(state, Drop("MAL-VIS:2", "T"))
    before = snap(state)
    play(state, Drop("MAL-VIS:2", "M"))
    play(state, Drop("MAL-VIS:1", "T"))
    assert house_changes(before, state) == {"MAL-VIS:2": (None, (A, "M")), "MAL-VIS:1": (None, (A, "T"))}
    assert state.piece_at("HAL-WIT:1") is None and state.piece_at("HAL-WIT:2") is None
    assert state.phase == Phase.ACTIONS and state.actions_used == 1 and state.hand == ()
    assert support.pools(state, A) == ((5, 1), (6, 0))


def test_e10_claim_sea_route_office_uses_the_trader():
    """10. A holds Wismar-Stralsund with Trader, Merchant, Merchant -> Claim legal; office in Stralsund (next office square
    orange, Privilege orange) uses the Trader."""
    state = east()
    support.fill_route(state, "WIS-STR", A, "TMM")
    support.put(state, "HAL-WIT:1", B, "T")  # a piece move any 2 could move
    assert houses_of(state, "WIS-STR") == {"WIS-STR:1", "WIS-STR:2", "WIS-STR:3"}
    # Privilege white: both cities' next offices are orange -> no office.
    assert claims(state, "WIS-STR") == {Claim("WIS-STR")}
    refuse(state, Claim("WIS-STR", "office", "STR"))
    support.set_level(state, A, PRIVILEGE, 1)
    assert claims(state, "WIS-STR") == {Claim("WIS-STR"), Claim("WIS-STR", "office", "STR"), Claim("WIS-STR", "office", "WIS")}
    refuse(state, Claim("WIS-STR", "office", "STR", "M"))  # a square office takes the Trader
    before = snap(state)
    state.play(Claim("WIS-STR", "office", "STR"))
    assert offices(state, "STR") == [AT, FREE]
    assert house_changes(before, state) == {
        "WIS-STR:1": ((A, "T"), None), "WIS-STR:2": ((A, "M"), None), "WIS-STR:3": ((A, "M"), None),
    }
    assert support.pools(state, A) == ((5, 1), (6, 2))
    assert state.score == [0, 0, 0] and state.completed == 0 and state.actions_used == 1
    # The route's permanent marker (move any 2) is offered at the end of the claim.
    assert state.phase == Phase.PERMANENT and state.pm_kind == MOVE_ANY_2 and state.pm_left == 2
    assert state.pm_route == state.board.route("WIS-STR").index
    assert state.route_marker[state.pm_route] == FREE and state.markers[A] == () and state.plate[A] == ()
    assert changed(before, state) == {
        "houses", "offices", "city_filled", "stk_m", "actions_used", "phase", "pm_kind", "pm_left", "pm_route",
    }
    play(state, Done())
    assert state.phase == Phase.ACTIONS and state.pm_kind == -1 and state.pm_route == -1
    assert state.actions_used == 1 and state.actions_left() == 1
