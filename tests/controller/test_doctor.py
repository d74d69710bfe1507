"""`hoyle doctor` names every device, and for a silent one, the wire and the reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]


def doctor(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "doctor", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, **(env or {})})


def test_simulated_lane_answers_on_every_input() -> None:
    done = doctor("--json", env={"HOYLE_BACKEND": ""})
    assert done.returncode == 0, done.stderr
    checks = {c["device"]: c for c in json.loads(done.stdout)}
    assert set(checks) == {"pin deck", "foul line", "ball detector", "pinsetter", "scoreboard"}
    assert all(c["ok"] for c in checks.values())
    assert checks["foul line"]["where"] == "GPIO25"
    assert "mock pins" in checks["pin deck"]["detail"]


def test_missing_gpio_is_named_with_its_reason(tmp_path: Path) -> None:
    config = tmp_path / "lane.toml"
    config.write_text('[lane]\nbackend = "real"\n')
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
    config = tmp_path / "lane.toml"
    config.write_text('[lane]\nbackend = "sim-firmware"\n')
    done = doctor("--config", str(config), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    checks = {c["device"]: c for c in json.loads(done.stdout)}
    assert checks["pin deck node"]["ok"] and checks["foul line node"]["ok"]
    assert "pin deck node, firmware 1.0.0, protocol 1" in checks["pin deck node"]["detail"]
    assert checks["foul line node"]["detail"].startswith("foul line node")


def test_a_missing_node_port_is_named(tmp_path: Path) -> None:
    config = tmp_path / "lane.toml"
    port = tmp_path / "ttyACM9"
    config.write_text(f'[lane]\nbackend = "node"\nnode_port = "{port}"\n'
                      f'foul_line_port = "{tmp_path / "ttyACM8"}"\n')
    done = doctor("--config", str(config))
    assert done.returncode == 1
    silent = [x for x in done.stdout.splitlines() if x.startswith("SILENT")]
    assert any("pin deck node" in x and str(port) in x and "is not there" in x for x in silent)
    assert any("foul line node" in x for x in silent)


def test_a_dice_tables_camera_is_opened_and_read(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "frame_000.png"), np.full((480, 640, 3), 60, dtype=np.uint8))
    config = tmp_path / "dice.toml"
    config.write_text(f'[table]\ngame = "craps-bank"\n[camera]\nsource = "{frames}"\n'
                      '[scoreboard]\nkind = "none"\n')
    done = doctor("--config", str(config), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    camera = next(c for c in json.loads(done.stdout) if c["device"] == "camera")
    assert camera["ok"] and "a 640x480 frame" in camera["detail"]


def test_a_missing_camera_is_named_with_its_reason(tmp_path: Path) -> None:
    config = tmp_path / "dice.toml"
    config.write_text('[table]\ngame = "craps-bank"\n[camera]\nsource = "device:63"\n'
                      '[scoreboard]\nkind = "none"\n')
    done = doctor("--config", str(config))
    assert done.returncode == 1
    line = next(x for x in done.stdout.splitlines() if "camera" in x)
    assert line.startswith("SILENT") and "device:63" in line and "cannot be opened" in line
