"""Rouge et Noir, or Trente et Quarante (Hoyle's Games 1940): two rows of cards past 30.

The dealer (the first player holds the bank) deals a row for black ("noir") until its
pips pass 30, then a row for red ("rouge"); the row nearer 31 wins, even money. "couleur"
wins when the first card of the winning row is of the winning colour, else "inverse".
Equal rows are "après", a stand-off; 31 in both is the refait: the bank takes half of every
stake, unless its player pushes it into "prison", where the next coup decides whether he
saves it.

Events: `{"type": "bet", "player": "Bob", "on": "rouge", "amount": 10}` (on rouge, noir,
couleur or inverse) before the coup's first card; `{"type": "card", "to": "noir", "card":
"10S"}`; `{"type": "prison", "player": "Bob"}` after a refait, before the next coup's first
card (`"on": "rouge"` puts only his stake on rouge in prison); `{"type": "shuffle"}` between
coups.

>>> from engine.cards.core import parse_card
>>> row_total([parse_card(c) for c in ("10S", "KC", "5H", "7D")])
32
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards.bank import (
    MAX_DEALS,
    SAMPLE_STAKES,
    ActEvent,
    BankGame,
    BankState,
    BetEvent,
    ShuffleEvent,
    Stake,
)
from engine.cards.core import COURT, FULL_PACK, Card, CardEvent, ShoeCount, codes
from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, whole

ROWS = ("noir", "rouge")
COLOUR = {"noir": "black", "rouge": "red"}
BETS = ("rouge", "noir", "couleur", "inverse")
PACKS = 6

LAYOUT = hoyle_law(16285, 16290, "Rouge et Noir: bets on red, black, color and inverse")
DEAL = hoyle_law(16292, 16299, "Rouge et Noir: six packs; a row for black, then for red, each "
                 "dealt until it passes 30; court cards count 10")
NEARER = hoyle_law(16298, 16300, "Rouge et Noir: the color nearer 31 wins, even money")
COULEUR = hoyle_law(16302, 16305, "Rouge et Noir: color or inverse, by the first card dealt "
                    "for the winning color")
APRES = hoyle_law(16307, 16308, "Rouge et Noir: the same number for both colors is a "
                  "stand-off, apres")
REFAIT = hoyle_law(16308, 16312, "Rouge et Noir: 31 for both, the bank takes half, or the "
                   "stake goes to prison")
LAWS = (LAYOUT, DEAL, NEARER, COULEUR, APRES, REFAIT)


def pips(card: Card) -> int:
    """The card's count in a row: court cards 10, the rest their face value (ace 1)."""
    return 10 if card.rank in COURT else card.order


def row_total(cards: Sequence[Card]) -> int:
    return sum(pips(card) for card in cards)


@dataclass(frozen=True, slots=True)
class PrisonEvent(ActEvent):
    """After a refait, the player pushes a stake into prison instead of losing half.

    `on` names the stake (his money on rouge, noir, couleur or inverse); None, all of his
    stakes the refait caught.
    """

    type: ClassVar[str] = "prison"
    on: str | None = None

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "player": self.player}
        if self.on is not None:
            data["on"] = self.on
        return data

    def takes(self, stake: Stake) -> bool:
        """Whether this push takes `stake` into prison."""
        return stake.player == self.player and self.on in (None, stake.on)


@dataclass(frozen=True, slots=True)
class RougeEtNoirRules(HouseRules):
    """Rouge et Noir: which first card decides couleur, and the session's length in coups.

    `couleur` "winning-row" is the book's text (line 16303, "the first card dealt for the
    winning color"), the catalogue's default; "first-card" is the casino rule, the first
    card of the coup (the first card of black's row). They differ only when red wins.
    """

    couleur: str = "winning-row"
    deals: int = 10

    def known_options(self) -> tuple[Option, ...]:
        return either("couleur", "winning-row", "first-card"), whole("deals", 1, MAX_DEALS)


