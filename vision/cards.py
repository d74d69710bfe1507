"""The card recogniser: rank and suit of every card face up in a frame, and how surely.

A card is read from its corner index: a rank glyph printed above a suit glyph. Any two ink
blobs of like size lying about one glyph apart may be such a pair, whatever the card's
rotation, so every such pair (each way round) is a candidate: the frame is cut around it,
turned so that the first blob stands above the second and scaled by their distance
(`crop_index`), and a small CNN (vision/models/card_index.onnx, trained by
`vision/train_cards.py` on scenes rendered from Debian's card designs, run by OpenCV's dnn
module) says the rank, or "not an index", and the suit. Pips, court figures and felt make
most candidates; the network turns them down. Reads of one index are merged, and the two
indices of one card (same code, a card's length apart) make one read. Cards overlapping so
that only a corner shows are read from that corner: nothing needs the card's outline.

A read's confidence is the product of the rank and suit probabilities; one below the
threshold is one for the dealer to confirm, never a guess. `ShoeWindowReader` reads the one
index a dealing shoe's window shows.

>>> import numpy as np
>>> reader = CardReader()
>>> reader(np.full((480, 640, 3), (40, 110, 30), np.uint8))
[]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.core import Box, Frame, Observation, VisionError, check_frame

Floats = npt.NDArray[np.float32]
Image = npt.NDArray[np.uint8]

#: The committed model, written by vision/train_cards.py.
DEFAULT_MODEL = Path(__file__).with_name("models") / "card_index.onnx"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
#: The rank head's last class: the crop is not a corner index.
NOT_AN_INDEX = len(RANKS)
#: Side in pixels of the square crop the network sees.
CROP = 32
#: The crop's side as a multiple of the distance between the two blobs' centres.
CROP_SPAN = 2.6
#: A pixel is ink when darker than this share of the paper around it.
INK = 0.72
#: Darkest grey taken for paper: below it nothing is read.
PAPER = 50.0
#: Reads at least this sure are taken; below it the dealer confirms.
DEFAULT_THRESHOLD = 0.9
#: Candidates scored below this are dropped before merging.
KEEP = 0.3
#: Crops sent through the network at once.
BATCH = 256


class CardModelError(VisionError, FileNotFoundError):
    """The card model file is missing or not a model this code can run."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A possible corner index: the centre of the pair of blobs, the unit vector from the
    lower blob (suit) to the upper one (rank), and the distance between them, in pixels."""

    x: float
    y: float
    ux: float
    uy: float
    gap: float

    @property
    def box(self) -> Box:
        """The upright box around the index this candidate would be: about one gap wide
        and two high, along its upright."""
        along, across = 1.1 * self.gap, 0.6 * self.gap
        half_w = along * abs(self.ux) + across * abs(self.uy)
        half_h = along * abs(self.uy) + across * abs(self.ux)
        return (self.x - half_w, self.y - half_h, 2 * half_w, 2 * half_h)


def ink_image(frame: Frame) -> Image:
    """The darkest channel of each pixel: ink of any colour is dark on it, paper bright."""
    out: Image = np.asarray(frame.min(axis=2), np.uint8)
    return out


def dark_card_image(frame: Frame) -> Image:
    """The brightest channel of each pixel, turned over: light print (white, gold) on a dark
    card becomes dark print on light, as `ink_image` shows an ordinary card."""
    out: Image = np.asarray(255 - frame.max(axis=2), np.uint8)
    return out


def ink_mask(ink: Image) -> Image:
    """Where the ink is: pixels much darker than the paper around them.

    The paper's brightness is a grey closing of the image with a kernel wider than any glyph
    (done on a smaller copy, it is smooth anyway): it fills glyphs in, keeps felt as felt, so
    felt beside a card is not ink and glyphs do not merge with it.
    """
    h, w = ink.shape
    shrink = max(1, min(h, w) // 120)
    small = cv2.resize(ink, (max(1, w // shrink), max(1, h // shrink)),
                       interpolation=cv2.INTER_AREA)
    side = max(3, (min(h, w) // 6) // shrink) | 1
    paper = cv2.morphologyEx(small, cv2.MORPH_CLOSE,
                             cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)))
    paper = cv2.resize(paper, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    out: Image = ((ink.astype(np.float32) < INK * paper) & (paper > PAPER)).astype(np.uint8)
    return out


def find_candidates(ink: Image, max_blobs: int = 400) -> list[Candidate]:
    """Every pair of ink blobs that could be the rank and suit of one index, both ways round.

    Blobs are found by a local threshold (darker than their surroundings), so they are found
    on any felt and under uneven light; a pair must be of like size and about one glyph apart.
    """
    h, w = ink.shape
    mask = ink_mask(ink)
    _, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    bw, bh, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
    size = np.maximum(bw, bh).astype(np.float32)
    keep = ((size >= 4) & (size <= min(h, w) / 2.5)
            & (area >= 0.12 * bw * bh) & (area >= 8))
    idx = np.nonzero(keep)[0]
    if len(idx) > max_blobs:
        # Too many blobs is clutter (print, cloth weave): the biggest are the likeliest glyphs.
        idx = idx[np.argsort(-area[idx])[:max_blobs]]
    if len(idx) < 2:
        return []
    xy = centres[1:][idx].astype(np.float32)
    s = size[idx]
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    mean = (s[:, None] + s[None, :]) / 2
    ratio = np.maximum(s[:, None], s[None, :]) / np.minimum(s[:, None], s[None, :])
    near = (d >= 0.5 * mean) & (d <= 2.4 * mean) & (ratio <= 3.5)
    near &= ~np.eye(len(idx), dtype=bool)
    found = []
    for i, j in zip(*np.nonzero(near), strict=True):
        gap = float(d[i, j])
        ux, uy = (xy[i] - xy[j]) / gap
        mx, my = (xy[i] + xy[j]) / 2
        found.append(Candidate(float(mx), float(my), float(ux), float(uy), gap))
    return found


def crop_index(ink: Image, candidate: Candidate) -> Image:
    """The CROP x CROP square around a candidate, turned so its rank stands above its suit."""
    k = CROP_SPAN * candidate.gap / CROP
    # Down in the crop is from rank to suit; right is down turned a quarter clockwise.
    vx, vy = -candidate.ux * k, -candidate.uy * k
    rx, ry = -vy, vx
    half = CROP / 2
    matrix = np.array([[rx, vx, candidate.x - half * (rx + vx)],
                       [ry, vy, candidate.y - half * (ry + vy)]], np.float64)
    out: Image = np.asarray(cv2.warpAffine(ink, matrix, (CROP, CROP),
                                           flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                           borderMode=cv2.BORDER_REPLICATE), np.uint8)
    return out


def normalise(crops: Image) -> Floats:
    """Crops (n x CROP x CROP) as the network takes them: each of zero mean and unit spread,
    so the light and the paper's shade do not matter."""
    x = crops.astype(np.float32)
    mean = x.mean(axis=(1, 2), keepdims=True)
    spread = x.std(axis=(1, 2), keepdims=True) + 8.0
    out: Floats = ((x - mean) / spread)[:, None, :, :]
    return out


