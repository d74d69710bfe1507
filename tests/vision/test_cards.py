"""The card recogniser on frames it never saw: scenes and shoe windows of held-out decks.

Rendered frames come from `held_out_decks()` (designs training never drew) and seeds used
only here; the real photos, only those `photo_split()` holds out from training, are read
from ../shared/data/cards when present (the tests that need them skip, saying so,
otherwise). Timing is left to bench/vision_cards.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.fonts import needs_fonts
from vision.cards import (
    CARD_LENGTH,
    DEFAULT_MODELS,
    DEFAULT_THRESHOLD,
    FAIR_PEAK,
    FINE_MARGIN,
    FINE_SIDE,
    KEEP,
    RANKS,
    SAME_SIZE,
    SUITS,
    Candidate,
    CardModelError,
    CardReader,
    IndexClassifier,
    IndexRead,
    IndexRefiner,
    ShoeWindowReader,
    classifier_input,
    closer_look_region,
    crop_indices,
    doubt_turned_twins,
    index_candidates,
    look_closer,
    merge_candidates,
    merge_cards,
    moved_by,
    on_dark_ground,
    one_cards_corners,
)
from vision.core import BadFrameError
from vision.evaluate import evaluate, load_labels
from vision.scenes.card_indices import typeset_index
from vision.scenes.cards import CODES, held_out_decks, render_scene, write_folder
from vision.scenes.dice import FELTS, felt_surface
from vision.train_cards import SAME_TURNED, misplaced, photo_split, scene_indices, write_photos

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cards"
needs_photos = pytest.mark.skipif(not (PHOTOS / "labels.jsonl").exists(),
                                  reason=f"the real card photos are not in {PHOTOS}")
needs_decks = pytest.mark.skipif(not held_out_decks(), reason="Debian's card designs are not "
                                 "installed (gnome-cards-data, kdegames-card-data-kf5)")
#: Seeds for these tests only.
SEED = 930_000
SCENES = 24
SHOES = 40
PHOTO_STEP = 3
# The issue's targets are not met yet (see the xfail tests and bench/vision_cards.py). These
# floors are the levels the committed models reach now on these frames (scenes: 0.884 of
# cards, one of the sure reads wrong; shoe windows: 0.90, none wrong and sure; held-out
# photos: 0.25 and none), a little below, so that a change that makes them worse fails;
# raise them as the recogniser improves. These sets are small: one classifier alone read
# these shoe windows 0.85 with two wrong and sure, and 0.925 with one, as it was refitted.
# (Reads of light print on dark card go to the dealer: a third of the photos show such a
# deck.)
SCENE_ITEMS, SCENE_WRONG = 0.86, 0.03
SHOE_ITEMS, SHOE_WRONG = 0.85, 0.03
PHOTO_ITEMS, PHOTO_WRONG = 0.22, 0.1
DARK_SCENES = 16
#: Scenes of held-out designs whose indices, misplaced, the refiner must put back: each
#: median error (centre, turn, size) after at most REFINED_ERROR of what it was (now 0.27,
#: 0.08 and 0.37), and a share REFINED_MORE_READ more of them read surely and rightly (now
#: 0.30 more: 76 of 93, against 48).
REFINED_SCENES, REFINED_ERROR, REFINED_MORE_READ = 12, 0.6, 0.15
#: Of typeset indices with the rank turned round, at most this share may be read surely
#: (the classifier fitted without such crops was sure of 12.5% of these; now none); of the
#: same indices the right way up, at least this share (now 0.9 at DEFAULT_THRESHOLD
#: 0.999 and at 0.995).
TURNED_SURE, TYPESET_SURE = 0.02, 0.85
#: Scenes of two 6s and two 9s of a development design drawn with its second index upright,
#: laid apart (in these, the committed models are sure of a card not on the table 11 times
#: without the doubt, 3 times with it).
TWIN_SCENES, TWIN_DECK = 20, "orell"
#: Scenes of held-out designs seen from further off (each frame shrunk to FAR_SCALE, on the
#: felt's colour): with the closer look the reader reads a share FAR_MORE_READ more of their
#: cards than without it (now 0.85 against 0.77; none wrong and sure with either).
FAR_SCENES, FAR_SCALE, FAR_MORE_READ = 16, 0.6, 0.05


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader()


@pytest.fixture(scope="module")
def scenes(reader: CardReader, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("held_out_scenes")
    write_folder(folder, SCENES, SEED, decks=held_out_decks())
    return evaluate(reader, folder, "cards")


@pytest.fixture(scope="module")
def shoes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("held_out_shoes")
    write_folder(folder, SHOES, SEED + 1, shoe=True, decks=held_out_decks())
    return evaluate(ShoeWindowReader(), folder, "cards")


@pytest.fixture(scope="module")
def photos(reader: CardReader, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # Only photos training never drew from; every third keeps the file quick
    # (bench/vision_cards.py reads them all).
    held_out = photo_split(PHOTOS).held_out[::PHOTO_STEP]
    return evaluate(reader, write_photos(tmp_path_factory.mktemp("photos"), held_out), "cards")


@needs_decks
def test_held_out_scenes_stay_at_the_present_level(scenes: dict[str, Any]) -> None:
    assert scenes["item_accuracy"] >= SCENE_ITEMS, scenes
    assert scenes["false_confident_rate"] <= SCENE_WRONG, scenes


@needs_decks
def test_held_out_shoe_windows_stay_at_the_present_level(shoes: dict[str, Any]) -> None:
    assert shoes["item_accuracy"] >= SHOE_ITEMS, shoes
    assert shoes["false_confident_rate"] <= SHOE_WRONG, shoes


@needs_photos
def test_held_out_photos_stay_at_the_present_level(photos: dict[str, Any]) -> None:
    assert photos["item_accuracy"] >= PHOTO_ITEMS, photos
    assert photos["false_confident_rate"] <= PHOTO_WRONG, photos


@needs_decks
def test_a_deck_printed_on_dark_card_is_confirmed_not_guessed(
        reader: CardReader, tmp_path: Path) -> None:
    """Gold or white suits do not tell red from black: such cards go to the dealer."""
    write_folder(tmp_path, DARK_SCENES, SEED + 2, decks=held_out_decks(), dark_stock=1.0)
    result = evaluate(reader, tmp_path, "cards")
    assert result["false_confident_rate"] == 0.0, result
    assert result["unsure_rate"] >= 0.2, result
    light = evaluate(CardReader(dark_cards=False), tmp_path, "cards")
    assert light["unsure_rate"] < result["unsure_rate"], light


@needs_decks
@pytest.mark.xfail(strict=True, reason="the issue's target is not met yet: see "
                   "bench/vision_cards.py for the measured figure")
def test_held_out_scenes_meet_the_issues_targets(scenes: dict[str, Any]) -> None:
    # One test for both figures: on these few scenes (about a hundred cards) no wrong and
    # sure read at all is no proof of a rate under 0.2%; bench/vision_cards.py measures it.
    assert scenes["item_accuracy"] >= 0.995
    assert scenes["false_confident_rate"] < 0.002


@needs_decks
@pytest.mark.xfail(strict=True, reason="the issue's target is not met yet: see "
                   "bench/vision_cards.py for the measured figure")
def test_held_out_shoe_windows_meet_the_issues_targets(shoes: dict[str, Any]) -> None:
    assert shoes["item_accuracy"] >= 0.995
    assert shoes["false_confident_rate"] < 0.002


@needs_photos
@pytest.mark.xfail(strict=True, reason="the issue's target is not met yet: see "
                   "bench/vision_cards.py for the measured figure")
def test_real_photos_meet_the_issues_targets(photos: dict[str, Any]) -> None:
    assert photos["item_accuracy"] >= 0.995
    assert photos["false_confident_rate"] < 0.002


@pytest.mark.parametrize("felt", sorted(FELTS))
def test_an_empty_table_reads_nothing(reader: CardReader, felt: str) -> None:
    colour = FELTS[felt]
    surface = felt_surface(np.random.default_rng([SEED + 2, len(felt)]), 640, 480,
                           colour.colour, colour.kind, colour.grain)
    frame = np.clip(surface, 0, 255).astype(np.uint8)
    assert reader(frame) == []


def test_a_plain_frame_reads_nothing(reader: CardReader) -> None:
    assert reader(np.full((480, 640, 3), (40, 110, 30), np.uint8)) == []
    assert ShoeWindowReader()(np.full((120, 160, 3), 20, np.uint8)) == []


@needs_decks
def test_a_lone_card_is_read_once(reader: CardReader) -> None:
    scene = render_scene(np.random.default_rng([SEED + 3, 0]), count=1, overlap=0.0,
                         decks=held_out_decks())
    reads = reader(scene.image)
    assert [r.value for r in reads if r.confidence >= reader.threshold] in (
        [], [scene.cards[0].code]), (reads, scene.cards[0].code)
    assert len({r.value for r in reads}) == len(reads), reads


def test_one_index_found_at_both_scales_is_kept_once() -> None:
    near = Candidate(100, 100, 0, -1, 20, score=0.9)
    same = Candidate(104, 97, 0, -1, 22, score=0.95)
    apart = Candidate(140, 100, 0, -1, 20, score=0.5)
    assert merge_candidates([near, same, apart]) == [same, apart]


def test_a_candidate_of_another_size_does_not_hide_the_index_beside_it() -> None:
    # The close look may guess an index at twice its size, centred a little off it: the
    # index's own candidate, scored lower, must still be read.
    index = Candidate(100, 100, 0, -1, 20, score=0.6)
    too_big = Candidate(108, 104, 0, -1, 20 * SAME_SIZE * 1.3, score=0.9)
    assert merge_candidates([index, too_big]) == [too_big, index]


def _corners(turn: float, size: float = 20.0) -> tuple[Candidate, Candidate]:
    """The two indices of one card turned `turn` radians: the first at its top left, the
    second, turned round, 2.5 index heights across and 3.2 down from it."""
    c, s = math.cos(turn), math.sin(turn)
    ux, uy = s, -c  # the card's up, in frame pixels (y down)
    rx, ry = c, s   # its right
    first = Candidate(300, 240, ux, uy, size)
    second = Candidate(300 + size * (2.5 * rx - 3.2 * ux), 240 + size * (2.5 * ry - 3.2 * uy),
                       -ux, -uy, size)
    return first, second


@pytest.mark.parametrize("turn", [0.0, 0.7, 2.0, math.pi, 4.4])
def test_one_cards_two_corners_are_told_at_any_turn(turn: float) -> None:
    first, second = _corners(turn)
    assert one_cards_corners(first, second) and one_cards_corners(second, first)
    # Facing the same way: the top-left indices of two cards side by side.
    assert not one_cards_corners(first, Candidate(second.x, second.y, first.ux, first.uy, 20))
    # Facing away but a card's length off, or straight below: not one card's corners.
    far = Candidate(first.x - CARD_LENGTH * 20 * first.ux, first.y - CARD_LENGTH * 20 * first.uy,
                    -first.ux, -first.uy, 20)
    below = Candidate(first.x - 3.2 * 20 * first.ux, first.y - 3.2 * 20 * first.uy,
                      -first.ux, -first.uy, 20)
    assert not one_cards_corners(first, far) and not one_cards_corners(first, below)


def test_a_6_and_a_9_of_one_suit_on_one_cards_corners_go_to_the_dealer() -> None:
    # A design that prints its second index upright shows a 6 there as a 9 to a reader
    # that turns it round like any other: which card it is, only the dealer can say.
    first, second = _corners(0.3)
    doubted = doubt_turned_twins([IndexRead(first, "6D", 0.9999, 1.0),
                                  IndexRead(second, "9D", 0.9998, 1.0)])
    assert [r.code for r in doubted] == ["6D", "9D"]
    assert all(r.confidence < 0.001 for r in doubted), doubted
    # Anything else is left as read: another suit, another rank, the same rank, or a 9 on
    # another card facing the same way.
    for other in (IndexRead(second, "9H", 0.9998, 1.0), IndexRead(second, "8D", 0.9998, 1.0),
                  IndexRead(second, "6D", 0.9998, 1.0),
                  IndexRead(Candidate(second.x, second.y, first.ux, first.uy, 20), "9D",
                            0.9998, 1.0)):
        reads = [IndexRead(first, "6D", 0.9999, 1.0), other]
        assert doubt_turned_twins(reads) == reads


@needs_decks
def test_a_design_with_its_second_index_upright_is_not_read_surely_as_the_turned_twin(
        reader: CardReader) -> None:
    # Drawn with its second index upright (its suit over its rank), a design's 6 of clubs
    # shows there, turned round as the finder turns a second index, a 9 over a club turned
    # round. The doubt must take away at least half the sure reads of a card not on the
    # table.
    undoubted = doubted = 0
    for i in range(TWIN_SCENES):
        scene = render_scene(np.random.default_rng([SEED + 7, i]), decks=[TWIN_DECK],
                             codes=["6D", "9D", "6C", "9S"], overlap=0.0,
                             upright_second_index=True)
        on_table = {c.code for c in scene.cards}
        indices = reader.indices(scene.image)
        undoubted += sum(r.confidence >= reader.threshold and r.code not in on_table
                         for r in merge_cards(indices))
        doubted += sum(r.confidence >= reader.threshold and r.value not in on_table
                       for r in reader(scene.image))
    assert doubted <= undoubted // 2, (doubted, undoubted)


@pytest.mark.parametrize("frame", [
    None, "frame.png", np.zeros((0, 0, 3), np.uint8), np.zeros((48, 64), np.uint8),
    np.zeros((48, 64, 4), np.uint8), np.zeros((48, 64, 3), np.float32),
])
def test_frames_that_are_not_8_bit_colour_images_are_refused(reader: CardReader,
                                                             frame: object) -> None:
    with pytest.raises(BadFrameError):
        reader(frame)  # type: ignore[arg-type]
    with pytest.raises(BadFrameError):
        ShoeWindowReader()(frame)  # type: ignore[arg-type]


def test_a_missing_model_is_named(tmp_path: Path) -> None:
    with pytest.raises(CardModelError, match=r"nothing\.onnx"):
        CardReader(models=(DEFAULT_MODELS[0], tmp_path / "nothing.onnx"))
    with pytest.raises(CardModelError, match=r"no_finder\.onnx"):
        ShoeWindowReader(finder=tmp_path / "no_finder.onnx")


def test_a_missing_refiner_is_named_and_a_reader_may_go_without_one(tmp_path: Path) -> None:
    with pytest.raises(CardModelError, match=r"no_refiner\.onnx"):
        CardReader(refiner=tmp_path / "no_refiner.onnx")
    with pytest.raises(CardModelError, match=r"no_refiner\.onnx"):
        ShoeWindowReader(refiner=tmp_path / "no_refiner.onnx")
    assert CardReader(refiner=None).refiner is None
    with pytest.raises(ValueError, match="at least once"):
        IndexRefiner(steps=0)


def test_a_closer_look_is_taken_only_near_small_indices() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)

    def index(x: float, y: float, size: float, score: float = 0.9) -> Candidate:
        return Candidate(x, y, 0, -1, size, score)

    assert closer_look_region([], frame) is None
    # Indices of 45 pixels or more in a 640-pixel frame are big enough for the first looks.
    assert closer_look_region([index(300, 200, 60), index(100, 100, 45)], frame) is None
    # Around each small one, FINE_MARGIN of its heights, held inside the frame.
    assert closer_look_region([index(300, 200, 60), index(100, 100, 20)], frame) == (
        100 - FINE_MARGIN * 20, 100 - FINE_MARGIN * 20, 100 + FINE_MARGIN * 20,
        100 + FINE_MARGIN * 20)
    assert closer_look_region([index(10, 470, 20), index(600, 200, 30)], frame) == (
        0, 200 - FINE_MARGIN * 30, 640, 480)
    # A faint peak proves nothing: only candidates the finder is fairly sure of count.
    assert closer_look_region([index(100, 100, 20, FAIR_PEAK / 2)], frame) is None


def test_the_closer_look_finds_in_frame_pixels(reader: CardReader) -> None:
    frame = render_scene(np.random.default_rng([SEED + 10, 0]), decks=held_out_decks()[:1],
                         count=3).image
    small = cv2.resize(frame, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    far = np.zeros_like(frame)
    far[100:100 + small.shape[0], 200:200 + small.shape[1]] = small
    first = [c for side in reader.sides for c in reader.finder(far, side)]
    found = look_closer(far, reader.finder, first, FINE_SIDE)
    region = closer_look_region(first, far)
    assert region is not None and found
    whole = reader.finder(far, FINE_SIDE)
    assert all(region[0] <= c.x <= region[2] and region[1] <= c.y <= region[3] for c in found)
    # Each index it is fairly sure of, the finder finds looking at the whole frame as closely
    # (a faint peak may come of the region's edge).
    fair = [c for c in found if c.score >= FAIR_PEAK]
    assert fair
    for c in fair:
        assert min(math.hypot(c.x - o.x, c.y - o.y) for o in whole) < 0.25 * c.size


@needs_decks
def test_cards_seen_from_further_off_are_read_by_the_closer_look(tmp_path: Path) -> None:
    write_folder(tmp_path, FAR_SCENES, SEED + 9, decks=held_out_decks())
    for label in load_labels(tmp_path, "cards"):
        frame = cv2.imread(str(label.image))
        assert frame is not None
        h, w = frame.shape[:2]
        far = cv2.resize(frame, None, fx=FAR_SCALE, fy=FAR_SCALE, interpolation=cv2.INTER_AREA)
        top, left = (h - far.shape[0]) // 2, (w - far.shape[1]) // 2
        felt = [int(v) for v in np.median(frame.reshape(-1, 3), axis=0)]
        cv2.imwrite(str(label.image), cv2.copyMakeBorder(
            far, top, h - far.shape[0] - top, left, w - far.shape[1] - left,
            cv2.BORDER_CONSTANT, value=felt))
    closer = evaluate(CardReader(), tmp_path, "cards")
    without = evaluate(CardReader(fine_side=None), tmp_path, "cards")
    assert closer["item_accuracy"] >= without["item_accuracy"] + FAR_MORE_READ, (closer, without)
    assert closer["false_confident_rate"] <= SCENE_WRONG, closer


def test_a_file_that_is_no_model_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "card_finder.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(CardModelError, match="not a card model"):
        CardReader(finder=bad)


def test_a_classifier_of_no_members_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one member"):
        IndexClassifier(())


@needs_decks
def test_the_classifier_averages_its_members_on_the_crops_the_first_keeps(
        reader: CardReader) -> None:
    """Each member is a classifier on its own; the ensemble's probabilities are the mean of
    its members' for every crop the first member would keep, and the first's for the rest
    (which no threshold over about 0.85 could take)."""
    scene = render_scene(np.random.default_rng([SEED + 5, 0]), count=4,
                         decks=held_out_decks())
    candidates = index_candidates(scene.image, reader.finder, reader.refiner, reader.sides)
    crops = crop_indices(scene.image, candidates)
    members = [IndexClassifier((path,)).probabilities(crops) for path in DEFAULT_MODELS]
    ranks, suits = IndexClassifier(DEFAULT_MODELS).probabilities(crops)
    first_ranks, first_suits = members[0]
    kept = first_ranks[:, :-1].max(axis=1) * first_suits.max(axis=1) >= KEEP
    assert 0 < kept.sum() < len(crops), "the scene should show both indices and not"
    mean_ranks = np.mean([r for r, _ in members], axis=0)
    mean_suits = np.mean([s for _, s in members], axis=0)
    np.testing.assert_allclose(ranks[kept], mean_ranks[kept], atol=1e-5)
    np.testing.assert_allclose(suits[kept], mean_suits[kept], atol=1e-5)
    np.testing.assert_allclose(ranks[~kept], first_ranks[~kept], atol=1e-6)
    np.testing.assert_allclose(suits[~kept], first_suits[~kept], atol=1e-6)
    # The members are fitted from different seeds: they do not agree to the last digit.
    assert not np.allclose(members[0][0][kept], members[1][0][kept], atol=1e-4)


@needs_fonts
def test_a_rank_seen_the_wrong_way_up_over_a_pip_is_not_read_surely() -> None:
    """A rank turned round over a suit sign the right way up (a Q turned round over a heart)
    is no index a card prints, but the finder may offer one where a rank stands near a pip;
    and over a diamond, which looks the same turned round, it is what the second index of a
    design that prints it upright (its suit sign over its rank) shows when turned round as
    an ordinary second index is. Typeset so, such crops must not be read surely; the same
    indices the right way up still are."""
    classifier = IndexClassifier()
    codes = [code for code in CODES if code[:-1] not in SAME_TURNED]
    sure = {}
    for turns in (0, 2):
        crops = []
        for i, code in enumerate(codes * 2):
            frame, (centre, up, height, _, _) = typeset_index(
                np.random.default_rng([SEED + 6, i]), code, rank_turns=turns)
            crops.append(crop_indices(frame, [Candidate(float(centre[0]), float(centre[1]),
                                                        float(up[0]), float(up[1]),
                                                        height)])[0])
        ranks, suits = classifier.probabilities(np.stack(crops))
        sure[turns] = float(np.mean(ranks[:, :-1].max(axis=1) * suits.max(axis=1)
                                    >= DEFAULT_THRESHOLD))
    assert sure[2] <= TURNED_SURE, sure
    assert sure[0] >= TYPESET_SURE, sure


def test_a_threshold_outside_0_to_1_is_refused() -> None:
    with pytest.raises(ValueError, match="threshold"):
        CardReader(threshold=1.5)


def test_reads_are_json_ready(reader: CardReader) -> None:
    scene = render_scene(np.random.default_rng([SEED + 4, 0]), count=3)
    for read in reader(scene.image):
        assert isinstance(read.value, str)
        assert 0.0 <= read.confidence <= 1.0
        json.dumps(read.to_json())


def _printed(ink: tuple[int, int, int], paper: tuple[int, int, int]) -> np.ndarray:
    """A 32 x 32 colour crop: a bar of `ink` across `paper` (BGR)."""
    crop = np.empty((1, 32, 32, 3), np.uint8)
    crop[:] = paper
    crop[0, 8:24, 12:20] = ink
    return crop


@pytest.mark.parametrize("paper", [(235, 235, 235), (170, 200, 240), (90, 90, 90)],
                         ids=["white", "under warm light", "dim"])
def test_the_classifier_sees_red_ink_apart_from_black(paper: tuple[int, int, int]) -> None:
    """Hearts and diamonds are red, spades and clubs black: the classifier's second channel
    shows red ink and not black, whatever the light's colour and strength."""
    dim = paper[0] < 128
    red_ink = (15, 15, 100) if dim else (40, 40, 200)
    black_ink = (15, 15, 15)
    red = classifier_input(_printed(red_ink, paper))
    black = classifier_input(_printed(black_ink, paper))
    bar, outside = (slice(8, 24), slice(12, 20)), (slice(0, 8), slice(0, 32))
    # Both inks are as dark in the first channel...
    assert red[0, 0][bar].mean() < red[0, 0][outside].mean() - 1
    assert black[0, 0][bar].mean() < black[0, 0][outside].mean() - 1
    # ...but only red ink stands out in the second, in units of the crop's contrast.
    assert red[0, 1][bar].mean() > 0.5
    assert abs(float(black[0, 1][bar].mean())) < 0.1
    assert abs(float(red[0, 1][outside].mean())) < 0.1


