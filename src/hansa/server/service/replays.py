"""Long answers (``answers.py``): the move log, the score history, the record, hints and replayed positions.

They are built fairly off the event loop and cached within a byte budget.  The log and the history are built and
cached in chunks of CHUNK moves; a position is replayed from the nearest checkpoint (at most CHUNK moves).
"""

from __future__ import annotations

import json
from typing import Any

from ...core.scoring import final_scores, winners
from ...core.state import GameState
from ...record.record import FORMAT as RECORD_FORMAT
from ...record.record import VERSION as RECORD_VERSION
from ...record.record import setup_json
from ..answers import CHUNK, build_hint, build_history_chunk, build_log_chunk, build_position, build_record
from ..errors import ServiceError
from ..live import Credential, LiveGame
from ..store import ENDED
from .base import ServiceBase


class ReplaysMixin(ServiceBase):
    """Long answers, built off the event loop and cached."""

    def _setup(self, live: LiveGame) -> tuple[int, int, dict[str, Any]]:
        game = live.game
        return len(game.names), game.seed, game.options.to_dict()

    @staticmethod
    def _checkpoint(live: LiveGame, k: int) -> int:
        """The latest checkpoint at or before move ``k`` (0: the start of the game).  Every CHUNK moves have one;
        were one missing, an earlier one only costs more replaying."""
        base = (k // CHUNK) * CHUNK
        while base and base not in live.checkpoints:
            base -= CHUNK
        return base

    def _chunk_key(self, live: LiveGame, kind: str, chunk: int) -> tuple[Any, ...]:
        """The cache key of chunk ``chunk`` (moves ``chunk * CHUNK + 1`` ...) of an answer: a complete chunk stays
        valid as the game goes on (until an undo or a reload changes the epoch); the last, partial one is keyed by
        how many moves it holds."""
        end = min(live.version, (chunk + 1) * CHUNK)
        return (live.id, live.epoch, kind, chunk, end)

    async def _log_chunk(self, live: LiveGame, chunk: int, client: str) -> tuple[bytes, ...]:
        key = self._chunk_key(live, "log", chunk)
        hit: tuple[bytes, ...] | None = self.answers.get(key)
        if hit is not None:
            return hit
        start, end = chunk * CHUNK, min(live.version, (chunk + 1) * CHUNK)
        base = self._checkpoint(live, start)
        game = live.game
        players, seed, options = self._setup(live)
        built = await self.builders.run(
            client, build_log_chunk, players, seed, options, live.checkpoints.get(base), live.texts[base:start],
            start, live.texts[start:end], game.movers[start:end], game.move_turns[start:end], live.actors[start:end],
        )
        value = tuple(built)
        if key == self._chunk_key(live, "log", chunk):  # the game did not change under it
            self.answers.put(key, value)
        return value

    async def move_log(self, live: LiveGame, start: int, limit: int, client: str) -> bytes:
        """Moves ``start + 1`` ... ``start + limit`` of the game with their seat, turn, JSON form, delta and the kind
        of token that made them (public information only), as JSON: ``{moves, start, log, next}``."""
        total = live.version
        start = min(max(0, start), total)
        end = min(total, start + limit)
        entries: list[bytes] = []
        for chunk in range(start // CHUNK, (end - 1) // CHUNK + 1 if end > start else start // CHUNK):
            part = await self._log_chunk(live, chunk, client)
            first = chunk * CHUNK
            entries.extend(part[max(0, start - first):end - first])
        nxt = end if end < total else None
        head = f'{{"moves":{total},"start":{start},"next":{json.dumps(nxt)},"log":['.encode()
        return head + b",".join(entries) + b"]}"

    async def history(self, live: LiveGame, start: int, limit: int, client: str) -> bytes:
        """In-game scores after moves ``start`` ... (``start`` 0: the start of the game), and the final score
        breakdown once the game is over: ``{moves, start, turns, final, next}``."""
        total = live.version
        start = min(max(0, start), total)
        end = min(total, start + limit)  # entries for moves start+1 .. end, and move 0 when start is 0
        entries: list[bytes] = []
        if start == 0:
            entries.append(json.dumps({"n": 0, "turn": 1, "move": None, "scores": live.scores[0]},
                                      separators=(",", ":")).encode())
        game = live.game
        for chunk in range(start // CHUNK, (end - 1) // CHUNK + 1 if end > start else start // CHUNK):
            key = self._chunk_key(live, "history", chunk)
            part: tuple[bytes, ...] | None = self.answers.get(key)
            if part is None:
                a, b = chunk * CHUNK, min(total, (chunk + 1) * CHUNK)
                part = tuple(await self.builders.run(
                    client, build_history_chunk, a, live.texts[a:b], game.move_turns[a:b], live.scores[a + 1:b + 1],
                ))
                if key == self._chunk_key(live, "history", chunk):
                    self.answers.put(key, part)
            first = chunk * CHUNK
            entries.extend(part[max(0, start - first):end - first])
        final = None
        if game.state.is_over:
            final = [s.to_json() for s in final_scores(game.state)]
        nxt = end if end < total else None
        head = (f'{{"moves":{total},"start":{start},"next":{json.dumps(nxt)},'
                f'"final":{json.dumps(final, separators=(",", ":"))},"turns":[').encode()
        return head + b",".join(entries) + b"]}"

    async def record_json(self, live: LiveGame, client: str) -> bytes:
        """The game record; while the game runs, without the seed (published at the end) unless it is public.
        Built off the event loop and cached per revision of the game."""
        key = (live.id, live.epoch, "record", live.version, live.seed_shown, live.status)
        text: bytes | None = self.answers.get(key)
        if text is None:
            game = live.game
            state = game.state
            result: dict[str, Any] = {"over": state.is_over, "moves": live.version, "turn": state.turn}
            if state.is_over:
                scores = final_scores(state)
                result.update(end_triggers=list(state.end_triggers), scores=[s.to_json() for s in scores],
                              winners=winners(state, scores))
            elif live.status in ENDED:
                result["ended"] = {"status": live.status, "note": live.status_note}
            record = {
                "format": RECORD_FORMAT, "version": RECORD_VERSION, "players": list(game.names),
                "seed": game.seed if live.seed_shown else None, "options": game.options.changed(),
                "start_player": game.start_player_override, "moves": list(live.texts), "result": result,
            }
            if game.options.missions or game.options.emperors_favour:  # mission cards stay secret while it runs
                first = GameState.new(len(game.names), game.seed, game.options, start_player=game.start_player_override)
                record["setup"] = setup_json(first, secret=not (state.is_over or live.status in ENDED))
            text = await self.builders.run(client, build_record, record)
            self.answers.put(key, text)
        return text

    async def hint(self, game_id: str, token: Credential, client: str) -> bytes:
        """The heuristic bot's move for the seat that must decide, for that seat's player (``hints.py``)."""
        live = await self.get(game_id)
        self._check_running(live)
        decider = live.game.state.decider
        if decider not in live.seats_of(token):
            raise ServiceError(403, "hints are for the player who must decide")
        if not live.table.get("hints", True):
            raise ServiceError(409, "hints are off in this game (chosen at its creation)")
        key = (live.id, live.epoch, "hint", live.version)
        answer: bytes | None = self.answers.get(key)
        if answer is None:
            snapshot = json.dumps(live.game.state.to_snapshot(), separators=(",", ":"))
            answer = await self.builders.run(
                client, build_hint, snapshot, (live.game.seed or 0) + live.version, live.version,
            )
            self.answers.put(key, answer)
        return answer

    async def replay_at(self, live: LiveGame, k: int, client: str) -> bytes:
        """The public position after move ``k``, replayed off the event loop from the nearest checkpoint (at most
        CHUNK moves) and cached."""
        total = live.version
        if not 0 <= k <= total:
            raise ServiceError(404, f"move {k} does not exist (the game has {total} moves)")
        key = (live.id, live.epoch, "replay", k, total if k == total else -1)
        hit: bytes | None = self.answers.get(key)
        if hit is not None:
            return hit
        base = self._checkpoint(live, k)
        players, seed, options = self._setup(live)
        answer = await self.builders.run(
            client, build_position, players, seed, options, live.checkpoints.get(base), live.texts[base:k], k, total,
            live.texts[k - 1] if k else None,
        )
        self.answers.put(key, answer)
        return answer