@dataclass(frozen=True, slots=True)
class IndexRead:
    """One candidate read: the candidate, its best rank and suit and their probabilities."""

    candidate: Candidate
    code: str
    confidence: float
    index: float


class IndexClassifier:
    """The committed classifier (ONNX, run by OpenCV's dnn module): crops in, reads out."""

    def __init__(self, path: Path) -> None:
        if not Path(path).is_file():
            raise CardModelError(f"{path}: no such card model (run vision/train_cards.py)")
        try:
            self.net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as exc:
            raise CardModelError(f"{path}: not a card model this OpenCV can run") from exc

    def probabilities(self, crops: Image) -> tuple[Floats, Floats]:
        """Rank probabilities (n x 14, the last "not an index") and suit ones (n x 4)."""
        ranks, suits = [], []
        for start in range(0, len(crops), BATCH):
            self.net.setInput(normalise(crops[start:start + BATCH]))
            logits = np.asarray(self.net.forward(), np.float32).reshape(-1, len(RANKS) + 5)
            ranks.append(_softmax(logits[:, :len(RANKS) + 1]))
            suits.append(_softmax(logits[:, len(RANKS) + 1:]))
        return np.concatenate(ranks), np.concatenate(suits)

    def read(self, ink: Image, candidates: list[Candidate]) -> list[IndexRead]:
        """The candidates the network takes for an index at least KEEP sure."""
        if not candidates:
            return []
        crops = np.stack([crop_index(ink, c) for c in candidates])
        ranks, suits = self.probabilities(crops)
        rank = ranks[:, :NOT_AN_INDEX].argmax(axis=1)
        suit = suits.argmax(axis=1)
        rows = np.arange(len(candidates))
        sure = ranks[rows, rank] * suits[rows, suit]
        return [IndexRead(c, RANKS[r] + SUITS[s], float(p), float(1 - ranks[i, NOT_AN_INDEX]))
                for i, (c, r, s, p) in enumerate(zip(candidates, rank, suit, sure, strict=True))
                if p >= KEEP]


