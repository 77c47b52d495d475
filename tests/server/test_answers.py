"""The long answers' parts on their own (hansa.server.answers): the byte budget, the fair round-robin builders, and
chunks built from a checkpoint agreeing with a replay from the start."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time

import pytest
from test_api import run_coroutine

from hansa.core.state import GameState
from hansa.server.answers import Builders, ByteCache, build_log_chunk, build_position
from hansa.server.errors import ServiceError
from hansa.view import move_delta, public_state


def random_game(players: int, moves: int, seed: int) -> tuple[GameState, list[str], list[GameState]]:
    rng = random.Random(seed)
    state = GameState.new(players, seed)
    texts, states = [], [state.copy()]
    while len(texts) < moves and not state.is_over:
        legal = state.legal_moves()
        claims = [m for m in legal if m.text().startswith("claim")]
        move = rng.choice(claims or legal)
        texts.append(move.text())
        state.play(move)
        states.append(state.copy())
    return state, texts, states


def test_byte_cache_keeps_within_its_budget_and_drops_the_least_recently_used() -> None:
    cache = ByteCache(10_000)
    for i in range(100):
        cache.put(i, b"x" * 1000)
        assert cache.size <= 10_000
    assert cache.get(0) is None and cache.get(99) == b"x" * 1000
    cache.get(95)  # used: kept over 96
    cache.put("big", tuple(b"y" * 1500 for _ in range(3)))
    assert cache.get(95) is not None and cache.get(96) is None and cache.size <= 10_000
    cache.put("huge", b"z" * 20_000)  # larger than the budget: not kept
    assert cache.get("huge") is None and cache.size <= 10_000


def test_chunks_from_a_checkpoint_equal_a_replay_from_the_start() -> None:
    _final, texts, states = random_game(4, 500, 31)
    n = len(texts)
    assert n >= 450
    snapshot = json.dumps(states[200].to_snapshot())
    movers = [states[i].decider for i in range(n)]
    turns = [states[i].turn for i in range(n)]
    actors = ["seat"] * n
    from_checkpoint = build_log_chunk(4, 31, {}, snapshot, [], 200, texts[200:400], movers[200:400], turns[200:400],
                                      actors[200:400])
    # without the checkpoint (a missing one): replaying the first 200 moves first gives the same chunk
    from_start = build_log_chunk(4, 31, {}, None, texts[:200], 200, texts[200:400], movers[200:400], turns[200:400],
                                 actors[200:400])
    assert from_checkpoint == from_start
    entries = [json.loads(b) for b in from_checkpoint]
    assert [e["n"] for e in entries] == list(range(201, 401))
    assert [e["delta"] for e in entries] == [move_delta(states[i], states[i + 1]) for i in range(200, 400)]
    position = json.loads(build_position(4, 31, {}, snapshot, texts[200:333], 333, n, texts[332]))
    assert position["state"] == public_state(states[333]) and position["move"] == texts[332]


def test_builders_share_the_work_fairly_between_clients() -> None:
    """A client with many jobs waiting does not make another client's single job wait behind them all, and a client
    may have only ``per_client`` jobs in the making (429 beyond)."""
    order: list[str] = []
    lock = threading.Lock()

    def job(client: str, i: int) -> str:
        time.sleep(0.02)
        with lock:
            order.append(f"{client}{i}")
        return f"{client}{i}"

    async def scenario() -> tuple[list[str], int]:
        builders = Builders(0, per_client=3)
        builders.start()
        try:
            hog = [asyncio.ensure_future(builders.run("hog", job, "h", i)) for i in range(3)]
            await asyncio.sleep(0)  # the hog's jobs are queued first
            with pytest.raises(ServiceError) as refused:
                await builders.run("hog", job, "h", 99)
            other = asyncio.ensure_future(builders.run("other", job, "o", 0))
            await asyncio.gather(*hog, other)
            return order, refused.value.status
        finally:
            await builders.stop()

    done, status = run_coroutine(scenario())
    assert status == 429
    assert sorted(done) == ["h0", "h1", "h2", "o0"]
    # round-robin: the other client's job comes before the hog's last, not after all of them
    assert done.index("o0") < done.index("h2")
