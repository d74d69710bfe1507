"""Durable append-only event log of a table: SQLite in WAL mode, group-committed.

The log is the truth of a table: every event is appended here and made durable
(committed with ``synchronous=FULL``, so it survives a power cut) before the rules
engine sees it, and after a crash the service rebuilds the table by replaying it from
the newest snapshot on. Entries are never edited; a correction is a new entry.

One writer thread owns the write connection. Appends from any thread or event loop are
queued; the writer takes everything queued, writes it in one transaction and commits
once, so many appends waiting at the same time share one fsync (group commit).

The entries it hands back, its errors and the checks on what is appended are in
controller.logentry.

Example:
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     with SqliteEventLog(pathlib.Path(folder, "lane1.db")) as log:
    ...         log.append("event", "sensor:pin-deck", {"pins": 7}).seq
    ...         [entry.body for entry in log.entries()]
    1
    [{'pins': 7}]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from controller.logentry import (
    CorruptLogError,
    EventLogError,
    Item,
    LogClosedError,
    LogEntry,
    LogStorageError,
    MissingEntryError,
    ReadOnlyLogError,
    checked_item,
    encode_object,
)
from controller.writerlock import WriterLock
from drivers.closing import Closeable

__all__ = ["SqliteEventLog"]

_APPLICATION_ID: Final = 0x486F796C  # "Hoyl": marks the file as a Hoyle event log
_SCHEMA_VERSION: Final = 1
_SNAPSHOTS_KEPT: Final = 3
_READ_CHUNK: Final = 2048
_MICROS: Final = 1e6
_DICT_TYPE: Final = frozenset({dict})

_SCHEMA: Final = f"""
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    ts_us INTEGER NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    body TEXT NOT NULL
) STRICT;
CREATE TABLE snapshots (
    seq INTEGER PRIMARY KEY,
    ts_us INTEGER NOT NULL,
    state TEXT NOT NULL
) STRICT;
PRAGMA application_id = {_APPLICATION_ID};
PRAGMA user_version = {_SCHEMA_VERSION};
"""

# The rows of a batch go in as one JSON array, so one statement inserts any number of them.
_INSERT_EVENTS: Final = (
    "INSERT INTO events (seq, ts_us, kind, source, body) SELECT "
    "value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?)"
)
_INSERT_SNAPSHOT: Final = "INSERT OR REPLACE INTO snapshots (seq, ts_us, state) VALUES (?, ?, ?)"
_PRUNE_SNAPSHOTS: Final = (
    "DELETE FROM snapshots WHERE seq NOT IN "
    f"(SELECT seq FROM snapshots ORDER BY seq DESC LIMIT {_SNAPSHOTS_KEPT})"
)
_SELECT_ROWS: Final = "SELECT seq, ts_us, kind, source, body FROM events"
# One query per chunk: a step per row would cost more than decoding the row does.
_SELECT_CHUNK: Final = (
    "SELECT group_concat(seq), group_concat(ts_us), json_group_array(kind), "
    "json_group_array(source), group_concat(body) FROM events"
)


class _Request:
    """Work for the writer thread plus how to tell its waiter that the work is done."""

    __slots__ = ("error", "first_seq", "future", "items", "loop", "signal", "snapshot", "ts")

    def __init__(
        self,
        items: list[Item],
        snapshot: tuple[int, str] | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.items = items
        self.snapshot = snapshot
        self.loop = loop
        self.future: asyncio.Future[None] | None = loop.create_future() if loop else None
        self.signal: threading.Lock | None = None
        if loop is None:
            self.signal = threading.Lock()
            self.signal.acquire()
        self.first_seq = 0
        self.ts = 0.0
        self.error: BaseException | None = None

    def wait(self) -> None:
        """Block the calling thread until the writer has settled this request."""
        assert self.signal is not None
        self.signal.acquire()

    def result(self) -> list[LogEntry]:
        """The entries as written, or the writer's error."""
        if self.error is not None:
            raise self.error
        first, ts = self.first_seq, self.ts
        return [
            LogEntry(first + offset, ts, kind, source, body)
            for offset, (kind, source, _, body) in enumerate(self.items)
        ]


