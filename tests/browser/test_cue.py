"""The pool table's page in Chromium: a spectator watches the strokes, the operator names a
ball the pockets could not, and a ruling opens to show its law; on a table the test plays
itself, the referee enters a ball pocketed, a private number (which the history shows the
signed-in operator alone), a ball spotted, a star and a pool proclaimed through the
referee's controls, and closes strokes with the facts only some
games ask: the pins knocked down before a ball was struck (pin pool), what moved the bottle
(bottle pool), the object balls kept in a balk space (balk-line) or left in the crotch
(French caroms), the pin played at direct (the Little Corporal) and the balls a safety drove
to a cushion (three-cushion caroms), each of the facts a game needs only on some strokes
asked, and sent, only when it can matter."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, ViewportSize, expect

from controller import cue_table
from controller.web import SEEDS
from tests.browser.helpers import (
    OPERATOR,
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
    view,
    wait_until,
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
        f"Read #{resolve['body']['flag']} confirmed as {event['ball']}-ball in the "
        f"{event['pocket'].replace('-', ' ')} pocket · by operator · why: {REASON}")

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


def test_a_ball_the_pockets_could_not_name_is_not_sent_until_the_referee_chooses_one(
        pool: Served, context: BrowserContext, monkeypatch: pytest.MonkeyPatch) -> None:
    # The simulated referee leaves the reads that come from now on to the page.
    monkeypatch.setattr(cue_table, "REFEREE_WAIT", WAIT_MS / 1000)
    now = view(pool)["seq"]
    wait_until(lambda: view(pool)["flags"] and all(f["seq"] > now for f in view(pool)["flags"]),
               "a ball the pockets could not name, read after the referee was told to wait")
    page = open_page(context, pool)
    sign_in(page)
    form = page.locator("#flag-forms form.flag-form").first
    ball = form.get_by_label("Ball")
    expect(ball).to_have_value("")
    expect(ball.locator("option").first).to_have_text("Which ball?")
    form.get_by_role("button", name="This ball fell").click()
    assert ball.evaluate("select => select.validity.valueMissing"), "no ball was asked for"
    said(page, "Signed in as the operator.")  # nothing was sent
    assert not [e for e in history(pool) if e["kind"] == "resolve" and e["source"] == "operator"
                and e["seq"] > now], "a ball was named that the referee did not choose"
    screenshot(page, "billiards-which-ball")
    balls = [v for v in ball.locator("option").evaluate_all(
        "options => options.map(o => o.value)") if v.isdigit()]
    ball.select_option(balls[0])
    form.get_by_role("button", name="This ball fell").click()
    expect(page.locator("#op-message")).to_have_text("Ball named.")
    [named] = [e for e in history(pool) if e["kind"] == "resolve" and e["source"] == "operator"
               and e["seq"] > now]
    assert str(named["body"]["event"]["ball"]) == balls[0], "the ball chosen is the ball logged"


# -- the referee's controls, on a table nobody else plays -------------------------------------

#: A phone held upright, for the check that the referee's controls fit it.
PHONE: ViewportSize = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def quiet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A cue table on mock pocket switches, no reader and no simulated play: each test
    starts its game and brings it to the point it needs through the API."""
    config = table_config(tmp_path_factory.mktemp("quiet"),
                          'id = "pool-2"\nname = "Quiet table"\ngame = "fifteen-ball-pool"', """
[pockets]
source = "gpio"
ball_reader = false
""")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOYLE_BACKEND", "fake")
        with serve_table(config) as served:
            yield served


def start(served: Served, game: str, players: list[str]) -> None:
    """A new game at the table, as the operator starts one (any game in progress ends)."""
    with served.api() as client:
        client.post("/api/game", headers=OPERATOR,
                    json={"game": game, "players": players}).raise_for_status()


def send(served: Served, event: dict[str, Any]) -> None:
    """An event told to the table through the API (the test's setup, not the page)."""
    with served.api() as client:
        response = client.post("/api/events", headers=OPERATOR, json={"event": event})
        assert response.status_code == 200, response.text


def referee(context: BrowserContext, served: Served) -> Page:
    """The table's page, signed in, with the referee's controls shown."""
    page = open_page(context, served)
    sign_in(page)
    expect(page.locator("#billiards-referee")).to_be_visible(timeout=WAIT_MS)
    return page


