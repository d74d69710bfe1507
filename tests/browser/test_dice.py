"""The dice table's page in Chromium: the dice panel drawn for a game at the table, and the
croupier telling the table how many dice a throw the camera asked about really had.

The page does not depend on the camera reading a throw: the game is started by the
operator if the simulated table has not started one. A dice recogniser that cannot be
loaded (its model missing) fails the test with the table's own message, once the page
has been shown.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, expect

from controller import dice_table
from tests.browser.helpers import (
    OPERATOR,
    Served,
    history,
    open_page,
    screenshot,
    serve_table,
    sign_in,
    table_config,
    view,
    wait_until,
)
from tests.controller.test_dice_table import THREE_DICE, throw_into

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bob", "Cy"]


@pytest.fixture(scope="module")
def craps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A simulated bank craps table: throws rendered for the camera, three players."""
    config = table_config(tmp_path_factory.mktemp("dice"),
                          'id = "dice-1"\nname = "Dice table"\ngame = "craps-bank"', f"""
[camera]
source = "sim"
[sim]
seed = 7
pace = 0.5
players = {json.dumps(PLAYERS)}
""")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dice_table, "NEW_GAME_PAUSE", 0.0)
        with serve_table(config) as served:
            yield served


def camera(served: Served) -> dict[str, Any] | None:
    """The camera as the table reports it; None until it has."""
    return next((d for d in view(served)["devices"] if d["name"] == "camera"), None)


def test_the_dice_tables_page_shows_the_game(craps: Served, context: BrowserContext) -> None:
    reported = wait_until(lambda: camera(craps), "the camera to be reported")
    if view(craps)["game"] is None:
        with craps.api() as client:
            client.post("/api/game", headers=OPERATOR, json={
                "game": "craps-bank", "players": PLAYERS}).raise_for_status()
    page = open_page(context, craps)
    expect(page.locator("#dice-panel")).to_be_visible()
    expect(page.locator("#dice-scores")).to_contain_text("Ann")
    expect(page.locator("#devices")).to_contain_text("camera")
    screenshot(page, "dice")
    if reported["state"] != "working":
        pytest.fail(f"the simulated dice table's camera is {reported['state']}: "
                    f"{reported['detail']}")


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    """A bank craps table whose camera is a folder of frames, not there until a test throws
    into it, and no simulated play."""
    folder = tmp_path_factory.mktemp("dice-camera")
    frames = folder / "throw"
    config = table_config(folder, 'id = "dice-2"\nname = "Dice table"\ngame = "craps-bank"',
                          f"""
[camera]
source = "{frames}"
interval = 0.05
""")
    with serve_table(config) as served:
        yield served, frames


def test_a_throw_with_a_die_too_many_is_confirmed_with_two_dice_from_the_page(
        watched: tuple[Served, Path], context: BrowserContext) -> None:
    served, frames = watched
    with served.api() as client:
        client.post("/api/game", headers=OPERATOR, json={
            "game": "craps-bank", "players": PLAYERS}).raise_for_status()
    faces = throw_into(frames, THREE_DICE, 3)
    flag = wait_until(lambda: next(iter(view(served)["flags"]), None),
                      "the camera to ask about the throw")
    # Replayed again, the same throw would be asked about again: the camera goes.
    shutil.rmtree(frames)
    page = open_page(context, served)
    sign_in(page)
    form = page.locator("#flag-forms form.flag-form").first
    count = form.locator(".hint")
    expect(count).to_have_text("The game throws 2 dice. The camera saw 3; the table has 3.")
    crops = form.locator("img.die-crop")
    expect(crops).to_have_count(3)
    for number in range(3):
        expect(crops.nth(number)).to_have_attribute("alt", f"Die {number + 1} as the camera "
                                                    "saw it")
        assert crops.nth(number).evaluate("image => image.complete && image.naturalWidth > 0")
    screenshot(page, "dice-confirm")

    form.get_by_role("button", name="Add a die").click()
    expect(count).to_have_text("The game throws 2 dice. The camera saw 3; the table has 4.")
    expect(crops).to_have_count(3)  # a die the camera missed: no picture of it
    for number in (4, 3):
        form.get_by_role("button", name=f"Remove die {number}").click()
    expect(count).to_have_text("The game throws 2 dice. The camera saw 3; the table has 2.")
    expect(crops).to_have_count(2)
    for number, face in enumerate(faces[:2], 1):
        form.get_by_label(f"Die {number}", exact=True).fill(str(face))
    form.get_by_label("Reason").fill("two dice on the table")
    form.get_by_role("button", name="Confirm these faces").click()
    expect(page.locator("#op-message")).to_have_text("Throw confirmed.")
    [resolve] = [e for e in history(served) if e["kind"] == "resolve"]
    assert resolve["body"] == {"flag": flag["seq"], "reason": "two dice on the table",
                               "event": {"type": "throw", "dice": faces[:2]}}
    assert view(served)["game"]["last_throw"] == faces[:2]
