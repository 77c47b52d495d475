"""Hostile-load benchmark: a fuzzer of malformed and illegal requests, and a human's move latency while hostile
clients load the server.

    python benchmarks/bench_hostile.py                       # everything, against this checkout's `hansa serve`
    python benchmarks/bench_hostile.py --fuzz 20000 --scenarios none
    python benchmarks/bench_hostile.py --fuzz 0 --scenarios none --startup 2549       # restart time
    python benchmarks/bench_hostile.py --hansa /path/to/old/.venv/bin/hansa --legacy   # a server without the limits

**Fuzzer.** ``--fuzz N`` requests (default 20,000) in batches of 500 against games in known positions: bodies of
random bytes, truncated or deeply nested JSON, NaN/Infinity, invalid UTF-8, wrong types and unknown fields,
oversized strings, numbers and headers, bad tokens and seats, stale versions, illegal moves, bad paths and query
parameters, wrong methods, stop/delete/undo without the right token.  After every batch it checks that no answer was
a 5xx and that no game changed (every view, with every token, and the lobby are compared with their state before).

**Latency.** A human client plays a three-seat hot-seat game, one move every ``--think`` seconds, and the latency
of every move POST is measured (request sent → new view received), p50/p99/max, under each load, each on a fresh
server and database:

* ``baseline``: nothing else;
* ``slow``: 50 spectator sockets on the human's game that never read and 20 that flood pings without reading, both
  reconnecting whenever the server drops them (here the human plays five seats and at least 1,000 moves are
  measured: a stalled socket only hurts once the kernel's buffers hold about 4 MB of unread views);
* ``pollers``: 4 clients polling the lobby (100 games a page) and 4 polling the ``/history`` of a 3,000-move game,
  as fast as they can, over 500 stored games;
* ``mcts``: 20 games of ``mcts:hard`` bots only; besides the move latency, the wait of a human for an ``mcts:easy``
  opponent's answer (human move sent → the human must decide again) is measured in another game;
* ``sockets``: 1,000 well-behaved WebSockets watching 20 bot games (50 each, the default per-game limit);
* ``all``: every load above at once.

The second round's attacks (each scenario on a fresh server too; the hostile clients come from 127.0.0.1, the
measured human from 127.0.0.2, a new client probing the server from 127.0.0.3):

* ``long`` (long games): two games of 4,900 moves, three anonymous pollers of their log (a random page of 1,000
  moves; the whole log on a server without pages), six of their replayed positions (a random move each time), and
  one client alternating a move of a third long game with that game's log, record and history; the server's memory
  is sampled throughout (``server_rss_peak_mb``);
* ``webhooks``: two games of two seats whose webhooks point at a receiver that answers 500, the decision handed
  between their seats as fast as the server answers (a new such game whenever the move cap stops one); meanwhile a victim seat with a working webhook is handed the
  decision 20 times, 1.5 s apart, and its notices are counted and timed (``victim``; the server runs with
  ``--webhook-delay 0.2 --webhook-interval 1`` so that this takes a minute, not ten);
* ``undo``: end turn and undo at once, as fast as the server answers, in a game whose other seat has a webhook:
  the notices that seat gets (``attack``);
* ``creation``: games created as fast as one address is let, each request claiming another address in
  ``X-Forwarded-For``; then whether a new client may still create a game (``new_client_creates``);
* ``slowloris``: 2,000 connections from one address that send half a request head, one byte a second, reopened
  when the server closes them; then a new client opens a connection every half second for 5 s (``probe``), and the
  server's open files are counted;
* ``votes``: one seat withdrawing a takeover vote it does not have on a seat that is not abandoned, as fast as the
  server answers; a spectator socket on that game counts the views pushed to it (``vote_game_pushes``).

These run with the server's default limits for what they attack (per-client game caps, connection caps); the
other scenarios lift the per-client caps that the benchmark's single load process would otherwise meet.

The load generators run in a separate process from the measuring client, at a lower CPU priority (nice 10, like the
server's MCTS workers): hostile clients would be on other machines; on this one they must not take the CPU the
server and the measured client need (without it, the load process alone used most of a core in ``all``).
``--legacy`` runs an older hansa (given by ``--hansa``) with the same loads, passing it only the flags its
``hansa serve --help`` lists.  Measures; asserts nothing.  Prints a table and, with ``--json F``, writes the
numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import multiprocessing
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

LEGACY_FLAGS = {"--bot-delay", "--bot-processes"}
#: The hostile clients come from 127.0.0.1, the measured human from 127.0.0.2 and a probing new client from 127.0.0.3
#: (on Linux all of 127.0.0.0/8 is loopback): the server's per-client limits tell them apart, as they would tell
#: clients on other machines apart.
HUMAN_ADDRESS = "127.0.0.2"
PROBE_ADDRESS = "127.0.0.3"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def known_flags(hansa: str) -> set[str]:
    """The flags of ``hansa serve`` (an older hansa knows fewer of them)."""
    out = subprocess.run([hansa, "serve", "--help"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "300"},
                         timeout=60).stdout
    return {word.strip(",") for word in out.split() if word.startswith("--")}


class Server:
    def __init__(self, hansa: str, legacy: bool, flags: list[str]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="hansa-hostile-"))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        known = known_flags(hansa) if legacy else set()
        keep: list[str] = []
        for name, value in zip(flags[::2], flags[1::2]):
            if not legacy or name in LEGACY_FLAGS or name in known:
                keep += [name, value]
        self.proc = subprocess.Popen(
            [hansa, "serve", "--port", str(self.port), "--database-url", f"sqlite:///{self.dir / 'db.sqlite3'}", *keep],
            stdout=open(self.dir / "server.log", "wb"), stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if httpx.get(self.base + "/api/bots", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("server did not start: " + (self.dir / "server.log").read_text()[-2000:])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def create(base: str, players: list[dict[str, Any]], seed: int | None = None, hotseat: bool = False,
           legacy: bool = False) -> dict[str, Any]:
    """A game of seat links, or with ``hotseat`` a hot-seat game (one ``hotseat_token`` for every human seat, no seat
    tokens).  An older server (``legacy``) knows no ``table.hotseat`` and gives every game both kinds of token."""
    body: dict[str, Any] = {"players": players}
    if seed is not None:
        body["seed"] = seed
    if hotseat and not legacy:
        body["table"] = {"hotseat": True}
    r = httpx.post(base + "/api/games", json=body, timeout=30)
    r.raise_for_status()
    return r.json()  # type: ignore[no-any-return]


def humans(n: int) -> list[dict[str, Any]]:
    return [{"name": f"H{i}", "type": "human"} for i in range(n)]


def bots(n: int, spec: str) -> list[dict[str, Any]]:
    return [{"name": f"B{i}", "type": "bot", "bot": spec} for i in range(n)]


def pick(view: dict[str, Any], rng: random.Random) -> str:
    legal = [m["text"] for m in view["legal"]]
    claims = [m for m in legal if m.startswith("claim")]
    if claims:
        return rng.choice(claims)
    builds = [m for m in legal if m.split()[0] in ("place", "relocate", "marker", "neutral", "income")]
    if builds and rng.random() < 0.85:
        return rng.choice(builds)
    return rng.choice(legal)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---------------------------------------------------------------------------------------------- the human


async def human_game(base: str, game: dict[str, Any], moves: int, think: float, seed: int) -> dict[str, Any]:
    """Play ``moves`` moves of the hot-seat ``game``; the latency of each move POST."""
    gid, token = game["id"], game["hotseat_token"]
    rng = random.Random(seed)
    latencies: list[float] = []
    timeouts = 0
    headers = {"X-Hansa-Token": token}
    transport = httpx.AsyncHTTPTransport(local_address=HUMAN_ADDRESS)
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=10, transport=transport) as http:
        view = (await http.get(f"/api/games/{gid}")).json()
        while len(latencies) + timeouts < moves and view["legal"]:
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            text = pick(view, rng)
            body = {"move": text, "version": view["version"], "seat": view["state"]["turn"]["decider"]}
            t0 = time.perf_counter()
            try:
                r = await http.post(f"/api/games/{gid}/moves", json=body)
            except httpx.TimeoutException:
                timeouts += 1
                if timeouts >= 3:
                    break
                view = (await http.get(f"/api/games/{gid}", timeout=30)).json()
                continue
            latencies.append(time.perf_counter() - t0)
            if r.status_code != 200:
                view = (await http.get(f"/api/games/{gid}")).json()
                continue
            view = r.json()
    return summarize(latencies, timeouts)


def summarize(latencies: list[float], timeouts: int = 0) -> dict[str, Any]:
    ms = [x * 1000 for x in latencies]
    return {
        "n": len(ms), "timeouts": timeouts,
        "p50_ms": round(percentile(ms, 0.50), 1), "p99_ms": round(percentile(ms, 0.99), 1),
        "max_ms": round(max(ms), 1) if ms else None,
        "mean_ms": round(statistics.fmean(ms), 1) if ms else None,
    }


async def easy_bot_waits(base: str, turns: int) -> dict[str, Any]:
    """A human against an mcts:easy bot: seconds from the human's move (ending the turn) to the human's next decision."""
    game = create(base, humans(1) + bots(1, "mcts:easy"), seed=5)
    gid, token = game["id"], game["seats"][0]["token"]
    rng = random.Random(5)
    waits: list[float] = []
    async with httpx.AsyncClient(base_url=base, headers={"X-Hansa-Token": token}, timeout=120) as http:
        async def my_turn() -> dict[str, Any]:
            while True:
                v = (await http.get(f"/api/games/{gid}")).json()
                if v["legal"] or v["status"] != "running":
                    return v  # type: ignore[no-any-return]
                await asyncio.sleep(0.02)

        view = await my_turn()
        while len(waits) < turns and view["status"] == "running":
            legal = [m["text"] for m in view["legal"]]
            text = "end" if "end" in legal and rng.random() < 0.5 else pick(view, rng)
            t0 = time.perf_counter()
            r = await http.post(f"/api/games/{gid}/moves", json={"move": text, "version": view["version"]})
            after = r.json() if r.status_code == 200 else view
            if after["legal"]:  # still the human's decision: no bot involved
                view = after
                continue
            view = await my_turn()
            waits.append(time.perf_counter() - t0)
    return {"n": len(waits), "p50_s": round(percentile(waits, 0.5), 2), "p99_s": round(percentile(waits, 0.99), 2),
            "max_s": round(max(waits), 2) if waits else None}


# ---------------------------------------------------------------------------------------------- hostile loads


def raw_ws(port: int, gid: str) -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /api/games/{gid}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            break
        head += chunk
    s.setblocking(False)
    return s


PING = bytes([0x81, 0x80 | 15]) + b"\0\0\0\0" + b'{"type":"ping"}'


async def slow_sockets(port: int, gid: str, stalled: int, flooders: int, stop: Any) -> None:
    """Sockets that never read (reopened when dropped) and sockets that flood pings without reading."""
    loop = asyncio.get_running_loop()
    socks: list[tuple[str, socket.socket | None]] = [("stall", None)] * stalled + [("flood", None)] * flooders
    while not stop.is_set():
        for i, (kind, s) in enumerate(socks):
            dead = s is None
            if s is not None:
                try:
                    if kind == "flood":
                        s.send(PING * 20)
                    elif s.recv(1, socket.MSG_PEEK) == b"":
                        dead = True
                except BlockingIOError:
                    pass
                except OSError:
                    dead = True
            if dead:
                if s is not None:
                    s.close()
                try:
                    socks[i] = (kind, await loop.run_in_executor(None, raw_ws, port, gid))
                except OSError:
                    socks[i] = (kind, None)
        await asyncio.sleep(0.05)
    for _, s in socks:
        if s is not None:
            s.close()


async def pollers(base: str, paths: list[str], stop: Any) -> None:
    async def poll(path: str) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            while not stop.is_set():
                try:
                    await http.get(path)
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)

    await asyncio.gather(*[poll(p) for p in paths])


async def watchers(ws_base: str, gids: list[str], per_game: int, stop: Any) -> None:
    async def watch(gid: str) -> None:
        while not stop.is_set():
            try:
                async with websockets.connect(f"{ws_base}/api/games/{gid}/ws", max_size=2**24, open_timeout=30) as ws:
                    while not stop.is_set():
                        try:
                            await asyncio.wait_for(ws.recv(), 1)
                        except TimeoutError:
                            pass
            except Exception:  # noqa: BLE001 - refused or dropped: try again a little later
                await asyncio.sleep(1)

    await asyncio.gather(*[watch(g) for g in gids for _ in range(per_game)])


# ---------------------------------------------------------------------------------------------- second-round attacks


async def long_answers(base: str, legacy: bool, readers: list[str], mover: dict[str, Any], total: int, stop: Any,
                       counts: dict[str, int]) -> None:
    """Items 1 and 9: three anonymous pollers of a long game's log (a random page of 1,000 moves; the whole log on
    the legacy server), six of its replayed positions (a random move each time), and one client alternating a move
    of another long game with that game's log, record and history."""
    rng = random.Random(9)

    async def count(r: httpx.Response) -> None:
        key = str(r.status_code)
        counts[key] = counts.get(key, 0) + 1

    async def log_poller(http: httpx.AsyncClient) -> None:
        while not stop.is_set():
            gid = rng.choice(readers)
            path = f"/api/games/{gid}/log" if legacy else f"/api/games/{gid}/log?start={rng.randrange(total)}&limit=1000"
            with contextlib.suppress(httpx.HTTPError):
                await count(await http.get(path))

    async def replay_poller(http: httpx.AsyncClient) -> None:
        while not stop.is_set():
            with contextlib.suppress(httpx.HTTPError):
                await count(await http.get(f"/api/games/{rng.choice(readers)}/replay/{rng.randrange(total)}"))

    async def alternator(http: httpx.AsyncClient) -> None:
        gid = mover["id"]
        headers = {"X-Hansa-Token": mover["hotseat_token"]}
        view = (await http.get(f"/api/games/{gid}", headers=headers)).json()
        while not stop.is_set():
            if view["legal"]:
                body = {"move": pick(view, rng), "version": view["version"], "seat": view["state"]["turn"]["decider"]}
                r = await http.post(f"/api/games/{gid}/moves", json=body, headers=headers)
                view = r.json() if r.status_code == 200 else (await http.get(f"/api/games/{gid}", headers=headers)).json()
            for path in ("/log" if legacy else "/log?start=0&limit=1000", "/record", "/history"):
                with contextlib.suppress(httpx.HTTPError):
                    await count(await http.get(f"/api/games/{gid}{path}"))

    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        await asyncio.gather(*[log_poller(http) for _ in range(3)], *[replay_poller(http) for _ in range(6)],
                             alternator(http))


