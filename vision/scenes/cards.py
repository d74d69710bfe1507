"""Seeded renderer of labelled card-table scenes, drawn with Debian's card designs.

A card recogniser must read the corner index of many deck designs under room light, so this
draws as many labelled frames as training and judging need from the designs Debian ships
(`gnome-cards-data`: /usr/share/aisleriot/cards, `kdegames-card-data-kf5`:
/usr/share/carddecks). Each face is rendered once with `rsvg-convert` into a cache outside the
repository (default ~/.cache/hoyle/cards/<deck>/<code>.png, about 350 px high, redone when the
deck file changes; `HOYLE_CARD_CACHE` moves it). Some decks are held out: training never
sees them, so a recogniser is judged on designs it has not learnt (`HELD_OUT_DECKS`).

Labels follow DESIGN section 10: "cards" are the codes of cards with a corner index in view,
"boxes" the axis-aligned boxes around each index in view, as in the real photos.

Command line: `python -m vision.scenes.cards OUT --count N --seed S [--shoe]
[--held-out | --training]` writes OUT/images/*.png and OUT/labels.jsonl.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import math
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.core import Box, Frame, VisionError
from vision.scenes.dice import FELTS, PostProcess, felt_surface, finish_frame, smooth_field

log = logging.getLogger(__name__)

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Point = tuple[float, float]

AISLERIOT_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
#: Height in pixels of a cached face.
FACE_HEIGHT = 350

#: The share of an index's box (each way, about its centre) its print fills, as far as the
#: shoe's window must show it for the index to be labelled in view.
SHOE_INK_SHARE = 0.9

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
#: The 52 codes of a French-suited pack, rank `A 2-10 J Q K` then suit `S H D C`.
CODES = tuple(r + s for s in SUITS for r in RANKS)

_RANK_IDS = dict(zip(RANKS, ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack",
                             "queen", "king"), strict=True))
_SUIT_IDS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}


class CardDeckError(VisionError):
    """Root of the errors of the card scene generator."""


class DeckUnavailable(CardDeckError, FileNotFoundError):
    """A deck, its faces or the tool that renders them cannot be found or rendered."""


@dataclass(frozen=True, slots=True)
class Deck:
    """One installed card design: its name, its SVG file, and where it comes from ("aisleriot"
    or "kde", which also says how the file names its faces)."""

    name: str
    path: Path
    kind: str

    def element_id(self, code: str) -> str:
        """The SVG element id of a face: aisleriot says "club_queen", KDE "queen_club"."""
        rank, suit = _RANK_IDS[code[:-1]], _SUIT_IDS[code[-1]]
        return f"{suit}_{rank}" if self.kind == "aisleriot" else f"{rank}_{suit}"


#: Installed designs that cannot be used, and why (checked by eye on Debian 12's packages).
SKIPPED: Mapping[str, str] = MappingProxyType({
    "anglo_bitmap": "bitmap copy of anglo",
    "gnomangelo_bitmap": "bitmap copy of gnomangelo",
    "guyenne-classic": "its court cards carry no corner index",
    "swiss-xvii": "Swiss suits (acorns, bells, shields, roses), not French",
    "kde-xskat-german": "German suits (acorns, leaves, hearts, bells), not French",
    "kde-future": "not cards: rank tiles without suit signs",
    "kde-konqi-modern": "bitmap faces, and no page size for rsvg-convert",
    "kde-xskat-french": "bitmap faces, and no page size for rsvg-convert",
    "tango": "rank and suit printed in opposite corners: no index to box",
    "tango_nuevo": "rank and suit printed in opposite corners: no index to box",
    "kde-oxygen": "rank and suit printed in opposite corners: no index to box",
    "kde-oxygen-air": "rank and suit printed in opposite corners: no index to box",
    "kde-oxygen-white": "rank and suit printed in opposite corners: no index to box",
})

#: Where each usable design prints its top-left index (rank over suit), as shares of the
#: card's width and height: left, top, right, bottom. Measured by eye on overlays of several
#: faces, wide enough for a "10" and clear of pips and court frames; each face's box is the
#: ink found inside. The bottom-right index is the same turned half round.
_INDEX: Mapping[str, tuple[float, float, float, float]] = MappingProxyType({
    "ancient_french": (0.03, 0.02, 0.165, 0.25),
    "anglo": (0.025, 0.03, 0.15, 0.26),
    "anglo_modern": (0.03, 0.03, 0.16, 0.27),
    "anglo_modern_4_color": (0.03, 0.03, 0.16, 0.27),
    "anglo_poker": (0.03, 0.01, 0.145, 0.235),
    "atlasnye": (0.02, 0.03, 0.13, 0.245),
    "atlasnye_skat": (0.02, 0.03, 0.13, 0.245),
    "bellot": (0.025, 0.01, 0.155, 0.255),
    "berlin": (0.02, 0.03, 0.143, 0.25),
    "dondorf": (0.03, 0.02, 0.165, 0.26),
    "gnomangelo": (0.03, 0.03, 0.157, 0.26),
    "kde-ancient-egyptians": (0.02, 0.02, 0.24, 0.34),
    "kde-dondorf": (0.03, 0.02, 0.165, 0.26),
    "kde-gm-paris": (0.03, 0.02, 0.16, 0.26),
    "kde-jolly-royal": (0.03, 0.02, 0.21, 0.31),
    "kde-nicu-ornamental": (0.025, 0.03, 0.25, 0.43),
    "kde-nicu-white": (0.025, 0.03, 0.25, 0.43),
    "kde-penguins": (0.02, 0.01, 0.2, 0.27),
    "kde-standard": (0.02, 0.02, 0.18, 0.31),
    "kde-tigullio-international": (0.03, 0.03, 0.145, 0.235),
    "lattmann": (0.02, 0.03, 0.143, 0.25),
    "neoclassical": (0.03, 0.02, 0.14, 0.26),
    "neoclassical_4_color": (0.03, 0.02, 0.14, 0.26),
    "orell": (0.03, 0.02, 0.15, 0.21),
    "ornamental": (0.025, 0.03, 0.25, 0.43),
    "paris": (0.03, 0.02, 0.155, 0.255),
    "plastic": (0.03, 0.02, 0.225, 0.33),
    "rheinland": (0.02, 0.03, 0.145, 0.245),
    "simplistic": (0.03, 0.03, 0.165, 0.255),
    "slavic_costumes": (0.03, 0.03, 0.172, 0.235),
    "tarocco": (0.03, 0.02, 0.155, 0.22),
    "tigullio": (0.03, 0.02, 0.15, 0.235),
    "Атласные": (0.02, 0.03, 0.125, 0.245),
})
#: Designs that print the index in all four corners, not only in two.
_FOUR_INDICES = frozenset({"dondorf", "kde-dondorf"})

#: Decks training never uses: the recogniser is judged on them. About a quarter of the usable
#: designs, each family of look-alike designs wholly on one side, chosen for variety:
#: indices in all four corners and photographic courts (dondorf), four-colour suits
#: (neoclassical), cartoon courts (penguins), Italian-pattern courts (tigullio), cream card
#: and large indices (ancient-egyptians), Russian indices (slavic_costumes).
HELD_OUT_DECKS: tuple[str, ...] = (
    "dondorf", "kde-dondorf", "neoclassical", "neoclassical_4_color", "kde-penguins",
    "tigullio", "kde-tigullio-international", "kde-ancient-egyptians", "slavic_costumes",
)


def _deck_files() -> list[Deck]:
    decks = [Deck(p.name.removesuffix(".svgz"), p, "aisleriot")
             for p in sorted(AISLERIOT_DIR.glob("*.svgz"))]
    for folder in sorted(KDE_DIR.glob("svg-*")):
        files = sorted(folder.glob("*.svgz"))
        if files:
            decks.append(Deck("kde-" + folder.name.removeprefix("svg-"), files[0], "kde"))
    return decks


def _missing_faces(deck: Deck) -> list[str]:
    """Codes whose element id the deck's file does not define."""
    with gzip.open(deck.path, "rt", encoding="utf-8", errors="replace") as f:
        ids = set(re.findall(r'\bid="([^"]+)"', f.read()))
    return [c for c in CODES if deck.element_id(c) not in ids]


