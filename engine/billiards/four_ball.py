"""The four-ball carom games: the old American four-ball game and the man-of-war game.

Billiards, the American four-ball game (Hoyle 1940, lines 2443-2472): two reds, light and
dark, and a white for each player. Played without pockets, each shot counts one and the
game is 34 points (2454-2458). Man-of-war (2586-2603): three players, each with his own
white, and one red; the first striker plays from anywhere behind the balk line.

Readings (docs/billiards/<id>.md), the book saying no more of either game:
- a shot is a carom: the cue ball strikes two of the other balls (any two; more count no
  more, "counting each shot as one"); the old count of three and two off the red and the
  white, with pockets, to 100 (2451-2453), is not played;
- a miss counts one for the next player in turn, and fouls, balls off the table and the
  discount game are as in the three-ball game (2806-2963), the general laws of billiards;
- at man-of-war the point for a miss goes to the next player in turn (option `miss =
  "each"`: one to each of the others); seats one, two and three play `white-1`, `white-2`
  and `white-3`; the opening stroke may strike any ball first;
- the man-of-war game is to 34 points, as the carom game (2454-2458).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.carom import FAMILY_LAWS, RED, SPOT_WHITE, WHITE, CaromRules, CaromState
from engine.billiards.core import CUSHION, StrokeEvent, TableFacts
from engine.billiards.table import CueGame
from engine.core import LawRef, Ruling, hoyle_law
from engine.rules import Option, either

LIGHT_RED = "light-red"
DARK_RED = "dark-red"
MEN_OF_WAR = ("white-1", "white-2", "white-3")

LAW_SHOT = hoyle_law(2454, 2458, "Four-ball game: each shot counts one; the game is 34 "
                                 "points")
LAW_MAN_OF_WAR = hoyle_law(2589, 2601, "Man-of-war: three players, each with his own white, "
                                       "and one red")


class FourBallState(CaromState):
    """A game of American four-ball billiards (the carom game) in progress."""

    TABLE: ClassVar[TableFacts] = TableFacts((WHITE, SPOT_WHITE, LIGHT_RED, DARK_RED),
                                             counts=True, pockets=())
    RETURNED: ClassVar[tuple[str, ...]] = TABLE.balls
    RED_FIRST: ClassVar[bool] = False
    KEPT_IN: ClassVar[int | None] = None
    LAW_COUNT: ClassVar[LawRef] = LAW_SHOT
    LAW_END: ClassVar[LawRef] = LAW_SHOT

    def closings(self) -> list[StrokeEvent]:
        objects = self.objects()
        return self.carom_closings(tuple(objects[:2]), (objects[2], CUSHION, objects[0]),
                                   (objects[1],))


@dataclass(frozen=True, slots=True)
class ManOfWarRules(CaromRules):
    """`miss`: a miss counts one for the "next" player in turn, or one for "each" other."""

    miss: str = "next"

    def known_options(self) -> tuple[Option, ...]:
        return (*CaromRules.known_options(self), either("miss", "next", "each"))


class ManOfWarState(CaromState):
    """A game of man-of-war in progress: three players, three whites and a red."""

    rules: ManOfWarRules
    TABLE: ClassVar[TableFacts] = TableFacts((*MEN_OF_WAR, RED), counts=True, pockets=())
    RETURNED: ClassVar[tuple[str, ...]] = TABLE.balls
    CUE_BALLS: ClassVar[tuple[str, ...]] = MEN_OF_WAR
    RED_FIRST: ClassVar[bool] = False
    KEPT_IN: ClassVar[int | None] = None
    LAW_COUNT: ClassVar[LawRef] = LAW_MAN_OF_WAR

    def missed(self, striker: str, kind: str = "miss", why: str = "misses every ball",
               law: LawRef | None = None) -> list[Ruling]:
        if self.rules.miss == "next":
            return super().missed(striker, kind, why, law)
        return [self.score(name, self.MISS_POINTS, kind, f"{striker} {why}: "
                           f"{self.MISS_POINTS} for {name}.", law or self.LAW_MISS)
                for name in self.players if name != striker]

    def closings(self) -> list[StrokeEvent]:
        objects = self.objects()
        return self.carom_closings((RED, objects[0]), (objects[1], CUSHION, objects[0]),
                                   (RED,))


FOUR_BALL = CueGame(
    "american-four-ball-billiards", "Billiards (the American four-ball game)", CaromRules(),
    "carom-billiards", FourBallState, (LAW_SHOT, *FAMILY_LAWS),
    aliases=("four-ball",))

MAN_OF_WAR = CueGame(
    "man-of-war", "Man-of-War Game", ManOfWarRules(), "carom-billiards", ManOfWarState,
    (LAW_MAN_OF_WAR, *FAMILY_LAWS), seats=(3, 3))
