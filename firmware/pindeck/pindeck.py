# Pin deck node (node type 1): ten pin spots, the ball detector and the pinsetter.
#
# Every input is a dry contact (or an open-collector output) to GND, read with the
# internal pull-up, so active pulls the pin low. Which GPIO each input is on is
# board wiring, in main.py.
#   inputs 1-10  pin spot switches, closed while a pin stands on the spot (1 = standing)
#   input 11     ball detector at the pit, low while a ball passes (1 = ball passing)
#   input 12     pinsetter cycle contact, closed while the pinsetter cycles (1 = cycling)

from debounce import TogetherRule
from node import Switch

NODE_TYPE = 1
INPUTS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
BALL_DETECTOR = 11
PINSETTER = 12
# The pinsetter does not cycle while a ball is still on its way to the pit; both
# active this long means a stuck sensor or crossed wiring.
TOGETHER_LIMIT_MS = 5000


def build(board, now_ms):
    """(inputs, rules) of a pin deck; board.pin(input) and board.counter(pin) give the pins."""
    inputs = []
    for number in INPUTS:
        pin = board.pin(number)
        inputs.append(Switch(number, pin, now_ms, active_low=True, counter=board.counter(pin)))
    rules = [TogetherRule(BALL_DETECTOR, PINSETTER, TOGETHER_LIMIT_MS,
                          "ball detector and pinsetter both active > 5 s")]
    return inputs, rules
