"""Replay time of a lane's log: a million entries of simulated ten-pin games.

Prints one JSON line per figure:
- replay of the table's state from the log's first entry (every entry read and folded;
  the current game's balls ruled; a game replaced by a later one is not ruled again);
- replay with every ruling of every ball of every game (what `hoyle replay --history`
  and a dispute over an old game use);
- start-up after a crash (newest snapshot plus the entries after it).

Usage: .venv/bin/python bench/replay.py [--events 1000000]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.eventlog import SqliteEventLog
from controller.fold import TableState
from controller.table import SNAPSHOT_EVERY, Table, replay_entries, replay_state
from engine.registry import get_game

PLAYERS = ["Ann", "Bob", "Cy", "Di"]
BATCH = 20_000


Entry = tuple[str, str, dict[str, Any]]


def simulated_entries(count: int, seed: int) -> Iterator[Entry]:
    """Legal log entries: four-player ten-pin games back to back, with fouls and dead balls."""
    rng = random.Random(seed)
    game = get_game("ten-pins")
    state = None
    for _ in range(count):
        if state is None or state.outcome() is not None:
            state = game.new_state(PLAYERS)
            yield ("start", "bench", {"game": "ten-pins", "players": PLAYERS})
            continue
        up = state.snapshot()["up"]
        if rng.random() < 0.01 and state.history and state.dead_ball_allowed:  # type: ignore[attr-defined]
            event: dict[str, Any] = {"type": "dead_ball",
                                     "player": state.history[-1].player}  # type: ignore[attr-defined]
        else:
            standing = [p for p in up["standing"] if rng.random() < 0.25]
            event = {"type": "ball", "player": up["player"], "standing": standing,
                     "foul": rng.random() < 0.02}
        state.apply(state.parse_event(event))
        yield ("event", "sensor:lane", {"event": event})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lane.db"
        log = SqliteEventLog(path)
        batch: list[Entry] = []
        for simulated in simulated_entries(args.events, seed=1):
            batch.append(simulated)
            if len(batch) == BATCH:
                log.append_many(batch)
                batch = []
        if batch:
            log.append_many(batch)
        state = TableState()
        for entry in log.entries():
            state.apply(entry.seq, entry.kind, entry.source, entry.body)
            if entry.seq % SNAPSHOT_EVERY == 0:
                log.save_snapshot(entry.seq, state.save())
        log.close()

        log = SqliteEventLog(path)
        began = time.perf_counter()
        replayed = replay_state(log)
        full = time.perf_counter() - began
        print(json.dumps({"what": "replay_state_from_first_entry", "value": round(full, 3),
                          "unit": "s", "events": args.events,
                          "events_per_s": round(args.events / full),
                          "how": "read and fold every entry of a SQLite WAL log of 4-player "
                                 "ten-pin games; the current game's balls ruled"}))
        began = time.perf_counter()
        rulings = sum(len(r) for _, r in replay_entries(log))
        every = time.perf_counter() - began
        print(json.dumps({"what": "replay_every_ruling_from_first_entry",
                          "value": round(every, 3), "unit": "s", "events": args.events,
                          "rulings": rulings, "events_per_s": round(args.events / every)}))

        table = Table(log, "bench")
        began = time.perf_counter()
        recovery = table.recover()
        startup = time.perf_counter() - began
        assert table.state.view("bench") == replayed.view("bench"), (
            "snapshot start-up differs from replay")
        print(json.dumps({"what": "startup_after_crash", "value": round(startup * 1000, 2),
                          "unit": "ms", "events": args.events,
                          "replayed_after_snapshot": recovery.replayed,
                          "snapshot_every": SNAPSHOT_EVERY}))
        log.close()


if __name__ == "__main__":
    main()
