"""The carom games: bad input refused with the log kept, options checked, what the sheet shows.

The book vectors (vectors/billiards/<id>.toml) play the laws; these are the checks they do
not make: what the referee's tablet must be refused, and what the dashboard is shown.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.billiards.carom import CaromState
from engine.billiards.core import StrokeEvent
from engine.billiards.table import CueState
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import all_games, get_game
from tests.engine.book_vectors import play

CAROM = "french-caroms"
#: (game, events before, the bad event, what the message must name)
BAD_EVENTS: list[tuple[str, list[dict[str, Any]], dict[str, Any], str]] = [
    (CAROM, [], {"type": "stroke", "path": ["red", "yellow"]},
     "ball 'yellow' is not in the set of French Caroms"),
    (CAROM, [], {"type": "off", "ball": "light-red"}, "ball 'light-red' is not in the set"),
    ("american-four-ball-billiards", [], {"type": "off", "ball": "red"},
     "ball 'red' is not in the set"),
    (CAROM, [{"type": "off", "ball": "red"}], {"type": "off", "ball": "red"},
     "ball red is not on the table"),
    (CAROM, [], {"type": "pocket", "ball": "red", "pocket": "foot-left"},
     "has no 'pocket' event"),
    (CAROM, [], {"type": "count", "points": 1, "player": "Bob"}, "out of turn"),
    (CAROM, [{"type": "stroke", "path": []}], {"type": "stroke", "path": ["red"],
                                                "player": "Ann"}, "out of turn"),
    (CAROM, [], {"type": "stroke", "path": ["white", "red"]},
     "the white is Ann's own cue ball"),
    (CAROM, [], {"type": "count", "points": 2}, "scores 0, 1, not 2"),
    (CAROM, [], {"type": "count"}, "points is missing"),
    (CAROM, [], {"type": "stroke"}, "needs the fact 'path'"),
    (CAROM, [], {"type": "foul", "kind": "sneeze"}, "no foul 'sneeze'"),
    (CAROM, [], {"type": "stroke", "path": ["red", "spot-white"], "balk": "in"},
     "balk must be true or false"),
    ("balk-line-billiards", [], {"type": "stroke", "path": ["red", "spot-white"]},
     "needs the fact 'balk'"),
    ("little-corporal", [], {"type": "stroke", "path": ["red", "spot-white"]},
     "needs the fact 'pins'"),
    ("little-corporal", [], {"type": "stroke", "path": ["red"], "pins": ["king"]},
     "stroke pins: ball 'king' is not in the set"),
    ("little-corporal", [], {"type": "count", "points": 3}, "scores 0, 1, 5, 6, not 3"),
    ("three-cushion-billiards", [], {"type": "stroke", "path": ["red"], "safety": True},
     r"needs the fact 'driven' \(how many object balls were driven to a cushion\) for a "
     r"deliberate safety"),
    ("three-cushion-billiards", [],
     {"type": "stroke", "path": ["red", "cushion", "cushion", "cushion", "spot-white"],
      "safety": True}, "a counting carom is not a deliberate safety"),
    ("three-cushion-billiards", [],
     {"type": "stroke", "path": ["cushion"], "safety": True, "driven": 1},
     "driven is 1, but the path .* strikes no ball: a miss drives no ball to a cushion"),
    ("man-of-war", [], {"type": "stroke", "path": ["white-1", "red"]},
     "the white-1 is Ann's own cue ball"),
    (CAROM, [{"type": "count", "points": 1}] * 34, {"type": "count", "points": 1},
     "the game is over"),
]


def players_for(game_id: str) -> list[str]:
    return ["Ann", "Bob", "Cy"] if game_id == "man-of-war" else ["Ann", "Bob"]


@pytest.mark.parametrize(("game_id", "events", "bad", "message"), BAD_EVENTS,
                         ids=[f"{g}: {m}" for g, _, _, m in BAD_EVENTS])
def test_bad_input_is_refused_naming_it_and_the_log_kept(
        game_id: str, events: list[dict[str, Any]], bad: dict[str, Any], message: str) -> None:
    state, _ = play(game_id, players_for(game_id), None, events)
    before = state.save()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(bad))
    assert state.save() == before


@pytest.mark.parametrize("game_id", [g.id for g in all_games()
                                     if g.family == "carom-billiards"])
def test_his_own_ball_touched_ends_the_stroke_and_the_referee_is_asked_for_no_fact(
        game_id: str) -> None:
    """Law 8 (lines 2706-2708): the touch is the stroke, so the referee closes it bare."""
    state, _ = play(game_id, players_for(game_id), None, [{"type": "foul", "kind": "own-ball"}])
    assert [w.detail for w in state.awaiting() if w.fact == "stroke"] == [
        "the end of the stroke, with nothing more"]
    state.apply(state.parse_event({"type": "stroke"}))
    assert state.snapshot()["striker"] == "Bob"


def test_the_wrong_ball_lets_the_striker_s_own_ball_be_struck() -> None:
    state, kinds = play(CAROM, ["Ann", "Bob"], None,
                        [{"type": "foul", "kind": "wrong-ball"},
                         {"type": "stroke", "path": ["white", "red"]}])
    assert kinds == {"foul"}
    assert state.snapshot()["striker"] == "Bob"


@pytest.mark.parametrize(("options", "message"), [
    ({"discount": {"Ann": 50, "Cy": 20}}, "option discount names Cy, who is not playing"),
    ({"discount": {"Ann": 0}}, "option discount must be a table of players' points"),
    ({"discount": ["Ann", 50]}, "option discount must be"),
    ({"points": 0}, "option points must be a whole number 1-1000"),
])
def test_a_discount_game_names_only_players_with_their_points(options: dict[str, Any],
                                                              message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game(CAROM).new_state(["Ann", "Bob"], options)


@pytest.mark.parametrize(("game_id", "options", "message"), [
    ("balk-line-billiards", {"shots": 3}, "option shots must be 2 or 1"),
    ("balk-line-billiards", {"line": 16}, "option line must be one of 10, 12, 14, 18"),
    ("cushion-caroms", {"cushions": 4}, "option cushions must be a whole number 1-3"),
    ("three-cushion-billiards", {"penalties": "never"}, "option penalties must be"),
    ("man-of-war", {"miss": "all"}, "option miss must be 'next' or 'each'"),
])
def test_each_game_s_options_are_checked(game_id: str, options: dict[str, Any],
                                         message: str) -> None:
    with pytest.raises(BadOptionError, match=message):
        get_game(game_id).new_state(players_for(game_id), options)


def test_man_of_war_is_for_three() -> None:
    with pytest.raises(IllegalEventError, match="played by 3 players, not 2"):
        get_game("man-of-war").new_state(["Ann", "Bob"])


def test_the_sheet_shows_each_player_s_ball_and_own_target() -> None:
    state = get_game(CAROM).new_state(["Ann", "Bob", "Cy"], {"discount": {"Cy": 10}})
    snapshot = state.snapshot()
    assert snapshot["targets"] == {"Ann": 34, "Bob": 34, "Cy": 10}
    # More players than whites share them in turn.
    assert snapshot["cue_balls"] == {"Ann": "white", "Bob": "spot-white", "Cy": "white"}
    assert snapshot["table"]["pins_up"] == []


def test_three_cushion_shows_what_a_player_owes_until_he_scores() -> None:
    safe = {"type": "stroke", "path": ["red", "cushion"], "safety": True}
    state, _ = play("three-cushion-billiards", ["Ann", "Bob"], None,
                    [safe, {"type": "count", "points": 0}, safe])
    snapshot = state.snapshot()
    assert snapshot["owed"] == {"Ann": 1, "Bob": 0}
    assert snapshot["safeties_in_row"] == {"Ann": 2, "Bob": 0}
    assert {s["player"]: s["total"] for s in snapshot["sheet"]} == {"Ann": 0, "Bob": 0}


def test_balk_line_asks_the_referee_for_the_balk_and_names_the_game() -> None:
    state = get_game("balk-line-billiards").new_state(["Ann", "Bob"], {"line": 14, "shots": 1})
    waits = state.awaiting()
    assert [(w.fact, w.source) for w in waits] == [("stroke", "referee")]
    assert "path, balk" in waits[0].detail
    assert state.snapshot()["balk_line"] == "14-1"


def test_the_little_corporal_s_pin_is_always_set_up_again() -> None:
    state, _ = play("little-corporal", ["Ann", "Bob"], None,
                    [{"type": "stroke", "path": ["red"], "pins": ["pin"]}])
    snapshot = state.snapshot()
    assert snapshot["table"]["pins_up"] == ["pin"]
    assert snapshot["sheet"][0]["total"] == 5


def test_a_ruling_on_a_ball_off_says_where_it_is_spotted() -> None:
    state = get_game(CAROM).new_state(["Ann", "Bob"])
    state.apply(state.parse_event({"type": "off", "ball": "red"}))
    operation = state.apply(state.parse_event({"type": "stroke", "path": ["red"]}))
    spot = next(r for r in operation.rulings if r.kind == "spot")
    assert "its own spot" in spot.text and spot.law.lines == (2864, 2883)
    assert "red" in state.snapshot()["table"]["on"]


# -- the facts some strokes need: the crotch's `balk`, the Little Corporal's `direct` ----------

#: The games that bar the crotch (lines 2934-2940: "when so crotched, but three counts are
#: allowed unless one or both object balls be forced out of the crotch"): the three-ball
#: carom laws govern French caroms and its variants, and the Little Corporal (15302-15304,
#: "the regular Three-ball Carom Game with a small pin added").
CROTCH_GAMES = ["french-caroms", "cushion-caroms", "bank-shot-billiards", "little-corporal"]
#: A counting stroke at each (a cushion first at bank shots, one at cushion caroms), with the
#: facts the game needs on every stroke.
COUNTING: dict[str, dict[str, Any]] = {
    "french-caroms": {"type": "stroke", "path": ["red", "spot-white"]},
    "cushion-caroms": {"type": "stroke", "path": ["red", "cushion", "spot-white"]},
    "bank-shot-billiards": {"type": "stroke", "path": ["cushion", "red", "spot-white"]},
    "little-corporal": {"type": "stroke", "path": ["red", "spot-white"], "pins": []},
}


def crotched(game_id: str) -> dict[str, Any]:
    """Ann's counting stroke that left both object balls in the crotch."""
    return {**COUNTING[game_id], "balk": True}


