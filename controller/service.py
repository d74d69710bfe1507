"""The composition root: a table built from its config, with its lane, scoreboard and dashboard."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import serial
import uvicorn
from fastapi import FastAPI

from controller.bus import Change
from controller.card_table import CardRunner
from controller.club.publisher import TablePublisher
from controller.config import Config
from controller.cue_table import CueRunner, CueTable
from controller.dice_table import DiceRunner
from controller.errors import Rejected
from controller.eventlog import SqliteEventLog
from controller.kinds import kind_of_family
from controller.listener import listen
from controller.runner import Runner, call_on
from controller.table import Table
from controller.web import create_app
from drivers.backends import choose_backend, make_pin_factory
from drivers.errors import DriverError
from drivers.lane import FoulLine, Lane, LanePins, NodeReports, build_lane
from drivers.lanetracker import BallRead, Checkpoint, LaneReading, PinsDisplaced, RackSet
from drivers.scoreboard import (
    Hub75Options,
    Hub75Scoreboard,
    Max7219Scoreboard,
    Scoreboard,
    SerialScoreboard,
    SevenSegmentScoreboard,
    open_emulated,
    open_hub75,
    open_max7219,
    open_serial,
)
from drivers.simlane import LaneFactory, LaneHands, NodeHands, SimulatedLane, mock_lane
from drivers.wire.frame import seq_in_run
from drivers.wire.link import NodeLink
from drivers.wire.messages import NODE_INPUTS, NodeType
from drivers.wire.nodes import build_node_lane
from drivers.wire.simnode import SimNode
from engine.billiards.table import BILLIARD_FAMILIES
from engine.bowling.laws import DISPLACED_PINS
from engine.core import JSON
from engine.registry import get_game

log = logging.getLogger(__name__)

T = TypeVar("T")
LANE_SOURCE = "sensor:lane"
NEW_GAME_PAUSE = 3.0
NODE_BACKENDS = ("node", "sim-firmware")
NODE_DEVICES = {NodeType.PIN_DECK: "pin deck node", NodeType.FOUL_LINE: "foul line node"}


class LaneLink:
    """Carries a lane's readings (from its thread) into the table (on the event loop).

    Each reading is handed over and waited for, so the lane's next reading is only
    taken once the table has ruled on this one. On sensor nodes (``nodes``, by device
    name) a node's reports are released only once what they made is logged, with how
    far each node's reports were consumed (the entry's ``nodes``), so that a service
    killed at any moment resumes where the log says:

    - a reading that leaves the lane idle carries every node's checkpoint
      ``[boot_id, seq, inputs' values]``, logged with it and then released;
    - a reading logged while later reports are pending (a ball read as the pinsetter
      starts) carries the last checkpoint logged and the seq of the pin deck's report
      before the reading's first edge (``[..., follows]``): after a restart, the readings
      the node sends again up to that one are known to be logged and are not logged twice;
    - reports that make no reading (a node's answers on reconnecting) are released once
      the lane is idle, after a note carrying their checkpoint if they changed an input.

    If a reading cannot be logged, nothing more is logged or released until the service
    restarts (the lane is unavailable meanwhile): the node keeps it and sends it again.
    """

    def __init__(self, table: Table, loop: asyncio.AbstractEventLoop) -> None:
        self.table = table
        self.loop = loop
        self.nodes: dict[str, tuple[NodeLink, NodeType]] = {}
        #: The nodes' reports as the lane takes them in: its `checkpoint` on sensor nodes.
        self.reports = NodeReports(on_consumed=self.consumed)
        #: The lane's thread only: the last `nodes` logged for each node; the readings a
        #: previous run logged past its checkpoint (boot id, checkpoint seq, the last
        #: reading's follows); whether a reading failed to be logged.
        self.logged: dict[str, list[int]] = {name: list(at)
                                             for name, at in table.state.nodes.items()}
        self.skip: dict[str, tuple[int, int, int]] = {}
        self.held = False

    def resume(self, name: str, node_type: NodeType
               ) -> tuple[tuple[int, int] | None, dict[int, int] | None]:
        """Where the log says node ``name``'s reports were consumed, and its inputs then.

        Also notes the readings logged past that checkpoint, which the node sends again.
        """
        saved = self.logged.get(name)
        inputs = sorted(NODE_INPUTS[node_type])
        size = 2 + len(inputs)
        if saved is None or len(saved) < size:
            return None, None
        boot_id, seq = saved[0], saved[1]
        if len(saved) > size and seq_in_run(seq, saved[size], saved[size]):
            self.skip[name] = (boot_id, seq, saved[size])
        return (boot_id, seq), dict(zip(inputs, saved[2:size], strict=True))

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Wait for `coroutine` on the loop; a refusal raises, so no report is released."""
        return call_on(self.loop, coroutine)

    def on_reading(self, reading: LaneReading) -> None:
        """The lane's thread: log the reading (once), then release the reports it settles."""
        if self.held:
            return
        if self._logged_before(reading):
            log.info("a reading the nodes sent again was logged before the restart: %r",
                     reading)
            if reading.checkpoint is not None:
                self.consumed(reading.checkpoint)
            return
        nodes = self._entry(reading)
        recorded = self._logs(self.handle(reading, nodes))
        if recorded is None:
            return
        if not recorded:
            if reading.checkpoint is not None:
                self.consumed(reading.checkpoint)
            return
        if nodes is not None:
            self.logged.update(nodes)
        self._release(reading.checkpoint)

    def consumed(self, checkpoint: Checkpoint) -> None:
        """The lane's thread: node reports that made no reading are consumed; release them.

        Logged first (a note) unless each node's last checkpoint logged has the same
        boot and inputs' values and no reading past it: a restart resumes there as well.
        """
        if self.held:
            return
        if any(self._moved(name, at) for name, at in checkpoint.items()):
            nodes = {name: list(at) for name, at in checkpoint.items()}
            if not self._logs(self.table.record("note", LANE_SOURCE, {
                    "what": "node reports consumed", "nodes": nodes})):
                return
            self.logged.update(nodes)
        self._release(checkpoint)

    def _moved(self, name: str, at: tuple[int, ...]) -> bool:
        logged = self.logged.get(name)
        return (logged is None or len(logged) != len(at) or logged[0] != at[0]
                or logged[2:] != list(at[2:]))

    def _logs(self, recording: Coroutine[Any, Any, Any]) -> bool | None:
        """What `recording` returned; None if it was refused, or failed (then hold the nodes)."""
        try:
            result: bool | None = bool(self.call(recording))
        except Rejected as error:
            log.warning("the table refused a lane reading: %s", error)
            return None
        except Exception as error:
            if not self.nodes:
                raise
            self.held = True
            why = (f"a reading could not be logged ({type(error).__name__}: {error}); the "
                   "lane's nodes keep their reports until the service restarts")
            log.error("%s", why)
            if not self.loop.is_closed():
                asyncio.run_coroutine_threadsafe(
                    self.table.device("lane", "unavailable", why), self.loop)
            return None
        return result

    def _release(self, checkpoint: Checkpoint | None) -> None:
        """Acknowledge each node's reports up to the logged checkpoint."""
        for name, (boot_id, seq, *_values) in (checkpoint or {}).items():
            self.nodes[name][0].release(seq, boot_id=boot_id)

    def _entry(self, reading: LaneReading) -> dict[str, list[int]] | None:
        """What the entry of a reading says of the nodes (see the class docstring)."""
        if reading.checkpoint is not None:
            return {name: list(at) for name, at in reading.checkpoint.items()}
        nodes: dict[str, list[int]] = {}
        for name, (boot_id, seq) in (reading.follows or {}).items():
            logged = self.logged.get(name)
            size = 2 + len(NODE_INPUTS[self.nodes[name][1]])
            if logged is not None and len(logged) >= size and logged[0] == boot_id:
                nodes[name] = [*logged[:size], seq]
        return nodes or None

    def _logged_before(self, reading: LaneReading) -> bool:
        """Whether the nodes sent this reading again after a restart, and it was logged then."""
        for name, (boot_id, seq) in (reading.follows or {}).items():
            skip = self.skip.get(name)
            if skip is not None and skip[0] == boot_id and seq_in_run(skip[1], seq, skip[2]):
                return True
        self.skip.clear()
        return False

    async def handle(self, reading: LaneReading, nodes: JSON | None = None) -> bool:
        """Log `reading` (with `nodes`, the nodes' position); False if it needs no entry."""
        view = self.table.view()
        game = view["game"]
        extra: JSON = {} if nodes is None else {"nodes": nodes}
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
            if set(reading.standing) == expected:
                return False
            await self.note(f"the pinsetter set {_pins(reading.standing)} but the game "
                            f"expects {_pins(expected)}", reading.standing, extra)
        else:
            return False
        return True

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


class LaneRunner(Runner):
    """Opens the lane's devices from the config and, on the simulated lane, bowls.

    On sensor nodes (backend "node", or "sim-firmware": the real firmware under
    MicroPython, bowled by the simulated bowlers) each node's link state is the state
    of a device of the table: a node unplugged, shut down or refused pauses the table
    with the link's reason, and its return resumes it.
    """

    def __init__(self, config: Config, table: Table) -> None:
        super().__init__(config, table)
        self.lane: Lane | None = None
        self.sim: SimulatedLane | None = None
        self.pin_factory: Any = None
        self.links: list[NodeLink] = []
        self.sim_nodes: list[SimNode] = []
        #: Opens a node's port (a test puts a fake node at the hardware edge here).
        self.serial_factory: Callable[..., Any] = serial.Serial

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        link = LaneLink(self.table, self.loop)
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
                                        on_reading=link.on_reading, reports=link.reports)
            return where
        deck_sim, foul_sim = self.sim_nodes

        def build(on_reading: Callable[[LaneReading], None]) -> tuple[Lane, LaneHands]:
            built = build_node_lane(deck_link, foul_line=foul, settle_time=lane.settle_time,
                                    on_reading=on_reading, reports=link.reports)
            return built, NodeHands(deck_sim, foul_sim, built)

        self._simulate(link, build)
        return f"simulated firmware: {where}"

    def _link(self, port: str, node_type: NodeType, link: LaneLink) -> NodeLink:
        """A link to a node of the lane that resumes where the log says reports were consumed.

        Not started: :func:`build_node_lane` starts it when the lane can take its reports.
        """
        name = NODE_DEVICES[node_type]
        resume, values = link.resume(name, node_type)
        node = NodeLink(port, node_type=node_type, on_state=self._link_state(name),
                        manual_ack=True, resume=resume, resume_inputs=values, start=False,
                        serial_factory=self.serial_factory)
        self.links.append(node)
        link.nodes[name] = (node, node_type)
        link.reports.track(name, node, sorted(NODE_INPUTS[node_type]))
        return node

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
        self._spawn(lambda: self._play(self._bowl, "bowler"), "hoyle-sim-bowler")

    def _bowl(self) -> None:
        """The simulated bowlers: bowl while a game runs, start another when it ends."""
        assert self.sim is not None
        view = self._view()
        if view is None:
            return
        if view["game"] is None or view["game"]["over"]:
            self._new_game(NEW_GAME_PAUSE)
        elif view["status"] == "running":
            self.sim.bowl_one()
            self.stop.wait(self.config.sim.pace)
        else:
            self.stop.wait(0.5)

    def close(self) -> None:
        super().close()
        if self.lane is not None:
            self.lane.close()
        self._close_nodes()


def open_scoreboard(config: Config) -> Scoreboard | None:
    """The board `[scoreboard]` names, opened (None for kind "none"); DeviceUnavailable if
    its bus, panel or port cannot be had."""
    board = config.scoreboard
    if board.kind == "max7219":
        return Max7219Scoreboard(open_max7219(port=board.spi_port, device=board.spi_device,
                                              cascaded=board.cascaded,
                                              block_orientation=board.block_orientation))
    if board.kind == "sevenseg":
        # Digits are not blocks of a matrix: no block rotation on a seven-segment chain.
        return SevenSegmentScoreboard(open_max7219(port=board.spi_port,
                                                   device=board.spi_device,
                                                   cascaded=board.cascaded,
                                                   block_orientation=0))
    if board.kind == "hub75":
        options = Hub75Options(rows=board.rows, cols=board.cols, chain=board.chain,
                               brightness=board.brightness,
                               hardware_mapping=board.hardware_mapping,
                               gpio_slowdown=board.gpio_slowdown)
        return Hub75Scoreboard(open_hub75(options, emulator_dir=config.data_dir,
                                          emulate=board.emulate))
    if board.kind == "serial":
        return SerialScoreboard(open_serial(board.port, baud=board.baud), width=board.width)
    if board.kind == "emulated":
        return Max7219Scoreboard(open_emulated(width=8 * board.cascaded, height=8))
    return None


class ScoreboardFeed:
    """Draws each change of the table on its scoreboard, in order, off the event loop.

    A board that cannot be opened or drawn on is the table's device "scoreboard",
    unavailable with why; every later change tries it again (opening it afresh), and
    once it draws the device is working again. A board that never failed is not listed.
    """

    DEVICE = "scoreboard"

    def __init__(self, table: Table, opener: Callable[[], Scoreboard | None]) -> None:
        self.table = table
        self.opener = opener
        self.board: Scoreboard | None = None
        self.drawn = -1
        self.closed = False
        self.lock = asyncio.Lock()

    async def start(self) -> None:
        await self.draw(self.table.view())

    async def on_change(self, change: Change) -> None:
        await self.draw(change.view)

    async def draw(self, view: JSON) -> None:
        """Draw `view` unless a later one is already up; record the board's health."""
        async with self.lock:
            if self.closed or view["seq"] < self.drawn:
                return
            why = await asyncio.to_thread(self._draw, view)
            self.drawn = view["seq"]
        known = self.table.state.devices.get(self.DEVICE)
        if why is not None:
            if known is None or known["detail"] != why:
                log.error("%s", why)
            await self.table.device(self.DEVICE, "unavailable", why)
        elif known is not None:
            log.info("scoreboard: drawing again")
            await self.table.device(self.DEVICE, "working", "drawing the table's view")

    def _draw(self, view: JSON) -> str | None:
        """Open the board if need be and draw; why it failed, or None."""
        try:
            if self.board is None:
                self.board = self.opener()
            if self.board is not None:
                self.board.show(view)
        except DriverError as error:
            self._drop()
            return str(error)
        return None

    def _drop(self) -> None:
        board, self.board = self.board, None
        if board is not None:
            try:
                board.close()
            except DriverError as error:
                log.warning("scoreboard: closing the failed board: %s", error)

    async def close(self) -> None:
        """Blank and release the board once any drawing is done; nothing is drawn after."""
        async with self.lock:
            self.closed = True
            await asyncio.to_thread(self._drop)


@dataclass(frozen=True, slots=True)
class Service:
    """A table built from its config: the dashboard app, the table and what feeds it."""

    app: FastAPI
    table: Table
    runner: LaneRunner | DiceRunner | CardRunner | CueRunner
    scoreboard: ScoreboardFeed | None = None


def build(config: Config) -> Service:
    """The table, its devices and its dashboard, from the config; the log is recovered."""
    family = get_game(config.game).family
    config.data_dir.mkdir(parents=True, exist_ok=True)
    kind = CueTable if family in BILLIARD_FAMILIES else Table
    table = kind(SqliteEventLog(config.log_path), config.table_id, name=config.name,
                 snapshot_every=config.snapshot_every, kind=kind_of_family(family))
    recovery = table.recover()
    log.info("table %s: log %s at entry %d (snapshot at %d, %d entries replayed)",
             config.table_id, config.log_path, recovery.seq, recovery.snapshot_seq,
             recovery.replayed)
    feed = None
    if config.scoreboard.kind != "none":
        feed = ScoreboardFeed(table, lambda: open_scoreboard(config))
        table.bus.subscribe("scoreboard", feed.on_change)
    runner: LaneRunner | DiceRunner | CardRunner | CueRunner
    if family == "dice":
        runner = DiceRunner(config, table)
    elif family == "banking-cards":
        runner = CardRunner(config, table)
    elif family in BILLIARD_FAMILIES:
        runner = CueRunner(config, table)
    else:
        runner = LaneRunner(config, table)
    club = TablePublisher(table, config.mqtt) if config.mqtt is not None else None

    async def stop() -> None:
        # Off the event loop: the lane's and the bowler's threads finish what they are
        # doing through it (a reading in flight is still recorded) while they are joined.
        await asyncio.to_thread(runner.close)
        if club is not None:
            await club.close()
        if feed is not None:
            await feed.close()
        table.log.close()

    async def start() -> None:
        if club is not None:
            club.start()
        if feed is not None:
            await feed.start()
        await runner.start()

    app = create_app(table, config.operator_pin, lifespan_hooks=(start, stop))
    return Service(app, table, runner, feed)


def serve(config: Config, *, host: str | None = None, port: int | None = None) -> None:
    """Serve the table: the dashboard's port is taken first, then the log (its one writer),
    so a second service on a busy port or on a log already served opens nothing."""
    host = host or config.host
    port = port or config.port
    listener = listen(host, port)
    try:
        app = build(config).app
    except BaseException:
        listener.close()
        raise
    log.info("table %s (%s): dashboard at http://%s:%d/", config.table_id, config.source,
             host, port)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])


def _pins(pins: set[int] | frozenset[int]) -> str:
    return ", ".join(map(str, sorted(pins))) or "none"


__all__ = ["JSON", "LaneLink", "LaneRunner", "ScoreboardFeed", "build", "open_scoreboard",
           "serve"]
