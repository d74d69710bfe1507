"""What the dice games played in turns share: each player throws when his turn comes.

No one bets against a caster in these games. `TurnState` holds their common machinery:
the throw that may name its thrower, the log that a save and a rethrow replay (backgammon
laws 5 and 6 void a foul throw), the end of the game and the snapshot the dashboard reads.
Drop Dead, Ace in the Pot, Help Your Neighbor, Ten-Pins and Base Ball with Dice and
Centennial build on it directly; each game module supplies the rules proper.

`HandState` is the shape of Going to Boston and its variants, Poker Dice and Raffles (lines
10276-10436): the players throw in seat order, each for a hand of his own, and when all
have thrown the best hand takes the pool (or the article raffled). The book names no rule
for a tie; the house rule `ties` has the tied players throw off (another turn each, until
one is best) or, where the game scores points, share the win. Those game modules supply
the turn: which throws make a hand, its rulings and its rank.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.core import JSON, Awaiting, Event, LawRef, Operation, Outcome, Ruling, check_players
from engine.dice.core import (
    DiceGame,
    DiceState,
    RethrowEvent,
    distinct_throws,
    parse_rethrow,
    parse_throw,
)
from engine.errors import IllegalEventError
from engine.rules import HouseRules, Option, names, one_of, parse_player

#: The house rules for a tie for best: another turn each for the tied players, or a shared win.
TIES = ("throw-off", "share")
ORDINALS = ("first", "second", "third")


@dataclass(frozen=True, slots=True)
class TurnThrow(Event):
    """The faces uppermost after a fair throw; `player` optionally names who threw."""

    type: ClassVar[str] = "throw"
    dice: tuple[int, ...]
    player: str | None = None

    @property
    def total(self) -> int:
        return sum(self.dice)

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "dice": list(self.dice)}
        if self.player is not None:
            data["player"] = self.player
        return data


def parse_turn_throw(data: Mapping[str, Any], count: int, game: str,
                     players: Sequence[str]) -> TurnThrow:
    """A throw of `count` dice, its optional thrower checked against the players."""
    dice = parse_throw(data, count, game).dice
    return TurnThrow(dice, parse_player(data, players, "throw", required=False))


class TurnState(DiceState):
    """A game in turns: the log of events, the rethrow, saving, snapshots and the end.

    A subclass keeps its whole position in plain attributes set by `start`, so a rethrow
    can rebuild it by replaying the log without the voided throw.
    """

    game: TurnGame
    #: The event types of the game, rethrow included, for the message on an unknown one.
    KINDS: ClassVar[tuple[str, ...]] = ("throw", "rethrow")
    #: The table's seats: how many players the game takes, checked before it starts.
    SEATS: ClassVar[str] = "at one table"
    #: How many dice a throw has, where every event of the game is a plain throw.
    DICE: ClassVar[int]

    def __init__(self, game: TurnGame, rules: HouseRules, players: Sequence[str]) -> None:
        super().__init__(game, rules, players)
        self.last: tuple[int, ...] | None = None
        self.over = False
        self.won: tuple[str, ...] = ()
        self.start()

    @classmethod
    def check_count(cls, players: Sequence[str]) -> None:
        """Raise `IllegalEventError` if the game cannot be played by this many players."""

    # -- what each game supplies -----------------------------------------------------------

    @abstractmethod
    def start(self) -> None:
        """Set up the position before the first event."""

    def parse(self, kind: str, data: Mapping[str, Any]) -> Event:
        """This game's event of type `kind` (never a rethrow), or raise: a throw of `DICE`."""
        return parse_turn_throw(data, self.DICE, self.game.name, self.players)

    def check(self, event: Event) -> None:
        """Raise `IllegalEventError` if `event` cannot happen now (the game is not over)."""
        if not isinstance(event, TurnThrow):
            raise IllegalEventError(f"{event!r}: {self.where()}")

    @abstractmethod
    def play(self, event: Event) -> list[Ruling]:
        """Apply a checked event to the position; return its rulings."""

    def choices(self) -> list[Event]:
        """The events the table could report next, the game being on and no rethrow."""
        return [TurnThrow(dice) for dice in distinct_throws(self.DICE)]

    @abstractmethod
    def awaits(self) -> tuple[Awaiting, ...]:
        """What the next ruling needs, the game being on."""

    @abstractmethod
    def totals(self) -> dict[str, int]:
        """Each player's score on the sheet, in the order of the players."""

    def details(self) -> JSON:
        """The game's own part of the snapshot."""
        return {}

    def where(self) -> str:
        return "the game is over" if self.over else f"{self.thrower} to throw"

    # -- the contract ------------------------------------------------------------------------

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = data.get("type")
        if kind == "rethrow":
            return parse_rethrow(data)
        if kind not in self.KINDS:
            raise IllegalEventError(f"{self.game.name} has no {kind!r} event; it has "
                                    f"{', '.join(self.KINDS)}")
        return self.parse(str(kind), data)

    def verify(self, event: Event) -> None:
        if isinstance(event, RethrowEvent):
            self.verify_rethrow(event)
            return
        if self.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        player = getattr(event, "player", None)
        if event.type == "throw" and player is not None and player != self.thrower:
            raise IllegalEventError(f"throw by {player} out of turn: {self.where()}")
        self.check(event)

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        if isinstance(event, RethrowEvent):
            return self.void_last(event)
        self.history.append(event)
        self.rethrow_allowed = event.type == "throw"
        if isinstance(event, TurnThrow):
            self.last = event.dice
        return Operation(event, tuple(self.play(event)))

    def legal_events(self) -> list[Event]:
        events = self.rethrows()
        if not self.over:
            events.extend(self.choices())
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        return () if self.over else self.awaits()

    def finish(self, winners: Iterable[str], law: LawRef, why: str) -> Ruling:
        """End the game with these winners; the ruling says why, with their score."""
        self.over = True
        self.won = tuple(winners)
        scores = self.totals()
        best = scores[self.won[0]]
        verb = "wins" if len(self.won) == 1 else "win"
        return Ruling("winner", ", ".join(self.won), best,
                      f"{why}: {' and '.join(self.won)} {verb}, with {best}.", law)

    def outcome(self) -> Outcome | None:
        if not self.over:
            return None
        return Outcome(self.totals(), self.won)

    def heading(self) -> JSON:
        """The snapshot's keys that name the game, its players and options, and the caster."""
        return {"id": self.game.id, "family": self.game.family, "name": self.game.name,
                "players": list(self.players), "options": self.rules.options(),
                "caster": None if self.over else self.thrower}

    def snapshot(self) -> JSON:
        totals = self.totals()
        return {
            **self.heading(),
            "last_throw": list(self.last) if self.last else None,
            "sheet": [{"player": name, "total": totals[name]} for name in self.players],
            "over": self.over,
            "winners": list(self.won),
            **self.details(),
        }


