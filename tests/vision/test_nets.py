"""The runner of the committed networks (vision/nets.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.cards import DEFAULT_MODELS, CardModelError
from vision.dice import DEFAULT_MODEL, ModelError
from vision.nets import load_net


def test_a_batch_reads_as_its_crops_read_one_by_one() -> None:
    net = load_net(DEFAULT_MODELS[0], CardModelError, "card model", "vision/train_cards.py")
    crops = np.random.default_rng(5).normal(size=(5, 2, 32, 32)).astype(np.float32)
    together = net.run(crops)
    alone = np.concatenate([net.run(crops[i:i + 1]) for i in range(len(crops))])
    assert together.shape == (5, 18)
    np.testing.assert_allclose(together, alone, atol=1e-4)


def test_a_net_runs_on_one_thread() -> None:
    net = load_net(DEFAULT_MODEL, ModelError, "dice model", "vision/train_dice.py")
    options = net.session.get_session_options()
    assert (options.intra_op_num_threads, options.inter_op_num_threads) == (1, 1)


def test_a_missing_model_names_the_file_and_the_script_that_makes_it(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"gone\.onnx: no such dice model \(run vision/train"):
        load_net(tmp_path / "gone.onnx", ModelError, "dice model", "vision/train_dice.py")


def test_a_model_cut_short_in_copying_is_refused_by_name(tmp_path: Path) -> None:
    cut = tmp_path / "card_index.onnx"
    whole = DEFAULT_MODELS[0].read_bytes()
    cut.write_bytes(whole[:len(whole) // 2])
    with pytest.raises(CardModelError, match=r"card_index\.onnx: not a card model"):
        load_net(cut, CardModelError, "card model", "vision/train_cards.py")
