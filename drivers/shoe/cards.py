"""The 52 card codes a shoe or shuffler may report, checked on the drivers' side.

Drivers must not import the engine (DESIGN section 2), so the drivers keep this small
check of their own: a code is rank ``A 2-10 J Q K`` then suit ``S H D C`` ("10H", "AS").

Example:
    >>> is_card("10H"), is_card("1H"), len(FULL_PACK), FULL_PACK[:3]
    (True, False, 52, ('AS', '2S', '3S'))
"""

from __future__ import annotations

from typing import Final

__all__ = ["CARD_CODES", "FULL_PACK", "MAX_PACKS", "RANKS", "SUITS", "is_card", "packs_of"]

RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final = ("S", "H", "D", "C")
FULL_PACK: Final = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""One pack's 52 codes in a fixed order: spades, hearts, diamonds, clubs, ace to king."""
CARD_CODES: Final = frozenset(FULL_PACK)
MAX_PACKS: Final = 8
"""The most packs a shoe holds (baccara and vingt-et-un shoes hold six or eight)."""


def is_card(code: str) -> bool:
    """True if ``code`` names one of the 52 cards."""
    return code in CARD_CODES


def packs_of(packs: int) -> list[str]:
    """``packs`` full packs one after another, unshuffled; ValueError outside 1..MAX_PACKS."""
    if isinstance(packs, bool) or not isinstance(packs, int) or not 1 <= packs <= MAX_PACKS:
        raise ValueError(f"a shoe holds 1..{MAX_PACKS} packs, not {packs!r}")
    return list(FULL_PACK) * packs
