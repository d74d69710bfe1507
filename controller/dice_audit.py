"""The dice audit of a table: every throw the log kept, per game session and per die.

A session is one game, from its `start` entry to the next. A throw of two dice is one
throw and two faces: each report gives both, `throws` and `faces_seen` (each die's report
counts the throws it was in, one face each). The throws counted are those
the game was finally ruled on: a throw voided by a rethrow or by a correction is not
counted, a throw the operator confirmed or corrected counts as confirmed. "Die 1" is the
first die of each recorded throw (at a camera table, the leftmost); dice the club tells
apart (a red and a white) are recorded in a fixed order so each keeps its number.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.eventlog import SqliteEventLog
from controller.fold import GameRecord, TableState
from engine.core import JSON
from engine.dice.fairness import FAIR_DICE, face_report
from engine.registry import get_game


@dataclass(frozen=True, slots=True)
class Session:
    """One game's throws, as finally ruled."""

    game_id: str
    start_seq: int
    throws: tuple[tuple[int, ...], ...]


def sessions(event_log: SqliteEventLog) -> list[Session]:
    """Every dice game the log holds, oldest first, with the throws it was ruled on."""
    return dice_sessions(games(event_log))


def games(event_log: SqliteEventLog) -> list[GameRecord]:
    """Every game the log holds, of any family, oldest first, as it was finally ruled."""
    state = TableState()
    found: list[GameRecord] = []
    for entry in event_log.entries():
        before = state.game
        state.apply(entry.seq, entry.kind, entry.source, entry.body)
        if before is not None and state.game is not before:
            found.append(before)
    if state.game is not None:
        found.append(state.game)
    return found


def dice_sessions(played: Sequence[GameRecord]) -> list[Session]:
    """The dice games of `played`, each with the throws it was ruled on."""
    return [Session(game.game_id, game.start_seq, tuple(_ruled_throws(game.events)))
            for game in played if get_game(game.game_id).family == "dice"]


def _ruled_throws(events: Sequence[tuple[int, Mapping[str, Any]]]) -> Iterator[tuple[int, ...]]:
    kept: list[tuple[int, ...]] = []
    last_was_throw = False
    for _, event in events:
        if event.get("type") == "throw":
            kept.append(tuple(int(face) for face in event["dice"]))
            last_was_throw = True
        elif event.get("type") == "rethrow" and last_was_throw:
            kept.pop()
            last_was_throw = False
        else:
            last_was_throw = False
    yield from kept


def audit(found: Sequence[Session], table_id: str) -> JSON:
    """Face counts and the chi-square test, per session and per die, and over all sessions."""
    return {"table": table_id, "law": FAIR_DICE.to_json(),
            "sessions": [{"game": s.game_id, "start_seq": s.start_seq, **_by_die(s.throws)}
                         for s in found],
            "all": _by_die([t for s in found for t in s.throws])}


def _by_die(throws: Sequence[tuple[int, ...]]) -> JSON:
    """The throws' and faces' counts, and the faces' report of all dice and of each die."""
    dice = max((len(t) for t in throws), default=0)
    per_die = {}
    for n in range(dice):
        faces = [t[n] for t in throws if len(t) > n]
        per_die[f"die {n + 1}"] = {"throws": len(faces), **face_report(faces).to_json()}
    every = [f for t in throws for f in t]
    return {"throws": len(throws), "faces_seen": len(every),
            "faces": {"throws": len(throws), **face_report(every).to_json()}, "dice": per_die}
