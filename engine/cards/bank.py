"""What the banking card games share: stakes, players' acts, the shoe, the sheet, the log.

A banker (a farmer, or a pool) takes the players' stakes; the table tells the engine each
card and each act. `BankState` is the base of every banking card game: it
refuses anything once the game is over, counts every dealt card against the shoe before
anything changes, keeps the log (a save is the log, a correction replays it), keeps the
sheet of net winnings, and draws the common part of the snapshot the same way for all.

>>> parse_bet({"player": "Bob", "on": "top", "amount": 5}, ["Ann", "Bob"], ["top"], "Monte")
BetEvent(player='Bob', on='top', amount=5)
>>> parse_amount({"amount": 0})
Traceback (most recent call last):
...
engine.errors.IllegalEventError: bet: amount must be a whole number 1-1,000,000, got 0
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from engine.cards.core import CardEvent, ShoeCount, parse_card_event
from engine.core import JSON, Event, LawRef, Operation, Outcome, Ruling
from engine.errors import IllegalEventError
from engine.rules import HouseRules, LoggedGame, LoggedState, best_off, names, parse_player

FAMILY = "banking-cards"
#: The largest stake one bet may carry.
MAX_STAKE = 1_000_000
#: The stakes `legal_events` offers; a real table may stake any whole amount up to MAX_STAKE.
SAMPLE_STAKES = (1, 5)
#: The most coups a session may be set to last; the books set no end.
MAX_DEALS = 200
#: The most deals of a whole pack (Faro, Farmer, Monte Bank, Blind Hookey) a session may last.
MAX_PACK_DEALS = 100


@dataclass(frozen=True, slots=True)
class BetEvent(Event):
    """A player's stake on one of the game's bets, placed before the cards decide it."""

    type: ClassVar[str] = "bet"
    player: str
    on: str
    amount: int

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "on": self.on, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class ActEvent(Event):
    """A player's act at the table (draw, stand, offer, pass, refuse); each kind subclasses."""

    player: str

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player}


@dataclass(frozen=True, slots=True)
class DrawEvent(ActEvent):
    """The player (or banker) takes a card."""

    type: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class StandEvent(ActEvent):
    """The player (or banker) refuses a card and keeps his hand."""

    type: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True)
class ShuffleEvent(Event):
    """The dealer shuffles the shoe: every card not on the table is back in it."""

    type: ClassVar[str] = "shuffle"

    def to_json(self) -> JSON:
        return {"type": self.type}


def parse_amount(data: Mapping[str, Any], what: str = "bet", high: int = MAX_STAKE,
                 low: int = 1) -> int:
    """The event's `amount`, a whole number `low`-`high`, or `IllegalEventError` naming it."""
    amount = data.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int) or not low <= amount <= high:
        raise IllegalEventError(f"{what}: amount must be a whole number {low}-{high:,}, "
                                f"got {amount!r}")
    return amount


def parse_bet(data: Mapping[str, Any], players: Sequence[str], spots: Sequence[str],
              game: str) -> BetEvent:
    """A bet on one of `spots` by one of `players`, or `IllegalEventError` naming what is wrong."""
    player = parse_player(data, players, "bet")
    on = data.get("on")
    if on not in spots:
        where = ", ".join(spots) if spots else "nothing now"
        raise IllegalEventError(f"bet: {game} takes bets on {where}; not on {on!r}")
    return BetEvent(str(player), str(on), parse_amount(data))


@dataclass(slots=True)
class Stake:
    """Money down on a bet until the cards settle it."""

    player: str
    on: str
    amount: int

    def to_json(self) -> JSON:
        return {"player": self.player, "on": self.on, "amount": self.amount}


def describe(event: Event) -> str:
    """An event in a message: "card QS to right", "bet by Bob", "draw by Cy"."""
    if isinstance(event, CardEvent):
        return f"card {event.card} to {event.to}"
    player = getattr(event, "player", None)
    return f"{event.type} by {player}" if player else event.type


