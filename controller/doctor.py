"""`hoyle doctor`: open every device the config names and say which answers and which is silent.

Run it with the service stopped (the service holds the GPIO lines and serial ports).
Each check names the wire or port, what it found, and for a silent one, why.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from typing import Any

from controller.config import Config
from controller.service import lane_pins
from drivers.backends import choose_backend, make_pin_factory
from drivers.errors import DriverError
from drivers.lane import FoulLine, build_lane
from drivers.scoreboard import open_max7219
from drivers.wire.link import NodeLink
from drivers.wire.messages import node_type_name
from drivers.wire.simnode import SimNode
from engine.core import JSON
from engine.registry import get_game

NODE_READY_TIMEOUT = 2.0
SERIAL_PATTERNS = ("/dev/serial/by-id/*", "/dev/ttyACM*", "/dev/ttyUSB*")


@dataclass(frozen=True, slots=True)
class Check:
    """One device's answer: its name, where it is wired, whether it works, and what was seen."""

    device: str
    where: str
    ok: bool
    detail: str

    def to_json(self) -> JSON:
        return {"device": self.device, "where": self.where, "ok": self.ok,
                "detail": self.detail}


def check_gpio_lane(config: Config) -> list[Check]:
    """Open the lane's inputs on the Pi's GPIO and read each one once."""
    pins = lane_pins(config)
    backend = choose_backend("fake" if config.lane.backend == "sim" else config.lane.backend)
    try:
        factory = make_pin_factory(backend)
        lane = build_lane(pins, pin_factory=factory, settle_time=config.lane.settle_time,
                          on_reading=lambda _reading: None)
    except (DriverError, OSError, ValueError) as error:
        return [Check("lane GPIO", backend, False, str(error))]
    try:
        status: Any = lane.status()
    finally:
        lane.close()
    checks = []
    mock = " (mock pins: no hardware)" if backend == "fake" else ""
    deck = status["pin_deck"]
    standing = sorted(deck["standing"])
    checks.append(Check("pin deck", "GPIO " + ", ".join(
        f"{spot}:{pin}" for spot, pin in deck["pins"].items()), bool(deck["working"]),
        deck["error"] or f"pins standing now: {', '.join(map(str, standing)) or 'none'}{mock}"))
    for key, label in (("foul_line", "foul line"), ("ball_detector", "ball detector"),
                       ("pinsetter", "pinsetter")):
        line = status[key]
        checks.append(Check(label, str(line["pin"]), bool(line["working"]),
                            line["error"] or ("active now" if line["active"] else "idle") + mock))
    return checks


def check_gpio_foul_line(config: Config) -> Check:
    """The foul line alone on GPIO (a node lane whose foul line is wired to the Pi)."""
    pin = config.lane.foul_line
    try:
        line = FoulLine(pin, pin_factory=make_pin_factory(choose_backend("real")))
    except (DriverError, OSError, ValueError) as error:
        return Check("foul line", f"GPIO{pin}", False, str(error))
    try:
        status: Any = line.status()
    finally:
        line.close()
    return Check("foul line", str(status["pin"]), bool(status["working"]),
                 status["error"] or ("active now" if status["active"] else "idle"))


def check_nodes(config: Config) -> list[Check]:
    """The lane's sensor nodes: the configured ports, or simulated nodes for sim-firmware."""
    lane = config.lane
    if lane.backend == "sim-firmware":
        checks = []
        for node_type, label in (("pindeck", "pin deck node"), ("foulline", "foul line node")):
            try:
                node = SimNode(node_type)
            except (DriverError, OSError) as error:
                checks.append(Check(label, "simulated", False, str(error)))
                continue
            try:
                checks.append(check_node(node.port, label))
            finally:
                node.close()
        return checks
    assert lane.node_port is not None
    checks = [check_node(lane.node_port, "pin deck node")]
    if lane.foul_line_port is not None:
        checks.append(check_node(lane.foul_line_port, "foul line node"))
    else:
        checks.append(check_gpio_foul_line(config))
    return checks


def check_node(port: str, label: str) -> Check:
    """Identify the node on a serial port and report its firmware, protocol and state."""
    try:
        link = NodeLink(port)
    except (DriverError, OSError) as error:
        return Check(label, port, False, str(error))
    try:
        state = link.wait_ready(NODE_READY_TIMEOUT)
        info = link.state()
    except (DriverError, OSError) as error:
        return Check(label, port, False, str(error))
    finally:
        link.close()
    kind = node_type_name(info["node_type"]) if info["node_type"] is not None else "unknown"
    detail = (f"{kind} node, firmware {info['firmware']}, protocol "
              f"{info['protocol']}, boot {info['boot_id']}: {state}")
    if info["detail"]:
        detail += f" ({info['detail']})"
    return Check(label, port, state == "running", detail)


def check_scoreboard(config: Config) -> Check:
    board = config.scoreboard
    if board.kind != "max7219":
        return Check("scoreboard", board.kind, True, "no hardware to check")
    where = f"SPI {board.spi_port}.{board.spi_device}, {board.cascaded} matrices"
    try:
        device = open_max7219(port=board.spi_port, device=board.spi_device,
                              cascaded=board.cascaded)
    except DriverError as error:
        return Check("scoreboard", where, False, str(error))
    device.cleanup()
    return Check("scoreboard", where, True, "MAX7219 chain opened")


def serial_ports() -> list[str]:
    """Serial ports present on this machine (nodes are USB CDC devices)."""
    found: list[str] = []
    for pattern in SERIAL_PATTERNS:
        found.extend(sorted(glob.glob(pattern)))
    return found


def check_camera(config: Config) -> Check:
    """Open the dice table's camera, take one frame, and load the dice recogniser."""
    from vision.camera import open_camera
    from vision.core import VisionError
    from vision.dice import DiceReader

    camera = config.camera
    try:
        DiceReader(bed=camera.bed, threshold=camera.threshold)
    except VisionError as error:
        return Check("camera", camera.source, False, f"the dice recogniser: {error}")
    if camera.source == "sim":
        return Check("camera", "sim", True, "the simulated table (rendered throws)")
    try:
        with open_camera(camera.source, size=(camera.width, camera.height)) as device:
            _, frame = device.read()
    except VisionError as error:
        return Check("camera", camera.source, False, str(error))
    height, width = frame.shape[:2]
    return Check("camera", camera.source, True, f"a {width}x{height} frame from {device.name}")


def diagnose(config: Config) -> list[Check]:
    """Every device the config names, checked in turn."""
    if get_game(config.game).family == "dice":
        checks = [check_camera(config)]
    elif config.lane.backend in ("node", "sim-firmware"):
        checks = check_nodes(config)
    else:
        checks = check_gpio_lane(config)
    checks.append(check_scoreboard(config))
    return checks
