"""The overhead camera at a card table: what it sees, held against the cards on the table.

The shoe's record is the table's: the camera never changes it. It confirms it. Each settled
look gives a `CameraCheck`: which cards on the table (the game's hands, from the shoe's
record) the camera read surely, which it did not see (face down, covered, or read unsurely),
and which cards it read surely that the shoe has not dealt in this game. Those last are for
the dealer to look at: a card the shoe misread, a card that should not be there, or a
misread of the camera's. (A card of an earlier deal of the game, not yet gathered in, is
on no hand but was dealt: it is not unexpected.)

`CameraLook` keeps a check only once it has come out the same in `agree` looks in a row
(hands move while a card is dealt), and only when it differs from the last one kept, so the
log holds one note per change of what the camera can vouch for. A check that vouches for no
card is news too once the last noted did (the cards it confirmed have left the table: a coup
settled and gathered in): the table notes it, so that what the camera said of cards gone is
not left standing over the next deal.

>>> from vision.core import Observation
>>> seen = [Observation("10H", (0, 0, 9, 9), 0.999), Observation("7S", (50, 0, 9, 9), 0.999),
...         Observation("KD", (90, 0, 9, 9), 0.4)]
>>> check = check_cards(seen, {"banker": ["10H", "KD"], "player": ["2C"]}, ["5D"], 0.99)
>>> check.confirmed, check.not_seen, check.unexpected, check.unsure
(['10H'], ['2C', 'KD'], ['7S'], ['KD'])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.core import JSON
from vision.core import Observation


@dataclass(frozen=True, slots=True)
class CameraCheck:
    """One look held against the table: card codes, sorted (a code twice for two copies)."""

    confirmed: list[str]
    """On the table and read surely."""
    not_seen: list[str]
    """On the table and not read surely."""
    unexpected: list[str]
    """Read surely and not dealt in this game."""
    unsure: list[str]
    """Read, but not surely enough to vouch for."""

    def verdict(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What the check vouches for: the cards confirmed and the cards unexpected."""
        return tuple(self.confirmed), tuple(self.unexpected)

    def vouches(self) -> bool:
        """Whether the check vouches for any card: one confirmed, or one unexpected."""
        return bool(self.confirmed or self.unexpected)

    def text(self) -> str:
        """The check in words, for the dashboard's log."""
        on_table = len(self.confirmed) + len(self.not_seen)
        if not self.vouches():
            if not on_table:
                return "The camera sees no card of the game on the table."
            return f"The camera confirms none of the {on_table} cards on the table."
        said = f"The camera confirms {len(self.confirmed)} of the {on_table} cards on the table"
        if self.unexpected:
            said += (f"; it sees {', '.join(self.unexpected)}, which the shoe has not dealt in "
                     "this game: the dealer should look")
        return said + "."

    def to_json(self) -> JSON:
        return {"confirmed": self.confirmed, "not_seen": self.not_seen,
                "unexpected": self.unexpected, "unsure": self.unsure}


def check_cards(reads: Sequence[Observation], hands: Mapping[str, Sequence[str]],
                dealt: Sequence[str], threshold: float) -> CameraCheck:
    """Hold the camera's reads (one per card seen) against the cards of every hand and the
    cards `dealt` earlier in the game."""
    sure = Counter(str(read.value) for read in reads if read.confidence >= threshold)
    on_table = Counter(code for cards in hands.values() for code in cards)
    unsure = sorted(str(read.value) for read in reads if read.confidence < threshold)
    return CameraCheck(confirmed=sorted((on_table & sure).elements()),
                       not_seen=sorted((on_table - sure).elements()),
                       unexpected=sorted((sure - (on_table | Counter(dealt))).elements()),
                       unsure=unsure)


class CameraLook:
    """Keeps a check once `agree` looks in a row gave it, and only when it is news."""

    def __init__(self, agree: int) -> None:
        if agree < 1:
            raise ValueError(f"agree must be at least 1, got {agree}")
        self.agree = agree
        self._run: tuple[tuple[tuple[str, ...], tuple[str, ...]], int] | None = None
        self._kept: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    def feed(self, check: CameraCheck) -> CameraCheck | None:
        """The check if it is now settled and differs from the last kept; else None."""
        verdict = check.verdict()
        count = self._run[1] + 1 if self._run is not None and self._run[0] == verdict else 1
        self._run = (verdict, count)
        if count < self.agree or verdict == self._kept:
            return None
        self._kept = verdict
        return check

    def forget(self) -> None:
        """A new game: the next settled check is news even if it says what the last did."""
        self._run = None
        self._kept = None


__all__ = ["CameraCheck", "CameraLook", "check_cards"]
