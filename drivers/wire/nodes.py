"""Devices whose inputs a sensor node reads, with the interfaces of the directly wired ones.

A pin-deck node reads the ten spot switches, the ball detector and the pinsetter's
cycle signal; a foul-line node reads the foul beam. The devices here present exactly the
interfaces of :mod:`drivers.lane` (:class:`PinDeckNode` is a ``PinDeck``,
:class:`FoulLineNode` a ``FoulLine``...), so :class:`~drivers.lane.Lane` runs on them
unchanged: :func:`build_node_lane` builds one. :class:`NodeInputs` and
:class:`EdgeClock` serve every node-fed device, the billiard table's pockets node
(:mod:`drivers.wire.pockets`) too.

Times. The node debounces its switches and dates each change at the raw edge that
began the steady run, on its own clock; the link maps that onto the host clock. While a
report is delivered the lane's clock (:class:`EdgeClock`) answers the edge's time, so
readings carry edge times, as with pins read directly. Reports arrive a little after
their edges (the debounce time, the USB latency, a retransmission if a frame was lost),
so the lane otherwise runs ``report_lag`` behind the host clock: by the time it decides
a ball has settled, every edge up to that moment has been reported. The pin deck then
answers which pins stood at the lane's moment, not at the last report's.

Example:
    >>> from drivers.wire.link import NodeLink
    >>> link = NodeLink("/dev/ttyACM0", start=False)
    >>> inputs = NodeInputs(link, node_type=NodeType.FOUL_LINE, clock=EdgeClock(lag=0.0))
    >>> line = FoulLineNode(inputs)
    >>> line.pin, line.is_active, line.status()["working"]
    ('/dev/ttyACM0:1', False, False)
    >>> line.close()
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, TypeAlias

import serial

from drivers.errors import DriverError
from drivers.lane import (
    SPOTS,
    BallDetector,
    DeckStatus,
    FoulLine,
    Lane,
    LineStatus,
    NodeReports,
    PinDeck,
    PinsetterCycle,
    _call_guarded,
    _InputLine,
)
from drivers.lanetracker import LaneReading
from drivers.wire.link import NodeLink
from drivers.wire.messages import (
    BALL_DETECTOR_INPUT,
    BALL_IDENTITY_INPUT,
    CONFIG_BOUNDS,
    FOUL_BEAM_INPUT,
    NODE_INPUTS,
    PINSETTER_INPUT,
    ConfigKey,
    NodeType,
    node_type_name,
)

__all__ = [
    "BallDetectorNode",
    "EdgeClock",
    "FoulLineNode",
    "NodeInputs",
    "PinDeckNode",
    "PinsetterNode",
    "build_node_lane",
    "default_report_lag",
]

Clock: TypeAlias = Callable[[], float]
InputHook: TypeAlias = Callable[[int, float, bool], None]
"""``hook(value, at, first)``: an input changed to ``value`` at host time ``at``;
``first`` marks the first value known for it (the starting state, not an edge)."""

_HISTORY: Final = 32
# Transport allowance on top of the debounce time: USB latency and thread wake-ups.
_TRANSPORT_SLACK: Final = 0.02
_RETRANSMIT: Final = CONFIG_BOUNDS[ConfigKey.RETRANSMIT_MS].default / 1000

_log = logging.getLogger(__name__)


def default_report_lag(debounce: float, retransmit: float = _RETRANSMIT) -> float:
    """How far behind the host clock a node-fed lane runs, in seconds.

    The debounce time, one retransmission period (a lost frame is sent again after
    it) and a transport allowance.
    """
    return debounce + retransmit + _TRANSPORT_SLACK


class EdgeClock:
    """A lane's clock over node-fed devices: a report's edge time while it is delivered.

    Called on a thread that is delivering a node's report, it answers that report's
    edge time (host clock); anywhere else it answers ``base() - lag``.
    """

    def __init__(self, *, lag: float, base: Clock = time.monotonic) -> None:
        """Run ``lag`` seconds behind ``base`` between reports."""
        if not lag >= 0:
            raise ValueError(f"lag must be seconds >= 0, not {lag!r}")
        self.lag: Final = lag
        self._base = base
        self._local = threading.local()

    def __call__(self) -> float:
        at: float | None = getattr(self._local, "at", None)
        return self._base() - self.lag if at is None else at

    @contextlib.contextmanager
    def edge(self, at: float) -> Iterator[None]:
        """Within the block, this thread's clock reads ``at``."""
        previous = getattr(self._local, "at", None)
        self._local.at = at
        try:
            yield
        finally:
            self._local.at = previous