def test_every_carom_game_that_limits_a_space_declares_balk() -> None:
    for game in all_games():
        if game.family != "carom-billiards":
            continue
        state = game.new_state(players_for(game.id))
        assert isinstance(state, CaromState)
        limited = state.limit() is not None
        assert ("balk" in state.TABLE.needs) is limited, game.id
        # The snapshot names the space, and the referee's form words `balk` by it.
        assert state.snapshot().get("balk_space") == (
            None if not limited else "balk space" if game.id == "balk-line-billiards"
            else "crotch"), game.id


@pytest.mark.parametrize("game_id", CROTCH_GAMES)
def test_the_crotch_s_balk_is_declared_as_needed_only_sometimes(game_id: str) -> None:
    state = get_game(game_id).new_state(["Ann", "Bob"])
    assert isinstance(state, CueState)
    assert "balk" in state.TABLE.needs and "balk" in state.TABLE.sometimes
    [wait] = [a for a in state.awaiting() if a.fact == "stroke"]
    assert wait.detail.endswith("balk where it applies)")
    # Until a stroke leaves the balls crotched, a stroke without it did not: it counts.
    operation = state.apply(state.parse_event(COUNTING[game_id]))
    assert [r.kind for r in operation.rulings] == ["carom"]


@pytest.mark.parametrize("game_id", CROTCH_GAMES)
def test_a_counting_stroke_after_the_balls_were_left_crotched_must_give_balk(
        game_id: str) -> None:
    """Lines 2934-2940: once crotched, whether a stroke forced a ball out decides it."""
    state, _ = play(game_id, ["Ann", "Bob"], None, [crotched(game_id)])
    before = state.save()
    with pytest.raises(IllegalEventError, match=(
            r"needs the fact 'balk' \(whether the stroke was played with both object balls "
            r".*\): Ann's last stroke left the object balls in the crotch")):
        state.apply(state.parse_event(COUNTING[game_id]))
    assert state.save() == before


