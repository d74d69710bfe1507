"""Drop Dead as Hoyle's Games (1940) gives it (lines 3824-3846): five dice, 2s and 5s die.

Events (the transcript vocabulary of docs/dice/drop_dead.md):

- `{"type": "throw", "dice": [1, 3, 4, 6, 6]}`: the thrower's remaining dice, resting flat
  (five at the start of each turn, fewer as 2s and 5s are laid aside);
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").

Scores are points: the pips each player has scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.dice.core import distinct_throws
from engine.dice.turns import TurnGame, TurnState, TurnThrow, parse_turn_throw
from engine.errors import IllegalEventError
from engine.rules import HouseRules

DICE = 5
DEAD = frozenset({2, 5})

SCORE = hoyle_law(3827, 3832, "Drop Dead: five dice; with no 2 or 5 every pip scores, "
                  "and he throws again")
LAID_ASIDE = hoyle_law(3832, 3837, "Drop Dead: a 2 or 5 scores nothing, and each die showing "
                       "one is laid aside")
PASS_BOX = hoyle_law(3837, 3840, "Drop Dead: all five dice laid aside, he passes the box")
END = hoyle_law(3840, 3841, "Drop Dead: highest score wins; lowest loses; ties throw off")
LAWS = (SCORE, LAID_ASIDE, PASS_BOX, END)


@dataclass(frozen=True, slots=True)
class DropDeadRules(HouseRules):
    """Drop Dead has no house rules: the book plays one turn each, then throws off ties."""


class DropDeadState(TurnState):
    """Each player's turn, in the order of the players; then throw-offs among the highest."""

    rules: DropDeadRules

    def start(self) -> None:
        self.scores = dict.fromkeys(self.players, 0)
        #: Who throws this round: everyone, then only those tied for the highest score.
        self.order = list(self.players)
        self.turn = 0
        self.dice_left = DICE
        #: How many throw-offs have begun, and the pips scored in the current one.
        self.throw_offs = 0
        self.off_scores: dict[str, int] = {}

    @property
    def thrower(self) -> str:
        return self.order[self.turn]

    def parse(self, kind: str, data: Mapping[str, Any]) -> Event:
        dice = data.get("dice")
        if isinstance(dice, list) and len(dice) != self.dice_left and not self.over:
            raise IllegalEventError(f"throw: {self.thrower} has {self.dice_left} dice left to "
                                    f"throw, got {len(dice)} ({dice})")
        return parse_turn_throw(data, self.dice_left, self.game.name, self.players)

    def check(self, event: Event) -> None:
        if not isinstance(event, TurnThrow) or len(event.dice) != self.dice_left:
            raise IllegalEventError(f"{event!r}: {self.where()} with {self.dice_left} dice")

    def play(self, event: Event) -> list[Ruling]:
        assert isinstance(event, TurnThrow)
        who = self.thrower
        board = self.off_scores if self.throw_offs else self.scores
        dead = [face for face in event.dice if face in DEAD]
        rulings = []
        if not dead:
            pips = event.total
            board[who] += pips
            again = {DICE: "all five", 1: "his last die"}.get(self.dice_left,
                                                             f"his {self.dice_left} dice")
            rulings.append(Ruling("score", who, pips,
                                  f"No 2 or 5: {who} scores {pips}, {board[who]} in all, and "
                                  f"throws {again} again.", SCORE))
        else:
            self.dice_left -= len(dead)
            faces = ", ".join(str(face) for face in sorted(dead))
            rulings.append(Ruling("dead", who, 0,
                                  f"{faces}: no score; {len(dead)} laid aside, "
                                  f"{self.dice_left} left to throw.", LAID_ASIDE))
        if self.dice_left == 0:
            rulings.extend(self._pass_box(who, board))
        return rulings

    def _pass_box(self, who: str, board: dict[str, int]) -> list[Ruling]:
        self.dice_left = DICE
        self.turn += 1
        if self.turn < len(self.order):
            return [Ruling("box-passes", who, board[who],
                           f"All five dice laid aside: {who} ends with {board[who]}; the box "
                           f"passes to {self.thrower}.", PASS_BOX)]
        rulings = [Ruling("box-passes", who, board[who],
                          f"All five dice laid aside: {who} ends with {board[who]}.", PASS_BOX)]
        best = max(board[name] for name in self.order)
        top = [name for name in self.order if board[name] == best]
        if len(top) == 1:
            rulings.append(self.finish(top, END, self._why()))
            rulings.extend(self._loser())
            return rulings
        self.throw_offs += 1
        self.order = top
        self.turn = 0
        self.off_scores = dict.fromkeys(top, 0)
        rulings.append(Ruling("throw-off", ", ".join(top), best,
                              f"{' and '.join(top)} tie at {best}: they throw off, "
                              f"{self.thrower} first.", END))
        return rulings

    def _why(self) -> str:
        if self.throw_offs:
            return f"Highest in throw-off {self.throw_offs}"
        return "Highest score"

    def _loser(self) -> list[Ruling]:
        if len(self.players) < 2:
            return []
        others = {name: self.scores[name] for name in self.players if name not in self.won}
        low = min(others.values())
        bottom = [name for name in others if others[name] == low]
        return [Ruling("loser", ", ".join(bottom), low,
                       f"Lowest score: {' and '.join(bottom)} "
                       f"{'loses' if len(bottom) == 1 else 'lose'}, with {low}.", END)]

    def choices(self) -> list[Event]:
        return [TurnThrow(dice) for dice in distinct_throws(self.dice_left)]

    def awaits(self) -> tuple[Awaiting, ...]:
        stage = f"throw-off {self.throw_offs}" if self.throw_offs else "his turn"
        return (Awaiting("throw", "sensor", self.thrower,
                         f"{self.dice_left} dice, {stage}"),)

    def totals(self) -> dict[str, int]:
        return dict(self.scores)

    def details(self) -> JSON:
        return {"dice_left": None if self.over else self.dice_left,
                "throw_off": dict(self.off_scores) if self.throw_offs else None}


GAMES = (TurnGame("drop-dead", "Drop Dead", DropDeadRules(), DropDeadState, LAWS),)
