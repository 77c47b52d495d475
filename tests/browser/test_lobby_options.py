"""Browser tests of the lobby's new-game form: seat colours (no two seats alike), the table's hints switch, rule
options explained (help on click and on a touch tap) and shown only for the variant that uses them, and a phone
layout without sideways scrolling."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, SIDEWAYS, Server

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

PHONE = {"width": 390, "height": 844}
NEUTRAL_OPTIONS = ("neutral_coellen", "neutral_keep_on_ability_route", "neutral_extra_mandatory")
PAWN_OPTIONS = ("pawn_free_moves",)
EAST_OPTIONS = ("green_city_swap", "green_city_free_for_markers")
BRITANNIA_OPTIONS = ("permission_holder", "permission_timing", "relocation_rings")
OWN_PLACE = {"two_player_variant", "map", "missions", "emperors_favour", "marker_supply"}  # chosen in their own places of the form

def open_lobby(page: Any, server: Server) -> None:
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")


def seat(page: Any, i: int) -> Any:
    return page.locator("#seats .seat").nth(i)


def colours_shown(page: Any) -> list[str]:
    return page.locator("#seats .seat").evaluate_all("rows => rows.map(r => r.dataset.colour)")  # type: ignore[no-any-return]


def pick_colour(page: Any, i: int, name: str) -> None:
    seat(page, i).locator(".seat-colour").click()
    page.locator(f"#colour-menu .colour-option[data-colour='{name}']").click()
    page.wait_for_selector("#colour-menu", state="detached")


def create(page: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Submit the form: (the request body sent, the server's creation answer)."""
    with page.expect_response(lambda r: urlsplit(r.url).path == "/api/games" and r.request.method == "POST") as info:
        page.click("#create-btn")
    assert info.value.status == 201, info.value.text()
    return info.value.request.post_data_json, info.value.json()


def visible_options(page: Any) -> set[str]:
    rows = page.locator("#options .opt")
    return {rows.nth(i).get_attribute("data-option-row") for i in range(rows.count()) if rows.nth(i).is_visible()}


# ---------------------------------------------------------------------------------------------- colours


def test_colour_choice_reaches_the_game_and_duplicates_are_prevented(new_page: Any, server: Server) -> None:
    page = new_page()
    open_lobby(page, server)
    page.select_option("#player-count", "3")
    palette = server.call("GET", "/api/colours")
    assert colours_shown(page) == palette["default"][:3]
    # Each seat's button shows its colour's symbol (what colour-blind mode draws on the pieces).
    symbols = {c["name"]: c["symbol"] for c in palette["colours"]}
    assert seat(page, 0).locator(".seat-colour").inner_text().strip() == symbols["red"]
    # The menu offers the whole palette; the colours of the other seats cannot be chosen.
    seat(page, 1).locator(".seat-colour").click()
    options = page.locator("#colour-menu .colour-option")
    assert options.count() == len(palette["colours"])
    assert page.locator("#colour-menu .colour-option[data-colour='red']").is_disabled()
    assert page.locator("#colour-menu .colour-option[data-colour='green']").is_disabled()
    assert "Seat 1" in page.locator("#colour-menu .colour-option[data-colour='red']").inner_text()
    assert page.locator("#colour-menu .colour-option[data-colour='blue']").get_attribute("aria-selected") == "true"
    page.locator("#colour-menu .colour-option[data-colour='red']").click(force=True)  # disabled: nothing happens
    assert colours_shown(page)[1] == "blue"
    page.locator("#colour-menu .colour-option[data-colour='yellow']").click()
    page.wait_for_selector("#colour-menu", state="detached")
    assert colours_shown(page) == ["red", "yellow", "green"]
    # Blue is free again: seat 3 takes it; seat 1 may not take yellow now.
    pick_colour(page, 2, "blue")
    seat(page, 0).locator(".seat-colour").click()
    assert page.locator("#colour-menu .colour-option[data-colour='yellow']").is_disabled()
    page.keyboard.press("Escape")
    page.wait_for_selector("#colour-menu", state="detached")
    # A seat added later gets a colour nobody has; a seat removed frees its colour.
    page.select_option("#player-count", "4")
    shown = colours_shown(page)
    assert shown[:3] == ["red", "yellow", "blue"] and len(set(shown)) == 4
    page.select_option("#player-count", "3")
    sent, game = create(page)
    assert [p["colour"] for p in sent["players"]] == ["red", "yellow", "blue"]
    view = server.call("GET", f"/api/games/{game['id']}")
    assert [p["colour_name"] for p in view["players"]] == ["red", "yellow", "blue"]
    colour_of = {c["name"]: c["colour"] for c in palette["colours"]}
    assert [p["colour"] for p in view["players"]] == [colour_of["red"], colour_of["yellow"], colour_of["blue"]]