def control(page: Page, heading: str) -> Locator:
    """The referee's form under `heading`."""
    form = page.locator("#billiards-referee form").filter(
        has=page.get_by_role("heading", name=heading, exact=True))
    expect(form).to_have_count(1, timeout=WAIT_MS)
    return form


def logged(served: Served, kind: str) -> list[dict[str, Any]]:
    """The game's log entries of events of `kind`, as the API gives them to the operator."""
    return [e for e in history(served, operator=True)
            if e["kind"] == "event" and e["body"]["event"]["type"] == kind]


def said(page: Page, text: str) -> None:
    """The operator's message says `text` (the answer to the button just pressed)."""
    expect(page.locator("#op-message")).to_have_text(text, timeout=WAIT_MS)


def test_the_referee_enters_a_ball_the_pockets_did_not_report_and_closes_the_stroke(
        quiet: Served, context: BrowserContext) -> None:
    start(quiet, "fifteen-ball-pool", ["Ann", "Bob"])
    page = referee(context, quiet)
    form = control(page, "Pocketed")
    form.get_by_label("Ball").select_option("9")
    form.get_by_label("Pocket").select_option("foot-left")
    form.get_by_role("button", name="Ball pocketed").click()
    said(page, "Pocketed ball recorded.")
    [entry] = logged(quiet, "pocket")
    assert entry["source"] == "operator"
    assert entry["body"]["event"] == {"type": "pocket", "ball": "9", "pocket": "foot-left"}
    expect(page.locator("#billiards-table svg.pool-table")).to_have_attribute(
        "aria-label", re.compile(r"down: 9$"))

    stroke = control(page, "Stroke")
    stroke.get_by_label("Cue ball's contacts").fill("9")
    stroke.get_by_role("button", name="Close the stroke").click()
    said(page, "Stroke closed.")
    expect(page.locator("#billiards-ruling .ruling-text")).to_have_text(
        "Ann pockets the 9-ball: 9.")
    ann = page.locator("#billiards-sheet tbody tr").first
    expect(ann.locator("th")).to_have_text("Ann")
    expect(ann.locator("td").first).to_have_text("9")


def test_the_referees_ball_pickers_start_on_no_ball_and_send_nothing_until_one_is_chosen(
        quiet: Served, context: BrowserContext) -> None:
    start(quiet, "fifteen-ball-pool", ["Ann", "Bob"])
    page = referee(context, quiet)
    for heading, label, button in (("Pocketed", "Ball", "Ball pocketed"),
                                   ("Off the table", "Ball forced off the table", "Ball off")):
        form = control(page, heading)
        ball = form.get_by_label(label)
        expect(ball).to_have_value("")
        form.get_by_role("button", name=button).click()
        assert ball.evaluate("select => select.validity.valueMissing"), f"{heading}: no ball asked"
    said(page, "Signed in as the operator.")  # nothing was sent
    assert not logged(quiet, "pocket") and not logged(quiet, "off")


@pytest.mark.parametrize(("game", "low", "high", "ball"), [
    # Kelly rotation: a bottle of fifteen balls, numbered one to fifteen (Hoyle 1940, lines
    # 15728-15731).
    ("kelly-rotation", 1, 15, "small ball"),
    # Forty-one pool: private balls "generally numbered from 6 to 18" (lines 15208-15216).
    ("forty-one-pool", 6, 18, "small numbered ball"),
    # Pin pool: "each player receives a small numbered ball" (lines 15357-15360); the book
    # gives no numbers, and the table takes 1 to 16 (engine/billiards/pin_pool.py).
    ("pin-pool", 1, 16, "small numbered ball"),
])
def test_the_referee_records_each_private_number_drawn(
        quiet: Served, context: BrowserContext, game: str, low: int, high: int,
        ball: str) -> None:
    start(quiet, game, ["Ann", "Bob"])
    page = referee(context, quiet)
    form = control(page, "Private number")
    expect(form.locator(".hint")).to_have_text(
        f"Waiting for Ann, Bob: the {ball} drawn from the bottle.")
    who = form.get_by_label("Player who drew")
    expect(who).to_have_value("Ann")
    number = form.get_by_label(f"Number drawn ({low}\u2013{high})")
    expect(number).to_have_attribute("min", str(low))
    expect(number).to_have_attribute("max", str(high))
    number.fill("7")
    form.get_by_role("button", name="Draw private number").click()
    said(page, "Private number recorded.")
    [entry] = logged(quiet, "private")
    assert entry["body"]["event"] == {"type": "private", "player": "Ann", "number": 7}
    # The game now waits on Bob alone: he is chosen, and Ann's number is not left showing.
    expect(form.locator(".hint")).to_have_text(
        f"Waiting for Bob: the {ball} drawn from the bottle.")
    expect(who).to_have_value("Bob")
    expect(number).to_have_value("")
    assert view(quiet)["game"]["private_drawn"] == ["Ann"]


