"""Raffles: the book's odds table beside the exact figures, the nine-dice totals, bad input.

The `[[book_odds]]` and `[[book_chances]]` tables of vectors/dice/raffles.toml are checked
here: test_dice.py's `[[odds]]` check works out craps' figures only.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from typing import Any

import pytest

from engine.core import HOYLE_1940
from engine.dice.core import odds_text, throws, ways
from engine.dice.raffles import (
    BOOK_ODDS,
    GARBLED,
    TABLE,
    about,
    at_least,
    distribution,
    none_reach,
)
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game
from tests.engine.book_vectors import VECTORS, play
from tests.engine.seeds import passage

with (VECTORS / "dice" / "raffles.toml").open("rb") as _handle:
    TABLES = tomllib.load(_handle)
ROWS: list[dict[str, Any]] = TABLES["book_odds"]
CHANCES: list[dict[str, Any]] = TABLES["book_chances"]
THREE_45 = [{"type": "throw", "dice": [5, 5, 5]}] * 3


@pytest.mark.parametrize("entry", ROWS + CHANCES, ids=lambda e: str(e["name"]))
def test_entry_cites_the_book(entry: dict[str, Any]) -> None:
    assert entry["book"] == HOYLE_1940
    quote = " ".join(entry["quote"].split())
    assert quote.lower() in passage(entry["book"], entry["lines"]).lower()


@pytest.mark.parametrize("row", ROWS, ids=lambda e: str(e["name"]))
def test_the_books_table_beside_the_exact_odds(row: dict[str, Any]) -> None:
    assert set(row) <= {"name", "book", "lines", "quote", "total", "book_odds", "exact",
                        "agrees", "note"}
    stated = next(o for o in BOOK_ODDS if o.total == row["total"])
    assert stated.book == row["book_odds"]
    assert stated.exact == row["exact"] == odds_text(at_least(row["total"]))
    assert stated.agrees is row["agrees"]
    assert f"{stated.law.lines[0]}-{stated.law.lines[1]}" == row["lines"]


def test_every_legible_row_of_the_table_is_a_vector() -> None:
    assert {row["total"] for row in ROWS} == {o.total for o in BOOK_ODDS} == set(range(36, 55))
    assert set(GARBLED) == {33, 34, 35}


@pytest.mark.parametrize("chance", CHANCES, ids=lambda e: str(e["name"]))
def test_the_books_many_player_estimates_beside_the_exact_chance(chance: dict[str, Any]) -> None:
    none = none_reach(chance["total"], chance["others"])
    assert about(none / (1 - none)) == chance["exact"]


def test_nine_dice_counted_agree_with_enumeration() -> None:
    """The counted spread matches enumerating every throw, for as many dice as is quick."""
    for count in range(1, 5):
        assert distribution(count) == {t: ways(t, count) for t in range(count, 6 * count + 1)}
    nine = distribution(9)
    assert sum(nine.values()) == 6 ** 9 == len(list(throws(3))) ** 3
    assert (min(nine), max(nine)) == (9, 54)
    assert all(nine[t] == nine[63 - t] for t in nine)
    mean = Fraction(sum(t * w for t, w in nine.items()), 6 ** 9)
    assert mean == Fraction(63, 2)  # the book: "the average is about 32" (line 10407)
    assert at_least(45) == Fraction(46_640, 6 ** 9)


def test_the_total_ruling_gives_exact_and_book_odds() -> None:
    state = get_game("raffles").new_state(["Ann", "Bob"])
    rulings = [r for data in THREE_45 for r in state.apply(state.parse_event(data)).rulings]
    snapshot = state.snapshot()
    assert snapshot["sheet"][0]["total"] == 45 and snapshot["caster"] == "Bob"
    ruling = next(r for r in rulings if r.kind == "total")
    assert ruling.law == TABLE
    assert "626941 to 2915 exactly, about 215.07 to 1 against" in ruling.text
    assert "the book's table says 215 to 1" in ruling.text
    chance = next(r for r in rulings if r.kind == "chance")
    assert "With 1 still to throw" in chance.text


def test_a_garbled_row_is_said_to_be_illegible() -> None:
    state = get_game("raffles").new_state(["Ann"])
    rulings = [r for dice in ([6, 6, 6], [6, 6, 1], [1, 1, 2])
               for r in state.apply(state.parse_event({"type": "throw", "dice": dice})).rulings]
    ruling = next(r for r in rulings if r.kind == "total")
    assert ruling.amount == 35
    assert "illegible (OCR '28')" in ruling.text


def test_the_one_row_the_book_has_wrong() -> None:
    """51 or more: 45,806.7 to 1 exactly; the book prints 45,809."""
    row = next(o for o in BOOK_ODDS if o.total == 51)
    assert not row.agrees
    assert all(o.agrees for o in BOOK_ODDS if o.total != 51)


@pytest.mark.parametrize(("events", "bad", "message"), [
    ([], {"type": "throw", "dice": [5, 5]}, "3 dice, got 2"),
    ([], {"type": "throw", "dice": [5, 5, 5, 5, 5, 5, 5, 5, 5]}, "3 dice, got 9"),
    ([], {"type": "throw", "dice": [5, 5, 7]}, "die 3 shows 7"),
    ([], {"type": "rethrow", "reason": "cocked"}, "no throw to void"),
    ([], {"type": "stand", "player": "Ann"}, "has no 'stand' event"),
    (THREE_45, {"type": "throw", "dice": [1, 1, 1]}, "the game is over"),
])
def test_bad_events_are_refused_before_anything_changes(
        events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state, _ = play("raffles", ["Ann"], None, events)
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.snapshot() == before


@pytest.mark.parametrize(("options", "message"), [
    ({"ties": "coin"}, "ties must be one of 'throw-off', 'share'"),
    ({"tickets": 100}, "no option 'tickets'"),
])
def test_bad_options_name_the_option(options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game("raffles").new_state(["Ann"], options)