def test_colour_menu_keyboard(new_page: Any, server: Server) -> None:
    page = new_page()
    open_lobby(page, server)
    page.select_option("#player-count", "2")
    seat(page, 1).locator(".seat-colour").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#colour-menu")
    assert seat(page, 1).locator(".seat-colour").get_attribute("aria-expanded") == "true"
    # Focus starts on the seat's colour (blue); arrows skip red (seat 1's); Enter chooses.
    assert page.evaluate("document.activeElement.dataset.colour") == "blue"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.colour") == "green"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.colour") != "red"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_selector("#colour-menu", state="detached")
    assert colours_shown(page) == ["red", "green"]
    assert page.evaluate("document.activeElement.classList.contains('seat-colour')")
    # A click elsewhere closes the menu without a change.
    seat(page, 1).locator(".seat-colour").click()
    page.click("h2")
    page.wait_for_selector("#colour-menu", state="detached")
    assert colours_shown(page) == ["red", "green"]


# ---------------------------------------------------------------------------------------------- table option


def test_hints_checkbox_reaches_the_table(new_page: Any, server: Server) -> None:
    page = new_page()
    open_lobby(page, server)
    hints = page.locator("#hints")
    assert hints.is_checked()
    assert "Allow hints" in page.locator("label", has=hints).inner_text()
    sent, game = create(page)
    assert sent["table"] == {"hints": True, "hotseat": False, "spectator_chat": False, "bot_chat": False}
    assert server.call("GET", f"/api/games/{game['id']}")["table"]["hints"] is True
    hints.uncheck()
    sent, game = create(page)
    assert sent["table"] == {"hints": False, "hotseat": False, "spectator_chat": False, "bot_chat": False}
    assert server.call("GET", f"/api/games/{game['id']}")["table"]["hints"] is False


def shot_created(page: Any, name: str) -> None:
    """A picture of the created game's panel (its links), for review."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#created").screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def stored_games(page: Any) -> dict[str, Any]:
    """The lobby's games in localStorage, by id."""
    return {g["id"]: g for g in json.loads(page.evaluate("localStorage.getItem('hansa.myGames')") or "[]")}


