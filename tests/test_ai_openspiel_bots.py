"""OpenSpiel's ISMCTS and MCTS as arena bots (``openspiel-ismcts:...``, ``openspiel-mcts:...``): specs, legal moves
in whole arena games, Move 3's two-step shift, the time budget, reproducibility for a seed, and no sight of the
hidden markers."""

from __future__ import annotations

import random
import time

import pytest

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from hansa.arena import ArenaConfig, run_arena  # noqa: E402
from hansa.bots import bot_spec_ok, make_bot  # noqa: E402
from hansa.bots.heuristic import HeuristicBot  # noqa: E402
from hansa.core.moves import Exchange, Shift  # noqa: E402
from hansa.core.position import Phase  # noqa: E402
from hansa.core.state import GameState  # noqa: E402

CHEAP = "simulations=3/horizon=40"


@pytest.mark.parametrize(
    "spec",
    ["openspiel-ismcts:seconds=0.5", "openspiel-mcts:seconds=2", "openspiel-ismcts:simulations=50/c=1.5/rollouts=2",
     "openspiel-mcts:simulations=10/horizon=200", "openspiel-ismcts"],
)
def test_specs_accepted(spec: str) -> None:
    assert bot_spec_ok(spec)
    assert make_bot(spec, 1).name == spec


@pytest.mark.parametrize(
    "spec",
    ["openspiel-ismcts:seconds=0", "openspiel-mcts:seconds=-1", "openspiel-ismcts:depth=3", "openspiel-mcts:seconds=x",
     "openspiel-ismcts:seconds=1/simulations=5", "openspiel-alphazero:seconds=1", "openspiel-mcts:seconds=99999"],
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
    for _ in range(6):
        move = bot.choose(state)
        assert move in state.legal_moves()
        state.play(move)
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
