"""The lane's devices on gpiozero mock pins, the rules that turn edges into readings,
and the backend that picks the pins."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from drivers.backends import ENV_VAR, choose_backend, make_pin_factory
from drivers.errors import DeviceUnavailable, DriverError
from drivers.lane import FoulLine, Lane, LanePins, PinDeck, build_lane
from drivers.lanetracker import BallRead, LaneReading, LaneTracker, PinsDisplaced, RackSet
from drivers.wire.fake import Recorder, lane_summary

FULL = frozenset(range(1, 11))
SETTLE = 0.01


class Readings(Recorder[LaneReading]):
    """The fake's recorder of readings, also noting the threads it was called on."""

    def __init__(self, fail_first: int = 0) -> None:
        super().__init__()
        self.threads: set[int] = set()
        self.overlaps = 0
        self._entered = threading.Lock()
        self._fail_first = fail_first

    def __call__(self, reading: LaneReading) -> None:
        if not self._entered.acquire(blocking=False):
            self.overlaps += 1
            self._entered.acquire()
        try:
            self.threads.add(threading.get_ident())
            super().__call__(reading)
            with self.cond:
                failing = len(self.items) <= self._fail_first
        finally:
            self._entered.release()
        if failing:
            raise RuntimeError("the dashboard fell over")


class Hands:
    """Presses and releases the lane's mock inputs (contacts to ground, pulled up)."""

    def __init__(self, factory: Any, pins: LanePins) -> None:
        self.factory = factory
        self.pins = pins

    def spot(self, spot: int) -> Any:
        return self.factory.pin(self.pins.spots[spot - 1])

    def press(self, pin: Any) -> None:
        pin.drive_low()

    def release(self, pin: Any) -> None:
        pin.drive_high()

    def pulse(self, pin_spec: int | str) -> None:
        pin = self.factory.pin(pin_spec)
        self.press(pin)
        self.release(pin)

    def fall(self, spot: int, bounces: int = 4) -> None:
        """A pin falling: its switch opens and bounces shut a few times first."""
        pin = self.spot(spot)
        for _ in range(bounces):
            self.release(pin)
            self.press(pin)
        self.release(pin)

    def wobble(self, spot: int, bounces: int = 4) -> None:
        """A pin that rocks and stays up."""
        pin = self.spot(spot)
        for _ in range(bounces):
            self.release(pin)
            self.press(pin)

    def cycle(self, rack: frozenset[int]) -> None:
        """The pinsetter sweeps and sets ``rack``."""
        setter = self.factory.pin(self.pins.pinsetter)
        self.press(setter)
        for spot in range(1, 11):
            (self.press if spot in rack else self.release)(self.spot(spot))
        self.release(setter)


@pytest.fixture
def factory() -> Any:
    return make_pin_factory("fake")


@pytest.fixture
def hands(factory: Any) -> Hands:
    return Hands(factory, LanePins.default())


@pytest.fixture
def readings() -> Readings:
    return Readings()


@pytest.fixture
def lane(factory: Any, readings: Readings) -> Iterator[Lane]:
    lane = build_lane(
        LanePins.default(), pin_factory=factory, settle_time=SETTLE, on_reading=readings
    )
    yield lane
    lane.close()


@pytest.fixture
def racked(lane: Lane, hands: Hands, readings: Readings) -> Lane:
    """A lane with a full rack just set by the pinsetter (one RackSet read)."""
    with lane.hold_readings():
        hands.cycle(FULL)
    assert lane_summary(readings.wait_for(1)) == [("RackSet", sorted(FULL), None)]
    return lane


# --- the lane on mock pins ------------------------------------------------------------


def test_ball_with_chattering_pins_gives_exactly_one_read(
    racked: Lane, hands: Hands, readings: Readings
) -> None:
    # hold_readings keeps this thread's edges one delivery even if it is paused half-way.
    with racked.hold_readings():
        for spot in (1, 3, 5):
            hands.fall(spot)
        hands.pulse(hands.pins.ball_detector)
        for spot in (6, 9, 10):  # carried pins still falling after the ball has passed
            hands.fall(spot)
        hands.wobble(2)
    readings.wait_for(2)
    racked.close()  # reads anything still pending, so a stray second read would show
    assert lane_summary(readings.items) == [
        ("RackSet", sorted(FULL), None),
        ("BallRead", [2, 4, 7, 8], False),
    ]


