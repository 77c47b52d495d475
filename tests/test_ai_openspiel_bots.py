"""OpenSpiel's ISMCTS and MCTS as arena bots (``openspiel-ismcts:...``, ``openspiel-mcts:...``): specs, legal moves
in whole arena games, Move 3's two-step shift, the time budget, reproducibility for a seed, and no sight of the
hidden markers."""

from __future__ import annotations

import math
import random
import time
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from hansa.ai.openspiel_bots import OpenSpielBot, RolloutEvaluator  # noqa: E402
from hansa.ai.openspiel_game import HansaGame, HansaState  # noqa: E402
from hansa.arena import ArenaConfig, run_arena  # noqa: E402
from hansa.bots import bot_spec_ok, make_bot  # noqa: E402
from hansa.bots.base import Bot  # noqa: E402
from hansa.bots.heuristic import HeuristicBot  # noqa: E402
from hansa.core.constants import MISSION_CARDS  # noqa: E402
from hansa.core.moves import Exchange, Move, Shift  # noqa: E402
from hansa.core.position import Phase  # noqa: E402
from hansa.core.scoring import final_scores  # noqa: E402
from hansa.core.state import GameState  # noqa: E402

CHEAP = "simulations=3/horizon=40"


@pytest.mark.parametrize(
    "spec",
    ["openspiel-ismcts:seconds=0.5", "openspiel-mcts:seconds=2", "openspiel-ismcts:simulations=50/c=1.5/rollouts=2",
     "openspiel-mcts:simulations=10/horizon=200", "openspiel-ismcts",
     "openspiel-ismcts:seconds=0.1/rollout=heuristic/horizon=20/scale=5/final=visits",
     "openspiel-mcts:seconds=0.1/rollout=uniform"],
)
def test_specs_accepted(spec: str) -> None:
    assert bot_spec_ok(spec)
    assert make_bot(spec, 1).name == spec


@pytest.mark.parametrize(
    "spec",
    ["openspiel-ismcts:seconds=0", "openspiel-mcts:seconds=-1", "openspiel-ismcts:depth=3", "openspiel-mcts:seconds=x",
     "openspiel-ismcts:seconds=1/simulations=5", "openspiel-alphazero:seconds=1", "openspiel-mcts:seconds=99999",
     "openspiel-mcts:rollout=mcts", "openspiel-ismcts:rollout=", "openspiel-ismcts:final=best", "openspiel-mcts:scale=0"],
)
def test_bad_specs_refused(spec: str) -> None:
    assert not bot_spec_ok(spec)
    with pytest.raises(ValueError):
        make_bot(spec, 1)


def test_arena_games_beside_hansa_bots() -> None:
    """A short arena of every kind of seat: every decision is legal (the arena plays it through the engine), and the
    OpenSpiel bots' choices are recorded like any bot's."""
    config = ArenaConfig.build(
        3, f"heuristic,openspiel-ismcts:{CHEAP},openspiel-mcts:{CHEAP}", games=2, seed=4, max_moves=120,
    )
    result = run_arena(config)
    assert len(result.rows) == 2
    for row in result.rows:
        assert row.moves == 120 or row.finished
        for seat in row.seats:
            assert seat.decisions > 0
    # Two-player pawn variant too (the pawn moves and setup are actions like any other).
    config = ArenaConfig.build(2, f"openspiel-ismcts:{CHEAP},random", games=1, seed=2, max_moves=80,
                               variant="pawn")
    assert run_arena(config).rows[0].moves > 0


def _shift_position() -> GameState:
    """A position of a game played by the heuristic bot where Remove 3 (move mode) offers shifts."""
    for seed in range(200):
        state = GameState.new(3, seed, {"remove3_mode": "move", "marker_set": "BB15"})
        bot = HeuristicBot(seed)
        for _ in range(1500):
            if state.is_over:
                break
            legal = state.legal_moves()
            if any(isinstance(m, Shift) for m in legal):
                return state
            state.play(bot.choose(state, legal))
    raise AssertionError("no shift position found")


