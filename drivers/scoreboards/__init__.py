"""The scoreboards above the table: one picture of the view, drawn on each kind of board.

``picture`` decides what a view shows (the same rows on every board, by fixed rules);
``matrix`` (MAX7219 8x8 matrices), ``sevenseg`` (MAX7219 seven-segment digits),
``hub75`` (RGB panels through rpi-rgb-led-matrix or its emulator) and ``serialboard``
(a sign on a serial line, docs/scoreboard.md) draw it. A board whose bus or port fails
raises DeviceUnavailable saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from drivers.scoreboards.hub75 import Hub75Options, Hub75Scoreboard, open_hub75
from drivers.scoreboards.matrix import Max7219Scoreboard, open_emulated, open_max7219
from drivers.scoreboards.picture import BoardRow, board_rows, board_text
from drivers.scoreboards.serialboard import SerialScoreboard, open_serial, serial_line
from drivers.scoreboards.sevenseg import SevenSegmentScoreboard, open_emulated_sevenseg

__all__ = ["BoardRow", "Hub75Options", "Hub75Scoreboard", "Max7219Scoreboard", "Scoreboard",
           "SerialScoreboard", "SevenSegmentScoreboard", "board_rows", "board_text",
           "open_emulated", "open_emulated_sevenseg", "open_hub75", "open_max7219",
           "open_serial", "serial_line"]


class Scoreboard(Protocol):
    """What the controller needs of any board."""

    def show(self, view: Mapping[str, object]) -> None:
        """Draw the view; DeviceUnavailable if the board cannot be reached."""

    def clear(self) -> None:
        """Blank the board."""

    def close(self) -> None:
        """Blank the board and release its bus or port."""
