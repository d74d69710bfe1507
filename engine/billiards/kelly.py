"""Kelly Rotation Pocket Billiards (Hoyle 1940, lines 15675-15796): the lowest ball first, and
a private small ball that wins or kills.

Fifteen numbered balls and a cue ball, for two to fifteen players (the table seats twelve).
The striker must play each time upon the lowest-numbered ball on the table (the first ball
of the stroke's `path`); any ball pocketed after that counts for him, and he plays on while
he scores. Before play each player draws a small ball numbered 1-15 from a bottle (a
`private` event, kept from the others): pocketing the ball of one's own number wins the game
at once; pocketing another player's number kills him: he forfeits, surrenders his small
ball and plays on without a chance to win (15728-15748). The fifteen balls pocketed with no
winner: play begins again, with new small balls (15750-15756).

Readings where the book is silent (docs/billiards/kelly-rotation.md):
- the size of a forfeit is never stated: option `forfeit` (default 1, a unit paid into the
  pool), shown on the sheet as a negative score;
- the cue ball pocketed or forced off is a scratch and forfeits, as in every pool game of
  the book; a miss forfeits (it fails to hit the lowest ball);
- every ball pocketed on a stroke that forfeits is returned to the table, not only when the
  lowest is among them (15771-15774 says so for that case); an object ball forced off the
  table is returned and does not count;
- a replay is opened by the next player in the order of play; with option
  `double_header` the replay is played for double stakes (the snapshot's `stakes`);
- not ruled yet: the frozen-ball exception (15767-15769) needs a fact no stroke reports
  (the cue ball frozen to the lowest ball); such a stroke is ruled as a foul.
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
    PrivateEvent,
    StrokeEvent,
    TableFacts,
    numbered,
)
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, Awaiting, Event, LawRef, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, whole

LAW_OPENING = hoyle_law(15696, 15702, "Kelly rotation: the opening stroke at the 1-ball")
LAW_LOWEST = hoyle_law(15704, 15712, "Kelly rotation: play on the lowest ball; balls "
                                     "pocketed after it count")
LAW_SMALL_BALLS = hoyle_law(15728, 15737, "Kelly rotation: the small ball held; pocketing "
                                          "its number wins")
LAW_DEAD = hoyle_law(15739, 15748, "Kelly rotation: pocketing another's number kills him")
LAW_NO_WINNER = hoyle_law(15750, 15756, "Kelly rotation: fifteen balls down without a winner")
LAW_FOULS = hoyle_law(15758, 15765, "Kelly rotation: failing to hit the lowest ball first "
                                    "forfeits")
LAW_RETURNED = hoyle_law(15771, 15783, "Kelly rotation: balls pocketed by a foul or a "
                                       "scratch are returned")
LAW_PUSH = hoyle_law(2614, 2622, "American billiard laws 1-2: the point of the cue; the push")
LAW_FOOT = hoyle_law(2648, 2649, "American billiard laws 4: one foot on the floor")
LAW_TOUCH = hoyle_law(2683, 2700, "American billiard laws 7: the cue ball touched twice, a "
                                  "ball touched")

#: The referee's fouls (the general rules of billiards), each with its law.
FOUL_LAWS: dict[str, LawRef] = {"push": LAW_PUSH, "no-foot": LAW_FOOT,
                                "double-hit": LAW_TOUCH, "touched-ball": LAW_TOUCH}
OBJECT_BALLS = numbered(15)


@dataclass(frozen=True, slots=True)
class KellyRules(HouseRules):
    """`forfeit`: what a forfeit costs (the book never says; 1 by default);
    `double_header`: a replay after fifteen balls without a winner is for double stakes."""

    forfeit: int = 1
    double_header: bool = False

    def known_options(self) -> tuple[Option, ...]:
        return (whole("forfeit", 0, 100), either("double_header", False, True))


class KellyState(CueState):
    """A game of Kelly rotation in progress."""

    rules: KellyRules
    TABLE: ClassVar[TableFacts] = TableFacts((CUE, *OBJECT_BALLS), needs=("path",))
    FOULS: ClassVar[tuple[str, ...]] = tuple(FOUL_LAWS)
    PRIVATE: ClassVar[tuple[int, int] | None] = (1, 15)

    def start(self) -> None:
        self.opener = 0
        self.strokes_before = 0
        self.games = 1
        self.stakes = 1
        self.dead: list[str] = []
        self.credited: dict[str, list[str]] = {name: [] for name in self.players}

    # -- the small balls ------------------------------------------------------------------

    def undrawn(self) -> list[str]:
        return [name for name in self.players if name not in self.private]

    def verify(self, event: Event) -> None:
        table = (PocketEvent, OffEvent, FoulEvent, CallEvent, StrokeEvent)
        if isinstance(event, table) and self.undrawn() and not self.over:
            raise IllegalEventError(f"{event.type}: every player draws his small ball before "
                                    f"play; {', '.join(self.undrawn())} has not")
        super().verify(event)

    def legal_events(self) -> list[Event]:
        if self.over or not self.undrawn():
            return super().legal_events()
        taken = set(self.private.values())
        return [PrivateEvent(name, number) for name in self.undrawn()
                for number in range(1, 16) if number not in taken]

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over or not self.undrawn():
            return super().awaiting()
        return tuple(Awaiting("private", "player", name, "the small ball drawn from the bottle")
                     for name in self.undrawn())

    # -- the stroke -----------------------------------------------------------------------

    def lowest(self, stroke: Stroke) -> str:
        """The lowest-numbered ball on the table when the stroke began."""
        balls = [b for b in (*self.on_table, *stroke.pocketed, *stroke.off) if b != CUE]
        return min(balls, key=int)

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        lowest = self.lowest(stroke)
        objects = [ball for ball in stroke.pocketed if ball != CUE]
        for ball in stroke.off:
            if ball != CUE:
                self.spot(ball)
        why = self.fault(stroke, lowest)
        if why is not None:
            text, law = why
            return self.forfeit(striker, objects, text, law)
        if not objects:
            self.end_inning()
            return [Ruling("no-count", striker, 0, f"{striker} pockets nothing; the next "
                           "player plays.", LAW_LOWEST)]
        rulings: list[Ruling] = []
        law = LAW_OPENING if self.strokes_this_game() == 1 else LAW_LOWEST
        for ball in objects:
            self.credited[striker].append(ball)
            rulings.append(Ruling("ball", striker, 0, f"{striker} pockets the {ball}-ball "
                                  f"after playing on the {lowest}.", law))
            rulings += self.small_ball(striker, int(ball))
            if self.over:
                return rulings
        if not any(ball in self.on_table for ball in OBJECT_BALLS):
            rulings += self.replay()
        return rulings

    def strokes_this_game(self) -> int:
        return self.strokes - self.strokes_before

    def fault(self, stroke: Stroke, lowest: str) -> tuple[str, LawRef] | None:
        """Why the stroke forfeits, with the law; None if it does not."""
        if stroke.fouls:
            return f"a foul ({', '.join(stroke.fouls)})", FOUL_LAWS[stroke.fouls[0]]
        first = stroke.facts.first
        if first is None:
            return f"a miss (the {lowest}-ball not hit)", LAW_FOULS
        if first != lowest:
            return f"the {first}-ball hit before the {lowest}", LAW_FOULS
        if CUE in stroke.pocketed or CUE in stroke.off:
            return "a scratch (the cue ball " + ("pocketed)" if CUE in stroke.pocketed
                                                 else "forced off)"), LAW_RETURNED
        return None

    def forfeit(self, striker: str, objects: list[str], why: str,
                law: LawRef) -> list[Ruling]:
        for ball in objects:
            self.spot(ball)
        rulings = [self.deduct(striker, self.rules.forfeit, "foul",
                               f"{striker} forfeits {self.rules.forfeit} for {why}.", law)]
        if objects:
            rulings.append(Ruling("returned", striker, 0, f"{', '.join(objects)} "
                                  f"{'is' if len(objects) == 1 else 'are'} returned to the "
                                  "table.", LAW_RETURNED))
        self.end_inning()
        return rulings

    def small_ball(self, striker: str, number: int) -> list[Ruling]:
        """A ball pocketed fairly: the striker's own number wins, another's kills."""
        holder = next((name for name, held in self.private.items()
                       if held == number and name not in self.dead), None)
        if holder is None:
            return []
        if holder == striker:
            self.over = True
            self.won = (striker,)
            return [Ruling("winner", striker, self.stakes, f"{striker} pockets the "
                           f"{number}-ball, the number of his small ball: he wins.",
                           LAW_SMALL_BALLS)]
        self.dead.append(holder)
        return [self.deduct(holder, self.rules.forfeit, "dead", f"{striker} pockets the "
                            f"{number}-ball: {holder} holds that number, is dead, forfeits "
                            f"{self.rules.forfeit} and surrenders his small ball.", LAW_DEAD)]

    def replay(self) -> list[Ruling]:
        """Fifteen balls down without a winner: play begins again, with new small balls."""
        for ball in OBJECT_BALLS:
            self.spot(ball)
        self.private.clear()
        self.dead.clear()
        self.credited = {name: [] for name in self.players}
        self.games += 1
        if self.rules.double_header:
            self.stakes *= 2
        self.opener = (self.opener + 1) % len(self.players)
        self.run = 0
        self.striker = self.opener
        self.innings[self.striker_name] += 1
        self.strokes_before = self.strokes
        stakes = " for double stakes" if self.rules.double_header else ""
        return [Ruling("replay", None, None, f"The fifteen balls are down without a winner: "
                       f"play begins again{stakes}, new small balls are drawn and "
                       f"{self.striker_name} opens.", LAW_NO_WINNER)]

    def closings(self) -> list[StrokeEvent]:
        lowest = self.lowest(self.stroke)
        others = [b for b in self.on_table if b not in (CUE, lowest)]
        wrong = others[-1] if others else lowest
        return [StrokeEvent(path=(lowest,)), StrokeEvent(path=(lowest, CUSHION)),
                StrokeEvent(path=(wrong,))]

    def disclosed(self) -> dict[str, int]:
        """A player killed declares himself dead and surrenders his small ball (15739-15743):
        its number, the ball just pocketed, is known to all from then on."""
        return {name: self.private[name] for name in self.dead if name in self.private}

    def details(self) -> JSON:
        return {"game": self.games, "stakes": self.stakes, "dead": list(self.dead),
                "credited": {name: list(balls) for name, balls in self.credited.items()}}


KELLY = CueGame(
    "kelly-rotation", "Kelly Rotation Pocket Billiards", KellyRules(), "pocket-billiards",
    KellyState,
    (LAW_OPENING, LAW_LOWEST, LAW_SMALL_BALLS, LAW_DEAD, LAW_NO_WINNER, LAW_FOULS,
     LAW_RETURNED, LAW_PUSH, LAW_FOOT, LAW_TOUCH))
