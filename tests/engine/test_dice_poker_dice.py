"""Poker Dice: the hand ranking (pure, for the dashboard too), holds and stands, bad input."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

import pytest

from engine.dice.core import throws
from engine.dice.poker_dice import BEST, CATEGORIES, PokerHand, rank_hand, strength
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game
from tests.engine.book_vectors import play

FIRST = {"type": "throw", "dice": [1, 1, 4, 5, 6]}


def test_every_hand_by_enumeration_of_the_7776_throws() -> None:
    """The number of ways five dice fall into each hand, counted, as a player would tabulate."""
    found = Counter(rank_hand(dice).name for dice in throws(5))
    assert found == {"five of a kind": 6, "four of a kind": 150,
                     "three of a kind and a pair": 300, "three of a kind": 1200,
                     "two pairs": 1800, "pair": 3600, "nothing": 720}


def test_the_hands_rank_as_the_book_gives_them() -> None:
    """Five of a kind, four, three and a pair, three, two pairs, a pair, nothing (10340-10354)."""
    ladder = [(1, 1, 1, 1, 1), (2, 2, 2, 2, 3), (4, 4, 4, 2, 2), (5, 5, 5, 1, 2),
              (6, 6, 3, 3, 1), (1, 1, 2, 3, 5), (2, 3, 4, 5, 6)]
    hands = [rank_hand(dice) for dice in ladder]
    assert [hand.name for hand in hands] == list(reversed(CATEGORIES))
    assert hands == sorted(hands, reverse=True)


def test_aces_high_in_the_east_and_sixes_in_the_west() -> None:
    assert [strength(face) for face in (2, 3, 4, 5, 6, 1)] == [1, 2, 3, 4, 5, 6]
    assert [strength(face, "six") for face in (1, 2, 3, 4, 5, 6)] == [1, 2, 3, 4, 5, 6]
    assert rank_hand([1, 1, 2, 3, 4]) > rank_hand([6, 6, 2, 3, 4])
    assert rank_hand([1, 1, 2, 3, 4], high="six") < rank_hand([6, 6, 2, 3, 4], high="six")
    with pytest.raises(ValueError, match="high must be one of"):
        strength(1, "north")


def test_a_straight_has_no_value_and_odd_dice_count_only_with_kickers() -> None:
    straight = rank_hand([3, 1, 4, 2, 5])
    assert (straight.name, straight.label, straight.straight) == ("nothing", "nothing", True)
    assert straight == rank_hand([1, 2, 3, 4, 6])
    assert rank_hand([2, 2, 3, 4, 6]) == rank_hand([2, 2, 5, 6, 1])
    assert rank_hand([2, 2, 3, 4, 6], kickers=True) < rank_hand([2, 2, 5, 6, 1], kickers=True)


def test_labels_name_the_sets() -> None:
    assert rank_hand([6, 5, 6, 5, 6]).label == "three sixes and a pair of fives"
    assert rank_hand([3, 4, 4, 3, 1]).label == "a pair of fours and a pair of treys"
    assert rank_hand([2, 2, 2, 2, 2]).label == "five deuces"


@pytest.mark.parametrize("dice", [[1, 2, 3, 4], [0, 1, 2, 3, 4], [1, 2, 3, 4, 7]])
def test_rank_hand_refuses_what_is_not_five_dice(dice: list[int]) -> None:
    with pytest.raises(ValueError, match="five faces 1-6"):
        rank_hand(dice)


@pytest.mark.parametrize("high", ["ace", "six"])
def test_a_better_kind_of_hand_beats_a_worse_whatever_the_faces(high: str) -> None:
    """The lowest four of a kind beats the highest three and a pair, and so down the ladder."""
    by_name: dict[str, list[PokerHand]] = {}
    for dice in throws(5):
        hand = rank_hand(dice, high, kickers=True)
        by_name.setdefault(hand.name, []).append(hand)
    for worse, better in pairwise(CATEGORIES):
        assert min(by_name[better]) > max(by_name[worse]), f"{better} v {worse}"


def test_holds_and_the_dashboard_picture() -> None:
    state, _ = play("poker-dice", ["Ann", "Bob"], None, [FIRST])
    assert state.snapshot()["turn"] == {"throws": 1, "dice": [1, 1, 4, 5, 6], "hand": "pair",
                                        "label": "a pair of aces"}
    assert {a.fact for a in state.awaiting()} == {"throw", "stand"}
    state.apply(state.parse_event({"type": "throw", "hold": [1, 1], "dice": [1, 3, 3]}))
    assert state.snapshot()["turn"]["label"] == "three aces and a pair of treys"


def test_the_winner_ruling_cites_the_best_hand_law() -> None:
    state, _ = play("poker-dice", ["Ann", "Bob"], None, [
        {"type": "throw", "dice": [1, 1, 1, 1, 2]}, {"type": "stand", "player": "Ann"},
        {"type": "throw", "dice": [6, 6, 6, 5, 5]}])
    op = state.apply(state.parse_event({"type": "stand", "player": "Bob"}))
    winner = op.rulings[-1]
    assert (winner.kind, winner.who, winner.amount, winner.law) == ("winner", "Ann", 1, BEST)
    assert "four aces" in winner.text and "three sixes and a pair of fives" in winner.text


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], {"type": "throw", "hold": [1], "dice": [1, 2, 3, 4]}, "first throw is of all five"),
    ([], {"type": "throw", "dice": [1, 2, 3, 4]}, "5 dice, got 4"),
    ([], {"type": "throw", "dice": [1, 2, 3, 4, 0]}, "die 5 shows 0"),
    ([FIRST], {"type": "throw", "hold": [6, 6], "dice": [1, 2, 3]}, "not all in the hand"),
    ([FIRST], {"type": "throw", "hold": [1, 1], "dice": [1, 2]}, "3 dice, got 2"),
    ([FIRST], {"type": "throw", "hold": [1, 1, 4, 5, 6], "dice": []}, "at most 4 faces"),
    ([FIRST], {"type": "throw", "hold": [1, 9], "dice": [1, 2, 3]}, "hold has 9"),
    ([FIRST], {"type": "throw", "hold": "11", "dice": [1, 2, 3]}, "hold must be a list"),
    ([], {"type": "stand", "player": "Ann"}, "has not thrown yet"),
    ([FIRST], {"type": "stand", "player": "Bob"}, "out of turn"),
    ([FIRST], {"type": "stand", "player": "Zed"}, "unknown player"),
    ([FIRST, {"type": "stand", "player": "Ann"}], {"type": "rethrow", "reason": "cocked"},
     "no throw to void"),
    ([], {"type": "bet", "player": "Ann", "on": "pass", "amount": 1},
     "has no 'bet' event; it has throw, stand, rethrow"),
])
def test_bad_events_are_refused_before_anything_changes(
        events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state, _ = play("poker-dice", ["Ann", "Bob"], None, events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


def test_after_three_throws_the_dice_pass() -> None:
    state, _ = play("poker-dice", ["Ann", "Bob"], None, [
        FIRST, {"type": "throw", "hold": [1, 1], "dice": [2, 3, 4]},
        {"type": "throw", "hold": [1, 1], "dice": [2, 3, 4]}])
    assert state.snapshot()["caster"] == "Bob"
    with pytest.raises(IllegalEventError, match="out of turn"):
        state.apply(state.parse_event({"type": "stand", "player": "Ann"}))


@pytest.mark.parametrize(("options", "message"), [
    ({"high": "north"}, "high must be one of 'ace', 'six'"),
    ({"kickers": "yes"}, "kickers must be one of False, True"),
    ({"stake": 0}, "stake must be a whole number 1-1000000"),
    ({"stake": True}, "stake must be a whole number"),
    ({"ties": "share"}, "no option 'ties'"),
])
def test_bad_options_name_the_option(options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game("poker-dice").new_state(["Ann"], options)