def test_hotseat_checkbox_decides_the_links(new_page: Any, server: Server) -> None:
    """A game of seat links gets a link per human seat and none for the hot seat; a hot-seat game one hot-seat link
    and no seat links (its seats have no tokens of their own).  Open game and what is kept in localStorage follow."""
    page = new_page()
    open_lobby(page, server)
    page.select_option("#player-count", "3")
    seat(page, 0).locator(".seat-name").fill("Ann")
    seat(page, 1).locator(".seat-type").select_option("bot")
    seat(page, 2).locator(".seat-type").select_option("human")
    seat(page, 2).locator(".seat-name").fill("Cy")
    hotseat = page.locator("#hotseat")
    assert not hotseat.is_checked()
    # Seat links.
    sent, game = create(page)
    assert sent["table"] == {"hints": True, "hotseat": False, "spectator_chat": False, "bot_chat": False}
    assert game["hotseat_token"] is None and game["hotseat_url"] is None
    page.wait_for_selector(f"#created h3:has-text('{game['id']}')")
    rows = page.locator("#created .seat-link")
    assert [rows.nth(i).get_attribute("data-seat") for i in range(rows.count())] == ["0", "2"]
    assert rows.nth(1).locator("input").input_value() == server.base + game["seats"][2]["url"]
    assert page.locator("#created .hotseat-link").count() == 0
    assert page.locator("#created .spectator-link input").input_value() == server.base + game["spectator_url"]
    assert page.locator("#open-game").get_attribute("href") == game["seats"][0]["url"]
    entry = stored_games(page)[game["id"]]
    assert "hotseat" not in entry and entry["open"] == game["seats"][0]["url"]
    assert entry["seats"] == [{"name": "Ann", "url": game["seats"][0]["url"]}, {"name": "Cy", "url": game["seats"][2]["url"]}]
    assert server.call("GET", f"/api/games/{game['id']}")["table"] == {"hints": True, "hotseat": False}
    shot_created(page, "lobby-created-seat-links-desktop")
    # Hot seat.
    hotseat.check()
    sent, hot = create(page)
    assert sent["table"] == {"hints": True, "hotseat": True, "spectator_chat": False, "bot_chat": False}
    assert hot["hotseat_url"] and all(s["url"] is None for s in hot["seats"])
    page.wait_for_selector(f"#created h3:has-text('{hot['id']}')")
    assert page.locator("#created .seat-link").count() == 0
    assert page.locator("#created .hotseat-link").count() == 1
    assert page.locator("#created .hotseat-link input").input_value() == server.base + hot["hotseat_url"]
    assert page.locator("#created .spectator-link").count() == 1
    assert page.locator("#open-game").get_attribute("href") == hot["hotseat_url"]
    entry = stored_games(page)[hot["id"]]
    assert entry["hotseat"] == entry["open"] == hot["hotseat_url"] and entry["seats"] == []
    assert None not in (entry["open"], entry["hotseat"], entry["spectator"])
    shot_created(page, "lobby-created-hotseat-desktop")
    # Open game plays every human seat at this screen.
    page.click("#open-game")
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => window.hansaGame && window.hansaGame.view")
    view = page.evaluate("window.hansaGame.view")
    assert view["you"] == [0, 2] and view["table"] == {"hints": True, "hotseat": True}
    # My games asks the server about both games with the tokens kept for them.
    page.goto(server.base + "/my-games")
    page.wait_for_selector(f".mg-item[data-id='{hot['id']}']")
    page.wait_for_selector(f".mg-item[data-id='{game['id']}']")
    assert page.locator(f".mg-item[data-id='{hot['id']}'] a.open-link").get_attribute("href") == hot["hotseat_url"]
    assert page.locator(f".mg-item[data-id='{game['id']}'] a.open-link").get_attribute("href") == game["seats"][0]["url"]


def test_stored_games_keep_no_null_links(new_page: Any, server: Server) -> None:
    """Entries stored by an older lobby (``hotseat: null`` for a game of seat links, seat links of null for a
    hot-seat game) are read without their null links and saved so."""
    game = server.create([{"name": "Ann", "type": "human"}, {"name": "Bot", "type": "bot", "bot": "random"}])
    hot = server.create([{"name": "Ann", "type": "human"}, {"name": "Bo", "type": "human"}], hotseat=True)
    old = [
        {"id": game["id"], "created": "2026-01-01T00:00:00Z", "players": [], "open": game["seats"][0]["url"],
         "hotseat": None, "seats": [{"name": "Ann", "url": game["seats"][0]["url"]}], "spectator": game["spectator_url"],
         "creatorToken": game["creator_token"], "status": "running", "played": []},
        {"id": hot["id"], "created": "2026-01-01T00:00:00Z", "players": [], "open": hot["hotseat_url"],
         "hotseat": hot["hotseat_url"], "seats": [{"name": "Ann", "url": None}, {"name": "Bo", "url": None}],
         "spectator": hot["spectator_url"], "creatorToken": hot["creator_token"], "status": "running", "played": []},
    ]
    third = server.create([{"name": "Ann", "type": "human"}, {"name": "Bot", "type": "bot", "bot": "random"}])
    page = new_page()
    open_lobby(page, server)
    page.evaluate("(s) => localStorage.setItem('hansa.myGames', s)", json.dumps([*old, {**old[0], "id": third["id"]}]))
    open_lobby(page, server)
    page.wait_for_selector(f"#my-games .game-item[data-id='{hot['id']}']")
    # Forgetting another game saves the list as the lobby reads it.
    page.locator(f"#my-games .game-item[data-id='{third['id']}'] .forget-btn").click()
    page.wait_for_selector(f"#my-games .game-item[data-id='{third['id']}']", state="detached")
    stored = stored_games(page)
    assert set(stored) == {game["id"], hot["id"]}
    assert "hotseat" not in stored[game["id"]] and stored[game["id"]]["open"] == game["seats"][0]["url"]
    assert stored[hot["id"]]["hotseat"] == hot["hotseat_url"] and stored[hot["id"]]["seats"] == []
    assert "null" not in json.dumps([{k: v for k, v in g.items() if k in ("open", "hotseat", "seats", "spectator")} for g in stored.values()])