def test_foul_beam_marks_that_ball_only(racked: Lane, hands: Hands, readings: Readings) -> None:
    with racked.hold_readings():
        hands.pulse(hands.pins.foul_line)
        hands.fall(1)
        hands.pulse(hands.pins.ball_detector)
    readings.wait_for(2)
    with racked.hold_readings():
        hands.fall(2)
        hands.pulse(hands.pins.ball_detector)
    readings.wait_for(3)
    assert [r.foul for r in readings.items if isinstance(r, BallRead)] == [True, False]


def test_foul_after_the_ball_counts_for_the_next_ball(
    racked: Lane, hands: Hands, readings: Readings
) -> None:
    with racked.hold_readings():
        hands.pulse(hands.pins.ball_detector)
        hands.pulse(hands.pins.foul_line)
    readings.wait_for(2)
    with racked.hold_readings():
        hands.pulse(hands.pins.ball_detector)
    readings.wait_for(3)
    assert [r.foul for r in readings.items if isinstance(r, BallRead)] == [False, True]


def test_pins_knocked_with_no_ball_are_displaced(
    racked: Lane, hands: Hands, readings: Readings
) -> None:
    with racked.hold_readings():
        hands.fall(7)
        hands.fall(10)
    got = readings.wait_for(2)
    assert lane_summary(got[1:]) == [("PinsDisplaced", [1, 2, 3, 4, 5, 6, 8, 9], None)]
    assert isinstance(got[1], PinsDisplaced)
    assert got[1].at >= got[0].at


def test_a_pin_that_wobbles_and_stays_up_is_no_reading(
    racked: Lane, hands: Hands, readings: Readings
) -> None:
    hands.wobble(5, bounces=6)
    racked.close()
    assert lane_summary(readings.items) == [("RackSet", sorted(FULL), None)]


def test_pinsetter_cycle_gives_a_rack_and_no_ball(
    lane: Lane, hands: Hands, readings: Readings
) -> None:
    setter = hands.factory.pin(hands.pins.pinsetter)
    with lane.hold_readings():
        hands.press(setter)
        for spot in (1, 2, 3):
            hands.press(hands.spot(spot))
        hands.pulse(hands.pins.ball_detector)  # the machine handling the ball in the pit
        hands.fall(3)
        hands.press(hands.spot(3))
        hands.release(setter)
    readings.wait_for(1)
    lane.close()
    assert lane_summary(readings.items) == [("RackSet", [1, 2, 3], None)]


def test_on_reading_that_raises_loses_nothing(
    factory: Any, hands: Hands, caplog: pytest.LogCaptureFixture
) -> None:
    readings = Readings(fail_first=1)
    with build_lane(
        hands.pins, pin_factory=factory, settle_time=SETTLE, on_reading=readings
    ) as lane:
        with lane.hold_readings():
            hands.cycle(FULL)
        readings.wait_for(1)
        with lane.hold_readings():
            hands.fall(1)
            hands.pulse(hands.pins.ball_detector)
        readings.wait_for(2)
    assert lane_summary(readings.items) == [
        ("RackSet", sorted(FULL), None),
        ("BallRead", list(range(2, 11)), False),
    ]
    assert "on_reading failed" in caplog.text


def test_on_reading_comes_from_one_lane_thread_never_two_at_once(
    racked: Lane, hands: Hands, readings: Readings
) -> None:
    for spot in range(1, 6):
        with racked.hold_readings():
            hands.fall(spot)
            hands.pulse(hands.pins.ball_detector)
        readings.wait_for(1 + spot)
    assert len(readings.threads) == 1
    assert threading.get_ident() not in readings.threads
    assert readings.overlaps == 0
    assert [len(r.standing) for r in readings.items] == [10, 9, 8, 7, 6, 5]


def test_close_leaves_no_thread_running(factory: Any, hands: Hands, readings: Readings) -> None:
    before = set(threading.enumerate())
    lane = build_lane(hands.pins, pin_factory=factory, settle_time=SETTLE, on_reading=readings)
    assert set(threading.enumerate()) - before
    with lane.hold_readings():
        hands.cycle(FULL)
    readings.wait_for(1)
    lane.close()
    assert set(threading.enumerate()) == before
    assert lane.status()["running"] is False


def test_close_reads_a_ball_still_settling(factory: Any, hands: Hands, readings: Readings) -> None:
    lane = build_lane(hands.pins, pin_factory=factory, settle_time=60.0, on_reading=readings)
    hands.pulse(hands.pins.ball_detector)
    lane.close()
    assert lane_summary(readings.items) == [("BallRead", [], False)]


