"""Focused rule tests for the Big Box modules (docs/rules.md §8, docs/rules-modules.md scenarios M01-M35).

Mission Cards and Emperor's Favour use the printed boards; the promo markers mostly the fixture board of
tests/support.py (cities P, Q, R, S, T, U, V, K, Y; no taverns).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import support
from expansion_support import britannia, free_houses_of
from hansa.core.board import ENGLAND, WALES
from hansa.core.constants import (
    ACTIONS,
    BLOCK,
    BOOK,
    EXCHANGE,
    F_ABIL,
    F_ACT,
    F_CITY,
    F_FREE,
    F_INC,
    F_TWO,
    IMPROVE,
    MISSION_CARDS,
    PLUS3,
    PLUS4,
    PRIVILEGE,
    SWAP_OFFICES,
    TILE_CODES,
    TILE_DISPLAY,
    TILE_OUT,
    TRIBUTE,
    marker_points,
)
from hansa.core.errors import IllegalMoveError, InvalidOptionError, WrongPlayerError
from hansa.core.invariants import check_invariants
from hansa.core.moves import (
    Claim,
    Displace,
    Done,
    EndTurn,
    Income,
    Place,
    Relocate,
    Share,
    Swap,
    TakeExtra,
    TakeTile,
    TakeTribute,
    UseBlock,
    UseExchange,
    UseMarker,
    UseTribute,
    move_from_json,
    parse_move,
    tile_move,
)
from hansa.core.scoring import categories, final_scores, mission_score
from hansa.core.state import GameState, Phase
from hansa.view import mission_json, public_state
from module_play import PROMO
from support import A, B, C, refuse


def base(players: int = 3, **options: Any) -> GameState:
    return support.new_state(players, **options)


def fixture(**options: Any) -> GameState:
    return support.new_state(3, board=support.fixture_board(), **options)


def with_tiles(players: int = 3, owner: dict[int, int] | None = None, **options: Any) -> GameState:
    """A game with Emperor's Favour whose display holds every tile (owners from ``owner``: tile -> seat)."""
    state = base(players, emperors_favour=True, **options)
    state.favour = [TILE_DISPLAY] * len(TILE_CODES)
    for tile, seat in (owner or {}).items():
        state.favour[tile] = seat
    return state


def fixture_tiles(owner: dict[int, int]) -> GameState:
    state = fixture(emperors_favour=True)
    state.favour = [TILE_OUT] * len(TILE_CODES)
    for tile, seat in owner.items():
        state.favour[tile] = seat
    return state


def grant(state: GameState, seat: int, *kinds: int) -> None:
    """Give ``seat`` unused markers taken out of the face-down supply (so every marker stays accounted for)."""
    for kind in kinds:
        state.marker_supply.remove(kind)
    support.give_markers(state, seat, *kinds)


def of_type(state: GameState, cls: type) -> list[Any]:
    return [m for m in state.legal_moves() if isinstance(m, cls)]


def mission(state: GameState, seat: int, card: int) -> None:
    state.missions[seat] = card


# ---------------------------------------------------------------------------------------------- M1 Mission Cards


def test_m01_each_player_gets_a_hidden_card():
    """M01. 3p base game with missions, seed fixed -> one distinct card each; the public view shows none; the seat's
    own mission view shows its card."""
    state = GameState.new(3, 42, {"missions": True})
    assert len(state.missions) == 3 and len(set(state.missions)) == 3
    assert set(state.missions) <= set(MISSION_CARDS)
    assert GameState.new(3, 42, {"missions": True}).missions == state.missions  # from the seed
    view = public_state(state)
    text = repr(view)
    assert "mission" not in text
    for seat, card in enumerate(state.missions):
        own = mission_json(state, seat)
        assert own == {"card": card, "cities": list(MISSION_CARDS[card])}
    assert "missions" not in categories(GameState.new(3, 42))
    assert "missions" in categories(state)


@pytest.mark.parametrize("map_name", ["east", "britannia"])
def test_m02_missions_refused_off_the_base_map(map_name: str):
    """M02. missions on East or Britannia -> refused at creation with an error naming the option."""
    with pytest.raises(InvalidOptionError, match="missions"):
        GameState.new(4, 1, {"map": map_name, "missions": True})


def test_m02_missions_refused_on_a_board_without_the_cities():
    with pytest.raises(InvalidOptionError, match="missions"):
        fixture(missions=True)


def test_m03_offices_in_two_cities_control_none():
    """M03. A has offices in 2 of its 3 cities and controls neither -> missions = 2."""
    state = base(missions=True)
    mission(state, A, 4)  # Arnheim, Perleberg, Hannover
    support.set_office(state, "ARN", 0, B)
    support.set_office(state, "ARN", 1, A)
    support.set_office(state, "ARN", 2, B)
    support.set_office(state, "PER", 0, A)
    support.set_office(state, "PER", 1, B)  # 1-1, B's is rightmost: B controls
    assert final_scores(state)[A].missions == 2


