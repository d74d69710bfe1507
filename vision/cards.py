"""The card recogniser: rank and suit of every card face up in a frame, and how surely.

A card is read from its corner index: a rank glyph printed above a suit glyph. Small
networks, all trained by `vision/train_cards.py` on scenes rendered from Debian's card
designs (the finder and the classifier on some real photos too), and run by ONNX Runtime
(`vision.nets`), do the work:

- the finder (vision/models/card_finder.onnx), a small fully convolutional net, looks at the
  frame scaled down (its long side FINDER_SIDE pixels, and again CLOSE_SIDE for cards seen
  close up, and FINE_SIDE near the small indices those looks find; the looks' candidates
  are merged) and gives, on a grid of STRIDE pixels, how likely an index's centre lies in each
  cell, the index's upright (the direction from its suit glyph to its rank glyph, as cosine
  and sine) and its height. Each local peak of that map is an index candidate, whatever the
  card's rotation;
- the classifier is shown each candidate cut from the full-resolution frame, turned
  upright and scaled by the predicted height (`crop_indices`), as its ink and its redness
  (`classifier_input`), and says the rank, or "not an index", and the suit. It is three
  small nets fitted alike from different seeds (vision/models/card_index*.onnx, the
  members of `DEFAULT_MODELS`), whose probabilities are averaged: where the members
  disagree, no read is sure;
- between the two, the refiner (vision/models/card_refiner.onnx) is shown the surroundings of
  each candidate (REFINE_SPAN index heights, turned upright as the finder says) and says
  where the index really lies: the finder's guess is often a fifth of a height off, or its
  height a tenth out, on designs it was not fitted on, and the classifier reads a
  well-placed crop more surely. The classifier reads the moved candidates
  (`IndexRefiner`).

The two indices of one card (same code, within a card's length) make one read; a 6 and a
9 of one suit read at one card's two corners are both doubted (`doubt_turned_twins`). Cards
overlapping so that only a corner shows are read from that corner: nothing needs the
card's outline. A read's confidence is the product of the rank and suit probabilities
(halved for a card printed light on dark stock, read by the classifier's second look: see
DARK_LOOK_SURENESS); one below the threshold is one for the dealer to confirm, never a
guess. `ShoeWindowReader` reads the one index a dealing shoe's window shows.

>>> import numpy as np
>>> reader = CardReader()
>>> reader(np.full((480, 640, 3), (40, 110, 30), np.uint8))
[]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.core import Box, Frame, Observation, VisionError, check_frame
from vision.nets import Net, load_net

Floats = npt.NDArray[np.float32]

MODELS = Path(__file__).with_name("models")
#: The committed classifier's members, written by vision/train_cards.py.
DEFAULT_MODELS = (MODELS / "card_index.onnx", MODELS / "card_index_2.onnx",
                  MODELS / "card_index_3.onnx")
#: The committed index finder, written by vision/train_cards.py.
DEFAULT_FINDER = MODELS / "card_finder.onnx"
#: The committed index refiner, written by vision/train_cards.py.
DEFAULT_REFINER = MODELS / "card_refiner.onnx"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
#: The rank head's last class: the crop is not a corner index.
NOT_AN_INDEX = len(RANKS)
#: Side in pixels of the square crop the classifier sees.
CROP = 32
#: The crop's channels as the classifier takes them: ink and redness (`classifier_input`).
CLASSIFIER_CHANNELS = 2
#: The crop's side as a multiple of the index's height.
CROP_SPAN = 1.5
#: Side of the refiner's crop as a multiple of the index's height: wider than the
#: classifier's, so that it sees an index the finder put up to half its height away.
REFINE_SPAN = 2.5
#: Times the refiner moves each candidate (each from where the last left it).
REFINE_STEPS = 2
#: The refiner's outputs: where the index's centre is along the candidate's upright and
#: across it (towards its crop's right), in candidate heights; the log of the index's
#: height over the candidate's; the angle (radians) from the candidate's upright to the
#: index's, anticlockwise as the image shows it.
REFINER_OUTPUTS = 4
#: Long side in pixels of the frame as the finder sees a table.
FINDER_SIDE = 320
#: The table's frame is looked at again at this long side, where an index seen close up
#: (a phone held near the cards) is the size the finder knows.
CLOSE_SIDE = FINDER_SIDE // 2
#: Long side for a shoe's window, whose one index fills much of the frame.
SHOE_SIDE = 80
#: A table's frame is looked at a third time, closer (its long side FINE_SIDE), where the
#: first looks find small indices: within FINE_MARGIN index heights of each index they are
#: fairly sure of (a score of at least FAIR_PEAK) that is under SMALL_INDEX of the frame's
#: long side. The finder misses more of the smallest indices at FINDER_SIDE: on the 300
#: first development scenes of `vision.train_cards.dev_report`, it put a candidate on 96.6%
#: of the indices in view with two looks, 99.2% with a closer look at the whole frame (of
#: those under 24 pixels high in a 640-pixel frame, 88% and 99%). Looking only near the
#: small indices found reads nearly as many cards (on all 2,600 development scenes at
#: 0.999, 89.3% against 89.4%, and 88.2% with no closer look) in less time, and nothing
#: more is spent on a frame whose indices are all big.
FINE_SIDE = 480
SMALL_INDEX = 0.06
FAIR_PEAK = 0.5
FINE_MARGIN = 4.0
#: Pixels of the finder's input per cell of its output grid.
STRIDE = 4
#: The finder's output channels: centre score (a logit), offset of the centre in its cell
#: (x, y), upright (cos, sin), log of the index height over SIZE_UNIT input pixels.
FINDER_CHANNELS = 6
SIZE_UNIT = 16.0
#: Peaks of the finder's map below this are not candidates.
PEAK = 0.2
#: Two candidates at one place are one index only if their sizes are within this ratio.
SAME_SIZE = 1.5
#: At most this many candidates a frame, the likeliest.
MAX_CANDIDATES = 48
#: Reads at least this sure are taken; below it the dealer confirms. Chosen on development
#: scenes of designs left out of training (the 600 of `vision.train_cards.dev_report` and its
#: 2,000 more) as the lowest of its thresholds at which, over both, no more of the sure reads
#: are wrong than at the one before the refiner (0.995: 0.24%). With the members fitted on the
#: refiner's candidates, at it: 88.6% of the 2,000's cards read and 0.22% of the sure reads
#: wrong, 87.4% and 0.17% of the 600's (0.21% over both); at 0.995 90.8% and 0.34%, 90.1%
#: and 0.28% (0.33%); at 0.9995 87.4% and 0.20%, 86.3% and 0.13% (0.18%); at 0.9999 83.8%
#: and 0.10%, 82.9% and 0.09%. (The turned-twin doubt, added after, reads 0.1 point fewer
#: of these cards at each, with as many wrong; the closer look, added after it, about one
#: point more, with as many wrong: at this threshold 89.5% and 0.22%, 88.6% and 0.16%.) A
#: club may set its own (`camera.card_threshold`).
DEFAULT_THRESHOLD = 0.999
#: The same for a shoe's window. Chosen on development windows when a window that cut the
#: drawn card's index counted a read of that card as wrong; scored as `vision.evaluate` now
#: scores them ("partly_seen"), with the present models no development window is read wrong
#: and sure at 0.9 or above, and 97% are read at it.
SHOE_THRESHOLD = 0.99
#: Candidates the classifier scores below this are dropped.
KEEP = 0.3
#: A read through the dark look (light print on dark card) is scaled down to at most this
#: sure, so that the dealer confirms it at any usual threshold. Such decks print their suits
#: in gold, white or silver, whose colour does not tell red suits from black. On development
#: scenes of the development designs printed on dark card, with the narrower classifier
#: before the present one, a third of the cards it read at 0.995 were wrong (6.4% of the
#: cards wrong and sure, 12.9% right; no sure read came from the ordinary look), and 2 of
#: the 25 indices it read at 0.99999 were still wrong.
DARK_LOOK_SURENESS = 0.5
#: A card's length in index heights: two reads of one code closer than this are one card.
CARD_LENGTH = 8.0
#: Ranks that are each other turned round: a design that prints its second index upright,
#: not turned (kde-ancient-egyptians), shows at that corner, to a reader who takes it for an
#: ordinary turned index, the other rank over the same suit (6D read as 9D).
TURNED_TWINS = frozenset({("6", "9"), ("9", "6")})
#: Two indices face opposite ways when their uprights' cosine is below this.
OPPOSITE = -0.9
#: Where one card's second index lies from its first, in index heights, along the first's
#: down and (either way) across it: the reads of both corners of the development designs'
#: cards lay 1.7-4.5 down and 1.6-3.4 across, kde-ancient-egyptians' 1.65-2.2 and 1.5-1.9.
SECOND_INDEX_DOWN = (1.4, 5.0)
SECOND_INDEX_ACROSS = (1.3, 4.0)


class CardModelError(VisionError, FileNotFoundError):
    """A card model file is missing or not a model this code can run."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A possible corner index, in frame pixels: its centre, the unit vector from its suit
    glyph up to its rank glyph, its height, and the finder's score for it."""

    x: float
    y: float
    ux: float
    uy: float
    size: float
    score: float = 1.0

    @property
    def box(self) -> Box:
        """The upright box around the index: its height along the upright, about two thirds
        of that across."""
        along, across = 0.5 * self.size, 0.35 * self.size
        half_w = along * abs(self.ux) + across * abs(self.uy)
        half_h = along * abs(self.uy) + across * abs(self.ux)
        return (self.x - half_w, self.y - half_h, 2 * half_w, 2 * half_h)


