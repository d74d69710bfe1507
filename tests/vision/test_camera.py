"""Camera sources: replayed folders and video files, and cameras that are not there."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.camera import (
    CameraEnded,
    CameraUnavailable,
    FolderCamera,
    OpenCVCamera,
    open_camera,
)
from vision.core import BadFrameError


def _frame(shade: int) -> np.ndarray:
    return np.full((48, 64, 3), shade, dtype=np.uint8)


def test_a_folder_replays_its_images_in_name_order(tmp_path: Path) -> None:
    for number in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame_{number}.png"), _frame(number * 10))
    camera = open_camera(str(tmp_path))
    assert isinstance(camera, FolderCamera)
    shades = [int(camera.read()[1][0, 0, 0]) for _ in range(3)]
    assert shades == [10, 20, 100]
    with pytest.raises(CameraEnded, match="after 3"):
        camera.read()


def test_an_unreadable_image_is_named(tmp_path: Path) -> None:
    (tmp_path / "frame_1.png").write_bytes(b"not a png at all")
    camera = FolderCamera(tmp_path)
    with pytest.raises(BadFrameError, match=r"frame_1\.png"):
        camera.read()


def test_an_empty_folder_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="no images"):
        FolderCamera(tmp_path)


def test_a_video_file_plays_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    for shade in (30, 120, 220):
        writer.write(_frame(shade))
    writer.release()
    with open_camera(str(path)) as camera:
        assert isinstance(camera, OpenCVCamera)
        times, shades = zip(*((t, int(f.mean())) for t, f in (camera.read() for _ in range(3))),
                            strict=True)
        assert times == pytest.approx((0.0, 0.1, 0.2))
        assert [abs(s - want) < 12 for s, want in zip(shades, (30, 120, 220), strict=True)] \
            == [True] * 3
        with pytest.raises(CameraEnded):
            camera.read()


@pytest.mark.parametrize("source, reason", [
    ("device:63", "cannot be opened"),
    ("/no/such/folder", "no such device, folder or file"),
])
def test_a_camera_that_is_not_there_says_why(source: str, reason: str) -> None:
    with pytest.raises(CameraUnavailable, match=reason):
        open_camera(source)


def test_the_pi_camera_off_a_pi_says_what_is_missing() -> None:
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        with pytest.raises(CameraUnavailable, match="picamera2"):
            open_camera("picamera")
    else:
        pytest.skip("picamera2 is installed: this is a Pi")