# ---------------------------------------------------------------------------------------------- rule options


def test_options_follow_the_variant(new_page: Any, server: Server) -> None:
    page = new_page()
    open_lobby(page, server)
    page.click("#advanced summary")
    everything = set(server.call("GET", "/api/options")["options"]) - OWN_PLACE
    common = everything - set(NEUTRAL_OPTIONS) - set(PAWN_OPTIONS) - set(EAST_OPTIONS) - set(BRITANNIA_OPTIONS)
    # Three players: neither variant's options.
    page.select_option("#player-count", "3")
    assert visible_options(page) == common
    assert page.locator("#variant-box").is_hidden()
    # Two players, neutral traders (the default): the neutral options only.
    page.select_option("#player-count", "2")
    assert page.locator("#variant-box").is_visible()
    assert visible_options(page) == common | set(NEUTRAL_OPTIONS)
    page.select_option("#opt-neutral_coellen", "false")
    page.select_option("#opt-marker_set", '"PT15"')
    assert page.locator("#options-changed").inner_text() == "2 changed"
    # Pawn: the pawn option only, and a neutral option changed before is not sent.
    page.check("input[name=variant][value=pawn]")
    assert visible_options(page) == common | set(PAWN_OPTIONS)
    page.select_option("#opt-pawn_free_moves", '"beforeAndAfter"')
    sent, game = create(page)
    assert sent["options"] == {"marker_set": "PT15", "pawn_free_moves": "beforeAndAfter", "two_player_variant": "pawn"}
    assert server.call("GET", f"/api/games/{game['id']}")["options"] == sent["options"]
    # Back to neutral traders: the neutral option changed before is sent again, the pawn option is not.
    page.check("input[name=variant][value=neutral]")
    assert visible_options(page) == common | set(NEUTRAL_OPTIONS)
    sent, _ = create(page)
    assert sent["options"] == {"marker_set": "PT15", "neutral_coellen": False}
    # Three players again: no two-player option is sent.
    page.select_option("#player-count", "3")
    sent, _ = create(page)
    assert sent["options"] == {"marker_set": "PT15"}
    # Reset to defaults.
    page.click("#reset-options")
    assert page.locator("#options-changed").is_hidden()
    sent, _ = create(page)
    assert sent["options"] == {}


def test_every_option_is_explained(new_page: Any, server: Server) -> None:
    page = new_page()
    open_lobby(page, server)
    page.select_option("#player-count", "2")
    page.click("#advanced summary")
    specs = server.call("GET", "/api/options")["options"]
    for key, spec in specs.items():
        if key in OWN_PLACE:
            continue
        if key in PAWN_OPTIONS:
            page.check("input[name=variant][value=pawn]")
        if key in EAST_OPTIONS:
            page.check("input[name=map][value=east]")
        if key in BRITANNIA_OPTIONS:
            page.check("input[name=map][value=britannia]")
        row = page.locator(f"#options .opt[data-option-row='{key}']")
        label = row.locator(".opt-label").inner_text()
        assert label and "_" not in label, key  # a plain-language label, not the option's name
        # Every value has words, not just the value's code.
        texts = row.locator("select option").all_inner_texts()
        assert len(texts) == len(spec["values"])
        assert all(t.removesuffix(" (default)") not in (str(v), json.dumps(v)) for t, v in zip(texts, spec["values"])), texts
        assert sum("(default)" in t for t in texts) == 1
        help_panel = row.locator(".opt-help")
        assert help_panel.is_hidden()
        row.locator(".help-btn").click()
        assert help_panel.is_visible()
        assert row.locator(".help-btn").get_attribute("aria-expanded") == "true"
        assert len(help_panel.locator("dt").all()) == len(spec["values"])
        # A link to the option's section of the rules (§6.x) and one to the rule it changes.
        link = help_panel.locator("a.rule-link.opt-rule")
        assert link.inner_text().startswith("Rules §6.")
        section = link.inner_text().removeprefix("Rules §")
        assert link.get_attribute("href") == "/rules#s" + section.replace(".", "-")
        base = help_panel.locator("a.rule-link.base-rule")
        assert base.get_attribute("href") == "/rules#s" + base.inner_text().removeprefix("§").replace(".", "-")
        row.locator(".help-btn").click()
        assert help_panel.is_hidden()
    # The marker sets are spelled out.
    row = page.locator("#options .opt[data-option-row='marker_set']")
    row.locator(".help-btn").click()
    text = row.locator(".opt-help").inner_text()
    for preset in ("IT4", "EN16", "PT15", "BB15"):
        assert preset in text
    assert row.locator(".opt-help a.opt-rule").get_attribute("href") == "/rules#s6-1"
    assert row.locator(".opt-help a.base-rule").get_attribute("href") == "/rules#s1-5"
    assert page.locator(".options-intro a.rule-link").get_attribute("href") == "/rules#s6"


