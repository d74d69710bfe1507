# Pockets node (node type 2): six pocket throats and the ball-return reader.
#
#   inputs 1-6  pocket throat microswitches to GND, read with the internal pull-up,
#               closed while a ball rests in the throat (1 = ball): 1 corner-left-foot,
#               2 side-left, 3 corner-left-head, 4 corner-right-head, 5 side-right,
#               6 corner-right-foot
#   input 7     ball identity: the number of the last ball the ball-return reader saw
#               (0 = none yet)
#
# Ball-return reader protocol (a UART, 9600 8N1, wiring in main.py): the reader sends
# one byte per ball that passes it, the ball's number 1..255; a 0 byte means it lost
# the ball it was reading. Each byte is one REPORT of input 7 (the same number twice
# is two balls), time-stamped on arrival, not debounced.

from node import Switch

NODE_TYPE = 2
POCKETS = (1, 2, 3, 4, 5, 6)
BALL_IDENTITY = 7
READER_BAUD = 9600


class BallReader:
    """Input 7: each byte from the reader is a ball number, reported as it arrives."""

    def __init__(self, number, uart, now_ms):
        self.number = number
        self.uart = uart
        self.value = 0
        self.since = now_ms

    def poll(self, now_ms, debounce_ms):
        data = self.uart.read()
        if not data:
            return ()
        self.value = data[-1]
        self.since = now_ms
        return [(ball, now_ms) for ball in data]

    def fault(self):
        return None

    def restart(self, now_ms):
        """Drop what the reader sent meanwhile: balls read during shutdown are not news."""
        self.uart.read()
        self.value = 0
        self.since = now_ms


def build(board, now_ms):
    """(inputs, rules) of a pockets node; board.uart("reader", baud) is the reader."""
    inputs = []
    for number in POCKETS:
        pin = board.pin(number)
        inputs.append(Switch(number, pin, now_ms, active_low=True, counter=board.counter(pin)))
    inputs.append(BallReader(BALL_IDENTITY, board.uart("reader", READER_BAUD), now_ms))
    return inputs, []
