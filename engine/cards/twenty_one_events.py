"""The events of a Vingt-et-Un table, the hands they act on, and reading them from JSON.

The vocabulary is docs/cards/twenty_one.md's; `engine/cards/twenty_one.py` applies them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.cards.core import Card, parse_card_event
from engine.core import JSON, Event
from engine.errors import IllegalEventError
from engine.rules import parse_player

# -- events ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StakeEvent(Event):
    """A player's stake on his hand, or an increase of it, before the second card."""

    type: ClassVar[str] = "bet"
    player: str
    amount: int

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "on": "hand", "amount": self.amount}


@dataclass(frozen=True, slots=True)
class ActEvent(Event):
    """A player's act that names only him: `stand`, `double` (the banker's call), `refuse`."""

    type: ClassVar[str] = "act"
    player: str

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player}


@dataclass(frozen=True, slots=True)
class StandEvent(ActEvent):
    """The player (or the banker) is content: his hand in play takes no more cards."""

    type: ClassVar[str] = "stand"


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
    """A player divides a pair; `amount` is the stake on the new hand (None: an equal one)."""

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


ACTS: dict[str, type[ActEvent]] = {"stand": StandEvent, "double": DoubleEvent,
                                   "refuse": RefuseEvent}


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


def _amount(data: Mapping[str, Any], kind: str, low: int, high: int) -> int:
    amount = data.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int) or not low <= amount <= high:
        raise IllegalEventError(f"{kind}: amount must be a whole number {low}-{high}, "
                                f"got {amount!r}")
    return amount


def parse_event(data: Mapping[str, Any], players: Sequence[str], hands: Sequence[str],
                game: str, limit: int) -> Event:
    """One transcript object as a table event, or `IllegalEventError` naming what is wrong."""
    kind = data.get("type")
    if kind == "card":
        return parse_card_event(data, hands, game)
    if kind == "bet":
        player = str(parse_player(data, players, "bet"))
        if data.get("on", "hand") != "hand":
            raise IllegalEventError(f"bet: {game} takes a stake on the hand "
                                    f"(\"on\": \"hand\"), not on {data.get('on')!r}")
        return StakeEvent(player, _amount(data, "bet", 1, limit))
    if kind in ACTS:
        return ACTS[str(kind)](str(parse_player(data, players, str(kind))))
    if kind == "split":
        player = str(parse_player(data, players, "split"))
        if data.get("amount") is None:
            return SplitEvent(player)
        return SplitEvent(player, _amount(data, "split", 1, limit))
    if kind == "sell":
        player = str(parse_player(data, players, "sell"))
        buyer = str(parse_player({"player": data.get("buyer")}, players, "sell buyer"))
        return SellEvent(player, buyer, _amount(data, "sell", 0, limit))
    raise IllegalEventError(f"{game} has no {kind!r} event; it has card, bet, double, "
                            "refuse, stand, split and sell")
