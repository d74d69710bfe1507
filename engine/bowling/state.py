"""A bowling game in progress: whose ball it is, the score sheet, and the rulings.

Events (the transcript vocabulary of docs/bowling.md):

- `{"type": "ball", "player": "Ann", "standing": [7, 10]}`: pins standing after the
  ball, dead wood cleared; `"foul": true` when the foul line was crossed;
- `{"type": "dead_ball", "player": "Ann"}`: the umpire declares Ann's last ball dead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, ClassVar

from engine.bowling import laws
from engine.bowling.frames import Ball, Frame
from engine.bowling.rules import BowlingRules, Scoring
from engine.core import (
    JSON,
    Awaiting,
    Event,
    Game,
    LawRef,
    Operation,
    Outcome,
    Ruling,
    State,
    check_players,
)
from engine.errors import IllegalEventError


@dataclass(frozen=True, slots=True)
class BallEvent(Event):
    """A delivered ball, as the pin deck and foul line saw it."""

    type: ClassVar[str] = "ball"
    player: str
    standing: frozenset[int]
    foul: bool = False

    def to_json(self) -> JSON:
        data: JSON = {"type": self.type, "player": self.player, "standing": sorted(self.standing)}
        if self.foul:
            data["foul"] = True
        return data


@dataclass(frozen=True, slots=True)
class DeadBallEvent(Event):
    """The umpire declares the player's last ball dead: it does not count and is rerolled."""

    type: ClassVar[str] = "dead_ball"
    player: str

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player}


@dataclass(slots=True)
class Sheet:
    """One bowler's line on the score sheet."""

    name: str
    frames: list[Frame] = field(default_factory=list)
    balls: list[Ball] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)  # settled frames, in order
    settled_balls: int = 0  # balls in the settled frames
    made: set[int] = field(default_factory=set)  # Newport: counts made

    @property
    def total(self) -> int:
        return sum(self.scores)


