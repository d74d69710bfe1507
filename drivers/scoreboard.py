"""MAX7219 LED matrix scoreboard: the one line a bowler reads from across the room.

The board shows a single, fixed line of text chosen from the table's view: who is up
with their running total and frame, the winner once the game is over, ``PAUSED`` when
the table waits on a device or the operator, or the table's name when idle. When the
full line does not fit the chain of 8x8 matrices, a shorter form is chosen by fixed
rules (never by scrolling), so the same view always gives the same picture.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from luma.core.device import dummy
from luma.core.error import Error as LumaError
from luma.core.interface.serial import noop, spi
from luma.core.legacy import text
from luma.core.legacy.font import TINY_FONT, proportional
from luma.core.render import canvas
from luma.led_matrix.device import max7219

from drivers.closing import Closeable
from drivers.errors import DeviceUnavailable

__all__ = ["Max7219Scoreboard", "board_text", "open_emulated", "open_max7219"]

LegacyFont = Sequence[Sequence[int]]

# Characters whose ink decides where the line sits vertically: what the board shows.
_BOARD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_NAME_CHARS = frozenset(_BOARD_CHARS + "-.'&+")


def _ascii_upper(name: str) -> str:
    """Fold a user-typed name to the capitals, digits and marks an LED font draws legibly.

    Accents are dropped (Zoë reads ZOE); anything else the font cannot draw is left out
    rather than shown as a blot, and runs of spaces become one.
    """
    folded = unicodedata.normalize("NFKD", name)
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch)).upper()
    kept = "".join(ch if ch in _NAME_CHARS else " " for ch in plain)
    return " ".join(kept.split())


def _text(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _number(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _mapping(value: object) -> Mapping[str, object] | None:
    return value if isinstance(value, Mapping) else None


def _sequence(value: object) -> Sequence[object]:
    return value if isinstance(value, list | tuple) else ()


def _player_total(game: Mapping[str, object], player: str) -> int | None:
    for row in _sequence(game.get("sheet")):
        line = _mapping(row)
        if line is not None and line.get("player") == player:
            return _number(line.get("total"))
    return None


def _with_names(
    templates: Sequence[tuple[str, int]], name: str, fits: Callable[[str], bool], **fields: str
) -> str | None:
    """First template, with the name cut no shorter than its minimum, that fits the board."""
    for template, shortest in templates:
        cuts = range(len(name), min(shortest, len(name)) - 1, -1)
        for length in cuts if "{name}" in template else (len(name),):
            candidate = template.format(name=name[:length].rstrip(), **fields).strip()
            if fits(candidate):
                return candidate
    return None


def _cut_to_fit(line: str, fits: Callable[[str], bool]) -> str:
    while line and not fits(line):
        line = line[:-1].rstrip()
    return line


def _first_fit(fits: Callable[[str], bool], *lines: str) -> str:
    """The first line that fits, else the last one cut down to fit."""
    for line in lines:
        if fits(line):
            return line
    return _cut_to_fit(lines[-1], fits)


def _running_line(game: Mapping[str, object], up: Mapping[str, object],
                  fits: Callable[[str], bool]) -> str:
    player = _text(up.get("player"))
    total = _player_total(game, player)
    frame = _number(up.get("frame"))
    fields = {"total": str(total if total is not None else 0),
              "frame": f"F{frame}" if frame is not None else ""}
    # The bowler's name and total matter more than the frame, which the sheet also shows.
    templates = [("{name} {total} {frame}", 3), ("{name} {total}", 1), ("{total} {frame}", 0),
                 ("{total}", 0)]
    return _with_names(templates, _ascii_upper(player), fits, **fields) or _cut_to_fit(
        fields["total"], fits)


def _over_line(game: Mapping[str, object], fits: Callable[[str], bool]) -> str:
    winners = [w for w in _sequence(game.get("winners")) if isinstance(w, str)]
    if not winners:
        return _first_fit(fits, "GAME OVER", "OVER")
    total = _player_total(game, winners[0])
    shown = str(total) if total is not None else ""
    if len(winners) > 1:
        names = " ".join(_ascii_upper(w) for w in winners)
        templates = [("{name} TIE {total}", len(names)), ("TIE {total}", 0), ("TIE", 0)]
        return _with_names(templates, names, fits, total=shown) or _cut_to_fit("TIE", fits)
    templates = [("{name} WINS {total}", 3), ("{name} WINS", 3), ("{name} {total}", 1),
                 ("{name}", 1)]
    name = _ascii_upper(winners[0])
    return _with_names(templates, name, fits, total=shown) or _cut_to_fit(name, fits)


def board_text(view: Mapping[str, object], fits: Callable[[str], bool]) -> str:
    """The one line a view puts on a board where ``fits(line)`` says what is narrow enough.

    Board-agnostic so any one-line board (matrix, serial LED sign) shows the same words.
    """
    if view.get("status") == "paused":
        return _first_fit(fits, "PAUSED", "PAUSE")
    game = _mapping(view.get("game"))
    if game is not None and game.get("over") is True:
        return _over_line(game, fits)
    up = _mapping(game.get("up")) if game is not None else None
    if game is not None and up is not None and view.get("status") == "running":
        return _running_line(game, up, fits)
    return _cut_to_fit(_ascii_upper(_text(view.get("table"), "HOYLE")), fits)


class Max7219Scoreboard(Closeable):
    """A scoreboard drawn on a chain of MAX7219 matrices (or any luma device of that shape)."""

    def __init__(self, device: Any, *, font: LegacyFont = TINY_FONT) -> None:
        self._device = device
        self._font = proportional(font)
        self._y = self._baseline(font, int(device.height))
        self._closed = False

    @staticmethod
    def _baseline(font: LegacyFont, height: int) -> int:
        ink = 0
        for ch in _BOARD_CHARS:
            for column in font[ord(ch)]:
                ink |= column
        rows = [r for r in range(8) if ink >> r & 1]
        top, bottom = rows[0], rows[-1]
        return (height - (bottom - top + 1)) // 2 - top

    @property
    def width(self) -> int:
        """Columns of LEDs across the chain."""
        return int(self._device.width)

    def text_width(self, line: str) -> int:
        """Lit width of ``line`` in columns: what must fit within ``width``."""
        columns = [c for ch in line for c in self._font[ord(ch)]]
        while columns and columns[-1] == 0:
            columns.pop()
        return len(columns)

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
                text(draw, (x, self._y), line, fill="white", font=self._font)
        except OSError as exc:
            raise DeviceUnavailable(f"scoreboard: SPI write failed: {exc}") from exc

    def clear(self) -> None:
        """Blank every LED."""
        try:
            self._device.clear()
        except OSError as exc:
            raise DeviceUnavailable(f"scoreboard: SPI write failed: {exc}") from exc

    def close(self) -> None:
        """Blank the board and release the bus; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        try:
            self._device.cleanup()
        except OSError as exc:
            raise DeviceUnavailable(f"scoreboard: SPI write failed: {exc}") from exc



def open_max7219(*, port: int = 0, device: int = 0, cascaded: int = 4,
                 block_orientation: int = -90, rotate: int = 0) -> Any:
    """Open a real MAX7219 chain on the Pi's SPI bus (/dev/spidev<port>.<device>).

    A missing bus, missing permission or missing spidev module means the board cannot be
    driven here, which the controller treats like any absent device: DeviceUnavailable.
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
