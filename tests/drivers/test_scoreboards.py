"""Every board, every family: the rendered pictures read back as the score people expect.

The pictures are saved under test-artifacts/scoreboards/ (gitignored) to be looked at.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import serial
from luma.core.device import dummy
from luma.led_matrix.segment_mapper import _DIGITS
from PIL import Image

from drivers.errors import DeviceUnavailable
from drivers.scoreboards import (
    Hub75Options,
    Hub75Scoreboard,
    Max7219Scoreboard,
    SerialScoreboard,
    SevenSegmentScoreboard,
    open_emulated,
    open_emulated_sevenseg,
    open_hub75,
    open_serial,
    serial_line,
)
from drivers.scoreboards.hub75 import COLOURS, ROW_PITCH
from drivers.scoreboards.picture import Role
from drivers.scoreboards.serialboard import MAX_LINE, checksum
from engine.registry import get_game
from tests.engine.book_vectors import load_entries
from tests.outputs.test_scoreboard import lit_grid, read_board

ARTEFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "scoreboards"

# (family, game, vector): a game in play from each family's book vectors.
RUNNING = {"bowling": ("bowling", "ten-pins", 7), "dice": ("dice", "craps-bank", 1),
           "cards": ("cards", "faro", 0), "billiards": ("billiards", "fifteen-ball-pool", 0)}


def played(family: str, game: str, index: int) -> dict[str, Any]:
    """The table's view after a book vector's events: the game's snapshot and its rulings."""
    vector = [e for e in load_entries(family, "vector") if e.game == game][index].data
    state = get_game(game).new_state(vector["players"], vector.get("options"))
    rulings = []
    for seq, event in enumerate(vector["events"], 1):
        for ruling in state.apply(state.parse_event(event)).rulings:
            rulings.append({**ruling.to_json(), "seq": seq})
    snapshot = state.snapshot()
    snapshot["rulings"] = rulings
    return {"table": "club-3", "name": "Club table 3", "seq": len(vector["events"]),
            "status": "idle" if snapshot["over"] else "running", "why": None, "devices": [],
            "flags": [], "game": snapshot}


@pytest.fixture(params=sorted(RUNNING))
def family(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def save(image: Image.Image, name: str, scale: int = 8) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    big = image.convert("RGB").resize((image.width * scale, image.height * scale),
                                      Image.Resampling.NEAREST)
    big.save(ARTEFACTS / f"{name}.png")


# -- MAX7219 matrices ----------------------------------------------------------------------

MATRIX_READS = {"bowling": "ANN 15 F2", "dice": "ANN 0 P6", "cards": "ANN BANK -12",
                "billiards": "ANN 22 R22"}


def test_matrix_shows_the_player_up_for_each_family(family: str) -> None:
    device = open_emulated(width=64)
    Max7219Scoreboard(device).show(played(*RUNNING[family]))
    save(device.image, f"max7219-{family}")
    assert read_board(lit_grid(device.image)) == MATRIX_READS[family]


def test_matrix_names_the_winner_when_the_game_is_over() -> None:
    device = open_emulated(width=64)
    Max7219Scoreboard(device).show(played("cards", "faro", 6))
    save(device.image, "max7219-cards-over")
    assert read_board(lit_grid(device.image)) == "BOB WINS 50"


# -- seven-segment digits ------------------------------------------------------------------

def lit_digits(image: Image.Image) -> list[int]:
    """The segment byte of each digit, left to right, from the MAX7219's digit registers."""
    grid = lit_grid(image)
    columns = [sum(1 << y for y in range(8) if grid[y][x]) for x in range(image.width)]
    return columns[::-1]


def segments(line: str) -> list[int]:
    return [_DIGITS[ch] for ch in line]


# Eight digits: the frame, the point's "P" or the bank's name is the first thing to go.
SEVENSEG_READS = {"bowling": "  ANN 15", "dice": "ANN 0 P6", "cards": "BANK -12",
                  "billiards": "  ANN 22"}


def test_sevenseg_lights_the_score_right_aligned_for_each_family(family: str) -> None:
    device = open_emulated_sevenseg(modules=1)
    SevenSegmentScoreboard(device).show(played(*RUNNING[family]))
    save(device.image, f"sevenseg-{family}", scale=16)
    assert lit_digits(device.image) == segments(SEVENSEG_READS[family])


def test_sevenseg_two_modules_show_the_frame_too() -> None:
    device = open_emulated_sevenseg(modules=2)
    SevenSegmentScoreboard(device).show(played(*RUNNING["bowling"]))
    assert lit_digits(device.image) == segments("       ANN 15 F2")
    # The 1 of the total lights segments b and c only; its 5 lights a, c, d, f, g.
    assert lit_digits(device.image)[11:13] == [0b0011_0000, 0b0101_1011]


def test_sevenseg_full_stop_shares_a_digit() -> None:
    device = open_emulated_sevenseg(modules=1)
    board = SevenSegmentScoreboard(device)
    view = played(*RUNNING["billiards"])
    view["game"]["sheet"][0]["player"] = view["game"]["striker"] = "J.R."
    board.show(view)
    assert board.text_for(view) == "J.R. 22"
    assert lit_digits(device.image) == [0, 0, 0, _DIGITS["J"] | 0x80, _DIGITS["R"] | 0x80, 0,
                                        _DIGITS["2"], _DIGITS["2"]]


class UnpluggedBoard(dummy):  # type: ignore[misc]
    """A MAX7219 chain whose SPI writes fail, as when the ribbon cable is pulled."""

    def display(self, image: Image.Image) -> None:
        raise OSError(121, "Remote I/O error")


def test_sevenseg_failed_spi_write_reports_device_unavailable() -> None:
    with pytest.raises(DeviceUnavailable, match="SPI write failed"):
        SevenSegmentScoreboard(UnpluggedBoard(width=8, height=8, mode="1"))


# -- HUB75 panels --------------------------------------------------------------------------

@pytest.fixture
def panel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Path]]:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    # Full brightness: the emulator's frame is then the picture's colours as they are.
    matrix = open_hub75(Hub75Options(rows=32, cols=64, brightness=100),
                        emulator_dir=tmp_path / "var", emulate=True)
    yield matrix, cwd


