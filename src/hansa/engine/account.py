"""A bot account for ``hansa bot-bridge``: signing in, finding the account's seat (an open table it joins, or a game
it is seated in) and telling a session that ended from any other refusal.

The account signs in through ``POST /api/account/signin`` like a browser's sign-in page, without ``Origin`` or
``Sec-Fetch-Site`` headers (a program is no other site's page); the answer sets the ``hansa_session`` cookie, kept in
the client's cookie jar, and gives the session's CSRF token, sent as ``X-CSRF-Token`` with every request that
changes something.  The game's WebSocket takes the cookie only with an ``Origin`` of the server itself
(:meth:`AccountSession.socket_headers`).

A session that ends while the bridge plays (signed out everywhere, the password changed, the account disabled or
deleted, ``--session-days`` passed) is :class:`SessionEnded`: the bridge stops with that error and does not sign in
again by itself, so that "sign out everywhere" and a password change do stop it.  A throttled sign-in (429) is
reported with its ``Retry-After`` and never retried.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from .bridge import BridgeError

#: The session cookie and the CSRF header (hansa.server.accounts.COOKIE / CSRF_HEADER).
COOKIE, CSRF_HEADER = "hansa_session", "X-CSRF-Token"
#: Longest password the server takes (hansa.server.accounts.MAX_PASSWORD) and longest account name we send.
MAX_PASSWORD, MAX_NAME = 200, 400
#: Environment variable with the password (instead of --password-file).
PASSWORD_ENV = "HANSA_BOT_PASSWORD"


class SessionEnded(BridgeError):
    """The account's session is no longer valid (signed out, password changed, account disabled, expired)."""


def read_password(path: str | None, env: dict[str, str]) -> str:
    """The password from ``--password-file`` (its first line) or else :data:`PASSWORD_ENV`; never from the command
    line."""
    if path is not None:
        try:
            with Path(path).open(encoding="utf-8") as f:
                text = f.read(4 * MAX_PASSWORD + 2)
        except OSError as exc:
            raise BridgeError(f"--password-file: cannot read {path}: {exc.strerror or exc}") from None
        lines = text.splitlines()
        password = lines[0] if lines else ""
    else:
        password = env.get(PASSWORD_ENV, "")
    if not password:
        raise BridgeError(f"--account needs its password: --password-file FILE (first line) or env {PASSWORD_ENV}")
    if len(password) > MAX_PASSWORD:
        raise BridgeError(f"the password is longer than {MAX_PASSWORD} characters")
    return password