@pytest.fixture
def touch_page(new_page: Any) -> Any:
    """A phone-sized page with a touch screen (taps, no hover); script errors and CSP violations fail the test."""
    return new_page(phone=True)


def test_option_help_shows_on_a_tap(touch_page: Any, server: Server) -> None:
    page = touch_page
    open_lobby(page, server)
    page.locator("#advanced summary").tap()
    row = page.locator("#options .opt[data-option-row='tie_break']")
    assert row.locator(".opt-help").is_hidden()
    row.locator(".help-btn").tap()
    assert row.locator(".opt-help").is_visible()
    assert "share the win" in row.locator(".opt-help").inner_text()
    assert row.locator(".opt-help a.opt-rule").get_attribute("href") == "/rules#s6-7"
    assert row.locator(".opt-help a.base-rule").get_attribute("href") == "/rules#s4-4"
    # The help fits the phone's width.
    box = row.locator(".opt-help").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    row.locator(".help-btn").tap()
    assert row.locator(".opt-help").is_hidden()
    # The colour menu works by taps too.
    page.locator("#seats .seat").nth(1).locator(".seat-colour").tap()
    page.locator("#colour-menu .colour-option[data-colour='brown']").tap()
    page.wait_for_selector("#colour-menu", state="detached")
    assert page.locator("#seats .seat").nth(1).get_attribute("data-colour") == "brown"


def test_options_follow_the_map(new_page: Any, server: Server) -> None:
    """East and Britannia: two players cannot be chosen; each map shows its own options; Britannia's default Move 3
    is marked as the default there and not sent, Remove 3 then is."""
    page = new_page()
    open_lobby(page, server)
    page.click("#advanced summary")
    common = set(server.call("GET", "/api/options")["options"]) - OWN_PLACE - set(NEUTRAL_OPTIONS) - set(PAWN_OPTIONS)
    base = common - set(EAST_OPTIONS) - set(BRITANNIA_OPTIONS)
    page.select_option("#player-count", "2")
    assert page.locator("#map-note").is_hidden()
    # East: two players switch to three, with a note; East's options only.
    page.check("input[name=map][value=east]")
    assert page.locator("#player-count").input_value() == "3"
    assert page.locator("#player-count option[value='2']").is_disabled()
    assert page.locator("#map-note").is_visible() and page.locator("#variant-box").is_hidden()
    assert "10 completed cities" in page.locator("#map-help").inner_text()
    assert visible_options(page) == base | set(EAST_OPTIONS)
    page.select_option("#opt-green_city_swap", '"all"')
    assert page.locator("#options-changed").inner_text() == "1 changed"
    sent, game = create(page)
    assert sent["options"] == {"map": "east", "green_city_swap": "all"}
    assert server.call("GET", f"/api/games/{game['id']}")["board_side"] == "east"
    # Britannia: its options; Move 3 is its default (marked so, not sent).
    page.check("input[name=map][value=britannia]")
    assert visible_options(page) == base | set(BRITANNIA_OPTIONS)
    remove3 = page.locator("#opt-remove3_mode")
    assert remove3.input_value() == '"move"'
    assert "(default)" in remove3.locator("option[value='\"move\"']").inner_text()
    assert page.locator("#options-changed").is_hidden()
    page.select_option("#player-count", "4")
    sent, game = create(page)
    assert sent["options"] == {"map": "britannia"}
    assert server.call("GET", f"/api/games/{game['id']}")["board_side"] == "britannia_45"
    remove3.select_option('"remove"')
    page.select_option("#opt-permission_holder", '"controller"')
    sent, _ = create(page)
    assert sent["options"] == {"map": "britannia", "remove3_mode": "remove", "permission_holder": "controller"}
    # Back to the base board: Remove 3 is its default again; two players possible; nothing of the maps is sent.
    page.check("input[name=map][value=base]")
    assert remove3.input_value() == '"remove"'
    assert not page.locator("#player-count option[value='2']").is_disabled()
    assert visible_options(page) == base
    sent, _ = create(page)
    assert sent["options"] == {}
    # The lists name the map of each game.
    tags = page.locator("#my-games .game-item .map-tag").evaluate_all("els => els.map((e) => e.dataset.map)")
    assert tags[:3] == ["britannia", "britannia", "east"]


