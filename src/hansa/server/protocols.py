"""uvicorn's HTTP and WebSocket protocols with the limits only the connection layer can enforce.

* :class:`LimitedHttpProtocol` answers 431 (in the API's error format) when a request line and its headers exceed
  ``max_header`` bytes, counting bytes as they arrive, so a client cannot make the server buffer megabytes of headers;
  408 when a request line and headers do not arrive within ``header_timeout`` seconds (counted from the request's
  first byte, or from the connection's opening for its first request), so half-sent requests cannot hold
  connections open (slowloris); and 429 at once to a connection beyond ``http_per_client`` open at the same time
  from one address (the peer's IP address; trusted proxies, ``forwarded_allow_ips``, are not capped).  A connection
  that became a WebSocket still counts until it closes (the WebSocket protocol releases it), so a client's sockets
  of either kind, a WebSocket lingering in its closing handshake included, stay within ``http_per_client``.
* :class:`LimitedWebSocketProtocol` aborts a connection whose peer stopped reading: when the socket's write buffer
  stays full for ``ws_send_timeout`` seconds, or grows past a bound (a flood of protocol pings whose pongs are never
  read).  ASGI code cannot see the transport, so this lives here; the app's sockets (``sockets.py``) never wait on
  such a peer for long either way.  A text message that is not UTF-8 closes the socket with 1007 and no traceback.

Both read their limits from ``app_state["hansa_config"]`` (uvicorn passes the lifespan state to every
connection); without it they behave like uvicorn's own protocols with the defaults of :class:`ServerConfig`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import math
from functools import lru_cache
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from .config import ServerConfig

log = logging.getLogger("hansa.server")

#: A peer whose unread output reaches this many bytes is cut off, whatever it is sending.
MAX_WS_BUFFER = 1 << 20

#: Connections open per client address in this process (HTTP, and the WebSockets they became; trusted proxies are
#: not counted): the count ``http_per_client`` caps.
_open_connections: dict[str, int] = {}


def _config(app_state: dict[str, Any]) -> ServerConfig:
    config = app_state.get("hansa_config")
    return config if isinstance(config, ServerConfig) else ServerConfig()


class TrustedProxies:
    """The proxies of ``forwarded_allow_ips``: a comma list of IP addresses and networks (``10.0.0.0/8``), ``*`` for
    any peer, empty for none.  Matches uvicorn's own reading of the setting (``ProxyHeadersMiddleware``), so that the
    peers whose ``X-Forwarded-For`` uvicorn honours are exactly those this module does not cap."""

    def __init__(self, spec: str) -> None:
        entries = [e.strip() for e in spec.split(",") if e.strip()]
        self.any = "*" in entries
        self.addresses: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.entries: list[str] = []
        for entry in entries:
            if entry == "*":
                continue
            try:
                if "/" in entry:
                    network = ipaddress.ip_network(entry)
                    self.networks.append(network)
                    self.entries.append(str(network))
                else:
                    address = ipaddress.ip_address(entry)
                    self.addresses.add(address)
                    self.entries.append(str(address))
            except ValueError:
                raise ValueError(f"forwarded_allow_ips: {entry!r} is not an IP address, a network or *") from None
        self.none = not (self.any or self.entries)

    @property
    def uvicorn_value(self) -> str:
        """The setting as uvicorn's ``forwarded_allow_ips`` takes it (it reads ``*`` only on its own)."""
        return "*" if self.any else ",".join(self.entries)

    def __contains__(self, host: object) -> bool:
        if self.any:
            return True
        if self.none or not isinstance(host, str):
            return False
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return ip in self.addresses or any(ip in net for net in self.networks)


@lru_cache(maxsize=16)
def trusted_proxies(spec: str) -> TrustedProxies:
    return TrustedProxies(spec)


def _release(host: str | None) -> None:
    """One connection from ``host`` closed (None: it was not counted)."""
    if host is not None:
        left = _open_connections.get(host, 0) - 1
        if left > 0:
            _open_connections[host] = left
        else:
            _open_connections.pop(host, None)


class HeadersTooLarge(Exception):
    pass


