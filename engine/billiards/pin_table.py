"""What the pin games share: the five pins in a diamond, and the private small balls.

Pin pool and the Spanish game set five wooden pins in a diamond about the centre of the
table (Hoyle 1940, lines 15334-15357 and 15625-15627): four outside pins named by where
they stand (`head`, `right`, `foot`, `left`, the head being the end the game is broken
from) and the black `centre` pin. A stroke reports the pins it knocked down (`pins`) and,
of those, the ones the striker's own ball knocked down before it struck a ball (`direct`),
which both games treat apart.

Forty-one pool and pin pool are played for a private number: each player draws a small
numbered ball that only he knows (lines 15207-15217, 15357-15360). `PrivateBallState` waits
for every draw before the first stroke, lets a player who burst draw again before his next
stroke, and keeps the numbers out of the snapshot: the dashboard is public, so the engine
rules a pool or a burst from the numbers but shows only who has drawn.
"""

from __future__ import annotations

from typing import ClassVar

from engine.billiards.core import PrivateEvent, StrokeEvent
from engine.billiards.table import CueState
from engine.core import Awaiting, Event, Ruling
from engine.errors import IllegalEventError

CENTRE = "centre"
OUTSIDE: tuple[str, ...] = ("head", "right", "foot", "left")
PINS: tuple[str, ...] = (*OUTSIDE, CENTRE)
#: The stroke facts of both pin games: `direct` only when pins fell on a stroke that struck
#: a ball (`check_direct`), so it is one of the table's `sometimes`.
PIN_FACTS: tuple[str, ...] = ("path", "pins", "direct")


def direct_pins(facts: StrokeEvent) -> tuple[str, ...]:
    """The pins the striker's ball knocked down before it struck a ball.

    On a stroke that struck no ball every pin down was knocked directly; otherwise the
    referee says which (`check_direct` makes sure he did).
    """
    if not facts.struck():
        return facts.pins or ()
    return facts.direct or ()


def check_direct(facts: StrokeEvent, game: str) -> None:
    """A stroke that struck a ball and knocked pins down must say which were knocked directly."""
    if facts.pins and facts.struck() and facts.direct is None:
        raise IllegalEventError(f"stroke: {game} needs the fact 'direct' (the pins the cue "
                                f"ball knocked down before it struck a ball; [] for none)")


class PrivateBallState(CueState):
    """A cue game played for a private number: draws first, a new draw after a burst."""

    PRIVATE: ClassVar[tuple[int, int] | None] = (1, 16)

    def start(self) -> None:
        #: Players who burst and may draw a new small ball before their next stroke.
        self.redraws: set[str] = set()

    def undrawn(self) -> list[str]:
        return [name for name in self.players if name not in self.private]

    def numbers(self) -> range:
        low, high = self.PRIVATE or (0, -1)
        return range(low, high + 1)

    def verify(self, event: Event) -> None:
        waiting = self.undrawn()
        if isinstance(event, PrivateEvent) and event.player in self.redraws and not self.over:
            held = {n for name, n in self.private.items() if name != event.player}
            if event.number in held:
                raise IllegalEventError(f"private: small ball {event.number} is already drawn")
            return
        if waiting and not isinstance(event, PrivateEvent) and not self.over:
            raise IllegalEventError(f"{event.type}: play waits for the small balls; "
                                    f"{', '.join(waiting)} must draw first")
        super().verify(event)

    def drawn(self, event: PrivateEvent) -> list[Ruling]:
        self.redraws.discard(event.player)
        return []

    def draws(self, players: list[str]) -> list[Event]:
        """The draws these players may make now (any number no one else holds)."""
        events: list[Event] = []
        for name in players:
            held = {n for other, n in self.private.items() if other != name}
            events.extend(PrivateEvent(name, n) for n in self.numbers() if n not in held)
        return events

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        waiting = self.undrawn()
        if waiting:
            return self.draws(waiting)
        return [*super().legal_events(), *self.draws(sorted(self.redraws))]

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        waiting = self.undrawn()
        if waiting:
            return tuple(Awaiting("private", "player", name,
                                  "the small numbered ball drawn from the bottle")
                         for name in waiting)
        return super().awaiting()

    def stroke_made(self) -> None:
        """The striker's chance to draw again ends with his stroke (call first in `rule`)."""
        self.redraws.discard(self.striker_name)
