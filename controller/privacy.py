"""The private numbers: who may see the small ball a player drew from the bottle, and when.

Forty-one pool, pin pool and Kelly rotation give each player a small numbered ball that the
others must not know (a `private` event): "No one other than the player is supposed to know
the number of the private ball" (Hoyle 1940, lines 15216-15217); "the number on which
should be known only to himself" (15358-15360); at Kelly rotation the small balls "are held
by the players" (15730-15731), and a player whose number another pockets must himself
"declare himself dead" (15739-15743): no one else knows it. The table reads the book so:

- the operator (the game-keeper) sees every number, always: he "declares pool" at
  forty-one (15223-15225), takes back a discarded small ball (15419-15422), announces a
  missing one (15498-15500) and decides what the rules do not (15512-15513);
- everyone else sees a number once its game is over (a Kelly player pockets his own
  number and wins, 15734-15737; a pool is made and declared at forty-one, whose loser is
  "the most distant from 41", 15223-15229; pin pool's pool is proclaimed and checked,
  15360-15364) or is no longer in play (abandoned, or a new game started); and, before
  that, only a number the game itself makes known: a Kelly player killed declares himself
  dead and surrenders his small ball (15739-15743; `CueState.disclosed`).

The log keeps every number: only what the table shows the public is shaped here. A
`private` event hidden from the public reads `{"type": "private", "player": "Ann",
"hidden": true}`: who drew, not what. The view never carried a number (the engine's
snapshot lists only who has drawn); `CueTable.view` adds the numbers a viewer may see.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.billiards.table import CueState
from engine.core import JSON, State

PRIVATE = "private"
#: The body fields of a log entry that hold an engine event (`flag` holds a `reading`).
EVENT_FIELDS = ("event", "reading")


@dataclass(frozen=True, slots=True)
class Disclosure:
    """What the public may see of the private numbers, as the table stood at entry `seq`.

    `start` is the game then in progress (its `start` entry's seq; None for none); `over`
    whether it had ended; `shown` the (player, number) draws of it the game made known.
    Entries of earlier games are shown; entries after `seq` (logged after this was decided)
    are hidden.
    """

    seq: int
    start: int | None
    over: bool
    shown: frozenset[tuple[str, int]] = frozenset()

    def hides(self, seq: int, event: Any) -> bool:
        """Whether the event of log entry `seq` is a private draw the public may not see."""
        if not isinstance(event, Mapping) or event.get("type") != PRIVATE:
            return False
        if seq > self.seq:
            return True
        if self.start is None or seq < self.start or self.over:
            return False
        return (event.get("player"), event.get("number")) not in self.shown


def disclosure(seq: int, start: int | None, engine: State | None) -> Disclosure:
    """What the public may see, for the table at entry `seq` with this game in progress."""
    if start is None or engine is None:
        return Disclosure(seq, None, True)
    over = engine.outcome() is not None
    shown = engine.disclosed() if isinstance(engine, CueState) and not over else {}
    return Disclosure(seq, start, over, frozenset(shown.items()))


def hidden(event: Mapping[str, Any]) -> JSON:
    """A private draw as the public sees it: who drew, not the number."""
    return {"type": PRIVATE, "player": event.get("player"), "hidden": True}


def public_entry(record: JSON, seen: Disclosure | None) -> JSON:
    """A log entry's JSON (`LogEntry.to_json`, perhaps with its rulings) as the viewer may
    see it: unchanged for the operator (`seen` None), else with hidden draws redacted."""
    body = record.get("body")
    seq = record.get("seq")
    if seen is None or not isinstance(body, Mapping) or not isinstance(seq, int):
        return record
    redacted = {name: hidden(body[name]) for name in EVENT_FIELDS
                if seen.hides(seq, body.get(name))}
    if not redacted:
        return record
    return {**record, "body": {**body, **redacted}}


def shown_numbers(engine: CueState, operator: bool) -> dict[str, int]:
    """The numbers held now that the viewer may see: all for the operator or once the game
    is over, else those the game made known."""
    if operator or engine.over:
        return dict(engine.private)
    return engine.disclosed()
