"""Accounts (issue "The club"): password hashing, sessions and their revocation, CSRF, sign-in throttling, no user
enumeration, deletion, bounds.  Against real `hansa serve` processes (SQLite and PostgreSQL)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import argon2
import httpx
import pytest
from server_support import Server, two_processes
from sqlalchemy import create_engine, text
from test_hostile import is_api_error

PASSWORD = "correct horse battery"


def client(server: Server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=30)


def sign_up(c: httpx.Client, name: str, password: str = PASSWORD) -> dict[str, Any]:
    r = c.post("/api/account/signup", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def sign_in(c: httpx.Client, name: str, password: str = PASSWORD) -> httpx.Response:
    return c.post("/api/account/signin", json={"name": name, "password": password})


def me(c: httpx.Client) -> dict[str, Any]:
    r = c.get("/api/account")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def db_rows(server: Server, sql: str, **params: Any) -> list[Any]:
    engine = create_engine(server.database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql), params))
    finally:
        engine.dispose()


def test_password_hashing_parameters(server: Server) -> None:
    """argon2id with RFC 9106's low-memory parameters; the password is nowhere in the database."""
    with client(server) as c:
        sign_up(c, "Hashed")
    [(stored,)] = db_rows(server, "SELECT password_hash FROM accounts WHERE name = 'Hashed'")
    params = argon2.extract_parameters(stored)
    assert params.type is argon2.Type.ID
    assert (params.memory_cost, params.time_cost, params.parallelism) == (65536, 3, 4)
    assert params.salt_len == 16 and params.hash_len == 32
    assert argon2.PasswordHasher().verify(stored, PASSWORD)
    sessions = db_rows(server, "SELECT id_hash, csrf FROM sessions")
    assert len(sessions) == 1 and len(sessions[0][0]) == 64  # a SHA-256, not the cookie
    if server.database_url.startswith("sqlite"):
        raw = Path(server.database_url.removeprefix("sqlite:///")).read_bytes()
        wal = Path(server.database_url.removeprefix("sqlite:///") + "-wal")
        raw += wal.read_bytes() if wal.exists() else b""
        assert PASSWORD.encode() not in raw


def test_sign_up_in_out_and_the_cookie(server: Server) -> None:
    with client(server) as c:
        assert me(c) == {"account": None, "csrf": None}
        r = c.post("/api/account/signup", json={"name": "  Ann  Smith ", "password": PASSWORD})
        assert r.status_code == 201, r.text
        cookie = r.headers["set-cookie"]
        assert "hansa_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
        assert "Secure" not in cookie  # plain HTTP here; over HTTPS the cookie is Secure
        body = r.json()
        assert body["account"]["name"] == "Ann Smith" and len(body["csrf"]) > 20
        assert me(c) == body
        r = c.post("/api/account/signout", headers={"X-CSRF-Token": body["csrf"]})
        assert r.status_code == 200 and me(c)["account"] is None
        r = sign_in(c, "ann smith")  # the name's case and spacing do not matter
        assert r.status_code == 200, r.text
        assert r.json()["account"]["name"] == "Ann Smith" and r.json()["csrf"] != body["csrf"]


def test_sign_out_revokes_the_session_on_the_server(server: Server) -> None:
    with client(server) as c:
        csrf = sign_up(c, "Revoked")["csrf"]
        old = c.cookies["hansa_session"]
        assert c.post("/api/account/signout", headers={"X-CSRF-Token": csrf}).status_code == 200
    with client(server) as thief:  # the cookie kept by someone after sign-out
        thief.cookies.set("hansa_session", old)
        assert me(thief)["account"] is None
        r = thief.post("/api/account/signout-everywhere", headers={"X-CSRF-Token": csrf})
        assert is_api_error(r, 401)
    assert db_rows(server, "SELECT count(*) FROM sessions")[0][0] == 0


def test_password_change_revokes_every_other_session(server: Server) -> None:
    with client(server) as laptop, client(server) as phone:
        sign_up(laptop, "Changer")
        assert sign_in(phone, "Changer").status_code == 200
        csrf = me(laptop)["csrf"]
        old_cookie = laptop.cookies["hansa_session"]
        r = laptop.post("/api/account/password", json={"old": PASSWORD, "new": "a new pass phrase"},
                        headers={"X-CSRF-Token": csrf})
        assert r.status_code == 200, r.text
        assert r.json()["csrf"] != csrf and laptop.cookies["hansa_session"] != old_cookie
        assert me(laptop)["account"]["name"] == "Changer"  # the current session goes on, renewed
        assert me(phone)["account"] is None  # the other one ended
    with client(server) as c:
        c.cookies.set("hansa_session", old_cookie)  # the cookie from before the change
        assert me(c)["account"] is None
        assert is_api_error(sign_in(c, "Changer"), 401)
        assert sign_in(c, "Changer", "a new pass phrase").status_code == 200


