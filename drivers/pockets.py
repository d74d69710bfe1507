"""A pool table's pocket sensors and ball-return reader, turned into one report per ball.

Each of the six pockets has a switch in its throat, closed while a ball rests there:
wired to a GPIO pin (:class:`PocketSensor`, contact to ground with the pull-up) or read
by the pockets node (:class:`~drivers.wire.pockets.PocketsNode`). :class:`Pockets`
debounces every throat switch (:class:`~drivers.debounce.Debouncer`: contact bounce as
the ball lands is one ball, not several) and reports each ball that fell as a
:class:`PocketReport`: the pocket, the time of the edge and, where the table has a
ball-return reader, the ball's number.

The reader names balls as they roll back down the gully, in the order they fell. A
fallen ball waits up to ``reader_wait`` seconds for its name; balls that fell together
are named in order only when the reader named every one of them: if one read is missing,
nobody can tell which, so all of them are reported without a number (the referee names
them) rather than risk naming a ball wrong. ``reader_wait`` must exceed the slowest
gully; without a reader it is 0 and every report comes at once without a number.

:class:`Pockets` calls ``on_report`` from one thread of its own, one report at a time,
in the order the balls fell.

Example:
    >>> from gpiozero.pins.mock import MockFactory
    >>> import threading
    >>> factory, got, done = MockFactory(), [], threading.Event()
    >>> def on_report(report):
    ...     got.append(report)
    ...     done.set()
    >>> with build_gpio_pockets(DEFAULT_PINS, pin_factory=factory, debounce=0.005,
    ...                         on_report=on_report) as pockets:
    ...     factory.pin(DEFAULT_PINS["foot-left"]).drive_low()
    ...     done.wait(5)
    True
    >>> got[0].pocket, got[0].ball
    ('foot-left', None)
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypedDict

import serial

from drivers.closing import Closeable
from drivers.debounce import Debouncer, Stable
from drivers.lane import Clock, LineStatus, _check_distinct, _InputLine
from drivers.wire.link import NodeLink
from drivers.wire.messages import POCKETS as NODE_INPUT_POCKETS
from drivers.wire.pockets import PocketsNode

__all__ = [
    "DEFAULT_PINS",
    "NODE_POCKETS",
    "POCKET_NAMES",
    "PocketReport",
    "PocketSensor",
    "Pockets",
    "PocketsStatus",
    "build_gpio_pockets",
    "build_node_pockets",
]

POCKET_NAMES: Final = ("head-left", "head-right", "side-left", "side-right", "foot-left",
                       "foot-right")
"""The pockets as the rules name them; the head is the end the game is broken from."""

NODE_POCKETS: Final[Mapping[int, str]] = {
    number: {"corner-left-foot": "foot-left", "corner-left-head": "head-left",
             "corner-right-head": "head-right", "corner-right-foot": "foot-right"}.get(name, name)
    for number, name in NODE_INPUT_POCKETS.items()
}
"""The pockets node's inputs 1-6 by the rules' pocket names."""

DEFAULT_PINS: Final[Mapping[str, int]] = {
    "head-left": 5, "head-right": 6, "side-left": 12, "side-right": 13, "foot-left": 16,
    "foot-right": 17,
}
"""A standard wiring (BCM numbers) that leaves I2C, SPI and the UART free."""

_JOIN_TIMEOUT: Final = 10.0
_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PocketReport:
    """One ball fell: its pocket, the host time of the edge, its number if the reader named it."""

    pocket: str
    at: float
    ball: int | None = None


class PocketsStatus(TypedDict):
    """Every pocket's line, whether the table's sensors can be read, and why not."""

    pockets: dict[str, LineStatus]
    working: bool
    error: str | None


class PocketSensor(_InputLine):
    """One pocket's throat switch on a GPIO pin: active while a ball rests in the throat."""

    role = "pocket"


