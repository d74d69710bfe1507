"""English Billiards (Hoyle 1940, lines 3220-3334): cannons and hazards on a pocket table.

Two players, each with his own white ("white" for the first player, "spot-white" for
the second), and the red; three or four take turns, each playing the white his
predecessor did not. A cannon (the cue ball strikes both object balls) counts 2; a
winning hazard (an object ball pocketed) or a losing hazard (the cue ball pocketed off a
ball) counts 2 off the white and 3 off the red, the losing hazard going by the ball the
cue ball struck first. A coup (the cue ball pocketed or off without touching a ball) gives
the opponent 3, a miss 1, an object ball forced off 2; a ball forced off or a push makes
the stroke foul. The striker plays on while he scores.

Readings where the book is silent (docs/billiards/english-billiards.md):
- the book sets no length of game: the option `game` (default 100) is the points agreed,
  as the continuous-pool law leaves it (lines 14773-14779);
- a foul stroke (a ball forced off, a push, a referee's foul) scores nothing and ends the
  inning; the incoming player's choice to play as the balls lie or have the red spotted is
  a matter of position, and his choice to make the offender play again is not kept;
- one cannon is counted per stroke, however often the cue ball goes from ball to ball;
- the red is always put back on its own spot, which the referee keeps clear; it leaves
  its spot once the cue ball strikes it; after two winning hazards in succession off the
  red on its spot (in one inning) it goes to the centre spot, and a hazard off the centre
  spot starts the count again;
- "frozen" balls are re-placed by the referee; that changes no score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.core import StrokeEvent, TableFacts
from engine.billiards.english_common import AMERICAN_FOULS, LAW_GAME, RED
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, whole

LAW_IN_HAND = hoyle_law(3229, 3235, "English billiards: the ball in hand is played from the "
                                    "D; the non-striker's stays off till his turn")
LAW_STROKES = hoyle_law(3273, 3278, "English billiards: cannons, winning and losing hazards")
LAW_SPOTS = hoyle_law(3280, 3292, "English billiards: the red respotted, the whites in hand")
LAW_OFF = hoyle_law(3294, 3297, "English billiards: a ball forced off makes the stroke foul")
LAW_VALUES = hoyle_law(3299, 3300, "English billiards: cannons and white hazards 2, red "
                                   "hazards 3")
LAW_LOSING = hoyle_law(3301, 3308, "English billiards: the losing hazard goes by the ball "
                                   "struck first")
LAW_PUSH = hoyle_law(3310, 3311, "English billiards: push shots are barred")
LAW_CENTRE = hoyle_law(3312, 3314, "English billiards: two winning hazards off the red on "
                                   "its spot send it to the centre spot")
LAW_COUP = hoyle_law(3324, 3327, "English billiards: a coup costs three, to the adversary")
LAW_FORCED_OFF = hoyle_law(3327, 3328, "English billiards: an object ball forced off gives "
                                       "the non-striker two")
LAW_MISS = hoyle_law(3328, 3329, "English billiards: a miss gives the non-striker one")

WHITES = ("white", "spot-white")
CANNON = 2
WHITE_HAZARD = 2
RED_HAZARD = 3
COUP = 3
FORCED_OFF = 2
MISS = 1
FOULS = {**AMERICAN_FOULS, "push": LAW_PUSH}


@dataclass(frozen=True, slots=True)
class EnglishBilliardsRules(HouseRules):
    """`game`: the points that win, as the players agree (the book sets none)."""

    game: int = 100

    def known_options(self) -> tuple[Option, ...]:
        return (whole("game", 1, 10_000),)


class EnglishBilliardsState(CueState):
    """A game of English billiards in progress."""

    rules: EnglishBilliardsRules
    TABLE: ClassVar[TableFacts] = TableFacts((*WHITES, RED))
    FOULS: ClassVar[tuple[str, ...]] = tuple(FOULS)
    RETURNED: ClassVar[tuple[str, ...]] = ()

    def start(self) -> None:
        self.red_place = "spot"
        self.spot_hazards = 0
        self.cue_ball = WHITES[0]

    def check_stroke(self, event: StrokeEvent) -> None:
        began = {*self.on_table, *self.stroke.pocketed, *self.stroke.off}
        for ball in event.struck():
            if ball == self.cue_ball:
                raise IllegalEventError(f"stroke: the path is the contacts of "
                                        f"{self.striker_name}'s cue ball, the {ball}; it "
                                        f"cannot strike itself")
            if ball not in began:
                raise IllegalEventError(f"stroke: the path names the {ball}, which is in "
                                        f"hand, not on the table")

    def rule(self, stroke: Stroke) -> list[Ruling]:
        cue = self.cue_ball
        struck = stroke.facts.struck()
        objects_off = [ball for ball in stroke.off if ball != cue]
        if not struck:
            rulings = [self.coup_or_miss(cue, stroke), *self.red_spot(stroke, False)]
            self.end_inning()
        elif stroke.off or stroke.fouls:
            rulings = [*self.foul(stroke, objects_off), *self.red_spot(stroke, False)]
            self.end_inning()
        else:
            rulings = self.count(cue, stroke, struck)
        self.spot(RED)
        self.spot(self.cue_ball)
        return rulings + self.ended()

    def coup_or_miss(self, cue: str, stroke: Stroke) -> Ruling:
        opponent = self.opponent
        if cue in stroke.pocketed or cue in stroke.off:
            return self.score(opponent, COUP, "foul", f"A coup: {self.striker_name}'s ball "
                              f"left the table without touching a ball; {opponent} scores "
                              f"{COUP}.", LAW_COUP)
        return self.score(opponent, MISS, "miss", f"{self.striker_name} misses; {opponent} "
                          f"scores {MISS}.", LAW_MISS)

    def foul(self, stroke: Stroke, objects_off: list[str]) -> list[Ruling]:
        striker = self.striker_name
        if stroke.fouls:
            kind = stroke.fouls[0]
            rulings = [Ruling("foul", striker, 0, f"A foul ({', '.join(stroke.fouls)}): "
                              f"{striker} scores nothing and his inning ends.", FOULS[kind])]
        else:
            rulings = [Ruling("foul", striker, 0, f"The {', '.join(stroke.off)} forced off "
                              f"the table: the stroke is foul; {striker} scores nothing.",
                              LAW_OFF)]
        if objects_off:
            rulings.append(self.score(self.opponent, FORCED_OFF, "foul",
                                      f"The {', '.join(objects_off)} forced off the table: "
                                      f"{self.opponent} scores {FORCED_OFF}.", LAW_FORCED_OFF))
        return rulings

    def count(self, cue: str, stroke: Stroke, struck: list[str]) -> list[Ruling]:
        striker = self.striker_name
        rulings: list[Ruling] = []
        if len(struck) >= 2:
            rulings.append(self.score(striker, CANNON, "cannon", f"{striker} makes a cannon: "
                                      f"{CANNON}.", LAW_VALUES))
        for ball in stroke.pocketed:
            if ball == cue:
                value = RED_HAZARD if struck[0] == RED else WHITE_HAZARD
                rulings.append(self.score(striker, value, "hazard", f"{striker} goes in off "
                                          f"the {struck[0]}, a losing hazard: {value}.",
                                          LAW_LOSING))
            else:
                value = RED_HAZARD if ball == RED else WHITE_HAZARD
                rulings.append(self.score(striker, value, "hazard", f"{striker} pockets the "
                                          f"{ball}, a winning hazard: {value}.", LAW_VALUES))
        rulings += self.red_spot(stroke, RED in stroke.pocketed)
        if not rulings:
            rulings.append(Ruling("no-count", striker, 0, f"{striker} does not score; "
                                  f"{self.opponent} plays.", LAW_STROKES))
            self.end_inning()
        return rulings

    def red_spot(self, stroke: Stroke, hazard: bool) -> list[Ruling]:
        """Where the red is now; two winning hazards in succession off it on its spot send it
        to the centre spot (`hazard`: this stroke is one, fairly made)."""
        if not hazard:
            self.spot_hazards = 0
            if RED in stroke.pocketed or RED in stroke.off:
                self.red_place = "spot"
            elif RED in stroke.facts.struck():
                self.red_place = "table"
            return []
        self.spot_hazards = self.spot_hazards + 1 if self.red_place == "spot" else 0
        if self.spot_hazards < 2:
            self.red_place = "spot"
            return []
        self.spot_hazards = 0
        self.red_place = "centre"
        return [Ruling("spot", self.striker_name, 0, "Two winning hazards in succession off "
                       "the red on its spot: the red goes to the centre spot.", LAW_CENTRE)]

    def end_inning(self) -> None:
        self.spot_hazards = 0
        self.cue_ball = WHITES[1 - WHITES.index(self.cue_ball)]
        super().end_inning()

    def ended(self) -> list[Ruling]:
        winners = [name for name in self.players if self.scores[name] >= self.rules.game]
        if not winners or self.over:
            return []
        return [self.finish(winners, LAW_GAME, f"{self.rules.game} points reached")]

    def closings(self) -> list[StrokeEvent]:
        cue = self.cue_ball
        others = [ball for ball in (*WHITES, RED) if ball != cue
                  and (ball in self.on_table or ball in self.stroke.pocketed
                       or ball in self.stroke.off)]
        return [StrokeEvent(path=()), *(StrokeEvent(path=(ball,)) for ball in others),
                *([StrokeEvent(path=tuple(others))] if len(others) == 2 else [])]

    def details(self) -> JSON:
        return {"cue_ball": self.cue_ball, "red": self.red_place, "game": self.rules.game}


ENGLISH_BILLIARDS = CueGame(
    "english-billiards", "English Billiards", EnglishBilliardsRules(), "pocket-billiards",
    EnglishBilliardsState,
    (LAW_IN_HAND, LAW_STROKES, LAW_SPOTS, LAW_OFF, LAW_VALUES, LAW_LOSING, LAW_PUSH,
     LAW_CENTRE, LAW_COUP, LAW_FORCED_OFF, LAW_MISS, LAW_GAME, *AMERICAN_FOULS.values()),
    seats=(2, 4))
