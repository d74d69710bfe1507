"""Typeset card indices: a rank over a suit sign, set in the machine's fonts, with suit signs
from the fonts and drawn from shapes, printed near the corner of a card on felt.

The Debian decks give the card classifier some twenty designs to learn from; a new design's
index is another font and another suit shape. These indices give it many more: every font
Debian's font packages install (`fonts-dejavu-core`, `fonts-liberation`, `fonts-urw-base35`,
`fonts-freefont-ttf`: serif, sans, mono, narrow, bold, italic), a rank's letter as other
languages print it (V or B for the jack, D for the queen, R for the king, and Russian
letters), and suit signs of many proportions. Only `vision/train_cards.py` uses them; the
fonts found are sorted by path, so the same fonts and seed give the same index.

`typeset_index(rng, code)` gives a frame (BGR) with one index on it and the index's truth in
the form `vision/train_cards.py` cuts crops from: centre, upright, height, code.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.core import VisionError

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
#: Fonts of signs, not letters: used only for suit signs.
SIGN_FONTS = ("D050000L", "StandardSymbolsPS", "DejaVuMathTeXGyre")
#: What each rank may be printed as, and how often: the usual letter most of the time.
RANK_TEXTS: dict[str, tuple[tuple[str, float], ...]] = {
    "A": (("A", 0.95), ("\u0422", 0.05)),
    "J": (("J", 0.8), ("V", 0.07), ("B", 0.07), ("\u0412", 0.06)),
    "Q": (("Q", 0.84), ("D", 0.1), ("\u0414", 0.06)),
    "K": (("K", 0.86), ("R", 0.08), ("\u041a", 0.06)),
}
SUIT_SIGNS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
#: Ink colours (BGR) of the two red suits and the two black, and of four-colour packs.
RED, BLACK = (40, 30, 200), (30, 30, 30)
FOUR_COLOUR = {"S": BLACK, "H": RED, "D": (180, 90, 20), "C": (40, 130, 30)}
#: Side of the rendering of one glyph before it is scaled to its place.
GLYPH = 96

Image = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]


class NoFonts(VisionError, FileNotFoundError):
    """No font to set indices in."""


@lru_cache(maxsize=1)
def fonts() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """The fonts for ranks, and those that hold the four suit signs (sorted by path)."""
    found = sorted(p for d in FONT_DIRS if d.is_dir() for p in d.rglob("*")
                   if p.suffix.lower() in (".ttf", ".otf"))
    letters = tuple(p for p in found if not p.stem.startswith(SIGN_FONTS))
    signs = tuple(p for p in found if all(_has_glyph(p, s) for s in SUIT_SIGNS.values()))
    if not letters:
        raise NoFonts(f"no .ttf or .otf font under {', '.join(map(str, FONT_DIRS))}; "
                      "install fonts-dejavu-core fonts-liberation fonts-urw-base35 "
                      "fonts-freefont-ttf")
    return letters, signs


@lru_cache(maxsize=4096)
def _has_glyph(path: Path, char: str) -> bool:
    """Whether the font draws `char` as something other than its missing-glyph box."""
    from PIL import ImageFont

    font = ImageFont.truetype(str(path), 48)
    mask = np.asarray(font.getmask(char), np.uint8)
    missing = np.asarray(font.getmask("\ue000"), np.uint8)
    return bool(mask.any()) and (mask.shape != missing.shape or bool((mask != missing).any()))


def _glyph(path: Path, text: str) -> Image:
    """`text` in the font, white on black, cut to its ink."""
    from PIL import Image as PilImage
    from PIL import ImageDraw, ImageFont

    font = ImageFont.truetype(str(path), GLYPH)
    canvas = PilImage.new("L", (GLYPH * 3, GLYPH * 2), 0)
    ImageDraw.Draw(canvas).text((GLYPH // 4, GLYPH // 4), text, fill=255, font=font)
    return _cut(np.asarray(canvas, np.uint8))


def _cut(mask: Image) -> Image:
    ys, xs = np.nonzero(mask > 40)
    if not len(ys):
        return np.zeros((1, 1), np.uint8)
    out: Image = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return out


def _heart(rng: np.random.Generator, n: int = 80) -> F64:
    """A heart's outline (point down), of a random fullness."""
    t = np.linspace(0, 2 * math.pi, n)
    lobes = float(rng.uniform(3.0, 6.0))
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - lobes * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    return np.stack([x * float(rng.uniform(0.85, 1.15)), y], axis=1)


