"""The composition root: a table built from its config, with its lane, scoreboard and dashboard."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import uvicorn
from fastapi import FastAPI

from controller.bus import Change
from controller.card_table import CardRunner
from controller.config import Config
from controller.cue_table import CueRunner, CueTable
from controller.dice_table import DiceRunner
from controller.errors import Rejected
from controller.eventlog import SqliteEventLog
from controller.table import Table
from controller.web import create_app
from drivers.backends import choose_backend, make_pin_factory
from drivers.errors import DriverError
from drivers.lane import FoulLine, Lane, LanePins, build_lane
from drivers.lanetracker import BallRead, Checkpoint, LaneReading, PinsDisplaced, RackSet
from drivers.scoreboard import Max7219Scoreboard, open_emulated, open_max7219
from drivers.simlane import LaneFactory, LaneHands, NodeHands, SimulatedLane, mock_lane
from drivers.wire.link import LinkState, NodeLink, StateHandler
from drivers.wire.messages import NODE_INPUTS, NodeType, node_type_name
from drivers.wire.nodes import build_node_lane
from drivers.wire.simnode import SimNode
from engine.billiards.table import BILLIARD_FAMILIES
from engine.bowling.laws import DISPLACED_PINS
from engine.core import JSON
from engine.registry import get_game

log = logging.getLogger(__name__)

T = TypeVar("T")
LANE_SOURCE = "sensor:lane"
READING_TIMEOUT = 30.0
NEW_GAME_PAUSE = 3.0
NODE_BACKENDS = ("node", "sim-firmware")
NODE_DEVICES = {NodeType.PIN_DECK: "pin deck node", NodeType.FOUL_LINE: "foul line node"}
# A node's link state as the table's device state; the others ("connecting", "closed")
# are passing states of the service itself, not news about the device.
LINK_DEVICE_STATES = {"running": "working", "unplugged": "unavailable",
                      "shutdown": "unavailable", "refused": "unavailable"}


class LaneLink:
    """Carries a lane's readings (from its thread) into the table (on the event loop).

    Each reading is handed over and waited for, so the lane's next reading is only
    taken once the table has ruled on this one. On sensor nodes (``nodes``, by device
    name) a reading's checkpoint is logged with it, and only once it is durable are
    the node's reports released: a service killed at any moment has either logged a
    reading and its reports' place, or neither, and resumes there.
    """

    def __init__(self, table: Table, loop: asyncio.AbstractEventLoop) -> None:
        self.table = table
        self.loop = loop
        self.nodes: dict[str, tuple[NodeLink, NodeType]] = {}
        self.durable: dict[str, tuple[int, ...]] = {
            name: tuple(at) for name, at in table.state.nodes.items()}

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(READING_TIMEOUT)

    def on_reading(self, reading: LaneReading) -> None:
        self.call(self.handle(reading))
        for name, (boot_id, seq, *_values) in (reading.checkpoint or {}).items():
            self.nodes[name][0].release(seq, boot_id=boot_id)

    def checkpoint(self) -> Checkpoint | None:
        """Each node's last delivered report and its inputs' values (on the lane's lock)."""
        marks: dict[str, tuple[int, ...]] = {}
        for name, (node, node_type) in self.nodes.items():
            delivered = node.delivered_inputs()
            if delivered is None:
                continue
            (boot_id, seq), values = delivered
            inputs = sorted(NODE_INPUTS[node_type])
            if all(number in values for number in inputs):
                marks[name] = (boot_id, seq, *(values[number] for number in inputs))
        return marks or None

    async def handle(self, reading: LaneReading) -> None:
        view = self.table.view()
        game = view["game"]
        extra: JSON = {}
        if reading.checkpoint is not None:
            extra["nodes"] = {name: list(at) for name, at in reading.checkpoint.items()}
        recorded = True
        if isinstance(reading, BallRead):
            if game is None or game["up"] is None:
                await self.note("a ball with no game in progress", reading.standing, extra)
            else:
                await self.table.reading({"type": "ball", "player": game["up"]["player"],
                                          "standing": sorted(reading.standing),
                                          "foul": reading.foul}, LANE_SOURCE, extra)
        elif isinstance(reading, PinsDisplaced):
            await self.note("pins displaced with no ball: they are respotted, and no score "
                            "changes", reading.standing, extra, law=DISPLACED_PINS.to_json())
        elif isinstance(reading, RackSet) and game is not None and game["up"] is not None:
            expected = set(game["up"]["standing"])
            recorded = set(reading.standing) != expected
            if recorded:
                await self.note(f"the pinsetter set {_pins(reading.standing)} but the game "
                                f"expects {_pins(expected)}", reading.standing, extra)
        else:
            recorded = False
        if reading.checkpoint is None:
            return
        marks = dict(reading.checkpoint)
        if not recorded and marks != self.durable:
            await self.table.record("note", LANE_SOURCE, {"what": "node reports consumed",
                                                          **extra})
        self.durable = marks

    async def note(self, what: str, standing: frozenset[int] | set[int], extra: JSON,
                   law: JSON | None = None) -> None:
        body: JSON = {"what": what, "standing": sorted(standing), **extra}
        if law is not None:
            body["law"] = law
        await self.table.record("note", LANE_SOURCE, body)

    async def rack(self) -> frozenset[int]:
        """The pins the rules expect standing for the next ball."""
        game = self.table.view()["game"]
        if game is None or game["up"] is None:
            return frozenset(range(1, 11))
        return frozenset(game["up"]["standing"])

    async def dead_ball(self) -> None:
        entries = self.table.state.game.events if self.table.state.game else []
        balls = [e for _, e in entries if e.get("type") == "ball"]
        if balls:
            try:
                await self.table.record("event", "sim:umpire", {"event": {
                    "type": "dead_ball", "player": balls[-1]["player"]}})
            except Rejected as error:
                log.info("the simulated umpire's dead ball was refused: %s", error)


def lane_pins(config: Config) -> LanePins:
    """The lane's GPIO wiring as the config gives it."""
    lane = config.lane
    return LanePins(spots=tuple(lane.pins[s] for s in range(1, 11)),
                    foul_line=lane.foul_line, ball_detector=lane.ball_detector,
                    pinsetter=lane.pinsetter)


class LaneRunner:
    """Opens the lane's devices from the config and, on the simulated lane, bowls.

    On sensor nodes (backend "node", or "sim-firmware": the real firmware under
    MicroPython, bowled by the simulated bowlers) each node's link state is the state
    of a device of the table: a node unplugged, shut down or refused pauses the table
    with the link's reason, and its return resumes it.
    """

    def __init__(self, config: Config, table: Table) -> None:
        self.config = config
        self.table = table
        self.stop = threading.Event()
        self.lane: Lane | None = None
        self.sim: SimulatedLane | None = None
        self.thread: threading.Thread | None = None
        self.pin_factory: Any = None
        self.links: list[NodeLink] = []
        self.sim_nodes: list[SimNode] = []

    async def start(self) -> None:
        link = LaneLink(self.table, asyncio.get_running_loop())
        configured = self.config.lane.backend
        await self._retire_node_devices(configured)
        if configured in NODE_BACKENDS:
            try:
                detail = await asyncio.to_thread(self._open_nodes, link)
            except (DriverError, OSError, ValueError) as error:
                log.error("the lane's nodes could not be opened: %s", error)
                self._close_nodes()
                await self.table.device("lane", "unavailable", str(error))
                return
            await self.table.device("lane", "working", detail)
            return
        backend = choose_backend("fake" if configured == "sim" else configured)
        try:
            factory = self.pin_factory = make_pin_factory(backend)
            if configured == "sim":
                self._simulate(link, mock_lane(lane_pins(self.config), factory,
                                               settle_time=self.config.lane.settle_time))
            else:
                self.lane = build_lane(lane_pins(self.config), pin_factory=factory,
                                       settle_time=self.config.lane.settle_time,
                                       on_reading=link.on_reading)
        except (DriverError, OSError, ValueError) as error:
            log.error("the lane's devices could not be opened: %s", error)
            await self.table.device("lane", "unavailable", str(error))
            return
        await self.table.device("lane", "working", f"{backend} pins")

    def _open_nodes(self, link: LaneLink) -> str:
        """Open the lane on its nodes (spawning simulated ones for "sim-firmware")."""
        lane = self.config.lane
        simulated = lane.backend == "sim-firmware"
        foul_port: str | None
        if simulated:
            self.sim_nodes = [SimNode("pindeck"), SimNode("foulline")]
            deck_port, foul_port = self.sim_nodes[0].port, self.sim_nodes[1].port
        elif lane.node_port is None:
            raise ValueError('lane backend "node" needs lane.node_port')
        else:
            deck_port, foul_port = lane.node_port, lane.foul_line_port
        deck_link = self._link(deck_port, NodeType.PIN_DECK, link)
        foul: FoulLine | NodeLink
        if foul_port is not None:
            foul = self._link(foul_port, NodeType.FOUL_LINE, link)
            where = f"pin deck node on {deck_port}, foul line node on {foul_port}"
        else:
            self.pin_factory = make_pin_factory(choose_backend("real"))
            foul = FoulLine(lane.foul_line, pin_factory=self.pin_factory)
            where = f"pin deck node on {deck_port}, foul line on {foul.pin}"
        if not simulated:
            self.lane = build_node_lane(deck_link, foul_line=foul, settle_time=lane.settle_time,
                                        on_reading=link.on_reading, checkpoint=link.checkpoint)
            return where
        deck_sim, foul_sim = self.sim_nodes

        def build(on_reading: Callable[[LaneReading], None]) -> tuple[Lane, LaneHands]:
            built = build_node_lane(deck_link, foul_line=foul, settle_time=lane.settle_time,
                                    on_reading=on_reading, checkpoint=link.checkpoint)
            return built, NodeHands(deck_sim, foul_sim, built)

        self._simulate(link, build)
        return f"simulated firmware: {where}"

    def _link(self, port: str, node_type: NodeType, link: LaneLink) -> NodeLink:
        """A link to a node of the lane that resumes where the log says reports were consumed.

        Not started: :func:`build_node_lane` starts it when the lane can take its reports.
        """
        name = NODE_DEVICES[node_type]
        saved = self.table.state.nodes.get(name)
        resume = (saved[0], saved[1]) if saved is not None and len(saved) >= 2 else None
        values = dict(zip(sorted(NODE_INPUTS[node_type]), saved[2:], strict=False)
                      ) if saved is not None else None
        node = NodeLink(port, node_type=node_type, on_state=self._node_state(name, link.loop),
                        manual_ack=True, resume=resume, resume_inputs=values, start=False)
        self.links.append(node)
        link.nodes[name] = (node, node_type)
        return node

    def _node_state(self, name: str, loop: asyncio.AbstractEventLoop) -> StateHandler:
        """A link's on_state: its state becomes device ``name``'s on the event loop."""

        def on_state(state: LinkState) -> None:
            device_state = LINK_DEVICE_STATES.get(state["state"])
            if device_state is None:
                return
            if device_state == "working":
                detail = (f"{state['port']}: {node_type_name(state['node_type'] or 0)} node, "
                          f"firmware {state['firmware']}")
            else:
                detail = f"{state['state']} on {state['port']}: {state['detail']}"
            # Not waited for: the link's reader thread must not wait on the event loop.
            asyncio.run_coroutine_threadsafe(self.table.device(name, device_state, detail), loop)

        return on_state

    async def _retire_node_devices(self, backend: str) -> None:
        """Nodes a previous run had, and this one has not, no longer pause the table."""
        used = set(NODE_DEVICES.values()) if backend in NODE_BACKENDS else set()
        if backend == "node" and self.config.lane.foul_line_port is None:
            used.discard(NODE_DEVICES[NodeType.FOUL_LINE])
        for name in set(NODE_DEVICES.values()) - used:
            known = self.table.state.devices.get(name)
            if known is not None and known["state"] != "working":
                await self.table.device(name, "working", f"not used with lane backend {backend!r}")

    def _close_nodes(self) -> None:
        for node in self.links:
            node.on_state = None
            node.close()
        for sim_node in self.sim_nodes:
            sim_node.close()
        self.links, self.sim_nodes = [], []

    def _simulate(self, link: LaneLink, lane: LaneFactory) -> None:
        """Seat the simulated bowlers on the lane ``lane`` builds and start them bowling."""
        self.sim = SimulatedLane(
            lane=lane, seed=self.config.sim.seed, next_rack=lambda: link.call(link.rack()),
            on_reading=link.on_reading, umpire=lambda _call: link.call(link.dead_ball()),
            foul_rate=self.config.sim.foul_rate, dead_ball_rate=self.config.sim.dead_ball_rate)
        self.lane = self.sim.lane
        self.thread = threading.Thread(target=self._bowl, args=(link,),
                                       name="hoyle-sim-bowler", daemon=True)
        self.thread.start()

    def _bowl(self, link: LaneLink) -> None:
        """The simulated bowlers: bowl while a game runs, start another when it ends."""
        assert self.sim is not None
        sim = self.config.sim
        while not self.stop.is_set():
            try:
                status = link.call(self._status())
                if status == "start":
                    if self.stop.wait(NEW_GAME_PAUSE):
                        break
                    link.call(self.table.record("start", "sim", {
                        "game": self.config.game, "players": list(sim.players), "options": {}}))
                elif status == "running":
                    self.sim.bowl_one()
                    self.stop.wait(sim.pace)
                else:
                    self.stop.wait(0.5)
            except Exception:
                if self.stop.is_set():
                    break
                log.exception("the simulated bowler stumbled; trying again")
                self.stop.wait(1.0)

    async def _status(self) -> str:
        view = self.table.view()
        if view["game"] is None or view["game"]["over"]:
            return "start"
        return str(view["status"])

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(READING_TIMEOUT)
        if self.lane is not None:
            self.lane.close()
        self._close_nodes()


def scoreboard_for(config: Config) -> Max7219Scoreboard | None:
    board = config.scoreboard
    try:
        if board.kind == "max7219":
            return Max7219Scoreboard(open_max7219(port=board.spi_port, device=board.spi_device,
                                                  cascaded=board.cascaded))
        if board.kind == "emulated":
            return Max7219Scoreboard(open_emulated(width=8 * board.cascaded, height=8))
    except DriverError as error:
        log.error("scoreboard unavailable: %s", error)
    return None


@dataclass(frozen=True, slots=True)
class Service:
    """A table built from its config: the dashboard app, the table and what feeds it."""

    app: FastAPI
    table: Table
    runner: LaneRunner | DiceRunner | CardRunner | CueRunner


def build(config: Config) -> Service:
    """The table, its devices and its dashboard, from the config; the log is recovered."""
    family = get_game(config.game).family
    config.data_dir.mkdir(parents=True, exist_ok=True)
    kind = CueTable if family in BILLIARD_FAMILIES else Table
    table = kind(SqliteEventLog(config.log_path), config.table_id, name=config.name,
                 snapshot_every=config.snapshot_every)
    recovery = table.recover()
    log.info("table %s: log %s at entry %d (snapshot at %d, %d entries replayed)",
             config.table_id, config.log_path, recovery.seq, recovery.snapshot_seq,
             recovery.replayed)
    board = scoreboard_for(config)
    if board is not None:
        def show(change: Change) -> None:
            board.show(change.view)
        table.bus.subscribe("scoreboard", show)
        board.show(table.view())
    runner: LaneRunner | DiceRunner | CardRunner | CueRunner
    if family == "dice":
        runner = DiceRunner(config, table)
    elif family == "banking-cards":
        runner = CardRunner(config, table)
    elif family in BILLIARD_FAMILIES:
        runner = CueRunner(config, table)
    else:
        runner = LaneRunner(config, table)

    async def stop() -> None:
        # Off the event loop: the lane's and the bowler's threads finish what they are
        # doing through it (a reading in flight is still recorded) while they are joined.
        await asyncio.to_thread(runner.close)
        if board is not None:
            board.close()
        table.log.close()

    app = create_app(table, config.operator_pin, lifespan_hooks=(runner.start, stop))
    return Service(app, table, runner)


def serve(config: Config, *, host: str | None = None, port: int | None = None) -> None:
    app = build(config).app
    host = host or config.host
    port = port or config.port
    log.info("table %s (%s): dashboard at http://%s:%d/", config.table_id, config.source,
             host, port)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _pins(pins: set[int] | frozenset[int]) -> str:
    return ", ".join(map(str, sorted(pins))) or "none"


__all__ = ["JSON", "LaneLink", "LaneRunner", "build", "serve"]
