"""Seat webhooks: a player may give an address that receives a JSON "your turn" notice, to bridge it to chat or
e-mail.  Off unless the operator names the hosts they may call (``--webhook-hosts``), so that a player cannot make
the server call internal addresses.

What is checked:

* when the address is set: ``http`` or ``https``, no user name or password, at most 500 characters, and a host
  that the allow-list names (``host``, ``*.domain`` for the domain's subdomains, or an IP address);
* when a notice is sent: every address the host resolves to must be a public one (not loopback, private,
  link-local, multicast or reserved) unless the allow-list names that IP address itself; the connection goes to the
  address that was checked (no second lookup), redirects are not followed, and one call (name lookup, connection,
  request and answer) may take ``webhook_timeout`` seconds.

How notices are sent (every rule is per seat, that is per ``(game, seat)``, so that one seat's webhook can never
delay or switch off another's):

* **Coalesced**: a seat has at most one notice pending; a newer one replaces it and keeps its place.  A notice is
  due ``delay`` seconds after it was made (end turn + undo + end turn within that time give one notice) and never
  sooner than ``interval`` seconds after the seat's previous notice was delivered.  Just before it is sent,
  ``stands(game, seat, url)`` says whether the decision is still with that seat and its webhook unchanged;
  otherwise the notice is dropped.
* **Backoff and suspension**: a failed call (no 2xx answer, no answer within the timeout, or an address refused
  when sending) frees its sender at once and the seat's notice is tried again after ``interval`` × 2^(n−1) seconds
  for its n-th failure in a row (30 s, 60 s, 120 s, 240 s, ... at most :data:`MAX_BACKOFF`), with any newer notice
  in its place.  After ``suspend_after`` failures in a row (a success starts the count again) ``on_suspend(game,
  seat, url)`` is called once and the seat gets no more notices until :meth:`Webhooks.forget` (its player set the
  webhook again).
* **Fair**: due notices are sent in due order by at most :data:`SENDERS` calls at once, at most :data:`PER_HOST` of
  them to one host (a slow or failing receiver holds at most that many), one at a time per seat, each call in a
  thread of the webhooks' own pool (never the event loop's default executor, which the bots use).  At most
  :data:`MAX_PENDING` seats have a notice pending or in flight; a notice for another seat beyond that is dropped
  and counted failed (one log line a minute at most).

Failures are logged (one line each, without the address, which may hold a secret), never shown to other players.
Times are the event loop's monotonic clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import http.client
import ipaddress
import json
import logging
import math
import socket
import ssl
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from .store import MAX_WEBHOOK

log = logging.getLogger("hansa.server")

#: Calls in flight at once (each holds a thread of the webhooks' pool).
SENDERS = 8
#: Calls in flight at once to one host (the URL's host name, or IP address).
PER_HOST = 2
#: Seats with a notice pending or in flight; a notice for another seat is dropped beyond this.
MAX_PENDING = 10_000
#: Seats with nothing pending whose state is kept (failures in a row, suspension, the time of the last notice); the
#: oldest are forgotten beyond this.
MAX_IDLE = 10_000
#: The longest wait before a failing seat's notice is tried again (seconds).
MAX_BACKOFF = 3600.0
#: The shortest (when ``interval`` is 0).
MIN_BACKOFF = 0.1
#: At most one log line per this many seconds about notices dropped because too many seats have one pending.
DROP_LOG_EVERY = 60.0
#: How often idle seat states that no longer matter are forgotten (seconds).
SWEEP_EVERY = 60.0
#: At most this many bytes of a receiver's answer are read.
MAX_ANSWER = 64 * 1024

Key = tuple[str, int]


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


def _host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return ""


class _Call:
    """One POST running in a worker thread, which the event loop may cut short: its socket is shut down, so that
    a receiver that answers slowly (or drop by drop) cannot hold the thread past the deadline."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._cut = False

    def attach(self, sock: socket.socket) -> None:
        with self._lock:
            if self._cut:
                sock.close()
                raise TimeoutError("the call was cut short")
            self._sock = sock

    def cut(self) -> None:
        with self._lock:
            self._cut = True
            sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to an address already checked, with the URL's host in the Host header."""

    def __init__(self, host: str, port: int, ip: str, timeout: float, call: _Call) -> None:
        super().__init__(host, port, timeout=timeout)
        self._ip = ip
        self._call = call

    def connect(self) -> None:
        self.sock = socket.create_connection((self._ip, self.port), self.timeout)
        self._call.attach(self.sock)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to an address already checked; the certificate is checked against the URL's host."""

    def __init__(self, host: str, port: int, ip: str, timeout: float, call: _Call) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._ip = ip
        self._call = call

    def connect(self) -> None:
        sock = socket.create_connection((self._ip, self.port), self.timeout)
        tls = self._context.wrap_socket(  # type: ignore[attr-defined]
            sock, server_hostname=self.host, do_handshake_on_connect=False,
        )
        self.sock = tls
        self._call.attach(tls)
        tls.do_handshake()


