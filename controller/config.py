"""The table's TOML configuration, validated at load.

A wrong file gives a `ConfigError` naming the file, the key and its line. With no
file, `Config.simulated()` is the simulated lane on 127.0.0.1. `docs/config.md`
lists every key; `examples/lane.toml` is a commented example.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.auth import PIN_PATTERN, PinHash, PinHashError
from controller.club.settings import ClubConfig, MqttConfig, read_club, read_mqtt
from controller.errors import ConfigError
from drivers.pockets import DEFAULT_PINS, POCKET_NAMES
from drivers.scoreboards.hub75 import HARDWARE_MAPPINGS
from drivers.scoreboards.serialboard import BAUD_RATES, MAX_WIDTH
from engine.errors import UnknownGameError
from engine.registry import get_game

BACKENDS = ("real", "fake", "sim", "node", "sim-firmware")
SCOREBOARDS = ("none", "max7219", "sevenseg", "hub75", "serial", "emulated")
# Each kind of scoreboard's own keys besides `kind`: a key of another kind is a mistake.
SCOREBOARD_KEYS = {
    "none": frozenset(), "emulated": frozenset({"cascaded"}),
    "max7219": frozenset({"spi_port", "spi_device", "cascaded", "block_orientation"}),
    "sevenseg": frozenset({"spi_port", "spi_device", "cascaded"}),
    "hub75": frozenset({"rows", "cols", "chain", "brightness", "hardware_mapping",
                        "gpio_slowdown", "emulate"}),
    "serial": frozenset({"port", "baud", "width"}),
}
POCKET_SOURCES = ("gpio", "node", "sim")
GPIO_PINS = range(0, 28)


@dataclass(frozen=True, slots=True)
class LaneConfig:
    """The lane's sensors: BCM pin numbers or sensor nodes' serial ports, and settle time."""

    backend: str = "sim"
    settle_time: float = 0.5
    pins: dict[int, int] = field(default_factory=lambda: dict(zip(
        range(1, 11), (4, 5, 6, 12, 13, 16, 17, 22, 23, 24), strict=True)))
    foul_line: int = 25
    ball_detector: int = 26
    pinsetter: int = 27
    node_port: str | None = None
    """The pin-deck node's serial port (backend "node")."""
    foul_line_port: str | None = None
    """The foul-line node's serial port; without one, the foul line is on GPIO foul_line."""


@dataclass(frozen=True, slots=True)
class SimConfig:
    """The simulated bowlers of the simulated lane."""

    seed: int = 1
    pace: float = 1.5
    players: tuple[str, ...] = ("Ann", "Bob")
    foul_rate: float = 0.03
    dead_ball_rate: float = 0.01
    unread_rate: float = 0.1
    """The simulated cue table: share of balls its ball-return reader fails to name."""


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """The table's camera (DESIGN section 7): how a dice table's throw must be read, and how
    sure a card table's camera must be of a card to vouch for it."""

    source: str = "sim"
    """"sim" (rendered throws), device:N, /dev/videoN, picamera, a folder or a video file."""
    width: int = 640
    height: int = 480
    bed: tuple[float, float, float, float] | None = None
    """The felt inside the rails, [x, y, w, h] in pixels; a die outside it is off the table."""
    threshold: float = 0.9
    still_frames: int = 3
    agree: int = 3
    interval: float = 1 / 15
    """Seconds between frames replayed from a folder (and the simulated table's)."""
    card_threshold: float | None = None
    """At a card table, how sure a card's read must be for the camera to vouch for it; None:
    the card recogniser's own (vision.cards.DEFAULT_THRESHOLD)."""


@dataclass(frozen=True, slots=True)
class ShoeConfig:
    """The card table's dealer shoe and shuffler (docs/shoe.md)."""

    port: str = "sim"
    """"sim" (a simulated shoe dealt by the simulated dealer) or the shoe's serial port."""
    packs: int = 1
    shuffler_port: str | None = None
    """The shuffler's serial port; each pack it reads is verified before it is dealt."""


