"""One message codec for the project's framed protocols: the sensor nodes' and the shoe's.

A protocol is a `MessageSet`: its messages are frozen dataclasses registered with their
type code and the struct layout of their fixed fields (little-endian); a message may end
with an ASCII text field filling the rest of the payload. The set encodes a message into
a frame (:mod:`drivers.wire.frame`) and decodes a frame back, naming what was wrong.

The two protocols differ in one point, on purpose: a sensor node refuses a text byte that
is not ASCII, while the shoe's receiver never fails on text and shows a byte outside
printable ASCII as "?" (a card code garbled on the shoe's own wire still reaches the
dealer to confirm).
"""

from __future__ import annotations

import dataclasses
import re
import struct
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final, TypeVar

from drivers.wire.frame import MAX_PAYLOAD, Frame, WireError, encode

_WIDTH: Final = {"B": "u8", "H": "u16", "I": "u32"}
_LIMIT: Final = {"B": 0xFF, "H": 0xFFFF, "I": 0xFFFF_FFFF}


class Message:
    """A protocol message; each subclass is declared once, with its code and layout."""

    __slots__ = ()

    NAME: ClassVar[str]
    CODE: ClassVar[int]
    FORMAT: ClassVar[str]
    """struct format of the fixed fields (little-endian), without the text."""
    FIELDS: ClassVar[tuple[str, ...]]
    """The fixed fields in wire order."""
    TEXT: ClassVar[str | None]
    """The name of the last field when it is ASCII text filling the rest of the payload."""
    TO_DEVICE: ClassVar[bool]
    """True for the host's commands (type codes below 0x80), False for the device's."""


_M = TypeVar("_M", bound=type[Message])


class MessageSet:
    """A protocol's messages by type code; `printable_text` decodes text leniently."""

    def __init__(self, *, printable_text: bool = False) -> None:
        self._by_code: dict[int, type[Message]] = {}
        self._printable_text = printable_text

    def message(self, code: int, layout: str, *, name: str | None = None,
                text: str | None = None) -> Callable[[_M], _M]:
        """Register a message class under `code`: `layout` has one struct letter per fixed
        field; `text` names the last field if it is text (a last field called "text" is,
        by default); `name` defaults to the class name in capitals (HelloReq: HELLO_REQ)."""

        def register(cls: _M) -> _M:
            names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
            text_field = text if text is not None else (
                "text" if names[-1:] == ("text",) else None)
            fixed = names[:-1] if text_field is not None else names
            if (len(layout) != len(fixed) or set(layout) - set(_WIDTH)
                    or code in self._by_code
                    or (text_field is not None and names[-1] != text_field)):
                raise TypeError(f"{cls.__name__}: layout {layout!r} does not fit fields "
                                f"{fixed}")
            cls.NAME = name or re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).upper()
            cls.CODE = code
            cls.FORMAT = "<" + layout
            cls.FIELDS = fixed
            cls.TEXT = text_field
            cls.TO_DEVICE = code < 0x80
            self._by_code[code] = cls
            return cls

        return register

    def table(self) -> Mapping[int, type[Message]]:
        """Every message class by its type code."""
        return dict(self._by_code)

    def encode(self, message: Message, seq: int) -> bytes:
        """The frame carrying `message` with sequence number `seq`."""
        cls = type(message)
        values = []
        for name, letter in zip(cls.FIELDS, cls.FORMAT[1:], strict=True):
            value = getattr(message, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise WireError(f"{cls.NAME}.{name} must be an integer, not {value!r}",
                                reason="range")
            if not 0 <= value <= _LIMIT[letter]:
                raise WireError(f"{cls.NAME}.{name}={value} does not fit {_WIDTH[letter]} "
                                f"(0..{_LIMIT[letter]})", reason="range")
            values.append(value)
        payload = struct.pack(cls.FORMAT, *values)
        if cls.TEXT is not None:
            text = getattr(message, cls.TEXT)
            if not isinstance(text, str) or not text.isascii():
                raise WireError(f"{cls.NAME}.{cls.TEXT} must be ASCII, not {text!r}",
                                reason="text")
            payload += text.encode("ascii")
        if len(payload) > MAX_PAYLOAD:
            raise WireError(f"{cls.NAME} payload is {len(payload)} bytes, at most "
                            f"{MAX_PAYLOAD} fit a frame", reason="length")
        return encode(cls.CODE, seq, payload)

    def decode(self, frame: Frame) -> Message:
        """The message a frame carries; WireError names an unknown type or a bad payload."""
        cls = self._by_code.get(frame.type)
        if cls is None:
            raise WireError(f"unknown message type 0x{frame.type:02x}", reason="type")
        size = struct.calcsize(cls.FORMAT)
        payload = frame.payload
        if len(payload) != size and not (cls.TEXT is not None and len(payload) >= size):
            want = f"at least {size}" if cls.TEXT is not None else str(size)
            raise WireError(f"{cls.NAME} payload is {len(payload)} bytes, expected {want}",
                            reason="payload")
        values: dict[str, Any] = dict(
            zip(cls.FIELDS, struct.unpack_from(cls.FORMAT, payload), strict=True))
        if cls.TEXT is not None:
            values[cls.TEXT] = self._text(cls, payload[size:])
        return cls(**values)

    def _text(self, cls: type[Message], raw: bytes) -> str:
        if self._printable_text:
            return "".join(chr(b) if 0x20 <= b <= 0x7E else "?" for b in raw)
        try:
            return raw.decode("ascii")
        except UnicodeDecodeError as exc:
            raise WireError(f"{cls.NAME} text is not ASCII: {raw!r}", reason="text") from exc