def test_m04_all_three_offices_and_control():
    """M04. A has offices in all three and controls all three -> missions = 8."""
    state = base(missions=True)
    mission(state, A, 4)
    for code in ("ARN", "PER", "HAN"):
        support.set_office(state, code, 0, A)
    scores = final_scores(state)
    assert scores[A].missions == 8
    assert scores[A].total == sum(getattr(scores[A], c) for c in categories(state))


def test_m05_control_two_office_in_third():
    """M05. A controls 2 of 3 and has an office in the third, where B has more offices -> missions = 3."""
    state = base(missions=True)
    mission(state, A, 4)
    support.set_office(state, "ARN", 0, A)
    support.set_office(state, "PER", 0, A)
    support.set_office(state, "HAN", 0, A)
    support.set_office(state, "HAN", 1, B)
    support.add_extra_office(state, "HAN", B)
    assert state.controller(state.board.city_index["HAN"]) == B
    assert final_scores(state)[A].missions == 3


def test_m06_control_tie_goes_to_the_rightmost_office():
    """M06. Control tie in a mission city (1 office each, A's rightmost) -> A controls it: counts toward the +5."""
    state = base(missions=True)
    mission(state, A, 4)
    support.set_office(state, "ARN", 0, B)
    support.set_office(state, "ARN", 1, A)
    support.set_office(state, "PER", 0, A)
    support.set_office(state, "HAN", 0, A)
    assert final_scores(state)[A].missions == 8


def test_m07_extra_office_counts():
    """M07. An extra office (Extra-office marker) in a mission city counts for the point and for control."""
    state = base(missions=True)
    mission(state, A, 4)
    support.set_office(state, "ARN", 0, B)
    support.add_extra_office(state, "ARN", A)  # A's only office in Arnheim; 1-1 with B's, B's rightmost
    support.set_office(state, "PER", 0, A)
    support.set_office(state, "HAN", 0, A)
    assert mission_score(state, A) == 3  # three cities with an office, Arnheim controlled by B
    support.add_extra_office(state, "ARN", A)  # now 2-1 in Arnheim
    assert mission_score(state, A) == 8


def test_m08_mission_points_never_end_the_game():
    """M08. Mission points would take A from 19 to 27 -> no effect on the end trigger: final scoring only."""
    state = base(missions=True)
    mission(state, A, 4)
    for code in ("ARN", "PER", "HAN"):
        support.set_office(state, code, 0, A)
    state.score[A] = 19
    state.play(Place("HAM-LUB:1", "T") if Place("HAM-LUB:1", "T") in state.legal_moves() else of_type(state, Place)[0])
    assert not state.is_over and state.score[A] == 19
    assert final_scores(state)[A].in_game == 19 and final_scores(state)[A].missions == 8


def test_m09_determinized_copies_redeal_the_unseen_cards():
    """M09. Determinized copy for B's search -> B's card unchanged; A's and C's redrawn from the 8 B cannot see; the 6
    undealt never fixed."""
    state = GameState.new(3, 5, {"missions": True})
    own = state.missions[B]
    seen_a: set[int] = set()
    for i in range(300):
        guess = state.determinized(random.Random(i), B)
        assert guess.missions[B] == own
        assert own not in (guess.missions[A], guess.missions[C])
        assert guess.missions[A] != guess.missions[C]
        seen_a.add(guess.missions[A])
        assert guess.public_key() == state.public_key()
    assert seen_a == set(MISSION_CARDS) - {own}
    assert state.missions[B] == own  # the original is untouched
    # default viewer: the deciding seat
    state.current = B
    assert all(state.determinized(random.Random(i)).missions[B] == own for i in range(20))


# ---------------------------------------------------------------------------------------------- M2 Emperor's Favour


def test_m10_display_has_one_tile_per_player():
    """M10. emperors_favour, 4 players -> 4 distinct public tiles on display, the rest out of the game."""
    state = GameState.new(4, 3, {"emperors_favour": True})
    assert sorted(state.favour).count(TILE_DISPLAY) == 4 and state.favour.count(TILE_OUT) == 2
    view = public_state(state)
    assert sorted(view["favour"]["display"]) == sorted(TILE_CODES[t] for t, w in enumerate(state.favour) if w == -1)
    assert view["favour"]["owners"] == {}
    assert GameState.new(4, 3, {"emperors_favour": True}).favour == state.favour  # from the seed


def test_m11_taking_a_tile_costs_the_turn_and_two_markers():
    """M11. A at turn start with 2 unused markers takes F-ACT -> the 2 markers are face down, still counted at the end;
    A has no action this turn; from the next turn A has Actions + 1."""
    state = with_tiles()
    grant(state, A, PLUS3, IMPROVE)
    move = tile_move("F-ACT", "improve", "+3")
    assert move == TakeTile("F-ACT", "+3", "improve")  # canonical order: the order of the marker names
    assert move in state.legal_moves()
    assert tile_move("F-ACT", "+3", "+3") not in state.legal_moves()  # only one +3
    state.play(move)
    assert state.favour[F_ACT] == A
    assert state.markers[A] == () and state.used_markers[A] == () and state.facedown[A] == (PLUS3, IMPROVE)
    assert state.current == B and state.phase == Phase.ACTIONS  # the turn ended at once
    assert final_scores(state)[A].markers == marker_points(2)
    state.play(EndTurn())
    state.play(EndTurn())
    assert state.current == A and state.allowance() == 3


