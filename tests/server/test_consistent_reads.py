"""A game is read as one revision even when another process writes it between the reads of its row and its moves
(PostgreSQL's default isolation gives each statement its own snapshot; SQLite reads outside a transaction).  Before
the revision check such a pair looked like a damaged record: a web process loading the game then quarantined a
healthy game, and one bringing its copy up to date dropped it (its sockets went silent)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import POSTGRES_URL, postgres_database
from sqlalchemy import event

from hansa.core.state import GameState
from hansa.server.db import make_engine, migrate, utcnow
from hansa.server.rows import live_from_stored, prepare_move
from hansa.server.store import READ_TRIES, Store, Unsettled

BOTS = [{"name": f"B{i}", "type": "bot", "bot": "purpose", "token_hash": None, "colour": c}
        for i, c in enumerate(("red", "blue", "green"))]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "postgresql":
        if not POSTGRES_URL:
            pytest.skip("HANSA_TEST_POSTGRES_URL is not set")
        engine = make_engine(postgres_database())
    else:
        engine = make_engine(f"sqlite:///{tmp_path / 'hansa.sqlite3'}")
    migrate(engine)
    store = Store(engine)
    state = GameState.new(3, seed=4)
    store.insert_game({
        "id": "g", "seed": 4, "options": {}, "players": BOTS, "table_options": {}, "hotseat_hash": "x",
        "creator_hash": None, "seed_public": False, "status": "running", "status_note": None, "version": 0, "turn": 1,
        "snapshot": state.to_snapshot(), "bot_turn": False, "created_at": utcnow(), "updated_at": utcnow(),
        "clock": None, "deadline": None, "has_human": False,
    })
    for _ in range(3):
        play_one(store)
    yield store
    engine.dispose()


def play_one(store: Store) -> str:
    """Store the first legal move of the game (as a web process or a bot worker would); its text."""
    stored = store.load("g")
    assert stored is not None
    live = live_from_stored(stored, 60.0)
    state = live.game.state
    move = state.legal_moves()[0]
    prepared = prepare_move(live, move, state.decider, time.time())
    store.store_move("g", prepared.n, state.decider, prepared.turn, move.text(), prepared.row, stored.revision)
    return move.text()


def writes_between_the_reads(store: Store, times: int) -> list[str]:
    """Make another writer store a move just before each of the next ``times`` reads of the moves table; the moves
    it stored."""
    played: list[str] = []
    busy = False

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        nonlocal busy
        if busy or len(played) >= times or not statement.lstrip().startswith("SELECT moves.n, moves.text"):
            return
        busy = True
        try:
            played.append(play_one(Store(store.engine)))
        finally:
            busy = False

    event.listen(store.engine, "before_cursor_execute", before)
    return played


def test_a_write_between_row_and_moves_is_read_as_the_newer_revision(store: Store) -> None:
    before = store.load("g")
    assert before is not None and before.revision == 3 and len(before.game.moves) == 3
    played = writes_between_the_reads(store, 2)
    stored = store.load("g")  # would raise Damaged ("the record ... does not match") without the revision check
    assert len(played) == 2
    assert stored is not None and stored.revision == 5 and stored.status == "running"
    assert [m.text() for m in stored.game.moves[3:]] == played


def test_the_tail_of_a_changing_game_is_one_revision(store: Store) -> None:
    played = writes_between_the_reads(store, 1)
    tail = store.load_tail("g", 3)
    assert tail is not None and len(played) == 1
    row, moves = tail
    assert row["revision"] == 4 and row["version"] == 4
    assert [m[0] for m in moves] == [3, 4] and moves[-1][1] == played[0]


def test_a_game_that_never_settles_is_busy_not_damaged(store: Store) -> None:
    played = writes_between_the_reads(store, READ_TRIES)
    with pytest.raises(Unsettled):
        store.load("g")
    assert len(played) == READ_TRIES
    stored = store.load("g")
    assert stored is not None and stored.status == "running" and len(stored.game.moves) == 3 + READ_TRIES
