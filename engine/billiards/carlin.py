"""Carlin, or Russian Pool (Hoyle 1940, lines 3335-3381): each ball has its pockets and value.

A white cue ball and five colours: the black counts 9 into either foot pocket, the blue 7
into either side pocket, the brown 3 and the yellow 2 into either head pocket, the red 6
into any pocket, whether the ball itself goes in (a winning hazard) or the cue ball goes
in off it (a losing hazard); every carom counts 2. Every ball pocketed is spotted again.
A ball into a wrong pocket, or the cue ball in off a ball into a pocket not its own,
forfeits that ball's value and ends the run (so a carom off the black with the black and
the cue ball both in pockets not at the foot forfeits 18). The game opens on the black.

Readings where the book is silent (docs/billiards/carlin.md):
- whether a forfeit comes off the striker's score or goes to his opponent: the option
  `forfeits`, "deducted" (default) or "opponent" (the next player in turn);
- a carom is counted for each ball the cue ball strikes after its first one;
- a stroke with any forfeit scores nothing else;
- the book sets no length of game: the option `game`, default 100 points, as the
  continuous-pool law leaves it (lines 14773-14779); the score is also shown in buttons,
  5 points to the button, to the nearest (line 3378, garbled: "the nearest to 5 counts 1");
- an opening stroke not on the black scores nothing and ends the turn; a coup or a miss
  scores nothing (the book names no penalty); a ball forced off is spotted and changes
  nothing else; the referee's fouls of the American laws make the stroke no count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import ClassVar

from engine.billiards.core import CORNER_POCKETS, CUE, PocketEvent, StrokeEvent, TableFacts
from engine.billiards.english_common import (
    AMERICAN_FOULS,
    DEDUCTED,
    LAW_GAME,
    OPPONENT,
    buttons,
    forfeit,
    forfeits_option,
)
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, Event, Ruling, hoyle_law
from engine.rules import HouseRules, Option, whole

LAW_BALLS = hoyle_law(3342, 3352, "Carlin: the balls, their spots; open on the black; every "
                                  "ball pocketed is respotted")
LAW_OPENING = hoyle_law(3348, 3349, "Carlin: the game opens on the black ball")
LAW_VALUES = hoyle_law(3354, 3361, "Carlin: each ball's pockets and value, in or off; "
                                   "caroms 2")
LAW_FAIL = hoyle_law(3363, 3364, "Carlin: when the striker fails to count, his opponent "
                                 "plays")
LAW_FORFEIT = hoyle_law(3364, 3367, "Carlin: the wrong pocket, or in off after the wrong "
                                    "ball, forfeits the ball's value and ends the run")
LAW_EIGHTEEN = hoyle_law(3367, 3377, "Carlin: a carom off the black with black and cue ball "
                                     "in pockets not at the foot forfeits 18")
LAW_BUTTONS = hoyle_law(3377, 3378, "Carlin: on a button string, 5 to the nearest counts 1")

BALLS = ("black", "blue", "red", "brown", "yellow")
FOOT = ("foot-left", "foot-right")
SIDE = ("side-left", "side-right")
HEAD = ("head-left", "head-right")
VALUE: Mapping[str, int] = {"black": 9, "blue": 7, "red": 6, "brown": 3, "yellow": 2}
PROPER: Mapping[str, tuple[str, ...]] = {
    "black": FOOT, "blue": SIDE, "red": (*CORNER_POCKETS, *SIDE), "brown": HEAD,
    "yellow": HEAD,
}
CAROM = 2
#: The one pocket a random table reports each ball's fall in (see `legal_events`).
LISTED: Mapping[str, str] = {CUE: "side-left", **{ball: PROPER[ball][0] for ball in BALLS}}


@dataclass(frozen=True, slots=True)
class CarlinRules(HouseRules):
    """`forfeits`: off the striker's score or to his opponent; `game`: the points that win."""

    forfeits: str = DEDUCTED
    game: int = 100

    def known_options(self) -> tuple[Option, ...]:
        return (forfeits_option(), whole("game", 1, 10_000))


