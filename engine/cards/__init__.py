"""The card family: cards, packs and shoes, and the banking games of the books."""

GAMES: tuple[()] = ()
