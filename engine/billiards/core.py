"""What the cue games share: balls, pockets, and the events a billiard table reports.

A stroke is reported as it happens and then closed:

- `pocket` (a pocket sensor, with the ball's identity from a ball-return reader or the
  referee): a ball fell into a pocket, `{"type": "pocket", "ball": 5, "pocket": "foot-left"}`;
- `off`: a ball was forced off the table, `{"type": "off", "ball": "cue"}`;
- `foul`: the referee calls a foul no sensor sees, `{"type": "foul", "kind": "push"}`; at
  the carom games `own-ball` (his own ball touched before he plays) is the stroke itself,
  which then closes with a bare `{"type": "stroke"}` (carom.py);
- `call` (before the stroke): the striker names his ball and, where the game asks, the
  pocket, `{"type": "call", "ball": 7, "pocket": "side-right"}`;
- `stroke`: the balls are at rest and the stroke is over, with the facts the game's laws
  need that no pocket sensor gives: `path`, the cue ball's contacts in order (ball names
  and "cushion"; empty for a clean miss); `driven`, how many object balls were driven to a
  cushion; `safety`, a declared safety; `pins`, the pins knocked down; `bottle`, what the
  bottle did; `direct`, the pins the cue ball knocked down before it struck a ball;
  `bottle_by`, what moved the bottle; `balk`, whether the stroke was played with both
  object balls in one balk space (anchor or crotch) and left both there. A game refuses a
  stroke without a fact it needs, naming it, and a miss (a path that strikes no ball) that
  says it drove balls to a cushion;
- `count` (carom tables without a contact tracker): the referee's count of the stroke,
  `{"type": "count", "points": 1}`, closing it as a `stroke` would (0: no count);
- `private`: the small numbered ball a player drew from the bottle (the games played for a
  private number), `{"type": "private", "player": "Ann", "number": 7}`; the log keeps the
  number, and the table shows it only to the operator until the game is over (or the game
  makes it known, `CueState.disclosed`): docs/dashboard.md, "Private numbers".

Balls are named as the books name them: "cue" for the striker's ball in the pool games,
"1"-"15" for numbered balls (a number in JSON is read as its name), colours for the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core import JSON, Event
from engine.errors import IllegalEventError
from engine.rules import parse_player

#: The six pockets of a pool or English table: the head is the end the game is broken from.
POCKETS: tuple[str, ...] = ("head-left", "head-right", "side-left", "side-right",
                            "foot-left", "foot-right")
CORNER_POCKETS: tuple[str, ...] = ("head-left", "head-right", "foot-left", "foot-right")
CUSHION = "cushion"
CUE = "cue"
#: What a bottle can do on a stroke at bottle pool.
BOTTLE = ("upset", "stood", "off")
#: What moved the bottle: the cue ball after striking an object ball ("carom"), the cue ball
#: before striking one ("cue"), an object ball ("ball"), or an object ball touched it and
#: the cue ball also moved it ("both").
BOTTLE_BY = ("carom", "cue", "ball", "both")
#: Fouls only a referee sees (the American Billiard Laws; each game lists those it rules on).
REFEREE_FOULS: tuple[str, ...] = ("push", "double-hit", "no-foot", "touched-ball",
                                  "moving-ball", "wrong-ball", "out-of-turn")


def numbered(count: int) -> tuple[str, ...]:
    """The numbered balls "1" to `count`."""
    return tuple(str(n) for n in range(1, count + 1))


def parse_ball(value: Any, balls: Sequence[str], kind: str, game: str) -> str:
    """A ball's name, which must be one of the game's `balls`."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise IllegalEventError(f"{kind}: a ball is a number or a name, not {value!r}")
    name = str(value)
    if name not in balls:
        raise IllegalEventError(f"{kind}: ball {name!r} is not in the set of {game} "
                                f"({', '.join(balls)})")
    return name


def parse_pocket(value: Any, kind: str, pockets: Sequence[str] = POCKETS) -> str:
    if value not in pockets:
        raise IllegalEventError(f"{kind}: no pocket {value!r}; the pockets are "
                                f"{', '.join(pockets)}")
    return str(value)


