"""What the turn-taking dice games of the book's Dice Games chapter share.

Drop Dead, Ace in the Pot, Help Your Neighbor, Ten-Pins with Dice, Base Ball with Dice and
Centennial are played in turns, each player throwing when his turn comes; no one bets
against a caster. This module holds their common machinery: named house-rule options,
the throw that may name its thrower, the rethrow that voids the last throw (backgammon
laws 5 and 6), the log a save and a rethrow replay, and the snapshot the dashboard reads.
Each game module supplies the rules proper.
"""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any, ClassVar, Self

from engine.core import (
    JSON,
    Awaiting,
    Event,
    Game,
    LawRef,
    Operation,
    Outcome,
    Ruling,
    State,
    check_players,
)
from engine.dice import laws
from engine.dice.core import FACES, RETHROW_REASONS, RethrowEvent, parse_rethrow, parse_throw
from engine.errors import BadOptionError, IllegalEventError


@dataclass(frozen=True, slots=True)
class TurnRules:
    """A game's rules; `CHOICES` names each house-rule option and the values it may take."""

    CHOICES: ClassVar[Mapping[str, tuple[object, ...]]] = {}

    def with_options(self, options: Mapping[str, Any], game_id: str) -> Self:
        """These rules with the named house rules set; unknown options or values raise."""
        for name, value in options.items():
            allowed = self.CHOICES.get(name)
            if allowed is None:
                names = ", ".join(self.CHOICES) or "none"
                raise BadOptionError(f"{game_id}: no option {name!r}; its options are {names}")
            if not any(type(value) is type(choice) and value == choice for choice in allowed):
                raise BadOptionError(f"{game_id}: option {name} must be {_spell(allowed)}, "
                                     f"not {value!r}")
        return dataclasses.replace(self, **dict(options))

    def options(self) -> JSON:
        return {name: getattr(self, name) for name in self.CHOICES}


def _spell(allowed: tuple[object, ...]) -> str:
    """The allowed values in words: a range of whole numbers as 'a whole number 1-20'."""
    if all(type(v) is int for v in allowed) and len(allowed) > 2:
        return f"a whole number {allowed[0]}-{allowed[-1]}"
    return " or ".join(repr(v) for v in allowed)


@dataclass(frozen=True, slots=True)
class TurnThrow(Event):
    """The faces uppermost after a fair throw; `player` optionally names who threw."""

    type: ClassVar[str] = "throw"
    dice: tuple[int, ...]
    player: str | None = None

    @property
    def total(self) -> int:
        return sum(self.dice)

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "dice": list(self.dice)}
        if self.player is not None:
            data["player"] = self.player
        return data


def parse_turn_throw(data: Mapping[str, Any], count: int, game: str,
                     players: Sequence[str]) -> TurnThrow:
    """A throw of `count` dice, its optional thrower checked against the players."""
    dice = parse_throw(data, count, game).dice
    return TurnThrow(dice, parse_player(data, players, "throw", required=False))


def parse_player(data: Mapping[str, Any], players: Sequence[str], kind: str,
                 required: bool = True) -> str | None:
    """The event's `player`, which must be one of the players (or absent if not required)."""
    player = data.get("player")
    if player is None and not required:
        return None
    if player not in players:
        raise IllegalEventError(f"{kind}: unknown player {player!r}; the players are "
                                f"{', '.join(players)}")
    return str(player)


def dice_sets(count: int) -> Iterator[tuple[int, ...]]:
    """Each set of faces `count` dice can show, once (the order they are read in rules nothing)."""
    return combinations_with_replacement(FACES, count)


