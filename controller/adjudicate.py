"""`hoyle adjudicate`: rule a whole transcript (one JSON event per line) by the book.

Each line is read strictly: a key the setup or the event does not take (a misspelt
`"foull"`) is refused naming its line, never passed over as if it were not there.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from engine.core import JSON, Ruling, State, parse_strictly
from engine.errors import EngineError
from engine.registry import get_game

#: The keys of a transcript's first line.
SETUP_KEYS = ("type", "players", "options")


class TranscriptError(ValueError):
    """A transcript line that is not valid; the message names the line."""


def adjudicate(game_id: str, lines: Iterable[str], name: str = "transcript") -> JSON:
    """The result of a transcript, as DESIGN section 10 gives it; raises `TranscriptError`."""
    game = get_game(game_id)
    state: State | None = None
    rulings: list[Ruling] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{name}, line {number}"
        data = _parse(line, where)
        try:
            if data["type"] == "setup":
                if state is not None:
                    raise TranscriptError(f"{where}: setup must be the first line")
                _setup_keys(data, where)
                options = data.get("options") or {}
                if not isinstance(options, dict):
                    raise TranscriptError(f'{where}: "options" must be a JSON object')
                state = game.new_state(_players(data, where), options)
                continue
            if state is None:
                raise TranscriptError(f"{where}: the first line must be "
                                      '{"type": "setup", "players": [...]}')
            rulings.extend(state.apply(parse_strictly(state, data)).rulings)
        except EngineError as error:
            raise TranscriptError(f"{where}: {error}") from error
    if state is None:
        raise TranscriptError(f"{name}: no setup line and no events")
    return result(game_id, state, rulings)


def result(game_id: str, state: State, rulings: list[Ruling]) -> JSON:
    snapshot = state.snapshot()
    outcome = state.outcome()
    scores = {s["player"]: s["total"] for s in snapshot["sheet"]}
    out: JSON = {
        "game": game_id,
        "scores": scores,
        "winner": outcome.winners[0] if outcome and len(outcome.winners) == 1 else None,
        "winners": list(outcome.winners) if outcome else [],
        "over": outcome is not None,
        "rulings": [r.to_json() for r in rulings],
    }
    if all("frames" in s for s in snapshot["sheet"]):
        out["frames"] = {s["player"]: _cumulative(s["frames"]) for s in snapshot["sheet"]}
    return out


def _cumulative(frames: list[JSON]) -> list[int]:
    totals, running = [], 0
    for frame in frames:
        if frame["score"] is None:
            break
        running += frame["score"]
        totals.append(running)
    return totals


def _parse(line: str, where: str) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise TranscriptError(f"{where}: not JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(data, dict):
        raise TranscriptError(f"{where}: each line must be a JSON object")
    if not isinstance(data.get("type"), str):
        raise TranscriptError(f'{where}: the event has no "type"')
    return data


def _setup_keys(data: dict[str, Any], where: str) -> None:
    """Refuse a setup key other than type, players and options, naming it."""
    unknown = [key for key in data if key not in SETUP_KEYS]
    if unknown:
        keys = ", ".join(repr(key) for key in unknown)
        raise TranscriptError(f"{where}: setup: unknown key{'s' if len(unknown) > 1 else ''} "
                              f"{keys}; a setup takes {', '.join(SETUP_KEYS)}")


def _players(data: dict[str, Any], where: str) -> list[str]:
    players = data.get("players")
    if not isinstance(players, list) or not players:
        raise TranscriptError(f'{where}: setup needs "players": a list of names')
    return players