def finder_input(frame: Frame, side: int = FINDER_SIDE) -> tuple[Floats, float]:
    """The frame as the finder takes it (1 x 3 x H x W, H and W multiples of 2 * STRIDE,
    of zero mean and unit spread so exposure does not matter) and the scale from frame
    pixels to its pixels."""
    h, w = frame.shape[:2]
    scale = side / max(h, w)
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA)
    step = 2 * STRIDE
    pad_w, pad_h = -sw % step, -sh % step
    if pad_w or pad_h:
        small = cv2.copyMakeBorder(small, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE)
    x = small.astype(np.float32)
    x = (x - x.mean()) / (x.std() + 8.0)
    out: Floats = np.ascontiguousarray(x.transpose(2, 0, 1)[None])
    return out, scale


def decode_peaks(maps: Floats, scale: float, peak: float = PEAK,
                 limit: int = MAX_CANDIDATES) -> list[Candidate]:
    """The candidates in the finder's output (FINDER_CHANNELS x H x W): cells whose score
    is the highest of their 3 x 3 neighbours and at least `peak`, in frame pixels."""
    score = 1 / (1 + np.exp(-maps[0]))
    top = cv2.dilate(score, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((score >= top) & (score >= peak))
    if len(ys) > limit:
        best = np.argsort(-score[ys, xs])[:limit]
        ys, xs = ys[best], xs[best]
    found = []
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        ox, oy, c, s, size = maps[1:, y, x].tolist()
        norm = math.hypot(c, s) or 1.0
        found.append(Candidate((x + ox) * STRIDE / scale, (y + oy) * STRIDE / scale,
                               c / norm, s / norm,
                               SIZE_UNIT * math.exp(min(max(size, -3.0), 3.0)) / scale,
                               float(score[y, x])))
    return found


def merge_candidates(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per place: of those within half an index of each other (found at two
    scales) and of about one size (within SAME_SIZE times), the one the finder scores
    highest. Two of very different sizes are kept both: the close look can guess an index
    twice its size, and must not hide the right one beside it."""
    kept: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: -c.score):
        if all(math.hypot(c.x - k.x, c.y - k.y) > 0.5 * max(c.size, k.size)
               or max(c.size, k.size) > SAME_SIZE * min(c.size, k.size) for k in kept):
            kept.append(c)
    return kept


def crop_indices(frame: Frame, candidates: list[Candidate], span: float = CROP_SPAN) -> Frame:
    """The CROP x CROP colour square around each candidate (n x CROP x CROP x 3), `span`
    times its height on a side, turned so its rank stands above its suit. The crop is
    mirrored (the frame's left of the index is the crop's right), as every model here was
    fitted on it."""
    out = np.empty((len(candidates), CROP, CROP, 3), np.uint8)
    shrunk: dict[int, Frame] = {}
    for i, candidate in enumerate(candidates):
        k = span * candidate.size / CROP
        # Down in the crop is from rank to suit; right is down turned a quarter clockwise.
        vx, vy = -candidate.ux * k, -candidate.uy * k
        rx, ry = -vy, vx
        half = CROP / 2
        matrix = np.array([[rx, vx, candidate.x - half * (rx + vx)],
                           [ry, vy, candidate.y - half * (ry + vy)]], np.float64)
        source = frame
        if k >= 2:
            # A big index shrunk in one bilinear warp would alias: shrink the frame first.
            step = math.floor(k)
            if step not in shrunk:
                shrunk[step] = np.asarray(cv2.resize(frame, None, fx=1 / step, fy=1 / step,
                                                     interpolation=cv2.INTER_AREA), np.uint8)
            source, matrix = shrunk[step], matrix / step
        out[i] = cv2.warpAffine(source, matrix, (CROP, CROP),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def classifier_input(crops: Frame, *, dark: bool = False) -> Floats:
    """Colour crops (n x CROP x CROP x 3, BGR) as the classifier takes them (n x 2 x CROP x
    CROP): the ink, each pixel's darkest channel, so ink of any colour is dark and paper
    bright (with `dark`, the brightest channel turned over, so that light print on a dark
    card looks like dark print on light); and the redness, how far red outshines green and
    blue once the crop's middling colour (the paper's, under a coloured light) is taken as
    grey, which tells hearts and diamonds from spades and clubs. The ink is brought to zero
    mean and unit spread, so the light and the paper's shade do not matter; the redness is
    in the same units."""
    x = crops.astype(np.float32)
    middle = np.median(x.reshape(len(x), -1, 3), axis=1) + 10.0
    tint = np.clip(middle / middle.mean(axis=1, keepdims=True), 0.6, 1.6)
    b, g, r = np.moveaxis(x / tint[:, None, None, :], 3, 0)
    ink = 255.0 - x.max(axis=3) if dark else x.min(axis=3)
    redness = np.maximum(r - np.maximum(g, b), 0.0)
    mean = ink.mean(axis=(1, 2), keepdims=True)
    spread = ink.std(axis=(1, 2), keepdims=True) + 8.0
    out: Floats = np.stack([(ink - mean) / spread, redness / spread], axis=1)
    return out


def on_dark_ground(crops: Frame) -> npt.NDArray[np.bool_]:
    """Which colour crops (n x CROP x CROP x 3) lie on ground darker than their print, as
    light print on dark card does: the middling brightness (each pixel's brightest
    channel) is nearer the darkest than the brightest. Only these are worth the dark look;
    dark print on a light card never is, whatever the light."""
    bright = crops.max(axis=3).reshape(len(crops), -1).astype(np.float32)
    out: npt.NDArray[np.bool_] = np.median(bright, axis=1) < (
        bright.min(axis=1) + bright.max(axis=1)) / 2
    return out


def _load(path: Path) -> Net:
    return load_net(path, CardModelError, "card model", "vision/train_cards.py")


class IndexFinder:
    """The committed index finder (ONNX, run by `vision.nets`): frame in, candidates
    out."""

    def __init__(self, path: Path = DEFAULT_FINDER) -> None:
        self.net = _load(path)

    def maps(self, frame: Frame, side: int = FINDER_SIDE) -> tuple[Floats, float]:
        """The finder's raw output (FINDER_CHANNELS x H x W) and the frame-to-input scale."""
        blob, scale = finder_input(frame, side)
        return self.net.run(blob)[0], scale

    def __call__(self, frame: Frame, side: int = FINDER_SIDE) -> list[Candidate]:
        maps, scale = self.maps(frame, side)
        return decode_peaks(maps, scale)


def moved_by(candidate: Candidate, along: float, across: float, log_size: float,
             turn: float) -> Candidate:
    """The candidate moved as the refiner says (`REFINER_OUTPUTS`): its centre `along` its
    upright and `across` it (towards its crop's right) in its heights, its height times
    e^`log_size`, its upright turned by `turn` radians."""
    c, size = candidate, candidate.size
    # The crop's right, in the frame (`crop_indices` mirrors): the upright turned a quarter
    # anticlockwise as the image shows it.
    rx, ry = c.uy, -c.ux
    cos, sin = math.cos(turn), math.sin(turn)
    return Candidate(c.x + (along * c.ux + across * rx) * size,
                     c.y + (along * c.uy + across * ry) * size,
                     cos * c.ux - sin * c.uy, sin * c.ux + cos * c.uy,
                     size * math.exp(min(max(log_size, -1.0), 1.0)), c.score)


class IndexRefiner:
    """The committed index refiner (ONNX, run by `vision.nets`): candidates in, each
    moved where the refiner sees its index, REFINE_STEPS times, out."""

    def __init__(self, path: Path = DEFAULT_REFINER, steps: int = REFINE_STEPS) -> None:
        if steps < 1:
            raise ValueError(f"the refiner must move candidates at least once, got {steps}")
        self.net = _load(path)
        self.steps = steps

    def moves(self, frame: Frame, candidates: list[Candidate]) -> Floats:
        """The refiner's raw output for each candidate (n x REFINER_OUTPUTS)."""
        x = classifier_input(crop_indices(frame, candidates, REFINE_SPAN))
        return self.net.run(x).reshape(-1, REFINER_OUTPUTS)

    def __call__(self, frame: Frame, candidates: list[Candidate]) -> list[Candidate]:
        for _ in range(self.steps if candidates else 0):
            candidates = [moved_by(c, *m) for c, m in zip(
                candidates, self.moves(frame, candidates).tolist(), strict=True)]
        return candidates


@dataclass(frozen=True, slots=True)
class IndexRead:
    """One candidate read: the candidate, its best rank and suit, their probabilities'
    product, and the probability that it is an index at all."""

    candidate: Candidate
    code: str
    confidence: float
    index: float


class IndexClassifier:
    """The committed classifier (ONNX members, run by `vision.nets`): crops in, reads
    out. Each member gives a crop's rank and suit probabilities; the classifier's are their
    mean. Only the first member looks at every crop; the others look at those the first
    would keep (a read at least KEEP sure), since the candidates it refuses are most of a
    frame's, and could not be read surely (at a threshold over about 0.85) whatever the
    others said.

    Reading each kept candidate again from more views (cut with its height 0.9 and 1.1
    times the refiner's, every member's probabilities of the three views averaged) does not
    pay: on the 2,600 development scenes, at as many cards read, 1.12 to 1.15 times as many
    sure reads were wrong; shoe windows read 93.9% against 99.0%; 1.6 times the time."""

    def __init__(self, paths: Sequence[Path] = DEFAULT_MODELS) -> None:
        if not paths:
            raise ValueError("a card classifier needs at least one member's model file")
        self.nets = [_load(Path(path)) for path in paths]

    def probabilities(self, crops: Frame, *, dark: bool = False) -> tuple[Floats, Floats]:
        """Rank probabilities (n x 14, the last "not an index") and suit ones (n x 4) of
        colour crops, looked at as `classifier_input` looks (`dark`: as light print)."""
        x = classifier_input(crops, dark=dark)
        ranks, suits = _member_probabilities(self.nets[0], x)
        if len(self.nets) == 1:
            return ranks, suits
        kept = np.nonzero(_sureness(ranks, suits) >= KEEP)[0]
        if len(kept):
            rank_sum, suit_sum = ranks[kept], suits[kept]
            for net in self.nets[1:]:
                more_ranks, more_suits = _member_probabilities(net, x[kept])
                rank_sum, suit_sum = rank_sum + more_ranks, suit_sum + more_suits
            ranks[kept], suits[kept] = rank_sum / len(self.nets), suit_sum / len(self.nets)
        return ranks, suits

    def read(self, frame: Frame, candidates: list[Candidate], *, dark: bool = False
             ) -> list[IndexRead]:
        """The candidates taken for an index at least KEEP sure. With `dark`, a candidate
        the ordinary look refuses, on dark ground (`on_dark_ground`), is looked at again as
        light print on a dark card, and kept from the look more like an index; a read
        through that look has its confidence scaled by DARK_LOOK_SURENESS, for the dealer
        to confirm."""
        if not candidates:
            return []
        crops = crop_indices(frame, candidates)
        ranks, suits = self.probabilities(crops)
        sureness = np.ones(len(candidates), np.float32)
        if dark:
            again = np.nonzero((ranks[:, NOT_AN_INDEX] > 0.5) & on_dark_ground(crops))[0]
            if len(again):
                more_ranks, more_suits = self.probabilities(crops[again], dark=True)
                better = more_ranks[:, NOT_AN_INDEX] < ranks[again, NOT_AN_INDEX]
                ranks[again[better]] = more_ranks[better]
                suits[again[better]] = more_suits[better]
                sureness[again[better]] = DARK_LOOK_SURENESS
        rank = ranks[:, :NOT_AN_INDEX].argmax(axis=1)
        suit = suits.argmax(axis=1)
        sure = _sureness(ranks, suits)
        return [IndexRead(c, RANKS[r] + SUITS[s], float(p * k), float(1 - ranks[i, NOT_AN_INDEX]))
                for i, (c, r, s, p, k) in enumerate(zip(candidates, rank, suit, sure, sureness,
                                                        strict=True))
                if p >= KEEP]


def _sureness(ranks: Floats, suits: Floats) -> Floats:
    """How sure each crop's best read is: its likeliest rank's probability (an index's, not
    "not an index") times its likeliest suit's."""
    out: Floats = ranks[:, :NOT_AN_INDEX].max(axis=1) * suits.max(axis=1)
    return out


def _member_probabilities(net: Net, x: Floats) -> tuple[Floats, Floats]:
    """One member's rank and suit probabilities of classifier inputs."""
    logits = net.run(x).reshape(-1, len(RANKS) + 5)
    return _softmax(logits[:, :len(RANKS) + 1]), _softmax(logits[:, len(RANKS) + 1:])


def _softmax(logits: Floats) -> Floats:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: Floats = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def index_candidates(frame: Frame, finder: IndexFinder, refiner: IndexRefiner | None,
                     sides: Sequence[int], fine_side: int | None = None) -> list[Candidate]:
    """The candidates a reader reads: the finder's at each of `sides` (and, near the small
    indices those find, at `fine_side`: `look_closer`), one per place (`merge_candidates`),
    each then moved by the refiner, if any, onto its index (two it moves onto one index are
    one)."""
    found = [c for side in sides for c in finder(frame, side)]
    if fine_side is not None:
        found += look_closer(frame, finder, found, fine_side)
    candidates = merge_candidates(found)
    if refiner is not None:
        candidates = merge_candidates(refiner(frame, candidates))
    return candidates


def closer_look_region(candidates: Sequence[Candidate], frame: Frame
                       ) -> tuple[int, int, int, int] | None:
    """The part of the frame (left, top, right, bottom) to look at closer: within FINE_MARGIN
    index heights of each candidate the finder is fairly sure of (FAIR_PEAK) whose index is
    under SMALL_INDEX of the frame's long side; None when there is no such candidate."""
    h, w = frame.shape[:2]
    small = [c for c in candidates
             if c.score >= FAIR_PEAK and c.size < SMALL_INDEX * max(h, w)]
    if not small:
        return None
    left = max(0, math.floor(min(c.x - FINE_MARGIN * c.size for c in small)))
    top = max(0, math.floor(min(c.y - FINE_MARGIN * c.size for c in small)))
    right = min(w, math.ceil(max(c.x + FINE_MARGIN * c.size for c in small)))
    bottom = min(h, math.ceil(max(c.y + FINE_MARGIN * c.size for c in small)))
    # A peak the finder puts on its input's padding, past the frame's edge, may leave none.
    return (left, top, right, bottom) if right > left and bottom > top else None


def look_closer(frame: Frame, finder: IndexFinder, candidates: Sequence[Candidate],
                fine_side: int) -> list[Candidate]:
    """The finder's candidates in `closer_look_region`, looked at as closely as the whole
    frame would be at long side `fine_side`, in frame pixels; none when there is no region."""
    region = closer_look_region(candidates, frame)
    if region is None:
        return []
    left, top, right, bottom = region
    side = max(1, round(fine_side * max(right - left, bottom - top) / max(frame.shape[:2])))
    return [replace(c, x=c.x + left, y=c.y + top)
            for c in finder(frame[top:bottom, left:right], side)]


def merge_cards(reads: list[IndexRead]) -> list[IndexRead]:
    """One read per card: indices with the same code within a card's length are the
    corners of one card; the surest speaks for it."""
    order = sorted(reads, key=lambda r: -r.confidence)
    kept: list[IndexRead] = []
    for read in order:
        if not any(k.code == read.code and math.hypot(k.candidate.x - read.candidate.x,
                                                      k.candidate.y - read.candidate.y)
                   <= CARD_LENGTH * max(k.candidate.size, read.candidate.size) for k in kept):
            kept.append(read)
    return kept


def one_cards_corners(a: Candidate, b: Candidate) -> bool:
    """Whether two indices lie as one card's two turned corners: facing opposite ways, the
    second down and across from the first as far as a card's other corner is."""
    if a.ux * b.ux + a.uy * b.uy > OPPOSITE:
        return False
    size = max(a.size, b.size)
    dx, dy = b.x - a.x, b.y - a.y
    down = -(dx * a.ux + dy * a.uy) / size
    across = abs(-dx * a.uy + dy * a.ux) / size
    return (SECOND_INDEX_DOWN[0] <= down <= SECOND_INDEX_DOWN[1]
            and SECOND_INDEX_ACROSS[0] <= across <= SECOND_INDEX_ACROSS[1])


def doubt_turned_twins(reads: list[IndexRead]) -> list[IndexRead]:
    """The reads, less sure where one card's two corners read as turned twins (a 6 at one, a
    9 of the same suit at the other, `TURNED_TWINS`): the card is one of the two, and which
    the reader cannot tell, as the design may print its second index upright. Each such
    read's confidence is scaled by the chance that the other is wrong (1 - its confidence),
    so the dealer is asked which card it is.

    A lone corner cannot be doubted so. Reading each sure read's crop again with its two
    glyphs turned round in place (what an upright second index would show read the right
    way), and doubting the read when that names another code surely, was tried: on
    development designs drawn with their second index upright, 1.67% of the sure reads were
    wrong against 2.09%; on ordinary ones it read 82.8% of the cards against 89.3%, as many
    wrong (a turned 9 over a diamond is a 6 of diamonds), and 12 of 195 shoe windows fewer."""
    doubt = [1.0] * len(reads)
    for i, a in enumerate(reads):
        for j in range(i + 1, len(reads)):
            b = reads[j]
            if (a.code[-1] == b.code[-1] and (a.code[:-1], b.code[:-1]) in TURNED_TWINS
                    and one_cards_corners(a.candidate, b.candidate)):
                doubt[i] *= 1.0 - b.confidence
                doubt[j] *= 1.0 - a.confidence
    return [r if d == 1.0 else replace(r, confidence=r.confidence * d)
            for r, d in zip(reads, doubt, strict=True)]


class CardReader:
    """Reads every card face up in a frame: `CardReader()(frame) -> [Observation]`.

    Each observation's value is the card code ("10H"), its box that of the index it was read
    from, its confidence the product of rank and suit probabilities. A read below
    `threshold` is one for the dealer to confirm. `dark_cards` False skips the look for
    light print on dark card stock (less time, when the club's decks are all light).
    `sides` are the long sides the finder sees the frame at, one for each distance of the
    camera from the cards; `fine_side` the side of a closer look near the small indices those
    find (`look_closer`), None for none. `refiner` None reads each index where the finder
    put it.
    """

    def __init__(self, threshold: float = DEFAULT_THRESHOLD,
                 models: Sequence[Path] = DEFAULT_MODELS, *, dark_cards: bool = True,
                 finder: Path = DEFAULT_FINDER, refiner: Path | None = DEFAULT_REFINER,
                 sides: tuple[int, ...] = (FINDER_SIDE, CLOSE_SIDE),
                 fine_side: int | None = FINE_SIDE) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        self.threshold = threshold
        self.dark_cards = dark_cards
        self.sides = sides
        self.fine_side = fine_side
        self.finder = IndexFinder(Path(finder))
        self.refiner = None if refiner is None else IndexRefiner(Path(refiner))
        self.classifier = IndexClassifier(models)

    def indices(self, frame: Frame) -> list[IndexRead]:
        """Every corner index read in the frame, one read per candidate; with `dark_cards`,
        each is also looked at turned over (light print on dark card stock). With a
        refiner, each candidate is read where the refiner moves it (two that it moves onto
        one index are one, `merge_candidates`)."""
        frame = check_frame(frame)
        return self.classifier.read(frame, index_candidates(
            frame, self.finder, self.refiner, self.sides, self.fine_side), dark=self.dark_cards)

    def __call__(self, frame: Frame) -> list[Observation]:
        return [Observation(value=r.code, box=r.candidate.box, confidence=r.confidence)
                for r in merge_cards(doubt_turned_twins(self.indices(frame)))]


class ShoeWindowReader:
    """Reads the one card a dealing shoe's window shows: `ShoeWindowReader()(frame)` gives
    [] when no index is in view, else one Observation (confirm it when below `threshold`)."""

    def __init__(self, threshold: float = SHOE_THRESHOLD,
                 models: Sequence[Path] = DEFAULT_MODELS, *, dark_cards: bool = True,
                 finder: Path = DEFAULT_FINDER, refiner: Path | None = DEFAULT_REFINER) -> None:
        self.reader = CardReader(threshold, models, dark_cards=dark_cards, finder=finder,
                                 refiner=refiner, sides=(SHOE_SIDE,), fine_side=None)
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


__all__ = ["CLASSIFIER_CHANNELS", "DEFAULT_FINDER", "DEFAULT_MODELS", "DEFAULT_REFINER",
           "DEFAULT_THRESHOLD", "SHOE_THRESHOLD", "Candidate", "CardModelError", "CardReader",
           "IndexClassifier", "IndexFinder", "IndexRead", "IndexRefiner", "ShoeWindowReader",
           "classifier_input", "closer_look_region", "crop_indices", "decode_peaks",
           "doubt_turned_twins", "finder_input", "index_candidates", "look_closer",
           "merge_candidates", "merge_cards", "moved_by", "on_dark_ground", "one_cards_corners"]
