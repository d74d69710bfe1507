"""The club store: one event log per table, in SQLite files or in PostgreSQL.

Either way each table's log has the interface of the table's own `SqliteEventLog`, and
the club view appends a table's entries in order, so the store's seq is the table's.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from controller.club.settings import ClubConfig
from controller.eventlog import SqliteEventLog
from controller.logentry import LogEntry
from controller.pgeventlog import PgDatabase, PgEventLog
from controller.writerlock import WriterLock
from drivers.closing import Closeable


class EventStore(Protocol):
    """What the club view uses of an event log (both stores provide it)."""

    def append_many(self, items: Sequence[tuple[str, str, Mapping[str, Any]]]
                    ) -> list[LogEntry]: ...

    async def append_async(self, kind: str, source: str,
                           body: Mapping[str, Any]) -> LogEntry: ...

    def entries(self, after: int = 0,
                kinds: Collection[str] | None = None) -> Iterator[LogEntry]: ...

    def last_seq(self) -> int: ...

    def close(self) -> None: ...


class ClubStore(Closeable):
    """Opens the club's log of each table, and lists the tables it holds."""

    def open(self, table_id: str) -> EventStore:
        raise NotImplementedError

    def tables(self) -> list[str]:
        raise NotImplementedError


class SqliteClubStore(ClubStore):
    """A folder of SQLite logs, `<table>.db` each (the default; no server needed)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self._logs: list[SqliteEventLog] = []
        # One club view writes the store: a second is refused at once, not at the first
        # table it mirrors (each table's log has its own writer's lock too).
        self._lock = WriterLock(folder / "club-store", what="the club store")

    def open(self, table_id: str) -> EventStore:
        event_log = SqliteEventLog(self.folder / f"{table_id}.db")
        self._logs.append(event_log)
        return event_log

    def tables(self) -> list[str]:
        return sorted(path.stem for path in self.folder.glob("*.db"))

    def close(self) -> None:
        for event_log in self._logs:
            event_log.close()
        self._lock.release()


class PgClubStore(ClubStore):
    """Every table's log in one PostgreSQL database, sharing its connections."""

    def __init__(self, conninfo: str) -> None:
        self.database = PgDatabase(conninfo)
        try:
            self.database.hold_writer_lock()
        except BaseException:
            self.database.close()
            raise

    def open(self, table_id: str) -> EventStore:
        return PgEventLog(self.database, table_id)

    def tables(self) -> list[str]:
        return self.database.logs()

    def close(self) -> None:
        self.database.close()


def open_store(config: ClubConfig) -> ClubStore:
    """The store the [club] section names."""
    if config.store == "postgresql":
        assert config.dsn is not None
        return PgClubStore(config.dsn)
    return SqliteClubStore(config.data_dir)
