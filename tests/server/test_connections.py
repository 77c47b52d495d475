"""The connection layer of `hansa serve` against hostile clients: proxy headers, half-sent requests (slowloris),
connections per client, WebSocket text that is not UTF-8, and worker processes whose supervisor was killed.

Each test names the audit finding it covers and fails on a server without the protection it checks.
"""

from __future__ import annotations

import base64
import errno
import json
import os
import resource
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import HANSA, POSTGRES_URL, Server, free_port, postgres_database

PLAYERS = {"players": [{"name": "Ann", "type": "human"}, {"name": "Bot", "type": "bot", "bot": "random"}]}
PARTIAL_HEAD = b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "  # a request head that never ends


def is_api_error(response: bytes, status: int) -> bool:
    """A complete HTTP answer with ``status`` and a body in the API's error format."""
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    if int(lines[0].split()[1]) != status or len(body) != int(headers["content-length"]):
        return False
    data = json.loads(body)
    return set(data) == {"error", "rule"} and isinstance(data["error"], str) and data["rule"] is None


def read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, bool]:
    """Everything the server sends within ``timeout`` seconds; True if it closed the connection by then."""
    sock.settimeout(timeout)
    deadline = time.monotonic() + timeout
    data = b""
    try:
        while time.monotonic() < deadline:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            if not chunk:
                return data, True
            data += chunk
    except ConnectionResetError:
        return data, True
    except TimeoutError:
        pass
    return data, False


def quiet(socks: list[socket.socket], seconds: float) -> bool:
    """True if the server sent nothing on any of ``socks`` (and closed none) for ``seconds``."""
    with selectors.DefaultSelector() as sel:
        for sock in socks:
            sel.register(sock, selectors.EVENT_READ)
        return not sel.select(seconds)


def connect(server: Server, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.port))
    return sock


def get(server: Server, source: str = "127.0.0.1", path: str = "/api/bots", timeout: float = 5) -> httpx.Response:
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=timeout) as client:
        return client.get(server.url + path)


# ---------------------------------------------------------------------------------------------- raw WebSockets


def ws_open(server: Server, game_id: str) -> tuple[socket.socket, int]:
    """A WebSocket handshake on a bare socket: (socket, HTTP status of the answer)."""
    sock = connect(server)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (f"GET /api/games/{game_id}/ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
    )
    head = b""
    sock.settimeout(5)
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, "connection closed during the handshake"
        head += chunk
    return sock, int(head.split()[1])


def ws_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A masked client frame (payload under 126 bytes)."""
    assert len(payload) < 126
    mask = os.urandom(4)
    return bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload)]) + mask + bytes(
        b ^ mask[i % 4] for i, b in enumerate(payload))


def close_code(data: bytes) -> int | None:
    """The code of the first close frame among the server's (unmasked) frames in ``data``."""
    i = 0
    while i + 2 <= len(data):
        opcode, length = data[i] & 0x0F, data[i + 1] & 0x7F
        i += 2
        if length == 126:
            length, i = struct.unpack("!H", data[i:i + 2])[0], i + 2
        elif length == 127:
            length, i = struct.unpack("!Q", data[i:i + 8])[0], i + 8
        if opcode == 0x8:
            return int(struct.unpack("!H", data[i:i + 2])[0]) if length >= 2 else None
        i += length
    return None


# ---------------------------------------------------------------------------------------------- processes


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                continue
    return parents


def children(pid: int) -> list[int]:
    return [c for c, parent in _parents().items() if parent == pid]


