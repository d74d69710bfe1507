"""Cow-boy pool: what the book vectors do not show.

Bad input is refused with a message naming it and the log kept; the engine asks for the
designated pocket at 100; the options reach past 100 as well as 90; rule 9's succession is
broken by a stroke that strikes a ball; the snapshot shows the phases and the ball in hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.billiards.carom import LAW_MOVING
from engine.billiards.cow_boy import LAW_REST_100
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game
from tests.engine.book_vectors import play

GAME = "cow-boy-pool"


def stroke(*path: str) -> dict[str, Any]:
    return {"type": "stroke", "path": list(path)}


def pocket(ball: int | str, where: str = "foot-left") -> dict[str, Any]:
    return {"type": "pocket", "ball": ball, "pocket": where}


#: Ann's first hand of 88 (eight strokes of a double carom and the three balls), kept safe
#: by a stroke that counts nothing; Bob's hand of nothing.
SAFE_88 = [*[pocket(1), pocket(3, "foot-right"), pocket(5, "side-left"),
             stroke("3", "1", "5")] * 8, stroke("3"), stroke("3")]
DOUBLE = stroke("3", "1", "5")
AT_99 = [*SAFE_88, DOUBLE, *[stroke("3", "1")] * 9]
AT_100 = [*SAFE_88, *[DOUBLE] * 6]
CALL = {"type": "call", "ball": 1, "pocket": "foot-left"}

BAD_EVENTS: list[tuple[list[dict[str, Any]], dict[str, Any], str]] = [
    ([], pocket(2), "ball '2' is not in the set of Cow-Boy Pool"),
    ([], pocket(5, "corner"), "no pocket 'corner'"),
    ([pocket(5)], pocket(5, "side-right"), "ball 5 is not on the table"),
    ([], {"type": "stroke"}, "needs the fact 'path'"),
    ([], {"type": "stroke", "path": ["3", "cue"]}, "cannot be in its own path"),
    ([], {"type": "stroke", "path": ["3", 7]}, "ball '7' is not in the set"),
    ([], {**stroke("3"), "player": "Bob"}, "out of turn"),
    ([], {**CALL, "player": "Bob"}, "out of turn"),
    ([], {"type": "foul", "kind": "wrong-ball"}, "no foul 'wrong-ball'"),
    ([], {"type": "count", "points": 1}, "has no 'count' event"),
    ([], CALL, "designated only for the last point, at 100"),
    (AT_100, {"type": "call", "ball": 3, "pocket": "foot-left"}, "call the 1-ball"),
    (AT_100, {"type": "call", "ball": 1}, "call the 1-ball with a pocket"),
    (AT_100, {"type": "call", "ball": 1, "pocket": "middle"}, "no pocket 'middle'"),
    ([*AT_100, CALL], {**CALL, "pocket": "side-left"}, "foot-left is already designated"),
    ([*AT_100, pocket("cue")], CALL, "call before the stroke"),
    ([*AT_100, CALL, pocket("cue"), stroke("1")], stroke("3"), "the game is over"),
]


@pytest.mark.parametrize(("events", "bad", "message"), BAD_EVENTS,
                         ids=[message for _, _, message in BAD_EVENTS])
def test_bad_events_are_refused_and_the_log_kept(events: list[dict[str, Any]],
                                                 bad: dict[str, Any], message: str) -> None:
    state, _ = play(GAME, ["Ann", "Bob"], None, events)
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.save() == before


def test_bad_option_is_refused() -> None:
    with pytest.raises(BadOptionError, match="option overshoot must be 'void' or 'stand'"):
        get_game(GAME).new_state(["Ann", "Bob"], {"overshoot": "keep"})


def test_at_100_the_engine_asks_for_the_designated_pocket() -> None:
    state, _ = play(GAME, ["Ann", "Bob"], None, AT_100)
    assert [w.fact for w in state.awaiting()] == ["stroke", "pocket", "call"]
    assert state.snapshot()["phases"] == {"Ann": "last point", "Bob": "open"}
    state.apply(state.parse_event(CALL))
    assert [w.fact for w in state.awaiting()] == ["stroke", "pocket"]
    assert state.snapshot()["called"] == "foot-left"


def test_before_100_no_call_is_awaited() -> None:
    state, _ = play(GAME, ["Ann", "Bob"], None, [*SAFE_88, DOUBLE])
    assert [w.fact for w in state.awaiting()] == ["stroke", "pocket"]
    assert state.snapshot()["phases"]["Ann"] == "caroms"


@pytest.mark.parametrize(("overshoot", "score", "striker"), [("void", 99, "Bob"),
                                                             ("stand", 100, "Ann")])
def test_a_double_carom_at_99_is_ruled_by_the_overshoot_option(overshoot: str, score: int,
                                                               striker: str) -> None:
    state, kinds = play(GAME, ["Ann", "Bob"], {"overshoot": overshoot}, [*AT_99, DOUBLE])
    snapshot = state.snapshot()
    assert snapshot["sheet"][0]["total"] == score
    assert snapshot["striker"] == striker
    assert ("stand" if overshoot == "stand" else "over") in kinds


def test_a_stroke_that_strikes_a_ball_breaks_the_succession_of_rule_9() -> None:
    bare = [pocket("cue"), stroke()]
    events = [*bare, stroke("3"), stroke("3", "1"), pocket("cue"), stroke("3"), stroke("3"),
              *bare]
    state, kinds = play(GAME, ["Ann", "Bob"], None, events)
    assert state.outcome() is None
    assert "winner" not in kinds
    assert state.snapshot()["bare_scratch"] == ["Ann"]


def test_the_next_player_has_the_ball_in_hand_after_a_scratch() -> None:
    state, _ = play(GAME, ["Ann", "Bob"], None, [stroke("3", "1"), pocket("cue"),
                                                 stroke("3", "1")])
    snapshot = state.snapshot()
    assert snapshot["in_hand"] is True
    assert snapshot["striker"] == "Bob"
    assert snapshot["table"]["on"].count("cue") == 1
    state.apply(state.parse_event(stroke("3")))
    assert state.snapshot()["in_hand"] is False


def test_a_stroke_while_the_balls_move_cites_the_law_of_the_phase() -> None:
    moving = {"type": "foul", "kind": "moving-ball"}
    state, _ = play(GAME, ["Ann", "Bob"], None, [stroke("3")])
    state.apply(state.parse_event(moving))
    [ruling] = state.apply(state.parse_event(stroke("1", "3"))).rulings
    assert (ruling.kind, ruling.law) == ("foul", LAW_MOVING)
    state, _ = play(GAME, ["Ann", "Bob"], None, [*AT_100, moving])
    [ruling] = state.apply(state.parse_event(stroke("1"))).rulings
    assert (ruling.kind, ruling.amount, ruling.law) == ("foul", -12, LAW_REST_100)


def test_the_last_point_must_be_a_clean_stroke() -> None:
    events = [*AT_100, CALL, {"type": "foul", "kind": "push"}, pocket("cue"), stroke("1")]
    state, kinds = play(GAME, ["Ann", "Bob"], None, events)
    assert "foul" in kinds and state.outcome() is None
    assert state.snapshot()["sheet"][0]["total"] == 88


def test_a_player_out_of_the_game_is_skipped_until_one_is_left() -> None:
    bare = [pocket("cue"), stroke()]
    events = [*bare, stroke("3"), stroke("3"), *bare, *bare, stroke("3"), *bare]
    state, _ = play(GAME, ["Ann", "Bob", "Cy"], None, events)
    assert state.snapshot()["out"] == ["Ann", "Bob"]
    outcome = state.outcome()
    assert outcome is not None and list(outcome.winners) == ["Cy"]
