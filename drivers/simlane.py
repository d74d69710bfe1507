"""A simulated bowling lane: a seeded bowler and pinsetter driving the lane's inputs.

The simulation acts only at the hardware edge: it presses and releases the inputs the
way a real lane would (pins chattering as they fall, the ball detector firing after the
ball has passed the pins, the foul beam broken now and then), and the real
:class:`~drivers.lane.Lane` reads them. The inputs are its "hands" (:class:`LaneHands`):
gpiozero's :class:`~gpiozero.pins.mock.MockPin` inputs of a lane wired to the Pi
(:class:`MockHands`), or the inputs of the real node firmware running under MicroPython
(:class:`NodeHands`, on :class:`~drivers.wire.simnode.SimNode` nodes read by a lane on
nodes). So the simulated table exercises the same driver code as a lane on a Pi.

The bowler is a small physical model: the ball runs on a line drawn around the pocket
(first ball) or the front pin of the leave (spare ball), knocks the pins it touches,
and each falling pin may carry the pin diagonally behind it. That gives a club
bowler's figures: about a quarter strikes, most first balls six to nine pins, splits
when the head pin is hit too full, washouts when it is missed, a gutter ball now and
then. Everything is drawn from one seeded generator, so a seed replays the same game.

Example:
    >>> from gpiozero.pins.mock import MockFactory
    >>> readings = []
    >>> full = frozenset(range(1, 11))
    >>> with SimulatedLane(LanePins.default(), pin_factory=MockFactory(), seed=7,
    ...                    next_rack=lambda: full, on_reading=readings.append,
    ...                    settle_time=0.01) as sim:
    ...     sim.bowl_one()
    >>> [type(r).__name__ for r in readings]
    ['RackSet', 'BallRead']
"""

from __future__ import annotations

import collections
import contextlib
import math
import random
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeAlias

from gpiozero.pins.mock import MockFactory

from drivers.closing import Closeable
from drivers.errors import LinkTimeout
from drivers.lane import SPOTS, Lane, LanePins, build_lane
from drivers.lanetracker import BallRead, LaneReading, RackSet
from drivers.wire.messages import BALL_DETECTOR_INPUT, FOUL_BEAM_INPUT, PINSETTER_INPUT
from drivers.wire.simnode import SimNode

__all__ = [
    "LaneFactory",
    "LaneHands",
    "LanePins",
    "Line",
    "MockHands",
    "NodeHands",
    "SimulatedLane",
    "mock_lane",
]

Line: TypeAlias = int | Literal["foul_line", "ball_detector", "pinsetter"]
"""A lane input: a pin spot 1-10, or the foul beam, the ball detector, the pinsetter."""

# Pin spots as (row, lateral offset); one offset unit is half the 12-inch pin spacing.
_SPOT_AT: Final = {
    1: (0, 0),
    2: (1, -1),
    3: (1, 1),
    4: (2, -2),
    5: (2, 0),
    6: (2, 2),
    7: (3, -3),
    8: (3, -1),
    9: (3, 1),
    10: (3, 3),
}
_SPOT_OF: Final = {at: spot for spot, at in _SPOT_AT.items()}
# Ball radius plus pin radius (4.25 + 2.38 inches) in offset units: closer centres touch.
_CONTACT: Final = 1.1
_FULL_HIT: Final = 0.35
_GUTTER_LINE: Final = 3.6
_GUTTER_RATE: Final = 0.02
_LEFT_HANDED: Final = 0.1
_POCKET: Final = 0.55
_FIRST_BALL_SPREAD: Final = 0.5
_SPARE_SPREAD: Final = 0.45
# Chance that a falling pin takes down the pin behind it on its side, on the other
# side, straight behind (two rows back), and across its own row.
_CARRY_SIDE: Final = 0.8
_CARRY_OTHER: Final = 0.2
_CARRY_BACK_FULL: Final = 0.5
_CARRY_BACK: Final = 0.1
_CARRY_ACROSS: Final = 0.1
_WOBBLE: Final = 0.15
_MAX_BOUNCES: Final = 4


