"""The composition root: a table built from its config, with its lane, scoreboard and dashboard."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import uvicorn
from fastapi import FastAPI

from controller.bus import Change
from controller.config import Config
from controller.errors import Rejected
from controller.eventlog import SqliteEventLog
from controller.table import Table
from controller.web import create_app
from drivers.backends import choose_backend, make_pin_factory
from drivers.errors import DriverError
from drivers.lane import Lane, LanePins, build_lane
from drivers.lanetracker import BallRead, LaneReading, PinsDisplaced, RackSet
from drivers.scoreboard import Max7219Scoreboard, open_emulated, open_max7219
from drivers.simlane import SimulatedLane
from engine.bowling.laws import DISPLACED_PINS
from engine.core import JSON
from engine.registry import get_game

log = logging.getLogger(__name__)

T = TypeVar("T")
LANE_SOURCE = "sensor:lane"
READING_TIMEOUT = 30.0
NEW_GAME_PAUSE = 3.0


class LaneLink:
    """Carries a lane's readings (from its thread) into the table (on the event loop).

    Each reading is handed over and waited for, so the lane's next reading is only
    taken once the table has ruled on this one.
    """

    def __init__(self, table: Table, loop: asyncio.AbstractEventLoop) -> None:
        self.table = table
        self.loop = loop

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(READING_TIMEOUT)

    def on_reading(self, reading: LaneReading) -> None:
        self.call(self.handle(reading))

    async def handle(self, reading: LaneReading) -> None:
        view = self.table.view()
        game = view["game"]
        if isinstance(reading, BallRead):
            if game is None or game["up"] is None:
                await self.note("a ball with no game in progress", reading.standing)
                return
            await self.table.reading({"type": "ball", "player": game["up"]["player"],
                                      "standing": sorted(reading.standing),
                                      "foul": reading.foul}, LANE_SOURCE)
        elif isinstance(reading, PinsDisplaced):
            await self.note("pins displaced with no ball: they are respotted, and no score "
                            "changes", reading.standing, law=DISPLACED_PINS.to_json())
        elif isinstance(reading, RackSet) and game is not None and game["up"] is not None:
            expected = set(game["up"]["standing"])
            if set(reading.standing) != expected:
                await self.note(f"the pinsetter set {_pins(reading.standing)} but the game "
                                f"expects {_pins(expected)}", reading.standing)

    async def note(self, what: str, standing: frozenset[int] | set[int],
                   law: JSON | None = None) -> None:
        body: JSON = {"what": what, "standing": sorted(standing)}
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


class LaneRunner:
    """Opens the lane's devices from the config and, on the simulated lane, bowls."""

    def __init__(self, config: Config, table: Table) -> None:
        self.config = config
        self.table = table
        self.stop = threading.Event()
        self.lane: Lane | None = None
        self.sim: SimulatedLane | None = None
        self.thread: threading.Thread | None = None
        self.pin_factory: Any = None

    def lane_pins(self) -> LanePins:
        lane = self.config.lane
        return LanePins(spots=tuple(lane.pins[s] for s in range(1, 11)),
                        foul_line=lane.foul_line, ball_detector=lane.ball_detector,
                        pinsetter=lane.pinsetter)

    async def start(self) -> None:
        link = LaneLink(self.table, asyncio.get_running_loop())
        configured = self.config.lane.backend
        backend = choose_backend("fake" if configured == "sim" else configured)
        try:
            factory = self.pin_factory = make_pin_factory(backend)
            if configured == "sim":
                self.sim = SimulatedLane(
                    self.lane_pins(), pin_factory=factory, seed=self.config.sim.seed,
                    next_rack=lambda: link.call(link.rack()), on_reading=link.on_reading,
                    umpire=lambda _call: link.call(link.dead_ball()),
                    settle_time=self.config.lane.settle_time,
                    foul_rate=self.config.sim.foul_rate,
                    dead_ball_rate=self.config.sim.dead_ball_rate)
                self.lane = self.sim.lane
                self.thread = threading.Thread(target=self._bowl, args=(link,),
                                               name="hoyle-sim-bowler", daemon=True)
                self.thread.start()
            else:
                self.lane = build_lane(self.lane_pins(), pin_factory=factory,
                                       settle_time=self.config.lane.settle_time,
                                       on_reading=link.on_reading)
        except (DriverError, OSError, ValueError) as error:
            log.error("the lane's devices could not be opened: %s", error)
            await self.device("lane", "unavailable", str(error))
            return
        await self.device("lane", "working", f"{backend} pins")

    async def device(self, name: str, state: str, detail: str) -> None:
        known = self.table.state.devices.get(name)
        if known is None or known["state"] != state or known["detail"] != detail:
            await self.table.record("device", "service", {"device": name, "state": state,
                                                          "detail": detail})

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
    """A table built from its config: the dashboard app, the table and its lane."""

    app: FastAPI
    table: Table
    lane: LaneRunner


def build(config: Config) -> Service:
    """The table, its devices and its dashboard, from the config; the log is recovered."""
    get_game(config.game)
    config.data_dir.mkdir(parents=True, exist_ok=True)
    table = Table(SqliteEventLog(config.log_path), config.table_id, name=config.name,
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
    runner = LaneRunner(config, table)

    def stop() -> None:
        runner.close()
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