class Receiver:
    """A webhook receiver on ``host`` answering ``status``; records (arrival time, body) of what it is sent."""

    def __init__(self, host: str = HUMAN_ADDRESS, status: int = 204) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        got: list[tuple[float, dict[str, Any]]] = []
        self.got = got

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with contextlib.suppress(ValueError):
                    got.append((time.time(), json.loads(body)))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.host = host
        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/hook"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def handovers(base: str, game: dict[str, Any], target: int, stop: Any, counts: dict[str, int],
                    undo: bool = False, gap: float = 0.0, times: list[float] | None = None) -> list[float]:
    """Hand the decision to seat ``target`` again and again in a hot-seat game: its other seat ends its turn (and,
    with ``undo``, takes that back at once); the decision then goes back by the target seat ending its turn.
    Returns when each hand-over happened (appended to ``times`` as they happen, if given)."""
    rng = random.Random(target)
    gid = game["id"]
    headers = {"X-Hansa-Token": game["hotseat_token"]}
    times = [] if times is None else times
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
        view = (await http.get(f"/api/games/{gid}")).json()
        while not stop.is_set() and view["status"] == "running":
            decider = view["state"]["turn"]["decider"]
            legal = [m["text"] for m in view["legal"]]
            text = "end" if "end" in legal else pick(view, rng)
            r = await http.post(f"/api/games/{gid}/moves", json={"move": text, "version": view["version"], "seat": decider})
            counts[f"move {r.status_code}"] = counts.get(f"move {r.status_code}", 0) + 1
            if r.status_code != 200:
                view = (await http.get(f"/api/games/{gid}")).json()
                continue
            after = r.json()
            if decider != target and after["state"]["turn"]["decider"] == target:
                times.append(time.time())
                if undo:
                    u = await http.post(f"/api/games/{gid}/undo", json={"version": after["version"], "seat": decider})
                    counts[f"undo {u.status_code}"] = counts.get(f"undo {u.status_code}", 0) + 1
                    after = u.json() if u.status_code == 200 else (await http.get(f"/api/games/{gid}")).json()
                if gap:
                    await asyncio.sleep(gap)
            view = after
    return times


