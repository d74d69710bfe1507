"""Banking dice games of Hoyle's Games (1940): each throw of the banker settles every bet.

Under and Over Seven and Passe-Dix are here; Chuck Luck (`engine/dice/chuck_luck.py`) is
played on the same kind of table. A `Layout` is the variant: how many dice, the bets the
layout takes, how a throw decides each and whether the bank passes. One `BankState` runs
them all.

Events (the transcript vocabulary of docs/dice/banking.md):

- `{"type": "bet", "player": "Bob", "on": "under", "amount": 5}`: a stake on the layout,
  with `"number"` where the spot needs one (a chuck-luck single number, raffle or total);
- `{"type": "throw", "dice": [3, 4]}`: the banker's dice, resting flat;
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from engine.core import JSON, Awaiting, Event, LawRef, Operation, Outcome, Ruling, hoyle_law
from engine.dice.core import (
    DiceGame,
    DiceState,
    RethrowEvent,
    ThrowEvent,
    odds_text,
    parse_rethrow,
    parse_throw,
    throws,
)
from engine.dice.craps import MAX_ROUNDS, MAX_STAKE, SAMPLE_STAKES
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, best_off, either, parse_player, whole

#: The most throws a fixed-bank session may be set to last.
MAX_THROWS = 100

UNDER_OVER_LAYOUT = hoyle_law(
    10455, 10459, "Under and Over Seven: bets that the banker throws under 7, over 7 or 7")
UNDER_OVER_EVEN = hoyle_law(
    10459, 10463, "Under and Over Seven: the banker pays even money on Under and Over")
UNDER_OVER_SEVEN = hoyle_law(
    10463, 10464, "Under and Over Seven: the banker pays 3 for 1 when he throws seven")

PASSE_DIX_BANK = hoyle_law(
    10328, 10330, "Passe-Dix: the banker holds the box while he wins, then it passes left")
PASSE_DIX_BETS = hoyle_law(
    10332, 10334, "Passe-Dix: bets that he cannot throw 10 or more; 10 is his percentage")


# -- the layout: what a variant decides ------------------------------------------------

@dataclass(frozen=True, slots=True)
class Settlement:
    """How one throw decides one bet: won or lost, net units paid a unit won, and why."""

    won: bool
    pays: int
    text: str
    law: LawRef


@dataclass(frozen=True, slots=True)
class Coup:
    """What a throw is, for the banker: a ruling's kind, text and law, and if he lost."""

    kind: str
    text: str
    law: LawRef
    banker_loses: bool = False


class Layout(HouseRules, ABC):
    """A banking dice game's rules: the variant, with its named options as fields."""

    __slots__ = ()

    dice: ClassVar[int]
    bets: ClassVar[tuple[str, ...]]
    #: True: the bank passes to the left when the banker loses a coup (Passe-Dix).
    rotating: ClassVar[bool]
    #: The law the session's end cites (the book sets no end; an option does).
    end_law: ClassVar[LawRef]

    @abstractmethod
    def session_over(self, coups: int, banks_lost: int, players: int) -> bool:
        """Whether the session has run its length after this many throws and lost banks."""

    @abstractmethod
    def numbers(self, on: str) -> tuple[int, ...]:
        """The numbers a bet on `on` must name; empty when it names none."""

    @abstractmethod
    def spot(self, on: str, number: int | None) -> str:
        """The bet's place on the layout, in words: "on Under 7", "on the single number 4"."""

    @abstractmethod
    def pays(self, on: str, number: int | None) -> str:
        """What the book pays on the spot, in words."""

    @abstractmethod
    def bet_law(self, on: str) -> LawRef:
        """The law that sets the spot's payout."""

    @abstractmethod
    def coup(self, dice: tuple[int, ...]) -> Coup:
        """What a throw is, before any bet is settled."""

    @abstractmethod
    def settle(self, on: str, number: int | None, dice: tuple[int, ...]) -> Settlement:
        """How `dice` decide a bet on `on` (and `number`)."""

    @abstractmethod
    def own_laws(self) -> tuple[LawRef, ...]:
        """Every law of the game's own passage that a ruling can cite."""

    def spots(self) -> list[tuple[str, int | None]]:
        """Every place on the layout a bet can go."""
        found: list[tuple[str, int | None]] = []
        for on in self.bets:
            numbers = self.numbers(on)
            if numbers:
                found.extend((on, n) for n in numbers)
            else:
                found.append((on, None))
        return found

    def win_chance(self, on: str, number: int | None) -> Fraction:
        """The exact chance a bet on the spot wins, over every way the dice can fall."""
        outcomes = list(throws(self.dice))
        won = sum(1 for dice in outcomes if self.settle(on, number, dice).won)
        return Fraction(won, len(outcomes))

    def expectation(self, on: str, number: int | None) -> Fraction:
        """The player's exact average gain a unit staked on the spot (negative: the edge)."""
        outcomes = list(throws(self.dice))
        total = 0
        for dice in outcomes:
            settled = self.settle(on, number, dice)
            total += settled.pays if settled.won else -1
        return Fraction(total, len(outcomes))

    def chances(self, on: str, number: int | None) -> str:
        """The spot's exact chance, odds and edge, worked out over every throw."""
        chance = self.win_chance(on, number)
        edge = -self.expectation(on, number)
        ways = chance * 6 ** self.dice
        return (f"it wins in {ways} of the {6 ** self.dice} ways {self.dice} dice fall, "
                f"{odds_text(chance)} against; {self.pays(on, number)}; the banker's edge "
                f"is {edge} of the stake ({float(edge):.1%})")


