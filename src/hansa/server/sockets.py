"""Live views over WebSockets, without letting any client slow down anyone else.

Every socket is a :class:`Subscriber` with its own sender task.  A change of a game only *offers* the new view to
each subscriber (no waiting, no sending, whatever locks the caller holds).  A subscriber's send queue holds at most
two messages: the latest view not yet sent (views replace each other, so a slow reader receives fewer, never a
backlog) and one pong (pings answered together).  A socket that takes longer than ``ws_send_timeout`` to accept a
message is dropped; the browser client reconnects and gets the current view.
What a client sends is limited in size (uvicorn's ``ws_max_size``) and rate (a token bucket per socket: past it
the socket is closed with 1008).  Sockets per game and per client address are capped (429 before the upgrade);
seat holders are admitted to a game even when its spectator places are taken.

Close codes: 4404 unknown game, 4410 the game was deleted, 4408 too slow (reconnect), 1008 too many messages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter, deque
from collections.abc import Callable
from contextlib import suppress

from starlette.websockets import WebSocket, WebSocketDisconnect

from .config import ServerConfig
from .live import with_now
from .ratelimit import RateLimiter

log = logging.getLogger("hansa.server")

BURST = 20.0


class Subscriber:
    """One WebSocket on one game."""

    def __init__(self, ws: WebSocket, game_id: str, seats: tuple[int, ...], client: str, config: ServerConfig,
                 version: Callable[[], int], now: Callable[[], float] = time.time) -> None:
        self.ws = ws
        self.game_id = game_id
        self.seats = seats
        self.client = client
        self.config = config
        self.version = version
        self.now = now
        self.view: str | None = None
        self.pong = False
        self.wake = asyncio.Event()
        self.close_code: int | None = None
        self.close_reason = ""
        self.rate = RateLimiter(config.ws_messages_per_second, BURST)
        #: Chat messages to send, in order (hansa.server.chat); past CHAT_QUEUE the socket is closed to resync.
        self.chat: deque[str] = deque()

    # ------------------------------------------------------------------ offered by the game (never blocks)

    def offer_view(self, text: str) -> None:
        self.view = text
        self.wake.set()

    def offer_chat(self, text: str) -> None:
        """Queue a chat message (every one is sent, in order; a socket that falls CHAT_QUEUE behind reconnects and
        reads the chat again)."""
        if len(self.chat) >= CHAT_QUEUE:
            self.request_close(4408, "too slow: reconnect")
            return
        self.chat.append(text)
        self.wake.set()

    def offer_pong(self) -> None:
        self.pong = True
        self.wake.set()

    def request_close(self, code: int, reason: str) -> None:
        if self.close_code is None:
            self.close_code, self.close_reason = code, reason
        self.wake.set()

    # ------------------------------------------------------------------ the connection's tasks

    async def run(self) -> None:
        """Serve the socket until either side ends it."""
        tasks = [asyncio.create_task(self._send_loop()), asyncio.create_task(self._receive_loop())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with suppress(asyncio.CancelledError, Exception):
                    await task
        if self.close_code is not None:
            # A peer that stopped reading cannot take a close frame either: do not wait for it (the protocol aborts
            # the connection when its buffer stays full).
            with suppress(Exception):
                await asyncio.wait_for(self.ws.close(self.close_code, self.close_reason), 1.0)

    async def _send_loop(self) -> None:
        timeout = self.config.ws_send_timeout
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.close_code is None:
                if self.pong:
                    self.pong = False
                    text = json.dumps({"type": "pong", "version": self.version()})
                elif self.view is not None:
                    text, self.view = with_now(self.view, self.now()), None
                elif self.chat:
                    text = self.chat.popleft()
                else:
                    break
                try:
                    await asyncio.wait_for(self.ws.send_text(text), timeout)
                except TimeoutError:
                    self.request_close(4408, "too slow: reconnect")
                    log.info("dropped a slow WebSocket on game %s from %s", self.game_id, self.client)
                    return
                except Exception:  # noqa: BLE001 - the peer is gone
                    return
            if self.close_code is not None:
                return

    async def _receive_loop(self) -> None:
        while True:
            try:
                message = await self.ws.receive()
            except (WebSocketDisconnect, RuntimeError):
                return
            if message["type"] == "websocket.disconnect":
                return
            if self.rate.take("") > 0:
                self.request_close(1008, "too many messages")
                return
            text = message.get("text")
            if text and '"ping"' in text:
                self.offer_pong()


#: Chat messages a socket may have waiting before it is dropped (it reconnects and reads the chat again).
CHAT_QUEUE = 200


class SocketHub:
    """Every subscriber of every game, with the per-game and per-client counts."""

    def __init__(self, config: ServerConfig, now: Callable[[], float] = time.time) -> None:
        self.config = config
        self.now = now
        self.by_game: dict[str, set[Subscriber]] = {}
        self.by_client: Counter[str] = Counter()
        #: Sockets per game and seats of their token (players are admitted past the per-game cap, up to
        #: ``ws_per_seat`` each).
        self.by_seats: Counter[tuple[str, tuple[int, ...]]] = Counter()

    def refusal(self, game_id: str, client: str, seats: tuple[int, ...]) -> str | None:
        """Why a new socket may not open (None when it may)."""
        if self.by_client[client] >= self.config.ws_per_client:
            return f"this client has {self.config.ws_per_client} WebSockets open (the limit)"
        if seats:
            if self.by_seats[(game_id, seats)] >= self.config.ws_per_seat:
                return f"this seat's link has {self.config.ws_per_seat} WebSockets open on the game (the limit)"
        elif len(self.by_game.get(game_id, ())) >= self.config.ws_per_game:
            return f"this game has {self.config.ws_per_game} WebSockets open (the limit for spectators)"
        return None

    def add(self, sub: Subscriber) -> None:
        self.by_game.setdefault(sub.game_id, set()).add(sub)
        self.by_client[sub.client] += 1
        if sub.seats:
            self.by_seats[(sub.game_id, sub.seats)] += 1

    def remove(self, sub: Subscriber) -> None:
        subs = self.by_game.get(sub.game_id)
        if subs is not None and sub in subs:
            subs.discard(sub)
            if not subs:
                del self.by_game[sub.game_id]
            self.by_client[sub.client] -= 1
            if self.by_client[sub.client] <= 0:
                del self.by_client[sub.client]
            if sub.seats:
                key = (sub.game_id, sub.seats)
                self.by_seats[key] -= 1
                if self.by_seats[key] <= 0:
                    del self.by_seats[key]

    def watched(self, game_id: str) -> bool:
        return bool(self.by_game.get(game_id))

    def publish(self, game_id: str, render: Callable[[tuple[int, ...]], str]) -> None:
        """Offer the game's new view to every subscriber (``render(seats)`` is cached per seats by the caller)."""
        for sub in list(self.by_game.get(game_id, ())):
            sub.offer_view(render(sub.seats))

    def publish_chat(self, game_id: str, text: str) -> None:
        """Offer a chat message (JSON text) to every subscriber of the game."""
        for sub in list(self.by_game.get(game_id, ())):
            sub.offer_chat(text)

    def close_game(self, game_id: str, code: int, reason: str) -> None:
        for sub in list(self.by_game.get(game_id, ())):
            sub.request_close(code, reason)

    def total(self) -> int:
        return sum(len(s) for s in self.by_game.values())