def _drawn_sign(rng: np.random.Generator, suit: str) -> Image:
    """A suit sign drawn from shapes, white on black, cut to its ink."""
    if suit == "D":
        w, bow = float(rng.uniform(0.55, 0.9)), float(rng.uniform(-0.15, 0.1))
        t = np.linspace(0, 1, 12)[:-1]
        sides = []
        for (ax, ay), (bx, by) in (((0, -1), (w, 0)), ((w, 0), (0, 1)), ((0, 1), (-w, 0)),
                                   ((-w, 0), (0, -1))):
            mx, my = (ax + bx) / 2, (ay + by) / 2
            sides += [((1 - u) * ax + u * bx + bow * mx * math.sin(math.pi * u),
                       (1 - u) * ay + u * by + bow * my * math.sin(math.pi * u)) for u in t]
        parts = [np.array(sides, np.float64)]
    elif suit == "H":
        parts = [_heart(rng)]
    else:
        if suit == "S":
            parts = [_heart(rng) * np.array([1.0, -1.0])]
        else:
            r, spread = float(rng.uniform(0.26, 0.34)), float(rng.uniform(0.85, 1.05))
            angles = np.linspace(0, 2 * math.pi, 40)
            circle = np.stack([np.cos(angles), np.sin(angles)], axis=1) * r
            parts = [circle + np.array(c) for c in ((0.0, -r * 1.6), (-r * spread, 0.0),
                                                   (r * spread, 0.0))]
        lo, hi = np.concatenate(parts).min(axis=0), np.concatenate(parts).max(axis=0)
        width, tall = float(hi[0] - lo[0]), float(hi[1] - lo[1])
        mid = float(lo[0] + hi[0]) / 2
        stem_w, stem_h = float(rng.uniform(0.06, 0.15)), float(rng.uniform(0.2, 0.35))
        neck, foot = float(lo[1]) + 0.6 * tall, float(hi[1]) + stem_h * tall
        parts.append(np.array([[mid - stem_w * width, neck], [mid + stem_w * width, neck],
                               [mid + 2.5 * stem_w * width, foot],
                               [mid - 2.5 * stem_w * width, foot]]))
    canvas = np.zeros((2 * GLYPH, 2 * GLYPH), np.uint8)
    lo = np.concatenate(parts).min(axis=0)
    span = max(float(np.ptp(np.concatenate(parts), axis=0).max()), 1e-6)
    for part in parts:
        points = (part - lo) / span * (GLYPH - 1) + GLYPH / 2
        cv2.fillPoly(canvas, [np.round(points * 4).astype(np.int32)], 255, cv2.LINE_AA, 2)
    return _cut(canvas)


def _choose(rng: np.random.Generator, options: tuple[tuple[str, float], ...]) -> str:
    weights = np.array([w for _, w in options])
    return options[int(rng.choice(len(options), p=weights / weights.sum()))][0]


def _fit(glyph: Image, height: int, stretch: float) -> Image:
    h, w = glyph.shape
    width = max(1, round(w * height / h * stretch))
    out: Image = np.asarray(cv2.resize(glyph, (width, max(1, height)),
                                       interpolation=cv2.INTER_AREA), np.uint8)
    return out


def _index_mask(rng: np.random.Generator, code: str, height: int, rank_turns: int = 0
                ) -> Image:
    """The index (rank over suit) as a mask `height` pixels tall, white on black, its rank
    glyph turned `rank_turns` quarters round (anticlockwise) over an upright suit sign."""
    letters, signs = fonts()
    rank, suit = code[:-1], code[-1]
    text = _choose(rng, RANK_TEXTS.get(rank, ((rank, 1.0),)))
    font = letters[int(rng.integers(len(letters)))]
    if not _has_glyph(font, text):
        text = {"\u0422": "A", "\u0412": "J", "\u0414": "Q", "\u041a": "K"}[text]
    rank_glyph = np.ascontiguousarray(np.rot90(_glyph(font, text), rank_turns))
    if signs and rng.random() < 0.5:
        sign = _glyph(signs[int(rng.integers(len(signs)))], SUIT_SIGNS[suit])
    else:
        sign = _drawn_sign(rng, suit)
    rank_h = round(height * float(rng.uniform(0.45, 0.62)))
    gap = round(height * float(rng.uniform(0.0, 0.12)))
    suit_h = max(2, height - rank_h - gap)
    stretch = float(rng.uniform(0.55, 1.0)) if rank == "10" else float(rng.uniform(0.75, 1.25))
    top = _fit(rank_glyph, rank_h, stretch)
    bottom = _fit(sign, suit_h, float(rng.uniform(0.85, 1.15)))
    width = max(top.shape[1], bottom.shape[1])
    mask = np.zeros((rank_h + gap + suit_h, width), np.uint8)
    shift = float(rng.normal(0, 0.05)) * height
    for part, y in ((top, 0), (bottom, rank_h + gap)):
        x = int(np.clip(round((width - part.shape[1]) / 2 + shift * (y > 0)), 0,
                        width - part.shape[1]))
        mask[y:y + part.shape[0], x:x + part.shape[1]] = part
    if rng.random() < 0.2:
        kernel = np.ones((2, 2), np.uint8)
        mask = cv2.dilate(mask, kernel) if rng.random() < 0.5 else cv2.erode(mask, kernel)
    return mask


