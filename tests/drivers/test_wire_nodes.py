"""Node-backed lane devices: the same Lane, the same readings as pins wired to the Pi,
from a scripted pin-deck node and foul-line node at the hardware edge."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, TypeAlias

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.lane import Lane, LanePins, build_lane
from drivers.lanetracker import BallRead, LaneReading
from drivers.wire.fake import (
    WAIT,
    Cable,
    FakeNode,
    Recorder,
    lane_summary,
    wait_state,
    wait_until,
)
from drivers.wire.link import NodeLink
from drivers.wire.messages import ConfigKey, NodeType
from drivers.wire.nodes import (
    EdgeClock,
    NodeInputs,
    PinDeckNode,
    build_node_lane,
    default_report_lag,
)
from drivers.wire.pockets import PocketNode, PocketsNode

Readings: TypeAlias = Recorder[LaneReading]

FULL = list(range(1, 11))
FOUL = 0  # the foul beam in the scripts below; on its own node it is input 1
SETTLE = 0.01
LAG = 0.15  # generous, so a busy machine's pauses between reports do not matter

# Each step: the edges of one delivery, as (input, value), and the reading it makes.
GAME: list[tuple[list[tuple[int, int]], tuple[str, list[int], bool | None]]] = [
    ([(12, 1), *[(s, 1) for s in FULL], (12, 0)], ("RackSet", FULL, None)),
    (
        [(1, 0), (3, 0), (5, 0), (11, 1), (11, 0), (6, 0), (9, 0), (10, 0)],
        ("BallRead", [2, 4, 7, 8], False),
    ),
    ([(FOUL, 1), (FOUL, 0), (2, 0), (11, 1), (11, 0)], ("BallRead", [4, 7, 8], True)),
    ([(7, 0)], ("PinsDisplaced", [4, 8], None)),
    ([(11, 1), (11, 0)], ("BallRead", [4, 8], False)),
]


class Nodes:
    """A pin-deck node and a foul-line node, each on its own in-memory cable."""

    def __init__(self) -> None:
        self.deck = FakeNode()
        self.foul = FakeNode(node_type=NodeType.FOUL_LINE, inputs=1, boot_id=0xF001)
        self.cables = {"deck0": Cable(self.deck), "foul0": Cable(self.foul)}

    def serial(self, port: str, **settings: Any) -> Any:
        return self.cables[port].serial(port, **settings)

    def link(self, port: str) -> NodeLink:
        return NodeLink(port, serial_factory=self.serial)


def deliver(node: FakeNode, link: NodeLink, edges: list[tuple[int, int]]) -> None:
    """The node sends ``edges`` in one packet; wait until the link has delivered them."""
    if not edges:
        return
    before = link.state()["reports_delivered"]
    with node.batch():
        for number, value in edges:
            node.set(number, value)
    wait_until(
        lambda: link.state()["reports_delivered"] >= before + len(edges), "the edges delivered"
    )


@pytest.fixture
def nodes() -> Nodes:
    return Nodes()


@pytest.fixture
def links(nodes: Nodes) -> Iterator[tuple[NodeLink, NodeLink]]:
    deck, foul = nodes.link("deck0"), nodes.link("foul0")
    yield deck, foul
    deck.close()
    foul.close()


@pytest.fixture
def readings() -> Readings:
    return Readings()


@pytest.fixture
def lane(nodes: Nodes, links: tuple[NodeLink, NodeLink], readings: Readings) -> Iterator[Lane]:
    deck_link, foul_link = links
    lane = build_node_lane(
        deck_link,
        foul_line=foul_link,
        settle_time=SETTLE,
        report_lag=LAG,
        on_reading=readings,
    )
    yield lane
    lane.close()


def play_direct(steps: list[list[tuple[int, int]]]) -> list[tuple[str, list[int], bool | None]]:
    """The same edges on gpiozero mock pins, read by a lane wired straight to the Pi."""
    factory, pins, readings = MockFactory(), LanePins.default(), Readings()
    where = {11: pins.ball_detector, 12: pins.pinsetter, FOUL: pins.foul_line}
    where.update(pins.deck())
    with build_lane(pins, pin_factory=factory, settle_time=SETTLE, on_reading=readings) as lane:
        for count, edges in enumerate(steps, start=1):
            with lane.hold_readings():
                for number, value in edges:
                    pin = factory.pin(where[number])
                    pin.drive_low() if value else pin.drive_high()
            readings.wait_for(count)
    return lane_summary(readings.items)


# --- the lane on nodes ----------------------------------------------------------------


def test_a_lane_on_nodes_reads_what_a_directly_wired_lane_reads(
    lane: Lane, nodes: Nodes, links: tuple[NodeLink, NodeLink], readings: Readings
) -> None:
    deck_link, foul_link = links
    for count, (edges, _reading) in enumerate(GAME, start=1):
        deliver(nodes.foul, foul_link, [(1, v) for n, v in edges if n == FOUL])
        deliver(nodes.deck, deck_link, [(n, v) for n, v in edges if n != FOUL])
        readings.wait_for(count)
    lane.close()
    want = [reading for _edges, reading in GAME]
    assert lane_summary(readings.items) == want
    assert play_direct([edges for edges, _reading in GAME]) == want


def test_a_ball_is_dated_at_its_edge_on_the_node(
    lane: Lane, nodes: Nodes, links: tuple[NodeLink, NodeLink], readings: Readings
) -> None:
    deck_link, _ = links
    edge = (nodes.deck.now_ms() - 400) % 2**32  # the node held this report back for 400 ms
    before = deck_link.state()["reports_delivered"]
    nodes.deck.set(11, 1, at_ms=edge)
    wait_until(lambda: deck_link.state()["reports_delivered"] > before, "the ball edge")
    delivered = deck_link.host_time(nodes.deck.now_ms())
    nodes.deck.set(11, 0)
    (ball,) = readings.wait_for(1)
    assert isinstance(ball, BallRead)
    # Good to half a PING round trip, however slow the machine.
    assert delivered - 5.0 < ball.at <= delivered - 0.3


def test_lane_status_names_the_node_inputs_and_follows_an_unplug(
    lane: Lane, nodes: Nodes, links: tuple[NodeLink, NodeLink], readings: Readings
) -> None:
    status = lane.status()
    assert status["running"] is True
    assert status["pin_deck"]["pins"]["1"] == "deck0:1" and status["pin_deck"]["working"]
    assert status["ball_detector"] == {
        "pin": "deck0:11",
        "working": True,
        "active": False,
        "error": None,
    }
    assert status["pinsetter"]["pin"] == "deck0:12"
    assert status["foul_line"]["pin"] == "foul0:1"
    deck_link, _ = links
    nodes.cables["deck0"].unplug()
    wait_state(deck_link, "unplugged")
    deck = lane.status()["pin_deck"]
    assert deck["working"] is False and deck["error"] is not None
    assert deck["error"].startswith("node on deck0 is unplugged")
    nodes.cables["deck0"].plug()
    wait_state(deck_link, "running")
    deliver(nodes.deck, deck_link, [(11, 1), (11, 0)])
    assert lane_summary(readings.wait_for(1)) == [("BallRead", [], False)]
    assert lane.status()["pin_deck"]["working"] is True


def test_a_lane_opened_on_ports_owns_its_links(nodes: Nodes, readings: Readings) -> None:
    before = set(threading.enumerate())
    lane = build_node_lane(
        "deck0",
        foul_line="foul0",
        settle_time=SETTLE,
        report_lag=LAG,
        on_reading=readings,
        debounce=0.02,
        serial_factory=nodes.serial,
    )
    assert nodes.deck.config[ConfigKey.DEBOUNCE_MS] == 20
    assert nodes.foul.config[ConfigKey.DEBOUNCE_MS] == 20
    nodes.deck.set(11, 1)
    nodes.deck.set(11, 0)
    readings.wait_for(1)
    lane.close()
    assert set(threading.enumerate()) == before


def test_the_wrong_node_on_the_deck_port_shows_in_the_status(readings: Readings) -> None:
    pockets = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    foul = FakeNode(node_type=NodeType.FOUL_LINE, inputs=1)
    cables = {"deck0": Cable(pockets), "foul0": Cable(foul)}
    with build_node_lane(
        "deck0",
        foul_line="foul0",
        on_reading=readings,
        ready_timeout=0.2,
        serial_factory=lambda port, **kw: cables[port].serial(port, **kw),
    ) as lane:
        deck = lane.status()["pin_deck"]
        assert deck["working"] is False
        assert deck["error"] == (
            "node on deck0 is refused: deck0: expected a pin deck node, found a pockets node"
        )
        assert lane.status()["foul_line"]["working"] is True


# --- the devices ----------------------------------------------------------------------


def test_the_deck_answers_which_pins_stood_at_the_lanes_moment(
    nodes: Nodes, links: tuple[NodeLink, NodeLink]
) -> None:
    deck_link, _ = links
    clock = EdgeClock(lag=0.0)
    inputs = NodeInputs(deck_link, node_type=NodeType.PIN_DECK, clock=clock)
    deck = PinDeckNode(inputs, debounce=0.01)
    edges: list[float] = []
    deck.when_changed = lambda spot, active: edges.append(clock())
    deliver(nodes.deck, deck_link, [(1, 1)])
    deliver(nodes.deck, deck_link, [(1, 0)])
    up, down = edges
    with clock.edge(up + 0.009):
        assert deck.standing() == frozenset()  # not yet steady for the debounce time
    with clock.edge(up + 0.01):
        assert deck.standing() == {1}
    with clock.edge(down + 0.009):
        assert deck.standing() == {1}
    with clock.edge(down + 0.01):
        assert deck.standing() == frozenset()
    deck.close()
    assert deck.closed and deck_link.state()["state"] == "running"  # the link is not ours


def test_edge_clock_reads_the_edge_while_a_report_is_delivered() -> None:
    clock = EdgeClock(lag=0.5, base=lambda: 10.0)
    assert clock() == 9.5
    with clock.edge(3.0):
        assert clock() == 3.0
        with clock.edge(4.0):
            assert clock() == 4.0
        assert clock() == 3.0
        seen: list[float] = []
        other = threading.Thread(target=lambda: seen.append(clock()))
        other.start()
        other.join(WAIT)
        assert seen == [9.5]  # another thread is not delivering a report
    assert clock() == 9.5
    assert default_report_lag(0.01) == pytest.approx(0.08)


def test_devices_refuse_the_wrong_node_and_bad_debounce(links: tuple[NodeLink, NodeLink]) -> None:
    deck_link, foul_link = links
    inputs = NodeInputs(foul_link, node_type=NodeType.FOUL_LINE, clock=EdgeClock(lag=0.0))
    with pytest.raises(ValueError, match="foul0 is a foul line node, not a pin deck"):
        PinDeckNode(inputs, debounce=0.01)
    with pytest.raises(ValueError, match="pocket: foul0 is a foul line node, not a pockets node"):
        PocketNode(inputs, 1)
    with pytest.raises(ValueError, match=r"a node debounces for 1\.\.200 ms, not 0\.5 s"):
        build_node_lane(deck_link, foul_line=foul_link, debounce=0.5, on_reading=print)


# --- pockets --------------------------------------------------------------------------


def test_pockets_node_calls_each_pocket_and_names_the_ball() -> None:
    node = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    before = set(threading.enumerate())
    pocketed: list[tuple[str, float | None]] = []
    balls: list[int] = []
    with PocketsNode("pockets0", serial_factory=Cable(node).serial) as table:
        assert table.wait_ready(WAIT)
        for pocket in table.pockets.values():
            pocket.when_activated = lambda p=pocket: pocketed.append((p.name, p.changed_at))
        table.when_ball_read = balls.append
        node.set(5, 1)
        node.set(7, 15)
        wait_until(lambda: balls == [15], "the ball read")
        assert [name for name, _ in pocketed] == ["side-right"]
        assert pocketed[0][1] is not None
        assert table.ball == 15
        status = table.status()
        assert status["working"] is True and status["ball"] == 15
        assert status["pockets"]["side-right"] is True
        assert status["pockets"]["corner-left-foot"] is False
        node.set(7, 0)
        wait_until(lambda: table.ball is None, "the return emptied")
    assert balls == [15]
    assert set(threading.enumerate()) == before
