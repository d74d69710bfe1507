"""One table's service: every change is made durable in the log, then folded, then published."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from controller.bus import Bus, Change
from controller.errors import Rejected
from controller.eventlog import SqliteEventLog
from controller.fold import TableState, error_words, is_rejection
from controller.kinds import WORDS, kind_of_game
from controller.logentry import LogEntry
from controller.privacy import Disclosure, disclosure, public_entry
from engine.core import JSON, Ruling

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 500


@dataclass(frozen=True, slots=True)
class Recovery:
    """How start-up went: where the snapshot was and how many entries were replayed."""

    snapshot_seq: int
    replayed: int
    seq: int


class Table:
    """The table's single writer: `record` is the only way the state changes.

    >>> import tempfile, asyncio, pathlib
    >>> from controller.eventlog import SqliteEventLog
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "lane.db"
    >>> table = Table(SqliteEventLog(path), "lane-1")
    >>> _ = table.recover()
    >>> change = asyncio.run(table.record("start", "cli", {"game": "ten-pins",
    ...                                                     "players": ["Ann"]}))
    >>> change.view["game"]["up"]["player"]
    'Ann'
    >>> table.log.close()
    """

    def __init__(self, event_log: SqliteEventLog, table_id: str, *, name: str = "",
                 snapshot_every: int = SNAPSHOT_EVERY, kind: str | None = None) -> None:
        self.log = event_log
        self.table_id = table_id
        self.name = name or table_id
        #: The kind of table (controller/kinds.py): it starts only that kind's games;
        #: None (tools and tests of the fold alone) starts any.
        self.kind = kind
        self.snapshot_every = snapshot_every
        self.state = TableState()
        self.bus = Bus()
        self._lock: asyncio.Lock | None = None

    def recover(self) -> Recovery:
        """Rebuild the state from the newest snapshot and the entries after it."""
        snapshot = self.log.latest_snapshot()
        self.state = replay_state(self.log, snapshot[1] if snapshot else None)
        start = snapshot[0] if snapshot else 0
        state = self.state
        return Recovery(start, state.seq - start, state.seq)

    def view(self, operator: bool = False) -> JSON:
        """The table's view, as everyone sees it; `operator`: as the operator does (a cue
        table adds the private numbers, controller/privacy.py)."""
        view = self.state.view(self.table_id, self.name)
        view["kind"] = self.kind
        return view

    def disclosure(self) -> Disclosure:
        """What the public may see of the private numbers now (on the event loop, so that it
        and the state agree; `history` then hides what it says from the public)."""
        state = self.state
        state.settle()
        return disclosure(state.seq, state.game.start_seq if state.game else None,
                          state.engine)

    async def record(self, kind: str, source: str, body: Mapping[str, Any]) -> Change:
        """Check, log durably, fold and publish one change; `Rejected` leaves the log as it was."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            try:
                if kind == "start":
                    self._check_kind(str(body.get("game")))
                self.state.check(kind, body)
            except Exception as error:
                if is_rejection(error):
                    raise Rejected(error_words(error)) from error
                raise
            entry = await self.log.append_async(kind, source, body)
            rulings = self.state.apply(entry.seq, entry.kind, entry.source, entry.body)
            snapshot = None
            if entry.seq % self.snapshot_every == 0 or kind == "start":
                snapshot = self.state.save()
            change = Change(entry.seq, kind, source, entry.body, tuple(rulings), self.view())
        await self.bus.publish(change)
        if snapshot is not None:
            # Only a shortcut for start-up (the log is the truth), so it need not hold up
            # the outputs; it records the state as of this entry, taken under the lock.
            await asyncio.to_thread(self.log.save_snapshot, entry.seq, snapshot)
        return change

    def _check_kind(self, game_id: str) -> None:
        """Refuse a game another kind of table serves (`Rejected`, naming both)."""
        if self.kind is None:
            return
        kind = kind_of_game(game_id)
        if kind != self.kind:
            raise Rejected(f"{game_id} is a game for {WORDS[kind]}, and this table is "
                           f"{WORDS[self.kind]}: it cannot serve it")

    async def reading(self, event: Mapping[str, Any], source: str,
                      extra: Mapping[str, Any] | None = None) -> Change:
        """A sensor's reading: applied if it can happen, else kept as a flag for the operator.

        `extra` goes into the logged entry either way (e.g. the sensor nodes' positions).
        """
        why = None
        if self.state.flags:
            why = "it came while an earlier reading awaits the operator"
        else:
            try:
                self.state.check("event", {"event": event})
            except Exception as error:
                if not is_rejection(error):
                    raise
                why = error_words(error)
        more = dict(extra or {})
        if why is None:
            return await self.record("event", source, {"event": dict(event), **more})
        log.warning("flagged a reading from %s: %s", source, why)
        return await self.record("flag", source, {"reading": dict(event), "why": why, **more})

    async def device(self, name: str, state: str, detail: str) -> None:
        """Record a device's health ("working" or "unavailable", and why) when it changes."""
        known = self.state.devices.get(name)
        if known is None or known["state"] != state or known["detail"] != detail:
            await self.record("device", "service", {"device": name, "state": state,
                                                    "detail": detail})

    def history(self, after: int = 0, limit: int = 500,
                seen: Disclosure | None = None) -> list[JSON]:
        """The current game's entries from its start, each with the rulings it produced;
        with `seen` (a public reader's), the private draws it hides are redacted."""
        game = self.state.game
        first = game.start_seq if game else self.state.seq + 1
        out = []
        for entry, rulings in replay_entries(self.log, first):
            if entry.seq > after:
                record = entry.to_json()
                record["rulings"] = [r.to_json() for r in rulings]
                out.append(public_entry(record, seen))
            if len(out) >= limit:
                break
        return out


