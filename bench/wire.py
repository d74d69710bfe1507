"""The node wire under faults, against the real firmware: throughput, latency, replug time.

Every figure runs the node firmware under the MicroPython unix port on a pseudo-terminal
(drivers.wire.simnode.SimNode) and the host's NodeLink over pyserial, as on a Pi with
Picos on USB. Prints one JSON line per figure:

- reports through a cable (drivers.wire.cable.FaultyCable) that corrupts 1% of the bytes
  and drops 1% of the frames both ways: a pockets node's ball reader is fed numbered
  balls (one report each); delivered, lost and doubled, and reports per second;
- latency from a pin edge (the moment the control FIFO's ``set`` line is written) to the
  ball's change on the table's bus: a pin-deck node and a foul-line node, the Lane
  (build_node_lane), LaneLink, the table with a durable SQLite log, a ten-pins game;
- replug to the first reading: the cable unplugged and plugged back in, to the first
  ball delivered after the replug.

Usage: .venv/bin/python bench/wire.py [--reports 100000] [--balls 300] [--replugs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import json
import logging
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from controller.bus import Change
from controller.eventlog import SqliteEventLog
from controller.service import LaneLink
from controller.table import Table
from drivers.lanetracker import LaneReading, RackSet
from drivers.wire.cable import Faults, FaultyCable
from drivers.wire.fake import Recorder, Reports, wait_state, wait_until
from drivers.wire.link import NodeLink
from drivers.wire.messages import ConfigKey
from drivers.wire.nodes import build_node_lane, default_report_lag
from drivers.wire.simnode import BALL_READER, SimNode, reader_balls, stream_balls

WAIT = 30.0
PLAYERS = ["Ann", "Bob"]
FAULT_RATE = 0.01
# Go-back-N resends after this long without an ACK: the protocol's fastest, since under
# 1% byte corruption about one report frame in eight is lost.
RETRANSMIT_MS = 10
DEBOUNCE = 0.001


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def wait_for_balls(reports: Reports, count: int) -> None:
    wait_until(lambda: len(reader_balls(reports.items)) >= count, f"{count} balls", WAIT)


def lost_and_doubled(sent: list[int], got: list[int]) -> tuple[int, int]:
    """Balls missing from ``got`` and balls in it more than once, against ``sent``."""
    if sent == got:
        return 0, 0
    lost = doubled = 0
    matcher = difflib.SequenceMatcher(None, sent, got, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            lost += i2 - i1
        if tag in ("insert", "replace"):
            doubled += j2 - j1
    return lost, doubled


def through_faults(count: int, seed: int) -> dict[str, Any]:
    faults = Faults(corrupt_bytes=FAULT_RATE, drop_frames=FAULT_RATE)
    reports = Reports()
    with (
        SimNode("pockets") as node,
        FaultyCable(node.port, faults=faults, seed=seed) as cable,
        NodeLink(cable.port, on_report=reports, config={ConfigKey.RETRANSMIT_MS: RETRANSMIT_MS})
        as link,
    ):
        link.wait_ready(WAIT)
        began = time.perf_counter()
        sent = stream_balls(node, reports, count, timeout=WAIT)
        # A ball that never comes is counted as lost below, not raised here.
        with contextlib.suppress(TimeoutError):
            wait_for_balls(reports, count)
        elapsed = time.perf_counter() - began
        got = reader_balls(reports.items)
        state = link.state()
        done = cable.counts()
    lost, doubled = lost_and_doubled(sent, got)
    return {
        "what": "wire_reports_through_faults", "value": round(len(got) / elapsed, 1),
        "unit": "reports/s", "sent": len(sent), "delivered": len(got), "lost": lost,
        "doubled": doubled, "corrupted_bytes": sum(c.corrupted_bytes for c in done.values()),
        "dropped_frames": sum(c.dropped_frames for c in done.values()),
        "framing_errors": state["framing_errors"], "gaps_dropped": state["gaps_dropped"],
        "duplicates_dropped": state["duplicates_dropped"],
        "command_retries": state["command_retries"],
        "how": f"pockets SimNode ball reader -> FaultyCable ({FAULT_RATE:.0%} bytes corrupted, "
               f"{FAULT_RATE:.0%} frames dropped, both ways, seed {seed}) -> NodeLink "
               f"(retransmit_ms {RETRANSMIT_MS}); at most 8 balls in flight, 1000/s",
    }


@contextmanager
def event_loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="bench-loop", daemon=True)
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(WAIT)
        loop.close()


class LaneBench:
    """A ten-pins table fed by a lane on a simulated pin-deck node and foul-line node."""

    def __init__(self, folder: Path, stack: ExitStack, loop: asyncio.AbstractEventLoop) -> None:
        self.table = Table(SqliteEventLog(folder / "lane.db"), "bench")
        stack.callback(self.table.log.close)
        self.table.recover()
        self.link = LaneLink(self.table, loop)
        self.changes: list[tuple[str, float]] = []
        self.changed = threading.Condition()
        self.table.bus.subscribe("bench", self.on_change)
        self.readings: Recorder[LaneReading] = Recorder()
        self.deck = stack.enter_context(SimNode("pindeck"))
        foul = stack.enter_context(SimNode("foulline"))
        config: dict[int, int] = {ConfigKey.RETRANSMIT_MS: RETRANSMIT_MS}
        self.deck_link = stack.enter_context(NodeLink(self.deck.port, config=config))
        foul_link = stack.enter_context(NodeLink(foul.port, config=config))
        self.lane = stack.enter_context(build_node_lane(
            self.deck_link, foul_line=foul_link, settle_time=0.0, on_reading=self.on_reading,
            debounce=DEBOUNCE, ready_timeout=WAIT))
        self.standing: set[int] = set()
        self.lane_lag = default_report_lag(DEBOUNCE, RETRANSMIT_MS / 1000)

    def on_change(self, change: Change) -> None:
        with self.changed:
            self.changes.append((change.kind, time.monotonic()))
            self.changed.notify_all()

    def on_reading(self, reading: LaneReading) -> None:
        self.link.on_reading(reading)
        self.readings(reading)

    def up(self) -> set[int]:
        view = self.table.view()
        if view["game"] is None or view["game"]["over"]:
            self.link.call(self.table.record("start", "bench", {"game": "ten-pins",
                                                                "players": PLAYERS}))
            view = self.table.view()
        return set(view["game"]["up"]["standing"])

    def wait_detector(self, active: bool) -> None:
        wait_until(lambda: self.lane.status()["ball_detector"]["active"] is active,
                   "the ball detector", WAIT)

    def rack(self, pins: set[int]) -> None:
        racks = sum(isinstance(r, RackSet) for r in self.readings.items)
        self.deck.set(12, 1)
        for spot in range(1, 11):
            if (spot in pins) != (spot in self.standing):
                self.deck.set(spot, int(spot in pins))
        wait_until(lambda: self.lane.status()["pinsetter"]["active"] is True, "the cycle", WAIT)
        self.deck.set(12, 0)
        self.standing = set(pins)
        wait_until(lambda: sum(isinstance(r, RackSet) for r in self.readings.items) > racks,
                   "the rack", WAIT)

    def ball(self, rng: random.Random) -> float:
        rack = self.up()
        if rack != self.standing:
            self.rack(rack)
        for spot in sorted(rack):
            if rng.random() < 0.6:
                self.deck.set(spot, 0)
                self.standing.discard(spot)
        with self.changed:
            seen = len(self.changes)
        edge = self.deck.set(11, 1)
        with self.changed:
            if not self.changed.wait_for(
                lambda: any(k in ("event", "flag") for k, _ in self.changes[seen:]), WAIT
            ):
                raise TimeoutError("no ball on the bus")
            at = next(t for k, t in self.changes[seen:] if k in ("event", "flag"))
        self.wait_detector(True)
        self.deck.set(11, 0)
        self.wait_detector(False)
        return at - edge


def edge_to_bus(balls: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder, event_loop() as loop, ExitStack() as stack:
        bench = LaneBench(Path(folder), stack, loop)
        ms = [bench.ball(rng) * 1000 for _ in range(balls)]
    return {
        "what": "wire_pin_edge_to_bus_ms", "value": round(statistics.median(ms), 2),
        "p50": round(statistics.median(ms), 2), "p99": round(percentile(ms, 0.99), 2),
        "max": round(max(ms), 2), "unit": "ms", "balls": len(ms),
        "report_lag_ms": round(bench.lane_lag * 1000, 1),
        "how": "control FIFO 'set 11 1' written (the ball detector's edge, pins falling with "
               "it) -> pin-deck SimNode (debounce 1 ms) -> pty -> NodeLink -> Lane "
               "(build_node_lane, settle_time 0; it runs report_lag behind the host clock "
               "so every edge is in before it reads) -> LaneLink -> durable SQLite append "
               "-> rules -> the table's bus Change",
    }


def replug_to_reading(replugs: int) -> dict[str, Any]:
    reports = Reports()
    times: list[float] = []
    with (
        SimNode("pockets") as node,
        FaultyCable(node.port) as cable,
        NodeLink(cable.port, on_report=reports) as link,
    ):
        link.wait_ready(WAIT)
        balls = len(reader_balls(reports.items))
        for index in range(replugs):
            cable.unplug()
            wait_state(link, "unplugged", WAIT)
            began = time.perf_counter()
            cable.replug()
            node.set(BALL_READER, index % 255 + 1)
            balls += 1
            wait_for_balls(reports, balls)
            times.append((time.perf_counter() - began) * 1000)
            wait_state(link, "running", WAIT)
    return {
        "what": "wire_replug_to_first_reading_ms", "value": round(statistics.median(times), 1),
        "p50": round(statistics.median(times), 1), "max": round(max(times), 1), "unit": "ms",
        "replugs": len(times),
        "how": "FaultyCable unplugged (host pty closed, port removed) until the link says "
               "unplugged, then replugged and a ball read at once; to that ball's report "
               "(the link retries opening every 150 ms, then IDENTIFY, PING, CONFIG, QUERY)",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=100_000)
    parser.add_argument("--balls", type=int, default=300)
    parser.add_argument("--replugs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    print(json.dumps(through_faults(args.reports, args.seed)), flush=True)
    print(json.dumps(edge_to_bus(args.balls, args.seed)), flush=True)
    print(json.dumps(replug_to_reading(args.replugs)), flush=True)


if __name__ == "__main__":
    main()
