"""High-Low-Jack Game, pool (Hoyle 1940, lines 15263-15298): four points a frame, seven up.

Fifteen-ball pool's balls: the 15-ball is High, the 1-ball Low, the 9-ball Jack, and the
highest aggregate of the numbers a player pockets in the frame is Game; each is a point, and
seven points generally make the game (15273-15275). Near the end the first counting balls
holed count out first (15277-15279). When every player has one to go, a single ball at the
foot of the table must be banked into a pocket, and whoever does it wins (15286-15292). The
rules of fifteen-ball pool govern the rest (15294-15296): the opening stroke, the strokes
that must pocket a ball or reach a cushion, forfeits of three, three in succession losing.

Readings where the book is silent (docs/billiards/high-low-jack-pool.md):
- each of High, Low, Jack and Game is one point (the catalogue's reading), scored as the
  ball is holed; Game is scored when the frame's last ball is down, and nobody scores it
  when the best aggregates are level;
- a forfeit of three comes off the offender's aggregate, which decides Game; three forfeits
  in succession lose him the game, the best of the others (in points) winning it;
- balls pocketed on a stroke that forfeits do not count and are spotted; an object ball
  forced off the table is spotted;
- a new frame is broken by the next player in turn; the ball for players one to go is the
  1-ball, a bank is an object ball driven to a cushion (`driven` at least 1) before it
  drops; a stroke at it that fails or fouls passes the turn and costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.core import CUE, CUSHION, StrokeEvent, TableFacts, numbered
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, LawRef, Ruling, hoyle_law
from engine.rules import HouseRules, Option, whole

LAW_POINTS = hoyle_law(15273, 15275, "High-low-jack: High, Low, Jack and Game; seven points "
                                     "a game")
LAW_COUNT_OUT = hoyle_law(15277, 15279, "High-low-jack: the first balls holed count out first")
LAW_RACK = hoyle_law(15281, 15284, "High-low-jack: the pyramid, the counting balls in the "
                                   "centre")
LAW_ONE_TO_GO = hoyle_law(15286, 15292, "High-low-jack: each one to go, a ball banked into a "
                                        "pocket wins")
LAW_FIFTEEN_BALL = hoyle_law(15294, 15296, "High-low-jack: the rules of fifteen-ball pool "
                                           "govern otherwise")

COUNTERS = {"15": "High", "1": "Low", "9": "Jack"}
FORFEIT = 3
FORFEITS_THAT_LOSE = 3
#: The ball set at the foot of the table when every player has one to go.
DECIDER = "1"
#: Fifteen-ball's fouls that only a referee sees.
REFEREE_FOULS = ("double-hit", "moving-ball", "no-foot", "out-of-turn")


@dataclass(frozen=True, slots=True)
class HighLowJackRules(HouseRules):
    """`points`: the points that make the game (seven, the book's usual number)."""

    points: int = 7

    def known_options(self) -> tuple[Option, ...]:
        return (whole("points", 2, 21),)


class HighLowJackState(CueState):
    """A game of high-low-jack pool in progress."""

    rules: HighLowJackRules
    TABLE: ClassVar[TableFacts] = TableFacts((CUE, *numbered(15)), needs=("path", "driven"))
    FOULS: ClassVar[tuple[str, ...]] = REFEREE_FOULS

    def start(self) -> None:
        self.frame = 1
        self.opened = False
        self.decider = False
        self.aggregate = {name: 0 for name in self.players}
        self.forfeits_in_row = {name: 0 for name in self.players}

    def objects_on_table(self) -> list[str]:
        return [ball for ball in self.on_table if ball != CUE]

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        objects = [ball for ball in stroke.pocketed if ball != CUE]
        for ball in stroke.off:
            if ball != CUE:
                self.spot(ball)
        if self.decider:
            return self.at_the_decider(striker, stroke, objects)
        driven = stroke.facts.driven or 0
        if not self.opened:
            self.opened = True
            if not objects and driven < 2:
                return self.forfeit(striker, objects, "a failed opening stroke",
                                    "failed-opening")
        why = self.fault(stroke, objects, driven)
        if why is not None:
            return self.forfeit(striker, objects, why)
        self.forfeits_in_row[striker] = 0
        if not objects:
            self.end_inning()
            return [Ruling("no-count", striker, 0, f"{striker} pockets nothing; the next "
                           "player plays.", LAW_FIFTEEN_BALL)]
        rulings: list[Ruling] = []
        for ball in objects:
            self.aggregate[striker] += int(ball)
            rulings.append(Ruling("ball", striker, 0, f"{striker} pockets the {ball}-ball: "
                                  f"{ball} to his aggregate, "
                                  f"{self.aggregate[striker]}.", LAW_POINTS))
            if ball in COUNTERS:
                rulings += self.point(striker, COUNTERS[ball], LAW_COUNT_OUT)
                if self.over:
                    return rulings
        if not self.objects_on_table():
            rulings += self.frame_over()
        return rulings

    def fault(self, stroke: Stroke, objects: list[str], driven: int) -> str | None:
        """Why the stroke forfeits, by fifteen-ball pool's rules 2 and 4; None if it does not."""
        if CUE in stroke.pocketed:
            return "the cue ball pocketed"
        if CUE in stroke.off:
            return "the cue ball forced off the table"
        if stroke.fouls:
            return f"a foul ({', '.join(stroke.fouls)})"
        if not stroke.facts.first:
            return "a miss"
        if not objects and driven == 0 and not stroke.facts.cushion_after_contact:
            return "no ball pocketed and none to a cushion"
        return None

    def forfeit(self, striker: str, objects: list[str], why: str,
                kind: str = "foul") -> list[Ruling]:
        for ball in objects:
            self.spot(ball)
        self.aggregate[striker] -= FORFEIT
        rulings = [Ruling(kind, striker, 0, f"{striker} forfeits {FORFEIT} from his aggregate "
                          f"for {why}.", LAW_FIFTEEN_BALL)]
        self.forfeits_in_row[striker] += 1
        self.end_inning()
        if self.forfeits_in_row[striker] >= FORFEITS_THAT_LOSE:
            others = [name for name in self.players if name != striker]
            best = max(self.scores[name] for name in others)
            rulings.append(self.finish([n for n in others if self.scores[n] == best],
                                       LAW_FIFTEEN_BALL, f"three forfeits in succession lose "
                                       f"{striker} the game"))
        return rulings

    def point(self, player: str, what: str, law: LawRef) -> list[Ruling]:
        """A point for High, Low, Jack or Game; the game is won on reaching the points."""
        self.scores[player] += 1
        if player == self.striker_name:
            self.run += 1
            self.high_run[player] = max(self.high_run[player], self.run)
        ruling = Ruling(what.lower(), player, 1, f"{what}: a point to {player}.", law)
        if self.scores[player] < self.rules.points:
            return [ruling]
        return [ruling, self.finish([player], law, f"{player} counts out with {what}")]

    def frame_over(self) -> list[Ruling]:
        best = max(self.aggregate.values())
        leaders = [name for name in self.players if self.aggregate[name] == best]
        rulings: list[Ruling] = []
        if len(leaders) == 1:
            rulings += self.point(leaders[0], "Game", LAW_POINTS)
            if self.over:
                return rulings
        else:
            rulings.append(Ruling("no-count", None, 0, f"The aggregates are level at {best}: "
                                  "nobody scores Game.", LAW_POINTS))
        self.end_inning()
        self.frame += 1
        self.aggregate = {name: 0 for name in self.players}
        if all(self.scores[name] == self.rules.points - 1 for name in self.players):
            self.decider = True
            self.spot(DECIDER)
            rulings.append(Ruling("decider", self.striker_name, None, "Every player has one "
                                  f"to go: the {DECIDER}-ball is set at the foot, to be banked "
                                  f"into a pocket; {self.striker_name} plays.", LAW_ONE_TO_GO))
            return rulings
        for ball in numbered(15):
            self.spot(ball)
        self.opened = False
        rulings.append(Ruling("rack", self.striker_name, None, f"Frame {self.frame}: the "
                              f"pyramid is set up again and {self.striker_name} breaks.",
                              LAW_RACK))
        return rulings

    def at_the_decider(self, striker: str, stroke: Stroke, objects: list[str]) -> list[Ruling]:
        banked = (stroke.facts.driven or 0) >= 1
        clean = CUE not in stroke.pocketed and CUE not in stroke.off and not stroke.fouls
        if objects and banked and clean:
            return self.point(striker, "Game", LAW_ONE_TO_GO)
        self.spot(DECIDER)
        self.end_inning()
        why = ("a foul" if not clean else "not banked" if objects else "not pocketed")
        return [Ruling("no-count", striker, 0, f"The {DECIDER}-ball is {why}: it is set again "
                       "and the next player plays.", LAW_ONE_TO_GO)]

    def closings(self) -> list[StrokeEvent]:
        target = next(iter(self.objects_on_table()), CUE)
        return [StrokeEvent(path=(target,), driven=0), StrokeEvent(path=(target,), driven=1),
                StrokeEvent(path=(target,), driven=2),
                StrokeEvent(path=(target, CUSHION), driven=0)]

    def details(self) -> JSON:
        return {"frame": self.frame, "opened": self.opened, "decider": self.decider,
                "aggregate": dict(self.aggregate), "points": self.rules.points,
                "forfeits_in_row": dict(self.forfeits_in_row)}


HIGH_LOW_JACK = CueGame(
    "high-low-jack-pool", "High-Low-Jack Game (pool)", HighLowJackRules(), "pocket-billiards",
    HighLowJackState, (LAW_POINTS, LAW_COUNT_OUT, LAW_RACK, LAW_ONE_TO_GO, LAW_FIFTEEN_BALL))
