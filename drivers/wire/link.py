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
maps it onto the host clock with :class:`~drivers.wire.clock.NodeClock`, fed by the
PING/PONG round trips. Commands go through :class:`~drivers.wire.commands.Commands`.

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
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, TypedDict

import serial

from drivers.closing import Closeable
from drivers.errors import DeviceUnavailable, DriverError, LinkTimeout
from drivers.serial_ports import PORT_ERRORS, announce_state, close_quietly, port_gone
from drivers.wire.clock import NodeClock
from drivers.wire.commands import Blocked, Commands, Pending
from drivers.wire.frame import SEQ_MOD, Frame, FrameReceiver, WireError
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
)

__all__ = [
    "BAUD_RATE",
    "LinkState",
    "LinkTiming",
    "NodeLink",
    "ReportHandler",
    "StateHandler",
    "StateName",
]

StateName: TypeAlias = Literal[
    "connecting", "running", "unplugged", "shutdown", "refused", "closed"
]
ReportHandler: TypeAlias = Callable[[int, int, int, int], None]
"""``on_report(node_type, input, value, node_time_ms)``."""
StateHandler: TypeAlias = Callable[["LinkState"], None]
Clock: TypeAlias = Callable[[], float]

BAUD_RATE: Final = 115200
_JOIN_TIMEOUT: Final = 5.0
_READY: Final = ("running", "shutdown")

_log = logging.getLogger(__name__)


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
    resumed_dropped: int
    """Reports dropped at the first IDENTIFY as consumed by a previous host (``resume``)."""
    framing_errors: int
    bad_frames: int
    """Frames with a good CRC that are not a valid node message."""
    command_retries: int
    reboots: int
    detail: str


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