@pytest.mark.parametrize("kind", ["ismcts", "mcts"])
def test_two_step_shift(kind: str) -> None:
    state = _shift_position()
    legal = state.legal_moves()
    chosen = [make_bot(f"openspiel-{kind}:{CHEAP}", seed).choose(state.copy(), legal) for seed in range(8)]
    assert all(m in legal for m in chosen)
    assert any(isinstance(m, Shift) for m in chosen)  # the shift-from / shift-to pair became one Shift move


def test_time_budget_is_kept() -> None:
    state = GameState.new(3, 11)
    for kind in ("ismcts", "mcts"):
        bot = make_bot(f"openspiel-{kind}:seconds=0.3/horizon=60", 3)
        spent = []
        for _ in range(4):
            t0 = time.perf_counter()
            state.play(bot.choose(state))
            spent.append(time.perf_counter() - t0)
        # Both stop at their deadline (plus the simulation under way).
        assert 0.2 < sum(spent[1:]) / 3 < 0.6, (kind, spent)
        assert bot.last_stats["simulations"] >= 2


def _mid_game(seed: int) -> GameState:
    state = GameState.new(3, seed)
    bot = HeuristicBot(seed)
    for _ in range(90):
        state.play(bot.choose(state))
    return state


@pytest.mark.parametrize("kind", ["ismcts", "mcts"])
def test_same_seed_same_choice_and_hidden_markers_unseen(kind: str) -> None:
    """With a simulation count the bot is reproducible, and it decides the same when only the hidden markers
    (face-down supply, plates) differ: it searches determinized copies, never the real order."""
    state = _mid_game(8)
    other = state.determinized(random.Random(99))
    assert other.marker_supply != state.marker_supply or other.plate != state.plate
    spec = f"openspiel-{kind}:simulations=12/horizon=40"
    first = make_bot(spec, 5).choose(state.copy())
    assert make_bot(spec, 5).choose(state.copy()) == first
    assert make_bot(spec, 5).choose(other) == first


@pytest.mark.parametrize("kind", ["ismcts", "mcts"])
def test_expansion_map_and_two_step_exchange(kind: str) -> None:
    """On East the bots play through the East game (its own action index); in a permanent marker's decision their
    exchange-from / exchange-to pair becomes one legal Exchange."""
    state = GameState.new(3, 5, {"map": "east"})
    bot = make_bot(f"openspiel-{kind}:{CHEAP}", 1)
    played = state.copy()
    for _ in range(6):
        move = bot.choose(played)
        assert move in played.legal_moves()
        played.play(move)
    setup = HeuristicBot(1)  # the claim below needs a position where the active player has an action left
    for _ in range(6):
        state.play(setup.choose(state))
    board = state.board
    p = state.current
    for h in board.route("WIS-STR").houses:  # the active player claims Wismar-Stralsund: move any 2
        state.houses[h] = p * 2 + int(board.house_ship[h])
    state._reindex()
    state.play(next(m for m in state.legal_moves() if getattr(m, "route", None) == "WIS-STR"))
    assert state.phase == Phase.PERMANENT
    legal = state.legal_moves()
    assert any(isinstance(m, Exchange) for m in legal)
    chosen = [make_bot(f"openspiel-{kind}:{CHEAP}", seed).choose(state.copy(), legal) for seed in range(12)]
    assert all(m in legal for m in chosen)
    assert any(isinstance(m, Exchange) for m in chosen)  # the exchange-from / exchange-to pair became one Exchange


class _First(Bot):
    """Plays the first legal move."""

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        return (legal or state.legal_moves())[0]


class _Leaky(OpenSpielBot):
    """The bot as it would be if it searched the real position: no determinization, the real face-down order."""

    def _world(self, state: GameState) -> GameState:
        return state.copy()

    def _resample(self, state: HansaState, player: int) -> Any:
        return state.clone()


def _other_cards_changed(state: GameState) -> GameState:
    """A copy in which every seat but the decider holds another mission card (one nobody was dealt)."""
    twin = state.copy()
    me = state.decider
    undealt = iter(c for c in sorted(MISSION_CARDS) if c not in state.missions)
    twin.missions = [card if q == me else next(undealt) for q, card in enumerate(state.missions)]
    return twin