def test_m11_two_markers_of_one_type():
    state = with_tiles()
    support.give_markers(state, A, PLUS4, PLUS4)
    assert {m.text() for m in of_type(state, TakeTile)} == {f"tile {t} +4 +4" for t in TILE_CODES}


def test_m12_needs_two_unused_markers():
    """M12. A with 1 unused and 3 used markers tries to take a tile -> illegal."""
    state = with_tiles()
    support.give_markers(state, A, PLUS3)
    state.used_markers[A] = (IMPROVE, SWAP_OFFICES, PLUS4)
    assert of_type(state, TakeTile) == []
    refuse(state, TakeTile("F-ACT", "+3", "improve"))
    refuse(state, TakeTile("F-ACT", "+3", "+3"))


def test_m13_only_at_the_start_of_the_turn():
    """M13. A after one action tries to take a tile -> illegal (also after using a marker)."""
    state = with_tiles()
    support.give_markers(state, A, PLUS3, IMPROVE, PLUS4)
    state.play(of_type(state, Place)[0])
    assert of_type(state, TakeTile) == []
    refuse(state, tile_move("F-ACT", "+3", "improve"))
    state = with_tiles()
    support.give_markers(state, A, PLUS3, IMPROVE, PLUS4)
    state.play(UseMarker("+4"))
    assert state.actions_used == 0 and of_type(state, TakeTile) == []
    refuse(state, tile_move("F-ACT", "+3", "improve"))


def test_m14_one_tile_per_turn():
    """M14. A tries to take a second tile in the same turn -> impossible: the turn ended with the first."""
    state = with_tiles()
    support.give_markers(state, A, PLUS3, IMPROVE, PLUS4, SWAP_OFFICES)
    state.play(tile_move("F-ACT", "+3", "improve"))
    assert state.decider == B
    with pytest.raises(WrongPlayerError):
        state.play(tile_move("F-CITY", "+4", "swap"), A)
    assert state.markers[A] == (PLUS4, SWAP_OFFICES)
    # a tile taken is no longer on the display
    state.current = A
    state.fav_flags = 0
    assert all(m.tile != "F-ACT" for m in of_type(state, TakeTile))


def test_m15_f_act_above_five():
    """M15. F-ACT with the Actions track at 5 -> 6 actions per turn; a +3 marker gives 9 that turn."""
    state = with_tiles(owner={F_ACT: A})
    support.set_level(state, A, ACTIONS, 5)
    assert state.allowance() == 6
    support.give_markers(state, A, PLUS3)
    state.play(UseMarker("+3"))
    assert state.allowance() == 9
    # the tie-break reads the track alone
    assert state.ability_value(A, ACTIONS) == 5


def test_m16_f_inc_offers_what_the_stock_holds():
    """M16. B takes Income; A holds F-INC and A's stock has Traders only -> A is asked: a Trader or decline."""
    state = with_tiles(owner={F_INC: A})
    support.set_pools(state, A, stk=(3, 0))
    state.play(EndTurn())
    assert state.current == B
    (b_sup, b_stk) = support.pools(state, B)
    income = of_type(state, Income)[0]
    state.play(income)
    assert state.phase == Phase.SHARE and state.decider == A and state.current == B
    assert set(state.legal_moves()) == {Share("T"), Done()}
    refuse(state, Share("M"), A)
    refuse(state, EndTurn(), B, WrongPlayerError)
    before, census = support.snapshot(state), state.census()
    state.play(Share("T"), A)
    assert support.changed(before, state) == {"sup_t", "stk_t", "phase", "decider"}
    assert support.pools(state, A) == ((before["sup_t"][A] + 1, before["sup_m"][A]), (2, 0))
    assert state.phase == Phase.ACTIONS and state.decider == B
    assert state.census() == census
    # declining changes nothing but the phase
    state.play(EndTurn())
    state.play(of_type(state, Income)[0])
    assert state.decider == A
    before = support.snapshot(state)
    state.play(Done(), A)
    assert support.changed(before, state) == {"phase", "decider"}


def test_m16_empty_stock_asks_nothing():
    state = with_tiles(owner={F_INC: A})
    support.set_pools(state, A, stk=(0, 0))
    state.play(EndTurn())
    state.play(of_type(state, Income)[0])
    assert state.phase == Phase.ACTIONS and state.decider == B


def test_m17_own_income_gives_nothing_extra():
    """M17. F-INC: A (the owner) takes Income -> nothing extra."""
    state = with_tiles(owner={F_INC: A})
    support.set_pools(state, A, stk=(3, 1))
    state.play(Income(2, 1))
    assert state.phase == Phase.ACTIONS and state.decider == A
    assert support.pools(state, A)[1] == (1, 0)


def displace_a_piece(state: GameState, kind: str = "T") -> None:
    """B displaces A's piece on P-Q:2 of the fixture board with a Trader (A is the active... B is made active)."""
    support.put(state, "P-Q:2", A, kind)
    state.current = B
    pay = "T" if kind == "T" else "TT"
    support.set_pools(state, B, sup=(5, 1))
    state.play(Displace("P-Q:2", "T", pay))
    assert state.phase == Phase.RELOCATE and state.decider == A


