"""No English left on a touch screen in the other four languages (issue 28, item 8): on a phone, in Portuguese,
Italian, Spanish and Czech, the lobby (its advanced options open), a running game's table at a decision (the claim
chooser open, a house's popup open, the settings open, each side tab) and the replay page show no text, tooltip,
label or placeholder that is an English interface text.

A string is English when it is one of en.json's texts (or fits one of its templates, "Place a {piece}") whose
translation differs, and is not a text of the page's language at all; proper names (cities, players, bots) and move
notation (<code>) are not texts to translate.  The checker itself is tested on a small page with hard-coded English.
What each language's pages looked like goes to ``artifacts/screenshots/no-english/``.
"""

from __future__ import annotations

import json
import re
import time
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
    play_out_via_api,
)

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

I18N = ROOT / "src" / "hansa" / "server" / "static" / "i18n"
PLAYERS = ("Ana", "Bo")
SHOTS = SCREENSHOTS / "no-english"


def strings(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


# ------------------------------------------------------------------ the checker

#: Every string a reader meets on the page: visible text nodes (not in <code>, the move notation), the tooltips of
#: visible SVG elements (<title>), the title / aria-label / placeholder of visible elements, the options of visible
#: <select>s, and the document's title.  Each with where it was found.
COLLECT = """() => {
  const out = [];
  const shown = (el) => !!el && (typeof el.checkVisibility === 'function'
    ? el.checkVisibility({ checkVisibilityCSS: true }) : el.getClientRects().length > 0);
  const where = (el) => el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}${el.classList.length ? '.' + [...el.classList].join('.') : ''}`
    + (el.parentElement && el.parentElement !== document.body ? ` < ${el.parentElement.id ? '#' + el.parentElement.id : el.parentElement.tagName.toLowerCase()}` : '');
  const clean = (s) => s.replace(/\\s+/g, ' ').trim();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = clean(n.nodeValue);
    const el = n.parentElement;
    // .pname: a player's name as its game's creator typed it (the lobby lists other people's games too)
    if (!text || !el || el.closest('code, script, style, noscript, template, .pname')) continue;
    if (el.closest('svg title')) {
      const owner = el.closest('svg title').parentElement;
      if (shown(owner)) out.push({ kind: 'tooltip', text, where: where(owner) });
    } else if (el.closest('select')) {
      if (shown(el.closest('select'))) out.push({ kind: 'option', text, where: where(el.closest('select')) });
    } else if (shown(el)) out.push({ kind: 'text', text, where: where(el) });
  }
  for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (!shown(el) || el.closest('code')) continue;
    for (const attr of ['title', 'aria-label', 'placeholder']) {
      const v = el.getAttribute(attr);
      if (v && clean(v)) out.push({ kind: attr, text: clean(v), where: where(el) });
    }
  }
  if (document.title) out.push({ kind: 'document title', text: clean(document.title), where: 'head' });
  return out;
}"""


def _template(value: str) -> re.Pattern[str]:
    parts = re.split(r"\{\w+\}", value)
    return re.compile("(.+?)".join(re.escape(p) for p in parts), re.DOTALL)


def _worded(template: str) -> bool:
    """Whether a template has words of its own (the {parameters} aside): at least one of 3 letters."""
    return bool(re.search(r"[^\W\d_]{3}", re.sub(r"\{\w+\}", "", template)))


class EnglishChecker:
    """Which strings of a page in ``lang`` are English interface texts left untranslated."""

    def __init__(self, lang: str, names: set[str]) -> None:
        en, tr = strings("en"), strings(lang)
        self.names = names
        self.native = set(tr.values())
        # (a template with no words of its own, "{n} {piece}", would fit any string: such a one tells nothing)
        self.native_templates = [_template(v) for v in tr.values() if "{" in v and _worded(v)]
        # English texts whose translation differs (a text the same in both languages, "Bot", is no sign of English).
        self.exact = {v: k for k, v in en.items() if tr.get(k) != v}
        # Templates whose own words (the {parameters} aside) make them English: at least one word of 3 letters.
        self.templates = [
            (k, _template(v)) for k, v in en.items()
            if "{" in v and tr.get(k) != v and _worded(v)
        ]

    def key_of(self, text: str) -> str | None:
        """The en.json key whose English ``text`` is, or None when it is not English left over."""
        if text in self.native or text in self.names or not re.search(r"[A-Za-z]{2}", text):
            return None
        if text in self.exact:
            return self.exact[text]
        if any(p.fullmatch(text) for p in self.native_templates):
            return None
        for key, pattern in self.templates:
            if pattern.fullmatch(text):
                return key
        return None

    def english(self, found: list[dict[str, str]]) -> list[str]:
        out = []
        for item in found:
            key = self.key_of(item["text"])
            if key:
                out.append(f"{item['kind']} {item['text']!r} at {item['where']} (en.json {key})")
        return sorted(set(out))


def english_on(page: Any, checker: EnglishChecker) -> list[str]:
    return checker.english(page.evaluate(COLLECT))


def proper_names(server: Server) -> set[str]:
    """City names of every map as the client prints them, the players' and the bots' names."""
    names = set(PLAYERS)
    for side in ("4-5", "2-3"):
        for c in server.call("GET", f"/api/boards/{side}")["cities"]:
            names.add(c["name"])
    names.update(server.call("GET", "/api/bots")["bots"])
    # The client prints umlauts where the board data spells them out (api.js).
    umlauts = {"ae": "ä", "oe": "ö", "ue": "ü", "Ae": "Ä", "Oe": "Ö", "Ue": "Ü"}
    for name in list(names):
        spelled = name
        for a, b in umlauts.items():
            spelled = spelled.replace(a, b)
        names.add(spelled)
    return names


# ------------------------------------------------------------------ the checker on a small page


def test_the_checker_finds_hard_coded_english(new_page: Any, server: Server) -> None:
    en, pt = strings("en"), strings("pt")
    page = new_page(phone=True)
    page.set_content(f"""<html><head><title>{pt['common.rules']}</title></head><body>
      <p>{pt['move.end']}</p>
      <p>{en['move.end']}</p>
      <button title="{en['settings.title']}" aria-label="{pt['settings.title']}">⚙</button>
      <input placeholder="{en['table.movePlaceholder']}">
      <p>Place a Trader</p>
      <p>Colocar um Comerciante</p>
      <code>{en['move.end']}</code>
      <p>Groningen</p>
      <p hidden>{en['prompt.yours']}</p>
      <svg width="40" height="40"><g><title>{en['board.tavern']}</title><rect width="20" height="20"/></g></svg>
    </body></html>""")
    checker = EnglishChecker("pt", {"Groningen"})
    left = english_on(page, checker)
    assert {x.split(" (en.json ")[1] for x in left} == {
        f"{k})" for k in ("move.end", "settings.title", "table.movePlaceholder", "move.place", "board.tavern")
    }, left
    assert any(x.startswith("placeholder ") for x in left) and any(x.startswith("title ") for x in left), left
    assert any(x.startswith("tooltip ") for x in left), left


# ------------------------------------------------------------------ the pages


@pytest.fixture(scope="module")
def finished_game(server: Server) -> dict[str, Any]:
    game = server.create([{"name": PLAYERS[0], "type": "human"}, {"name": PLAYERS[1], "type": "human"}], seed=21)
    play_out_via_api(server, game)
    return game  # type: ignore[no-any-return]


def until_my_claim(server: Server, game: dict[str, Any], seat: int, limit: float = 60.0) -> None:
    """Play both seats through the API until ``seat`` decides and may claim a route (the other seat plays on)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        decider = server.call("GET", f"/api/games/{game['id']}")["state"]["turn"]["decider"]
        token = game["seats"][decider]["token"]
        view = server.call("GET", f"/api/games/{game['id']}", token=token)
        if decider == seat and any(m["json"]["type"] == "claim" for m in view["legal"]):
            return
        move = choose(view)
        server.call("POST", f"/api/games/{game['id']}/moves",
                    {"move": move["text"], "version": view["version"], "seat": decider}, token=token)
    raise AssertionError("no claim came for the seat")


@pytest.mark.parametrize("lang", ["pt", "it", "es", "cs"])
def test_no_english_on_a_touch_screen(new_page: Any, server: Server, finished_game: dict[str, Any], lang: str) -> None:
    checker = EnglishChecker(lang, proper_names(server))
    left: dict[str, list[str]] = {}

    def look(page: Any, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{lang}-{re.sub(r'[^a-z]+', '-', name)}.png"))
        found = english_on(page, checker)
        if found:
            left[name] = found

    # The lobby, with its advanced options open, and after creating a game there (its links, "My games").
    lobby = new_page(phone=True)
    lobby.goto(f"{server.base}/?lang={lang}")
    lobby.wait_for_function("(t) => document.querySelector('#create-btn').textContent === t", arg=strings(lang)["lobby.create"])
    lobby.locator("#advanced > summary").tap()
    lobby.wait_for_selector("#advanced[open]")
    look(lobby, "lobby")
    create_in_lobby(lobby)
    look(lobby, "lobby: created")

    # A running game's table: waiting for the other seat, then deciding with a route to claim.
    game = server.create([{"name": PLAYERS[0], "type": "human"}, {"name": PLAYERS[1], "type": "human"}], seed=13)
    until_my_claim(server, game, 0)
    waiting = new_page(phone=True)
    waiting.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")
    open_game(waiting, server, game["seats"][1]["url"])
    waiting.wait_for_function("() => document.body.dataset.mine === '0'")
    look(waiting, "table: waiting")
    page = new_page(phone=True)
    page.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")
    open_game(page, server, game["seats"][0]["url"])
    page.wait_for_function("() => document.body.dataset.mine === '1'")
    look(page, "table: deciding")
    page.locator("#action-buttons button.claim-btn").first.tap()
    page.wait_for_selector("#popup:not([hidden]) .popup-choice")
    look(page, "table: claim chooser")
    page.locator("#popup .popup-cancel").tap()
    page.wait_for_selector("#popup", state="hidden")
    # A free house: its popup (a Trader or the Merchant); on a phone the first tap may zoom in on it.
    house = page.locator("svg.board g.house.free.hl").first
    key = house.get_attribute("data-key")
    for _ in range(2):
        page.locator(f"svg.board g.house[data-key='{key}']").tap()
        page.wait_for_timeout(500)
        if page.locator("#popup:not([hidden]) .popup-choice").count():
            break
    page.wait_for_selector("#popup:not([hidden]) .popup-choice")
    look(page, "table: house popup")
    page.locator("#popup .popup-cancel").tap()
    page.wait_for_selector("#popup", state="hidden")
    for tab in ("players", "log"):
        page.locator(f"#side-tabs button[data-tab='{tab}']").tap()
        look(page, f"table: {tab} tab")
    page.locator("#side-tabs button[data-tab='play']").tap()
    page.locator("#settings-btn").tap()
    page.wait_for_selector("#settings:not([hidden])")
    look(page, "table: settings")

    # A finished game's table (the final scores) and its replay, at the end.
    over = new_page(phone=True)
    over.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")
    open_game(over, server, finished_game["seats"][0]["url"])
    over.wait_for_function("() => document.body.dataset.status === 'over'")
    over.wait_for_selector(".chart-slot figure.chart-wrap")  # the score chart, with its axis and legend
    look(over, "table: game over")
    replay = new_page(phone=True)
    replay.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")
    replay.goto(f"{server.base}/replay/{finished_game['id']}")
    replay.wait_for_selector("body[data-ready='1']")
    look(replay, "replay")

    assert not left, json.dumps(left, ensure_ascii=False, indent=1)
