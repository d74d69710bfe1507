"""The dashboard API: spectators read, the signed-in operator changes, the page updates live."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.club.settings import MqttConfig
from controller.club.store import SqliteClubStore
from controller.club.view import ClubView
from controller.club.web import create_club_app
from controller.config import load_config
from controller.kinds import kind_of_game
from controller.service import build
from controller.table import Table
from controller.web import CSRF_HEADER, PIN_HEADER, create_app
from tests.controller.helpers import PIN

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def sign_in(client: TestClient, pin: str = PIN) -> dict[str, str]:
    """Sign the client in as the operator; the header its changes must carry."""
    done = client.post("/api/session", json={"pin": pin})
    assert done.status_code == 200, done.text
    return {CSRF_HEADER: done.json()["csrf"]}


@pytest.fixture
def operator(client: TestClient) -> dict[str, str]:
    return sign_in(client)


def start(client: TestClient, operator: dict[str, str], players: list[str]) -> None:
    done = client.post("/api/game", json={"game": "ten-pins", "players": players},
                       headers=operator)
    assert done.status_code == 200, done.text


def test_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/table.js" in page.text
    assert client.get("/static/table.js").status_code == 200
    assert client.get("/static/table.css").status_code == 200
    for script in ("dice.js", "cards.js", "billiards.js"):
        assert f"/static/{script}" in page.text
        assert client.get(f"/static/{script}").status_code == 200


def test_operator_runs_a_game_and_spectators_watch_it_live(
        client: TestClient, table: Table, operator: dict[str, str]) -> None:
    with client.websocket_connect("/ws") as socket:
        assert socket.receive_json()["game"] is None
        start(client, operator, ["Ann", "Bob"])
        view = socket.receive_json()
        assert view["game"]["up"]["player"] == "Ann"

        asyncio.run(table.reading({"type": "ball", "player": "Ann", "standing": []}, "sensor"))
        view = socket.receive_json()
        assert view["game"]["sheet"][0]["frames"][0]["balls"] == ["X"]
        assert view["game"]["rulings"][-1]["kind"] == "strike"

        done = client.post("/api/dead-ball", json={"player": "Ann"}, headers=operator)
        assert done.status_code == 200
        assert done.json()["rulings"][0]["law"]["lines"] == "4113-4128"
        view = socket.receive_json()
        assert view["game"]["sheet"][0]["frames"][0]["balls"] == []


def test_abandoning_with_no_game_in_progress_is_refused(
        client: TestClient, table: Table, operator: dict[str, str]) -> None:
    before = table.log.last_seq()
    refused = client.post("/api/abandon", json={"reason": "x"}, headers=operator)
    assert refused.status_code == 409 and "no game in progress" in refused.json()["detail"]
    assert table.log.last_seq() == before
    start(client, operator, ["Ann"])
    done = client.post("/api/abandon", json={"reason": "the lane broke"}, headers=operator)
    assert done.status_code == 200, done.text
    assert client.get("/api/view").json()["game"] is None


def test_illegal_and_malformed_changes_are_refused_with_reasons(
        client: TestClient, table: Table, operator: dict[str, str]) -> None:
    start(client, operator, ["Ann"])
    before = table.log.last_seq()
    refused = client.post("/api/dead-ball", json={"player": "Ann"}, headers=operator)
    assert refused.status_code == 409 and "no ball to declare dead" in refused.json()["detail"]
    assert client.post("/api/game", json={"game": "ten-pins", "players": []},
                       headers=operator).status_code == 422
    assert client.post("/api/game", json={"game": "skittles", "players": ["Ann"]},
                       headers=operator).status_code == 409
    assert client.post("/api/game", json={"game": "ten-pins", "players": ["Ann"],
                                          "options": {"speed": 3}},
                       headers=operator).status_code == 409
    assert client.post("/api/flags/99/resolve", json={"void": True, "reason": "x"},
                       headers=operator).status_code == 404
    assert table.log.last_seq() == before


def test_operator_resolves_a_flagged_reading(client: TestClient, table: Table,
                                             operator: dict[str, str]) -> None:
    start(client, operator, ["Ann"])

    async def readings() -> None:
        await table.reading({"type": "ball", "player": "Ann", "standing": [7, 10]}, "sensor")
        await table.reading({"type": "ball", "player": "Ann", "standing": [6, 7]}, "sensor")

    asyncio.run(readings())
    view = client.get("/api/view").json()
    assert view["status"] == "paused"
    seq = view["flags"][0]["seq"]
    done = client.post(f"/api/flags/{seq}/resolve",
                       json={"standing": [7], "reason": "pin 6 switch stuck"},
                       headers=operator)
    assert done.status_code == 200, done.text
    view = client.get("/api/view").json()
    assert view["status"] == "running" and view["flags"] == []
    assert view["game"]["sheet"][0]["frames"][0]["total"] == 9
    history = client.get("/api/history").json()
    assert [h["kind"] for h in history] == ["start", "event", "flag", "resolve"]
    assert history[-1]["body"]["reason"] == "pin 6 switch stuck"
    assert history[-1]["source"] == "operator"


def test_a_correction_is_kept_with_who_and_why_and_the_history_shows_it(
        client: TestClient, table: Table, operator: dict[str, str]) -> None:
    start(client, operator, ["Ann"])
    asyncio.run(table.reading({"type": "ball", "player": "Ann", "standing": [10]}, "sensor"))
    ball = table.log.last_seq()
    done = client.post("/api/corrections", headers=operator, json={
        "target": ball, "event": {"type": "ball", "player": "Ann", "standing": []},
        "reason": "pin 10 fell late"})
    assert done.status_code == 200, done.text
    assert client.get("/api/view").json()["game"]["sheet"][0]["frames"][0]["balls"] == ["X"]
    history = client.get("/api/history").json()
    assert [h["kind"] for h in history] == ["start", "event", "correct"]
    assert history[1]["body"]["event"]["standing"] == [10], "the first reading is kept"
    assert history[2]["source"] == "operator"
    assert history[2]["body"]["reason"] == "pin 10 fell late"
    assert "strike" in [r["kind"] for r in history[2]["rulings"]]
    assert [h["seq"] for h in client.get(f"/api/history?after={ball}").json()] == [ball + 1]


def test_a_ruling_opens_with_its_law_and_the_events_that_led_to_it(
        client: TestClient, table: Table, operator: dict[str, str]) -> None:
    start(client, operator, ["Ann"])
    asyncio.run(table.reading({"type": "ball", "player": "Ann", "standing": []}, "sensor"))
    seq = table.log.last_seq()
    detail = client.get(f"/api/rulings/{seq}").json()
    assert detail["game"] == "ten-pins" and detail["entry"]["seq"] == seq
    strike = next(r for r in detail["rulings"] if r["kind"] == "strike")
    assert strike["law"]["book"] and strike["law"]["lines"] and strike["law"]["title"]
    assert [e["kind"] for e in detail["events"]] == ["start"]
    assert client.get(f"/api/rulings/{seq - 1}").status_code == 404, "a start rules nothing"
    assert client.get(f"/api/rulings/{seq + 1}").status_code == 404
    assert client.get("/api/rulings/0").status_code == 422


def test_a_rulings_law_quotes_the_seed_book_when_it_is_at_hand(table: Table,
                                                               tmp_path: Path) -> None:
    asyncio.run(table.record("start", "operator", {"game": "ten-pins", "players": ["Ann"]}))
    change = asyncio.run(table.reading({"type": "ball", "player": "Ann", "standing": []},
                                       "sensor"))
    law = next(r.law for r in change.rulings if r.kind == "strike")
    book = tmp_path / "seeds" / law.book
    book.parent.mkdir()
    first, last = law.lines
    book.write_text("".join(f"line {n} of the book\n" for n in range(1, last + 2)))
    with TestClient(create_app(table, PIN, seeds=book.parent)) as client:
        detail = client.get(f"/api/rulings/{change.seq}").json()
    strike = next(r for r in detail["rulings"] if r["kind"] == "strike")
    assert strike["law"]["text"].startswith(f"line {first} of the book")
    assert strike["law"]["text"].endswith(f"line {last} of the book")


@pytest.mark.parametrize(("config", "kind", "served", "other", "words"), [
    ("lane.toml", "lane", "ten-pins", "craps-bank", ("a dice table", "a bowling lane")),
    ("cards.toml", "cards", "baccara", "ten-pins", ("a bowling lane", "a card table")),
])
def test_a_table_offers_and_starts_only_its_own_kinds_games(
        tmp_path: Path, client: TestClient, config: str, kind: str, served: str, other: str,
        words: tuple[str, str]) -> None:
    every = {game["id"] for game in client.get("/api/games").json()}
    assert {served, other} <= every, "a table of no kind (the tests') offers every game"
    service = build(dataclasses.replace(load_config(EXAMPLES / config), data_dir=tmp_path,
                                        operator_pin=PIN))
    try:
        client = TestClient(service.app)
        offered = [game["id"] for game in client.get("/api/games").json()]
        assert served in offered and other not in offered
        assert {kind_of_game(game) for game in offered} == {kind}
        before = service.table.log.last_seq()
        refused = client.post("/api/game", json={"game": other, "players": ["Ann"]},
                              headers={PIN_HEADER: PIN})
        assert refused.status_code == 409
        assert other in refused.json()["detail"]
        assert all(word in refused.json()["detail"] for word in words)
        assert service.table.log.last_seq() == before
        assert client.get("/api/view").json()["game"] is None
        audit = client.get("/api/dice/audit")
        assert audit.status_code == 409, "a table that throws no dice has none to audit"
        assert "not a dice table" in audit.json()["detail"]
    finally:
        service.table.log.close()


def test_no_page_needs_the_internet_and_the_api_describes_itself(
        client: TestClient, tmp_path: Path) -> None:
    club = create_club_app(ClubView(MqttConfig("127.0.0.1", "riverside"),
                                    SqliteClubStore(tmp_path / "club")))
    for app in (client, TestClient(club)):
        for page in ("/docs", "/redoc"):
            assert app.get(page).status_code == 404, page
        assert app.get("/openapi.json").json()["paths"]
    assert "/api/game" in client.get("/openapi.json").json()["paths"]
