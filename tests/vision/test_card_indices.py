"""The typeset card indices the card classifier is also fitted on
(vision/scenes/card_indices.py): each lies where its truth says, the right way up, the same
for the same seed; a rank turned round is turned over the suit sign it would stand on;
without fonts, the error names the packages to install."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.fonts import needs_fonts
from vision.cards import Candidate, crop_indices
from vision.scenes import card_indices
from vision.scenes.card_indices import NoFonts, typeset_index
from vision.scenes.cards import CODES


@needs_fonts
def test_the_same_seed_typesets_the_same_index() -> None:
    first = typeset_index(np.random.default_rng([5, 1]), "10H")
    again = typeset_index(np.random.default_rng([5, 1]), "10H")
    other = typeset_index(np.random.default_rng([5, 2]), "10H")
    assert np.array_equal(first[0], again[0])
    assert first[1][2] == again[1][2]
    assert not np.array_equal(first[0], other[0]) or first[1][2] != other[1][2]


@needs_fonts
@pytest.mark.parametrize("seed", range(40))
def test_each_index_lies_where_its_truth_says_rank_above_suit(seed: int) -> None:
    rng = np.random.default_rng([7, seed])
    code = CODES[seed * 5 % len(CODES)]
    frame, (centre, up, height, said, seen) = typeset_index(rng, code, plain=True)
    assert said == code and seen
    assert abs(float(np.hypot(*up)) - 1.0) < 1e-6
    crop = crop_indices(frame, [Candidate(float(centre[0]), float(centre[1]),
                                          float(up[0]), float(up[1]), height)])[0].min(axis=2)
    # The index fills the middle two thirds of the crop (CROP_SPAN 1.5 heights) and no more:
    # ink in its upper half (the rank) and in its lower half (the suit), centred both ways.
    n = crop.shape[0]
    # Ink is what is well darker than the paper (the crop's median): a rank set in a thin
    # font at a small size is faint, so halfway from paper to the darkest ink would miss it.
    paper = int(np.median(crop))
    dark = crop < paper - (paper - int(crop.min())) / 4
    rows, columns = np.nonzero(dark.any(axis=1))[0], np.nonzero(dark.any(axis=0))[0]
    assert n // 6 - 2 <= rows.min() and rows.max() <= n - n // 6 + 1
    assert dark[n // 6: n // 2].any() and dark[n // 2: n - n // 6].any()
    assert abs((rows.min() + rows.max()) / 2 - (n - 1) / 2) <= 2
    assert abs((columns.min() + columns.max()) / 2 - (n - 1) / 2) <= 3
    assert columns.max() - columns.min() < rows.max() - rows.min()  # standing, not lying


@needs_fonts
@pytest.mark.parametrize("seed", range(12))
def test_a_rank_turned_round_is_the_same_rank_turned_over_the_same_suit(seed: int) -> None:
    code = CODES[seed * 7 % len(CODES)]
    upright = card_indices._index_mask(np.random.default_rng([9, seed]), code, 48)
    turned = card_indices._index_mask(np.random.default_rng([9, seed]), code, 48, 2)
    assert upright.shape == turned.shape
    # From the first row where both are alike to the bottom (the gap and the suit sign),
    # they are the same; above it, the rank is turned half round.
    rank_rows = min(k for k in range(len(upright) + 1)
                    if np.array_equal(upright[k:], turned[k:]))
    assert 0 < rank_rows < len(upright) - 4
    # Compared as shapes (each cut to its ink, brought to one size): a glyph thickened or
    # thinned by a 2 x 2 kernel, or centred over a wider sign, may sit a pixel aside.
    rank = _shape(upright[:rank_rows])
    turned_rank = _shape(turned[:rank_rows])
    as_turned = float(np.corrcoef(turned_rank, rank[::-1])[0, 1])  # [::-1]: half round
    as_upright = float(np.corrcoef(turned_rank, rank)[0, 1])
    assert as_turned > 0.8
    assert as_turned >= as_upright - 0.02  # an 8 turned round is an 8


def _shape(mask: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.resize(card_indices._cut(mask), (12, 16),
                                 interpolation=cv2.INTER_AREA), np.float64).ravel()


def test_without_fonts_the_error_names_what_to_install(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(card_indices, "FONT_DIRS", (tmp_path,))
    card_indices.fonts.cache_clear()
    try:
        with pytest.raises(NoFonts, match="fonts-dejavu-core"):
            typeset_index(np.random.default_rng(1), "AS")
    finally:
        card_indices.fonts.cache_clear()
