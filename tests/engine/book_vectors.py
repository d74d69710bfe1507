"""Book vectors of the dice and card families: loading, playing, and the docs transcripts.

Each file `tests/engine/vectors/<family>/<game-id>.toml` holds `[[vector]]` tables: the
players, the events, and the scores worked out by hand from the cited lines of the book.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.adjudicate import adjudicate
from engine.core import State
from engine.registry import get_game
from tests.engine.seeds import passage

REPO = Path(__file__).resolve().parents[2]
VECTORS = Path(__file__).resolve().parent / "vectors"
REQUIRED = {"name", "book", "lines", "quote", "players", "events", "scores", "over", "winner"}
OPTIONAL = {"note", "options", "rulings", "no_rulings"}


@dataclass(frozen=True, slots=True)
class Entry:
    """One table of a vector file (`[[vector]]`, `[[odds]]`...) and the game it is for."""

    game: str
    data: Mapping[str, Any]

    @property
    def id(self) -> str:
        return f"{self.game}: {self.data['name']}"


def load_entries(family: str, kind: str) -> list[Entry]:
    """Every `[[kind]]` table of the family's vector files."""
    found: list[Entry] = []
    for path in sorted((VECTORS / family).glob("*.toml")):
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        assert table.get("game") == path.stem, f"{path.name}: game must be {path.stem!r}"
        found.extend(Entry(path.stem, data) for data in table.get(kind, []))
    return found


def assert_cites_the_book(entry: Entry) -> None:
    text = passage(entry.data["book"], entry.data["lines"])
    quote = " ".join(entry.data["quote"].split())
    assert quote.lower() in text.lower(), f"{quote!r} is not in lines {entry.data['lines']}"


def play(game_id: str, players: Sequence[str], options: Mapping[str, Any] | None,
         events: Sequence[Mapping[str, Any]]) -> tuple[State, set[str]]:
    state = get_game(game_id).new_state(players, options)
    kinds: set[str] = set()
    for data in events:
        kinds.update(r.kind for r in state.apply(state.parse_event(data)).rulings)
    return state, kinds


def assert_plays_as_the_book(vector: Entry, snapshot_keys: frozenset[str] = frozenset()) -> dict[
        str, Any]:
    """Play the vector; the scores, the end, the winners and the rulings are the book's.

    `snapshot_keys` are further keys a vector may give, each checked against the snapshot
    by the caller (returned: the snapshot).
    """
    data = vector.data
    keys = set(data)
    assert REQUIRED <= keys <= REQUIRED | OPTIONAL | snapshot_keys, f"keys {sorted(keys)}"
    state, kinds = play(vector.game, data["players"], data.get("options"), data["events"])
    snapshot = state.snapshot()
    assert {s["player"]: s["total"] for s in snapshot["sheet"]} == data["scores"]
    assert snapshot["over"] is data["over"]
    assert snapshot["winners"] == data["winner"]
    outcome = state.outcome()
    assert (outcome is not None) is data["over"]
    if outcome is not None:
        assert list(outcome.winners) == data["winner"]
        assert dict(outcome.scores) == data["scores"]
    missing = set(data.get("rulings", [])) - kinds
    assert not missing, f"rulings {sorted(missing)} not given (got {sorted(kinds)})"
    unwanted = set(data.get("no_rulings", [])) & kinds
    assert not unwanted, f"rulings {sorted(unwanted)} given but the book gives none"
    return snapshot


def read_transcript(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def assert_docs_transcript(family: str, game_id: str, vectors: Sequence[Entry]) -> None:
    """docs/transcripts/<family>/<id>.jsonl is one of the vectors, adjudicates, and is shown."""
    path = REPO / "docs" / "transcripts" / family / f"{game_id}.jsonl"
    setup, *events = read_transcript(path)
    assert setup["type"] == "setup"
    vector = next((v for v in vectors if v.game == game_id and v.data["events"] == events
                   and v.data["players"] == setup["players"]), None)
    assert vector is not None, f"no vector in {game_id}.toml plays the docs transcript"
    result = adjudicate(game_id, path.read_text(encoding="utf-8").splitlines(), path.name)
    assert result["over"] is True
    assert result["scores"] == vector.data["scores"]
    assert result["winners"] == vector.data["winner"]
    assert "frames" not in result
    docs = [REPO / "docs" / f"{family}.md",
            *sorted((REPO / "docs" / family).glob("*.md"))]
    shown = f"transcripts/{family}/{game_id}.jsonl"
    assert any(page.exists() and shown in page.read_text(encoding="utf-8") for page in docs), \
        f"docs/{family}.md or docs/{family}/*.md must show {shown}"
