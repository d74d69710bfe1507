"""What every dice game shares: the throw, the rethrow of a foul throw, house rules, odds.

A throw is told to the engine as the faces uppermost once the dice rest flat; a die
that came to rest cocked or left the table is reported as a rethrow, which voids the
throw before it (backgammon laws 5 and 6, which the catalogue applies to all dice).
Every dice game keeps the log of its events, so a save and a rethrow both replay it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement, product
from typing import Any, ClassVar, TypeVar

from engine.core import (
    JSON,
    Event,
    LawRef,
    Operation,
    Ruling,
)
from engine.dice import laws
from engine.errors import IllegalEventError
from engine.rules import HouseRules, LoggedGame, LoggedState

FACES = (1, 2, 3, 4, 5, 6)
#: Why a throw is void, and the law that makes it so.
RETHROW_REASONS: Mapping[str, LawRef] = {"cocked": laws.COCKED, "off-table": laws.OFF_TABLE}


@dataclass(frozen=True, slots=True)
class ThrowEvent(Event):
    """The faces uppermost after a fair throw, in the order the table read them."""

    type: ClassVar[str] = "throw"
    dice: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.dice)

    def to_json(self) -> JSON:
        return {"type": self.type, "dice": list(self.dice)}


@dataclass(frozen=True, slots=True)
class RethrowEvent(Event):
    """The last throw was foul (a die cocked or off the table): it is void, throw again."""

    type: ClassVar[str] = "rethrow"
    reason: str

    def to_json(self) -> JSON:
        return {"type": self.type, "reason": self.reason}


def parse_throw(data: Mapping[str, Any], count: int, game: str) -> ThrowEvent:
    """A throw event of `count` dice, or `IllegalEventError` naming the bad die and value."""
    dice = data.get("dice")
    if not isinstance(dice, list):
        raise IllegalEventError(f"throw: dice must be a list of faces, got {dice!r}")
    if len(dice) != count:
        raise IllegalEventError(f"throw: {game} is played with {count} dice, "
                                f"got {len(dice)} ({dice})")
    for number, face in enumerate(dice, start=1):
        if isinstance(face, bool) or not isinstance(face, int) or face not in FACES:
            raise IllegalEventError(f"throw: die {number} shows {face!r}; a die's faces are 1-6")
    return ThrowEvent(tuple(dice))


@dataclass(frozen=True, slots=True)
class StandEvent(Event):
    """The thrower stops with what he has: his turn is over."""

    type: ClassVar[str] = "stand"
    player: str

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player}


def parse_rethrow(data: Mapping[str, Any]) -> RethrowEvent:
    reason = data.get("reason")
    if reason not in RETHROW_REASONS:
        raise IllegalEventError(f"rethrow: reason must be one of {', '.join(RETHROW_REASONS)}, "
                                f"got {reason!r}")
    return RethrowEvent(str(reason))


def throws(count: int) -> Iterator[tuple[int, ...]]:
    """Every way `count` distinguishable dice can fall, each equally likely with fair dice."""
    return product(FACES, repeat=count)


def distinct_throws(count: int) -> list[tuple[int, ...]]:
    """Each set of faces `count` dice can show, once (the order they are read in rules nothing)."""
    return list(combinations_with_replacement(FACES, count))


def chance(test: Callable[[tuple[int, ...]], bool], count: int = 2) -> Fraction:
    """The exact probability that one throw of `count` fair dice passes `test`."""
    outcomes = list(throws(count))
    return Fraction(sum(1 for dice in outcomes if test(dice)), len(outcomes))


def ways(total: int, count: int = 2) -> int:
    """In how many of the 6**count ways the dice can fall they add up to `total`."""
    return sum(1 for dice in throws(count) if sum(dice) == total)


def odds_against(probability: Fraction) -> tuple[int, int]:
    """Odds against an event of this probability, in lowest terms: (against, for)."""
    if not 0 < probability < 1:
        raise ValueError(f"odds need a probability strictly between 0 and 1, not {probability}")
    ratio = (1 - probability) / probability
    return ratio.numerator, ratio.denominator


def odds_text(probability: Fraction) -> str:
    against, for_ = odds_against(probability)
    return f"{against} to {for_}"


# -- the state and the game every dice game builds on ------------------------------------

class DiceState(LoggedState):
    """A dice game in progress: the log that a save and a rethrow replay."""

    rethrow_allowed: bool

    def __init__(self, game: DiceGame[Any], rules: HouseRules,
                 players: Sequence[str]) -> None:
        super().__init__(game, rules, players)
        self.rethrow_allowed = False

    @abstractmethod
    def where(self) -> str:
        """Where the game stands, for messages: "Ann to throw"."""

    @property
    @abstractmethod
    def thrower(self) -> str:
        """Whose throw it is."""

    def verify_rethrow(self, event: RethrowEvent) -> None:
        """Raise `IllegalEventError` unless there is a throw for `event` to void."""
        if not self.rethrow_allowed:
            raise IllegalEventError(f"rethrow ({event.reason}): no throw to void; "
                                    f"{self.where()}")

    def thrown_again(self) -> str:
        """What a rethrow's ruling says happens next, the voided throw undone."""
        return f"{self.thrower} throws again"

    def void_last(self, event: RethrowEvent) -> Operation:
        """Undo the last throw by replaying the log without it."""
        self.replayed_without_last()
        self.rethrow_allowed = False
        return Operation(event, (Ruling(
            "rethrow", self.thrower, None,
            f"The last throw is void ({event.reason}): no throw; {self.thrown_again()}.",
            RETHROW_REASONS[event.reason]),))

    def rethrows(self) -> list[Event]:
        """The rethrows the table may report now."""
        if not self.rethrow_allowed:
            return []
        return [RethrowEvent(reason) for reason in RETHROW_REASONS]

    def save_extra(self) -> JSON:
        return {"rethrow_allowed": self.rethrow_allowed}

    def restore_extra(self, saved: Mapping[str, Any]) -> None:
        self.rethrow_allowed = bool(saved["rethrow_allowed"])


StateT = TypeVar("StateT", bound=DiceState)


class DiceGame(LoggedGame[StateT]):
    """A dice game of the book: its `rules` are the variant, its states replay their log."""

    family = "dice"

    def laws(self) -> tuple[LawRef, ...]:
        return (*RETHROW_REASONS.values(), *self.own_laws())
