"""Pin Pool (Hoyle 1940, lines 15331-15513): pins and a private small ball make 31.

Two white balls and a red, and five wooden pins in a diamond: the black centre pin counts
5, the four outside pins the numbers chalked beside them. Each player draws a small
numbered ball that only he knows; pool is pins knocked down which, with his ball's number,
make 31 exactly, and the first to make and proclaim it wins. A counting stroke sends the
cue ball from an object ball onto the pins, or drives an object ball into them; pins the
cue ball knocks down before it strikes a ball do not count, nor do caroms. Over 31 is a
burst: the player's score falls back to his ball's number. Knocking down the four outside
pins on one stroke with the centre pin left standing is a natural, which wins outright.

The snapshot shows each player's pins, never a small ball's number. A pool must be
proclaimed (`proclaim`) before the next stroke is made; otherwise its maker may claim it
only when his turn comes round again. The engine answers every claim: a good one wins,
any other is void.

Readings where the book is silent, garbled or open (docs/billiards/pin-pool.md):
- the diagram of the pin spots is lost in the OCR (line 15341 reads "4*"): the outside pins'
  values are options `head_pin`, `right_pin`, `foot_pin`, `left_pin`, 1-4 round the
  diamond by default (the catalogue's conventional reading, not the book's);
- each player plays one stroke in turn: the book speaks of "the next player's stroke" and
  of a player's "turn to play" coming again (rules 6 and 8);
- the small balls run 1 to 16 (the book's example is the 16-ball);
- drawing a new ball after a burst is allowed only where agreed before the game (rule 6):
  option `redraw`, off by default; the new ball is drawn before the player's next stroke;
- a stroke on which the cue ball knocks down a pin before striking a ball counts no pins
  at all (rules 4 and 16); balls frozen together, when rule 4 lets the player play at the
  pins directly, are reported without `direct` pins;
- a natural must be made by a counting stroke;
- a referee's foul (rules 16-17) counts no pins; intentional interference bursts the
  striker (rule 11).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.billiards.core import CUSHION, StrokeEvent, TableFacts
from engine.billiards.pin_table import (
    CENTRE,
    OUTSIDE,
    PIN_FACTS,
    PINS,
    PrivateBallState,
    check_direct,
)
from engine.billiards.table import CueGame, Stroke
from engine.core import JSON, Event, LawRef, Operation, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, parse_player, whole

LAW_PINS = hoyle_law(15334, 15346, "Pin pool: five pins in a diamond; the centre pin is 5, "
                                   "the outside pins' numbers chalked on the cloth")
LAW_POOL = hoyle_law(15357, 15364, "Pin pool: pins that with the small ball make 31 win "
                                   "the pool")
LAW_CAROMS = hoyle_law(15366, 15371, "Pin pool, rule 1: caroms count nothing; a miss costs "
                                     "only the stroke")
LAW_COUNT = hoyle_law(15380, 15383, "Pin pool, rule 3: a counting stroke, from a ball or "
                                    "with a ball driven into the pins")
LAW_DIRECT = hoyle_law(15385, 15397, "Pin pool, rule 4: pins knocked down directly do not "
                                     "count")
LAW_NATURAL = hoyle_law(15403, 15407, "Pin pool, rule 5: the four outside pins with the "
                                      "centre standing, a natural, wins")
LAW_BURST = hoyle_law(15413, 15425, "Pin pool, rule 6: over 31 is a burst; the score falls "
                                    "to the ball's number")
LAW_PROCLAIM = hoyle_law(15435, 15449, "Pin pool, rule 8: pool must be proclaimed before "
                                       "the next stroke")
LAW_INTERFERENCE = hoyle_law(15468, 15475, "Pin pool, rule 11: intentional interference "
                                           "bursts the striker")
LAW_FOUL = hoyle_law(15502, 15510, "Pin pool, rules 16-17: pins do not count on an unfair "
                                   "stroke")

BALLS = ("white", "spot-white", "red")
POOL = 31
CENTRE_VALUE = 5
INTERFERENCE = "interference"
FOULS = ("push", "double-hit", "no-foot", "touched-ball", "moving-ball", INTERFERENCE)


@dataclass(frozen=True, slots=True)
class ProclaimEvent(Event):
    """A player proclaims that he has made pool (rule 8)."""

    type: ClassVar[str] = "proclaim"
    player: str

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player}


@dataclass(frozen=True, slots=True)
class PinPoolRules(HouseRules):
    """The outside pins' values (lost with the book's diagram) and whether a burst player
    may draw a new small ball (rule 6: "conditions agreed upon prior to the game")."""

    head_pin: int = 1
    right_pin: int = 2
    foot_pin: int = 3
    left_pin: int = 4
    redraw: bool = False

    def known_options(self) -> tuple[Option, ...]:
        return (*(whole(f"{pin}_pin", 1, 9) for pin in OUTSIDE),
                either("redraw", False, True))

    def value(self, pin: str) -> int:
        return CENTRE_VALUE if pin == CENTRE else int(getattr(self, f"{pin}_pin"))


class PinPoolState(PrivateBallState):
    """A game of pin pool in progress."""

    rules: PinPoolRules
    TABLE: ClassVar[TableFacts] = TableFacts(BALLS, pins=PINS, needs=PIN_FACTS,
                                             sometimes=("direct",))
    FOULS: ClassVar[tuple[str, ...]] = FOULS
    RETURNED: ClassVar[tuple[str, ...]] = BALLS
    PRIVATE: ClassVar[tuple[int, int] | None] = (1, 16)

    def start(self) -> None:
        super().start()
        #: Who made 31 on the last stroke and may still proclaim it before the next.
        self.claimable: str | None = None

    def kinds(self) -> tuple[str, ...]:
        return (*super().kinds(), "proclaim")

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        if data.get("type") == "proclaim":
            player = parse_player(data, self.players, "proclaim")
            assert player is not None
            return ProclaimEvent(player)
        return super().parse_event(data)

    def check_stroke(self, event: StrokeEvent) -> None:
        check_direct(event, self.game.name)

    def verify(self, event: Event) -> None:
        if isinstance(event, ProclaimEvent):
            if self.over:
                raise IllegalEventError("proclaim: the game is over")
            if self.undrawn():
                raise IllegalEventError(f"proclaim: {', '.join(self.undrawn())} must draw "
                                        f"first")
            return
        super().verify(event)

    def apply(self, event: Event) -> Operation:
        if isinstance(event, ProclaimEvent):
            self.verify(event)
            self.history.append(event)
            return Operation(event, (self.proclaim(event.player),))
        if not isinstance(event, StrokeEvent) and event.type != "private":
            # A ball set rolling is the next stroke made: the window for the claim is shut.
            self.verify(event)
            self.claimable = None
        return super().apply(event)

    def may_claim(self, player: str) -> bool:
        """Rule 8: right after his stroke, or when his turn to play comes again."""
        turn_again = player == self.striker_name and not (
            self.stroke.pockets or self.stroke.off or self.stroke.fouls)
        return (player == self.claimable or turn_again) and self.total(player) == POOL

    def total(self, player: str) -> int:
        return self.scores[player] + self.private[player]

    def proclaim(self, player: str) -> Ruling:
        if self.may_claim(player):
            return self.finish([player], LAW_PROCLAIM, f"{player} proclaims pool: 31")
        return Ruling("void-claim", player, 0, f"{player} proclaims pool, but has no pool to "
                      f"claim now: the claim is void.", LAW_PROCLAIM)

    def rule(self, stroke: Stroke) -> list[Ruling]:
        self.stroke_made()
        self.claimable = None
        striker = self.striker_name
        facts = stroke.facts
        pins = list(facts.pins or ())
        rulings: list[Ruling]
        if INTERFERENCE in stroke.fouls:
            rulings = [self.burst(striker, "foul", "he interfered with a ball in motion",
                                  LAW_INTERFERENCE)]
        elif stroke.fouls:
            rulings = [Ruling("foul", striker, 0, f"A foul ({', '.join(stroke.fouls)}): no "
                              f"pins count.", LAW_FOUL)]
        elif not facts.struck():
            rulings = [Ruling("no-count", striker, 0, f"{striker} strikes no ball: nothing "
                              f"counts; the pins are set up again.",
                              LAW_DIRECT if pins else LAW_CAROMS)]
        elif facts.direct:
            rulings = [Ruling("no-count", striker, 0, "The cue ball knocked a pin down "
                              "before striking a ball: no pins count.", LAW_DIRECT)]
        elif not pins:
            rulings = [Ruling("no-count", striker, 0, f"{striker} knocks down no pin; caroms "
                              f"count nothing.", LAW_CAROMS)]
        else:
            rulings = self.count(striker, pins)
        if not self.over:
            self.end_inning()
        return rulings

    def count(self, striker: str, pins: list[str]) -> list[Ruling]:
        value = sum(self.rules.value(pin) for pin in pins)
        rulings = [self.score(striker, value, "pins", f"{striker} knocks down {len(pins)} "
                              f"pin(s): {value}.", LAW_COUNT)]
        if set(pins) == set(OUTSIDE):
            rulings.append(self.finish([striker], LAW_NATURAL, f"{striker} makes a natural: "
                                       f"the four outside pins down, the centre standing"))
        elif self.total(striker) > POOL:
            rulings.append(self.burst(striker, "burst", "his pins and ball pass 31",
                                      LAW_BURST))
        elif self.total(striker) == POOL:
            self.claimable = striker
        return rulings

    def burst(self, player: str, kind: str, why: str, law: LawRef) -> Ruling:
        lost = self.scores[player]
        again = ""
        if self.rules.redraw:
            self.redraws.add(player)
            again = "; he may draw a new small ball before his next stroke"
        return self.deduct(player, lost, kind, f"{player} is burst ({why}): his score falls "
                           f"back to his ball's number{again}.", law)

    def legal_events(self) -> list[Event]:
        events = super().legal_events()
        if self.over or self.undrawn():
            return events
        return [*events, *(ProclaimEvent(name) for name in self.players)]

    def closings(self) -> list[StrokeEvent]:
        return [StrokeEvent(path=()), StrokeEvent(path=("red", CUSHION), pins=()),
                StrokeEvent(path=("red",), pins=(CENTRE,), direct=()),
                StrokeEvent(path=("spot-white",), pins=(OUTSIDE[0],), direct=()),
                StrokeEvent(path=("red",), pins=OUTSIDE, direct=()),
                StrokeEvent(path=(), pins=(OUTSIDE[1],))]

    def details(self) -> JSON:
        return {"pin_values": {pin: self.rules.value(pin) for pin in PINS}, "pool": POOL}


PIN_POOL = CueGame(
    "pin-pool", "Pin Pool", PinPoolRules(), "pocket-billiards", PinPoolState,
    (LAW_PINS, LAW_POOL, LAW_CAROMS, LAW_COUNT, LAW_DIRECT, LAW_NATURAL, LAW_BURST,
     LAW_PROCLAIM, LAW_INTERFERENCE, LAW_FOUL))
