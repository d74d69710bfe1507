"""The cue table: balls the pocket sensors report go to the game, the referee names the
ones the reader could not and closes each stroke; a failing sensor pauses the table; the
pockets node's balls reach the log exactly once, whenever the service stops."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller import cue_table
from controller.bus import Change
from controller.config import load_config
from controller.cue_table import CueRunner
from controller.errors import ConfigError
from controller.service import Service, build
from drivers.pockets import DEFAULT_PINS, NODE_POCKETS
from drivers.wire.fake import Cable, FakeNode
from drivers.wire.messages import BALL_IDENTITY_INPUT, NodeType
from tests.controller import helpers
from tests.controller.helpers import OPERATOR, view, wait_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "billiards.toml"


def write_config(tmp_path: Path, pockets: str, *, sim: str = "pace = 0") -> Path:
    return helpers.write_config(tmp_path / "pool.toml",
                                'id = "pool-3"\ngame = "fifteen-ball-pool"', f"""[pockets]
{pockets}
[sim]
seed = 11
players = ["Ann", "Bob"]
{sim}
[scoreboard]
kind = "none"
""")


def device(client: TestClient) -> dict[str, Any] | None:
    return helpers.device(client, "pockets")


def test_the_simulated_table_plays_fifteen_ball_through_its_pocket_sensors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cue_table, "NEW_GAME_PAUSE", 0.0)
    built = build(load_config(write_config(
        tmp_path, 'source = "sim"\nreader_wait = 0.2',
        sim="pace = 0\nunread_rate = 0.3\nfoul_rate = 0.1")))
    with TestClient(built.app) as client:

        def played() -> list[dict[str, Any]] | None:
            entries = client.get("/api/history").json()
            kinds = {(e["kind"], e["source"]) for e in entries}
            wanted = {("event", "sensor:pockets"), ("flag", "sensor:pockets"),
                      ("resolve", "sim:referee"), ("event", "sim:referee")}
            return entries if wanted <= kinds else None

        entries = wait_for(played)
        assert device(client) == {"name": "pockets", "state": "working",
                                  "detail": "simulated table: mock pins, a simulated "
                                            "ball-return reader"}
        named = [e["body"]["event"] for e in entries
                 if e["kind"] == "event" and e["source"] == "sensor:pockets"]
        assert all(event["type"] == "pocket" and event["pocket"] in DEFAULT_PINS
                   for event in named)
        flag = next(e for e in entries if e["kind"] == "flag")
        assert flag["body"]["why"] == f"which ball fell in {flag['body']['reading']['pocket']}?"
        resolve = next(e for e in entries if e["kind"] == "resolve")
        assert resolve["body"]["flag"] == flag["seq"]
        strokes = [e for e in entries if e["kind"] == "event" and e["source"] == "sim:referee"
                   and e["body"]["event"]["type"] == "stroke"]
        assert strokes and all("path" in s["body"]["event"] and "driven" in s["body"]["event"]
                               for s in strokes)
        laws = [r["law"] for s in strokes for r in s["rulings"]]
        assert laws and all(law["book"] == "000_d7ba09a064da292c.txt" for law in laws)
        game = view(client)["game"]
        assert game["id"] == "fifteen-ball-pool"
        assert game["referee"]["needs"] == ["path", "driven"]
        assert game["referee"]["sometimes"] == []
        assert "double-hit" in game["referee"]["fouls"]


def gpio_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Service:
    """A table whose throat switches are mock pins the test drives, with no reader."""
    monkeypatch.setenv("HOYLE_BACKEND", "fake")
    return build(load_config(write_config(tmp_path, 'source = "gpio"\nball_reader = false')))


def test_the_referee_names_a_ball_the_table_could_not_and_closes_the_stroke(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = gpio_table(tmp_path, monkeypatch)
    runner = built.runner
    assert isinstance(runner, CueRunner)
    with TestClient(built.app) as client, client.websocket_connect("/ws") as socket:
        socket.receive_json()
        assert wait_for(lambda: device(client))["state"] == "working"
        client.post("/api/game", json={"game": "fifteen-ball-pool", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        socket.receive_json()
        runner.pin_factory.pin(DEFAULT_PINS["foot-left"]).drive_low()
        flagged = socket.receive_json()
        [flag] = flagged["flags"]
        assert flag["what"] == "which ball fell in foot-left?"
        assert flagged["status"] == "paused"
        assert flagged["game"]["awaiting"][0] == {
            "fact": "ball", "source": "referee", "player": "Ann",
            "detail": "which ball fell in foot-left?"}
        assert flagged["game"]["awaiting"][1]["fact"] == "stroke"

        stroke = {"event": {"type": "stroke", "path": ["9"], "driven": 0}}
        early = client.post("/api/events", json=stroke, headers=OPERATOR)
        assert early.status_code == 409 and "not named yet" in early.json()["detail"]
        path = f"/api/flags/{flag['seq']}/resolve"
        assert client.post(path, json={"ball": 9, "reason": "x"}).status_code == 401
        missing = client.post(path, json={"reason": "x"}, headers=OPERATOR)
        assert missing.status_code == 422 and "which ball fell in foot-left" in missing.text
        unknown = client.post(path, json={"ball": 16, "reason": "x"}, headers=OPERATOR)
        assert unknown.status_code == 409 and "'16' is not in the set" in unknown.text
        named = client.post(path, json={"ball": 9, "reason": "the 9 went in"},
                            headers=OPERATOR)
        assert named.status_code == 200, named.text
        socket.receive_json()

        done = client.post("/api/events", json=stroke, headers=OPERATOR)
        assert done.status_code == 200, done.text
        ruled = socket.receive_json()
        last = ruled["game"]["rulings"][-1]
        assert last["text"] == "Ann pockets the 9-ball: 9."
        assert last["law"]["lines"] == "15112-15123"
        assert ruled["game"]["sheet"][0]["total"] == 9
        assert "9" in ruled["game"]["table"]["down"]

        count = client.post("/api/events", json={"event": {"type": "count", "points": 1}},
                            headers=OPERATOR)
        assert count.status_code == 409 and "has no 'count' event" in count.text
        foul = client.post("/api/events", json={"event": {"type": "foul", "kind": "push"}},
                           headers=OPERATOR)
        assert foul.status_code == 409 and "no foul 'push'" in foul.text
        history = [e["kind"] for e in built.table.history()]
        assert history == ["start", "flag", "resolve", "event"]


@pytest.mark.parametrize(("game_id", "needs", "sometimes"), [
    ("fifteen-ball-pool", ["path", "driven"], []),
    # Rule 9: `driven` decides only a safety whose cue ball met no cushion after the ball.
    ("three-cushion-billiards", ["path", "driven"], ["driven"]),
    ("bottle-pool", ["path", "bottle", "bottle_by"], ["bottle_by"]),
    ("pin-pool", ["path", "pins", "direct"], ["direct"]),
    ("french-caroms", ["path", "balk"], ["balk"]),
    ("balk-line-billiards", ["path", "balk"], []),
])
def test_the_referee_view_says_which_stroke_facts_are_needed_only_sometimes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game_id: str, needs: list[str],
        sometimes: list[str]) -> None:
    built = gpio_table(tmp_path, monkeypatch)
    with TestClient(built.app) as client:
        client.post("/api/game", json={"game": game_id, "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        # The same for everyone who reads the view, signed in or not.
        for headers in ({}, OPERATOR):
            referee = client.get("/api/view", headers=headers).json()["game"]["referee"]
            assert (referee["needs"], referee["sometimes"]) == (needs, sometimes)


def test_an_unplugged_pockets_node_pauses_the_table_until_it_is_back(
        tmp_path: Path) -> None:
    node = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    cable = Cable(node)
    built = build(load_config(write_config(
        tmp_path, 'source = "node"\nnode_port = "pockets-fake"\nreader_wait = 30')))
    assert isinstance(built.runner, CueRunner)
    built.runner.serial_factory = cable.serial
    with TestClient(built.app) as client:
        assert wait_for(lambda: (d := device(client)) and d["state"] == "working" and d)
        client.post("/api/game", json={"game": "fifteen-ball-pool", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        side = next(n for n, name in NODE_POCKETS.items() if name == "side-right")
        node.set(side, 1)
        node.set(BALL_IDENTITY_INPUT, 5)
        wait_for(lambda: "5" in view(client)["game"]["table"]["down"])
        cable.unplug()
        gone = wait_for(lambda: (d := device(client)) and d["state"] == "unavailable" and d)
        assert "pockets-fake" in gone["detail"]
        paused = view(client)
        assert paused["status"] == "paused" and "pockets unavailable" in paused["why"]
        cable.plug()
        wait_for(lambda: view(client)["status"] == "running")
        entries = client.get("/api/history").json()
        [pocket] = [e for e in entries if e["source"] == "sensor:pockets"]
        assert pocket["body"]["event"] == {"type": "pocket", "ball": "5", "pocket": "side-right"}
        assert pocket["body"]["seen"] == {"pocket": "side-right", "reader": 5}


def node_table(tmp_path: Path, cable: Cable) -> Service:
    """The table on its pockets node (through `cable`), with a ball-return reader."""
    built = build(load_config(write_config(
        tmp_path, 'source = "node"\nnode_port = "pockets-fake"\nreader_wait = 30')))
    assert isinstance(built.runner, CueRunner)
    built.runner.serial_factory = cable.serial
    return built


def balls_logged(client: TestClient) -> list[str | None]:
    """The balls the pockets reported in this game, as logged (or flagged), in order."""
    return [(e["body"].get("event") or e["body"]["reading"])["ball"]
            for e in client.get("/api/history").json()
            if e["kind"] in ("event", "flag") and e["source"] == "sensor:pockets"]


def test_the_node_keeps_each_ball_until_it_is_logged_so_none_is_lost_or_doubled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = FakeNode(node_type=NodeType.POCKETS, inputs=7)
    cable = Cable(node)
    pocket = {name: number for number, name in NODE_POCKETS.items()}

    first = node_table(tmp_path, cable)
    record = first.table.record

    async def power_cut(kind: str, source: str, body: Mapping[str, Any]) -> Change:
        """The service dies as it writes the 5: it never reaches the log."""
        if (body.get("event") or {}).get("ball") == "5":
            raise RuntimeError("power cut")
        return await record(kind, source, body)

    with TestClient(first.app) as client:
        wait_for(lambda: (d := device(client)) and d["state"] == "working")
        client.post("/api/game", json={"game": "fifteen-ball-pool", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        wait_for(lambda: node.unacked == 0)
        monkeypatch.setattr(first.table, "record", power_cut)
        # Two balls fall together; the reader names them once both have rolled back.
        node.set(pocket["foot-left"], 1)
        node.set(pocket["side-right"], 1)
        node.set(BALL_IDENTITY_INPUT, 3)
        node.set(BALL_IDENTITY_INPUT, 5)
        held = wait_for(lambda: (d := device(client)) and d["state"] == "unavailable" and d)
        assert "could not be logged" in held["detail"]
        assert balls_logged(client) == ["3"]
        # Neither ball is acknowledged: the 5 is not logged, and its report came before
        # the 3's name.
        assert node.unacked == 4

    # While the service is down, the 9 falls.
    node.set(pocket["head-left"], 1)
    node.set(BALL_IDENTITY_INPUT, 9)
    with TestClient(node_table(tmp_path, cable).app) as client:
        wait_for(lambda: len(balls_logged(client)) >= 3)
        wait_for(lambda: node.unacked == 0)
        assert balls_logged(client) == ["3", "5", "9"]
        assert wait_for(lambda: view(client)["status"] == "running")

    again = node_table(tmp_path, cable)
    with TestClient(again.app) as client:
        wait_for(lambda: (d := device(client)) and d["state"] == "working")
        wait_for(lambda: node.unacked == 0)
        node.set(pocket["side-left"], 1)
        node.set(BALL_IDENTITY_INPUT, 11)
        wait_for(lambda: "11" in balls_logged(client))
        wait_for(lambda: node.unacked == 0)
        assert balls_logged(client) == ["3", "5", "9", "11"]
        entries = [e for e in client.get("/api/history").json()
                   if e["source"] == "sensor:pockets"]
        # Each entry says how far the node's reports were consumed (its boot first), and
        # the last its inputs then: the four throats closed, the 11 read.
        assert all(e["body"]["nodes"]["pockets"][0] == node.boot_id for e in entries)
        assert again.table.state.nodes["pockets"][2:] == [1, 1, 1, 0, 1, 0, 11]


def test_gpio_that_cannot_be_opened_pauses_the_table_with_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOYLE_BACKEND", raising=False)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    built = build(load_config(write_config(tmp_path, 'source = "gpio"\nball_reader = false')))
    with TestClient(built.app) as client:
        found = wait_for(lambda: device(client))
        assert found["state"] == "unavailable" and "pin factory" in found["detail"]
        assert view(client)["status"] == "paused"


@pytest.mark.parametrize(("pockets", "message"), [
    ('source = "usb"', r"line 8: pockets.source: 'usb' is not one of gpio, node, sim"),
    ('source = "node"', r"pockets.source: source \"node\" needs pockets.node_port"),
    ('source = "gpio"\nball_reader = true',
     r"line 9: pockets.ball_reader: a ball-return reader is read by the pockets node"),
    ('pins = { head-left = 5 }', r"pockets.pins: must map each pocket \(head-left, "),
    ('pins = { head-left = 5, head-right = 5, side-left = 12, side-right = 13, '
     'foot-left = 16, foot-right = 17 }', r"pockets.pins.head-right: GPIO 5 is already used "
                                          r"by pockets.pins.head-left"),
    ('reader_wait = 0', r"line 8: pockets.reader_wait: 0.0 s is out of range"),
    ('corner = 1', r"line 8: pockets.corner: unknown key; allowed here: ball_reader, "),
])
def test_a_bad_pockets_section_names_the_key(tmp_path: Path, pockets: str,
                                              message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write_config(tmp_path, pockets))


def test_the_example_billiards_config_loads() -> None:
    config = load_config(EXAMPLE)
    assert config.game == "fifteen-ball-pool"
    assert config.pockets.source == "sim" and config.pockets.pins == dict(DEFAULT_PINS)
