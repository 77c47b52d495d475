"""The table chat in the browser: two players and a spectator write and read live on desktop and phone, in two
languages (preset phrases worded for each reader); markup in a message stays text; the rate limit is told with its
wait; a reader mutes and unmutes another and reports a message; the replay shows the chat; a spectator reads but
writes only, signed in, where the table allows it; the lobby offers the table option."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, SIDEWAYS, Server, open_game

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

DESKTOP = {"width": 1280, "height": 800}
TWO = [{"name": "Ada", "type": "human"}, {"name": "Bea", "type": "human"}]
NASTY = "<b>bold</b><script>window.pwned=1</script><img src=x onerror=window.pwned=1>"
SHOTS = SCREENSHOTS / "chat"


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(200)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def with_lang(url: str, lang: str) -> str:
    path, _, fragment = url.partition("#")
    return f"{path}?lang={lang}" + (f"#{fragment}" if fragment else "")


def two_seats(server: Server, table: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"players": TWO, "options": {}, "seed": 3}
    if table:
        body["table"] = table
    return server.call("POST", "/api/games", body)  # type: ignore[no-any-return]


def messages(page: Any) -> Any:
    return page.locator("#chat .chat-msg")


def say(page: Any, text: str) -> None:
    page.fill("#chat .chat-input", text)
    page.press("#chat .chat-input", "Enter")


def phone_tab(page: Any, tab: str) -> None:
    page.locator(f"#side-tabs button[data-tab='{tab}']").tap()


def test_two_players_and_a_spectator_chat_live_in_two_languages(new_page: Any, server: Server) -> None:
    g = two_seats(server)
    gid, seats = g["id"], g["seats"]
    ada = new_page(viewport=DESKTOP)  # English, desktop
    open_game(ada, server, with_lang(seats[0]["url"], "en"))
    bea = new_page(phone=True)  # Portuguese, phone
    open_game(bea, server, with_lang(seats[1]["url"], "pt"))
    watcher = new_page(viewport=DESKTOP)  # a spectator, English
    open_game(watcher, server, f"/game/{gid}?lang=en")

    # the spectator reads, and is told why there is no field
    watcher.locator("#chat .chat-note", has_text="only the players write").wait_for()
    assert watcher.locator("#chat .chat-form").is_hidden()
    assert watcher.locator("#chat .chat-presets").is_hidden()

    # Ada writes: Bea's phone shows an unread badge on the Chat tab, then the message in the tab
    say(ada, "Hello Bea, good luck")
    messages(ada).filter(has_text="Hello Bea").wait_for()
    assert ada.locator("#chat .chat-input").input_value() == ""
    assert "mine" in (messages(ada).first.get_attribute("class") or "")
    badge = bea.locator("#chat-tab-badge")
    badge.wait_for()
    assert badge.text_content() == "1"
    assert bea.locator("#side-tabs button[data-tab='chat']").text_content().startswith("Chat")
    phone_tab(bea, "chat")
    messages(bea).filter(has_text="Hello Bea, good luck").wait_for()
    assert badge.is_hidden()
    assert bea.evaluate(SIDEWAYS) == []
    messages(watcher).filter(has_text="Hello Bea").wait_for()
    # the author in the seat's colour
    ada_colour = ada.evaluate("window.hansaGame.view.players[0].colour")
    assert bea.evaluate("() => document.querySelector('#chat .chat-msg').style.getPropertyValue('--pc')") == ada_colour

    # Bea answers with preset phrases: Portuguese on her phone, English for Ada and the spectator
    bea.locator("#chat .chat-preset-btn[data-preset='gg']").tap()
    messages(bea).filter(has_text="Bom jogo").wait_for()
    messages(ada).filter(has_text="Good game").wait_for()
    messages(watcher).filter(has_text="Good game").wait_for()
    ada.click("#chat .chat-preset-btn[data-preset='misclick']")
    messages(bea).filter(has_text="Desculpe, cliquei errado").wait_for()
    assert bea.locator("#chat .chat-preset-btn[data-preset='thinking']").text_content() == "Pensando…"

    # markup in a message is text, everywhere
    say(bea, NASTY)
    for page in (ada, bea, watcher):
        messages(page).filter(has_text="<script>window.pwned=1</script>").wait_for()
        assert page.locator("#chat .chat-words").filter(has_text="<b>bold</b>").count() == 1
        assert page.locator("#chat .chat-list b, #chat .chat-list script, #chat .chat-list img").count() == 0
        assert page.evaluate("() => window.pwned") is None
    shot(ada, "desktop-en-player")
    shot(bea, "phone-pt-player")
    shot(watcher, "desktop-en-spectator")

    # Ada mutes Bea for herself: Bea's messages fold to one line; unmuting shows them again
    bea_line = messages(ada).filter(has_text="<b>bold</b>")
    bea_line.locator(".chat-more").click()
    ada.locator("#chat .chat-menu .chat-mute").click()
    ada.locator("#chat .chat-muted-line", has_text="Muted: Bea").first.wait_for()
    assert messages(ada).filter(has_text="<b>bold</b>").count() == 0
    assert messages(ada).filter(has_text="Good game").count() == 0
    assert messages(watcher).filter(has_text="Good game").count() == 1  # for her only
    say(bea, "are you there?")
    messages(watcher).filter(has_text="are you there?").wait_for()
    ada.wait_for_timeout(300)
    assert messages(ada).filter(has_text="are you there?").count() == 0
    shot(ada, "desktop-en-muted")
    ada.reload()  # kept in this browser
    ada.locator("#chat .chat-muted-line", has_text="Muted: Bea").first.wait_for()
    ada.locator("#chat .chat-unmute").first.click()
    messages(ada).filter(has_text="are you there?").wait_for()
    assert ada.locator("#chat .chat-muted-line").count() == 0

    # Ada reports Bea's message with a reason: a report row with the message copied
    messages(ada).filter(has_text="<b>bold</b>").locator(".chat-more").click()
    ada.locator("#chat .chat-menu .chat-report").click()
    ada.fill("#chat .chat-reason", "markup spam")
    ada.locator("#chat .chat-report-send").click()
    messages(ada).filter(has_text="<b>bold</b>").locator(".reported-tag", has_text="Reported").wait_for()
    with sqlite3.connect(server.db) as db:
        rows = db.execute("SELECT * FROM chat_reports").fetchall()
        cols = [c[0] for c in db.execute("SELECT * FROM chat_reports").description]
    found = [dict(zip(cols, r, strict=True)) for r in rows]
    assert any(NASTY in str(r.values()) and "markup spam" in str(r.values()) for r in found), found

    # Bea reads on her phone's other tabs: a message from Ada shows as a badge again
    phone_tab(bea, "play")
    say(ada, "your move")
    badge.wait_for()
    assert badge.text_content() == "1"
    phone_tab(bea, "chat")
    messages(bea).filter(has_text="your move").wait_for()
    shot(bea, "phone-pt-chat")


def test_the_rate_limit_is_told_with_its_wait_and_the_text_kept(new_page: Any, server: Server) -> None:
    g = two_seats(server)
    ada = new_page(viewport=DESKTOP)
    open_game(ada, server, with_lang(g["seats"][0]["url"], "en"))
    ada.locator("#chat .chat-form").wait_for()
    for i in range(5):  # the burst
        say(ada, f"quick {i}")
        messages(ada).filter(has_text=f"quick {i}").wait_for()
    say(ada, "one too many")
    err = ada.locator("#chat .chat-error")
    err.wait_for()
    assert err.get_attribute("data-status") == "429"
    text = err.text_content() or ""
    assert "Too many messages: wait" in text and "second" in text, text
    assert ada.locator("#chat .chat-input").input_value() == "one too many"
    assert ada.locator("#chat .chat-send").is_disabled()
    assert messages(ada).filter(has_text="one too many").count() == 0
    shot(ada, "desktop-rate-limit")


def test_the_chat_panel_collapses_with_an_unread_count(new_page: Any, server: Server) -> None:
    g = two_seats(server)
    ada = new_page(viewport=DESKTOP)
    open_game(ada, server, with_lang(g["seats"][0]["url"], "cs"))
    ada.locator("#chat .chat-form").wait_for()
    ada.click("#chat .chat-toggle")
    assert ada.locator("#chat .chat-list").is_hidden()
    server.call("POST", f"/api/games/{g['id']}/chat", {"preset": "your_turn"}, token=g["seats"][1]["token"])
    server.call("POST", f"/api/games/{g['id']}/chat", {"preset": "thinking"}, token=g["seats"][1]["token"])
    badge = ada.locator("#chat .chat-badge")
    ada.wait_for_function("() => document.querySelector('#chat .chat-badge').textContent === '2'")
    assert badge.get_attribute("title") == "2 nepřečtené zprávy"
    shot(ada, "desktop-cs-collapsed")
    ada.click("#chat .chat-toggle")
    messages(ada).filter(has_text="Jste na tahu").wait_for()
    messages(ada).filter(has_text="Přemýšlím…").wait_for()
    assert badge.is_hidden()


def test_the_replay_shows_the_chat(new_page: Any, server: Server) -> None:
    g = two_seats(server)
    gid, seats = g["id"], g["seats"]
    server.call("POST", f"/api/games/{gid}/chat", {"text": "see you at the end"}, token=seats[0]["token"])
    server.call("POST", f"/api/games/{gid}/chat", {"preset": "gg"}, token=seats[1]["token"])
    server.call("POST", f"/api/games/{gid}/chat", {"text": NASTY}, token=seats[1]["token"])
    for phone, lang, name in ((False, "en", "desktop-replay"), (True, "it", "phone-replay")):
        page = new_page(phone=True) if phone else new_page(viewport=DESKTOP)
        page.goto(f"{server.base}/replay/{gid}?lang={lang}")
        page.wait_for_function("() => document.body.dataset.ready === '1'")
        messages(page).filter(has_text="see you at the end").wait_for()
        messages(page).filter(has_text="Bella partita" if lang == "it" else "Good game").wait_for()
        assert messages(page).count() == 3
        assert page.locator("#chat .chat-list img, #chat .chat-list script").count() == 0
        assert page.locator("#chat .chat-form").is_hidden()
        assert page.locator("#chat .chat-more").count() == 0
        page.locator("#chat").scroll_into_view_if_needed()
        shot(page, name)


def signed_up(page: Any, server: Server, who: str) -> None:
    r = page.context.request.post(server.base + "/api/account/signup", data={"name": who, "password": "chat-pass-123"})
    assert r.ok, r.text()


def test_a_spectator_writes_only_signed_in_where_the_table_allows(new_page: Any, club_server: Server) -> None:
    closed = two_seats(club_server)
    open_ = two_seats(club_server, {"spectator_chat": True})
    guest = new_page(phone=True)
    open_game(guest, club_server, f"/game/{open_['id']}?lang=en")
    guest.locator("#side-tabs button[data-tab='chat']").tap()
    guest.locator("#chat .chat-note", has_text="Sign in to write here").wait_for()
    assert guest.locator("#chat .chat-form").is_hidden()

    fan = new_page(viewport=DESKTOP)
    who = f"Fan{uuid.uuid4().hex[:6]}"
    signed_up(fan, club_server, who)
    open_game(fan, club_server, f"/game/{closed['id']}?lang=en")
    fan.locator("#chat .chat-note", has_text="only the players write").wait_for()
    assert fan.locator("#chat .chat-form").is_hidden()
    open_game(fan, club_server, f"/game/{open_['id']}?lang=en")
    fan.locator("#chat .chat-form").wait_for()
    say(fan, "go Ada!")
    line = messages(fan).filter(has_text="go Ada!")
    line.wait_for()
    assert line.locator(".spectator-tag").text_content() == "spectator"
    messages(guest).filter(has_text="go Ada!").locator(".spectator-tag").wait_for()
    ada = new_page(viewport=DESKTOP)
    open_game(ada, club_server, with_lang(open_["seats"][0]["url"], "pt"))
    messages(ada).filter(has_text="go Ada!").locator(".spectator-tag", has_text="espectador").wait_for()
    shot(fan, "desktop-spectator-writes")
    shot(guest, "phone-spectator-reads")


def test_the_lobby_offers_spectator_chat(new_page: Any, server: Server) -> None:
    page = new_page(viewport=DESKTOP)
    page.goto(server.base + "/?lang=es")
    box = page.locator("#spectator-chat")
    box.wait_for(state="attached")
    assert not box.is_checked()
    label = page.locator("label", has=box)
    # The page is translated once its strings have loaded (the box is in the page before that).
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    page.wait_for_function(
        "(el) => el.textContent.toLowerCase().includes('espectadores')", arg=label.element_handle(), timeout=10000
    )
    assert "espectadores" in (label.text_content() or "").lower()
    with page.expect_response(lambda r: r.url.endswith("/api/games") and r.request.method == "POST") as created:
        label.click()
        page.click("#create-btn")
    body = created.value.request.post_data_json
    assert body["table"]["spectator_chat"] is True
    assert body["table"]["bot_chat"] is False  # bots never chat unless the table asks them


def test_a_message_hidden_by_an_administrator_leaves_every_page_at_once(new_page: Any, club_server: Server) -> None:
    """Moderation: an administrator hides a message (the admin route); the pages showing it drop its words live."""
    import subprocess

    from browser_support import hansa_command

    g = two_seats(club_server)
    gid, seats = g["id"], g["seats"]
    ada = new_page(viewport=DESKTOP)
    open_game(ada, club_server, seats[0]["url"])
    bea = new_page(phone=True)
    open_game(bea, club_server, seats[1]["url"])
    say(ada, "something nobody should read")
    phone_tab(bea, "chat")
    bea.locator("#chat .chat-msg").filter(has_text="something nobody should read").wait_for()
    # an administrator (made so on the command line) hides it
    boss = new_page()
    who = f"Mod{uuid.uuid4().hex[:6]}"
    r = boss.context.request.post(club_server.base + "/api/account/signup", data={"name": who, "password": "correct horse battery"})
    assert r.status == 201
    csrf = r.json()["csrf"]
    done = subprocess.run(hansa_command() + ["admin", "make-admin", who, "--database-url", f"sqlite:///{club_server.db}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    r = boss.context.request.post(f"{club_server.base}/api/admin/games/{gid}/chat/1/hide", data={"on": True},
                                  headers={"X-CSRF-Token": csrf})
    assert r.status == 200, r.text()
    for page in (ada, bea):
        page.locator("#chat .chat-msg.is-hidden").wait_for()
        assert "something nobody should read" not in page.locator("#chat").inner_text()
    assert "hidden by a moderator" in ada.locator("#chat .chat-msg.is-hidden").inner_text()
    shot(bea, "phone-hidden")
