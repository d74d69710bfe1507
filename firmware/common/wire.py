# Hoyle sensor-node wire protocol, version 1: framing, CRC and the message table.
#
# Runs unchanged on the Pico, under the MicroPython unix port and under CPython (a
# host-side test may import it to compare message tables). See firmware/PROTOCOL.md.
#
# Frame: LEN u8 | SEQ u16 LE | TYPE u8 | PAYLOAD (LEN-7 bytes) | CRC u16 BE | SYNC 0x7E
# CRC-16/CCITT-FALSE over LEN..PAYLOAD, i.e. binascii.crc_hqx(frame[:LEN-3], 0xFFFF).

import struct

PROTOCOL = 1

SYNC = 0x7E
MIN_LEN = 7
MAX_LEN = 64
MAX_PAYLOAD = MAX_LEN - MIN_LEN
# A text field may use whatever the code byte in front of it leaves.
MAX_TEXT = MAX_PAYLOAD - 1
# Bytes that have not formed a frame this long after arriving are discarded.
STALE_MS = 50

# Every message, declared once: name -> (type code, struct layout of the fixed part,
# field names). A last field named "text" is not in the layout: it is the rest of the
# payload, ASCII, no terminator. Codes below 0x80 go host -> node, the rest node -> host.
MESSAGES = {
    "IDENTIFY_REQ": (0x01, "<B", ("host_protocol",)),
    "CONFIG": (0x02, "<BH", ("key", "value")),
    "ACK": (0x03, "<", ()),
    "PING": (0x04, "<", ()),
    "RESET": (0x05, "<", ()),
    "QUERY": (0x06, "<", ()),
    "IDENTIFY": (0x81, "<BBBBBIHB", ("protocol", "node_type", "fw_major", "fw_minor",
                                     "fw_patch", "boot_id", "next_report", "inputs")),
    "CONFIG_OK": (0x82, "<BH", ("key", "value")),
    "PONG": (0x84, "<IBB", ("uptime_ms", "unacked", "state")),
    "RESET_OK": (0x85, "<", ()),
    "QUERY_OK": (0x86, "<", ()),
    "NACK": (0x8F, "<B", ("code", "text")),
    "REPORT": (0x90, "<BBI", ("input", "value", "time_ms")),
    "SHUTDOWN": (0x91, "<B", ("code", "text")),
}

# type code -> name, built from MESSAGES so the codes are written down only once.
NAMES = {}
for _name in MESSAGES:
    NAMES[MESSAGES[_name][0]] = _name

# CONFIG keys: key -> (name, lowest, highest, default).
CONFIG_DEBOUNCE_MS = 1
CONFIG_RETRANSMIT_MS = 2
CONFIG_KEYS = {
    CONFIG_DEBOUNCE_MS: ("debounce_ms", 1, 200, 10),
    CONFIG_RETRANSMIT_MS: ("retransmit_ms", 10, 1000, 50),
}

NACK_UNKNOWN_TYPE = 1
NACK_BAD_LENGTH = 2
NACK_OUT_OF_BOUNDS = 3
NACK_PROTOCOL = 4
NACK_SHUT_DOWN = 5

SHUTDOWN_IMPOSSIBLE_INPUT = 1
SHUTDOWN_INTERNAL_ERROR = 2
SHUTDOWN_WATCHDOG = 3

STATE_RUNNING = 0
STATE_SHUTDOWN = 1

NODE_TYPES = {1: "pindeck", 2: "pockets", 3: "foulline"}


def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of a bytes-like object; equals binascii.crc_hqx(data, 0xFFFF)."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def encode(type_code, seq, payload=b""):
    """One frame's bytes. Raises ValueError for a field that does not fit."""
    if not 0 <= type_code <= 0xFF:
        raise ValueError("type out of range: %d" % type_code)
    if not 0 <= seq <= 0xFFFF:
        raise ValueError("seq out of range: %d" % seq)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload of %d bytes, at most %d" % (len(payload), MAX_PAYLOAD))
    length = len(payload) + MIN_LEN
    frame = bytearray(length)
    struct.pack_into("<BHB", frame, 0, length, seq, type_code)
    frame[4:4 + len(payload)] = payload
    crc = crc16(memoryview(frame)[:length - 3])
    frame[length - 3] = crc >> 8
    frame[length - 2] = crc & 0xFF
    frame[length - 1] = SYNC
    return bytes(frame)


def to_ascii(text):
    """A str as ASCII bytes (anything else becomes '?'), cut to fit a text field."""
    out = bytearray()
    for ch in text[:MAX_TEXT]:
        code = ord(ch)
        out.append(code if 32 <= code < 127 else 0x3F)
    return bytes(out)


