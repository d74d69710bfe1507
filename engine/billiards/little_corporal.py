"""The Little Corporal (Hoyle 1940, lines 15299-15330): the three-ball game with a pin.

The regular three-ball carom game with a small pin, as at pin pool, set up in the centre
of the table. Caroms and forfeits count as in the three-ball game; knocking the pin down
scores five for the striker, who plays until he fails to make a carom or knock the pin
down. A ball must be hit by the cue ball before the pin can score: playing at the pin
direct is not allowed (rule 1). The pin is set up where it falls, or on the centre spot if
it goes off the table, lodges on a cushion or in a corner; leaning on a cushion it counts
as down (rules 2-3). The game is generally 100 points (rule 4).

Readings (docs/billiards/little-corporal.md): a stroke that knocks the pin down with the
cue ball before it strikes a ball (the referee's `direct`) is foul: no count, and the
inning ends; a carom and the pin on one stroke count six. The three-ball game's crotch
(2934-2940) is barred here too, as its laws govern.

Stroke facts (`TABLE`): `path` and `pins` on every stroke but a clean miss; `direct` and
`balk` only on some, so they are the table's `sometimes` and the referee's form asks for
both. `direct` applies when the pin fell on a stroke that struck a ball; playing at the
pin direct is a foul the referee calls, so a stroke without it is one where a ball was
struck first (as the book vectors and the docs transcript close such strokes). `balk` is
needed on a counting stroke once the striker's last stroke left the object balls crotched
(`CaromState.balk_owed`); the engine refuses such a stroke without it, naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.carom import FAMILY_LAWS, RED, THREE_BALLS, CaromRules, CaromState, Count
from engine.billiards.core import CUSHION, StrokeEvent, TableFacts
from engine.billiards.table import CueGame, Stroke
from engine.core import LawRef, hoyle_law

PIN = "pin"
PIN_POINTS = 5

LAW_PIN = hoyle_law(15310, 15313, "Little corporal: caroms and forfeits as the three-ball "
                                  "game; the pin down scores five")
LAW_DIRECT = hoyle_law(15315, 15316, "Little corporal, rule 1: a ball before the pin; no "
                                     "playing at the pin direct")
LAW_GAME = hoyle_law(15327, 15328, "Little corporal, rule 4: one hundred points generally")


@dataclass(frozen=True, slots=True)
class LittleCorporalRules(CaromRules):
    """The game is generally 100 points."""

    points: int = 100


class LittleCorporalState(CaromState):
    """A game of the little corporal in progress: each stroke says whether the pin fell."""

    rules: LittleCorporalRules
    TABLE: ClassVar[TableFacts] = TableFacts(
        THREE_BALLS.balls, pins=(PIN,), needs=("path", "pins", "direct", "balk"),
        sometimes=("direct", "balk"), counts=True, pockets=())
    COUNTS: ClassVar[tuple[int, ...]] = (0, 1, PIN_POINTS, PIN_POINTS + 1)
    LAW_COUNT: ClassVar[LawRef] = LAW_PIN
    LAW_END: ClassVar[LawRef] = LAW_GAME

    def counted(self, stroke: Stroke) -> Count:
        facts = stroke.facts
        down = PIN in (facts.pins or ())
        if PIN in (facts.direct or ()):
            return Count(0, "the cue ball knocked the pin down before it struck a ball: "
                            "playing at the pin direct is not allowed", LAW_DIRECT, "foul")
        struck = facts.struck()
        carom = len(struck) >= 2
        points = int(carom) + PIN_POINTS * down
        if not points:
            return Count(0, "no carom and the pin standing", LAW_PIN)
        made = [f"a carom off the {struck[0]} and the {struck[1]}"] if carom else []
        made += ["the pin down (it is set up where it fell)"] if down else []
        return Count(points, " and ".join(made), LAW_PIN)

    def closings(self) -> list[StrokeEvent]:
        other = next(ball for ball in self.objects() if ball != RED)
        return [*self.carom_closings((RED, other), (RED, CUSHION), pins=()),
                StrokeEvent(path=(RED, other), pins=(PIN,)),
                StrokeEvent(path=(RED,), pins=(PIN,))]


LITTLE_CORPORAL = CueGame(
    "little-corporal", "The Little Corporal", LittleCorporalRules(), "carom-billiards",
    LittleCorporalState, (LAW_PIN, LAW_DIRECT, LAW_GAME, *FAMILY_LAWS))
