"""Baccara and Chemin de Fer: what a croupier would check beyond the book vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.cards.baccara_rules import point
from engine.cards.core import parse_card
from engine.core import Ruling, State
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

SIX_FOUR = [("right", "3S"), ("left", "2C"), ("banker", "4H"),
            ("right", "3H"), ("left", "2D"), ("banker", "KD")]


def table(game: str, players: Sequence[str], events: Sequence[Mapping[str, Any]],
          **options: Any) -> State:
    state = get_game(game).new_state(players, options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def cards(deal: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    return [{"type": "card", "to": to, "card": card} for to, card in deal]


def refused(state: State, data: Mapping[str, Any], message: str) -> None:
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(data))
    assert state.save() == before


@pytest.mark.parametrize("hand, expected", [
    (["9S", "5D"], 4), (["7C", "3H"], 0), (["KS", "QH"], 0), (["AS", "7D"], 8),
    (["10C", "9H"], 9), (["6S", "6D", "6H"], 8),
])
def test_only_the_last_figure_counts(hand: list[str], expected: int) -> None:
    assert point(parse_card(code) for code in hand) == expected


def test_a_card_out_of_the_deal_order_is_refused() -> None:
    state = table("baccara", ["Ann", "Bob", "Cy"], cards(SIX_FOUR[:1]))
    refused(state, {"type": "card", "to": "banker", "card": "2S"},
            "banker hand is closed; the next card goes to left")


def test_a_card_that_does_not_exist_is_refused() -> None:
    state = table("baccara", ["Ann", "Bob", "Cy"], [])
    with pytest.raises(IllegalEventError, match="there is no card '11H'"):
        state.parse_event({"type": "card", "to": "right", "card": "11H"})


def test_a_fourth_copy_from_a_three_pack_stock_is_refused() -> None:
    state = table("baccara", ["Ann", "Bob", "Cy"],
                  cards([("right", "AS"), ("left", "AS"), ("banker", "AS")]))
    refused(state, {"type": "card", "to": "right", "card": "AS"},
            "a fourth AS, but a 3-pack shoe holds 3")


def test_a_bet_after_the_deal_has_begun_is_refused() -> None:
    state = table("baccara", ["Ann", "Bob", "Cy"], cards(SIX_FOUR[:2]))
    refused(state, {"type": "bet", "player": "Cy", "on": "right", "amount": 5},
            "bets are made before the deal")


def test_the_banker_does_not_bet_and_a_cheval_needs_both_sides() -> None:
    state = table("baccara", ["Ann", "Bob"], [])
    refused(state, {"type": "bet", "player": "Ann", "on": "right", "amount": 5},
            "the banker takes the bets")
    refused(state, {"type": "bet", "player": "Bob", "on": "cheval", "amount": 5},
            "a cheval needs a player on each side")
    refused(state, {"type": "bet", "player": "Bob", "on": "left", "amount": 5},
            "no one holds the left hand")


def test_a_closed_hand_takes_no_card_and_acts_go_in_turn() -> None:
    state = table("baccara", ["Ann", "Bob", "Cy"],
                  [*cards(SIX_FOUR), {"type": "offer", "player": "Ann"}])
    refused(state, {"type": "draw", "player": "Cy"}, "not Cy's turn")
    refused(state, {"type": "card", "to": "right", "card": "5S"}, "no card is due")
    state.apply(state.parse_event({"type": "stand", "player": "Bob"}))
    state.apply(state.parse_event({"type": "draw", "player": "Cy"}))
    refused(state, {"type": "card", "to": "right", "card": "5S"},
            "the right hand is closed; the next card goes to left")


def test_banco_is_the_whole_bank_and_not_three_times_running() -> None:
    deal = [*cards([("right", "2S"), ("left", "AD"), ("banker", "9H"),
                    ("right", "2H"), ("left", "AH"), ("banker", "KC")])]
    banco = {"type": "bet", "player": "Cy", "on": "banco-right", "amount": 50}
    state = table("baccara", ["Ann", "Bob", "Cy"], [], bank=50)
    refused(state, {**banco, "amount": 40}, "banco bets the whole bank, 50")
    for _ in range(2):
        state.apply(state.parse_event({**banco, "amount": state.snapshot()["bank"]}))
        for data in deal:
            state.apply(state.parse_event(data))
        state.apply(state.parse_event({"type": "shuffle"}))
    assert state.snapshot()["bank"] == 200
    assert state.snapshot()["sheet"] == [{"player": "Ann", "total": 150},
                                         {"player": "Bob", "total": 0},
                                         {"player": "Cy", "total": -150}]
    refused(state, {**banco, "amount": 200}, "Cy may not go banco more than twice running")
    state.apply(state.parse_event({"type": "bet", "player": "Bob", "on": "banco-left",
                                   "amount": 200}))
    refused(state, {"type": "bet", "player": "Cy", "on": "left", "amount": 1},
            "banco takes precedence of all other bets")


def test_a_side_that_loses_passes_its_hand_beyond() -> None:
    players = ["Ann", "Bob", "Cy", "Dan", "Eve"]
    losing = cards([("right", "2S"), ("left", "2D"), ("banker", "9H"),
                    ("right", "3S"), ("left", "3D"), ("banker", "KC")])
    state = table("baccara", players, losing)
    assert state.snapshot()["holders"] == {"right": "Dan", "left": "Eve"}


def test_chemin_de_fer_no_pass_after_giving_a_card() -> None:
    tie = [*cards([("right", "3H"), ("banker", "4H"), ("right", "3D"), ("banker", "2S")]),
           {"type": "offer", "player": "Ann"}, {"type": "draw", "player": "Cy"},
           {"type": "card", "to": "right", "card": "KS"}, {"type": "stand", "player": "Ann"}]
    state = table("chemin-de-fer", ["Ann", "Bob", "Cy"], tie)
    refused(state, {"type": "pass", "player": "Ann"}, "only after a tie in which he gave no")
    assert state.snapshot()["banker"] == "Ann"


def test_chemin_de_fer_deals_from_six_packs() -> None:
    state = get_game("chemin-de-fer").new_state(["Ann", "Bob"])
    assert state.snapshot()["shoe"] == {"packs": 6, "dealt": 0, "left": 312}


@pytest.mark.parametrize("options, message", [
    ({"natural_nine": "banker"}, "natural_nine must be 'point' or 'pay'"),
    ({"deals": 0}, "deals must be a whole number 1-200"),
    ({"seats": 3}, "no option 'seats'"),
])
def test_bad_options_are_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game("baccara").new_state(["Ann", "Bob"], options)


def test_baccara_seats_eleven_at_most() -> None:
    with pytest.raises(IllegalEventError, match="at most 11 players"):
        get_game("baccara").new_state([f"P{n}" for n in range(12)])


SHORT_BANK_NATURAL = cards([("right", "5H"), ("left", "2D"), ("banker", "4H"),
                            ("right", "3C"), ("left", "2S"), ("banker", "2H")])


def spectator_bet(name: str, on: str, amount: int) -> dict[str, Any]:
    return {"type": "bet", "spectator": name, "on": on, "amount": amount}


def test_a_spectator_bets_and_a_short_bank_pays_him_after_the_players() -> None:
    """Lines 1440-1441: "any player or spectator can bet"; 1511-1515: a short bank pays the
    hands, then the players beyond, "and the spectators last"."""
    state = table("baccara", ["Ann", "Bob", "Cy", "Dan"], [], bank=20)
    bet = spectator_bet("Dora", "right", 10)
    assert state.parse_event(bet).to_json() == bet
    (ruling,) = state.apply(state.parse_event(bet)).rulings
    assert (ruling.kind, ruling.who, ruling.amount) == ("bet", "Dora", 10)
    assert ruling.law.lines == (1440, 1449)
    state.apply(state.parse_event({"type": "bet", "player": "Dan", "on": "right",
                                   "amount": 15}))
    assert state.snapshot()["bets"] == [
        {"player": "Dora", "on": "right", "amount": 10, "spectator": True},
        {"player": "Dan", "on": "right", "amount": 15}]
    rulings: list[Ruling] = []
    for data in [*SHORT_BANK_NATURAL, {"type": "stand", "player": "Ann"}]:
        rulings.extend(state.apply(state.parse_event(data)).rulings)
    paid = [(r.kind, r.who, r.amount, r.law.lines) for r in rulings
            if r.kind in ("bet-won", "bank-short")]
    assert paid == [("bet-won", "Dan", 15, (1486, 1499)),
                    ("bank-short", "Dora", 5, (1511, 1515))]
    snapshot = state.snapshot()
    assert snapshot["spectators"] == {"Dora": 5}
    assert [s["player"] for s in snapshot["sheet"]] == ["Ann", "Bob", "Cy", "Dan"]
    assert snapshot["sheet"][0]["total"] == -20


def test_a_spectators_losing_bet_goes_to_the_banker() -> None:
    state = table("chemin-de-fer", ["Ann", "Bob"], [spectator_bet("Dora", "right", 7)])
    for data in cards([("right", "2S"), ("banker", "9H"), ("right", "3S"), ("banker", "KC")]):
        state.apply(state.parse_event(data))
    snapshot = state.snapshot()
    assert snapshot["spectators"] == {"Dora": -7}
    assert snapshot["sheet"] == [{"player": "Ann", "total": 7}, {"player": "Bob", "total": 0}]


@pytest.mark.parametrize("data, message", [
    (spectator_bet("Dora", "banco-right", 1000),
     r"a spectator bets on right, left, cheval \(only a player may propose banco\)"),
    (spectator_bet("Cy", "right", 5), "bet by Cy: Cy is seated; his bet names him as player"),
    ({**spectator_bet("Dora", "right", 5), "player": "Cy"},
     "names its player or its spectator, not both"),
    (spectator_bet("", "right", 5), "a spectator is named by 1-40 characters, got ''"),
    (spectator_bet("Dora", "right", 0), "amount must be a whole number 1-1,000,000, got 0"),
])
def test_a_spectators_bet_that_cannot_be_is_refused_by_name(data: dict[str, Any],
                                                            message: str) -> None:
    refused(table("baccara", ["Ann", "Bob", "Cy"], []), data, message)