@dataclass(frozen=True, slots=True)
class _Delivery:
    """What one ball does, drawn before any input moves."""

    foul: bool
    struck: tuple[int, ...]
    carried: tuple[int, ...]
    bounces: tuple[tuple[int, int], ...]
    wobbles: tuple[tuple[int, int], ...]
    dead: bool


def _aim(standing: frozenset[int], hand: int) -> tuple[float, float]:
    """The line the bowler aims at, and the spread of the ball around it."""
    if 1 in standing and len(standing) >= 6:
        return hand * _POCKET, _FIRST_BALL_SPREAD
    front_row = min(_SPOT_AT[s][0] for s in standing)
    centre = sum(_SPOT_AT[s][1] for s in standing) / len(standing)
    front = min(
        (_SPOT_AT[s][1] for s in standing if _SPOT_AT[s][0] == front_row),
        key=lambda x: abs(x - centre),
    )
    return float(front), _SPARE_SPREAD


def _knock(rng: random.Random, standing: frozenset[int], line: float) -> list[tuple[int, bool]]:
    """The pins a ball on ``line`` knocks, in falling order, each with whether the ball hit it."""
    if abs(line) > _GUTTER_LINE:
        return []
    falling: list[tuple[int, int, bool]] = []
    for spot in sorted(standing):
        offset = _SPOT_AT[spot][1]
        if abs(offset - line) < _CONTACT:
            # A pin flies away from the side the ball strikes it on.
            side = 1 if offset > line else -1 if offset < line else rng.choice((-1, 1))
            falling.append((spot, side, abs(offset - line) < _FULL_HIT))
    down = {spot for spot, _side, _full in falling}
    order = [(spot, True) for spot, _side, _full in falling]
    moving = collections.deque(falling)
    while moving:
        spot, side, full = moving.popleft()
        row, offset = _SPOT_AT[spot]
        targets = (
            (row + 1, offset + side, _CARRY_SIDE),
            (row + 1, offset - side, _CARRY_OTHER),
            (row + 2, offset, _CARRY_BACK_FULL if full else _CARRY_BACK),
            (row, offset + 2 * side, _CARRY_ACROSS),
        )
        for target_row, target_offset, chance in targets:
            target = _SPOT_OF.get((target_row, target_offset))
            if (
                target is not None
                and target in standing
                and target not in down
                and rng.random() < chance
            ):
                down.add(target)
                order.append((target, False))
                moving.append((target, side, False))
    return order


def _neighbours(spot: int) -> Iterable[int]:
    row, offset = _SPOT_AT[spot]
    for d_row, d_offset in ((0, -2), (0, 2), (-1, -1), (-1, 1), (1, -1), (1, 1)):
        near = _SPOT_OF.get((row + d_row, offset + d_offset))
        if near is not None:
            yield near


def _plan(
    rng: random.Random,
    standing: frozenset[int],
    hand: int,
    foul_rate: float,
    dead_ball_rate: float,
) -> _Delivery:
    """Draw one delivery at ``standing``; the draws depend only on the generator and the pins."""
    foul = rng.random() < foul_rate
    gutter = rng.random() < _GUTTER_RATE
    centre, spread = _aim(standing, hand) if standing else (0.0, _SPARE_SPREAD)
    line = rng.gauss(centre, spread)
    if gutter:
        line = math.copysign(_GUTTER_LINE + 1, line)
    order = _knock(rng, standing, line)
    down = {spot for spot, _by_ball in order}
    bounces = tuple((spot, rng.randint(1, _MAX_BOUNCES)) for spot, _by_ball in order)
    left = sorted(standing - down)
    near_fall = {n for spot in down for n in _neighbours(spot)}
    wobbles = tuple(
        (spot, rng.randint(1, _MAX_BOUNCES))
        for spot in left
        if spot in near_fall and rng.random() < _WOBBLE
    )
    return _Delivery(
        foul=foul,
        struck=tuple(spot for spot, by_ball in order if by_ball),
        carried=tuple(spot for spot, by_ball in order if not by_ball),
        bounces=bounces,
        wobbles=wobbles,
        dead=rng.random() < dead_ball_rate,
    )


def _check_rate(name: str, value: float) -> None:
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be between 0 and 1, not {value!r}")


