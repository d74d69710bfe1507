"""What every table's runner shares: the service's event loop, a stop, threads, the sim's luck.

A runner opens a table's devices and, on the simulated table, plays. Devices and the
simulated players live on threads of their own; what they record runs on the service's
event loop (`Runner._call`), one entry at a time, and is waited for, so a device's next
reading is taken only once the table has ruled on this one.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from controller.bus import Change
from controller.config import Config
from controller.errors import Rejected
from controller.table import Table
from drivers.wire.link import LinkState, StateHandler
from drivers.wire.messages import node_type_name
from engine.core import JSON

log = logging.getLogger(__name__)
T = TypeVar("T")

#: How long a thread waits for the event loop to record what it read.
RECORD_TIMEOUT = 30.0
# A node's link state as the table's device state; the others ("connecting", "closed")
# are passing states of the service itself, not news about the device.
LINK_DEVICE_STATES = {"running": "working", "unplugged": "unavailable",
                      "shutdown": "unavailable", "refused": "unavailable"}


def call_on(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on the service's loop from another thread and wait for its result."""
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result(RECORD_TIMEOUT)


class Runner:
    """The plumbing of a table's runner; each table's runner opens its own devices."""

    def __init__(self, config: Config, table: Table) -> None:
        self.config = config
        self.table = table
        self.stop = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.threads: list[threading.Thread] = []
        self.rng = random.Random(config.sim.seed)
        #: Notified when a device's thread has recorded what the simulated table waits for,
        #: and on close, so that no one waits on it past the stop.
        self.taken = threading.Condition()

    def close(self) -> None:
        """Stop the runner's threads and wait for them; a recording in flight finishes."""
        self.stop.set()
        with self.taken:
            self.taken.notify_all()
        for thread in self.threads:
            thread.join(RECORD_TIMEOUT)

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        """Start one of the runner's threads (daemon: a stuck device never holds the exit)."""
        thread = threading.Thread(target=target, name=name, daemon=True)
        self.threads.append(thread)
        thread.start()

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T | None:
        """Run `coroutine` on the service's loop and wait for it; None if it was refused."""
        assert self.loop is not None
        try:
            return call_on(self.loop, coroutine)
        except Rejected as error:
            log.warning("the table refused: %s", error)
            return None

    def _view(self) -> JSON | None:
        """The table's view, as the event loop has it now."""
        return self._call(_table_view(self.table))

    def _tell(self, device: str, state: str, detail: str) -> None:
        """A device's state, from its own thread: handed to the loop, not waited for."""
        if self.loop is not None and not self.loop.is_closed():
            asyncio.run_coroutine_threadsafe(self.table.device(device, state, detail),
                                             self.loop)

    def _link_state(self, device: str) -> StateHandler:
        """A node link's `on_state`: its state becomes `device`'s (on the link's thread)."""

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
            self._tell(device, device_state, detail)

        return on_state

    # -- the simulated table ---------------------------------------------------------------

    def _play(self, step: Callable[[], None], who: str) -> None:
        """The simulated table's thread: `step` until stopped; a step that fails is retried."""
        while not self.stop.is_set():
            try:
                step()
            except Exception:
                if self.stop.is_set():
                    break
                log.exception("the simulated %s stumbled; trying again", who)
                self.stop.wait(1.0)

    def _new_game(self, pause: float) -> Change | None:
        """After `pause`, start the configured game for the seated players; None if not."""
        if self.stop.wait(pause):
            return None
        return self._call(self.table.record("start", "sim", {
            "game": self.config.game, "players": list(self.config.sim.players),
            "options": {}}))


async def _table_view(table: Table) -> JSON:
    return table.view()
