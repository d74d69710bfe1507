"""Bowling-lane devices and the lane that turns their edges into readings.

A lane has a pin deck (a switch under each of the ten spots, closed while a pin stands),
a ball detector in the pit (one edge per ball, after the ball has passed the pins), a
foul-line light beam and the pinsetter's cycle signal. :class:`Lane` watches all four
and reports one reading per fact (``drivers.lanetracker``), once the pins are still:
``BallRead`` for each delivered ball (and whether the foul beam was broken),
``PinsDisplaced`` when the deck changed with no ball and no pinsetter cycle, and
``RackSet`` when a pinsetter cycle ends.

The rules live in :class:`~drivers.lanetracker.LaneTracker`, a pure state machine fed
with timed edges, so they are tested without threads; :class:`Lane` drives it from
gpiozero callbacks and one timer thread of its own, the only thread that calls
``on_reading``.

Example:
    >>> from gpiozero.pins.mock import MockFactory
    >>> import threading
    >>> factory, got, done = MockFactory(), [], threading.Event()
    >>> def on_reading(reading):
    ...     got.append(reading)
    ...     done.set()
    >>> pins = LanePins.default()
    >>> with build_lane(pins, pin_factory=factory, settle_time=0.01,
    ...                 on_reading=on_reading) as lane:
    ...     factory.pin(pins.ball_detector).drive_low()
    ...     done.wait(5)
    True
    >>> type(got[0]).__name__, sorted(got[0].standing), got[0].foul
    ('BallRead', [], False)
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeAlias, TypedDict

from gpiozero import DigitalInputDevice

from drivers.closing import Closeable
from drivers.debounce import Debouncer
from drivers.lanetracker import Checkpoint, LaneReading, LaneTracker

if TYPE_CHECKING:
    # Only a type here: drivers.wire's package imports this module.
    from drivers.wire.link import NodeLink, ReportHandler

__all__ = [
    "SPOTS",
    "BallDetector",
    "DeckStatus",
    "FoulLine",
    "Lane",
    "LanePins",
    "LaneStatus",
    "LineStatus",
    "NodeReports",
    "PinDeck",
    "PinsetterCycle",
    "build_lane",
]

SPOTS: Final = frozenset(range(1, 11))
_JOIN_TIMEOUT: Final = 10.0
# How long a link may take to note a report it delivered as its position, once the
# consumer has taken it in (a few statements on its reader thread).
_POSITION_GRACE: Final = 1.0
_POSITION_POLL: Final = 0.001
ORDER_WAIT: Final = 5.0
"""Seconds a node's link may make no progress catching up before it holds nobody back."""
_ORDER_POLL: Final = 0.005

_log = logging.getLogger(__name__)

Clock: TypeAlias = Callable[[], float]
Hook: TypeAlias = Callable[[], None]


class LineStatus(TypedDict):
    """One input's health for ``hoyle doctor``: its pin, whether it reads, its state."""

    pin: str
    working: bool
    active: bool | None
    error: str | None


class DeckStatus(TypedDict):
    """The pin deck's health: each spot's pin (keyed "1".."10"), the pins standing."""

    pins: dict[str, str]
    working: bool
    standing: list[int]
    error: str | None


class LaneStatus(TypedDict):
    """Every lane device's health, and whether the lane's thread is running."""

    running: bool
    pin_deck: DeckStatus
    foul_line: LineStatus
    ball_detector: LineStatus
    pinsetter: LineStatus


def _call_guarded(hook: Hook | None, what: str) -> None:
    """Run a device callback; a failure is logged so the callback thread keeps going."""
    if hook is None:
        return
    try:
        hook()
    except Exception:
        _log.exception("%s handler failed; carrying on", what)


def _pin_name(pin_factory: Any, pin: int | str, role: str) -> str:
    """The board's name for ``pin`` (e.g. 4, "BCM4" and "BOARD7" are all "GPIO4")."""
    names: set[str] = {
        str(info.name)
        for _header, info in pin_factory.board_info.find_pin(pin)
        if "gpio" in info.interfaces
    }
    if len(names) != 1:
        raise ValueError(f"{role}: {pin!r} is not a GPIO pin on this board")
    return names.pop()


