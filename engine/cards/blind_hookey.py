"""Blind Hookey, or Dutch Bank, or Little Packets, as Hoyle's Games (1940) gives it.

The first player holds the bank (the book has it sold or drawn for, lines 3391-3394). The
pack, ace high, is cut into packets face down (lines 3396-3424); the players bet on any
packets but the dealer's; then every packet is turned to show its bottom card. The
banker's card higher, or a tie, wins him the bets on a packet; lower, he pays them
(lines 3426-3434). His whole advantage is the ties.

The book's four ways of cutting differ in how the dealer's packet is chosen; the engine
numbers the packets 1 to `packets` in the order they were cut, and the dealer's is the
last packet left without a bet (the first and fourth ways say so, lines 3396-3400 and
3412-3421; in the second and third the dealer's packet is the last cut, which no one may
bet on).

Events (docs/cards/blind_hookey.md): `{"type": "bet", "player": "Bob", "on": "1",
"amount": 5}`, then `{"type": "card", "to": "1", "card": "9H"}`, one bottom card a packet.
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
from engine.cards.core import Card, CardEvent, ShoeCount
from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, whole

BANK = hoyle_law(3386, 3394, "Blind Hookey: a full pack, ace high; a banker against any "
                             "number")
THREE_PACKETS = hoyle_law(3396, 3400, "Blind Hookey: three packets; bets on any two, the "
                                      "third is the banker's")
LAST_UNBET = hoyle_law(3412, 3424, "Blind Hookey: the last packet left without a bet is the "
                                   "dealer's")
SETTLE = hoyle_law(3426, 3434, "Blind Hookey: the bottom cards decide; the banker wins "
                               "ties and higher, pays lower")
MAX_PACKETS = 13


def rank_value(card: Card) -> int:
    """Blind hookey's order: the ace high, then king down to deuce."""
    return 14 if card.rank == "A" else card.order


@dataclass(frozen=True, slots=True)
class HookeyRules(HouseRules):
    """Blind Hookey's named house rules.

    `packets`: how many packets the pack is cut into (three in the book's first way; one
    more than the players in its fourth). `deals`: the session's length (the book sets none).
    """

    packets: int = 3
    deals: int = 3

    def known_options(self) -> tuple[Option, ...]:
        return whole("packets", 2, MAX_PACKETS), whole("deals", 1, MAX_PACK_DEALS)


def banker_chance(left: Mapping[Card, int]) -> tuple[Fraction, Fraction]:
    """Exact chances, two cards from what is left, that the banker ties and that he is higher."""
    cards = [card for card, n in left.items() for _ in range(n)]
    total = len(cards) * (len(cards) - 1)
    values = [rank_value(card) for card in cards]
    ties = higher = 0
    for i, mine in enumerate(values):
        for j, theirs in enumerate(values):
            if i != j:
                ties += mine == theirs
                higher += mine > theirs
    return Fraction(ties, total), Fraction(higher, total)


