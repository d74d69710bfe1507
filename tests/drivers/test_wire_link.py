"""The node link against a scripted node at the hardware edge: the in-memory serial line
of drivers.wire.fake (with its fault knobs) and, for unplugging, a real pseudo-terminal
opened by pyserial."""

from __future__ import annotations

import os
import pty
import select
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.errors import DeviceUnavailable, DriverError, LinkTimeout
from drivers.wire.clock import NodeClock, ticks_diff
from drivers.wire.fake import (
    WAIT,
    Cable,
    FakeNode,
    Fault,
    Reports,
    combined,
    duplicated,
    lose_first_sending,
    reports_held,
    swapped_pairs,
    wait_state,
    wait_until,
    with_noise,
)
from drivers.wire.link import LinkTiming, NodeLink
from drivers.wire.messages import (
    CommandRefused,
    Config,
    ConfigKey,
    ConfigOk,
    Nack,
    NackCode,
    NodeType,
    ProtocolMismatch,
    WrongNode,
)

QUERY_REPORTS = 12  # a fresh pin-deck node reports its 12 inputs on QUERY


@pytest.fixture
def node() -> FakeNode:
    return FakeNode()


@pytest.fixture
def cable(node: FakeNode) -> Cable:
    return Cable(node)


@pytest.fixture
def reports() -> Reports:
    return Reports()


@pytest.fixture
def link(cable: Cable, reports: Reports) -> Iterator[NodeLink]:
    link = NodeLink("fake0", on_report=reports, serial_factory=cable.serial)
    assert link.wait_ready(WAIT) == "running"
    reports.wait_for(QUERY_REPORTS)
    yield link
    link.close()


# --- identify -------------------------------------------------------------------------


def test_link_identifies_the_node_and_resyncs_its_inputs(
    link: NodeLink, node: FakeNode, reports: Reports
) -> None:
    state = link.state()
    assert state["state"] == "running"
    assert (state["node_type"], state["firmware"], state["protocol"]) == (1, "1.2.3", 1)
    assert (state["boot_id"], state["inputs"]) == (0xB0071D, 12)
    assert [name for _, name in node.commands()][:2] == ["IDENTIFY_REQ", "PING"]
    assert "QUERY" in node.executed
    assert reports.values() == [(n, 0) for n in range(1, 13)]
    assert state["reports_delivered"] == 12


def test_a_node_speaking_another_protocol_is_refused_naming_both_versions(
    reports: Reports,
) -> None:
    node = FakeNode(protocol=2)
    with NodeLink("fake0", on_report=reports, serial_factory=Cable(node).serial) as link:
        with pytest.raises(
            ProtocolMismatch, match="speaks protocol version 2; this host speaks version 1"
        ):
            link.wait_ready(WAIT)
        state = link.state()
        assert state["state"] == "refused"
        assert "version 2" in state["detail"] and "version 1" in state["detail"]
        with pytest.raises(ProtocolMismatch) as caught:
            link.ping()
    assert isinstance(caught.value, DriverError) and isinstance(caught.value, ConnectionError)
    assert reports.items == []
    assert node.executed == ["IDENTIFY_REQ"]


def test_a_node_of_another_type_is_refused(reports: Reports) -> None:
    node = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    cable = Cable(node)
    with (
        NodeLink(
            "fake0", on_report=reports, node_type=NodeType.PIN_DECK, serial_factory=cable.serial
        ) as link,
        pytest.raises(WrongNode, match="expected a pin deck node, found a pockets node"),
    ):
        link.wait_ready(WAIT)
    assert reports.items == []


# --- reports --------------------------------------------------------------------------


FAULTS: dict[str, Callable[[], Fault]] = {
    "lost": lose_first_sending,
    "duplicated": lambda: duplicated,
    "reordered": swapped_pairs,
    "noise": lambda: with_noise,
    "all at once": lambda: combined(lose_first_sending(), swapped_pairs(), duplicated),
}


