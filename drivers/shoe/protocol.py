"""The dealer shoe and shuffler serial protocol (docs/shoe.md): every message declared once.

The shoe speaks over the project's one framing (:mod:`drivers.wire.frame`: LEN, SEQ u16,
TYPE, payload, CRC-16/CCITT-FALSE, 0x7E) with its own message types, 0x21..0x2F to the
device and 0xA1..0xAF from it, so a sensor node plugged in where a shoe belongs is told
apart at once. Each message is a frozen dataclass whose fixed fields have a struct
layout (little-endian); a last field ``text`` is the rest of the payload, in ASCII.

Example:
    >>> raw = encode_message(Card(seq=1, time_ms=250, code="10H"), 1)
    >>> raw.hex(" ")
    '12 01 00 a3 01 00 00 00 fa 00 00 00 31 30 48 cd 3c 7e'
    >>> decode_message(decode(raw))
    Card(seq=1, time_ms=250, code='10H')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, TypeVar

from drivers.wire.codec import Message, MessageSet
from drivers.wire.frame import Frame, decode
from drivers.wire.messages import code_name

__all__ = [
    "NO_COMMAND",
    "PROTOCOL_VERSION",
    "Ack",
    "Card",
    "DeviceKind",
    "Hello",
    "HelloReq",
    "Message",
    "Nack",
    "NackCode",
    "NewShoe",
    "PackEnd",
    "Query",
    "Resend",
    "ShoeState",
    "Status",
    "code_name",
    "decode",
    "decode_message",
    "encode_message",
    "message_table",
]

PROTOCOL_VERSION: Final = 1
NO_COMMAND: Final = 0
"""Frame SEQ of a message that answers no command (a STATUS sent unasked, ACK, CARD...)."""


class DeviceKind(IntEnum):
    """What answers HELLO: a dealer shoe or a shuffler."""

    SHOE = 1
    SHUFFLER = 2


class ShoeState(IntEnum):
    """The device's state as STATUS reports it.

    When several hold, the first of JAM, DOOR_OPEN, HELD, EMPTY, CUT_CARD, LOADED is sent.
    """

    EMPTY = 0
    """No cards left (or none loaded yet)."""
    LOADED = 1
    """Cards in the shoe, dealing."""
    CUT_CARD = 2
    """The cut card came out: the hand in play is the shoe's last."""
    JAM = 3
    """A card stuck at the reader; nothing can be drawn until the dealer clears it."""
    DOOR_OPEN = 4
    """The loading door is open."""
    HELD = 5
    """The gate is locked: the device holds as many unacknowledged cards as it can keep."""


class NackCode(IntEnum):
    """Why the device refused a command."""

    UNKNOWN_TYPE = 1
    BAD_PAYLOAD = 2
    OUT_OF_RANGE = 3
    PROTOCOL_MISMATCH = 4
    NOT_HELD = 5
    """RESEND asked for a card the device no longer holds (or never numbered)."""
    NOT_NOW = 6
    """The device cannot do it in its present state (NEW_SHOE with the door open...)."""


_M = TypeVar("_M", bound=type[Message])
_MESSAGES: Final = MessageSet(printable_text=True)


def _message(code: int, name: str, layout: str, *,
             text: str | None = None) -> Callable[[_M], _M]:
    """Register a message class under ``code`` with its wire ``name`` (see MessageSet)."""
    return _MESSAGES.message(code, layout, name=name, text=text)


@_message(0x21, "HELLO_REQ", "BII")
@dataclass(frozen=True, slots=True)
class HelloReq(Message):
    """Who are you? Carries the host's protocol and the last card it holds (0, 0: none)."""

    host_protocol: int
    held_boot: int
    held_seq: int


@_message(0x22, "ACK", "I")
@dataclass(frozen=True, slots=True)
class Ack(Message):
    """The host holds every card numbered up to ``seq`` (cumulative; never answered)."""

    seq: int


@_message(0x23, "QUERY", "")
@dataclass(frozen=True, slots=True)
class Query(Message):
    """Ask for the device's STATUS (also the host's health check)."""


@_message(0x24, "NEW_SHOE", "B")
@dataclass(frozen=True, slots=True)
class NewShoe(Message):
    """The dealer loaded a fresh shoe of ``packs`` packs; answered with STATUS."""

    packs: int


@_message(0x25, "RESEND", "I")
@dataclass(frozen=True, slots=True)
class Resend(Message):
    """Send every held card from ``seq`` on again now (the host saw a gap)."""

    seq: int


@_message(0xA1, "HELLO", "BBII", text="text")
@dataclass(frozen=True, slots=True)
class Hello(Message):
    """The device's identity: protocol, kind, boot id, next card, and "maker|serial"."""

    protocol: int
    kind: int
    boot_id: int
    next_seq: int
    text: str

    @property
    def maker(self) -> str:
        """The maker's name, before the first "|" of the text."""
        return self.text.partition("|")[0]

    @property
    def serial(self) -> str:
        """The device's serial number, after the first "|" of the text."""
        return self.text.partition("|")[2]


@_message(0xA2, "STATUS", "BBHB", text="text")
@dataclass(frozen=True, slots=True)
class Status(Message):
    """The device's state, packs loaded, cards dealt since, cards unacknowledged, detail."""

    state: int
    packs: int
    dealt: int
    unacked: int
    text: str


@_message(0xA3, "CARD", "II", text="code")
@dataclass(frozen=True, slots=True)
class Card(Message):
    """One card drawn: its sequence number, the device's clock (ms) and its code."""

    seq: int
    time_ms: int
    code: str


@_message(0xA4, "PACK_END", "IIH")
@dataclass(frozen=True, slots=True)
class PackEnd(Message):
    """A shuffler finished a pack of ``count`` cards; numbered in the cards' sequence."""

    seq: int
    time_ms: int
    count: int


@_message(0xAF, "NACK", "B", text="text")
@dataclass(frozen=True, slots=True)
class Nack(Message):
    """The device refused a command; ``code`` is a :class:`NackCode`."""

    code: int
    text: str


def message_table() -> Mapping[int, type[Message]]:
    """Every message class by its type code."""
    return _MESSAGES.table()


def encode_message(message: Message, seq: int) -> bytes:
    """The frame carrying ``message`` with frame sequence number ``seq``."""
    return _MESSAGES.encode(message, seq)


def decode_message(frame: Frame) -> Message:
    """The message a frame carries; WireError names an unknown type or a bad payload."""
    return _MESSAGES.decode(frame)
