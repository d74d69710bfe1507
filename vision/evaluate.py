"""Scoring a recogniser against a labelled image folder (DESIGN section 10).

`evaluate(recogniser, folder)` reads `folder/labels.jsonl`, runs the recogniser on every
image on one core and returns the figures `hoyle vision eval` prints: how many images are
read exactly, how many items right, how often a confident read is wrong, how often the
operator is asked, milliseconds per frame, and where the errors fall. Beside the shares of
items read right and of confident reads wrong stand the counts they are shares of and
their 95% intervals (`wilson_interval`): a few hundred reads cannot tell a 0.4% rate of
wrong reads from 0.2%. `read_folder` reads a folder once and `score` scores those reads
at any threshold, as `evaluate` does at one.

A read is confident when its confidence is at least the recogniser's `threshold` (or the
`threshold` given). Only confident reads of flat items on the bed count as read; a read of
something labelled cocked or off the table that claims to be flat and sure is a false
confident read. When labels carry boxes, reads are matched to labelled items by place;
otherwise by value. A card label's optional "partly_seen" lists cards in the frame with no
index wholly in view (the generator's shoe windows: the card being drawn, its index cut by
the window): a sure read of one, beyond those labelled, is that card, so it is counted
neither right nor wrong.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

import cv2

from vision.core import Box, Observation, Recogniser, VisionError, check_frame

KINDS = ("dice", "cards")
#: The figures of `evaluate` a benchmark's JSON line gives (bench/vision_*.py).
FIGURES = ("images", "image_accuracy", "item_accuracy", "false_confident_rate", "unsure_rate",
           "ms_per_frame", "threshold", "items", "item_accuracy_interval", "confident_reads",
           "false_confident_reads", "false_confident_interval")
#: Confidence taken as sure when the recogniser does not say its own threshold.
DEFAULT_THRESHOLD = 0.5


class LabelError(VisionError, ValueError):
    """A labels.jsonl line (named by file and line number) or its image is unusable."""


@dataclass(frozen=True, slots=True)
class Label:
    """One labelled image: the items on the bed read flat, and every item's box and state."""

    image: Path
    line: int
    items: tuple[int | str, ...]
    boxes: tuple[tuple[Box, int | str], ...] = ()
    states: tuple[str, ...] = ()
    bed: Box | None = None
    partly_seen: tuple[str, ...] = ()


