"""The PostgreSQL club store keeps the same contract as the table's SQLite log."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.club.store import ClubStore, PgClubStore, SqliteClubStore
from controller.eventlog import SqliteEventLog
from controller.logentry import LogClosedError, LogEntry, LogStorageError, MissingEntryError
from controller.pgeventlog import PgDatabase, PgEventLog
from controller.writerlock import LogInUseError
from tests.club.infra import Postgres, wait_for

Opener = Callable[[], SqliteEventLog | PgEventLog]


@pytest.fixture(params=["sqlite", "postgresql"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens the same log again each call (as a restarted service would)."""
    if request.param == "sqlite":
        yield lambda: SqliteEventLog(tmp_path / "lane-1.db")
        return
    postgres: Postgres = request.getfixturevalue("postgres")
    dsn = postgres.new_database()
    yield lambda: PgEventLog(dsn, "lane-1")


def test_entries_are_numbered_without_gaps_and_read_back_equal(opener: Opener) -> None:
    with opener() as log:
        assert log.last_seq() == 0
        assert log.append("start", "operator", {"game": "ten-pins", "players": ["Ann"]}).seq == 1
        many = log.append_many([("event", "sensor:lane", {"event": {"pins": [1, 2.5, None]}}),
                                ("note", "sensor:lane", {"what": "\u00e9t\u00e9 \x00 ok"})])
        assert [e.seq for e in many] == [2, 3]
    with opener() as log:
        assert log.last_seq() == 3
        assert [e.body for e in log.entries()] == [
            {"game": "ten-pins", "players": ["Ann"]}, {"event": {"pins": [1, 2.5, None]}},
            {"what": "\u00e9t\u00e9 \x00 ok"}]
        assert [e.seq for e in log.entries(after=1)] == [2, 3]
        assert [e.kind for e in log.entries(kinds={"note", "start"})] == ["start", "note"]
        assert list(log.entries(kinds=[])) == []
        assert log.get(2).source == "sensor:lane"
        assert log.append("event", "operator", {"n": 4}).seq == 4


def test_a_bad_item_writes_nothing_of_its_batch(opener: Opener) -> None:
    with opener() as log:
        log.append("note", "a", {"n": 1})
        with pytest.raises(ValueError, match=r"item 1: body\['x'\]"):
            log.append_many([("note", "a", {"n": 2}), ("note", "a", {"x": float("nan")})])
        with pytest.raises(TypeError):
            log.append("note", "a", {"x": object()})
        with pytest.raises(ValueError, match="kind"):
            log.append("", "a", {})
        assert log.last_seq() == 1


def test_a_missing_entry_and_a_closed_log_say_so(opener: Opener) -> None:
    log = opener()
    with pytest.raises(MissingEntryError, match="no entry seq 7"):
        log.get(7)
    log.close()
    with pytest.raises(LogClosedError):
        log.append("note", "a", {})
    with pytest.raises(LogClosedError):
        log.last_seq()


def test_snapshots_keep_the_newest_and_refuse_the_future(opener: Opener) -> None:
    with opener() as log:
        assert log.latest_snapshot() is None
        log.append_many([("note", "a", {"n": n}) for n in range(6)])
        for seq in range(1, 6):
            log.save_snapshot(seq, {"seq": seq})
        with pytest.raises(ValueError, match="past the last entry"):
            log.save_snapshot(9, {})
    with opener() as log:
        assert log.latest_snapshot() == (5, {"seq": 5})


def test_appends_from_many_coroutines_get_distinct_seqs(opener: Opener) -> None:
    async def main(log: SqliteEventLog | PgEventLog) -> list[int]:
        done = await asyncio.gather(*(log.append_async("note", "a", {"n": n})
                                      for n in range(40)))
        return sorted(e.seq for e in done)

    with opener() as log:
        assert asyncio.run(main(log)) == list(range(1, 41))
        assert sorted(e.body["n"] for e in log.entries()) == list(range(40))


