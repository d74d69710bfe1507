"""The scoreboard as the service runs it: chosen by [scoreboard], fed every change, and a
board that fails shown as the table's device, unavailable and why."""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.config import load_config
from controller.errors import ConfigError
from controller.service import build, open_scoreboard
from drivers.scoreboards import Hub75Scoreboard, Max7219Scoreboard
from tests.controller import helpers
from tests.controller.helpers import OPERATOR, wait_for


def write(tmp_path: Path, board: str) -> Path:
    return helpers.write_config(tmp_path / "table.toml", 'id = "lane-9"\ngame = "ten-pins"',
                                f'[lane]\nbackend = "fake"\n[scoreboard]\n{board}')


@pytest.mark.parametrize(("board", "key", "line"), [
    ('kind = "serial"\n', "scoreboard", 9),
    ('kind = "serial"\nport = "/dev/ttyUSB0"\nbaud = 9601\n', "scoreboard.baud", 12),
    ('kind = "serial"\nport = "/dev/ttyUSB0"\nwidth = 65\n', "scoreboard.width", 12),
    ('kind = "max7219"\nport = "/dev/ttyUSB0"\n', "scoreboard.port", 11),
    ('kind = "sevenseg"\ncascaded = 17\n', "scoreboard.cascaded", 11),
    ('kind = "hub75"\nrows = 24\n', "scoreboard.rows", 11),
    ('kind = "hub75"\nhardware_mapping = "hat"\n', "scoreboard.hardware_mapping", 11),
    ('kind = "hub75"\nemulate = "yes"\n', "scoreboard.emulate", 11),
    ('kind = "max7219"\nblock_orientation = 45\n', "scoreboard.block_orientation", 11),
])
def test_scoreboard_mistakes_name_the_key_and_line(tmp_path: Path, board: str, key: str,
                                                   line: int) -> None:
    path = write(tmp_path, board)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert f"{path}, line {line}: {key}:" in str(error.value)


def test_each_kind_opens_its_board(tmp_path: Path) -> None:
    kinds = {'kind = "emulated"\ncascaded = 8\n': Max7219Scoreboard,
             'kind = "hub75"\nemulate = true\nrows = 16\ncols = 32\nchain = 2\n':
                 Hub75Scoreboard}
    for board, opened in kinds.items():
        config = load_config(write(tmp_path, board))
        shown = open_scoreboard(config)
        assert isinstance(shown, opened)
        shown.close()
    assert (tmp_path / "emulator_config.json").exists()
    assert open_scoreboard(load_config(write(tmp_path, 'kind = "none"\n'))) is None


def test_sevenseg_without_spi_is_unavailable_naming_the_bus(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, 'kind = "sevenseg"\nspi_port = 6\n'))
    with pytest.raises(ConnectionError, match=r"spidev6\.0"):
        open_scoreboard(config)


def devices(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["name"]: d for d in view["devices"]}


@pytest.fixture
def sign() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    yield master, os.ttyname(slave)
    for fd in (master, slave):
        with contextlib.suppress(OSError):
            os.close(fd)


def lines_from(master: int, until: bytes) -> list[bytes]:
    data = b""
    while until not in data:
        ready, _, _ = select.select([master], [], [], helpers.WAIT)
        assert ready, f"the sign heard no {until!r}, only {data!r}"
        data += os.read(master, 4096)
    return data.splitlines()


def test_serial_sign_follows_the_game_and_an_unplugged_sign_is_reported(
        tmp_path: Path, sign: tuple[int, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    master, port = sign
    built = build(load_config(write(tmp_path, f'kind = "serial"\nport = "{port}"\n')))
    with TestClient(built.app) as client:
        assert client.post("/api/game", json={"game": "ten-pins", "players": ["Ann", "Bob"]},
                           headers=OPERATOR).status_code == 200
        heard = lines_from(master, b",RUN,BOWL,ANN 0 F1,")
        assert heard[0].startswith(b"$HOY,") and b",IDLE,," in heard[0]
        os.close(master)
        assert client.post("/api/abandon", json={"reason": "the sign is unplugged"},
                           headers=OPERATOR).status_code == 200
        view = wait_for(lambda: "scoreboard" in devices(v := client.get("/api/view").json())
                        and v)
    board = devices(view)["scoreboard"]
    assert board["state"] == "unavailable"
    assert board["detail"].startswith("scoreboard: ") and port in board["detail"]
    assert view["status"] == "idle", "a sign that fails is reported but does not pause play"


def test_missing_sign_at_start_is_reported_and_nothing_else_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    missing = tmp_path / "ttyUSB7"
    built = build(load_config(write(tmp_path, f'kind = "serial"\nport = "{missing}"\n')))
    with TestClient(built.app) as client:
        view = client.get("/api/view").json()
    board = devices(view)["scoreboard"]
    assert board["state"] == "unavailable"
    assert f"cannot open serial port {missing}" in board["detail"]
    assert devices(view)["lane"]["state"] == "working"
