"""Craps as Hoyle's Games (1940) gives it: the private game and the banking game.

Events (the transcript vocabulary of docs/dice.md):

- `{"type": "bet", "player": "Bob", "on": "pass", "amount": 10}`: a bet on the caster
  ("pass"), against him ("against", private game) or on the Field ("field", bank game);
- `{"type": "throw", "dice": [3, 4]}`: the caster's two dice, resting flat;
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from engine.core import JSON, Awaiting, Event, LawRef, Operation, Outcome, Ruling
from engine.dice import laws
from engine.dice.core import (
    DiceGame,
    DiceState,
    RethrowEvent,
    ThrowEvent,
    chance,
    odds_against,
    odds_text,
    parse_rethrow,
    parse_throw,
    ways,
)
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, best_off, parse_player, whole

NICKS = frozenset({7, 11})
CRAPS = frozenset({2, 3, 12})
POINTS = (4, 5, 6, 8, 9, 10)
#: The Field of the book's layout (line 3578, "23 49 1011 12").
FIELD_NUMBERS = frozenset({2, 3, 4, 9, 10, 11, 12})
MAX_ROUNDS = 20
MAX_STAKE = 1_000_000
#: The stakes `legal_events` offers; a real table may bet any whole amount up to MAX_STAKE.
SAMPLE_STAKES = (1, 5)


@dataclass(frozen=True, slots=True)
class CrapsRules(HouseRules):
    """One craps variant; `rounds` is the house rule of how long a session lasts."""

    banking: bool
    bets: tuple[str, ...]
    # How many times the dice go round the players; the book sets no end to the game.
    rounds: int = 1

    def known_options(self) -> tuple[Option, ...]:
        return (whole("rounds", 1, MAX_ROUNDS),)


PRIVATE = CrapsRules(banking=False, bets=("pass", "against"))
BANK = CrapsRules(banking=True, bets=("pass", "field"))


@dataclass(frozen=True, slots=True)
class BetEvent(Event):
    """A player's stake: on the caster, against him, or on the Field."""

    type: ClassVar[str] = "bet"
    player: str
    on: str
    amount: int

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "on": self.on, "amount": self.amount}


# -- exact chances, by enumeration of the 36 ways two dice fall -------------------------

def point_chance(point: int) -> Fraction:
    """The chance the caster throws `point` again before a 7."""
    return Fraction(ways(point), ways(point) + ways(7))


def figures() -> dict[str, Fraction]:
    """The chances the book quotes odds for, worked out exactly."""
    nick = chance(lambda d: sum(d) in NICKS)
    crap = chance(lambda d: sum(d) in CRAPS)
    on_point = {p: Fraction(ways(p), 36) for p in POINTS}
    points = sum(on_point.values(), Fraction(0))
    make = sum((on_point[p] / points * point_chance(p) for p in POINTS), Fraction(0))
    caster = nick + sum((on_point[p] * point_chance(p) for p in POINTS), Fraction(0))
    field_ = chance(lambda d: sum(d) in FIELD_NUMBERS)
    return {"nick": nick, "crap": crap, "make-point": make, "caster-wins": caster,
            "field": field_}


@dataclass(frozen=True, slots=True)
class BookOdds:
    """Odds the book states against something, beside the exact figure."""

    what: str
    book: str
    law: LawRef

    @property
    def exact(self) -> str:
        return odds_text(figures()[self.what])

    @property
    def agrees(self) -> bool:
        against, for_ = (int(n) for n in self.book.split(" to "))
        return Fraction(against, for_) == Fraction(*odds_against(figures()[self.what]))


BOOK_ODDS = (
    BookOdds("nick", "7 to 2", laws.FIRST_THROW_ODDS),
    BookOdds("crap", "8 to 1", laws.FIRST_THROW_ODDS),
    BookOdds("make-point", "57 to 39", laws.POINT_ODDS),
    BookOdds("caster-wins", "73 to 71", laws.CASTER_ODDS),
    BookOdds("field", "5 to 4", laws.FIELD_ODDS),
)


def _book_and_exact(what: str) -> str:
    odds = next(o for o in BOOK_ODDS if o.what == what)
    if odds.agrees:
        return f"{odds.book} against, as the book says"
    return f"{odds.exact} against exactly (the book says {odds.book})"


# -- the game --------------------------------------------------------------------------

@dataclass(slots=True)
class Stake:
    player: str
    on: str
    amount: int


@dataclass(slots=True)
class Table:
    """Everything a replay rebuilds: whose dice, the point, the stakes and the winnings."""

    caster: int = 0
    casters_done: int = 0
    point: int | None = None
    stakes: list[Stake] = field(default_factory=list)
    net: dict[str, int] = field(default_factory=dict)
    last: tuple[int, ...] | None = None
    over: bool = False


