"""The English-table cue games: bad input refused with the log kept, and what vectors miss.

English billiards, carlin, snooker pool, colour-ball pool and English pyramids; their book
vectors are in vectors/billiards/<id>.toml.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.billiards.english_common import buttons
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game
from tests.engine.book_vectors import play

Events = list[dict[str, Any]]

RED_DOWN: Events = [{"type": "pocket", "ball": "red", "pocket": "foot-left"},
                    {"type": "stroke", "path": ["red"]}]
ALL_REDS: Events = [*({"type": "pocket", "ball": "red", "pocket": "side-left"}
                      for _ in range(15)), {"type": "stroke", "path": ["red"]}]
#: (game, players, events played first, the bad event, what the refusal must name)
BAD_EVENTS: list[tuple[str, list[str], list[dict[str, Any]], dict[str, Any], str]] = [
    ("english-billiards", ["Ann", "Bob"], [],
     {"type": "pocket", "ball": "yellow", "pocket": "foot-left"},
     "ball 'yellow' is not in the set"),
    ("english-billiards", ["Ann", "Bob"], [],
     {"type": "pocket", "ball": "red", "pocket": "middle"}, "no pocket 'middle'"),
    ("english-billiards", ["Ann", "Bob"],
     [{"type": "pocket", "ball": "red", "pocket": "foot-left"}],
     {"type": "pocket", "ball": "red", "pocket": "foot-right"}, "ball red is not on the table"),
    ("english-billiards", ["Ann", "Bob"], [], {"type": "stroke", "path": ["white", "red"]},
     "cannot strike itself"),
    ("english-billiards", ["Ann", "Bob"],
     [{"type": "pocket", "ball": "spot-white", "pocket": "foot-left"},
      {"type": "stroke", "path": ["spot-white"]}],
     {"type": "stroke", "path": ["spot-white"]}, "the spot-white, which is in hand"),
    ("english-billiards", ["Ann", "Bob"], [], {"type": "stroke"}, "needs the fact 'path'"),
    ("english-billiards", ["Ann", "Bob"], [],
     {"type": "stroke", "path": ["red"], "player": "Bob"}, "out of turn"),
    ("english-billiards", ["Ann", "Bob"], [], {"type": "count", "points": 2},
     "has no 'count' event"),
    ("carlin", ["Ann", "Bob"], [], {"type": "pocket", "ball": "pink", "pocket": "side-left"},
     "ball 'pink' is not in the set"),
    ("carlin", ["Ann", "Bob"], [], {"type": "foul", "kind": "wrong-ball"},
     "no foul 'wrong-ball'"),
    ("carlin", ["Ann", "Bob"], [], {"type": "call", "ball": "black"}, "has no 'call' event"),
    ("snooker-pool", ["Ann", "Bob"], ALL_REDS,
     {"type": "pocket", "ball": "red", "pocket": "foot-left"}, "ball red is not on the table"),
    ("snooker-pool", ["Ann", "Bob"], [], {"type": "call", "ball": "pink"},
     "is on the red; a colour is named only after a red"),
    ("snooker-pool", ["Ann", "Bob"], RED_DOWN, {"type": "call", "ball": "red"},
     "plays on a colour, not the red"),
    ("snooker-pool", ["Ann", "Bob"], RED_DOWN, {"type": "stroke", "path": []},
     "needs a call first: the colour the striker played on"),
    ("snooker-pool", ["Ann", "Bob"], [], {"type": "stroke", "path": ["cue"]},
     "ball cue, which was not on the table"),
    ("snooker-pool", ["Ann", "Bob"], [*RED_DOWN, {"type": "call", "ball": "pink"}],
     {"type": "call", "ball": "black"}, "already named"),
    ("color-ball-pool", ["Ann", "Bob"], [],
     {"type": "pocket", "ball": "pink", "pocket": "side-left"},
     "ball 'pink' is not in the set of this pool"),
    ("color-ball-pool", ["Ann", "Bob"], [], {"type": "call", "ball": "white"},
     "plays at the white, the last ball played"),
    ("color-ball-pool", ["Ann", "Bob", "Cy"], [{"type": "stroke", "path": ["white"]}],
     {"type": "stroke", "path": ["white"]}, "needs a call first"),
    ("color-ball-pool", ["Ann", "Bob", "Cy"], [{"type": "stroke", "path": ["white"]}],
     {"type": "call", "ball": "yellow"}, "ball yellow was not an object ball"),
    ("color-ball-pool", ["Ann", "Bob"], [], {"type": "star", "player": "Ann", "buy": True},
     "Ann may not star now"),
    ("english-pyramids", ["Ann", "Bob"], [], {"type": "stroke", "path": ["cue"]},
     "cannot strike itself"),
    ("english-pyramids", ["Ann", "Bob"],
     [*({"type": "pocket", "ball": "red", "pocket": "head-left"} for _ in range(15))],
     {"type": "pocket", "ball": "red", "pocket": "head-right"}, "ball red is not on the table"),
    ("english-pyramids", ["Ann", "Bob"], [],
     {"type": "pocket", "ball": "black", "pocket": "head-right"},
     "ball 'black' is not in the set"),
]


@pytest.mark.parametrize(("game_id", "players", "events", "bad", "message"), BAD_EVENTS,
                         ids=[f"{g}: {m}" for g, _, _, _, m in BAD_EVENTS])
def test_bad_events_are_refused_and_the_log_kept(game_id: str, players: list[str],
                                                 events: list[dict[str, Any]],
                                                 bad: dict[str, Any], message: str) -> None:
    state, _ = play(game_id, players, None, events)
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.save() == before


@pytest.mark.parametrize(("points", "shown"), [(23, 5), (22, 4), (0, 0), (2, 0), (3, 1),
                                               (-7, -1), (-8, -2)])
def test_carlin_button_string_counts_each_five_to_the_nearest(points: int, shown: int) -> None:
    assert buttons(points) == shown


def test_carlin_snapshot_shows_the_buttons() -> None:
    events: Events = [{"type": "pocket", "ball": "black", "pocket": "foot-left"},
                      {"type": "stroke", "path": ["black", "red"]}]
    state, _ = play("carlin", ["Ann", "Bob"], None, events)
    assert state.snapshot()["buttons"] == {"Ann": 2, "Bob": 0}


def test_snooker_colour_is_spotted_while_reds_remain_and_not_after() -> None:
    black: Events = [{"type": "pocket", "ball": "black", "pocket": "foot-left"},
                     {"type": "stroke", "path": ["black"]}]
    state, _ = play("snooker-pool", ["Ann", "Bob"], None, [*RED_DOWN, *black])
    assert "black" in state.snapshot()["table"]["on"]
    yellow: Events = [{"type": "pocket", "ball": "yellow", "pocket": "head-left"},
                      {"type": "stroke", "path": ["yellow"]}]
    state, _ = play("snooker-pool", ["Ann", "Bob"], None, [*ALL_REDS, *yellow])
    snapshot = state.snapshot()
    assert "yellow" not in snapshot["table"]["on"]
    assert snapshot["on"] == "green"
    assert snapshot["sheet"][0]["total"] == 17


def test_snooker_asks_the_referee_for_the_colour_when_no_colour_was_struck() -> None:
    state, _ = play("snooker-pool", ["Ann", "Bob"], None, RED_DOWN)
    assert {e.to_json()["ball"] for e in state.legal_events() if e.type == "call"} == {
        "yellow", "green", "brown", "blue", "pink", "black"}


def test_color_ball_play_waits_for_the_star_answer() -> None:
    out_ann: Events = [{"type": "pocket", "ball": "white", "pocket": "foot-left"},
                       {"type": "stroke", "path": ["white"]},
                       {"type": "stroke", "path": []},
                       {"type": "call", "ball": "red"},
                       {"type": "stroke", "path": ["red"]},
                       {"type": "call", "ball": "green"},
                       {"type": "stroke", "path": []},
                       {"type": "call", "ball": "white"},
                       {"type": "pocket", "ball": "white", "pocket": "side-right"},
                       {"type": "stroke", "path": ["white"]}]
    state, _ = play("color-ball-pool", ["Ann", "Bob", "Cy", "Dan"], None, out_ann)
    assert [a.fact for a in state.awaiting()] == ["star"]
    before = state.save()
    with pytest.raises(IllegalEventError, match="Ann must first say whether he stars"):
        state.apply(state.parse_event({"type": "stroke", "path": ["red"]}))
    assert state.save() == before
    state.apply(state.parse_event({"type": "star", "player": "Ann", "buy": True}))
    assert state.snapshot()["starred"] == "Ann"
    assert state.snapshot()["star_offer"] is None


def test_color_ball_star_needs_a_yes_or_no() -> None:
    state = get_game("color-ball-pool").new_state(["Ann", "Bob"])
    with pytest.raises(IllegalEventError, match="buy must be true or false"):
        state.parse_event({"type": "star", "player": "Ann", "buy": "yes"})


def test_color_ball_gives_each_player_his_ball_in_the_board_order() -> None:
    state = get_game("color-ball-pool").new_state([f"P{n}" for n in range(12)])
    balls = state.snapshot()["balls"]
    assert (balls["P0"], balls["P1"], balls["P6"], balls["P11"]) == (
        "white", "red", "pink", "spot-brown")


def test_english_billiards_three_players_take_the_white_their_predecessor_did_not() -> None:
    state, _ = play("english-billiards", ["Ann", "Bob", "Cy"], None,
                    [{"type": "stroke", "path": ["red"]}, {"type": "stroke", "path": ["red"]}])
    assert state.snapshot()["striker"] == "Cy"
    assert state.snapshot()["cue_ball"] == "white"


@pytest.mark.parametrize(("game_id", "options", "message"), [
    ("english-billiards", {"game": 0}, "option game must be"),
    ("carlin", {"forfeits": "halved"}, "option forfeits must be"),
    ("snooker-pool", {"object": "middle"}, "option object must be"),
    ("color-ball-pool", {"divide": "yes"}, "option divide must be"),
    ("english-pyramids", {"reds": 14}, "option reds must be"),
])
def test_bad_options_are_refused(game_id: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game(game_id).new_state(["Ann", "Bob"], options)