class BankState(LoggedState):
    """A banking card game in progress: the shoe's count, the stakes, the sheet, the log.

    A subclass sets its position (`start`), verifies and plays its own events
    (`verify_play`, `play`); this base does the rest.
    """

    game: BankGame[Any]
    #: The act events this game takes, by type.
    ACTS: ClassVar[Mapping[str, type[ActEvent]]] = {}
    #: The game's other events without a player (parsed by `parse_other`).
    OTHERS: ClassVar[tuple[str, ...]] = ()
    #: Whether the game takes bet events.
    BETS: ClassVar[bool] = True
    #: Whether the dealer may shuffle the shoe between coups.
    SHUFFLES: ClassVar[bool] = False

    def __init__(self, game: BankGame[Any], rules: HouseRules,
                 players: Sequence[str]) -> None:
        super().__init__(game, rules, players)
        self.net = dict.fromkeys(self.players, 0)
        self.shoe = self.new_shoe()
        self.stakes: list[Stake] = []
        self.coups = 0
        self.over = False
        #: Whether the last card dealt came from a shoe renewed for it (`next_shoe`).
        self.renewed = False
        self.start()

    # -- what each game supplies -----------------------------------------------------------

    @abstractmethod
    def new_shoe(self) -> ShoeCount:
        """The game's shoe (or pack), full."""

    @abstractmethod
    def start(self) -> None:
        """Set the position before the first event."""

    @abstractmethod
    def where(self) -> str:
        """Where the game stands, for messages: "Bob to draw or stand"."""

    @abstractmethod
    def hands(self) -> dict[str, list[str]]:
        """The cards on the table, by hand or spot, as codes."""

    @abstractmethod
    def card_hands(self) -> Sequence[str]:
        """Every hand a card may be dealt to in this game (for parsing)."""

    @abstractmethod
    def verify_play(self, event: Event) -> None:
        """Raise `IllegalEventError` if `event` cannot happen now (the game is not over)."""

    @abstractmethod
    def play(self, event: Event) -> list[Ruling]:
        """Apply a verified event (its card already counted); the rulings it produced."""

    @property
    def banker(self) -> str | None:
        """Who holds the bank now (the farmer at Farmer), or None."""
        return None

    def spots(self) -> Sequence[str]:
        """What a bet may go on now."""
        return ()

    def parse_bet(self, data: Mapping[str, Any]) -> Event:
        """A bet event on one of `spots`."""
        return parse_bet(data, self.players, self.spots(), self.game.name)

    def parse_other(self, kind: str, data: Mapping[str, Any]) -> Event:
        """One of the game's `OTHERS` events."""
        raise NotImplementedError(kind)

    def parse_actor(self, data: Mapping[str, Any], kind: str) -> str:
        """Who takes an act: a player by default; a game whose hands act names them too."""
        return str(parse_player(data, self.players, kind))

    def bet_list(self) -> list[JSON]:
        """The stakes on the table, as the snapshot shows them."""
        return [stake.to_json() for stake in self.stakes]

    def extra(self) -> JSON:
        """Game-specific keys of the snapshot."""
        return {}

    def on_table(self) -> list[CardEvent]:
        """Cards dealt in the coup now in play, which a shuffle leaves out of the shoe."""
        return []

    def next_shoe(self) -> ShoeCount:
        """The count the next card comes from: the shoe, or (where the game renews a shoe
        that runs out, as Vingt-un does) `reshuffled()`."""
        return self.shoe

    def reshuffled(self) -> ShoeCount:
        """The shoe with every card back in it but those on the table."""
        shoe = self.shoe.fresh()
        for dealt in self.on_table():
            shoe.add(dealt.card, "shuffle")
        return shoe

    # -- the common machinery --------------------------------------------------------------

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = str(data.get("type"))
        if kind == "card":
            return parse_card_event(data, self.card_hands(), self.game.name)
        if kind == "bet" and self.BETS:
            return self.parse_bet(data)
        if kind == "shuffle" and self.SHUFFLES:
            return ShuffleEvent()
        if kind in self.OTHERS:
            return self.parse_other(kind, data)
        act = self.ACTS.get(kind)
        if act is not None:
            return act(self.parse_actor(data, kind))
        raise IllegalEventError(f"{self.game.name} has no {data.get('type')!r} event; it has "
                                f"{', '.join(self.kinds())}")

    def kinds(self) -> list[str]:
        """The event types this game takes."""
        found = ["card"]
        if self.BETS:
            found.append("bet")
        if self.SHUFFLES:
            found.append("shuffle")
        return [*found, *self.OTHERS, *self.ACTS]

    def verify(self, event: Event) -> None:
        if self.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        self.verify_play(event)
        if isinstance(event, CardEvent):
            self.next_shoe().check(event.card, describe(event))

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        self.history.append(event)
        if isinstance(event, CardEvent):
            shoe = self.next_shoe()
            self.renewed = shoe is not self.shoe
            self.shoe = shoe
            self.shoe.add(event.card, describe(event))
        if isinstance(event, ShuffleEvent):
            self.shoe = self.reshuffled()
        return Operation(event, tuple(self.play(event)))

    def refuse(self, event: Event, why: str) -> IllegalEventError:
        """The error for an event that cannot happen now: the event, why, where the game is."""
        return IllegalEventError(f"{describe(event)}: {why}; {self.where()}")

    def pay(self, player: str, gain: int, payer: str | None = None) -> None:
        """Move `gain` from `payer` (the banker by default) to `player` (negative: back)."""
        self.net[player] += gain
        source = payer if payer is not None else self.banker
        if source is not None:
            self.net[source] -= gain

    def end(self, law: LawRef, why: str) -> Ruling:
        """Close the session; the ruling names who is best off."""
        self.over = True
        outcome = self.outcome()
        assert outcome is not None
        best = outcome.scores[outcome.winners[0]]
        verb = "is" if len(outcome.winners) == 1 else "are"
        return Ruling("winner", ", ".join(outcome.winners), best,
                      f"{why}: {names(list(outcome.winners))} {verb} best off, at {best:+d}.",
                      law)

    def outcome(self) -> Outcome | None:
        return best_off(self.net) if self.over else None

    def snapshot(self) -> JSON:
        outcome = self.outcome()
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(self.players), "options": self.rules.options(),
            "banker": None if self.over else self.banker,
            "hands": self.hands(), "bets": self.bet_list(),
            "sheet": [{"player": name, "total": self.net[name]} for name in self.players],
            "over": self.over, "winners": list(outcome.winners) if outcome else [],
            "shoe": self.shoe.to_json(), **self.extra(),
        }


StateT = TypeVar("StateT", bound=BankState)


class BankGame(LoggedGame[StateT]):
    """A banking card game of the books: `rules` is the variant, `state` the table it runs."""

    family = FAMILY

    def __init__(self, id: str, name: str, rules: HouseRules, state: type[StateT],
                 laws: tuple[LawRef, ...], aliases: tuple[str, ...] = (),
                 most: int | None = None, book: str = "hoyle-1940") -> None:
        super().__init__(id, name, rules, aliases, book)
        self.state = state
        self._laws = laws
        self.most = most

    def seated(self, players: Sequence[str]) -> list[str]:
        seated = super().seated(players)
        if self.most is not None and len(seated) > self.most:
            raise IllegalEventError(f"{self.name} seats at most {self.most} players, "
                                    f"got {len(seated)}")
        return seated

    def start(self, rules: Any, players: Sequence[str]) -> StateT:
        return self.state(self, rules, players)

    def own_laws(self) -> tuple[LawRef, ...]:
        return self._laws
