"""The rules engine's core: laws, rulings, operations, games and states.

The engine is pure: a `State` is told what happened at the table (a ball, a card,
a throw, a player's act) and answers with the rulings the books give for it. It
draws no random values and does no I/O.

>>> from engine.registry import get_game
>>> state = get_game("ten-pins").new_state(["Ann"])
>>> op = state.apply(state.parse_event({"type": "ball", "player": "Ann", "standing": []}))
>>> [r.kind for r in op.rulings]
['count', 'strike']
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, ClassVar

from engine.errors import IllegalEventError

JSON = dict[str, Any]

#: Seed file names, as `LawRef.book` holds them.
HOYLE_1940 = "000_d7ba09a064da292c.txt"
ROUND_GAMES_1897 = "001_976a69a7504f98ef.txt"


@dataclass(frozen=True, slots=True)
class LawRef:
    """Where in a book a ruling's law is written: seed file, line range, title."""

    book: str
    lines: tuple[int, int]
    title: str

    def __post_init__(self) -> None:
        first, last = self.lines
        if not 0 < first <= last:
            raise ValueError(f"law {self.title!r}: bad line range {self.lines}")

    def to_json(self) -> JSON:
        first, last = self.lines
        return {"book": self.book, "lines": f"{first}-{last}", "title": self.title}


def hoyle_law(first: int, last: int, title: str) -> LawRef:
    """A law of Hoyle's Games (1940): lines `first`-`last` of its seed file."""
    return LawRef(HOYLE_1940, (first, last), title)


def round_games_law(first: int, last: int, title: str) -> LawRef:
    """A law of Round Games with Cards (1897): lines `first`-`last` of its seed file."""
    return LawRef(ROUND_GAMES_1897, (first, last), title)


