"""The dice table: the camera's settled throws go to the table as throws, rethrows or
requests to confirm, and the operator confirms faces on the dashboard."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from controller.config import load_config
from controller.dice_table import CROP_SIDE, DiceRunner, die_crops
from controller.service import Service, build
from tests.controller import helpers
from tests.controller.helpers import OPERATOR, WAIT, wait_for
from vision.core import Frame
from vision.scenes.dice import render_scene, render_throw
from vision.settle import DieRead, ThrowRead


def write_config(tmp_path: Path, camera: str) -> Path:
    return helpers.write_config(tmp_path / "dice.toml", 'id = "dice-3"\ngame = "craps-bank"',
                                f"""[camera]
{camera}
[sim]
pace = 0
players = ["Ann", "Bob"]
[scoreboard]
kind = "none"
""")


@pytest.fixture
def started(tmp_path: Path) -> Iterator[tuple[Service, TestClient]]:
    """A dice table whose camera is a folder that is never filled: nothing is thrown."""
    (tmp_path / "empty").mkdir()
    built = build(load_config(write_config(tmp_path, f'source = "{tmp_path / "nowhere"}"')))
    with TestClient(built.app) as client:
        client.post("/api/game", json={"game": "craps-bank", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        # The camera's absence is logged once, on its own thread: wait for it, so that a
        # test's throw is the log's last entry.
        wait_for(lambda: helpers.device(client, "camera"))
        yield built, client


def read(verdict: str, *values: int | None, reason: str = "",
         state: str = "flat") -> ThrowRead:
    dice = tuple(DieRead(v, (100.0 * n, 50.0, 40.0, 40.0), 0.99 if v else 0.4, state)
                 for n, v in enumerate(values))
    return ThrowRead(1.0, verdict, dice, reason)


def record(built: Service, throw: ThrowRead, crops: Sequence[str] = ()) -> None:
    runner = built.runner
    assert isinstance(runner, DiceRunner)
    asyncio.run_coroutine_threadsafe(runner.record(throw, crops), runner.loop).result(WAIT)  # type: ignore[arg-type]


def throw_into(folder: Path, seed: Sequence[int], count: int, *, torn: bool = False) -> list[int]:
    """A throw of `count` dice as a camera sees it, rendered into `folder` all at once (made
    beside it, then moved into place, so a camera never opens it half written); the faces
    they show, left to right. `torn`: a frame file that is no image comes second."""
    scenes = render_throw(np.random.default_rng(seed), count=count)
    making = folder.with_name(f"{folder.name}.making")
    making.mkdir()
    for number, scene in enumerate(scenes):
        cv2.imwrite(str(making / f"frame_{number:03d}.png"), scene.image)
    if torn:
        (making / "frame_000_torn.png").write_bytes(b"")
    making.rename(folder)
    return [die.value for die in sorted(scenes[-1].dice, key=lambda die: die.box[0])]


#: A throw the dice reader reads as three dice, surely (at a game of two: the croupier is
#: asked how many there really are).
THREE_DICE = [7, 2]


def picture(crop: str) -> Frame:
    """A die's picture as the flag keeps it (base64 JPEG), decoded."""
    image = cv2.imdecode(np.frombuffer(base64.b64decode(crop), np.uint8), cv2.IMREAD_COLOR)
    assert image is not None, "the crop is not a JPEG"
    return np.asarray(image, dtype=np.uint8)


def test_a_camera_that_is_not_there_is_a_device_unavailable(
        started: tuple[Service, TestClient]) -> None:
    _, client = started
    camera = wait_for(lambda: helpers.device(client, "camera"))
    assert camera["state"] == "unavailable"
    assert "no such device, folder or file" in camera["detail"]
    assert client.get("/api/view").json()["status"] == "paused"


def test_a_sure_throw_is_ruled(started: tuple[Service, TestClient]) -> None:
    built, client = started
    record(built, read("throw", 3, 4))
    view = client.get("/api/view").json()
    assert view["game"]["last_throw"] == [3, 4]
    history = client.get("/api/history").json()
    assert history[-1]["body"]["vision"]["verdict"] == "throw"
    assert [r["kind"] for r in history[-1]["rulings"]][:1] == ["nick"]


def test_a_cocked_die_is_no_throw_and_says_the_law(started: tuple[Service, TestClient]) -> None:
    built, client = started
    record(built, read("rethrow", 3, 4, reason="cocked", state="cocked"))
    assert client.get("/api/view").json()["game"]["last_throw"] is None
    note = client.get("/api/history").json()[-1]
    assert note["kind"] == "note"
    assert note["body"]["what"] == "rethrow"
    assert note["body"]["law"]["lines"] == "1939-1942"
    assert "throws again" in note["body"]["text"]


def test_an_unsure_die_waits_for_the_operator_to_confirm(
        started: tuple[Service, TestClient]) -> None:
    built, client = started
    record(built, read("confirm", 6, None, reason="die 2 not read surely: confirm the faces"))
    view = client.get("/api/view").json()
    [flag] = view["flags"]
    assert flag["reading"] == {"type": "throw", "dice": [6, None]}
    assert view["game"]["last_throw"] is None
    path = f"/api/flags/{flag['seq']}/resolve"
    refused = client.post(path, json={"dice": [6, 5], "reason": "looked"})
    assert refused.status_code == 401
    bad = client.post(path, json={"dice": [6, 7], "reason": "looked"}, headers=OPERATOR)
    assert bad.status_code == 409
    assert "die 2 shows 7" in bad.json()["detail"]
    missing = client.post(path, json={"reason": "looked"}, headers=OPERATOR)
    assert missing.status_code == 422
    assert client.get("/api/view").json()["flags"] == [flag]
    done = client.post(path, json={"dice": [6, 5], "reason": "looked"}, headers=OPERATOR)
    assert done.status_code == 200, done.text
    view = client.get("/api/view").json()
    assert view["flags"] == []
    assert view["game"]["last_throw"] == [6, 5]
    assert [r["kind"] for r in done.json()["rulings"]][:1] == ["nick"]


