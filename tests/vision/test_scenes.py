"""The dice scene generator: seeded, and its labels say what its pixels show."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.scenes.dice import (
    FELTS,
    STYLES,
    Scene,
    SceneDie,
    main,
    render_scene,
    render_throw,
    write_folder,
    write_throw_folder,
)


def scene(seed: int, **kwargs: Any) -> Scene:
    return render_scene(np.random.default_rng(seed), **kwargs)


def quad(die: SceneDie) -> npt.NDArray[np.float32]:
    return np.array(die.corners, np.float32)


def sides(die: SceneDie) -> npt.NDArray[np.float32]:
    q = quad(die)
    out: npt.NDArray[np.float32] = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    return out


def squareness(die: SceneDie) -> float:
    """How square the top face looks: 1 seen square-on, cos(tilt) for a face tilted away."""
    q = quad(die).astype(np.float64)
    across = ((q[1] - q[0]) + (q[2] - q[3])) / 2
    down = ((q[3] - q[0]) + (q[2] - q[1])) / 2
    stretch = np.linalg.svd(np.stack([across, down], axis=1), compute_uv=False)
    return float(stretch.min() / stretch.max())


def luma(bgr: tuple[int, int, int]) -> float:
    b, g, r = bgr
    return 0.114 * b + 0.587 * g + 0.299 * r


def pip_blobs(image: np.ndarray, die: SceneDie) -> int:
    """Blobs of the pip colour inside the top face (its rim left out), by a plain Otsu cut."""
    q = quad(die)
    centre = q.mean(axis=0)
    inner = centre + (q - centre) * 0.86
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(inner).astype(np.int32), 255)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    cut, _ = cv2.threshold(gray[mask > 0].reshape(-1, 1), 0, 255,
                           cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    style = STYLES[die.style]
    dark_pips = luma(style.pip) < luma(style.body)
    pips = ((gray <= cut) if dark_pips else (gray > cut)) & (mask > 0)
    n, _, stats, _ = cv2.connectedComponentsWithStats(pips.astype(np.uint8), connectivity=8)
    return sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 3)


def test_a_seed_always_gives_the_same_scene() -> None:
    a, b, c = scene(7), scene(7), scene(8)
    assert np.array_equal(a.image, b.image)
    assert a.label() == b.label()
    assert not np.array_equal(a.image, c.image)


def test_scene_is_an_8_bit_colour_frame_of_the_asked_size() -> None:
    s = scene(1, size=(320, 240), count=2)
    assert s.image.shape == (240, 320, 3)
    assert s.image.dtype == np.uint8
    assert len(s.dice) == 2


@pytest.mark.parametrize("style", sorted(STYLES))
def test_pips_seen_on_each_flat_top_face_match_its_label(style: str) -> None:
    for seed in range(3):
        s = scene(seed, count=4, styles=[style], clean=True)
        for die in s.dice:
            assert die.state == "flat"
            assert pip_blobs(s.image, die) == die.value, (style, seed, die)


def test_top_faces_of_dice_never_overlap() -> None:
    for seed in range(12):
        s = scene(seed, count=9, cocked=0.3, off_table=0.15, clean=True)
        for a, b in combinations(s.dice, 2):
            area, _ = cv2.intersectConvexConvex(quad(a), quad(b))
            assert area < 1.0, (seed, a, b)


def test_some_dice_are_placed_touching() -> None:
    gaps = []
    for seed in range(6):
        s = scene(seed, count=9, clean=True)
        for a, b in combinations(s.dice, 2):
            gap = min(float(np.linalg.norm(p - q)) for p in quad(a) for q in quad(b))
            gaps.append(gap / float(sides(a).mean()))
    assert min(gaps) < 0.05


def test_off_table_dice_lie_outside_the_bed_and_the_others_on_it() -> None:
    for seed in range(10):
        s = scene(seed, count=4, off_table=0.5, cocked=0.2, clean=True)
        bx, by, bw, bh = s.bed
        for die in s.dice:
            x, y, w, h = die.box
            if die.state == "off-table":
                assert x + w <= bx or x >= bx + bw or y + h <= by or y >= by + bh, (seed, die)
            else:
                cx, cy = x + w / 2, y + h / 2
                assert bx <= cx <= bx + bw and by <= cy <= by + bh, (seed, die)
    every = scene(3, count=5, off_table=1.0)
    assert [d.state for d in every.dice] == ["off-table"] * 5


def test_cocked_top_faces_are_foreshortened_and_flat_ones_square() -> None:
    cocked = flat = 0
    for seed in range(8):
        s = scene(seed, count=5, cocked=0.5, clean=True)
        for die in s.dice:
            ratio = squareness(die)
            if die.state == "cocked":
                cocked += 1
                assert ratio < 0.97, (seed, die)
            else:
                flat += 1
                assert ratio > 0.995, (seed, die)
    assert cocked > 5 and flat > 5


def test_label_lists_flat_dice_on_the_bed_sorted_and_every_die_with_its_state() -> None:
    seen_states: set[str] = set()
    for seed in range(10):
        s = scene(seed, cocked=0.3, off_table=0.2, clean=True)
        label = s.label()
        assert label["dice"] == sorted(d.value for d in s.dice if d.state == "flat")
        assert len(label["boxes"]) == len(label["states"]) == len(s.dice)
        for box, die in zip(label["boxes"], s.dice, strict=True):
            assert box[4] == die.value
            assert box[:4] == pytest.approx(die.box, abs=0.06)
        assert label["bed"] == pytest.approx(s.bed, abs=0.06)
        seen_states.update(label["states"])
        assert 1 <= len(s.dice) <= 9
    assert seen_states == {"flat", "cocked", "off-table"}


def test_die_sizes_vary_within_what_a_webcam_sees() -> None:
    widths = [float(sides(d).max())
              for seed in range(12) for d in scene(seed, count=2, clean=True).dice]
    assert min(widths) >= 25 and max(widths) <= 95
    assert max(widths) - min(widths) > 25


def test_unknown_style_or_felt_is_refused() -> None:
    with pytest.raises(ValueError, match="styles"):
        scene(0, styles=["plaid"])
    with pytest.raises(ValueError, match="felt"):
        scene(0, felt="astroturf")


@pytest.mark.parametrize("felt", sorted(FELTS))
def test_every_felt_renders(felt: str) -> None:
    s = scene(4, felt=felt, count=3)
    assert len(s.dice) == 3
    assert 10 < float(s.image.mean()) < 245


def test_a_throw_moves_then_settles() -> None:
    frames = render_throw(np.random.default_rng(2), moving=4, still=5, count=3)
    assert len(frames) == 9
    moving, still = frames[:4], frames[4:]
    final = still[0]
    for frame in still[1:]:
        assert frame.label() == final.label()
        diff = np.abs(frame.image.astype(np.int16) - final.image.astype(np.int16))
        assert 0 < float(diff.mean()) < 6
    for frame in moving:
        assert frame.label()["boxes"] != final.label()["boxes"]


def test_folder_writer_labels_read_back(tmp_path: Path) -> None:
    write_folder(tmp_path, 3, seed=11, cocked=0.2)
    lines = (tmp_path / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    for i, line in enumerate(lines):
        label = json.loads(line)
        image = cv2.imread(str(tmp_path / label["image"]))
        assert image is not None
        expected = render_scene(np.random.default_rng([11, i]), cocked=0.2)
        assert np.array_equal(image, expected.image)
        assert {k: label[k] for k in ("dice", "boxes", "states", "bed")} == expected.label()
        assert label["seed"] == 11


def test_throw_folder_marks_moving_frames(tmp_path: Path) -> None:
    write_throw_folder(tmp_path, seed=5, moving=2, still=3, count=2)
    labels = [json.loads(line) for line in
              (tmp_path / "labels.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [label["moving"] for label in labels] == [True, True, False, False, False]
    assert all((tmp_path / label["image"]).is_file() for label in labels)


def test_command_line_writes_a_folder(tmp_path: Path) -> None:
    assert main([str(tmp_path / "out"), "--count", "2", "--seed", "3", "--off-table", "0.5"]) == 0
    assert sorted(p.name for p in (tmp_path / "out" / "images").iterdir()) == [
        "scene_00000.png", "scene_00001.png"]
    with pytest.raises(SystemExit):
        main([str(tmp_path / "bad"), "--cocked", "2"])