class LimitedHttpProtocol(HttpToolsProtocol):
    """HTTP/1.1 with a bound on the size of the request head (431 Request Header Fields Too Large), on the time it
    may take to arrive (408 Request Timeout) and on the connections open at once from one client (429)."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any], _loop: Any = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        limits = _config(app_state)
        self.max_header = limits.max_header
        self.header_timeout = limits.header_timeout
        self.per_client = limits.http_per_client
        self.trusted = trusted_proxies(limits.forwarded_allow_ips)
        self._in_head = False
        self._head_bytes = 0  # bytes seen since the message began, while its head is incomplete
        self._head_exact = 0  # url + header names and values of the current message
        self._head_timer: asyncio.TimerHandle | None = None
        self._counted: str | None = None  # the address this connection is counted under, until released

    # -- connections per client

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        if host is not None and host not in self.trusted:
            if _open_connections.get(host, 0) >= self.per_client:
                self._send_error(
                    429, f"this client has {self.per_client} connections open (the limit)",
                    [(b"retry-after", str(max(1, math.ceil(self.header_timeout))).encode())],
                )
                return
            _open_connections[host] = _open_connections.get(host, 0) + 1
            self._counted = host
        self._start_head_timer()  # the first request's head must come within header_timeout of the connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        _release(self._counted)
        self._counted = None
        super().connection_lost(exc)

    def handle_websocket_upgrade(self) -> None:
        # uvicorn hands the transport to a new WebSocket protocol object, whose connection_lost is then called instead
        # of ours: the count goes with the connection, and the WebSocket protocol releases it when it closes.
        self._cancel_head_timer()
        host, self._counted = self._counted, None
        try:
            super().handle_websocket_upgrade()
        finally:
            successor = self.transport.get_protocol()
            if isinstance(successor, LimitedWebSocketProtocol):
                successor.counted = host
            else:
                _release(host)

    # -- the time a request head may take

    def _start_head_timer(self) -> None:
        if self._head_timer is None and not self.transport.is_closing():
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if (self.cycle is not None and not self.cycle.response_complete) or self.pipeline or self.flow.read_paused:
            # An earlier request of this connection is still being answered (or the server stopped reading): the
            # wait is the server's, not the client's.  Look again shortly; its answer goes out before any 408.
            self._head_timer = self.loop.call_later(min(1.0, self.header_timeout), self._head_timed_out)
            return
        self._send_error(408, f"the request line and headers did not arrive within {self.header_timeout:g} seconds")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = 0
        self._head_exact = 0
        self._start_head_timer()  # the clock of a later request on a kept-alive connection starts at its first byte

    # -- the size of a request head

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
        self._cancel_head_timer()
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing():  # refused or answered with an error: read nothing more
            return
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
        self._send_error(431, f"request line and headers are larger than {self.max_header} bytes")

    def _send_error(self, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
        """Answer ``status`` in the API's error format and close the connection."""
        body = json.dumps({"error": message, "rule": None}).encode()
        reason = {408: b"Request Timeout", 429: b"Too Many Requests", 431: b"Request Header Fields Too Large"}
        head = [b"HTTP/1.1 %d %s\r\n" % (status, reason.get(status, b"Error")),
                b"content-type: application/json\r\n",
                b"content-length: %d\r\n" % len(body)]
        head += [name + b": " + value + b"\r\n" for name, value in headers or ()]
        head.append(b"connection: close\r\n\r\n")
        self.transport.write(b"".join(head) + body)
        self.transport.close()
        self._in_head = False
        self._cancel_head_timer()


class LimitedWebSocketProtocol(WebSocketsSansIOProtocol):
    """WebSocket connections that cannot hold the server's memory or time: a stalled reader is aborted."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any], _loop: Any = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.stall_timeout = _config(app_state).ws_send_timeout
        self.close_timeout = min(self.close_timeout, self.stall_timeout)  # a peer must answer our close as quickly
        self._stall: asyncio.TimerHandle | None = None
        self.counted: str | None = None  # the client address whose HTTP connection count this upgraded one holds

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

    def send_receive_event_to_app(self) -> None:
        # uvicorn logs a traceback (logger.exception) for every text message that is not UTF-8, which lets a client
        # flood the log: check first, and close with 1007 (invalid frame payload data) with one quiet line instead.
        if self.curr_msg_data_type == "text" and not self.close_sent:
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            try:
                data.decode()
            except UnicodeDecodeError:
                self.frames = []
                log.info("WebSocket from %s sent a text message that is not UTF-8: closed with 1007",
                         self.client[0] if self.client else "?")
                try:
                    self.conn.send_close(1007, "invalid UTF-8")
                except InvalidState:  # already closing: just drop the connection
                    self.transport.close()
                    return
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        _release(self.counted)
        self.counted = None
        super().connection_lost(exc)

    def _abort(self) -> None:
        self._stall = None
        if not self.transport.is_closing() or self.transport.get_write_buffer_size():
            self.transport.abort()
