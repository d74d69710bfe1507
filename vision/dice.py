"""The dice recogniser: every die in an overhead frame, its top face, and how surely.

Classic OpenCV finds the dice: anything that differs from the felt (or from the rail outside
the bed) by colour, at die size and holding a pip-like mark, is a candidate; blobs of
touching dice are cut along the edges between them (or split by area), and groups of pips
that no blob holds (a die joined to clutter, or of the felt's own colour) are candidates too.
A small CNN (vision/models/dice_cnn.onnx, trained by `vision/train_dice.py` on rendered
scenes and real photos, run by OpenCV's dnn module) then reads each candidate's crop, turned
square and normalised so pips are dark on a light body whatever the die's colours, as face
1-6, "cocked" or "not a die". Its probability, averaged over four turns of the crop, is the
confidence; a die outside the bed is "off-table"; of two reads of one die the surer stays.

>>> import numpy as np
>>> reader = DiceReader()
>>> reader(np.full((480, 640, 3), (40, 110, 30), np.uint8))
[]
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.core import BadFrameError, Box, Frame, Observation, VisionError, check_frame

Floats = npt.NDArray[np.float32]
#: A grey image, height x width.
Gray = npt.NDArray[np.uint8]

#: The committed model, written by vision/train_dice.py.
DEFAULT_MODEL = Path(__file__).with_name("models") / "dice_cnn.onnx"
#: Classifier outputs: faces 1-6, then a tilted die, then anything else the felt shows.
CLASSES = (1, 2, 3, 4, 5, 6, "cocked", "none")
COCKED = 6
NOT_A_DIE = 7
#: Side of the normalised square crop the classifier sees, in pixels.
CROP = 32
#: A die is this share of the frame's short side across at least, and at most.
MIN_DIE, MAX_DIE = 0.045, 0.2
#: Lightness counts this much against colour: shading across a die's sides is not an object.
LIGHTNESS_WEIGHT = 0.5
#: Colour distance from the felt beyond which a pixel may belong to a die, and beyond which
#: it surely differs (pips); a die is a faint region that holds a sure one.
MIN_CONTRAST, HIGH_CONTRAST = 18.0, 30.0
#: A blob this many times a die's area is touching dice to cut apart.
SPLIT = 1.6
#: Canny's lower threshold for the edges that part touching dice.
EDGE = 20.0
#: A piece of a cut blob counts as a die from this share of a die's area.
PIECE = 0.45
#: The classifier reads each crop in this many quarter turns and averages.
TURNS = 4
#: Reads at least this sure are taken; chosen on the development photos (none wrong above).
DEFAULT_THRESHOLD = 0.7


class ModelError(VisionError, FileNotFoundError):
    """The dice model file is missing or not a model this code can run."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """Something on the table that may be a die: its outline's rotated rectangle, box, and
    the side of the square crop the classifier sees (never less than a die here)."""

    rect: tuple[tuple[float, float], tuple[float, float], float]
    box: Box
    side: float


def _bed_mask(shape: tuple[int, int], bed: Box | None) -> npt.NDArray[np.bool_]:
    inside = np.zeros(shape, bool)
    if bed is None:
        inside[:] = True
    else:
        x, y, w, h = (round(v) for v in bed)
        inside[max(y, 0):max(y + h, 0), max(x, 0):max(x + w, 0)] = True
    return inside


def _region_masks(shape: tuple[int, int], bed: Box | None) -> list[npt.NDArray[np.bool_]]:
    inside = _bed_mask(shape, bed)
    return [inside] if inside.all() else [inside, ~inside]


def contrast_map(frame: Frame, bed: Box | None = None) -> Floats:
    """Colour distance of each pixel from the local background (felt, or rail off the bed).

    The background is a median over a window several dice wide at 1/4 scale, taken in the
    bed and around it separately, so lighting gradients and vignetting cancel while a die,
    small against the window, stands out.
    """
    h, w = frame.shape[:2]
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    small = cv2.resize(lab, (max(w // 4, 1), max(h // 4, 1)), interpolation=cv2.INTER_AREA)
    k = min(max(3, (min(small.shape[:2]) // 3) | 1), 21)
    quarter = None if bed is None else (bed[0] / 4, bed[1] / 4, bed[2] / 4, bed[3] / 4)
    regions = _region_masks((small.shape[0], small.shape[1]), quarter)
    bg = np.empty_like(small)
    for region in regions:
        filled = small.copy()
        filled[~region] = np.median(small[region], axis=0)
        blurred = cv2.merge([cv2.medianBlur(np.ascontiguousarray(filled[..., c]), k)
                             for c in range(3)])
        bg[region] = blurred[region]
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_NEAREST if len(regions) > 1
                    else cv2.INTER_LINEAR)
    d = cv2.absdiff(lab, bg).astype(np.float32)
    out: Floats = np.asarray(cv2.sqrt(LIGHTNESS_WEIGHT * d[..., 0] ** 2 + d[..., 1] ** 2
                                      + d[..., 2] ** 2), np.float32)
    return out


def find_candidates(frame: Frame, bed: Box | None = None) -> list[Candidate]:
    """Die-sized blobs that differ from their background, cut apart along strong edges.

    The search runs at half size (a die is still 15 px across or more); the candidates are
    given in the frame's own pixels. Edges cut a die's top face from its sides and touching
    dice from each other; what stays joined is split by area.
    """
    h, w = frame.shape[:2]
    half: Frame = np.asarray(cv2.resize(frame, (max(w // 2, 1), max(h // 2, 1)),
                                        interpolation=cv2.INTER_AREA), np.uint8)
    hbed = None if bed is None else (bed[0] / 2, bed[1] / 2, bed[2] / 2, bed[3] / 2)
    short = min(h, w) / 2
    diff = contrast_map(half, hbed)
    noise = float(np.median(diff))
    mask = (diff > max(MIN_CONTRAST, 4.0 * noise)).astype(np.uint8) * 255
    strong = diff > max(HIGH_CONTRAST, 8.0 * noise)
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)),
                      np.uint8)
    if bed is not None:
        # The bed's edge is a colour edge too: cut along it so a rail never joins a die.
        x, y, bw, bh = (round(v / 2) for v in bed)
        cv2.rectangle(mask, (x, y), (x + bw - 1, y + bh - 1), 0, 3)
    # Hysteresis: a faint die body counts where it holds something clearly different, pips.
    n, labels = cv2.connectedComponents(mask)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[strong])] = True
    keep[0] = False
    mask = keep[labels].astype(np.uint8) * 255
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    min_area = (MIN_DIE * short) ** 2 * 0.5
    max_area = (MAX_DIE * short) ** 2
    blobs = [c for c in contours if min_area <= cv2.contourArea(c)]
    marks = _marks(strong, (MIN_DIE * short) ** 2)
    typical = _typical_area(blobs, max_area, marks)
    # A die's side in the frame's pixels, from its outline's area at half size.
    die = 2 * float(np.sqrt(typical))
    found: list[Candidate] = []
    gray: Gray | None = None
    for contour in blobs:
        area = cv2.contourArea(contour)
        (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
        if max(rw, rh) > 4 * max(min(rw, rh), 1) or area > 12 * max_area:
            continue
        parts = round(area / typical) if area > SPLIT * typical else 1
        if parts <= 1:
            found.append(_candidate(contour.reshape(-1, 2).astype(np.float32) * 2, die))
            continue
        if gray is None:
            gray = np.asarray(cv2.cvtColor(half, cv2.COLOR_BGR2GRAY), np.uint8)
        pieces = _cut(contour, gray, typical, die)
        if len(pieces) >= 2:
            found.extend(pieces)
        elif parts <= 9:
            found.extend(_split(contour, parts, die))
    found.extend(_pip_groups(marks, found, typical))
    return found


def _marks(strong: npt.NDArray[np.bool_], largest: float) -> Floats:
    """Pip-like marks (small, round, clearly unlike the felt) as rows of x, y, area."""
    _, _, stats, centres = cv2.connectedComponentsWithStats(strong.astype(np.uint8),
                                                            connectivity=8)
    w, h, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
    pip = ((area >= 2) & (area <= largest) & (np.maximum(w, h) <= 2 * np.minimum(w, h))
           & (area >= 0.5 * w * h))
    return np.column_stack([centres[1:][pip], area[pip]]).astype(np.float32)


def _pip_groups(marks: Floats, found: Sequence[Candidate], typical: float) -> list[Candidate]:
    """Dice the body search missed (joined to clutter, or the felt's own colour), found
    as groups of pip-sized marks that no candidate holds yet."""
    side = float(np.sqrt(typical))
    held = [cv2.boxPoints(c.rect) / 2 for c in found]
    free = []
    for x, y, area in marks:
        point = (float(x), float(y))
        # Side pips of a die already found sit just outside its top face: theirs too.
        if area <= 0.06 * typical and not any(
                cv2.pointPolygonTest(c, point, True) >= -0.5 * side for c in held):
            free.append(point)
    groups: list[list[tuple[float, float]]] = []
    for point in free:
        near = [g for g in groups if any(np.hypot(point[0] - q[0], point[1] - q[1])
                                         < 0.6 * side for q in g)]
        merged = [point] + [q for g in near for q in g]
        groups = [g for g in groups if all(g is not m for m in near)] + [merged]
    out = []
    for group in groups:
        if len(group) > 6:
            continue
        cx, cy = np.mean(group, axis=0)
        rect = ((float(cx) * 2, float(cy) * 2), (side * 2.2, side * 2.2), 0.0)
        corners = cv2.boxPoints(rect)
        x0, y0 = corners.min(axis=0)
        x1, y1 = corners.max(axis=0)
        out.append(Candidate(rect=rect, box=(float(x0), float(y0), float(x1 - x0),
                                             float(y1 - y0)), side=side * 2.4))
    return out


def _cut(contour: npt.NDArray[np.int32], gray: Gray,
         typical: float, die: float) -> list[Candidate]:
    """Touching dice cut apart along the edges between them (their sides and seams)."""
    x, y, w, h = cv2.boundingRect(contour)
    blob = np.zeros((h + 2, w + 2), np.uint8)
    cv2.drawContours(blob, [contour - np.array([x - 1, y - 1])], -1, 255, -1)
    patch = gray[max(y - 1, 0):y + h + 1, max(x - 1, 0):x + w + 1]
    pad = ((max(1 - y, 0), blob.shape[0] - patch.shape[0] - max(1 - y, 0)),
           (max(1 - x, 0), blob.shape[1] - patch.shape[1] - max(1 - x, 0)))
    patch = np.pad(patch, pad, mode="edge")
    edges = cv2.dilate(cv2.Canny(patch, EDGE, EDGE * 2.5), np.ones((2, 2), np.uint8))
    blob[edges > 0] = 0
    blob = np.asarray(cv2.erode(blob, np.ones((3, 3), np.uint8)), np.uint8)
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pieces = []
    for c in contours:
        if cv2.contourArea(c) >= PIECE * typical:
            hull = cv2.convexHull(c).reshape(-1, 2).astype(np.float32)
            centre = hull.mean(axis=0)
            # The erosion took a pixel off every side: give it back.
            grown = centre + (hull - centre) * (1 + 2 / max(np.sqrt(typical), 4))
            pieces.append(_candidate(((grown + np.array([x - 1, y - 1])) * 2).astype(np.float32),
                                     die))
    return pieces


def _typical_area(blobs: Sequence[npt.NDArray[np.int32]], max_area: float,
                  marks: Floats) -> float:
    """The area of one die here: the median of the die-shaped blobs (square, solid, and
    holding a pip-like mark, which clutter seldom does)."""
    sized = [c for c in blobs if cv2.contourArea(c) <= max_area]
    marked = [c for c in sized if any(cv2.pointPolygonTest(c, (float(x), float(y)), False) > 0
                                      for x, y, _ in marks)]
    shaped = [c for c in marked if _solidity(c) > 0.85 and _aspect(c) < 1.5]
    for group in (shaped, marked, sized):
        if group:
            return float(np.median([cv2.contourArea(c) for c in group]))
    return max_area


def _aspect(contour: npt.NDArray[np.int32]) -> float:
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    return max(w, h) / max(min(w, h), 1.0)


def _solidity(contour: npt.NDArray[np.int32]) -> float:
    hull = cv2.contourArea(cv2.convexHull(contour))
    return cv2.contourArea(contour) / hull if hull > 0 else 0.0


def _candidate(points: Floats, die: float) -> Candidate:
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(points)
    x, y, w, h = cv2.boundingRect(points.astype(np.int32))
    return Candidate(rect=((float(cx), float(cy)), (float(rw), float(rh)), float(angle)),
                     box=(float(x), float(y), float(w), float(h)),
                     side=max(float(rw), float(rh), die) * 1.1)


def _split(contour: npt.NDArray[np.int32], parts: int, die: float) -> list[Candidate]:
    """Touching dice: k-means of the blob's pixels into as many dice as its area holds."""
    x, y, w, h = cv2.boundingRect(contour)
    blob = np.zeros((h, w), np.uint8)
    cv2.drawContours(blob, [contour - np.array([x, y])], -1, 255, -1)
    ys, xs = np.nonzero(blob)
    points = np.column_stack([xs + x, ys + y]).astype(np.float32) * 2
    step = max(1, len(points) // 1500)
    cv2.setRNGSeed(7)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, labels, _ = cv2.kmeans(points[::step], parts, None, criteria, 2,  # type: ignore[call-overload]
                              cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    return [_candidate(points[::step][labels == k], die) for k in range(parts)
            if np.count_nonzero(labels == k) >= 3]


def crop_die(gray: Gray, candidate: Candidate) -> Gray:
    """The candidate turned square to the axes, CROP x CROP grey, pips dark on light."""
    (cx, cy), _, angle = candidate.rect
    scale = CROP / max(candidate.side, 8.0)
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 2] += CROP / 2 - cx
    m[1, 2] += CROP / 2 - cy
    crop = cv2.warpAffine(gray, m, (CROP, CROP), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REPLICATE)
    inner = crop[CROP // 4: 3 * CROP // 4, CROP // 4: 3 * CROP // 4]
    lo, hi = np.percentile(inner, (3, 97))
    # The body is the bulk of the face; when it is darker than the middle, pips are light.
    if np.median(inner) < (lo + hi) / 2:
        crop = 255 - crop
        lo, hi = 255 - hi, 255 - lo
    spread = max(float(hi - lo), 12.0)
    out: Gray = np.clip((crop.astype(np.float32) - lo) * (255.0 / spread), 0, 255).astype(
        np.uint8)
    return out


class Classifier:
    """The committed CNN (ONNX, run by OpenCV's dnn module): crops in, class probabilities out."""

    def __init__(self, path: Path) -> None:
        try:
            self.net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as exc:
            raise ModelError(f"{path}: not a dice model this OpenCV can run") from exc

    def probabilities(self, crops: npt.NDArray[np.uint8]) -> Floats:
        """Softmax over CLASSES for each CROP x CROP crop, averaged over its four turns
        (a die reads the same turned, so a read that changes with the turn is unsure)."""
        turns = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(TURNS)])
        self.net.setInput(turns[:, None].astype(np.float32) / 255.0)
        logits = self.net.forward().astype(np.float32)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        probs = e / e.sum(axis=1, keepdims=True)
        out: Floats = probs.reshape(TURNS, len(crops), -1).mean(axis=0)
        return out


class DiceReader:
    """Reads every die in a frame: `DiceReader(bed=(x, y, w, h))(frame) -> [Observation]`.

    `bed` is the felt rectangle (None: the whole frame is felt); a die outside it is
    "off-table". A read below `threshold` is one to confirm, never a guess.
    """

    def __init__(self, bed: Box | None = None, threshold: float = DEFAULT_THRESHOLD,
                 model: Path = DEFAULT_MODEL) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        self.bed = bed
        self.threshold = threshold
        if not Path(model).is_file():
            raise ModelError(f"{model}: no such dice model (run vision/train_dice.py)")
        self.classifier = Classifier(Path(model))

    def with_bed(self, bed: Box | None) -> DiceReader:
        """The same reader (sharing its loaded model) for another bed."""
        other = copy.copy(self)
        other.bed = bed
        return other

    def __call__(self, frame: Frame) -> list[Observation]:
        frame = check_frame(frame)
        candidates = find_candidates(frame, self.bed)
        if not candidates:
            return []
        gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
        probs = self.classifier.probabilities(np.stack([crop_die(gray, c)
                                                        for c in candidates]))
        # Strongest first; a weaker read centred on a die already read is a piece of it.
        order = np.argsort(-probs[:, :NOT_A_DIE].max(axis=1))
        taken: list[Candidate] = []
        reads = []
        for i in order:
            cand, p = candidates[i], probs[i]
            if int(np.argmax(p)) == NOT_A_DIE or any(_same_die(cand, t) for t in taken):
                continue
            taken.append(cand)
            face = int(np.argmax(p[:6]))
            state = "cocked" if p[COCKED] > p[face] else "flat"
            cx, cy = cand.rect[0]
            if self.bed is not None and not _inside(self.bed, cx, cy):
                state = "off-table"
            confidence = float(p[COCKED] if state == "cocked" else p[face])
            reads.append(Observation(value=face + 1, box=cand.box, confidence=confidence,
                                     state=state))
        return reads


def _same_die(a: Candidate, b: Candidate) -> bool:
    (ax, ay), (aw, ah), _ = a.rect
    (bx, by), (bw, bh), _ = b.rect
    return bool(np.hypot(ax - bx, ay - by) < 0.35 * (max(aw, ah) + max(bw, bh)))


def _inside(bed: Box, x: float, y: float) -> bool:
    bx, by, bw, bh = bed
    return bx <= x < bx + bw and by <= y < by + bh


__all__ = ["CLASSES", "DEFAULT_MODEL", "BadFrameError", "Candidate", "Classifier",
           "DiceReader", "ModelError", "crop_die", "find_candidates"]
