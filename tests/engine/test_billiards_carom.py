"""The carom games: bad input refused with the log kept, options checked, what the sheet shows.

The book vectors (vectors/billiards/<id>.toml) play the laws; these are the checks they do
not make: what the referee's tablet must be refused, and what the dashboard is shown.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game
from tests.engine.book_vectors import play

CAROM = "french-caroms"
#: (game, events before, the bad event, what the message must name)
BAD_EVENTS: list[tuple[str, list[dict[str, Any]], dict[str, Any], str]] = [
    (CAROM, [], {"type": "stroke", "path": ["red", "yellow"]},
     "ball 'yellow' is not in the set of French Caroms"),
    (CAROM, [], {"type": "off", "ball": "light-red"}, "ball 'light-red' is not in the set"),
    ("american-four-ball-billiards", [], {"type": "off", "ball": "red"},
     "ball 'red' is not in the set"),
    (CAROM, [{"type": "off", "ball": "red"}], {"type": "off", "ball": "red"},
     "ball red is not on the table"),
    (CAROM, [], {"type": "pocket", "ball": "red", "pocket": "foot-left"},
     "has no 'pocket' event"),
    (CAROM, [], {"type": "count", "points": 1, "player": "Bob"}, "out of turn"),
    (CAROM, [{"type": "stroke", "path": []}], {"type": "stroke", "path": ["red"],
                                                "player": "Ann"}, "out of turn"),
    (CAROM, [], {"type": "stroke", "path": ["white", "red"]},
     "the white is Ann's own cue ball"),
    (CAROM, [], {"type": "count", "points": 2}, "scores 0, 1, not 2"),
    (CAROM, [], {"type": "count"}, "points is missing"),
    (CAROM, [], {"type": "stroke"}, "needs the fact 'path'"),
    (CAROM, [], {"type": "foul", "kind": "sneeze"}, "no foul 'sneeze'"),
    (CAROM, [], {"type": "stroke", "path": ["red", "spot-white"], "balk": "in"},
     "balk must be true or false"),
    ("balk-line-billiards", [], {"type": "stroke", "path": ["red", "spot-white"]},
     "needs the fact 'balk'"),
    ("little-corporal", [], {"type": "stroke", "path": ["red", "spot-white"]},
     "needs the fact 'pins'"),
    ("little-corporal", [], {"type": "stroke", "path": ["red"], "pins": ["king"]},
     "stroke pins: ball 'king' is not in the set"),
    ("little-corporal", [], {"type": "count", "points": 3}, "scores 0, 1, 5, 6, not 3"),
    ("three-cushion-billiards", [], {"type": "stroke", "path": ["red"], "safety": True},
     "needs the fact 'driven' for a safety"),
    ("three-cushion-billiards", [],
     {"type": "stroke", "path": ["red", "cushion", "cushion", "cushion", "spot-white"],
      "safety": True}, "a counting carom is not a deliberate safety"),
    ("man-of-war", [], {"type": "stroke", "path": ["white-1", "red"]},
     "the white-1 is Ann's own cue ball"),
    (CAROM, [{"type": "count", "points": 1}] * 34, {"type": "count", "points": 1},
     "the game is over"),
]


def players_for(game_id: str) -> list[str]:
    return ["Ann", "Bob", "Cy"] if game_id == "man-of-war" else ["Ann", "Bob"]


@pytest.mark.parametrize(("game_id", "events", "bad", "message"), BAD_EVENTS,
                         ids=[f"{g}: {m}" for g, _, _, m in BAD_EVENTS])
def test_bad_input_is_refused_naming_it_and_the_log_kept(
        game_id: str, events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state, _ = play(game_id, players_for(game_id), None, events)
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.save() == before


def test_the_wrong_ball_lets_the_striker_s_own_ball_be_struck() -> None:
    state, kinds = play(CAROM, ["Ann", "Bob"], None,
                        [{"type": "foul", "kind": "wrong-ball"},
                         {"type": "stroke", "path": ["white", "red"]}])
    assert kinds == {"foul"}
    assert state.snapshot()["striker"] == "Bob"


@pytest.mark.parametrize(("options", "message"), [
    ({"discount": {"Ann": 50, "Cy": 20}}, "option discount names Cy, who is not playing"),
    ({"discount": {"Ann": 0}}, "option discount must be a table of players' points"),
    ({"discount": ["Ann", 50]}, "option discount must be"),
    ({"points": 0}, "option points must be a whole number 1-1000"),
])
def test_a_discount_game_names_only_players_with_their_points(options: dict[str, Any],
                                                              message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game(CAROM).new_state(["Ann", "Bob"], options)


@pytest.mark.parametrize(("game_id", "options", "message"), [
    ("balk-line-billiards", {"shots": 3}, "option shots must be 2 or 1"),
    ("balk-line-billiards", {"line": 16}, "option line must be one of 10, 12, 14, 18"),
    ("cushion-caroms", {"cushions": 4}, "option cushions must be a whole number 1-3"),
    ("three-cushion-billiards", {"penalties": "never"}, "option penalties must be"),
    ("man-of-war", {"miss": "all"}, "option miss must be 'next' or 'each'"),
])
def test_each_game_s_options_are_checked(game_id: str, options: dict[str, Any],
                                         message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game(game_id).new_state(players_for(game_id), options)


def test_man_of_war_is_for_three() -> None:
    with pytest.raises(IllegalEventError, match="played by 3 players, not 2"):
        get_game("man-of-war").new_state(["Ann", "Bob"])


def test_the_sheet_shows_each_player_s_ball_and_own_target() -> None:
    state = get_game(CAROM).new_state(["Ann", "Bob", "Cy"], {"discount": {"Cy": 10}})
    snapshot = state.snapshot()
    assert snapshot["targets"] == {"Ann": 34, "Bob": 34, "Cy": 10}
    # More players than whites share them in turn.
    assert snapshot["cue_balls"] == {"Ann": "white", "Bob": "spot-white", "Cy": "white"}
    assert snapshot["table"]["pins_up"] == []


def test_three_cushion_shows_what_a_player_owes_until_he_scores() -> None:
    safe = {"type": "stroke", "path": ["red", "cushion"], "safety": True}
    state, _ = play("three-cushion-billiards", ["Ann", "Bob"], None,
                    [safe, {"type": "count", "points": 0}, safe])
    snapshot = state.snapshot()
    assert snapshot["owed"] == {"Ann": 1, "Bob": 0}
    assert snapshot["safeties_in_row"] == {"Ann": 2, "Bob": 0}
    assert {s["player"]: s["total"] for s in snapshot["sheet"]} == {"Ann": 0, "Bob": 0}


def test_balk_line_asks_the_referee_for_the_balk_and_names_the_game() -> None:
    state = get_game("balk-line-billiards").new_state(["Ann", "Bob"], {"line": 14, "shots": 1})
    waits = state.awaiting()
    assert [(w.fact, w.source) for w in waits] == [("stroke", "referee")]
    assert "path, balk" in waits[0].detail
    assert state.snapshot()["balk_line"] == "14-1"


def test_the_little_corporal_s_pin_is_always_set_up_again() -> None:
    state, _ = play("little-corporal", ["Ann", "Bob"], None,
                    [{"type": "stroke", "path": ["red"], "pins": ["pin"]}])
    snapshot = state.snapshot()
    assert snapshot["table"]["pins_up"] == ["pin"]
    assert snapshot["sheet"][0]["total"] == 5


def test_a_ruling_on_a_ball_off_says_where_it_is_spotted() -> None:
    state = get_game(CAROM).new_state(["Ann", "Bob"])
    state.apply(state.parse_event({"type": "off", "ball": "red"}))
    operation = state.apply(state.parse_event({"type": "stroke", "path": ["red"]}))
    spot = next(r for r in operation.rulings if r.kind == "spot")
    assert "its own spot" in spot.text and spot.law.lines == (2864, 2883)
    assert "red" in state.snapshot()["table"]["on"]
