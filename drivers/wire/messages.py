"""The sensor-node protocol's messages, each declared once with its type code and layout.

Every message is a frozen dataclass registered by :func:`_message` with its type code
and the struct layout of its fixed fields (little-endian); a message may end with an
ASCII ``text`` field filling the rest of the payload. The table built from these
declarations is the single source for encoding, decoding and the JSON copy
(:func:`message_table_json`) that is checked against the firmware's own table.

The protocol's numbers live here too: node types, input numbers, config keys and
their bounds, NACK and shutdown codes.

Example:
    >>> raw = encode_message(Report(input=11, value=1, time_ms=1000), seq=5)
    >>> raw.hex(" ")
    '0d 05 00 90 0b 01 e8 03 00 00 b3 c6 7e'
    >>> decode_message(decode(raw))
    Report(input=11, value=1, time_ms=1000)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final, TypeVar

from drivers.errors import DriverError
from drivers.wire.codec import Message, MessageSet
from drivers.wire.frame import Frame, decode

__all__ = [
    "BALL_DETECTOR_INPUT",
    "BALL_IDENTITY_INPUT",
    "CONFIG_BOUNDS",
    "FOUL_BEAM_INPUT",
    "NODE_INPUTS",
    "PINSETTER_INPUT",
    "POCKETS",
    "PROTOCOL_VERSION",
    "SPOT_INPUTS",
    "Ack",
    "CommandRefused",
    "Config",
    "ConfigBounds",
    "ConfigKey",
    "ConfigOk",
    "Identify",
    "IdentifyReq",
    "Message",
    "Nack",
    "NackCode",
    "NodeState",
    "NodeType",
    "Ping",
    "Pong",
    "ProtocolMismatch",
    "Query",
    "QueryOk",
    "Report",
    "Reset",
    "ResetOk",
    "Shutdown",
    "ShutdownCode",
    "WrongNode",
    "code_name",
    "decode_bytes",
    "decode_message",
    "encode_message",
    "message_table",
    "message_table_json",
    "node_type_name",
    "response_type",
]

PROTOCOL_VERSION: Final = 1


class NodeType(IntEnum):
    """What a sensor node is wired to (IDENTIFY's node_type)."""

    PIN_DECK = 1
    POCKETS = 2
    FOUL_LINE = 3


SPOT_INPUTS: Final = range(1, 11)
"""Pin deck inputs 1-10: one per pin spot, 1 while a pin stands there."""
BALL_DETECTOR_INPUT: Final = 11
PINSETTER_INPUT: Final = 12
POCKETS: Final[Mapping[int, str]] = {
    1: "corner-left-foot",
    2: "side-left",
    3: "corner-left-head",
    4: "corner-right-head",
    5: "side-right",
    6: "corner-right-foot",
}
"""Pockets node inputs 1-6, 1 while a ball is in the pocket's throat."""
BALL_IDENTITY_INPUT: Final = 7
"""Pockets node input whose value is the ball number read at the ball return (0: none)."""
FOUL_BEAM_INPUT: Final = 1

NODE_INPUTS: Final[Mapping[NodeType, frozenset[int]]] = {
    NodeType.PIN_DECK: frozenset(range(1, PINSETTER_INPUT + 1)),
    NodeType.POCKETS: frozenset(range(1, BALL_IDENTITY_INPUT + 1)),
    NodeType.FOUL_LINE: frozenset({FOUL_BEAM_INPUT}),
}


class ConfigKey(IntEnum):
    """CONFIG keys."""

    DEBOUNCE_MS = 1
    RETRANSMIT_MS = 2


@dataclass(frozen=True, slots=True)
class ConfigBounds:
    """The values a config key accepts, and the node's default."""

    low: int
    high: int
    default: int


CONFIG_BOUNDS: Final[Mapping[ConfigKey, ConfigBounds]] = {
    ConfigKey.DEBOUNCE_MS: ConfigBounds(1, 200, 10),
    ConfigKey.RETRANSMIT_MS: ConfigBounds(10, 1000, 50),
}


class NackCode(IntEnum):
    """Why a node refused a command (NACK's code)."""

    UNKNOWN_TYPE = 1
    BAD_PAYLOAD_LENGTH = 2
    VALUE_OUT_OF_BOUNDS = 3
    PROTOCOL_MISMATCH = 4
    NODE_IS_SHUT_DOWN = 5


class ShutdownCode(IntEnum):
    """Why a node shut itself down (SHUTDOWN's code)."""

    IMPOSSIBLE_INPUT = 1
    INTERNAL_ERROR = 2
    WATCHDOG = 3


class NodeState(IntEnum):
    """A node's state as PONG reports it."""

    RUNNING = 0
    SHUTDOWN = 1


_E = TypeVar("_E", bound=IntEnum)


def node_type_name(node_type: int) -> str:
    """A node type as words for messages ("pin deck"); an unknown one says its number."""
    try:
        return NodeType(node_type).name.lower().replace("_", " ")
    except ValueError:
        return f"unknown (type {node_type})"


def code_name(kind: type[_E], code: int) -> str:
    """``code`` with its meaning, e.g. "3 (value out of bounds)"; unknown codes say so."""
    try:
        return f"{code} ({kind(code).name.lower().replace('_', ' ')})"
    except ValueError:
        return f"{code} (unknown)"


class ProtocolMismatch(DriverError, ConnectionError):
    """A node speaks another protocol version than the host; the message names both."""


class WrongNode(DriverError, ConnectionError):
    """The node on a port is not the kind of node expected there (a pockets node on a lane)."""


class CommandRefused(DriverError, ValueError):
    """A node answered a command with NACK; ``code`` and ``text`` are the node's own."""

    def __init__(self, message: str, *, code: int, text: str) -> None:
        super().__init__(message)
        self.code: Final = code
        self.text: Final = text


_MESSAGES: Final = MessageSet()
_message = _MESSAGES.message


# Node -> host responses and reports come first so commands can name their response.


@_message(0x81, "BBBBBIHB")
@dataclass(frozen=True, slots=True)
class Identify(Message):
    """The node's answer to IDENTIFY_REQ: what it is and where its reports start."""

    protocol: int
    node_type: int
    fw_major: int
    fw_minor: int
    fw_patch: int
    boot_id: int
    next_report: int
    inputs: int

    @property
    def firmware(self) -> str:
        """The firmware version as "major.minor.patch"."""
        return f"{self.fw_major}.{self.fw_minor}.{self.fw_patch}"


@_message(0x82, "BH")
@dataclass(frozen=True, slots=True)
class ConfigOk(Message):
    """A config key's value now in force."""

    key: int
    value: int


@_message(0x84, "IBB")
@dataclass(frozen=True, slots=True)
class Pong(Message):
    """The node's answer to PING: its clock, reports awaiting ACK, and running/shutdown."""

    uptime_ms: int
    unacked: int
    state: int


@_message(0x85, "")
@dataclass(frozen=True, slots=True)
class ResetOk(Message):
    """The node has left shutdown and cleared its report queue."""


@_message(0x86, "")
@dataclass(frozen=True, slots=True)
class QueryOk(Message):
    """The node will report every input's current value next."""


@_message(0x8F, "B")
@dataclass(frozen=True, slots=True)
class Nack(Message):
    """The node refused a command; ``code`` is a :class:`NackCode`."""

    code: int
    text: str


@_message(0x90, "BBI")
@dataclass(frozen=True, slots=True)
class Report(Message):
    """An input's debounced change (or its value on QUERY) at node time ``time_ms``."""

    input: int
    value: int
    time_ms: int


@_message(0x91, "B")
@dataclass(frozen=True, slots=True)
class Shutdown(Message):
    """The node is shut down (sent once a second); ``code`` is a :class:`ShutdownCode`."""

    code: int
    text: str


@_message(0x01, "B")
@dataclass(frozen=True, slots=True)
class IdentifyReq(Message):
    """Ask the node what it is, telling it the host's protocol version."""

    host_protocol: int


@_message(0x02, "BH")
@dataclass(frozen=True, slots=True)
class Config(Message):
    """Set a config key (a :class:`ConfigKey`)."""

    key: int
    value: int


@_message(0x03, "")
@dataclass(frozen=True, slots=True)
class Ack(Message):
    """Acknowledge every report up to the frame's SEQ (not a command: no answer)."""


@_message(0x04, "")
@dataclass(frozen=True, slots=True)
class Ping(Message):
    """Ask the node for its clock and state."""


@_message(0x05, "")
@dataclass(frozen=True, slots=True)
class Reset(Message):
    """Leave shutdown and clear the report queue."""


@_message(0x06, "")
@dataclass(frozen=True, slots=True)
class Query(Message):
    """Ask the node to report every input's current value."""


_RESPONSES: Final[Mapping[type[Message], type[Message]]] = {
    IdentifyReq: Identify,
    Config: ConfigOk,
    Ping: Pong,
    Reset: ResetOk,
    Query: QueryOk,
}


def response_type(command: type[Message]) -> type[Message]:
    """The message a node answers ``command`` with (NACK aside); ValueError if none."""
    try:
        return _RESPONSES[command]
    except KeyError:
        raise ValueError(f"{command.NAME} is not a command a node answers") from None


def message_table() -> Mapping[int, type[Message]]:
    """Every message class by its type code."""
    return _MESSAGES.table()


def message_table_json() -> dict[str, dict[str, Any]]:
    """The message table as JSON-ready data, keyed by message name, in type-code order.

    Each entry: ``type`` (the code), ``format`` (struct layout of the fixed fields),
    ``fields`` (every field name in wire order, a trailing ``"text"`` included),
    ``direction`` ("host->node" or "node->host") and ``response`` (for commands, the
    answering message's name, else None).
    """
    table: dict[str, dict[str, Any]] = {}
    for code, cls in sorted(_MESSAGES.table().items()):
        answer = _RESPONSES.get(cls)
        table[cls.NAME] = {
            "type": code,
            "format": cls.FORMAT,
            "fields": [*cls.FIELDS, *([cls.TEXT] if cls.TEXT else [])],
            "direction": "host->node" if cls.TO_DEVICE else "node->host",
            "response": None if answer is None else answer.NAME,
        }
    return table


def encode_message(message: Message, seq: int) -> bytes:
    """The frame carrying ``message`` with sequence number ``seq``."""
    return _MESSAGES.encode(message, seq)


def decode_message(frame: Frame) -> Message:
    """The message a frame carries; WireError names an unknown type or a bad payload."""
    return _MESSAGES.decode(frame)


def decode_bytes(data: bytes) -> tuple[int, Message]:
    """The sequence number and message of the one frame that is exactly ``data``."""
    frame = decode(data)
    return frame.seq, decode_message(frame)
