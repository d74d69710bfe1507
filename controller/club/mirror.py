"""One table as the club holds it: its log in the club store, folded, and what is missing.

Entries arrive from the broker in any order and any number of times; the mirror stores
them strictly in seq order (so the store's seq is the table's), drops the ones it has,
holds the early ones, and says when a gap has lasted long enough to ask for a resend.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Final

from controller.club import StoreMismatch
from controller.club.league import League
from controller.club.store import EventStore
from controller.fold import TableState
from controller.logentry import LogEntry
from engine.core import JSON

log = logging.getLogger(__name__)

GAP_GRACE: Final = 0.5
"""Seconds a gap may last before a resend is asked for (entries may be in flight)."""
RESEND_AGAIN: Final = 2.0
"""Seconds before the same gap is asked for again."""
HELD_MOST: Final = 20_000
"""Early entries held per table; beyond it the newest are dropped (a resend brings them)."""

Stored = Callable[[str, list[LogEntry]], None]


class Mirror:
    """The club's copy of one table: appends in seq order, folds, and tracks gaps."""

    def __init__(self, table_id: str, store: EventStore, league: League,
                 on_stored: Stored | None = None) -> None:
        self.table_id = table_id
        self.store = store
        self.league = league
        self.on_stored = on_stored
        self.name = table_id
        self.link = "unknown"
        self.state = TableState()
        self.stored = 0
        self.known = 0
        """The newest seq the table is known to have logged (from its entries or state)."""
        self.held: dict[int, LogEntry] = {}
        self._gap_since: float | None = None
        self._asked_at = 0.0
        self._draining = False
        self.acked = -1

    def recover(self) -> None:
        """Fold the stored log, recording each finished game in the league."""
        state = TableState()
        state.deferred = True
        for entry in self.store.entries():
            if entry.kind in ("start", "abandon") and state.game is not None:
                self._settle(state)
            state.apply(entry.seq, entry.kind, entry.source, entry.body)
        self._settle(state)
        self.state = state
        self.stored = self.known = state.seq

    def _settle(self, state: TableState) -> None:
        state.settle()
        self.league.update(self.table_id, state)
        state.deferred = True

    def offer(self, entry: LogEntry) -> bool:
        """Take an entry from the broker; True when it can be stored now."""
        self.known = max(self.known, entry.seq)
        if entry.seq > self.stored and len(self.held) < HELD_MOST:
            self.held[entry.seq] = entry
        return self.stored + 1 in self.held

    def told(self, seq: int) -> None:
        """The table says (in its retained state) that its log reaches `seq`."""
        self.known = max(self.known, seq)

    async def drain(self) -> None:
        """Store every entry that follows on from the stored ones, in order."""
        if self._draining:
            return
        self._draining = True
        try:
            while self.stored + 1 in self.held:
                run: list[LogEntry] = []
                seq = self.stored + 1
                while seq in self.held:
                    run.append(self.held[seq])
                    seq += 1
                await self._store(run)
        finally:
            self._draining = False

    async def _store(self, run: list[LogEntry]) -> None:
        if len(run) == 1:
            one = run[0]
            written = [await self.store.append_async(one.kind, one.source, one.body)]
        else:
            written = await asyncio.to_thread(
                self.store.append_many, [(e.kind, e.source, e.body) for e in run])
        if written[0].seq != run[0].seq:
            raise StoreMismatch(f"the club store numbered table {self.table_id}'s entry "
                                f"{run[0].seq} as {written[0].seq}")
        for entry in run:
            del self.held[entry.seq]
            self._fold(entry)
        self.stored = run[-1].seq
        if self.on_stored is not None:
            self.on_stored(self.table_id, run)

    def _fold(self, entry: LogEntry) -> None:
        try:
            self.state.apply(entry.seq, entry.kind, entry.source, entry.body)
        except Exception:
            # The store keeps the entry either way: the table's log is the truth, and a
            # club view on an older engine must not stop mirroring.
            log.exception("club: table %s entry %d does not fold here", self.table_id,
                          entry.seq)
            self.state.seq = entry.seq
            return
        if entry.kind in ("event", "resolve", "correct"):
            self.league.update(self.table_id, self.state)

    def wanted(self, now: float | None = None) -> tuple[int, int] | None:
        """(after, upto) to ask the table to resend, when a gap has lasted; else None."""
        now = time.monotonic() if now is None else now
        missing = self.known > self.stored and self.stored + 1 not in self.held
        if not missing:
            self._gap_since = None
            return None
        if self._gap_since is None:
            self._gap_since = now
        if now - self._gap_since < GAP_GRACE or now - self._asked_at < RESEND_AGAIN:
            return None
        self._asked_at = now
        upto = min(self.held) - 1 if self.held else self.known
        return self.stored, upto

    def view(self) -> JSON:
        """The table as the club page shows it: its game, devices, link and how far stored."""
        view = self.state.view(self.table_id, self.name)
        view["link"] = self.link
        view["stored"] = self.stored
        view["known"] = self.known
        return view
