"""The wire protocol's frames and messages: golden byte vectors, the firmware's own table,
errors that name what is wrong, and a receiver that finds every frame in noise."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from drivers.errors import DriverError
from drivers.wire.frame import (
    STALE_AFTER,
    Frame,
    FrameReceiver,
    WireError,
    crc16,
    decode,
    encode,
)
from drivers.wire.messages import (
    CONFIG_BOUNDS,
    PROTOCOL_VERSION,
    Config,
    ConfigKey,
    Nack,
    NackCode,
    NodeState,
    Ping,
    Report,
    ShutdownCode,
    decode_bytes,
    decode_message,
    encode_message,
    message_table,
    message_table_json,
)

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
GOLDEN: list[dict[str, Any]] = json.loads((FIRMWARE / "golden.json").read_text())
VALID = [v for v in GOLDEN if "invalid" not in v]
INVALID = [v for v in GOLDEN if "invalid" in v]


def firmware_wire() -> ModuleType:
    """The firmware's own protocol table (firmware/common/wire.py runs under CPython)."""
    spec = importlib.util.spec_from_file_location("firmware_wire", FIRMWARE / "common" / "wire.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def crc16_bitwise(data: bytes) -> int:
    """CRC-16/CCITT-FALSE the slow way, straight from its definition."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


# --- CRC and golden vectors ---------------------------------------------------------------


def test_crc16_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1  # the published check value
    for data in (b"", b"\x00", b"\x7e\x7e", bytes(range(256))):
        assert crc16(data) == crc16_bitwise(data)


def test_golden_file_has_vectors_of_every_message() -> None:
    names = {v["message"] for v in VALID}
    assert names == {cls.NAME for cls in message_table().values()}
    assert INVALID


@pytest.mark.parametrize("vector", VALID, ids=[v["name"] for v in VALID])
def test_every_golden_frame_encodes_to_its_bytes(vector: dict[str, Any]) -> None:
    cls = message_table()[vector["type"]]
    assert vector["message"] == cls.NAME
    assert ("host->node" if cls.TO_DEVICE else "node->host") == vector["direction"]
    raw = encode_message(cls(**vector["fields"]), vector["seq"])
    assert raw.hex() == vector["hex"]


@pytest.mark.parametrize("vector", VALID, ids=[v["name"] for v in VALID])
def test_every_golden_frame_decodes_to_its_fields(vector: dict[str, Any]) -> None:
    seq, message = decode_bytes(bytes.fromhex(vector["hex"]))
    assert (seq, message.NAME) == (vector["seq"], vector["message"])
    assert {name: getattr(message, name) for name in vector["fields"]} == vector["fields"]
    receiver = FrameReceiver()
    assert receiver.feed(bytes.fromhex(vector["hex"])) == [decode(bytes.fromhex(vector["hex"]))]
    assert receiver.framing_errors == 0


def reason_of(vector: dict[str, Any]) -> str:
    """The rule an invalid golden vector breaks, from its description."""
    text = vector["invalid"]
    if "CRC" in text:
        return "crc"
    if "sync" in text:
        return "sync"
    return "length"


@pytest.mark.parametrize("vector", INVALID, ids=[v["name"] for v in INVALID])
def test_every_invalid_golden_frame_is_rejected_with_its_reason(vector: dict[str, Any]) -> None:
    raw = bytes.fromhex(vector["hex"])
    with pytest.raises(WireError) as caught:
        decode(raw)
    assert caught.value.reason == reason_of(vector)
    assert isinstance(caught.value, DriverError) and isinstance(caught.value, ValueError)
    receiver = FrameReceiver()
    assert receiver.feed(raw) == []
    assert receiver.framing_errors == vector["framing_errors"]


def test_wire_errors_say_what_is_wrong() -> None:
    ping = encode(0x04, 6)
    with pytest.raises(WireError, match="CRC 0x27c8 does not match 0x27c9"):
        decode(ping[:4] + b"\x27\xc8\x7e")
    with pytest.raises(WireError, match="last byte is 0x7d, not the sync byte"):
        decode(ping[:-1] + b"\x7d")
    with pytest.raises(WireError, match="LEN says 7 bytes but the frame has 8"):
        decode(ping + b"\x00")
    with pytest.raises(WireError, match="unknown message type 0x42"):
        decode_message(Frame(0x42, 1, b""))
    with pytest.raises(WireError, match="PONG payload is 5 bytes, expected 6"):
        decode_message(Frame(0x84, 1, bytes(5)))
    with pytest.raises(WireError, match="NACK payload is 0 bytes, expected at least 1"):
        decode_message(Frame(0x8F, 1, b""))
    with pytest.raises(WireError, match="NACK text is not ASCII") as caught:
        decode_message(Frame(0x8F, 1, b"\x03caf\xc3\xa9"))
    assert caught.value.reason == "text"


def test_encoding_refuses_values_that_do_not_fit() -> None:
    with pytest.raises(WireError, match=r"REPORT.value=256 does not fit u8 \(0..255\)"):
        encode_message(Report(input=1, value=256, time_ms=0), 1)
    with pytest.raises(WireError, match=r"CONFIG.value=-1 does not fit u16"):
        encode_message(Config(key=1, value=-1), 1)
    with pytest.raises(WireError, match="sequence number 65536"):
        encode_message(Ping(), 65536)
    with pytest.raises(WireError, match=r"NACK\.text must be ASCII"):
        encode_message(Nack(code=1, text="naïve"), 1)
    with pytest.raises(WireError, match="NACK payload is 58 bytes, at most 57"):
        encode_message(Nack(code=1, text="x" * 57), 1)


# --- the firmware's table -----------------------------------------------------------------


def test_message_table_matches_the_firmware_table() -> None:
    fw = firmware_wire()
    ours = {
        name: (entry["type"], entry["format"], tuple(entry["fields"]))
        for name, entry in message_table_json().items()
    }
    assert ours == {
        name: (code, layout, tuple(names)) for name, (code, layout, names) in fw.MESSAGES.items()
    }
    assert json.loads(json.dumps(message_table_json())) == message_table_json()


def test_protocol_numbers_match_the_firmware() -> None:
    fw = firmware_wire()
    assert fw.PROTOCOL == PROTOCOL_VERSION
    assert {
        key: (name, b.low, b.high, b.default)
        for key, b, name in ((k.value, CONFIG_BOUNDS[k], k.name.lower()) for k in ConfigKey)
    } == fw.CONFIG_KEYS
    assert (fw.MIN_LEN, fw.MAX_LEN, fw.SYNC) == (7, 64, 0x7E)
    assert [fw.NACK_UNKNOWN_TYPE, fw.NACK_BAD_LENGTH, fw.NACK_OUT_OF_BOUNDS] == [
        NackCode.UNKNOWN_TYPE,
        NackCode.BAD_PAYLOAD_LENGTH,
        NackCode.VALUE_OUT_OF_BOUNDS,
    ]
    assert [fw.NACK_PROTOCOL, fw.NACK_SHUT_DOWN] == [
        NackCode.PROTOCOL_MISMATCH,
        NackCode.NODE_IS_SHUT_DOWN,
    ]
    assert list(ShutdownCode) == [
        fw.SHUTDOWN_IMPOSSIBLE_INPUT,
        fw.SHUTDOWN_INTERNAL_ERROR,
        fw.SHUTDOWN_WATCHDOG,
    ]
    assert list(NodeState) == [fw.STATE_RUNNING, fw.STATE_SHUTDOWN]


# --- the receiver -------------------------------------------------------------------------


class ManualClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_frame_behind_a_stray_length_byte_is_found_once_the_stray_goes_stale() -> None:
    clock = ManualClock()
    receiver = FrameReceiver(clock=clock)
    ping = encode(0x04, 9)
    assert receiver.feed(b"\x40" + ping) == []  # 0x40 claims a 64-byte frame: wait for it
    clock.now = STALE_AFTER * 0.99
    assert receiver.feed() == []
    clock.now = STALE_AFTER
    assert receiver.feed() == [Frame(0x04, 9, b"")]
    assert receiver.framing_errors == 1 and receiver.buffered == 0


def test_a_truncated_frame_is_discarded_once_stale_and_the_next_frame_read() -> None:
    clock = ManualClock()
    receiver = FrameReceiver(clock=clock)
    report = encode_message(Report(input=3, value=1, time_ms=1234), 7)
    assert receiver.feed(report[:9]) == []
    clock.now = STALE_AFTER * 1.5
    ping = encode(0x04, 2)
    assert receiver.feed(ping) == [Frame(0x04, 2, b"")]
    assert receiver.framing_errors >= 1


frames = st.builds(
    lambda t, s, p: encode(t, s, p),
    st.integers(0, 255),
    st.integers(0, 0xFFFF),
    st.binary(max_size=57),
)


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.tuples(st.binary(max_size=80), frames), max_size=12),
    tail=st.binary(max_size=80),
    cuts=st.lists(st.integers(1, 40), max_size=40),
)
def test_receiver_finds_every_frame_in_noise_in_order(
    parts: list[tuple[bytes, bytes]], tail: bytes, cuts: list[int]
) -> None:
    for garbage in [g for g, _ in parts] + [tail]:
        # Garbage that happens to hold a valid frame is not garbage.
        assume(FrameReceiver(stale_after=0.0).feed(garbage) == [])
    stream = b"".join(g + f for g, f in parts) + tail
    want = [decode(f) for _, f in parts]
    clock = ManualClock()
    receiver = FrameReceiver(clock=clock)
    got: list[Frame] = []
    at = 0
    for cut in cuts:
        got += receiver.feed(stream[at : at + cut])
        at += cut
    got += receiver.feed(stream[at:])
    clock.now = 2 * STALE_AFTER  # the line goes quiet: a stray length byte gives way
    got += receiver.feed()
    assert got == want
