"""Trains the dice classifier committed as vision/models/dice_cnn.onnx.

To regenerate the model (same seeds and data give the same weights on the same machine):

    .venv/bin/pip install torch==2.13.0 onnx     # for training only; the runtime needs OpenCV
    .venv/bin/python -m vision.train_dice

from the repository root, with the real photos in ../shared/data/dice (labels.jsonl and
images/). It renders SCENES scenes with vision/scenes/dice.py from seeds TRAIN_SEED,
TRAIN_SEED + 1, ... (one in three with cocked and off-table dice), takes the real photos
images/train_* except the development split (every fifth by name, see `real_split`), finds
candidates in every image with `vision.dice.find_candidates`, labels each candidate by the
labelled box whose centre it holds (face 1-6, "cocked", or "none" for clutter, shadows and
pieces of dice), and fits a small CNN on the normalised crops (`vision.dice.crop_die`) with
torch, seeded, then exports it to ONNX for `cv2.dnn`. The held-out real photos
images/valid_* are never read here. `--dev` prints the new model's figures on the
development photos and on rendered scenes from DEV_SEED on (seeds used nowhere else).
"""

from __future__ import annotations

import argparse
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

from vision.core import Frame, check_frame
from vision.dice import (
    COCKED,
    CROP,
    DEFAULT_MODEL,
    NOT_A_DIE,
    Candidate,
    DiceReader,
    crop_die,
    find_candidates,
)

REPO = Path(__file__).resolve().parent.parent
REAL = REPO.parent / "shared" / "data" / "dice"
TRAIN_SEED = 1000
SCENES = 3000
#: Rendered scenes for judging during development; the tests and bench use others.
DEV_SEED = 500_000
EPOCHS = 14
#: Real photos are few: each is seen this many times per epoch beside the rendered scenes.
REAL_WEIGHT = 4

Crops = npt.NDArray[np.uint8]
Ints = npt.NDArray[np.int64]
Sample = tuple[Crops, int]


def real_split(folder: Path = REAL) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The real training photos as (train, dev) label lines: dev is every fifth by name."""
    lines = [json.loads(line) for line in (folder / "labels.jsonl").read_text().splitlines()
             if line.strip()]
    train = sorted((e for e in lines if Path(e["image"]).name.startswith("train_")),
                   key=lambda e: str(e["image"]))
    return ([e for i, e in enumerate(train) if i % 5], [e for i, e in enumerate(train)
                                                        if not i % 5])


def label_candidates(candidates: Sequence[Candidate], boxes: Sequence[Sequence[float]],
                     states: Sequence[str]) -> list[int | None]:
    """Each candidate's class by the labelled box centres it holds; None when it holds two."""
    out: list[int | None] = []
    for cand in candidates:
        corners = cv2.boxPoints(cand.rect)
        held = [i for i, b in enumerate(boxes)
                if cv2.pointPolygonTest(corners, (b[0] + b[2] / 2, b[1] + b[3] / 2), False) >= 0]
        if not held:
            out.append(NOT_A_DIE)
        elif len(held) > 1:
            out.append(None)
        else:
            i = held[0]
            out.append(COCKED if states[i] == "cocked" else int(boxes[i][4]) - 1)
    return out


def image_crops(frame: Frame, boxes: Sequence[Sequence[float]], states: Sequence[str],
                bed: tuple[float, float, float, float] | None = None) -> list[Sample]:
    """(crop, class) for each candidate of one labelled image."""
    cands = find_candidates(frame, bed)
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    return [(crop_die(gray, cand), cls) for cand, cls in
            zip(cands, label_candidates(cands, boxes, states), strict=True) if cls is not None]


def scene_crops(seed: int) -> list[Sample]:
    """Samples of one rendered scene; one seed in three has cocked and off-table dice."""
    from vision.scenes.dice import render_scene

    risky = seed % 3 == 0
    scene = render_scene(np.random.default_rng(seed), cocked=0.3 if risky else 0.0,
                         off_table=0.2 if risky else 0.0)
    label = scene.label()
    return image_crops(scene.image, label["boxes"], label["states"], tuple(label["bed"]))


def real_crops(entry: dict[str, Any]) -> list[Sample]:
    """Samples of one real photo (every die on it lies flat on the bed)."""
    path = REAL / str(entry["image"])
    frame = check_frame(cv2.imread(str(path), cv2.IMREAD_COLOR), str(path))
    boxes = entry["boxes"]
    return image_crops(frame, boxes, ["flat"] * len(boxes))


