"""What a scoreboard shows for the table's view: rows of text chosen by fixed rules.

Every board draws the same rows: the first is the line a one-line board shows (who is
up with their score, the winner once the game is over, ``PAUSED`` when the table waits
on a device or the operator, the table's name when idle), the others the rest of the
score as far as the board has rows. Each row is cut to fit by fixed rules, never by
scrolling, so the same view always gives the same picture.

Per family, the player up and what is shown beside their score:

- bowling: the bowler, their total and frame (``ANN 145 F3``);
- dice: the caster, their total and the point once one is made (``ANN 10 P6``);
- cards: the banker and their total (``ANN BANK -12``), then the last payout (``BOB +10``);
- billiards: the striker, their total and their run (``ANN 22 R5``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "BOARD_CHARS",
    "BoardRow",
    "Fits",
    "Role",
    "board_name",
    "board_rows",
    "board_text",
    "family_of",
    "player_up",
]

Fits = Callable[[str], bool]
Role = Literal["up", "player", "winner", "payout", "notice", "title"]

#: The characters a board's line is made of: what a font must draw legibly.
BOARD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_NAME_CHARS = frozenset(BOARD_CHARS + "-.'&+")

# Card rulings whose signed amount is money that changed hands with the player named
# (stakes put up, bids and draws carry amounts too, but are not payouts).
_PAYOUT_KINDS = frozenset({"bet-won", "bet-lost", "won", "lost", "natural", "banker-natural",
                           "bust", "refait", "overdrawn", "bonus", "refused"})


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One row of a board's picture; its role decides its colour on a colour board."""

    text: str
    role: Role


def board_name(name: str) -> str:
    """Fold a user-typed name to the capitals, digits and marks an LED font draws legibly.

    Accents are dropped (Zoë reads ZOE); anything else the font cannot draw is left out
    rather than shown as a blot, and runs of spaces become one.
    """
    folded = unicodedata.normalize("NFKD", name)
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch)).upper()
    kept = "".join(ch if ch in _NAME_CHARS else " " for ch in plain)
    return " ".join(kept.split())


def family_of(game: Mapping[str, object]) -> str:
    """The board's family of a game: bowling, dice, cards or billiards ("" if unknown)."""
    family = _text(game.get("family"))
    if family.endswith("billiards"):
        return "billiards"
    if family.endswith("cards"):
        return "cards"
    return family if family in ("bowling", "dice") else ""


