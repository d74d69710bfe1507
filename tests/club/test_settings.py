"""The [mqtt] and [club] sections: read as documented, wrong keys named with their line."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import load_config
from controller.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "lane.toml"
    path.write_text(text)
    return path


def test_a_table_without_mqtt_publishes_nowhere(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "[table]\nid = 'lane-1'\n")).mqtt is None


def test_mqtt_and_club_sections_are_read(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("s3cret\n")
    (tmp_path / "ca.pem").write_text("-")
    config = load_config(write(tmp_path, """
[mqtt]
host = "broker.club.lan"
club = "riverside"
password_file = "secret"
tls = true
ca_file = "ca.pem"
[club]
store = "postgresql"
dsn = "postgresql://hoyle@db/hoyle"
"""))
    assert config.mqtt is not None
    assert (config.mqtt.host, config.mqtt.port, config.mqtt.password) == (
        "broker.club.lan", 8883, "s3cret")
    assert config.mqtt.ca_file == tmp_path / "ca.pem"
    assert (config.club.store, config.club.dsn) == ("postgresql", "postgresql://hoyle@db/hoyle")


@pytest.mark.parametrize(("text", "message"), [
    ("[mqtt]\nclub = 'riverside'\n", "line 1: mqtt: needs host"),
    ("[mqtt]\nhost = 'b'\nclub = 'River Side'\n", "line 3: mqtt.club: club must be"),
    ("[mqtt]\nhost = 'b'\nclub = 'c'\nport = 0\n", "line 4: mqtt.port: 0 is not a TCP port"),
    ("[mqtt]\nhost = 'b'\nclub = 'c'\nqos = 2\n", "line 4: mqtt.qos: unknown key"),
    ("[mqtt]\nhost = 'b'\nclub = 'c'\nca_file = 'x.pem'\n", "mqtt.ca_file: is only used"),
    ("[club]\nstore = 'postgresql'\n", "line 2: club.store: store \"postgresql\" needs"),
    ("[club]\nstore = 'mysql'\n", "line 2: club.store: 'mysql' is not one of"),
])
def test_wrong_keys_are_named_with_file_and_line(tmp_path: Path, text: str,
                                                 message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, text))