async def failing_handovers(base: str, game: dict[str, Any], hook: str, legacy: bool, stop: Any,
                            counts: dict[str, int]) -> None:
    """Item 2: both seats of a game point their webhooks at ``hook`` (a receiver answering 500) and the decision is
    handed between them as fast as the server answers; when the game stops (the move cap), the same again in a new
    game."""
    while not stop.is_set():
        for seat in (0, 1):
            httpx.put(f"{base}/api/games/{game['id']}/webhook", json={"url": hook, "seat": seat},
                      headers={"X-Hansa-Token": game["hotseat_token"]}, timeout=30)
        await handovers(base, game, 1, stop, counts)
        if not stop.is_set():
            counts["games stopped by the cap"] = counts.get("games stopped by the cap", 0) + 1
            game = create(base, humans(2), hotseat=True, legacy=legacy)


def webhook_victim(base: str, hook: str, handover_gap: float, count: int, legacy: bool = False) -> dict[str, Any]:
    """A victim seat with a working webhook: ``count`` hand-overs to it, ``handover_gap`` seconds apart; how many
    of its notices arrived and how long after the hand-over."""
    receiver = Receiver()
    try:
        game = create(base, humans(2), hotseat=True, legacy=legacy)
        r = httpx.put(f"{base}/api/games/{game['id']}/webhook", json={"url": receiver.url, "seat": 1},
                      headers={"X-Hansa-Token": game["hotseat_token"]}, timeout=30)
        if r.status_code != 200:
            return {"error": r.text}
        stop = threading.Event()
        counts: dict[str, int] = {}

        async def run() -> list[float]:
            async def stopper() -> None:
                while True:
                    await asyncio.sleep(0.1)
                    if len(times) >= count:
                        stop.set()
                        return

            times: list[float] = []
            task = asyncio.ensure_future(stopper())
            await handovers(base, game, 1, stop, counts, gap=handover_gap, times=times)
            task.cancel()
            return times

        times = asyncio.run(run())
        time.sleep(handover_gap + 3)
        arrivals = sorted(t for t, body in receiver.got if body.get("game") == game["id"])
        delays = []
        for t0 in times:  # the first notice after each hand-over
            later = [a - t0 for a in arrivals if a >= t0]
            if later:
                delays.append(min(later))
        return {"handovers": len(times), "notices": len(arrivals),
                "delay_p50_s": round(percentile(delays, 0.5), 2) if delays else None,
                "delay_max_s": round(max(delays), 2) if delays else None}
    finally:
        receiver.close()