def test_a_die_the_camera_imagined_is_dropped_with_each_dies_picture_kept_beside_the_reading(
        started: tuple[Service, TestClient]) -> None:
    built, client = started
    scene = render_scene(np.random.default_rng(5), count=3)
    dice = tuple(DieRead(d.value, d.box, 0.99, "flat")
                 for d in sorted(scene.dice, key=lambda d: d.box[0]))
    faces = [die.value for die in dice]
    record(built, ThrowRead(1.0, "confirm", dice, "saw 3 dice; the game throws 2"),
           die_crops(scene.image, dice))
    [flag] = client.get("/api/view").json()["flags"]
    # The reading is the event the croupier confirms: the pictures are beside it.
    assert flag["reading"] == {"type": "throw", "dice": faces}
    entry = client.get("/api/history").json()[-1]
    assert entry["seq"] == flag["seq"]
    assert entry["body"]["game_dice"] == 2
    crops = entry["body"]["crops"]
    assert len(crops) == 3
    for die, crop in zip(dice, crops, strict=True):
        image = picture(crop)
        assert max(image.shape[:2]) <= CROP_SIDE
        # The picture is of the die: its middle is the colour of the die's middle.
        x, y, w, h = (round(v) for v in die.box)
        middle = scene.image[y + h // 2 - 2:y + h // 2 + 3, x + w // 2 - 2:x + w // 2 + 3]
        cy, cx = image.shape[0] // 2, image.shape[1] // 2
        seen = image[cy - 2:cy + 3, cx - 2:cx + 3]
        assert abs(float(seen.mean()) - float(middle.mean())) < 40
    assert len(json.dumps(entry["body"])) < 16_000, "the flag's log entry has grown too big"
    done = client.post(f"/api/flags/{flag['seq']}/resolve", headers=OPERATOR,
                       json={"dice": faces[:2], "reason": "two dice on the table"})
    assert done.status_code == 200, done.text
    assert client.get("/api/view").json()["game"]["last_throw"] == faces[:2]


def test_the_camera_keeps_its_picture_of_each_die_of_a_throw_it_asks_about(
        started: tuple[Service, TestClient]) -> None:
    built, client = started
    faces = throw_into(Path(built.runner.config.camera.source), THREE_DICE, 3)
    [flag] = wait_for(lambda: client.get("/api/view").json()["flags"])
    assert flag["what"] == "saw 3 dice; the game throws 2"
    assert flag["reading"] == {"type": "throw", "dice": faces}
    body = next(e for e in client.get("/api/history").json() if e["seq"] == flag["seq"])["body"]
    assert body["game_dice"] == 2
    assert [picture(crop).shape[2] for crop in body["crops"]] == [3, 3, 3]


def test_a_frame_the_camera_cannot_read_is_skipped_and_the_throw_still_read(
        started: tuple[Service, TestClient]) -> None:
    built, client = started
    throw_into(Path(built.runner.config.camera.source), THREE_DICE, 3, torn=True)
    [flag] = wait_for(lambda: client.get("/api/view").json()["flags"])
    assert flag["what"] == "saw 3 dice; the game throws 2"


def test_a_die_at_the_frames_edge_is_cropped_to_the_frame_and_one_outside_it_is_left_blank(
        ) -> None:
    frame = np.full((120, 160, 3), 90, np.uint8)
    edge = DieRead(4, (150.0, 100.0, 40.0, 40.0), 0.99, "flat")
    outside = DieRead(4, (400.0, 400.0, 40.0, 40.0), 0.99, "flat")
    inside, blank = die_crops(frame, [edge, outside])
    # A quarter of the die's size around it, from (140, 90) to the frame's edge.
    assert picture(inside).shape[:2] == (30, 20)
    assert blank == ""


def test_the_operator_places_bets_and_reads_the_audit(
        started: tuple[Service, TestClient]) -> None:
    built, client = started
    bet = {"event": {"type": "bet", "player": "Bob", "on": "field", "amount": 5}}
    assert client.post("/api/events", json=bet).status_code == 401
    wrong = {"event": {"type": "bet", "player": "Bob", "on": "hardways", "amount": 5}}
    assert client.post("/api/events", json=wrong, headers=OPERATOR).status_code == 409
    record(built, read("throw", 4, 2))  # Ann's point is 6; the Field is open
    client.post("/api/events", json=bet, headers=OPERATOR).raise_for_status()
    record(built, read("throw", 2, 2))
    assert client.get("/api/view").json()["game"]["sheet"][1] == {"player": "Bob", "total": 5}
    audit = client.get("/api/dice/audit").json()
    assert audit["all"]["faces"]["counts"]["2"] == 3
    assert audit["sessions"][-1]["throws"] == 2


def test_the_simulated_table_throws_and_the_camera_reads(tmp_path: Path) -> None:
    built = build(load_config(write_config(tmp_path, 'source = "sim"\ninterval = 0')))
    with TestClient(built.app) as client:
        def camera_outcome() -> bool:
            history = client.get("/api/history").json()
            return any(e["source"] == "camera" for e in history)
        wait_for(camera_outcome)
        # A throw the camera was unsure of is confirmed by the simulated croupier: the
        # simulated table keeps playing.
        wait_for(lambda: (client.get("/api/view").json()["game"] or {}).get("last_throw"))
        view = client.get("/api/view").json()
        camera = next(d for d in view["devices"] if d["name"] == "camera")
        assert camera["state"] == "working"
        assert "simulated camera" in camera["detail"]
