"""Bots with the Big Box modules (docs/rules.md §8): Mission Cards, Emperor's Favour tiles and the promo markers
Exchange, Tribute and Block.

* every bot finishes games with the modules (base map, 2-4 players; East and Britannia without missions) with only
  legal moves, the invariants holding at the end;
* the strong bots (``heuristic``, ``mcts``) use the modules: tiles, Tribute, Block, Exchange, a Place that pays a
  Block surcharge, F-INC's share and a tribute's mix, counted over games; and a few focused decisions (F-ACT early,
  the best marker to exchange, never declining F-INC's share, a Tribute beside a busy city, a Block beside a rival's
  route, the office in one's own mission city);
* hidden information: no bot reads another seat's mission card (two positions that differ only in those cards get
  the same move from every seeded bot, every level).
"""

from __future__ import annotations

import collections
import itertools
from typing import Any

import pytest

import support
from hansa.bots import clock as bot_clock
from hansa.bots import make_bot
from hansa.core.constants import (
    BLOCK,
    EXCHANGE,
    F_ACT,
    F_INC,
    MISSION_CARDS,
    PLUS4,
    REMOVE3,
    SWAP_OFFICES,
    TILE_CODES,
    TILE_DISPLAY,
    TILE_OUT,
    TRIBUTE,
)
from hansa.core.invariants import check_invariants
from hansa.core.moves import Income, Move
from hansa.core.state import GameState, Phase
from module_play import ALL, PROMO

#: East and Britannia refuse ``missions`` (the cards name base-board cities).
FAVOUR = {"emperors_favour": True, "marker_supply": PROMO}
#: Module decisions counted by :func:`play` (``place+pay`` = a Place that pays a Block surcharge).
MODULE_KINDS = ("tile", "use-tribute", "use-block", "use-exchange", "share", "tribute", "place+pay")


def kind_of(move: Move, phase: Phase) -> str:
    if phase == Phase.SHARE:
        return "share"  # share T / share M / done: the F-INC owner's answer
    if move.type == "place" and getattr(move, "pay", None):
        return "place+pay"
    return move.type


def play(
    state: GameState, seats: list[str], seed: int, limit: int = 20_000
) -> tuple[GameState, collections.Counter[tuple[str, str]]]:
    """Play ``state`` to the end (or ``limit`` moves) with one bot per seat; count each bot's module decisions."""
    bots = [make_bot(spec, seed * 10 + i) for i, spec in enumerate(seats)]
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    for _ in range(limit):
        if state.is_over:
            break
        legal = state.legal_moves()
        seat, phase = state.decider, state.phase
        move = bots[seat].choose(state, legal)
        assert move in legal, f"{seats[seat]} returned {move}, not a legal move"
        kind = kind_of(move, phase)
        if kind in MODULE_KINDS:
            counts[(seats[seat].partition(":")[0], kind)] += 1
        state.play(move)
    return state, counts


def new_game(players: int, seed: int, **options: Any) -> GameState:
    return GameState.new(players, seed, options)


# ---------------------------------------------------------------------------------------------- every bot, every map


@pytest.mark.parametrize(
    "players,options,seats",
    [
        (3, {**ALL, "map": "base"}, ["heuristic", "purpose", "random"]),
        (3, {**ALL, "map": "base"}, ["mcts:iterations=8", "heuristic", "purpose"]),
        (4, {**ALL, "map": "base"}, ["random", "heuristic", "purpose", "heuristic"]),
        (4, {**ALL, "map": "base"}, ["heuristic", "mcts:iterations=8", "heuristic", "purpose"]),
        (4, {**FAVOUR, "map": "east"}, ["heuristic", "purpose", "random", "mcts:iterations=8"]),
        (4, {**FAVOUR, "map": "britannia"}, ["purpose", "heuristic", "mcts:iterations=8", "random"]),
        (2, {**ALL, "two_player_variant": "neutral"}, ["heuristic", "purpose"]),
        (2, {**ALL, "two_player_variant": "pawn"}, ["heuristic", "mcts:iterations=8"]),
    ],
    ids=["base3", "base3-mcts", "base4", "base4-mcts", "east4", "britannia4", "neutral2", "pawn2"],
)
def test_bots_finish_module_games(players: int, options: dict[str, Any], seats: list[str]) -> None:
    state, _ = play(new_game(players, 5, **options), seats, 5)
    assert state.is_over and state.end_triggers
    check_invariants(state)


