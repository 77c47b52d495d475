"""The webhook sender (src/hansa/server/webhooks.py): notices coalesced per seat, at most one per interval, dropped
when their hand-over no longer stands, failing webhooks backing off and suspended alone, and one seat's failing or
slow receiver never delaying another seat's notices; end to end through a real server."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from clock_support import ClockServer, clock_server
from test_api import run_coroutine

from hansa.server import webhooks as webhooks_module
from hansa.server.webhooks import Webhooks

#: Receivers: a good one, one answering 500, a slow one (loopback addresses the allow-lists name).
GOOD, BAD, SLOW = "127.0.0.2", "127.0.0.3", "127.0.0.4"
ALL = f"{GOOD},{BAD},{SLOW}"
#: How late a victim's notice may be (beyond the delay) on a busy 2-core machine; typically 0.01 s.
MARGIN = 0.5


class Hook:
    """A webhook receiver on ``host``: answers ``status`` (or the next of ``statuses``) after ``sleep`` seconds, and
    records when each call came with its body, and the most calls it had at once."""

    def __init__(self, host: str, status: int = 204, sleep: float = 0.0, statuses: tuple[int, ...] = ()) -> None:
        self.calls: list[tuple[float, dict[str, Any]]] = []
        self.status = status
        self.statuses = list(statuses)
        self.sleep = sleep
        self.active = 0
        self.most = 0
        self.lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                with hook.lock:
                    hook.active += 1
                    hook.most = max(hook.most, hook.active)
                    status = hook.statuses.pop(0) if hook.statuses else hook.status
                answering = False
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                    with hook.lock:
                        hook.calls.append((time.monotonic(), body))
                    if hook.sleep and hook.hangs_up(self.connection, hook.sleep):
                        return
                    with hook.lock:  # the call ends as the answer goes (the sender may call again at once)
                        hook.active -= 1
                    answering = True
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the sender cut the call short
                finally:
                    if not answering:
                        with hook.lock:
                            hook.active -= 1

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            block_on_close = False

        self.server = Server((host, 0), Handler)
        self.url = f"http://{host}:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @staticmethod
    def hangs_up(connection: socket.socket, seconds: float) -> bool:
        """Wait ``seconds``, or until the caller hangs up (True)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if select.select([connection], [], [], min(left, 0.02))[0] and not connection.recv(1, socket.MSG_PEEK):
                return True
        return False

    def bodies(self) -> list[dict[str, Any]]:
        with self.lock:
            return [body for _, body in self.calls]

    def times(self) -> list[float]:
        with self.lock:
            return [t for t, _ in self.calls]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def good() -> Iterator[Hook]:
    hook = Hook(GOOD)
    yield hook
    hook.close()


@pytest.fixture
def bad() -> Iterator[Hook]:
    hook = Hook(BAD, status=500)
    yield hook
    hook.close()


def run(body: Callable[[], Coroutine[Any, Any, None]]) -> None:
    # on a thread of its own: a pytest worker that ran the Playwright (sync API) tests has an event loop running
    run_coroutine(body())


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


# ---------------------------------------------------------------------------------------------------- unit tests


def test_notices_for_one_seat_are_coalesced_into_the_latest(good: Hook) -> None:
    async def body() -> None:
        hooks = Webhooks(GOOD, 2.0, delay=0.3, interval=5.0)
        hooks.start()
        try:
            t0 = time.monotonic()
            for n in range(500):
                hooks.notify("g1", 1, good.url, {"n": n})
            hooks.notify("g1", 2, good.url, {"seat": 2})  # another seat has its own notice
            await until(lambda: hooks.sent == 2)
            await asyncio.sleep(0.4)
            assert sorted(map(str, good.bodies())) == sorted(map(str, [{"n": 499}, {"seat": 2}]))
            assert min(good.times()) - t0 >= 0.3  # the coalescing window
            assert (hooks.sent, hooks.coalesced, hooks.failed, hooks.pending) == (2, 499, 0, 0)
        finally:
            await hooks.stop()

    run(body)


