"""`hoyle doctor` names every device of the table's family, and for a silent one, why."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from controller.config import Config, load_config
from controller.doctor import (
    check_camera,
    check_card_device,
    check_dashboard,
    check_pockets,
    check_shoe,
    diagnose,
)
from drivers.pockets import DEFAULT_PINS
from drivers.shoe.fake import FakeShoe
from drivers.shoe.protocol import DeviceKind
from drivers.shoe.shuffler import FakeShuffler
from drivers.wire.fake import Cable, FakeNode
from drivers.wire.messages import NodeType

REPO = Path(__file__).parents[2]
#: Generous: only a failing check waits this long on a slow busy machine.
WAIT = 10.0


def doctor(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "doctor", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, **(env or {})})


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def write(tmp_path: Path, text: str, *, port: int | None = None) -> Path:
    """A config file; its dashboard on a free loopback port unless the text names one."""
    if "[dashboard]" not in text:
        text += f"\n[dashboard]\nport = {port or free_port()}\n"
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def by_device(checks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {c["device"]: c for c in checks}


# --- a lane ------------------------------------------------------------------------------


def test_simulated_lane_answers_on_every_input(tmp_path: Path) -> None:
    done = doctor("--config", str(write(tmp_path, "")), "--json", env={"HOYLE_BACKEND": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    checks = by_device(json.loads(done.stdout))
    assert set(checks) == {"pin deck", "foul line", "ball detector", "pinsetter", "scoreboard",
                           "dashboard"}
    assert all(c["ok"] and c["state"] == "working" for c in checks.values())
    assert checks["foul line"]["where"] == "GPIO25"
    assert "mock pins" in checks["pin deck"]["detail"]


def test_missing_gpio_is_named_with_its_reason(tmp_path: Path) -> None:
    config = write(tmp_path, '[lane]\nbackend = "real"\n')
    done = doctor("--config", str(config),
                  env={"HOYLE_BACKEND": "", "GPIOZERO_PIN_FACTORY": "no-such-factory"})
    assert done.returncode == 1
    line = next(x for x in done.stdout.splitlines() if "lane GPIO" in x)
    assert line.startswith("SILENT") and "real" in line and len(line) > 60


def test_bad_config_exits_2_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "lane.toml"
    config.write_text('[lane]\nbackend = "real"\nspeed = 3\n')
    done = doctor("--config", str(config))
    assert done.returncode == 2 and "line 3: lane.speed: unknown key" in done.stderr


MICROPYTHON = Path(sys.executable).parent / "micropython"


def test_sim_firmware_nodes_are_identified(tmp_path: Path) -> None:
    if not MICROPYTHON.exists():
        pytest.skip("the MicroPython unix port is not installed")
    config = write(tmp_path, '[lane]\nbackend = "sim-firmware"\n')
    done = doctor("--config", str(config), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    checks = by_device(json.loads(done.stdout))
    assert checks["pin deck node"]["ok"] and checks["foul line node"]["ok"]
    assert "pin deck node, firmware 1.0.0, protocol 1" in checks["pin deck node"]["detail"]
    assert checks["foul line node"]["detail"].startswith("foul line node")


def test_a_missing_node_port_is_named(tmp_path: Path) -> None:
    port = tmp_path / "ttyACM9"
    config = write(tmp_path, f'[lane]\nbackend = "node"\nnode_port = "{port}"\n'
                             f'foul_line_port = "{tmp_path / "ttyACM8"}"\n')
    checks = {c.device: c for c in diagnose(load_config(config))}
    deck = checks["pin deck node"]
    assert (deck.where, deck.ok) == (str(port), False) and "is not there" in deck.detail
    assert not checks["foul line node"].ok


# --- a dice table ------------------------------------------------------------------------


def dice_config(tmp_path: Path, source: str) -> Path:
    return write(tmp_path, f'[table]\ngame = "craps-bank"\n[camera]\nsource = "{source}"\n'
                           '[scoreboard]\nkind = "none"\n')


def test_a_dice_tables_camera_is_opened_and_read(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "frame_000.png"), np.full((480, 640, 3), 60, dtype=np.uint8))
    done = doctor("--config", str(dice_config(tmp_path, str(frames))), "--json")
    checks = by_device(json.loads(done.stdout))
    assert set(checks) == {"camera", "dice recogniser", "scoreboard", "dashboard"}
    assert checks["camera"]["ok"] and "a 640x480 frame" in checks["camera"]["detail"]
    # The recogniser's model is a check of its own: the exit status follows every check.
    assert done.returncode == (0 if all(c["ok"] for c in checks.values()) else 1)


def test_a_missing_camera_is_named_with_its_reason(tmp_path: Path) -> None:
    camera = check_camera(load_config(dice_config(tmp_path, "device:63")))
    assert (camera.where, camera.ok) == ("device:63", False)
    assert "cannot be opened" in camera.detail


def test_a_missing_dice_model_is_named_apart_from_the_camera(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.dice

    missing = tmp_path / "dice_cnn.onnx"

    def no_model(*_args: object, **_kwargs: object) -> None:
        raise vision.dice.ModelError(f"{missing}: no such dice model")

    monkeypatch.setattr(vision.dice, "DiceReader", no_model)
    checks = {c.device: c for c in diagnose(load_config(dice_config(tmp_path, "sim")))}
    assert checks["camera"].ok
    recogniser = checks["dice recogniser"]
    assert not recogniser.ok and str(missing) in recogniser.detail
    assert recogniser.to_json()["state"] == "unavailable"


# --- a card table ------------------------------------------------------------------------


def cards_config(tmp_path: Path, shoe: str, shuffler: str | None = None) -> Path:
    line = f'shuffler_port = "{shuffler}"\n' if shuffler else ""
    return write(tmp_path, f'[table]\ngame = "baccara"\n[shoe]\nport = "{shoe}"\npacks = 3\n'
                           f'{line}[scoreboard]\nkind = "none"\n')


def test_the_shoe_and_shuffler_answer_hello_and_keep_their_cards(tmp_path: Path) -> None:
    with FakeShoe(["AS", "10H"], maker="Acme", serial="SH-0042") as shoe, \
            FakeShuffler(serial="SF-7") as shuffler:
        shoe.draw(1)
        shoe.wait_drawn(1)
        done = doctor("--config", str(cards_config(tmp_path, shoe.port, shuffler.port)),
                      "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        checks = by_device(json.loads(done.stdout))
        assert set(checks) == {"dealer shoe", "shuffler", "scoreboard", "dashboard"}
        assert checks["dealer shoe"]["where"] == shoe.port
        assert checks["dealer shoe"]["detail"].startswith("Acme SH-0042, protocol 1")
        assert "1 dealt, 1 held for the service" in checks["dealer shoe"]["detail"]
        assert checks["shuffler"]["ok"] and "SF-7" in checks["shuffler"]["detail"]
        # The doctor acknowledged nothing: the card drawn is still the shoe's to resend.
        assert shoe.unacked == 1


def test_a_card_tables_camera_and_card_models_are_checked_when_it_has_one(
        tmp_path: Path) -> None:
    import cv2
    import numpy as np

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "frame_000.png"), np.full((480, 640, 3), 60, dtype=np.uint8))
    with FakeShoe(["AS"]) as shoe:
        plain = cards_config(tmp_path, shoe.port)
        assert "camera" not in {c.device for c in diagnose(load_config(plain))}
        plain.write_text(plain.read_text() + f'[camera]\nsource = "{frames}"\n')
        checks = {c.device: c for c in diagnose(load_config(plain))}
    assert checks["camera"].ok and "a 640x480 frame" in checks["camera"].detail
    assert checks["card recogniser"].ok


def test_an_unplugged_shoe_and_shuffler_are_named(tmp_path: Path) -> None:
    port, shuffler = tmp_path / "ttyUSB7", tmp_path / "ttyUSB8"
    done = doctor("--config", str(cards_config(tmp_path, str(port), str(shuffler))))
    assert done.returncode == 1
    silent = [x for x in done.stdout.splitlines() if x.startswith("SILENT")]
    assert any("dealer shoe" in x and f"{port} is not there" in x for x in silent)
    assert any(x.startswith("SILENT shuffler") and str(shuffler) in x for x in silent)


def test_a_silent_shoe_is_named_after_its_tries() -> None:
    master, slave = os.openpty()
    try:
        check = check_card_device(os.ttyname(slave), DeviceKind.SHOE, timeout=1.0)
    finally:
        os.close(master)
        os.close(slave)
    assert not check.ok and check.device == "dealer shoe"
    assert "did not answer" in check.detail


def test_a_shuffler_on_the_shoes_port_is_refused() -> None:
    with FakeShuffler() as shuffler:
        check = check_card_device(shuffler.port, DeviceKind.SHOE, timeout=WAIT)
    assert not check.ok and "shuffler" in check.detail


def test_the_simulated_card_table_greets_its_own_fakes(tmp_path: Path) -> None:
    checks = check_shoe(load_config(cards_config(tmp_path, "sim")), timeout=WAIT)
    assert [(c.device, c.where, c.ok) for c in checks] == [
        ("dealer shoe", "simulated", True), ("shuffler", "simulated", True)]


# --- a cue table -------------------------------------------------------------------------


def pockets_config(tmp_path: Path, pockets: str) -> Config:
    return load_config(write(tmp_path, f'[table]\ngame = "fifteen-ball-pool"\n[pockets]\n'
                                       f'{pockets}[scoreboard]\nkind = "none"\n'))


class ClosedSwitch(MockPin):  # type: ignore[misc]
    """A throat switch closed to ground: it holds the line low against the pull-up."""

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        self.drive_low()


def test_each_pocket_switch_is_read_and_a_closed_one_named(tmp_path: Path) -> None:
    config = pockets_config(tmp_path, 'source = "gpio"\nball_reader = false\n')
    factory = MockFactory()
    factory.pin(DEFAULT_PINS["side-right"], pin_class=ClosedSwitch)
    checks = {c.device: c for c in check_pockets(config, pin_factory=factory)}
    assert set(checks) == {f"pocket {name}" for name in DEFAULT_PINS}
    assert all(c.ok for c in checks.values())
    assert checks["pocket head-left"].where == "GPIO5"
    assert checks["pocket side-right"].detail.startswith("closed now")
    assert checks["pocket foot-left"].detail.startswith("open")


def test_pocket_gpio_that_cannot_be_opened_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    config = pockets_config(tmp_path, 'source = "gpio"\nball_reader = false\n')
    [check] = check_pockets(config)
    assert (check.device, check.where, check.ok) == ("pockets GPIO", "real", False)
    assert "no GPIO pin factory could load" in check.detail


def test_the_pockets_node_is_identified(tmp_path: Path) -> None:
    config = pockets_config(tmp_path, 'source = "node"\nnode_port = "pockets0"\n')
    cable = Cable(FakeNode(node_type=NodeType.POCKETS, inputs=7))
    [check] = check_pockets(config, serial_factory=cable.serial, timeout=WAIT)
    assert (check.device, check.where, check.ok) == ("pockets node", "pockets0", True)
    assert check.detail.startswith("pockets node, firmware")


def test_a_wrong_or_unplugged_pockets_node_is_named(tmp_path: Path) -> None:
    config = pockets_config(tmp_path, 'source = "node"\nnode_port = "pockets0"\n')
    wrong = Cable(FakeNode(node_type=NodeType.PIN_DECK))
    [check] = check_pockets(config, serial_factory=wrong.serial, timeout=WAIT)
    assert not check.ok and "expected a pockets node, found a pin deck node" in check.detail
    unplugged = Cable(FakeNode(node_type=NodeType.POCKETS, inputs=7), plugged=False)
    [check] = check_pockets(config, serial_factory=unplugged.serial, timeout=0.5)
    assert not check.ok and "unplugged" in check.detail


# --- the dashboard's address -------------------------------------------------------------


def dashboard(tmp_path: Path, host: str, port: int) -> Config:
    return load_config(write(tmp_path, f'[dashboard]\nhost = "{host}"\nport = {port}\n'))


def test_a_free_loopback_or_lan_address_is_working(tmp_path: Path) -> None:
    loopback = check_dashboard(dashboard(tmp_path, "127.0.0.1", free_port()))
    assert loopback.ok and "loopback" in loopback.detail
    everywhere = check_dashboard(dashboard(tmp_path, "0.0.0.0", free_port()))
    assert everywhere.ok and "LAN" in everywhere.detail


def test_a_port_in_use_is_named(tmp_path: Path) -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        check = check_dashboard(dashboard(tmp_path, "127.0.0.1", port))
    assert not check.ok and f"port {port} is in use" in check.detail
    assert "systemctl stop hoyle@" in check.detail


def test_a_public_or_foreign_address_is_refused(tmp_path: Path) -> None:
    public = check_dashboard(dashboard(tmp_path, "8.8.8.8", 8000))
    assert not public.ok and "public address" in public.detail
    # A LAN address that is not this machine's (TEST-NET would be refused as not private).
    foreign = check_dashboard(dashboard(tmp_path, "10.255.255.254", free_port()))
    assert not foreign.ok and "not an address of this machine" in foreign.detail
