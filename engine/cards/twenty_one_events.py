"""The events of a Vingt-et-Un table beyond the banking family's, the hands they act on.

The vocabulary is docs/cards/twenty_one.md's: a stake is the family's `BetEvent` on
"hand", a stand its `StandEvent`; the banker's double call, a refusal to double, a divided
pair and the sale of the deal are Vingt-et-Un's own. `engine/cards/twenty_one.py` applies
them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.cards.bank import ActEvent, parse_amount
from engine.cards.core import Card
from engine.core import JSON, Event
from engine.rules import parse_player


@dataclass(frozen=True, slots=True)
class DoubleEvent(ActEvent):
    """The banker, having seen his first card, calls on all the players to double."""

    type: ClassVar[str] = "double"


@dataclass(frozen=True, slots=True)
class RefuseEvent(ActEvent):
    """A player will not double: the banker takes what he has put up (Hoyle 17954-17955)."""

    type: ClassVar[str] = "refuse"


@dataclass(frozen=True, slots=True)
class SplitEvent(Event):
    """A player divides a pair; `amount` is the stake on the new hand (None: an equal one).

    `player` is the player, meaning his hand in play, or the name of that hand ("Bob/2").
    """

    type: ClassVar[str] = "split"
    player: str
    amount: int | None = None

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "player": self.player}
        if self.amount is not None:
            data["amount"] = self.amount
        return data


@dataclass(frozen=True, slots=True)
class SellEvent(Event):
    """The player whose turn it is to deal sells the deal to `buyer` for `amount`."""

    type: ClassVar[str] = "sell"
    player: str
    buyer: str
    amount: int

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "buyer": self.buyer,
                "amount": self.amount}


@dataclass(slots=True)
class Hand:
    """One hand at the table: whose it is, its cards, its stake and where it stands."""

    name: str
    owner: str
    cards: list[Card] = field(default_factory=list)
    stake: int = 0
    #: open, stood, bust, refused or settled.
    status: str = "open"
    divided: bool = False


def parse_split(data: Mapping[str, Any], player: str, limit: int) -> SplitEvent:
    """A split of `player` (a player, or a divided hand he plays: "Bob/2"), with the new
    hand's stake if it names one (1-`limit`)."""
    if data.get("amount") is None:
        return SplitEvent(player)
    return SplitEvent(player, parse_amount(data, "split", limit))


def parse_sale(data: Mapping[str, Any], players: Sequence[str], limit: int) -> SellEvent:
    """A sale of the deal to another player, for 0-`limit`."""
    player = str(parse_player(data, players, "sell"))
    buyer = str(parse_player({"player": data.get("buyer")}, players, "sell buyer"))
    return SellEvent(player, buyer, parse_amount(data, "sell", limit, low=0))
