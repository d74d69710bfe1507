"""A table's link to the club: its log, entry by entry, to the club's MQTT broker.

The table's SQLite log stays the truth: the publisher only reads it. Each entry goes out
once on `events` (QoS 1, with its seq); after a reconnect the publisher resumes from the
seq the club view last acknowledged (its retained `ack`), and a `resend` request rewinds
it to where the club has a gap. The broker or the network being down never holds up the
table: changes only wake the publisher, which catches up from the log when it can.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from itertools import islice
from typing import Final

import aiomqtt

from controller.bus import Change
from controller.club.discovery import discovery_messages, summary
from controller.club.link import RETRY_FIRST, backoff, connect
from controller.club.settings import MqttConfig
from controller.club.topics import (
    OFFLINE,
    ONLINE,
    Topics,
    decode_object,
    encode,
    entry_payload,
    parse_seq,
)
from controller.logentry import LogEntry
from controller.table import Table

log = logging.getLogger(__name__)

BATCH: Final = 200
ACK_WAIT: Final = 1.0
"""Seconds a fresh connection waits for the club's retained ack before sending."""
FLUSH_WAIT: Final = 3.0
"""Seconds `close` gives the publisher to send what is logged before it disconnects."""


class TablePublisher:
    """Publishes one table's log, state and Home Assistant discovery to the club's broker.

    Example (with a broker on 127.0.0.1:1883)::

        publisher = TablePublisher(table, MqttConfig("127.0.0.1", "riverside"))
        publisher.start()        # in the service's event loop
        ...
        await publisher.close()  # sends what is logged, if the broker lets it
    """

    def __init__(self, table: Table, settings: MqttConfig) -> None:
        self.table = table
        self.settings = settings
        self.topics = Topics(settings.club, table.table_id)
        self.acked = 0
        """The last seq the club view acknowledged storing (from its retained ack)."""
        self.sent = 0
        """The last seq sent on this connection (rewound by a resend request)."""
        self.connected = False
        self._rewind: int | None = None
        self._state_seq = -1
        self._closing = False
        self._wake = asyncio.Event()
        self._acked_seen = asyncio.Event()
        self._flushed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe = table.bus.subscribe("club", self._on_change)

    def _on_change(self, change: Change) -> None:
        self._wake.set()

    def start(self) -> None:
        """Start publishing (on the running event loop); reconnects by itself."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"club:{self.topics.table}")

    async def close(self) -> None:
        """Send what the log holds (waiting at most FLUSH_WAIT), say offline, disconnect."""
        self._unsubscribe()
        task, self._task = self._task, None
        if task is None:
            return
        self._closing = True
        self._wake.set()
        try:
            await asyncio.wait_for(self._flushed.wait(), FLUSH_WAIT)
        except TimeoutError:
            log.warning("club: table %s closes with entries after %d not yet at the broker",
                        self.topics.table, self.sent)
        # Flushed, the task disconnects cleanly by itself; otherwise it is stopped here.
        await asyncio.wait({task}, timeout=1.0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _run(self) -> None:
        delay = RETRY_FIRST
        will = aiomqtt.Will(self.topics.status, OFFLINE, qos=1, retain=True)
        while not self._flushed.is_set():
            try:
                async with connect(self.settings, self.topics.node_id,
                                   username=self.topics.table, will=will) as client:
                    delay = RETRY_FIRST
                    await self._session(client)
            except aiomqtt.MqttError as error:
                if self.connected:
                    log.warning("club: table %s lost the broker (%s); it keeps playing and "
                                "catches up later", self.topics.table, error)
                else:
                    log.info("club: table %s cannot reach the broker: %s", self.topics.table,
                             error)
            finally:
                self.connected = False
            if not self._flushed.is_set():
                await asyncio.sleep(delay)
                delay = backoff(delay)

    async def _session(self, client: aiomqtt.Client) -> None:
        """One connection: announce, learn the club's ack, then send until it drops."""
        self.connected = True
        self._acked_seen.clear()
        await client.subscribe([(self.topics.ack, 1), (self.topics.resend, 1)])
        listener = asyncio.create_task(self._listen(client))
        sender = asyncio.create_task(self._send(client))
        try:
            done, _ = await asyncio.wait({listener, sender},
                                         return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()
        finally:
            for task in (listener, sender):
                task.cancel()
            await asyncio.gather(listener, sender, return_exceptions=True)

    async def _listen(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            data = decode_object(message.payload) if isinstance(
                message.payload, bytes | bytearray | str) else None
            if message.topic.matches(self.topics.ack):
                seq = parse_seq(data, "seq")
                if seq is not None:
                    self.acked = seq
                    self._acked_seen.set()
            elif message.topic.matches(self.topics.resend):
                after = parse_seq(data, "after")
                if after is not None:
                    self._rewind = after if self._rewind is None else min(after, self._rewind)
                    self._wake.set()

    async def _send(self, client: aiomqtt.Client) -> None:
        await client.publish(self.topics.status, ONLINE, qos=1, retain=True)
        for topic, config in discovery_messages(self.topics, self.table.name):
            await client.publish(topic, encode(config), qos=1, retain=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._acked_seen.wait(), ACK_WAIT)
        self.sent = self.acked
        self._state_seq = -1
        while True:
            self._wake.clear()
            if self._rewind is not None:
                self.sent, self._rewind = min(self.sent, self._rewind), None
            entries = await asyncio.to_thread(self._read, self.sent)
            if entries:
                await asyncio.gather(*(client.publish(self.topics.events, entry_payload(e),
                                                      qos=1) for e in entries))
                self.sent = entries[-1].seq
                if len(entries) == BATCH:
                    continue
            await self._publish_state(client)
            if self._closing and self.sent >= self.table.log.last_seq():
                await client.publish(self.topics.status, OFFLINE, qos=1, retain=True)
                self._flushed.set()
                return
            if not entries:
                await self._wake.wait()

    def _read(self, after: int) -> list[LogEntry]:
        return list(islice(self.table.log.entries(after=after), BATCH))

    async def _publish_state(self, client: aiomqtt.Client) -> None:
        view = self.table.view()
        if view["seq"] != self._state_seq:
            await client.publish(self.topics.state, encode(summary(view)), qos=1, retain=True)
            self._state_seq = view["seq"]
