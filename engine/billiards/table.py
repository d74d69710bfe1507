"""The state every cue game shares: strikers and innings, the balls on the table, the stroke.

`CueState` gathers what happens during a stroke (balls pocketed, balls forced off, the
referee's fouls, the call) and, when the stroke is closed (`stroke` or `count`), hands the
whole `Stroke` to the game's `rule`, which scores it by the book. It keeps each player's
score, innings, current run and high run, the striker, the balls on the table and those
down, and the end of the game. A game module supplies the rules proper: `start`, `rule`,
the strokes a random table may report (`closings`) and its snapshot `details`.

A run is the points a striker makes in one inning (a carom game's "break"); it ends when
the game calls `end_inning`. Out-of-turn acts are refused (`player` on a stroke, count or
call names who made it); playing out of turn is also a foul the referee may call.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.billiards.core import (
    CUE,
    REFEREE_FOULS,
    CallEvent,
    FoulEvent,
    OffEvent,
    PocketEvent,
    PrivateEvent,
    StrokeEvent,
    TableFacts,
    parse_ball,
    parse_count,
    parse_pocket,
    parse_stroke,
)
from engine.core import JSON, Awaiting, Event, LawRef, Operation, Outcome, Ruling
from engine.errors import IllegalEventError
from engine.rules import HouseRules, LoggedGame, LoggedState

BILLIARD_FAMILIES = ("carom-billiards", "pocket-billiards")


@dataclass(slots=True)
class Stroke:
    """One stroke as it happened: pockets and balls off in order, fouls, the call, the facts."""

    pockets: list[tuple[str, str]] = field(default_factory=list)
    off: list[str] = field(default_factory=list)
    fouls: list[str] = field(default_factory=list)
    call: CallEvent | None = None
    facts: StrokeEvent = field(default_factory=StrokeEvent)

    @property
    def pocketed(self) -> list[str]:
        """The balls that fell, in the order they fell."""
        return [ball for ball, _ in self.pockets]

    def pocket_of(self, ball: str) -> str | None:
        return next((pocket for b, pocket in self.pockets if b == ball), None)

    def to_json(self) -> JSON:
        return {"pockets": [{"ball": b, "pocket": p} for b, p in self.pockets],
                "off": list(self.off), "fouls": list(self.fouls),
                "call": None if self.call is None else self.call.to_json()}


class CueState(LoggedState):
    """A cue game in progress; see the module docstring."""

    game: CueGame
    TABLE: ClassVar[TableFacts]
    #: The referee's fouls this game rules on.
    FOULS: ClassVar[tuple[str, ...]] = REFEREE_FOULS
    #: Balls that always come back into play after the stroke (the cue ball; carom balls).
    RETURNED: ClassVar[tuple[str, ...]] = (CUE,)
    #: Whether the striker calls his ball (and pocket) before a stroke.
    CALLS: ClassVar[bool] = False
    #: The private numbers a player may draw, where the game is played for them.
    PRIVATE: ClassVar[tuple[int, int] | None] = None
    #: Any event may name the striker as its "player"; another name is out of turn.
    checked_keys = frozenset({"player"})

    def __init__(self, game: CueGame, rules: HouseRules, players: Sequence[str]) -> None:
        super().__init__(game, rules, players)
        self.striker = 0
        self.scores = {name: 0 for name in self.players}
        self.innings = {name: 0 for name in self.players}
        self.innings[self.players[0]] = 1
        self.run = 0
        self.high_run = {name: 0 for name in self.players}
        self.on_table = list(self.TABLE.balls)
        self.pins_up = list(self.TABLE.pins)
        self.down: list[str] = []
        self.strokes = 0
        self.stroke = Stroke()
        self.private: dict[str, int] = {}
        self.over = False
        self.won: tuple[str, ...] = ()
        self.start()

    # -- what each game supplies ------------------------------------------------------------

    def start(self) -> None:
        """Set up the position before the first stroke (the whole rack, by default)."""

    @abstractmethod
    def rule(self, stroke: Stroke) -> list[Ruling]:
        """Score a closed stroke by the book; end the inning or the game as it says."""

    @abstractmethod
    def closings(self) -> list[StrokeEvent]:
        """The stroke reports a random table may make now (for the playout contract)."""

    def calls(self) -> list[CallEvent]:
        """The calls the striker may make now, where the game has calls."""
        return []

    def check_call(self, event: CallEvent) -> None:
        """Raise `IllegalEventError` if this call cannot be made now."""

    def closing_facts(self) -> TableFacts:
        """The table whose `needs` the stroke in progress must give to close: the game's
        own, unless a foul already called has ended the stroke (see carom games' own ball)."""
        return self.TABLE

    def details(self) -> JSON:
        """The game's own part of the snapshot."""
        return {}

    def totals(self) -> dict[str, int]:
        """Each player's score on the sheet."""
        return dict(self.scores)

    def disclosed(self) -> dict[str, int]:
        """The private numbers the book makes known to every player while the game is still
        in play (none by default: a small ball is known only to its holder until the game
        is over; the table's outputs keep the others from the players, docs/dashboard.md)."""
        return {}

    # -- helpers for the games ---------------------------------------------------------------

    @property
    def striker_name(self) -> str:
        return self.players[self.striker]

    @property
    def opponent(self) -> str:
        """The next player in turn (the non-striker of a two-handed game)."""
        return self.players[(self.striker + 1) % len(self.players)]

    def score(self, player: str, points: int, kind: str, text: str, law: LawRef) -> Ruling:
        """`points` to `player` (the striker's go to his run too)."""
        self.scores[player] += points
        if player == self.striker_name:
            self.run += points
            self.high_run[player] = max(self.high_run[player], self.run)
        return Ruling(kind, player, points, text, law)

    def deduct(self, player: str, points: int, kind: str, text: str, law: LawRef) -> Ruling:
        """`points` off `player`'s score (a forfeit); the ruling's amount is negative."""
        self.scores[player] -= points
        return Ruling(kind, player, -points, text, law)

    def end_inning(self) -> None:
        """The striker's inning is over; the next player in turn comes to the table."""
        self.run = 0
        self.striker = (self.striker + 1) % len(self.players)
        self.innings[self.striker_name] += 1

    def spot(self, ball: str) -> None:
        """Put a ball that is down back on the table."""
        if ball in self.down:
            self.down.remove(ball)
        if ball not in self.on_table:
            self.on_table.append(ball)

    def finish(self, winners: Iterable[str], law: LawRef, why: str) -> Ruling:
        """End the game with these winners; the ruling says why, with their score."""
        self.over = True
        self.won = tuple(winners)
        totals = self.totals()
        best = totals[self.won[0]] if self.won else None
        verb = "wins" if len(self.won) == 1 else "win"
        return Ruling("winner", ", ".join(self.won) or None, best,
                      f"{why}: {' and '.join(self.won) or 'nobody'} {verb}"
                      + (f", with {best}." if best is not None else "."), law)

    def where(self) -> str:
        return "the game is over" if self.over else f"{self.striker_name} is the striker"

    # -- the contract -------------------------------------------------------------------------

    def kinds(self) -> tuple[str, ...]:
        kinds = ["stroke"]
        if self.TABLE.pockets:
            kinds.append("pocket")
        kinds += ["off", "foul"]
        if self.TABLE.counts:
            kinds.append("count")
        if self.CALLS:
            kinds.append("call")
        if self.PRIVATE is not None:
            kinds.append("private")
        return tuple(kinds)

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = data.get("type")
        name = self.game.name
        if kind not in self.kinds():
            raise IllegalEventError(f"{name} has no {kind!r} event; it has "
                                    f"{', '.join(self.kinds())}")
        player = data.get("player")
        if player is not None and kind != "private" and player != self.striker_name:
            raise IllegalEventError(f"{kind} by {player!r} out of turn: {self.where()}")
        if kind == "pocket":
            return PocketEvent(parse_ball(data.get("ball"), self.TABLE.balls, "pocket", name),
                               parse_pocket(data.get("pocket"), "pocket", self.TABLE.pockets))
        if kind == "off":
            return OffEvent(parse_ball(data.get("ball"), self.TABLE.balls, "off", name))
        if kind == "foul":
            foul = data.get("kind")
            if foul not in self.FOULS:
                raise IllegalEventError(f"foul: {name} has no foul {foul!r}; its fouls are "
                                        f"{', '.join(self.FOULS)}")
            return FoulEvent(str(foul))
        if kind == "call":
            pocket = data.get("pocket")
            return CallEvent(parse_ball(data.get("ball"), self.TABLE.balls, "call", name),
                             None if pocket is None else parse_pocket(pocket, "call",
                                                                      self.TABLE.pockets))
        if kind == "private":
            low, high = self.PRIVATE or (0, 0)
            from engine.billiards.core import parse_private
            return parse_private(data, self.players, low, high)
        if kind == "count":
            return parse_count(data, self.TABLE, name)
        return parse_stroke(data, self.closing_facts(), name)

    def verify(self, event: Event) -> None:
        if self.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        if isinstance(event, (PocketEvent, OffEvent)):
            if event.ball not in self.on_table:
                raise IllegalEventError(f"{event.type}: ball {event.ball} is not on the table "
                                        f"(it is down and has not been spotted)")
        elif isinstance(event, CallEvent):
            if self.stroke.pockets or self.stroke.off or self.stroke.fouls:
                raise IllegalEventError("call: the stroke is already under way; call before "
                                        "the stroke")
            if event.ball not in self.on_table or event.ball in self.RETURNED:
                raise IllegalEventError(f"call: ball {event.ball} is not an object ball on "
                                        f"the table")
            self.check_call(event)
        elif isinstance(event, PrivateEvent):
            if event.player in self.private:
                raise IllegalEventError(f"private: {event.player} already holds a small ball")
            if event.number in self.private.values():
                raise IllegalEventError(f"private: small ball {event.number} is already drawn")
        elif isinstance(event, StrokeEvent):
            self.check_stroke(event)

    def check_stroke(self, event: StrokeEvent) -> None:
        """Raise `IllegalEventError` if the stroke cannot close now (e.g. a call is owed)."""

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        self.history.append(event)
        if isinstance(event, PocketEvent):
            self.on_table.remove(event.ball)
            self.down.append(event.ball)
            self.stroke.pockets.append((event.ball, event.pocket))
        elif isinstance(event, OffEvent):
            self.on_table.remove(event.ball)
            self.down.append(event.ball)
            self.stroke.off.append(event.ball)
        elif isinstance(event, FoulEvent):
            self.stroke.fouls.append(event.kind)
        elif isinstance(event, CallEvent):
            self.stroke.call = event
        elif isinstance(event, PrivateEvent):
            self.private[event.player] = event.number
            return Operation(event, tuple(self.drawn(event)))
        elif isinstance(event, StrokeEvent):
            self.stroke.facts = event
            done, self.stroke = self.stroke, Stroke()
            self.strokes += 1
            rulings = self.rule(done)
            for ball in self.RETURNED:
                if ball in self.TABLE.balls:
                    self.spot(ball)
            return Operation(event, tuple(rulings))
        return Operation(event)

    def drawn(self, event: PrivateEvent) -> list[Ruling]:
        """Rulings on a private ball drawn (none by default)."""
        return []

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        events: list[Event] = []
        if not (self.stroke.pockets or self.stroke.off or self.stroke.fouls):
            events.extend(self.calls())
        for ball in self.on_table:
            events.extend(PocketEvent(ball, pocket) for pocket in self.TABLE.pockets)
        events.extend(OffEvent(ball) for ball in self.on_table[:2])
        events.extend(FoulEvent(kind) for kind in self.FOULS)
        events.extend(self.closings())
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        table = self.closing_facts()
        needs = ", ".join(f for f in table.needs if f not in table.sometimes) or "nothing more"
        if table.sometimes:
            needs += f" (and {', '.join(table.sometimes)} where it applies)"
        waits = [Awaiting("stroke", "referee", self.striker_name,
                          f"the end of the stroke, with {needs}")]
        if self.TABLE.pockets:
            waits.append(Awaiting("pocket", "sensor", self.striker_name,
                                  "the balls that fall, with their pockets"))
        return tuple(waits)

    def outcome(self) -> Outcome | None:
        if not self.over:
            return None
        return Outcome(self.totals(), self.won)

    def snapshot(self) -> JSON:
        totals = self.totals()
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(self.players), "options": self.rules.options(),
            "striker": None if self.over else self.striker_name,
            "sheet": [{"player": name, "total": totals[name], "innings": self.innings[name],
                       "run": self.run if name == self.striker_name and not self.over else 0,
                       "high_run": self.high_run[name]} for name in self.players],
            "table": {"on": list(self.on_table), "down": list(self.down),
                      "pins_up": list(self.pins_up)},
            "stroke": self.stroke.to_json(),
            "strokes": self.strokes,
            "private_drawn": sorted(self.private),
            "over": self.over,
            "winners": list(self.won),
            **self.details(),
        }


class CueGame(LoggedGame[CueState]):
    """A cue game: its family (carom or pocket billiards), its state class and its laws."""

    def __init__(self, id: str, name: str, rules: HouseRules, family: str,
                 state: type[CueState], laws: tuple[LawRef, ...],
                 aliases: tuple[str, ...] = (), seats: tuple[int, int] = (2, 12)) -> None:
        super().__init__(id, name, rules, aliases)
        if family not in BILLIARD_FAMILIES:
            raise ValueError(f"{id}: family {family!r} is not one of {BILLIARD_FAMILIES}")
        self.family = family
        self.state_class = state
        self.game_laws = laws
        self.seats = seats

    def seated(self, players: Sequence[str]) -> list[str]:
        names = super().seated(players)
        low, high = self.seats
        if not low <= len(names) <= high:
            seats = f"{low}" if low == high else f"{low}-{high}"
            raise IllegalEventError(f"{self.name} is played by {seats} players, "
                                    f"not {len(names)}")
        return names

    def start(self, rules: Any, players: Sequence[str]) -> CueState:
        return self.state_class(self, rules, players)

    def own_laws(self) -> tuple[LawRef, ...]:
        return self.game_laws
