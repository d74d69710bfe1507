"""The dice recogniser: every die in an overhead frame, its top face, and how surely.

Two small CNNs, trained by `vision/train_dice.py` on rendered scenes and real photos and run
by ONNX Runtime (`vision.nets`). The detector (vision/models/dice_detector.onnx) looks at
the frame shrunk to 320x240 and draws a heatmap of die top-face centres (one cell per 4
pixels) with each die's size; its peaks are the dice. The reader
(vision/models/dice_cnn.onnx) then sees each die in the full frame, cropped square around
the peak and scaled by the size so a die fills its crop alike at any distance, grey and
normalised so pips are dark on a light body whatever the die's colours, and says face 1-6,
"cocked" or "not a die". Its probability, averaged over four turns of the crop (a die reads
the same turned, so a read that changes with the turn is unsure), is the confidence; a die
outside the bed is "off-table". A third net, the tilt check (vision/models/dice_tilt.onnx),
looks wider and closer at each die read flat: one it finds likely tilted (cocked) is read
unsurely, so the referee is asked.

>>> import numpy as np
>>> reader = DiceReader()
>>> reader(np.full((480, 640, 3), (40, 110, 30), np.uint8))
[]
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.core import BadFrameError, Box, Frame, Observation, VisionError, check_frame
from vision.nets import Net, load_net

Floats = npt.NDArray[np.float32]
#: A grey image, height x width (or a stack of them).
Gray = npt.NDArray[np.uint8]

MODELS = Path(__file__).with_name("models")
#: The committed reader (crop classifier), written by vision/train_dice.py.
DEFAULT_MODEL = MODELS / "dice_cnn.onnx"
#: The committed detector, written by vision/train_dice.py.
DEFAULT_DETECTOR = MODELS / "dice_detector.onnx"
#: The committed tilt check, written by vision/train_dice.py.
DEFAULT_TILT = MODELS / "dice_tilt.onnx"
#: Reader outputs: faces 1-6, then a tilted die, then anything else the detector took for one.
CLASSES = (1, 2, 3, 4, 5, 6, "cocked", "none")
COCKED = 6
NOT_A_DIE = 7
#: The detector's input, width x height, and how many input pixels one heatmap cell covers.
DETECT_SIZE = (320, 240)
STRIDE = 4
#: Heatmap peaks at least this high are dice (a low bar: the reader rejects what is not).
PEAK = 0.25
#: Side of the square crop the reader sees, in pixels, and its side in die sizes.
CROP = 40
CROP_SCALE = 1.6
#: The reader reads each crop in this many quarter turns and averages.
TURNS = 4
#: The tilt check's crop: pixels a side, and die sizes across (wider and closer than the
#: reader's, to see a side face showing past the top one).
TILT_CROP, TILT_SCALE = 64, 2.0
#: A die read flat that the tilt check finds at least this likely tilted is asked about:
#: its read's confidence falls to 1 - that. Chosen on development scenes (1,500 frames from
#: vision.train_dice.DEV_SEED, 30% of dice cocked) and photos: of the cocked dice the reader
#: took flat and sure, 77% are asked about (895 of 1,166); of the flat dice it took flat and
#: sure, 1.1% (46 of 4,154); of the development photos' 204 dice read, none (the likeliest
#: tilted is 0.797). At 0.8: 80%, 1.6% and none; at 0.9: 71%, 0.5% and none.
TILT_THRESHOLD = 0.85
#: Reads at least this sure are taken; chosen on the development photos and scenes (no
#: wrong sure read on the photos from 0.5 up; on scenes, fewer cocked dice taken flat).
DEFAULT_THRESHOLD = 0.7


class ModelError(VisionError, FileNotFoundError):
    """A dice model file is missing or not a model this code can run."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A heatmap peak: the die's top-face centre and side in frame pixels, and how strong."""

    x: float
    y: float
    size: float
    score: float

    @property
    def box(self) -> Box:
        """The top face's box, square around the centre."""
        half = self.size / 2
        return (self.x - half, self.y - half, self.size, self.size)


def _load(path: Path, what: str) -> Net:
    return load_net(path, ModelError, f"dice {what}", "vision/train_dice.py")