class TurnGame(DiceGame[TurnState]):
    """A dice game played in turns: its rules, its state class and its laws."""

    def __init__(self, id: str, name: str, rules: HouseRules, state: type[TurnState],
                 own_laws: tuple[LawRef, ...], aliases: tuple[str, ...] = ()) -> None:
        super().__init__(id, name, rules, aliases)
        self.state = state
        self.cited = own_laws

    def seated(self, players: Sequence[str]) -> list[str]:
        seated = check_players(players, self.state.SEATS)
        self.state.check_count(seated)
        return seated

    def start(self, rules: HouseRules, players: Sequence[str]) -> TurnState:
        return self.state(self, rules, players)

    def own_laws(self) -> tuple[LawRef, ...]:
        return self.cited


# -- a hand each, the best hand wins --------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HandRules(HouseRules):
    """The option every game of hands has; a game's rules dataclass adds its own."""

    ties: str = "throw-off"

    def known_options(self) -> tuple[Option, ...]:
        return (one_of("ties", *TIES),)


@dataclass(frozen=True, slots=True)
class Hand:
    """A finished turn: the points it scores (0 where a game scores none), its rank, its name."""

    dice: tuple[int, ...]
    points: int
    rank: tuple[int, ...]
    text: str


@dataclass(slots=True)
class Seats:
    """Who throws in this round (the game, or a throw-off) and the hands finished so far."""

    order: list[str]
    seat: int = 0
    round: int = 0
    hands: dict[str, Hand] = field(default_factory=dict)
    first: dict[str, Hand] = field(default_factory=dict)