@pytest.mark.parametrize("fault", FAULTS, ids=list(FAULTS))
def test_reports_arrive_once_and_in_order_whatever_the_line_does(
    link: NodeLink, node: FakeNode, reports: Reports, fault: str
) -> None:
    node.faults = FAULTS[fault]()
    script = [(spot, 1) for spot in range(1, 11)] + [(1, 0), (2, 0)]
    for number, value in script:
        node.set(number, value)
    got = reports.wait_for(QUERY_REPORTS + len(script))
    assert got[QUERY_REPORTS:] == script
    wait_until(lambda: node.unacked == 0, "the node's queue to empty")
    assert len(reports.items) == QUERY_REPORTS + len(script)
    state = link.state()
    assert state["reports_delivered"] == QUERY_REPORTS + len(script)
    if fault in ("duplicated", "all at once"):
        assert state["duplicates_dropped"] > 0
    if fault in ("reordered", "all at once"):
        assert state["gaps_dropped"] > 0
    if fault == "noise":
        assert state["framing_errors"] > 0


def test_acks_are_cumulative_and_never_run_ahead(
    link: NodeLink, node: FakeNode, reports: Reports
) -> None:
    with node.batch():
        for spot in range(1, 11):
            node.set(spot, 1)
    reports.wait_for(QUERY_REPORTS + 10)
    wait_until(lambda: node.unacked == 0, "the node's queue to empty")
    acks = node.acks()
    assert acks == sorted(acks) and acks[-1] == QUERY_REPORTS + 10 - 1
    # The ten reports came in one packet: one ACK covers them all (more only if the
    # node sent them again before that ACK reached it).
    assert len([seq for seq in acks if seq >= QUERY_REPORTS]) < 10
    assert link.ping().unacked == 0


def test_reports_queued_before_the_host_came_are_delivered_once(reports: Reports) -> None:
    node = FakeNode()
    node.set(11, 1)
    node.set(11, 0)
    with NodeLink("fake0", on_report=reports, serial_factory=Cable(node).serial) as link:
        link.wait_ready(WAIT)
        got = reports.wait_for(2 + QUERY_REPORTS)
        wait_until(lambda: node.unacked == 0, "the node's queue to empty")
    assert got[:2] == [(11, 1), (11, 0)]
    assert len(reports.items) == 2 + QUERY_REPORTS


def test_a_link_catches_up_until_the_reports_its_node_held_are_delivered(
    reports: Reports, link: NodeLink
) -> None:
    assert not link.catching_up()  # the fixture's node held nothing
    node = FakeNode()
    node.set(11, 1)
    node.set(11, 0)
    let_through = threading.Event()
    node.faults = reports_held(let_through)
    late = Reports()
    with NodeLink("fake1", on_report=late, serial_factory=Cable(node).serial,
                  start=False) as behind:
        assert behind.catching_up()  # not connected yet: anything may come
        behind.start()
        assert behind.wait_ready(WAIT) == "running"
        assert behind.catching_up() and late.count() == 0
        let_through.set()
        assert late.wait_for(2)[:2] == [(11, 1), (11, 0)]
        wait_until(lambda: not behind.catching_up(), "the held reports delivered")


def test_a_failing_on_report_is_logged_and_delivery_goes_on(
    cable: Cable, node: FakeNode, caplog: pytest.LogCaptureFixture
) -> None:
    got: list[tuple[int, int]] = []

    def on_report(node_type: int, number: int, value: int, node_ms: int) -> None:
        got.append((number, value))
        if number == 3:
            raise RuntimeError("the dashboard fell over")

    with NodeLink("fake0", on_report=on_report, serial_factory=cable.serial) as link:
        link.wait_ready(WAIT)
        node.set(3, 1)
        node.set(4, 1)
        wait_until(lambda: (4, 1) in got, "the report after the failing one")
    assert got[-2:] == [(3, 1), (4, 1)]
    assert "on_report failed" in caplog.text


# --- commands -------------------------------------------------------------------------


def test_a_lost_answer_is_asked_again_with_the_same_seq_and_not_executed_twice(
    link: NodeLink, node: FakeNode
) -> None:
    dropped: list[bytes] = []

    def lose_first_config_ok(raw: bytes) -> list[bytes]:
        if raw[3] == ConfigOk.CODE and not dropped:
            dropped.append(raw)
            return []
        return [raw]

    node.faults = lose_first_config_ok
    sent, executed = len(node.commands()), node.executed.count("CONFIG")
    link.configure(ConfigKey.RETRANSMIT_MS, 80)
    configs = [seq for seq, name in node.commands()[sent:] if name == "CONFIG"]
    assert len(configs) >= 2 and len(set(configs)) == 1  # the retry kept its SEQ...
    assert node.executed.count("CONFIG") == executed + 1  # ...and was answered from the cache
    assert node.config[2] == 80 and link.config[ConfigKey.RETRANSMIT_MS] == 80
    assert link.state()["command_retries"] >= 1