def _text(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _number(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _mapping(value: object) -> Mapping[str, object] | None:
    return value if isinstance(value, Mapping) else None


def _sequence(value: object) -> Sequence[object]:
    return value if isinstance(value, list | tuple) else ()


def _rows(game: Mapping[str, object]) -> list[Mapping[str, object]]:
    return [row for row in map(_mapping, _sequence(game.get("sheet"))) if row is not None]


def _player_row(game: Mapping[str, object], player: str) -> Mapping[str, object] | None:
    for row in _rows(game):
        if row.get("player") == player:
            return row
    return None


def _player_total(game: Mapping[str, object], player: str) -> int | None:
    row = _player_row(game, player)
    return _number(row.get("total")) if row is not None else None


def _with_names(templates: Sequence[tuple[str, int]], name: str, fits: Fits,
                **fields: str) -> str | None:
    """First template, with the name cut no shorter than its minimum, that fits the board."""
    for template, shortest in templates:
        cuts = range(len(name), min(shortest, len(name)) - 1, -1)
        for length in cuts if "{name}" in template else (len(name),):
            candidate = " ".join(template.format(name=name[:length].rstrip(), **fields).split())
            if fits(candidate):
                return candidate
    return None


def _cut_to_fit(line: str, fits: Fits) -> str:
    while line and not fits(line):
        line = line[:-1].rstrip()
    return line


def _first_fit(fits: Fits, *lines: str) -> str:
    """The first line that fits, else the last one cut down to fit."""
    for line in lines:
        if fits(line):
            return line
    return _cut_to_fit(lines[-1], fits)


def player_up(game: Mapping[str, object]) -> str | None:
    """Whose turn the board names: the bowler, the caster, the banker, the striker."""
    family = family_of(game)
    if family == "bowling":
        up = _mapping(game.get("up"))
        player = up.get("player") if up is not None else None
    elif family == "dice":
        player = game.get("caster")
    elif family == "cards":
        player = game.get("banker") or game.get("dealer")
    elif family == "billiards":
        player = game.get("striker")
    else:
        player = None
    return player if isinstance(player, str) and player else None


def _tag(game: Mapping[str, object], family: str, player: str) -> str:
    """What the family shows beside the score of the player up."""
    if family == "bowling":
        up = _mapping(game.get("up"))
        frame = _number(up.get("frame")) if up is not None else None
        return f"F{frame}" if frame is not None else ""
    if family == "dice":
        point = _number(game.get("point"))
        return f"P{point}" if point is not None else ""
    if family == "billiards":
        row = _player_row(game, player)
        run = _number(row.get("run")) if row is not None else None
        return f"R{run}" if run is not None else ""
    return ""


def _running_line(game: Mapping[str, object], family: str, player: str, fits: Fits) -> str:
    total = _player_total(game, player)
    fields = {"total": str(total if total is not None else 0),
              "tag": _tag(game, family, player)}
    if family == "cards":
        templates = [("{name} BANK {total}", 3), ("BANK {total}", 0), ("{name} {total}", 1),
                     ("{total}", 0)]
    else:
        # The name and total matter more than the tag, which the sheet also shows.
        templates = [("{name} {total} {tag}", 3), ("{name} {total}", 1), ("{total} {tag}", 0),
                     ("{total}", 0)]
    return _with_names(templates, board_name(player), fits, **fields) or _cut_to_fit(
        fields["total"], fits)


def _over_line(game: Mapping[str, object], fits: Fits) -> str:
    winners = [w for w in _sequence(game.get("winners")) if isinstance(w, str)]
    if not winners:
        return _first_fit(fits, "GAME OVER", "OVER")
    total = _player_total(game, winners[0])
    shown = str(total) if total is not None else ""
    if len(winners) > 1:
        names = " ".join(board_name(w) for w in winners)
        templates = [("{name} TIE {total}", len(names)), ("TIE {total}", 0), ("TIE", 0)]
        return _with_names(templates, names, fits, total=shown) or _cut_to_fit("TIE", fits)
    templates = [("{name} WINS {total}", 3), ("{name} WINS", 3), ("{name} {total}", 1),
                 ("{name}", 1)]
    name = board_name(winners[0])
    return _with_names(templates, name, fits, total=shown) or _cut_to_fit(name, fits)


def _score_line(name: str, amount: str, fits: Fits) -> str:
    templates = [("{name} {amount}", 1), ("{amount}", 0)]
    return _with_names(templates, board_name(name), fits, amount=amount) or _cut_to_fit(
        amount, fits)


def _last_payout(game: Mapping[str, object], fits: Fits) -> BoardRow | None:
    """The last money that changed hands at a banking game, as ``BOB +10``."""
    players = set(_sequence(game.get("players")))
    for ruling in reversed(_sequence(game.get("rulings"))):
        entry = _mapping(ruling)
        if entry is None or entry.get("kind") not in _PAYOUT_KINDS:
            continue
        who, amount = entry.get("who"), _number(entry.get("amount"))
        if isinstance(who, str) and who in players and amount is not None:
            return BoardRow(_score_line(who, f"{amount:+d}", fits), "payout")
    return None


def _standings(game: Mapping[str, object], fits: Fits, *, leave_out: str | None
               ) -> list[BoardRow]:
    winners = set(_sequence(game.get("winners"))) if game.get("over") is True else set()
    out = []
    for row in _rows(game):
        player = _text(row.get("player"))
        if player == leave_out:
            continue
        total = _number(row.get("total"))
        line = _score_line(player, str(total if total is not None else 0), fits)
        out.append(BoardRow(line, "winner" if player in winners else "player"))
    return out


def board_rows(view: Mapping[str, object], fits: Fits, rows: int = 1) -> tuple[BoardRow, ...]:
    """Up to ``rows`` rows a view puts on a board where ``fits(line)`` says what is narrow enough.

    Board-agnostic so every board (matrix, seven-segment, HUB75, serial) shows the same words.
    """
    game = _mapping(view.get("game"))
    family = family_of(game) if game is not None else ""
    picture: list[BoardRow] = []
    up: str | None = None
    if view.get("status") == "paused":
        picture.append(BoardRow(_first_fit(fits, "PAUSED", "PAUSE"), "notice"))
    elif game is not None and game.get("over") is True:
        picture.append(BoardRow(_over_line(game, fits), "winner"))
    elif game is not None and view.get("status") == "running":
        up = player_up(game)
        if up is not None:
            picture.append(BoardRow(_running_line(game, family, up, fits), "up"))
        payout = _last_payout(game, fits) if family == "cards" else None
        if payout is not None:
            picture.append(payout)
    if game is not None:
        picture.extend(_standings(game, fits, leave_out=up))
    if not picture:
        picture.append(BoardRow(_cut_to_fit(board_name(_text(view.get("table"), "HOYLE")),
                                            fits), "title"))
    return tuple(row for row in picture[:max(rows, 1)] if row.text)


def board_text(view: Mapping[str, object], fits: Fits) -> str:
    """The one line a view puts on a one-line board; the first of ``board_rows``."""
    shown = board_rows(view, fits, 1)
    return shown[0].text if shown else ""
