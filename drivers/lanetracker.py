"""The lane's rules as a pure state machine: timed edges in, readings out.

:class:`LaneTracker` decides when a ball, a displaced pin or a new rack is read; it has
no threads and no pins, so its timing rules are tested on their own. The readings it
makes are the lane's whole vocabulary (:data:`LaneReading`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

__all__ = ["BallRead", "Checkpoint", "LaneReading", "LaneTracker", "PinsDisplaced", "RackSet"]

_log = logging.getLogger(__name__)

Checkpoint: TypeAlias = Mapping[str, tuple[int, ...]]
"""How far each source of the lane's edges had been consumed when a reading left the
lane idle (for sensor nodes: boot_id, report seq and input values, by device name); as a
reading's ``follows``, the source's position just before the edge that began the reading
(for a node: boot_id and the seq of the report before that edge's)."""


@dataclass(frozen=True, slots=True)
class BallRead:
    """One delivered ball: the pins standing once they settled, and whether it was a foul.

    ``at`` is the time of the ball-detector edge.
    """

    standing: frozenset[int]
    foul: bool
    at: float
    checkpoint: Checkpoint | None = field(default=None, compare=False, repr=False)
    follows: Checkpoint | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PinsDisplaced:
    """The deck changed with no ball and no pinsetter cycle (the pins are to be respotted).

    ``at`` is the time of the first change.
    """

    standing: frozenset[int]
    at: float
    checkpoint: Checkpoint | None = field(default=None, compare=False, repr=False)
    follows: Checkpoint | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RackSet:
    """A pinsetter cycle ended with these pins standing; ``at`` is when the cycle ended.

    ``checkpoint`` (on every reading) is set by a lane that was asked for checkpoints,
    on the last reading that left it idle; ``follows`` by a tracker given ``follows``.
    """

    standing: frozenset[int]
    at: float
    checkpoint: Checkpoint | None = field(default=None, compare=False, repr=False)
    follows: Checkpoint | None = field(default=None, compare=False, repr=False)


LaneReading: TypeAlias = BallRead | PinsDisplaced | RackSet


class LaneTracker:
    """The lane's rules as a pure state machine: timed edges in, readings out.

    Each event method takes the time of the edge and returns the readings it makes due
    at once; :meth:`poll` returns the readings whose settle time has passed.
    ``read_deck`` answers the debounced pins standing now; ``follows``, if given, answers
    where the edge being fed comes from, and each reading carries it from the edge that
    began it (the ball, the cycle's end, the first deck change), so that the same edges
    fed again make readings that say so.

    - A ball is read ``settle_time`` after its edge, or ``deck_quiet`` after the last
      deck change if that is later; deck changes shortly before the edge (pins hit
      before the ball reached the pit) belong to the ball.
    - A ball edge while a ball is still settling is taken as detector bounce: no bowler
      can deliver two balls within one settle time.
    - Deck changes during a pinsetter cycle are the machine's; a cycle's start reads
      whatever is pending, and its end is read ``deck_quiet`` later as a rack.
    - The foul beam marks the next ball read; the latch clears at each ball and rack. A
      foul edge older than the settling ball is that ball's (its report came after the
      ball's: another node); one older than a ball already read is logged and dropped.

    Example:
        >>> deck = frozenset(range(1, 11))
        >>> tracker = LaneTracker(lambda: deck, settle_time=0.5, standing=deck)
        >>> tracker.foul(0.9), tracker.ball(1.0)
        ([], [])
        >>> deck = frozenset({7, 10})
        >>> tracker.deck_changed(1.1), tracker.poll(1.5), tracker.deadline()
        ([], [], 1.6)
        >>> [(sorted(r.standing), r.foul, r.at) for r in tracker.poll(1.6)]
        [([7, 10], True, 1.0)]
    """

    def __init__(
        self,
        read_deck: Callable[[], frozenset[int]],
        *,
        settle_time: float,
        deck_quiet: float | None = None,
        standing: frozenset[int],
        cycling: bool = False,
        follows: Callable[[], Checkpoint | None] | None = None,
    ) -> None:
        """Start with ``standing`` known; ``deck_quiet`` is at least ``settle_time``."""
        if not settle_time >= 0:
            raise ValueError(f"settle_time must be seconds >= 0, not {settle_time!r}")
        self._read_deck = read_deck
        self._follows = follows
        self._settle = settle_time
        self._quiet = settle_time if deck_quiet is None else max(settle_time, deck_quiet)
        self._known = frozenset(standing)
        self._cycling = cycling
        self._foul = False
        self._ball: float | None = None
        self._ball_foul = False
        self._last_ball: float | None = None
        self._rack: float | None = None
        self._first_change: float | None = None
        self._last_change: float | None = None
        # Where the edge that began the pending ball, rack or deck change came from.
        self._ball_follows: Checkpoint | None = None
        self._rack_follows: Checkpoint | None = None
        self._change_follows: Checkpoint | None = None

    @property
    def settle_time(self) -> float:
        """Seconds the deck must be still after a ball edge before the ball is read."""
        return self._settle

    @property
    def known(self) -> frozenset[int]:
        """The pins standing as of the last reading (or the start)."""
        return self._known

    @property
    def cycling(self) -> bool:
        """True while a pinsetter cycle runs."""
        return self._cycling

    def ball(self, t: float) -> list[LaneReading]:
        """The ball detector fired at ``t``."""
        if self._cycling:
            _log.warning("ball detector edge at %.3f during a pinsetter cycle ignored", t)
            return []
        if self._ball is not None:
            _log.info("ball detector edge at %.3f while a ball settles: bounce, ignored", t)
            return []
        out: list[LaneReading] = []
        if self._rack is not None:
            _log.warning("ball at %.3f before the rack settled: rack read early", t)
            out.append(self._take_rack())
        self._ball = t
        self._ball_follows = self._source()
        self._ball_foul, self._foul = self._foul, False
        return out

    def foul(self, t: float) -> list[LaneReading]:
        """The foul beam was broken at ``t``."""
        if self._ball is not None and t < self._ball:
            self._ball_foul = True
        elif self._last_ball is not None and t < self._last_ball:
            _log.warning("foul beam edge at %.3f came after the ball at %.3f was read: "
                         "not given to a later ball", t, self._last_ball)
        else:
            self._foul = True
        return []

    def deck_changed(self, t: float) -> list[LaneReading]:
        """A pin-deck switch changed (raw, chatter included) at ``t``."""
        if self._first_change is None:
            self._first_change = t
            self._change_follows = self._source()
        self._last_change = t
        return []

    def cycle_started(self, t: float) -> list[LaneReading]:
        """The pinsetter began a cycle at ``t``; whatever is pending is read now."""
        if self._cycling:
            return []
        out = self._take_pending()
        self._cycling = True
        return out

    def cycle_ended(self, t: float) -> list[LaneReading]:
        """The pinsetter finished its cycle at ``t``; the rack is read once settled."""
        if not self._cycling:
            return []
        self._cycling = False
        self._rack = t
        self._rack_follows = self._source()
        self._foul = False
        # The deck changes made during the cycle were the machine's work.
        self._first_change = self._last_change = None
        return []

    @property
    def idle(self) -> bool:
        """True when no edge awaits a reading: nothing to settle, no cycle, no foul latched."""
        return self.deadline() is None and not self._cycling and not self._foul

    def deadline(self) -> float | None:
        """When the next reading falls due, or None if nothing is pending."""
        if self._cycling:
            return None
        ends = []
        if self._ball is not None:
            ends.append(self._ball + self._settle)
        elif self._rack is not None:
            ends.append(self._rack + self._quiet)
        if self._last_change is not None:
            ends.append(self._last_change + self._quiet)
        return max(ends, default=None)

    def poll(self, now: float) -> list[LaneReading]:
        """The readings due by ``now``."""
        due = self.deadline()
        if due is None or now < due:
            return []
        return self._take_pending()

    def flush(self) -> list[LaneReading]:
        """Read whatever is pending now, settled or not (used when the lane shuts down)."""
        return [] if self._cycling else self._take_pending()

    def _take_pending(self) -> list[LaneReading]:
        out: list[LaneReading] = []
        if self._ball is not None:
            standing = self._known = self._read_deck()
            out.append(BallRead(standing, self._ball_foul, self._ball,
                                follows=self._ball_follows))
            self._last_ball, self._ball = self._ball, None
        elif self._rack is not None:
            out.append(self._take_rack())
        elif self._first_change is not None:
            standing = self._read_deck()
            if standing != self._known:
                self._known = standing
                out.append(PinsDisplaced(standing, self._first_change,
                                         follows=self._change_follows))
        self._first_change = self._last_change = None
        return out

    def _source(self) -> Checkpoint | None:
        return None if self._follows is None else self._follows()

    def _take_rack(self) -> RackSet:
        assert self._rack is not None
        standing = self._known = self._read_deck()
        reading = RackSet(standing, self._rack, follows=self._rack_follows)
        self._rack = None
        return reading
