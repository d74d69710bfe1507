"""Tables publish their logs; the club view stores them entry for entry, with a league."""

from __future__ import annotations

import json
import re
from typing import Any

import aiomqtt
import httpx
import pytest

from controller.club.discovery import score_line
from controller.club.view import ClubView
from controller.club.web import create_club_app
from tests.club.conftest import Lane
from tests.club.infra import CLUB, HA_PASSWORD, Broker, until

pytestmark = pytest.mark.anyio


def converged(club: ClubView, lanes: dict[str, Lane]) -> bool:
    return all(table in club.mirrors and club.mirrors[table].stored == lane.count()
               for table, lane in lanes.items())


async def test_the_club_store_holds_every_table_log_entry_for_entry(
        lanes: dict[str, Lane], club: ClubView) -> None:
    for lane in lanes.values():
        await lane.bowl(30)
    await until(lambda: converged(club, lanes), "the club to store every entry")
    for table, lane in lanes.items():
        mine = [(e.seq, e.kind, e.source, e.body) for e in lane.table.log.entries()]
        theirs = [(e.seq, e.kind, e.source, e.body)
                  for e in club.mirrors[table].store.entries()]
        assert theirs == mine
        assert club.mirrors[table].view()["game"] == lane.table.view()["game"]


async def test_league_standings_add_up_each_bowlers_finished_games(
        lanes: dict[str, Lane], club: ClubView) -> None:
    finals: dict[str, list[int]] = {}
    for lane in list(lanes.values())[:2]:
        for _ in range(2):
            await lane.bowl(1)  # the start
            while not lane.table.view()["game"]["over"]:
                await lane.bowl(1)
            for row in lane.table.view()["game"]["sheet"]:
                finals.setdefault(row["player"], []).append(row["total"])
    await lanes["lane-3"].bowl(5)  # a game still in play does not count
    await until(lambda: converged(club, lanes), "the club to store every entry")
    [league] = club.league.standings()
    assert league["game"] == "ten-pins"
    rows = {row["player"]: row for row in league["bowlers"]}
    for player, totals in finals.items():
        assert rows[player]["games"] == 4
        assert rows[player]["pins"] == sum(totals)
        assert rows[player]["average"] == round(sum(totals) / 4, 1)
        assert rows[player]["high"] == max(totals)


async def test_the_club_pages_show_every_table_live(lanes: dict[str, Lane],
                                                    club: ClubView) -> None:
    for lane in lanes.values():
        await lane.bowl(4)
    await lanes["lane-2"].table.device("lane", "unavailable", "pin deck node unplugged")
    await until(lambda: converged(club, lanes), "the club to store every entry")
    # Names come with the tables' retained state, just after their entries.
    await until(lambda: all(club.mirrors[t].name == lane.table.name for t, lane in lanes.items()),
                "the tables' names")
    transport = httpx.ASGITransport(app=create_club_app(club))
    async with httpx.AsyncClient(transport=transport, base_url="http://club") as client:
        page = (await client.get("/api/club")).json()
        league = (await client.get("/api/league")).json()
        missing = await client.get("/api/tables/lane-7")
        html = await client.get("/")
    tables = {t["table"]: t for t in page["tables"]}
    assert set(tables) == set(lanes)
    assert tables["lane-1"]["score"] == score_line(lanes["lane-1"].table.view())
    assert tables["lane-1"]["name"] == "Lane 1"
    assert tables["lane-1"]["link"] == "online"
    assert tables["lane-2"]["status"] == "paused"
    assert tables["lane-2"]["devices"] == [{"name": "lane", "state": "unavailable",
                                            "detail": "pin deck node unplugged"}]
    assert league == []
    assert missing.status_code == 404
    assert "League" in html.text


async def test_the_club_pages_never_show_a_small_ball_while_the_game_is_played(
        lanes: dict[str, Lane], club: ClubView) -> None:
    """Kelly rotation's small balls: the club store keeps each number drawn (the club's copy
    of the log), while the club's public pages show who drew, never what."""
    table = lanes["lane-1"].table
    await table.record("start", "operator", {"game": "kelly-rotation",
                                             "players": ["Ann", "Bob"], "options": {}})
    drawn = [await table.record("event", "operator", {"event": {
        "type": "private", "player": player, "number": number}})
        for player, number in (("Ann", 13), ("Bob", 11))]
    await table.record("event", "operator", {"event": {
        "type": "pocket", "ball": 1, "pocket": "foot-left"}})
    await table.record("event", "operator", {"event": {"type": "stroke", "path": ["1"]}})
    await until(lambda: converged(club, lanes), "the club to store every entry")
    stored = {e.seq: e.body for e in club.mirrors["lane-1"].store.entries()}
    assert [stored[change.seq] for change in drawn] == [
        {"event": {"type": "private", "player": "Ann", "number": 13}},
        {"event": {"type": "private", "player": "Bob", "number": 11}}]
    transport = httpx.ASGITransport(app=create_club_app(club))
    async with httpx.AsyncClient(transport=transport, base_url="http://club") as client:
        page = (await client.get("/api/club")).json()
        one = (await client.get("/api/tables/lane-1")).json()
    [shown] = [t for t in page["tables"] if t["table"] == "lane-1"]
    for data in (shown, one):
        game = data["game"]
        assert game["id"] == "kelly-rotation" and not game["over"]
        assert game["private_drawn"] == ["Ann", "Bob"]
        text = json.dumps(data)
        # The balls on the table are named "13" and "11"; a small ball would be a number.
        assert re.search(r"(?<![\w\"])1[13](?![\w\"])", text) is None, text
        assert "private_numbers" not in game


async def test_home_assistant_finds_each_tables_score_and_device_health(
        broker: Broker, lanes: dict[str, Lane]) -> None:
    lane = lanes["lane-1"]
    await lane.bowl(3)
    await lane.table.device("lane", "unavailable", "foul line node silent")
    seen: dict[str, Any] = {}
    async with aiomqtt.Client("127.0.0.1", broker.port, username="homeassistant",
                              password=HA_PASSWORD) as client:
        await client.subscribe([("homeassistant/#", 1), (f"hoyle/{CLUB}/lane-1/state", 1)])
        async for message in client.messages:
            assert isinstance(message.payload, bytes)
            seen[message.topic.value] = json.loads(message.payload)
            state = seen.get(f"hoyle/{CLUB}/lane-1/state")
            if (len(seen) >= 7 and state is not None
                    and state["seq"] == lane.count()):
                break
    score = seen[f"homeassistant/sensor/hoyle-{CLUB}-lane-1/score/config"]
    health = seen[f"homeassistant/binary_sensor/hoyle-{CLUB}-lane-1/devices/config"]
    assert score["state_topic"] == health["state_topic"] == f"hoyle/{CLUB}/lane-1/state"
    assert score["availability_topic"] == f"hoyle/{CLUB}/lane-1/status"
    assert score["unique_id"] == f"hoyle-{CLUB}-lane-1-score"
    assert health["device_class"] == "problem"
    assert score["device"] == health["device"]
    state = seen[f"hoyle/{CLUB}/lane-1/state"]
    assert state["score"] == score_line(lane.table.view())
    assert state["problem"] is True
    assert state["devices"][0]["detail"] == "foul line node silent"
