"""Help Your Neighbor as Hoyle's Games (1940) gives it (lines 10311-10324).

Each player owns one or more of the numbers 1 to 6; whoever's number comes up on a throw
of three dice gets rid of a counter into the pool, and the first rid of his five wins.

Events (the transcript vocabulary of docs/dice/help_your_neighbor.md):

- `{"type": "throw", "dice": [3, 5, 6]}`: the thrower's three dice;
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").

Scores are points: the counters each player has got rid of (five wins).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.dice.core import FACES
from engine.dice.turns import TurnGame, TurnState, TurnThrow
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either

COUNTERS = 5

NUMBERS = hoyle_law(10314, 10316, "Help Your Neighbor: six players numbered 1 to 6, or three "
                    "with two numbers; 5 counters each, to get rid of")
THROW = hoyle_law(10318, 10322, "Help Your Neighbor: three dice in turn; each player whose "
                  "number is thrown puts a counter in the pool")
LAWS = (NUMBERS, THROW)


@dataclass(frozen=True, slots=True)
class HelpYourNeighborRules(HouseRules):
    """`pays`: whether a number thrown on two dice costs its owner two counters or one."""

    # The book's example (line 10320) has three different numbers; it never says what a
    # doublet does. Each die pays, as two aces pay two counters at Ace in the Pot.
    pays: str = "per-die"

    def known_options(self) -> tuple[Option, ...]:
        return (either("pays", "per-die", "per-number"),)


class HelpYourNeighborState(TurnState):
    """Players throw in turn; every thrown number's owner pays until someone has none."""

    rules: HelpYourNeighborRules
    SEATS: ClassVar[str] = "at Help Your Neighbor"
    DICE = 3

    @classmethod
    def check_count(cls, players: Sequence[str]) -> None:
        if len(FACES) % len(players):
            raise IllegalEventError(
                "Help Your Neighbor shares the six numbers evenly: six players with one "
                "number each, three with two, two with three or one with all six; "
                f"got {len(players)} players")

    def start(self) -> None:
        share = len(FACES) // len(self.players)
        self.owner = {face: self.players[(face - 1) // share] for face in FACES}
        self.held = dict.fromkeys(self.players, COUNTERS)
        self.seat = 0

    @property
    def thrower(self) -> str:
        return self.players[self.seat]

    def numbers(self, player: str) -> list[int]:
        return [face for face in FACES if self.owner[face] == player]

    def play(self, event: Event) -> list[Ruling]:
        assert isinstance(event, TurnThrow)
        who = self.thrower
        thrown = Counter(event.dice)
        rulings = []
        for face in sorted(thrown):
            owner = self.owner[face]
            times = thrown[face] if self.rules.pays == "per-die" else 1
            paid = min(times, self.held[owner])
            if not paid:
                continue
            self.held[owner] -= paid
            rulings.append(Ruling(
                "pays", owner, paid,
                f"{face} is {owner}'s number: {owner} gets rid of {paid} "
                f"counter{'s' if paid > 1 else ''} ({self.held[owner]} left).", THROW))
        if not any(self.owner[face] == who for face in thrown):
            rulings.append(Ruling("no-help", who, 0,
                                  f"None of {who}'s numbers is thrown: he does not help "
                                  "himself.", THROW))
        rid = [name for name in self.players if not self.held[name]]
        if rid:
            rulings.append(self.finish(rid, NUMBERS, "Rid of all five counters"))
        else:
            self.seat = (self.seat + 1) % len(self.players)
        return rulings

    def awaits(self) -> tuple[Awaiting, ...]:
        return (Awaiting("throw", "sensor", self.thrower, "three dice"),)

    def totals(self) -> dict[str, int]:
        return {name: COUNTERS - self.held[name] for name in self.players}

    def details(self) -> JSON:
        return {"numbers": {name: self.numbers(name) for name in self.players},
                "counters": dict(self.held)}


GAMES = (TurnGame("help-your-neighbor", "Help Your Neighbor", HelpYourNeighborRules(),
                HelpYourNeighborState, LAWS),)