@pytest.mark.parametrize("kind", ["ismcts", "mcts"])
def test_a_bot_that_saw_the_hidden_state_would_choose_otherwise(kind: str) -> None:
    """The bots never read the hidden state, and the check is not vacuous: with mission cards (whose points count
    in a rollout's final scoring), a variant that searched the real position chooses otherwise in some positions
    when only the other seats' cards (and the face-down order) differ; the bot itself never does."""
    differs = 0
    spec = "simulations=40/horizon=30"
    for seed in range(3, 9):  # positions from move 85 to move 160 of heuristic games
        state = GameState.new(3, seed, {"missions": True})
        bot = HeuristicBot(seed)
        for _ in range(40 + 15 * seed):
            state.play(bot.choose(state))
        assert not state.is_over
        other = _other_cards_changed(state).determinized(random.Random(7), viewer=state.decider)
        other.missions = _other_cards_changed(state).missions
        assert other.missions[state.decider] == state.missions[state.decider] and other.missions != state.missions
        assert (OpenSpielBot.from_spec(kind, spec, 5).choose(state.copy())
                == OpenSpielBot.from_spec(kind, spec, 5).choose(other.copy()))
        if _Leaky.from_spec(kind, spec, 5).choose(state.copy()) != _Leaky.from_spec(kind, spec, 5).choose(other):
            differs += 1
    assert differs >= 1


def test_rollout_evaluator() -> None:
    """Rollouts by ``purpose`` claim routes (uniform ones practically never do); values are win shares at the end of
    the game and a logistic of the final-scoring margin at the horizon; the prior is uniform."""
    game = HansaGame({"players": 3, "max_moves": 3000})
    ps = HansaState(game, _mid_game(8))
    rng = np.random.RandomState(0)
    scores_before = sum(ps.gs.score)
    claimed = {}
    for spec in ("purpose", "uniform"):
        evaluator = RolloutEvaluator(make_bot(spec, 1), horizon=90, scale=3.0, random_state=rng)
        values = evaluator.evaluate(ps)
        assert values.shape == (3,) and all(0.0 < v < 1.0 for v in values)
        assert evaluator.rollout_moves == 90
        gained = 0
        for k in range(5):  # what the rollouts do: points from claims
            gs = ps.gs.copy()
            bot = make_bot(spec, k)
            for _ in range(90):
                gs.play(bot.choose(gs))
            gained += sum(gs.score) - scores_before
        claimed[spec] = gained
    assert claimed["purpose"] > claimed["uniform"]
    assert sum(ps.gs.score) == scores_before  # the leaf itself is not changed
    # At the horizon: each seat's logistic of its final-scoring margin over the best other seat (a rollout policy
    # that plays the first legal move, so the rollout can be replayed here).
    evaluator = RolloutEvaluator(_First(), horizon=7, scale=3.0, random_state=rng)
    leaf = HansaState(game, _mid_game(9))
    values = evaluator.evaluate(leaf)
    after = leaf.gs.copy()
    for _ in range(7):
        after.play(after.legal_moves()[0])
    totals = [s.total for s in final_scores(after)]
    margins = [t - max(u for q, u in enumerate(totals) if q != p) for p, t in enumerate(totals)]
    assert list(values) == pytest.approx([1 / (1 + math.exp(-m / 3.0)) for m in margins])
    assert len(set(margins)) > 1
    # A finished game gives its returns; the prior is uniform over the legal actions.
    done = HansaState(game, GameState.new(3, 1))
    done.moves = done.max_moves
    assert list(evaluator.evaluate(done)) == done.returns()
    prior = evaluator.prior(ps)
    assert [a for a, _ in prior] == ps.legal_actions() and all(q == pytest.approx(1 / len(prior)) for _, q in prior)
    with pytest.raises(ValueError):
        RolloutEvaluator(make_bot("purpose", 1), horizon=0, scale=3.0, random_state=rng)
