"""Dice games played a turn each: every player throws for a hand, and the best hand wins.

Going to Boston and its variants, Poker Dice and Raffles (Hoyle's Games 1940, lines
10276-10436) share this shape: the players throw in seat order, each for a hand of his
own, and when all have thrown the best hand takes the pool (or the article raffled). The
book names no rule for a tie; the house rule `ties` has the tied players throw off (play
another turn each, until one is best) or, where the game scores points, share the win.
A game module supplies the turn: which throws make a hand, its rulings and its rank.
"""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Any, ClassVar, Self

from engine.core import (
    JSON,
    Awaiting,
    Event,
    Game,
    LawRef,
    Operation,
    Outcome,
    Ruling,
    State,
    check_players,
)
from engine.dice.core import FACES, RETHROW_REASONS, RethrowEvent, parse_rethrow
from engine.errors import BadOptionError, IllegalEventError

#: The house rules for a tie for best: another turn each for the tied players, or a shared win.
TIES = ("throw-off", "share")
ORDINALS = ("first", "second", "third")


@dataclass(frozen=True, slots=True)
class TurnsRules:
    """The options every turn game has; a game's rules dataclass adds its own."""

    ties: str = "throw-off"

    def choices(self) -> dict[str, Sequence[object]]:
        """Each option this variant takes, with the values it may take (the default first)."""
        return {"ties": TIES}

    def with_options(self, options: Mapping[str, Any], game_id: str) -> Self:
        """This variant with the named house rules set; unknown or bad options raise."""
        choices = self.choices()
        for name, value in options.items():
            if name not in choices:
                raise BadOptionError(f"{game_id}: no option {name!r}; its options are "
                                     f"{', '.join(choices)}")
            allowed = choices[name]
            if type(value) is not type(allowed[0]) or value not in allowed:
                if isinstance(allowed, range):
                    wanted = f"a whole number {allowed.start}-{allowed.stop - 1}"
                else:
                    wanted = "one of " + ", ".join(repr(v) for v in allowed)
                raise BadOptionError(f"{game_id}: option {name} must be {wanted}, "
                                     f"not {value!r}")
        return dataclasses.replace(self, **dict(options))

    def options(self) -> JSON:
        return {name: getattr(self, name) for name in self.choices()}


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

    players: list[str]
    order: list[str]
    seat: int = 0
    round: int = 0
    hands: dict[str, Hand] = field(default_factory=dict)
    first: dict[str, Hand] = field(default_factory=dict)
    winners: list[str] = field(default_factory=list)
    over: bool = False


def distinct_throws(count: int) -> list[tuple[int, ...]]:
    """Every throw of `count` dice up to the order the table reads them in."""
    return list(combinations_with_replacement(FACES, count))


def names(players: Sequence[str]) -> str:
    if len(players) <= 2:
        return " and ".join(players)
    return ", ".join(players[:-1]) + " and " + players[-1]


