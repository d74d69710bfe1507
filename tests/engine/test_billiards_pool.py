"""The pool group of cue games: what the book vectors do not show.

Bad input is refused with a message naming it and the log kept; the snapshot shows what a
player asks about (balls owed, the frame's aggregate, the payers, who is dead) and hides
what he must not see (the small balls' numbers).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.billiards.kelly import KellyState
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game
from tests.engine.book_vectors import play

KELLY_DRAWN = [{"type": "private", "player": "Ann", "number": 7},
               {"type": "private", "player": "Bob", "number": 3}]
PYRAMID_OPENED = [{"type": "pocket", "ball": 1, "pocket": "foot-left"},
                  {"type": "stroke", "path": ["15"], "driven": 2}]

BAD_EVENTS: list[tuple[str, list[dict[str, Any]], dict[str, Any], str]] = [
    ("american-pyramid-pool", [], {"type": "pocket", "ball": 16, "pocket": "foot-left"},
     "ball '16' is not in the set"),
    ("american-pyramid-pool", [], {"type": "pocket", "ball": 5, "pocket": "middle"},
     "no pocket 'middle'"),
    ("american-pyramid-pool", PYRAMID_OPENED,
     {"type": "pocket", "ball": 1, "pocket": "foot-right"}, "ball 1 is not on the table"),
    ("american-pyramid-pool", [], {"type": "call", "ball": 7},
     "the opening stroke needs no call"),
    ("american-pyramid-pool", [*PYRAMID_OPENED, {"type": "call", "ball": 7}],
     {"type": "call", "ball": 7}, "ball 7 is already called"),
    ("american-pyramid-pool", [*PYRAMID_OPENED,
                               {"type": "pocket", "ball": 7, "pocket": "foot-left"}],
     {"type": "call", "ball": 8}, "call before the stroke"),
    ("american-pyramid-pool", PYRAMID_OPENED, {"type": "call", "ball": 7, "player": "Bob"},
     "out of turn"),
    ("american-pyramid-pool", [], {"type": "stroke", "path": ["15"]},
     "needs the fact 'driven'"),
    ("american-pyramid-pool", [], {"type": "foul", "kind": "no-foot"}, "no foul 'no-foot'"),
    ("continuous-pool", PYRAMID_OPENED, {"type": "call", "ball": "cue"},
     "not an object ball on the table"),
    ("chicago-pool", [], {"type": "stroke", "path": ["1"]}, "needs the fact 'driven'"),
    ("chicago-pool", [], {"type": "call", "ball": 1}, "has no 'call' event"),
    ("high-low-jack-pool", [], {"type": "stroke", "path": ["1", "bottle"], "driven": 0},
     "ball 'bottle' is not in the set"),
    ("high-low-jack-pool", [], {"type": "private", "player": "Ann", "number": 3},
     "has no 'private' event"),
    ("american-pyramid-pool", PYRAMID_OPENED, {"type": "stroke", "path": [], "driven": 1},
     "driven is 1, but the path .* strikes no ball"),
    ("continuous-pool", PYRAMID_OPENED,
     {"type": "stroke", "path": ["cushion", "cushion"], "driven": 2},
     r"driven is 2, but the path \['cushion', 'cushion'\] strikes no ball"),
    ("chicago-pool", [], {"type": "stroke", "path": ["cushion"], "driven": 1},
     "a miss drives no ball to a cushion"),
    ("high-low-jack-pool", [], {"type": "stroke", "path": [], "driven": 3},
     "a miss drives no ball to a cushion"),
    ("kelly-rotation", [], {"type": "pocket", "ball": 1, "pocket": "foot-left"},
     "Ann, Bob has not"),
    ("kelly-rotation", KELLY_DRAWN[:1], {"type": "stroke", "path": ["1"]}, "Bob has not"),
    ("kelly-rotation", [], {"type": "private", "player": "Ann", "number": 16},
     "number must be a whole number 1-15"),
    ("kelly-rotation", KELLY_DRAWN[:1], {"type": "private", "player": "Ann", "number": 9},
     "Ann already holds a small ball"),
    ("kelly-rotation", KELLY_DRAWN[:1], {"type": "private", "player": "Bob", "number": 7},
     "small ball 7 is already drawn"),
    ("kelly-rotation", [], {"type": "private", "player": "Dan", "number": 2},
     "unknown player 'Dan'"),
    ("kelly-rotation", KELLY_DRAWN, {"type": "stroke", "path": ["1"], "player": "Bob"},
     "out of turn"),
    ("kelly-rotation", KELLY_DRAWN, {"type": "stroke", "driven": 1},
     "needs the fact 'path'"),
]


@pytest.mark.parametrize(("game_id", "events", "bad", "message"), BAD_EVENTS,
                         ids=[f"{g}: {m}" for g, _, _, m in BAD_EVENTS])
def test_bad_events_are_refused_and_the_log_kept(game_id: str, events: list[dict[str, Any]],
                                                 bad: dict[str, Any], message: str) -> None:
    state, _ = play(game_id, ["Ann", "Bob"], None, events)
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.save() == before


@pytest.mark.parametrize(("game_id", "options", "message"), [
    ("continuous-pool", {"points": 0}, "option points must be a whole number 1-1000"),
    ("continuous-pool", {"night": "first"}, "option night must be 'final' or 'quota'"),
    ("chicago-pool", {"opening": "match"}, "no option 'opening'"),
    ("high-low-jack-pool", {"points": 1}, "option points must be a whole number 2-21"),
    ("kelly-rotation", {"forfeit": -1}, "option forfeit must be a whole number 0-100"),
    ("kelly-rotation", {"double_header": 1}, "option double_header must be False or True"),
])
def test_bad_options_are_refused(game_id: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game(game_id).new_state(["Ann", "Bob"], options)


def test_pyramid_shows_the_ball_owed_until_it_is_paid() -> None:
    state, _ = play("american-pyramid-pool", ["Ann", "Bob"], None,
                    [{"type": "stroke", "path": ["15"], "driven": 0}])
    assert state.snapshot()["owed"] == {"Ann": 1, "Bob": 0}
    for data in [{"type": "stroke", "path": ["2"], "driven": 1},
                 {"type": "call", "ball": 4},
                 {"type": "pocket", "ball": 4, "pocket": "foot-left"},
                 {"type": "stroke", "path": ["4"], "driven": 0}]:
        state.apply(state.parse_event(data))
    snapshot = state.snapshot()
    assert snapshot["owed"] == {"Ann": 0, "Bob": 0}
    assert "4" in snapshot["table"]["on"]
    assert snapshot["credited"] == {"Ann": [], "Bob": []}


def test_pyramid_a_forfeit_spots_the_offenders_last_ball() -> None:
    state, _ = play("american-pyramid-pool", ["Ann", "Bob"], None, [
        {"type": "pocket", "ball": 2, "pocket": "foot-left"},
        {"type": "pocket", "ball": 9, "pocket": "foot-right"},
        {"type": "stroke", "path": ["15"], "driven": 0},
        {"type": "stroke", "path": []}])
    snapshot = state.snapshot()
    assert snapshot["credited"]["Ann"] == ["2"]
    assert "9" in snapshot["table"]["on"]


def test_continuous_pool_racks_again_for_the_clearer_whose_next_stroke_is_an_opening() -> None:
    events = [{"type": "pocket", "ball": n, "pocket": "foot-left"} for n in range(1, 16)]
    state, kinds = play("continuous-pool", ["Ann", "Bob"], None,
                        [*events, {"type": "stroke", "path": ["1"], "driven": 0}])
    assert "rack" in kinds
    snapshot = state.snapshot()
    assert snapshot["frame"] == 2 and snapshot["opened"] is False
    assert snapshot["striker"] == "Ann"
    with pytest.raises(IllegalEventError, match="opening stroke needs no call"):
        state.apply(state.parse_event({"type": "call", "ball": 3}))


def test_chicago_names_the_payers_in_the_snapshot() -> None:
    scratch = {"type": "stroke", "path": ["9"], "driven": 1}
    safe = {"type": "stroke", "path": ["1"], "driven": 1}
    state, _ = play("chicago-pool", ["Ann", "Bob"], None, [scratch, safe] * 2 + [scratch])
    snapshot = state.snapshot()
    assert snapshot["over"] and snapshot["winners"] == ["Bob"]
    assert snapshot["payers"] == {"refreshments": ["Ann"], "game": ["Bob"]}


def test_chicago_counts_a_ball_only_after_the_lowest_is_hit() -> None:
    state, _ = play("chicago-pool", ["Ann", "Bob"], None, [
        {"type": "pocket", "ball": 1, "pocket": "foot-left"},
        {"type": "pocket", "ball": 2, "pocket": "foot-left"},
        {"type": "stroke", "path": ["2"], "driven": 0}])
    assert state.snapshot()["sheet"][0]["total"] == -3
    assert {"1", "2"} <= set(state.snapshot()["table"]["on"])


def test_high_low_jack_forfeits_come_off_the_aggregate_not_the_points() -> None:
    state, _ = play("high-low-jack-pool", ["Ann", "Bob"], None, [
        {"type": "pocket", "ball": 15, "pocket": "foot-left"},
        {"type": "stroke", "path": ["15"], "driven": 0},
        {"type": "pocket", "ball": "cue", "pocket": "foot-left"},
        {"type": "stroke", "path": ["3"], "driven": 1}])
    snapshot = state.snapshot()
    assert snapshot["aggregate"] == {"Ann": 12, "Bob": 0}
    assert snapshot["sheet"][0]["total"] == 1
    assert snapshot["striker"] == "Bob"


def test_kelly_keeps_the_small_balls_private_and_shows_the_dead() -> None:
    play_on: list[dict[str, Any]] = [{"type": "pocket", "ball": 1, "pocket": "foot-left"},
                                     {"type": "stroke", "path": ["1"]}]
    other_draw: list[dict[str, Any]] = [{"type": "private", "player": "Ann", "number": 12},
                  {"type": "private", "player": "Bob", "number": 5}]
    state, _ = play("kelly-rotation", ["Ann", "Bob"], None, [*KELLY_DRAWN, *play_on])
    other, _ = play("kelly-rotation", ["Ann", "Bob"], None, [*other_draw, *play_on])
    assert state.snapshot() == other.snapshot()
    assert state.snapshot()["private_drawn"] == ["Ann", "Bob"]
    assert isinstance(state, KellyState)
    assert state.disclosed() == {}
    state.apply(state.parse_event({"type": "pocket", "ball": 3, "pocket": "foot-left"}))
    state.apply(state.parse_event({"type": "stroke", "path": ["2"]}))
    assert state.snapshot()["dead"] == ["Bob"]
    # Bob declares himself dead and surrenders his small ball: its number is known to all.
    assert state.disclosed() == {"Bob": 3}


def test_kelly_waits_for_every_small_ball_before_play() -> None:
    state = get_game("kelly-rotation").new_state(["Ann", "Bob", "Cy"])
    assert [(a.fact, a.player) for a in state.awaiting()] == [
        ("private", "Ann"), ("private", "Bob"), ("private", "Cy")]
    assert {event.type for event in state.legal_events()} == {"private"}
    state.apply(state.parse_event({"type": "private", "player": "Bob", "number": 4}))
    assert [a.player for a in state.awaiting()] == ["Ann", "Cy"]


def test_kelly_a_dead_player_plays_on_and_may_kill() -> None:
    state, kinds = play("kelly-rotation", ["Ann", "Bob"], None, [
        *KELLY_DRAWN,
        {"type": "pocket", "ball": 1, "pocket": "foot-left"},
        {"type": "pocket", "ball": 7, "pocket": "foot-left"},
        {"type": "pocket", "ball": "cue", "pocket": "side-left"},
        {"type": "stroke", "path": ["1"]},
        {"type": "pocket", "ball": 1, "pocket": "foot-left"},
        {"type": "pocket", "ball": 7, "pocket": "foot-left"},
        {"type": "stroke", "path": ["1"]},
        {"type": "stroke", "path": ["2"]},
        {"type": "pocket", "ball": 2, "pocket": "foot-left"},
        {"type": "pocket", "ball": 3, "pocket": "foot-left"},
        {"type": "stroke", "path": ["2"]}])
    assert "dead" in kinds
    snapshot = state.snapshot()
    assert snapshot["dead"] == ["Ann", "Bob"]
    assert [s["total"] for s in snapshot["sheet"]] == [-2, -1]
    assert state.outcome() is None and snapshot["striker"] == "Ann"
