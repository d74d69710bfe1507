"""The private numbers (Kelly rotation's small balls): a spectator never learns one while the
game is in play, unless the game makes it known (a player killed); the operator always
does; everyone does once the game is over; the log keeps every number."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.config import load_config
from controller.service import Service, build
from drivers.scoreboards.picture import board_text
from tests.controller import helpers
from tests.controller.helpers import OPERATOR, PIN

#: Ann's small ball, and Bob's.
ANN, BOB = 13, 2


@pytest.fixture
def kelly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Service, Path]]:
    """A cue table on mock pocket switches (no simulated play), and its log file."""
    monkeypatch.setenv("HOYLE_BACKEND", "fake")
    config = load_config(helpers.write_config(
        tmp_path / "pool.toml", 'id = "pool-9"\ngame = "kelly-rotation"',
        '[pockets]\nsource = "gpio"\nball_reader = false\n[scoreboard]\nkind = "none"\n'))
    yield build(config), config.log_path


def send(client: TestClient, event: dict[str, Any]) -> int:
    response = client.post("/api/events", json={"event": event}, headers=OPERATOR)
    assert response.status_code == 200, response.text
    seq: int = response.json()["seq"]
    return seq


def begin(client: TestClient) -> tuple[int, int]:
    """A game of Kelly rotation, each player's small ball drawn: the two draws' seqs."""
    client.post("/api/game", json={"game": "kelly-rotation", "players": ["Ann", "Bob"]},
                headers=OPERATOR).raise_for_status()
    return (send(client, {"type": "private", "player": "Ann", "number": ANN}),
            send(client, {"type": "private", "player": "Bob", "number": BOB}))


def entry(entries: list[dict[str, Any]], seq: int) -> dict[str, Any]:
    return next(e for e in entries if e["seq"] == seq)


def draw_text(record: dict[str, Any]) -> str:
    """The JSON text of what a private draw's entry says: its body and its rulings."""
    return json.dumps([record["body"], record["rulings"]])


def says_number(text: str, number: int) -> bool:
    return re.search(rf"\b{number}\b", text) is not None


def numbers_in(value: Any, number: int) -> list[str]:
    """Where a JSON value holds `number`: as a number, or in a text (a ball named by its
    number alone, "13", is the ball on the table, not a small ball)."""
    found: list[str] = []

    def walk(item: Any, where: str) -> None:
        if isinstance(item, dict):
            for key, child in item.items():
                walk(child, f"{where}.{key}")
        elif isinstance(item, list):
            for index, child in enumerate(item):
                walk(child, f"{where}[{index}]")
        elif (isinstance(item, int) and not isinstance(item, bool) and item == number) or (
                isinstance(item, str) and item != str(number) and says_number(item, number)):
            found.append(where)

    walk(value, "view")
    return found