class Pockets(Closeable):
    """The six pockets' lines and the ball-return reader as one stream of reports.

    ``lines`` maps pocket names to their lines (GPIO or node inputs). A node's lines
    are already debounced by the node (``debounce=0``), and their edge times are the
    node's (``changed_at``). ``node``, if given, is closed with the pockets and its
    health is theirs. The reader's names arrive through :meth:`ball_returned`.
    """

    def __init__(
        self,
        lines: Mapping[str, _InputLine],
        *,
        on_report: Callable[[PocketReport], None],
        debounce: float = 0.01,
        reader_wait: float = 0.0,
        clock: Clock = time.monotonic,
        node: PocketsNode | None = None,
    ) -> None:
        """Start watching ``lines``; ``debounce`` and ``reader_wait`` are in seconds."""
        unknown = sorted(set(lines) - set(POCKET_NAMES))
        if unknown or not lines:
            raise ValueError(f"pockets must be some of {', '.join(POCKET_NAMES)}, "
                             f"not {', '.join(unknown) or 'none'}")
        if not reader_wait >= 0:
            raise ValueError(f"reader_wait must be seconds >= 0, not {reader_wait!r}")
        self._lines = dict(lines)
        self._on_report = on_report
        self._reader_wait = reader_wait
        self._clock = clock
        self._node = node
        self._cond = threading.Condition()
        self._closing = False
        now = clock()
        self._debouncers = {name: Debouncer(debounce, value=line.is_active, at=now)
                            for name, line in self._lines.items()}
        self._down = {name: line.is_active for name, line in self._lines.items()}
        self._edge_at = dict.fromkeys(self._lines, now)
        # Balls fallen and waiting for their names: (pocket, edge time, name deadline).
        self._fallen: deque[tuple[str, float, float]] = deque()
        # Names read and not yet given to a ball: (number, time read).
        self._reads: deque[tuple[int, float]] = deque()
        self._thread = threading.Thread(target=self._run, name="hoyle-pockets", daemon=True)
        self._thread.start()
        for name, line in self._lines.items():
            line.when_activated = lambda name=name: self._edge(name, True)
            line.when_deactivated = lambda name=name: self._edge(name, False)

    @property
    def reader_wait(self) -> float:
        """Seconds a fallen ball waits for the reader to name it."""
        return self._reader_wait

    def _edge(self, pocket: str, active: bool) -> None:
        at = getattr(self._lines[pocket], "changed_at", None)
        with self._cond:
            now = self._clock()
            # A node's edge time is mapped from its clock and may land a little before the
            # last one fed (or before this object began): never let time run back.
            t = now if at is None else min(max(at, self._edge_at[pocket]), now)
            debouncer = self._debouncers[pocket]
            try:
                # A ball confirmed before this edge counts even if the edge ends its run
                # before the thread looks (a ball through the throat in one go).
                self._settle(pocket, debouncer.stable(t), now)
                debouncer.feed(active, t)
            except Exception:
                _log.exception("pocket %s: edge not recorded", pocket)
            self._edge_at[pocket] = t
            self._cond.notify()

    def _settle(self, pocket: str, stable: Stable, now: float) -> None:
        """Note a confirmed change of ``pocket``: a ball fell when it closed (under the lock)."""
        if stable.value != self._down[pocket]:
            self._down[pocket] = stable.value
            if stable.value:
                self._fallen.append((pocket, stable.since, now + self._reader_wait))
                if len(self._fallen) > 1 and self._fallen[-2][1] > stable.since:
                    # Pockets confirmed in one look are in the order their balls fell.
                    self._fallen = deque(sorted(self._fallen, key=lambda fall: fall[1]))

    def ball_returned(self, number: int) -> None:
        """The ball-return reader named ball ``number`` (from any thread)."""
        with self._cond:
            self._reads.append((number, self._clock()))
            self._cond.notify()

    def _due(self, now: float, *, flush: bool = False) -> list[PocketReport]:
        """Fallen balls whose report is due at ``now``, or all with ``flush`` (under the lock)."""
        for name, debouncer in self._debouncers.items():
            self._settle(name, debouncer.stable(now), now)
        out: list[PocketReport] = []
        if self._fallen and len(self._reads) >= len(self._fallen):
            while self._fallen:
                pocket, at, _ = self._fallen.popleft()
                out.append(PocketReport(pocket, at, self._reads.popleft()[0]))
        elif self._fallen and (flush or self._last_deadline() <= now):
            if self._reads:
                _log.warning("the reader named %d of %d balls fallen together; the referee "
                             "names them all", len(self._reads), len(self._fallen))
                self._reads.clear()
            out = [PocketReport(pocket, at) for pocket, at, _ in self._fallen]
            self._fallen.clear()
        while self._reads and not self._fallen and (
                flush or self._reads[0][1] + self._reader_wait <= now):
            number, _ = self._reads.popleft()
            _log.warning("the reader named ball %d, but no ball fell in a pocket", number)
        return out

    def _last_deadline(self) -> float:
        """When the last of the fallen balls stops waiting for its name (under the lock)."""
        return max(deadline for _, _, deadline in self._fallen)

    def _deadline(self, now: float) -> float | None:
        """When a report may fall due with no new edge or read (under the lock)."""
        times = [self._edge_at[name] + d.settle for name, d in self._debouncers.items()
                 if not d.settled(now)]
        if self._fallen:
            times.append(self._last_deadline())
        elif self._reads:
            times.append(self._reads[0][1] + self._reader_wait)
        return min(times, default=None)

    def _run(self) -> None:
        stop = False
        while not stop:
            with self._cond:
                while True:
                    now = self._clock()
                    batch = self._due(now, flush=self._closing)
                    stop = self._closing
                    if batch or stop:
                        break
                    due = self._deadline(now)
                    self._cond.wait(None if due is None else max(0.001, due - now))
            for report in batch:
                try:
                    self._on_report(report)
                except Exception:
                    _log.exception("on_report failed for %r; carrying on", report)

    def status(self) -> PocketsStatus:
        """Each pocket's line and whether the sensors can be read, for ``hoyle doctor``."""
        lines = {name: line.status() for name, line in self._lines.items()}
        errors = [f"{name}: {s['error']}" for name, s in lines.items() if not s["working"]]
        if self._node is not None:
            node = self._node.status()
            errors = [] if node["working"] else [str(node["error"])]
        return {"pockets": lines, "working": not errors, "error": "; ".join(errors) or None}

    def close(self) -> None:
        """Report what is pending, stop the thread and release the lines (and the node)."""
        for line in self._lines.values():
            line.when_activated = None
            line.when_deactivated = None
        with self._cond:
            self._closing = True
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(_JOIN_TIMEOUT)
            if self._thread.is_alive():
                _log.error("pockets thread still busy in on_report after %.0f s", _JOIN_TIMEOUT)
        if self._node is not None:
            self._node.close()
        else:
            for line in self._lines.values():
                line.close()


