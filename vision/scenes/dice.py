"""Seeded renderer of labelled overhead dice-table scenes, for training and judging recognisers.

Real photos are few and narrow (DESIGN section 7), so this draws as many labelled frames as
training and testing need, each one a pure function of a numpy `Generator`'s state.

The model: table-plane coordinates are image pixels; the camera is a pinhole at height
`height` (in pixels) above the point `nadir`, looking straight down, so a point at height z
lands at `nadir + (xy - nadir) * height / (height - z)`. Putting the nadir off the frame
centre stands for a camera tilted by up to 25 degrees: every die then shows one or two side
faces as thin strips, as under a real webcam, while a die resting flat keeps a square top.

Labels follow DESIGN section 10; `Scene.label()` adds "states" (flat, cocked, off-table)
and "bed" (the felt rectangle inside the rails). Boxes are the top face of each die.

Command line: `python -m vision.scenes.dice OUT --count N --seed S [--cocked P]
[--off-table P] [--throw]` writes OUT/images/*.png and OUT/labels.jsonl (with --throw, one
throw's frames as OUT/frame_*.png and OUT/labels.jsonl).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.core import Box, Frame

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Point = tuple[float, float]
BGR = tuple[int, int, int]

@dataclass(frozen=True, slots=True)
class DieStyle:
    """How one kind of die looks: body and pip colours (BGR), see-through or not, pip
    diameter as a share of the face side, corner radius as a share of the side."""

    body: BGR
    pip: BGR
    translucent: bool = False
    pip_ratio: float = 0.18
    roundness: float = 0.2


#: The kinds of dice a club table meets, by name.
STYLES: Mapping[str, DieStyle] = MappingProxyType({
    "white": DieStyle((234, 236, 238), (30, 28, 32)),
    "webcam-ivory": DieStyle((212, 216, 192), (50, 30, 28), pip_ratio=0.17, roundness=0.32),
    "ivory": DieStyle((178, 222, 236), (34, 30, 34), roundness=0.26),
    "white-red": DieStyle((232, 234, 236), (42, 36, 178), roundness=0.22),
    "white-small-pips": DieStyle((238, 238, 236), (25, 25, 25), pip_ratio=0.13, roundness=0.12),
    "red-casino": DieStyle((52, 34, 196), (242, 244, 246), translucent=True, pip_ratio=0.16,
                           roundness=0.05),
    "green-casino": DieStyle((90, 150, 40), (240, 244, 240), translucent=True, pip_ratio=0.16,
                             roundness=0.05),
    "black": DieStyle((34, 32, 32), (236, 236, 236), roundness=0.22),
    "black-red": DieStyle((30, 30, 34), (60, 60, 210), pip_ratio=0.19, roundness=0.2),
})


@dataclass(frozen=True, slots=True)
class Felt:
    """A bed surface: its mean colour (BGR) and its texture, "cloth" weave or "wood" grain."""

    colour: BGR
    kind: str
    grain: float = 1.0


#: The bed surfaces, by name; "light-wood" is the bare desk of the real photos.
FELTS: Mapping[str, Felt] = MappingProxyType({
    "green": Felt((52, 112, 30), "cloth"),
    "blue": Felt((128, 64, 24), "cloth"),
    "red": Felt((36, 34, 140), "cloth"),
    "black": Felt((30, 30, 32), "cloth"),
    "grey": Felt((118, 116, 112), "cloth"),
    "wood": Felt((120, 160, 196), "wood"),
    "light-wood": Felt((160, 167, 159), "wood", grain=0.35),
})

_RAILS: tuple[tuple[BGR, str], ...] = (
    ((38, 68, 110), "wood"), ((60, 96, 140), "wood"), ((34, 34, 38), "cloth"),
    ((32, 32, 92), "cloth"), ((70, 60, 54), "cloth"),
)


@dataclass(frozen=True, slots=True)
class SceneDie:
    """One die as drawn: top face value, the top face's box in pixels, how it rests, its
    style's name, and the top face's four corners in the image."""

    value: int
    box: Box
    state: str
    style: str
    corners: tuple[Point, ...] = ()


@dataclass(frozen=True, slots=True)
class Scene:
    """A rendered frame with the truth about every die in it and the bed's rectangle."""

    image: Frame
    dice: tuple[SceneDie, ...]
    bed: Box

    def label(self) -> dict[str, Any]:
        """The DESIGN section 10 label: values of flat dice on the bed, every die's box."""
        return {
            "dice": sorted(d.value for d in self.dice if d.state == "flat"),
            "boxes": [[*(round(v, 1) for v in d.box), d.value] for d in self.dice],
            "states": [d.state for d in self.dice],
            "bed": [round(v, 1) for v in self.bed],
        }


def _f32(array: Any) -> F32:
    """OpenCV's result as the float32 array it is (its stubs only say "an array")."""
    out: F32 = np.asarray(array, dtype=np.float32)
    return out


# --- geometry -----------------------------------------------------------------------------

_NORMALS = np.array([[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]],
                    dtype=np.float64)
_U = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [-1, 0, 0], [1, 0, 0]],
              dtype=np.float64)
_W = np.cross(_NORMALS, _U)
_CUBE = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)],
                 dtype=np.float64)
_FACE_SIGNS = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class _Camera:
    nadir: Point
    height: float

    def project(self, pts: F64) -> F64:
        k = self.height / (self.height - pts[:, 2])
        n = np.array(self.nadir)
        out: F64 = n + (pts[:, :2] - n) * k[:, None]
        return out


@dataclass(frozen=True, slots=True, eq=False)
class _Die:
    values: tuple[int, ...]
    spins: tuple[int, ...]
    centre: tuple[float, float, float]
    half: float
    rot: F64
    state: str
    style: str

    def vertices(self) -> F64:
        out: F64 = np.array(self.centre) + self.half * (_CUBE @ self.rot.T)
        return out

    def footprint(self) -> F64:
        """The die's outline seen from straight above, centred where it stands."""
        pts = (self.half * (_CUBE @ self.rot.T))[:, :2].astype(np.float32)
        hull: F64 = cv2.convexHull(pts).reshape(-1, 2).astype(np.float64)
        return hull

    def top(self) -> int:
        return int(np.argmax((self.rot @ _NORMALS.T)[2]))

    def face_corners(self, k: int) -> F64:
        local = _NORMALS[k] + _FACE_SIGNS[:, :1] * _U[k] + _FACE_SIGNS[:, 1:] * _W[k]
        out: F64 = np.array(self.centre) + self.half * (local @ self.rot.T)
        return out

    def moved(self, x: float, y: float) -> _Die:
        return replace(self, centre=(x, y, self.centre[2]))


