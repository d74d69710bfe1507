"""Farmer: the 45-card pack, the auction, turns to draw, closed hands and the new farm."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.cards.core import parse_card
from engine.cards.farmer import FARMER_PACK, points
from engine.core import State
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

PLAYERS = ["Ann", "Bob", "Cy"]
SOLD: list[dict[str, Any]] = [{"type": "bid", "player": "Ann", "amount": 2}, {"type": "sold"}]


def play(events: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None,
         players: Sequence[str] = PLAYERS) -> State:
    state = get_game("farmer").new_state(players, options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def card(to: str, code: str) -> dict[str, Any]:
    return {"type": "card", "to": to, "card": code, "up": False}


def stand(player: str) -> dict[str, Any]:
    return {"type": "stand", "player": player}


DEALT = [*SOLD, card("Bob", "10S"), card("Cy", "KD")]


def test_the_pack_and_the_count() -> None:
    assert len(FARMER_PACK) == 45
    assert parse_card("6H") in FARMER_PACK and parse_card("6S") not in FARMER_PACK
    assert points([parse_card(c) for c in ("KS", "QH", "JD")]) == 30
    assert points([parse_card(c) for c in ("AS", "6H", "9C")]) == 16


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], {"type": "sold"}, "no one has bid"),
    ([], card("Bob", "5H"), "the farm has not been sold"),
    ([{"type": "bid", "player": "Bob", "amount": 3}], {"type": "bid", "player": "Cy",
                                                       "amount": 3}, "Bob has bid 3"),
    (SOLD, {"type": "bid", "player": "Bob", "amount": 9}, "not at auction"),
    (SOLD, card("Ann", "5H"), "the farmer deals none to himself"),
    (SOLD, card("Cy", "5H"), "the next card goes to Bob"),
    (SOLD, card("Bob", "8H"), "there is no 8H in the farmer's pack"),
    (SOLD, card("Bob", "6S"), "there is no 6S"),
    (DEALT, stand("Bob"), "every player must take one card"),
    (DEALT, stand("Cy"), "not his turn"),
    (DEALT, card("Cy", "2C"), "Bob is drawing"),
    ([*DEALT, card("Bob", "2C"), stand("Bob")], card("Bob", "3C"), "his hand is closed"),
    ([*DEALT, card("Bob", "2C")], card("Cy", "2C"), "Bob is drawing"),
    ([*DEALT, card("Bob", "2C"), stand("Bob")], card("Cy", "2C"), "a second 2C"),
])
def test_bad_events_are_refused_before_anything_changes(
        events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state = play(events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


def test_the_farm_is_made_and_sold() -> None:
    state = play(SOLD)
    snap = state.snapshot()
    assert snap["banker"] == "Ann" and snap["farm"] == 5 and snap["phase"] == "deal"
    assert [s["total"] for s in snap["sheet"]] == [-3, -1, -1]


@pytest.mark.parametrize(("new_farm", "banker", "phase"), [
    ("auction", None, "auction"), ("taker", "Bob", "deal")])
def test_after_a_16_the_next_farm(new_farm: str, banker: str | None, phase: str) -> None:
    events = [*DEALT, card("Bob", "6H"), stand("Bob"), card("Cy", "2C"), stand("Cy")]
    state = play(events, {"new_farm": new_farm, "deals": 2})
    snap = state.snapshot()
    assert snap["banker"] == banker and snap["phase"] == phase
    assert snap["hands"] == ({} if banker is None else {"Cy": [], "Ann": []})
    # Bob: his ante, the farm of 5 (3 antes, Ann's 2), a chip to Cy's 12 (nearest);
    # a taker's new farm takes his next ante at once, an auctioned one at its first bid.
    bob = next(s["total"] for s in snap["sheet"] if s["player"] == "Bob")
    assert bob == (3 if new_farm == "auction" else 2)


def test_without_a_16_the_same_farmer_deals_again() -> None:
    events = [*DEALT, card("Bob", "2C"), stand("Bob"), card("Cy", "3C"), stand("Cy")]
    state = play(events, {"deals": 2})
    snap = state.snapshot()
    assert snap["banker"] == "Ann" and snap["farm"] == 5 and snap["phase"] == "deal"
    assert snap["shoe"]["left"] == 45


def test_a_lone_farmer_plays_out_his_deals_at_once() -> None:
    state = play(SOLD, {"deals": 3}, players=["Ann"])
    assert state.snapshot()["over"] is True
    assert state.snapshot()["sheet"] == [{"player": "Ann", "total": 0}]


@pytest.mark.parametrize(("options", "name"), [
    ({"ante": 0}, "ante"), ({"new_farm": "winner"}, "new_farm"), ({"deals": 101}, "deals")])
def test_bad_options_are_refused(options: dict[str, Any], name: str) -> None:
    with pytest.raises(BadOptionError, match=name):
        get_game("farmer").new_state(PLAYERS, options)
