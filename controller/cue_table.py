"""A billiard or pool table: the pocket sensors report the balls, the referee the rest.

`CueRunner` opens the table's pockets (`[pockets]`, docs/billiards-table.md) and records
each ball they report:

- named by the ball-return reader: the event `{"type": "pocket", "ball": "9", "pocket":
  "foot-left"}` through `Table.reading`, so a ball the game cannot take now (one already
  down, one the game does not have) is flagged, not lost;
- not named: a `flag` asking the referee which ball fell in that pocket; he names it
  through the flags' resolve route (`{"ball": 9}`), or voids it.

On the pockets node (`pockets.source = "node"`) a ball is acknowledged to the node only
once it is logged, so a service killed or a Pi without power never loses one: the node
keeps it and sends it again. Each entry a ball makes carries, in `nodes["pockets"]`, how
far the node's reports were consumed: `[boot_id, seq, inputs 1-7]` (the link resumes
there, the inputs seeding their values), released to the node once logged; or, for a
ball logged while later reports are still pending (two balls named together), the last
such checkpoint and the seq before that ball's report (`[boot_id, seq, inputs 1-7,
follows]`), so that after a restart the balls up to it are known to be logged already
and are not logged twice. Node reports that make no ball (a throat opening, a read of no
ball) are released once the pockets are idle, with a note carrying their checkpoint if
the inputs' values changed. If a ball cannot be logged, nothing more is taken or
released until the service restarts, and the pockets say so.

Everything else a stroke needs comes from the referee through the operator's events
(`/api/events`): the stroke with its facts, a count, a call, a foul, a ball off the
table, a private ball drawn. `CueTable` shows what the game awaits (the engine's
`awaiting()`, and each ball still to be named) and the facts the referee's controls
need, and refuses to close a stroke while a ball fallen in it waits to be named.

On the simulated table (`pockets.source = "sim"`) balls fall through mock pins (with
contact bounce) and a simulated reader names most of them; a simulated referee names
the rest, calls, and closes each stroke with the facts the game needs, made up to agree
with what fell.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

import serial

from controller.bus import Change
from controller.config import Config
from controller.errors import Rejected
from controller.privacy import shown_numbers
from controller.runner import RECORD_TIMEOUT, Runner
from controller.table import Table
from drivers.backends import choose_backend, make_pin_factory
from drivers.errors import DriverError
from drivers.pockets import (
    NodeCheckpoint,
    PocketReport,
    Pockets,
    build_gpio_pockets,
    build_node_pockets,
)
from drivers.wire.frame import seq_in_run
from drivers.wire.link import NodeLink
from drivers.wire.messages import NODE_INPUTS, NodeType
from engine.billiards.core import CUE, CUSHION
from engine.billiards.table import CueState
from engine.core import JSON

log = logging.getLogger(__name__)

SOURCE = "sensor:pockets"
REFEREE = "sim:referee"
DEVICE = "pockets"
NEW_GAME_PAUSE = 3.0
#: The events that close a stroke: none may while a ball fallen in it is not named.
CLOSINGS = ("stroke", "count")

#: The pockets node's inputs, in the order a logged checkpoint gives their values.
NODE_INPUT_ORDER = tuple(sorted(NODE_INPUTS[NodeType.POCKETS]))
#: A checkpoint's length in `nodes["pockets"]`: boot id, seq, the inputs' values.
CHECKPOINT_LEN = 2 + len(NODE_INPUT_ORDER)

#: The simulated referee names an unread ball after the sim's pace (a second at most), or
#: after this many seconds if longer: time for an operator to name it first.
REFEREE_WAIT = 0.0
#: The simulated strokes: how many balls fall (weights for 0, 1, 2, 3).
SIM_FALLS = (50, 35, 11, 4)
SIM_SCRATCH = 0.05
SIM_MISS = 0.04
#: Seconds the simulated ball rests in the throat (and the throat is empty after it), and
#: the bounces as it lands.
SIM_IN_THROAT = 0.05
SIM_BOUNCES = 3


def is_pocket_flag(flag: Mapping[str, Any]) -> bool:
    """Whether an open flag is a ball the pockets reported that the referee must name."""
    reading = flag.get("reading")
    return isinstance(reading, Mapping) and reading.get("type") == "pocket"


class CueTable(Table):
    """A cue table's `Table`: its view says what the game awaits and what the referee gives.

    The view's game gains `awaiting` (each fact the next ruling needs and who supplies
    it: the balls still to be named first), `referee` (the game's stroke facts, `needs`,
    and of them the `sometimes` a stroke needs only now and then; its fouls, calls, balls
    and pockets, for the referee's controls) and, in a game played for
    private numbers, `private_numbers`: the numbers held that the viewer may see (the operator
    all; everyone else none until the game is over, but those it made known:
    controller/privacy.py).
    """

    def view(self, operator: bool = False) -> JSON:
        view = super().view(operator)
        engine = self.state.engine
        game = view["game"]
        if game is None or not isinstance(engine, CueState):
            return view
        striker = game.get("striker")
        naming = [{"fact": "ball", "source": "referee", "player": striker,
                   "detail": str(flag["what"])}
                  for flag in self.state.flags.values() if is_pocket_flag(flag)]
        game["awaiting"] = naming + [a.to_json() for a in engine.awaiting()]
        table = engine.TABLE
        game["referee"] = {
            "kinds": list(engine.kinds()), "needs": list(table.needs),
            "sometimes": list(table.sometimes), "counts": table.counts,
            "fouls": list(engine.FOULS), "calls": engine.CALLS, "balls": list(table.balls),
            "pockets": list(table.pockets), "pins": list(table.pins),
            "private": None if engine.PRIVATE is None else list(engine.PRIVATE),
        }
        if engine.PRIVATE is not None:
            game["private_numbers"] = shown_numbers(engine, operator)
        return view

    async def record(self, kind: str, source: str, body: Mapping[str, Any]) -> Change:
        """As `Table.record`; a stroke is refused while a ball fallen in it is not named."""
        event = body.get("event")
        if kind == "event" and isinstance(event, Mapping) and event.get("type") in CLOSINGS:
            waiting = [flag for flag in self.state.flags.values() if is_pocket_flag(flag)]
            if waiting:
                raise Rejected(f"{event['type']}: a ball that fell in this stroke is not "
                               f"named yet ({waiting[0]['what']}): resolve flag "
                               f"{waiting[0]['seq']} first")
        return await super().record(kind, source, body)


class CueRunner(Runner):
    """Opens the cue table's pockets and records their reports; on the sim, plays too."""

    def __init__(self, config: Config, table: Table, *,
                 serial_factory: Callable[..., Any] = serial.Serial) -> None:
        super().__init__(config, table)
        self.serial_factory = serial_factory
        self.pockets: Pockets | None = None
        self.link: NodeLink | None = None
        self.pin_factory: Any = None
        self.reports_taken = 0
        #: The pockets node (pockets' thread only): the last `nodes["pockets"]` logged; the
        #: balls a previous run logged past its checkpoint (boot id, checkpoint seq, seq
        #: before the last ball's report); whether a ball failed to be logged.
        self.logged: list[int] | None = None
        self.skip: tuple[int, int, int] | None = None
        self.held = False
        #: What really fell on the simulated table, for the simulated referee: (pocket, ball).
        self.truth: deque[tuple[str, str]] = deque()

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        try:
            detail = await asyncio.to_thread(self._open)
        except (DriverError, OSError, ValueError) as error:
            log.error("the cue table's pockets could not be opened: %s", error)
            await self.table.device(DEVICE, "unavailable", str(error))
            return
        if detail is not None:
            await self.table.device(DEVICE, "working", detail)
        if self.config.pockets.source == "sim":
            self._spawn(lambda: self._play(self._step, "referee"), "hoyle-sim-cue")

    def _open(self) -> str | None:
        """Open the pockets; what the device state says, or None if the node's link will."""
        pockets = self.config.pockets
        wait = pockets.reader_wait if pockets.ball_reader else 0.0
        if pockets.source == "node":
            assert pockets.node_port is not None
            resume, values = self._resume(self.table.state.nodes.get(DEVICE))
            self.link = NodeLink(pockets.node_port, node_type=NodeType.POCKETS,
                                 on_state=self._link_state(DEVICE),
                                 serial_factory=self.serial_factory, start=False,
                                 manual_ack=True, resume=resume, resume_inputs=values)
            self.pockets = build_node_pockets(self.link, on_report=self._on_report,
                                              reader_wait=wait, on_consumed=self._on_consumed)
            return None
        backend = "fake" if pockets.source == "sim" else choose_backend("real")
        self.pin_factory = make_pin_factory(backend)
        self.pockets = build_gpio_pockets(pockets.pins, pin_factory=self.pin_factory,
                                          on_report=self._on_report, debounce=pockets.debounce,
                                          reader_wait=wait)
        if pockets.source == "sim":
            reader = "a simulated ball-return reader" if pockets.ball_reader else "no reader"
            return f"simulated table: mock pins, {reader}"
        return f"{backend} pins " + ", ".join(f"{name} GPIO{pin}"
                                               for name, pin in pockets.pins.items())

    def _resume(self, saved: list[int] | None
                ) -> tuple[tuple[int, int] | None, dict[int, int] | None]:
        """Where the log says the node's reports were consumed, and the inputs' values then.

        Also notes the balls logged past that checkpoint, which the node sends again.
        """
        if saved is None or len(saved) < CHECKPOINT_LEN:
            return None, None
        self.logged = list(saved)
        boot_id, seq = saved[0], saved[1]
        if len(saved) > CHECKPOINT_LEN and seq_in_run(seq, saved[CHECKPOINT_LEN],
                                                      saved[CHECKPOINT_LEN]):
            self.skip = (boot_id, seq, saved[CHECKPOINT_LEN])
        return (boot_id, seq), dict(zip(NODE_INPUT_ORDER, saved[2:CHECKPOINT_LEN], strict=True))

    def close(self) -> None:
        super().close()
        if self.link is not None:
            self.link.on_state = None
        if self.pockets is not None:
            self.pockets.close()
        if self.link is not None:
            self.link.close()

    # -- what the pockets report -------------------------------------------------------------

    def _on_report(self, report: PocketReport) -> None:
        """The pockets' thread: each report is recorded (then released) before the next."""
        if self.loop is not None and not self.loop.is_closed() and not self.held:
            if self._logged_before(report):
                log.info("a ball in %s that the pockets node sent again was logged before "
                         "the restart", report.pocket)
                if report.checkpoint is not None:
                    self._on_consumed(report.checkpoint)
            else:
                nodes = self._nodes_entry(report)
                if self._logs(self.take(report, nodes)):
                    if nodes is not None:
                        self.logged = nodes
                    if report.checkpoint is not None:
                        self._release(report.checkpoint)
        with self.taken:
            self.reports_taken += 1
            self.taken.notify_all()

    def _on_consumed(self, checkpoint: NodeCheckpoint) -> None:
        """The pockets' thread: node reports that made no ball are consumed; release them.

        Logged first (a note) unless the last checkpoint logged has the same inputs'
        values and no ball past it: a restart resumes from that one just as well.
        """
        if self.loop is None or self.loop.is_closed() or self.held:
            return
        logged = self.logged
        if (logged is None or len(logged) != CHECKPOINT_LEN or logged[0] != checkpoint[0]
                or logged[2:] != list(checkpoint[2:])):
            body: JSON = {"what": "pockets node reports consumed",
                          "nodes": {DEVICE: list(checkpoint)}}
            if not self._logs(self.table.record("note", SOURCE, body)):
                return
            self.logged = list(checkpoint)
        self._release(checkpoint)

    def _logs(self, recording: Coroutine[Any, Any, Change]) -> bool:
        """Record on the loop; False if refused, or if it failed (then hold the node)."""
        try:
            return self._call(recording) is not None
        except Exception as error:
            if self.link is None:
                raise
            self.held = True
            why = (f"a ball could not be logged ({type(error).__name__}: {error}); the "
                   "pockets node keeps its reports until the service restarts")
            log.error("%s", why)
            self._tell(DEVICE, "unavailable", why)
            return False

    def _release(self, checkpoint: NodeCheckpoint) -> None:
        """Acknowledge the node's reports up to the logged checkpoint."""
        if self.link is not None:
            self.link.release(checkpoint[1], boot_id=checkpoint[0])

    def _nodes_entry(self, report: PocketReport) -> list[int] | None:
        """What the entry of a node's ball says of the node (see the module docstring)."""
        if report.checkpoint is not None:
            return list(report.checkpoint)
        logged = self.logged
        if (report.follows is None or logged is None or len(logged) < CHECKPOINT_LEN
                or report.follows[0] != logged[0]):
            return None
        return [*logged[:CHECKPOINT_LEN], report.follows[1]]

    def _logged_before(self, report: PocketReport) -> bool:
        """Whether the node sent this ball again after a restart, and it was logged then."""
        skip, follows = self.skip, report.follows
        if skip is not None and follows is not None:
            boot_id, seq, last = skip
            if follows[0] == boot_id and seq_in_run(seq, follows[1], last):
                return True
        self.skip = None
        return False

    def ball_name(self, number: int) -> str:
        """The game's name of the ball the reader numbered."""
        return CUE if number == self.config.pockets.cue_number else str(number)

    async def take(self, report: PocketReport, nodes: list[int] | None = None) -> Change:
        """Record one ball the pockets reported (see the module docstring).

        ``nodes``, the pockets node's position, goes into the entry as `nodes["pockets"]`.
        """
        seen: JSON = {"seen": {"pocket": report.pocket, "reader": report.ball}}
        if nodes is not None:
            seen["nodes"] = {DEVICE: nodes}
        view = self.table.view()
        if view["game"] is None or view["game"]["over"]:
            return await self.table.record("note", SOURCE, {
                "what": f"a ball fell in {report.pocket} with no game in progress", **seen})
        if report.ball is None:
            return await self.table.record("flag", SOURCE, {
                "reading": {"type": "pocket", "ball": None, "pocket": report.pocket},
                "why": f"which ball fell in {report.pocket}?", **seen})
        return await self.table.reading({"type": "pocket", "ball": self.ball_name(report.ball),
                                         "pocket": report.pocket}, SOURCE, seen)

    # -- the simulated table ---------------------------------------------------------------

    def _step(self) -> None:
        """The simulated players and referee: play while a game runs, start one when none."""
        view = self._view()
        if view is None:
            return
        flags = [f for f in view["flags"] if is_pocket_flag(f)]
        if flags:
            self._name_ball(flags[0])
            return
        if view["status"] == "paused":
            self.stop.wait(0.5)
            return
        if view["game"] is None or view["game"]["over"]:
            self.truth.clear()
            self._new_game(NEW_GAME_PAUSE)
            return
        engine = self.table.state.engine
        assert isinstance(engine, CueState)
        if self._game_acts(engine):
            return
        self._stroke(engine)
        self.stop.wait(self.config.sim.pace)

    def _name_ball(self, flag: JSON) -> None:
        """The simulated referee names the ball that fell in the flag's pocket."""
        if self.stop.wait(max(min(self.config.sim.pace, 1.0), REFEREE_WAIT)):
            return
        reading = flag["reading"]
        ball = reading.get("ball")
        engine = self.table.state.engine
        if ball is None and isinstance(engine, CueState):
            # The first ball that really fell there and is not down yet (named by the reader).
            ball = next((b for p, b in self.truth
                         if p == reading["pocket"] and b in engine.on_table), None)
        if ball is not None:
            named = {"flag": flag["seq"], "event": {**reading, "ball": ball},
                     "reason": "named by the referee"}
            if self._call(self.table.record("resolve", REFEREE, named)) is not None:
                return
        self._call(self.table.record("resolve", REFEREE, {
            "flag": flag["seq"], "event": None,
            "reason": "the referee cannot say which ball fell there"}))

    def _game_acts(self, engine: CueState) -> bool:
        """Acts the game awaits before the stroke (a ball spotted...) and private balls drawn."""
        awaited = {a.fact for a in engine.awaiting()} - {"stroke", "pocket"}
        acts = [e.to_json() for e in engine.legal_events()
                if e.type == "private" or e.type in awaited]
        if not acts:
            return False
        self._call(self.table.record("event", REFEREE, {"event": self.rng.choice(acts)}))
        return True

    def _stroke(self, engine: CueState) -> None:
        """One stroke: a call where the game has them, balls through the pockets, the facts."""
        calls = [e.to_json() for e in engine.legal_events() if e.type == "call"]
        call = self.rng.choice(calls) if calls else None
        if call is not None:
            self._call(self.table.record("event", REFEREE, {"event": call}))
        fallen = self._drop_balls(engine, call)
        if fallen is None:
            return
        while not self.stop.is_set():
            flags = [f for f in self.table.state.flags.values() if is_pocket_flag(f)]
            if not flags:
                break
            self._name_ball(flags[0])
        if self.rng.random() < self.config.sim.foul_rate and engine.FOULS:
            self._call(self.table.record("event", REFEREE, {"event": {
                "type": "foul", "kind": self.rng.choice(engine.FOULS)}}))
        self._close_stroke(engine, fallen)

    def _drop_balls(self, engine: CueState, call: JSON | None) -> list[str] | None:
        """Balls fall through the mock pins, the reader names most; None if the sim stopped."""
        pockets = list(engine.TABLE.pockets)
        if not pockets or self.pockets is None:
            return []
        objects = [b for b in engine.on_table if b not in engine.RETURNED]
        count = min(len(objects), self.rng.choices(range(len(SIM_FALLS)), SIM_FALLS)[0])
        fallen = self.rng.sample(objects, count)
        if call is not None and fallen and self.rng.random() < 0.6:
            fallen[0] = str(call["ball"])
            fallen = list(dict.fromkeys(fallen))
        if CUE in engine.on_table and self.rng.random() < SIM_SCRATCH:
            fallen.append(CUE)
        with self.taken:
            before = self.reports_taken
        for ball in fallen:
            called = call is not None and call.get("pocket") and call["ball"] == ball
            pocket = str(call["pocket"]) if call is not None and called else \
                self.rng.choice(pockets)
            self.truth.append((pocket, ball))
            self._fall(pocket, ball)
        with self.taken:
            self.taken.wait_for(lambda: self.reports_taken >= before + len(fallen)
                                or self.stop.is_set(),
                                self.config.pockets.reader_wait + RECORD_TIMEOUT)
        return None if self.stop.is_set() else fallen

    def _fall(self, pocket: str, ball: str) -> None:
        """One ball lands in the pocket's throat (bouncing), rests, rolls on to the reader."""
        assert self.pin_factory is not None and self.pockets is not None
        pin = self.pin_factory.pin(self.config.pockets.pins[pocket])
        for _ in range(SIM_BOUNCES):
            pin.drive_low()
            pin.drive_high()
        pin.drive_low()
        self.stop.wait(SIM_IN_THROAT)
        pin.drive_high()
        # The throat stays open a moment before another ball can land in it.
        self.stop.wait(SIM_IN_THROAT)
        number = self.config.pockets.cue_number if ball == CUE else \
            int(ball) if ball.isdigit() else None
        if (self.config.pockets.ball_reader and number is not None
                and self.rng.random() >= self.config.sim.unread_rate):
            self.pockets.ball_returned(number)

    def _close_stroke(self, engine: CueState, fallen: list[str]) -> None:
        """The simulated referee closes the stroke with facts that agree with what fell."""
        if self.stop.is_set():
            return
        table = engine.TABLE
        closing: JSON
        if table.counts and not table.pockets:
            closing = {"type": "count", "points": self.rng.choice((0, 0, 1, 1, 1, 2))}
        else:
            closing = {"type": "stroke"}
            objects = [b for b in fallen if b != CUE]
            others = [b for b in engine.on_table if b not in engine.RETURNED]
            missed = not objects and (not others or self.rng.random() < SIM_MISS)
            path: list[str] = [] if missed else [objects[0] if objects
                                                 else self.rng.choice(others)]
            if path and self.rng.random() < 0.5:
                path.append(CUSHION)
            facts: JSON = {"path": path, "driven": 0 if missed else self.rng.randint(0, 2),
                           "pins": [p for p in engine.pins_up if self.rng.random() < 0.3],
                           "bottle": "none"}
            closing.update((fact, facts[fact]) for fact in table.needs if fact in facts)
        if self._call(self.table.record("event", REFEREE, {"event": closing})) is None:
            # The game wants what the sim did not make up: one of its own closings.
            options = [e.to_json() for e in engine.closings()]
            for option in self.rng.sample(options, len(options)):
                if self._call(self.table.record("event", REFEREE, {"event": option})):
                    break
        self.truth.clear()
