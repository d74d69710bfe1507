"""The host's end of a dealer shoe's or shuffler's USB-serial line (protocol in docs/shoe.md).

:class:`CardLink` owns a pyserial port and one reader thread that does all the talking:
HELLO on every (re)connection, telling the device the last card the host holds; CARD
and PACK_END items delivered once and in order through ``on_item`` and acknowledged
only once it returns; duplicates dropped (and acknowledged again); a gap answered with
RESEND, and if the device cannot resend, the line is unavailable with the reason, never
skipped; a QUERY every ``query_interval`` as health check; the port reopened every
``reopen_interval`` after it failed or vanished. Other threads' commands (NEW_SHOE,
QUERY) are queued for the reader thread and waited for with a bound.

:class:`~drivers.shoe.shoe.DealerShoe` and :class:`~drivers.shoe.shuffler.Shuffler` are
the devices built on it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

import serial

from drivers.closing import Closeable
from drivers.errors import BadReading, DeviceUnavailable, DriverError, LinkTimeout
from drivers.serial_ports import PORT_ERRORS, announce_state, close_quietly, port_gone
from drivers.shoe.cards import is_card
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
    PackEnd,
    Query,
    Resend,
    ShoeState,
    Status,
    code_name,
    decode_message,
    encode_message,
)
from drivers.wire.frame import FrameReceiver, WireError
from drivers.wire.messages import ProtocolMismatch, WrongNode

__all__ = [
    "BAUD_RATE",
    "CardLink",
    "CommandRefused",
    "DrawnCard",
    "HealthHandler",
    "ItemHandler",
    "LinkName",
    "PackMark",
    "ShoeHealth",
    "ShoeIdentity",
    "ShoeStatus",
    "ShoeTiming",
    "StatusHandler",
]

BAUD_RATE: Final = 115200
LinkName: TypeAlias = Literal["connecting", "running", "unavailable", "closed"]
_JOIN_TIMEOUT: Final = 5.0
_EARLY_MAX: Final = 512
"""Items held that came after a missing one: more than a full 8-pack shoe."""
_log = logging.getLogger(__name__)


class CommandRefused(DriverError, ValueError):
    """The device answered a command with NACK; ``code`` and ``text`` are its own."""

    def __init__(self, message: str, *, code: int, text: str) -> None:
        super().__init__(message)
        self.code: Final = code
        self.text: Final = text


class _Silent(DriverError):
    """The device did not answer a command through all its tries (the reader's own)."""


class _Closing(DriverError):
    """The host is closing the line: the reader thread stops where it is."""


@dataclass(frozen=True, slots=True)
class ShoeTiming:
    """The line's waits, in seconds."""

    retry_interval: float = 0.1
    """A command unanswered this long is sent again (same SEQ)..."""
    tries: int = 5
    """...this many times in all, then the device is taken as silent."""
    reopen_interval: float = 0.15
    """Pause between attempts to reopen a port that failed or vanished."""
    query_interval: float = 1.0
    """Health check (QUERY) period."""
    read_timeout: float = 0.02
    """pyserial read timeout: how often the reader thread looks up from the port."""
    write_timeout: float = 0.5
    command_wait: float = 5.0
    """How long another thread's command waits for its answer, at most."""


@dataclass(frozen=True, slots=True)
class ShoeIdentity:
    """What HELLO said: kind, protocol version, boot id, maker and serial number."""

    kind: int
    protocol: int
    boot_id: int
    maker: str
    serial: str


@dataclass(frozen=True, slots=True)
class ShoeStatus:
    """The device's own report of its state (STATUS)."""

    state: ShoeState
    packs: int
    """Packs loaded by the last NEW_SHOE."""
    dealt: int
    """Cards drawn since that NEW_SHOE."""
    unacked: int
    """Cards the device holds for want of an ACK."""
    detail: str


@dataclass(frozen=True, slots=True)
class DrawnCard:
    """One card as the shoe read it: sequence number (within ``boot_id``), code, times."""

    boot_id: int
    seq: int
    code: str
    shoe_ms: int
    """The device's clock when the card passed its reader (ms since boot, mod 2**32)."""
    received_at: float
    """Host wall-clock time (``time.time()``) the card arrived."""


@dataclass(frozen=True, slots=True)
class PackMark:
    """A shuffler's end of a pack: ``count`` cards came before it since the last one."""

    boot_id: int
    seq: int
    count: int
    shoe_ms: int
    received_at: float


@dataclass(frozen=True, slots=True)
class ShoeHealth:
    """The line's state and counters, for ``hoyle doctor`` and the dashboard."""

    port: str
    state: LinkName
    reason: str
    """Why it is not running, or what happened of note ("" when all is well)."""
    identity: ShoeIdentity | None
    shoe: ShoeStatus | None
    position: tuple[int, int] | None
    """``(boot_id, seq)`` of the last item delivered (what to resume from)."""
    delivered: int
    duplicates: int
    """Items already delivered that came again (a lost ACK, a duplicated frame)."""
    gaps: int
    """Items that came after a missing one (dropped; a RESEND fetched the missing one)."""
    resends: int
    framing_errors: int
    bad_frames: int
    """Frames with a good CRC that are no valid message from a device."""
    bad_cards: int
    """CARD frames naming no card."""
    reconnects: int
    stopped_at: int | None = None
    """The number of the card the line stopped at (it never came and cannot be had, or
    its code is no card): the dealer must show it. None while the items flow."""

    @property
    def available(self) -> bool:
        """True while the device is connected and its items flow."""
        return self.state == "running"


ItemHandler: TypeAlias = Callable[[DrawnCard | PackMark], None]
StatusHandler: TypeAlias = Callable[[ShoeStatus], None]
HealthHandler: TypeAlias = Callable[[ShoeHealth], None]


class _Command:
    """One command to send and, once the reader thread has it, its answer or error."""

    __slots__ = ("done", "error", "message", "response")

    def __init__(self, message: Message) -> None:
        self.message = message
        self.response: Message | None = None
        self.error: DriverError | None = None
        self.done = threading.Event()


def _status(message: Status) -> ShoeStatus:
    try:
        state = ShoeState(message.state)
    except ValueError:
        raise WireError(f"STATUS state {message.state} is unknown", reason="range") from None
    return ShoeStatus(state, message.packs, message.dealt, message.unacked, message.text)


class CardLink(Closeable):
    """One shoe or shuffler over USB serial: numbered items delivered once each, in order.

    ``on_item`` gets each :class:`DrawnCard` or :class:`PackMark` on the reader thread;
    the item is acknowledged to the device only after it returns, so a consumer that
    makes it durable first loses nothing in a crash. If it raises, the item is not
    acknowledged, the line is unavailable with the reason, and the device's next
    resend is offered again. ``on_status`` gets the device's STATUS when its state,
    packs or detail change; ``on_health`` the line's health when its state changes.
    ``resume`` is the ``(boot_id, seq)`` of the last item a previous host made durable.
    """

    def __init__(
        self,
        port: str,
        *,
        kind: DeviceKind,
        on_item: ItemHandler,
        on_status: StatusHandler | None = None,
        on_health: HealthHandler | None = None,
        resume: tuple[int, int] | None = None,
        timing: ShoeTiming | None = None,
        serial_factory: Callable[..., Any] = serial.Serial,
        protocol: int = PROTOCOL_VERSION,
    ) -> None:
        """Start the reader thread, which opens ``port`` and greets the device."""
        self.port: Final = port
        self._kind = kind
        self._on_item = on_item
        self._on_status = on_status
        self._on_health = on_health
        self._timing = timing or ShoeTiming()
        self._serial_factory = serial_factory
        self._protocol = protocol
        self._receiver = FrameReceiver()
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._serial: Any = None
        self._state: LinkName = "connecting"
        self._reason = f"opening {port}"
        self._refusal: DriverError | None = None
        self._identity: ShoeIdentity | None = None
        self._shoe: ShoeStatus | None = None
        self._position = resume
        self._expected: int | None = None
        self._fault: DriverError | None = None
        """What stopped the items (a card that cannot be had, a code that is no card)."""
        self._handler_failed = False
        self._gap_seen = False
        self._early: dict[int, Card | PackEnd] = {}
        self._ack_due = False
        self._last_resend = -1.0
        self._seq = 0
        self._heard = 0
        """Messages decoded from the device (the reader thread's own)."""
        self._pending: Message | None = None
        self._pending_seq = 0
        self._answer: Message | None = None
        self._queue: deque[_Command] = deque()
        self._counts = dict.fromkeys(
            ("delivered", "duplicates", "gaps", "resends", "bad_frames", "bad_cards"), 0
        )
        self._connections = 0
        self._thread = threading.Thread(target=self._run, name=f"hoyle-shoe {port}", daemon=True)
        self._thread.start()

    # --- public ------------------------------------------------------------------------

    def health(self) -> ShoeHealth:
        """The line's state, the device's identity and status and the counters, at once."""
        with self._cond:
            return self._snapshot()

    def position(self) -> tuple[int, int] | None:
        """``(boot_id, seq)`` of the last item ``on_item`` returned from (or ``resume``)."""
        with self._cond:
            return self._position

    def wait_ready(self, timeout: float) -> ShoeIdentity:
        """Wait until the device is greeted and items flow; its identity.

        Raises ProtocolMismatch or WrongNode if the device was refused; BadReading (a
        code that is no card) or DeviceUnavailable (a card the device cannot resend) if
        the items stopped; DeviceUnavailable with the reason if the line is closed or,
        at the end of the wait, unavailable (port missing, device silent); LinkTimeout
        if it is still connecting after ``timeout``.
        """
        with self._cond:
            self._cond.wait_for(
                lambda: self._state in ("running", "closed")
                or self._refusal is not None
                or self._fault is not None,
                timeout=timeout,
            )
            state, reason, refusal, identity = (
                self._state, self._reason, self._refusal, self._identity
            )
            fault = self._fault
        if refusal is not None:
            raise refusal
        if state == "closed":
            raise DeviceUnavailable(f"{self.port} is closed")
        if fault is not None:
            raise fault
        if state == "unavailable":
            raise DeviceUnavailable(f"{self.port} unavailable after {timeout:g} s: {reason}")
        if state != "running" or identity is None:
            raise LinkTimeout(f"{self.port} not ready after {timeout:g} s: {state}: {reason}")
        return identity

    def command(self, message: Message) -> Message:
        """Send ``message`` through the reader thread; the device's answer (not a NACK).

        DeviceUnavailable (with the reason) if the line is not running, CommandRefused
        for a NACK, LinkTimeout if no answer comes within ``command_wait``.
        """
        command = _Command(message)
        with self._cond:
            if self._state != "running":
                raise DeviceUnavailable(f"{self.port} is {self._state}: {self._reason}")
            self._queue.append(command)
        port = self._serial
        if port is not None and hasattr(port, "cancel_read"):
            # Wakes the reader from its read at once; the reader may be closing the port
            # itself (a reconnect), which makes the wake-up pipe already gone.
            with contextlib.suppress(*PORT_ERRORS):
                port.cancel_read()
        if not command.done.wait(self._timing.command_wait):
            with self._cond:
                if command in self._queue:
                    self._queue.remove(command)
            raise LinkTimeout(
                f"{self.port}: no answer to {message.NAME} in {self._timing.command_wait:g} s"
            )
        if command.error is not None:
            raise command.error
        assert command.response is not None
        return command.response

    def ask(self, message: Message) -> ShoeStatus:
        """Send a command the device answers with STATUS (QUERY, NEW_SHOE); that status."""
        answer = self.command(message)
        if not isinstance(answer, Status):
            raise WireError(f"{message.NAME} answered with {answer.NAME}", reason="type")
        return _status(answer)

    def query(self) -> ShoeStatus:
        """Ask the device for its STATUS now."""
        return self.ask(Query())

    def close(self) -> None:
        """Stop the reader thread (bounded wait) and close the port."""
        self._stopping.set()
        port = self._serial
        if port is not None and hasattr(port, "cancel_read"):
            # Wakes the reader from its read at once; the reader may be closing the port
            # itself (a reconnect), which makes the wake-up pipe already gone.
            with contextlib.suppress(*PORT_ERRORS):
                port.cancel_read()
        if self._thread.ident is not None and threading.current_thread() is not self._thread:
            self._thread.join(_JOIN_TIMEOUT)
            if self._thread.is_alive():
                _log.error("%s: reader still busy after %.0f s", self.port, _JOIN_TIMEOUT)
        self._close_port()
        self._set_state("closed", "closed by the host")
        with self._cond:
            queued, self._queue = list(self._queue), deque()
        for command in queued:
            command.error = DeviceUnavailable(f"{self.port} is closed")
            command.done.set()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.port!r}, state={self.health().state!r})"

    def go_on_after(self, seq: int) -> None:
        """Carry on after item ``seq``, the one the line stopped at (see
        ``ShoeHealth.stopped_at``): the host has it from elsewhere (the dealer showed the
        card and the operator named it) and has made that durable. The device is told it
        is taken, and the items after it flow again. ValueError if the line is not
        stopped at ``seq``."""
        with self._cond:
            identity = self._identity
            if self._fault is None or self._expected != seq or identity is None:
                raise ValueError(f"{self.port}: the line is not stopped at item {seq}")
            self._position = (identity.boot_id, seq)
            self._expected = seq + 1
            self._fault = None
            # Held items were never acknowledged: the device sends them again.
            self._early.clear()
            self._ack_due = True
        _log.warning("%s: item %d taken from the operator; carrying on", self.port, seq)
        self._set_state("running", f"item {seq} taken from the operator")

    # --- the reader thread -------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                if self._connect():
                    try:
                        self._serve()
                    except _Closing:
                        break
                    except _Silent as exc:
                        self._lost(str(exc))
                    except PORT_ERRORS as exc:
                        self._lost(f"port failed: {exc}")
                if not self._stopping.is_set():
                    self._stopping.wait(self._timing.reopen_interval)
        except Exception as exc:
            _log.exception("%s: reader thread failed", self.port)
            self._set_state("unavailable", f"host driver failed: {exc!r}")
        finally:
            self._close_port()

    def _connect(self) -> bool:
        """Open the port and greet the device; False (state and reason set) if that fails."""
        timing = self._timing
        try:
            opened = self._serial_factory(
                self.port,
                baudrate=BAUD_RATE,
                timeout=timing.read_timeout,
                write_timeout=timing.write_timeout,
                exclusive=True,
            )
        except (*PORT_ERRORS, ValueError) as exc:
            self._set_state("unavailable", f"cannot open {self.port}: {exc}")
            return False
        self._serial = opened
        self._receiver.clear()
        try:
            self._greet()
        except _Closing:
            return False
        except (ProtocolMismatch, WrongNode) as exc:
            with self._cond:
                self._refusal = exc
            self._lost(str(exc))
            return False
        except (_Silent, CommandRefused, WireError) as exc:
            self._lost(f"no shoe answers on {self.port}: {exc}")
            return False
        except PORT_ERRORS as exc:
            self._lost(f"port failed: {exc}")
            return False
        return True

    def _greet(self) -> None:
        """HELLO (telling the device where the host stands), then QUERY."""
        with self._cond:
            held = self._position or (0, 0)
        hello = self._exchange(HelloReq(self._protocol, *held))
        if hello is None:
            raise _Silent("the device sends frames but never answered HELLO_REQ")
        if not isinstance(hello, Hello):
            raise WireError(f"HELLO_REQ answered with {hello.NAME}", reason="type")
        if hello.protocol != self._protocol:
            raise ProtocolMismatch(
                f"device on {self.port} speaks shoe protocol version {hello.protocol}; "
                f"this host speaks version {self._protocol}"
            )
        if hello.kind != self._kind:
            raise WrongNode(
                f"{self.port}: expected a {code_name(DeviceKind, self._kind)} device, "
                f"found a {code_name(DeviceKind, hello.kind)} device"
            )
        note = self._took_hello(hello)
        status = self._exchange(Query())
        if isinstance(status, Status):
            self._took_status(status)
        with self._cond:
            self._connections += 1
            self._refusal = None
            fault = self._fault
        if fault is not None:
            self._set_state("unavailable", str(fault))
        else:
            self._set_state("running", note)

    def _took_hello(self, hello: Hello) -> str:
        """Take the device's identity and set the next item expected; a note worth telling."""
        identity = ShoeIdentity(
            hello.kind, hello.protocol, hello.boot_id, hello.maker, hello.serial
        )
        with self._cond:
            self._identity = identity
            self._early.clear()
            position = self._position
            if position is None or position[0] != hello.boot_id:
                self._expected = hello.next_seq
                self._fault = None
                if position is None:
                    return ""
                return (
                    f"device restarted since card {position[1]} "
                    f"(boot {position[0]:#010x} -> {hello.boot_id:#010x}); "
                    f"its cards start again at {hello.next_seq}"
                )
            # Same boot: the host wants the card after the last it holds. If the device
            # starts later than that, the gap is asked for like any other.
            self._expected = position[1] + 1
            self._gap_seen = hello.next_seq > self._expected
            return ""

    def _serve(self) -> None:
        """Read and deliver, run other threads' commands, fill gaps, check health."""
        timing = self._timing
        next_query = time.monotonic() + timing.query_interval
        while not self._stopping.is_set():
            self._read_once()
            with self._cond:
                command = self._queue.popleft() if self._queue else None
                gap = self._gap_seen and self._fault is None
            if command is not None:
                self._run_command(command)
            now = time.monotonic()
            if gap and now - self._last_resend >= timing.retry_interval:
                self._fill_gap()
            if now >= next_query:
                next_query = now + timing.query_interval
                if port_gone(self.port):
                    raise OSError(f"{self.port} disappeared")
                answer = self._exchange(Query())
                if isinstance(answer, Status):
                    self._took_status(answer)

    def _run_command(self, command: _Command) -> None:
        try:
            answer = self._exchange(command.message)
            if answer is None:
                raise LinkTimeout(
                    f"{self.port}: {command.message.NAME} unanswered in "
                    f"{self._timing.tries} tries, though the device is sending"
                )
        except LinkTimeout as exc:
            command.error = exc
            command.done.set()
            return
        except _Silent as exc:
            command.error = LinkTimeout(f"{self.port}: {exc}")
            command.done.set()
            raise
        except (_Closing, *PORT_ERRORS) as exc:
            command.error = DeviceUnavailable(f"{self.port}: {exc}")
            command.done.set()
            raise
        if isinstance(answer, Nack):
            command.error = CommandRefused(
                f"{self.port}: {command.message.NAME} refused: "
                f"{code_name(NackCode, answer.code)}: {answer.text}",
                code=answer.code,
                text=answer.text,
            )
        else:
            if isinstance(answer, Status):
                self._took_status(answer)
            command.response = answer
        command.done.set()

    def _fill_gap(self) -> None:
        """Ask for the missing item; if the device cannot send it, stop with the reason."""
        with self._cond:
            expected = self._expected
            self._gap_seen = False
            self._counts["resends"] += 1
        if expected is None:
            return
        self._last_resend = time.monotonic()
        answer = self._exchange(Resend(expected))
        with self._cond:
            # The missing item may have come meanwhile (the device's own resend), and its
            # ACK made the device drop it before the RESEND arrived.
            filled = self._expected is not None and self._expected > expected
        if isinstance(answer, Nack) and not filled:
            reason = (
                f"card {expected} never arrived and the device cannot resend it "
                f"({code_name(NackCode, answer.code)}: {answer.text}); "
                "the table must not go on without it"
            )
            with self._cond:
                self._fault = DeviceUnavailable(f"{self.port}: {reason}")
            _log.error("%s: %s", self.port, reason)
            self._set_state("unavailable", reason)
        elif isinstance(answer, Status):
            self._took_status(answer)
        elif answer is None:
            # Lost on a noisy line while the device went on sending: ask again.
            with self._cond:
                self._gap_seen = True

    def _exchange(self, message: Message) -> Message | None:
        """Send a command and read (delivering items) until its answer.

        After every try: None if the device sent other frames meanwhile (a noisy line
        lost the answer, the device is alive), _Silent if it sent nothing at all.
        """
        self._seq = self._seq % 0xFFFF + 1
        seq = self._seq
        raw = encode_message(message, seq)
        with self._cond:
            self._pending, self._pending_seq, self._answer = message, seq, None
        heard = self._heard
        try:
            for _ in range(self._timing.tries):
                self._write(raw)
                deadline = time.monotonic() + self._timing.retry_interval
                while time.monotonic() < deadline:
                    if self._stopping.is_set():
                        raise _Closing(f"{self.port} is closing")
                    self._read_once()
                    with self._cond:
                        answer = self._answer
                    if answer is not None:
                        return answer
        finally:
            with self._cond:
                self._pending = None
        if self._heard != heard:
            _log.info("%s: %s unanswered while the device sent frames", self.port, message.NAME)
            return None
        raise _Silent(
            f"the device did not answer {message.NAME} in {self._timing.tries} tries "
            f"{self._timing.retry_interval:g} s apart"
        )

    def _read_once(self) -> None:
        """Read what the port has (waiting at most the read timeout), handle it, ACK it."""
        port = self._serial
        if port is None:
            raise OSError(f"{self.port} is closed")
        data = port.read(max(1, port.in_waiting))
        for frame in self._receiver.feed(bytes(data)):
            try:
                message = decode_message(frame)
            except WireError as exc:
                self._bad_frame(f"bad frame: {exc}")
                continue
            self._heard += 1
            if message.TO_DEVICE:
                self._bad_frame(f"the device sent a host message, {message.NAME}")
            elif isinstance(message, Card | PackEnd):
                self._took_item(message)
            elif frame.seq != NO_COMMAND:
                with self._cond:
                    if self._pending is not None and frame.seq == self._pending_seq:
                        self._answer = message
            elif isinstance(message, Status):
                self._took_status(message)
        with self._cond:
            due, self._ack_due = self._ack_due, False
            last = self._position[1] if self._position is not None else None
            same_boot = (
                self._identity is not None
                and self._position is not None
                and self._position[0] == self._identity.boot_id
            )
        if due and last is not None and same_boot:
            # One cumulative ACK covers everything handled in this read.
            self._write(encode_message(Ack(last), NO_COMMAND))

    def _bad_frame(self, why: str) -> None:
        with self._cond:
            self._counts["bad_frames"] += 1
        _log.warning("%s: %s", self.port, why)

    def _took_item(self, message: Card | PackEnd) -> None:
        """Deliver ``message`` if it is the one expected (then any held behind it), or
        hold it if it came early; drop a duplicate."""
        with self._cond:
            expected = self._expected
            if expected is None or self._identity is None:
                return
            if message.seq < expected:
                self._counts["duplicates"] += 1
                self._ack_due = True
                return
            if self._fault is not None:
                return
            if message.seq > expected:
                # Held, so the resend of the one missing is all it takes to go on.
                self._counts["gaps"] += 1
                self._gap_seen = True
                if len(self._early) < _EARLY_MAX:
                    self._early.setdefault(message.seq, message)
                return
        while self._deliver(message):
            with self._cond:
                following = self._early.pop(message.seq + 1, None)
                if following is None:
                    # The gap may be filled (by the device's own resend): asking for
                    # `expected` now would name a card not yet drawn, which the device
                    # refuses while it holds unacknowledged ones.
                    self._gap_seen = any(seq > message.seq for seq in self._early)
                    return
            message = following

    def _deliver(self, message: Card | PackEnd) -> bool:
        """Hand the expected item to the consumer; True once it is taken."""
        with self._cond:
            identity = self._identity
        assert identity is not None
        item: DrawnCard | PackMark
        if isinstance(message, Card):
            if not is_card(message.code):
                self._bad_card(message)
                return False
            item = DrawnCard(
                identity.boot_id, message.seq, message.code, message.time_ms, time.time()
            )
        else:
            item = PackMark(
                identity.boot_id, message.seq, message.count, message.time_ms, time.time()
            )
        try:
            self._on_item(item)
        except Exception as exc:
            with self._cond:
                again, self._handler_failed = self._handler_failed, True
            if again:
                _log.debug("%s: the consumer failed on %r again: %r", self.port, item, exc)
            else:
                _log.exception("%s: the consumer failed on %r; not acknowledged", self.port, item)
            self._set_state(
                "unavailable", f"item {item.seq} not taken by the host: {exc!r}; waiting to retry"
            )
            return False
        with self._cond:
            # Only now is it the host's: a restarted host resumes after it.
            self._position = (identity.boot_id, message.seq)
            self._expected = message.seq + 1
            self._counts["delivered"] += 1
            self._ack_due = True
            recovered, self._handler_failed = self._handler_failed, False
        if recovered:
            self._set_state("running", "the host took the item it had refused")
        return True

    def _bad_card(self, message: Card) -> None:
        error = BadReading(
            f"{self.port}: the device sent card {message.seq} as {message.code!r}, "
            "which is no card "
            "(rank A 2-10 J Q K, suit S H D C); the dealer must show that card"
        )
        with self._cond:
            self._counts["bad_cards"] += 1
            self._fault = error
        _log.error("%s: %s", self.port, error)
        self._set_state("unavailable", str(error))

    def _took_status(self, message: Status) -> None:
        try:
            status = _status(message)
        except WireError as exc:
            self._bad_frame(str(exc))
            return
        with self._cond:
            previous, self._shoe = self._shoe, status
        if previous is not None and (previous.state, previous.packs, previous.detail) == (
            status.state, status.packs, status.detail
        ):
            return
        handler = self._on_status
        if handler is not None:
            try:
                handler(status)
            except Exception:
                _log.exception("%s: on_status failed; carrying on", self.port)

    def _write(self, raw: bytes) -> None:
        port = self._serial
        if port is None:
            raise OSError(f"{self.port} is not open")
        port.write(raw)

    def _lost(self, reason: str) -> None:
        """The port failed or the device went silent: close, say why, fail queued commands."""
        self._close_port()
        with self._cond:
            queued, self._queue = list(self._queue), deque()
            self._gap_seen = self._ack_due = False
        for command in queued:
            command.error = DeviceUnavailable(f"{self.port}: {reason}")
            command.done.set()
        self._set_state("unavailable", reason)

    def _close_port(self) -> None:
        port, self._serial = self._serial, None
        close_quietly(port, self.port, _log)

    def _set_state(self, state: LinkName, reason: str) -> None:
        with self._cond:
            if (state, reason) == (self._state, self._reason) or self._state == "closed":
                return
            self._state, self._reason = state, reason
            self._cond.notify_all()
            snapshot = self._snapshot()
        announce_state(self.port, state, reason, snapshot, self._on_health, "on_health", _log)

    def _snapshot(self) -> ShoeHealth:
        counts = self._counts
        return ShoeHealth(
            port=self.port,
            state=self._state,
            reason=self._reason,
            identity=self._identity,
            shoe=self._shoe,
            position=self._position,
            delivered=counts["delivered"],
            duplicates=counts["duplicates"],
            gaps=counts["gaps"],
            resends=counts["resends"],
            framing_errors=self._receiver.framing_errors,
            bad_frames=counts["bad_frames"],
            bad_cards=counts["bad_cards"],
            reconnects=max(0, self._connections - 1),
            stopped_at=self._expected if self._fault is not None else None,
        )
