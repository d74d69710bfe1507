"""Bowling variants as data: one `BowlingRules` instance per game in the book.

Where the scan lost a rule or a diagram, the reading taken here is stated on the
variant and can be changed through a named option (docs/bowling.md lists them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine.bowling import laws
from engine.core import LawRef
from engine.errors import BadOptionError

ALL_PINS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)


class Scoring(Enum):
    """How a frame or inning is scored; the variants share these."""

    BONUS = "bonus"  # ten pins and its kin: a strike takes two more balls, a spare one
    FEATHER = "feather"
    NINE_UP_NINE_DOWN = "nine-up-nine-down"
    HEAD_PIN_FOUR_BACK = "head-pin-four-back"
    FOUR_BACK = "four-back"
    NINE_PINS = "nine-pins"
    NEWPORT = "newport"


class NewportCount(Enum):
    """When a Newport inning's count is fixed; the book does not say (catalogue §14.10)."""

    END_OF_INNING = "end-of-inning"  # the pins down when the inning ends
    FIRST_NEW = "first-new"  # the first count not yet made, after any ball


@dataclass(frozen=True, slots=True)
class BowlingRules:
    """One bowling variant. The option fields are the house rules a club may change."""

    scoring: Scoring
    pins: tuple[int, ...] = ALL_PINS
    frames: int = 10
    balls_per_frame: int = 2
    frames_at_a_time: int = 1
    # A spare is the rack cleared within this many balls (the rest are plain counts).
    spare_within: int = 2
    # Options (house rules), with the book's reading as default.
    foul_penalty: bool = True
    spare_after_foul: bool = True
    nothing_unless_both: bool = False
    newport_count: NewportCount = NewportCount.END_OF_INNING
    # The laws this variant's own scoring and fouls rest on.
    scoring_law: LawRef = laws.THREE_BALL_CREDIT
    no_penalty_law: LawRef | None = None
    # Pin values where pins are not worth one each (Four Back: spot -> value).
    pin_values: tuple[tuple[int, int], ...] = ()
    # The scan lost the diagram of the pins: a club sets its own spots (option "pins").
    diagram_lost: bool = False
    # A pin the scoring names, which any pin set of the club's must include.
    required_pin: int | None = None

    def allowed_options(self) -> tuple[str, ...]:
        """The house rules this variant has."""
        names = ["foul_penalty"]
        if self.scoring is Scoring.BONUS:
            names.append("spare_after_foul")
        if self.scoring is Scoring.NINE_UP_NINE_DOWN:
            names.append("nothing_unless_both")
        if self.scoring is Scoring.NEWPORT:
            names.append("newport_count")
        if self.diagram_lost:
            names.append("pins")
        return tuple(names)

    def value_of(self, pin: int) -> int:
        for spot, value in self.pin_values:
            if spot == pin:
                return value
        return 1

    def with_options(self, options: Mapping[str, Any], game_id: str) -> BowlingRules:
        """This variant with the named house rules set; unknown or bad options raise."""
        changes: dict[str, Any] = {}
        allowed = self.allowed_options()
        for name, value in options.items():
            if name not in allowed:
                raise BadOptionError(
                    f"{game_id}: no option {name!r}; its options are {', '.join(allowed)}")
            changes[name] = _option_value(name, value, game_id, self)
        return dataclasses.replace(self, **changes)

    def options(self) -> dict[str, Any]:
        """The option values in force, JSON-ready."""
        values = {"foul_penalty": self.foul_penalty, "spare_after_foul": self.spare_after_foul,
                  "nothing_unless_both": self.nothing_unless_both,
                  "newport_count": self.newport_count.value, "pins": list(self.pins)}
        return {name: values[name] for name in self.allowed_options()}


