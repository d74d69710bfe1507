"""Ace in the Pot as Hoyle's Games (1940) gives it (lines 10164-10189): aces to the pot.

Events (the transcript vocabulary of docs/dice/ace_in_the_pot.md):

- `{"type": "throw", "dice": [1, 6]}`: the thrower's single throw of two dice;
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").

Scores are net winnings in counters: the counters a player holds less the two he started
with, and the pool to its winner.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.dice.turns import TurnGame, TurnState, TurnThrow
from engine.rules import HouseRules

COUNTERS = 2
LAST_THROWS = 3

ACE = hoyle_law(10167, 10170, "Ace in the Pot: two counters each, a single throw of two "
                "dice; an ace puts a counter in the pot")
SIX = hoyle_law(10170, 10177, "Ace in the Pot: a 6 passes a counter to the left, with the "
                "dice; double sixes pass both")
TURNS = hoyle_law(10177, 10181, "Ace in the Pot: throws go left until one counter is out of "
                  "the pot; no counters, no throw")
LAST = hoyle_law(10183, 10187, "Ace in the Pot: the last counter takes three throws; a 6 "
                 "passes it; three without a 6 win the pool")
LAWS = (ACE, SIX, TURNS, LAST)


@dataclass(frozen=True, slots=True)
class AceInThePotRules(HouseRules):
    """Ace in the Pot has no house rules: the book ends it when the pool is won."""


class AceInThePotState(TurnState):
    """Counters go to the pot or to the left until one is out, then the last-counter throws."""

    rules: AceInThePotRules
    DICE = 2

    def start(self) -> None:
        self.held = dict.fromkeys(self.players, COUNTERS)
        self.pot = 0
        self.seat = 0
        #: Throws made with the last counter, once only one is left out of the pot.
        self.last_throws: int | None = None

    @property
    def thrower(self) -> str:
        return self.players[self.seat]

    @property
    def outside(self) -> int:
        return sum(self.held.values())

    def _left_of(self, seat: int) -> int:
        return (seat + 1) % len(self.players)

    def play(self, event: Event) -> list[Ruling]:
        assert isinstance(event, TurnThrow)
        if self.last_throws is not None:
            return self._last_counter(event.dice)
        who = self.thrower
        rulings = []
        for _ in range(event.dice.count(1)):
            # The play for the pot stops once one counter is left out of it (line 10178).
            if self.held[who] and self.outside > 1:
                self.held[who] -= 1
                self.pot += 1
                rulings.append(Ruling("ace", who, -1,
                                      f"An ace: {who} puts a counter in the pot "
                                      f"({self.held[who]} left, {self.pot} in the pot).", ACE))
        left = self.players[self._left_of(self.seat)]
        for _ in range(event.dice.count(6)):
            if self.held[who]:
                self.held[who] -= 1
                self.held[left] += 1
                rulings.append(Ruling("six", who, -1,
                                      f"A 6: {who} passes a counter to {left} "
                                      f"({self.held[who]} left).", SIX))
        if not rulings:
            rulings.append(Ruling("blank", who, 0,
                                  f"No ace and no 6: {who}'s counters stay as they are.", TURNS))
        if self.outside == 1:
            self.seat = next(i for i, name in enumerate(self.players) if self.held[name])
            self.last_throws = 0
            rulings.append(Ruling("last-counter", self.thrower, None,
                                  f"One counter is left out of the pot: {self.thrower} holds it "
                                  f"and makes three throws.", LAST))
        else:
            self.seat = self._left_of(self.seat)
            while not self.held[self.thrower]:
                self.seat = self._left_of(self.seat)
        return rulings

    def _last_counter(self, dice: tuple[int, ...]) -> list[Ruling]:
        who = self.thrower
        assert self.last_throws is not None
        if 6 in dice:
            self.seat = self._left_of(self.seat)
            self.held[who] -= 1
            self.held[self.thrower] += 1
            self.last_throws = 0
            return [Ruling("six", who, -1,
                           f"A 6: {who} passes the last counter to {self.thrower}, who takes "
                           f"three throws.", LAST)]
        self.last_throws += 1
        if self.last_throws < LAST_THROWS:
            return [Ruling("no-six", who, None,
                           f"No 6: {who} has made {self.last_throws} of three throws.", LAST)]
        self.held[who] += self.pot
        won = self.pot
        self.pot = 0
        return [Ruling("pool", who, won, f"Three throws without a 6: {who} takes the pool of "
                       f"{won}.", LAST),
                self.finish([who], LAST, "Three casts without a 6")]

    def awaits(self) -> tuple[Awaiting, ...]:
        if self.last_throws is None:
            detail = "a single throw of two dice"
        else:
            detail = f"throw {self.last_throws + 1} of three with the last counter"
        return (Awaiting("throw", "sensor", self.thrower, detail),)

    def totals(self) -> dict[str, int]:
        return {name: self.held[name] - COUNTERS for name in self.players}

    def details(self) -> JSON:
        return {"counters": dict(self.held), "pot": self.pot,
                "last_counter_throws": self.last_throws}


GAMES = (TurnGame("ace-in-the-pot", "Ace in the Pot", AceInThePotRules(), AceInThePotState, LAWS),)
