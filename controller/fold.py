"""The table's state as the fold of its event log: one code path for live play and replay.

Log entry kinds and their bodies:

- `start`   {"game", "players", "options"}: a new game (ends any game in progress);
- `event`   {"event": {...}}: an engine event (a ball, a dead ball...), from a sensor or a person;
- `flag`    {"reading": {...}, "why"}: an impossible reading, kept but not applied;
- `resolve` {"flag": seq, "event": {...} | null, "reason"}: the operator settles a flag,
            with the event that really happened, or none (the reading is void);
- `correct` {"target": seq, "event": {...} | null, "reason"}: the operator replaces an
            earlier event of the current game (or voids it); the game is re-ruled;
- `device`  {"device", "state": "working" | "unavailable", "detail"}: device health; an
            unavailable sensor pauses the table, an unavailable display or card camera
            (`ADVISORY`) does not;
- `abandon` {"reason"}: the game in progress is given up;
- `note`    {"what", ...}: something a device saw that changes nothing (kept for the history;
            the latest `camera check` of the game is in the view as `camera`).

Any entry a lane reading produced may also carry `nodes` {device: [boot_id, seq, input
values...]}: how far each sensor node's reports were consumed by then, so a restarted
service resumes there (`TableState.nodes`, the latest per device).

Nothing is ever edited in place: corrections are entries too, and replaying the log
from its first entry gives the same state every time.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core import JSON, Ruling, State, parse_strictly
from engine.errors import EngineError
from engine.registry import get_game

RECENT_RULINGS = 20
KINDS = ("start", "event", "flag", "resolve", "correct", "device", "abandon", "note")

#: A note of the card camera's check (controller/card_camera.py), kept for the view.
CAMERA_CHECK = "camera check"
#: The card table's overhead camera: it confirms the cards, never changes the record.
CARD_CAMERA = "card camera"
#: Devices that only show the game or confirm it: one that fails is reported, but play
#: goes on.
ADVISORY = frozenset({"scoreboard", CARD_CAMERA})


class FoldError(ValueError):
    """A log entry that cannot be folded: the log is not one this service wrote."""


@dataclass(slots=True)
class GameRecord:
    """The game in progress: its setup and the engine events applied, by log seq."""

    game_id: str
    players: list[str]
    options: dict[str, Any]
    start_seq: int
    events: list[tuple[int, JSON]] = field(default_factory=list)


@dataclass(slots=True)
class TableState:
    """Everything the table knows, rebuilt entry by entry from the log."""

    seq: int = 0
    game: GameRecord | None = None
    engine: State | None = None
    flags: dict[int, JSON] = field(default_factory=dict)
    devices: dict[str, JSON] = field(default_factory=dict)
    nodes: dict[str, list[int]] = field(default_factory=dict)
    #: The card camera's latest check of the game in progress (a `camera check` note).
    camera: JSON | None = None
    rulings: deque[tuple[int, Ruling | JSON]] = field(
        default_factory=lambda: deque(maxlen=RECENT_RULINGS))
    # While recovering, the current game's events are ruled once, at the end (`settle`):
    # a game that a later `start` replaces never needs ruling again to know the state.
    deferred: bool = False
    unruled: bool = False
    #: The entry the rules could not fold ({"seq", "kind", "source", "body", "why"}), and
    #: the entries after it, held unfolded until the operator voids or corrects it (a
    #: `correct` of its seq).
    blocked: JSON | None = None
    held: list[tuple[int, str, str, JSON]] = field(default_factory=list)

    def apply(self, seq: int, kind: str, source: str, body: Mapping[str, Any]) -> list[Ruling]:
        """Fold one log entry; returns the rulings it produced.

        An entry the rules cannot fold (a log from an older version, a bug, a hand-edited
        file) never raises: the table is blocked on it (`blocked`, the view says so) and
        the entries after it are held until an operator's `correct` of it voids it or
        gives the event that really happened; then the held entries are folded in order.
        """
        if seq != self.seq + 1:
            raise FoldError(f"log entry {seq} follows {self.seq}: the log has a gap")
        self.seq = seq
        if self.blocked is None:
            return self._fold_or_block(seq, kind, source, body)
        if kind == "correct" and body.get("target") == self.blocked["seq"]:
            return self._unblock(body)
        self.held.append((seq, kind, source, dict(body)))
        return []

    def _fold_or_block(self, seq: int, kind: str, source: str,
                       body: Mapping[str, Any]) -> list[Ruling]:
        """Fold one entry, or block the table on it if the rules cannot (see `apply`)."""
        try:
            return self._fold(seq, kind, source, body)
        except Exception as error:  # any failure to rule an entry is the operator's to settle
            self._undo_partial(seq)
            self.blocked = {"seq": seq, "kind": kind, "source": source, "body": dict(body),
                            "why": error_words(error)}
            return []

    def _undo_partial(self, seq: int) -> None:
        """Put the game back as it was before entry `seq`, which could not be folded."""
        game = self.game
        if game is not None and game.events and game.events[-1][0] == seq:
            game.events.pop()
            if not self.deferred:
                self._rule_game()

    def _unblock(self, correction: Mapping[str, Any]) -> list[Ruling]:
        """The operator's correction of the blocked entry: void it or fold the event given
        in its place, then fold the entries held behind it (which may block again)."""
        blocked, held = self.blocked, self.held
        assert blocked is not None
        self.blocked, self.held = None, []
        rulings: list[Ruling] = []
        replacement = correction.get("event")
        if replacement is not None:
            body = {**blocked["body"], "event": replacement}
            rulings += self._fold_or_block(blocked["seq"], blocked["kind"], blocked["source"],
                                           body)
        for seq, kind, source, body in held:
            if self.blocked is not None:
                self.held.append((seq, kind, source, body))
            else:
                rulings += self._fold_or_block(seq, kind, source, body)
        return rulings

    def _fold(self, seq: int, kind: str, source: str, body: Mapping[str, Any]) -> list[Ruling]:
        nodes = body.get("nodes")
        if isinstance(nodes, Mapping):
            self.nodes.update((str(name), [int(v) for v in at]) for name, at in nodes.items())
        if kind == "event":
            return self._engine_event(seq, body["event"])
        if kind == "start":
            self._start(seq, body)
            return []
        if kind == "flag":
            self.flags[seq] = {"seq": seq, "what": body["why"], "reading": body["reading"],
                               "source": source}
            return []
        if kind == "resolve":
            event = body.get("event")
            rulings = self._engine_event(seq, event) if event is not None else []
            self.flags.pop(int(body["flag"]), None)
            return rulings
        if kind == "correct":
            return self._correct(int(body["target"]), body.get("event"))
        if kind == "device":
            self.devices[str(body["device"])] = {"name": body["device"], "state": body["state"],
                                                 "detail": body.get("detail", "")}
            return []
        if kind == "note":
            if body.get("what") == CAMERA_CHECK and self.game is not None:
                self.camera = {"seq": seq, **{key: body.get(key) for key in (
                    "confirmed", "not_seen", "unexpected", "text")}}
            return []
        if kind == "abandon":
            self.game = None
            self.engine = None
            self.camera = None
            self.flags.clear()
            return []
        raise FoldError(f"log entry {seq}: unknown kind {kind!r}")

    def _start(self, seq: int, body: Mapping[str, Any]) -> None:
        game = get_game(str(body["game"]))
        players = list(body["players"])
        options = dict(body.get("options") or {})
        self.engine = game.new_state(players, options)
        self.game = GameRecord(game.id, players, options, seq)
        self.camera = None
        self.flags.clear()
        self.rulings.clear()
        self.unruled = False

    def _engine_event(self, seq: int, data: Mapping[str, Any]) -> list[Ruling]:
        if self.engine is None or self.game is None:
            raise FoldError(f"log entry {seq}: an event with no game in progress")
        self.game.events.append((seq, dict(data)))
        if self.deferred:
            self.unruled = True
            return []
        operation = self.engine.apply(self.engine.parse_event(data))
        for ruling in operation.rulings:
            self.rulings.append((seq, ruling))
        return list(operation.rulings)

    def _correct(self, target: int, replacement: Mapping[str, Any] | None) -> list[Ruling]:
        game = self.game
        if game is None:
            raise FoldError(f"correction of {target}: no game in progress")
        if all(seq != target for seq, _ in game.events):
            raise FoldError(f"correction of {target}: it is not an event of the game in "
                            "progress")
        events = []
        for seq, data in game.events:
            if seq != target:
                events.append((seq, data))
            elif replacement is not None:
                events.append((seq, dict(replacement)))
        return self._rule_game(events)

    def _rule_game(self, events: list[tuple[int, JSON]] | None = None) -> list[Ruling]:
        """Rule the game's events (or `events`, which become the game's if they can all be
        ruled) afresh; returns the last event's rulings."""
        game = self.game
        assert game is not None
        events = game.events if events is None else events
        engine = get_game(game.game_id).new_state(game.players, game.options)
        ruled: list[tuple[int, Ruling]] = []
        rulings: list[Ruling] = []
        for seq, data in events:
            rulings = list(engine.apply(engine.parse_event(data)).rulings)
            ruled.extend((seq, r) for r in rulings)
        game.events = events
        self.rulings.clear()
        self.rulings.extend(ruled)
        self.engine = engine
        self.unruled = False
        return rulings

    def settle(self) -> None:
        """End deferred ruling: rule the current game's events now (see `deferred`)."""
        self.deferred = False
        if self.unruled:
            self._rule_game()

    def check(self, kind: str, body: Mapping[str, Any]) -> None:
        """Raise `EngineError` or `FoldError` if this entry could not be folded now.

        Nothing reaches the log that the table could not then replay. A new event (of an
        `event`, `resolve` or `correct` entry) is read strictly (`parse_strictly`): a key
        its event does not take is refused by name, not logged and ignored. Folding stays
        lenient, so logs written before still replay.
        """
        self.settle()
        if kind not in KINDS:
            raise FoldError(f"unknown entry kind {kind!r}")
        if self.blocked is not None:
            self._check_while_blocked(kind, body)
            return
        if kind == "start":
            get_game(str(body["game"])).new_state(list(body["players"]),
                                                  dict(body.get("options") or {}))
            return
        if kind == "abandon" and self.game is None and not self.flags:
            raise FoldError("there is no game in progress to abandon")
        if kind == "resolve" and int(body["flag"]) not in self.flags:
            raise FoldError(f"there is no open flag {body['flag']}")
        event = body.get("event")
        if kind == "correct":
            if self.game is None or all(s != body["target"] for s, _ in self.game.events):
                raise FoldError(f"entry {body['target']} is not an event of the game in "
                                "progress")
            if isinstance(event, Mapping):
                at_target = get_game(self.game.game_id).new_state(self.game.players,
                                                                  self.game.options)
                for seq, data in self.game.events:
                    if seq == body["target"]:
                        break
                    at_target.apply(at_target.parse_event(data))
                parse_strictly(at_target, event)
            scratch = TableState.restore(self.save())
            scratch.apply(self.seq + 1, kind, "check", body)
            if scratch.blocked is not None:
                raise FoldError(str(scratch.blocked["why"]))
        elif kind in ("event", "resolve") and event is not None:
            if not isinstance(event, Mapping):
                raise FoldError(f"the event must be a JSON object, got {event!r}")
            if self.engine is None:
                raise FoldError("no game in progress")
            self.engine.verify(parse_strictly(self.engine, event))

    def _check_while_blocked(self, kind: str, body: Mapping[str, Any]) -> None:
        """What the table takes while blocked: the correction of the blocked entry, and
        what only records (device health, notes, readings flagged for the operator)."""
        blocked = self.blocked
        assert blocked is not None
        if kind in ("device", "note", "flag"):
            return
        if kind != "correct" or body.get("target") != blocked["seq"]:
            raise FoldError(f"the table needs the operator first: {blocked_words(blocked)}; "
                            f"void or correct log entry {blocked['seq']}")
        event = body.get("event")
        if event is not None and blocked["kind"] not in ("event", "resolve"):
            raise FoldError(f"log entry {blocked['seq']} is a {blocked['kind']!r} entry, not "
                            "an event: it can only be voided (a correction with no event)")
        if event is not None and self.engine is not None:
            parse_strictly(self.engine, event)
        scratch = TableState.restore(self.save())
        scratch.apply(self.seq + 1, kind, "check", body)
        if scratch.blocked is not None and scratch.blocked["seq"] == blocked["seq"]:
            raise FoldError(f"the event given for log entry {blocked['seq']} cannot be ruled "
                            f"either: {scratch.blocked['why']}")

    # -- pictures and persistence --------------------------------------------------

    def view(self, table_id: str, name: str = "") -> JSON:
        self.settle()
        paused = [d for d in self.devices.values()
                  if d["state"] != "working" and d["name"] not in ADVISORY]
        game = self.engine.snapshot() if self.engine is not None else None
        if game is not None:
            game["rulings"] = self._recent_rulings()
        if self.blocked is not None:
            status = "paused"
            why: str | None = f"needs the operator: {blocked_words(self.blocked)}"
        elif paused:
            status = "paused"
            why = "; ".join(f"{d['name']} {d['state']}: {d['detail']}" for d in paused)
        elif self.flags:
            status = "paused"
            why = "a reading needs the operator"
        else:
            status = "idle" if game is None or game["over"] else "running"
            why = None
        return {"table": table_id, "name": name or table_id, "seq": self.seq, "status": status,
                "why": why, "devices": list(self.devices.values()),
                "flags": list(self.flags.values()), "game": game, "camera": self.camera,
                "blocked": self.blocked}

    def save(self) -> JSON:
        self.settle()
        game = self.game
        return {
            "seq": self.seq,
            "game": None if game is None else {
                "id": game.game_id, "players": game.players, "options": game.options,
                "start_seq": game.start_seq, "events": [list(e) for e in game.events]},
            "flags": list(self.flags.values()),
            "devices": list(self.devices.values()),
            "nodes": {name: list(at) for name, at in self.nodes.items()},
            "rulings": self._recent_rulings(),
            "camera": self.camera,
            "blocked": self.blocked,
            "held": [list(entry) for entry in self.held],
        }

    def _recent_rulings(self) -> list[JSON]:
        out = []
        for seq, ruling in self.rulings:
            entry = ruling.to_json() if isinstance(ruling, Ruling) else dict(ruling)
            entry["seq"] = seq
            out.append(entry)
        return out

    @classmethod
    def restore(cls, saved: Mapping[str, Any]) -> TableState:
        state = cls(seq=int(saved["seq"]))
        record = saved["game"]
        if record is not None:
            game = get_game(record["id"])
            state.game = GameRecord(record["id"], list(record["players"]),
                                    dict(record["options"]), int(record["start_seq"]))
            engine = game.new_state(state.game.players, state.game.options)
            for seq, data in record["events"]:
                engine.apply(engine.parse_event(data))
                state.game.events.append((int(seq), data))
            state.engine = engine
        state.flags = {int(f["seq"]): f for f in saved["flags"]}
        state.devices = {d["name"]: d for d in saved["devices"]}
        # Snapshots from before node checkpoints have none.
        state.nodes = {str(k): [int(v) for v in at] for k, at in saved.get("nodes", {}).items()}
        state.rulings.extend((r["seq"], r) for r in saved["rulings"])
        state.camera = saved.get("camera")  # snapshots from before the card camera: none
        state.blocked = saved.get("blocked")  # and before blocking: none
        state.held = [(int(seq), str(kind), str(source), dict(body))
                      for seq, kind, source, body in saved.get("held", [])]
        return state


def blocked_words(blocked: Mapping[str, Any]) -> str:
    """The blocked entry in words: which it is, what it says and why it cannot be ruled."""
    said = json.dumps(blocked["body"], separators=(", ", ": "), default=str)
    if len(said) > 300:
        said = said[:297] + "..."
    return (f"log entry {blocked['seq']} ({blocked['kind']} from {blocked['source']}: "
            f"{said}) cannot be ruled: {blocked['why']}")


def is_rejection(error: Exception) -> bool:
    """True for the errors `TableState.check` raises on an entry that cannot happen."""
    return isinstance(error, EngineError | FoldError | KeyError | TypeError)


def error_words(error: Exception) -> str:
    """An error in words for the operator (a missing field is named as such)."""
    if isinstance(error, KeyError):
        return f"missing field {error}"
    return str(error) or type(error).__name__
