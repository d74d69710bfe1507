"""Trains the dice models committed as vision/models/dice_detector.onnx, dice_cnn.onnx and
dice_tilt.onnx.

To regenerate them (same seeds and data give the same weights on the same machine, up to
float rounding; about half an hour on two busy cores, most of it fitting):

    .venv/bin/pip install torch==2.13.0 onnx     # for training only; running needs neither
    .venv/bin/python -m vision.train_dice --cache /tmp/dice_cache

from the repository root, with the real photos in ../shared/data/dice (labels.jsonl and
images/). The training frames are the real photos images/train_* except the development
split (every fifth by name, see `real_split`; their boxes are around the top face's pip
group, so a die's side is taken from the box, except a one's, whose box is drawn anyhow:
its side is left to the detector), each also zoomed in and out (`zoomed`), and SCENES
scenes rendered with
vision/scenes/dice.py from seeds TRAIN_SEED, TRAIN_SEED + 1, ... (one in three with cocked
and off-table dice; their boxes are the whole top face). First the detector is fitted: a
small fully convolutional net that maps the frame at 320x240 to a heatmap of top-face
centres (CenterNet's focal loss) and each die's log size. Then the detector runs on every
training frame; each peak is cropped from the full frame (`vision.dice.crop_die`) and
labelled by the die whose centre it is near (face 1-6 or "cocked"), or "none" (clutter,
shadows, pieces of dice: the detector's own mistakes, which the reader learns to reject);
each labelled die is cropped at its true centre too. The reader, a small CNN, is fitted on
those crops under random turns, flips, shifts, scales and blur. Last the tilt check
(vision/models/dice_tilt.onnx) is fitted: each labelled die, where the exported detector
finds it and at its true centre, cut wider and closer (`vision.dice.TILT_CROP`,
`TILT_SCALE`), flat or cocked, on the same frames and on TILT_SCENES rendered scenes of its
own with half their dice cocked; the cocked ones are seen COCKED_WEIGHT times over, the
real photos' dice TILT_REAL_WEIGHT times (`--tilt-only` fits just it, on the detector
file as it is). All are seeded and exported
to ONNX for `vision.nets`. The held-out real photos images/valid_* are never read
here. `--dev` prints the new models' figures on the development photos and on rendered
scenes from DEV_SEED on (seeds used nowhere else); `--cache DIR` keeps the rendered frames
between runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.core import check_frame
from vision.dice import (
    COCKED,
    CROP,
    CROP_SCALE,
    DEFAULT_DETECTOR,
    DEFAULT_MODEL,
    DEFAULT_TILT,
    DETECT_SIZE,
    NOT_A_DIE,
    STRIDE,
    TILT_CROP,
    TILT_SCALE,
    Detector,
    DiceReader,
    crop_die,
    normalise,
    peaks,
)

if TYPE_CHECKING:
    # Only a type here: the scene renderer is imported where it renders (in the pool).
    from vision.scenes.dice import Scene

REPO = Path(__file__).resolve().parent.parent
REAL = REPO.parent / "shared" / "data" / "dice"
TRAIN_SEED = 1000
SCENES = 1500
#: Rendered scenes for judging during development; the tests and bench use others.
DEV_SEED = 500_000
#: Real photos are few: each is seen this many times per epoch beside the rendered scenes.
REAL_WEIGHT = 2
#: A real box holds the pip group; a die's top face is this much wider. A one's box is drawn
#: anyhow (8 to 86 pixels round one pip), so a one's side is unknown: UNKNOWN_SIDE.
PIP_GROUP = 1.4
UNKNOWN_SIDE = 0.0
#: A die of unknown side draws a heat spot as wide as a die this many pixels across.
TYPICAL_SIDE = 56.0
#: Each real photo is also seen zoomed in and out by factors from these ranges, so the
#: detector learns dice nearer and farther than the webcam's.
ZOOM_IN, ZOOM_OUT = (1.3, 1.9), (0.55, 0.8)
DETECT_EPOCHS = 5
READ_EPOCHS = 12
#: Peaks this high are harvested for the reader: lower than the runtime's, for hard negatives.
HARVEST = 0.12
#: The reader's training patches: this many pixels, covering this many crops' sides.
PATCH, PATCH_SCALE = 64, 1.6
WIDTH, HEIGHT = DETECT_SIZE
CELLS = (HEIGHT // STRIDE, WIDTH // STRIDE)
#: The detector learns on windows of this many cells (rows, columns) of the frame.
WINDOW = (36, 48)

#: The tilt check: its seed, epochs, how many times over a cocked die is seen per epoch
#: (they are few), and the patches it is cut from (pixels, and crops' sides across).
TILT_SEED = TRAIN_SEED + 7
TILT_EPOCHS = 18
COCKED_WEIGHT = 3
#: The tilt check also learns from TILT_SCENES scenes of its own, from TILT_SCENE_SEED on,
#: half their dice cocked (`tilt_scene_frame`), and sees each real photo's dice
#: TILT_REAL_WEIGHT times an epoch, so that its many cocked dice do not make it call a
#: flat die on a real table tilted.
TILT_SCENE_SEED, TILT_SCENES = 3_000_000, 4000
TILT_REAL_WEIGHT = 4
TILT_PATCH, TILT_PATCH_SCALE = 96, 1.5

#: Bumped whenever the frames `collect` makes change, so an old cache is not reused.
CACHE_VERSION = 2

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]
#: One labelled die: centre x, y and side in frame pixels, and its class.
Die = tuple[float, float, float, int]


def real_split(folder: Path = REAL) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The real training photos as (train, dev) label lines: dev is every fifth by name."""
    lines = [json.loads(line) for line in (folder / "labels.jsonl").read_text().splitlines()
             if line.strip()]
    train = sorted((e for e in lines if Path(e["image"]).name.startswith("train_")),
                   key=lambda e: str(e["image"]))
    return ([e for i, e in enumerate(train) if i % 5], [e for i, e in enumerate(train)
                                                        if not i % 5])


