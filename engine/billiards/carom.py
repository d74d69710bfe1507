"""What the carom games share: caroms counted by the law or by the referee, misses, fouls, runs.

A carom table has no pockets and, usually, no contact tracker. A stroke is closed either by
the referee's `count` (the points it made, 0 for none) or by a `stroke` with the cue ball's
`path`, from which the game's law decides the count (two object balls struck; a cushion
first; three cushions before the second object ball...). A path that strikes no ball
(`[]`, or cushions only) is a miss. Each player plays his own ball (the first player the
white, the second the spot white; with more players than whites, the seats share them in
turn); the other balls are his object balls.

The three-ball carom laws (lines 2806-2963) and the American Billiard Laws (2604-2805),
which "apply to all billiard games", give what the games share: a carom counts one and
the striker plays on; a miss counts one for the opponent (2853-2856); a foul makes no
count (2614-2616) and so ends the inning, touching one's own ball before the stroke also
giving the opponent one "as for a miss" (2903-2906); a ball forced off the table is
spotted (2864-2883); crotched object balls allow but three counts (2934-2940). The game is
to the `points` agreed, each player's own in a "discount" (handicap) game (2853-2858).

Touching one's own ball before playing (`own-ball`) is the stroke itself (law 8, 2706-2708:
"Touching any ball in any way is a stroke"): once the referee calls it, the stroke closes
with a bare `{"type": "stroke"}` (or the referee's `count`), no fact needed; a path given is
not ruled on, and the opponent scores his one "as for a miss" (2903-2906) once, never a
second point for a miss after the touch.

The restricted spaces (the crotch; the balk spaces and anchors of balk-line) are judged
by the referee: a stroke's `balk` fact says it was played with both object balls in one
such space and left both there. The game's limit of such strokes in an inning counts
them: the stroke that reaches it must drive a ball out, or it is void and the hand is out.
Balk-line needs `balk` on every stroke. Where the crotch is barred (`CROTCH_TABLE`; the
Little Corporal's own table) it is one of the table's `sometimes`: a stroke without it
left the balls out of the crotch, but once the striker's last stroke left them crotched,
a stroke that counts is refused without it (`balk_owed`): whether it forced a ball out
decides the stroke, or the next. A referee's `count` carries no `balk`: he applies the
crotch in his count (0 for a void stroke), as at balk-line.
The crotch's "41%" inch square (line 2935) is the OCR of 4½; the referee judges it.
Read with the balk-line rule (two shots, the second must drive a ball out), the crotch's
"but three counts" makes the third stroke left in the crotch void; a striker's allowance
starts afresh with his inning. The wrong-ball law (2662-2677) is garbled at 2666-2670;
only its first sentence is ruled: the stroke is foul, with no count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from engine.billiards.core import FACTS, StrokeEvent, TableFacts
from engine.billiards.table import CueState, Stroke
from engine.core import JSON, Event, LawRef, Ruling, hoyle_law
from engine.errors import BadOptionError, IllegalEventError
from engine.rules import HouseRules, Option, whole

RED = "red"
WHITE = "white"
SPOT_WHITE = "spot-white"
#: The most points a game may be played to.
MOST_POINTS = 1000

LAW_PUSH = hoyle_law(2620, 2622, "American billiard laws, 2: the push shot")
LAW_FOOT = hoyle_law(2648, 2649, "American billiard laws, 4: one foot on the floor")
LAW_MOVING = hoyle_law(2651, 2656, "American billiard laws, 5: touching a ball in motion")
LAW_WRONG = hoyle_law(2662, 2677, "American billiard laws, 6: playing with the wrong ball")
LAW_TOUCH = hoyle_law(2683, 2700, "American billiard laws, 7: touching the cue ball more "
                                  "than once, or an object ball")
LAW_FROZEN = hoyle_law(2740, 2743, "American billiard laws, 10: playing directly on a ball "
                                   "one's own is frozen to")
LAW_OPENING = hoyle_law(2846, 2851, "Three-ball carom laws, 3: the opening shot strikes the "
                                    "red first")
LAW_CAROM = hoyle_law(2853, 2854, "Three-ball carom laws, 4: a carom counts one")
LAW_MISS = hoyle_law(2854, 2856, "Three-ball carom laws, 4: a miss counts one for the "
                                 "opposing player")
LAW_GAME = hoyle_law(2853, 2858, "Three-ball carom laws, 4: the points of the game; the "
                                 "discount game")
LAW_OFF = hoyle_law(2864, 2883, "Three-ball carom laws, 5: balls jumped off the table")
LAW_DISTURB = hoyle_law(2899, 2903, "Three-ball carom laws, 6: disturbing a ball other than "
                                    "his own: no count")
LAW_OWN_BALL = hoyle_law(2903, 2906, "Three-ball carom laws, 6: touching his own ball before "
                                     "playing scores one for the opponent")
LAW_CROTCH = hoyle_law(2934, 2940, "Three-ball carom laws, 11: the crotch allows but three "
                                   "counts")

#: The fouls a referee calls at the carom games, each with its law.
FOUL_LAWS: Mapping[str, LawRef] = {
    "push": LAW_PUSH, "no-foot": LAW_FOOT, "moving-ball": LAW_MOVING,
    "wrong-ball": LAW_WRONG, "double-hit": LAW_TOUCH, "touched-ball": LAW_DISTURB,
    "own-ball": LAW_OWN_BALL, "frozen": LAW_FROZEN,
}
CAROM_FOULS: tuple[str, ...] = tuple(FOUL_LAWS)
#: Fouls that are the stroke themselves (law 8, 2706-2708): the stroke ends with the touch.
STROKE_FOULS: tuple[str, ...] = ("own-ball",)
FAMILY_LAWS: tuple[LawRef, ...] = (*FOUL_LAWS.values(), LAW_OPENING, LAW_CAROM,
                                   LAW_MISS, LAW_GAME, LAW_OFF, LAW_CROTCH)
#: The three-ball games' table: two whites and a red, no pockets, the referee may count.
THREE_BALLS = TableFacts((WHITE, SPOT_WHITE, RED), counts=True, pockets=())
#: The same where the crotch is barred (2934-2940): `balk` says a stroke was played with
#: the object balls crotched and left them there, needed once they lie there (`balk_owed`).
CROTCH_TABLE = TableFacts(THREE_BALLS.balls, needs=("path", "balk"), sometimes=("balk",),
                          counts=True, pockets=())
#: The restricted spaces a game's `limit()` counts strokes in, as the snapshot's
#: `balk_space` names them for the referee's form.
CROTCH = "crotch"
BALK_SPACE = "balk space"


@dataclass(frozen=True, slots=True)
class Count:
    """What a stroke made by the game's law: points, why, the law; `kind` names a stroke
    that makes none ("no-count", or "foul" where the law calls the stroke foul)."""

    points: int
    why: str
    law: LawRef
    kind: str = "no-count"


def ended_by_touch(fouls: Iterable[str]) -> bool:
    """Whether the fouls called include one that was the stroke itself (`STROKE_FOULS`)."""
    return any(kind in STROKE_FOULS for kind in fouls)


def _is_discount(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(name, str) and type(points) is int and 1 <= points <= MOST_POINTS
        for name, points in value.items())


@dataclass(frozen=True, slots=True)
class CaromRules(HouseRules):
    """`points`: the game; `discount`: a handicap game, each named player's own points
    (the others play to `points`)."""

    points: int = 34
    discount: Mapping[str, int] = field(default_factory=dict)

    def known_options(self) -> tuple[Option, ...]:
        return (whole("points", 1, MOST_POINTS),
                Option("discount", f"a table of players' points, each 1-{MOST_POINTS}",
                       _is_discount))


class CaromState(CueState):
    """A carom game in progress; see the module docstring. A game supplies its table, its
    players' balls, how a stroke's path counts (`counted`) and the strokes a random table
    may report (`closings`)."""

    rules: CaromRules
    TABLE: ClassVar[TableFacts] = THREE_BALLS
    RETURNED: ClassVar[tuple[str, ...]] = THREE_BALLS.balls
    FOULS: ClassVar[tuple[str, ...]] = CAROM_FOULS
    #: Each seat's own ball, in the order of the players.
    CUE_BALLS: ClassVar[tuple[str, ...]] = (WHITE, SPOT_WHITE)
    #: Whether the opening stroke must strike the red first (the three-ball games).
    RED_FIRST: ClassVar[bool] = True
    #: The points a referee's count may give one stroke.
    COUNTS: ClassVar[tuple[int, ...]] = (0, 1)
    #: The default `limit()`.
    KEPT_IN: ClassVar[int | None] = 3
    LAW_KEPT_IN: ClassVar[LawRef] = LAW_CROTCH
    #: The space `limit()` counts strokes in (`CROTCH` or `BALK_SPACE`), and how a ruling
    #: names it.
    SPACE: ClassVar[str] = CROTCH
    SPACE_WORDS: ClassVar[str] = "the crotch"
    LAW_COUNT: ClassVar[LawRef] = LAW_CAROM
    LAW_RED: ClassVar[LawRef] = LAW_OPENING
    LAW_MISS: ClassVar[LawRef] = LAW_MISS
    LAW_END: ClassVar[LawRef] = LAW_GAME
    #: What a clean miss gives the opponent.
    MISS_POINTS: ClassVar[int] = 1

    def start(self) -> None:
        unknown = sorted(set(self.rules.discount) - set(self.players))
        if unknown:
            raise BadOptionError(f"{self.game.id}: option discount names {', '.join(unknown)}, "
                                 f"who {'is' if len(unknown) == 1 else 'are'} not playing "
                                 f"({', '.join(self.players)})")
        self.targets = {name: self.rules.discount.get(name, self.rules.points)
                        for name in self.players}
        self.opening = True
        self.kept_in = 0

    # -- what each game supplies --------------------------------------------------------------

    def counted(self, stroke: Stroke) -> Count:
        """What a stroke's path makes by the game's law."""
        struck = stroke.facts.struck()
        if len(struck) >= 2:
            return Count(1, f"a carom off the {struck[0]} and the {struck[1]}", self.LAW_COUNT)
        return Count(0, "no carom", self.LAW_COUNT)

    def limit(self) -> int | None:
        """Strokes an inning may play leaving the object balls in one restricted space (the
        `balk` fact); the last of them must drive a ball out. None: no limit."""
        return self.KEPT_IN

    def missed(self, striker: str, kind: str = "miss", why: str = "misses both balls",
               law: LawRef | None = None) -> list[Ruling]:
        """A clean miss (or a foul scored as one): `MISS_POINTS` for the opponent."""
        points = self.MISS_POINTS
        return [self.score(self.opponent, points, kind, f"{striker} {why}: {points} for "
                           f"{self.opponent}.", law or self.LAW_MISS)]

    def credit(self, points: int, why: str, law: LawRef) -> list[Ruling]:
        """The striker's count; he plays on."""
        striker = self.striker_name
        return [self.score(striker, points, "carom",
                           f"{striker}: {why}, {points}; {striker} plays on.", law)]

    def penalise(self, striker: str, kind: str, law: LawRef) -> list[Ruling]:
        """The penalty of a foul (none but the lost count, unless the game says more)."""
        if kind == "own-ball":
            return self.missed(striker, "foul", "touched his own ball before the stroke, a "
                               "foul scored as a miss", law)
        return [Ruling("foul", striker, 0, f"{striker}: a foul ({kind}), no count.", law)]

    # -- the ruling of a stroke ----------------------------------------------------------------

    def cue_ball(self, player: str) -> str:
        """The player's own ball; players beyond the balls share them in turn."""
        return self.CUE_BALLS[self.players.index(player) % len(self.CUE_BALLS)]

    def touched(self) -> bool:
        """Whether the referee has called a foul that ended the stroke in progress."""
        return ended_by_touch(self.stroke.fouls)

    def closing_facts(self) -> TableFacts:
        """The game's table, or, once a touch has ended the stroke, one that needs no fact:
        nothing the cue ball did after the touch is ruled on."""
        return replace(self.TABLE, needs=(), sometimes=()) if self.touched() else self.TABLE

    def check_stroke(self, event: StrokeEvent) -> None:
        if event.points is not None and event.points not in self.COUNTS:
            raise IllegalEventError(f"count: a stroke at {self.game.name} scores "
                                    f"{', '.join(map(str, self.COUNTS))}, not {event.points}")
        own = self.cue_ball(self.striker_name)
        if own in (event.path or ()) and "wrong-ball" not in self.stroke.fouls:
            raise IllegalEventError(f"stroke: the {own} is {self.striker_name}'s own cue ball; "
                                    f"it cannot be in the path of his stroke (unless the "
                                    f"referee calls the wrong ball)")
        if self.balk_owed(event):
            raise IllegalEventError(
                f"stroke: {self.game.name} needs the fact 'balk' ({FACTS['balk']}): "
                f"{self.striker_name}'s last stroke left the object balls in "
                f"{self.SPACE_WORDS}, so a stroke that counts must say whether it left them "
                f"there")

    def balk_owed(self, event: StrokeEvent) -> bool:
        """Whether this stroke must give `balk`, where the table needs it only sometimes:
        the striker's last stroke left the object balls in the space (`kept_in`) and this
        one counts, so whether it left them there too decides it (the limit) or the next
        (2934-2940). A stroke that makes no count ends the inning and the allowance with it;
        a referee's `count` is his own count, the limit applied."""
        if ("balk" not in self.TABLE.sometimes or event.balk is not None
                or event.points is not None or not self.kept_in or self.limit() is None):
            return False
        count = self.counting(replace(self.stroke, facts=event), self.opening)
        return count is not None and count.points > 0

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        facts = stroke.facts
        rulings = [self.spotted(ball) for ball in stroke.off]
        opening, self.opening = self.opening, False
        # A path that strikes no ball, cushions or none, is a miss; after a touch that was
        # the stroke (law 8) the cue ball's path is no stroke, and no miss.
        missed = (facts.path is not None and facts.first is None
                  and not ended_by_touch(stroke.fouls))
        if stroke.fouls:
            for kind in dict.fromkeys(stroke.fouls):
                rulings += self.penalise(striker, kind, FOUL_LAWS[kind])
            if missed:
                rulings += self.missed(striker)
            return rulings + self.inning_over()
        if missed:
            return rulings + self.missed(striker) + self.inning_over()
        count = self.counting(stroke, opening)
        assert count is not None
        kept, limit = bool(facts.balk), self.limit()
        if kept and limit is not None and count.points and self.kept_in + 1 >= limit:
            return [*rulings, self.void(striker, limit), *self.inning_over()]
        self.kept_in = self.kept_in + 1 if kept else 0
        if count.points:
            return rulings + self.credit(count.points, count.why, count.law) + self.ended()
        rulings.append(Ruling(count.kind, striker, 0, f"{striker}: {count.why}; no count, "
                              f"the inning ends.", count.law))
        return rulings + self.inning_over()

    def counting(self, stroke: Stroke, opening: bool) -> Count | None:
        """What a stroke makes before the limit of strokes in the space: the referee's count,
        or the game's law on its path (None: a foul or a miss, which makes no count)."""
        facts = stroke.facts
        if stroke.fouls or (facts.path is not None and facts.first is None):
            return None
        if facts.points is not None:
            return Count(facts.points, "the referee's count", self.LAW_COUNT)
        if opening and self.RED_FIRST and facts.first != RED:
            return Count(0, "the opening stroke must strike the red first", self.LAW_RED)
        return self.counted(stroke)

    def void(self, striker: str, limit: int) -> Ruling:
        return Ruling("balk", striker, 0, f"{striker} leaves the object balls in "
                      f"{self.SPACE_WORDS} after {limit} stroke{'s' if limit != 1 else ''} "
                      f"there: the stroke is void and the hand is out.", self.LAW_KEPT_IN)

    def spotted(self, ball: str) -> Ruling:
        where = ("its own spot, else the white spot, else the centre spot" if ball.endswith(RED)
                 else "the string spot, else the red spot, else the centre spot")
        return Ruling("spot", None, 0, f"The {ball} was forced off the table: it goes on "
                      f"{where}.", LAW_OFF)

    def inning_over(self) -> list[Ruling]:
        self.kept_in = 0
        rulings = self.ended()
        if not self.over:
            self.end_inning()
        return rulings

    def ended(self) -> list[Ruling]:
        """The game is over when a player has the points of the game (his own, at discount)."""
        if self.over:
            return []
        reached = [name for name in self.players if self.scores[name] >= self.targets[name]]
        if not reached:
            return []
        return [self.finish(reached, self.LAW_END, "the points of the game are made")]

    def carom_closings(self, *paths: tuple[str, ...], **facts: Any) -> list[StrokeEvent]:
        """A clean miss, the referee's counts, and strokes along these paths."""
        return [StrokeEvent(path=()), *(StrokeEvent(points=p) for p in self.COUNTS),
                *(StrokeEvent(path=path, **facts) for path in paths)]

    def legal_events(self) -> list[Event]:
        """As every cue game's; where the table needs `balk` only sometimes, a stroke that
        strikes a ball may also leave the object balls crotched, and says whether it did
        when it must (`balk_owed`)."""
        events = super().legal_events()
        if self.touched():
            events.append(StrokeEvent())
        if "balk" not in self.TABLE.sometimes:
            return events
        told: list[Event] = []
        for event in events:
            if isinstance(event, StrokeEvent) and event.balk is None and event.first:
                kept = [replace(event, balk=True), replace(event, balk=False)]
                told += kept if self.balk_owed(event) else [event, kept[0]]
            else:
                told.append(event)
        return told

    def objects(self) -> list[str]:
        """The striker's object balls."""
        own = self.cue_ball(self.striker_name)
        return [ball for ball in self.TABLE.balls if ball != own]

    def details(self) -> JSON:
        details: JSON = {"targets": dict(self.targets), "opening": self.opening,
                         "cue_balls": {name: self.cue_ball(name) for name in self.players},
                         "kept_in": self.kept_in}
        if self.limit() is not None:
            # The space whose strokes the game limits: the referee's form words `balk` by it.
            details["balk_space"] = self.SPACE
        return details
