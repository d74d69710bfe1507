"""Poker Dice as Hoyle's Games (1940) gives it (lines 10337-10396).

Each player in turn casts five dice; after the first and second throws he may return as
many dice to the box as he pleases and throw them again, or stand; three throws at most
(10346-10351, 10390-10392). Pairs, triplets, fours and five of a kind count; straights
have no value; aces are high in the East, sixes in the West (10340-10344). Five aces is
the best hand; four of a kind beats three of a kind and a pair (10394, continued at 10354,
where the scan put the end of the sentence). The best hand takes the pool.

`rank_hand` is the pure ranking, for the engine and the dashboard alike:

>>> hand = rank_hand([1, 1, 1, 1, 2])
>>> hand.name, hand.label
('four of a kind', 'four aces')
>>> rank_hand([6, 6, 6, 5, 5], high="six") > rank_hand([1, 1, 1, 3, 3], high="six")
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, ClassVar

from engine.core import JSON, Awaiting, Event, LawRef, Ruling, hoyle_law
from engine.dice.core import FACES, StandEvent, distinct_throws, parse_throw
from engine.dice.turns import ORDINALS, Hand, HandRules, HandState, TurnGame
from engine.errors import IllegalEventError
from engine.rules import Option, one_of, parse_player, whole

VALUES = hoyle_law(10340, 10344, "Poker Dice: pairs, triplets, fours or five of a kind; "
                                 "straights no value; aces high in the East, sixes in the West")
THROWS = hoyle_law(10346, 10351, "Poker Dice: five dice cast together; after the first and "
                                 "second throws any may go back in the box")
LIMIT = hoyle_law(10390, 10392, "Poker Dice: stand on the first or second throw; three throws "
                                "at most")
BEST = hoyle_law(10394, 10394, "Poker Dice: five aces best; four of a kind beats three of a "
                               "kind and a pair (the sentence ends at line 10354)")

DICE = 5
THROWS_AT_MOST = 3
MAX_STAKE = 1_000_000
#: Which face is high: "ace" (the East: aces, then sixes, fives...) or "six" (the West).
HIGH = ("ace", "six")
#: The hands, worst first; straights have no value, so no straight is among them.
CATEGORIES = ("nothing", "pair", "two pairs", "three of a kind", "three of a kind and a pair",
              "four of a kind", "five of a kind")
PLURALS = {1: "aces", 2: "deuces", 3: "treys", 4: "fours", 5: "fives", 6: "sixes"}
COUNTED = {2: "a pair of", 3: "three", 4: "four", 5: "five"}


def strength(face: int, high: str = "ace") -> int:
    """How high a face ranks, 1-6: in the East the ace is above the six, in the West below."""
    if high not in HIGH:
        raise ValueError(f"high must be one of {', '.join(HIGH)}, not {high!r}")
    if high == "ace":
        return 6 if face == 1 else face - 1
    return face


@dataclass(frozen=True, slots=True, order=True)
class PokerHand:
    """A poker-dice hand's rank: compare two with < and ==; `name` and `label` to show."""

    order: tuple[int, ...]
    name: str = field(compare=False)
    label: str = field(compare=False)
    dice: tuple[int, ...] = field(compare=False)

    @property
    def straight(self) -> bool:
        """Five dice in sequence: a straight, which has no value (lines 10342-10343)."""
        return sorted(self.dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6])