def _softmax(logits: Floats) -> Floats:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: Floats = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def merge_index_reads(reads: list[IndexRead]) -> list[IndexRead]:
    """One read per index: surest first, each taking the reads of the same place with it.

    Two candidates of one index that disagree lower its confidence: the surest read's
    confidence is cut by the surest contrary read beside it.
    """
    order = sorted(reads, key=lambda r: -r.confidence)
    taken = [False] * len(order)
    merged = []
    for i, best in enumerate(order):
        if taken[i]:
            continue
        contrary = 0.0
        for j in range(i, len(order)):
            other = order[j]
            near = np.hypot(other.candidate.x - best.candidate.x,
                            other.candidate.y - best.candidate.y)
            if not taken[j] and near <= 0.8 * max(best.candidate.gap, other.candidate.gap):
                taken[j] = True
                if other.code != best.code:
                    contrary = max(contrary, other.confidence)
        merged.append(IndexRead(best.candidate, best.code, best.confidence * (1 - contrary),
                                best.index))
    return merged


def merge_cards(reads: list[IndexRead]) -> list[IndexRead]:
    """One read per card: indices with the same code within a card's length (taken as 16
    index gaps) are the two corners of one card; the surest speaks for it."""
    order = sorted(reads, key=lambda r: -r.confidence)
    kept: list[IndexRead] = []
    for read in order:
        if not any(k.code == read.code and np.hypot(k.candidate.x - read.candidate.x,
                                                    k.candidate.y - read.candidate.y)
                   <= 16 * max(k.candidate.gap, read.candidate.gap) for k in kept):
            kept.append(read)
    return kept


class CardReader:
    """Reads every card face up in a frame: `CardReader()(frame) -> [Observation]`.

    Each observation's value is the card code ("10H"), its box that of the index it was read
    from, its confidence the product of rank and suit probabilities. A read below
    `threshold` is one for the dealer to confirm. `dark_cards` False skips the look for
    light print on dark card stock (half the time, when the club's decks are all light).
    """

    def __init__(self, threshold: float = DEFAULT_THRESHOLD,
                 model: Path = DEFAULT_MODEL, *, dark_cards: bool = True) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        self.threshold = threshold
        self.dark_cards = dark_cards
        self.classifier = IndexClassifier(Path(model))

    def indices(self, frame: Frame) -> list[IndexRead]:
        """Every corner index read in the frame, one read per index; with `dark_cards`, also
        those printed light on dark card stock (a second, turned-over look at the frame)."""
        frame = check_frame(frame)
        looks = [ink_image(frame)] + ([dark_card_image(frame)] if self.dark_cards else [])
        reads = [r for look in looks for r in self.classifier.read(look, find_candidates(look))]
        return merge_index_reads(reads)

    def __call__(self, frame: Frame) -> list[Observation]:
        return [Observation(value=r.code, box=r.candidate.box, confidence=r.confidence)
                for r in merge_cards(self.indices(frame))]


class ShoeWindowReader:
    """Reads the one card a dealing shoe's window shows: `ShoeWindowReader()(frame)` gives
    [] when no index is in view, else one Observation (confirm it when below `threshold`)."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD,
                 model: Path = DEFAULT_MODEL, *, dark_cards: bool = True) -> None:
        self.reader = CardReader(threshold, model, dark_cards=dark_cards)
        self.threshold = threshold

    def __call__(self, frame: Frame) -> list[Observation]:
        reads = self.reader(frame)
        if not reads:
            return []
        best = max(reads, key=lambda r: r.confidence)
        # Two different cards seen through one window: the view is not to be trusted.
        rival = max((r.confidence for r in reads if r.value != best.value), default=0.0)
        return [Observation(value=best.value, box=best.box,
                            confidence=best.confidence * (1 - rival))]


__all__ = ["DEFAULT_MODEL", "DEFAULT_THRESHOLD", "Candidate", "CardModelError", "CardReader",
           "IndexClassifier", "IndexRead", "ShoeWindowReader", "crop_index", "dark_card_image",
           "find_candidates", "ink_image", "ink_mask"]
