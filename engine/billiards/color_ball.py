"""Color-Ball Pool, English or Following Pool (Hoyle 1940, lines 14577-14768): lives.

Each player has a coloured ball and three lives. No. 1's white is spotted, No. 2 plays at
it, No. 3 at No. 2's ball, and so on, each at the last ball played (the order is the
pool-marking board's: white, red, yellow, green, brown, blue, pink, then the spot balls).
A player whose ball is pocketed by the striker loses a life; the striker loses one for his
own ball pocketed or forced off, a coup, a miss, striking the wrong ball first, playing
with or at the wrong ball, or out of turn. The striker who takes a life plays on while
he pockets balls. The first player out may "star": buy back in once with as many lives as
the lowest on the board. The last player with lives takes the pool.

Readings where the book is silent or garbled (docs/billiards/color-ball-pool.md):
- the order table (14580-14596) is garbled by the OCR; read as the catalogue reconstructs
  it; the engine seats at most twelve, so the spot-blue is not used;
- the ball the striker plays at is the last ball played (rule 2) when his own is on the
  table and the last striker lost no life; otherwise the marker names it (the nearest
  ball, rules 2-4) with a `call`, unless only one ball is there;
- on a fair stroke every ball pocketed or forced off costs its owner a life; on a stroke
  that costs the striker a life, the others pocketed cost nothing and are in hand (rules
  7 and 9); a foul stroke (rule 18) costs nothing but the striker's own ball, and the
  balls it pocketed go back;
- the striker loses at most one life a stroke; after taking a life he plays on at the
  ball the marker names;
- each player out is offered the star in turn as he goes out (`star`, with `buy` true or
  false), while more than two players remain and no star has been taken; the stakes are
  the club's;
- option `divide`: whether the last two, equal in lives, divide the pool (rule 28 says
  they may), after the striker's stroke; rule 27 (three with one life each, the striker
  misses: the other two divide) always holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.billiards.core import CallEvent, StrokeEvent, TableFacts
from engine.billiards.english_common import AMERICAN_FOULS, CalledState
from engine.billiards.table import CueGame, Stroke
from engine.core import JSON, Awaiting, Event, LawRef, Operation, Ruling, hoyle_law
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, parse_player

LAW_ORDER = hoyle_law(14580, 14607, "Color-ball pool: the order of the balls on the marking "
                                    "board")
LAW_PLAY_AT = hoyle_law(14609, 14627, "Color-ball pool: three lives; each plays at the last "
                                      "ball, or at the nearest")
LAW_LIVES = hoyle_law(14631, 14636, "Color-ball pool: how a player loses a life")
LAW_OWN_TOO = hoyle_law(14638, 14640, "Color-ball pool: the striker pocketing his own ball "
                                      "with the other loses the life")
LAW_WRONG = hoyle_law(14642, 14645, "Color-ball pool: striking the wrong ball")
LAW_MISS_POCKET = hoyle_law(14647, 14651, "Color-ball pool: a miss that pockets another ball")
LAW_TAKING = hoyle_law(14679, 14682, "Color-ball pool: the striker who takes a life plays on")
LAW_STAR = hoyle_law(14684, 14694, "Color-ball pool: the star, once a pool")
LAW_FOUL = hoyle_law(14696, 14702, "Color-ball pool: a foul stroke costs no one a life but "
                                   "the striker's own ball")
LAW_SIMULTANEOUS = hoyle_law(14717, 14720, "Color-ball pool: two out on one stroke, the "
                                           "first ball struck stars first")
LAW_THREE = hoyle_law(14748, 14750, "Color-ball pool: three with one life, the striker "
                                    "misses: the other two divide")
LAW_LAST_TWO = hoyle_law(14752, 14755, "Color-ball pool: the last two equal in lives may "
                                       "divide")

ORDER = ("white", "red", "yellow", "green", "brown", "blue", "pink", "spot-white",
         "spot-red", "spot-yellow", "spot-green", "spot-brown", "spot-blue")
LIVES = 3
#: The referee's fouls that cost the striker a life (rule 6) and those of rule 18.
LIFE_FOULS: Mapping[str, LawRef] = {"wrong-ball": LAW_LIVES, "out-of-turn": LAW_LIVES}
FOULS: Mapping[str, LawRef] = {**LIFE_FOULS, **{k: LAW_FOUL for k in AMERICAN_FOULS}}


@dataclass(frozen=True, slots=True)
class StarEvent(Event):
    """A player out says whether he stars (buys back in), or not."""

    type: ClassVar[str] = "star"
    player: str
    buy: bool

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "buy": self.buy}


@dataclass(frozen=True, slots=True)
class ColorBallRules(HouseRules):
    """`divide`: whether the last two, equal in lives, divide the pool (rule 28)."""

    divide: bool = False

    def known_options(self) -> tuple[Option, ...]:
        return (either("divide", False, True),)


class ColorBallState(CalledState):
    """A pool of colour-ball pool in progress; a player's score is his lives."""

    rules: ColorBallRules
    TABLE: ClassVar[TableFacts] = TableFacts(ORDER)
    FOULS: ClassVar[tuple[str, ...]] = tuple(FOULS)
    RETURNED: ClassVar[tuple[str, ...]] = ()

    def start(self) -> None:
        self.balls = ORDER[:len(self.players)]
        self.lives = {name: LIVES for name in self.players}
        self.on_table = [self.balls[0]]
        self.down = list(self.balls[1:])
        self.striker = 1
        self.innings = {name: 0 for name in self.players}
        self.innings[self.players[1]] = 1
        self.on: str | None = self.balls[0]
        self.offers: list[str] = []
        self.declined: list[str] = []
        self.starred: str | None = None
        self.spot(self.balls[1])

    # -- whose ball, and the ball on ----------------------------------------------------------

    def ball_of(self, player: str) -> str:
        return self.balls[self.players.index(player)]

    def owner(self, ball: str) -> str:
        return self.players[self.balls.index(ball)]

    def alive(self) -> list[str]:
        return [name for name in self.players if self.lives[name] > 0]

    def candidates(self) -> list[str]:
        own = self.ball_of(self.striker_name)
        return [ball for ball in super().candidates() if ball != own]

    def object_ball(self, call: CallEvent | None, there: list[str]) -> str | None:
        """The ball the striker plays at: the last ball, the marker's call, or the only one
        `there` was when the stroke began."""
        if self.on is not None:
            return self.on
        if call is not None:
            return call.ball
        return there[0] if len(there) == 1 else None

    def call_needed(self, event: StrokeEvent) -> str | None:
        if self.object_ball(self.stroke.call, self.candidates()) is None:
            return "the ball the striker plays at, the nearest, as the marker declares"
        return None

    def check_call(self, event: CallEvent) -> None:
        if self.on is not None:
            raise IllegalEventError(f"call: {self.striker_name} plays at the {self.on}, the "
                                    f"last ball played (rule 2)")

    def calls(self) -> list[CallEvent]:
        if self.on is not None or self.offers:
            return []
        return [CallEvent(ball) for ball in self.candidates()]

    # -- events beyond the stroke ---------------------------------------------------------------

    def kinds(self) -> tuple[str, ...]:
        return (*super().kinds(), "star")

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        if data.get("type") == "star":
            player = parse_player(data, self.players, "star")
            buy = data.get("buy")
            if not isinstance(buy, bool):
                raise IllegalEventError(f"star: buy must be true or false, not {buy!r}")
            assert player is not None
            return StarEvent(player, buy)
        event = super().parse_event(data)
        balls = [getattr(event, "ball", None) or "",
                 *(event.struck() if isinstance(event, StrokeEvent) else [])]
        for ball in balls:
            if ball and ball not in self.balls:
                raise IllegalEventError(f"{event.type}: ball {ball!r} is not in the set of "
                                        f"this pool ({', '.join(self.balls)})")
        return event

    def verify(self, event: Event) -> None:
        if self.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        if isinstance(event, StarEvent):
            if not self.offers or self.offers[0] != event.player:
                raise IllegalEventError(f"star: {event.player} may not star now")
            return
        if self.offers:
            raise IllegalEventError(f"{event.type}: {self.offers[0]} must first say whether "
                                    f"he stars")
        super().verify(event)

    def apply(self, event: Event) -> Operation:
        if not isinstance(event, StarEvent):
            return super().apply(event)
        self.verify(event)
        self.history.append(event)
        self.offers.pop(0)
        if not event.buy:
            self.declined.append(event.player)
            return Operation(event, (Ruling("star", event.player, 0, f"{event.player} does "
                                            f"not star.", LAW_STAR),))
        lives = min(self.lives[name] for name in self.alive())
        self.lives[event.player] = lives
        self.starred = event.player
        self.offers.clear()
        return Operation(event, (Ruling("star", event.player, lives, f"{event.player} stars, "
                                        f"with {lives} lives, the lowest on the board.",
                                        LAW_STAR),))

    # -- the stroke ---------------------------------------------------------------------------

    def rule(self, stroke: Stroke) -> list[Ruling]:
        striker = self.striker_name
        own = self.ball_of(striker)
        began = [*self.on_table, *stroke.pocketed, *stroke.off]
        target = self.object_ball(stroke.call, [b for b in dict.fromkeys(began) if b != own])
        first = stroke.facts.first
        others = [ball for ball in [*stroke.pocketed, *stroke.off] if ball != own]
        own_lost = own in stroke.pocketed or own in stroke.off
        alive_before = self.alive()
        life_fouls = [kind for kind in stroke.fouls if kind in LIFE_FOULS]
        rulings: list[Ruling] = []
        if life_fouls:
            why, law = f"a foul ({', '.join(life_fouls)})", LIFE_FOULS[life_fouls[0]]
        elif stroke.fouls:
            for ball in others:
                self.spot(ball)
            why, law = "his own ball pocketed on a foul stroke", LAW_FOUL
            if not own_lost:
                rulings.append(Ruling("foul", striker, 0, f"A foul stroke "
                                      f"({', '.join(stroke.fouls)}): no one loses a life.",
                                      LAW_FOUL))
                return rulings + self.pass_turn(striker, lost=False)
        elif first is None:
            law = LAW_MISS_POCKET if others else LAW_LIVES
            why = "a coup" if own_lost else "a miss"
        elif first != target:
            why, law = f"striking the {first}, not the {target}", LAW_WRONG
        elif own_lost:
            why = "his own ball pocketed or forced off"
            law = LAW_OWN_TOO if target in others else LAW_LIVES
        else:
            return self.take_lives(striker, others, first)
        rulings.append(self.lose_life(striker, f"{striker} loses a life: {why}.",
                                      "miss" if first is None else "foul", law))
        if first is None and others:
            self.hold(own)
        three = (first is None and len(alive_before) == 3
                 and all(self.lives[n] == 1 for n in alive_before if n != striker)
                 and self.lives[striker] == 0)
        if three:
            return [*rulings, self.finish([n for n in alive_before if n != striker], LAW_THREE,
                                          "three with one life each and the striker missed: "
                                          "the other two divide")]
        return rulings + self.pass_turn(striker, lost=True)

    def take_lives(self, striker: str, others: list[str], first: str) -> list[Ruling]:
        """A fair stroke: each ball pocketed or forced off costs its owner a life."""
        if not others:
            return [Ruling("no-count", striker, 0, f"{striker} takes no life; the next player "
                           f"plays.", LAW_PLAY_AT), *self.pass_turn(striker, lost=False)]
        order = sorted(others, key=lambda ball: ball != first)
        rulings = [self.lose_life(self.owner(ball), f"{self.owner(ball)}'s {ball} is "
                                  f"pocketed by {striker}: a life lost.", "life", LAW_LIVES)
                   for ball in order]
        ended = self.ended()
        if ended:
            return rulings + ended
        if len(self.candidates()) == 0:
            self.on = self.ball_of(striker)
            rulings.append(Ruling("spot", striker, 0, f"The table is clear: {striker}'s ball "
                                  f"goes on the spot and the next player plays at it.",
                                  LAW_TAKING))
            return rulings + self.pass_turn(striker, lost=False, keep_on=True)
        self.on = None
        return rulings

    def lose_life(self, player: str, text: str, kind: str, law: LawRef) -> Ruling:
        self.lives[player] -= 1
        if self.lives[player] == 0:
            self.hold(self.ball_of(player))
            if self.starred is None and len(self.alive()) > 2:
                self.offers.append(player)
            text += f" {player} is out."
        return Ruling(kind, player, -1, text, law)

    def hold(self, ball: str) -> None:
        """The ball is in hand (or out of the pool) until its owner's turn."""
        if ball in self.on_table:
            self.on_table.remove(ball)
            self.down.append(ball)

    def pass_turn(self, striker: str, lost: bool, keep_on: bool = False) -> list[Ruling]:
        ended = self.ended()
        if ended:
            return ended
        last = self.ball_of(striker)
        self.end_inning()
        incoming = self.striker_name
        in_hand = self.ball_of(incoming) not in self.on_table
        self.spot(self.ball_of(incoming))
        if not keep_on:
            self.on = None if lost or in_hand or last not in self.on_table else last
        if self.candidates():
            return []
        self.on = self.ball_of(incoming)
        rulings = [Ruling("spot", incoming, 0, f"No other ball is on the table: {incoming}'s "
                          f"ball goes on the spot and the next player plays at it.",
                          LAW_TAKING)]
        self.end_inning()
        self.spot(self.ball_of(self.striker_name))
        return rulings

    def end_inning(self) -> None:
        self.run = 0
        alive = self.alive()
        for step in range(1, len(self.players) + 1):
            name = self.players[(self.striker + step) % len(self.players)]
            if name in alive:
                self.striker = self.players.index(name)
                break
        self.innings[self.striker_name] += 1

    def ended(self) -> list[Ruling]:
        alive = self.alive()
        if len(alive) == 1:
            self.offers.clear()
            return [self.finish(alive, LAW_PLAY_AT, "the last player with lives takes the "
                                "pool")]
        if (self.rules.divide and len(alive) == 2
                and self.lives[alive[0]] == self.lives[alive[1]]):
            return [self.finish(alive, LAW_LAST_TWO, "the last two are equal in lives and "
                                "divide the pool")]
        return []

    def totals(self) -> dict[str, int]:
        return dict(self.lives)

    # -- the table's reports -------------------------------------------------------------------

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        if self.offers:
            return [StarEvent(self.offers[0], True), StarEvent(self.offers[0], False)]
        return super().legal_events()

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.offers and not self.over:
            return (Awaiting("star", "player", self.offers[0], "whether he stars, buying "
                             "back in"),)
        waits = super().awaiting()
        if self.on is None and len(self.candidates()) > 1 and self.stroke.call is None:
            waits = (*waits, Awaiting("call", "referee", self.striker_name,
                                      "the ball the striker plays at (the nearest)"))
        return waits

    def closings(self) -> list[StrokeEvent]:
        there = self.candidates()
        target = self.object_ball(self.stroke.call, there)
        aim = target if target is not None else there[0] if there else None
        events = [StrokeEvent(path=())]
        if aim is not None:
            events += [StrokeEvent(path=(aim,)), StrokeEvent(path=("cushion", aim))]
        return self.ruled(events)

    def details(self) -> JSON:
        return {"balls": {name: self.ball_of(name) for name in self.players},
                "lives": dict(self.lives), "on": self.on,
                "star_offer": self.offers[0] if self.offers else None,
                "starred": self.starred}


COLOR_BALL = CueGame(
    "color-ball-pool", "Color-Ball Pool; English, or Following Pool", ColorBallRules(),
    "pocket-billiards", ColorBallState,
    (LAW_ORDER, LAW_PLAY_AT, LAW_LIVES, LAW_OWN_TOO, LAW_WRONG, LAW_MISS_POCKET, LAW_TAKING,
     LAW_STAR, LAW_FOUL, LAW_SIMULTANEOUS, LAW_THREE, LAW_LAST_TWO),
    seats=(2, 12))

