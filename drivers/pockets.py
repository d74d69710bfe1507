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

On a pockets node whose link acknowledges only what its consumer releases
(``NodeLink(..., manual_ack=True)``, and ``on_consumed`` given), each report says which
of the node's reports it settles, so that none is acknowledged before it is logged:

- ``checkpoint``, ``(boot_id, seq, input 1..7 values)``: the node's position once every
  report it had delivered is in this report or an earlier one (the pockets are idle).
  Only the last report of a batch can carry it (two balls named together); release it
  once this report and every earlier one are logged, and a restarted link resumes there;
- ``follows``, ``(boot_id, seq)``: the node report delivered just before the one in which
  this ball's throat closed. The same ball delivered again after a restart has the same
  ``follows``, so a consumer that logged it without a checkpoint can tell it is a repeat.

Node reports that make no report (a throat opening again, QUERY answers, a read of no
ball) are settled by the next report's checkpoint, or, when the pockets are idle with no
report to carry it, through ``on_consumed(checkpoint)``. Balls still waiting for their
names when the pockets close are left with the node, which sends them again.

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

import dataclasses
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias, TypedDict

import serial

from drivers.closing import Closeable
from drivers.debounce import Debouncer, Stable
from drivers.lane import Clock, LineStatus, NodeReports, _check_distinct, _InputLine
from drivers.wire.link import NodeLink
from drivers.wire.messages import NODE_INPUTS, NodeType
from drivers.wire.messages import POCKETS as NODE_INPUT_POCKETS
from drivers.wire.pockets import PocketsNode

