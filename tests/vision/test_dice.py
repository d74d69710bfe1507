"""The dice recogniser on images it never saw: held-out real photos and rendered scenes.

The real photos are read from ../shared/data/dice (never copied into the repository); the
tests that need them skip, saying so, when they are absent. Rendered scenes come from seeds
that neither training (1000 on) nor development (500000 on) used. Timing is left to
bench/vision_dice.py.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.vision_dice import AUDIT, held_out_photos
from vision.core import BadFrameError, Observation
from vision.dice import DiceReader, ModelError
from vision.evaluate import evaluate
from vision.scenes.dice import FELTS, STYLES, Scene, SceneDie, render_scene

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dice"
needs_photos = pytest.mark.skipif(not (PHOTOS / "labels.jsonl").exists(),
                                  reason=f"the real dice photos are not in {PHOTOS}")
#: Seeds for these tests only.
SEED = 920_000
SCENES_EACH = 8
# The issue's targets are asserted on the held-out photos with the audit's two label fixes
# (bench/dice_label_audit.json); as labelled, those two photos count against the reader.
# The floors below are the levels the committed models reach now on rendered scenes and on
# the photos as labelled, a little below, so that a change that makes them worse fails;
# raise them as the recogniser improves.
FLOOR_STYLE = 0.6
FLOOR_FELT = 0.85
WRONG_SHARE = 0.05
COCKED_FLAGGED = 0.9
#: Of the cocked dice the reader alone takes flat and sure, the share the tilt check asks
#: about at least; of the flat dice it reads right, the share it asks about at most.
TILT_CAUGHT, TILT_FALSE = 0.75, 0.03
TILT_SCENES = 40
OFF_TABLE_SEEN = 0.9
HELD_OUT_IMAGES, HELD_OUT_WRONG = 0.95, 0.01


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


@pytest.fixture(scope="module")
def held_out(reader: DiceReader, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The held-out photos' figures, as labelled."""
    return evaluate(reader, held_out_photos(tmp_path_factory.mktemp("held_out")))


@pytest.fixture(scope="module")
def held_out_audited(reader: DiceReader, tmp_path_factory: pytest.TempPathFactory
                     ) -> dict[str, Any]:
    """The held-out photos' figures with the two labels bench/dice_label_audit.json found
    wrong (by eye, after training) fixed."""
    return evaluate(reader, held_out_photos(tmp_path_factory.mktemp("audited"), audited=True))


@needs_photos
def test_held_out_photos_are_all_there(held_out: dict[str, Any]) -> None:
    assert held_out["images"] == 86


def test_the_label_audit_fixes_only_the_two_labels_it_shows_wrong() -> None:
    audit = json.loads(AUDIT.read_text())
    assert [f["image"] for f in audit["fixes"]] == ["images/valid_valid_56.jpg",
                                                    "images/valid_valid_9.jpg"]
    for fix in audit["fixes"]:
        assert sorted(fix["dice"]) == sorted(int(box[4]) for box in fix["boxes"]), fix


@needs_photos
def test_held_out_photos_meet_the_issues_accuracy_target(held_out_audited: dict[str, Any]
                                                         ) -> None:
    assert held_out_audited["image_accuracy"] >= 0.99


@needs_photos
def test_held_out_photos_meet_the_issues_false_confident_target(
        held_out_audited: dict[str, Any]) -> None:
    assert held_out_audited["false_confident_rate"] < 0.005


@needs_photos
def test_held_out_photos_as_labelled_stay_at_the_present_level(held_out: dict[str, Any]
                                                               ) -> None:
    assert held_out["image_accuracy"] >= HELD_OUT_IMAGES
    assert held_out["false_confident_rate"] <= HELD_OUT_WRONG


def _scenes(seed: int, **kwargs: Any) -> Iterator[Scene]:
    for i in range(SCENES_EACH):
        yield render_scene(np.random.default_rng([seed, i]), **kwargs)


def _read_of(die: SceneDie, reads: list[Observation]) -> Observation | None:
    """The read whose box centre lies on the die's top face, if any."""
    x, y, w, h = die.box
    for read in reads:
        cx, cy = read.box[0] + read.box[2] / 2, read.box[1] + read.box[3] / 2
        if x <= cx <= x + w and y <= cy <= y + h:
            return read
    return None


def _tally(reader: DiceReader, scenes: Iterator[Scene]) -> Counter[str]:
    """Over flat dice on the bed: read right and sure, unsure, wrong and sure, missed."""
    out: Counter[str] = Counter()
    for scene in scenes:
        reads = reader.with_bed(scene.bed)(scene.image)
        for die in scene.dice:
            if die.state != "flat":
                continue
            read = _read_of(die, reads)
            if read is None:
                out["missed"] += 1
            elif read.confidence < reader.threshold or read.state != "flat":
                out["unsure"] += 1
            else:
                out["right" if read.value == die.value else "wrong"] += 1
    return out


