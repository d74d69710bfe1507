"""English Pyramids, or Shell Out (Hoyle 1940, lines 14961-15080): winning hazards on reds.

Fifteen reds in a pyramid and one white, played by every player in turn. Only winning
hazards count, a point (a "life") for each red pocketed; pocketing the white, forcing it
off, a miss or a coup loses a point: a red from the striker's pile goes back on the
pyramid spot, and a player with none owes it, the first red he pockets going back. The
white pocketed with reds gains nothing, the reds going back with one of his; a red forced
off scores nothing. The last hazard counts two with fifteen reds. With two players and one
red left, the maker of the last hazard plays the white and his opponent the red, as at
single pool; then a miss or the striker's own ball pocketed ends the game, the opponent
adding one. The most balls win.

Readings where the book is silent (docs/billiards/english-pyramids.md):
- the striker plays on while he pockets a red fairly (rule 14 of colour-ball pool, the
  English pool of the same book);
- a player's score is his balls less his debts: below nought is what he owes (rule 11);
- the referee's fouls (rule 13, a ball moved in aiming, and the American laws') lose the
  stroke's gain: the reds it pocketed go back; the turn passes;
- a red forced off (rule 14) sends all the reds of the stroke back, and the turn passes;
- the sixteen-ball game (option `reds = 16`, line 15053) has sixteen reds and no double
  last hazard;
- in the two-handed end, the red player pocketing the white makes the last hazard; a
  red pocketed on a stroke that also pockets the last one makes its last two count 1 + 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.core import CUE, OffEvent, PocketEvent, StrokeEvent, TableFacts
from engine.billiards.english_common import AMERICAN_FOULS, RED, once, put_back
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, Event, LawRef, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either

LAW_SCORING = hoyle_law(15003, 15006, "English pyramids: only winning hazards count, one "
                                      "each; the most balls win")
LAW_LOSE = hoyle_law(15008, 15011, "English pyramids: the white pocketed or off, a miss or a "
                                   "coup loses a point")
LAW_RESPOT = hoyle_law(15013, 15017, "English pyramids: the point lost is a ball replaced on "
                                     "the pyramid spot")
LAW_OWN_BALL = hoyle_law(15019, 15024, "English pyramids: the white pocketed with reds gains "
                                       "nothing")
LAW_OWING = hoyle_law(15026, 15037, "English pyramids: a forfeit owed is paid with the first "
                                    "ball pocketed")
LAW_MOVED = hoyle_law(15043, 15045, "English pyramids: a ball moved in aiming loses the "
                                    "stroke's gain")
LAW_OFF = hoyle_law(15047, 15049, "English pyramids: a red forced off scores nothing and is "
                                  "spotted")
LAW_LAST = hoyle_law(15051, 15055, "English pyramids: with fifteen reds the last hazard "
                                   "counts two")
LAW_SINGLE = hoyle_law(15057, 15060, "English pyramids: the last red, white against red as "
                                     "at single pool")
LAW_TWO_BALLS = hoyle_law(15062, 15067, "English pyramids: two balls left, a miss or the "
                                        "striker's own ball pocketed ends the game")

#: The one pocket a random table reports the white's fall in (see `legal_events`).
WHITE_LISTED = "head-left"
FOULS = {"touched-ball": LAW_MOVED, **{k: v for k, v in AMERICAN_FOULS.items()
                                       if k != "touched-ball"}}


@dataclass(frozen=True, slots=True)
class PyramidsRules(HouseRules):
    """`reds`: fifteen (the last hazard counts two) or sixteen, as often in England."""

    reds: int = 15

    def known_options(self) -> tuple[Option, ...]:
        return (either("reds", 15, 16),)


class PyramidsState(CueState):
    """A game of English pyramids in progress."""

    rules: PyramidsRules
    TABLE: ClassVar[TableFacts] = TableFacts((CUE, RED))
    FOULS: ClassVar[tuple[str, ...]] = tuple(FOULS)

    def start(self) -> None:
        self.on_table = [CUE, *[RED] * self.rules.reds]
        self.white_player: str | None = None

    # -- whose ball is whose --------------------------------------------------------------

    @property
    def single(self) -> bool:
        """Whether the two-handed end is on: white against red as at single pool."""
        return self.white_player is not None

    def cue_ball(self) -> str:
        if self.single and self.striker_name != self.white_player:
            return RED
        return CUE

    def check_stroke(self, event: StrokeEvent) -> None:
        began = {*self.on_table, *self.stroke.pocketed, *self.stroke.off}
        own = self.cue_ball()
        for ball in event.struck():
            if ball == own:
                raise IllegalEventError(f"stroke: the path is the contacts of "
                                        f"{self.striker_name}'s ball, the {own}; it cannot "
                                        f"strike itself")
            if ball not in began:
                raise IllegalEventError(f"stroke: the path names the {ball}, which is not on "
                                        f"the table")

    # -- the stroke -----------------------------------------------------------------------

    def rule(self, stroke: Stroke) -> list[Ruling]:
        if self.single:
            return self.rule_single(stroke)
        striker = self.striker_name
        reds = stroke.pocketed.count(RED)
        lost_own = CUE in stroke.pocketed or CUE in stroke.off
        struck = stroke.facts.struck()
        if lost_own or not struck:
            self.give_back(stroke)
            why = ("a coup" if lost_own and not struck else "a miss" if not struck
                   else "the white pocketed or forced off")
            law = LAW_OWN_BALL if lost_own and reds else LAW_RESPOT if struck else LAW_LOSE
            return self.turn_over([self.lose_point(striker, why, law)])
        if stroke.fouls:
            self.give_back(stroke)
            return self.turn_over([Ruling("foul", striker, 0, f"A foul "
                                          f"({', '.join(stroke.fouls)}): {striker} gains "
                                          f"nothing by the stroke.",
                                          FOULS[stroke.fouls[0]])])
        if RED in stroke.off:
            self.give_back(stroke)
            return self.turn_over([Ruling("no-count", striker, 0, f"A red forced off the "
                                          f"table: {striker} scores nothing.", LAW_OFF)])
        if not reds:
            return self.turn_over([Ruling("no-count", striker, 0, f"{striker} pockets "
                                          f"nothing; the next player plays.", LAW_SCORING)])
        return self.hazards(striker, reds) + self.after_hazards(striker)

    def hazards(self, striker: str, reds: int) -> list[Ruling]:
        rulings: list[Ruling] = []
        last = self.rules.reds == 15
        for n in range(reds):
            if self.scores[striker] < 0:
                put_back(self, RED)
                rulings.append(self.score(striker, 1, "ball", f"{striker} pockets a red and "
                                          f"pays a ball he owed: it goes back on the table.",
                                          LAW_OWING))
            elif last and n == reds - 1 and RED not in self.on_table:
                rulings.append(self.score(striker, 2, "ball", f"{striker} makes the last "
                                          f"hazard: 2.", LAW_LAST))
            else:
                rulings.append(self.score(striker, 1, "ball", f"{striker} pockets a red: 1.",
                                          LAW_SCORING))
        return rulings

    def after_hazards(self, striker: str) -> list[Ruling]:
        left = self.on_table.count(RED)
        if left == 0:
            return [self.won_by_balls()]
        if left == 1 and len(self.players) == 2:
            self.white_player = striker
            return [Ruling("single", striker, 0, f"One red left: {striker} plays the white "
                           f"and {self.opponent} the red, in turn, as at single pool.",
                           LAW_SINGLE)]
        return []

    def rule_single(self, stroke: Stroke) -> list[Ruling]:
        """White against red: pocketing the other ball is the last hazard; a miss, or his
        own ball pocketed or off, ends the game with one to the opponent."""
        striker, opponent = self.striker_name, self.opponent
        own = self.cue_ball()
        other = CUE if own == RED else RED
        struck = stroke.facts.struck()
        if own in stroke.pocketed or own in stroke.off or not struck:
            why = "a miss" if not struck else "his own ball pocketed or forced off"
            ruling = self.score(opponent, 1, "foul", f"{striker}: {why}, with two balls "
                                f"left: the game is finished and {opponent} adds one.",
                                LAW_TWO_BALLS)
            return [ruling, self.won_by_balls()]
        if stroke.fouls or other in stroke.off or other not in stroke.pocketed:
            self.give_back(stroke)
            return self.turn_over([Ruling("no-count", striker, 0, f"{striker} makes no "
                                          f"hazard; {opponent} plays.", LAW_SINGLE)])
        value = 2 if self.rules.reds == 15 else 1
        law = LAW_LAST if value == 2 else LAW_SCORING
        return [self.score(striker, value, "ball", f"{striker} pockets the {other}, the last "
                           f"hazard: {value}.", law), self.won_by_balls()]

    # -- forfeits and the end ---------------------------------------------------------------

    def lose_point(self, striker: str, why: str, law: LawRef) -> Ruling:
        """A point lost: a red from his pile back on the pyramid spot, or owed if he has none."""
        if self.scores[striker] > 0:
            put_back(self, RED)
            text = f"{striker} loses a point for {why}: a red of his goes back on the table."
        else:
            text = f"{striker} loses a point for {why} and, having no ball, owes one."
        return self.deduct(striker, 1, "foul", text, law)

    def give_back(self, stroke: Stroke) -> None:
        """The reds a stroke pocketed or forced off go back; it gained nothing."""
        for ball in [*stroke.pocketed, *stroke.off]:
            if ball == RED:
                put_back(self, RED)

    def turn_over(self, rulings: list[Ruling]) -> list[Ruling]:
        self.end_inning()
        return rulings

    def won_by_balls(self) -> Ruling:
        best = max(self.scores.values())
        return self.finish([name for name in self.players if self.scores[name] == best],
                           LAW_SCORING, "the reds are all down: the most balls win")

    def legal_events(self) -> list[Event]:
        """Every legal event, but the white's fall listed in one pocket only and no ball
        forced off; each red's fall once per pocket, the reds being alike.

        Any pocket is accepted and any ball may be forced off. A random table that loses
        the white as often as it pockets a red pays back more balls than it wins, and its
        games never end.
        """
        return once([event for event in super().legal_events()
                     if not isinstance(event, OffEvent)
                     and (not isinstance(event, PocketEvent) or event.ball == RED
                          or event.pocket == WHITE_LISTED)])

    def closings(self) -> list[StrokeEvent]:
        other = CUE if self.cue_ball() == RED else RED
        return [StrokeEvent(path=(other,)), StrokeEvent(path=("cushion", other)),
                StrokeEvent(path=(other, "cushion"))]

    def details(self) -> JSON:
        return {"reds_on_table": self.on_table.count(RED),
                "owes": {name: max(0, -self.scores[name]) for name in self.players},
                "white_player": self.white_player,
                "cue_ball": None if self.over else self.cue_ball()}


ENGLISH_PYRAMIDS = CueGame(
    "english-pyramids", "English Pyramids, or Shell Out", PyramidsRules(), "pocket-billiards",
    PyramidsState,
    (LAW_SCORING, LAW_LOSE, LAW_RESPOT, LAW_OWN_BALL, LAW_OWING, LAW_MOVED, LAW_OFF, LAW_LAST,
     LAW_SINGLE, LAW_TWO_BALLS, *AMERICAN_FOULS.values()))
