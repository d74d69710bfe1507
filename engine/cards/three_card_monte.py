"""Three-Card Monte (Hoyle's Games 1940): find the black card among three face down.

The banker (the first player) shows two red cards and one black, shifts them face down
on three spots, "left", "middle" and "right", and the players bet on the spot they take
for the black card. The cards are then turned up; as soon as the black card's spot is
known (the black card turned, or both red ones) every bet is settled.

Events: `{"type": "bet", "player": "Bob", "on": "left", "amount": 5}` before the first card
of the coup is turned; `{"type": "card", "to": "middle", "card": "AS"}` as a card is turned.

>>> from engine.registry import get_game
>>> state = get_game("three-card-monte").new_state(["Ann", "Bob"])
>>> _ = state.apply(state.parse_event({"type": "bet", "player": "Bob", "on": "left",
...                                    "amount": 5}))
>>> [(r.kind, r.amount) for r in state.apply(state.parse_event(
...     {"type": "card", "to": "left", "card": "AS"})).rulings]
[('coup', None), ('bet-won', 10)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from engine.cards.bank import (
    MAX_DEALS,
    SAMPLE_STAKES,
    BankGame,
    BankState,
    BetEvent,
    Stake,
)
from engine.cards.core import FULL_PACK, CardEvent, ShoeCount
from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.rules import HouseRules, Option, either, whole

SPOTS = ("left", "middle", "right")

CARDS = hoyle_law(17927, 17931, "Three-Card Monte: two red cards and one black, face down")
SHIFT = hoyle_law(17931, 17936, "Three-Card Monte: the black card is shown, then shifted about")
PAYS = hoyle_law(17938, 17940, "Three-Card Monte: 2 for 1 is a fair game; even money is not")
LAWS = (CARDS, SHIFT, PAYS)


@dataclass(frozen=True, slots=True)
class MonteRules(HouseRules):
    """Three-Card Monte: what the banker pays a winning unit, and how many coups a session has.

    The book (lines 17938-17940) says the banker "should" pay 2 for 1, which is fair on a
    1-in-3 chance only if it means a net 2 (2 to 1); "even" is the banker who pays even
    money only, as the book warns.
    """

    pays: str = "2-to-1"
    deals: int = 10

    def known_options(self) -> tuple[Option, ...]:
        return either("pays", "2-to-1", "even"), whole("deals", 1, MAX_DEALS)

    @property
    def net(self) -> int:
        """What a winning unit wins, the stake not counted."""
        return 2 if self.pays == "2-to-1" else 1

    def expectation(self) -> Fraction:
        """The player's exact average gain a unit staked: one chance in three to win `net`."""
        return Fraction(1, 3) * self.net - Fraction(2, 3)


class MonteState(BankState):
    """A session of Three-Card Monte: bets on a spot, then the cards turned up."""

    rules: MonteRules

    def new_shoe(self) -> ShoeCount:
        return ShoeCount(1)

    def start(self) -> None:
        self.turned: dict[str, CardEvent] = {}

    @property
    def banker(self) -> str:
        return self.players[0]

    def spots(self) -> Sequence[str]:
        return SPOTS

    def card_hands(self) -> Sequence[str]:
        return SPOTS

    def hands(self) -> dict[str, list[str]]:
        return {spot: [self.turned[spot].card.code] if spot in self.turned else []
                for spot in SPOTS}

    def on_table(self) -> list[CardEvent]:
        return list(self.turned.values())

    def where(self) -> str:
        if self.over:
            return "the game is over"
        if self.turned:
            return f"coup {self.coups + 1}: {', '.join(self.turned)} turned up"
        return f"coup {self.coups + 1}: bets on the three cards"

    def verify_play(self, event: Event) -> None:
        if isinstance(event, BetEvent):
            if event.player == self.banker:
                raise self.refuse(event, "the banker takes the bets, he does not place them")
            if self.turned:
                raise self.refuse(event, "a bet comes before the first card is turned up")
            return
        if not isinstance(event, CardEvent):
            raise self.refuse(event, "Three-Card Monte takes bets and turned cards only")
        if event.to in self.turned:
            raise self.refuse(event, f"the {event.to} card is already turned up "
                              f"({self.turned[event.to].card})")

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, BetEvent):
            self.stakes.append(Stake(event.player, event.on, event.amount))
            edge = self.rules.expectation()
            return [Ruling("bet", event.player, event.amount,
                           f"{event.player} bets {event.amount} that the black card lies "
                           f"{event.on}; {self.banker} pays {self.rules.net} to 1 on one "
                           f"chance in 3 (2 to 1 against): the player's expectation is exactly "
                           f"{edge} of the stake (the book: 2 for 1 is perfectly fair, even "
                           "money is betting 2 to 1 against himself).", PAYS)]
        assert isinstance(event, CardEvent)
        self.turned[event.to] = event
        black = self.black_spot()
        if black is None:
            return [Ruling("turn", None, None, f"The {event.to} card is {event.card.name}.",
                           SHIFT)]
        return self.settle(black)

    def black_spot(self) -> str | None:
        """The black card's spot, once it is turned up or both red cards are."""
        for spot, dealt in self.turned.items():
            if dealt.card.colour == "black":
                return spot
        if len(self.turned) == 2:
            return next(spot for spot in SPOTS if spot not in self.turned)
        return None

    def settle(self, black: str) -> list[Ruling]:
        rulings = [Ruling("coup", self.banker, None,
                          f"The black card lies {black}.", CARDS)]
        for stake in self.stakes:
            if stake.on == black:
                gain = stake.amount * self.rules.net
                text = (f"{stake.player} found the black card: {self.banker} pays his "
                        f"{stake.amount} at {self.rules.net} to 1, {gain}.")
            else:
                gain = -stake.amount
                text = (f"{stake.player} bet on the {stake.on} card, a red one: "
                        f"{self.banker} takes his {stake.amount}.")
            self.pay(stake.player, gain)
            rulings.append(Ruling("bet-won" if gain > 0 else "bet-lost", stake.player, gain,
                                  text, PAYS))
        self.stakes = []
        self.turned = {}
        self.shoe.seen.clear()
        self.coups += 1
        if self.coups >= self.rules.deals:
            rulings.append(self.end(PAYS, f"{self.coups} deals played"))
        return rulings

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        events: list[Event] = []
        if not self.turned:
            events.extend(BetEvent(player, spot, amount) for player in self.players[1:]
                          for spot in SPOTS for amount in SAMPLE_STAKES)
        for spot in SPOTS:
            events.extend(CardEvent(spot, card) for card in FULL_PACK
                          if card.rank == "A" and self.can_apply(CardEvent(spot, card)))
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        spots = sorted({e.to for e in self.legal_events() if isinstance(e, CardEvent)})
        found = [Awaiting("card", "dealer", spots[0] if len(spots) == 1 else None,
                          f"{self.banker} turns a card up: the black card's spot decides "
                          "the coup")]
        if not self.turned and len(self.players) > 1:
            found.insert(0, Awaiting("bet", "player", None,
                                     "bets on left, middle or right, before a card is turned"))
        return tuple(found)

    def extra(self) -> JSON:
        turned = len(self.turned)
        return {"deals": self.coups, "pays": f"{self.rules.net} to 1",
                "shoe": {"packs": 1, "dealt": turned, "left": len(SPOTS) - turned},
                "expectation": str(self.rules.expectation())}


GAMES = (
    BankGame("three-card-monte", "Three-Card Monte", MonteRules(), MonteState, LAWS),
)
