"""Vingt-et-Un and its variants: what the table may not report, options, the pack, chances."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import pytest

from engine.cards.core import FULL_PACK
from engine.cards.twenty_one import TwentyOneState
from engine.cards.twenty_one_rules import HOYLE, MACAO, parse_codes
from engine.core import Ruling
from engine.errors import BadOptionError, IllegalEventError
from engine.registry import get_game

FAMILY_KEYS = {"id", "family", "name", "players", "options", "banker", "hands", "bets", "sheet",
               "over", "winners", "shoe"}


def table(game: str, players: Sequence[str] = ("Ann", "Bob"),
          options: Mapping[str, Any] | None = None) -> TwentyOneState:
    state = get_game(game).new_state(players, options)
    assert isinstance(state, TwentyOneState)
    return state


def act(state: TwentyOneState, *events: Mapping[str, Any]) -> list[Ruling]:
    rulings: list[Ruling] = []
    for data in events:
        rulings.extend(state.apply(state.parse_event(data)).rulings)
    return rulings


def card(to: str, code: str) -> dict[str, Any]:
    return {"type": "card", "to": to, "card": code}


def bet(player: str, amount: int) -> dict[str, Any]:
    return {"type": "bet", "player": player, "on": "hand", "amount": amount}


def stand(player: str) -> dict[str, Any]:
    return {"type": "stand", "player": player}


def refused(state: TwentyOneState, data: Mapping[str, Any], message: str) -> None:
    """The event is refused with `message`, and the game is as it was."""
    before = state.snapshot()
    with pytest.raises(IllegalEventError, match=message):
        state.apply(state.parse_event(data))
    assert state.snapshot() == before


def dealt(game: str = "vingt-et-un-hoyle", options: Mapping[str, Any] | None = None,
          bob: str = "10S 6H", banker: str = "10C 7D") -> TwentyOneState:
    """Ann banks, Bob has staked 2 and holds his first two cards: his turn to draw."""
    state = table(game, options=options)
    first, second = bob.split()
    bank_first, bank_second = banker.split()
    act(state, bet("Bob", 2), card("Bob", first), card("banker", bank_first),
        card("Bob", second), card("banker", bank_second))
    return state


def test_a_card_that_does_not_exist_is_refused_by_name() -> None:
    state = table("vingt-et-un-hoyle")
    with pytest.raises(IllegalEventError, match="there is no card '11H'"):
        state.parse_event(card("Bob", "11H"))


def test_a_second_copy_of_a_card_in_one_pack_is_refused() -> None:
    state = dealt()
    refused(state, card("Bob", "10s"), "a second 10S, but a 1-pack shoe holds one")


def test_two_packs_hold_two_of_each_card_but_not_three() -> None:
    state = table("limiting-the-deal-vingt-un", options={"limit_by": "two-packs"})
    act(state, card("Bob", "QS"), card("banker", "QS"))
    assert state.snapshot()["shoe"] == {"packs": 2, "dealt": 2, "left": 102}
    act(state, bet("Bob", 1))
    refused(state, card("Bob", "QS"), "a third QS, but a 2-pack shoe holds 2")


def test_a_card_to_a_closed_hand_is_refused() -> None:
    state = dealt()
    act(state, stand("Bob"))
    refused(state, card("Bob", "2C"), r"card 2C to Bob: that hand is closed \(stood\)")


def test_a_card_out_of_turn_names_the_hand_due() -> None:
    state = table("vingt-et-un-hoyle", ("Ann", "Bob", "Cy"))
    refused(state, card("Cy", "2C"), "the next card of the deal goes to Bob")
    refused(state, card("Ann", "2C"), 'Ann holds the bank; his cards go to "banker"')


def test_a_bet_after_the_second_card_or_the_double_is_refused() -> None:
    state = table("vingt-et-un-hoyle", ("Ann", "Bob", "Cy"))
    act(state, bet("Bob", 2), bet("Cy", 1), card("Bob", "5H"), card("Cy", "6H"),
        card("banker", "9S"), bet("Bob", 3))
    assert state.snapshot()["bets"][0] == {"player": "Bob", "on": "Bob", "amount": 5}
    act(state, {"type": "double", "player": "Ann"})
    refused(state, bet("Cy", 1), "the stakes are settled once the banker calls double")
    act(state, card("Bob", "7H"))
    refused(state, bet("Cy", 1), "the stakes are settled")


def test_the_banker_does_not_stake_and_quinze_takes_no_bets() -> None:
    refused(table("vingt-et-un-hoyle"), bet("Ann", 1), "the banker takes the stakes")
    refused(table("quinze"), bet("Bob", 1), "the stake is agreed and equal")


def test_the_second_round_waits_for_every_stake() -> None:
    state = table("vingt-et-un-hoyle", ("Ann", "Bob", "Cy"))
    act(state, bet("Bob", 1), card("Bob", "5H"), card("Cy", "6H"), card("banker", "9S"))
    refused(state, card("Bob", "7H"), "Cy has no stake; the stakes are put up before")
    assert [a.player for a in state.awaiting() if a.fact == "bet"] == ["Cy"]


def test_a_stake_is_within_the_limit() -> None:
    state = table("vingt-et-un-hoyle", options={"limit": 10})
    act(state, bet("Bob", 8))
    refused(state, bet("Bob", 3), "the limit is 10 on a card, and he has 8 up")


def test_only_hoyles_players_may_refuse_the_double() -> None:
    state = table("vingt-un-round-games")
    act(state, card("Bob", "5H"), card("banker", "9S"), bet("Bob", 1),
        {"type": "double", "player": "Ann"})
    refused(state, {"type": "refuse", "player": "Bob"}, "none may refuse")
    refused(state, {"type": "double", "player": "Ann"}, "called it already")


def test_only_the_banker_calls_double() -> None:
    state = table("vingt-et-un-hoyle")
    act(state, bet("Bob", 1), card("Bob", "5H"), card("banker", "9S"))
    refused(state, {"type": "double", "player": "Bob"}, r"only the banker \(Ann\)")


def test_a_split_needs_a_pair_and_hoyle_an_equal_stake() -> None:
    refused(dealt(), {"type": "split", "player": "Bob"}, "holds 10S 6H, not a pair")
    state = dealt(bob="8S 8H")
    refused(state, {"type": "split", "player": "Bob", "amount": 3},
            r"an equal amount \(2\) on each")
    act(state, {"type": "split", "player": "Bob"}, card("Bob", "8D"))
    refused(state, {"type": "split", "player": "Bob"}, "he has 2 hands")
    assert state.snapshot()["bets"] == [{"player": "Bob", "on": "Bob", "amount": 2},
                                        {"player": "Bob", "on": "Bob/2", "amount": 2}]


def test_round_games_names_the_divided_stake() -> None:
    state = dealt("vingt-un-round-games", bob="8S 8H")
    refused(state, {"type": "split", "player": "Bob"}, "names the separate stake")


def test_a_divided_ace_and_ten_is_not_a_natural() -> None:
    state = dealt(bob="AS AH", banker="10C 9D")
    rulings = act(state, {"type": "split", "player": "Bob"}, card("Bob", "KS"),
                  stand("Bob"), card("Bob/2", "9C"), stand("Bob"), stand("Ann"))
    assert "natural" not in {r.kind for r in rulings}
    # A K and A 9 each beat 19 for the single stake of 2: a natural would have won 4.
    assert state.snapshot()["sheet"] == [{"player": "Ann", "total": -4},
                                         {"player": "Bob", "total": 4}]


def test_the_banker_stands_only_in_his_turn() -> None:
    state = dealt()
    refused(state, stand("Ann"), "it is Bob's turn to draw")


def test_unknown_options_and_values_are_refused() -> None:
    with pytest.raises(BadOptionError, match="no option 'bank_passes'"):
        table("vingt-un-round-games", options={"bank_passes": "natural"})
    with pytest.raises(BadOptionError, match="ties must be 'stand-off' or 'dealer'"):
        table("vingt-et-un-hoyle", options={"ties": "push"})
    with pytest.raises(BadOptionError, match="no option 'ties'"):
        table("quinze", options={"ties": "dealer"})


def test_the_ties_option_gives_hoyle_the_dealers_ties() -> None:
    state = dealt(options={"ties": "dealer", "deals": 1}, bob="10S 7H", banker="10C 7D")
    act(state, stand("Bob"), stand("Ann"))
    assert state.snapshot()["sheet"][1] == {"player": "Bob", "total": -2}


def test_a_player_named_banker_is_refused() -> None:
    with pytest.raises(IllegalEventError, match="may not be called 'banker'"):
        table("macao", ("Ann", "banker"))


def test_exact_chance_of_a_natural() -> None:
    assert HOYLE.natural_chances() == {2: Fraction(32, 663)}
    assert MACAO.natural_chances() == {3: Fraction(64, 663), 2: Fraction(59, 663),
                                       1: Fraction(56, 663)}


def test_the_draw_ruling_gives_the_exact_chance_of_passing_21() -> None:
    left = Counter(FULL_PACK) - Counter(parse_codes("10S 6H"))
    assert HOYLE.bust_chance(parse_codes("10S 6H"), left) == Fraction(3, 5)
    state = dealt(bob="10S 2H", banker="10C 7D")
    (ruling,) = act(state, card("Bob", "4H"))
    # 16 with 10S 2H 4H 10C 7D gone: sixes to kings pass 21, 4 + 3 + 4 + 4 + 14 = 29 of 47.
    assert ruling.kind == "draw" and "29 times in 47" in ruling.text


def test_the_round_games_pack_runs_on_and_the_used_cards_are_shuffled() -> None:
    state = table("vingt-un-round-games")
    plain = [c.code for c in FULL_PACK if c.rank != "A"]
    for hand in range(12):
        bob_1, bank_1, bob_2, bank_2 = plain[4 * hand: 4 * hand + 4]
        act(state, card("Bob", bob_1), card("banker", bank_1), bet("Bob", 1),
            card("Bob", bob_2), card("banker", bank_2), stand("Bob"), stand("Ann"))
    assert state.snapshot()["shoe"] == {"packs": 1, "dealt": 48, "left": 4}
    act(state, card("Bob", "AS"), card("banker", "AH"), bet("Bob", 1), card("Bob", "AD"))
    (ruling,) = act(state, card("banker", "2S"))
    assert ruling.kind == "reshuffle" and ruling.law.lines == (934, 934)
    assert state.snapshot()["shoe"] == {"packs": 1, "dealt": 4, "left": 48}
    act(state, stand("Bob"))
    refused(state, card("banker", "AS"), "a second AS")


def test_hoyle_deals_each_hand_from_a_full_pack() -> None:
    state = dealt(options={"deals": 2})
    act(state, stand("Bob"), stand("Ann"))
    act(state, bet("Bob", 1), card("Bob", "10S"))
    assert state.snapshot()["shoe"]["dealt"] == 1


def test_quinze_stakes_double_after_a_tie_between_the_same_two() -> None:
    state = table("quinze", options={"stake": 2})
    act(state, card("Bob", "9S"), card("banker", "9H"), stand("Bob"), stand("Ann"))
    assert state.snapshot()["banker"] == "Bob"
    assert state.snapshot()["bets"] == [{"player": "Ann", "on": "Ann", "amount": 4}]


def test_the_snapshot_has_the_family_keys_and_the_last_hand() -> None:
    state = dealt(options={"deals": 2})
    act(state, stand("Bob"), stand("Ann"))
    snapshot = state.snapshot()
    assert set(snapshot) >= FAMILY_KEYS
    assert snapshot["last_hand"] == {"Bob": ["10S", "6H"], "banker": ["10C", "7D"]}
    assert snapshot["hands"] == {"Bob": [], "banker": []}


def test_a_sale_comes_before_the_deal_and_from_its_owner() -> None:
    state = table("selling-the-deal-vingt-un", ("Ann", "Bob", "Cy"))
    refused(state, {"type": "sell", "player": "Bob", "buyer": "Cy", "amount": 1},
            "it is Ann's deal to sell")
    act(state, card("Bob", "2S"))
    refused(state, {"type": "sell", "player": "Ann", "buyer": "Cy", "amount": 1},
            "sold before its first card")
    refused(table("vingt-un-round-games"),
            {"type": "sell", "player": "Ann", "buyer": "Bob", "amount": 1}, "no selling")


def test_each_hand_of_a_divided_pair_stands_by_its_own_name() -> None:
    """Hoyle 17999-18001: a pair divided is drawn to, each hand in its turn, and the hand a
    stand names must be the one in play; "banker" names the banker's hand (Hoyle
    17989-17995: he stands, then settles with every hand)."""
    state = dealt(bob="8S 8H", banker="10C 7D")
    act(state, {"type": "split", "player": "Bob"}, card("Bob", "10S"), card("Bob/2", "KS"))
    refused(state, stand("Bob/2"), "Bob/2 is not the hand in play; it is Bob's turn to draw "
                                   r"\(Bob\)")
    act(state, stand("Bob"))
    stood = stand("Bob/2")
    assert state.parse_event(stood).to_json() == stood
    (ruling,) = act(state, stood)
    assert (ruling.kind, ruling.who, ruling.amount) == ("stand", "Bob", 18)
    assert ruling.law.lines == (17976, 17987)
    assert state.snapshot()["status"] == {"Bob": "stood", "Bob/2": "stood", "banker": "open"}
    act(state, stand("banker"))
    # 18 and 18 against the banker's 17: the two stakes of 2 are paid.
    assert state.snapshot()["sheet"] == [{"player": "Ann", "total": -4},
                                         {"player": "Bob", "total": 4}]


def test_a_divided_hand_that_pairs_again_divides_by_its_own_name() -> None:
    """Round Games 932: a later card of the same denomination may be divided too, a separate
    stake on each; three hands, up to four."""
    state = dealt("vingt-un-round-games", bob="8S 8H", banker="10C 7D")
    act(state, {"type": "split", "player": "Bob", "amount": 3}, card("Bob", "5C"),
        card("Bob/2", "8D"), stand("Bob"))
    divide = {"type": "split", "player": "Bob/2", "amount": 1}
    assert state.parse_event(divide).to_json() == divide
    (ruling,) = act(state, divide)
    assert (ruling.kind, ruling.who, ruling.amount) == ("split", "Bob", 1)
    assert ruling.law.lines[0] <= 932 <= ruling.law.lines[1]
    assert state.snapshot()["bets"] == [{"player": "Bob", "on": "Bob", "amount": 2},
                                        {"player": "Bob", "on": "Bob/2", "amount": 3},
                                        {"player": "Bob", "on": "Bob/3", "amount": 1}]
    act(state, card("Bob/2", "9C"), card("Bob/3", "10H"))
    refused(state, stand("Bob/3"), "Bob/3 is not the hand in play")
    act(state, stand("Bob/2"))
    assert state.snapshot()["turn"] == "Bob/3"


def test_an_act_naming_a_hand_not_dealt_is_refused_by_name() -> None:
    state = dealt(bob="8S 8H")
    with pytest.raises(IllegalEventError, match="stand: unknown player or hand 'Bob/2'; the "
                                                "players are Ann, Bob, the hands of this deal "
                                                "Bob, banker"):
        state.parse_event(stand("Bob/2"))
