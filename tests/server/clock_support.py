"""A real server (uvicorn, real HTTP) run in a thread of the test process with an injected time source, so that
clock tests move time on instead of sleeping.  SQLite by default, PostgreSQL when HANSA_TEST_POSTGRES_URL is set
and asked for."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import uvicorn
from server_support import free_port

from hansa.server.app import create_app
from hansa.server.config import ServerConfig
from hansa.server.games import GameService

T0 = 1_800_000_000.0


class FakeTime:
    """The server's clock: stands still until the test moves it on."""

    def __init__(self, start: float = T0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class ClockServer:
    """A started server; ``tick()`` runs one pass of its timer at the current fake time."""

    def __init__(self, url: str, time_source: FakeTime, app: Any, server: uvicorn.Server, thread: threading.Thread,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.url = url
        self.time = time_source
        self.app = app
        self.server = server
        self.thread = thread
        self.loop = loop

    @property
    def service(self) -> GameService:
        return self.app.state.service  # type: ignore[no-any-return]

    def tick(self) -> int:
        """One pass of the timer (what the timer task does when a deadline comes): the games it timed out.  The
        server's own timer task may get there first (a move or a new game wakes it), so tests check the game, not
        this count."""
        future = asyncio.run_coroutine_threadsafe(self.service.check_clocks(), self.loop)
        return future.result(30)

    def call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(30)

    def idle(self, game_id: str, timeout: float = 20.0) -> None:
        """Wait until no bot thinks in the game (the bots answer at once: bot_delay 0, cheap levels)."""

        async def busy() -> bool:
            live = self.service.games.get(game_id)
            return bool(live and live.bot_task and not live.bot_task.done())

        deadline = time.monotonic() + timeout
        while self.call(busy()):
            if time.monotonic() > deadline:
                raise AssertionError("the bots did not finish")
            time.sleep(0.02)

    # ------------------------------------------------------------------ HTTP helpers

    def get(self, path: str, token: str | None = None) -> httpx.Response:
        return httpx.get(self.url + path, headers={"X-Hansa-Token": token} if token else {}, timeout=10)

    def post(self, path: str, body: Any, token: str | None = None) -> httpx.Response:
        return httpx.post(self.url + path, json=body, headers={"X-Hansa-Token": token} if token else {}, timeout=10)

    def put(self, path: str, body: Any, token: str | None = None) -> httpx.Response:
        return httpx.put(self.url + path, json=body, headers={"X-Hansa-Token": token} if token else {}, timeout=10)

    def view(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        r = self.get(f"/api/games/{game_id}", token)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    def move(self, game_id: str, token: str, text: str) -> dict[str, Any]:
        r = self.post(f"/api/games/{game_id}/moves", {"move": text}, token)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]


@contextmanager
def clock_server(database_url: str, time_source: FakeTime | None = None, **settings: Any) -> Iterator[ClockServer]:
    """Start the app on ``database_url`` with the fake time; stop it (cleanly) at the end of the block."""
    fake = time_source or FakeTime()
    config = ServerConfig.from_env({"bot_delay": 0.0, "bot_processes": 0, **settings}, environ={})
    app = create_app(database_url, config, now=fake)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    loops: list[asyncio.AbstractEventLoop] = []

    def run() -> None:
        loop = asyncio.new_event_loop()
        loops.append(loop)
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve())

    thread = threading.Thread(target=run, name="clock-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield ClockServer(f"http://127.0.0.1:{port}", fake, app, server, thread, loops[0])
    finally:
        server.should_exit = True
        thread.join(30)


class Receiver:
    """A webhook receiver on ``host`` (a loopback address) collecting the JSON bodies it is sent."""

    def __init__(self, host: str = "127.0.0.2") -> None:
        self.bodies: list[dict[str, Any]] = []
        received = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                length = int(self.headers.get("Content-Length", "0"))
                received.append(json.loads(self.rfile.read(length)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait(self, count: int, timeout: float = 20.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.bodies) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.bodies)} notices arrived, not {count}")
            time.sleep(0.02)
        return self.bodies

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
