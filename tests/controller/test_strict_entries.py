"""A new event with a key it does not take is refused by name, and nothing reaches the log.

The operator's events, corrections and settled flags are read strictly (`parse_strictly`);
a sensor's reading with such a key is flagged for the operator, not applied; a log
written before (by hand, or by an older version) still replays with the key in it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.errors import Rejected
from controller.eventlog import SqliteEventLog
from controller.table import Table
from controller.web import CSRF_HEADER
from tests.controller.helpers import PIN


def operator(client: TestClient) -> dict[str, str]:
    done = client.post("/api/session", json={"pin": PIN})
    assert done.status_code == 200, done.text
    return {CSRF_HEADER: done.json()["csrf"]}


def start(client: TestClient, headers: dict[str, str], game: str) -> None:
    done = client.post("/api/game", json={"game": game, "players": ["Ann", "Bob"]},
                       headers=headers)
    assert done.status_code == 200, done.text


@pytest.mark.parametrize(("game", "event", "refusal"), [
    # Baccara's bets are on a side (lines 1440-1449); coppering is faro's (11755-11770).
    ("baccara", {"type": "bet", "player": "Ann", "on": "right", "amount": 10, "copper": True},
     "unknown key 'copper'"),
    ("ten-pins", {"type": "ball", "player": "Ann", "standing": [], "extra_junk": 1},
     "ball: unknown key 'extra_junk'"),
])
def test_an_operators_event_with_a_key_it_does_not_take_is_refused_and_not_logged(
        table: Table, client: TestClient, game: str, event: dict[str, object],
        refusal: str) -> None:
    headers = operator(client)
    start(client, headers, game)
    before = table.log.last_seq()
    done = client.post("/api/events", headers=headers, json={"event": event})
    assert done.status_code == 409
    assert refusal in done.json()["detail"]
    assert table.log.last_seq() == before


def test_a_correction_with_a_misspelt_key_is_refused(table: Table, client: TestClient) -> None:
    """A correction to a foul ball (lines 4081-4095) misspelt would stand as a fair one."""
    headers = operator(client)
    start(client, headers, "ten-pins")
    ball = client.post("/api/events", headers=headers, json={"event": {
        "type": "ball", "player": "Ann", "standing": [7]}})
    assert ball.status_code == 200, ball.text
    target = table.log.last_seq()
    done = client.post("/api/corrections", headers=headers, json={
        "target": target, "reason": "a foul",
        "event": {"type": "ball", "player": "Ann", "standing": [7], "foull": True}})
    assert done.status_code == 409
    assert "unknown key 'foull'" in done.json()["detail"]
    assert table.log.last_seq() == target


def test_a_settled_flag_with_junk_is_refused(table: Table) -> None:
    async def play() -> None:
        await table.record("start", "operator", {"game": "craps-bank", "players": ["Ann"]})
        flag = await table.record("flag", "camera", {"reading": {"type": "throw",
                                                                 "dice": [3, 4]},
                                                     "why": "a die unsure"})
        with pytest.raises(Rejected, match="unknown key 'confidence'"):
            await table.record("resolve", "operator", {
                "flag": flag.seq, "reason": "read by the croupier",
                "event": {"type": "throw", "dice": [3, 4], "confidence": 1.0}})
        assert table.log.last_seq() == flag.seq
    asyncio.run(play())


def test_a_sensor_reading_with_junk_is_flagged_not_applied(table: Table) -> None:
    """The lane reports every ball with its foul flag (controller/service.py): a fair ball's
    `"foul": false` is what the ball goes without, and it counts (lines 4081-4095); a
    reading with a key no ball takes waits for the operator."""
    async def play() -> None:
        await table.record("start", "operator", {"game": "ten-pins", "players": ["Ann"]})
        fair = await table.reading({"type": "ball", "player": "Ann", "standing": [],
                                    "foul": False}, "lane")
        assert fair.kind == "event"
        assert [r.kind for r in fair.rulings] == ["count", "strike"]
        change = await table.reading({"type": "ball", "player": "Ann", "standing": [],
                                      "speed": 17}, "lane")
        assert change.kind == "flag"
        assert "unknown key 'speed'" in change.body["why"]
    asyncio.run(play())


def test_an_old_log_with_an_unknown_key_still_replays_but_takes_no_new_one(
        tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with SqliteEventLog(path) as event_log:
        event_log.append("start", "operator", {"game": "ten-pins", "players": ["Ann"]})
        event_log.append("event", "lane", {"event": {"type": "ball", "player": "Ann",
                                                     "standing": [], "speed": 17}})
    table = Table(SqliteEventLog(path), "old")

    async def play() -> None:
        with pytest.raises(Rejected, match="unknown key 'speed'"):
            await table.record("event", "operator", {"event": {
                "type": "ball", "player": "Ann", "standing": [], "speed": 17}})
    try:
        table.recover()
        view = table.view()
        asyncio.run(play())
    finally:
        table.log.close()
    assert (view["seq"], view["status"]) == (2, "running")
    assert [r["kind"] for r in view["game"]["rulings"]] == ["count", "strike"]
