"""The dice audit: face counts and the chi-square test, from what a table's log kept."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.dice_audit import audit, sessions
from controller.eventlog import SqliteEventLog
from controller.table import Table
from engine.dice.fairness import chi_square_survival, face_report


@pytest.mark.parametrize("statistic, p", [(0.0, 1.0), (4.3515, 0.5), (11.0705, 0.05),
                                          (15.0863, 0.01), (20.515, 0.001)])
def test_the_chi_square_tail_matches_the_tables(statistic: float, p: float) -> None:
    assert chi_square_survival(statistic) == pytest.approx(p, abs=5e-5)


def test_a_die_loaded_to_double_fives_is_suspect() -> None:
    # 700 throws of a die with two fives: the five comes up about twice as often.
    report = face_report([1] * 100 + [2] * 100 + [3] * 100 + [4] * 100 + [5] * 200 + [6] * 100)
    assert report.p_value < 1e-6
    assert report.verdict.startswith("suspect")
    assert "the 5 came up 200 times in 700" in report.verdict


def test_a_die_near_one_in_six_is_consistent_with_fair() -> None:
    report = face_report([1] * 98 + [2] * 103 + [3] * 101 + [4] * 95 + [5] * 104 + [6] * 99)
    assert report.p_value > 0.5
    assert report.verdict.startswith("consistent with a fair die")


def test_too_few_faces_are_not_judged() -> None:
    assert face_report([6] * 12).verdict.startswith("too few faces seen to judge (12;")


def test_a_face_that_cannot_be_is_refused() -> None:
    with pytest.raises(ValueError, match="not 7"):
        face_report([1, 7])


def _record_sessions(path: Path) -> None:
    async def play() -> None:
        table = Table(SqliteEventLog(path), "dice-1")
        table.recover()
        await table.record("start", "operator", {"game": "craps-bank",
                                                 "players": ["Ann", "Bob"]})
        for dice in ([3, 4], [2, 2], [6, 6]):
            await table.record("event", "camera", {"event": {"type": "throw", "dice": dice}})
        # The last throw was foul: the referee voids it.
        await table.record("event", "referee", {"event": {"type": "rethrow",
                                                          "reason": "off-table"}})
        change = await table.record("event", "camera",
                                    {"event": {"type": "throw", "dice": [5, 1]}})
        # The operator corrects a misread: 5-1 was really 5-5.
        await table.record("correct", "operator", {"target": change.seq, "reason": "misread",
                                                   "event": {"type": "throw", "dice": [5, 5]}})
        await table.record("start", "operator", {"game": "ten-pins", "players": ["Bob"]})
        await table.record("start", "operator", {"game": "craps-private", "players": ["Ann",
                                                                                       "Bob"]})
        await table.record("event", "camera", {"event": {"type": "throw", "dice": [1, 2]}})
        table.log.close()
    asyncio.run(play())


def test_sessions_count_the_throws_as_finally_ruled(tmp_path: Path) -> None:
    path = tmp_path / "dice-1.db"
    _record_sessions(path)
    with SqliteEventLog(path) as event_log:
        found = sessions(event_log)
    assert [(s.game_id, s.throws) for s in found] == [
        ("craps-bank", ((3, 4), (2, 2), (5, 5))),
        ("craps-private", ((1, 2),)),
    ]
    report = audit(found, "dice-1")
    assert report["all"]["throws"] == 4
    assert report["all"]["faces_seen"] == 8
    assert report["all"]["faces"]["counts"] == {"1": 1, "2": 3, "3": 1, "4": 1, "5": 2, "6": 0}
    assert report["sessions"][0]["dice"]["die 1"]["counts"]["5"] == 1
    assert report["sessions"][0]["dice"]["die 2"]["counts"]["5"] == 1
    assert report["law"]["lines"] == "10135-10163"


def test_hoyle_dice_audit_prints_it(tmp_path: Path) -> None:
    path = tmp_path / "dice-1.db"
    _record_sessions(path)
    run = subprocess.run([sys.executable, "-m", "controller.cli", "dice", "audit", "--log",
                          str(path), "--json"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["all"]["throws"] == 4
    text = subprocess.run([sys.executable, "-m", "controller.cli", "dice", "audit", "--log",
                           str(path)], capture_output=True, text=True, check=True).stdout
    assert "session at entry 1 (craps-bank): 3 throws, 6 faces" in text
    assert "session at entry 9 (craps-private): 1 throw, 2 faces" in text
    assert "all sessions: 4 throws, 8 faces" in text
    assert "too few faces seen to judge (8; the test needs 30)" in text


def test_a_throw_of_two_dice_is_one_throw_and_two_faces(tmp_path: Path) -> None:
    """The croupier checks the audit against the throws he saw: three throws of two dice
    (one voided, one corrected) are three throws, six faces; each die was in three."""
    path = tmp_path / "dice-1.db"
    _record_sessions(path)
    with SqliteEventLog(path) as event_log:
        session = audit(sessions(event_log), "dice-1")["sessions"][0]
    assert (session["throws"], session["faces_seen"]) == (3, 6)
    assert (session["faces"]["throws"], session["faces"]["faces_seen"]) == (3, 6)
    for die in ("die 1", "die 2"):
        assert (session["dice"][die]["throws"], session["dice"][die]["faces_seen"]) == (3, 3)


def test_hoyle_dice_audit_refuses_a_lane_log_naming_its_games(tmp_path: Path) -> None:
    path = tmp_path / "lane-1.db"

    async def bowl() -> None:
        table = Table(SqliteEventLog(path), "lane-1")
        table.recover()
        await table.record("start", "operator", {"game": "ten-pins", "players": ["Ann"]})
        await table.reading({"type": "ball", "player": "Ann", "standing": [7, 10]}, "lane")
        table.log.close()
    asyncio.run(bowl())
    run = subprocess.run([sys.executable, "-m", "controller.cli", "dice", "audit", "--log",
                          str(path)], capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert run.stdout == ""
    assert f"{path}: not a dice table's log" in run.stderr
    assert "ten-pins" in run.stderr


def test_hoyle_dice_audit_names_a_missing_log(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "controller.cli", "dice", "audit", "--log",
                          str(tmp_path / "nowhere.db")], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 2
    assert "no log at" in run.stderr
