"""The cue games: carom billiards and pocket billiards (pool), by the books' laws."""

from engine.billiards.fifteen_ball import FIFTEEN_BALL
from engine.billiards.table import CueGame

GAMES: tuple[CueGame, ...] = (FIFTEEN_BALL,)