@pytest.mark.parametrize("options", [ALL, {"marker_supply": PROMO}, {"missions": True}, {"emperors_favour": True}])
def test_uniform_bot_plays_module_games(options: dict[str, Any]) -> None:
    """The uniform bot's games practically never end: it plays 1,500 legal moves of each module combination."""
    state, _ = play(new_game(3, 2, **options), ["uniform", "uniform", "uniform"], 2, limit=1500)
    check_invariants(state)


# ---------------------------------------------------------------------------------------------- the modules in use


def grant(state: GameState, seat: int, *kinds: int) -> None:
    """Give ``seat`` unused markers taken out of the face-down supply (every marker stays accounted for)."""
    for kind in kinds:
        state.marker_supply.remove(kind)
    support.give_markers(state, seat, *kinds)


def with_f_inc_and_tributes(players: int, seed: int) -> GameState:
    """A game with every module in which seat 1 starts with F-INC, and seats 0 and 2 each with a Tribute marker and
    their Merchant in the stock (so that F-INC's share and a tribute's mix are real choices early)."""
    state = new_game(players, seed, **ALL)
    if state.favour[F_INC] == TILE_OUT:  # keep as many tiles in the game as players
        state.favour[state.favour.index(TILE_DISPLAY)] = TILE_OUT
    state.favour[F_INC] = 1
    for seat in (0, 2):
        grant(state, seat, TRIBUTE)
        state.sup_m[seat] -= 1
        state.stk_m[seat] += 1
    check_invariants(state)
    return state


def test_heuristic_uses_every_module() -> None:
    """Over heuristic games with every module (four from the usual start, four with F-INC and Tribute markers dealt
    early) the heuristic takes tiles, puts out Tribute and Block markers, exchanges, pays Block surcharges, answers
    F-INC's share (never declining) and chooses tributes."""
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    for seed in range(4):
        state, c = play(new_game(4, 40 + seed, **ALL), ["heuristic"] * 4, seed)
        assert state.is_over
        counts += c
        state, c = play(with_f_inc_and_tributes(4, 50 + seed), ["heuristic"] * 4, seed)
        assert state.is_over
        counts += c
    used = {kind: counts[("heuristic", kind)] for kind in MODULE_KINDS}
    assert used["tile"] >= 6, used
    assert used["use-tribute"] >= 4 and used["use-block"] >= 2 and used["use-exchange"] >= 4, used
    assert used["place+pay"] >= 1 and used["share"] >= 10 and used["tribute"] >= 2, used


def test_mcts_uses_every_module() -> None:
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    seats = ["mcts:iterations=10", "mcts:iterations=10", "heuristic", "heuristic"]
    for seed in range(2):
        state, c = play(with_f_inc_and_tributes(4, 700 + seed), seats, seed)
        assert state.is_over
        counts += c
    used = {kind: counts[("mcts", kind)] for kind in MODULE_KINDS}
    for kind in ("tile", "use-tribute", "use-block", "use-exchange", "share", "tribute"):
        assert used[kind] >= 1, used


@pytest.mark.parametrize("spec", ["heuristic", "mcts:easy"])
def test_f_act_is_taken_early_with_the_cheapest_markers(spec: str) -> None:
    """Turn 1, every tile on the display, two markers of little use: the bot takes F-ACT (an action more in each of
    its turns to come) and gives up exactly those two."""
    state = support.new_state(4, 3, emperors_favour=True, marker_supply=PROMO)
    state.favour = [TILE_DISPLAY] * len(TILE_CODES)
    grant(state, 0, SWAP_OFFICES, REMOVE3)
    assert make_bot(spec, 1).choose(state).text() == "tile F-ACT swap remove3"


