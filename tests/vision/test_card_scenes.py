"""The card scene generator: seeded, every usable deck complete, labels that say what the
pixels show, held-out decks kept apart. Needs Debian's card decks and rsvg-convert."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.scenes.cards import (
    CODES,
    HELD_OUT_DECKS,
    CardScene,
    card_faces,
    dark_stock_face,
    deck_named,
    fill_cache,
    index_boxes,
    installed_decks,
    main,
    render_scene,
    render_shoe_window,
    second_index_upright,
    skipped_decks,
    training_decks,
    write_folder,
)

pytestmark = pytest.mark.skipif(
    not installed_decks() or shutil.which("rsvg-convert") is None,
    reason="Debian's card decks are absent: apt install gnome-cards-data "
           "kdegames-card-data-kf5 librsvg2-bin")

#: A few decks that differ most (two indices or four, plain or cream card), kept to make the
#: scene tests fast and their faces few to render on a fresh cache.
FEW = ("anglo", "dondorf", "kde-nicu-white")


def few() -> list[str]:
    names = {d.name for d in installed_decks()}
    return [n for n in FEW if n in names] or [installed_decks()[0].name]


def scene(seed: int, *, size: tuple[int, int] = (640, 480), count: int | None = None,
          overlap: float = 0.5) -> CardScene:
    return render_scene(np.random.default_rng(seed), decks=few(), size=size, count=count,
                        overlap=overlap)


def poly(points: tuple[tuple[float, float], ...]) -> npt.NDArray[np.float32]:
    return np.array(points, np.float32)


def inside(inner: npt.NDArray[np.float32], outer: npt.NDArray[np.float32]) -> bool:
    return all(cv2.pointPolygonTest(outer.reshape(-1, 1, 2), (float(x), float(y)), True) >= -0.5
               for x, y in inner)


def overlap(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    area, _ = cv2.intersectConvexConvex(a, b)
    return float(area)


def test_a_seed_always_gives_the_same_scene() -> None:
    a, b, c = scene(3), scene(3), scene(4)
    assert np.array_equal(a.image, b.image)
    assert a.label() == b.label()
    assert not np.array_equal(a.image, c.image)
    s1 = render_shoe_window(np.random.default_rng(5), decks=few())
    s2 = render_shoe_window(np.random.default_rng(5), decks=few())
    assert np.array_equal(s1.image, s2.image) and s1.label() == s2.label()


def test_every_usable_deck_has_52_distinct_faces_of_one_size() -> None:
    for deck in installed_decks():
        faces = card_faces(deck)
        assert sorted(faces) == sorted(CODES), deck.name
        shapes = {f.shape for f in faces.values()}
        assert len(shapes) == 1, f"{deck.name}: faces of sizes {shapes}"
        height, width, channels = shapes.pop()
        assert 300 <= height <= 400 and 0.55 < width / height < 0.85 and channels == 4, deck.name
        digests = {f.tobytes() for f in faces.values()}
        assert len(digests) == 52, f"{deck.name}: only {len(digests)} distinct faces"


def test_skipped_decks_say_why_and_are_not_offered() -> None:
    usable = {d.name for d in installed_decks()}
    for name, reason in skipped_decks().items():
        assert reason and name not in usable


def test_held_out_and_training_decks_are_disjoint_and_both_present() -> None:
    training = {d.name for d in training_decks()}
    held = {d.name for d in installed_decks()} - training
    assert training and held
    assert not training & set(HELD_OUT_DECKS)
    assert held <= set(HELD_OUT_DECKS)
    assert 0.15 <= len(held) / len(installed_decks()) <= 0.35


def test_labels_match_the_drawing() -> None:
    for seed in range(12):
        s = scene(seed, overlap=0.7)
        h, w = s.image.shape[:2]
        label = s.label()
        assert label["cards"] == sorted({c.code for c in s.cards if any(c.visible_corners)})
        assert len(set(label["cards"])) == len(label["cards"])
        for i, card in enumerate(s.cards):
            outline = poly(card.outline)
            for quad, box, seen in zip(card.corner_quads, card.corner_boxes,
                                       card.visible_corners, strict=True):
                if not seen:
                    continue
                x, y, bw, bh = box
                assert min(x, y) >= 0 and x + bw <= w and y + bh <= h
                assert inside(poly(quad), outline)
                for above in s.cards[i + 1:]:
                    assert overlap(poly(quad), poly(above.outline)) < 1.0, (seed, card.code)
        assert len(label["boxes"]) == sum(sum(c.visible_corners) for c in s.cards)


def test_a_labelled_index_shows_its_print() -> None:
    """Where a box says an index is, the frame holds dark or coloured print on light card."""
    for seed in range(6):
        s = scene(seed)
        gray = cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        for x, y, bw, bh, _ in s.label()["boxes"]:
            patch = gray[int(y):int(y + bh) + 1, int(x):int(x + bw) + 1]
            assert patch.max() - patch.min() > 40, (seed, x, y)


def test_a_dark_stock_face_turns_paper_to_stock_and_each_ink_to_its_print() -> None:
    white, black, red, blank = (255, 255, 255, 255), (0, 0, 0, 255), (30, 30, 220, 255), (
        0, 0, 0, 0)
    face = np.array([[white, black, red, blank]], np.uint8)
    stock, gold, silver = (22, 22, 24), (70, 172, 214), (192, 192, 188)
    out = dark_stock_face(face, stock, silver, gold)
    assert out.shape == face.shape and out.dtype == np.uint8
    assert out[0, 0, :3].tolist() == list(stock)
    assert out[0, 1, :3].tolist() == list(silver)
    assert np.abs(out[0, 2, :3].astype(int) - gold).max() <= 30
    assert out[:, :, 3].tolist() == face[:, :, 3].tolist()


def test_a_dark_stock_deck_is_drawn_light_on_dark_card() -> None:
    """With dark_stock 1 every card is dark where a light deck's is light; the labels hold."""
    for seed in range(4):
        rng = np.random.default_rng(seed)
        s = render_scene(rng, decks=few(), count=2, overlap=0.0, dark_stock=1.0)
        gray = cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY)
        for card in s.cards:
            mask = np.zeros(gray.shape, np.uint8)
            cv2.fillConvexPoly(mask, np.round(poly(card.outline)).astype(np.int32), 1)
            assert np.median(gray[mask > 0]) < 100, (seed, card.code)
        assert s.label()["boxes"]
        window = render_shoe_window(np.random.default_rng(seed), decks=few(), dark_stock=1.0)
        light = render_shoe_window(np.random.default_rng(seed), decks=few())
        assert window.image.mean() < light.image.mean()