def replay_state(event_log: SqliteEventLog, snapshot: Mapping[str, Any] | None = None,
                 upto: int | None = None) -> TableState:
    """The table's state from a snapshot (or the first entry) and the entries after it.

    An entry the rules cannot fold blocks the state there (`TableState.blocked`) and never
    raises. A snapshot that cannot be restored (one an older version saved) is passed over
    for a replay from the first entry.
    """
    begin = snapshot
    state = TableState()
    if snapshot is not None:
        try:
            state = TableState.restore(snapshot)
        except Exception as error:  # the log, not the snapshot, is the truth
            log.warning("snapshot at entry %s cannot be restored (%s): replaying the log "
                        "from its first entry", snapshot.get("seq"), error_words(error))
            begin = None
    try:
        state = _replay(event_log, state, upto, deferred=True)
        if state.blocked is None:
            return state
    except Exception:  # the game's events, ruled once at the end, failed
        pass
    # Ruled entry by entry instead, the entry that cannot be ruled blocks the table where
    # it stands in the log.
    again = TableState.restore(begin) if begin is not None else TableState()
    return _replay(event_log, again, upto, deferred=False)


def _replay(event_log: SqliteEventLog, state: TableState, upto: int | None, *,
            deferred: bool) -> TableState:
    state.deferred = deferred
    for entry in event_log.entries(after=state.seq):
        if upto is not None and entry.seq > upto:
            break
        state.apply(entry.seq, entry.kind, entry.source, entry.body)
    state.settle()
    return state


def replay_entries(event_log: SqliteEventLog, first: int = 1, *,
                   state: TableState | None = None) -> Iterator[tuple[LogEntry, list[Ruling]]]:
    """Fold the log from entry `first` (a game's start, or 1), yielding each entry's rulings;
    into `state` if given (whose `blocked` then tells where the rules stopped)."""
    state = TableState(seq=first - 1) if state is None else state
    for entry in event_log.entries(after=first - 1):
        yield entry, state.apply(entry.seq, entry.kind, entry.source, entry.body)

