"""The moderation page (/admin) for administrator accounts: the reported messages (hide, dealt with), an account's
chat mute, the log; anyone else is refused.  Desktop and phone."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, SIDEWAYS, Server, hansa_command

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

PASSWORD = "correct horse battery"


def signed_up(page: Any, server: Server, stem: str) -> tuple[str, str]:
    name = f"{stem}{uuid.uuid4().hex[:5]}"
    r = page.context.request.post(server.base + "/api/account/signup", data={"name": name, "password": PASSWORD})
    assert r.status == 201, r.text()
    return name, str(r.json()["csrf"])


def test_an_administrator_moderates_on_the_admin_page(new_page: Any, club_server: Server) -> None:
    spammer = new_page()
    spam_name, spam_csrf = signed_up(spammer, club_server, "Spam")
    r = spammer.context.request.post(club_server.base + "/api/tables", data={"players": 2, "bots": ["random"]},
                                     headers={"X-CSRF-Token": spam_csrf})
    gid = r.json()["game"]
    r = spammer.context.request.post(f"{club_server.base}/api/games/{gid}/chat", data={"text": "buy cheap <gold> now"},
                                     headers={"X-CSRF-Token": spam_csrf})
    assert r.status == 201
    n = r.json()["message"]["n"]
    r = spammer.context.request.post(f"{club_server.base}/api/games/{gid}/chat/{n}/report", data={"reason": "spam"},
                                     headers={"X-CSRF-Token": spam_csrf})
    assert r.status == 200

    # not an administrator: refused
    boss = new_page(viewport={"width": 1280, "height": 800})
    boss_name, _ = signed_up(boss, club_server, "Boss")
    boss.goto(club_server.base + "/admin")
    boss.wait_for_selector("body[data-ready='1']")
    assert boss.locator("#admin-denied").is_visible() and boss.locator("#admin-reports").is_hidden()

    done = subprocess.run(hansa_command() + ["admin", "make-admin", boss_name, "--database-url",
                                             f"sqlite:///{club_server.db}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    boss.reload()
    boss.wait_for_selector("body[data-ready='1']")
    report = boss.locator(".admin-report").filter(has_text="buy cheap <gold> now")
    report.wait_for()
    assert "spam" in report.inner_text() and boss.locator(".admin-report b").first.inner_text() == spam_name
    report.locator(".hide-btn").click()
    boss.wait_for_function("() => document.querySelector('.admin-report .hide-btn').disabled")
    assert club_server.call("GET", f"/api/games/{gid}/chat")["messages"][0]["hidden"] is True
    # mute the author in chat from the account form
    boss.fill("#admin-name", spam_name)
    boss.click("#admin-mute")
    boss.wait_for_function("() => document.querySelector('#admin-account-result').textContent.includes('muted')")
    r = spammer.context.request.post(f"{club_server.base}/api/games/{gid}/chat", data={"text": "again"},
                                     headers={"X-CSRF-Token": spam_csrf})
    assert r.status == 403
    boss.locator(".admin-report .resolve-btn").first.click()
    boss.locator(".empty-state").filter(has_text="No reported messages").wait_for()
    # the moderation log is fetched again after the resolve: wait for its new line
    boss.wait_for_function("() => document.querySelector('#admin-log-list').textContent.includes('dealt with')")
    log = boss.locator("#admin-log-list").inner_text()
    assert f"admin:{boss_name}" in log and "hid" in log and "muted in chat" in log and "dealt with" in log
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    boss.check("#admin-all")
    boss.locator(".admin-report.resolved").wait_for()
    boss.screenshot(path=str(SCREENSHOTS / "admin-desktop.png"), full_page=True)

    phone = new_page(phone=True)
    r = phone.context.request.post(club_server.base + "/api/account/signin", data={"name": boss_name, "password": PASSWORD})
    assert r.status == 200
    phone.goto(club_server.base + "/admin?lang=pt")
    phone.wait_for_selector("body[data-ready='1']")
    phone.check("#admin-all")
    phone.locator(".admin-report.resolved").wait_for()
    assert "Mensagens denunciadas" in phone.locator("#admin-reports h1").inner_text()
    assert phone.evaluate(SIDEWAYS) == []
    phone.screenshot(path=str(SCREENSHOTS / "admin-phone-pt.png"), full_page=True)