class NodeLink(Closeable):
    """One sensor node over USB serial, kept connected through unplugs and reboots.

    ``on_report(node_type, input, value, node_time_ms)`` and ``on_state(state)`` are
    called from the link's reader thread (``on_state`` also from the thread that
    changes the state); either may be replaced at any time. A handler that raises is
    logged and the link carries on. ``node_type`` refuses any other kind of node;
    ``config`` maps config keys to values. Every key is set at every (re)connection,
    the protocol's default where none is given, so a node's settings never depend on
    what an earlier host left there. ``protocol`` is the version this host speaks: only
    a test of a node's refusal has reason to claim another.

    ``manual_ack``: a report is not acknowledged when it arrives but once the consumer
    has made it durable and calls :meth:`release`, so the node keeps (and sends again
    to a restarted host) whatever the host has not yet made its own. ``resume`` is the
    ``(boot_id, seq)`` a previous host released up to: on a node still in that boot,
    the reports up to ``seq`` are dropped as consumed (``resume_inputs``, the inputs'
    values as of then, seed :meth:`delivered_inputs`); on a rebooted node it is ignored.
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
        manual_ack: bool = False,
        resume: tuple[int, int] | None = None,
        resume_inputs: Mapping[int, int] | None = None,
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
        self._identify: Identify | None = None
        self._expected: int | None = None
        self._accepted = False
        self._ack_due = False
        self._manual_ack: Final = manual_ack
        self._resume = resume
        self._released: int | None = None
        # Until the node says otherwise, where the previous host stopped.
        self._position: tuple[int, int] | None = resume
        self._inputs: dict[int, int] = dict(resume_inputs or {}) if resume else {}
        self._resumed_dropped = 0
        # The SEQ of the last report the node held when the handshake timed its clock,
        # until it is delivered (see catching_up).
        self._backlog_end: int | None = None
        self._note = ""
        self._shutdown_reason = ""
        self._refusal: DriverError | None = None
        self._state: StateName = "connecting"
        self._detail = f"opening {port}"
        self._delivered = 0
        self._duplicates = 0
        self._gaps = 0
        self._bad_frames = 0
        self._reboots = 0
        self._thread = threading.Thread(target=self._run, name=f"hoyle-node {port}", daemon=True)
        self._commands = Commands(
            port,
            cond=self._cond,
            clock=clock,
            tries=self._timing.tries,
            retry_interval=self._timing.retry_interval,
            write=self._write,
            read_once=self._read_once,
            blocked=self._blocked,
            on_nack=self._took_nack,
            reader=self._thread,
            stopping=self._stopping,
        )
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
        answer, _pending = self._commands.exchange(command, inline=False)
        return answer

    def ping(self) -> Pong:
        """Ask the node for its clock and state (also a clock sample)."""
        return self._took_pong(*self._commands.exchange(Ping(), inline=False))

    def query(self) -> None:
        """Have the node report every input's current value (through ``on_report``)."""
        self._commands.request(Query(), QueryOk, inline=False)

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
            answer = self._commands.request(Config(known, value), ConfigOk, inline=False)
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
        self._commands.request(Reset(), ResetOk, inline=False)
        with self._cond:
            self._shutdown_reason = ""
            self._backlog_end = None
        identify = self._commands.request(IdentifyReq(self._protocol), Identify, inline=False)
        self._took_identify(identify, after_reset=True)
        # Config sent while the node was shut down was refused: it is due now.
        self._apply_config(inline=False)
        with self._cond:
            note, self._note = self._note, ""
        self._set_state("running", "; ".join(filter(None, ("node reset by the host", note))))
        self.query()

    @property
    def started(self) -> bool:
        """True once the reader thread has been started."""
        return self._thread.ident is not None

    def delivered(self) -> tuple[int, int] | None:
        """``(boot_id, seq)`` of the last report ``on_report`` returned from, or None.

        Before the node is identified, a link made with ``resume`` answers that.
        """
        with self._cond:
            return self._position

    def catching_up(self) -> bool:
        """True while the link connects, or while the node sends again what it held then.

        A node that queued reports while no host took them (a restarted service) sends
        them again once the link has timed its clock. Until the last of them is
        delivered, a report still to come may be older than one another node's link has
        already delivered: a consumer merging several nodes' reports in time order waits
        for it (:class:`~drivers.lane.NodeReports`).
        """
        with self._cond:
            if self._state == "connecting":
                return not self._stopping.is_set()
            end, position, identify = self._backlog_end, self._position, self._identify
            if end is None or identify is None or self._state != "running":
                return False
            if position is not None and position[0] == identify.boot_id and not (
                    0 < (end - position[1]) % SEQ_MOD <= SEQ_MOD // 2):
                self._backlog_end = None
                return False
            return True

    def delivered_inputs(self) -> tuple[tuple[int, int], dict[int, int]] | None:
        """:meth:`delivered` and each input's value as of that report, read together."""
        with self._cond:
            if self._position is None:
                return None
            return self._position, dict(self._inputs)

    def release(self, seq: int, *, boot_id: int | None = None) -> None:
        """With ``manual_ack``: every report up to ``seq`` is consumed; acknowledge them.

        Cumulative. Ignored if ``boot_id`` is given and the node is no longer in that
        boot; ValueError if ``seq`` was not delivered yet (the node would drop it unread).
        """
        with self._cond:
            identify, expected = self._identify, self._expected
            if identify is None or expected is None or self._position is None:
                return
            if boot_id is not None and boot_id != identify.boot_id:
                return
            if (expected - 1 - seq) % SEQ_MOD >= SEQ_MOD // 2:
                raise ValueError(f"report {seq} of {self.port} was not delivered yet")
            self._released = seq
        # A failed write is no loss: the node sends the reports again and the next
        # duplicate is answered with this ACK.
        with contextlib.suppress(DeviceUnavailable, *PORT_ERRORS):
            self._write(encode_message(Ack(), seq))

    def close(self) -> None:
        """Stop the reader thread (bounded wait) and close the port."""
        self._stopping.set()
        with self._cond:
            self._commands.fail(DeviceUnavailable(f"link to {self.port} closed"))
            self._cond.notify_all()
        with self._write_lock:
            port = self._serial
        cancel = getattr(port, "cancel_read", None)
        if cancel is not None:
            # Wakes the reader from its read at once (pyserial on POSIX).
            with contextlib.suppress(*PORT_ERRORS):
                cancel()
        if self._thread.ident is not None and threading.current_thread() is not self._thread:
            self._thread.join(_JOIN_TIMEOUT)
            if self._thread.is_alive():
                _log.error("%s: reader thread still busy after %.0f s", self.port, _JOIN_TIMEOUT)
        self._close_port()
        self._set_state("closed", "link closed")


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
            except PORT_ERRORS as exc:
                self._lost(f"port failed: {exc}")
        self._close_port()

    def _connect(self) -> bool:
        """Open the port and identify the node; False, with the state saying why, if not."""
        if port_gone(self.port):
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
        except (*PORT_ERRORS, ValueError) as exc:
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
        except PORT_ERRORS as exc:
            self._lost(f"port failed: {exc}")
            return False
        return True

    def _handshake(self) -> None:
        """IDENTIFY, PING, CONFIG and QUERY on a freshly opened port."""
        identify = self._commands.request(IdentifyReq(self._protocol), Identify, inline=True)
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
        pong = self._took_pong(*self._commands.exchange(Ping(), inline=True))
        with self._cond:
            self._backlog_end = ((identify.next_report + pong.unacked - 1) % SEQ_MOD
                                 if pong.unacked else None)
        if pong.state == NodeState.SHUTDOWN:
            with self._cond:
                reason = self._shutdown_reason
            self._set_state(
                "shutdown", reason or "node is shut down; its SHUTDOWN frame gives the reason"
            )
            return
        self._apply_config(inline=True)
        self._commands.request(Query(), QueryOk, inline=True)
        with self._cond:
            self._refusal = None
            note, self._note = self._note, ""
        self._set_state("running", note)

    def _apply_config(self, *, inline: bool) -> None:
        """Set every config key on the node; a refusal is logged and noted in the state."""
        for key, value in sorted(self.config.items()):
            try:
                answer = self._commands.request(Config(key, value), ConfigOk, inline=inline)
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
            if port_gone(self.port):
                raise OSError(f"{self.port} disappeared")
            # A command another thread has in flight is health check enough.
            exchanged = self._commands.exchange_if_idle(Ping())
            if exchanged is not None:
                self._took_pong(*exchanged)

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
            if self._manual_ack:
                last = self._released
            else:
                last = None if self._expected is None else (self._expected - 1) % SEQ_MOD
        if due and last is not None:
            # One cumulative ACK covers every report read in this batch.
            self._write(encode_message(Ack(), last))

    def _write(self, raw: bytes) -> None:
        with self._write_lock:
            port = self._serial
            if port is None:
                raise DeviceUnavailable(f"{self.port} is not open")
            port.write(raw)

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
        elif message.TO_DEVICE:
            with self._cond:
                self._bad_frames += 1
            _log.warning("%s: the node sent a host message, %s", self.port, message.NAME)
        elif not self._commands.took_response(frame.seq, message):
            _log.debug(
                "%s: %s seq %d answers no command in flight", self.port, message.NAME, frame.seq
            )

    def _took_report(self, seq: int, report: Report) -> None:
        with self._cond:
            expected = self._expected
            if expected is None or self._identify is None or not self._node_clock.timed:
                # Not taken (nor acknowledged) before the node's clock is timed: a report
                # the node sends again at connecting would be dated "now", and a burst of
                # them would all share one time. The node sends it again once timed.
                return
            node_type = self._identify.node_type
            deliver = seq == expected
            if deliver:
                self._expected = (expected + 1) % SEQ_MOD
                self._accepted = True
                self._delivered += 1
            elif 0 < (expected - seq) % SEQ_MOD <= SEQ_MOD // 2:
                self._duplicates += 1
            else:
                self._gaps += 1
            if self._accepted or self._released is not None:
                self._ack_due = True
            handler = self.on_report
            boot_id = self._identify.boot_id
        if not deliver:
            return
        if handler is not None:
            try:
                handler(node_type, report.input, report.value, report.time_ms)
            except Exception:
                _log.exception("%s: on_report failed for %r; carrying on", self.port, report)
        # Only once the handler is done: a consumer that reads the position while the
        # handler waits on it does not count this report as consumed.
        with self._cond:
            if self._identify is not None and self._identify.boot_id == boot_id:
                self._position = (boot_id, seq)
                self._inputs[report.input] = report.value

    # --- state -------------------------------------------------------------------------

    def _took_identify(self, identify: Identify, *, after_reset: bool) -> None:
        """Take the node's identity and set where its reports resume."""
        with self._cond:
            previous = self._identify
            self._identify = identify
            if previous is None or self._expected is None:
                self._expected = identify.next_report
                self._accepted = False
                self._resume_at(identify)
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
                self._released = self._position = None
                self._inputs.clear()
                self._node_clock.forget()
                return
            ahead = (identify.next_report - self._expected) % SEQ_MOD
            if 0 < ahead <= SEQ_MOD // 2:
                if not after_reset:
                    _log.warning("%s: %d reports were dropped by the node", self.port, ahead)
                self._expected = identify.next_report
            # Otherwise the node still queues reports already delivered (their ACK was
            # lost): expected stays, and they are dropped as duplicates and acknowledged.

    def _resume_at(self, identify: Identify) -> None:
        """Skip the reports a previous host consumed (call with the condition held)."""
        resume, self._resume = self._resume, None
        if resume is None:
            return
        boot_id, seq = resume
        if boot_id != identify.boot_id:
            self._position = None
            self._inputs.clear()
            self._note = (
                f"node rebooted since a previous host consumed its reports up to {seq} "
                f"(boot_id {boot_id:#010x} -> {identify.boot_id:#010x}); "
                "what it had not sent then is gone"
            )
            _log.warning("%s: %s", self.port, self._note)
            return
        self._released = seq
        behind = (seq + 1 - identify.next_report) % SEQ_MOD
        if 0 < behind <= SEQ_MOD // 2:
            # Still queued on the node: they come as duplicates, are dropped and ACKed.
            self._expected = (seq + 1) % SEQ_MOD
            self._resumed_dropped = behind
            self._note = f"{behind} reports consumed before a restart dropped"
            _log.info("%s: resuming after report %d: %s", self.port, seq, self._note)

    def _took_pong(self, pong: Message, pending: Pending) -> Pong:
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

    def _took_nack(self, nack: Nack) -> None:
        """A node that refuses a command because it is shut down is marked so."""
        if nack.code == NackCode.NODE_IS_SHUT_DOWN:
            with self._cond:
                running = self._state == "running"
            if running:
                self._set_state("shutdown", f"node is shut down: {nack.text}")

    def _blocked(self) -> Blocked | None:
        """Why other threads cannot send commands now, or None (call with the condition held)."""
        stopping = self._stopping.is_set()
        if self._state in _READY and not stopping:
            return None
        if self._state == "refused" and self._refusal is not None:
            return Blocked(self._refusal, final=True)
        return Blocked(
            DeviceUnavailable(f"node on {self.port} is {self._state}: {self._detail}"),
            final=stopping or self._state in ("refused", "closed"),
        )

    def _lost(self, reason: str) -> None:
        """The port failed or the node fell silent: close, and say unplugged."""
        self._close_port()
        with self._cond:
            self._commands.fail(DeviceUnavailable(f"{self.port}: {reason}"))
            self._ack_due = False
            self._backlog_end = None
        self._set_state("unplugged", reason)

    def _refuse(self, error: DriverError) -> None:
        self._close_port()
        with self._cond:
            self._refusal = error
        self._set_state("refused", str(error))

    def _close_port(self) -> None:
        with self._write_lock:
            port, self._serial = self._serial, None
        close_quietly(port, self.port, _log)

    def _set_state(self, state: StateName, detail: str) -> None:
        with self._cond:
            if (state, detail) == (self._state, self._detail) or self._state == "closed":
                return
            self._state, self._detail = state, detail
            self._cond.notify_all()
            snapshot = self._snapshot()
        announce_state(self.port, state, detail, snapshot, self.on_state, "on_state", _log)

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
            "resumed_dropped": self._resumed_dropped,
            "framing_errors": self._receiver.framing_errors,
            "bad_frames": self._bad_frames,
            "command_retries": self._commands.retries,
            "reboots": self._reboots,
            "detail": self._detail,
        }
