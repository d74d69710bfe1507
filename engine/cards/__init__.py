"""The card family: cards, packs and shoes, and the banking games of the books."""

from engine.cards import (
    baccara,
    blind_hookey,
    farmer,
    faro,
    lansquenet,
    monte_bank,
    red_dog,
    rouge_et_noir,
    three_card_monte,
    twenty_one,
)
from engine.core import Game

GAMES: tuple[Game, ...] = (
    *faro.GAMES,
    *farmer.GAMES,
    *lansquenet.GAMES,
    *monte_bank.GAMES,
    *blind_hookey.GAMES,
    *three_card_monte.GAMES,
    *red_dog.GAMES,
    *rouge_et_noir.GAMES,
    *baccara.GAMES,
    *twenty_one.GAMES,
)