@pytest.mark.parametrize("style", sorted(STYLES))
def test_rendered_dice_of_each_style(reader: DiceReader, style: str) -> None:
    tally = _tally(reader, _scenes(SEED + 1, styles=[style], count=3))
    dice = sum(tally.values())
    assert tally["right"] >= FLOOR_STYLE * dice, tally
    assert tally["wrong"] <= WRONG_SHARE * dice + 1, tally


@pytest.mark.parametrize("felt", sorted(FELTS))
def test_rendered_dice_on_each_felt(reader: DiceReader, felt: str) -> None:
    tally = _tally(reader, _scenes(SEED + 2, felt=felt, count=3))
    dice = sum(tally.values())
    assert tally["right"] >= FLOOR_FELT * dice, tally
    assert tally["wrong"] <= WRONG_SHARE * dice + 1, tally


def test_cocked_dice_are_not_taken_for_flat_ones(reader: DiceReader) -> None:
    said: Counter[str] = Counter()
    for scene in _scenes(SEED + 3, count=3, cocked=1.0):
        reads = reader.with_bed(scene.bed)(scene.image)
        for die in scene.dice:
            read = _read_of(die, reads)
            if die.state == "cocked" and read is not None:
                sure_flat = read.state == "flat" and read.confidence >= reader.threshold
                said["taken flat" if sure_flat else "flagged"] += 1
    assert said["flagged"] >= COCKED_FLAGGED * sum(said.values()), said


def test_the_tilt_check_asks_about_cocked_dice_the_reader_took_flat_and_few_flat_ones(
        reader: DiceReader) -> None:
    alone = DiceReader(tilt=None)
    cocked: Counter[str] = Counter()
    flat: Counter[str] = Counter()
    for i in range(TILT_SCENES):
        scene = render_scene(np.random.default_rng([SEED + 6, i]), count=3, cocked=0.5)
        with_check = reader.with_bed(scene.bed)(scene.image)
        without = alone.with_bed(scene.bed)(scene.image)
        for die in scene.dice:
            before, after = _read_of(die, without), _read_of(die, with_check)
            if before is None or after is None or before.state != "flat":
                continue
            if before.confidence < reader.threshold:
                continue
            asked = after.confidence < reader.threshold
            if die.state == "cocked":
                cocked["asked" if asked else "taken flat"] += 1
            elif die.state == "flat" and before.value == die.value:
                flat["asked" if asked else "taken"] += 1
    assert cocked["asked"] >= TILT_CAUGHT * sum(cocked.values()), cocked
    assert flat["asked"] <= TILT_FALSE * sum(flat.values()) + 1, flat


def test_dice_off_the_bed_are_said_to_be_off_the_table(reader: DiceReader) -> None:
    said: Counter[str] = Counter()
    for scene in _scenes(SEED + 4, count=3, off_table=1.0):
        reads = reader.with_bed(scene.bed)(scene.image)
        for die in scene.dice:
            read = _read_of(die, reads)
            if die.state == "off-table" and read is not None:
                said[read.state] += 1
    assert said["off-table"] >= OFF_TABLE_SEEN * sum(said.values()), said
    assert said["flat"] == 0, said


def test_an_empty_table_reads_nothing(reader: DiceReader) -> None:
    for i in range(4):
        scene = render_scene(np.random.default_rng([SEED + 5, i]), count=0)
        assert reader.with_bed(scene.bed)(scene.image) == []
    assert reader(np.full((480, 640, 3), (40, 110, 30), np.uint8)) == []


@pytest.mark.parametrize("frame", [
    None, "frame.png", np.zeros((0, 0, 3), np.uint8), np.zeros((48, 64), np.uint8),
    np.zeros((48, 64, 4), np.uint8), np.zeros((48, 64, 3), np.float32),
])
def test_frames_that_are_not_8_bit_colour_images_are_refused(reader: DiceReader,
                                                             frame: object) -> None:
    with pytest.raises(BadFrameError):
        reader(frame)  # type: ignore[arg-type]


def test_a_missing_model_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"nothing\.onnx"):
        DiceReader(model=tmp_path / "nothing.onnx")
    with pytest.raises(ModelError, match=r"no-detector\.onnx"):
        DiceReader(detector=tmp_path / "no-detector.onnx")
    with pytest.raises(ModelError, match=r"no-tilt\.onnx"):
        DiceReader(tilt=tmp_path / "no-tilt.onnx")


def test_a_threshold_outside_0_to_1_is_refused() -> None:
    with pytest.raises(ValueError, match="threshold"):
        DiceReader(threshold=1.5)