class HookeyState(BankState):
    """A blind hookey bank: deals of cut packets until `deals` are done."""

    rules: HookeyRules

    def new_shoe(self) -> ShoeCount:
        return ShoeCount()

    def start(self) -> None:
        self.packets: dict[str, Card | None] = self._fresh()
        self.dealer_packet: str | None = None
        self.last: JSON | None = None

    def _fresh(self) -> dict[str, Card | None]:
        return {str(n): None for n in range(1, self.rules.packets + 1)}

    @property
    def banker(self) -> str:
        return self.players[0]

    def turning(self) -> bool:
        return any(card is not None for card in self.packets.values())

    def unbet(self) -> list[str]:
        bet_on = {stake.on for stake in self.stakes}
        return [name for name in self.packets if name not in bet_on]

    def where(self) -> str:
        if self.over:
            return "the game is over"
        if self.turning():
            return f"deal {self.coups + 1}: the packets are being turned"
        return f"deal {self.coups + 1}: bets on the packets"

    def card_hands(self) -> Sequence[str]:
        return list(self.packets)

    def spots(self) -> Sequence[str]:
        return list(self.packets)

    def verify_play(self, event: Event) -> None:
        if isinstance(event, CardEvent):
            if self.packets[event.to] is not None:
                raise IllegalEventError(f"card {event.card} to packet {event.to}: its bottom "
                                        f"card is turned already ({self.packets[event.to]})")
            return
        if not isinstance(event, BetEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if event.player == self.banker:
            raise IllegalEventError(f"bet by {event.player}: the banker takes the bets, he "
                                    "does not place them")
        if self.turning():
            raise IllegalEventError(f"bet by {event.player}: the packets are being turned; "
                                    "bets are made before")
        if self.unbet() == [event.on]:
            raise IllegalEventError(f"bet on packet {event.on}: it is the only packet left "
                                    "without a bet, so it is the dealer's")

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, BetEvent):
            self.stakes.append(Stake(event.player, event.on, event.amount))
            return [self._bet_ruling(event)]
        assert isinstance(event, CardEvent)
        self.packets[event.to] = event.card
        if self.dealer_packet is None:
            self.dealer_packet = self.unbet()[-1]
        rulings = [Ruling("turned", None, None, f"Packet {event.to} shows {event.card} at "
                          f"the bottom{self._whose(event.to)}.", SETTLE)]
        if all(card is not None for card in self.packets.values()):
            rulings.extend(self._settle())
        return rulings

    def _whose(self, packet: str) -> str:
        return ", the dealer's packet" if packet == self.dealer_packet else ""

    def _bet_ruling(self, bet: BetEvent) -> Ruling:
        tie, higher = banker_chance(self.shoe.remaining())
        wins, lower = tie + higher, 1 - tie - higher
        edge = wins - lower
        return Ruling("bet", bet.player, bet.amount,
                      f"{bet.player} bets {bet.amount} on packet {bet.on}. Exactly: a tie "
                      f"{tie}, the banker higher {higher}: he wins {wins} and pays {lower}; "
                      f"his edge, the ties, is {edge} of the stake ({float(edge):.2%}).",
                      SETTLE)

    def _settle(self) -> list[Ruling]:
        dealer = self.dealer_packet
        assert dealer is not None
        mine = self.packets[dealer]
        assert mine is not None
        law = THREE_PACKETS if self.rules.packets == 3 else LAST_UNBET
        rulings = [Ruling("dealer-packet", self.banker, None,
                          f"Packet {dealer}, left without a bet, is {self.banker}'s: his "
                          f"card is {mine}.", law)]
        lost: list[Ruling] = []
        won: list[Ruling] = []
        for stake in self.stakes:
            theirs = self.packets[stake.on]
            assert theirs is not None
            if rank_value(mine) >= rank_value(theirs):
                why = "a tie goes to the banker" if rank_value(mine) == rank_value(theirs) \
                    else "the banker's card is higher"
                self.pay(stake.player, -stake.amount)
                lost.append(Ruling("bet-lost", stake.player, -stake.amount,
                                   f"{mine} against {theirs} on packet {stake.on}: {why}; "
                                   f"{self.banker} wins {stake.player}'s {stake.amount}.",
                                   SETTLE))
            else:
                self.pay(stake.player, stake.amount)
                won.append(Ruling("bet-won", stake.player, stake.amount,
                                  f"{mine} against {theirs} on packet {stake.on}: the "
                                  f"banker's card is lower; he pays {stake.player} "
                                  f"{stake.amount}.", SETTLE))
        rulings.extend(lost)
        rulings.extend(won)
        self.coups += 1
        if self.coups >= self.rules.deals:
            deals = self.rules.deals
            rulings.append(self.end(SETTLE, f"{deals} deals are over" if deals > 1
                                    else "The deal is over"))
            return rulings
        self.last = self.hands()
        self.packets = self._fresh()
        self.stakes = []
        self.dealer_packet = None
        self.shoe = self.shoe.fresh()
        return rulings

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        events: list[Event] = [CardEvent(name, card) for name, turned in self.packets.items()
                               if turned is None for card in sorted(
                                   self.shoe.remaining(), key=lambda c: (c.suit, c.order))]
        if not self.turning():
            unbet = self.unbet()
            events.extend(BetEvent(player, name, amount) for player in self.players[1:]
                          for name in self.packets if unbet != [name]
                          for amount in SAMPLE_STAKES)
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        unturned = [name for name, card in self.packets.items() if card is None]
        found = [Awaiting("card", "dealer", unturned[0] if len(unturned) == 1 else None,
                          "the bottom card of each packet")]
        if not self.turning() and len(self.players) > 1:
            found.append(Awaiting("bet", "player", None, "bets on the packets, not the "
                                  "dealer's"))
        return tuple(found)

    def hands(self) -> dict[str, list[str]]:
        return {name: [card.code] if card else [] for name, card in self.packets.items()}

    def extra(self) -> JSON:
        return {"deals": self.coups, "dealer_packet": self.dealer_packet,
                "last_deal": self.last}


GAMES = (BankGame("blind-hookey", "Blind Hookey, or Dutch Bank, or Little Packets",
                  HookeyRules(), HookeyState, (BANK, THREE_PACKETS, LAST_UNBET, SETTLE),
                  aliases=("dutch-bank", "little-packets")),)