def test_the_dark_look_turns_light_print_on_a_dark_card_over() -> None:
    """Gold print on a black card: looked at as light print, the print is the dark part."""
    crop = _printed((60, 200, 230), (20, 20, 20))
    bar, outside = (slice(8, 24), slice(12, 20)), (slice(0, 8), slice(0, 32))
    ordinary, dark = classifier_input(crop), classifier_input(crop, dark=True)
    assert ordinary[0, 0][bar].mean() > ordinary[0, 0][outside].mean()
    assert dark[0, 0][bar].mean() < dark[0, 0][outside].mean() - 1


@pytest.mark.parametrize(("print_colour", "card", "dark_ground"), [
    ((60, 200, 230), (20, 20, 20), True),       # gold on black
    ((235, 235, 235), (90, 30, 20), True),      # white on navy
    ((15, 15, 15), (235, 235, 235), False),     # black on white
    ((40, 40, 200), (235, 235, 235), False),    # red on white
    ((10, 10, 10), (70, 70, 70), False),        # black on white, in dim light
], ids=["gold on black", "white on navy", "black on white", "red on white", "dim"])
def test_only_light_print_on_dark_card_counts_as_on_dark_ground(
        print_colour: tuple[int, int, int], card: tuple[int, int, int],
        dark_ground: bool) -> None:
    """The dark look is spent only where the ground is darker than the print."""
    assert on_dark_ground(_printed(print_colour, card)).tolist() == [dark_ground]


