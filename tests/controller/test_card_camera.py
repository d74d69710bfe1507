"""The card table's camera check: what the camera read surely, held against the cards the
shoe dealt; a card it is sure of that the shoe never dealt is for the dealer to look at."""

from __future__ import annotations

import pytest

from controller.card_camera import CameraLook, check_cards
from vision.core import Observation


def seen(*reads: tuple[str, float]) -> list[Observation]:
    return [Observation(code, (40.0 * i, 0.0, 20.0, 30.0), sure)
            for i, (code, sure) in enumerate(reads)]


def test_the_cards_on_the_table_are_confirmed_or_not_seen_and_a_stranger_is_named() -> None:
    check = check_cards(seen(("QH", 0.999), ("7C", 0.3), ("KS", 0.998)),
                        {"player": ["QH", "7C"], "banker": ["2D"]}, ["QH", "7C", "2D"], 0.995)
    assert check.confirmed == ["QH"]
    assert check.not_seen == ["2D", "7C"]  # face down, covered, or read unsurely
    assert check.unexpected == ["KS"]
    assert check.unsure == ["7C"]
    assert check.text() == ("The camera confirms 1 of the 3 cards on the table; it sees KS, "
                            "which the shoe has not dealt in this game: the dealer should look.")


def test_a_card_of_an_earlier_deal_not_yet_gathered_is_not_a_stranger() -> None:
    check = check_cards(seen(("QH", 1.0), ("9S", 1.0)), {"player": ["QH"]}, ["9S", "QH"], 0.99)
    assert (check.confirmed, check.unexpected) == (["QH"], [])
    assert check.text() == "The camera confirms 1 of the 1 cards on the table."


def test_a_check_that_vouches_for_no_card_says_so() -> None:
    gathered = check_cards(seen(("QH", 1.0)), {"player": [], "banker": []}, ["QH"], 0.99)
    assert not gathered.vouches()
    assert gathered.text() == "The camera sees no card of the game on the table."
    face_down = check_cards([], {"player": ["QH", "7C"]}, ["QH", "7C"], 0.99)
    assert face_down.text() == "The camera confirms none of the 2 cards on the table."
    assert check_cards(seen(("KS", 1.0)), {}, [], 0.99).vouches()  # a stranger is news


def test_copies_of_a_card_from_a_shoe_of_several_packs_are_counted_each() -> None:
    check = check_cards(seen(("8D", 1.0), ("8D", 1.0), ("8D", 1.0)),
                        {"left": ["8D"], "right": ["8D"]}, ["8D", "8D"], 0.99)
    assert check.confirmed == ["8D", "8D"]
    assert check.unexpected == ["8D"]  # a third eight of diamonds: only two were dealt


def test_a_check_is_kept_once_it_holds_for_several_looks_and_only_when_it_is_news() -> None:
    look = CameraLook(agree=2)
    hands = {"player": ["QH", "7C"]}
    one = check_cards(seen(("QH", 1.0)), hands, ["QH", "7C"], 0.99)
    both = check_cards(seen(("QH", 1.0), ("7C", 1.0)), hands, ["QH", "7C"], 0.99)
    assert look.feed(one) is None  # a hand still moving: once is not enough
    assert look.feed(both) is None
    assert look.feed(both) == both
    assert look.feed(both) is None  # nothing new
    assert look.feed(one) is None
    assert look.feed(one) == one  # a card covered since: news
    look.forget()  # a new game
    assert look.feed(one) is None
    assert look.feed(one) == one


def test_agreement_must_be_at_least_one_look() -> None:
    with pytest.raises(ValueError, match="agree must be at least 1"):
        CameraLook(agree=0)


def test_the_latest_check_of_the_game_is_in_the_view_and_survives_a_restart() -> None:
    from controller.fold import CAMERA_CHECK, TableState

    state = TableState()
    state.apply(1, "start", "sim", {"game": "red-dog", "players": ["Ann", "Bob"]})
    check = check_cards(seen(("QH", 1.0), ("KS", 1.0)), {"Ann": ["QH"]}, ["QH"], 0.99)
    state.apply(2, "note", "camera", {"what": CAMERA_CHECK, **check.to_json(),
                                      "text": check.text()})
    assert state.view("t", "T")["camera"] == {
        "seq": 2, "confirmed": ["QH"], "not_seen": [], "unexpected": ["KS"],
        "text": check.text()}
    assert TableState.restore(state.save()).view("t", "T")["camera"]["seq"] == 2
    state.apply(3, "start", "sim", {"game": "red-dog", "players": ["Ann", "Bob"]})
    assert state.view("t", "T")["camera"] is None  # a new game: nothing seen of it yet


def test_the_simulated_camera_that_cannot_draw_says_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.scenes.cards
    from controller.card_table import SimCardCamera
    from vision.camera import CameraUnavailable

    if not vision.scenes.cards.installed_decks():
        pytest.skip("Debian's card decks are absent")

    def no_renderer(*_args: object, **_kwargs: object) -> None:
        raise vision.scenes.cards.DeckUnavailable("rsvg-convert: not found")

    camera = SimCardCamera(lambda: ["QH"], seed=0)
    monkeypatch.setattr(vision.scenes.cards, "render_scene", no_renderer)
    with pytest.raises(CameraUnavailable, match="rsvg-convert: not found"):
        camera.read()