class BowlingState(State):
    """The state of one bowling game; see the module docstring for its events."""

    game: BowlingGame

    def __init__(self, game: BowlingGame, rules: BowlingRules, players: Sequence[str]) -> None:
        self.game = game
        self.rules = rules
        self.sheets = [Sheet(name) for name in players]
        self._index = {name: i for i, name in enumerate(players)}
        self.turn = 0
        self.over = False
        self.history: list[BallEvent] = []
        self.dead_ball_allowed = False
        self.sheets[0].frames.append(Frame.start(1, rules))

    # -- reading the state ---------------------------------------------------------

    @property
    def frame(self) -> Frame:
        return self.sheets[self.turn].frames[-1]

    @property
    def player(self) -> str:
        return self.sheets[self.turn].name

    def where(self) -> str:
        """Whose ball it is, in words, for messages."""
        if self.over:
            return "the game is over"
        frame = self.frame
        return f"{self.player} to bowl frame {frame.number}, ball {len(frame.balls) + 1}"

    # -- events --------------------------------------------------------------------

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        kind = data.get("type")
        player = data.get("player")
        if not isinstance(player, str):
            raise IllegalEventError(f"{kind} event needs a player name, got {player!r}")
        if player not in self._index:
            raise IllegalEventError(f"unknown player {player!r}; the players are "
                                    f"{', '.join(s.name for s in self.sheets)}")
        if kind == "dead_ball":
            return DeadBallEvent(player)
        if kind != "ball":
            raise IllegalEventError(f"bowling has no {kind!r} event; it has ball and dead_ball")
        standing = data.get("standing")
        if not isinstance(standing, list) or not all(
                isinstance(p, int) and not isinstance(p, bool) for p in standing):
            raise IllegalEventError(f"ball: standing must be a list of pin numbers, "
                                    f"got {standing!r}")
        bad = [p for p in standing if p not in self.rules.pins]
        if bad:
            raise IllegalEventError(f"ball: pin {bad[0]} is not set up in {self.game.name} "
                                    f"(its pins are {', '.join(map(str, self.rules.pins))})")
        if len(set(standing)) != len(standing):
            raise IllegalEventError(f"ball: a pin is listed twice in {standing}")
        foul = data.get("foul", False)
        if not isinstance(foul, bool):
            raise IllegalEventError(f"ball: foul must be true or false, got {foul!r}")
        return BallEvent(player, frozenset(standing), foul)

    def verify(self, event: Event) -> None:
        if isinstance(event, BallEvent):
            if self.over:
                raise IllegalEventError(f"ball by {event.player}: the game is over")
            if event.player != self.player:
                raise IllegalEventError(f"ball by {event.player} out of turn: {self.where()}")
            up = event.standing - self.frame.rack
            if up:
                raise IllegalEventError(
                    f"ball by {event.player}: pin {min(up)} reported standing but it was "
                    f"already down in frame {self.frame.number} "
                    f"(standing before the ball: {_pins(self.frame.rack)})")
            if not event.standing <= set(self.rules.pins):
                raise IllegalEventError(f"ball by {event.player}: pins {_pins(event.standing)}"
                                        f" are not all set up in {self.game.name}")
        elif isinstance(event, DeadBallEvent):
            if not self.dead_ball_allowed or not self.history:
                raise IllegalEventError(f"dead ball for {event.player}: no ball to declare dead "
                                        f"since the last one was rerolled")
            last = self.history[-1].player
            if event.player != last:
                raise IllegalEventError(f"dead ball for {event.player}: the last ball was "
                                        f"{last}'s")
        else:
            raise IllegalEventError(f"bowling cannot apply {event!r}")

    def apply(self, event: Event) -> Operation:
        self.verify(event)
        if isinstance(event, DeadBallEvent):
            return self._dead_ball(event)
        assert isinstance(event, BallEvent)
        return Operation(event, tuple(self._ball(event)))

    def _ball(self, event: BallEvent) -> list[Ruling]:
        sheet = self.sheets[self.turn]
        frame = self.frame
        rules = self.rules
        ball = frame.roll(event.standing, event.foul, frozenset(sheet.made))
        sheet.balls.append(ball)
        self.history.append(event)
        self.dead_ball_allowed = True
        who = sheet.name
        rulings = [self._ball_ruling(who, ball)]
        if rules.scoring is Scoring.BONUS:
            if ball.mark == "X" and len(frame.balls) == 1:
                rulings.append(Ruling("strike", who, None,
                                      f"Strike: all {len(rules.pins)} pins with the first ball; "
                                      "the frame takes the pins of the next two balls.",
                                      self._mark_law()))
            elif ball.mark == "/" and frame.spare and not frame.strike:
                rulings.append(Ruling("spare", who, None,
                                      f"Spare: all {len(rules.pins)} pins with the frame's "
                                      "balls; the frame takes the pins of the next ball.",
                                      self._mark_law()))
            if frame.last and (frame.strike or frame.spare) and frame.over is False and (
                    len(frame.balls) == 1 or (ball.mark == "/" and frame.spare
                    and not frame.strike)):
                extra = 2 if frame.strike else 1
                rulings.append(Ruling("extra-balls", who, extra,
                                      f"{'Strike' if frame.strike else 'Spare'} in the last "
                                      f"frame: {extra} more ball{'s' if extra > 1 else ''} "
                                      "to make up the three.", laws.TENTH_FRAME))
            rulings.extend(self._settle_bonus(sheet))
        elif frame.over:
            rulings.append(self._settle_inning(sheet, frame))
        if frame.over:
            rulings.extend(self._next_frame())
        return rulings

    def _ball_ruling(self, who: str, ball: Ball) -> Ruling:
        if ball.foul and self.rules.foul_penalty:
            return Ruling("foul", who, 0,
                          f"Foul ball: no count, and the pins it felled ({len(ball.down)}) are "
                          "respotted; it counts as a ball rolled.", laws.FOUL)
        if ball.foul:
            law = self.rules.no_penalty_law or laws.FOUL
            return Ruling("foul", who, ball.pins,
                          "Foul at the line, but this game has no penalties: the ball and its "
                          f"{_count(ball.pins, 'pin')} count.", law)
        if not ball.down:
            return Ruling("count", who, 0, "No pin down: the ball counts as rolled.",
                          laws.BALL_COUNTS)
        return Ruling("count", who, ball.pins,
                      f"{_count(len(ball.down), 'pin')} down by a fair ball: "
                      f"{'it counts' if len(ball.down) == 1 else 'they count'}, "
                      "with any felled by another pin.", laws.BALL_COUNTS)

    def _mark_law(self) -> LawRef:
        return laws.MARKS if self.rules.pins == tuple(range(1, 11)) and \
            self.rules.balls_per_frame == 2 else self.rules.scoring_law

    def _settle_bonus(self, sheet: Sheet) -> list[Ruling]:
        """Score every frame of this bowler whose balls are now all known."""
        rulings = []
        while len(sheet.scores) < len(sheet.frames):
            frame = sheet.frames[len(sheet.scores)]
            if not frame.over:
                break
            after = sheet.settled_balls + len(frame.balls)
            bonus = frame.bonus_balls()
            if len(sheet.balls) < after + bonus:
                break
            extra = sum(b.pins for b in sheet.balls[after: after + bonus])
            score = frame.pins() + extra
            sheet.scores.append(score)
            sheet.settled_balls = after
            rulings.append(self._frame_ruling(sheet, frame, score, extra))
        return rulings

    def _frame_ruling(self, sheet: Sheet, frame: Frame, score: int, extra: int) -> Ruling:
        total = sheet.total
        if frame.strike or frame.spare:
            what = "strike" if frame.strike else "spare"
            text = (f"Frame {frame.number}: {score}, the {what} and "
                    f"{'the last-frame balls' if frame.last else f'{extra} from the next balls'}"
                    f"; total {total}.")
            law = laws.TENTH_FRAME if frame.last else self.rules.scoring_law
        else:
            text = f"Frame {frame.number}: {score}, a break; total {total}."
            law = laws.MARKS
        return Ruling("frame", sheet.name, score, text, law)

    def _settle_inning(self, sheet: Sheet, frame: Frame) -> Ruling:
        made = frozenset(sheet.made)
        score = frame.inning_score(made)
        sheet.scores.append(score)
        if self.rules.scoring is Scoring.NEWPORT:
            count = frame.pins()
            if score:
                sheet.made.add(count)
                return Ruling("count-made", sheet.name, count,
                              f"Inning {frame.number}: a count of {count} made; "
                              f"{len(sheet.made)} counts in all.", laws.NEWPORT_RULES)
            return Ruling("count-void", sheet.name, count,
                          f"Inning {frame.number}: {count} is a count already made (or none); "
                          "the inning goes for naught (X).", laws.NEWPORT_NOTE)
        return Ruling("inning", sheet.name, score,
                      f"Inning {frame.number}: {_inning_words(frame, score)}; "
                      f"total {sheet.total}.", self.rules.scoring_law)

    def _next_frame(self) -> list[Ruling]:
        rules = self.rules
        sheet = self.sheets[self.turn]
        done = len(sheet.frames)
        if done < rules.frames and done % rules.frames_at_a_time != 0:
            sheet.frames.append(Frame.start(done + 1, rules))
            return []
        if self.turn + 1 < len(self.sheets):
            self.turn += 1
        elif done < rules.frames:
            self.turn = 0
        else:
            self.over = True
            return [self._winner_ruling()]
        following = self.sheets[self.turn]
        following.frames.append(Frame.start(len(following.frames) + 1, rules))
        return []

    def _winner_ruling(self) -> Ruling:
        outcome = self.outcome()
        assert outcome is not None
        best = outcome.scores[outcome.winners[0]]
        scoring = self.rules.scoring
        # Ten pins' own passage names ten frames; every other game's rules name its end.
        law = self.rules.scoring_law
        if law is laws.THREE_BALL_CREDIT:
            law = laws.FRAMES
        unit = {Scoring.NEWPORT: "counts", Scoring.BONUS: "pins"}.get(scoring, "points")
        if len(outcome.winners) == 1:
            text = f"{outcome.winners[0]} wins with {best} {unit}."
        else:
            text = f"A tie at {best} {unit}: {' and '.join(outcome.winners)}."
        return Ruling("winner", ", ".join(outcome.winners), best, text, law)

    def _dead_ball(self, event: DeadBallEvent) -> Operation:
        kept = self.history[:-1]
        fresh = self.game.replay(self.rules, [s.name for s in self.sheets], kept)
        self.__dict__.update(fresh.__dict__)
        self.dead_ball_allowed = False
        return Operation(event, (Ruling("dead-ball", event.player, None,
                                        "Dead ball: it does not count, any pins it felled are "
                                        "respotted, and the bowler rolls again.",
                                        laws.DEAD_BALL),))

    def legal_events(self) -> list[Event]:
        events: list[Event] = []
        if self.dead_ball_allowed and self.history:
            events.append(DeadBallEvent(self.history[-1].player))
        if self.over:
            return events
        rack = sorted(self.frame.rack)
        for size in range(len(rack) + 1):
            for standing in combinations(rack, size):
                for foul in (False, True):
                    events.append(BallEvent(self.player, frozenset(standing), foul))
        return events

    def awaiting(self) -> tuple[Awaiting, ...]:
        if self.over:
            return ()
        return (Awaiting("ball", "sensor", self.player,
                         f"frame {self.frame.number}, ball {len(self.frame.balls) + 1}; "
                         f"pins standing {_pins(self.frame.rack)}"),)

    def outcome(self) -> Outcome | None:
        if not self.over:
            return None
        scores = {s.name: s.total for s in self.sheets}
        best = max(scores.values())
        return Outcome(scores, tuple(n for n, v in scores.items() if v == best))

    # -- pictures ------------------------------------------------------------------

    def snapshot(self) -> JSON:
        rules = self.rules
        outcome = self.outcome()
        return {
            "id": self.game.id, "family": self.game.family, "name": self.game.name,
            "players": [s.name for s in self.sheets],
            "frames": rules.frames, "balls": rules.balls_per_frame, "pins": list(rules.pins),
            "options": rules.options(),
            "up": None if self.over else {
                "player": self.player, "frame": self.frame.number,
                "ball": len(self.frame.balls) + 1, "standing": sorted(self.frame.rack)},
            "sheet": [self._sheet_json(s) for s in self.sheets],
            "over": self.over,
            "winners": list(outcome.winners) if outcome else [],
        }

    def _sheet_json(self, sheet: Sheet) -> JSON:
        frames = []
        running = 0
        for i, frame in enumerate(sheet.frames):
            score = sheet.scores[i] if i < len(sheet.scores) else None
            if score is not None:
                running += score
            entry: JSON = {"balls": [b.mark for b in frame.balls], "score": score,
                           "total": running if score is not None else None}
            if self.rules.scoring is Scoring.NEWPORT and score is not None:
                entry["count"] = frame.pins()
                entry["total"] = None
            frames.append(entry)
        return {"player": sheet.name, "frames": frames, "total": sheet.total}

    def save(self) -> JSON:
        return {"players": [s.name for s in self.sheets], "options": self.rules.options(),
                "balls": [e.to_json() for e in self.history],
                "dead_ball_allowed": self.dead_ball_allowed}


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _pins(pins: frozenset[int]) -> str:
    return ", ".join(map(str, sorted(pins))) or "none"