def sharpness(image: npt.NDArray[np.uint8]) -> float:
    """The spread of the frame's Laplacian: the more fine detail, the more it spreads."""
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def test_a_still_camera_takes_the_same_cards_never_blurrier() -> None:
    """A camera mounted still and focused sees the very cards a hand-held one does, labelled
    alike, and never a blurrier frame; some hand-held frames are shaken or out of focus."""
    sharper = 0
    for seed in range(12):
        held = render_scene(np.random.default_rng(seed), decks=few())
        still = render_scene(np.random.default_rng(seed), decks=few(), still_camera=True)
        assert still.label() == held.label()
        assert sharpness(still.image) >= 0.97 * sharpness(held.image), seed
        sharper += sharpness(still.image) > 1.3 * sharpness(held.image)
    assert sharper >= 2


def test_overlap_hides_some_indices_but_never_a_whole_labelled_card() -> None:
    hidden = 0
    for seed in range(10):
        s = scene(seed, count=6, overlap=1.0)
        hidden += sum(not v for c in s.cards for v in c.visible_corners)
        assert all(any(c.visible_corners) for c in s.cards)
    assert hidden > 0


def test_scene_size_and_count_are_kept() -> None:
    s = scene(1, size=(320, 240), count=3)
    assert s.image.shape == (240, 320, 3) and s.image.dtype == np.uint8
    assert len(s.cards) == 3
    with pytest.raises(ValueError):
        scene(1, count=0)


def test_shoe_window_shows_the_asked_card_inside_the_window() -> None:
    shown = 0
    for seed in range(10):
        s = render_shoe_window(np.random.default_rng(seed), deck=few()[0], code="10H")
        assert s.image.shape == (120, 160, 3)
        assert [c.code for c in s.cards] == ["10H"]
        label = s.label()
        if label["cards"]:
            shown += 1
            x, y, bw, bh, code = label["boxes"][0]
            assert code == "10H" and min(x, y) >= 0 and x + bw <= 160 and y + bh <= 120
    assert shown >= 5


def test_a_shoe_card_whose_index_the_window_cuts_is_labelled_partly_seen() -> None:
    # The card is in the shoe either way: when the window cuts its index the label says so,
    # so that reading it is not counted a wrong read (vision.evaluate).
    cut = 0
    for seed in range(100):
        s = render_shoe_window(np.random.default_rng(seed), decks=few())
        label = s.label()
        assert label["partly_seen"] == ([] if label["cards"] else [s.cards[0].code])
        cut += not label["cards"]
    assert cut > 0


def test_a_table_scene_has_no_card_partly_seen() -> None:
    # Every card laid on the table keeps an index in view (the layout's rule).
    for seed in range(6):
        assert scene(seed, count=6, overlap=1.0).label()["partly_seen"] == []


