"""Trains the corner-index classifier committed as vision/models/card_index.onnx.

To regenerate the model (same seeds and decks give the same weights on the same machine):

    .venv/bin/pip install torch==2.13.0 onnx     # for training only; the runtime needs OpenCV
    .venv/bin/python -m vision.train_cards

from the repository root, with Debian's card designs installed (gnome-cards-data,
kdegames-card-data-kf5, librsvg2-bin; see vision/scenes/cards.py). It renders SCENES table
scenes and SHOES shoe windows with `vision.scenes.cards` from seeds TRAIN_SEED, TRAIN_SEED + 1,
... drawing ONLY `training_decks()`, finds candidates in each with
`vision.cards.find_candidates`, and labels each by the index whose outline holds its centre
and whose upright it points along (rank and suit), or "not an index" when it lies on no
index; candidates near an index but turned, or on an index the scene does not count as in
view, are left out as neither. Each index candidate is also cut twice more a little moved,
turned and scaled, and any crop may be blurred, its strokes made bolder or thinner and its
contrast changed (`_worn`), as other prints and cameras give them. A small CNN is fitted on
the crops (`vision.cards.crop_index`) with torch, seeded, on one thread, and exported to
ONNX for `cv2.dnn`. The held-out decks and the real photos are never read here. `--dev`
prints the new model's figures on rendered scenes of the
training decks from DEV_SEED on (seeds used nowhere else), which is where the threshold is
chosen.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import (
    CROP,
    DEFAULT_MODEL,
    NOT_AN_INDEX,
    RANKS,
    SUITS,
    Candidate,
    CardReader,
    ShoeWindowReader,
    crop_index,
    find_candidates,
    ink_image,
    normalise,
)
from vision.core import Frame, Observation, Recogniser
from vision.evaluate import evaluate
from vision.scenes.cards import CardScene, render_scene, render_shoe_window, training_decks
from vision.scenes.cards import write_folder as write_scenes

TRAIN_SEED = 2000
SCENES = 1000
SHOES = 1500
#: Rendered scenes for judging during development; the tests and bench use others.
DEV_SEED = 600_000
EPOCHS = 8
#: Not-an-index crops kept per index crop of a scene (the rest are alike: pips and felt).
NEGATIVES = 2.0
#: Moved copies cut of each index candidate.
JITTERS = 2
#: How far along an index's upright a candidate must point to be that index (cos 30 deg).
ALIGNED = 0.86
NO_SUIT = -1

Crops = npt.NDArray[np.uint8]
Ints = npt.NDArray[np.int64]


def _upright(quad: Sequence[tuple[float, float]], corner: int) -> npt.NDArray[np.float64]:
    """The unit vector from the bottom of an index to its top, in image pixels: the
    bottom-right index (corner 1) is printed upside down."""
    q = np.asarray(quad, np.float64)
    v = q[0] - q[3] if corner % 2 == 0 else q[3] - q[0]
    out: npt.NDArray[np.float64] = v / np.linalg.norm(v)
    return out


def label_candidates(scene: CardScene, candidates: Sequence[Candidate]) -> list[int | None]:
    """Each candidate's class: 4 * rank + suit for an index in view, NOT_AN_INDEX * 4 for
    none, None when it is neither (on an index but turned, or on one not in view)."""
    quads = [(np.asarray(q, np.float32), _upright(q, c), seen, card.code)
             for card in scene.cards
             for c, (q, seen) in enumerate(zip(card.corner_quads, card.visible_corners,
                                               strict=True))]
    out: list[int | None] = []
    for cand in candidates:
        label: int | None = NOT_AN_INDEX * 4
        for quad, up, seen, code in quads:
            if cv2.pointPolygonTest(quad, (cand.x, cand.y), True) >= -2:
                aligned = cand.ux * up[0] + cand.uy * up[1] >= ALIGNED
                if seen and aligned and label == NOT_AN_INDEX * 4:
                    label = 4 * RANKS.index(code[:-1]) + SUITS.index(code[-1])
                else:
                    label = None
        out.append(label)
    return out


def _jitter(rng: np.random.Generator, c: Candidate) -> Candidate:
    turn = float(rng.normal(0, 0.1))
    cos, sin = np.cos(turn), np.sin(turn)
    gap = c.gap * float(rng.uniform(0.85, 1.18))
    return Candidate(c.x + float(rng.normal(0, 0.08)) * c.gap,
                     c.y + float(rng.normal(0, 0.08)) * c.gap,
                     float(cos * c.ux - sin * c.uy), float(sin * c.ux + cos * c.uy), gap)


def scene_crops(job: tuple[int, bool]) -> tuple[Crops, Ints]:
    """The labelled crops of one rendered scene (or shoe window) of seed TRAIN_SEED + i."""
    i, shoe = job
    rng = np.random.default_rng([TRAIN_SEED, i, int(shoe)])
    decks = training_decks()
    scene = render_shoe_window(rng, decks=decks) if shoe else render_scene(rng, decks=decks)
    ink = ink_image(scene.image)
    candidates = find_candidates(ink)
    labels = label_candidates(scene, candidates)
    positives = [(c, lab) for c, lab in zip(candidates, labels, strict=True)
                 if lab is not None and lab < NOT_AN_INDEX * 4]
    negatives = [c for c, lab in zip(candidates, labels, strict=True)
                 if lab == NOT_AN_INDEX * 4]
    keep = max(8, round(NEGATIVES * len(positives) * (1 + JITTERS)))
    if len(negatives) > keep:
        chosen = rng.choice(len(negatives), size=keep, replace=False)
        negatives = [negatives[int(k)] for k in sorted(chosen)]
    cuts: list[tuple[Candidate, int]] = [(c, NOT_AN_INDEX * 4) for c in negatives]
    for c, lab in positives:
        cuts.append((c, lab))
        cuts.extend((_jitter(rng, c), lab) for _ in range(JITTERS))
    if not cuts:
        return np.zeros((0, CROP, CROP), np.uint8), np.zeros(0, np.int64)
    return (np.stack([_worn(rng, crop_index(ink, c)) for c, _ in cuts]),
            np.array([lab for _, lab in cuts], np.int64))


def _worn(rng: np.random.Generator, crop: Crops) -> Crops:
    """A crop as another print or camera might give it: softer, bolder or thinner strokes,
    another contrast; designs the renderer does not have look like this too."""
    out: Any = crop
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.3)))
    if rng.random() < 0.3:
        kernel = np.ones((2, 2), np.uint8)
        out = cv2.erode(out, kernel) if rng.random() < 0.5 else cv2.dilate(out, kernel)
    if rng.random() < 0.4:
        gamma = float(rng.uniform(0.6, 1.6))
        out = np.clip(255.0 * (out / 255.0) ** gamma, 0, 255)
    result: Crops = np.asarray(out, np.uint8)
    return result


def collect(scenes: int, shoes: int) -> tuple[Crops, Ints]:
    """The crops and classes of all training scenes, rendered on two processes."""
    jobs = [(i, False) for i in range(scenes)] + [(i, True) for i in range(shoes)]
    with Pool(2) as pool:
        parts = pool.map(scene_crops, jobs, chunksize=16)
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))


def build_net() -> Any:
    """The classifier: three conv blocks and a small head, logits for 14 ranks (the last
    "not an index") then 4 suits."""
    from torch import nn

    def block(a: int, b: int) -> list[nn.Module]:
        return [nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(),
                nn.Conv2d(b, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(*block(1, 16), *block(16, 32), *block(32, 48), nn.Flatten(),
                         nn.Linear(48 * (CROP // 8) ** 2, 128), nn.ReLU(), nn.Dropout(0.2),
                         nn.Linear(128, len(RANKS) + 1 + len(SUITS)))


def fit(crops: Crops, classes: Ints, seed: int, epochs: int = EPOCHS) -> Any:
    """A seeded fit on one thread (another training may share this machine)."""
    import torch
    from torch.nn import functional

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = build_net()
    x = torch.from_numpy(normalise(crops))
    rank = torch.from_numpy(classes // 4)
    suit = torch.from_numpy(np.where(classes // 4 == NOT_AN_INDEX, NO_SUIT, classes % 4))
    steps = epochs * ((len(x) + 255) // 256)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    for epoch in range(epochs):
        net.train()
        order = torch.from_numpy(rng.permutation(len(x)))
        total = 0.0
        for start in range(0, len(x), 256):
            batch = order[start:start + 256]
            xb = x[batch]
            # Print fainter or bolder than the renderer draws it.
            xb = xb * torch.empty(len(xb), 1, 1, 1).uniform_(0.7, 1.3)
            out = net(xb)
            loss: Any = functional.cross_entropy(out[:, :NOT_AN_INDEX + 1], rank[batch])
            has_suit = suit[batch] != NO_SUIT
            if bool(has_suit.any()):
                loss = loss + functional.cross_entropy(out[has_suit, NOT_AN_INDEX + 1:],
                                                       suit[batch][has_suit])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(batch)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(x):.4f}", file=sys.stderr)
    net.eval()
    return net


def export(net: Any, out: Path) -> None:
    """The fitted net as ONNX that cv2.dnn runs, any batch size."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (torch.zeros(1, 1, CROP, CROP),), str(out), input_names=["crop"],
                      output_names=["logits"], dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}},
                      opset_version=13, dynamo=False)


