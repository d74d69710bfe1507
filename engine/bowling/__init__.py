"""The bowling family: ten pins and the other alley games of Hoyle's Games (1940)."""

from engine.bowling import rules
from engine.bowling.state import BallEvent, BowlingGame, BowlingState, DeadBallEvent

GAMES = (
    BowlingGame("ten-pins", "Bowling, or Ten Pins", rules.TEN_PINS,
                aliases=("bowling", "tenpins", "american-ten-pins")),
    BowlingGame("cocked-hat", "Cocked Hat", rules.COCKED_HAT),
    BowlingGame("cocked-hat-and-feather", "Cocked Hat and Feather",
                rules.COCKED_HAT_AND_FEATHER),
    BowlingGame("nine-up-nine-down", "Nine Up and Nine Down", rules.NINE_UP_NINE_DOWN),
    BowlingGame("head-pin-and-four-back", "Head Pin and Four Back",
                rules.HEAD_PIN_AND_FOUR_BACK),
    BowlingGame("four-back", "Four Back", rules.FOUR_BACK),
    BowlingGame("nine-pins", "Nine Pins", rules.NINE_PINS),
    BowlingGame("five-back", "Five Back", rules.FIVE_BACK),
    BowlingGame("newport-game", "The Newport Game", rules.NEWPORT, aliases=("newport",)),
    BowlingGame("duck-pins", "Duck Pin Game", rules.DUCK_PINS, aliases=("duckpins",)),
)

__all__ = ["GAMES", "BallEvent", "BowlingGame", "BowlingState", "DeadBallEvent"]
