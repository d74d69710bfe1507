"""The seed books as the engine tests read them: cited line ranges and the text in them."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

SEEDS = (Path(__file__).resolve().parents[2] / ".." / "shared" / "seeds").resolve()
#: A vector cites the narrowest passage that holds its rule: fewer lines than this.
WIDEST_CITATION = 60


@cache
def seed_lines(book: str) -> list[str]:
    """The lines of a seed file; the test is skipped when shared/ is not next to the repo."""
    if not SEEDS.is_dir():
        pytest.skip(f"seed books not found at {SEEDS} (shared/ is not next to the repo)")
    return (SEEDS / book).read_text(encoding="utf-8").splitlines()


def passage(book: str, lines: str) -> str:
    """Lines 'start-end' of a seed file, whitespace folded so a quote may cross lines."""
    match = re.fullmatch(r"(\d+)-(\d+)", lines)
    assert match, f"lines must be 'start-end', got {lines!r}"
    first, last = int(match[1]), int(match[2])
    text = seed_lines(book)
    assert 1 <= first <= last <= len(text), f"lines {lines} outside {book} ({len(text)} lines)"
    assert last - first < WIDEST_CITATION, f"lines {lines}: cite the narrowest passage"
    return " ".join(" ".join(text[first - 1:last]).split())
