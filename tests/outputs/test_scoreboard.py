"""The LED scoreboard, checked the way a bowler checks it: by reading the lit board."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from luma.core.device import dummy
from luma.core.legacy.font import CP437_FONT, TINY_FONT, proportional
from PIL import Image

from drivers.errors import DeviceUnavailable
from drivers.scoreboard import Max7219Scoreboard, open_emulated, open_max7219

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

Grid = list[list[bool]]


def lit_grid(image: Image.Image) -> Grid:
    """One boolean per LED, row by row, from a 1-pixel-per-LED picture."""
    gray = image.convert("L")
    level = gray.tobytes()
    return [[level[y * gray.width + x] > 127 for x in range(gray.width)]
            for y in range(gray.height)]


def lit_grid_from_led_png(path: Path, width: int, height: int) -> Grid:
    """One boolean per LED from luma.emulator's led_matrix picture: sample each LED's centre."""
    red = Image.open(path).convert("RGB").getchannel("R")
    cell = red.width // width
    assert red.size == (width * cell, height * cell)
    level = red.tobytes()
    return [[level[(y * cell + cell // 2) * red.width + x * cell + cell // 2] > 127
             for x in range(width)] for y in range(height)]


def _glyphs(font: Sequence[Sequence[int]]) -> dict[tuple[int, ...], str]:
    wrapped = proportional(font)
    table: dict[tuple[int, ...], str] = {}
    for code in range(0x21, 0x7F):
        columns = tuple(wrapped[code])[:-1]
        if columns and 0 not in columns:
            table[columns] = chr(code)
    return table


def read_board(grid: Grid, font: Sequence[Sequence[int]] = TINY_FONT) -> str:
    """Recover the text on the board by matching blank-separated glyphs against the font.

    Letters are one blank column apart and a space adds four more, so a gap of three or
    more blank columns is a space. Every vertical placement of the font is tried; exactly
    one must read every glyph, or the picture is not clean text.
    """
    glyphs = _glyphs(font)
    height, width = len(grid), len(grid[0])
    lit_rows = {y for y in range(height) if any(grid[y])}
    readings: set[str] = set()
    for top in range(-7, height):
        if not lit_rows <= set(range(top, top + 8)):
            continue
        columns = [sum(1 << j for j in range(8) if 0 <= top + j < height and grid[top + j][x])
                   for x in range(width)]
        reading = _segment(columns, glyphs)
        if reading is not None:
            readings.add(reading)
    assert len(readings) == 1, f"board does not read as one text: {sorted(readings)}"
    return readings.pop()


def _segment(columns: list[int], glyphs: dict[tuple[int, ...], str]) -> str | None:
    out: list[str] = []
    run: list[int] = []
    blanks = 0
    for column in [*columns, 0]:
        if column:
            if run == [] and out and blanks >= 3:
                out.append(" ")
            run.append(column)
            blanks = 0
            continue
        blanks += 1
        if run:
            char = glyphs.get(tuple(run))
            if char is None:
                return None
            out.append(char)
            run = []
    return "".join(out)


def board_reads(view: dict[str, Any], width: int = 32, font: Sequence[Sequence[int]] = TINY_FONT
                ) -> str:
    device = open_emulated(width=width)
    Max7219Scoreboard(device, font=font).show(view)
    return read_board(lit_grid(device.image), font)


def row(player: str, total: int) -> dict[str, Any]:
    return {"player": player, "frames": [], "total": total}


def bowling_view(*, up: dict[str, Any] | None = None, sheet: list[dict[str, Any]] | None = None,
                 over: bool = False, winners: list[str] | None = None,
                 status: str = "running") -> dict[str, Any]:
    sheet = sheet if sheet is not None else [row("Ann", 145), row("Bob", 132)]
    return {
        "table": "lane-1", "seq": 123, "status": status, "why": None,
        "devices": [{"name": "pin-deck", "state": "working", "detail": ""}], "flags": [],
        "game": {
            "id": "ten-pins", "family": "bowling", "name": "Bowling, or Ten Pins",
            "players": [r["player"] for r in sheet], "frames": 10,
            "pins": list(range(1, 11)), "up": up, "sheet": sheet, "over": over,
            "winners": winners or [], "rulings": [],
        },
    }


ANN_UP = {"player": "Ann", "frame": 3, "ball": 2, "standing": [7, 10]}


def test_wide_board_shows_bowler_total_and_frame() -> None:
    assert board_reads(bowling_view(up=ANN_UP), width=64) == "ANN 145 F3"


def test_four_matrix_board_drops_the_frame_before_the_name() -> None:
    assert board_reads(bowling_view(up=ANN_UP), width=32) == "ANN 145"


def test_total_is_the_bowler_up_not_the_first_row() -> None:
    up = {"player": "Bob", "frame": 7, "ball": 1, "standing": list(range(1, 11))}
    assert board_reads(bowling_view(up=up), width=64) == "BOB 132 F7"


def test_winner_when_over() -> None:
    view = bowling_view(sheet=[row("Ann", 160), row("Bob", 187)], over=True, winners=["Bob"])
    assert board_reads(view, width=64) == "BOB WINS 187"
    assert board_reads(view, width=32) == "BOB WINS"


def test_perfect_game() -> None:
    view = bowling_view(sheet=[row("Ann", 300)], over=True, winners=["Ann"])
    assert board_reads(view, width=64) == "ANN WINS 300"


def test_tie_names_both_bowlers() -> None:
    view = bowling_view(sheet=[row("Ann", 150), row("Bob", 150)], over=True,
                        winners=["Ann", "Bob"])
    assert board_reads(view, width=64) == "ANN BOB TIE 150"
    assert board_reads(view, width=32) == "TIE 150"


def test_paused_overrides_the_game() -> None:
    view = bowling_view(up=ANN_UP, status="paused")
    view["why"] = "pin deck unavailable: GPIO17 silent"
    assert board_reads(view, width=32) == "PAUSED"


def test_idle_shows_the_table_name() -> None:
    view = bowling_view(status="idle")
    view["game"] = None
    assert board_reads(view, width=32) == "LANE-1"


def test_long_name_is_cut_and_total_and_tenth_frame_kept() -> None:
    sheet = [row("Maximilian", 245)]
    up = {"player": "Maximilian", "frame": 10, "ball": 3, "standing": []}
    assert board_reads(bowling_view(up=up, sheet=sheet), width=64) == "MAXIMILI 245 F10"
    assert board_reads(bowling_view(up=up, sheet=sheet), width=32) == "MAXI 245"


def test_accented_name_is_spelled_in_plain_letters() -> None:
    up = {"player": "Zoë", "frame": 1, "ball": 1, "standing": []}
    assert board_reads(bowling_view(up=up, sheet=[row("Zoë", 0)]), width=64) == "ZOE 0 F1"


def test_big_font_on_a_long_chain() -> None:
    view = bowling_view(up=ANN_UP)
    assert board_reads(view, width=64, font=CP437_FONT) == "ANN 145"


def test_different_views_give_different_pictures() -> None:
    first, second = open_emulated(), open_emulated()
    Max7219Scoreboard(first).show(bowling_view(up=ANN_UP))
    Max7219Scoreboard(second).show(bowling_view(up=ANN_UP, sheet=[row("Ann", 154)]))
    assert first.image.tobytes() != second.image.tobytes()


names = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x2FF), max_size=24)


@settings(max_examples=60, deadline=None)
@given(name=names, total=st.integers(0, 300), frame=st.integers(1, 10),
       width=st.sampled_from([8, 16, 32, 64]))
def test_any_line_fits_the_board_whole(name: str, total: int, frame: int, width: int) -> None:
    device = open_emulated(width=width)
    board = Max7219Scoreboard(device)
    view = bowling_view(up={"player": name, "frame": frame, "ball": 1, "standing": []},
                        sheet=[row(name, total)])
    board.show(view)
    line = board.text_for(view)
    assert board.text_width(line) <= width
    # A glyph clipped at the edge would not read back, so reading the line proves it fits.
    assert read_board(lit_grid(device.image)) == line
    if width >= 16:
        assert str(total) in line.split()


def test_emulator_picture_reads_back(tmp_path: Path) -> None:
    capture = pytest.importorskip("luma.emulator.device").capture
    device = capture(width=32, height=8, mode="1", transform="led_matrix", scale=2,
                     file_template=str(tmp_path / "board_{0:03}.png"))
    board = Max7219Scoreboard(device)
    board.show(bowling_view(up=ANN_UP))
    board.show(bowling_view(status="paused"))
    assert read_board(lit_grid_from_led_png(tmp_path / "board_001.png", 32, 8)) == "ANN 145"
    assert read_board(lit_grid_from_led_png(tmp_path / "board_002.png", 32, 8)) == "PAUSED"


def test_clear_blanks_every_led_and_close_twice_is_harmless() -> None:
    device = open_emulated()
    board = Max7219Scoreboard(device)
    board.show(bowling_view(up=ANN_UP))
    assert any(any(r) for r in lit_grid(device.image))
    board.clear()
    assert not any(any(r) for r in lit_grid(device.image))
    board.close()
    board.close()


class UnpluggedBoard(dummy):  # type: ignore[misc]
    """A chain whose SPI writes fail, as when the ribbon cable is pulled."""

    def display(self, image: Image.Image) -> None:
        raise OSError(121, "Remote I/O error")


def test_failed_spi_write_reports_device_unavailable() -> None:
    board = Max7219Scoreboard(UnpluggedBoard(width=32, height=8, mode="1"))
    with pytest.raises(DeviceUnavailable, match="scoreboard"):
        board.show(bowling_view(up=ANN_UP))


def test_missing_spi_bus_reports_device_unavailable() -> None:
    with pytest.raises(DeviceUnavailable, match=r"spidev9\.9") as caught:
        open_max7219(port=9, device=9)
    assert isinstance(caught.value, ConnectionError)