def test_status_names_each_device_pin_and_whether_it_works(lane: Lane) -> None:
    status = lane.status()
    assert status["running"] is True
    assert status["foul_line"] == {"pin": "GPIO25", "working": True, "active": False, "error": None}
    assert status["ball_detector"]["pin"] == "GPIO26"
    assert status["pinsetter"]["pin"] == "GPIO27"
    deck = status["pin_deck"]
    assert deck["pins"]["1"] == "GPIO4" and deck["pins"]["10"] == "GPIO24"
    assert deck["working"] is True and deck["standing"] == []
    lane.close()
    assert lane.status()["foul_line"]["working"] is False


# --- devices ----------------------------------------------------------------------------


def test_pin_deck_reads_standing_pins_debounced(factory: Any) -> None:
    now = [0.0]
    with PinDeck({1: 4, 7: 5, 10: "GPIO6"}, pin_factory=factory, clock=lambda: now[0]) as deck:
        assert deck.standing() == frozenset()
        factory.pin(4).drive_low()
        factory.pin(6).drive_low()
        assert deck.standing() == frozenset()  # not yet held for the debounce time
        now[0] = 0.01
        assert deck.standing() == {1, 10}
        assert deck.pins == {1: "GPIO4", 7: "GPIO5", 10: "GPIO6"}


@pytest.mark.parametrize("spot", [0, 11, True])
def test_pin_deck_refuses_a_spot_outside_1_to_10(factory: Any, spot: int) -> None:
    with pytest.raises(ValueError, match=f"spot {spot!r}"):
        PinDeck({spot: 4}, pin_factory=factory)


def test_pin_deck_refuses_one_pin_for_two_spots(factory: Any) -> None:
    with pytest.raises(ValueError, match="spot 2 and pin deck spot 5 are both wired to GPIO4"):
        PinDeck({2: 4, 5: "BOARD7"}, pin_factory=factory)


def test_pin_deck_refuses_a_pin_that_is_not_gpio(factory: Any) -> None:
    with pytest.raises(ValueError, match="spot 3: 'GND' is not a GPIO pin"):
        PinDeck({3: "GND"}, pin_factory=factory)


def test_build_lane_refuses_a_foul_line_on_a_spot_pin(factory: Any, readings: Readings) -> None:
    pins = LanePins.default()
    clash = LanePins(pins.spots, foul_line=pins.spots[6], ball_detector=26, pinsetter=27)
    with pytest.raises(ValueError, match="spot 7 and foul line are both wired to GPIO17"):
        build_lane(clash, pin_factory=factory, on_reading=readings)


def test_lane_pins_need_ten_spots() -> None:
    with pytest.raises(ValueError, match="10 pin spots"):
        LanePins(spots=(4, 5, 6), foul_line=25, ball_detector=26, pinsetter=27)