def _option_value(name: str, value: Any, game_id: str, rules: BowlingRules) -> Any:
    if name == "newport_count":
        try:
            return NewportCount(value)
        except ValueError:
            allowed = ", ".join(c.value for c in NewportCount)
            raise BadOptionError(f"{game_id}: newport_count must be one of {allowed}, "
                                 f"not {value!r}") from None
    if name == "pins":
        if (not isinstance(value, list) or not value
                or not all(isinstance(p, int) and not isinstance(p, bool) for p in value)
                or len(set(value)) != len(value) or not set(value) <= set(ALL_PINS)):
            raise BadOptionError(f"{game_id}: pins must be a list of distinct spots 1-10, "
                                 f"not {value!r}")
        if len(value) != len(rules.pins):
            raise BadOptionError(f"{game_id}: this game sets up {len(rules.pins)} pins, "
                                 f"not {len(value)}")
        if rules.required_pin is not None and rules.required_pin not in value:
            raise BadOptionError(f"{game_id}: the pins must include spot {rules.required_pin}, "
                                 "which the game's scoring names")
        return tuple(sorted(value))
    if not isinstance(value, bool):
        raise BadOptionError(f"{game_id}: option {name} must be true or false, not {value!r}")
    return value


def _small_game(scoring: Scoring, pins: tuple[int, ...], scoring_law: LawRef,
                no_penalty_law: LawRef, **more: Any) -> BowlingRules:
    """The three-ball innings games of the chapter: 'there are no penalties'."""
    return BowlingRules(scoring=scoring, pins=pins, balls_per_frame=3, foul_penalty=False,
                        scoring_law=scoring_law, no_penalty_law=no_penalty_law, **more)


TEN_PINS = BowlingRules(scoring=Scoring.BONUS)
COCKED_HAT = BowlingRules(scoring=Scoring.BONUS, pins=(1, 7, 10), balls_per_frame=3,
                          scoring_law=laws.COCKED_HAT_SCORING)
COCKED_HAT_AND_FEATHER = _small_game(Scoring.FEATHER, (1, 5, 7, 10), laws.FEATHER_RULES,
                                     laws.FEATHER_NO_PENALTIES)
NINE_UP_NINE_DOWN = _small_game(Scoring.NINE_UP_NINE_DOWN, ALL_PINS, laws.NINE_UP_RULES,
                                laws.NINE_UP_NO_PENALTIES)
# The diagram is lost; the catalogue's likely reading is the head pin and the back row.
HEAD_PIN_AND_FOUR_BACK = _small_game(Scoring.HEAD_PIN_FOUR_BACK, (1, 7, 8, 9, 10),
                                     laws.HEAD_PIN_RULES, laws.HEAD_PIN_NO_PENALTIES,
                                     diagram_lost=True, required_pin=1)
# "Four pins in a row numbered 4 3 2 1": on a ten-pin deck, the back row 7-10.
FOUR_BACK = _small_game(Scoring.FOUR_BACK, (7, 8, 9, 10), laws.FOUR_BACK_RULES,
                        laws.FOUR_BACK_NO_PENALTIES,
                        pin_values=((7, 4), (8, 3), (9, 2), (10, 1)))
# The diagram is lost; nine of the ten spots, the head pin left off (option "pins").
NINE_PINS = _small_game(Scoring.NINE_PINS, (2, 3, 4, 5, 6, 7, 8, 9, 10), laws.NINE_PINS_RULES,
                        laws.NINE_PINS_NO_PENALTIES, diagram_lost=True)
# The diagram is lost; five pins: the head pin, the centre pin and the back row less
# the 8 pin by default (option "pins").
FIVE_BACK = BowlingRules(scoring=Scoring.BONUS, pins=(1, 5, 7, 9, 10), balls_per_frame=3,
                         foul_penalty=False, scoring_law=laws.FIVE_BACK_RULES,
                         no_penalty_law=laws.FIVE_BACK_NO_PENALTIES, diagram_lost=True)
NEWPORT = BowlingRules(scoring=Scoring.NEWPORT, balls_per_frame=3,
                       scoring_law=laws.NEWPORT_RULES)
DUCK_PINS = BowlingRules(scoring=Scoring.BONUS, balls_per_frame=3, frames_at_a_time=2,
                         scoring_law=laws.DUCK_PINS_RULES)