def test_the_history_shows_a_private_number_to_the_signed_in_operator_alone(
        quiet: Served, context: BrowserContext) -> None:
    start(quiet, "kelly-rotation", ["Ann", "Bob"])
    send(quiet, {"type": "private", "player": "Ann", "number": 13})
    seq = logged(quiet, "private")[0]["seq"]
    page = open_page(context, quiet)
    drawn = page.locator("#history li .history-text").filter(
        has_text=re.compile(rf"^#{seq} "))
    hidden = f"#{seq} Ann drew a private number · by operator"
    expect(drawn).to_have_text(hidden)
    sign_in(page)
    expect(drawn).to_have_text(f"#{seq} Ann drew private number 13 · by operator")
    page.locator("#sign-out").click()
    expect(page.locator("#pin-form")).to_be_visible()
    expect(drawn).to_have_text(hidden)


def test_the_referee_spots_the_ball_a_player_owes_from_his_rack(
        quiet: Served, context: BrowserContext) -> None:
    start(quiet, "forty-one-pool", ["Ann", "Bob"])
    for event in ({"type": "private", "player": "Ann", "number": 6},
                  {"type": "private", "player": "Bob", "number": 7},
                  {"type": "pocket", "ball": "1", "pocket": "foot-left"},
                  {"type": "pocket", "ball": "2", "pocket": "foot-right"},
                  {"type": "stroke", "path": ["1"]},  # Ann: the 1 and the 2 to her rack
                  {"type": "stroke", "path": []},  # Bob misses
                  {"type": "stroke", "path": []}):  # Ann misses: she owes a ball
        send(quiet, event)
    page = referee(context, quiet)
    form = control(page, "Spot a ball")
    expect(form.locator(".hint")).to_contain_text("Waiting for Ann:")
    expect(form.get_by_label("Player who owes a ball")).to_have_value("Ann")
    ball = form.get_by_label("Ball from his rack")
    expect(ball.locator("option")).to_have_text(["1", "2"])
    ball.select_option("2")
    form.get_by_role("button", name="Spot the ball").click()
    said(page, "Ball spotted.")
    expect(page.locator("#billiards-ruling .ruling-text")).to_have_text(
        "Ann spots the 2-ball for the ball he owes.")
    [entry] = logged(quiet, "spot")
    assert entry["body"]["event"] == {"type": "spot", "player": "Ann", "ball": "2"}
    assert "2" in view(quiet)["game"]["table"]["on"]


def play_until_a_star_is_offered(served: Served) -> str:
    """Colour-ball pool: every striker misses (the marker naming the ball where he must)
    until a player goes out with more than two left; the player offered the star."""
    for _ in range(40):
        game = view(served)["game"]
        waits = {w["fact"]: w["player"] for w in game["awaiting"]}
        if "star" in waits:
            return str(waits["star"])
        if "call" in waits:
            own = game["balls"][game["striker"]]
            send(served, {"type": "call",
                          "ball": next(b for b in game["table"]["on"] if b != own)})
        send(served, {"type": "stroke", "path": []})
    raise AssertionError("no star was offered")


