"""Ten-Pins with Dice as Hoyle's Games (1940) gives it (lines 10437-10451).

Two dice stand for the ball: the spots on the upper faces are the pins down. A frame is
two casts; 10 on the first is a strike, 10 on the second a spare, and strikes and spares
are rolled on into the next frame as at ten-pins; ten frames are a game.

Events (the transcript vocabulary of docs/dice/ten_pins.md):

- `{"type": "throw", "dice": [4, 3]}`: a cast of both dice;
- `{"type": "throw", "dice": [5], "hold": 6}`: a second cast leaving the best die of the
  first (here a 6) and throwing the other;
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").

Scores are points, as on a bowling sheet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.dice.core import FACES, distinct_throws
from engine.dice.turns import TurnGame, TurnState, TurnThrow, parse_turn_throw
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, either

PINS = 10
FRAMES = 10

CASTS = hoyle_law(10440, 10443, "Ten-Pins with Dice: two throws of two dice; the spots are the "
                  "pins down; 10 first a strike, 10 second a spare")
SECOND = hoyle_law(10443, 10447, "Ten-Pins with Dice: under 10, throw both again or leave the "
                   "best die; the second cast ends the innings")
GAME_OF_TEN = hoyle_law(10447, 10449, "Ten-Pins with Dice: strikes and spares rolled on as at "
                        "ten-pins; ten frames a game")
LAWS = (CASTS, SECOND, GAME_OF_TEN)


@dataclass(frozen=True, slots=True)
class TenPinsRules(HouseRules):
    """`over_ten`: what a cast of 11 or 12 knocks down, which the book does not say."""

    # There are only ten pins: the catalogue reads 11 and 12 as all ten down ("all-down");
    # "none-down" is the house rule that an overthrow knocks down nothing.
    over_ten: str = "all-down"

    def known_options(self) -> tuple[Option, ...]:
        return (either("over_ten", "all-down", "none-down"),)


@dataclass(frozen=True, slots=True)
class CastEvent(TurnThrow):
    """A cast: both dice, or on a second cast one die with the first cast's best `hold`."""

    hold: int | None = None

    @property
    def total(self) -> int:
        return sum(self.dice) + (self.hold or 0)

    def to_json(self) -> JSON:
        data = TurnThrow.to_json(self)
        if self.hold is not None:
            data["hold"] = self.hold
        return data


@dataclass(slots=True)
class Frame:
    """A frame's casts as pins down; `second` is the pins down once the frame is thrown."""

    first: int | None = None
    best: int = 0
    second: int | None = None

    @property
    def strike(self) -> bool:
        return self.first == PINS

    @property
    def spare(self) -> bool:
        return not self.strike and self.second == PINS


