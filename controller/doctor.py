"""`hoyle doctor`: open every device the config names and say which answers and which is silent.

Run it with the service stopped (the service holds the GPIO lines, serial ports and the
dashboard's port). Each check names the wire, port or address, whether it is working,
and what was seen or, for an unavailable one, why. The checks follow the table's family:
a lane's GPIO inputs or sensor nodes, a dice table's camera (and, as a check of its own,
the dice recogniser's model), a card table's dealer shoe and shuffler, a cue table's
pocket switches or pockets node; and for every table the scoreboard and the dashboard's
address. The doctor takes nothing from a device: a node's reports and a shoe's cards
stay held on the device for the service.
"""

from __future__ import annotations

import errno
import glob
import ipaddress
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import serial
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory

from controller.config import Config
from controller.errors import ControllerError
from controller.service import lane_pins, open_scoreboard
from drivers.backends import choose_backend, make_pin_factory
from drivers.errors import DriverError
from drivers.lane import FoulLine, build_lane
from drivers.pockets import build_gpio_pockets
from drivers.shoe.fake import FakeShoe
from drivers.shoe.link import CardLink, DrawnCard, PackMark
from drivers.shoe.protocol import DeviceKind
from drivers.shoe.shuffler import FakeShuffler
from drivers.wire.link import NodeLink
from drivers.wire.messages import NodeType, node_type_name
from drivers.wire.simnode import SimNode
from engine.billiards.table import BILLIARD_FAMILIES
from engine.core import JSON
from engine.registry import get_game

NODE_READY_TIMEOUT: Final = 2.0
SHOE_READY_TIMEOUT: Final = 5.0
"""Seconds a shoe or shuffler has to answer HELLO: only a silent one waits this long."""
SERIAL_PATTERNS: Final = ("/dev/serial/by-id/*", "/dev/ttyACM*", "/dev/ttyUSB*")
CARD_DEVICES: Final = {DeviceKind.SHOE: "dealer shoe", DeviceKind.SHUFFLER: "shuffler"}

SerialFactory = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class Check:
    """One device's answer: its name, where it is wired, whether it works, and what was seen."""

    device: str
    where: str
    ok: bool
    detail: str

    @property
    def state(self) -> str:
        """The device's state as the dashboard names it: "working" or "unavailable"."""
        return "working" if self.ok else "unavailable"

    def to_json(self) -> JSON:
        return {"device": self.device, "where": self.where, "ok": self.ok,
                "state": self.state, "detail": self.detail}


def _absent(port: str) -> bool:
    """True for a device path (not a pyserial URL) that is not there."""
    return "://" not in port and os.sep in port and not os.path.exists(port)


def _not_there(port: str) -> str:
    return (f"{port} is not there: unplugged, or named otherwise "
            "(ls -l /dev/serial/by-id /dev/hoyle)")


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
        for node_type, label, kind in (("pindeck", "pin deck node", NodeType.PIN_DECK),
                                       ("foulline", "foul line node", NodeType.FOUL_LINE)):
            try:
                node = SimNode(node_type)
            except (DriverError, OSError) as error:
                checks.append(Check(label, "simulated", False, str(error)))
                continue
            try:
                checks.append(check_node(node.port, label, node_type=kind))
            finally:
                node.close()
        return checks
    assert lane.node_port is not None
    checks = [check_node(lane.node_port, "pin deck node", node_type=NodeType.PIN_DECK)]
    if lane.foul_line_port is not None:
        checks.append(check_node(lane.foul_line_port, "foul line node",
                                 node_type=NodeType.FOUL_LINE))
    else:
        checks.append(check_gpio_foul_line(config))
    return checks


def check_node(port: str, label: str, *, node_type: NodeType | None = None,
               serial_factory: SerialFactory = serial.Serial,
               timeout: float = NODE_READY_TIMEOUT) -> Check:
    """Identify the node on a serial port and report its firmware, protocol and state.

    ``node_type`` refuses another kind of node on the port. Reports are never
    acknowledged (``manual_ack``): the node keeps what the service has not yet taken.
    """
    if _absent(port):
        return Check(label, port, False, _not_there(port))
    try:
        link = NodeLink(port, node_type=node_type, manual_ack=True,
                        serial_factory=serial_factory)
    except (DriverError, OSError) as error:
        return Check(label, port, False, str(error))
    try:
        state = link.wait_ready(timeout)
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


class CardLeftOnDevice(ControllerError, RuntimeError):
    """A card drawn while the doctor held the line: refused, so the device keeps it."""


def _leave_on_device(item: DrawnCard | PackMark) -> None:
    """Refuse the item, so it is never acknowledged: the service gets it from the device."""
    raise CardLeftOnDevice(f"hoyle doctor takes no cards: item {item.seq} stays held "
                           "for the service")


