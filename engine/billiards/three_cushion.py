"""Three-Cushion Carom Billiards (Hoyle 1940, lines 3070-3219): three cushions, then the ball.

The rules of the National Championship Three-Cushion League (1922), with the general
rules of billiards where they do not conflict (rule 1). A carom counts one when the cue
ball has made three cushion impacts (one cushion struck three times will do) before it
strikes the second object ball (rules 2-6). Misses made with honest intent carry no
penalty (rule 15). A deliberate safety, which the referee calls (`safety: true` on the
stroke), must make the cue ball strike an object ball and then a cushion, or drive an
object ball to a cushion, or it costs a point (rule 9); one safety is free, each further
consecutive one costs a point (rules 10-11); a deliberate safety miss costs a point and is
safety number one (rule 12). The wrong ball is a foul: the striker keeps the points he
made before the stroke and is penalized a safety (rule 17). Every forfeit is deducted
"if and when a score is made" (rule 16).

Stroke facts (`TABLE`): `path` on every stroke (or the referee's `count`), and `driven`
(object balls driven to a cushion) only on some, so it is the table's `sometimes` and the
referee's form asks for it: rule 9 reads it on a deliberate safety whose cue ball met no
cushion after the object ball, the one stroke where it decides the ruling (the safety is
legal only if it forced an object ball to a cushion). The engine refuses such a safety
without it, naming the fact (`driven_owed`); every other stroke (a count, a miss, a safety
whose cue ball touched a cushion after the ball, a safety miss, a stroke the referee calls
a foul on) goes through without it, as the book vectors and the docs transcript close
them.

Readings (docs/billiards/three-cushion-billiards.md):
- rule 16: a penalty comes off the points the player has; what he cannot pay he owes,
  and it comes off his next points, so a score never goes below nought (option
  `penalties = "on-count"`: every penalty waits for his next counting stroke);
- a safety that breaks rule 9 and is also a further consecutive safety costs both points;
- "penalized a safety" (rule 17): the wrong-ball stroke is charged as a deliberate safety,
  free if it is the first of a run of safeties, a point otherwise;
- consecutive safeties are the player's own, in his successive innings; a stroke played
  to count (any stroke the referee does not call a safety) ends the series;
- touching his own ball before the stroke scores "as for a miss" (2903-2906): nothing here;
- the cue ball played from a cushion it rests on into that cushion makes no impact
  (rule 7): the referee's path leaves that cushion out; likewise the cushion an object ball
  is frozen to counts only for the cue ball (rules 13-14): `driven` leaves it out;
- the book gives no length; 34 points, as for the carom games, is the default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.carom import (
    FAMILY_LAWS,
    RED,
    THREE_BALLS,
    CaromRules,
    CaromState,
    Count,
)
from engine.billiards.core import CUSHION, FACTS, StrokeEvent, TableFacts
from engine.billiards.table import CueGame, Stroke
from engine.core import JSON, LawRef, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import Option, either

LAW_COUNT = hoyle_law(3080, 3093, "Three-cushion rules 2-6: three cushion impacts before the "
                                  "second object ball; each carom counts one")
LAW_SAFETY = hoyle_law(3115, 3119, "Three-cushion rule 9: a deliberate safety must strike a "
                                   "ball and then a cushion, or drive a ball to one")
LAW_CONSECUTIVE = hoyle_law(3122, 3128, "Three-cushion rules 10-11: one safety free, a point "
                                        "for each further consecutive safety")
LAW_SAFETY_MISS = hoyle_law(3131, 3135, "Three-cushion rule 12: a deliberate safety miss "
                                        "forfeits a point and is safety number one")
LAW_NO_MISS = hoyle_law(3155, 3157, "Three-cushion rule 15: no penalty for misses made with "
                                    "honest intent")
LAW_DEDUCT = hoyle_law(3160, 3162, "Three-cushion rule 16: forfeits deducted if and when a "
                                   "score is made")
LAW_WRONG_BALL = hoyle_law(3168, 3172, "Three-cushion rule 17: the wrong ball, points before "
                                       "kept, penalized a safety")
CUSHIONS = 3


@dataclass(frozen=True, slots=True)
class ThreeCushionRules(CaromRules):
    """`penalties`: "at-once" (a forfeit comes off the points the player has, the rest off
    his next points) or "on-count" (every forfeit waits for his next counting stroke)."""

    penalties: str = "at-once"

    def known_options(self) -> tuple[Option, ...]:
        return (*CaromRules.known_options(self), either("penalties", "at-once", "on-count"))


class ThreeCushionState(CaromState):
    """A game of three-cushion caroms in progress."""

    rules: ThreeCushionRules
    #: Rule 9 (3115-3119): `driven` decides a safety whose cue ball met no cushion after the
    #: object ball, and nothing else (`driven_owed`).
    TABLE: ClassVar[TableFacts] = TableFacts(THREE_BALLS.balls, needs=("path", "driven"),
                                             sometimes=("driven",), counts=True, pockets=())
    LAW_COUNT: ClassVar[LawRef] = LAW_COUNT
    LAW_MISS: ClassVar[LawRef] = LAW_NO_MISS
    MISS_POINTS: ClassVar[int] = 0
    #: Every count needs three cushions: the balls cannot be nursed in a crotch.
    KEPT_IN: ClassVar[int | None] = None

    def start(self) -> None:
        super().start()
        self.safeties = {name: 0 for name in self.players}
        self.owed = {name: 0 for name in self.players}

    def counted(self, stroke: Stroke) -> Count:
        struck = stroke.facts.struck()
        if len(struck) < 2:
            return Count(0, "no carom", LAW_COUNT)
        impacts = stroke.facts.cushions_before(struck[1])
        if impacts < CUSHIONS:
            return Count(0, f"{impacts} cushion impact{'s' if impacts != 1 else ''} before the "
                            f"{struck[1]}, not three", LAW_COUNT)
        return Count(1, f"three cushions before the {struck[1]}", LAW_COUNT)

    def check_stroke(self, event: StrokeEvent) -> None:
        super().check_stroke(event)
        if not event.safety or event.first is None:
            return
        if len(event.struck()) >= 2 and event.cushions_before(event.struck()[1]) >= CUSHIONS:
            raise IllegalEventError("stroke: a counting carom is not a deliberate safety; "
                                    "report it without safety")
        if self.driven_owed(event):
            raise IllegalEventError(
                f"stroke: {self.game.name} needs the fact 'driven' ({FACTS['driven']}) for a "
                f"deliberate safety whose cue ball met no cushion after the object ball: it "
                f"is legal only if it forced an object ball to a cushion (rule 9)")

    def driven_owed(self, event: StrokeEvent) -> bool:
        """Whether this stroke must give `driven` (rule 9, 3115-3119): a deliberate safety
        that struck a ball, whose cue ball touched no cushion after it, is legal only if it
        forced an object ball against a cushion. A stroke the referee calls a foul on is
        ruled as a foul, not as a safety, so it needs none."""
        return (event.safety and event.first is not None and event.driven is None
                and not event.cushion_after_contact and not self.stroke.fouls)

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        if stroke.facts.safety and not stroke.fouls:
            self.opening = False
            rulings = [self.spotted(ball) for ball in stroke.off]
            return rulings + self.safety(striker, stroke.facts) + self.inning_over()
        if "wrong-ball" not in stroke.fouls:
            self.safeties[striker] = 0
        return super().rule(stroke)

    def safety(self, striker: str, facts: StrokeEvent) -> list[Ruling]:
        """Rules 9-12: the safety's own forfeit, and the forfeit of a further one in a row."""
        self.safeties[striker] += 1
        rulings = []
        if facts.first is None:
            rulings.append(self.forfeit(striker, 1, "safety", f"{striker} misses on a "
                                        f"deliberate safety", LAW_SAFETY_MISS))
        elif not (facts.cushion_after_contact or (facts.driven or 0) > 0):
            rulings.append(self.forfeit(striker, 1, "safety", f"{striker}'s safety brings no "
                                        f"ball to a cushion", LAW_SAFETY))
        if self.safeties[striker] > 1:
            rulings.append(self.forfeit(striker, 1, "safety", f"{striker} plays safety "
                                        f"{self.safeties[striker]} in a row",
                                        LAW_CONSECUTIVE))
        if not rulings:
            rulings.append(Ruling("safety", striker, 0, f"{striker} plays a deliberate "
                                  f"safety, his first: no penalty.", LAW_CONSECUTIVE))
        return rulings

    def penalise(self, striker: str, kind: str, law: LawRef) -> list[Ruling]:
        if kind != "wrong-ball":
            return super().penalise(striker, kind, law)
        self.safeties[striker] += 1
        if self.safeties[striker] > 1:
            return [self.forfeit(striker, 1, "foul", f"{striker} played the wrong ball: no "
                                 f"count, penalized a safety, {self.safeties[striker]} in a "
                                 f"row", LAW_WRONG_BALL)]
        return [Ruling("foul", striker, 0, f"{striker} played the wrong ball: no count; he "
                       f"keeps the points made before and is charged a safety.",
                       LAW_WRONG_BALL)]

    def forfeit(self, player: str, points: int, kind: str, why: str, law: LawRef) -> Ruling:
        """Rule 16: a forfeit comes off the score he has (at once, or at his next count)."""
        paid = 0 if self.rules.penalties == "on-count" else min(points, self.scores[player])
        self.owed[player] += points - paid
        owed = self.owed[player]
        text = f"{why}: forfeits {points}" + (f"; he owes {owed} until he scores." if owed
                                              else ".")
        self.scores[player] -= paid
        return Ruling(kind, player, -paid, text, law)

    def credit(self, points: int, why: str, law: LawRef) -> list[Ruling]:
        striker = self.striker_name
        rulings = super().credit(points, why, law)
        paid = min(self.owed[striker], self.scores[striker])
        if paid:
            self.owed[striker] -= paid
            rulings.append(self.deduct(striker, paid, "forfeit", f"{striker} pays {paid} of "
                                       f"the points he owes.", LAW_DEDUCT))
        return rulings

    def closings(self) -> list[StrokeEvent]:
        other = next(ball for ball in self.objects() if ball != RED)
        return [*self.carom_closings((RED, CUSHION, CUSHION, CUSHION, other),
                                     (CUSHION, other, CUSHION, CUSHION, RED)),
                StrokeEvent(path=(RED, CUSHION), safety=True),
                StrokeEvent(path=(RED,), driven=1, safety=True)]

    def details(self) -> JSON:
        return {**super().details(), "safeties_in_row": dict(self.safeties),
                "owed": dict(self.owed)}


THREE_CUSHION = CueGame(
    "three-cushion-billiards", "Three-Cushion Carom Billiards", ThreeCushionRules(),
    "carom-billiards", ThreeCushionState,
    (LAW_COUNT, LAW_SAFETY, LAW_CONSECUTIVE, LAW_SAFETY_MISS, LAW_NO_MISS, LAW_DEDUCT,
     LAW_WRONG_BALL, *FAMILY_LAWS),
    aliases=("three-cushion",))
