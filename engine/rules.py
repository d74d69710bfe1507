"""What games of every family share: named house rules, the players in an event, results.

A variant's rules are a frozen dataclass (DESIGN section 4); `HouseRules` gives it named
options (`known_options`) that a setup may set by name, each checked, so an unknown option
or a value it does not take is refused naming the game and the option.
"""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Self, TypeVar, cast

from engine.core import JSON, Event, Game, LawRef, Outcome, State, check_players
from engine.errors import BadOptionError, IllegalEventError


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


def best_off(net: Mapping[str, int]) -> Outcome:
    """The end of a session played for money: whoever is best off wins."""
    best = max(net.values())
    return Outcome(dict(net), tuple(name for name, value in net.items() if value == best))


def names(players: Sequence[str]) -> str:
    """Names in a sentence: "Ann", "Ann and Bob", "Ann, Bob and Cy"."""
    if len(players) <= 2:
        return " and ".join(players)
    return ", ".join(players[:-1]) + " and " + players[-1]


# -- named house rules -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Option:
    """One named house rule: its name, the values it takes (as a message reads them)."""

    name: str
    values: str
    check: Callable[[Any], bool]


def whole(name: str, low: int, high: int) -> Option:
    """An option that takes a whole number `low`-`high` (not a boolean, not a float)."""
    return Option(name, f"a whole number {low}-{high}",
                  lambda value: type(value) is int and low <= value <= high)


def _among(choices: tuple[object, ...]) -> Callable[[Any], bool]:
    # `type(...) is` keeps True from passing for 1, and 1 for True.
    return lambda value: any(type(value) is type(c) and value == c for c in choices)


def one_of(name: str, *choices: object) -> Option:
    """An option that takes one of `choices`, read as "one of 'a', 'b', 'c'"."""
    return Option(name, "one of " + ", ".join(repr(c) for c in choices), _among(choices))


def either(name: str, first: object, second: object) -> Option:
    """An option that takes one of two values, read as "'a' or 'b'"."""
    return Option(name, f"{first!r} or {second!r}", _among((first, second)))


class HouseRules:
    """A variant's rules, a frozen dataclass whose named options are fields set by name."""

    __slots__ = ()

    def known_options(self) -> tuple[Option, ...]:
        """The named house rules this variant takes; none by default."""
        return ()

    def with_options(self, options: Mapping[str, Any], game_id: str) -> Self:
        """These rules with the named house rules set; unknown options or values raise."""
        known = {option.name: option for option in self.known_options()}
        for name, value in options.items():
            option = known.get(name)
            if option is None:
                raise BadOptionError(f"{game_id}: no option {name!r}; its options are "
                                     f"{', '.join(known) or 'none'}")
            if not option.check(value):
                raise BadOptionError(f"{game_id}: option {name} must be {option.values}, "
                                     f"not {value!r}")
        # Every subclass is a frozen dataclass; this base cannot say so to mypy.
        replaced: Self = dataclasses.replace(cast(Any, self), **dict(options))
        return replaced

    def options(self) -> JSON:
        """The house rules in force, as a setup line gives them."""
        return {option.name: getattr(self, option.name) for option in self.known_options()}




# -- games whose state is the replay of their own events ------------------------------------

class LoggedState(State):
    """A game in progress that keeps its events: a save is its log, a load replays it.

    A subclass keeps its whole position in attributes its constructor sets, so the
    position can always be rebuilt by replaying `history` (a void or a correction
    replays the log without an event).
    """

    game: LoggedGame[Any]
    rules: HouseRules
    players: list[str]
    history: list[Event]

    def __init__(self, game: LoggedGame[Any], rules: HouseRules,
                 players: Sequence[str]) -> None:
        self.game = game
        self.rules = rules
        self.players = list(players)
        self.history = []

    def replayed_without_last(self) -> None:
        """Become the position before the last event, by replaying the log without it."""
        fresh = self.game.replay(self.rules, self.players, self.history[:-1])
        vars(self).update(vars(fresh))

    def save_extra(self) -> JSON:
        """What a save keeps beyond the log (a flag the events alone do not set)."""
        return {}

    def restore_extra(self, saved: Mapping[str, Any]) -> None:
        """Set back what `save_extra` kept."""

    def save(self) -> JSON:
        return {"players": list(self.players), "options": self.rules.options(),
                "events": [e.to_json() for e in self.history], **self.save_extra()}


LoggedStateT = TypeVar("LoggedStateT", bound=LoggedState)


class LoggedGame(Game, Generic[LoggedStateT]):
    """A game whose `rules` are the variant (`HouseRules`) and whose states replay their log."""

    rules: HouseRules

    @abstractmethod
    def start(self, rules: Any, players: Sequence[str]) -> LoggedStateT:
        """A fresh state under `rules` (already checked; each game's own rules type)."""

    @abstractmethod
    def own_laws(self) -> tuple[LawRef, ...]:
        """The laws of the game's own passage that its rulings cite."""

    def seated(self, players: Sequence[str]) -> list[str]:
        """The players' names, checked for this game's table."""
        return check_players(players, "at one table")

    def new_state(self, players: Sequence[str],
                  options: Mapping[str, Any] | None = None) -> LoggedStateT:
        rules = self.rules.with_options(options or {}, self.id)
        return self.start(rules, self.seated(players))

    def replay(self, rules: HouseRules, players: Sequence[str],
               events: Sequence[Event]) -> LoggedStateT:
        state = self.start(rules, players)
        for event in events:
            state.apply(event)
        return state

    def load(self, saved: Mapping[str, Any]) -> LoggedStateT:
        state = self.new_state(saved["players"], saved["options"])
        for data in saved["events"]:
            state.apply(state.parse_event(data))
        state.restore_extra(saved)
        return state

    def laws(self) -> tuple[LawRef, ...]:
        return self.own_laws()
