"""A scripted sensor node and an in-memory USB cable: the wire's fake backend, with fault knobs.

:class:`FakeNode` follows the protocol spec (firmware/PROTOCOL.md) in plain Python:
IDENTIFY, CONFIG, PING, RESET, QUERY, the cached response, the report queue with
go-back-N retransmission and cumulative ACKs, SHUTDOWN. Its inputs are set directly
(no debouncing: :meth:`FakeNode.set` is a debounced change). :class:`Cable` stands in
for ``serial.Serial`` so a :class:`~drivers.wire.link.NodeLink` talks to the node
without a port; :meth:`Cable.unplug` makes the port fail as a pulled USB cable does.

Fault knobs: ``FakeNode.faults`` rewrites every frame the node sends (see
:func:`lose_first_sending`, :func:`duplicated`, :func:`swapped_pairs`,
:func:`with_noise`, :func:`combined`); ``FakeNode.mute`` stops it answering commands;
``Cable.unplug``/``Cable.plug`` (optionally with another node: a reboot).

The recorders and waits at the end (:class:`Reports`, :class:`Recorder`,
:func:`wait_until`, :func:`wait_state`) are what a test or a bench needs to watch a
link; each wait is bounded and raises :class:`~drivers.errors.LinkTimeout`.

Example:
    >>> node = FakeNode()
    >>> reports = Reports()
    >>> with NodeLink("fake0", on_report=reports, serial_factory=Cable(node).serial) as link:
    ...     link.wait_ready(WAIT)
    ...     node.set(11, 1)
    ...     reports.wait_for(13)[-1]
    'running'
    (11, 1)
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Final, Generic, TypeAlias, TypeVar

import serial

from drivers.errors import LinkTimeout
from drivers.lanetracker import BallRead, LaneReading
from drivers.wire.frame import SEQ_MOD, FrameReceiver, WireError
from drivers.wire.link import LinkState, NodeLink
from drivers.wire.messages import (
    CONFIG_BOUNDS,
    PROTOCOL_VERSION,
    Ack,
    Config,
    ConfigOk,
    Identify,
    IdentifyReq,
    Message,
    Nack,
    NackCode,
    NodeType,
    Ping,
    Pong,
    QueryOk,
    Report,
    Reset,
    ResetOk,
    Shutdown,
    decode_message,
    encode_message,
)

__all__ = [
    "WAIT",
    "Cable",
    "FakeNode",
    "FakeSerial",
    "Fault",
    "Recorder",
    "Reports",
    "combined",
    "duplicated",
    "lane_summary",
    "lose_first_sending",
    "reports_held",
    "swapped_pairs",
    "wait_state",
    "wait_until",
    "with_noise",
]

WAIT: Final = 10.0
"""Seconds the waits here allow by default: generous, only a failure waits this long."""
_TIME_MOD: Final = 1 << 32

Fault: TypeAlias = Callable[[bytes], list[bytes]]
"""Rewrites one frame a node sends into the byte strings that go out instead."""

T = TypeVar("T")


class FakeNode:
    """A sensor node that follows the protocol spec, at the far end of a fake serial line.

    The owner drives its inputs (:meth:`set`) and its fault knobs (``faults`` rewrites
    every frame it sends; ``mute`` stops it answering commands). The transport hands it
    the host's bytes (:meth:`receive`), runs its timers (:meth:`tick`) and takes what it
    sends (:meth:`take`). Its clock is ms since start, modulo 2**32, from ``start_ms``.
    """

    def __init__(
        self,
        *,
        node_type: int = NodeType.PIN_DECK,
        inputs: int = 12,
        protocol: int = PROTOCOL_VERSION,
        boot_id: int = 0xB0071D,
        start_ms: int = 0,
        bounds: dict[int, tuple[str, int, int]] | None = None,
    ) -> None:
        """A running node of ``node_type`` with ``inputs`` inputs, all 0."""
        self.node_type = node_type
        self.protocol = protocol
        self.boot_id = boot_id
        # A transport that waits on a condition of its own shares it as the lock, so the
        # owner's thread and the host's threads take one lock, never two in either order.
        self.lock: contextlib.AbstractContextManager[Any] = threading.RLock()
        self.wake: Callable[[], None] = lambda: None
        self.values = dict.fromkeys(range(1, inputs + 1), 0)
        self.since = dict.fromkeys(range(1, inputs + 1), start_ms)
        self.config = {int(key): b.default for key, b in CONFIG_BOUNDS.items()}
        self.bounds = bounds or {
            int(key): (key.name.lower(), b.low, b.high) for key, b in CONFIG_BOUNDS.items()
        }
        self.faults: Fault | None = None
        self.mute = False
        self.from_host: list[tuple[int, Message]] = []
        self.executed: list[str] = []
        self._start_ms = start_ms
        self._t0 = time.monotonic()
        self._receiver = FrameReceiver()
        self._next_seq = 0
        self._queue: list[tuple[int, bytes]] = []
        self._last: tuple[int, int, bytes, bytes] | None = None
        self._mismatch = False
        self._shutdown: tuple[int, str] | None = None
        self._shutdown_due = 0
        self._retransmit_from = 0
        self._outbox = bytearray()
        self._batch: list[bytes] | None = None

    # --- the owner's side ------------------------------------------------------------

    def now_ms(self) -> int:
        """The node's clock: ms since start, modulo 2**32."""
        return (self._start_ms + int((time.monotonic() - self._t0) * 1000)) % _TIME_MOD

    def set(self, number: int, value: int, *, at_ms: int | None = None) -> None:
        """The input's debounced value changes (at node time ``at_ms``, default now)."""
        with self.lock:
            if self.values[number] == value:
                return
            self.values[number] = value
            self.since[number] = self.now_ms() if at_ms is None else at_ms
            self._report(number, value, self.since[number])

    def pulse(self, number: int) -> None:
        """The input goes to 1 and back to 0."""
        self.set(number, 1)
        self.set(number, 0)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Everything sent inside goes out in one write (one USB packet)."""
        with self.lock:
            self._batch = []
            try:
                yield
            finally:
                sent, self._batch = self._batch, None
                self._emit(b"".join(sent))

    def shut_down(self, code: int, text: str) -> None:
        """Enter shutdown with ``code`` and ``text``, as on impossible input."""
        with self.lock:
            self._shutdown = (code, text)
            self._shutdown_due = self.now_ms()
            self.tick()

    @property
    def unacked(self) -> int:
        """Reports queued, waiting for an ACK."""
        with self.lock:
            return len(self._queue)

    def acks(self) -> list[int]:
        """The SEQ of every ACK the host sent, in order."""
        with self.lock:
            return [seq for seq, message in self.from_host if isinstance(message, Ack)]

    def commands(self) -> list[tuple[int, str]]:
        """Every command the host sent (retries included), as (SEQ, name)."""
        with self.lock:
            return [(s, m.NAME) for s, m in self.from_host if not isinstance(m, Ack)]

    # --- the transport's side --------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Bytes from the host."""
        with self.lock:
            for frame in self._receiver.feed(data):
                try:
                    message = decode_message(frame)
                except WireError as exc:
                    code = NackCode.UNKNOWN_TYPE if exc.reason == "type" else (
                        NackCode.BAD_PAYLOAD_LENGTH
                    )
                    self._send(encode_message(Nack(code=code, text=str(exc)[:56]), frame.seq))
                    continue
                self.from_host.append((frame.seq, message))
                self._handle(frame.seq, frame.type, frame.payload, message)

    def tick(self) -> None:
        """Run the timers: retransmit the queue, repeat SHUTDOWN."""
        with self.lock:
            now = self.now_ms()
            if self._queue and now - self._retransmit_from >= self.config[2]:
                for _seq, raw in self._queue:
                    self._send(raw)
                self._retransmit_from = now
            if self._shutdown is not None and now >= self._shutdown_due:
                code, text = self._shutdown
                self._send(encode_message(Shutdown(code=code, text=text), 0))
                self._shutdown_due = now + 1000

    def take(self, size: int) -> bytes:
        """Up to ``size`` bytes the node has sent."""
        with self.lock:
            data = bytes(self._outbox[:size])
            del self._outbox[:size]
            return data

    def pending(self) -> int:
        """Bytes sent and not yet taken."""
        with self.lock:
            return len(self._outbox)

    def lose_output(self) -> None:
        """The bytes in flight are lost (the cable was pulled)."""
        with self.lock:
            self._outbox.clear()

    # --- the protocol ----------------------------------------------------------------

    def _handle(self, seq: int, type_: int, payload: bytes, message: Message) -> None:
        if isinstance(message, Ack):
            if not self._mismatch and self._queue:
                covered = (seq - self._queue[0][0]) % SEQ_MOD
                if covered < len(self._queue):
                    del self._queue[: covered + 1]
                    self._retransmit_from = self.now_ms()
            return
        if self.mute:
            return
        if self._last is not None and self._last[:3] == (seq, type_, payload):
            self._send(self._last[3])
            return
        response = self._execute(message)
        raw = encode_message(response, seq)
        self._last = (seq, type_, payload, raw)
        self._send(raw)
        if isinstance(response, QueryOk):
            for number, value in self.values.items():
                self._report(number, value, self.since[number])

    def _execute(self, message: Message) -> Message:
        self.executed.append(message.NAME)
        if self._mismatch and not isinstance(message, IdentifyReq):
            return Nack(code=NackCode.PROTOCOL_MISMATCH, text="protocol mismatch")
        if not message.TO_DEVICE or isinstance(message, Ack):
            return Nack(code=NackCode.UNKNOWN_TYPE, text=f"unknown type 0x{message.CODE:02x}")
        if self._shutdown is not None and not isinstance(message, IdentifyReq | Ping | Reset):
            return Nack(code=NackCode.NODE_IS_SHUT_DOWN, text="shut down: " + self._shutdown[1])
        if isinstance(message, IdentifyReq):
            self._mismatch = message.host_protocol != self.protocol
            return Identify(
                protocol=self.protocol,
                node_type=self.node_type,
                fw_major=1,
                fw_minor=2,
                fw_patch=3,
                boot_id=self.boot_id,
                next_report=self._queue[0][0] if self._queue else self._next_seq,
                inputs=len(self.values),
            )
        if isinstance(message, Config):
            if message.key not in self.bounds:
                return Nack(code=NackCode.VALUE_OUT_OF_BOUNDS, text=f"unknown key {message.key}")
            name, low, high = self.bounds[message.key]
            if not low <= message.value <= high:
                text = f"{name} {message.value} out of {low}..{high}"
                return Nack(code=NackCode.VALUE_OUT_OF_BOUNDS, text=text)
            self.config[message.key] = message.value
            return ConfigOk(key=message.key, value=message.value)
        if isinstance(message, Ping):
            return Pong(
                uptime_ms=self.now_ms(), unacked=len(self._queue), state=int(bool(self._shutdown))
            )
        if isinstance(message, Reset):
            self._shutdown = None
            self._queue.clear()
            return ResetOk()
        return QueryOk()

    def _report(self, number: int, value: int, time_ms: int) -> None:
        if self._shutdown is not None:
            return
        seq, self._next_seq = self._next_seq, (self._next_seq + 1) % SEQ_MOD
        raw = encode_message(Report(input=number, value=value, time_ms=time_ms), seq)
        if not self._queue:
            self._retransmit_from = self.now_ms()
        self._queue.append((seq, raw))
        self._send(raw)

    def _send(self, raw: bytes) -> None:
        for out in self.faults(raw) if self.faults else [raw]:
            if self._batch is not None:
                self._batch.append(out)
            else:
                self._emit(out)

    def _emit(self, data: bytes) -> None:
        self._outbox += data
        self.wake()


