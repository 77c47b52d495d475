"""Engine seats on a real `hansa serve` (the operator's --engines allow-list) and `hansa bot-bridge` playing a seat
of a running server through its public API, with real engine subprocesses (examples/, tests/engines/)."""

from __future__ import annotations

import contextlib
import json
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from server_support import Server

from hansa.core.state import GameState
from hansa.record import game_from_record

ROOT = Path(__file__).resolve().parent.parent.parent
HANSA = shutil.which("hansa") or str(Path(sys.executable).parent / "hansa")
PY = shlex.quote(sys.executable)
FIRST_LEGAL = f"{PY} {shlex.quote(str(ROOT / 'examples' / 'engine_first_legal.py'))}"
RANDOM_ENGINE = f"{PY} {shlex.quote(str(ROOT / 'examples' / 'engine_random.py'))}"
BAD = f"{PY} {shlex.quote(str(ROOT / 'tests' / 'engines' / 'bad_engine.py'))}"
HUMAN = {"name": "Ann", "type": "human"}


def create(server: Server, players: list[dict[str, Any]], seed: int = 5) -> httpx.Response:
    return httpx.post(f"{server.url}/api/games", json={"players": players, "seed": seed}, timeout=10)


def view(server: Server, gid: str, token: str | None = None) -> dict[str, Any]:
    headers = {"X-Hansa-Token": token} if token else {}
    return httpx.get(f"{server.url}/api/games/{gid}", headers=headers, timeout=10).json()  # type: ignore[no-any-return]


def wait_until(check: Callable[[], Any], timeout: float = 120.0) -> Any:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_allowed_engine_seats_play_and_unlisted_ones_are_refused(make_server: Callable[..., Server]) -> None:
    engines = f"first={RANDOM_ENGINE};crashy={BAD} crash 40"
    srv = make_server("--engines", engines)
    bots = httpx.get(f"{srv.url}/api/bots").json()["bots"]
    assert bots[-2:] == ["engine:first", "engine:crashy"]
    assert "engines" not in httpx.get(f"{srv.url}/api/limits").json()["limits"]  # commands stay the operator's
    lobby_before = httpx.get(f"{srv.url}/api/games").json()["games"]
    for bad in ("engine:other", f"engine:{FIRST_LEGAL}", "engine:python3 -c 'print(1)'", "engine:"):
        answer = create(srv, [HUMAN, {"name": "E", "type": "bot", "bot": bad}])
        assert answer.status_code == 400 and "bot" in answer.json()["error"], bad
    assert httpx.get(f"{srv.url}/api/games").json()["games"] == lobby_before  # nothing was created
    game = create(srv, [{"name": "F", "type": "bot", "bot": "engine:first"},
                        {"name": "C", "type": "bot", "bot": "engine:crashy"},
                        {"name": "H", "type": "bot", "bot": "heuristic"}]).json()
    gid = game["id"]
    # the crashing engine is restarted after each crash (its failure is logged and shown, then retried)
    final = wait_until(lambda: (lambda v: v if v["status"] != "running" else None)(view(srv, gid)), 240)
    assert final["status"] == "over"
    record = httpx.get(f"{srv.url}/api/games/{gid}/record").json()
    replayed = game_from_record(record)
    assert replayed.is_over and len(replayed.moves) == final["version"]
    log = srv.log.read_text()
    assert "bot engine:crashy failed in game" in log and "crashing at decision 41 (on purpose)" in log


def test_a_server_without_engines_knows_none(sqlite_server: Server) -> None:
    assert not any(b.startswith("engine:") for b in httpx.get(f"{sqlite_server.url}/api/bots").json()["bots"])
    answer = create(sqlite_server, [HUMAN, {"name": "E", "type": "bot", "bot": "engine:first"}])
    assert answer.status_code == 400


def test_position_endpoint(sqlite_server: Server) -> None:
    game = create(sqlite_server, [HUMAN, {"name": "Bo", "type": "human"}], seed=9).json()
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    v = view(sqlite_server, gid, tokens[0])
    decider = v["state"]["turn"]["decider"]
    url = f"{sqlite_server.url}/api/games/{gid}/position"
    assert httpx.get(url).status_code == 403
    assert httpx.get(url, headers={"X-Hansa-Token": tokens[1 - decider]}).status_code == 409
    body = httpx.get(url, headers={"X-Hansa-Token": tokens[decider]}).json()
    request = body["request"]
    assert body["seat"] == decider == request["seat"] and request["type"] == "decide"
    assert request["game"]["seed"] is None and request["game"]["moves"] == []
    state = GameState.from_snapshot(request["position"])
    legal = [m["text"] for m in view(sqlite_server, gid, tokens[decider])["legal"]]
    assert [m.text() for m in state.legal_moves()] == request["legal"] == legal


