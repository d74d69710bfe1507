"""French Caroms and the three-ball games on its rules: balk-line, cushion caroms, bank shots.

French caroms (Hoyle 1940, lines 2473-2530): two whites and a red on a table without
pockets. A carom (the cue ball striking both other balls, in any order, directly or off
cushions) counts one and the striker plays on; missing both balls counts one for the
non-striker; the opening stroke must strike the red first. The variants add one law each:

- Balk-line (2531-2558): no more than one or two caroms within a balk space without
  driving a ball out; the game is named by the line's distance and the shots allowed
  (18-2, 18-1). The special balk-line rules (2964-3027) say how: two shots are allowed
  with both object balls in one balk space (or anchor), and unless the second drives one
  out, it is void and the hand is out; a ball driven out and back is in for the first time.
- Cushion caroms (2559-2574): the cue ball must touch an agreed number of cushions before
  completing the carom, before the first object ball or between the two.
- Bank-shot billiards (2575-2585): the cue ball must strike a cushion before it touches an
  object ball; striking an object ball first is foul.

Readings (docs/billiards/<id>.md):
- the book gives no length for these games; the default is 34 points, "the standard game
  to-day in many places" (2454-2458), a named option;
- the balk-line rulings cite the passage of the game (2534-2541), which says the limit;
  the special rules that say how (2986-2995) lie outside the passage games.csv gives it,
  so its vectors cite them instead;
- the number of cushions at cushion caroms is left to agreement (2563-2565); the laws of
  the cushion carom game (3037-3041) make it one or more, the default;
- a foul bank shot makes no count and ends the inning, as the general laws' fouls do
  (2614-2616); it is not scored as a miss;
- French caroms, cushion caroms and bank shots bar the crotch (2934-2940, the three-ball
  carom laws): `balk` says a stroke left both object balls crotched, and is needed once
  the striker's last stroke left them there (engine/billiards/carom.py); balk-line's
  stricter rule governs its own table, and needs `balk` on every stroke;
- the OCR prints the anchor's width as "34 inches" (line 3013): read 3½ inches, half its
  7-inch length, as the catalogue recommends; the referee judges the anchor, so the
  reading only names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.carom import (
    BALK_SPACE,
    CROTCH_TABLE,
    FAMILY_LAWS,
    RED,
    THREE_BALLS,
    CaromRules,
    CaromState,
    Count,
)
from engine.billiards.core import CUSHION, StrokeEvent, TableFacts
from engine.billiards.table import CueGame, Stroke
from engine.core import JSON, LawRef, hoyle_law
from engine.rules import Option, either, one_of, whole

LAW_FRENCH_OPENING = hoyle_law(2485, 2490, "French caroms: the opening, the striker must play "
                                           "first on the red")
LAW_FRENCH_CAROM = hoyle_law(2496, 2510, "French caroms: a carom counts one, either ball "
                                         "first after the opening")
LAW_FRENCH_MISS = hoyle_law(2510, 2511, "French caroms: both balls missed count one for the "
                                        "non-striker")
LAW_BALK = hoyle_law(2534, 2541, "Balk-line: no more than one or two caroms within a balk "
                                 "space without driving a ball out")
LAW_CUSHION = hoyle_law(2561, 2570, "Cushion caroms: the agreed cushions before completing "
                                    "the carom")
LAW_BANK = hoyle_law(2578, 2583, "Bank-shot billiards: a cushion before the object ball, or "
                                 "the stroke is foul")


class FrenchCaromState(CaromState):
    """A game of French caroms (straight rail) in progress: the crotch is barred, so a
    stroke says when it left the object balls crotched (`balk`, needed once they lie there)."""

    TABLE: ClassVar[TableFacts] = CROTCH_TABLE
    LAW_COUNT: ClassVar[LawRef] = LAW_FRENCH_CAROM
    LAW_RED: ClassVar[LawRef] = LAW_FRENCH_OPENING
    LAW_MISS: ClassVar[LawRef] = LAW_FRENCH_MISS

    def closings(self) -> list[StrokeEvent]:
        other = next(ball for ball in self.objects() if ball != RED)
        return self.carom_closings((RED, other), (RED, CUSHION, other), (other,))


@dataclass(frozen=True, slots=True)
class BalkLineRules(CaromRules):
    """`line`: the balk lines' distance from the rail in inches, which names the game;
    `shots`: the strokes allowed with both object balls in one balk space (18-2, 18-1)."""

    line: int = 18
    shots: int = 2

    def known_options(self) -> tuple[Option, ...]:
        return (*CaromRules.known_options(self), one_of("line", 10, 12, 14, 18),
                either("shots", 2, 1))


class BalkLineState(FrenchCaromState):
    """A game of balk-line billiards in progress: each stroke says whether it left the object
    balls in the balk space they lay in (`balk`)."""

    rules: BalkLineRules
    TABLE: ClassVar[TableFacts] = TableFacts(THREE_BALLS.balls, needs=("path", "balk"),
                                             counts=True, pockets=())
    LAW_KEPT_IN: ClassVar[LawRef] = LAW_BALK
    SPACE: ClassVar[str] = BALK_SPACE
    SPACE_WORDS: ClassVar[str] = "the space"

    def limit(self) -> int | None:
        return self.rules.shots

    def closings(self) -> list[StrokeEvent]:
        other = next(ball for ball in self.objects() if ball != RED)
        return [*self.carom_closings((RED, other), balk=True),
                StrokeEvent(path=(RED, other), balk=False), StrokeEvent(path=(other,),
                                                                         balk=False)]

    def details(self) -> JSON:
        return {**super().details(), "balk_line": f"{self.rules.line}-{self.rules.shots}"}


@dataclass(frozen=True, slots=True)
class CushionRules(CaromRules):
    """`cushions`: how many cushions the cue ball must touch before completing the carom."""

    cushions: int = 1

    def known_options(self) -> tuple[Option, ...]:
        return (*CaromRules.known_options(self), whole("cushions", 1, 3))


class CushionCaromState(FrenchCaromState):
    """A game of cushion caroms in progress."""

    rules: CushionRules
    LAW_COUNT: ClassVar[LawRef] = LAW_CUSHION

    def counted(self, stroke: Stroke) -> Count:
        struck = stroke.facts.struck()
        if len(struck) < 2:
            return Count(0, "no carom", LAW_FRENCH_CAROM)
        needed, touched = self.rules.cushions, stroke.facts.cushions_before(struck[1])
        if touched < needed:
            return Count(0, f"a carom after {touched} cushion{'s' if touched != 1 else ''}, "
                            f"not the {needed} agreed", LAW_CUSHION)
        return Count(1, f"a cushion carom off the {struck[0]} and the {struck[1]}",
                     LAW_CUSHION)

    def closings(self) -> list[StrokeEvent]:
        other = next(ball for ball in self.objects() if ball != RED)
        legal = (RED, *(CUSHION,) * self.rules.cushions, other)
        return self.carom_closings(legal, (CUSHION, RED, other), (RED, other))


class BankShotState(FrenchCaromState):
    """A game of bank-shot billiards in progress."""

    LAW_COUNT: ClassVar[LawRef] = LAW_BANK

    def counted(self, stroke: Stroke) -> Count:
        facts = stroke.facts
        first = facts.first
        if first is not None and facts.cushions_before(first) == 0:
            return Count(0, f"the cue ball struck the {first} before a cushion: a foul",
                         LAW_BANK, "foul")
        struck = facts.struck()
        if len(struck) < 2:
            return Count(0, "no carom", LAW_FRENCH_CAROM)
        return Count(1, f"a bank shot off the {struck[0]} and the {struck[1]}", LAW_BANK)

    def closings(self) -> list[StrokeEvent]:
        other = next(ball for ball in self.objects() if ball != RED)
        return self.carom_closings((CUSHION, RED, other), (RED, CUSHION, other),
                                   (CUSHION, other))


FRENCH_LAWS = (LAW_FRENCH_OPENING, LAW_FRENCH_CAROM, LAW_FRENCH_MISS)

FRENCH_CAROMS = CueGame(
    "french-caroms", "French Caroms (Three-Ball Carom Game)", CaromRules(), "carom-billiards",
    FrenchCaromState, (*FRENCH_LAWS, *FAMILY_LAWS),
    aliases=("three-ball-carom", "straight-rail"))

BALK_LINE = CueGame(
    "balk-line-billiards", "Balk-Line Billiards", BalkLineRules(), "carom-billiards",
    BalkLineState, (LAW_BALK, *FRENCH_LAWS, *FAMILY_LAWS),
    aliases=("balk-line",))

CUSHION_CAROMS = CueGame(
    "cushion-caroms", "Cushion Caroms", CushionRules(), "carom-billiards", CushionCaromState,
    (LAW_CUSHION, *FRENCH_LAWS, *FAMILY_LAWS))

BANK_SHOT = CueGame(
    "bank-shot-billiards", "Bank-Shot Billiards", CaromRules(), "carom-billiards",
    BankShotState, (LAW_BANK, *FRENCH_LAWS, *FAMILY_LAWS), aliases=("bank-shot",))