def test_a_spectator_learns_no_small_ball_until_the_game_tells_it(
        kelly: tuple[Service, Path]) -> None:
    built, log_path = kelly
    with TestClient(built.app) as client:
        ann_draw, bob_draw = begin(client)
        with client.websocket_connect("/ws") as socket:
            pushed = socket.receive_json()

        # A spectator: who drew, never what.
        public = client.get("/api/history").json()
        for seq, player, number in ((ann_draw, "Ann", ANN), (bob_draw, "Bob", BOB)):
            drawn = entry(public, seq)
            assert drawn["body"] == {"event": {"type": "private", "player": player,
                                               "hidden": True}}
            assert not says_number(draw_text(drawn), number)
        view = client.get("/api/view").json()
        assert view["game"]["private_drawn"] == ["Ann", "Bob"]
        assert view["game"]["private_numbers"] == {}
        for shown in (view, pushed):
            assert numbers_in(shown, ANN) == []
        assert not says_number(board_text(view, lambda line: len(line) <= 64), ANN)

        # The operator, by the PIN header or signed in: every number.
        mine = client.get("/api/history", headers=OPERATOR)
        assert mine.headers["cache-control"] == "no-store"
        assert entry(mine.json(), ann_draw)["body"]["event"] == {
            "type": "private", "player": "Ann", "number": ANN}
        assert client.get("/api/view", headers=OPERATOR).json()["game"]["private_numbers"] == {
            "Ann": ANN, "Bob": BOB}
        assert client.get("/api/history", headers={"X-Operator-Pin": "0000"}).status_code == 401
        client.post("/api/session", json={"pin": PIN}).raise_for_status()
        signed_in = client.get("/api/history").json()
        assert entry(signed_in, ann_draw)["body"]["event"]["number"] == ANN
        csrf = client.get("/api/session").json()["csrf"]
        client.post("/api/session/end", headers={"X-CSRF-Token": csrf}).raise_for_status()
        assert "number" not in entry(client.get("/api/history").json(), ann_draw)["body"]["event"]

        # Ann pockets the 1 and the 2: Bob holds the 2, declares himself dead and surrenders
        # it, so his number is known to all; Ann's is not.
        send(client, {"type": "pocket", "ball": 1, "pocket": "foot-left"})
        send(client, {"type": "pocket", "ball": BOB, "pocket": "foot-left"})
        killed = send(client, {"type": "stroke", "path": ["1"]})
        public = client.get("/api/history").json()
        assert entry(public, bob_draw)["body"]["event"]["number"] == BOB
        assert not says_number(draw_text(entry(public, ann_draw)), ANN)
        assert client.get("/api/view").json()["game"]["private_numbers"] == {"Bob": BOB}
        detail = client.get(f"/api/rulings/{killed}").json()
        assert [e["body"]["event"] for e in detail["events"] if e["seq"] == ann_draw] == [
            {"type": "private", "player": "Ann", "hidden": True}]
        assert not says_number(draw_text(entry(detail["events"], ann_draw)), ANN)
        mine = client.get(f"/api/rulings/{killed}", headers=OPERATOR).json()
        assert entry(mine["events"], ann_draw)["body"]["event"]["number"] == ANN

        # Ann pockets her own number and wins: the game is over, every number is shown.
        send(client, {"type": "pocket", "ball": ANN, "pocket": "foot-right"})
        won = send(client, {"type": "stroke", "path": ["3"]})
        view = client.get("/api/view").json()
        assert view["game"]["winners"] == ["Ann"]
        assert view["game"]["private_numbers"] == {"Ann": ANN, "Bob": BOB}
        public = client.get("/api/history").json()
        assert entry(public, ann_draw)["body"]["event"] == {
            "type": "private", "player": "Ann", "number": ANN}
        assert entry(client.get(f"/api/rulings/{won}").json()["events"],
                     ann_draw)["body"]["event"]["number"] == ANN

    # The log file keeps every number drawn, whoever was shown it.
    with sqlite3.connect(log_path) as db:
        bodies = [json.loads(body) for (body,) in db.execute(
            "SELECT body FROM events WHERE seq IN (?, ?) ORDER BY seq", (ann_draw, bob_draw))]
    assert bodies == [{"event": {"type": "private", "player": "Ann", "number": ANN}},
                      {"event": {"type": "private", "player": "Bob", "number": BOB}}]


def test_a_correction_of_a_draw_is_hidden_and_a_game_given_up_shows_its_numbers(
        kelly: tuple[Service, Path]) -> None:
    built, _ = kelly
    with TestClient(built.app) as client:
        ann_draw, _ = begin(client)
        fixed = client.post("/api/corrections", headers=OPERATOR, json={
            "target": ann_draw, "event": {"type": "private", "player": "Ann", "number": 9},
            "reason": "the referee misread the small ball"})
        assert fixed.status_code == 200, fixed.text
        send(client, {"type": "pocket", "ball": 1, "pocket": "foot-left"})
        stroke = send(client, {"type": "stroke", "path": ["1"]})
        correction = entry(client.get("/api/history").json(), fixed.json()["seq"])
        assert correction["body"]["event"] == {"type": "private", "player": "Ann",
                                               "hidden": True}
        assert correction["body"]["reason"] == "the referee misread the small ball"
        assert not says_number(draw_text(correction), 9)

        # A new game ends this one: its numbers are no secret any more.
        begin(client)
        detail = client.get(f"/api/rulings/{stroke}").json()
        assert entry(detail["events"], fixed.json()["seq"])["body"]["event"]["number"] == 9
