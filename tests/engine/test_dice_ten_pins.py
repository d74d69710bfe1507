"""Ten-Pins with Dice: leaving a die, the frame counts, the tenth frame and the end."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import State
from engine.errors import IllegalEventError
from engine.registry import get_game


def play(events: list[dict[str, Any]], players: tuple[str, ...] = ("Ann",),
         options: dict[str, Any] | None = None) -> State:
    state = get_game("ten-pins-with-dice").new_state(list(players), options)
    for data in events:
        state.apply(state.parse_event({"type": "throw", **data}))
    return state


def both(a: int, b: int) -> dict[str, Any]:
    return {"dice": [a, b]}


def counts(state: State, player: str = "Ann") -> list[int | None]:
    return [box["count"] for box in state.snapshot()["boxes"][player]]


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], {"dice": [4], "hold": 6}, "only for the second cast of a frame"),
    ([both(6, 1)], {"dice": [4], "hold": 1}, "only the best die of the first cast, the 6"),
    ([both(6, 1)], {"dice": [4, 2], "hold": 6}, "throws one die"),
    ([both(6, 1)], {"dice": [4], "hold": 7}, "hold must be the face of the die left, 1-6"),
    ([both(6, 1)], {"dice": [4]}, "played with 2 dice, got 1"),
])
def test_a_die_left_must_be_the_best_of_the_first_cast(events: list[dict[str, Any]],
                                                       bad: dict[str, Any],
                                                       message: str) -> None:
    state = play(events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event({"type": "throw", **bad}))
    assert state.snapshot() == before


def test_either_die_of_a_doublet_may_be_left() -> None:
    state = play([both(3, 3), {"dice": [4], "hold": 3}])
    assert counts(state) == [7]


def test_a_strike_waits_for_the_next_frame_and_two_strikes_for_the_third() -> None:
    state = play([both(6, 4)])
    assert counts(state) == [None]
    state = play([both(6, 4), both(5, 5), both(6, 6)])
    assert counts(state) == [30, None, None]
    state = play([both(6, 4), both(5, 5), both(3, 1), both(2, 1)])
    assert counts(state) == [24, 13, 3]
    assert state.snapshot()["sheet"][0]["total"] == 40


def test_a_second_cast_of_eleven_is_a_spare_by_default_and_nothing_by_house_rule() -> None:
    assert counts(play([both(4, 1), both(5, 6), both(2, 2)])) == [14, None]
    house = play([both(4, 1), both(5, 6), both(2, 2)], options={"over_ten": "none-down"})
    assert counts(house) == [0, None]


def test_a_tenth_frame_strike_brings_two_more_casts() -> None:
    nine_open = [both(1, 1), both(1, 1)] * 9
    state = play([*nine_open, both(6, 4), both(2, 2)])
    assert state.snapshot()["over"] is False
    assert state.awaiting()[0].detail == "frame 10, second cast"
    state.apply(state.parse_event({"type": "throw", "dice": [5], "hold": 2}))
    assert state.snapshot()["over"] is True
    assert counts(state)[9] == 17


def test_players_take_frames_in_turn_and_a_tie_shares_the_win() -> None:
    frames = []
    for _ in range(10):
        frames.extend([both(2, 1), both(1, 1), both(2, 1), both(1, 1)])
    state = play(frames, players=("Ann", "Bob"))
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winners == ("Ann", "Bob")
    assert dict(outcome.scores) == {"Ann": 20, "Bob": 20}
