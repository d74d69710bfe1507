"""Raffles as Hoyle's Games (1940) gives it (lines 10397-10436).

Each person has three throws with three dice, and the total of the nine dice decides
the winner (10400-10405). The book's table of the odds against a number (printed in the
margin; the scan put it at lines 10357-10380, inside Poker Dice) is the odds against
throwing that total *or more*, as the catalogue found by recomputing it; the engine
counts the 6**9 ways nine dice fall exactly and shows its figure beside the book's.

Events (docs/dice/raffles.md): `{"type": "throw", "dice": [5, 4, 6]}` and
`{"type": "rethrow", "reason": ...}`.

>>> odds = next(o for o in BOOK_ODDS if o.total == 45)
>>> odds.book, odds.exact, odds.agrees
('215 to 1', '626941 to 2915', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import floor
from typing import Any

from engine.core import JSON, Awaiting, Event, LawRef, Ruling, hoyle_law
from engine.dice.core import FACES, ThrowEvent, distinct_throws, odds_text, parse_throw
from engine.dice.turns import ORDINALS, Hand, HandRules, HandState, TurnGame
from engine.errors import IllegalEventError

THROWS = hoyle_law(10400, 10405, "Raffles: three throws with three dice each; the total of "
                                 "the nine dice decides the winner")
TABLE = hoyle_law(10410, 10416, "Raffles: the table in the margin gives the odds against a "
                                "number with three throws of three dice")
CHANCES = hoyle_law(10416, 10431, "Raffles: one who has thrown can estimate his chance of "
                                  "winning out from the number of tickets")
#: Where the scan put the table itself, outside the Raffles passage (lines 10357-10380).
TABLE_ROWS = hoyle_law(10357, 10380, "Raffles: the odds table, printed in the margin")

DICE = 3
THROWS_EACH = 3
NINE = DICE * THROWS_EACH

#: The book's table, odds against the total or more, "N to 1" (lines 10357-10377).
BOOK_TABLE = {54: 10_077_695, 53: 1_007_768, 52: 183_229, 51: 45_809, 50: 14_093, 49: 5_032,
              48: 2_016, 47: 886, 46: 422, 45: 215, 44: 116, 43: 66, 42: 39, 41: 24, 40: 16,
              39: 10, 38: 7, 37: 5, 36: 3}
#: Rows the scan garbled (lines 10378-10380): as the OCR reads them; no reading is taken.
GARBLED = {35: "28", 34: "II", 33: "9"}


@cache
def distribution(count: int) -> dict[int, int]:
    """In how many of the 6**count ways `count` dice fall they make each total (counted)."""
    found = {0: 1}
    for _ in range(count):
        step: dict[int, int] = {}
        for total, ways_ in found.items():
            for face in FACES:
                step[total + face] = step.get(total + face, 0) + ways_
        found = step
    return found


def at_least(total: int, count: int = NINE) -> Fraction:
    """The exact chance that `count` dice make `total` or more."""
    spread = distribution(count)
    return Fraction(sum(w for t, w in spread.items() if t >= total), 6 ** count)


def none_reach(total: int, others: int) -> Fraction:
    """The exact chance that none of `others` players makes `total` or more with nine dice."""
    return (1 - at_least(total)) ** others


def about(ratio: Fraction) -> str:
    """Odds `ratio` to 1, to two places: "215.07 to 1"."""
    return f"{float(ratio):,.2f} to 1"


def _either_way(ratio: Fraction, happens: str, fails: str) -> str:
    """Odds of `ratio` to 1 that something `happens`, said the way round that exceeds 1."""
    if ratio >= 1:
        return f"about {about(ratio)} that {happens}"
    return f"about {about(1 / ratio)} that {fails}"


@dataclass(frozen=True, slots=True)
class RaffleOdds:
    """A row of the book's table: the odds against `total` or more, beside the exact figure."""

    total: int
    book: str
    law: LawRef

    @property
    def exact(self) -> str:
        return odds_text(at_least(self.total))

    @property
    def agrees(self) -> bool:
        """The book's whole number is the exact odds cut down, or rounded, to a whole number."""
        chance = at_least(self.total)
        ratio = (1 - chance) / chance
        stated = int(self.book.removesuffix(" to 1").replace(",", ""))
        return stated in (floor(ratio), round(ratio))