def test_a_silent_node_times_out_and_counts_as_unplugged_until_it_answers(reports: Reports) -> None:
    node = FakeNode()
    timing = LinkTiming(ping_interval=0.2, retry_interval=0.05)
    with NodeLink(
        "fake0", on_report=reports, serial_factory=Cable(node).serial, timing=timing
    ) as link:
        link.wait_ready(WAIT)
        node.mute = True
        with pytest.raises(LinkTimeout, match="no answer to PING after 5 tries 50 ms apart"):
            link.ping()
        state = wait_state(link, "unplugged")
        assert "node silent" in state["detail"] and "no answer to" in state["detail"]
        node.mute = False
        wait_state(link, "running")
        node.set(5, 1)
        wait_until(lambda: (5, 1) in reports.values(), "a report after the node came back")


def test_config_the_node_refuses_names_the_key_and_both_bounds(reports: Reports) -> None:
    node = FakeNode(bounds={1: ("debounce_ms", 1, 100), 2: ("retransmit_ms", 10, 1000)})
    with NodeLink("fake0", on_report=reports, serial_factory=Cable(node).serial) as link:
        link.wait_ready(WAIT)
        with pytest.raises(CommandRefused) as caught:
            link.configure(ConfigKey.DEBOUNCE_MS, 150)
        assert link.config[ConfigKey.DEBOUNCE_MS] == 10  # the default stays in force
    message = str(caught.value)
    assert "node refused CONFIG debounce_ms=150 (host bounds 1..200)" in message
    assert "NACK 3 (value out of bounds): debounce_ms 150 out of 1..100" in message
    assert caught.value.code == NackCode.VALUE_OUT_OF_BOUNDS


def test_config_outside_the_protocol_is_refused_before_sending(
    link: NodeLink, node: FakeNode
) -> None:
    executed = node.executed.count("CONFIG")
    with pytest.raises(ValueError, match=r"debounce_ms must be a whole number 1..200, not 500"):
        link.configure(ConfigKey.DEBOUNCE_MS, 500)
    with pytest.raises(
        ValueError, match="unknown config key 9; keys are: 1 debounce_ms, 2 retransmit_ms"
    ):
        link.configure(9, 1)
    with pytest.raises(ValueError, match="retransmit_ms"):
        NodeLink("fake0", config={ConfigKey.RETRANSMIT_MS: 5}, start=False)
    assert node.executed.count("CONFIG") == executed


def test_config_is_applied_at_every_connection(cable: Cable, node: FakeNode) -> None:
    node.config[2] = 300  # left so by an earlier host: the link sets the default again
    with NodeLink("fake0", config={ConfigKey.DEBOUNCE_MS: 25}, serial_factory=cable.serial) as link:
        link.wait_ready(WAIT)
        assert node.config == {1: 25, 2: 50}
        rebooted = FakeNode(boot_id=0xB0072)
        cable.unplug()
        wait_state(link, "unplugged")
        cable.plug(rebooted)
        wait_state(link, "running")
    assert rebooted.config[1] == 25


def test_send_command_returns_the_nack_itself(link: NodeLink) -> None:
    answer = link.send_command(Config(key=7, value=1))
    assert answer == Nack(code=NackCode.VALUE_OUT_OF_BOUNDS, text="unknown key 7")


# --- shutdown -------------------------------------------------------------------------


def test_shutdown_names_the_nodes_reason_and_reset_brings_it_back(
    link: NodeLink, node: FakeNode, reports: Reports
) -> None:
    node.shut_down(1, "ball detector and pinsetter both active > 5 s")
    state = wait_state(link, "shutdown")
    assert state["detail"] == (
        "node shut down: 1 (impossible input): ball detector and pinsetter both active > 5 s"
    )
    with pytest.raises(CommandRefused, match="NACK 5 \\(node is shut down\\)") as caught:
        link.query()
    assert caught.value.code == NackCode.NODE_IS_SHUT_DOWN
    assert link.ping().state == 1
    link.reset()
    assert link.state()["state"] == "running"
    node.set(11, 1)
    wait_until(lambda: (11, 1) in reports.values(), "a report after the reset")
    assert reports.values().count((11, 1)) == 1