def test_the_refiners_targets_take_its_misplaced_candidate_back_onto_the_index() -> None:
    """What the refiner is fitted to say of a misplaced candidate (`misplaced`) is what the
    reader then does with it (`moved_by`): the two must agree, or the refiner learns to
    move candidates the wrong way."""
    rng = np.random.default_rng([SEED + 9, 0])
    moved_far = 0
    for _ in range(300):
        centre = rng.uniform(0, 640, 2)
        angle = float(rng.uniform(0, 2 * np.pi))
        up = np.array([np.cos(angle), np.sin(angle)])
        size = float(rng.uniform(8, 120))
        candidate, moves = misplaced(rng, centre, up, size)
        moved_far += np.hypot(candidate.x - centre[0], candidate.y - centre[1]) > 0.1 * size
        back = moved_by(candidate, *moves)
        assert (back.x, back.y) == pytest.approx((centre[0], centre[1]), abs=1e-6 * size)
        assert (back.ux, back.uy) == pytest.approx((up[0], up[1]), abs=1e-9)
        assert back.size == pytest.approx(size, rel=1e-9)
    assert moved_far > 100, "the candidates should be misplaced"


def _read_surely(classifier: IndexClassifier, crops: np.ndarray, codes: list[str]) -> int:
    """How many of the crops the classifier reads as their codes, at least DEFAULT_THRESHOLD
    sure."""
    ranks, suits = classifier.probabilities(crops)
    sure = ranks[:, :-1].max(axis=1) * suits.max(axis=1)
    return sum(RANKS[int(r)] + SUITS[int(u)] == code and p >= DEFAULT_THRESHOLD
               for r, u, p, code in zip(ranks[:, :-1].argmax(axis=1), suits.argmax(axis=1),
                                        sure, codes, strict=True))


