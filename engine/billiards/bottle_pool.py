"""Bottle Pool (Hoyle 1940, lines 14460-14505): thirty-one exactly, with the pool-bottle.

The white cue ball, the 1 and 2 balls and a pool-bottle standing on its neck at the centre
of the table. A carom on the two object balls counts 1, the 1-ball pocketed 1, the 2-ball
pocketed 2, a carom from a ball that upsets the bottle 5; a carom from a ball that seats
the bottle on its base wins the game outright. The game is 31: a player who makes more is
burst and starts his string anew with the excess. If an object ball touches the bottle and
the cue ball also knocks it over or seats it, the stroke does not count; the bottle forced
off the table or into a pocket forfeits one point and the stroke.

Readings where the book is silent (docs/billiards/bottle-pool.md):
- a player plays on while his strokes count and his inning ends on a stroke that counts
  nothing, as in ordinary pool (line 14484), the book saying "the next player plays" only
  after a burst or the bottle forced off;
- the bottle upset or seated by the cue ball before it struck a ball, or by an object
  ball alone, counts nothing (only "a carrom on the bottle from either of the object-balls"
  scores, lines 14487-14491);
- the game ends when a player makes exactly 31 (or seats the bottle); he wins, and the
  lowest of the others is named the loser (lines 14480-14481);
- the book gives no penalty for pocketing the cue ball: the stroke's counts stand;
- a referee's foul (the American Billiard Laws) makes no count and ends the inning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.core import CUE, StrokeEvent, TableFacts
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules

LAW_SETUP = hoyle_law(14463, 14469, "Bottle pool: the white, the 1 and 2 balls, and the "
                                    "bottle on its neck at the centre")
LAW_SCORES = hoyle_law(14471, 14474, "Bottle pool: a carom 1, the 1-ball 1, the 2-ball 2, a "
                                     "carom upsetting the bottle 5")
LAW_GAME = hoyle_law(14474, 14481, "Bottle pool: the game is 31; the lowest at the finish "
                                   "loses")
LAW_ROTATION = hoyle_law(14483, 14489, "Bottle pool: play in rotation; an object ball must "
                                       "be struck before the bottle counts")
LAW_STOOD = hoyle_law(14489, 14492, "Bottle pool: a carom that seats the bottle on its base "
                                    "wins the game")
LAW_NO_COUNT = hoyle_law(14494, 14497, "Bottle pool: an object ball touches the bottle and "
                                       "the cue ball moves it: no count")
LAW_BOTTLE_OFF = hoyle_law(14497, 14500, "Bottle pool: the bottle forced off the table or "
                                         "into a pocket forfeits one point")
LAW_BURST = hoyle_law(14502, 14505, "Bottle pool: over 31 is a burst; the excess starts a "
                                    "new string")
LAW_FOUL = hoyle_law(2614, 2616, "American Billiard Laws: on a foul no count can be made")

BALLS = (CUE, "1", "2")
GAME = 31
CAROM, BOTTLE_UPSET, BOTTLE_OFF = 1, 5, 1
FOULS = ("push", "double-hit", "no-foot", "touched-ball", "moving-ball")


@dataclass(frozen=True, slots=True)
class BottleRules(HouseRules):
    """Bottle pool has no house options: the book settles its counts and its forfeit."""


class BottlePoolState(CueState):
    """A game of bottle pool in progress."""

    TABLE: ClassVar[TableFacts] = TableFacts(BALLS, needs=("path", "bottle", "bottle_by"),
                                             sometimes=("bottle_by",))
    FOULS: ClassVar[tuple[str, ...]] = FOULS
    RETURNED: ClassVar[tuple[str, ...]] = BALLS

    def check_stroke(self, event: StrokeEvent) -> None:
        if event.bottle in ("upset", "stood") and event.bottle_by is None:
            raise IllegalEventError("stroke: bottle pool needs the fact 'bottle_by' when the "
                                    "bottle is upset or stood (carom, cue, ball or both)")
        if CUE in event.struck():
            raise IllegalEventError("stroke: the cue ball cannot be in its own path")

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        facts = stroke.facts
        if stroke.fouls:
            self.end_inning()
            return [Ruling("foul", striker, 0, f"A foul ({', '.join(stroke.fouls)}): "
                           f"{striker}'s stroke counts nothing.", LAW_FOUL)]
        if facts.bottle == "off":
            rulings = [self.deduct(striker, BOTTLE_OFF, "foul", f"{striker} forced the bottle "
                                   f"off: it is spotted, and he forfeits {BOTTLE_OFF} and "
                                   f"his shot.", LAW_BOTTLE_OFF)]
            self.end_inning()
            return rulings
        moved = facts.bottle in ("upset", "stood")
        if moved and facts.bottle_by == "both":
            self.end_inning()
            return [Ruling("no-count", striker, 0, "An object ball touched the bottle and "
                           "the cue ball moved it: the stroke does not count.", LAW_NO_COUNT)]
        if facts.bottle == "stood" and facts.bottle_by == "carom":
            return [self.finish([striker], LAW_STOOD, f"{striker} seats the bottle on its "
                                f"base from a carom{self.loser_text(striker)}")]
        rulings = self.counts(striker, stroke)
        if not rulings:
            self.end_inning()
            return [Ruling("no-count", striker, 0, f"{striker} counts nothing; the next "
                           f"player plays.", LAW_ROTATION)]
        total = self.scores[striker]
        if total == GAME:
            rulings.append(self.finish([striker], LAW_GAME, f"{striker} makes 31"
                                       f"{self.loser_text(striker)}"))
        elif total > GAME:
            rulings.append(self.deduct(striker, GAME, "burst", f"{striker} is burst at "
                                       f"{total}: {total - GAME} starts his new string, and "
                                       f"the next player plays.", LAW_BURST))
            self.end_inning()
        return rulings

    def counts(self, striker: str, stroke: Stroke) -> list[Ruling]:
        facts = stroke.facts
        rulings = []
        if {"1", "2"} <= set(facts.struck()):
            rulings.append(self.score(striker, CAROM, "carom", f"{striker} caroms on the "
                                      f"two balls: {CAROM}.", LAW_SCORES))
        for ball in ("1", "2"):
            if ball in stroke.pocketed:
                rulings.append(self.score(striker, int(ball), "ball", f"{striker} pockets "
                                          f"the {ball}-ball: {ball}.", LAW_SCORES))
        if facts.bottle == "upset" and facts.bottle_by == "carom":
            rulings.append(self.score(striker, BOTTLE_UPSET, "bottle", f"{striker} upsets "
                                      f"the bottle from a ball: {BOTTLE_UPSET}.", LAW_SCORES))
        return rulings

    def loser_text(self, winner: str) -> str:
        others = [name for name in self.players if name != winner]
        low = min(self.scores[name] for name in others)
        losers = [name for name in others if self.scores[name] == low]
        return f"; {' and '.join(losers)}, lowest with {low}, lose{'s' * (len(losers) == 1)}"

    def closings(self) -> list[StrokeEvent]:
        return [StrokeEvent(path=()), StrokeEvent(path=("1", "2"), bottle="none"),
                StrokeEvent(path=("2",), bottle="upset", bottle_by="carom"),
                StrokeEvent(path=("1",), bottle="stood", bottle_by="carom"),
                StrokeEvent(path=("1",), bottle="off"),
                StrokeEvent(path=("2",), bottle="upset", bottle_by="both")]

    def details(self) -> JSON:
        return {"game": GAME}


BOTTLE_POOL = CueGame(
    "bottle-pool", "Bottle Pool", BottleRules(), "pocket-billiards", BottlePoolState,
    (LAW_SETUP, LAW_SCORES, LAW_GAME, LAW_ROTATION, LAW_STOOD, LAW_NO_COUNT, LAW_BOTTLE_OFF,
     LAW_BURST, LAW_FOUL))