class Cable:
    """An in-memory USB cable between the host's pyserial and a :class:`FakeNode`.

    :meth:`serial` stands in for ``serial.Serial``; :meth:`unplug` makes the port
    fail (reads and writes raise, opening raises) until :meth:`plug`.
    """

    def __init__(self, node: FakeNode, *, plugged: bool = True) -> None:
        """A cable to ``node``, plugged in or not."""
        self.cond = threading.Condition()
        self.node = node
        self.plugged = plugged
        self.generation = 0
        self.opened = 0
        self._attach(node)

    def _attach(self, node: FakeNode) -> None:
        self.node = node
        node.lock = self.cond
        node.wake = self._wake

    def _wake(self) -> None:
        with self.cond:
            self.cond.notify_all()

    def serial(self, port: str, **settings: Any) -> FakeSerial:
        """Open the host's end, as ``serial.Serial(port, **settings)`` would."""
        with self.cond:
            if not self.plugged:
                raise serial.SerialException(
                    f"[Errno 2] could not open port {port}: No such file or directory"
                )
            self.opened += 1
            return FakeSerial(self, self.generation, settings["timeout"])

    def unplug(self) -> None:
        """Pull the cable: the open port fails, the bytes in flight are lost."""
        with self.cond:
            self.plugged = False
            self.generation += 1
            self.node.lose_output()
            self.cond.notify_all()

    def plug(self, node: FakeNode | None = None) -> None:
        """Plug the cable back in, into ``node`` if given (a node that rebooted)."""
        with self.cond:
            if node is not None:
                self._attach(node)
            self.plugged = True
            self.cond.notify_all()


