"""Going to Boston and its variants, Multiplication and Round the Spot (Hoyle 1940).

Each player has three throws with three dice (lines 10280-10286): after the first the
highest die is set aside and the other two thrown again; after the second the higher of
those is set aside and the last die thrown again. Only one die is set aside a throw, even
when two are equally high. Going to Boston adds the three dice; Multiplication multiplies
the two set aside by the last die (10292-10295); Round the Spot counts only the spots
round a centre spot: the trey 2, the five 4, the rest blank (10301-10305).

Events (docs/dice/boston.md): `{"type": "throw", "dice": [6, 3, 2]}` (three dice, then
two, then one: the engine sets the highest aside) and `{"type": "rethrow", "reason": ...}`.

>>> from engine.registry import get_game
>>> state = get_game("going-to-boston").new_state(["Ann"])
>>> for dice in ([6, 3, 2], [5, 1], [4]):
...     op = state.apply(state.parse_event({"type": "throw", "dice": dice}))
>>> state.snapshot()["sheet"][0]["total"]
15
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import JSON, Awaiting, Event, LawRef, Ruling, hoyle_law
from engine.dice.core import ThrowEvent, distinct_throws, parse_throw
from engine.dice.turns import ORDINALS, Hand, HandRules, HandState, TurnGame
from engine.errors import IllegalEventError
from engine.rules import Option, one_of

GTB_POOL = hoyle_law(10280, 10281, "Going to Boston: a pool; each player three throws with "
                                   "three dice")
GTB_SET_ASIDE = hoyle_law(10281, 10286, "Going to Boston: the highest die set aside after each "
                                        "throw, only one though two are equally high")
GTB_SCORE = hoyle_law(10285, 10286, "Going to Boston: the total of the three dice after the "
                                    "third throw is the player's score")
MUL_SAME = hoyle_law(10292, 10293, "Multiplication: played as Going to Boston (a pool, three "
                                   "throws, the highest die set aside)")
MUL_SCORE = hoyle_law(10292, 10295, "Multiplication: the last die multiplies the two set aside, "
                                    "6 + 5 = 11 x 4 = 44")
RTS_SAME = hoyle_law(10301, 10302, "Round the Spot: a variation of Going to Boston (a pool, "
                                   "three throws, the highest die set aside)")
RTS_SCORE = hoyle_law(10301, 10305, "Round the Spot: only spots round a centre spot count; ace, "
                                    "deuce, four, six blank, trey 2, five 4")

#: What each face counts at Round the Spot: the spots round its centre spot (lines 10302-10305).
ROUND_THE_SPOT = {1: 0, 2: 0, 3: 2, 4: 0, 5: 4, 6: 0}
SCORINGS = ("add", "multiply", "round-the-spot")
#: Which die is "highest" at Round the Spot: the one that counts most, or the highest face.
SET_ASIDE = ("count", "face")
DICE = 3


@dataclass(frozen=True, slots=True)
class BostonLaws:
    """The laws one variant's rulings cite: its pool and turn, the set-aside, the score."""

    pool: LawRef
    set_aside: LawRef
    score: LawRef


LAWS = {
    "add": BostonLaws(GTB_POOL, GTB_SET_ASIDE, GTB_SCORE),
    "multiply": BostonLaws(MUL_SAME, MUL_SAME, MUL_SCORE),
    "round-the-spot": BostonLaws(RTS_SAME, RTS_SAME, RTS_SCORE),
}


@dataclass(frozen=True, slots=True)
class BostonRules(HandRules):
    """One variant: how the three dice score; `set_aside` only matters at Round the Spot."""

    scoring: str = "add"
    set_aside: str = "count"

    def known_options(self) -> tuple[Option, ...]:
        ties = HandRules.known_options(self)
        if self.scoring == "round-the-spot":
            return (*ties, one_of("set_aside", *SET_ASIDE))
        return ties

    def count(self, face: int) -> int:
        """What one die counts towards the score."""
        return ROUND_THE_SPOT[face] if self.scoring == "round-the-spot" else face

    def highest(self, dice: Sequence[int]) -> int:
        """The die set aside from a throw: the highest, by count or by face."""
        if self.scoring == "round-the-spot" and self.set_aside == "count":
            return max(dice, key=lambda face: (self.count(face), face))
        return max(dice)

    def score(self, kept: Sequence[int], last: int) -> int:
        if self.scoring == "multiply":
            return sum(kept) * last
        return sum(self.count(face) for face in (*kept, last))


