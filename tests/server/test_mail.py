"""E-mail turn notices (issue 30): verification, notices, reminders, unsubscribing, batching, retries, several
processes, bounds.  Against real `hansa serve` processes and a real SMTP server (aiosmtpd) in the test process."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from server_support import POSTGRES_URL, Server, free_port, postgres_database
from test_accounts import PASSWORD, db_rows
from test_api import wait_for
from test_hostile import is_api_error
from test_tables import Player, new_table, play_a_move

from hansa.server.config import ServerConfig
from hansa.server.mail import clean_address, parse_smtp_url

TURN_DAY = {"kind": "turn", "base": 86400}


@dataclass
class Inbox:
    """An aiosmtpd handler that keeps every message it is given, with when it came."""

    messages: list[tuple[float, EmailMessage]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self.lock:
            self.messages.append((time.time(), message))
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for _, m in self.messages if m["To"] == address]

    def times(self, address: str) -> list[float]:
        with self.lock:
            return [t for t, m in self.messages if m["To"] == address]


class Smtp:
    """A local SMTP server on a free port (started at once unless ``start=False``)."""

    def __init__(self, start: bool = True) -> None:
        self.port = free_port()
        self.inbox = Inbox()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.running = False
        if start:
            self.start()

    def start(self) -> None:
        self.controller.start()
        self.running = True

    def stop(self) -> None:
        if self.running:
            self.controller.stop()
            self.running = False


@pytest.fixture
def smtp() -> Iterator[Smtp]:
    s = Smtp()
    yield s
    s.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        if not POSTGRES_URL:
            pytest.skip("HANSA_TEST_POSTGRES_URL is not set (scripts/test.sh sets it up with Debian's PostgreSQL)")
        return postgres_database()
    return f"sqlite:///{tmp_path / 'hansa.sqlite3'}"


@pytest.fixture
def mail_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """``mail_server(database_url, smtp_port, *flags)``: a started server that sends e-mail through the port."""
    made: list[Server] = []

    def make(url: str, port: int, *flags: str) -> Server:
        srv = Server(url, tmp_path / f"mail{len(made)}.log")
        srv.flags = ["--smtp-url", f"smtp://127.0.0.1:{port}", "--public-url", srv.url, "--mail-interval", "0.2",
                     "--mail-from", "Hansa <turns@example.org>", *flags]
        made.append(srv)
        srv.start()
        return srv

    yield make
    for srv in made:
        srv.stop()


def body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")  # type: ignore[attr-defined]


def link(message: EmailMessage, path: str) -> str:
    found = re.findall(r"(http://\S+" + re.escape(path) + r"\S*)", body(message))
    assert len(found) >= 1, body(message)
    return str(found[0])


def verified(p: Player, inbox: Inbox, address: str) -> None:
    """Give ``address`` to ``p``'s account and open the link of the verification mail."""
    r = p.http.post("/api/account/email", json={"email": address}, headers={"X-CSRF-Token": p.csrf})
    assert r.status_code == 202, r.text
    mail = wait_for(lambda: inbox.to(address))[-1]
    assert httpx.get(link(mail, "/email/verify?token=")).status_code == 200
    assert p.get("/api/account/email").json()["verified"] is True


def started_game(a: Player, b: Player, clock: dict[str, Any]) -> tuple[str, Player, Player]:
    """A two-player game of ``a`` and ``b`` at a table with ``clock``: its id, who decides first, the other."""
    table = new_table(a, clock=clock)
    r = b.post(f"/api/tables/{table['id']}/join", {})
    assert r.status_code == 200 and r.json()["status"] == "started", r.text
    game = r.json()["game"]
    first = a if a.get(f"/api/games/{game}").json()["legal"] else b
    return game, first, (b if first is a else a)


def hand_over(p: Player, game: str) -> None:
    """``p`` plays until the decision is another seat's."""
    for _ in range(30):
        if not p.get(f"/api/games/{game}").json()["legal"]:
            return
        r = play_a_move(p, game)
        assert r.status_code == 200, r.text
    raise AssertionError("the decision did not pass")


def quiet(check: Callable[[], bool], seconds: float = 1.5) -> None:
    """``check`` holds for ``seconds`` (several looks of the mail keeper)."""
    end = time.time() + seconds
    while time.time() < end:
        assert check()
        time.sleep(0.1)


