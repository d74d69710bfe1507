"""Broker restart, a partition, a table and the club view killed: nothing lost or doubled.

Each test ends by counting the entries of every table's log and of the club store.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from controller.club.store import PgClubStore
from controller.club.view import ClubView
from controller.eventlog import SqliteEventLog
from controller.pgeventlog import PgEventLog
from tests.club.conftest import TABLES, Lane, club_settings
from tests.club.infra import (
    CLUB,
    CLUB_PASSWORD,
    Broker,
    Postgres,
    Relay,
    count_all,
    free_port,
    table_password,
    until,
    wait_for,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def pg_club(broker: Broker, postgres: Postgres) -> AsyncIterator[ClubView]:
    view = ClubView(club_settings(broker.port), PgClubStore(postgres.new_database()))
    view.start()
    yield view
    await view.close()


def counts(lanes: dict[str, Lane], club: ClubView) -> list[tuple[str, int, int]]:
    return [(table, lane.count(), club.mirrors[table].store.last_seq() if table in
             club.mirrors else 0) for table, lane in lanes.items()]


async def converge(lanes: dict[str, Lane], club: ClubView) -> None:
    """Wait until the club store holds exactly every table's log, then check it does."""
    await until(lambda: all(mine == theirs for _, mine, theirs in counts(lanes, club)),
                "the club store to converge")
    print("counts:", count_all(counts(lanes, club)))
    for table, lane in lanes.items():
        mine = [(e.seq, e.kind, e.body) for e in lane.table.log.entries()]
        assert [(e.seq, e.kind, e.body) for e in club.mirrors[table].store.entries()] == mine


async def test_the_tables_play_on_through_a_broker_restart(
        broker: Broker, lanes: dict[str, Lane], pg_club: ClubView) -> None:
    for lane in lanes.values():
        await lane.bowl(10)
    await until(lambda: all(lane.publisher.acked == 10 for lane in lanes.values()),
                "the club's acks")
    broker.stop()
    await until(lambda: not any(lane.publisher.connected for lane in lanes.values()),
                "the tables to notice")
    for lane in lanes.values():
        await lane.bowl(15)  # logged while the broker is down
    broker.start()
    for lane in lanes.values():
        await lane.bowl(5)
    await converge(lanes, pg_club)
    assert all(lane.count() == 30 for lane in lanes.values())


async def test_a_table_cut_off_from_the_broker_catches_the_club_up(
        broker: Broker, tmp_path: Path, pg_club: ClubView) -> None:
    relay = Relay(broker.port)
    await relay.heal()
    folder = tmp_path / "tables"
    folder.mkdir()
    lanes = {"lane-1": Lane(folder, "lane-1", relay.port),
             "lane-2": Lane(folder, "lane-2", broker.port)}
    for lane in lanes.values():
        lane.publisher.start()
    try:
        for lane in lanes.values():
            await lane.bowl(8)
        await until(lambda: lanes["lane-1"].publisher.acked == 8, "lane-1's ack")
        await relay.cut()
        await until(lambda: not lanes["lane-1"].publisher.connected, "the partition")
        for _ in range(4):
            for lane in lanes.values():
                await lane.bowl(5)
            await asyncio.sleep(0.3)
        await until(lambda: pg_club.mirrors["lane-2"].stored == 28, "lane-2 to carry on")
        assert pg_club.mirrors["lane-1"].stored == 8
        await relay.heal()
        await converge(lanes, pg_club)
    finally:
        await relay.cut()
        for lane in lanes.values():
            await lane.close()


async def test_a_club_view_restarted_asks_for_what_it_missed(
        broker: Broker, lanes: dict[str, Lane], postgres: Postgres) -> None:
    dsn = postgres.new_database()
    club = ClubView(club_settings(broker.port), PgClubStore(dsn))
    club.start()
    for lane in lanes.values():
        await lane.bowl(6)
    await converge(lanes, club)
    await club.close()
    for lane in lanes.values():
        await lane.bowl(9)  # the tables are idle afterwards: only their state says so
    club = ClubView(club_settings(broker.port), PgClubStore(dsn))
    assert {table: mirror.stored for table, mirror in club.mirrors.items()} == dict.fromkeys(
        TABLES, 6)
    club.start()
    try:
        await converge(lanes, club)
    finally:
        await club.close()


def _hoyle(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "controller.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _stop(process: subprocess.Popen[bytes], sig: int) -> None:
    if process.poll() is None:
        os.kill(process.pid, sig)
    process.wait(30)


def test_a_table_killed_and_restarted_and_a_club_view_killed_lose_nothing(
        broker: Broker, postgres: Postgres, tmp_path: Path) -> None:
    dsn = postgres.new_database()
    table_port, club_port = free_port(), free_port()
    table_toml = tmp_path / "lane-1.toml"
    table_toml.write_text(f"""
[table]
id = "lane-1"
data_dir = "table"
[dashboard]
port = {table_port}
[lane]
settle_time = 0
[sim]
pace = 0.02
[scoreboard]
kind = "none"
[mqtt]
host = "127.0.0.1"
port = {broker.port}
club = "{CLUB}"
password = "{table_password('lane-1')}"
keepalive = 5
""")
    club_toml = tmp_path / "club.toml"
    club_toml.write_text(f"""
[dashboard]
port = {club_port}
[mqtt]
host = "127.0.0.1"
port = {broker.port}
club = "{CLUB}"
username = "club-view"
password = "{CLUB_PASSWORD}"
[club]
store = "postgresql"
dsn = "{dsn}"
""")

    def stored() -> int:
        try:
            page = httpx.get(f"http://127.0.0.1:{club_port}/api/club", timeout=2).json()
        except httpx.HTTPError:
            return -1
        return next((t["stored"] for t in page["tables"] if t["table"] == "lane-1"), 0)

    club = _hoyle("serve", "--club", "--config", str(club_toml))
    table = _hoyle("serve", "--config", str(table_toml))
    try:
        wait_for(lambda: stored() >= 20, "the club view to store the lane's first balls", 60)
        _stop(table, signal.SIGKILL)
        first = stored()
        table = _hoyle("serve", "--config", str(table_toml))
        wait_for(lambda: stored() >= first + 20, "the restarted lane to publish again", 60)
        _stop(club, signal.SIGKILL)
        with PgEventLog(dsn, "lane-1") as store:
            behind = store.last_seq()
        wait_for(lambda: _log_count(tmp_path) >= behind + 20, "the lane to play on", 60)
        club = _hoyle("serve", "--club", "--config", str(club_toml))
        wait_for(lambda: stored() >= behind + 20, "the club view to catch up", 60)
        _stop(table, signal.SIGTERM)
        mine = _log_count(tmp_path)
        wait_for(lambda: stored() == mine, "the club store to hold the whole log", 60)
    finally:
        _stop(table, signal.SIGKILL)
        _stop(club, signal.SIGTERM)
    with PgEventLog(dsn, "lane-1") as store, \
            SqliteEventLog(tmp_path / "table" / "lane-1.db", read_only=True) as log:
        print("counts:", count_all([("lane-1", log.last_seq(), store.last_seq())]))
        assert [(e.seq, e.kind, e.body) for e in store.entries()] == [
            (e.seq, e.kind, e.body) for e in log.entries()]


def _log_count(folder: Path) -> int:
    with SqliteEventLog(folder / "table" / "lane-1.db", read_only=True) as log:
        return log.last_seq()