def real_frame(entry: dict[str, Any]) -> tuple[U8, list[Die]]:
    """One real photo and its dice (every die on them lies flat on the bed)."""
    path = REAL / str(entry["image"])
    frame = check_frame(cv2.imread(str(path), cv2.IMREAD_COLOR), str(path))
    dice = [(x + w / 2, y + h / 2, UNKNOWN_SIDE if v == 1 else max(w, h) * PIP_GROUP,
             int(v) - 1) for x, y, w, h, v in entry["boxes"]]
    return frame, dice


def zoomed(frame: U8, dice: Sequence[Die], factor: float,
           rng: np.random.Generator) -> tuple[U8, list[Die]]:
    """The frame scaled by `factor` about a point near its dice (mirrored at the borders when
    it shrinks), with the dice that stay in the frame moved and scaled alike."""
    h, w = frame.shape[:2]
    # A die's body and shadow reach past its top face.
    reach = 1.6 * max((d[2] or TYPICAL_SIDE) for d in dice) if dice else 0.0
    left, right = min((d[0] for d in dice), default=w / 2), max((d[0] for d in dice), default=w / 2)
    top, bottom = min((d[1] for d in dice), default=h / 2), max((d[1] for d in dice), default=h / 2)
    # Zoomed in no further than keeps every die wholly in the frame.
    factor = min(factor, max(1.0, w / (right - left + reach), h / (bottom - top + reach)))
    slack_x = max(w / factor - (right - left + reach), 0.0) / 2
    slack_y = max(h / factor - (bottom - top + reach), 0.0) / 2
    cx = (left + right) / 2 + float(rng.uniform(-slack_x, slack_x))
    cy = (top + bottom) / 2 + float(rng.uniform(-slack_y, slack_y))
    m = np.array([[factor, 0, w / 2 - factor * cx], [0, factor, h / 2 - factor * cy]],
                 np.float32)
    out = np.asarray(cv2.warpAffine(frame, m, (w, h), flags=cv2.INTER_AREA if factor < 1
                                    else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT),
                     np.uint8)
    moved = [(factor * (x - cx) + w / 2, factor * (y - cy) + h / 2, side * factor, cls)
             for x, y, side, cls in dice]
    if factor < 1:
        # Mirrored borders copy the dice; only the originals are labelled, so the copies
        # would teach the detector to miss dice. Blank the border to the frame's median.
        inside = np.zeros((h, w), np.uint8)
        x0, y0 = w / 2 - factor * cx, h / 2 - factor * cy
        inside[max(int(y0), 0):int(y0 + factor * h), max(int(x0), 0):int(x0 + factor * w)] = 1
        fill = np.median(frame.reshape(-1, 3), axis=0)
        out[inside == 0] = fill.astype(np.uint8)
    return out, [d for d in moved if 0 <= d[0] < w and 0 <= d[1] < h]


