"""Settling a Vingt-et-Un hand: naturals, the banker's count against each hand, the pool, the bank.

`TwentyOneSettlement` adds to the table (`engine/cards/twenty_one_table.py`) what happens
once the first cards are out or the drawing is done: naturals and what they win (Macao's
three rates, the Round Games natural that puts the dealer out, its additional privileges),
each hand paid or taken against the banker's count, Pool's pool, the passing of the bank
and the end of the session.
"""

from __future__ import annotations

from engine.cards.core import codes
from engine.cards.twenty_one_events import Hand
from engine.cards.twenty_one_table import BANKER, TwentyOneTable
from engine.core import Ruling
from engine.rules import names


class TwentyOneSettlement(TwentyOneTable):
    """The table with its settling: what each hand wins or pays, who deals next, the end."""

    # -- naturals

    def _naturals(self) -> list[Ruling]:
        rules, laws = self.rules, self.rules.laws
        banker = self.table[BANKER]
        bank_rate = rules.natural_rate(banker.cards)
        self.banker_natural = bank_rate > 0
        rulings: list[Ruling] = []
        first_hand = rules.natural_puts_out and self.tenure_hands == 0
        holders: list[Hand] = []
        for name in self.punters:
            hand = self.table[name]
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
                self.pay(name, paid * hand.stake)
                rulings.append(Ruling("natural", name, paid * hand.stake,
                                      f"{text}; {self.banker} pays him {paid} times his stake "
                                      f"of {hand.stake}: {paid * hand.stake}.",
                                      laws.first_hand if first_hand else laws.natural))
            else:
                self.pay(name, -bank_rate * hand.stake)
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
                  if name not in exempt and self.table[name].status != "refused"]
        if rules.bonus_from_dealer:
            payers.append(self.banker)
        rulings = []
        for hand in holders:
            each = times * hand.stake
            for payer in payers:
                self.pay(hand.owner, each, payer)
            rulings.append(Ruling("bonus", hand.owner, each * len(payers),
                                  f"{hand.owner}'s natural takes {each} from each of "
                                  f"{names(payers) or 'no one'} (other Vingt-uns are exempt).",
                                  law))
        return rulings

    # -- the banker's count against each hand

    def _advance(self) -> list[Ruling]:
        """After a punter's hand closes: the banker's turn, or the end if no one waits for him."""
        if self._in_turn() is not None:
            return []
        waiting = [h for h in self.table.values() if h.name != BANKER
                   and h.status in ("stood", "bust")]
        if waiting:
            return []
        self.table[BANKER].status = "stood"
        return self._end_hand()

    def _settle(self, banker_bust: bool) -> list[Ruling]:
        rules, laws = self.rules, self.rules.laws
        banker = self.table[BANKER]
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
        for hand in self.table.values():
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
        self.pay(hand.owner, gain)
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
        self.last = {h.name: codes(h.cards) for h in self.table.values() if h.cards}
        self.coups += 1
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
                self.shoe, self.run_outs = self.new_shoe(), 0
            self.ante_due = rules.pool
            if count > 1:
                rulings.append(Ruling("bank-passes", self.banker, None,
                                      f"{why}: the deal passes to {self.banker}.", law))
        if not rules.continuous_pack:
            self.shoe = self.new_shoe()
        self.over = self.coups >= rules.deals or (
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
        rulings.append(self.end(laws.session, f"After {self.coups} hands the game ends"))
        return rulings
