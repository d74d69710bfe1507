"""Monte Bank: the Spanish pack, the order of the layouts and the gate, exact layout chances."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import pytest

from engine.cards.core import ShoeCount, parse_card
from engine.cards.monte_bank import SPANISH_PACK, layout_chance
from engine.core import State
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

PLAYERS = ["Ann", "Bob", "Cy"]


def play(events: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None) -> State:
    state = get_game("monte-bank").new_state(PLAYERS, options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def card(to: str, code: str) -> dict[str, Any]:
    return {"type": "card", "to": to, "card": code}


def bet(player: str, on: str, amount: int = 5) -> dict[str, Any]:
    return {"type": "bet", "player": player, "on": on, "amount": amount}


BOTTOM = [card("bottom", "5S"), card("bottom", "2H")]
MADE = [*BOTTOM, card("top", "3C"), card("top", "KS")]


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], card("top", "3C"), "drawing the bottom layout"),
    ([], card("gate", "3C"), "drawing the bottom layout"),
    (BOTTOM, card("bottom", "3C"), "the bottom layout has its two cards"),
    (MADE, card("top", "3D"), "the top layout has its two cards"),
    ([], card("bottom", "9C"), "there is no 9C in the 40-card Spanish pack"),
    (MADE, card("gate", "10H"), "there is no 10H"),
    (MADE, card("gate", "KS"), "a second KS"),
    (BOTTOM, bet("Bob", "bottom"), "bets go on made layouts"),
    (MADE, bet("Ann", "top"), "the banker takes the bets"),
    (MADE, bet("Bob", "gate"), "takes bets on bottom, top; not on 'gate'"),
])
def test_bad_events_are_refused_before_anything_changes(
        events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state = play(events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


def test_a_bet_shows_the_exact_chance_of_the_gate() -> None:
    state = play(MADE)
    op = state.apply(state.parse_event(bet("Bob", "top")))
    assert "exactly 17/36" in op.rulings[0].text
    assert "the banker's edge is 1/18" in op.rulings[0].text


def test_layout_chance_counts_the_cards_left() -> None:
    shoe = ShoeCount(cards=SPANISH_PACK)
    for code in ("5S", "2S", "3C", "KH"):
        shoe.add(parse_card(code), code)
    one_suit = [parse_card("5S"), parse_card("2S")]
    assert layout_chance(one_suit, shoe.remaining()) == Fraction(8, 36)


def test_eight_deals_spend_the_pack_and_it_is_shuffled_again() -> None:
    state = get_game("monte-bank").new_state(PLAYERS, {"deals": 9})
    codes = [c.code for c in SPANISH_PACK]
    for deal in range(8):
        five = codes[deal * 5:deal * 5 + 5]
        for to, code in zip(("bottom", "bottom", "top", "top", "gate"), five, strict=True):
            state.apply(state.parse_event(card(to, code)))
    snap = state.snapshot()
    assert snap["deals"] == 8 and snap["shoe"] == {"packs": 1, "dealt": 0, "left": 40}
    assert snap["over"] is False
    for to, code in zip(("bottom", "bottom", "top", "top", "gate"), codes[:5], strict=True):
        state.apply(state.parse_event(card(to, code)))
    assert state.snapshot()["over"] is True
    with pytest.raises(IllegalEventError, match="the game is over"):
        state.apply(state.parse_event(card("bottom", "AS")))


@pytest.mark.parametrize("options", [{"deals": 0}, {"gate": "suit"}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptionError):
        get_game("monte-bank").new_state(PLAYERS, options)
