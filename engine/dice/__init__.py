"""The dice family: craps and the other dice games of Hoyle's Games (1940)."""

from engine.dice import (
    ace_in_the_pot,
    banking,
    base_ball,
    boston,
    centennial,
    chuck_luck,
    drop_dead,
    help_your_neighbor,
    poker_dice,
    raffles,
    ten_pins,
    vingt_et_un,
)
from engine.dice.core import RethrowEvent, ThrowEvent
from engine.dice.craps import BANK, PRIVATE, BetEvent, CrapsGame, CrapsState

GAMES = (
    CrapsGame("craps-private", "Craps, or Hazard", PRIVATE, aliases=("craps", "hazard")),
    CrapsGame("craps-bank", "Professional Craps", BANK,
              aliases=("professional-craps", "bank-craps")),
    *banking.GAMES,
    *chuck_luck.GAMES,
    *vingt_et_un.GAMES,
    *boston.GAMES,
    *poker_dice.GAMES,
    *raffles.GAMES,
    *drop_dead.GAMES,
    *ace_in_the_pot.GAMES,
    *help_your_neighbor.GAMES,
    *ten_pins.GAMES,
    *base_ball.GAMES,
    *centennial.GAMES,
)

__all__ = ["GAMES", "BetEvent", "CrapsGame", "CrapsState", "RethrowEvent", "ThrowEvent"]
