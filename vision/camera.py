"""Camera sources (DESIGN section 7): frames with the time they were taken.

`open_camera(source)` takes the config's `camera.source`:

- `"device:0"` or `"/dev/video0"`: a USB or V4L2 camera through OpenCV's `VideoCapture`;
- `"picamera"`: the Pi's camera module through picamera2 (on a Pi only);
- a folder: its images in name order, as a camera would have taken them (replay, and the
  simulated table);
- any other file: a video file, frame by frame.

A camera that cannot be opened, or that stops giving frames, raises `CameraUnavailable`
with the reason; a replay that has run out raises `CameraEnded`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from drivers.closing import Closeable
from vision.core import BadFrameError, Frame, VisionError, check_frame

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")
#: A live camera that gives no frame for this long is unplugged or hung.
READ_FAILURES = 5


class CameraUnavailable(VisionError, ConnectionError):
    """The camera cannot be opened or has stopped giving frames; the message says why."""


class CameraEnded(VisionError, EOFError):
    """A replay (folder or video file) has given its last frame."""


class Camera(Closeable):
    """A source of frames; `read()` gives (seconds, frame), in the order they were taken."""

    name: str = "camera"

    def read(self) -> tuple[float, Frame]:
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release unless a source holds a device."""


class OpenCVCamera(Camera):
    """A V4L2/USB camera (an index) or a video file (a path) through `cv2.VideoCapture`."""

    def __init__(self, target: int | str, *, size: tuple[int, int] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = f"camera {target}" if isinstance(target, int) else f"video {target}"
        self.live = isinstance(target, int)
        self.clock = clock
        self.capture = cv2.VideoCapture(target)
        if not self.capture.isOpened():
            self.capture.release()
            raise CameraUnavailable(f"{self.name}: cannot be opened (unplugged, in use by "
                                    "another program, or no permission to /dev/video*)")
        if size is not None:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.frames = 0

    def read(self) -> tuple[float, Frame]:
        for _ in range(READ_FAILURES if self.live else 1):
            ok, frame = self.capture.read()
            if ok and frame is not None:
                self.frames += 1
                if self.live:
                    return self.clock(), check_frame(frame, self.name)
                fps = self.capture.get(cv2.CAP_PROP_FPS) or 30.0
                return (self.frames - 1) / fps, check_frame(frame, self.name)
        if not self.live:
            raise CameraEnded(f"{self.name}: no more frames after {self.frames}")
        raise CameraUnavailable(f"{self.name}: gave no frame {READ_FAILURES} times running "
                                "(unplugged or hung)")

    def close(self) -> None:
        self.capture.release()


class PiCamera(Camera):
    """The Raspberry Pi camera module through picamera2 (installed with Raspberry Pi OS)."""

    def __init__(self, *, size: tuple[int, int] = (640, 480),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = "picamera"
        self.clock = clock
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as error:
            raise CameraUnavailable("picamera: picamera2 is not installed (it comes with "
                                    "Raspberry Pi OS: apt install python3-picamera2)") from error
        try:
            self.device: Any = Picamera2()
            self.device.configure(self.device.create_video_configuration(
                main={"size": size, "format": "BGR888"}))
            self.device.start()
        except (RuntimeError, OSError, IndexError) as error:
            raise CameraUnavailable(f"picamera: cannot be started: {error}") from error

    def read(self) -> tuple[float, Frame]:
        try:
            frame = self.device.capture_array()
        except (RuntimeError, OSError) as error:
            raise CameraUnavailable(f"picamera: stopped giving frames: {error}") from error
        return self.clock(), check_frame(np.ascontiguousarray(frame), self.name)

    def close(self) -> None:
        self.device.stop()
        self.device.close()


class FolderCamera(Camera):
    """A folder's images in name order, `interval` seconds apart: replay, and the sim table."""

    def __init__(self, folder: str | Path, *, interval: float = 1 / 15) -> None:
        self.folder = Path(folder)
        self.name = f"folder {self.folder}"
        self.interval = interval
        self.paths = sorted((p for p in self.folder.rglob("*")
                             if p.suffix.lower() in IMAGE_SUFFIXES), key=_natural)
        if not self.paths:
            raise CameraUnavailable(f"{self.name}: no images ({', '.join(IMAGE_SUFFIXES)})")
        self.index = 0

    def read(self) -> tuple[float, Frame]:
        if self.index >= len(self.paths):
            raise CameraEnded(f"{self.name}: no more frames after {len(self.paths)}")
        path = self.paths[self.index]
        self.index += 1
        return (self.index - 1) * self.interval, read_image(path)


def read_image(path: Path) -> Frame:
    """An image file as a BGR frame; `BadFrameError` naming the file if it is not one."""
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError as error:
        raise BadFrameError(f"{path}: cannot be read: {error.strerror}") from error
    frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if frame is None:
        raise BadFrameError(f"{path}: not an image OpenCV can decode (empty or corrupt)")
    return check_frame(frame, str(path))


def open_camera(source: str, *, size: tuple[int, int] | None = None) -> Camera:
    """The camera the config's `camera.source` names (see the module's docstring)."""
    device = re.fullmatch(r"(?:device:|/dev/video)(\d+)", source)
    if device:
        return OpenCVCamera(int(device.group(1)), size=size)
    if source == "picamera":
        return PiCamera(size=size or (640, 480))
    path = Path(source)
    if path.is_dir():
        return FolderCamera(path)
    if path.is_file():
        return OpenCVCamera(str(path))
    raise CameraUnavailable(f"camera source {source!r}: no such device, folder or file "
                            "(use device:N, /dev/videoN, picamera, a folder or a video file)")


def _natural(path: Path) -> list[int | str]:
    """Name order with numbers compared as numbers (frame_2 before frame_10)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(path))]
