"""The table's and the lobby's texts as a player reads them (issue 28): captions that keep to one person, labels that
fit beside the score track in every language, "tap" and no keys on touch screens, neutral wording in the lobby, a
board that does not jump when "Your decision" comes or goes, and no English left on a phone in the other languages.

Screenshots of the table (decision banner, track, desks) at desktop and phone size in English and Portuguese go to
``artifacts/screenshots/table-texts-*.png``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    CHROMIUM,
    ROOT,
    SCREENSHOTS,
    Server,
    choose,
    create_in_lobby,
    open_game,
    wait_mine_or_over,
)

expect = pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed").expect
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

I18N = ROOT / "src" / "hansa" / "server" / "static" / "i18n"
LANGS = ("en", "pt", "it", "es", "cs")
#: The word each language tells a finger to use, and the mouse's word that must not be on a touch screen.
TAP = {"en": ("tap", "click"), "pt": ("toque", "clique"), "it": ("tocca", "clicca"), "es": ("toca", "clic"),
       "cs": ("klepni", "klikni")}


def strings(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def in_language(page: Any, lang: str) -> None:
    page.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")


def two_humans(server: Server, seed: int = 13) -> tuple[dict[str, Any], int, int]:
    """A game of Ana and Bo, with the seat that decides first and the one that waits."""
    game = server.create([{"name": "Ana", "type": "human"}, {"name": "Bo", "type": "human"}], seed=seed)
    first = server.call("GET", f"/api/games/{game['id']}")["state"]["turn"]["decider"]
    return game, first, 1 - first


def human_and_bot(server: Server) -> dict[str, Any]:
    return server.create([{"name": "Ana", "type": "human"}, {"name": "Robo", "type": "bot", "bot": "heuristic"}], seed=13)  # type: ignore[no-any-return]


def play_seat_turn(server: Server, game: dict[str, Any], seat: int) -> None:
    """Play ``seat``'s whole turn through the API (until another seat decides)."""
    for _ in range(40):
        view = server.call("GET", f"/api/games/{game['id']}", token=game["seats"][seat]["token"])
        if view["state"]["turn"]["decider"] != seat:
            return
        move = choose(view)
        server.call("POST", f"/api/games/{game['id']}/moves",
                    {"move": move["text"], "version": view["version"], "seat": seat}, token=game["seats"][seat]["token"])
    raise AssertionError("the turn did not end")


def shoot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"table-texts-{name}.png"), full_page=True)


# ------------------------------------------------------------------ 1. captions in one person