def descendants(pid: int) -> list[int]:
    parents = _parents()
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, parent in parents.items() if parent == p]
        out += kids
        todo += kids
    return out


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_until(predicate: Any, timeout: float, what: str) -> float:
    """Seconds until ``predicate()`` held (AssertionError after ``timeout``)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if predicate():
            return time.monotonic() - t0
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {timeout:g} s")


# ---------------------------------------------------------------------------------------------- 1. proxy headers


def test_forwarded_for_is_not_trusted_by_default(make_server: Any) -> None:
    """Audit 1: by default X-Forwarded-For is ignored, so a client rotating it still counts as one client: its 11th
    game in a minute is refused (--create-per-minute 10).  Before, uvicorn trusted 127.0.0.1 and all 11 passed."""
    server = make_server()
    statuses = [httpx.post(server.url + "/api/games", json=PLAYERS, headers={"X-Forwarded-For": f"203.0.113.{i}"},
                           timeout=10).status_code for i in range(11)]
    assert statuses == [201] * 10 + [429]


def test_forwarded_for_is_honoured_from_a_trusted_proxy(make_server: Any) -> None:
    """Audit 1: with --forwarded-allow-ips naming the proxy, each forwarded address is a client of its own (11
    creations from 11 addresses all pass); the per-connection cap does not count the proxy as one client."""
    server = make_server("--forwarded-allow-ips", "127.0.0.1", "--http-per-client", "2")
    statuses = [httpx.post(server.url + "/api/games", json=PLAYERS, headers={"X-Forwarded-For": f"203.0.113.{i}"},
                           timeout=10).status_code for i in range(11)]
    assert statuses == [201] * 11
    held = [connect(server) for _ in range(4)]  # more than --http-per-client from the trusted proxy
    try:
        for sock in held:
            sock.sendall(PARTIAL_HEAD)
        assert quiet(held, 0.5)
    finally:
        for sock in held:
            sock.close()


def test_invalid_forwarded_allow_ips_is_refused() -> None:
    out = subprocess.run([HANSA, "serve", "--forwarded-allow-ips", "10.0.0.1,proxy.example"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "proxy.example" in out.stderr


# ---------------------------------------------------------------------------------------------- 2. slowloris


def test_half_sent_requests_are_capped_and_timed_out(make_server: Any) -> None:
    """Audit 2: 300 connections from one address send part of a request head and then nothing.  The 250 beyond
    --http-per-client are answered 429 (with Retry-After) and closed at once; the 50 others get 408 and are closed
    after --header-timeout; meanwhile a client from another address is served at once, and afterwards the first
    address again.  The server raised its soft limit on open files (started at 1024) to the hard limit."""
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, before[1]), before[1]))  # the server inherits this
    try:
        server = make_server("--header-timeout", "3", "--http-per-client", "50")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, before)

    attacker = "127.0.0.3"  # an address of its own: no other connection of the test counts with its 300
    socks = []
    t0 = time.monotonic()
    for _ in range(300):
        sock = connect(server, attacker)
        sock.sendall(PARTIAL_HEAD)
        socks.append(sock)
    received: dict[socket.socket, bytes] = {s: b"" for s in socks}
    closed_at: dict[socket.socket, float] = {}
    with selectors.DefaultSelector() as sel:
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)

        def pump(until: float, stop_at: int) -> None:
            while time.monotonic() < until and len(closed_at) < stop_at:
                for key, _ in sel.select(max(0.0, until - time.monotonic())):
                    s = key.fileobj
                    assert isinstance(s, socket.socket)
                    try:
                        chunk = s.recv(65536)
                    except ConnectionResetError:
                        chunk = b""
                    received[s] += chunk
                    if not chunk:
                        closed_at[s] = time.monotonic() - t0
                        sel.unregister(s)

        # the cap is full: the attacker's address is refused, another client (127.0.0.2) is served at once
        late = connect(server, attacker)
        data, closed = read_until_closed(late, 2.0)
        late.close()
        assert closed and is_api_error(data, 429)
        t = time.monotonic()
        other = get(server, "127.0.0.2")
        assert other.status_code == 200 and time.monotonic() - t < 2.0
        pump(time.monotonic() + 1.0, stop_at=250)
        assert time.monotonic() - t0 < 2.9, "the scenario must run before the header timeout"
        refused = [s for s in socks if s in closed_at]
        assert len(refused) == 250, f"{len(refused)} refused at once"
        assert all(is_api_error(received[s], 429) and b"\r\nretry-after: 3\r\n" in received[s] for s in refused)
        pump(t0 + 10.0, stop_at=300)
    timed_out = [s for s in socks if s not in refused]
    assert all(s in closed_at and is_api_error(received[s], 408) for s in timed_out)
    times = sorted(closed_at[s] for s in timed_out)
    assert 2.9 <= times[0] and times[-1] < 8.0, times
    assert get(server, attacker).status_code == 200  # their connections were released
    for s in socks:
        s.close()
    assert server.proc is not None
    limits = Path(f"/proc/{server.proc.pid}/limits").read_text()
    soft, hard = next(line.split()[3:5] for line in limits.splitlines() if line.startswith("Max open files"))
    assert soft == hard, "the server raises its soft limit on open files to the hard limit (it was 1024)"


def test_header_timeout_counts_from_each_request_and_spares_idle_keep_alive(make_server: Any) -> None:
    """Audit 2: a head may arrive in pieces within --header-timeout; the clock of a later request on a kept-alive
    connection starts at its first byte (idle time between requests is the keep-alive's, not the header timeout's);
    a connection that sends nothing is closed with 408 after the timeout."""
    server = make_server("--header-timeout", "1")
    request = b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    def answer(sock: socket.socket) -> bytes:
        sock.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
        while len(body) < length:
            body += sock.recv(65536)
        return head.split(b"\r\n")[0]

    silent = connect(server)  # sends nothing: watched in a thread while the rest runs
    silent_result: list[tuple[bytes, bool, float]] = []
    t_silent = time.monotonic()
    watcher = threading.Thread(
        target=lambda: silent_result.append((*read_until_closed(silent, 3), time.monotonic() - t_silent)))
    watcher.start()
    with connect(server) as sock:
        sock.sendall(request[:20])
        time.sleep(0.4)
        sock.sendall(request[20:])
        assert answer(sock) == b"HTTP/1.1 200 OK"
        time.sleep(1.3)  # idle, longer than the header timeout
        sock.sendall(request)
        assert answer(sock) == b"HTTP/1.1 200 OK"
        time.sleep(0.3)
        t = time.monotonic()
        sock.sendall(request[:20])
        data, closed = read_until_closed(sock, 3)
        assert closed and is_api_error(data, 408) and 0.9 <= time.monotonic() - t < 3.0
    watcher.join()
    silent.close()
    data, closed, took = silent_result[0]
    assert closed and is_api_error(data, 408) and 0.9 <= took < 3.0


def test_connections_are_counted_exactly_across_errors_and_websockets(make_server: Any) -> None:
    """Audit 2: the per-client count is released exactly once however a connection ends (answered, 400, 431, 408,
    closed by the client, refused, a WebSocket refused by the app or closed with 1007), and a connection that became a
    WebSocket counts until it closes, so that WebSockets lingering in their closing handshake (an unknown game's 4404
    that the client never answers) are capped too.  Afterwards exactly --http-per-client connections fit."""
    server = make_server("--header-timeout", "1", "--http-per-client", "3", "--ws-per-client", "2")
    game_id = httpx.post(server.url + "/api/games", json=PLAYERS, timeout=10).json()["id"]

    def refused() -> bool:
        """A new connection is refused at once (strict: more room than the limit fails here)."""
        with connect(server) as extra:
            data, closed = read_until_closed(extra, 3)
        return closed and is_api_error(data, 429) and b"3 connections open" in data

    def hold() -> socket.socket:
        """A connection that got an answer and stays open (kept alive); waits for room while the server is still
        seeing earlier connections close (less room than the limit fails here)."""
        deadline = time.monotonic() + 10
        while True:
            sock = connect(server)
            sock.sendall(b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            sock.settimeout(5)
            data = b""
            while b"}" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            if data.startswith(b"HTTP/1.1 200"):
                return sock
            sock.close()
            assert data.startswith(b"HTTP/1.1 429") and time.monotonic() < deadline, data[:200]
            time.sleep(0.1)

    def websocket(game: str) -> tuple[socket.socket, int]:
        """ws_open, waiting for room like hold() (a 429 of the app, over --ws-per-client, is returned)."""
        deadline = time.monotonic() + 10
        while True:
            sock, status = ws_open(server, game)
            if status != 429:
                return sock, status
            data, _ = read_until_closed(sock, 3)
            if b"connections open" not in data:
                return sock, status
            sock.close()
            assert time.monotonic() < deadline, "no room for a WebSocket"
            time.sleep(0.1)

    for _ in range(4):
        assert get(server).status_code == 200
        with connect(server) as bad:
            bad.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            data, closed = read_until_closed(bad, 3)
            assert closed and data.startswith(b"HTTP/1.1 400")
        with connect(server) as big:
            big.sendall(b"GET / HTTP/1.1\r\nX-Big: " + b"x" * 20_000 + b"\r\n\r\n")
            data, closed = read_until_closed(big, 3)
            assert closed and is_api_error(data, 431)
        with connect(server) as gone:
            gone.sendall(PARTIAL_HEAD)
    held = [hold() for _ in range(3)]
    assert refused()
    for s in held:
        s.close()
    silent = [connect(server) for _ in range(3)]  # time out with 408 (a fourth one is refused meanwhile)
    for s in silent:
        data, closed = read_until_closed(s, 3)
        assert closed and is_api_error(data, 408)
        s.close()

    opened = [websocket(game_id) for _ in range(3)]
    assert [status for _, status in opened] == [101, 101, 429]  # the third WebSocket is over --ws-per-client
    for sock, _ in opened[:2]:
        sock.sendall(ws_frame(0x1, b"\xff\xfe"))  # closed with 1007
        data, closed = read_until_closed(sock, 3)
        assert closed and close_code(data) == 1007
    for sock, _ in opened:
        sock.close()
    held = [hold() for _ in range(3)]
    assert refused()
    for s in held:
        s.close()

    lingering = []  # accepted, then closed with 4404 by the server: the client never answers the close
    for _ in range(3):
        lingering.append(websocket("nosuchgame"))
    assert [status for _, status in lingering] == [101] * 3
    assert refused(), "WebSockets in their closing handshake count"
    for sock, _ in lingering:
        sock.close()

    websockets_open = []
    for _ in range(2):
        websockets_open.append(websocket(game_id))
    assert [status for _, status in websockets_open] == [101, 101]
    held = [hold()]
    assert refused(), "two WebSockets and one HTTP connection are the limit of 3"
    websockets_open.pop()[0].close()
    held.append(hold())  # a closed WebSocket frees its place
    assert refused()
    for s in [*held, *(ws for ws, _ in websockets_open)]:
        s.close()


# ---------------------------------------------------------------------------------------------- 4. invalid UTF-8


def test_websocket_text_that_is_not_utf8_closes_with_1007_without_traceback(make_server: Any) -> None:
    """Audit 4: a text message that is not UTF-8 (in one frame, across fragments, or a close reason) closes the
    socket with 1007; the server log gets no traceback (uvicorn logged one per message, a way to flood the log)."""
    server = make_server()
    game_id = httpx.post(server.url + "/api/games", json=PLAYERS, timeout=10).json()["id"]
    attacks = [ws_frame(0x1, b"\xff\xfe\xfd")] * 20 + [
        ws_frame(0x1, b'{"type": "pi', fin=False) + ws_frame(0x0, b"\xc3\x28"),
        ws_frame(0x1, "é".encode()[:1], fin=False) + ws_frame(0x0, b"x"),
        ws_frame(0x8, struct.pack("!H", 1000) + b"\xff"),
    ]
    for attack in attacks:
        sock, status = ws_open(server, game_id)
        assert status == 101
        sock.sendall(attack)
        data, closed = read_until_closed(sock, 3)
        sock.close()
        assert closed and close_code(data) == 1007
    sock, _ = ws_open(server, game_id)  # the server still works
    sock.sendall(ws_frame(0x1, b'{"type": "ping"}'))
    sock.settimeout(5)
    data = b""
    while b'"pong"' not in data:
        chunk = sock.recv(65536)
        assert chunk, "closed instead of answering the ping"
        data += chunk
    sock.close()
    time.sleep(0.3)
    log = server.log.read_text()
    assert "Traceback" not in log and "UnicodeDecodeError" not in log, log[-3000:]


# ---------------------------------------------------------------------------------------------- 3. workers


def test_bind_waits_while_the_port_is_still_held() -> None:
    """Audit 3: a restart binds a port still held for a moment (by the dying workers of a killed supervisor):
    it tries again instead of failing; after its wait it fails with EADDRINUSE."""
    from hansa.server.supervisor import bind_listeners

    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    with pytest.raises(OSError) as failed:
        bind_listeners("127.0.0.1", port, wait=0.3)
    assert failed.value.errno == errno.EADDRINUSE
    threading.Timer(0.8, holder.close).start()
    t = time.monotonic()
    waited: list[OSError] = []
    socks = bind_listeners("127.0.0.1", port, wait=5, on_wait=waited.append)
    assert 0.7 < time.monotonic() - t < 3 and len(waited) == 1 and len(socks) == 1
    socks[0].close()


CHILD = """
import os, signal, sys, time
from hansa.server import supervisor
if sys.argv[2] == "poll":  # as where PR_SET_PDEATHSIG is missing: only the thread that watches os.getppid()
    supervisor._parent_death_signal = lambda sig: False
