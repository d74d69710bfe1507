"""Faro and Stuss as Hoyle's Games (1940) gives them: turns of two cards from a dealing box.

The first player is the banker. The table reports every card as it comes into sight:
the soda, then 25 turns of a loser and a winner, then the hockelty (lines 11710-11736).
Bets go on the layout (a spade suit, lines 11738-11741) between turns, on one card or on
several (lines 11772-11788), flat to win or coppered to lose (lines 11755-11770); on the
last turn a player may call the turn (lines 11845-11853). Stuss is faro dealt out of hand,
the banker taking all on splits (lines 11859-11861).

The layout figure is lost in the scan (lines 11744-11752); the engine takes the
catalogue's reading, the standard two rows with the 7 at the end, which every example
of the text fits::

    K  Q  J  10  9  8
                       7
    A  2  3  4   5  6

Events (docs/cards/faro.md):

- `{"type": "bet", "player": "Bob", "on": "K", "amount": 10}`: to win on the king;
  `"copper": true` to lose; `"on": "4-5-9-10"` for several cards of one spot;
  `"on": "call", "order": ["9", "Q"]` calls the last turn (9 loses, Q wins);
- `{"type": "withdraw", "player": "Bob", "on": "K"}`: his bets on a spot with no action
  taken back; `"copper": false` (or true) takes back only the flat (or coppered) one, and
  `"amount": 3` only that much of it (lines 11766-11768);
- `{"type": "card", "to": "loser", "card": "7H"}`: `to` is soda, loser, winner, hockelty.

The layout's spots, the laws each ruling cites and the variants are
`engine/cards/faro_rules.py`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from engine.cards.bank import SAMPLE_STAKES, BankGame, BankState, Stake, parse_amount
from engine.cards.core import RANKS, CardEvent, ShoeCount
from engine.cards.faro_rules import (
    FARO,
    SAMPLE_SPOTS,
    SPOT_NAMES,
    SPOTS,
    STUSS,
    FaroRules,
    split_chance,
    spot_name,
)
from engine.core import JSON, Awaiting, Event, Ruling
from engine.errors import IllegalEventError
from engine.rules import parse_player

PILES = ("soda", "loser", "winner", "hockelty")
#: Cards in a deal: the soda, 25 turns of two, the hockelty.
DEAL = 52
TURNS = 25


@dataclass(frozen=True, slots=True)
class FaroBetEvent(Event):
    """A stake on a spot of the layout: to win, coppered to lose, or a call of the last turn."""

    type: ClassVar[str] = "bet"
    player: str
    on: str
    amount: int
    copper: bool = False
    order: tuple[str, str] | None = None

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "player": self.player, "on": self.on,
                      "amount": self.amount}
        if self.copper:
            data["copper"] = True
        if self.order is not None:
            data["order"] = list(self.order)
        return data


@dataclass(frozen=True, slots=True)
class WithdrawEvent(Event):
    """A player takes back (or changes) a bet on a spot that had no action.

    `copper` names which of his stakes there: False the flat one, True the coppered one,
    None both; `amount` is how much he takes back of it (None: the whole stake).
    """

    type: ClassVar[str] = "withdraw"
    player: str
    on: str
    copper: bool | None = None
    amount: int | None = None

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "player": self.player, "on": self.on}
        if self.copper is not None:
            data["copper"] = self.copper
        if self.amount is not None:
            data["amount"] = self.amount
        return data

    @property
    def what(self) -> str:
        """Which of his stakes on the spot it names: "bet" (all), "flat bet", "coppered bet"."""
        if self.copper is None:
            return "bet"
        return f"{'coppered' if self.copper else 'flat'} bet"


@dataclass(slots=True)
class FaroStake(Stake):
    """A stake on the layout: flat or coppered, or a call of the last turn."""

    copper: bool
    order: tuple[str, str] | None

    def ranks(self) -> frozenset[str]:
        return SPOT_NAMES.get(self.on, frozenset())

    def words(self) -> str:
        if self.order is not None:
            return f"{self.amount} calling the turn {self.order[0]}-{self.order[1]}"
        how = "coppered, to lose" if self.copper else "to win"
        return f"{self.amount} on the {self.on} {how}"

    def to_json(self) -> JSON:
        data: JSON = {"player": self.player, "on": self.on, "amount": self.amount,
                      "copper": self.copper}
        if self.order is not None:
            data["order"] = list(self.order)
        return data


class FaroState(BankState):
    """A faro (or stuss) bank: deals of 52 cards until the `deals` option is reached."""

    rules: FaroRules
    stakes: list[FaroStake]  # type: ignore[assignment]
    OTHERS = ("withdraw",)

    def new_shoe(self) -> ShoeCount:
        return ShoeCount(name="the faro pack")

    def start(self) -> None:
        self.piles: dict[str, list[str]] = {pile: [] for pile in PILES}
        self.loser: str | None = None

    # -- where the deal stands ------------------------------------------------------------

    @property
    def banker(self) -> str:
        return self.players[0]

    @property
    def next_pile(self) -> str:
        dealt = self.shoe.dealt
        if dealt == 0:
            return "soda"
        if dealt == DEAL - 1:
            return "hockelty"
        return "loser" if dealt % 2 else "winner"

    @property
    def turn(self) -> int:
        """The turn the next loser or winner belongs to, 1-25."""
        return self.shoe.dealt // 2 + (1 if self.shoe.dealt % 2 else 0)

    def betting_open(self) -> bool:
        return not self.over and self.next_pile in ("soda", "loser")

    def last_turn(self) -> bool:
        """Three cards left in the box and the next is the last turn's loser."""
        return self.shoe.left == 3 and self.next_pile == "loser"

    def where(self) -> str:
        if self.over:
            return "the game is over"
        deal = f"deal {self.coups + 1}"
        pile = self.next_pile
        if pile in ("loser", "winner"):
            return f"{deal}, the {pile} of turn {self.turn} is next"
        return f"{deal}, the {pile} is next"

    # -- events ---------------------------------------------------------------------------

    def card_hands(self) -> Sequence[str]:
        return PILES

    def parse_other(self, kind: str, data: Mapping[str, Any]) -> Event:
        player = parse_player(data, self.players, "withdraw")
        on = self._spot(data.get("on"), "withdraw")
        copper = data.get("copper")
        if copper is not None and not isinstance(copper, bool):
            raise IllegalEventError(f"withdraw: copper must be true or false, not {copper!r}")
        if copper and on == "call":
            raise IllegalEventError("withdraw: a call of the turn is not coppered")
        amount = None if data.get("amount") is None else parse_amount(data, "withdraw")
        return WithdrawEvent(str(player), on, copper, amount)

    def parse_bet(self, data: Mapping[str, Any]) -> Event:
        player = parse_player(data, self.players, "bet")
        amount = parse_amount(data)
        copper = data.get("copper", False)
        if not isinstance(copper, bool):
            raise IllegalEventError(f"bet: copper must be true or false, not {copper!r}")
        if data.get("on") == "call":
            if copper:
                raise IllegalEventError("bet: a call of the turn is not coppered")
            return FaroBetEvent(str(player), "call", amount, False, self._order(data))
        if "order" in data:
            raise IllegalEventError("bet: only a call of the turn (on \"call\") names an order")
        return FaroBetEvent(str(player), self._spot(data.get("on"), "bet"), amount, copper)

    @staticmethod
    def _spot(on: object, kind: str) -> str:
        if kind == "withdraw" and on == "call":
            return "call"
        if isinstance(on, str):
            parts = [part.strip().upper() for part in on.split("-")]
            ranks = frozenset(parts)
            if len(ranks) == len(parts) and ranks in SPOTS:
                return spot_name(ranks)
        raise IllegalEventError(
            f"{kind}: {on!r} is no spot of the faro layout; a spot is a card (\"K\", \"7\") "
            "or cards one bet takes in, joined by '-' (\"4-5-9-10\", \"A-2-K\", \"5-8\")")

    @staticmethod
    def _order(data: Mapping[str, Any]) -> tuple[str, str]:
        order = data.get("order")
        if (not isinstance(order, list) or len(order) != 2
                or not all(isinstance(r, str) and r.upper() in RANKS for r in order)):
            raise IllegalEventError("bet on call: order must name the loser and the winner, "
                                    f"e.g. [\"9\", \"Q\"], not {order!r}")
        return order[0].upper(), order[1].upper()

    def verify_play(self, event: Event) -> None:
        if isinstance(event, CardEvent):
            if event.to != self.next_pile:
                raise IllegalEventError(f"card {event.card} to {event.to}: {self.where()}")
            return
        if not isinstance(event, FaroBetEvent | WithdrawEvent):
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")
        if event.player == self.banker:
            raise IllegalEventError(f"{event.type} by {event.player}: the banker takes the "
                                    "bets, he does not place them")
        if not self.betting_open():
            raise IllegalEventError(f"{event.type} by {event.player}: the turn is being made "
                                    f"({self.where()}); bets wait for the next turn")
        if isinstance(event, WithdrawEvent):
            self._verify_withdraw(event)
            return
        if event.order is not None:
            self._verify_call(event.order)
            return
        left = self.shoe.ranks_left()
        if not any(left[rank] for rank in SPOT_NAMES[event.on]):
            raise IllegalEventError(f"bet on {event.on}: every card of it is out of the box "
                                    "(a dead card); it can have no action")

    def _withdrawn(self, event: WithdrawEvent) -> list[FaroStake]:
        """The stakes a withdrawal names, in the order they were placed."""
        return [s for s in self.stakes if s.player == event.player and s.on == event.on
                and event.copper in (None, s.copper)]

    def _verify_withdraw(self, event: WithdrawEvent) -> None:
        """A bet is taken back only as far as it is staked, and a part of one only from a
        stake named, flat or coppered, where the player has both on the spot."""
        named = self._withdrawn(event)
        if not named:
            raise IllegalEventError(f"withdraw: {event.player} has no {event.what} on "
                                    f"{event.on}")
        if event.amount is None:
            return
        if len({s.copper for s in named}) > 1:
            raise IllegalEventError(f"withdraw: {event.player} has a flat and a coppered bet "
                                    f"on {event.on}; name which (copper true or false)")
        staked = sum(s.amount for s in named)
        if event.amount > staked:
            raise IllegalEventError(f"withdraw: {event.player}'s {event.what} on {event.on} is "
                                    f"{staked}; he cannot take back {event.amount}")

    def _verify_call(self, order: tuple[str, str]) -> None:
        if not self.last_turn():
            raise IllegalEventError("bet on call: the turn is called only on the last turn, "
                                    f"with three cards in the box; {self.where()}")
        left = self.shoe.ranks_left()
        if len(left) == 1:
            raise IllegalEventError("bet on call: the last three cards are all one "
                                    "denomination; there is nothing to call")
        wanted = Counter(order)
        if any(left[rank] < n for rank, n in wanted.items()):
            three = "-".join(sorted(left.elements(), key=RANKS.index))
            raise IllegalEventError(f"bet on call: the cards left are {three}; "
                                    f"{order[0]}-{order[1]} cannot come")

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, WithdrawEvent):
            return [self._withdraw(event)]
        if isinstance(event, FaroBetEvent):
            stake = FaroStake(event.player, event.on, event.amount, event.copper, event.order)
            self.stakes.append(stake)
            return [self._bet_ruling(stake)]
        assert isinstance(event, CardEvent)
        return self._card(event)

    def _withdraw(self, event: WithdrawEvent) -> Ruling:
        """Take back the stake named, or part of it from the stakes placed last."""
        named = self._withdrawn(event)
        staked = sum(s.amount for s in named)
        total = staked if event.amount is None else event.amount
        owed = total
        for stake in reversed(named):
            taken = min(owed, stake.amount)
            stake.amount -= taken
            owed -= taken
        self.stakes = [s for s in self.stakes if s.amount]
        left = f"; {staked - total} stays on it" if total < staked else ""
        return Ruling("withdraw", event.player, total,
                      f"{event.player} takes back {total} of his {event.what} on {event.on}"
                      f"{left}: no action on it, so he may change or remove it.",
                      self.rules.law("bets"))

    def _bet_ruling(self, stake: FaroStake) -> Ruling:
        if stake.order is not None:
            left = self.shoe.ranks_left()
            cat_hop = len(left) == 2
            chance = Fraction(1, 3) if cat_hop else Fraction(1, 6)
            pays = self.rules.call_pays(cat_hop)
            edge = 1 - chance * (pays + 1)
            what = "a cat-hop" if cat_hop else "three different cards"
            book = "2 for 1" if cat_hop else "4 for 1"
            text = (f"{stake.player} calls the last turn, {what}: {stake.order[0]} to lose, "
                    f"{stake.order[1]} to win, {stake.amount}. The book pays {book}: paid "
                    f"{pays} to 1 (option calling_pays). Exact: a chance of {chance}, fair "
                    f"at {int(1 / chance) - 1} to 1; the banker's edge {edge} of the stake.")
            return Ruling("bet", stake.player, stake.amount, text,
                          self.rules.law("cat-hop" if cat_hop else "call"))
        ranks = stake.ranks()
        text = f"{stake.player} bets {stake.words()}"
        if len(ranks) > 1:
            return Ruling("bet", stake.player, stake.amount,
                          f"{text}: {SPOTS[ranks]}, decided by whichever comes first.",
                          self.rules.law("several"))
        copies = self.shoe.ranks_left()[stake.on]
        split = split_chance(self.shoe.left, copies, self.next_pile == "soda")
        edge = split if self.rules.splits_take_all else split / 2
        takes = "all" if self.rules.splits_take_all else "half"
        return Ruling("bet", stake.player, stake.amount,
                      f"{text}. {copies} of the {self.shoe.left} cards in the box are "
                      f"{stake.on}s: exactly {split} that a split decides it (the banker "
                      f"takes {takes}), the banker's edge {edge} of the stake "
                      f"({float(edge):.2%}).", self.rules.law("bets"))

    # -- the cards --------------------------------------------------------------------------

    def _card(self, event: CardEvent) -> list[Ruling]:
        card = event.card
        self.piles[event.to].append(card.code)
        if event.to == "soda":
            return [Ruling("soda", None, None, f"{card} is soda: no bet is decided by it.",
                           self.rules.law("soda"))]
        if event.to == "loser":
            self.loser = card.rank
            return [Ruling("loser", None, None, f"Turn {self.turn}: {card} loses.",
                           self.rules.law("soda"))]
        if event.to == "winner":
            assert self.loser is not None
            loser, self.loser = self.loser, None
            return self._settle(loser, card.rank)
        return self._hockelty(card.code)

    def _settle(self, loser: str, winner: str) -> list[Ruling]:
        split = loser == winner
        turn = self.shoe.dealt // 2
        law = self.rules.law
        if split:
            head = f"Turn {turn}: {loser} and {winner}, a split."
        else:
            head = f"Turn {turn}: {loser} loses, {winner} wins."
        rulings = [Ruling("turn", None, None, head, law("settle" if split else "soda"))]
        lost: list[Ruling] = []
        splits: list[Ruling] = []
        won: list[Ruling] = []
        losers_by_player: dict[str, set[str]] = {}
        kept: list[FaroStake] = []
        for stake in self.stakes:
            if stake.order is not None:
                self._settle_call(stake, loser, winner, lost, won)
                continue
            ranks = stake.ranks()
            hit_loser, hit_winner = loser in ranks, winner in ranks
            if not hit_loser and not hit_winner:
                kept.append(stake)
                continue
            several = "several" if len(ranks) > 1 else "bets"
            if split:
                taken = self.rules.split_loss(stake.amount)
                self.pay(stake.player, -taken)
                splits.append(Ruling("split", stake.player, -taken,
                                     f"{loser}s split: {self.banker} takes {taken} of "
                                     f"{stake.player}'s {stake.words()}.", law("settle")))
                continue
            if hit_loser and hit_winner:
                kept.append(stake)
                won.append(Ruling("stand-off", stake.player, 0,
                                  f"{loser} and {winner} both came: {stake.player}'s "
                                  f"{stake.words()} is a stand-off.", law("several")))
                continue
            came = loser if hit_loser else winner
            wins = hit_winner != stake.copper
            self.pay(stake.player, stake.amount if wins else -stake.amount)
            how = "won" if hit_winner else "lost"
            if wins:
                won.append(Ruling("bet-won", stake.player, stake.amount,
                                  f"{came} {how}: {self.banker} pays {stake.player}'s "
                                  f"{stake.words()}, even money.", law(several)))
            else:
                losers_by_player.setdefault(stake.player, set()).add(came)
                lost.append(Ruling("bet-lost", stake.player, -stake.amount,
                                   f"{came} {how}: {self.banker} takes {stake.player}'s "
                                   f"{stake.words()}.", law(several)))
        self.stakes = kept
        rulings.extend(lost)
        rulings.extend(splits)
        rulings.extend(won)
        for player, cards in losers_by_player.items():
            if len(cards) == 2:
                rulings.append(Ruling("whipsawed", player, None,
                                      f"{player} lost on both {loser} and {winner} this turn: "
                                      "whipsawed.", law("whipsaw")))
        return rulings

    def _settle_call(self, stake: FaroStake, loser: str, winner: str, lost: list[Ruling],
                     won: list[Ruling]) -> None:
        assert stake.order is not None
        cat_hop = len({*self.shoe.ranks_left(), loser, winner}) == 2
        law = self.rules.law("cat-hop" if cat_hop else "call")
        if stake.order == (loser, winner):
            gain = stake.amount * self.rules.call_pays(cat_hop)
            self.pay(stake.player, gain)
            won.append(Ruling("bet-won", stake.player, gain,
                              f"{loser} lost, {winner} won: {stake.player} called the turn; "
                              f"{self.banker} pays {gain}.", law))
        else:
            self.pay(stake.player, -stake.amount)
            lost.append(Ruling("bet-lost", stake.player, -stake.amount,
                               f"{loser} lost, {winner} won: {stake.player}'s call "
                               f"{stake.order[0]}-{stake.order[1]} is wrong; {self.banker} "
                               f"takes {stake.amount}.", law))

    def _hockelty(self, code: str) -> list[Ruling]:
        law = self.rules.law("hockelty")
        rulings = [Ruling("hockelty", None, None, f"{code} is hockelty: no bet is decided by "
                          "it; the deal is over.", law)]
        for stake in self.stakes:
            rulings.append(Ruling("no-action", stake.player, 0, f"{stake.player} takes back "
                                  f"{stake.words()}: no action in the deal.", law))
        self.stakes = []
        self.coups += 1
        if self.coups >= self.rules.deals:
            deals = self.rules.deals
            rulings.append(self.end(law, f"{deals} deals are over" if deals > 1
                                    else "The deal is over"))
        else:
            self.shoe = self.shoe.fresh()
            self.piles = {pile: [] for pile in PILES}
        return rulings

    # -- what the table may report next ------------------------------------------------------

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        pile = self.next_pile
        events: list[Event] = [CardEvent(pile, card) for card in sorted(
            self.shoe.remaining(), key=lambda c: (c.suit, c.order))]
        if not self.betting_open():
            return events
        left = self.shoe.ranks_left()
        live = [rank for rank in RANKS if left[rank]]
        for player in self.players[1:]:
            events.extend(FaroBetEvent(player, rank, SAMPLE_STAKES[0], copper)
                          for rank in live for copper in (False, True))
            events.extend(FaroBetEvent(player, on, SAMPLE_STAKES[-1]) for on in SAMPLE_SPOTS
                          if any(left[rank] for rank in SPOT_NAMES[on]))
            if self.last_turn() and len(left) > 1:
                orders = {(a, b) for a in left for b in left if a != b or left[a] > 1}
                events.extend(FaroBetEvent(player, "call", SAMPLE_STAKES[0], False, order)
                              for order in sorted(orders))
        withdrawals: list[Event] = []
        for stake in self.stakes:
            withdrawals.extend((WithdrawEvent(stake.player, stake.on),
                                WithdrawEvent(stake.player, stake.on, stake.copper),
                                WithdrawEvent(stake.player, stake.on, stake.copper,
                                              SAMPLE_STAKES[0])))
        return events + list(dict.fromkeys(withdrawals))

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        pile = self.next_pile
        what = f"the {pile} of turn {self.turn}" if pile in ("loser", "winner") else \
            f"the {pile}"
        found = [Awaiting("card", "dealer", pile, f"{what}, from the box")]
        if self.betting_open() and len(self.players) > 1:
            found.append(Awaiting("bet", "player", None, "bets on the layout before the turn"))
        return tuple(found)

    def hands(self) -> dict[str, list[str]]:
        return {pile: list(cards) for pile, cards in self.piles.items()}

    def extra(self) -> JSON:
        left = self.shoe.ranks_left()
        return {"deals": self.coups, "turn": min(self.shoe.dealt // 2, TURNS),
                "cases": {rank: left[rank] for rank in RANKS},
                "calling": self.last_turn() and len(left) > 1 and not self.over}


GAMES = (
    BankGame("faro", "Faro", FARO, FaroState, FARO.own_laws()),
    BankGame("stuss", "Stuss", STUSS, FaroState, STUSS.own_laws()),
)