BOOK_ODDS = tuple(RaffleOdds(total, f"{n:,} to 1", TABLE_ROWS) for total, n in BOOK_TABLE.items())


def _against(total: int) -> str:
    """The odds against `total` or more, exact and rounded, with the book's row."""
    chance = at_least(total)
    if chance == 1:
        return f"every throw of nine dice makes {total} or more"
    ratio = (1 - chance) / chance
    rough = f"about {about(ratio)} against" if ratio >= 1 else f"about {about(1 / ratio)} on"
    text = f"odds against {total} or more are {odds_text(chance)} exactly, {rough}"
    if total in BOOK_TABLE:
        row = next(o for o in BOOK_ODDS if o.total == total)
        return text + f"; the book's table says {row.book}" + \
            ("" if row.agrees else " (not the exact figure)")
    if total in GARBLED:
        return text + f"; the book's row is illegible (OCR {GARBLED[total]!r})"
    return text + "; the book's table stops at 33"


#: Raffles has only the tie rule to choose.
RAFFLES = HandRules()


class RafflesState(HandState):
    """Each person's three throws of three dice in turn; the highest total wins."""

    def new_turn(self) -> None:
        self.throws: list[tuple[int, ...]] = []

    def turn_where(self) -> str:
        return f"{ORDINALS[len(self.throws)]} throw of three dice"

    def parse(self, kind: str, data: Mapping[str, Any]) -> Event:
        return parse_throw(data, DICE, self.game.name)

    def check(self, event: Event) -> None:
        if not isinstance(event, ThrowEvent) or len(event.dice) != DICE:
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")

    def play_turn(self, event: Event) -> tuple[list[Ruling], Hand | None]:
        assert isinstance(event, ThrowEvent)
        who = self.thrower
        self.throws.append(event.dice)
        so_far = sum(map(sum, self.throws))
        nth = ORDINALS[len(self.throws) - 1]
        shown = " + ".join(map(str, event.dice))
        rulings = [Ruling("throw", who, event.total, f"{who}'s {nth} throw: {shown} = "
                          f"{event.total}; {so_far} so far.", THROWS)]
        if len(self.throws) < THROWS_EACH:
            return rulings, None
        rulings.append(Ruling("total", who, so_far, f"{who}'s nine dice total {so_far}: "
                              f"{_against(so_far)}.", TABLE))
        still = len(self.seats.order) - self.seats.seat - 1
        chance = at_least(so_far)
        if still and chance < 1:
            none = none_reach(so_far, still)
            odds = _either_way(none / (1 - none), f"none of them makes {so_far} or more",
                               f"one of them makes {so_far} or more")
            rulings.append(Ruling(
                "chance", who, still, f"With {still} still to throw, it is {odds} (the chance "
                f"that none does is {float(none):.4f}).", CHANCES))
        dice = tuple(face for throw in self.throws for face in throw)
        return rulings, Hand(dice, so_far, (so_far,), str(so_far))

    def choices(self) -> list[Event]:
        return [ThrowEvent(dice) for dice in distinct_throws(DICE)]

    def awaits(self) -> tuple[Awaiting, ...]:
        return (Awaiting("throw", "sensor", self.thrower, self.turn_where()),)

    def turn_snapshot(self) -> JSON:
        return {"throw": len(self.throws) + 1, "throws": [list(t) for t in self.throws],
                "so_far": sum(map(sum, self.throws))}

    @property
    def best_law(self) -> LawRef:
        return THROWS

    def prize(self, winners: Sequence[str]) -> tuple[str, int]:
        best = self.seats.hands[winners[0]].points
        return ("wins the raffle" if len(winners) == 1 else "the prize is shared"), best


GAMES = (TurnGame("raffles", "Raffles", RAFFLES, RafflesState, (THROWS, TABLE, CHANCES),
                  aliases=("raffle",)),)
