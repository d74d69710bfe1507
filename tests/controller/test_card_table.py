"""The card table: each card the dealer shoe reads is recorded once, in order, with the
shoe's position; a card the table cannot place waits for the operator; the shuffler's packs
are verified before they are dealt."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from controller.card_table import CardRunner
from controller.config import load_config
from controller.service import build
from drivers.shoe.fake import FakeShoe
from drivers.shoe.shuffler import FakeShuffler
from tests.controller import helpers
from tests.controller.helpers import OPERATOR, wait_for
from vision.cards import DEFAULT_THRESHOLD, CardReader
from vision.scenes.cards import installed_decks, render_scene

needs_decks = pytest.mark.skipif(not installed_decks(), reason=(
    "Debian's card decks are absent: apt install gnome-cards-data kdegames-card-data-kf5 "
    "librsvg2-bin"))


def write_config(tmp_path: Path, game: str, shoe: str) -> Path:
    return helpers.write_config(tmp_path / "cards.toml", f'id = "cards-2"\ngame = "{game}"',
                                f"""[shoe]
{shoe}
[sim]
pace = 0
players = ["Ann", "Bob", "Cy"]
[scoreboard]
kind = "none"
""")


def shoe_entries(client: TestClient) -> list[dict[str, Any]]:
    return [e for e in client.get("/api/history").json() if e["source"] == "shoe"]


def test_the_simulated_table_deals_verified_packs_card_by_card(tmp_path: Path) -> None:
    built = build(load_config(write_config(tmp_path, "baccara", 'port = "sim"')))
    with TestClient(built.app) as client:
        entries = wait_for(lambda: (found := shoe_entries(client)) and len(found) >= 8
                           and found)
        # Between coups the simulated dealer may shuffle, or a new game start, and either
        # counts the shoe afresh: wait for a view taken after a coup's first card.
        view = wait_for(lambda: (found := helpers.view(client))["game"] is not None
                        and found["game"]["shoe"]["dealt"] >= 1 and found)
        devices = {d["name"]: d for d in view["devices"]}
        assert devices["shoe"]["state"] == "working"
        assert devices["shuffler"]["state"] == "working"
        assert "cards verified" in devices["shuffler"]["detail"]
        seqs = [e["body"]["nodes"]["shoe"][1] for e in entries]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # in order, none missing
        assert all(e["kind"] == "event" and e["body"]["event"]["type"] == "card"
                   for e in entries)


@needs_decks
def test_the_simulated_camera_sees_the_cards_dealt_and_the_table_notes_them(
        tmp_path: Path) -> None:
    # Paced so that the cards lie on the table for a look or two before the next one.
    config = helpers.write_config(tmp_path / "cards.toml", 'id = "cards-4"\ngame = "baccara"',
                                  """[shoe]
port = "sim"
[sim]
pace = 1.0
players = ["Ann", "Bob"]
[camera]
agree = 1
card_threshold = 0.999
[scoreboard]
kind = "none"
""")
    built = build(load_config(config))
    with TestClient(built.app) as client:
        wait_for(lambda: (d := helpers.device(client, "card camera")) and d["state"] == "working"
                 and "simulated camera" in d["detail"] and "at least 0.999 sure" in d["detail"])
        note = wait_for(lambda: next((e for e in client.get("/api/history").json()
                                      if e["kind"] == "note" and e["body"]["confirmed"]), None))
        dealt = [e["body"]["event"]["card"] for e in shoe_entries(client)]
        assert set(note["body"]["confirmed"]) <= set(dealt)
        assert note["body"]["text"].startswith("The camera confirms")
        # The club's threshold, not the recogniser's own, is what the camera vouches at
        # (the note's confidences are rounded to 4 places).
        surest: dict[str, float] = {}
        for read in note["body"]["vision"]:
            surest[read["value"]] = max(surest.get(read["value"], 0.0), read["confidence"])
        assert all(surest[code] >= 0.9989 for code in note["body"]["confirmed"]), surest


@needs_decks
def test_what_the_camera_said_of_a_coups_cards_is_withdrawn_once_they_leave_the_table(
        tmp_path: Path) -> None:
    config = helpers.write_config(tmp_path / "cards.toml", 'id = "cards-5"\ngame = "baccara"',
                                  """[shoe]
