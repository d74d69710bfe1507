"""Reading a throw once the dice have settled, from successive camera frames.

`ThrowWatcher.feed(time, frame)` is given every frame. It waits for movement on the bed
(a throw), then for the dice to be still for `still_frames` frames running, then reads
`agree` still frames with the recogniser. A die's face is accepted only when every one of
those frames saw it at the same place with the same value. The result is a `ThrowRead`:

- `throw`: every die flat, on the bed, read surely and alike in every frame;
- `rethrow`: a die is cocked or off the table: no throw (backgammon laws 5-6);
- `confirm`: a die read below the threshold, or differently from frame to frame, or a
  count of dice the game does not use: the operator is asked, never a guess.

After a read the watcher waits for movement again, so dice left lying are read once; it
also starts that way, so a service restarted beside a finished throw does not read it twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

import cv2
import numpy as np

from vision.core import Box, Frame, Observation, Recogniser, check_frame

#: Frames are compared at this width: enough to see a die move, cheap on a Pi.
MOTION_WIDTH = 160
#: A pixel has changed when its grey level moved by more than this between frames.
PIXEL_CHANGE = 18
#: The share of bed pixels that must change for a frame to count as movement.
MOVING_SHARE = 0.002
#: At most this many still frames are tried before unsteady reads go to the operator.
MAX_TRIES = 12
VERDICTS = ("throw", "rethrow", "confirm")


@dataclass(frozen=True, slots=True)
class DieRead:
    """One die as the agreeing frames saw it: value None when it could not be read surely."""

    value: int | None
    box: Box
    confidence: float
    state: str

    def to_json(self) -> dict[str, object]:
        return {"value": self.value, "box": [round(v, 1) for v in self.box],
                "confidence": round(self.confidence, 4), "state": self.state}


@dataclass(frozen=True, slots=True)
class ThrowRead:
    """What the settled dice showed and what the table should do with it."""

    time: float
    verdict: str
    dice: tuple[DieRead, ...]
    reason: str = ""

    @property
    def values(self) -> list[int | None]:
        return [die.value for die in self.dice]

    def to_json(self) -> dict[str, object]:
        return {"time": self.time, "verdict": self.verdict, "reason": self.reason,
                "dice": [die.to_json() for die in self.dice]}


class MotionMeter:
    """The share of the bed that changed since the last frame."""

    def __init__(self, bed: Box | None = None) -> None:
        self.bed = bed
        self.previous: Frame | None = None

    def __call__(self, frame: Frame) -> float:
        grey = cv2.cvtColor(_crop(frame, self.bed), cv2.COLOR_BGR2GRAY)
        scale = MOTION_WIDTH / grey.shape[1]
        resized = cv2.resize(grey, (MOTION_WIDTH, max(1, round(grey.shape[0] * scale))),
                             interpolation=cv2.INTER_AREA)
        small: Frame = np.asarray(cv2.GaussianBlur(resized, (5, 5), 0), dtype=np.uint8)
        previous, self.previous = self.previous, small
        if previous is None or previous.shape != small.shape:
            return 0.0
        changed = cv2.absdiff(small, previous) > PIXEL_CHANGE
        return float(np.count_nonzero(changed)) / changed.size


class ThrowWatcher:
    """Turns a stream of frames into one `ThrowRead` per throw (see the module docstring)."""

    def __init__(self, recogniser: Recogniser, *, dice: int | None = None,
                 bed: Box | None = None, threshold: float = 0.9, still_frames: int = 3,
                 agree: int = 3) -> None:
        if still_frames < 1 or agree < 1:
            raise ValueError("still_frames and agree must be at least 1")
        self.recogniser = recogniser
        self.dice = dice
        self.threshold = threshold
        self.still_frames = still_frames
        self.agree = agree
        self.motion = MotionMeter(bed)
        self.armed = False
        self.still = 0
        self.reads: list[Sequence[Observation]] = []

    def feed(self, time: float, frame: Frame) -> ThrowRead | None:
        """Take the next frame; a `ThrowRead` when this frame completes a settled throw."""
        check_frame(frame)
        if self.motion(frame) > MOVING_SHARE:
            self.armed = True
            self.still = 0
            self.reads.clear()
            return None
        if not self.armed:
            return None
        self.still += 1
        if self.still < self.still_frames:
            return None
        self.reads.append(self.recogniser(frame))
        if len(self.reads) < self.agree:
            return None
        read = self._agreed(time, self.reads[-self.agree:])
        if read is None and len(self.reads) < MAX_TRIES:
            return None
        read = read or self._unsteady(time)
        self.armed = False
        self.reads.clear()
        return read

    def _agreed(self, time: float, frames: Sequence[Sequence[Observation]]) -> ThrowRead | None:
        """The throw the frames agree on, or None while they do not yet agree."""
        first, *others = frames
        if any(len(seen) != len(first) for seen in others):
            return None
        dice = []
        for die in first:
            matches = [die, *(_nearest(die, seen) for seen in others)]
            if any(m is None for m in matches):
                return None
            seen = [m for m in matches if m is not None]
            if len({m.value for m in seen}) > 1:
                return None
            dice.append(self._combine(seen))
        dice.sort(key=lambda d: (d.box[0], d.box[1]))
        return self._verdict(time, tuple(dice))

    def _combine(self, seen: Sequence[Observation]) -> DieRead:
        states = {o.state for o in seen}
        state = next((s for s in ("off-table", "cocked") if s in states), "flat")
        sure = all(o.confidence >= self.threshold for o in seen)
        value = seen[0].value if sure and isinstance(seen[0].value, int) else None
        box: Box = (median(o.box[0] for o in seen), median(o.box[1] for o in seen),
                    median(o.box[2] for o in seen), median(o.box[3] for o in seen))
        return DieRead(value, box, min(o.confidence for o in seen), state)

    def _verdict(self, time: float, dice: tuple[DieRead, ...]) -> ThrowRead:
        for state in ("off-table", "cocked"):
            if any(d.state == state for d in dice):
                return ThrowRead(time, "rethrow", dice, state)
        unsure = [n for n, d in enumerate(dice, 1) if d.value is None]
        if unsure:
            which = ", ".join(map(str, unsure))
            return ThrowRead(time, "confirm", dice,
                             f"die {which} not read surely: confirm the faces")
        if self.dice is not None and len(dice) != self.dice:
            return ThrowRead(time, "confirm", dice,
                             f"saw {len(dice)} dice; the game throws {self.dice}")
        return ThrowRead(time, "throw", dice)

    def _unsteady(self, time: float) -> ThrowRead:
        last = self.reads[-1] if self.reads else ()
        dice = tuple(DieRead(None, o.box, o.confidence, o.state) for o in last)
        return ThrowRead(time, "confirm", dice,
                         f"the dice were read differently in {MAX_TRIES} still frames: "
                         "confirm the faces")


def _nearest(die: Observation, seen: Sequence[Observation]) -> Observation | None:
    """The observation in `seen` at the same place as `die` (within half its size)."""
    cx, cy = die.box[0] + die.box[2] / 2, die.box[1] + die.box[3] / 2
    reach = max(die.box[2], die.box[3]) / 2
    best: Observation | None = None
    best_distance = reach
    for other in seen:
        ox, oy = other.box[0] + other.box[2] / 2, other.box[1] + other.box[3] / 2
        distance = float(np.hypot(ox - cx, oy - cy))
        if distance <= best_distance:
            best, best_distance = other, distance
    return best


def _crop(frame: Frame, bed: Box | None) -> Frame:
    if bed is None:
        return frame
    x, y, w, h = (round(v) for v in bed)
    crop = frame[max(0, y):y + h, max(0, x):x + w]
    return crop if crop.size else frame