# ---------------------------------------------------------------------------------------------- the Big Box modules

MODULE_SECTIONS = {"missions": ("6.19", "8.2"), "emperors_favour": ("6.20", "8.3"), "marker_supply": ("6.21", "8.5")}


def supply_counts(page: Any) -> dict[str, int]:
    rows = page.locator("#supply-editor .supply-row")
    return {rows.nth(i).get_attribute("data-marker"): int(rows.nth(i).locator(".supply-count").inner_text()) for i in range(rows.count())}


def test_modules_are_chosen_in_their_own_box(new_page: Any, server: Server) -> None:
    """The three modules of docs/rules.md §8: a checkbox each with a line on what it adds and links to its §6 and §8
    sections; the promotional markers' supply made with counters that keep to 12 markers and the most of each kind;
    Mission Cards off on the expansion maps; what is ticked reaches the game."""
    page = new_page()
    open_lobby(page, server)
    spec = server.call("GET", "/api/options")["options"]["marker_supply"]
    box = page.locator("#modules-box")
    assert box.is_visible()
    for key, (section, rule) in MODULE_SECTIONS.items():
        row = page.locator(f"#modules .module[data-module-row='{key}']")
        assert not row.locator("input").is_checked()
        assert row.locator(".module-label").inner_text() and row.locator(".module-line").inner_text()
        assert row.locator("a.opt-rule").get_attribute("href") == "/rules#s" + section.replace(".", "-")
        assert row.locator("a.opt-rule").inner_text() == f"Rules §{section}"
        assert row.locator("a.base-rule").get_attribute("href") == "/rules#s" + rule.replace(".", "-")
    # Nothing ticked: nothing sent.
    sent, _ = create(page)
    assert sent["options"] == {}
    # Promotional markers: the suggested supply of 12, every promotional marker in it.
    assert page.locator("#supply-editor").is_hidden()
    page.check("#mod-marker_supply")
    assert page.locator("#supply-editor").is_visible()
    counts = supply_counts(page)
    assert list(counts) == spec["values"] and sum(counts.values()) == spec["length"]
    assert all(counts[m] >= 1 for m in ("exchange", "tribute", "block"))
    assert page.locator("#supply-total").inner_text() == "12 of 12 markers"
    # A full supply: no counter goes up; one less Extra office leaves room for a second Block.
    assert page.locator("#supply-editor .step.more:not([disabled])").count() == 0
    page.locator("#supply-editor .supply-row[data-marker='extra-office'] .less").click()
    assert "choose 1 more" in page.locator("#supply-total").inner_text()
    # 11 markers are refused before anything is sent.
    page.click("#create-btn")
    assert "exactly 12 markers" in page.locator("#create-error").inner_text()
    block = page.locator("#supply-editor .supply-row[data-marker='block']")
    block.locator(".more").click()
    assert block.locator(".supply-count").inner_text() == "2"
    assert block.locator(".more").is_disabled()  # at most 2 Blocks (GET /api/options: most)
    page.locator("#supply-editor .supply-row[data-marker='remove3']").locator(".less").click()
    assert page.locator("#supply-editor .supply-row[data-marker='remove3'] .more").is_enabled()
    page.locator("#supply-editor .supply-row[data-marker='remove3']").locator(".more").click()
    assert page.locator("#supply-editor .supply-row[data-marker='remove3'] .more").is_disabled()  # at most 1
    page.check("#mod-missions")
    page.check("#mod-emperors_favour")
    sent, game = create(page)
    wanted = ["extra-office", "swap", "+3", "+4", "improve", "remove3", "exchange", "exchange", "tribute", "tribute", "block", "block"]
    assert sent["options"] == {"missions": True, "emperors_favour": True, "marker_supply": wanted}
    view = server.call("GET", f"/api/games/{game['id']}")
    assert view["options"] == sent["options"] and len(view["state"]["favour"]["display"]) == 3
    # East: no Mission Cards there (the box is off, a note says why); the other two go with the map.
    page.check("input[name=map][value=east]")
    missions = page.locator("#mod-missions")
    assert missions.is_disabled() and not missions.is_checked()
    assert page.locator("#modules .module[data-module-row='missions'] .module-note").is_visible()
    sent, _ = create(page)
    assert sent["options"] == {"map": "east", "emperors_favour": True, "marker_supply": wanted}
    # Back on the base board the box is ticked again; the suggested mix comes back on request.
    page.check("input[name=map][value=base]")
    assert missions.is_enabled() and missions.is_checked()
    page.click("#supply-reset")
    assert sum(supply_counts(page).values()) == 12 and supply_counts(page)["block"] == 1
    page.uncheck("#mod-marker_supply")
    assert page.locator("#supply-editor").is_hidden()
    sent, _ = create(page)
    assert sent["options"] == {"missions": True, "emperors_favour": True}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.check("#mod-marker_supply")
    box.screenshot(path=str(SCREENSHOTS / "lobby-modules-desktop.png"))


