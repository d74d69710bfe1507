"""MAX7219 LED matrix scoreboard: the one line a bowler reads from across the room.

The board shows the first row of the view's picture (``picture.board_rows``) centred on
a chain of 8x8 matrices, drawn in one of luma's legacy LED fonts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from luma.core.device import dummy
from luma.core.error import Error as LumaError
from luma.core.interface.serial import noop, spi
from luma.core.legacy import text
from luma.core.legacy.font import TINY_FONT, proportional
from luma.core.render import canvas
from luma.led_matrix.device import max7219
from PIL import ImageDraw

from drivers.closing import Closeable
from drivers.errors import DeviceUnavailable
from drivers.scoreboards.picture import BOARD_CHARS, board_text

__all__ = ["LedFont", "Max7219Scoreboard", "SpiBoard", "open_emulated", "open_max7219",
           "spi_failed"]

LegacyFont = Sequence[Sequence[int]]


def spi_failed(exc: OSError) -> DeviceUnavailable:
    """The error a failed write on a board's SPI bus becomes."""
    return DeviceUnavailable(f"scoreboard: SPI write failed: {exc}")


class LedFont:
    """A luma legacy font drawn proportionally: what a line measures and where it sits."""

    def __init__(self, font: LegacyFont = TINY_FONT) -> None:
        self.font = proportional(font)
        ink = 0
        for ch in BOARD_CHARS:
            for column in font[ord(ch)]:
                ink |= column
        rows = [r for r in range(8) if ink >> r & 1]
        self._top, self._bottom = rows[0], rows[-1]

    @property
    def height(self) -> int:
        """Rows of LEDs the board's characters ink."""
        return self._bottom - self._top + 1

    def baseline(self, height: int) -> int:
        """The y at which a line is drawn to sit centred in ``height`` rows."""
        return (height - self.height) // 2 - self._top

    def width(self, line: str) -> int:
        """Lit width of ``line`` in columns."""
        columns = [c for ch in line for c in self.font[ord(ch)]]
        while columns and columns[-1] == 0:
            columns.pop()
        return len(columns)

    def draw(self, draw: ImageDraw.ImageDraw, xy: tuple[int, int], line: str,
             fill: str | tuple[int, int, int]) -> None:
        """Draw ``line`` with its top-left font cell at ``xy``."""
        text(draw, xy, line, fill=fill, font=self.font)


class SpiBoard(Closeable):
    """What every board on a MAX7219 chain shares: blanking it and releasing the bus."""

    def __init__(self, device: Any) -> None:
        self._device = device
        self._closed = False

    def clear(self) -> None:
        """Blank every LED."""
        try:
            self._device.clear()
        except OSError as exc:
            raise spi_failed(exc) from exc

    def close(self) -> None:
        """Blank the board and release the bus; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        try:
            self._device.cleanup()
        except OSError as exc:
            raise spi_failed(exc) from exc


class Max7219Scoreboard(SpiBoard):
    """A scoreboard drawn on a chain of MAX7219 matrices (or any luma device of that shape)."""

    def __init__(self, device: Any, *, font: LegacyFont = TINY_FONT) -> None:
        super().__init__(device)
        self._font = LedFont(font)
        self._y = self._font.baseline(int(device.height))

    @property
    def width(self) -> int:
        """Columns of LEDs across the chain."""
        return int(self._device.width)

    def text_width(self, line: str) -> int:
        """Lit width of ``line`` in columns: what must fit within ``width``."""
        return self._font.width(line)

    def fits(self, line: str) -> bool:
        """Whether ``line`` can be drawn whole on this board."""
        return self.text_width(line) <= self.width

    def text_for(self, view: Mapping[str, object]) -> str:
        """The line ``show(view)`` draws."""
        return board_text(view, self.fits)

    def show(self, view: Mapping[str, object]) -> None:
        """Draw the view's line centred on the board; raise DeviceUnavailable if the bus fails."""
        line = self.text_for(view)
        x = (self.width - self.text_width(line)) // 2
        try:
            with canvas(self._device) as draw:
                self._font.draw(draw, (x, self._y), line, "white")
        except OSError as exc:
            raise spi_failed(exc) from exc


def open_max7219(*, port: int = 0, device: int = 0, cascaded: int = 4,
                 block_orientation: int = -90, rotate: int = 0) -> Any:
    """Open a real MAX7219 chain on the Pi's SPI bus (/dev/spidev<port>.<device>).

    A missing bus, missing permission or missing spidev module means the board cannot be
    driven here, which the controller treats like any absent device: DeviceUnavailable.
    Seven-segment modules are MAX7219 chips too: each module is one ``cascaded`` unit.
    """
    where = f"/dev/spidev{port}.{device}"
    try:
        serial = spi(port=port, device=device, gpio=noop())
    except ImportError as exc:
        raise DeviceUnavailable(f"scoreboard: spidev is not installed, cannot open {where}") \
            from exc
    except (LumaError, OSError) as exc:
        raise DeviceUnavailable(f"scoreboard: cannot open SPI {where}: {exc}") from exc
    try:
        return max7219(serial, cascaded=cascaded, block_orientation=block_orientation,
                       rotate=rotate)
    except OSError as exc:
        raise DeviceUnavailable(f"scoreboard: MAX7219 on {where} did not accept setup: {exc}") \
            from exc


def open_emulated(width: int = 32, height: int = 8) -> Any:
    """An in-memory board for the simulated table and tests; its picture is ``.image``."""
    return dummy(width=width, height=height, mode="1")