class HandState(TurnState):
    """A game of hands: each player's hand in seat order, then the best hand wins."""

    rules: HandRules

    def start(self) -> None:
        self.seats = Seats(list(self.players))
        self.new_turn()

    @property
    def thrower(self) -> str:
        return self.seats.order[self.seats.seat]

    def where(self) -> str:
        if self.over:
            return "the game is over"
        round_ = f" (throw-off {self.seats.round})" if self.seats.round else ""
        return f"{self.thrower}'s turn{round_}, {self.turn_where()}"

    def thrown_again(self) -> str:
        return "the dice of that throw are thrown again"

    # -- what a game module supplies, besides `parse`, `check`, `choices` and `awaits` ------

    @abstractmethod
    def new_turn(self) -> None:
        """Clear the turn for the next thrower."""

    @abstractmethod
    def turn_where(self) -> str:
        """Where the thrower is in his turn, for messages: e.g. "second throw, 2 dice"."""

    @abstractmethod
    def play_turn(self, event: Event) -> tuple[list[Ruling], Hand | None]:
        """Apply a checked turn event: its rulings, and the hand if the turn is over."""

    @abstractmethod
    def turn_snapshot(self) -> JSON:
        """The turn in progress, for the dashboard."""

    @property
    @abstractmethod
    def best_law(self) -> LawRef:
        """The law that gives the best hand the win (and the tie rulings extend)."""

    @abstractmethod
    def prize(self, winners: Sequence[str]) -> tuple[str, int]:
        """What the winners take, in words, and the ruling's amount."""

    def totals(self) -> dict[str, int]:
        """The sheet's figures: by default the points of each player's hand in the game."""
        first = self.seats.first
        return {p: first[p].points if p in first else 0 for p in self.players}

    # -- the round -----------------------------------------------------------------------------

    def play(self, event: Event) -> list[Ruling]:
        who = self.thrower
        rulings, hand = self.play_turn(event)
        if hand is not None:
            rulings.extend(self._finish(who, hand))
        return rulings

    def _finish(self, who: str, hand: Hand) -> list[Ruling]:
        seats = self.seats
        seats.hands[who] = hand
        if seats.round == 0:
            seats.first[who] = hand
        seats.seat += 1
        if seats.seat < len(seats.order):
            self.new_turn()
            return []
        best = max(seats.hands[p].rank for p in seats.order)
        tied = [p for p in seats.order if seats.hands[p].rank == best]
        if len(tied) > 1 and self.rules.ties == "throw-off":
            text = (f"{self.hands_text(tied)} tie for best. The book names no rule for a "
                    f"tie; by the house rule (ties: throw-off) {names(tied)} throw again, a "
                    f"turn each, {tied[0]} first.")
            seats.order, seats.seat, seats.hands = tied, 0, {}
            seats.round += 1
            self.new_turn()
            return [Ruling("throw-off", names(tied), None, text, self.best_law)]
        self.over, self.won = True, tuple(tied)
        return [self._winner_ruling(tied)]

    def _winner_ruling(self, winners: list[str]) -> Ruling:
        others = [p for p in self.seats.order if p not in winners]
        what, amount = self.prize(winners)
        beaten = f", beating {self.hands_text(others)}" if others else ""
        if len(winners) == 1:
            text = f"{self.hands_text(winners)} is best{beaten}: {winners[0]} {what}."
        else:
            text = (f"{self.hands_text(winners)} tie for best{beaten}; by the house rule "
                    f"(ties: share) {what}.")
        return Ruling("winner", ", ".join(winners), amount, text, self.best_law)

    def hands_text(self, players: Sequence[str]) -> str:
        """Each player's hand this round, in words: "Ann's 15 (6-5-4) and Bob's 14 (4-4-6)"."""
        return names([f"{p}'s {self.seats.hands[p].text}" for p in players])

    def snapshot(self) -> JSON:
        seats = self.seats
        totals = self.totals()
        return {
            **self.heading(),
            "throw_off": seats.round,
            "throwing": [] if self.over else list(seats.order),
            "turn": None if self.over else self.turn_snapshot(),
            "sheet": [{"player": p, "total": totals[p],
                       "hand": _hand_json(seats.first.get(p)),
                       "throw_off": _hand_json(seats.hands.get(p)) if seats.round else None}
                      for p in self.players],
            "over": self.over,
            "winners": list(self.won),
        }


def _hand_json(hand: Hand | None) -> JSON | None:
    if hand is None:
        return None
    return {"dice": list(hand.dice), "points": hand.points, "text": hand.text}