def test_m18_f_two_trader_brings_two_extras():
    """M18. F-TWO: A's Trader displaced, A's stock has 3 pieces -> A relocates the Trader and up to 2 extras."""
    state = fixture_tiles({F_TWO: A})
    support.set_pools(state, A, stk=(3, 0))
    displace_a_piece(state)
    census = state.census()
    assert state.rl_extras == 2
    state.play(TakeExtra("T"), A)
    state.play(TakeExtra("T"), A)
    assert state.hand == (0, 0, 0) and of_type(state, TakeExtra) == []
    assert support.pools(state, A)[1] == (1, 0)
    while state.hand:
        state.play(of_type(state, Relocate)[0], A)
    assert state.phase == Phase.ACTIONS and state.decider == B
    assert state.census() == census


def test_m18_without_f_two_one_extra():
    state = fixture_tiles({F_TWO: C})
    support.set_pools(state, A, stk=(3, 0))
    displace_a_piece(state)
    assert state.rl_extras == 1


def test_m19_f_two_merchant_unchanged():
    """M19. F-TWO: A's Merchant displaced -> unchanged: the Merchant and up to 2 extras."""
    state = fixture_tiles({F_TWO: A})
    support.set_pools(state, A, stk=(3, 0))
    displace_a_piece(state, "M")
    assert state.rl_extras == 2 and state.hand == (1,)


def test_m20_f_free_relocates_anywhere_off_the_route():
    """M20. F-FREE: A's Trader displaced; free houses at distance 1 and far away -> A may relocate to either; never
    onto the displacement's route."""
    state = fixture_tiles({F_FREE: A})
    displace_a_piece(state)
    targets = {m.house for m in of_type(state, Relocate)}
    board = state.board
    assert {"Q-R:1", "P-S:1", "K-Y:1", "V-K:3"} <= targets  # distance 1 and distance 5
    assert targets == {board.house_names[h] for h in state.free if board.house_route[h] != board.route("P-Q").index}
    refuse(state, Relocate("P-Q:1", "T"), A)
    before = support.snapshot(state)
    state.play(Relocate("K-Y:2", "T"), A)
    assert support.house_changes(before, state) == {"K-Y:2": (None, (A, "T"))}
    # without the tile: the nearest routes only
    plain = fixture_tiles({F_FREE: C})
    displace_a_piece(plain)
    assert "K-Y:1" not in {m.house for m in of_type(plain, Relocate)}
    refuse(plain, Relocate("K-Y:1", "T"), A)


def test_m20_f_free_and_f_two_combine():
    state = fixture_tiles({F_FREE: A, F_TWO: A})
    support.set_pools(state, A, stk=(2, 0))
    displace_a_piece(state)
    state.play(TakeExtra("T"), A)
    state.play(TakeExtra("T"), A)
    for house in ("K-Y:1", "K-Y:2", "S-U:1"):
        state.play(Relocate(house, "T"), A)
    assert state.phase == Phase.ACTIONS


def test_m21_f_free_keeps_britannias_countries():
    """M21. F-FREE on Britannia: a piece displaced from a Wales route cannot go to Scotland; F-FREE lifts distance
    only."""
    state = britannia(4, emperors_favour=True)
    state.favour = [TILE_OUT] * len(TILE_CODES)
    state.favour[F_FREE] = B
    support.set_office(state, "CDF", 0, A)
    support.put(state, "CON-IOM:3", B)
    state.play(Displace("CON-IOM:3", "T", "T"))
    assert state.phase == Phase.RELOCATE and state.decider == B
    board = state.board
    targets = {m.house for m in of_type(state, Relocate)}
    countries = {board.house_country[support.house(state, h)] for h in targets}
    assert countries == {WALES, ENGLAND}
    assert "CAR-IOM:1" not in targets
    refuse(state, Relocate("CAR-IOM:1", "T"), B)  # Scotland
    far = [h for h in targets if board.distance[board.route("CON-IOM").index][board.house_route[support.house(state, h)]] >= 4]
    assert far, "F-FREE reaches far routes of Wales and England"
    state.play(Relocate(far[0], "T"), B)
    assert board.house_country[support.house(state, far[0])] in (WALES, ENGLAND)
    assert free_houses_of(state, "CAR-IOM")  # Scotland's houses stayed free


def test_m22_f_city_doubles_control():
    """M22. F-CITY: A controls 3 cities at the end -> cities = 12 (not 6)."""
    state = with_tiles(owner={F_CITY: A})
    for code in ("ARN", "PER", "HAN"):
        support.set_office(state, code, 0, A)
    assert final_scores(state)[A].control == 12
    state.favour[F_CITY] = B
    assert final_scores(state)[A].control == 6


