"""A process's copy of a game that fell behind the database (another process wrote first and no change notice has
arrived yet): a move through the stale copy is refused and changes nothing, and the copy loaded again is
pushed to the sockets watching that process, which would otherwise keep showing the old position.  Two real
servers (HTTP and WebSocket) on one SQLite file, which sends no change notices, so the copy stays stale until
the refused write finds it out."""

from __future__ import annotations

import asyncio
from pathlib import Path

import websockets
from clock_support import clock_server
from server_support import next_view

PLAYERS = [{"name": "Ada", "type": "human"}, {"name": "Bea", "type": "human"}, {"name": "Cy", "type": "human"}]


def test_a_stale_copy_refuses_the_move_and_pushes_the_stored_game_to_its_sockets(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    with clock_server(url) as a, clock_server(url) as b:
        r = a.post("/api/games", {"players": PLAYERS, "seed": 4, "table": {"hotseat": True}})
        assert r.status_code == 201, r.text
        game = r.json()
        gid, hot = game["id"], game["hotseat_token"]
        first = a.view(gid, hot)
        places = [m["text"] for m in first["legal"] if m["text"].startswith("place")]

        async def run() -> None:
            ws = await websockets.connect(a.url.replace("http", "ws") + f"/api/games/{gid}/ws", subprotocols=["hansa"])
            try:
                assert (await next_view(ws, 0))["version"] == 0
                # B takes a move; A holds its copy at version 0 and hears nothing (SQLite has no notices).
                taken = await asyncio.to_thread(b.move, gid, hot, places[0])
                assert taken["version"] == 1
                assert (await asyncio.to_thread(a.view, gid, hot))["version"] == 0  # A's copy is stale
                # A move through A's stale copy: its write is refused, A loads the game again and tries the move on
                # it, where the client's version 0 no longer holds: 409, nothing written ...
                refused = await asyncio.to_thread(
                    a.post, f"/api/games/{gid}/moves", {"move": places[1], "version": 0}, hot)
                assert refused.status_code == 409, refused.text
                assert "moved on (version 1, you sent 0)" in refused.json()["error"]
                # ... and the socket on A gets the stored game, B's move in it.
                pushed = await next_view(ws, 1)
                assert pushed["version"] == 1
                assert pushed["state"] == taken["state"]
            finally:
                await ws.close()

        asyncio.run(run())
        stored = b.view(gid, hot)
        assert stored["version"] == 1  # the refused move wrote nothing
        assert a.view(gid, hot)["state"] == stored["state"]  # A serves the stored game again
