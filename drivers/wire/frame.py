"""Framing of the sensor-node wire protocol: length, sequence, type, payload, CRC, sync.

Every message between the host and a sensor node travels in one frame::

    LEN u8 | SEQ u16 LE | TYPE u8 | PAYLOAD (LEN - 7 bytes) | CRC u16 BE | SYNC 0x7E

``LEN`` counts the whole frame (7..64 bytes); the CRC is CRC-16/CCITT-FALSE over
``LEN`` to the end of the payload. :class:`FrameReceiver` finds frames in a noisy byte
stream exactly as the protocol prescribes, so a frame that starts inside garbage is
still found and a torn frame costs only itself.

Example:
    >>> raw = encode(0x04, 7)
    >>> raw.hex(" ")
    '07 07 00 04 10 f9 7e'
    >>> receiver = FrameReceiver()
    >>> receiver.feed(b"\\x00noise" + raw[:3]), receiver.feed(raw[3:])
    ([], [Frame(type=4, seq=7, payload=b'')])
"""

from __future__ import annotations

import binascii
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from drivers.errors import DriverError

__all__ = [
    "MAX_LEN",
    "MAX_PAYLOAD",
    "MIN_LEN",
    "SEQ_MOD",
    "STALE_AFTER",
    "SYNC",
    "Frame",
    "FrameReceiver",
    "WireError",
    "crc16",
    "decode",
    "encode",
]

MIN_LEN: Final = 7
MAX_LEN: Final = 64
MAX_PAYLOAD: Final = MAX_LEN - MIN_LEN
SYNC: Final = 0x7E
CRC_INIT: Final = 0xFFFF
SEQ_MOD: Final = 1 << 16
"""Sequence numbers are a u16: they count modulo this."""
STALE_AFTER: Final = 0.05
"""Seconds after which buffered bytes that have not formed a frame are given up."""


class WireError(DriverError, ValueError):
    """Bytes or a message that break the wire protocol.

    ``reason`` is a short fixed word for the rule broken ("length", "sync", "crc",
    "type", "payload", "text", "range"); the message says what exactly was wrong.
    """

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason: Final = reason


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame as received: its message type, sequence number and payload bytes."""

    type: int
    seq: int
    payload: bytes


def seq_in_run(first: int, seq: int, last: int) -> bool:
    """Whether report number ``seq`` lies from ``first`` to ``last`` (both counted), the
    numbers wrapping at SEQ_MOD; a run longer than half the numbers is taken as empty."""
    span = (last - first) % SEQ_MOD
    return span < SEQ_MOD // 2 and (seq - first) % SEQ_MOD <= span


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection) of ``data``."""
    return binascii.crc_hqx(data, CRC_INIT)


def encode(type_: int, seq: int, payload: bytes = b"") -> bytes:
    """The frame carrying ``payload`` as message ``type_`` with sequence number ``seq``."""
    if not 0 <= type_ <= 0xFF:
        raise WireError(f"message type {type_} does not fit a byte", reason="range")
    if not 0 <= seq <= 0xFFFF:
        raise WireError(f"sequence number {seq} is outside 0..65535", reason="range")
    if len(payload) > MAX_PAYLOAD:
        raise WireError(
            f"payload of {len(payload)} bytes is longer than {MAX_PAYLOAD}", reason="length"
        )
    head = bytes((len(payload) + MIN_LEN,)) + seq.to_bytes(2, "little") + bytes((type_,))
    head += payload
    return head + crc16(head).to_bytes(2, "big") + bytes((SYNC,))


def _check(data: bytes | bytearray, length: int) -> str | None:
    """Why the ``length`` bytes at the start of ``data`` are not a frame, or None if they are."""
    if data[length - 1] != SYNC:
        return "sync"
    if crc16(bytes(data[: length - 3])) != int.from_bytes(data[length - 3 : length - 1], "big"):
        return "crc"
    return None


