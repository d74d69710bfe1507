"""The contract every registered game keeps, checked by seeded random legal playouts.

Whatever the table reports, if the engine listed it as legal it must apply cleanly; the
outcome appears only at the end; snapshots and saves are JSON; a saved game and a replayed
log both rebuild the live state; every event played, as its JSON gives it, is
read back strictly (no key refused) as the same event; and every ruling cites a law of the
game's own passage.
"""

from __future__ import annotations

import csv
import json
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine.core import HOYLE_1940, JSON, ROUND_GAMES_1897, Event, Ruling, State, parse_strictly
from engine.errors import IllegalEventError
from engine.registry import all_games, get_game

SPEC = (Path(__file__).resolve().parents[2] / ".." / "shared" / "spec" / "games.csv").resolve()
BOOKS = {"hoyle-1940": HOYLE_1940, "round-games-1897": ROUND_GAMES_1897}
#: Laws a whole family shares besides each game's own passage: for bowling, the ten-pin
#: scoring and the 1925 Bowling-Alley Laws, which the variants say govern them; for dice,
#: backgammon laws 5 and 6 (a die off the table or cocked: both thrown again) and the
#: chapter's fair dice, which the catalogue (hoyle-part-a.md section 0) applies to all dice.
#: For the cue games, the American Billiard Laws (which "apply to all billiard games") and
#: the three-ball carom laws; the pool games are also governed by the laws of continuous
#: pool for the championship where their own rules are silent (lines 14455-14457).
FAMILY_LAWS: dict[str, tuple[tuple[str, int, int], ...]] = {
    "bowling": ((HOYLE_1940, 3942, 4144),),
    "dice": ((HOYLE_1940, 1934, 1942), (HOYLE_1940, 10135, 10163)),
    "carom-billiards": ((HOYLE_1940, 2604, 2963),),
    "pocket-billiards": ((HOYLE_1940, 2604, 2963), (HOYLE_1940, 14769, 14833)),
}

PLAYOUTS = 20
MAX_STEPS = 2_000
#: Umpire's declarations that undo play; rare at a real table, kept rare so games end.
RARE = frozenset({"dead_ball", "rethrow"})
RARE_CHANCE = 0.04
FOUL_CHANCE = 0.1
SAVES_PER_GAME = 3
#: Mostly one bowler (the legal-event lists are long); some games take turns.
PLAYER_COUNTS = (1, 1, 1, 2, 3)

GAME_IDS = [game.id for game in all_games()]


@dataclass(frozen=True, slots=True)
class Playout:
    """One finished random game: its rulings, and saves taken along the way."""

    rulings: tuple[Ruling, ...]
    saves: tuple[tuple[JSON, JSON], ...]  # (save(), snapshot()) at a few steps and at the end


def pick(rng: random.Random, legal: Sequence[Event]) -> Event:
    """A legal event, mostly a plain one; declarations like a dead ball only now and then.

    Each count of pins left standing is equally likely, so strikes and spares come up as
    often as breaks (a uniform pick over pin sets would almost never clear the rack); a
    foul is one ball in ten.
    """
    rare = [event for event in legal if event.type in RARE]
    if rare and rng.random() < RARE_CHANCE:
        return rng.choice(rare)
    fair: defaultdict[int, list[Event]] = defaultdict(list)
    fouls: defaultdict[int, list[Event]] = defaultdict(list)
    for event in legal:
        if event.type not in RARE:
            bucket = fouls if getattr(event, "foul", False) else fair
            bucket[len(getattr(event, "standing", ()))].append(event)
    if not fair and not fouls:
        return rng.choice(rare)
    chosen = fouls if fouls and (not fair or rng.random() < FOUL_CHANCE) else fair
    return rng.choice(chosen[rng.choice(sorted(chosen))])


def as_json(data: Mapping[str, Any]) -> JSON:
    """`data` through a JSON round trip; fails if it is not JSON-serialisable."""
    result: JSON = json.loads(json.dumps(data))
    return result


def seat(game_id: str, count: int) -> tuple[tuple[str, ...], State]:
    """A new game for `count` players, or for the nearest number the game seats, more
    before fewer (cue games are for two or more, man-of-war for three)."""
    game = get_game(game_id)
    for size in sorted(range(1, 4), key=lambda size: (size < count, abs(size - count))):
        players = tuple(["Ann", "Bob", "Cy"][:size])
        try:
            return players, game.new_state(players)
        except IllegalEventError:
            continue
    raise AssertionError(f"{game_id} seats none of 1-3 players")


