"""Moderation (issue "Table talk"): `hansa admin` on a running server's database and the admin routes; every act
takes effect at once on running games and is logged with who and when."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import websockets
from server_support import HANSA, Server, two_processes
from test_accounts import PASSWORD
from test_api import wait_for
from test_hostile import is_api_error
from test_tables import Player, new_table


def admin(server: Server, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HANSA, "admin", *args, "--database-url", server.database_url], capture_output=True,
                          text=True, timeout=60)


def chat(server: Server, gid: str) -> list[dict[str, Any]]:
    return httpx.get(f"{server.url}/api/games/{gid}/chat").json()["messages"]  # type: ignore[no-any-return]


async def first_event(url: str, kind: str, ready: threading.Event, headers: dict[str, str] | None = None) -> Any:
    async with websockets.connect(url, subprotocols=["hansa"], additional_headers=headers or {}) as ws:
        ready.set()
        while True:
            data = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if data.get("type") == kind:
                return data


def test_the_operator_moderates_from_the_command_line(make_server: Callable[..., Server]) -> None:
    srv = make_server("--janitor-interval", "0.3")
    ann, bob = Player(srv, "Rude"), Player(srv, "Polite")
    tid = new_table(ann, players=2, clock={"kind": "turn", "base": 86400, "increment": 0})["id"]
    bob.post(f"/api/tables/{tid}/join", {})
    assert ann.post(f"/api/games/{tid}/chat", {"text": "you are a noob"}).status_code == 201
    assert bob.post(f"/api/games/{tid}/chat/1/report", {"reason": "insult"}).status_code == 200

    listed = admin(srv, "reports", "--json")
    assert listed.returncode == 0, listed.stderr
    [report] = json.loads(listed.stdout)
    assert (report["game"], report["n"], report["author"], report["text"], report["reason"]) == (
        tid, 1, "Rude", "you are a noob", "insult")

    assert admin(srv, "hide", tid, "1").returncode == 0
    [message] = chat(srv, tid)
    assert message["hidden"] is True and message["text"] is None  # no longer served

    assert admin(srv, "mute", "rude").returncode == 0  # any case
    r = ann.post(f"/api/games/{tid}/chat", {"text": "sorry"})
    assert is_api_error(r, 403) and "muted" in r.json()["error"]

    seat = ann.get(f"/api/games/{tid}").json()["you"][0]
    assert admin(srv, "disable", "Rude", "--note", "abuse").returncode == 0
    assert ann.get("/api/account").json()["account"] is None  # the session ended at once
    r = ann.http.post("/api/account/signin", json={"name": "Rude", "password": PASSWORD})
    assert is_api_error(r, 403) and "disabled" in r.json()["error"]
    # its running seat goes to the timeout bot
    view = wait_for(lambda: (v := httpx.get(f"{srv.url}/api/games/{tid}").json())["players"][seat]["away"] and v)
    assert view["players"][seat]["away"] is True

    assert admin(srv, "enable", "Rude").returncode == 0
    again = Player(srv, "Rude", new=False)
    r = again.post(f"/api/games/{tid}/back", {})
    assert r.status_code == 200 and r.json()["players"][seat]["away"] is False  # takes the seat back

    log = json.loads(admin(srv, "log", "--json").stdout)
    assert [(e["actor"], e["action"], e["target"]) for e in reversed(log)] == [
        ("cli", "hide", f"message:{tid}:1"), ("cli", "mute", "account:Rude"), ("cli", "disable", "account:Rude"),
        ("cli", "enable", "account:Rude")]
    assert log[-3]["note"] == "abuse"
    assert admin(srv, "mute", "nobody at all").returncode == 2
    for p in (ann, bob, again):
        p.close()


def test_admin_routes(server: Server, players: Callable[[str], Player]) -> None:
    boss, ann = players("Boss"), players("Chatter")
    tid = new_table(ann, players=2, bots=["random"])["id"]
    ann.post(f"/api/games/{tid}/chat", {"text": "spam spam"})
    ann.post(f"/api/games/{tid}/chat/1/report", {})
    assert is_api_error(boss.get("/api/admin/reports"), 403)  # not an administrator yet
    assert admin(server, "make-admin", "Boss").returncode == 0
    reports = boss.get("/api/admin/reports").json()["reports"]
    assert [r["text"] for r in reports] == ["spam spam"]
    ws_url = server.url.replace("http", "ws") + f"/api/games/{tid}/ws"
    ready = threading.Event()
    box: list[Any] = []
    t = threading.Thread(target=lambda: box.append(asyncio.run(first_event(ws_url, "chat_hidden", ready))))
    t.start()
    assert ready.wait(10)
    r = boss.post(f"/api/admin/games/{tid}/chat/1/hide", {"on": True})
    assert r.status_code == 200, r.text
    t.join(20)
    assert box == [{"type": "chat_hidden", "n": 1}]  # the pages are told at once
    assert boss.post("/api/admin/accounts/chatter/mute", {"on": True}).json()["chat_muted"] is True
    assert is_api_error(ann.post(f"/api/games/{tid}/chat", {"text": "again"}), 403)
    assert boss.post(f"/api/admin/reports/{reports[0]['id']}/resolve").status_code == 200
    assert boss.get("/api/admin/reports").json()["reports"] == []
    assert is_api_error(ann.post(f"/api/admin/games/{tid}/chat/1/hide", {"on": False}), 403)
    assert is_api_error(boss.post("/api/admin/accounts/ghost/disable", {"on": True}), 404)
    log = boss.get("/api/admin/log").json()["entries"]
    assert [e["actor"] for e in log][:3] == ["admin:Boss"] * 3


def test_a_message_hidden_from_the_command_line_reaches_every_process(tmp_path: Path) -> None:
    with two_processes(tmp_path) as (a, b):
        g = httpx.post(a.url + "/api/games", json={"players": [{"name": "X"}, {"name": "Y"}]}).json()
        gid = g["id"]
        httpx.post(f"{a.url}/api/games/{gid}/chat", json={"text": "hidden soon"},
                   headers={"X-Hansa-Token": g["seats"][0]["token"]})
        boxes: list[list[Any]] = []
        threads = []
        for srv in (a, b):
            ready = threading.Event()
            box: list[Any] = []
            boxes.append(box)
            u = srv.url.replace("http", "ws") + f"/api/games/{gid}/ws"
            t = threading.Thread(target=lambda u=u, bx=box, r=ready: bx.append(asyncio.run(first_event(u, "chat_hidden", r))))
            t.start()
            threads.append(t)
            assert ready.wait(10)
        assert admin(a, "hide", gid, "1").returncode == 0
        for t in threads:
            t.join(20)
        assert boxes == [[{"type": "chat_hidden", "n": 1}]] * 2
