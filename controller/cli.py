"""The `hoyle` command: serve, games, adjudicate, replay, dice audit, vision eval, doctor, pin-hash.

Results go to stdout, messages to stderr. Exit 0 on success, 2 on bad input
(a wrong config, an invalid transcript), 1 on other failures.
"""

from __future__ import annotations

import argparse
import getpass
import ipaddress
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from controller.adjudicate import TranscriptError, adjudicate
from controller.auth import PIN_PATTERN, hash_pin, is_pin_hash
from controller.config import Config, config_error, load_config
from controller.errors import CannotServe, ConfigError
from controller.writerlock import LogInUseError
from engine.errors import UnknownGameError
from engine.registry import all_games

EXIT_BAD_INPUT = 2
#: The status of a writer whose pipe's reader went away (128 + SIGPIPE), as a shell reports it.
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and give its exit status (see the module docstring).

    A reader that stops early (`hoyle games | head`) ends the command quietly, with the
    status a pipe's writer has then, not a traceback; how is Python's own advice on SIGPIPE.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.command == "serve" else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    try:
        result: int = args.run(args)
        sys.stdout.flush()
        return result
    except BrokenPipeError:
        # stdout's reader is gone (the commands write to no other pipe): point stdout at
        # devnull, so that Python's own flush at exit does not fail on it again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (ConfigError, TranscriptError, UnknownGameError, LogInUseError,
            CannotServe) as error:
        print(f"hoyle: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hoyle", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the table service and its dashboard")
    serve.add_argument("--config", type=Path, help="the table's TOML file (default: the "
                       "simulated lane)")
    serve.add_argument("--host", help="address to serve the dashboard on")
    serve.add_argument("--port", type=_port, help="port to serve the dashboard on")
    serve.add_argument("--club", action="store_true", help="club mode: the club view of "
                       "every table on the config's [mqtt] broker (docs/club.md)")
    serve.set_defaults(run=_serve)

    games = commands.add_parser("games", help="list the games the engine rules")
    games.add_argument("--json", action="store_true", help="print JSON")
    games.set_defaults(run=_games)

    judge = commands.add_parser("adjudicate", help="rule a transcript (JSON lines) by the book")
    judge.add_argument("game", help="game id, as `hoyle games` lists them")
    judge.add_argument("transcript", type=Path, help="the transcript file, or - for stdin")
    judge.set_defaults(run=_adjudicate)

    replay = commands.add_parser("replay", help="replay a table's log from its first entry")
    where = replay.add_mutually_exclusive_group()
    where.add_argument("--config", type=Path, help="the table's TOML file")
    where.add_argument("--log", type=Path, help="the log file itself")
    replay.add_argument("--upto", type=int, help="stop after this log entry")
    replay.add_argument("--history", action="store_true",
                        help="print every entry with its rulings, one JSON object a line")
    replay.set_defaults(run=_replay)

    dice = commands.add_parser("dice", help="the dice table's tools")
    dice_commands = dice.add_subparsers(dest="dice_command", required=True)
    audit = dice_commands.add_parser("audit", help="face counts and a chi-square test of "
                                     "every die, per game session, from a table's log")
    where = audit.add_mutually_exclusive_group()
    where.add_argument("--config", type=Path, help="the table's TOML file")
    where.add_argument("--log", type=Path, help="the log file itself")
    audit.add_argument("--json", action="store_true", help="print JSON")
    audit.set_defaults(run=_dice_audit)

    vision = commands.add_parser("vision", help="the recognisers' tools")
    vision_commands = vision.add_subparsers(dest="vision_command", required=True)
    evaluate = vision_commands.add_parser("eval", help="score a recogniser against a labelled "
                                          "image folder (DIR/labels.jsonl); prints JSON")
    evaluate.add_argument("kind", choices=("dice", "cards"), help="what the images show")
    evaluate.add_argument("folder", type=Path, help="the labelled folder")
    evaluate.add_argument("--shoe", action="store_true",
                          help="cards seen through a dealer shoe's window, one at a time")
    evaluate.add_argument("--threshold", type=float,
                          help="the confidence (0.5-1) at which a read counts as sure "
                          "(default: the recogniser's own; a card table's camera.card_threshold)")
    evaluate.set_defaults(run=_vision_eval)

    doctor = commands.add_parser("doctor", help="check that every device answers (run it "
                                 "with the service stopped)")
    doctor.add_argument("--config", type=Path, help="the table's TOML file")
    doctor.add_argument("--scan", action="store_true",
                        help="also identify the sensor node on every serial port found")
    doctor.add_argument("--json", action="store_true", help="print JSON")
    doctor.set_defaults(run=_doctor)

    pin_hash = commands.add_parser("pin-hash", help="hash an operator PIN for the config's "
                                   "table.operator_pin_hash (reads the PIN from stdin, or "
                                   "asks for it on a terminal)")
    pin_hash.set_defaults(run=_pin_hash)
    return parser


def _serve(args: argparse.Namespace) -> int:
    config = load_config(args.config) if args.config else Config.simulated()
    if args.club:
        from controller.club.serve import serve_club

        serve_club(config, host=args.host, port=args.port)
        return 0
    host = args.host or config.host
    if not is_pin_hash(config.operator_pin) and not _loopback(host):
        raise config_error(config, "table.operator_pin", "a plain PIN only serves a "
                           f"dashboard on this machine, not on {host}; set "
                           "table.operator_pin_hash (make it with `hoyle pin-hash`)")
    from controller.service import serve

    serve(config, host=host, port=args.port)
    return 0


def _port(text: str) -> int:
    """A TCP port number from the command line (1-65535), or argparse's usage error."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: ports are 1 to 65535")
    return port


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _pin_hash(args: argparse.Namespace) -> int:
    if sys.stdin.isatty():
        pin = getpass.getpass("Operator PIN (4-12 digits): ")
        if PIN_PATTERN.fullmatch(pin) and getpass.getpass("Again: ") != pin:
            print("hoyle: the two PINs differ", file=sys.stderr)
            return EXIT_BAD_INPUT
    else:
        pin = sys.stdin.readline().strip()
    if not PIN_PATTERN.fullmatch(pin):
        print("hoyle: a PIN is 4-12 digits", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(hash_pin(pin))
    return 0


def _games(args: argparse.Namespace) -> int:
    games = [g.describe() for g in all_games()]
    if args.json:
        print(json.dumps(games, indent=2))
    else:
        for game in games:
            aliases = f" (also {', '.join(game['aliases'])})" if game["aliases"] else ""
            print(f"{game['id']:28} {game['family']:10} {game['name']}{aliases}")
    return 0


def _adjudicate(args: argparse.Namespace) -> int:
    if str(args.transcript) == "-":
        lines = sys.stdin.read().splitlines()
        name = "stdin"
    else:
        try:
            lines = args.transcript.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise TranscriptError(f"{args.transcript}: cannot read it: {error}") from None
        name = str(args.transcript)
    print(json.dumps(adjudicate(args.game, lines, name), indent=2))
    return 0


def _log_path(args: argparse.Namespace) -> tuple[Path, str]:
    """The log a `--log` or `--config` option names, and its table id; ConfigError if none."""
    if args.log:
        path, table_id = args.log, args.log.stem
    else:
        config = load_config(args.config) if args.config else Config.simulated()
        path, table_id = config.log_path, config.table_id
    if not path.exists():
        raise ConfigError(f"no log at {path}")
    return path, table_id


def _replay(args: argparse.Namespace) -> int:
    from controller.eventlog import SqliteEventLog
    from controller.fold import TableState, blocked_words
    from controller.table import replay_entries, replay_state

    path, table_id = _log_path(args)
    with SqliteEventLog(path, read_only=True) as event_log:
        if args.history:
            state = TableState()
            for entry, rulings in replay_entries(event_log, state=state):
                if args.upto is not None and entry.seq > args.upto:
                    break
                record = entry.to_json()
                record["rulings"] = [r.to_json() for r in rulings]
                print(json.dumps(record))
        else:
            state = replay_state(event_log, upto=args.upto)
            print(json.dumps(state.view(table_id), indent=2))
    if state.blocked is not None:
        print(f"hoyle: {path}: the table needs the operator: {blocked_words(state.blocked)}; "
              f"the state above is the table's before it (void or correct entry "
              f"{state.blocked['seq']} on the dashboard)", file=sys.stderr)
        return 1
    return 0


def _dice_audit(args: argparse.Namespace) -> int:
    from controller.dice_audit import audit, dice_sessions, games
    from controller.eventlog import SqliteEventLog

    path, table_id = _log_path(args)
    with SqliteEventLog(path, read_only=True) as event_log:
        played = games(event_log)
    found = dice_sessions(played)
    if not found:
        held = sorted({game.game_id for game in played})
        raise ConfigError(f"{path}: not a dice table's log: it holds no dice game, only "
                          + (", ".join(held) if held else "no game at all"))
    report = audit(found, table_id)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    rows = [(f"session at entry {s['start_seq']} ({s['game']})", s) for s in report["sessions"]]
    for title, part in [*rows, ("all sessions", report["all"])]:
        throws, seen = part["throws"], part["faces_seen"]
        print(f"{title}: {throws} throw{'' if throws == 1 else 's'}, "
              f"{seen} face{'' if seen == 1 else 's'}")
        for name, faces in [("all dice", part["faces"]), *part["dice"].items()]:
            counts = " ".join(f"{face}:{n}" for face, n in faces["counts"].items())
            print(f"  {name:8} {counts}  chi2={faces['chi_square']:.2f} "
                  f"p={faces['p_value']:.3f}  {faces['verdict']}")
    return 0


def _vision_eval(args: argparse.Namespace) -> int:
    from vision.cards import CardReader, ShoeWindowReader
    from vision.core import Recogniser, VisionError
    from vision.dice import DiceReader
    from vision.evaluate import evaluate

    if args.threshold is not None and not 0.5 <= args.threshold <= 1:
        print(f"hoyle: --threshold {args.threshold} is not between 0.5 and 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    progress = _progress_bar if sys.stderr.isatty() else None
    reader: Recogniser
    if args.kind == "dice":
        reader = DiceReader()
    else:
        reader = ShoeWindowReader() if args.shoe else CardReader()
    try:
        result = evaluate(reader, args.folder, args.kind, progress=progress,
                          threshold=args.threshold)
    except VisionError as error:
        print(f"hoyle: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(json.dumps(result, indent=2))
    return 0


def _progress_bar(done: int, total: int) -> None:
    """A one-line progress bar on the terminal's stderr."""
    width = 40
    filled = width * done // max(total, 1)
    end = "\n" if done >= total else ""
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end=end,
          file=sys.stderr, flush=True)


def _doctor(args: argparse.Namespace) -> int:
    from controller.doctor import check_node, diagnose, serial_ports

    config = load_config(args.config) if args.config else Config.simulated()
    checks = diagnose(config)
    if args.scan:
        ports = serial_ports()
        checks.extend(check_node(port, "node (found)") for port in ports)
        if not ports:
            print("hoyle: no serial ports found (/dev/serial/by-id, /dev/ttyACM*, "
                  "/dev/ttyUSB*)", file=sys.stderr)
    if args.json:
        print(json.dumps([c.to_json() for c in checks], indent=2))
    else:
        width = max((len(check.device) for check in checks), default=0)
        for check in checks:
            mark = "ok    " if check.ok else "SILENT"
            print(f"{mark} {check.device:{width}} {check.where:40} {check.detail}")
    return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
