"""The club page's live socket: every screen gets the last change, and nothing twice in a row.

The club app is served by uvicorn on 127.0.0.1 in a thread of this process (its lifespan
starts the club view on uvicorn's event loop); the lanes bowl on the test's loop; each
screen is a raw socket speaking WebSocket through `websockets`' sans-I/O protocol, read
by a thread of its own, so that a test can stop a screen reading (a screen on a link that
has stopped taking data) and let it read on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from controller.club import web
from controller.club.discovery import score_line
from controller.club.store import SqliteClubStore
from controller.club.view import ClubView
from controller.club.web import create_club_app
from tests.club.conftest import Lane, club_settings
from tests.club.infra import WAIT, Broker, until
from tests.serving import serve_in_thread

pytestmark = pytest.mark.anyio

#: A full lane (12 bowlers, long names) makes the club's tables some 30 kB a push.
PLAYERS = [f"{n:02d} " + "Riverside Tuesday league bowler".ljust(37, ".") for n in range(12)]
#: Socket buffers of a screen on a slow link (and of the server's side of it), in bytes.
SMALL_BUFFER = 4096
#: Seconds uvicorn's shutdown waits for the live sockets (they wait for the next change).
GRACE = 2


@contextlib.asynccontextmanager
async def serve_club(app: FastAPI) -> AsyncIterator[int]:
    """`app` served by uvicorn on 127.0.0.1 (its port yielded), in a thread; stopped on leaving.

    The listener's send buffer is small (each connection inherits it), so a screen that
    stops reading holds up the server's sends to it after a few pushes.
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_BUFFER)
    listener.bind(("127.0.0.1", 0))
    port: int = listener.getsockname()[1]
    running = serve_in_thread(app, listener, f"uvicorn-club-{port}", ws_ping_interval=None,
                              timeout_graceful_shutdown=GRACE)
    try:
        await until(lambda: running.started or running.stopped(), "the club's server to start")
        if not running.started:
            raise RuntimeError("the club's server did not start: "
                               f"{running.failure or 'it stopped'}")
        yield port
    finally:
        running.stop()
        await until(lambda: not running.thread.is_alive(), "the club's server to stop")
        listener.close()


class Screen:
    """A club page's live socket on one screen: every text frame it was sent, in order."""

    def __init__(self, port: int, receive_buffer: int | None = None) -> None:
        self.port = port
        self.receive_buffer = receive_buffer
        self.protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/ws"))
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._frames: list[str] = []
        self._lock = threading.Lock()
        self._reading = threading.Event()
        self._reading.set()
        self._stop = threading.Event()
        self.failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"screen-{port}", daemon=True)
        self._thread.start()

    def frames(self) -> list[str]:
        with self._lock:
            return list(self._frames)

    def last(self) -> dict[str, Any] | None:
        """The last tables and league this screen was sent (None before the first)."""
        frames = self.frames()
        if self.failure is not None:
            raise AssertionError(f"the screen's socket failed: {self.failure!r}")
        return json.loads(frames[-1]) if frames else None

    def stall(self) -> None:
        """Stop reading (what is in flight stays in the socket buffers)."""
        self._reading.clear()

    def resume(self) -> None:
        self._reading.set()

    def close(self) -> None:
        self._stop.set()
        self._reading.set()
        self._thread.join(WAIT)
        if self._thread.is_alive():
            raise RuntimeError("the screen's reader did not stop")

    def _send_pending(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.socket.sendall(data)

    def _run(self) -> None:
        try:
            if self.receive_buffer is not None:  # before connecting, to size the window
                self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.receive_buffer)
            self.socket.settimeout(WAIT)
            self.socket.connect(("127.0.0.1", self.port))
            self.protocol.send_request(self.protocol.connect())
            self._send_pending()
            self.socket.settimeout(0.1)  # bounded reads: the stop flag is seen between them
            while not self._stop.is_set():
                if not self._reading.wait(0.1):
                    continue
                try:
                    data = self.socket.recv(65536)
                except TimeoutError:
                    continue
                if not data:
                    break
                self.protocol.receive_data(data)
                if self.protocol.handshake_exc is not None:
                    raise self.protocol.handshake_exc
                for event in self.protocol.events_received():
                    if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                        assert event.fin, "the club sends each push as one frame"
                        with self._lock:
                            self._frames.append(bytes(event.data).decode())
                self._send_pending()  # pongs, the answer to a close
        except BaseException as error:  # reported by last()
            self.failure = error
        finally:
            with contextlib.suppress(OSError):
                self.protocol.send_close()
                self._send_pending()
            self.socket.close()