def load_labels(folder: Path, kind: str = "dice") -> list[Label]:
    """The labels of `folder/labels.jsonl`; `LabelError` names the file and line of a bad one."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    path = folder / "labels.jsonl"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LabelError(f"{path}: cannot read the labels ({exc.strerror})") from exc
    labels = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            labels.append(_parse(folder, path, number, line, kind))
    if not labels:
        raise LabelError(f"{path}: no labelled images")
    return labels


def _parse(folder: Path, path: Path, number: int, line: str, kind: str) -> Label:
    where = f"{path}, line {number}"
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LabelError(f"{where}: not JSON ({exc.msg})") from exc
    if not isinstance(entry, dict):
        raise LabelError(f"{where}: expected an object")
    image = entry.get("image")
    if not isinstance(image, str) or not image:
        raise LabelError(f"{where}: \"image\" must be a relative path")
    items = entry.get(kind)
    if not isinstance(items, list) or not all(_valid_item(v, kind) for v in items):
        wanted = "face values 1-6" if kind == "dice" else "card codes like 10H"
        raise LabelError(f"{where}: \"{kind}\" must be a list of {wanted}")
    boxes = []
    for box in entry.get("boxes") or []:
        if (kind == "cards" and isinstance(box, list) and len(box) == 5
                and isinstance(box[4], str) and not _valid_item(box[4], kind)):
            continue  # another object on the table (a joker, a chip): not a card to read
        if (not isinstance(box, list) or len(box) != 5 or not _valid_item(box[4], kind)
                or not all(isinstance(v, int | float) for v in box[:4])):
            raise LabelError(f"{where}: a box must be [x, y, w, h, value]")
        boxes.append(((float(box[0]), float(box[1]), float(box[2]), float(box[3])), box[4]))
    states = entry.get("states") or []
    if states and (len(states) != len(boxes) or not all(isinstance(s, str) for s in states)):
        raise LabelError(f"{where}: \"states\" must be one state per box")
    partly_seen = (entry.get("partly_seen") or []) if kind == "cards" else []
    if not isinstance(partly_seen, list) or not all(_valid_item(v, kind) for v in partly_seen):
        raise LabelError(f"{where}: \"partly_seen\" must be a list of card codes like 10H")
    bed = entry.get("bed")
    if bed is not None and (not isinstance(bed, list) or len(bed) != 4
                            or not all(isinstance(v, int | float) for v in bed)):
        raise LabelError(f"{where}: \"bed\" must be [x, y, w, h]")
    return Label(image=folder / image, line=number, items=tuple(items), boxes=tuple(boxes),
                 states=tuple(states), partly_seen=tuple(partly_seen),
                 bed=None if bed is None else (float(bed[0]), float(bed[1]), float(bed[2]),
                                               float(bed[3])))


def _valid_item(value: object, kind: str) -> bool:
    if kind == "dice":
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6
    return isinstance(value, str) and 2 <= len(value) <= 3


def evaluate(recogniser: Recogniser, folder: Path, kind: str = "dice", *,
             threshold: float | None = None,
             progress: Callable[[int, int], None] | None = None,
             for_bed: Callable[[Box], Recogniser] | None = None) -> dict[str, Any]:
    """The DESIGN section 10 figures of `recogniser` on the labelled `folder`, sure at
    `threshold` (default: the recogniser's own, else DEFAULT_THRESHOLD).

    `progress(done, total)` is called after each image. With `for_bed`, an image whose label
    gives its "bed" is read by `for_bed(bed)`, as a table configured with that bed would.
    """
    sure = threshold if threshold is not None else float(
        getattr(recogniser, "threshold", DEFAULT_THRESHOLD))
    return score(read_folder(recogniser, folder, kind, progress=progress, for_bed=for_bed),
                 sure)


@dataclass(frozen=True, slots=True)
class FolderReads:
    """A recogniser's reads of every image of a labelled folder, and each read's time."""

    kind: str
    labels: tuple[Label, ...]
    reads: tuple[tuple[Observation, ...], ...]
    ms: tuple[float, ...]


def read_folder(recogniser: Recogniser, folder: Path, kind: str = "dice", *,
                progress: Callable[[int, int], None] | None = None,
                for_bed: Callable[[Box], Recogniser] | None = None) -> FolderReads:
    """Every image of the labelled `folder` read by `recogniser` on one core, timed
    (`progress` and `for_bed` as for `evaluate`)."""
    labels = load_labels(folder, kind)
    reads: list[tuple[Observation, ...]] = []
    times: list[float] = []
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        for done, label in enumerate(labels, start=1):
            frame = cv2.imread(str(label.image), cv2.IMREAD_COLOR)
            if frame is None:
                raise LabelError(f"{folder / 'labels.jsonl'}, line {label.line}: "
                                 f"cannot read image {label.image}")
            reader = recogniser if for_bed is None or label.bed is None else for_bed(label.bed)
            start = time.perf_counter()
            reads.append(tuple(reader(check_frame(frame, str(label.image)))))
            times.append((time.perf_counter() - start) * 1000.0)
            if progress is not None:
                progress(done, len(labels))
    finally:
        cv2.setNumThreads(threads)
    return FolderReads(kind, tuple(labels), tuple(reads), tuple(times))


def score(taken: FolderReads, threshold: float) -> dict[str, Any]:
    """The DESIGN section 10 figures of a folder's reads, a read sure at `threshold`."""
    # A die has one box, a card one per index that shows: cards are matched by value.
    tally = _Tally(by_place=taken.kind == "dice")
    for label, reads in zip(taken.labels, taken.reads, strict=True):
        tally.add(label, reads, threshold)
    return tally.result(len(taken.labels), median(taken.ms), threshold)


class _Tally:
    """Counts over images: exact images, right items, confident reads and the confusions."""

    def __init__(self, *, by_place: bool = True) -> None:
        self.by_place = by_place
        self.exact = 0
        self.items = 0
        self.right = 0
        self.unsure = 0
        self.confident = 0
        self.wrong = 0
        self.confusion: dict[str, Counter[str]] = {}
        self.states: dict[str, Counter[str]] = {}

    def add(self, label: Label, reads: Sequence[Observation], sure: float) -> None:
        reads = _less_partly_seen(label, reads, sure)
        confident = [r for r in reads if r.confidence >= sure and r.state == "flat"]
        if Counter(map(str, label.items)) == Counter(str(r.value) for r in confident):
            self.exact += 1
        self.items += len(label.items)
        self.confident += len(confident)
        if label.boxes and self.by_place:
            self._by_place(label, reads, sure)
        else:
            self._by_value(label, reads, sure)

    def _note(self, want: int | str, got: str, times: int = 1) -> None:
        self.confusion.setdefault(str(want), Counter())[got] += times

    def _by_place(self, label: Label, reads: Sequence[Observation], sure: float) -> None:
        states = label.states or ("flat",) * len(label.boxes)
        pairs = _match([box for box, _ in label.boxes], [r.box for r in reads])
        matched = {r: b for b, r in pairs}
        for b, ((_, want), state) in enumerate(zip(label.boxes, states, strict=True)):
            read = next((reads[r] for r, bb in matched.items() if bb == b), None)
            got = "missed" if read is None else read.state
            self.states.setdefault(state, Counter())[got] += 1
            if read is not None and read.state == "flat" and read.confidence >= sure:
                if state != "flat" or read.value != want:
                    self.wrong += 1
                if state == "flat":
                    self.right += read.value == want
                    self._note(want, str(read.value))
            elif state == "flat":
                if read is not None and read.state == "flat":
                    self.unsure += 1
                    self._note(want, "unsure")
                else:
                    self._note(want, got)
        for r, read in enumerate(reads):
            if r not in matched and read.state == "flat" and read.confidence >= sure:
                self.wrong += 1
                self._note("none", str(read.value))

    def _by_value(self, label: Label, reads: Sequence[Observation], sure: float) -> None:
        flat = [r for r in reads if r.state == "flat"]
        left = Counter(map(str, label.items))
        got = Counter(str(r.value) for r in flat if r.confidence >= sure)
        for value in list(left):
            hit = min(left[value], got[value])
            self.right += hit
            if hit:
                self._note(value, value, hit)
            left[value] -= hit
            got[value] -= hit
        wants = sorted(left.elements())
        unsure = min(len(wants), sum(1 for r in flat if r.confidence < sure))
        self.unsure += unsure
        wrong = sorted(got.elements())
        self.wrong += len(wrong)
        for i, want in enumerate(wants):
            self._note(want, wrong[i] if i < len(wrong) else
                       "unsure" if i < len(wrong) + unsure else "missed")
        for extra in wrong[len(wants):]:
            self._note("none", extra)

    def result(self, images: int, ms: float, sure: float) -> dict[str, Any]:
        per_class = {}
        for want, got in sorted(self.confusion.items()):
            if want != "none":
                total = sum(got.values())
                per_class[want] = {"items": total, "errors": total - got[want]}
        out: dict[str, Any] = {
            "images": images,
            "image_accuracy": _share(self.exact, images),
            "item_accuracy": _share(self.right, self.items),
            "false_confident_rate": _share(self.wrong, self.confident),
            "items": self.items,
            "item_accuracy_interval": wilson_interval(self.right, self.items),
            "confident_reads": self.confident,
            "false_confident_reads": self.wrong,
            "false_confident_interval": wilson_interval(self.wrong, self.confident),
            "unsure_rate": _share(self.unsure, self.items),
            "ms_per_frame": round(ms, 2),
            "threshold": sure,
            "per_class": per_class,
            "confusion": {w: dict(sorted(g.items())) for w, g in sorted(self.confusion.items())},
        }
        if self.states:
            out["states"] = {s: dict(sorted(g.items())) for s, g in sorted(self.states.items())}
        return out


def _less_partly_seen(label: Label, reads: Sequence[Observation], sure: float
                      ) -> list[Observation]:
    """The reads less the sure ones of cards the label has partly seen, beyond the copies it
    labels in view: those are the cards themselves, neither right nor wrong."""
    def sure_flat(read: Observation) -> bool:
        return read.state == "flat" and read.confidence >= sure

    spare = (Counter(str(r.value) for r in reads if sure_flat(r))
             - Counter(map(str, label.items))) & Counter(label.partly_seen)
    kept = []
    for read in reads:
        if sure_flat(read) and spare[str(read.value)] > 0:
            spare[str(read.value)] -= 1
            continue
        kept.append(read)
    return kept


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


#: The normal quantile of a two-sided 95% interval.
Z_95 = 1.959964


def wilson_interval(part: int, whole: int) -> list[float]:
    """The 95% Wilson score interval of the share `part` / `whole`, to 4 places: where the
    share measured on `whole` items may truly lie ([0.0, 1.0] when there are none).

    >>> wilson_interval(3, 800)
    [0.0013, 0.011]
    >>> wilson_interval(0, 100)
    [0.0, 0.037]
    """
    if whole <= 0:
        return [0.0, 1.0]
    share, z2 = part / whole, Z_95 * Z_95
    centre = (share + z2 / (2 * whole)) / (1 + z2 / whole)
    spread = Z_95 * math.sqrt(share * (1 - share) / whole + z2 / (4 * whole * whole)) / (
        1 + z2 / whole)
    return [round(max(0.0, centre - spread), 4), round(min(1.0, centre + spread), 4)]


def _match(labelled: Sequence[Box], read: Sequence[Box]) -> list[tuple[int, int]]:
    """Pairs (label, read), nearest centres first, of boxes where one holds the other's centre."""
    options = []
    for b, lb in enumerate(labelled):
        for r, rb in enumerate(read):
            if _holds(lb, _centre(rb)) or _holds(rb, _centre(lb)):
                (lx, ly), (rx, ry) = _centre(lb), _centre(rb)
                options.append(((lx - rx) ** 2 + (ly - ry) ** 2, b, r))
    used_b: set[int] = set()
    used_r: set[int] = set()
    pairs = []
    for _, b, r in sorted(options):
        if b not in used_b and r not in used_r:
            used_b.add(b)
            used_r.add(r)
            pairs.append((b, r))
    return pairs


def _centre(box: Box) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _holds(box: Box, point: tuple[float, float]) -> bool:
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h
