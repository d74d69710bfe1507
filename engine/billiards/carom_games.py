"""The carom group of cue games, collected for the registry (see engine/billiards/__init__.py)."""

from engine.billiards.four_ball import FOUR_BALL, MAN_OF_WAR
from engine.billiards.little_corporal import LITTLE_CORPORAL
from engine.billiards.table import CueGame
from engine.billiards.three_ball import BALK_LINE, BANK_SHOT, CUSHION_CAROMS, FRENCH_CAROMS
from engine.billiards.three_cushion import THREE_CUSHION

GAMES: tuple[CueGame, ...] = (FOUR_BALL, FRENCH_CAROMS, BALK_LINE, CUSHION_CAROMS, BANK_SHOT,
                              MAN_OF_WAR, THREE_CUSHION, LITTLE_CORPORAL)
