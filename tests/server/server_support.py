"""The server tests' helpers: a real `hansa serve` process (SQLite by default, PostgreSQL when
HANSA_TEST_POSTGRES_URL is set).  A module of its own (not conftest) so that test modules can import it by a name
no other test directory uses."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

HANSA = shutil.which("hansa") or str(Path(sys.executable).parent / "hansa")
POSTGRES_URL = os.environ.get("HANSA_TEST_POSTGRES_URL")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A server process; ``restart()`` and ``kill()`` keep the same database and port."""

    def __init__(self, database_url: str, log: Path, *flags: str, env: dict[str, str] | None = None) -> None:
        self.database_url = database_url
        self.flags = list(flags)
        self.env = env or {}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        out = self.log.open("ab")
        self.proc = subprocess.Popen(
            [HANSA, "serve", "--port", str(self.port), "--database-url", self.database_url,
             "--bot-delay", "0", "--bot-processes", "0", *self.flags],
            stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **self.env},
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if httpx.get(self.url + "/api/bots", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            time.sleep(0.1)
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self) -> None:
        """kill -9: no shutdown code runs."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def restart(self) -> None:
        self.stop()
        self.start()


_CREATED: list[str] = []


def drop_created_databases() -> None:
    """At the end of the test session (tests/server/conftest.py; every pytest-xdist worker runs it for itself, and
    workers end without running atexit handlers): drop the databases this process made (their servers are gone by
    then), so repeated runs do not fill the cluster (hundreds of leftover databases once made a restart's recovery
    take minutes)."""
    if not _CREATED:
        return
    import sqlalchemy

    admin = sqlalchemy.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            while _CREATED:
                conn.execute(sqlalchemy.text(f'DROP DATABASE IF EXISTS "{_CREATED.pop()}" WITH (FORCE)'))
    finally:
        admin.dispose()


def postgres_database() -> str:
    """A fresh database on the PostgreSQL server of HANSA_TEST_POSTGRES_URL, dropped at the end of the session."""
    import sqlalchemy

    assert POSTGRES_URL
    name = "hansa_" + uuid.uuid4().hex[:10]
    admin = sqlalchemy.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sqlalchemy.text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    _CREATED.append(name)
    url = sqlalchemy.engine.make_url(POSTGRES_URL).set(database=name)
    return url.render_as_string(hide_password=False)


async def next_view(ws: Any, version: int, timeout: float = 10.0) -> dict[str, Any]:
    """The first view pushed on the WebSocket ``ws`` at ``version`` or later."""

    seen: list[Any] = []

    async def wait() -> dict[str, Any]:
        while True:
            data = json.loads(await ws.recv())
            seen.append(data["view"]["version"] if data["type"] == "view" else data["type"])
            if data["type"] == "view" and data["view"]["version"] >= version:
                return data["view"]  # type: ignore[no-any-return]

    try:
        return await asyncio.wait_for(wait(), timeout)
    except TimeoutError:
        raise AssertionError(f"no view at version {version} or later in {timeout:g} s; the socket got {seen}") from None


@contextlib.contextmanager
def two_processes(tmp_path: Path, *flags: str) -> Iterator[tuple[Server, Server]]:
    """Two `hansa serve` processes on one fresh PostgreSQL database (the test is skipped without PostgreSQL)."""
    import pytest

    if not POSTGRES_URL:
        pytest.skip("HANSA_TEST_POSTGRES_URL is not set (scripts/test.sh sets it up with Debian's PostgreSQL)")
    url = postgres_database()
    a, b = Server(url, tmp_path / "a.log", *flags), Server(url, tmp_path / "b.log", *flags)
    a.start()
    b.start()
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()
