"""evaluate() and load_labels() on tiny hand-made folders whose figures are known (and the
card bench's figures design by design)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from bench.vision_cards import per_deck
from vision.core import Frame, Observation
from vision.evaluate import LabelError, evaluate, load_labels, read_folder, score
from vision.scenes.dice import write_folder


class Scripted:
    """A recogniser that gives, image after image, the reads it was handed."""

    threshold = 0.9

    def __init__(self, reads: Sequence[list[Observation]]) -> None:
        self.reads = list(reads)

    def __call__(self, frame: Frame) -> list[Observation]:
        return self.reads.pop(0)


def _folder(tmp_path: Path, lines: Sequence[dict[str, Any] | str]) -> Path:
    (tmp_path / "images").mkdir(parents=True)
    text = []
    for i, line in enumerate(lines):
        cv2.imwrite(str(tmp_path / "images" / f"{i}.png"), np.zeros((48, 64, 3), np.uint8))
        text.append(line if isinstance(line, str) else json.dumps(line))
    (tmp_path / "labels.jsonl").write_text("\n".join(text) + "\n")
    return tmp_path


def _read(value: int, confidence: float, box: tuple[float, float, float, float],
          state: str = "flat") -> Observation:
    return Observation(value=value, box=box, confidence=confidence, state=state)


A, B = (0.0, 0.0, 10.0, 10.0), (30.0, 0.0, 10.0, 10.0)
THREE_IMAGES = [
    {"image": "images/0.png", "dice": [3, 5], "boxes": [[*A, 3], [*B, 5]]},
    {"image": "images/1.png", "dice": [2], "boxes": [[*A, 2]]},
    {"image": "images/2.png", "dice": [4, 4], "boxes": [[*A, 4], [*B, 4]]},
]
THREE_READS = [
    [_read(5, 0.95, B), _read(3, 0.95, A)],
    [_read(6, 0.99, A)],
    [_read(4, 0.99, A), _read(4, 0.3, B)],
]


@pytest.mark.parametrize("with_boxes", [True, False])
def test_figures_of_a_known_folder(tmp_path: Path, with_boxes: bool) -> None:
    lines = [dict(line) for line in THREE_IMAGES]
    if not with_boxes:
        for line in lines:
            del line["boxes"]
    seen: list[tuple[int, int]] = []
    result = evaluate(Scripted(THREE_READS), _folder(tmp_path, lines),
                      progress=lambda done, total: seen.append((done, total)))
    assert result["images"] == 3
    assert result["image_accuracy"] == pytest.approx(1 / 3, abs=1e-4)
    assert result["item_accuracy"] == pytest.approx(3 / 5)
    assert result["false_confident_rate"] == pytest.approx(1 / 4)
    assert result["unsure_rate"] == pytest.approx(1 / 5)
    assert result["per_class"]["2"] == {"items": 1, "errors": 1}
    assert result["per_class"]["3"] == {"items": 1, "errors": 0}
    assert result["confusion"]["2"] == {"6": 1}
    assert result["confusion"]["4"] == {"4": 1, "unsure": 1}
    assert result["ms_per_frame"] >= 0
    assert seen == [(1, 3), (2, 3), (3, 3)]
    # The counts behind the shares, and where the shares may truly lie (95% Wilson).
    assert (result["items"], result["confident_reads"], result["false_confident_reads"]) == (
        5, 4, 1)
    assert result["item_accuracy_interval"] == [0.2307, 0.8824]
    assert result["false_confident_interval"] == [0.0456, 0.6994]
    json.dumps(result)


def test_one_reading_scored_at_several_thresholds_as_evaluate_scores_it(tmp_path: Path) -> None:
    folder = _folder(tmp_path, THREE_IMAGES)
    reads = read_folder(Scripted(THREE_READS), folder)
    assert len(reads.reads) == len(reads.ms) == 3
    for threshold in (0.2, 0.9, 0.97):
        again = evaluate(Scripted(THREE_READS), folder, threshold=threshold)
        scored = score(reads, threshold)
        assert {k: v for k, v in scored.items() if k != "ms_per_frame"} == {
            k: v for k, v in again.items() if k != "ms_per_frame"}
    assert score(reads, 0.97)["confident_reads"] == 2
    assert score(reads, 0.97)["false_confident_interval"][0] > 0.0


def test_a_missed_die_and_an_extra_read(tmp_path: Path) -> None:
    lines = [{"image": "images/0.png", "dice": [1, 6], "boxes": [[*A, 1], [*B, 6]]}]
    reads = [[_read(1, 0.99, A), _read(2, 0.99, (60.0, 30.0, 5.0, 5.0))]]
    result = evaluate(Scripted(reads), _folder(tmp_path, lines))
    assert result["image_accuracy"] == 0.0
    assert result["confusion"]["6"] == {"missed": 1}
    assert result["confusion"]["none"] == {"2": 1}
    assert result["false_confident_rate"] == pytest.approx(1 / 2)


def test_a_cocked_die_read_as_flat_and_sure_is_a_false_confident_read(tmp_path: Path) -> None:
    lines = [{"image": "images/0.png", "dice": [2], "boxes": [[*A, 2], [*B, 5]],
              "states": ["flat", "cocked"]}]
    said_flat = evaluate(Scripted([[_read(2, 0.99, A), _read(5, 0.99, B)]]),
                         _folder(tmp_path / "a", lines))
    assert said_flat["image_accuracy"] == 0.0
    assert said_flat["false_confident_rate"] == pytest.approx(1 / 2)
    assert said_flat["states"]["cocked"] == {"flat": 1}
    said_cocked = evaluate(Scripted([[_read(2, 0.99, A), _read(5, 0.99, B, "cocked")]]),
                           _folder(tmp_path / "b", lines))
    assert said_cocked["image_accuracy"] == 1.0
    assert said_cocked["false_confident_rate"] == 0.0
    assert said_cocked["states"]["cocked"] == {"cocked": 1}


def test_threshold_given_overrides_the_recognisers(tmp_path: Path) -> None:
    folder = _folder(tmp_path, THREE_IMAGES)
    result = evaluate(Scripted(THREE_READS), folder, threshold=0.2)
    assert result["threshold"] == 0.2
    assert result["unsure_rate"] == 0.0
    assert result["image_accuracy"] == pytest.approx(2 / 3, abs=1e-4)


def test_the_bed_of_each_image_reaches_the_recogniser(tmp_path: Path) -> None:
    lines = [{**THREE_IMAGES[1], "image": "images/0.png", "bed": [1, 2, 30, 40]}]
    beds = []

    def for_bed(bed: tuple[float, float, float, float]) -> Scripted:
        beds.append(bed)
        return Scripted([[_read(2, 0.99, A)]])

    result = evaluate(Scripted([]), _folder(tmp_path, lines), for_bed=for_bed)
    assert beds == [(1.0, 2.0, 30.0, 40.0)]
    assert result["image_accuracy"] == 1.0


@pytest.mark.parametrize(("bad", "why"), [
    ("{not json", "not JSON"),
    ('{"image": "images/1.png", "dice": [7]}', "face values 1-6"),
    ('{"image": "images/1.png"}', "face values 1-6"),
    ('{"dice": [2]}', '"image"'),
    ('{"image": "images/1.png", "dice": [2], "boxes": [[1, 2, 3]]}', "[x, y, w, h, value]"),
])
def test_a_bad_labels_line_is_named_by_file_and_line(tmp_path: Path, bad: str,
                                                     why: str) -> None:
    folder = _folder(tmp_path, [THREE_IMAGES[0], bad, THREE_IMAGES[2]])
    with pytest.raises(LabelError, match="line 2") as caught:
        load_labels(folder)
    assert why in str(caught.value)
    assert "labels.jsonl" in str(caught.value)


def test_a_missing_image_is_named_by_its_line(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [THREE_IMAGES[0], {"image": "images/gone.png", "dice": [1]}])
    with pytest.raises(LabelError, match=r"line 2.*gone\.png"):
        evaluate(Scripted(THREE_READS), folder)


def test_cards_labels_are_read_with_their_own_key(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [{"image": "images/0.png", "cards": ["10H", "AS"]}])
    assert load_labels(folder, "cards")[0].items == ("10H", "AS")
    with pytest.raises(LabelError, match="line 1"):
        load_labels(folder, "dice")


def _card(code: str, confidence: float) -> Observation:
    return Observation(value=code, box=A, confidence=confidence)


def test_a_sure_read_of_a_card_partly_seen_is_neither_right_nor_wrong(tmp_path: Path) -> None:
    # A shoe's window cuts the index of the card being drawn: reading that card is reading
    # the card itself, not a wrong card, and not reading it is no miss.
    folder = _folder(tmp_path, [
        {"image": "images/0.png", "cards": [], "partly_seen": ["7S"]},
        {"image": "images/1.png", "cards": [], "partly_seen": ["3D"]},
        {"image": "images/2.png", "cards": ["8C"], "partly_seen": ["8C"]},
        {"image": "images/3.png", "cards": ["QH"]},
    ])
    reads = [[_card("7S", 0.99)], [_card("3C", 0.99)],
             [_card("8C", 0.99), _card("8C", 0.98)], [_card("QH", 0.5)]]
    result = evaluate(Scripted(reads), folder, "cards")
    # Image 0: the partly seen 7S read, nothing labelled: exact, no confident read counted.
    # Image 1: 3C is no card in the frame: wrong. Image 2: one 8C right, the other is the
    # partly seen copy. Image 3: QH unsure.
    assert result["image_accuracy"] == 0.5
    assert result["item_accuracy"] == 0.5
    assert result["false_confident_rate"] == 0.5
    assert result["unsure_rate"] == 0.5


def test_partly_seen_must_be_card_codes(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [{"image": "images/0.png", "cards": [], "partly_seen": "7S"}])
    with pytest.raises(LabelError, match=r"line 1.*partly_seen"):
        load_labels(folder, "cards")


def test_hoyle_vision_eval_prints_the_figures(tmp_path: Path) -> None:
    write_folder(tmp_path / "scenes", 4, seed=424242)
    run = subprocess.run([sys.executable, "-m", "controller.cli", "vision", "eval", "dice",
                          str(tmp_path / "scenes")], capture_output=True, text=True,
                         check=False, timeout=300)
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout)
    assert figures["images"] == 4
    for key in ("image_accuracy", "item_accuracy", "false_confident_rate", "unsure_rate",
                "ms_per_frame", "per_class"):
        assert key in figures
    stricter = subprocess.run([sys.executable, "-m", "controller.cli", "vision", "eval", "dice",
                               str(tmp_path / "scenes"), "--threshold", "0.99"],
                              capture_output=True, text=True, check=False, timeout=300)
    assert stricter.returncode == 0, stricter.stderr
    assert json.loads(stricter.stdout)["threshold"] == 0.99
    assert json.loads(stricter.stdout)["unsure_rate"] >= figures["unsure_rate"]
    wrong = subprocess.run([sys.executable, "-m", "controller.cli", "vision", "eval", "dice",
                            str(tmp_path / "scenes"), "--threshold", "99"],
                           capture_output=True, text=True, check=False, timeout=300)
    assert wrong.returncode == 2 and "--threshold 99" in wrong.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "labels.jsonl").write_text('{"image": "nowhere.png", "dice": [3]}\n')
    bad = subprocess.run([sys.executable, "-m", "controller.cli", "vision", "eval", "dice",
                          str(tmp_path / "bad")], capture_output=True, text=True, check=False,
                         timeout=300)
    assert bad.returncode == 2
    assert "nowhere.png" in bad.stderr and "line 1" in bad.stderr


def test_the_card_bench_gives_each_designs_cards_and_wrong_sure_reads(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [
        {"image": "images/0.png", "cards": ["AS", "2H"], "deck": "tigullio"},
        {"image": "images/1.png", "cards": ["6C"], "deck": "kde-ancient-egyptians"},
        {"image": "images/2.png", "cards": ["KD", "9S"], "deck": "tigullio"}])
    reads = read_folder(Scripted([
        [_card("AS", 1.0), _card("2H", 0.9)],   # one right, one unsure
        [_card("9C", 1.0)],                      # a 6 read as a 9: wrong and sure
        [_card("KD", 0.9995), _card("9S", 1.0)],
    ]), folder, "cards")
    designs = per_deck(reads, folder, 0.999)
    assert designs == {
        "kde-ancient-egyptians": {"items": 1, "item_accuracy": 0.0, "confident_reads": 1,
                                  "false_confident_reads": 1},
        "tigullio": {"items": 4, "item_accuracy": 0.75, "confident_reads": 3,
                     "false_confident_reads": 0},
    }
    # The designs' counts add up to the folder's.
    whole = score(reads, 0.999)
    assert sum(d["items"] for d in designs.values()) == whole["items"]
    assert sum(d["false_confident_reads"] for d in designs.values()) == whole[
        "false_confident_reads"]
    # Stricter, the KD at 0.9995 is no longer sure.
    assert per_deck(reads, folder, 0.9999)["tigullio"]["confident_reads"] == 2