class _Remembered:
    """A reader that reads each frame once, so several thresholds are scored on one pass."""

    def __init__(self, reader: Recogniser) -> None:
        self.reader = reader
        self.seen: dict[bytes, list[Observation]] = {}

    def __call__(self, frame: Frame) -> list[Observation]:
        key = hashlib.sha1(frame.tobytes()).digest()
        if key not in self.seen:
            self.seen[key] = list(self.reader(frame))
        return self.seen[key]


def dev_report(model: Path, scenes: int = 150, shoes: int = 200) -> dict[str, Any]:
    """The model's figures on development scenes and shoe windows of the training decks."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, count, shoe in (("scenes", scenes, False), ("shoe", shoes, True)):
            folder = Path(tmp) / name
            write_scenes(folder, count, DEV_SEED, shoe=shoe, decks=training_decks())
            reader = _Remembered(ShoeWindowReader(model=model) if shoe else
                                 CardReader(model=model))
            result = evaluate(reader, folder, "cards")
            for threshold in (0.5, 0.7, 0.8, 0.9, 0.95, 0.98):
                r = evaluate(reader, folder, "cards", threshold=threshold)
                out[f"{name}@{threshold}"] = {k: r[k] for k in (
                    "image_accuracy", "item_accuracy", "false_confident_rate", "unsure_rate")}
            out[f"{name}_ms_per_frame"] = result["ms_per_frame"]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL, help="model file to write")
    parser.add_argument("--scenes", type=int, default=SCENES, help="table scenes to render")
    parser.add_argument("--shoes", type=int, default=SHOES, help="shoe windows to render")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--dev", action="store_true",
                        help="only print the model's figures on the development scenes")
    args = parser.parse_args(argv)
    if not args.dev:
        crops, classes = collect(args.scenes, args.shoes)
        print(f"{len(crops)} crops, {int((classes // 4 < NOT_AN_INDEX).sum())} of indices",
              file=sys.stderr)
        export(fit(crops, classes, TRAIN_SEED, args.epochs), args.out)
    print(json.dumps(dev_report(args.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