@pytest.mark.parametrize(("button", "message", "ruling", "lives"), [
    ("Star (buy back in)", "Star taken.", "Bob stars, with 1 lives, the lowest on the board.",
     "1"),
    ("Does not star", "Star declined.", "Bob does not star.", "0"),
])
def test_the_referee_enters_whether_a_player_out_stars(
        quiet: Served, context: BrowserContext, button: str, message: str, ruling: str,
        lives: str) -> None:
    start(quiet, "color-ball-pool", ["Ann", "Bob", "Cy", "Dan"])
    assert play_until_a_star_is_offered(quiet) == "Bob"
    page = referee(context, quiet)
    page.set_viewport_size(PHONE)
    form = control(page, "Star")
    expect(form.locator(".hint")).to_have_text(
        "Waiting for Bob: whether he stars, buying back in.")
    expect(form.get_by_label("Player out")).to_have_value("Bob")
    # The form the game waits on comes first, and fits a phone's width.
    expect(page.locator("#billiards-referee form").first).to_have_text(
        re.compile("^Star"))
    assert page.locator("#billiards-referee").evaluate(
        "box => box.scrollWidth <= box.clientWidth"), "the referee's controls overflow"
    if button.startswith("Star"):
        screenshot(page, "billiards-referee-phone")
    form.get_by_role("button", name=button, exact=True).click()
    said(page, message)
    expect(page.locator("#billiards-ruling .ruling-text")).to_have_text(ruling)
    bob = page.locator("#billiards-sheet tbody tr").nth(1)
    expect(bob.locator("th")).to_have_text("Bob")
    expect(bob.locator("td").first).to_have_text(lives)
    [entry] = logged(quiet, "star")
    assert entry["body"]["event"] == {"type": "star", "player": "Bob",
                                      "buy": button.startswith("Star")}


def test_the_referee_enters_a_pool_proclaimed(quiet: Served, context: BrowserContext) -> None:
    start(quiet, "pin-pool", ["Ann", "Bob"])
    for event in ({"type": "private", "player": "Ann", "number": 16},
                  {"type": "private", "player": "Bob", "number": 1},
                  # Ann knocks down all five pins from the red: 15, with her 16 makes 31.
                  {"type": "stroke", "path": ["red"],
                   "pins": ["head", "right", "foot", "left", "centre"], "direct": []}):
        send(quiet, event)
    page = referee(context, quiet)
    form = control(page, "Proclaim pool")
    who = form.get_by_label("Player who proclaims")
    # No one is chosen for the referee: a claim is made by the player who makes it.
    expect(who).to_have_value("")
    who.select_option("Ann")
    form.get_by_role("button", name="Proclaim pool").click()
    said(page, "Proclamation recorded.")
    expect(page.locator("#billiards-ruling .ruling-text")).to_have_text(
        "Ann proclaims pool: 31: Ann wins, with 15.")
    expect(page.locator("#billiards-sheet tr.winner th")).to_have_text("Ann")
    [entry] = logged(quiet, "proclaim")
    assert entry["body"]["event"] == {"type": "proclaim", "player": "Ann"}


# -- the stroke facts only some games ask ------------------------------------------------------


def close_stroke(page: Page, stroke: Locator) -> None:
    """Press "Close the stroke" and wait for the table's answer (the message is cleared
    first, so the answer to an earlier stroke does not pass for this one's)."""
    page.locator("#op-message").evaluate("node => { node.textContent = ''; }")
    stroke.get_by_role("button", name="Close the stroke").click()
    said(page, "Stroke closed.")


def ruled(page: Page, text: str, player: int, total: str) -> None:
    """The last ruling reads `text`, and the sheet's row `player` (0: the first) `total`."""
    expect(page.locator("#billiards-ruling .ruling-text")).to_have_text(text)
    expect(page.locator("#billiards-sheet tbody tr").nth(player).locator("td").first
           ).to_have_text(total)


def strokes_logged(served: Served) -> list[dict[str, Any]]:
    """The strokes of the current game, as the page sent them, all from the operator."""
    entries = logged(served, "stroke")
    assert {e["source"] for e in entries} == {"operator"}
    return [e["body"]["event"] for e in entries]


def test_the_referee_says_which_pins_fell_before_the_cue_ball_struck_a_ball(
        quiet: Served, context: BrowserContext) -> None:
    start(quiet, "pin-pool", ["Ann", "Bob"])
    for event in ({"type": "private", "player": "Ann", "number": 9},
                  {"type": "private", "player": "Bob", "number": 12}):
        send(quiet, event)
    page = referee(context, quiet)
    stroke = control(page, "Stroke")
    direct = stroke.get_by_role(
        "group", name="Pins the cue ball knocked down before it struck a ball")
    expect(direct.get_by_role("checkbox")).to_have_count(5)
    contacts = stroke.get_by_label("Cue ball's contacts")
    pins = stroke.get_by_label("Pins knocked down")
    # Ann's ball strikes the red and then knocks two pins down, none before: they count.
    contacts.fill("red")
    pins.fill("head, right")
    close_stroke(page, stroke)
    ruled(page, "Ann knocks down 2 pin(s): 3.", 0, "3")
    # Bob's ball knocks the centre pin down before it strikes the red: nothing counts.
    pins.fill("centre")
    direct.get_by_label("centre", exact=True).check()
    screenshot(page, "billiards-stroke-direct")
    close_stroke(page, stroke)
    ruled(page, "The cue ball knocked a pin down before striking a ball: no pins count.", 1,
          "0")
    # Ann misses, knocking no pin down: no pins, so nothing is said of them first.
    direct.get_by_label("centre", exact=True).uncheck()
    contacts.fill("")
    pins.fill("")
    close_stroke(page, stroke)
    ruled(page, "Ann strikes no ball: nothing counts; the pins are set up again.", 0, "3")
    assert strokes_logged(quiet) == [
        {"type": "stroke", "path": ["red"], "pins": ["head", "right"], "direct": []},
        {"type": "stroke", "path": ["red"], "pins": ["centre"], "direct": ["centre"]},
        {"type": "stroke", "path": [], "pins": []}]