def detector_input(frame: Frame) -> Floats:
    """The frame as the detector takes it: 320x240, BGR scaled to 0-1, NCHW."""
    small = cv2.resize(frame, DETECT_SIZE, interpolation=cv2.INTER_AREA)
    out: Floats = small.transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return out


def peaks(heat: Floats, log_size: Floats, scale: tuple[float, float],
          floor: float = PEAK) -> list[Candidate]:
    """Local maxima of the heatmap at least `floor` high, strongest first, each centre
    refined to the heat-weighted mean of its 3x3 cells; a weaker peak within half a die of
    a stronger one is the same die."""
    local = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= local) & (heat >= floor))
    order = np.argsort(-heat[ys, xs])
    padded = np.pad(heat, 1)
    offsets = np.array([-1.0, 0.0, 1.0], np.float32)
    found: list[Candidate] = []
    for y, x in zip(ys[order], xs[order], strict=True):
        window = padded[y:y + 3, x:x + 3]
        total = float(window.sum())
        cy = y + float(window.sum(axis=1) @ offsets) / total
        cx = x + float(window.sum(axis=0) @ offsets) / total
        # Cell centres: cell i covers input pixels [i * STRIDE, (i + 1) * STRIDE).
        fx, fy = (cx + 0.5) * STRIDE * scale[0], (cy + 0.5) * STRIDE * scale[1]
        size = float(np.exp(log_size[y, x]))
        if any(np.hypot(fx - c.x, fy - c.y) < 0.5 * max(size, c.size) for c in found):
            continue
        found.append(Candidate(fx, fy, size, float(heat[y, x])))
    return found


class Detector:
    """The committed heatmap detector (ONNX, run by `vision.nets`)."""

    def __init__(self, path: Path = DEFAULT_DETECTOR) -> None:
        self.net = _load(path, "detector")

    def maps(self, frame: Frame) -> tuple[Floats, Floats]:
        """The heatmap (0-1) and the log of each cell's die size in frame pixels."""
        out = self.net.run(detector_input(frame))
        return out[0, 0], out[0, 1]

    def __call__(self, frame: Frame, floor: float = PEAK) -> list[Candidate]:
        heat, log_size = self.maps(frame)
        h, w = frame.shape[:2]
        return peaks(heat, log_size, (w / DETECT_SIZE[0], h / DETECT_SIZE[1]), floor)


def normalise(crops: Gray) -> Gray:
    """Crops stretched to full contrast, pips dark on a light body: a crop whose middle is
    mostly darker than its contrast's midpoint is a dark die, and is inverted."""
    flat = crops.reshape(len(crops), -1).astype(np.float32)
    n = crops.shape[1]
    inner = crops[:, n // 4: 3 * n // 4, n // 4: 3 * n // 4].reshape(len(crops), -1)
    lo, hi = np.percentile(inner, (3, 97), axis=1).astype(np.float32)
    dark = np.median(inner, axis=1) < (lo + hi) / 2
    flat[dark] = 255 - flat[dark]
    lo, hi = np.where(dark, 255 - hi, lo), np.where(dark, 255 - lo, hi)
    spread = np.maximum(hi - lo, 12.0)
    out = np.clip((flat - lo[:, None]) * (255.0 / spread[:, None]), 0, 255)
    return np.asarray(out, np.uint8).reshape(crops.shape)


def crop_die(gray: Gray, x: float, y: float, size: float, side: int = CROP,
             scale: float = CROP_SCALE) -> Gray:
    """The square of `scale` die sizes around (x, y), `side` x `side`, not yet normalised."""
    k = side / max(size * scale, 4.0)
    m = np.array([[k, 0, side / 2 - k * x], [0, k, side / 2 - k * y]], np.float32)
    return np.asarray(cv2.warpAffine(gray, m, (side, side), flags=cv2.INTER_AREA if k < 1
                                     else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                      np.uint8)


def turned_probabilities(net: Net, crops: Gray) -> Floats:
    """`net`'s softmax for each normalised crop, averaged over the crop's four turns (a die
    reads the same turned, so a read that changes with the turn is unsure)."""
    turns = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(TURNS)])
    logits = net.run(turns[:, None].astype(np.float32) / 255.0)
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    probs = e / e.sum(axis=1, keepdims=True)
    out: Floats = probs.reshape(TURNS, len(crops), -1).mean(axis=0)
    return out


