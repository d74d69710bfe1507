"""The dice family: book vectors, exact chances by enumeration, and bad throws refused.

Each file in vectors/dice/ is one game id: `[[vector]]` tables play events through the
engine and give the net winnings worked out by hand from the cited lines; `[[odds]]`
tables give odds the book states beside the exact figure from enumerating the 36 throws.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from engine.core import HOYLE_1940
from engine.dice import laws
from engine.dice.core import chance, odds_against, odds_text, throws, ways
from engine.dice.craps import BOOK_ODDS, figures, point_chance
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import all_games, get_game
from tests.engine.book_vectors import (
    VECTORS,
    Entry,
    assert_cites_the_book,
    assert_docs_transcript,
    assert_plays_as_the_book,
    load_entries,
    play,
)

ODDS_KEYS = {"name", "book", "lines", "quote", "what", "book_odds", "exact"}

DICE_IDS = sorted(g.id for g in all_games() if g.family == "dice")


VECTORS_LIST = load_entries("dice", "vector")
ODDS_LIST = load_entries("dice", "odds")




@pytest.mark.parametrize("entry", VECTORS_LIST + ODDS_LIST, ids=lambda e: e.id)
def test_entry_cites_the_book(entry: Entry) -> None:
    assert entry.data["book"] == HOYLE_1940
    assert_cites_the_book(entry)


@pytest.mark.parametrize("vector", VECTORS_LIST, ids=lambda e: e.id)
def test_vector_plays_as_the_book(vector: Entry) -> None:
    snapshot = assert_plays_as_the_book(vector, frozenset({"caster", "point"}))
    data = vector.data
    if "caster" in data:
        assert snapshot["caster"] == data["caster"]
    if "point" in data:  # 0: no point is set
        assert (snapshot["point"] or 0) == data["point"]


@pytest.mark.parametrize("odds", ODDS_LIST, ids=lambda e: e.id)
def test_book_odds_beside_the_exact_figure(odds: Entry) -> None:
    data = odds.data
    assert ODDS_KEYS <= set(data) <= ODDS_KEYS | {"note"}
    exact = figures()[data["what"]]
    assert odds_text(exact) == data["exact"]
    stated = next(o for o in BOOK_ODDS if o.what == data["what"])
    assert stated.book == data["book_odds"]
    assert stated.agrees is (data["book_odds"] == data["exact"])
    assert f"{stated.law.lines[0]}-{stated.law.lines[1]}" == data["lines"]


def test_every_dice_game_has_vectors() -> None:
    files = {path.stem for path in (VECTORS / "dice").glob("*.toml")}
    assert files == set(DICE_IDS)


def test_the_ways_two_dice_fall() -> None:
    """Lines 3484-3500: 36 ways, 6 doublets, 21 different throws, totals 2-12."""
    assert len(list(throws(2))) == 36
    assert sum(1 for a, b in throws(2) if a == b) == 6
    assert len({tuple(sorted(d)) for d in throws(2)}) == 21
    assert [ways(total) for total in range(2, 13)] == [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]


def test_exact_chances_by_enumeration() -> None:
    found = figures()
    assert found["nick"] == Fraction(8, 36)
    assert found["crap"] == Fraction(4, 36)
    assert found["make-point"] == Fraction(67, 165)
    assert found["caster-wins"] == Fraction(244, 495)
    assert 1 - 2 * found["caster-wins"] == Fraction(7, 495)  # the house edge, 1.414 %
    assert found["field"] == Fraction(16, 36)
    assert [point_chance(p) for p in (4, 5, 6, 8, 9, 10)] == [
        Fraction(1, 3), Fraction(2, 5), Fraction(5, 11), Fraction(5, 11), Fraction(2, 5),
        Fraction(1, 3)]
    assert chance(lambda d: 7 in d, 1) == 0
    assert odds_against(Fraction(244, 495)) == (251, 244)


def test_caster_wins_by_following_every_throw() -> None:
    """Independently of `figures`: follow the game throw by throw until the decisions
    converge; the exact chance is the limit of these partial sums."""
    decided = {p: Fraction(0) for p in (4, 5, 6, 8, 9, 10)}
    open_ = {p: Fraction(1) for p in decided}
    for _ in range(200):
        for p in decided:
            decided[p] += open_[p] * Fraction(ways(p), 36)
            open_[p] *= Fraction(36 - ways(p) - 6, 36)
    total = Fraction(8, 36) + sum(Fraction(ways(p), 36) * decided[p] for p in decided)
    assert abs(float(total) - 244 / 495) < 1e-12


@pytest.mark.parametrize(("dice", "message"), [
    ([3, 0], "die 2 shows 0"), ([7, 1], "die 1 shows 7"), ([3], "2 dice, got 1"),
    ([1, 2, 3], "2 dice, got 3"), ([True, 2], "die 1 shows True"), ("34", "must be a list"),
])
def test_a_throw_that_cannot_be_is_refused(dice: Any, message: str) -> None:
    state = get_game("craps-private").new_state(["Ann"])
    with pytest.raises(IllegalEventError, match=message):
        state.parse_event({"type": "throw", "dice": dice})


@pytest.mark.parametrize(("game_id", "events", "bad", "message"), [
    ("craps-private", [], {"type": "rethrow", "reason": "cocked"}, "no throw to void"),
    ("craps-private", [{"type": "throw", "dice": [1, 1]}],
     {"type": "rethrow", "reason": "sneezed"}, "reason must be one of"),
    ("craps-private", [], {"type": "bet", "player": "Ann", "on": "pass", "amount": 5},
     "the caster takes the bets"),
    ("craps-private", [{"type": "throw", "dice": [2, 2]}],
     {"type": "bet", "player": "Bob", "on": "pass", "amount": 5}, "before the first throw"),
    ("craps-private", [], {"type": "bet", "player": "Bob", "on": "field", "amount": 5},
     "not 'field'"),
    ("craps-bank", [], {"type": "bet", "player": "Bob", "on": "field", "amount": 5},
     "while the caster tries for a point"),
    ("craps-bank", [], {"type": "bet", "player": "Bob", "on": "against", "amount": 5},
     "not 'against'"),
    ("craps-bank", [], {"type": "bet", "player": "Bob", "on": "pass", "amount": 0},
     "amount must be"),
    ("craps-bank", [], {"type": "bet", "player": "Zed", "on": "pass", "amount": 1},
     "unknown player"),
    ("craps-bank", [], {"type": "roll", "dice": [1, 1]}, "no 'roll' event"),
    ("craps-bank", [{"type": "throw", "dice": [1, 1]}, {"type": "throw", "dice": [1, 1]}],
     {"type": "throw", "dice": [3, 4]}, "the game is over"),
])
def test_bad_events_are_refused(game_id: str, events: list[dict[str, Any]], bad: dict[str, Any],
                                message: str) -> None:
    state, _ = play(game_id, ["Ann", "Bob"], None, events)
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))


def test_a_rethrow_voids_the_throw_before_it() -> None:
    game = get_game("craps-private")
    state, _ = play("craps-private", ["Ann", "Bob"], None, [
        {"type": "bet", "player": "Bob", "on": "pass", "amount": 10},
        {"type": "throw", "dice": [4, 2]}, {"type": "rethrow", "reason": "cocked"}])
    fresh, _ = play("craps-private", ["Ann", "Bob"], None, [
        {"type": "bet", "player": "Bob", "on": "pass", "amount": 10}])
    assert state.snapshot() == fresh.snapshot()
    after = state.apply(state.parse_event({"type": "throw", "dice": [1, 1]}))
    assert any(r.kind == "crap" for r in after.rulings)
    with pytest.raises(IllegalEventError, match="no throw to void"):
        play("craps-private", ["Ann", "Bob"], None, [
            {"type": "throw", "dice": [4, 2]}, {"type": "rethrow", "reason": "cocked"},
            {"type": "rethrow", "reason": "cocked"}])
    assert game.laws()[0] == laws.COCKED


@pytest.mark.parametrize("options", [{"rounds": 0}, {"rounds": True}, {"pace": 1}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptionError):
        get_game("craps-bank").new_state(["Ann"], options)


def test_the_point_ruling_gives_exact_and_book_odds() -> None:
    state = get_game("craps-private").new_state(["Ann"])
    point = state.apply(state.parse_event({"type": "throw", "dice": [5, 5]})).rulings[0]
    assert "2 to 1 against him making it" in point.text
    assert "98 to 67 against exactly (the book says 57 to 39)" in point.text
    assert point.law == laws.POINT


@pytest.mark.parametrize("game_id", DICE_IDS)
def test_docs_transcript_is_a_vector_and_adjudicates(game_id: str) -> None:
    assert_docs_transcript("dice", game_id, VECTORS_LIST)
