"""A node's clock on the host: tick differences that wrap, and the mapping onto host time.

A REPORT carries the node's ``ticks_ms`` at the edge; :class:`NodeClock`, fed by the
link's PING/PONG round trips, says when that was on the host clock.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Final

__all__ = ["TICKS_PERIOD", "NodeClock", "ticks_diff"]

TICKS_PERIOD: Final = 1 << 30
"""MicroPython's ticks_ms period on the Pico; a u32 (2**32) wrap is a multiple of it."""


def ticks_diff(later: int, earlier: int) -> int:
    """``later - earlier`` in ms for node tick values that wrap (MicroPython's ticks_diff).

    Correct while the true difference is within ±2**29 ms (six days).
    """
    half = TICKS_PERIOD // 2
    return (later - earlier + half) % TICKS_PERIOD - half


class NodeClock:
    """Maps a node's tick times (ms, wrapping) onto the host clock from PING/PONG samples.

    host time ≈ node time + offset. A PONG carries the node's clock read somewhere
    between the host sending PING and receiving PONG, so it is taken as read at their
    midpoint, good to half the round trip. Of the last ``keep`` samples the one with the
    shortest round trip is used (one slow answer does not skew it); pings renew them so
    the drift of the two clocks stays small. A mapped time is never later than ``now``:
    an edge cannot be reported before it happened. With no sample yet, ``now`` is used.

    Example:
        >>> clock = NodeClock()
        >>> clock.sample(sent=100.0, received=100.002, node_ms=5000)
        >>> round(clock.to_host(4000, now=101.0), 3)
        99.001
    """

    def __init__(self, keep: int = 8) -> None:
        """Keep the last ``keep`` samples."""
        self._lock = threading.Lock()
        self._samples: deque[tuple[float, float, int]] = deque(maxlen=keep)

    def sample(self, *, sent: float, received: float, node_ms: int) -> None:
        """The node read ``node_ms`` between host times ``sent`` and ``received``."""
        with self._lock:
            self._samples.append((received - sent, (sent + received) / 2, node_ms))

    def forget(self) -> None:
        """Drop every sample (the node rebooted: its clock started again)."""
        with self._lock:
            self._samples.clear()

    @property
    def timed(self) -> bool:
        """True once a sample maps the node's clock (until :meth:`forget`)."""
        with self._lock:
            return bool(self._samples)

    def to_host(self, node_ms: int, *, now: float) -> float:
        """The host time of node time ``node_ms``, no later than ``now``."""
        with self._lock:
            if not self._samples:
                return now
            _round_trip, host, ref = min(self._samples)
        return min(now, host + ticks_diff(node_ms, ref) / 1000)
