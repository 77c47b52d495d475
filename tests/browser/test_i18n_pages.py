"""Browser tests of the translated lobby, replay and rules pages: Portuguese and Czech texts (with the game's terms
and Czech plural forms), the language picker in each page's header, the choice remembered across pages, and no
sideways scrolling on a phone in Czech, whose words are the longest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SIDEWAYS, Server, play_out_via_api

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

PHONE_WIDTH = 390

#: A few texts of each page per language (from the translation files), to tell that the page is translated.
LOBBY = {
    "pt": {"new": "Nova partida", "create": "Criar partida", "human": "Humano", "default": "(padrão)",
           "marker_set": "Conjunto de fichas de bônus", "swap": "Troca de Escritórios", "blue": "Azul"},
    "cs": {"new": "Nová hra", "create": "Založit hru", "human": "Člověk", "default": "(výchozí)",
           "marker_set": "Sada bonusových žetonů", "swap": "Výměna kontorů", "blue": "Modrá"},
}
REPLAY = {
    "pt": {"moves": "Jogadas", "prev": "◀ Voltar", "control": "Cidades controladas", "after": "Pontuação após a jogada 10",
           "winner": "Vencedor:", "turn": "Turno 1", "final": "final", "doc": "hansa — replay"},
    "cs": {"moves": "Kroky", "prev": "◀ Zpět", "control": "Kontrolovaná města", "after": "Body po kroku 10",
           "winner": "Vítěz:", "turn": "Tah 1", "final": "celkem", "doc": "hansa — přehrávání"},
}
RULES = {
    "pt": {"contents": "Índice", "claim": "Reivindicar", "anchor": "Link para esta seção", "board": "Lado de 4–5 jogadores (frente)"},
    "cs": {"contents": "Obsah", "claim": "Založení obchodní cesty", "anchor": "Odkaz na tento oddíl", "board": "Strana pro 4–5 hráčů (líc)"},
}


@pytest.fixture(scope="module")
def finished(server: Server) -> dict[str, Any]:
    """A finished two-player game (a human seat played through the API against the heuristic bot)."""
    game = server.create([{"name": "Hero", "type": "human"}, {"name": "Robo", "type": "bot", "bot": "heuristic"}], seed=17)
    view = play_out_via_api(server, game)
    return {"id": game["id"], "view": view}


def open_lobby(page: Any, server: Server, query: str = "") -> None:
    page.goto(f"{server.base}/{query}")
    page.wait_for_selector("body[data-ready='1']")


def open_replay(page: Any, server: Server, game_id: str, query: str = "") -> None:
    page.goto(f"{server.base}/replay/{game_id}{query}")
    page.wait_for_selector("body[data-ready='1']")


def open_rules(page: Any, server: Server, query: str = "") -> None:
    page.goto(f"{server.base}/rules{query}")
    page.wait_for_selector("body[data-ready='1']")


def picker_fits(page: Any, width: int) -> None:
    """The language picker is in the page's header, visible and inside the window."""
    picker = page.locator("header .lang-picker")
    assert picker.count() == 1 and picker.is_visible()
    box = picker.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width
    assert picker.locator("option").count() == 5


# ---------------------------------------------------------------------------------------------- the pages translated


@pytest.mark.parametrize("lang", ["pt", "cs"])
def test_lobby_is_translated(new_page: Any, server: Server, lang: str) -> None:
    words = LOBBY[lang]
    page = new_page()
    open_lobby(page, server, f"?lang={lang}")
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.locator(".new-game h2").inner_text() == words["new"]
    assert page.locator("#create-btn").inner_text() == words["create"]
    assert page.locator("#seats .seat").nth(0).locator(".seat-type option[value='human']").inner_text() == words["human"]
    assert page.locator(".lang-picker").input_value() == lang
    # The rule options: labels, the default marked in the menu, and the game's terms (marker.*) in the help.
    page.click("#advanced summary")
    row = page.locator("#options .opt[data-option-row='marker_set']")
    assert row.locator(".opt-label").inner_text() == words["marker_set"]
    assert sum(words["default"] in x for x in row.locator("select option").all_inner_texts()) == 1
    row.locator(".help-btn").click()
    assert words["swap"] in row.locator(".opt-help").inner_text()
    assert "{" not in page.locator("#options").inner_text()  # every parameter filled in
    # The colour menu names the colours in the language.
    page.locator("#seats .seat").nth(1).locator(".seat-colour").click()
    assert page.locator("#colour-menu .colour-option[data-colour='blue'] .colour-name").inner_text() == words["blue"]
    page.keyboard.press("Escape")


def test_czech_plural_forms(new_page: Any, server: Server) -> None:
    """Czech counts take three forms: 1 změněna, 2-4 změněny, 5 and more změněno."""
    page = new_page()
    open_lobby(page, server, "?lang=cs")
    page.click("#advanced summary")
    tag = page.locator("#options-changed")
    expected = {1: "1 změněna", 2: "2 změněny", 4: "4 změněny", 5: "5 změněno"}
    keys = ["marker_set", "marker_city_rule", "swap_needs_own", "remove3_targets", "remove3_mode"]
    for count, key in enumerate(keys, start=1):
        select = page.locator(f"#opt-{key}")
        other = select.locator("option").nth(1).get_attribute("value")
        select.select_option(other)
        if count in expected:
            assert tag.inner_text() == expected[count]


