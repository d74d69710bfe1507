"""Snooker Pool (Hoyle 1940, lines 15516-15621): reds and colours, as printed then.

Fifteen reds (each reported as "red": they are alike) and six colours: yellow 2, green 3,
brown 4, blue 5, pink 6, black 7. The striker must pocket a red (1) or lose his turn;
after a red he plays on a colour of his choice, which scores its value and is spotted
again; so on alternately until he fails. Reds stay down. Once the last red is down the
colours are played on and pocketed in order, 2 to 7, and no longer spotted. A foul stroke
forfeits the penalty the book gives for it and ends the turn; the highest score wins when
the last ball is off the table.

Readings where the book is silent (docs/billiards/snooker-pool.md):
- whether a forfeit comes off the striker's score or goes to his opponent: the option
  `forfeits`, "deducted" (default) or "opponent" (the next player in turn);
- the ball on after a red: the first ball the cue ball strikes if it is a colour, else
  the colour the referee calls (the book's "ball aimed at"); a call is asked for only
  when the stroke needs it;
- "as soon as the last red ball is pocketed, there is no further spotting" (15561-15563):
  the colours are played in order from the next stroke, with no free colour after the
  last red, and a colour pocketed out of order is not spotted either;
- a stroke that breaks several laws forfeits the highest of their penalties once;
- the cue ball pocketed after striking a ball forfeits as the in-off without striking
  anything (3, or the value of a higher colour on), and after a red as the book says for
  the colour aimed at; a clear miss of the colour on in the order forfeits its value;
- the referee's fouls of the American laws make the stroke no count and end the turn,
  with no forfeit (the book names none); colours pocketed on a foul are spotted, reds not;
- option `object`: "highest" (default) wins, or the "lowest" loses (15617-15619).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from engine.billiards.core import CUE, CallEvent, StrokeEvent, TableFacts
from engine.billiards.english_common import (
    AMERICAN_FOULS,
    DEDUCTED,
    OPPONENT,
    RED,
    CalledState,
    forfeit,
    forfeits_option,
    put_back,
)
from engine.billiards.table import CueGame, Stroke
from engine.core import JSON, LawRef, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either

LAW_BALLS = hoyle_law(15519, 15542, "Snooker: fifteen reds and six colours, their spots and "
                                    "values")
LAW_SEQUENCE = hoyle_law(15549, 15559, "Snooker: a red (1), then a colour of his choice, "
                                       "spotted again; alternately until he misses")
LAW_ORDER = hoyle_law(15561, 15566, "Snooker: after the last red, the colours in order, not "
                                    "spotted")
LAW_SNOOKERED = hoyle_law(15568, 15570, "Snooker: failing to hit the ball on is penalized")
LAW_COLOUR_FIRST = hoyle_law(15574, 15576, "Snooker: a colour struck first when on a red "
                                           "forfeits its value")
LAW_IN_OFF = hoyle_law(15576, 15580, "Snooker: in off without striking: 3, or the value of "
                                     "a higher colour on")
LAW_AIMED = hoyle_law(15580, 15588, "Snooker: after a red, in off or a clear miss forfeits "
                                    "the colour aimed at; a clear miss on a red 1")
LAW_RED_ON_COLOUR = hoyle_law(15590, 15591, "Snooker: a red struck when on a colour "
                                            "forfeits the colour played at")
LAW_WRONG = hoyle_law(15591, 15596, "Snooker: the wrong colour hit or pocketed forfeits the "
                                    "higher of the two")
LAW_COLOUR_POTTED = hoyle_law(15598, 15600, "Snooker: a colour pocketed when on a red "
                                            "forfeits its value")
LAW_RED_POTTED = hoyle_law(15602, 15604, "Snooker: a red pocketed when on a colour forfeits "
                                         "the colour's value")
LAW_REDS = hoyle_law(15606, 15610, "Snooker: two or more reds on a red all score")
LAW_TWO_COLOURS = hoyle_law(15612, 15615, "Snooker: two colours pocketed forfeit the higher, "
                                          "or the ball on if higher")
LAW_END = hoyle_law(15617, 15619, "Snooker: the last ball off the table, the highest wins")

VALUE: Mapping[str, int] = {RED: 1, "yellow": 2, "green": 3, "brown": 4, "blue": 5,
                            "pink": 6, "black": 7}
COLOURS = ("yellow", "green", "brown", "blue", "pink", "black")
#: What the striker is on: a red, a colour of his choice, or one colour in the order.
ON_RED = RED
ON_COLOUR = "colour"
IN_OFF = 3


@dataclass(frozen=True, slots=True)
class SnookerRules(HouseRules):
    """`forfeits`: off the striker's score or to his opponent; `object`: the highest
    wins or the lowest loses."""

    forfeits: str = DEDUCTED
    object: str = "highest"

    def known_options(self) -> tuple[Option, ...]:
        return (forfeits_option(), either("object", "highest", "lowest"))


class SnookerState(CalledState):
    """A game of snooker pool in progress."""

    rules: SnookerRules
    TABLE: ClassVar[TableFacts] = TableFacts((CUE, RED, *COLOURS))
    FOULS: ClassVar[tuple[str, ...]] = tuple(AMERICAN_FOULS)

    def start(self) -> None:
        self.on_table = [CUE, *[RED] * 15, *COLOURS]
        self.on = ON_RED

    # -- the ball on ----------------------------------------------------------------------

    @staticmethod
    def aim(event: StrokeEvent, call: CallEvent | None) -> str | None:
        """The colour the striker is on after a red: the call, else the first ball struck."""
        if call is not None:
            return call.ball
        first = event.first
        return first if first in COLOURS else None

    def call_needed(self, event: StrokeEvent) -> str | None:
        if self.on == ON_COLOUR and self.aim(event, self.stroke.call) is None:
            return "the colour the striker played on (he struck no colour first)"
        return None

    def check_call(self, event: CallEvent) -> None:
        if self.on != ON_COLOUR:
            raise IllegalEventError(f"call: {self.striker_name} is on the {self.on}; a colour "
                                    f"is named only after a red")
        if event.ball not in COLOURS:
            raise IllegalEventError(f"call: after a red the striker plays on a colour, not "
                                    f"the {event.ball}")

    def calls(self) -> list[CallEvent]:
        if self.on != ON_COLOUR:
            return []
        return [CallEvent(ball) for ball in self.candidates() if ball in COLOURS]

    # -- the stroke -----------------------------------------------------------------------

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        if stroke.fouls:
            self.spot_colours(stroke)
            ruling = Ruling("foul", striker, 0, f"A foul ({', '.join(stroke.fouls)}): no "
                            f"count; {self.opponent} plays.", AMERICAN_FOULS[stroke.fouls[0]])
            return [ruling, *self.next_player()]
        penalties = self.penalties(stroke)
        if penalties:
            points, why, law = max(penalties, key=lambda p: p[0])
            self.spot_colours(stroke)
            ruling = forfeit(self, points, self.rules.forfeits == OPPONENT, "foul",
                             f"{why.capitalize()}.", law)
            return [ruling, *self.next_player()]
        potted = [ball for ball in stroke.pocketed if ball != CUE]
        if not potted:
            return [Ruling("no-count", striker, 0, f"{striker} pockets nothing; "
                           f"{self.opponent} plays.", LAW_SEQUENCE), *self.next_player()]
        if self.on == ON_RED:
            rulings = [self.score(striker, 1, "ball", f"{striker} pockets a red: 1.",
                                  LAW_REDS if len(potted) > 1 else LAW_SEQUENCE)
                       for _ in potted]
            self.on = ON_COLOUR if RED in self.on_table else self.lowest()
            return rulings
        colour = potted[0]
        ruling = self.score(striker, VALUE[colour], "ball", f"{striker} pockets the "
                            f"{colour}: {VALUE[colour]}.",
                            LAW_SEQUENCE if self.on == ON_COLOUR else LAW_ORDER)
        if self.on == ON_COLOUR:
            put_back(self, colour)
            self.on = ON_RED if RED in self.on_table else self.lowest()
            return [ruling]
        self.on = self.lowest()
        return [ruling, *self.ended(self.on)]

    def penalties(self, stroke: Stroke) -> list[tuple[int, str, LawRef]]:
        """Each law the stroke breaks: its forfeit, why, and the law."""
        facts = stroke.facts
        first = facts.first
        in_off = CUE in stroke.pocketed or CUE in stroke.off
        reds = [ball for ball in stroke.pocketed if ball == RED]
        colours = [ball for ball in stroke.pocketed if ball in COLOURS]
        found: list[tuple[int, str, LawRef]] = []
        if self.on == ON_RED:
            on_value = VALUE[RED]
            if first is None and not in_off:
                found.append((1, "a clear miss on a red", LAW_AIMED))
            elif first is not None and first != RED:
                found.append((VALUE[first], f"the {first} struck first when on a red",
                              LAW_COLOUR_FIRST))
            found += [(VALUE[c], f"the {c} pocketed when on a red", LAW_COLOUR_POTTED)
                      for c in colours]
            if in_off:
                found.append((max(IN_OFF, on_value), "the cue ball in off", LAW_IN_OFF))
            return found
        aim = self.aim(facts, stroke.call) if self.on == ON_COLOUR else self.on
        assert aim is not None
        if first is None and not in_off:
            law = LAW_AIMED if self.on == ON_COLOUR else LAW_SNOOKERED
            found.append((VALUE[aim], f"a clear miss of the {aim}", law))
        elif first == RED:
            found.append((VALUE[aim], f"a red struck when on the {aim}", LAW_RED_ON_COLOUR))
        elif first is not None and first != aim:
            found.append((max(VALUE[first], VALUE[aim]), f"the {first} struck when on the "
                          f"{aim}", LAW_WRONG))
        if reds:
            found.append((VALUE[aim], f"a red pocketed when on the {aim}", LAW_RED_POTTED))
        if len(colours) > 1:
            found.append((max(VALUE[aim], *(VALUE[c] for c in colours)),
                          f"{' and '.join(colours)} pocketed together", LAW_TWO_COLOURS))
        elif colours and colours[0] != aim:
            found.append((max(VALUE[aim], VALUE[colours[0]]), f"the {colours[0]} pocketed "
                          f"when on the {aim}", LAW_WRONG))
        if in_off:
            if self.on == ON_COLOUR:
                found.append((VALUE[aim], f"the cue ball in off, on the {aim}", LAW_AIMED))
            else:
                found.append((max(IN_OFF, VALUE[aim]), "the cue ball in off", LAW_IN_OFF))
        return found

    def spot_colours(self, stroke: Stroke) -> None:
        """Colours pocketed on a foul are spotted while reds remain; reds stay down."""
        if self.on in (ON_RED, ON_COLOUR):
            for ball in [*stroke.pocketed, *stroke.off]:
                if ball in COLOURS:
                    put_back(self, ball)
        for ball in stroke.off:
            if ball == RED:
                put_back(self, ball)

    def next_player(self) -> list[Ruling]:
        self.end_inning()
        self.on = ON_RED if RED in self.on_table else self.lowest()
        return self.ended(self.on)

    def lowest(self) -> str:
        """The lowest colour on the table, the ball on in the order (none: the game is over)."""
        return next((ball for ball in COLOURS if ball in self.on_table), "")

    def ended(self, on: str) -> list[Ruling]:
        if on or self.over:
            return []
        totals = self.scores
        if self.rules.object == "highest":
            best = max(totals.values())
            return [self.finish([n for n in self.players if totals[n] == best], LAW_END,
                                "the last ball is off the table: the highest score wins")]
        worst = min(totals.values())
        return [self.finish([n for n in self.players if totals[n] != worst] or self.players,
                            LAW_END, "the last ball is off the table: the lowest score loses")]

    def closings(self) -> list[StrokeEvent]:
        on = RED if self.on == ON_RED else self.stroke.call.ball if (
            self.on == ON_COLOUR and self.stroke.call is not None) else self.on
        target = on if on in self.candidates() else next(
            (ball for ball in self.candidates() if ball in COLOURS), RED)
        return self.ruled([StrokeEvent(path=(target,)), StrokeEvent(path=(target, "cushion")),
                           StrokeEvent(path=()), StrokeEvent(path=("black",))])

    def details(self) -> JSON:
        return {"on": self.on, "reds_on_table": self.on_table.count(RED)}


SNOOKER = CueGame(
    "snooker-pool", "Snooker Pool", SnookerRules(), "pocket-billiards", SnookerState,
    (LAW_BALLS, LAW_SEQUENCE, LAW_ORDER, LAW_SNOOKERED, LAW_COLOUR_FIRST, LAW_IN_OFF,
     LAW_AIMED, LAW_RED_ON_COLOUR, LAW_WRONG, LAW_COLOUR_POTTED, LAW_RED_POTTED, LAW_REDS,
     LAW_TWO_COLOURS, LAW_END, *AMERICAN_FOULS.values()))