GOING_TO_BOSTON = BostonRules(scoring="add")
MULTIPLICATION = BostonRules(scoring="multiply")
ROUND_THE_SPOT_RULES = BostonRules(scoring="round-the-spot")


class BostonState(HandState):
    """Each player's three throws in turn; the best score takes the pool."""

    rules: BostonRules

    def new_turn(self) -> None:
        self.kept: list[int] = []

    @property
    def laws(self) -> BostonLaws:
        return LAWS[self.rules.scoring]

    @property
    def to_throw(self) -> int:
        return DICE - len(self.kept)

    def turn_where(self) -> str:
        return f"{ORDINALS[len(self.kept)]} throw, {self.to_throw} " \
               f"di{'ce' if self.to_throw > 1 else 'e'}"

    def parse(self, kind: str, data: Mapping[str, Any]) -> Event:
        dice = data.get("dice")
        if isinstance(dice, list) and len(dice) != self.to_throw and not self.over:
            aside = f" ({', '.join(map(str, self.kept))} set aside)" if self.kept else ""
            raise IllegalEventError(f"throw: {self.thrower}'s {self.turn_where()}{aside}; "
                                    f"got {len(dice)} dice ({dice})")
        return parse_throw(data, self.to_throw, self.game.name)

    def check(self, event: Event) -> None:
        if not isinstance(event, ThrowEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if len(event.dice) != self.to_throw:
            raise IllegalEventError(f"throw of {len(event.dice)} dice: {self.where()}")

    def play_turn(self, event: Event) -> tuple[list[Ruling], Hand | None]:
        assert isinstance(event, ThrowEvent)
        who, dice, rules = self.thrower, event.dice, self.rules
        shown = " ".join(map(str, dice))
        if len(self.kept) < DICE - 1:
            die = rules.highest(dice)
            self.kept.append(die)
            if dice.count(die) > 1:
                why = f"one {die} is set aside (only one die a throw, though two are equally high)"
            elif rules.scoring == "round-the-spot" and die != max(dice):
                why = f"the {die} is set aside (it counts {rules.count(die)}, the most)"
            else:
                why = f"the {die} is set aside"
            rest = "the other two are" if len(self.kept) == 1 else "the last die is"
            return [Ruling("set-aside", who, die, f"{who} throws {shown}: {why}; {rest} "
                           "thrown again.", self.laws.set_aside)], None
        last = dice[0]
        score = rules.score(self.kept, last)
        first, second = self.kept
        if rules.scoring == "multiply":
            text = (f"{who}'s last die, {last}, multiplies the {first} and {second} set aside: "
                    f"{who} scores ({first} + {second}) x {last} = {score}.")
        elif rules.scoring == "round-the-spot":
            counts = " + ".join(str(rules.count(face)) for face in (first, second, last))
            text = (f"{who}'s {first}, {second} and {last} count {counts} round the spot: "
                    f"{who} scores {score}.")
        else:
            text = f"{who} scores {first} + {second} + {last} = {score}."
        hand = Hand((first, second, last), score, (score,), f"{score} ({first}-{second}-{last})")
        return [Ruling("score", who, score, text, self.laws.score)], hand

    def choices(self) -> list[Event]:
        return [ThrowEvent(dice) for dice in distinct_throws(self.to_throw)]

    def awaits(self) -> tuple[Awaiting, ...]:
        return (Awaiting("throw", "sensor", self.thrower, self.turn_where()),)

    def turn_snapshot(self) -> JSON:
        return {"throw": len(self.kept) + 1, "dice": self.to_throw, "set_aside": list(self.kept)}

    @property
    def best_law(self) -> LawRef:
        return self.laws.pool

    def prize(self, winners: Sequence[str]) -> tuple[str, int]:
        best = self.seats.hands[winners[0]].points
        return ("takes the pool" if len(winners) == 1 else "the pool is divided"), best


def game(id: str, name: str, rules: BostonRules, aliases: tuple[str, ...] = ()) -> TurnGame:
    """Going to Boston or one of its variants; `rules.scoring` is the variant."""
    laws = LAWS[rules.scoring]
    cited = tuple(dict.fromkeys((laws.pool, laws.set_aside, laws.score)))
    return TurnGame(id, name, rules, BostonState, cited, aliases)


GAMES = (
    game("going-to-boston", "Going to Boston, or Newmarket, or Yankee Grab", GOING_TO_BOSTON,
         aliases=("yankee-grab", "newmarket-dice")),
    game("multiplication", "Multiplication", MULTIPLICATION),
    game("round-the-spot", "Round the Spot", ROUND_THE_SPOT_RULES),
)
