"""The host's end of one sensor node's USB-serial link: handshake, reports, commands, replug.

:class:`NodeLink` owns a pyserial port and one reader thread. On opening the port it
identifies the node (refusing a node that speaks another protocol version, or is not
the node type expected), checks whether it is shut down, applies the configured keys
and asks for every input's current value. From then on it delivers each REPORT exactly
once and in order through ``on_report`` (from the reader thread), acknowledges them
cumulatively, drops duplicates and reports after a gap (the node sends them again),
and pings the node every second. If the port fails or disappears the link says
"unplugged", retries opening the same path every ``reopen_interval`` and carries on
where it left off: a node that kept its boot keeps its unacknowledged reports queued,
so nothing is lost or doubled; a node that rebooted is noted and resynchronised.

Times: a REPORT carries the node's ``ticks_ms`` at the edge. :meth:`NodeLink.host_time`
maps it onto the host clock with :class:`NodeClock`, fed by the PING/PONG round trips.

Example (needs a node on the port):
    >>> def on_report(node_type, input, value, node_ms):
    ...     print(input, value)
    >>> with NodeLink("/dev/ttyACM0", on_report=on_report) as link:  # doctest: +SKIP
    ...     link.wait_ready(2.0)
    ...     link.query()
    'running'
    1 1
    ...
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, Literal, Self, TypeAlias, TypedDict, TypeVar

import serial

from drivers.errors import DeviceUnavailable, DriverError, LinkTimeout
from drivers.wire.frame import Frame, FrameReceiver, WireError
from drivers.wire.messages import (
    CONFIG_BOUNDS,
    PROTOCOL_VERSION,
    Ack,
    CommandRefused,
    Config,
    ConfigKey,
    ConfigOk,
    Identify,
    IdentifyReq,
    Message,
    Nack,
    NackCode,
    NodeState,
    NodeType,
    Ping,
    Pong,
    ProtocolMismatch,
    Query,
    QueryOk,
    Report,
    Reset,
    ResetOk,
    Shutdown,
    ShutdownCode,
    WrongNode,
    code_name,
    decode_message,
    encode_message,
    node_type_name,
    response_type,
)

__all__ = [
    "BAUD_RATE",
    "TICKS_PERIOD",
    "LinkState",
    "LinkTiming",
    "NodeClock",
    "NodeLink",
    "ReportHandler",
    "StateHandler",
    "StateName",
    "ticks_diff",
]

StateName: TypeAlias = Literal[
    "connecting", "running", "unplugged", "shutdown", "refused", "closed"
]
ReportHandler: TypeAlias = Callable[[int, int, int, int], None]
"""``on_report(node_type, input, value, node_time_ms)``."""
StateHandler: TypeAlias = Callable[["LinkState"], None]
Clock: TypeAlias = Callable[[], float]

BAUD_RATE: Final = 115200
TICKS_PERIOD: Final = 1 << 30
"""MicroPython's ticks_ms period on the Pico; a u32 (2**32) wrap is a multiple of it."""
_SEQ_MOD: Final = 1 << 16
_JOIN_TIMEOUT: Final = 5.0
_READY: Final = ("running", "shutdown")
# pyserial's SerialException is an OSError; both are named for the reader's sake.
_PORT_ERRORS: Final = (serial.SerialException, OSError)

_log = logging.getLogger(__name__)

_R = TypeVar("_R", bound=Message)


def ticks_diff(later: int, earlier: int) -> int:
    """``later - earlier`` in ms for node tick values that wrap (MicroPython's ticks_diff).

    Correct while the true difference is within ±2**29 ms (six days).
    """
    half = TICKS_PERIOD // 2
    return (later - earlier + half) % TICKS_PERIOD - half


