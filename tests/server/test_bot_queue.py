"""The bot-turn queue of the bot workers (``Store.claim_bot_turn``) on PostgreSQL: games with a human first, then
the longest waiting; a claimed turn is leased (nobody else takes it until the lease runs out); claims never wait
for each other (SKIP LOCKED); and a worker plays a claimed turn with the web processes' revision check."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from server_support import POSTGRES_URL, postgres_database

from hansa.core.state import GameState
from hansa.server.botworker import BotWorker
from hansa.server.config import ServerConfig
from hansa.server.db import make_engine, migrate, utcnow
from hansa.server.store import Store

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="HANSA_TEST_POSTGRES_URL is not set")


def insert(store: Store, game_id: str, players: list[dict[str, Any]], age: float) -> None:
    state = GameState.new(len(players), seed=4)
    moment = utcnow() - timedelta(seconds=age)
    store.insert_game({
        "id": game_id, "seed": 4, "options": {},
        "players": [{"token_hash": None, "colour": c, **p} for p, c in zip(players, ("red", "blue", "green"))],
        "table_options": {}, "hotseat_hash": "x", "creator_hash": None, "seed_public": False, "status": "running",
        "status_note": None, "version": 0, "turn": 1, "snapshot": state.to_snapshot(), "bot_turn": True,
        "created_at": moment, "updated_at": moment, "clock": None, "deadline": None,
        "has_human": any(p["type"] == "human" for p in players),
    })


BOT = {"name": "B", "type": "bot", "bot": "purpose"}
HUMAN = {"name": "H", "type": "human", "bot": None}


@pytest.fixture
def store() -> Store:
    engine = make_engine(postgres_database())
    migrate(engine)
    return Store(engine)


def test_human_games_first_then_the_longest_waiting_and_leases_hold(store: Store) -> None:
    insert(store, "old", [BOT, BOT], age=60)
    insert(store, "older", [BOT, BOT], age=120)
    insert(store, "human", [BOT, HUMAN], age=1)  # seed 4: seat 0 (the bot) decides first
    now = utcnow()
    lease = now + timedelta(seconds=30)
    assert store.claim_bot_turn("w1", now, lease, now) == "human"
    assert store.claim_bot_turn("w1", now, lease, now) == "older"
    assert store.claim_bot_turn("w2", now, lease, now) == "old"
    assert store.claim_bot_turn("w2", now, lease, now) is None  # every turn is leased
    later = lease + timedelta(seconds=1)
    assert store.claim_bot_turn("w3", later, later + timedelta(seconds=30), later) == "human"  # the lease ran out
    store.release_bot_turn("human", "w3")
    assert store.claim_bot_turn("w1", later, later, later) == "human"
    # a game is taken only once it has settled for the bots' pause
    insert(store, "fresh", [BOT, HUMAN], age=0)
    now = utcnow()
    assert store.claim_bot_turn("w1", now, now, now - timedelta(seconds=5)) is None


def test_concurrent_claims_skip_each_others_locked_rows(store: Store) -> None:
    for i in range(8):
        insert(store, f"g{i}", [BOT, BOT], age=100 - i)
    now = utcnow()
    claimed: list[str | None] = []
    start = threading.Barrier(8)

    def claim() -> None:
        start.wait()
        claimed.append(store.claim_bot_turn("w", now, now + timedelta(seconds=30), now))

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(c for c in claimed if c) == [f"g{i}" for i in range(8)]  # each game taken once, none missed


def test_a_worker_plays_a_claimed_turn_and_a_changed_game_is_not_overwritten(store: Store) -> None:
    insert(store, "g", [BOT, BOT], age=10)
    worker = BotWorker(store.engine, ServerConfig(bot_delay=0.0), "w")
    assert worker.step() == "g" and worker.played == 1
    stored = store.load("g")
    assert stored is not None and stored.game.state.turn >= 1 and len(stored.game.moves) == 1 and stored.revision == 1
    row = store.load_row("g")
    assert row is not None
    # Another writer changes the game while the worker thinks: the worker's move is dropped, nothing is lost.
    insert(store, "h", [BOT, BOT], age=10)
    original = worker.store.store_move

    def racing(game_id: str, n: int, seat: int, turn: int, text: str, values: dict[str, Any], expected: int,
               *rest: Any) -> int:
        store.store_seats(game_id, {"bot_turn": True}, expected)  # someone else wrote first
        return original(game_id, n, seat, turn, text, values, expected, *rest)

    worker.store.store_move = racing  # type: ignore[method-assign]
    assert worker.step() == "h" and worker.played == 1
    again = store.load("h")
    assert again is not None and len(again.game.moves) == 0 and again.revision == 1