class FakeSerial:
    """The host's end of a :class:`Cable`: the part of pyserial's API the link uses."""

    def __init__(self, cable: Cable, generation: int, timeout: float) -> None:
        """An open port on ``cable`` until the cable's ``generation`` changes."""
        self.cable = cable
        self.generation = generation
        self.timeout = timeout
        self.closed = False
        self.cancelled = False

    def _check(self) -> None:
        if self.closed:
            raise serial.SerialException("Attempting to use a port that is not open")
        if not self.cable.plugged or self.cable.generation != self.generation:
            raise serial.SerialException("device reports readiness to read but returned no data")

    @property
    def in_waiting(self) -> int:
        """Bytes the node has sent and the host not read."""
        with self.cable.cond:
            self._check()
            return self.cable.node.pending()

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes, waiting at most the timeout for the first."""
        deadline = time.monotonic() + self.timeout
        cable = self.cable
        with cable.cond:
            while True:
                self._check()
                cable.node.tick()
                if cable.node.pending():
                    return cable.node.take(size)
                left = deadline - time.monotonic()
                if left <= 0 or self.cancelled:
                    self.cancelled = False
                    return b""
                cable.cond.wait(min(left, 0.01))

    def write(self, data: bytes) -> int:
        """Hand ``data`` to the node."""
        with self.cable.cond:
            self._check()
            self.cable.node.receive(bytes(data))
            return len(data)

    def cancel_read(self) -> None:
        """Wake a read waiting for bytes."""
        with self.cable.cond:
            self.cancelled = True
            self.cable.cond.notify_all()

    def close(self) -> None:
        """Close the host's end."""
        self.closed = True


