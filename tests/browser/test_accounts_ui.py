"""Browser tests of the account in every page's top bar (account.js, session.js): sign up, sign out, a wrong
password, sign in, the name rules, change the password (another browser's session ends), sign out everywhere,
delete the account; the account shown on every page; a phone in Czech."""

from __future__ import annotations

import itertools
import json
import urllib.error
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, Server, open_game, place_by_click
from test_no_english import EnglishChecker, english_on, proper_names

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

DESKTOP = {"width": 1280, "height": 800}
I18N = Path(__file__).resolve().parents[2] / "src" / "hansa" / "server" / "static" / "i18n"
_names = itertools.count(1)


def strings(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


EN = strings("en")


def fresh_name(stem: str) -> str:
    return f"{stem}{next(_names)}"


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"accounts-{name}.png"))


def state(page: Any) -> str:
    page.wait_for_selector("#account-slot[data-state]")
    return str(page.locator("#account-slot").get_attribute("data-state"))


def wait_state(page: Any, want: str) -> None:
    page.wait_for_selector(f"#account-slot[data-state='{want}']")


def open_dialog(page: Any, mode: str) -> None:
    page.locator("#signin-btn").click()
    page.wait_for_selector("#signin-dialog[open]")
    if page.locator("#signin-dialog").get_attribute("data-mode") != mode:
        page.locator("#acc-switch").click()
    page.wait_for_selector(f"#signin-dialog[data-mode='{mode}']")


def sign_up(page: Any, name: str, password: str) -> None:
    open_dialog(page, "signup")
    page.fill("#acc-name", name)
    page.fill("#acc-password", password)
    page.fill("#acc-password2", password)
    page.locator("#acc-password2").press("Enter")
    wait_state(page, "in")


def sign_in(page: Any, name: str, password: str) -> str:
    """Submit the sign-in form; the error shown, or "" when it signed in."""
    open_dialog(page, "signin")
    page.fill("#acc-name", name)
    page.fill("#acc-password", password)
    page.locator("#acc-password").press("Enter")
    page.wait_for_function("() => document.querySelector('#account-slot').dataset.state === 'in' || !document.querySelector('#acc-error').hidden")
    if state(page) == "in":
        return ""
    return str(page.locator("#acc-error").text_content())


def open_menu(page: Any) -> None:
    page.locator("#account-btn").click()
    page.wait_for_selector("#account-menu:not([hidden])")


def open_account(page: Any) -> None:
    open_menu(page)
    page.locator("#menu-account").click()
    page.wait_for_selector("#account-dialog[open]")


def test_sign_up_sign_out_wrong_password_sign_in(new_page: Any, club_server: Server) -> None:
    page = new_page(viewport=DESKTOP)
    page.goto(club_server.base + "/")
    assert state(page) == "out"
    assert page.locator("#signin-btn").text_content() == EN["account.signIn"]

    # The dialog: labelled fields, the right autocomplete, Escape closes it and focus starts on the name.
    open_dialog(page, "signin")
    assert page.evaluate("() => document.activeElement.id") == "acc-name"
    assert page.get_attribute("#acc-name", "autocomplete") == "username"
    assert page.get_attribute("#acc-password", "autocomplete") == "current-password"
    assert page.locator("label[for='acc-password']").text_content() == EN["account.password"]
    page.keyboard.press("Escape")
    page.wait_for_selector("#signin-dialog", state="hidden")

    # Creating an account: the name rules are checked and told, then the account is made and shown.
    name = fresh_name("Greta")
    open_dialog(page, "signup")
    assert page.get_attribute("#acc-password", "autocomplete") == "new-password"
    page.fill("#acc-name", "a/b")
    page.fill("#acc-password", "long enough pw")
    page.fill("#acc-password2", "long enough pw")
    page.locator("#acc-submit").click()
    assert page.locator("#acc-error").text_content().startswith(EN["account.err.nameChars"].split("{")[0])
    page.fill("#acc-name", name)
    page.fill("#acc-password2", "something else")
    page.locator("#acc-submit").click()
    assert page.locator("#acc-error").text_content() == EN["account.err.mismatch"]
    page.fill("#acc-password2", "long enough pw")
    shot(page, "signup-desktop")
    page.locator("#acc-password2").press("Enter")
    wait_state(page, "in")
    assert page.locator("#account-btn .acc-name").text_content() == name
    assert club_server.call("GET", f"/api/players/{name}")["name"] == name

    # The menu: Profile (a link to /player/NAME), Account, Sign out; Escape closes it and gives the focus back.
    open_menu(page)
    assert page.locator("#account-menu [role=menuitem]").all_text_contents() == [
        EN["account.profile"], EN["account.settings"], EN["account.signOut"]]
    assert page.get_attribute("#menu-profile", "href") == f"/player/{name}"
    shot(page, "menu-desktop")
    page.keyboard.press("Escape")
    page.wait_for_selector("#account-menu", state="hidden")
    assert page.evaluate("() => document.activeElement.id") == "account-btn"

    # Sign out (the request carries the CSRF token: after a reload it is still signed out).
    open_menu(page)
    page.locator("#menu-signout").click()
    wait_state(page, "out")
    page.reload()
    assert state(page) == "out"

    # A taken name, then a wrong password, then the right one.
    open_dialog(page, "signup")
    page.fill("#acc-name", name.upper())
    page.fill("#acc-password", "another password")
    page.fill("#acc-password2", "another password")
    page.locator("#acc-submit").click()
    page.wait_for_selector("#acc-error:not([hidden])")
    assert page.locator("#acc-error").text_content() == EN["account.err.taken"]
    page.keyboard.press("Escape")
    assert sign_in(page, name, "not the password") == EN["account.err.wrong"]
    shot(page, "wrong-password-desktop")
    page.keyboard.press("Escape")
    assert sign_in(page, name, "long enough pw") == ""
    page.reload()
    assert state(page) == "in"
    assert page.locator("#account-btn .acc-name").text_content() == name


