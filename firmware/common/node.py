# The sensor node's protocol engine (firmware/PROTOCOL.md): commands, the report queue
# with go-back-N retransmission, cumulative ACKs and the shutdown state.
#
# Pure logic: it is handed a UART-like stream (read() -> bytes or None without
# blocking, write(bytes)), its inputs and node times, and is driven by calling
# poll(now_ms) from a main loop. Nothing here imports `machine`.

import os

import wire
from debounce import Debouncer

FW_VERSION = (1, 0, 0)
QUEUE_MAX = 64
SHUTDOWN_EVERY_MS = 1000

_IDENTIFY_REQ = wire.MESSAGES["IDENTIFY_REQ"][0]
_CONFIG = wire.MESSAGES["CONFIG"][0]
_ACK = wire.MESSAGES["ACK"][0]
_PING = wire.MESSAGES["PING"][0]
_RESET = wire.MESSAGES["RESET"][0]
_QUERY = wire.MESSAGES["QUERY"][0]
# Commands a node in shutdown still carries out.
_IN_SHUTDOWN = (_IDENTIFY_REQ, _PING, _RESET)


def random_boot_id():
    """A random u32 that tells the host this node has restarted."""
    data = os.urandom(4)
    return data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)


class Clock:
    """Node time: ms since start, from a wrapping ticks counter (time.ticks_ms).

    MicroPython's ticks wrap at 2**30 ms (12.4 days); this count does not, and the
    wire carries it modulo 2**32. now() must be called at least once every few days,
    which any main loop does.
    """

    def __init__(self, ticks_ms, ticks_diff):
        self._ticks_ms = ticks_ms
        self._ticks_diff = ticks_diff
        self._last = ticks_ms()
        self.ms = 0

    def now(self):
        ticks = self._ticks_ms()
        self.ms += self._ticks_diff(ticks, self._last)
        self._last = ticks
        return self.ms


class Switch:
    """A contact read from a pin (anything with value() -> 0/1), debounced.

    active_low: the contact pulls the pin to ground against the pull-up, so a low
    level means active (1 on the wire). counter: an optional edge counter with take()
    (an interrupt on the board) that sees changes faster than the loop polls.
    """

    def __init__(self, number, pin, now_ms, active_low=True, counter=None):
        self.number = number
        self.pin = pin
        self.active_low = active_low
        self.counter = counter
        self.debouncer = Debouncer(self.read(), now_ms)

    def read(self):
        """The raw logical value now: 1 active, 0 not."""
        level = 1 if self.pin.value() else 0
        return 1 - level if self.active_low else level

    @property
    def value(self):
        return self.debouncer.value

    @property
    def since(self):
        return self.debouncer.since

    def restart(self, now_ms):
        """Take the current level as steady, forget oscillation (after RESET)."""
        if self.counter is not None:
            self.counter.take()
        self.debouncer.restart(self.read(), now_ms)

    def poll(self, now_ms, debounce_ms):
        """The debounced changes since the last poll, as (value, time_ms) pairs."""
        edges = self.counter.take() if self.counter is not None else None
        if self.debouncer.sample(self.read(), now_ms, debounce_ms, edges):
            return ((self.debouncer.value, self.debouncer.since),)
        return ()

    def fault(self):
        """Text of an impossible-input shutdown this input calls for, or None."""
        if self.debouncer.oscillating:
            return "input %d oscillating" % self.number
        return None


