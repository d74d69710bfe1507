"""Cow-Boy Pool (Hoyle 1940, lines 14834-14960): 101 by the "cow-boy method", the Boston rules.

The white cue ball and three object balls, the 1, 3 and 5, each spotted again on its own
spot whenever it is pocketed or forced off (rule 2). The opening stroke must strike the
3-ball first or the hand is forfeit (rule 3). The first 90 points are made by caroms (a
single carom 1, a double 2) and by pocketing the balls, each counting its number (rule 4);
from exactly 90 the next 10 by caroms only, a ball pocketed ending the hand and losing its
run (rules 5, 10); at 100 the last point by playing the cue ball onto the 1-ball and thence
into a pocket the striker designates (a `call` of the 1-ball with the pocket), touching no
other ball and pocketing none (rule 5); the wrong pocket, or failing to strike the 1-ball,
puts the hand out and loses the run (rules 5, 15). The first to 101 wins.

Points are safe once the hand is over; a scratch (the cue ball pocketed, except on the last
point, or off the table), a miss or a foul loses the run, the points of the hand so far,
and passes the hand (rules 6, 11, 13). A push carom is legitimate in the first 90 and a
foul after (rule 14). A stroke before the balls are at rest after reaching 90 or 100 is a
foul (rules 7, 8). Pocketing the cue ball twice in succession without striking an object
ball forfeits the game (rule 9).

Readings where the book is silent (docs/billiards/cow-boy-pool.md):
- a double carom is the cue ball striking all three object balls, a single one two of
  them: a stroke counts one less than the object balls its `path` strikes; caroms and
  balls pocketed on one stroke both count ("either carroms or the pocketing", rule 4);
- a stroke that would pass 90 (or, on caroms, 100) is ruled by the option `overshoot`:
  "void" (the default, the catalogue's reading: the stroke counts nothing and the hand
  ends, the run kept) or "stand" (the excess is ignored; he stands at 90, or 100, and
  plays on);
- the striker plays on while his strokes count, and a stroke that counts nothing ends
  the hand without loss, as in pool (rule 17);
- at 100, a stroke that strikes the 1-ball but also another ball, pockets an object ball,
  or leaves the cue ball on the table, makes no count and ends the hand, the run kept:
  the book takes the run only for the wrong pocket, a failure to strike the 1-ball, and a
  scratch, miss or foul; the cue ball in the designated pocket is then no scratch (rule
  11's "except on the final stroke");
- rule 9's two strokes are the offender's own two strokes in a row (his hand passes
  after the first); with two players his opponent wins, with more he is out of the game
  and the others play on, the last one left winning;
- a stroke while the balls move is a foul at any time (the American Billiard Laws,
  2651-2656), cited to rules 7 and 8 once the striker has 90;
- the positions are the referee's: a ball whose spot is occupied (rule 12) and the
  incoming player's ball in hand after a scratch (rule 11) are his to place; the engine
  puts every object ball back on the table after the stroke. Rule 16 (a frozen ball
  pushed in the first 90) is his too: he reports the path as that rule deems it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.carom import LAW_FOOT, LAW_MOVING
from engine.billiards.core import (
    CUE,
    CallEvent,
    FoulEvent,
    OffEvent,
    PocketEvent,
    StrokeEvent,
    TableFacts,
)
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, Awaiting, Event, LawRef, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either

LAW_BALLS = hoyle_law(14844, 14846, "Cow-boy pool, rule 1: a cue ball and the 1, 3 and 5 balls")
LAW_SPOTS = hoyle_law(14852, 14858, "Cow-boy pool, rule 2: a ball pocketed or forced off goes "
                                    "back on its spot")
LAW_OPENING = hoyle_law(14860, 14863, "Cow-boy pool, rule 3: the opening stroke plays upon "
                                      "the 3-ball first")
LAW_SCORING = hoyle_law(14865, 14871, "Cow-boy pool, rule 4: 101 points; in the first 90 a "
                                      "carom 1, a double 2, a ball its number")
LAW_CAROMS_ONLY = hoyle_law(14873, 14875, "Cow-boy pool, rule 5: from exactly 90, ten more by "
                                          "caroms only")
LAW_LAST_POINT = hoyle_law(14875, 14881, "Cow-boy pool, rule 5: the last point, off the 1-ball "
                                         "into the designated pocket")
LAW_RUN_LOST = hoyle_law(14883, 14888, "Cow-boy pool, rule 6: a scratch, miss or foul loses "
                                       "the points of the hand")
LAW_REST_90 = hoyle_law(14890, 14898, "Cow-boy pool, rule 7: the balls at rest after 90")
LAW_REST_100 = hoyle_law(14900, 14902, "Cow-boy pool, rule 8: the balls at rest after 100")
LAW_TWICE = hoyle_law(14904, 14906, "Cow-boy pool, rule 9: the cue ball pocketed twice in "
                                    "succession forfeits the game")
LAW_BALL_ON_CAROMS = hoyle_law(14908, 14910, "Cow-boy pool, rule 10: a ball pocketed while on "
                                             "the caroms")
LAW_SCRATCH = hoyle_law(14912, 14917, "Cow-boy pool, rule 11: the cue ball pocketed or forced "
                                      "off")
LAW_OCCUPIED = hoyle_law(14919, 14925, "Cow-boy pool, rule 12: a ball whose spot is occupied")
LAW_FOULS = hoyle_law(14927, 14933, "Cow-boy pool, rule 13: fouls, a miss, a scratch")
LAW_PUSH = hoyle_law(14935, 14943, "Cow-boy pool, rule 14: a push carom in the first 90 only")
LAW_AT_100 = hoyle_law(14945, 14946, "Cow-boy pool, rule 15: at 100, failing to strike the "
                                     "1-ball")
LAW_FROZEN = hoyle_law(14948, 14954, "Cow-boy pool, rule 16: a frozen ball in the first 90")
LAW_GOVERNING = hoyle_law(14956, 14958, "Cow-boy pool, rule 17: the rules of pool and four-ball "
                                        "billiards govern otherwise")

OBJECT_BALLS = ("1", "3", "5")
TABLE = TableFacts((CUE, *OBJECT_BALLS))
NINETY, HUNDRED, GAME = 90, 100, 101
#: The referee's fouls; a push is one only from 90 on.
FOULS = ("push", "double-hit", "touched-ball", "moving-ball", "no-foot")


@dataclass(frozen=True, slots=True)
class CowBoyRules(HouseRules):
    """`overshoot`: a stroke that would pass 90 (or 100): "void" (it counts nothing and the
    hand ends) or "stand" (the excess is ignored and the striker plays on)."""

    overshoot: str = "void"

    def known_options(self) -> tuple[Option, ...]:
        return (either("overshoot", "void", "stand"),)


class CowBoyState(CueState):
    """A game of cow-boy pool in progress."""

    rules: CowBoyRules
    TABLE: ClassVar[TableFacts] = TABLE
    FOULS: ClassVar[tuple[str, ...]] = FOULS
    CALLS: ClassVar[bool] = True

    def start(self) -> None:
        self.opened = False
        #: Whose last stroke pocketed the cue ball without striking an object ball (rule 9).
        self.bare_scratch = {name: False for name in self.players}
        #: Players who forfeited the game by rule 9 in a game of more than two.
        self.out: list[str] = []
        self.in_hand = False
        self.high_before = 0

    # -- the phases of the game ------------------------------------------------------------

    def phase(self, player: str) -> str:
        score = self.scores[player]
        return "open" if score < NINETY else "caroms" if score < HUNDRED else "last point"

    def calls(self) -> list[CallEvent]:
        if self.phase(self.striker_name) != "last point" or self.stroke.call is not None:
            return []
        return [CallEvent("1", pocket) for pocket in self.TABLE.pockets]

    def check_call(self, event: CallEvent) -> None:
        striker = self.striker_name
        if self.phase(striker) != "last point":
            raise IllegalEventError(f"call: {striker} has {self.scores[striker]}; the pocket "
                                    f"is designated only for the last point, at 100")
        if event.ball != "1" or event.pocket is None:
            raise IllegalEventError("call: the last point is played off the 1-ball into a "
                                    "designated pocket: call the 1-ball with a pocket")
        if self.stroke.call is not None:
            raise IllegalEventError(f"call: the {self.stroke.call.pocket} is already "
                                    f"designated")

    def check_stroke(self, event: StrokeEvent) -> None:
        if CUE in event.struck():
            raise IllegalEventError("stroke: the cue ball cannot be in its own path")

    # -- the stroke ------------------------------------------------------------------------

    def rule(self, stroke: Stroke) -> list[Ruling]:
        phase = self.phase(self.striker_name)
        fouls = list(dict.fromkeys(stroke.fouls))
        rulings = []
        if "push" in fouls and phase == "open":
            fouls.remove("push")
            rulings.append(Ruling("push", self.striker_name, 0, "A push carom is legitimate "
                                  "in the first 90 points.", LAW_PUSH))
        rulings += self.ruled(stroke, phase, fouls)
        for ball in list(self.down):
            self.spot(ball)
        return rulings

    def ruled(self, stroke: Stroke, phase: str, fouls: list[str]) -> list[Ruling]:
        """The stroke's rulings, given the striker's phase and the fouls that count."""
        striker, facts = self.striker_name, stroke.facts
        opening, self.opened = not self.opened, True
        # The cue ball pocketed or forced off is in hand for the next stroke (rule 11).
        self.in_hand = CUE in stroke.pocketed or CUE in stroke.off
        bare = CUE in stroke.pocketed and facts.first is None
        twice, self.bare_scratch[striker] = self.bare_scratch[striker] and bare, bare
        if twice:
            return self.forfeit_game(striker)
        if fouls:
            return self.lose_run("foul", f"made a foul ({', '.join(fouls)})",
                                 self.foul_law(fouls[0], phase))
        if CUE in stroke.off:
            return self.lose_run("scratch", "forced the cue ball off the table", LAW_SCRATCH)
        if phase == "last point":
            return self.last_point(stroke)
        if CUE in stroke.pocketed:
            return self.lose_run("scratch", "pocketed the cue ball", LAW_SCRATCH)
        if opening and facts.first != "3":
            return self.lose_run("failed-opening", "did not play upon the 3-ball first on "
                                 "the opening stroke, and forfeits his hand", LAW_OPENING)
        if facts.first is None:
            return self.lose_run("miss", "missed every object ball", LAW_RUN_LOST)
        objects = [ball for ball in stroke.pocketed if ball != CUE]
        if phase == "caroms" and objects:
            return self.lose_run("hand-out", f"pocketed the {', '.join(objects)} while on "
                                 f"his caroms", LAW_BALL_ON_CAROMS)
        return self.count(stroke, objects, phase)

    def count(self, stroke: Stroke, objects: list[str], phase: str) -> list[Ruling]:
        """The caroms and the balls of a fair stroke, up to exactly 90 (or 100)."""
        striker = self.striker_name
        caroms = max(len(stroke.facts.struck()) - 1, 0)
        points = caroms + sum(int(ball) for ball in objects)
        if not points:
            self.end_inning()
            return [Ruling("no-count", striker, 0, f"{striker} counts nothing; the hand "
                           f"passes to {self.striker_name}.", LAW_GOVERNING)]
        law = LAW_SCORING if phase == "open" else LAW_CAROMS_ONLY
        target = NINETY if phase == "open" else HUNDRED
        total = self.scores[striker] + points
        if total > target:
            return self.overshoot(striker, points, target)
        rulings = []
        if caroms:
            double = "a double carom" if caroms == 2 else "a carom"
            rulings.append(self.score(striker, caroms, "carom",
                                      f"{striker} makes {double}: {caroms}.", law))
        for ball in objects:
            rulings.append(self.score(striker, int(ball), "ball",
                                      f"{striker} pockets the {ball}-ball: {ball}.", law))
        if total == target:
            rulings.append(self.arrived(striker, target))
        return rulings

    def arrived(self, striker: str, target: int) -> Ruling:
        if target == NINETY:
            return Ruling("ninety", striker, 0, f"{striker} has exactly 90: the next ten "
                          f"points by caroms only, the balls at rest before his next stroke.",
                          LAW_CAROMS_ONLY)
        return Ruling("hundred", striker, 0, f"{striker} has 100: the last point off the "
                      f"1-ball into a pocket he designates.", LAW_LAST_POINT)

    def overshoot(self, striker: str, points: int, target: int) -> list[Ruling]:
        law = LAW_CAROMS_ONLY if target == NINETY else LAW_LAST_POINT
        score = self.scores[striker]
        if self.rules.overshoot == "stand":
            return [self.score(striker, target - score, "stand",
                               f"{striker} makes {points}, which passes {target}: he stands "
                               f"at {target} and plays on.", law),
                    self.arrived(striker, target)]
        self.end_inning()
        return [Ruling("over", striker, 0, f"{striker} makes {points}, which passes "
                       f"{target}: the stroke counts nothing and the hand passes to "
                       f"{self.striker_name}.", law)]

    def last_point(self, stroke: Stroke) -> list[Ruling]:
        """At 100: off the 1-ball into the designated pocket, touching and pocketing nothing
        else (rules 5 and 15)."""
        striker, facts = self.striker_name, stroke.facts
        if "1" not in facts.struck():
            return self.lose_run("hand-out", "failed to strike the 1-ball at 100", LAW_AT_100)
        designated = stroke.call.pocket if stroke.call is not None else None
        entered = stroke.pocket_of(CUE)
        if entered is not None and entered != designated:
            where = (f"not the designated {designated}" if designated
                     else "with no pocket designated")
            return self.lose_run("hand-out", f"sent the cue ball into the {entered}, {where}",
                                 LAW_LAST_POINT)
        objects = [ball for ball in stroke.pocketed if ball != CUE]
        if entered is not None and facts.struck() == ["1"] and not objects:
            ruling = self.score(striker, 1, "last-point", f"{striker} plays off the 1-ball "
                                f"into the {entered}: the last point.", LAW_LAST_POINT)
            return [ruling, self.finish([striker], LAW_SCORING, f"{striker} has 101")]
        why = ("the cue ball stays on the table" if entered is None
               else "another ball is touched or pocketed")
        self.end_inning()
        return [Ruling("no-count", striker, 0, f"{striker} does not make the last point "
                       f"({why}); the hand passes to {self.striker_name}.", LAW_LAST_POINT)]

    def foul_law(self, kind: str, phase: str) -> LawRef:
        if kind == "push":
            return LAW_PUSH
        if kind == "no-foot":
            return LAW_FOOT
        if kind == "moving-ball":
            return {"open": LAW_MOVING, "caroms": LAW_REST_90}.get(phase, LAW_REST_100)
        return LAW_RUN_LOST

    # -- runs lost, hands passed, the game forfeited ---------------------------------------

    def lose_run(self, kind: str, why: str, law: LawRef) -> list[Ruling]:
        """The points of the hand so far are lost and the hand passes (rule 6)."""
        striker, lost = self.striker_name, self.run
        self.scores[striker] -= lost
        self.high_run[striker] = self.high_before
        self.end_inning()
        run = f"the run of {lost} is lost" if lost else "no run to lose"
        return [Ruling(kind, striker, -lost, f"{striker} {why}: {run}, and the hand passes "
                       f"to {self.striker_name}.", law)]

    def forfeit_game(self, striker: str) -> list[Ruling]:
        rulings = self.lose_run("foul", "pocketed the cue ball twice in succession without "
                                "striking an object ball, and forfeits the game", LAW_TWICE)
        self.out.append(striker)
        left = [name for name in self.players if name not in self.out]
        if len(left) == 1:
            rulings.append(self.finish(left, LAW_TWICE, f"{striker} forfeits the game"))
        return rulings

    def end_inning(self) -> None:
        """The hand passes to the next player still in the game."""
        self.run = 0
        for _ in self.players:
            self.striker = (self.striker + 1) % len(self.players)
            if self.striker_name not in self.out:
                break
        self.innings[self.striker_name] += 1
        self.high_before = self.high_run[self.striker_name]

    # -- what a random table reports -------------------------------------------------------

    def legal_events(self) -> list[Event]:
        """The legal events a random table reports (all others are accepted all the same):
        in the first 90 each object ball into one pocket, on the caroms none; the cue ball
        only into the designated pocket at 100; one call; a referee's foul only before
        anything else happens on the stroke; a miss or the cue ball forced off only while
        the striker has no run to lose.

        A random table offered every pocket for every ball plays strokes that nearly all
        scratch, and one that loses runs at will seldom reaches 101.
        """
        return [event for event in super().legal_events() if self.listing(event)]

    def listing(self, event: Event) -> bool:
        fresh = not (self.stroke.pockets or self.stroke.off or self.stroke.fouls)
        if isinstance(event, FoulEvent):
            return fresh
        if isinstance(event, OffEvent):
            return fresh and not self.run and event.ball == CUE
        if isinstance(event, CallEvent):
            return event.pocket == self.listed(CUE)
        if isinstance(event, PocketEvent):
            phase = self.phase(self.striker_name)
            if event.ball == CUE:
                return phase == "last point" and self.stroke.call is not None
            return phase == "open" and event.pocket == self.listed(event.ball)
        return True

    def listed(self, ball: str) -> str:
        """The one pocket a random table drops `ball` into."""
        return self.TABLE.pockets[self.TABLE.balls.index(ball) % len(self.TABLE.pockets)]

    def closings(self) -> list[StrokeEvent]:
        misses = [] if self.run else [StrokeEvent(path=())]
        if self.phase(self.striker_name) == "last point":
            return [*misses, StrokeEvent(path=("1",)), StrokeEvent(path=("3", "1"))]
        return [*misses, StrokeEvent(path=("3",)), StrokeEvent(path=("3", "1")),
                StrokeEvent(path=("3", "5", "1"))]

    def awaiting(self) -> tuple[Awaiting, ...]:
        waits = super().awaiting()
        if waits and self.phase(self.striker_name) == "last point" and self.stroke.call is None:
            waits += (Awaiting("call", "referee", self.striker_name,
                               "the pocket designated for the cue ball off the 1-ball"),)
        return waits

    def details(self) -> JSON:
        return {"phases": {name: self.phase(name) for name in self.players},
                "called": None if self.stroke.call is None else self.stroke.call.pocket,
                "in_hand": self.in_hand, "out": list(self.out),
                "bare_scratch": [name for name, bare in self.bare_scratch.items() if bare]}


COW_BOY = CueGame(
    "cow-boy-pool", "Cow-Boy Pool", CowBoyRules(), "pocket-billiards", CowBoyState,
    (LAW_BALLS, LAW_SPOTS, LAW_OPENING, LAW_SCORING, LAW_CAROMS_ONLY, LAW_LAST_POINT,
     LAW_RUN_LOST, LAW_REST_90, LAW_REST_100, LAW_TWICE, LAW_BALL_ON_CAROMS, LAW_SCRATCH,
     LAW_OCCUPIED, LAW_FOULS, LAW_PUSH, LAW_AT_100, LAW_FROZEN, LAW_GOVERNING,
     LAW_MOVING, LAW_FOOT))