def test_too_many_failures_show_the_wait(new_page: Any, club_server: Server) -> None:
    name = fresh_name("Hugo")
    club_server.call("POST", "/api/account/signup", {"name": name, "password": "hugo's password"})
    page = new_page(viewport=DESKTOP)
    page.goto(club_server.base + "/rules")
    seen = []
    for _ in range(7):
        seen.append(sign_in(page, name, "wrong password"))
        page.keyboard.press("Escape")
    assert seen[0] == EN["account.err.wrong"]
    wait = EN["account.err.tooMany"].split("{")[0]
    assert seen[-1].startswith(wait), seen
    assert seen[-1].endswith(" min.") or seen[-1].endswith(" s."), seen[-1]


def test_password_change_ends_the_other_session_then_delete(new_page: Any, club_server: Server) -> None:
    name = fresh_name("Ida")
    a = new_page(viewport=DESKTOP)
    a.goto(club_server.base + "/my-games")
    sign_up(a, name, "first password")
    b = new_page(viewport=DESKTOP)
    b.goto(club_server.base + "/leaderboard")
    assert sign_in(b, name, "first password") == ""

    # A changes the password: B's session ends (signed out after a reload); A's own is renewed.
    open_account(a)
    assert a.get_attribute("#acc-old", "autocomplete") == "current-password"
    assert a.get_attribute("#acc-new", "autocomplete") == "new-password"
    a.wait_for_function("(t) => document.querySelector('#acc-sessions').textContent === t", arg=EN["account.sessionsCount.other"].replace("{n}", "2"))
    a.fill("#acc-old", "wrong one")
    a.fill("#acc-new", "second password")
    a.fill("#acc-new2", "second password")
    a.locator("#acc-pw-btn").click()
    a.wait_for_selector("#acc-pw-msg.error:not([hidden])")
    assert a.locator("#acc-pw-msg").text_content() == EN["account.err.wrongPassword"]
    a.fill("#acc-old", "first password")
    a.locator("#acc-new2").press("Enter")
    a.wait_for_selector("#acc-pw-msg.ok-msg:not([hidden])")
    assert a.locator("#acc-pw-msg").text_content() == EN["account.passwordChanged"]
    a.wait_for_function("(t) => document.querySelector('#acc-sessions').textContent === t", arg=EN["account.sessionsCount.one"].replace("{n}", "1"))
    shot(a, "account-desktop")
    a.keyboard.press("Escape")
    b.reload()
    assert state(b) == "out"
    a.reload()
    assert state(a) == "in"
    assert sign_in(b, name, "first password") == EN["account.err.wrong"]
    b.keyboard.press("Escape")
    assert sign_in(b, name, "second password") == ""

    # Sign out everywhere: both browsers are signed out.
    open_account(a)
    a.locator("#acc-everywhere").click()
    wait_state(a, "out")
    a.reload()
    b.reload()
    assert state(a) == "out" and state(b) == "out"

    # Delete, with the password: a wrong one is refused; then the profile is gone and the name cannot sign in.
    assert sign_in(a, name, "second password") == ""
    open_account(a)
    assert "Deleted player" in a.locator(".acc-warning").text_content()
    a.fill("#acc-del-password", "nope nope")
    a.locator("#acc-del-btn").click()
    a.wait_for_selector("#acc-del-msg:not([hidden])")
    assert a.locator("#acc-del-msg").text_content() == EN["account.err.wrongPassword"]
    a.fill("#acc-del-password", "second password")
    a.locator("#acc-del-password").press("Enter")
    wait_state(a, "out")
    with pytest.raises(urllib.error.HTTPError) as missing:
        club_server.call("GET", f"/api/players/{name}")
    assert missing.value.code == 404
    a.reload()
    assert state(a) == "out"
    assert sign_in(a, name, "second password") == EN["account.err.wrong"]


