"""Events read strictly: a key an event does not take is refused by name, never ignored.

A parser passes over keys it does not know, so `"foull": true` would be ruled a fair
ball. `parse_strictly` is how new events are read (transcripts, the operator's and the
sensors' events); each family's events are checked here, with the laws they rule on.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import State, event_keys, parse_strictly
from engine.errors import IllegalEventError
from engine.registry import get_game

#: One game of each family, and an event of it with a key none of its events take.
JUNK: list[tuple[str, dict[str, Any], str, str]] = [
    # A foul ball (lines 4081-4095) misspelt: not a fair strike.
    ("ten-pins", {"type": "ball", "player": "Ann", "standing": [], "foull": True}, "foull",
     "a ball event takes type, player, standing, foul"),
    # A throw of the two dice (lines 3478-3490): the camera's confidence belongs beside the
    # throw in the log, not in it.
    ("craps-bank", {"type": "throw", "dice": [3, 4], "confidence": 0.97}, "confidence",
     "a throw event takes type, dice"),
    # Baccara's bets (lines 1440-1449) are not coppered: that is faro's (11755-11770).
    ("baccara", {"type": "bet", "player": "Ann", "on": "right", "amount": 10, "copper": True},
     "copper", "a bet event takes type, player, on, amount"),
    # Fifteen-ball pool (lines 15112-15123): a ball pocketed, with a junk key.
    ("fifteen-ball-pool", {"type": "pocket", "ball": "3", "pocket": "head-left",
                           "extra_junk": 1}, "extra_junk",
     "a pocket event takes type, ball, pocket, player"),
    # The referee's count at French caroms is points only: a path is not read with it.
    ("french-caroms", {"type": "count", "points": 1, "path": ["red", "white"]}, "path",
     "a count event takes type, points, player"),
]


def seat(game_id: str) -> State:
    return get_game(game_id).new_state(["Ann", "Bob"])


@pytest.mark.parametrize(("game_id", "data", "key", "takes"), JUNK,
                         ids=[game_id for game_id, *_ in JUNK])
def test_a_key_the_event_does_not_take_is_refused_by_name(game_id: str, data: dict[str, Any],
                                                          key: str, takes: str) -> None:
    state = seat(game_id)
    state.parse_event(data)  # the lenient reading passes over it: what this guards against
    with pytest.raises(IllegalEventError) as refused:
        parse_strictly(state, data)
    message = str(refused.value)
    assert message.startswith(f"{data['type']}: unknown key {key!r}; ")
    assert message.endswith(takes)


def test_every_unknown_key_is_named() -> None:
    with pytest.raises(IllegalEventError, match=r"unknown keys 'foull', 'speed'"):
        parse_strictly(seat("ten-pins"), {"type": "ball", "player": "Ann", "standing": [],
                                          "foull": True, "speed": 17})


@pytest.mark.parametrize(("game_id", "data"), [
    # A fair ball said to be one: foul is left out of a fair ball's JSON (lines 4081-4095).
    ("ten-pins", {"type": "ball", "player": "Ann", "standing": [7], "foul": False}),
    # A card from the shoe said to be face up, as a card is unless told (baccara's deal,
    # lines 1451-1458; the shoe reports each card as it is drawn).
    ("baccara", {"type": "card", "to": "right", "card": "9H", "up": True}),
    # A flat faro bet, said not to be coppered (lines 11755-11770).
    ("faro", {"type": "bet", "player": "Ann", "on": "7", "amount": 2, "copper": False}),
    # A stroke said not to be a safety.
    ("fifteen-ball-pool", {"type": "stroke", "path": [], "driven": 0, "safety": False}),
    # A call of a ball with no pocket named (pyramid pool, lines 14367-14373).
    ("american-pyramid-pool", {"type": "call", "ball": "3", "pocket": None}),
    # A cue game's events may name the striker (docs/billiards.md).
    ("fifteen-ball-pool", {"type": "pocket", "ball": "3", "pocket": "head-left",
                           "player": "Ann"}),
    ("french-caroms", {"type": "count", "points": 1, "player": "Ann"}),
])
def test_a_key_given_with_the_value_it_goes_without_is_taken(game_id: str,
                                                             data: dict[str, Any]) -> None:
    state = seat(game_id)
    assert parse_strictly(state, data) == state.parse_event(data)


def test_the_striker_named_out_of_turn_is_still_refused_as_such() -> None:
    with pytest.raises(IllegalEventError, match="out of turn"):
        parse_strictly(seat("french-caroms"), {"type": "count", "points": 1, "player": "Bob"})


def test_event_keys_list_the_fields_a_default_leaves_out() -> None:
    state = seat("ten-pins")
    fair = state.parse_event({"type": "ball", "player": "Ann", "standing": []})
    assert event_keys(fair) == ("type", "player", "standing", "foul")
