"""The cue games: carom billiards and pocket billiards (pool), by the books' laws."""

from engine.billiards import carom_games, english_games, pin_games, pool_games
from engine.billiards.fifteen_ball import FIFTEEN_BALL
from engine.billiards.table import CueGame

GAMES: tuple[CueGame, ...] = (FIFTEEN_BALL, *carom_games.GAMES, *english_games.GAMES,
                              *pool_games.GAMES, *pin_games.GAMES)