def shows(screen: Screen, lanes: dict[str, Lane]) -> bool:
    """Whether the screen's last push shows every lane as it is: entries and score line."""
    last = screen.last()
    if last is None:
        return False
    shown = {table["table"]: (table["stored"], table["score"])
             for table in last["club"]["tables"]}
    return shown == {table_id: (lane.count(), score_line(lane.table.view()))
                     for table_id, lane in lanes.items()}


async def start_games(lanes: dict[str, Lane]) -> None:
    for lane in lanes.values():
        await lane.table.record("start", "operator", {
            "game": "ten-pins", "players": PLAYERS, "options": {}})


async def bowl(lanes: dict[str, Lane], balls: int) -> None:
    """A burst: every lane bowls `balls` balls at once."""
    await asyncio.gather(*(lane.bowl(balls) for lane in lanes.values()))


def repeats(screen: Screen) -> list[int]:
    """Where a push was the same as the one before it (by frame number)."""
    frames = screen.frames()
    return [n for n in range(1, len(frames)) if frames[n] == frames[n - 1]]


def club_view(broker: Broker, folder: Path) -> ClubView:
    """A club view with the SQLite store, not started: the app's lifespan starts it."""
    return ClubView(club_settings(broker.port), SqliteClubStore(folder))


async def test_a_screen_held_up_still_shows_the_last_change_of_the_evening(
        broker: Broker, lanes: dict[str, Lane], tmp_path: Path) -> None:
    async with serve_club(create_club_app(club_view(broker, tmp_path / "club"))) as port:
        reading, slow = Screen(port), Screen(port, receive_buffer=SMALL_BUFFER)
        try:
            await start_games(lanes)
            await until(lambda: shows(reading, lanes) and shows(slow, lanes),
                        "both screens to show the games started")
            # The slow screen stops taking data: after a few pushes the server's send to it
            # waits for room, while the other screen goes on showing every burst.
            slow.stall()
            for _ in range(8):
                await bowl(lanes, 2)
                await until(lambda: shows(reading, lanes), "the reading screen to show a burst")
            await bowl(lanes, 3)  # the last change of the evening
            await until(lambda: shows(reading, lanes), "the reading screen to show the last change")
            slow.resume()
            await until(lambda: shows(slow, lanes), "the slow screen to show the last change")
        finally:
            reading.close()
            slow.close()
    for screen in (reading, slow):
        assert repeats(screen) == []


async def test_no_screen_is_sent_the_same_tables_twice_in_a_row(
        broker: Broker, lanes: dict[str, Lane], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Each burst is stored well within one push interval: the entries after its first one
    # arrive while the screens wait out PUSH_EVERY.
    monkeypatch.setattr(web, "PUSH_EVERY", 1.0)
    async with serve_club(create_club_app(club_view(broker, tmp_path / "club"))) as port:
        screens = [Screen(port), Screen(port)]
        try:
            await start_games(lanes)
            for _ in range(2):
                await bowl(lanes, 3)
                await until(lambda: all(shows(screen, lanes) for screen in screens),
                            "both screens to show the burst")
                # A screen woken by the entries stored during its pause must not send
                # again what it has just sent: give it two push intervals to do so.
                await asyncio.sleep(2 * web.PUSH_EVERY)
        finally:
            for screen in screens:
                screen.close()
    for screen in screens:
        assert screen.frames(), "the screen was sent nothing"
        assert repeats(screen) == [], f"pushes repeated: {repeats(screen)}"
