"""The pin group of cue games: bad input refused with the log kept, and the private balls kept
private. The book's counts are in vectors/billiards/<id>.toml."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.billiards.core import TableFacts
from engine.billiards.table import CueState
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game
from tests.engine.book_vectors import play

DRAWS = [{"type": "private", "player": "Ann", "number": 9},
         {"type": "private", "player": "Bob", "number": 12}]

BAD_EVENTS: list[tuple[str, list[dict[str, Any]], dict[str, Any], str]] = [
    # a ball not in the game's set
    ("spanish-game", [], {"type": "pocket", "ball": 5, "pocket": "foot-left"},
     "ball '5' is not in the set"),
    ("bottle-pool", [], {"type": "pocket", "ball": 3, "pocket": "foot-left"},
     "ball '3' is not in the set"),
    ("forty-one-pool", DRAWS, {"type": "pocket", "ball": 16, "pocket": "foot-left"},
     "ball '16' is not in the set"),
    # a ball pocketed twice without being spotted
    ("bottle-pool", [{"type": "pocket", "ball": 1, "pocket": "foot-left"}],
     {"type": "pocket", "ball": 1, "pocket": "foot-right"}, "ball 1 is not on the table"),
    ("forty-one-pool", [*DRAWS, {"type": "pocket", "ball": 7, "pocket": "foot-left"},
                        {"type": "stroke", "path": ["7"]}],
     {"type": "pocket", "ball": 7, "pocket": "foot-right"}, "ball 7 is not on the table"),
    # a pocket that does not exist
    ("spanish-game", [], {"type": "pocket", "ball": "red", "pocket": "middle"},
     "no pocket 'middle'"),
    # an act out of turn
    ("spanish-game", [], {"type": "stroke", "path": ["red"], "pins": [], "player": "Bob"},
     "out of turn"),
    ("bottle-pool", [], {"type": "stroke", "path": [], "player": "Bob"}, "out of turn"),
    ("forty-one-pool", DRAWS, {"type": "spot", "player": "Ann", "ball": 7},
     "Ann has no ball to spot now"),
    # a fact the game needs, missing or wrong
    ("spanish-game", [], {"type": "stroke", "path": ["red"]}, "needs the fact 'pins'"),
    ("spanish-game", [], {"type": "stroke", "path": ["red"], "pins": ["centre"]},
     "needs the fact 'direct'"),
    ("spanish-game", [], {"type": "stroke", "path": ["red"], "pins": ["centre"],
                          "direct": ["head"]}, "direct must list pins among those"),
    ("spanish-game", [], {"type": "stroke", "path": ["white"], "pins": []},
     "cannot be in its own path"),
    ("spanish-game", [], {"type": "stroke", "path": ["red"], "pins": ["crown"]},
     "'crown' is not in the set"),
    ("bottle-pool", [], {"type": "stroke", "path": ["1"]}, "needs the fact 'bottle'"),
    ("bottle-pool", [], {"type": "stroke", "path": ["1"], "bottle": "upset"},
     "needs the fact 'bottle_by'"),
    ("bottle-pool", [], {"type": "stroke", "path": ["1"], "bottle": "upset",
                         "bottle_by": "wind"}, "bottle_by must be one of"),
    ("forty-one-pool", [], {"type": "stroke", "path": []}, "Ann, Bob must draw first"),
    ("forty-one-pool", DRAWS[:1], {"type": "private", "player": "Bob", "number": 9},
     "small ball 9 is already drawn"),
    ("forty-one-pool", [], {"type": "private", "player": "Ann", "number": 19},
     "number must be a whole number 6-18"),
    ("forty-one-pool", DRAWS, {"type": "private", "player": "Ann", "number": 14},
     "Ann already holds a small ball"),
    ("pin-pool", DRAWS, {"type": "pocket", "ball": "cue", "pocket": "foot-left"},
     "ball 'cue' is not in the set"),
    ("pin-pool", DRAWS, {"type": "stroke", "path": ["red"], "pins": ["centre", "centre"]},
     "pins must be a list of distinct pins"),
    ("pin-pool", DRAWS, {"type": "stroke", "path": ["red"], "pins": ["centre"]},
     "needs the fact 'direct'"),
    ("pin-pool", DRAWS, {"type": "foul", "kind": "wrong-ball"}, "no foul 'wrong-ball'"),
    ("pin-pool", DRAWS, {"type": "stroke", "path": [], "player": "Bob"}, "out of turn"),
    ("pin-pool", DRAWS[:1], {"type": "proclaim", "player": "Ann"}, "Bob must draw first"),
    ("pin-pool", DRAWS, {"type": "proclaim", "player": "Zed"}, "unknown player 'Zed'"),
    ("pin-pool", DRAWS, {"type": "private", "player": "Bob", "number": 17},
     "number must be a whole number 1-16"),
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


def owing_ann() -> list[dict[str, Any]]:
    """Ann holds the 2 and the 5 and misses: she must name the ball she spots."""
    return [*DRAWS, {"type": "pocket", "ball": 2, "pocket": "foot-left"},
            {"type": "pocket", "ball": 5, "pocket": "foot-right"},
            {"type": "stroke", "path": ["2"]}, {"type": "stroke", "path": ["1"]},
            {"type": "stroke", "path": []}]


def test_forty_one_waits_for_the_ball_the_scratching_player_spots() -> None:
    state, _ = play("forty-one-pool", ["Ann", "Bob"], None, owing_ann())
    assert [(a.fact, a.player) for a in state.awaiting()] == [("spot", "Ann")]
    assert {e.to_json()["ball"] for e in state.legal_events()} == {"2", "5"}
    before = state.save()
    refused: list[tuple[dict[str, Any], str]] = [
        ({"type": "stroke", "path": ["1"]}, "Ann must first name the ball"),
        ({"type": "spot", "player": "Ann", "ball": 9}, "not in Ann's rack"),
        ({"type": "spot", "player": "Bob", "ball": 2}, "Bob has no ball")]
    for bad, message in refused:
        with pytest.raises(IllegalEventError, match=message):
            state.apply(state.parse_event(bad))
    assert state.save() == before
    state.apply(state.parse_event({"type": "spot", "player": "Ann", "ball": 5}))
    assert state.snapshot()["racks"]["Ann"] == ["2"]
    assert "5" in state.snapshot()["table"]["on"]


def test_forty_one_snapshot_never_shows_a_small_ball() -> None:
    def seen(numbers: tuple[int, int]) -> dict[str, Any]:
        draws = [{"type": "private", "player": name, "number": n}
                 for name, n in zip(("Ann", "Bob"), numbers, strict=True)]
        state, _ = play("forty-one-pool", ["Ann", "Bob"], None,
                        [*draws, {"type": "pocket", "ball": 15, "pocket": "foot-left"},
                         {"type": "stroke", "path": ["15"]}])
        return state.snapshot()

    shown = seen((6, 7))
    assert shown == seen((17, 18))
    assert shown["private_drawn"] == ["Ann", "Bob"]
    assert "private" not in json.dumps(shown).replace("private_drawn", "")


def test_forty_one_waits_for_every_draw_and_lets_only_a_burst_player_draw_again() -> None:
    state, _ = play("forty-one-pool", ["Ann", "Bob"], None, DRAWS[:1])
    assert [(a.fact, a.player) for a in state.awaiting()] == [("private", "Bob")]
    assert {e.type for e in state.legal_events()} == {"private"}
    burst: list[dict[str, Any]] = [*DRAWS, {"type": "pocket", "ball": 15, "pocket": "foot-left"},
             {"type": "pocket", "ball": 14, "pocket": "foot-right"},
             {"type": "pocket", "ball": 13, "pocket": "side-left"},
             {"type": "stroke", "path": ["15"]}]
    state, kinds = play("forty-one-pool", ["Ann", "Bob"], None, burst)
    assert "burst" in kinds
    redraws = {e.to_json()["number"] for e in state.legal_events() if e.type == "private"}
    assert 12 not in redraws and 9 in redraws and 18 in redraws
    state.apply(state.parse_event({"type": "stroke", "path": ["1"]}))
    state.apply(state.parse_event({"type": "stroke", "path": ["1"]}))
    with pytest.raises(IllegalEventError, match="already holds"):
        state.apply(state.parse_event({"type": "private", "player": "Ann", "number": 18}))


def test_spanish_game_seats_take_the_whites_by_turns() -> None:
    state = get_game("spanish-game").new_state(["Ann", "Bob", "Cy"])
    assert state.snapshot()["balls"] == {"Ann": "white", "Bob": "spot-white", "Cy": "white"}
    with pytest.raises(IllegalEventError, match="2-4 players"):
        get_game("spanish-game").new_state(["A", "B", "C", "D", "E"])


def test_bottle_pool_saves_a_stroke_that_left_the_bottle_standing() -> None:
    game = get_game("bottle-pool")
    state, _ = play("bottle-pool", ["Ann", "Bob"], None,
                    [{"type": "stroke", "path": ["1", "2"], "bottle": "none"}])
    saved = state.save()
    assert saved["events"][-1]["bottle"] == "none"
    assert game.load(saved).snapshot() == state.snapshot()


SOMETIMES: list[tuple[str, list[dict[str, Any]], str, dict[str, Any]]] = [
    # the fact is declared for the referee's form, but a stroke it does not apply to is
    # closed without it (no pin down; a pin down on a miss; the bottle standing or off)
    ("pin-pool", DRAWS, "direct", {"type": "stroke", "path": ["red"], "pins": []}),
    ("pin-pool", DRAWS, "direct", {"type": "stroke", "path": [], "pins": ["centre"]}),
    ("spanish-game", [], "direct", {"type": "stroke", "path": ["red", "cushion"],
                                    "pins": []}),
    ("bottle-pool", [], "bottle_by", {"type": "stroke", "path": ["1"], "bottle": "none"}),
    ("bottle-pool", [], "bottle_by", {"type": "stroke", "path": ["1"], "bottle": "off"}),
]


@pytest.mark.parametrize(("game_id", "events", "fact", "stroke"), SOMETIMES,
                         ids=[f"{g}: {f} {e}" for g, _, f, e in SOMETIMES])
def test_a_fact_needed_only_now_and_then_is_declared_and_asked_only_then(
        game_id: str, events: list[dict[str, Any]], fact: str, stroke: dict[str, Any]) -> None:
    state, _ = play(game_id, ["Ann", "Bob"], None, events)
    assert isinstance(state, CueState)
    # The view's `referee.needs` is the table's: the dashboard's Stroke form asks for it.
    assert fact in state.TABLE.needs and fact in state.TABLE.sometimes
    [wait] = [a for a in state.awaiting() if a.fact == "stroke"]
    assert wait.detail.endswith(f"(and {fact} where it applies)")
    state.apply(state.parse_event(stroke))
    assert state.strokes == 1


def test_a_table_cannot_need_sometimes_what_it_never_needs() -> None:
    with pytest.raises(ValueError, match="must hold sometimes"):
        TableFacts(("cue",), needs=("path",), sometimes=("direct",))
    with pytest.raises(ValueError, match="unknown: \\['spin'\\]"):
        TableFacts(("cue",), needs=("path", "spin"))


def test_pin_pool_snapshot_never_shows_a_small_ball() -> None:
    def seen(numbers: tuple[int, int]) -> dict[str, Any]:
        draws = [{"type": "private", "player": name, "number": n}
                 for name, n in zip(("Ann", "Bob"), numbers, strict=True)]
        state, _ = play("pin-pool", ["Ann", "Bob"], None,
                        [*draws, {"type": "stroke", "path": ["red"], "pins": ["centre"],
                                  "direct": []}])
        return state.snapshot()

    assert seen((1, 2)) == seen((15, 16))


def test_pin_pool_claims_are_answered_not_refused() -> None:
    """A claim is always heard (offering it only to a player at 31 would betray him)."""
    state, kinds = play("pin-pool", ["Ann", "Bob"], None,
                        [*DRAWS, {"type": "proclaim", "player": "Bob"}])
    assert kinds == {"void-claim"} and not state.snapshot()["over"]
    assert {e.to_json()["player"] for e in state.legal_events()
            if e.type == "proclaim"} == {"Ann", "Bob"}


def test_pin_pool_outside_pin_values_are_options() -> None:
    game = get_game("pin-pool")
    assert game.new_state(["Ann", "Bob"]).snapshot()["pin_values"] == {
        "head": 1, "right": 2, "foot": 3, "left": 4, "centre": 5}
    with pytest.raises(BadOptionError, match="option left_pin must be a whole number 1-9"):
        game.new_state(["Ann", "Bob"], {"left_pin": 0})
