# Pico entry point of the pin deck node. Copy it to the board's root with
# firmware/common/*.py and pindeck.py (firmware/README.md).

import pico
import pindeck

# Input -> Pico GPIO (GP number; physical pin in brackets). Each input's contact goes
# between its GPIO and any GND pin; the internal pull-up needs no resistor.
GPIO = {
    1: 2,    # pin spot 1 (4)
    2: 3,    # pin spot 2 (5)
    3: 4,    # pin spot 3 (6)
    4: 5,    # pin spot 4 (7)
    5: 6,    # pin spot 5 (9)
    6: 7,    # pin spot 6 (10)
    7: 8,    # pin spot 7 (11)
    8: 9,    # pin spot 8 (12)
    9: 10,   # pin spot 9 (14)
    10: 11,  # pin spot 10 (15)
    11: 12,  # ball detector (16)
    12: 13,  # pinsetter cycle contact (17)
}

pico.run(pindeck, GPIO)