def test_m23_f_abil_seven_per_ability():
    """M23. F-ABIL: A has 2 abilities fully developed -> abilities = 14 (not 8)."""
    state = with_tiles(owner={F_ABIL: A})
    support.set_level(state, A, PRIVILEGE, 3)
    support.set_level(state, A, BOOK, 3)
    assert final_scores(state)[A].abilities == 14
    state.favour[F_ABIL] = TILE_DISPLAY
    assert final_scores(state)[A].abilities == 8


# ---------------------------------------------------------------------------------------------- M24 unchanged games


def test_m24_games_without_modules_are_unchanged():
    """M24. Games without any module, seeds fixed -> every move and score identical to the same seeds before the modules
    existed (tests/fixtures/no_modules_games.json, written by the engine of commit ef9378d)."""
    import hashlib
    import json
    from pathlib import Path

    from hansa.core.scoring import final_scores as scores

    data = json.loads((Path(__file__).parent / "fixtures" / "no_modules_games.json").read_text())
    assert len(data["games"]) >= 8
    for case in data["games"]:
        state = GameState.new(case["players"], case["seed"], case["options"])
        rng = random.Random(case["seed"])
        texts = []
        while not state.is_over:
            move = rng.choice(state.legal_moves())
            texts.append(move.text())
            state.play(move)
        digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
        assert (len(texts), digest) == (case["moves"], case["sha256"]), case
        assert [s.total for s in scores(state)] == case["totals"], case
        assert [s.to_json() for s in scores(state)] == case["scores"], case


# ---------------------------------------------------------------------------------------------- M3 promo markers


@pytest.mark.parametrize(
    "supply, words",
    [
        (PROMO[:-1], "not 11"),
        (PROMO[:9] + ["block", "block", "block"], "3 block"),
        (["exchange"] * 3 + [n for n in PROMO if n != "exchange"][:9], "3 exchange"),
        (PROMO[:-1] + ["gold"], "not 'gold'"),
        ("block", "list"),
    ],
)
def test_m25_marker_supply_is_checked(supply: Any, words: str):
    """M25. marker_supply with 11 entries, or 3 block, ... -> refused with a clear error naming the option."""
    with pytest.raises(InvalidOptionError, match="marker_supply") as err:
        GameState.new(3, 1, {"marker_supply": supply})
    assert words in str(err.value)


def test_m25_marker_supply_replaces_the_preset():
    state = GameState.new(3, 1, {"marker_supply": PROMO, "marker_set": "EN16"})
    assert len(state.marker_supply) == 12
    assert sorted(state.marker_supply) == sorted(
        ["extra-office", "swap", "+3", "+4", "improve", "remove3", "exchange", "tribute", "block"].index(n) for n in PROMO
    )
    check_invariants(state)


def exchange_position() -> GameState:
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, EXCHANGE)
    state.used_markers[B] = (PLUS3, IMPROVE)
    return state


def test_m26_exchange_takes_a_used_marker():
    """M26. B has used +3 and Improve; A uses Exchange on B and takes Improve -> A has an unused Improve; B's used markers
    are +3 and Exchange; counts unchanged."""
    state = exchange_position()
    assert set(of_type(state, UseExchange)) == {UseExchange(B, "+3"), UseExchange(B, "improve")}
    counts = [len(state.markers[p]) + len(state.used_markers[p]) for p in range(3)]
    before = support.snapshot(state)
    state.play(UseExchange(B, "improve"))
    assert support.changed(before, state) == {"markers", "used_markers"}
    assert state.markers[A] == (IMPROVE,) and state.used_markers[A] == ()
    assert sorted(state.used_markers[B]) == sorted((PLUS3, EXCHANGE))
    assert [len(state.markers[p]) + len(state.used_markers[p]) for p in range(3)] == counts
    assert state.actions_used == 0
    # usable in the same turn
    assert any(m.text().startswith("use improve") for m in state.legal_moves())


def test_m27_exchange_needs_a_used_marker_elsewhere():
    """M27. Exchange when no other player holds a used marker -> illegal (face-down tile markers do not count)."""
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, EXCHANGE)
    state.used_markers[A] = (PLUS4,)  # A's own used marker is not a target
    state.facedown[B] = (PLUS3, IMPROVE)
    assert of_type(state, UseExchange) == []
    refuse(state, UseExchange(B, "+3"))
    refuse(state, UseExchange(A, "+4"))
    state.used_markers[C] = (PLUS3,)
    refuse(state, UseExchange(C, "improve"))
    refuse(state, UseExchange(7, "+3"))


def tribute_position(owner: int = A) -> GameState:
    """A Tribute of ``owner`` beside Q-R (cities Q and R of the fixture board)."""
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, owner, TRIBUTE)
    state.current = owner
    before = support.pools(state, owner)
    state.play(UseTribute("Q-R"))
    assert state.tributes == ((state.board.route("Q-R").index, owner),)
    assert support.pools(state, owner)[0] == (before[0][0] - 1, before[0][1])
    assert state.markers[owner] == () and state.used_markers[owner] == () and state.actions_used == 0
    return state