@pytest.mark.parametrize("game_id", CROTCH_GAMES)
@pytest.mark.parametrize("closing", [
    {"type": "stroke", "path": []},  # a miss: one for Bob, the inning ends
    {"type": "stroke", "path": ["red"]},  # no carom: the inning ends
    {"type": "count", "points": 1},  # the referee's own count, the crotch applied
], ids=["miss", "no-count", "referee-count"])
def test_a_stroke_the_crotch_cannot_touch_goes_through_without_balk(
        game_id: str, closing: dict[str, Any]) -> None:
    if "pins" in COUNTING[game_id] and closing["type"] == "stroke" and closing["path"]:
        closing = {**closing, "pins": []}
    state, _ = play(game_id, ["Ann", "Bob"], None, [crotched(game_id), closing])
    assert isinstance(state, CueState)
    assert state.strokes == 2


@pytest.mark.parametrize("game_id", CROTCH_GAMES)
def test_the_third_count_left_in_the_crotch_is_void_and_the_hand_is_out(
        game_id: str) -> None:
    """Lines 2934-2940: "but three counts are allowed unless one or both object balls be
    forced out of the crotch. In case of failure the player's hand is out"."""
    state, _ = play(game_id, ["Ann", "Bob"], None, [crotched(game_id)] * 2)
    assert isinstance(state, CueState)
    operation = state.apply(state.parse_event(crotched(game_id)))
    [void] = operation.rulings
    assert (void.kind, void.who, void.amount) == ("balk", "Ann", 0)
    assert void.text == ("Ann leaves the object balls in the crotch after 3 strokes there: "
                         "the stroke is void and the hand is out.")
    assert void.law.lines == (2934, 2940)
    snapshot = state.snapshot()
    assert snapshot["striker"] == "Bob" and snapshot["sheet"][0]["total"] == 2
    # Bob's allowance starts afresh: his first stroke needs no balk.
    state.apply(state.parse_event({**COUNTING[game_id], "path": [
        "white" if c == "spot-white" else c for c in COUNTING[game_id]["path"]]}))
    assert state.snapshot()["sheet"][1]["total"] == 1