@pytest.mark.parametrize("lang", ["pt", "cs"])
def test_replay_is_translated(new_page: Any, server: Server, finished: dict[str, Any], lang: str) -> None:
    words = REPLAY[lang]
    page = new_page({"width": 1280, "height": 800})
    open_replay(page, server, finished["id"], f"?lang={lang}")
    assert page.locator("#moves-title").inner_text() == words["moves"]
    assert page.locator("#prev-btn").inner_text() == words["prev"]
    assert page.locator("#first-btn").get_attribute("aria-label") != "first move"
    assert page.title().startswith(words["doc"])
    assert page.locator("#move-list .ml-turn-no").first.inner_text() == words["turn"]
    assert page.locator("#final-scores tr[data-row='control'] th").inner_text() == words["control"]
    assert page.locator(".ft-winners-label").inner_text() == words["winner"]
    assert page.locator("#chart svg.chart text.final-label").text_content() == words["final"]
    page.locator("#move-list .ml-move[data-n='10']").click()
    page.wait_for_function("() => document.body.dataset.k === '10'")
    assert page.locator("#scores-title").inner_text() == words["after"]
    picker_fits(page, 1280)


@pytest.mark.parametrize("lang", ["pt", "cs"])
def test_rules_page_is_translated(new_page: Any, server: Server, lang: str) -> None:
    words = RULES[lang]
    page = new_page({"width": 1280, "height": 800})
    open_rules(page, server, f"?lang={lang}")
    page.wait_for_selector(f"body[data-lang='{lang}']")
    assert page.locator("#toc-title").inner_text() == words["contents"]
    assert words["claim"] in page.locator("#s2-6").inner_text()  # the rules text itself follows the language
    assert page.locator("#s2-6 a.anchor").get_attribute("title") == words["anchor"]
    page.wait_for_function("() => document.querySelectorAll('.rules-board svg.board').length === 2")
    assert page.locator(".rules-boards figcaption").first.inner_text() == words["board"]
    assert page.locator("#lobby-link").inner_text() == "Lobby"
    picker_fits(page, 1280)


# ---------------------------------------------------------------------------------------------- the picker


def test_picker_switches_and_is_remembered_across_pages(new_page: Any, server: Server, finished: dict[str, Any]) -> None:
    page = new_page()
    open_lobby(page, server)  # Chromium's language here is English and nothing is stored yet
    assert page.locator(".new-game h2").inner_text() == "New game"
    with page.expect_navigation():
        page.select_option("header .lang-picker", "cs")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator(".new-game h2").inner_text() == LOBBY["cs"]["new"]
    assert page.evaluate("localStorage.getItem('hansa.lang')") == "cs"
    # The rules page (from the lobby's link) opens in the chosen language, text and all.
    page.click("header a[href='/rules']")
    page.wait_for_selector("body[data-lang='cs']")
    assert page.locator("#toc-title").inner_text() == RULES["cs"]["contents"]
    assert RULES["cs"]["claim"] in page.locator("#s2-6").inner_text()
    assert page.locator("header .lang-picker").input_value() == "cs"
    # Switching on the rules page keeps the reader's place and carries over to the other pages.
    page.evaluate("document.getElementById('s4-4').scrollIntoView()")
    with page.expect_navigation():
        page.select_option("header .lang-picker", "pt")
    page.wait_for_selector("body[data-lang='pt']")
    page.wait_for_function("() => Math.abs(document.getElementById('s4-4').getBoundingClientRect().top) < 80")
    assert RULES["pt"]["claim"] in page.locator("#s2-6").inner_text()
    assert page.evaluate("localStorage.getItem('hansa.lang')") == "pt"
    page.click("#lobby-link")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator(".new-game h2").inner_text() == LOBBY["pt"]["new"]
    open_replay(page, server, finished["id"])
    assert page.locator("#moves-title").inner_text() == REPLAY["pt"]["moves"]
    # ?lang= shows a page in another language without changing the choice.
    open_lobby(page, server, "?lang=en")
    assert page.locator(".new-game h2").inner_text() == "New game"
    assert page.evaluate("localStorage.getItem('hansa.lang')") == "pt"


# ---------------------------------------------------------------------------------------------- phones


def test_czech_pages_fit_a_phone(new_page: Any, server: Server, finished: dict[str, Any]) -> None:
    page = new_page(phone=True)
    # The lobby: five seats, the colour menu, every option's help, a created game and the lists.
    open_lobby(page, server, "?lang=cs")
    picker_fits(page, PHONE_WIDTH)
    assert page.evaluate(SIDEWAYS) == []
    page.select_option("#player-count", "5")
    page.locator("#seats .seat").nth(4).locator(".seat-colour").click()
    box = page.locator("#colour-menu").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE_WIDTH
    assert page.evaluate(SIDEWAYS) == []
    page.keyboard.press("Escape")
    page.select_option("#player-count", "2")
    page.click("#advanced summary")
    for variant in ("neutral", "pawn"):
        page.check(f"input[name=variant][value={variant}]")
        for btn in page.locator("#options .opt:not([hidden]) .help-btn").all():
            if btn.get_attribute("aria-expanded") == "false":
                btn.click()
        assert page.evaluate(SIDEWAYS) == []
    page.check("#hotseat")
    page.click("#create-btn")
    page.wait_for_selector("#created .hotseat-link")
    page.wait_for_selector("#my-games .game-item")
    assert page.evaluate(SIDEWAYS) == []
    # The replay: the top, the final scoring and the chart.
    open_replay(page, server, finished["id"], "?lang=cs")
    picker_fits(page, PHONE_WIDTH)
    assert page.evaluate(SIDEWAYS) == []
    page.locator("#chart-box").scroll_into_view_if_needed()
    assert page.evaluate(SIDEWAYS) == []
    # The rules, with the boards.
    open_rules(page, server, "?lang=cs")
    page.wait_for_function("() => document.querySelectorAll('.rules-board svg.board').length === 2")
    picker_fits(page, PHONE_WIDTH)
    assert page.evaluate(SIDEWAYS) == []
