"""The pool group of cue games, collected for the registry (see engine/billiards/__init__.py)."""

from engine.billiards.chicago import CHICAGO
from engine.billiards.cow_boy import COW_BOY
from engine.billiards.high_low_jack import HIGH_LOW_JACK
from engine.billiards.kelly import KELLY
from engine.billiards.pyramid import AMERICAN_PYRAMID, CONTINUOUS
from engine.billiards.table import CueGame

GAMES: tuple[CueGame, ...] = (AMERICAN_PYRAMID, CONTINUOUS, CHICAGO, HIGH_LOW_JACK, KELLY,
                              COW_BOY)
