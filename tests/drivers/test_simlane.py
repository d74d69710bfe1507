"""The simulated lane: seeded, plausible bowling read through the real Lane on mock pins."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from drivers.backends import make_pin_factory
from drivers.errors import LinkTimeout
from drivers.lane import LanePins
from drivers.lanetracker import BallRead, LaneReading, RackSet
from drivers.simlane import SimulatedLane

FULL = frozenset(range(1, 11))


def make_sim(
    next_rack: Callable[[], frozenset[int]],
    on_reading: Callable[[LaneReading], None],
    *,
    seed: int = 1,
    **knobs: Any,
) -> SimulatedLane:
    """A simulated lane with settle and debounce times short enough for a fast test."""
    return SimulatedLane(
        LanePins.default(),
        pin_factory=make_pin_factory("fake"),
        seed=seed,
        next_rack=next_rack,
        on_reading=on_reading,
        **({"settle_time": 0.002, "debounce": 0.002} | knobs),
    )


class Frames:
    """A trivial scorer: a full rack at each frame's start, the pins left standing otherwise.

    Frames have two balls (or one on a strike); a dead ball is bowled again on the pins
    that stood before it.
    """

    def __init__(self) -> None:
        self.readings: list[LaneReading] = []
        self.first_balls: list[BallRead] = []
        self.dead_calls: list[str] = []
        self._second = False
        self._rack = FULL
        self._before = FULL

    def on_reading(self, reading: LaneReading) -> None:
        self.readings.append(reading)
        if not isinstance(reading, BallRead):
            return
        self._before = self._rack
        if not self._second:
            self.first_balls.append(reading)
        if self._second or not reading.standing:
            self._second, self._rack = False, FULL
        else:
            self._second, self._rack = True, reading.standing

    def next_rack(self) -> frozenset[int]:
        return self._rack

    def umpire(self, call: str) -> None:
        self.dead_calls.append(call)
        self._rack = self._before
        self._second = self._rack != FULL


def bowl(seed: int, balls: int, **knobs: Any) -> Frames:
    frames = Frames()
    with make_sim(
        frames.next_rack, frames.on_reading, seed=seed, umpire=frames.umpire, **knobs
    ) as sim:
        assert sim.run(balls, threading.Event()) == balls
    return frames


def without_times(readings: list[LaneReading]) -> list[tuple[str, frozenset[int], bool]]:
    return [(type(r).__name__, r.standing, isinstance(r, BallRead) and r.foul) for r in readings]


def test_same_seed_bowls_the_same_game() -> None:
    first = bowl(seed=42, balls=40)
    again = bowl(seed=42, balls=40)
    assert without_times(first.readings) == without_times(again.readings)
    assert first.dead_calls == again.dead_calls
    other = bowl(seed=43, balls=40)
    assert without_times(other.readings) != without_times(first.readings)


def test_chatter_does_not_change_what_the_lane_reads() -> None:
    chattering = bowl(seed=5, balls=40, chatter=True)
    clean = bowl(seed=5, balls=40, chatter=False)
    assert without_times(chattering.readings) == without_times(clean.readings)


def test_a_few_hundred_balls_are_plausible_and_none_is_lost() -> None:
    balls = 300
    frames = bowl(seed=2024, balls=balls)
    ball_reads = [r for r in frames.readings if isinstance(r, BallRead)]
    assert len(ball_reads) == balls
    assert all(isinstance(r, BallRead | RackSet) for r in frames.readings)

    firsts = frames.first_balls
    strikes = sum(not r.standing for r in firsts) / len(firsts)
    assert 0.10 <= strikes <= 0.45
    knocked = [10 - len(r.standing) for r in firsts]
    assert 6.5 <= sum(knocked) / len(knocked) <= 9.0
    assert sum(6 <= k <= 9 for k in knocked) > len(knocked) / 2
    assert any(k == 0 for k in knocked) or any(k <= 3 for k in knocked)
    fouls = sum(r.foul for r in ball_reads)
    assert 1 <= fouls <= 25
    assert len(frames.dead_calls) <= 15
    assert set(frames.dead_calls) <= {"dead_ball"}


def test_knobs_at_their_limits() -> None:
    frames = bowl(seed=1, balls=10, foul_rate=1.0, dead_ball_rate=1.0)
    assert [r.foul for r in frames.readings if isinstance(r, BallRead)] == [True] * 10
    assert frames.dead_calls == ["dead_ball"] * 10


def test_the_deck_is_respotted_to_the_rack_the_rules_expect() -> None:
    wanted = frozenset({1, 2, 4, 7})
    got: list[LaneReading] = []
    with make_sim(lambda: wanted, got.append, seed=9) as sim:
        sim.bowl_one()
        assert isinstance(got[0], RackSet) and got[0].standing == wanted
        assert isinstance(got[1], BallRead) and got[1].standing <= wanted
        assert sim.standing() == got[1].standing


def test_next_rack_outside_the_deck_is_refused() -> None:
    with (
        make_sim(lambda: frozenset({1, 11}), lambda r: None) as sim,
        pytest.raises(ValueError, match=r"outside 1-10: \[11\]"),
    ):
        sim.bowl_one()


def test_a_reading_that_never_comes_is_a_link_timeout() -> None:
    release = threading.Event()

    def stuck(reading: LaneReading) -> None:
        release.wait(10)

    with make_sim(lambda: FULL, stuck, reading_timeout=0.05) as sim:
        with pytest.raises(LinkTimeout, match="rack"):
            sim.bowl_one()
        release.set()


def test_run_stops_when_asked() -> None:
    stop = threading.Event()
    frames = Frames()
    with make_sim(frames.next_rack, frames.on_reading, pace=30.0) as sim:
        bowler = threading.Thread(target=sim.run, args=(None, stop))
        bowler.start()
        stop.set()
        bowler.join(10)
        assert not bowler.is_alive()
    assert len([r for r in frames.readings if isinstance(r, BallRead)]) <= 1


@pytest.mark.parametrize(
    "knob, value", [("foul_rate", 1.5), ("dead_ball_rate", -0.1), ("pace", -1.0)]
)
def test_knobs_out_of_range_are_refused(knob: str, value: float) -> None:
    knobs: dict[str, Any] = {knob: value}
    with pytest.raises(ValueError, match=knob):
        make_sim(lambda: FULL, lambda r: None, **knobs)