def test_the_referee_says_what_upset_or_stood_the_bottle(
        quiet: Served, context: BrowserContext) -> None:
    start(quiet, "bottle-pool", ["Ann", "Bob"])
    page = referee(context, quiet)
    stroke = control(page, "Stroke")
    contacts = stroke.get_by_label("Cue ball's contacts")
    # (a picker's name ends with its choice: "The bottle none")
    bottle = stroke.get_by_role("combobox", name=re.compile("^The bottle"))
    moved = stroke.get_by_label("What upset or stood the bottle")
    # Asked only when the bottle was upset or stood.
    assert view(quiet)["game"]["referee"]["sometimes"] == ["bottle_by"]
    expect(bottle).to_have_value("none")
    expect(moved).to_be_disabled()
    expect(moved).to_be_hidden()
    contacts.fill("1, 2")
    bottle.select_option("upset")
    expect(moved).to_be_visible()
    expect(moved).to_be_enabled()
    moved.select_option("carom")
    close_stroke(page, stroke)
    ruled(page, "Ann upsets the bottle from a ball: 5.", 0, "6")
    # The bottle left standing: what moved it is not asked, nor sent.
    bottle.select_option("none")
    expect(moved).to_be_disabled()
    expect(moved).to_be_hidden()
    contacts.fill("1")
    close_stroke(page, stroke)
    ruled(page, "Ann counts nothing; the next player plays.", 0, "6")
    # Bob's carom from the 2 seats the bottle on its base: he wins outright.
    contacts.fill("2")
    bottle.select_option("stood")
    moved.select_option("carom")
    close_stroke(page, stroke)
    ruled(page, "Bob seats the bottle on its base from a carom; Ann, lowest with 6, loses: "
          "Bob wins, with 0.", 1, "0")
    expect(page.locator("#billiards-sheet tr.winner th")).to_have_text("Bob")
    assert strokes_logged(quiet) == [
        {"type": "stroke", "path": ["1", "2"], "bottle": "upset", "bottle_by": "carom"},
        {"type": "stroke", "path": ["1"], "bottle": "none"},
        {"type": "stroke", "path": ["2"], "bottle": "stood", "bottle_by": "carom"}]


def test_the_referee_says_the_object_balls_were_kept_in_a_balk_space(
        quiet: Served, context: BrowserContext) -> None:
    start(quiet, "balk-line-billiards", ["Ann", "Bob"])
    page = referee(context, quiet)
    stroke = control(page, "Stroke")
    contacts = stroke.get_by_label("Cue ball's contacts")
    balk = stroke.get_by_label("Both object balls in one balk space (or anchor), and left "
                               "there")
    # 18.2: Ann's first carom with the balls kept in balk counts...
    contacts.fill("red, spot-white")
    balk.check()
    close_stroke(page, stroke)
    ruled(page, "Ann: a carom off the red and the spot-white, 1; Ann plays on.", 0, "1")
    # ...her second leaves them there too: it is void and the hand is out.
    close_stroke(page, stroke)
    ruled(page, "Ann leaves the object balls in the space after 2 strokes there: the stroke "
          "is void and the hand is out.", 0, "1")
    # Bob drives a ball out of balk: his carom counts.
    balk.uncheck()
    contacts.fill("red, white")
    close_stroke(page, stroke)
    ruled(page, "Bob: a carom off the red and the white, 1; Bob plays on.", 1, "1")
    assert strokes_logged(quiet) == [
        {"type": "stroke", "path": ["red", "spot-white"], "balk": True},
        {"type": "stroke", "path": ["red", "spot-white"], "balk": True},
        {"type": "stroke", "path": ["red", "white"], "balk": False}]