# -- Under and Over Seven --------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class UnderOverRules(Layout):
    """Under and Over Seven: two dice; Under and Over at evens, 7 at the `seven_pays` odds.

    The book's "3 for 1" (line 10463) may include the stake (a net 2) or not (a net 3);
    the catalogue reads this book's "for" as "to", so "3-to-1" is the default.
    """

    dice: ClassVar[int] = 2
    bets: ClassVar[tuple[str, ...]] = ("under", "over", "seven")
    rotating: ClassVar[bool] = False
    end_law: ClassVar[LawRef] = UNDER_OVER_LAYOUT

    seven_pays: str = "3-to-1"
    # The book sets no end: the session lasts this many throws of the banker.
    throws: int = 10

    def known_options(self) -> tuple[Option, ...]:
        return either("seven_pays", "3-to-1", "2-to-1"), whole("throws", 1, MAX_THROWS)

    @property
    def seven_net(self) -> int:
        """What a unit on 7 wins when 7 is thrown, the stake not counted."""
        return 3 if self.seven_pays == "3-to-1" else 2

    def session_over(self, coups: int, banks_lost: int, players: int) -> bool:
        return coups >= self.throws

    def numbers(self, on: str) -> tuple[int, ...]:
        return ()

    def spot(self, on: str, number: int | None) -> str:
        return {"under": "on Under 7", "over": "on Over 7", "seven": "on 7 exactly"}[on]

    def pays(self, on: str, number: int | None) -> str:
        if on == "seven":
            return f"pays {self.seven_net} to 1 (the book: 3 for 1; option seven_pays)"
        return "pays even money"

    def bet_law(self, on: str) -> LawRef:
        return UNDER_OVER_SEVEN if on == "seven" else UNDER_OVER_EVEN

    def coup(self, dice: tuple[int, ...]) -> Coup:
        total = sum(dice)
        word = "under 7" if total < 7 else "over 7" if total > 7 else "7 exactly"
        return Coup("coup", f"The banker throws {total}: {word}.", UNDER_OVER_LAYOUT)

    def settle(self, on: str, number: int | None, dice: tuple[int, ...]) -> Settlement:
        total = sum(dice)
        if on == "seven":
            if total == 7:
                return Settlement(True, self.seven_net,
                                  f"7 is thrown, paid {self.seven_net} to 1", UNDER_OVER_SEVEN)
            return Settlement(False, 0, f"{total} is not 7", UNDER_OVER_SEVEN)
        won = total < 7 if on == "under" else total > 7
        text = f"{total} is {'' if won else 'not '}{on} 7"
        return Settlement(won, 1 if won else 0, text, UNDER_OVER_EVEN)

    def own_laws(self) -> tuple[LawRef, ...]:
        return (UNDER_OVER_LAYOUT, UNDER_OVER_EVEN, UNDER_OVER_SEVEN)