class NodeClock:
    """Maps a node's tick times (ms, wrapping) onto the host clock from PING/PONG samples.

    host time ≈ node time + offset. A PONG carries the node's clock read somewhere
    between the host sending PING and receiving PONG, so it is taken as read at their
    midpoint, good to half the round trip. Of the last ``keep`` samples the one with the
    shortest round trip is used (one slow answer does not skew it); pings renew them so
    the drift of the two clocks stays small. A mapped time is never later than ``now``:
    an edge cannot be reported before it happened. With no sample yet, ``now`` is used.

    Example:
        >>> clock = NodeClock()
        >>> clock.sample(sent=100.0, received=100.002, node_ms=5000)
        >>> round(clock.to_host(4000, now=101.0), 3)
        99.001
    """

    def __init__(self, keep: int = 8) -> None:
        """Keep the last ``keep`` samples."""
        self._lock = threading.Lock()
        self._samples: deque[tuple[float, float, int]] = deque(maxlen=keep)

    def sample(self, *, sent: float, received: float, node_ms: int) -> None:
        """The node read ``node_ms`` between host times ``sent`` and ``received``."""
        with self._lock:
            self._samples.append((received - sent, (sent + received) / 2, node_ms))

    def forget(self) -> None:
        """Drop every sample (the node rebooted: its clock started again)."""
        with self._lock:
            self._samples.clear()

    def to_host(self, node_ms: int, *, now: float) -> float:
        """The host time of node time ``node_ms``, no later than ``now``."""
        with self._lock:
            if not self._samples:
                return now
            _round_trip, host, ref = min(self._samples)
        return min(now, host + ticks_diff(node_ms, ref) / 1000)


@dataclass(frozen=True, slots=True)
class LinkTiming:
    """The link's waits, in seconds (the protocol's defaults)."""

    retry_interval: float = 0.1
    """A command unanswered this long is sent again..."""
    tries: int = 5
    """...this many times in all, then the node is taken as silent."""
    reopen_interval: float = 0.15
    """Pause between attempts to reopen a port that failed or disappeared."""
    ping_interval: float = 1.0
    """Health check (and clock sample) period."""
    read_timeout: float = 0.05
    """pyserial read timeout: how often the reader thread looks up from the port."""
    write_timeout: float = 0.5
    refused_retry: float = 5.0
    """A refused node is identified again this often (it may have been reflashed)."""


class LinkState(TypedDict):
    """A link's health for ``hoyle doctor`` and the dashboard."""

    port: str
    state: StateName
    node_type: int | None
    firmware: str | None
    protocol: int | None
    boot_id: int | None
    inputs: int | None
    reports_delivered: int
    duplicates_dropped: int
    """Reports already delivered, sent again by the node (a lost ACK)."""
    gaps_dropped: int
    """Reports dropped because an earlier one was missing (the node resends both)."""
    framing_errors: int
    bad_frames: int
    """Frames with a good CRC that are not a valid node message."""
    command_retries: int
    reboots: int
    detail: str


class _Pending:
    """The one command in flight and its answer."""

    __slots__ = ("error", "expect", "received_at", "response", "sent_at", "seq", "tries")

    def __init__(self, seq: int, expect: type[Message]) -> None:
        self.seq = seq
        self.expect = expect
        self.response: Message | None = None
        self.error: DriverError | None = None
        self.sent_at = 0.0
        self.received_at = 0.0
        self.tries = 0


def _checked_config(key: int, value: int) -> tuple[ConfigKey, int]:
    """``(key, value)`` if the protocol allows them; ValueError naming the key and bounds."""
    try:
        known = ConfigKey(key)
    except ValueError:
        keys = ", ".join(f"{k.value} {k.name.lower()}" for k in ConfigKey)
        raise ValueError(f"unknown config key {key!r}; keys are: {keys}") from None
    bounds = CONFIG_BOUNDS[known]
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not (bounds.low <= value <= bounds.high)
    ):
        raise ValueError(
            f"{known.name.lower()} must be a whole number {bounds.low}..{bounds.high}, "
            f"not {value!r}"
        )
    return known, value


def _is_path(port: str) -> bool:
    """True for a device path (as opposed to a pyserial URL such as ``socket://``)."""
    return "://" not in port and os.sep in port