def rank_hand(dice: Sequence[int], high: str = "ace", kickers: bool = False) -> PokerHand:
    """The rank of five dice; `kickers` lets the odd dice break a tie of equal sets.

    The order is (category, the sets' faces from the largest set down, then, with
    `kickers`, the odd dice from the highest down), each face as its `strength`.
    """
    if len(dice) != DICE or any(face not in FACES for face in dice):
        raise ValueError(f"a poker-dice hand is five faces 1-6, not {list(dice)}")
    counts = Counter(dice)
    groups = sorted(counts.items(), key=lambda fc: (fc[1], strength(fc[0], high)), reverse=True)
    sets = [(face, n) for face, n in groups if n > 1]
    shape = [n for _, n in sets]
    category = {(): 0, (2,): 1, (2, 2): 2, (3,): 3, (3, 2): 4, (4,): 5, (5,): 6}[tuple(shape)]
    order = [category, *(strength(face, high) for face, _ in sets)]
    if kickers:
        odd = sorted((face for face, n in groups if n == 1),
                     key=lambda f: strength(f, high), reverse=True)
        order.extend(strength(face, high) for face in odd)
    label = " and ".join(f"{COUNTED[n]} {PLURALS[face]}" for face, n in sets) or "nothing"
    return PokerHand(tuple(order), CATEGORIES[category], label, tuple(dice))


@dataclass(frozen=True, slots=True)
class PokerDiceRules(HandRules):
    """Which face is high, whether odd dice break ties, and each player's stake in the pool.

    Ties are always thrown off: the pool goes to one player (the book names no tie rule).
    """

    high: str = "ace"
    kickers: bool = False
    stake: int = 1

    def known_options(self) -> tuple[Option, ...]:
        return (one_of("high", *HIGH), one_of("kickers", False, True),
                whole("stake", 1, MAX_STAKE))


POKER_DICE = PokerDiceRules()


@dataclass(frozen=True, slots=True)
class PokerThrowEvent(Event):
    """A cast: the dice `hold` left standing from the last throw, and the faces thrown."""

    type: ClassVar[str] = "throw"
    hold: tuple[int, ...]
    dice: tuple[int, ...]

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "dice": list(self.dice)}
        if self.hold:
            data["hold"] = list(self.hold)
        return data


def _sub_hand(hold: Sequence[int], hand: Sequence[int]) -> bool:
    return not Counter(hold) - Counter(hand)