# --- fault knobs: values for FakeNode.faults ----------------------------------------------


def lose_first_sending() -> Fault:
    """Lose the first transmission of every report: each one arrives only when resent."""
    seen: set[bytes] = set()

    def fault(raw: bytes) -> list[bytes]:
        if raw[3] != Report.CODE or raw in seen:
            return [raw]
        seen.add(raw)
        return []

    return fault


def reports_held(until: threading.Event) -> Fault:
    """Lose every report sent before ``until`` is set: the node sends them again after."""

    def fault(raw: bytes) -> list[bytes]:
        return [] if raw[3] == Report.CODE and not until.is_set() else [raw]

    return fault


def duplicated(raw: bytes) -> list[bytes]:
    """Every frame goes out twice."""
    return [raw, raw]


def swapped_pairs() -> Fault:
    """Send every two frames the other way round."""
    held: list[bytes] = []

    def fault(raw: bytes) -> list[bytes]:
        if not held:
            held.append(raw)
            return []
        return [raw, held.pop()]

    return fault


def with_noise(raw: bytes) -> list[bytes]:
    """Garbage, including a torn frame start, in front of every frame."""
    return [b"\x0d\x7e\x00garbage" + raw[:5], raw]


def combined(*faults: Fault) -> Fault:
    """Apply ``faults`` in turn, each to every frame the one before let out."""

    def fault(raw: bytes) -> list[bytes]:
        frames = [raw]
        for each in faults:
            frames = [out for frame in frames for out in each(frame)]
        return frames

    return fault


