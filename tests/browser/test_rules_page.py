"""Browser tests of the rules page (/rules) against a real server, in headless Chromium: phone and desktop layouts,
the language chooser and its memory, anchors to sections.  The review screenshots go to artifacts/review/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, ROOT, Server

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

REVIEW = ROOT / "artifacts" / "review"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: Words of §2.6's heading in each language, to tell the languages apart.
CLAIM = {"en": "Claim a route", "pt": "Reivindicar", "it": "Reclamare", "es": "Establecer una ruta", "cs": "Založení obchodní cesty"}


def open_rules(page: Any, server: Server, query: str = "", lang: str | None = None) -> None:
    page.goto(f"{server.base}/rules{query}")
    page.wait_for_selector("body[data-ready='1']")
    if lang:
        page.wait_for_selector(f"body[data-lang='{lang}']")


def assert_no_horizontal_scroll(page: Any) -> None:
    widths = page.evaluate(
        "() => ({doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, win: window.innerWidth})"
    )
    assert widths["doc"] <= widths["win"] and widths["body"] <= widths["win"], widths


def wait_at_top(page: Any, selector: str) -> None:
    """Wait until the element is at the top of the window (anchors may scroll smoothly)."""
    page.wait_for_function(
        "(sel) => { const e = document.querySelector(sel); const t = e && e.getBoundingClientRect().top; return e && t > -5 && t < 40; }",
        arg=selector,
    )


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_rules_page_layout(new_page: Any, server: Server, size: str) -> None:
    page = new_page(DESKTOP if size == "desktop" else PHONE)
    open_rules(page, server, "?lang=en", "en")
    assert page.locator("#rules h1").inner_text().startswith("Hansa Teutonica")
    assert page.locator("#toc a").count() >= 50
    assert (page.locator("#toc a[href='#s2-6']").text_content() or "").startswith("2.6")
    # Both board sides, drawn without pieces, under the board facts.
    page.wait_for_function("() => document.querySelectorAll('.rules-board svg.board .city').length === 54")
    assert page.locator(".rules-board svg.board .piece").count() == 0
    assert page.locator("section:has(> #sA) > figure.rules-boards").count() == 1
    # Tables scroll inside their own boxes; the page itself never scrolls sideways.
    assert page.locator("#rules .table-wrap > table").count() == page.locator("#rules table").count() >= 15
    assert_no_horizontal_scroll(page)
    for ident in ("sA-1", "s6", "s5"):
        page.evaluate(f"document.getElementById({ident!r}).scrollIntoView()")
        assert_no_horizontal_scroll(page)
    # Back to the lobby.
    assert page.locator("#lobby-link").get_attribute("href") == "/"
    if size == "phone":
        # The contents fold away on a phone and open on demand.
        assert not page.locator("#toc").is_visible()
        page.click("#toc-title")
        page.locator("#toc a[href='#s3-3']").click()
        page.wait_for_function("() => location.hash === '#s3-3'")
        assert not page.locator("#toc").is_visible()
        wait_at_top(page, "#s3-3")
    else:
        assert page.locator("#toc").is_visible()


def test_language_switch_is_remembered(new_page: Any, server: Server) -> None:
    page = new_page(DESKTOP)
    open_rules(page, server, "", "en")  # Chromium's language here is English and nothing is stored yet
    english = page.locator("#s2-6").inner_text()
    assert CLAIM["en"] in english
    # The picker (i18n.js) remembers the choice and opens the page again in it.
    with page.expect_navigation():
        page.select_option("#lang", "cs")
    page.wait_for_selector("body[data-lang='cs']")
    page.wait_for_function("() => document.documentElement.lang === 'cs'")
    czech = page.locator("#s2-6").inner_text()
    assert czech != english and CLAIM["cs"] in czech
    assert page.locator("#toc-title").inner_text() == "Obsah"
    assert page.evaluate("localStorage.getItem('hansa.lang')") == "cs"
    # A later visit without ?lang= opens in the remembered language...
    open_rules(page, server, "", "cs")
    assert page.locator("#lang").input_value() == "cs"
    assert CLAIM["cs"] in page.locator("#s2-6").inner_text()
    # ... ?lang= wins over it, and every language has the same sections.
    for lang in ("pt", "it", "es"):
        open_rules(page, server, f"?lang={lang}", lang)
        assert CLAIM[lang] in page.locator("#s2-6").inner_text()
        assert page.locator("#toc a").count() == page.locator("#rules :is(h2, h3, h4)[id]").count()
    assert page.evaluate("localStorage.getItem('hansa.lang')") == "cs"


def test_browser_language_is_the_default(browser: Any, server: Server) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="it-IT")
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        open_rules(page, server, "", "it")
        assert CLAIM["it"] in page.locator("#s2-6").inner_text()
        assert not errors
    finally:
        ctx.close()


def test_anchor_lands_on_the_section(new_page: Any, server: Server) -> None:
    page = new_page(DESKTOP)
    open_rules(page, server, "?lang=en#s2-6", "en")
    page.wait_for_function("() => document.getElementById('s2-6').classList.contains('hl-target')")
    wait_at_top(page, "#s2-6")
    assert page.locator("#s2-6").inner_text().startswith("2.6")
    assert page.locator("#toc a.current").get_attribute("href") == "#s2-6"
    assert page.locator("section.hl-section").count() == 1
    # Following another anchor moves the highlight.
    page.evaluate("location.hash = '#s4-4'")
    page.wait_for_function("() => document.getElementById('s4-4').classList.contains('hl-target')")
    assert not page.locator("#s2-6").get_attribute("class")
    # A lettered rule (an error's "§5.A") lands on its heading too.
    page.evaluate("location.hash = '#s5-A'")
    page.wait_for_function("() => document.querySelector('.hl-target') && document.querySelector('.hl-target').textContent.startsWith('5.A')")
    wait_at_top(page, ".hl-target")


def test_review_screenshots(new_page: Any, server: Server) -> None:
    """Screenshots for review at 1280×800 and 390×844, in English and Czech: the top of the page, §2.6 and the board."""
    REVIEW.mkdir(parents=True, exist_ok=True)
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        for lang in ("en", "cs"):
            page = new_page(viewport)
            open_rules(page, server, f"?lang={lang}", lang)
            page.wait_for_function("() => document.querySelectorAll('.rules-board svg.board').length === 2")
            assert_no_horizontal_scroll(page)
            page.screenshot(path=str(REVIEW / f"rules-{lang}-{size}.png"))
            page.evaluate("location.hash = '#s2-6'")
            page.wait_for_function("() => document.getElementById('s2-6').classList.contains('hl-target')")
            page.wait_for_timeout(400)
            page.screenshot(path=str(REVIEW / f"rules-{lang}-{size}-s2-6.png"))
            page.evaluate("location.hash = '#sA'")
            page.wait_for_function("() => document.getElementById('sA').classList.contains('hl-target')")
            page.wait_for_timeout(400)
            page.screenshot(path=str(REVIEW / f"rules-{lang}-{size}-board.png"))
            page.close()
