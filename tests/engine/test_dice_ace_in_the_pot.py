"""Ace in the Pot: counters, the turn to the left, the last counter and the pool."""

from __future__ import annotations

from engine.core import State
from engine.registry import get_game


def play(events: list[list[int]], players: tuple[str, ...] = ("Ann", "Bob", "Cy")) -> State:
    state = get_game("ace-in-the-pot").new_state(list(players))
    for dice in events:
        state.apply(state.parse_event({"type": "throw", "dice": dice}))
    return state


def test_counters_are_never_made_or_lost() -> None:
    state = play([[1, 6], [6, 6], [1, 2], [4, 4]])
    snap = state.snapshot()
    assert sum(snap["counters"].values()) + snap["pot"] == 6
    assert sum(row["total"] for row in snap["sheet"]) == -snap["pot"]


def test_one_counter_and_an_ace_and_a_six_puts_it_in_the_pot() -> None:
    state = play([[6, 3], [3, 3], [2, 2]])
    assert state.snapshot()["counters"] == {"Ann": 1, "Bob": 3, "Cy": 2}
    state.apply(state.parse_event({"type": "throw", "dice": [1, 6]}))
    snap = state.snapshot()
    assert snap["counters"] == {"Ann": 0, "Bob": 3, "Cy": 2}
    assert snap["pot"] == 1
    assert snap["caster"] == "Bob"


def test_an_ace_with_the_last_counter_counts_nothing() -> None:
    state = play([[1, 1], [1, 5]], players=("Ann", "Bob"))
    assert state.snapshot()["last_counter_throws"] == 0
    state.apply(state.parse_event({"type": "throw", "dice": [1, 1]}))
    snap = state.snapshot()
    assert snap["counters"] == {"Ann": 0, "Bob": 1}
    assert snap["last_counter_throws"] == 1


def test_the_winner_takes_the_pool_of_every_counter() -> None:
    state = play([[1, 1], [1, 1], [1, 5], [2, 2], [3, 3], [4, 4]])
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winners == ("Cy",)
    assert dict(outcome.scores) == {"Ann": -2, "Bob": -2, "Cy": 4}
    assert state.awaiting() == ()
