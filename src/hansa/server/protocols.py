"""uvicorn's HTTP and WebSocket protocols with the limits only the connection layer can enforce.

* :class:`LimitedHttpProtocol` answers 431 (in the API's error format) when a request line and its headers exceed
  ``max_header`` bytes, counting bytes as they arrive, so a client cannot make the server buffer megabytes of headers.
* :class:`LimitedWebSocketProtocol` aborts a connection whose peer stopped reading: when the socket's write buffer
  stays full for ``ws_send_timeout`` seconds, or grows past a bound (a flood of protocol pings whose pongs are never
  read).  ASGI code cannot see the transport, so this lives here; the app's sockets (``sockets.py``) never wait on
  such a peer for long either way.

Both read their limits from ``app_state["hansa_config"]`` (uvicorn passes the lifespan state to every
connection); without it they behave like uvicorn's own protocols with the defaults of :class:`ServerConfig`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .config import ServerConfig

#: A peer whose unread output reaches this many bytes is cut off, whatever it is sending.
MAX_WS_BUFFER = 1 << 20


def _config(app_state: dict[str, Any]) -> ServerConfig:
    config = app_state.get("hansa_config")
    return config if isinstance(config, ServerConfig) else ServerConfig()


class HeadersTooLarge(Exception):
    pass


class LimitedHttpProtocol(HttpToolsProtocol):
    """HTTP/1.1 with a bound on the size of the request head (431 Request Header Fields Too Large)."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any], _loop: Any = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.max_header = _config(app_state).max_header
        self._in_head = False
        self._head_bytes = 0  # bytes seen since the message began, while its head is incomplete
        self._head_exact = 0  # url + header names and values of the current message

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = 0
        self._head_exact = 0

    def on_url(self, url: bytes) -> None:
        self._head_exact += len(url)
        if self._head_exact > self.max_header:
            raise HeadersTooLarge
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_exact += len(name) + len(value) + 4
        if self._head_exact > self.max_header:
            raise HeadersTooLarge
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)  # the parser's callbacks may answer 431 through send_400_response
        if self.transport.is_closing():
            return
        if self._in_head:  # the head is still incomplete after this chunk: count what it holds so far
            self._head_bytes += len(data)
            if self._head_bytes > self.max_header:
                self._send_431()

    def send_400_response(self, msg: str) -> None:
        # httptools wraps an exception raised in a callback (our HeadersTooLarge) into a parser error
        if self._head_exact > self.max_header:
            self._send_431()
            return
        super().send_400_response(msg)

    def _send_431(self) -> None:
        body = json.dumps(
            {"error": f"request line and headers are larger than {self.max_header} bytes", "rule": None}
        ).encode()
        head = (
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"connection: close\r\n\r\n"
        )
        self.transport.write(head + body)
        self.transport.close()
        self._in_head = False


class LimitedWebSocketProtocol(WebSocketsSansIOProtocol):
    """WebSocket connections that cannot hold the server's memory or time: a stalled reader is aborted."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any], _loop: Any = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.stall_timeout = _config(app_state).ws_send_timeout
        self.close_timeout = min(self.close_timeout, self.stall_timeout)  # a peer must answer our close as quickly
        self._stall: asyncio.TimerHandle | None = None

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall is None:
            self._stall = self.loop.call_later(self.stall_timeout, self._abort)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def handle_ping(self) -> None:
        if self.transport.get_write_buffer_size() > MAX_WS_BUFFER:
            self._abort()
            return
        super().handle_ping()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        super().connection_lost(exc)

    def _abort(self) -> None:
        self._stall = None
        if not self.transport.is_closing() or self.transport.get_write_buffer_size():
            self.transport.abort()

