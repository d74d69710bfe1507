"""The banking card games: book vectors, the docs transcripts, and cards that cannot be.

Each file in vectors/cards/ is one game id, in the format of tests/engine/book_vectors.py;
a vector may also give `banker`, checked against the snapshot.
"""

from __future__ import annotations

import random

import pytest

from engine.cards.core import FULL_PACK, CardEvent, ShoeCount, parse_card
from engine.core import HOYLE_1940, ROUND_GAMES_1897
from engine.errors import IllegalEventError
from engine.registry import all_games, get_game
from tests.engine.book_vectors import (
    VECTORS,
    Entry,
    assert_cites_the_book,
    assert_docs_transcript,
    assert_plays_as_the_book,
    load_entries,
)

VECTORS_LIST = load_entries("cards", "vector")
CARD_IDS = sorted(g.id for g in all_games() if g.family == "banking-cards")


@pytest.mark.parametrize("entry", VECTORS_LIST, ids=lambda e: e.id)
def test_entry_cites_the_book(entry: Entry) -> None:
    assert entry.data["book"] in (HOYLE_1940, ROUND_GAMES_1897)
    assert_cites_the_book(entry)


@pytest.mark.parametrize("vector", VECTORS_LIST, ids=lambda e: e.id)
def test_vector_plays_as_the_book(vector: Entry) -> None:
    snapshot = assert_plays_as_the_book(vector, frozenset({"banker"}))
    if "banker" in vector.data:
        assert snapshot["banker"] == vector.data["banker"]


def test_every_banking_game_has_vectors() -> None:
    files = {path.stem for path in (VECTORS / "cards").glob("*.toml")}
    assert set(CARD_IDS) <= files


@pytest.mark.parametrize("game_id", CARD_IDS)
def test_docs_transcript_is_a_vector_and_adjudicates(game_id: str) -> None:
    assert_docs_transcript("cards", game_id, VECTORS_LIST)


def test_a_full_pack_is_every_card_once() -> None:
    assert len(set(FULL_PACK)) == 52
    assert {parse_card(card.code) for card in FULL_PACK} == set(FULL_PACK)


@pytest.mark.parametrize("code, message", [
    ("1H", "there is no card '1H'"),
    ("11S", "there is no card '11S'"),
    ("QX", "there is no card 'QX'"),
    ("", "there is no card ''"),
    (10, "not 10"),
])
def test_a_card_that_does_not_exist_is_named(code: object, message: str) -> None:
    with pytest.raises(IllegalEventError, match=message):
        parse_card(code, "card 3")


def test_a_sixth_copy_in_a_one_pack_game_is_refused() -> None:
    count = ShoeCount(packs=1)
    count.add(parse_card("QS"), "card 1")
    with pytest.raises(IllegalEventError, match="card 2: a second QS, but a 1-pack shoe"):
        count.add(parse_card("qs"), "card 2")
    six = ShoeCount(packs=6)
    for n in range(6):
        six.add(parse_card("7D"), f"card {n + 1}")
    with pytest.raises(IllegalEventError, match="a seventh 7D, but a 6-pack shoe holds 6"):
        six.check(parse_card("7D"), "card 7")
    assert six.left == 6 * 52 - 6
    assert parse_card("7D") not in six.remaining()
    assert six.remaining()[parse_card("8D")] == 6


@pytest.mark.parametrize("game_id", CARD_IDS)
def test_awaiting_names_the_hand_the_next_card_goes_to(game_id: str) -> None:
    """When every card the table may report goes to one hand, `awaiting` names that hand."""
    game = get_game(game_id)
    for seed in range(3):
        rng = random.Random(f"{game_id}/awaiting/{seed}")
        state = game.new_state(["Ann", "Bob", "Cy"][: rng.choice((2, 3))])
        for _ in range(300):
            legal = state.legal_events()
            if not legal:
                break
            hands = {event.to for event in legal if isinstance(event, CardEvent)}
            cards = [a for a in state.awaiting() if a.fact == "card"]
            if hands:
                assert [a.source for a in cards] == ["dealer"], (game_id, state.awaiting())
            if len(hands) == 1:
                assert cards[0].player == hands.pop(), (game_id, state.awaiting())
            state.apply(rng.choice(legal))