def _check_distinct(pin_factory: Any, wiring: Mapping[str, int | str]) -> None:
    """Raise ValueError naming both roles if two roles are wired to the same pin."""
    seen: dict[str, str] = {}
    for role, pin in wiring.items():
        name = _pin_name(pin_factory, pin, role)
        if name in seen:
            raise ValueError(f"{seen[name]} and {role} are both wired to {name}")
        seen[name] = role


class _InputLine(Closeable):
    """One switch-like GPIO input with activated/deactivated hooks that never kill its thread."""

    role: ClassVar[str]

    def __init__(
        self,
        pin: int | str,
        *,
        pin_factory: Any,
        pull_up: bool | None = True,
        active_state: bool | None = None,
        bounce_time: float | None = None,
    ) -> None:
        """Open ``pin`` as an input; by default a contact to ground with the internal pull-up."""
        self.pin: Final = _pin_name(pin_factory, pin, self.role)
        self.when_activated: Hook | None = None
        self.when_deactivated: Hook | None = None
        self._device: Any = DigitalInputDevice(
            pin,
            pull_up=pull_up,
            active_state=active_state,
            bounce_time=bounce_time,
            pin_factory=pin_factory,
        )
        self._device.when_activated = self._activated
        self._device.when_deactivated = self._deactivated

    def _activated(self) -> None:
        _call_guarded(self.when_activated, f"{self.role} activated")

    def _deactivated(self) -> None:
        _call_guarded(self.when_deactivated, f"{self.role} deactivated")

    @property
    def is_active(self) -> bool:
        """True while the input is active (beam broken, ball passing, cycle running)."""
        return bool(self._device.is_active)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has released the pin."""
        return bool(self._device.closed)

    def status(self) -> LineStatus:
        """The pin, whether it can be read, and its state, for ``hoyle doctor``."""
        try:
            active = self.is_active
        except Exception as exc:
            return {"pin": self.pin, "working": False, "active": None, "error": str(exc)}
        return {"pin": self.pin, "working": True, "active": active, "error": None}

    def close(self) -> None:
        """Release the pin; hooks are no longer called."""
        self.when_activated = None
        self.when_deactivated = None
        self._device.close()


    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.pin!r})"


class FoulLine(_InputLine):
    """The foul-line light beam: active while a bowler's foot or body crosses the line."""

    role = "foul line"


class BallDetector(_InputLine):
    """The pit's ball detector: one activation per ball, after the ball has passed the pins."""

    role = "ball detector"


class PinsetterCycle(_InputLine):
    """The pinsetter's cycle signal: active while the machine sweeps and respots pins."""

    role = "pinsetter"


