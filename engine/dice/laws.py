"""The dice laws a ruling can cite, as line ranges of Hoyle's Games (1940)."""

from engine.core import hoyle_law

# The general laws of a fair throw, which the catalogue (§0) applies to every dice game.
OFF_TABLE = hoyle_law(1934, 1937, "Backgammon law 5: a die off the table; both dice thrown again")
COCKED = hoyle_law(1939, 1942, "Backgammon law 6: a cocked die is no throw; both thrown again")

CASTER_TURNS = hoyle_law(3470, 3476, "Craps: the caster throws as long as he wins, then another")
WAYS = hoyle_law(3478, 3490, "Craps: eleven possible throws, 36 ways the two dice may fall")
BETS = hoyle_law(3503, 3513, "Craps: bets placed first; the caster accepts all bets")
FROM_HAND = hoyle_law(3515, 3520, "Craps: thrown from the hand; no one throws for the caster")
NICK_OR_CRAP = hoyle_law(
    3522, 3526, "Craps: 7 or 11 a nick wins, 2, 3 or 12 a crap loses; even money"
)
POINT = hoyle_law(3528, 3533, "Craps: the point; the caster throws until his point or a 7")
FIRST_THROW_ODDS = hoyle_law(3535, 3540, "Craps: a nick 7 to 2 against, a crap 8 to 1 against")
POINT_ODDS = hoyle_law(3542, 3554, "Craps: 57 to 39 against making the point")
CASTER_ODDS = hoyle_law(3556, 3558, "Craps: 73 to 71 against the caster")

BANK_LAYOUT = hoyle_law(
    3564, 3585, "Professional Craps: the layout, the Field and bets on the caster"
)
BANK_NICK_OR_CRAP = hoyle_law(3591, 3595, "Professional Craps: nick or crap paid or taken at once")
POINT_DISC = hoyle_law(3597, 3600, "Professional Craps: the point marked with a disc")
FIELD = hoyle_law(3602, 3609, "Professional Craps: bets on the caster stay; the Field pays even")
SEVEN_FOR_THE_BANK = hoyle_law(
    3611,
    3615,
    "Professional Craps: 7 wins for the bank but on the first throw; 5, 6, 7, 8 beat the Field",
)
FIELD_ODDS = hoyle_law(3617, 3624, "Professional Craps: 20 to 16, or 5 to 4, against the Field")
