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

import dataclasses
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar, Final, TypeVar

from drivers.errors import DriverError
from drivers.wire.frame import MAX_PAYLOAD, Frame, WireError, decode, encode

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


class Message:
    """A protocol message; each subclass is declared once, with its code and layout."""

    __slots__ = ()

    NAME: ClassVar[str]
    CODE: ClassVar[int]
    FORMAT: ClassVar[str]
    """struct format of the fixed fields (little-endian), without the text."""
    FIELDS: ClassVar[tuple[str, ...]]
    """The fixed fields in wire order."""
    HAS_TEXT: ClassVar[bool]
    """True if an ASCII ``text`` field fills the rest of the payload."""
    TO_NODE: ClassVar[bool]


_M = TypeVar("_M", bound=type[Message])
_BY_CODE: dict[int, type[Message]] = {}
_WIDTH: Final = {"B": "u8", "H": "u16", "I": "u32"}
_LIMIT: Final = {"B": 0xFF, "H": 0xFFFF, "I": 0xFFFF_FFFF}


def _message(code: int, layout: str) -> Callable[[_M], _M]:
    """Register a message class under ``code``; ``layout`` is one struct letter per field."""

    def register(cls: _M) -> _M:
        names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
        has_text = names[-1:] == ("text",)
        fixed = names[:-1] if has_text else names
        if len(layout) != len(fixed) or set(layout) - set(_WIDTH) or code in _BY_CODE:
            raise TypeError(f"{cls.__name__}: layout {layout!r} does not fit fields {fixed}")
        cls.NAME = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).upper()
        cls.CODE = code
        cls.FORMAT = "<" + layout
        cls.FIELDS = fixed
        cls.HAS_TEXT = has_text
        cls.TO_NODE = code < 0x80
        _BY_CODE[code] = cls
        return cls

    return register


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
    return dict(_BY_CODE)


def message_table_json() -> dict[str, dict[str, Any]]:
    """The message table as JSON-ready data, keyed by message name, in type-code order.

    Each entry: ``type`` (the code), ``format`` (struct layout of the fixed fields),
    ``fields`` (every field name in wire order, a trailing ``"text"`` included),
    ``direction`` ("host->node" or "node->host") and ``response`` (for commands, the
    answering message's name, else None).
    """
    table: dict[str, dict[str, Any]] = {}
    for code, cls in sorted(_BY_CODE.items()):
        answer = _RESPONSES.get(cls)
        table[cls.NAME] = {
            "type": code,
            "format": cls.FORMAT,
            "fields": [*cls.FIELDS, *(["text"] if cls.HAS_TEXT else [])],
            "direction": "host->node" if cls.TO_NODE else "node->host",
            "response": None if answer is None else answer.NAME,
        }
    return table


def encode_message(message: Message, seq: int) -> bytes:
    """The frame carrying ``message`` with sequence number ``seq``."""
    cls = type(message)
    values = []
    for name, letter in zip(cls.FIELDS, cls.FORMAT[1:], strict=True):
        value = getattr(message, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise WireError(f"{cls.NAME}.{name} must be an integer, not {value!r}", reason="range")
        if not 0 <= value <= _LIMIT[letter]:
            raise WireError(
                f"{cls.NAME}.{name}={value} does not fit {_WIDTH[letter]} (0..{_LIMIT[letter]})",
                reason="range",
            )
        values.append(value)
    payload = struct.pack(cls.FORMAT, *values)
    if cls.HAS_TEXT:
        text = getattr(message, "text")  # noqa: B009 - only text-bearing classes reach here
        if not isinstance(text, str) or not text.isascii():
            raise WireError(f"{cls.NAME}.text must be ASCII, not {text!r}", reason="text")
        payload += text.encode("ascii")
    if len(payload) > MAX_PAYLOAD:
        raise WireError(
            f"{cls.NAME} payload is {len(payload)} bytes, at most {MAX_PAYLOAD} fit a frame",
            reason="length",
        )
    return encode(cls.CODE, seq, payload)


def decode_message(frame: Frame) -> Message:
    """The message a frame carries; WireError names an unknown type or a bad payload."""
    cls = _BY_CODE.get(frame.type)
    if cls is None:
        raise WireError(f"unknown message type 0x{frame.type:02x}", reason="type")
    size = struct.calcsize(cls.FORMAT)
    payload = frame.payload
    if len(payload) != size and not (cls.HAS_TEXT and len(payload) >= size):
        want = f"at least {size}" if cls.HAS_TEXT else str(size)
        raise WireError(
            f"{cls.NAME} payload is {len(payload)} bytes, expected {want}", reason="payload"
        )
    fixed = struct.unpack_from(cls.FORMAT, payload)
    values: dict[str, Any] = dict(zip(cls.FIELDS, fixed, strict=True))
    if cls.HAS_TEXT:
        try:
            values["text"] = payload[size:].decode("ascii")
        except UnicodeDecodeError as exc:
            raise WireError(
                f"{cls.NAME} text is not ASCII: {payload[size:]!r}", reason="text"
            ) from exc
    return cls(**values)


def decode_bytes(data: bytes) -> tuple[int, Message]:
    """The sequence number and message of the one frame that is exactly ``data``."""
    frame = decode(data)
    return frame.seq, decode_message(frame)
