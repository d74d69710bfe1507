"""A faulty USB cable between a node's serial port and the host: corrupts, drops, stalls, unplugs.

:class:`FaultyCable` opens the node's port (a :class:`~drivers.wire.simnode.SimNode`'s
pty, or any serial device) and offers the host a pseudo-terminal of its own at
:attr:`FaultyCable.port`, a stable symlink the host opens with pyserial. A relay thread
copies the bytes both ways and, on the way, does what a bad cable does, with a seeded
random generator so a run can be repeated:

- ``corrupt_bytes``: the chance that a byte has one bit flipped;
- ``drop_frames`` and ``duplicate_frames``: the chance that a frame is lost, or sent
  twice. The relay cuts the stream into frames after every 0x7E (the sync byte); a
  0x7E inside a frame cuts it in two, which only makes the fault rougher;
- :meth:`FaultyCable.stall` holds all traffic for a while (the bytes wait in the
  ptys' buffers, as in a hub that stopped polling);
- :meth:`FaultyCable.unplug` closes the host's pty and removes the symlink, so the
  host's reads and writes fail as on a USB unplug and its port is gone;
  :meth:`FaultyCable.replug` brings a new pty back under the same path.

Faults are set for both directions (``faults``, :meth:`FaultyCable.set_faults`) or per
direction (``to_host`` / ``to_node``), at construction or at any time.
:meth:`FaultyCable.counts` says what the cable did.

Example:
    >>> from drivers.wire.fake import Reports
    >>> from drivers.wire.link import NodeLink
    >>> from drivers.wire.simnode import SimNode
    >>> with SimNode("foulline") as node, FaultyCable(node.port, seed=1) as cable:
    ...     with NodeLink(cable.port, on_report=Reports()) as link:
    ...         link.wait_ready(10.0)
    ...     cable.counts()["to_node"].frames > 0
    'running'
    True
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import random
import select
import shutil
import tempfile
import termios
import threading
import time
import tty
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Final, Literal, TypeAlias

from drivers.closing import Closeable
from drivers.errors import DeviceUnavailable, LinkTimeout
from drivers.wire.frame import SYNC

__all__ = ["CableCounts", "Direction", "Faults", "FaultyCable"]

Direction: TypeAlias = Literal["to_host", "to_node"]

_SYNC_BYTE: Final = bytes((SYNC,))
_READ_MAX: Final = 4096
_IDLE: Final = 0.05
"""Longest the relay sleeps: how soon it notices a stall's end or close()."""
_FLUSH_AFTER: Final = 0.005
"""Bytes with no sync byte after them are sent on as a frame after this long."""
_REQUEST_WAIT: Final = 5.0

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Faults:
    """What the cable does to traffic in one direction: each a probability 0..1."""

    corrupt_bytes: float = 0.0
    """Chance that a byte has one of its bits flipped."""
    drop_frames: float = 0.0
    """Chance that a frame (bytes up to a 0x7E) is lost."""
    duplicate_frames: float = 0.0
    """Chance that a frame is sent twice."""

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, float | int) or not (
                0.0 <= value <= 1.0
            ):
                raise ValueError(f"{field.name} must be a probability 0..1, not {value!r}")


@dataclass(frozen=True, slots=True)
class CableCounts:
    """What the cable did to one direction's traffic so far."""

    bytes: int
    """Bytes read from the sender."""
    frames: int
    """Frames (pieces ending in 0x7E, or flushed) passed on or dropped."""
    corrupted_bytes: int
    dropped_frames: int
    duplicated_frames: int
    lost_bytes: int
    """Bytes lost because the cable was unplugged or the receiver's buffer was full."""


class _Flow:
    """One direction's frame splitter, fault knobs and counters (the relay thread's own)."""

    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self.pending = bytearray()
        self.since = 0.0
        self.counts = dict.fromkeys((f.name for f in fields(CableCounts)), 0)

    def take(self, data: bytes, now: float) -> list[bytes]:
        """Add bytes read; return the whole frames among what is buffered."""
        self.counts["bytes"] += len(data)
        if not self.pending:
            self.since = now
        self.pending += data
        end = self.pending.rfind(_SYNC_BYTE)
        if end < 0:
            return []
        whole = bytes(self.pending[: end + 1])
        del self.pending[: end + 1]
        self.since = now
        return [part + _SYNC_BYTE for part in whole.split(_SYNC_BYTE)[:-1]]

    def due(self, now: float) -> list[bytes]:
        """The buffered bytes as one frame if no sync byte came for them in time."""
        if not self.pending or now - self.since < _FLUSH_AFTER:
            return []
        data = bytes(self.pending)
        self.pending.clear()
        return [data]

    def deadline(self) -> float | None:
        return self.since + _FLUSH_AFTER if self.pending else None

    def apply(self, frames: list[bytes], rng: random.Random) -> bytes:
        """The bytes to send on for ``frames``, after the faults."""
        faults = self.faults
        counts = self.counts
        out: list[bytes] = []
        for frame in frames:
            counts["frames"] += 1
            if faults.drop_frames and rng.random() < faults.drop_frames:
                counts["dropped_frames"] += 1
                continue
            sent = self._corrupt(frame, rng) if faults.corrupt_bytes else frame
            out.append(sent)
            if faults.duplicate_frames and rng.random() < faults.duplicate_frames:
                counts["duplicated_frames"] += 1
                out.append(sent)
        return b"".join(out)

    def _corrupt(self, frame: bytes, rng: random.Random) -> bytes:
        chance = self.faults.corrupt_bytes
        data = bytearray(frame)
        for index in range(len(data)):
            if rng.random() < chance:
                data[index] ^= 1 << rng.randrange(8)
                self.counts["corrupted_bytes"] += 1
        return bytes(data)


