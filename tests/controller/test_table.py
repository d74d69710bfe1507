"""The table service: log first, fold, flags, corrections, recovery and replay."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.errors import Rejected
from controller.eventlog import SqliteEventLog
from controller.table import Table, replay_entries
from engine.core import JSON


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(SqliteEventLog(tmp_path / "lane.db"), "lane-1", snapshot_every=25)
    table.recover()
    yield table
    table.log.close()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def ball(player: str, standing: list[int], foul: bool = False) -> JSON:
    return {"type": "ball", "player": player, "standing": standing, "foul": foul}


def play_random(table: Table, balls: int, seed: int) -> None:
    """Bowl random legal balls (and an occasional dead ball) as the sensors would."""
    rng = random.Random(seed)

    async def go() -> None:
        await table.record("start", "test", {"game": "ten-pins", "players": ["Ann", "Bob"]})
        for _ in range(balls):
            game = table.view()["game"]
            if game["over"]:
                await table.record("start", "test", {"game": "ten-pins",
                                                     "players": ["Ann", "Bob"]})
                continue
            up = game["up"]
            standing = [p for p in up["standing"] if rng.random() < 0.3]
            await table.reading(ball(up["player"], standing, rng.random() < 0.05), "sensor")
            if rng.random() < 0.03:
                await table.record("event", "operator", {"event": {
                    "type": "dead_ball", "player": up["player"]}})

    run(go())


def test_book_example_is_scored_live(table: Table) -> None:
    async def go() -> None:
        await table.record("start", "test", {"game": "ten-pins", "players": ["Jones"]})
        for standing in ([], [1], [], [1, 2, 3], [1, 2], []):
            await table.reading(ball("Jones", standing), "sensor")

    run(go())
    sheet = table.view()["game"]["sheet"][0]
    assert [f["total"] for f in sheet["frames"][:3]] == [20, 37, 45]


def test_every_entry_is_in_the_log_before_it_is_ruled(table: Table) -> None:
    seen: list[int] = []

    def check(change: Any) -> None:
        seen.append(table.log.get(change.seq).seq)

    table.bus.subscribe("check", check)
    play_random(table, 30, seed=3)
    assert seen == list(range(1, table.log.last_seq() + 1))


def test_recovery_from_snapshot_equals_replay_from_first_entry(tmp_path: Path) -> None:
    path = tmp_path / "lane.db"
    first = Table(SqliteEventLog(path), "lane-1", snapshot_every=25)
    first.recover()
    play_random(first, 300, seed=7)
    live = first.view()
    first.log.close()

    again = Table(SqliteEventLog(path), "lane-1", snapshot_every=25)
    recovery = again.recover()
    assert recovery.snapshot_seq > 0, "start-up should begin from a snapshot"
    assert recovery.replayed < 25
    assert again.view() == live

    state = None
    for entry, _ in replay_entries(again.log):
        state = entry.seq
    assert state == live["seq"]
    from controller.fold import TableState

    scratch = TableState()
    for entry in again.log.entries():
        scratch.apply(entry.seq, entry.kind, entry.source, entry.body)
    assert scratch.view("lane-1") == {k: v for k, v in live.items() if k != "kind"}
    again.log.close()


def test_impossible_reading_is_flagged_and_the_table_keeps_running(table: Table) -> None:
    async def go() -> None:
        await table.record("start", "test", {"game": "ten-pins", "players": ["Ann"]})
        await table.reading(ball("Ann", [7, 10]), "sensor")
        await table.reading(ball("Ann", [5, 7]), "sensor")  # pin 5 was already down

    run(go())
    view = table.view()
    assert view["status"] == "paused"
    [flag] = view["flags"]
    assert "pin 5 reported standing but it was already down in frame 1" in flag["what"]
    assert view["game"]["up"] == {"player": "Ann", "frame": 1, "ball": 2, "standing": [7, 10]}

    async def settle() -> None:
        # A later reading waits for the operator too, rather than guessing.
        await table.reading(ball("Ann", [7]), "sensor")
        assert len(table.view()["flags"]) == 2
        first, second = (f["seq"] for f in table.view()["flags"])
        await table.record("resolve", "operator", {"flag": first, "event": ball("Ann", [7]),
                                                   "reason": "pin 5 switch stuck"})
        await table.record("resolve", "operator", {"flag": second, "event": None,
                                                   "reason": "same ball read twice"})

    run(settle())
    view = table.view()
    assert view["status"] == "running"
    assert view["game"]["sheet"][0]["frames"][0] == {"balls": ["8", "1"], "score": 9,
                                                      "total": 9}
    kinds = [e.kind for e in table.log.entries()]
    assert kinds == ["start", "event", "flag", "flag", "resolve", "resolve"]


def test_rejected_change_leaves_the_log_untouched(table: Table) -> None:
    async def go() -> None:
        await table.record("start", "test", {"game": "ten-pins", "players": ["Ann", "Bob"]})
        await table.record("event", "sensor", {"event": ball("Ann", [1])})
        before = table.log.last_seq()
        bad: list[tuple[str, dict[str, Any]]] = [
            ("event", {"event": ball("Ann", [2])}),  # pin 2 is already down
            ("event", {"event": ball("Bob", [])}),  # out of turn
            ("event", {"event": ball("Ann", [1, 11])}),
            ("event", {"event": {"type": "throw", "player": "Ann"}}),
            ("start", {"game": "no-such-game", "players": ["Ann"]}),
            ("correct", {"target": 999, "event": None, "reason": "x"}),
            ("resolve", {"flag": 1, "event": None, "reason": "x"}),
            ("bogus", {}),
        ]
        refused = 0
        for kind, body in bad:
            try:
                await table.record(kind, "operator", body)
            except Rejected:
                refused += 1
        assert table.log.last_seq() == before
        assert refused == len(bad)

    run(go())


def test_correction_replaces_an_event_and_keeps_both_in_the_log(table: Table) -> None:
    async def go() -> None:
        await table.record("start", "test", {"game": "ten-pins", "players": ["Ann"]})
        first = await table.reading(ball("Ann", [7, 10]), "sensor")
        await table.reading(ball("Ann", [7]), "sensor")
        await table.record("correct", "operator", {
            "target": first.seq, "event": ball("Ann", [7, 9, 10]),
            "reason": "pin 9 was standing; its switch is slow"})

    run(go())
    frame = table.view()["game"]["sheet"][0]["frames"][0]
    assert frame == {"balls": ["7", "2"], "score": 9, "total": 9}
    entries = list(table.log.entries())
    assert [e.kind for e in entries] == ["start", "event", "event", "correct"]
    assert entries[1].body["event"]["standing"] == [7, 10], "the original read is kept"


def test_history_gives_every_ruling_with_its_law(table: Table) -> None:
    async def go() -> None:
        await table.record("start", "test", {"game": "ten-pins", "players": ["Ann"]})
        await table.reading(ball("Ann", [1, 2], foul=True), "sensor")
        await table.record("event", "operator", {"event": {"type": "dead_ball",
                                                           "player": "Ann"}})

    run(go())
    history = table.history()
    assert [h["kind"] for h in history] == ["start", "event", "event"]
    foul = history[1]["rulings"][0]
    assert foul["kind"] == "foul"
    assert foul["law"]["lines"] == "4081-4095"
    dead = history[2]["rulings"][0]
    assert dead["kind"] == "dead-ball" and dead["law"]["lines"] == "4113-4128"