#: A claim that opened an office and took the route's bonus marker, told by the page's own caption module.
CLAIM_CAPTION = """async (seat) => {
  const { caption } = await import("/static/js/captions.js");
  const view = window.hansaGame.view;
  const layout = window.hansaGame.board.layout;
  const route = layout.routes[0];
  const entry = { n: 1, seat, turn: 1, move: `claim ${route.code} office`,
                  json: { type: "claim", route: route.code, benefit: "office", target: route.code.split("-")[1] },
                  delta: { route_markers: [[route.code, "swap", null]] } };
  return caption(entry, { players: view.players, layout, you: view.you, neutral: "#888" }).text;
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_a_claim_caption_keeps_to_one_person(new_page: Any, server: Server, lang: str) -> None:
    tr = strings(lang)
    game, _, _ = two_humans(server)
    page = new_page(viewport={"width": 1280, "height": 800})
    in_language(page, lang)
    open_game(page, server, game["seats"][0]["url"])  # Ana's page
    mine = page.evaluate(CLAIM_CAPTION, 0)
    other = page.evaluate(CLAIM_CAPTION, 1)
    # The marker is told in a second sentence whose subject is the claim's: "You claimed … You took …".
    first, _, second = mine.partition(". ")
    assert first.startswith(tr["cap.you"]) and second.startswith(tr["cap.you"]), mine
    assert tr["marker.swap"] in second, mine
    first, _, second = other.partition(". ")
    assert first.startswith("Bo") and second.startswith("Bo"), other
    if lang == "en":
        assert not re.search(r"\b(They|they|their|his|her)\b", mine), mine


def test_no_caption_mixes_persons_in_english() -> None:
    """English captions with a {who} speak of that player by {who} only (no "they" that reads wrong after "You")."""
    en = strings("en")
    bad = {k: v for k, v in en.items() if k.startswith("cap.") and re.search(r"\b(They|they|them|their|his|her)\b", v)}
    assert not bad, bad


# ------------------------------------------------------------------ 2. the track's labels fit in every language

#: What overlaps on the score track: every caption and score text against the cells, swatches and other texts, and
#: anything past the track's width.
TRACK_OVERLAPS = """() => {
  const svg = document.querySelector("svg.track");
  const width = svg.viewBox.baseVal.width;
  const texts = [...svg.querySelectorAll(".track-caption, .track-score")];
  const boxes = [...svg.querySelectorAll("rect:not(.track-piece):not(.completed-cube), .track-caption, .track-score")];
  const out = [];
  const overlap = (a, b) => a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
  for (const t of texts) {
    const a = t.getBBox();
    if (a.x < 0 || a.x + a.width > width) out.push(`${t.textContent} outside the track [${a.x}, ${a.x + a.width}]`);
    for (const o of boxes) {
      if (o === t) continue;
      const b = o.getBBox();
      if (overlap(a, b)) out.push(`${t.textContent} over ${o.getAttribute("class") || o.tagName} ${o.textContent || ""}`.trim());
    }
  }
  return out;
}"""

#: Texts of the desks cut short (ellipsis or clipped), names aside.
DESKS_CUT = """() => [...document.querySelectorAll("#desks *")]
  .filter((e) => e.children.length === 0 && e.textContent.trim() && !e.classList.contains("desk-name"))
  .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== "visible")
  .map((e) => e.textContent)"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_track_and_desk_labels_fit_in_every_language(new_page: Any, server: Server, phone: bool) -> None:
    game = server.create([{"name": "Ana", "type": "human"}, {"name": "Bo", "type": "human"},
                          {"name": "Carolina", "type": "human"}, {"name": "Dietrich", "type": "human"},
                          {"name": "Eva", "type": "human"}], seed=5)
    problems: dict[str, list[str]] = {}
    for lang in LANGS:
        page = new_page(phone=True) if phone else new_page(viewport={"width": 1280, "height": 800})
        in_language(page, lang)
        open_game(page, server, game["seats"][0]["url"])
        bad = page.evaluate(TRACK_OVERLAPS)
        if phone:
            page.locator("#side-tabs button[data-tab='players']").tap()
        bad += [f"desk: {x}" for x in page.evaluate(DESKS_CUT)]
        if bad:
            problems[lang] = bad
        if lang in ("en", "pt"):
            page.locator("#track-wrap").screenshot(path=str(SCREENSHOTS / f"table-texts-track-{lang}-{'phone' if phone else 'desktop'}.png"))
    assert not problems, problems


# ------------------------------------------------------------------ 3. tap, not click, on a touch screen


@pytest.mark.parametrize("lang", LANGS)
def test_a_touch_screen_is_told_to_tap_and_no_keys(new_page: Any, server: Server, lang: str) -> None:
    tap, click = TAP[lang]
    game = human_and_bot(server)
    page = new_page(phone=True)
    in_language(page, lang)
    open_game(page, server, game["seats"][0]["url"])
    wait_mine_or_over(page)
    prompt = page.locator("#prompt").inner_text().lower()
    assert tap in prompt and click not in prompt, prompt
    # The texts that name keys lose them: the popup's cancel button, the playback's skip button, the settings.
    cancel, skip = page.evaluate("""async () => {
      const { t } = await import("/static/js/i18n.js");
      return [t("popup.cancel"), t("prompt.skip")];
    }""")
    assert "Esc" not in cancel and "(" not in skip, (cancel, skip)
    page.locator("#settings-btn").tap()
    settings = page.locator("#settings").inner_text()
    assert not re.search(r"\b(Esc|Enter|Tab)\b", settings), settings
    if lang in ("en", "pt"):
        shoot(page, f"touch-{lang}")
    # The lobby: the colours and the options' help are tapped too.
    lobby = new_page(phone=True)
    in_language(lobby, lang)
    lobby.goto(server.base + "/")
    # the page is translated once its language file has arrived: wait for that (under load it takes a while)
    expect(lobby.locator("p.colour-note")).to_have_text(re.compile("^" + re.escape(tap[:4]), re.I), timeout=15_000)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_mouse_is_told_to_click(new_page: Any, server: Server, lang: str) -> None:
    tap, click = TAP[lang]
    game = human_and_bot(server)
    page = new_page(viewport={"width": 1280, "height": 800})
    in_language(page, lang)
    open_game(page, server, game["seats"][0]["url"])
    wait_mine_or_over(page)
    assert click in page.locator("#prompt").inner_text().lower()
    lobby = new_page(viewport={"width": 1280, "height": 800})
    in_language(lobby, lang)
    lobby.goto(server.base + "/")
    expect(lobby.locator("p.colour-note")).to_have_text(re.compile(re.escape(click), re.I), timeout=15_000)
    note = lobby.locator("p.colour-note").inner_text().lower()
    assert not note.startswith(tap), note


