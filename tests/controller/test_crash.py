"""A power cut, as near as a test can make one: SIGKILL in the middle of a simulated game."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

REPO = Path(__file__).parents[2]
WAIT = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def config(tmp_path: Path, backend: str, port: int) -> Path:
    path = tmp_path / f"{backend}.toml"
    path.write_text(f"""
[table]
id = "crash-lane"
data_dir = "{tmp_path}"
snapshot_every = 40

[dashboard]
host = "127.0.0.1"
port = {port}

[lane]
backend = "{backend}"
settle_time = 0.002

[sim]
seed = 11
pace = 0.0
players = ["Ann", "Bob", "Cy"]
foul_rate = 0.05
dead_ball_rate = 0.03

[scoreboard]
kind = "emulated"
""")
    return path


class Service:
    def __init__(self, config_path: Path, port: int) -> None:
        self.port = port
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "serve", "--config", str(config_path)],
            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "HOYLE_BACKEND": ""})
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                self.view()
                return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(self.process.stderr.read().decode()  # type: ignore[union-attr]
                                       ) from None
                time.sleep(0.1)
        raise TimeoutError("the service did not come up")

    def view(self) -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/view", timeout=10) as r:
            return json.load(r)

    def stop(self, sig: int) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        self.process.wait(WAIT)


@pytest.fixture
def services() -> Iterator[list[Service]]:
    started: list[Service] = []
    yield started
    for service in started:
        service.stop(signal.SIGKILL)


def balls_on_sheet(view: Any) -> int:
    return sum(len(f["balls"]) for row in view["game"]["sheet"] for f in row["frames"])


def replay(db: Path, upto: int | None = None) -> Any:
    args = ["replay", "--log", str(db)] + (["--upto", str(upto)] if upto else [])
    done = subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=WAIT, check=True)
    return json.loads(done.stdout)


def test_sigkill_mid_game_loses_nothing_and_doubles_nothing(tmp_path: Path,
                                                            services: list[Service]) -> None:
    port = free_port()
    running = Service(config(tmp_path, "sim", port), port)
    services.append(running)
    seen: list[Any] = []
    with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=WAIT) as ws:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            view = json.loads(ws.recv(timeout=WAIT))
            seen.append(view)
            game = view["game"]
            if view["seq"] > 100 and game and not game["over"] and balls_on_sheet(view) > 5:
                break
        running.stop(signal.SIGKILL)
    last_seen = seen[-1]
    assert last_seen["seq"] > 100, "the game should have been under way at the kill"

    db = tmp_path / "crash-lane.db"
    restarted = Service(config(tmp_path, "fake", port), port)
    services.append(restarted)
    after = restarted.view()

    # Nothing the spectators saw is lost: the log up to it replays to the same sheet.
    assert after["seq"] >= last_seen["seq"]
    assert replay(db, last_seen["seq"])["game"]["sheet"] == last_seen["game"]["sheet"]
    # Start-up from the snapshot equals a replay of the whole log from its first entry.
    full = replay(db)
    assert full["game"] == after["game"]
    assert full["seq"] == after["seq"]
    # Every ball on the sheet is one ball event in the log, once (a dead ball takes one off).
    game_entries = [json.loads(line) for line in subprocess.run(
        [sys.executable, "-m", "controller.cli", "replay", "--log", str(db), "--history"],
        cwd=REPO, capture_output=True, text=True, timeout=WAIT, check=True).stdout.splitlines()]
    start = max(e["seq"] for e in game_entries if e["kind"] == "start")
    events = [e["body"]["event"]["type"] for e in game_entries
              if e["seq"] > start and e["kind"] in ("event", "resolve") and e["body"].get("event")]
    assert balls_on_sheet(after) == events.count("ball") - events.count("dead_ball")
    seqs = [e["seq"] for e in game_entries]
    assert seqs == list(range(1, len(seqs) + 1)), "the log has no gap"