def play_out(game_id: str, seed: int) -> Playout:
    """Play one seeded random game to its end, checking the contract after every event."""
    game = get_game(game_id)
    rng = random.Random(f"{game_id}/{seed}")
    players, state = seat(game_id, rng.choice(PLAYER_COUNTS))
    events: list[JSON] = []
    rulings: list[Ruling] = []
    saves: list[tuple[JSON, JSON]] = []
    save_at = set(rng.sample(range(1, 40), SAVES_PER_GAME))
    for step in range(1, MAX_STEPS):
        assert state.outcome() is None, "an outcome before the game is over"
        assert state.awaiting(), "nothing awaited while the game is on"
        legal = state.legal_events()
        assert legal, "no legal event while the game is on"
        event = pick(rng, legal)
        data = as_json(event.to_json())
        read = parse_strictly(state, data)
        assert read == event, f"{data} read back strictly is {read}, not {event}"
        operation = state.apply(read)
        events.append(data)
        rulings.extend(operation.rulings)
        snapshot = state.snapshot()
        assert as_json(snapshot) == snapshot, "the snapshot is not plain JSON"
        saved = state.save()
        assert as_json(saved) == saved, "the save is not plain JSON"
        if step in save_at:
            saves.append((as_json(saved), snapshot))
        if snapshot["over"]:
            break
    else:
        pytest.fail(f"{game_id} seed {seed}: not over after {MAX_STEPS} events")
    assert state.outcome() is not None, "the game is over but has no outcome"
    assert state.awaiting() == (), "something awaited after the end"
    saves.append((as_json(state.save()), state.snapshot()))
    replayed = game.new_state(players)
    for data in events:
        replayed.apply(replayed.parse_event(data))
    assert replayed.snapshot() == state.snapshot(), "replaying the log differs from live play"
    return Playout(tuple(rulings), tuple(saves))


@cache
def playouts(game_id: str) -> tuple[Playout, ...]:
    return tuple(play_out(game_id, seed) for seed in range(PLAYOUTS))


@cache
def passages() -> dict[str, list[tuple[str, int, int]]]:
    """Each game's passages, from the spec's games.csv: id -> [(seed file, first, last)].

    A variant (`variant_of`) may also cite the passage of the game it varies, whose rules
    it plays by except where its own lines say otherwise (chemin de fer is baccara with
    the bank passing round).
    """
    if not SPEC.is_file():
        pytest.skip(f"games.csv not found at {SPEC} (shared/ is not next to the repo)")
    own: dict[str, tuple[str, int, int]] = {}
    parents: dict[str, str] = {}
    with SPEC.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            first, last = row["lines"].split("-")
            own[row["id"]] = (BOOKS[row["book"]], int(first), int(last))
            if row["variant_of"]:
                parents[row["id"]] = row["variant_of"]
    return {game_id: [passage, *([own[parents[game_id]]] if game_id in parents else [])]
            for game_id, passage in own.items()}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_random_playouts_keep_the_contract(game_id: str) -> None:
    games = playouts(game_id)
    assert len(games) == PLAYOUTS
    assert all(playout.rulings for playout in games)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_load_of_save_rebuilds_the_live_state(game_id: str) -> None:
    game = get_game(game_id)
    for playout in playouts(game_id):
        for saved, snapshot in playout.saves:
            assert game.load(saved).snapshot() == snapshot, "load(save()) differs from live play"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_ruling_cites_a_law_of_the_game(game_id: str) -> None:
    game = get_game(game_id)
    own = passages().get(game_id)
    assert own is not None, f"{game_id} is not in games.csv"
    allowed = [*own, *FAMILY_LAWS.get(game.family, ())]
    laws = set(game.laws())
    for playout in playouts(game_id):
        for ruling in playout.rulings:
            law = ruling.law
            assert law in laws, f"{ruling.kind} cites {law}, which laws() does not list"
            first, last = law.lines
            assert any(law.book == book and lo <= first <= last <= hi
                       for book, lo, hi in allowed), (
                f"{ruling.kind} cites {law.book} {first}-{last}, outside {game_id}'s passage")


def test_playouts_cover_the_irregularities() -> None:
    """The random tables do call fouls and dead balls, so the contract covers them too."""
    kinds = {ruling.kind for game_id in GAME_IDS for playout in playouts(game_id)
             for ruling in playout.rulings}
    assert {"foul", "dead-ball", "winner"} <= kinds


def test_registry_ids_are_unique_and_described() -> None:
    described = [game.describe() for game in all_games()]
    assert len({d["id"] for d in described}) == len(described)
    for entry in described:
        assert get_game(entry["id"]).id == entry["id"]
        for alias in entry["aliases"]:
            assert get_game(alias).id == entry["id"]
        assert json.loads(json.dumps(entry)) == entry
