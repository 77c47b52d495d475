"""Fixtures for the server tests: real `hansa serve` processes (server_support.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from server_support import POSTGRES_URL, Server, drop_created_databases, postgres_database


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Drop the PostgreSQL databases the session's tests made (each xdist worker runs this for its own)."""
    drop_created_databases()


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    if request.param == "postgresql":
        if not POSTGRES_URL:
            pytest.skip("HANSA_TEST_POSTGRES_URL is not set (scripts/test.sh sets it up with Debian's PostgreSQL)")
        url = postgres_database()
    else:
        url = f"sqlite:///{tmp_path / 'hansa.sqlite3'}"
    srv = Server(url, tmp_path / "server.log")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """A factory of started servers on SQLite files in tmp_path: ``make_server("--flag", "value", ...)``."""
    servers: list[Server] = []

    def make(*flags: str, env: dict[str, str] | None = None) -> Server:
        srv = Server(f"sqlite:///{tmp_path / f'hansa{len(servers)}.sqlite3'}", tmp_path / f"server{len(servers)}.log",
                     *flags, env=env)
        servers.append(srv)
        srv.start()
        return srv

    yield make
    for srv in servers:
        srv.stop()


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'hansa.sqlite3'}", tmp_path / "server.log")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def players(server: Server) -> Iterator[Callable[[str], object]]:
    """A factory of signed-up players (test_tables.Player: a cookie jar and its CSRF token) on ``server``."""
    from test_tables import Player

    made: list[Player] = []

    def make(name: str) -> Player:
        p = Player(server, name)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()
