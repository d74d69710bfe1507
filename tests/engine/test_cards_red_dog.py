"""Red Dog: the deal in turn, bets within the pool, the exact chance a bettor has."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from engine.cards.core import parse_card
from engine.cards.red_dog import beats
from engine.core import State
from engine.errors import IllegalEventError
from engine.registry import get_game

BOB = ("QD", "2C", "3C", "4C", "5C")
ANN = ("2S", "3S", "4S", "5S", "6S")


def dealt() -> State:
    state = get_game("red-dog").new_state(["Ann", "Bob"])
    for mine, hers in zip(BOB, ANN, strict=True):
        state.apply(state.parse_event({"type": "card", "to": "Bob", "card": mine}))
        state.apply(state.parse_event({"type": "card", "to": "Ann", "card": hers}))
    return state


def refused(state: State, data: Mapping[str, Any], message: str) -> None:
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(data))
    assert state.save() == before


def test_a_higher_card_of_the_suit_wins_and_the_ace_is_high() -> None:
    hand = [parse_card(code) for code in ("QD", "AC", "2H")]
    assert beats(hand, parse_card("9D")) == parse_card("QD")
    assert beats(hand, parse_card("KC")) == parse_card("AC")
    assert beats(hand, parse_card("KD")) is None
    assert beats(hand, parse_card("5S")) is None


def test_the_deal_goes_in_turn_from_the_dealers_left() -> None:
    state = get_game("red-dog").new_state(["Ann", "Bob"])
    refused(state, {"type": "card", "to": "Ann", "card": "2S"}, "this card goes to Bob")
    refused(state, {"type": "card", "to": "stock", "card": "2S"}, "this card goes to Bob")


def test_the_bettors_exact_chance_is_shown() -> None:
    state = dealt()
    op = state.apply(state.parse_event({"type": "bet", "player": "Bob", "on": "pool",
                                        "amount": 1}))
    # The ten diamonds 2-J are the only cards of the 47 unseen that QD 2C 3C 4C 5C beat.
    assert "beats 10 of the 47 cards he has not seen, a chance of exactly 10/47" \
        in op.rulings[0].text


def test_bets_within_the_pool_in_turn_and_no_card_twice() -> None:
    state = dealt()
    refused(state, {"type": "bet", "player": "Bob", "on": "pool", "amount": 3},
            "may not exceed the pool, which holds 2")
    refused(state, {"type": "bet", "player": "Ann", "on": "pool", "amount": 1},
            "it is Bob's turn to bet")
    refused(state, {"type": "card", "to": "stock", "card": "7H"},
            "the top card is turned only for a bet")
    state.apply(state.parse_event({"type": "bet", "player": "Bob", "on": "pool", "amount": 1}))
    refused(state, {"type": "card", "to": "stock", "card": "QD"},
            "a second QD, but a 1-pack shoe holds one")


def test_nine_players_are_too_many() -> None:
    with pytest.raises(IllegalEventError, match="at most 8 players"):
        get_game("red-dog").new_state([f"P{n}" for n in range(9)])