def frame_of(matrix: Any) -> Image.Image:
    """The emulator's last frame as drawn on the panel (its raw adapter keeps them)."""
    pixels = matrix.canvas.display_adapter._last_frame()
    return Image.fromarray(np.asarray(pixels, dtype=np.uint8), "RGB")


def band(frame: Image.Image, row: int) -> Image.Image:
    return frame.crop((0, row * ROW_PITCH, frame.width, (row + 1) * ROW_PITCH))


def lit(image: Image.Image) -> list[list[bool]]:
    """One boolean per LED: lit in any colour."""
    rgb = image.convert("RGB")
    return [[any(rgb.getpixel((x, y))) for x in range(rgb.width)]  # type: ignore[arg-type]
            for y in range(rgb.height)]


def colours_in(image: Image.Image) -> set[tuple[int, int, int]]:
    return {tuple(c) for c in np.asarray(image).reshape(-1, 3).tolist()} - {(0, 0, 0)}


HUB75_ROWS: dict[str, list[tuple[str, Role]]] = {
    "bowling": [("ANN 15 F2", "up"), ("BOB 3", "player")],
    "dice": [("ANN 0 P6", "up"), ("BOB 5", "player")],
    "cards": [("ANN BANK -12", "up"), ("CY +5", "payout"), ("BOB 7", "player"),
              ("CY 5", "player")],
    "billiards": [("ANN 22 R22", "up"), ("BOB 0", "player")],
}


def test_hub75_draws_each_row_in_its_colour_for_each_family(
        family: str, panel: tuple[Any, Path]) -> None:
    matrix, cwd = panel
    board = Hub75Scoreboard(matrix)
    board.show(played(*RUNNING[family]))
    frame = frame_of(matrix)
    save(frame, f"hub75-{family}")
    expected = HUB75_ROWS[family]
    for row, (words, role) in enumerate(expected):
        assert read_board(lit(band(frame, row))) == words
        assert colours_in(band(frame, row)) == {COLOURS[role]}
        # Left-aligned a pixel in: nothing lit in the first column.
        assert not any(r[0] for r in lit(band(frame, row)))
    for row in range(len(expected), 4):
        assert not colours_in(band(frame, row))
    assert list(cwd.iterdir()) == [], "the emulator wrote into the working directory"


