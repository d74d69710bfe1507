"""American Pyramid Pool (Hoyle 1940, lines 14364-14459) and Continuous Pool (14769-14833).

Pyramid pool: fifteen numbered balls and a white cue ball; each ball a player pockets
counts one, and two-handed the first to eight balls wins (lines 14367-14373). After the
opening stroke the striker calls the ball he plays for (rule 2); a called ball not pocketed
means no ball on that stroke counts: they are spotted and his hand is out, without penalty.
A forfeit is one ball to the table (rules 1, 3, 6-9); a player with no ball to give owes
it, and the first ball he scores afterwards goes back on the spot instead (lines
14391-14393): the debt shows in the snapshot. With more than two players the game ends when
the balls left cannot bring the lowest player level with the next lowest (rule 5), the
rule fifteen-ball pool states in points (`last_place_settled`).

Continuous pool is pyramid pool scored ball by ball to a number of points agreed on
(option `points`), the frames racked again as they are cleared; its penalties are points
deducted from the offender's score instead of balls forfeited to the table (14773-14784).

Readings where the book is silent (docs/billiards/american-pyramid-pool.md):
- a stroke after the opening with no call counts no ball, as a called ball missed does;
- an object ball forced off the table is spotted and does not count; balls pocketed on a
  stroke that forfeits do not count and are spotted;
- a stroke that breaks several laws forfeits one ball once (rule 3's last sentence);
- the ball a player forfeits is the last one credited to him; a player owing several balls
  pays them with the first balls he scores;
- continuous pool: the striker who clears a frame plays the opening stroke of the next,
  which is again an opening stroke (rule 1); the default game is 25 points; option
  `night = "quota"` plays a night that is not the last of a match, out to the end of the
  frame in which the quota is reached (14786-14791).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.core import (
    CUE,
    CUSHION,
    CallEvent,
    FoulEvent,
    OffEvent,
    PocketEvent,
    StrokeEvent,
    TableFacts,
    numbered,
)
from engine.billiards.standings import last_place_settled
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, Event, LawRef, Operation, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, whole

LAW_BALL = hoyle_law(14367, 14373, "American pyramid pool: each ball counts one; the first to "
                                   "eight balls wins two-handed")
LAW_OPENING = hoyle_law(14379, 14389, "Pyramid pool, rule 1: the opening stroke must drive "
                                      "two balls to a cushion or one to a pocket")
LAW_OWED = hoyle_law(14391, 14393, "Pyramid pool, rule 1: a forfeit by a player with no ball")
LAW_OPENING_COUNTS = hoyle_law(14393, 14395, "Pyramid pool, rule 1: balls pocketed on the "
                                             "opening stroke count uncalled")
LAW_OPENING_MATCH = hoyle_law(14397, 14402, "Pyramid pool, rule 1: a failed opening in a match")
LAW_CALL = hoyle_law(14404, 14413, "Pyramid pool, rule 2: the called ball")
LAW_CUSHION = hoyle_law(14415, 14420, "Pyramid pool, rule 3: pocket a ball or reach a cushion")
LAW_EXTRA = hoyle_law(14422, 14423, "Pyramid pool, rule 4: balls pocketed with the called ball")
LAW_MANY = hoyle_law(14425, 14435, "Pyramid pool, rule 5: more than two players")
LAW_FORFEITS = hoyle_law(14437, 14440, "Pyramid pool, rule 6: forfeits of one ball")
LAW_TOUCHED = hoyle_law(14442, 14444, "Pyramid pool, rule 7: the cue ball touched")
LAW_MOVING = hoyle_law(14446, 14448, "Pyramid pool, rule 8: a stroke while a ball moves")
LAW_TWICE = hoyle_law(14450, 14453, "Pyramid pool, rule 9: the cue ball struck twice")

LAW_POINTS = hoyle_law(14773, 14784, "Continuous pool: each ball one point; penalties deducted "
                                     "from the score")
LAW_NIGHT = hoyle_law(14786, 14791, "Continuous pool: a night's quota is played out to the end "
                                    "of the frame")
LAW_FINAL_NIGHT = hoyle_law(14793, 14796, "Continuous pool: on the final night play stops when "
                                          "the leader has won")

EIGHT = 8
OBJECT_BALLS = numbered(15)
#: The referee's fouls of rules 6-9, each with its law.
FOUL_LAWS: dict[str, LawRef] = {"double-hit": LAW_TWICE, "touched-ball": LAW_TOUCHED,
                                "moving-ball": LAW_MOVING}


@dataclass(frozen=True, slots=True)
class PyramidRules(HouseRules):
    """`opening`: "club" (a failed opening forfeits a ball and the next player plays) or
    "match" (the balls are set up again, a ball is forfeited, and the same player breaks)."""

    opening: str = "club"

    def known_options(self) -> tuple[Option, ...]:
        return (either("opening", "club", "match"),)


@dataclass(frozen=True, slots=True)
class ContinuousRules(PyramidRules):
    """Pyramid's `opening`, plus `points` (the game agreed on) and `night`: "final" stops
    as soon as a player has the points, "quota" plays out the frame in which he reaches them."""

    points: int = 25
    night: str = "final"

    def known_options(self) -> tuple[Option, ...]:
        return (either("opening", "club", "match"), whole("points", 1, 1000),
                either("night", "final", "quota"))


class PyramidState(CueState):
    """A game of American pyramid pool in progress."""

    rules: PyramidRules
    TABLE: ClassVar[TableFacts] = TableFacts((CUE, *OBJECT_BALLS), needs=("path", "driven"))
    FOULS: ClassVar[tuple[str, ...]] = tuple(FOUL_LAWS)
    CALLS: ClassVar[bool] = True

    def start(self) -> None:
        self.opened = False
        self.called: list[str] = []
        self.credited: dict[str, list[str]] = {name: [] for name in self.players}
        self.owed = {name: 0 for name in self.players}

    # -- calls ----------------------------------------------------------------------------

    def calls(self) -> list[CallEvent]:
        """A first call for each object ball (a further call is legal too)."""
        if not self.opened or self.called:
            return []
        return [CallEvent(ball) for ball in self.objects_on_table()]

    def check_call(self, event: CallEvent) -> None:
        if not self.opened:
            raise IllegalEventError("call: the opening stroke needs no call; every ball "
                                    "pocketed on it counts")
        if event.ball in self.called:
            raise IllegalEventError(f"call: ball {event.ball} is already called")

    def apply(self, event: Event) -> Operation:
        operation = super().apply(event)
        if isinstance(event, CallEvent):
            self.called.append(event.ball)
        return operation

    def legal_events(self) -> list[Event]:
        """The legal events a random table reports: each ball falling in one pocket (the
        called ball in any; the cue ball only before a call, the others only after one or
        on the opening stroke), no ball forced off but object balls, no referee's foul (all
        are accepted all the same).

        A random table offered every pocket for every ball, and a foul at each step, plays
        strokes so long that nearly each one fouls, and its games never end.
        """
        return [event for event in super().legal_events() if self.listing(event)]

    def listing(self, event: Event) -> bool:
        if isinstance(event, FoulEvent):
            return False
        if isinstance(event, OffEvent):
            return event.ball != CUE
        if isinstance(event, PocketEvent):
            if event.ball in self.called:
                return True
            if event.pocket != self.listed(event.ball):
                return False
            # After the opening an uncalled ball counts for nothing: a called stroke is listed.
            return (event.ball == CUE) != bool(self.called) or not self.opened
        return True

    def listed(self, ball: str) -> str:
        """The one pocket a random table drops `ball` into."""
        return self.TABLE.pockets[self.TABLE.balls.index(ball) % len(self.TABLE.pockets)]

    # -- the stroke -----------------------------------------------------------------------

    def objects_on_table(self) -> list[str]:
        return [ball for ball in self.on_table if ball != CUE]

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        called, self.called = self.called, []
        objects = [ball for ball in stroke.pocketed if ball != CUE]
        driven = stroke.facts.driven or 0
        for ball in stroke.off:
            if ball != CUE:
                self.spot(ball)
        opening = not self.opened
        if opening:
            if not objects and driven < 2:
                return self.failed_opening(striker)
            self.opened = True
        why = self.foul(stroke, objects, driven, opening)
        if why is not None:
            for ball in objects:
                self.spot(ball)
            text, law = why
            rulings = self.forfeit(striker, text, law)
            self.end_inning()
            return rulings + self.ended()
        if not objects:
            self.end_inning()
            return [Ruling("no-count", striker, 0, f"{striker} pockets no ball; the hand is "
                           "out.", LAW_CALL)]
        if not opening and not called:
            return self.no_count(striker, objects, "no ball was called")
        missed = [ball for ball in called if ball not in objects]
        if not opening and missed:
            return self.no_count(striker, objects, f"the called {', '.join(missed)} "
                                                   f"{'was' if len(missed) == 1 else 'were'} "
                                                   f"not pocketed")
        rulings = []
        for ball in objects:
            law = LAW_OPENING_COUNTS if opening else LAW_BALL if ball in called else LAW_EXTRA
            rulings.append(self.credit(striker, ball, law))
        return rulings + self.cleared() + self.ended()

    def foul(self, stroke: Stroke, objects: list[str], driven: int,
             opening: bool) -> tuple[str, LawRef] | None:
        """Why the stroke forfeits (rules 3 and 6-9), with the law; None if it does not."""
        if stroke.fouls:
            kind = stroke.fouls[0]
            return f"a foul ({', '.join(stroke.fouls)})", FOUL_LAWS[kind]
        if not stroke.facts.path or not stroke.facts.first:
            return "a miss", LAW_FORFEITS
        if (not opening and not objects and driven == 0
                and not stroke.facts.cushion_after_contact):
            also = ", and the cue ball pocketed" if CUE in stroke.pocketed else ""
            return f"no ball pocketed and none to a cushion{also}", LAW_CUSHION
        if CUE in stroke.pocketed:
            return "the cue ball pocketed", LAW_FORFEITS
        if CUE in stroke.off:
            return "the cue ball forced off the table", LAW_FORFEITS
        return None

    def no_count(self, striker: str, objects: list[str], why: str) -> list[Ruling]:
        for ball in objects:
            self.spot(ball)
        self.end_inning()
        return [Ruling("no-count", striker, 0, f"{why}: no ball counts, "
                       f"{', '.join(objects)} {'is' if len(objects) == 1 else 'are'} spotted "
                       f"and {striker}'s hand is out, without penalty.", LAW_CALL)]

    def failed_opening(self, striker: str) -> list[Ruling]:
        if self.rules.opening == "match":
            for ball in list(self.down):
                self.spot(ball)
            return self.forfeit(striker, "a failed opening; the balls are set up again and "
                                f"{striker} breaks again", LAW_OPENING_MATCH, "failed-opening")
        self.opened = True
        rulings = self.forfeit(striker, "a failed opening stroke", LAW_OPENING, "failed-opening")
        self.end_inning()
        return rulings + self.ended()

    # -- balls credited and forfeited -----------------------------------------------------

    def credit(self, striker: str, ball: str, law: LawRef) -> Ruling:
        """The ball counts for the striker, unless he owes one: then it goes to the table."""
        if self.owed[striker]:
            self.owed[striker] -= 1
            self.spot(ball)
            return Ruling("owed", striker, 0, f"{striker} pockets the {ball}-ball and pays the "
                          f"ball he owes: it is spotted.", LAW_OWED)
        self.credited[striker].append(ball)
        return self.score(striker, 1, "ball", f"{striker} pockets the {ball}-ball: one ball.",
                          law)

    def forfeit(self, striker: str, why: str, law: LawRef, kind: str = "foul") -> list[Ruling]:
        """One ball to the table: his last ball is spotted, or he owes one."""
        if not self.credited[striker]:
            self.owed[striker] += 1
            return [Ruling(kind, striker, 0, f"{striker} forfeits a ball for {why}; having "
                           f"none, he owes one to the table.", law),
                    Ruling("owed", striker, 0, f"{striker} owes {self.owed[striker]} "
                           f"{'ball' if self.owed[striker] == 1 else 'balls'}: the first he "
                           f"scores goes back on the spot.", LAW_OWED)]
        ball = self.credited[striker].pop()
        self.spot(ball)
        return [self.deduct(striker, 1, kind, f"{striker} forfeits a ball for {why}: the "
                            f"{ball}-ball is spotted.", law)]

    def cleared(self) -> list[Ruling]:
        """What happens when a frame is cleared (nothing in pyramid pool: the game is over)."""
        return []

    def standing(self, name: str) -> int:
        return self.scores[name] - self.owed[name]

    def ended(self) -> list[Ruling]:
        if self.over:
            return []
        if len(self.players) == 2:
            leader = max(self.players, key=lambda name: self.scores[name])
            if self.scores[leader] >= EIGHT:
                return [self.finish([leader], LAW_BALL, f"{leader} has eight balls")]
            return []
        standings = [self.standing(name) for name in self.players]
        if not last_place_settled(standings, len(self.objects_on_table())):
            return []
        best = max(standings)
        return [self.finish([n for n in self.players if self.standing(n) == best], LAW_MANY,
                            "the balls left cannot bring the lowest level with the next")]

    def closings(self) -> list[StrokeEvent]:
        target = next(iter(self.called or self.objects_on_table()), CUE)
        return [StrokeEvent(path=(target,), driven=0), StrokeEvent(path=(target,), driven=1),
                StrokeEvent(path=(target,), driven=2),
                StrokeEvent(path=(target, CUSHION), driven=0)]

    def details(self) -> JSON:
        return {"opened": self.opened, "called": list(self.called),
                "owed": dict(self.owed),
                "credited": {name: list(balls) for name, balls in self.credited.items()}}


class ContinuousState(PyramidState):
    """A game of continuous pool in progress: pyramid pool scored in points."""

    rules: ContinuousRules

    def start(self) -> None:
        super().start()
        self.frame = 1

    def credit(self, striker: str, ball: str, law: LawRef) -> Ruling:
        self.credited[striker].append(ball)
        return self.score(striker, 1, "ball", f"{striker} pockets the {ball}-ball: one point.",
                          LAW_POINTS if law in (LAW_BALL, LAW_EXTRA) else law)

    def forfeit(self, striker: str, why: str, law: LawRef, kind: str = "foul") -> list[Ruling]:
        return [self.deduct(striker, 1, kind, f"{striker} forfeits a point for {why} (a "
                            f"penalty is deducted, no ball goes to the table).", law)]

    def cleared(self) -> list[Ruling]:
        if self.objects_on_table():
            return []
        if max(self.scores.values()) >= self.rules.points:
            return []
        for ball in OBJECT_BALLS:
            self.spot(ball)
        self.opened = False
        self.frame += 1
        return [Ruling("rack", self.striker_name, None, f"Frame {self.frame - 1} is cleared: "
                       f"the balls are racked again and {self.striker_name} plays the opening "
                       f"stroke of frame {self.frame}.", LAW_POINTS)]

    def ended(self) -> list[Ruling]:
        if self.over:
            return []
        best = max(self.scores.values())
        if best < self.rules.points:
            return []
        winners = [name for name in self.players if self.scores[name] == best]
        if self.rules.night == "final":
            return [self.finish(winners, LAW_FINAL_NIGHT,
                                f"{' and '.join(winners)} reached {self.rules.points} points")]
        if self.objects_on_table():
            return []
        return [self.finish(winners, LAW_NIGHT, f"the night's quota of {self.rules.points} is "
                            f"reached and the frame is played out")]

    def details(self) -> JSON:
        return {**super().details(), "points": self.rules.points, "frame": self.frame}


AMERICAN_PYRAMID = CueGame(
    "american-pyramid-pool", "American Pyramid Pool", PyramidRules(), "pocket-billiards",
    PyramidState,
    (LAW_BALL, LAW_OPENING, LAW_OWED, LAW_OPENING_COUNTS, LAW_OPENING_MATCH, LAW_CALL,
     LAW_CUSHION, LAW_EXTRA, LAW_MANY, LAW_FORFEITS, LAW_TOUCHED, LAW_MOVING, LAW_TWICE),
    aliases=("pyramid-pool",))

CONTINUOUS = CueGame(
    "continuous-pool", "The Game of Continuous Pool for the Championship", ContinuousRules(),
    "pocket-billiards", ContinuousState,
    (LAW_OPENING, LAW_OPENING_COUNTS, LAW_OPENING_MATCH, LAW_CALL, LAW_CUSHION, LAW_FORFEITS,
     LAW_TOUCHED, LAW_MOVING, LAW_TWICE, LAW_POINTS, LAW_NIGHT, LAW_FINAL_NIGHT))
