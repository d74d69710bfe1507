"""The table's event log: durable, gap-free, readable after a crash, strict about bad input."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.eventlog import SqliteEventLog
from controller.logentry import (
    CorruptLogError,
    EventLogError,
    LogClosedError,
    LogEntry,
    LogStorageError,
    MissingEntryError,
)

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return tmp_path / "lane1.db"


@pytest.fixture
def log(log_path: Path) -> Iterator[SqliteEventLog]:
    with SqliteEventLog(log_path) as opened:
        yield opened


def roll(pins: int, player: str = "alice") -> dict[str, Any]:
    return {"type": "roll", "player": player, "pins": pins}


# -- round trip -------------------------------------------------------------------------------


def test_append_returns_numbered_entry_and_reads_back_equal(log: SqliteEventLog) -> None:
    before = time.time()
    first = log.append("start", "operator:alice", {"game": "ten_pins", "players": ["a", "b"]})
    second = log.append("event", "sensor:pin-deck", roll(7))
    after = time.time()

    assert (first.seq, second.seq) == (1, 2)
    assert before <= first.ts <= second.ts <= after
    assert second.kind == "event" and second.source == "sensor:pin-deck"
    assert second.body == roll(7)
    assert list(log.entries()) == [first, second]
    assert log.get(2) == second
    assert log.last_seq() == 2
    assert second.to_json() == {
        "seq": 2,
        "ts": second.ts,
        "kind": "event",
        "source": "sensor:pin-deck",
        "body": roll(7),
    }
    json.dumps(second.to_json())


def test_returned_body_is_not_the_callers_dict(log: SqliteEventLog) -> None:
    body = {"pins": 3, "nested": {"ball": 1}}
    entry = log.append("event", "sim", body)
    body["pins"] = 9
    body["nested"]["ball"] = 2  # type: ignore[index]

    assert entry.body == {"pins": 3, "nested": {"ball": 1}}
    assert log.get(entry.seq).body == entry.body


def test_body_reads_back_as_json_would_give_it(log: SqliteEventLog) -> None:
    body = {"dice": (3, 5), "note": "naïve ☃ \ud800", "big": 2**70, "ok": True, "none": None}
    entry = log.append("event", "operator:zoë", body)

    assert entry.body == {**body, "dice": [3, 5]}
    assert log.get(entry.seq).body == entry.body


def test_entries_after_and_by_kind(log: SqliteEventLog) -> None:
    log.append("start", "cli", {})
    log.append("event", "sim", roll(1))
    log.append("note", "operator:alice", {"text": "lane oiled"})
    log.append("event", "sim", roll(2))

    assert [e.seq for e in log.entries(after=2)] == [3, 4]
    assert [e.seq for e in log.entries(kinds={"event"})] == [2, 4]
    assert [e.seq for e in log.entries(after=2, kinds=["event", "note"])] == [3, 4]
    assert list(log.entries(kinds=[])) == []
    assert list(log.entries(after=4)) == []
    with pytest.raises(TypeError, match="not one str"):
        log.entries(kinds="event")


def test_entries_keeps_the_view_it_started_with_while_appends_go_on(log: SqliteEventLog) -> None:
    for pins in range(3):
        log.append("event", "sim", roll(pins))
    reading = log.entries()
    first = next(reading)
    log.append("event", "sim", roll(9))

    assert [first.seq, *(e.seq for e in reading)] == [1, 2, 3]
    assert [e.seq for e in log.entries()] == [1, 2, 3, 4]


def test_long_log_reads_back_whole_in_order(log: SqliteEventLog) -> None:
    written = log.append_many(
        [("note" if n % 7 == 0 else "event", "sim", {"n": n}) for n in range(5000)]
    )

    assert list(log.entries()) == written
    assert list(log.entries(after=4321)) == written[4321:]
    assert list(log.entries(kinds={"note"})) == [e for e in written if e.kind == "note"]


def test_abandoned_long_read_leaves_no_thread_behind(log: SqliteEventLog) -> None:
    log.append_many([("event", "sim", {"n": n}) for n in range(10_000)])
    before = set(threading.enumerate())

    reading = log.entries()
    assert next(reading).seq == 1
    del reading

    deadline = time.monotonic() + 30
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert set(threading.enumerate()) - before == set()


def test_append_many_numbers_consecutively(log: SqliteEventLog) -> None:
    log.append("start", "cli", {})
    written = log.append_many([("event", "sim", roll(p)) for p in range(5)])

    assert [e.seq for e in written] == [2, 3, 4, 5, 6]
    assert [e.body["pins"] for e in written] == [0, 1, 2, 3, 4]
    assert list(log.entries(after=1)) == written
    assert log.append_many([]) == []
    assert log.last_seq() == 6


def test_empty_log(log: SqliteEventLog) -> None:
    assert log.last_seq() == 0
    assert list(log.entries()) == []
    assert log.latest_snapshot() is None


def test_get_missing_names_the_seq(log: SqliteEventLog) -> None:
    log.append("event", "sim", roll(1))

    with pytest.raises(MissingEntryError, match="seq 5") as caught:
        log.get(5)
    assert isinstance(caught.value, KeyError)
    assert str(log.path) in str(caught.value)


# -- concurrency -----------------------------------------------------------------------------


def test_threads_appending_at_once_get_gap_free_seqs(log: SqliteEventLog) -> None:
    threads, each = 8, 150
    returned: list[LogEntry] = []
    returned_lock = threading.Lock()
    start = threading.Barrier(threads)

    def produce(worker: int) -> None:
        start.wait()
        mine = [log.append("event", f"sensor:{worker}", {"w": worker, "i": i}) for i in range(each)]
        with returned_lock:
            returned.extend(mine)
        assert [e.body["i"] for e in mine] == list(range(each))
        assert [e.seq for e in mine] == sorted(e.seq for e in mine)

    workers = [threading.Thread(target=produce, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)

    assert sorted(e.seq for e in returned) == list(range(1, threads * each + 1))
    assert list(log.entries()) == sorted(returned, key=lambda e: e.seq)


def test_asyncio_tasks_appending_at_once_get_gap_free_seqs(log: SqliteEventLog) -> None:
    async def main() -> list[LogEntry]:
        return await asyncio.gather(
            *(log.append_async("event", "sim", {"task": n}) for n in range(300))
        )

    returned = asyncio.run(main())

    assert sorted(e.seq for e in returned) == list(range(1, 301))
    assert {e.body["task"] for e in returned} == set(range(300))
    assert list(log.entries()) == sorted(returned, key=lambda e: e.seq)


def test_threads_and_event_loop_share_one_gap_free_sequence(log: SqliteEventLog) -> None:
    def produce() -> list[LogEntry]:
        return [log.append("event", "thread", {"i": i}) for i in range(100)]

    async def main() -> list[LogEntry]:
        thread_side = asyncio.create_task(asyncio.to_thread(produce))
        loop_side = [await log.append_async("event", "loop", {"i": i}) for i in range(100)]
        return loop_side + await thread_side

    returned = asyncio.run(main())

    assert sorted(e.seq for e in returned) == list(range(1, 201))
    assert list(log.entries()) == sorted(returned, key=lambda e: e.seq)


def test_readers_see_a_gap_free_prefix_while_writers_append(log: SqliteEventLog) -> None:
    done = threading.Event()
    problems: list[str] = []

    def read() -> None:
        seen = 0
        for _ in range(10_000):
            if done.is_set():
                return
            last = log.last_seq()
            seqs = [e.seq for e in log.entries(after=seen)]
            if seqs != list(range(seen + 1, seen + 1 + len(seqs))) or last < seen:
                problems.append(f"after {seen}: last {last}, read {seqs[:5]}...")
                return
            seen += len(seqs)

    reader = threading.Thread(target=read)
    reader.start()
    writers = [
        threading.Thread(target=lambda: [log.append("event", "sim", {}) for _ in range(200)])
        for _ in range(4)
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=60)
    done.set()
    reader.join(timeout=60)

    assert problems == []
    assert log.last_seq() == 800


# -- durability ------------------------------------------------------------------------------


def test_entries_survive_reopen_and_numbering_carries_on(log_path: Path) -> None:
    with SqliteEventLog(log_path) as log:
        written = [log.append("event", "sim", roll(p)) for p in range(3)]
        log.save_snapshot(2, {"frame": 1, "score": 1})

    with SqliteEventLog(log_path) as log:
        assert list(log.entries()) == written
        assert log.latest_snapshot() == (2, {"frame": 1, "score": 1})
        assert log.append("event", "sim", roll(4)).seq == 4

    with sqlite3.connect(log_path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_close_writes_what_is_queued_and_refuses_what_comes_after(log_path: Path) -> None:
    log = SqliteEventLog(log_path)
    acknowledged: list[LogEntry] = []
    refused: list[LogClosedError] = []
    lock = threading.Lock()
    go = threading.Barrier(5)

    def produce(worker: int) -> None:
        go.wait()
        for i in range(10_000):
            try:
                entry = log.append("event", "sim", {"w": worker, "i": i})
            except LogClosedError as error:
                with lock:
                    refused.append(error)
                return
            with lock:
                acknowledged.append(entry)

    workers = [threading.Thread(target=produce, args=(n,)) for n in range(4)]
    for worker in workers:
        worker.start()
    go.wait()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 50 and time.monotonic() < deadline:
        time.sleep(0.001)
    log.close()
    for worker in workers:
        worker.join(timeout=60)

    assert len(refused) == 4
    with SqliteEventLog(log_path) as reopened:
        stored = list(reopened.entries())
    assert {e.seq for e in stored} == set(range(1, len(stored) + 1))
    by_seq = {e.seq: e for e in stored}
    assert [by_seq.get(e.seq) for e in acknowledged] == acknowledged


CHILD = r"""
import json, sys, threading
sys.path.insert(0, sys.argv[2])
from controller.eventlog import SqliteEventLog