def from_ascii(data):
    """ASCII bytes as a str; bytes outside printable ASCII become '?', never an error."""
    return "".join([chr(b) if 32 <= b < 127 else "?" for b in data])


def pack(name, fields):
    """(type code, payload bytes) of message `name` from a dict of its fields."""
    type_code, layout, names = MESSAGES[name]
    fixed = names
    text = b""
    if names and names[-1] == "text":
        fixed = names[:-1]
        text = to_ascii(fields.get("text", ""))
    values = [fields[n] for n in fixed]
    return type_code, struct.pack(layout, *values) + text


def unpack(type_code, payload):
    """(name, fields dict) of a received payload. ValueError: unknown type or wrong length."""
    name = NAMES.get(type_code)
    if name is None:
        raise ValueError("unknown type 0x%02X" % type_code)
    _, layout, names = MESSAGES[name]
    size = struct.calcsize(layout)
    has_text = bool(names) and names[-1] == "text"
    if len(payload) < size or (not has_text and len(payload) != size):
        raise ValueError("%s payload of %d bytes, expected %d" % (name, len(payload), size))
    fields = {}
    values = struct.unpack(layout, bytes(payload[:size]))
    for i in range(len(values)):
        fields[names[i]] = values[i]
    if has_text:
        fields["text"] = from_ascii(payload[size:])
    return name, fields


def payload_ok(type_code, payload):
    """Whether `payload` has a length that message `type_code` allows."""
    try:
        unpack(type_code, payload)
    except ValueError:
        return False
    return True


def frame(name, seq, fields=None):
    """Bytes of message `name` with sequence number `seq`."""
    type_code, payload = pack(name, fields or {})
    return encode(type_code, seq, payload)


class Frame:
    """One received frame (its CRC and sync already checked)."""

    __slots__ = ("type", "seq", "payload")

    def __init__(self, type_code, seq, payload):
        self.type = type_code
        self.seq = seq
        self.payload = payload

    def __repr__(self):
        return "Frame(0x%02X, %d, %r)" % (self.type, self.seq, self.payload)


class Receiver:
    """Finds frames in a byte stream and resynchronises after noise (PROTOCOL.md, Receiver).

    feed() returns the frames completed by the new bytes. When it is given the node time,
    an incomplete frame whose first byte arrived STALE_MS ago or more is noise (a frame
    takes milliseconds to arrive): it is discarded a byte at a time, so a frame that
    follows it is still found. expire() does the same when no bytes come.
    framing_errors counts frames rejected for a bad SYNC or CRC, and stale fragments
    discarded (one each: the bytes from a stale head up to the next frame found);
    skipped counts every byte dropped without being in a frame.
    """

    def __init__(self, stale_ms=STALE_MS):
        self.stale_ms = stale_ms
        self.buf = bytearray()
        self.framing_errors = 0
        self.skipped = 0
        # Arrival times of the chunks still (partly) buffered: _starts[i] is the stream
        # offset of chunk i's first byte, _times[i] its time; _base is buf[0]'s offset.
        self._base = 0
        self._starts = []
        self._times = []

    def feed(self, data, now_ms=None):
        """Add received bytes (arrived at node time now_ms, if given); return frames found."""
        if data:
            self._starts.append(self._base + len(self.buf))
            self._times.append(now_ms)
            self.buf.extend(data)
        frames = []
        self._parse(frames, now_ms)
        return frames

    def expire(self, now_ms):
        """Discard stale incomplete frames (nothing new arrived); return frames found."""
        frames = []
        self._parse(frames, now_ms)
        return frames

    def _head_time(self):
        starts = self._starts
        while len(starts) > 1 and starts[1] <= self._base:
            starts.pop(0)
            self._times.pop(0)
        return self._times[0] if starts else None

    def _drop(self, count):
        self.buf = self.buf[count:]
        self._base += count
        self.skipped += count

    def _parse(self, frames, now_ms):
        # counted: the stale fragment being dropped (the bytes up to the next frame) has
        # had its one framing error.
        counted = False
        while self.buf:
            buf = self.buf
            length = buf[0]
            if length < MIN_LEN or length > MAX_LEN:
                self._drop(1)
            elif len(buf) < length:
                arrived = self._head_time()
                if now_ms is None or arrived is None or now_ms - arrived < self.stale_ms:
                    return
                if not counted:
                    self.framing_errors += 1
                    counted = True
                self._drop(1)
            elif buf[length - 1] != SYNC or crc16(memoryview(buf)[:length - 3]) != (
                    (buf[length - 3] << 8) | buf[length - 2]):
                self.framing_errors += 1
                self._drop(1)
            else:
                seq = buf[1] | (buf[2] << 8)
                frames.append(Frame(buf[3], seq, bytes(buf[4:length - 3])))
                self.buf = buf[length:]
                self._base += length
                counted = False
        self._starts = []
        self._times = []
