"""The account dialog's e-mail notices (issue 30): give an address, confirm it by the link of the e-mail a real local
SMTP server (aiosmtpd) received, turn notices off, remove the address; on a phone in Portuguese; a server without
SMTP says e-mail is off."""

from __future__ import annotations

import email
import email.policy
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from browser_support import Server, free_port
from test_accounts_ui import DESKTOP, fresh_name, open_account, shot, sign_up, strings, wait_state

PASSWORD = "a long enough password"


class Inbox:
    """Every message the local SMTP server was given."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        with self.lock:
            self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
        return "250 OK"

    def link(self, to: str) -> str | None:
        with self.lock:
            for m in reversed(self.messages):
                if m["To"] == to:
                    text = m.get_body(("plain",)).get_content()
                    found = re.search(r"http://\S+/email/verify\?token=\S+", text)
                    return found.group(0) if found else None
        return None


@pytest.fixture(scope="module")
def mail_setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Inbox]]:
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    srv = Server(tmp_path_factory.mktemp("hansa-mail"))
    srv.extra = ["--smtp-url", f"smtp://127.0.0.1:{controller.port}", "--public-url", srv.base,
                 "--mail-interval", "0.2", "--signups-per-hour", "1000"]
    srv.start()
    yield srv, inbox
    srv.stop()
    controller.stop()


def wait_link(inbox: Inbox, to: str, page: Any) -> str:
    for _ in range(200):
        found = inbox.link(to)
        if found:
            return found
        page.wait_for_timeout(100)
    raise AssertionError(f"no verification e-mail to {to}")


def email_state(page: Any, want: str) -> None:
    page.wait_for_selector(f"#acc-email-state[data-state='{want}']")


def test_an_address_given_confirmed_and_removed(new_page: Any, mail_setup: tuple[Server, Inbox]) -> None:
    srv, inbox = mail_setup
    en = strings("en")
    page = new_page(viewport=DESKTOP)
    page.goto(srv.base + "/")
    sign_up(page, fresh_name("Mailer"), PASSWORD)
    open_account(page)
    email_state(page, "none")
    assert page.locator("#acc-email-state").text_content() == en["account.emailNone"]
    assert page.locator("#acc-email-remove").is_hidden()
    page.fill("#acc-email", "not an address")
    page.locator("#acc-email-btn").click()
    assert page.locator("#acc-email-msg").text_content() == en["account.err.email"]
    address = f"{fresh_name('mailer')}@example.org".lower()
    page.fill("#acc-email", address)
    page.locator("#acc-email-btn").click()
    email_state(page, "unverified")
    assert page.locator("#acc-email-msg").text_content() == en["account.emailSent"].replace("{email}", address)
    assert page.locator("#acc-notices").is_checked()
    page.locator("#acc-email").blur()
    shot(page, "email-unverified-desktop")
    # the link of the e-mail the SMTP server received
    link = wait_link(inbox, address, page)
    page.goto(link)
    assert page.locator("h1").text_content() == en["mail.verifiedTitle"]
    shot(page, "email-verified-page-desktop")
    page.goto(srv.base + "/")
    wait_state(page, "in")
    open_account(page)
    email_state(page, "verified")
    assert page.locator("#acc-email-state").text_content() == en["account.emailVerified"].replace("{email}", address)
    shot(page, "email-verified-desktop")
    # notices off, then the address removed
    page.locator("#acc-notices").click()
    page.wait_for_function("() => !document.querySelector('#acc-notices').checked && !document.querySelector('#acc-notices').disabled")
    assert srv_state(page)["notices"] is False
    page.locator("#acc-email-remove").click()
    email_state(page, "none")
    assert page.locator("#acc-email-msg").text_content() == en["account.emailRemoved"]
    assert srv_state(page)["email"] is None


def srv_state(page: Any) -> Any:
    return page.evaluate("() => fetch('/api/account/email').then((r) => r.json())")


def test_e_mail_on_a_phone_in_portuguese(new_page: Any, mail_setup: tuple[Server, Inbox]) -> None:
    srv, inbox = mail_setup
    pt = strings("pt")
    page = new_page(phone=True)
    page.add_init_script("localStorage.setItem('hansa.lang', 'pt')")
    page.goto(srv.base + "/")
    sign_up(page, fresh_name("Carteiro"), PASSWORD)
    open_account(page)
    email_state(page, "none")
    address = f"{fresh_name('carteiro')}@example.org".lower()
    page.fill("#acc-email", address)
    page.locator("#acc-email-btn").tap()
    email_state(page, "unverified")
    assert page.locator("#acc-email-state").text_content() == pt["account.emailUnverified"].replace("{email}", address)
    overflow = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert page.evaluate(overflow) <= 0
    box = page.locator("#account-dialog").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    page.locator("#email-form").scroll_into_view_if_needed()
    page.locator("#acc-email").blur()
    shot(page, "email-unverified-phone-pt")
    # the e-mail is in Portuguese (the page's language), and so is the page of its link
    link = wait_link(inbox, address, page)
    with inbox.lock:
        mail = next(m for m in reversed(inbox.messages) if m["To"] == address)
    assert mail["Subject"] == pt["mail.verifySubject"]
    page.goto(link)
    assert page.locator("h1").text_content() == pt["mail.verifiedTitle"]
    shot(page, "email-verified-page-phone-pt")


def test_without_smtp_the_dialog_says_e_mail_is_off(new_page: Any, club_server: Server) -> None:
    page = new_page(viewport=DESKTOP)
    page.goto(club_server.base + "/")
    sign_up(page, fresh_name("NoMail"), PASSWORD)
    open_account(page)
    email_state(page, "off")
    assert page.locator("#acc-email-state").text_content() == strings("en")["account.emailOff"]
    assert page.locator("#acc-email").is_hidden() and page.locator("#acc-email-btn").is_hidden()