def test_a_node_found_shut_down_at_connection_says_so(reports: Reports) -> None:
    node = FakeNode()
    node.shut_down(2, "report queue full")
    with NodeLink("fake0", on_report=reports, serial_factory=Cable(node).serial) as link:
        assert link.wait_ready(WAIT) == "shutdown"
        wait_until(lambda: "report queue full" in link.state()["detail"], "the reason")
        assert link.state()["detail"] == "node shut down: 2 (internal error): report queue full"
    assert reports.items == []  # a node in shutdown reports nothing, QUERY is not sent


# --- unplug and replug ----------------------------------------------------------------


def test_unplug_and_replug_lose_and_double_nothing(
    link: NodeLink, cable: Cable, node: FakeNode, reports: Reports
) -> None:
    states: list[str] = []
    link.on_state = lambda state: states.append(state["state"])
    node.set(1, 1)
    reports.wait_for(QUERY_REPORTS + 1)
    cable.unplug()
    state = wait_state(link, "unplugged")
    assert "port failed" in state["detail"] or "cannot open" in state["detail"]
    with pytest.raises(DeviceUnavailable, match="unplugged"):
        link.ping()
    for spot in (2, 3, 4):  # edges while the cable is out stay queued on the node
        node.set(spot, 1)
    cable.plug()
    wait_state(link, "running")
    node.set(5, 1)
    reports.wait_for(2 * QUERY_REPORTS + 5)
    wait_until(lambda: node.unacked == 0, "the node's queue to empty")
    assert reports.values() == [
        *[(n, 0) for n in range(1, 13)],  # the first QUERY
        (1, 1),
        (2, 1),  # the edges made while unplugged, once each, in order
        (3, 1),
        (4, 1),
        *[(n, int(n <= 4)) for n in range(1, 13)],  # the QUERY after the replug
        (5, 1),
    ]
    assert states[0] == "unplugged" and states[-1] == "running"
    assert link.state()["reboots"] == 0


def test_a_node_that_rebooted_while_unplugged_is_noted_and_resynced(
    link: NodeLink, cable: Cable, reports: Reports
) -> None:
    cable.unplug()
    wait_state(link, "unplugged")
    rebooted = FakeNode(boot_id=0xC0FFEE)
    rebooted.values[12] = 1  # the pinsetter is cycling as it comes back
    cable.plug(rebooted)
    state = wait_state(link, "running")
    assert state["reboots"] == 1 and state["boot_id"] == 0xC0FFEE
    assert "node rebooted (boot_id 0x00b0071d -> 0x00c0ffee)" in state["detail"]
    got = reports.wait_for(2 * QUERY_REPORTS)
    assert got[QUERY_REPORTS:] == [(n, 1 if n == 12 else 0) for n in range(1, 13)]


def test_a_port_that_is_not_there_yet_is_opened_when_it_comes(
    node: FakeNode, reports: Reports
) -> None:
    cable = Cable(node, plugged=False)
    with NodeLink("fake0", on_report=reports, serial_factory=cable.serial) as link:
        state = wait_state(link, "unplugged")
        assert "cannot open fake0" in state["detail"]
        with pytest.raises(LinkTimeout, match=r"not ready after 0\.2 s: unplugged"):
            link.wait_ready(0.2)
        cable.plug()
        assert link.wait_ready(WAIT) == "running"


def test_close_stops_the_thread_connected_or_not(node: FakeNode) -> None:
    before = set(threading.enumerate())
    for plugged in (True, False):
        cable = Cable(node, plugged=plugged)
        link = NodeLink("fake0", serial_factory=cable.serial)
        wait_state(link, "running" if plugged else "unplugged")
        link.close()
        assert link.state()["state"] == "closed"
        with pytest.raises(DeviceUnavailable, match="closed"):
            link.wait_ready(0.1)
    assert set(threading.enumerate()) == before