class PinDeck(Closeable):
    """The ten pin spots, each a switch closed while a pin stands on it, debounced.

    ``pins`` maps spot numbers (1 = head pin ... 7-10 = back row) to GPIO pins; a deck
    may wire only some spots. ``when_changed(spot, active)`` is called on every raw
    edge, chatter included, from gpiozero's callback thread.
    """

    def __init__(
        self,
        pins: Mapping[int, int | str],
        *,
        pin_factory: Any,
        pull_up: bool = True,
        debounce: float = 0.01,
        clock: Clock = time.monotonic,
    ) -> None:
        """Open every spot's input; ``debounce`` seconds is how long a switch must hold."""
        if not pins:
            raise ValueError("a pin deck needs at least one spot")
        for spot in pins:
            if isinstance(spot, bool) or spot not in SPOTS:
                raise ValueError(f"pin deck spot {spot!r} is not a spot number 1-10")
        if not debounce >= 0:
            raise ValueError(f"debounce must be a number of seconds >= 0, not {debounce!r}")
        spots = sorted(pins)
        _check_distinct(pin_factory, {f"pin deck spot {s}": pins[s] for s in spots})
        self.when_changed: Callable[[int, bool], None] | None = None
        self._clock = clock
        self._debounce = debounce
        self._lock = threading.Lock()
        self._devices: dict[int, Any] = {}
        try:
            for spot in spots:
                self._devices[spot] = DigitalInputDevice(
                    pins[spot], pull_up=pull_up, pin_factory=pin_factory
                )
        except Exception:
            self.close()
            raise
        self._names: Final = {spot: str(dev.pin) for spot, dev in self._devices.items()}
        now = clock()
        self._debouncers: Final = {
            spot: Debouncer(debounce, value=bool(dev.is_active), at=now)
            for spot, dev in self._devices.items()
        }
        for spot, dev in self._devices.items():
            dev.when_activated = functools.partial(self._edge, spot, True)
            dev.when_deactivated = functools.partial(self._edge, spot, False)

    def _edge(self, spot: int, active: bool) -> None:
        try:
            with self._lock:
                self._debouncers[spot].feed(active, self._clock())
        except Exception:
            _log.exception("pin deck spot %d: edge not recorded", spot)
        # Called outside the lock: the hook may take the Lane's lock, whose holder may
        # be waiting for standing().
        hook = self.when_changed
        if hook is not None:
            _call_guarded(functools.partial(hook, spot, active), f"pin deck spot {spot}")

    @property
    def pins(self) -> Mapping[int, str]:
        """Each wired spot's GPIO pin name."""
        return dict(self._names)

    @property
    def debounce(self) -> float:
        """Seconds a spot's switch must hold before its pin counts as standing or down."""
        return self._debounce

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has released the pins."""
        return all(dev.closed for dev in self._devices.values())

    def standing(self) -> frozenset[int]:
        """The spots whose pins stand now, debounced."""
        now = self._clock()
        with self._lock:
            return frozenset(s for s, d in self._debouncers.items() if d.stable(now).value)

    def status(self) -> DeckStatus:
        """Each spot's pin, whether the deck can be read, and the pins standing."""
        error: str | None = None
        try:
            for dev in self._devices.values():
                dev.is_active  # noqa: B018 - reading the pin is the health check
        except Exception as exc:
            error = str(exc)
        return {
            "pins": {str(spot): name for spot, name in self._names.items()},
            "working": error is None,
            "standing": sorted(self.standing()),
            "error": error,
        }

    def close(self) -> None:
        """Release every spot's pin."""
        self.when_changed = None
        for dev in self._devices.values():
            dev.close()


    def __repr__(self) -> str:
        return f"PinDeck({self._names!r})"


