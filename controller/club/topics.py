"""The club's MQTT topic layout, `hoyle/<club>/<table>/<leaf>`, and its payloads.

Tables publish `events` (QoS 1, one log entry each, with its seq), `state` (retained
summary) and `status` (retained "online"/"offline", also the table's last will); the club
view publishes `ack` (retained: the last seq it stored without a gap) and `resend`
(a request the table answers from its log). docs/club.md is the reference.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Final

from controller.logentry import LogEntry

ROOT: Final = "hoyle"
DISCOVERY_PREFIX: Final = "homeassistant"
TABLE_LEAVES: Final = ("events", "state", "status")
CLUB_LEAVES: Final = ("ack", "resend")
ONLINE: Final = "online"
OFFLINE: Final = "offline"
NAME_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
"""Club and table ids: they are topic levels and Home Assistant node ids."""


@dataclass(frozen=True, slots=True)
class Topics:
    """The topics of one table of one club.

    >>> Topics("riverside", "lane-1").events
    'hoyle/riverside/lane-1/events'
    """

    club: str
    table: str

    def __post_init__(self) -> None:
        for what, value in (("club", self.club), ("table", self.table)):
            if not NAME_PATTERN.fullmatch(value):
                raise ValueError(f"{what} id {value!r} must be 1-40 lower-case letters, "
                                 "digits or '-'")

    def leaf(self, name: str) -> str:
        return f"{ROOT}/{self.club}/{self.table}/{name}"

    @property
    def events(self) -> str:
        return self.leaf("events")

    @property
    def state(self) -> str:
        return self.leaf("state")

    @property
    def status(self) -> str:
        return self.leaf("status")

    @property
    def ack(self) -> str:
        return self.leaf("ack")

    @property
    def resend(self) -> str:
        return self.leaf("resend")

    @property
    def node_id(self) -> str:
        """The table's Home Assistant node id (and device identifier)."""
        return f"hoyle-{self.club}-{self.table}"

    def discovery(self, component: str, object_id: str) -> str:
        return f"{DISCOVERY_PREFIX}/{component}/{self.node_id}/{object_id}/config"


def club_filters(club: str) -> list[str]:
    """What the club view subscribes to: every table's events, state and status."""
    return [f"{ROOT}/{club}/+/{leaf}" for leaf in TABLE_LEAVES]


def split(topic: str, club: str) -> tuple[str, str] | None:
    """(table, leaf) of one of the club's topics, or None for anything else."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[1] != club:
        return None
    if not NAME_PATTERN.fullmatch(parts[2]):
        return None
    return parts[2], parts[3]


def encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def decode_object(payload: bytes | bytearray | str) -> dict[str, Any] | None:
    """A JSON object payload, or None when the payload is anything else."""
    try:
        value = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def entry_payload(entry: LogEntry) -> bytes:
    """An `events` message: the log entry as the table's log holds it."""
    return encode(entry.to_json())


def parse_entry(data: dict[str, Any]) -> LogEntry | None:
    """The log entry an `events` message carries, or None when it is malformed."""
    seq, ts, kind = data.get("seq"), data.get("ts"), data.get("kind")
    source, body = data.get("source"), data.get("body")
    if not (isinstance(seq, int) and not isinstance(seq, bool) and seq > 0):
        return None
    if not (isinstance(ts, int | float) and not isinstance(ts, bool) and math.isfinite(ts)):
        return None
    if not (isinstance(kind, str) and isinstance(source, str) and isinstance(body, dict)):
        return None
    return LogEntry(seq, float(ts), kind, source, body)


def parse_seq(data: dict[str, Any] | None, key: str) -> int | None:
    """A non-negative int field of a payload, or None."""
    if data is None:
        return None
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None
