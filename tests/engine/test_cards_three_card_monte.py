"""Three-Card Monte: the cards that can be, late bets, and the book's exact fairness."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest

from engine.cards.three_card_monte import MonteRules
from engine.core import State
from engine.errors import IllegalEventError
from engine.registry import get_game


def refused(state: State, data: Mapping[str, Any], message: str) -> None:
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(data))
    assert state.save() == before


def test_two_for_one_is_exactly_fair_and_even_money_loses_a_third() -> None:
    assert MonteRules().expectation() == 0
    assert MonteRules(pays="even").expectation() == Fraction(-1, 3)


def test_the_bet_ruling_shows_the_exact_expectation() -> None:
    state = get_game("three-card-monte").new_state(["Ann", "Bob"], {"pays": "even"})
    op = state.apply(state.parse_event({"type": "bet", "player": "Bob", "on": "right",
                                        "amount": 3}))
    assert "exactly -1/3 of the stake" in op.rulings[0].text
    assert op.rulings[0].law.lines == (17938, 17940)


def test_cards_that_cannot_be_in_a_monte_are_refused() -> None:
    state = get_game("three-card-monte").new_state(["Ann", "Bob"])
    state.apply(state.parse_event({"type": "card", "to": "left", "card": "AH"}))
    refused(state, {"type": "card", "to": "left", "card": "AD"}, "left card is already turned")
    refused(state, {"type": "card", "to": "middle", "card": "AH"}, "a second AH")
    refused(state, {"type": "bet", "player": "Bob", "on": "right", "amount": 5},
            "a bet comes before the first card is turned up")
    state.apply(state.parse_event({"type": "card", "to": "middle", "card": "AD"}))
    # Both red cards are up: the black one's spot is known and the next coup begins.
    assert state.snapshot()["hands"] == {"left": [], "middle": [], "right": []}
    assert state.snapshot()["deals"] == 1


def test_the_banker_takes_bets_and_does_not_place_them() -> None:
    state = get_game("three-card-monte").new_state(["Ann", "Bob"])
    refused(state, {"type": "bet", "player": "Ann", "on": "left", "amount": 5},
            "the banker takes the bets")
    with pytest.raises(IllegalEventError, match="takes bets on left, middle, right"):
        state.parse_event({"type": "bet", "player": "Bob", "on": "centre", "amount": 5})