def test_a_notice_that_no_longer_stands_is_dropped_and_forget_drops_what_is_pending(good: Hook) -> None:
    asked: list[tuple[str, int, str]] = []

    def stands(game_id: str, seat: int, url: str) -> bool:
        asked.append((game_id, seat, url))
        return seat != 1

    async def body() -> None:
        hooks = Webhooks(GOOD, 2.0, delay=0.1, interval=5.0, stands=stands)
        hooks.start()
        try:
            hooks.notify("g1", 1, good.url, {"seat": 1})  # the hand-over was undone meanwhile
            hooks.notify("g1", 2, good.url, {"seat": 2})
            hooks.notify("g1", 3, good.url, {"seat": 3})
            hooks.forget("g1", 3)  # its webhook was set again: nothing pending
            hooks.notify("g2", 0, good.url, {"game": 2})
            hooks.forget("g2")  # the game is gone
            await until(lambda: hooks.sent == 1)
            await asyncio.sleep(0.3)
            assert good.bodies() == [{"seat": 2}]
            assert sorted(asked) == [("g1", 1, good.url), ("g1", 2, good.url)]
            assert (hooks.sent, hooks.coalesced, hooks.failed, hooks.pending) == (1, 3, 0, 0)
        finally:
            await hooks.stop()

    run(body)


def test_a_seat_gets_at_most_one_notice_per_interval(good: Hook) -> None:
    async def body() -> None:
        hooks = Webhooks(GOOD, 2.0, delay=0.05, interval=0.6)
        hooks.start()
        try:
            hooks.notify("g", 0, good.url, {"n": 0})
            await until(lambda: hooks.sent == 1)
            for n in range(1, 50):  # hand-overs meanwhile: one notice, an interval after the first
                hooks.notify("g", 0, good.url, {"n": n})
                await asyncio.sleep(0)
            await until(lambda: hooks.sent == 2)
            await asyncio.sleep(0.2)
            times = good.times()
            assert good.bodies() == [{"n": 0}, {"n": 49}] and times[1] - times[0] >= 0.6
            assert hooks.coalesced == 48
        finally:
            await hooks.stop()

    run(body)


def test_a_failing_webhook_backs_off_and_is_suspended_after_failures_in_a_row() -> None:
    # 500 three times, a success (the count starts again), then 500 for good
    hook = Hook(BAD, status=500, statuses=(500, 500, 500, 204))
    suspended: list[tuple[str, int, str]] = []

    async def body() -> None:
        hooks = Webhooks(ALL, 2.0, delay=0.05, interval=0.1, suspend_after=4,
                         on_suspend=lambda g, s, u: suspended.append((g, s, u)))
        hooks.start()
        try:
            t0 = time.monotonic()
            hooks.notify("g", 1, hook.url, {"n": 1})  # tried again while it stands: 0.1, 0.2, 0.4 s apart
            await until(lambda: hooks.sent == 1)
            times = hook.times()
            gaps = [b - a for a, b in zip([t0, *times], times)]  # the delay, then the backoff
            assert all(want <= gap <= want + 0.5 for want, gap in zip([0.05, 0.1, 0.2, 0.4], gaps)), gaps
            assert hook.bodies() == [{"n": 1}] * 4 and not suspended
            hooks.notify("g", 1, hook.url, {"n": 2})  # fails 4 times in a row: suspended
            await until(lambda: bool(suspended))
            await asyncio.sleep(0.5)
            assert suspended == [("g", 1, hook.url)] and len(hook.calls) == 8
            assert (hooks.sent, hooks.failed, hooks.suspended) == (1, 7, 1)
            hooks.notify("g", 1, hook.url, {"n": 3})  # suspended: nothing sent
            await asyncio.sleep(0.3)
            assert len(hook.calls) == 8 and hooks.failed == 8
            hooks.forget("g", 1)  # its player set it again: a fresh start
            hooks.notify("g", 1, hook.url, {"n": 4})
            await until(lambda: len(hook.calls) == 9)
            assert hook.bodies()[-1] == {"n": 4} and suspended == [("g", 1, hook.url)]
            await until(lambda: len(suspended) == 2)  # four more failures in a row
            assert len(hook.calls) == 12 and hooks.suspended == 2
        finally:
            await hooks.stop()

    try:
        run(body)
    finally:
        hook.close()


def test_an_address_refused_when_sending_counts_as_a_failure(good: Hook) -> None:
    suspended: list[tuple[str, int, str]] = []

    async def body() -> None:
        # "localhost" is allowed as a name, but resolves to 127.0.0.1, which the list does not name
        hooks = Webhooks(f"localhost,{GOOD}", 2.0, delay=0.02, interval=0.05, suspend_after=2,
                         on_suspend=lambda g, s, u: suspended.append((g, s, u)))
        hooks.start()
        try:
            hooks.notify("g", 0, "http://localhost:9/x", {"n": 0})
            hooks.notify("g", 1, good.url, {"n": 1})
            await until(lambda: bool(suspended) and hooks.sent == 1)
            assert suspended == [("g", 0, "http://localhost:9/x")] and hooks.failed == 2
        finally:
            await hooks.stop()

    run(body)


