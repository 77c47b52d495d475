"""A process drops its copy of a game when it cannot bring it up to date (another process took a move back, and
the database failed just as this one loaded the game again).  Sockets on that process still watch the game: the
next change notice loads it again and pushes it to them.  Two real servers (HTTP and WebSocket) on one PostgreSQL
database; the failure is one read that raises the driver's OperationalError."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import sqlalchemy.exc
import websockets
from clock_support import clock_server
from server_support import POSTGRES_URL, next_view, postgres_database

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="HANSA_TEST_POSTGRES_URL is not set")

PLAYERS = [{"name": "Ada", "type": "human"}, {"name": "Bea", "type": "human"}, {"name": "Cy", "type": "human"}]


def test_a_watched_game_whose_copy_was_dropped_is_pushed_at_the_next_change() -> None:
    url = postgres_database()
    with clock_server(url) as a, clock_server(url) as b:
        r = a.post("/api/games", {"players": PLAYERS, "seed": 4, "table": {"hotseat": True}})
        assert r.status_code == 201, r.text
        gid, hot = r.json()["id"], r.json()["hotseat_token"]
        places = [m["text"] for m in a.view(gid, hot)["legal"] if m["text"].startswith("place")]
        store = a.service.store
        loads: list[str] = []
        real_load = store.load

        def failing_load(game_id: str) -> Any:
            loads.append(game_id)
            if len(loads) == 1:
                raise sqlalchemy.exc.OperationalError("SELECT ...", {}, Exception("the database went away"))
            return real_load(game_id)

        async def run() -> None:
            ws = await websockets.connect(a.url.replace("http", "ws") + f"/api/games/{gid}/ws", subprotocols=["hansa"])
            try:
                assert (await next_view(ws, 0))["version"] == 0
                first = await asyncio.to_thread(b.move, gid, hot, places[0])
                assert (await next_view(ws, 1))["state"] == first["state"]  # A follows B's move (its notice)
                store.load = failing_load  # type: ignore[method-assign]
                # B takes the move back: A's copy cannot be caught up (its last move is gone) and loading the game
                # again fails, so A drops its copy; the socket on A has nothing new to show yet.
                back = await asyncio.to_thread(b.post, f"/api/games/{gid}/undo", {"version": 1}, hot)
                assert back.status_code == 200, back.text
                for _ in range(200):
                    if loads and gid not in a.service.games:
                        break
                    await asyncio.sleep(0.05)
                assert loads == [gid] and gid not in a.service.games
                # The next change on B: A loads the game again for its socket and pushes it.
                second = await asyncio.to_thread(b.move, gid, hot, places[1])
                pushed = await next_view(ws, second["version"], timeout=20)
                assert pushed["version"] == second["version"] == 1
                assert pushed["state"] == second["state"] != first["state"]
            finally:
                await ws.close()

        asyncio.run(run())
        assert a.view(gid, hot)["state"] == b.view(gid, hot)["state"]