class LaneHands(Protocol):
    """The lane's inputs as the simulated bowler and pinsetter drive them."""

    def set(self, line: Line, active: bool) -> None:
        """Drive ``line`` active (a pin standing, the beam broken...) or idle."""

    def is_active(self, line: Line) -> bool:
        """The level the simulation last drove ``line`` to."""

    def pulse(self, line: Line) -> None:
        """Drive ``line`` active and idle again, each level long enough to be read."""

    def delivery(self) -> AbstractContextManager[None]:
        """A block whose edges the lane is to read as one delivery."""


LaneFactory: TypeAlias = Callable[[Callable[[LaneReading], None]], tuple[Lane, LaneHands]]
"""Builds the lane the simulation reads, given its ``on_reading``, and the hands on its inputs."""


class MockHands:
    """A lane wired to the Pi's GPIO, on gpiozero's mock pins."""

    def __init__(self, lane_pins: LanePins, pin_factory: MockFactory, lane: Lane) -> None:
        """Drive the mock pins ``lane_pins`` names; ``lane`` is the lane reading them."""
        self._pins: Final[dict[Line, Any]] = {
            spot: pin_factory.pin(pin) for spot, pin in lane_pins.deck().items()
        }
        self._pins["foul_line"] = pin_factory.pin(lane_pins.foul_line)
        self._pins["ball_detector"] = pin_factory.pin(lane_pins.ball_detector)
        self._pins["pinsetter"] = pin_factory.pin(lane_pins.pinsetter)
        self._lane = lane

    def set(self, line: Line, active: bool) -> None:
        """Drive the mock pin to its active or idle level, whichever way it is pulled."""
        _set(self._pins[line], active)

    def is_active(self, line: Line) -> bool:
        """Whether the mock pin reads active."""
        pin = self._pins.get(line)
        return pin is not None and _is_active(pin)

    def pulse(self, line: Line) -> None:
        """Active, then idle: mock pins call back at once, so no edge is missed."""
        _set(self._pins[line], True)
        _set(self._pins[line], False)

    def delivery(self) -> AbstractContextManager[None]:
        """The lane holds its readings (mock pins call back on the driving thread)."""
        return self._lane.hold_readings()


class NodeHands:
    """A lane on sensor nodes whose real firmware runs under MicroPython (SimNodes).

    A node samples its inputs in a loop and debounces them, so a level that changes
    back before the node has read it is never seen: an edge whose order matters (the
    pinsetter's cycle, a ball, a foul) waits, boundedly, until ``lane`` has read it.
    Pins falling are left to the node's debouncing, chatter and all.
    """

    def __init__(self, deck: SimNode, foul_line: SimNode, lane: Lane, *, timeout: float = 10.0
                 ) -> None:
        """Drive ``deck`` (a pin-deck node) and ``foul_line`` (a foul-line node)."""
        self._deck = deck
        self._foul_line = foul_line
        self._lane = lane
        self._timeout = timeout
        self._driven: dict[Line, bool] = {}

    def set(self, line: Line, active: bool) -> None:
        """Drive the node's input; the pinsetter first waits for the deck to be read."""
        self._driven[line] = active
        if isinstance(line, int):
            self._deck.set(line, int(active))
            return
        if line == "pinsetter" and not active:
            wanted = sorted(s for s in SPOTS if self._driven.get(s, False))
            self._until(lambda: self._lane.status()["pin_deck"]["standing"] == wanted,
                        "the pins the pinsetter set")
        if line == "foul_line":
            self._foul_line.set(FOUL_BEAM_INPUT, int(active))
        else:
            number = BALL_DETECTOR_INPUT if line == "ball_detector" else PINSETTER_INPUT
            self._deck.set(number, int(active))
        key: Literal["foul_line", "ball_detector", "pinsetter"] = line
        self._until(lambda: self._lane.status()[key]["active"] is active, f"the {line}")

    def is_active(self, line: Line) -> bool:
        """The level last driven (all inputs start idle)."""
        return self._driven.get(line, False)

    def pulse(self, line: Line) -> None:
        """Active until the lane has read it, then idle until the lane has read that."""
        self.set(line, True)
        self.set(line, False)

    def delivery(self) -> AbstractContextManager[None]:
        """Nothing to hold: the nodes date every edge and the lane reads them in order."""
        return contextlib.nullcontext()

    def _until(self, done: Callable[[], bool], what: str) -> None:
        if not _poll_until(done, self._timeout):
            raise LinkTimeout(f"the lane did not read {what} within {self._timeout} s")


