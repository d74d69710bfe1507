"""Book vectors for every bowling game, played through the engine as a table would feed it.

Each file in vectors/bowling/ is one game id; each `[[vector]]` cites the seed lines that
hold its rule, quotes them, and gives the score sheet worked out by hand from the book.
The docs' example transcripts are played here too, so the documentation cannot drift.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.core import HOYLE_1940, State
from engine.registry import all_games, get_game
from tests.engine.seeds import passage

REPO = Path(__file__).resolve().parents[2]
VECTORS = Path(__file__).resolve().parent / "vectors" / "bowling"
DOCS = REPO / "docs" / "bowling.md"
TRANSCRIPTS = REPO / "docs" / "transcripts" / "bowling"

REQUIRED = {"name", "book", "lines", "quote", "players", "events", "frames", "total", "over",
            "winner"}
OPTIONAL = {"note", "options", "rulings", "no_rulings", "marks", "counts"}
#: A vector cites the narrowest passage that holds its rule; a whole chapter is too wide.

BOWLING_IDS = sorted(g.id for g in all_games() if g.family == "bowling")


@dataclass(frozen=True, slots=True)
class Vector:
    """One book vector: the game it belongs to and its TOML table."""

    game: str
    data: Mapping[str, Any]

    @property
    def id(self) -> str:
        return f"{self.game}: {self.data['name']}"


def _load_vectors() -> list[Vector]:
    found: list[Vector] = []
    for path in sorted(VECTORS.glob("*.toml")):
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        assert table.get("game") == path.stem, f"{path.name}: game must be {path.stem!r}"
        found.extend(Vector(path.stem, data) for data in table["vector"])
    return found


VECTOR_LIST = _load_vectors()


@dataclass(slots=True)
class Played:
    """A state after a vector's events, and every ruling kind they produced."""

    state: State
    kinds: set[str]


def play(game_id: str, players: list[str], options: Mapping[str, Any] | None,
         events: Sequence[Mapping[str, Any]]) -> Played:
    state = get_game(game_id).new_state(players, options)
    kinds: set[str] = set()
    for data in events:
        operation = state.apply(state.parse_event(data))
        kinds.update(ruling.kind for ruling in operation.rulings)
    return Played(state, kinds)


def settled_totals(sheet: Mapping[str, Any]) -> list[int]:
    """Cumulative totals of the settled frames, checked against the totals the sheet shows.

    A Newport sheet shows each inning's count instead of a running total (its total is
    the number of counts made), so the running sum of frame scores is the common measure.
    """
    running = 0
    totals = []
    for frame in sheet["frames"]:
        if frame["score"] is None:
            continue
        running += frame["score"]
        if frame["total"] is not None:
            assert frame["total"] == running, f"{sheet['player']}: sheet total disagrees"
        totals.append(running)
    return totals




@pytest.mark.parametrize("vector", VECTOR_LIST, ids=lambda v: v.id)
def test_vector_is_well_formed(vector: Vector) -> None:
    keys = set(vector.data)
    assert keys >= REQUIRED, f"missing {sorted(REQUIRED - keys)}"
    assert keys <= REQUIRED | OPTIONAL, f"unknown keys {sorted(keys - REQUIRED - OPTIONAL)}"
    players = vector.data["players"]
    assert set(vector.data["frames"]) == set(players) == set(vector.data["total"])
    assert vector.data["book"] == HOYLE_1940


@pytest.mark.parametrize("vector", VECTOR_LIST, ids=lambda v: v.id)
def test_vector_cites_the_book(vector: Vector) -> None:
    text = passage(vector.data["book"], vector.data["lines"])
    quote = " ".join(vector.data["quote"].split())
    assert quote.lower() in text.lower(), (
        f"{vector.data['quote']!r} is not in lines {vector.data['lines']}: {text[:200]}...")


@pytest.mark.parametrize("vector", VECTOR_LIST, ids=lambda v: v.id)
def test_vector_scores_as_the_book(vector: Vector) -> None:
    data = vector.data
    played = play(vector.game, data["players"], data.get("options"), data["events"])
    snapshot = played.state.snapshot()
    sheets = {sheet["player"]: sheet for sheet in snapshot["sheet"]}
    for player in data["players"]:
        assert settled_totals(sheets[player]) == data["frames"][player], f"{player}'s frames"
        assert sheets[player]["total"] == data["total"][player], f"{player}'s total"
    for player, marks in data.get("marks", {}).items():
        shown = [frame["balls"] for frame in sheets[player]["frames"] if frame["balls"]]
        assert shown == marks, f"{player}'s marks"
    for player, counts in data.get("counts", {}).items():
        shown = [frame["count"] for frame in sheets[player]["frames"] if frame["score"] is not None]
        assert shown == counts, f"{player}'s counts"
    outcome = played.state.outcome()
    assert snapshot["over"] is data["over"]
    if data["over"]:
        assert outcome is not None
        assert list(outcome.winners) == data["winner"]
        assert dict(outcome.scores) == data["total"]
    else:
        assert outcome is None
        assert data["winner"] == []
    assert snapshot["winners"] == data["winner"]
    missing = set(data.get("rulings", [])) - played.kinds
    assert not missing, f"rulings {sorted(missing)} not given (got {sorted(played.kinds)})"
    unwanted = set(data.get("no_rulings", [])) & played.kinds
    assert not unwanted, f"rulings {sorted(unwanted)} given but the book gives none"


def test_every_bowling_game_has_vectors() -> None:
    files = {path.stem for path in VECTORS.glob("*.toml")}
    assert set(BOWLING_IDS) <= files, f"no vector file for {sorted(set(BOWLING_IDS) - files)}"
    unknown = sorted(files - set(BOWLING_IDS))
    assert not unknown, f"vector files for games the registry does not hold: {unknown}"


def read_transcript(path: Path) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            data = json.loads(line)
            assert isinstance(data, dict) and "type" in data, f"{path.name}:{number}: not an event"
            yield data


@pytest.mark.parametrize("game_id", BOWLING_IDS)
def test_docs_transcript_plays_to_the_end(game_id: str) -> None:
    path = TRANSCRIPTS / f"{game_id}.jsonl"
    assert path.is_file(), f"no example transcript {path.relative_to(REPO)}"
    setup, *events = read_transcript(path)
    assert setup["type"] == "setup"
    assert len(setup["players"]) == 2
    played = play(game_id, setup["players"], setup.get("options"), events)
    assert played.state.outcome() is not None, f"{path.name} stops before the game is over"
    assert f"transcripts/bowling/{game_id}.jsonl" in DOCS.read_text(encoding="utf-8")


@pytest.mark.parametrize("game_id", BOWLING_IDS)
def test_docs_transcript_is_a_hand_scored_vector(game_id: str) -> None:
    """The final scores docs/bowling.md gives for a transcript are checked as a vector."""
    setup, *events = read_transcript(TRANSCRIPTS / f"{game_id}.jsonl")
    assert any(vector.data["events"] == events and vector.data["players"] == setup["players"]
               and vector.data.get("options", {}) == setup.get("options", {})
               for vector in VECTOR_LIST if vector.game == game_id), (
        f"no vector in {game_id}.toml plays the docs transcript")
