"""The LED scoreboards under the name the controller and doctor import them by.

The boards live in ``drivers.scoreboards``; this module keeps ``drivers.scoreboard``
importable for the MAX7219 board and the picture rules.
"""

from drivers.scoreboards import (
    Hub75Options,
    Hub75Scoreboard,
    Max7219Scoreboard,
    Scoreboard,
    SerialScoreboard,
    SevenSegmentScoreboard,
    board_rows,
    board_text,
    open_emulated,
    open_emulated_sevenseg,
    open_hub75,
    open_max7219,
    open_serial,
)

__all__ = ["Hub75Options", "Hub75Scoreboard", "Max7219Scoreboard", "Scoreboard",
           "SerialScoreboard", "SevenSegmentScoreboard", "board_rows", "board_text",
           "open_emulated", "open_emulated_sevenseg", "open_hub75", "open_max7219",
           "open_serial"]
