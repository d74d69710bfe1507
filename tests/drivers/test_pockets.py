"""Pocket sensors: one report per ball however the throat switch bounces, named by the
ball-return reader when it can be, on GPIO pins and through the pockets node, whose
reports it keeps until the consumer releases them."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.pockets import (
    DEFAULT_PINS,
    NODE_POCKETS,
    POCKET_NAMES,
    NodeCheckpoint,
    PocketReport,
    Pockets,
    build_gpio_pockets,
    build_node_pockets,
)
from drivers.wire.fake import WAIT, Cable, FakeNode, Recorder, wait_until
from drivers.wire.link import NodeLink
from drivers.wire.messages import BALL_IDENTITY_INPUT, NodeType

DEBOUNCE = 0.02
INPUT = {name: number for number, name in NODE_POCKETS.items()}
"""The pockets node's input of each pocket."""


class Clock:
    """A clock the test moves, so edges land at exact times."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def reports() -> Recorder[PocketReport]:
    return Recorder()


@pytest.fixture
def pockets(factory: MockFactory, reports: Recorder[PocketReport]) -> Iterator[Pockets]:
    with build_gpio_pockets(DEFAULT_PINS, pin_factory=factory, debounce=DEBOUNCE,
                            on_report=reports) as opened:
        yield opened


def drop(factory: MockFactory, pocket: str) -> None:
    """A ball lands in the throat and stays (the switch closes to ground)."""
    factory.pin(DEFAULT_PINS[pocket]).drive_low()


def lift(factory: MockFactory, pocket: str) -> None:
    factory.pin(DEFAULT_PINS[pocket]).drive_high()


def test_a_bouncing_throat_switch_is_one_ball_at_the_edge_that_held(
        factory: MockFactory) -> None:
    clock = Clock()
    got: Recorder[PocketReport] = Recorder()
    with build_gpio_pockets(DEFAULT_PINS, pin_factory=factory, debounce=DEBOUNCE,
                            on_report=got, clock=clock):
        pin = factory.pin(DEFAULT_PINS["side-right"])
        for step, low in enumerate([True, False, True, False, True]):
            clock.t = 100.0 + step * 0.002
            if low:
                pin.drive_low()
            else:
                pin.drive_high()
        clock.t = 100.5
        [report] = got.wait_for(1)
        assert report == PocketReport("side-right", 100.008, None)
        lift(factory, "side-right")  # the ball rolls on down the gully: no report
        clock.t = 101.0
        drop(factory, "head-left")
        clock.t = 101.5
        assert [r.pocket for r in got.wait_for(2)] == ["side-right", "head-left"]


def test_a_wobble_shorter_than_the_debounce_is_no_ball(
        factory: MockFactory, reports: Recorder[PocketReport], pockets: Pockets) -> None:
    pin = factory.pin(DEFAULT_PINS["foot-left"])
    for _ in range(5):
        pin.drive_low()
        pin.drive_high()
    drop(factory, "foot-right")
    assert [r.pocket for r in reports.wait_for(1)] == ["foot-right"]
    lift(factory, "foot-right")
    drop(factory, "side-left")
    assert [r.pocket for r in reports.wait_for(2)] == ["foot-right", "side-left"]


def test_a_ball_through_the_throat_in_one_go_still_counts(factory: MockFactory) -> None:
    clock = Clock()
    got: Recorder[PocketReport] = Recorder()
    with build_gpio_pockets(DEFAULT_PINS, pin_factory=factory, debounce=DEBOUNCE,
                            on_report=got, clock=clock):
        drop(factory, "side-left")
        clock.t += 0.05
        lift(factory, "side-left")
        clock.t += 1.0
        assert got.wait_for(1) == [PocketReport("side-left", 100.0, None)]


def test_the_reader_names_the_balls_in_the_order_they_fell(
        factory: MockFactory, reports: Recorder[PocketReport]) -> None:
    with build_gpio_pockets(DEFAULT_PINS, pin_factory=factory, debounce=DEBOUNCE,
                            reader_wait=WAIT, on_report=reports) as pockets:
        drop(factory, "foot-left")
        drop(factory, "side-right")
        wait_until(lambda: pockets.status()["pockets"]["side-right"]["active"] is True,
                   "the switch closed")
        pockets.ball_returned(9)
        pockets.ball_returned(3)
        got = reports.wait_for(2)
        assert [(r.pocket, r.ball) for r in got] == [("foot-left", 9), ("side-right", 3)]
        assert got[0].at <= got[1].at


def test_balls_fallen_together_with_a_read_missing_all_go_to_the_referee(
        factory: MockFactory, reports: Recorder[PocketReport]) -> None:
    clock = Clock()
    with build_gpio_pockets(DEFAULT_PINS, pin_factory=factory, debounce=DEBOUNCE,
                            reader_wait=0.2, on_report=reports, clock=clock) as pockets:
        drop(factory, "head-left")
        clock.t += 0.001
        drop(factory, "head-right")
        # Both balls are confirmed in their throats before the one read comes (a read
        # within the second's debounce would name the first ball alone, rightly).
        clock.t += 2 * DEBOUNCE
        pockets.ball_returned(4)

        def time_passes() -> bool:
            clock.t += 0.01
            return len(reports.items) >= 2

        wait_until(time_passes, "the reader's wait to end")
        got = reports.wait_for(2)
        assert [(r.pocket, r.ball) for r in got] == [("head-left", None), ("head-right", None)]


def test_without_a_reader_each_ball_is_reported_at_once_without_a_number(
        factory: MockFactory, reports: Recorder[PocketReport], pockets: Pockets) -> None:
    drop(factory, "foot-right")
    assert reports.wait_for(1) == [PocketReport("foot-right", reports.items[0].at, None)]


def test_status_names_every_pocket_line(pockets: Pockets, factory: MockFactory) -> None:
    drop(factory, "side-left")
    status = pockets.status()
    assert status["working"] is True and status["error"] is None
    assert set(status["pockets"]) == set(POCKET_NAMES)
    assert status["pockets"]["side-left"]["pin"] == f"GPIO{DEFAULT_PINS['side-left']}"
    assert status["pockets"]["side-left"]["active"] is True


def test_a_miswired_table_is_refused_naming_the_pockets(factory: MockFactory) -> None:
    with pytest.raises(ValueError, match="pocket head-left and pocket foot-right are both "
                                         "wired to GPIO5"):
        build_gpio_pockets({"head-left": 5, "foot-right": 5}, pin_factory=factory,
                           on_report=print)
    with pytest.raises(ValueError, match="pocket side-left: 99 is not a GPIO pin"):
        build_gpio_pockets({"side-left": 99}, pin_factory=factory, on_report=print)
    with pytest.raises(ValueError, match="pockets must be some of head-left, "):
        Pockets({}, on_report=print)
    # Nothing stays open: the same pins open again.
    with build_gpio_pockets(DEFAULT_PINS, pin_factory=factory, on_report=print):
        pass


def test_the_pockets_node_gives_the_same_reports_named_by_its_reader() -> None:
    node = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    cable = Cable(node)
    before = set(threading.enumerate())
    reports: Recorder[PocketReport] = Recorder()
    with build_node_pockets("pockets0", on_report=reports, reader_wait=WAIT,
                            serial_factory=cable.serial) as pockets:
        wait_until(lambda: pockets.status()["working"], "the node running")
        foot_left = next(n for n, name in NODE_POCKETS.items() if name == "foot-left")
        node.set(foot_left, 1)
        node.set(BALL_IDENTITY_INPUT, 12)
        [report] = reports.wait_for(1)
        assert (report.pocket, report.ball) == ("foot-left", 12)
        cable.unplug()
        wait_until(lambda: not pockets.status()["working"], "the node seen unplugged")
        assert "pockets0" in str(pockets.status()["error"])
        cable.plug()
        wait_until(lambda: pockets.status()["working"], "the node back")
        node.set(foot_left, 0)
        side = next(n for n, name in NODE_POCKETS.items() if name == "side-right")
        node.set(side, 1)
        node.set(BALL_IDENTITY_INPUT, 5)
        assert [(r.pocket, r.ball) for r in reports.wait_for(2)] == [("foot-left", 12),
                                                                     ("side-right", 5)]
    assert set(threading.enumerate()) == before


def test_the_node_pockets_are_the_rules_pockets() -> None:
    assert sorted(NODE_POCKETS.values()) == sorted(POCKET_NAMES)


def releasing_link(cable: Cable, resume: NodeCheckpoint | None = None) -> NodeLink:
    """A link to the pockets node that acknowledges only what is released; resumed at
    ``resume`` (a checkpoint) if given, as a restarted service's is."""
    return NodeLink("pockets0", node_type=NodeType.POCKETS, serial_factory=cable.serial,
                    start=False, manual_ack=True,
                    resume=None if resume is None else (resume[0], resume[1]),
                    resume_inputs=None if resume is None else dict(enumerate(resume[2:], 1)))


