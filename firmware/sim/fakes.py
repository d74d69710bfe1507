# Fake hardware for running node code under the MicroPython unix port: the simulator
# (run_node.py) and the firmware tests build nodes on a SimBoard.


class FakePin:
    """A GPIO input with the pull-up: value() reads the level, value(level) drives it."""

    def __init__(self, level=1):
        self.level = level

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = 1 if level else 0
        return None


class FakeUart:
    """A UART's receive side: bytes put in with inject() come out of read()."""

    def __init__(self):
        self.pending = bytearray()

    def inject(self, data):
        self.pending.extend(data)

    def read(self):
        if not self.pending:
            return None
        data = bytes(self.pending)
        self.pending = bytearray()
        return data


class SimBoard:
    """The board interface of the node types' build(), with fake pins and UARTs.

    No edge counters: the debouncer counts the changes it samples.
    """

    def __init__(self):
        self.pins = {}
        self.uarts = {}

    def pin(self, number):
        pin = FakePin()
        self.pins[number] = pin
        return pin

    def counter(self, pin):
        return None

    def uart(self, name, baudrate):
        uart = FakeUart()
        self.uarts[name] = uart
        return uart


def drive(node_input, value):
    """Make `node_input` read `value` (0/1 for a switch, a byte for a reader input)."""
    uart = getattr(node_input, "uart", None)
    if uart is not None:
        uart.inject(bytes([value]))
    elif node_input.active_low:
        node_input.pin.value(0 if value else 1)
    else:
        node_input.pin.value(1 if value else 0)


def settle(inputs, now_ms):
    """Drive every switch to inactive and take that as its steady state (simulated start)."""
    for node_input in inputs:
        if getattr(node_input, "uart", None) is None:
            drive(node_input, 0)
        node_input.restart(now_ms)
