"""Under and Over Seven and Passe-Dix: bad events and options refused, exact chances."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from engine.core import State
from engine.dice.banking import PASSE_DIX, UNDER_OVER, PasseDixRules, UnderOverRules
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

PLAYERS = ["Ann", "Bob", "Cy"]


def play(game_id: str, events: Sequence[Mapping[str, Any]],
         options: Mapping[str, Any] | None = None) -> State:
    state = get_game(game_id).new_state(PLAYERS, options)
    for data in events:
        state.apply(state.parse_event(data))
    return state


def bet(player: str, on: str, amount: int = 5, **more: Any) -> dict[str, Any]:
    return {"type": "bet", "player": player, "on": on, "amount": amount, **more}


def throw(*dice: int) -> dict[str, Any]:
    return {"type": "throw", "dice": list(dice)}


LOST_BANK = [throw(1, 1, 1)]


@pytest.mark.parametrize(("game_id", "events", "bad", "message"), [
    ("under-and-over-seven", [], bet("Ann", "under"), "the banker takes the bets"),
    ("under-and-over-seven", [], bet("Bob", "field"), "takes bets on under, over, seven"),
    ("under-and-over-seven", [], bet("Bob", "under", number=3), "names no number"),
    ("under-and-over-seven", [], bet("Bob", "under", 0), "amount must be"),
    ("under-and-over-seven", [], bet("Bob", "under", True), "amount must be"),
    ("under-and-over-seven", [], bet("Zed", "under"), "unknown player 'Zed'"),
    ("under-and-over-seven", [], throw(3, 4, 5), "2 dice, got 3"),
    ("under-and-over-seven", [], throw(7, 1), "die 1 shows 7"),
    ("under-and-over-seven", [], throw(3, 0), "die 2 shows 0"),
    ("under-and-over-seven", [], {"type": "stand", "player": "Bob"}, "no 'stand' event"),
    ("under-and-over-seven", [], {"type": "rethrow", "reason": "cocked"}, "no throw to void"),
    ("under-and-over-seven", [throw(1, 2), {"type": "rethrow", "reason": "cocked"}],
     {"type": "rethrow", "reason": "cocked"}, "no throw to void"),
    ("under-and-over-seven", [throw(1, 2), bet("Bob", "over")],
     {"type": "rethrow", "reason": "cocked"}, "no throw to void"),
    ("passe-dix", [], throw(3, 4), "3 dice, got 2"),
    ("passe-dix", [], bet("Bob", "under"), "takes bets on against, not 'under'"),
    ("passe-dix", [], bet("Ann", "against"), "the banker takes the bets"),
    ("passe-dix", LOST_BANK, bet("Bob", "against"), "bet by Bob: the banker takes the bets"),
])
def test_bad_events_are_refused_before_anything_changes(
        game_id: str, events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state = play(game_id, events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


def test_nothing_after_the_end() -> None:
    state = play("under-and-over-seven", [throw(1, 2)], {"throws": 1})
    assert state.snapshot()["over"] is True
    for bad in (throw(3, 4), bet("Bob", "under")):
        with pytest.raises(IllegalEventError, match="the game is over"):
            state.apply(state.parse_event(bad))


@pytest.mark.parametrize(("game_id", "options", "name"), [
    ("under-and-over-seven", {"seven_pays": "3-for-1"}, "seven_pays"),
    ("under-and-over-seven", {"throws": 0}, "throws"),
    ("under-and-over-seven", {"throws": True}, "throws"),
    ("under-and-over-seven", {"rounds": 2}, "no option 'rounds'"),
    ("passe-dix", {"ten": "nobody"}, "ten"),
    ("passe-dix", {"rounds": 21}, "rounds"),
    ("passe-dix", {"throws": 5}, "no option 'throws'"),
])
def test_bad_options_are_refused_by_name(game_id: str, options: dict[str, Any],
                                         name: str) -> None:
    with pytest.raises(BadOptionError, match=name):
        get_game(game_id).new_state(PLAYERS, options)


def count(test: Any, dice: int) -> int:
    """How many of the 6**dice throws pass `test`, counted by plain loops."""
    return sum(1 for faces in product(range(1, 7), repeat=dice) if test(sum(faces)))


def test_under_and_over_seven_chances_by_enumeration() -> None:
    assert count(lambda t: t < 7, 2) == count(lambda t: t > 7, 2) == 15
    assert count(lambda t: t == 7, 2) == 6
    assert UNDER_OVER.win_chance("under", None) == Fraction(15, 36)
    assert UNDER_OVER.win_chance("seven", None) == Fraction(6, 36)
    assert UNDER_OVER.expectation("over", None) == Fraction(15 - 21, 36)
    assert UNDER_OVER.expectation("seven", None) == Fraction(6 * 3 - 30, 36)
    two_for_one = UnderOverRules(seven_pays="2-to-1")
    assert two_for_one.expectation("seven", None) == Fraction(6 * 2 - 30, 36)


def test_passe_dix_chances_by_enumeration() -> None:
    assert count(lambda t: t >= 10, 3) == 135
    assert PASSE_DIX.win_chance("against", None) == Fraction(81, 216)
    assert PASSE_DIX.expectation("against", None) == Fraction(-1, 4)
    fair = PasseDixRules(ten="players")
    assert fair.win_chance("against", None) == Fraction(count(lambda t: t <= 10, 3), 216)
    assert fair.expectation("against", None) == 0


def test_bet_rulings_state_the_exact_odds() -> None:
    state = get_game("under-and-over-seven").new_state(PLAYERS)
    under = state.apply(state.parse_event(bet("Bob", "under"))).rulings[0]
    assert "15 of the 36 ways" in under.text and "7 to 5 against" in under.text
    seven = state.apply(state.parse_event(bet("Bob", "seven"))).rulings[0]
    assert "5 to 1 against" in seven.text and "pays 3 to 1" in seven.text
    passe = get_game("passe-dix").new_state(PLAYERS)
    against = passe.apply(passe.parse_event(bet("Cy", "against"))).rulings[0]
    assert "81 of the 216 ways" in against.text and "5 to 3 against" in against.text


def test_the_seven_pays_option_changes_only_the_seven() -> None:
    events = [bet("Bob", "seven", 10), bet("Cy", "under", 10), throw(6, 1)]
    book = play("under-and-over-seven", events).snapshot()["sheet"]
    stake_in = play("under-and-over-seven", events, {"seven_pays": "2-to-1"}).snapshot()["sheet"]
    assert [s["total"] for s in book] == [-20, 30, -10]
    assert [s["total"] for s in stake_in] == [-10, 20, -10]


def test_the_passe_dix_bank_goes_round_the_table() -> None:
    state = play("passe-dix", [throw(5, 5, 5), throw(1, 1, 1)])
    assert state.snapshot()["banker"] == "Bob"
    state.apply(state.parse_event(throw(2, 2, 2)))
    assert state.snapshot()["banker"] == "Cy"
    assert state.outcome() is None
    state.apply(state.parse_event(throw(6, 2, 1)))
    assert state.snapshot()["over"] is True
    assert state.awaiting() == ()


def test_a_lone_banker_awaits_only_the_throw() -> None:
    state = get_game("passe-dix").new_state(["Ann"])
    assert [a.fact for a in state.awaiting()] == ["throw"]
    assert all(event.type != "bet" for event in state.legal_events())
