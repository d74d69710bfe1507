"""One frame (inning) of bowling: the rack, the balls in it, when it ends, what it scores.

Pure and small: `Frame.roll` takes what the pin deck read after a ball and updates
the rack the way the pinsetter would (a penalised foul respots; a cleared rack in
the last frame of a ten-pin style game is set up again for the extra balls).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.bowling.rules import BowlingRules, NewportCount, Scoring

FEATHER_PIN = 5
HEAD_PIN = 1


@dataclass(frozen=True, slots=True)
class Ball:
    """One delivered ball: pins it felled as read, whether it was a foul, pins credited."""

    down: frozenset[int]
    foul: bool
    pins: int
    mark: str


@dataclass(slots=True)
class Frame:
    """A frame in progress or finished. `rack` is what stands for the next ball."""

    number: int
    last: bool
    rules: BowlingRules
    rack: frozenset[int]
    balls: list[Ball] = field(default_factory=list)
    ball_on_rack: int = 0
    foul_on_rack: bool = False
    strike: bool = False
    spare: bool = False
    broken: bool = False  # Four Back: two pins with one ball
    over: bool = False

    @classmethod
    def start(cls, number: int, rules: BowlingRules) -> Frame:
        return cls(number, number == rules.frames, rules, frozenset(rules.pins))

    def roll(self, standing: frozenset[int], foul: bool, made: frozenset[int]) -> Ball:
        """Record a ball given the pins read standing after it; `made`: Newport counts."""
        rules = self.rules
        down = self.rack - standing
        penalised = foul and rules.foul_penalty
        if penalised:
            pins = 0
        elif rules.pin_values:
            pins = sum(rules.value_of(p) for p in down)
        else:
            pins = len(down)
        cleared = not penalised and not standing
        mark = self._mark(len(down), penalised, cleared)
        ball = Ball(frozenset(down), foul, pins, mark)
        self.balls.append(ball)
        if not penalised:
            self.rack = frozenset(standing)
        if rules.scoring is Scoring.FOUR_BACK and not penalised and len(down) > 1:
            self.broken = True
        self.ball_on_rack += 1
        self.foul_on_rack = self.foul_on_rack or penalised
        self.over = self._ends(made)
        if self.last and not self.rack and not self.over:
            self.rack = frozenset(rules.pins)
            self.ball_on_rack = 0
            self.foul_on_rack = False
        return ball

    def _mark(self, felled: int, penalised: bool, cleared: bool) -> str:
        if penalised:
            return "F"
        if cleared and self.rules.scoring is Scoring.BONUS:
            if self.ball_on_rack == 0:
                if len(self.balls) == 0:
                    self.strike = True
                return "X"
            spare_allowed = self.rules.spare_after_foul or not self.foul_on_rack
            if self.ball_on_rack < self.rules.spare_within and spare_allowed:
                if not self.strike and not self.spare:
                    self.spare = True
                return "/"
        return str(felled) if felled else "-"

    def _ends(self, made: frozenset[int]) -> bool:
        rules = self.rules
        rolled = len(self.balls)
        if rules.scoring is Scoring.BONUS:
            if self.last:
                if self.strike:
                    return rolled == 3
                if self.spare:
                    return rolled == len(self._first_rack_balls()) + 1
            return not self.rack or rolled == rules.balls_per_frame
        if not self.rack or rolled == rules.balls_per_frame:
            return True
        if rules.scoring is Scoring.FEATHER:
            return self.rack == {FEATHER_PIN}
        if rules.scoring in (Scoring.NINE_PINS, Scoring.NINE_UP_NINE_DOWN):
            return len(self.rack) == 1
        if rules.scoring is Scoring.HEAD_PIN_FOUR_BACK:
            return self.rack == {HEAD_PIN}
        if rules.scoring is Scoring.FOUR_BACK:
            return self.broken
        if rules.newport_count is NewportCount.FIRST_NEW:
            return self.pins() not in made and self.pins() > 0
        return False

    def _first_rack_balls(self) -> list[Ball]:
        """The balls up to and including the spare in the tenth frame."""
        for i, ball in enumerate(self.balls):
            if ball.mark == "/":
                return self.balls[: i + 1]
        return self.balls

    def pins(self) -> int:
        return sum(b.pins for b in self.balls)

    def inning_score(self, made: frozenset[int]) -> int:
        """The score of a finished frame of an innings game (not ten-pin style)."""
        scoring = self.rules.scoring
        if scoring is Scoring.FEATHER:
            return 1 if self.rack == {FEATHER_PIN} else 0
        if scoring is Scoring.NINE_PINS:
            return 1 if len(self.rack) == 1 else 0
        if scoring is Scoring.HEAD_PIN_FOUR_BACK:
            if self.rack == {HEAD_PIN}:
                return 2
            return 1 if not self.rack else 0
        if scoring is Scoring.FOUR_BACK:
            return 0 if self.broken else self.pins()
        if scoring is Scoring.NINE_UP_NINE_DOWN:
            first = int(len(self.balls[0].down) == 1 and self.balls[0].pins == 1)
            last = int(len(self.rack) == 1)
            if self.rules.nothing_unless_both:
                return 2 if first and last else 0
            return first + last
        count = self.pins()
        return 1 if count > 0 and count not in made else 0

    def bonus_balls(self) -> int:
        """Balls after this frame that count in it (ten-pin style, not the last frame)."""
        if self.last:
            return 0
        return 2 if self.strike else 1 if self.spare else 0