def test_password_change_needs_the_old_password(server: Server) -> None:
    with client(server) as c:
        csrf = sign_up(c, "Careful")["csrf"]
        r = c.post("/api/account/password", json={"old": "not it at all", "new": "another phrase"},
                   headers={"X-CSRF-Token": csrf})
        assert is_api_error(r, 401)
        assert sign_in(c, "Careful").status_code == 200


def test_csrf_refused(server: Server) -> None:
    """A state-changing request made with the cookie needs the session's CSRF token; nothing changes without it."""
    with client(server) as c, client(server) as other:
        csrf = sign_up(c, "Guarded")["csrf"]
        assert sign_in(other, "Guarded").status_code == 200
        for headers in ({}, {"X-CSRF-Token": "x" * 43}, {"X-CSRF-Token": me(other)["csrf"]}):
            r = c.post("/api/account/signout-everywhere", headers=headers)
            assert is_api_error(r, 403) and "X-CSRF-Token" in r.json()["error"]
            r = c.post("/api/account/password", json={"old": PASSWORD, "new": "changed by a forger"}, headers=headers)
            assert is_api_error(r, 403)
            r = c.post("/api/account/delete", json={"password": PASSWORD}, headers=headers)
            assert is_api_error(r, 403)
        assert me(c)["account"]["name"] == "Guarded" and me(other)["account"]["name"] == "Guarded"
        assert sign_in(httpx.Client(base_url=server.url), "Guarded").status_code == 200  # password unchanged
        r = c.post("/api/account/signout-everywhere", headers={"X-CSRF-Token": csrf})
        assert r.status_code == 200 and r.json()["sessions"] == 3
        assert me(other)["account"] is None


def test_sign_in_and_up_from_another_site_refused(server: Server) -> None:
    """No session yet, so no CSRF token: the browser's Origin and Sec-Fetch-Site headers decide (login CSRF)."""
    with client(server) as c:
        sign_up(c, "Sited")
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "same-site"}):
        with client(server) as c:
            assert is_api_error(c.post("/api/account/signin", json={"name": "Sited", "password": PASSWORD},
                                       headers=headers), 403)
            assert is_api_error(c.post("/api/account/signup", json={"name": "Forged", "password": PASSWORD},
                                       headers=headers), 403)
            assert "hansa_session" not in c.cookies
    host = server.url.removeprefix("http://")
    with client(server) as c:  # the server's own pages send these
        r = c.post("/api/account/signin", json={"name": "Sited", "password": PASSWORD},
                   headers={"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"})
        assert r.status_code == 200, r.text
    assert db_rows(server, "SELECT count(*) FROM accounts WHERE name = 'Forged'")[0][0] == 0


@pytest.fixture
def throttled(make_server: Callable[..., Server]) -> Server:
    return make_server("--sign-in-failures-per-name", "3", "--sign-in-failures-per-address", "6",
                       "--sign-in-block", "60")


def test_throttling_per_account(throttled: Server) -> None:
    with client(throttled) as c:
        sign_up(c, "Target")
    with client(throttled) as c:
        for _ in range(3):
            assert is_api_error(sign_in(c, "Target", "guess guess"), 401)
        r = sign_in(c, "Target")  # even the right password: the name is blocked
        assert is_api_error(r, 429) and 55 <= int(r.headers["Retry-After"]) <= 60
        assert is_api_error(sign_in(c, "TARGET"), 429)  # the same name in another case
        assert sign_in(c, "Nobody here", "x" * 8).status_code == 401  # other names are still tried


def test_throttling_per_address(throttled: Server) -> None:
    with client(throttled) as c:
        sign_up(c, "Victim")
        for i in range(6):
            assert is_api_error(sign_in(c, f"spray{i}", "guess guess"), 401)
        r = sign_in(c, "Victim")
        assert is_api_error(r, 429) and int(r.headers["Retry-After"]) >= 55


def test_unknown_names_are_throttled_the_same(throttled: Server) -> None:
    """Blocking would tell which names exist if it only counted real ones."""
    with client(throttled) as c:
        sign_up(c, "Real one")
    answers: dict[str, list[tuple[int, str]]] = {}
    with client(throttled) as c:
        for name in ("Real one", "Not a user"):
            answers[name] = []
            for _ in range(4):
                r = sign_in(c, name, "wrong guess")
                answers[name].append((r.status_code, r.json()["error"]))
    assert answers["Real one"] == answers["Not a user"]
    assert [s for s, _ in answers["Real one"]] == [401, 401, 401, 429]


