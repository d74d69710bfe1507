"""Baccara and Chemin de Fer (Hoyle's Games 1940): the hand nearest 9 against the banker.

Baccara: the first player holds the bank (bought at auction, outside the engine) and
puts up `bank`, the most it can lose; the other players sit alternately on his right and
his left (the second player on the right, the third on the left, ...). Each coup the
banker deals two cards to the player holding the right hand, the left hand and himself;
8 or 9 is a natural and is shown at once; otherwise the banker offers a card (or not),
each side takes or refuses one, and the banker draws or stands. The hand nearest 9 wins;
ties stand off. Chemin de Fer is the variety with six packs, one side (the player on the
banker's right) and a bank that passes to the left as soon as the banker loses a coup.

Events (docs/cards/baccara.md): `{"type": "bet", "player": "Cy", "on": "right",
"amount": 10}` (on right, left, cheval, banco-right or banco-left; at Chemin de Fer right or
banco) before the deal; `{"type": "bet", "spectator": "Dora", "on": "right", "amount": 10}`
a spectator's bet (not banco), paid last when the bank is short; `{"type": "card", "to":
"right", "card": "9H", "up": false}` (to right, left or banker, dealt right, left, banker,
twice); `{"type": "offer", "player": "Ann"}`, `{"type": "draw", ...}`, `{"type": "stand",
...}`; `{"type": "pass", "player": "Ann"}` (Chemin de Fer: the bank passed after a tie);
`{"type": "shuffle"}`. The rules, the count and the laws are `engine/cards/baccara_rules.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards.baccara_rules import BACCARA_LAWS, CHEMIN_LAWS, BaccaraRules, point
from engine.cards.bank import (
    SAMPLE_STAKES,
    ActEvent,
    BankGame,
    BankState,
    BetEvent,
    DrawEvent,
    ShuffleEvent,
    Stake,
    StandEvent,
    parse_amount,
)
from engine.cards.core import FULL_PACK, CardEvent, ShoeCount, codes
from engine.core import JSON, NAME_LENGTH, Awaiting, Event, LawRef, Ruling
from engine.errors import IllegalEventError

BANKER = "banker"
#: The spectator `legal_events` offers bets for; a real table names any spectator.
SAMPLE_SPECTATOR = "Spectator"


@dataclass(frozen=True, slots=True)
class SpectatorBetEvent(BetEvent):
    """A bet by a spectator, who holds no seat: "any player or spectator can bet" (lines
    1440-1441). `player` is the spectator's name; the event's JSON names him `spectator`."""

    def to_json(self) -> JSON:
        return {"type": self.type, "spectator": self.player, "on": self.on,
                "amount": self.amount}


@dataclass(slots=True)
class SpectatorStake(Stake):
    """A spectator's money down; the bets list marks it `"spectator": true`."""

    def to_json(self) -> JSON:
        return {"player": self.player, "on": self.on, "amount": self.amount, "spectator": True}


@dataclass(frozen=True, slots=True)
class PassEvent(ActEvent):
    """Chemin de Fer: after a tie in which he gave no card, the banker passes the bank."""

    type: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class OfferEvent(ActEvent):
    """The banker offers a card to the sides (else he decides for himself at once)."""

    type: ClassVar[str] = "offer"


