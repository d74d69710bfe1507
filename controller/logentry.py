"""The event log's entries, errors and body checks, kept apart from its SQLite storage."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "CorruptLogError",
    "EventLogError",
    "LogClosedError",
    "LogEntry",
    "LogStorageError",
    "MissingEntryError",
    "ReadOnlyLogError",
]

_MAX_DEPTH: Final = 100
# ASCII-only text (the default) also stores strings Python allows but UTF-8 does not.
_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
_STR_TYPE: Final = frozenset({str})
_SCALAR_TYPES: Final = frozenset({str, int, float, bool, type(None)})


class EventLogError(Exception):
    """Root of every error the event log raises about its own storage and state."""


class CorruptLogError(EventLogError, ValueError):
    """The file, or a row in it, is not a readable event log; the message names where."""


class LogClosedError(EventLogError, RuntimeError):
    """The log was used after close()."""


class LogStorageError(EventLogError, OSError):
    """The log could not be opened or written (missing folder, disk full, I/O error)."""


class ReadOnlyLogError(EventLogError, PermissionError):
    """An append to a log opened for reading only."""


class MissingEntryError(EventLogError, KeyError):
    """No entry has the asked-for seq."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True, slots=True, init=False)
class LogEntry:
    """One durable fact of a table, numbered by the log in the order it was appended."""

    seq: int
    ts: float
    kind: str
    source: str
    body: dict[str, Any]

    def __init__(self, seq: int, ts: float, kind: str, source: str, body: dict[str, Any]) -> None:
        # Filling the slots directly is a third cheaper than the frozen dataclass's own
        # __init__ (object.__setattr__ per field), and a replay builds a million entries.
        _SET_SEQ(self, seq)
        _SET_TS(self, ts)
        _SET_KIND(self, kind)
        _SET_SOURCE(self, source)
        _SET_BODY(self, body)

    def to_json(self) -> dict[str, Any]:
        """The entry as a JSON object, e.g. for the dashboard or an exported transcript."""
        return {
            "seq": self.seq,
            "ts": self.ts,
            "kind": self.kind,
            "source": self.source,
            "body": self.body,
        }


_SET_SEQ: Final = LogEntry.__dict__["seq"].__set__
_SET_TS: Final = LogEntry.__dict__["ts"].__set__
_SET_KIND: Final = LogEntry.__dict__["kind"].__set__
_SET_SOURCE: Final = LogEntry.__dict__["source"].__set__
_SET_BODY: Final = LogEntry.__dict__["body"].__set__


# One validated append: kind, source, the body as stored (compact JSON) and as handed back.
Item = tuple[str, str, str, dict[str, Any]]


def _json_fault(value: Any, depth: int) -> tuple[list[Any], str, type[Exception]] | None:
    """Why `value` cannot be stored as JSON (as a reason and its error type), or None.

    The path comes back innermost first, so only the failing branch pays for it.
    """
    if isinstance(value, str | int) or value is None:
        return None
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return [], f"{value!r} is not allowed in JSON", ValueError
    if depth >= _MAX_DEPTH:
        return [], f"nested deeper than {_MAX_DEPTH} levels", ValueError
    if isinstance(value, dict):
        for key, child in value.items():
            if not isinstance(key, str):
                return [], f"key {key!r} is a {type(key).__name__}, not a str", TypeError
            fault = _json_fault(child, depth + 1)
            if fault is not None:
                fault[0].append(key)
                return fault
        return None
    if isinstance(value, list | tuple):
        for index, child in enumerate(value):
            fault = _json_fault(child, depth + 1)
            if fault is not None:
                fault[0].append(index)
                return fault
        return None
    return [], f"a {type(value).__name__} is not JSON", TypeError


def _raise_fault(value: dict[str, Any], what: str) -> None:
    """Raise the error naming the first part of `value` that is not JSON, if there is one."""
    fault = _json_fault(value, 0)
    if fault is not None:
        path, reason, error = fault
        where = what + "".join(f"[{part!r}]" for part in reversed(path))
        raise error(f"{where}: {reason}")


def encode_object(value: Mapping[str, Any], what: str) -> tuple[str, dict[str, Any]]:
    """Compact JSON text of a JSON object and a fresh copy of it, equal to what reads back."""
    if type(value) is dict:
        plain = value
    elif isinstance(value, Mapping):
        plain = dict(value)
    else:
        raise TypeError(f"{what} must be a JSON object (a mapping), not {type(value).__name__}")
    # A flat body of plain scalars (the usual event) reads back equal to a shallow copy,
    # which is much cheaper than decoding the text again.
    flat = _STR_TYPE.issuperset(map(type, plain)) and _SCALAR_TYPES.issuperset(
        map(type, plain.values())
    )
    if not flat:
        _raise_fault(plain, what)
    try:
        text = _ENCODER.encode(plain)
    except ValueError:
        _raise_fault(plain, what)
        raise
    copy: dict[str, Any] = dict(plain) if flat else json.loads(text)
    return text, copy


def checked_item(kind: str, source: str, body: Mapping[str, Any], what: str) -> Item:
    """Validate one append before anything is queued, so a bad one writes nothing."""
    if not (
        type(kind) is str and type(source) is str and kind.isprintable() and source.isprintable()
    ) or not (kind and source):
        for name, label in (("kind", kind), ("source", source)):
            if not isinstance(label, str):
                raise TypeError(f"{what}{name} must be a str, not {type(label).__name__}")
            if not label or not label.isprintable():
                raise ValueError(f"{what}{name} must be printable text, not {label!r}")
    text, copy = encode_object(body, f"{what}body")
    return kind, source, text, copy