class RougeEtNoirState(BankState):
    """A session of Rouge et Noir: stakes, two rows, refaits and the prison."""

    rules: RougeEtNoirRules
    OTHERS = ("prison",)
    SHUFFLES = True

    def new_shoe(self) -> ShoeCount:
        return ShoeCount(PACKS)

    def start(self) -> None:
        self.rows: dict[str, list[CardEvent]] = {row: [] for row in ROWS}
        #: Stakes caught by a refait, until their players choose prison or the next deal.
        self.refait: list[Stake] = []
        self.prison: list[Stake] = []

    @property
    def banker(self) -> str:
        return self.players[0]

    def spots(self) -> Sequence[str]:
        return BETS

    def card_hands(self) -> Sequence[str]:
        return ROWS

    def parse_other(self, kind: str, data: Mapping[str, Any]) -> Event:
        """A push into prison, of the stake `on` names or of all the player's."""
        player = self.parse_actor(data, kind)
        on = data.get("on")
        if on is not None and on not in BETS:
            raise IllegalEventError(f"prison: a stake is on {', '.join(BETS)}; not on {on!r}")
        return PrisonEvent(player, on)

    def total(self, row: str) -> int:
        return row_total([dealt.card for dealt in self.rows[row]])

    def hands(self) -> dict[str, list[str]]:
        return {row: codes(dealt.card for dealt in self.rows[row]) for row in ROWS}

    def on_table(self) -> list[CardEvent]:
        return [dealt for row in ROWS for dealt in self.rows[row]]

    @property
    def dealing(self) -> str:
        """The row the next card goes to."""
        return "noir" if self.total("noir") <= 30 else "rouge"

    def where(self) -> str:
        if self.over:
            return "the game is over"
        if not self.on_table():
            return f"coup {self.coups + 1}: bets, then black's row"
        return (f"coup {self.coups + 1}: black's row at {self.total('noir')}, "
                f"red's at {self.total('rouge')}")

    def verify_play(self, event: Event) -> None:
        started = bool(self.on_table())
        if isinstance(event, CardEvent):
            if event.to != self.dealing:
                closed = f"black's row is closed at {self.total('noir')}"
                raise self.refuse(event, closed if event.to == "noir" else
                                  "red's row comes after black's passes 30")
            return
        if isinstance(event, ShuffleEvent):
            if started and self.shoe.left:
                raise self.refuse(event, "the shoe is shuffled between coups")
            return
        if isinstance(event, PrisonEvent):
            if not any(event.takes(stake) for stake in self.refait):
                on = "" if event.on is None else f" on {event.on}"
                raise self.refuse(event, f"{event.player} has no stake{on} caught by a refait")
            return
        if not isinstance(event, BetEvent):
            raise self.refuse(event, "Rouge et Noir takes bets, cards, prison and shuffle")
        if event.player == self.banker:
            raise self.refuse(event, "the banker takes the bets, he does not place them")
        if started:
            raise self.refuse(event, "a bet comes before the coup's first card")

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, ShuffleEvent):
            return [Ruling("shuffle", None, None, "The dealer shuffles the six packs.", DEAL)]
        if isinstance(event, PrisonEvent):
            mine = [stake for stake in self.refait if event.takes(stake)]
            self.refait = [stake for stake in self.refait if not event.takes(stake)]
            self.prison.extend(mine)
            staked = sum(stake.amount for stake in mine)
            on = "" if event.on is None else f" on {event.on}"
            return [Ruling("prison", event.player, staked,
                           f"{event.player} pushes his {staked}{on} into prison: the next coup "
                           "decides whether he saves it.", REFAIT)]
        if isinstance(event, BetEvent):
            self.stakes.append(Stake(event.player, event.on, event.amount))
            return [Ruling("bet", event.player, event.amount,
                           f"{event.player} bets {event.amount} on {event.on}, at even money.",
                           NEARER if event.on in ROWS else COULEUR)]
        assert isinstance(event, CardEvent)
        rulings = [] if self.on_table() else self.take_halves()
        self.rows[event.to].append(event)
        total = self.total(event.to)
        colour = "black" if event.to == "noir" else "red"
        if total <= 30:
            return rulings
        rulings.append(Ruling("row", None, total, f"{total} for {colour}.", DEAL))
        if event.to == "rouge":
            rulings.extend(self.settle())
        return rulings

    def take_halves(self) -> list[Ruling]:
        """The bank takes half of each refait stake not pushed into prison."""
        rulings = []
        for stake in self.refait:
            half = stake.amount // 2
            self.pay(stake.player, -half)
            rulings.append(Ruling("refait", stake.player, -half,
                                  f"Refait: {self.banker} takes half of {stake.player}'s "
                                  f"{stake.amount} on {stake.on}, {half}.", REFAIT))
        self.refait = []
        return rulings

    def settle(self) -> list[Ruling]:
        noir, rouge = self.total("noir"), self.total("rouge")
        stakes, self.stakes = self.stakes, []
        rulings: list[Ruling]
        if noir == rouge:
            if noir == 31:
                self.refait = stakes
                rulings = [Ruling("refait", self.banker, None,
                                  "31 for both colors, the refait: the bank takes half of "
                                  "every stake, unless its player puts it in prison before "
                                  "the next coup.", REFAIT)]
            else:
                rulings = [Ruling("apres", None, None,
                                  f"{noir} for both colors: apres, every bet is a stand-off.",
                                  APRES)]
        else:
            rulings = self.decide(stakes, "noir" if noir < rouge else "rouge")
        self.rows = {row: [] for row in ROWS}
        self.coups += 1
        if self.coups >= self.rules.deals:
            rulings.extend(self.take_halves())
            for stake in self.prison:
                rulings.append(Ruling("prison", stake.player, 0,
                                      f"The session ends: {stake.player}'s {stake.amount} in "
                                      "prison is returned to him.", REFAIT))
            self.prison = []
            rulings.append(self.end(NEARER, f"{self.coups} deals played"))
        return rulings

    def decide(self, stakes: list[Stake], winner: str) -> list[Ruling]:
        first = self.rows[winner if self.rules.couleur == "winning-row" else "noir"][0].card
        couleur = "couleur" if first.colour == COLOUR[winner] else "inverse"
        which = "the winning row's" if self.rules.couleur == "winning-row" else "the coup's"
        rulings = [Ruling("coup", None, None,
                          f"{'Black' if winner == 'noir' else 'Red'} is nearer 31 and wins; "
                          f"{which} first card, {first.name}, is {first.colour}: "
                          f"{couleur} wins.", COULEUR)]
        for stake in stakes:
            won = stake.on in (winner, couleur)
            gain = stake.amount if won else -stake.amount
            self.pay(stake.player, gain)
            rulings.append(Ruling(
                "bet-won" if won else "bet-lost", stake.player, gain,
                f"{stake.player}'s {stake.amount} on {stake.on} "
                + (f"wins {gain} at even money." if won else f"is taken by {self.banker}."),
                NEARER if stake.on in ROWS else COULEUR))
        for stake in self.prison:
            won = stake.on in (winner, couleur)
            if not won:
                self.pay(stake.player, -stake.amount)
            rulings.append(Ruling(
                "prison", stake.player, 0 if won else -stake.amount,
                f"{stake.player}'s {stake.amount} in prison on {stake.on} "
                + ("is saved." if won else f"is lost to {self.banker}."), REFAIT))
        self.prison = []
        return rulings

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        row = self.dealing
        events: list[Event] = [CardEvent(row, card) for card in FULL_PACK
                               if self.shoe.seen[card] < PACKS]
        if not self.on_table():
            events.append(ShuffleEvent())
            events.extend(BetEvent(player, on, amount) for player in self.players[1:]
                          for on in BETS for amount in SAMPLE_STAKES)
            pushes = [push for stake in self.refait
                      for push in (PrisonEvent(stake.player), PrisonEvent(stake.player, stake.on))]
            events.extend(dict.fromkeys(pushes))
        elif not self.shoe.left:
            events.append(ShuffleEvent())
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        found = [Awaiting("card", "dealer", self.dealing, f"the next card for {self.dealing}")]
        if not self.on_table() and len(self.players) > 1:
            found.insert(0, Awaiting("bet", "player", None,
                                     "bets on rouge, noir, couleur or inverse"))
        return tuple(found)

    def extra(self) -> JSON:
        return {"deals": self.coups, "totals": {row: self.total(row) for row in ROWS},
                "refait": [stake.to_json() for stake in self.refait],
                "prison": [stake.to_json() for stake in self.prison]}


GAMES = (
    BankGame("rouge-et-noir", "Rouge et Noir, or Trente et Quarante", RougeEtNoirRules(),
                 RougeEtNoirState, LAWS, aliases=("trente-et-quarante",)),
)
