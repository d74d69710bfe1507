# Foul-line node (node type 3): one infrared beam across the foul line.
#
#   input 1  foul beam broken (1 = broken). The beam receiver's open-collector output
#            pulls its pin low while it sees the beam; a broken beam (or a cut cable)
#            lets the internal pull-up raise it, so this input is active high.

from node import Switch

NODE_TYPE = 3
FOUL_BEAM = 1


def build(board, now_ms):
    """(inputs, rules) of a foul-line node; board.pin(input) gives the beam's pin."""
    pin = board.pin(FOUL_BEAM)
    return [Switch(FOUL_BEAM, pin, now_ms, active_low=False, counter=board.counter(pin))], []