def test_an_address_is_verified_by_its_link(database: str, smtp: Smtp, mail_server: Callable[..., Server]) -> None:
    srv = mail_server(database, smtp.port)
    ann = Player(srv, "Verifier")
    assert ann.get("/api/account/email").json() == {"enabled": True, "email": None, "verified": False,
                                                    "notices": True}
    r = ann.http.post("/api/account/email", json={"email": "  Ann@Example.ORG ", "lang": "pt"},
                      headers={"X-CSRF-Token": ann.csrf})
    assert r.status_code == 202, r.text
    assert r.json() == {"enabled": True, "email": "Ann@example.org", "verified": False, "notices": True}
    mail = wait_for(lambda: smtp.inbox.to("Ann@example.org"))[0]
    assert mail["Subject"] == "hansa: confirme o seu endereço de e-mail"
    assert mail["From"] == "Hansa <turns@example.org>"
    text = body(mail)
    assert "Olá Verifier," in text and "48 horas" in text
    url = link(mail, "/email/verify?token=")
    assert url.startswith(f"{srv.url}/email/verify?token=")
    token = url.split("token=")[1]
    # only the token's hash is stored
    # the worker marks the row sent after the SMTP server took the mail: on a busy machine that comes a moment later
    rows = wait_for(lambda: (r := db_rows(srv, "SELECT token_hash, status FROM mail_outbox WHERE kind = 'verify'"))
                    and r[0][1] == "sent" and r)
    assert len(rows) == 1 and rows[0][1] == "sent" and token not in rows[0][0]
    page = httpx.get(url)
    assert page.status_code == 200 and "Endereço confirmado" in page.text and "<script" not in page.text
    assert ann.get("/api/account/email").json()["verified"] is True
    assert httpx.get(url).status_code == 404  # used
    assert httpx.get(f"{srv.url}/api/stats").json()["mail_sent"] == 1
    # a new address must be verified again; removing it stops everything
    r = ann.http.post("/api/account/email", json={"email": "ann2@example.org"}, headers={"X-CSRF-Token": ann.csrf})
    assert r.json()["verified"] is False
    wait_for(lambda: smtp.inbox.to("ann2@example.org"))
    r = ann.http.delete("/api/account/email", headers={"X-CSRF-Token": ann.csrf})
    assert r.status_code == 200 and r.json()["email"] is None
    old = link(smtp.inbox.to("ann2@example.org")[0], "/email/verify?token=")
    assert httpx.get(old).status_code == 404  # the address is gone
    assert ann.get("/api/account/email").json() == {"enabled": True, "email": None, "verified": False,
                                                    "notices": True}
    ann.close()


