"""Latency from a GPIO edge to the scoreboard and to a WebSocket client, ball by ball.

The whole service runs as it does on the lane: gpiozero's MockFactory pins, the Lane
driver, a durable SQLite log (WAL, synchronous=FULL), the rules, the emulated MAX7219
scoreboard, and the dashboard served by uvicorn on 127.0.0.1 with a WebSocket client
reading it. For each ball the pins fall, then the ball detector's edge is driven; the
clock starts at that edge (the settle window is 0, so this is the service's own
time, not the time the pins take to settle on a real deck).

Prints one JSON line per figure (p50 and p99 to the scoreboard and to the WebSocket).

Usage: .venv/bin/python bench/latency.py [--balls 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from gpiozero.pins.mock import MockFactory
from websockets.sync.client import connect

from controller.bus import Change
from controller.eventlog import SqliteEventLog
from controller.service import LaneLink
from controller.table import Table
from controller.web import create_app
from drivers.lane import LanePins, build_lane
from drivers.scoreboard import Max7219Scoreboard, open_emulated

PLAYERS = ["Ann", "Bob"]
DEBOUNCE = 0.001
QUIET = 0.003  # pins fall this long before the ball edge, past the debounce
WAIT = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Bench:
    def __init__(self, folder: Path, balls: int) -> None:
        self.balls = balls
        self.table = Table(SqliteEventLog(folder / "lane.db"), "bench")
        self.table.recover()
        self.board = Max7219Scoreboard(open_emulated(width=32, height=8))
        self.board_at: dict[int, float] = {}
        self.table.bus.subscribe("scoreboard", self.show)
        self.app = create_app(self.table, "4821", lifespan_hooks=(self.start, self.stop))
        self.port = free_port()
        self.factory = MockFactory()
        self.pins = LanePins.default()
        self.ready = threading.Event()
        self.link: LaneLink | None = None

    def show(self, change: Change) -> None:
        self.board.show(change.view)
        self.board_at[change.seq] = time.perf_counter()

    async def start(self) -> None:
        self.link = LaneLink(self.table, asyncio.get_running_loop())
        await self.table.record("start", "bench", {"game": "ten-pins", "players": PLAYERS})
        self.ready.set()

    def stop(self) -> None:
        self.table.log.close()

    def drive(self) -> dict[str, list[float]]:
        assert self.link is not None
        link = self.link
        lane = build_lane(self.pins, pin_factory=self.factory, settle_time=0.0,
                          on_reading=link.on_reading, debounce=DEBOUNCE)
        spots = {s: self.factory.pin(p) for s, p in self.pins.deck().items()}
        detector = self.factory.pin(self.pins.ball_detector)
        pinsetter = self.factory.pin(self.pins.pinsetter)
        to_board: list[float] = []
        to_socket: list[float] = []
        rng_state = 12345
        with connect(f"ws://127.0.0.1:{self.port}/ws", open_timeout=WAIT) as ws:
            seq = json.loads(ws.recv(timeout=WAIT))["seq"]
            for _ in range(self.balls):
                view = self.table.view()
                if view["game"]["over"]:
                    link.call(self.table.record("start", "bench", {"game": "ten-pins",
                                                                   "players": PLAYERS}))
                    seq = self._until(ws, seq + 1)
                    view = self.table.view()
                rack = set(view["game"]["up"]["standing"])
                standing_now = {s for s, pin in spots.items() if pin.state == 0}
                if standing_now != rack:
                    pinsetter.drive_low()
                    for spot, pin in spots.items():
                        (pin.drive_low if spot in rack else pin.drive_high)()
                    pinsetter.drive_high()
                    time.sleep(QUIET)
                rng_state = (rng_state * 1103515245 + 12345) % 2**31
                for spot in sorted(rack):
                    if (rng_state >> spot) & 3:
                        spots[spot].drive_high()
                time.sleep(QUIET)
                began = time.perf_counter()
                detector.drive_low()
                detector.drive_high()
                seq = self._until(ws, seq + 1, kind_ball=True)
                to_socket.append(time.perf_counter() - began)
                to_board.append(self.board_at[seq] - began)
        lane.close()
        return {"scoreboard": to_board, "websocket": to_socket}

    def _until(self, ws: Any, wanted: int, kind_ball: bool = False) -> int:
        while True:
            view = json.loads(ws.recv(timeout=WAIT))
            if view["seq"] >= wanted and (not kind_ball or self._is_ball(view["seq"])):
                return int(view["seq"])

    def _is_ball(self, seq: int) -> bool:
        return self.table.log.get(seq).kind in ("event", "flag")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--balls", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        bench = Bench(Path(folder), args.balls)
        server = uvicorn.Server(uvicorn.Config(bench.app, host="127.0.0.1", port=bench.port,
                                               log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        if not bench.ready.wait(WAIT):
            raise TimeoutError("the service did not start")
        try:
            figures = bench.drive()
        finally:
            server.should_exit = True
            thread.join(WAIT)
    for target, values in figures.items():
        ms = [v * 1000 for v in values]
        print(json.dumps({
            "what": f"gpio_edge_to_{target}_ms", "p50": round(statistics.median(ms), 3),
            "p99": round(percentile(ms, 0.99), 3), "max": round(max(ms), 3),
            "unit": "ms", "balls": len(ms),
            "how": "MockFactory ball-detector edge -> Lane -> durable SQLite append "
                   "(WAL, synchronous=FULL) -> rules -> bus -> emulated MAX7219 / "
                   "uvicorn WebSocket client on 127.0.0.1; settle window 0"}))


if __name__ == "__main__":
    main()