def test_a_hook_that_raises_is_logged_and_the_line_keeps_working(
    factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []

    def broken() -> None:
        raise RuntimeError("boom")

    with FoulLine(25, pin_factory=factory) as line:
        line.when_activated = broken
        factory.pin(25).drive_low()
        line.when_activated = lambda: calls.append("foul")
        factory.pin(25).drive_high()
        factory.pin(25).drive_low()
    assert calls == ["foul"]
    assert "foul line activated handler failed" in caplog.text


# --- the rules, with made-up times ------------------------------------------------------


class Deck:
    """A pin deck whose standing pins the test sets by hand."""

    def __init__(self, standing: frozenset[int] = FULL) -> None:
        self.standing = standing

    def __call__(self) -> frozenset[int]:
        return self.standing


def test_pins_still_falling_delay_the_ball_read() -> None:
    deck = Deck()
    tracker = LaneTracker(deck, settle_time=0.5, standing=FULL)
    tracker.ball(10.0)
    deck.standing = frozenset({4, 7})
    tracker.deck_changed(10.4)
    assert tracker.poll(10.5) == []
    deck.standing = frozenset({7})
    tracker.deck_changed(10.8)
    assert tracker.poll(11.29) == []
    assert tracker.poll(11.3) == [BallRead(frozenset({7}), False, 10.0)]
    assert tracker.deadline() is None


def test_pins_falling_just_before_the_ball_edge_belong_to_the_ball() -> None:
    deck = Deck(frozenset({1, 2, 4, 7}))
    tracker = LaneTracker(deck, settle_time=0.5, standing=FULL)
    tracker.deck_changed(10.0)
    tracker.ball(10.2)
    assert tracker.poll(11.0) == [BallRead(frozenset({1, 2, 4, 7}), False, 10.2)]


def test_zero_settle_reads_at_the_edge() -> None:
    deck = Deck(frozenset({10}))
    tracker = LaneTracker(deck, settle_time=0.0, standing=FULL)
    tracker.ball(3.0)
    assert tracker.poll(3.0) == [BallRead(frozenset({10}), False, 3.0)]


def test_a_foul_reported_after_its_ball_is_that_balls() -> None:
    """The foul-line node's report can come after the pin-deck node's ball (two links)."""
    tracker = LaneTracker(Deck(), settle_time=0.5, standing=FULL)
    tracker.ball(1.0)
    tracker.foul(0.2)
    assert tracker.poll(1.5) == [BallRead(FULL, True, 1.0)]
    tracker.ball(3.0)
    assert tracker.poll(3.5) == [BallRead(FULL, False, 3.0)]


def test_a_foul_reported_after_its_ball_was_read_is_not_given_to_the_next(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tracker = LaneTracker(Deck(), settle_time=0.5, standing=FULL)
    tracker.ball(1.0)
    assert tracker.poll(1.5) == [BallRead(FULL, False, 1.0)]
    with caplog.at_level(logging.WARNING):
        tracker.foul(0.2)
    assert "came after the ball at 1.000 was read" in caplog.text
    tracker.ball(3.0)
    assert tracker.poll(3.5) == [BallRead(FULL, False, 3.0)]


def test_a_second_ball_edge_while_settling_is_bounce() -> None:
    tracker = LaneTracker(Deck(), settle_time=0.5, standing=FULL)
    tracker.ball(1.0)
    tracker.ball(1.01)
    assert tracker.poll(2.0) == [BallRead(FULL, False, 1.0)]
    assert tracker.poll(3.0) == []


def test_a_cycle_starting_reads_the_pending_ball_and_hides_the_machines_work() -> None:
    deck = Deck(frozenset({7, 10}))
    tracker = LaneTracker(deck, settle_time=0.5, deck_quiet=0.6, standing=FULL)
    tracker.foul(0.5)
    tracker.ball(1.0)
    assert tracker.cycle_started(1.2) == [BallRead(frozenset({7, 10}), True, 1.0)]
    deck.standing = FULL
    tracker.deck_changed(1.5)
    tracker.ball(1.6)
    tracker.foul(1.7)
    assert tracker.poll(5.0) == [] and tracker.deadline() is None
    tracker.cycle_ended(2.0)
    assert tracker.poll(2.5) == []
    assert tracker.poll(2.6) == [RackSet(FULL, 2.0)]
    tracker.ball(3.0)
    assert tracker.poll(3.5) == [BallRead(FULL, False, 3.0)]


def test_displaced_pins_are_dated_from_the_first_change() -> None:
    deck = Deck(frozenset({1, 2, 3}))
    tracker = LaneTracker(deck, settle_time=0.5, standing=FULL)
    tracker.deck_changed(1.0)
    tracker.deck_changed(1.3)
    assert tracker.poll(1.79) == []
    assert tracker.poll(1.8) == [PinsDisplaced(frozenset({1, 2, 3}), 1.0)]


# --- backends ---------------------------------------------------------------------------


def test_environment_overrides_the_configured_backend(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(ENV_VAR, "fake")
    with caplog.at_level(logging.WARNING, logger="drivers.backends"):
        assert choose_backend("real") == "fake"
    assert "HOYLE_BACKEND=fake overrides the configured backend 'real'" in caplog.text


def test_configured_backend_is_used_without_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert choose_backend("real") == "real"


@pytest.mark.parametrize("env, configured", [(None, "sim-firmware"), ("pigs", "fake")])
def test_unknown_backend_names_the_allowed_ones(
    monkeypatch: pytest.MonkeyPatch, env: str | None, configured: str
) -> None:
    if env is None:
        monkeypatch.delenv(ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(ENV_VAR, env)
    with pytest.raises(ValueError, match="use one of: real, fake"):
        choose_backend(configured)


def test_real_backend_without_gpio_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    with pytest.raises(DeviceUnavailable, match="no-such-factory") as caught:
        make_pin_factory("real")
    assert isinstance(caught.value, DriverError) and isinstance(caught.value, ConnectionError)