def _settle_futures(requests: list[_Request]) -> None:
    """Wake the awaiting coroutines of one event loop (runs in that loop)."""
    for request in requests:
        future = request.future
        if future is not None and not future.done():
            future.set_result(None)


class _Prefetch:
    """Runs the chunk queries of one long read a chunk ahead, in a thread of its own.

    SQLite builds a chunk without holding the GIL, so on a second core the next chunk is
    ready by the time the caller has decoded this one.
    """

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection],
        sql: str,
        spans: list[tuple[Any, ...]],
    ) -> None:
        self._ready: queue.Queue[tuple[Any, ...] | Exception | None] = queue.Queue(maxsize=2)
        self._stop = threading.Event()
        threading.Thread(
            target=self._run, args=(connect, sql, spans), name="eventlog-reader", daemon=True
        ).start()

    def _run(
        self, connect: Callable[[], sqlite3.Connection], sql: str, spans: list[tuple[Any, ...]]
    ) -> None:
        try:
            conn = connect()
            try:
                for span in spans:
                    if self._stop.is_set():
                        return
                    self._put(conn.execute(sql, span).fetchall()[0])
            finally:
                conn.close()
        except Exception as exc:
            self._put(exc)
        else:
            self._put(None)

    def _put(self, item: tuple[Any, ...] | Exception | None) -> None:
        """Hand over one item, giving up once the reader has stopped listening."""
        while not self._stop.is_set():
            with contextlib.suppress(queue.Full):
                self._ready.put(item, timeout=0.5)
                return

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        while (item := self._ready.get()) is not None:
            if isinstance(item, Exception):
                raise item
            yield item

    def stop(self) -> None:
        """Let the thread finish now, whether or not every chunk was read."""
        self._stop.set()
        with contextlib.suppress(queue.Empty):
            while True:
                self._ready.get_nowait()


