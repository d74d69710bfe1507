"""Who may publish what: credentials, a table only under its own topics, TLS."""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from controller.club.publisher import TablePublisher
from controller.club.store import SqliteClubStore
from controller.club.view import ClubView
from controller.eventlog import SqliteEventLog
from controller.table import Table
from tests.club.conftest import Lane, club_settings, table_settings
from tests.club.infra import (
    CLUB,
    CLUB_PASSWORD,
    Broker,
    make_certificates,
    table_password,
    until,
)

pytestmark = pytest.mark.anyio

FORGED = {"seq": 1, "ts": 1.0, "kind": "start", "source": "operator",
          "body": {"game": "ten-pins", "players": ["Mallory"], "options": {}}}


async def test_a_wrong_password_is_refused(broker: Broker) -> None:
    with pytest.raises(aiomqtt.MqttError):
        async with aiomqtt.Client("127.0.0.1", broker.port, username="lane-1",
                                  password="guess"):
            pass


async def test_a_table_publishing_as_another_is_dropped_by_the_broker(
        broker: Broker, tmp_path: Path) -> None:
    club = ClubView(club_settings(broker.port), SqliteClubStore(tmp_path / "club"))
    club.start()
    seen: list[str] = []

    async def watch() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, username="club-view",
                                  password=CLUB_PASSWORD, identifier="watcher") as client:
            await client.subscribe(f"hoyle/{CLUB}/#", qos=1)
            async for message in client.messages:
                seen.append(message.topic.value)

    watcher = asyncio.create_task(watch())
    await until(lambda: club.connected, "the club view to connect")
    await asyncio.sleep(0.5)  # the watcher's subscription
    for user in ("lane-2", "lane-9"):  # another table; and a user the ACL does not list
        async with aiomqtt.Client("127.0.0.1", broker.port, username=user,
                                  password=table_password(user)) as forger:
            for leaf in ("events", "state", "status", "ack"):
                await forger.publish(f"hoyle/{CLUB}/lane-1/{leaf}", json.dumps(FORGED), qos=1)
            await forger.publish(f"hoyle/{CLUB}/lane-1/events", json.dumps(FORGED), qos=1)
    # lane-1 itself may not forge the club's ack or resend requests either.
    async with aiomqtt.Client("127.0.0.1", broker.port, username="lane-1",
                              password=table_password("lane-1")) as table:
        await table.publish(f"hoyle/{CLUB}/lane-1/ack", json.dumps({"seq": 99}), qos=1)
        await table.publish(f"hoyle/{CLUB}/lane-2/resend", json.dumps({"after": 0}), qos=1)
        # The broker delivers one client's messages in order: once this arrives, anything
        # published before it would have too.
        await table.publish(f"hoyle/{CLUB}/lane-1/status", "online", qos=1)
    await until(lambda: f"hoyle/{CLUB}/lane-1/status" in seen, "lane-1's own message")
    watcher.cancel()
    await club.close()
    assert seen == [f"hoyle/{CLUB}/lane-1/status"]
    assert "lane-1" not in club.mirrors or club.mirrors["lane-1"].stored == 0


async def test_a_table_cannot_read_what_the_club_tells_another(broker: Broker) -> None:
    got: list[str] = []
    async with aiomqtt.Client("127.0.0.1", broker.port, username="club-view",
                              password=CLUB_PASSWORD) as club:
        await club.publish(f"hoyle/{CLUB}/lane-1/ack", json.dumps({"seq": 5}), qos=1,
                           retain=True)
        await club.publish(f"hoyle/{CLUB}/lane-2/ack", json.dumps({"seq": 7}), qos=1,
                           retain=True)
    async with aiomqtt.Client("127.0.0.1", broker.port, username="lane-2",
                              password=table_password("lane-2")) as table:
        await table.subscribe(f"hoyle/{CLUB}/+/ack", qos=1)
        async with asyncio.timeout(10):
            async for message in table.messages:
                got.append(message.topic.value)
                break
    assert got == [f"hoyle/{CLUB}/lane-2/ack"]


@pytest.fixture
def tls_broker(tmp_path: Path) -> Iterator[Broker]:
    folder = tmp_path / "tls-broker"
    folder.mkdir()
    server = Broker(folder, ["lane-1"], tls=make_certificates(folder))
    server.start()
    try:
        yield server
    finally:
        server.stop()  # whatever the test did; stopping twice is harmless


async def test_a_table_publishes_over_tls_to_a_broker_with_a_self_made_certificate(
        tls_broker: Broker, tmp_path: Path) -> None:
    assert tls_broker.tls is not None and tls_broker.tls_port is not None
    try:
        table = Table(SqliteEventLog(tmp_path / "lane-1.db"), "lane-1")
        table.recover()
        settings = table_settings("lane-1", tls_broker.tls_port, tls=True,
                                  ca_file=tls_broker.tls.ca)
        publisher = TablePublisher(table, settings)
        publisher.start()
        club = ClubView(club_settings(tls_broker.port), SqliteClubStore(tmp_path / "club"))
        club.start()
        lane = Lane.__new__(Lane)
        lane.table, lane.publisher, lane.balls = table, publisher, 0
        await lane.bowl(5)
        await until(lambda: "lane-1" in club.mirrors and club.mirrors["lane-1"].stored == 5,
                    "the club to store the entries sent over TLS")
        # Without the club's CA the broker's certificate is not trusted.
        untrusting = ssl.create_default_context()
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", tls_broker.tls_port, username="lane-1",
                                      password=table_password("lane-1"),
                                      tls_context=untrusting):
                pass
        await publisher.close()
        await club.close()
        table.log.close()
    finally:
        tls_broker.stop()