@pytest.mark.parametrize("game_id", CROTCH_GAMES)
def test_a_ball_forced_out_of_the_crotch_counts_and_the_allowance_starts_again(
        game_id: str) -> None:
    state, _ = play(game_id, ["Ann", "Bob"], None,
                    [crotched(game_id)] * 2 + [{**COUNTING[game_id], "balk": False}])
    snapshot = state.snapshot()
    assert (snapshot["sheet"][0]["total"], snapshot["kept_in"]) == (3, 0)
    # Forced out, the balls no longer lie crotched: the next stroke needs no balk again.
    state.apply(state.parse_event(COUNTING[game_id]))
    assert state.snapshot()["sheet"][0]["total"] == 4


@pytest.mark.parametrize("game_id", CROTCH_GAMES)
def test_the_table_offers_only_crotch_strokes_that_say_balk_when_it_must(
        game_id: str) -> None:
    state, _ = play(game_id, ["Ann", "Bob"], None, [crotched(game_id)])
    assert isinstance(state, CaromState)
    strokes = [e for e in state.legal_events() if isinstance(e, StrokeEvent)]
    assert any(e.balk for e in strokes) and any(e.balk is False for e in strokes)
    for event in strokes:
        assert not state.balk_owed(event), event
    before = state.save()
    for event in strokes:
        trial = get_game(game_id).load(before)
        trial.apply(trial.parse_event(event.to_json()))