def test_seats_with_a_notice_pending_are_bounded(good: Hook, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(webhooks_module, "MAX_PENDING", 5)

    async def body() -> None:
        hooks = Webhooks(GOOD, 2.0, delay=0.1, interval=5.0)
        hooks.start()
        try:
            for seat in range(50):
                hooks.notify("g", seat, good.url, {"seat": seat})
            hooks.notify("g", 0, good.url, {"seat": 0, "again": True})  # a seat already pending: replaced
            assert (hooks.pending, hooks.failed, hooks.coalesced) == (5, 45, 1)
            await until(lambda: hooks.sent == 5)
            assert sorted(b["seat"] for b in good.bodies()) == [0, 1, 2, 3, 4]
        finally:
            await hooks.stop()

    run(body)
    assert len([r for r in caplog.records if "dropped" in r.getMessage()]) == 1  # one line, not one per notice


# ---------------------------------------------------------------------------------------------------- the audit


def count_calls(hooks: Webhooks) -> dict[str, int]:
    """The most calls ``hooks`` had in flight at once, per host and in all (``"*"``), as the sender sees them."""
    real = hooks.deliver
    active: dict[str, int] = {}
    most: dict[str, int] = {}

    async def deliver(url: str, payload: dict[str, Any]) -> int:
        for name in (urlsplit(url).hostname or "", "*"):
            active[name] = active.get(name, 0) + 1
            most[name] = max(most.get(name, 0), active[name])
        try:
            return await real(url, payload)
        finally:
            for name in (urlsplit(url).hostname or "", "*"):
                active[name] -= 1

    hooks.deliver = deliver  # type: ignore[method-assign]
    return most


async def victim_notices_arrive_promptly(hooks: Webhooks, good: Hook, attack: Callable[[int], None],
                                         count: int = 20, spacing: float = 0.15) -> list[float]:
    """Flood the attacking seats (``attack(n)`` makes their n-th round of hand-overs) while a victim seat is handed
    the decision ``count`` times; the victim's notices' delays (from the hand-over to the receiver)."""
    loop = asyncio.get_running_loop()
    stop_at = loop.time() + count * spacing
    handed: dict[int, float] = {}

    async def flood() -> None:
        n = 0
        while loop.time() < stop_at:
            attack(n)
            n += 1
            await asyncio.sleep(0.001)

    async def victim() -> None:
        for i in range(count):
            handed[i] = time.monotonic()
            hooks.notify("victim", 0, good.url, {"i": i})
            await asyncio.sleep(spacing)

    await asyncio.gather(flood(), victim())
    await until(lambda: any(body["i"] == count - 1 for body in good.bodies()), 5.0)
    with good.lock:
        calls = list(good.calls)
    indices = [body["i"] for _, body in calls]
    assert indices == sorted(set(indices))
    # each hand-over is served by the first notice of it or of a later one (a notice still pending when the next
    # hand-over comes is replaced and keeps its place: on a busy machine, some may be)
    return [next(t for t, body in calls if body["i"] >= i) - handed[i] for i in range(count)]


@pytest.mark.parametrize("seats", [2, 400])
def test_seats_whose_webhook_fails_do_not_delay_anyone_else(good: Hook, bad: Hook, seats: int) -> None:
    """The audit: two seats (or many) pointing at a receiver that answers 500, flooded with hand-overs, while a
    victim seat's notices all arrive within the delay and a small margin."""

    async def body() -> None:
        hooks = Webhooks(ALL, 2.0, delay=0.1, interval=0.1, suspend_after=10**6)  # never suspended: the worst case
        most = count_calls(hooks)
        hooks.start()
        try:
            def attack(n: int) -> None:
                for seat in range(seats):
                    hooks.notify(f"attacker{seat // 5}", seat % 5, bad.url, {"n": n})

            delays = await victim_notices_arrive_promptly(hooks, good, attack)
            print(f"{seats} failing seats: {hooks.coalesced} notices coalesced, {len(bad.calls)} failed calls; "
                  f"the victim's delays {min(delays):.3f}-{max(delays):.3f} s")
            assert delays[0] >= 0.1 and all(d <= 0.1 + MARGIN for d in delays), delays
            assert hooks.coalesced > 1000  # thousands of hand-overs
            assert most[BAD] <= 2 and most["*"] <= 8  # two calls at once to the failing host, eight in all
            assert len(bad.calls) <= seats * 7  # each failing seat backs off: 0.1, 0.2, 0.4, ... s
        finally:
            await hooks.stop()

    run(body)


@pytest.mark.parametrize("seats", [2, 20])
def test_seats_whose_webhook_is_slow_do_not_delay_anyone_else(good: Hook, seats: int) -> None:
    slow = Hook(SLOW, sleep=3.0)

    async def body() -> None:
        hooks = Webhooks(ALL, 0.5, delay=0.1, interval=0.1, suspend_after=10**6)
        most = count_calls(hooks)
        hooks.start()
        try:
            def attack(n: int) -> None:
                for seat in range(seats):
                    hooks.notify(f"attacker{seat // 5}", seat % 5, slow.url, {"n": n})

            delays = await victim_notices_arrive_promptly(hooks, good, attack, count=12, spacing=0.2)
            print(f"{seats} slow seats: {hooks.failed} calls cut at the timeout; "
                  f"the victim's delays {min(delays):.3f}-{max(delays):.3f} s")
            assert delays[0] >= 0.1 and all(d <= 0.1 + MARGIN for d in delays), delays
            assert most[SLOW] <= 2 and most["*"] <= 8  # the host's cap
            assert hooks.failed >= 4  # each call cut short after 0.5 s (the receiver answers after 3 s)
        finally:
            await hooks.stop()

    try:
        run(body)
    finally:
        slow.close()


# ---------------------------------------------------------------------------------------------------- end to end


def new_game(srv: ClockServer) -> dict[str, Any]:
    r = srv.post("/api/games", {"players": [{"name": "Ada"}, {"name": "Bea"}], "seed": 4})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_a_failing_webhook_is_suspended_for_its_seat_and_undo_spam_gives_one_notice_per_interval(
    tmp_path: Path, good: Hook, bad: Hook,
) -> None:
    interval = 0.5
    with clock_server(f"sqlite:///{tmp_path / 'hooks.sqlite3'}", webhook_hosts=ALL, webhook_delay=0.1,
                      webhook_interval=interval, webhook_suspend_after=3, undo_per_minute=100_000.0) as srv:
        g = new_game(srv)
        gid, ada, bea = g["id"], g["seats"][0]["token"], g["seats"][1]["token"]
        assert srv.put(f"/api/games/{gid}/webhook", {"url": bad.url}, bea).status_code == 200
        srv.move(gid, ada, "end")  # Bea's turn: her notice fails, is tried again, and fails 3 times in a row
        deadline = time.monotonic() + 10
        while srv.view(gid, bea).get("webhooks_suspended") != [1]:
            assert time.monotonic() < deadline, srv.view(gid, bea)
            time.sleep(0.05)
        time.sleep(1.0)
        assert len(bad.calls) == 3 and {b["seat"] for b in bad.bodies()} == {1}  # and no more
        assert not srv.view(gid, ada).get("webhooks_suspended")  # shown to that seat alone
        assert srv.service.webhooks.suspended == 1
        r = srv.put(f"/api/games/{gid}/webhook", {"url": good.url}, bea)  # set again: no longer suspended
        assert r.status_code == 200 and srv.view(gid, bea).get("webhooks_suspended") == []
        srv.move(gid, bea, "end")
        # Ada ends her turn and takes it back, again and again, as fast as she can: Bea's webhook gets at most one
        # notice per interval, and the last one, as the decision ends with her
        t0 = time.monotonic()
        spam = 0
        while time.monotonic() - t0 < 2.5:
            srv.move(gid, ada, "end")
            r = srv.post(f"/api/games/{gid}/undo", {}, ada)
            assert r.status_code == 200, r.text
            spam += 1
        version = srv.move(gid, ada, "end")["version"]
        t1 = time.monotonic()
        deadline = t1 + 5
        while not good.calls or good.bodies()[-1]["version"] != version:
            assert time.monotonic() < deadline, good.bodies()
            time.sleep(0.02)
        times = good.times()
        gaps = [b - a for a, b in zip(times, times[1:])]
        print(f"{spam} end turn + undo in {t1 - t0:.1f} s: {len(times)} notices, gaps {[round(x, 2) for x in gaps]}")
        assert spam >= 5 and len(times) <= (t1 - t0) / interval + 2
        assert all(gap >= interval - 0.02 for gap in gaps), gaps
        assert times[-1] - t1 <= interval + 0.5 and len(bad.calls) == 3
        assert srv.service.webhooks.coalesced >= spam - len(times)
