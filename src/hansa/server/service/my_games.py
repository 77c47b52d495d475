"""The "my games" summary: the games a client holds seat tokens of, read in one go."""

from __future__ import annotations

from typing import Any

from ..live import my_game_entry
from .base import ServiceBase


class MyGamesMixin(ServiceBase):
    """The "my games" summary."""

    async def my_games(self, entries: list[tuple[str, str]]) -> dict[str, Any]:
        """For each ``(game id, seat token)``: the game's status, whose decision it is, the token's seats and
        their time left.  An unknown game or a token of no seat is reported per entry, never as an error."""
        ids = list(dict.fromkeys(game_id for game_id, _ in entries))
        rows = await self.read(self.store.summaries, ids)
        now = self.now()
        out = []
        for game_id, token in entries:
            live = self.games.get(game_id)
            row = rows.get(game_id)
            if row is None:
                out.append({"id": game_id, "error": "there is no such game"})
                continue
            entry = my_game_entry(row, live, token, now)
            out.append(entry)
        return {"now": now, "games": out}
