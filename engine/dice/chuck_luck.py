"""Chuck Luck, or Sweat, as Hoyle's Games (1940) gives it: three dice on a banker's layout.

The layout (lines 9518-9530) is garbled in the scan. What survives: single numbers 1-6 at
even money, a row of totals over a row of what each pays ("18|17|16|15|14|13|12|11|10|9|
8|7|6|5" over "180|60|29|18|za|8|6|6|6|6|8|..."), High and Odd (Low and Even are named in
the text). The engine takes the catalogue's symmetric reading (hoyle-part-a.md section 24):
a total and its mirror (21 less it) pay alike, "za" is 12, and 3 and 18, which only a
raffle can throw, pay 180 like a bet on any one raffle.

Bets (`on`, with `number` where the spot names one):

- `number` (1-6): the face on one die pays even money, on two dice double (2 to 1);
- `raffle` (1-6): all three dice showing that face; pays 180;
- `total` (3-18): the three dice adding up to it; pays as the totals row;
- `high` (11-18), `low` (3-10), `odd`, `even`: even money.

A raffle (three alike) takes every bet on the layout except the bets on raffles (lines
9536-9538), a bet on the tripled number included; totals 3 and 18 are raffles themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from engine.core import LawRef, hoyle_law
from engine.dice.banking import MAX_THROWS, BankGame, Coup, Layout, Settlement
from engine.rules import Option, either, whole

LAYOUT = hoyle_law(9512, 9515, "Chuck Luck: three dice thrown on a layout of chances and odds")
TOTALS_ROW = hoyle_law(9523, 9524, "Chuck Luck: the totals and what each pays (garbled scan)")
SINGLE_NUMBERS = hoyle_law(
    9533, 9536, "Chuck Luck: a number on one die pays even money, on two dice double")
RAFFLE = hoyle_law(
    9536, 9538, "Chuck Luck: three alike is a raffle; the banker takes all but raffle bets")
HIGH_LOW = hoyle_law(
    9540, 9542, "Chuck Luck: 11-18 high, 3-10 low; high, low, odd and even pay even money")

#: What the layout pays on each total: the catalogue's symmetric reading of lines 9523-9524.
TOTALS: Mapping[int, int] = {
    3: 180, 4: 60, 5: 29, 6: 18, 7: 12, 8: 8, 9: 6, 10: 6,
    11: 6, 12: 6, 13: 8, 14: 12, 15: 18, 16: 29, 17: 60, 18: 180,
}
#: A bet on one raffle pays as the totals 3 and 18, which are the raffles of aces and sixes.
RAFFLE_PAYS = 180
EVEN_SPOTS: Mapping[str, str] = {"high": "High (11-18)", "low": "Low (3-10)", "odd": "Odd",
                                 "even": "Even"}


def is_raffle(dice: tuple[int, ...]) -> bool:
    return len(set(dice)) == 1


@dataclass(frozen=True, slots=True)
class ChuckLuckRules(Layout):
    """Chuck Luck's layout. `layout_odds` says how the totals row's figures are paid.

    The row gives bare figures ("180", "60"); the book does not say whether they are "to 1"
    (the stake returned besides) or "for 1" (the stake included). The catalogue reads this
    book's payouts as "to 1", the default.
    """

    dice: ClassVar[int] = 3
    bets: ClassVar[tuple[str, ...]] = ("number", "raffle", "total", *EVEN_SPOTS)
    rotating: ClassVar[bool] = False
    end_law: ClassVar[LawRef] = LAYOUT

    layout_odds: str = "to-1"
    # The book sets no end: the session lasts this many throws of the banker.
    throws: int = 10

    def known_options(self) -> tuple[Option, ...]:
        return either("layout_odds", "to-1", "for-1"), whole("throws", 1, MAX_THROWS)

    def session_over(self, coups: int, banks_lost: int, players: int) -> bool:
        return coups >= self.throws

    def numbers(self, on: str) -> tuple[int, ...]:
        if on in ("number", "raffle"):
            return (1, 2, 3, 4, 5, 6)
        if on == "total":
            return tuple(TOTALS)
        return ()

    def spot(self, on: str, number: int | None) -> str:
        if on == "number":
            return f"on the single number {number}"
        if on == "raffle":
            return f"on the raffle of {number}s"
        if on == "total":
            return f"on the total {number}"
        return f"on {EVEN_SPOTS[on]}"

    def net(self, figure: int) -> int:
        """What a unit wins when the layout's figure is paid under `layout_odds`."""
        return figure if self.layout_odds == "to-1" else figure - 1

    def figure(self, on: str, number: int | None) -> int | None:
        """The layout's figure for a raffle or total bet; None for the even-money spots."""
        if on == "raffle":
            return RAFFLE_PAYS
        if on == "total" and number is not None:
            return TOTALS[number]
        return None

    def pays(self, on: str, number: int | None) -> str:
        if on == "number":
            return "pays even money on one die, double on two"
        figure = self.figure(on, number)
        if figure is None:
            return "pays even money"
        return f"the layout pays {figure} ({self.net(figure)} to 1, option layout_odds)"

    def bet_law(self, on: str) -> LawRef:
        if on == "number":
            return SINGLE_NUMBERS
        if on == "raffle":
            return RAFFLE
        if on == "total":
            return TOTALS_ROW
        return HIGH_LOW

    def coup(self, dice: tuple[int, ...]) -> Coup:
        total = sum(dice)
        faces = "-".join(str(d) for d in dice)
        if is_raffle(dice):
            return Coup("raffle", f"{faces} is a raffle: the banker takes every bet on the "
                        "layout except those on raffles.", RAFFLE)
        size = "high" if total >= 11 else "low"
        parity = "odd" if total % 2 else "even"
        return Coup("coup", f"The banker throws {faces}: {total}, {size} and {parity}.",
                    HIGH_LOW)

    def settle(self, on: str, number: int | None, dice: tuple[int, ...]) -> Settlement:
        total = sum(dice)
        raffle = is_raffle(dice)
        if on == "raffle":
            won = raffle and dice[0] == number
            return Settlement(won, self.net(RAFFLE_PAYS) if won else 0,
                              f"{'the' if won else 'no'} raffle of {number}s", RAFFLE)
        if on == "total" and number in (3, 18):
            won = total == number
            return Settlement(won, self.net(TOTALS[number]) if won else 0,
                              f"{total} {'is' if won else 'is not'} the raffle total {number}",
                              RAFFLE)
        if raffle:
            return Settlement(False, 0, "a raffle takes the bet", RAFFLE)
        if on == "number":
            count = dice.count(number)
            text = {0: f"no die shows {number}", 1: f"one die shows {number}, even money",
                    2: f"two dice show {number}, double"}[count]
            return Settlement(count > 0, count, text, SINGLE_NUMBERS)
        if on == "total":
            won = total == number
            return Settlement(won, self.net(TOTALS[total]) if won else 0,
                              f"{total} {'is' if won else 'is not'} {number}", TOTALS_ROW)
        won = {"high": total >= 11, "low": total <= 10, "odd": total % 2 == 1,
               "even": total % 2 == 0}[on]
        return Settlement(won, 1 if won else 0,
                          f"{total} {'is' if won else 'is not'} {on}", HIGH_LOW)

    def own_laws(self) -> tuple[LawRef, ...]:
        return (LAYOUT, TOTALS_ROW, SINGLE_NUMBERS, RAFFLE, HIGH_LOW)


CHUCK_LUCK = ChuckLuckRules()


GAMES = (BankGame("chuck-luck", "Chuck Luck, or Sweat", CHUCK_LUCK, aliases=("sweat",)),)