class SqliteEventLog(Closeable):
    """A table's event log in one SQLite file; durable, gap-free seq, safe from any thread.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "lane1.db")
        ...     with SqliteEventLog(path) as log:
        ...         log.append("start", "operator:alice", {"game": "ten_pins"}).seq
        ...         log.save_snapshot(1, {"frame": 1})
        ...     with SqliteEventLog(path) as log:
        ...         log.last_seq(), log.latest_snapshot()
        1
        (1, (1, {'frame': 1}))
    """

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        """Open the log for writing (the one writer: `LogInUseError` if another process
        writes it), or with `read_only` for reading beside a writer (the file must exist)."""
        if os.fspath(path) in ("", ":memory:"):
            raise ValueError("the event log must be a file: an in-memory log is not durable")
        self._path = Path(path)
        folder = self._path.parent
        if not folder.is_dir():
            raise LogStorageError(
                f"cannot open event log {self._path}: folder {folder} does not exist"
            )
        self._readers: list[sqlite3.Connection] = []
        self._local = threading.local()
        self._lock = threading.Lock()  # guards _closed, _readers and what enters _queue
        self._queue: queue.SimpleQueue[_Request | None] = queue.SimpleQueue()  # None: close
        self._next_seq: int | None = None
        self._closed = False
        self._writer: threading.Thread | None = None
        self._writer_lock: WriterLock | None = None
        if read_only:
            self._check_readable()
            return
        self._writer_lock = WriterLock(self._path)
        try:
            self._conn = self._open_writer()
        except BaseException:
            self._writer_lock.release()
            raise
        self._writer = threading.Thread(
            target=self._run_writer, name=f"eventlog-writer:{self._path.name}", daemon=True
        )
        self._writer.start()

    @property
    def path(self) -> Path:
        """The SQLite file holding the log."""
        return self._path


    def __repr__(self) -> str:
        return f"SqliteEventLog({os.fspath(self._path)!r})"

    # -- writing ---------------------------------------------------------------------------

    def append(self, kind: str, source: str, body: Mapping[str, Any]) -> LogEntry:
        """Append one entry; returns once it is durable on disk."""
        request = _Request([checked_item(kind, source, body, "")])
        self._submit(request)
        request.wait()
        return request.result()[0]

    async def append_async(self, kind: str, source: str, body: Mapping[str, Any]) -> LogEntry:
        """Append one entry without blocking the event loop; returns once it is durable.

        Cancelling the await does not withdraw the entry: it may still be written.
        """
        request = _Request([checked_item(kind, source, body, "")], loop=asyncio.get_running_loop())
        self._submit(request)
        assert request.future is not None
        await request.future
        return request.result()[0]

    def append_many(self, items: Sequence[tuple[str, str, Mapping[str, Any]]]) -> list[LogEntry]:
        """Append several entries in one transaction: all become durable, or none is written."""
        checked = [
            checked_item(kind, source, body, f"item {index}: ")
            for index, (kind, source, body) in enumerate(items)
        ]
        if not checked:
            self._check_open()
            return []
        request = _Request(checked)
        self._submit(request)
        request.wait()
        return request.result()

    def save_snapshot(self, seq: int, state: Mapping[str, Any]) -> None:
        """Durably record the table's JSON state after applying entry `seq` (0: before any).

        Only the newest few snapshots are kept; replay starts from the newest.
        """
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise ValueError(f"snapshot seq must be an int >= 0, not {seq!r}")
        text, _ = encode_object(state, "state")
        request = _Request([], snapshot=(seq, text))
        self._submit(request)
        request.wait()
        request.result()

    def close(self) -> None:
        """Write everything already queued, then release the file and the writer's lock;
        calling again does nothing."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._queue.put(None)
        if self._writer is not None:
            self._writer.join()
        with self._lock:
            readers, self._readers = self._readers, []
        for conn in readers:
            conn.close()
        if self._writer_lock is not None:
            self._writer_lock.release()

    def _check_open(self) -> None:
        if self._closed:
            raise LogClosedError(f"event log {self._path} is closed")

    def _submit(self, request: _Request) -> None:
        with self._lock:
            self._check_open()
            if self._writer is None:
                raise ReadOnlyLogError(f"event log {self._path} is open for reading only: "
                                       "only the table's service writes it")
            self._queue.put(request)

    def _check_readable(self) -> None:
        """For a reader: the file exists and is an event log (a reader creates nothing)."""
        if not self._path.is_file():
            raise LogStorageError(f"cannot open event log {self._path}: there is no such file")
        app_id = self._query("PRAGMA application_id", ())[0][0]
        if app_id != _APPLICATION_ID:
            raise CorruptLogError(f"{self._path} is not an event log")

    def _open_writer(self) -> sqlite3.Connection:
        """Open the write connection, checking the file is (or can become) an event log."""
        try:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise LogStorageError(f"cannot open event log {self._path}: {exc}") from exc
        try:
            self._prepare(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        try:
            app_id = conn.execute("PRAGMA application_id").fetchall()[0][0]
            version = conn.execute("PRAGMA user_version").fetchall()[0][0]
            has_tables = bool(conn.execute("SELECT count(*) FROM sqlite_master").fetchall()[0][0])
        except sqlite3.DatabaseError as exc:
            raise CorruptLogError(f"{self._path} is not an event log: {exc}") from exc
        if app_id != _APPLICATION_ID and (app_id != 0 or has_tables):
            raise CorruptLogError(f"{self._path} is an SQLite file but not an event log")
        if version > _SCHEMA_VERSION:
            raise CorruptLogError(
                f"{self._path} is an event log of a newer version ({version}) than this one "
                f"reads ({_SCHEMA_VERSION})"
            )
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchall()[0][0]
            conn.execute("PRAGMA synchronous = FULL")
            if app_id == 0:
                conn.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
        except sqlite3.Error as exc:
            raise LogStorageError(f"cannot prepare event log {self._path}: {exc}") from exc
        if mode != "wal":
            raise LogStorageError(
                f"cannot put event log {self._path} in WAL mode (SQLite stayed in {mode!r})"
            )

    def _run_writer(self) -> None:
        """Writer thread: commit whatever is queued in one transaction, until closed."""
        closing = False
        while not closing:
            batch = [self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            # close() puts None last and nothing is queued after it.
            closing = batch[-1] is None
            requests = [request for request in batch if request is not None]
            if requests:
                self._commit(requests)
        self._conn.close()

    def _commit(self, batch: list[_Request]) -> None:
        conn = self._conn
        try:
            next_seq, rows, snapshots = self._number(conn, batch)
            if snapshots:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    if rows:
                        conn.execute(_INSERT_EVENTS, (rows,))
                    conn.executemany(_INSERT_SNAPSHOT, snapshots)
                    conn.execute(_PRUNE_SNAPSHOTS)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            elif rows:
                # One autocommit statement inserts, commits and syncs the whole batch. Each
                # SQLite call hands the GIL to the waiting producers, and winning it back is
                # what limits a busy writer, so one call per batch is what makes it fast.
                conn.execute(_INSERT_EVENTS, (rows,))
            self._next_seq = next_seq
        except Exception as exc:
            # After a failure the file, not memory, says which seq comes next.
            self._next_seq = None
            error = LogStorageError(f"cannot write to event log {self._path}: {exc}")
            error.__cause__ = exc
            for request in batch:
                if request.error is None:
                    request.error = error
        finally:
            self._wake(batch)

    def _number(
        self, conn: sqlite3.Connection, batch: list[_Request]
    ) -> tuple[int, str | None, list[tuple[int, int, str]]]:
        """Number the batch: the next seq, its entries as one JSON array, its snapshots.

        A second writer on the same file makes the insert fail on a taken seq instead of
        leaving a gap or a duplicate.
        """
        next_seq = self._next_seq
        if next_seq is None:
            next_seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM events").fetchall()[0][0]
        rows: list[tuple[int, int, str, str, str]] = []
        snapshots: list[tuple[int, int, str]] = []
        for request in batch:
            now = time.time_ns() // 1000
            if request.snapshot is not None:
                seq, text = request.snapshot
                if seq >= next_seq:
                    request.error = ValueError(
                        f"snapshot seq {seq} is past the last entry ({next_seq - 1})"
                    )
                    continue
                snapshots.append((seq, now, text))
            else:
                request.first_seq, request.ts = next_seq, now / _MICROS
                for kind, source, text, _ in request.items:
                    rows.append((next_seq, now, kind, source, text))
                    next_seq += 1
        return next_seq, json.dumps(rows) if rows else None, snapshots

    @staticmethod
    def _wake(batch: list[_Request]) -> None:
        """Release blocked threads; wake each event loop once for all its waiters."""
        by_loop: dict[asyncio.AbstractEventLoop, list[_Request]] = {}
        for request in batch:
            if request.loop is None:
                assert request.signal is not None
                request.signal.release()
            else:
                by_loop.setdefault(request.loop, []).append(request)
        for loop, requests in by_loop.items():
            # A loop that closed meanwhile has nobody left to await these.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle_futures, requests)

    # -- reading ---------------------------------------------------------------------------

    def entries(self, after: int = 0, kinds: Collection[str] | None = None) -> Iterator[LogEntry]:
        """Entries with seq > `after` in seq order, optionally only of the given kinds.

        Streams chunk by chunk and yields the entries that were durable when iteration
        began; reading a long log fetches the next chunk in a thread while this one is
        decoded.
        """
        if not isinstance(after, int):
            raise TypeError(f"after must be an int, not {type(after).__name__}")
        if isinstance(kinds, str):
            raise TypeError("kinds must be a collection of kinds, not one str")
        self._check_open()
        if kinds is None:
            return self._stream(after, "", ())
        wanted = tuple(sorted(set(kinds)))
        if not wanted:
            return iter(())
        return self._stream(after, f" AND kind IN ({','.join('?' * len(wanted))})", wanted)

    def _stream(self, after: int, kind_filter: str, kinds: tuple[str, ...]) -> Iterator[LogEntry]:
        # Entries up to `last` never change (the log is append-only), so the chunks need no
        # common read transaction, and none is held open while the caller works.
        last = self.last_seq()
        where = f" WHERE seq > ? AND seq <= ?{kind_filter}"
        spans = [
            (low, min(low + _READ_CHUNK, last), *kinds)
            for low in range(max(after, 0), last, _READ_CHUNK)
        ]
        prefetch = None
        try:
            chunks: Iterable[tuple[Any, ...]]
            if len(spans) > 1:
                prefetch = _Prefetch(self._connect_reader, _SELECT_CHUNK + where, spans)
                chunks = prefetch
            else:
                chunks = (self._query(_SELECT_CHUNK + where, span)[0] for span in spans)
            for span, chunk in zip(spans, chunks, strict=True):
                self._check_open()
                yield from self._decode_chunk(chunk, where, span)
        except sqlite3.DatabaseError as exc:
            raise self._read_error(exc) from exc
        finally:
            if prefetch is not None:
                prefetch.stop()

    def _decode_chunk(
        self, chunk: tuple[Any, ...], where: str, span: tuple[Any, ...]
    ) -> Iterable[LogEntry]:
        """The entries of one chunk: a json.loads per column rather than per row."""
        # The aggregates see the rows in the order of the rowid range scan, that is by seq.
        seqs, stamps, kinds, sources, texts = chunk
        if seqs is None:
            return []
        numbers = json.loads(f"[{seqs}]")
        try:
            bodies = json.loads(f"[{texts}]")
        except ValueError:
            bodies = None  # decoding row by row below finds and names the bad row
        if (
            bodies is None
            or len(bodies) != len(numbers)
            or not _DICT_TYPE.issuperset(map(type, bodies))
        ):
            rows = self._query(_SELECT_ROWS + where + " ORDER BY seq", span)
            return map(self._decode_row, rows)  # lazily: the rows before the bad one still count
        return list(
            map(
                LogEntry,
                numbers,
                map(_MICROS.__rtruediv__, json.loads(f"[{stamps}]")),
                json.loads(kinds),
                json.loads(sources),
                bodies,
            )
        )

    def _decode_row(self, row: Any) -> LogEntry:
        seq, ts_us, kind, source, text = row
        try:
            body = json.loads(text)
        except ValueError as exc:
            raise CorruptLogError(
                f"entry seq {seq} in {self._path} does not decode: {exc}"
            ) from exc
        if type(body) is not dict:
            raise CorruptLogError(
                f"entry seq {seq} in {self._path} does not decode: body is a "
                f"{type(body).__name__}, not a JSON object"
            )
        return LogEntry(seq, ts_us / _MICROS, kind, source, body)

    def get(self, seq: int) -> LogEntry:
        """The entry numbered `seq`; MissingEntryError names it when there is none."""
        rows = self._query(f"{_SELECT_ROWS} WHERE seq = ?", (seq,))
        if not rows:
            raise MissingEntryError(f"event log {self._path} has no entry seq {seq}")
        return self._decode_row(rows[0])

    def last_seq(self) -> int:
        """The seq of the newest durable entry; 0 when the log is empty."""
        last: int = self._query("SELECT coalesce(max(seq), 0) FROM events", ())[0][0]
        return last

    def latest_snapshot(self) -> tuple[int, dict[str, Any]] | None:
        """The newest saved snapshot as (seq, state), or None when there is none."""
        rows = self._query("SELECT seq, state FROM snapshots ORDER BY seq DESC LIMIT 1", ())
        if not rows:
            return None
        seq, text = rows[0]
        try:
            state = json.loads(text)
        except ValueError as exc:
            raise CorruptLogError(
                f"snapshot at seq {seq} in {self._path} does not decode: {exc}"
            ) from exc
        if type(state) is not dict:
            raise CorruptLogError(
                f"snapshot at seq {seq} in {self._path} does not decode: not a JSON object"
            )
        return seq, state

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        """Run a short read on this thread's reader connection, fetching every row.

        Fetching all rows ends the statement at once, so the connection never holds an
        old snapshot into the next call.
        """
        self._check_open()
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect_reader()
            with self._lock:
                self._check_open()
                self._readers.append(conn)
            self._local.conn = conn
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            self._check_open()
            raise self._read_error(exc) from exc

    def _read_error(self, exc: sqlite3.DatabaseError) -> EventLogError:
        """Tell a damaged file (corrupt) from a failing disk or folder (storage)."""
        if isinstance(exc, sqlite3.OperationalError | sqlite3.ProgrammingError):
            return LogStorageError(f"cannot read event log {self._path}: {exc}")
        return CorruptLogError(f"cannot read event log {self._path}: {exc}")

    def _connect_reader(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA query_only = ON")
        except sqlite3.Error as exc:
            raise LogStorageError(f"cannot open event log {self._path}: {exc}") from exc
        return conn