# ------------------------------------------------------------------ 4. neutral wording in the lobby

#: Words that make a player a man.
GENDERED = {"en": r"\b(his|him|he)\b", "pt": r"\b(dele|ele)\b", "it": r"\b(lui)\b", "es": r"\b(él)\b",
            "cs": r"\b(jeho|on)\b"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_lobby_speaks_of_players_neutrally(new_page: Any, server: Server, lang: str) -> None:
    page = new_page(viewport={"width": 1280, "height": 800})
    in_language(page, lang)
    page.goto(server.base + "/")
    create_in_lobby(page)
    created = page.locator("#created").inner_text()
    assert strings(lang)["lobby.sendLinks"] in created
    assert not re.search(GENDERED[lang], created, re.IGNORECASE), created
    if lang == "en":
        assert "their own join link" in created


# ------------------------------------------------------------------ 5. the board stays put


BOARD_TOP = "() => Math.round(document.querySelector('#board-viewport').getBoundingClientRect().top + window.scrollY)"


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_board_does_not_jump_when_a_decision_comes_or_goes(new_page: Any, server: Server, phone: bool, lang: str) -> None:
    game, first, second = two_humans(server)
    page = new_page(phone=True) if phone else new_page(viewport={"width": 1280, "height": 800})
    in_language(page, lang)
    open_game(page, server, game["seats"][second]["url"])  # this seat waits while the other plays
    page.wait_for_function("() => document.body.dataset.mine === '0'")
    waiting = page.evaluate(BOARD_TOP)
    play_seat_turn(server, game, first)
    page.wait_for_function("() => document.body.dataset.mine === '1'")
    assert page.locator("#turn-banner").is_visible()
    assert strings(lang)["prompt.yours"] in page.locator("#turn-banner").inner_text()
    deciding = page.evaluate(BOARD_TOP)
    shoot(page, f"banner-{lang}-{'phone' if phone else 'desktop'}")
    if phone:
        page.locator("#side-tabs button[data-tab='players']").tap()
        shoot(page, f"desks-{lang}-phone")
        page.locator("#side-tabs button[data-tab='play']").tap()
    play_seat_turn(server, game, second)
    page.wait_for_function("() => document.body.dataset.mine === '0'")
    again = page.evaluate(BOARD_TOP)
    assert waiting == deciding == again, f"the board's top: {waiting} waiting, {deciding} deciding, {again} waiting again"


# ------------------------------------------------------------------ 6. no English on a phone in the other languages


def english_fragments(lang: str) -> list[str]:
    """The English interface texts (touch variants first) whose translation differs, cut at their {parameters}:
    the pieces of a few words that would show if a text were left in English."""
    en, tr = strings("en"), strings(lang)
    out: set[str] = set()
    for key, value in en.items():
        if tr.get(key) == value:
            continue
        for piece in re.split(r"\{\w+\}", value):
            piece = piece.strip(" .,:;—()")
            if len(piece) >= 10 and piece.count(" ") >= 1 and piece not in tr.get(key, ""):
                out.add(piece)
    return sorted(out)


def english_on(page: Any, lang: str) -> list[str]:
    text = page.evaluate("document.body.innerText")
    return [piece for piece in english_fragments(lang) if piece in text]


@pytest.mark.parametrize("lang", ["pt", "it", "es", "cs"])
def test_no_english_on_a_phone(new_page: Any, server: Server, lang: str) -> None:
    tap, click = TAP[lang]
    lobby = new_page(phone=True)
    in_language(lobby, lang)
    lobby.goto(server.base + "/")
    create_in_lobby(lobby)
    left = {"lobby": english_on(lobby, lang)}
    game, first, second = two_humans(server)
    page = new_page(phone=True)
    in_language(page, lang)
    open_game(page, server, game["seats"][second]["url"])
    page.wait_for_function("() => document.body.dataset.mine === '0'")
    left["waiting"] = english_on(page, lang)
    play_seat_turn(server, game, first)  # this page's decision: the banner, the prompt, the caption of the other's turn
    wait_mine_or_over(page)
    left["deciding"] = english_on(page, lang)
    prompt = page.locator("#prompt").inner_text().lower()
    assert tap in prompt and click not in prompt, prompt
    for tab in ("players", "log"):
        page.locator(f"#side-tabs button[data-tab='{tab}']").tap()
        left[tab] = english_on(page, lang)
    page.locator("#side-tabs button[data-tab='play']").tap()
    page.locator("#settings-btn").tap()
    left["settings"] = english_on(page, lang)
    assert not any(left.values()), left