class _Seat:
    """What the sender knows about one seat's webhook."""

    __slots__ = ("url", "host", "payload", "notified", "ticket", "failures", "retry_at", "last_sent", "suspended")

    def __init__(self, url: str) -> None:
        self.url = url
        self.host = _host_of(url)
        #: The notice waiting to be sent (None: nothing waits; one may be in flight).
        self.payload: dict[str, Any] | None = None
        #: When the waiting notice was made (loop time).
        self.notified = 0.0
        #: Non-zero while the seat is scheduled (its entry in its host's heap).
        self.ticket = 0
        #: Failed calls in a row.
        self.failures = 0
        #: After a failure: no call before this (loop time).
        self.retry_at = -math.inf
        #: When a notice was last delivered (loop time).
        self.last_sent = -math.inf
        #: Failed ``suspend_after`` times in a row: no notices until forgotten.
        self.suspended = False


class _Host:
    """The seats due to be called on one host, by due time; offered to the senders while it has a free slot."""

    __slots__ = ("heap", "busy", "ticket", "offered", "live")

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, Key]] = []
        #: Calls in flight to this host.
        self.busy = 0
        #: Non-zero while the host has an entry in the ready heap, due at ``offered``.
        self.ticket = 0
        self.offered = 0.0
        #: Valid entries in ``heap`` (the others are left behind by seats forgotten meanwhile).
        self.live = 0


