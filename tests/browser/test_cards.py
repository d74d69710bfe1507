"""The card table's page in Chromium: a spectator watches the cards dealt, each hand with
who holds it and its point, and the last coup's cards kept, settled, until the next deal."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, expect

from controller import card_table
from drivers.shoe.fake import FakeShoe
from tests.browser.helpers import (
    OPERATOR,
    WAIT_MS,
    Served,
    mark_page,
    open_page,
    screenshot,
    serve_table,
    still_marked,
    table_config,
    view,
    wait_until,
)

pytestmark = pytest.mark.browser

#: Each hand as the page shows it: its title, its cards (their codes), its count, and
#: whether it is the settled coup's.
HANDS = """() => [...document.querySelectorAll('#cards-hands .hand')].map((hand) => ({
  name: hand.querySelector('.hand-name').textContent,
  cards: [...hand.querySelectorAll('svg.card')].map((card) =>
    card.getAttribute('aria-label').split(',')[0]),
  count: hand.querySelector('.hand-count') ? hand.querySelector('.hand-count').textContent : '',
  settled: hand.classList.contains('settled')}))"""
#: The page shows a settled coup's cards.
SETTLED = "() => document.querySelector('#cards-hands .hands-settled') !== null"

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
    # A coup's cards stay on the table once it is settled, and say so after the camera's word.
    assert label is not None and re.fullmatch(r"\w+, seen by the camera(, settled)?", label)
    screenshot(page, "cards-camera")


def baccara_point(cards: list[str]) -> int:
    """A hand's point at baccara: K Q J 10 count nothing, the others their pips, and only
    the last figure counts (Hoyle 1940, lines 1457-1458 and 1496-1499)."""
    pips = sum(0 if code[:-1] in ("10", "J", "Q", "K") else 1 if code[:-1] == "A"
               else int(code[:-1]) for code in cards)
    return pips % 10


def test_each_hand_shows_who_holds_it_and_its_point(
        baccara: Served, context: BrowserContext) -> None:
    page = open_page(context, baccara)
    page.wait_for_function(f"() => ({HANDS})().some((hand) => hand.cards.length >= 2)",
                           timeout=WAIT_MS)
    hands = page.evaluate(HANDS)
    # Ann holds the bank; the others sit on his right and his left, Bob the right hand and
    # Cy the left (Hoyle 1940, lines 1434-1446; a side's hand passes on only to a player
    # beyond the one who lost, lines 1500-1508, and each side has one player here).
    assert [hand["name"] for hand in hands] == ["right \u00b7 Bob", "left \u00b7 Cy",
                                                "banker \u00b7 Ann"]
    for hand in hands:
        point = baccara_point(hand["cards"])
        assert hand["count"] == ("" if not hand["cards"] else f"Point {point}" if point
                                 else "Point 0, baccara"), hand


def test_a_settled_coups_cards_stay_until_the_next_deal_and_the_camera_no_longer_vouches(
        baccara: Served, context: BrowserContext) -> None:
    page = open_page(context, baccara)
    page.wait_for_function(f"() => ({HANDS})().some((hand) => hand.cards.length)",
                           timeout=WAIT_MS)
    # The coup settles: its cards stay, marked, and the camera's word on them goes once
    # they are gathered in.
    page.wait_for_function(f"() => ({SETTLED})() && document.querySelector('#cards-camera')"
                           ".hidden", timeout=WAIT_MS)
    hands = page.evaluate(HANDS)
    assert all(hand["settled"] for hand in hands)
    assert any(len(hand["cards"]) >= 2 for hand in hands)
    expect(page.locator("#cards-hands .hands-settled")).to_have_text(
        "The last coup, settled: its cards stay until the next deal.")
    label = page.locator("#cards-hands svg.card").first.get_attribute("aria-label")
    assert label is not None and label.endswith(", settled")
    screenshot(page, "cards-settled")
    # The next deal starts: the settled cards go.
    page.wait_for_function(f"() => !({SETTLED})() && ({HANDS})().some((hand) => "
                           "hand.cards.length)", timeout=WAIT_MS)
    assert not any(hand["settled"] for hand in page.evaluate(HANDS))


@pytest.fixture(scope="module")
def vingt_et_un(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, FakeShoe]]:
    """A vingt-et-un table whose shoe holds the cards a test deals, in order; no camera."""
    with FakeShoe(["AS", "10D", "6H", "7C", "9S"]) as shoe:
        config = table_config(tmp_path_factory.mktemp("vingt-et-un"),
                              'id = "cards-2"\nname = "Vingt-et-un table"\n'
                              'game = "vingt-et-un-hoyle"', f'[shoe]\nport = "{shoe.port}"\n')
        with serve_table(config) as served:
            yield served, shoe


def deal(served: Served, shoe: FakeShoe, count: int) -> None:
    """The dealer draws `count` cards from the shoe; back once the table holds them."""
    def held() -> int:
        game = view(served)["game"]
        return sum(len(cards) for cards in game["hands"].values())
    before = held()
    shoe.draw(count)
    wait_until(lambda: held() == before + count, f"{count} cards to reach the table")


def test_a_vingt_et_un_hand_shows_its_count_with_its_ace_soft_or_hard(
        vingt_et_un: tuple[Served, FakeShoe], context: BrowserContext) -> None:
    served, shoe = vingt_et_un
    with served.api() as client:
        client.post("/api/game", headers=OPERATOR, json={
            "game": "vingt-et-un-hoyle", "players": ["Ann", "Bob"]}).raise_for_status()
    page = open_page(context, served)
    bob = page.locator("#cards-hands .hand").filter(has_text="Bob").locator(".hand-count")
    banker = page.locator("#cards-hands .hand").filter(has_text="banker").locator(".hand-count")
    deal(served, shoe, 2)  # the ace of spades to Bob, the ten of diamonds to Ann's bank
    # An ace counts one or eleven (Hoyle 1940, lines 17963-17966): as eleven, it is soft.
    expect(bob).to_have_text("Count 11, soft")
    expect(banker).to_have_text("Count 10")
    with served.api() as client:
        client.post("/api/events", headers=OPERATOR, json={"event": {
            "type": "bet", "player": "Bob", "on": "hand", "amount": 5}}).raise_for_status()
    deal(served, shoe, 2)
    expect(bob).to_have_text("Count 17, soft")
    expect(banker).to_have_text("Count 17")
    deal(served, shoe, 1)  # the nine: as eleven the ace would pass 21, so it counts one
    expect(bob).to_have_text("Count 16, hard")
    screenshot(page, "cards-vingt-et-un")