def typeset_index(rng: np.random.Generator, code: str, *, plain: bool = False,
                  rank_turns: int = 0) -> tuple[Image, tuple[F64, F64, float, str, bool]]:
    """A frame with one typeset index of `code` near a card's corner, turned any way round,
    and the index's truth: centre, upright (unit vector from its bottom to its top), height
    (frame pixels), code, and True (it is in view). `plain` leaves out the card's edge and
    what else is printed on it: only the index on paper. `rank_turns` turns the rank glyph
    alone that many quarters round, which no index does: the look of a card's rank seen
    the wrong way up over one of its pips."""
    height = int(rng.integers(14, 57))
    mask = _index_mask(rng, code, height, rank_turns)
    h, w = mask.shape
    side = 4 * height
    centre = np.array([side / 2, side / 2])
    felt = rng.uniform(10, 160, 3)
    frame = np.empty((side, side, 3), np.float32)
    frame[:] = felt
    paper = rng.uniform(200, 255) * np.array([1.0, rng.uniform(0.93, 1.0), rng.uniform(0.85, 1.0)])
    left = int(centre[0] - w / 2 - rng.uniform(0.05, 0.45) * height)
    top = int(centre[1] - h / 2 - rng.uniform(0.05, 0.4) * height)
    if plain:
        left = top = 0
    cv2.rectangle(frame, (left, top), (side, side), paper.tolist(), -1)
    if not plain and rng.random() < 0.3:
        inset = int(rng.uniform(0.03, 0.12) * height) + 1
        cv2.rectangle(frame, (left + inset, top + inset), (side, side),
                      (rng.uniform(20, 140, 3)).tolist(), 1)
    if not plain and rng.random() < 0.5:
        # Something more of the card: a pip or a court's picture, away from the index.
        x0 = int(centre[0] + rng.uniform(0.9, 1.4) * height)
        y0 = int(centre[1] + rng.uniform(0.3, 1.2) * height)
        colour = rng.uniform(0, 200, 3)
        if rng.random() < 0.5:
            cv2.rectangle(frame, (x0, y0), (side, side), colour.tolist(), -1)
        else:
            cv2.circle(frame, (x0, y0), int(rng.uniform(0.2, 0.5) * height), colour.tolist(), -1)
    colours = FOUR_COLOUR if rng.random() < 0.1 else {
        "S": BLACK, "C": BLACK, "H": RED, "D": RED}
    ink = np.array(colours[code[-1]], np.float32) + rng.normal(0, 20, 3).astype(np.float32)
    x, y = round(float(centre[0]) - w / 2), round(float(centre[1]) - h / 2)
    alpha = (mask.astype(np.float32) / 255.0)[:, :, None]
    patch = frame[y:y + h, x:x + w]
    frame[y:y + h, x:x + w] = patch * (1 - alpha) + np.clip(ink, 0, 255) * alpha
    angle = float(rng.uniform(0, 360))
    matrix = cv2.getRotationMatrix2D((side / 2, side / 2), angle, 1.0)
    turned = cv2.warpAffine(frame, matrix, (side, side), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)
    true_centre = np.array([x + w / 2, y + h / 2], np.float64)
    moved = matrix[:, :2] @ true_centre + matrix[:, 2]
    up = matrix[:, :2] @ np.array([0.0, -1.0])
    out: Image = np.clip(turned, 0, 255).astype(np.uint8)
    return out, (moved.astype(np.float64), up.astype(np.float64), float(h), code, True)