def check_card_device(port: str, kind: DeviceKind, *, where: str | None = None,
                      serial_factory: SerialFactory = serial.Serial,
                      timeout: float = SHOE_READY_TIMEOUT) -> Check:
    """Greet a dealer shoe or shuffler with HELLO (docs/shoe.md), ask its STATUS, and close.

    The host claims no card held, so the device frees nothing; a card drawn meanwhile is
    refused, never acknowledged: every card stays on the device for the service.
    """
    label = CARD_DEVICES[kind]
    where = where or port
    if _absent(port):
        return Check(label, where, False, _not_there(port))
    link = CardLink(port, kind=kind, on_item=_leave_on_device, serial_factory=serial_factory)
    try:
        identity = link.wait_ready(timeout)
        status = link.query()
    except (DriverError, OSError) as error:
        return Check(label, where, False, str(error))
    finally:
        link.close()
    state = status.state.name.lower().replace("_", " ")
    packs = f"{status.packs} pack{'' if status.packs == 1 else 's'}"
    detail = (f"{identity.maker} {identity.serial}, protocol {identity.protocol}, "
              f"boot {identity.boot_id:#010x}: {state}, {packs} loaded, {status.dealt} "
              f"dealt, {status.unacked} held for the service")
    if status.detail:
        detail += f" ({status.detail})"
    return Check(label, where, True, detail)


def check_shoe(config: Config, *, serial_factory: SerialFactory = serial.Serial,
               timeout: float = SHOE_READY_TIMEOUT) -> list[Check]:
    """The card table's dealer shoe and, if it has one, its shuffler.

    With ``shoe.port = "sim"`` these are the simulated table's own fake shoe and
    shuffler on pseudo-terminals, greeted exactly as real ones would be.
    """
    shoe = config.shoe
    if shoe.port == "sim":
        with FakeShoe([], packs=shoe.packs, seed=config.sim.seed) as fake, \
                FakeShuffler(seed=config.sim.seed) as fake_shuffler:
            return [check_card_device(fake.port, DeviceKind.SHOE, where="simulated",
                                      timeout=timeout),
                    check_card_device(fake_shuffler.port, DeviceKind.SHUFFLER,
                                      where="simulated", timeout=timeout)]
    checks = [check_card_device(shoe.port, DeviceKind.SHOE, serial_factory=serial_factory,
                                timeout=timeout)]
    if shoe.shuffler_port is not None:
        checks.append(check_card_device(shoe.shuffler_port, DeviceKind.SHUFFLER,
                                        serial_factory=serial_factory, timeout=timeout))
    return checks


def check_pockets(config: Config, *, serial_factory: SerialFactory = serial.Serial,
                  pin_factory: Factory | None = None,
                  timeout: float = NODE_READY_TIMEOUT) -> list[Check]:
    """The cue table's pocket switches on GPIO (one check a pocket), or its pockets node.

    ``pin_factory`` replaces the one the config and ``HOYLE_BACKEND`` choose.
    """
    pockets = config.pockets
    if pockets.source == "node":
        assert pockets.node_port is not None
        return [check_node(pockets.node_port, "pockets node", node_type=NodeType.POCKETS,
                           serial_factory=serial_factory, timeout=timeout)]
    backend = "fake" if pockets.source == "sim" else choose_backend("real")
    try:
        factory = pin_factory or make_pin_factory(backend)
        opened = build_gpio_pockets(pockets.pins, pin_factory=factory,
                                    on_report=lambda _report: None, debounce=pockets.debounce)
    except (DriverError, OSError, ValueError) as error:
        return [Check("pockets GPIO", backend, False, str(error))]
    try:
        status = opened.status()
    finally:
        opened.close()
    mock = " (mock pins: no hardware)" if isinstance(factory, MockFactory) else ""
    checks = []
    for name, line in status["pockets"].items():
        # A switch closed with no ball in the throat is wired wrong or stuck.
        seen = "closed now (a ball in the throat?)" if line["active"] else "open"
        checks.append(Check(f"pocket {name}", line["pin"], line["working"],
                            line["error"] or seen + mock))
    return checks


def check_scoreboard(config: Config) -> Check:
    """Open the board `[scoreboard]` names, the way the service opens it, and let it go."""
    board = config.scoreboard
    if board.kind == "none":
        return Check("scoreboard", "none", True, "no scoreboard configured")
    where = {"max7219": f"SPI {board.spi_port}.{board.spi_device}, {board.cascaded} matrices",
             "sevenseg": f"SPI {board.spi_port}.{board.spi_device}, {board.cascaded} modules",
             "hub75": f"HUB75 {board.rows}x{board.cols}, chain {board.chain}",
             "serial": f"{board.port} at {board.baud} baud",
             "emulated": "emulated matrix"}.get(board.kind, board.kind)
    try:
        opened = open_scoreboard(config)
    except DriverError as error:
        return Check("scoreboard", where, False, str(error))
    if opened is not None:
        opened.close()
    return Check("scoreboard", where, True, f"{board.kind} board opened")


