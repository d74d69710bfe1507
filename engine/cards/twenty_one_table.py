"""The Vingt-et-Un table: the hands of the deal, whose card or turn is next, what may happen.

`TwentyOneTable` is a session's position on the banking family's base (`engine/cards/bank.py`):
who holds the bank, the hands of the deal and their stakes, the pack that runs on from hand
to hand at Vingt-un, and the checks each event passes before it is applied.
`engine/cards/twenty_one_settle.py` settles the hands; `engine/cards/twenty_one.py` plays
the events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.cards.bank import ActEvent, BankState, BetEvent, StandEvent, parse_amount
from engine.cards.core import CardEvent, ShoeCount, codes
from engine.cards.twenty_one_events import (
    DoubleEvent,
    Hand,
    RefuseEvent,
    SellEvent,
    SplitEvent,
    parse_sale,
    parse_split,
)
from engine.cards.twenty_one_rules import TwentyOneRules
from engine.core import Event
from engine.errors import IllegalEventError
from engine.rules import names, parse_player

BANKER = "banker"


class TwentyOneTable(BankState):
    """A session of Vingt-et-Un (or a variant): hands dealt one after another against a bank."""

    rules: TwentyOneRules
    ACTS: ClassVar[Mapping[str, type[ActEvent]]] = {
        "double": DoubleEvent, "refuse": RefuseEvent, "stand": StandEvent}
    OTHERS = ("split", "sell")

    def new_shoe(self) -> ShoeCount:
        two = self.rules.limiting and self.rules.limit_by == "two-packs"
        return ShoeCount(packs=2 if two else 1)

    def start(self) -> None:
        #: Quinze: how often the stakes between two players have been doubled by ties.
        self.carry: dict[str, int] = {}
        self.seat = 0
        self.proper = 0
        self.tenure_hands = 0
        self.tenures = 0
        self.run_outs = 0
        self.pool = 0
        self.ante_due = self.rules.pool
        self.last: dict[str, list[str]] = {}
        self._start_hand()

    # -- where the hand stands

    @property
    def banker(self) -> str:
        return self.players[self.seat]

    def _start_hand(self) -> None:
        count = len(self.players)
        order = [self.players[(self.proper + k) % count] for k in range(1, count + 1)]
        self.punters = [name for name in order if name != self.banker]
        self.table: dict[str, Hand] = {name: Hand(name, name) for name in self.punters}
        self.table[BANKER] = Hand(BANKER, self.banker)
        if self.rules.fixed_stakes:
            for name in self.punters:
                self.table[name].stake = self.rules.stake * 2 ** self.carry.get(
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
        found = [self.table[name] for name in self.punters
                 if self.table[name].status != "refused"]
        return [*found, self.table[BANKER]]

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
        return [h for h in self.table.values() if h.owner == player and h.name != BANKER]

    def _in_turn(self) -> str | None:
        """The punter whose turn it is to draw, or None once every punter is done."""
        for name in self.punters:
            if any(h.status == "open" for h in self._player_hands(name)):
                return name
        return None

    def _active(self, player: str) -> Hand | None:
        return next((h for h in self._player_hands(player) if h.status == "open"), None)

    def _owner(self, name: str) -> str:
        """The player who acts under `name`: a player, the banker for "banker", or the owner
        of a divided hand ("Bob/2")."""
        if name in self.players:
            return name
        if name == BANKER:
            return self.banker
        hand = self.table.get(name)
        return hand.owner if hand is not None else name

    def _acting_owner(self, name: str, where: str) -> str:
        """The player who takes an act by `name` (`_owner`), once the name is checked: a
        player, or a hand of this deal that is in play.

        A divided hand that acts by its own name must be the hand in play: the hands of a
        divided pair are drawn to one after another (Hoyle 18000-18001, Round Games 932).
        """
        if name in self.players:
            return name
        hand = self.table.get(name)
        if hand is None:
            raise IllegalEventError(f"{where}: there is no hand {name} this deal")
        if hand.name != BANKER and hand is not self._active(hand.owner):
            raise IllegalEventError(f"{where}: {name} is not the hand in play; "
                                    f"{self._targets()[1]}")
        return self._owner(name)

    def _turn_hand(self) -> str | None:
        """The name of the hand in play once the first cards are dealt, or None."""
        if not self.dealt or self.over:
            return None
        player = self._in_turn()
        active = self._active(player) if player is not None else None
        return active.name if active is not None else BANKER

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
        if self.table[BANKER].status == "open":
            return [BANKER], f"it is the banker's ({self.banker}'s) turn to draw"
        return [], "the hand is over"

    def where(self) -> str:
        if self.over:
            return "the game is over"
        return f"hand {self.coups + 1}, {self.banker} holds the bank; {self._targets()[1]}"

    # -- the cards

    def card_hands(self) -> Sequence[str]:
        return [BANKER, *self.players, *(h for h in self.table if h not in self.players)]

    def hands(self) -> dict[str, list[str]]:
        return {h.name: codes(h.cards) for h in self.table.values()}

    def on_table(self) -> list[CardEvent]:
        """The cards of the hands still in play, which a reshuffle leaves out of the pack."""
        return [CardEvent(h.name, card) for h in self.table.values()
                if h.status in ("open", "stood") for card in h.cards]

    def next_shoe(self) -> ShoeCount:
        """The pack, or, when it is down to its last card, the used cards shuffled again.

        The last card of the pack is not dealt: it goes to the pone with the used cards,
        which he shuffles for the dealer (Round Games 934).
        """
        return self.shoe if self.shoe.left > 1 else self.reshuffled()

    # -- parsing and verifying

    def parse_bet(self, data: Mapping[str, Any]) -> Event:
        player = str(parse_player(data, self.players, "bet"))
        if data.get("on", "hand") != "hand":
            raise IllegalEventError(f"bet: {self.game.name} takes a stake on the hand "
                                    f"(\"on\": \"hand\"), not on {data.get('on')!r}")
        return BetEvent(player, "hand", parse_amount(data, "bet", self.rules.limit))

    def parse_actor(self, data: Mapping[str, Any], kind: str) -> str:
        """A player, or a hand of this deal by name: "banker", a divided hand ("Bob/2").

        A player's name means his hand in play, as it always has; a hand's name says which
        hand acts (and is refused unless it is the hand in play).
        """
        name = data.get("player")
        if isinstance(name, str) and (name in self.players or name in self.table):
            return name
        raise IllegalEventError(f"{kind}: unknown player or hand {name!r}; the players are "
                                f"{', '.join(self.players)}, the hands of this deal "
                                f"{', '.join(self.table)}")

    def parse_other(self, kind: str, data: Mapping[str, Any]) -> Event:
        if kind == "split":
            return parse_split(data, self.parse_actor(data, kind), self.rules.limit)
        return parse_sale(data, self.players, self.rules.limit)

    def verify_play(self, event: Event) -> None:
        if isinstance(event, CardEvent):
            self._verify_card(event)
        elif isinstance(event, BetEvent):
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
        hand = self.table.get(event.to)
        if hand is None:
            why = (f"{event.to} holds the bank; his cards go to \"banker\""
                   if event.to == self.banker else f"there is no hand {event.to} this deal")
            raise IllegalEventError(f"{where}: {why}")
        if hand.status != "open":
            raise IllegalEventError(f"{where}: that hand is closed ({hand.status})")
        targets, why = self._targets()
        if event.to not in targets:
            raise IllegalEventError(f"{where}: {why}")

    def _verify_stake(self, event: BetEvent) -> None:
        where = f"bet of {event.amount} by {event.player}"
        if self.rules.fixed_stakes:
            raise IllegalEventError(f"{where}: at {self.game.name} the stake is agreed and "
                                    f"equal each deal (option stake, {self.rules.stake})")
        if event.player == self.banker:
            raise IllegalEventError(f"{where}: the banker takes the stakes, he puts up none")
        hand = self.table[event.player]
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
        owner = self._acting_owner(event.player, where)
        if self.rules.double_call == "none":
            raise IllegalEventError(f"{where}: {self.game.name} has no double call")
        if owner != self.banker:
            raise IllegalEventError(f"{where}: only the banker ({self.banker}) calls double")
        if self.doubled:
            raise IllegalEventError(f"{where}: he has called it already this hand")
        if not self.table[BANKER].cards or self._second_round():
            raise IllegalEventError(f"{where}: he calls it after seeing his first card and "
                                    "before the second round")
        unstaked = [name for name in self.punters if self.table[name].stake == 0]
        if unstaked:
            raise IllegalEventError(f"{where}: {names(unstaked)} must stake first")

    def _verify_refuse(self, event: RefuseEvent) -> None:
        where = f"{event.player} refuses to double"
        if self.rules.double_call != "forfeit":
            raise IllegalEventError(f"{where}: at {self.game.name} the players add the double; "
                                    "none may refuse")
        owner = self._acting_owner(event.player, where)
        if not self.doubled or self._second_round():
            raise IllegalEventError(f"{where}: there is no double call to refuse now")
        hand = self.table.get(owner)
        if hand is None or hand.owner == self.banker or hand.status == "refused":
            raise IllegalEventError(f"{where}: he has no stake up to forfeit")

    def _verify_stand(self, event: StandEvent) -> None:
        where = f"{event.player} stands"
        if not self.dealt:
            raise IllegalEventError(f"{where}: the first cards are still being dealt")
        owner = self._acting_owner(event.player, where)
        in_turn = self._in_turn()
        if in_turn is None and owner == self.banker and self.table[BANKER].status == "open":
            return
        if owner != in_turn:
            raise IllegalEventError(f"{where}: {self._targets()[1]}")
        active = self._active(owner)
        assert active is not None
        if len(active.cards) < self._least(active):
            raise IllegalEventError(f"{where}: {active.name} has {len(active.cards)} card; its "
                                    "second comes first")

    def _verify_split(self, event: SplitEvent) -> None:
        where = f"{event.player} divides his pair"
        rules = self.rules
        if rules.split_stake == "none":
            raise IllegalEventError(f"{where}: {self.game.name} has no dividing of pairs")
        owner = self._acting_owner(event.player, where)
        if not self.dealt or owner != self._in_turn():
            raise IllegalEventError(f"{where}: {self._targets()[1]}")
        active = self._active(owner)
        assert active is not None
        if len(active.cards) != 2 or active.cards[0].rank != active.cards[1].rank:
            raise IllegalEventError(f"{where}: {active.name} holds "
                                    f"{' '.join(codes(active.cards))}, not a pair in its first "
                                    "two cards")
        if len(self._player_hands(owner)) >= rules.max_hands:
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