def test_the_referee_says_the_object_balls_were_left_in_the_crotch(
        quiet: Served, context: BrowserContext) -> None:
    """French caroms bar the crotch (Hoyle 1940, lines 2934-2940): "but three counts are
    allowed unless one or both object balls be forced out of the crotch"."""
    start(quiet, "french-caroms", ["Ann", "Bob"])
    page = referee(context, quiet)
    stroke = control(page, "Stroke")
    contacts = stroke.get_by_label("Cue ball's contacts")
    # The crotch is a corner's space, not balk-line's: the form says so.
    crotch = stroke.get_by_label("Both object balls in the crotch (a 4\u00bd-inch square at a "
                                 "corner), and left there")
    expect(stroke.get_by_text("balk space")).to_have_count(0)
    # Ann's first two caroms leave both object balls crotched: they count...
    contacts.fill("red, spot-white")
    crotch.check()
    close_stroke(page, stroke)
    ruled(page, "Ann: a carom off the red and the spot-white, 1; Ann plays on.", 0, "1")
    close_stroke(page, stroke)
    ruled(page, "Ann: a carom off the red and the spot-white, 1; Ann plays on.", 0, "2")
    # (the table will not rule a counting stroke now that does not say where it left them)
    with quiet.api() as client:
        refused = client.post("/api/events", headers=OPERATOR, json={
            "event": {"type": "stroke", "path": ["red", "spot-white"]}})
    assert refused.status_code == 409
    assert "needs the fact 'balk'" in refused.json()["detail"]
    # ...her third leaves them there too: it is void and the hand is out.
    close_stroke(page, stroke)
    ruled(page, "Ann leaves the object balls in the crotch after 3 strokes there: the stroke "
          "is void and the hand is out.", 0, "2")
    expect(page.locator("#billiards-ruling .law-source")).to_have_text(
        "Three-ball carom laws, 11: the crotch allows but three counts (lines 2934-2940)")
    # Bob's carom forces a ball out of the crotch: it counts.
    crotch.uncheck()
    contacts.fill("red, white")
    close_stroke(page, stroke)
    ruled(page, "Bob: a carom off the red and the white, 1; Bob plays on.", 1, "1")
    assert strokes_logged(quiet) == [
        {"type": "stroke", "path": ["red", "spot-white"], "balk": True},
        {"type": "stroke", "path": ["red", "spot-white"], "balk": True},
        {"type": "stroke", "path": ["red", "spot-white"], "balk": True},
        {"type": "stroke", "path": ["red", "white"], "balk": False}]


def test_the_referee_says_the_little_corporal_s_pin_was_played_at_direct(
        quiet: Served, context: BrowserContext) -> None:
    """The Little Corporal (Hoyle 1940, lines 15310-15316): the pin down scores five, but a
    ball must be hit before it; playing at the pin direct is not allowed."""
    start(quiet, "little-corporal", ["Ann", "Bob"])
    page = referee(context, quiet)
    stroke = control(page, "Stroke")
    direct = stroke.get_by_role(
        "group", name="Pins the cue ball knocked down before it struck a ball")
    expect(direct.get_by_role("checkbox")).to_have_count(1)
    # The three-ball game's crotch is barred here too, and asked in its own words.
    expect(stroke.get_by_label("Both object balls in the crotch (a 4\u00bd-inch square at a "
                               "corner), and left there")).not_to_be_checked()
    contacts = stroke.get_by_label("Cue ball's contacts")
    pins = stroke.get_by_label("Pins knocked down")
    # Ann's carom, the red then knocking the pin down: six, and she plays on.
    contacts.fill("red, spot-white")
    pins.fill("pin")
    close_stroke(page, stroke)
    ruled(page, "Ann: a carom off the red and the spot-white and the pin down (it is set up "
          "where it fell), 6; Ann plays on.", 0, "6")
    # Her cue ball knocks the pin down before it strikes the red: a foul, no count.
    contacts.fill("red")
    direct.get_by_label("pin", exact=True).check()
    close_stroke(page, stroke)
    ruled(page, "Ann: the cue ball knocked the pin down before it struck a ball: playing at "
          "the pin direct is not allowed; no count, the inning ends.", 0, "6")
    expect(page.locator("#billiards-ruling .law-source")).to_have_text(
        "Little corporal, rule 1: a ball before the pin; no playing at the pin direct "
        "(lines 15315-15316)")
    assert view(quiet)["game"]["striker"] == "Bob"
    assert strokes_logged(quiet) == [
        {"type": "stroke", "path": ["red", "spot-white"], "pins": ["pin"], "direct": [],
         "balk": False},
        {"type": "stroke", "path": ["red"], "pins": ["pin"], "direct": ["pin"],
         "balk": False}]


