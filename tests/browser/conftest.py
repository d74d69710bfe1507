"""The browser tests' fixtures: Debian's Chromium driven by Playwright, a fresh context.

Playwright drives the system's Chromium (never a downloaded browser); without Chromium
the tests are skipped. tests/browser/helpers.py serves the tables.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, expect, sync_playwright

from tests.browser.helpers import SAVED, WAIT_MS, chromium_path


def pytest_configure(config: pytest.Config) -> None:
    """Register the `browser` marker, so `-m browser` (or `-m "not browser"`) selects them."""
    config.addinivalue_line(
        "markers", "browser: drives the dashboard in Debian's Chromium (Playwright)")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """List the screenshots this run saved, so they can be found without `-s`."""
    if SAVED:
        terminalreporter.section("dashboard screenshots")
        for path in SAVED:
            terminalreporter.write_line(str(path))


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """Headless system Chromium for the browser tests.

    Package scope, not session: Playwright's sync API keeps an event loop running in the
    main thread while it is open, which would break every later test that runs its own.
    """
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium found (install Debian's chromium: tools/bootstrap.sh)")
    # Chromium's sandbox refuses to start as root (a CI container); a user keeps it.
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    # Playwright's own 5 s is short for a busy 2-core machine; a passing wait ends early.
    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True,
                                              args=args)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser (no cookies): a new person opening the page."""
    fresh = browser.new_context(viewport={"width": 1024, "height": 800})
    fresh.set_default_timeout(WAIT_MS)
    try:
        yield fresh
    finally:
        fresh.close()
