"""Lansquenet: where each card goes, bets on open players' cards, the redeal, options, odds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.core import State
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

PLAYERS = ["Ann", "Bob", "Cy"]


def play(events: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None) -> State:
    state = get_game("lansquenet").new_state(PLAYERS, options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def card(to: str, code: str) -> dict[str, Any]:
    return {"type": "card", "to": to, "card": code}


def bet(player: str, on: str, amount: int = 5) -> dict[str, Any]:
    return {"type": "bet", "player": player, "on": on, "amount": amount}


HAND = [card("hand", "3H"), card("hand", "9C")]
OPEN = [*HAND, card("banker", "KD"), card("players", "6S")]


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], card("banker", "3H"), "it goes to the hand cards"),
    (HAND, card("players", "KD"), "it goes to the banker card"),
    (HAND, card("banker", "3D"), "it goes to the hand cards"),
    (OPEN, card("players", "KS"), "it goes to the banker card"),
    (OPEN, card("players", "KD"), "a second KD"),
    (OPEN, card("players", "11C"), "there is no card '11C'"),
    (HAND, bet("Bob", "6"), "takes bets on nothing now"),
    (OPEN, bet("Bob", "7"), "takes bets on 6; not on '7'"),
    (OPEN, bet("Ann", "6"), "the banker covers the bets"),
    ([*OPEN, card("players", "6D")], bet("Bob", "6"), "takes bets on nothing now"),
    (OPEN, {"type": "redeal"}, "only when both hand cards are matched"),
])
def test_bad_events_are_refused_before_anything_changes(
        events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state = play(events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


def test_a_bet_shows_its_exact_chance() -> None:
    state = play(OPEN)
    op = state.apply(state.parse_event(bet("Bob", "6")))
    assert "exactly 1/2; the banker's edge 0" in op.rulings[0].text
    # The 6s paired, a third 6 is a players' card with one 6 left against three Ks.
    state = play([*OPEN, card("players", "6D"), card("players", "6H")])
    op = state.apply(state.parse_event(bet("Bob", "6")))
    assert "exactly 3/4; the banker's edge -1/2" in op.rulings[0].text


def test_a_third_card_of_a_paired_denomination_is_a_new_players_card() -> None:
    state = play([*OPEN, card("players", "6D"), card("players", "6H")])
    assert state.snapshot()["hands"]["players"] == ["6H"]
    assert state.snapshot()["hands"]["pairs"] == ["6S", "6D"]


@pytest.mark.parametrize(("options", "banker"), [({}, "Bob"), ({"deal_passes": "never"}, "Ann")])
def test_who_deals_after_the_banker_card_is_matched(options: dict[str, Any],
                                                     banker: str) -> None:
    state = play([*OPEN, card("banker", "KH")], options)
    assert state.snapshot()["banker"] == banker
    assert state.snapshot()["shoe"] == {"packs": 1, "dealt": 0, "left": 52}


def test_two_packs_hold_two_of_each_card() -> None:
    state = play([*OPEN, card("players", "6S")], {"packs": 2})
    assert state.snapshot()["hands"]["pairs"] == ["6S", "6S"]
    assert state.snapshot()["shoe"]["left"] == 104 - 5


def test_the_session_ends_when_each_has_held_the_bank() -> None:
    one = [*HAND, card("banker", "KD"), card("banker", "KS")]
    state = play([*one, *one], {"rounds": 1})
    assert state.snapshot()["over"] is False
    state.apply(state.parse_event(one[0]))
    for data in one[1:]:
        state.apply(state.parse_event(data))
    assert state.snapshot()["over"] is True
    with pytest.raises(IllegalEventError, match="the game is over"):
        state.apply(state.parse_event(one[0]))


@pytest.mark.parametrize(("options", "name"), [
    ({"packs": 3}, "packs"), ({"deal_passes": "hand-cards"}, "deal_passes"),
    ({"rounds": 0}, "rounds")])
def test_bad_options_are_refused(options: dict[str, Any], name: str) -> None:
    with pytest.raises(BadOptionError, match=name):
        get_game("lansquenet").new_state(PLAYERS, options)