def test_hub75_paused_table_shows_paused_in_red_over_the_scores(
        panel: tuple[Any, Path]) -> None:
    matrix, _ = panel
    view = played(*RUNNING["bowling"])
    view["status"], view["why"] = "paused", "pin deck unavailable: GPIO17 silent"
    Hub75Scoreboard(matrix).show(view)
    frame = frame_of(matrix)
    save(frame, "hub75-bowling-paused")
    assert read_board(lit(band(frame, 0))) == "PAUSED"
    assert colours_in(band(frame, 0)) == {COLOURS["notice"]}
    assert read_board(lit(band(frame, 1))) == "ANN 15"
    assert read_board(lit(band(frame, 2))) == "BOB 3"


def test_hub75_winner_in_green(panel: tuple[Any, Path]) -> None:
    matrix, _ = panel
    Hub75Scoreboard(matrix).show(played("cards", "faro", 6))
    frame = frame_of(matrix)
    save(frame, "hub75-cards-over")
    assert read_board(lit(band(frame, 0))) == "BOB WINS 50"
    assert colours_in(band(frame, 0)) == {COLOURS["winner"]}
    assert read_board(lit(band(frame, 1))) == "ANN -50"
    assert colours_in(band(frame, 2)) == {COLOURS["winner"]}


# -- serial sign ---------------------------------------------------------------------------

SERIAL_LINES = {
    "bowling": b"$HOY,7,RUN,BOWL,ANN 15 F2,ANN,ANN=15;BOB=3*44\r\n",
    "dice": b"$HOY,4,RUN,DICE,ANN 0 P6,ANN,ANN=0;BOB=5*4E\r\n",
    "cards": b"$HOY,6,RUN,CARD,ANN BANK -12,ANN,ANN=-12;BOB=7;CY=5*18\r\n",
    "billiards": b"$HOY,3,RUN,CUE,ANN 22 R22,ANN,ANN=22;BOB=0*20\r\n",
}


@pytest.fixture
def sign() -> Iterator[tuple[int, str]]:
    """A pseudo-terminal: the test reads the sign's end, the board writes the other."""
    master, slave = os.openpty()
    path = os.ttyname(slave)
    yield master, path
    for fd in (master, slave):
        # The unplugging test has closed the sign's end already.
        with contextlib.suppress(OSError):
            os.close(fd)


def read_line(master: int) -> bytes:
    data = b""
    while not data.endswith(b"\r\n"):
        ready, _, _ = select.select([master], [], [], 10.0)
        assert ready, f"no full line from the board, got {data!r}"
        data += os.read(master, 1024)
    return data


def test_serial_sends_one_checked_line_per_view_for_each_family(
        family: str, sign: tuple[int, str]) -> None:
    master, path = sign
    with SerialScoreboard(open_serial(path, baud=9600), width=16) as board:
        board.show(played(*RUNNING[family]))
        line = read_line(master)
    assert line == SERIAL_LINES[family]
    body, _, tail = line[1:].partition(b"*")
    assert int(tail[:2], 16) == np.bitwise_xor.reduce(np.frombuffer(body, dtype=np.uint8))


def test_serial_line_fits_the_sign_width_and_buffer() -> None:
    view = played(*RUNNING["cards"])
    names = [f"Player Number {n:02d}" for n in range(12)]
    view["game"]["sheet"] = [{"player": n, "total": -999_999} for n in names]
    view["game"]["banker"] = names[0]
    view["seq"] = 2**63 - 1
    line = serial_line(view, width=64)
    assert len(line) <= MAX_LINE
    assert serial_line(view, width=8).split(b",")[4] == b"-999999"
    assert line.split(b",")[5] == b"PLAYER NUM"


def test_serial_checksum_is_the_xor_of_the_body() -> None:
    assert checksum("A") == "41"
    assert checksum("AB") == "03"
    assert checksum("HOY,0,IDLE,,CLUB-3,,") == "6C"


def test_serial_unplugged_sign_reports_device_unavailable(sign: tuple[int, str]) -> None:
    master, path = sign
    board = SerialScoreboard(open_serial(path), width=16)
    os.close(master)
    with pytest.raises(DeviceUnavailable, match=path):
        board.show(played(*RUNNING["dice"]))
    board.close()


def test_serial_missing_port_reports_device_unavailable(tmp_path: Path) -> None:
    with pytest.raises(DeviceUnavailable, match="ttyNOWHERE") as caught:
        open_serial(str(tmp_path / "ttyNOWHERE"))
    assert isinstance(caught.value, ConnectionError)
    assert isinstance(caught.value.__cause__, serial.SerialException)
