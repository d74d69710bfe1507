"""Blind Hookey: bets before the turning, the dealer's packet, ties to the banker, 1/17."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import pytest

from engine.cards.blind_hookey import banker_chance
from engine.cards.core import ShoeCount
from engine.core import State
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

PLAYERS = ["Ann", "Bob", "Cy"]


def play(events: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None) -> State:
    state = get_game("blind-hookey").new_state(PLAYERS, options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def card(to: str, code: str) -> dict[str, Any]:
    return {"type": "card", "to": to, "card": code}


def bet(player: str, on: str, amount: int = 5) -> dict[str, Any]:
    return {"type": "bet", "player": player, "on": on, "amount": amount}


TWO_BETS = [bet("Bob", "1"), bet("Cy", "2")]


@pytest.mark.parametrize(("events", "bad", "message"), [
    (TWO_BETS, bet("Bob", "3"), "it is the only packet left without a bet"),
    ([card("1", "QH")], bet("Bob", "2"), "the packets are being turned"),
    ([], bet("Ann", "1"), "the banker takes the bets"),
    ([], bet("Bob", "4"), "takes bets on 1, 2, 3; not on '4'"),
    ([card("1", "QH")], card("1", "2C"), "its bottom card is turned already"),
    ([card("1", "QH")], card("2", "QH"), "a second QH"),
    ([], card("dealer", "QH"), "deals to 1, 2, 3"),
])
def test_bad_events_are_refused_before_anything_changes(
        events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state = play(events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


def test_the_banker_edge_is_the_ties_one_in_seventeen() -> None:
    tie, higher = banker_chance(ShoeCount().remaining())
    assert (tie, higher) == (Fraction(1, 17), Fraction(8, 17))
    state = play([])
    op = state.apply(state.parse_event(bet("Bob", "1")))
    assert "his edge, the ties, is 1/17 of the stake (5.88%)" in op.rulings[0].text


def test_with_no_bets_the_last_packet_is_the_dealers() -> None:
    state = play([card("2", "AS"), card("1", "2S"), card("3", "KD")])
    assert state.snapshot()["last_deal"] == {"1": ["2S"], "2": ["AS"], "3": ["KD"]}
    assert state.snapshot()["dealer_packet"] is None
    state = play([bet("Bob", "3"), card("1", "2S")])
    assert state.snapshot()["dealer_packet"] == "2"


def test_a_new_deal_is_a_fresh_pack() -> None:
    events = [card("1", "2S"), card("2", "AS"), card("3", "KD")]
    state = play([*events, *events], {"deals": 2})
    assert state.snapshot()["over"] is True
    with pytest.raises(IllegalEventError, match="the game is over"):
        state.apply(state.parse_event(bet("Bob", "1")))


@pytest.mark.parametrize("options", [{"packets": 1}, {"packets": 14}, {"deals": 0}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptionError):
        get_game("blind-hookey").new_state(PLAYERS, options)
