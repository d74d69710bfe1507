"""Base Ball with Dice as Hoyle's Games (1940) gives it (lines 10190-10229): two ways.

The simple way (`base-ball-with-dice`, lines 10193-10197): three dice; a player throws
again as long as he throws an ace, each ace a run; a throw with no ace is out.

The diamond (`base-ball-with-dice-diamond`, lines 10199-10227): two sides throw a single
die: 1, 2, 3 reach that base, 4 is a home run, 5 (a fly ball) and 6 are out; three out
retire the side.

Events (the transcript vocabulary of docs/dice/base_ball.md):

- `{"type": "throw", "dice": [1, 4, 1]}`: three dice (the simple way) or one (the diamond);
- `{"type": "rethrow", "reason": "cocked"}`: the last throw is void (or "off-table").

Scores are points: runs (in the diamond game, the runs of the player's side).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import JSON, Awaiting, Event, Ruling, hoyle_law
from engine.dice.turns import TurnGame, TurnState, TurnThrow
from engine.rules import HouseRules, Option, either, whole

OUTS = 9
SIDE_OUT = 3
MAX_INNINGS = 20

ACES = hoyle_law(10193, 10196, "Base Ball with Dice: three dice; as long as he throws an ace he "
                 "throws again; every ace a run")
NINE_OUTS = hoyle_law(10195, 10197, "Base Ball with Dice: no ace, he is out; nine times out "
                      "ends the game")
SIMPLE_LAWS = (ACES, NINE_OUTS)

HITS = hoyle_law(10202, 10206, "Base Ball with Dice, the diamond: sides throw one die; ace, "
                 "deuce or trey a base; four a home run")
PUSHED = hoyle_law(10206, 10210, "Base Ball with Dice, the diamond: five or six out; men pushed "
                   "round; three out retires the side")
SIX_OUT = hoyle_law(10212, 10213, "Base Ball with Dice, the diamond: six with men on bases, the "
                    "striker out and the men safe")
FLY_BALL = hoyle_law(10213, 10227, "Base Ball with Dice, the diamond: five a fly ball, caught "
                     "and thrown in; which man is out")
DIAMOND_LAWS = (HITS, PUSHED, SIX_OUT, FLY_BALL)


# -- the simple way ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class AcesRules(HouseRules):
    """`nine_outs`: whether each player is out nine times, or nine outs in all end it."""

    # "Nine times out ends the game" (line 10196) does not say whose outs; nine each gives
    # every player the same nine innings, as at base ball, where nine in all would not.
    nine_outs: str = "each"

    def known_options(self) -> tuple[Option, ...]:
        return (either("nine_outs", "each", "in-all"),)


class AcesState(TurnState):
    """Each player throws till he is out, then the next; nine outs each end the game."""

    rules: AcesRules
    DICE = 3

    def start(self) -> None:
        self.runs = dict.fromkeys(self.players, 0)
        self.outs = dict.fromkeys(self.players, 0)
        self.seat = 0

    @property
    def thrower(self) -> str:
        return self.players[self.seat]

    def play(self, event: Event) -> list[Ruling]:
        assert isinstance(event, TurnThrow)
        who = self.thrower
        aces = event.dice.count(1)
        if aces:
            self.runs[who] += aces
            return [Ruling("run", who, aces,
                           f"{aces} ace{'s' if aces > 1 else ''}: {aces} "
                           f"run{'s' if aces > 1 else ''}, {self.runs[who]} in all; {who} "
                           "throws again.", ACES)]
        self.outs[who] += 1
        rulings = [Ruling("out", who, 0, f"No ace: {who} is out ({self.outs[who]} "
                          f"time{'s' if self.outs[who] > 1 else ''}).", NINE_OUTS)]
        if self.rules.nine_outs == "each":
            done = all(outs == OUTS for outs in self.outs.values())
        else:
            done = sum(self.outs.values()) == OUTS
        if done:
            best = max(self.runs.values())
            rulings.append(self.finish([n for n in self.players if self.runs[n] == best],
                                       NINE_OUTS, "Nine times out ends the game"))
        else:
            self.seat = (self.seat + 1) % len(self.players)
        return rulings

    def awaits(self) -> tuple[Awaiting, ...]:
        return (Awaiting("throw", "sensor", self.thrower, "three dice"),)

    def totals(self) -> dict[str, int]:
        return dict(self.runs)

    def details(self) -> JSON:
        return {"outs": dict(self.outs)}


# -- the diamond -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class DiamondRules(HouseRules):
    """The book sets no number of innings, how far a hit moves the men, or one case of 5."""

    # Nine innings, as at base ball; the book says only that three out retire the side.
    innings: int = 9
    # "Pushed round" (line 10208): the striker pushes each man ahead of him along, so a man
    # moves only when the striker or a pushed man reaches his base; "advance" moves every
    # man as many bases as the striker gains.
    runners: str = "pushed"
    # A lone man on third when a 5 is thrown: "the man on third is always safe" (line 10222)
    # or "if there is only one man on bases, he is out" (line 10215).
    lone_third: str = "safe"

    def known_options(self) -> tuple[Option, ...]:
        return (whole("innings", 1, MAX_INNINGS), either("runners", "pushed", "advance"),
                either("lone_third", "safe", "out"))


HIT_NAMES = {1: "a single", 2: "a double", 3: "a triple", 4: "a home run"}
BASE_NAMES = ("first", "second", "third")


class DiamondState(TurnState):
    """Two sides (players dealt alternately) bat in turn; three out retire a side."""

    rules: DiamondRules
    DICE = 1

    def start(self) -> None:
        count = min(2, len(self.players))
        self.sides = [self.players[i::count] for i in range(count)]
        self.side_runs = [0] * count
        self.batting = 0
        self.inning = 1
        self.outs = 0
        #: Men on first, second and third.
        self.bases = [False, False, False]
        self.up = [0] * count

    @property
    def thrower(self) -> str:
        side = self.sides[self.batting]
        return side[self.up[self.batting] % len(side)]

    def side_of(self, player: str) -> int:
        return next(i for i, side in enumerate(self.sides) if player in side)

    def play(self, event: Event) -> list[Ruling]:
        assert isinstance(event, TurnThrow)
        who = self.thrower
        face = event.dice[0]
        self.up[self.batting] += 1
        if face in HIT_NAMES:
            return self._hit(who, face)
        if face == 6:
            safe = " The men on bases are safe." if any(self.bases) else ""
            rulings = [Ruling("out", who, 0, f"6: {who} is out.{safe}",
                              SIX_OUT if any(self.bases) else PUSHED)]
            self.outs += 1
        else:
            rulings = self._fly_ball(who)
        if self.outs >= SIDE_OUT:
            rulings.extend(self._retire())
        return rulings

    def _hit(self, who: str, bases: int) -> list[Ruling]:
        before = sum(self.bases)
        if self.rules.runners == "advance":
            runs = sum(1 for base, man in enumerate(self.bases) if man and base + bases >= 3)
            moved = [False, False, False]
            for base, man in enumerate(self.bases):
                if man and base + bases < 3:
                    moved[base + bases] = True
            self.bases = moved
            if bases < 4:
                self.bases[bases - 1] = True
            else:
                runs += 1
        else:
            runs = 0
            for step in range(1, bases + 1):
                if step > 1:
                    self.bases[step - 2] = False
                runs += self._push(step)
        self.side_runs[self.batting] += runs
        scored = (f" {runs} run{'s' if runs > 1 else ''} in, {self.side_runs[self.batting]} "
                  f"for the side." if runs else "")
        where = "" if bases == 4 else f" {who} is on {BASE_NAMES[bases - 1]}."
        law = PUSHED if before and bases < 4 else HITS
        return [Ruling("home-run" if bases == 4 else "hit", who, runs,
                       f"{bases}: {HIT_NAMES[bases]}.{where}{scored}", law)]

    def _push(self, base: int) -> int:
        """A man arrives at `base` (4 is home), pushing on any man there; the runs in."""
        if base == 4:
            return 1
        runs = self._push(base + 1) if self.bases[base - 1] else 0
        self.bases[base - 1] = True
        return runs

    def _fly_ball(self, who: str) -> list[Ruling]:
        self.outs += 1
        rulings = [Ruling("fly-out", who, 0, f"5: a fly ball, caught: {who} is out.", FLY_BALL)]
        if self.outs >= SIDE_OUT:
            return rulings
        first, second, third = self.bases
        men = sum(self.bases)
        out: int | None = None
        if men == 1 and (not third or self.rules.lone_third == "out"):
            out = self.bases.index(True)
        elif men == 3 or (first and third):
            out = 0
        elif first and second:
            out = 1
        if out is None:
            if men:
                rulings.append(Ruling("safe", who, 0, "The men on bases are safe.", FLY_BALL))
            return rulings
        self.bases[out] = False
        self.outs += 1
        rulings.append(Ruling("runner-out", who, 0,
                              f"Thrown in: the man on {BASE_NAMES[out]} is out too.", FLY_BALL))
        return rulings

    def _retire(self) -> list[Ruling]:
        side = self.batting
        rulings = [Ruling("side-out", self.thrower, self.side_runs[side],
                          f"Three out: the side is retired with {self.side_runs[side]} "
                          f"run{'' if self.side_runs[side] == 1 else 's'}.", PUSHED)]
        self.outs = 0
        self.bases = [False, False, False]
        self.batting = (side + 1) % len(self.sides)
        if self.batting == 0:
            self.inning += 1
        if self.inning > self.rules.innings:
            best = max(self.side_runs)
            winners = [name for name in self.players
                       if self.side_runs[self.side_of(name)] == best]
            plural = "s" if self.rules.innings > 1 else ""
            rulings.append(self.finish(winners, PUSHED,
                                       f"{self.rules.innings} inning{plural} played"))
        return rulings

    def awaits(self) -> tuple[Awaiting, ...]:
        return (Awaiting("throw", "sensor", self.thrower,
                         f"inning {self.inning}, {self.outs} out"),)

    def totals(self) -> dict[str, int]:
        return {name: self.side_runs[self.side_of(name)] for name in self.players}

    def details(self) -> JSON:
        return {"sides": [list(side) for side in self.sides], "runs": list(self.side_runs),
                "batting": None if self.over else self.batting,
                "inning": min(self.inning, self.rules.innings), "outs": self.outs,
                "bases": list(self.bases)}


SIMPLE = TurnGame("base-ball-with-dice", "Base Ball with Dice", AcesRules(), AcesState,
                  SIMPLE_LAWS, aliases=("baseball-with-dice",))
DIAMOND = TurnGame("base-ball-with-dice-diamond", "Base Ball with Dice (the diamond)",
                   DiamondRules(), DiamondState, DIAMOND_LAWS,
                   aliases=("baseball-with-dice-diamond",))
GAMES = (SIMPLE, DIAMOND)