@lru_cache(maxsize=1)
def _survey() -> tuple[tuple[Deck, ...], tuple[tuple[str, str], ...]]:
    usable: list[Deck] = []
    skipped: list[tuple[str, str]] = []
    for deck in _deck_files():
        reason = SKIPPED.get(deck.name)
        if reason is None and deck.name not in _INDEX:
            reason = "a design not seen before: where it prints its index is not measured"
        if reason is None:
            missing = _missing_faces(deck)
            if missing:
                reason = f"no face for {', '.join(missing[:4])}" + (
                    f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        if reason is None:
            usable.append(deck)
        else:
            log.info("card deck %s skipped: %s", deck.name, reason)
            skipped.append((deck.name, reason))
    usable.sort(key=lambda d: d.name)
    return tuple(usable), tuple(skipped)


def installed_decks() -> list[Deck]:
    """The installed French-suited designs this generator can draw, sorted by name."""
    return list(_survey()[0])


def skipped_decks() -> dict[str, str]:
    """The installed designs left out, each with the reason."""
    return dict(_survey()[1])


def training_decks() -> list[Deck]:
    """The installed usable designs that are not held out."""
    return [d for d in installed_decks() if d.name not in HELD_OUT_DECKS]


def held_out_decks() -> list[Deck]:
    """The installed usable designs kept for judging, never for training."""
    return [d for d in installed_decks() if d.name in HELD_OUT_DECKS]


def deck_named(name: str) -> Deck:
    """The usable installed deck of this name, else `DeckUnavailable`."""
    for deck in installed_decks():
        if deck.name == name:
            return deck
    raise DeckUnavailable(f"no usable card deck named {name!r}; installed: "
                          f"{', '.join(d.name for d in installed_decks()) or 'none'}")


# --- the face cache ---------------------------------------------------------------------

def cache_root() -> Path:
    """Where rendered faces are kept: $HOYLE_CARD_CACHE, else ~/.cache/hoyle/cards."""
    env = os.environ.get("HOYLE_CARD_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hoyle" / "cards"


def _run_rsvg(deck: Deck, code: str, zoom: float, page: tuple[int, int, int, int] | None
              ) -> npt.NDArray[np.uint8]:
    """One face rendered alone on a transparent page as BGRA; `page` (left, top, width,
    height, in output pixels) crops the page to that window of the drawing."""
    with tempfile.TemporaryDirectory(prefix="hoyle-card-") as tmp:
        out = Path(tmp) / "face.png"
        window = [] if page is None else [
            f"--left=-{page[0]}px", f"--top=-{page[1]}px", f"--page-width={page[2]}px",
            f"--page-height={page[3]}px"]
        try:
            subprocess.run(["rsvg-convert", "--export-id", deck.element_id(code),
                            f"--zoom={zoom:.5f}", *window, "--output", str(out),
                            str(deck.path)], check=True, capture_output=True, timeout=120)
        except FileNotFoundError as e:
            raise DeckUnavailable("rsvg-convert is not installed (Debian: librsvg2-bin)") from e
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            raise DeckUnavailable(f"rsvg-convert cannot render {code} of {deck.name}: "
                                  f"{getattr(e, 'stderr', b'')!r}") from e
        image = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise DeckUnavailable(f"rsvg-convert gave no image for {code} of {deck.name}")
    return np.asarray(image, np.uint8)


def _ink(image: npt.NDArray[np.uint8]) -> tuple[int, int, int, int]:
    """Left, top, right, bottom (exclusive) of the drawn part of a BGRA image."""
    ys, xs = np.nonzero(image[:, :, 3] > 8)
    if xs.size == 0:
        raise DeckUnavailable("the face renders empty")
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _rsvg(deck: Deck, code: str, zoom: float) -> npt.NDArray[np.uint8]:
    """One face at `zoom`, cropped to its card. rsvg-convert draws a lone element where it
    sits on the whole page, so a small draft finds it and the real one renders only it."""
    draft_zoom = min(zoom, zoom / 8 + 0.02)
    x0, y0, x1, y1 = _ink(_run_rsvg(deck, code, draft_zoom, None))
    k = zoom / draft_zoom
    pad = math.ceil(k) + 2
    left, top = max(0, math.floor(x0 * k) - pad), max(0, math.floor(y0 * k) - pad)
    page = (left, top, math.ceil(x1 * k) + pad - left, math.ceil(y1 * k) + pad - top)
    image = _run_rsvg(deck, code, zoom, page)
    x0, y0, x1, y1 = _ink(image)
    return np.ascontiguousarray(image[y0:y1, x0:x1])


def _write_png(path: Path, image: npt.NDArray[np.uint8]) -> None:
    """Writes through a temporary name, so a reader never meets half a file."""
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.png")
    if not cv2.imwrite(str(tmp), image):
        raise DeckUnavailable(f"cannot write {tmp}")
    tmp.replace(path)


def _fill_cache(deck: Deck, folder: Path) -> None:
    """Renders every face of `deck` into `folder` at one zoom, all at one size."""
    folder.mkdir(parents=True, exist_ok=True)
    probe = _rsvg(deck, "2C", 1.0)
    zoom = FACE_HEIGHT / probe.shape[0]
    size = (round(probe.shape[1] * zoom), FACE_HEIGHT)

    def one(code: str) -> None:
        face = _rsvg(deck, code, zoom)
        if face.shape[1::-1] != size:
            # A face whose ink strays a pixel past its card: all faces share one size.
            face = np.asarray(cv2.resize(face, size, interpolation=cv2.INTER_AREA), np.uint8)
        _write_png(folder / f"{code}.png", face)

    todo = [c for c in CODES if not (folder / f"{c}.png").exists()]
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        list(pool.map(one, todo))


def _deck_folder(deck: Deck) -> Path:
    """The deck's cache folder, filled, and redone when the deck's file has changed."""
    folder = cache_root() / deck.name
    stamp = folder / "source.json"
    key = {"path": str(deck.path), "mtime_ns": deck.path.stat().st_mtime_ns,
           "height": FACE_HEIGHT}
    try:
        current = json.loads(stamp.read_text(encoding="utf-8")) == key
    except (OSError, ValueError):
        current = False
    if current and all((folder / f"{c}.png").exists() for c in CODES):
        return folder
    if not current and folder.exists():
        for old in folder.glob("*.png"):
            old.unlink(missing_ok=True)
        (folder / "corners.json").unlink(missing_ok=True)
    _fill_cache(deck, folder)
    stamp.write_text(json.dumps(key), encoding="utf-8")
    return folder


@lru_cache(maxsize=320)
def _face(deck: Deck, code: str) -> npt.NDArray[np.uint8]:
    """One cached face as read-only BGRA; kept in memory, as scenes draw the same few often."""
    path = _deck_folder(deck) / f"{code}.png"
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise DeckUnavailable(f"cannot read {path}")
    face = np.asarray(image, np.uint8)
    face.setflags(write=False)
    return face


#: Stock colours (BGR) of decks printed light on dark card: black, navy, bottle green, claret.
DARK_STOCKS = ((22, 22, 24), (62, 30, 18), (28, 48, 20), (34, 24, 78))
#: Print colours (BGR) such decks use for their black suits: white, silver, gold.
LIGHT_BLACK_PRINTS = ((238, 238, 236), (192, 192, 188), (70, 172, 214))
#: And for their red suits: red, pink, gold, white. A deck's two may be alike (all gold).
LIGHT_RED_PRINTS = ((56, 52, 214), (160, 150, 246), (70, 172, 214), (238, 238, 236))


def dark_stock_face(face: npt.NDArray[np.uint8], stock: Sequence[float],
                    black_print: Sequence[float], red_print: Sequence[float]
                    ) -> npt.NDArray[np.uint8]:
    """A BGRA face as its deck would look printed light on dark card: paper becomes `stock`,
    black ink `black_print`, red ink `red_print` (colours BGR; shades in between mix)."""
    bgr = face[:, :, :3].astype(np.float32)
    paper = bgr.min(axis=2, keepdims=True) / 255
    red = np.clip((bgr[:, :, 2:3] - bgr[:, :, :2].max(axis=2, keepdims=True)) / 120, 0, 1)
    ink = red * np.asarray(red_print, np.float32) + (1 - red) * np.asarray(black_print,
                                                                             np.float32)
    out = paper * np.asarray(stock, np.float32) + (1 - paper) * ink
    return np.dstack([np.clip(out + 0.5, 0, 255).astype(np.uint8), face[:, :, 3:]])


def _dark_deck(rng: np.random.Generator, dark_stock: float
               ) -> tuple[tuple[float, ...], ...] | None:
    """With chance `dark_stock` (drawing nothing from `rng` when it is 0), the stock and the
    black and red suits' print colours of a deck printed light on dark card."""
    if dark_stock <= 0 or rng.random() >= dark_stock:
        return None
    return tuple(tuple(float(v) for v in colours[int(rng.integers(0, len(colours)))])
                 for colours in (DARK_STOCKS, LIGHT_BLACK_PRINTS, LIGHT_RED_PRINTS))


def _printed(face: npt.NDArray[np.uint8], colours: tuple[tuple[float, ...], ...] | None
             ) -> npt.NDArray[np.uint8]:
    return face if colours is None else dark_stock_face(face, *colours)


def second_index_upright(face: npt.NDArray[np.uint8], boxes: Sequence[Box]
                         ) -> npt.NDArray[np.uint8]:
    """The face as a design that prints its turned indices (the second, and the fourth of a
    four-index design) upright would show it, as kde-ancient-egyptians does: there, the suit
    sign above the rank, each the right way up. Each such index's box is cut in two at the
    gap between its glyphs and each part turned round in place; an index whose glyphs touch
    is left as it is."""
    out = face.copy()
    for x, y, w, h in boxes[1::2]:
        x0, y0, x1, y1 = round(x), round(y), round(x + w), round(y + h)
        patch = out[y0:y1, x0:x1]
        split = _glyph_gap(patch)
        if split is not None:
            patch[:split] = patch[:split][::-1, ::-1].copy()
            patch[split:] = patch[split:][::-1, ::-1].copy()
    return out


def _glyph_gap(patch: npt.NDArray[np.uint8]) -> int | None:
    """The row of an index's box nearest its middle with no ink on it, between ink above and
    below (None if there is none)."""
    if patch.size == 0:
        return None
    ink: npt.NDArray[np.bool_] = np.asarray(_print_of(patch).any(axis=1))
    rows = np.nonzero(ink)[0]
    if rows.size == 0:
        return None
    gaps = [r for r in range(int(rows.min()) + 1, int(rows.max())) if not ink[r]]
    return min(gaps, key=lambda r: abs(r - len(ink) / 2)) if gaps else None


def card_faces(deck: Deck) -> dict[str, Frame]:
    """The 52 faces of `deck` by code ("10H"), as BGRA images of one size (read-only),
    rendered into the cache on first use."""
    return {code: _face(deck, code) for code in CODES}


# --- where the indices are --------------------------------------------------------------

def _print_of(patch: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Where a patch of a face (BGRA, mostly paper) is printed: well away from the paper's
    colour, which is its light end, even on cream cards."""
    colour = patch[:, :, :3].astype(np.int16)
    paper = np.percentile(colour.reshape(-1, 3), 90, axis=0).astype(np.int16)
    out: npt.NDArray[np.bool_] = (np.abs(colour - paper).max(axis=2) > 70) & (patch[:, :, 3] > 200)
    return out


def _ink_box(face: npt.NDArray[np.uint8], region: tuple[int, int, int, int]) -> Box | None:
    """The box around the print inside `region` (left, top, right, bottom) of a face: what
    differs from the paper, less straight lines across the region (card and frame edges)."""
    x0, y0, x1, y1 = region
    patch = face[y0:y1, x0:x1]
    if patch.size == 0:
        return None
    ink = _print_of(patch)
    ink[:, ink.mean(axis=0) > 0.6] = False
    ink[ink.mean(axis=1) > 0.6, :] = False
    ys, xs = np.nonzero(ink)
    if xs.size < 12:
        return None
    return (float(x0 + xs.min()), float(y0 + ys.min()), float(xs.max() - xs.min() + 1),
            float(ys.max() - ys.min() + 1))


def _index_boxes(deck: Deck, code: str) -> tuple[Box, ...]:
    """Boxes around each corner index of a face, in face pixels: top-left, bottom-right, and
    for four-index designs top-right and bottom-left."""
    face = _face(deck, code)
    h, w = face.shape[:2]
    fx0, fy0, fx1, fy1 = _INDEX[deck.name]
    corners = [(False, False), (True, True)]
    if deck.name in _FOUR_INDICES:
        corners += [(True, False), (False, True)]
    boxes: list[Box] = []
    for flip_x, flip_y in corners:
        view = face[::-1 if flip_y else 1, ::-1 if flip_x else 1]
        region = (round(fx0 * w), round(fy0 * h), round(fx1 * w), round(fy1 * h))
        found = _ink_box(np.ascontiguousarray(view), region)
        x, y, bw, bh = found if found is not None else (
            region[0], region[1], region[2] - region[0], region[3] - region[1])
        if flip_x:
            x = w - x - bw
        if flip_y:
            y = h - y - bh
        boxes.append((float(x), float(y), float(bw), float(bh)))
    return tuple(boxes)


@lru_cache(maxsize=64)
def index_boxes(deck: Deck) -> Mapping[str, tuple[Box, ...]]:
    """Every face's corner-index boxes in face pixels, kept beside the cached faces."""
    path = _deck_folder(deck) / "corners.json"
    # Stored with the region it was found in, so a re-measured region is found again.
    key = [*_INDEX[deck.name], deck.name in _FOUR_INDICES]
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored["key"] != key:
            raise ValueError("measured in another region")
        boxes = {c: tuple((float(b[0]), float(b[1]), float(b[2]), float(b[3]))
                          for b in stored["boxes"][c]) for c in CODES}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        boxes = {c: _index_boxes(deck, c) for c in CODES}
        tmp = path.with_name(f".corners.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "boxes": {c: [list(b) for b in v]
                                                         for c, v in boxes.items()}}),
                       encoding="utf-8")
        tmp.replace(path)
    return MappingProxyType(boxes)


