"""Vingt-et-Un at a banking card table: both books' games, Macao, Quinze, Vingt-un's variations.

One `TwentyOneState` runs every variant of `engine/cards/twenty_one_rules.py` on the banking
family's base (`engine/cards/bank.py`). The table tells the engine each card as it is dealt
and each player's act; the engine says who gets the next card
(`engine/cards/twenty_one_table.py`), settles every hand with the banker and passes the bank
as the book says (`engine/cards/twenty_one_settle.py`); this module plays the events.

Events (the bet and stand of `engine/cards/bank.py`, the rest of
`engine/cards/twenty_one_events.py`; the vocabulary of docs/cards/twenty_one.md):

- `{"type": "bet", "player": "Bob", "on": "hand", "amount": 5}`: a stake, or an increase,
  before the second round of cards (not at Quinze, where the stake is agreed);
- `{"type": "card", "to": "Bob", "card": "10H", "up": false}`: a card dealt to a hand
  ("banker", a player, or a divided hand "Bob/2");
- `{"type": "double", "player": <banker>}`: the banker calls on all to double;
  `{"type": "refuse", "player": "Bob"}`: Bob will not double and forfeits his stake (Hoyle);
- `{"type": "stand", "player": "Bob"}` (the banker too), `{"type": "split", "player": "Bob",
  "amount": 5}`: divide a pair; `{"type": "sell", "player": "Ann", "buyer": "Cy",
  "amount": 3}`: sell the deal (Selling the Deal).

>>> from engine.registry import get_game
>>> state = get_game("vingt-et-un-hoyle").new_state(["Ann", "Bob"], {"deals": 1})
>>> for data in ({"type": "bet", "player": "Bob", "on": "hand", "amount": 5},
...              {"type": "card", "to": "Bob", "card": "AS"},
...              {"type": "card", "to": "banker", "card": "10D"},
...              {"type": "card", "to": "Bob", "card": "KD"},
...              {"type": "card", "to": "banker", "card": "9C"}):
...     op = state.apply(state.parse_event(data))
>>> [s["total"] for s in state.snapshot()["sheet"]], state.snapshot()["over"]
([-10, 10], True)
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards.bank import SAMPLE_STAKES, BankGame, BetEvent, StandEvent
from engine.cards.core import CardEvent, codes
from engine.cards.twenty_one_events import (
    DoubleEvent,
    Hand,
    RefuseEvent,
    SellEvent,
    SplitEvent,
)
from engine.cards.twenty_one_rules import (
    HOYLE,
    LIMITING,
    MACAO,
    POOL,
    PRIVILEGES,
    QUINZE,
    ROUND_GAMES,
    SELLING,
    TwentyOneRules,
)
from engine.cards.twenty_one_settle import TwentyOneSettlement
from engine.cards.twenty_one_table import BANKER
from engine.core import JSON, Awaiting, Event, Ruling
from engine.errors import IllegalEventError


class TwentyOneState(TwentyOneSettlement):
    """A session of Vingt-et-Un (or a variant): the events played on the table and settled."""

    # -- applying

    def play(self, event: Event) -> list[Ruling]:
        if isinstance(event, SellEvent):
            return [self._sell(event)]
        rulings: list[Ruling] = []
        if not self.started:
            self.started = True
            rulings.extend(self._ante())
        if isinstance(event, CardEvent):
            rulings.extend(self._card(event))
        elif isinstance(event, BetEvent):
            rulings.append(self._stake(event))
        elif isinstance(event, DoubleEvent):
            rulings.append(self._double())
        elif isinstance(event, RefuseEvent):
            rulings.append(self._refuse(self._owner(event.player)))
        elif isinstance(event, StandEvent):
            rulings.extend(self._stand(self._owner(event.player)))
        else:
            assert isinstance(event, SplitEvent)
            rulings.append(self._split(event))
        return rulings

    def _ante(self) -> list[Ruling]:
        if not self.ante_due or not self.rules.ante:
            return []
        self.ante_due = False
        for name in self.players:
            self.net[name] -= self.rules.ante
        self.pool += self.rules.ante * len(self.players)
        law = self.rules.laws.pool
        assert law is not None
        return [Ruling("pool", None, self.rules.ante * len(self.players),
                       f"A new deal: each player puts {self.rules.ante} in the pool, which "
                       f"holds {self.pool}.", law)]

    def _sell(self, event: SellEvent) -> Ruling:
        self.seat = self.players.index(event.buyer)
        self.pay(event.player, event.amount, event.buyer)
        self._start_hand()
        law = self.rules.laws.sale
        assert law is not None
        return Ruling("sale", event.buyer, event.amount,
                      f"{event.player} sells his deal to {event.buyer} for {event.amount}; "
                      f"{event.buyer} deals from his own seat, beginning on {event.player}'s "
                      f"left, until he loses it; then the deal goes on from {event.player}.",
                      law)

    def _stake(self, event: BetEvent) -> Ruling:
        hand = self.table[event.player]
        hand.stake += event.amount
        raised = hand.stake != event.amount
        text = (f"{event.player} {'increases his stake to' if raised else 'puts up'} "
                f"{hand.stake}" + (f" (raised by {event.amount})" if raised else "")
                + f"; the limit is {self.rules.limit}.")
        return Ruling("bet", event.player, event.amount, text, self.rules.laws.deal)

    def _double(self) -> Ruling:
        self.doubled = True
        for name in self.punters:
            self.table[name].stake *= 2
        refusal = (" Any who refuse forfeit what they have put up."
                   if self.rules.double_call == "forfeit" else "")
        return Ruling("double", self.banker, None,
                      f"{self.banker}, having seen his first card, calls on all to double: "
                      f"every stake is doubled.{refusal}", self.rules.laws.double)

    def _refuse(self, player: str) -> Ruling:
        hand = self.table[player]
        hand.status = "refused"
        forfeit = hand.stake // 2
        hand.stake = 0
        self.pay(player, -forfeit)
        return Ruling("refused", player, -forfeit,
                      f"{player} refuses to double: {self.banker} takes the {forfeit} he had "
                      "put up, and he is out of the hand.", self.rules.laws.double)

    def _card(self, event: CardEvent) -> list[Ruling]:
        rulings: list[Ruling] = []
        if self.renewed:
            self.run_outs += 1
            # The base has already counted this card out of the renewed pack.
            shuffled = self.shoe.left + 1
            rulings.append(Ruling(
                "reshuffle", None, shuffled,
                "The pack is down to its last card, which is not dealt: the pone shuffles it "
                f"with the used cards ({shuffled} cards) for the dealer.", self.rules.laws.pack))
        hand = self.table[event.to]
        hand.cards.append(event.card)
        if not self.dealt:
            if self._next_in_deal() is None:
                self.dealt = True
                rulings.extend(self._naturals())
            return rulings
        rulings.append(self._drawn(hand))
        if self.rules.total(hand.cards) > self.rules.target:
            rulings.extend(self._bust(hand))
        return rulings

    def _drawn(self, hand: Hand) -> Ruling:
        rules = self.rules
        total = rules.total(hand.cards)
        who = self.banker if hand.name == BANKER else hand.owner
        shown = f"the banker ({who})" if hand.name == BANKER else hand.name
        text = f"{shown} draws {hand.cards[-1]}: {' '.join(codes(hand.cards))} count {total}"
        if rules.soft(hand.cards):
            text += " (an ace as 11)"
        if total <= rules.target:
            chance = rules.bust_chance(hand.cards, self.shoe.remaining())
            text += (f"; another card would pass {rules.target} {chance.numerator} times in "
                     f"{chance.denominator}")
            if rules.target == 21:
                text += " (the book: stand at 17, draw on 16 or less)"
        return Ruling("draw", who, total, text + ".", rules.laws.draw)

    def _bust(self, hand: Hand) -> list[Ruling]:
        rules = self.rules
        total = rules.total(hand.cards)
        hand.status = "bust"
        if hand.name == BANKER:
            return self._settle(banker_bust=True)
        rulings: list[Ruling] = []
        if rules.bust_pays_at_once:
            self.pay(hand.owner, -hand.stake)
            hand.status = "settled"
            rulings.append(Ruling("bust", hand.owner, -hand.stake,
                                  f"{hand.name} counts {total}, past {rules.target}: burst; "
                                  f"he pays his {hand.stake} to {self.banker} at once.",
                                  rules.laws.bust))
        else:
            rulings.append(Ruling("bust", hand.owner, None,
                                  f"{hand.name} counts {total}, past {rules.target}; the dealer "
                                  "plays his hand before anything is paid.", rules.laws.ties))
        return rulings + self._advance()

    def _stand(self, player: str) -> list[Ruling]:
        rules = self.rules
        if self._in_turn() is None:
            banker = self.table[BANKER]
            banker.status = "stood"
            total = rules.total(banker.cards)
            return [Ruling("stand", player, total, f"The banker stands at {total}.",
                           rules.laws.settle), *self._settle(banker_bust=False)]
        active = self._active(player)
        assert active is not None
        active.status = "stood"
        total = rules.total(active.cards)
        return [Ruling("stand", player, total, f"{active.name} stands at {total}.",
                       rules.laws.draw), *self._advance()]

    def _split(self, event: SplitEvent) -> Ruling:
        owner = self._owner(event.player)
        active = self._active(owner)
        assert active is not None
        count = len(self._player_hands(owner)) + 1
        stake = active.stake if event.amount is None else event.amount
        new = Hand(f"{owner}/{count}", owner, [active.cards.pop()], stake, divided=True)
        active.divided = True
        items = list(self.table.items())
        last = max(i for i, (_, h) in enumerate(items) if h.owner == owner)
        items.insert(last + 1, (new.name, new))
        self.table = dict(items)
        return Ruling("split", owner, stake,
                      f"{owner} divides his pair of {new.cards[0].rank}s ({active.name}): "
                      f"{new.name} stakes {stake}; each hand takes a second card and is "
                      "played in turn.", self.rules.laws.split)

    # -- what the table may report next

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        found: list[Event] = []
        targets, _ = self._targets()
        if targets:
            cards = list(self.next_shoe().remaining())
            found.extend(CardEvent(to, card) for to in targets for card in cards)
        # Only the kinds of act this stage of the hand can take are tried.
        offered: list[Event] = []
        turn = self._turn_hand()
        # The hand in play may act by its own name as well as by its player's.
        actors = [*self.players, *([turn] if turn is not None and turn not in self.players
                                   else [])]
        for name in actors:
            if self.dealt:
                offered.append(StandEvent(name))
                if self.rules.split_stake != "none":
                    offered.extend(SplitEvent(name, amount) for amount in (None, *SAMPLE_STAKES))
                continue
            offered.extend(BetEvent(name, "hand", amount) for amount in SAMPLE_STAKES)
            offered.extend((DoubleEvent(name), RefuseEvent(name)))
            if self.rules.selling and not self.started:
                offered.extend(SellEvent(name, buyer, amount) for buyer in self.players
                               for amount in (0, 5))
        return found + [event for event in offered if self.can_apply(event)]

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        found: list[Awaiting] = []
        if not self.dealt:
            if not self.rules.fixed_stakes:
                found.extend(Awaiting("bet", "player", name, "a stake before the second round")
                             for name in self.punters
                             if self.table[name].stake == 0
                             and self.table[name].status != "refused")
            if self.rules.selling and not self.started and not self.tenure_hands:
                found.append(Awaiting("sell", "player", self.banker, "he may sell his deal"))
        else:
            player = self._in_turn()
            who = player if player is not None else self.banker
            found.append(Awaiting("stand", "player", who, "stand, or draw a card"))
        targets, why = self._targets()
        if targets:
            found.append(Awaiting("card", "dealer", targets[0] if len(targets) == 1 else None,
                                  why))
        return tuple(found)

    def bet_list(self) -> list[JSON]:
        return [{"player": h.owner, "on": h.name, "amount": h.stake}
                for h in self.table.values() if h.name != BANKER and h.stake]

    def extra(self) -> JSON:
        rules = self.rules
        return {
            "dealer_of_record": None if self.over else self.players[self.proper],
            "totals": {h.name: rules.total(h.cards) for h in self.table.values()},
            "status": {h.name: h.status for h in self.table.values()},
            "turn": self._turn_hand(),
            "last_hand": self.last,
            "doubled": self.doubled,
            "hand": self.coups + (0 if self.over else 1),
            "pool": self.pool,
        }


class TwentyOneGame(BankGame[TwentyOneState]):
    """Vingt-et-Un or one of its variants; its `rules` are the variant."""

    rules: TwentyOneRules

    def __init__(self, id: str, name: str, rules: TwentyOneRules, aliases: tuple[str, ...] = (),
                 book: str = "hoyle-1940") -> None:
        super().__init__(id, name, rules, TwentyOneState, rules.laws.all(), aliases, book=book)

    def seated(self, players: Sequence[str]) -> list[str]:
        seated = super().seated(players)
        for name in seated:
            if name == BANKER or "/" in name:
                raise IllegalEventError(f"{self.name}: a player may not be called {name!r}; "
                                        "\"banker\" and names with \"/\" name hands")
        return seated


GAMES = (
    TwentyOneGame("vingt-et-un-hoyle", "Vingt-et-Un, or Twenty-One", HOYLE,
                  aliases=("vingt-et-un", "twenty-one")),
    TwentyOneGame("macao", "Macao", MACAO),
    TwentyOneGame("quinze", "Quinze", QUINZE),
    TwentyOneGame("vingt-un-round-games", "Vingt-un", ROUND_GAMES, aliases=("vingt-un",),
                  book="round-games-1897"),
    TwentyOneGame("pool-vingt-un", "Pool (Vingt-un)", POOL, book="round-games-1897"),
    TwentyOneGame("limiting-the-deal-vingt-un", "Limiting the Deal (Vingt-un)", LIMITING,
                  book="round-games-1897"),
    TwentyOneGame("selling-the-deal-vingt-un", "Selling the Deal (Vingt-un)", SELLING,
                  book="round-games-1897"),
    TwentyOneGame("natural-privileges-vingt-un", "Additional Privileges for a Natural "
                  "(Vingt-un)", PRIVILEGES, book="round-games-1897"),
)
