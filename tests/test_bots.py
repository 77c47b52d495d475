"""Bots: they finish games with only legal moves, are deterministic for a seed, and never peek at hidden markers.

(The engine raises on any illegal move, so a bot returning one fails these tests.)"""

from __future__ import annotations

import random

import pytest

from hansa.bots import BOT_NAMES, HeuristicBot, make_bot
from hansa.bots.evaluation import Weights, evaluate
from hansa.bots.mcts import MctsBot
from hansa.core.moves import Move
from hansa.core.state import GameState

FAST = ["random", "purpose", "heuristic"]


def play(players: int, seed: int, seats: list[str], options: dict | None = None, limit: int = 200_000) -> tuple[GameState, list[Move]]:
    state = GameState.new(players, seed, options)
    bots = [make_bot(spec, seed * 10 + i) for i, spec in enumerate(seats)]
    moves = []
    while not state.is_over and len(moves) < limit:
        legal = state.legal_moves()
        move = bots[state.decider].choose(state, legal)
        assert move in legal, f"{seats[state.decider]} returned {move}, not a legal move"
        state.play(move)
        moves.append(move)
    return state, moves


@pytest.mark.parametrize(
    "players,options",
    [(2, {"two_player_variant": "neutral"}), (2, {"two_player_variant": "pawn"}), (3, {}), (4, {}), (5, {})],
)
@pytest.mark.parametrize("seed", range(4))
def test_fast_bots_finish_games(players: int, options: dict, seed: int) -> None:
    seats = [FAST[(seed + i) % len(FAST)] for i in range(players)]
    if "random" in seats and players == 2 and options.get("two_player_variant") == "pawn":
        seats = ["heuristic", "purpose"]  # claiming-random pawn games are very long; covered by the property tests
    state, _ = play(players, seed, seats, options)
    assert state.is_over


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_heuristic_self_play_finishes_in_a_realistic_length(players: int) -> None:
    state, moves = play(players, 7, ["heuristic"] * players)
    assert state.is_over
    assert state.turn < 60 * players  # real games last roughly 15-30 rounds


def test_mcts_finishes_a_game() -> None:
    state, _ = play(3, 3, ["mcts:iterations=12", "heuristic", "purpose"])
    assert state.is_over


@pytest.mark.parametrize("spec", ["purpose", "heuristic", "mcts:iterations=20"])
def test_same_seed_same_game(spec: str) -> None:
    limit = 400 if spec.startswith("mcts") else 200_000
    a, moves_a = play(3, 11, [spec, "heuristic", "purpose"], limit=limit)
    b, moves_b = play(3, 11, [spec, "heuristic", "purpose"], limit=limit)
    assert moves_a == moves_b and a.key() == b.key()


def positions(n: int, seed: int) -> list[GameState]:
    """Positions from a heuristic game in which markers are on plates or still hidden in the supply."""
    state = GameState.new(3, seed)
    bots = [HeuristicBot(seed + i) for i in range(3)]
    out = []
    while not state.is_over and len(out) < n:
        if state.marker_supply and len(state.legal_moves()) > 1 and random.Random(len(out) + state.turn).random() < 0.1:
            out.append(state.copy())
        state.play(bots[state.decider].choose(state))
    return out


@pytest.mark.parametrize("spec", ["heuristic", "purpose", "mcts:iterations=25"])
def test_bots_do_not_peek_at_hidden_markers(spec: str) -> None:
    """Permuting the face-down supply and the plates never changes a bot's decision."""
    rng = random.Random(5)
    checked = 0
    for state in positions(12, 21):
        twin = state.copy()
        pool = twin.marker_supply + [m for plate in twin.plate for m in plate]
        if len(set(pool)) < 2:
            continue
        while True:
            rng.shuffle(pool)
            k = len(twin.marker_supply)
            supply = pool[:k]
            plates = []
            for plate in state.plate:
                plates.append(tuple(pool[k : k + len(plate)]))
                k += len(plate)
            if supply != state.marker_supply or plates != state.plate:
                break
        twin.marker_supply = supply
        twin.plate = plates
        assert make_bot(spec, 99).choose(state) == make_bot(spec, 99).choose(twin)
        checked += 1
    assert checked >= 5


def test_bot_specs() -> None:
    for spec in BOT_NAMES:
        assert make_bot(spec, 1).choose(GameState.new(3, 1)) is not None
    assert isinstance(make_bot("mcts:seconds=0.05", 1), MctsBot)
    for bad in ["clever", "mcts:fast", "mcts:iterations=0", "heuristic:3"]:
        with pytest.raises(ValueError):
            make_bot(bad, 1)


