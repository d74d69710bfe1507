"""The dice table: the camera's settled throws go to the table as throws, rethrows or
requests to confirm, and the operator confirms faces on the dashboard."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.config import load_config
from controller.dice_table import DiceRunner
from controller.service import Service, build
from tests.controller import helpers
from tests.controller.helpers import OPERATOR, WAIT, wait_for
from vision.settle import DieRead, ThrowRead


def write_config(tmp_path: Path, camera: str) -> Path:
    return helpers.write_config(tmp_path / "dice.toml", 'id = "dice-3"\ngame = "craps-bank"',
                                f"""[camera]
{camera}
[sim]
pace = 0
players = ["Ann", "Bob"]
[scoreboard]
kind = "none"
""")


@pytest.fixture
def started(tmp_path: Path) -> Iterator[tuple[Service, TestClient]]:
    """A dice table whose camera is a folder that is never filled: nothing is thrown."""
    (tmp_path / "empty").mkdir()
    built = build(load_config(write_config(tmp_path, f'source = "{tmp_path / "nowhere"}"')))
    with TestClient(built.app) as client:
        client.post("/api/game", json={"game": "craps-bank", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        # The camera's absence is logged once, on its own thread: wait for it, so that a
        # test's throw is the log's last entry.
        wait_for(lambda: helpers.device(client, "camera"))
        yield built, client


def read(verdict: str, *values: int | None, reason: str = "",
         state: str = "flat") -> ThrowRead:
    dice = tuple(DieRead(v, (100.0 * n, 50.0, 40.0, 40.0), 0.99 if v else 0.4, state)
                 for n, v in enumerate(values))
    return ThrowRead(1.0, verdict, dice, reason)


def record(built: Service, throw: ThrowRead) -> None:
    runner = built.runner
    assert isinstance(runner, DiceRunner)
    asyncio.run_coroutine_threadsafe(runner.record(throw), runner.loop).result(WAIT)  # type: ignore[arg-type]


def test_a_camera_that_is_not_there_is_a_device_unavailable(
        started: tuple[Service, TestClient]) -> None:
    _, client = started
    camera = wait_for(lambda: helpers.device(client, "camera"))
    assert camera["state"] == "unavailable"
    assert "no such device, folder or file" in camera["detail"]
    assert client.get("/api/view").json()["status"] == "paused"


def test_a_sure_throw_is_ruled(started: tuple[Service, TestClient]) -> None:
    built, client = started
    record(built, read("throw", 3, 4))
    view = client.get("/api/view").json()
    assert view["game"]["last_throw"] == [3, 4]
    history = client.get("/api/history").json()
    assert history[-1]["body"]["vision"]["verdict"] == "throw"
    assert [r["kind"] for r in history[-1]["rulings"]][:1] == ["nick"]


def test_a_cocked_die_is_no_throw_and_says_the_law(started: tuple[Service, TestClient]) -> None:
    built, client = started
    record(built, read("rethrow", 3, 4, reason="cocked", state="cocked"))
    assert client.get("/api/view").json()["game"]["last_throw"] is None
    note = client.get("/api/history").json()[-1]
    assert note["kind"] == "note"
    assert note["body"]["what"] == "rethrow"
    assert note["body"]["law"]["lines"] == "1939-1942"
    assert "throws again" in note["body"]["text"]


def test_an_unsure_die_waits_for_the_operator_to_confirm(
        started: tuple[Service, TestClient]) -> None:
    built, client = started
    record(built, read("confirm", 6, None, reason="die 2 not read surely: confirm the faces"))
    view = client.get("/api/view").json()
    [flag] = view["flags"]
    assert flag["reading"] == {"type": "throw", "dice": [6, None]}
    assert view["game"]["last_throw"] is None
    path = f"/api/flags/{flag['seq']}/resolve"
    refused = client.post(path, json={"dice": [6, 5], "reason": "looked"})
    assert refused.status_code == 401
    bad = client.post(path, json={"dice": [6, 7], "reason": "looked"}, headers=OPERATOR)
    assert bad.status_code == 409
    assert "die 2 shows 7" in bad.json()["detail"]
    missing = client.post(path, json={"reason": "looked"}, headers=OPERATOR)
    assert missing.status_code == 422
    assert client.get("/api/view").json()["flags"] == [flag]
    done = client.post(path, json={"dice": [6, 5], "reason": "looked"}, headers=OPERATOR)
    assert done.status_code == 200, done.text
    view = client.get("/api/view").json()
    assert view["flags"] == []
    assert view["game"]["last_throw"] == [6, 5]
    assert [r["kind"] for r in done.json()["rulings"]][:1] == ["nick"]


def test_the_operator_places_bets_and_reads_the_audit(
        started: tuple[Service, TestClient]) -> None:
    built, client = started
    bet = {"event": {"type": "bet", "player": "Bob", "on": "field", "amount": 5}}
    assert client.post("/api/events", json=bet).status_code == 401
    wrong = {"event": {"type": "bet", "player": "Bob", "on": "hardways", "amount": 5}}
    assert client.post("/api/events", json=wrong, headers=OPERATOR).status_code == 409
    record(built, read("throw", 4, 2))  # Ann's point is 6; the Field is open
    client.post("/api/events", json=bet, headers=OPERATOR).raise_for_status()
    record(built, read("throw", 2, 2))
    assert client.get("/api/view").json()["game"]["sheet"][1] == {"player": "Bob", "total": 5}
    audit = client.get("/api/dice/audit").json()
    assert audit["all"]["faces"]["counts"]["2"] == 3
    assert audit["sessions"][-1]["throws"] == 2


def test_the_simulated_table_throws_and_the_camera_reads(tmp_path: Path) -> None:
    built = build(load_config(write_config(tmp_path, 'source = "sim"\ninterval = 0')))
    with TestClient(built.app) as client:
        def camera_outcome() -> bool:
            history = client.get("/api/history").json()
            return any(e["source"] == "camera" for e in history)
        wait_for(camera_outcome)
        # A throw the camera was unsure of is confirmed by the simulated croupier: the
        # simulated table keeps playing.
        wait_for(lambda: (client.get("/api/view").json()["game"] or {}).get("last_throw"))
        view = client.get("/api/view").json()
        camera = next(d for d in view["devices"] if d["name"] == "camera")
        assert camera["state"] == "working"
        assert "simulated camera" in camera["detail"]