# --- watching a link ----------------------------------------------------------------------


class Reports:
    """An ``on_report`` handler that records ``(node_type, input, value, node_ms)``."""

    def __init__(self) -> None:
        """Nothing recorded yet."""
        self.items: list[tuple[int, int, int, int]] = []
        self.threads: set[int] = set()
        self.cond = threading.Condition()

    def __call__(self, node_type: int, number: int, value: int, node_ms: int) -> None:
        with self.cond:
            self.items.append((node_type, number, value, node_ms))
            self.threads.add(threading.get_ident())
            self.cond.notify_all()

    def values(self, number: int | None = None) -> list[tuple[int, int]]:
        """``(input, value)`` of every report (of input ``number`` only, if given)."""
        with self.cond:
            return [(n, v) for _, n, v, _ in self.items if number is None or n == number]

    def count(self) -> int:
        """How many reports are recorded."""
        with self.cond:
            return len(self.items)

    def wait_count(self, count: int, timeout: float = WAIT) -> bool:
        """Wait until ``count`` reports are recorded; False on timeout."""
        with self.cond:
            return self.cond.wait_for(lambda: len(self.items) >= count, timeout)

    def wait_for(self, count: int, timeout: float = WAIT) -> list[tuple[int, int]]:
        """Wait until ``count`` reports are recorded; their ``(input, value)``."""
        if not self.wait_count(count, timeout):
            raise LinkTimeout(
                f"{self.count()} reports after {timeout:g} s, not {count}: {self.values()[-20:]}"
            )
        return self.values()


class Recorder(Generic[T]):
    """A one-argument callback (``on_reading``...) that records what it is given."""

    def __init__(self) -> None:
        """Nothing recorded yet."""
        self.items: list[T] = []
        self.cond = threading.Condition()

    def __call__(self, item: T) -> None:
        with self.cond:
            self.items.append(item)
            self.cond.notify_all()

    def wait_for(self, count: int, timeout: float = WAIT) -> list[T]:
        """Wait until ``count`` items are recorded; all of them."""
        with self.cond:
            if not self.cond.wait_for(lambda: len(self.items) >= count, timeout):
                raise LinkTimeout(
                    f"{len(self.items)} items after {timeout:g} s, not {count}: {self.items}"
                )
            return list(self.items)


def lane_summary(readings: list[LaneReading]) -> list[tuple[str, list[int], bool | None]]:
    """Lane readings without their times: (kind, pins standing, foul or None)."""
    return [
        (type(r).__name__, sorted(r.standing), r.foul if isinstance(r, BallRead) else None)
        for r in readings
    ]


def wait_until(check: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Poll ``check`` until it is true; LinkTimeout naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() >= deadline:
            raise LinkTimeout(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.005)


def wait_state(link: NodeLink, state: str, timeout: float = WAIT) -> LinkState:
    """Wait until ``link`` is in ``state``; its state then (LinkTimeout shows the last)."""
    try:
        wait_until(lambda: link.state()["state"] == state, f"{link.port} to be {state}", timeout)
    except LinkTimeout as exc:
        raise LinkTimeout(f"{exc}; its state: {link.state()}") from None
    return link.state()
