"""Vingt-et-Un with one die: turns, stops, busts, the pool divided, bad events refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import pytest

from engine.core import State
from engine.dice.vingt_et_un import bust_chance
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game


def play(events: Sequence[Mapping[str, Any]], players: Sequence[str] = ("Ann", "Bob"),
         options: Mapping[str, Any] | None = None) -> State:
    state = get_game("vingt-et-un-dice").new_state(players, options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def throws(*faces: int) -> list[dict[str, Any]]:
    return [{"type": "throw", "dice": [face]} for face in faces]


def stand(player: str) -> dict[str, Any]:
    return {"type": "stand", "player": player}


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], stand("Ann"), "throws at least once"),
    (throws(6), stand("Bob"), "stand by Bob: out of turn; Ann to throw, at 6"),
    ([], stand("Zed"), "unknown player 'Zed'"),
    ([], {"type": "throw", "dice": [3, 4]}, "1 dice, got 2"),
    ([], {"type": "throw", "dice": [7]}, "die 1 shows 7"),
    ([], {"type": "throw", "dice": [0]}, "die 1 shows 0"),
    ([], {"type": "bet", "player": "Bob", "on": "pass", "amount": 1}, "no 'bet' event"),
    ([], {"type": "rethrow", "reason": "cocked"}, "no throw to void"),
    ([*throws(6), stand("Ann")], {"type": "rethrow", "reason": "cocked"}, "no throw to void"),
    ([*throws(6), stand("Ann"), *throws(6, 6, 6, 6)], {"type": "throw", "dice": [1]},
     "the game is over"),
])
def test_bad_events_are_refused_before_anything_changes(
        events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state = play(events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


@pytest.mark.parametrize("options", [{"stake": 0}, {"stake": "1"}, {"rounds": 21},
                                     {"rounds": False}, {"pool": 3}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptionError, match=next(iter(options))):
        get_game("vingt-et-un-dice").new_state(["Ann"], options)


def test_reaching_or_passing_21_ends_the_turn() -> None:
    state = play(throws(6, 6, 6, 3))
    assert state.snapshot()["caster"] == "Bob"
    state = play(throws(6, 6, 6, 4))
    assert state.snapshot()["caster"] == "Bob"
    assert state.snapshot()["counts"][0] == {"player": "Ann", "count": 22, "done": True}


def test_a_stand_is_offered_only_after_a_throw() -> None:
    state = play([])
    assert [a.fact for a in state.awaiting()] == ["throw"]
    assert all(event.type == "throw" for event in state.legal_events())
    state.apply(state.parse_event(throws(2)[0]))
    assert [a.fact for a in state.awaiting()] == ["throw", "stand"]
    assert sum(event.type == "stand" for event in state.legal_events()) == 1


def test_the_pool_goes_to_the_nearest_and_the_stakes_count() -> None:
    state = play([*throws(6, 6, 5), stand("Ann"), *throws(6, 6, 6), stand("Bob"),
                  *throws(4, 4), stand("Cy")], ("Ann", "Bob", "Cy"), {"stake": 5})
    outcome = state.outcome()
    assert outcome is not None
    assert dict(outcome.scores) == {"Ann": -5, "Bob": 10, "Cy": -5}
    assert outcome.winners == ("Bob",)


def test_the_count_ruling_gives_the_exact_bust_chance() -> None:
    state = play(throws(6, 6))
    ruling = state.apply(state.parse_event(throws(5)[0])).rulings[0]
    assert ruling.kind == "count"
    assert "busts him on 2 of the 6 faces (2 to 1 against)" in ruling.text


def test_bust_chances_by_counting_faces() -> None:
    for total in range(1, 21):
        busting = [face for face in range(1, 7) if total + face > 21]
        assert bust_chance(total) == Fraction(len(busting), 6)
    assert bust_chance(15) == 0
    assert bust_chance(17) == Fraction(1, 3)


def test_a_second_pool_starts_one_player_further_left() -> None:
    state = play([*throws(6), stand("Ann"), *throws(6), stand("Bob")],
                 options={"rounds": 2})
    snapshot = state.snapshot()
    assert snapshot["round"] == 2 and snapshot["caster"] == "Bob"
    assert snapshot["over"] is False