class SimulatedLane(Closeable):
    """A seeded bowler and pinsetter on mock pins, read through a real :class:`Lane`.

    The simulated lane owns its Lane (built with :func:`build_lane` on the same pins)
    and passes each reading to ``on_reading``; :meth:`bowl_one` returns only after
    ``on_reading`` has returned for that ball, so ``next_rack`` (asked before every
    ball: which pins the rules expect standing) always sees the previous ball. If
    ``on_reading`` hands readings to another thread, make ``next_rack`` wait for it.
    ``umpire("dead_ball")`` is called after a ball the simulated umpire declares dead.
    A foul ball's pins are left down; ``next_rack`` says whether they are respotted.
    One thread bowls at a time.

    The lane is built on mock pins from ``lane_pins`` and ``pin_factory`` (a
    MockFactory), with ``settle_time`` and ``debounce``; or, given ``lane`` (a
    :data:`LaneFactory`, e.g. a lane on simulated nodes and its :class:`NodeHands`),
    by that, which then settles and debounces as it was built to.
    """

    def __init__(
        self,
        lane_pins: LanePins | None = None,
        *,
        pin_factory: Any = None,
        lane: LaneFactory | None = None,
        seed: int,
        next_rack: Callable[[], frozenset[int]],
        on_reading: Callable[[LaneReading], None],
        umpire: Callable[[str], None] | None = None,
        settle_time: float = 0.5,
        debounce: float = 0.01,
        foul_rate: float = 0.03,
        dead_ball_rate: float = 0.01,
        chatter: bool = True,
        pace: float = 0.0,
        reading_timeout: float = 10.0,
    ) -> None:
        """Build the lane (on mock pins, or with ``lane``) and seat a seeded bowler."""
        if lane is None:
            if lane_pins is None or not isinstance(pin_factory, MockFactory):
                raise TypeError(
                    f"a simulated lane drives mock pins (lane_pins and a MockFactory) or the "
                    f"lane a factory builds; got {lane_pins!r} and {pin_factory!r}"
                )
            lane = mock_lane(lane_pins, pin_factory, settle_time=settle_time, debounce=debounce)
        elif lane_pins is not None or pin_factory is not None:
            raise TypeError("give a simulated lane lane_pins and pin_factory, or lane, not both")
        _check_rate("foul_rate", foul_rate)
        _check_rate("dead_ball_rate", dead_ball_rate)
        if not pace >= 0:
            raise ValueError(f"pace must be seconds >= 0, not {pace!r}")
        if not reading_timeout > 0:
            raise ValueError(f"reading_timeout must be seconds > 0, not {reading_timeout!r}")
        self._rng = random.Random(seed)
        self._hand = -1 if self._rng.random() < _LEFT_HANDED else 1
        self._next_rack = next_rack
        self._on_reading = on_reading
        self._umpire = umpire
        self._foul_rate = foul_rate
        self._dead_ball_rate = dead_ball_rate
        self._chatter = chatter
        self._pace = pace
        self._timeout = reading_timeout
        self._cond = threading.Condition()
        self._balls_read = 0
        self._racks_set = 0
        self._lane, self._hands = lane(self._reading)

    @property
    def lane(self) -> Lane:
        """The Lane reading the simulated inputs (for its status)."""
        return self._lane

    def standing(self) -> frozenset[int]:
        """The pins the simulation has standing on the deck now."""
        return frozenset(spot for spot in SPOTS if self._hands.is_active(spot))

    def bowl_one(self) -> None:
        """Deliver one ball, respotting first if the deck is not the rack ``next_rack`` wants.

        Returns once the lane's reading for the ball has been handled; raises
        LinkTimeout if it does not come within ``reading_timeout`` seconds.
        """
        rack = frozenset(self._next_rack())
        if not rack <= SPOTS:
            raise ValueError(f"next_rack gave spots outside 1-10: {sorted(rack - SPOTS)}")
        if rack != self.standing():
            racks = self._racks_set
            with self._hands.delivery():
                self._cycle(rack)
            self._wait(lambda: self._racks_set > racks, "the rack after a pinsetter cycle")
        delivery = _plan(self._rng, rack, self._hand, self._foul_rate, self._dead_ball_rate)
        balls = self._balls_read
        bounces = dict(delivery.bounces)
        with self._hands.delivery():
            if delivery.foul:
                self._hands.pulse("foul_line")
            for spot in delivery.struck:
                self._fall(spot, bounces[spot])
            self._hands.pulse("ball_detector")
            for spot in delivery.carried:
                self._fall(spot, bounces[spot])
            if self._chatter:
                for spot, times in delivery.wobbles:
                    self._wobble(spot, times)
        self._wait(lambda: self._balls_read > balls, "the ball")
        if delivery.dead and self._umpire is not None:
            self._umpire("dead_ball")

    def run(self, balls: int | None, stop: threading.Event) -> int:
        """Bowl ``balls`` balls (None: until ``stop`` is set) ``pace`` s apart; return the count."""
        bowled = 0
        while (balls is None or bowled < balls) and not stop.is_set():
            if bowled and self._pace and stop.wait(self._pace):
                break
            self.bowl_one()
            bowled += 1
        return bowled

    def close(self) -> None:
        """Close the lane (its thread and pins)."""
        self._lane.close()


    def _reading(self, reading: LaneReading) -> None:
        try:
            self._on_reading(reading)
        finally:
            with self._cond:
                if isinstance(reading, BallRead):
                    self._balls_read += 1
                elif isinstance(reading, RackSet):
                    self._racks_set += 1
                self._cond.notify_all()

    def _wait(self, done: Callable[[], bool], what: str) -> None:
        with self._cond:
            if not self._cond.wait_for(done, self._timeout):
                raise LinkTimeout(f"the lane gave no reading for {what} in {self._timeout} s")

    def _cycle(self, rack: frozenset[int]) -> None:
        """Run the pinsetter: sweep, set ``rack`` on the deck, and finish the cycle."""
        self._hands.set("pinsetter", True)
        for spot in sorted(SPOTS):
            self._hands.set(spot, spot in rack)
        self._hands.set("pinsetter", False)

    def _fall(self, spot: int, bounces: int) -> None:
        for _ in range(bounces - 1 if self._chatter else 0):
            self._hands.set(spot, False)
            self._hands.set(spot, True)
        self._hands.set(spot, False)

    def _wobble(self, spot: int, times: int) -> None:
        for _ in range(times):
            self._hands.set(spot, False)
            self._hands.set(spot, True)