class CarlinState(CueState):
    """A game of carlin in progress."""

    rules: CarlinRules
    TABLE: ClassVar[TableFacts] = TableFacts((CUE, *BALLS))
    FOULS: ClassVar[tuple[str, ...]] = tuple(AMERICAN_FOULS)
    RETURNED: ClassVar[tuple[str, ...]] = (CUE, *BALLS)

    def start(self) -> None:
        self.opened = False

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        struck = stroke.facts.struck()
        opening, self.opened = not self.opened, True
        if stroke.fouls:
            return self.no_count(Ruling("foul", striker, 0, f"A foul ({', '.join(stroke.fouls)})"
                                        f": no count.", AMERICAN_FOULS[stroke.fouls[0]]))
        if opening and (not struck or struck[0] != "black"):
            return self.no_count(Ruling("foul", striker, 0, "The opening stroke was not on "
                                        "the black: no count.", LAW_OPENING))
        if not struck:
            return self.no_count(Ruling("no-count", striker, 0, f"{striker} touches no ball "
                                        f"and fails to count.", LAW_FAIL))
        wrong = self.wrong_pockets(stroke, struck[0])
        if wrong:
            points = sum(VALUE[ball] for ball in wrong)
            law = LAW_EIGHTEEN if wrong.count("black") == 2 and len(struck) > 1 else LAW_FORFEIT
            ruling = forfeit(self, points, self.rules.forfeits == OPPONENT, "foul",
                             f"{' and '.join(f'the {b}' for b in wrong)} into a pocket not "
                             f"its own: the run ends.", law)
            return self.no_count(ruling)
        rulings = [self.score(striker, CAROM, "carom", f"{striker} caroms from the {a} to the "
                              f"{b}: {CAROM}.", LAW_VALUES) for a, b in pairwise(struck)]
        for ball, pocket in stroke.pockets:
            owner = struck[0] if ball == CUE else ball
            how = f"in off the {owner}" if ball == CUE else f"the {ball} in"
            rulings.append(self.score(striker, VALUE[owner], "hazard", f"{striker}: {how} "
                                      f"({pocket}), {VALUE[owner]}.", LAW_VALUES))
        if not rulings:
            return self.no_count(Ruling("no-count", striker, 0, f"{striker} fails to count.",
                                        LAW_FAIL))
        return rulings + self.ended()

    def wrong_pockets(self, stroke: Stroke, first: str) -> list[str]:
        """The balls whose value is forfeited: each in a pocket not its own (the cue ball
        by the ball it struck first)."""
        wrong: list[str] = []
        for ball, pocket in stroke.pockets:
            owner = first if ball == CUE else ball
            if pocket not in PROPER[owner]:
                wrong.append(owner)
        return wrong

    def no_count(self, ruling: Ruling) -> list[Ruling]:
        self.end_inning()
        return [ruling, *self.ended()]

    def ended(self) -> list[Ruling]:
        winners = [name for name in self.players if self.scores[name] >= self.rules.game]
        if not winners or self.over:
            return []
        return [self.finish(winners, LAW_GAME, f"{self.rules.game} points reached")]

    def legal_events(self) -> list[Event]:
        """Every legal event, but each ball's fall listed in one pocket only.

        Any pocket is accepted. A random table offered all six pockets for every ball
        forfeits on nearly every stroke, and its games never end.
        """
        return [event for event in super().legal_events()
                if not isinstance(event, PocketEvent) or event.pocket == LISTED[event.ball]]

    def closings(self) -> list[StrokeEvent]:
        return [StrokeEvent(path=()), StrokeEvent(path=("black",)),
                StrokeEvent(path=("red", "blue")), StrokeEvent(path=("black", "red"))]

    def details(self) -> JSON:
        return {"buttons": {name: buttons(self.scores[name]) for name in self.players},
                "opened": self.opened, "game": self.rules.game}


CARLIN = CueGame(
    "carlin", "Carlin (Russian Pool)", CarlinRules(), "pocket-billiards", CarlinState,
    (LAW_BALLS, LAW_OPENING, LAW_VALUES, LAW_FAIL, LAW_FORFEIT, LAW_EIGHTEEN, LAW_BUTTONS,
     LAW_GAME, *AMERICAN_FOULS.values()))
