"""Vingt-et-Un at a banking card table: both books' games, Macao, Quinze, Vingt-un's variations.

One `TwentyOneState` runs every variant of `engine/cards/twenty_one_rules.py`. The table
tells the engine each card as it is dealt and each player's act; the engine says who gets
the next card, settles every hand with the banker, and passes the bank as the book says.

Events (`engine/cards/twenty_one_events.py`; the vocabulary of docs/cards/twenty_one.md):

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

from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards.core import Card, CardEvent, ShoeCount, codes
from engine.cards.twenty_one_events import (
    DoubleEvent,
    Hand,
    RefuseEvent,
    SellEvent,
    SplitEvent,
    StakeEvent,
    StandEvent,
    parse_event,
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
from engine.core import (
    JSON,
    Awaiting,
    Event,
    LawRef,
    Operation,
    Outcome,
    Ruling,
    check_players,
)
from engine.errors import IllegalEventError
from engine.rules import LoggedGame, LoggedState, best_off, names

BANKER = "banker"
#: The stakes `legal_events` offers; a table may stake any whole amount up to the limit.
SAMPLE_STAKES = (1, 5)
FAMILY = "banking-cards"


class TwentyOneState(LoggedState):
    """A session of Vingt-et-Un (or a variant): hands dealt one after another against a bank."""

    game: TwentyOneGame
    rules: TwentyOneRules

    def __init__(self, game: TwentyOneGame, rules: TwentyOneRules,
                 players: Sequence[str]) -> None:
        self.game = game
        self.rules = rules
        self.players = list(players)
        self.history: list[Event] = []
        self.net = {name: 0 for name in self.players}
        #: Quinze: how often the stakes between two players have been doubled by ties.
        self.carry: dict[str, int] = {}
        self.seat = 0
        self.proper = 0
        self.hand_no = 0
        self.tenure_hands = 0
        self.tenures = 0
        self.run_outs = 0
        self.pool = 0
        self.ante_due = rules.pool
        self.over = False
        self.last: dict[str, list[str]] = {}
        self.shoe = self._fresh_shoe()
        self._start_hand()

    # -- where the hand stands

    @property
    def banker(self) -> str:
        return self.players[self.seat]

    def _fresh_shoe(self) -> ShoeCount:
        two = self.rules.limiting and self.rules.limit_by == "two-packs"
        return ShoeCount(packs=2 if two else 1)

    def _start_hand(self) -> None:
        count = len(self.players)
        order = [self.players[(self.proper + k) % count] for k in range(1, count + 1)]
        self.punters = [name for name in order if name != self.banker]
        self.hands: dict[str, Hand] = {name: Hand(name, name) for name in self.punters}
        self.hands[BANKER] = Hand(BANKER, self.banker)
        if self.rules.fixed_stakes:
            for name in self.punters:
                self.hands[name].stake = self.rules.stake * 2 ** self.carry.get(
                    self._pair(name), 0)
        self.doubled = False
        self.dealt = False
        self.holder: str | None = None
        self.banker_natural = False
        self.started = False

    def _pair(self, punter: str) -> str:
        """The key of the stakes between `punter` and the banker, whoever deals."""
        return "|".join(sorted((punter, self.banker)))

    def _in_deal(self) -> list[Hand]:
        """The hands receiving the first cards, in the order they are dealt."""
        found = [self.hands[name] for name in self.punters
                 if self.hands[name].status != "refused"]
        return [*found, self.hands[BANKER]]

    def _second_round(self) -> bool:
        """Whether a card of the second round (or later) has been dealt this hand."""
        return self.dealt or any(len(h.cards) > 1 for h in self._in_deal())

    def _next_in_deal(self) -> Hand | None:
        for round_ in range(self.rules.first_cards):
            for hand in self._in_deal():
                if len(hand.cards) == round_:
                    return hand
        return None

    def _player_hands(self, player: str) -> list[Hand]:
        return [h for h in self.hands.values() if h.owner == player and h.name != BANKER]

    def _in_turn(self) -> str | None:
        """The punter whose turn it is to draw, or None once every punter is done."""
        for name in self.punters:
            if any(h.status == "open" for h in self._player_hands(name)):
                return name
        return None

    def _active(self, player: str) -> Hand | None:
        return next((h for h in self._player_hands(player) if h.status == "open"), None)

    def _least(self, hand: Hand) -> int:
        return 2 if hand.divided else self.rules.first_cards

    def _targets(self) -> tuple[list[str], str]:
        """The hands that may take the next card, and why no other may."""
        if not self.dealt:
            hand = self._next_in_deal()
            if hand is None:
                return [], "the first cards are dealt"
            unstaked = [h.name for h in self._in_deal() if h.name != BANKER and not h.stake]
            if hand.cards and unstaked:
                return [], (f"{names(unstaked)} {'has' if len(unstaked) == 1 else 'have'} no "
                            "stake; the stakes are put up before the second round")
            return [hand.name], f"the next card of the deal goes to {hand.name}"
        player = self._in_turn()
        if player is not None:
            active = self._active(player)
            assert active is not None
            found = [active.name, *(h.name for h in self._player_hands(player)
                                    if h.status == "open" and len(h.cards) == 1
                                    and h is not active)]
            return found, f"it is {player}'s turn to draw ({active.name})"
        if self.hands[BANKER].status == "open":
            return [BANKER], f"it is the banker's ({self.banker}'s) turn to draw"
        return [], "the hand is over"

    def where(self) -> str:
        if self.over:
            return "the game is over"
        return f"hand {self.hand_no + 1}, {self.banker} holds the bank; {self._targets()[1]}"

    # -- the shoe

    def _live_cards(self) -> list[Card]:
        return [card for h in self.hands.values() if h.status in ("open", "stood")
                for card in h.cards]

    def _shoe_for_next(self) -> tuple[ShoeCount, bool]:
        """The count the next card comes from, and whether the used cards are shuffled first.

        The last card of the pack is not dealt: it goes to the pone with the used cards,
        which he shuffles for the dealer (Round Games 934).
        """
        if self.shoe.left > 1:
            return self.shoe, False
        fresh = ShoeCount(self.shoe.packs)
        for card in self._live_cards():
            fresh.add(card, "a card in play")
        return fresh, True

    # -- parsing and verifying

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        hands = [BANKER, *self.players, *(h for h in self.hands if h not in self.players)]
        return parse_event(data, self.players, hands, self.game.name, self.rules.limit)

    def verify(self, event: Event) -> None:
        if self.over:
            raise IllegalEventError(f"{event.type}: the game is over")
        if isinstance(event, CardEvent):
            self._verify_card(event)
        elif isinstance(event, StakeEvent):
            self._verify_stake(event)
        elif isinstance(event, DoubleEvent):
            self._verify_double(event)
        elif isinstance(event, RefuseEvent):
            self._verify_refuse(event)
        elif isinstance(event, StandEvent):
            self._verify_stand(event)
        elif isinstance(event, SplitEvent):
            self._verify_split(event)
        elif isinstance(event, SellEvent):
            self._verify_sale(event)
        else:
            raise IllegalEventError(f"{self.game.name} cannot apply {event!r}")

    def _verify_card(self, event: CardEvent) -> None:
        where = f"card {event.card} to {event.to}"
        hand = self.hands.get(event.to)
        if hand is None:
            why = (f"{event.to} holds the bank; his cards go to \"banker\""
                   if event.to == self.banker else f"there is no hand {event.to} this deal")
            raise IllegalEventError(f"{where}: {why}")
        if hand.status != "open":
            raise IllegalEventError(f"{where}: that hand is closed ({hand.status})")
        targets, why = self._targets()
        if event.to not in targets:
            raise IllegalEventError(f"{where}: {why}")
        shoe, _ = self._shoe_for_next()
        shoe.check(event.card, where)

    def _verify_stake(self, event: StakeEvent) -> None:
        where = f"bet of {event.amount} by {event.player}"
        if self.rules.fixed_stakes:
            raise IllegalEventError(f"{where}: at {self.game.name} the stake is agreed and "
                                    f"equal each deal (option stake, {self.rules.stake})")
        if event.player == self.banker:
            raise IllegalEventError(f"{where}: the banker takes the stakes, he puts up none")
        hand = self.hands[event.player]
        if hand.status == "refused":
            raise IllegalEventError(f"{where}: he has refused the double and is out of the hand")
        if self.doubled or self._second_round():
            when = "banker calls double" if self.doubled else "second card is dealt"
            raise IllegalEventError(f"{where}: the stakes are settled once the {when}")
        if hand.stake + event.amount > self.rules.limit:
            raise IllegalEventError(f"{where}: the limit is {self.rules.limit} on a card, and he "
                                    f"has {hand.stake} up")

    def _verify_double(self, event: DoubleEvent) -> None:
        where = f"double called by {event.player}"
        if self.rules.double_call == "none":
            raise IllegalEventError(f"{where}: {self.game.name} has no double call")
        if event.player != self.banker:
            raise IllegalEventError(f"{where}: only the banker ({self.banker}) calls double")
        if self.doubled:
            raise IllegalEventError(f"{where}: he has called it already this hand")
        if not self.hands[BANKER].cards or self._second_round():
            raise IllegalEventError(f"{where}: he calls it after seeing his first card and "
                                    "before the second round")
        unstaked = [name for name in self.punters if self.hands[name].stake == 0]
        if unstaked:
            raise IllegalEventError(f"{where}: {names(unstaked)} must stake first")

    def _verify_refuse(self, event: RefuseEvent) -> None:
        where = f"{event.player} refuses to double"
        if self.rules.double_call != "forfeit":
            raise IllegalEventError(f"{where}: at {self.game.name} the players add the double; "
                                    "none may refuse")
        if not self.doubled or self._second_round():
            raise IllegalEventError(f"{where}: there is no double call to refuse now")
        hand = self.hands.get(event.player)
        if hand is None or hand.owner == self.banker or hand.status == "refused":
            raise IllegalEventError(f"{where}: he has no stake up to forfeit")

    def _verify_stand(self, event: StandEvent) -> None:
        where = f"{event.player} stands"
        if not self.dealt:
            raise IllegalEventError(f"{where}: the first cards are still being dealt")
        in_turn = self._in_turn()
        if in_turn is None and event.player == self.banker \
                and self.hands[BANKER].status == "open":
            return
        if event.player != in_turn:
            raise IllegalEventError(f"{where}: {self._targets()[1]}")
        active = self._active(event.player)
        assert active is not None
        if len(active.cards) < self._least(active):
            raise IllegalEventError(f"{where}: {active.name} has {len(active.cards)} card; its "
                                    "second comes first")

    def _verify_split(self, event: SplitEvent) -> None:
        where = f"{event.player} divides his pair"
        rules = self.rules
        if rules.split_stake == "none":
            raise IllegalEventError(f"{where}: {self.game.name} has no dividing of pairs")
        if not self.dealt or event.player != self._in_turn():
            raise IllegalEventError(f"{where}: {self._targets()[1]}")
        active = self._active(event.player)
        assert active is not None
        if len(active.cards) != 2 or active.cards[0].rank != active.cards[1].rank:
            raise IllegalEventError(f"{where}: {active.name} holds "
                                    f"{' '.join(codes(active.cards))}, not a pair in its first "
                                    "two cards")
        if len(self._player_hands(event.player)) >= rules.max_hands:
            raise IllegalEventError(f"{where}: he has {rules.max_hands} hands, the most the "
                                    "book allows")
        if rules.split_stake == "equal" and event.amount not in (None, active.stake):
            raise IllegalEventError(f"{where}: he must bet an equal amount ({active.stake}) "
                                    f"on each, not {event.amount}")
        if rules.split_stake == "any" and event.amount is None:
            raise IllegalEventError(f"{where}: he names the separate stake on the new hand "
                                    "(amount)")

    def _verify_sale(self, event: SellEvent) -> None:
        where = f"{event.player} sells the deal to {event.buyer}"
        if not self.rules.selling:
            raise IllegalEventError(f"{where}: {self.game.name} has no selling of the deal")
        if self.tenure_hands or self.started or self.seat != self.proper:
            raise IllegalEventError(f"{where}: the deal is sold before its first card")
        if event.player != self.banker:
            raise IllegalEventError(f"{where}: it is {self.banker}'s deal to sell")
        if event.buyer == event.player:
            raise IllegalEventError(f"{where}: he cannot buy his own deal")

    # -- applying

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        self.history.append(event)
        rulings: list[Ruling] = []
        if isinstance(event, SellEvent):
            rulings.append(self._sell(event))
        else:
            if not self.started:
                self.started = True
                rulings.extend(self._ante())
            if isinstance(event, CardEvent):
                rulings.extend(self._card(event))
            elif isinstance(event, StakeEvent):
                rulings.append(self._stake(event))
            elif isinstance(event, DoubleEvent):
                rulings.append(self._double())
            elif isinstance(event, RefuseEvent):
                rulings.append(self._refuse(event.player))
            elif isinstance(event, StandEvent):
                rulings.extend(self._stand(event.player))
            else:
                assert isinstance(event, SplitEvent)
                rulings.append(self._split(event))
        return Operation(event, tuple(rulings))

    def _pay(self, player: str, gain: int) -> None:
        """`player` wins `gain` from the banker (loses, when negative)."""
        self.net[player] += gain
        self.net[self.banker] -= gain

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
        self.net[event.buyer] -= event.amount
        self.net[event.player] += event.amount
        self._start_hand()
        law = self.rules.laws.sale
        assert law is not None
        return Ruling("sale", event.buyer, event.amount,
                      f"{event.player} sells his deal to {event.buyer} for {event.amount}; "
                      f"{event.buyer} deals from his own seat, beginning on {event.player}'s "
                      f"left, until he loses it; then the deal goes on from {event.player}.",
                      law)

    def _stake(self, event: StakeEvent) -> Ruling:
        hand = self.hands[event.player]
        hand.stake += event.amount
        raised = hand.stake != event.amount
        text = (f"{event.player} {'increases his stake to' if raised else 'puts up'} "
                f"{hand.stake}" + (f" (raised by {event.amount})" if raised else "")
                + f"; the limit is {self.rules.limit}.")
        return Ruling("bet", event.player, event.amount, text, self.rules.laws.deal)

    def _double(self) -> Ruling:
        self.doubled = True
        for name in self.punters:
            self.hands[name].stake *= 2
        refusal = (" Any who refuse forfeit what they have put up."
                   if self.rules.double_call == "forfeit" else "")
        return Ruling("double", self.banker, None,
                      f"{self.banker}, having seen his first card, calls on all to double: "
                      f"every stake is doubled.{refusal}", self.rules.laws.double)

    def _refuse(self, player: str) -> Ruling:
        hand = self.hands[player]
        hand.status = "refused"
        forfeit = hand.stake // 2
        hand.stake = 0
        self._pay(player, -forfeit)
        return Ruling("refused", player, -forfeit,
                      f"{player} refuses to double: {self.banker} takes the {forfeit} he had "
                      "put up, and he is out of the hand.", self.rules.laws.double)

    def _card(self, event: CardEvent) -> list[Ruling]:
        rulings: list[Ruling] = []
        shoe, shuffled = self._shoe_for_next()
        if shuffled:
            self.shoe = shoe
            self.run_outs += 1
            rulings.append(Ruling(
                "reshuffle", None, shoe.left,
                "The pack is down to its last card, which is not dealt: the pone shuffles it "
                f"with the used cards ({shoe.left} cards) for the dealer.", self.rules.laws.pack))
        self.shoe.add(event.card, f"card {event.card}")
        hand = self.hands[event.to]
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
            self._pay(hand.owner, -hand.stake)
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

    def _naturals(self) -> list[Ruling]:
        rules, laws = self.rules, self.rules.laws
        banker = self.hands[BANKER]
        bank_rate = rules.natural_rate(banker.cards)
        self.banker_natural = bank_rate > 0
        rulings: list[Ruling] = []
        first_hand = rules.natural_puts_out and self.tenure_hands == 0
        holders: list[Hand] = []
        for name in self.punters:
            hand = self.hands[name]
            if hand.status != "open":
                continue
            rate = rules.natural_rate(hand.cards)
            if not rate and not bank_rate:
                continue
            shown = " ".join(codes(hand.cards))
            hand.status = "settled"
            if rate and rate == bank_rate:
                rulings.append(Ruling("stand-off", name, 0,
                                      f"{name}'s natural ({shown}) meets the banker's: a "
                                      "stand-off, nothing paid.", laws.natural))
            elif rate > bank_rate:
                holders.append(hand)
                paid = rate
                text = f"{name} shows a natural ({shown})"
                if first_hand:
                    paid = 2 if rules.drawn_21 == "double" else 1
                    text += (" in the first hand of the deal: paid as a drawn Vingt-un, and "
                             f"{self.banker} keeps the deal")
                self._pay(name, paid * hand.stake)
                rulings.append(Ruling("natural", name, paid * hand.stake,
                                      f"{text}; {self.banker} pays him {paid} times his stake "
                                      f"of {hand.stake}: {paid * hand.stake}.",
                                      laws.first_hand if first_hand else laws.natural))
            else:
                self._pay(name, -bank_rate * hand.stake)
                rulings.append(Ruling("banker-natural", name, -bank_rate * hand.stake,
                                      f"{self.banker} shows a natural "
                                      f"({' '.join(codes(banker.cards))}): {name} pays him "
                                      f"{bank_rate} times his stake of {hand.stake}.",
                                      laws.banker_natural))
        if holders:
            self.holder = holders[0].owner
            if rules.natural_puts_out and not first_hand:
                rulings.extend(self._pool_to(self.holder))
            if rules.bonus:
                rulings.extend(self._bonus(holders))
        if bank_rate:
            banker.status = "stood"
            return [*rulings, *self._end_hand()]
        return rulings + self._advance()

    def _pool_to(self, holder: str) -> list[Ruling]:
        if not self.rules.pool or not self.pool:
            return []
        won, self.pool = self.pool, 0
        self.net[holder] += won
        law = self.rules.laws.pool
        assert law is not None
        return [Ruling("pool", holder, won, f"{holder}'s natural puts the dealer out and takes "
                       f"the pool: {won}.", law)]

    def _bonus(self, holders: list[Hand]) -> list[Ruling]:
        rules = self.rules
        law = rules.laws.bonus
        assert law is not None
        times = 2 if rules.natural_bonus == "double" else 1
        exempt = {hand.owner for hand in holders}
        payers = [name for name in self.punters
                  if name not in exempt and self.hands[name].status != "refused"]
        if rules.bonus_from_dealer:
            payers.append(self.banker)
        rulings = []
        for hand in holders:
            each = times * hand.stake
            for payer in payers:
                self.net[payer] -= each
                self.net[hand.owner] += each
            rulings.append(Ruling("bonus", hand.owner, each * len(payers),
                                  f"{hand.owner}'s natural takes {each} from each of "
                                  f"{names(payers) or 'no one'} (other Vingt-uns are exempt).",
                                  law))
        return rulings

    def _stand(self, player: str) -> list[Ruling]:
        rules = self.rules
        if self._in_turn() is None:
            banker = self.hands[BANKER]
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
        active = self._active(event.player)
        assert active is not None
        count = len(self._player_hands(event.player)) + 1
        stake = active.stake if event.amount is None else event.amount
        new = Hand(f"{event.player}/{count}", event.player, [active.cards.pop()], stake,
                   divided=True)
        active.divided = True
        items = list(self.hands.items())
        last = max(i for i, (_, h) in enumerate(items) if h.owner == event.player)
        items.insert(last + 1, (new.name, new))
        self.hands = dict(items)
        return Ruling("split", event.player, stake,
                      f"{event.player} divides his pair of {new.cards[0].rank}s: {new.name} "
                      f"stakes {stake}; each hand takes a second card and is played in turn.",
                      self.rules.laws.split)

    def _advance(self) -> list[Ruling]:
        """After a punter's hand closes: the banker's turn, or the end if no one waits for him."""
        if self._in_turn() is not None:
            return []
        waiting = [h for h in self.hands.values() if h.name != BANKER
                   and h.status in ("stood", "bust")]
        if waiting:
            return []
        self.hands[BANKER].status = "stood"
        return self._end_hand()

    def _settle(self, banker_bust: bool) -> list[Ruling]:
        rules, laws = self.rules, self.rules.laws
        banker = self.hands[BANKER]
        bank_total = rules.total(banker.cards)
        rulings: list[Ruling] = []
        if banker_bust:
            rulings.append(Ruling("banker-bust", self.banker, bank_total,
                                  f"The banker counts {bank_total}, past {rules.target}: he "
                                  "pays all who are standing.", laws.settle))
            if rules.pool and rules.overdraw_penalty:
                self.net[self.banker] -= rules.overdraw_penalty
                self.pool += rules.overdraw_penalty
                assert laws.pool is not None
                rulings.append(Ruling("pool", self.banker, rules.overdraw_penalty,
                                      f"The dealer has over-drawn: he pays "
                                      f"{rules.overdraw_penalty} to the pool.", laws.pool))
        for hand in self.hands.values():
            if hand.name != BANKER and hand.status in ("stood", "bust"):
                rulings.extend(self._settle_hand(hand, bank_total, banker_bust))
        return rulings + self._end_hand()

    def _settle_hand(self, hand: Hand, bank: int, banker_bust: bool) -> list[Ruling]:
        rules, laws = self.rules, self.rules.laws
        total = rules.total(hand.cards)
        hand.status = "settled"

        def double(count: int) -> int:
            return 2 if rules.drawn_21 == "double" and count == 21 else 1

        if (total > rules.target and banker_bust) or (total == bank and rules.fixed_stakes):
            pair = self._pair(hand.owner)
            self.carry[pair] = self.carry.get(pair, 0) + 1
            why = "both are past 15" if banker_bust else f"a tie at {total}"
            return [Ruling("stand-off", hand.owner, 0,
                           f"{hand.name} v the dealer: {why}; the stakes are doubled for the "
                           f"next deal ({hand.stake * 2}).", laws.ties)]
        self.carry.pop(self._pair(hand.owner), None)
        times = 1
        if total > rules.target:
            gain = -hand.stake
            text = f"{hand.name} is past {rules.target} and the dealer is not"
        elif banker_bust:
            times = double(total)
            gain = hand.stake * times
            text = f"{hand.name} stands at {total}, the banker is burst"
        elif total > bank:
            times = double(total)
            gain = hand.stake * times
            text = f"{hand.name}'s {total} is nearer {rules.target} than the banker's {bank}"
        elif total < bank:
            times = double(bank)
            gain = -hand.stake * times
            text = f"the banker's {bank} beats {hand.name}'s {total}"
        elif rules.ties == "dealer":
            gain = -hand.stake
            text = f"{hand.name} ties the banker at {total}, and the dealer takes ties"
        else:
            return [Ruling("stand-off", hand.owner, 0,
                           f"{hand.name} ties the banker at {total}: a stand-off.", laws.ties)]
        if times == 2:
            law, text = laws.drawn, text + " (a drawn Vingt-un, paid double)"
        else:
            law = laws.settle if banker_bust else laws.ties
        self._pay(hand.owner, gain)
        paid = (f"{self.banker} pays {hand.owner} {gain}" if gain > 0
                else f"{hand.owner} pays {self.banker} {-gain}")
        rulings = [Ruling("won" if gain > 0 else "lost", hand.owner, gain,
                          f"{text}: {paid}.", law)]
        if gain < 0 and total == bank and rules.pool and rules.tie_share != "none":
            share = -gain // (4 if rules.tie_share == "quarter" else 3)
            if share:
                self.net[self.banker] -= share
                self.pool += share
                assert laws.pool is not None
                rulings.append(Ruling("pool", self.banker, share,
                                      f"The dealer received {-gain} on a tie: he pays a "
                                      f"{rules.tie_share} of it, {share}, to the pool.",
                                      laws.pool))
        return rulings

    # -- the end of a hand, of a deal, of the session

    def _end_hand(self) -> list[Ruling]:
        rules, laws = self.rules, self.rules.laws
        rulings: list[Ruling] = []
        self.last = {h.name: codes(h.cards) for h in self.hands.values() if h.cards}
        self.hand_no += 1
        self.tenure_hands += 1
        passes_to: int | None = None
        why = ""
        law = laws.bank
        count = len(self.players)
        left = (self.proper + 1) % count
        if rules.round_games:
            if rules.limiting:
                law = laws.limit or law
                need = {"hands": None, "twice-through": 2, "two-packs": 1}[rules.limit_by]
                if need is None and self.tenure_hands >= rules.hands:
                    passes_to, why = left, f"{self.banker} has dealt his {rules.hands} hands"
                elif need is not None and self.run_outs >= need:
                    passes_to, why = left, f"{self.banker} has gone through his cards"
            elif self.holder is not None and not self.banker_natural \
                    and self.tenure_hands > 1:
                to_holder = rules.deal_passes_to == "holder"
                passes_to = self.players.index(self.holder) if to_holder else left
                why = f"{self.holder}'s natural puts {self.banker} out"
        elif rules.bank_passes == "each-deal":
            passes_to, why = left, "each deals one hand in turn"
        elif self.holder is not None and not self.banker_natural:
            passes_to = self.players.index(self.holder)
            why = f"{self.holder} shows a natural and the banker has none"
        if passes_to is not None:
            self.tenures += 1
            self.seat = self.proper = passes_to
            self.tenure_hands = 0
            if rules.limiting and rules.limit_by != "hands":
                self.shoe, self.run_outs = self._fresh_shoe(), 0
            self.ante_due = rules.pool
            if count > 1:
                rulings.append(Ruling("bank-passes", self.banker, None,
                                      f"{why}: the deal passes to {self.banker}.", law))
        if not rules.continuous_pack:
            self.shoe = self._fresh_shoe()
        self.over = self.hand_no >= rules.deals or (
            rules.round_games and self.tenures >= rules.rounds * count)
        if self.over:
            rulings.extend(self._finish())
        self._start_hand()
        return rulings

    def _finish(self) -> list[Ruling]:
        laws = self.rules.laws
        rulings: list[Ruling] = []
        if self.pool:
            share = self.pool // len(self.players)
            for name in self.players:
                self.net[name] += share
            self.pool -= share * len(self.players)
            assert laws.pool is not None
            rulings.append(Ruling("pool", None, share,
                                  f"The game ends: the pool is divided, {share} to each"
                                  + (f"; {self.pool} cannot be divided and stays."
                                     if self.pool else "."), laws.pool))
        outcome = self.outcome()
        assert outcome is not None
        best = outcome.scores[outcome.winners[0]]
        verb = "is" if len(outcome.winners) == 1 else "are"
        rulings.append(Ruling("winner", ", ".join(outcome.winners), best,
                              f"After {self.hand_no} hands the game ends: "
                              f"{names(list(outcome.winners))} {verb} best off, at {best:+d}.",
                              laws.session))
        return rulings

    # -- what the table may report next

    def legal_events(self) -> list[Event]:
        if self.over:
            return []
        found: list[Event] = []
        targets, _ = self._targets()
        if targets:
            shoe, _ = self._shoe_for_next()
            cards = list(shoe.remaining())
            found.extend(CardEvent(to, card) for to in targets for card in cards)
        # Only the kinds of act this stage of the hand can take are tried.
        offered: list[Event] = []
        for name in self.players:
            if self.dealt:
                offered.append(StandEvent(name))
                if self.rules.split_stake != "none":
                    offered.extend(SplitEvent(name, amount) for amount in (None, *SAMPLE_STAKES))
                continue
            offered.extend(StakeEvent(name, amount) for amount in SAMPLE_STAKES)
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
                             if self.hands[name].stake == 0
                             and self.hands[name].status != "refused")
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

    def outcome(self) -> Outcome | None:
        return best_off(self.net) if self.over else None

    def snapshot(self) -> JSON:
        rules = self.rules
        outcome = self.outcome()
        hands = {h.name: codes(h.cards) for h in self.hands.values()}
        turn = None
        if self.dealt and not self.over:
            player = self._in_turn()
            active = self._active(player) if player is not None else None
            turn = active.name if active is not None else BANKER
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": list(self.players), "options": rules.options(),
            "banker": None if self.over else self.banker,
            "dealer_of_record": None if self.over else self.players[self.proper],
            "hands": hands,
            "totals": {name: rules.total(self.hands[name].cards) for name in hands},
            "status": {name: self.hands[name].status for name in hands},
            "turn": turn,
            "last_hand": self.last,
            "bets": [{"player": h.owner, "on": h.name, "amount": h.stake}
                     for h in self.hands.values() if h.name != BANKER and h.stake],
            "doubled": self.doubled,
            "hand": self.hand_no + (0 if self.over else 1),
            "pool": self.pool,
            "sheet": [{"player": name, "total": self.net[name]} for name in self.players],
            "over": self.over,
            "winners": list(outcome.winners) if outcome else [],
            "shoe": {"packs": self.shoe.packs, "dealt": self.shoe.dealt,
                     "left": self.shoe.left},
        }


class TwentyOneGame(LoggedGame[TwentyOneState]):
    """Vingt-et-Un or one of its variants; its `rules` are the variant."""

    family = FAMILY
    rules: TwentyOneRules

    def seated(self, players: Sequence[str]) -> list[str]:
        seated = check_players(players, "at one table")
        for name in seated:
            if name == BANKER or "/" in name:
                raise IllegalEventError(f"{self.name}: a player may not be called {name!r}; "
                                        "\"banker\" and names with \"/\" name hands")
        return seated

    def start(self, rules: TwentyOneRules, players: Sequence[str]) -> TwentyOneState:
        return TwentyOneState(self, rules, players)

    def own_laws(self) -> tuple[LawRef, ...]:
        return self.rules.laws.all()


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