log = SqliteEventLog(sys.argv[1])
out = threading.Lock()

def produce(worker):
    for i in range(100_000):
        body = {"worker": worker, "i": i, "pad": "x" * (i % 97)}
        entry = log.append("event", f"sim:{worker}", body)
        with out:
            print(entry.seq, json.dumps(entry.body), flush=True)

threads = [threading.Thread(target=produce, args=(w,)) for w in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
"""


@pytest.mark.parametrize("acknowledged_before_kill", [3, 400])
def test_sigkill_keeps_every_acknowledged_entry(
    log_path: Path, acknowledged_before_kill: int
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(log_path), str(REPO_ROOT)],
        stdout=subprocess.PIPE,
        text=True,
    )
    acknowledged: dict[int, dict[str, Any]] = {}
    try:
        assert child.stdout is not None
        while len(acknowledged) < acknowledged_before_kill:
            line = child.stdout.readline()
            assert line, f"child stopped early with code {child.poll()}"
            seq, body = line.split(" ", 1)
            acknowledged[int(seq)] = json.loads(body)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL

    with SqliteEventLog(log_path) as log:
        stored = {entry.seq: entry.body for entry in log.entries()}
        assert sorted(stored) == list(range(1, log.last_seq() + 1))
        assert {seq: stored.get(seq) for seq in acknowledged} == acknowledged
        assert log.append("note", "cli", {"text": "after the crash"}).seq == len(stored) + 1


# -- snapshots -------------------------------------------------------------------------------


def test_latest_snapshot_is_the_newest_and_only_a_few_are_kept(log: SqliteEventLog) -> None:
    log.append_many([("event", "sim", roll(p)) for p in range(10)])
    for seq in (2, 4, 6, 8, 10):
        log.save_snapshot(seq, {"after": seq, "scores": {"alice": seq * 3}})
    log.save_snapshot(5, {"after": 5})

    assert log.latest_snapshot() == (10, {"after": 10, "scores": {"alice": 30}})
    with sqlite3.connect(log.path) as raw:
        kept = [row[0] for row in raw.execute("SELECT seq FROM snapshots ORDER BY seq")]
    assert kept == [6, 8, 10]


def test_snapshots_saved_while_appends_go_on(log: SqliteEventLog) -> None:
    def produce() -> None:
        for n in range(300):
            log.append("event", "sim", {"n": n})

    writers = [threading.Thread(target=produce) for _ in range(4)]
    for writer in writers:
        writer.start()
    saved = []
    for _ in range(100):
        seq = log.last_seq()
        log.save_snapshot(seq, {"after": seq})
        saved.append(seq)
    for writer in writers:
        writer.join(timeout=60)

    assert log.latest_snapshot() == (max(saved), {"after": max(saved)})
    assert [e.seq for e in log.entries()] == list(range(1, 1201))


def test_snapshot_of_the_empty_table_and_of_a_future_seq(log: SqliteEventLog) -> None:
    log.save_snapshot(0, {"frame": 1})
    assert log.latest_snapshot() == (0, {"frame": 1})

    log.append("event", "sim", roll(1))
    with pytest.raises(ValueError, match="seq 2 is past the last entry"):
        log.save_snapshot(2, {"frame": 1})
    with pytest.raises(ValueError, match="seq"):
        log.save_snapshot(-1, {})
    assert log.latest_snapshot() == (0, {"frame": 1})


def test_snapshot_with_a_state_that_is_not_json_is_refused(log: SqliteEventLog) -> None:
    log.append("event", "sim", roll(1))
    with pytest.raises(TypeError, match=r"state\['players'\]\[0\]: a set is not JSON"):
        log.save_snapshot(1, {"players": [{"alice"}]})
    assert log.latest_snapshot() is None


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "error", "message"),
    [
        ({"pins": {1, 2}}, TypeError, r"body\['pins'\]: a set is not JSON"),
        ({"ball": {"speed": math.nan}}, ValueError, r"body\['ball'\]\['speed'\]: nan"),
        ({"speed": math.inf}, ValueError, r"body\['speed'\]: inf"),
        ({"frames": [1, 2, {"at": object()}]}, TypeError, r"body\['frames'\]\[2\]\['at'\]"),
        ({"pins": {7: "down"}}, TypeError, r"body\['pins'\]: key 7 is a int"),
        ({3: "x"}, TypeError, r"body: key 3"),
        ({"when": time}, TypeError, r"body\['when'\]: a module is not JSON"),
        (["not", "an", "object"], TypeError, "body must be a JSON object"),
        ("pins=7", TypeError, "body must be a JSON object"),
    ],
)
def test_bad_body_is_refused_by_name_and_nothing_is_written(
    log: SqliteEventLog, body: Any, error: type[Exception], message: str
) -> None:
    kept = log.append("event", "sim", roll(5))

    with pytest.raises(error, match=message):
        log.append("event", "sim", body)

    assert list(log.entries()) == [kept]
    assert log.append("event", "sim", roll(6)).seq == 2


def test_cyclic_body_is_refused(log: SqliteEventLog) -> None:
    body: dict[str, Any] = {"a": 1}
    body["self"] = body

    with pytest.raises(ValueError, match="nested deeper"):
        log.append("event", "sim", body)
    assert log.last_seq() == 0


def test_bad_kind_or_source_is_refused(log: SqliteEventLog) -> None:
    with pytest.raises(ValueError, match="kind must be printable text"):
        log.append("", "sim", {})
    with pytest.raises(ValueError, match="source must be printable text"):
        log.append("event", "sim\nforged line", {})
    with pytest.raises(TypeError, match="source must be a str"):
        log.append("event", None, {})  # type: ignore[arg-type]
    assert log.last_seq() == 0


def test_append_many_with_one_bad_item_writes_none(log: SqliteEventLog) -> None:
    log.append("start", "cli", {})

    with pytest.raises(ValueError, match=r"item 2: body\['pins'\]: nan"):
        log.append_many(
            [
                ("event", "sim", roll(1)),
                ("event", "sim", roll(2)),
                ("event", "sim", {"pins": math.nan}),
            ]
        )

    assert log.last_seq() == 1
    assert log.append("event", "sim", roll(3)).seq == 2


def test_append_async_checks_the_body_too(log: SqliteEventLog) -> None:
    with pytest.raises(TypeError, match=r"body\['when'\]"):
        asyncio.run(log.append_async("event", "sim", {"when": time}))
    assert log.last_seq() == 0


# -- opening and closing ---------------------------------------------------------------------


def test_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "scores.db"
    garbage = b"frame 1: strike\n" * 512
    path.write_bytes(garbage)

    with pytest.raises(EventLogError, match=r"scores\.db") as caught:
        SqliteEventLog(path)

    assert isinstance(caught.value, CorruptLogError)
    assert path.read_bytes() == garbage


def test_sqlite_file_of_another_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as other:
        other.execute("CREATE TABLE members (name TEXT)")
    other.close()

    with pytest.raises(CorruptLogError, match="not an event log"):
        SqliteEventLog(path)


def test_row_that_does_not_decode_is_named(log_path: Path) -> None:
    with SqliteEventLog(log_path) as log:
        log.append_many([("event", "sim", roll(p)) for p in range(3)])
    with sqlite3.connect(log_path) as raw:
        raw.execute("UPDATE events SET body = '{\"pins\": 7' WHERE seq = 2")
    raw.close()

    with SqliteEventLog(log_path) as log:
        with pytest.raises(CorruptLogError, match=r"seq 2 in .*lane1\.db"):
            list(log.entries())
        with pytest.raises(CorruptLogError, match="seq 2"):
            log.get(2)
        assert log.get(3).body == roll(2)


def test_bad_row_deep_in_a_long_log_is_named(log_path: Path) -> None:
    with SqliteEventLog(log_path) as log:
        log.append_many([("event", "sim", {"n": n}) for n in range(6000)])
    with sqlite3.connect(log_path) as raw:
        raw.execute("UPDATE events SET body = '[4500]' WHERE seq = 4500")
    raw.close()

    with SqliteEventLog(log_path) as log:
        reading = log.entries()
        assert [next(reading).seq for _ in range(4499)][-1] == 4499
        with pytest.raises(CorruptLogError, match=r"seq 4500 .*not a JSON object"):
            next(reading)


def test_memory_database_and_missing_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="in-memory"):
        SqliteEventLog(":memory:")
    with pytest.raises(LogStorageError, match="nowhere"):
        SqliteEventLog(tmp_path / "nowhere" / "lane1.db")
    assert not (tmp_path / "nowhere").exists()


def test_closed_log_refuses_everything_and_closes_twice(log_path: Path) -> None:
    log = SqliteEventLog(log_path)
    log.append("event", "sim", roll(1))
    reading = log.entries()
    log.close()
    log.close()

    calls: list[Callable[[], object]] = [
        lambda: log.append("event", "sim", {}),
        lambda: log.append_many([("event", "sim", {})]),
        lambda: log.append_many([]),
        lambda: list(log.entries()),
        lambda: list(reading),
        lambda: log.get(1),
        lambda: log.last_seq(),
        lambda: log.save_snapshot(1, {}),
        lambda: log.latest_snapshot(),
        lambda: asyncio.run(log.append_async("event", "sim", {})),
    ]
    for call in calls:
        with pytest.raises(LogClosedError, match="closed"):
            call()