# ---------------------------------------------------------------------------------------------- phones


def test_lobby_fits_a_phone(new_page: Any, server: Server) -> None:
    page = new_page(PHONE)
    open_lobby(page, server)
    assert page.evaluate(SIDEWAYS) == []
    # Five seats, bots with their levels, the colour menu open.
    page.select_option("#player-count", "5")
    for i in range(1, 5):
        seat(page, i).locator(".seat-type").select_option("bot")
    seat(page, 4).locator(".seat-name").fill("A rather long player name")
    assert page.evaluate(SIDEWAYS) == []
    for i in (0, 4):
        seat(page, i).locator(".seat-colour").click()
        assert page.evaluate(SIDEWAYS) == []
        box = page.locator("#colour-menu").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        page.keyboard.press("Escape")
    # Two players, the advanced options open with every help shown, both variants.
    page.select_option("#player-count", "2")
    page.click("#advanced summary")
    for variant in ("neutral", "pawn"):
        page.check(f"input[name=variant][value={variant}]")
        for btn in page.locator("#options .opt:not([hidden]) .help-btn").all():
            if btn.get_attribute("aria-expanded") == "false":
                btn.click()
        assert page.evaluate(SIDEWAYS) == []
    # The modules, the promotional markers' counters open.
    for key in ("missions", "emperors_favour", "marker_supply"):
        page.check(f"#mod-{key}")
    assert page.locator("#supply-editor").is_visible()
    assert page.evaluate(SIDEWAYS) == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#modules-box").screenshot(path=str(SCREENSHOTS / "lobby-modules-phone.png"))
    for key in ("missions", "emperors_favour", "marker_supply"):
        page.uncheck(f"#mod-{key}")
    # The created game's links.
    seat(page, 1).locator(".seat-type").select_option("human")
    page.check("#hotseat")
    create(page)
    page.wait_for_selector("#created .hotseat-link")
    assert page.locator("#created .seat-link").count() == 0
    assert page.evaluate(SIDEWAYS) == []
    shot_created(page, "lobby-created-hotseat-phone")
    # A game of seat links: a link per human seat.
    page.uncheck("#hotseat")
    _, game = create(page)
    page.wait_for_selector(f"#created h3:has-text('{game['id']}')")
    assert page.locator("#created .seat-link").count() == 2 and page.locator("#created .hotseat-link").count() == 0
    assert page.evaluate(SIDEWAYS) == []
    shot_created(page, "lobby-created-seat-links-phone")
    page.wait_for_selector("#my-games .game-item")
    assert page.evaluate(SIDEWAYS) == []