class TurnsState(State):
    """A game of turns: each player's hand in seat order, then the best hand wins."""

    game: TurnsGame
    #: The event types of a turn, besides `rethrow`, for the message on an unknown type.
    vocabulary: ClassVar[tuple[str, ...]] = ("throw",)

    def __init__(self, game: TurnsGame, rules: TurnsRules, players: Sequence[str]) -> None:
        self.game = game
        self.rules = rules
        self.seats = Seats(list(players), list(players))
        self.history: list[Event] = []
        self.rethrow_allowed = False
        self.new_turn()

    @property
    def thrower(self) -> str:
        return self.seats.order[self.seats.seat]

    def where(self) -> str:
        if self.seats.over:
            return "the game is over"
        round_ = f" (throw-off {self.seats.round})" if self.seats.round else ""
        return f"{self.thrower}'s turn{round_}, {self.turn_where()}"

    # -- what a game module supplies ---------------------------------------------------

    @abstractmethod
    def new_turn(self) -> None:
        """Clear the turn for the next thrower."""

    @abstractmethod
    def turn_where(self) -> str:
        """Where the thrower is in his turn, for messages: e.g. "second throw, 2 dice"."""

    @abstractmethod
    def parse_turn_event(self, data: Mapping[str, Any]) -> Event:
        """A throw (or other turn event) of this game, or `IllegalEventError`."""

    @abstractmethod
    def verify_turn(self, event: Event) -> None:
        """Raise `IllegalEventError` if `event` cannot happen in the turn now."""

    @abstractmethod
    def play_turn(self, event: Event) -> tuple[list[Ruling], Hand | None]:
        """Apply a verified turn event: its rulings, and the hand if the turn is over."""

    @abstractmethod
    def turn_events(self) -> list[Event]:
        """Every turn event the table could report next."""

    @abstractmethod
    def turn_awaiting(self) -> list[Awaiting]:
        """The facts the turn needs next."""

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

    def total(self, player: str) -> int:
        """The sheet's figure for `player`: by default the points of his hand in the game."""
        hand = self.seats.first.get(player)
        return hand.points if hand else 0

    # -- events ------------------------------------------------------------------------

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = data.get("type")
        if kind == "rethrow":
            return parse_rethrow(data)
        if kind not in self.vocabulary:
            raise IllegalEventError(f"{self.game.name} has no {kind!r} event; it has "
                                    f"{', '.join((*self.vocabulary, 'rethrow'))}")
        return self.parse_turn_event(data)

    def verify(self, event: Event) -> None:
        if isinstance(event, RethrowEvent):
            if not self.rethrow_allowed:
                raise IllegalEventError(f"rethrow ({event.reason}): no throw to void; "
                                        f"{self.where()}")
            return
        if self.seats.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        self.verify_turn(event)

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        if isinstance(event, RethrowEvent):
            return self._rethrow(event)
        who = self.thrower
        self.history.append(event)
        self.rethrow_allowed = event.type == "throw"
        rulings, hand = self.play_turn(event)
        if hand is not None:
            rulings.extend(self._finish(who, hand))
        return Operation(event, tuple(rulings))

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
        seats.over, seats.winners = True, tied
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

    def _rethrow(self, event: RethrowEvent) -> Operation:
        kept = self.history[:-1]
        self.seats = Seats(list(self.seats.players), list(self.seats.players))
        self.history = []
        self.new_turn()
        for earlier in kept:
            self.apply(earlier)
        self.rethrow_allowed = False
        return Operation(event, (Ruling(
            "rethrow", self.thrower, None,
            f"The last throw is void ({event.reason}): no throw; the dice of that throw are "
            "thrown again.", RETHROW_REASONS[event.reason]),))

    def legal_events(self) -> list[Event]:
        events: list[Event] = []
        if self.rethrow_allowed:
            events.extend(RethrowEvent(reason) for reason in RETHROW_REASONS)
        if not self.seats.over:
            events.extend(self.turn_events())
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.seats.over:
            return ()
        return tuple(self.turn_awaiting())

    def outcome(self) -> Outcome | None:
        if not self.seats.over:
            return None
        return Outcome({p: self.total(p) for p in self.seats.players},
                       tuple(self.seats.winners))

    def snapshot(self) -> JSON:
        seats = self.seats
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(seats.players), "options": self.rules.options(),
            "caster": None if seats.over else self.thrower,
            "throw_off": seats.round,
            "throwing": [] if seats.over else list(seats.order),
            "turn": None if seats.over else self.turn_snapshot(),
            "sheet": [{"player": p, "total": self.total(p),
                       "hand": _hand_json(seats.first.get(p)),
                       "throw_off": _hand_json(seats.hands.get(p)) if seats.round else None}
                      for p in seats.players],
            "over": seats.over,
            "winners": list(seats.winners),
        }

    def save(self) -> JSON:
        return {"players": list(self.seats.players), "options": self.rules.options(),
                "events": [e.to_json() for e in self.history],
                "rethrow_allowed": self.rethrow_allowed}


def _hand_json(hand: Hand | None) -> JSON | None:
    if hand is None:
        return None
    return {"dice": list(hand.dice), "points": hand.points, "text": hand.text}


class TurnsGame(Game):
    """A turn game of the book; `state_class` plays it and `rules` is the variant."""

    family = "dice"
    state_class: ClassVar[type[TurnsState]]

    rules: TurnsRules

    def new_state(self, players: Sequence[str],
                  options: Mapping[str, Any] | None = None) -> TurnsState:
        rules = self.rules.with_options(options or {}, self.id)
        return self.state_class(self, rules, check_players(players, "at one table"))

    def load(self, saved: Mapping[str, Any]) -> TurnsState:
        state = self.new_state(saved["players"], saved["options"])
        for data in saved["events"]:
            state.apply(state.parse_event(data))
        state.rethrow_allowed = bool(saved["rethrow_allowed"])
        return state

    def laws(self) -> tuple[LawRef, ...]:
        return (*RETHROW_REASONS.values(), *self.own_laws())

    @abstractmethod
    def own_laws(self) -> tuple[LawRef, ...]:
        """The laws of the game's own passage that its rulings cite."""
