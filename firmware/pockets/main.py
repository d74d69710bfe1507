# Pico entry point of the pockets node. Copy it to the board's root with
# firmware/common/*.py and pockets.py (firmware/README.md).

import pico
import pockets

# Input -> Pico GPIO (GP number; physical pin in brackets). Each throat switch goes
# between its GPIO and any GND pin; the internal pull-up needs no resistor.
GPIO = {
    1: 2,  # corner-left-foot (4)
    2: 3,  # side-left (5)
    3: 4,  # corner-left-head (6)
    4: 5,  # corner-right-head (7)
    5: 6,  # side-right (9)
    6: 7,  # corner-right-foot (10)
}
# Ball-return reader: UART1, reader TX -> GP9 (12), GP8 (11) -> reader RX (unused);
# 3.3 V logic levels, common GND.
UARTS = {"reader": (1, 8, 9)}

pico.run(pockets, GPIO, UARTS)
