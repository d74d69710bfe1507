"""Lansquenet as Hoyle's Games (1940) gives it: the banker's card against the players' cards.

The first player holds the first bank (the book has it cut for); it passes to the left
(lines 12487-12490). Each coup: the two top cards are the hand cards, which take no bets;
then a card for the banker and one for the players, a card matching a hand card going on
it (lines 12492-12498). The banker covers every bet on the players' cards (12504-12505) and
turns cards one at a time: a card matching a players' card wins him the bets on it (the
pair is set aside); a card matching his own loses him every stake still on the table and
ends the coup; any other card is a new players' card, open to bets (12507-12518). If both
hand cards are matched before the banker's card appears he may gather the cards and deal
again (12519-12524).

The book says the hand cards decide "whether the deal shall pass or not" (12492-12494) and
never says how; the engine takes the catalogue's usual rule (option `deal_passes`).

Events (docs/cards/lansquenet.md): `{"type": "card", "to": "players", "card": "6H"}` (`to`
is where the card goes: "hand", "banker" or "players"), `{"type": "bet", "player": "Bob",
"on": "6", "amount": 5}` (on an open players' card), `{"type": "redeal"}`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from engine.cards.bank import (
    SAMPLE_STAKES,
    BankGame,
    BankState,
    BetEvent,
    Stake,
)
from engine.cards.core import Card, CardEvent, ShoeCount
from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, whole

PACK = hoyle_law(12487, 12490, "Lansquenet: one pack or two; the deal passes to the left")
HAND_CARDS = hoyle_law(12492, 12498, "Lansquenet: two hand cards, no bets on them; a card for "
                                     "the banker and one for the players")
COVERED = hoyle_law(12504, 12505, "Lansquenet: the banker covers every bet on the players' "
                                  "card at once")
TURNING = hoyle_law(12507, 12514, "Lansquenet: the players' card matched, the banker takes "
                                  "its bets; his own matched, the players win")
PAIRS = hoyle_law(12516, 12521, "Lansquenet: a matched pair is set aside; a card matching a "
                                "hand card goes on it")
REDEAL = hoyle_law(12519, 12524, "Lansquenet: both hand cards matched before the banker's "
                                 "card: he may deal again")
SPOTS = ("hand", "banker", "players")
MAX_ROUNDS = 20


@dataclass(frozen=True, slots=True)
class LansquenetRules(HouseRules):
    """Lansquenet's named house rules.

    `packs`: one pack, or "sometimes two packs shuffled together" (line 12488).
    `deal_passes`: "banker-card" (default, the catalogue's usual rule): the deal passes to
    the left when the banker's own card is matched, which ends every coup; "never": the
    first banker keeps the bank for the session.
    `rounds`: the book sets no end; the session lasts this many coups a player.
    """

    packs: int = 1
    deal_passes: str = "banker-card"
    rounds: int = 1

    def known_options(self) -> tuple[Option, ...]:
        return (whole("packs", 1, 2), either("deal_passes", "banker-card", "never"),
                whole("rounds", 1, MAX_ROUNDS))


@dataclass(frozen=True, slots=True)
class RedealEvent(Event):
    """The banker gathers the cards and deals again (both hand cards matched first)."""

    type: ClassVar[str] = "redeal"

    def to_json(self) -> JSON:
        return {"type": self.type}


@dataclass(slots=True)
class Coup:
    """One coup's cards: the hand cards, the banker's card, the players' cards, the pairs."""

    hand: list[Card] = field(default_factory=list)
    matched: set[int] = field(default_factory=set)
    banker: Card | None = None
    singles: list[Card] = field(default_factory=list)
    pairs: list[Card] = field(default_factory=list)


class LansquenetState(BankState):
    """A session of lansquenet: coups until each player has held the bank `rounds` times."""

    rules: LansquenetRules
    OTHERS = ("redeal",)

    def new_shoe(self) -> ShoeCount:
        packs = self.rules.packs
        return ShoeCount(packs, name=f"{packs} pack{'s' if packs > 1 else ''}")

    def start(self) -> None:
        self.seat = 0
        self.coup = Coup()

    @property
    def banker(self) -> str:
        return self.players[self.seat]

    def spot_for(self, card: Card) -> str:
        """Where the next card goes by the rules: on the hand cards, the banker's, the players'."""
        coup = self.coup
        if len(coup.hand) < 2 or any(card.rank == h.rank for h in coup.hand):
            return "hand"
        if coup.banker is None or card.rank == coup.banker.rank:
            return "banker"
        return "players"

    def open_ranks(self) -> list[str]:
        return [card.rank for card in self.coup.singles]

    def may_redeal(self) -> bool:
        return self.coup.banker is None and len(self.coup.matched) == 2

    def where(self) -> str:
        if self.over:
            return "the game is over"
        coup = self.coup
        if len(coup.hand) < 2:
            return f"{self.banker} turns the hand cards"
        if coup.banker is None:
            return f"{self.banker} deals his own card"
        if not coup.singles and not coup.pairs:
            return f"{self.banker} deals the players' card"
        return f"{self.banker} turns cards; the players' cards open are " \
               f"{', '.join(self.open_ranks()) or 'none'}"

    # -- events ---------------------------------------------------------------------------

    def card_hands(self) -> Sequence[str]:
        return SPOTS

    def spots(self) -> Sequence[str]:
        return self.open_ranks()

    def parse_other(self, kind: str, data: Mapping[str, Any]) -> Event:
        return RedealEvent()

    def verify_play(self, event: Event) -> None:
        if isinstance(event, CardEvent):
            # A card the shoe cannot hold is refused before where it would go.
            self.shoe.check(event.card, f"card {event.card}")
            spot = self.spot_for(event.card)
            if event.to != spot:
                raise IllegalEventError(f"card {event.card} to {event.to}: it goes to the "
                                        f"{spot} card{'s' if spot != 'banker' else ''}; "
                                        f"{self.where()}")
            return
        if isinstance(event, RedealEvent):
            if not self.may_redeal():
                raise IllegalEventError("redeal: only when both hand cards are matched before "
                                        f"the banker's card appears; {self.where()}")
            return
        if not isinstance(event, BetEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if event.player == self.banker:
            raise IllegalEventError(f"bet by {event.player}: the banker covers the bets, he "
                                    "does not place them")
        if event.on not in self.open_ranks():
            raise IllegalEventError(f"bet on {event.on}: no players' card {event.on} is open")

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, BetEvent):
            self.stakes.append(Stake(event.player, event.on, event.amount))
            return [self._bet_ruling(event)]
        if isinstance(event, RedealEvent):
            self._new_coup()
            return [Ruling("redeal", self.banker, None, "Both hand cards were matched before "
                           f"the banker's card: {self.banker} gathers the cards and deals "
                           "again.", REDEAL)]
        assert isinstance(event, CardEvent)
        return self._card(event.card, event.to)

    def _bet_ruling(self, bet: BetEvent) -> Ruling:
        banker_card = self.coup.banker
        assert banker_card is not None
        left = self.shoe.ranks_left()
        theirs, his = left[bet.on], left[banker_card.rank]
        chance = Fraction(his, theirs + his)
        edge = 1 - 2 * chance
        return Ruling("bet", bet.player, bet.amount,
                      f"{bet.player} bets {bet.amount} on the players' {bet.on}; "
                      f"{self.banker} covers it. {his} {banker_card.rank}s and {theirs} "
                      f"{bet.on}s are left: the bet wins if a {banker_card.rank} comes first, "
                      f"exactly {chance}; the banker's edge {edge} of the stake.", COVERED)

    def _card(self, card: Card, to: str) -> list[Ruling]:
        coup = self.coup
        if to == "hand":
            return [self._hand_card(card)]
        if coup.banker is None:
            coup.banker = card
            return [Ruling("banker-card", self.banker, None,
                           f"{card} is {self.banker}'s card.", HAND_CARDS)]
        if to == "banker":
            return self._banker_loses(card)
        match = next((c for c in coup.singles if c.rank == card.rank), None)
        if match is None:
            coup.singles.append(card)
            first = "" if len(coup.singles) > 1 or coup.pairs else " first"
            return [Ruling("players-card", None, None,
                           f"{card} is a{first} players' card: bets may go on it.",
                           HAND_CARDS if first else TURNING)]
        coup.singles.remove(match)
        coup.pairs.extend((match, card))
        rulings = [Ruling("pair", self.banker, None, f"{card} matches the players' "
                          f"{match}: the pair is set aside by {self.banker}'s card.", PAIRS)]
        kept = []
        for stake in self.stakes:
            if stake.on != card.rank:
                kept.append(stake)
                continue
            self.pay(stake.player, -stake.amount)
            rulings.append(Ruling("bet-lost", stake.player, -stake.amount,
                                  f"{self.banker} takes {stake.player}'s {stake.amount} on "
                                  f"the {stake.on}.", TURNING))
        self.stakes = kept
        return rulings

    def _hand_card(self, card: Card) -> Ruling:
        coup = self.coup
        if len(coup.hand) < 2:
            coup.hand.append(card)
            return Ruling("hand-card", None, None, f"{card} is a hand card: no bets on it.",
                          HAND_CARDS)
        same = [i for i, h in enumerate(coup.hand) if h.rank == card.rank]
        unmatched = [i for i in same if i not in coup.matched]
        coup.matched.add((unmatched or same)[0])
        coup.hand.append(card)
        more = ""
        if self.may_redeal():
            more = f" Both hand cards are matched: {self.banker} may deal again."
        return Ruling("hand-card", None, None,
                      f"{card} matches a hand card and is placed on it.{more}",
                      REDEAL if more else PAIRS)

    def _banker_loses(self, card: Card) -> list[Ruling]:
        rulings = [Ruling("banker-loses", self.banker, None,
                          f"{card} matches {self.banker}'s own card: the players win all "
                          "they have staked.", TURNING)]
        for stake in self.stakes:
            self.pay(stake.player, stake.amount)
            rulings.append(Ruling("bet-won", stake.player, stake.amount,
                                  f"{self.banker} pays {stake.player}'s {stake.amount} on the "
                                  f"{stake.on}, even money.", TURNING))
        self.coups += 1
        if self.coups >= self.rules.rounds * len(self.players):
            if self.rules.deal_passes == "banker-card":
                times = "once" if self.rules.rounds == 1 else f"{self.rules.rounds} times"
                why = f"Every player has held the bank {times}"
            else:
                why = f"{self.banker} has dealt {self.coups} coups"
            rulings.append(self.end(PACK, why))
            return rulings
        if self.rules.deal_passes == "banker-card":
            self.seat = (self.seat + 1) % len(self.players)
            rulings.append(Ruling("bank-passes", self.banker, None,
                                  f"The banker's card is matched: the deal passes to "
                                  f"{self.banker}.", PACK))
        self._new_coup()
        return rulings

    def _new_coup(self) -> None:
        self.coup = Coup()
        self.stakes = []
        self.shoe = self.shoe.fresh()

    # -- what the table may report next ------------------------------------------------------

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        events: list[Event] = [
            CardEvent(self.spot_for(card), card) for card in sorted(
                self.shoe.remaining(), key=lambda c: (c.suit, c.order))]
        if self.may_redeal():
            events.append(RedealEvent())
        for player in self.players:
            if player != self.banker:
                events.extend(BetEvent(player, rank, amount) for rank in self.open_ranks()
                              for amount in SAMPLE_STAKES)
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        spots = {self.spot_for(card) for card in self.shoe.remaining()}
        found = [Awaiting("card", "dealer", spots.pop() if len(spots) == 1 else None,
                          self.where())]
        if self.open_ranks() and len(self.players) > 1:
            found.append(Awaiting("bet", "player", None, "bets on the open players' cards"))
        return tuple(found)

    def hands(self) -> dict[str, list[str]]:
        coup = self.coup
        banker = [coup.banker.code] if coup.banker else []
        return {"hand": [c.code for c in coup.hand], "banker": banker,
                "players": [c.code for c in coup.singles],
                "pairs": [c.code for c in coup.pairs]}

    def extra(self) -> JSON:
        return {"coups": self.coups, "may_redeal": self.may_redeal() and not self.over}


GAMES = (BankGame("lansquenet", "Lansquenet", LansquenetRules(), LansquenetState,
                  (PACK, HAND_CARDS, COVERED, TURNING, PAIRS, REDEAL)),)