def test_logs_in_one_database_are_apart(postgres: Postgres) -> None:
    with PgDatabase(postgres.new_database()) as database:
        one, two = PgEventLog(database, "lane-1"), PgEventLog(database, "lane-2")
        one.append("note", "a", {"n": 1})
        two.append_many([("note", "b", {"n": 1}), ("note", "b", {"n": 2})])
        assert (one.last_seq(), two.last_seq()) == (1, 2)
        assert database.logs() == ["lane-1", "lane-2"]
        one.close()
        assert two.get(2).body == {"n": 2}  # a shared database stays open for the others


def test_many_logs_appending_at_once_each_keep_their_own_numbering(
        postgres: Postgres) -> None:
    async def main(logs: list[PgEventLog]) -> None:
        await asyncio.gather(*(log.append_async("note", "a", {"n": n})
                               for n in range(5) for log in logs))

    with PgDatabase(postgres.new_database()) as database:
        logs = [PgEventLog(database, f"lane-{n}") for n in range(1, 21)]
        asyncio.run(main(logs))
        for log in logs:
            assert [e.seq for e in log.entries()] == [1, 2, 3, 4, 5]
            assert sorted(e.body["n"] for e in log.entries()) == [0, 1, 2, 3, 4]


def test_a_seq_taken_by_another_writer_fails_no_other_log_in_the_same_commit(
        postgres: Postgres) -> None:
    async def main(one: PgEventLog, two: PgEventLog) -> list[LogEntry | BaseException]:
        return list(await asyncio.gather(one.append_async("note", "a", {"n": 2}),
                                         two.append_async("note", "b", {"n": 1}),
                                         return_exceptions=True))

    dsn = postgres.new_database()
    with PgDatabase(dsn) as database, PgEventLog(dsn, "lane-1") as other:
        one, two = PgEventLog(database, "lane-1"), PgEventLog(database, "lane-2")
        one.append("note", "a", {"n": 1})
        other.append("note", "elsewhere", {"n": 2})  # takes seq 2 behind `one`'s back
        mine, theirs = asyncio.run(main(one, two))
        assert isinstance(theirs, LogEntry) and theirs.seq == 1
        assert isinstance(mine, LogEntry) and mine.seq == 3  # counted again from the store
        assert [e.source for e in one.entries()] == ["a", "elsewhere", "a"]
        assert [e.source for e in two.entries()] == ["b"]


def test_a_store_that_cannot_open_its_second_connection_leaves_none_open(
    postgres: Postgres,
) -> None:
    import psycopg

    dsn = postgres.new_database()
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("CREATE ROLE one_link LOGIN CONNECTION LIMIT 1")
        try:
            with pytest.raises(LogStorageError, match="cannot open the club store"):
                PgDatabase(f"{dsn} user=one_link")
            # The server ends a closed connection's backend a moment after the client
            # goes; one left open would stay, so wait a bounded while for it to go.
            wait_for(lambda: admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = 'one_link'"
            ).fetchone() == (0,), "the first connection's backend to end")
        finally:
            admin.execute("DROP ROLE one_link")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_opener(request: pytest.FixtureRequest,
                 tmp_path: Path) -> Iterator[Callable[[], ClubStore]]:
    """Opens the club store of one folder or one database, as a club view does."""
    if request.param == "sqlite":
        yield lambda: SqliteClubStore(tmp_path / "club")
        return
    postgres: Postgres = request.getfixturevalue("postgres")
    dsn = postgres.new_database()
    yield lambda: PgClubStore(dsn)


def test_a_second_club_view_on_one_store_is_refused_until_the_first_closes(
        store_opener: Callable[[], ClubStore]) -> None:
    with store_opener() as first:
        first.open("lane-1").append_many([("note", "club", {"what": "mirrored"})])
        with pytest.raises(LogInUseError, match=f"held by another writer: .*{os.getpid()}"):
            store_opener()
    with store_opener() as again:
        assert again.tables() == ["lane-1"]
