"""Engine seats on a real `hansa serve` (the operator's --engines allow-list) and `hansa bot-bridge` playing a seat
of a running server through its public API, with real engine subprocesses (examples/, tests/engines/)."""

from __future__ import annotations

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
