"""What every recogniser shares: the frame it is given and the observations it returns.

A recogniser is a plain callable `frame -> list[Observation]` (DESIGN section 7). It never
guesses: a read it is not sure of carries a low confidence, and a die it sees resting
cocked or off the table says so, so the table can ask for a confirmation or a rethrow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

#: An 8-bit BGR image as OpenCV gives it: height x width x 3.
Frame = npt.NDArray[np.uint8]
#: A box in pixels: left, top, width, height.
Box = tuple[float, float, float, float]


class VisionError(Exception):
    """Root of the errors vision/ raises."""


class BadFrameError(VisionError, ValueError):
    """A frame that is empty, unreadable or not an 8-bit colour image."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One thing seen: a die's face value 1-6 or a card code, where, and how surely.

    `state` is "flat" for a die resting flat (or a card lying face up), "cocked" for a die
    resting tilted against another die or the wall, "off-table" for one outside the bed.
    """

    value: int | str
    box: Box
    confidence: float
    time: float = 0.0
    state: str = "flat"

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "box": [round(v, 1) for v in self.box],
                "confidence": round(self.confidence, 4), "time": self.time,
                "state": self.state}


Recogniser = Callable[[Frame], Sequence[Observation]]


def check_frame(frame: object, where: str = "frame") -> Frame:
    """The frame itself when it is a non-empty 8-bit BGR image, else `BadFrameError`."""
    if not isinstance(frame, np.ndarray):
        raise BadFrameError(f"{where}: not an image (got {type(frame).__name__})")
    if frame.size == 0:
        raise BadFrameError(f"{where}: the image is empty")
    if frame.dtype != np.uint8:
        raise BadFrameError(f"{where}: pixels must be 8-bit, got {frame.dtype}")
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise BadFrameError(f"{where}: expected a colour image (height x width x 3), "
                            f"got shape {frame.shape}")
    return frame
