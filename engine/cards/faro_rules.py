"""The rules of Faro and Stuss: the layout's spots, the laws each ruling cites, the variants.

One `FaroRules` is the variant (DESIGN section 4): Stuss is faro dealt out of hand, the
banker taking all on splits (lines 11859-11861); `engine/cards/faro.py` runs the table.
The layout figure is lost in the scan (lines 11744-11752): `SPOTS` is the catalogue's
reading, the standard two rows with the 7 at the end, which every example of the text fits.

>>> spot_name(frozenset({"10", "9", "4", "5"}))
'4-5-9-10'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from engine.cards.bank import MAX_PACK_DEALS
from engine.cards.core import RANKS
from engine.core import LawRef, hoyle_law
from engine.rules import HouseRules, Option, either, whole

#: The layout's rows (catalogue reading of the lost figure): 7 at the end, beside 8 and 6.
TOP = ("K", "Q", "J", "10", "9", "8")
BOTTOM = ("A", "2", "3", "4", "5", "6")
SEVEN = "7"

LAWS: Mapping[str, LawRef] = {
    "box": hoyle_law(11705, 11708, "Faro: one banker, 52 cards drawn in pairs from a box"),
    "soda": hoyle_law(11710, 11721, "Faro: the soda, then each turn a loser and a winner"),
    "hockelty": hoyle_law(11731, 11736, "Faro: the soda and the hockelty neither win nor lose"),
    "bets": hoyle_law(11755, 11770, "Faro: flat to win, coppered to lose; action when the "
                                    "card shows, else the bet may be moved"),
    "several": hoyle_law(11772, 11788, "Faro: a bet on several cards is decided by the first; "
                                       "both on one turn is a stand-off"),
    "whipsaw": hoyle_law(11790, 11792, "Faro: two bets lost on two cards of one turn: "
                                       "whipsawed"),
    "settle": hoyle_law(11794, 11800, "Faro: the banker takes what he wins, pays even money, "
                                      "and takes half on a split"),
    "call": hoyle_law(11845, 11849, "Faro: calling the last turn of three cards pays 4 for 1"),
    "cat-hop": hoyle_law(11851, 11853, "Faro: a cat-hop called correctly pays 2 for 1"),
}
#: Stuss is faro dealt out of hand (lines 11859-11861): its rulings cite faro's laws, but
#: its own lines where it differs, the deal and the splits.
STUSS_LAWS: Mapping[str, LawRef] = {
    **LAWS,
    "box": hoyle_law(11859, 11861, "Stuss: faro, but the cards are dealt out of hand"),
    "settle": hoyle_law(11859, 11861, "Stuss: faro out of hand; on splits the banker takes all"),
}


def _layout_spots() -> dict[frozenset[str], str]:
    """Every group of cards one bet can take in, and how it is placed (lines 11772-11788)."""
    spots: dict[frozenset[str], str] = {frozenset({rank}): "flat on the card" for rank in RANKS}
    rows = (TOP, BOTTOM)
    for row in rows:
        for i in range(len(row) - 1):
            spots[frozenset(row[i:i + 2])] = "between two cards"
        for i in range(len(row) - 2):
            spots[frozenset({row[i], row[i + 2]})] = "on an outside corner (the next but one)"
            spots[frozenset(row[i:i + 3])] = "behind a card on the outer edge (three cards)"
    for i, (top, bottom) in enumerate(zip(TOP, BOTTOM, strict=True)):
        spots[frozenset({top, bottom})] = "between two cards"
        if i + 1 < len(TOP):
            square = frozenset({top, bottom, TOP[i + 1], BOTTOM[i + 1]})
            spots[square] = "in the square between four cards"
            for left_out in square:
                spots[square - {left_out}] = "on the inside corner of a card (three cards)"
            spots[frozenset({top, BOTTOM[i + 1]})] = "heeled diagonally (two cards)"
            spots[frozenset({bottom, TOP[i + 1]})] = "heeled diagonally (two cards)"
    spots[frozenset({TOP[-1], SEVEN})] = "between two cards"
    spots[frozenset({BOTTOM[-1], SEVEN})] = "between two cards"
    return spots


SPOTS = _layout_spots()


def spot_name(ranks: frozenset[str]) -> str:
    """A spot as a bet's `on` names it: its cards in pack order, joined by '-'."""
    return "-".join(rank for rank in RANKS if rank in ranks)


SPOT_NAMES: Mapping[str, frozenset[str]] = {spot_name(ranks): ranks for ranks in SPOTS}
#: The book's own examples of bets on several cards (lines 11775-11788), and the 6-7: the
#: spots `legal_events` offers besides single cards (a table may report any spot).
SAMPLE_SPOTS = ("4-5-9-10", "A-2-K", "5-8", "9-J", "2-3-4", "6-7")


def split_chance(cards_left: int, copies: int, soda_pending: bool) -> Fraction:
    """The exact chance that a bet on one denomination is decided by a split.

    `cards_left` are still in the box (the soda if `soda_pending`, the turns, the hockelty)
    and `copies` of them are of the denomination. Its first action is on turn k, split,
    when both cards of turn k are of it and none came in an earlier turn: C(m - 2k, n - 2)
    of the C(m, n) places the n copies can lie in (the soda and hockelty take no action).
    """
    if copies < 2:
        return Fraction(0)
    turns = (cards_left - (1 if soda_pending else 0) - 1) // 2
    ways = sum(comb(cards_left - 2 * k, copies - 2) for k in range(1, turns + 1))
    return Fraction(ways, comb(cards_left, copies))


@dataclass(frozen=True, slots=True)
class FaroRules(HouseRules):
    """Faro or Stuss: who takes a split, and the named house rules.

    `calling_pays`: the book's "4 for 1" and "2 for 1" (lines 11845-11853). The catalogue
    reads this book's "for" as "to" (it calls 2 for 1 on a 1-in-3 chance fair at Three-Card
    Monte, lines 17938-17940): "4-to-1" pays a correct call 4 and a cat-hop 2 besides the
    stake; "3-to-1", the stake included, pays 3 and 1.
    `odd_chip`: half of an odd stake on a split cannot be taken; who keeps the odd chip
    (the book is silent; the default gives it to the house).
    """

    name: str
    splits_take_all: bool
    deals: int = 1
    calling_pays: str = "4-to-1"
    odd_chip: str = "banker"

    def known_options(self) -> tuple[Option, ...]:
        options = (whole("deals", 1, MAX_PACK_DEALS), either("calling_pays", "4-to-1", "3-to-1"))
        if self.splits_take_all:
            return options
        return (*options, either("odd_chip", "banker", "player"))

    def law(self, key: str) -> LawRef:
        return (STUSS_LAWS if self.splits_take_all else LAWS)[key]

    def own_laws(self) -> tuple[LawRef, ...]:
        return tuple(dict.fromkeys((STUSS_LAWS if self.splits_take_all else LAWS).values()))

    def call_pays(self, cat_hop: bool) -> int:
        """What a correct call wins a unit staked, the stake not counted."""
        if self.calling_pays == "4-to-1":
            return 2 if cat_hop else 4
        return 1 if cat_hop else 3

    def split_loss(self, amount: int) -> int:
        """What the banker takes of a stake whose card splits."""
        if self.splits_take_all:
            return amount
        return amount - amount // 2 if self.odd_chip == "banker" else amount // 2


FARO = FaroRules("Faro", splits_take_all=False)
STUSS = FaroRules("Stuss", splits_take_all=True)
