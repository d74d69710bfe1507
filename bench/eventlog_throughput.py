"""Benchmark of the table's event log: durable appends per second and replay read speed.

Prints one JSON line per figure. Run from the repository root:

    .venv/bin/python bench/eventlog_throughput.py [--events N] [--serial N] [--read N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from controller.eventlog import SqliteEventLog

PRODUCER_THREADS = 64
ASYNC_IN_FLIGHT = 1000
WRITE_BATCH = 10_000


def _body(i: int) -> dict[str, Any]:
    """A bowling-lane sized event body."""
    return {"type": "roll", "lane": 1, "player": "alice", "frame": 1 + i % 10, "pins": i % 11}


def _emit(what: str, value: float, unit: str, how: str, **extra: Any) -> None:
    line = {
        "what": what,
        "value": round(value, 3),
        "unit": unit,
        "how": how,
        "synchronous": "FULL",
        "journal_mode": "WAL",
        "cpus": os.cpu_count(),
        "sqlite": sqlite3.sqlite_version,
        **extra,
    }
    print(json.dumps(line), flush=True)


def bench_threads(folder: Path, events: int) -> None:
    """Many threads appending at once: their appends share commits (group commit)."""
    per_thread = events // PRODUCER_THREADS
    start_gate = threading.Barrier(PRODUCER_THREADS + 1)

    def produce(log: SqliteEventLog, index: int) -> None:
        start_gate.wait()
        for i in range(per_thread):
            log.append("event", f"sensor:{index}", _body(i))

    with SqliteEventLog(folder / "threads.db") as log:
        workers = [threading.Thread(target=produce, args=(log, n)) for n in range(PRODUCER_THREADS)]
        for worker in workers:
            worker.start()
        start_gate.wait()
        began = time.perf_counter()
        for worker in workers:
            worker.join()
        elapsed = time.perf_counter() - began
        total = log.last_seq()
    _emit(
        "eventlog_durable_events_per_s",
        total / elapsed,
        "events/s",
        f"{PRODUCER_THREADS} producer threads each calling append() in a loop, "
        f"{total} events; each append returns only after its commit",
        events=total,
    )


def bench_async(folder: Path, events: int) -> None:
    """One event loop with many appends in flight at once, as the controller's bus has."""

    async def run(log: SqliteEventLog) -> float:
        remaining = iter(range(events))

        async def producer() -> None:
            for i in remaining:
                await log.append_async("event", "sim", _body(i))

        began = time.perf_counter()
        await asyncio.gather(*(producer() for _ in range(ASYNC_IN_FLIGHT)))
        return time.perf_counter() - began

    with SqliteEventLog(folder / "async.db") as log:
        elapsed = asyncio.run(run(log))
        total = log.last_seq()
    _emit(
        "eventlog_durable_events_per_s_async",
        total / elapsed,
        "events/s",
        f"{ASYNC_IN_FLIGHT} asyncio tasks in one event loop, each awaiting append_async() "
        f"in a loop, {total} events",
        events=total,
    )


def bench_serial(folder: Path, events: int) -> None:
    """A single producer waiting for each commit: one fsync per event."""
    with SqliteEventLog(folder / "serial.db") as log:
        began = time.perf_counter()
        for i in range(events):
            log.append("event", "sim", _body(i))
        elapsed = time.perf_counter() - began
    _emit(
        "eventlog_durable_events_per_s_one_at_a_time",
        events / elapsed,
        "events/s",
        f"one thread calling append() {events} times, each waiting for its own commit",
        events=events,
    )


def bench_read(folder: Path, events: int) -> None:
    """Read back and decode a long log, as a replay after a crash does."""
    path = folder / "read.db"
    with SqliteEventLog(path) as log:
        for first in range(0, events, WRITE_BATCH):
            log.append_many(
                [("event", "sim", _body(i)) for i in range(first, min(first + WRITE_BATCH, events))]
            )
    with SqliteEventLog(path) as log:
        began = time.perf_counter()
        count = sum(1 for _ in log.entries())
        elapsed = time.perf_counter() - began
    _emit(
        "eventlog_read_decode_s",
        elapsed,
        "s",
        f"entries() over a reopened log of {count} entries (written with append_many in "
        f"batches of {WRITE_BATCH}), every LogEntry built with its body decoded",
        events=count,
        file_mb=round(path.stat().st_size / 1e6, 1),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000, help="events per group test")
    parser.add_argument("--serial", type=int, default=3_000, help="events, one at a time")
    parser.add_argument("--read", type=int, default=1_000_000, help="entries to read back")
    parser.add_argument("--dir", type=Path, default=None, help="folder for the temp files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="eventlog-bench-") as folder:
        bench_threads(Path(folder), args.events)
        bench_async(Path(folder), args.events)
        bench_serial(Path(folder), args.serial)
        bench_read(Path(folder), args.read)


if __name__ == "__main__":
    main()