signal.signal(signal.SIGTERM, lambda s, f: None)  # a graceful shutdown that never finishes
supervisor.die_with_parent(int(sys.argv[1]), grace=1.0)
print("ready", flush=True)
while True:
    time.sleep(1)
"""

PARENT = """
import subprocess, sys, os, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(os.getpid()), sys.argv[2]], stdout=subprocess.PIPE)
assert child.stdout.readline() == b"ready\\n"
print(child.pid, flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("how", ["prctl", "poll"])
def test_a_worker_ends_when_its_supervisor_is_killed(how: str) -> None:
    """Audit 3, the mechanism of every worker: kill -9 of the parent ends the child (SIGTERM from Linux, or from the
    thread that watches the parent; then os._exit after the grace time, since this child's shutdown never
    finishes); a child whose parent is already gone when it starts exits at once."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT, CHILD, how], stdout=subprocess.PIPE)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert alive(child)
        parent.kill()
        parent.wait()
        wait_until(lambda: not alive(child), 6, "the child ends")
    finally:
        parent.kill()
        parent.wait()
    orphan = subprocess.run([sys.executable, "-c", CHILD, "1", how], capture_output=True, timeout=30)
    assert orphan.returncode == 1 and b"ready" not in orphan.stdout


@pytest.mark.skipif(not POSTGRES_URL, reason="HANSA_TEST_POSTGRES_URL is not set (workers need PostgreSQL)")
def test_killed_supervisor_leaves_no_workers_and_restarts_at_once(tmp_path: Path) -> None:
    """Audit 3: kill -9 of the `hansa serve --workers 2` supervisor ends both workers within seconds, and a new
    `hansa serve` started at once on the same port (while they may still hold it) serves.  Before, the orphaned
    workers kept the port and every restart failed with "Address already in use"."""
    url = postgres_database()
    port = free_port()
    log = tmp_path / "serve.log"
    started: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            proc = subprocess.Popen([HANSA, "serve", "--workers", "2", "--port", str(port), "--database-url", url,
                                     "--bot-processes", "0", "--replay-processes", "0"], stdout=out,
                                    stderr=subprocess.STDOUT)
        started.append(proc)
        return proc

    def serving_pid() -> int | None:
        try:
            r = httpx.get(f"http://127.0.0.1:{port}/api/stats", timeout=1)
            return int(r.json()["pid"]) if r.status_code == 200 else None
        except httpx.HTTPError:
            return None

    def workers_of(proc: subprocess.Popen[bytes]) -> list[int]:
        """The supervisor's worker processes (its resource tracker aside)."""
        return [p for p in children(proc.pid) if "spawn_main" in cmdline(p)]

    everything: list[int] = []
    try:
        first = start()
        wait_until(lambda: serving_pid() is not None and len(workers_of(first)) == 2, 60, "the first server serves")
        workers = workers_of(first)
        everything += descendants(first.pid)
        first.kill()  # kill -9 of the supervisor
        first.wait()
        second = start()  # at once, on the same port
        wait_until(lambda: not any(alive(w) for w in workers), 8, "the orphaned workers end")
        wait_until(lambda: serving_pid() in workers_of(second), 60, "the new server serves")
        assert second.poll() is None
        everything += descendants(second.pid)
        second.send_signal(signal.SIGINT)
        second.wait(30)
        wait_until(lambda: not any(alive(w) for w in everything), 10, "every worker ends")
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        for pid in everything:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
