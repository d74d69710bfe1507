"""Farmer as Hoyle's Games (1940) gives it: draw to sixteen against the farmer's pack.

The pack is 52 cards without the 8s and the 6s but the 6 of hearts: 45 cards; K Q J count
10, the rest their pips, the ace 1 (lines 11663-11666). Everyone puts counters into the
farm, which is sold at auction; the buyer puts his bid in, becomes the farmer and deals one
card face down to each other player (lines 11668-11677). Each in turn from the farmer's
left draws at least one card, one at a time, aiming at 16 (lines 11679-11683). Then:

- exactly 16 takes the farm; between two, the 6 of hearts, then the one nearer the
  dealer's left; no 16: the farm stays with the farmer (lines 11685-11689);
- over 16 pays the farmer a chip a point over, his clear profit (lines 11691-11696);
- the nearest under 16 gets a chip from every player but the farmer, ties both paid
  (lines 11696-11699).

Events (docs/cards/farmer.md): `{"type": "bid", "player": "Ann", "amount": 3}`,
`{"type": "sold"}` (the auction is closed), `{"type": "card", "to": "Bob", "card": "5H",
"up": false}` (the deal, then each draw), `{"type": "stand", "player": "Bob"}`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards.bank import (
    MAX_PACK_DEALS,
    SAMPLE_STAKES,
    ActEvent,
    BankGame,
    BankState,
    StandEvent,
    parse_amount,
)
from engine.cards.core import COURT, Card, CardEvent, ShoeCount, stripped_pack
from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, names, parse_player, whole

PACK = hoyle_law(11663, 11666, "Farmer: 45 cards (no 8s, no 6s but the 6 of hearts); "
                               "K Q J 10, the rest their pips")
FARM = hoyle_law(11668, 11677, "Farmer: all pay into the farm; the highest bidder adds his "
                               "bid and deals one card to each but himself")
DRAW = hoyle_law(11679, 11683, "Farmer: each draws in turn, one card at a time, at least one, "
                               "to get near 16")
SIXTEEN = hoyle_law(11685, 11689, "Farmer: exactly 16 takes the farm; the 6 of hearts, then "
                                  "the dealer's left, decides two; else the farm remains")
OVERDRAWN = hoyle_law(11691, 11696, "Farmer: a chip to the farmer for every point over 16")
NEAREST = hoyle_law(11696, 11699, "Farmer: the nearest under 16 gets a chip from every "
                                  "player but the farmer; ties both paid")
TARGET = 16
SIX_OF_HEARTS = Card("6", "H")


#: The 52 cards without the 8s and the 6s, save the 6 of hearts.
FARMER_PACK = stripped_pack("8", "6", keep=(SIX_OF_HEARTS.code,))


def points(cards: Sequence[Card]) -> int:
    """A hand's count: K Q J 10 each, the ace 1, every other card its pips."""
    return sum(10 if card.rank in COURT else card.order for card in cards)


@dataclass(frozen=True, slots=True)
class FarmerRules(HouseRules):
    """Farmer's named house rules.

    `ante`: the "agreed number of counters" each puts in a new farm (line 11668).
    `new_farm`: after a 16 takes the farm the book does not say how the next farm is made;
    "auction" (default) makes it as the first (every player pays the ante, the farm is put
    up again), "taker" makes the one who took the farm the farmer of a new farm of antes.
    `deals`: the book sets no end; the session lasts this many deals.
    """

    ante: int = 1
    new_farm: str = "auction"
    deals: int = 3

    def known_options(self) -> tuple[Option, ...]:
        return (whole("ante", 1, 100), either("new_farm", "auction", "taker"),
                whole("deals", 1, MAX_PACK_DEALS))


