"""Every game the engine can rule, by id and alias (ids as in shared/spec/games.csv)."""

from __future__ import annotations

from engine import billiards, bowling, cards, dice
from engine.core import Game
from engine.errors import UnknownGameError

GAMES: tuple[Game, ...] = (*bowling.GAMES, *dice.GAMES, *cards.GAMES, *billiards.GAMES)

_BY_NAME: dict[str, Game] = {}
for _game in GAMES:
    for _name in (_game.id, *_game.aliases):
        if _name in _BY_NAME:
            raise RuntimeError(f"game name {_name!r} is registered twice")
        _BY_NAME[_name] = _game


def get_game(name: str) -> Game:
    """The game with this id or alias."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownGameError(f"unknown game {name!r}; `hoyle games` lists them") from None


def all_games() -> tuple[Game, ...]:
    return GAMES