class NodeLink:
    """One sensor node over USB serial, kept connected through unplugs and reboots.

    ``on_report(node_type, input, value, node_time_ms)`` and ``on_state(state)`` are
    called from the link's reader thread (``on_state`` also from the thread that
    changes the state); either may be replaced at any time. A handler that raises is
    logged and the link carries on. ``node_type`` refuses any other kind of node;
    ``config`` maps config keys to values. Every key is set at every (re)connection,
    the protocol's default where none is given, so a node's settings never depend on
    what an earlier host left there. ``protocol`` is the version this host speaks: only
    a test of a node's refusal has reason to claim another.
    """

    def __init__(
        self,
        port: str,
        *,
        on_report: ReportHandler | None = None,
        on_state: StateHandler | None = None,
        node_type: NodeType | None = None,
        config: Mapping[int, int] | None = None,
        serial_factory: Callable[..., Any] = serial.Serial,
        clock: Clock = time.monotonic,
        timing: LinkTiming | None = None,
        start: bool = True,
        protocol: int = PROTOCOL_VERSION,
    ) -> None:
        """Start the reader thread (unless ``start`` is False), which opens ``port``."""
        self.port: Final = port
        self.on_report = on_report
        self.on_state = on_state
        self._node_type = node_type
        self._protocol = protocol
        self._config: dict[ConfigKey, int] = dict(
            _checked_config(key, value) for key, value in (config or {}).items()
        )
        self._serial_factory = serial_factory
        self._clock = clock
        self._timing = timing or LinkTiming()
        self._node_clock = NodeClock()
        self._receiver = FrameReceiver(clock=clock)
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._stopping = threading.Event()
        self._serial: Any = None
        self._pending: _Pending | None = None
        # A fresh random start makes it unlikely that a node still caching the last
        # command of an earlier host process answers ours from that cache.
        self._next_seq = random.randrange(_SEQ_MOD)
        self._identify: Identify | None = None
        self._expected: int | None = None
        self._accepted = False
        self._ack_due = False
        self._note = ""
        self._shutdown_reason = ""
        self._refusal: DriverError | None = None
        self._state: StateName = "connecting"
        self._detail = f"opening {port}"
        self._delivered = 0
        self._duplicates = 0
        self._gaps = 0
        self._bad_frames = 0
        self._retries = 0
        self._reboots = 0
        self._thread = threading.Thread(target=self._run, name=f"hoyle-node {port}", daemon=True)
        if start:
            self._thread.start()

    # --- public ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the reader thread of a link made with ``start=False`` (its handlers set)."""
        if self._thread.ident is None and not self._stopping.is_set():
            self._thread.start()

    @property
    def identity(self) -> Identify | None:
        """The node's last IDENTIFY answer, or None before the first."""
        with self._cond:
            return self._identify

    @property
    def config(self) -> Mapping[ConfigKey, int]:
        """Every config key with the value the node is (to be) set to; defaults included."""
        with self._cond:
            values = {key: bounds.default for key, bounds in CONFIG_BOUNDS.items()}
            values.update(self._config)
            return values

    def state(self) -> LinkState:
        """The link's state, the node's identity and the counters, as one snapshot."""
        with self._cond:
            return self._snapshot()

    def wait_ready(self, timeout: float) -> StateName:
        """Wait until the node is identified; return "running" or "shutdown".

        Raises ProtocolMismatch or WrongNode if the node was refused, DeviceUnavailable
        if the link is closed, LinkTimeout (naming the state and why) after ``timeout``.
        """
        with self._cond:
            self._cond.wait_for(
                lambda: self._state in (*_READY, "refused", "closed"), timeout=timeout
            )
            state, detail, refusal = self._state, self._detail, self._refusal
        if state == "refused" and refusal is not None:
            raise refusal
        if state == "closed":
            raise DeviceUnavailable(f"link to {self.port} is closed")
        if state not in _READY:
            raise LinkTimeout(
                f"node on {self.port} not ready after {timeout:g} s: {state}: {detail}"
            )
        return state

    def host_time(self, node_time_ms: int) -> float:
        """The host clock time of a node time (a REPORT's ``time_ms``); see :class:`NodeClock`."""
        return self._node_clock.to_host(node_time_ms, now=self._clock())

    def send_command(self, command: Message) -> Message:
        """Send ``command`` (retrying with the same SEQ) and return the node's answer.

        The answer is the command's response message or a :class:`Nack`. Raises
        LinkTimeout if the node never answers, DeviceUnavailable if the link is not up.
        Not callable from the link's own callbacks (they run on its reader thread).
        """
        answer, _pending = self._exchange(command, inline=False)
        return answer

    def ping(self) -> Pong:
        """Ask the node for its clock and state (also a clock sample)."""
        return self._took_pong(*self._exchange(Ping(), inline=False))

    def query(self) -> None:
        """Have the node report every input's current value (through ``on_report``)."""
        self._request(Query(), QueryOk, inline=False)

    def configure(self, key: int, value: int) -> None:
        """Set a config key now if the node is running, and at every later connection.

        ValueError names the key and its bounds if the host already knows the value is
        wrong; CommandRefused carries the node's own reason if the node refuses it.
        """
        known, value = _checked_config(key, value)
        with self._cond:
            previous = self._config.get(known)
            self._config[known] = value
            running = self._state == "running"
        if not running:
            return
        try:
            answer = self._request(Config(known, value), ConfigOk, inline=False)
        except CommandRefused:
            with self._cond:
                if previous is None:
                    self._config.pop(known, None)
                else:
                    self._config[known] = previous
            raise
        self._took_config(answer, value)

    def reset(self) -> None:
        """Take the node out of shutdown (it drops its unacknowledged reports), then resync."""
        self._request(Reset(), ResetOk, inline=False)
        with self._cond:
            self._shutdown_reason = ""
        identify = self._request(IdentifyReq(self._protocol), Identify, inline=False)
        self._took_identify(identify, after_reset=True)
        # Config sent while the node was shut down was refused: it is due now.
        self._apply_config(inline=False)
        with self._cond:
            note, self._note = self._note, ""
        self._set_state("running", "; ".join(filter(None, ("node reset by the host", note))))
        self.query()

    def close(self) -> None:
        """Stop the reader thread (bounded wait) and close the port."""
        self._stopping.set()
        with self._cond:
            self._fail_pending(DeviceUnavailable(f"link to {self.port} closed"))
            self._cond.notify_all()
        with self._write_lock:
            port = self._serial
        cancel = getattr(port, "cancel_read", None)
        if cancel is not None:
            # Wakes the reader from its read at once (pyserial on POSIX).
            with contextlib.suppress(*_PORT_ERRORS):
                cancel()
        if self._thread.ident is not None and threading.current_thread() is not self._thread:
            self._thread.join(_JOIN_TIMEOUT)
            if self._thread.is_alive():
                _log.error("%s: reader thread still busy after %.0f s", self.port, _JOIN_TIMEOUT)
        self._close_port()
        self._set_state("closed", "link closed")

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NodeLink({self.port!r}, state={self._state!r})"

    # --- reader thread -----------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            if self._serial is None:
                if not self._connect():
                    refused = self._state == "refused"
                    timing = self._timing
                    self._stopping.wait(timing.refused_retry if refused else timing.reopen_interval)
                continue
            # The driver's own errors first: LinkTimeout and DeviceUnavailable are OSErrors too.
            try:
                self._serve()
            except DeviceUnavailable:
                # Only raised while closing: the loop ends.
                pass
            except LinkTimeout as exc:
                self._lost(f"node silent: {exc}")
            except _PORT_ERRORS as exc:
                self._lost(f"port failed: {exc}")
        self._close_port()

    def _connect(self) -> bool:
        """Open the port and identify the node; False, with the state saying why, if not."""
        if _is_path(self.port) and not os.path.exists(self.port):
            if self._state != "refused":
                self._set_state("unplugged", f"{self.port} is not there")
            return False
        try:
            opened = self._serial_factory(
                self.port,
                baudrate=BAUD_RATE,
                timeout=self._timing.read_timeout,
                write_timeout=self._timing.write_timeout,
                exclusive=True,
            )
        except (*_PORT_ERRORS, ValueError) as exc:
            if self._state != "refused":
                self._set_state("unplugged", f"cannot open {self.port}: {exc}")
            return False
        with self._write_lock:
            self._serial = opened
        self._receiver.clear()
        # Only the first attempt says "connecting": a node that stays silent or refused
        # keeps its state and reason rather than flickering through "connecting".
        if self._state == "connecting":
            self._set_state("connecting", f"{self.port} open; identifying the node")
        try:
            self._handshake()
        except (ProtocolMismatch, WrongNode) as exc:
            self._refuse(exc)
            return False
        except DeviceUnavailable:
            return False
        except (LinkTimeout, CommandRefused, WireError) as exc:
            self._lost(f"node silent or confused: {exc}")
            return False
        except _PORT_ERRORS as exc:
            self._lost(f"port failed: {exc}")
            return False
        return True

    def _handshake(self) -> None:
        """IDENTIFY, PING, CONFIG and QUERY on a freshly opened port."""
        identify = self._request(IdentifyReq(self._protocol), Identify, inline=True)
        if identify.protocol != self._protocol:
            raise ProtocolMismatch(
                f"node on {self.port} speaks protocol version {identify.protocol}; "
                f"this host speaks version {self._protocol}"
            )
        if self._node_type is not None and identify.node_type != self._node_type:
            raise WrongNode(
                f"{self.port}: expected a {node_type_name(self._node_type)} node, "
                f"found a {node_type_name(identify.node_type)} node"
            )
        self._took_identify(identify, after_reset=False)
        pong = self._took_pong(*self._exchange(Ping(), inline=True))
        if pong.state == NodeState.SHUTDOWN:
            with self._cond:
                reason = self._shutdown_reason
            self._set_state(
                "shutdown", reason or "node is shut down; its SHUTDOWN frame gives the reason"
            )
            return
        self._apply_config(inline=True)
        self._request(Query(), QueryOk, inline=True)
        with self._cond:
            self._refusal = None
            note, self._note = self._note, ""
        self._set_state("running", note)

    def _apply_config(self, *, inline: bool) -> None:
        """Set every config key on the node; a refusal is logged and noted in the state."""
        for key, value in sorted(self.config.items()):
            try:
                answer = self._request(Config(key, value), ConfigOk, inline=inline)
            except CommandRefused as exc:
                _log.error("%s", exc)
                with self._cond:
                    self._note = "; ".join(filter(None, (self._note, str(exc))))
                continue
            self._took_config(answer, value)

    def _serve(self) -> None:
        """Read frames, and ping the node every ping interval, until stopped or the port fails."""
        next_ping = self._clock() + self._timing.ping_interval
        while not self._stopping.is_set():
            self._read_once()
            now = self._clock()
            if now < next_ping:
                continue
            next_ping = now + self._timing.ping_interval
            if _is_path(self.port) and not os.path.exists(self.port):
                raise OSError(f"{self.port} disappeared")
            # A command another thread has in flight is health check enough.
            with self._cond:
                pending = None if self._pending is not None else self._take_slot(Ping())
            if pending is not None:
                self._took_pong(*self._transact(pending, Ping(), inline=True))

    def _read_once(self) -> None:
        """Read what the port has (waiting at most the read timeout) and handle its frames."""
        port = self._serial
        if port is None:
            raise OSError(f"{self.port} is closed")
        data = port.read(max(1, port.in_waiting))
        for frame in self._receiver.feed(bytes(data)):
            self._handle(frame)
        with self._cond:
            due, self._ack_due = self._ack_due, False
            last = None if self._expected is None else (self._expected - 1) % _SEQ_MOD
        if due and last is not None:
            # One cumulative ACK covers every report read in this batch.
            self._write(encode_message(Ack(), last))

    def _handle(self, frame: Frame) -> None:
        try:
            message = decode_message(frame)
        except WireError as exc:
            with self._cond:
                self._bad_frames += 1
            _log.warning("%s: bad frame from the node: %s", self.port, exc)
            return
        if isinstance(message, Report):
            self._took_report(frame.seq, message)
        elif isinstance(message, Shutdown):
            reason = f"node shut down: {code_name(ShutdownCode, message.code)}: {message.text}"
            with self._cond:
                self._shutdown_reason = reason
                # Mid-handshake the state stays "connecting": the handshake decides.
                ready = self._state in _READY
            if ready:
                self._set_state("shutdown", reason)
        elif message.TO_NODE:
            with self._cond:
                self._bad_frames += 1
            _log.warning("%s: the node sent a host message, %s", self.port, message.NAME)
        else:
            self._took_response(frame.seq, message)

    def _took_response(self, seq: int, message: Message) -> None:
        with self._cond:
            pending = self._pending
            if (
                pending is not None
                and pending.seq == seq
                and pending.response is None
                and isinstance(message, (pending.expect, Nack))
            ):
                pending.response = message
                pending.received_at = self._clock()
                self._cond.notify_all()
                return
        _log.debug("%s: %s seq %d answers no command in flight", self.port, message.NAME, seq)

    def _took_report(self, seq: int, report: Report) -> None:
        with self._cond:
            expected = self._expected
            if expected is None or self._identify is None:
                return
            node_type = self._identify.node_type
            deliver = seq == expected
            if deliver:
                self._expected = (expected + 1) % _SEQ_MOD
                self._accepted = True
                self._delivered += 1
            elif 0 < (expected - seq) % _SEQ_MOD <= _SEQ_MOD // 2:
                self._duplicates += 1
            else:
                self._gaps += 1
            if self._accepted:
                self._ack_due = True
            handler = self.on_report
        if deliver and handler is not None:
            try:
                handler(node_type, report.input, report.value, report.time_ms)
            except Exception:
                _log.exception("%s: on_report failed for %r; carrying on", self.port, report)

    # --- commands --------------------------------------------------------------------

    def _request(self, command: Message, answer: type[_R], *, inline: bool) -> _R:
        """Send ``command`` and return its answer; CommandRefused if the node sends NACK."""
        response, _pending = self._exchange(command, inline=inline)
        if isinstance(response, Nack):
            raise self._refused(command, response)
        if not isinstance(response, answer):
            raise WireError(
                f"{command.NAME} answered with {type(response).__name__}", reason="type"
            )
        return response

    def _exchange(self, command: Message, *, inline: bool) -> tuple[Message, _Pending]:
        """Send ``command`` until answered (at most ``tries`` times): the answer, its slot.

        ``inline`` is the reader thread's own call: it reads the port while it waits.
        Other threads wait for the reader thread to hand them the answer.
        """
        if inline:
            pending = self._claim_inline(command)
        elif threading.current_thread() is self._thread:
            raise RuntimeError(
                f"{self.port}: commands cannot be sent from the link's own callbacks"
            )
        else:
            pending = self._claim_waiting(command)
        return self._transact(pending, command, inline=inline)

    def _transact(
        self, pending: _Pending, command: Message, *, inline: bool
    ) -> tuple[Message, _Pending]:
        """Send the claimed command until answered; free the slot whatever happens."""
        timing = self._timing
        try:
            raw = encode_message(command, pending.seq)
            for attempt in range(timing.tries):
                if attempt:
                    with self._cond:
                        self._retries += 1
                pending.tries = attempt + 1
                pending.sent_at = self._clock()
                self._send(pending, raw, inline=inline)
                deadline = pending.sent_at + timing.retry_interval
                answer = self._await(pending, deadline, inline=inline)
                if answer is not None:
                    return answer, pending
            raise LinkTimeout(
                f"{self.port}: no answer to {command.NAME} after "
                f"{timing.tries} tries {timing.retry_interval * 1000:.0f} ms apart"
            )
        finally:
            with self._cond:
                if self._pending is pending:
                    self._pending = None
                    self._cond.notify_all()

    def _claim_waiting(self, command: Message) -> _Pending:
        """Take the one command slot for another thread, once free and the node ready."""
        budget = self._timing.tries * self._timing.retry_interval
        with self._cond:
            self._cond.wait_for(
                lambda: (
                    self._stopping.is_set()
                    or self._state in ("refused", "closed")
                    or (self._pending is None and self._state in _READY)
                ),
                timeout=budget,
            )
            if self._state == "refused" and self._refusal is not None:
                raise self._refusal
            if self._stopping.is_set() or self._state not in _READY:
                raise DeviceUnavailable(f"node on {self.port} is {self._state}: {self._detail}")
            if self._pending is not None:
                raise LinkTimeout(f"{self.port}: another command kept the link busy")
            return self._take_slot(command)

    def _claim_inline(self, command: Message) -> _Pending:
        """Take the slot for the reader thread at once.

        While the node is not ready no other thread can hold it, so the handshake's
        commands always get it (the reader's ping checks for itself).
        """
        with self._cond:
            if self._stopping.is_set():
                raise DeviceUnavailable(f"link to {self.port} is closing")
            return self._take_slot(command)

    def _take_slot(self, command: Message) -> _Pending:
        """Claim the slot with a new SEQ (call with the condition held)."""
        seq, self._next_seq = self._next_seq, (self._next_seq + 1) % _SEQ_MOD
        self._pending = _Pending(seq, response_type(type(command)))
        return self._pending

    def _send(self, pending: _Pending, raw: bytes, *, inline: bool) -> None:
        if inline:
            self._write(raw)
            return
        with self._cond:
            if pending.error is not None:
                # The port was lost meanwhile: not a frame for the next connection.
                raise pending.error
        try:
            self._write(raw)
        except DeviceUnavailable:
            raise
        except _PORT_ERRORS as exc:
            # The reader thread sees the same fault on its next read and reconnects.
            raise DeviceUnavailable(f"{self.port}: write failed: {exc}") from exc

    def _await(self, pending: _Pending, deadline: float, *, inline: bool) -> Message | None:
        """Wait for the answer until ``deadline``; the answer, or None on timeout."""
        while True:
            with self._cond:
                if pending.error is not None:
                    raise pending.error
                if pending.response is not None:
                    return pending.response
                left = deadline - self._clock()
                if left <= 0:
                    return None
                if not inline:
                    self._cond.wait(left)
                    continue
            if self._stopping.is_set():
                raise DeviceUnavailable(f"link to {self.port} is closing")
            self._read_once()

    def _write(self, raw: bytes) -> None:
        with self._write_lock:
            port = self._serial
            if port is None:
                raise DeviceUnavailable(f"{self.port} is not open")
            port.write(raw)

    def _refused(self, command: Message, nack: Nack) -> CommandRefused:
        """The error for a NACK; a node that says it is shut down is marked so."""
        what = command.NAME
        if isinstance(command, Config):
            key = ConfigKey(command.key)
            bounds = CONFIG_BOUNDS[key]
            what = (
                f"CONFIG {key.name.lower()}={command.value} "
                f"(host bounds {bounds.low}..{bounds.high})"
            )
        if nack.code == NackCode.NODE_IS_SHUT_DOWN:
            with self._cond:
                running = self._state == "running"
            if running:
                self._set_state("shutdown", f"node is shut down: {nack.text}")
        return CommandRefused(
            f"{self.port}: node refused {what}: NACK {code_name(NackCode, nack.code)}: {nack.text}",
            code=nack.code,
            text=nack.text,
        )

    # --- state -------------------------------------------------------------------------

    def _took_identify(self, identify: Identify, *, after_reset: bool) -> None:
        """Take the node's identity and set where its reports resume."""
        with self._cond:
            previous = self._identify
            self._identify = identify
            if previous is None or self._expected is None:
                self._expected = identify.next_report
                self._accepted = False
                return
            if previous.boot_id != identify.boot_id:
                self._reboots += 1
                self._note = (
                    f"node rebooted (boot_id {previous.boot_id:#010x} -> "
                    f"{identify.boot_id:#010x}); its unacknowledged reports were lost"
                )
                _log.warning("%s: %s", self.port, self._note)
                self._shutdown_reason = ""
                self._expected = identify.next_report
                self._accepted = False
                self._node_clock.forget()
                return
            ahead = (identify.next_report - self._expected) % _SEQ_MOD
            if 0 < ahead <= _SEQ_MOD // 2:
                if not after_reset:
                    _log.warning("%s: %d reports were dropped by the node", self.port, ahead)
                self._expected = identify.next_report
            # Otherwise the node still queues reports already delivered (their ACK was
            # lost): expected stays, and they are dropped as duplicates and acknowledged.

    def _took_pong(self, pong: Message, pending: _Pending) -> Pong:
        if not isinstance(pong, Pong):
            raise WireError(f"PING answered with {type(pong).__name__}", reason="type")
        if pending.tries == 1:
            # A retried PING may be answered from the node's cache: an old clock reading.
            self._node_clock.sample(
                sent=pending.sent_at, received=pending.received_at, node_ms=pong.uptime_ms
            )
        with self._cond:
            state = self._state
        if state == "running" and pong.state == NodeState.SHUTDOWN:
            self._set_state("shutdown", "node reports it is shut down")
        elif state == "shutdown" and pong.state == NodeState.RUNNING:
            self._set_state("running", "node left shutdown")
        return pong

    def _took_config(self, answer: ConfigOk, value: int) -> None:
        if answer.value != value:
            _log.warning(
                "%s: asked for config key %d = %d, node has %d",
                self.port,
                answer.key,
                value,
                answer.value,
            )

    def _fail_pending(self, error: DriverError) -> None:
        """Fail the command in flight (call with the condition held)."""
        if self._pending is not None:
            self._pending.error = error
            self._pending = None
            self._cond.notify_all()

    def _lost(self, reason: str) -> None:
        """The port failed or the node fell silent: close, and say unplugged."""
        self._close_port()
        with self._cond:
            self._fail_pending(DeviceUnavailable(f"{self.port}: {reason}"))
            self._ack_due = False
        self._set_state("unplugged", reason)

    def _refuse(self, error: DriverError) -> None:
        self._close_port()
        with self._cond:
            self._refusal = error
        self._set_state("refused", str(error))

    def _close_port(self) -> None:
        with self._write_lock:
            port, self._serial = self._serial, None
        if port is not None:
            try:
                port.close()
            except _PORT_ERRORS as exc:
                _log.debug("%s: close failed: %s", self.port, exc)

    def _set_state(self, state: StateName, detail: str) -> None:
        with self._cond:
            if (state, detail) == (self._state, self._detail) or self._state == "closed":
                return
            self._state, self._detail = state, detail
            self._cond.notify_all()
            snapshot = self._snapshot()
        level = logging.INFO if state in ("connecting", "running", "closed") else logging.WARNING
        _log.log(level, "%s: %s%s", self.port, state, f" ({detail})" if detail else "")
        handler = self.on_state
        if handler is not None:
            try:
                handler(snapshot)
            except Exception:
                _log.exception("%s: on_state failed; carrying on", self.port)

    def _snapshot(self) -> LinkState:
        identify = self._identify
        return {
            "port": self.port,
            "state": self._state,
            "node_type": None if identify is None else identify.node_type,
            "firmware": None if identify is None else identify.firmware,
            "protocol": None if identify is None else identify.protocol,
            "boot_id": None if identify is None else identify.boot_id,
            "inputs": None if identify is None else identify.inputs,
            "reports_delivered": self._delivered,
            "duplicates_dropped": self._duplicates,
            "gaps_dropped": self._gaps,
            "framing_errors": self._receiver.framing_errors,
            "bad_frames": self._bad_frames,
            "command_retries": self._retries,
            "reboots": self._reboots,
            "detail": self._detail,
        }