def test_m28_tribute_pays_when_another_player_establishes():
    """M28. Tribute on route Q-R by A; C establishes an office in R -> A takes 2 pieces from the stock (A chooses the
    kinds) before play goes on."""
    state = tribute_position()
    support.set_pools(state, A, stk=(3, 2))
    state.play(EndTurn())
    state.play(EndTurn())
    assert state.current == C
    support.fill_route(state, "R-T", C)
    state.play(Claim("R-T", "office", "R"))
    assert state.phase == Phase.TRIBUTE and state.decider == A
    assert set(state.legal_moves()) == {TakeTribute(2, 0), TakeTribute(1, 1), TakeTribute(0, 2)}
    refuse(state, TakeTribute(3, 0), A)
    refuse(state, EndTurn(), C, WrongPlayerError)
    before, census = support.snapshot(state), state.census()
    state.play(TakeTribute(1, 1), A)
    assert support.changed(before, state) == {"sup_t", "sup_m", "stk_t", "stk_m", "phase", "decider"}
    assert support.pools(state, A)[1] == (2, 1)
    assert state.phase == Phase.ACTIONS and state.decider == C and state.tribute_due == ()
    assert state.census() == census


def test_m28_one_kind_in_stock_is_paid_without_asking():
    state = tribute_position()
    support.set_pools(state, A, stk=(1, 0))
    state.play(EndTurn())
    support.fill_route(state, "R-T", B)
    sup = support.pools(state, A)[0]
    state.play(Claim("R-T", "office", "T"))  # an office in T: not a city of Q-R
    assert support.pools(state, A)[0] == sup
    support.fill_route(state, "T-V", B)
    support.fill_route(state, "Q-R", B)
    state.play(Claim("Q-R", "office", "Q"))
    assert state.phase == Phase.ACTIONS and support.pools(state, A) == ((sup[0] + 1, sup[1]), (0, 0))


def test_m29_tribute_pays_its_owner_too():
    """M29. Tribute by A; A establishes an office in Q -> A takes 2 pieces too."""
    state = tribute_position()
    support.set_pools(state, A, stk=(4, 0))
    support.fill_route(state, "P-Q", A)
    (st, sm), _ = support.pools(state, A)
    state.play(Claim("P-Q", "office", "Q"))
    assert state.phase == Phase.ACTIONS
    assert support.pools(state, A)[0] == (st + 2, sm)
    assert support.pools(state, A)[1] == (4 - 2 + 2, 0)  # the claim's other two pieces went to the stock first


def test_m30_a_swap_pays_no_tribute():
    """M30. Tribute: a swap of offices in Q -> no tribute."""
    state = GameState.new(3, 0, {"marker_supply": PROMO}, start_player=0)
    support.give_markers(state, A, TRIBUTE, SWAP_OFFICES)
    state.play(UseTribute("ARN-MUN"))
    support.set_office(state, "ARN", 0, B)
    support.set_office(state, "ARN", 1, A)
    before = support.snapshot(state)
    state.play(Swap("ARN", 1))
    assert support.changed(before, state) == {"offices", "markers", "used_markers"}
    assert state.tribute_due == () and state.phase == Phase.ACTIONS


def test_m30_extra_office_pays_tribute():
    state = GameState.new(3, 0, {"marker_supply": PROMO}, start_player=0)
    support.give_markers(state, B, TRIBUTE)
    state.current = B
    state.play(UseTribute("ARN-MUN"))
    state.current = A
    support.set_pools(state, B, stk=(2, 0))
    support.set_office(state, "ARN", 0, B)
    support.give_markers(state, A, 0)  # Extra office
    support.fill_route(state, "KAM-ARN", A)
    sup_b = support.pools(state, B)[0]
    state.play(Claim("KAM-ARN", "extra", "ARN", "T"))
    assert support.pools(state, B) == ((sup_b[0] + 2, sup_b[1]), (0, 0))


def block_position() -> GameState:
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, BLOCK)
    state.play(UseBlock("P-Q"))
    assert state.blocks == ((state.board.route("P-Q").index, A),)
    state.play(EndTurn())
    assert state.current == B
    return state


def test_m31_block_costs_one_more_piece():
    """M31. Block on route P-Q by A; B places a Trader on P-Q with 2 pieces in supply -> B's supply drops by 2 (one on the
    house, one to the stock)."""
    state = block_position()
    support.set_pools(state, B, sup=(2, 0), stk=(0, 0))
    places = {m for m in of_type(state, Place) if m.house.startswith("P-Q")}
    assert places == {Place(f"P-Q:{i}", "T", "T") for i in (1, 2, 3)}
    refuse(state, Place("P-Q:1", "T"))  # the surcharge must be named
    refuse(state, Place("P-Q:1", "T", "M"))  # no Merchant left to pay with
    refuse(state, Place("Q-R:1", "T", "T"))  # no Block there
    before, census = support.snapshot(state), state.census()
    state.play(Place("P-Q:1", "T", "T"))
    assert support.changed(before, state) == {"houses", "sup_t", "stk_t", "actions_used"}
    assert support.pools(state, B) == ((0, 0), (1, 0))
    assert state.census() == census
    assert parse_move("place T P-Q:1 pay T") == Place("P-Q:1", "T", "T")
    assert move_from_json({"type": "place", "house": "P-Q:1", "piece": "T", "pay": "T"}) == Place("P-Q:1", "T", "T")