@dataclass(frozen=True, slots=True)
class PocketsConfig:
    """The cue table's pocket sensors and ball-return reader (docs/billiards-table.md)."""

    source: str = "sim"
    """"gpio" (throat switches on the Pi's pins), "node" (the pockets node) or "sim"."""
    pins: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_PINS))
    node_port: str | None = None
    debounce: float = 0.01
    ball_reader: bool = True
    """Whether a ball-return reader names the balls (the node's, or the simulated one)."""
    reader_wait: float = 3.0
    """Seconds a fallen ball waits for the reader to name it."""
    cue_number: int = 16
    """The number the ball-return reader gives the cue ball."""


@dataclass(frozen=True, slots=True)
class ScoreboardConfig:
    """The board above the table: its kind and that kind's keys (docs/scoreboard.md)."""

    kind: str = "emulated"
    spi_port: int = 0
    spi_device: int = 0
    cascaded: int = 4
    """MAX7219 chips in the chain: 8x8 matrices, or modules of eight digits."""
    block_orientation: int = -90
    rows: int = 32
    cols: int = 64
    chain: int = 1
    brightness: int = 60
    hardware_mapping: str = "regular"
    gpio_slowdown: int = 2
    emulate: bool = False
    """Draw the HUB75 panel on RGBMatrixEmulator even where rgbmatrix is installed."""
    port: str = ""
    baud: int = 9600
    width: int = 16
    """Characters the serial sign's text field holds."""