def check_dashboard(config: Config) -> Check:
    """Whether the dashboard can listen where the config says, and who could reach it there.

    The address is resolved and bound as uvicorn binds it (SO_REUSEADDR), then let go.
    A public address fails: the dashboard is for the club's LAN (DESIGN section 9).
    """
    host, port = config.host, config.port
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    where = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
    try:
        found = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
    except socket.gaierror as error:
        return Check("dashboard", where, False,
                     f"{host!r} is no address or host name this machine knows: {error.strerror}")
    address = found[0][4]
    ip = ipaddress.ip_address(str(address[0]).partition("%")[0])
    if ip.is_global:
        return Check("dashboard", where, False,
                     f"{ip} is a public address: the dashboard would be open beyond the club; "
                     "use the Pi's LAN address, or 0.0.0.0 behind the club's router")
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            return Check("dashboard", where, False, _bind_problem(error, config))
    if ip.is_loopback:
        reach = "loopback: only this machine can open the dashboard"
    elif ip.is_unspecified:
        reach = "every address of this machine: phones on the club's LAN can open the dashboard"
    else:
        reach = f"{ip} is a LAN address: phones on that network can open the dashboard"
    return Check("dashboard", where, True, f"port {port} is free; {reach}")


def _bind_problem(error: OSError, config: Config) -> str:
    """Why the dashboard's address cannot be listened on, and what to do."""
    if error.errno == errno.EADDRINUSE:
        return (f"port {config.port} is in use by another program (this table's service? "
                f"stop it first: sudo systemctl stop hoyle@{config.table_id})")
    if error.errno == errno.EADDRNOTAVAIL:
        return f"{config.host} is not an address of this machine (ip -brief address lists them)"
    if error.errno == errno.EACCES:
        return (f"port {config.port} is below 1024, which only root may listen on; "
                "use a port such as 8000")
    return f"cannot listen there: {error}"


def serial_ports() -> list[str]:
    """Serial ports present on this machine (nodes are USB CDC devices)."""
    found: list[str] = []
    for pattern in SERIAL_PATTERNS:
        found.extend(sorted(glob.glob(pattern)))
    return found


def check_camera(config: Config) -> Check:
    """Open the table's camera and take one frame (the recogniser is checked apart)."""
    from vision.camera import open_camera
    from vision.core import VisionError

    camera = config.camera
    if camera.source == "sim":
        return Check("camera", "sim", True, "the simulated table (rendered throws)")
    try:
        with open_camera(camera.source, size=(camera.width, camera.height)) as device:
            _, frame = device.read()
    except VisionError as error:
        return Check("camera", camera.source, False, str(error))
    height, width = frame.shape[:2]
    return Check("camera", camera.source, True, f"a {width}x{height} frame from {device.name}")


def check_dice_recogniser(config: Config) -> Check:
    """Load the dice recogniser's models: without them no throw can be read."""
    from vision.core import VisionError
    from vision.dice import DEFAULT_MODEL, DiceReader

    where = str(DEFAULT_MODEL.parent)
    try:
        DiceReader(bed=config.camera.bed, threshold=config.camera.threshold)
    except VisionError as error:
        return Check("dice recogniser", where, False, str(error))
    return Check("dice recogniser", where, True, "the dice models load")


def check_card_recogniser() -> Check:
    """Load the card recogniser's models: without them the camera confirms no card."""
    from vision.cards import MODELS, CardReader
    from vision.core import VisionError

    where = str(MODELS)
    try:
        CardReader()
    except VisionError as error:
        return Check("card recogniser", where, False, str(error))
    return Check("card recogniser", where, True, "the card models load")


def diagnose(config: Config) -> list[Check]:
    """Every device the config names, checked in turn, then the dashboard's address."""
    family = get_game(config.game).family
    if family == "dice":
        checks = [check_camera(config), check_dice_recogniser(config)]
    elif family == "banking-cards":
        checks = check_shoe(config)
        if config.camera.source != "sim":  # a real shoe's table has a camera only if named
            checks += [check_camera(config), check_card_recogniser()]
    elif family in BILLIARD_FAMILIES:
        checks = check_pockets(config)
    elif config.lane.backend in ("node", "sim-firmware"):
        checks = check_nodes(config)
    else:
        checks = check_gpio_lane(config)
    checks.append(check_scoreboard(config))
    checks.append(check_dashboard(config))
    return checks
