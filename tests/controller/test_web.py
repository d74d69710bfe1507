"""The dashboard API: spectators read, the operator changes, the page updates live."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.eventlog import SqliteEventLog
from controller.table import Table
from controller.web import create_app

PIN = "4821"
OPERATOR = {"X-Operator-Pin": PIN}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(SqliteEventLog(tmp_path / "lane.db"), "lane-1")
    table.recover()
    yield table
    table.log.close()


@pytest.fixture
def client(table: Table) -> Iterator[TestClient]:
    with TestClient(create_app(table, PIN)) as client:
        yield client


def start(client: TestClient, players: list[str]) -> None:
    done = client.post("/api/game", json={"game": "ten-pins", "players": players},
                       headers=OPERATOR)
    assert done.status_code == 200, done.text


def test_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/table.js" in page.text
    assert client.get("/static/table.js").status_code == 200
    assert client.get("/static/table.css").status_code == 200
    for script in ("dice.js", "cards.js", "billiards.js"):
        assert f"/static/{script}" in page.text
        assert client.get(f"/static/{script}").status_code == 200


@pytest.mark.parametrize(("path", "body"), [
    ("/api/game", {"game": "ten-pins", "players": ["Ann"]}),
    ("/api/dead-ball", {"player": "Ann"}),
    ("/api/flags/1/resolve", {"void": True, "reason": "x"}),
    ("/api/corrections", {"target": 1, "event": None, "reason": "x"}),
    ("/api/abandon", {"reason": "x"}),
    ("/api/events", {"event": {"type": "bet", "player": "Ann", "on": "pass", "amount": 1}}),
])
def test_every_change_needs_the_operator_pin(client: TestClient, table: Table, path: str,
                                             body: dict[str, object]) -> None:
    for headers in ({}, {"X-Operator-Pin": "0000"}):
        done = client.post(path, json=body, headers=headers)
        assert done.status_code == 401, (path, done.text)
    assert table.log.last_seq() == 0


def test_every_state_changing_route_is_covered(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    changing = {p for p, ops in spec["paths"].items() if set(ops) - {"get"}}
    assert changing == {"/api/game", "/api/dead-ball", "/api/flags/{seq}/resolve",
                        "/api/corrections", "/api/abandon", "/api/events"}


def test_operator_runs_a_game_and_spectators_watch_it_live(client: TestClient,
                                                           table: Table) -> None:
    with client.websocket_connect("/ws") as socket:
        assert socket.receive_json()["game"] is None
        start(client, ["Ann", "Bob"])
        view = socket.receive_json()
        assert view["game"]["up"]["player"] == "Ann"

        asyncio.run(table.reading({"type": "ball", "player": "Ann", "standing": []}, "sensor"))
        view = socket.receive_json()
        assert view["game"]["sheet"][0]["frames"][0]["balls"] == ["X"]
        assert view["game"]["rulings"][-1]["kind"] == "strike"

        done = client.post("/api/dead-ball", json={"player": "Ann"}, headers=OPERATOR)
        assert done.status_code == 200
        assert done.json()["rulings"][0]["law"]["lines"] == "4113-4128"
        view = socket.receive_json()
        assert view["game"]["sheet"][0]["frames"][0]["balls"] == []


def test_illegal_and_malformed_changes_are_refused_with_reasons(client: TestClient,
                                                                table: Table) -> None:
    start(client, ["Ann"])
    before = table.log.last_seq()
    refused = client.post("/api/dead-ball", json={"player": "Ann"}, headers=OPERATOR)
    assert refused.status_code == 409 and "no ball to declare dead" in refused.json()["detail"]
    assert client.post("/api/game", json={"game": "ten-pins", "players": []},
                       headers=OPERATOR).status_code == 422
    assert client.post("/api/game", json={"game": "skittles", "players": ["Ann"]},
                       headers=OPERATOR).status_code == 409
    assert client.post("/api/game", json={"game": "ten-pins", "players": ["Ann"],
                                          "options": {"speed": 3}},
                       headers=OPERATOR).status_code == 409
    assert client.post("/api/flags/99/resolve", json={"void": True, "reason": "x"},
                       headers=OPERATOR).status_code == 404
    assert table.log.last_seq() == before


def test_operator_resolves_a_flagged_reading(client: TestClient, table: Table) -> None:
    start(client, ["Ann"])

    async def readings() -> None:
        await table.reading({"type": "ball", "player": "Ann", "standing": [7, 10]}, "sensor")
        await table.reading({"type": "ball", "player": "Ann", "standing": [6, 7]}, "sensor")

    asyncio.run(readings())
    view = client.get("/api/view").json()
    assert view["status"] == "paused"
    seq = view["flags"][0]["seq"]
    done = client.post(f"/api/flags/{seq}/resolve",
                       json={"standing": [7], "reason": "pin 6 switch stuck"},
                       headers=OPERATOR)
    assert done.status_code == 200, done.text
    view = client.get("/api/view").json()
    assert view["status"] == "running" and view["flags"] == []
    assert view["game"]["sheet"][0]["frames"][0]["total"] == 9
    history = client.get("/api/history").json()
    assert [h["kind"] for h in history] == ["start", "event", "flag", "resolve"]
    assert history[-1]["body"]["reason"] == "pin 6 switch stuck"