def test_the_node_keeps_each_report_until_the_checkpoint_that_covers_it_is_released() -> None:
    node = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    cable = Cable(node)
    reports: Recorder[PocketReport] = Recorder()
    consumed: Recorder[NodeCheckpoint] = Recorder()
    link = releasing_link(cable)
    with link, build_node_pockets(link, on_report=reports, on_consumed=consumed,
                                  reader_wait=WAIT):
        # The node answers the link's QUERY with every input: no ball, but consumed.
        [start] = consumed.wait_for(1)
        boot, seq = start[0], start[1]
        assert start == (node.boot_id, seq, 0, 0, 0, 0, 0, 0, 0)
        assert node.unacked == 7
        link.release(seq, boot_id=boot)
        wait_until(lambda: node.unacked == 0, "the QUERY answers acknowledged")

        node.set(INPUT["foot-left"], 1)
        node.set(BALL_IDENTITY_INPUT, 12)
        [ball] = reports.wait_for(1)
        assert (ball.pocket, ball.ball) == ("foot-left", 12)
        # Its throat closing and its name, with the inputs' values as of then.
        assert ball.checkpoint == (boot, seq + 2, 1, 0, 0, 0, 0, 0, 12)
        assert ball.follows == (boot, seq)
        assert node.unacked == 2
        link.release(seq + 2, boot_id=boot)
        wait_until(lambda: node.unacked == 0, "the ball's reports acknowledged")

        node.set(INPUT["foot-left"], 0)  # the ball rolls on: no ball, but consumed
        assert consumed.wait_for(2)[1] == (boot, seq + 3, 0, 0, 0, 0, 0, 0, 12)
        assert len(reports.items) == 1