async def creation_flood(base: str, stop: Any, counts: dict[str, int]) -> None:
    """Item 4: create games as fast as the server lets one address, each request claiming another address in
    X-Forwarded-For."""
    body = {"players": [{"name": "Ann"}, {"name": "Bot", "type": "bot", "bot": "random"}]}
    i = 0
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while not stop.is_set():
            i += 1
            forwarded = f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"
            with contextlib.suppress(httpx.HTTPError):
                r = await http.post("/api/games", json=body, headers={"X-Forwarded-For": forwarded})
                counts[str(r.status_code)] = counts.get(str(r.status_code), 0) + 1
                if r.status_code == 429:
                    await asyncio.sleep(0.05)


async def slowloris(port: int, connections: int, stop: Any, counts: dict[str, int]) -> None:
    """Item 5: ``connections`` half-sent requests from one address, each reopened when the server closes it."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    async def one() -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
            except (OSError, TimeoutError):
                counts["connect failed"] = counts.get("connect failed", 0) + 1
                await asyncio.sleep(1)
                continue
            counts["opened"] = counts.get("opened", 0) + 1
            try:
                writer.write(b"GET /api/bots HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                while not stop.is_set():
                    try:
                        data = await asyncio.wait_for(reader.read(4096), 1.0)
                    except TimeoutError:
                        writer.write(b"a")  # one byte a second: the head never ends
                        continue
                    if not data:
                        counts["closed by the server"] = counts.get("closed by the server", 0) + 1
                        break
                    status = data.split(b" ", 2)[1].decode(errors="replace") if data.startswith(b"HTTP/") else "?"
                    counts[f"answered {status}"] = counts.get(f"answered {status}", 0) + 1
                    break
            except OSError:
                counts["reset"] = counts.get("reset", 0) + 1
            finally:
                writer.close()
            await asyncio.sleep(0.5)

    await asyncio.gather(*[one() for _ in range(connections)])


async def probe(base: str, stop: Any, counts: dict[str, int]) -> None:
    """A new client (127.0.0.3) opening a fresh connection every half second during an attack."""
    while not stop.is_set():
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
        try:
            async with httpx.AsyncClient(base_url=base, timeout=5, transport=transport) as http:
                r = await http.get("/api/bots")
                counts[f"probe {r.status_code}"] = counts.get(f"probe {r.status_code}", 0) + 1
        except httpx.HTTPError:
            counts["probe failed"] = counts.get("probe failed", 0) + 1
        await asyncio.sleep(0.5)


async def vote_flood(base: str, game: dict[str, Any], stop: Any, counts: dict[str, int]) -> None:
    """Item 8: one seat withdrawing a takeover vote on a seat that is not abandoned, as fast as it can."""
    gid = game["id"]
    view = httpx.get(f"{base}/api/games/{gid}", timeout=30).json()
    decider = view["state"]["turn"]["decider"]
    token = game["seats"][(decider + 1) % len(game["seats"])]["token"]
    async with httpx.AsyncClient(base_url=base, headers={"X-Hansa-Token": token}, timeout=30) as http:
        while not stop.is_set():
            with contextlib.suppress(httpx.HTTPError):
                r = await http.post(f"/api/games/{gid}/takeover", json={"seat": decider, "bot": None})
                counts[str(r.status_code)] = counts.get(str(r.status_code), 0) + 1


def run_load(kind: str, args: dict[str, Any], stop: Any) -> None:
    """Entry point of the load process.  It runs at a lower CPU priority (nice 10): on this one machine it stands
    in for clients on other machines, and must not win the CPU from the server or the measured client."""
    os.nice(10)

    kinds = set(kind.split())
    counts: dict[str, int] = {}
    receivers: list[Receiver] = []

    async def main() -> None:
        jobs = []
        base = args["base"]
        if "slow" in kinds:
            jobs.append(slow_sockets(args["port"], args["human_gid"], 50, 20, stop))
        if "pollers" in kinds:
            jobs.append(pollers(base, args["poll_paths"], stop))
        if "sockets" in kinds:
            jobs.append(watchers(args["ws_base"], args["watch_gids"], 50, stop))
        if "long" in kinds:
            jobs.append(long_answers(base, args["legacy"], args["long_readers"], args["long_mover"], args["long_total"],
                                     stop, counts))
        if "webhooks" in kinds:
            failing = Receiver(PROBE_ADDRESS, 500)  # the attackers' own receiver, answering 500 to everything
            receivers.append(failing)
            for game in args["hook_games"]:
                jobs.append(failing_handovers(base, game, failing.url, args["legacy"], stop, counts))
        if "undo" in kinds:
            opponent = Receiver(HUMAN_ADDRESS)  # the opponent's webhook: how many notices the spam makes
            receivers.append(opponent)
            game = args["undo_game"]
            httpx.put(f"{base}/api/games/{game['id']}/webhook", json={"url": opponent.url, "seat": 1},
                      headers={"X-Hansa-Token": game["hotseat_token"]}, timeout=30)
            jobs.append(handovers(base, game, 1, stop, counts, undo=True))
        if "creation" in kinds:
            jobs.append(creation_flood(base, stop, counts))
        if "slowloris" in kinds:
            jobs.append(slowloris(args["port"], 2000, stop, counts))
        if "votes" in kinds:
            jobs.append(vote_flood(base, args["vote_game"], stop, counts))

        async def until_stopped() -> None:
            while not stop.is_set():
                await asyncio.sleep(0.1)

        jobs.append(until_stopped())
        await asyncio.gather(*jobs)

    started = time.time()
    asyncio.run(main())
    for receiver in receivers:
        counts[f"notices to {receiver.host}"] = len(receiver.got)
        receiver.close()
    counts["seconds"] = round(time.time() - started, 1)
    Path(args["counts_file"]).write_text(json.dumps(counts))


# ---------------------------------------------------------------------------------------------- scenarios


def scenario(name: str, hansa: str, legacy: bool, moves: int, think: float) -> dict[str, Any]:
    flags = ["--bot-delay", "0.3"]
    if not legacy:
        flags += ["--create-per-minute", "100000", "--max-live-games", "100000", "--ws-per-client", "100000",
                  "--max-live-games-per-client", "100000", "--http-per-client", "100000",
                  "--ws-per-game", "100000" if name == "stress" else "50"]
    if name == "webhooks":  # notices to the receivers on 127.0.0.2 and .3, quickly (the victim's 20 take ~40 s)
        flags += ["--webhook-hosts", f"{HUMAN_ADDRESS},{PROBE_ADDRESS}", "--webhook-delay", "0.2",
                  "--webhook-interval", "1"]
    if name == "undo":
        flags += ["--webhook-hosts", HUMAN_ADDRESS]
    if name == "creation":  # the defaults of the per-client limits: the attack is creating games
        flags = [f for pair in zip(flags[::2], flags[1::2]) if pair[0] not in (
            "--create-per-minute", "--max-live-games-per-client") for f in pair]
    if name == "slowloris":  # the default connection limits: the attack is holding connections
        flags = [f for pair in zip(flags[::2], flags[1::2]) if pair[0] != "--http-per-client" for f in pair]
    server = Server(hansa, legacy, flags)
    base = server.base
    out: dict[str, Any] = {"scenario": name}
    try:
        counts_file = server.dir / "counts.json"
        load_args: dict[str, Any] = {"port": server.port, "base": base, "ws_base": base.replace("http", "ws"),
                                     "legacy": legacy, "counts_file": str(counts_file)}
        kind = {"all": "slow pollers mcts sockets"}.get(name, name)
        if "long" in kind:  # two long games to read, one to alternate moves and reads on
            readers = [create(base, humans(3), seed=70 + i, hotseat=True, legacy=legacy) for i in range(2)]
            for game in readers:
                play_fast(base, game, LONG_MOVES)
            mover = create(base, humans(3), seed=77, hotseat=True, legacy=legacy)
            play_fast(base, mover, LONG_MOVES - 1500)
            load_args.update(long_readers=[g["id"] for g in readers], long_mover=mover, long_total=LONG_MOVES)
            out["rss_before_mb"] = round(rss_kb(server.proc.pid) / 1024, 1)
        if "webhooks" in kind:
            load_args["hook_games"] = [create(base, humans(2), hotseat=True, legacy=legacy) for _ in range(2)]
        if "undo" in kind:
            load_args["undo_game"] = create(base, humans(2), hotseat=True, legacy=legacy)
        if "votes" in kind:
            load_args["vote_game"] = create(base, humans(3))
        # the human's game exists first so that the slow sockets can target it
        human_seed = 1234
        if "pollers" in kind:
            for _ in range(500):
                create(base, humans(2))
            long_game = create(base, humans(2), seed=7, hotseat=True, legacy=legacy)
            play_fast(base, long_game, 3000)
            limit = 100 if not legacy else 500
            load_args["poll_paths"] = [f"/api/games?limit={limit}"] * 4 + [f"/api/games/{long_game['id']}/history"] * 4
        if "mcts" in kind:
            for _ in range(20):
                create(base, bots(3, "mcts:hard"))
        if "sockets" in kind:
            load_args["watch_gids"] = [create(base, bots(3, "heuristic"))["id"] for _ in range(20)]
        # the human's game exists before the load starts: the slow sockets watch it.  Stalled sockets only hurt once
        # the kernel's socket buffers are full (about 4 MB of views here): in ``slow`` the human plays a five-seat
        # game (the largest views) long enough to get there
        slow = kind == "slow"
        human = create(base, humans(5 if slow else 3), seed=human_seed, hotseat=True, legacy=legacy)
        load_args["human_gid"] = human["id"]
        stop = multiprocessing.Event()
        loader = None
        if kind != "baseline" and kind.strip() != "mcts":
            loader = multiprocessing.Process(target=run_load, args=(kind, load_args, stop), daemon=True)
            loader.start()
        time.sleep(5 if kind != "baseline" else 0.5)
        rss_peak = [0]
        sampling = threading.Event()

        def sample_rss() -> None:
            while not sampling.is_set():
                rss_peak[0] = max(rss_peak[0], rss_kb(server.proc.pid))
                time.sleep(0.2)

        sampler = threading.Thread(target=sample_rss, daemon=True)
        sampler.start()
        pushes = watch_pushes(base, load_args["vote_game"]["id"]) if "votes" in kind else None
        out["human"] = asyncio.run(human_game(base, human, max(moves, 1000) if slow else moves, think, human_seed))
        if "mcts" in kind:
            out["mcts_easy_wait"] = asyncio.run(easy_bot_waits(base, 20))
        if "webhooks" in kind:
            out["victim"] = webhook_victim(base, HUMAN_ADDRESS, 1.5, 20, legacy)
        if "creation" in kind:  # after the flood: may a new client still create a game?
            with httpx.Client(base_url=base, timeout=30, transport=httpx.HTTPTransport(local_address=PROBE_ADDRESS)) as h:
                out["new_client_creates"] = h.post("/api/games", json={"players": humans(2)}).status_code
        if "slowloris" in kind:
            out["server_open_files"] = len(os.listdir(f"/proc/{server.proc.pid}/fd"))
            out["probe"] = asyncio.run(probe_for(base, 5.0))
        stop.set()
        if loader is not None:
            loader.join(30)
            if loader.is_alive():
                loader.terminate()
        sampling.set()
        out["server_rss_peak_mb"] = round(rss_peak[0] / 1024, 1)
        if pushes is not None:
            out["vote_game_pushes"] = pushes()
        if counts_file.exists():
            out["attack"] = json.loads(counts_file.read_text())
        try:
            out["stats"] = httpx.get(base + "/api/stats", timeout=10).json()
        except (httpx.HTTPError, ValueError):
            out["stats"] = None
        out["server_rss_mb"] = round(rss_kb(server.proc.pid) / 1024, 1)
    finally:
        server.stop()
    return out


#: Moves of the long games of the ``long`` scenario (the default move cap is 5,000).
LONG_MOVES = 4900


def watch_pushes(base: str, gid: str) -> Any:
    """A spectator socket on ``gid`` counting the views pushed to it; returns a function that stops it and gives the
    count."""
    count = [0]
    stop = threading.Event()

    async def watch() -> None:
        async with websockets.connect(f"{base.replace('http', 'ws')}/api/games/{gid}/ws") as ws:
            while not stop.is_set():
                try:
                    await asyncio.wait_for(ws.recv(), 0.5)
                    count[0] += 1
                except TimeoutError:
                    pass

    thread = threading.Thread(target=lambda: asyncio.run(watch()), daemon=True)
    thread.start()

    def done() -> int:
        stop.set()
        thread.join(5)
        return count[0] - 1  # the first view comes on connecting

    return done


async def probe_for(base: str, seconds: float) -> dict[str, int]:
    counts: dict[str, int] = {}
    stop = asyncio.Event()

    async def stopper() -> None:
        await asyncio.sleep(seconds)
        stop.set()

    await asyncio.gather(probe(base, stop, counts), stopper())
    return counts


def play_fast(base: str, game: dict[str, Any], moves: int, seed: int = 3) -> dict[str, Any]:
    """Play ``moves`` moves of a hot-seat game as fast as the server answers; returns the last view."""
    rng = random.Random(seed)
    gid = game["id"]
    with httpx.Client(base_url=base, headers={"X-Hansa-Token": game["hotseat_token"]}, timeout=30) as http:
        v = http.get(f"/api/games/{gid}").json()
        for _ in range(moves):
            if not v["legal"]:
                break
            r = http.post(f"/api/games/{gid}/moves",
                          json={"move": pick(v, rng), "version": v["version"], "seat": v["state"]["turn"]["decider"]})
            v = r.json() if r.status_code == 200 else http.get(f"/api/games/{gid}").json()
    return v  # type: ignore[no-any-return]


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# ---------------------------------------------------------------------------------------------- the fuzzer


def fuzz_cases(rng: random.Random, games: list[dict[str, Any]], views: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One batch of malformed or illegal requests (none may change anything)."""
    g = rng.choice(games)
    gid, hot = g["id"], g["hotseat_token"]
    v = views[gid]
    legal = [m["text"] for m in v["legal"]]
    some_legal = rng.choice(legal) if legal else "end"
    junk_token = rng.choice(["", "x", "forged" * 3, "a" * 200, hot[::-1], "\u00e9t\u00e9"])
    bad_bodies: list[bytes] = [
        b'{"move": NaN}', b'{"move": Infinity, "version": 0}', b'{"move": -Infinity}', b'{"move": "end", "version": NaN}',
        b'{"move": "\xff\xfe\xfd"}', b"\x80\x81\x82", os.urandom(rng.randint(1, 300)), b"[" * rng.randint(1000, 60000),
        b'{"move": ' + b"[" * 5000 + b"]" * 5000 + b"}", b'{"move": "end", "version": ' + b"9" * rng.randint(20, 9000) + b"}",
        b"", b"null", b"[]", b"true", b'"end"', b"{", b'{"move": "end"', b'{"move": "end",}', b"{'move': 'end'}",
        b'{"move": "' + b"x" * rng.randint(201, 60000) + b'"}',
        b'{"move": {"type": "place", "house": "' + b"A" * rng.randint(300, 5000) + b'", "piece": "T"}}',
        json.dumps({"move": some_legal, "version": v["version"] + rng.randint(1, 50)}).encode(),  # stale
        json.dumps({"move": some_legal, "version": v["version"], "seat": rng.choice([5, 9, -1, 1.5, "0"])}).encode(),
        json.dumps({"move": some_legal, "version": v["version"], "extra": 1}).encode(),
        json.dumps({"move": {"type": rng.choice(["place", "fly", "", "claim"]), "house": "ZZZ-YYY:9"}, "version": v["version"]}).encode(),
        json.dumps({"move": rng.choice(["claim GRO-EMD", "place T NOPE-NOPE:1", "displace GRO-EMD:1 T T", "swap ZZZ 1",
                                        "marker ZZZ-ZZZ", "income 99 99", "lift X", "🙂" * 10, "\x00\x01", "end end"]),
                    "version": v["version"]}).encode(),
        json.dumps({"move": [some_legal], "version": v["version"]}).encode(),
        json.dumps({"move": {"type": "place", **{f"k{i}": i for i in range(12)}}}).encode(),
    ]
    cases: list[dict[str, Any]] = []
    pick_body = rng.choice(bad_bodies)
    token = rng.choice([hot, None, junk_token])
    cases.append({"method": "POST", "path": f"/api/games/{gid}/moves", "body": pick_body,
                  "headers": {"X-Hansa-Token": token} if token else {}})
    # a legal move with a wrong or missing token, or at a stale version: refused (the creator's token and another
    # game's seat token are real tokens that control no seat of this game)
    wrong = rng.choice([None, junk_token, g["creator_token"], g["foreign_token"]])
    cases.append({"method": "POST", "path": f"/api/games/{gid}/moves",
                  "body": json.dumps({"move": some_legal, "version": v["version"]}).encode(),
                  "headers": {"X-Hansa-Token": wrong} if wrong else {}})
    cases.append({"method": "POST", "path": f"/api/games/{gid}/undo",
                  "body": rng.choice([b'{"version": "x"}', b'{"version": -1}', json.dumps({"version": v["version"] + 3}).encode(), b"[]"]),
                  "headers": {"X-Hansa-Token": rng.choice([hot, junk_token or "x"])}})
    cases.append({"method": rng.choice(["POST", "DELETE"]),
                  "path": f"/api/games/{gid}" + ("/stop" if rng.random() < 0.5 else ""), "body": b"",
                  "headers": {"X-Hansa-Token": rng.choice([hot, g["foreign_token"], junk_token or "x"])}})
    bad_create = rng.choice([
        {"players": [{"name": "A"}]}, {"players": [{"name": "A"}] * 6}, {"players": [{"name": ""}, {"name": "B"}]},
        {"players": [{"name": "x" * rng.randint(31, 5000)}, {"name": "B"}]},
        {"players": [{"name": "A"}, {"name": "B", "type": "bot", "bot": rng.choice(["genius", "mcts:seconds=999", "uniform", ""])}]},
        {"players": [{"name": "A"}, {"name": "B"}], "options": {"marker_set": rng.choice(["XX", 5, None, ["IT4"]])}},
        {"players": [{"name": "A"}, {"name": "B"}], "seed": rng.choice([-1, 2**53, 2**63, "7", 1.5])},
        {"players": [{"name": "A"}, {"name": "B"}], "options": {f"o{i}": i for i in range(rng.randint(33, 100))}},
        {"players": "AB"}, {"players": [{"name": "A", "type": "alien"}, {"name": "B"}]},
        {"players": [{"name": "\u0085\u009f"}, {"name": "B"}]}, {"players": [{"name": "A"}, {"name": "B"}], "hack": True},
    ])
    cases.append({"method": "POST", "path": "/api/games", "body": json.dumps(bad_create).encode(), "headers": {}})
    weird_path = rng.choice([
        f"/api/games/{'x' * rng.randint(17, 3000)}", "/api/games/%00%ff%fe", f"/api/games/{gid}/replay/-1",
        f"/api/games/{gid}/replay/{'9' * rng.randint(10, 5000)}", f"/api/games/{gid}/replay/abc", "/api/games?limit=0",
        "/api/games?limit=-5", f"/api/games?limit={'9' * 50}", "/api/games?before=" + "%" * rng.randint(1, 90),
        "/api/games?before=" + base64.urlsafe_b64encode(os.urandom(40)).decode(), "/api/games?status=hacked",
        "/api/boards/" + "9" * rng.randint(1, 500), "/api/nothing", f"/api/games/{gid}/record/x", "/static/../../etc/passwd",
        "/static/%2e%2e/%2e%2e/etc/passwd", "/game/" + "a" * rng.randint(1, 5000),
    ])
    cases.append({"method": "GET", "path": weird_path, "body": b"", "headers": {}})
    cases.append({"method": rng.choice(["PUT", "PATCH", "OPTIONS"]), "path": rng.choice(["/api/games", f"/api/games/{gid}/moves"]),
                  "body": b"{}", "headers": {}})
    cases.append({"method": "GET", "path": f"/api/games/{gid}", "body": b"",
                  "headers": {"X-Junk": "j" * rng.randint(17_000, 200_000)}})
    # the club's requests (accounts, tables, rematch, profiles): malformed, unauthenticated or out of bounds
    club = rng.choice([
        ("POST", "/api/account/signup", rng.choice([
            b'{"name": "x"}', json.dumps({"name": "a" * rng.randint(401, 5000), "password": "p" * 10}).encode(),
            json.dumps({"name": "ok name", "password": "p" * rng.randint(801, 60000)}).encode(),
            b'{"name": "A/B", "password": "longenough"}', b'{"name": "Ab", "password": "short"}', b"[]",
            os.urandom(50), b'{"name": "Ab", "password": "longenough", "admin": true}'])),
        ("POST", "/api/account/signin", rng.choice([b'{"name": 5, "password": "x"}', b'{"name": "x"}', b"{",
                                                     b'{"name": "a", "password": "b", "extra": 1}'])),
        ("POST", "/api/tables", rng.choice([b'{"players": 3}', b'{"players": 9}', b"{}"])),
        ("POST", "/api/tables/quick", rng.choice([b'{"players": 9}', b'{"players": 2, "name": ""}',
                                                  b'{"players": "2"}', b'{"players": 2, "clock": {"kind": "x"}}'])),
        ("POST", f"/api/tables/{'x' * rng.randint(17, 300)}/join", b"{}"),
        ("POST", "/api/tables/nosuchtbl/join", b'{"name": "Guest"}'),
        ("GET", f"/api/tables/{rng.choice(['%00', 'a-b', 'x' * 40])}", b""),
        ("GET", f"/api/tables?limit={rng.choice(['0', '-1', '101', 'x' * 50])}", b""),
        ("POST", "/api/account/password", b'{"old": "aaaaaaaa", "new": "bbbbbbbb"}'),
        ("POST", "/api/account/delete", b'{"password": "xxxxxxxx"}'),
        ("POST", "/api/account/seats", json.dumps({"game": gid}).encode()),
        ("POST", f"/api/games/{gid}/rematch", b""),
        ("GET", f"/api/players/{'x' * rng.randint(1, 300)}", b""),
        ("GET", f"/api/leaderboard?limit={rng.choice(['0', '-1', '101', 'x' * 50])}", b""),
    ])
    cases.append({"method": club[0], "path": club[1], "body": club[2],
                  "headers": {"X-Hansa-Token": rng.choice([hot, junk_token or "x"])} if "rematch" in club[1] else {}})
    return cases


