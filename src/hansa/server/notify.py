"""Change notifications between server processes on one PostgreSQL database (LISTEN/NOTIFY).

Every write of a game sends ``NOTIFY hansa_games, '<game id> <revision> <origin>'`` in its own transaction, so
the notice goes out exactly when the change is committed, in commit order.  Each process listens on one
connection of its own; a notice about a game it holds in memory at an older revision makes it load the game again
and push the new views to its WebSockets.  A process ignores its own notices (``origin``).

A notice can be lost only while the listening connection is down; after reconnecting, the process therefore
checks every game it holds (``on_reconnect``).  SQLite has one process and no notices.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sqlalchemy.engine import Engine

from .store import CHANNEL

log = logging.getLogger("hansa.server")


def conninfo(engine: Engine) -> str:
    """The libpq connection string of a ``postgresql+psycopg://`` engine."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


def parse(payload: str) -> tuple[str, int, str] | None:
    """``(game id, revision, origin)`` of a notice; None for anything else on the channel."""
    parts = payload.split(" ")
    if len(parts) != 3:
        return None
    try:
        return parts[0], int(parts[1]), parts[2]
    except ValueError:
        return None


async def listen(
    dsn: str, on_change: Callable[[str, int, str], None], on_reconnect: Callable[[], None],
    closing: Callable[[], bool], ready: asyncio.Event | None = None, channel: str = CHANNEL,
) -> None:
    """Listen on ``channel`` until ``closing()``: ``on_change(game_id, number, origin)`` for every notice (a game's
    revision on the games' channel, a chat message's number on the chat's); ``on_reconnect()``
    each time the connection is (re)established after a failure.  Reconnects with backoff (0.5 s doubling to
    10 s)."""
    import psycopg

    delay = 0.5
    first = True
    while not closing():
        try:
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
                await conn.execute(f"LISTEN {channel}")
                if not first:
                    log.info("listening for game changes again")
                    on_reconnect()
                first = False
                delay = 0.5
                if ready is not None:
                    ready.set()
                async for notice in conn.notifies():
                    change = parse(notice.payload)
                    if change is not None:
                        on_change(*change)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the database went away: listen again when it is back
            log.warning("game change notifications interrupted (%s); reconnecting in %.1f s",
                        str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__, delay)
            first = False
            await asyncio.sleep(delay)
            delay = min(10.0, delay * 2)
