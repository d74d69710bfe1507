"""Bowling laws point at the right lines of the book, and bad input is refused by name.

A ruling's law is what a player taps to settle a dispute, so each `LawRef` must land on
lines that talk about its subject. Input the table cannot have seen (an unknown bowler,
a pin that is already down, a ball after the last frame) must raise an error naming it
and leave the game as it was.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.bowling import laws
from engine.core import HOYLE_1940, LawRef, State
from engine.errors import BadOptionError, EngineError, IllegalEventError
from engine.registry import all_games, get_game
from tests.engine.seeds import seed_lines

#: The bowling chapter of Hoyle's Games (1940): ten pins to the duck pin game.
CHAPTER = (3942, 4400)

#: Words (as the scan spells them) that the lines of each law must contain.
SUBJECT: dict[LawRef, tuple[str, ...]] = {
    laws.FRAMES: ("ten", "frames", "two balls"),
    laws.MARKS: ("strike", "spare", "break"),
    laws.THREE_BALL_CREDIT: ("three successive balls", "strike"),
    laws.TENTH_FRAME: ("tenth frame", "extra balls", "300"),
    laws.FOUL: ("foul ball", "no count", "respotted"),
    laws.BALL_COUNTS: ("counted against the player", "counted as pins down"),
    laws.DISPLACED_PINS: ("do not count", "respotted"),
    laws.DEAD_BALL: ("dead ball", "rerolled"),
    laws.COCKED_HAT_SCORING: ("three balls", "strikes and spares count three"),
    laws.FEATHER_RULES: ("feather", "ten innings", "standing alone"),
    laws.FEATHER_NO_PENALTIES: ("no penalties", "maximum"),
    laws.NINE_UP_RULES: ("three balls", "single pin", "leave one pin standing"),
    laws.NINE_UP_NO_PENALTIES: ("no penalties", "maximum is 20"),
    laws.HEAD_PIN_RULES: ("head pin", "four back pins"),
    laws.HEAD_PIN_NO_PENALTIES: ("no penalties", "maximum is 20"),
    laws.FOUR_BACK_RULES: ("four back", "one pin", "break"),
    laws.FOUR_BACK_NO_PENALTIES: ("no penalties",),
    laws.NINE_PINS_RULES: ("ten innings", "one pin of the frame must be left standing"),
    laws.NINE_PINS_NO_PENALTIES: ("no penalties", "maximum is 10"),
    laws.FIVE_BACK_RULES: ("five back", "strikes and spares count five"),
    laws.FIVE_BACK_NO_PENALTIES: ("no penalties", "maximum is 150"),
    laws.NEWPORT_RULES: ("exact number", "loser"),
    laws.NEWPORT_NOTE: ("(x)", "already made that score", "only one score"),
    laws.DUCK_PINS_RULES: ("three balls to each frame", "two frames at a time", "foul"),
}

BOWLING = [game for game in all_games() if game.family == "bowling"]
BOWLING_IDS = [game.id for game in BOWLING]
CITABLE = list(dict.fromkeys(
    [law for game in BOWLING for law in game.laws()]
    + [value for value in vars(laws).values() if isinstance(value, LawRef)]))




@pytest.mark.parametrize("law", CITABLE, ids=lambda law: law.title)
def test_law_lines_speak_of_its_subject(law: LawRef) -> None:
    assert law.book == HOYLE_1940
    first, last = law.lines
    assert CHAPTER[0] <= first <= last <= CHAPTER[1], f"{law.title}: outside the bowling chapter"
    assert law in SUBJECT, f"{law.title}: add the words its lines must hold to SUBJECT"
    text = " ".join(" ".join(seed_lines(law.book)[first - 1:last]).split()).lower()
    for word in SUBJECT[law]:
        assert word in text, f"{law.title}: {word!r} not in lines {first}-{last}"


@pytest.mark.parametrize("game_id", BOWLING_IDS)
def test_a_game_cites_its_own_scoring_and_the_dead_ball_law(game_id: str) -> None:
    game = get_game(game_id)
    cited = game.laws()
    assert laws.DEAD_BALL in cited
    assert laws.FOUL in cited
    assert len(set(cited)) == len(cited)
    assert game.describe()["family"] == "bowling"


# -- bad input -------------------------------------------------------------------


def ball(player: str, standing: list[int], **more: Any) -> dict[str, Any]:
    return {"type": "ball", "player": player, "standing": standing, **more}


def apply(state: State, data: dict[str, Any]) -> None:
    state.apply(state.parse_event(data))


def refused(state: State, data: dict[str, Any], *words: str) -> None:
    """`data` raises IllegalEventError naming each of `words`, and the game is unchanged."""
    before = state.snapshot()
    with pytest.raises(IllegalEventError) as caught:
        apply(state, data)
    for word in words:
        assert word in str(caught.value), f"{word!r} not named in: {caught.value}"
    assert state.snapshot() == before


def finished(game_id: str, players: list[str]) -> State:
    """A game played to its end by clearing every rack (the quickest way through)."""
    state = get_game(game_id).new_state(players)
    while not state.snapshot()["over"]:
        apply(state, ball(state.snapshot()["up"]["player"], []))
    return state


def test_unknown_player_is_named() -> None:
    state = get_game("ten-pins").new_state(["Ann", "Bob"])
    refused(state, ball("Zed", []), "Zed", "Ann", "Bob")
    refused(state, {"type": "dead_ball", "player": "Zed"}, "Zed")


def test_ball_out_of_turn_names_who_is_up() -> None:
    state = get_game("ten-pins").new_state(["Ann", "Bob"])
    refused(state, ball("Bob", []), "Bob", "out of turn", "Ann")


def test_duck_pins_second_frame_is_the_same_bowlers() -> None:
    state = get_game("duck-pins").new_state(["Ann", "Bob"])
    apply(state, ball("Ann", []))
    refused(state, ball("Bob", []), "Bob", "out of turn", "Ann", "frame 2")


def test_pin_already_down_is_named() -> None:
    state = get_game("ten-pins").new_state(["Ann"])
    apply(state, ball("Ann", [8, 9, 10]))
    refused(state, ball("Ann", [1, 9, 10]), "pin 1", "already down")


def test_pin_eleven_is_refused() -> None:
    state = get_game("ten-pins").new_state(["Ann"])
    refused(state, ball("Ann", [11]), "pin 11")
    refused(state, ball("Ann", [0]), "pin 0")


@pytest.mark.parametrize(("game_id", "pin"), [
    ("cocked-hat", 2), ("cocked-hat-and-feather", 3), ("head-pin-and-four-back", 5),
    ("four-back", 1), ("nine-pins", 1), ("five-back", 8)])
def test_pin_not_in_the_variant_is_named(game_id: str, pin: int) -> None:
    state = get_game(game_id).new_state(["Ann"])
    refused(state, ball("Ann", [pin]), f"pin {pin}", get_game(game_id).name)


def test_malformed_balls_are_refused() -> None:
    state = get_game("ten-pins").new_state(["Ann"])
    refused(state, ball("Ann", [9, 9]), "twice")
    refused(state, {"type": "ball", "player": "Ann", "standing": "9"}, "standing")
    refused(state, {"type": "ball", "player": "Ann"}, "standing")
    refused(state, ball("Ann", [True]), "standing")
    refused(state, ball("Ann", [], foul="yes"), "foul")
    refused(state, {"type": "roll", "player": "Ann"}, "roll")
    refused(state, {"type": "ball", "standing": []}, "player")


def test_dead_ball_with_nothing_to_declare() -> None:
    state = get_game("ten-pins").new_state(["Ann", "Bob"])
    refused(state, {"type": "dead_ball", "player": "Ann"}, "dead ball", "Ann")
    apply(state, ball("Ann", [10]))
    refused(state, {"type": "dead_ball", "player": "Bob"}, "Bob", "Ann's")
    apply(state, {"type": "dead_ball", "player": "Ann"})
    refused(state, {"type": "dead_ball", "player": "Ann"}, "dead ball", "rerolled")


@pytest.mark.parametrize("game_id", BOWLING_IDS)
def test_ball_after_the_game_is_over(game_id: str) -> None:
    state = finished(game_id, ["Ann", "Bob"])
    assert state.outcome() is not None
    refused(state, ball("Ann", []), "game is over")


def test_dead_ball_on_the_last_ball_reopens_the_game() -> None:
    state = finished("ten-pins", ["Ann"])
    apply(state, {"type": "dead_ball", "player": "Ann"})
    assert state.outcome() is None
    apply(state, ball("Ann", [10]))
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.scores == {"Ann": 299}


@pytest.mark.parametrize("players", [[], ["Ann", "Ann"], [""], ["x" * 41]])
def test_bad_player_lists_are_refused(players: list[str]) -> None:
    with pytest.raises(IllegalEventError):
        get_game("ten-pins").new_state(players)


@pytest.mark.parametrize(("game_id", "options", "named"), [
    ("ten-pins", {"lanes": 2}, "lanes"),
    ("ten-pins", {"spare_after_foul": "yes"}, "spare_after_foul"),
    ("ten-pins", {"foul_penalty": 1}, "foul_penalty"),
    ("nine-up-nine-down", {"nothing_unless_both": None}, "nothing_unless_both"),
    ("newport-game", {"newport_count": "sometimes"}, "newport_count"),
    ("head-pin-and-four-back", {"pins": [1, 7, 8, 9]}, "5 pins"),
    ("nine-pins", {"pins": [1, 2, 3, 4, 5, 6, 7, 8, 11]}, "pins"),
    ("five-back", {"pins": [1, 1, 5, 7, 9]}, "pins"),
    ("four-back", {"pins": [7, 8, 9, 10]}, "no option 'pins'"),
])
def test_bad_options_are_refused_by_name(game_id: str, options: dict[str, Any],
                                         named: str) -> None:
    with pytest.raises(BadOptionError) as caught:
        get_game(game_id).new_state(["Ann"], options)
    assert named in str(caught.value)
    assert game_id in str(caught.value)


def test_errors_share_the_engine_root_and_a_builtin() -> None:
    assert issubclass(IllegalEventError, EngineError)
    assert issubclass(IllegalEventError, ValueError)
    assert issubclass(BadOptionError, EngineError)
    assert issubclass(BadOptionError, ValueError)


def test_five_back_foul_without_penalty_still_makes_a_spare() -> None:
    state = get_game("five-back").new_state(["Ann"], {"spare_after_foul": False})
    apply(state, ball("Ann", [7, 9, 10], foul=True))
    apply(state, ball("Ann", []))
    apply(state, ball("Ann", [5, 7, 9, 10]))
    frames = state.snapshot()["sheet"][0]["frames"]
    assert frames[0]["balls"] == ["2", "/"]
    assert frames[0]["score"] == 6


@pytest.mark.parametrize(("game_id", "option"), [
    ("ten-pins", "newport_count"),
    ("ten-pins", "nothing_unless_both"),
    ("ten-pins", "pins"),
    ("four-back", "pins"),
    ("cocked-hat-and-feather", "pins"),
    ("newport-game", "spare_after_foul"),
])
def test_an_option_the_game_does_not_have_is_refused(game_id: str, option: str) -> None:
    with pytest.raises(BadOptionError, match=f"no option '{option}'"):
        get_game(game_id).new_state(["Ann"], {option: True})


def test_head_pin_layout_must_keep_the_head_pin() -> None:
    with pytest.raises(BadOptionError, match="must include spot 1"):
        get_game("head-pin-and-four-back").new_state(["Ann"], {"pins": [2, 7, 8, 9, 10]})
