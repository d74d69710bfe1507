"""Base Ball with Dice: the simple way's outs, and the diamond's bases, outs and sides."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import State
from engine.registry import get_game


def play(game_id: str, throws: list[list[int]], players: tuple[str, ...] = ("Ann", "Bob"),
         options: dict[str, Any] | None = None) -> State:
    state = get_game(game_id).new_state(list(players), options)
    for dice in throws:
        state.apply(state.parse_event({"type": "throw", "dice": dice}))
    return state


def diamond(faces: list[int], **options: Any) -> dict[str, Any]:
    snap = play("base-ball-with-dice-diamond", [[f] for f in faces], options=options).snapshot()
    return {"bases": snap["bases"], "outs": snap["outs"], "runs": snap["runs"],
            "batting": snap["batting"]}


def test_nine_outs_each_give_every_player_nine_innings() -> None:
    state = play("base-ball-with-dice", [[2, 2, 2]] * 17, players=("Ann", "Bob"))
    assert state.snapshot()["outs"] == {"Ann": 9, "Bob": 8}
    assert state.snapshot()["caster"] == "Bob"
    state.apply(state.parse_event({"type": "throw", "dice": [3, 3, 3]}))
    assert state.snapshot()["over"] is True


@pytest.mark.parametrize(("faces", "bases", "runs"), [
    ([1, 1], [True, True, False], 0),
    ([1, 3], [False, False, True], 1),
    ([2, 2], [False, True, True], 0),
    ([2, 1], [True, True, False], 0),
    ([3, 1], [True, False, True], 0),
    ([1, 1, 1, 1], [True, True, True], 1),
    ([1, 2, 4], [False, False, False], 3),
])
def test_men_are_pushed_round_by_the_striker(faces: list[int], bases: list[bool],
                                             runs: int) -> None:
    found = diamond(faces)
    assert (found["bases"], found["runs"][0]) == (bases, runs)


@pytest.mark.parametrize(("faces", "bases", "runs"), [
    ([2, 1], [True, False, True], 0),
    ([1, 1], [True, True, False], 0),
    ([3, 1], [True, False, False], 1),
    ([1, 1, 2], [False, True, True], 1),
])
def test_house_rule_advance_moves_every_man_as_far_as_the_striker(
        faces: list[int], bases: list[bool], runs: int) -> None:
    found = diamond(faces, runners="advance")
    assert (found["bases"], found["runs"][0]) == (bases, runs)


@pytest.mark.parametrize(("faces", "bases", "outs"), [
    ([5], [False, False, False], 1),
    ([1, 5], [False, False, False], 2),
    ([2, 5], [False, False, False], 2),
    ([3, 5], [False, False, True], 1),
    ([1, 1, 5], [True, False, False], 2),
    ([3, 2, 5], [False, True, True], 1),
    ([3, 1, 5], [False, False, True], 2),
    ([1, 1, 1, 5], [False, True, True], 2),
    ([1, 6], [True, False, False], 1),
])
def test_the_fly_ball_and_the_six(faces: list[int], bases: list[bool], outs: int) -> None:
    found = diamond(faces)
    assert (found["bases"], found["outs"]) == (bases, outs)


def test_the_striker_out_third_leaves_the_men_alone_and_retires_the_side() -> None:
    found = diamond([6, 6, 1, 1, 5])
    assert found == {"bases": [False, False, False], "outs": 0, "runs": [0, 0], "batting": 1}


def test_sides_are_dealt_alternately_and_strike_in_turn() -> None:
    state = play("base-ball-with-dice-diamond", [[6], [6]], players=("Ann", "Bob", "Cy", "Di"))
    snap = state.snapshot()
    assert snap["sides"] == [["Ann", "Cy"], ["Bob", "Di"]]
    assert snap["caster"] == "Ann"
    state.apply(state.parse_event({"type": "throw", "dice": [6]}))
    assert state.snapshot()["caster"] == "Bob"


def test_a_lone_player_bats_his_innings_alone() -> None:
    state = play("base-ball-with-dice-diamond", [[4], [6], [6], [6]], players=("Ann",),
                 options={"innings": 1})
    outcome = state.outcome()
    assert outcome is not None
    assert (outcome.winners, dict(outcome.scores)) == (("Ann",), {"Ann": 1})
