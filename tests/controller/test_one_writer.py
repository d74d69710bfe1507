"""One writer per log: a second `hoyle serve` (or any writer) is refused before it writes,
naming the first; a killed writer leaves no stale lock; readers still read."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.eventlog import SqliteEventLog
from controller.logentry import ReadOnlyLogError
from controller.writerlock import LogInUseError
from tests.controller.test_crash import REPO, WAIT, Service, free_port


def lane_config(tmp_path: Path, port: int) -> Path:
    """A lane on mock pins: nothing is bowled unless a test bowls it, so its log stays still."""
    path = tmp_path / "lane.toml"
    path.write_text(textwrap.dedent(f"""
        [table]
        id = "lane-7"
        data_dir = "{tmp_path}"

        [dashboard]
        host = "127.0.0.1"
        port = {port}

        [lane]
        backend = "fake"
    """))
    return path


def hoyle(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=WAIT,
                          env={**os.environ, "HOYLE_BACKEND": ""})


def log_bytes(tmp_path: Path) -> dict[str, str]:
    """The log's files (the database and its write-ahead log) by name, as digests."""
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(tmp_path.glob("lane-7.db*"))}


@pytest.fixture
def first(tmp_path: Path) -> Iterator[Service]:
    port = free_port()
    service = Service(lane_config(tmp_path, port), port)
    yield service
    service.stop(signal.SIGTERM)


def test_a_second_serve_on_the_same_config_is_refused_naming_the_first(
        tmp_path: Path, first: Service) -> None:
    before = log_bytes(tmp_path)
    assert "lane-7.db" in before

    second = hoyle("serve", "--config", str(tmp_path / "lane.toml"), "--port", str(free_port()))

    assert second.returncode == 2
    message = second.stderr
    assert str(tmp_path / "lane-7.db") in message, message
    assert f"process {first.process.pid} " in message, message
    assert "controller.cli serve --config" in message, "the holder's command is named"
    assert f"kill {first.process.pid}" in message, "the message says how to stop it"
    assert "Traceback" not in message
    assert "dashboard at" not in message, "nothing is announced that is not served"
    assert log_bytes(tmp_path) == before, "the second service wrote to the log"
    assert first.view()["status"] != "paused", "the first table plays on"


def test_a_reader_reads_the_log_while_the_service_writes_it(tmp_path: Path,
                                                            first: Service) -> None:
    replayed = hoyle("replay", "--config", str(tmp_path / "lane.toml"))
    assert replayed.returncode == 0, replayed.stderr
    audit = hoyle("dice", "audit", "--config", str(tmp_path / "lane.toml"))
    assert "held by another writer" not in audit.stderr


def test_a_writer_killed_outright_leaves_no_lock_behind(tmp_path: Path) -> None:
    path = tmp_path / "table.db"
    writer = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from controller.eventlog import SqliteEventLog
            log = SqliteEventLog({str(path)!r})
            log.append("note", "test", {{"what": "alive"}})
            print("ready", flush=True)
            time.sleep(600)
        """)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
        with pytest.raises(LogInUseError, match=f"process {writer.pid} "):
            SqliteEventLog(path)
        writer.send_signal(signal.SIGKILL)
        writer.wait(WAIT)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(WAIT)
    with SqliteEventLog(path) as log:  # at once: the kernel dropped the lock with the process
        assert log.append("note", "test", {"what": "next writer"}).seq == 2


def test_a_serve_killed_outright_is_followed_at_once_by_the_next(tmp_path: Path) -> None:
    port = free_port()
    config = lane_config(tmp_path, port)
    killed = Service(config, port)
    killed.stop(signal.SIGKILL)
    restarted = Service(config, port)
    try:
        assert restarted.view()["table"] == "lane-7"
    finally:
        restarted.stop(signal.SIGTERM)


def test_a_busy_port_is_refused_before_the_log_is_opened(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = hoyle("serve", "--config", str(lane_config(tmp_path, port)))
    assert refused.returncode == 2
    assert f"127.0.0.1:{port}" in refused.stderr
    assert "in use" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert "dashboard at" not in refused.stderr
    assert not (tmp_path / "lane-7.db").exists(), "the log was opened before the port"


@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_a_port_that_is_no_port_is_a_usage_error(port: str) -> None:
    refused = hoyle("serve", "--port", port)
    assert refused.returncode == 2
    assert "--port" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_log_opened_for_reading_cannot_be_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "table.db"
    with SqliteEventLog(path) as writer:
        writer.append("note", "test", {"what": "first"})
        with SqliteEventLog(path, read_only=True) as reader:
            assert [entry.body["what"] for entry in reader.entries()] == ["first"]
            with pytest.raises(ReadOnlyLogError, match="reading only"):
                reader.append("note", "test", {"what": "second"})
        assert writer.last_seq() == 1


def test_a_reader_creates_no_log(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="no such file"):
        SqliteEventLog(tmp_path / "absent.db", read_only=True)
    assert not (tmp_path / "absent.db").exists()
