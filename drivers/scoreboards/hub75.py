"""HUB75 RGB panel scoreboard: the whole score in rows, each in its role's colour.

Drawn through the rpi-rgb-led-matrix Python API (``rgbmatrix``) on the Pi and, where
that library is missing, through ``RGBMatrixEmulator``, which offers the same API. The
picture is a PIL image (each row of the view's picture in an 8-pixel band, in luma's
LED font, left-aligned) put on the panel with ``SetImage`` and ``SwapOnVSync``.

The emulator reads, and if missing writes, ``emulator_config.json`` from the current
directory when it is imported; ``open_hub75`` points it at a file in the given folder
(the table's data directory) instead, with the ``raw`` display adapter, which keeps
frames in memory and opens no window and no web server.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from luma.core.legacy.font import TINY_FONT
from PIL import Image, ImageDraw

from drivers.closing import Closeable
from drivers.errors import DeviceUnavailable
from drivers.scoreboards.matrix import LedFont, LegacyFont
from drivers.scoreboards.picture import BoardRow, Role, board_rows

__all__ = [
    "COLOURS",
    "HARDWARE_MAPPINGS",
    "ROW_PITCH",
    "Hub75Options",
    "Hub75Scoreboard",
    "open_hub75",
]

log = logging.getLogger(__name__)

#: Pixel rows given to each row of text.
ROW_PITCH = 8
#: The colour of each role: the player up in amber, a winner in green, a notice in red.
COLOURS: Mapping[Role, tuple[int, int, int]] = {
    "up": (255, 176, 0), "player": (255, 255, 255), "winner": (0, 255, 0),
    "payout": (0, 192, 255), "notice": (255, 0, 0), "title": (0, 96, 255)}
#: The wirings rpi-rgb-led-matrix knows by name (``--led-gpio-mapping``).
HARDWARE_MAPPINGS = ("regular", "adafruit-hat", "adafruit-hat-pwm", "regular-pi1", "classic",
                     "classic-pi1")
EMULATOR_CONFIG = {
    "pixel_outline": 0, "pixel_size": 1, "pixel_style": "square", "pixel_glow": 0,
    "display_adapter": "raw", "allow_adapter_fallback": False, "icon_path": None,
    "emulator_title": None, "log_level": "warning",
    "browser": {"_comment": "unused: the raw adapter draws nowhere", "port": 8888,
                "target_fps": 60, "fps_display": False, "quality": 70, "image_border": True,
                "debug_text": False, "image_format": "JPEG", "open_immediately": False}}


@dataclass(frozen=True, slots=True)
class Hub75Options:
    """A panel chain as rpi-rgb-led-matrix is told it: rows and columns of one panel, and
    how many are chained."""

    rows: int = 32
    cols: int = 64
    chain: int = 1
    brightness: int = 60
    hardware_mapping: str = "regular"
    gpio_slowdown: int = 2


class Hub75Scoreboard(Closeable):
    """A scoreboard on a HUB75 panel chain, given as an ``RGBMatrix`` (real or emulated)."""

    def __init__(self, matrix: Any, *, font: LegacyFont = TINY_FONT) -> None:
        self._matrix = matrix
        self._canvas = matrix.CreateFrameCanvas()
        self._font = LedFont(font)
        self._closed = False

    @property
    def size(self) -> tuple[int, int]:
        """Pixels across and down the chain."""
        return int(self._matrix.width), int(self._matrix.height)

    @property
    def rows(self) -> int:
        """Rows of text the panel holds."""
        return max(self.size[1] // ROW_PITCH, 1)

    def fits(self, line: str) -> bool:
        """Whether ``line`` can be drawn whole, with a pixel's margin each side."""
        return self._font.width(line) <= self.size[0] - 2

    def rows_for(self, view: Mapping[str, object]) -> tuple[BoardRow, ...]:
        """The rows ``show(view)`` draws, top to bottom."""
        return board_rows(view, self.fits, self.rows)

    def picture(self, view: Mapping[str, object]) -> Image.Image:
        """The panel's picture of ``view``, one pixel per LED."""
        image = Image.new("RGB", self.size)
        draw = ImageDraw.Draw(image)
        y = self._font.baseline(ROW_PITCH)
        for index, row in enumerate(self.rows_for(view)):
            self._font.draw(draw, (1, index * ROW_PITCH + y), row.text, COLOURS[row.role])
        return image

    def show(self, view: Mapping[str, object]) -> None:
        """Put the view's picture on the panel at the next refresh."""
        image = self.picture(view)
        try:
            self._canvas.Clear()
            self._canvas.SetImage(image, 0, 0)
            self._canvas = self._matrix.SwapOnVSync(self._canvas)
        except OSError as exc:
            raise DeviceUnavailable(f"scoreboard: HUB75 panel refresh failed: {exc}") from exc

    def clear(self) -> None:
        """Blank every LED."""
        self._matrix.Clear()

    def close(self) -> None:
        """Blank the panel; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        self._matrix.Clear()


def _import_emulator(config_dir: Path) -> ModuleType:
    """Import RGBMatrixEmulator with its config file in ``config_dir``, not the cwd.

    Importing the package builds a default config (reading, or writing, the file its
    config class names) before any caller could name another; so the package object is
    made first, the config class's path set, and only then its ``__init__`` run.
    """
    config_dir.mkdir(parents=True, exist_ok=True)
    path = config_dir / "emulator_config.json"
    path.write_text(json.dumps(EMULATOR_CONFIG, indent=2) + "\n")
    loaded = sys.modules.get("RGBMatrixEmulator")
    if loaded is None:
        spec = importlib.util.find_spec("RGBMatrixEmulator")
        if spec is None or spec.loader is None:
            raise DeviceUnavailable("scoreboard: neither rgbmatrix (rpi-rgb-led-matrix) nor "
                                    "RGBMatrixEmulator is installed")
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = loaded
        try:
            settings = importlib.import_module("RGBMatrixEmulator.internal.emulator_config")
            settings.RGBMatrixEmulatorConfig.CONFIG_PATH = str(path)
            spec.loader.exec_module(loaded)
        except BaseException:
            del sys.modules[spec.name]
            raise
    settings = importlib.import_module("RGBMatrixEmulator.internal.emulator_config")
    settings.RGBMatrixEmulatorConfig.CONFIG_PATH = str(path)
    return loaded


def _api(emulator_dir: Path, *, emulate: bool) -> ModuleType:
    """The rgbmatrix module, or the emulator's (logged) where it is missing or asked for."""
    if not emulate:
        try:
            return importlib.import_module("rgbmatrix")
        except ImportError as exc:
            log.warning("scoreboard: rgbmatrix is not installed (%s); drawing the HUB75 "
                        "panel on RGBMatrixEmulator instead", exc)
    return _import_emulator(emulator_dir)


def open_hub75(options: Hub75Options, *, emulator_dir: Path, emulate: bool = False) -> Any:
    """An ``RGBMatrix`` for the panel chain; the emulator's (its config in ``emulator_dir``)
    if ``emulate`` or rgbmatrix is not installed.

    The real library needs root (or the GPIO group and a kernel with its memory mapped) and
    fails at start on a machine without the Pi's GPIO: DeviceUnavailable, with why.
    """
    api = _api(emulator_dir, emulate=emulate)
    settings = api.RGBMatrixOptions()
    settings.rows = options.rows
    settings.cols = options.cols
    settings.chain_length = options.chain
    settings.brightness = options.brightness
    settings.hardware_mapping = options.hardware_mapping
    settings.gpio_slowdown = options.gpio_slowdown
    where = f"HUB75 {options.cols}x{options.rows} x{options.chain} ({options.hardware_mapping})"
    try:
        return api.RGBMatrix(options=settings)
    # The C++ library reports a failed start (no GPIO, no permission) as a bare Exception.
    except Exception as exc:
        raise DeviceUnavailable(f"scoreboard: {where} did not start: {exc}") from exc
