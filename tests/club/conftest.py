"""Fixtures of the club tests: a Mosquitto broker, a PostgreSQL server, tables and a club."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from controller.club.publisher import TablePublisher
from controller.club.settings import MqttConfig
from controller.club.store import ClubStore, PgClubStore, SqliteClubStore
from controller.club.view import ClubView
from controller.eventlog import SqliteEventLog
from controller.table import Table
from tests.club.infra import CLUB, CLUB_PASSWORD, Broker, Postgres, table_password

TABLES = ["lane-1", "lane-2", "lane-3"]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    folder = tmp_path / "broker"
    folder.mkdir()
    server = Broker(folder, TABLES)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    server = Postgres()
    server.start()
    yield server
    server.stop()


def table_settings(table: str, port: int, **more: object) -> MqttConfig:
    return MqttConfig("127.0.0.1", CLUB, port=port, username=table,
                      password=table_password(table), keepalive=5, **more)  # type: ignore[arg-type]


def club_settings(port: int) -> MqttConfig:
    return MqttConfig("127.0.0.1", CLUB, port=port, username="club-view",
                      password=CLUB_PASSWORD, keepalive=5)


class Lane:
    """A table (with its own SQLite log) and its publisher, bowling on command."""

    def __init__(self, folder: Path, table_id: str, port: int) -> None:
        self.path = folder / f"{table_id}.db"
        self.table = Table(SqliteEventLog(self.path), table_id, name=f"Lane {table_id[-1]}")
        self.table.recover()
        self.publisher = TablePublisher(self.table, table_settings(table_id, port))
        self.balls = 0

    async def bowl(self, count: int) -> None:
        """`count` entries: a game start when none is on, else the next ball."""
        for _ in range(count):
            view = self.table.view()
            game = view["game"]
            if game is None or game["over"]:
                await self.table.record("start", "operator", {
                    "game": "ten-pins", "players": ["Ann", "Bob"], "options": {}})
                continue
            up = game["up"]
            self.balls += 1
            standing = [] if self.balls % 3 == 0 else sorted(up["standing"])[:2]
            if up["ball"] == 2 or len(up["standing"]) < 10:
                standing = [] if self.balls % 2 else sorted(up["standing"])[:1]
            await self.table.record("event", "sensor:lane", {"event": {
                "type": "ball", "player": up["player"], "standing": standing, "foul": False}})

    def count(self) -> int:
        return self.table.log.last_seq()

    async def close(self) -> None:
        await self.publisher.close()
        self.table.log.close()


@pytest.fixture
async def lanes(tmp_path: Path, broker: Broker) -> AsyncIterator[dict[str, Lane]]:
    folder = tmp_path / "tables"
    folder.mkdir()
    made = {table: Lane(folder, table, broker.port) for table in TABLES}
    for lane in made.values():
        lane.publisher.start()
    yield made
    await asyncio.gather(*(lane.close() for lane in made.values()))


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ClubStore:
    if request.param == "sqlite":
        return SqliteClubStore(tmp_path / "club")
    postgres: Postgres = request.getfixturevalue("postgres")
    return PgClubStore(postgres.new_database())


@pytest.fixture
async def club(broker: Broker, store: ClubStore) -> AsyncIterator[ClubView]:
    view = ClubView(club_settings(broker.port), store)
    view.start()
    yield view
    await view.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
