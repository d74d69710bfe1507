"""What the English-table games share: the referee's fouls, forfeits, reds alike, late calls.

English billiards, carlin, snooker, colour-ball pool and English pyramids are played on the
English six-pocket table. They share the American Billiard Laws' fouls (lines 2611-2711,
"foul, and no count"), the continuous-pool law that a game is the number of points agreed
(14773-14779), the open question whether a forfeit comes off the striker's score or goes
to his opponent, and, in the pyramid games, fifteen red balls no one can tell apart: a
"red" is pocketed and spotted by that name, and each red on the table is one entry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from engine.billiards.core import CallEvent, StrokeEvent
from engine.billiards.table import CueState
from engine.core import Event, LawRef, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import Option, either

RED = "red"

LAW_GAME = hoyle_law(14773, 14779, "Continuous pool: the game is any number of points "
                                   "agreed upon")
LAW_PUSH = hoyle_law(2614, 2622, "American billiard laws 1-2: a push is foul, and no count")
LAW_NO_FOOT = hoyle_law(2648, 2649, "American billiard laws 4: at least one foot on the "
                                    "floor")
LAW_MOVING = hoyle_law(2651, 2656, "American billiard laws 5: touching a ball in motion")
LAW_DOUBLE = hoyle_law(2683, 2700, "American billiard laws 7: touching the cue ball twice, "
                                   "or an object ball, nullifies the count")
LAW_TOUCHED = hoyle_law(2706, 2711, "American billiard laws 8: any touch is a stroke; a "
                                    "second touch is foul")
LAW_WRONG_BALL = hoyle_law(2662, 2677, "American billiard laws 6: playing with the wrong ball")

#: The referee's fouls of the American Billiard Laws, each with its law: foul, no count.
AMERICAN_FOULS: Mapping[str, LawRef] = {
    "push": LAW_PUSH, "double-hit": LAW_DOUBLE, "no-foot": LAW_NO_FOOT,
    "moving-ball": LAW_MOVING, "touched-ball": LAW_TOUCHED,
}

DEDUCTED = "deducted"
OPPONENT = "opponent"


def forfeits_option() -> Option:
    """Whether a forfeit comes off the striker's score (default) or goes to his opponent."""
    return either("forfeits", DEDUCTED, OPPONENT)


def forfeit(state: CueState, points: int, to_opponent: bool, kind: str, text: str,
            law: LawRef) -> Ruling:
    """The striker forfeits `points`: off his score, or to the next player in turn."""
    striker = state.striker_name
    if to_opponent:
        return state.score(state.opponent, points, kind,
                           f"{text} {striker} forfeits {points} to {state.opponent}.", law)
    return state.deduct(striker, points, kind, f"{text} {striker} forfeits {points}.", law)


def put_back(state: CueState, ball: str) -> None:
    """Return one ball that is down to the table (one red among several, or a colour)."""
    state.down.remove(ball)
    state.on_table.append(ball)


def once(events: Sequence[Event]) -> list[Event]:
    """The events without repeats (fifteen reds give one `pocket` per pocket, not fifteen)."""
    return list(dict.fromkeys(events))


class CalledState(CueState):
    """A game whose ball on may have to be named, at any time before the stroke closes.

    The referee names the ball on (a snooker colour, the nearest ball at colour-ball pool)
    when the stroke's own facts do not show it; as he may learn it is needed only once the
    balls have run, the call is taken until the stroke is closed, naming a ball that was on
    the table when the stroke began.
    """

    CALLS: ClassVar[bool] = True

    def candidates(self) -> list[str]:
        """The object balls on the table when the stroke began."""
        balls = [*self.on_table, *self.stroke.pocketed, *self.stroke.off]
        return [ball for ball in dict.fromkeys(balls) if ball not in self.RETURNED]

    def verify(self, event: Event) -> None:
        if not isinstance(event, CallEvent):
            super().verify(event)
            return
        if self.over:
            raise IllegalEventError("call: the game is over")
        if self.stroke.call is not None:
            raise IllegalEventError(f"call: the ball on is already named "
                                    f"({self.stroke.call.ball})")
        if event.ball not in self.candidates():
            raise IllegalEventError(f"call: ball {event.ball} was not an object ball on the "
                                    f"table")
        self.check_call(event)

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        events: list[Event] = [event for event in super().legal_events()
                               if not isinstance(event, CallEvent)]
        if self.stroke.call is None:
            events.extend(self.calls())
        return once(events)

    def check_stroke(self, event: StrokeEvent) -> None:
        self.check_struck(event)
        need = self.call_needed(event)
        if need is not None and self.stroke.call is None:
            raise IllegalEventError(f"stroke: {self.game.name} needs a call first: {need}")

    def check_struck(self, event: StrokeEvent) -> None:
        """The cue ball can only have struck balls that were on the table."""
        there = self.candidates()
        for ball in event.struck():
            if ball not in there:
                raise IllegalEventError(f"stroke: the path names ball {ball}, which was not "
                                        f"on the table")

    def call_needed(self, event: StrokeEvent) -> str | None:
        """Why this stroke cannot be ruled without a call (None if it can)."""
        return None

    def ruled(self, events: Sequence[StrokeEvent]) -> list[StrokeEvent]:
        """The stroke reports among `events` that can close the stroke as it stands."""
        ruled: list[StrokeEvent] = []
        for event in events:
            try:
                self.check_stroke(event)
            except IllegalEventError:
                continue
            ruled.append(event)
        return ruled


def buttons(points: int) -> int:
    """Points on a button string, each 5 to the nearest one button (23 is 5, 22 is 4)."""
    return (2 * points + 5) // 10
