"""A dealer shoe in Python on a pseudo-terminal: the shoe's fake backend, with fault knobs.

:class:`FakeShoe` follows docs/shoe.md from the device's side: HELLO (taking the
host's last card as acknowledged), QUERY, NEW_SHOE, RESEND, ACK, the response cache,
the queue of unacknowledged cards resent every ``retransmit_ms``, STATUS sent unasked
when the state changes, and a gate that locks while the queue is full. It deals a
given sequence of cards or a seeded shuffle of N packs, one card per :meth:`draw`.
The simulated card table deals from it, so it is a product, not a test helper.

The host opens :attr:`FakeShoe.port`, the end of a
:class:`~drivers.wire.cable.FaultyCable` (``cable``) whose knobs corrupt bytes, drop
frames, stall and unplug. The shoe's own knobs: ``drop_bytes`` and ``corrupt_crc``
(chances per byte and per frame it sends), and one-shot faults for the next card
drawn: :meth:`duplicate_next`, :meth:`lose_next`, :meth:`skip_next`,
:meth:`misread_next`; the dealer's troubles: :meth:`jam`, :meth:`open_door`.

Example:
    >>> from drivers.shoe.shoe import DealerShoe
    >>> from drivers.wire.fake import Recorder
    >>> cards = Recorder[str]()
    >>> with FakeShoe(["AS", "10H", "KD"]) as fake, DealerShoe(
    ...     fake.port, on_card=lambda card: cards(card.code)
    ... ) as shoe:
    ...     shoe.wait_ready(WAIT).maker
    ...     fake.draw(3)
    ...     cards.wait_for(3)
    'Hoyle'
    ['AS', '10H', 'KD']
    ['AS', '10H', 'KD']
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import random
import select
import threading
import time
import tty
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from drivers.closing import Closeable
from drivers.errors import LinkTimeout
from drivers.shoe.cards import MAX_PACKS, packs_of
from drivers.shoe.protocol import (
    NO_COMMAND,
    PROTOCOL_VERSION,
    Ack,
    Card,
    DeviceKind,
    Hello,
    HelloReq,
    Message,
    Nack,
    NackCode,
    NewShoe,
    PackEnd,
    Query,
    Resend,
    ShoeState,
    Status,
    decode_message,
    encode_message,
)
from drivers.wire.cable import Faults, FaultyCable
from drivers.wire.frame import Frame, FrameReceiver, WireError

__all__ = ["CAPACITY", "WAIT", "Draw", "FakeShoe"]

WAIT: Final = 10.0
"""Seconds the waits here allow by default: generous, only a failure waits this long."""
CAPACITY: Final = 64
"""Unacknowledged cards a shoe keeps before it locks its gate."""
_TIME_MOD: Final = 1 << 32
_IDLE: Final = 0.02
_READ_MAX: Final = 4096

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Draw:
    """A card the fake shoe dealt: its number, its code as sent, when it first went out."""

    seq: int
    code: str
    sent_at: float
    """``time.monotonic()`` when its frame was first written."""


class FakeShoe(Closeable):
    """A scripted shoe (or, with ``kind``, shuffler) speaking docs/shoe.md on a pty.

    ``cards`` is the shoe as loaded, first card first; without it the shoe holds a
    shuffle of ``packs`` packs drawn from ``seed`` (as after NEW_SHOE). ``cut_card``:
    the cut card comes out when that many cards are left (None: no cut card).
    ``line`` sets the cable's faults both ways; the cable is :attr:`cable`.
    """

    def __init__(
        self,
        cards: Sequence[str] | None = None,
        *,
        packs: int = 1,
        seed: int = 0,
        cut_card: int | None = None,
        kind: DeviceKind = DeviceKind.SHOE,
        boot_id: int = 0x5E0E_0001,
        maker: str = "Hoyle",
        serial: str = "SIM-0001",
        protocol: int = PROTOCOL_VERSION,
        retransmit_ms: int = 50,
        capacity: int = CAPACITY,
        line: Faults | None = None,
        drop_bytes: float = 0.0,
        corrupt_crc: float = 0.0,
    ) -> None:
        """Load the shoe, open the pty and the cable, and start the shoe's thread."""
        self.kind: Final = kind
        self.boot_id: Final = boot_id
        self.identity: Final = f"{maker}|{serial}"
        self.protocol: Final = protocol
        self.retransmit_ms = retransmit_ms
        self.capacity = capacity
        self.drop_bytes = drop_bytes
        """Chance that a byte the shoe sends is lost."""
        self.corrupt_crc = corrupt_crc
        """Chance that a frame the shoe sends has a wrong CRC."""
        self.cut_card = cut_card
        self._rng = random.Random(seed)
        self._cond = threading.Condition()
        self._t0 = time.monotonic()
        self._shoe: deque[str] = deque()
        self._packs = packs
        self._cut = False
        self._dealt = 0
        self._pending: deque[str | None] = deque()
        self._queue: list[tuple[int, bytes]] = []
        self._next_seq = 1
        self._since_end = 0
        self._jam: str | None = None
        self._door_open = False
        self._sent_status: tuple[int, int, str] | None = None
        self._retransmit_at = 0.0
        self._outbox = bytearray()
        self._last: tuple[int, int, bytes, bytes] | None = None
        self._mismatch = False
        self._one_shot: dict[str, str | bool] = {}
        self._history: list[Draw] = []
        self.from_host: list[tuple[int, Message]] = []
        """Every message the host sent, with its frame SEQ, in order."""
        self._receiver = FrameReceiver()
        self._stopping = False
        if cards is None:
            self._load(packs)
        else:
            self._shoe.extend(cards)
        self._master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(self._master, False)
        # Kept open so the master never reads a hang-up while the cable reopens its end.
        self._slave = slave
        self._wake_r, self._wake_w = os.pipe()
        try:
            self.cable: Final = FaultyCable(os.ttyname(slave), faults=line, seed=seed)
        except BaseException:
            for fd in (self._master, self._slave, self._wake_r, self._wake_w):
                os.close(fd)
            raise
        self.port: Final = self.cable.port
        """The host's serial port: the cable's end."""
        self._thread = threading.Thread(target=self._run, name="hoyle-fake-shoe", daemon=True)
        self._thread.start()

    # --- the dealer's side -------------------------------------------------------------

    def draw(self, count: int = 1) -> list[str]:
        """The dealer draws ``count`` cards (fewer if the shoe runs out); their codes.

        They go out as fast as the gate allows: a jam, an open door or a full queue
        holds them until cleared.
        """
        with self._cond:
            taken = [self._shoe.popleft() for _ in range(min(count, len(self._shoe)))]
        self._put(taken)
        return taken

    def _put(self, items: Iterable[str | None]) -> None:
        """Items to go out as the gate allows: a code is a card, None a PACK_END."""
        with self._cond:
            self._pending.extend(items)
        self._wake()

    def load(self, cards: Sequence[str], *, packs: int = 1) -> None:
        """The dealer loads ``cards`` (``packs`` packs' worth), first card first."""
        with self._cond:
            self._shoe = deque(cards)
            self._packs, self._dealt, self._cut = packs, 0, False
        self._wake()

    @property
    def remaining(self) -> int:
        """Cards still in the shoe (not yet drawn)."""
        with self._cond:
            return len(self._shoe)

    @property
    def unacked(self) -> int:
        """Cards sent and not yet acknowledged."""
        with self._cond:
            return len(self._queue)

    def history(self) -> list[Draw]:
        """Every card dealt so far, in order."""
        with self._cond:
            return list(self._history)

    def wait_drawn(self, count: int, timeout: float = WAIT) -> list[Draw]:
        """Wait until ``count`` cards have gone out; LinkTimeout after ``timeout``."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._history) >= count, timeout):
                raise LinkTimeout(
                    f"fake shoe dealt {len(self._history)} cards in {timeout:g} s, not {count}"
                )
            return list(self._history)

    def wait_acked(self, timeout: float = WAIT) -> None:
        """Wait until nothing is left to draw and every card is acknowledged."""
        with self._cond:
            if not self._cond.wait_for(lambda: not self._queue and not self._pending, timeout):
                raise LinkTimeout(
                    f"fake shoe still holds {len(self._queue)} unacknowledged cards and "
                    f"{len(self._pending)} to draw after {timeout:g} s"
                )

    def jam(self, detail: str = "card stuck at the reader") -> None:
        """A card sticks: nothing is drawn until :meth:`clear_jam`."""
        with self._cond:
            self._jam = detail
        self._wake()

    def clear_jam(self) -> None:
        """The dealer freed the stuck card."""
        with self._cond:
            self._jam = None
        self._wake()

    def open_door(self) -> None:
        """The loading door opens: nothing is drawn until :meth:`close_door`."""
        with self._cond:
            self._door_open = True
        self._wake()

    def close_door(self) -> None:
        """The loading door closes."""
        with self._cond:
            self._door_open = False
        self._wake()

    # --- one-shot faults on the next card drawn ----------------------------------------

    def duplicate_next(self) -> None:
        """The next card's frame goes out twice."""
        self._arm("duplicate", True)

    def lose_next(self) -> None:
        """The next card's first sending is lost (it comes again on a resend)."""
        self._arm("lose", True)

    def skip_next(self) -> None:
        """The shoe skips a sequence number before the next card (a firmware fault)."""
        self._arm("skip", True)

    def misread_next(self, code: str = "ZZ") -> None:
        """The next card goes out with ``code`` instead of its own (a misread)."""
        self._arm("misread", code)

    def _arm(self, what: str, value: str | bool) -> None:
        with self._cond:
            self._one_shot[what] = value

    # --- the line: stall and unplug are the cable's -------------------------------------

    def stall(self, seconds: float) -> None:
        """Hold all traffic, both ways, for ``seconds``."""
        self.cable.stall(seconds)

    def unplug(self) -> None:
        """Pull the USB cable: the host's port fails and vanishes."""
        self.cable.unplug()

    def replug(self) -> None:
        """Plug it back in, under the same port path."""
        self.cable.replug()

    def close(self) -> None:
        """Stop the shoe (bounded wait), the cable, and close the pty."""
        with self._cond:
            self._stopping = True
        self._wake()
        if self._thread.ident is not None:
            self._thread.join(WAIT)
        self.cable.close()
        for fd in (self._master, self._slave, self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __repr__(self) -> str:
        return f"FakeShoe({self.port!r}, remaining={self.remaining})"

    # --- the shoe's thread -------------------------------------------------------------

    def now_ms(self) -> int:
        """The shoe's clock: ms since it started, modulo 2**32."""
        return int((time.monotonic() - self._t0) * 1000) % _TIME_MOD

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")

    def _run(self) -> None:
        try:
            while self._step():
                pass
        except Exception:
            _log.exception("fake shoe failed; it is dead")

    def _step(self) -> bool:
        with self._cond:
            if self._stopping:
                return False
            writing = bool(self._outbox)
        readable, writable, _ = select.select(
            [self._master, self._wake_r], [self._master] if writing else [], [], _IDLE
        )
        if self._wake_r in readable:
            os.read(self._wake_r, _READ_MAX)
        data = b""
        if self._master in readable:
            with contextlib.suppress(BlockingIOError):
                try:
                    data = os.read(self._master, _READ_MAX)
                except OSError as exc:
                    if exc.errno != errno.EIO:
                        raise
        with self._cond:
            for frame in self._receiver.feed(data):
                self._handle(frame)
            self._deal()
            self._retransmit()
            self._report_state()
            self._cond.notify_all()
        if writable or self._outbox:
            self._flush()
        return True

    def _flush(self) -> None:
        with self._cond:
            data = bytes(self._outbox)
        try:
            sent = os.write(self._master, data)
        except BlockingIOError:
            return
        with self._cond:
            del self._outbox[:sent]

    # --- the protocol (called with the condition held) ---------------------------------

    def _handle(self, frame: Frame) -> None:
        seq = frame.seq
        try:
            message = decode_message(frame)
        except WireError as exc:
            code = NackCode.UNKNOWN_TYPE if exc.reason == "type" else NackCode.BAD_PAYLOAD
            self._send(encode_message(Nack(code, str(exc)[:56]), seq))
            return
        self.from_host.append((seq, message))
        if isinstance(message, Ack):
            if not self._mismatch:
                self._acked(message.seq)
            return
        if (
            self._last is not None
            and self._last[:3] == (seq, frame.type, frame.payload)
            and not isinstance(message, HelloReq)
        ):
            self._send(self._last[3])
            return
        response = self._execute(message)
        raw = encode_message(response, seq)
        self._last = (seq, frame.type, frame.payload, raw)
        self._send(raw)
        if isinstance(message, Resend) and isinstance(response, Status):
            self._resend_from(message.seq)

    def _execute(self, message: Message) -> Message:
        if isinstance(message, HelloReq):
            self._mismatch = message.host_protocol != self.protocol
            if not self._mismatch and message.held_boot == self.boot_id:
                self._acked(message.held_seq)
            return Hello(
                self.protocol, self.kind, self.boot_id, self._oldest(), self.identity
            )
        if self._mismatch:
            return Nack(NackCode.PROTOCOL_MISMATCH, f"protocol mismatch: node {self.protocol}")
        if isinstance(message, Query):
            return self._status()
        if isinstance(message, NewShoe) and self.kind == DeviceKind.SHOE:
            if not 1 <= message.packs <= MAX_PACKS:
                return Nack(NackCode.OUT_OF_RANGE, f"packs {message.packs} out of 1..{MAX_PACKS}")
            if self._jam is not None or self._door_open:
                return Nack(NackCode.NOT_NOW, f"cannot load: {self._status().text}")
            self._pending.clear()
            self._load(message.packs)
            return self._status()
        if isinstance(message, Resend):
            held = [seq for seq, _raw in self._queue]
            if message.seq in held or (not held and message.seq == self._next_seq):
                return self._status()
            return Nack(NackCode.NOT_HELD, f"card {message.seq} not held")
        return Nack(NackCode.UNKNOWN_TYPE, f"unknown type 0x{message.CODE:02x}")

    def _load(self, packs: int) -> None:
        cards = packs_of(packs)
        self._rng.shuffle(cards)
        self._shoe = deque(cards)
        self._packs, self._dealt, self._cut = packs, 0, False

    def _oldest(self) -> int:
        return self._queue[0][0] if self._queue else self._next_seq

    def _acked(self, seq: int) -> None:
        kept = [item for item in self._queue if item[0] > seq]
        if len(kept) < len(self._queue):
            self._queue = kept
            self._retransmit_at = time.monotonic() + self.retransmit_ms / 1000

    def _state(self) -> tuple[ShoeState, str]:
        if self._jam is not None:
            return ShoeState.JAM, self._jam
        if self._door_open:
            return ShoeState.DOOR_OPEN, "loading door open"
        if self._pending and len(self._queue) >= self.capacity:
            return ShoeState.HELD, f"{len(self._queue)} cards await the host's ACK"
        if not self._shoe and not self._pending and self.kind == DeviceKind.SHOE:
            return ShoeState.EMPTY, ""
        if self._cut:
            return ShoeState.CUT_CARD, "cut card out: last hand"
        return ShoeState.LOADED, ""

    def _status(self) -> Status:
        state, text = self._state()
        return Status(state, self._packs, self._dealt % 0x10000, min(len(self._queue), 255), text)

    def _report_state(self) -> None:
        state, text = self._state()
        key = (int(state), self._packs, text)
        if key != self._sent_status:
            self._sent_status = key
            self._send(encode_message(self._status(), NO_COMMAND))

    def _deal(self) -> None:
        while (
            self._pending
            and self._jam is None
            and not self._door_open
            and len(self._queue) < self.capacity
        ):
            code = self._pending.popleft()
            if self._one_shot.pop("skip", False):
                self._next_seq += 1
            seq, self._next_seq = self._next_seq, self._next_seq + 1
            message: Message
            if code is None:
                message = PackEnd(seq, self.now_ms(), self._since_end)
                self._since_end = 0
            else:
                misread = self._one_shot.pop("misread", None)
                sent = misread if isinstance(misread, str) else code
                message = Card(seq, self.now_ms(), sent)
                self._dealt += 1
                self._since_end += 1
                self._history.append(Draw(seq, sent, time.monotonic()))
                if self.cut_card is not None and len(self._shoe) + len(self._pending) <= (
                    self.cut_card
                ):
                    self._cut = True
            raw = encode_message(message, seq & 0xFFFF)
            if not self._queue:
                self._retransmit_at = time.monotonic() + self.retransmit_ms / 1000
            self._queue.append((seq, raw))
            if not self._one_shot.pop("lose", False):
                self._send(raw)
                if self._one_shot.pop("duplicate", False):
                    self._send(raw)

    def _retransmit(self) -> None:
        now = time.monotonic()
        # A resend waits for the last sending to leave: a stalled line does not pile up.
        if self._queue and now >= self._retransmit_at and not self._outbox:
            self._resend_from(self._queue[0][0])

    def _resend_from(self, seq: int) -> None:
        for held, raw in self._queue:
            if held >= seq:
                self._send(raw)
        self._retransmit_at = time.monotonic() + self.retransmit_ms / 1000

    def _send(self, raw: bytes) -> None:
        data = bytearray(raw)
        if self.corrupt_crc and self._rng.random() < self.corrupt_crc:
            data[-2] ^= 0x01
        if self.drop_bytes:
            data = bytearray(b for b in data if self._rng.random() >= self.drop_bytes)
        self._outbox += data