def test_balls_named_together_are_released_together_after_the_last() -> None:
    node = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    reports: Recorder[PocketReport] = Recorder()
    consumed: Recorder[NodeCheckpoint] = Recorder()
    link = releasing_link(Cable(node))
    with link, build_node_pockets(link, on_report=reports, on_consumed=consumed,
                                  reader_wait=WAIT):
        boot, seq = consumed.wait_for(1)[0][:2]
        node.set(INPUT["foot-left"], 1)
        node.set(INPUT["side-right"], 1)
        node.set(BALL_IDENTITY_INPUT, 3)
        node.set(BALL_IDENTITY_INPUT, 5)
        first, second = reports.wait_for(2)
        assert [(r.pocket, r.ball) for r in (first, second)] == [("foot-left", 3),
                                                                 ("side-right", 5)]
        # Releasing after the 3 would acknowledge the 5's throat closing before the 5.
        assert first.checkpoint is None
        assert second.checkpoint == (boot, seq + 4, 1, 0, 0, 0, 1, 0, 5)
        assert (first.follows, second.follows) == ((boot, seq), (boot, seq + 1))


def test_a_ball_not_reported_when_the_pockets_close_comes_again_to_a_resumed_link() -> None:
    node = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    cable = Cable(node)
    reports: Recorder[PocketReport] = Recorder()
    consumed: Recorder[NodeCheckpoint] = Recorder()
    link = releasing_link(cable)
    with link, build_node_pockets(link, on_report=reports, on_consumed=consumed,
                                  reader_wait=WAIT) as pockets:
        [start] = consumed.wait_for(1)
        link.release(start[1], boot_id=start[0])
        node.set(INPUT["head-left"], 1)
        wait_until(lambda: pockets.status()["pockets"]["head-left"]["active"] is True,
                   "the ball seen falling")
    # Closed while the ball waited for its name: not reported, and still the node's.
    assert reports.items == []
    assert node.unacked == 1
    node.set(BALL_IDENTITY_INPUT, 4)

    again = releasing_link(cable, resume=start)

    def release(checkpoint: NodeCheckpoint) -> None:
        again.release(checkpoint[1], boot_id=checkpoint[0])

    with again, build_node_pockets(again, on_report=reports, on_consumed=release,
                                   reader_wait=WAIT):
        [ball] = reports.wait_for(1)
        assert (ball.pocket, ball.ball) == ("head-left", 4)
        assert ball.follows == start[:2]
        assert ball.checkpoint is not None
        assert ball.checkpoint[2:] == (0, 0, 1, 0, 0, 0, 4)
        release(ball.checkpoint)
        # The restarted link's QUERY answers change nothing: consumed and released too.
        wait_until(lambda: node.unacked == 0, "every report acknowledged")
    assert len(reports.items) == 1


def test_only_a_link_can_be_released() -> None:
    with pytest.raises(ValueError, match="on_consumed needs a NodeLink"):
        build_node_pockets("pockets0", on_report=print, on_consumed=print)