class NodeInputs:
    """One node's inputs on the host: each input's latest value, and hooks on changes.

    ``node`` is a :class:`NodeLink` (its ``on_report`` is taken over, and its inputs are
    queried afresh) or a port to open a link on, which this object then owns: it is
    closed when the last device using it is closed. ``config`` is applied to the node.
    A link not started yet that resumes where a previous host stopped (its
    ``resume_inputs``) gives the inputs' values as of then, so the reports it delivers
    again are edges from those values; if the node turns out to have rebooted, they
    are forgotten at its first report.
    """

    def __init__(
        self,
        node: NodeLink | str,
        *,
        node_type: NodeType,
        clock: EdgeClock,
        config: Mapping[int, int] | None = None,
        serial_factory: Callable[..., Any] = serial.Serial,
        link_clock: Clock = time.monotonic,
    ) -> None:
        """Attach to ``node`` (a link, or a port to open one on)."""
        self.node_type: Final = node_type
        self._valid = NODE_INPUTS[node_type]
        self._clock = clock
        self._cond = threading.Condition()
        self._values: dict[int, int] = {}
        self._hooks: dict[int, InputHook] = {}
        self._users = 0
        self.link: Final = (
            node
            if isinstance(node, NodeLink)
            else NodeLink(
                node,
                on_report=self._report,
                node_type=node_type,
                config=config,
                serial_factory=serial_factory,
                clock=link_clock,
                start=False,
            )
        )
        self._owns_link = self.link is not node
        resumed = (
            node.delivered_inputs()
            if isinstance(node, NodeLink) and not node.started
            else None
        )
        if resumed is not None:
            self._values = {k: v for k, v in resumed[1].items() if k in self._valid}
        self._resuming = resumed is not None
        if isinstance(node, NodeLink):
            node.on_report = self._report
            for key, value in (config or {}).items():
                node.configure(key, value)
            if node.state()["state"] == "running":
                try:
                    node.query()
                except DriverError as exc:
                    _log.warning(
                        "%s: inputs not queried (%s); the next connection will", node.port, exc
                    )
        else:
            self.link.start()

    @property
    def port(self) -> str:
        """The node's serial port."""
        return self.link.port

    @property
    def clock(self) -> EdgeClock:
        """The clock whose edge times the hooks run under."""
        return self._clock

    def value(self, number: int) -> int:
        """Input ``number``'s latest value (0 until the node has reported it)."""
        with self._cond:
            return self._values.get(number, 0)

    def known(self) -> frozenset[int]:
        """The inputs the node has reported at least once."""
        with self._cond:
            return frozenset(self._values)

    def wait_known(self, timeout: float) -> bool:
        """Wait until every input of the node type has been reported; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._valid <= self._values.keys(), timeout)

    def health(self) -> tuple[bool, str | None]:
        """Whether the node is running, and if not, why (for the devices' status)."""
        state = self.link.state()
        if state["state"] == "running":
            return True, None
        detail = f": {state['detail']}" if state["detail"] else ""
        return False, f"node on {self.port} is {state['state']}{detail}"

    def watch(self, number: int, hook: InputHook) -> int | None:
        """Call ``hook`` on every change of input ``number``; the device now uses the node.

        Returns the input's value as of then (None if not reported yet): every later
        change reaches the hook.
        """
        if number not in self._valid:
            raise ValueError(f"a {node_type_name(self.node_type)} node has no input {number}")
        with self._cond:
            if number in self._hooks:
                raise ValueError(f"input {number} of {self.port} is already in use")
            self._hooks[number] = hook
            self._users += 1
            return self._values.get(number)

    def unwatch(self, number: int) -> None:
        """Stop calling input ``number``'s hook; the last device gone closes an owned link."""
        with self._cond:
            if self._hooks.pop(number, None) is None:
                return
            self._users -= 1
            last = self._users == 0
        if last and self._owns_link:
            self.link.close()

    def close(self) -> None:
        """Drop every hook, and close the link if this object opened it."""
        with self._cond:
            self._hooks.clear()
            self._users = 0
        if self._owns_link:
            self.link.close()

    def _report(self, node_type: int, number: int, value: int, node_time_ms: int) -> None:
        if node_type != self.node_type:
            _log.warning(
                "%s: report from a node of type %d where a %s node belongs; ignored",
                self.port,
                node_type,
                node_type_name(self.node_type),
            )
            return
        if number not in self._valid:
            _log.warning(
                "%s: a %s node has no input %d; its report ignored",
                self.port,
                node_type_name(self.node_type),
                number,
            )
            return
        if number != BALL_IDENTITY_INPUT and value not in (0, 1):
            _log.warning("%s: input %d reported %d, not 0 or 1; ignored", self.port, number, value)
            return
        at = self.link.host_time(node_time_ms)
        with self._cond:
            if self._resuming and self.link.delivered() is None:
                # The link ignored the resume (the node rebooted): the seeds are stale.
                self._values.clear()
            self._resuming = False
            previous = self._values.get(number)
            self._values[number] = value
            hook = self._hooks.get(number)
            self._cond.notify_all()
        if hook is None or previous == value:
            return
        with self._clock.edge(at):
            hook(value, at, previous is None)


class PinDeckNode(PinDeck):
    """The ten spot switches as a pin-deck node reads them (inputs 1-10), as a PinDeck.

    ``debounce`` is the node's debounce time: a change counts that long after its edge,
    as on a directly wired deck. ``when_changed(spot, active)`` is called for every
    change the node reports (already debounced), from the link's reader thread.
    """

    def __init__(self, inputs: NodeInputs, *, debounce: float) -> None:
        """Read the spots of ``inputs`` (a pin-deck node)."""
        # PinDeck.__init__ is not called: it opens GPIO pins, and these switches are the node's.
        if inputs.node_type is not NodeType.PIN_DECK:
            raise ValueError(
                f"{inputs.port} is a {node_type_name(inputs.node_type)} node, not a pin deck"
            )
        self.when_changed: Callable[[int, bool], None] | None = None
        self._inputs = inputs
        self._clock = inputs.clock
        self._debounce = debounce
        self._lock = threading.Lock()
        self._closed = False
        # Per spot, (since, standing) per change; since is -inf for the starting state.
        self._history: dict[int, deque[tuple[float, bool]]] = {
            spot: deque(maxlen=_HISTORY) for spot in sorted(SPOTS)
        }
        for spot in sorted(SPOTS):
            if inputs.watch(spot, functools.partial(self._changed, spot)):
                self._history[spot].append((-math.inf, True))

    def _changed(self, spot: int, value: int, at: float, first: bool) -> None:
        with self._lock:
            self._history[spot].append((-math.inf if first else at, bool(value)))
        hook = self.when_changed
        if hook is not None and not first:
            _call_guarded(functools.partial(hook, spot, bool(value)), f"pin deck spot {spot}")

    @property
    def pins(self) -> Mapping[int, str]:
        """Each spot's input, named "port:input"."""
        return {spot: f"{self._inputs.port}:{spot}" for spot in sorted(SPOTS)}

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has let go of the node."""
        return self._closed

    def standing(self) -> frozenset[int]:
        """The spots whose pins stood at the clock's time, debounced as the node does."""
        by = self._clock() - self._debounce
        with self._lock:
            return frozenset(spot for spot, h in self._history.items() if _value_at(h, by))

    def status(self) -> DeckStatus:
        """Each spot's input, whether the node is running, and the pins standing."""
        working, error = self._inputs.health()
        return {
            "pins": {str(spot): name for spot, name in self.pins.items()},
            "working": working,
            "standing": sorted(self.standing()),
            "error": error,
        }

    def close(self) -> None:
        """Let go of the node's spot inputs."""
        self.when_changed = None
        if not self._closed:
            self._closed = True
            for spot in sorted(SPOTS):
                self._inputs.unwatch(spot)

    def __repr__(self) -> str:
        return f"PinDeckNode({self._inputs.port!r})"


def _value_at(history: deque[tuple[float, bool]], t: float) -> bool:
    """The value in force at ``t``: the last change made by then, else the one before."""
    for since, value in reversed(history):
        if since <= t:
            return value
    # Changes alternate, so before the oldest one kept the value was its opposite.
    return not history[0][1] if history else False


class _NodeLine(_InputLine):
    """One on/off input of a node, with the hooks and status of a directly wired line."""

    def __init__(self, inputs: NodeInputs, number: int) -> None:
        """Follow input ``number`` of ``inputs``."""
        # _InputLine.__init__ is not called: it opens a GPIO pin, and this input is the
        # node's. Its Final ``pin`` names the node's port and input instead.
        self.pin = f"{inputs.port}:{number}"  # type: ignore[misc]
        self.when_activated: Callable[[], None] | None = None
        self.when_deactivated: Callable[[], None] | None = None
        self.changed_at: float | None = None
        """Host time of the last edge the node reported (None before any)."""
        self._inputs = inputs
        self._number = number
        self._closed = False
        inputs.watch(number, self._changed)

    def _changed(self, value: int, at: float, first: bool) -> None:
        if first:
            return
        self.changed_at = at
        if value:
            self._activated()
        else:
            self._deactivated()

    @property
    def is_active(self) -> bool:
        """True while the node reports the input active."""
        return bool(self._inputs.value(self._number))

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has let go of the node."""
        return self._closed

    def status(self) -> LineStatus:
        """The input, whether the node is running, and the input's state."""
        working, error = self._inputs.health()
        return {
            "pin": self.pin,
            "working": working,
            "active": self.is_active if working else None,
            "error": error,
        }

    def close(self) -> None:
        """Let go of the node's input; hooks are no longer called."""
        self.when_activated = None
        self.when_deactivated = None
        if not self._closed:
            self._closed = True
            self._inputs.unwatch(self._number)


class FoulLineNode(_NodeLine, FoulLine):
    """The foul-line beam as a foul-line node reads it, as a FoulLine."""

    def __init__(self, inputs: NodeInputs) -> None:
        """Follow the foul beam of ``inputs`` (a foul-line node)."""
        _check_type(inputs, NodeType.FOUL_LINE, self.role)
        super().__init__(inputs, FOUL_BEAM_INPUT)


class BallDetectorNode(_NodeLine, BallDetector):
    """The pit's ball detector as a pin-deck node reads it (input 11), as a BallDetector."""

    def __init__(self, inputs: NodeInputs) -> None:
        """Follow the ball detector of ``inputs`` (a pin-deck node)."""
        _check_type(inputs, NodeType.PIN_DECK, self.role)
        super().__init__(inputs, BALL_DETECTOR_INPUT)


class PinsetterNode(_NodeLine, PinsetterCycle):
    """The pinsetter's cycle signal as a pin-deck node reads it (input 12), as a PinsetterCycle."""

    def __init__(self, inputs: NodeInputs) -> None:
        """Follow the pinsetter signal of ``inputs`` (a pin-deck node)."""
        _check_type(inputs, NodeType.PIN_DECK, self.role)
        super().__init__(inputs, PINSETTER_INPUT)


def _check_type(inputs: NodeInputs, node_type: NodeType, role: str) -> None:
    if inputs.node_type is not node_type:
        raise ValueError(
            f"{role}: {inputs.port} is a {node_type_name(inputs.node_type)} node, "
            f"not a {node_type_name(node_type)} node"
        )


def _debounce_ms(debounce: float) -> int:
    """``debounce`` seconds as the node's debounce_ms; ValueError naming the bounds."""
    bounds = CONFIG_BOUNDS[ConfigKey.DEBOUNCE_MS]
    ms = round(debounce * 1000)
    if not bounds.low <= ms <= bounds.high:
        raise ValueError(f"a node debounces for {bounds.low}..{bounds.high} ms, not {debounce!r} s")
    return ms


def build_node_lane(
    node: NodeLink | str,
    *,
    foul_line: FoulLine | NodeLink | str,
    settle_time: float = 0.5,
    on_reading: Callable[[LaneReading], None],
    debounce: float = 0.01,
    report_lag: float | None = None,
    ready_timeout: float = 2.0,
    serial_factory: Callable[..., Any] = serial.Serial,
    clock: Clock = time.monotonic,
    reports: NodeReports | None = None,
) -> Lane:
    """A :class:`~drivers.lane.Lane` on a pin-deck node (spots, ball detector, pinsetter).

    ``foul_line`` is the lane's foul-line node (a link or a port) or a directly wired
    :class:`~drivers.lane.FoulLine` (the pin-deck node has no foul-line input).
    ``debounce`` is set on the nodes; ``report_lag`` defaults to
    :func:`default_report_lag`. Waits up to ``ready_timeout`` for the nodes' first
    values, so the lane starts from the deck as it stands; a node that is not there
    yet is logged and joins when it comes (the lane's status says so meanwhile).
    A link handed over unstarted is started here once the lane is wired, so that no
    edge it delivers (again, after a restart of the host) is missed: the lane starts
    from its inputs' seeded values (see :class:`NodeInputs`), or with none known.
    ``reports`` is the lane's (see :class:`~drivers.lane.Lane`).
    """
    ms = _debounce_ms(debounce)
    config: dict[int, int] = {ConfigKey.DEBOUNCE_MS: ms}
    if report_lag is None:
        retransmit = (
            node.config[ConfigKey.RETRANSMIT_MS] / 1000
            if isinstance(node, NodeLink)
            else _RETRANSMIT
        )
        report_lag = default_report_lag(ms / 1000, retransmit)
    edge_clock = EdgeClock(lag=report_lag, base=clock)
    opened: list[PinDeck | _InputLine] = []
    nodes: list[NodeInputs] = []
    try:
        deck_inputs = NodeInputs(
            node,
            node_type=NodeType.PIN_DECK,
            clock=edge_clock,
            config=config,
            serial_factory=serial_factory,
            link_clock=clock,
        )
        nodes.append(deck_inputs)
        deck = PinDeckNode(deck_inputs, debounce=ms / 1000)
        opened.append(deck)
        ball_detector = BallDetectorNode(deck_inputs)
        opened.append(ball_detector)
        pinsetter = PinsetterNode(deck_inputs)
        opened.append(pinsetter)
        if isinstance(foul_line, FoulLine):
            foul: FoulLine = foul_line
        else:
            foul_inputs = NodeInputs(
                foul_line,
                node_type=NodeType.FOUL_LINE,
                clock=edge_clock,
                config=config,
                serial_factory=serial_factory,
                link_clock=clock,
            )
            nodes.append(foul_inputs)
            foul = FoulLineNode(foul_inputs)
        opened.append(foul)
        deadline = clock() + ready_timeout
        for inputs in nodes:
            if not inputs.link.started:
                continue
            if not inputs.wait_known(max(0.0, deadline - clock())):
                _, why = inputs.health()
                _log.warning(
                    "%s: lane starts before the node reported its inputs (%s)", inputs.port, why
                )
        lane = Lane(
            deck,
            foul,
            ball_detector,
            pinsetter,
            settle_time=settle_time,
            on_reading=on_reading,
            clock=edge_clock,
            reports=reports,
        )
    except Exception:
        for device in opened:
            device.close()
        for inputs in nodes:
            inputs.close()
        raise
    for inputs in nodes:
        inputs.link.start()
    return lane
