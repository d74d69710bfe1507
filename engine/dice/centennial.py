"""Centennial as Hoyle's Games (1940) gives it (lines 10230-10252): 1 to 12 and back.

Each player's marker goes along a strip numbered 1 to 12 and back again. An ace puts it on
1; after that any die or sum of dice of a throw makes the next figure, and a throw may
make several in a row (ace, deuce, six carry a marker on 5 to 9). A number the caster
overlooks may be used by his adversary if it fits his game.

Events (the transcript vocabulary of docs/dice/centennial.md):

- `{"type": "throw", "dice": [1, 2, 6]}`: three dice; the caster moves as far as they make;
- `{"type": "throw", "dice": [1, 2, 6], "call": 2}`: the caster calls only 2 places,
  overlooking the rest;
- `{"type": "claim", "player": "Bob"}`: the adversary uses the overlooked numbers;
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").

Scores are points: the places each marker has made, 23 for the whole way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.dice.core import distinct_throws
from engine.dice.turns import TurnGame, TurnState, TurnThrow, parse_turn_throw
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either, parse_player

DICE = 3
#: The figures in the order they are made: 1 to 12, then back again to 1.
SERIES = (*range(1, 13), *range(11, 0, -1))

STRIP = hoyle_law(10233, 10243, "Centennial: a strip of twelve figures; three dice bring each "
                  "marker from 1 to 12 and back again")
ACE = hoyle_law(10243, 10244, "Centennial: as soon as an ace is thrown the marker goes on 1")
COMBINE = hoyle_law(10244, 10248, "Centennial: the dice in any combination make the next "
                    "figures; ace, deuce, six carry 5 to 9")
OVERLOOKED = hoyle_law(10248, 10250, "Centennial: a number the caster overlooks, his adversary "
                       "may use if it fits his game")
LAWS = (STRIP, ACE, COMBINE, OVERLOOKED)


def makes(dice: Sequence[int]) -> frozenset[int]:
    """Every figure one throw makes: each die, and each sum of two or more of the dice."""
    return frozenset(sum(chosen) for size in range(1, len(dice) + 1)
                     for chosen in combinations(dice, size))


@dataclass(frozen=True, slots=True)
class CentennialRules(HouseRules):
    """`ace_runs_on`: whether the throw that brings the ace goes on to make 2, 3 and so on."""

    # "As soon as an ace is thrown, the player puts his marker on 1. After that, the dice
    # may be taken in any combination" (lines 10243-10245): read as the rest of the same
    # throw, since one throw may make several figures; False waits for the next throw.
    ace_runs_on: bool = True

    def known_options(self) -> tuple[Option, ...]:
        return (either("ace_runs_on", True, False),)


@dataclass(frozen=True, slots=True)
class CallEvent(TurnThrow):
    """A throw; `call` is how many places the caster moves, if fewer than it makes."""

    call: int | None = None

    def to_json(self) -> JSON:
        data = TurnThrow.to_json(self)
        if self.call is not None:
            data["call"] = self.call
        return data


@dataclass(frozen=True, slots=True)
class ClaimEvent(Event):
    """The adversary uses the numbers the caster overlooked, as far as they fit his game."""

    type: ClassVar[str] = "claim"
    player: str

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player}


class CentennialState(TurnState):
    """The players throw in turn; the first whose marker comes back to 1 wins."""

    rules: CentennialRules
    KINDS: ClassVar[tuple[str, ...]] = ("throw", "claim", "rethrow")

    def start(self) -> None:
        self.made = dict.fromkeys(self.players, 0)
        self.seat = 0
        #: The figures the last caster could have made and did not, for a claim.
        self.overlooked: tuple[int, ...] = ()

    @property
    def thrower(self) -> str:
        return self.players[self.seat]

    def reach(self, made: int, dice: Sequence[int]) -> int:
        """How many places a marker that has made `made` figures can move on this throw."""
        figures = makes(dice)
        start = made
        while made < len(SERIES) and SERIES[made] in figures:
            made += 1
            if made == 1 and not self.rules.ace_runs_on:
                break
        return made - start

    def fits(self, made: int, numbers: Sequence[int]) -> int:
        """How many of the overlooked `numbers` a marker that has made `made` can use."""
        if made == len(SERIES) or SERIES[made] not in numbers:
            return 0
        count = 0
        for number in numbers[numbers.index(SERIES[made]):]:
            if made + count == len(SERIES) or SERIES[made + count] != number:
                break
            count += 1
        return count

    def parse(self, kind: str, data: Mapping[str, Any]) -> Event:
        if kind == "claim":
            return ClaimEvent(str(parse_player(data, self.players, "claim")))
        throw = parse_turn_throw(data, DICE, self.game.name, self.players)
        call = data.get("call")
        if call is not None and (isinstance(call, bool) or not isinstance(call, int)
                                 or call < 0):
            raise IllegalEventError(f"throw: call must be a whole number of places, 0 or more, "
                                    f"got {call!r}")
        return CallEvent(throw.dice, throw.player, call)

    def check(self, event: Event) -> None:
        if isinstance(event, CallEvent):
            can = self.reach(self.made[self.thrower], event.dice)
            if event.call is not None and event.call > can:
                raise IllegalEventError(
                    f"throw with call {event.call}: {'-'.join(map(str, event.dice))} moves "
                    f"{self.thrower} at most {can} place{'' if can == 1 else 's'} from "
                    f"{self.figure(self.thrower)}")
            return
        if not isinstance(event, ClaimEvent):
            raise IllegalEventError(f"{event!r}: {self.where()}")
        if not self.overlooked:
            raise IllegalEventError(f"claim by {event.player}: no number was overlooked on "
                                    "the last throw")
        caster = self.players[self.seat - 1]
        if event.player == caster:
            raise IllegalEventError(f"claim by {event.player}: the caster cannot claim the "
                                    "numbers he overlooked himself; his adversary may")
        if not self.fits(self.made[event.player], self.overlooked):
            raise IllegalEventError(
                f"claim by {event.player}: the overlooked "
                f"{', '.join(map(str, self.overlooked))} does not fit his game (he needs "
                f"{self.needs(event.player)})")

    def figure(self, player: str) -> str:
        made = self.made[player]
        return "the start" if made == 0 else f"{SERIES[made - 1]}"

    def needs(self, player: str) -> str:
        made = self.made[player]
        return "nothing more" if made == len(SERIES) else str(SERIES[made])

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, ClaimEvent):
            return self._claim(event.player)
        assert isinstance(event, CallEvent)
        who = self.thrower
        made = self.made[who]
        can = self.reach(made, event.dice)
        moves = can if event.call is None else event.call
        self.overlooked = SERIES[made + moves:made + can]
        self.made[who] += moves
        rulings = [self._moved(who, made, moves, event.dice)]
        if self.overlooked:
            rulings.append(Ruling("overlooked", who, can - moves,
                                  f"{who} overlooks {', '.join(map(str, self.overlooked))}: "
                                  "his adversary may use them if they fit his game.",
                                  OVERLOOKED))
        if self.made[who] == len(SERIES):
            rulings.append(self.finish([who], STRIP, "Back to 1 first"))
        else:
            self.seat = (self.seat + 1) % len(self.players)
        return rulings

    def _moved(self, who: str, made: int, moves: int, dice: Sequence[int]) -> Ruling:
        faces = "-".join(map(str, dice))
        if not moves:
            need = "an ace to start" if made == 0 else f"{SERIES[made]}"
            return Ruling("no-move", who, 0, f"{faces}: {who} stays; he needs {need}.",
                          ACE if made == 0 else COMBINE)
        figures = ", ".join(str(n) for n in SERIES[made:made + moves])
        law = ACE if made == 0 and moves == 1 else COMBINE
        return Ruling("move", who, moves,
                      f"{faces} makes {figures}: {who}'s marker goes to {SERIES[made + moves - 1]}"
                      f" ({self.made[who]} of {len(SERIES)} places).", law)

    def _claim(self, player: str) -> list[Ruling]:
        made = self.made[player]
        count = self.fits(made, self.overlooked)
        self.overlooked = ()
        self.made[player] += count
        figures = ", ".join(str(n) for n in SERIES[made:made + count])
        rulings = [Ruling("claim", player, count,
                          f"{player} uses the overlooked {figures}: his marker goes to "
                          f"{SERIES[made + count - 1]}.", OVERLOOKED)]
        if self.made[player] == len(SERIES):
            rulings.append(self.finish([player], STRIP, "Back to 1 first"))
        return rulings

    def choices(self) -> list[Event]:
        made = self.made[self.thrower]
        events: list[Event] = []
        for dice in distinct_throws(DICE):
            events.append(CallEvent(dice))
            can = self.reach(made, dice)
            if can:
                events.append(CallEvent(dice, None, can - 1))
        events.extend(claim for name in self.players
                      if self.can_apply(claim := ClaimEvent(name)))
        return events

    def awaits(self) -> tuple[Awaiting, ...]:
        found = [Awaiting("throw", "sensor", self.thrower,
                          f"three dice; he needs {self.needs(self.thrower)}")]
        if self.overlooked:
            found.append(Awaiting("claim", "player", None,
                                  f"overlooked {', '.join(map(str, self.overlooked))}"))
        return tuple(found)

    def totals(self) -> dict[str, int]:
        return dict(self.made)

    def details(self) -> JSON:
        return {"markers": {name: (SERIES[made - 1] if made else None)
                            for name, made in self.made.items()},
                "going": {name: ("up" if made < 12 else "back") for name, made in
                          self.made.items()},
                "overlooked": list(self.overlooked)}


GAMES = (TurnGame("centennial", "Centennial", CentennialRules(), CentennialState, LAWS),)