def test_no_user_enumeration_through_sign_in(server: Server) -> None:
    """Same status, same body and comparable time for an unknown name and a wrong password."""
    with client(server) as c:
        sign_up(c, "Existing")

    def attempt(name: str) -> tuple[float, int, str]:
        with client(server) as c:
            start = time.perf_counter()
            r = sign_in(c, name, "wrong guess!")
            return time.perf_counter() - start, r.status_code, r.text

    known = [attempt("Existing") for _ in range(4)]
    unknown = [attempt(f"Ghost{i}") for i in range(4)]
    assert {(s, t) for _, s, t in known} == {(s, t) for _, s, t in unknown} == {
        (401, '{"error":"wrong name or password","rule":null}')}
    # argon2 verification (~0.1 s) is done for unknown names too: without it they would answer ~50x faster
    assert min(t for t, _, _ in unknown) > 0.4 * min(t for t, _, _ in known), (known, unknown)


def test_sign_up_of_a_taken_name(server: Server) -> None:
    """Names are public (profiles, leaderboard): sign-up says a name is taken, but only after the same work."""
    with client(server) as c:
        start = time.perf_counter()
        sign_up(c, "Taken")
        fresh = time.perf_counter() - start
    with client(server) as c:
        start = time.perf_counter()
        r = c.post("/api/account/signup", json={"name": "ＴＡＫＥＮ", "password": "another password"})
        taken = time.perf_counter() - start
        assert is_api_error(r, 409) and "taken" in r.json()["error"]
        assert "hansa_session" not in c.cookies
    assert taken > 0.4 * fresh


def test_delete_account(server: Server) -> None:
    with client(server) as c:
        csrf = sign_up(c, "Leaving")["csrf"]
        r = c.post("/api/account/delete", json={"password": "not the password"}, headers={"X-CSRF-Token": csrf})
        assert is_api_error(r, 401)
        r = c.post("/api/account/delete", json={"password": PASSWORD}, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 200, r.text
        assert me(c)["account"] is None
        assert is_api_error(sign_in(c, "Leaving"), 401)
    [(name, key, hashed, deleted)] = db_rows(
        server, "SELECT name, name_key, password_hash, deleted_at FROM accounts")
    assert (name, hashed) == ("Deleted player", None) and deleted is not None and key.startswith("deleted:")
    assert db_rows(server, "SELECT count(*) FROM sessions")[0][0] == 0
    with client(server) as c:
        sign_up(c, "Leaving")  # the name is free again


@pytest.mark.parametrize("body, status", [
    ({"name": "x", "password": PASSWORD}, 400),  # too short
    ({"name": "a" * 31, "password": PASSWORD}, 400),  # longer than --max-name
    ({"name": "a/b", "password": PASSWORD}, 400),
    ({"name": "bot:me", "password": PASSWORD}, 400),
    ({"name": "Zero\u200bWidth", "password": PASSWORD}, 400),
    ({"name": "Deleted Player", "password": PASSWORD}, 400),
    ({"name": "Shorty", "password": "short"}, 400),
    ({"name": "Shorty", "password": "p" * 201}, 400),
    ({"name": "Samesame", "password": "samesame"}, 400),
    ({"name": "Extra", "password": PASSWORD, "admin": True}, 400),
    ({"name": 7, "password": PASSWORD}, 400),
    ({"name": "Nopass"}, 400),
])
def test_sign_up_bounds(sqlite_server: Server, body: dict[str, Any], status: int) -> None:
    with client(sqlite_server) as c:
        r = c.post("/api/account/signup", json=body)
        assert is_api_error(r, status), r.text
    assert db_rows(sqlite_server, "SELECT count(*) FROM accounts")[0][0] == 0


def test_sign_ups_per_address(make_server: Callable[..., Server]) -> None:
    srv = make_server("--signups-per-hour", "2")
    with client(srv) as c:
        sign_up(c, "First")
        sign_up(c, "Second")
        r = c.post("/api/account/signup", json={"name": "Third", "password": PASSWORD})
        assert is_api_error(r, 429) and int(r.headers["Retry-After"]) > 0


def test_throttling_counts_across_processes(tmp_path: Path) -> None:
    """Failed sign-ins are counted in the database: two processes share the count (PostgreSQL)."""
    flags = ("--sign-in-failures-per-name", "4", "--sign-in-block", "60")
    with two_processes(tmp_path, *flags) as (a, b):
        with client(a) as c:
            sign_up(c, "Shared")
        for srv in (a, b, a, b):
            with client(srv) as c:
                assert is_api_error(sign_in(c, "Shared", "wrong guess"), 401)
        for srv in (a, b):
            with client(srv) as c:
                assert is_api_error(sign_in(c, "Shared"), 429)