def _open_pty() -> tuple[int, int]:
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    return master, slave


class FaultyCable(Closeable):
    """A relay between a node's serial port and a host-side pty, with fault knobs.

    ``node_port`` is the node's serial device (a SimNode's port or a real one); the
    host opens :attr:`port`. ``faults`` applies to both directions unless ``to_host``
    or ``to_node`` say otherwise; ``seed`` makes the faults repeatable. The relay
    thread starts at once and stops on :meth:`close`.
    """

    def __init__(
        self,
        node_port: str | Path,
        *,
        faults: Faults | None = None,
        to_host: Faults | None = None,
        to_node: Faults | None = None,
        seed: int = 0,
        directory: Path | None = None,
    ) -> None:
        """Open ``node_port``, make the host's pty at ``directory/tty`` (a temp dir by default)."""
        both = faults or Faults()
        self._flows: Final[dict[Direction, _Flow]] = {
            "to_host": _Flow(to_host or both),
            "to_node": _Flow(to_node or both),
        }
        self._rng = random.Random(seed)
        self._own_directory = directory is None
        self.directory: Final = (
            Path(tempfile.mkdtemp(prefix="hoyle-cable-")) if directory is None else directory
        )
        self.port: Final = str(self.directory / "tty")
        """The host's end: a symlink to the cable's pty, there while plugged in."""
        self._lock = threading.Lock()
        self._requests: list[tuple[str, float, threading.Event]] = []
        self._stalled_until = 0.0
        self._stopping = False
        self._host: tuple[int, int] | None = None
        self._node: int | None = None
        self._released = False
        self._wake_r, self._wake_w = os.pipe()
        try:
            self._node = os.open(node_port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            with contextlib.suppress(OSError):
                # Now, not after draining: bytes the node already sent are kept.
                tty.setraw(self._node, termios.TCSANOW)
            self._plug()
        except OSError as exc:
            self._release()
            raise DeviceUnavailable(f"cable cannot attach to {node_port}: {exc}") from exc
        self._thread = threading.Thread(
            target=self._run, name=f"hoyle-cable {node_port}", daemon=True
        )
        self._thread.start()

    # --- knobs ---------------------------------------------------------------------------

    @property
    def to_host(self) -> Faults:
        """Faults on the node's frames to the host."""
        return self._flows["to_host"].faults

    @to_host.setter
    def to_host(self, faults: Faults) -> None:
        self._flows["to_host"].faults = faults

    @property
    def to_node(self) -> Faults:
        """Faults on the host's frames to the node."""
        return self._flows["to_node"].faults

    @to_node.setter
    def to_node(self, faults: Faults) -> None:
        self._flows["to_node"].faults = faults

    def set_faults(self, faults: Faults) -> None:
        """Apply ``faults`` to both directions from now on."""
        self.to_host = faults
        self.to_node = faults

    @property
    def plugged(self) -> bool:
        """True while the host's end is there."""
        with self._lock:
            return self._host is not None

    def stall(self, seconds: float) -> None:
        """Hold all traffic, both ways, for ``seconds`` from now (0 ends a stall).

        Returns once the relay holds: nothing sent after this call gets through early.
        """
        if not seconds >= 0:
            raise ValueError(f"a stall lasts seconds >= 0, not {seconds!r}")
        self._request("stall", seconds)

    def unplug(self) -> None:
        """Pull the host's end: its pty closes (reads and writes fail) and :attr:`port` goes."""
        self._request("unplug")

    def replug(self) -> None:
        """Plug the host's end back in: a new pty under the same :attr:`port`."""
        self._request("replug")

    def counts(self) -> dict[Direction, CableCounts]:
        """What the cable did so far, per direction."""
        with self._lock:
            return {
                name: CableCounts(**flow.counts) for name, flow in self._flows.items()
            }

    def close(self) -> None:
        """Stop the relay (bounded wait), close both ends and remove the port."""
        with self._lock:
            self._stopping = True
        self._wake()
        if self._thread.ident is not None and threading.current_thread() is not self._thread:
            self._thread.join(_REQUEST_WAIT)
            if self._thread.is_alive():
                _log.error("cable relay for %s still busy after %.0f s", self.port, _REQUEST_WAIT)
                return
        self._release()


    def __repr__(self) -> str:
        return f"FaultyCable({self.port!r}, plugged={self.plugged})"

    # --- the relay thread ------------------------------------------------------------

    def _request(self, what: str, seconds: float = 0.0) -> None:
        """Have the relay thread do ``what`` (it alone touches the descriptors) and wait."""
        done = threading.Event()
        with self._lock:
            if self._stopping:
                raise DeviceUnavailable(f"cable {self.port} is closed")
            self._requests.append((what, seconds, done))
        self._wake()
        if not done.wait(_REQUEST_WAIT):
            raise LinkTimeout(f"cable {self.port}: relay did not {what} in {_REQUEST_WAIT} s")

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")

    def _run(self) -> None:
        try:
            while self._step():
                pass
        except Exception:
            _log.exception("cable relay for %s failed; the cable is dead", self.port)
        finally:
            with self._lock:
                self._stopping = True
                requests, self._requests = self._requests, []
            for _what, _seconds, done in requests:
                done.set()

    def _step(self) -> bool:
        """One round of the relay; False once closing."""
        with self._lock:
            if self._stopping:
                return False
            requests, self._requests = self._requests, []
        for what, seconds, done in requests:
            if what == "unplug":
                self._unplug()
            elif what == "replug":
                self._plug()
            else:
                self._stalled_until = time.monotonic() + seconds
            done.set()
        stalled = self._stalled_until - time.monotonic()
        watched = [self._wake_r]
        if stalled <= 0:
            watched += [fd for fd in (self._node, self._host_master()) if fd is not None]
        now = time.monotonic()
        timeout = min(_IDLE, stalled) if stalled > 0 else _IDLE
        for flow in self._flows.values():
            due = flow.deadline()
            if due is not None and stalled <= 0:
                timeout = min(timeout, max(0.0, due - now))
        readable, _, _ = select.select(watched, [], [], timeout)
        if self._wake_r in readable:
            os.read(self._wake_r, _READ_MAX)
        if stalled > 0:
            return True
        now = time.monotonic()
        if self._node is not None and self._node in readable:
            self._relay("to_host", self._node, now)
        master = self._host_master()
        if master is not None and master in readable:
            self._relay("to_node", master, now)
        for name, flow in self._flows.items():
            frames = flow.due(now)
            if frames:
                self._send(name, frames)
        return True

    def _relay(self, name: Direction, source: int, now: float) -> None:
        try:
            data = os.read(source, _READ_MAX)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            data = b""
        if not data:
            # A hang-up reads as ready forever: stop watching that end.
            if source == self._node:
                _log.warning("cable %s: the node's port hung up", self.port)
                os.close(source)
                self._node = None
            else:
                _log.warning("cable %s: the host's pty hung up; unplugged", self.port)
                self._unplug()
            return
        with self._lock:
            frames = self._flows[name].take(data, now)
        if frames:
            self._send(name, frames)

    def _send(self, name: Direction, frames: list[bytes]) -> None:
        flow = self._flows[name]
        with self._lock:
            data = flow.apply(frames, self._rng)
        target = self._host_master() if name == "to_host" else self._node
        sent = 0
        if target is not None:
            with contextlib.suppress(BlockingIOError):
                while sent < len(data):
                    sent += os.write(target, data[sent:])
        if sent < len(data):
            with self._lock:
                flow.counts["lost_bytes"] += len(data) - sent

    def _host_master(self) -> int | None:
        return None if self._host is None else self._host[0]

    def _plug(self) -> None:
        if self._host is not None:
            return
        master, slave = _open_pty()
        # The cable keeps a slave descriptor of its own, so its master reads no hang-up
        # while the host has the port closed.
        with self._lock:
            self._host = (master, slave)
        staging = f"{self.port}.new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(staging)
        os.symlink(os.ttyname(slave), staging)
        os.replace(staging, self.port)

    def _unplug(self) -> None:
        with self._lock:
            host, self._host = self._host, None
        if host is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)
        for fd in host:
            os.close(fd)
        self._flows["to_node"].pending.clear()

    def _release(self) -> None:
        """Close every descriptor and remove the port, once (the relay thread is not running)."""
        if self._released:
            return
        self._released = True
        self._unplug()
        for fd in (self._node, self._wake_r, self._wake_w):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._node = None
        if self._own_directory:
            shutil.rmtree(self.directory, ignore_errors=True)