@dataclass(frozen=True, slots=True)
class BidEvent(Event):
    """A bid for the farm at auction."""

    type: ClassVar[str] = "bid"
    player: str
    amount: int

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class SoldEvent(Event):
    """The auction is closed: the highest bidder has bought the farm."""

    type: ClassVar[str] = "sold"

    def to_json(self) -> JSON:
        return {"type": self.type}


class FarmerState(BankState):
    """A session of Farmer: a farm made and sold, deals, settlement at every show."""

    rules: FarmerRules
    ACTS: ClassVar[Mapping[str, type[ActEvent]]] = {"stand": StandEvent}
    OTHERS = ("bid", "sold")
    BETS = False

    def new_shoe(self) -> ShoeCount:
        return ShoeCount(cards=FARMER_PACK, name="the farmer's pack of 45 cards")

    def start(self) -> None:
        self.farm = 0
        self.farm_made = False
        self.farmer: str | None = None
        self.high_bid: tuple[str, int] | None = None
        self.cards: dict[str, list[Card]] = {}
        self.stood: list[str] = []

    # -- where the deal stands ------------------------------------------------------------

    @property
    def banker(self) -> str | None:
        return self.farmer

    @property
    def order(self) -> list[str]:
        """The players dealt to, from the farmer's left."""
        if self.farmer is None:
            return []
        seat = self.players.index(self.farmer)
        return [*self.players[seat + 1:], *self.players[:seat]]

    @property
    def phase(self) -> str:
        if self.over:
            return "over"
        if self.farmer is None:
            return "auction"
        if any(not self.cards.get(p) for p in self.order):
            return "deal"
        return "draw"

    @property
    def to_act(self) -> str | None:
        """Who is dealt to or draws next (None at auction and at the end)."""
        phase = self.phase
        if phase == "deal":
            return next((p for p in self.order if not self.cards.get(p)), None)
        if phase == "draw":
            return next((p for p in self.order if p not in self.stood), None)
        return None

    def where(self) -> str:
        phase = self.phase
        if phase == "auction":
            return "the farm is at auction"
        if phase == "deal":
            return f"{self.farmer} is dealing; the next card goes to {self.to_act}"
        if phase == "draw":
            return f"{self.to_act} is drawing"
        return "the game is over"

    # -- events ---------------------------------------------------------------------------

    def card_hands(self) -> Sequence[str]:
        return self.players

    def parse_other(self, kind: str, data: Mapping[str, Any]) -> Event:
        if kind == "sold":
            return SoldEvent()
        return BidEvent(str(parse_player(data, self.players, "bid")), parse_amount(data, "bid"))

    def verify_play(self, event: Event) -> None:
        phase = self.phase
        if isinstance(event, BidEvent | SoldEvent):
            if phase != "auction":
                raise IllegalEventError(f"{event.type}: the farm is not at auction; "
                                        f"{self.where()}")
            if isinstance(event, SoldEvent):
                if self.high_bid is None:
                    raise IllegalEventError("sold: no one has bid for the farm yet")
            elif self.high_bid is not None and event.amount <= self.high_bid[1]:
                raise IllegalEventError(f"bid of {event.amount} by {event.player}: "
                                        f"{self.high_bid[0]} has bid {self.high_bid[1]}")
            return
        if phase == "auction":
            raise IllegalEventError(f"{event.type}: the farm has not been sold; bids first")
        if isinstance(event, CardEvent):
            self._verify_card(event)
            return
        if not isinstance(event, StandEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if phase != "draw" or event.player != self.to_act:
            raise IllegalEventError(f"stand by {event.player}: not his turn to draw; "
                                    f"{self.where()}")
        if len(self.cards[event.player]) < 2 and self.shoe.left:
            raise IllegalEventError(f"stand by {event.player}: every player must take one "
                                    "card; he has drawn none")

    def _verify_card(self, event: CardEvent) -> None:
        if event.to == self.farmer:
            raise IllegalEventError(f"card to {event.to}: the farmer deals none to himself")
        if event.to in self.stood:
            raise IllegalEventError(f"card to {event.to}: he has stood; his hand is closed")
        if event.to != self.to_act:
            raise IllegalEventError(f"card to {event.to}: {self.where()}")

    def play(self, event: Event) -> list[Ruling]:
        rulings = [] if self.farm_made else self._make_farm()
        if isinstance(event, BidEvent):
            self.high_bid = (event.player, event.amount)
            rulings.append(Ruling("bid", event.player, event.amount,
                                  f"{event.player} bids {event.amount} for the farm.", FARM))
        elif isinstance(event, SoldEvent):
            assert self.high_bid is not None
            buyer, price = self.high_bid
            rulings.extend(self._sell(buyer, price))
        elif isinstance(event, CardEvent):
            rulings.extend(self._card(event))
        else:
            assert isinstance(event, StandEvent)
            self.stood.append(event.player)
            total = points(self.cards[event.player])
            rulings.append(Ruling("stand", event.player, None,
                                  f"{event.player} draws no more ({total} points, shown "
                                  "when all have drawn).", DRAW))
            if self.to_act is None:
                rulings.extend(self._show())
        return rulings

    def _make_farm(self) -> list[Ruling]:
        self.farm_made = True
        for player in self.players:
            self.net[player] -= self.rules.ante
        self.farm += self.rules.ante * len(self.players)
        return [Ruling("ante", None, self.rules.ante,
                       f"Every player puts {self.rules.ante} in the farm: it holds "
                       f"{self.farm}.", FARM)]

    def _sell(self, buyer: str, price: int) -> list[Ruling]:
        self.net[buyer] -= price
        self.farm += price
        self.farmer = buyer
        self.high_bid = None
        rulings = [Ruling("farmer", buyer, price, f"{buyer} buys the farm for {price} and "
                          f"puts it in: the farm holds {self.farm}; {buyer} deals.", FARM)]
        while not self.over and not self.order:
            rulings.extend(self._show())
        return rulings

    def _card(self, event: CardEvent) -> list[Ruling]:
        dealing = self.phase == "deal"
        self.cards.setdefault(event.to, []).append(event.card)
        if dealing:
            return [Ruling("deal", event.to, None, f"{self.farmer} deals {event.to} one card "
                           "face down.", FARM)]
        total = points(self.cards[event.to])
        return [Ruling("draw", event.to, None, f"{event.to} draws a card ({total} points, "
                       "said nothing of until the show).", DRAW)]

    def _show(self) -> list[Ruling]:
        """Every hand is shown: the farm, the overdrawn and the nearest are settled."""
        farmer = self.farmer
        assert farmer is not None
        totals = {p: points(self.cards.get(p, [])) for p in self.order}
        shown = ", ".join(f"{p} {t}" for p, t in totals.items())
        rulings: list[Ruling] = []
        sixteens = [p for p, t in totals.items() if t == TARGET]
        taker = next((p for p in sixteens if SIX_OF_HEARTS in self.cards[p]),
                     sixteens[0] if sixteens else None)
        if taker is not None:
            why = ""
            if len(sixteens) > 1:
                six = SIX_OF_HEARTS in self.cards[taker]
                why = (" (he holds the 6 of hearts)" if six
                       else " (nearest the dealer's left)")
            rulings.append(Ruling("farm-taken", taker, self.farm,
                                  f"Shown: {shown}. {names(sixteens)} "
                                  f"{'has' if len(sixteens) == 1 else 'have'} 16: {taker} "
                                  f"takes the farm and its {self.farm}{why}.", SIXTEEN))
            self.net[taker] += self.farm
            self.farm = 0
        else:
            rulings.append(Ruling("farm-stays", farmer, self.farm,
                                  f"Shown: {shown}. No one has 16: the farm, {self.farm}, "
                                  f"stays with {farmer}.", SIXTEEN))
        for player, total in totals.items():
            if total > TARGET:
                over = total - TARGET
                self.pay(player, -over)
                rulings.append(Ruling("overdrawn", player, -over,
                                      f"{player} has {total}, {over} over: he pays {farmer} "
                                      f"{over}, not to go in the farm.", OVERDRAWN))
        under = [t for t in totals.values() if t < TARGET]
        if under:
            best = max(under)
            nearest = [p for p, t in totals.items() if t == best]
            for player in nearest:
                payers = [p for p in self.order if p != player]
                for payer in payers:
                    self.pay(player, 1, payer)
                rulings.append(Ruling("nearest", player, len(payers),
                                      f"{player}'s {best} is nearest 16 under it: a chip "
                                      f"from every player but the farmer ({len(payers)}).",
                                      NEAREST))
        rulings.extend(self._next_deal(taker))
        return rulings

    def _next_deal(self, taker: str | None) -> list[Ruling]:
        self.coups += 1
        self.cards = {}
        self.stood = []
        self.shoe = self.shoe.fresh()
        if self.coups >= self.rules.deals:
            return self._close()
        if taker is None:
            return []
        self.farm_made = False
        if self.rules.new_farm == "auction":
            self.farmer = None
            return []
        self.farmer = taker
        rulings = self._make_farm()
        rulings.append(Ruling("farmer", taker, 0, f"{taker} took the farm: he is the farmer "
                              "of the new one and deals.", FARM))
        return rulings

    def _close(self) -> list[Ruling]:
        rulings: list[Ruling] = []
        if self.farm and self.farmer is not None:
            rulings.append(Ruling("farm-kept", self.farmer, self.farm,
                                  f"No one took the farm: its {self.farm} stays with its "
                                  f"owner, {self.farmer}.", SIXTEEN))
            self.net[self.farmer] += self.farm
            self.farm = 0
        deals = self.rules.deals
        rulings.append(self.end(SIXTEEN, f"{deals} deals are over" if deals > 1
                                else "The deal is over"))
        return rulings

    # -- what the table may report next ------------------------------------------------------

    def legal_events(self) -> list[Event]:
        phase = self.phase
        if phase == "over":
            return []
        if phase == "auction":
            low = self.high_bid[1] if self.high_bid else 0
            events: list[Event] = [BidEvent(player, low + stake) for player in self.players
                                   for stake in SAMPLE_STAKES]
            if self.high_bid is not None:
                events.append(SoldEvent())
            return events
        player = self.to_act
        assert player is not None
        events = [CardEvent(player, card, False) for card in sorted(
            self.shoe.remaining(), key=lambda c: (c.suit, c.order))]
        if phase == "draw" and (len(self.cards[player]) > 1 or not self.shoe.left):
            events.append(StandEvent(player))
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        phase = self.phase
        if phase == "over":
            return ()
        if phase == "auction":
            return (Awaiting("bid", "player", None, "bids for the farm, then sold"),)
        player = self.to_act
        if phase == "deal":
            return (Awaiting("card", "dealer", player, f"{self.farmer} deals {player} a card"),)
        return (Awaiting("card", "dealer", player, f"a card {player} draws"),
                Awaiting("stand", "player", player, f"{player} draws or stands"))

    def hands(self) -> dict[str, list[str]]:
        return {player: [card.code for card in self.cards.get(player, [])]
                for player in self.order}

    def bet_list(self) -> list[JSON]:
        if self.high_bid is None:
            return []
        return [{"player": self.high_bid[0], "on": "farm", "amount": self.high_bid[1]}]

    def extra(self) -> JSON:
        return {"farm": self.farm, "phase": self.phase, "to_act": self.to_act,
                "deals": self.coups,
                "points": {p: points(self.cards.get(p, [])) for p in self.order}}


GAMES = (BankGame("farmer", "Farmer", FarmerRules(), FarmerState,
                  (PACK, FARM, DRAW, SIXTEEN, OVERDRAWN, NEAREST)),)
