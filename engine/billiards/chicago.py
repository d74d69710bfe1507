"""Chicago Pool (Hoyle 1940, lines 14507-14576): fifteen-ball pool played in numerical order.

The fifteen balls are set round the foot and sides of the table on the diamond sights; the
striker must play each time upon the lowest-numbered ball on the table (the first ball in
his stroke's `path`), and a ball pocketed after that counts its number whatever it is.
Failing to hit the required ball forfeits three, a scratch (14550-14553); a ball holed by a
foul stroke goes back to its place. The lowest score pays for refreshments, the second
lowest for the game (14563-14571). Fifteen-ball pool's rules govern the rest (14573-14574):
forfeits of three, three in succession losing the game, and the end of the game (rule 3).

Readings where the book is silent (docs/billiards/chicago-pool.md):
- fifteen-ball's opening rule (two balls to a cushion or one pocketed) is for a pyramid and
  conflicts with Chicago's spread of balls on the rails: the opening stroke is a stroke like
  any other, which must strike the 1-ball first;
- with more than two players the game ends, as fifteen-ball's rule 3 says, when the balls
  left cannot bring the lowest player level with the next lowest (fifteen-ball's own end,
  `last_place_settled`); the payers are named when the game ends, ties sharing a place;
- the positions (the diamond sights, the 8 to 11 on the pyramid spot when the cue ball is
  in hand) are the referee's: the engine knows only which balls are on the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.billiards.core import CUE, CUSHION, StrokeEvent
from engine.billiards.fifteen_ball import (
    LAW_CUE_BALL,
    LAW_END,
    LAW_FORFEITS,
    LAW_GOVERNING,
    LAW_SCORING,
    LAW_STROKE,
    LAW_TIE,
    FifteenBallRules,
    FifteenBallState,
)
from engine.billiards.table import CueGame, Stroke
from engine.core import JSON, LawRef, Ruling, hoyle_law
from engine.rules import Option

LAW_LOWEST = hoyle_law(14541, 14548, "Chicago pool: play upon the lowest-numbered ball; any "
                                     "ball pocketed after it counts")
LAW_SCRATCH = hoyle_law(14550, 14553, "Chicago pool: failing to hit the required ball "
                                      "forfeits three")
LAW_FOUL_HOLED = hoyle_law(14555, 14561, "Chicago pool: a ball holed by a foul stroke is "
                                         "replaced")
LAW_PAYERS = hoyle_law(14563, 14571, "Chicago pool: the lowest pays for refreshments, the "
                                     "second lowest for the game")


@dataclass(frozen=True, slots=True)
class ChicagoRules(FifteenBallRules):
    """Chicago pool has no house options: fifteen-ball's opening is not played."""

    def known_options(self) -> tuple[Option, ...]:
        return ()


class ChicagoState(FifteenBallState):
    """A game of Chicago pool in progress: fifteen-ball pool, the lowest ball first."""

    def start(self) -> None:
        super().start()
        # The spread of balls on the rails has no pyramid to break: every stroke is ruled
        # alike, the first one included.
        self.opened = True
        self.payers: dict[str, list[str]] = {}

    def lowest(self, stroke: Stroke) -> str:
        """The lowest-numbered ball on the table when the stroke began."""
        balls = [b for b in (*self.on_table, *stroke.pocketed, *stroke.off) if b != CUE]
        return min(balls, key=int)

    def forfeit_reason(self, stroke: Stroke, objects: list[str],
                       driven: int) -> tuple[str, LawRef] | None:
        first = stroke.facts.first
        if first is not None and first != self.lowest(stroke):
            return f"not hitting the {self.lowest(stroke)}-ball first (a scratch)", LAW_SCRATCH
        return super().forfeit_reason(stroke, objects, driven)

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker, required = self.striker_name, self.lowest(stroke)
        rulings = [self.chicago(ruling, required) for ruling in super().rule(stroke)]
        holed = [ball for ball in stroke.pocketed if ball != CUE]
        if holed and any(r.kind == "foul" for r in rulings):
            rulings.append(Ruling("spotted", striker, 0,
                                  f"Holed by a foul stroke, {', '.join(holed)} "
                                  f"{'goes' if len(holed) == 1 else 'go'} back to "
                                  f"{'its place' if len(holed) == 1 else 'their places'}.",
                                  LAW_FOUL_HOLED))
        if self.over and not self.payers:
            rulings += self.name_payers()
        return rulings

    def chicago(self, ruling: Ruling, required: str) -> Ruling:
        """Fifteen-ball's ruling, citing Chicago's law where Chicago's is the narrower."""
        if ruling.kind == "ball" and ruling.law == LAW_SCORING:
            return Ruling(ruling.kind, ruling.who, ruling.amount,
                          ruling.text.rstrip(".") + f", after playing on the {required}.",
                          LAW_LOWEST)
        return ruling

    def name_payers(self) -> list[Ruling]:
        levels = sorted(set(self.scores.values()))
        lowest = [n for n in self.players if self.scores[n] == levels[0]]
        second = ([n for n in self.players if self.scores[n] == levels[1]]
                  if len(levels) > 1 else [])
        self.payers = {"refreshments": lowest, "game": second}
        rulings = [Ruling("payer", name, None, f"{name}, lowest, pays for the refreshments.",
                          LAW_PAYERS) for name in lowest]
        rulings += [Ruling("payer", name, None, f"{name}, second lowest, pays for the game.",
                           LAW_PAYERS) for name in second]
        return rulings

    def closings(self) -> list[StrokeEvent]:
        lowest = self.lowest(self.stroke)
        others = [b for b in self.on_table if b not in (CUE, lowest)]
        wrong = others[-1] if others else lowest
        return [StrokeEvent(path=(lowest,), driven=0), StrokeEvent(path=(lowest,), driven=1),
                StrokeEvent(path=(lowest, CUSHION), driven=0),
                StrokeEvent(path=(wrong,), driven=1)]

    def details(self) -> JSON:
        return {**super().details(),
                "payers": {place: list(names) for place, names in self.payers.items()}}


CHICAGO = CueGame(
    "chicago-pool", "Chicago Pool", ChicagoRules(), "pocket-billiards", ChicagoState,
    (LAW_LOWEST, LAW_SCRATCH, LAW_FOUL_HOLED, LAW_PAYERS,
     LAW_STROKE, LAW_CUE_BALL, LAW_END, LAW_FORFEITS, LAW_TIE, LAW_GOVERNING, LAW_SCORING))
