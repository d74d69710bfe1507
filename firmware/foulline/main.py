# Pico entry point of the foul-line node. Copy it to the board's root with
# firmware/common/*.py and foulline.py (firmware/README.md).

import foulline
import pico

# Input -> Pico GPIO (GP number; physical pin in brackets). The beam receiver's
# open-collector output goes to the GPIO, its supply to 3V3(OUT) (36) and GND.
GPIO = {
    1: 2,  # foul beam (4)
}

pico.run(foulline, GPIO)
