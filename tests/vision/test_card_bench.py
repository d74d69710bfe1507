"""bench/vision_cards.py's design-by-design figures, on a hand-made folder whose figures are
known."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench.vision_cards import per_deck
from vision.core import Frame, Observation
from vision.evaluate import read_folder, score


class Scripted:
    """Gives, image after image, the reads it was handed."""

    threshold = 0.999

    def __init__(self, reads: list[list[Observation]]) -> None:
        self.reads = reads

    def __call__(self, frame: Frame) -> list[Observation]:
        return self.reads.pop(0)


def _read(code: str, confidence: float) -> Observation:
    return Observation(value=code, box=(0.0, 0.0, 10.0, 10.0), confidence=confidence)


def test_each_designs_cards_and_wrong_sure_reads_are_its_own(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    lines: list[dict[str, Any]] = [
        {"image": "images/0.png", "cards": ["AS", "2H"], "deck": "tigullio"},
        {"image": "images/1.png", "cards": ["6C"], "deck": "kde-ancient-egyptians"},
        {"image": "images/2.png", "cards": ["KD", "9S"], "deck": "tigullio"}]
    for line in lines:
        cv2.imwrite(str(tmp_path / line["image"]), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    reads = read_folder(Scripted([
        [_read("AS", 1.0), _read("2H", 0.9)],   # one right, one unsure
        [_read("9C", 1.0)],                      # a 6 read as a 9: wrong and sure
        [_read("KD", 0.9995), _read("9S", 1.0)],
    ]), tmp_path, "cards")
    designs = per_deck(reads, tmp_path, 0.999)
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
    assert per_deck(reads, tmp_path, 0.9999)["tigullio"]["confident_reads"] == 2