port = "sim"
[sim]
pace = 0.5
players = ["Ann", "Bob"]
[camera]
agree = 1
[scoreboard]
kind = "none"
""")
    built = build(load_config(config))
    with TestClient(built.app) as client:
        def camera_notes() -> list[dict[str, Any]]:
            return [e for e in client.get("/api/history").json()
                    if e["kind"] == "note" and e["source"] == "camera"]
        said = wait_for(lambda: next((e for e in camera_notes() if e["body"]["confirmed"]),
                                     None))
        # The coup settles and its cards are gathered in: the camera no longer vouches.
        withdrawn = wait_for(lambda: next((e for e in camera_notes() if e["seq"] > said["seq"]
                                           and not e["body"]["confirmed"]), None))
        assert withdrawn["body"]["unexpected"] == []
        assert withdrawn["body"]["text"] == "The camera sees no card of the game on the table."


@pytest.fixture
def shoe() -> Iterator[FakeShoe]:
    with FakeShoe(["QH", "7C", "2D", "9S"], seed=3) as fake:
        yield fake


def test_a_card_for_one_of_several_hands_waits_for_the_operator(
        tmp_path: Path, shoe: FakeShoe) -> None:
    built = build(load_config(write_config(tmp_path, "three-card-monte",
                                           f'port = "{shoe.port}"')))
    with TestClient(built.app) as client:
        wait_for(lambda: (d := helpers.device(client, "shoe")) and d["state"] == "working")
        client.post("/api/game", json={"game": "three-card-monte", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        shoe.draw(1)
        [flag] = wait_for(lambda: client.get("/api/view").json()["flags"])
        assert flag["reading"]["card"] == "QH"
        assert flag["reading"]["hands"] == ["left", "middle", "right"]
        assert "which hand" in flag["what"]
        path = f"/api/flags/{flag['seq']}/resolve"
        assert client.post(path, json={"to": "middle", "reason": "x"}).status_code == 401
        missing = client.post(path, json={"reason": "x"}, headers=OPERATOR)
        assert missing.status_code == 422
        bad = client.post(path, json={"to": "under", "reason": "x"}, headers=OPERATOR)
        assert bad.status_code == 409
        done = client.post(path, json={"to": "middle", "reason": "dealt to the middle"},
                           headers=OPERATOR)
        assert done.status_code == 200, done.text
        view = client.get("/api/view").json()
        assert view["flags"] == []
        assert view["game"]["hands"]["middle"] == ["QH"]


def test_the_shoe_resumes_after_the_last_card_the_log_holds(tmp_path: Path,
                                                             shoe: FakeShoe) -> None:
    config = load_config(write_config(tmp_path, "red-dog", f'port = "{shoe.port}"'))
    first = build(config)
    with TestClient(first.app) as client:
        client.post("/api/game", json={"game": "red-dog", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        shoe.draw(2)
        wait_for(lambda: len(shoe_entries(client)) == 2)
        shoe.wait_acked()
        held = first.table.state.nodes["shoe"]
    assert held[1] == 2
    again = build(config)
    with TestClient(again.app) as client:
        runner = again.runner
        assert isinstance(runner, CardRunner)
        wait_for(lambda: runner.shoe is not None and runner.shoe.status().state == "running")
        shoe.draw(1)
        entries = wait_for(lambda: (found := shoe_entries(client)) and len(found) == 3
                           and found)
        assert [e["body"]["event"]["card"] for e in entries] == ["QH", "7C", "2D"]
        assert entries[-1]["body"]["nodes"]["shoe"][1] == 3


def test_a_bad_pack_from_the_shuffler_pauses_the_table_naming_the_cards(
        tmp_path: Path, shoe: FakeShoe) -> None:
    with FakeShuffler(seed=5) as shuffler:
        built = build(load_config(write_config(
            tmp_path, "red-dog", f'port = "{shoe.port}"\nshuffler_port = "{shuffler.port}"')))
        with TestClient(built.app) as client:
            pack = [f"{r}{s}" for s in "SHDC" for r in
                    ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
            pack.remove("7H")
            pack.append("QS")
            shuffler.shuffle(pack)
            device = wait_for(lambda: helpers.device(client, "shuffler"))
            assert device["state"] == "unavailable"
            assert "missing 7H" in device["detail"] and "2 copies of QS" in device["detail"]
            assert client.get("/api/view").json()["status"] == "paused"


def shoe_cards(client: TestClient) -> list[dict[str, Any]]:
    return [e for e in shoe_entries(client) if e["kind"] == "event"]


def open_flag(client: TestClient) -> dict[str, Any]:
    [flag] = wait_for(lambda: client.get("/api/view").json()["flags"])
    return dict(flag)


def test_a_card_the_shoe_misread_is_named_by_the_operator_and_the_shoe_goes_on(
        tmp_path: Path, shoe: FakeShoe) -> None:
    built = build(load_config(write_config(tmp_path, "red-dog", f'port = "{shoe.port}"')))
    with TestClient(built.app) as client:
        wait_for(lambda: (d := helpers.device(client, "shoe")) and d["state"] == "working")
        client.post("/api/game", json={"game": "red-dog", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        shoe.misread_next("ZZ")
        shoe.draw(1)  # the queen of hearts, read as "ZZ"
        flag = open_flag(client)
        assert "stopped at card 1" in flag["what"] and "'ZZ'" in flag["what"]
        assert flag["reading"]["card"] is None
        view = client.get("/api/view").json()
        assert view["status"] == "paused"
        stopped = helpers.device(client, "shoe")
        assert stopped is not None and stopped["state"] == "unavailable"
        path = f"/api/flags/{flag['seq']}/resolve"
        assert flag["reading"]["hands"] == ["Bob"]  # the hand the game waited to deal to
        to = "Bob"
        nameless = client.post(path, json={"to": to, "reason": "x"}, headers=OPERATOR)
        assert nameless.status_code == 422 and "which card" in nameless.text
        done = client.post(path, json={"to": to, "card": "QH", "reason": "the dealer showed it"},
                           headers=OPERATOR)
        assert done.status_code == 200, done.text
        wait_for(lambda: (d := helpers.device(client, "shoe")) and d["state"] == "working")
        assert built.table.state.nodes["shoe"][1] == 1  # the shoe's position moved past it
        shoe.wait_acked()  # the shoe was told the card is taken
        shoe.draw(1)
        entries = wait_for(lambda: (found := shoe_cards(client)) and found)
        assert [e["body"]["event"]["card"] for e in entries] == ["7C"]
        assert entries[0]["body"]["nodes"]["shoe"][1] == 2
        history = client.get("/api/history").json()
        resolved = [e for e in history if e["kind"] == "resolve"]
        assert resolved[0]["body"]["event"]["card"] == "QH"
        assert resolved[0]["source"] == "operator"
        assert client.get("/api/view").json()["flags"] == []


def test_a_number_the_shoe_skipped_is_voided_once_even_across_a_restart(
        tmp_path: Path, shoe: FakeShoe) -> None:
    config = load_config(write_config(tmp_path, "red-dog", f'port = "{shoe.port}"'))
    first = build(config)
    with TestClient(first.app) as client:
        wait_for(lambda: (d := helpers.device(client, "shoe")) and d["state"] == "working")
        client.post("/api/game", json={"game": "red-dog", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        shoe.draw(1)
        wait_for(lambda: shoe_cards(client))
        shoe.skip_next()
        shoe.draw(1)  # the seven of clubs, numbered 3: number 2 never existed
        flag = open_flag(client)
        assert "stopped at card 2" in flag["what"] and "cannot resend" in flag["what"]
    again = build(config)  # the service restarts with the flag open
    with TestClient(again.app) as client:
        runner = again.runner
        assert isinstance(runner, CardRunner)
        wait_for(lambda: runner.shoe is not None
                 and runner.shoe.status().stopped_at == 2)
        assert [f["seq"] for f in client.get("/api/view").json()["flags"]] == [flag["seq"]]
        done = client.post(f"/api/flags/{flag['seq']}/resolve",
                           json={"void": True, "reason": "the shoe skipped a number"},
                           headers=OPERATOR)
        assert done.status_code == 200, done.text
        entries = wait_for(lambda: (found := shoe_cards(client)) and len(found) == 2
                           and found)
        assert [e["body"]["event"]["card"] for e in entries] == ["QH", "7C"]
        assert [e["body"]["nodes"]["shoe"][1] for e in entries] == [1, 3]
        flags = [e for e in client.get("/api/history").json() if e["kind"] == "flag"]
        assert len(flags) == 1


@needs_decks
def test_the_overhead_camera_confirms_the_dealt_cards_and_names_one_never_dealt(
        tmp_path: Path, shoe: FakeShoe) -> None:
    folder = tmp_path / "camera"
    folder.mkdir()
    config = helpers.write_config(tmp_path / "cards.toml", 'id = "cards-3"\ngame = "red-dog"',
                                  f"""[shoe]
