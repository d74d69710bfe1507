"""Are the dice fair? Face counts and Pearson's chi-square test against a fair die.

"Many crooked dice have double fives ... loaded to throw high ... or low" (lines
10135-10163): a loaded die shows some faces more often than one in six. With `n` faces
of a die seen, the test compares each face's count with n/6; the p-value is the chance a
fair die would stray at least that far. A small p-value is a reason to look at the dice, not
proof: one fair die in a hundred scores below 0.01.

>>> report = face_report([1, 2, 3, 4, 5, 6] * 10)
>>> report.counts, report.chi_square, report.p_value
((10, 10, 10, 10, 10, 10), 0.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from engine.core import JSON, hoyle_law
from engine.dice.core import FACES

FAIR_DICE = hoyle_law(10135, 10163, "Fair dice: opposite faces make seven; crooked dice loaded")
#: Below this many faces seen a face is expected fewer than 5 times: too few for the test.
FEWEST_FACES = 30
#: A p-value below this is reported as suspect.
SUSPECT_BELOW = 0.01


def chi_square_survival(statistic: float) -> float:
    """P(chi-square with 5 degrees of freedom >= statistic): the six faces of one die.

    For an odd number of degrees of freedom the chi-square tail has a closed form in
    erfc and the normal density; for 5 it is the one below.

    >>> round(chi_square_survival(11.0705), 4), round(chi_square_survival(15.0863), 4)
    (0.05, 0.01)
    """
    if statistic <= 0:
        return 1.0
    x = statistic
    return min(1.0, math.erfc(math.sqrt(x / 2))
               + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (1 + x / 3))


@dataclass(frozen=True, slots=True)
class FaceReport:
    """How often each face came up, and whether that is like a fair die.

    It counts faces: of one die, one a throw; of the dice together, one a die thrown.
    """

    counts: tuple[int, ...]
    chi_square: float
    p_value: float

    @property
    def faces(self) -> int:
        return sum(self.counts)

    @property
    def verdict(self) -> str:
        if self.faces < FEWEST_FACES:
            return (f"too few faces seen to judge ({self.faces}; the test needs "
                    f"{FEWEST_FACES})")
        if self.p_value < SUSPECT_BELOW:
            high = max(FACES, key=lambda face: self.counts[face - 1])
            return (f"suspect: a fair die strays this far from 1 in 6 with chance "
                    f"{self.p_value:.2g}; the {high} came up {self.counts[high - 1]} times "
                    f"in {self.faces} faces (a fair die: about {self.faces / 6:.0f})")
        return f"consistent with a fair die (p = {self.p_value:.2f})"

    def to_json(self) -> JSON:
        return {"faces_seen": self.faces, "counts": dict(zip(map(str, FACES), self.counts,
                                                          strict=True)),
                "chi_square": round(self.chi_square, 4), "p_value": round(self.p_value, 6),
                "verdict": self.verdict}


def face_report(faces: Iterable[int]) -> FaceReport:
    """The counts of `faces` (values 1-6) and the chi-square test against a fair die."""
    counts = [0] * len(FACES)
    for face in faces:
        if face not in FACES:
            raise ValueError(f"a die's face is 1-6, not {face!r}")
        counts[face - 1] += 1
    total = sum(counts)
    if total == 0:
        return FaceReport(tuple(counts), 0.0, 1.0)
    expected = total / len(FACES)
    statistic = sum((count - expected) ** 2 / expected for count in counts)
    return FaceReport(tuple(counts), statistic, chi_square_survival(statistic))