class NodeReports:
    """Sensor nodes' reports as a consumer that releases them only once logged takes them in.

    The consumer's devices take each node's reports through its link's ``on_report``;
    :meth:`attach`, called once they are wired and before the links start, wraps it so
    that, under the consumer's condition, it is known that reports are owed a checkpoint,
    which report an edge came from (:meth:`follows`) and, once every link has noted what
    it delivered, each node's position (:meth:`checkpoint`). Used by the lane (its
    ``reports``) and by the pockets. ``on_consumed`` takes the checkpoints of
    reports that made no reading, for a consumer that hands those over (the lane).

    Time order. While a node's link connects, or sends again the reports its node held
    (``NodeLink.catching_up``: a restarted service), another node's report waits until
    every older one is in: so a foul-line node's foul and the pin-deck node's ball
    reach the consumer in the order they happened, however the two links' threads run.
    A link that makes no progress for ``ORDER_WAIT`` seconds holds nobody back.
    :meth:`frontier` says up to when the consumer has every edge.
    """

    def __init__(self, on_consumed: Callable[[Checkpoint], None] | None = None) -> None:
        """Follow no link yet; :meth:`track` each, then :meth:`attach`."""
        self.on_consumed = on_consumed
        self._links: dict[str, tuple[NodeLink, tuple[int, ...]]] = {}
        self._cond: threading.Condition | None = None
        self._local = threading.local()
        self._owed = False
        # Per node: a report being delivered now; the position before the last one
        # delivered and when (the link notes the new position just after it).
        self._delivering: dict[str, bool] = {}
        self._last: dict[str, tuple[tuple[int, int] | None, float]] = {}
        # Per node: the edge time of the last report delivered, of a report waiting for
        # its turn, and when it last made progress while catching up.
        self._reached: dict[str, float] = {}
        self._waiting: dict[str, float] = {}
        self._progress: dict[str, float] = {}

    def track(self, name: str, link: NodeLink, inputs: Iterable[int]) -> None:
        """Follow node ``name`` on ``link``; its checkpoints give ``inputs``' values, in order."""
        self._links[name] = (link, tuple(inputs))

    def attach(self, cond: threading.Condition) -> None:
        """Wrap each link's ``on_report``; its notes are kept, and notified, under ``cond``."""
        self._cond = cond
        for name, (link, _) in self._links.items():
            link.on_report = self._noting(name, link, link.on_report)

    def _noting(self, name: str, link: NodeLink, handler: ReportHandler | None) -> ReportHandler:
        def on_report(node_type: int, number: int, value: int, node_time_ms: int) -> None:
            cond = self._cond
            assert cond is not None
            before = link.delivered()
            at = link.host_time(node_time_ms)
            with cond:
                self._waiting[name] = at
                while self._behind(name, at):
                    cond.wait(_ORDER_POLL)
                del self._waiting[name]
                self._delivering[name] = True
                self._last[name] = (before, time.monotonic())
            self._local.follows = None if before is None else (name, *before)
            try:
                if handler is not None:
                    handler(node_type, number, value, node_time_ms)
            finally:
                self._local.follows = None
                with cond:
                    self._delivering[name] = False
                    self._last[name] = (before, time.monotonic())
                    self._reached[name] = at
                    if name in self._progress:
                        self._progress[name] = time.monotonic()
                    self._owed = True
                    cond.notify_all()

        return on_report

    def _catching_up(self) -> dict[str, float]:
        """Each node whose link is catching up, and the edge time it has delivered up to
        (or is about to deliver); under the condition. A link that made no progress for
        ORDER_WAIT seconds is left out."""
        now = time.monotonic()
        out: dict[str, float] = {}
        for name, (link, _) in self._links.items():
            if not link.catching_up():
                self._progress.pop(name, None)
                continue
            if now - self._progress.setdefault(name, now) <= ORDER_WAIT:
                out[name] = self._waiting.get(name, self._reached.get(name, -math.inf))
        return out

    def _behind(self, name: str, at: float) -> bool:
        """True if another node catching up may still deliver a report older than ``at``."""
        return any((reached, other) < (at, name)
                   for other, reached in self._catching_up().items() if other != name)

    def frontier(self) -> float:
        """The time up to which every node's edges are in (infinite unless one catches up).

        Call under the condition. The consumer reads nothing due after it.
        """
        return min(self._catching_up().values(), default=math.inf)

    @property
    def owed(self) -> bool:
        """True if reports were delivered since the last checkpoint (under the condition)."""
        return self._owed

    def follows(self) -> tuple[str, int, int] | None:
        """On a link's thread, while it delivers a report: the node and its report before it."""
        follows: tuple[str, int, int] | None = getattr(self._local, "follows", None)
        return follows

    def checkpoint(self, idle: Callable[[], bool] = lambda: True) -> Checkpoint | None:
        """Each node's ``(boot_id, seq, inputs' values)`` once every report is in hand.

        Call under the condition, while the consumer is ``idle`` (every report it took in
        is in its readings). Waits, the condition released, while a link has yet to note
        a report it delivered; None if nothing is owed, the consumer is no longer idle,
        or a link does not note its report in time (reports still owed then).
        """
        cond = self._cond
        assert cond is not None
        while self._owed and idle():
            marks: dict[str, tuple[int, ...]] = {}
            for name, (link, inputs) in self._links.items():
                delivered = link.delivered_inputs()
                position = None if delivered is None else delivered[0]
                last = self._last.get(name)
                if last is not None and (self._delivering.get(name) or position == last[0]):
                    if time.monotonic() - last[1] > _POSITION_GRACE:
                        return None
                    break
                if delivered is not None and set(inputs) <= delivered[1].keys():
                    marks[name] = (*delivered[0], *(delivered[1][number] for number in inputs))
            else:
                self._owed = False
                return marks or None
            cond.wait(_POSITION_POLL)
        return None