@pytest.mark.parametrize("spec", ["heuristic", "mcts:easy"])
def test_exchange_takes_the_most_useful_used_marker(spec: str) -> None:
    """Seat 1 used a Swap and a +4, seat 2 a Remove 3: the Exchange takes the +4, which the bot then uses."""
    state = support.new_state(3, 3, marker_supply=PROMO)
    grant(state, 0, EXCHANGE)
    for kind in (SWAP_OFFICES, PLUS4, REMOVE3):
        state.marker_supply.remove(kind)
    state.used_markers[1] = (SWAP_OFFICES, PLUS4)
    state.used_markers[2] = (REMOVE3,)
    bot = make_bot(spec, 1)
    first = bot.choose(state)
    assert first.text() == "use exchange 1 +4"
    state.play(first)
    assert bot.choose(state).text() == "use +4"


@pytest.mark.parametrize("spec", ["heuristic", "mcts:easy"])
def test_f_inc_share_is_taken(spec: str) -> None:
    """Seat 0 takes Income; seat 1 (F-INC, Traders in its stock) takes its piece rather than declining."""
    state = support.new_state(3, 3, emperors_favour=True)
    state.favour = [TILE_OUT] * len(TILE_CODES)
    state.favour[F_INC], state.favour[F_ACT] = 1, TILE_DISPLAY
    state.play(next(m for m in state.legal_moves() if isinstance(m, Income)))
    assert state.phase == Phase.SHARE and state.decider == 1
    assert make_bot(spec, 1).choose(state).text() == "share T"


@pytest.mark.parametrize("spec", ["heuristic", "mcts:easy"])
def test_tribute_goes_beside_a_busy_city(spec: str) -> None:
    """Rivals are building on every route into Minden: the Tribute goes beside one of them (Minden's offices will
    be established soon, each paying 2 pieces)."""
    state = support.new_state(3, 3, marker_supply=PROMO)
    grant(state, 0, TRIBUTE)
    board = state.board
    minden = board.city_index["MIN"]
    for r in board.cities[minden].routes:
        for h in board.routes[r].houses[:-1]:
            support.put(state, board.house_names[h], 1 + r % 2)
    move = make_bot(spec, 1).choose(state)
    assert move.type == "use-tribute" and minden in board.route(move.route).cities, move  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", ["heuristic", "mcts:easy"])
def test_block_goes_beside_the_route_a_rival_builds(spec: str) -> None:
    """Seat 1 holds 2 of the 4 houses of Hamburg-Bremen; seat 0, its actions spent, puts its Block beside that route
    (each of seat 1's next two pieces there will cost a piece more), not beside an empty route."""
    state = support.new_state(3, 3, marker_supply=PROMO)
    grant(state, 0, BLOCK)
    for name in support.route_houses(state, "HAM-BRE")[:2]:
        support.put(state, name, 1)
    state.sup_t[1] -= 2
    state.actions_used = state.allowance()
    assert make_bot(spec, 1).choose(state).text() == "use block BRE-HAM"


def mission_claim(card: int) -> GameState:
    """Seat 0 (mission ``card``) has filled Minden-Hannover and may claim an office in either city."""
    state = support.new_state(3, 3, missions=True)
    state.missions = [card] + [c for c in sorted(MISSION_CARDS) if c != card][:2]
    support.fill_route(state, "MIN-HAN", 0)
    support.set_pools(state, 0, sup=(4, 1), stk=(4, 0))
    return state