class TurnState(State):
    """A game in turns: the log of events, the rethrow, saving, snapshots and the end.

    A subclass keeps its whole position in plain attributes set by `start`, so a rethrow
    can rebuild it by replaying the log without the voided throw.
    """

    game: TurnGame
    rules: TurnRules
    #: The event types of the game, rethrow included, for the message on an unknown one.
    KINDS: ClassVar[tuple[str, ...]] = ("throw", "rethrow")
    #: The table's seats: how many players the game takes, checked before it starts.
    SEATS: ClassVar[str] = "at one table"

    def __init__(self, game: TurnGame, rules: TurnRules, players: Sequence[str]) -> None:
        self.game = game
        self.rules = rules
        self.players = list(players)
        self.history: list[Event] = []
        self.rethrow_allowed = False
        self.last: tuple[int, ...] | None = None
        self.over = False
        self.won: tuple[str, ...] = ()
        self.start()

    @classmethod
    def check_count(cls, players: Sequence[str]) -> None:
        """Raise `IllegalEventError` if the game cannot be played by this many players."""

    # -- what each game supplies -----------------------------------------------------------

    @abstractmethod
    def start(self) -> None:
        """Set up the position before the first event."""

    @property
    @abstractmethod
    def thrower(self) -> str:
        """Whose throw it is."""

    @abstractmethod
    def parse(self, kind: str, data: Mapping[str, Any]) -> Event:
        """This game's event of type `kind` (never a rethrow), or raise."""

    @abstractmethod
    def check(self, event: Event) -> None:
        """Raise `IllegalEventError` if `event` cannot happen now (the game is not over)."""

    @abstractmethod
    def play(self, event: Event) -> list[Ruling]:
        """Apply a checked event to the position; return its rulings."""

    @abstractmethod
    def choices(self) -> list[Event]:
        """The events the table could report next, the game being on and no rethrow."""

    @abstractmethod
    def awaits(self) -> tuple[Awaiting, ...]:
        """What the next ruling needs, the game being on."""

    @abstractmethod
    def totals(self) -> dict[str, int]:
        """Each player's score on the sheet, in the order of the players."""

    def details(self) -> JSON:
        """The game's own part of the snapshot."""
        return {}

    def where(self) -> str:
        return "the game is over" if self.over else f"{self.thrower} to throw"

    # -- the contract ------------------------------------------------------------------------

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = data.get("type")
        if kind == "rethrow":
            return parse_rethrow(data)
        if kind not in self.KINDS:
            raise IllegalEventError(f"{self.game.name} has no {kind!r} event; it has "
                                    f"{', '.join(self.KINDS)}")
        return self.parse(str(kind), data)

    def verify(self, event: Event) -> None:
        if isinstance(event, RethrowEvent):
            if not self.rethrow_allowed:
                raise IllegalEventError(f"rethrow ({event.reason}): no throw to void; "
                                        f"{self.where()}")
            return
        if self.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        player = getattr(event, "player", None)
        if event.type == "throw" and player is not None and player != self.thrower:
            raise IllegalEventError(f"throw by {player} out of turn: {self.where()}")
        self.check(event)

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        if isinstance(event, RethrowEvent):
            return self._rethrow(event)
        self.history.append(event)
        self.rethrow_allowed = event.type == "throw"
        return Operation(event, tuple(self.play(event)))

    def _rethrow(self, event: RethrowEvent) -> Operation:
        fresh = self.game.replay(self.rules, self.players, self.history[:-1])
        # The position is every attribute `start` and `play` set, so the replayed state's
        # attributes are the position without the voided throw.
        vars(self).update(vars(fresh))
        self.rethrow_allowed = False
        return Operation(event, (Ruling(
            "rethrow", self.thrower, None,
            f"The last throw is void ({event.reason}): no throw; {self.thrower} throws again.",
            RETHROW_REASONS[event.reason]),))

    def legal_events(self) -> list[Event]:
        events: list[Event] = []
        if self.rethrow_allowed:
            events.extend(RethrowEvent(reason) for reason in RETHROW_REASONS)
        if not self.over:
            events.extend(self.choices())
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        return () if self.over else self.awaits()

    def finish(self, winners: Iterable[str], law: LawRef, why: str) -> Ruling:
        """End the game with these winners; the ruling says why, with their score."""
        self.over = True
        self.won = tuple(winners)
        scores = self.totals()
        best = scores[self.won[0]]
        names = " and ".join(self.won)
        verb = "wins" if len(self.won) == 1 else "win"
        return Ruling("winner", ", ".join(self.won), best,
                      f"{why}: {names} {verb}, with {best}.", law)

    def outcome(self) -> Outcome | None:
        if not self.over:
            return None
        return Outcome(self.totals(), self.won)

    def snapshot(self) -> JSON:
        totals = self.totals()
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(self.players), "options": self.rules.options(),
            "caster": None if self.over else self.thrower,
            "last_throw": list(self.last) if self.last else None,
            "sheet": [{"player": name, "total": totals[name]} for name in self.players],
            "over": self.over,
            "winners": list(self.won),
            **self.details(),
        }

    def save(self) -> JSON:
        return {"players": list(self.players), "options": self.rules.options(),
                "events": [e.to_json() for e in self.history],
                "rethrow_allowed": self.rethrow_allowed}


class TurnGame(Game):
    """A turn-taking dice game of the book: its rules, its state class and its laws."""

    family = "dice"

    rules: TurnRules

    def __init__(self, id: str, name: str, rules: TurnRules, state: type[TurnState],
                 own_laws: tuple[LawRef, ...], aliases: tuple[str, ...] = ()) -> None:
        super().__init__(id, name, rules, aliases)
        self.state = state
        self.own_laws = own_laws

    def new_state(self, players: Sequence[str],
                  options: Mapping[str, Any] | None = None) -> TurnState:
        rules = self.rules.with_options(options or {}, self.id)
        names = check_players(players, self.state.SEATS)
        self.state.check_count(names)
        return self.state(self, rules, names)

    def replay(self, rules: TurnRules, players: Sequence[str],
               events: Sequence[Event]) -> TurnState:
        state = self.state(self, rules, players)
        for event in events:
            state.apply(event)
        return state

    def load(self, saved: Mapping[str, Any]) -> TurnState:
        state = self.new_state(saved["players"], saved["options"])
        for data in saved["events"]:
            state.apply(state.parse_event(data))
        state.rethrow_allowed = bool(saved["rethrow_allowed"])
        return state

    def laws(self) -> tuple[LawRef, ...]:
        return (laws.COCKED, laws.OFF_TABLE, *self.own_laws)
