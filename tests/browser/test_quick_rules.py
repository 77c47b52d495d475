"""Browser tests of the "rules in five minutes" page (/rules/quick, issue 28): it loads in the five languages without
console errors or sideways scrolling at desktop and phone size, every picture is drawn with the pieces it should
show, every "full rules" link lands on a section of /rules, and the rules page and the lobby link to it.

Full-page screenshots at 1280×800 and 390×844 (touch) go to ``artifacts/screenshots/quick-rules/``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, ROOT, SCREENSHOTS, Server

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

I18N = ROOT / "src" / "hansa" / "server" / "static" / "i18n"
LANGS = ("en", "pt", "it", "es", "cs")
DESKTOP = {"width": 1280, "height": 800}
SHOTS = SCREENSHOTS / "quick-rules"
PARTS = ("goal", "turn", "place", "displace", "move", "claim", "markers", "abilities", "scoring")
#: Each picture's pieces: (Red's, Blue's), on houses and offices together.
SCENES = {
    "place": (1, 1),
    "displaceBefore": (1, 1),
    "displaceAfter": (2, 2),
    "moveBefore": (3, 1),
    "moveAfter": (3, 1),
    "claimBefore": (3, 1),
    "claimAfter": (1, 1),
    "marker": (3, 0),
    "scoring": (4, 3),
}
RED, BLUE = "0", "1"


def strings(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def console_errors(page: Any) -> list[str]:
    """Every console error of the page (a failed request, a script's console.error), collected as they come."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return errors


def open_quick(page: Any, server: Server, lang: str) -> None:
    page.goto(f"{server.base}/rules/quick?lang={lang}")
    page.wait_for_selector(f"body[data-ready='1'][data-lang='{lang}']")


def assert_no_horizontal_scroll(page: Any) -> None:
    widths = page.evaluate(
        "() => ({doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, win: window.innerWidth})"
    )
    assert widths["doc"] <= widths["win"] and widths["body"] <= widths["win"], widths


SCENE_FACTS = """() => [...document.querySelectorAll('svg.board.scene')].map((svg) => {
  const pieces = [...svg.querySelectorAll('.houses .piece-g, .cities .piece-g')];
  const piece = svg.querySelector('.piece-g');
  const vb = svg.viewBox.baseVal;
  return {
    scene: svg.dataset.scene,
    red: pieces.filter((p) => p.dataset.owner === '0').length,
    blue: pieces.filter((p) => p.dataset.owner === '1').length,
    traders: svg.querySelectorAll('.piece.trader').length,
    merchants: svg.querySelectorAll('.piece.merchant').length,
    routes: svg.querySelectorAll('g.route').length,
    cities: svg.querySelectorAll('g.city').length,
    markers: [...svg.querySelectorAll('.bonus-marker')].map((m) => m.dataset.marker),
    viewBox: [vb.width, vb.height],
    width: svg.getBoundingClientRect().width,
    piece: piece ? piece.getBoundingClientRect().width : 0,
    label: svg.getAttribute('aria-label'),
  };
})"""


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_in_every_language_and_size(new_page: Any, server: Server, lang: str) -> None:
    tr = strings(lang)
    for size in ("desktop", "phone"):
        page = new_page(DESKTOP) if size == "desktop" else new_page(phone=True)
        errors = console_errors(page)
        open_quick(page, server, lang)
        assert page.locator("h1").inner_text() == tr["quick.title"]
        assert page.title() == tr["quick.docTitle"]
        assert [page.locator(f"section#{p} > h2").inner_text().split(". ", 1)[1] for p in PARTS] == [
            tr[f"quick.{p}.title"] for p in PARTS
        ]
        # Every text is translated: no key shows, and the page's text is this language's.
        text = page.locator("#quick").inner_text()
        assert "quick." not in text, text
        for key in ("quick.place.1", "quick.claim.office", "quick.scoring.network", "quick.displace.after"):
            assert tr[key] in text, key
        # Every picture is drawn, cropped to its scene, with the pieces it should show.
        facts = {f["scene"]: f for f in page.evaluate(SCENE_FACTS)}
        assert set(facts) == set(SCENES), facts.keys()
        for name, (red, blue) in SCENES.items():
            f = facts[name]
            assert (f["red"], f["blue"]) == (red, blue), (name, f)
            assert f["traders"] >= 1 and f["routes"] >= 1 and f["cities"] >= 2, (name, f)
            assert 0 < f["viewBox"][0] < 600 and 0 < f["viewBox"][1] < 400, (name, f)
            # Big enough to read on a phone: the pieces at least the table's size (12.5 board units, 1:1 or more).
            assert f["width"] >= 250 and f["piece"] >= 11, (size, name, f)
            assert f["label"], name
        assert facts["displaceBefore"]["merchants"] == 0 and facts["claimBefore"]["merchants"] == 2
        assert facts["marker"]["markers"] == ["swap"]
        assert page.locator(".quick-figure figcaption").count() == len(SCENES)
        assert_no_horizontal_scroll(page)
        page.locator("#scoring").scroll_into_view_if_needed()
        assert_no_horizontal_scroll(page)
        assert not errors, errors
        if lang in ("en", "pt", "cs"):
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"quick-rules-{lang}-{size}.png"), full_page=True)


