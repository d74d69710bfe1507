"""Rouge et Noir: closed rows, late bets, the six-pack shoe, prison and the options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.cards.core import parse_card
from engine.cards.rouge_et_noir import row_total
from engine.core import State
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game


def table(events: Sequence[Mapping[str, Any]], **options: Any) -> State:
    state = get_game("rouge-et-noir").new_state(["Ann", "Bob", "Cy"], options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def row(to: str, *codes: str) -> list[dict[str, Any]]:
    return [{"type": "card", "to": to, "card": code} for code in codes]


def refused(state: State, data: Mapping[str, Any], message: str) -> None:
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(data))
    assert state.save() == before


def test_court_cards_count_ten_and_the_ace_one() -> None:
    assert row_total([parse_card(c) for c in ("KS", "QH", "JD", "AC")]) == 31


def test_red_comes_after_black_passes_thirty_and_black_then_closes() -> None:
    state = table(row("noir", "10S", "10H"))
    refused(state, {"type": "card", "to": "rouge", "card": "5D"},
            "red's row comes after black's passes 30")
    state.apply(state.parse_event({"type": "card", "to": "noir", "card": "KD"}))
    state.apply(state.parse_event({"type": "card", "to": "noir", "card": "AD"}))
    refused(state, {"type": "card", "to": "noir", "card": "5D"},
            "black's row is closed at 31")


def test_a_bet_after_the_first_card_is_refused() -> None:
    state = table(row("noir", "10S"))
    refused(state, {"type": "bet", "player": "Bob", "on": "rouge", "amount": 5},
            "a bet comes before the coup's first card")
    refused(state, {"type": "shuffle"}, "the shoe is shuffled between coups")


def test_a_seventh_copy_is_refused_by_the_six_pack_shoe() -> None:
    state = table([*row("noir", "AS", "AS", "AS", "AS", "AS", "AS")])
    refused(state, {"type": "card", "to": "noir", "card": "AS"},
            "a seventh AS, but a 6-pack shoe holds 6")


def test_prison_only_for_a_stake_a_refait_caught() -> None:
    state = table([{"type": "bet", "player": "Bob", "on": "noir", "amount": 10}])
    refused(state, {"type": "prison", "player": "Bob"}, "Bob has no stake caught by a refait")


def test_an_odd_stake_halved_at_a_refait_then_the_banker_keeps_the_half() -> None:
    refait = [{"type": "bet", "player": "Bob", "on": "couleur", "amount": 7},
              *row("noir", "10S", "10H", "10D", "AS"), *row("rouge", "KH", "KD", "KC", "AH")]
    state = table([*refait, *row("noir", "5S")])
    sheet = {s["player"]: s["total"] for s in state.snapshot()["sheet"]}
    assert sheet == {"Ann": 3, "Bob": -3, "Cy": 0}


@pytest.mark.parametrize("options, message", [
    ({"couleur": "inverse"}, "couleur must be 'winning-row' or 'first-card'"),
    ({"deals": True}, "deals must be a whole number"),
])
def test_bad_options_are_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game("rouge-et-noir").new_state(["Ann"], options)


REFAIT_ROWS = [*row("noir", "10S", "10H", "10D", "AS"), *row("rouge", "KH", "KD", "KC", "AH")]


def test_prison_takes_the_one_stake_it_names() -> None:
    """Lines 16308-16312: at a refait "the bank takes half of all the money on the table, or
    players may push it into a 'little prison', and if the same color they bet upon comes
    next time, they save their stake": Bob pushes his rouge stake and lets the bank halve
    his couleur stake."""
    state = table([{"type": "bet", "player": "Bob", "on": "rouge", "amount": 10},
                   {"type": "bet", "player": "Bob", "on": "couleur", "amount": 6},
                   *REFAIT_ROWS])
    push = {"type": "prison", "player": "Bob", "on": "rouge"}
    assert state.parse_event(push).to_json() == push
    (ruling,) = state.apply(state.parse_event(push)).rulings
    assert (ruling.kind, ruling.who, ruling.amount) == ("prison", "Bob", 10)
    assert ruling.law.lines == (16308, 16312)
    snapshot = state.snapshot()
    assert snapshot["prison"] == [{"player": "Bob", "on": "rouge", "amount": 10}]
    assert snapshot["refait"] == [{"player": "Bob", "on": "couleur", "amount": 6}]
    # Red wins the next coup: the rouge stake is saved; the bank kept half the couleur, 3.
    for data in [*row("noir", "10C", "10S", "10H", "5S"), *row("rouge", "10D", "KS", "KH", "AD")]:
        state.apply(state.parse_event(data))
    sheet = {s["player"]: s["total"] for s in state.snapshot()["sheet"]}
    assert sheet == {"Ann": 3, "Bob": -3, "Cy": 0}


def test_prison_names_a_stake_the_refait_caught() -> None:
    state = table([{"type": "bet", "player": "Bob", "on": "rouge", "amount": 10}, *REFAIT_ROWS])
    refused(state, {"type": "prison", "player": "Bob", "on": "noir"},
            "prison by Bob: Bob has no stake on noir caught by a refait")
    refused(state, {"type": "prison", "player": "Bob", "on": "red"},
            "prison: a stake is on rouge, noir, couleur, inverse; not on 'red'")
