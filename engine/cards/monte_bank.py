"""Monte Bank, or Spanish Monte, as Hoyle's Games (1940) gives it: the gate against two layouts.

The first player is the banker. The Spanish pack of forty cards (no 8s, 9s or 10s) is
used: he draws two cards from the bottom for the bottom layout and two from the top for
the top layout; the players bet on either; the pack is turned face up and the card in
sight is the gate (lines 12709-12721). A layout with a card of the gate's suit is paid,
even money; a layout without one loses (12723-12733). The gate is thrown aside and fresh
layouts are made (12735-12737); the pack's forty cards make eight deals.

Events (docs/cards/monte_bank.md): `{"type": "card", "to": "bottom", "card": "5S"}` (twice,
then twice `"to": "top"`), `{"type": "bet", "player": "Bob", "on": "top", "amount": 5}`,
then `{"type": "card", "to": "gate", "card": "2C"}`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from engine.cards.bank import (
    MAX_PACK_DEALS,
    SAMPLE_STAKES,
    BankGame,
    BankState,
    BetEvent,
    Stake,
)
from engine.cards.core import SUIT_NAMES, Card, CardEvent, ShoeCount, spanish_pack
from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, whole

BANK = hoyle_law(12703, 12707, "Monte Bank: any number play against a banker")
LAYOUTS = hoyle_law(12709, 12721, "Monte Bank: the Spanish pack; two cards from the bottom, "
                                  "two from the top; bets on either layout")
GATE = hoyle_law(12723, 12728, "Monte Bank: the gate's suit in a layout, the banker pays "
                               "it; else he wins it")
AGAIN = hoyle_law(12735, 12737, "Monte Bank: the gate thrown aside, fresh layouts, another "
                                "gate")
LAYOUT_NAMES = ("bottom", "top")
SPOTS = (*LAYOUT_NAMES, "gate")
SPANISH_PACK = spanish_pack()
#: Cards one deal takes: two layouts of two, and the gate.
DEAL = 5


@dataclass(frozen=True, slots=True)
class MonteRules(HouseRules):
    """Monte Bank's named house rule: `deals`, the session's length (the book sets none)."""

    deals: int = 8

    def known_options(self) -> tuple[Option, ...]:
        return (whole("deals", 1, MAX_PACK_DEALS),)


def layout_chance(layout: Sequence[Card], left: Mapping[Card, int]) -> Fraction:
    """The exact chance the gate, any card still in the pack, has a suit of the layout."""
    suits = {card.suit for card in layout}
    total = sum(left.values())
    return Fraction(sum(n for card, n in left.items() if card.suit in suits), total)


class MonteState(BankState):
    """A monte bank: deals of two layouts and a gate, `deals` of them."""

    rules: MonteRules

    def new_shoe(self) -> ShoeCount:
        return ShoeCount(cards=SPANISH_PACK, name="the 40-card Spanish pack")

    def start(self) -> None:
        self.layouts: dict[str, list[Card]] = {name: [] for name in LAYOUT_NAMES}
        self.gate: Card | None = None
        self.last: JSON | None = None

    @property
    def banker(self) -> str:
        return self.players[0]

    @property
    def next_spot(self) -> str:
        for name in LAYOUT_NAMES:
            if len(self.layouts[name]) < 2:
                return name
        return "gate"

    def where(self) -> str:
        if self.over:
            return "the game is over"
        spot = self.next_spot
        if spot == "gate":
            return f"deal {self.coups + 1}: the layouts are made; bets, then the gate"
        return f"deal {self.coups + 1}: {self.banker} is drawing the {spot} layout"

    def card_hands(self) -> Sequence[str]:
        return SPOTS

    def spots(self) -> Sequence[str]:
        return LAYOUT_NAMES

    def verify_play(self, event: Event) -> None:
        if isinstance(event, CardEvent):
            if event.to in LAYOUT_NAMES and len(self.layouts[event.to]) == 2:
                raise IllegalEventError(f"card {event.card} to {event.to}: the {event.to} "
                                        "layout has its two cards")
            if event.to != self.next_spot:
                raise IllegalEventError(f"card {event.card} to {event.to}: {self.where()}")
            return
        if not isinstance(event, BetEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if event.player == self.banker:
            raise IllegalEventError(f"bet by {event.player}: the banker takes the bets, he "
                                    "does not place them")
        if self.next_spot != "gate":
            raise IllegalEventError(f"bet by {event.player} on {event.on}: {self.where()}; "
                                    "bets go on made layouts")

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, BetEvent):
            self.stakes.append(Stake(event.player, event.on, event.amount))
            return [self._bet_ruling(event)]
        assert isinstance(event, CardEvent)
        if event.to == "gate":
            return self._gate(event.card)
        self.layouts[event.to].append(event.card)
        return [Ruling("layout", self.banker, None, f"{event.card} to the {event.to} layout.",
                       LAYOUTS)]

    def _bet_ruling(self, bet: BetEvent) -> Ruling:
        layout = self.layouts[bet.on]
        chance = layout_chance(layout, self.shoe.remaining())
        edge = 1 - 2 * chance
        suits = " and ".join(sorted({SUIT_NAMES[c.suit] for c in layout}))
        return Ruling("bet", bet.player, bet.amount,
                      f"{bet.player} bets {bet.amount} on the {bet.on} layout ({suits}). Of "
                      f"the {self.shoe.left} cards left, the gate is of its suits exactly "
                      f"{chance} of the time; at even money the banker's edge is {edge} of "
                      f"the stake ({float(edge):.1%}).", LAYOUTS)

    def _gate(self, gate: Card) -> list[Ruling]:
        self.gate = gate
        paid = [name for name in LAYOUT_NAMES
                if any(card.suit == gate.suit for card in self.layouts[name])]
        if paid:
            which = " and ".join(f"the {name}" for name in paid)
            head = f"The gate is {gate}: {which} layout{'s' if len(paid) > 1 else ''} win."
        else:
            head = f"The gate is {gate}: no layout has a {SUIT_NAMES[gate.suit][:-1]}; both lose."
        rulings = [Ruling("gate", self.banker, None, head, GATE)]
        for stake in sorted(self.stakes, key=lambda s: s.on in paid):
            if stake.on in paid:
                self.pay(stake.player, stake.amount)
                rulings.append(Ruling("bet-won", stake.player, stake.amount,
                                      f"{self.banker} pays {stake.player}'s {stake.amount} on "
                                      f"the {stake.on}, even money.", GATE))
            else:
                self.pay(stake.player, -stake.amount)
                rulings.append(Ruling("bet-lost", stake.player, -stake.amount,
                                      f"{self.banker} wins {stake.player}'s {stake.amount} on "
                                      f"the {stake.on}.", GATE))
        self.stakes = []
        self.coups += 1
        if self.coups >= self.rules.deals:
            deals = self.rules.deals
            rulings.append(self.end(AGAIN, f"{deals} deals are over" if deals > 1
                                    else "The deal is over"))
            return rulings
        self.last = self.hands()
        self.layouts = {name: [] for name in LAYOUT_NAMES}
        self.gate = None
        if self.shoe.left < DEAL:
            self.shoe = self.shoe.fresh()
            rulings.append(Ruling("shuffle", self.banker, None, "The pack is spent: it is "
                                  "shuffled and cut for fresh layouts.", AGAIN))
        return rulings

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        spot = self.next_spot
        events: list[Event] = [CardEvent(spot, card) for card in sorted(
            self.shoe.remaining(), key=lambda c: (c.suit, c.order))]
        if spot == "gate":
            events.extend(BetEvent(player, on, amount) for player in self.players[1:]
                          for on in LAYOUT_NAMES for amount in SAMPLE_STAKES)
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        spot = self.next_spot
        if spot != "gate":
            return (Awaiting("card", "dealer", spot,
                             f"a card for the {spot} layout, from the {spot} of the pack"),)
        found = [Awaiting("card", "dealer", "gate", "the gate: the pack turned face up")]
        if len(self.players) > 1:
            found.append(Awaiting("bet", "player", None, "bets on the top or bottom layout"))
        return tuple(found)

    def hands(self) -> dict[str, list[str]]:
        hands = {name: [card.code for card in cards] for name, cards in self.layouts.items()}
        hands["gate"] = [self.gate.code] if self.gate else []
        return hands

    def extra(self) -> JSON:
        return {"deals": self.coups, "last_deal": self.last}


GAMES = (BankGame("monte-bank", "Monte Bank, or Spanish Monte", MonteRules(), MonteState,
                  (BANK, LAYOUTS, GATE, AGAIN), aliases=("spanish-monte",)),)
