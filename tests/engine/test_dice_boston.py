"""Going to Boston, Multiplication and Round the Spot: the turn, the scores, bad input refused."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import LawRef
from engine.dice.boston import GTB_SCORE, MUL_SCORE, ROUND_THE_SPOT, RTS_SCORE
from engine.dice.core import FACES
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game
from tests.engine.book_vectors import play

ANN = [{"type": "throw", "dice": [6, 3, 2]}, {"type": "throw", "dice": [5, 1]}]


def test_the_book_names_are_aliases() -> None:
    assert get_game("yankee-grab").id == "going-to-boston"
    assert get_game("newmarket-dice").id == "going-to-boston"


def test_the_engine_sets_the_highest_die_aside_and_asks_for_the_rest() -> None:
    state, _ = play("going-to-boston", ["Ann", "Bob"], None, ANN[:1])
    assert state.snapshot()["turn"] == {"throw": 2, "dice": 2, "set_aside": [6]}
    (awaiting,) = state.awaiting()
    assert (awaiting.fact, awaiting.source, awaiting.player) == ("throw", "sensor", "Ann")
    assert "second throw, 2 dice" in awaiting.detail


@pytest.mark.parametrize(("game_id", "dice", "score", "law"), [
    ("going-to-boston", [6, 5, 4], 15, GTB_SCORE),
    ("multiplication", [6, 5, 4], 44, MUL_SCORE),
    ("round-the-spot", [5, 5, 3], 10, RTS_SCORE),
])
def test_each_variant_scores_the_books_example(game_id: str, dice: list[int], score: int,
                                               law: LawRef) -> None:
    first, second, last = dice
    state, _ = play(game_id, ["Ann"], None, [
        {"type": "throw", "dice": [first, 1, 1]}, {"type": "throw", "dice": [second, 1]}])
    op = state.apply(state.parse_event({"type": "throw", "dice": [last]}))
    ruling = next(r for r in op.rulings if r.kind == "score")
    assert ruling.amount == score
    assert str(score) in ruling.text
    assert ruling.law == law


def test_round_the_spot_counts_only_the_spots_round_a_centre() -> None:
    """Lines 10302-10305: faces with no centre spot are blanks; trey 2, five 4."""
    assert [ROUND_THE_SPOT[face] for face in FACES] == [0, 0, 2, 0, 4, 0]


@pytest.mark.parametrize(("game_id", "events", "bad", "message"), [
    ("going-to-boston", ANN[:1], {"type": "throw", "dice": [5, 1, 2]},
     "Ann's second throw, 2 dice \\(6 set aside\\); got 3 dice"),
    ("going-to-boston", ANN, {"type": "throw", "dice": [4, 4]}, "third throw, 1 die"),
    ("going-to-boston", [], {"type": "throw", "dice": [6, 0, 2]}, "die 2 shows 0"),
    ("multiplication", [], {"type": "throw", "dice": [7, 1, 2]}, "die 1 shows 7"),
    ("round-the-spot", [], {"type": "rethrow", "reason": "cocked"}, "no throw to void"),
    ("going-to-boston", [], {"type": "stand", "player": "Ann"}, "has no 'stand' event"),
    ("going-to-boston", [*ANN, {"type": "throw", "dice": [4]}], {"type": "throw", "dice": [1]},
     "the game is over"),
])
def test_bad_events_are_refused_before_anything_changes(
        game_id: str, events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state, _ = play(game_id, ["Ann"], None, events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


@pytest.mark.parametrize(("game_id", "options", "message"), [
    ("going-to-boston", {"set_aside": "face"}, "no option 'set_aside'"),
    ("multiplication", {"rounds": 2}, "no option 'rounds'"),
    ("round-the-spot", {"set_aside": "lowest"}, "set_aside must be one of"),
    ("going-to-boston", {"ties": "coin"}, "ties must be one of"),
    ("going-to-boston", {"ties": True}, "ties must be one of"),
])
def test_bad_options_name_the_option(game_id: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game(game_id).new_state(["Ann"], options)


def test_a_rethrow_on_the_last_die_leaves_the_two_set_aside() -> None:
    state, _ = play("going-to-boston", ["Ann"], None, [
        *ANN, {"type": "throw", "dice": [1]}, {"type": "rethrow", "reason": "off-table"}])
    snapshot = state.snapshot()
    assert snapshot["over"] is False
    assert snapshot["turn"] == {"throw": 3, "dice": 1, "set_aside": [6, 5]}
    state.apply(state.parse_event({"type": "throw", "dice": [6]}))
    assert state.snapshot()["sheet"][0]["total"] == 17


def test_a_saved_game_loads_to_the_same_state() -> None:
    state, _ = play("round-the-spot", ["Ann", "Bob"], {"set_aside": "face"}, ANN)
    game = get_game("round-the-spot")
    assert game.load(state.save()).snapshot() == state.snapshot()
