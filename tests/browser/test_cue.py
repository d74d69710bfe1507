"""The pool table's page in Chromium: a spectator watches the strokes, the operator names a
ball the pockets could not, and a ruling opens to show its law."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from controller import cue_table
from controller.web import SEEDS
from tests.browser.helpers import (
    WAIT_MS,
    Served,
    history,
    mark_page,
    open_page,
    screenshot,
    serve_table,
    sign_in,
    still_marked,
    table_config,
)

pytestmark = pytest.mark.browser

#: The simulated referee names an unread ball after REFEREE_WAIT seconds (patched here so a
#: page on a busy machine has time); the operator may be beaten to a few, never to all.
TRIES = 8
REFEREE_WAIT = 5.0
REASON = "the referee saw it drop"


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A simulated pool table where the ball reader misses half the balls."""
    config = table_config(tmp_path_factory.mktemp("pool"),
                          'id = "pool-1"\nname = "Pool table"\ngame = "fifteen-ball-pool"', """
[pockets]
source = "sim"
reader_wait = 0.2
[sim]
seed = 11
pace = 1.0
players = ["Ann", "Bob"]
unread_rate = 0.5
foul_rate = 0
""")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cue_table, "NEW_GAME_PAUSE", 0.0)
        patch.setattr(cue_table, "REFEREE_WAIT", REFEREE_WAIT)
        with serve_table(config) as served:
            yield served


def test_a_spectator_sees_the_strokes_without_reloading(
        pool: Served, context: BrowserContext) -> None:
    page = open_page(context, pool)
    sheet = page.locator("#billiards-sheet")
    expect(page.locator("#billiards-panel")).to_be_visible()
    expect(sheet).to_contain_text("Ann")
    mark_page(page)
    before = sheet.inner_text()
    expect(sheet).not_to_have_text(before, timeout=WAIT_MS)
    assert still_marked(page), "the page reloaded to show the stroke"
    expect(page.locator("#billiards-table svg.pool-table")).to_be_visible()
    screenshot(page, "billiards")


def name_a_ball(page: Page) -> bool:
    """Name the ball of the first read waiting on the page; False if the sim was first."""
    form = page.locator("#flag-forms form.flag-form").first
    expect(form).to_be_visible(timeout=WAIT_MS)
    select = form.locator("select")
    balls = [v for v in select.locator("option").evaluate_all(
        "options => options.map(o => o.value)") if v.isdigit()]
    select.select_option(balls[0])
    form.locator("input[type=text]").fill(REASON)
    message = page.locator("#op-message")
    # A stale message from an earlier try must not pass for this try's answer.
    message.evaluate("node => { node.textContent = ''; }")
    form.get_by_role("button", name="This ball fell").click()
    expect(message).not_to_have_text(re.compile(r"^$|Sending"), timeout=WAIT_MS)
    if message.inner_text() == "Ball named.":
        return True
    # The simulated referee named it first: wait for its form to go, then try the next.
    expect(page.locator("#flag-forms form.flag-form")).to_have_count(0, timeout=WAIT_MS)
    return False


def test_the_operator_names_an_unread_ball_and_opens_a_rulings_law(
        pool: Served, context: BrowserContext) -> None:
    page = open_page(context, pool)
    sign_in(page)
    assert any(name_a_ball(page) for _ in range(TRIES)), "the simulated referee was first"
    [resolve] = [e for e in history(pool) if e["kind"] == "resolve"
                 and e["source"] == "operator"]
    event = resolve["body"]["event"]
    assert resolve["body"]["reason"] == REASON
    expect(page.locator("#history")).to_contain_text(
        f"Read #{resolve['body']['flag']} confirmed as Pocket (ball {event['ball']}, pocket "
        f"{event['pocket']}) · by operator · why: {REASON}")

    ruling = page.locator("#rulings button.ruling").first
    expect(ruling).to_be_visible(timeout=WAIT_MS)
    ruling.click()
    law = page.locator("#law")
    expect(law).to_be_visible()
    expect(page.locator("#law-title")).not_to_be_empty()
    expect(page.locator("#law-book")).to_have_text("Hoyle's Games (1940)")
    expect(page.locator("#law-lines")).to_have_text(re.compile("^lines \\d+\u2013\\d+$"))
    expect(page.locator("#law-events li").first).to_be_visible(timeout=WAIT_MS)
    if SEEDS.is_dir():
        expect(page.locator("#law-text")).not_to_be_empty(timeout=WAIT_MS)
    law.get_by_role("button", name="Close").click()
    expect(law).to_be_hidden()
