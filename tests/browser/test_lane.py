"""The bowling lane's page in Chromium: a spectator watches, the operator corrects a ball,
and a spectator's attempts to change anything are refused."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, expect

from controller import service as lane_service
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


def first_balls(balls: list[dict[str, Any]]) -> Iterator[tuple[int, int]]:
    """Each frame's first ball: (its index in `balls`, the frame's number for its bowler)."""
    frames: dict[str, int] = {}
    for index, ball in enumerate(balls):
        if index == 0 or balls[index - 1]["player"] != ball["player"]:
            frames[ball["player"]] = frames.get(ball["player"], 0) + 1
            yield index, frames[ball["player"]]


def open_frame(served: Served) -> tuple[dict[str, Any], int] | None:
    """A logged first ball that felled some pins but not all, its bowler's second ball
    already logged (the frame is over), and the frame's number; None until there is one."""
    entries = [e for e in history(served)
               if e["kind"] == "event" and e["body"]["event"]["type"] == "ball"]
    balls = [e["body"]["event"] for e in entries]
    for index, frame in first_balls(balls):
        later = balls[index + 1:index + 2]
        if (frame < 10 and 0 < len(balls[index]["standing"]) < 10 and later
                and later[0]["player"] == balls[index]["player"]):
            return entries[index], frame
    return None


def test_the_operator_corrects_a_ball_and_the_history_keeps_who_and_why(
        lane: Served, context: BrowserContext) -> None:
    page = open_page(context, lane)
    sign_in(page, "Mary Ellis")
    expect(page.locator("#signed-in-text")).to_have_text("Signed in as Mary Ellis, operator.")
    entry, frame = wait_until(lambda: open_frame(lane), "a frame of two balls")
    ball = entry["body"]["event"]
    page.locator("#correct-target").select_option(str(entry["seq"]))
    assert json.loads(page.locator("#correct-event").input_value()) == ball
    gutter = {**ball, "standing": list(range(1, 11))}
    reason = "the sweep bar hid the pins: it was a gutter ball"
    page.locator("#correct-event").fill(json.dumps(gutter))
    page.locator("#correct-reason").fill(reason)
    page.locator("#correct button[type=submit]").click()
    expect(page.locator("#op-message")).to_have_text(f"Entry #{entry['seq']} corrected.")

    row = page.locator("#sheet tbody tr").filter(has_text=ball["player"])
    expect(row.locator("td.frame").nth(frame - 1)).to_have_attribute(
        "aria-label", re.compile(rf"^Frame {frame}: no pins, "))
    expect(page.locator("#history")).to_contain_text(
        f"Entry #{entry['seq']} corrected to Ball (player {ball['player']}, standing "
        f"[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], foul false) · by operator Mary Ellis · why: "
        f"{reason}")
    kept = history(lane)
    assert next(e for e in kept if e["seq"] == entry["seq"]) == entry, \
        "the corrected entry was edited in place"
    [correction] = [e for e in kept if e["kind"] == "correct"]
    assert correction["source"] == "operator Mary Ellis"
    assert correction["body"] == {"target": entry["seq"], "event": gutter, "reason": reason}


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