def _is_active(pin: Any) -> bool:
    """Whether a mock input reads active, whichever way it is pulled."""
    pulled_up: bool = pin.pull == "up"
    return bool(pin.state) != pulled_up


def _set(pin: Any, active: bool) -> None:
    """Drive a mock input to its active or idle level, whichever way it is pulled."""
    pulled_up: bool = pin.pull == "up"
    if active == pulled_up:
        pin.drive_low()
    else:
        pin.drive_high()


def mock_lane(
    lane_pins: LanePins, pin_factory: MockFactory, *, settle_time: float, debounce: float = 0.01
) -> LaneFactory:
    """A lane wired to mock pins as ``lane_pins`` says, and the hands on those pins.

    ``SimulatedLane(lane_pins, pin_factory=...)`` builds this itself; a caller that seats
    the bowler on either kind of lane passes it as ``lane``.
    """

    def build(on_reading: Callable[[LaneReading], None]) -> tuple[Lane, LaneHands]:
        lane = build_lane(
            lane_pins,
            pin_factory=pin_factory,
            settle_time=settle_time,
            on_reading=on_reading,
            debounce=debounce,
        )
        return lane, MockHands(lane_pins, pin_factory, lane)

    return build


def _poll_until(done: Callable[[], bool], timeout: float) -> bool:
    """Whether ``done`` became true within ``timeout`` seconds (checked every 5 ms)."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    return True
