"""A table's event log in PostgreSQL: the club's store, with SqliteEventLog's interface.

Several logs share one database (and one `PgDatabase` connection pair): each is named,
and its entries are numbered 1, 2, 3... without gaps like a table's own log, so the club
view can mirror a table entry for entry. Bodies are kept as the `json` text the table
logged, so they read back exactly. Errors are the event log's own (controller.logentry).

One writer thread per database commits the appends of every log in it: it takes all
that are queued and writes them in one transaction, so the entries of many tables that
arrive together share one commit (group commit) instead of queueing one commit each.
When that transaction fails, each append in it is tried again alone, numbered from what
the database holds, so no append fails another (nor leaves a gap or a double).

Example (with a server at DSN)::

    with PgEventLog(DSN, "lane-1") as log:
        log.append("event", "sensor:pin-deck", {"pins": 7}).seq   # 1
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import socket
import sys
import threading
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, Final

import psycopg

from controller.logentry import (
    CorruptLogError,
    Item,
    LogClosedError,
    LogEntry,
    LogStorageError,
    MissingEntryError,
    checked_item,
    encode_object,
)
from controller.writerlock import LogInUseError
from drivers.closing import Closeable

__all__ = ["PgDatabase", "PgEventLog"]

_LOCK_KEY: Final = 0x486F796C  # "Hoyl": one schema creation at a time across processes
#: With _LOCK_KEY, the advisory lock the club view that writes a database holds for its life.
_WRITER_KEY: Final = 1
_HOLDER: Final = (
    "SELECT a.pid, a.application_name, a.client_addr::text, a.backend_start::text "
    "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
    "AND l.classid = %s AND l.objid = %s AND l.objsubid = 2 AND l.granted"
)
_SNAPSHOTS_KEPT: Final = 3
_READ_CHUNK: Final = 2048
_MICROS: Final = 1e6

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS hoyle_events (
    log text NOT NULL,
    seq bigint NOT NULL CHECK (seq > 0),
    ts_us bigint NOT NULL,
    kind text NOT NULL,
    source text NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (log, seq)
);
CREATE TABLE IF NOT EXISTS hoyle_snapshots (
    log text NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 0),
    ts_us bigint NOT NULL,
    state json NOT NULL,
    PRIMARY KEY (log, seq)
);
"""
_SELECT: Final = "SELECT seq, ts_us, kind, source, body::text FROM hoyle_events"