def test_bot_bridge_plays_a_seat_to_the_end_and_reconnects(make_server: Callable[..., Server]) -> None:
    srv = make_server()
    game = create(srv, [HUMAN, {"name": "H", "type": "bot", "bot": "heuristic"}], seed=3).json()
    gid, token = game["id"], game["seats"][0]["token"]
    bridge = subprocess.Popen(
        [HANSA, "bot-bridge", "--server", f"{srv.url}/game/{gid}", "--token", token, "--engine", RANDOM_ENGINE,
         "--reconnect-for", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        wait_until(lambda: view(srv, gid)["version"] >= 30, 120)
        srv.restart()  # the connection drops; the bridge connects again and plays on
        out, errors = bridge.communicate(timeout=240)
    finally:
        if bridge.poll() is None:
            bridge.kill()
            bridge.wait()
    assert bridge.returncode == 0, errors
    assert "connecting again" in errors
    final = view(srv, gid)
    assert final["status"] == "over"
    moves = [e for e in json.loads(httpx.get(f"{srv.url}/api/games/{gid}/log?limit=1000").text)["log"]]
    ours = [e for e in moves if e["seat"] == 0]
    assert ours and all(e["by"] == "seat" for e in ours)
    assert f"game {gid} over: {len(ours)} moves posted, 0 played by the fallback bot" in out


def test_a_hanging_engine_seat_times_out_and_its_game_ends(make_server: Callable[..., Server]) -> None:
    """An engine that stops answering (after 60 answers each time it starts) is timed out after its budget and the
    grace, logged, started again, and the game goes on to its end; the record replays."""
    srv = make_server("--engines", f"hangy={BAD} hang 60", "--engine-seconds", "0.2")
    game = create(srv, [{"name": "Hy", "type": "bot", "bot": "engine:hangy"},
                        {"name": "H", "type": "bot", "bot": "heuristic"},
                        {"name": "P", "type": "bot", "bot": "purpose"}], seed=8).json()
    gid = game["id"]
    final = wait_until(lambda: (lambda v: v if v["status"] != "running" else None)(view(srv, gid)), 300)
    assert final["status"] == "over"
    replayed = game_from_record(httpx.get(f"{srv.url}/api/games/{gid}/record").json())
    assert replayed.is_over and len(replayed.moves) == final["version"]
    log = srv.log.read_text()
    assert "bot engine:hangy failed in game" in log and "no answer to decision" in log
    seat_moves = [e for e in httpx.get(f"{srv.url}/api/games/{gid}/log?limit=1000").json()["log"] if e["seat"] == 0]
    assert len(seat_moves) > 60  # it played on after its first hang


def test_bot_workers_play_engine_seats(tmp_path: Path) -> None:
    """With --bots queue the `hansa bots` workers play the engine seats, with the allow-list given to them as
    HANSA_ENGINES (docs/api.md): a game of an engine seat, a crashing engine seat and a built-in bot ends; a web
    process whose allow-list lacks a name refuses it."""
    import os

    import pytest
    from server_support import POSTGRES_URL, postgres_database

    if not POSTGRES_URL:
        pytest.skip("HANSA_TEST_POSTGRES_URL is not set (scripts/test.sh sets it up with Debian's PostgreSQL)")
    url = postgres_database()
    engines = f"first={FIRST_LEGAL};crashy={BAD} crash 30"
    web = Server(url, tmp_path / "web.log", "--bots", "queue", "--engines", engines)
    web.start()
    log = tmp_path / "bots.log"
    worker = subprocess.Popen(
        [HANSA, "bots", "--database-url", url, "--workers", "1", "--bot-delay", "0"],
        stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "HANSA_ENGINES": engines, "HANSA_ENGINE_SECONDS": "1"},
    )
    try:
        game = create(web, [{"name": "F", "type": "bot", "bot": "engine:first"},
                            {"name": "C", "type": "bot", "bot": "engine:crashy"},
                            {"name": "H", "type": "bot", "bot": "heuristic"}], seed=4).json()
        gid = game["id"]
        final = wait_until(lambda: (lambda v: v if v["status"] != "running" else None)(view(web, gid)), 300)
        assert final["status"] == "over"
        replayed = game_from_record(httpx.get(f"{web.url}/api/games/{gid}/record").json())
        assert replayed.is_over and len(replayed.moves) == final["version"]
        assert "crashing at decision 31 (on purpose)" in log.read_text()
        assert create(web, [HUMAN, {"name": "X", "type": "bot", "bot": "engine:other"}]).status_code == 400
    finally:
        import signal

        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        web.stop()
