"""A log with an entry the rules cannot rule, in Chromium: the page stops saying "Live",
says what is wrong, and the operator voids the entry from the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.browser.helpers import (
    WAIT_MS,
    history,
    screenshot,
    serve_table,
    sign_in,
    table_config,
)
from tests.controller.test_blocked_log import ball, write_log

pytestmark = pytest.mark.browser


def test_the_page_names_the_entry_and_the_operator_voids_it(context: BrowserContext,
                                                            tmp_path: Path) -> None:
    # Entry 3: Ann bowls again after her strike, when it is Bob's ball; entry 4 is Bob's.
    write_log(tmp_path, ball("Ann"), ball("Ann"), ball("Bob", 7))
    config = table_config(tmp_path, 'id = "lane-7"\ngame = "ten-pins"',
                          '[lane]\nbackend = "fake"\n')
    with serve_table(config) as served:
        page = context.new_page()
        page.goto(served.url + "/")
        link = page.locator("#link")
        expect(link).to_have_text("Stopped: needs the operator", timeout=WAIT_MS)
        expect(page.locator("#banner-paused")).to_contain_text(
            "needs the operator: log entry 3", timeout=WAIT_MS)
        expect(page.locator("#banner-paused")).to_contain_text("ball by Ann out of turn")

        sign_in(page)
        form = page.locator("#blocked")
        expect(form).to_be_visible(timeout=WAIT_MS)
        expect(form.locator("#blocked-text")).to_contain_text("log entry 3")
        screenshot(page, "lane-blocked")
        page.locator("#blocked-reason").fill("logged twice by an old version")
        page.locator("#blocked-void").click()

        expect(link).to_have_text("Live", timeout=WAIT_MS)
        expect(form).to_be_hidden()
        expect(page.locator("#banner")).to_be_hidden()
        bob = page.locator("#sheet tr").filter(has_text="Bob")
        expect(bob).to_contain_text("9", timeout=WAIT_MS)
        [void] = [e for e in history(served) if e["kind"] == "correct"]
        assert void["body"] == {"target": 3, "event": None,
                                "reason": "logged twice by an old version"}
        assert void["source"] == "operator"
