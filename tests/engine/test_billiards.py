"""The cue games: book vectors, the docs transcripts, and bad input refused with the log kept.

Each file in vectors/billiards/ is one game id: `[[vector]]` tables play events through the
engine and give the scores worked out by hand from the cited lines of the book.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import HOYLE_1940
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

BILLIARD_IDS = sorted(g.id for g in all_games()
                      if g.family in ("carom-billiards", "pocket-billiards"))
VECTORS_LIST = load_entries("billiards", "vector")
#: Keys a vector may give beyond the common ones, each checked against the snapshot.
SNAPSHOT_KEYS = frozenset({"striker", "on_table", "high_runs"})


def test_every_cue_game_has_vectors() -> None:
    files = {path.stem for path in (VECTORS / "billiards").glob("*.toml")}
    assert files == set(BILLIARD_IDS)


@pytest.mark.parametrize("vector", VECTORS_LIST, ids=lambda e: e.id)
def test_entry_cites_the_book(vector: Entry) -> None:
    assert vector.data["book"] == HOYLE_1940
    assert_cites_the_book(vector)


@pytest.mark.parametrize("vector", VECTORS_LIST, ids=lambda e: e.id)
def test_vector_plays_as_the_book(vector: Entry) -> None:
    snapshot = assert_plays_as_the_book(vector, SNAPSHOT_KEYS)
    data = vector.data
    if "striker" in data:
        assert snapshot["striker"] == data["striker"]
    if "on_table" in data:
        assert sorted(snapshot["table"]["on"]) == sorted(map(str, data["on_table"]))
    if "high_runs" in data:
        assert {s["player"]: s["high_run"] for s in snapshot["sheet"]} == data["high_runs"]


@pytest.mark.parametrize("game_id", BILLIARD_IDS)
def test_docs_transcript_is_a_vector_and_adjudicates(game_id: str) -> None:
    assert_docs_transcript("billiards", game_id, VECTORS_LIST)


BAD_EVENTS: list[tuple[str, list[dict[str, Any]], dict[str, Any], str]] = [
    ("fifteen-ball-pool", [], {"type": "pocket", "ball": 16, "pocket": "foot-left"},
     "ball '16' is not in the set"),
    ("fifteen-ball-pool", [], {"type": "pocket", "ball": 5, "pocket": "corner"},
     "no pocket 'corner'"),
    ("fifteen-ball-pool", [{"type": "pocket", "ball": 5, "pocket": "foot-left"}],
     {"type": "pocket", "ball": 5, "pocket": "foot-right"}, "ball 5 is not on the table"),
    ("fifteen-ball-pool", [], {"type": "stroke", "path": ["15"]}, "needs the fact 'driven'"),
    ("fifteen-ball-pool", [], {"type": "stroke", "path": ["15"], "driven": 2,
                               "player": "Bob"}, "out of turn"),
    ("fifteen-ball-pool", [], {"type": "foul", "kind": "sneeze"}, "no foul 'sneeze'"),
    ("fifteen-ball-pool", [], {"type": "count", "points": 1}, "has no 'count' event"),
    ("fifteen-ball-pool", [], {"type": "stroke", "path": [], "driven": 2},
     r"driven is 2, but the path \[\] strikes no ball: a miss drives no ball to a cushion"),
]


@pytest.mark.parametrize(("game_id", "events", "bad", "message"), BAD_EVENTS,
                         ids=[f"{g}: {m}" for g, _, _, m in BAD_EVENTS])
def test_bad_events_are_refused_and_the_log_kept(game_id: str, events: list[dict[str, Any]],
                                                 bad: dict[str, Any], message: str) -> None:
    state, _ = play(game_id, ["Ann", "Bob"], None, events)
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.save() == before


def test_a_cue_game_needs_two_players() -> None:
    with pytest.raises(IllegalEventError, match="2-12 players"):
        get_game("fifteen-ball-pool").new_state(["Ann"])


def test_bad_options_are_refused() -> None:
    with pytest.raises(BadOptionError, match="option opening must be"):
        get_game("fifteen-ball-pool").new_state(["Ann", "Bob"], {"opening": "casual"})