# --- scenes -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SceneCard:
    """One card as drawn: its code, its box in the image (around the whole card), each corner
    index's box, whether that index is in view (inside the frame, no card over it), the
    deck's name, the card's outline and each index's outline (four corners each)."""

    code: str
    box: Box
    corner_boxes: tuple[Box, ...]
    visible_corners: tuple[bool, ...]
    deck: str
    outline: tuple[Point, ...] = ()
    corner_quads: tuple[tuple[Point, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class CardScene:
    """A rendered frame and the truth about every card in it, listed bottom card first."""

    image: Frame
    cards: tuple[SceneCard, ...]

    def label(self) -> dict[str, Any]:
        """The DESIGN section 10 label: codes of cards with an index in view, and a box
        around every index in view; and, under "partly_seen", the cards in the frame with no
        index wholly in view (a shoe's card whose index the window cuts): a sure read of
        one is the card itself, so `vision.evaluate` counts it neither right nor wrong."""
        boxes = [[*(round(v, 1) for v in box), card.code] for card in self.cards
                 for box, seen in zip(card.corner_boxes, card.visible_corners, strict=True)
                 if seen]
        return {"cards": sorted(c.code for c in self.cards if any(c.visible_corners)),
                "boxes": boxes,
                "partly_seen": sorted(c.code for c in self.cards
                                      if not any(c.visible_corners))}

    def decks(self) -> list[str]:
        """The names of the decks drawn, sorted."""
        return sorted({c.deck for c in self.cards})


def _as_deck(deck: Deck | str) -> Deck:
    return deck if isinstance(deck, Deck) else deck_named(deck)


def _pick_deck(rng: np.random.Generator, decks: Sequence[Deck | str] | None) -> Deck:
    pool = [_as_deck(d) for d in decks] if decks is not None else installed_decks()
    if not pool:
        raise DeckUnavailable("no usable card decks: install gnome-cards-data or "
                              "kdegames-card-data-kf5 (and librsvg2-bin)")
    return pool[int(rng.integers(0, len(pool)))]


def _transform(points: F64, matrix: F64) -> F64:
    """Points (n x 2) through a 3x3 projective matrix."""
    ones = np.hstack([points, np.ones((len(points), 1))])
    out = ones @ matrix.T
    result: F64 = out[:, :2] / out[:, 2:3]
    return result


def _quad(box: Box) -> F64:
    x, y, w, h = box
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


def _aabb(points: F64) -> Box:
    lo, hi = points.min(axis=0), points.max(axis=0)
    return (float(lo[0]), float(lo[1]), float(hi[0] - lo[0]), float(hi[1] - lo[1]))


def _overlap_area(a: F64, b: F64) -> float:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area)


def _tilt(rng: np.random.Generator, size: tuple[int, int], max_tilt: float = 20.0) -> F64:
    """The table plane (image pixels of a camera looking straight down) as seen by a camera
    tilted 0-`max_tilt` degrees toward a random side: a homography, centre kept in place."""
    w, h = size
    tilt = math.radians(float(rng.uniform(0, max_tilt)))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    focal = (w / 2) / math.tan(math.radians(float(rng.uniform(50, 70))) / 2)
    axis = np.array([math.cos(azimuth), math.sin(azimuth), 0.0]) * tilt
    rot, _ = cv2.Rodrigues(axis)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    plane = np.hstack([corners - (w / 2, h / 2), np.zeros((4, 1))]) @ rot.T
    seen = plane[:, :2] * focal / (focal + plane[:, 2:3]) + (w / 2, h / 2)
    matrix = cv2.getPerspectiveTransform(corners.astype(np.float32), seen.astype(np.float32))
    out: F64 = np.asarray(matrix, np.float64)
    return out


@dataclass(frozen=True, slots=True)
class _Placed:
    code: str
    pose: F64  # face pixels -> image pixels
    outline: F64
    quads: tuple[F64, ...]


def _pose(centre: Point, angle: float, scale: float, face_size: tuple[int, int],
          view: F64) -> F64:
    fw, fh = face_size
    c, s = math.cos(angle), math.sin(angle)
    place = np.array([[c * scale, -s * scale, 0.0], [s * scale, c * scale, 0.0], [0, 0, 1]])
    place[:2, 2] = np.array(centre) - place[:2, :2] @ np.array([fw / 2, fh / 2])
    out: F64 = view @ place
    return out


def _placed(code: str, pose: F64, face_size: tuple[int, int],
            boxes: Sequence[Box]) -> _Placed:
    fw, fh = face_size
    outline = _transform(_quad((0.0, 0.0, float(fw), float(fh))), pose)
    return _Placed(code, pose, outline, tuple(_transform(_quad(b), pose) for b in boxes))


def _in_frame(quad: F64, size: tuple[int, int], margin: float = 1.0) -> bool:
    w, h = size
    return bool(quad.min() >= margin and quad[:, 0].max() <= w - margin
                and quad[:, 1].max() <= h - margin)


def _visibility(cards: Sequence[_Placed], size: tuple[int, int]) -> list[list[bool]]:
    """For each card, which of its indices are in view: inside the frame with every later
    (higher) card clear of it."""
    out = []
    for i, card in enumerate(cards):
        out.append([_in_frame(q, size) and all(_overlap_area(q, other.outline) < 0.25
                                               for other in cards[i + 1:])
                    for q in card.quads])
    return out


def _layout(rng: np.random.Generator, deck: Deck, codes: Sequence[str], size: tuple[int, int],
            view: F64, overlap: float) -> list[_Placed]:
    """Cards face up on the table, each keeping at least one index in view. With chance
    `overlap` a card is laid over an earlier one, fanned so the lower card's top-left index
    still shows; otherwise it lies clear of the others."""
    w, h = size
    face_size = _face(deck, codes[0]).shape[1::-1]
    fw, fh = face_size
    n = len(codes)
    card_h = h * float(rng.uniform(0.35, 0.8)) / math.sqrt(1 + 0.25 * (n - 1))
    scale = card_h / fh
    boxes = index_boxes(deck)
    region = _INDEX[deck.name]
    inverse: F64 = np.asarray(np.linalg.inv(view), np.float64)
    placed: list[_Placed] = []
    for code in codes:
        for attempt in range(40):
            if placed and rng.random() < overlap and attempt < 30:
                under = placed[int(rng.integers(0, len(placed)))]
                base = _transform(np.array([[fw / 2, fh / 2], [fw / 2 + 1, fh / 2]]),
                                  inverse @ under.pose)
                angle0 = math.atan2(*(base[1] - base[0])[::-1])
                if rng.random() < 0.6:
                    shift = (float(rng.uniform(region[2] + 0.04, 0.7)) * fw,
                             float(rng.uniform(-0.08, 0.2)) * fh)
                else:
                    shift = (float(rng.uniform(-0.08, 0.2)) * fw,
                             float(rng.uniform(region[3] + 0.04, 0.6)) * fh)
                c0, s0 = math.cos(angle0), math.sin(angle0)
                centre = (base[0][0] + (c0 * shift[0] - s0 * shift[1]) * scale,
                          base[0][1] + (s0 * shift[0] + c0 * shift[1]) * scale)
                angle = angle0 + math.radians(float(rng.normal(0, 10)))
            else:
                at = _transform(np.array([rng.uniform((0.1 * w, 0.1 * h), (0.9 * w, 0.9 * h))]),
                                inverse)[0]
                centre = (float(at[0]), float(at[1]))
                angle = float(rng.uniform(0, 2 * math.pi))
            card = _placed(code, _pose(centre, angle, scale, face_size, view), face_size,
                           boxes[code])
            if not (placed and rng.random() < overlap) and any(
                    _overlap_area(card.outline, p.outline) > 0 for p in placed):
                continue
            trial = [*placed, card]
            if all(any(v) for v in _visibility(trial, size)):
                placed = trial
                break
    return placed


def _random_felt(rng: np.random.Generator, size: tuple[int, int], felt: str | None) -> F32:
    """A table surface: one of the dice tables' felts and woods, or cloth of any colour."""
    w, h = size
    if felt is not None:
        if felt not in FELTS:
            raise ValueError(f"unknown felt {felt!r}; known: {sorted(FELTS)}")
        chosen = FELTS[felt]
        return felt_surface(rng, w, h, chosen.colour, chosen.kind, chosen.grain)
    if rng.random() < 0.5:
        chosen = FELTS[list(FELTS)[int(rng.integers(0, len(FELTS)))]]
        return felt_surface(rng, w, h, chosen.colour, chosen.kind, chosen.grain)
    hsv = np.array([[[rng.integers(0, 180), rng.integers(30, 230), rng.integers(40, 220)]]],
                   np.uint8)
    b, g, r = (int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    kind = "wood" if rng.random() < 0.3 else "cloth"
    return felt_surface(rng, w, h, (b, g, r), kind, float(rng.uniform(0.4, 1.2)))


def _lighting(rng: np.random.Generator, size: tuple[int, int], strength: float) -> F32:
    """Room light: brighter toward the lamp's side, uneven, darker in the lens's corners."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    side = float(rng.uniform(0, 2 * math.pi))
    ramp = ((xx - w / 2) * math.cos(side) + (yy - h / 2) * math.sin(side)) / max(w, h)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    shade = 1 + smooth_field(rng, w, h, (3, 3)) * float(rng.uniform(0, 0.08))
    out = (1 + ramp * strength) * shade * (1 - r2 * float(rng.uniform(0, 0.3)))
    result: F32 = out.astype(np.float32)
    return result


def _draw_card(img: F32, face: npt.NDArray[np.uint8], pose: F64, paper: npt.NDArray[np.float32],
               edge: float) -> None:
    """Warps a face into `img` through `pose`, tinted like paper under this light, with the
    card's edge a shade darker than its face."""
    h, w = img.shape[:2]
    fh, fw = face.shape[:2]
    outline = _transform(_quad((0.0, 0.0, float(fw), float(fh))), pose)
    lo = np.floor(outline.min(axis=0)).astype(int) - 1
    hi = np.ceil(outline.max(axis=0)).astype(int) + 2
    x0, y0 = max(0, int(lo[0])), max(0, int(lo[1]))
    x1, y1 = min(w, int(hi[0])), min(h, int(hi[1]))
    if x1 <= x0 or y1 <= y0:
        return
    # Shrinking in one bilinear warp would alias fine print: shrink by area first.
    k = float(np.hypot(*(outline[1] - outline[0]))) / fw
    if k < 0.8:
        small = cv2.resize(face, (max(2, round(fw * k)), max(2, round(fh * k))),
                           interpolation=cv2.INTER_AREA)
        pose = pose @ np.diag([fw / small.shape[1], fh / small.shape[0], 1.0])
        face = np.asarray(small, np.uint8)
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    warped = _f32_of(cv2.warpPerspective(face, shift @ pose, (x1 - x0, y1 - y0),
                                         flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_CONSTANT, borderValue=0))
    alpha = warped[:, :, 3:4] / 255
    rim = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.polylines(rim, [np.round((outline - (x0, y0)) * 16).astype(np.int32)], True, 1.0, 1,
                  cv2.LINE_AA, 4)
    colour = warped[:, :, :3] * paper * (1 - edge * rim[:, :, None])
    roi = img[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + colour * alpha


def _f32_of(array: Any) -> F32:
    out: F32 = np.asarray(array, dtype=np.float32)
    return out


def _shadow(img: F32, outline: F64, offset: Point, blur: float, strength: float) -> None:
    """The soft shadow a card casts on what lies under it."""
    h, w = img.shape[:2]
    mask = np.zeros((h // 2, w // 2), np.float32)
    pts = np.round((outline + offset) * 8).astype(np.int32)
    cv2.fillConvexPoly(mask, pts, 1.0, cv2.LINE_AA, 4)
    mask = _f32_of(cv2.GaussianBlur(mask, (0, 0), max(0.6, blur / 2)))
    img *= (1 - strength * _f32_of(cv2.resize(mask, (w, h))))[:, :, None]


def _glare(img: F32, surface: F32, at: Point, radius: Point, angle: float,
           strength: float) -> None:
    """A specular blob of the lamp on the glossy cards (`surface` says where they are)."""
    h, w = img.shape[:2]
    x0, x1 = max(0, int(at[0] - 3 * radius[0]) - 1), min(w, int(at[0] + 3 * radius[0]) + 2)
    y0, y1 = max(0, int(at[1] - 3 * radius[0]) - 1), min(h, int(at[1] + 3 * radius[0]) + 2)
    if x1 <= x0 or y1 <= y0:
        return
    dx = np.arange(x0, x1, dtype=np.float32)[None, :] - at[0]
    dy = np.arange(y0, y1, dtype=np.float32)[:, None] - at[1]
    c, s = math.cos(angle), math.sin(angle)
    p, q = (dx * c + dy * s) / radius[0], (dy * c - dx * s) / radius[1]
    # A flat-topped blob: the lamp's reflection saturates in its middle.
    g = np.clip(np.exp(-(p * p + q * q) / 2) * 1.6, 0, 1) * strength
    g = (g * surface[y0:y1, x0:x1])[:, :, None]
    roi = img[y0:y1, x0:x1]
    roi[:] = roi + (255 - roi) * g


#: The most a still camera's frame (640 pixels wide) is blurred, as a Gaussian's spread in
#: pixels: a lens focused on the felt still softens a little. A hand-held camera's goes to 1.4.
STILL_DEFOCUS = 0.6


def _post(rng: np.random.Generator, scale: float, *,
          motion_axis: float | None = None, still: bool = False) -> PostProcess:
    """A phone or webcam: exposure, white balance, focus, shake, sensor noise, JPEG. With
    `still`, a camera mounted still and focused: no shake, and no softer than STILL_DEFOCUS
    (the same draws from `rng`, so the frame is otherwise the one a hand-held camera gives)."""
    moving = motion_axis is not None or rng.random() < 0.1
    post = PostProcess(
        gain=float(rng.uniform(0.8, 1.15)),
        balance=(float(rng.uniform(0.85, 1.12)), 1.0, float(rng.uniform(0.85, 1.12))),
        gamma=float(rng.uniform(0.8, 1.25)),
        defocus=0.0 if rng.random() < 0.3 else float(rng.uniform(0.3, 1.4)) * scale,
        motion=(float(rng.uniform(2, 7)) * scale if moving else 0.0,
                motion_axis if motion_axis is not None else float(rng.uniform(0, math.pi))),
        noise=float(rng.uniform(1, 7)),
        chroma=float(rng.uniform(0, 2.5)),
        jpeg=0 if rng.random() < 0.15 else int(rng.integers(35, 96)),
    )
    if still:
        post = replace(post, defocus=min(post.defocus, STILL_DEFOCUS * scale), motion=(0.0, 0.0))
    return post


def _scene_cards(deck: Deck, cards: Sequence[_Placed],
                 size: tuple[int, int]) -> tuple[SceneCard, ...]:
    seen = _visibility(cards, size)
    return tuple(SceneCard(
        c.code, _aabb(c.outline), tuple(_aabb(q) for q in c.quads), tuple(v), deck.name,
        tuple((float(x), float(y)) for x, y in c.outline),
        tuple(tuple((float(x), float(y)) for x, y in q) for q in c.quads))
        for c, v in zip(cards, seen, strict=True))


def render_scene(rng: np.random.Generator, *, size: tuple[int, int] = (640, 480),
                 count: int | None = None, decks: Sequence[Deck | str] | None = None,
                 overlap: float = 0.5, felt: str | None = None,
                 codes: Sequence[str] | None = None, dark_stock: float = 0.0,
                 upright_second_index: bool = False, still_camera: bool = False
                 ) -> CardScene:
    """One labelled frame of cards face up on a table, a pure function of `rng`'s state.

    `count` None draws 1-8 cards, all from one deck picked from `decks` (default: every
    usable installed deck); `codes` names the cards instead (a copy may come twice, as
    from a shoe of several packs); `overlap` is each card's chance of being laid over an
    earlier one so that only a corner of the lower card shows; `felt` fixes the table
    surface (a name in the dice tables' `FELTS`), else any colour of cloth or wood. A card
    that finds no room with an index in view is left out of the frame and its label.
    `dark_stock` is the chance that the deck is printed light on dark card (`DARK_STOCKS`).
    `upright_second_index` draws the deck as if it printed its turned indices upright
    (`second_index_upright`). `still_camera` takes the same frame with a camera mounted
    still and focused, as docs/deployment.md asks of a card table's (`_post`'s `still`);
    otherwise the camera may be hand-held: shaken, or out of focus.
    """
    n = len(codes) if codes is not None else (
        int(rng.integers(1, 9)) if count is None else count)
    if not 1 <= n <= 20:
        raise ValueError(f"count must be 1-20, got {n}")
    if not 0 <= overlap <= 1:
        raise ValueError(f"overlap must be between 0 and 1, got {overlap}")
    unknown = sorted(set(codes or ()) - set(CODES))
    if unknown:
        raise ValueError(f"no such card: {', '.join(unknown)}")
    w, h = size
    scale = w / 640
    deck = _pick_deck(rng, decks)
    colours = _dark_deck(rng, dark_stock)
    if codes is None:
        codes = [CODES[int(i)] for i in rng.choice(len(CODES), size=n, replace=False)]
    view = _tilt(rng, size)
    placed = _layout(rng, deck, codes, size, view, overlap)

    img = _random_felt(rng, size, felt)
    light_dir = float(rng.uniform(0, 2 * math.pi))
    lift = float(rng.uniform(1.5, 7)) * scale
    offset = (math.cos(light_dir) * lift, math.sin(light_dir) * lift)
    shade = float(rng.uniform(0.2, 0.5))
    warm = float(rng.uniform(-0.06, 0.06))
    paper = np.array([1 - warm, 1.0, 1 + warm], np.float32) * float(rng.uniform(0.82, 1.0))
    edge = float(rng.uniform(0.3, 0.7))
    surface = np.zeros((h, w), np.float32)
    for card in placed:
        _shadow(img, card.outline, offset, lift * 1.5 + 1, shade)
        face = _face(deck, card.code)
        if upright_second_index:
            face = second_index_upright(face, index_boxes(deck)[card.code])
        _draw_card(img, _printed(face, colours), card.pose, paper, edge)
        cv2.fillConvexPoly(surface, np.round(card.outline * 16).astype(np.int32), 1.0,
                           cv2.LINE_AA, 4)
    img *= _lighting(rng, size, float(rng.uniform(0.0, 0.5)))[:, :, None]
    cards = _scene_cards(deck, placed, size)
    shown = [b for c in cards for b, v in zip(c.corner_boxes, c.visible_corners, strict=True)
             if v]
    for _ in range(int(rng.integers(0, 4))):
        if shown and rng.random() < 0.4:
            bx, by, bw, bh = shown[int(rng.integers(0, len(shown)))]
            at = (bx + bw * float(rng.uniform(0.2, 0.8)), by + bh * float(rng.uniform(0.2, 0.8)))
        else:
            at = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
        radius = (float(rng.uniform(6, 40)) * scale, float(rng.uniform(3, 20)) * scale)
        _glare(img, surface, at, radius, float(rng.uniform(0, math.pi)),
               float(rng.uniform(0.3, 0.9)))
    return CardScene(finish_frame(img, _post(rng, scale, still=still_camera), rng), cards)


def render_shoe_window(rng: np.random.Generator, *, deck: Deck | str | None = None,
                       code: str | None = None, size: tuple[int, int] = (160, 120),
                       decks: Sequence[Deck | str] | None = None,
                       dark_stock: float = 0.0) -> CardScene:
    """One labelled frame from a dealer shoe's reading camera: the index corner of the card
    being drawn, sliding under the shoe's window, a little turned and off centre, framed by
    the shoe's dark body and lit unevenly by the shoe's lamp. The index is labelled only when
    it is wholly inside the window. `deck` fixes the design, else one of `decks` (default:
    every usable deck); `code` fixes the card, else a random one; `dark_stock` as for
    `render_scene`."""
    w, h = size
    scale = w / 160
    chosen = _as_deck(deck) if deck is not None else _pick_deck(rng, decks)
    card_code = code if code is not None else CODES[int(rng.integers(0, len(CODES)))]
    if card_code not in CODES:
        raise ValueError(f"unknown card code {card_code!r}")
    face = _printed(_face(chosen, card_code), _dark_deck(rng, dark_stock))
    fh, fw = face.shape[:2]
    index = index_boxes(chosen)[card_code][0]

    # The window: most of the frame, a little off centre, rounded corners.
    ww, wh = w * float(rng.uniform(0.6, 0.85)), h * float(rng.uniform(0.6, 0.85))
    wx = (w - ww) / 2 + float(rng.normal(0, 0.04)) * w
    wy = (h - wh) / 2 + float(rng.normal(0, 0.04)) * h
    window = np.zeros((h, w), np.float32)
    radius = round(float(rng.uniform(0.02, 0.12)) * min(ww, wh))
    x0, y0, x1, y1 = round(wx), round(wy), round(wx + ww), round(wy + wh)
    cv2.rectangle(window, (x0 + radius, y0), (x1 - radius, y1), 1.0, -1)
    cv2.rectangle(window, (x0, y0 + radius), (x1, y1 - radius), 1.0, -1)
    for cx in (x0 + radius, x1 - radius):
        for cy in (y0 + radius, y1 - radius):
            cv2.circle(window, (cx, cy), radius, 1.0, -1, cv2.LINE_AA)

    # The card: its index filling about half the window's height, sliding along x.
    target = wh * float(rng.uniform(0.4, 0.75))
    k = target / index[3]
    slide = float(rng.uniform(-0.35, 0.35)) if rng.random() < 0.2 else float(
        rng.uniform(-0.12, 0.12))
    icx = wx + ww * (0.5 + slide) + float(rng.normal(0, 0.05)) * ww
    icy = wy + wh * 0.5 + float(rng.normal(0, 0.06)) * wh
    angle = math.radians(float(rng.normal(0, 4)))
    c, s = math.cos(angle), math.sin(angle)
    centre_face = np.array([index[0] + index[2] / 2, index[1] + index[3] / 2])
    place = np.array([[c * k, -s * k, 0.0], [s * k, c * k, 0.0], [0, 0, 1]])
    place[:2, 2] = np.array([icx, icy]) - place[:2, :2] @ centre_face
    skew = np.eye(3) + np.array([[0, 0, 0], [0, 0, 0], rng.normal(0, 0.0004, 3) * [1, 1, 0]])
    pose: F64 = skew @ place

    inside = _f32_of(cv2.GaussianBlur(window, (0, 0), 0.6 * scale))
    img = np.empty((h, w, 3), np.float32)
    interior = float(rng.uniform(15, 45))
    img[:] = interior
    paper = np.ones(3, np.float32) * float(rng.uniform(0.8, 1.0))
    _draw_card(img, face, pose, paper, float(rng.uniform(0.2, 0.6)))
    # Light from the shoe's lamp: bright at one end of the window, dim at the other.
    lamp = _lighting(rng, size, float(rng.uniform(0.4, 1.2)))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
    hot = np.exp(-((xx - spot[0]) ** 2 + (yy - spot[1]) ** 2) / (2 * (0.3 * ww) ** 2))
    img *= (lamp * (0.75 + float(rng.uniform(0, 0.4)) * hot))[:, :, None]
    # The window's edge shades the card just inside it.
    bevel = _f32_of(cv2.GaussianBlur(window, (0, 0), float(rng.uniform(1.5, 4)) * scale))
    img *= (0.55 + 0.45 * np.minimum(1.0, bevel * 1.3))[:, :, None]
    body = np.empty((h, w, 3), np.float32)
    tone = float(rng.uniform(12, 55))
    grain = 1 + smooth_field(rng, w, h, (6, 5)) * 0.08 + rng.normal(0, 0.03, (h, w)).astype(
        np.float32)
    body[:] = (grain * tone)[:, :, None] * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    img = img * inside[:, :, None] + body * (1 - inside[:, :, None])
    if rng.random() < 0.3:
        surface = window.copy()
        _glare(img, surface, (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))),
               (float(rng.uniform(5, 20)) * scale, float(rng.uniform(3, 10)) * scale),
               float(rng.uniform(0, math.pi)), float(rng.uniform(0.2, 0.7)))

    placed = _placed(card_code, pose, (fw, fh), index_boxes(chosen)[card_code])
    opening = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    # An index's box has a little paper round its print: the print is in view when the box
    # less that margin is.
    ink = [q.mean(axis=0) + SHOE_INK_SHARE * (q - q.mean(axis=0)) for q in placed.quads]
    seen = tuple(_in_frame(q, size) and _overlap_area(p, opening) >= 0.999 * _overlap_area(p, p)
                 and _corners_clear(p, window) for q, p in zip(placed.quads, ink, strict=True))
    card = SceneCard(card_code, _aabb(placed.outline), tuple(_aabb(q) for q in placed.quads),
                     seen, chosen.name, tuple((float(x), float(y)) for x, y in placed.outline),
                     tuple(tuple((float(x), float(y)) for x, y in q) for q in placed.quads))
    post = _post(rng, scale, motion_axis=angle if rng.random() < 0.3 else None)
    return CardScene(finish_frame(img, post, rng), (card,))


def _corners_clear(quad: F64, window: F32) -> bool:
    """Whether all of a quad lies in the window's opening (its rounded corners included)."""
    mask = np.zeros(window.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    return bool(np.all(window[mask > 0] > 0.5))


# --- folders and the command line -------------------------------------------------------

def write_folder(out: Path, count: int, seed: int, *, shoe: bool = False,
                 **scene_kwargs: Any) -> None:
    """Writes `count` scenes as out/images/scene_00000.png... and out/labels.jsonl (DESIGN
    section 10, plus "deck", "seed" and "index"); scene i is `render_scene` (or, with `shoe`,
    `render_shoe_window`) of `np.random.default_rng([seed, i])`."""
    images = out / "images"
    images.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        scene = render_shoe_window(rng, **scene_kwargs) if shoe else render_scene(
            rng, **scene_kwargs)
        name = f"scene_{i:05d}.png"
        if not cv2.imwrite(str(images / name), scene.image):
            raise OSError(f"cannot write {images / name}")
        decks = scene.decks()
        lines.append(json.dumps({"image": f"images/{name}", **scene.label(),
                                 "deck": decks[0] if decks else None, "seed": seed,
                                 "index": i}, ensure_ascii=False, separators=(", ", ": ")))
    (out / "labels.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def fill_cache(decks: Sequence[Deck]) -> None:
    """Renders every face of `decks` into the cache and measures where each prints its
    index, so that nothing drawn later waits for `rsvg-convert`."""
    for deck in decks:
        _deck_folder(deck)
        index_boxes(deck)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m vision.scenes.cards OUT --count N --seed S`: a folder of labelled card
    scenes (or dealer-shoe windows with --shoe). `python -m vision.scenes.cards --fill-cache`
    renders every usable deck's faces into the cache (tools/test.sh does, before the tests,
    so that no test's time limit is spent on it)."""
    parser = argparse.ArgumentParser(prog="python -m vision.scenes.cards",
                                     description=main.__doc__)
    parser.add_argument("out", type=Path, nargs="?",
                        help="folder to write images/ and labels.jsonl into")
    parser.add_argument("--fill-cache", action="store_true",
                        help="only render the decks' faces into the cache "
                             "($HOYLE_CARD_CACHE, else ~/.cache/hoyle/cards)")
    parser.add_argument("--count", type=int, default=100, help="scenes to render (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--shoe", action="store_true",
                        help="dealer-shoe reading windows instead of table scenes")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--held-out", action="store_true",
                       help="only the held-out decks (for judging a recogniser)")
    which.add_argument("--training", action="store_true",
                       help="only the decks a recogniser may be trained on")
    args = parser.parse_args(argv)
    if args.fill_cache:
        fill_cache(installed_decks())
        return 0
    if args.out is None:
        parser.error("give the folder to write the scenes into, or --fill-cache")
    if args.count < 0:
        parser.error(f"--count must not be negative, got {args.count}")
    decks = held_out_decks() if args.held_out else training_decks() if args.training else (
        installed_decks())
    if not decks:
        parser.error("no usable card decks installed: apt install gnome-cards-data "
                     "kdegames-card-data-kf5 librsvg2-bin")
    write_folder(args.out, args.count, args.seed, shoe=args.shoe, decks=decks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
