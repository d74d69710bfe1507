"""The card table's page in Chromium: a spectator watches the cards dealt."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, expect

from controller import card_table
from tests.browser.helpers import (
    WAIT_MS,
    Served,
    mark_page,
    open_page,
    screenshot,
    serve_table,
    still_marked,
    table_config,
)

pytestmark = pytest.mark.browser

#: The cards the page shows, hand by hand, as a spectator reads them.
CARDS_SHOWN = """() => [...document.querySelectorAll('#cards-hands .hand')].map((hand) =>
  hand.querySelector('.hand-name').textContent + ': ' + [...hand.querySelectorAll('svg.card')]
    .map((card) => card.getAttribute('aria-label')).join(' ')).join('; ')"""


@pytest.fixture(scope="module")
def baccara(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A simulated baccara table: a simulated shoe and shuffler, three players betting."""
    config = table_config(tmp_path_factory.mktemp("cards"),
                          'id = "cards-1"\nname = "Baccara table"\ngame = "baccara"', """
[shoe]
port = "sim"
[sim]
seed = 7
pace = 0.3
players = ["Ann", "Bob", "Cy"]
[camera]
agree = 1
""")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(card_table, "NEW_GAME_PAUSE", 0.0)
        with serve_table(config) as served:
            yield served


def test_a_spectator_sees_the_cards_dealt_without_reloading(
        baccara: Served, context: BrowserContext) -> None:
    page = open_page(context, baccara)
    panel = page.locator("#cards-panel")
    expect(panel).to_be_visible()
    mark_page(page)
    before = page.evaluate(CARDS_SHOWN)
    page.wait_for_function(f"before => ({CARDS_SHOWN})() !== before", arg=before,
                           timeout=WAIT_MS)
    assert still_marked(page), "the page reloaded to show the card"
    expect(page.locator("#cards-hands svg.card").first).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#cards-scores")).to_contain_text("Ann")
    screenshot(page, "cards")


def test_the_cards_the_camera_confirmed_are_marked_and_its_word_shown(
        baccara: Served, context: BrowserContext) -> None:
    page = open_page(context, baccara)
    said = page.locator("#cards-camera")
    expect(said).to_contain_text("The camera confirms", timeout=WAIT_MS)
    expect(page.locator("#cards-hands svg.card.seen").first).to_be_visible(timeout=WAIT_MS)
    label = page.locator("#cards-hands svg.card.seen").first.get_attribute("aria-label")
    assert label is not None and label.endswith(", seen by the camera")
    screenshot(page, "cards-camera")
