"""League standings: each bowler's finished games over all the club's lanes.

A league table is per game (ten-pins, duck-pins...): for each bowler the games finished,
the pins (the sum of the game totals), the average (pins / games) and the high game.
Games abandoned or still in play do not count; a correction to a finished game
changes its total, and one that unfinishes it takes it out again.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.fold import TableState
from engine.core import JSON

LEAGUE_FAMILIES = ("bowling",)


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of one table: which game and each player's total."""

    table: str
    start_seq: int
    game: str
    scores: tuple[tuple[str, int], ...]


class League:
    """The finished games of every table, and the standings they add up to."""

    def __init__(self) -> None:
        self.results: dict[tuple[str, int], GameResult] = {}

    def update(self, table: str, state: TableState) -> None:
        """Record (or withdraw) the result of the table's current game."""
        record, engine = state.game, state.engine
        if record is None or engine is None or engine.game.family not in LEAGUE_FAMILIES:
            return
        key = (table, record.start_seq)
        outcome = engine.outcome()
        if outcome is None:
            self.results.pop(key, None)
        else:
            self.results[key] = GameResult(table, record.start_seq, record.game_id,
                                           tuple(outcome.scores.items()))

    def standings(self) -> list[JSON]:
        """One league table per game, bowlers by average (best first), then by name."""
        by_game: dict[str, dict[str, list[int]]] = {}
        for result in self.results.values():
            bowlers = by_game.setdefault(result.game, {})
            for player, total in result.scores:
                bowlers.setdefault(player, []).append(total)
        return [{"game": game, "bowlers": sorted(
                    ({"player": player, "games": len(totals), "pins": sum(totals),
                      "average": round(sum(totals) / len(totals), 1), "high": max(totals)}
                     for player, totals in bowlers.items()),
                    key=lambda row: (-row["average"], row["player"]))}
                for game, bowlers in sorted(by_game.items())]