def fuzz(hansa: str, legacy: bool, total: int, batch: int = 500) -> dict[str, Any]:
    flags = ["--bot-delay", "0"]
    if not legacy:
        flags += ["--create-per-minute", "1000000", "--ws-per-client", "100000", "--max-live-games-per-client", "100000"]
    server = Server(hansa, legacy, flags)
    base = server.base
    rng = random.Random(2026)
    try:
        games = [create(base, humans(n), seed=100 + n, hotseat=True, legacy=legacy) for n in (2, 3, 4, 5)]
        # a game of seat links: its seats' tokens are the fuzzer's tokens of another game
        seat_links = create(base, humans(2), seed=100)
        for g in games:
            g["foreign_token"] = seat_links["seats"][0]["token"]
        for g in games:  # put the games in varied positions
            play_fast(base, g, rng.randint(20, 120), seed=rng.randrange(1000))

        def observe() -> dict[str, Any]:
            seen: dict[str, Any] = {}
            for g in games:
                for tok in dict.fromkeys((None, g["hotseat_token"], *[s["token"] for s in g["seats"]])):
                    r = httpx.get(f"{base}/api/games/{g['id']}", headers={"X-Hansa-Token": tok} if tok else {}, timeout=30)
                    view = r.json()
                    view.pop("now", None)  # the server's time, in every answer: not a change of the game
                    seen[f"{g['id']}/{tok}"] = view
            lobby = httpx.get(base + "/api/games", params={"limit": 100}, timeout=30).json()["games"]
            seen["lobby"] = sorted((e["id"], e["moves"], e["status"]) for e in lobby)
            return seen

        before = observe()
        views = {g["id"]: before[f"{g['id']}/{g['hotseat_token']}"] for g in games}
        counts = {"requests": 0, "2xx": 0, "4xx": 0, "5xx": 0, "connection_errors": 0, "state_changes": 0, "batches": 0}
        statuses: dict[int, int] = {}
        fivexx: list[str] = []
        t0 = time.perf_counter()
        with httpx.Client(base_url=base, timeout=30) as http:
            while counts["requests"] < total:
                sent = 0
                while sent < batch and counts["requests"] < total:
                    for case in fuzz_cases(rng, games, views):
                        try:
                            headers = {k: v.encode() if not v.isascii() else v for k, v in case["headers"].items()}
                            r = http.request(case["method"], case["path"], content=case["body"] or None,
                                             headers={"Content-Type": "application/json", **headers})
                            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                            bucket = f"{r.status_code // 100}xx"
                            if bucket in counts:
                                counts[bucket] += 1
                            if r.status_code >= 500 and len(fivexx) < 10:
                                fivexx.append(f"{case['method']} {case['path'][:80]} {case['body'][:80]!r} -> {r.status_code}")
                        except httpx.HTTPError:
                            counts["connection_errors"] += 1
                        counts["requests"] += 1
                        sent += 1
                after = observe()
                changed = [k for k in before if before[k] != after[k]]
                counts["state_changes"] += len(changed)
                counts["batches"] += 1
                before = after
                views = {g["id"]: after[f"{g['id']}/{g['hotseat_token']}"] for g in games}
        counts["seconds"] = round(time.perf_counter() - t0, 1)
        counts["statuses"] = dict(sorted(statuses.items()))
        counts["examples_5xx"] = fivexx
        return counts
    finally:
        server.stop()


