"""Serial LED scoreboard: one ASCII line per change of the table, as docs/scoreboard.md sets out.

    $HOY,<seq>,<status>,<family>,<text>,<who>,<scores>*<checksum>\\r\\n

``text`` is the line a one-line sign of ``width`` characters shows (the same first row
every board draws), ``who`` the player up (the winners once over), ``scores`` every
player's total; the checksum is the XOR of the bytes between ``$`` and ``*`` in two
upper-case hex digits, as in NMEA 0183, so a sign can drop a line garbled on the wire.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import reduce
from typing import Any

import serial

from drivers.closing import Closeable
from drivers.errors import DeviceUnavailable
from drivers.scoreboards.picture import board_name, board_text, family_of, player_up

__all__ = ["BAUD_RATES", "MAX_LINE", "MAX_WIDTH", "NAME_LENGTH", "SerialScoreboard", "checksum",
           "open_serial", "serial_line"]

#: The rates a sign may be set to (8 data bits, no parity, one stop bit).
BAUD_RATES = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200)
#: The longest name in the scores field; the sign's own text field is cut to its width.
NAME_LENGTH = 10
#: The longest line, CR LF included (twelve players, a 64-character text): what a sign's
#: receive buffer must hold.
MAX_LINE = 512
#: The widest text field a sign may ask for.
MAX_WIDTH = 64
WRITE_TIMEOUT = 1.0
_FAMILIES = {"bowling": "BOWL", "dice": "DICE", "cards": "CARD", "billiards": "CUE"}


def checksum(body: str) -> str:
    """The XOR of ``body``'s bytes in two upper-case hex digits."""
    return f"{reduce(lambda acc, byte: acc ^ byte, body.encode('ascii'), 0):02X}"


def _status(view: Mapping[str, object], game: Mapping[str, object] | None) -> str:
    if view.get("status") == "paused":
        return "PAUSE"
    if game is not None and game.get("over") is True:
        return "OVER"
    return "RUN" if view.get("status") == "running" and game is not None else "IDLE"


def _who(game: Mapping[str, object], status: str) -> str:
    if status == "OVER":
        winners = game.get("winners")
        names: Sequence[object] = winners if isinstance(winners, list) else []
    else:
        player = player_up(game) if status == "RUN" else None
        names = [player] if player is not None else []
    return "/".join(board_name(n)[:NAME_LENGTH] for n in names if isinstance(n, str))


def _scores(game: Mapping[str, object]) -> str:
    sheet = game.get("sheet")
    pairs = []
    for row in sheet if isinstance(sheet, list) else []:
        if isinstance(row, Mapping) and isinstance(row.get("player"), str):
            total = row.get("total")
            shown = int(total) if isinstance(total, int | float) and not isinstance(
                total, bool) else 0
            pairs.append(f"{board_name(str(row['player']))[:NAME_LENGTH]}={shown}")
    return ";".join(pairs)


def serial_line(view: Mapping[str, object], width: int = 16) -> bytes:
    """The line a view sends to a sign whose text field holds ``width`` characters."""
    raw = view.get("game")
    game = raw if isinstance(raw, Mapping) else None
    status = _status(view, game)
    seq = view.get("seq")
    fields = [
        "HOY", str(seq if isinstance(seq, int) and not isinstance(seq, bool) else 0), status,
        _FAMILIES.get(family_of(game), "") if game is not None else "",
        board_text(view, lambda line: len(line) <= width),
        _who(game, status) if game is not None else "",
        _scores(game) if game is not None else "",
    ]
    body = ",".join(fields)
    return f"${body}*{checksum(body)}\r\n".encode("ascii")


class SerialScoreboard(Closeable):
    """A sign on a serial line (an open pyserial port, or anything with its ``write``)."""

    def __init__(self, link: Any, *, width: int = 16) -> None:
        self._link = link
        self.width = width
        self._closed = False

    @property
    def where(self) -> str:
        """The port the sign is on."""
        return str(getattr(self._link, "port", None) or "serial")

    def line_for(self, view: Mapping[str, object]) -> bytes:
        """The bytes ``show(view)`` sends."""
        return serial_line(view, self.width)

    def _send(self, data: bytes) -> None:
        try:
            self._link.write(data)
            self._link.flush()
        except (serial.SerialException, OSError) as exc:
            raise DeviceUnavailable(f"scoreboard: write to {self.where} failed: {exc}") \
                from exc

    def show(self, view: Mapping[str, object]) -> None:
        """Send the view's line; raise DeviceUnavailable if the port fails or stalls."""
        self._send(self.line_for(view))

    def clear(self) -> None:
        """Send an idle line with nothing on it, which blanks the sign."""
        self._send(serial_line({"status": "idle", "table": ""}, self.width))

    def close(self) -> None:
        """Close the port; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        self._link.close()


def open_serial(port: str, *, baud: int = 9600,
                serial_factory: Callable[..., Any] = serial.Serial) -> Any:
    """Open the sign's port at ``baud`` 8N1, with a bounded write (a stalled sign fails)."""
    try:
        return serial_factory(port, baudrate=baud, write_timeout=WRITE_TIMEOUT)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise DeviceUnavailable(f"scoreboard: cannot open serial port {port}: {exc}") from exc
