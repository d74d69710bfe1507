"""The systemd unit and udev rules in deploy/: valid, sandboxed, and still able to reach devices."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import EXIT_BAD_INPUT
from controller.config import load_config

REPO = Path(__file__).parents[2]
UNIT = REPO / "deploy" / "hoyle@.service"
RULES = REPO / "deploy" / "99-hoyle.rules"
INSTALLED = "/opt/hoyle/.venv/bin/hoyle"


def service_settings() -> dict[str, list[str]]:
    """The [Service] section's settings, each key with every value it is given."""
    settings: dict[str, list[str]] = {}
    section = ""
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
        elif section == "[Service]":
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian: apt install systemd)")
    hoyle = Path(sys.executable).with_name("hoyle")
    if not hoyle.exists():
        pytest.skip(f"the hoyle command is not installed at {hoyle} (pip install -e .)")
    # The unit as installed names the Pi's /opt/hoyle; here the same command is this venv's.
    unit = tmp_path / "hoyle@lane-1.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED, str(hoyle)))
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                          timeout=60)
    # Unknown keys and bad values are only warnings naming the file; they fail here too.
    complaints = [line for line in done.stderr.splitlines() if unit.name in line]
    assert done.returncode == 0 and not complaints, done.stderr


def test_the_service_runs_as_its_user_with_the_device_groups() -> None:
    settings = service_settings()
    assert settings["User"] == ["hoyle"]
    groups = set(" ".join(settings["SupplementaryGroups"]).split())
    assert {"gpio", "spi", "dialout", "video"} <= groups
    assert settings["ExecStart"] == [f"{INSTALLED} serve --config /etc/hoyle/%i.toml"]


def test_the_sandbox_is_read_only_but_the_event_log_folder() -> None:
    settings = service_settings()
    assert settings["ProtectSystem"] == ["strict"]
    assert settings["NoNewPrivileges"] == ["yes"]
    writable = [Path(p) for p in " ".join(settings["ReadWritePaths"]).split()]
    data_dir = load_config(REPO / "examples" / "lane.toml").data_dir
    assert any(data_dir == path or path in data_dir.parents for path in writable)


def test_nothing_in_the_sandbox_hides_the_devices() -> None:
    settings = service_settings()
    assert settings.get("PrivateDevices", ["no"]) == ["no"]
    for cuts_off_devices in ("DevicePolicy", "DeviceAllow", "ProtectClock"):
        assert cuts_off_devices not in settings


def test_it_restarts_on_failure_but_not_on_a_wrong_config() -> None:
    settings = service_settings()
    assert settings["Restart"] == ["on-failure"]
    assert settings["RestartPreventExitStatus"] == [str(EXIT_BAD_INPUT)]


def test_a_watchdog_only_if_the_service_pings_it() -> None:
    pings = any("WATCHDOG=1" in path.read_text() for path in (REPO / "controller").glob("*.py"))
    assert ("WatchdogSec" in service_settings()) == pings


RULE_KEY = re.compile(r'(\w+(?:\{[^}]+\})?)(==|!=|\+=|:=|=)"([^"]*)"')


def test_the_udev_rules_give_each_serial_device_a_stable_name() -> None:
    links = []
    for raw in RULES.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pairs = line.split(", ")
        parsed = [RULE_KEY.fullmatch(pair) for pair in pairs]
        assert all(parsed), f"not a udev rule: {line}"
        keys = {m.group(1): (m.group(2), m.group(3)) for m in parsed if m}
        assert keys["SUBSYSTEM"] == ("==", "tty")
        assert keys["ATTRS{serial}"][0] == "=="
        assert keys["GROUP"] == ("=", "dialout")
        operator, link = keys["SYMLINK"]
        assert operator == "+=" and link.startswith("hoyle/")
        links.append(link)
    assert len(links) == len(set(links)) >= 5