def test_the_little_corporal_asks_whether_the_pin_was_played_at_direct() -> None:
    state = get_game("little-corporal").new_state(["Ann", "Bob"])
    assert isinstance(state, CueState)
    assert state.TABLE.needs == ("path", "pins", "direct", "balk")
    assert state.TABLE.sometimes == ("direct", "balk")
    [wait] = [a for a in state.awaiting() if a.fact == "stroke"]
    assert wait.detail == ("the end of the stroke, with path, pins (and direct, balk where it "
                           "applies)")


def test_the_pin_played_at_direct_is_a_foul() -> None:
    """Lines 15315-15316: "A ball must be hit by the cue-ball before the pin can be scored;
    playing at the pin direct is not allowed"."""
    state = get_game("little-corporal").new_state(["Ann", "Bob"])
    operation = state.apply(state.parse_event(
        {"type": "stroke", "path": ["red", "spot-white"], "pins": ["pin"], "direct": ["pin"]}))
    [foul] = operation.rulings
    assert (foul.kind, foul.who, foul.amount) == ("foul", "Ann", 0)
    assert foul.text == ("Ann: the cue ball knocked the pin down before it struck a ball: "
                         "playing at the pin direct is not allowed; no count, the inning ends.")
    assert foul.law.lines == (15315, 15316)
    assert state.snapshot()["striker"] == "Bob"


@pytest.mark.parametrize(("direct", "points"), [([], 6), (None, 6)])
def test_the_pin_down_after_a_ball_scores_five(direct: list[str] | None, points: int) -> None:
    """Lines 15310-15313: the pin down scores five, with the carom six. `direct` is the
    referee's call of the foul: a stroke without it struck a ball first (the book vectors
    close such strokes without it)."""
    stroke: dict[str, Any] = {"type": "stroke", "path": ["red", "spot-white"], "pins": ["pin"]}
    if direct is not None:
        stroke["direct"] = direct
    state, kinds = play("little-corporal", ["Ann", "Bob"], None, [stroke])
    assert kinds == {"carom"}
    assert state.snapshot()["sheet"][0]["total"] == points


def test_direct_names_only_the_pin_knocked_down() -> None:
    state = get_game("little-corporal").new_state(["Ann", "Bob"])
    with pytest.raises(IllegalEventError, match="direct must list pins among those knocked "
                                                "down"):
        state.parse_event({"type": "stroke", "path": ["red"], "pins": [], "direct": ["pin"]})


# -- three-cushion's `driven`: asked for, needed only on some safeties -----------------------

THREE_CUSHION = "three-cushion-billiards"
#: Rule 9 (Hoyle 1940, lines 3115-3119): "Playing deliberately for safety a striker must make
#: the cue ball strike an object ball and then touch a cushion, or force the object ball
#: against a cushion. Failure to do so will cause one point to be deducted from his score."
SAFETY_RULE = (3115, 3119)
#: A safety whose cue ball struck the red and touched no cushion after it: whether the red
#: (or another object ball) reached a cushion decides it.
NO_CUSHION_AFTER = {"type": "stroke", "path": ["red"], "safety": True}


def test_three_cushion_declares_driven_as_needed_only_sometimes() -> None:
    state = get_game(THREE_CUSHION).new_state(["Ann", "Bob"])
    assert isinstance(state, CueState)
    # The referee's form asks for what `needs` names (controller/static/billiards.js).
    assert state.TABLE.needs == ("path", "driven")
    assert state.TABLE.sometimes == ("driven",)
    [wait] = [a for a in state.awaiting() if a.fact == "stroke"]
    assert wait.detail == "the end of the stroke, with path (and driven where it applies)"