def test_commands_cannot_be_sent_from_the_links_own_callbacks(cable: Cable) -> None:
    errors: list[BaseException] = []
    own = NodeLink("fake0", serial_factory=cable.serial, start=False)

    def on_report(node_type: int, number: int, value: int, node_ms: int) -> None:
        try:
            own.ping()
        except RuntimeError as exc:
            errors.append(exc)

    own.on_report = on_report
    with own:
        own.start()
        wait_until(lambda: bool(errors), "a callback's command")
    assert "cannot be sent from the link's own callbacks" in str(errors[0])


# --- a real pseudo-terminal -----------------------------------------------------------


class PtyCable:
    """A :class:`FakeNode` on the master side of a pty; the host opens a stable symlink
    to the slave with real pyserial. Unplugging closes the pty and removes the link."""

    def __init__(self, node: FakeNode, path: Path) -> None:
        self.node = node
        self.path = path
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._master = self._slave = -1
        self.plug()

    def plug(self) -> None:
        # The cable keeps a slave fd of its own, as a harness would, so the master reads
        # no EIO while the host has the port closed.
        self._master, self._slave = pty.openpty()
        self.path.symlink_to(os.ttyname(self._slave))
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        master = self._master
        while not self._stop.is_set():
            ready, _, _ = select.select([master], [], [], 0.01)
            if ready:
                self.node.receive(os.read(master, 4096))
            self.node.tick()
            out = self.node.take(4096)
            if out:
                os.write(master, out)

    def unplug(self) -> None:
        self._stop.set()
        assert self._thread is not None
        self._thread.join(WAIT)
        self.path.unlink()
        os.close(self._slave)
        os.close(self._master)
        self.node.lose_output()


def test_unplug_and_replug_on_a_real_serial_port(tmp_path: Path, reports: Reports) -> None:
    node = FakeNode()
    port = tmp_path / "ttyNODE"
    cable = PtyCable(node, port)
    try:
        with NodeLink(str(port), on_report=reports) as link:
            assert link.wait_ready(WAIT) == "running"
            node.set(11, 1)
            reports.wait_for(QUERY_REPORTS + 1)
            cable.unplug()
            wait_state(link, "unplugged")
            node.set(11, 0)
            cable.plug()
            wait_state(link, "running")
            wait_until(lambda: len(reports.values(11)) == 4, "the second QUERY")
    finally:
        if port.is_symlink():
            cable.unplug()
    # The first QUERY, the edge, the edge made while unplugged, the second QUERY.
    assert reports.values(11) == [(11, 0), (11, 1), (11, 0), (11, 0)]


# --- node time ------------------------------------------------------------------------


def test_ticks_diff_handles_both_wraps() -> None:
    assert ticks_diff(5, 2**30 - 10) == 15  # MicroPython ticks_ms on the Pico
    assert ticks_diff(5, 2**32 - 10) == 15  # a u32 count on the wire
    assert ticks_diff(2**30 - 10, 5) == -15
    assert ticks_diff(1000, 400) == 600


def test_node_clock_maps_node_times_onto_the_host_clock() -> None:
    clock = NodeClock()
    assert clock.to_host(123, now=50.0) == 50.0  # no sample yet: arrival time
    clock.sample(sent=100.0, received=100.4, node_ms=2**32 - 100)  # a slow round trip
    clock.sample(sent=101.0, received=101.002, node_ms=2**32 - 100 + 1000)
    assert clock.to_host(50, now=200.0) == pytest.approx(101.001 + 0.150 - 1.0)
    assert clock.to_host(2**32 - 100 + 5000, now=103.0) == 103.0  # never in the future
    clock.forget()
    assert clock.to_host(50, now=7.0) == 7.0


def test_report_times_map_to_host_times_across_the_wrap(cable: Cable, reports: Reports) -> None:
    node = FakeNode(start_ms=2**32 - 20)
    cable.plug(node)
    with NodeLink("fake0", on_report=reports, serial_factory=cable.serial) as link:
        link.wait_ready(WAIT)
        wait_until(lambda: 170 <= node.now_ms() < 2**31, "the node's clock to wrap")
        edge = node.now_ms() - 150  # after the wrap, dated 150 ms back
        node.set(11, 1, at_ms=edge)
        reports.wait_for(QUERY_REPORTS + 1)
        arrived = time.monotonic()
        mapped = link.host_time(edge)
    # Good to half the PING round trip, however slow the machine.
    assert arrived - 5.0 < mapped <= arrived - 0.1