def _rotation(yaw: float, tilt: float, toward: float) -> F64:
    """Turn by `yaw` about the vertical, then lean the top by `tilt` toward angle `toward`."""
    c, s = math.cos(yaw), math.sin(yaw)
    rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)
    axis = np.array([[-math.sin(toward)], [math.cos(toward)], [0.0]]) * tilt
    lean, _ = cv2.Rodrigues(axis)
    out: F64 = lean.astype(np.float64) @ rz
    return out


def _new_die(rng: np.random.Generator, half: float, style: str, *, state: str = "flat",
             tilt: float = 0.0, toward: float = 0.0, value: int | None = None) -> _Die:
    """A die at the origin whose faces follow a real die: opposite faces sum to seven."""
    top = int(rng.integers(1, 7)) if value is None else value
    ring = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = ring[int(rng.integers(0, 4))]
    b = [v for v in ring if v not in (a, 7 - a)][int(rng.integers(0, 2))]
    values = (top, 7 - top, a, 7 - a, b, 7 - b)
    spins = tuple(int(v) for v in rng.integers(0, 4, size=6))
    rot = _rotation(float(rng.uniform(0, 2 * math.pi)), tilt, toward)
    lift = -float((_CUBE @ rot.T)[:, 2].min()) * half
    return _Die(values, spins, (0.0, 0.0, lift), half, rot, state, style)


def _axes(a: F64, b: F64) -> F64:
    """The edge normals of two convex outlines: the only lines that can separate them."""
    edges = np.vstack([np.roll(a, -1, axis=0) - a, np.roll(b, -1, axis=0) - b])
    normals = np.stack([-edges[:, 1], edges[:, 0]], axis=1)
    out: F64 = normals / (np.linalg.norm(normals, axis=1, keepdims=True) + 1e-12)
    return out


def _overlap(a: F64, b: F64, tol: float = 0.5) -> bool:
    """Whether two convex outlines interpenetrate by more than `tol` pixels (touching is not)."""
    if np.any(a.max(0) - tol <= b.min(0)) or np.any(b.max(0) - tol <= a.min(0)):
        return False
    axes = _axes(a, b).T
    pa, pb = a @ axes, b @ axes
    return not bool(np.any(pa.max(0) - tol <= pb.min(0)) or np.any(pb.max(0) - tol <= pa.min(0)))


def _inside(poly: F64, rect: Box, margin: float) -> bool:
    x, y, w, h = rect
    return bool(poly[:, 0].min() >= x + margin and poly[:, 1].min() >= y + margin
                and poly[:, 0].max() <= x + w - margin and poly[:, 1].max() <= y + h - margin)


def _contact(fixed: F64, shape: F64, origin: F64, direction: F64) -> float:
    """How far from `origin` along `direction` the outline `shape` must slide to stop
    overlapping `fixed`: where two dice come to rest against each other.

    Along each separating axis the gap opens at one distance; the outlines are apart as
    soon as any axis separates them, so contact is the least of those distances."""
    axes = _axes(fixed, shape).T
    pf, ps = fixed @ axes, (shape + origin) @ axes
    speed = direction @ axes
    forward = speed > 1e-9
    backward = speed < -1e-9
    apart = np.concatenate([
        (pf.max(0)[forward] - ps.min(0)[forward]) / speed[forward],
        (ps.max(0)[backward] - pf.min(0)[backward]) / -speed[backward],
    ])
    return max(0.0, float(apart.min())) if apart.size else 0.0


# --- the table --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PostProcess:
    gain: float
    balance: tuple[float, float, float]
    gamma: float
    defocus: float
    motion: tuple[float, float]
    noise: float
    chroma: float
    jpeg: int


@dataclass(frozen=True, slots=True, eq=False)
class _Table:
    size: tuple[int, int]
    cam: _Camera
    bed: Box
    rails: tuple[float, float, float, float]
    background: F32
    light: F64
    lighting: F32
    post: PostProcess
    clean: bool
    half: float
    shadow: float


@lru_cache(maxsize=4)
def _grid(w: int, h: int) -> tuple[F32, F32]:
    """Row and column indices of every pixel, shared (read-only) by every scene of a size."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    yy.setflags(write=False)
    xx.setflags(write=False)
    return yy, xx


@lru_cache(maxsize=4)
def _radius2(w: int, h: int) -> F32:
    """Each pixel's squared distance from the frame centre, 1 at the corners (vignetting)."""
    yy, xx = _grid(w, h)
    out = _f32(((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2))
    out.setflags(write=False)
    return out


def smooth_field(rng: np.random.Generator, w: int, h: int, cells: tuple[int, int]) -> F32:
    small = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    out = _f32(cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC))
    return out


