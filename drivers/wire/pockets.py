"""A billiard table's pockets node: a line per pocket and the ball-return reader.

The pockets node reads the six pockets' throat sensors and the reader that names each
ball as it comes back. Its inputs reach the host through
:class:`~drivers.wire.nodes.NodeInputs`, as the lane's nodes' do.

Example:
    >>> from drivers.wire.link import NodeLink
    >>> table = PocketsNode(NodeLink("/dev/ttyACM0", start=False))
    >>> table.pockets[1].pin, table.ball, table.status()["working"]
    ('/dev/ttyACM0:1', None, False)
    >>> table.close()
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final, TypedDict

import serial

from drivers.closing import Closeable
from drivers.lane import _call_guarded
from drivers.wire.link import NodeLink
from drivers.wire.messages import BALL_IDENTITY_INPUT, POCKETS, ConfigKey, NodeType
from drivers.wire.nodes import (
    Clock,
    EdgeClock,
    NodeInputs,
    _check_type,
    _debounce_ms,
    _NodeLine,
)

__all__ = ["PocketNode", "PocketsNode", "PocketsStatus"]


class PocketNode(_NodeLine):
    """One pocket's throat sensor on a pockets node: active while a ball is in the throat."""

    role: ClassVar[str] = "pocket"

    def __init__(self, inputs: NodeInputs, number: int) -> None:
        """Follow pocket ``number`` (1-6) of ``inputs`` (a pockets node)."""
        _check_type(inputs, NodeType.POCKETS, self.role)
        if number not in POCKETS:
            raise ValueError(f"pocket {number!r} is not a pocket number 1-6")
        super().__init__(inputs, number)
        self.number: Final = number
        self.name: Final = POCKETS[number]


class PocketsStatus(TypedDict):
    """A pockets node's health: whether it runs, each pocket's state, the last ball read."""

    port: str
    working: bool
    error: str | None
    pockets: dict[str, bool]
    ball: int | None


class PocketsNode(Closeable):
    """A billiard table's pockets node: a line per pocket and the ball-return reader.

    ``pockets[n].when_activated`` fires when a ball drops into pocket n (1-6, see
    :data:`~drivers.wire.messages.POCKETS`); ``when_ball_read(number)`` when the return
    reader identifies a ball. Both are called from the link's reader thread; the
    pocket's ``changed_at`` is the host time of its edge.
    """

    def __init__(
        self,
        node: NodeLink | str,
        *,
        debounce: float | None = None,
        serial_factory: Callable[..., Any] = serial.Serial,
        clock: Clock = time.monotonic,
    ) -> None:
        """Open the pockets node on ``node`` (a link, or a port to open one on)."""
        config: dict[int, int] | None = None
        if debounce is not None:
            config = {ConfigKey.DEBOUNCE_MS: _debounce_ms(debounce)}
        self._inputs = NodeInputs(
            node,
            node_type=NodeType.POCKETS,
            clock=EdgeClock(lag=0.0, base=clock),
            config=config,
            serial_factory=serial_factory,
            link_clock=clock,
        )
        self.when_ball_read: Callable[[int], None] | None = None
        self.pockets: Final[Mapping[int, PocketNode]] = {
            number: PocketNode(self._inputs, number) for number in POCKETS
        }
        self._inputs.watch(BALL_IDENTITY_INPUT, self._ball_changed)

    @property
    def link(self) -> NodeLink:
        """The node's link."""
        return self._inputs.link

    @property
    def ball(self) -> int | None:
        """The number of the ball the return reader holds now, or None."""
        return self._inputs.value(BALL_IDENTITY_INPUT) or None

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the node has reported every input once; False on timeout."""
        return self._inputs.wait_known(timeout)

    def _ball_changed(self, value: int, at: float, first: bool) -> None:
        hook = self.when_ball_read
        if hook is not None and value and not first:
            _call_guarded(functools.partial(hook, value), f"ball {value} read")

    def status(self) -> PocketsStatus:
        """Whether the node runs, each pocket's state by name, and the ball held."""
        working, error = self._inputs.health()
        return {
            "port": self._inputs.port,
            "working": working,
            "error": error,
            "pockets": {p.name: p.is_active for p in self.pockets.values()},
            "ball": self.ball,
        }

    def close(self) -> None:
        """Let go of the node (closing its link if this object opened it)."""
        self.when_ball_read = None
        for pocket in self.pockets.values():
            pocket.close()
        self._inputs.unwatch(BALL_IDENTITY_INPUT)