__all__ = [
    "DEFAULT_PINS",
    "NODE_POCKETS",
    "POCKET_NAMES",
    "NodeCheckpoint",
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
_NODE: Final = "pockets"
_NODE_INPUTS: Final = tuple(sorted(NODE_INPUTS[NodeType.POCKETS]))
_log = logging.getLogger(__name__)

NodeCheckpoint: TypeAlias = tuple[int, ...]
"""How far the pockets node's reports are consumed: boot_id, report seq, inputs 1-7's values."""


@dataclass(frozen=True, slots=True)
class PocketReport:
    """One ball fell: its pocket, the host time of the edge, its number if the reader named it.

    From a pockets node that the consumer releases, also ``checkpoint`` and ``follows``
    (see the module docstring); None otherwise.
    """

    pocket: str
    at: float
    ball: int | None = None
    checkpoint: NodeCheckpoint | None = field(default=None, compare=False, repr=False)
    follows: tuple[int, int] | None = field(default=None, compare=False, repr=False)


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
    ``on_consumed``, with a ``node`` whose link the consumer releases, makes the reports
    carry checkpoints (see the module docstring); it is called from the pockets' thread.
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
        on_consumed: Callable[[NodeCheckpoint], None] | None = None,
    ) -> None:
        """Start watching ``lines``; ``debounce`` and ``reader_wait`` are in seconds."""
        unknown = sorted(set(lines) - set(POCKET_NAMES))
        if unknown or not lines:
            raise ValueError(f"pockets must be some of {', '.join(POCKET_NAMES)}, "
                             f"not {', '.join(unknown) or 'none'}")
        if not reader_wait >= 0:
            raise ValueError(f"reader_wait must be seconds >= 0, not {reader_wait!r}")
        if on_consumed is not None and node is None:
            raise ValueError("on_consumed needs the pockets node whose reports it releases")
        self._lines = dict(lines)
        self._on_report = on_report
        self._reader_wait = reader_wait
        self._clock = clock
        self._node = node
        self._on_consumed = on_consumed
        self._cond = threading.Condition()
        # The node's reports as the pockets take them in (only with on_consumed), and the
        # position before each pocket's last edge.
        self._reports: NodeReports | None = None
        self._edge_follows: dict[str, tuple[int, int] | None] = dict.fromkeys(lines)
        self._closing = False
        now = clock()
        self._debouncers = {name: Debouncer(debounce, value=line.is_active, at=now)
                            for name, line in self._lines.items()}
        self._down = {name: line.is_active for name, line in self._lines.items()}
        self._edge_at = dict.fromkeys(self._lines, now)
        # Balls fallen and waiting for their names: (pocket, edge time, name deadline,
        # the node position before the report that closed the throat).
        self._fallen: deque[tuple[str, float, float, tuple[int, int] | None]] = deque()
        # Names read and not yet given to a ball: (number, time read).
        self._reads: deque[tuple[int, float]] = deque()
        if on_consumed is not None and node is not None:
            self._reports = NodeReports()
            self._reports.track(_NODE, node.link, _NODE_INPUTS)
            self._reports.attach(self._cond)
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
            follows = None if self._reports is None else self._reports.follows()
            self._edge_follows[pocket] = None if follows is None else follows[1:]
            self._cond.notify()

    def _settle(self, pocket: str, stable: Stable, now: float) -> None:
        """Note a confirmed change of ``pocket``: a ball fell when it closed (under the lock)."""
        if stable.value != self._down[pocket]:
            self._down[pocket] = stable.value
            if stable.value:
                self._fallen.append((pocket, stable.since, now + self._reader_wait,
                                     self._edge_follows[pocket]))
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
                pocket, at, _, follows = self._fallen.popleft()
                out.append(PocketReport(pocket, at, self._reads.popleft()[0],
                                        follows=follows))
        elif self._fallen and (flush or self._last_deadline() <= now):
            if self._reads:
                _log.warning("the reader named %d of %d balls fallen together; the referee "
                             "names them all", len(self._reads), len(self._fallen))
                self._reads.clear()
            out = [PocketReport(pocket, at, follows=follows)
                   for pocket, at, _, follows in self._fallen]
            self._fallen.clear()
        while self._reads and not self._fallen and (
                flush or self._reads[0][1] + self._reader_wait <= now):
            number, _ = self._reads.popleft()
            _log.warning("the reader named ball %d, but no ball fell in a pocket", number)
        return out

    def _last_deadline(self) -> float:
        """When the last of the fallen balls stops waiting for its name (under the lock)."""
        return max(fall[2] for fall in self._fallen)

    def _deadline(self, now: float) -> float | None:
        """When a report may fall due with no new edge or read (under the lock)."""
        times = [self._edge_at[name] + d.settle for name, d in self._debouncers.items()
                 if not d.settled(now)]
        if self._fallen:
            times.append(self._last_deadline())
        elif self._reads:
            times.append(self._reads[0][1] + self._reader_wait)
        return min(times, default=None)

    def _checkpoint(self) -> NodeCheckpoint | None:
        """The node's position if the pockets are idle with reports owed (under the lock).

        Waits (the lock released) while the link has yet to note the last report the
        pockets took in as delivered; None if they are not idle, or it does not.
        """
        if self._reports is None:
            return None
        checkpoint = self._reports.checkpoint(lambda: not self._fallen and not self._reads)
        return None if checkpoint is None else tuple(checkpoint[_NODE])

    def _run(self) -> None:
        stop = False
        while not stop:
            consumed: NodeCheckpoint | None = None
            with self._cond:
                while True:
                    now = self._clock()
                    # Balls a releasing consumer has not had stay with the node.
                    flush = self._closing and self._on_consumed is None
                    batch = self._due(now, flush=flush)
                    stop = self._closing
                    if batch or stop:
                        break
                    if self._on_consumed is not None:
                        consumed = self._checkpoint()
                        if consumed is not None:
                            break
                    due = self._deadline(now)
                    self._cond.wait(None if due is None else max(0.001, due - now))
                if batch and self._on_consumed is not None:
                    checkpoint = self._checkpoint()
                    if checkpoint is not None:
                        batch[-1] = dataclasses.replace(batch[-1], checkpoint=checkpoint)
            for report in batch:
                try:
                    self._on_report(report)
                except Exception:
                    _log.exception("on_report failed for %r; carrying on", report)
            if consumed is not None and self._on_consumed is not None:
                try:
                    self._on_consumed(consumed)
                except Exception:
                    _log.exception("on_consumed failed for %r; carrying on", consumed)

    def status(self) -> PocketsStatus:
        """Each pocket's line and whether the sensors can be read, for ``hoyle doctor``."""
        lines = {name: line.status() for name, line in self._lines.items()}
        errors = [f"{name}: {s['error']}" for name, s in lines.items() if not s["working"]]
        if self._node is not None:
            node = self._node.status()
            errors = [] if node["working"] else [str(node["error"])]
        return {"pockets": lines, "working": not errors, "error": "; ".join(errors) or None}

    def close(self) -> None:
        """Report what is pending, stop the thread and release the lines (and the node).

        With ``on_consumed``, balls not yet reported are left with the node instead.
        """
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
    on_consumed: Callable[[NodeCheckpoint], None] | None = None,
) -> Pockets:
    """The pockets as the pockets node reads them, its ball-return reader naming the balls.

    ``node`` is a link (started here once its handlers are set) or a port to open one
    on; ``debounce`` is the node's debounce time (its own default if None).
    ``on_consumed`` is for a link opened with ``manual_ack=True`` (and ``resume`` from
    the last checkpoint logged): the reports carry checkpoints to release once logged
    (see the module docstring).
    """
    if on_consumed is not None and not isinstance(node, NodeLink):
        raise ValueError("on_consumed needs a NodeLink opened with manual_ack=True")
    table = PocketsNode(node, debounce=debounce, serial_factory=serial_factory)
    try:
        lines: dict[str, _InputLine] = {NODE_POCKETS[n]: line
                                        for n, line in table.pockets.items()}
        pockets = Pockets(lines, on_report=on_report, debounce=0.0, reader_wait=reader_wait,
                          node=table, on_consumed=on_consumed)
    except Exception:
        table.close()
        raise
    table.when_ball_read = pockets.ball_returned
    if isinstance(node, NodeLink):
        node.start()
    return pockets
