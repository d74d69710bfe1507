"""The pin group of cue games, collected for the registry (see engine/billiards/__init__.py)."""

from engine.billiards.bottle_pool import BOTTLE_POOL
from engine.billiards.forty_one import FORTY_ONE_POOL
from engine.billiards.pin_pool import PIN_POOL
from engine.billiards.spanish import SPANISH_GAME
from engine.billiards.table import CueGame

GAMES: tuple[CueGame, ...] = (BOTTLE_POOL, FORTY_ONE_POOL, PIN_POOL, SPANISH_GAME)