def _whole(data: Mapping[str, Any], key: str, kind: str, low: int, high: int) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if type(value) is not int or not low <= value <= high:
        raise IllegalEventError(f"{kind}: {key} must be a whole number {low}-{high}, "
                                f"not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class PocketEvent(Event):
    """A ball fell into a pocket during the stroke."""

    type: ClassVar[str] = "pocket"
    ball: str
    pocket: str

    def to_json(self) -> JSON:
        return {"type": self.type, "ball": self.ball, "pocket": self.pocket}


@dataclass(frozen=True, slots=True)
class OffEvent(Event):
    """A ball was forced off the table during the stroke."""

    type: ClassVar[str] = "off"
    ball: str

    def to_json(self) -> JSON:
        return {"type": self.type, "ball": self.ball}


@dataclass(frozen=True, slots=True)
class FoulEvent(Event):
    """The referee calls a foul on the stroke in progress."""

    type: ClassVar[str] = "foul"
    kind: str

    @property
    def foul(self) -> bool:
        return True

    def to_json(self) -> JSON:
        return {"type": self.type, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class CallEvent(Event):
    """The striker names the ball he plays for (and the pocket, where the game asks)."""

    type: ClassVar[str] = "call"
    ball: str
    pocket: str | None = None

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "ball": self.ball}
        if self.pocket is not None:
            data["pocket"] = self.pocket
        return data


@dataclass(frozen=True, slots=True)
class PrivateEvent(Event):
    """A player drew his small numbered ball from the bottle."""

    type: ClassVar[str] = "private"
    player: str
    number: int

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "number": self.number}


@dataclass(frozen=True, slots=True)
class StrokeEvent(Event):
    """The balls are at rest: the stroke is over, with the facts no pocket sensor gives.

    Each fact is None when not reported; `points` is set only by a referee's `count`.
    """

    type: ClassVar[str] = "stroke"
    path: tuple[str, ...] | None = None
    driven: int | None = None
    safety: bool = False
    pins: tuple[str, ...] | None = None
    bottle: str | None = None
    points: int | None = None
    direct: tuple[str, ...] | None = None
    bottle_by: str | None = None
    balk: bool | None = None

    @property
    def first(self) -> str | None:
        """The first ball the cue ball struck (None on a clean miss or when not reported)."""
        return next((c for c in self.path or () if c != CUSHION), None)

    def struck(self) -> list[str]:
        """The balls the cue ball struck, each once, in the order first struck."""
        seen: list[str] = []
        for contact in self.path or ():
            if contact != CUSHION and contact not in seen:
                seen.append(contact)
        return seen

    @property
    def cushion_after_contact(self) -> bool:
        """Whether the cue ball met a cushion after it struck its first ball."""
        path = list(self.path or ())
        first = self.first
        return first is not None and CUSHION in path[path.index(first):]

    def cushions_before(self, ball: str) -> int:
        """Cushions the cue ball met before it first struck `ball` (all, if it never did)."""
        count = 0
        for contact in self.path or ():
            if contact == ball:
                break
            count += contact == CUSHION
        return count

    def to_json(self) -> JSON:
        if self.points is not None:
            return {"type": "count", "points": self.points}
        data: JSON = {"type": self.type}
        if self.path is not None:
            data["path"] = list(self.path)
        if self.driven is not None:
            data["driven"] = self.driven
        if self.safety:
            data["safety"] = True
        if self.pins is not None:
            data["pins"] = list(self.pins)
        if self.bottle is not None:
            data["bottle"] = self.bottle
        if self.direct is not None:
            data["direct"] = list(self.direct)
        if self.bottle_by is not None:
            data["bottle_by"] = self.bottle_by
        if self.balk is not None:
            data["balk"] = self.balk
        return data


@dataclass(frozen=True, slots=True)
class TableFacts:
    """A game's table: its balls, the pins if any, and the facts its strokes need."""

    balls: tuple[str, ...]
    pins: tuple[str, ...] = ()
    #: The `stroke` facts the game's laws need, each of `FACTS` ("path", "driven", "pins",
    #: "bottle", "direct", "bottle_by", "balk"): the referee's form asks for each.
    needs: tuple[str, ...] = ("path",)
    #: Of `needs`, those a stroke needs only now and then (`direct` when pins fell on a
    #: stroke that struck a ball; `bottle_by` when the bottle was upset or stood; `balk`
    #: where the crotch is barred, on a counting stroke once the object balls lie crotched;
    #: `driven` at three-cushion, on a safety whose cue ball met no cushion after the ball):
    #: the game says when, refusing a stroke that lacks one then (its `check_stroke`). At
    #: the Little Corporal `direct` is the referee's call of a foul (the pin played at
    #: direct): a stroke without it struck a ball first, and is not refused.
    sometimes: tuple[str, ...] = ()
    #: Whether a referee's `count` may close a stroke (carom tables).
    counts: bool = False
    pockets: tuple[str, ...] = POCKETS

    def __post_init__(self) -> None:
        unknown = [fact for fact in self.needs if fact not in FACTS]
        if unknown or not set(self.sometimes) <= set(self.needs):
            raise ValueError(f"table facts: needs {self.needs} (unknown: {unknown}) must "
                             f"hold sometimes {self.sometimes}")


