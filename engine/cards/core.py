"""What every card game shares: cards, packs (full or stripped), the shoe's count, the card event.

The table tells the engine each card as it is dealt (from the shoe's reader, the camera,
or the dealer); the engine never draws one. A card is a code, rank then suit: rank
`A 2-10 J Q K`, suit `S H D C` ("10H", "AS", "QC").

>>> parse_card("10h"), parse_card("AS").colour
(Card(rank='10', suit='H'), 'black')
>>> count = ShoeCount(packs=1)
>>> count.add(parse_card("7H"), "card 1")
>>> count.add(parse_card("7H"), "card 2")
Traceback (most recent call last):
...
engine.errors.IllegalEventError: card 2: a second 7H, but a 1-pack shoe holds one
>>> spanish = ShoeCount(cards=spanish_pack(), name="the 40-card Spanish pack")
>>> spanish.check(parse_card("9C"), "card")
Traceback (most recent call last):
...
engine.errors.IllegalEventError: card: there is no 9C in the 40-card Spanish pack
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core import JSON, Event
from engine.errors import IllegalEventError

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
COURT = frozenset({"J", "Q", "K"})
#: The most packs a shoe in the books holds (faro and baccara deal from up to six or eight).
MAX_PACKS = 8
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth")


@dataclass(frozen=True, slots=True)
class Card:
    """One card: rank `A 2-10 J Q K` and suit `S H D C`."""

    rank: str
    suit: str

    @property
    def code(self) -> str:
        return self.rank + self.suit

    @property
    def colour(self) -> str:
        return "red" if self.suit in "HD" else "black"

    @property
    def order(self) -> int:
        """1 for the ace up to 13 for the king: the rank's place in the pack."""
        return RANKS.index(self.rank) + 1

    @property
    def name(self) -> str:
        """As a dealer says it: "ten of hearts", "ace of spades"."""
        return f"{RANK_NAMES.get(self.rank, self.rank)} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.code


FULL_PACK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)


def parse_card(code: object, where: str = "card") -> Card:
    """The card a code names (any case), or `IllegalEventError` naming `where` and the code."""
    if not isinstance(code, str):
        raise IllegalEventError(f"{where}: a card is a code like \"10H\" or \"AS\", "
                                f"not {code!r}")
    text = code.strip().upper()
    rank, suit = text[:-1], text[-1:]
    if rank not in RANKS or suit not in SUITS:
        raise IllegalEventError(f"{where}: there is no card {code!r}; a card is rank "
                                "A 2-10 J Q K then suit S H D C, e.g. 10H, AS")
    return Card(rank, suit)


def stripped_pack(*ranks: str, keep: tuple[str, ...] = ()) -> tuple[Card, ...]:
    """The full pack without the cards of `ranks`, except the codes in `keep`."""
    return tuple(card for card in FULL_PACK if card.rank not in ranks or card.code in keep)


def spanish_pack() -> tuple[Card, ...]:
    """The Spanish pack of forty cards: the full pack without its 8s, 9s and 10s."""
    return stripped_pack("8", "9", "10")


class ShoeCount:
    """The cards dealt so far from a shoe of `packs` copies of `cards` (the full pack, or a
    stripped one): no card that is not in it, none more often than it can be."""

    def __init__(self, packs: int = 1, cards: tuple[Card, ...] = FULL_PACK,
                 name: str = "the pack") -> None:
        if not 1 <= packs <= MAX_PACKS:
            raise ValueError(f"a shoe holds 1-{MAX_PACKS} packs, not {packs}")
        self.packs = packs
        self.cards = cards
        self.name = name
        self.seen: Counter[Card] = Counter()

    def fresh(self) -> ShoeCount:
        """The same shoe with every card back in it (a new deal, a shuffle)."""
        return ShoeCount(self.packs, self.cards, self.name)

    def check(self, card: Card, where: str) -> None:
        """Raise `IllegalEventError` if one more `card` cannot come from this shoe."""
        if card not in self.cards:
            raise IllegalEventError(f"{where}: there is no {card.code} in {self.name}")
        copies = self.seen[card] + 1
        if copies > self.packs:
            nth = ORDINALS[copies - 1] if copies <= len(ORDINALS) else f"{copies}th"
            holds = "one" if self.packs == 1 else str(self.packs)
            raise IllegalEventError(f"{where}: a {nth} {card.code}, but a {self.packs}-pack "
                                    f"shoe holds {holds}")

    def add(self, card: Card, where: str) -> None:
        self.check(card, where)
        self.seen[card] += 1

    @property
    def dealt(self) -> int:
        return sum(self.seen.values())

    @property
    def left(self) -> int:
        return len(self.cards) * self.packs - self.dealt

    def remaining(self) -> Counter[Card]:
        """How many of each card are still in the shoe (for exact chances of the next card)."""
        return Counter({card: self.packs - self.seen[card] for card in self.cards
                        if self.packs > self.seen[card]})

    def in_order(self) -> list[Card]:
        """The cards still in the shoe, once each, by suit then rank (what `legal_events`
        offers)."""
        return sorted(self.remaining(), key=lambda card: (card.suit, card.order))

    def ranks_left(self) -> Counter[str]:
        """How many of each rank are still to come (the faro case-keeper's count)."""
        found: Counter[str] = Counter()
        for card, copies in self.remaining().items():
            found[card.rank] += copies
        return found

    def to_json(self) -> JSON:
        return {"packs": self.packs, "dealt": self.dealt, "left": self.left}


@dataclass(frozen=True, slots=True)
class CardEvent(Event):
    """A card dealt face up (or down, `up=False`) to a hand: "banker", a player, a layout spot."""

    type: ClassVar[str] = "card"
    to: str
    card: Card
    up: bool = True

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "to": self.to, "card": self.card.code}
        if not self.up:
            data["up"] = False
        return data


def parse_card_event(data: Mapping[str, Any], hands: Sequence[str], game: str) -> CardEvent:
    """A card event dealt to one of `hands`, or `IllegalEventError` naming what is wrong."""
    to = data.get("to")
    if to not in hands:
        raise IllegalEventError(f"card: {game} deals to {', '.join(hands)}; not to {to!r}")
    up = data.get("up", True)
    if not isinstance(up, bool):
        raise IllegalEventError(f"card: up must be true or false, not {up!r}")
    return CardEvent(str(to), parse_card(data.get("card"), "card"), up)


def codes(cards: Iterable[Card]) -> list[str]:
    return [card.code for card in cards]
