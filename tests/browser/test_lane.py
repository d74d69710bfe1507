"""The bowling lane's page in Chromium: a spectator watches, the operator corrects a ball,
and a spectator's attempts to change anything are refused."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from controller import service as lane_service
from controller.kinds import games_for
from tests.browser.helpers import (
    WAIT_MS,
    Served,
    history,
    history_line,
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
from tests.controller.helpers import PIN

pytestmark = pytest.mark.browser

PLAYERS = ("Ann", "Bob")


@pytest.fixture(scope="module")
def lane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A simulated lane bowling ten-pins for two, a ball a second, no fouls."""
    config = table_config(tmp_path_factory.mktemp("lane"),
                          'id = "lane-1"\nname = "Lane 1"\ngame = "ten-pins"', f"""
[lane]
backend = "sim"
settle_time = 0.02
[sim]
seed = 7
pace = 1.0
players = {json.dumps(list(PLAYERS))}
foul_rate = 0
dead_ball_rate = 0
""")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lane_service, "NEW_GAME_PAUSE", 0.0)
        with serve_table(config) as served:
            yield served


def test_a_spectator_sees_the_sheet_fill_in_without_reloading(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    sheet = page.locator("#sheet")
    expect(sheet).to_contain_text("Bowler", timeout=WAIT_MS)
    expect(page.locator("#game-name")).to_have_text(view(lane)["game"]["name"])
    mark_page(page)
    before = sheet.inner_text()
    expect(sheet).not_to_have_text(before, timeout=WAIT_MS)
    assert still_marked(page), "the page reloaded to show the new ball"
    expect(page.locator("#link")).to_have_text("Live")
    screenshot(page, "bowling")


def test_the_lanes_operator_panel_has_the_dead_ball_and_the_bowling_games(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    sign_in(page)
    expect(page.locator("#operator-controls").get_by_role("heading", name="Dead ball")) \
        .to_be_visible()
    expect(page.locator("#dead-ball").get_by_label("Bowler")).to_be_visible()
    expect(page.get_by_label("Bowlers, one per line")).to_be_visible()
    options = page.locator("#game-picker option")
    expect(options.first).to_be_attached()
    shown = options.evaluate_all("options => options.map((option) => option.value)")
    assert sorted(shown) == sorted(game.id for game in games_for("lane"))
    screenshot(page, "bowling-operator")


#: Where the first bowler's total is on a phone once the sheet is scrolled back to the first
#: frame, as a reader would: its box and whether it is what shows at its middle.
TOTAL_SHOWN = """() => {
  const scroller = document.querySelector(".sheet-scroll");
  scroller.scrollIntoView({ block: "center" });
  scroller.scrollLeft = 0;
  const cell = document.querySelector("#sheet tbody td.total-col");
  const box = cell.getBoundingClientRect();
  const seen = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return { left: box.left, right: box.right, width: window.innerWidth,
    shown: seen !== null && cell.contains(seen),
    sideways: document.documentElement.scrollWidth > window.innerWidth };
}"""


def test_a_phone_shows_each_bowlers_total_beside_the_first_frames(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#sheet tbody td.total-col").first).to_be_attached()
    total = page.evaluate(TOTAL_SHOWN)
    assert total["left"] >= 0 and total["right"] <= total["width"], total
    assert total["shown"], "something covers the total"
    assert not total["sideways"], "the page scrolls sideways"
    expect(page.locator("#sheet thead th.total-col")).to_be_in_viewport()
    screenshot(page, "bowling-phone")


#: Balls a game may have logged when a test picks one of them: the game (some 35 balls, a
#: ball a second) is then far from over, so the sim does not start the next game (and the
#: picked entry leaves the game in progress) before the correction is sent.
YOUNG = 24

Ball = tuple[int, dict[str, Any]]


def game_balls(served: Served) -> list[Ball]:
    """The current game's balls as corrected so far, in order: (entry seq, event)."""
    events: dict[int, dict[str, Any]] = {}
    for entry in history(served):
        body = entry["body"]
        if entry["kind"] == "start":
            events = {}
        elif entry["kind"] == "event" or (entry["kind"] == "resolve" and body.get("event")):
            events[entry["seq"]] = body["event"]
        elif entry["kind"] == "correct" and body["target"] in events:
            if body["event"] is None:
                del events[body["target"]]
            else:
                events[body["target"]] = body["event"]
    return [(seq, event) for seq, event in events.items() if event["type"] == "ball"]


def frames(balls: list[Ball]) -> Iterator[tuple[int, list[Ball]]]:
    """Each bowler's frames so far: (the frame's number for its bowler, its balls)."""
    numbers: dict[str, int] = {}
    frame: list[Ball] = []
    for ball in balls:
        if frame and frame[-1][1]["player"] != ball[1]["player"]:
            yield numbers[frame[0][1]["player"]], frame
            frame = []
        if not frame:
            numbers[ball[1]["player"]] = numbers.get(ball[1]["player"], 0) + 1
        frame.append(ball)
    if frame:
        yield numbers[frame[0][1]["player"]], frame


def young_frames(served: Served) -> list[tuple[int, list[Ball], list[Ball]]]:
    """The current game's finished frames before the tenth, each with its bowler's later
    balls: (number, balls, later balls); none once the game is no longer young."""
    balls = game_balls(served)
    if len(balls) > YOUNG:
        return []
    return [(number, frame, [b for b in balls[balls.index(frame[-1]) + 1:]
                             if b[1]["player"] == frame[0][1]["player"]])
            for number, frame in frames(balls) if number < 10 and len(frame) == 2]


def open_frame(served: Served) -> tuple[Ball, int] | None:
    """A first ball that felled some pins but not all, its bowler's second ball already
    logged (the frame is over), and the frame's number; None until there is one."""
    return next(((frame[0], number) for number, frame, _ in young_frames(served)
                 if 0 < len(frame[0][1]["standing"]) < 10), None)


def strike_and_open_ball(served: Served) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A strike's entry and the entry of a ball that felled pins and left some, of a young
    game (so it is still the page's game); None until the game has both."""
    entries = [e for e in history(served) if e["kind"] == "event"
               and e["body"]["event"]["type"] == "ball"]
    if len(entries) > YOUNG:
        return None
    strike = next((e for e in entries if any(r["kind"] == "strike" for r in e["rulings"])),
                  None)
    felled = next((e for e in entries if e["body"]["event"]["standing"] and any(
        r["kind"] == "count" and r["amount"] for r in e["rulings"])), None)
    return (strike, felled) if strike and felled else None


def test_the_history_says_each_ball_as_the_bowlers_say_it(
        lane: Served, context: BrowserContext) -> None:
    strike, felled = wait_until(lambda: strike_and_open_ball(lane),
                                "a strike and a ball that left pins")
    page = open_page(context, lane)
    ball = strike["body"]["event"]
    expect(history_line(page, strike["seq"])).to_have_text(
        f"#{strike['seq']} {ball['player']}: strike · by {strike['source']}")
    ball = felled["body"]["event"]
    [count] = [r["amount"] for r in felled["rulings"] if r["kind"] == "count"]
    standing = sorted(ball["standing"])
    pins = "pin" if len(standing) == 1 else "pins"
    expect(history_line(page, felled["seq"])).to_have_text(
        f"#{felled['seq']} {ball['player']}: {count} down, {len(standing)} standing ({pins} "
        f"{', '.join(map(str, standing))}) · by {felled['source']}")


def field(page: Page, label: str) -> Locator:
    """The correction form's input for the event's field `label`."""
    return page.locator("#correct-fields").get_by_label(label, exact=True)


def entry_of(served: Served, seq: int) -> dict[str, Any]:
    return next(e for e in history(served) if e["seq"] == seq)


def test_the_operator_corrects_a_ball_and_the_history_keeps_who_and_why(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    sign_in(page, "Mary Ellis")
    expect(page.locator("#signed-in-text")).to_have_text("Signed in as Mary Ellis, operator.")
    (seq, ball), frame = wait_until(lambda: open_frame(lane), "a frame of two balls")
    entry = entry_of(lane, seq)
    page.locator("#correct-target").select_option(str(seq))
    expect(field(page, "type")).to_have_value("ball")
    expect(field(page, "type")).not_to_be_editable()
    expect(field(page, "player")).to_have_value(ball["player"])
    expect(page.locator("#correct-field-standing")).to_have_value(
        ", ".join(map(str, ball["standing"])))
    expect(field(page, "foul")).not_to_be_checked()
    gutter = {**ball, "standing": list(range(1, 11))}
    reason = "the sweep bar hid the pins: it was a gutter ball"
    field(page, "standing").fill("1, 2, 3, 4, 5, 6, 7, 8, 9, 10")
    page.locator("#correct-reason").fill(reason)
    page.get_by_role("button", name="Correct entry").click()
    expect(page.locator("#op-message")).to_have_text(f"Entry #{seq} corrected.")

    row = page.locator("#sheet tbody tr").filter(has_text=ball["player"])
    expect(row.locator("td.frame").nth(frame - 1)).to_have_attribute(
        "aria-label", re.compile(rf"^Frame {frame}: no pins, "))
    expect(page.locator("#history")).to_contain_text(
        f"Entry #{seq} replaced: {ball['player']}: 10 standing (pins 1, 2, 3, 4, 5, 6, 7, 8, "
        f"9, 10) · by operator Mary Ellis · why: {reason}")
    kept = history(lane)
    assert next(e for e in kept if e["seq"] == seq) == entry, \
        "the corrected entry was edited in place"
    [correction] = [e for e in kept if e["kind"] == "correct" and e["body"]["target"] == seq]
    assert correction["source"] == "operator Mary Ellis"
    assert correction["body"] == {"target": seq, "event": gutter, "reason": reason}


def open_frame_and_next(served: Served) -> tuple[Ball, int, dict[str, Any]] | None:
    """An open frame's second ball (pins left standing), the frame's number and its
    bowler's next ball (the next frame's first); None until there is one."""
    return next(((frame[1], number, later[0][1]) for number, frame, later
                 in young_frames(served) if frame[1][1]["standing"] and later), None)


def test_the_operator_makes_an_open_frame_a_spare_and_the_score_follows(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    sign_in(page)
    (seq, ball), frame, following = wait_until(lambda: open_frame_and_next(lane),
                                               "an open frame and the next ball")
    row = next(r for r in view(lane)["game"]["sheet"] if r["player"] == ball["player"])
    total = row["frames"][frame - 1]["total"]
    # The spare takes 10 for the frame's pins instead of those felled, and the next ball's.
    spare_total = total + len(ball["standing"]) + 10 - len(following["standing"])
    cell = page.locator("#sheet tbody tr").filter(has_text=ball["player"]) \
        .locator("td.frame").nth(frame - 1)
    expect(cell).to_have_attribute("aria-label", re.compile(rf", total {total}$"))

    page.locator("#correct-target").select_option(str(seq))
    expect(field(page, "standing")).to_have_value(", ".join(map(str, ball["standing"])))
    field(page, "standing").fill("")
    page.locator("#correct-reason").fill("the last pins fell after the sweep")
    page.get_by_role("button", name="Correct entry").click()
    expect(page.locator("#op-message")).to_have_text(f"Entry #{seq} corrected.")
    expect(cell).to_have_attribute(
        "aria-label", re.compile(rf"^Frame {frame}: .*, spare, total {spare_total}$"))
    correction = [e for e in history(lane)
                  if e["kind"] == "correct" and e["body"]["target"] == seq][-1]
    assert correction["body"]["event"] == {**ball, "standing": []}


def spare_frame(served: Served) -> tuple[Ball, int] | None:
    """A spare's first ball and the frame's number; None until there is one."""
    return next(((frame[0], number) for number, frame, _ in young_frames(served)
                 if frame[0][1]["standing"] and not frame[1][1]["standing"]), None)


def test_the_operator_voids_a_ball_with_the_void_button(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    sign_in(page, "Mary Ellis")
    (seq, ball), frame = wait_until(lambda: spare_frame(lane), "a spare")
    page.locator("#correct-target").select_option(str(seq))
    expect(field(page, "player")).to_have_value(ball["player"])
    reason = "a practice ball, bowled before the game"
    page.locator("#correct-reason").fill(reason)
    page.get_by_role("button", name="Void entry").click()
    expect(page.locator("#op-message")).to_have_text(f"Entry #{seq} voided.")

    # Without its first ball the frame's second ball felled all ten: a strike.
    row = page.locator("#sheet tbody tr").filter(has_text=ball["player"])
    expect(row.locator("td.frame").nth(frame - 1)).to_have_attribute(
        "aria-label", re.compile(rf"^Frame {frame}: strike"))
    expect(page.locator("#history")).to_contain_text(
        f"Entry #{seq} voided · by operator Mary Ellis · why: {reason}")
    expect(page.locator(f"#correct-target option[value='{seq}']")).to_have_count(0)
    # (An earlier test may have corrected the same ball: the void is the last word on it.)
    correction = [e for e in history(lane)
                  if e["kind"] == "correct" and e["body"]["target"] == seq][-1]
    assert correction["source"] == "operator Mary Ellis"
    assert correction["body"] == {"target": seq, "event": None, "reason": reason}


def test_a_field_that_is_not_a_number_is_named_and_nothing_is_sent(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page)
    (seq, ball), _ = wait_until(lambda: open_frame(lane), "a frame of two balls")
    page.locator("#correct-target").select_option(str(seq))
    standing = field(page, "standing")
    expect(standing).to_be_visible()
    standing.fill("1, x")
    page.locator("#correct-reason").fill("a typing slip")

    # The entries that arrive meanwhile leave the chosen entry and what was typed alone.
    newest = max(e["seq"] for e in history(lane))
    expect(page.locator("#history .history-text").filter(
        has_text=re.compile(rf"^#{newest + 1} "))).to_have_count(1)
    expect(page.locator("#correct-target")).to_have_value(str(seq))
    expect(standing).to_have_value("1, x")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
        "the page is wider than the phone's screen"

    last = max(e["seq"] for e in history(lane))
    page.get_by_role("button", name="Correct entry").click()
    expect(page.locator("#op-message")).to_have_text("standing: 'x' is not a number")
    expect(standing).to_be_focused()
    expect(standing).to_have_attribute("aria-invalid", "true")
    assert [e for e in history(lane) if e["seq"] > last and e["kind"] == "correct"] == []
    assert next(event for s, event in game_balls(lane) if s == seq) == ball


#: What a spectator's page tries; each must be refused without the operator's session.
ATTEMPTS = (
    ("/api/abandon", {"reason": "a spectator says the game is over"}),
    ("/api/game", {"game": "ten-pins", "players": ["Mallory"], "options": {}}),
    ("/api/dead-ball", {"player": PLAYERS[0]}),
    ("/api/events", {"event": {"type": "dead_ball", "player": PLAYERS[0]}}),
    ("/api/corrections", {"target": 1, "event": None, "reason": "a spectator's correction"}),
    ("/api/flags/1/resolve", {"void": True, "reason": "a spectator's void"}),
    ("/api/session/end", None),
)

#: Sends each (path, body) of `attempts` with `headers` from the page; their statuses.
FETCH = """async ([attempts, headers]) => {
  const statuses = [];
  for (const [path, body] of attempts) {
    const response = await fetch(path, { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", ...headers },
      body: body === null ? undefined : JSON.stringify(body) });
    statuses.push(response.status);
  }
  return statuses;
}"""


def operators_entries_after(served: Served, seq: int) -> list[dict[str, Any]]:
    return [e for e in history(served) if e["seq"] > seq and e["source"] == "operator"]


def test_a_spectators_page_shows_no_controls_and_its_requests_change_nothing(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    page.locator("#operator summary").click()
    expect(page.locator("#pin-form")).to_be_visible()
    expect(page.locator("#operator-controls")).to_be_hidden()
    expect(page.locator("#signed-in")).to_be_hidden()

    page.locator("#pin").fill("9999")
    page.locator("#sign-in").click()
    expect(page.locator("#op-message")).to_have_text(
        "Not signed in as the operator: wrong PIN")
    expect(page.locator("#operator-controls")).to_be_hidden()

    last = max(e["seq"] for e in history(lane))
    game = view(lane)["game"]
    attempts = [list(attempt) for attempt in ATTEMPTS]
    assert page.evaluate(FETCH, [attempts, {}]) == [401] * len(ATTEMPTS)
    assert page.evaluate(FETCH, [attempts, {"X-CSRF-Token": "forged"}]) == \
        [401] * len(ATTEMPTS)
    assert operators_entries_after(lane, last) == []
    assert view(lane)["game"]["players"] == game["players"]
    expect(page.locator("#operator-controls")).to_be_hidden()


def test_the_operators_cookie_without_the_pages_csrf_token_changes_nothing(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    signed = page.request.post(lane.url + "/api/session", data={"pin": PIN})
    assert signed.ok, signed.text()
    last = max(e["seq"] for e in history(lane))
    attempts = [list(attempt) for attempt in ATTEMPTS]
    assert page.evaluate(FETCH, [attempts, {}]) == [403] * len(ATTEMPTS)
    assert page.evaluate(FETCH, [attempts, {"X-CSRF-Token": "forged"}]) == \
        [403] * len(ATTEMPTS)
    assert operators_entries_after(lane, last) == []