def build_gpio_pockets(
    pins: Mapping[str, int | str],
    *,
    pin_factory: Any,
    on_report: Callable[[PocketReport], None],
    debounce: float = 0.01,
    reader_wait: float = 0.0,
    clock: Clock = time.monotonic,
) -> Pockets:
    """Open the pockets' throat switches as ``pins`` wires them (contacts to ground, pulled up).

    ``reader_wait`` > 0 when a reader calls :meth:`Pockets.ball_returned`.
    """
    _check_distinct(pin_factory, {f"pocket {name}": pin for name, pin in pins.items()})
    opened: dict[str, _InputLine] = {}
    try:
        for name, pin in pins.items():
            opened[name] = PocketSensor(pin, pin_factory=pin_factory)
        return Pockets(opened, on_report=on_report, debounce=debounce,
                       reader_wait=reader_wait, clock=clock)
    except Exception:
        for line in opened.values():
            line.close()
        raise


def build_node_pockets(
    node: NodeLink | str,
    *,
    on_report: Callable[[PocketReport], None],
    reader_wait: float = 0.0,
    debounce: float | None = None,
    serial_factory: Callable[..., Any] = serial.Serial,
) -> Pockets:
    """The pockets as the pockets node reads them, its ball-return reader naming the balls.

    ``node`` is a link (started here once its handlers are set) or a port to open one
    on; ``debounce`` is the node's debounce time (its own default if None).
    """
    table = PocketsNode(node, debounce=debounce, serial_factory=serial_factory)
    try:
        lines: dict[str, _InputLine] = {NODE_POCKETS[n]: line
                                        for n, line in table.pockets.items()}
        pockets = Pockets(lines, on_report=on_report, debounce=0.0, reader_wait=reader_wait,
                          node=table)
    except Exception:
        table.close()
        raise
    table.when_ball_read = pockets.ball_returned
    if isinstance(node, NodeLink):
        node.start()
    return pockets