def startup(hansa: str, legacy: bool, games: int) -> dict[str, Any]:
    """Seconds from starting the server until it answers, with ``games`` stored games waiting for a human (three
    restarts of the same database)."""
    flags = ["--bot-delay", "0", "--create-per-minute", "1000000", "--max-live-games", "1000000",
             "--max-live-games-per-client", "1000000"]  # an older server gets those of them it knows
    server = Server(hansa, legacy, flags)
    with httpx.Client(base_url=server.base, timeout=30) as http:
        for _ in range(games):
            players = humans(1) + bots(1, "heuristic") + [{"name": "H1", "type": "human"}]  # no two seats alike
            http.post("/api/games", json={"players": players}).raise_for_status()
    server.proc.terminate()
    server.proc.wait()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        server.proc = subprocess.Popen(server.proc.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            try:
                if httpx.get(server.base + "/api/bots", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.01)
        times.append(round(time.perf_counter() - t0, 2))
        server.proc.terminate()
        server.proc.wait()
    server.stop()
    return {"games": games, "seconds": times}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hansa", default=str(Path(sys.executable).with_name("hansa")), help="the hansa command to serve")
    parser.add_argument("--legacy", action="store_true", help="the server is an older hansa without the new flags")
    parser.add_argument("--fuzz", type=int, default=20_000, help="malformed/illegal requests (0: no fuzzing)")
    parser.add_argument("--scenarios", default="baseline,slow,pollers,mcts,sockets,all,long,webhooks,undo,creation,"
                                                "slowloris,votes",
                        help="comma-separated: baseline, slow, pollers, mcts, sockets, all, long, webhooks, undo, "
                             "creation, slowloris, votes; or none")
    parser.add_argument("--moves", type=int, default=300, help="human moves measured per scenario")
    parser.add_argument("--think", type=float, default=0.05, help="seconds between the human's moves (0.5x-1.5x)")
    parser.add_argument("--startup", type=int, default=0, help="also time restarts with this many stored games")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    results: dict[str, Any] = {"hansa": args.hansa, "legacy": args.legacy, "cores": os.cpu_count()}
    if args.fuzz:
        print(f"fuzzing with {args.fuzz} requests ...", flush=True)
        results["fuzz"] = fuzz(args.hansa, args.legacy, args.fuzz)
        print(json.dumps(results["fuzz"], indent=1), flush=True)
    if args.startup:
        results["startup"] = startup(args.hansa, args.legacy, args.startup)
        print("restart with", args.startup, "stored games:", results["startup"]["seconds"], "s", flush=True)
    results["scenarios"] = []
    names = [] if args.scenarios == "none" else args.scenarios.split(",")
    for name in names:
        print(f"scenario {name} ...", flush=True)
        res = scenario(name, args.hansa, args.legacy, args.moves, args.think)
        results["scenarios"].append(res)
        print(json.dumps(res), flush=True)
    print()
    print(f"{'scenario':10} {'moves':>5} {'timeouts':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  more")
    for res in results["scenarios"]:
        h = res["human"]
        easy = res.get("mcts_easy_wait")
        extra = [f"mcts:easy wait p50/p99 {easy['p50_s']} / {easy['p99_s']} s (n={easy['n']})"] if easy else []
        extra.append(f"server RSS peak {res.get('server_rss_peak_mb')} MB")
        for key in ("victim", "new_client_creates", "probe", "server_open_files", "vote_game_pushes", "attack"):
            if key in res:
                extra.append(f"{key} {res[key]}")
        print(f"{res['scenario']:10} {h['n']:>5} {h['timeouts']:>8} {h['p50_ms']:>8} {h['p99_ms']:>8} {h['max_ms']!s:>8}  "
              + "; ".join(extra))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
