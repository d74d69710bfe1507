# Per-input debouncing, oscillation detection and "impossible together" rules.
#
# Pure logic: callers pass samples and node times (ms since boot), so the same code
# runs on the Pico and under the unix port with a fake clock.

# An input changing more often than this within one window is a short or a broken
# cable oscillating, not a switch.
OSCILLATION_CHANGES = 1000
OSCILLATION_WINDOW_MS = 1000


class Debouncer:
    """One input: a value counts once the raw input has held it for debounce_ms.

    value is the debounced value and since the node time of the raw edge that began
    its steady run (the time a REPORT carries). oscillating becomes True, and stays
    so until restart(), once more than OSCILLATION_CHANGES raw changes fall within
    one OSCILLATION_WINDOW_MS window (windows start at the first change after the
    previous window ended).
    """

    __slots__ = ("value", "since", "oscillating", "_raw", "_raw_since",
                 "_window_start", "_window_changes")

    def __init__(self, value, now_ms):
        self.restart(value, now_ms)

    def restart(self, value, now_ms):
        """Take `value` as steady since now_ms and forget any oscillation."""
        self.value = value
        self.since = now_ms
        self.oscillating = False
        self._raw = value
        self._raw_since = now_ms
        self._window_start = now_ms
        self._window_changes = 0

    def sample(self, raw, now_ms, debounce_ms, edges=None):
        """Feed one raw sample; True if the debounced value changed.

        edges: raw changes counted by an edge interrupt since the last sample, when the
        board has one (it sees changes that polling misses); None counts the changes
        polling sees.
        """
        changes = edges
        if raw != self._raw:
            self._raw = raw
            self._raw_since = now_ms
            if changes is None:
                changes = 1
        if changes:
            self._count(changes, now_ms)
        if raw != self.value and now_ms - self._raw_since >= debounce_ms:
            self.value = raw
            self.since = self._raw_since
            return True
        return False

    def _count(self, changes, now_ms):
        if now_ms - self._window_start >= OSCILLATION_WINDOW_MS:
            self._window_start = now_ms
            self._window_changes = 0
        self._window_changes += changes
        if self._window_changes > OSCILLATION_CHANGES:
            self.oscillating = True


class TogetherRule:
    """Impossible input: inputs a and b both active (non-zero) for more than limit_ms.

    Measured from the later of the two edges that made them active, so the verdict does
    not depend on how often the rule is checked.
    """

    def __init__(self, a, b, limit_ms, text):
        self.a = a
        self.b = b
        self.limit_ms = limit_ms
        self.text = text

    def check(self, inputs, now_ms):
        """None while possible; the shutdown text once the inputs break the rule.

        inputs: input number -> object with the debounced .value and its .since.
        """
        a = inputs[self.a]
        b = inputs[self.b]
        if a.value and b.value and now_ms - max(a.since, b.since) > self.limit_ms:
            return self.text
        return None