def real_frames(entry: dict[str, Any]) -> list[tuple[U8, list[Die]]]:
    """A real photo as it is, zoomed in and zoomed out (seeded by its name)."""
    frame, dice = real_frame(entry)
    rng = np.random.default_rng(sum(str(entry["image"]).encode()))
    return [(frame, dice), zoomed(frame, dice, float(rng.uniform(*ZOOM_IN)), rng),
            zoomed(frame, dice, float(rng.uniform(*ZOOM_OUT)), rng)]


def scene_frame(seed: int) -> tuple[U8, list[Die]]:
    """One rendered scene and its dice; one seed in three has cocked and off-table dice."""
    from vision.scenes.dice import render_scene

    risky = seed % 3 == 0
    return _labelled(render_scene(np.random.default_rng(seed), cocked=0.3 if risky else 0.0,
                                  off_table=0.2 if risky else 0.0))


def tilt_scene_frame(seed: int) -> tuple[U8, list[Die]]:
    """One rendered scene for the tilt check, half its dice cocked, and its dice."""
    from vision.scenes.dice import render_scene

    return _labelled(render_scene(np.random.default_rng(seed), cocked=0.5))


def _labelled(scene: Scene) -> tuple[U8, list[Die]]:
    """A rendered scene's frame and its dice, each labelled by face or as cocked."""
    dice = []
    for die in scene.dice:
        corners = np.array(die.corners, np.float32)
        side = float(np.sqrt(max(cv2.contourArea(corners), 1.0)))
        x, y, w, h = die.box
        dice.append((x + w / 2, y + h / 2, side,
                     COCKED if die.state == "cocked" else die.value - 1))
    return np.asarray(scene.image, np.uint8), dice


def collect(scenes: int, cache: Path | None) -> tuple[U8, list[list[Die]], npt.NDArray[np.bool_]]:
    """(frames, their dice, which are real), real first, in a fixed order whatever the pool."""
    if cache is not None and (cache / "frames.npy").exists():
        meta = json.loads((cache / "dice.json").read_text())
        if meta["scenes"] == scenes and meta.get("version") == CACHE_VERSION:
            frames = np.load(cache / "frames.npy", mmap_mode="r")
            return (np.asarray(frames), [[tuple(d) for d in f] for f in meta["dice"]],  # type: ignore[misc]
                    np.array(meta["real"]))
    train, _ = real_split()
    with Pool(2) as pool:
        real = [f for fs in pool.map(real_frames, train) for f in fs]
        rendered = pool.map(scene_frame, range(TRAIN_SEED, TRAIN_SEED + scenes), chunksize=16)
    frames = np.stack([f for f, _ in real + rendered])
    dice = [d for _, d in real + rendered]
    is_real = np.array([True] * len(real) + [False] * len(rendered))
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.save(cache / "frames.npy", frames)
        (cache / "dice.json").write_text(json.dumps({
            "scenes": scenes, "version": CACHE_VERSION, "dice": dice, "real": is_real.tolist()}))
    return frames, dice, is_real


