"""In-order delivery of table changes to the outputs; one failing subscriber harms no other."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from engine.core import JSON, Ruling

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Change:
    """One log entry as applied: the entry, the rulings it produced, and the new view."""

    seq: int
    kind: str
    source: str
    body: JSON
    rulings: tuple[Ruling, ...]
    view: JSON


Handler = Callable[[Change], Awaitable[Any] | None]


class Bus:
    """Subscribers are called in the order they subscribed, one change at a time."""

    def __init__(self) -> None:
        self._handlers: list[tuple[str, Handler]] = []

    def subscribe(self, name: str, handler: Handler) -> Callable[[], None]:
        entry = (name, handler)
        self._handlers.append(entry)

        def unsubscribe() -> None:
            if entry in self._handlers:
                self._handlers.remove(entry)

        return unsubscribe

    async def publish(self, change: Change) -> None:
        for name, handler in list(self._handlers):
            try:
                result = handler(change)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("subscriber %s failed on log entry %d; delivery goes on",
                              name, change.seq)
