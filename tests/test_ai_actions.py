"""The action index (hansa.ai.actions): a fixed enumeration per board side whose mask equals ``legal_moves()`` on
every position of random games of every configuration, with Move 3's shift as two decisions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from expansion_play import EXPANSION_CONFIGS, EXPANSION_IDS, sea_claim_positions
from hansa.ai.actions import EXPANSION_FAMILIES, FAMILIES, GREEN_SWAPS, VERSION, ActionIndex
from hansa.bots import ClaimingRandomBot
from hansa.core.board import load_board
from hansa.core.constants import EXTRA_OFFICE, MARKER_PRESETS, TAVERN_MARKERS
from hansa.core.moves import Claim, Develop, Exchange, GreenOffice, Move, Shift, Swap
from hansa.core.position import Phase
from hansa.core.state import GameState

CONFIGS = [
    (2, {"two_player_variant": "neutral"}),
    (2, {"two_player_variant": "pawn"}),
    (2, {"two_player_variant": "pawn", "pawn_free_moves": "beforeAndAfter", "marker_set": "EN16"}),
    (3, {}),
    (3, {"remove3_mode": "move", "marker_set": "BB15"}),
    (4, {"swap_needs_own": False, "remove3_targets": "opponents", "income_up_to": True}),
    (4, {"remove3_mode": "move", "tie_break": "BB", "marker_set": "BB15"}),
    (5, {"marker_set": "PT15"}),
    (5, {"remove3_mode": "move", "marker_set": "BB15"}),
]


TWO_STEP = {"shift-from": "shift-to", "exchange-from": "exchange-to"}


def expected(actions: ActionIndex, moves: list[Move]) -> tuple[set[int], dict[int, set[int]]]:
    """What the mask must hold: one index per move, a shift-from (exchange-from) per shifted (exchanged) piece with
    its shift-tos (exchange-tos)."""
    first: set[int] = set()
    tos: dict[int, set[int]] = {}
    for m in moves:
        ix = actions.indices(m)
        first.add(ix[0])
        if isinstance(m, Shift | Exchange):
            tos.setdefault(ix[0], set()).add(ix[1])
    return first, tos


@pytest.mark.parametrize("side", ["2-3", "4-5", "east", "britannia_3", "britannia_45"])
def test_every_index_decodes_and_encodes_back(side: str) -> None:
    actions = ActionIndex.for_side(side)
    board = load_board(side)
    assert actions.size == sum(len(r) for r in actions.families.values())
    assert len(set(actions.labels)) == actions.size  # every decision is a different one
    spans = sorted(actions.families.values(), key=lambda r: r.start)
    assert spans[0].start == 0 and all(a.stop == b.start for a, b in zip(spans, spans[1:], strict=False))
    names = [name for name, _ in FAMILIES] + ([name for name, _ in EXPANSION_FAMILIES] if board.expansion else [])
    assert list(actions.families) == names
    assert len(actions.families["shift-from"]) == len(actions.families["shift-to"]) == board.house_count
    for first, second in TWO_STEP.items():
        if first not in actions.families or not actions.families[first]:
            continue
        pending = actions.families[first].start
        for i in actions.families[second]:
            move = actions.move(i, pending)
            assert isinstance(move, Shift | Exchange) and actions.indices(move) == (pending, i)
            with pytest.raises(ValueError):
                actions.move(i)
            other = actions.families.get("exchange-from" if first == "shift-from" else "shift-from")
            if other:
                with pytest.raises(ValueError):
                    actions.move(i, other.start)  # a shift-to after an exchange-from, or the other way round
    for i in range(actions.size):
        family = actions.family_of(i)
        if family in TWO_STEP:
            assert actions.move(i) is None
        elif family in TWO_STEP.values():
            continue
        else:
            move = actions.move(i)
            assert move is not None and actions.index(move) == i and move.text() == actions.labels[i]
    with pytest.raises(IndexError):
        actions.move(actions.size)


def test_fingerprint_names_side_and_version_and_refuses_another() -> None:
    small, large = ActionIndex.for_side("2-3"), ActionIndex.for_side("4-5")
    assert small.fingerprint.startswith(f"hansa-actions/{VERSION}/2-3/{small.size}/")
    assert ActionIndex(load_board("4-5")).fingerprint == large.fingerprint  # stable, built from the topology
    large.check(large.fingerprint)
    with pytest.raises(ValueError, match="mismatch"):
        large.check(small.fingerprint)
    assert ActionIndex.for_state(GameState.new(4, seed=1)) is large
    # The base sides' enumeration never changes (trained models depend on it); the expansion maps have their own.
    assert small.fingerprint == "hansa-actions/1/2-3/2810/cc176f9776f8b426"
    assert large.fingerprint == "hansa-actions/1/4-5/2937/e905fdae0b5b7e00"
    prints = {ActionIndex.for_side(side).fingerprint for side in ("east", "britannia_3", "britannia_45")}
    assert len(prints | {small.fingerprint, large.fingerprint}) == 5
    assert ActionIndex.for_state(GameState.new(4, seed=1, options={"map": "britannia"})).side == "britannia_45"
    for side in ("east", "britannia_3"):
        with pytest.raises(ValueError, match="mismatch"):
            ActionIndex.for_side(side).check(small.fingerprint)


def test_every_green_city_swap_has_an_index() -> None:
    """A green city's row grows only by extra-office markers (the most of any marker set, plus the tavern's one) and
    by the office of each *office in a green city* permanent marker (one-time): its longest row's swaps all fit in
    the ``green-swap`` family."""
    board = load_board("east")
    extra_markers = max(counts[EXTRA_OFFICE] for counts in MARKER_PRESETS.values()) + TAVERN_MARKERS.count(EXTRA_OFFICE)
    green_markers = sum(1 for route in board.routes if route.permanent == "office_in_green_city")
    assert (extra_markers, green_markers) == (5, 1)
    longest_row = extra_markers + green_markers
    assert longest_row - 1 <= GREEN_SWAPS  # a swap names the left office of a pair, 1-based
    east = ActionIndex.for_side("east")
    for city in board.green_cities:
        code = board.cities[city].code
        assert all(east.index(Swap(code, i)) >= 0 for i in range(1, longest_row))


def test_expansion_families_name_the_new_moves() -> None:
    east = ActionIndex.for_side("east")
    assert east.labels[east.index(Claim("WAR-WIS", "ability", "WAR", None, "bags"))] == "claim WAR-WIS ability WAR bags"
    assert east.family_of(east.index(Develop("privilege"))) == "develop"
    assert east.family_of(east.index(GreenOffice("BEL", "M"))) == "green-office"
    assert east.family_of(east.index(Swap("WAR", GREEN_SWAPS))) == "green-swap"
    assert len(east.families["green-swap"]) == 3 * GREEN_SWAPS
    start, to = east.indices(Exchange("WIS-STR:2", "WIS-LUB:1"))
    assert east.family_of(start) == "exchange-from" and east.move(start) is None
    assert east.move(to, pending=start) == Exchange("WIS-STR:2", "WIS-LUB:1")
    assert east.pending_exchange(start) == "WIS-STR:2" and east.pending_house(start) is None
    britannia = ActionIndex.for_side("britannia_45")
    assert not britannia.families["develop"] and not britannia.families["green-office"]
    with pytest.raises(ValueError):
        britannia.index(Develop("privilege"))
    with pytest.raises(ValueError):
        ActionIndex.for_side("2-3").indices(Exchange("GRO-EMD:1", "GRO-EMD:2"))


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=[f"{p}p-{i}" for i, (p, _) in enumerate(CONFIGS)])
def test_mask_equals_the_legal_moves_on_every_position(players: int, options: dict) -> None:
    """Random games (claiming random bots, choosing through the index) of every configuration: at every position
    the mask is exactly the legal moves mapped through the index, and each shift-from's mask its destinations."""
    positions = shifts = 0
    for seed in range(3):
        state = GameState.new(players, seed, options)
        actions = ActionIndex.for_state(state)
        bot = ClaimingRandomBot(seed)
        rng = random.Random(seed)
        while not state.is_over and positions < 40_000:
            moves = state.legal_moves()
            first, tos = expected(actions, moves)
            mask = actions.mask(state)
            assert mask.dtype == np.bool_ and mask.shape == (actions.size,)
            assert set(np.flatnonzero(mask).tolist()) == first
            assert np.array_equal(actions.mask(state, moves=moves), mask)  # the caller's legal moves, not made again
            assert actions.legal(state, moves=moves) == sorted(first)
            for src, dst in tos.items():
                assert set(actions.legal(state, src)) == dst
                shifts += 1
            # Play the bot's move through the index half of the time, a random masked action otherwise.
            if rng.random() < 0.5:
                move = bot.choose(state)
                ix = actions.indices(move)
                decoded = actions.move(ix[0]) if len(ix) == 1 else actions.move(ix[1], ix[0])
            else:
                i = int(rng.choice(np.flatnonzero(mask)))
                decoded = actions.move(i)
                if decoded is None:
                    decoded = actions.move(int(rng.choice(actions.legal(state, i))), i)
            assert decoded in moves
            state.play(decoded)
            positions += 1
    assert positions > 300
    if options.get("remove3_mode") == "move":
        assert shifts > 0, "no Move-3 shift was met: the two-step decision went untested"