class PokerDiceState(HandState):
    """Each player's cast of five dice, up to three throws; the best hand takes the pool."""

    rules: PokerDiceRules
    KINDS: ClassVar[tuple[str, ...]] = ("throw", "stand", "rethrow")

    def new_turn(self) -> None:
        self.hand: tuple[int, ...] = ()
        self.throws = 0

    def rank(self, dice: Sequence[int]) -> PokerHand:
        return rank_hand(dice, self.rules.high, self.rules.kickers)

    def turn_where(self) -> str:
        if not self.throws:
            return "first throw, five dice"
        return f"{ORDINALS[self.throws]} throw or stand, holding {_faces(self.hand)}"

    def parse(self, kind: str, data: Mapping[str, Any]) -> Event:
        if kind == "stand":
            return StandEvent(str(parse_player(data, self.players, "stand")))
        hold = data.get("hold", [])
        if not isinstance(hold, list) or len(hold) >= DICE:
            raise IllegalEventError(f"throw: hold must be a list of at most {DICE - 1} faces "
                                    f"left standing, got {hold!r}")
        for face in hold:
            if isinstance(face, bool) or not isinstance(face, int) or face not in FACES:
                raise IllegalEventError(f"throw: hold has {face!r}; a die's faces are 1-6")
        throw = parse_throw(data, DICE - len(hold), f"{self.game.name} (holding {len(hold)})")
        return PokerThrowEvent(tuple(hold), throw.dice)

    def check(self, event: Event) -> None:
        if isinstance(event, StandEvent):
            if event.player != self.thrower:
                raise IllegalEventError(f"stand by {event.player}: out of turn; "
                                        f"{self.where()}")
            if not self.throws:
                raise IllegalEventError(f"stand by {event.player}: he has not thrown yet; "
                                        f"{self.where()}")
            return
        if not isinstance(event, PokerThrowEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if len(event.hold) + len(event.dice) != DICE or not event.dice:
            raise IllegalEventError(f"throw: hold and dice must make five, with at least one "
                                    f"die thrown; {self.where()}")
        if not self.throws and event.hold:
            raise IllegalEventError(f"throw holding {_faces(event.hold)}: the first throw is "
                                    f"of all five dice; {self.where()}")
        if not _sub_hand(event.hold, self.hand):
            raise IllegalEventError(f"throw holding {_faces(event.hold)}: those dice are not "
                                    f"all in the hand; {self.where()}")

    def play_turn(self, event: Event) -> tuple[list[Ruling], Hand | None]:
        who = self.thrower
        if isinstance(event, StandEvent):
            nth = ORDINALS[self.throws - 1]
            stand = Ruling("stand", who, None, f"{who} stands after the {nth} throw.", LIMIT)
            return [stand, self._hand_ruling(who)], self._hand()
        assert isinstance(event, PokerThrowEvent)
        self.throws += 1
        self.hand = (*event.hold, *event.dice)
        ranked = self.rank(self.hand)
        nth = ORDINALS[self.throws - 1]
        if event.hold:
            what = f"holds {_faces(event.hold)} and throws {_faces(event.dice)}"
        else:
            what = f"throws {_faces(event.dice)}"
        rulings = [Ruling("throw", who, None, f"{who}'s {nth} throw: {who} {what}; the hand is "
                          f"{_faces(self.hand)}, {ranked.label}.",
                          THROWS if self.throws < THROWS_AT_MOST else LIMIT)]
        if self.throws < THROWS_AT_MOST:
            return rulings, None
        rulings.append(Ruling("stand", who, None, f"Three throws at most: {who} stands.", LIMIT))
        return [*rulings, self._hand_ruling(who)], self._hand()

    def _hand(self) -> Hand:
        ranked = self.rank(self.hand)
        text = ranked.label
        if ranked.name not in text:
            text += f" ({ranked.name})"
        if ranked.straight:
            text += " (a straight has no value)"
        return Hand(ranked.dice, 0, ranked.order, text)

    def _hand_ruling(self, who: str) -> Ruling:
        hand = self._hand()
        return Ruling("hand", who, hand.rank[0], f"{who}'s hand: {_faces(self.hand)}, "
                      f"{hand.text}.", VALUES)

    def choices(self) -> list[Event]:
        if not self.throws:
            return [PokerThrowEvent((), dice) for dice in distinct_throws(DICE)]
        holds = {tuple(sorted(kept)) for size in range(DICE)
                 for kept in combinations(self.hand, size)}
        events: list[Event] = [StandEvent(self.thrower)]
        for hold in sorted(holds):
            events.extend(PokerThrowEvent(hold, dice) for dice in distinct_throws(DICE - len(hold)))
        return events

    def awaits(self) -> tuple[Awaiting, ...]:
        if not self.throws:
            return (Awaiting("throw", "sensor", self.thrower, "first throw, five dice"),)
        return (Awaiting("throw", "sensor", self.thrower,
                         f"{ORDINALS[self.throws]} throw: the dice returned to the box"),
                Awaiting("stand", "player", self.thrower,
                         f"stand on {_faces(self.hand)}, or return dice to the box"))

    def turn_snapshot(self) -> JSON:
        ranked = self.rank(self.hand) if self.hand else None
        return {"throws": self.throws, "dice": list(self.hand),
                "hand": ranked.name if ranked else None,
                "label": ranked.label if ranked else None}

    @property
    def best_law(self) -> LawRef:
        return BEST

    def prize(self, winners: Sequence[str]) -> tuple[str, int]:
        pool = self.rules.stake * len(self.players)
        return f"takes the pool of {pool}", self.totals()[winners[0]]

    def totals(self) -> dict[str, int]:
        """Net winnings: each player stakes `stake`; the one best hand takes the pool."""
        if not self.over:
            return dict.fromkeys(self.players, 0)
        stake = self.rules.stake
        return {p: stake * (len(self.players) - 1) if p in self.won else -stake
                for p in self.players}


def _faces(dice: Sequence[int]) -> str:
    return " ".join(map(str, dice)) if dice else "nothing"


GAMES = (TurnGame("poker-dice", "Poker Dice", POKER_DICE, PokerDiceState,
                  (VALUES, THROWS, LIMIT, BEST)),)