def test_mcts_time_budget_is_respected() -> None:
    state = positions(1, 4)[0]
    bot = make_bot("mcts:seconds=0.2", 3)
    assert isinstance(bot, MctsBot)
    bot.choose(state)
    assert 0.15 < bot.last_stats["seconds"] < 0.6
    assert bot.last_stats["iterations"] > 5


def test_evaluation_prefers_own_progress() -> None:
    """Putting a piece on a route of one's own raises one's evaluation; losing it to a rival lowers it."""
    state = GameState.new(3, 2, start_player=0)
    before = evaluate(state)[0]
    state.play(next(m for m in state.legal_moves() if m.text() == "place T GRO-EMD:1"))
    state.play(next(m for m in state.legal_moves() if m.text() == "place T GRO-EMD:2"))
    after = evaluate(state)[0]
    assert after > before


def test_evaluation_penalises_running_out_of_movable_pieces() -> None:
    """Below ``mobile_floor`` movable pieces (supply, stock, routes) each piece lost costs more and more."""
    w = Weights()
    state = GameState.new(3, 2, start_player=0)
    drops = []
    for left in range(w.mobile_floor + 2, -1, -1):
        pos = state.copy()
        pos.sup_t[0], pos.sup_m[0], pos.stk_t[0], pos.stk_m[0] = left, 0, 0, 0
        drops.append(evaluate(pos, w)[0] - evaluate(pos, Weights(stranded=0.0))[0])
    # No penalty at or above the floor, then (floor - mobile)² × stranded.
    assert drops[:3] == [0.0, 0.0, 0.0]
    assert drops[3:] == pytest.approx([-w.stranded * k * k for k in range(1, w.mobile_floor + 1)])


@pytest.mark.parametrize("seed", [44, 49])
def test_heuristic_keeps_pieces_to_end_a_game_it_leads(seed: int) -> None:
    """Against two random bots, a heuristic that took offices with its last movable pieces (``stranded`` = 0) was
    left with nothing that could move a point short of the end, and these games never ended; now they do."""

    def finish(weights: Weights) -> GameState:
        state = GameState.new(3, seed)
        bots = [HeuristicBot(seed * 10, weights=weights), make_bot("random", seed * 10 + 1), make_bot("random", seed * 10 + 2)]
        for _ in range(3000):
            if state.is_over:
                break
            state.play(bots[state.decider].choose(state))
        return state

    assert not finish(Weights(stranded=0.0)).is_over
    state = finish(Weights())
    assert state.is_over and state.end_triggers


@pytest.mark.parametrize("players", [3, 4, 5])
def test_evaluation_office_summary_matches_the_engine(players: int) -> None:
    """The evaluation's one-pass city scan gives the engine's city controllers and largest networks."""
    from hansa.bots.evaluation import largest_network, office_summary

    state = GameState.new(players, 40 + players)
    bots = [make_bot("purpose", i) for i in range(players)]
    checked = 0
    while not state.is_over:
        if state.turn % 3 == 0:
            ctrl, held = office_summary(state)
            assert ctrl == [state.controller(c) for c in range(len(state.board.cities))]
            for p in range(players):
                assert held[p] == {c: k for c, k in enumerate(state.cities_with_office(p)) if k}
                best = max((n for _, n in state.network_components(p)), default=0)
                assert largest_network(state, held[p]) == best
            checked += 1
        state.play(bots[state.decider].choose(state))
    assert checked > 20


@pytest.mark.parametrize("spec", ["heuristic"])
def test_pawn_variant_bots_bring_the_pawn_to_their_full_route(spec: str) -> None:
    """Pawn variant: a full own route three borders from the pawn is claimed in the bot's first turn (a paid
    pawn move, then the claim): the heuristic values its routes by the pawn's reach (without that term it never
    moves the pawn there on purpose)."""
    import support

    state = GameState.new(2, 0, {"two_player_variant": "pawn"}, start_player=0)
    state.play(next(m for m in state.legal_moves() if m.text() == "pawn P05"))  # seat 1 places the pawn
    support.fill_route(state, "ARN-MUN", 0)
    support.set_pools(state, 0, sup=(0, 0), stk=(8, 1))
    bots = [make_bot(spec, 3), make_bot("heuristic", 4)]
    first_turn = state.turn
    own: list[tuple[int, str]] = []
    while state.turn < first_turn + 6 and not state.is_over:
        seat = state.decider
        move = bots[seat].choose(state)
        if seat == 0:
            own.append((state.turn, move.text()))
        state.play(move)
    claim_turns = [turn for turn, text in own if text.startswith("claim ARN-MUN")]
    assert claim_turns, own
    assert any(text.endswith(" paid") for turn, text in own if turn <= claim_turns[0]), own
    if spec == "heuristic":
        assert claim_turns[0] == first_turn, own


