"""The club view: subscribes to every table of the club and mirrors each into the store.

It acknowledges (retained `ack`) how far each table's log is stored without a gap, and
asks a table to `resend` from its log when a gap lasts; tables that were offline, a
broker that restarted or a club view that was down all converge the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, Final

import aiomqtt

from controller.club.league import League
from controller.club.link import RETRY_FIRST, backoff, connect
from controller.club.mirror import Mirror
from controller.club.settings import MqttConfig
from controller.club.store import ClubStore
from controller.club.topics import (
    Topics,
    club_filters,
    decode_object,
    encode,
    parse_entry,
    parse_seq,
    split,
)
from controller.logentry import LogEntry
from engine.core import JSON

log = logging.getLogger(__name__)

TICK: Final = 0.25
"""Seconds between the club view's rounds of acks and resend requests."""
CLUB_USER: Final = "club-view"

Listener = Callable[[str, list[LogEntry]], None]


class ClubView:
    """Every table of the club, mirrored from the broker into the club store.

    Example (in a running event loop, with the broker and store up)::

        view = ClubView(MqttConfig("broker.lan", "riverside", username="club-view",
                                   password="..."), SqliteClubStore(Path("club")))
        view.start()
        ...  view.tables(), view.league.standings()
        await view.close()
    """

    def __init__(self, settings: MqttConfig, store: ClubStore) -> None:
        self.settings = settings
        self.store = store
        self.league = League()
        self.mirrors: dict[str, Mirror] = {}
        self.listeners: list[Listener] = []
        """Called with (table, entries) each time entries are stored (pages, benchmarks)."""
        self.connected = False
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._drains: set[asyncio.Task[None]] = set()
        self._opening: dict[str, list[aiomqtt.Message]] = {}
        """Messages of tables whose log in the store is being opened, in arrival order."""
        for table_id in store.tables():
            mirror = Mirror(table_id, store.open(table_id), self.league, self._stored)
            self.mirrors[table_id] = mirror
            mirror.recover()

    async def _open(self, table_id: str) -> None:
        """Open a new table's log off the event loop (it may create a file and commit)."""
        try:
            event_log = await asyncio.to_thread(self.store.open, table_id)
        except Exception:
            self._opening.pop(table_id, None)
            log.exception("club: cannot open table %s's log in the store", table_id)
            return
        self.mirrors[table_id] = Mirror(table_id, event_log, self.league, self._stored)
        for message in self._opening.pop(table_id, []):
            self._receive(message)

    def _stored(self, table_id: str, entries: list[LogEntry]) -> None:
        for listener in list(self.listeners):
            try:
                listener(table_id, entries)
            except Exception:
                log.exception("club: a listener failed on table %s", table_id)

    def tables(self) -> list[JSON]:
        """Every table as the club page shows it, by table id."""
        return [self.mirrors[table_id].view() for table_id in sorted(self.mirrors)]

    def start(self) -> None:
        """Connect and mirror (on the running event loop); reconnects by itself."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="club-view")

    async def close(self) -> None:
        """Disconnect, let the stores finish what they were writing, and close the store."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._drains:
            await asyncio.gather(*self._drains, return_exceptions=True)
        self.store.close()

    async def _run(self) -> None:
        delay = RETRY_FIRST
        identifier = f"hoyle-{self.settings.club}-club-view"
        while True:
            try:
                async with connect(self.settings, identifier, username=CLUB_USER) as client:
                    delay = RETRY_FIRST
                    self._client = client
                    self.connected = True
                    await self._session(client)
            except aiomqtt.MqttError as error:
                log.warning("club: the broker is out of reach (%s); retrying", error)
            finally:
                self._client = None
                self.connected = False
            await asyncio.sleep(delay)
            delay = backoff(delay)

    async def _session(self, client: aiomqtt.Client) -> None:
        await client.subscribe([(topic, 1) for topic in club_filters(self.settings.club)])
        for mirror in self.mirrors.values():
            mirror.acked = -1  # the broker may have lost the retained acks: send them again
        ticker = asyncio.create_task(self._tick(client))
        try:
            async for message in client.messages:
                self._receive(message)
        finally:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await ticker

    def _receive(self, message: aiomqtt.Message) -> None:
        where = split(message.topic.value, self.settings.club)
        payload = message.payload
        if where is None or not isinstance(payload, bytes | bytearray | str):
            return
        table_id, leaf = where
        mirror = self.mirrors.get(table_id)
        if mirror is None:
            waiting = self._opening.setdefault(table_id, [])
            waiting.append(message)
            if len(waiting) == 1:
                self._spawn(self._open(table_id))
            return
        if leaf == "status":
            text = payload.decode(errors="replace") if isinstance(payload, bytes | bytearray) \
                else payload
            mirror.link = text
            return
        data = decode_object(payload)
        if data is None:
            log.warning("club: table %s sent a %s message that is not a JSON object",
                        table_id, leaf)
            return
        if leaf == "state":
            seq = parse_seq(data, "seq")
            if seq is not None:
                mirror.told(seq)
            if isinstance(data.get("name"), str):
                mirror.name = data["name"]
        elif leaf == "events":
            entry = parse_entry(data)
            if entry is None:
                log.warning("club: table %s sent a malformed entry", table_id)
            elif mirror.offer(entry):
                self._spawn(mirror.drain())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run store work beside the receive loop, which never waits for a commit."""
        task = asyncio.create_task(work)
        self._drains.add(task)
        task.add_done_callback(self._drain_done)

    def _drain_done(self, task: asyncio.Task[None]) -> None:
        self._drains.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("club: storing failed", exc_info=task.exception())

    async def _tick(self, client: aiomqtt.Client) -> None:
        """Acknowledge what is stored and ask for what is missing, every TICK."""
        while True:
            now = time.monotonic()
            for mirror in list(self.mirrors.values()):
                topics = Topics(self.settings.club, mirror.table_id)
                if mirror.acked != mirror.stored:
                    mirror.acked = mirror.stored
                    await client.publish(topics.ack, encode({"seq": mirror.stored}), qos=1,
                                         retain=True)
                gap = mirror.wanted(now)
                if gap is not None:
                    log.info("club: asking table %s to resend entries %d-%d", mirror.table_id,
                             gap[0] + 1, gap[1])
                    await client.publish(topics.resend,
                                         encode({"after": gap[0], "upto": gap[1]}), qos=1)
            await asyncio.sleep(TICK)