def test_every_full_rules_link_lands_on_a_section(new_page: Any, server: Server) -> None:
    page = new_page(DESKTOP)
    open_quick(page, server, "en")
    hrefs = page.eval_on_selector_all("#quick a.rule-link", "(links) => links.map((a) => a.getAttribute('href'))")
    # Every part links to its rules, and every link is a section anchor of /rules.
    assert page.locator("section.quick-part").count() == len(PARTS)
    assert page.locator("section.quick-part:not(:has(a.rule-link))").count() == 0
    # (the page's ?lang= goes along)
    assert len(hrefs) >= len(PARTS) and all(h.startswith("/rules?lang=en#s") for h in hrefs), hrefs
    assert page.locator("#full-rules-link").get_attribute("href") == "/rules?lang=en"
    for lang in ("en", "cs"):
        page.goto(f"{server.base}/rules?lang={lang}")
        page.wait_for_selector(f"body[data-ready='1'][data-lang='{lang}']")
        missing = [h for h in hrefs if not page.evaluate("(id) => !!document.getElementById(id)", h.split("#", 1)[1])]
        assert not missing, (lang, missing)
    # Following one lands on the section, highlighted.
    page.goto(f"{server.base}/rules/quick?lang=en")
    page.wait_for_selector("body[data-ready='1']")
    page.locator("#displace a.rule-link[href='/rules?lang=en#s2-4']").click()
    page.wait_for_function("() => document.getElementById('s2-4') && document.getElementById('s2-4').classList.contains('hl-target')")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_rules_page_and_the_lobby_link_to_it(new_page: Any, server: Server, phone: bool) -> None:
    page = new_page(phone=True) if phone else new_page(DESKTOP)
    page.goto(f"{server.base}/rules?lang=pt")
    page.wait_for_selector("body[data-ready='1'][data-lang='pt']")
    link = page.locator("#quick-link")
    assert link.get_attribute("href") == "/rules/quick?lang=pt"  # in the language asked for in the address
    assert strings("pt")["quick.callout.title"] in link.inner_text()
    # Prominent: at the top of the page, in the first screenful, above the rules text.
    box = link.bounding_box()
    assert box and box["y"] < 200 and box["height"] >= 30, box
    assert_no_horizontal_scroll(page)
    link.tap() if phone else link.click()
    page.wait_for_selector("body[data-ready='1'][data-lang='pt']")
    assert page.url.endswith("/rules/quick?lang=pt")
    assert page.locator("h1").inner_text() == strings("pt")["quick.title"]
    # The lobby, next to its rules link.
    lobby = new_page(phone=True) if phone else new_page(DESKTOP)
    lobby.goto(f"{server.base}/?lang=es")
    quick = lobby.locator("#top-actions a[href='/rules/quick']")
    assert quick.count() == 1
    assert lobby.locator("#top-actions a[href='/rules'] + a[href='/rules/quick']").count() == 1
    es = strings("es")
    lobby.wait_for_function("(t) => document.querySelector('#quick-rules-link').title === t", arg=es["quick.short"])
    assert quick.is_visible()
    # The whole label on a desktop; on a phone a short one keeps the top bar to one row.
    assert quick.inner_text() == (es["quick.shorter"] if phone else es["quick.short"])
    for lang in ("es", "pt"):  # (Portuguese's labels are the longest)
        if lang != "es":
            lobby.goto(f"{server.base}/?lang={lang}")
            lobby.wait_for_function("(t) => document.querySelector('#quick-rules-link').title === t", arg=strings(lang)["quick.short"])
        tops = lobby.eval_on_selector_all("#top-actions > *", "(els) => els.map((e) => Math.round(e.getBoundingClientRect().top))")
        assert max(tops) - min(tops) < 10, (lang, tops)
    assert_no_horizontal_scroll(lobby)
