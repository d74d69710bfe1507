"""Debouncer: chatter becomes one clean transition, a real change is seen once it holds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.debounce import Debouncer, Stable
from drivers.errors import BadReading, DriverError

SETTLE = 2**-6  # exact in binary, so t + SETTLE - t == SETTLE at the boundaries


@pytest.mark.parametrize("toggles", [1, 2, 5, 20])
def test_chatter_within_the_window_gives_one_clean_transition(toggles: int) -> None:
    d = Debouncer(SETTLE, value=True, at=0.0)
    # A falling pin: the contact opens, bounces shut and open again, ending open.
    times = [1.0 + i * SETTLE / (2 * toggles + 1) for i in range(2 * toggles + 1)]
    seen = []
    for i, t in enumerate(times):
        d.feed(i % 2 == 1, t)
        seen.append(d.stable(t).value)
    assert seen == [True] * len(times)
    last = times[-1]
    assert d.stable(last + SETTLE) == Stable(False, last)
    assert d.stable(last + 100) == Stable(False, last)


def test_wobble_that_ends_where_it_began_changes_nothing() -> None:
    d = Debouncer(SETTLE, value=True, at=0.0)
    for t, v in [(1.0, False), (1.002, True), (1.004, False), (1.006, True)]:
        d.feed(v, t)
    assert d.stable(2.0) == Stable(True, 0.0)


def test_genuine_change_is_seen_once_it_has_held_for_settle() -> None:
    d = Debouncer(SETTLE, value=False, at=0.0)
    d.feed(True, 5.0)
    assert d.stable(5.0 + SETTLE / 2) == Stable(False, 0.0)
    assert not d.settled(5.0 + SETTLE / 2)
    assert d.stable(5.0 + SETTLE) == Stable(True, 5.0)
    assert d.settled(5.0 + SETTLE)
    d.feed(False, 7.0)
    assert d.stable(7.0 + SETTLE) == Stable(False, 7.0)


def test_repeated_samples_of_the_same_value_do_not_restart_the_wait() -> None:
    d = Debouncer(SETTLE, value=False, at=0.0)
    d.feed(True, 1.0)
    d.feed(True, 1.005)
    d.feed(True, 1.009)
    assert d.stable(1.0 + SETTLE) == Stable(True, 1.0)


def test_zero_settle_follows_the_input() -> None:
    d = Debouncer(0.0, value=False, at=0.0)
    d.feed(True, 1.0)
    assert d.stable(1.0) == Stable(True, 1.0)


def test_time_running_back_is_a_bad_reading() -> None:
    d = Debouncer(SETTLE)
    d.feed(True, 2.0)
    with pytest.raises(BadReading, match="earlier"):
        d.feed(False, 1.0)
    assert issubclass(BadReading, DriverError) and issubclass(BadReading, ValueError)


@pytest.mark.parametrize("settle", [-0.1, float("nan")])
def test_settle_must_be_a_non_negative_number(settle: float) -> None:
    with pytest.raises(ValueError, match="settle"):
        Debouncer(settle)


@given(
    initial=st.booleans(),
    settle=st.sampled_from([0.0, 0.001, 0.01, 0.05]),
    steps=st.lists(st.tuples(st.floats(min_value=0.0, max_value=0.1), st.booleans()), max_size=40),
    tail=st.floats(min_value=0.0, max_value=0.1),
)
def test_output_only_takes_values_the_input_held_for_settle(
    initial: bool, settle: float, steps: list[tuple[float, bool]], tail: float
) -> None:
    d = Debouncer(settle, value=initial, at=0.0)
    t = 0.0
    samples = [(initial, 0.0)]
    for gap, value in steps:
        t += gap
        d.feed(value, t)
        samples.append((value, t))
    now = t + tail
    edges = [(v, at) for i, (v, at) in enumerate(samples) if i == 0 or samples[i - 1][0] != v]
    ends = [at for _, at in edges[1:]] + [now]
    long_runs = [
        (v, start) for (v, start), end in zip(edges, ends, strict=True) if end - start >= settle
    ]

    out = d.stable(now)
    assert out == Stable(initial, 0.0) or (out.value, out.since) in long_runs
    if now - edges[-1][1] >= settle:
        assert out.value == edges[-1][0]
    if all(v == initial for v, _ in long_runs):
        assert out == Stable(initial, 0.0)