@dataclass(frozen=True, slots=True)
class Config:
    table_id: str = "sim-lane"
    name: str = "Simulated lane"
    game: str = "ten-pins"
    data_dir: Path = Path("var")
    operator_pin: str = "0000"
    """The operator's PIN as configured: a `scrypt$...` hash (key `operator_pin_hash`), or
    plain digits (key `operator_pin`; "0000" is the simulated table's default), which
    `hoyle serve` only accepts for a dashboard on the loopback address."""
    snapshot_every: int = 500
    host: str = "127.0.0.1"
    port: int = 8000
    lane: LaneConfig = field(default_factory=LaneConfig)
    sim: SimConfig = field(default_factory=SimConfig)
    scoreboard: ScoreboardConfig = field(default_factory=ScoreboardConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    shoe: ShoeConfig = field(default_factory=ShoeConfig)
    pockets: PocketsConfig = field(default_factory=PocketsConfig)
    mqtt: MqttConfig | None = None
    """The club's broker ([mqtt], docs/club.md); None: the table publishes nowhere."""
    club: ClubConfig = field(default_factory=ClubConfig)
    source: str = "built-in simulated table"

    @classmethod
    def simulated(cls) -> Config:
        return cls()

    @property
    def log_path(self) -> Path:
        return self.data_dir / f"{self.table_id}.db"


def load_config(path: str | Path) -> Config:
    """Read and validate a table's TOML file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file: {error.strerror}") from error
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error
    return _Reader(path, text).config(data)


#: One part of a TOML key: bare, "basic" or 'literal'.
_KEY_PART = re.compile(r"""\s*([A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')\s*""")


def key_lines(text: str) -> dict[str, int]:
    """The line (from 1) where each dotted key of a valid TOML text is first set or opened.

    Headers (`[scoreboard]`, `[lane.pins]`, `[[...]]`, with a comment or not), keys and
    dotted keys (`scoreboard.cascaded = 4`), and the keys of an inline table (`pins = {
    1 = 4 }`) each count; so does every table a key lies in, at the key's line if the
    file opens it no earlier. A value over several lines (an array, a string) is read
    whole, so none of its lines is taken for a key.
    """
    lines: dict[str, int] = {}
    table: list[str] = []
    rows = text.splitlines()
    number = 0
    while number < len(rows):
        stripped = rows[number].strip()
        number += 1
        header = _header(stripped)
        if header is not None:
            table = header
            _note(lines, table, number)
            continue
        found = _dotted_key(stripped)
        if found is None or not found[1].startswith("="):
            continue
        path = [*table, *found[0]]
        _note(lines, path, number)
        value, more = _value(found[1][1:], rows[number:])
        _note_inline(lines, path, value, number)
        number += more
    return lines


def _header(line: str) -> list[str] | None:
    """The table a `[table]` or `[[array.of.tables]]` line opens; None for any other line."""
    brackets = len(line) - len(line.lstrip("["))
    if brackets not in (1, 2):
        return None
    found = _dotted_key(line[brackets:])
    if found is None or not found[1].startswith("]" * brackets):
        return None
    after = found[1][brackets:].strip()
    return found[0] if not after or after.startswith("#") else None


def _dotted_key(text: str) -> tuple[list[str], str] | None:
    """The dotted key at the start of `text`, as its parts, and the text after it."""
    parts: list[str] = []
    at = 0
    while True:
        match = _KEY_PART.match(text, at)
        if match is None:
            return None
        part = match.group(1)
        if part[0] in "\"'":
            part = next(iter(tomllib.loads(f"{part} = 0")))
        parts.append(part)
        at = match.end()
        if not text.startswith(".", at):
            return parts, text[at:]
        at += 1


def _value(first: str, after: list[str]) -> tuple[Any, int]:
    """The value that starts with `first` (the text after a key's `=`), and how many of the
    lines `after` it goes on over; None if it never reads as TOML."""
    text = first
    for more in range(len(after) + 1):
        try:
            return tomllib.loads(f"v = {text}")["v"], more
        except tomllib.TOMLDecodeError:
            if more < len(after):
                text += "\n" + after[more]
    return None, 0


def _note(lines: dict[str, int], path: list[str], number: int) -> None:
    """Record `number` as the line of `path` and of each table above it not yet seen."""
    for end in range(1, len(path) + 1):
        lines.setdefault(".".join(path[:end]), number)


def _note_inline(lines: dict[str, int], path: list[str], value: Any, number: int) -> None:
    """Record the keys of an inline table (`pins = { 1 = 4, 2 = 17 }`) at its key's line."""
    if isinstance(value, dict):
        for key, inner in value.items():
            _note(lines, [*path, key], number)
            _note_inline(lines, [*path, key], inner, number)


def config_error(config: Config, key: str, problem: str) -> ConfigError:
    """A `ConfigError` about `key` of a loaded config found wrong later (for what it is used
    for), naming its file and line as the load's own errors do."""
    path = Path(config.source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ConfigError(f"{config.source}: {key}: {problem}")
    return _Reader(path, text).fail(key, problem)


class _Reader:
    """Takes keys out of the parsed TOML, naming file, key and line on any error."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    @functools.cached_property
    def lines(self) -> dict[str, int]:
        """Where each key is set: found only for an error's message, not on every load."""
        return key_lines(self.text)

    def fail(self, key: str, problem: str) -> ConfigError:
        line = self._line_of(key)
        where = f"{self.path}, line {line}" if line else str(self.path)
        return ConfigError(f"{where}: {key}: {problem}")

    def _line_of(self, key: str) -> int | None:
        """The line that sets `key`; for a key the file leaves out (a required key), the
        line of the nearest table that holds it."""
        parts = key.split(".")
        while parts:
            line = self.lines.get(".".join(parts))
            if line is not None:
                return line
            parts.pop()
        return None

    def section(self, data: Mapping[str, Any], name: str, allowed: set[str]) -> dict[str, Any]:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise self.fail(name, "must be a table ([section])")
        self.only(value, name, allowed)
        return value

    def only(self, table: Mapping[str, Any], name: str, allowed: set[str]) -> None:
        for key in table:
            if key not in allowed:
                full = f"{name}.{key}" if name else key
                raise self.fail(full, f"unknown key; allowed here: {', '.join(sorted(allowed))}")

    def get(self, table: Mapping[str, Any], section: str, key: str, kind: type,
            default: Any) -> Any:
        if key not in table:
            return default
        value = table[key]
        full = f"{section}.{key}" if section else key
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.fail(full, f"must be {kind.__name__}, not {value!r}")
        return value

    def pin(self, table: Mapping[str, Any], section: str, key: str, default: int) -> int:
        value: int = self.get(table, section, key, int, default)
        if value not in GPIO_PINS:
            raise self.fail(f"{section}.{key}", f"GPIO {value} does not exist; BCM pins are 0-27")
        return value

    def port(self, lane: Mapping[str, Any], key: str) -> str | None:
        """A serial port path in [lane], or None if the key is absent."""
        value: str | None = self.get(lane, "lane", key, str, None)
        if value is not None and (not value.strip() or value != value.strip()):
            raise self.fail(f"lane.{key}", f"{value!r} is not a serial port path, "
                            "e.g. /dev/serial/by-id/usb-...")
        return value

    def config(self, data: Mapping[str, Any]) -> Config:
        base = Config()
        self.only(data, "", {"table", "dashboard", "lane", "sim", "scoreboard", "camera",
                             "shoe", "pockets", "mqtt", "club"})
        table = self.section(data, "table", {"id", "name", "game", "data_dir", "operator_pin",
                                             "operator_pin_hash", "snapshot_every"})
        table_id = self.get(table, "table", "id", str, base.table_id)
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", table_id):
            raise self.fail("table.id", "must be 1-40 lower-case letters, digits or '-'")
        game = self.get(table, "table", "game", str, base.game)
        try:
            get_game(game)
        except UnknownGameError as error:
            raise self.fail("table.game", str(error)) from None
        pin = self.operator_pin(table, base.operator_pin)
        snapshot_every = self.get(table, "table", "snapshot_every", int, base.snapshot_every)
        if not 10 <= snapshot_every <= 100_000:
            raise self.fail("table.snapshot_every", "must be 10-100000 log entries")
        data_dir = Path(self.get(table, "table", "data_dir", str, str(base.data_dir)))
        if not data_dir.is_absolute():
            data_dir = self.path.parent / data_dir

        dashboard = self.section(data, "dashboard", {"host", "port"})
        port = self.get(dashboard, "dashboard", "port", int, base.port)
        if not 1 <= port <= 65535:
            raise self.fail("dashboard.port", f"{port} is not a TCP port (1-65535)")

        return Config(
            table_id=table_id, name=self.get(table, "table", "name", str, table_id), game=game,
            data_dir=data_dir, operator_pin=pin, snapshot_every=snapshot_every,
            host=self.get(dashboard, "dashboard", "host", str, base.host), port=port,
            lane=self.lane(data), sim=self.sim(data), scoreboard=self.scoreboard(data),
            camera=self.camera(data), shoe=self.shoe(data), pockets=self.pockets(data),
            mqtt=read_mqtt(self, data), club=read_club(self, data),
            source=str(self.path))

    def operator_pin(self, table: Mapping[str, Any], default: str) -> str:
        """The PIN's configured form: `operator_pin_hash`, else plain `operator_pin`."""
        if "operator_pin" in table and "operator_pin_hash" in table:
            raise self.fail("table.operator_pin", "give operator_pin_hash or operator_pin, "
                            "not both")
        hashed: str | None = self.get(table, "table", "operator_pin_hash", str, None)
        if hashed is not None:
            try:
                PinHash.parse(hashed)
            except PinHashError as error:
                raise self.fail("table.operator_pin_hash", f"{error}") from None
            return hashed
        pin: str = self.get(table, "table", "operator_pin", str, default)
        if not PIN_PATTERN.fullmatch(pin):
            raise self.fail("table.operator_pin", "must be 4-12 digits (or use "
                            "operator_pin_hash, from `hoyle pin-hash`)")
        return pin

    def lane(self, data: Mapping[str, Any]) -> LaneConfig:
        base = LaneConfig()
        lane = self.section(data, "lane", {"backend", "settle_time", "pins", "foul_line",
                                           "ball_detector", "pinsetter", "node_port",
                                           "foul_line_port"})
        backend = self.get(lane, "lane", "backend", str, base.backend)
        if backend not in BACKENDS:
            raise self.fail("lane.backend", f"{backend!r} is not one of {', '.join(BACKENDS)}")
        settle = self.get(lane, "lane", "settle_time", float, base.settle_time)
        if not 0 <= settle <= 10:
            raise self.fail("lane.settle_time", f"{settle} s is out of range (0-10 s)")
        pins = dict(base.pins)
        if "pins" in lane:
            given = lane["pins"]
            if not isinstance(given, dict) or set(given) != {str(n) for n in range(1, 11)}:
                raise self.fail("lane.pins", "must map each pin spot 1-10 to a GPIO pin, "
                                "e.g. pins = { 1 = 4, 2 = 17, ... }")
            pins = {int(k): self.pin(given, "lane.pins", k, 0) for k in given}
        ports = {key: self.port(lane, key) for key in ("node_port", "foul_line_port")}
        if backend == "node" and ports["node_port"] is None:
            raise self.fail("lane.backend", 'backend "node" needs lane.node_port, the pin-deck '
                            "node's serial port, e.g. /dev/serial/by-id/usb-...")
        if ports["node_port"] is not None and ports["node_port"] == ports["foul_line_port"]:
            raise self.fail("lane.foul_line_port", f"{ports['foul_line_port']} is already "
                            "used by lane.node_port")
        config = LaneConfig(backend, settle, pins,
                            self.pin(lane, "lane", "foul_line", base.foul_line),
                            self.pin(lane, "lane", "ball_detector", base.ball_detector),
                            self.pin(lane, "lane", "pinsetter", base.pinsetter),
                            ports["node_port"], ports["foul_line_port"])
        used: dict[int, str] = {}
        wires = [(f"lane.pins.{k}", v) for k, v in sorted(config.pins.items())] + [
            ("lane.foul_line", config.foul_line), ("lane.ball_detector", config.ball_detector),
            ("lane.pinsetter", config.pinsetter)]
        for key, gpio in wires:
            if gpio in used:
                raise self.fail(key, f"GPIO {gpio} is already used by {used[gpio]}")
            used[gpio] = key
        return config

    def sim(self, data: Mapping[str, Any]) -> SimConfig:
        base = SimConfig()
        sim = self.section(data, "sim", {"seed", "pace", "players", "foul_rate",
                                         "dead_ball_rate", "unread_rate"})
        players = self.get(sim, "sim", "players", list, list(base.players))
        if not players or not all(isinstance(p, str) and p.strip() for p in players):
            raise self.fail("sim.players", "must be a list of player names")
        rates = {}
        for key in ("foul_rate", "dead_ball_rate", "unread_rate"):
            rates[key] = self.get(sim, "sim", key, float, getattr(base, key))
            if not 0 <= rates[key] <= 0.5:
                raise self.fail(f"sim.{key}", "must be between 0 and 0.5")
        pace = self.get(sim, "sim", "pace", float, base.pace)
        if not 0 <= pace <= 60:
            raise self.fail("sim.pace", "must be between 0 and 60 seconds")
        return SimConfig(self.get(sim, "sim", "seed", int, base.seed), pace, tuple(players),
                         rates["foul_rate"], rates["dead_ball_rate"], rates["unread_rate"])

    def camera(self, data: Mapping[str, Any]) -> CameraConfig:
        base = CameraConfig()
        camera = self.section(data, "camera", {"source", "width", "height", "bed", "threshold",
                                               "still_frames", "agree", "interval",
                                               "card_threshold"})
        source = self.get(camera, "camera", "source", str, base.source)
        if not source.strip():
            raise self.fail("camera.source", "must name a camera: sim, device:N, /dev/videoN, "
                            "picamera, a folder or a video file")
        size = {}
        for key in ("width", "height"):
            size[key] = self.get(camera, "camera", key, int, getattr(base, key))
            if not 64 <= size[key] <= 4096:
                raise self.fail(f"camera.{key}", f"{size[key]} pixels is out of range (64-4096)")
        bed = None
        if "bed" in camera:
            given = camera["bed"]
            if not (isinstance(given, list) and len(given) == 4
                    and all(isinstance(v, int | float) and not isinstance(v, bool)
                            for v in given)
                    and given[0] >= 0 and given[1] >= 0 and given[2] > 0 and given[3] > 0):
                raise self.fail("camera.bed", "must be [x, y, width, height] in pixels, the "
                                "felt inside the rails")
            bed = (float(given[0]), float(given[1]), float(given[2]), float(given[3]))
        threshold = self.get(camera, "camera", "threshold", float, base.threshold)
        if not 0.5 <= threshold <= 1:
            raise self.fail("camera.threshold", "must be between 0.5 and 1")
        counts = {}
        for key, top in (("still_frames", 30), ("agree", 10)):
            counts[key] = self.get(camera, "camera", key, int, getattr(base, key))
            if not 1 <= counts[key] <= top:
                raise self.fail(f"camera.{key}", f"must be 1-{top} frames")
        interval = self.get(camera, "camera", "interval", float, base.interval)
        if not 0 <= interval <= 5:
            raise self.fail("camera.interval", "must be between 0 and 5 seconds")
        card_threshold = self.get(camera, "camera", "card_threshold", float, None)
        if card_threshold is not None and not 0.5 <= card_threshold <= 1:
            raise self.fail("camera.card_threshold", "must be between 0.5 and 1")
        return CameraConfig(source, size["width"], size["height"], bed, threshold,
                            counts["still_frames"], counts["agree"], interval, card_threshold)

    def shoe(self, data: Mapping[str, Any]) -> ShoeConfig:
        base = ShoeConfig()
        shoe = self.section(data, "shoe", {"port", "packs", "shuffler_port"})
        port = self.get(shoe, "shoe", "port", str, base.port)
        if not port.strip() or port != port.strip():
            raise self.fail("shoe.port", f"{port!r} is not a serial port path or \"sim\"")
        packs = self.get(shoe, "shoe", "packs", int, base.packs)
        if not 1 <= packs <= 8:
            raise self.fail("shoe.packs", f"a shoe holds 1-8 packs, not {packs}")
        shuffler: str | None = self.get(shoe, "shoe", "shuffler_port", str, None)
        if shuffler is not None and shuffler == port:
            raise self.fail("shoe.shuffler_port", f"{shuffler} is already the shoe's port")
        return ShoeConfig(port, packs, shuffler)

    def pockets(self, data: Mapping[str, Any]) -> PocketsConfig:
        base = PocketsConfig()
        pockets = self.section(data, "pockets", {"source", "pins", "node_port", "debounce",
                                                 "ball_reader", "reader_wait", "cue_number"})
        source = self.get(pockets, "pockets", "source", str, base.source)
        if source not in POCKET_SOURCES:
            raise self.fail("pockets.source", f"{source!r} is not one of "
                            f"{', '.join(POCKET_SOURCES)}")
        pins = dict(base.pins)
        if "pins" in pockets:
            given = pockets["pins"]
            if not isinstance(given, dict) or set(given) != set(POCKET_NAMES):
                raise self.fail("pockets.pins", "must map each pocket ("
                                f"{', '.join(POCKET_NAMES)}) to a GPIO pin, e.g. "
                                "pins = { head-left = 5, head-right = 6, ... }")
            pins = {name: self.pin(given, "pockets.pins", name, 0) for name in POCKET_NAMES}
        used: dict[int, str] = {}
        for name in POCKET_NAMES:
            if pins[name] in used:
                raise self.fail(f"pockets.pins.{name}", f"GPIO {pins[name]} is already used "
                                f"by pockets.pins.{used[pins[name]]}")
            used[pins[name]] = name
        node_port: str | None = self.get(pockets, "pockets", "node_port", str, None)
        if node_port is not None and (not node_port.strip() or node_port != node_port.strip()):
            raise self.fail("pockets.node_port", f"{node_port!r} is not a serial port path, "
                            "e.g. /dev/serial/by-id/usb-...")
        if source == "node" and node_port is None:
            raise self.fail("pockets.source", 'source "node" needs pockets.node_port, the '
                            "pockets node's serial port, e.g. /dev/serial/by-id/usb-...")
        debounce = self.get(pockets, "pockets", "debounce", float, base.debounce)
        if not 0.001 <= debounce <= 0.2:
            raise self.fail("pockets.debounce", f"{debounce} s is out of range (0.001-0.2 s)")
        reader = self.get(pockets, "pockets", "ball_reader", bool, source != "gpio")
        if reader and source == "gpio":
            raise self.fail("pockets.ball_reader", 'a ball-return reader is read by the '
                            'pockets node: use source = "node", or ball_reader = false')
        wait = self.get(pockets, "pockets", "reader_wait", float, base.reader_wait)
        if not 0.1 <= wait <= 30:
            raise self.fail("pockets.reader_wait", f"{wait} s is out of range (0.1-30 s)")
        cue = self.get(pockets, "pockets", "cue_number", int, base.cue_number)
        if not 1 <= cue <= 255:
            raise self.fail("pockets.cue_number", f"the reader names balls 1-255, not {cue}")
        return PocketsConfig(source, pins, node_port, debounce, reader, wait, cue)

    def scoreboard(self, data: Mapping[str, Any]) -> ScoreboardConfig:
        base = ScoreboardConfig()
        allowed = set().union(*SCOREBOARD_KEYS.values()) | {"kind"}
        board = self.section(data, "scoreboard", allowed)
        kind = self.get(board, "scoreboard", "kind", str, base.kind)
        if kind not in SCOREBOARDS:
            raise self.fail("scoreboard.kind", f"{kind!r} is not one of {', '.join(SCOREBOARDS)}")
        for key in board:
            if key != "kind" and key not in SCOREBOARD_KEYS[kind]:
                own = ", ".join(sorted(SCOREBOARD_KEYS[kind])) or "none"
                raise self.fail(f"scoreboard.{key}", f"not a key of kind = {kind!r} "
                                f"(its keys: {own})")

        def number(key: str, default: int, allowed: range | tuple[int, ...], what: str) -> int:
            value: int = self.get(board, "scoreboard", key, int, default)
            if value not in allowed:
                raise self.fail(f"scoreboard.{key}", f"{value} is not {what}")
            return value

        cascaded = number("cascaded", 1 if kind == "sevenseg" else base.cascaded, range(1, 17),
                          "1-16 (MAX7219 chips in the chain)")
        port: str = self.get(board, "scoreboard", "port", str, base.port)
        if kind == "serial" and (not port.strip() or port != port.strip()):
            raise self.fail("scoreboard.port" if "port" in board else "scoreboard",
                            f"{port!r} is not a serial port path; kind = \"serial\" needs "
                            "port, e.g. /dev/ttyUSB0 or /dev/serial/by-id/usb-...")
        mapping: str = self.get(board, "scoreboard", "hardware_mapping", str,
                                base.hardware_mapping)
        if mapping not in HARDWARE_MAPPINGS:
            raise self.fail("scoreboard.hardware_mapping",
                            f"{mapping!r} is not one of {', '.join(HARDWARE_MAPPINGS)}")
        return ScoreboardConfig(
            kind, number("spi_port", base.spi_port, range(0, 7), "an SPI bus (0-6)"),
            number("spi_device", base.spi_device, range(0, 3), "a chip select (0-2)"),
            cascaded,
            number("block_orientation", base.block_orientation, (0, 90, -90, 180),
                   "0, 90, -90 or 180 degrees"),
            number("rows", base.rows, (8, 16, 32, 64), "8, 16, 32 or 64 (rows of one panel)"),
            number("cols", base.cols, (16, 32, 40, 64, 80, 128),
                   "16, 32, 40, 64, 80 or 128 (columns of one panel)"),
            number("chain", base.chain, range(1, 9), "1-8 panels"),
            number("brightness", base.brightness, range(1, 101), "1-100 (%)"),
            mapping,
            number("gpio_slowdown", base.gpio_slowdown, range(0, 6), "0-5"),
            self.get(board, "scoreboard", "emulate", bool, base.emulate),
            port,
            number("baud", base.baud, BAUD_RATES,
                   f"a baud rate the sign takes: {', '.join(map(str, BAUD_RATES))}"),
            number("width", base.width, range(1, MAX_WIDTH + 1),
                   f"1-{MAX_WIDTH} characters"),
        )