class Lane(Closeable):
    """A bowling lane: its four devices composed into one stream of readings.

    ``on_reading`` is called once per reading, in order, always from the lane's own
    thread (never two at once); if it raises, the error is logged and the next reading
    still comes. The lane owns the devices: :meth:`close` reads anything pending,
    stops the thread and closes them.
    """

    def __init__(
        self,
        deck: PinDeck,
        foul_line: FoulLine,
        ball_detector: BallDetector,
        pinsetter: PinsetterCycle,
        *,
        settle_time: float = 0.5,
        on_reading: Callable[[LaneReading], None],
        clock: Clock = time.monotonic,
        reports: NodeReports | None = None,
    ) -> None:
        """Start watching; ``clock`` must tick with real time (the deck's clock, too).

        ``reports``, when the devices are nodes' whose consumer releases their reports
        once logged: whenever readings taken leave the lane idle (every edge fed so far is
        in them), its checkpoint rides on the last of them (its ``checkpoint``), so the
        consumer knows which edges that reading settles; each reading also carries the
        node report before its first edge (``follows``); and when the lane is idle with
        node reports that made no reading (a node's answers on reconnecting, a beam
        broken with no ball), their checkpoint goes to its ``on_consumed`` from the
        lane's thread.
        """
        self._reports = reports
        self._deck = deck
        self._foul_line = foul_line
        self._ball_detector = ball_detector
        self._pinsetter = pinsetter
        self._on_reading = on_reading
        self._clock = clock
        # Re-entrant: mock pins call back on the thread that holds hold_readings().
        self._cond = threading.Condition(threading.RLock())
        self._outbox: list[LaneReading] = []
        self._closing = False
        self._tracker = LaneTracker(
            deck.standing,
            settle_time=settle_time,
            deck_quiet=deck.debounce,
            standing=deck.standing(),
            cycling=pinsetter.is_active,
            follows=None if self._reports is None else self._follows,
        )
        if self._reports is not None:
            self._reports.attach(self._cond)
        self._thread = threading.Thread(target=self._run, name="hoyle-lane", daemon=True)
        self._thread.start()
        deck.when_changed = self._deck_changed
        foul_line.when_activated = functools.partial(self._feed, self._tracker.foul)
        ball_detector.when_activated = functools.partial(self._feed, self._tracker.ball)
        pinsetter.when_activated = functools.partial(self._feed, self._tracker.cycle_started)
        pinsetter.when_deactivated = functools.partial(self._feed, self._tracker.cycle_ended)

    def _deck_changed(self, spot: int, active: bool) -> None:
        self._feed(self._tracker.deck_changed)

    def _feed(self, event: Callable[[float], list[LaneReading]]) -> None:
        with self._cond:
            if self._closing:
                return
            at = self._clock()
            if self._reports is not None:
                # A node's report may come well after its edge (sent again to a restarted
                # service): what fell due before the edge is read first, as it was live.
                self._outbox.extend(self._tracker.poll(at))
            self._outbox.extend(event(at))
            self._cond.notify()

    def _follows(self) -> Checkpoint | None:
        assert self._reports is not None
        follows = self._reports.follows()
        return None if follows is None else {follows[0]: follows[1:]}

    def _idle(self) -> bool:
        """Every edge fed is in a reading handed out or in the batch (under the lock)."""
        return self._tracker.idle and not self._outbox

    def _marks(self) -> Checkpoint | None:
        """The checkpoint for readings that leave the lane idle (under the lock)."""
        return None if self._reports is None else self._reports.checkpoint(self._idle)

    def _run(self) -> None:
        stop = False
        while not stop:
            consumed: Checkpoint | None = None
            with self._cond:
                while True:
                    if self._closing:
                        self._outbox.extend(self._tracker.flush())
                        stop = True
                        break
                    now = self._clock()
                    frontier = math.inf if self._reports is None else self._reports.frontier()
                    self._outbox.extend(self._tracker.poll(min(now, frontier)))
                    if self._outbox:
                        break
                    if self._reports is not None and self._reports.owed:
                        consumed = self._reports.checkpoint(self._idle)
                        if consumed is not None:
                            break
                        if self._outbox:
                            continue
                    due = self._tracker.deadline()
                    if due is not None and frontier < due:
                        # A node still catching up: its older edges may yet come.
                        self._cond.wait(_ORDER_POLL)
                    else:
                        self._cond.wait(None if due is None else max(0.0, due - now))
                batch, self._outbox = self._outbox, []
                if batch and self._tracker.idle:
                    marks = self._marks()
                    if marks is not None:
                        batch[-1] = dataclasses.replace(batch[-1], checkpoint=marks)
            for reading in batch:
                try:
                    self._on_reading(reading)
                except Exception:
                    _log.exception("on_reading failed for %r; carrying on", reading)
            on_consumed = None if self._reports is None else self._reports.on_consumed
            if consumed is not None and on_consumed is not None:
                try:
                    on_consumed(consumed)
                except Exception:
                    _log.exception("on_consumed failed for %r; carrying on", consumed)

    @property
    def settle_time(self) -> float:
        """Seconds the deck must be still after a ball before the ball is read."""
        return self._tracker.settle_time

    @contextlib.contextmanager
    def hold_readings(self) -> Iterator[None]:
        """Make no reading until the block ends; edges inside are recorded with their times.

        For a simulator driving mock pins from its own thread (gpiozero's mock pins call
        back on the thread that drives them): everything it does inside is read as one
        delivery, however long that thread is paused half-way. Callbacks from other
        threads wait for the block to end, so keep it short.
        """
        with self._cond:
            yield

    def status(self) -> LaneStatus:
        """Each device's pin and whether it works, plus whether the lane is running."""
        return {
            "running": self._thread.is_alive() and not self._closing,
            "pin_deck": self._deck.status(),
            "foul_line": self._foul_line.status(),
            "ball_detector": self._ball_detector.status(),
            "pinsetter": self._pinsetter.status(),
        }

    def close(self) -> None:
        """Read anything pending, stop the lane's thread and close the devices."""
        self._deck.when_changed = None
        for line in (self._foul_line, self._ball_detector, self._pinsetter):
            line.when_activated = None
            line.when_deactivated = None
        with self._cond:
            self._closing = True
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(_JOIN_TIMEOUT)
            if self._thread.is_alive():
                _log.error("lane thread still busy in on_reading after %.0f s", _JOIN_TIMEOUT)
        for device in (self._deck, self._foul_line, self._ball_detector, self._pinsetter):
            device.close()