def collect(scenes: int) -> tuple[Crops, Ints, Crops, Ints]:
    """(real crops, classes, rendered crops, classes), in a fixed order whatever the pool."""
    train, _ = real_split()
    with Pool(2) as pool:
        real = [s for part in pool.map(real_crops, train) for s in part]
        rendered = [s for part in pool.map(scene_crops, range(TRAIN_SEED, TRAIN_SEED + scenes),
                                           chunksize=16) for s in part]
    return (np.stack([c for c, _ in real]), np.array([k for _, k in real]),
            np.stack([c for c, _ in rendered]), np.array([k for _, k in rendered]))


def fit(crops: Crops, classes: Ints, seed: int, epochs: int = EPOCHS) -> Any:
    """A small CNN fitted with Adam and a one-cycle rate, seeded, with random dihedral
    turns and brightness and contrast changes of each crop."""
    import torch
    from torch import nn

    # One thread: the same weights on any machine with this torch, and no spinning threads
    # fighting other work for a busy machine's cores.
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    width = 16
    net = nn.Sequential(
        nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(2 * width, 4 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(4 * width * (CROP // 8) ** 2, 64), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(64, NOT_A_DIE + 1))
    batch = 128
    steps = epochs * ((len(crops) + batch - 1) // batch)
    optimiser = torch.optim.Adam(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=steps)
    xs = torch.tensor(crops.astype(np.float32) / 255.0)[:, None]
    ys = torch.tensor(classes)
    for _ in range(epochs):
        net.train()
        order = torch.tensor(rng.permutation(len(xs)))
        for start in range(0, len(xs), batch):
            pick = order[start:start + batch]
            xb = torch.rot90(xs[pick], int(rng.integers(4)), (2, 3))
            if rng.random() < 0.5:
                xb = xb.flip(3)
            gain = torch.tensor(rng.uniform(0.7, 1.3, (len(xb), 1, 1, 1)), dtype=torch.float32)
            shift = torch.tensor(rng.uniform(-0.15, 0.15, (len(xb), 1, 1, 1)),
                                 dtype=torch.float32)
            loss = nn.functional.cross_entropy(net((xb * gain + shift).clamp(0, 1)), ys[pick])
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimiser.step()
            schedule.step()
    return net.eval()


def export(net: Any, out: Path) -> None:
    """Writes the fitted CNN as ONNX, with the batch size free, for `cv2.dnn`."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (torch.zeros(1, 1, CROP, CROP),), str(out), input_names=["crop"],
                      output_names=["logits"], opset_version=17, dynamo=False,
                      dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}})


def dev_report(model: Path, folder: Path = REAL, scenes: int = 200) -> dict[str, object]:
    """The new model's figures on the development photos and on unseen rendered scenes."""
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
        reader = DiceReader(model=model)
        return {"dev_photos": evaluate(reader, real),
                "dev_scenes": evaluate(reader, rendered, for_bed=reader.with_bed)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scenes", type=int, default=SCENES)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--crops", type=Path, help="reuse (or write) the crops in this .npz")
    parser.add_argument("--dev", action="store_true", help="print development figures")
    args = parser.parse_args(argv)
    if not (REAL / "labels.jsonl").exists():
        print(f"real photos not found in {REAL}", file=sys.stderr)
        return 2
    if args.crops is not None and args.crops.exists():
        with np.load(args.crops) as data:
            real, real_y, rendered, rendered_y = (data[k] for k in ("rx", "ry", "sx", "sy"))
    else:
        real, real_y, rendered, rendered_y = collect(args.scenes)
        if args.crops is not None:
            np.savez_compressed(args.crops, rx=real, ry=real_y, sx=rendered, sy=rendered_y)
    crops = np.concatenate([real] * REAL_WEIGHT + [rendered])
    classes = np.concatenate([real_y] * REAL_WEIGHT + [rendered_y])
    print(json.dumps({"real": len(real_y), "rendered": len(rendered_y),
                      "per_class": np.bincount(classes, minlength=NOT_A_DIE + 1).tolist()}))
    export(fit(crops, classes, TRAIN_SEED), args.out)
    if args.dev:
        print(json.dumps(dev_report(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
