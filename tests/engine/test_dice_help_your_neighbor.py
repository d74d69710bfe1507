"""Help Your Neighbor: the numbers each player owns, payment, and who may play."""

from __future__ import annotations

import pytest

from engine.errors import IllegalEventError
from engine.registry import get_game


@pytest.mark.parametrize(("players", "numbers"), [
    (["Ann"], {"Ann": [1, 2, 3, 4, 5, 6]}),
    (["Ann", "Bob"], {"Ann": [1, 2, 3], "Bob": [4, 5, 6]}),
    (["Ann", "Bob", "Cy"], {"Ann": [1, 2], "Bob": [3, 4], "Cy": [5, 6]}),
])
def test_the_six_numbers_are_shared_evenly_in_order(players: list[str],
                                                    numbers: dict[str, list[int]]) -> None:
    state = get_game("help-your-neighbor").new_state(players)
    assert state.snapshot()["numbers"] == numbers


@pytest.mark.parametrize("count", [4, 5, 7])
def test_players_who_cannot_share_six_numbers_are_refused(count: int) -> None:
    names = [f"P{i}" for i in range(count)]
    with pytest.raises(IllegalEventError, match=f"got {count} players"):
        get_game("help-your-neighbor").new_state(names)


def test_nobody_pays_more_counters_than_he_has() -> None:
    state = get_game("help-your-neighbor").new_state(["Ann", "Bob"])
    for dice in ([1, 1, 1], [4, 5, 6], [1, 2, 3]):
        state.apply(state.parse_event({"type": "throw", "dice": dice}))
    snap = state.snapshot()
    assert snap["counters"] == {"Ann": 0, "Bob": 2}
    assert snap["winners"] == ["Ann"]
    assert [row["total"] for row in snap["sheet"]] == [5, 3]
