# Test doubles for the firmware tests: a link stream, a host that speaks the protocol
# through it, and a node built on fake pins with a clock the test moves by hand.

import json

import fakes
import wire
from node import Node


def _parent(path):
    return path.rsplit("/", 1)[0] if "/" in path else "."


FIRMWARE = _parent(__file__) + "/.."


def golden():
    with open(FIRMWARE + "/golden.json") as f:
        return json.load(f)


def check(condition, message="check failed"):
    if not condition:
        raise AssertionError(message)


def equal(actual, expected, what="value"):
    if actual != expected:
        raise AssertionError("%s: %r != %r" % (what, actual, expected))


class FakeStream:
    """The node's link: tests put host bytes in `incoming`, node bytes land in `sent`."""

    def __init__(self):
        self.incoming = bytearray()
        self.sent = bytearray()

    def read(self):
        if not self.incoming:
            return None
        data = bytes(self.incoming)
        self.incoming = bytearray()
        return data

    def write(self, data):
        self.sent.extend(data)


class Bench:
    """A node of one type on fake pins, a fake clock, and a host end of its link."""

    def __init__(self, kind, boot_id=0x12345678):
        self.kind = kind
        self.now = 0
        self.stream = FakeStream()
        self.board = fakes.SimBoard()
        inputs, rules = kind.build(self.board, self.now)
        fakes.settle(inputs, self.now)
        self.node = Node(self.stream, kind.NODE_TYPE, inputs, self.now, rules, boot_id=boot_id)
        self.host_rx = wire.Receiver()
        self.seq = 100

    def step(self, ms=1, count=1):
        """Advance the clock by `ms` and poll, `count` times."""
        for _ in range(count):
            self.now += ms
            self.node.poll(self.now)

    def set(self, number, value):
        fakes.drive(self.node.by_number[number], value)

    def send(self, name, seq, fields=None):
        self.stream.incoming.extend(wire.frame(name, seq, fields))

    def command(self, name, fields=None, seq=None):
        """Send a command with a new SEQ (or `seq`), poll once, return the frames sent."""
        if seq is None:
            self.seq = (self.seq + 1) & 0xFFFF
            seq = self.seq
        self.send(name, seq, fields)
        self.step(0)
        return self.received()

    def received(self):
        """(name, seq, fields) of every frame the node sent since the last call."""
        data = bytes(self.stream.sent)
        self.stream.sent = bytearray()
        out = []
        for frame in self.host_rx.feed(data):
            name, fields = wire.unpack(frame.type, frame.payload)
            out.append((name, frame.seq, fields))
        return out

    def only(self, name=None):
        """The single frame the node sent since the last call (of message `name`)."""
        frames = self.received()
        equal(len(frames), 1, "frames sent: %r" % (frames,))
        if name is not None:
            equal(frames[0][0], name, "message")
        return frames[0]