@pytest.mark.parametrize("spec", ["heuristic", "mcts:easy"])
def test_the_office_goes_to_the_own_mission_city(spec: str) -> None:
    """Card 2 lists Minden, card 4 Hannover: the claim's office follows the bot's own card."""
    assert make_bot(spec, 1).choose(mission_claim(2)).text() == "claim MIN-HAN office MIN"
    assert make_bot(spec, 1).choose(mission_claim(4)).text() == "claim MIN-HAN office HAN"


# ---------------------------------------------------------------------------------------------- hidden information


def other_cards_changed(state: GameState) -> GameState:
    """A copy in which every seat but the decider holds another mission card: cards that were not dealt, so they
    stay distinct, differ from the seat's card before and from the decider's."""
    twin = state.copy()
    me = state.decider
    undealt = [c for c in sorted(MISSION_CARDS) if c not in state.missions]
    twin.missions = list(state.missions)
    for q, card in zip((q for q in range(state.players) if q != me), undealt):
        twin.missions[q] = card
    assert twin.missions[me] == state.missions[me]
    assert all(twin.missions[q] != state.missions[q] for q in range(state.players) if q != me)
    assert len(set(twin.missions)) == state.players
    return twin


def mission_positions() -> list[GameState]:
    """Positions of module games where the decider has a real choice: from heuristic games with every module (3 and
    4 players, early to late), a SHARE decision of F-INC's owner (not the active seat), and the mission claim of
    :func:`mission_claim` (where the bot's own card does decide the move)."""
    out = []
    for players, seed in ((3, 61), (4, 62)):
        state = new_game(players, seed, **ALL)
        bots = [make_bot("heuristic", seed + i) for i in range(players)]
        decisions = 0
        while not state.is_over and len(out) < 4 * (players - 2):
            if len(state.legal_moves()) > 1:
                decisions += 1
                if decisions % 37 == 5:
                    out.append(state.copy())
            state.play(bots[state.decider].choose(state))
    share = support.new_state(3, 4, missions=True, emperors_favour=True)
    share.favour = [TILE_OUT] * len(TILE_CODES)
    share.favour[F_INC], share.favour[F_ACT], share.favour[0] = 2, TILE_DISPLAY, TILE_DISPLAY
    share.play(next(m for m in share.legal_moves() if isinstance(m, Income)))
    assert share.phase == Phase.SHARE
    out.append(share)
    out.append(mission_claim(4))
    return out


@pytest.fixture(scope="module")
def positions() -> list[GameState]:
    return mission_positions()


@pytest.mark.parametrize(
    "spec,count",
    [
        ("uniform", 99), ("random", 99), ("purpose", 99), ("heuristic", 99),
        ("mcts:iterations=30", 99), ("mcts:easy", 4), ("mcts:medium", 2), ("mcts:hard", 2),
    ],
)  # fmt: skip
def test_bots_never_read_another_seats_mission(
    spec: str, count: int, positions: list[GameState], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two positions identical but for the other seats' mission cards: every seeded bot makes the same move in both.
    (The last positions are the SHARE decision and the mission claim, always checked; ``mcts:hard``'s one second is
    counted on a clock that advances 20 ms per reading, so that its search is the same in both.)"""
    if spec == "mcts:hard":
        ticks = itertools.count()
        monkeypatch.setattr(bot_clock, "_now", lambda: 0.02 * next(ticks))
    chosen = positions[: max(0, count - 2)] + positions[-2:] if count < len(positions) else positions
    for state in chosen:
        twin = other_cards_changed(state)
        assert make_bot(spec, 99).choose(state) == make_bot(spec, 99).choose(twin), (spec, state)


def test_the_own_mission_card_does_change_decisions() -> None:
    """The check above is not vacuous: the heuristic's and MCTS's moves depend on their own card."""
    for spec in ("heuristic", "mcts:iterations=30"):
        moves = {make_bot(spec, 99).choose(mission_claim(card)).text() for card in (2, 4)}
        assert moves == {"claim MIN-HAN office MIN", "claim MIN-HAN office HAN"}

