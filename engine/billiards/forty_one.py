"""Forty-One Pool (Hoyle 1940, lines 15195-15257): exactly 41 with the private small ball.

The fifteen-ball set and a white cue ball. Each player draws a small numbered ball (6-18)
that only he knows; each plays one shot in turn, and the numbers of the balls he pockets
are added to his small ball's. Exactly 41 is pool: he wins, and the player most distant
from 41 is defeated. A miss or the white pocketed is a scratch: the player owes a ball to
the table, spotting one from his rack (his choice, if he has more than one) or else the
first he pockets. Over 41 is a burst: all his balls are spotted and he may draw a new
small ball. A safety must send the white to a cushion, or it is a scratch. When all the
balls are pocketed, the nearest to 41 wins; a player with no ball in his rack ranks below
any with one, and a player owing a ball below him.

The snapshot shows each rack and its sum (the balls are in view), never a small ball's
number: the engine rules the pool and the bursts from it.

Readings where the book is silent (docs/billiards/forty-one-pool.md):
- the engine is the game-keeper of rule 3: it declares the pool and every burst, so rule
  8's undeclared burst never arises;
- the scratch is paid before the pool is judged, so a scratch that leaves exactly 41 with
  a ball to spot from the rack is not yet a pool;
- a referee's foul (the American laws that govern, lines 15255-15257) counts nothing on
  the shot: the balls it pocketed are spotted;
- the white forced off the table is no scratch (rule 5 names a miss and the white
  pocketed) and object balls forced off are spotted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.billiards.core import (
    CUE,
    CUSHION,
    PocketEvent,
    StrokeEvent,
    TableFacts,
    numbered,
    parse_ball,
)
from engine.billiards.pin_table import PrivateBallState
from engine.billiards.table import CueGame, Stroke
from engine.core import JSON, Awaiting, Event, LawRef, Operation, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, parse_player

LAW_PRIVATE = hoyle_law(15207, 15217, "Forty-one pool, rule 1: the private small ball, "
                                      "6 to 18, known only to the player")
LAW_PLAY = hoyle_law(15219, 15221, "Forty-one pool, rule 2: one shot an inning; each ball "
                                   "pocketed adds its number")
LAW_POOL = hoyle_law(15223, 15225, "Forty-one pool, rule 3: exactly 41 is pool; the most "
                                   "distant is defeated")
LAW_ALL_DOWN = hoyle_law(15227, 15229, "Forty-one pool, rule 4: all balls pocketed, the "
                                       "nearest to 41 wins")
LAW_SCRATCH = hoyle_law(15231, 15237, "Forty-one pool, rule 5: a miss or the white "
                                      "pocketed owes a ball to the table")
LAW_BURST = hoyle_law(15239, 15243, "Forty-one pool, rule 6: over 41 is a burst; all his "
                                    "balls are spotted")
LAW_SAFETY = hoyle_law(15245, 15247, "Forty-one pool, rule 7: a safety must send the white "
                                     "to a cushion")
LAW_RANKING = hoyle_law(15249, 15253, "Forty-one pool, rule 8: no ball is worse than any; "
                                      "owing a ball is worse still")
LAW_FOUL = hoyle_law(2614, 2616, "American Billiard Laws: on a foul no count can be made")

POOL = 41
FOULS = ("double-hit", "moving-ball", "no-foot", "touched-ball")


@dataclass(frozen=True, slots=True)
class SpotEvent(Event):
    """A player who owes a ball names the one from his rack he spots (rule 5)."""

    type: ClassVar[str] = "spot"
    player: str
    ball: str

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "ball": self.ball}


@dataclass(frozen=True, slots=True)
class FortyOneRules(HouseRules):
    """Forty-one pool has no house options: the book settles its counts and penalties."""


class FortyOneState(PrivateBallState):
    """A game of forty-one pool in progress."""

    TABLE: ClassVar[TableFacts] = TableFacts((CUE, *numbered(15)))
    FOULS: ClassVar[tuple[str, ...]] = FOULS
    PRIVATE: ClassVar[tuple[int, int] | None] = (6, 18)

    def start(self) -> None:
        super().start()
        self.racks: dict[str, list[str]] = {name: [] for name in self.players}
        self.owed = {name: 0 for name in self.players}
        #: The player who owes a ball and must name which of his rack he spots.
        self.choosing: str | None = None

    # -- the private total, never shown ------------------------------------------------------

    def total(self, player: str) -> int:
        return sum(map(int, self.racks[player])) + self.private[player]

    def rank(self, player: str) -> tuple[int, int]:
        """Rule 8: a rack beats no rack whatever the numbers; owing a ball is worst."""
        if self.owed[player]:
            return (2, 0)
        if not self.racks[player]:
            return (1, 0)
        return (0, POOL - self.total(player))

    # -- events -------------------------------------------------------------------------------

    def kinds(self) -> tuple[str, ...]:
        return (*super().kinds(), "spot")

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        if data.get("type") == "spot":
            player = parse_player(data, self.players, "spot")
            assert player is not None
            return SpotEvent(player, parse_ball(data.get("ball"), self.TABLE.balls, "spot",
                                                self.game.name))
        return super().parse_event(data)

    def verify(self, event: Event) -> None:
        if isinstance(event, SpotEvent):
            if self.over or event.player != self.choosing:
                raise IllegalEventError(f"spot: {event.player} has no ball to spot now")
            if event.ball not in self.racks[event.player]:
                raise IllegalEventError(f"spot: the {event.ball}-ball is not in "
                                        f"{event.player}'s rack")
            return
        if self.choosing is not None and not self.over:
            raise IllegalEventError(f"{event.type}: {self.choosing} must first name the ball "
                                    f"he spots for his scratch")
        super().verify(event)

    def apply(self, event: Event) -> Operation:
        if not isinstance(event, SpotEvent):
            return super().apply(event)
        self.verify(event)
        self.history.append(event)
        self.choosing = None
        rulings = [self.pay(event.player, event.ball)]
        rulings += self.settle(event.player)
        if self.choosing is None:
            rulings += self.judge(event.player)
        return Operation(event, tuple(rulings))

    # -- the rules ----------------------------------------------------------------------------

    def rule(self, stroke: Stroke) -> list[Ruling]:
        self.stroke_made()
        striker = self.striker_name
        facts = stroke.facts
        objects = [ball for ball in stroke.pocketed if ball != CUE]
        for ball in stroke.off:
            if ball != CUE:
                self.spot(ball)
        if stroke.fouls:
            for ball in objects:
                self.spot(ball)
            self.end_inning()
            return [Ruling("foul", striker, 0, f"A foul ({', '.join(stroke.fouls)}): "
                           f"{striker}'s shot counts nothing; the balls are spotted.",
                           LAW_FOUL)]
        rulings = []
        for ball in objects:
            self.racks[striker].append(ball)
            rulings.append(self.score(striker, int(ball), "ball",
                                      f"{striker} pockets the {ball}-ball: {ball}.", LAW_PLAY))
        if not facts.struck() or CUE in stroke.pocketed:
            why = "a miss" if not facts.struck() else "the white pocketed"
            rulings.append(self.scratch(striker, why, LAW_SCRATCH))
        elif facts.safety and CUSHION not in (facts.path or ()):
            rulings.append(self.scratch(striker, "a safety that sent the white to no cushion",
                                        LAW_SAFETY))
        if self.total(striker) > POOL:
            rulings.append(self.burst(striker))
        rulings += self.settle(striker)
        if self.choosing is None:
            rulings += self.judge(striker)
        if not self.over:
            self.end_inning()
        return rulings

    def scratch(self, player: str, why: str, law: LawRef) -> Ruling:
        self.owed[player] += 1
        return Ruling("foul", player, 0, f"{player} scratches ({why}) and owes a ball to the "
                      f"table.", law)

    def burst(self, player: str) -> Ruling:
        rack = self.racks[player]
        for ball in rack:
            self.spot(ball)
        lost = sum(map(int, rack))
        rack.clear()
        self.redraws.add(player)
        return self.deduct(player, lost, "burst", f"{player} is burst: his balls are spotted, "
                           f"and he may draw a new small ball.", LAW_BURST)

    def pay(self, player: str, ball: str) -> Ruling:
        self.racks[player].remove(ball)
        self.spot(ball)
        self.owed[player] -= 1
        return self.deduct(player, int(ball), "spot", f"{player} spots the {ball}-ball for "
                           f"the ball he owes.", LAW_SCRATCH)

    def settle(self, player: str) -> list[Ruling]:
        """Pay what the player owes from his rack, or wait for him to choose the ball."""
        rulings = []
        while self.owed[player] and self.racks[player]:
            if len(self.racks[player]) > 1:
                self.choosing = player
                break
            rulings.append(self.pay(player, self.racks[player][0]))
        return rulings

    def judge(self, player: str) -> list[Ruling]:
        """Rule 3 (exactly 41) and rule 4 (every ball pocketed) end the game."""
        if self.over:
            return []
        if self.racks[player] and not self.owed[player] and self.total(player) == POOL:
            return [self.finish([player], LAW_POOL, f"{player} makes 41 and pool is declared"
                                f"{self.defeated()}")]
        if not any(ball != CUE for ball in self.on_table):
            best = min(self.rank(name) for name in self.players)
            return [self.finish([n for n in self.players if self.rank(n) == best],
                                LAW_ALL_DOWN, f"every ball is pocketed and the nearest to 41 "
                                f"wins{self.defeated()}")]
        return []

    def defeated(self) -> str:
        worst = max(self.rank(name) for name in self.players)
        losers = [name for name in self.players if self.rank(name) == worst]
        verb = "is" if len(losers) == 1 else "are"
        return f"; {' and '.join(losers)}, the most distant, {verb} defeated"

    def legal_events(self) -> list[Event]:
        """As every cue game's, but each ball offered into one pocket (any pocket is
        accepted; the pockets are alike here), as the balls forced off are a sample: six
        pockets for every ball would have a random table pocket the whole rack on every
        shot and hardly ever stop on 41."""
        if self.choosing is not None and not self.over:
            return [SpotEvent(self.choosing, ball) for ball in self.racks[self.choosing]]
        pocket = self.TABLE.pockets[0]
        return [event for event in super().legal_events()
                if not isinstance(event, PocketEvent) or event.pocket == pocket]

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.choosing is not None and not self.over:
            return (Awaiting("spot", "player", self.choosing,
                             "the ball from his rack he spots for the ball he owes"),)
        return super().awaiting()

    def closings(self) -> list[StrokeEvent]:
        targets = [ball for ball in self.on_table if ball != CUE][:6] or [CUE]
        return [StrokeEvent(path=()), StrokeEvent(path=(targets[0],), safety=True),
                *(StrokeEvent(path=(target,)) for target in targets),
                *(StrokeEvent(path=(target, CUSHION), safety=True) for target in targets)]

    def details(self) -> JSON:
        return {"racks": {name: list(rack) for name, rack in self.racks.items()},
                "owed": dict(self.owed), "choosing": self.choosing}


FORTY_ONE_POOL = CueGame(
    "forty-one-pool", "Forty-One Pool", FortyOneRules(), "pocket-billiards", FortyOneState,
    (LAW_PRIVATE, LAW_PLAY, LAW_POOL, LAW_ALL_DOWN, LAW_SCRATCH, LAW_BURST, LAW_SAFETY,
     LAW_RANKING, LAW_FOUL))