@dataclass(frozen=True, slots=True)
class LanePins:
    """Which GPIO pin each lane input is wired to; ``spots[n - 1]`` is spot n's switch."""

    spots: tuple[int | str, ...]
    foul_line: int | str
    ball_detector: int | str
    pinsetter: int | str

    def __post_init__(self) -> None:
        # Config hands over lists; the dataclass stays frozen and hashable.
        object.__setattr__(self, "spots", tuple(self.spots))
        if len(self.spots) != len(SPOTS):
            raise ValueError(f"a lane has 10 pin spots, not {len(self.spots)}: {self.spots!r}")

    @classmethod
    def default(cls) -> LanePins:
        """A standard wiring (BCM numbers) that leaves I2C, SPI and the UART free."""
        return cls(
            spots=(4, 5, 6, 12, 13, 16, 17, 22, 23, 24),
            foul_line=25,
            ball_detector=26,
            pinsetter=27,
        )

    def deck(self) -> dict[int, int | str]:
        """The spots as a PinDeck mapping."""
        return {spot: pin for spot, pin in enumerate(self.spots, start=1)}

    def wiring(self) -> dict[str, int | str]:
        """Every input by role, for messages and checks."""
        roles: dict[str, int | str] = {f"pin deck spot {s}": p for s, p in self.deck().items()}
        roles.update(
            {
                FoulLine.role: self.foul_line,
                BallDetector.role: self.ball_detector,
                PinsetterCycle.role: self.pinsetter,
            }
        )
        return roles


def build_lane(
    lane_pins: LanePins,
    *,
    pin_factory: Any,
    settle_time: float = 0.5,
    on_reading: Callable[[LaneReading], None],
    debounce: float = 0.01,
    clock: Clock = time.monotonic,
) -> Lane:
    """Open a lane's devices as ``lane_pins`` wires them (contacts to ground, pulled up)."""
    _check_distinct(pin_factory, lane_pins.wiring())
    opened: list[PinDeck | _InputLine] = []
    try:
        deck = PinDeck(lane_pins.deck(), pin_factory=pin_factory, debounce=debounce, clock=clock)
        opened.append(deck)
        foul_line = FoulLine(lane_pins.foul_line, pin_factory=pin_factory)
        opened.append(foul_line)
        ball_detector = BallDetector(lane_pins.ball_detector, pin_factory=pin_factory)
        opened.append(ball_detector)
        pinsetter = PinsetterCycle(lane_pins.pinsetter, pin_factory=pin_factory)
        opened.append(pinsetter)
        return Lane(
            deck,
            foul_line,
            ball_detector,
            pinsetter,
            settle_time=settle_time,
            on_reading=on_reading,
            clock=clock,
        )
    except Exception:
        for device in opened:
            device.close()
        raise