class CrapsState(DiceState):
    """A session of craps: casters in turn until the dice have gone round `rounds` times."""

    game: CrapsGame
    rules: CrapsRules

    def __init__(self, game: CrapsGame, rules: CrapsRules, players: Sequence[str]) -> None:
        super().__init__(game, rules, players)
        self.table = Table(net={name: 0 for name in players})

    @property
    def caster(self) -> str:
        return self.players[self.table.caster]

    @property
    def thrower(self) -> str:
        return self.caster

    def thrown_again(self) -> str:
        return "both dice are thrown again"

    def where(self) -> str:
        if self.table.over:
            return "the game is over"
        if self.table.point is None:
            return f"{self.caster} to come out"
        return f"{self.caster} trying for his point, {self.table.point}"

    # -- events ------------------------------------------------------------------------

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = data.get("type")
        if kind == "throw":
            return parse_throw(data, 2, self.game.name)
        if kind == "rethrow":
            return parse_rethrow(data)
        if kind != "bet":
            raise IllegalEventError(f"craps has no {kind!r} event; it has bet, throw and rethrow")
        player = parse_player(data, self.players, "bet")
        on, amount = data.get("on"), data.get("amount")
        if on not in self.rules.bets:
            raise IllegalEventError(f"bet: {self.game.name} takes bets on "
                                    f"{', '.join(self.rules.bets)}, not {on!r}")
        if isinstance(amount, bool) or not isinstance(amount, int) \
                or not 0 < amount <= MAX_STAKE:
            raise IllegalEventError(f"bet: amount must be a whole number 1-{MAX_STAKE}, "
                                    f"got {amount!r}")
        return BetEvent(str(player), str(on), amount)

    def verify(self, event: Event) -> None:
        if isinstance(event, RethrowEvent):
            self.verify_rethrow(event)
            return
        if self.table.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        if isinstance(event, ThrowEvent):
            return
        if not isinstance(event, BetEvent):
            raise IllegalEventError(f"craps cannot apply {event!r}")
        if event.on == "field":
            if self.table.point is None:
                raise IllegalEventError(f"bet on the field by {event.player}: the Field is bet "
                                        f"while the caster tries for a point; {self.where()}")
            return
        if self.table.point is not None:
            raise IllegalEventError(f"bet {event.on} by {event.player}: bets on the caster are "
                                    f"placed before the first throw; {self.where()}")
        if not self.rules.banking and event.player == self.caster:
            raise IllegalEventError(f"bet by {event.player}: the caster takes the bets, he "
                                    "does not place them")

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        if isinstance(event, RethrowEvent):
            return self.void_last(event)
        self.history.append(event)
        if isinstance(event, BetEvent):
            self.rethrow_allowed = False
            self.table.stakes.append(Stake(event.player, event.on, event.amount))
            return Operation(event, (self._bet_ruling(event),))
        assert isinstance(event, ThrowEvent)
        self.rethrow_allowed = True
        return Operation(event, tuple(self._throw(event)))

    def _bet_ruling(self, bet: BetEvent) -> Ruling:
        if bet.on == "field":
            return Ruling("bet", bet.player, bet.amount,
                          f"{bet.player} bets {bet.amount} on the Field for the next throw.",
                          laws.FIELD)
        side = "on" if bet.on == "pass" else "against"
        taker = "the bank" if self.rules.banking else self.caster
        law = laws.BANK_LAYOUT if self.rules.banking else laws.BETS
        return Ruling("bet", bet.player, bet.amount,
                      f"{bet.player} bets {bet.amount} {side} the caster; {taker} takes it.", law)

    def _throw(self, throw: ThrowEvent) -> list[Ruling]:
        table = self.table
        total = throw.total
        table.last = throw.dice
        rulings = self._field(total)
        bank = self.rules.banking
        if table.point is None:
            if total in NICKS or total in CRAPS:
                nick = total in NICKS
                law = laws.BANK_NICK_OR_CRAP if bank else laws.NICK_OR_CRAP
                what = "a nick" if nick else "a crap"
                text = (f"{total} on the first throw is {what}: the caster "
                        f"{'wins' if nick else 'loses'} at once.")
                rulings.append(Ruling("nick" if nick else "crap", self.caster, total, text, law))
                rulings.extend(self._settle(nick, law))
                if not nick:
                    rulings.extend(self._pass_dice())
            else:
                table.point = total
                law = laws.POINT_DISC if bank else laws.POINT
                rulings.append(Ruling(
                    "point", self.caster, total,
                    f"{total} is the caster's point: he throws until {total} again (wins) or 7 "
                    f"(loses); {odds_text(point_chance(total))} against him making it. "
                    f"Over all points, {_book_and_exact('make-point')}.", law))
            return rulings
        law = laws.SEVEN_FOR_THE_BANK if bank else laws.POINT
        if total == table.point:
            rulings.append(Ruling("point-made", self.caster, total,
                                  f"{total}: the caster makes his point and wins.", law))
            table.point = None
            rulings.extend(self._settle(True, law))
        elif total == 7:
            rulings.append(Ruling("seven-out", self.caster, total,
                                  f"7 before the point {table.point}: the caster loses.", law))
            table.point = None
            rulings.extend(self._settle(False, law))
            rulings.extend(self._pass_dice())
        else:
            rulings.append(Ruling("no-decision", self.caster, total,
                                  f"{total}: no decision; the caster throws again for "
                                  f"{table.point}.", laws.POINT_DISC if bank else laws.POINT))
        return rulings

    def _field(self, total: int) -> list[Ruling]:
        """Field bets are decided by the one throw after they are placed."""
        table = self.table
        rulings = []
        wins = total in FIELD_NUMBERS
        for stake in [s for s in table.stakes if s.on == "field"]:
            table.net[stake.player] += stake.amount if wins else -stake.amount
            if wins:
                rulings.append(Ruling("field-wins", stake.player, stake.amount,
                                      f"{total} is in the Field: {stake.player}'s "
                                      f"{stake.amount} wins even money.", laws.FIELD))
            else:
                rulings.append(Ruling("field-loses", stake.player, -stake.amount,
                                      f"{total} is not in the Field: the bank takes "
                                      f"{stake.player}'s {stake.amount}.",
                                      laws.SEVEN_FOR_THE_BANK))
        table.stakes = [s for s in table.stakes if s.on != "field"]
        return rulings

    def _settle(self, caster_wins: bool, law: LawRef) -> list[Ruling]:
        """Bets on and against the caster, paid or taken at even money."""
        table = self.table
        rulings = []
        for stake in [s for s in table.stakes if s.on != "field"]:
            won = caster_wins == (stake.on == "pass")
            amount = stake.amount if won else -stake.amount
            table.net[stake.player] += amount
            if not self.rules.banking:
                table.net[self.caster] -= amount
            side = "on" if stake.on == "pass" else "against"
            payer = "the bank" if self.rules.banking else self.caster
            text = (f"{stake.player}'s {stake.amount} {side} the caster "
                    f"{'wins even money from' if won else 'is lost to'} {payer}.")
            rulings.append(Ruling("bet-won" if won else "bet-lost", stake.player, amount,
                                  text, law))
        table.stakes = [s for s in table.stakes if s.on == "field"]
        return rulings

    def _pass_dice(self) -> list[Ruling]:
        table = self.table
        table.casters_done += 1
        law = laws.BANK_NICK_OR_CRAP if self.rules.banking else laws.CASTER_TURNS
        if table.casters_done >= len(self.players) * self.rules.rounds:
            table.over = True
            return [self._winner_ruling(law)]
        table.caster = (table.caster + 1) % len(self.players)
        return [Ruling("dice-pass", self.caster, None,
                       f"The caster has lost: the dice pass to {self.caster}; taking them "
                       f"up, {_book_and_exact('caster-wins')}.", law)]

    def _winner_ruling(self, law: LawRef) -> Ruling:
        outcome = self.outcome()
        assert outcome is not None
        best = outcome.scores[outcome.winners[0]]
        rounds = self.rules.rounds
        ended = f"The dice have gone round {rounds} time{'s' if rounds > 1 else ''}: "
        if len(outcome.winners) == 1:
            text = f"{ended}{outcome.winners[0]} is best off, at {best:+d}."
        else:
            text = f"{ended}{' and '.join(outcome.winners)} are best off, at {best:+d}."
        return Ruling("winner", ", ".join(outcome.winners), best, text, law)

    def legal_events(self) -> list[Event]:
        events = self.rethrows()
        if self.table.over:
            return events
        events.extend(ThrowEvent((a, b)) for a in range(1, 7) for b in range(1, 7))
        for player in self.players:
            for on in self.rules.bets:
                for amount in SAMPLE_STAKES:
                    bet = BetEvent(player, on, amount)
                    if self.can_apply(bet):
                        events.append(bet)
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.table.over:
            return ()
        point = self.table.point
        found = [Awaiting("throw", "sensor", self.caster,
                          "come-out throw" if point is None else f"trying for {point}")]
        if point is None:
            found.append(Awaiting("bet", "player", None, "bets on the caster, before the throw"))
        elif self.rules.banking:
            found.append(Awaiting("bet", "player", None, "Field bets for the next throw"))
        return tuple(found)

    def outcome(self) -> Outcome | None:
        return best_off(self.table.net) if self.table.over else None

    def snapshot(self) -> JSON:
        table = self.table
        outcome = self.outcome()
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(self.players), "options": self.rules.options(),
            "caster": None if table.over else self.caster, "point": table.point,
            "last_throw": list(table.last) if table.last else None,
            "bets": [{"player": s.player, "on": s.on, "amount": s.amount} for s in table.stakes],
            "sheet": [{"player": name, "total": table.net[name]} for name in self.players],
            "over": table.over,
            "winners": list(outcome.winners) if outcome else [],
        }


class CrapsGame(DiceGame[CrapsState]):
    """A craps game of the book; its `rules` instance is the variant."""

    rules: CrapsRules

    def start(self, rules: CrapsRules, players: Sequence[str]) -> CrapsState:
        return CrapsState(self, rules, players)

    def own_laws(self) -> tuple[LawRef, ...]:
        if self.rules.banking:
            return (laws.BANK_LAYOUT, laws.BANK_NICK_OR_CRAP, laws.POINT_DISC,
                    laws.FIELD, laws.SEVEN_FOR_THE_BANK)
        return (laws.BETS, laws.NICK_OR_CRAP, laws.POINT, laws.CASTER_TURNS)