class TenPinsState(TurnState):
    """Players bowl a frame each in turn; the tenth frame takes its bonus casts at once."""

    rules: TenPinsRules

    def start(self) -> None:
        self.frames: dict[str, list[Frame]] = {name: [] for name in self.players}
        self.scored = dict.fromkeys(self.players, 0)
        self.seat = 0
        self.round = 0

    @property
    def thrower(self) -> str:
        return self.players[self.seat]

    def _complete(self, frames: list[Frame], index: int) -> bool:
        """Whether frame `index` (10 and 11 are the tenth frame's bonus casts) is thrown."""
        frame = frames[index]
        if frame.first is None:
            return False
        if index == FRAMES + 1 or (index == FRAMES and frames[FRAMES - 1].spare):
            return True
        return frame.strike or frame.second is not None

    def _second_cast(self) -> Frame | None:
        """The frame whose second cast comes next, or None when a frame starts."""
        frames = self.frames[self.thrower]
        if frames and not self._complete(frames, len(frames) - 1):
            return frames[-1]
        return None

    def _innings_over(self, frames: list[Frame]) -> bool:
        if len(frames) < self.round + 1 or not self._complete(frames, len(frames) - 1):
            return False
        if self.round < FRAMES - 1:
            return True
        tenth = frames[FRAMES - 1]
        if tenth.strike:
            if len(frames) < FRAMES + 1 or not self._complete(frames, FRAMES):
                return False
            return not frames[FRAMES].strike or len(frames) == FRAMES + 2
        if tenth.spare:
            return len(frames) == FRAMES + 1
        return True

    def frame_score(self, frames: list[Frame], index: int) -> int | None:
        """Frame `index`'s count with what is rolled on into it, or None until known."""
        frame = frames[index]
        after = [f.first for f in frames[index + 1:]]
        if frame.strike:
            if index + 1 >= len(frames) or after[0] is None:
                return None
            following = frames[index + 1]
            if following.strike:
                if index + 2 >= len(frames) or after[1] is None:
                    return None
                return 2 * PINS + after[1]
            return None if following.second is None else PINS + following.second
        if frame.second is None:
            return None
        if frame.spare:
            return None if not after or after[0] is None else PINS + after[0]
        return frame.second

    def pins(self, total: int) -> int:
        if total <= PINS:
            return total
        return PINS if self.rules.over_ten == "all-down" else 0

    def parse(self, kind: str, data: Mapping[str, Any]) -> Event:
        hold = data.get("hold")
        if hold is None:
            throw = parse_turn_throw(data, 2, self.game.name, self.players)
            return CastEvent(throw.dice, throw.player)
        if isinstance(hold, bool) or not isinstance(hold, int) or hold not in FACES:
            raise IllegalEventError(f"throw: hold must be the face of the die left, 1-6, "
                                    f"got {hold!r}")
        dice = data.get("dice")
        if not isinstance(dice, list) or len(dice) != 1:
            raise IllegalEventError(f"throw: leaving the {hold}, {self.thrower} throws one die, "
                                    f"got {dice!r}")
        throw = parse_turn_throw(data, 1, self.game.name, self.players)
        return CastEvent(throw.dice, throw.player, hold)

    def check(self, event: Event) -> None:
        if not isinstance(event, CastEvent):
            raise IllegalEventError(f"{event!r}: {self.where()}")
        if event.hold is None:
            return
        frame = self._second_cast()
        if frame is None:
            raise IllegalEventError(f"throw with hold {event.hold}: a die is left only for the "
                                    f"second cast of a frame; {self.where()}, first cast")
        if event.hold != frame.best:
            raise IllegalEventError(f"throw with hold {event.hold}: only the best die of the "
                                    f"first cast, the {frame.best}, may be left")

    def play(self, event: Event) -> list[Ruling]:
        assert isinstance(event, CastEvent)
        who = self.thrower
        frames = self.frames[who]
        self.last = event.dice if event.hold is None else (event.hold, *event.dice)
        pins = self.pins(event.total)
        over = "" if event.total <= PINS else f" ({event.total} is over ten: {pins} down)"
        frame = self._second_cast()
        rulings = []
        if frame is None:
            frame = Frame(pins, max(event.dice))
            frames.append(frame)
            number = len(frames)
            label = (f"the first cast of frame {number}" if number <= FRAMES
                     else "an extra cast of the tenth frame")
            if frame.strike:
                rulings.append(Ruling("strike", who, PINS,
                                      f"{event.total} on {label}: a strike{over}.", CASTS))
            elif self._complete(frames, len(frames) - 1):
                rulings.append(Ruling("cast", who, pins,
                                      f"{event.total} on {label}: {pins} pins{over}.",
                                      GAME_OF_TEN))
            else:
                rulings.append(Ruling("cast", who, pins,
                                      f"{event.total} on {label}: {pins} pins{over}; throw "
                                      f"both again, or leave the {frame.best} and throw the "
                                      "other.", SECOND))
        else:
            frame.second = pins
            kept = "" if event.hold is None else f", leaving the {event.hold}"
            if frame.spare:
                rulings.append(Ruling("spare", who, PINS,
                                      f"{event.total} on the second cast{kept}: a spare"
                                      f"{over}.", CASTS))
            else:
                rulings.append(Ruling("open", who, pins,
                                      f"{event.total} on the second cast{kept}: {pins} pins "
                                      f"down{over}; the innings ends.", SECOND))
        rulings.extend(self._counts(who))
        if self._innings_over(frames):
            rulings.extend(self._next())
        return rulings

    def _counts(self, who: str) -> list[Ruling]:
        """A ruling for each frame whose count is now known, strikes and spares rolled on."""
        rulings = []
        frames = self.frames[who]
        while self.scored[who] < min(FRAMES, len(frames)):
            index = self.scored[who]
            count = self.frame_score(frames, index)
            if count is None:
                break
            self.scored[who] += 1
            rulings.append(Ruling("frame", who, count,
                                  f"Frame {index + 1} counts {count}: {who} has "
                                  f"{self.totals()[who]}.", GAME_OF_TEN))
        return rulings

    def _next(self) -> list[Ruling]:
        self.seat = (self.seat + 1) % len(self.players)
        if self.seat == 0:
            self.round += 1
        if self.round < FRAMES:
            return []
        totals = self.totals()
        best = max(totals.values())
        return [self.finish([n for n in self.players if totals[n] == best], GAME_OF_TEN,
                            "Ten frames are a game")]

    def choices(self) -> list[Event]:
        events: list[Event] = [CastEvent(dice) for dice in distinct_throws(2)]
        frame = self._second_cast()
        if frame is not None:
            events.extend(CastEvent((face,), None, frame.best) for face in FACES)
        return events

    def awaits(self) -> tuple[Awaiting, ...]:
        frame = self._second_cast()
        number = min(len(self.frames[self.thrower]) + (frame is None), FRAMES)
        if frame is None:
            return (Awaiting("throw", "sensor", self.thrower, f"frame {number}, first cast"),)
        return (Awaiting("throw", "sensor", self.thrower, f"frame {number}, second cast"),
                Awaiting("hold", "player", self.thrower,
                         f"leave the {frame.best} and throw one die, or throw both"))

    def totals(self) -> dict[str, int]:
        totals = {}
        for name in self.players:
            frames = self.frames[name]
            totals[name] = sum(self.frame_score(frames, i) or 0
                               for i in range(self.scored[name]))
        return totals

    def details(self) -> JSON:
        return {"frame": min(self.round + 1, FRAMES), "boxes": {
            name: [{"casts": [f.first, f.second],
                    "count": self.frame_score(frames, i) if i < self.scored[name] else None}
                   for i, f in enumerate(frames)]
            for name, frames in self.frames.items()}}


GAMES = (TurnGame("ten-pins-with-dice", "Ten-Pins with Dice", TenPinsRules(), TenPinsState, LAWS),)
