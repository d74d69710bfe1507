"""The Spanish Game (Hoyle 1940, lines 15622-15669): hazards, caroms and pins, thirty up.

Two white balls and a red on a pocket table, with the five pins of pin pool. Each player
plays his own white (the first player `white`, the second `spot-white`; the book's game is
two-handed, and with three or four players the seats take the two whites by turns; a
forfeit "to the opponent" goes to the next player in turn). A stroke scores
two a carom, three the red pocketed, two the other white pocketed, and two for each pin
knocked down after striking a ball (five for the middle pin alone). The striker forfeits
two for each pin his own ball knocks down before it strikes a ball, three for pocketing
his own ball or forcing it off the table without striking a ball, and one for a miss;
forcing his own ball off after a count loses him what the stroke would have made. The
three-ball game's rules govern the rest (lines 15667-15669): a player plays on while he
scores, and a referee's foul makes no count. Usually thirty up.

Readings where the book is silent or open (docs/billiards/spanish-game.md):
- whether a forfeit comes off the striker's score or goes to his opponent is not said:
  option `forfeits`, "deducted" by default (the rules' "loses two" reads as a deduction);
- the hazards the rules price are winning hazards; the striker's own ball pocketed off a
  ball (a losing hazard, named in line 15635 but given no value) scores nothing unless the
  option `losing_hazards` prices it as the winning hazard off the same ball (3 off the
  red, 2 off the white);
- "loses as many points as he would otherwise have gained" (line 15666) is read as a
  forfeit of that many points, the stroke itself counting nothing;
- a stroke with any forfeit, or that scores nothing, ends the striker's inning;
- the opening stroke is played at the red (line 15634): if it strikes the white first it
  counts nothing, with no forfeit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.core import CUSHION, StrokeEvent, TableFacts
from engine.billiards.pin_table import CENTRE, PIN_FACTS, PINS, check_direct, direct_pins
from engine.billiards.table import CueGame, CueState, Stroke
from engine.core import JSON, LawRef, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, whole

LAW_GAME = hoyle_law(15633, 15637, "The Spanish game: the opening at the red from balk; "
                                   "hazards, caroms and pins; thirty up")
LAW_PINS = hoyle_law(15642, 15646, "The Spanish game, rule 1: two a pin after striking a "
                                   "ball, five for the middle pin alone")
LAW_RED = hoyle_law(15648, 15650, "The Spanish game, rule 2: the red pocketed counts three")
LAW_WHITE = hoyle_law(15652, 15654, "The Spanish game, rule 3: the white pocketed counts "
                                    "two; each carom two")
LAW_OWN_PINS = hoyle_law(15656, 15658, "The Spanish game, rule 4: pins knocked down by the "
                                       "striker's own ball first lose two each")
LAW_OWN_POCKET = hoyle_law(15660, 15662, "The Spanish game, rule 5: the own ball pocketed "
                                         "without striking a ball, three; a miss, one")
LAW_OFF = hoyle_law(15664, 15667, "The Spanish game, rule 6: the own ball forced off the "
                                  "table")
LAW_THREE_BALL = hoyle_law(15667, 15669, "The Spanish game: the three-ball game's rules "
                                         "govern otherwise")
LAW_FOUL = hoyle_law(2614, 2616, "American Billiard Laws: on a foul no count can be made")

BALLS = ("white", "spot-white", "red")
RED = "red"
CAROM, RED_HAZARD, WHITE_HAZARD, PIN, MIDDLE_PIN = 2, 3, 2, 2, 5
OWN_PIN, OWN_POCKET, MISS, OWN_OFF = 2, 3, 1, 3
FOULS = ("push", "double-hit", "no-foot", "touched-ball", "moving-ball", "wrong-ball")


@dataclass(frozen=True, slots=True)
class SpanishRules(HouseRules):
    """`points`: the game (thirty up); `forfeits`: "deducted" from the striker or given to
    the "opponent"; `losing_hazards`: whether the own ball pocketed off a ball scores."""

    points: int = 30
    forfeits: str = "deducted"
    losing_hazards: bool = False

    def known_options(self) -> tuple[Option, ...]:
        return (whole("points", 1, 500), either("forfeits", "deducted", "opponent"),
                either("losing_hazards", False, True))


@dataclass(frozen=True, slots=True)
class Count:
    """One part of a stroke's count: points, the ruling's kind, what it was, its law."""

    points: int
    kind: str
    what: str
    law: LawRef


class SpanishState(CueState):
    """A game of the Spanish game in progress."""

    rules: SpanishRules
    TABLE: ClassVar[TableFacts] = TableFacts(BALLS, pins=PINS, needs=PIN_FACTS,
                                             sometimes=("direct",))
    FOULS: ClassVar[tuple[str, ...]] = FOULS
    RETURNED: ClassVar[tuple[str, ...]] = BALLS

    def ball_of(self, player: str) -> str:
        return BALLS[self.players.index(player) % 2]

    def check_stroke(self, event: StrokeEvent) -> None:
        own = self.ball_of(self.striker_name)
        if own in event.struck():
            raise IllegalEventError(f"stroke: {self.striker_name} plays the {own} ball; it "
                                    f"cannot be in its own path")
        check_direct(event, self.game.name)

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        if stroke.fouls:
            self.end_inning()
            return [Ruling("foul", striker, 0, f"A foul ({', '.join(stroke.fouls)}): "
                           f"{striker}'s stroke counts nothing; his inning is over.",
                           LAW_FOUL)]
        gains, forfeits = self.counts(stroke)
        if self.strokes == 1 and stroke.facts.first not in (None, RED):
            gains = []
            rulings = [Ruling("no-count", striker, 0, "The opening stroke is played at the "
                              "red; striking the white first counts nothing.", LAW_GAME)]
        else:
            rulings = []
        own = self.ball_of(striker)
        if own in stroke.off and stroke.facts.struck() and gains:
            gained = sum(count.points for count in gains)
            forfeits.append(Count(gained, "foul", f"forcing his ball off the table after a "
                                  f"count loses the {gained} it would have made", LAW_OFF))
            gains = []
        for count in gains:
            rulings.append(self.score(striker, count.points, count.kind,
                                      f"{striker}: {count.what}, {count.points}.", count.law))
        for count in forfeits:
            rulings.append(self.forfeit(striker, count))
        if forfeits or not gains:
            if not rulings:
                rulings.append(Ruling("no-count", striker, 0, f"{striker} scores nothing; "
                                      f"his inning is over.", LAW_THREE_BALL))
            self.end_inning()
        return rulings + self.ended()

    def counts(self, stroke: Stroke) -> tuple[list[Count], list[Count]]:
        """What the stroke gains and what it forfeits, by rules 1-6."""
        facts = stroke.facts
        own = self.ball_of(self.striker_name)
        others = [ball for ball in BALLS if ball != own]
        struck = facts.struck()
        direct = direct_pins(facts)
        after = [pin for pin in facts.pins or () if pin not in direct] if struck else []
        gains: list[Count] = []
        if set(others) <= set(struck):
            gains.append(Count(CAROM, "carom", "a carom", LAW_WHITE))
        if RED in stroke.pocketed:
            gains.append(Count(RED_HAZARD, "hazard", "the red pocketed", LAW_RED))
        white = next(ball for ball in others if ball != RED)
        if white in stroke.pocketed:
            gains.append(Count(WHITE_HAZARD, "hazard", "the white pocketed", LAW_WHITE))
        if own in stroke.pocketed and struck and self.rules.losing_hazards:
            value = RED_HAZARD if struck[0] == RED else WHITE_HAZARD
            gains.append(Count(value, "hazard", f"his ball pocketed off the {struck[0]}",
                               LAW_GAME))
        if after == [CENTRE]:
            gains.append(Count(MIDDLE_PIN, "pins", "the middle pin alone", LAW_PINS))
        elif after:
            gains.append(Count(PIN * len(after), "pins", f"{len(after)} pin(s) down after "
                               f"striking a ball", LAW_PINS))
        forfeits: list[Count] = []
        if direct:
            forfeits.append(Count(OWN_PIN * len(direct), "foul", f"{len(direct)} pin(s) down "
                                  f"by his own ball before it struck a ball", LAW_OWN_PINS))
        if not struck:
            if own in stroke.pocketed:
                forfeits.append(Count(OWN_POCKET, "foul", "his ball pocketed without "
                                      "striking a ball", LAW_OWN_POCKET))
            elif own in stroke.off:
                forfeits.append(Count(OWN_OFF, "foul", "his ball forced off the table "
                                      "without striking a ball", LAW_OFF))
            elif not direct:
                forfeits.append(Count(MISS, "foul", "a miss", LAW_OWN_POCKET))
        return gains, forfeits

    def forfeit(self, striker: str, count: Count) -> Ruling:
        if self.rules.forfeits == "opponent":
            other = self.opponent
            return self.score(other, count.points, count.kind,
                              f"{striker} forfeits {count.points} to {other}: {count.what}.",
                              count.law)
        return self.deduct(striker, count.points, count.kind,
                           f"{striker} forfeits {count.points}: {count.what}.", count.law)

    def ended(self) -> list[Ruling]:
        reached = [name for name in self.players if self.scores[name] >= self.rules.points]
        if not reached:
            return []
        return [self.finish(reached, LAW_GAME, f"{self.rules.points} points up")]

    def closings(self) -> list[StrokeEvent]:
        own = self.ball_of(self.striker_name)
        first, second = (ball for ball in BALLS if ball != own)
        return [StrokeEvent(path=()), StrokeEvent(path=(first, CUSHION, second), pins=()),
                StrokeEvent(path=(first,), pins=(CENTRE,), direct=()),
                StrokeEvent(path=(second,), pins=()),
                StrokeEvent(path=(), pins=(PINS[0],))]

    def details(self) -> JSON:
        return {"balls": {name: self.ball_of(name) for name in self.players},
                "points": self.rules.points}


SPANISH_GAME = CueGame(
    "spanish-game", "The Spanish Game", SpanishRules(), "pocket-billiards", SpanishState,
    (LAW_GAME, LAW_PINS, LAW_RED, LAW_WHITE, LAW_OWN_PINS, LAW_OWN_POCKET, LAW_OFF,
     LAW_THREE_BALL, LAW_FOUL), seats=(2, 4))
