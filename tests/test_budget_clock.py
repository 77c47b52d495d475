"""The bots' budget clock (``hansa.bots.clock``) and the arena's ``--clock``: wall time by default, or the thinking
thread's CPU time, which other work on the machine does not consume."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import pytest

from hansa.arena import ArenaConfig, ArenaError, play_game, read_journal, run_arena
from hansa.bots import clock, make_bot
from hansa.core.state import GameState


def test_cpu_clock_does_not_count_waiting_and_the_block_restores_wall() -> None:
    assert clock.now is not None and clock._now is time.perf_counter
    with clock.using("cpu"):
        assert clock._now is time.thread_time
        w0, c0 = time.perf_counter(), clock.now()
        time.sleep(0.05)
        waited_wall, waited_cpu = time.perf_counter() - w0, clock.now() - c0
    assert waited_wall >= 0.05 and waited_cpu < 0.02
    assert clock._now is time.perf_counter
    with pytest.raises(ValueError, match="wall or cpu"):
        with clock.using("sundial"):
            pass


def test_time_budgets_read_the_budget_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """An mcts budget of 1 s ends after 1 s on the budget clock: with a clock that moves 0.1 s per reading (one
    reading per iteration) it stops after about 8 iterations (it leaves room for two more), however fast the
    machine is."""
    ticks = itertools.count()
    monkeypatch.setitem(clock.CLOCKS, "fake", lambda: next(ticks) * 0.1)
    state = GameState.new(3, seed=5)
    bot = make_bot("mcts:seconds=1", seed=1)
    with clock.using("fake"):
        bot.choose(state)
    stats = bot.last_stats
    assert 5 <= stats["iterations"] <= 10 and 0.5 <= stats["seconds"] <= 1.1


def test_arena_clock_is_validated_recorded_and_part_of_the_games(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="--clock must be wall or cpu"):
        ArenaConfig.build(3, "heuristic,purpose,random", 2, clock="sun")
    config = ArenaConfig.build(3, "mcts:iterations=5,purpose,random", 2, seed=3, clock="cpu")
    assert config.to_json()["clock"] == "cpu" and config.task(1).clock == "cpu"
    journal = tmp_path / "games.jsonl"
    result = run_arena(config, journal=journal)
    # Same seeds, same games: an iteration budget does not depend on the clock, only the timings do.
    wall = run_arena(ArenaConfig.build(3, "mcts:iterations=5,purpose,random", 2, seed=3))
    assert [r.outcome() for r in result.rows] == [r.outcome() for r in wall.rows]
    assert all(s.think_seconds >= 0 for r in result.rows for s in r.seats)
    assert json.loads(journal.read_text().splitlines()[0])["clock"] == "cpu"
    assert len(read_journal(journal, config)) == 2
    with pytest.raises(ArenaError, match="other games"):
        read_journal(journal, ArenaConfig.build(3, "mcts:iterations=5,purpose,random", 2, seed=3))
    # A journal written before --clock existed is a wall-clock run.
    lines = journal.read_text().splitlines()
    head = json.loads(lines[0])
    del head["clock"]
    journal.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    assert len(read_journal(journal, ArenaConfig.build(3, "mcts:iterations=5,purpose,random", 2, seed=3))) == 2


def test_play_game_on_the_cpu_clock_leaves_the_wall_clock_in_place() -> None:
    play_game(ArenaConfig.build(3, "heuristic,purpose,random", 1, seed=2, clock="cpu").task(0))
    assert clock._now is time.perf_counter


def test_openspiel_ismcts_budget_reads_the_budget_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyspiel")
    ticks = itertools.count()
    monkeypatch.setitem(clock.CLOCKS, "fake", lambda: next(ticks) * 0.1)
    bot = make_bot("openspiel-ismcts:seconds=1/horizon=50", seed=1)
    state = GameState.new(3, seed=5)
    with clock.using("fake"):
        move = bot.choose(state)
    assert move in state.legal_moves()
    assert 2 <= bot.last_stats["simulations"] <= 11
