"""A log the rules cannot fold never stops a table starting: the table waits for the
operator, who voids or corrects the entry by an appended correction."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.config import load_config
from controller.eventlog import SqliteEventLog
from controller.service import build
from controller.table import Table, replay_state
from engine.errors import IllegalEventError
from tests.controller import helpers
from tests.controller.helpers import OPERATOR
from tests.controller.test_crash import REPO, WAIT

START = {"game": "ten-pins", "players": ["Ann", "Bob"], "options": {}}


def ball(player: str, *standing: int) -> dict[str, Any]:
    return {"event": {"type": "ball", "player": player, "standing": list(standing)}}


def write_log(folder: Path, *events: dict[str, Any]) -> Path:
    """A table's log as an older version (or a hand edit) could have left it: the entries
    go in as they are, unchecked by the rules."""
    path = folder / "lane-7.db"
    with SqliteEventLog(path) as log:
        log.append("start", "operator", START)
        for body in events:
            log.append("event", "sensor:lane", body)
    return path


@pytest.fixture
def blocked_log(tmp_path: Path) -> Path:
    # Entry 3: Ann bowls again after her strike, when it is Bob's ball; entry 4 is Bob's.
    return write_log(tmp_path, ball("Ann"), ball("Ann"), ball("Bob", 7))


@pytest.fixture
def client(tmp_path: Path, blocked_log: Path,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    config = helpers.write_config(tmp_path / "lane.toml", 'id = "lane-7"',
                                  '[lane]\nbackend = "fake"\n')
    with TestClient(build(load_config(config)).app) as client:
        yield client


def frame_one(view: dict[str, Any], player: str) -> list[Any]:
    row = next(r for r in view["game"]["sheet"] if r["player"] == player)
    balls: list[Any] = row["frames"][0]["balls"]
    return balls


def replay(log: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "replay", "--log", str(log)],
                          cwd=REPO, capture_output=True, text=True, timeout=WAIT)


def test_the_table_starts_and_waits_for_the_operator_naming_the_entry(
        client: TestClient) -> None:
    view = helpers.view(client)
    assert view["status"] == "paused"
    why = view["why"]
    assert why.startswith("needs the operator: log entry 3 ")
    assert '"player": "Ann"' in why, "the page says what the entry says"
    assert "ball by Ann out of turn" in why, "and why the rules cannot rule it"
    assert view["blocked"]["seq"] == 3
    # The game stands as it was before the entry; Bob's ball after it waits too.
    assert frame_one(view, "Ann") == ["X"]
    assert frame_one(view, "Bob") == []


def test_nothing_but_the_correction_is_taken_while_the_table_waits(
        client: TestClient) -> None:
    seq = helpers.view(client)["seq"]
    answer = client.post("/api/game", json={"game": "ten-pins", "players": ["Cy"]},
                         headers=OPERATOR)
    assert answer.status_code == 409
    assert "needs the operator first" in answer.json()["detail"]
    assert "log entry 3" in answer.json()["detail"]
    assert helpers.view(client)["seq"] == seq, "nothing was logged"


def test_the_operator_voids_the_entry_and_the_held_ones_are_ruled(client: TestClient,
                                                                  blocked_log: Path) -> None:
    answer = client.post("/api/corrections", headers=OPERATOR, json={
        "target": 3, "event": None, "reason": "a ball the old version logged twice"})
    assert answer.status_code == 200, answer.text
    view = helpers.view(client)
    assert view["status"] == "running"
    assert view["blocked"] is None
    assert frame_one(view, "Bob") == ["9"], "Bob's ball, held behind the entry, is ruled"
    assert replay(blocked_log).returncode == 0


def test_a_correction_that_gives_the_event_refolds_what_was_held(client: TestClient) -> None:
    # Entry 3 was really Bob's strike; entry 4 (Bob again) is then out of turn in its turn.
    answer = client.post("/api/corrections", headers=OPERATOR, json={
        "target": 3, "event": {"type": "ball", "player": "Bob", "standing": []},
        "reason": "the bowler was Bob"})
    assert answer.status_code == 200, answer.text
    view = helpers.view(client)
    assert frame_one(view, "Bob") == ["X"]
    assert view["blocked"]["seq"] == 4
    assert "ball by Bob out of turn" in view["why"]


def test_a_correction_whose_event_cannot_be_ruled_either_is_refused(
        client: TestClient) -> None:
    answer = client.post("/api/corrections", headers=OPERATOR, json={
        "target": 3, "event": {"type": "ball", "player": "Ann", "standing": [3]},
        "reason": "try again"})
    assert answer.status_code == 409
    assert "cannot be ruled either" in answer.json()["detail"]
    assert helpers.view(client)["blocked"]["seq"] == 3


def test_replay_prints_the_state_before_the_entry_then_names_it(blocked_log: Path) -> None:
    done = replay(blocked_log)
    assert done.returncode == 1
    state = json.loads(done.stdout)
    assert frame_one(state, "Ann") == ["X"]
    assert frame_one(state, "Bob") == []
    assert "log entry 3" in done.stderr
    assert "ball by Ann out of turn" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_entry_that_cannot_be_read_blocks_the_table_too(tmp_path: Path) -> None:
    path = write_log(tmp_path, ball("Ann"), {"event": "not an event"}, ball("Bob", 1))
    with SqliteEventLog(path) as log:
        state = replay_state(log)
    assert state.blocked is not None and state.blocked["seq"] == 3
    assert [seq for seq, *_ in state.held] == [4]


def test_a_snapshot_that_cannot_be_restored_is_passed_over(tmp_path: Path) -> None:
    path = write_log(tmp_path, ball("Ann"), ball("Bob", 7))
    with SqliteEventLog(path) as log:
        expected = replay_state(log).view("lane-7")
        log.save_snapshot(3, {"seq": 3, "game": {"id": "no-such-game"}})
        table = Table(log, "lane-7")
        table.recover()
        assert table.state.view("lane-7") == expected


def test_a_fold_that_fails_while_the_table_plays_stops_it_saying_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with SqliteEventLog(tmp_path / "lane-7.db") as log:
        table = Table(log, "lane-7")
        table.recover()
        asyncio.run(table.record("start", "operator", START))
        engine = table.state.engine
        assert engine is not None

        def broken(self: Any, event: Any) -> Any:
            raise IllegalEventError("a bug in the rules")

        # A fault the check before logging did not foresee: the rules fail on the entry.
        monkeypatch.setattr(type(engine), "apply", broken)
        change = asyncio.run(table.record("event", "sensor:lane", ball("Ann")))
        assert change.view["status"] == "paused"
        assert change.view["why"].startswith("needs the operator: log entry 2 ")
        assert "a bug in the rules" in change.view["why"]
        assert log.last_seq() == 2, "the entry stays in the log, as the sensor saw it"


def test_the_event_given_for_the_entry_is_read_strictly(client: TestClient) -> None:
    answer = client.post("/api/corrections", headers=OPERATOR, json={
        "target": 3, "event": {"type": "ball", "player": "Bob", "standing": [], "foull": True},
        "reason": "the bowler was Bob"})
    assert answer.status_code == 409
    assert "unknown key 'foull'" in answer.json()["detail"]
    assert helpers.view(client)["blocked"]["seq"] == 3