def test_m32_block_unpayable_place_is_illegal():
    """M32. Block: B has 1 piece in supply -> Place on P-Q is illegal; Place elsewhere is legal."""
    state = block_position()
    support.set_pools(state, B, sup=(1, 0))
    assert not [m for m in of_type(state, Place) if m.house.startswith("P-Q")]
    assert Place("Q-R:1", "T") in state.legal_moves()
    refuse(state, Place("P-Q:1", "T", "T"))


def test_m33_block_does_not_charge_a_displacement():
    """M33. Block: B displaces A's piece on P-Q -> no surcharge."""
    state = block_position()
    support.put(state, "P-Q:2", A)
    support.set_pools(state, B, sup=(2, 0), stk=(0, 0))
    state.play(Displace("P-Q:2", "T", "T"))
    assert support.pools(state, B) == ((0, 0), (1, 0))


def test_m34_tribute_block_pieces_and_markers_are_counted():
    """M34. Tribute/Block and piece conservation: the markers' Traders counted; the markers count as A's at the end."""
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, TRIBUTE, BLOCK, PLUS3)
    census = state.census()
    state.play(UseTribute("P-Q"))
    state.play(UseBlock("P-Q"))  # beside the same route
    assert state.census() == census
    assert final_scores(state)[A].markers == marker_points(3)
    assert len(state.tributes) == len(state.blocks) == 1


def test_m34_no_trader_no_tribute():
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, TRIBUTE)
    support.set_pools(state, A, sup=(0, 1))
    assert of_type(state, UseTribute) == []
    refuse(state, UseTribute("P-Q"))


def test_two_blocks_add_up():
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, BLOCK, BLOCK)
    state.play(UseBlock("Q-R"))
    state.play(UseBlock("Q-R"))
    support.set_pools(state, A, sup=(2, 1))
    assert {m for m in of_type(state, Place) if m.house == "Q-R:1"} == {
        Place("Q-R:1", "T", "TM"), Place("Q-R:1", "M", "TT")
    }


# ---------------------------------------------------------------------------------------------- notation


@pytest.mark.parametrize(
    "text, move",
    [
        ("tile F-ACT +3 improve", TakeTile("F-ACT", "+3", "improve")),
        ("tile f-act improve +3", TakeTile("F-ACT", "+3", "improve")),
        ("share T", Share("T")),
        ("tribute 1T1M", TakeTribute(1, 1)),
        ("tribute 2T", TakeTribute(2, 0)),
        ("use tribute P-Q", UseTribute("P-Q")),
        ("use block Q-P", UseBlock("P-Q")),
        ("use exchange 2 improve", UseExchange(2, "improve")),
        ("place M P-Q:1 pay MT", Place("P-Q:1", "M", "TM")),
    ],
)
def test_module_moves_text_and_json(text: str, move: Any):
    board = support.fixture_board()
    assert parse_move(text, board) == move
    assert parse_move(move.text(), board) == move
    assert move_from_json(move.to_json(), board) == move


def test_module_moves_are_refused_without_the_modules():
    state = fixture()
    support.give_markers(state, A, PLUS3, IMPROVE)
    refuse(state, TakeTile("F-ACT", "+3", "improve"))
    refuse(state, UseTribute("P-Q"))
    refuse(state, UseExchange(B, "+3"))
    refuse(state, Share("T"))
    refuse(state, TakeTribute(2, 0))


def test_snapshot_round_trip_with_modules():
    state = GameState.new(4, 9, {"missions": True, "emperors_favour": True, "marker_supply": PROMO})
    rng = random.Random(9)
    for _ in range(400):
        if state.is_over:
            break
        state.play(rng.choice(state.legal_moves()))
    again = GameState.from_snapshot(state.to_snapshot())
    assert again == state and again.key() == state.key()
    old = state.to_snapshot()
    for name in ("missions", "favour", "facedown", "tributes", "blocks", "tribute_due", "fav_flags"):
        old.pop(name)
    plain = GameState.new(4, 9)
    snap = plain.to_snapshot()
    for name in ("missions", "favour", "facedown", "tributes", "blocks", "tribute_due", "fav_flags"):
        snap.pop(name)
    assert GameState.from_snapshot(snap) == plain  # a snapshot saved before the modules existed


# ---------------------------------------------------------------------------------------------- M36-M43 (our readings)


def test_m36_four_extra_office_markers_are_too_many():
    """M36. marker_supply with 4 extra-office -> refused (3 remain once a tavern holds the fourth)."""
    supply = ["extra-office"] * 4 + [n for n in PROMO if n != "extra-office"][:8]
    with pytest.raises(InvalidOptionError, match="marker_supply.*4 extra-office"):
        GameState.new(3, 1, {"marker_supply": supply})


def test_m37_exchange_cannot_take_face_down_or_route_markers():
    """M37. Exchange on a seat whose only non-unused markers are face down for a tile or beside routes -> illegal."""
    state = fixture(marker_supply=PROMO, emperors_favour=True)
    support.give_markers(state, A, EXCHANGE)
    state.facedown[B] = (PLUS3, IMPROVE)
    state.tributes = ((0, B),)
    state.blocks = ((1, B),)
    assert of_type(state, UseExchange) == []
    for name in ("+3", "improve", "tribute", "block"):
        refuse(state, UseExchange(B, name))