# -- Passe-Dix ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PasseDixRules(Layout):
    """Passe-Dix: three dice; players bet the banker cannot throw 10 or more, at evens.

    `ten` is who wins on a total of exactly 10: "banker" as the book gives it (line 10334,
    "that is his percentage"), or "players" for the classical even game where the caster
    must pass 10.
    """

    dice: ClassVar[int] = 3
    bets: ClassVar[tuple[str, ...]] = ("against",)
    rotating: ClassVar[bool] = True
    end_law: ClassVar[LawRef] = PASSE_DIX_BANK

    ten: str = "banker"
    # The book sets no end: the session ends when the bank has gone round this many times.
    rounds: int = 1

    def known_options(self) -> tuple[Option, ...]:
        return either("ten", "banker", "players"), whole("rounds", 1, MAX_ROUNDS)

    def session_over(self, coups: int, banks_lost: int, players: int) -> bool:
        return banks_lost >= players * self.rounds

    @property
    def least(self) -> int:
        """The least total that wins the coup for the banker."""
        return 10 if self.ten == "banker" else 11

    def numbers(self, on: str) -> tuple[int, ...]:
        return ()

    def spot(self, on: str, number: int | None) -> str:
        return "against the banker"

    def pays(self, on: str, number: int | None) -> str:
        return f"pays even money if he throws under {self.least}"

    def bet_law(self, on: str) -> LawRef:
        return PASSE_DIX_BETS

    def coup(self, dice: tuple[int, ...]) -> Coup:
        total = sum(dice)
        if total >= self.least:
            why = " (10 exactly is his percentage)" if total == 10 else ""
            return Coup("banker-wins", f"The banker throws {total}, {self.least} or more: he "
                        f"wins the coup{why}.", PASSE_DIX_BETS)
        return Coup("banker-loses", f"The banker throws {total}, under {self.least}: he loses "
                    "the coup.", PASSE_DIX_BETS, banker_loses=True)

    def settle(self, on: str, number: int | None, dice: tuple[int, ...]) -> Settlement:
        total = sum(dice)
        won = total < self.least
        return Settlement(won, 1 if won else 0,
                          f"{total} is {'under' if won else 'not under'} {self.least}",
                          PASSE_DIX_BETS)

    def own_laws(self) -> tuple[LawRef, ...]:
        return (PASSE_DIX_BANK, PASSE_DIX_BETS)


UNDER_OVER = UnderOverRules()
PASSE_DIX = PasseDixRules()


# -- the table ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class LayoutBetEvent(Event):
    """A player's stake on a spot of the layout; `number` where the spot names one."""

    type: ClassVar[str] = "bet"
    player: str
    on: str
    amount: int
    number: int | None = None

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "player": self.player, "on": self.on,
                      "amount": self.amount}
        if self.number is not None:
            data["number"] = self.number
        return data


@dataclass(slots=True)
class Stake:
    player: str
    on: str
    number: int | None
    amount: int


@dataclass(slots=True)
class BankTable:
    """Everything a replay rebuilds: the banker, the stakes down, the winnings so far."""

    banker: int = 0
    coups: int = 0
    banks_lost: int = 0
    stakes: list[Stake] = field(default_factory=list)
    net: dict[str, int] = field(default_factory=dict)
    last: tuple[int, ...] | None = None
    over: bool = False