@dataclass(frozen=True, slots=True)
class Ruling:
    """One decision of the rules, in the project's words, with the law behind it."""

    kind: str
    who: str | None
    amount: int | None
    text: str
    law: LawRef

    def to_json(self) -> JSON:
        return {
            "kind": self.kind,
            "who": self.who,
            "amount": self.amount,
            "text": self.text,
            "law": self.law.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at the table; each family declares its own kinds."""

    type: ClassVar[str] = "event"

    def to_json(self) -> JSON:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Operation:
    """What one applied event did: the event and the rulings it produced."""

    event: Event
    rulings: tuple[Ruling, ...] = ()


@dataclass(frozen=True, slots=True)
class Awaiting:
    """A fact the next ruling needs, and who can supply it.

    `source` is one of "sensor", "operator", "player", "dealer", "referee".
    """

    fact: str
    source: str
    player: str | None = None
    detail: str = ""

    def to_json(self) -> JSON:
        return {"fact": self.fact, "source": self.source, "player": self.player,
                "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: final scores, the winners (several on a tie), and why."""

    scores: Mapping[str, int]
    winners: tuple[str, ...]
    rulings: tuple[Ruling, ...] = field(default=())


class State(ABC):
    """A game in progress. `apply` mutates the state and returns what it did."""

    game: Game
    #: Keys an event may carry that `parse_event` checks but no event keeps (a cue game's
    #: "player", which must name the striker); `parse_strictly` accepts them.
    checked_keys: ClassVar[frozenset[str]] = frozenset()

    @abstractmethod
    def parse_event(self, data: Mapping[str, Any]) -> Event:
        """Turn one transcript or log JSON object into this game's event, or raise."""

    @abstractmethod
    def verify(self, event: Event) -> None:
        """Raise `IllegalEventError` if `event` cannot happen now."""

    def can_apply(self, event: Event) -> bool:
        try:
            self.verify(event)
        except IllegalEventError:
            return False
        return True

    @abstractmethod
    def apply(self, event: Event) -> Operation:
        """Verify and apply `event`; return the rulings it produced."""

    @abstractmethod
    def legal_events(self) -> Sequence[Event]:
        """Every event the table could report next."""

    @abstractmethod
    def awaiting(self) -> tuple[Awaiting, ...]:
        """The facts the next ruling needs; empty once the game is over."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """None until the game is over."""

    @abstractmethod
    def snapshot(self) -> JSON:
        """A JSON-ready picture of the game for the dashboard and scoreboards."""

    @abstractmethod
    def save(self) -> JSON:
        """JSON that `Game.load` turns back into an equal state (for log snapshots)."""


def parse_strictly(state: State, data: Mapping[str, Any]) -> Event:
    """`state.parse_event(data)`, refusing any key the event does not take.

    A parser reads the keys it knows and passes over the rest, so a misspelt key
    (`"foull": true`) would silently mean the default. Whatever comes in new (a
    transcript line, an operator's or a sensor's event) is read with this instead;
    a log already written is replayed with plain `parse_event`, so old logs still fold.
    The keys an event takes are those of `event_keys`, and the state's `checked_keys`.
    """
    event = state.parse_event(data)
    takes = event_keys(event)
    held = event.to_json()
    unknown = [key for key in data if key not in held and key not in state.checked_keys
               and not (key in takes and _as_json(getattr(event, key)) == data[key])]
    if unknown:
        keys = ", ".join(repr(key) for key in unknown)
        kind = data.get("type")
        raise IllegalEventError(
            f"{kind}: unknown key{'s' if len(unknown) > 1 else ''} {keys}; a {kind} event "
            f"takes {', '.join([*takes, *sorted(state.checked_keys - set(takes))])}")
    return event


def event_keys(event: Event) -> tuple[str, ...]:
    """The keys an event of its kind takes: those its `to_json` gives back, then the
    fields it leaves out at their defaults (a fair ball's `foul`, a card dealt face up's
    `up`), which a strict reading accepts only with the value the event holds.

    An event class that also serialises as another kind (a stroke as the referee's
    `count`) takes only that kind's keys then: its fields belong to its own kind.
    """
    held = event.to_json()
    keys = ["type", *(key for key in held if key != "type")]
    if held.get("type") == event.type and is_dataclass(event):
        keys += [f.name for f in fields(event) if f.name not in held]
    return tuple(keys)


def _as_json(value: Any) -> Any:
    """A field's value as its JSON reads (a tuple as a list)."""
    if isinstance(value, tuple | list):
        return [_as_json(item) for item in value]
    return value


class Game(ABC):
    """A game as the books give it; `rules` is the frozen dataclass that is the variant."""

    family: str

    def __init__(self, id: str, name: str, rules: Any, aliases: tuple[str, ...] = (),
                 book: str = "hoyle-1940") -> None:
        self.id = id
        self.name = name
        self.rules = rules
        self.aliases = aliases
        self.book = book

    @abstractmethod
    def new_state(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> State:
        """A fresh game for these players; `options` are the named house rules."""

    @abstractmethod
    def load(self, saved: Mapping[str, Any]) -> State:
        """Rebuild a state from `State.save()` output."""

    @abstractmethod
    def laws(self) -> tuple[LawRef, ...]:
        """Every law a ruling of this game can cite."""

    def describe(self) -> JSON:
        return {"id": self.id, "family": self.family, "name": self.name, "book": self.book,
                "aliases": list(self.aliases)}


#: The most players one table seats.
MAX_PLAYERS = 12
#: The longest name a player (or a bettor who is not seated) may go by.
NAME_LENGTH = 40


def check_players(players: Sequence[str], where: str) -> list[str]:
    """The players' names, checked: 1-12 distinct names of 1-40 characters.

    `where` finishes "at most 12 players ...", e.g. "on one lane".
    """
    names = list(players)
    if not names:
        raise IllegalEventError("a game needs at least one player")
    if len(names) > MAX_PLAYERS:
        raise IllegalEventError(f"at most {MAX_PLAYERS} players {where}, got {len(names)}")
    for name in names:
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_LENGTH:
            raise IllegalEventError(f"player names must be 1-{NAME_LENGTH} characters, got "
                                    f"{name!r}")
    if len(set(names)) != len(names):
        raise IllegalEventError(f"player names must differ: {names}")
    return names
