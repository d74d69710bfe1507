"""Chuck Luck: each spot of the layout against a throw, exact edges, bad bets refused."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from engine.dice.chuck_luck import CHUCK_LUCK, TOTALS, ChuckLuckRules
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

FOR_ONE = ChuckLuckRules(layout_odds="for-1")


def gain(rules: ChuckLuckRules, on: str, number: int | None, dice: tuple[int, ...]) -> int:
    """What a unit staked on the spot wins (negative: lost) on this throw."""
    settled = rules.settle(on, number, dice)
    return settled.pays if settled.won else -1


@pytest.mark.parametrize(("on", "number", "dice", "expected"), [
    ("number", 4, (4, 1, 2), 1),
    ("number", 4, (4, 4, 1), 2),
    ("number", 4, (1, 2, 3), -1),
    ("number", 4, (4, 4, 4), -1),
    ("raffle", 4, (4, 4, 4), 180),
    ("raffle", 4, (5, 5, 5), -1),
    ("raffle", 4, (4, 4, 1), -1),
    ("total", 18, (6, 6, 6), 180),
    ("total", 3, (1, 1, 1), 180),
    ("total", 12, (6, 5, 1), 6),
    ("total", 12, (4, 4, 4), -1),
    ("total", 5, (1, 1, 3), 29),
    ("total", 14, (6, 6, 2), 12),
    ("total", 7, (5, 1, 1), 12),
    ("high", None, (6, 3, 2), 1),
    ("high", None, (5, 5, 5), -1),
    ("low", None, (1, 1, 2), 1),
    ("odd", None, (3, 3, 3), -1),
    ("even", None, (2, 2, 2), -1),
    ("even", None, (6, 3, 1), 1),
])
def test_each_spot_pays_as_the_layout(on: str, number: int | None, dice: tuple[int, ...],
                                      expected: int) -> None:
    assert gain(CHUCK_LUCK, on, number, dice) == expected


def test_for_one_takes_the_stake_out_of_the_layout_figures_only() -> None:
    assert gain(FOR_ONE, "total", 17, (6, 6, 5)) == 59
    assert gain(FOR_ONE, "raffle", 2, (2, 2, 2)) == 179
    assert gain(FOR_ONE, "number", 3, (3, 3, 1)) == 2
    assert gain(FOR_ONE, "high", None, (6, 6, 1)) == 1


def test_the_totals_row_is_symmetric() -> None:
    assert all(TOTALS[total] == TOTALS[21 - total] for total in TOTALS)


def test_exact_edges_by_plain_enumeration() -> None:
    """The catalogue's figures: a single number loses 21/216, High etc. 6/216 (section 24)."""
    throws = list(product(range(1, 7), repeat=3))
    single = sum(d.count(4) if len(set(d)) > 1 and 4 in d else -1 for d in throws)
    high = sum(1 if len(set(d)) > 1 and sum(d) >= 11 else -1 for d in throws)
    seventeen = sum(60 if sum(d) == 17 else -1 for d in throws)
    assert (single, high, seventeen) == (-21, -6, -33)
    assert CHUCK_LUCK.expectation("number", 4) == Fraction(single, 216)
    assert CHUCK_LUCK.expectation("high", None) == Fraction(high, 216)
    assert CHUCK_LUCK.expectation("total", 17) == Fraction(seventeen, 216)
    assert CHUCK_LUCK.win_chance("number", 4) == Fraction(75 + 15, 216)
    assert CHUCK_LUCK.win_chance("total", 9) == Fraction(25 - 1, 216)


def test_a_bet_ruling_gives_the_fair_odds_beside_the_layouts() -> None:
    state = get_game("sweat").new_state(["Ann", "Bob"])
    ruling = state.apply(state.parse_event(
        {"type": "bet", "player": "Bob", "on": "total", "number": 17, "amount": 1})).rulings[0]
    assert "3 of the 216 ways" in ruling.text
    assert "71 to 1 against" in ruling.text and "pays 60 (60 to 1" in ruling.text


@pytest.mark.parametrize(("bad", "message"), [
    ({"on": "number", "amount": 5}, "number must be one of 1-6, got None"),
    ({"on": "number", "number": 7, "amount": 5}, "number must be one of 1-6, got 7"),
    ({"on": "raffle", "number": True, "amount": 5}, "number must be one of 1-6, got True"),
    ({"on": "total", "number": 2, "amount": 5}, "number must be one of 3-18, got 2"),
    ({"on": "high", "number": 11, "amount": 5}, "names no number"),
    ({"on": "field", "amount": 5}, "not 'field'"),
    ({"on": "odd", "amount": 2_000_000}, "amount must be"),
])
def test_bad_bets_are_refused(bad: dict[str, Any], message: str) -> None:
    state = get_game("chuck-luck").new_state(["Ann", "Bob"])
    with pytest.raises(IllegalEventError, match=message):
        state.parse_event({"type": "bet", "player": "Bob", **bad})


@pytest.mark.parametrize(("dice", "message"), [
    ([4, 4], "3 dice, got 2"), ([4, 4, 4, 4], "3 dice, got 4"), ([4, 0, 1], "die 2 shows 0"),
])
def test_a_throw_that_cannot_be_is_refused(dice: list[int], message: str) -> None:
    state = get_game("chuck-luck").new_state(["Ann"])
    with pytest.raises(IllegalEventError, match=message):
        state.parse_event({"type": "throw", "dice": dice})


@pytest.mark.parametrize("options", [{"layout_odds": "3 for 1"}, {"throws": 101}, {"odds": 1}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptionError, match=next(iter(options))):
        get_game("chuck-luck").new_state(["Ann"], options)
