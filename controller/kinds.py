"""A table's kind: the devices it has, and so the games it can serve.

A lane (pin deck, foul line) serves bowling; a dice table (camera over the throw) the
dice games; a card table (the dealer's shoe) the banking card games; a cue table
(pocket switches, the referee's tablet) the carom and pocket billiard games. The kind
follows from the game the config names (`table.game`): its family.

>>> kind_of_game("craps-bank")
'dice'
>>> kind_of_game("ten-pins")
'lane'
"""

from __future__ import annotations

from typing import Final

from engine.billiards.table import BILLIARD_FAMILIES
from engine.core import Game
from engine.registry import all_games, get_game

LANE: Final = "lane"
DICE: Final = "dice"
CARDS: Final = "cards"
CUE: Final = "cue"
#: Each kind in words, for messages ("craps-bank is a game of a dice table").
WORDS: Final = {LANE: "a bowling lane", DICE: "a dice table", CARDS: "a card table",
                CUE: "a cue table"}
_BY_FAMILY: Final = {"bowling": LANE, "dice": DICE, "banking-cards": CARDS,
                     **{family: CUE for family in BILLIARD_FAMILIES}}


class NoTableForFamily(ValueError):
    """A game of a family no kind of table here serves."""


def kind_of_family(family: str) -> str:
    """The kind of table that serves games of `family`."""
    try:
        return _BY_FAMILY[family]
    except KeyError:
        raise NoTableForFamily(f"no kind of table here serves the {family!r} games") from None


def kind_of_game(game_id: str) -> str:
    """The kind of table that serves the game `game_id` (an id or alias)."""
    return kind_of_family(get_game(game_id).family)


def games_for(kind: str) -> list[Game]:
    """Every game a table of `kind` can serve, in the registry's order."""
    return [game for game in all_games() if _BY_FAMILY.get(game.family) == kind]
