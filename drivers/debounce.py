"""Contact debouncing as a pure function of timed samples, so it is tested without threads.

A switch that chatters (a pin wobbling as it falls) flips its input many times in a few
milliseconds. The debouncer reports a value only once the raw input has held it for
``settle`` seconds; shorter runs are ignored, so a burst of chatter gives one clean
transition and a wobble that ends where it began gives none.

Example:
    >>> d = Debouncer(0.01, value=True, at=0.0)
    >>> for t, v in [(1.000, False), (1.002, True), (1.003, False)]:
    ...     d.feed(v, t)
    >>> d.stable(1.005)
    Stable(value=True, since=0.0)
    >>> d.stable(1.020)
    Stable(value=False, since=1.003)
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.errors import BadReading

__all__ = ["Debouncer", "Stable"]


@dataclass(frozen=True, slots=True)
class Stable:
    """A debounced value and the time of the raw edge that began its steady run.

    The value was confirmed ``settle`` seconds after ``since``.
    """

    value: bool
    since: float


class Debouncer:
    """Turns a chattering input, fed as ``(value, t)`` samples or edges, into a stable value."""

    __slots__ = ("_last_t", "_raw", "_raw_since", "_settle", "_stable")

    def __init__(self, settle: float, *, value: bool = False, at: float = 0.0) -> None:
        """Start with ``value`` taken as stable since time ``at``; ``settle`` is in seconds."""
        if not settle >= 0:
            raise ValueError(f"settle must be a number of seconds >= 0, not {settle!r}")
        self._settle = settle
        self._stable = Stable(value, at)
        self._raw = value
        self._raw_since = at
        self._last_t = at

    @property
    def settle(self) -> float:
        """Seconds the raw input must hold a value before it counts."""
        return self._settle

    def feed(self, value: bool, t: float) -> None:
        """Record that the raw input reads ``value`` at time ``t`` (times must not run back)."""
        if t < self._last_t:
            raise BadReading(f"sample at t={t} is earlier than the previous one at {self._last_t}")
        self._last_t = t
        if value == self._raw:
            return
        self._stable = self.stable(t)
        self._raw = value
        self._raw_since = t

    def stable(self, now: float) -> Stable:
        """The debounced value at ``now`` (not earlier than the last sample)."""
        if self._raw != self._stable.value and now - self._raw_since >= self._settle:
            return Stable(self._raw, self._raw_since)
        return self._stable

    def settled(self, now: float) -> bool:
        """True when the raw input has not changed for ``settle`` seconds at ``now``."""
        return now - self._raw_since >= self._settle