port = "{shoe.port}"
[camera]
source = "{folder}"
agree = 1
[scoreboard]
kind = "none"
""")
    # What the camera will see: the two cards dealt, and a king of spades the shoe never gave.
    scene = render_scene(np.random.default_rng([7, 1]), codes=["QH", "7C", "KS"],
                         decks=["kde-standard"], overlap=0.0)
    assert sorted(o.value for o in CardReader()(scene.image)
                  if o.confidence >= DEFAULT_THRESHOLD) == ["7C", "KS", "QH"]
    built = build(load_config(config))
    with TestClient(built.app) as client:
        # No images yet: the camera is unavailable and says why; the table goes on.
        camera = wait_for(lambda: (d := helpers.device(client, "card camera"))
                          and d["state"] == "unavailable" and d)
        assert "no images" in camera["detail"]
        client.post("/api/game", json={"game": "red-dog", "players": ["Ann", "Bob"]},
                    headers=OPERATOR).raise_for_status()
        assert client.get("/api/view").json()["status"] == "running"  # it only confirms
        shoe.draw(2)
        wait_for(lambda: len(shoe_entries(client)) == 2)
        hands_before = client.get("/api/view").json()["game"]["hands"]
        cv2.imwrite(str(folder / "frame_000.png"), scene.image)

        [note] = wait_for(lambda: [e for e in client.get("/api/history").json()
                                   if e["kind"] == "note" and e["source"] == "camera"])
        assert note["body"]["confirmed"] == ["7C", "QH"]
        assert note["body"]["unexpected"] == ["KS"]
        assert "it sees KS, which the shoe has not dealt in this game" in note["body"]["text"]
        view = client.get("/api/view").json()
        assert view["game"]["hands"] == hands_before  # the camera never changes the record
        assert view["flags"] == [] and view["status"] != "paused"