def test_a_safety_with_no_cushion_after_the_ball_must_say_what_it_drove() -> None:
    """Rule 9 (3115-3119): without `driven` the table cannot tell a legal safety from one
    that costs a point, so it refuses the stroke, naming the fact, and keeps the log."""
    state, _ = play(THREE_CUSHION, ["Ann", "Bob"], None, [{"type": "count", "points": 1}])
    before = state.save()
    with pytest.raises(IllegalEventError, match=(
            r"^stroke: Three-Cushion Carom Billiards needs the fact 'driven' \(how many "
            r"object balls were driven to a cushion\) for a deliberate safety whose cue ball "
            r"met no cushion after the object ball: it is legal only if it forced an object "
            r"ball to a cushion \(rule 9\)$")):
        state.apply(state.parse_event(NO_CUSHION_AFTER))
    assert state.save() == before


@pytest.mark.parametrize(("driven", "amount", "text", "total"), [
    (1, 0, "Ann plays a deliberate safety, his first: no penalty.", 2),
    (0, -1, "Ann's safety brings no ball to a cushion: forfeits 1.", 1),
])
def test_what_the_safety_drove_decides_it(driven: int, amount: int, text: str,
                                          total: int) -> None:
    """Rule 9 (3115-3119): "or force the object ball against a cushion"; rule 10
    (3122-3123): the first deliberate safety is free."""
    state, _ = play(THREE_CUSHION, ["Ann", "Bob"], None, [{"type": "count", "points": 1}] * 2)
    operation = state.apply(state.parse_event({**NO_CUSHION_AFTER, "driven": driven}))
    [ruling] = operation.rulings
    assert (ruling.kind, ruling.who, ruling.amount, ruling.text) == ("safety", "Ann", amount,
                                                                      text)
    assert ruling.law.lines == (SAFETY_RULE if driven == 0 else (3122, 3128))
    snapshot = state.snapshot()
    assert snapshot["sheet"][0]["total"] == total and snapshot["striker"] == "Bob"
    assert snapshot["safeties_in_row"] == {"Ann": 1, "Bob": 0}


@pytest.mark.parametrize(("before", "closing", "kinds"), [
    # A count (rules 2-6), a failed carom and an honest miss (rule 15): no safety at all.
    ([], {"type": "stroke", "path": ["red", "cushion", "cushion", "cushion", "spot-white"]},
     {"carom"}),
    ([], {"type": "stroke", "path": ["red"]}, {"no-count"}),
    ([], {"type": "stroke", "path": []}, {"miss"}),
    ([], {"type": "stroke", "path": ["cushion", "cushion", "cushion"]}, {"miss"}),
    # The cue ball touched a cushion after the ball: rule 9 is met whatever it drove.
    ([], {"type": "stroke", "path": ["red", "cushion"], "safety": True}, {"safety"}),
    # A deliberate safety miss (rule 12, 3131-3135) strikes no ball: nothing was driven.
    ([], {"type": "stroke", "path": [], "safety": True}, {"safety"}),
    # The wrong ball (rule 17, 3168-3172): ruled as that foul, not as the safety.
    ([{"type": "foul", "kind": "wrong-ball"}], NO_CUSHION_AFTER, {"foul"}),
], ids=["carom", "no-count", "miss", "cushions-only", "safety-cushion-after", "safety-miss",
        "wrong-ball"])
def test_a_stroke_driven_cannot_decide_goes_through_without_it(
        before: list[dict[str, Any]], closing: dict[str, Any], kinds: set[str]) -> None:
    state, _ = play(THREE_CUSHION, ["Ann", "Bob"], None, before)
    operation = state.apply(state.parse_event(closing))
    assert {r.kind for r in operation.rulings} == kinds
    # The stroke is logged as the referee told it: a miss is not given a `driven` of its own.
    assert operation.event.to_json() == closing


def test_the_table_offers_only_safeties_that_say_driven_when_they_must() -> None:
    state = get_game(THREE_CUSHION).new_state(["Ann", "Bob"])
    assert isinstance(state, CaromState)
    strokes = [e for e in state.legal_events() if isinstance(e, StrokeEvent)]
    assert any(e.safety and e.driven is not None for e in strokes)
    before = state.save()
    for event in strokes:
        trial = get_game(THREE_CUSHION).load(before)
        trial.apply(trial.parse_event(event.to_json()))