def _frame_at_start(data: bytes | bytearray, length: int) -> Frame:
    return Frame(
        type=data[3],
        seq=int.from_bytes(data[1:3], "little"),
        payload=bytes(data[4 : length - 3]),
    )


def decode(data: bytes) -> Frame:
    """The one frame that is exactly ``data``; WireError names what is wrong otherwise."""
    if not data:
        raise WireError("no bytes: a frame is at least 7 bytes", reason="length")
    length = data[0]
    if not MIN_LEN <= length <= MAX_LEN:
        raise WireError(f"LEN {length} is outside {MIN_LEN}..{MAX_LEN}", reason="length")
    if len(data) != length:
        raise WireError(f"LEN says {length} bytes but the frame has {len(data)}", reason="length")
    why = _check(data, length)
    if why == "sync":
        raise WireError(f"last byte is 0x{data[-1]:02x}, not the sync byte 0x7e", reason="sync")
    if why == "crc":
        got = int.from_bytes(data[-3:-1], "big")
        want = crc16(data[:-3])
        raise WireError(f"CRC 0x{got:04x} does not match 0x{want:04x}", reason="crc")
    return _frame_at_start(data, length)


class FrameReceiver:
    """Finds frames in a byte stream that may carry noise, torn frames and stale bytes.

    At the buffer's start: a LEN outside 7..64 drops one byte; too few bytes waits for
    more; a bad sync byte or CRC drops one byte and counts a framing error (so a frame
    that begins inside garbage is still found). Bytes that have waited ``stale_after``
    seconds without forming a frame are dropped one at a time (one framing error for
    the lot), so a stray length byte cannot hold up the frames behind it for long; call
    ``feed(b"")`` on a quiet line to apply that rule. Not thread-safe: one reader feeds it.
    """

    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, stale_after: float = STALE_AFTER
    ) -> None:
        """Start with an empty buffer; ``clock`` dates arriving bytes for the stale rule."""
        self._clock = clock
        self._stale_after = stale_after
        self._buffer = bytearray()
        # (bytes still buffered from one feed, when they arrived), oldest first.
        self._arrivals: deque[list[float]] = deque()
        self.framing_errors = 0
        """Frames rejected for a bad sync byte or CRC, plus stale bytes given up."""
        self.dropped_bytes = 0
        """Bytes thrown away because they did not form a frame."""

    @property
    def buffered(self) -> int:
        """Bytes waiting to form a frame."""
        return len(self._buffer)

    def feed(self, data: bytes = b"") -> list[Frame]:
        """Add ``data`` (may be empty, to apply the stale rule) and return the frames completed."""
        now = self._clock()
        if data:
            self._buffer += data
            self._arrivals.append([len(data), now])
        frames = self._scan()
        stale = False
        while self._buffer and now - self._arrivals[0][1] >= self._stale_after:
            # One framing error for a whole stale fragment, however many bytes it had.
            if not stale:
                self.framing_errors += 1
                stale = True
            self._drop(1)
            frames += self._scan()
        return frames

    def clear(self) -> None:
        """Forget the bytes buffered (the port was reopened); the counters are kept."""
        self._drop(len(self._buffer))

    def _scan(self) -> list[Frame]:
        frames: list[Frame] = []
        buffer = self._buffer
        while buffer:
            length = buffer[0]
            if not MIN_LEN <= length <= MAX_LEN:
                self._drop(1)
                continue
            if len(buffer) < length:
                break
            if _check(buffer, length) is not None:
                self._drop(1)
                self.framing_errors += 1
                continue
            frames.append(_frame_at_start(buffer, length))
            self._drop(length, consumed=True)
        return frames

    def _drop(self, count: int, *, consumed: bool = False) -> None:
        del self._buffer[:count]
        if not consumed:
            self.dropped_bytes += count
        while count:
            head = self._arrivals[0]
            taken = min(count, int(head[0]))
            head[0] -= taken
            count -= taken
            if not head[0]:
                self._arrivals.popleft()
