"""The table's config file: every mistake names the file, the key and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import Config, load_config
from controller.errors import ConfigError

EXAMPLE = Path(__file__).parents[2] / "examples" / "lane.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "lane.toml"
    path.write_text(text)
    return path


def test_example_config_loads() -> None:
    config = load_config(EXAMPLE)
    assert config.table_id == "lane-1"
    assert config.lane.backend == "real"
    assert config.lane.pins[10] == 24
    assert config.scoreboard.kind == "max7219"
    assert config.log_path == Path("/var/lib/hoyle/lane-1.db")


def test_no_file_means_the_simulated_lane_on_loopback() -> None:
    config = Config.simulated()
    assert config.lane.backend == "sim"
    assert config.host == "127.0.0.1"


@pytest.mark.parametrize(("text", "key", "line"), [
    ('[table]\nid = "lane-1"\ncolour = "red"\n', "table.colour", 3),
    ('[table]\nid = "Lane 1"\n', "table.id", 2),
    ('[table]\ngame = "skittles"\n', "table.game", 2),
    ('[dashboard]\nport = 70000\n', "dashboard.port", 2),
    ('[lane]\nbackend = "magic"\n', "lane.backend", 2),
    ('[lane]\n\nsettle_time = -1\n', "lane.settle_time", 3),
    ('[lane]\nfoul_line = 40\n', "lane.foul_line", 2),
    ('[lane]\nball_detector = 25\n', "lane.ball_detector", 2),
    ('[lane]\npins = { 1 = 4 }\n', "lane.pins", 2),
    ('[scoreboard]\nkind = "neon"\n', "scoreboard.kind", 2),
    ('[table]\noperator_pin = 1234\n', "table.operator_pin", 2),
    ('[lights]\non = true\n', "lights", 1),
    ('[camera]\nsource = ""\n', "camera.source", 2),
    ('[camera]\nbed = [0, 0, 640]\n', "camera.bed", 2),
    ('[camera]\n\nthreshold = 0.3\n', "camera.threshold", 3),
    ('[camera]\nagree = 0\n', "camera.agree", 2),
    ('[camera]\ncard_threshold = 1.5\n', "camera.card_threshold", 2),
    ('[camera]\ncard_threshold = "sure"\n', "camera.card_threshold", 2),
    ('[camera]\nwidth = 10\n', "camera.width", 2),
    ('[camera]\nzoom = 2\n', "camera.zoom", 2),
    ('[lane]\nbackend = "node"\n', "lane.backend", 2),
    ('[lane]\nnode_port = " /dev/ttyACM0"\n', "lane.node_port", 2),
    ('[lane]\nbackend = "node"\nnode_port = "/dev/ttyACM0"\nfoul_line_port = "/dev/ttyACM0"\n',
     "lane.foul_line_port", 4),
    # A header with a comment, as the examples write them.
    ('[table]\n\n[scoreboard]   # docs/scoreboard.md\ncascaded = "4"\n', "scoreboard.cascaded",
     4),
    ('[table]\nid = "lane-1"\n\n[scorebord]  # a typo\nkind = "none"\n', "scorebord", 4),
    # Dotted keys, inline tables, and a string over several lines.
    ('[table]\nid = "lane-1"\nscoreboard.cascaded = 1\n', "table.scoreboard", 3),
    ('scoreboard.kind = "max7219"\nscoreboard.cascaded = "4"\n', "scoreboard.cascaded", 2),
    ('scorebord.kind = "none"\n', "scorebord", 1),
    ('[lane]\nsettle_time = 0.1\npins = { 1 = 4, 2 = 5, 3 = 6, 4 = 12, 5 = 13, 6 = 16, 7 = 17, '
     '8 = 22, 9 = 23, 10 = 99 }\n', "lane.pins.10", 3),
    ('[table]\nname = """\nid = "a"\n"""\nid = "Lane 1"\n', "table.id", 5),
])
def test_mistakes_name_the_key_and_line(tmp_path: Path, text: str, key: str,
                                        line: int) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert f"{path}, line {line}: {key}:" in message


def test_a_wire_used_twice_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, "[lane]\nfoul_line = 4\n")
    with pytest.raises(ConfigError, match=r"line 2: lane.foul_line: GPIO 4 is already used by "
                                          r"lane.pins.1"):
        load_config(path)


def test_toml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, '[table]\nid = "lane-1\n')
    with pytest.raises(ConfigError, match=r"not valid TOML: .*line 2"):
        load_config(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_config(tmp_path / "nope.toml")


def test_node_lane_config(tmp_path: Path) -> None:
    path = write(tmp_path, '[lane]\nbackend = "node"\n'
                           'node_port = "/dev/serial/by-id/usb-pindeck"\n'
                           'foul_line_port = "/dev/serial/by-id/usb-foulline"\n')
    lane = load_config(path).lane
    assert (lane.backend, lane.node_port, lane.foul_line_port) == (
        "node", "/dev/serial/by-id/usb-pindeck", "/dev/serial/by-id/usb-foulline")


def test_a_dice_table_reads_its_camera(tmp_path: Path) -> None:
    path = tmp_path / "dice.toml"
    path.write_text('[table]\ngame = "craps-bank"\n[camera]\nsource = "device:1"\n'
                    'bed = [10, 20, 600, 440]\nthreshold = 0.95\n')
    camera = load_config(path).camera
    assert (camera.source, camera.bed, camera.threshold) == ("device:1", (10, 20, 600, 440),
                                                             0.95)


def test_a_card_table_takes_the_recognisers_threshold_unless_told(tmp_path: Path) -> None:
    path = tmp_path / "cards.toml"
    path.write_text('[table]\ngame = "baccara"\n[camera]\nsource = "device:0"\n')
    assert load_config(path).camera.card_threshold is None
    path.write_text('[table]\ngame = "baccara"\n[camera]\nsource = "device:0"\n'
                    'card_threshold = 0.9999\n')
    assert load_config(path).camera.card_threshold == 0.9999


@pytest.mark.parametrize("name", ["lane.toml", "dice.toml", "cards.toml"])
def test_the_example_configs_load(name: str) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / name
    config = load_config(example)
    assert config.name and config.table_id