def targets(dice: Sequence[Die], shape: tuple[int, int]) -> tuple[F32, F32, F32]:
    """A frame's heatmap (a Gaussian per die, 1 at its centre cell), log-size map, and the
    weight of each cell's size (the cells at and next to a centre)."""
    gh, gw = CELLS
    sx, sy = shape[1] / WIDTH * STRIDE, shape[0] / HEIGHT * STRIDE
    heat = np.zeros(CELLS, np.float32)
    size = np.zeros(CELLS, np.float32)
    weight = np.zeros(CELLS, np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for x, y, side, _ in dice:
        cx, cy = x / sx - 0.5, y / sy - 0.5
        sigma = max(0.7, (side or TYPICAL_SIDE) / sx / 6)
        heat = np.maximum(heat, np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma ** 2)))
        ix, iy = round(cx), round(cy)
        if 0 <= ix < gw and 0 <= iy < gh:
            heat[iy, ix] = 1.0
            y0, y1, x0, x1 = max(iy - 1, 0), min(iy + 2, gh), max(ix - 1, 0), min(ix + 2, gw)
            if side != UNKNOWN_SIDE:
                size[y0:y1, x0:x1] = np.log(side)
                weight[y0:y1, x0:x1] = 1.0
    return heat, size, weight


def detector_net() -> Any:
    """The detector: an encoder to 1/16 of the input and a decoder back to 1/4 with skips;
    out come the heatmap (after a sigmoid) and the log size."""
    import torch
    from torch import nn

    def block(a: int, b: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(a, b, 3, stride, 1, bias=False), nn.BatchNorm2d(b),
                             nn.ReLU())

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.s2 = nn.Sequential(block(3, 16, 2), block(16, 24, 2))
            self.s3 = nn.Sequential(block(24, 40, 2), block(40, 40))
            self.s4 = nn.Sequential(block(40, 64, 2), block(64, 64))
            self.l3, self.l2 = nn.Conv2d(64, 40, 1), nn.Conv2d(40, 24, 1)
            self.m3, self.m2 = block(40, 40), block(24, 24)
            self.head = nn.Conv2d(24, 2, 1)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            # Start from "no die anywhere" and a typical die's size: early steps are stable.
            self.head.bias = nn.Parameter(torch.tensor([-2.2, 3.5]))

        def forward(self, x: Any) -> Any:
            f2 = self.s2(x)
            f3 = self.s3(f2)
            f4 = self.s4(f3)
            d3 = self.m3(f3 + self.up(self.l3(f4)))
            d2 = self.m2(f2 + self.up(self.l2(d3)))
            out = self.head(d2)
            return torch.cat([torch.sigmoid(out[:, :1]), out[:, 1:]], 1)

    return Net()


