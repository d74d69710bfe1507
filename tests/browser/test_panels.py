"""Each kind of table's page in Chromium: the operator's panel holds the table's own acts
(no bowling controls on a dice, card or cue table), the game picker lists the table's own
games, and the history reads as a person would say it on every kind of table."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Route, expect

from controller import card_table, cue_table, dice_table
from controller.kinds import games_for
from tests.browser.helpers import (
    WAIT_MS,
    Served,
    history,
    history_line,
    open_page,
    screenshot,
    serve_table,
    sign_in,
    table_config,
    view,
    wait_until,
)

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bob", "Cy"]
SIM = f"[sim]\nseed = 7\npace = 0.5\nplayers = {json.dumps(PLAYERS)}\n"
#: Each kind of table but the lane (tests/browser/test_lane.py): its `[table]` keys, its
#: devices' sections (simulated) and the module whose pause between games is shortened.
TABLES: dict[str, tuple[str, str, Any]] = {
    "dice": ('id = "dice-1"\nname = "Dice table"\ngame = "craps-bank"',
             '[camera]\nsource = "sim"\n' + SIM, dice_table),
    "cards": ('id = "cards-1"\nname = "Baccara table"\ngame = "baccara"',
              '[shoe]\nport = "sim"\n[camera]\nagree = 1\n' + SIM, card_table),
    "cue": ('id = "pool-1"\nname = "Pool table"\ngame = "fifteen-ball-pool"',
            '[pockets]\nsource = "sim"\n' + SIM + "unread_rate = 0\nfoul_rate = 0\n", cue_table),
}

Table = tuple[str, Served]


@pytest.fixture(scope="module")
def table(request: pytest.FixtureRequest,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    """The simulated table of the kind the test asks for (its `request.param`), playing."""
    kind: str = request.param
    keys, sections, module = TABLES[kind]
    config = table_config(tmp_path_factory.mktemp(kind), keys, sections)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "NEW_GAME_PAUSE", 0.0)
        with serve_table(config) as served:
            wait_until(lambda: view(served)["game"], f"the simulated {kind} table's game")
            yield kind, served


every_kind = pytest.mark.parametrize("table", list(TABLES), indirect=True)


@every_kind
def test_the_operators_panel_shows_the_tables_own_acts_and_no_bowling(
        table: Table, context: BrowserContext) -> None:
    kind, served = table
    page = open_page(context, served)
    sign_in(page)
    panel = page.locator("#operator-controls")
    expect(page.get_by_label("Players, one per line")).to_be_visible()
    expect(panel.get_by_role("heading", name="New game")).to_be_visible()
    expect(panel.get_by_role("heading", name="Dead ball")).to_be_hidden()
    expect(panel).not_to_contain_text("Bowler", use_inner_text=True)
    # Blank lines are no players: the form says what it needs in the table's words.
    page.get_by_label("Players, one per line").fill("  \n ")
    page.get_by_role("button", name="Start game").click()
    expect(page.locator("#op-message")).to_have_text("Name at least one player.")
    screenshot(page, f"{kind}-operator")


@every_kind
def test_the_game_picker_lists_the_tables_own_games_only(
        table: Table, context: BrowserContext) -> None:
    kind, served = table
    page = open_page(context, served)
    sign_in(page)
    options = page.locator("#game-picker option")
    expect(options.first).to_be_attached(timeout=WAIT_MS)
    shown = options.evaluate_all("options => options.map((option) => option.value)")
    assert sorted(shown) == sorted(game.id for game in games_for(kind))
    assert "ten-pins" not in shown
    expect(page.locator("#game-picker")).to_have_value(view(served)["game"]["id"])


#: The logged event each kind of table's history is checked on, and its words:
#: (the event's type, its line on the page from its entry).
SAID: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "dice": ("throw", lambda event: f"Throw {' and '.join(map(str, event['dice']))}"),
    "cards": ("card", lambda event: f"Card {event['card']} to "
              + (event["to"] if event["to"] in PLAYERS else f"the {event['to']}")
              + ("" if event.get("up", True) else ", face down")),
    "cue": ("pocket", lambda event: (f"{event['ball']}-ball" if event["ball"].isdigit()
                                     else "Cue ball") + " in the "
            + event["pocket"].replace("-", " ") + " pocket"),
}
#: What raw data looks like in a history line: JSON's brackets and literals.
RAW = re.compile(r"[{}\[\]]|\b(true|false|null)\b")


def first_logged(served: Served, kind: str) -> dict[str, Any] | None:
    """The game's first event entry of `kind` read by the table's device; None until one."""
    return next((entry for entry in history(served) if entry["kind"] == "event"
                 and entry["body"]["event"]["type"] == kind), None)


@every_kind
def test_the_history_reads_as_words_on_every_kind_of_table(
        table: Table, context: BrowserContext) -> None:
    kind, served = table
    event_type, words = SAID[kind]
    entry = wait_until(lambda: first_logged(served, event_type), f"a {event_type} logged")
    page = open_page(context, served)
    expect(history_line(page, entry["seq"])).to_have_text(
        f"#{entry['seq']} {words(entry['body']['event'])} · by {entry['source']}")
    lines = page.locator("#history .history-text").all_inner_texts()
    assert lines, "the history shows nothing"
    assert [line for line in lines if RAW.search(line)] == []


# -- every common entry, as GET /api/history gives it, in the words the page shows --------

def ruling(kind: str, who: str, amount: int | None = None) -> dict[str, Any]:
    """A ruling as the history gives it (its words and law do not change the entry's)."""
    return {"kind": kind, "who": who, "amount": amount, "text": f"{kind} for {who}",
            "law": {"book": "000_d7ba09a064da292c.txt", "lines": "1-2", "title": kind}}


def entry(seq: int, kind: str, source: str, body: dict[str, Any],
          rulings: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    return {"seq": seq, "ts": 1_700_000_000.0 + seq, "kind": kind, "source": source,
            "body": body, "rulings": list(rulings)}


def said(game: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Entries of every family's common events and every kind of entry, each with its line
    (after `#seq `); `game` is the game on the table, whose start opens the history."""
    return [
        (entry(1, "start", "operator", {"game": game["id"], "players": PLAYERS}),
         f"Game started: {game['name']} for Ann, Bob and Cy · by operator"),
        (entry(2, "event", "sensor:lane", {"event": {"type": "ball", "player": "Ann",
                                                     "standing": []}},
               (ruling("count", "Ann", 10), ruling("strike", "Ann"))),
         "Ann: strike · by sensor:lane"),
        (entry(3, "event", "sensor:lane", {"event": {"type": "ball", "player": "Bob",
                                                     "standing": [10, 4, 7]}},
               (ruling("count", "Bob", 7),)),
         "Bob: 7 down, 3 standing (pins 4, 7, 10) · by sensor:lane"),
        (entry(4, "event", "sensor:lane", {"event": {"type": "ball", "player": "Bob",
                                                     "standing": [7], "foul": True}},
               (ruling("foul", "Bob", 0),)),
         "Bob: foul, 1 standing (pin 7) · by sensor:lane"),
        (entry(5, "event", "operator", {"event": {"type": "dead_ball", "player": "Bob"}},
               (ruling("dead-ball", "Bob"),)),
         "Dead ball called for Bob: the ball does not count · by operator"),
        (entry(6, "event", "camera", {"event": {"type": "throw", "dice": [3, 4]}}),
         "Throw 3 and 4 · by camera"),
        (entry(7, "event", "operator Mary Ellis", {"event": {
            "type": "bet", "player": "Bob", "on": "number", "number": 4, "amount": 5}}),
         "Bet: Bob stakes 5 on number 4 · by operator Mary Ellis"),
        (entry(8, "event", "shoe", {"event": {"type": "card", "to": "Bob", "card": "10H"}}),
         "Card 10H to Bob · by shoe"),
        (entry(9, "event", "shoe", {"event": {"type": "card", "to": "banker", "card": "QD",
                                              "up": False}}),
         "Card QD to the banker, face down · by shoe"),
        (entry(10, "event", "operator", {"event": {"type": "stand", "player": "Cy"}}),
         "Cy stands · by operator"),
        (entry(11, "event", "sensor:pockets", {"event": {"type": "pocket", "ball": "8",
                                                         "pocket": "head-right"}}),
         "8-ball in the head right pocket · by sensor:pockets"),
        (entry(12, "event", "referee", {"event": {"type": "stroke", "path": ["3", "cushion"],
                                                  "driven": 1}},
               (ruling("no-count", "Ann"),)),
         "Stroke by Ann: struck the 3-ball, then a cushion; 1 ball driven to a cushion"
         " · by referee"),
        (entry(13, "event", "referee", {"event": {"type": "foul", "kind": "double-hit"}}),
         "Foul: double hit · by referee"),
        (entry(14, "correct", "operator Mary Ellis", {
            "target": 3, "event": {"type": "ball", "player": "Bob", "standing": [10]},
            "reason": "the sweep bar hid the pins"}),
         "Entry #3 replaced: Bob: 1 standing (pin 10) · by operator Mary Ellis · why: the "
         "sweep bar hid the pins"),
        (entry(15, "correct", "operator", {"target": 6, "event": None,
                                           "reason": "a practice throw"}),
         "Entry #6 voided · by operator · why: a practice throw"),
        (entry(16, "flag", "camera", {"why": "a die is not clear",
                                      "reading": {"type": "throw", "dice": [3, None]}}),
         "Read held for the operator: a die is not clear: Throw 3 and ? · by camera"),
        (entry(17, "resolve", "operator", {"flag": 16, "event": {"type": "throw",
                                                                 "dice": [3, 5]},
                                           "reason": "read by the croupier"}),
         "Read #16 confirmed as Throw 3 and 5 · by operator · why: read by the croupier"),
        (entry(18, "device", "camera", {"device": "camera", "state": "unavailable",
                                        "detail": "no frame for 5 s"}),
         "The camera is unavailable: no frame for 5 s"),
        (entry(19, "event", "operator", {"event": {"type": "wager", "player": "Ann",
                                                   "hands": ["a", "b"], "even": False}}),
         "Wager: player Ann, hands a, b, even no · by operator"),
        (entry(20, "event", "operator", {"event": {
            "type": "bet", "spectator": "Dora", "on": "right", "amount": 10}}),
         "Bet: Dora, a spectator, stakes 10 on right · by operator"),
    ]


@pytest.mark.parametrize("table", ["dice"], indirect=True)
def test_each_common_entry_reads_as_a_person_would_say_it(
        table: Table, context: BrowserContext) -> None:
    _, served = table
    expected = said(view(served)["game"])
    staged = json.dumps([record for record, _ in expected])

    def answer(route: Route) -> None:
        """The staged entries for the page's first read of the history, none after."""
        first = re.search(r"[?&]after=0(&|$)", route.request.url) is not None
        route.fulfill(status=200, content_type="application/json",
                      body=staged if first else "[]")

    page = context.new_page()
    page.route(re.compile(r"/api/history\?"), answer)
    page.goto(served.url + "/")
    lines = page.locator("#history .history-text")
    expect(lines).to_have_text([f"#{record['seq']} {text}"
                                for record, text in reversed(expected)], timeout=WAIT_MS)