class Classifier:
    """The committed reader (ONNX, run by `vision.nets`): crops in, probabilities out."""

    def __init__(self, path: Path = DEFAULT_MODEL) -> None:
        self.net = _load(path, "model")

    def probabilities(self, crops: Gray) -> Floats:
        """Softmax over CLASSES for each normalised CROP x CROP crop, averaged over its
        four turns."""
        return turned_probabilities(self.net, crops)


class TiltCheck:
    """The committed tilt check (ONNX, run by `vision.nets`): how likely each die is
    tilted (cocked), from a wider, closer crop than the reader's, averaged over four turns."""

    def __init__(self, path: Path = DEFAULT_TILT) -> None:
        self.net = _load(path, "tilt check")

    def probabilities(self, gray: Gray, candidates: list[Candidate]) -> list[float]:
        if not candidates:
            return []
        crops = normalise(np.stack([crop_die(gray, c.x, c.y, c.size, TILT_CROP, TILT_SCALE)
                                    for c in candidates]))
        return [float(p) for p in turned_probabilities(self.net, crops)[:, 1]]


class DiceReader:
    """Reads every die in a frame: `DiceReader(bed=(x, y, w, h))(frame) -> [Observation]`.

    `bed` is the felt rectangle (None: the whole frame is felt); a die outside it is
    "off-table". A read below `threshold` is one to confirm, never a guess. `model` is the
    reader CNN, `detector` the heatmap detector, `tilt` the tilt check: a die read flat
    that it finds likely tilted (`TILT_THRESHOLD`) is read unsurely, so the referee is
    asked to look (None: no tilt check).
    """

    def __init__(self, bed: Box | None = None, threshold: float = DEFAULT_THRESHOLD,
                 model: Path = DEFAULT_MODEL, detector: Path = DEFAULT_DETECTOR,
                 tilt: Path | None = DEFAULT_TILT) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        self.bed = bed
        self.threshold = threshold
        self.classifier = Classifier(Path(model))
        self.detector = Detector(Path(detector))
        self.tilt = TiltCheck(Path(tilt)) if tilt is not None else None

    def with_bed(self, bed: Box | None) -> DiceReader:
        """The same reader (sharing its loaded models) for another bed."""
        other = copy.copy(self)
        other.bed = bed
        return other

    def __call__(self, frame: Frame) -> list[Observation]:
        frame = check_frame(frame)
        candidates = self.detector(frame)
        if not candidates:
            return []
        gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
        crops = normalise(np.stack([crop_die(gray, c.x, c.y, c.size) for c in candidates]))
        found = []
        for cand, p in zip(candidates, self.classifier.probabilities(crops), strict=True):
            if int(np.argmax(p)) == NOT_A_DIE:
                continue
            face = int(np.argmax(p[:6]))
            state = "cocked" if p[COCKED] > p[face] else "flat"
            if self.bed is not None and not _inside(self.bed, cand.x, cand.y):
                state = "off-table"
            found.append((cand, face, state, float(p[COCKED] if state == "cocked" else p[face])))
        flat = [i for i, (_, _, state, _) in enumerate(found) if state == "flat"]
        tilted = dict(zip(flat, self.tilt.probabilities(gray, [found[i][0] for i in flat]),
                          strict=True)) if self.tilt is not None else {}
        reads = []
        for i, (cand, face, state, confidence) in enumerate(found):
            if tilted.get(i, 0.0) >= TILT_THRESHOLD:
                confidence = min(confidence, 1.0 - tilted[i])
            reads.append(Observation(value=face + 1, box=cand.box, confidence=confidence,
                                     state=state))
        return reads


def _inside(bed: Box, x: float, y: float) -> bool:
    bx, by, bw, bh = bed
    return bx <= x < bx + bw and by <= y < by + bh


__all__ = ["CLASSES", "DEFAULT_DETECTOR", "DEFAULT_MODEL", "DEFAULT_TILT", "TILT_THRESHOLD",
           "BadFrameError", "Candidate", "Classifier", "Detector", "DiceReader", "ModelError",
           "TiltCheck", "crop_die", "normalise"]
