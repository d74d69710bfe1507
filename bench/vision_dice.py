"""The dice recogniser's figures on images it was never trained or tuned on.

Three JSON lines: the held-out real photos (../shared/data/dice, images/valid_*), as
labelled and with the two wrong labels of bench/dice_label_audit.json fixed, and
rendered scenes from seeds used nowhere else (HELD_OUT_SEED), written to a temporary
folder, read with each scene's bed as a table's config would give it. All timed on one
core (the nets run on one thread, `vision.nets`; OpenCV's own work on one too, inside
`evaluate`).

Usage: .venv/bin/python bench/vision_dice.py [--scenes 300]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from vision.dice import DiceReader
from vision.evaluate import FIGURES, evaluate
from vision.scenes.dice import write_folder

REPO = Path(__file__).resolve().parent.parent
PHOTOS = REPO.parent / "shared" / "data" / "dice"
#: Rendered scenes for this benchmark only (training uses 1000 on, development 500000 on).
HELD_OUT_SEED = 910_000


#: Two held-out labels found wrong when every one was checked by eye (see the file).
AUDIT = Path(__file__).with_name("dice_label_audit.json")


def held_out_photos(folder: Path, audited: bool = False) -> Path:
    """A labels.jsonl naming only the held-out photos (valid_*), by absolute path; with
    `audited`, the labels AUDIT fixes are fixed."""
    fixes = {f["image"]: f for f in json.loads(AUDIT.read_text())["fixes"]} if audited else {}
    lines = []
    for line in (PHOTOS / "labels.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if Path(entry["image"]).name.startswith("valid_"):
            fix = fixes.get(entry["image"], {})
            entry.update({k: fix[k] for k in ("dice", "boxes") if k in fix})
            lines.append(json.dumps({**entry, "image": str(PHOTOS / entry["image"])}))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def line(what: str, result: dict[str, Any], **extra: Any) -> str:
    return json.dumps({"what": what, "value": result["image_accuracy"], "unit": "share",
                       **{k: result[k] for k in FIGURES}, "per_class": result["per_class"],
                       **extra})


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scenes", type=int, default=300)
    args = parser.parse_args()
    reader = DiceReader()
    with tempfile.TemporaryDirectory() as tmp:
        if (PHOTOS / "labels.jsonl").exists():
            photos = evaluate(reader, held_out_photos(Path(tmp) / "photos"))
            print(line("dice recogniser on held-out photos", photos, source=str(PHOTOS)))
            fixed = evaluate(reader, held_out_photos(Path(tmp) / "audited", audited=True))
            print(line("dice recogniser on held-out photos, two wrong labels fixed", fixed,
                       source=str(PHOTOS), audit=AUDIT.name))
        else:
            print(f"held-out photos not found in {PHOTOS}", file=sys.stderr)
        scenes = Path(tmp) / "scenes"
        write_folder(scenes, args.scenes, HELD_OUT_SEED, cocked=0.1, off_table=0.1)
        rendered = evaluate(reader, scenes, for_bed=reader.with_bed)
        print(line("dice recogniser on held-out rendered scenes", rendered,
                   seed=HELD_OUT_SEED, states=rendered.get("states", {})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
