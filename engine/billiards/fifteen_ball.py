"""Fifteen-Ball Pool (Hoyle 1940, lines 15081-15194): each ball pocketed scores its number.

Fifteen numbered balls and a white cue ball; the numbers on the balls a player pockets
fairly are his score, 120 in all, so 61 wins a two-handed game. The opening stroke must
drive two object balls to a cushion or pocket one; every later stroke must pocket a ball
or bring an object ball, or the cue ball after contact, to a cushion. A forfeit is three
points off the offender's score; three forfeits in succession lose him the game. Rule 3:
two-handed, the game ends when the leader cannot be caught by the balls left on the table;
with more players, only when the balls left cannot bring the lowest score level with the
next lowest (`last_place_settled`, shared with pyramid pool), the places standing as the
scores then are.

Readings where the book is silent (docs/billiards/fifteen-ball-pool.md):
- balls pocketed on a stroke that forfeits do not count ("pockets them fairly", line
  15113) and are spotted again; an object ball forced off the table is spotted;
- a stroke that breaks several of rule 4's laws forfeits three once (rule 2's last
  paragraph says so for the cue ball pocketed);
- the book does not require a call in this game (rule 1 frees only the opening stroke
  from it, and rule 6 leaves the rest to the continuous-pool rules, which do not say):
  no call is asked for;
- three forfeits in succession end the game for the player making them: with two
  players his opponent wins; with more, the best of the others wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.core import CUE, CUSHION, StrokeEvent, TableFacts, numbered
from engine.billiards.standings import last_place_settled
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, LawRef, Ruling, hoyle_law
from engine.rules import HouseRules, Option, either

LAW_SCORING = hoyle_law(15112, 15123, "Fifteen-ball pool: each ball fairly pocketed counts "
                                      "its number; 61 wins two-handed")
LAW_OPENING = hoyle_law(15129, 15134, "Fifteen-ball pool, rule 1: the opening stroke")
LAW_OPENING_MATCH = hoyle_law(15136, 15143, "Fifteen-ball pool, rule 1: a failed opening in "
                                            "match play")
LAW_STROKE = hoyle_law(15145, 15150, "Fifteen-ball pool, rule 2: every stroke must pocket a "
                                     "ball or reach a cushion; three forfeits in succession")
LAW_CUE_BALL = hoyle_law(15152, 15155, "Fifteen-ball pool, rule 2: the cue ball pocketed "
                                       "forfeits three only")
LAW_END = hoyle_law(15157, 15171, "Fifteen-ball pool, rule 3: the end of the game")
LAW_FORFEITS = hoyle_law(15173, 15183, "Fifteen-ball pool, rule 4: forfeits of three points")
LAW_TIE = hoyle_law(15185, 15187, "Fifteen-ball pool, rule 5: a tie in a match is void")
LAW_GOVERNING = hoyle_law(15189, 15192, "Fifteen-ball pool, rule 6: the three-ball and "
                                        "continuous-pool rules govern otherwise")

FORFEIT = 3
MATCH_FORFEIT = 6
FORFEITS_THAT_LOSE = 3

#: Rule 4's fouls that only a referee sees.
REFEREE_FOULS = ("double-hit", "moving-ball", "no-foot", "out-of-turn")


@dataclass(frozen=True, slots=True)
class FifteenBallRules(HouseRules):
    """`opening`: "club" (a failed opening forfeits 3 and passes the turn) or "match"
    (the balls are set up again, 6 points forfeit, and the same player breaks again)."""

    opening: str = "club"

    def known_options(self) -> tuple[Option, ...]:
        return (either("opening", "club", "match"),)


class FifteenBallState(CueState):
    """A game of fifteen-ball pool in progress."""

    rules: FifteenBallRules
    TABLE: ClassVar[TableFacts] = TableFacts((CUE, *numbered(15)), needs=("path", "driven"))
    FOULS: ClassVar[tuple[str, ...]] = REFEREE_FOULS

    def start(self) -> None:
        self.opened = False
        self.forfeits_in_row = {name: 0 for name in self.players}

    def remaining(self) -> int:
        return sum(int(ball) for ball in self.on_table if ball != CUE)

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        objects = [ball for ball in stroke.pocketed if ball != CUE]
        driven = stroke.facts.driven or 0
        for ball in stroke.off:
            if ball != CUE:
                self.spot(ball)
        if not self.opened:
            if objects or driven >= 2:
                self.opened = True
            elif self.rules.opening == "match":
                return self.rebreak(striker)
            else:
                self.opened = True
                return self.forfeit(striker, stroke, "failed-opening",
                                    "the opening stroke neither pocketed a ball nor drove "
                                    "two to a cushion", LAW_OPENING)
        why = self.forfeit_reason(stroke, objects, driven)
        if why is not None:
            text, law = why
            return self.forfeit(striker, stroke, "foul", text, law)
        self.forfeits_in_row[striker] = 0
        rulings = []
        for ball in objects:
            rulings.append(self.score(striker, int(ball), "ball",
                                      f"{striker} pockets the {ball}-ball: {ball}.",
                                      LAW_SCORING))
        if not objects:
            rulings.append(Ruling("no-count", striker, 0, f"{striker} pockets nothing; the "
                                  f"next player plays.", LAW_STROKE))
            self.end_inning()
        return rulings + self.ended()

    def forfeit_reason(self, stroke: Stroke, objects: list[str],
                       driven: int) -> tuple[str, LawRef] | None:
        facts = stroke.facts
        if CUE in stroke.pocketed:
            return "the cue ball pocketed", LAW_CUE_BALL
        if CUE in stroke.off:
            return "the cue ball forced off the table", LAW_FORFEITS
        if stroke.fouls:
            return f"a foul ({', '.join(stroke.fouls)})", LAW_FORFEITS
        if not facts.path:
            return "a miss", LAW_FORFEITS
        if self.opened and not objects and driven == 0 and not facts.cushion_after_contact:
            return "no ball pocketed and none to a cushion", LAW_STROKE
        return None

    def forfeit(self, striker: str, stroke: Stroke, kind: str, why: str,
                law: LawRef) -> list[Ruling]:
        for ball in stroke.pocketed:
            if ball != CUE:
                self.spot(ball)
        rulings = [self.deduct(striker, FORFEIT, kind,
                               f"{striker} forfeits {FORFEIT} for {why}.", law)]
        self.forfeits_in_row[striker] += 1
        self.end_inning()
        if self.forfeits_in_row[striker] >= FORFEITS_THAT_LOSE:
            others = [name for name in self.players if name != striker]
            best = max(self.scores[name] for name in others)
            rulings.append(self.finish([n for n in others if self.scores[n] == best],
                                       LAW_STROKE, f"three forfeits in succession lose "
                                       f"{striker} the game"))
            return rulings
        return rulings + self.ended()

    def rebreak(self, striker: str) -> list[Ruling]:
        for ball in list(self.down):
            self.spot(ball)
        return [self.deduct(striker, MATCH_FORFEIT, "failed-opening",
                            f"{striker} forfeits {MATCH_FORFEIT}: the opening failed; the "
                            f"balls are set up again and {striker} breaks again.",
                            LAW_OPENING_MATCH)]

    def ended(self) -> list[Ruling]:
        """Rule 3 (15157-15171): over when the balls left cannot bring the lowest score level
        with the next lowest; two-handed that is the leader out of the other's reach. The
        highest wins; level leaders tie (rule 5: in a match the tie is void)."""
        if self.over or not last_place_settled(self.scores.values(), self.remaining()):
            return []
        best = max(self.scores.values())
        winners = [name for name in self.players if self.scores[name] == best]
        if len(winners) > 1:
            return [self.finish(winners, LAW_TIE, "the game is over with the leaders level "
                                "(a match tie is void and played again)")]
        why = ("the balls left cannot bring the other level" if len(self.players) == 2
               else "the balls left cannot bring the lowest level with the next lowest")
        return [self.finish(winners, LAW_END, why)]

    def closings(self) -> list[StrokeEvent]:
        target = next((ball for ball in self.on_table if ball != CUE), CUE)
        return [StrokeEvent(path=(), driven=0), StrokeEvent(path=(target,), driven=0),
                StrokeEvent(path=(target,), driven=2),
                StrokeEvent(path=(target, CUSHION), driven=0)]

    def details(self) -> JSON:
        return {"opened": self.opened, "remaining": self.remaining(),
                "forfeits_in_row": dict(self.forfeits_in_row)}


FIFTEEN_BALL = CueGame(
    "fifteen-ball-pool", "Fifteen-Ball Pool", FifteenBallRules(), "pocket-billiards",
    FifteenBallState,
    (LAW_SCORING, LAW_OPENING, LAW_OPENING_MATCH, LAW_STROKE, LAW_CUE_BALL, LAW_END,
     LAW_FORFEITS, LAW_TIE, LAW_GOVERNING))