class Webhooks:
    """The allow-list and the sender."""

    def __init__(
        self, hosts: str | Iterable[str], timeout: float = 5.0, *, delay: float = 2.0, interval: float = 30.0,
        suspend_after: int = 5, stands: Callable[[str, int, str], bool] | None = None,
        on_suspend: Callable[[str, int, str], None] | None = None,
    ) -> None:
        names = hosts.split(",") if isinstance(hosts, str) else list(hosts)
        self.hosts = [h.strip().lower() for h in names if h.strip()]
        self.allowed_ips = {ip for ip in (_ip(h) for h in self.hosts) if ip is not None}
        self.timeout = timeout
        self.delay = delay
        self.interval = interval
        self.suspend_after = max(1, suspend_after)
        self.stands = stands
        self.on_suspend = on_suspend
        #: Notices delivered; calls failed (plus notices dropped because too many seats had one pending, or because
        #: the seat's webhook was suspended); notices replaced by a newer one or dropped because their hand-over no
        #: longer stood (or the seat's webhook was set again); seats suspended.  For /api/stats and the tests.
        self.sent = 0
        self.failed = 0
        self.coalesced = 0
        self.suspended = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._senders = 0
        self._keys: dict[Key, _Seat] = {}
        #: Seats with nothing pending, nothing in flight and not scheduled, oldest first.
        self._idle: OrderedDict[Key, _Seat] = OrderedDict()
        self._by_game: dict[str, set[int]] = {}
        self._flying: set[Key] = set()
        self._hosts: dict[str, _Host] = {}
        #: Hosts with a free slot and a seat scheduled: (due time of its first seat, ticket, host).
        self._ready: list[tuple[float, int, str]] = []
        self._tickets = 0
        self._next_sweep = 0.0
        self._refused = 0
        self._refused_log_at = -math.inf

    @property
    def enabled(self) -> bool:
        return bool(self.hosts)

    @property
    def pending(self) -> int:
        """Seats with a notice waiting or in flight."""
        return len(self._keys) - len(self._idle)

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

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the scheduler on the running event loop (nothing when webhooks are off)."""
        if not self.enabled or self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._pool = self._pool or ThreadPoolExecutor(max_workers=SENDERS, thread_name_prefix="hansa-webhook")
        self._next_sweep = self._loop.time() + SWEEP_EVERY
        self._task = self._loop.create_task(self._run(), name="hansa-webhooks")

    async def stop(self) -> None:
        """Stop sending; what is pending is dropped."""
        self._wake = None
        tasks = ([self._task] if self._task is not None else []) + list(self._running)
        self._task = None
        for task in tasks:
            task.cancel()
        if tasks:
            # a call cut short may take up to another timeout to end its thread
            await asyncio.wait(tasks, timeout=2 * self.timeout + 1)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    # ------------------------------------------------------------------ the players' side

    def notify(self, game_id: str, seat: int, url: str, payload: dict[str, Any]) -> None:
        """The decision passed to ``seat``: send ``payload`` to ``url`` when due (never waits)."""
        if self._wake is None or self._loop is None:
            return
        key = (game_id, seat)
        now = self._loop.time()
        st = self._keys.get(key)
        if st is not None and st.url != url:
            self._drop(key)  # a new address: a fresh start
            st = None
        if st is not None and st.suspended:
            self.failed += 1
            return
        if (st is None or key in self._idle) and self.pending >= MAX_PENDING:
            self._refuse(now)
            return
        if st is None:
            st = self._keys[key] = _Seat(url)
            self._by_game.setdefault(game_id, set()).add(seat)
        if st.payload is not None:
            self.coalesced += 1
        st.payload = payload
        st.notified = now
        if st.ticket or key in self._flying:
            return  # keeps its place (or goes when the call in flight ends)
        self._idle.pop(key, None)
        self._schedule(key, st, max(now + self.delay, st.last_sent + self.interval, st.retry_at))

    def forget(self, game_id: str, seat: int | None = None) -> None:
        """The seat's webhook was set again or removed, or the seat or game is gone: drop what is pending for it and
        its failures and suspension (``seat`` None: every seat of the game).  A call in flight ends unheeded."""
        seats = [seat] if seat is not None else list(self._by_game.get(game_id, ()))
        for s in seats:
            self._drop((game_id, s))

    # ------------------------------------------------------------------ the scheduler

    def _schedule(self, key: Key, st: _Seat, due: float) -> None:
        self._tickets += 1
        st.ticket = self._tickets
        host = self._hosts.get(st.host)
        if host is None:
            host = self._hosts[st.host] = _Host()
        if len(host.heap) >= 64 and len(host.heap) > 4 * host.live:
            host.heap = [e for e in host.heap if self._valid(e)]
            heapq.heapify(host.heap)
        heapq.heappush(host.heap, (due, st.ticket, key))
        host.live += 1
        self._offer(st.host, host)

    def _valid(self, entry: tuple[float, int, Key]) -> bool:
        st = self._keys.get(entry[2])
        return st is not None and st.ticket == entry[1]

    def _head(self, host: _Host) -> float | None:
        """The due time of the host's first scheduled seat (None: none)."""
        while host.heap:
            if self._valid(host.heap[0]):
                return host.heap[0][0]
            heapq.heappop(host.heap)
        return None

    def _offer(self, name: str, host: _Host) -> None:
        """Put the host in the ready heap at its first seat's due time, if it has a free slot."""
        if host.busy >= PER_HOST:
            return
        due = self._head(host)
        if due is None:
            host.ticket = 0
            if not host.busy:
                del self._hosts[name]
            return
        if host.ticket and host.offered <= due:
            return
        self._tickets += 1
        host.ticket, host.offered = self._tickets, due
        heapq.heappush(self._ready, (due, host.ticket, name))
        if self._ready[0][1] == host.ticket and self._wake is not None:
            self._wake.set()

    async def _run(self) -> None:
        assert self._wake is not None and self._loop is not None
        wake = self._wake
        while self._wake is wake:
            wake.clear()
            try:
                timeout = self._dispatch()
            except Exception as exc:  # noqa: BLE001 - a bug here must not stop every notice for good
                log.error("webhook scheduler: %s: %s", type(exc).__name__, exc)
                timeout = 1.0
            # a timer rather than asyncio.wait_for, which may swallow a cancellation in Python 3.11
            timer = None if timeout is None else self._loop.call_later(timeout, wake.set)
            try:
                await wake.wait()
            finally:
                if timer is not None:
                    timer.cancel()

    def _dispatch(self) -> float | None:
        """Start every due call a sender and its host have room for; the seconds until the next is due (None:
        until something happens)."""
        assert self._loop is not None
        now = self._loop.time()
        if now >= self._next_sweep:
            self._sweep(now)
        while self._ready and self._senders < SENDERS:
            offered, ticket, name = self._ready[0]
            host = self._hosts.get(name)
            if host is None or host.ticket != ticket:
                heapq.heappop(self._ready)
                continue
            if offered > now:
                return self._wait(offered - now)
            heapq.heappop(self._ready)
            host.ticket = 0
            due = self._head(host)
            if due is None or due > now:
                self._offer(name, host)  # its first seat was forgotten: offered again at the next one's time
                continue
            _, _, key = heapq.heappop(host.heap)
            host.live -= 1
            st = self._keys[key]
            st.ticket = 0
            payload, st.payload = st.payload, None
            if payload is not None and self._stands(key, st.url):
                self._start(key, st, host, payload)
            else:
                if payload is not None:
                    self.coalesced += 1  # the decision moved on, or the webhook changed
                self._settle(key, st, now)
            self._offer(name, host)
        return self._wait(None)  # nothing due, or every sender busy: until a call ends or a notice comes

    def _wait(self, seconds: float | None) -> float | None:
        if not self._idle or self._loop is None:
            return seconds
        sweep = max(0.0, self._next_sweep - self._loop.time())
        return sweep if seconds is None else min(seconds, sweep)

    def _stands(self, key: Key, url: str) -> bool:
        if self.stands is None:
            return True
        try:
            return bool(self.stands(key[0], key[1], url))
        except Exception as exc:  # noqa: BLE001
            log.warning("webhook of game %s seat %d: dropped, could not tell whether the notice stands (%s: %s)",
                        key[0], key[1], type(exc).__name__, exc)
            return False

    def _start(self, key: Key, st: _Seat, host: _Host, payload: dict[str, Any]) -> None:
        assert self._loop is not None
        self._senders += 1
        host.busy += 1
        self._flying.add(key)
        task = self._loop.create_task(self._send(key, st, payload), name="hansa-webhook")
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _send(self, key: Key, st: _Seat, payload: dict[str, Any]) -> None:
        error: str | None = None
        try:
            await self.deliver(st.url, payload)
        except Exception as exc:  # noqa: BLE001 - a failing receiver must not stop the sender
            error = str(exc) or type(exc).__name__
        finally:
            self._senders -= 1
            self._flying.discard(key)
            host = self._hosts[st.host]
            host.busy -= 1
            self._offer(st.host, host)
        self._finish(key, st, payload, error)
        if self._wake is not None:
            self._wake.set()

    def _finish(self, key: Key, st: _Seat, payload: dict[str, Any], error: str | None) -> None:
        assert self._loop is not None
        now = self._loop.time()
        current = self._keys.get(key)
        if error is None:
            self.sent += 1
            if current is st:
                st.failures, st.retry_at, st.last_sent = 0, -math.inf, now
        else:
            self.failed += 1
            if current is not st:
                log.warning("webhook of game %s seat %d failed: %s", key[0], key[1], error)
            elif st.failures + 1 >= self.suspend_after:
                self._suspend(key, st, error, now)
                return
            else:
                st.failures += 1
                wait = self._backoff(st.failures)
                st.retry_at = now + wait
                if st.payload is None:
                    st.payload, st.notified = payload, now  # tried again, unless a newer notice took its place
                log.warning("webhook of game %s seat %d failed (%d in a row): %s; next try in %g s",
                            key[0], key[1], st.failures, error, wait)
        if current is None:
            return
        if current.payload is not None and not current.ticket:
            self._schedule(key, current, max(current.notified + self.delay, current.last_sent + self.interval,
                                             current.retry_at))
        else:
            self._settle(key, current, now)

    def _backoff(self, failures: int) -> float:
        """Seconds before the next try after ``failures`` failures in a row: interval × 2^(failures − 1)."""
        return float(min(MAX_BACKOFF, max(self.interval, MIN_BACKOFF) * 2.0 ** min(failures - 1, 40)))

    def _suspend(self, key: Key, st: _Seat, error: str, now: float) -> None:
        st.failures += 1
        st.suspended = True
        if st.payload is not None:
            self.failed += 1
            st.payload = None
        self.suspended += 1
        self._settle(key, st, now)
        log.warning("webhook of game %s seat %d suspended after %d failures in a row (the last: %s)",
                    key[0], key[1], st.failures, error)
        if self.on_suspend is not None:
            try:
                self.on_suspend(key[0], key[1], st.url)
            except Exception as exc:  # noqa: BLE001
                log.warning("webhook of game %s seat %d: could not record the suspension (%s: %s)",
                            key[0], key[1], type(exc).__name__, exc)

    def _settle(self, key: Key, st: _Seat, now: float) -> None:
        """A seat with nothing waiting: keep what matters of it among the idle ones, or forget it."""
        if st.payload is not None or st.ticket or key in self._flying:
            return
        if not st.failures and not st.suspended and st.last_sent + self.interval <= now:
            self._remove(key)
            return
        self._idle[key] = st
        self._idle.move_to_end(key)
        while len(self._idle) > MAX_IDLE:
            self._remove(next(iter(self._idle)))

    def _sweep(self, now: float) -> None:
        self._next_sweep = now + SWEEP_EVERY
        for key, st in list(self._idle.items()):
            if not st.failures and not st.suspended and st.last_sent + self.interval <= now:
                self._remove(key)

    def _drop(self, key: Key) -> None:
        st = self._keys.get(key)
        if st is not None and st.payload is not None:
            self.coalesced += 1
        self._remove(key)

    def _remove(self, key: Key) -> None:
        st = self._keys.pop(key, None)
        self._idle.pop(key, None)
        if st is None:
            return
        seats = self._by_game.get(key[0])
        if seats is not None:
            seats.discard(key[1])
            if not seats:
                del self._by_game[key[0]]
        if st.ticket:
            host = self._hosts.get(st.host)
            if host is not None:
                host.live -= 1
            st.ticket = 0

    def _refuse(self, now: float) -> None:
        self.failed += 1
        self._refused += 1
        if now >= self._refused_log_at:
            log.warning("webhook notices dropped: %d seats have one pending (at most %d); %d dropped since the last "
                        "such line", self.pending, MAX_PENDING, self._refused)
            self._refused = 0
            self._refused_log_at = now + DROP_LOG_EVERY

    # ------------------------------------------------------------------ one call

    async def deliver(self, url: str, payload: dict[str, Any]) -> int:
        """POST ``payload`` to ``url`` once; returns the HTTP status (2xx), raises otherwise (:class:`WebhookRefused`
        for an address the server may not call, :class:`OSError` for the rest)."""
        self.check(url)
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        # The lookup runs in this sender's thread; it is bounded by the system resolver (a thread cannot be
        # interrupted), and the sender waits for it, so that threads never outnumber senders.
        infos = await loop.run_in_executor(self._pool, socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM)
        addresses = [str(info[4][0]) for info in infos]
        if not addresses:
            raise WebhookRefused(f"{host} does not resolve")
        for text in addresses:
            address = ipaddress.ip_address(text.split("%")[0])
            if not _public(address) and address not in self.allowed_ips:
                raise WebhookRefused(f"{host} resolves to the internal address {address}")
        body = json.dumps(payload).encode()
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        call = _Call()
        future = loop.run_in_executor(self._pool, self._post, call, parts.scheme, host, port, addresses[0], path, body)
        try:
            return await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline - loop.time()))
        except TimeoutError:
            call.cut()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(future), self.timeout)  # the thread ends at once
            raise OSError(f"no answer within {self.timeout:g} s") from None
        finally:
            if not future.done():
                call.cut()
                future.add_done_callback(_consume)

    def _post(self, call: _Call, scheme: str, host: str, port: int, ip: str, path: str, body: bytes) -> int:
        conn: http.client.HTTPConnection
        if scheme == "https":
            conn = _PinnedHTTPS(host, port, ip, self.timeout, call)
        else:
            conn = _PinnedHTTP(host, port, ip, self.timeout, call)
        try:
            conn.request("POST", path, body, {"Content-Type": "application/json", "User-Agent": "hansa-webhook/1"})
            response = conn.getresponse()
            response.read(MAX_ANSWER)
            if not 200 <= response.status < 300:
                raise OSError(f"the receiver answered {response.status}")
            return response.status
        finally:
            conn.close()


def _consume(future: asyncio.Future[Any]) -> None:
    """Take a cut-short call's outcome, so that asyncio does not report it as never retrieved."""
    if not future.cancelled():
        future.exception()