class Node:
    """One sensor node's protocol state. Drive it with poll(now_ms) from a loop.

    inputs: objects with number, value, since, poll(now_ms, debounce_ms) -> iterable of
    (value, time_ms), fault() -> text or None, restart(now_ms); numbered from 1 in order.
    rules: objects with check(inputs by number, now_ms) -> shutdown text or None.
    log: a function taking one str (never print on the board: stdout is the link).
    """

    def __init__(self, stream, node_type, inputs, now_ms, rules=(), boot_id=None, log=None):
        self.stream = stream
        self.node_type = node_type
        self.inputs = list(inputs)
        self.by_number = {}
        for inp in self.inputs:
            self.by_number[inp.number] = inp
        self.rules = list(rules)
        self.boot_id = random_boot_id() if boot_id is None else boot_id
        self.log = log or (lambda text: None)
        self.config = {}
        for key in wire.CONFIG_KEYS:
            self.config[key] = wire.CONFIG_KEYS[key][3]
        self.receiver = wire.Receiver()
        self.host_protocol = None
        self.mismatch = False
        self.shutdown = None
        self.queue = []
        self.next_seq = 0
        self._shutdown_due = 0
        self._retransmit_from = now_ms
        self._last_command = None
        self._query_pending = False
        self._out = []

    @property
    def state(self):
        return wire.STATE_RUNNING if self.shutdown is None else wire.STATE_SHUTDOWN

    @property
    def next_report(self):
        """Seq of the oldest unacknowledged report, or of the next new one."""
        return self.queue[0][0] if self.queue else self.next_seq

    def poll(self, now_ms):
        """One step: read the link, answer commands, sample inputs, (re)send frames."""
        data = self.stream.read()
        if data:
            frames = self.receiver.feed(data, now_ms)
        else:
            frames = self.receiver.expire(now_ms)
        try:
            for frame in frames:
                self._handle(frame, now_ms)
            if self.shutdown is None:
                self._sense(now_ms)
        except Exception as exc:  # a bug or a failing pin: stop rather than report garbage
            self.enter_shutdown(wire.SHUTDOWN_INTERNAL_ERROR,
                                "internal error: %s" % repr(exc), now_ms)
        self._timers(now_ms)
        self._flush()

    def enter_shutdown(self, code, text, now_ms):
        """Stop reporting inputs and announce why; the first reason stands until RESET."""
        if self.shutdown is not None:
            return
        self.shutdown = (code, text)
        self._shutdown_due = now_ms
        self.log("shutdown %d: %s" % (code, text))

    def _flush(self):
        if self._out:
            out = self._out
            self._out = []
            self.stream.write(b"".join(out))

    def _handle(self, frame, now_ms):
        if frame.type == _ACK:
            # ACK is not a command: never answered; a malformed one is ignored.
            if not self.mismatch and not frame.payload:
                self._ack(frame.seq, now_ms)
            return
        last = self._last_command
        if (frame.type != _IDENTIFY_REQ and last is not None and last[0] == frame.seq
                and last[1] == frame.type and last[2] == frame.payload):
            self._out.append(last[3])
            return
        response = self._execute(frame, now_ms)
        self._last_command = (frame.seq, frame.type, frame.payload, response)
        self._out.append(response)
        if self._query_pending:
            self._query_pending = False
            for inp in self.inputs:
                self._report(inp.number, inp.value, inp.since, now_ms)

    def _nack(self, seq, code, text):
        return wire.frame("NACK", seq, {"code": code, "text": text})

    def _execute(self, frame, now_ms):
        t = frame.type
        seq = frame.seq
        if self.mismatch and t != _IDENTIFY_REQ:
            return self._nack(seq, wire.NACK_PROTOCOL, "protocol mismatch: host %d, node %d"
                              % (self.host_protocol, wire.PROTOCOL))
        if t >= 0x80 or t not in wire.NAMES:
            return self._nack(seq, wire.NACK_UNKNOWN_TYPE, "unknown type 0x%02X" % t)
        try:
            fields = wire.unpack(t, frame.payload)[1]
        except ValueError:
            return self._nack(seq, wire.NACK_BAD_LENGTH,
                              "bad payload length %d" % len(frame.payload))
        if self.shutdown is not None and t not in _IN_SHUTDOWN:
            return self._nack(seq, wire.NACK_SHUT_DOWN, "shut down: " + self.shutdown[1])
        if t == _IDENTIFY_REQ:
            self.host_protocol = fields["host_protocol"]
            self.mismatch = self.host_protocol != wire.PROTOCOL
            if self.mismatch:
                self.log("protocol mismatch: host %d, node %d"
                         % (self.host_protocol, wire.PROTOCOL))
            return wire.frame("IDENTIFY", seq, {
                "protocol": wire.PROTOCOL, "node_type": self.node_type,
                "fw_major": FW_VERSION[0], "fw_minor": FW_VERSION[1],
                "fw_patch": FW_VERSION[2], "boot_id": self.boot_id,
                "next_report": self.next_report, "inputs": len(self.inputs)})
        if t == _CONFIG:
            return self._configure(seq, fields["key"], fields["value"])
        if t == _PING:
            return wire.frame("PONG", seq, {
                "uptime_ms": now_ms & 0xFFFFFFFF, "unacked": len(self.queue),
                "state": self.state})
        if t == _RESET:
            self._reset(now_ms)
            return wire.frame("RESET_OK", seq)
        # QUERY, the only command left; its REPORTs follow the response (_handle).
        self._query_pending = True
        return wire.frame("QUERY_OK", seq)

    def _configure(self, seq, key, value):
        spec = wire.CONFIG_KEYS.get(key)
        if spec is None:
            return self._nack(seq, wire.NACK_OUT_OF_BOUNDS, "unknown key %d" % key)
        name, low, high, _ = spec
        if not low <= value <= high:
            return self._nack(seq, wire.NACK_OUT_OF_BOUNDS,
                              "%s %d out of %d..%d" % (name, value, low, high))
        self.config[key] = value
        return wire.frame("CONFIG_OK", seq, {"key": key, "value": value})

    def _reset(self, now_ms):
        if self.shutdown is not None:
            self.log("reset: leaving shutdown")
        self.shutdown = None
        self.queue = []
        for inp in self.inputs:
            inp.restart(now_ms)

    def _report(self, number, value, time_ms, now_ms):
        if self.shutdown is not None:
            return
        if len(self.queue) >= QUEUE_MAX:
            self.enter_shutdown(wire.SHUTDOWN_INTERNAL_ERROR, "report queue full", now_ms)
            return
        seq = self.next_seq
        self.next_seq = (seq + 1) & 0xFFFF
        data = wire.frame("REPORT", seq, {"input": number, "value": value,
                                          "time_ms": time_ms & 0xFFFFFFFF})
        if not self.queue:
            self._retransmit_from = now_ms
        self.queue.append((seq, data))
        self._out.append(data)

    def _ack(self, seq, now_ms):
        if not self.queue:
            return
        # Cumulative: seq acknowledges itself and everything queued before it. A seq
        # that is not queued (a stale or duplicated ACK) acknowledges nothing.
        covered = (seq - self.queue[0][0]) & 0xFFFF
        if covered < len(self.queue):
            self.queue = self.queue[covered + 1:]
            self._retransmit_from = now_ms

    def _sense(self, now_ms):
        debounce_ms = self.config[wire.CONFIG_DEBOUNCE_MS]
        for inp in self.inputs:
            for value, time_ms in inp.poll(now_ms, debounce_ms):
                self._report(inp.number, value, time_ms, now_ms)
            text = inp.fault()
            if text is not None:
                self.enter_shutdown(wire.SHUTDOWN_IMPOSSIBLE_INPUT, text, now_ms)
            if self.shutdown is not None:
                return
        for rule in self.rules:
            text = rule.check(self.by_number, now_ms)
            if text is not None:
                self.enter_shutdown(wire.SHUTDOWN_IMPOSSIBLE_INPUT, text, now_ms)
                return

    def _timers(self, now_ms):
        retransmit_ms = self.config[wire.CONFIG_RETRANSMIT_MS]
        if self.queue and now_ms - self._retransmit_from >= retransmit_ms:
            for entry in self.queue:
                self._out.append(entry[1])
            self._retransmit_from = now_ms
        if self.shutdown is not None and now_ms >= self._shutdown_due:
            code, text = self.shutdown
            self._out.append(wire.frame("SHUTDOWN", 0, {"code": code, "text": text}))
            self._shutdown_due = now_ms + SHUTDOWN_EVERY_MS
