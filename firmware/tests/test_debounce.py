# Debouncing, oscillation detection and the "impossible together" rule.

from debounce import OSCILLATION_CHANGES, Debouncer, TogetherRule
from helpers import check, equal


def _feed(debouncer, samples, debounce_ms=10):
    """Feed (time, raw) samples; the (value, since) of every debounced change."""
    changes = []
    for now, raw in samples:
        if debouncer.sample(raw, now, debounce_ms):
            changes.append((debouncer.value, debouncer.since))
    return changes


def test_bounce_gives_one_change_timed_at_the_edge_that_began_the_steady_run():
    d = Debouncer(0, 0)
    samples = [(100, 1), (101, 0), (102, 1), (103, 0), (104, 1)]
    samples += [(t, 1) for t in range(105, 120)]
    equal(_feed(d, samples), [(1, 104)], "changes")


def test_steady_exactly_debounce_ms_counts():
    d = Debouncer(0, 0)
    equal(_feed(d, [(50, 1), (59, 1)]), [], "9 ms is not enough")
    equal(_feed(d, [(60, 1)]), [(1, 50)], "10 ms is")


def test_glitch_shorter_than_debounce_is_ignored():
    d = Debouncer(1, 0)
    samples = [(10, 0), (15, 0), (19, 1)] + [(t, 1) for t in range(20, 60)]
    equal(_feed(d, samples), [], "changes")
    equal((d.value, d.since), (1, 0), "still the first steady run")


def test_debounce_ms_is_taken_per_sample():
    d = Debouncer(0, 0)
    equal(_feed(d, [(10, 1), (11, 1)], debounce_ms=1), [(1, 10)], "1 ms debounce")
    equal(_feed(d, [(20, 0), (60, 0)], debounce_ms=50), [], "50 ms not yet")
    equal(_feed(d, [(70, 0)], debounce_ms=50), [(0, 20)], "50 ms debounce")


def test_more_than_1000_changes_in_a_second_is_oscillation():
    d = Debouncer(0, 0)
    for i in range(OSCILLATION_CHANGES):
        d.sample((i + 1) % 2, 1 + i * 0.9, 10)
    check(not d.oscillating, "1000 changes are still a switch")
    d.sample(1, 950, 10)  # the last sample above was 0
    check(d.oscillating, "the 1001st change within the window")


def test_changes_spread_over_windows_are_not_oscillation():
    d = Debouncer(0, 0)
    for i in range(3000):
        d.sample((i + 1) % 2, 1 + i * 2, 10)  # 500 changes a second for 6 s
    check(not d.oscillating, "500 a second is not oscillation")


def test_edge_counts_from_an_interrupt_are_counted():
    d = Debouncer(0, 0)
    d.sample(0, 10, 10, edges=600)
    check(not d.oscillating, "600 edges")
    d.sample(0, 20, 10, edges=401)
    check(d.oscillating, "1001 edges in 20 ms")


def test_restart_forgets_oscillation():
    d = Debouncer(0, 0)
    d.sample(0, 1, 10, edges=2000)
    check(d.oscillating, "oscillating")
    d.restart(1, 500)
    check(not d.oscillating, "forgotten")
    equal((d.value, d.since), (1, 500), "new steady state")


class _Input:
    def __init__(self, value, since):
        self.value = value
        self.since = since


def test_together_rule_counts_from_the_later_edge():
    rule = TogetherRule(11, 12, 5000, "both")
    inputs = {11: _Input(1, 1000), 12: _Input(1, 3000)}
    equal(rule.check(inputs, 8000), None, "exactly 5 s after the later edge")
    equal(rule.check(inputs, 8001), "both", "over 5 s")
    inputs[11].value = 0
    equal(rule.check(inputs, 20000), None, "one inactive")
