"""Drop Dead: the dice left, the turn's end, throw-offs and exact chances."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from engine.core import State
from engine.dice.core import chance
from engine.dice.drop_dead import DEAD
from engine.errors import IllegalEventError
from engine.registry import get_game


def play(events: list[list[int]], players: tuple[str, ...] = ("Ann", "Bob")) -> State:
    state = get_game("drop-dead").new_state(list(players))
    for dice in events:
        state.apply(state.parse_event({"type": "throw", "dice": dice}))
    return state


def test_only_the_dice_left_may_be_thrown() -> None:
    state = play([[2, 5, 1, 1, 1]])
    assert state.snapshot()["dice_left"] == 3
    with pytest.raises(IllegalEventError, match="Ann has 3 dice left to throw, got 5"):
        state.parse_event({"type": "throw", "dice": [1, 1, 1, 1, 1]})
    assert {len(getattr(e, "dice", ())) for e in state.legal_events() if e.type == "throw"} == {3}


def test_the_box_passes_with_five_dice_to_the_next_player() -> None:
    state = play([[2, 2, 2, 2, 2]])
    snap = state.snapshot()
    assert (snap["caster"], snap["dice_left"]) == ("Bob", 5)


def test_a_lone_player_wins_his_own_game_and_nothing_is_lost() -> None:
    state = play([[6, 6, 6, 6, 6], [2, 2, 2, 2, 2]], players=("Ann",))
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winners == ("Ann",)
    assert dict(outcome.scores) == {"Ann": 30}


def test_throw_off_is_played_by_the_tied_only() -> None:
    state = play([[2, 2, 2, 2, 2], [5, 5, 5, 5, 5], [6, 6, 6, 6, 6]],
                 players=("Ann", "Bob", "Cy"))
    state.apply(state.parse_event({"type": "throw", "dice": [2, 2, 2, 2, 2]}))
    snap = state.snapshot()
    assert snap["over"] is True
    assert snap["winners"] == ["Cy"]
    state = play([[3, 3, 3, 3, 3], [2, 2, 2, 2, 2], [3, 3, 3, 3, 3], [2, 2, 2, 2, 2],
                  [2, 2, 2, 2, 2]], players=("Ann", "Bob", "Cy"))
    snap = state.snapshot()
    assert snap["over"] is False
    assert snap["caster"] == "Ann"
    assert snap["throw_off"] == {"Ann": 0, "Bob": 0}


def test_a_throw_after_the_end_is_refused() -> None:
    state = play([[2, 2, 2, 2, 2], [6, 6, 6, 6, 6], [2, 2, 2, 2, 2]])
    with pytest.raises(IllegalEventError, match="the game is over"):
        state.apply(state.parse_event({"type": "throw", "dice": [1, 1, 1, 1, 1]}))


def test_the_chance_of_a_scoring_throw_by_enumeration() -> None:
    """Each die avoids 2 and 5 with chance 4/6, so five dice score (2/3)**5 of the time."""
    scoring = chance(lambda dice: not DEAD & set(dice), 5)
    assert scoring == Fraction(32, 243)
    assert chance(lambda dice: not DEAD & set(dice), 1) == Fraction(2, 3)


def test_every_ruling_names_the_thrower() -> None:
    state = get_game("drop-dead").new_state(["Ann", "Bob"])
    data: dict[str, Any] = {"type": "throw", "dice": [1, 3, 4, 6, 6]}
    op = state.apply(state.parse_event(data))
    assert [(r.kind, r.who, r.amount) for r in op.rulings] == [("score", "Ann", 20)]
