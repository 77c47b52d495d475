"""Seat webhooks: a player may give an address that receives a JSON "your turn" notice, to bridge it to chat or
e-mail.  Off unless the operator names the hosts they may call (``--webhook-hosts``), so that a player cannot make
the server call internal addresses.

What is checked:

* when the address is set: ``http`` or ``https``, no user name or password, at most 500 characters, and a host
  that the allow-list names (``host``, ``*.domain`` for the domain's subdomains, or an IP address);
* when a notice is sent: every address the host resolves to must be a public one (not loopback, private,
  link-local, multicast or reserved) unless the allow-list names that IP address itself; the connection goes to the
  address that was checked (no second lookup), redirects are not followed, and one call may take
  ``webhook_timeout`` seconds.

Notices are sent in the background, at most :data:`PARALLEL` at once and :data:`BACKLOG` waiting (more are
dropped and logged), with up to :data:`ATTEMPTS` attempts; a failure is logged, never shown to other players.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import ipaddress
import json
import logging
import socket
import ssl
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from .store import MAX_WEBHOOK

log = logging.getLogger("hansa.server")

PARALLEL = 8
BACKLOG = 1000
ATTEMPTS = 3
RETRY_AFTER = 5.0


class WebhookRefused(ValueError):
    """An address the server will not call; the message says why."""


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return not (address.is_private or address.is_loopback or address.is_link_local or address.is_multicast
                or address.is_reserved or address.is_unspecified)


class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to an address already checked, with the URL's host in the Host header."""

    def __init__(self, host: str, port: int, ip: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._ip = ip

    def connect(self) -> None:
        self.sock = socket.create_connection((self._ip, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to an address already checked; the certificate is checked against the URL's host."""

    def __init__(self, host: str, port: int, ip: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._ip = ip

    def connect(self) -> None:
        sock = socket.create_connection((self._ip, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


class Webhooks:
    """The allow-list and the sender."""

    def __init__(self, hosts: str | Iterable[str], timeout: float = 5.0) -> None:
        names = hosts.split(",") if isinstance(hosts, str) else list(hosts)
        self.hosts = [h.strip().lower() for h in names if h.strip()]
        self.allowed_ips = {ip for ip in (_ip(h) for h in self.hosts) if ip is not None}
        self.timeout = timeout
        self._queue: asyncio.Queue[tuple[str, dict[str, Any]]] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        #: Notices delivered and failed (for /api/stats and the tests).
        self.sent = 0
        self.failed = 0

    @property
    def enabled(self) -> bool:
        return bool(self.hosts)

    def _host_allowed(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        for pattern in self.hosts:
            if pattern.startswith("*."):
                if host.endswith(pattern[1:]) and len(host) > len(pattern) - 1:
                    return True
            elif host == pattern.strip("[]"):
                return True
        return False

    def check(self, url: str) -> str:
        """The address as it will be called; :class:`WebhookRefused` when the server may not call it."""
        if not self.enabled:
            raise WebhookRefused("webhooks are off on this server")
        if len(url) > MAX_WEBHOOK:
            raise WebhookRefused(f"a webhook address has at most {MAX_WEBHOOK} characters")
        if any(ord(ch) <= 32 or ord(ch) == 127 for ch in url):
            raise WebhookRefused("a webhook address has no spaces or control characters")
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
        except ValueError:
            raise WebhookRefused("not a URL") from None
        if parts.scheme not in ("http", "https"):
            raise WebhookRefused("a webhook address starts with https:// or http://")
        if parts.username is not None or parts.password is not None:
            raise WebhookRefused("a webhook address has no user name or password")
        host = parts.hostname
        if not host:
            raise WebhookRefused("a webhook address names a host")
        if not self._host_allowed(host):
            raise WebhookRefused(f"this server does not call {host} (the operator's allow-list)")
        return url

    # ------------------------------------------------------------------ sending

    def start(self) -> None:
        if not self.enabled:
            return
        self._queue = asyncio.Queue(BACKLOG)
        self._tasks = [asyncio.create_task(self._run(), name=f"webhook-{i}") for i in range(PARALLEL)]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def notify(self, url: str, payload: dict[str, Any]) -> None:
        """Queue a notice (never waits; dropped with a log line when the backlog is full)."""
        if self._queue is None:
            return
        try:
            self._queue.put_nowait((url, payload))
        except asyncio.QueueFull:
            self.failed += 1
            log.warning("webhook backlog full: a notice for game %s was dropped", payload.get("game"))

    async def _run(self) -> None:
        assert self._queue is not None
        while True:
            url, payload = await self._queue.get()
            for attempt in range(1, ATTEMPTS + 1):
                try:
                    await self.deliver(url, payload)
                    self.sent += 1
                    break
                except WebhookRefused as exc:
                    self.failed += 1
                    log.warning("webhook for game %s refused: %s", payload.get("game"), exc)
                    break
                except Exception as exc:  # noqa: BLE001 - a failing receiver must not stop the sender
                    if attempt == ATTEMPTS:
                        self.failed += 1
                        log.warning("webhook for game %s failed %d times: %s", payload.get("game"), attempt, exc)
                    else:
                        await asyncio.sleep(RETRY_AFTER * attempt)

    async def deliver(self, url: str, payload: dict[str, Any]) -> int:
        """POST ``payload`` to ``url`` once; returns the HTTP status (2xx), raises otherwise."""
        self.check(url)
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        addresses = [str(info[4][0]) for info in infos]
        if not addresses:
            raise WebhookRefused(f"{host} does not resolve")
        for text in addresses:
            address = ipaddress.ip_address(text.split("%")[0])
            if not _public(address) and address not in self.allowed_ips:
                raise WebhookRefused(f"{host} resolves to the internal address {address}")
        body = json.dumps(payload).encode()
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return await asyncio.to_thread(self._post, parts.scheme, host, port, addresses[0], path, body)

    def _post(self, scheme: str, host: str, port: int, ip: str, path: str, body: bytes) -> int:
        cls = _PinnedHTTPS if scheme == "https" else _PinnedHTTP
        conn = cls(host, port, ip, self.timeout)
        try:
            conn.request("POST", path, body, {"Content-Type": "application/json", "User-Agent": "hansa-webhook/1"})
            response = conn.getresponse()
            response.read(64 * 1024)
            if not 200 <= response.status < 300:
                raise OSError(f"the receiver answered {response.status}")
            return response.status
        finally:
            conn.close()