def reader_net() -> Any:
    """The reader: four conv layers on the CROP x CROP crop, then two dense ones."""
    from torch import nn

    def block(a: int, b: int) -> list[nn.Module]:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()]

    return nn.Sequential(*block(1, 16), nn.MaxPool2d(2), *block(16, 32), nn.MaxPool2d(2),
                         *block(32, 48), nn.MaxPool2d(2), *block(48, 64),
                         nn.Flatten(), nn.Dropout(0.25),
                         nn.Linear(64 * (CROP // 8) ** 2, 96), nn.ReLU(),
                         nn.Linear(96, NOT_A_DIE + 1))


def _torch(seed: int) -> Any:
    import torch

    # Two threads at most: the same weights on any machine with this torch, and a busy
    # two-core machine is not starved.
    torch.set_num_threads(2)
    torch.manual_seed(seed)
    return torch


def fit_detector(small: U8, dice: Sequence[Sequence[Die]], is_real: npt.NDArray[np.bool_],
                 shape: tuple[int, int], seed: int, epochs: int = DETECT_EPOCHS) -> Any:
    """The detector fitted with Adam and a one-cycle rate under flips and colour changes."""
    torch = _torch(seed)
    rng = np.random.default_rng(seed)
    maps = [targets(d, shape) for d in dice]
    heat = torch.tensor(np.stack([m[0] for m in maps]))[:, None]
    size = torch.tensor(np.stack([m[1] for m in maps]))[:, None]
    weight = torch.tensor(np.stack([m[2] for m in maps]))[:, None]
    images = torch.tensor(small).permute(0, 3, 1, 2)
    index = np.concatenate([np.flatnonzero(is_real)] * REAL_WEIGHT + [np.flatnonzero(~is_real)])
    net = detector_net()
    batch = 16
    steps = epochs * ((len(index) + batch - 1) // batch)
    optimiser = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 4e-3, total_steps=steps)
    for _ in range(epochs):
        net.train()
        order = rng.permutation(index)
        for start in range(0, len(order), batch):
            pick = torch.tensor(order[start:start + batch])
            # A random window of each batch: the net is convolutional, and a window is
            # cheaper to learn from than the whole frame.
            gy = int(rng.integers(0, CELLS[0] - WINDOW[0] + 1))
            gx = int(rng.integers(0, CELLS[1] - WINDOW[1] + 1))
            cells = (slice(gy, gy + WINDOW[0]), slice(gx, gx + WINDOW[1]))
            pixels = (slice(gy * STRIDE, (gy + WINDOW[0]) * STRIDE),
                      slice(gx * STRIDE, (gx + WINDOW[1]) * STRIDE))
            xb = images[pick][:, :, pixels[0], pixels[1]].float() / 255.0
            hb, sb, wb = (t[pick][:, :, cells[0], cells[1]] for t in (heat, size, weight))
            n = len(pick)
            gain = torch.tensor(rng.uniform(0.6, 1.3, (n, 1, 1, 1)) * rng.uniform(
                0.9, 1.1, (n, 3, 1, 1)), dtype=torch.float32)
            shift = torch.tensor(rng.uniform(-0.12, 0.12, (n, 1, 1, 1)), dtype=torch.float32)
            xb = (xb * gain + shift).clamp(0, 1)
            for axis in (2, 3):
                if rng.random() < 0.5:
                    xb, hb, sb, wb = (t.flip(axis) for t in (xb, hb, sb, wb))
            out = net(xb)
            p = out[:, :1].clamp(1e-4, 1 - 1e-4)
            pos = (hb == 1.0).float()
            focal = -(pos * (1 - p) ** 2 * torch.log(p)
                      + (1 - pos) * (1 - hb) ** 4 * p ** 2 * torch.log(1 - p)).sum()
            size_loss = (wb * (out[:, 1:] - sb).abs()).sum() / wb.sum().clamp(min=1)
            loss = focal / pos.sum().clamp(min=1) + size_loss
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
    return net.eval()


def shrink(frames: U8) -> U8:
    """The frames at the detector's input size."""
    return np.stack([cv2.resize(f, DETECT_SIZE, interpolation=cv2.INTER_AREA) for f in frames])


def harvest(net: Any, frames: U8, small: U8, dice: Sequence[Sequence[Die]],
            is_real: npt.NDArray[np.bool_]) -> tuple[U8, Ints, npt.NDArray[np.bool_]]:
    """Reader patches: each detector peak labelled by the die it lies on (or "none"), and
    each labelled die at its true centre; (patches, classes, from a real photo)."""
    import torch

    patches, classes, real = [], [], []
    h, w = frames.shape[1:3]
    scale = (w / WIDTH, h / HEIGHT)
    with torch.no_grad():
        for start in range(0, len(frames), 32):
            xb = torch.tensor(small[start:start + 32]).permute(0, 3, 1, 2).float() / 255.0
            out = net(xb).numpy()
            for k, maps in enumerate(out):
                i = start + k
                gray = cv2.cvtColor(frames[i], cv2.COLOR_BGR2GRAY)
                for x, y, side, cls in dice[i]:
                    if side == UNKNOWN_SIDE:
                        # The detector's own size there, as the reader will see it run.
                        gx = int(np.clip(x / scale[0] / STRIDE, 0, CELLS[1] - 1))
                        gy = int(np.clip(y / scale[1] / STRIDE, 0, CELLS[0] - 1))
                        side = float(np.exp(maps[1][gy, gx]))
                    patches.append(_patch(gray, x, y, side))
                    classes.append(cls)
                    real.append(is_real[i])
                for cand in peaks(maps[0], maps[1], scale, HARVEST):
                    near = [d for d in dice[i] if np.hypot(cand.x - d[0], cand.y - d[1])
                            < 0.45 * max(d[2], cand.size)]
                    patches.append(_patch(gray, cand.x, cand.y, cand.size))
                    classes.append(near[0][3] if near else NOT_A_DIE)
                    real.append(is_real[i])
    return np.stack(patches), np.array(classes), np.array(real)


def _patch(gray: U8, x: float, y: float, size: float) -> U8:
    return crop_die(gray, x, y, size, PATCH, CROP_SCALE * PATCH_SCALE)


def augment(patches: U8, rng: np.random.Generator, *, crop: int = CROP,
            patch: tuple[int, float] = (PATCH, PATCH_SCALE),
            scales: tuple[float, float] = (0.85, 1.18), shift: float = 0.12,
            motion: bool = True) -> U8:
    """Crops (`crop` pixels) cut from the patches (`patch`: pixels, crops' sides across) at
    a random turn (any angle), mirror, scale (`scales`) and shift (`shift` of the crop),
    some blurred (with `motion`, some smeared instead) and all with sensor noise, then
    normalised as at run time. The defaults are the reader's."""
    out = np.empty((len(patches), crop, crop), np.uint8)
    side, span = patch
    centre = side / 2
    for i, one in enumerate(patches):
        k = crop / (side / span) * float(rng.uniform(*scales))
        m = np.asarray(cv2.getRotationMatrix2D((centre, centre), float(rng.uniform(0, 360)), k),
                       np.float64)
        m[:, 2] += crop / 2 - centre + rng.uniform(-shift, shift, 2) * crop
        cut = cv2.warpAffine(one, m, (crop, crop), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < 0.5:
            cut = cut[:, ::-1]
        if rng.random() < 0.3:
            cut = cv2.GaussianBlur(cut, (0, 0), float(rng.uniform(0.5, 1.6)))
        elif motion and rng.random() < 0.2:
            cut = motion_blur(np.asarray(cut, np.uint8), rng)
        noisy = cut.astype(np.float32) + rng.normal(0, rng.uniform(0, 6), cut.shape)
        out[i] = np.clip(noisy, 0, 255).astype(np.uint8)
    return normalise(out)


def motion_blur(crop: U8, rng: np.random.Generator) -> U8:
    """The crop smeared along a random line 2-5 pixels long, as a die still rolling is."""
    length = int(rng.integers(2, 6))
    line = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
    line[length, :] = 1.0
    turn = cv2.getRotationMatrix2D((length, length), float(rng.uniform(0, 180)), 1.0)
    kernel = np.asarray(cv2.warpAffine(line, turn, line.shape[::-1]), np.float32)
    out = cv2.filter2D(crop, -1, kernel / max(float(kernel.sum()), 1e-6),
                       borderType=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.uint8)


def fit_reader(patches: U8, classes: Ints, real: npt.NDArray[np.bool_], seed: int,
               epochs: int = READ_EPOCHS) -> Any:
    """The reader fitted on its crops, each real photo's seen REAL_WEIGHT times an epoch."""
    index = [np.flatnonzero(real)] * REAL_WEIGHT + [np.flatnonzero(~real)]
    return fit_crops(reader_net, augment, patches, classes, index, seed, epochs)


def fit_crops(build: Callable[[], Any], cut: Callable[[U8, np.random.Generator], U8],
              patches: U8, classes: Ints, index: Sequence[Ints], seed: int,
              epochs: int) -> Any:
    """A net from `build` fitted with AdamW and a one-cycle rate on crops freshly `cut`
    from the patches each epoch; `index` lists the patches an epoch goes through (a patch
    listed twice is seen twice)."""
    torch = _torch(seed)
    from torch import nn

    rng = np.random.default_rng(seed)
    order_of = np.concatenate(index)
    net = build()
    batch = 128
    steps = epochs * ((len(order_of) + batch - 1) // batch)
    optimiser = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=steps)
    ys = torch.tensor(classes)
    for _ in range(epochs):
        net.train()
        order = rng.permutation(order_of)
        for start in range(0, len(order), batch):
            pick = order[start:start + batch]
            xb = torch.tensor(cut(patches[pick], rng).astype(np.float32) / 255.0)[:, None]
            loss = nn.functional.cross_entropy(net(xb), ys[torch.tensor(pick)],
                                               label_smoothing=0.02)
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimiser.step()
            schedule.step()
    return net.eval()


def tilt_patches(detector: Path, frames: U8, dice: Sequence[Sequence[Die]],
                 is_real: npt.NDArray[np.bool_]) -> tuple[U8, Ints, npt.NDArray[np.bool_]]:
    """The tilt check's patches: each labelled die where the detector at `detector` (the
    ONNX file, as run) finds it, and at its true centre when its side is known; labelled 1
    for cocked, 0 for flat; (patches, labels, from a real photo)."""
    finder = Detector(detector)
    patches, labels, real = [], [], []
    for i, frame in enumerate(frames):
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        found = finder(frame)
        for x, y, side, cls in dice[i]:
            near = [c for c in found
                    if np.hypot(c.x - x, c.y - y) < 0.45 * max(c.size, side or 1.0)]
            spots = [(c.x, c.y, c.size) for c in near[:1]]
            if side != UNKNOWN_SIDE:
                spots.append((x, y, side))
            for sx, sy, size in spots:
                patches.append(crop_die(gray, sx, sy, size, TILT_PATCH,
                                        TILT_SCALE * TILT_PATCH_SCALE))
                labels.append(int(cls == COCKED))
                real.append(bool(is_real[i]))
    return np.stack(patches), np.array(labels), np.array(real)


def augment_tilt(patches: U8, rng: np.random.Generator) -> U8:
    """Tilt crops cut from the patches as `augment` cuts the reader's, turned less far off
    scale and centre, and never smeared."""
    return augment(patches, rng, crop=TILT_CROP, patch=(TILT_PATCH, TILT_PATCH_SCALE),
                   scales=(0.88, 1.14), shift=0.08, motion=False)


def tilt_net() -> Any:
    """The tilt check: five conv layers on the TILT_CROP crop, pooled, then flat or tilted."""
    from torch import nn

    def block(a: int, b: int) -> list[nn.Module]:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()]

    return nn.Sequential(*block(1, 16), nn.MaxPool2d(2), *block(16, 24), nn.MaxPool2d(2),
                         *block(24, 32), nn.MaxPool2d(2), *block(32, 48), nn.MaxPool2d(2),
                         *block(48, 64), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(64, 2))


def fit_tilt(patches: U8, labels: Ints, real: npt.NDArray[np.bool_], seed: int = TILT_SEED,
             epochs: int = TILT_EPOCHS) -> Any:
    """The tilt check fitted on its crops, each real photo's seen TILT_REAL_WEIGHT times an
    epoch and each cocked die's COCKED_WEIGHT more times."""
    index = ([np.flatnonzero(real)] * TILT_REAL_WEIGHT + [np.flatnonzero(~real)]
             + [np.flatnonzero(labels == 1)] * COCKED_WEIGHT)
    return fit_crops(tilt_net, augment_tilt, patches, labels, index, seed, epochs)


def export(net: Any, shape: tuple[int, ...], out: Path, names: tuple[str, str]) -> None:
    """Writes a fitted net as ONNX, with the batch size free, for `vision.nets`."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (torch.zeros(*shape),), str(out), input_names=[names[0]],
                      output_names=[names[1]], opset_version=17, dynamo=False,
                      dynamic_axes={names[0]: {0: "n"}, names[1]: {0: "n"}})


def dev_report(model: Path, detector: Path, tilt: Path = DEFAULT_TILT, folder: Path = REAL,
               scenes: int = 200) -> dict[str, object]:
    """The new models' figures on the development photos and on unseen rendered scenes."""
    from vision.evaluate import evaluate
    from vision.scenes.dice import write_folder

    _, dev = real_split(folder)
    with tempfile.TemporaryDirectory() as tmp:
        real = Path(tmp) / "real"
        real.mkdir()
        (real / "labels.jsonl").write_text("".join(
            json.dumps({**e, "image": str(folder / str(e["image"]))}) + "\n" for e in dev))
        rendered = Path(tmp) / "rendered"
        write_folder(rendered, scenes, DEV_SEED, cocked=0.1, off_table=0.1)
        reader = DiceReader(model=model, detector=detector, tilt=tilt)
        return {"dev_photos": evaluate(reader, real),
                "dev_scenes": evaluate(reader, rendered, for_bed=reader.with_bed)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scenes", type=int, default=SCENES)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL, help="the reader")
    parser.add_argument("--detector", type=Path, default=DEFAULT_DETECTOR)
    parser.add_argument("--cache", type=Path, help="keep (or reuse) the frames in this folder")
    parser.add_argument("--tilt", type=Path, default=DEFAULT_TILT, help="the tilt check")
    parser.add_argument("--tilt-only", action="store_true",
                        help="fit only the tilt check, on the detector file as it is")
    parser.add_argument("--dev", action="store_true", help="print development figures")
    args = parser.parse_args(argv)
    if not (REAL / "labels.jsonl").exists():
        print(f"real photos not found in {REAL}", file=sys.stderr)
        return 2
    frames, dice, is_real = collect(args.scenes, args.cache)
    print(json.dumps({"frames": len(frames), "real": int(is_real.sum()),
                      "dice": sum(len(d) for d in dice)}), flush=True)
    if not args.tilt_only:
        small = shrink(frames)
        detector = fit_detector(small, dice, is_real, frames.shape[1:3], TRAIN_SEED)
        export(detector, (1, 3, HEIGHT, WIDTH), args.detector, ("frame", "maps"))
        patches, classes, real = harvest(detector, frames, small, dice, is_real)
        print(json.dumps({"patches": len(classes), "per_class": np.bincount(
            classes, minlength=NOT_A_DIE + 1).tolist()}), flush=True)
        export(fit_reader(patches, classes, real, TRAIN_SEED), (1, 1, CROP, CROP), args.out,
               ("crop", "logits"))
    # The tilt check learns where the detector, as exported, puts each die.
    with Pool(2) as pool:
        extra = pool.map(tilt_scene_frame,
                         range(TILT_SCENE_SEED, TILT_SCENE_SEED + TILT_SCENES), chunksize=16)
    tilt, labels, tilt_real = tilt_patches(args.detector, frames, dice, is_real)
    more, more_labels, more_real = tilt_patches(
        args.detector, np.stack([f for f, _ in extra]), [d for _, d in extra],
        np.zeros(len(extra), bool))
    tilt, labels = np.concatenate([tilt, more]), np.concatenate([labels, more_labels])
    tilt_real = np.concatenate([tilt_real, more_real])
    print(json.dumps({"tilt_patches": len(labels), "cocked": int(labels.sum())}), flush=True)
    export(fit_tilt(tilt, labels, tilt_real), (1, 1, TILT_CROP, TILT_CROP), args.tilt,
           ("crop", "logits"))
    if args.dev:
        print(json.dumps(dev_report(args.out, args.detector, args.tilt)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