def test_folder_reads_back(tmp_path: Path) -> None:
    write_folder(tmp_path / "t", 3, seed=9, decks=few())
    write_folder(tmp_path / "s", 2, seed=9, shoe=True, decks=few())
    for sub, n in (("t", 3), ("s", 2)):
        lines = [json.loads(line) for line in
                 (tmp_path / sub / "labels.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(lines) == n
        for i, entry in enumerate(lines):
            image = cv2.imread(str(tmp_path / sub / entry["image"]))
            assert image is not None
            again = (render_shoe_window if sub == "s" else render_scene)(
                np.random.default_rng([9, i]), decks=few())
            assert entry["cards"] == again.label()["cards"]
            assert entry["deck"] in few() and entry["seed"] == 9 and entry["index"] == i
            assert all(b[4] in entry["cards"] for b in entry["boxes"])


def test_command_line_writes_training_decks_only(tmp_path: Path) -> None:
    assert main([str(tmp_path), "--count", "2", "--seed", "4", "--training"]) == 0
    lines = (tmp_path / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert all(json.loads(line)["deck"] not in HELD_OUT_DECKS for line in lines)


def test_filling_the_cache_renders_every_face_and_measures_the_indices(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOYLE_CARD_CACHE", str(tmp_path))
    deck = deck_named(few()[0])
    index_boxes.cache_clear()  # measured by an earlier test into the usual cache
    fill_cache([deck])
    assert sorted(p.stem for p in (tmp_path / deck.name).glob("*.png")) == sorted(CODES)
    assert (tmp_path / deck.name / "corners.json").exists()


def test_the_command_line_wants_a_folder_or_the_cache_to_fill(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--count", "2"])
    assert "--fill-cache" in capsys.readouterr().err


def _ink_halves(face: npt.NDArray[np.uint8], box: tuple[float, ...]
                ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The ink of a box's upper and lower glyph (split at the row of least ink nearest the
    middle), each scaled to 16 x 16."""
    x, y, w, h = (round(v) for v in box)
    grey = cv2.cvtColor(np.ascontiguousarray(face[y:y + h, x:x + w, :3]), cv2.COLOR_BGR2GRAY)
    ink = grey < 128
    rows = ink.sum(axis=1)
    middle = range(h // 4, 3 * h // 4)
    split = min(middle, key=lambda r: (rows[r], abs(r - h / 2)))

    def scaled(part: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        ys, xs = np.nonzero(part)
        crop = part[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.uint8) * 255
        return np.asarray(cv2.resize(crop, (16, 16), interpolation=cv2.INTER_AREA) > 127)

    return scaled(ink[:split]), scaled(ink[split:])


def _alike(a: npt.NDArray[np.bool_], b: npt.NDArray[np.bool_]) -> float:
    return float((a & b).sum() / max(1, (a | b).sum()))


def test_a_design_drawn_with_its_second_index_upright_prints_its_suit_over_its_rank() -> None:
    # As kde-ancient-egyptians prints it: at the bottom right, the suit sign above the rank,
    # each the right way up, where other designs turn the whole index round.
    # (The plainest design: where an index's box holds a corner of the pip beside it, as
    # dondorf's does, this test's cut between the glyphs does not find them.)
    deck = deck_named(few()[0])
    face = card_faces(deck)["6C"]
    boxes = index_boxes(deck)["6C"]
    upright = second_index_upright(face, boxes)
    rank, suit = _ink_halves(face, boxes[0])
    top, bottom = _ink_halves(upright, boxes[1])
    _, turned_bottom = _ink_halves(face, boxes[1])
    assert _alike(bottom, rank) > 0.6 and _alike(top, suit) > 0.6, deck.name
    assert _alike(bottom, rank) > _alike(turned_bottom, rank) + 0.1, deck.name
    # Above the second index, the face is as it was.
    assert np.array_equal(upright[: int(boxes[1][1])], face[: int(boxes[1][1])]), deck.name


def test_a_scene_can_show_the_cards_it_is_given_copies_too() -> None:
    given = ["QH", "7C", "7C", "AS"]
    drawn = render_scene(np.random.default_rng(11), decks=few(), codes=given, overlap=0.0)
    assert sorted(card.code for card in drawn.cards) == sorted(given)
    assert drawn.label()["cards"] == sorted(given)
    again = render_scene(np.random.default_rng(11), decks=few(), codes=given, overlap=0.0)
    assert np.array_equal(drawn.image, again.image)


def test_a_scene_refuses_a_card_that_does_not_exist() -> None:
    with pytest.raises(ValueError, match="no such card: 1S, ZZ"):
        render_scene(np.random.default_rng(0), decks=few(), codes=["QH", "ZZ", "1S"])