class BaccaraState(BankState):
    """A session of Baccara or Chemin de Fer: the bank, the sides' holders, each coup."""

    rules: BaccaraRules
    ACTS: ClassVar[Mapping[str, type[ActEvent]]] = {
        "offer": OfferEvent, "draw": DrawEvent, "stand": StandEvent, "pass": PassEvent}
    SHUFFLES = True

    def new_shoe(self) -> ShoeCount:
        return ShoeCount(6 if self.rules.chemin else 3)

    def start(self) -> None:
        self.laws = self.rules.laws
        self.seat = 0
        self.capital = self.rules.bank
        self.holders = dict.fromkeys(self.rules.sides, 0)
        self.banco_run: tuple[str, int] | None = None
        self.may_pass = False
        #: Each spectator's net winnings: they are on no seat of the sheet.
        self.spectators: dict[str, int] = {}
        self.new_coup()

    def new_coup(self) -> None:
        self.cards: dict[str, list[CardEvent]] = {hand: [] for hand in (*self.live, BANKER)}
        self.phase = "bets"
        self.results: dict[str, int] = {}
        self.asked: list[str] = []
        self.drew: list[str] = []
        self.drawing: str | None = None

    # -- the table ---------------------------------------------------------------------------

    @property
    def banker(self) -> str:
        return self.players[self.seat]

    def seats(self, side: str) -> list[str]:
        """A side's players, from the banker outward (Chemin de Fer: from his right)."""
        count = len(self.players)
        if self.rules.chemin:
            return [self.players[(self.seat - i) % count] for i in range(1, count)]
        others = self.players[1:]
        return others[0::2] if side == "right" else others[1::2]

    @property
    def live(self) -> list[str]:
        """The sides that have a player to hold the hand."""
        return [side for side in self.rules.sides if self.seats(side)]

    def holder(self, side: str) -> str:
        seats = self.seats(side)
        return seats[self.holders[side] % len(seats)]

    def spots(self) -> Sequence[str]:
        return self.rules.bet_names

    def spectator_spots(self) -> list[str]:
        """What a spectator may bet on: any side or a cheval, but not banco, which only a
        player may propose (line 1517)."""
        return [on for on in self.rules.bet_names if not on.startswith("banco")]

    def parse_bet(self, data: Mapping[str, Any]) -> Event:
        """A player's bet, or a spectator's where the bet names a `spectator`."""
        if "spectator" not in data:
            return super().parse_bet(data)
        if "player" in data:
            raise IllegalEventError("bet: a bet names its player or its spectator, not both")
        name = data["spectator"]
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_LENGTH:
            raise IllegalEventError(f"bet: a spectator is named by 1-{NAME_LENGTH} "
                                    f"characters, got {name!r}")
        on = data.get("on")
        spots = self.spectator_spots()
        if on not in spots:
            raise IllegalEventError(f"bet: a spectator bets on {', '.join(spots)} (only a "
                                    f"player may propose banco); not on {on!r}")
        return SpectatorBetEvent(name, str(on), parse_amount(data))

    def card_hands(self) -> Sequence[str]:
        return (*self.rules.sides, BANKER)

    def hands(self) -> dict[str, list[str]]:
        return {hand: codes(dealt.card for dealt in cards) for hand, cards in self.cards.items()}

    def points(self, hand: str) -> int:
        return point(dealt.card for dealt in self.cards[hand])

    def on_table(self) -> list[CardEvent]:
        return [dealt for cards in self.cards.values() for dealt in cards]

    @property
    def deal_order(self) -> list[str]:
        return [*self.live, BANKER] * 2

    def actor(self) -> str | None:
        """Who acts next when it is a player's or the banker's decision."""
        if self.drawing is not None:
            return None
        if self.phase == "draw":
            return self.holder(self.asked[0])
        if self.phase in ("offer", "banker"):
            return self.banker
        return None

    def due(self) -> str | None:
        """The hand the next card goes to, if a card is what comes next."""
        if self.drawing is not None:
            return self.drawing
        dealt = len(self.on_table())
        if self.phase in ("bets", "deal") and dealt < len(self.deal_order):
            return self.deal_order[dealt]
        return None

    def where(self) -> str:
        if self.over:
            return "the game is over"
        coup = f"coup {self.coups + 1}, {self.banker} banker"
        due, actor = self.due(), self.actor()
        if self.phase == "bets":
            return f"{coup}: bets, then the deal"
        if due is not None:
            return f"{coup}: the next card goes to {due}"
        choice = "offer, draw or stand" if self.phase == "offer" else "draw or stand"
        return f"{coup}: {actor} to {choice}"

    # -- checking ---------------------------------------------------------------------------

    def verify_play(self, event: Event) -> None:
        if isinstance(event, CardEvent):
            due = self.due()
            if due is None:
                raise self.refuse(event, "no card is due now")
            if event.to != due:
                raise self.refuse(event, f"the {event.to} hand is closed; the next card "
                                  f"goes to {due}")
            return
        if isinstance(event, ShuffleEvent):
            if self.on_table() and self.shoe.left:
                raise self.refuse(event, "the stock is shuffled between coups")
            return
        if isinstance(event, BetEvent):
            self.verify_bet(event)
            return
        if isinstance(event, PassEvent):
            if not (self.may_pass and self.phase == "bets" and not self.on_table()
                    and event.player == self.banker and not self.stakes):
                raise self.refuse(event, "the banker may pass the bank only after a tie in "
                                  "which he gave no card, before the next bets")
            return
        assert isinstance(event, ActEvent)
        actor = self.actor()
        if actor is None or event.player != actor:
            raise self.refuse(event, f"it is not {event.player}'s turn to act")
        if isinstance(event, OfferEvent) and self.phase != "offer":
            raise self.refuse(event, "the banker offers a card only before anyone draws")

    def verify_bet(self, event: BetEvent) -> None:
        if self.phase != "bets" or self.on_table():
            raise self.refuse(event, "bets are made before the deal")
        if isinstance(event, SpectatorBetEvent) and event.player in self.players:
            raise self.refuse(event, f"{event.player} is seated; his bet names him as player")
        if event.player == self.banker:
            raise self.refuse(event, "the banker takes the bets, he does not place them")
        side = event.on.removeprefix("banco-") if event.on != "banco" else "right"
        live = self.live
        if event.on == "cheval":
            if len(live) < 2:
                raise self.refuse(event, "a cheval needs a player on each side")
        elif side not in live:
            raise self.refuse(event, f"no one holds the {side} hand")
        if any(stake.on.startswith("banco") for stake in self.stakes):
            raise self.refuse(event, "banco takes precedence of all other bets this coup")
        if event.on.startswith("banco"):
            if event.amount != self.capital:
                raise self.refuse(event, f"banco bets the whole bank, {self.capital}")
            if self.banco_run == (event.player, 2):
                raise self.refuse(event, f"{event.player} may not go banco more than twice "
                                  "running")

    # -- playing ----------------------------------------------------------------------------

    def play(self, event: Event) -> list[Ruling]:
        laws = self.laws
        if isinstance(event, ShuffleEvent):
            return [Ruling("shuffle", None, None, f"The {self.shoe.packs} packs are shuffled "
                           "together.", laws.bank)]
        if isinstance(event, BetEvent):
            return self.place(event)
        if isinstance(event, PassEvent):
            self.may_pass = False
            return [self.pass_bank("after the tie, the banker passes the bank")]
        if isinstance(event, CardEvent):
            self.cards[event.to].append(event)
            self.may_pass = False
            if self.drawing is not None:
                self.drawing = None
                if event.to == BANKER:
                    return self.resolve()
                return self.ask_next()
            self.phase = "deal"
            if len(self.on_table()) == len(self.deal_order):
                return self.naturals()
            return []
        return self.act(event)

    def place(self, event: BetEvent) -> list[Ruling]:
        rulings = []
        law = self.laws.banco if event.on.startswith("banco") else self.laws.bets
        if event.on.startswith("banco") and self.stakes:
            rulings.append(Ruling("withdrawn", None, None,
                                  f"Banco takes precedence: the other bets "
                                  f"({sum(s.amount for s in self.stakes)}) are withdrawn.",
                                  self.laws.banco))
            self.stakes = []
        spectator = isinstance(event, SpectatorBetEvent)
        kind = SpectatorStake if spectator else Stake
        self.stakes.append(kind(event.player, event.on, event.amount))
        where = {"cheval": "a cheval, on both sides", "banco": "banco, against the whole bank"}
        what = where.get(event.on) or (f"banco on the {event.on[6:]}, against the whole bank"
                                       if event.on.startswith("banco") else
                                       f"that the {event.on} beats the banker")
        who = f"{event.player}, a spectator," if spectator else event.player
        rulings.append(Ruling("bet", event.player, event.amount,
                              f"{who} bets {event.amount} {what}.", law))
        return rulings

    def naturals(self) -> list[Ruling]:
        laws = self.laws
        bank = self.points(BANKER)
        shown = [side for side in self.live if self.points(side) >= 8]
        rulings = [Ruling("natural", self.holder(side), self.points(side),
                          f"{self.holder(side)} shows a natural {self.points(side)} for the "
                          f"{side}.", laws.deal) for side in shown]
        if bank >= 8:
            rulings.append(Ruling("natural", self.banker, bank,
                                  f"The banker has a natural {bank}.", laws.natural))
            for side in self.live:
                self.results[side] = self.compare(side)
            return rulings + self.resolve()
        for side in shown:
            self.results[side] = 1
        self.asked = [side for side in self.live if side not in shown]
        if not self.asked:
            return rulings + self.resolve()
        self.phase = "offer"
        return rulings

    def compare(self, side: str) -> int:
        """+1 if the side beats the banker, -1 if he beats it, 0 for a stand-off."""
        mine, bank = self.points(side), self.points(BANKER)
        literal = self.rules.natural_nine == "pay" and mine >= 8 and bank >= 8
        if literal and mine != bank and len(self.cards[side]) == 2:
            return 1
        return (mine > bank) - (mine < bank)

    def act(self, event: Event) -> list[Ruling]:
        laws = self.laws
        who = getattr(event, "player", None)
        if self.phase == "offer":
            if isinstance(event, OfferEvent):
                self.phase = "draw"
                return [Ruling("offer", who, None, f"{who} offers a card, to the "
                               f"{self.asked[0]} first.", laws.draw)]
            if isinstance(event, DrawEvent):
                self.drawing = BANKER
                return [Ruling("draw", who, None, f"{who} offers no card and takes one "
                               "himself.", laws.draw)]
            return [Ruling("stand", who, None, f"{who} offers no card and stands.",
                           laws.draw), *self.resolve()]
        if self.phase == "draw":
            side = self.asked.pop(0)
            if isinstance(event, DrawEvent):
                self.drew.append(side)
                self.drawing = side
                return [Ruling("draw", who, None, f"{who} takes a card for the {side}.",
                               laws.draw)]
            return [Ruling("stand", who, None, f"{who} refuses the card for the {side}.",
                           laws.draw), *self.ask_next()]
        if isinstance(event, DrawEvent):
            self.drawing = BANKER
            return [Ruling("draw", who, None, f"{who} takes a card.", laws.draw)]
        return [Ruling("stand", who, None, f"{who} stands.", laws.draw), *self.resolve()]

    def ask_next(self) -> list[Ruling]:
        """After a side's decision (and card): the next side, or the banker's turn."""
        if self.asked:
            return []
        self.phase = "banker"
        if self.drew:
            return []
        self.drawing = BANKER
        return [Ruling("must-draw", self.banker, None, "Every side refused the card: the "
                       "banker must take it himself.", self.laws.draw)]

    # -- settling ---------------------------------------------------------------------------

    def resolve(self) -> list[Ruling]:
        laws = self.laws
        bank = self.points(BANKER)
        rulings = []
        for side in self.live:
            if side not in self.results:
                self.results[side] = self.compare(side)
            mine, verdict = self.points(side), self.results[side]
            word = {1: f"the {side} wins", -1: "the banker wins", 0: "a stand-off"}[verdict]
            rulings.append(Ruling("coup", self.holder(side), mine,
                                  f"{side.capitalize()} {mine} against the banker's {bank}: "
                                  f"{word}.", laws.result))
        rulings.extend(self.settle())
        rulings.extend(self.rotate())
        self.coups += 1
        self.new_coup()
        if self.coups >= self.rules.deals:
            rulings.append(self.end(self.laws.rotation, f"{self.coups} deals played"))
        return rulings

    def gain(self, stake: Stake) -> int:
        """The stake's result for its player: +amount won, -amount lost, 0 a stand-off."""
        if stake.on == "cheval":
            right, left = self.results["right"], self.results["left"]
            verdict = right if right == left else 0
        else:
            side = "right" if stake.on == "banco" else stake.on.removeprefix("banco-")
            verdict = self.results[side]
        return verdict * stake.amount

    def pay_order(self) -> list[str]:
        """Who is paid first when the bank is short: the hands, then the players beyond
        (the spectators come after them all, lines 1511-1515)."""
        rings = []
        for side in self.live:
            seats = self.seats(side)
            start = self.holders[side] % len(seats) if not self.rules.chemin else 0
            rings.append(seats[start:] + seats[:start])
        return [ring[i] for i in range(max(map(len, rings), default=0))
                for ring in rings if i < len(ring)]

    def settle_order(self) -> list[Stake]:
        """The stakes in the order the bank settles them: the players' as `pay_order`, then
        the spectators' in the order they were placed, "and the spectators last, as far as
        the money will go" (lines 1511-1515)."""
        order = self.pay_order()
        return sorted(self.stakes, key=lambda stake: (
            (1, 0) if isinstance(stake, SpectatorStake) else (0, order.index(stake.player))))

    def credit(self, stake: Stake, gain: int) -> None:
        """Move `gain` from the banker to the stake's bettor (negative: to the banker)."""
        if isinstance(stake, SpectatorStake):
            self.spectators[stake.player] = self.spectators.get(stake.player, 0) + gain
            self.net[self.banker] -= gain
        else:
            self.pay(stake.player, gain)

    def settle(self) -> list[Ruling]:
        laws = self.laws
        rulings = []
        stakes = self.settle_order()
        for stake in stakes:
            gain = self.gain(stake)
            if gain < 0:
                self.credit(stake, gain)
                self.capital -= gain
                rulings.append(Ruling("bet-lost", stake.player, gain,
                                      f"{self.banker} takes {stake.player}'s {stake.amount} "
                                      f"on {stake.on}.", self.bet_law(stake)))
            elif gain == 0:
                rulings.append(Ruling("stand-off", stake.player, 0,
                                      f"{stake.player}'s {stake.amount} on {stake.on} stands "
                                      "off.", self.bet_law(stake)))
        for stake in stakes:
            gain = self.gain(stake)
            if gain <= 0:
                continue
            paid = min(gain, self.capital)
            self.capital -= paid
            self.credit(stake, paid)
            if paid == gain:
                rulings.append(Ruling("bet-won", stake.player, paid,
                                      f"{self.banker} pays {stake.player}'s {stake.amount} on "
                                      f"{stake.on}, {paid}.", self.bet_law(stake)))
            else:
                last = ", a spectator, paid last," if isinstance(stake, SpectatorStake) else ""
                rulings.append(Ruling("bank-short", stake.player, paid,
                                      f"The bank is short: {stake.player}{last} wins {gain} on "
                                      f"{stake.on} but is paid only {paid}.", laws.short))
        banco = next((s for s in self.stakes if s.on.startswith("banco")), None)
        if banco is None:
            self.banco_run = None
        else:
            run = self.banco_run[1] if self.banco_run and self.banco_run[0] == banco.player else 0
            self.banco_run = (banco.player, run + 1)
        self.stakes = []
        if self.capital <= 0:
            self.capital = self.rules.bank
            rulings.append(Ruling("bank-broken", self.banker, self.capital,
                                  f"The bank is broken: {self.banker} puts it up again, "
                                  f"{self.capital}.", laws.banco))
        return rulings

    def bet_law(self, stake: Stake) -> LawRef:
        return self.laws.banco if stake.on.startswith("banco") else self.laws.result

    def rotate(self) -> list[Ruling]:
        """Who holds the hands (Baccara) or the bank (Chemin de Fer) in the next coup."""
        if self.rules.chemin:
            if "right" not in self.live:
                return []
            verdict = self.results["right"]
            if verdict > 0:
                return [self.pass_bank("the banker has lost the coup")]
            self.may_pass = verdict == 0 and not self.drew
            if self.may_pass:
                return [Ruling("tie", self.banker, None, f"A tie and no card given: "
                               f"{self.banker} may pass the bank.", self.laws.rotation)]
            return []
        rulings = []
        for side in self.live:
            if self.results[side] < 0 and len(self.seats(side)) > 1:
                lost = self.holder(side)
                self.holders[side] += 1
                rulings.append(Ruling("hand-passes", self.holder(side), None,
                                      f"{lost} lost the coup: the {side} hand goes to "
                                      f"{self.holder(side)}.", self.laws.rotation))
        return rulings

    def pass_bank(self, why: str) -> Ruling:
        old = self.banker
        self.seat = (self.seat + 1) % len(self.players)
        self.capital = self.rules.bank
        self.banco_run = None
        return Ruling("bank-passes", self.banker, self.capital,
                      f"{why}: the bank passes from {old} to {self.banker}, who puts up "
                      f"{self.capital}.", self.laws.rotation)

    # -- what the table may report --------------------------------------------------------

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        due = self.due()
        events: list[Event] = []
        if due is not None:
            events.extend(CardEvent(due, card) for card in FULL_PACK
                          if self.shoe.seen[card] < self.shoe.packs)
        if (self.phase == "bets" and not self.on_table()) or not self.shoe.left:
            events.append(ShuffleEvent())
        if self.phase == "bets" and not self.on_table():
            for name in self.players:
                for on in self.rules.bet_names:
                    amounts = (self.capital,) if on.startswith("banco") else SAMPLE_STAKES
                    events.extend(BetEvent(name, on, amount) for amount in amounts)
            events.extend(SpectatorBetEvent(SAMPLE_SPECTATOR, on, amount)
                          for on in self.spectator_spots() for amount in SAMPLE_STAKES)
            if self.may_pass:
                events.append(PassEvent(self.banker))
        actor = self.actor()
        if actor is not None:
            events.extend(act(actor) for act in (OfferEvent, DrawEvent, StandEvent))
        return [event for event in events if self.can_apply(event)]

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        due, actor = self.due(), self.actor()
        found = []
        if self.phase == "bets" and not self.on_table() and len(self.players) > 1:
            found.append(Awaiting("bet", "player", None, "bets before the deal"))
        if due is not None:
            found.append(Awaiting("card", "dealer", due, f"the next card, to the {due}"))
        if actor is not None:
            choice = "offer a card, or draw or stand" if self.phase == "offer" else \
                "draw or stand"
            found.append(Awaiting("act", "player", actor, f"{actor} to {choice}"))
        return tuple(found)

    def extra(self) -> JSON:
        return {"deals": self.coups, "bank": self.capital,
                "points": {hand: self.points(hand) for hand in self.cards},
                "holders": {side: self.holder(side) for side in self.live},
                "to_act": self.actor(), "spectators": dict(self.spectators)}


GAMES = (
    BankGame("baccara", "Baccara", BaccaraRules(), BaccaraState, BACCARA_LAWS.all(),
                 aliases=("baccarat",), most=11),
    BankGame("chemin-de-fer", "Chemin de Fer", BaccaraRules(chemin=True), BaccaraState,
                 CHEMIN_LAWS.all(), aliases=("chemmy",)),
)
