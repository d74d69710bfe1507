"""Vingt-et-Un with one die, as Hoyle's Games (1940) gives it: a pool, and no banker.

Each player in turn throws a single die, adding each throw to his total, until he reaches
or passes 21 or chooses to stop; past 21 he is busted. Nearest 21 takes the pool, and ties
divide it (lines 10470-10482).

Events (the transcript vocabulary of docs/dice/vingt_et_un.md):

- `{"type": "throw", "dice": [4]}`: the thrower's die, resting flat;
- `{"type": "stand", "player": "Ann"}`: the thrower stops at his total;
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.core import JSON, Awaiting, Event, LawRef, Operation, Outcome, Ruling, hoyle_law
from engine.dice.core import (
    FACES,
    DiceGame,
    DiceState,
    RethrowEvent,
    StandEvent,
    ThrowEvent,
    odds_text,
    parse_rethrow,
    parse_throw,
)
from engine.dice.craps import MAX_ROUNDS, MAX_STAKE
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, best_off, parse_player, whole

TARGET = 21

POOL = hoyle_law(10470, 10470, "Vingt-et-Un: the players make up a pool; there is no banker")
THROWS = hoyle_law(
    10470, 10474, "Vingt-et-Un: each in turn throws one die until he reaches or passes 21")
NEAREST = hoyle_law(
    10480, 10481, "Vingt-et-Un: nearest 21 wins; past 21 busted; ties divide the pool")
STOP = hoyle_law(10481, 10482, "Vingt-et-Un: most throw again at 17 or less, stop at 18 or more")


@dataclass(frozen=True, slots=True)
class VingtEtUnRules(HouseRules):
    """The house rules: each player's share of the pool, and how many pools make a game."""

    # The book does not say what the pool is; each player puts this much in.
    stake: int = 1
    # The book plays one pool; a session may play several, the first throw passing left.
    rounds: int = 1

    def known_options(self) -> tuple[Option, ...]:
        return whole("stake", 1, MAX_STAKE), whole("rounds", 1, MAX_ROUNDS)


VINGT_ET_UN = VingtEtUnRules()


def bust_chance(total: int) -> Fraction:
    """The chance one more throw of the die takes `total` past 21."""
    return Fraction(sum(1 for face in FACES if total + face > TARGET), len(FACES))


@dataclass(slots=True)
class Pool:
    """Everything a replay rebuilds: this pool's totals, whose throw, the winnings so far."""

    round: int = 0
    turn: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    done: list[str] = field(default_factory=list)
    net: dict[str, int] = field(default_factory=dict)
    last: int | None = None
    over: bool = False


