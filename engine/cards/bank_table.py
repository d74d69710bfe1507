"""What the banking card games of faro, farmer, lansquenet, monte bank and blind hookey share.

A banker (or farmer) against the other players: stakes on the table, a pack with only the
cards the game uses, net winnings on a sheet, and a snapshot the dashboard draws the same
way for every banking card game. Each game keeps its event log (`LoggedState`), so a save
is its log and a load replays it.

>>> from engine.cards.core import parse_card
>>> shoe = Shoe(spanish_pack(), name="the 40-card Spanish pack")
>>> shoe.add(parse_card("7C"), "card 1")
>>> shoe.check(parse_card("9C"), "card 2")
Traceback (most recent call last):
...
engine.errors.IllegalEventError: card 2: there is no 9C in the 40-card Spanish pack
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from engine.cards.core import FULL_PACK, Card, ShoeCount
from engine.core import JSON, Event, LawRef, Outcome, Ruling
from engine.errors import IllegalEventError
from engine.rules import LoggedGame, LoggedState, best_off, names, parse_player

FAMILY = "banking-cards"
#: The largest stake one bet may carry.
MAX_STAKE = 1_000_000
#: The stakes `legal_events` offers; a real table may bet any whole amount up to MAX_STAKE.
SAMPLE_STAKES = (1, 5)
#: The most deals, coups or rounds a session may be set to last.
MAX_DEALS = 100

def stripped_pack(*ranks: str, keep: tuple[str, ...] = ()) -> tuple[Card, ...]:
    """The full pack without the cards of `ranks`, except the codes in `keep`."""
    return tuple(card for card in FULL_PACK if card.rank not in ranks or card.code in keep)


def spanish_pack() -> tuple[Card, ...]:
    """The Spanish pack of forty cards: the full pack without its 8s, 9s and 10s."""
    return stripped_pack("8", "9", "10")


class Shoe:
    """The cards dealt from a pack (or shoe) of `packs` copies of `cards`; none twice too often."""

    def __init__(self, cards: tuple[Card, ...] = FULL_PACK, packs: int = 1,
                 name: str = "the pack") -> None:
        self.cards = cards
        self.name = name
        self.count = ShoeCount(packs)

    @property
    def packs(self) -> int:
        return self.count.packs

    def check(self, card: Card, where: str) -> None:
        """Raise `IllegalEventError` if `card` cannot come next from this pack."""
        if card not in self.cards:
            raise IllegalEventError(f"{where}: there is no {card.code} in {self.name}")
        self.count.check(card, where)

    def add(self, card: Card, where: str) -> None:
        self.check(card, where)
        self.count.add(card, where)

    @property
    def dealt(self) -> int:
        return self.count.dealt

    @property
    def left(self) -> int:
        return len(self.cards) * self.packs - self.dealt

    def remaining(self) -> Counter[Card]:
        """How many of each card are still to come."""
        return Counter({card: self.packs - self.count.seen[card] for card in self.cards
                        if self.packs > self.count.seen[card]})

    def ranks_left(self) -> Counter[str]:
        """How many of each rank are still to come (the faro case-keeper's count)."""
        found: Counter[str] = Counter()
        for card, copies in self.remaining().items():
            found[card.rank] += copies
        return found

    def to_json(self) -> JSON:
        return {"packs": self.packs, "dealt": self.dealt, "left": self.left}


@dataclass(frozen=True, slots=True)
class BetEvent(Event):
    """A player's stake on one of the game's bets (a packet, a layout, a players' card)."""

    type: ClassVar[str] = "bet"
    player: str
    on: str
    amount: int

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "on": self.on, "amount": self.amount}


def parse_amount(data: Mapping[str, Any], kind: str = "bet") -> int:
    """The event's `amount`: a whole number 1-MAX_STAKE, or `IllegalEventError`."""
    amount = data.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_STAKE:
        raise IllegalEventError(f"{kind}: amount must be a whole number 1-{MAX_STAKE:,}, "
                                f"got {amount!r}")
    return amount


def parse_bet(data: Mapping[str, Any], players: Sequence[str], spots: Sequence[str],
              game: str) -> BetEvent:
    """A bet on one of `spots`, by one of the players, of a whole amount."""
    player = parse_player(data, players, "bet")
    on = data.get("on")
    if on not in spots:
        where = ", ".join(spots) if spots else "nothing now"
        raise IllegalEventError(f"bet: {game} takes bets on {where}; not on {on!r}")
    return BetEvent(str(player), str(on), parse_amount(data))


class BankState(LoggedState):
    """A banking card game in progress: a banker, a sheet of net winnings, an end."""

    game: BankGame[Any]
    net: dict[str, int]
    over: bool

    def start_sheet(self) -> None:
        self.net = {name: 0 for name in self.players}
        self.over = False
        self.history = []

    @property
    @abstractmethod
    def banker(self) -> str | None:
        """Who holds the bank now (the farmer at Farmer); None before it is sold."""

    @abstractmethod
    def hands(self) -> dict[str, list[str]]:
        """The cards on the table by hand or spot, as they were reported."""

    @abstractmethod
    def bets(self) -> list[JSON]:
        """The stakes on the table: {"player", "on", "amount"} and any game-specific keys."""

    @abstractmethod
    def shoe(self) -> Shoe:
        """The pack now being dealt."""

    def extra(self) -> JSON:
        """Game-specific snapshot keys."""
        return {}

    def refuse_after_end(self, event: Event) -> None:
        if self.over:
            raise IllegalEventError(f"{event.type}: the game is over")

    def pay(self, player: str, payer: str, gain: int) -> None:
        """`player` wins `gain` from `payer` (a negative gain: `payer` wins it from him)."""
        self.net[player] += gain
        self.net[payer] -= gain

    def end(self, law: LawRef, why: str) -> Ruling:
        """Close the session; the ruling names who is best off."""
        self.over = True
        outcome = self.outcome()
        assert outcome is not None
        best = outcome.scores[outcome.winners[0]]
        verb = "is" if len(outcome.winners) == 1 else "are"
        return Ruling("winner", ", ".join(outcome.winners), best,
                      f"{why}: {names(outcome.winners)} {verb} best off, at {best:+d}.", law)

    def outcome(self) -> Outcome | None:
        return best_off(self.net) if self.over else None

    def snapshot(self) -> JSON:
        outcome = self.outcome()
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(self.players), "options": self.rules.options(),
            "banker": None if self.over else self.banker,
            "hands": self.hands(), "bets": self.bets(),
            "sheet": [{"player": name, "total": self.net[name]} for name in self.players],
            "over": self.over, "winners": list(outcome.winners) if outcome else [],
            "shoe": self.shoe().to_json(), **self.extra(),
        }


BankStateT = TypeVar("BankStateT", bound=BankState)


class BankGame(LoggedGame[BankStateT]):
    """A banking card game of the books; its `rules` are the variant."""

    family = FAMILY
