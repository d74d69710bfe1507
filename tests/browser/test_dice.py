"""The dice table's page in Chromium: the dice panel drawn for a game at the table.

The page does not depend on the camera reading a throw: the game is started by the
operator if the simulated table has not started one. A dice recogniser that cannot be
loaded (its model missing) fails the test with the table's own message, once the page
has been shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, expect

from controller import dice_table
from tests.browser.helpers import (
    OPERATOR,
    Served,
    open_page,
    screenshot,
    serve_table,
    table_config,
    view,
    wait_until,
)

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
