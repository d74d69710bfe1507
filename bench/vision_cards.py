"""The card recogniser on images it was never trained or tuned on.

JSON lines: table scenes and dealer-shoe windows rendered from the held-out decks
(`held_out_decks()`, seeds HELD_OUT_SEED on, used nowhere else), the same table scenes taken
by a camera mounted still and focused (`render_scene`'s `still_camera`, as
docs/deployment.md asks of a card table's camera; the others may be shaken or out of focus),
and table scenes of those decks printed light on dark card (`dark_stock`); the real photos held out
from training (`vision.train_cards.photo_split().held_out`: ../shared/data/cards, read in
place, never copied; boxes around jokers left out), read with and without the look for light
print on dark cards; and those of them from sessions no training photo comes from (every
photo not named IMG_2022...). Each gives the DESIGN section 10 figures of `evaluate` (timed
on one core there) and milliseconds per card: the median milliseconds per frame over the
mean number of labelled cards in a frame. The held-out scenes' and photos' reads are scored
again at each of OTHER_THRESHOLDS, which a club may set as `camera.card_threshold` instead of
the recogniser's own: lower for more cards read, higher for fewer wrong reads called sure
(docs/cards.md); those lines repeat the one reading's time. Each line gives the counts
behind its shares and their 95% intervals (`vision.evaluate.wilson_interval`); the held-out
scenes' lines at the recogniser's own threshold give them design by design too ("per_deck").

Two lines are not of unseen designs, and are no target's figures: fresh table scenes (seeds
FITTED_SEED on) of the designs the models were fitted on (`fit_decks()`), taken hand-held
and still. They say how many cards the rendered scenes let a reader take surely when it
knows the design: the rest are lost to the scenes themselves (a lamp's reflection over an
index, shake, blur), not to unfamiliar designs.

Usage: .venv/bin/python bench/vision_cards.py [--scenes 1000] [--shoes 300] [--photos-only]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from vision.cards import CardReader, ShoeWindowReader
from vision.evaluate import FIGURES, FolderReads, read_folder, score
from vision.scenes.cards import held_out_decks, write_folder
from vision.train_cards import PHOTOS, TRAIN_PHOTO_PREFIX, fit_decks, photo_split, write_photos

#: Rendered scenes for this benchmark only (training uses 2000 on, development 600000 on,
#: the tests 930000 on).
HELD_OUT_SEED = 940_000
#: Fresh scenes of the designs the models were fitted on, for this benchmark only.
FITTED_SEED = HELD_OUT_SEED + 3
#: Thresholds besides the recogniser's own that the scenes and photos are scored at too.
OTHER_THRESHOLDS = (0.995, 0.9995, 0.9999)
#: Table scenes of each kind: enough that the share of sure reads that are wrong is known to
#: within about a quarter of a point either way (`false_confident_interval`), where 200
#: scenes left it anywhere from 0.13% to 1.1% (3 wrong of 800).
SCENES = 1000


def figures(what: str, reads: FolderReads, threshold: float, **extra: Any) -> str:
    """One JSON line of a folder's reads (`read_folder`), sure at `threshold`."""
    result = score(reads, threshold)
    cards = sum(len(label.items) for label in reads.labels) / len(reads.labels)
    return json.dumps({"what": what, "value": result["image_accuracy"], "unit": "share",
                       **{k: result[k] for k in FIGURES},
                       "ms_per_card": round(result["ms_per_frame"] / max(cards, 1e-9), 2),
                       "cards_per_image": round(cards, 2), "per_class": result["per_class"],
                       **extra})


def read(reader: CardReader | ShoeWindowReader, folder: Path) -> FolderReads:
    return read_folder(reader, folder, "cards")