def test_the_referee_says_what_a_three_cushion_safety_drove_to_a_cushion(
        quiet: Served, context: BrowserContext) -> None:
    """Three-cushion caroms, rule 9 (Hoyle 1940, lines 3115-3119): "Playing deliberately for
    safety a striker must make the cue ball strike an object ball and then touch a cushion,
    or force the object ball against a cushion. Failure to do so will cause one point to be
    deducted from his score"; one deliberate safety is free (rule 10, 3122-3123). The balls
    driven to a cushion decide nothing else, so the form asks them only on a safety."""
    start(quiet, "three-cushion-billiards", ["Ann", "Bob"])
    for _ in range(2):
        send(quiet, {"type": "count", "points": 1})
    page = referee(context, quiet)
    stroke = control(page, "Stroke")
    contacts = stroke.get_by_label("Cue ball's contacts")
    driven = stroke.get_by_label("Balls driven to a cushion")
    safety = stroke.get_by_label("Safety declared")
    referee_view = view(quiet)["game"]["referee"]
    assert (referee_view["needs"], referee_view["sometimes"]) == (["path", "driven"],
                                                                  ["driven"])
    # (the table will not rule a safety whose cue ball met no cushion after the red without
    # being told whether a ball was driven to one)
    with quiet.api() as client:
        refused = client.post("/api/events", headers=OPERATOR, json={
            "event": {"type": "stroke", "path": ["red"], "safety": True}})
    assert refused.status_code == 409
    assert "needs the fact 'driven'" in refused.json()["detail"]
    # No safety declared: the balls driven to a cushion are not asked. Ann's three-cushion
    # carom counts, and she plays on.
    expect(safety).not_to_be_checked()
    expect(driven).to_be_hidden()
    contacts.fill("red, cushion, cushion, cushion, spot-white")
    close_stroke(page, stroke)
    ruled(page, "Ann: three cushions before the spot-white, 1; Ann plays on.", 0, "3")
    # Ann's safety: the cue ball stops on the red, which it forces against a cushion. Her
    # first safety, and a legal one: no penalty, and Bob plays.
    safety.check()
    expect(driven).to_be_visible()
    expect(driven).to_be_enabled()
    contacts.fill("red")
    driven.fill("1")
    close_stroke(page, stroke)
    ruled(page, "Ann plays a deliberate safety, his first: no penalty.", 0, "3")
    # Bob's safety drives no ball to a cushion: a point, which he owes until he scores.
    expect(safety).to_be_checked()
    driven.fill("0")
    close_stroke(page, stroke)
    ruled(page, "Bob's safety brings no ball to a cushion: forfeits 1; he owes 1 until he "
          "scores.", 1, "0")
    expect(page.locator("#billiards-ruling .law-source")).to_have_text(
        "Three-cushion rule 9: a deliberate safety must strike a ball and then a cushion, or "
        "drive a ball to one (lines 3115-3119)")
    game = view(quiet)["game"]
    assert (game["striker"], game["owed"], game["safeties_in_row"]) == (
        "Ann", {"Ann": 0, "Bob": 1}, {"Ann": 1, "Bob": 1})
    # Ann's turn again, no safety declared: the field goes, and nothing is said of it.
    safety.uncheck()
    expect(driven).to_be_hidden()
    contacts.fill("red, cushion, spot-white")
    close_stroke(page, stroke)
    ruled(page, "Ann: 1 cushion impact before the spot-white, not three; no count, the inning "
          "ends.", 0, "3")
    assert strokes_logged(quiet) == [
        {"type": "stroke", "path": ["red", "cushion", "cushion", "cushion", "spot-white"]},
        {"type": "stroke", "path": ["red"], "driven": 1, "safety": True},
        {"type": "stroke", "path": ["red"], "driven": 0, "safety": True},
        {"type": "stroke", "path": ["red", "cushion", "spot-white"]}]
