"""The english group of cue games, collected for the registry (see engine/billiards/__init__.py)."""

from engine.billiards.carlin import CARLIN
from engine.billiards.color_ball import COLOR_BALL
from engine.billiards.english_billiards import ENGLISH_BILLIARDS
from engine.billiards.english_pyramids import ENGLISH_PYRAMIDS
from engine.billiards.snooker import SNOOKER
from engine.billiards.table import CueGame

GAMES: tuple[CueGame, ...] = (ENGLISH_BILLIARDS, CARLIN, SNOOKER, COLOR_BALL, ENGLISH_PYRAMIDS)
