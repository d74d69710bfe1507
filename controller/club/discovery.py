"""Home Assistant MQTT discovery for a table: its score and its devices' health.

Each table announces (retained) a `sensor` for the score and a `binary_sensor` of
device class `problem` for its devices; both read the table's retained `state` topic and
are unavailable while its `status` is "offline".
"""

from __future__ import annotations

from controller.club.topics import OFFLINE, ONLINE, Topics
from engine.core import JSON


def discovery_messages(topics: Topics, name: str) -> list[tuple[str, JSON]]:
    """(topic, config) of every entity the table announces."""
    device = {"identifiers": [topics.node_id], "name": name, "manufacturer": "Hoyle",
              "model": "table controller"}
    common: JSON = {"state_topic": topics.state, "availability_topic": topics.status,
                    "payload_available": ONLINE, "payload_not_available": OFFLINE,
                    "device": device}
    score: JSON = {
        **common, "name": "Score", "unique_id": f"{topics.node_id}-score",
        "value_template": "{{ value_json.score }}", "icon": "mdi:scoreboard",
        "json_attributes_topic": topics.state,
        "json_attributes_template": "{{ {'game': value_json.game, 'status': value_json.status,"
                                    " 'seq': value_json.seq} | tojson }}"}
    devices: JSON = {
        **common, "name": "Devices", "unique_id": f"{topics.node_id}-devices",
        "device_class": "problem",
        "value_template": "{{ 'ON' if value_json.problem else 'OFF' }}",
        "json_attributes_topic": topics.state,
        "json_attributes_template": "{{ {'why': value_json.why, "
                                    "'devices': value_json.devices} | tojson }}"}
    return [(topics.discovery("sensor", "score"), score),
            (topics.discovery("binary_sensor", "devices"), devices)]


def summary(view: JSON) -> JSON:
    """The retained `state` payload: the table's status, score line and device health."""
    game = view.get("game")
    devices = view.get("devices") or []
    return {"seq": view["seq"], "name": view["name"], "status": view["status"],
            "why": view["why"], "game": game["id"] if game else None,
            "over": bool(game and game.get("over")), "score": score_line(view),
            "devices": devices, "problem": any(d["state"] != "working" for d in devices)}


def score_line(view: JSON) -> str:
    """Each player's total, e.g. "Ann 180 · Bob 164"; "no game" between games."""
    game = view.get("game")
    if not game:
        return "no game"
    totals = [f"{row['player']} {row.get('total', 0)}" for row in game.get("sheet", [])]
    return " · ".join(totals) or game.get("name", "game")
