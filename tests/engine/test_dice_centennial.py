"""Centennial: the figures a throw makes, calls, claims and the way back."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from engine.core import State
from engine.dice.centennial import SERIES, makes
from engine.errors import IllegalEventError
from engine.registry import get_game


def play(events: list[dict[str, Any]], players: tuple[str, ...] = ("Ann", "Bob")) -> State:
    state = get_game("centennial").new_state(list(players))
    for data in events:
        state.apply(state.parse_event(data))
    return state


def throw(*dice: int, **more: Any) -> dict[str, Any]:
    return {"type": "throw", "dice": list(dice), **more}


def test_the_figures_a_throw_makes_by_enumerating_the_dice_chosen() -> None:
    for dice in product(range(1, 7), repeat=3):
        chosen = {sum(d for d, take in zip(dice, mask, strict=True) if take)
                  for mask in product((0, 1), repeat=3) if any(mask)}
        assert makes(dice) == chosen
    assert makes((1, 2, 6)) == {1, 2, 3, 6, 7, 8, 9}
    assert SERIES[:12] == tuple(range(1, 13))
    assert SERIES[12:] == tuple(range(11, 0, -1))


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], throw(1, 2, 6, call=4), "1-2-6 moves Ann at most 3 places from the start"),
    ([], throw(1, 2, 6, call=-1), "call must be a whole number"),
    ([], throw(1, 2, 6, call=True), "call must be a whole number"),
    ([throw(1, 2, 6)], {"type": "claim", "player": "Bob"}, "no number was overlooked"),
    ([throw(1, 2, 2, call=1)], {"type": "claim", "player": "Ann"}, "the caster cannot claim"),
    ([throw(1, 2, 2, call=1)], {"type": "claim", "player": "Bob"},
     "overlooked 2, 3, 4, 5 does not fit his game \\(he needs 1\\)"),
    ([throw(1, 2, 2, call=1)], {"type": "claim", "player": "Zed"}, "unknown player 'Zed'"),
])
def test_bad_calls_and_claims_are_refused(events: list[dict[str, Any]], bad: dict[str, Any],
                                          message: str) -> None:
    state = play(events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


def test_an_overlooked_number_may_be_claimed_once_and_only_before_the_next_throw() -> None:
    state = play([throw(1, 3, 4), throw(1, 1, 5, call=1)])
    assert state.snapshot()["overlooked"] == [2]
    state.apply(state.parse_event({"type": "claim", "player": "Ann"}))
    assert state.snapshot()["markers"] == {"Ann": 2, "Bob": 1}
    with pytest.raises(IllegalEventError, match="no number was overlooked"):
        state.apply(state.parse_event({"type": "claim", "player": "Ann"}))
    state = play([throw(1, 3, 4), throw(1, 1, 5, call=1), throw(3, 3, 3)])
    with pytest.raises(IllegalEventError, match="no number was overlooked"):
        state.apply(state.parse_event({"type": "claim", "player": "Ann"}))


def test_the_marker_turns_at_12_and_comes_back() -> None:
    state = play([throw(1, 2, 3), throw(2, 2, 2), throw(1, 2, 6), throw(2, 2, 2),
                  throw(4, 6, 1), throw(2, 2, 2), throw(6, 6, 5)])
    snap = state.snapshot()
    assert snap["markers"]["Ann"] == 11
    assert snap["going"]["Ann"] == "back"
    assert snap["sheet"][0]["total"] == 13