def test_m38_two_blocks_cost_two_pieces():
    """M38. Two Block markers beside R; B places on R -> B pays 2 extra pieces, both to his stock."""
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, BLOCK, BLOCK)
    state.play(UseBlock("Q-R"))
    state.play(UseBlock("Q-R"))
    state.play(EndTurn())
    support.set_pools(state, B, sup=(2, 1), stk=(0, 0))
    assert {m for m in of_type(state, Place) if m.house == "Q-R:1"} == {
        Place("Q-R:1", "T", "TM"), Place("Q-R:1", "M", "TT")
    }
    refuse(state, Place("Q-R:1", "T", "T"))
    state.play(Place("Q-R:1", "T", "TM"))
    assert support.pools(state, B) == ((0, 0), (1, 1))


def test_m39_a_claim_that_ends_the_game_pays_no_tribute():
    """M39. A claim establishing an office completes the 10th city; a Tribute touches that city -> the game ends; no
    tribute is paid."""
    state = GameState.new(3, 0, {"marker_supply": PROMO}, start_player=0)
    support.give_markers(state, B, TRIBUTE)
    state.current = B
    state.play(UseTribute("KAM-ARN"))
    state.current = A
    state.completed = 9
    for i in range(3):
        support.set_office(state, "ARN", i, C)
    state.completed = 9
    support.fill_route(state, "KAM-ARN", A)
    pools_b = support.pools(state, B)
    support.set_level(state, A, PRIVILEGE, 3)
    state.play(Claim("KAM-ARN", "office", "ARN"))
    assert state.is_over and "cities" in state.end_triggers
    assert support.pools(state, B) == pools_b and state.tribute_due == ()


def test_m40_empty_stock_tribute_pays_nothing():
    """M40. Tribute owner's stock is empty when a tribute is due -> nothing is paid, no question; play goes on."""
    state = tribute_position()
    support.set_pools(state, A, stk=(0, 0))
    supply = support.pools(state, A)[0]
    state.play(EndTurn())
    state.play(EndTurn())
    support.fill_route(state, "R-T", C)
    state.play(Claim("R-T", "office", "R"))
    assert state.phase == Phase.ACTIONS and state.decider == C and state.tribute_due == ()
    assert support.pools(state, A) == (supply, (0, 0))


def test_m42_a_tile_taken_with_a_marker_waiting_on_the_plate():
    """M42. A takes a tile while a replacement marker waits on A's plate -> the turn ends; the marker is placed at this
    end of turn."""
    state = with_tiles()
    grant(state, A, PLUS3, IMPROVE)
    state.plate[A] = (state.marker_supply.pop(),)
    support.clear_markers(state)
    state.play(tile_move("F-ACT", "+3", "improve"))
    assert state.phase == Phase.MARKERS and state.decider == A
    state.play(state.legal_moves()[0])
    assert state.current == B and state.plate[A] == ()


def test_m43_a_claim_leaves_tribute_and_block_beside_the_route():
    """M43. A claims a route with a Tribute, a Block and a bonus marker beside it -> A takes the bonus marker; the Tribute
    and the Block stay."""
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, TRIBUTE, BLOCK)
    state.play(UseTribute("V-K"))
    state.play(UseBlock("V-K"))
    support.set_marker(state, "V-K", PLUS4)
    support.fill_route(state, "V-K", A)
    state.play(Claim("V-K"))
    assert state.markers[A] == (PLUS4,)
    r = state.board.route("V-K").index
    assert state.tributes == ((r, A),) and state.blocks == ((r, A),)


def test_m44_exchange_cannot_take_a_used_exchange():
    """M44 (our reading, §8.10). B's only used marker is an Exchange; A holds an unused Exchange -> Exchange is not
    legal (taking it would change nothing and could repeat without end); with a used +3 beside it only +3 is offered."""
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, EXCHANGE)
    state.used_markers[B] = (EXCHANGE,)
    assert of_type(state, UseExchange) == []
    refuse(state, UseExchange(B, "exchange"))
    state.used_markers[B] = (EXCHANGE, PLUS3)
    assert of_type(state, UseExchange) == [UseExchange(B, "+3")]
    refuse(state, UseExchange(B, "exchange"))
    state.play(UseExchange(B, "+3"))
    assert state.markers[A] == (PLUS3,) and sorted(state.used_markers[B]) == [EXCHANGE, EXCHANGE]


def test_block_without_a_trader_cites_its_own_section():
    """Using a Block marker with no Trader in the supply is refused and the error names §8.8 (Block), not Tribute's §8.7."""
    state = fixture(marker_supply=PROMO)
    support.give_markers(state, A, BLOCK)
    support.set_pools(state, A, sup=(0, state.sup_m[A]))
    assert of_type(state, UseBlock) == []
    with pytest.raises(IllegalMoveError) as info:
        state.play(UseBlock("V-K"))
    assert info.value.rule == "§8.8"
