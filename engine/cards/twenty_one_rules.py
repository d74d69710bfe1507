"""The rules of Vingt-et-Un as both books give it, Macao and Quinze, and Vingt-un's variations.

One `TwentyOneRules` is the variant (DESIGN section 4): Hoyle's Games (1940) and Round Games
with Cards (1897) disagree on ties, a drawn 21, the double call, splitting and the passing
of the deal, so each book's game is an instance, and Macao, Quinze, Pool, Limiting the Deal,
Selling the Deal and Additional Privileges for a Natural are instances too. Each instance
carries `Laws`: the lines of its own passage that its rulings cite.

>>> HOYLE.total(parse_codes("AS 6H")), HOYLE.total(parse_codes("AS 6H 9C"))
(17, 16)
>>> MACAO.total(parse_codes("KD 8S")), MACAO.natural_rate(parse_codes("4H 4C"))
(8, 2)
>>> HOYLE.natural_chances()
{2: Fraction(32, 663)}
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from engine.cards.bank import MAX_STAKE
from engine.cards.core import COURT, FULL_PACK, Card, parse_card
from engine.core import LawRef, hoyle_law, round_games_law
from engine.rules import HouseRules, Option, either, one_of, whole

#: The most hands a session may be set to last.
MAX_DEALS = 500
#: The most times the deal may be set to go round the table.
MAX_ROUNDS = 20
#: Naturals at Macao: two cards making 9, 8 or 7 win 3, 2 or 1 times the stake (18020-18023).
MACAO_RATES = {9: 3, 8: 2, 7: 1}


def parse_codes(text: str) -> list[Card]:
    """Cards from codes separated by spaces ("AS 10H"), for examples and tests."""
    return [parse_card(code) for code in text.split()]


# -- the laws each game cites ------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Laws:
    """The lines a variant's rulings cite, one per kind of ruling.

    A variation's passage says only what it changes ("In the game we have described..."):
    its rulings cite its own lines for that and the parent game's laws otherwise.
    """

    deal: LawRef
    double: LawRef
    natural: LawRef
    banker_natural: LawRef
    first_hand: LawRef
    draw: LawRef
    bust: LawRef
    settle: LawRef
    ties: LawRef
    drawn: LawRef
    split: LawRef
    bank: LawRef
    pack: LawRef
    session: LawRef
    pool: LawRef | None = None
    sale: LawRef | None = None
    limit: LawRef | None = None
    bonus: LawRef | None = None

    def all(self) -> tuple[LawRef, ...]:
        """Every law a ruling of the variant can cite, once each."""
        found = (getattr(self, f.name) for f in dataclasses.fields(self))
        return tuple(dict.fromkeys(law for law in found if law is not None))


HOYLE_LAWS = Laws(
    deal=hoyle_law(17947, 17957, "Vingt-et-Un: the stakes put up, one card down to each, the "
                                 "players may increase, a second card down"),
    double=hoyle_law(17953, 17955, "Vingt-et-Un: the banker may call on all to double; any who "
                                   "refuse, he takes what they have put up"),
    natural=hoyle_law(17968, 17972, "Vingt-et-Un: 21 in the first two cards is a natural; the "
                                    "banker pays double, a stand-off if he has one too"),
    banker_natural=hoyle_law(17972, 17974, "Vingt-et-Un: the banker's natural alone: all the "
                                           "players pay him twice what they staked"),
    first_hand=hoyle_law(17968, 17974, "Vingt-et-Un: naturals"),
    draw=hoyle_law(17976, 17987, "Vingt-et-Un: each player in turn stands or draws cards face "
                                 "up one at a time"),
    bust=hoyle_law(17981, 17984, "Vingt-et-Un: past 21 the player is burst and passes his "
                                 "stake to the banker"),
    settle=hoyle_law(17989, 17995, "Vingt-et-Un: the banker turns his cards and draws; if he "
                                   "bursts he pays all who have not passed 21"),
    ties=hoyle_law(17993, 17995, "Vingt-et-Un: the banker pays those nearer 21, wins from those "
                                 "not so many; ties are a stand-off"),
    drawn=hoyle_law(17997, 17997, "Vingt-et-Un: twenty-one made by drawing is not a natural"),
    split=hoyle_law(17999, 18001, "Vingt-et-Un: a pair in the first two cards may be divided, "
                                  "an equal amount bet on each"),
    bank=hoyle_law(18007, 18012, "Vingt-et-Un: the bank passes to a natural, or each deals one "
                                 "hand in turn to the left"),
    pack=hoyle_law(17947, 17948, "Vingt-et-Un: 52 cards"),
    session=hoyle_law(18009, 18012, "Vingt-et-Un: each banker for a certain number of deals"),
)

ROUND_GAMES_LAWS = Laws(
    deal=round_games_law(920, 922, "Vingt-un: one card down to each, each player stakes on it, "
                                   "a second card down to each"),
    double=round_games_law(922, 922, "Vingt-un: the dealer may call \"double\" and the players "
                                     "add the double to their stakes"),
    natural=round_games_law(924, 924, "Vingt-un: a player's natural: the dealer pays double and "
                                      "is put out, the deal passing to his left"),
    banker_natural=round_games_law(922, 922, "Vingt-un: the dealer's natural: double from each, "
                                             "but nothing between two naturals"),
    first_hand=round_games_law(938, 938, "Vingt-un: a natural in the first hand of a deal is "
                                         "paid as a drawn Vingt-un; the dealer keeps the deal"),
    draw=round_games_law(926, 926, "Vingt-un: each in turn from the dealer's left draws cards "
                                   "face up until content or over-drawn"),
    bust=round_games_law(926, 926, "Vingt-un: an over-draw pays the stake, or the double, to "
                                   "the dealer at once"),
    settle=round_games_law(928, 928, "Vingt-un: the dealer turns up his cards and stands or "
                                     "draws; over-drawn, he pays all who are standing"),
    ties=round_games_law(918, 918, "Vingt-un: the dealer receives from all whose points are "
                                   "lower or equal to his"),
    drawn=round_games_law(930, 930, "Vingt-un: a drawn Vingt-un takes or is paid double; two "
                                    "drawn Vingt-uns pay the stake"),
    split=round_games_law(932, 932, "Vingt-un: a pair in the first cards may be divided, a "
                                    "separate stake on each, up to four hands"),
    bank=round_games_law(936, 936, "Vingt-un: a natural puts the dealer out; the deal passes "
                                   "to the next player or the holder"),
    pack=round_games_law(934, 934, "Vingt-un: the pack is not re-united each round; the last "
                                   "card goes to the pone, who shuffles the used cards"),
    session=round_games_law(907, 907, "Vingt-un: the game may be concluded after any hand, "
                                      "fairly when each has dealt an equal number of turns"),
)

MACAO_LAWS = dataclasses.replace(
    HOYLE_LAWS,
    natural=hoyle_law(18020, 18023, "Macao: three naturals: 9 in two cards wins 3 times the "
                                    "stake, 8 double, 7 even money; ties stand off"),
    banker_natural=hoyle_law(18020, 18023, "Macao: naturals 9, 8 and 7; ties stand off"),
    ties=hoyle_law(18023, 18024, "Macao: ties stand off; without naturals the players draw "
                                 "until they stand or burst"),
)

QUINZE_LAWS = dataclasses.replace(
    HOYLE_LAWS,
    deal=hoyle_law(18028, 18034, "Quinze: an agreed and equal stake each deal; one card to the "
                                 "adversary and one to the dealer"),
    draw=hoyle_law(18031, 18034, "Quinze: the non-dealer stands or draws, then the dealer"),
    ties=hoyle_law(18033, 18035, "Quinze: the one nearer 15 wins; a tie, or both past 15, and "
                                 "the stakes are doubled"),
    bank=hoyle_law(18034, 18037, "Quinze: the deal passes; each deals in turn"),
)


POOL_LAWS = dataclasses.replace(ROUND_GAMES_LAWS, pool=round_games_law(
    967, 967, "Pool: a coin from each player each deal, a penalty when the dealer over-draws, "
              "a part of what he receives on ties"))
LIMIT_LAWS = dataclasses.replace(ROUND_GAMES_LAWS, limit=round_games_law(
    972, 972, "Limiting the Deal: a number of hands, twice through the pack, or two packs once, "
              "instead of a natural throwing the dealer out"))
SALE_LAWS = dataclasses.replace(ROUND_GAMES_LAWS, sale=round_games_law(
    977, 977, "Selling the Deal: the buyer deals from the seller's place; the deal reverts when "
              "he loses it"))
BONUS_LAWS = dataclasses.replace(ROUND_GAMES_LAWS, bonus=round_games_law(
    982, 982, "Additional Privileges for a Natural: a stake, or double, from each of the "
              "other players; other Vingt-uns exempt"))


# -- the rules ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TwentyOneRules(HouseRules):
    """One variant of Vingt-et-Un: how cards count, what a natural is, who pays on what.

    Fields before `laws` are the book's (fixed for the variant); those after are named
    house rules (`known_options`), each defaulting to the book's or the catalogue's reading.
    """

    target: int = 21
    #: "twenty-one": courts 10, the ace 1 or 11; "macao": tens and courts 0, the ace 1.
    counting: str = "twenty-one"
    #: Cards dealt to each hand before the drawing: 2, or 1 at Quinze.
    first_cards: int = 2
    #: "twenty-one" (21 in two cards, paid double), "macao" (9, 8, 7) or "none".
    naturals: str = "twenty-one"
    #: The banker's double call: "forfeit" (a player who refuses loses his stake; Hoyle),
    #: "add" (every player adds the double; Round Games) or "none" (Quinze).
    double_call: str = "forfeit"
    #: The stake on a divided pair: "equal" (Hoyle), "any" (Round Games) or "none".
    split_stake: str = "equal"
    max_hands: int = 2
    #: False at Quinze: a player past 15 waits for the dealer (both past 15 is a tie).
    bust_pays_at_once: bool = True
    #: Quinze: fixed equal stakes each deal, doubled after a tie.
    fixed_stakes: bool = False
    #: Round Games: a player's natural puts the dealer out, except in his first hand.
    natural_puts_out: bool = False
    #: Round Games: the pack goes on from round to round, reshuffled when it runs out.
    continuous_pack: bool = False
    pool: bool = False
    selling: bool = False
    limiting: bool = False
    bonus: bool = False
    laws: Laws = HOYLE_LAWS
    # -- named house rules
    ties: str = "stand-off"
    drawn_21: str = "single"
    bank_passes: str = "natural"
    deal_passes_to: str = "left"
    limit: int = 100
    stake: int = 1
    deals: int = 10
    rounds: int = 1
    ante: int = 1
    overdraw_penalty: int = 1
    tie_share: str = "quarter"
    limit_by: str = "hands"
    hands: int = 5
    natural_bonus: str = "single"
    bonus_from_dealer: bool = False

    @property
    def round_games(self) -> bool:
        return self.laws.deal.book == ROUND_GAMES_LAWS.deal.book

    def known_options(self) -> tuple[Option, ...]:
        found: list[Option] = [whole("deals", 1, MAX_DEALS)]
        if self.fixed_stakes:
            return (*found, whole("stake", 1, MAX_STAKE))
        found += [whole("limit", 1, MAX_STAKE), either("ties", "stand-off", "dealer"),
                  either("drawn_21", "single", "double")]
        if self.round_games:
            found += [whole("rounds", 1, MAX_ROUNDS)]
            if not self.limiting:
                found.append(either("deal_passes_to", "left", "holder"))
        else:
            found.append(either("bank_passes", "natural", "each-deal"))
        if self.pool:
            found += [whole("ante", 0, MAX_STAKE), whole("overdraw_penalty", 0, MAX_STAKE),
                      one_of("tie_share", "none", "quarter", "third")]
        if self.limiting:
            found += [one_of("limit_by", "hands", "twice-through", "two-packs"),
                      whole("hands", 1, MAX_DEALS)]
        if self.bonus:
            found += [either("natural_bonus", "single", "double"),
                      either("bonus_from_dealer", False, True)]
        return tuple(found)

    # -- counting

    def value(self, card: Card) -> int:
        """What a card counts, an ace as 1."""
        if card.rank == "A":
            return 1
        if card.rank in COURT or card.rank == "10":
            return 0 if self.counting == "macao" else 10
        return int(card.rank)

    def total(self, cards: Sequence[Card]) -> int:
        """The best count of the cards: one ace as 11 where that does not pass the target."""
        hard = sum(self.value(card) for card in cards)
        aces_high = self.counting == "twenty-one"
        if aces_high and any(card.rank == "A" for card in cards) and hard + 10 <= self.target:
            return hard + 10
        return hard

    def soft(self, cards: Sequence[Card]) -> bool:
        """Whether an ace is counted as 11 in the best count."""
        return self.total(cards) != sum(self.value(card) for card in cards)

    def natural_rate(self, cards: Sequence[Card]) -> int:
        """How many times the stake the first two cards win as a natural; 0 if none."""
        if len(cards) != 2 or self.naturals == "none":
            return 0
        if self.naturals == "macao":
            return MACAO_RATES.get(self.total(cards), 0)
        return 2 if self.total(cards) == self.target else 0

    # -- exact chances

    def natural_chances(self, remaining: Counter[Card] | None = None) -> dict[int, Fraction]:
        """The exact chance two cards from `remaining` (a full pack) are a natural, by rate."""
        pack = remaining if remaining is not None else Counter(FULL_PACK)
        cards = list(pack.elements())
        pairs = len(cards) * (len(cards) - 1)
        found: Counter[int] = Counter()
        for i, first in enumerate(cards):
            for j, second in enumerate(cards):
                if i != j:
                    found[self.natural_rate([first, second])] += 1
        return {rate: Fraction(found[rate], pairs) for rate in sorted(found, reverse=True)
                if rate}

    def bust_chance(self, cards: Sequence[Card], remaining: Counter[Card]) -> Fraction:
        """The exact chance the next card from `remaining` takes the hand past the target."""
        left = sum(remaining.values())
        busting = sum(n for card, n in remaining.items()
                      if self.total([*cards, card]) > self.target)
        return Fraction(busting, left) if left else Fraction(0)


HOYLE = TwentyOneRules()
MACAO = TwentyOneRules(target=9, counting="macao", naturals="macao", laws=MACAO_LAWS)
QUINZE = TwentyOneRules(target=15, first_cards=1, naturals="none", double_call="none",
                        split_stake="none", max_hands=1, bust_pays_at_once=False,
                        fixed_stakes=True, laws=QUINZE_LAWS, bank_passes="each-deal")
ROUND_GAMES = TwentyOneRules(double_call="add", split_stake="any", max_hands=4,
                             natural_puts_out=True, continuous_pack=True, laws=ROUND_GAMES_LAWS,
                             ties="dealer", drawn_21="double", deals=60)
POOL = dataclasses.replace(ROUND_GAMES, pool=True, laws=POOL_LAWS)
LIMITING = dataclasses.replace(ROUND_GAMES, limiting=True, natural_puts_out=False,
                               laws=LIMIT_LAWS)
SELLING = dataclasses.replace(ROUND_GAMES, selling=True, laws=SALE_LAWS)
PRIVILEGES = dataclasses.replace(ROUND_GAMES, bonus=True, laws=BONUS_LAWS)
