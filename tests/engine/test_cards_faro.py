"""Faro and Stuss: cards and bets refused, the layout's spots, options, exact split chances."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import pytest

from engine.cards.core import FULL_PACK
from engine.cards.faro_rules import FARO, SAMPLE_SPOTS, SPOT_NAMES, STUSS, split_chance
from engine.core import State
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

PLAYERS = ["Ann", "Bob", "Cy"]


def play(events: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None,
         game: str = "faro") -> State:
    state = get_game(game).new_state(PLAYERS, options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def card(to: str, code: str) -> dict[str, Any]:
    return {"type": "card", "to": to, "card": code}


def bet(player: str, on: str, amount: int = 5, **more: Any) -> dict[str, Any]:
    return {"type": "bet", "player": player, "on": on, "amount": amount, **more}


def whole_deal(last_three: Sequence[str]) -> list[dict[str, Any]]:
    """A deal whose last turn is `last_three` (loser, winner, hockelty)."""
    rest = [c.code for c in FULL_PACK if c.code not in last_three]
    codes = [*rest, *last_three]
    events = []
    for i, code in enumerate(codes):
        to = "soda" if i == 0 else "hockelty" if i == 51 else "loser" if i % 2 else "winner"
        events.append(card(to, code))
    return events


SODA = [card("soda", "2C")]
MID_TURN = [*SODA, card("loser", "7H")]


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], card("loser", "7H"), "the soda is next"),
    (SODA, card("winner", "7H"), "the loser of turn 1 is next"),
    (SODA, card("loser", "2C"), "a second 2C, but a 1-pack shoe holds one"),
    (SODA, card("loser", "1H"), "there is no card '1H'"),
    (SODA, card("banker", "7H"), "deals to soda, loser, winner, hockelty"),
    (MID_TURN, bet("Bob", "K"), "the turn is being made"),
    (SODA, bet("Ann", "K"), "the banker takes the bets"),
    (SODA, bet("Bob", "K-9"), "no spot of the faro layout"),
    (SODA, bet("Bob", "K", 0), "amount must be"),
    (SODA, bet("Bob", "K", copper="yes"), "copper must be true or false"),
    (SODA, bet("Bob", "call", order=["9", "Q"]), "only on the last turn"),
    (SODA, bet("Bob", "K", order=["9", "Q"]), "only a call of the turn"),
    (SODA, {"type": "withdraw", "player": "Bob", "on": "K"}, "Bob has no bet on K"),
    (SODA, {"type": "stand", "player": "Bob"}, "no 'stand' event"),
])
def test_bad_events_are_refused_before_anything_changes(
        events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state = play(events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


def test_a_dead_card_takes_no_bet() -> None:
    kings = [card("soda", "KS"), card("loser", "KH"), card("winner", "KD"),
             card("loser", "KC"), card("winner", "2C")]
    state = play(kings)
    assert state.snapshot()["cases"]["K"] == 0
    with pytest.raises(IllegalEventError, match="dead card"):
        state.apply(state.parse_event(bet("Bob", "K")))
    state.apply(state.parse_event(bet("Bob", "Q-K")))  # the queens are still live


def test_a_bet_without_action_stays_and_may_be_withdrawn() -> None:
    state = play([*SODA, bet("Bob", "K", 10), card("loser", "3H"), card("winner", "4H")])
    assert state.snapshot()["bets"] == [
        {"player": "Bob", "on": "K", "amount": 10, "copper": False}]
    op = state.apply(state.parse_event({"type": "withdraw", "player": "Bob", "on": "K"}))
    assert [r.kind for r in op.rulings] == ["withdraw"]
    assert state.snapshot()["bets"] == []


def test_spots_are_written_in_pack_order_whatever_order_they_are_given() -> None:
    state = play([*SODA, bet("Bob", "10-9-4-5")])
    assert state.snapshot()["bets"][0]["on"] == "4-5-9-10"
    assert set(SAMPLE_SPOTS) <= set(SPOT_NAMES)
    # 13 cards, 18 between, 8 next-but-one, 8 behind the edge, 5 squares, 20 corners,
    # 10 heeled: every spot the text describes on the two-row layout.
    assert len(SPOT_NAMES) == 13 + 18 + 8 + 8 + 5 + 20 + 10


def test_the_banker_collects_before_he_pays() -> None:
    state = play([*SODA, bet("Bob", "K", 10), bet("Cy", "7", 3)])
    op = state.apply(state.parse_event(card("loser", "7H")))
    op = state.apply(state.parse_event(card("winner", "KS")))
    assert [r.kind for r in op.rulings] == ["turn", "bet-lost", "bet-won"]


@pytest.mark.parametrize(("options", "odd_split"), [({}, -3), ({"odd_chip": "player"}, -2)])
def test_the_odd_chip_of_a_split(options: dict[str, Any], odd_split: int) -> None:
    state = play([*SODA, bet("Bob", "4"), card("loser", "4S"), card("winner", "4H")], options)
    assert state.snapshot()["sheet"][1] == {"player": "Bob", "total": odd_split}


def test_a_call_names_cards_that_are_left() -> None:
    events = whole_deal(["3S", "9D", "QH"])[:-3]
    state = play(events)
    assert state.snapshot()["calling"] is True
    with pytest.raises(IllegalEventError, match="the cards left are 3-9-Q; 9-9 cannot come"):
        state.apply(state.parse_event(bet("Bob", "call", order=["9", "9"])))
    op = state.apply(state.parse_event(bet("Bob", "call", order=["9", "Q"])))
    assert "a chance of 1/6, fair at 5 to 1" in op.rulings[0].text


def test_three_of_a_denomination_cannot_be_called() -> None:
    state = play(whole_deal(["9S", "9D", "9H"])[:-3])
    assert state.snapshot()["calling"] is False
    with pytest.raises(IllegalEventError, match="all one denomination"):
        state.apply(state.parse_event(bet("Bob", "call", order=["9", "9"])))


def test_a_session_of_two_deals_and_nothing_after_the_end() -> None:
    deal = whole_deal(["3S", "9D", "QH"])
    state = play([*deal, bet("Bob", "K")], {"deals": 2})
    assert state.snapshot()["over"] is False
    assert state.snapshot()["shoe"] == {"packs": 1, "dealt": 0, "left": 52}
    for data in deal:
        state.apply(state.parse_event(data))
    assert state.snapshot()["over"] is True
    with pytest.raises(IllegalEventError, match="the game is over"):
        state.apply(state.parse_event(card("soda", "2C")))


def test_bets_left_at_the_hockelty_are_taken_back() -> None:
    deal = whole_deal(["9D", "QH", "3S"])
    state = play(deal[:-3])
    state.apply(state.parse_event(bet("Bob", "3", 7)))
    for data in deal[-3:-1]:
        state.apply(state.parse_event(data))
    op = state.apply(state.parse_event(deal[-1]))
    assert [r.kind for r in op.rulings][:2] == ["hockelty", "no-action"]
    assert state.snapshot()["sheet"][1]["total"] == 0


@pytest.mark.parametrize(("options", "name"), [
    ({"deals": 0}, "deals"), ({"calling_pays": "4-for-1"}, "calling_pays"),
    ({"odd_chip": "house"}, "odd_chip")])
def test_bad_options_are_refused(options: dict[str, Any], name: str) -> None:
    with pytest.raises(BadOptionError, match=name):
        get_game("faro").new_state(PLAYERS, options)


def test_stuss_has_no_odd_chip_and_cites_faro_save_its_own_lines() -> None:
    with pytest.raises(BadOptionError, match="no option 'odd_chip'"):
        get_game("stuss").new_state(PLAYERS, {"odd_chip": "banker"})
    laws = get_game("stuss").laws()
    assert all(law.lines[0] >= 11702 and law.lines[1] <= 11861 for law in laws)
    assert STUSS.law("settle").lines == (11859, 11861)
    own = (FARO.law("box"), FARO.law("settle"))
    assert all(law in laws for law in get_game("faro").laws() if law not in own)


def test_split_chance_by_counting_every_arrangement() -> None:
    """The closed form equals a count over every place 3 copies can lie in 11 cards."""
    cards, copies = 11, 3  # 5 turns and the hockelty
    split = 0
    for places in combinations(range(cards), copies):
        first = min((p // 2 for p in places if p < cards - 1), default=None)
        split += first is not None and {2 * first, 2 * first + 1} <= set(places)
    assert split_chance(cards, copies, soda_pending=False) == Fraction(split,
                                                                     comb(cards, copies))
    assert split_chance(52, 4, soda_pending=True) == Fraction(33, 833)


def test_the_split_chance_agrees_with_shuffled_packs() -> None:
    """Dealt from seeded shuffles, the first turn with a K splits about 33 times in 833."""
    rng = random.Random(7)
    splits = 0
    trials = 2000
    for _ in range(trials):
        ranks = [c.rank for c in FULL_PACK]
        rng.shuffle(ranks)
        turns = [ranks[i:i + 2] for i in range(1, 51, 2)]
        first = next(t for t in turns if "K" in t)
        splits += first == ["K", "K"]
    assert abs(Fraction(splits, trials) - Fraction(33, 833)) < Fraction(3, 100)


def withdraw(player: str, on: str, **more: Any) -> dict[str, Any]:
    return {"type": "withdraw", "player": player, "on": on, **more}


def test_a_withdrawal_names_the_flat_or_coppered_stake_and_how_much() -> None:
    """Lines 11755-11765: a bet flat to win, a copper on top to lose; lines 11766-11768: with
    no action after a turn "the player is at liberty to change his bet, or to remove it
    altogether"."""
    state = play([*SODA, bet("Bob", "K", 10), bet("Bob", "K", 5, copper=True)])
    for data in (withdraw("Bob", "K", copper=True), withdraw("Bob", "K", copper=False,
                                                             amount=4)):
        assert state.parse_event(data).to_json() == data
    (ruling,) = state.apply(state.parse_event(withdraw("Bob", "K", copper=True))).rulings
    assert (ruling.kind, ruling.who, ruling.amount) == ("withdraw", "Bob", 5)
    assert ruling.law.lines == (11755, 11770)
    assert state.snapshot()["bets"] == [
        {"player": "Bob", "on": "K", "amount": 10, "copper": False}]
    (ruling,) = state.apply(state.parse_event(withdraw("Bob", "K", copper=False,
                                                       amount=4))).rulings
    assert ruling.amount == 4 and "6 stays on it" in ruling.text
    assert state.snapshot()["bets"] == [
        {"player": "Bob", "on": "K", "amount": 6, "copper": False}]
    # The 6 left is what the king's turn decides: it wins, even money.
    op = state.apply(state.parse_event(card("loser", "3H")))
    op = state.apply(state.parse_event(card("winner", "KD")))
    assert [(r.kind, r.amount) for r in op.rulings if r.who == "Bob"] == [("bet-won", 6)]


