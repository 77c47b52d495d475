"""Fixtures for the browser tests: a real ``hansa serve`` subprocess and headless Debian Chromium via Playwright.

Every test's final page is saved to ``artifacts/screenshots/<test>.png``.
"""

from __future__ import annotations

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
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class PageErrors(list[str]):
    pass


@pytest.fixture
def new_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A factory of pages, each in its own browser context (own cookies and localStorage).

    Script errors on any page fail the test; every page is screenshot at the end (the first as <test>.png, the
    others as <test>-2.png, ...).
    """
    contexts: list[Any] = []
    pages: list[Any] = []
    errors = PageErrors()

    def make(viewport: dict[str, int] | None = None) -> Any:
        ctx = browser.new_context(viewport=viewport or {"width": 1440, "height": 960})
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(15000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        pages.append(page)
        return page

    yield make
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for i, page in enumerate(pages):
        suffix = "" if i == 0 else f"-{i + 1}"
        try:
            page.screenshot(path=str(SCREENSHOTS / f"{request.node.name}{suffix}.png"), full_page=True)
        except Exception:  # noqa: BLE001 - a screenshot must not hide the test's own result
            pass
    for ctx in contexts:
        ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