def test_moves_are_along_the_upright_and_across_it_in_index_heights() -> None:
    upright = Candidate(100, 100, 0.0, -1.0, 20)  # the rank above the suit, as the frame shows
    assert moved_by(upright, 0.5, 0.0, 0.0, 0.0) == Candidate(100, 90, 0.0, -1.0, 20)
    # Across is towards the crop's right, which is the frame's left (`crop_indices` mirrors).
    assert moved_by(upright, 0.0, 0.5, 0.0, 0.0) == Candidate(90, 100, 0.0, -1.0, 20)
    grown = moved_by(upright, 0.0, 0.0, float(np.log(1.5)), 0.0)
    assert grown.size == pytest.approx(30)
    turned = moved_by(upright, 0.0, 0.0, 0.0, float(np.pi / 2))
    assert (turned.ux, turned.uy) == pytest.approx((1.0, 0.0))


@needs_decks
def test_the_refiner_puts_misplaced_candidates_back_on_held_out_indices() -> None:
    """Candidates put where a finder might put them on designs it never saw are moved back
    onto their indices, and more of them are then read surely and rightly."""
    refiner, classifier = IndexRefiner(), IndexClassifier()
    before: list[tuple[float, float, float]] = []
    after: list[tuple[float, float, float]] = []
    read_before = read_after = 0
    for i in range(REFINED_SCENES):
        rng = np.random.default_rng([SEED + 10, i])
        scene = render_scene(rng, decks=held_out_decks())
        truth = [t for t in scene_indices(scene, np.array([[1.0, 0, 0], [0, 1.0, 0]])) if t[4]]
        if not truth:
            continue
        cuts = [misplaced(rng, centre, up, size)[0] for centre, up, size, _, _ in truth]
        moved = refiner(scene.image, cuts)
        for (centre, up, size, _, _), was, now in zip(truth, cuts, moved, strict=True):
            for out, c in ((before, was), (after, now)):
                out.append((float(np.hypot(c.x - centre[0], c.y - centre[1])) / size,
                            float(np.degrees(np.arccos(np.clip(c.ux * up[0] + c.uy * up[1],
                                                               -1, 1)))),
                            abs(float(np.log(c.size / size)))))
        codes = [code for _, _, _, code, _ in truth]
        read_before += _read_surely(classifier, crop_indices(scene.image, cuts), codes)
        read_after += _read_surely(classifier, crop_indices(scene.image, moved), codes)
    was_median, now_median = np.median(before, axis=0), np.median(after, axis=0)
    assert len(before) > 60, "the scenes should show indices"
    assert np.all(now_median <= REFINED_ERROR * was_median), (was_median, now_median)
    assert read_after >= read_before + REFINED_MORE_READ * len(before), (read_before,
                                                                         read_after)
