"""The pin group of cue games, collected for the registry (see engine/billiards/__init__.py)."""

from engine.billiards.table import CueGame

GAMES: tuple[CueGame, ...] = ()