class SeaRouteBot:
    """Drives games to the expansions' decisions: the permanent markers' choices taken (rarely declined), claims
    of the sea routes (and Waren's) first, pieces put there, income when the supply runs low; random otherwise."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        board = state.board
        rng = self.rng
        if state.phase == Phase.PERMANENT:
            taken = [m for m in moves if m.type != "done"]
            return rng.choice(taken) if taken and rng.random() < 0.9 else moves[-1]
        special = {r.code for r in board.routes if r.permanent or any(len(board.cities[c].abilities) > 1 for c in r.cities)}
        claims = [m for m in moves if isinstance(m, Claim)]
        if claims:
            return rng.choice([m for m in claims if m.route in special] or claims)
        if state.phase == Phase.ACTIONS:
            p = state.current
            if state.sup_t[p] + state.sup_m[p] < 2 and rng.random() < 0.7:
                income = [m for m in moves if m.type == "income"]
                if income:
                    return rng.choice(income)
            near = [m for m in moves if m.type in ("place", "displace") and m.house.rsplit(":", 1)[0] in special]
            if near and rng.random() < 0.85:
                return rng.choice(near)
        return rng.choice(moves)


def check_position(state: GameState, actions: ActionIndex, met: dict[str, int]) -> list[Move]:
    """The mask at ``state`` is exactly its legal moves (and each first step's mask its second steps); counts the
    kinds of legal moves met.  Returns the legal moves."""
    moves = state.legal_moves()
    first, tos = expected(actions, moves)
    mask = actions.mask(state, moves=moves)
    assert set(np.flatnonzero(mask).tolist()) == first, f"phase {state.phase.name}, moves {[m.text() for m in moves]}"
    assert actions.legal(state, moves=moves) == sorted(first)
    for src, dst in tos.items():
        assert set(actions.legal(state, src, moves=moves)) == dst
    for m in moves:
        key = m.type + ("-ability" if isinstance(m, Claim) and m.ability else "")
        met[key] = met.get(key, 0) + 1
    if state.phase == Phase.PERMANENT:
        met["permanent"] = met.get("permanent", 0) + 1
    return moves


def random_masked(actions: ActionIndex, state: GameState, moves: list[Move], rng: random.Random) -> Move:
    """A random action of the mask (a random second step after a first one), decoded."""
    mask = actions.mask(state, moves=moves)
    i = int(rng.choice(np.flatnonzero(mask)))
    move = actions.move(i)
    if move is None:
        move = actions.move(int(rng.choice(actions.legal(state, i, moves=moves))), i)
    assert move is not None
    return move


def rigged_claim(state: GameState, actions: ActionIndex, rng: random.Random, met: dict[str, int]) -> None:
    """A sea route's claim on a copy (tests/expansion_play.py): the mask checked before it (and after each swap in a
    green city), then at every decision of its permanent marker."""
    board = state.board
    for i, rig in enumerate(sea_claim_positions(state, rng)):
        moves = check_position(rig, actions, met)
        if i == 0:
            for m in moves:
                if isinstance(m, Swap) and board.cities[board.city_index[m.city]].green:
                    met["green-swap"] = met.get("green-swap", 0) + 1
                    after = rig.copy()
                    after.play(m)
                    check_position(after, actions, met)


@pytest.mark.parametrize(("players", "options"), EXPANSION_CONFIGS, ids=EXPANSION_IDS)
def test_mask_equals_the_legal_moves_on_the_expansion_maps(players: int, options: dict) -> None:
    """As above on East and both Britannia sides.  The games are played by the claiming random bot and random masked
    actions; at every 15th turn start a copy of the position has the active player claim a sea route with a
    permanent marker (or a route of Waren's) and resolve the marker, so the markers' choices (shifts, exchanges,
    Privilege, green offices, place 2) and Waren's two abilities come up in positions of every stage of a game."""
    met: dict[str, int] = {}
    positions = 0
    for seed in range(3):
        state = GameState.new(players, seed, options)
        actions = ActionIndex.for_state(state)
        assert actions.side == state.board.side
        bot = ClaimingRandomBot(seed)
        rng = random.Random(seed)
        turns = 0
        while not state.is_over and positions < 6000 * (seed + 1):
            moves = check_position(state, actions, met)
            if state.phase == Phase.ACTIONS and state.actions_used == 0:
                turns += 1
                if turns % 15 == 0:
                    rigged_claim(state, actions, rng, met)
            move = bot.choose(state) if rng.random() < 0.5 else random_masked(actions, state, moves, rng)
            ix = actions.indices(move)
            decoded = actions.move(ix[0]) if len(ix) == 1 else actions.move(ix[1], ix[0])
            assert decoded in moves
            state.play(decoded)
            positions += 1
    assert positions > 3000
    want = {"permanent", "shift", "exchange", "claim"}
    want |= {"develop", "green-office", "green-swap", "claim-ability"} if options["map"] == "east" else {"place"}
    assert want <= set(met), f"never met: {want - set(met)}"