def test_turn_notices_and_unsubscribing(database: str, smtp: Smtp, mail_server: Callable[..., Server]) -> None:
    srv = mail_server(database, smtp.port, "--notice-period", "0")
    ann, bob = Player(srv, "Ann"), Player(srv, "Bob")
    address = {"Ann": "ann@example.org", "Bob": "bob@example.org"}
    for p in (ann, bob):
        verified(p, smtp.inbox, address[p.name])
    base = {a: len(smtp.inbox.to(a)) for a in address.values()}

    def mails(p: Player) -> list[EmailMessage]:
        return smtp.inbox.to(address[p.name])[base[address[p.name]]:]

    game, first, second = started_game(ann, bob, TURN_DAY)
    notice = wait_for(lambda: mails(first))[0]
    assert notice["Subject"] == f"hansa: your turn in game {game}"
    text = body(notice)
    assert f"Hello {first.name}," in text and f"It is your turn in game {game}." in text
    assert "Players: " in text and "Ann" in text and "Bob" in text
    assert "Time left: 1 d 0 h" in text or "Time left: 23 h" in text
    assert f"{srv.url}/game/{game}\n" in text
    off_game = link(notice, "scope=game")
    off_all = link(notice, "scope=all")
    assert notice["List-Unsubscribe"] == f"<{off_game}>"
    assert notice["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    quiet(lambda: not mails(second) and len(mails(first)) == 1)
    # the decision passes: the second player's notice
    hand_over(first, game)
    notice2 = wait_for(lambda: mails(second))[0]
    assert notice2["Subject"] == f"hansa: your turn in game {game}"
    # the second unsubscribes from this game (one click, no sign-in)
    page = httpx.get(link(notice2, "scope=game"))
    assert page.status_code == 200 and f"no more e-mails about game {game}" in page.text
    hand_over(second, game)
    wait_for(lambda: len(mails(first)) == 2)
    # the first unsubscribes from everything by RFC 8058's one-click POST
    r = httpx.post(off_all, data={"List-Unsubscribe": "One-Click"})
    assert r.status_code == 200
    assert first.get("/api/account/email").json()["notices"] is False
    assert httpx.get(off_game).status_code == 200  # an old link still works (and changes nothing more)
    hand_over(first, game)
    hand_over(second, game)
    quiet(lambda: len(mails(first)) == 2 and len(mails(second)) == 1)
    rows = db_rows(srv, "SELECT kind, status FROM mail_outbox WHERE game_id = :g ORDER BY id", g=game)
    assert rows == [("notice", "sent")] * 3
    # turned on again in the account settings
    r = first.http.put("/api/account/email/notices", json={"on": True}, headers={"X-CSRF-Token": first.csrf})
    assert r.status_code == 200 and r.json()["notices"] is True
    ann.close()
    bob.close()


def test_notices_are_batched_per_period(smtp: Smtp, mail_server: Callable[..., Server], tmp_path: Path) -> None:
    srv = mail_server(f"sqlite:///{tmp_path / 'batch.sqlite3'}", smtp.port, "--notice-period", "8")
    ann, bob = Player(srv, "Ann"), Player(srv, "Bob")
    address = {"Ann": "ann@example.org", "Bob": "bob@example.org"}
    for p in (ann, bob):
        verified(p, smtp.inbox, address[p.name])
    game, first, second = started_game(ann, bob, TURN_DAY)
    a, b = address[first.name], address[second.name]
    wait_for(lambda: [m for m in smtp.inbox.to(a) if "your turn" in str(m["Subject"])])
    hand_over(first, game)
    wait_for(lambda: [m for m in smtp.inbox.to(b) if "your turn" in str(m["Subject"])])
    hand_over(second, game)
    hand_over(first, game)
    hand_over(second, game)  # the first decides again, twice within the period: one e-mail so far

    def notices(to: str) -> list[float]:
        return [t for t, m in smtp.inbox.messages if m["To"] == to and "your turn" in str(m["Subject"])]

    quiet(lambda: len(notices(a)) == 1, 1.0)
    # the period over, still the first's decision: the notice that waited
    wait_for(lambda: len(notices(a)) == 2, 30)
    times = notices(a)
    assert times[1] - times[0] >= 8 - 0.5
    quiet(lambda: len(notices(a)) == 2 and len(notices(b)) == 1, 1.0)
    ann.close()
    bob.close()


def test_a_reminder_before_the_time_runs_out(smtp: Smtp, mail_server: Callable[..., Server], tmp_path: Path) -> None:
    # a period of 60 s (the shortest), a reminder 50 s before its end: the notice, then ~10 s later the reminder
    srv = mail_server(f"sqlite:///{tmp_path / 'remind.sqlite3'}", smtp.port, "--notice-period", "1",
                      "--reminder-before", "50")
    ann, bob = Player(srv, "Ann"), Player(srv, "Bob")
    address = {"Ann": "ann@example.org", "Bob": "bob@example.org"}
    for p in (ann, bob):
        verified(p, smtp.inbox, address[p.name])
    game, first, _second = started_game(ann, bob, {"kind": "turn", "base": 60, "bank": 0})
    a = address[first.name]
    wait_for(lambda: [m for m in smtp.inbox.to(a) if "your turn" in str(m["Subject"])])
    reminder = wait_for(lambda: [m for m in smtp.inbox.to(a) if "left in game" in str(m["Subject"])], 30)[0]
    assert reminder["Subject"] == f"hansa: 1 min left in game {game}"
    text = body(reminder)
    assert f"Your time in game {game} runs out soon" in text and f"{srv.url}/game/{game}" in text
    assert reminder["List-Unsubscribe"] and "scope=all" in text
    rows = db_rows(srv, "SELECT kind FROM mail_outbox WHERE game_id = :g ORDER BY id", g=game)
    assert [k for (k,) in rows] == ["notice", "reminder"]
    ann.close()
    bob.close()


def test_a_failed_sending_is_retried_and_counted(mail_server: Callable[..., Server], tmp_path: Path) -> None:
    smtp = Smtp(start=False)  # down at first
    try:
        srv = mail_server(f"sqlite:///{tmp_path / 'retry.sqlite3'}", smtp.port, "--mail-retry", "0.5")
        ann = Player(srv, "Patient")
        r = ann.http.post("/api/account/email", json={"email": "patient@example.org"},
                          headers={"X-CSRF-Token": ann.csrf})
        assert r.status_code == 202
        wait_for(lambda: httpx.get(f"{srv.url}/api/stats").json()["mail_failed"] >= 2)
        stats = httpx.get(f"{srv.url}/api/stats").json()
        assert stats["mail_sent"] == 0 and stats["mail_pending"] == 1
        assert "SMTP" in (srv.log.read_text()) or "e-mail" in srv.log.read_text()
        smtp.start()
        wait_for(lambda: smtp.inbox.to("patient@example.org"), 30)
        stats = wait_for(lambda: (s := httpx.get(f"{srv.url}/api/stats").json())["mail_sent"] == 1 and s)
        assert stats["mail_pending"] == 0
        (status, attempts, error), = db_rows(srv, "SELECT status, attempts, last_error FROM mail_outbox")
        assert status == "sent" and attempts >= 3 and error is None
        quiet(lambda: len(smtp.inbox.to("patient@example.org")) == 1, 1.0)
        ann.close()
    finally:
        smtp.stop()


def test_each_notice_once_across_two_processes(smtp: Smtp, tmp_path: Path) -> None:
    if not POSTGRES_URL:
        pytest.skip("HANSA_TEST_POSTGRES_URL is not set (scripts/test.sh sets it up with Debian's PostgreSQL)")
    url = postgres_database()
    servers = [Server(url, tmp_path / f"p{i}.log") for i in range(2)]
    for srv in servers:
        srv.flags = ["--smtp-url", f"smtp://127.0.0.1:{smtp.port}", "--public-url", servers[0].url,
                     "--mail-interval", "0.1", "--notice-period", "0"]
        srv.start()
    try:
        ann, bob = Player(servers[0], "Ann"), Player(servers[1], "Bob")
        address = {"Ann": "ann@example.org", "Bob": "bob@example.org"}
        for p in (ann, bob):
            verified(p, smtp.inbox, address[p.name])
        game, first, second = started_game(ann, bob, TURN_DAY)

        def notices(p: Player) -> int:
            return sum(1 for m in smtp.inbox.to(address[p.name]) if "your turn" in str(m["Subject"]))

        expected = {"Ann": 0, "Bob": 0}
        deciding, waiting = first, second
        for _ in range(4):
            expected[deciding.name] += 1
            wait_for(lambda p=deciding: notices(p) >= expected[p.name])  # type: ignore[misc]
            quiet(lambda: notices(ann) == expected["Ann"] and notices(bob) == expected["Bob"], 1.0)
            hand_over(deciding, game)
            deciding, waiting = waiting, deciding
        # the fourth hand-over passed the turn once more: a fifth notice
        expected[deciding.name] += 1
        wait_for(lambda: notices(deciding) >= expected[deciding.name])
        quiet(lambda: notices(ann) == expected["Ann"] and notices(bob) == expected["Bob"], 1.0)
        sent = sum(httpx.get(f"{s.url}/api/stats").json()["mail_sent"] for s in servers)
        received = sum(len(smtp.inbox.to(a)) for a in address.values())
        assert sent == received == 2 + 5  # two verifications, five notices, each sent once
        ann.close()
        bob.close()
    finally:
        for srv in servers:
            srv.stop()


def test_e_mail_requests_are_bounded(smtp: Smtp, mail_server: Callable[..., Server], tmp_path: Path) -> None:
    srv = mail_server(f"sqlite:///{tmp_path / 'bounds.sqlite3'}", smtp.port)
    with httpx.Client(base_url=srv.url) as guest:
        assert is_api_error(guest.get("/api/account/email"), 401)
        assert is_api_error(guest.post("/api/account/email", json={"email": "a@example.org"}), 401)
        assert is_api_error(guest.put("/api/account/email/notices", json={"on": False}), 401)
    ann = Player(srv, "Bounds")
    h = {"X-CSRF-Token": ann.csrf}
    assert is_api_error(ann.http.post("/api/account/email", json={"email": "a@example.org"}), 403)  # no CSRF
    for bad in ({"email": "nobody"}, {"email": "a@b"}, {"email": "a b@example.org"}, {"email": "a@example.org\r\nBcc: x@y.org"},
                {"email": "x" * 300 + "@example.org"}, {"email": ".a@example.org"}, {"email": 5}, {},
                {"email": "a@example.org", "lang": "fr"}, {"email": "a@example.org", "extra": 1},
                {"email": "é@example.org"}):
        assert is_api_error(ann.http.post("/api/account/email", json=bad, headers=h), 400), bad
    assert is_api_error(ann.http.put("/api/account/email/notices", json={"on": "no"}, headers=h), 400)
    assert db_rows(srv, "SELECT email FROM accounts") == [(None,)]
    assert db_rows(srv, "SELECT COUNT(*) FROM mail_outbox") == [(0,)]
    for i in range(5):
        assert ann.http.post("/api/account/email", json={"email": f"a{i}@example.org"}, headers=h).status_code == 202
    r = ann.http.post("/api/account/email", json={"email": "a9@example.org"}, headers=h)
    assert is_api_error(r, 429) and r.headers["Retry-After"]
    assert db_rows(srv, "SELECT email FROM accounts") == [("a4@example.org",)]
    assert db_rows(srv, "SELECT COUNT(*) FROM mail_outbox") == [(5,)]
    # the links' pages: no token, a bad one, a bad scope
    for path, status in (("/email/verify", 400), ("/email/verify?token=nope", 404),
                         ("/email/verify?token=" + "x" * 300, 400), ("/email/unsubscribe?token=nope&scope=all", 404),
                         ("/email/unsubscribe?token=nope&scope=everything", 400), ("/email/unsubscribe", 400)):
        assert httpx.get(srv.url + path).status_code == status, path
    assert db_rows(srv, "SELECT COUNT(*) FROM mail_optouts") == [(0,)]
    # the SMTP URL (which may hold a password) is not among the limits shown
    assert "smtp_url" not in httpx.get(f"{srv.url}/api/limits").json()["limits"]
    # deleting the account removes its address and every e-mail row (with the addresses they went to)
    r = ann.http.post("/api/account/delete", json={"password": PASSWORD}, headers=h)
    assert r.status_code == 200, r.text
    assert db_rows(srv, "SELECT email, email_verified FROM accounts") == [(None, False)]
    assert db_rows(srv, "SELECT COUNT(*) FROM mail_outbox") == [(0,)]
    ann.close()
    # one address gets at most 3 verification e-mails a day, whatever accounts ask for them
    others = [Player(srv, f"Flooder{i}") for i in range(4)]
    answers = [o.http.post("/api/account/email", json={"email": "victim@example.org"},
                           headers={"X-CSRF-Token": o.csrf}) for o in others]
    assert [a.status_code for a in answers[:3]] == [202] * 3
    assert is_api_error(answers[3], 429) and "a day" in answers[3].json()["error"]
    assert db_rows(srv, "SELECT COUNT(*) FROM mail_outbox WHERE recipient = 'victim@example.org'") == [(3,)]
    for o in others:
        o.close()


def test_without_smtp_there_is_no_e_mail(make_server: Callable[..., Server]) -> None:
    srv = make_server()
    ann = Player(srv, "NoMail")
    assert ann.get("/api/account/email").json() == {"enabled": False, "email": None, "verified": False,
                                                    "notices": True}
    r = ann.http.post("/api/account/email", json={"email": "a@example.org"}, headers={"X-CSRF-Token": ann.csrf})
    assert is_api_error(r, 403) and "--smtp-url" in r.json()["error"]
    assert db_rows(srv, "SELECT email FROM accounts") == [(None,)]
    stats = httpx.get(f"{srv.url}/api/stats").json()
    assert stats["mail_sent"] == 0 and stats["mail_failed"] == 0 and stats["mail_pending"] == 0
    ann.close()


def test_smtp_settings() -> None:
    s = parse_smtp_url("smtp://user%40x:p%3Ass@mail.example.org:587?starttls=1")
    assert (s.host, s.port, s.user, s.password, s.security) == ("mail.example.org", 587, "user@x", "p:ss", "starttls")
    assert parse_smtp_url("smtps://mail.example.org").port == 465
    assert parse_smtp_url("smtp://127.0.0.1").security == "none"
    for bad in ("http://x", "smtp://", "smtp://x:99999", "smtps://x?starttls=1", "smtp://x?tls=1"):
        with pytest.raises(ValueError):
            parse_smtp_url(bad)
    with pytest.raises(ValueError, match="public_url"):
        ServerConfig.from_env({"smtp_url": "smtp://127.0.0.1"}, environ={})
    config = ServerConfig.from_env(environ={"HANSA_SMTP_URL": "smtp://127.0.0.1:2525",
                                            "HANSA_PUBLIC_URL": "https://hansa.example.org"})
    assert config.smtp_url == "smtp://127.0.0.1:2525"
    assert clean_address(" Ann@EXAMPLE.org ") == "Ann@example.org"