def _inning_words(frame: Frame, score: int) -> str:
    if frame.broken:
        return "a break (two pins with one ball) scores nothing"
    return f"scores {score}" if score else "goes for nothing"


class BowlingGame(Game):
    """A bowling game of the book; its `rules` instance is the variant."""

    family = "bowling"

    rules: BowlingRules

    def new_state(self, players: Sequence[str],
                  options: Mapping[str, Any] | None = None) -> BowlingState:
        rules = self.rules.with_options(options or {}, self.id)
        return BowlingState(self, rules, check_players(players, "on one lane"))

    def replay(self, rules: BowlingRules, players: Sequence[str],
               balls: Sequence[BallEvent]) -> BowlingState:
        state = BowlingState(self, rules, players)
        for ball in balls:
            state.apply(ball)
        return state

    def load(self, saved: Mapping[str, Any]) -> BowlingState:
        state = self.new_state(saved["players"], saved["options"])
        for data in saved["balls"]:
            state.apply(state.parse_event(data))
        state.dead_ball_allowed = bool(saved["dead_ball_allowed"])
        return state

    def laws(self) -> tuple[LawRef, ...]:
        rules = self.rules
        found = [laws.FRAMES, laws.MARKS, laws.TENTH_FRAME, laws.FOUL, laws.BALL_COUNTS,
                 laws.DEAD_BALL, rules.scoring_law]
        if rules.no_penalty_law:
            found.append(rules.no_penalty_law)
        if rules.scoring is Scoring.NEWPORT:
            found.append(laws.NEWPORT_NOTE)
        return tuple(dict.fromkeys(found))

