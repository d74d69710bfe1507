"""Red Dog (Hoyle's Games 1940): bet the pool that you hold a higher card of the stock's suit.

Each player puts a counter in the pool and is dealt five cards; in turn from the dealer's
left (the dealer last) each bets against the pool, up to what it holds, that he can show
a card of the suit of the stock's top card but of higher rank (ace high), or refuses and
pays a counter. The dealer turns up the top card; the engine knows the bettor's hand from
the deal and shows the lowest card that wins, or takes the bet into the pool.

Events: `{"type": "card", "to": "Bob", "card": "QD", "up": false}` (the deal, one card at
a time from the dealer's left), `{"type": "bet", "player": "Bob", "on": "pool",
"amount": 3}`, `{"type": "refuse", "player": "Bob"}`, and `{"type": "card", "to": "stock",
"card": "9D"}` for the card the dealer turns up.

>>> from engine.cards.core import parse_card
>>> beats([parse_card("QD"), parse_card("2C")], parse_card("9D"))
Card(rank='Q', suit='D')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from engine.cards.bank import (
    MAX_DEALS,
    SAMPLE_STAKES,
    ActEvent,
    BankGame,
    BankState,
    BetEvent,
    Stake,
)
from engine.cards.core import FULL_PACK, SUIT_NAMES, Card, CardEvent, ShoeCount, codes
from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.rules import HouseRules, Option, whole

HAND = 5
STOCK = "stock"

PACK = hoyle_law(19003, 19007, "Red Dog: two to eight players, a full pack, ace high")
POOL = hoyle_law(19009, 19011, "Red Dog: a counter each to the pool, and again once it is won")
DEAL = hoyle_law(19011, 19014, "Red Dog: five cards each, one at a time; the rest is the stock")
BET = hoyle_law(19016, 19022, "Red Dog: bet against the pool, up to what it holds, on a "
                "higher card of the suit of the stock's top card")
SETTLE = hoyle_law(19024, 19030, "Red Dog: the bettor shows one card; a lost bet goes into "
                   "the pool, a won one is paid from it")
REFUSE = hoyle_law(19030, 19032, "Red Dog: a player who refuses to bet pays a counter and "
                   "his hand is dead")
NEW_DEAL = hoyle_law(19032, 19037, "Red Dog: when every player has had his chance, the deal "
                     "passes to the left")
LAWS = (PACK, POOL, DEAL, BET, SETTLE, REFUSE, NEW_DEAL)


def rank(card: Card) -> int:
    """The card's rank at Red Dog: 2 low up to the ace high."""
    return 14 if card.rank == "A" else card.order


def beats(hand: Sequence[Card], top: Card) -> Card | None:
    """The lowest card of `hand` of `top`'s suit and higher rank, or None."""
    winners = [card for card in hand if card.suit == top.suit and rank(card) > rank(top)]
    return min(winners, key=rank, default=None)


@dataclass(frozen=True, slots=True)
class RefuseEvent(ActEvent):
    """The player in turn will not bet: his hand is dead and he pays a counter."""

    type: ClassVar[str] = "refuse"


@dataclass(frozen=True, slots=True)
class RedDogRules(HouseRules):
    """Red Dog: the session lasts `deals` deals (the book sets no end)."""

    deals: int = 3

    def known_options(self) -> tuple[Option, ...]:
        return (whole("deals", 1, MAX_DEALS),)


