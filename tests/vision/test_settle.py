"""Settle detection: a throw is read once, from still frames that agree, never guessed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from vision.core import BadFrameError, Frame, Observation
from vision.settle import MAX_TRIES, ThrowRead, ThrowWatcher


def scene(x: int) -> Frame:
    """Felt with a white block at x: moving the block is movement on the bed."""
    frame = np.full((120, 160, 3), (40, 110, 30), dtype=np.uint8)
    frame[50:70, x:x + 20] = 240
    return frame


class Script:
    """Stands for the recogniser: what it 'sees' in each still frame it is shown, in turn."""

    def __init__(self, *reads: Sequence[Observation]) -> None:
        self.reads = list(reads)
        self.calls = 0

    def __call__(self, frame: Frame) -> Sequence[Observation]:
        self.calls += 1
        return self.reads[min(self.calls, len(self.reads)) - 1]


def die(value: int, x: float, confidence: float = 0.99, state: str = "flat") -> Observation:
    return Observation(value, (x, 50.0, 20.0, 20.0), confidence, state=state)


def play(watcher: ThrowWatcher, frames: Sequence[Frame]) -> list[ThrowRead]:
    reads = []
    for number, frame in enumerate(frames):
        read = watcher.feed(number / 15, frame)
        if read is not None:
            reads.append(read)
    return reads


def throw_frames(still: int) -> list[Frame]:
    return [scene(10), scene(40), scene(70), *[scene(100)] * still]


def test_dice_at_rest_when_the_service_starts_are_not_read() -> None:
    script = Script([die(3, 100), die(4, 130)])
    assert play(ThrowWatcher(script), [scene(100)] * 20) == []
    assert script.calls == 0


def test_a_throw_is_read_once_when_still_frames_agree() -> None:
    script = Script([die(4, 130), die(3, 100)])
    watcher = ThrowWatcher(script, dice=2, still_frames=3, agree=3)
    reads = play(watcher, throw_frames(still=20))
    assert [r.verdict for r in reads] == ["throw"]
    assert reads[0].values == [3, 4]  # left to right
    assert script.calls == 3
    # the still frames before the reads and the reads themselves: 3 + 3 - 1 frames after rest
    assert reads[0].time == pytest.approx((3 + 3 + 3 - 1) / 15)


def test_the_next_throw_is_read_after_the_dice_move_again() -> None:
    script = Script([die(6, 100), die(6, 130)])
    watcher = ThrowWatcher(script, dice=2)
    reads = play(watcher, throw_frames(still=8) + throw_frames(still=8))
    assert [r.values for r in reads] == [[6, 6], [6, 6]]


def test_frames_that_disagree_are_read_until_they_agree() -> None:
    settling = [die(2, 100), die(5, 130)]
    settled = [die(1, 100), die(5, 130)]
    script = Script(settling, settled, settled, settled)
    reads = play(ThrowWatcher(script, dice=2, agree=3), throw_frames(still=12))
    assert [r.values for r in reads] == [[1, 5]]


def test_frames_that_never_agree_go_to_the_operator() -> None:
    script = Script(*([die(2, 100)], [die(5, 100)]) * MAX_TRIES)
    reads = play(ThrowWatcher(script, dice=1), throw_frames(still=MAX_TRIES + 10))
    assert [(r.verdict, r.values) for r in reads] == [("confirm", [None])]
    assert "read differently" in reads[0].reason


def test_an_unsure_die_is_never_guessed() -> None:
    script = Script([die(3, 100), die(4, 130, confidence=0.6)])
    [read] = play(ThrowWatcher(script, dice=2, threshold=0.9), throw_frames(still=10))
    assert read.verdict == "confirm"
    assert read.values == [3, None]
    assert "die 2" in read.reason


@pytest.mark.parametrize("state", ["cocked", "off-table"])
def test_a_cocked_or_off_table_die_is_a_rethrow(state: str) -> None:
    script = Script([die(3, 100), die(4, 130, state=state)])
    [read] = play(ThrowWatcher(script, dice=2), throw_frames(still=10))
    assert (read.verdict, read.reason) == ("rethrow", state)


def test_the_wrong_number_of_dice_goes_to_the_operator() -> None:
    script = Script([die(3, 100)])
    [read] = play(ThrowWatcher(script, dice=2), throw_frames(still=10))
    assert read.verdict == "confirm"
    assert "saw 1 dice; the game throws 2" in read.reason


def test_a_frame_that_is_not_an_image_is_refused() -> None:
    with pytest.raises(BadFrameError, match="8-bit"):
        ThrowWatcher(Script([])).feed(0.0, np.zeros((10, 10, 3), dtype=np.float32))