class VingtEtUnState(DiceState):
    """A game of pools: each player throws in turn, then the pool is divided."""

    game: VingtEtUnGame
    rules: VingtEtUnRules

    def __init__(self, game: VingtEtUnGame, rules: VingtEtUnRules,
                 players: Sequence[str]) -> None:
        super().__init__(game, rules, players)
        self.pool = Pool(totals={name: 0 for name in players},
                         net={name: 0 for name in players})

    @property
    def thrower(self) -> str:
        """Whose die it is: the first thrower of each pool is one further left."""
        pool = self.pool
        return self.players[(pool.round + pool.turn) % len(self.players)]

    def where(self) -> str:
        if self.pool.over:
            return "the game is over"
        return f"{self.thrower} to throw, at {self.pool.totals[self.thrower]}"

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = data.get("type")
        if kind == "throw":
            return parse_throw(data, 1, self.game.name)
        if kind == "rethrow":
            return parse_rethrow(data)
        if kind != "stand":
            raise IllegalEventError(f"{self.game.name} has no {kind!r} event; it has throw, "
                                    "stand and rethrow (the pool is the option stake)")
        return StandEvent(str(parse_player(data, self.players, "stand")))

    def verify(self, event: Event) -> None:
        if isinstance(event, RethrowEvent):
            self.verify_rethrow(event)
            return
        if self.pool.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        if isinstance(event, ThrowEvent):
            if len(event.dice) != 1:
                raise IllegalEventError(f"throw: {self.game.name} is played with 1 die, "
                                        f"got {len(event.dice)}")
            return
        if not isinstance(event, StandEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if event.player != self.thrower:
            raise IllegalEventError(f"stand by {event.player}: out of turn; {self.where()}")
        if self.pool.totals[event.player] == 0:
            raise IllegalEventError(f"stand by {event.player}: each player throws at least "
                                    "once before he stops")

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        if isinstance(event, RethrowEvent):
            return self.void_last(event)
        self.history.append(event)
        if isinstance(event, StandEvent):
            self.rethrow_allowed = False
            total = self.pool.totals[event.player]
            rulings = [Ruling("stand", event.player, total,
                              f"{event.player} stops at {total}.", STOP)]
            return Operation(event, tuple(rulings + self._next_thrower()))
        assert isinstance(event, ThrowEvent)
        self.rethrow_allowed = True
        return Operation(event, tuple(self._throw(event.dice[0])))

    def _throw(self, face: int) -> list[Ruling]:
        pool = self.pool
        player = self.thrower
        pool.last = face
        pool.totals[player] += face
        total = pool.totals[player]
        if total > TARGET:
            return [Ruling("bust", player, total,
                           f"{player} throws {face}: {total}, past 21; he is busted.",
                           NEAREST), *self._next_thrower()]
        if total == TARGET:
            return [Ruling("twenty-one", player, total,
                           f"{player} throws {face}: 21; he has reached it and stops.",
                           THROWS), *self._next_thrower()]
        risk = bust_chance(total)
        if risk:
            warning = (f"another throw busts him on {risk * len(FACES)} of the {len(FACES)} "
                       f"faces ({odds_text(risk)} against)")
        else:
            warning = "another throw cannot bust him"
        return [Ruling("count", player, total,
                       f"{player} throws {face}: his total is {total}; {warning}.", THROWS)]

    def _next_thrower(self) -> list[Ruling]:
        pool = self.pool
        pool.done.append(self.thrower)
        pool.turn += 1
        if pool.turn < len(self.players):
            return []
        rulings = self._divide()
        pool.round += 1
        pool.turn = 0
        pool.done = []
        if pool.round >= self.rules.rounds:
            pool.over = True
            rulings.append(self._winner_ruling())
        pool.totals = {name: 0 for name in self.players}
        return rulings

    def _divide(self) -> list[Ruling]:
        """Nearest 21 takes the pool; ties divide it, any odd units going first in turn."""
        pool = self.pool
        stake = self.rules.stake
        size = stake * len(self.players)
        standing = [name for name in pool.done if pool.totals[name] <= TARGET]
        if not standing:
            return [Ruling("all-bust", None, 0, "Every player is busted: no one is nearest "
                           "21, and with no banker to take the pool each takes back his stake.",
                           POOL)]
        for name in self.players:
            pool.net[name] -= stake
        best = max(pool.totals[name] for name in standing)
        takers = [name for name in standing if pool.totals[name] == best]
        share, odd = divmod(size, len(takers))
        rulings = []
        for place, name in enumerate(takers):
            gain = share + (1 if place < odd else 0)
            pool.net[name] += gain
            if len(takers) == 1:
                text = f"{name} is nearest 21, at {best}: he takes the pool of {size}."
            else:
                text = (f"{' and '.join(takers)} tie nearest 21, at {best}: they divide the "
                        f"pool of {size}; {name} takes {gain}.")
            rulings.append(Ruling("pool", name, gain, text, NEAREST))
        return rulings

    def _winner_ruling(self) -> Ruling:
        outcome = self.outcome()
        assert outcome is not None
        best = outcome.scores[outcome.winners[0]]
        names = " and ".join(outcome.winners)
        verb = "is" if len(outcome.winners) == 1 else "are"
        pools = self.rules.rounds
        return Ruling("winner", ", ".join(outcome.winners), best,
                      f"{pools} pool{'s' if pools > 1 else ''} played: {names} {verb} best "
                      f"off, at {best:+d}.", NEAREST)

    def legal_events(self) -> list[Event]:
        events = self.rethrows()
        if self.pool.over:
            return events
        events.extend(ThrowEvent((face,)) for face in FACES)
        stand = StandEvent(self.thrower)
        if self.can_apply(stand):
            events.append(stand)
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.pool.over:
            return ()
        total = self.pool.totals[self.thrower]
        found = [Awaiting("throw", "sensor", self.thrower, f"one die, at {total}")]
        if total:
            found.append(Awaiting("stand", "player", self.thrower, f"stop at {total}"))
        return tuple(found)

    def outcome(self) -> Outcome | None:
        return best_off(self.pool.net) if self.pool.over else None

    def snapshot(self) -> JSON:
        pool = self.pool
        outcome = self.outcome()
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(self.players), "options": self.rules.options(),
            "round": pool.round + (0 if pool.over else 1),
            "caster": None if pool.over else self.thrower,
            "last_throw": [pool.last] if pool.last else None,
            "counts": [{"player": name, "count": pool.totals[name],
                        "done": name in pool.done} for name in self.players],
            "sheet": [{"player": name, "total": pool.net[name]} for name in self.players],
            "over": pool.over,
            "winners": list(outcome.winners) if outcome else [],
        }


class VingtEtUnGame(DiceGame[VingtEtUnState]):
    """Vingt-et-Un with one die; its `rules` are the house rules of the pool."""

    rules: VingtEtUnRules

    def start(self, rules: VingtEtUnRules, players: Sequence[str]) -> VingtEtUnState:
        return VingtEtUnState(self, rules, players)

    def own_laws(self) -> tuple[LawRef, ...]:
        return (POOL, THROWS, NEAREST, STOP)


GAMES = (VingtEtUnGame("vingt-et-un-dice", "Vingt-et-Un (dice)", VINGT_ET_UN),)
