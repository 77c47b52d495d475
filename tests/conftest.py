"""Fixtures for every test."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _no_browser_loop_outside_browser_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Playwright's sync API (the browser tests' session-wide browser) leaves its event loop set as this thread's
    running loop between its calls; a later test in the same worker process that calls ``asyncio.run`` would then be
    refused ("cannot be called from a running event loop"), depending only on how pytest-xdist happened to share the
    tests out.  Outside the browser tests, the thread has no running loop for the test's duration."""
    if "browser" in request.path.parts:
        yield
        return
    loop = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(loop)