class BankState(DiceState):
    """A session at a banking dice table: bets, then the banker's throw settles them all."""

    game: BankGame
    rules: Layout

    def __init__(self, game: BankGame, rules: Layout, players: Sequence[str]) -> None:
        super().__init__(game, rules, players)
        self.table = BankTable(net={name: 0 for name in players})

    @property
    def banker(self) -> str:
        return self.players[self.table.banker]

    @property
    def thrower(self) -> str:
        return self.banker

    def thrown_again(self) -> str:
        return "the dice are thrown again and every bet stands"

    def where(self) -> str:
        if self.table.over:
            return "the game is over"
        return f"{self.banker} holds the bank, throw {self.table.coups + 1}"

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = data.get("type")
        if kind == "throw":
            return parse_throw(data, self.rules.dice, self.game.name)
        if kind == "rethrow":
            return parse_rethrow(data)
        if kind != "bet":
            raise IllegalEventError(f"{self.game.name} has no {kind!r} event; it has bet, "
                                    "throw and rethrow")
        player = parse_player(data, self.players, "bet")
        on, amount = data.get("on"), data.get("amount")
        if on not in self.rules.bets:
            raise IllegalEventError(f"bet: {self.game.name} takes bets on "
                                    f"{', '.join(self.rules.bets)}, not {on!r}")
        number = data.get("number")
        allowed = self.rules.numbers(str(on))
        if allowed:
            if isinstance(number, bool) or number not in allowed:
                raise IllegalEventError(f"bet on {on}: number must be one of "
                                        f"{allowed[0]}-{allowed[-1]}, got {number!r}")
        elif number is not None:
            raise IllegalEventError(f"bet on {on}: this bet names no number, got {number!r}")
        if isinstance(amount, bool) or not isinstance(amount, int) \
                or not 0 < amount <= MAX_STAKE:
            raise IllegalEventError(f"bet: amount must be a whole number 1-{MAX_STAKE}, "
                                    f"got {amount!r}")
        return LayoutBetEvent(str(player), str(on), amount, number)

    def verify(self, event: Event) -> None:
        if isinstance(event, RethrowEvent):
            self.verify_rethrow(event)
            return
        if self.table.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        if isinstance(event, ThrowEvent):
            if len(event.dice) != self.rules.dice:
                raise IllegalEventError(f"throw: {self.game.name} is played with "
                                        f"{self.rules.dice} dice, got {len(event.dice)}")
            return
        if not isinstance(event, LayoutBetEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if event.player == self.banker:
            raise IllegalEventError(f"bet by {event.player}: the banker takes the bets, he "
                                    "does not place them")

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        if isinstance(event, RethrowEvent):
            return self.void_last(event)
        self.history.append(event)
        if isinstance(event, LayoutBetEvent):
            self.rethrow_allowed = False
            self.table.stakes.append(Stake(event.player, event.on, event.number, event.amount))
            text = (f"{event.player} bets {event.amount} {self.rules.spot(event.on, event.number)}"
                    f"; {self.banker} takes it: "
                    f"{self.rules.chances(event.on, event.number)}.")
            return Operation(event, (Ruling("bet", event.player, event.amount, text,
                                            self.rules.bet_law(event.on)),))
        assert isinstance(event, ThrowEvent)
        self.rethrow_allowed = True
        return Operation(event, tuple(self._throw(event)))

    def _throw(self, throw: ThrowEvent) -> list[Ruling]:
        table = self.table
        table.coups += 1
        table.last = throw.dice
        coup = self.rules.coup(throw.dice)
        rulings = [Ruling(coup.kind, self.banker, throw.total, coup.text, coup.law)]
        for stake in table.stakes:
            settled = self.rules.settle(stake.on, stake.number, throw.dice)
            gain = stake.amount * settled.pays if settled.won else -stake.amount
            table.net[stake.player] += gain
            table.net[self.banker] -= gain
            where = self.rules.spot(stake.on, stake.number)
            if settled.won:
                text = (f"{settled.text}: {stake.player}'s {stake.amount} {where} wins "
                        f"{gain} from {self.banker}.")
            else:
                text = (f"{settled.text}: {self.banker} takes {stake.player}'s "
                        f"{stake.amount} {where}.")
            rulings.append(Ruling("bet-won" if settled.won else "bet-lost", stake.player, gain,
                                  text, settled.law))
        table.stakes = []
        if coup.banker_loses:
            table.banks_lost += 1
        if self.rules.session_over(table.coups, table.banks_lost, len(self.players)):
            table.over = True
            rulings.append(self._winner_ruling())
        elif self.rules.rotating and coup.banker_loses:
            table.banker = (table.banker + 1) % len(self.players)
            rulings.append(Ruling("bank-passes", self.banker, None,
                                  f"The banker has lost a coup: the dice box passes to "
                                  f"{self.banker}.", self.rules.end_law))
        return rulings

    def _winner_ruling(self) -> Ruling:
        outcome = self.outcome()
        assert outcome is not None
        best = outcome.scores[outcome.winners[0]]
        if self.rules.rotating:
            ended = "The bank has gone round the table: "
        else:
            ended = f"The banker has thrown {self.table.coups} times: "
        names = " and ".join(outcome.winners)
        verb = "is" if len(outcome.winners) == 1 else "are"
        return Ruling("winner", ", ".join(outcome.winners), best,
                      f"{ended}{names} {verb} best off, at {best:+d}.", self.rules.end_law)

    def legal_events(self) -> list[Event]:
        events = self.rethrows()
        if self.table.over:
            return events
        events.extend(ThrowEvent(dice) for dice in throws(self.rules.dice))
        for player in self.players:
            if player == self.banker:
                continue
            for on, number in self.rules.spots():
                events.extend(LayoutBetEvent(player, on, amount, number)
                              for amount in SAMPLE_STAKES)
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.table.over:
            return ()
        found = [Awaiting("throw", "sensor", self.banker,
                          f"the banker's throw of {self.rules.dice} dice")]
        if len(self.players) > 1:
            found.append(Awaiting("bet", "player", None, "bets on the layout, before the throw"))
        return tuple(found)

    def outcome(self) -> Outcome | None:
        return best_off(self.table.net) if self.table.over else None

    def snapshot(self) -> JSON:
        table = self.table
        outcome = self.outcome()
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(self.players), "options": self.rules.options(),
            # The banker throws the dice himself, so he is also the caster.
            "banker": None if table.over else self.banker,
            "caster": None if table.over else self.banker, "throws": table.coups,
            "last_throw": list(table.last) if table.last else None,
            "bets": [{"player": s.player, "on": s.on, "number": s.number, "amount": s.amount}
                     for s in table.stakes],
            "sheet": [{"player": name, "total": table.net[name]} for name in self.players],
            "over": table.over,
            "winners": list(outcome.winners) if outcome else [],
        }


class BankGame(DiceGame[BankState]):
    """A banking dice game of the book; its `rules` layout is the variant."""

    rules: Layout

    def start(self, rules: Layout, players: Sequence[str]) -> BankState:
        return BankState(self, rules, players)

    def own_laws(self) -> tuple[LawRef, ...]:
        return self.rules.own_laws()


GAMES = (
    BankGame("under-and-over-seven", "Under and Over Seven", UNDER_OVER),
    BankGame("passe-dix", "Passe-Dix", PASSE_DIX),
)
