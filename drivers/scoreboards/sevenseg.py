"""MAX7219 seven-segment scoreboard: eight digits a module, the score right-aligned.

Each module is one MAX7219 driving eight seven-segment digits (luma's ``sevensegment``
wrapper maps characters to segments). The line is the view's first row with one digit
per character (a full stop shares its digit's decimal point), right-aligned as a score
on a tally board is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from luma.core.device import dummy
from luma.core.virtual import sevensegment
from luma.led_matrix.segment_mapper import dot_muncher

from drivers.scoreboards.matrix import SpiBoard, spi_failed
from drivers.scoreboards.picture import board_text

__all__ = ["DIGITS_PER_MODULE", "SevenSegmentScoreboard", "open_emulated_sevenseg"]

DIGITS_PER_MODULE = 8


def digits_needed(line: str) -> int:
    """Digits ``line`` takes: one a character, a full stop riding on the one before it."""
    return len(list(dot_muncher(line)))


class SevenSegmentScoreboard(SpiBoard):
    """A line of seven-segment digits behind a chain of MAX7219 modules (or luma's dummy)."""

    def __init__(self, device: Any) -> None:
        super().__init__(device)
        try:
            # A dummy device has no segment mapper of its own; the MAX7219's is dot_muncher.
            # Wrapping the device blanks its digits: the first write on the bus.
            self._segments = sevensegment(device, segment_mapper=dot_muncher)
        except OSError as exc:
            raise spi_failed(exc) from exc

    @property
    def digits(self) -> int:
        """Digits across the chain."""
        return int(self._device.width) * int(self._device.height) // 8

    def fits(self, line: str) -> bool:
        """Whether ``line`` can be shown whole on these digits."""
        return digits_needed(line) <= self.digits

    def text_for(self, view: Mapping[str, object]) -> str:
        """The line ``show(view)`` puts on the digits (before right-alignment)."""
        return board_text(view, self.fits)

    def show(self, view: Mapping[str, object]) -> None:
        """Light the view's line, right-aligned; raise DeviceUnavailable if the bus fails."""
        line = self.text_for(view)
        try:
            self._segments.text = " " * (self.digits - digits_needed(line)) + line
        except OSError as exc:
            raise spi_failed(exc) from exc


def open_emulated_sevenseg(modules: int = 1) -> Any:
    """In-memory digits: column x of ``.image`` is the x-th digit from the right, row y its
    segment bit (0 = G ... 6 = A, 7 = the decimal point), as the MAX7219 holds them."""
    return dummy(width=DIGITS_PER_MODULE * modules, height=8, mode="1")
