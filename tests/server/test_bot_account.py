"""`hansa bot-bridge` as a bot account (issue 32): signing in, taking a seat at an open table, playing the account's
seat through its session (cookie + CSRF), a revoked session and a throttled sign-in ending the bridge with a clear
error.  Real `hansa serve` and `hansa bot-bridge` processes, real engine subprocesses (examples/)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from server_support import Server
from test_accounts import PASSWORD, client, sign_up
from test_engine_seats import FIRST_LEGAL, HANSA, RANDOM_ENGINE, view, wait_until
from test_tables import Player, new_table

from hansa.record import game_from_record


def bridge(srv: Server, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """A `hansa bot-bridge` process (HANSA_TOKEN and HANSA_BOT_PASSWORD only from ``env``)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("HANSA_TOKEN", "HANSA_BOT_PASSWORD")}
    return subprocess.Popen([HANSA, "bot-bridge", "--server", srv.url, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**clean, **(env or {})})


def finish(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_bot_account_takes_a_table_seat_and_plays_its_game_to_the_end_reconnecting(make_server: Callable[..., Server],
                                                                     tmp_path: Path) -> None:
    srv = make_server()
    with client(srv) as robo:
        sign_up(robo, "Robo")
    ann = Player(srv, "Ann")
    try:
        # the quickest legal table: its creator does not sit; the bridge takes a seat and waits, then the creator
        # fills the other seat with a heuristic bot, which starts the table
        table = new_table(ann, players=2, sit=False)
        secret = tmp_path / "robo.password"
        secret.write_text(PASSWORD + "\n")
        proc = bridge(srv, "--account", "Robo", "--password-file", str(secret), "--table", table["id"],
                      "--engine", RANDOM_ENGINE)
        seated = wait_until(lambda: [s for s in ann.get(f"/api/tables/{table['id']}").json()["seats"]
                                     if s["name"] == "Robo"], 60)
        assert seated[0]["kind"] == "account" and proc.poll() is None  # seated, waiting for the start
        filled = ann.post(f"/api/tables/{table['id']}/bots", {"bot": "heuristic"})
        assert filled.status_code == 200 and filled.json()["status"] == "started", filled.text
        wait_until(lambda: view(srv, table["id"])["version"] >= 20, 120)
        srv.restart()  # the connection drops; the bridge connects again with its session and plays on
        out, errors = finish(proc, 300)
    finally:
        ann.close()
    assert proc.returncode == 0, errors
    assert PASSWORD not in out + errors
    assert "signed in as Robo" in errors and f"sits at table {table['id']}" in errors and "connecting again" in errors
    gid = table["id"]  # a table's game has the table's id
    final = view(srv, gid)
    assert final["status"] == "over"
    seat = [p["name"] for p in final["players"]].index("Robo")
    log = httpx.get(f"{srv.url}/api/games/{gid}/log?limit=1000").json()["log"]
    ours = [e for e in log if e["seat"] == seat]
    assert ours and all(e["by"] == "account" for e in ours)  # through the account's session, never a bot
    assert f"game {gid} over: {len(ours)} moves posted, 0 played by the fallback bot" in out
    replayed = game_from_record(httpx.get(f"{srv.url}/api/games/{gid}/record").json())
    assert replayed.is_over and len(replayed.moves) == final["version"]


def started_game(srv: Server, creator: Player, other: Player) -> str:
    table = new_table(creator, players=2)
    joined = other.post(f"/api/tables/{table['id']}/join", {})
    assert joined.status_code == 200 and joined.json()["status"] == "started", joined.text
    return str(joined.json()["game"])


def test_the_position_is_for_the_accounts_own_seat_only(sqlite_server: Server) -> None:
    srv = sqlite_server
    ann, bob, cy = Player(srv, "Ann"), Player(srv, "Bob"), Player(srv, "Cy")
    try:
        gid = started_game(srv, ann, bob)
        url = f"/api/games/{gid}/position"
        decider = ann if ann.get(f"/api/games/{gid}").json()["legal"] else bob
        waiting = bob if decider is ann else ann
        answer = decider.get(url)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["seat"] == decider.get(f"/api/games/{gid}").json()["you"][0] == body["request"]["seat"]
        assert waiting.get(url).status_code == 409  # its seat, not its decision
        refused = cy.get(url)  # another account, signed in, holding no seat of this game
        assert refused.status_code == 403 and "seat" in refused.json()["error"]
        assert httpx.get(srv.url + url).status_code == 403  # nobody signed in
    finally:
        for p in (ann, bob, cy):
            p.close()


def test_a_revoked_session_ends_the_bridge_with_a_clear_error(sqlite_server: Server) -> None:
    srv = sqlite_server
    ann, robo = Player(srv, "Ann"), Player(srv, "Robo")
    proc: subprocess.Popen[str] | None = None
    try:
        gid = started_game(srv, ann, robo)
        proc = bridge(srv, "--account", "Robo", "--game", gid, "--engine", FIRST_LEGAL,
                      env={"HANSA_BOT_PASSWORD": PASSWORD})
        seat = robo.get(f"/api/games/{gid}").json()["you"][0]
        wait_until(lambda: len(robo.get("/api/account/sessions").json()["sessions"]) >= 2, 60)  # the bridge's too

        def anns_turn() -> dict[str, Any] | None:  # the bridge has played Robo's turn when it is Ann's
            v: dict[str, Any] = ann.get(f"/api/games/{gid}").json()
            return v if v["legal"] else None

        v = wait_until(anns_turn, 60)
        # Robo signs out everywhere (the bridge's session ends with the others)
        assert robo.post("/api/account/signout-everywhere").json()["sessions"] >= 2
        while v["legal"]:  # Ann plays her turn: the seat the bridge plays must decide again
            played = ann.post(f"/api/games/{gid}/moves", {"move": v["legal"][0]["text"], "version": v["version"]})
            assert played.status_code == 200, played.text
            v = played.json()
        assert v["state"]["turn"]["decider"] == seat
        out, errors = finish(proc, 60)
    finally:
        ann.close()
        robo.close()
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert "the session of account 'Robo' has ended" in errors and "sign in anew" in errors
    assert view(srv, gid)["state"]["turn"]["decider"] == seat  # nothing was played after the revocation


def test_wrong_password_and_throttled_sign_in_are_reported_not_retried(make_server: Callable[..., Server]) -> None:
    srv = make_server("--sign-in-failures-per-name", "1", "--sign-in-block", "600")
    with client(srv) as c:
        sign_up(c, "Robo")
    wrong = {"HANSA_BOT_PASSWORD": "not the password"}
    proc = bridge(srv, "--account", "Robo", "--game", "abc", "--engine", FIRST_LEGAL, env=wrong)
    _, errors = finish(proc, 60)
    assert proc.returncode != 0 and "refused (401): wrong name or password" in errors
    started = time.monotonic()
    proc = bridge(srv, "--account", "Robo", "--game", "abc", "--engine", FIRST_LEGAL,
                  env={"HANSA_BOT_PASSWORD": PASSWORD})  # the right password, but the name is blocked now
    _, errors = finish(proc, 60)
    assert proc.returncode != 0 and "throttled by the server (429)" in errors
    retry = int(errors.split("Retry-After ")[1].split()[0])
    assert 500 < retry <= 600 and "not retried" in errors
    assert time.monotonic() - started < 30  # it ended at once instead of waiting out the block
    # a password is never taken from the command line; --account needs one
    proc = bridge(srv, "--account", "Robo", "--game", "abc", "--engine", FIRST_LEGAL)
    _, errors = finish(proc, 60)
    assert proc.returncode != 0 and "HANSA_BOT_PASSWORD" in errors
