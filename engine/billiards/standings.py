"""When a pool game of several players is over: the rule fifteen-ball and pyramid pool share.

Fifteen-ball pool, rule 3 (Hoyle 1940, lines 15162-15171): "when more than two players are
engaged the game is ended only when the aggregate of numbers of the balls remaining on the
table do not amount to enough to tie or beat the next lowest score". American pyramid
pool, rule 5 (14425-14435), says the same in balls: "the game is ended when the balls
remaining on the table are not sufficient to tie the next lowest score; and all that may be
depending upon the game shall be decided in accordance with the standing of each player
when pool is called". Chicago pool is fifteen-ball's (14573-14574).

The reading (docs/billiards/fifteen-ball-pool.md, "The end of the game"): the one who must
be unable to tie or beat is the player lowest on the sheet, and the score he must be unable
to reach is the next lowest, the one next above his (his own again when two are level at
the bottom). The game goes on while the lowest score with every ball left added would tie
or pass the next lowest, and ends when it would not, or when no ball is left. A game of
several is played for the places at the bottom (at Chicago pool the lowest pays for the
refreshments and the second lowest for the game, 14563-14571), so a leader out of reach
does not end it. When it ends every place is as the standings then are (pyramid rule 5):
the highest wins, players level share their place (at the bottom only when no ball was
left to part them). With two players this is fifteen-ball's two-player sentence
(15157-15161): the game ends once the leader's score is more than the other's with the
balls left added.
"""

from __future__ import annotations

from collections.abc import Iterable


def last_place_settled(standings: Iterable[int], left: int) -> bool:
    """Whether the balls left (`left`: their count, or the sum of their numbers) can no
    longer bring the lowest of `standings` level with the next lowest: the game is over."""
    lowest, next_lowest = sorted(standings)[:2]
    return left == 0 or lowest + left < next_lowest