def per_deck(reads: FolderReads, folder: Path, threshold: float) -> dict[str, dict[str, Any]]:
    """The cards, cards read, sure reads and wrong sure reads of each design in `folder`'s
    rendered scenes (each label's "deck"), read as `reads`, sure at `threshold`."""
    lines = (folder / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    decks: dict[str, list[int]] = {}
    for i, label in enumerate(reads.labels):
        decks.setdefault(json.loads(lines[label.line - 1])["deck"], []).append(i)
    out = {}
    for deck, kept in sorted(decks.items()):
        result = score(FolderReads(reads.kind, tuple(reads.labels[i] for i in kept),
                                   tuple(reads.reads[i] for i in kept),
                                   tuple(reads.ms[i] for i in kept)), threshold)
        out[deck] = {k: result[k] for k in ("items", "item_accuracy", "confident_reads",
                                             "false_confident_reads")}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scenes", type=int, default=SCENES)
    parser.add_argument("--shoes", type=int, default=300)
    parser.add_argument("--photos-only", action="store_true",
                        help="only the real photos (both with and without the dark-card look)")
    args = parser.parse_args()
    decks = held_out_decks()
    names = [d.name for d in decks]
    reader = CardReader()
    own = reader.threshold
    with tempfile.TemporaryDirectory() as tmp:
        if not args.photos_only:
            scenes = Path(tmp) / "scenes"
            write_folder(scenes, args.scenes, HELD_OUT_SEED, decks=decks)
            scenes_read = read(reader, scenes)
            print(figures("card recogniser on held-out decks' rendered scenes", scenes_read, own,
                          seed=HELD_OUT_SEED, decks=names,
                          per_deck=per_deck(scenes_read, scenes, own)))
            for threshold in OTHER_THRESHOLDS:
                print(figures(f"card recogniser on held-out decks' rendered scenes, at "
                              f"{threshold}", scenes_read, threshold,
                              seed=HELD_OUT_SEED, decks=names))
            still = Path(tmp) / "still"
            write_folder(still, args.scenes, HELD_OUT_SEED, decks=decks, still_camera=True)
            still_read = read(reader, still)
            print(figures("card recogniser on held-out decks' rendered scenes, camera still "
                          "and focused", still_read, own, seed=HELD_OUT_SEED, decks=names,
                          per_deck=per_deck(still_read, still, own)))
            shoes = Path(tmp) / "shoes"
            write_folder(shoes, args.shoes, HELD_OUT_SEED + 1, shoe=True, decks=decks)
            shoe_reader = ShoeWindowReader()
            print(figures("card recogniser on held-out decks' shoe windows",
                          read(shoe_reader, shoes), shoe_reader.threshold,
                          seed=HELD_OUT_SEED + 1, decks=names))
            dark = Path(tmp) / "dark"
            write_folder(dark, args.scenes, HELD_OUT_SEED + 2, decks=decks, dark_stock=1.0)
            print(figures("card recogniser on held-out decks printed on dark card",
                          read(reader, dark), own, seed=HELD_OUT_SEED + 2, decks=names))
            fitted = fit_decks()
            for still_camera, taken in ((False, ""), (True, ", camera still and focused")):
                known = Path(tmp) / f"fitted_{still_camera}"
                write_folder(known, args.scenes, FITTED_SEED, decks=fitted,
                             still_camera=still_camera)
                print(figures("card recogniser on fresh scenes of the designs it was fitted on"
                              f"{taken} (no target: what the scenes allow)", read(reader, known),
                              own, seed=FITTED_SEED, decks=[d.name for d in fitted]))
        if (PHOTOS / "labels.jsonl").exists():
            held_out = photo_split().held_out
            photos = read(reader, write_photos(Path(tmp) / "photos", held_out))
            print(figures("card recogniser on the held-out real photos", photos, own,
                          source=str(PHOTOS)))
            for threshold in OTHER_THRESHOLDS:
                print(figures(f"card recogniser on the held-out real photos, at {threshold}",
                              photos, threshold, source=str(PHOTOS)))
            light = read(CardReader(dark_cards=False), Path(tmp) / "photos")
            print(figures("card recogniser on the held-out real photos, light cards only look",
                          light, own, source=str(PHOTOS)))
            others = read(reader, write_photos(Path(tmp) / "other_sessions", [
                e for e in held_out if not e["image"].startswith(TRAIN_PHOTO_PREFIX)]))
            print(figures("card recogniser on the real photos of sessions never trained on",
                          others, own, source=str(PHOTOS)))
        else:
            print(f"real photos not found in {PHOTOS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
