"""The bowling laws a ruling can cite, as line ranges of Hoyle's Games (1940)."""

from engine.core import hoyle_law

FRAMES = hoyle_law(3961, 3963, "Ten Pins: ten frames of two balls")
MARKS = hoyle_law(3965, 3971, "Ten Pins: strike, spare and break")
THREE_BALL_CREDIT = hoyle_law(
    3973, 4009, "Ten Pins: a strike or spare is credited with three balls"
)
TENTH_FRAME = hoyle_law(4012, 4015, "Ten Pins: extra balls in the tenth frame; highest score 300")
FOUL = hoyle_law(4081, 4095, "Bowling-Alley Laws (1925): foul ball")
BALL_COUNTS = hoyle_law(4102, 4107, "Bowling-Alley Laws (1925): balls and pins that count")
DISPLACED_PINS = hoyle_law(4097, 4111, "Bowling-Alley Laws (1925): pins respotted")
DEAD_BALL = hoyle_law(4113, 4128, "Bowling-Alley Laws (1925): dead ball")

COCKED_HAT_SCORING = hoyle_law(
    4152, 4178, "Cocked Hat: three balls; strikes and spares count three"
)
FEATHER_RULES = hoyle_law(4193, 4211, "Cocked Hat and Feather: rules 1-4")
FEATHER_NO_PENALTIES = hoyle_law(4212, 4217, "Cocked Hat and Feather: no penalties; maximum 10")
NINE_UP_RULES = hoyle_law(4223, 4230, "Nine Up and Nine Down: rules 1-2")
NINE_UP_NO_PENALTIES = hoyle_law(4231, 4238, "Nine Up and Nine Down: no penalties; maximum 20")
HEAD_PIN_RULES = hoyle_law(4246, 4254, "Head Pin and Four Back: rules 1-3")
HEAD_PIN_NO_PENALTIES = hoyle_law(4255, 4263, "Head Pin and Four Back: no penalties; maximum 20")
FOUR_BACK_RULES = hoyle_law(4265, 4278, "Four Back: rules 1-3; a break scores nothing")
FOUR_BACK_NO_PENALTIES = hoyle_law(4279, 4284, "Four Back: no penalties")
NINE_PINS_RULES = hoyle_law(4291, 4300, "Nine Pins: rules 1-4")
NINE_PINS_NO_PENALTIES = hoyle_law(4301, 4307, "Nine Pins: no penalties; maximum 10")
FIVE_BACK_RULES = hoyle_law(4309, 4321, "Five Back: rules 1-3; strikes and spares count five")
FIVE_BACK_NO_PENALTIES = hoyle_law(4322, 4329, "Five Back: no penalties; maximum 150")
NEWPORT_RULES = hoyle_law(4342, 4352, "The Newport Game: rules 1-2; fewest counts loses")
NEWPORT_NOTE = hoyle_law(4353, 4364, "The Newport Game: a count already made goes for naught")
DUCK_PINS_RULES = hoyle_law(
    4387, 4398, "Duck Pin Game: three balls, two frames at a time, foul line"
)
