# A sensor node under the MicroPython unix port, for tests and the service's
# sim-firmware backend:
#
#     micropython firmware/sim/run_node.py <pindeck|pockets|foulline> <control_fifo>
#
# stdin/stdout are the node's USB serial link (raw bytes; the caller attaches a pty or
# pipes). The control FIFO takes lines "set <input> <value>" (drive a fake input) and
# "quit". Exits 0 on "quit", on end of stdin (the far end closed) or when stdout is
# gone; 2 on bad arguments or a control FIFO it cannot open. Logs go to stderr only.
# See firmware/README.md.

import select
import sys
import time


def _parent(path):
    return path.rsplit("/", 1)[0] if "/" in path else "."


FIRMWARE = _parent(__file__) + "/.."
NODE_TYPES = ("pindeck", "pockets", "foulline")
# How long the loop sleeps waiting for link or control bytes; the inputs are sampled
# at least this often.
POLL_MS = 2
# Longer control lines are cut; none of the valid ones comes close.
LINE_MAX = 100


def log(text):
    sys.stderr.write("run_node: %s\n" % text)


class Control:
    """Reads control lines from the FIFO without blocking."""

    def __init__(self, path):
        # Read-write: the open does not wait for a writer, and writers may come and go
        # without an end-of-file turning up on every poll.
        self.file = open(path, "r+b")
        self.poller = select.poll()
        self.poller.register(self.file, select.POLLIN)
        self.partial = bytearray()

    def lines(self):
        """The complete lines written since the last call, as ASCII str."""
        lines = []
        while self.poller.poll(0):
            byte = self.file.read(1)
            if byte == b"\n":
                lines.append("".join([chr(b) for b in self.partial if b < 128]))
                self.partial = bytearray()
            elif byte and len(self.partial) < LINE_MAX:
                self.partial.extend(byte)
        return lines


# Linux termios bits: echo, canonical lines, signal characters; output processing.
_LFLAG_COOKED = 0o10 | 0o2 | 0o1
_OFLAG_OPOST = 0o1


def _raw_mode(fd):
    # A pty left in cooked mode would echo frames back and turn 0x0A into 0x0D 0x0A.
    # termios.setraw() discards unread input, so it is used only when the caller has
    # not made the tty raw already: the host may have written before we got here.
    try:
        import termios
        attrs = termios.tcgetattr(fd)
        if attrs[3] & _LFLAG_COOKED or attrs[1] & _OFLAG_OPOST:
            termios.setraw(fd)
    except (ImportError, OSError):
        pass  # not a tty: pipes pass bytes untouched


def main(argv):
    if len(argv) != 3 or argv[1] not in NODE_TYPES:
        log("usage: run_node.py <%s> <control_fifo>" % "|".join(NODE_TYPES))
        return 2
    kind_name = argv[1]
    sys.path.insert(0, FIRMWARE + "/sim")
    sys.path.insert(0, FIRMWARE + "/" + kind_name)
    sys.path.insert(0, FIRMWARE + "/common")
    import micropython

    import fakes
    import link
    from node import Clock, Node

    kind = __import__(kind_name)
    try:
        control = Control(argv[2])
    except OSError as exc:
        log("cannot open control FIFO %s: %s" % (argv[2], exc))
        return 2
    _raw_mode(0)
    _raw_mode(1)
    micropython.kbd_intr(-1)
    stream = link.PolledStream(sys.stdin.buffer, sys.stdout.buffer)
    clock = Clock(time.ticks_ms, time.ticks_diff)
    board = fakes.SimBoard()
    inputs, rules = kind.build(board, clock.now())
    fakes.settle(inputs, clock.now())
    node = Node(stream, kind.NODE_TYPE, inputs, clock.now(), rules, log=log)
    by_number = node.by_number
    waiter = select.poll()
    waiter.register(sys.stdin.buffer, select.POLLIN)
    waiter.register(control.file, select.POLLIN)
    log("ready: %s node, boot_id 0x%08X" % (kind_name, node.boot_id))
    while True:
        waiter.poll(POLL_MS)
        for line in control.lines():
            words = line.split()
            if words == ["quit"]:
                log("quit")
                return 0
            try:
                if len(words) != 3 or words[0] != "set":
                    raise ValueError("expected 'set <input> <value>' or 'quit'")
                number = int(words[1])
                value = int(words[2])
                if number not in by_number or not 0 <= value <= 255:
                    raise ValueError("no input %d or value %d out of 0..255" % (number, value))
            except ValueError as exc:
                log("ignored control line %r: %s" % (line, exc))
                continue
            fakes.drive(by_number[number], value)
        try:
            node.poll(clock.now())
        except OSError as exc:
            log("link write failed (%s): exiting" % exc)
            return 0
        if stream.closed:
            log("link closed: exiting")
            return 0


sys.exit(main(sys.argv))