def felt_surface(rng: np.random.Generator, w: int, h: int, colour: BGR, kind: str,
             grain: float = 1.0) -> F32:
    """Cloth with fibre noise and a fine weave, or wood with wavy grain and streaks."""
    tint = (np.array(colour, dtype=np.float32) * float(rng.uniform(0.88, 1.1))
            * rng.uniform(0.96, 1.04, 3).astype(np.float32))
    if kind == "wood":
        horizontal = bool(rng.integers(0, 2))
        across, along = (h, w) if horizontal else (w, h)
        period = float(rng.uniform(10, 34))
        warp = (smooth_field(rng, along, across, (3, 2)) * float(rng.uniform(0.3, 1.2))
                + smooth_field(rng, along, across, (8, 5)) * float(rng.uniform(0.05, 0.2)))
        phase = np.arange(across, dtype=np.float32)[:, None] / period + warp
        # Late wood: thin dark lines once a year's ring, on a broad light-dark swell.
        offset = phase - np.floor(phase) - 0.5
        lines = np.exp(offset * offset * float(-1 / (2 * rng.uniform(0.04, 0.1) ** 2)))
        swell = np.sin(phase * float(math.pi))
        streak_cells = (max(2, along // 40), across // 2)
        streaks = smooth_field(rng, along, across, streak_cells)
        field = (lines * float(rng.uniform(0.03, 0.08) * grain)
                 + swell * float(rng.uniform(0.0, 0.04) * grain)
                 + streaks * float(rng.uniform(0.005, 0.02) * grain))
        if not horizontal:
            field = np.ascontiguousarray(field.T)
        shade = _f32(1.0 - field)
    else:
        fibre = cv2.resize(rng.standard_normal((h // 2, w // 2), dtype=np.float32), (w, h))
        # Cloth is woven along the table's length: a separable pattern costs one product.
        px, py = (float(2 * math.pi / p) for p in rng.uniform(2.5, 5.0, 2))
        weave = np.outer(np.sin(np.arange(h, dtype=np.float32) * py),
                         np.sin(np.arange(w, dtype=np.float32) * px))
        blotch = smooth_field(rng, w, h, (12, 9))
        shade = (1.0 + fibre * float(rng.uniform(0.02, 0.06) * grain)
                 + weave * float(rng.uniform(0, 0.04) * grain)
                 + blotch * float(rng.uniform(0.01, 0.04) * grain))
    out = np.empty((h, w, 3), np.float32)
    # Channel by channel: numpy's broadcast over a last axis of 3 is several times slower.
    for c in range(3):
        np.multiply(shade, tint[c], out=out[:, :, c])
    return out


def _table(rng: np.random.Generator, size: tuple[int, int], felt_name: str | None,
           need_rail: bool, clean: bool) -> _Table:
    """Everything of a scene but the dice: camera, light, felt, rails, lens and sensor."""
    w, h = size
    scale = w / 640
    hfov = math.radians(float(rng.uniform(48, 72)))
    height = (w / 2) / math.tan(hfov / 2)
    tilt = math.radians(float(rng.uniform(0, 25)))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    nadir = (w / 2 + height * math.tan(tilt) * math.cos(azimuth),
             h / 2 + height * math.tan(tilt) * math.sin(azimuth))
    cam = _Camera(nadir, height)
    top_side = float(rng.uniform(30, 80)) * scale
    half = top_side * height / (height + top_side) / 2

    felt = FELTS[felt_name] if felt_name is not None else FELTS[
        list(FELTS)[int(rng.integers(0, len(FELTS)))]]
    bare = not need_rail and rng.random() < (0.6 if felt.kind == "wood" else 0.2)
    rails = [0.0, 0.0, 0.0, 0.0]
    if not bare:
        for i in range(4):
            limit = (w if i % 2 == 0 else h) * 0.2
            rails[i] = 0.0 if rng.random() < 0.25 else float(rng.uniform(8, limit))
        if need_rail:
            side = int(rng.integers(0, 4))
            room = 2 * half * 2.2 + 12
            limit = (w if side % 2 == 0 else h) * 0.4
            rails[side] = float(rng.uniform(room, max(room, limit)))
    left, top, right, bottom = rails
    bed: Box = (left, top, w - left - right, h - top - bottom)

    background = felt_surface(rng, w, h, felt.colour, felt.kind, felt.grain)
    if not bare:
        colour, kind = _RAILS[int(rng.integers(0, len(_RAILS)))]
        # Only a band of rail shows and nothing on it is read: half resolution will do.
        rail = _f32(cv2.resize(felt_surface(rng, w // 2, h // 2, colour, kind), (w, h)))
        x0, y0, x1, y1 = round(left), round(top), round(w - right), round(h - bottom)
        # The wall's foot is in shade; its top edge (below) catches the light.
        depth = float(rng.uniform(3, 10)) * scale
        fades = []
        for lo, hi, full in ((x0, x1, w), (y0, y1, h)):
            at = np.arange(lo, hi, dtype=np.float32)
            near = np.full(hi - lo, np.inf, np.float32)
            if lo > 0:
                near = np.minimum(near, at - lo)
            if hi < full:
                near = np.minimum(near, hi - 1 - at)
            fades.append(0.55 + 0.45 * np.minimum(1.0, (near + 1) / (depth + 1)))
        wall = np.ones((h, w), np.float32)
        wall[y0:y1, x0:x1] = np.minimum.outer(fades[1], fades[0])
        rail_light = np.full((h, w), 1.0, np.float32)
        edge = max(1, round(2 * scale))
        rail_light[max(0, y0 - edge):y1 + edge, max(0, x0 - edge):x1 + edge] = 1.35
        rail *= rail_light[:, :, None]
        rail[y0:y1, x0:x1] = background[y0:y1, x0:x1]
        background = rail * wall[:, :, None]

    elevation = math.radians(float(rng.uniform(50, 88)))
    light_az = float(rng.uniform(0, 2 * math.pi))
    light = np.array([math.cos(elevation) * math.cos(light_az),
                      math.cos(elevation) * math.sin(light_az), math.sin(elevation)])
    r2 = _radius2(w, h)
    lighting = ((1 + smooth_field(rng, w, h, (3, 3)) * float(rng.uniform(0.02, 0.1)))
                * (1 - r2 * float(rng.uniform(0, 0.3)))).astype(np.float32)

    moving = rng.random() < 0.12
    post = PostProcess(
        gain=float(rng.uniform(0.82, 1.12)),
        balance=(float(rng.uniform(0.9, 1.1)), 1.0, float(rng.uniform(0.9, 1.1))),
        gamma=float(rng.uniform(0.8, 1.25)),
        defocus=0.0 if rng.random() < 0.25 else float(rng.uniform(0.4, 1.6)) * scale,
        motion=(float(rng.uniform(3, 9)) * scale if moving else 0.0,
                float(rng.uniform(0, math.pi))),
        noise=float(rng.uniform(1, 7)),
        chroma=float(rng.uniform(0, 2.5)),
        jpeg=0 if rng.random() < 0.2 else int(rng.integers(35, 96)),
    )
    if clean:
        post = PostProcess(1.0, (1.0, 1.0, 1.0), 1.0, 0.0, (0.0, 0.0), 0.0, 0.0, 0)
    return _Table(size, cam, bed, (left, top, right, bottom), background, light, lighting,
                  post, clean, half, float(rng.uniform(0.1, 0.6)))


# --- placing the dice -------------------------------------------------------------------

def _place(rng: np.random.Generator, table: _Table, states: Sequence[str],
           styles: Sequence[str], half: float) -> list[_Die] | None:
    """Dice in the given states, none overlapping another; None when they do not fit."""
    w, h = table.size
    bed = table.bed
    frame: Box = (0.0, 0.0, float(w), float(h))
    placed: list[_Die] = []
    outlines: list[F64] = []
    order = sorted(range(len(states)), key=lambda i: states[i] == "cocked")
    result: dict[int, _Die] = {}
    for i in order:
        state = states[i]
        for _ in range(80):
            die = _candidate(rng, state, styles[i], half, bed, frame, table, placed, outlines)
            if die is not None:
                placed.append(die)
                outlines.append(die.footprint() + np.array(die.centre[:2]))
                result[i] = die
                break
        else:
            return None
    return [result[i] for i in range(len(states))]


def _candidate(rng: np.random.Generator, state: str, style: str, half: float, bed: Box,
               frame: Box, table: _Table, placed: Sequence[_Die],
               outlines: Sequence[F64]) -> _Die | None:
    """One try at a spot for a die, or None when the try fails."""
    on_bed = [j for j, d in enumerate(placed) if d.state != "off-table"]
    if state == "off-table":
        die = _new_die(rng, half, style, state=state)
        shape = die.footprint()
        left, top, right, bottom = table.rails
        sides = [s for s, width in enumerate((left, top, right, bottom))
                 if width >= np.ptp(shape, axis=0).max() + 6]
        if not sides:
            return None
        side = sides[int(rng.integers(0, len(sides)))]
        band: Box = [(0.0, 0.0, left, float(frame[3])), (0.0, 0.0, float(frame[2]), top),
                     (frame[2] - right, 0.0, right, frame[3]),
                     (0.0, frame[3] - bottom, frame[2], bottom)][side]
        x = float(rng.uniform(band[0], band[0] + band[2]))
        y = float(rng.uniform(band[1], band[1] + band[3]))
        die = die.moved(x, y)
        # Seen from the camera its top leans away from the nadir: all of it must miss the bed.
        if not _inside(table.cam.project(die.vertices()), band, 2.0):
            return None
        return _accept(die, band, 2.0, outlines, placed, table)
    if state == "cocked":
        toward = float(rng.uniform(0, 2 * math.pi))
        tilt = math.radians(float(rng.uniform(16, 40)))
        die = _new_die(rng, half, style, state=state, tilt=tilt, toward=toward)
        shape = die.footprint()
        direction = np.array([math.cos(toward), math.sin(toward)])
        if on_bed and rng.random() < 0.65:
            j = on_bed[int(rng.integers(0, len(on_bed)))]
            anchor = np.array(placed[j].centre[:2])
            t = _contact(outlines[j], shape, anchor, -direction)
            pos = anchor - direction * (t + float(rng.uniform(0, 0.6)))
            return _accept(die.moved(*pos), bed, 0.5, outlines, placed, table)
        # Leaning on the wall: its top side rests against the rail, so it lies along it.
        bx, by, bw, bh = bed
        reach = shape @ direction
        along = np.array([-direction[1], direction[0]])
        centre = np.array([bx + bw / 2, by + bh / 2])
        to_wall = min((bw / 2) / max(abs(direction[0]), 1e-6),
                      (bh / 2) / max(abs(direction[1]), 1e-6))
        pos = (centre + direction * (to_wall - reach.max() - float(rng.uniform(0, 0.6)))
               + along * float(rng.uniform(-0.4, 0.4)) * min(bw, bh))
        return _accept(die.moved(*pos), bed, 0.5, outlines, placed, table)
    die = _new_die(rng, half, style, state=state)
    shape = die.footprint()
    if on_bed and rng.random() < 0.35:
        j = on_bed[int(rng.integers(0, len(on_bed)))]
        angle = float(rng.uniform(0, 2 * math.pi))
        direction = np.array([math.cos(angle), math.sin(angle)])
        anchor = np.array(placed[j].centre[:2])
        t = _contact(outlines[j], shape, anchor, direction)
        pos = anchor + direction * (t + float(rng.uniform(0, 0.6)))
        return _accept(die.moved(*pos), bed, 1.0, outlines, placed, table)
    x = float(rng.uniform(bed[0], bed[0] + bed[2]))
    y = float(rng.uniform(bed[1], bed[1] + bed[3]))
    return _accept(die.moved(x, y), bed, 1.0, outlines, placed, table)


def _hull(points: F64) -> F64:
    out: F64 = cv2.convexHull(points.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    return out


def _accept(die: _Die, region: Box, margin: float, outlines: Sequence[F64],
            placed: Sequence[_Die], table: _Table) -> _Die | None:
    """The die if it stands in `region`, clear of the others and wholly in the frame, and no
    cocked die (taller than a flat one) hides a top face from the camera."""
    outline = die.footprint() + np.array(die.centre[:2])
    if not _inside(outline, region, margin):
        return None
    if any(_overlap(outline, other) for other in outlines):
        return None
    w, h = table.size
    seen = table.cam.project(die.vertices())
    if not _inside(seen, (0.0, 0.0, float(w), float(h)), 1.0):
        return None
    hull = _hull(seen)
    top = table.cam.project(die.face_corners(die.top()))
    for other in placed:
        if "cocked" not in (die.state, other.state):
            continue
        if (_overlap(hull, table.cam.project(other.face_corners(other.top())), 0.0)
                or _overlap(top, _hull(table.cam.project(other.vertices())), 0.0)):
            return None
    return die


# --- drawing ----------------------------------------------------------------------------

_PIPS: dict[int, tuple[Point, ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.27, 0.24), (0.27, 0.5), (0.27, 0.76), (0.73, 0.24), (0.73, 0.5), (0.73, 0.76)),
}
_TEX = 96


def _pip_centres(value: int, spin: int) -> list[Point]:
    """Pip centres on the unit face; `spin` quarter turns tell a 2, 3 or 6 which way it lies."""
    out = []
    for u, v in _PIPS[value]:
        for _ in range(spin % 4):
            u, v = 1 - v, u
        out.append((u, v))
    return out


@lru_cache(maxsize=512)
def _face_texture(style_name: str, value: int, spin: int) -> F32:
    """A face as BGRA floats: body colour, pips, and an alpha that rounds off its corners
    (and lets the felt show through a translucent body)."""
    style = STYLES[style_name]
    t = _TEX
    rgb = np.empty((t, t, 3), np.float32)
    rgb[:] = style.body
    pips = np.zeros((t, t), np.float32)
    radius = style.pip_ratio * t / 2
    for u, v in _pip_centres(value, spin):
        centre = (round(u * t * 16), round(v * t * 16))
        cv2.circle(pips, centre, round(radius * 16), 1.0, -1, cv2.LINE_AA, 4)
    soft = cv2.GaussianBlur(pips, (0, 0), 0.8)
    # A drilled pip is darker at its rim; a painted pip on a dark die is flat.
    rim = np.clip(soft * (1 - soft) * 4, 0, 1) * (0.0 if style.translucent else 0.25)
    pip_colour = np.array(style.pip, np.float32)
    rgb = rgb * (1 - soft[:, :, None]) + pip_colour * soft[:, :, None]
    rgb *= 1 - rim[:, :, None]
    inset = style.roundness * t * 0.35
    corner = max(1.0, style.roundness * t)
    mask = np.zeros((t, t), np.float32)
    lo, hi = inset + corner, t - 1 - inset - corner
    cv2.rectangle(mask, (round(lo), round(inset)), (round(hi), round(t - 1 - inset)), 1.0, -1)
    cv2.rectangle(mask, (round(inset), round(lo)), (round(t - 1 - inset), round(hi)), 1.0, -1)
    for cx in (lo, hi):
        for cy in (lo, hi):
            cv2.circle(mask, (round(cx), round(cy)), round(corner), 1.0, -1, cv2.LINE_AA)
    mask = _f32(cv2.GaussianBlur(mask, (0, 0), 1.2 + style.roundness * 4))
    opacity = 0.62 if style.translucent else 1.0
    alpha = mask * (opacity + (1 - opacity) * soft)
    out: F32 = np.dstack([rgb, alpha]).astype(np.float32)
    out.setflags(write=False)
    return out


def _shade(table: _Table, normal: F64, ambient: float) -> float:
    return ambient + (1 - ambient) * max(0.0, float(normal @ table.light)) / max(
        0.3, float(table.light[2]))


def _draw_die(img: F32, die: _Die, table: _Table, rng: np.random.Generator,
              ambient: float) -> SceneDie:
    """Draws one die into `img` and says what was drawn."""
    style = STYLES[die.style]
    cam = table.cam
    verts = cam.project(die.vertices())
    top_k = die.top()
    top = cam.project(die.face_corners(top_k))
    xs, ys = top[:, 0], top[:, 1]
    seen = SceneDie(die.values[top_k],
                    (float(xs.min()), float(ys.min()), float(np.ptp(xs)), float(np.ptp(ys))),
                    die.state, die.style, tuple((float(x), float(y)) for x, y in top))
    h, w = img.shape[:2]
    x0, y0 = max(0, math.floor(verts[:, 0].min()) - 2), max(0, math.floor(verts[:, 1].min()) - 2)
    x1, y1 = min(w, math.ceil(verts[:, 0].max()) + 3), min(h, math.ceil(verts[:, 1].max()) + 3)
    if x1 <= x0 or y1 <= y0:
        return seen
    roi = img[y0:y1, x0:x1]
    origin = np.array([x0, y0], np.float64)
    side = float(np.linalg.norm(top[1] - top[0]))
    body = np.array(style.body, np.float32)
    opacity = 0.62 if style.translucent else 1.0

    hull = cv2.convexHull(verts.astype(np.float32)).reshape(-1, 2).astype(np.float64) - origin
    centroid = hull.mean(axis=0)
    radius = max(0.5, style.roundness * side * 0.5)
    spokes = hull - centroid
    lengths = np.linalg.norm(spokes, axis=1, keepdims=True) + 1e-9
    core = centroid + spokes * np.clip(1 - radius * 1.2 / lengths, 0.2, 1)
    mask = np.zeros(roi.shape[:2], np.float32)
    pts = np.round(core * 16).astype(np.int32)
    cv2.fillConvexPoly(mask, pts, 1.0, cv2.LINE_AA, 4)
    cv2.polylines(mask, [pts], True, 1.0, max(1, round(radius * 2)), cv2.LINE_AA, 4)
    # Rounded edges of light plastic glow from light scattered inside; dark dice's do not.
    edge_colour = body * (0.8 * ambient + (0.18 if style.body[1] > 128 else 0.1))
    a = (mask * opacity)[:, :, None]
    roi[:] = roi * (1 - a) + edge_colour * a

    cam_pos = np.array([*cam.nadir, cam.height])
    src = np.array([[0, 0], [_TEX, 0], [_TEX, _TEX], [0, _TEX]], np.float32)
    normals = _NORMALS @ die.rot.T
    top_matrix: npt.NDArray[np.float64] | None = None
    for k in range(6):
        corners = die.face_corners(k)
        if float(normals[k] @ (cam_pos - corners.mean(axis=0))) <= 1e-6:
            continue
        quad = (cam.project(corners) - origin).astype(np.float32)
        matrix = cv2.getPerspectiveTransform(src, quad)
        if k == top_k:
            top_matrix = np.asarray(matrix, np.float64)
        tex = _face_texture(die.style, die.values[k], die.spins[k])
        warped = cv2.warpPerspective(tex, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        shade = _shade(table, normals[k], ambient)
        alpha = warped[:, :, 3:4]
        roi[:] = roi * (1 - alpha) + warped[:, :, :3] * shade * alpha

    if not table.clean and top_matrix is not None and rng.random() < 0.55:
        _glare(roi, die, top_matrix, side, rng)
    return seen


def _glare(roi: F32, die: _Die, matrix: F64, side: float, rng: np.random.Generator) -> None:
    """A specular highlight on the top face, often right on a pip where it hides one."""
    top_k = die.top()
    if rng.random() < 0.45:
        pips = _pip_centres(die.values[top_k], die.spins[top_k])
        u, v = pips[int(rng.integers(0, len(pips)))]
    else:
        u, v = (float(c) for c in rng.uniform(0.15, 0.85, 2))
    at = cv2.perspectiveTransform(np.array([[[u * _TEX, v * _TEX]]], np.float32), matrix)[0, 0]
    sx, sy = (float(s) for s in rng.uniform(0.03, 0.13, 2) * side + 0.8)
    angle = float(rng.uniform(0, math.pi))
    strength = float(rng.uniform(0.35, 0.95))
    dx = np.arange(roi.shape[1], dtype=np.float32)[None, :] - float(at[0])
    dy = np.arange(roi.shape[0], dtype=np.float32)[:, None] - float(at[1])
    c, s = math.cos(angle), math.sin(angle)
    p, q = (dx * c + dy * s) / sx, (dy * c - dx * s) / sy
    g = (np.exp(-(p * p + q * q) / 2) * strength)[:, :, None]
    roi[:] = roi + (252 - roi) * g


def _shadows(img: F32, dice: Sequence[_Die], table: _Table) -> None:
    """Soft shadows cast away from the light; a translucent die's shadow takes its colour."""
    h, w = img.shape[:2]
    small = np.zeros((h // 2, w // 2, 3), np.float32)
    light = table.light
    reach = light[:2] / max(light[2], 0.2)
    for die in dice:
        style = STYLES[die.style]
        verts = die.vertices()
        cast = np.vstack([verts[:, :2] - verts[:, 2:3] * reach, verts[:, :2]])
        hull = cv2.convexHull((cast * 8).astype(np.int32))
        if style.translucent:
            colour = table.shadow * 0.6 * (1 - 0.75 * np.array(style.body, np.float64) / 255)
        else:
            colour = np.full(3, table.shadow)
        cv2.fillConvexPoly(small, hull, tuple(float(c) for c in colour), cv2.LINE_AA, 4)
    sigma = max(1.0, table.half * 0.18)
    small = cv2.GaussianBlur(small, (0, 0), sigma)
    img *= 1 - cv2.resize(small, (w, h))


def _with_clutter(rng: np.random.Generator, table: _Table, dice: Sequence[_Die]) -> _Table:
    """The table with things that are not dice left about: cables, a laptop's or tray's
    edge, chips, white labels with marks on them (the nearest thing to a die); none of them
    touches a die. Bare desks get them on the bed, club tables mostly on the rails."""
    bare = not any(table.rails)
    if rng.random() > (0.6 if bare else 0.3):
        return table
    w, h = table.size
    taken = np.zeros((h, w), np.uint8)
    for die in dice:
        hull = cv2.convexHull(np.round(table.cam.project(die.vertices())).astype(np.int32))
        cv2.fillConvexPoly(taken, hull, 255)
    taken = np.asarray(cv2.dilate(taken, np.ones((9, 9), np.uint8)), np.uint8)
    if not bare:
        bx, by, bw, bh = (round(v) for v in table.bed)
        taken[by:by + bh, bx:bx + bw] = 255
    img = table.background.copy()
    for _ in range(int(rng.integers(1, 4))):
        for _ in range(6):
            shape = np.zeros((h, w), np.uint8)
            colour = _clutter_shape(rng, shape, w, h)
            if not np.any(shape & taken):
                break
        else:
            continue
        x, y, bw, bh = cv2.boundingRect(shape)
        x0, y0, x1, y1 = max(0, x - 16), max(0, y - 16), min(w, x + bw + 16), min(h, y + bh + 16)
        roi = img[y0:y1, x0:x1]
        alpha = cv2.GaussianBlur(shape[y0:y1, x0:x1].astype(np.float32) / 255, (0, 0), 0.7)
        shadow = cv2.GaussianBlur(np.roll(alpha, (3, 3), axis=(0, 1)), (0, 0), 4)
        roi *= (1 - 0.35 * shadow)[:, :, None]
        roi[:] = roi * (1 - alpha[:, :, None]) + colour * alpha[:, :, None]
        if colour.min() > 150:
            _label_marks(rng, img, shape)
        taken |= np.asarray(cv2.dilate(shape, np.ones((5, 5), np.uint8)), np.uint8)
    return replace(table, background=img)


def _clutter_shape(rng: np.random.Generator, shape: npt.NDArray[np.uint8], w: int,
                   h: int) -> F32:
    """Draws one thing's outline into `shape`; returns its colour (BGR floats)."""
    kind = int(rng.integers(0, 4))
    at = rng.uniform((0, 0), (w, h))
    if kind == 0:
        points = np.cumsum(rng.normal(0, w / 8, (5, 2)), axis=0) + at
        curve = cv2.approxPolyDP(points.astype(np.int32), 1, False)
        cv2.polylines(shape, [curve], False, 255, int(rng.integers(5, 16)), cv2.LINE_AA)
        grey = float(rng.choice([25.0, 40.0, 225.0]))
        return np.array([grey, grey, grey], np.float32)
    if kind == 1:
        size = rng.uniform(0.3, 0.8, 2) * (w, h)
        box = ((float(at[0]), float(at[1])), (float(size[0]), float(size[1])),
               float(rng.uniform(0, 90)))
        cv2.fillConvexPoly(shape, np.round(cv2.boxPoints(box)).astype(np.int32), 255)
        grey = float(rng.uniform(120, 200))
        return np.array([grey * 1.06, grey, grey * 0.95], np.float32)
    if kind == 2:
        radius = int(rng.integers(12, 30))
        cv2.circle(shape, (int(at[0]), int(at[1])), radius, 255, -1, cv2.LINE_AA)
        return rng.uniform(30, 220, 3).astype(np.float32)
    size = rng.uniform(15, 60, 2)
    box = ((float(at[0]), float(at[1])), (float(size[0]), float(size[1])),
           float(rng.uniform(0, 90)))
    cv2.fillConvexPoly(shape, np.round(cv2.boxPoints(box)).astype(np.int32), 255)
    grey = float(rng.uniform(200, 245))
    return np.array([grey, grey, grey], np.float32)


def _label_marks(rng: np.random.Generator, img: F32, shape: npt.NDArray[np.uint8]) -> None:
    """Dark dots and dashes on a white thing: print on a label, the look-alike of pips."""
    ys, xs = np.nonzero(shape)
    if xs.size == 0:
        return
    for _ in range(int(rng.integers(2, 7))):
        k = int(rng.integers(0, xs.size))
        x, y = int(xs[k]), int(ys[k])
        if rng.random() < 0.5:
            cv2.circle(img, (x, y), int(rng.integers(2, 5)), (40, 40, 40), -1, cv2.LINE_AA)
        else:
            cv2.rectangle(img, (x, y), (x + int(rng.integers(3, 12)), y + 3), (40, 40, 40), -1)


def _compose(table: _Table, dice: Sequence[_Die], rng: np.random.Generator) -> tuple[
        F32, list[SceneDie]]:
    """The scene in linear light before lens and sensor, and the truth about each die."""
    img = table.background.copy()
    _shadows(img, dice, table)
    ambient = float(rng.uniform(0.68, 0.97))
    nadir = np.array(table.cam.nadir)
    order = sorted(range(len(dice)),
                   key=lambda i: -float(np.linalg.norm(np.array(dice[i].centre[:2]) - nadir)))
    seen: dict[int, SceneDie] = {}
    for i in order:
        seen[i] = _draw_die(img, dice[i], table, rng, ambient)
    img *= table.lighting[:, :, None]
    return img, [seen[i] for i in range(len(dice))]


def finish_frame(img: F32, post: PostProcess, rng: np.random.Generator,
                 flicker: float = 1.0) -> Frame:
    """Lens and sensor: blur, exposure, white balance, gamma, noise, 8 bits, JPEG."""
    out = img
    if post.defocus > 0:
        out = _f32(cv2.GaussianBlur(out, (0, 0), post.defocus))
    if post.motion[0] > 0:
        out = _motion_blur(out, *post.motion)
    levels = np.arange(256, dtype=np.float32)[:, None] * (
        np.array(post.balance, np.float32) * (post.gain * flicker))
    curve = 255 * (np.clip(levels, 0, 255) / 255) ** (1 / post.gamma)
    out = _f32(cv2.LUT(cv2.convertScaleAbs(out), curve.astype(np.float32).reshape(256, 1, 3)))
    if post.noise > 0:
        h, w = out.shape[:2]
        luma_bank, chroma_bank = _noise_bank(w, h)
        y, x = (int(v) for v in rng.integers(0, (h, w)))
        luma = luma_bank[y:y + h, x:x + w] * post.noise
        # Chroma noise comes in blotches bigger than a pixel once the camera demosaics it.
        blotches = chroma_bank[y // 2:y // 2 + h // 2, x // 2:x // 2 + w // 2] * post.chroma
        out = _f32(out + luma[:, :, None] + cv2.resize(blotches, (w, h)))
    frame: Frame = np.asarray(cv2.convertScaleAbs(out), np.uint8)
    if post.jpeg:
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, post.jpeg])
        if ok:
            frame = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    return frame


@lru_cache(maxsize=2)
def _noise_bank(w: int, h: int) -> tuple[F32, F32]:
    """Sensor noise, made once per frame size: each frame reads it from a random offset,
    which is as random for a recogniser and a tenth of the cost of fresh noise."""
    bank = np.random.default_rng(7)
    luma = bank.standard_normal((2 * h, 2 * w), dtype=np.float32)
    chroma = bank.standard_normal((h, w, 3), dtype=np.float32)
    luma.setflags(write=False)
    chroma.setflags(write=False)
    return luma, chroma


def _motion_blur(img: F32, length: float, angle: float) -> F32:
    size = max(3, math.ceil(length) | 1)
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(kernel, (round((c - dx) * 16), round((c - dy) * 16)),
             (round((c + dx) * 16), round((c + dy) * 16)), 1.0, 1, cv2.LINE_AA, 4)
    kernel /= max(float(kernel.sum()), 1e-6)
    out = _f32(cv2.filter2D(img, -1, kernel))
    return out


# --- the public renderers ---------------------------------------------------------------

def _plan(rng: np.random.Generator, count: int | None, cocked: float, off_table: float,
          styles: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """How many dice, how each rests, and each die's style (usually one style per throw)."""
    n = int(rng.integers(1, 10)) if count is None else count
    if not 0 <= n <= 20:
        raise ValueError(f"count must be 0-20, got {n}")
    names = list(styles) if styles is not None else list(STYLES)
    unknown = [s for s in names if s not in STYLES]
    if unknown or not names:
        raise ValueError(f"unknown die styles {unknown}; known: {sorted(STYLES)}")
    states = []
    for _ in range(n):
        r = rng.random()
        states.append("off-table" if r < off_table else
                      "cocked" if r < off_table + (1 - off_table) * cocked else "flat")
    main = names[int(rng.integers(0, len(names)))]
    mixed = rng.random() < 0.25
    chosen = [names[int(rng.integers(0, len(names)))] if mixed else main for _ in range(n)]
    return states, chosen


def _stage(rng: np.random.Generator, size: tuple[int, int], *, count: int | None = None,
           cocked: float = 0.0, off_table: float = 0.0, styles: Sequence[str] | None = None,
           felt: str | None = None, clean: bool = False) -> tuple[_Table, list[_Die]]:
    """A table and dice resting on it, fitted by shrinking the dice when they do not fit."""
    if felt is not None and felt not in FELTS:
        raise ValueError(f"unknown felt {felt!r}; known: {sorted(FELTS)}")
    states, chosen = _plan(rng, count, cocked, off_table, styles)
    table = _table(rng, size, felt, "off-table" in states, clean)
    half = table.half
    for _ in range(8):
        dice = _place(rng, table, states, chosen, half)
        if dice is not None:
            return (table if clean else _with_clutter(rng, table, dice)), dice
        half *= 0.85
    raise ValueError(f"cannot fit {len(states)} dice on a {size[0]}x{size[1]} table")


def render_scene(rng: np.random.Generator, *, size: tuple[int, int] = (640, 480),
                 count: int | None = None, cocked: float = 0.0, off_table: float = 0.0,
                 styles: Sequence[str] | None = None, felt: str | None = None,
                 clean: bool = False) -> Scene:
    """One labelled frame of dice at rest, a pure function of `rng`'s state.

    `count` None draws 1-9 dice; `cocked` and `off_table` are each die's chance of resting
    tilted or outside the bed; `styles` limits the die styles (names in `STYLES`), `felt`
    fixes the bed surface (a name in `FELTS`). `clean` leaves out glare, blur, noise and
    JPEG, for checking labels against pixels.
    """
    table, dice = _stage(rng, size, count=count, cocked=cocked, off_table=off_table,
                         styles=styles, felt=felt, clean=clean)
    img, seen = _compose(table, dice, rng)
    return Scene(finish_frame(img, table.post, rng), tuple(seen), table.bed)


def render_throw(rng: np.random.Generator, *, size: tuple[int, int] = (640, 480),
                 moving: int = 6, still: int = 8, **scene_kwargs: Any) -> list[Scene]:
    """The frames a camera sees during one throw: `moving` frames of dice sliding and
    tumbling to where they come to rest, then `still` frames of the resting dice that differ
    only by sensor noise and a flicker of the light. Dice that end off the table lie there
    from the first frame; the rest slide in together from one side of the bed."""
    table, final = _stage(rng, size, **scene_kwargs)
    frames: list[Scene] = []
    bed = table.bed
    rolling = [i for i, d in enumerate(final) if d.state != "off-table"]
    start = np.zeros(2)
    if rolling:
        # The whole throw slides in from one side, as far as the bed lets it.
        outlines = np.vstack([final[i].footprint() + np.array(final[i].centre[:2])
                              for i in rolling])
        lo = np.array(bed[:2]) - outlines.min(axis=0) + table.half * 0.5
        hi = np.array(bed[:2]) + np.array(bed[2:]) - outlines.max(axis=0) - table.half * 0.5
        angle = float(rng.uniform(0, 2 * math.pi))
        travel = np.array([math.cos(angle), math.sin(angle)]) * size[0]
        start = np.clip(travel, np.minimum(lo, 0), np.maximum(hi, 0))
    step_size = float(np.linalg.norm(start)) / max(moving, 1)
    for k in range(moving if rolling else 0):
        offset = start * (moving - k) / moving
        dice = list(final)
        outlines_k: list[F64] = []
        for i, die in enumerate(final):
            if i not in rolling:
                outlines_k.append(die.footprint() + np.array(die.centre[:2]))
                continue
            x, y = die.centre[0] + offset[0], die.centre[1] + offset[1]
            tilt = math.radians(float(rng.uniform(0, 60)))
            tumbling = _new_die(rng, die.half, die.style, state="cocked" if tilt > 0.05 else
                                "flat", tilt=tilt, toward=float(rng.uniform(0, 2 * math.pi)))
            tumbling = tumbling.moved(x, y)
            outline = tumbling.footprint() + np.array([x, y])
            if any(_overlap(outline, o) for o in outlines_k):
                tumbling = replace(die, centre=(x, y, die.centre[2]))
                outline = tumbling.footprint() + np.array([x, y])
            dice[i] = tumbling
            outlines_k.append(outline)
        img, seen = _compose(table, dice, rng)
        streak = replace(table.post, motion=(min(25.0, max(2.0, step_size * 0.5)),
                                             math.atan2(start[1], start[0])))
        blurred = finish_frame(_motion_only(img, dice, table, streak),
                               replace(streak, motion=(0, 0)), rng)
        frames.append(Scene(blurred, tuple(seen), bed))
    img, seen = _compose(table, final, rng)
    for _ in range(still):
        flicker = 1 + float(rng.normal(0, 0.012))
        frames.append(Scene(finish_frame(img, table.post, rng, flicker), tuple(seen), bed))
    return frames


def _motion_only(img: F32, dice: Sequence[_Die], table: _Table, post: PostProcess) -> F32:
    """Streaks the dice, not the still table around them."""
    length, angle = post.motion
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    for die in dice:
        hull = cv2.convexHull((table.cam.project(die.vertices()) * 16).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1.0, cv2.LINE_AA, 4)
    size = max(3, int(length) * 2 + 1)
    mask = _f32(cv2.GaussianBlur(cv2.dilate(mask, np.ones((size, size), np.uint8)), (0, 0),
                                 length / 2))[:, :, None]
    out: F32 = img * (1 - mask) + _motion_blur(img, length, angle) * mask
    return out


# --- folders and the command line -------------------------------------------------------

def _jsonl(label: dict[str, Any]) -> str:
    return json.dumps(label, separators=(", ", ": "))


def write_folder(out: Path, count: int, seed: int, **scene_kwargs: Any) -> None:
    """Writes `count` scenes as out/images/scene_00000.png... and out/labels.jsonl; scene i
    is `render_scene(np.random.default_rng([seed, i]), **scene_kwargs)`."""
    images = out / "images"
    images.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(count):
        scene = render_scene(np.random.default_rng([seed, i]), **scene_kwargs)
        name = f"scene_{i:05d}.png"
        if not cv2.imwrite(str(images / name), scene.image):
            raise OSError(f"cannot write {images / name}")
        lines.append(_jsonl({"image": f"images/{name}", **scene.label(), "seed": seed,
                             "index": i}))
    (out / "labels.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def write_throw_folder(out: Path, seed: int, *, moving: int = 6, still: int = 8,
                       **scene_kwargs: Any) -> None:
    """Writes one throw (`render_throw(np.random.default_rng(seed))`) as out/frame_000.png...
    and out/labels.jsonl, whose moving frames say "moving": true."""
    out.mkdir(parents=True, exist_ok=True)
    frames = render_throw(np.random.default_rng(seed), moving=moving, still=still,
                          **scene_kwargs)
    lines = []
    for k, scene in enumerate(frames):
        name = f"frame_{k:03d}.png"
        if not cv2.imwrite(str(out / name), scene.image):
            raise OSError(f"cannot write {out / name}")
        lines.append(_jsonl({"image": name, **scene.label(), "moving": k < len(frames) - still,
                             "seed": seed, "frame": k}))
    (out / "labels.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m vision.scenes.dice OUT --count N --seed S`: a folder of labelled scenes."""
    parser = argparse.ArgumentParser(prog="python -m vision.scenes.dice", description=main.__doc__)
    parser.add_argument("out", type=Path, help="folder to write images/ and labels.jsonl into")
    parser.add_argument("--count", type=int, default=100, help="scenes to render (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--cocked", type=float, default=0.0, help="chance a die is cocked")
    parser.add_argument("--off-table", type=float, default=0.0,
                        help="chance a die is off the table")
    parser.add_argument("--throw", action="store_true",
                        help="write one throw's frames instead (--count is ignored)")
    args = parser.parse_args(argv)
    for name, p in (("--cocked", args.cocked), ("--off-table", args.off_table)):
        if not 0 <= p <= 1:
            parser.error(f"{name} must be between 0 and 1, got {p}")
    if args.count < 0:
        parser.error(f"--count must not be negative, got {args.count}")
    kwargs = {"cocked": args.cocked, "off_table": args.off_table}
    if args.throw:
        write_throw_folder(args.out, args.seed, **kwargs)
    else:
        write_folder(args.out, args.count, args.seed, **kwargs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
