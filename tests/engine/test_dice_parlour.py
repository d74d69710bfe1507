"""What the turn-taking dice games share: thrower checks, options, rethrows, saves."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import State
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

PARLOUR = ["drop-dead", "ace-in-the-pot", "help-your-neighbor", "ten-pins-with-dice",
           "base-ball-with-dice", "base-ball-with-dice-diamond", "centennial"]


def start(game_id: str, events: list[dict[str, Any]], players: tuple[str, ...] = ("Ann", "Bob"),
          options: dict[str, Any] | None = None) -> State:
    state = get_game(game_id).new_state(list(players), options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def first_throw(game_id: str) -> dict[str, Any]:
    """A legal first throw of the game, as the table would report it."""
    state = start(game_id, [])
    return next(e.to_json() for e in state.legal_events() if e.type == "throw")


@pytest.mark.parametrize("game_id", PARLOUR)
def test_a_throw_naming_the_wrong_player_is_out_of_turn(game_id: str) -> None:
    state = start(game_id, [])
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match="throw by Bob out of turn: Ann to throw"):
        state.apply(state.parse_event({**first_throw(game_id), "player": "Bob"}))
    assert state.snapshot() == before
    state.apply(state.parse_event({**first_throw(game_id), "player": "Ann"}))
    assert state.snapshot() != before


@pytest.mark.parametrize("game_id", PARLOUR)
def test_a_throw_naming_a_stranger_is_refused(game_id: str) -> None:
    state = start(game_id, [])
    with pytest.raises(IllegalEventError, match="unknown player 'Zed'"):
        state.parse_event({**first_throw(game_id), "player": "Zed"})


@pytest.mark.parametrize("game_id", PARLOUR)
def test_faces_that_cannot_be_are_refused(game_id: str) -> None:
    state = start(game_id, [])
    good = first_throw(game_id)["dice"]
    with pytest.raises(IllegalEventError, match="die 1 shows 7"):
        state.parse_event({"type": "throw", "dice": [7, *good[1:]]})
    with pytest.raises(IllegalEventError, match="shows 0"):
        state.parse_event({"type": "throw", "dice": [*good[:-1], 0]})
    with pytest.raises(IllegalEventError, match=r"dice.*got \d"):
        state.parse_event({"type": "throw", "dice": [*good, 3]})
    with pytest.raises(IllegalEventError, match="has no 'bet' event"):
        state.parse_event({"type": "bet", "player": "Ann", "on": "pass", "amount": 1})


@pytest.mark.parametrize("game_id", PARLOUR)
def test_a_rethrow_voids_only_the_last_throw_and_only_once(game_id: str) -> None:
    throw = first_throw(game_id)
    fresh = start(game_id, [])
    with pytest.raises(IllegalEventError, match="no throw to void; Ann to throw"):
        fresh.apply(fresh.parse_event({"type": "rethrow", "reason": "cocked"}))
    state = start(game_id, [throw, {"type": "rethrow", "reason": "cocked"}])
    assert state.snapshot() == fresh.snapshot()
    with pytest.raises(IllegalEventError, match="no throw to void"):
        state.apply(state.parse_event({"type": "rethrow", "reason": "off-table"}))
    with pytest.raises(IllegalEventError, match="reason must be one of"):
        state.parse_event({"type": "rethrow", "reason": "sneezed"})


@pytest.mark.parametrize("game_id", PARLOUR)
def test_an_unknown_option_is_named(game_id: str) -> None:
    with pytest.raises(BadOptionError, match=f"{game_id}: no option 'pace'"):
        get_game(game_id).new_state(["Ann"], {"pace": 1})


@pytest.mark.parametrize(("game_id", "options", "message"), [
    ("help-your-neighbor", {"pays": "twice"}, "pays must be 'per-die' or 'per-number'"),
    ("ten-pins-with-dice", {"over_ten": 10}, "over_ten must be 'all-down' or 'none-down'"),
    ("base-ball-with-dice", {"nine_outs": "both"}, "nine_outs must be"),
    ("base-ball-with-dice-diamond", {"innings": 0}, "innings must be a whole number 1-20"),
    ("base-ball-with-dice-diamond", {"innings": True}, "innings must be a whole number"),
    ("base-ball-with-dice-diamond", {"innings": 9.0}, "innings must be a whole number"),
    ("base-ball-with-dice-diamond", {"runners": "walk"}, "runners must be"),
    ("base-ball-with-dice-diamond", {"lone_third": None}, "lone_third must be"),
    ("centennial", {"ace_runs_on": 1}, "ace_runs_on must be True or False"),
])
def test_a_bad_option_value_is_named(game_id: str, options: dict[str, Any],
                                     message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game(game_id).new_state(["Ann", "Bob", "Cy"], options)


@pytest.mark.parametrize("game_id", PARLOUR)
def test_options_show_in_the_snapshot_and_survive_a_save(game_id: str) -> None:
    game = get_game(game_id)
    state = start(game_id, [first_throw(game_id)])
    saved = state.save()
    assert saved["rethrow_allowed"] is True
    loaded = game.load(saved)
    assert loaded.snapshot() == state.snapshot()
    loaded.apply(loaded.parse_event({"type": "rethrow", "reason": "cocked"}))
    assert loaded.snapshot() == start(game_id, []).snapshot()
    assert state.snapshot()["options"] == game.rules.options()