class RedDogState(BankState):
    """A session of Red Dog: the pool, the deal, each player's bet against the pool."""

    rules: RedDogRules
    ACTS: ClassVar[Mapping[str, type[ActEvent]]] = {"refuse": RefuseEvent}

    def new_shoe(self) -> ShoeCount:
        return ShoeCount(1)

    def start(self) -> None:
        self.dealer = 0
        self.pool = 0
        self.new_deal()

    def new_deal(self) -> None:
        self.held: dict[str, list[Card]] = {name: [] for name in self.players}
        self.dealt = 0
        self.turn = 0
        self.turned: list[Card] = []

    @property
    def order(self) -> list[str]:
        """The players from the dealer's left round to the dealer."""
        count = len(self.players)
        return [self.players[(self.dealer + 1 + i) % count] for i in range(count)]

    @property
    def dealing(self) -> bool:
        return self.dealt < HAND * len(self.players)

    @property
    def due(self) -> str:
        """Who the next card of the deal goes to."""
        return self.order[self.dealt % len(self.players)]

    @property
    def bettor(self) -> str:
        return self.order[self.turn]

    @property
    def pending(self) -> Stake | None:
        return self.stakes[0] if self.stakes else None

    def spots(self) -> Sequence[str]:
        return ("pool",)

    def card_hands(self) -> Sequence[str]:
        return [*self.players, STOCK]

    def hands(self) -> dict[str, list[str]]:
        return {**{name: codes(cards) for name, cards in self.held.items()},
                STOCK: codes(self.turned)}

    def where(self) -> str:
        if self.over:
            return "the game is over"
        if self.dealing:
            return f"deal {self.coups + 1}: the next card goes to {self.due}"
        if self.pending is not None:
            return f"deal {self.coups + 1}: {self.bettor} has bet, the top card is to be turned"
        return f"deal {self.coups + 1}: {self.bettor} to bet or refuse, the pool holds {self.pool}"

    def verify_play(self, event: Event) -> None:
        if isinstance(event, CardEvent):
            if self.dealing:
                if event.to != self.due:
                    raise self.refuse(event, f"the deal goes one card at a time from the "
                                      f"dealer's left; this card goes to {self.due}")
            elif event.to != STOCK or self.pending is None:
                raise self.refuse(event, f"{event.to}'s hand is closed: the deal is done, and "
                                  "the top card is turned only for a bet")
            return
        if not isinstance(event, BetEvent | RefuseEvent):
            raise self.refuse(event, "Red Dog takes cards, bets and refusals")
        if self.dealing:
            raise self.refuse(event, "the cards are still being dealt")
        if self.pending is not None:
            raise self.refuse(event, f"{self.bettor}'s bet waits for the top card")
        if event.player != self.bettor:
            raise self.refuse(event, f"it is {self.bettor}'s turn to bet")
        if isinstance(event, BetEvent) and event.amount > self.pool:
            raise self.refuse(event, f"a bet may not exceed the pool, which holds {self.pool}")

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, CardEvent):
            if self.dealing:
                return self.deal(event)
            return self.settle(event.card)
        rulings: list[Ruling]
        if isinstance(event, RefuseEvent):
            self.net[event.player] -= 1
            self.pool += 1
            self.held[event.player] = []
            rulings = [Ruling("refuse", event.player, -1,
                              f"{event.player} refuses to bet: his hand is dead and he pays a "
                              f"counter to the pool, which holds {self.pool}.", REFUSE)]
            return rulings + self.next_turn()
        assert isinstance(event, BetEvent)
        self.stakes.append(Stake(event.player, event.on, event.amount))
        won, unseen = self.chance(event.player)
        return [Ruling("bet", event.player, event.amount,
                       f"{event.player} bets {event.amount} against the pool of {self.pool}: "
                       f"his hand beats {won} of the {unseen} cards he has not seen, a chance "
                       f"of exactly {Fraction(won, unseen)}.", BET)]

    def chance(self, player: str) -> tuple[int, int]:
        """Of the cards the player has not seen, how many his hand beats: (beaten, unseen)."""
        seen = {*self.held[player], *self.turned}
        unseen = [card for card in FULL_PACK if card not in seen]
        return sum(1 for card in unseen if beats(self.held[player], card)), len(unseen)

    def deal(self, event: CardEvent) -> list[Ruling]:
        rulings = []
        if self.dealt == 0:
            rulings.append(self.ante(f"Deal {self.coups + 1}, dealt by "
                                     f"{self.players[self.dealer]}"))
        self.held[event.to].append(event.card)
        self.dealt += 1
        if not self.dealing:
            rulings.append(Ruling("dealt", None, None,
                                  f"Five cards each; {self.bettor} bets first.", DEAL))
        return rulings

    def ante(self, why: str) -> Ruling:
        for name in self.players:
            self.net[name] -= 1
        self.pool += len(self.players)
        return Ruling("ante", None, len(self.players),
                      f"{why}: each player puts a counter in the pool, which holds "
                      f"{self.pool}.", POOL)

    def settle(self, top: Card) -> list[Ruling]:
        stake = self.stakes.pop()
        self.turned.append(top)
        shown = beats(self.held[stake.player], top)
        self.held[stake.player] = []
        rulings = []
        if shown is not None:
            self.net[stake.player] += stake.amount
            self.pool -= stake.amount
            rulings.append(Ruling("bet-won", stake.player, stake.amount,
                                  f"The top card is {top.name}; {stake.player} shows "
                                  f"{shown.name} and takes {stake.amount} from the pool, which "
                                  f"holds {self.pool}.", SETTLE))
            if self.pool == 0:
                rulings.append(self.ante("The pool is won"))
        else:
            self.net[stake.player] -= stake.amount
            self.pool += stake.amount
            rulings.append(Ruling("bet-lost", stake.player, -stake.amount,
                                  f"The top card is {top.name}; {stake.player} holds no higher "
                                  f"{SUIT_NAMES[top.suit][:-1]}: his {stake.amount} goes "
                                  f"into the pool, which holds {self.pool}.", SETTLE))
        return rulings + self.next_turn()

    def next_turn(self) -> list[Ruling]:
        self.turn += 1
        if self.turn < len(self.players):
            return []
        self.coups += 1
        if self.coups >= self.rules.deals:
            return [self.end(NEW_DEAL, f"{self.coups} deals played")]
        self.dealer = (self.dealer + 1) % len(self.players)
        self.new_deal()
        self.shoe = self.shoe.fresh()
        return [Ruling("new-deal", self.players[self.dealer], None,
                       f"Every player has had his chance: {self.players[self.dealer]} deals; "
                       f"{self.pool} stays in the pool.", NEW_DEAL)]

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        if self.dealing or self.pending is not None:
            to = self.due if self.dealing else STOCK
            return [CardEvent(to, card) for card in FULL_PACK
                    if self.shoe.seen[card] < self.shoe.packs]
        amounts = sorted({*(a for a in SAMPLE_STAKES if a <= self.pool), self.pool})
        return [RefuseEvent(self.bettor),
                *(BetEvent(self.bettor, "pool", amount) for amount in amounts)]

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        if self.dealing:
            return (Awaiting("card", "dealer", self.due,
                             f"the next card of the deal, to {self.due}"),)
        if self.pending is not None:
            return (Awaiting("card", "dealer", STOCK,
                             f"the top card of the stock, turned up for {self.bettor}"),)
        return (Awaiting("bet", "player", self.bettor,
                         f"a bet of 1-{self.pool} against the pool, or refuse"),)

    def extra(self) -> JSON:
        return {"deals": self.coups, "pool": self.pool, "dealer": self.players[self.dealer],
                "to_bet": None if self.over or self.dealing else self.bettor}


GAMES = (
    BankGame("red-dog", "Red Dog", RedDogRules(), RedDogState, LAWS, most=8),
)
