"""The rules of Baccara and Chemin de Fer: how a hand counts, the laws each ruling cites.

One `BaccaraRules` is the variant (DESIGN section 4): Chemin de Fer is "a variety" of
Baccara whose rulings cite its own lines where it differs; `engine/cards/baccara.py` runs
the table.

>>> from engine.cards.core import parse_card
>>> point([parse_card("9S"), parse_card("5D")]), point([parse_card("7C"), parse_card("3H")])
(4, 0)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from engine.cards.bank import MAX_DEALS, MAX_STAKE
from engine.cards.core import Card
from engine.core import LawRef, hoyle_law
from engine.rules import HouseRules, Option, either, whole

TEN_COUNTS = frozenset({"10", "J", "Q", "K"})


def value(card: Card) -> int:
    """The card's count: K Q J 10 nothing, the rest their pips (ace 1)."""
    return 0 if card.rank in TEN_COUNTS else card.order


def point(cards: Iterable[Card]) -> int:
    """The hand's point: only the last figure of its count (14 is 4, 10 is baccara, 0)."""
    return sum(value(card) for card in cards) % 10


@dataclass(frozen=True, slots=True)
class Laws:
    """The law each kind of ruling cites."""

    bank: LawRef
    bets: LawRef
    deal: LawRef
    natural: LawRef
    draw: LawRef
    result: LawRef
    rotation: LawRef
    short: LawRef
    banco: LawRef

    def all(self) -> tuple[LawRef, ...]:
        return tuple(dict.fromkeys((self.bank, self.bets, self.deal, self.natural, self.draw,
                                    self.result, self.rotation, self.short, self.banco)))


BACCARA_LAWS = Laws(
    bank=hoyle_law(1423, 1434, "Baccara: the bank's cash is the most it can lose; three packs"),
    bets=hoyle_law(1440, 1449, "Baccara: bets that the right or the left beats the banker, "
                   "or on both, a cheval"),
    deal=hoyle_law(1451, 1458, "Baccara: one card each to right, left and banker, twice; "
                   "8 or 9 is shown at once; K Q J 10 count nothing"),
    natural=hoyle_law(1460, 1463, "Baccara: a natural 8 or 9 is paid; the banker's natural, "
                      "neither player having one, wins everything"),
    draw=hoyle_law(1463, 1473, "Baccara: the banker offers a card right, then left; if both "
                   "refuse he must take one"),
    result=hoyle_law(1486, 1499, "Baccara: the hand nearest 9 wins; ties stand off; a cheval "
                     "bets; only the last figure counts"),
    rotation=hoyle_law(1501, 1509, "Baccara: a side that loses a coup passes its hand to the "
                       "next player beyond"),
    short=hoyle_law(1511, 1515, "Baccara: a short bank pays the hands first, then the players "
                    "beyond them in order"),
    banco=hoyle_law(1517, 1528, "Baccara: banco takes precedence of all other bets; a broken "
                    "bank is put up again; not more than twice running"),
)
#: Chemin de Fer's passage (lines 1531-1543) makes it "a variety" of Baccara: its rulings
#: cite its own lines where it differs (six packs, only the right, the bank passing) and
#: the Baccara laws it plays by otherwise.
_VARIETY = (1534, 1538)
CHEMIN_LAWS = dataclasses.replace(
    BACCARA_LAWS,
    bank=hoyle_law(*_VARIETY, "Chemin de Fer: six packs; the bank as at Baccara (1423-1428)"),
    bets=hoyle_law(*_VARIETY, "Chemin de Fer: bets on the player on the right, as at Baccara "
                   "(1440-1449)"),
    deal=hoyle_law(*_VARIETY, "Chemin de Fer: cards only to the right and the banker, dealt "
                   "and counted as at Baccara (1451-1458)"),
    rotation=hoyle_law(1534, 1541, "Chemin de Fer: the bank passes to the left when the banker "
                       "loses; after a tie without a card given he may pass it"),
)


@dataclass(frozen=True, slots=True)
class BaccaraRules(HouseRules):
    """Baccara or Chemin de Fer: the bank put up, the session's length, the 9-against-8 rule.

    `natural_nine`: a player shows a natural 8 and the banker has 9. "point" (the default,
    the catalogue's reading) rules by the general law, nearest 9 wins (lines 1486-1487);
    "pay" reads line 1460 literally, "if the banker has not an equal number, he must pay".
    """

    chemin: bool = False
    deals: int = 10
    bank: int = 1000
    natural_nine: str = "point"

    def known_options(self) -> tuple[Option, ...]:
        return (whole("deals", 1, MAX_DEALS), whole("bank", 1, MAX_STAKE),
                either("natural_nine", "point", "pay"))

    @property
    def sides(self) -> tuple[str, ...]:
        return ("right",) if self.chemin else ("right", "left")

    @property
    def laws(self) -> Laws:
        return CHEMIN_LAWS if self.chemin else BACCARA_LAWS

    @property
    def bet_names(self) -> tuple[str, ...]:
        if self.chemin:
            return ("right", "banco")
        return ("right", "left", "cheval", "banco-right", "banco-left")
