"""The dice family: craps and the other dice games of Hoyle's Games (1940)."""

from engine.dice.core import RethrowEvent, ThrowEvent
from engine.dice.craps import BANK, PRIVATE, BetEvent, CrapsGame, CrapsState

GAMES = (
    CrapsGame("craps-private", "Craps, or Hazard", PRIVATE, aliases=("craps", "hazard")),
    CrapsGame("craps-bank", "Professional Craps", BANK,
              aliases=("professional-craps", "bank-craps")),
)

__all__ = ["GAMES", "BetEvent", "CrapsGame", "CrapsState", "RethrowEvent", "ThrowEvent"]