class AccountSession:
    """A signed-in account on one server: an ``httpx.Client`` holding its session cookie, and the CSRF token."""

    def __init__(self, base: str, name: str, password: str) -> None:
        import httpx

        if not name or len(name) > MAX_NAME or not name.isprintable():
            raise BridgeError(f"--account: an account name of 1 to {MAX_NAME} printable characters")
        self.base = base
        self.name = name
        self._password = password
        self.http = httpx.Client(base_url=base, timeout=15.0)
        self.csrf = ""

    # ------------------------------------------------------------------ session

    def sign_in(self) -> None:
        """Sign in; :class:`BridgeError` with the server's reason (wrong name or password, throttled: the seconds
        to wait, never retried here; disabled)."""
        import httpx

        try:
            answer = self.http.post("/api/account/signin", json={"name": self.name, "password": self._password})
        except httpx.HTTPError as exc:
            raise BridgeError(f"{self.base}: cannot sign in: {exc}") from None
        if answer.status_code == 429:
            wait = answer.headers.get("Retry-After", "?")
            raise BridgeError(f"sign-in as {self.name!r} throttled by the server (429): too many failed sign-ins; "
                              f"Retry-After {wait} s - not retried, start the bridge again after that")
        if answer.status_code != 200:
            raise BridgeError(f"sign-in as {self.name!r} refused ({answer.status_code}): {error_text(answer)}")
        self.csrf = str(answer.json()["csrf"])
        if not self.http.cookies.get(COOKIE):
            raise BridgeError(f"{self.base}: the sign-in set no session cookie (is it https behind a proxy?)")

    def check(self, what: str, otherwise: str | None = None) -> NoReturn:
        """After a refusal (401/403): :class:`SessionEnded` if the session is gone, else :class:`BridgeError`
        (``otherwise``, or "``what`` refused")."""
        import httpx

        try:
            me = self.http.get("/api/account")
        except httpx.HTTPError as exc:
            raise OSError(f"checking the session: {exc}") from None
        if me.status_code == 200 and me.json().get("account") is None:
            raise SessionEnded(f"the session of account {self.name!r} has ended (signed out everywhere, password "
                               f"changed, account disabled or session expired); {what} refused - start the bridge "
                               "again to sign in anew")
        raise BridgeError(otherwise or f"{what} refused for account {self.name!r}")

    def headers(self) -> dict[str, str]:
        """Headers of a request that changes something."""
        return {CSRF_HEADER: self.csrf}

    def socket_headers(self) -> dict[str, str]:
        """Headers of the game's WebSocket: the cookie, and the server's own origin (the server takes a session on a
        WebSocket only from its own pages)."""
        return {"Cookie": f"{COOKIE}={self.http.cookies.get(COOKIE, '')}", "Origin": self.base}

    def close(self) -> None:
        self.http.close()

    # ------------------------------------------------------------------ finding the seat

    def join_table(self, table: str, wait_for: float, say: Callable[[str], None],
                   every: float = 1.0) -> str:
        """Take a seat at the open table ``table`` (unless the account sits there already) and wait until it starts;
        the game's id (a table's game has the table's id).  :class:`BridgeError` when it closes or does not start
        within ``wait_for`` seconds."""
        if not table.isascii() or not table.isalnum() or len(table) > 16:
            raise BridgeError("--table: a table's id (letters and digits, from its link /table/ID)")
        info = self._table("GET", table)
        if info["you"] is None:
            if info["status"] != "open":
                raise BridgeError(f"table {table} is {info['status']}, and account {self.name!r} has no seat there")
            info = self._table("POST", table)
            say(f"account {self.name} sits at table {table} (seat {info['you']} until the start shuffles them)")
        deadline = time.monotonic() + wait_for
        while info["status"] != "started":
            if info["status"] == "closed":
                raise BridgeError(f"table {table} closed: {info.get('note') or 'by its creator'}")
            if info["you"] is None:
                self.check(f"table {table}", f"account {self.name!r} was removed from table {table}")
            if time.monotonic() > deadline:
                raise BridgeError(f"table {table} did not start within {wait_for:g} s")
            time.sleep(every)
            try:
                info = self._table("GET", table)
            except OSError as exc:  # the server is away for a moment: look again until the deadline
                say(f"{exc}; looking again")
                time.sleep(min(5.0, every * 4))
        if info["you"] is None:
            self.check(f"table {table}", f"table {table} started without account {self.name!r}")
        return str(info["game"])

    def _table(self, method: str, table: str) -> dict[str, Any]:
        import httpx

        what = "joining" if method == "POST" else "reading"
        try:
            if method == "POST":
                answer = self.http.post(f"/api/tables/{table}/join", json={}, headers=self.headers())
            else:
                answer = self.http.get(f"/api/tables/{table}")
        except httpx.HTTPError as exc:
            if method == "GET":
                raise OSError(f"reading table {table}: {exc}") from None
            raise BridgeError(f"{what} table {table}: {exc}") from None
        if answer.status_code in (401, 403):
            self.check(f"{what} table {table}")
        if answer.status_code != 200:
            raise BridgeError(f"{what} table {table}: {answer.status_code} {error_text(answer)}")
        return answer.json()  # type: ignore[no-any-return]


def error_text(answer: Any) -> str:
    """The ``error`` of a server's JSON answer, else the start of its text."""
    try:
        return str(answer.json()["error"])[:200]
    except (ValueError, KeyError, TypeError):
        return str(answer.text[:200])