def test_the_account_on_every_page(new_page: Any, club_server: Server) -> None:
    name = fresh_name("Jo")
    game = club_server.create([{"name": "Jo", "type": "human"}, {"name": "Bot", "type": "bot", "bot": "random"}], seed=5)
    page = new_page(viewport=DESKTOP)
    page.goto(club_server.base + "/")
    sign_up(page, name, "jo's password")
    pages = ["/", "/my-games", "/rules", "/rules/quick", game["seats"][0]["url"], f"/replay/{game['id']}",
             "/leaderboard", f"/player/{name}", "/bot/heuristic"]
    for path in pages:
        page.goto(club_server.base + path)
        wait_state(page, "in")
        assert page.locator("#account-btn .acc-name").text_content() == name, path
        assert page.locator(".topbar #account-slot").count() == 1, path
    # The table of a signed-in player works as a guest's: a move is taken (requests carry the CSRF token).
    open_game(page, club_server, game["seats"][0]["url"])
    page.wait_for_function("() => document.body.dataset.mine === '1'")
    place_by_click(page)
    shot(page, "game-desktop")
    # Signed out, every page offers "Sign in".
    open_menu(page)
    page.locator("#menu-signout").click()
    wait_state(page, "out")
    for path in ("/", "/rules/quick", f"/replay/{game['id']}"):
        page.goto(club_server.base + path)
        assert state(page) == "out", path


def test_accounts_on_a_phone_in_czech(new_page: Any, club_server: Server) -> None:
    cs = strings("cs")
    checker = EnglishChecker("cs", proper_names(club_server))
    name = fresh_name("Vlasta")
    page = new_page(phone=True)
    page.add_init_script("localStorage.setItem('hansa.lang', 'cs')")
    page.goto(club_server.base + "/")
    assert state(page) == "out"
    assert page.locator("#signin-btn").text_content() == cs["account.signIn"]
    overflow = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert page.evaluate(overflow) <= 0
    bar = page.locator(".topbar").bounding_box()
    assert bar["height"] < 140, bar
    page.locator("#signin-btn").tap()
    page.wait_for_selector("#signin-dialog[open]")
    page.locator("#acc-switch").tap()
    page.fill("#acc-name", name)
    page.fill("#acc-password", "krátké")
    page.fill("#acc-password2", "krátké")
    page.locator("#acc-submit").tap()
    assert page.locator("#acc-error").text_content() == cs["account.err.passwordLength"].replace("{min}", "8")
    assert not english_on(page, checker), english_on(page, checker)
    box = page.locator("#signin-dialog").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    shot(page, "signup-phone-cs")
    page.fill("#acc-password", "dost dlouhé heslo")
    page.fill("#acc-password2", "dost dlouhé heslo")
    page.locator("#acc-submit").tap()
    wait_state(page, "in")
    assert page.evaluate(overflow) <= 0
    page.locator("#account-btn").tap()
    page.wait_for_selector("#account-menu:not([hidden])")
    assert page.locator("#menu-account").text_content() == cs["account.settings"]
    shot(page, "menu-phone-cs")
    page.locator("#menu-account").tap()
    page.wait_for_selector("#account-dialog[open]")
    page.wait_for_function("(t) => document.querySelector('#acc-sessions').textContent === t", arg=cs["account.sessionsCount.one"].replace("{n}", "1"))
    assert not english_on(page, checker), english_on(page, checker)
    shot(page, "account-phone-cs")
    page.locator("#account-dialog .acc-close").tap()
    # The game page's top bar on a phone keeps the account without overflowing.
    game = club_server.create([{"name": "Ema", "type": "human"}, {"name": "Bot", "type": "bot", "bot": "random"}], seed=3)
    page.goto(club_server.base + game["seats"][0]["url"])
    wait_state(page, "in")
    assert page.evaluate(overflow) <= 0
    shot(page, "game-phone-cs")