def parse_stroke(data: Mapping[str, Any], table: TableFacts, game: str) -> StrokeEvent:
    """A `stroke` with the facts the game needs, each checked."""
    missed = data.get("path") == []
    for fact in table.needs:
        # A clean miss moved no ball: it needs no fact but its empty path.
        if (data.get(fact) is None and not (missed and fact != "path")
                and fact not in table.sometimes):
            raise IllegalEventError(f"stroke: {game} needs the fact {fact!r} "
                                    f"({FACTS[fact]})")
    path = data.get("path")
    if path is not None:
        if not isinstance(path, list) or len(path) > 40:
            raise IllegalEventError(f"stroke: path must be a list of at most 40 contacts, "
                                    f"not {path!r}")
        path = tuple(c if c == CUSHION else parse_ball(c, table.balls, "stroke path", game)
                     for c in path)
    pins = data.get("pins")
    if pins is not None:
        if not isinstance(pins, list) or len(set(map(str, pins))) != len(pins):
            raise IllegalEventError(f"stroke: pins must be a list of distinct pins, "
                                    f"not {pins!r}")
        pins = tuple(parse_ball(p, table.pins, "stroke pins", game) for p in pins)
    bottle = data.get("bottle")
    if bottle is not None and bottle not in BOTTLE and bottle != "none":
        raise IllegalEventError(f"stroke: bottle must be one of {', '.join(BOTTLE)} or "
                                f"'none', not {bottle!r}")
    safety = data.get("safety", False)
    if not isinstance(safety, bool):
        raise IllegalEventError(f"stroke: safety must be true or false, not {safety!r}")
    driven = _whole(data, "driven", "stroke", 0, len(table.balls))
    if driven and path is not None and not any(c != CUSHION for c in path):
        raise IllegalEventError(f"stroke: driven is {driven}, but the path {list(path)} strikes "
                                f"no ball: a miss drives no ball to a cushion (driven 0)")
    if missed and driven is None and "driven" in table.needs and "driven" not in table.sometimes:
        # Where every stroke needs it, a clean miss drove none; where only some do
        # (three-cushion's safety), a miss is not one of them and is kept as it was told.
        driven = 0
    direct = data.get("direct")
    if direct is not None:
        if (not isinstance(direct, list) or len(set(map(str, direct))) != len(direct)
                or not set(map(str, direct)) <= set(pins or ())):
            raise IllegalEventError(f"stroke: direct must list pins among those knocked "
                                    f"down ({list(pins or ())}), not {direct!r}")
        direct = tuple(str(p) for p in direct)
    bottle_by = data.get("bottle_by")
    if bottle_by is not None and bottle_by not in BOTTLE_BY:
        raise IllegalEventError(f"stroke: bottle_by must be one of {', '.join(BOTTLE_BY)}, "
                                f"not {bottle_by!r}")
    balk = data.get("balk")
    if balk is not None and not isinstance(balk, bool):
        raise IllegalEventError(f"stroke: balk must be true or false, not {balk!r}")
    # "none" is kept, not dropped, so that a stroke that needs the fact survives a save.
    return StrokeEvent(path, driven, safety, pins, bottle,
                       direct=direct, bottle_by=bottle_by, balk=balk)


def parse_count(data: Mapping[str, Any], table: TableFacts, game: str) -> StrokeEvent:
    """The referee's count of a stroke on a carom table."""
    if not table.counts:
        raise IllegalEventError(f"count: {game} is scored from its strokes, not a "
                                f"referee's count")
    points = _whole(data, "points", "count", 0, 99)
    if points is None:
        raise IllegalEventError("count: points is missing")
    return StrokeEvent(points=points)


#: What each stroke fact is, for the message that asks for it.
FACTS: Mapping[str, str] = {
    "path": "the cue ball's contacts in order, balls and 'cushion'; [] for a miss",
    "driven": "how many object balls were driven to a cushion",
    "pins": "the pins knocked down",
    "bottle": "what the bottle did: upset, stood, off or none",
    "direct": "the pins the cue ball knocked down before it struck a ball",
    "bottle_by": "what moved the bottle: carom (the cue ball off an object ball), cue (the "
                 "cue ball before striking a ball), ball (an object ball) or both",
    "balk": "whether the stroke was played with both object balls in one balk space (anchor "
            "or crotch) and left both there: true or false",
}


def parse_private(data: Mapping[str, Any], players: Sequence[str], low: int,
                  high: int) -> PrivateEvent:
    player = parse_player(data, players, "private")
    number = _whole(data, "number", "private", low, high)
    if number is None:
        raise IllegalEventError("private: number is missing")
    assert player is not None
    return PrivateEvent(player, number)