class PgDatabase(Closeable):
    """The connections to one PostgreSQL database that the logs in it share.

    One connection writes (the writer thread's appends and `save_snapshot`, behind a lock)
    and one reads (behind its own lock), so a log is safe from any thread.
    """

    def __init__(self, conninfo: str) -> None:
        self.conninfo = conninfo
        self._closed = False
        self.write_lock = threading.Lock()
        self.read_lock = threading.Lock()
        self._submit_lock = threading.Lock()  # guards _closed and what enters _queue
        self.writer = self._connect()
        try:
            self.reader = self._connect()
        except LogStorageError:
            self.writer.close()
            raise
        try:
            with self.writer.transaction():
                self.writer.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                self.writer.execute(_SCHEMA)
            self.reader.autocommit = True
        except psycopg.Error as exc:
            self.close()
            raise LogStorageError(f"cannot prepare the club store: {exc}") from exc
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()  # None: close
        self._writer_thread = threading.Thread(target=self._run_writer, daemon=True,
                                               name="pgeventlog-writer")
        self._writer_thread.start()

    def _connect(self) -> psycopg.Connection[tuple[Any, ...]]:
        try:
            # The name says which process holds the writer's lock (`hold_writer_lock`).
            return psycopg.connect(self.conninfo, application_name=_application_name())
        except psycopg.Error as exc:
            raise LogStorageError(f"cannot open the club store: {exc}") from exc

    def hold_writer_lock(self) -> None:
        """Take the database's one-writer lock for this connection's life (PostgreSQL drops
        it when the connection ends, however the process ends); `LogInUseError` naming the
        holder if another club view has it."""
        try:
            with self.write_lock, self.writer.transaction():
                row = self.writer.execute("SELECT pg_try_advisory_lock(%s, %s)",
                                          (_LOCK_KEY, _WRITER_KEY)).fetchone()
                if row is not None and row[0]:
                    return
                holder = self.writer.execute(_HOLDER, (_LOCK_KEY, _WRITER_KEY)).fetchone()
        except psycopg.Error as exc:
            raise LogStorageError(f"cannot lock the club store: {exc}") from exc
        who = ("a connection that has gone meanwhile" if holder is None else
               f"{holder[1] or 'a client'} from {holder[2] or 'this host'} (PostgreSQL "
               f"backend {holder[0]}, connected since {holder[3]})")
        raise LogInUseError(f"the club store {self.conninfo_safe()} is held by another "
                            f"writer: {who}; only one club view may write it: stop that one "
                            "first")

    def conninfo_safe(self) -> str:
        """The database as the connection string names it, without any password."""
        try:
            parts = psycopg.conninfo.conninfo_to_dict(self.conninfo)
        except psycopg.Error:
            return "(the [club] dsn)"
        return " ".join(f"{key}={value}" for key, value in parts.items()
                        if key in ("host", "port", "dbname", "user")) or "(default)"

    def logs(self) -> list[str]:
        """The names of the logs that hold at least one entry."""
        rows = self.read("SELECT DISTINCT log FROM hoyle_events ORDER BY log", ())
        return [row[0] for row in rows]

    def read(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Run one read, fetching every row."""
        with self.read_lock:
            self.check_open()
            try:
                return self.reader.execute(query.encode(), params).fetchall()
            except psycopg.Error as exc:
                raise LogStorageError(f"cannot read the club store: {exc}") from exc

    def check_open(self) -> None:
        if self._closed:
            raise LogClosedError("the club store is closed")

    def submit(self, write: _Write) -> None:
        """Queue appends for the writer thread (refused once the store is closed)."""
        with self._submit_lock:
            self.check_open()
            self._queue.put(write)

    def close(self) -> None:
        """Commit what is already queued, then release both connections; again: nothing."""
        with self._submit_lock:
            closing, self._closed = not self._closed, True
        writer = getattr(self, "_writer_thread", None)
        if closing and writer is not None:
            self._queue.put(None)
        if writer is not None:
            writer.join()
        with self.write_lock, self.read_lock:
            for conn in (getattr(self, "writer", None), getattr(self, "reader", None)):
                if conn is not None:
                    conn.close()

    def _run_writer(self) -> None:
        """Writer thread: commit whatever is queued in one transaction, until closed."""
        closing = False
        while not closing:
            batch = [self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            # close() puts None last and nothing is queued after it.
            closing = batch[-1] is None
            writes = [write for write in batch if write is not None]
            if writes:
                with self.write_lock:
                    self._commit(writes)
                _Write.wake(writes)

    def _commit(self, writes: list[_Write]) -> None:
        try:
            self._insert(writes)
        except (psycopg.Error, LogStorageError):
            # One bad write must not fail the others it shared the transaction with: each
            # is tried alone, and only the one that fails again says so.
            for write in writes:
                try:
                    self._insert([write])
                except LogStorageError as exc:
                    write.error = exc
                except Exception as exc:
                    write.error = LogStorageError(f"cannot append to {write.log.name}: {exc}")
                    write.error.__cause__ = exc

    def _insert(self, writes: list[_Write]) -> None:
        """Number and insert the writes in one transaction; their seqs count once it commits."""
        after: dict[PgEventLog, int] = {}
        rows = []
        now = time.time_ns() // 1000
        try:
            for write in writes:
                log = write.log
                first = (after[log] if log in after else log.last_seq_writing()) + 1
                write.first_seq, write.ts = first, now / _MICROS
                rows += [(log.name, first + offset, now, kind, source, text)
                         for offset, (kind, source, text, _) in enumerate(write.items)]
                after[log] = first + len(write.items) - 1
            with self.writer.transaction(), self.writer.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO hoyle_events (log, seq, ts_us, kind, source, body) "
                    "VALUES (%s, %s, %s, %s, %s, %s::json)", rows)
        except (psycopg.Error, LogStorageError):
            # Another writer may have taken these seqs: count again next time.
            for log in after:
                log.forget_seq()
            raise
        for log, last in after.items():
            log.wrote(last)


class _Write:
    """Entries of one log for the writer thread, and how to tell their waiter they are in."""

    __slots__ = ("error", "first_seq", "future", "items", "log", "loop", "signal", "ts")

    def __init__(self, log: PgEventLog, items: list[Item],
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.log = log
        self.items = items
        self.loop = loop
        self.future: asyncio.Future[None] | None = loop.create_future() if loop else None
        self.signal = threading.Event()
        self.first_seq = 0
        self.ts = 0.0
        self.error: LogStorageError | None = None

    def result(self) -> list[LogEntry]:
        """The entries as written, or the writer's error."""
        if self.error is not None:
            raise self.error
        return [LogEntry(self.first_seq + offset, self.ts, kind, source, body)
                for offset, (kind, source, _, body) in enumerate(self.items)]

    @staticmethod
    def wake(writes: list[_Write]) -> None:
        """Release blocked threads; wake each event loop once for all its waiters."""
        by_loop: dict[asyncio.AbstractEventLoop, list[_Write]] = {}
        for write in writes:
            write.signal.set()
            if write.loop is not None:
                by_loop.setdefault(write.loop, []).append(write)
        for loop, waiting in by_loop.items():
            # A loop that closed meanwhile has nobody left to await these.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, waiting)


def _settle(writes: list[_Write]) -> None:
    for write in writes:
        if write.future is not None and not write.future.done():
            write.future.set_result(None)


class PgEventLog(Closeable):
    """One named event log in PostgreSQL: durable, gap-free seq, safe from any thread.

    `database` is a connection string (the log opens and closes its own connections) or
    a shared `PgDatabase` (left open on close).
    """

    def __init__(self, database: str | PgDatabase, name: str) -> None:
        if not isinstance(name, str) or not name or not name.isprintable():
            raise ValueError(f"the log's name must be printable text, not {name!r}")
        self._owned = isinstance(database, str)
        self._db = PgDatabase(database) if isinstance(database, str) else database
        self.name = name
        self._next_seq: int | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"PgEventLog({self.name!r})"

    # -- writing ---------------------------------------------------------------------------

    def append(self, kind: str, source: str, body: Mapping[str, Any]) -> LogEntry:
        """Append one entry; returns once it is committed."""
        return self._write([checked_item(kind, source, body, "")])[0]

    async def append_async(self, kind: str, source: str, body: Mapping[str, Any]) -> LogEntry:
        """Append one entry without blocking the event loop; returns once it is committed.

        Cancelling the await does not withdraw the entry: it may still be written.
        """
        self._check_open()
        write = _Write(self, [checked_item(kind, source, body, "")],
                       asyncio.get_running_loop())
        self._db.submit(write)
        assert write.future is not None
        await write.future
        return write.result()[0]

    def append_many(self, items: Sequence[tuple[str, str, Mapping[str, Any]]]) -> list[LogEntry]:
        """Append several entries in one transaction: all are committed, or none is."""
        checked = [checked_item(kind, source, body, f"item {index}: ")
                   for index, (kind, source, body) in enumerate(items)]
        if not checked:
            self._check_open()
            return []
        return self._write(checked)

    def save_snapshot(self, seq: int, state: Mapping[str, Any]) -> None:
        """Record the state after applying entry `seq` (0: before any); keeps the newest few."""
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise ValueError(f"snapshot seq must be an int >= 0, not {seq!r}")
        text, _ = encode_object(state, "state")
        db = self._db
        with db.write_lock:
            self._check_open()
            last = self.last_seq_writing()
            if seq > last:
                raise ValueError(f"snapshot seq {seq} is past the last entry ({last})")
            try:
                with db.writer.transaction():
                    db.writer.execute(
                        "INSERT INTO hoyle_snapshots (log, seq, ts_us, state) "
                        "VALUES (%s, %s, %s, %s::json) ON CONFLICT (log, seq) DO UPDATE "
                        "SET ts_us = excluded.ts_us, state = excluded.state",
                        (self.name, seq, time.time_ns() // 1000, text))
                    db.writer.execute(
                        "DELETE FROM hoyle_snapshots WHERE log = %s AND seq NOT IN (SELECT "
                        "seq FROM hoyle_snapshots WHERE log = %s ORDER BY seq DESC LIMIT %s)",
                        (self.name, self.name, _SNAPSHOTS_KEPT))
            except psycopg.Error as exc:
                raise LogStorageError(f"cannot write snapshot of {self.name}: {exc}") from exc

    def _write(self, items: list[Item]) -> list[LogEntry]:
        self._check_open()
        write = _Write(self, items)
        self._db.submit(write)
        write.signal.wait()
        return write.result()

    def last_seq_writing(self) -> int:
        """The last seq, counted once per writer and then kept (under the write lock)."""
        if self._next_seq is None:
            try:
                row = self._db.writer.execute(
                    "SELECT coalesce(max(seq), 0) FROM hoyle_events WHERE log = %s",
                    (self.name,)).fetchone()
                self._db.writer.commit()
            except psycopg.Error as exc:
                with contextlib.suppress(psycopg.Error):
                    self._db.writer.rollback()
                raise LogStorageError(f"cannot read {self.name}: {exc}") from exc
            assert row is not None
            self._next_seq = int(row[0]) + 1
        return self._next_seq - 1

    def wrote(self, last: int) -> None:
        """Entries up to `last` are committed (under the write lock)."""
        self._next_seq = last + 1

    def forget_seq(self) -> None:
        """Count the last seq from the database next time (under the write lock)."""
        self._next_seq = None

    def close(self) -> None:
        """Stop using the log (and its own connections, if it opened them)."""
        self._closed = True
        if self._owned:
            self._db.close()

    def _check_open(self) -> None:
        if self._closed:
            raise LogClosedError(f"event log {self.name} is closed")
        self._db.check_open()

    # -- reading ---------------------------------------------------------------------------

    def entries(self, after: int = 0, kinds: Collection[str] | None = None) -> Iterator[LogEntry]:
        """Entries with seq > `after` in seq order, optionally only of the given kinds.

        Streams chunk by chunk and yields the entries that were committed when iteration
        began.
        """
        if not isinstance(after, int):
            raise TypeError(f"after must be an int, not {type(after).__name__}")
        if isinstance(kinds, str):
            raise TypeError("kinds must be a collection of kinds, not one str")
        self._check_open()
        wanted = None if kinds is None else sorted(set(kinds))
        if wanted == []:
            return iter(())
        return self._stream(after, wanted)

    def _stream(self, after: int, kinds: list[str] | None) -> Iterator[LogEntry]:
        last = self.last_seq()
        where = "WHERE log = %s AND seq > %s AND seq <= %s"
        if kinds is not None:
            where += " AND kind = ANY(%s)"
        query = f"{_SELECT} {where} ORDER BY seq"
        for low in range(max(after, 0), last, _READ_CHUNK):
            params: tuple[Any, ...] = (self.name, low, min(low + _READ_CHUNK, last))
            if kinds is not None:
                params += (kinds,)
            rows = self._db.read(query, params)
            self._check_open()
            yield from map(self._decode, rows)

    def _decode(self, row: tuple[Any, ...]) -> LogEntry:
        seq, ts_us, kind, source, text = row
        return LogEntry(int(seq), ts_us / _MICROS, kind, source, _json_object(text))

    def get(self, seq: int) -> LogEntry:
        """The entry numbered `seq`; MissingEntryError names it when there is none."""
        rows = self._db.read(f"{_SELECT} WHERE log = %s AND seq = %s", (self.name, seq))
        if not rows:
            raise MissingEntryError(f"event log {self.name} has no entry seq {seq}")
        return self._decode(rows[0])

    def last_seq(self) -> int:
        """The seq of the newest committed entry; 0 when the log is empty."""
        self._check_open()
        rows = self._db.read("SELECT coalesce(max(seq), 0) FROM hoyle_events WHERE log = %s",
                             (self.name,))
        return int(rows[0][0])

    def latest_snapshot(self) -> tuple[int, dict[str, Any]] | None:
        """The newest saved snapshot as (seq, state), or None when there is none."""
        self._check_open()
        rows = self._db.read("SELECT seq, state::text FROM hoyle_snapshots WHERE log = %s "
                             "ORDER BY seq DESC LIMIT 1", (self.name,))
        if not rows:
            return None
        return int(rows[0][0]), _json_object(rows[0][1])


def _json_object(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if type(value) is not dict:
        raise CorruptLogError(f"a stored body is a {type(value).__name__}, not a JSON object")
    return value


def _application_name() -> str:
    """How this process names its connections: what a refused writer is told of it."""
    name = f"hoyle pid {os.getpid()} on {socket.gethostname()}: {' '.join(sys.argv[:3])}"
    return name[:63]  # PostgreSQL keeps 63 bytes of it
