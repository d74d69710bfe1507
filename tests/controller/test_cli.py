"""The `hoyle` command as a club's script would call it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
GAMES_CSV = REPO.parent / "shared" / "spec" / "games.csv"


def hoyle(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], input=stdin,
                          capture_output=True, text=True, cwd=REPO, timeout=120)


def transcript(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines))
    return path


def test_games_json_lists_every_bowling_game_with_catalogue_ids() -> None:
    done = hoyle("games", "--json")
    assert done.returncode == 0, done.stderr
    games = json.loads(done.stdout)
    ids = {g["id"] for g in games if g["family"] == "bowling"}
    if GAMES_CSV.exists():
        import csv

        with GAMES_CSV.open(newline="") as f:
            wanted = {row["id"] for row in csv.DictReader(f) if row["family"] == "bowling"}
        assert ids == wanted
    for game in games:
        assert set(game) == {"id", "family", "name", "book", "aliases"}


def test_adjudicate_prints_the_result(tmp_path: Path) -> None:
    path = transcript(tmp_path, {"type": "setup", "players": ["Jones"]},
                      *({"type": "ball", "player": "Jones", "standing": s}
                        for s in ([], [1], [], [1, 2, 3], [1, 2])))
    done = hoyle("adjudicate", "ten-pins", str(path))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["frames"] == {"Jones": [20, 37, 45]}
    assert result["scores"] == {"Jones": 45}
    assert result["over"] is False and result["winner"] is None
    assert {"kind", "who", "amount", "text", "law"} <= set(result["rulings"][0])


@pytest.mark.parametrize(("line", "problem"), [
    ("{not json", "line 3: not JSON"),
    ({"type": "ball", "player": "Zed", "standing": []}, "line 3: unknown player 'Zed'"),
    ({"type": "ball", "player": "Bob", "standing": []}, "line 3: ball by Bob out of turn"),
    ({"type": "ball", "player": "Ann", "standing": [1, 2]},
     "line 3: ball by Ann: pin 2 reported standing but it was already down in frame 1"),
    ({"type": "ball", "player": "Ann", "standing": [1, 12]}, "line 3: ball: pin 12 is not"),
    ({"type": "roll", "player": "Ann"}, "line 3: bowling has no 'roll' event"),
    # A misspelt foul is not passed over as a fair ball (lines 4081-4095: a foul ball).
    ({"type": "ball", "player": "Bob", "standing": [], "foull": True},
     "line 3: ball: unknown key 'foull'; a ball event takes type, player, standing, foul"),
])
def test_bad_transcript_exits_2_naming_the_line(tmp_path: Path, line: object,
                                                problem: str) -> None:
    path = transcript(tmp_path, {"type": "setup", "players": ["Ann", "Bob"]},
                      {"type": "ball", "player": "Ann", "standing": [1]}, line)
    done = hoyle("adjudicate", "ten-pins", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert problem in done.stderr


def test_a_setup_key_it_does_not_take_exits_2_naming_it(tmp_path: Path) -> None:
    path = transcript(tmp_path, {"type": "setup", "players": ["Ann"], "optoins": {}})
    done = hoyle("adjudicate", "ten-pins", str(path))
    assert done.returncode == 2
    assert "line 1: setup: unknown key 'optoins'; a setup takes type, players, options" in (
        done.stderr)


@pytest.mark.parametrize("args", [("games",), ("games", "--json")])
def test_output_into_a_pipe_whose_reader_is_gone_ends_quietly(args: tuple[str, ...]) -> None:
    """`hoyle games | head`: the reader stops early; the command ends without a traceback,
    with the status a pipe's writer has then (128 + SIGPIPE)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "controller.cli", *args],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=REPO,
                              timeout=120, check=False)
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert done.stderr == ""


def test_unknown_game_exits_2(tmp_path: Path) -> None:
    path = transcript(tmp_path, {"type": "setup", "players": ["Ann"]})
    done = hoyle("adjudicate", "skittles", str(path))
    assert done.returncode == 2 and "unknown game 'skittles'" in done.stderr


def test_transcript_from_stdin() -> None:
    lines = [{"type": "setup", "players": ["Ann"]}] + [
        {"type": "ball", "player": "Ann", "standing": []}] * 12
    done = hoyle("adjudicate", "ten-pins", "-", stdin="\n".join(map(json.dumps, lines)))
    result = json.loads(done.stdout)
    assert result["scores"] == {"Ann": 300} and result["winner"] == "Ann" and result["over"]


def test_a_plain_pin_on_the_clubs_network_is_refused_naming_its_line(tmp_path: Path) -> None:
    from tests.controller.helpers import write_config

    config = write_config(tmp_path / "lane.toml", 'id = "lane-7"',
                          '[dashboard]\nhost = "0.0.0.0"\n[lane]\nbackend = "fake"\n')
    done = hoyle("serve", "--config", str(config))
    assert done.returncode == 2
    assert f"{config}, line 5: table.operator_pin: a plain PIN" in done.stderr, done.stderr
    assert not (tmp_path / "lane-7.db").exists()
