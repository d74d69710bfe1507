"""Running the committed networks: ONNX files (vision/models/*.onnx), run by ONNX Runtime on
the CPU, on one thread.

One thread, so that a recogniser's figures are those of one core (DESIGN section 10) and the
service's other work keeps the rest. ONNX Runtime runs these small convolutional nets
1.5 to 2.6 times as fast as OpenCV's dnn module did on one core of the development machine
(the card classifier, refiner and finder on batches as a frame gives them), with the same
outputs to within 1e-5.

>>> from vision.cards import DEFAULT_REFINER, CardModelError
>>> net = load_net(DEFAULT_REFINER, CardModelError, "card model", "vision/train_cards.py")
>>> net.run(np.zeros((2, 2, 32, 32), np.float32)).shape
(2, 4)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnxruntime
from onnxruntime.capi import onnxruntime_pybind11_state as ort_errors

from vision.core import VisionError

Floats = npt.NDArray[np.float32]

#: What ONNX Runtime raises for a file that is not a model it can run.
_UNRUNNABLE = (ort_errors.Fail, ort_errors.InvalidProtobuf, ort_errors.InvalidGraph,
               ort_errors.InvalidArgument, ort_errors.NoSuchFile, ort_errors.NotImplemented,
               ort_errors.RuntimeException)


class Net:
    """One ONNX model, run on one thread: `Net(path).run(x)` gives its first output for the
    input batch `x` (float32)."""

    def __init__(self, path: Path) -> None:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: not every load's notes on the graph
        self.session = onnxruntime.InferenceSession(str(path), options,
                                                    providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def run(self, x: Floats) -> Floats:
        out = self.session.run(None, {self.input: np.ascontiguousarray(x, np.float32)})
        result: Floats = np.asarray(out[0], np.float32)
        return result


def load_net(path: Path, error: type[VisionError], what: str, trainer: str) -> Net:
    """The model at `path`; `error`, naming the file and `what` it should hold, when the file
    is missing (to be made by the script `trainer`) or is not a model ONNX Runtime can run."""
    if not Path(path).is_file():
        raise error(f"{path}: no such {what} (run {trainer})")
    try:
        return Net(Path(path))
    except _UNRUNNABLE as exc:
        raise error(f"{path}: not a {what} that can be run ({exc})") from exc


__all__ = ["Net", "load_net"]