def test_part_of_two_bets_on_a_spot_comes_off_the_last_placed() -> None:
    state = play([*SODA, bet("Bob", "5-8", 5), bet("Bob", "5-8", 3),
                  withdraw("Bob", "5-8", copper=False, amount=4)])
    assert state.snapshot()["bets"] == [
        {"player": "Bob", "on": "5-8", "amount": 4, "copper": False}]
    # A withdrawal naming no stake still takes back every stake on the spot.
    state.apply(state.parse_event(bet("Bob", "5-8", 2, copper=True)))
    (ruling,) = state.apply(state.parse_event(withdraw("Bob", "5-8"))).rulings
    assert ruling.amount == 6
    assert state.snapshot()["bets"] == []


@pytest.mark.parametrize(("data", "message"), [
    (withdraw("Bob", "K", copper=False, amount=11),
     "withdraw: Bob's flat bet on K is 10; he cannot take back 11"),
    (withdraw("Bob", "K", amount=1),
     r"Bob has a flat and a coppered bet on K; name which \(copper true or false\)"),
    (withdraw("Bob", "Q", copper=True), "withdraw: Bob has no coppered bet on Q"),
    (withdraw("Bob", "K", copper="yes"), "withdraw: copper must be true or false, not 'yes'"),
    (withdraw("Bob", "K", copper=False, amount=0),
     "withdraw: amount must be a whole number 1-1,000,000, got 0"),
])
def test_a_withdrawal_that_cannot_be_is_refused_by_name(data: dict[str, Any],
                                                        message: str) -> None:
    state = play([*SODA, bet("Bob", "K", 10), bet("Bob", "K", 5, copper=True),
                  bet("Bob", "Q", 2)])
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(data))
    assert state.snapshot() == before
