"""One writer per log: the operating system's exclusive lock, held for the writer's life.

A process that appends to a table's log first takes an exclusive `flock` on the file
`<log>.lock` beside it, and keeps it until it closes the log or ends. The kernel drops
the lock when the process ends however it ends (a crash, SIGKILL, a power cut), so a
killed writer never leaves a stale lock behind and the next writer gets it at once. A
second writer is refused before it has opened the log, with who holds it: the holder
writes its process id and command line into the lock file once it has the lock.

Readers (`hoyle replay`, `hoyle dice audit`) take no lock: SQLite's WAL lets them read
while the writer appends.

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "lane.db")
    >>> lock = WriterLock(path)
    >>> try:
    ...     WriterLock(path)
    ... except LogInUseError as error:
    ...     print("refused:", f"process {os.getpid()} (" in str(error))
    refused: True
    >>> lock.release()
    >>> WriterLock(path).release()
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from controller.logentry import EventLogError, LogStorageError

__all__ = ["Holder", "LogInUseError", "WriterLock", "lock_path", "refusal"]


class LogInUseError(EventLogError, BlockingIOError):
    """Another process holds the log for writing; the message names it and how to stop it."""


@dataclass(frozen=True, slots=True)
class Holder:
    """The process that holds a log for writing, as it wrote itself into the lock file."""

    pid: int
    command: str
    since: float

    def describe(self) -> str:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        return f"process {self.pid} ({self.command}), writing since {started}"


def lock_path(log_path: Path) -> Path:
    """The lock file of the log at `log_path`."""
    return log_path.with_name(log_path.name + ".lock")


class WriterLock:
    """The exclusive lock on one log (or, `what` says, on a store of logs), taken at
    construction; `release` gives it back."""

    def __init__(self, log_path: Path, what: str = "event log") -> None:
        self.path = lock_path(log_path)
        self.log_path = log_path
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise LogStorageError(f"cannot open the lock file {self.path} of {what} "
                                  f"{log_path}: {exc.strerror}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise LogInUseError(refusal(f"{what} {log_path}", holder,
                                        f"`fuser {self.path}` names it")) from None
        except OSError as exc:
            os.close(fd)
            raise LogStorageError(f"cannot lock {what} {log_path} ({self.path}): "
                                  f"{exc.strerror}") from exc
        self._fd: int | None = fd
        _write_holder(fd, Holder(os.getpid(), _command_line(), time.time()))

    def release(self) -> None:
        """Give the lock back (closing the file releases it); calling again does nothing."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def refusal(what: str, holder: Holder | None, find_it: str) -> str:
    """The message refusing a second writer of `what`, naming the holder and how to stop it
    (`find_it`: how to find a holder that has not said who it is)."""
    who = holder.describe() if holder is not None else "a process that has not said which"
    stop = (f"`kill {holder.pid}`, or `systemctl stop hoyle@<table>` if it runs as the "
            "table's service" if holder is not None else find_it)
    return (f"{what} is held by another writer: {who}; only one process may write it: stop "
            f"that one first ({stop}); `hoyle replay` reads a log while it is served")


def _write_holder(fd: int, holder: Holder) -> None:
    text = json.dumps({"pid": holder.pid, "command": holder.command, "since": holder.since})
    os.ftruncate(fd, 0)
    os.pwrite(fd, text.encode() + b"\n", 0)


def _read_holder(fd: int) -> Holder | None:
    """Who wrote itself into the lock file; None if it has not yet (or it is not ours)."""
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"null")
        return Holder(int(data["pid"]), str(data["command"]), float(data["since"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _command_line() -> str:
    try:
        parts = Path("/proc/self/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
        return " ".join(part.decode(errors="replace") for part in parts)
    except OSError:
        return " ".join([sys.executable, *sys.argv])