def test_heuristic_stall_breaker_only_in_very_long_games() -> None:
    """The progress pressure is zero in games of a realistic length and grows after ``long_game_rounds``."""
    from hansa.bots.evaluation import DEFAULT
    from hansa.bots.heuristic import progress_pressure

    state = GameState.new(2, 0)
    state.turn = int(DEFAULT.long_game_rounds * 2)
    assert progress_pressure(state) == 0.0
    state.turn += 20  # ten more rounds
    assert progress_pressure(state) == pytest.approx(10 * DEFAULT.pressure_per_round)


@pytest.mark.parametrize("spec", ["heuristic", "mcts:iterations=30"])
def test_stall_breaker_gathers_scattered_pieces_onto_a_short_route(spec: str) -> None:
    """A stalled pawn game (far past a real game's length): seat 0 has no supply, no stock and two Traders on two
    different 3-house routes.  The only way forward is one Move action that lifts both and drops them onto an empty
    2-house route, then the claim; a piece-by-piece greedy never finds it (each single step looks worse)."""
    import support
    from hansa.bots.evaluation import DEFAULT

    state = GameState.new(2, 0, {"two_player_variant": "pawn"}, start_player=0)
    state.play(next(m for m in state.legal_moves() if m.text() == "pawn P05"))  # seat 1 places the pawn
    support.put(state, "LUB-HAM:1", 0)
    support.put(state, "GOE-QUE:1", 0)
    support.set_pools(state, 0, sup=(0, 0), stk=(0, 0))
    state.turn = int(DEFAULT.long_game_rounds * 2) + 20  # ten rounds into the stall breaker
    first_turn = state.turn
    bot = make_bot(spec, 5)
    own: list[str] = []
    while state.turn == first_turn and not state.is_over:
        move = bot.choose(state)
        own.append(move.text())
        state.play(move)
    two_house = [r.code for r in state.board.routes if len(r.houses) == 2]
    claimed = [t for t in own if t.startswith("claim ")]
    full = [code for code in two_house if all(state.houses[h] >= 0 and state.houses[h] >> 1 == 0 for h in state.board.route(code).houses)]
    assert claimed or full, own
    assert sum(t.startswith("lift ") for t in own) >= 2, own


def test_public_key_ignores_only_the_hidden_markers() -> None:
    """Determinizations of a position share its public key; a visible change (one more piece) does not."""
    state, _ = play(3, 2, ["heuristic"] * 3, limit=120)
    rng = random.Random(0)
    guesses = [state.determinized(rng) for _ in range(5)]
    assert len({g.key() for g in guesses + [state]}) > 1  # the hidden order does differ
    assert {g.public_key() for g in guesses} == {state.public_key()}
    child = state.copy()
    child.play(child.legal_moves()[0])
    assert child.public_key() != state.public_key()


@pytest.mark.parametrize("players", [3, 4])
def test_memoized_evaluation_equals_a_fresh_one(players: int) -> None:
    """The office facts and claim tables are memoized by office layout: with the memo warm from a whole game,
    every evaluation equals the one computed from scratch (so the memo key misses nothing they depend on)."""
    from hansa.bots import evaluation

    state = GameState.new(players, 11)
    bots = [make_bot("heuristic", 20 + i) for i in range(players)]
    seen = []
    while not state.is_over:
        seen.append(state.copy())
        state.play(bots[state.decider].choose(state))
    warm = [(evaluation.evaluate(s), [evaluation.claim_value(s, p, r) for p in range(players) for r in range(0, len(s.board.routes), 3)]) for s in seen]
    for s, expected in zip(seen, warm):
        evaluation._FACTS.clear()
        fresh = (evaluation.evaluate(s), [evaluation.claim_value(s, p, r) for p in range(players) for r in range(0, len(s.board.routes), 3)])
        assert fresh == expected
