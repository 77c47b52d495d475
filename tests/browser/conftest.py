"""Fixtures for the browser tests: a real ``hansa serve`` subprocess and headless Debian Chromium via Playwright.

Every test's final page is saved to ``artifacts/screenshots/<test>.png``.  A script error or a
Content-Security-Policy violation on any page fails the test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS, Server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("hansa-server"))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def paced_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``hansa serve`` with its bots at the default pace (0.3 s before each bot move), as players see them: for the
    tests of playback, which the instant bots of :func:`server` would pass over (a decision shows at once)."""
    srv = Server(tmp_path_factory.mktemp("hansa-paced"), extra=["--bot-delay", "0.3"])
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def club_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``hansa serve`` for the accounts, profile and leaderboard pages: sign-ups not limited (the tests make many
    accounts from one address) and finished rated games rated within a moment (``--rating-interval``)."""
    srv = Server(tmp_path_factory.mktemp("hansa-club"), extra=["--signups-per-hour", "1000", "--rating-interval", "0.2"])
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class PageErrors(list[str]):
    pass


# Runs in every document before its own scripts: reports each CSP violation (an inline style or script, a
# style="..." attribute, eval, a connection elsewhere...) to the test through an exposed binding.
CSP_REPORTER = """
document.addEventListener("securitypolicyviolation", (e) => {
  const report = JSON.stringify({
    directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample,
    source: e.sourceFile, line: e.lineNumber, page: location.pathname,
  });
  if (window.__hansaCspReport) window.__hansaCspReport(report);
}, true);
"""


@pytest.fixture
def csp_violations() -> list[str]:
    """Every Content-Security-Policy violation seen by the pages of :func:`new_page` (the event and the console)."""
    return []


@pytest.fixture
def new_page(browser: Any, request: pytest.FixtureRequest, csp_violations: list[str]) -> Iterator[Any]:
    """A factory of pages, each in its own browser context (own cookies and localStorage).

    Script errors and CSP violations on any page fail the test; every page is screenshot at the end (the first
    as <test>.png, the others as <test>-2.png, ...).
    """
    contexts: list[Any] = []
    pages: list[Any] = []
    errors = PageErrors()

    def on_console(msg: Any) -> None:
        if "Content Security Policy" in msg.text:
            csp_violations.append(f"console: {msg.text}")

    def make(viewport: dict[str, int] | None = None, settings: dict[str, Any] | None = None, phone: bool = False) -> Any:
        """``settings``: the table settings in localStorage (default: others' moves shown instantly and no question
        before ending a turn, as the tests
        would otherwise wait for every playback); ``phone``: a 390x844 touch screen."""
        if phone:
            ctx = browser.new_context(viewport=viewport or {"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                      device_scale_factor=2)
        else:
            ctx = browser.new_context(viewport=viewport or {"width": 1440, "height": 960})
        ctx.expose_binding("__hansaCspReport", lambda _source, report: csp_violations.append(report))
        ctx.add_init_script(CSP_REPORTER)
        table = {"pace": "instant", "confirmEnd": False, **(settings or {})}
        ctx.add_init_script(f"if (!localStorage.getItem('hansa.settings')) localStorage.setItem('hansa.settings', {json.dumps(json.dumps(table))});")
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(15000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", on_console)
        pages.append(page)
        return page

    yield make
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for i, page in enumerate(pages):
        suffix = "" if i == 0 else f"-{i + 1}"
        try:
            # Chromium cannot capture a page taller than its texture limit (the rules page on a phone): it waits for
            # the timeout.  Such a page is shot as its viewport.
            tall = page.evaluate("() => document.documentElement.scrollHeight * devicePixelRatio > 16000")
            page.screenshot(path=str(SCREENSHOTS / f"{request.node.name}{suffix}.png"), full_page=not tall,
                            timeout=5000)
        except Exception:  # noqa: BLE001 - a screenshot must not hide the test's own result
            pass
    for ctx in contexts:
        ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert not csp_violations, f"Content-Security-Policy violations: {csp_violations}"
