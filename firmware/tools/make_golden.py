"""Writes firmware/golden.json: byte vectors of the Hoyle node wire protocol, version 1.

Independent of the firmware on purpose: it encodes frames with struct and
binascii.crc_hqx straight from the spec (firmware/PROTOCOL.md), so a firmware or host
encoder that agrees with these bytes agrees with the spec, not merely with itself.

    python firmware/tools/make_golden.py [OUT]   (default: firmware/golden.json)
"""

from __future__ import annotations

import binascii
import json
import struct
import sys
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "golden.json"

# name -> (type, struct layout of the fixed fields, field names; a last "text" field is
# the ASCII rest of the payload). Written out again here rather than imported from the
# firmware, so a mistake in either table shows up as a disagreement.
LAYOUTS: dict[str, tuple[int, str, tuple[str, ...]]] = {
    "IDENTIFY_REQ": (0x01, "<B", ("host_protocol",)),
    "CONFIG": (0x02, "<BH", ("key", "value")),
    "ACK": (0x03, "<", ()),
    "PING": (0x04, "<", ()),
    "RESET": (0x05, "<", ()),
    "QUERY": (0x06, "<", ()),
    "IDENTIFY": (0x81, "<BBBBBIHB", ("protocol", "node_type", "fw_major", "fw_minor",
                                     "fw_patch", "boot_id", "next_report", "inputs")),
    "CONFIG_OK": (0x82, "<BH", ("key", "value")),
    "PONG": (0x84, "<IBB", ("uptime_ms", "unacked", "state")),
    "RESET_OK": (0x85, "<", ()),
    "QUERY_OK": (0x86, "<", ()),
    "NACK": (0x8F, "<B", ("code", "text")),
    "REPORT": (0x90, "<BBI", ("input", "value", "time_ms")),
    "SHUTDOWN": (0x91, "<B", ("code", "text")),
}

# The longest text a NACK or SHUTDOWN can carry: 64-byte frame, 7 bytes of framing, 1 code.
LONGEST_TEXT = "impossible input: the pin 10 spot switch reads 1, 0, 1.."
assert len(LONGEST_TEXT) == 56


def frame(type_code: int, seq: int, payload: bytes) -> bytes:
    """LEN, SEQ, TYPE, PAYLOAD, CRC (big-endian), SYNC."""
    head = struct.pack("<BHB", len(payload) + 7, seq, type_code) + payload
    return head + struct.pack(">H", binascii.crc_hqx(head, 0xFFFF)) + b"\x7e"


def payload(message: str, fields: dict[str, Any]) -> bytes:
    _, layout, names = LAYOUTS[message]
    fixed = [n for n in names if n != "text"]
    text = fields["text"].encode("ascii") if "text" in names else b""
    return struct.pack(layout, *(fields[n] for n in fixed)) + text


def valid(name: str, message: str, seq: int, **fields: Any) -> dict[str, Any]:
    type_code = LAYOUTS[message][0]
    data = frame(type_code, seq, payload(message, fields))
    return {
        "name": name,
        "message": message,
        "direction": "host->node" if type_code < 0x80 else "node->host",
        "type": type_code,
        "seq": seq,
        "fields": fields,
        "hex": data.hex(),
    }


def reference_framing_errors(data: bytes) -> tuple[int, int]:
    """(frames, framing errors) of a fresh receiver fed `data` at once, no idle timeout.

    The receiver rule of the spec, written for this script only: LEN outside 7..64 drops
    one byte (not counted); too few bytes waits; bad SYNC or CRC drops one byte and counts.
    """
    buf = bytearray(data)
    frames = errors = 0
    while buf:
        length = buf[0]
        if not 7 <= length <= 64:
            del buf[0]
        elif len(buf) < length:
            break
        elif buf[length - 1] != 0x7E or binascii.crc_hqx(bytes(buf[:length - 3]), 0xFFFF) != (
                buf[length - 3] << 8 | buf[length - 2]):
            errors += 1
            del buf[0]
        else:
            frames += 1
            del buf[:length]
    return frames, errors


def invalid(name: str, data: bytes, why: str) -> dict[str, Any]:
    frames, errors = reference_framing_errors(data)
    assert frames == 0, name
    return {"name": name, "hex": data.hex(), "invalid": why, "framing_errors": errors}


def vectors() -> list[dict[str, Any]]:
    ping = frame(0x04, 3, b"")
    report = bytes.fromhex(valid("", "REPORT", 7, input=3, value=1, time_ms=1234)["hex"])
    bad_crc = bytearray(ping)
    bad_crc[4] ^= 0xFF
    bad_sync = bytearray(ping)
    bad_sync[-1] = 0x7D
    wrong_len = bytearray(report)
    wrong_len[0] = 12
    too_long = bytes([65]) + bytes(64)
    return [
        valid("identify_req", "IDENTIFY_REQ", 1, host_protocol=1),
        valid("identify_req_protocol_2", "IDENTIFY_REQ", 2, host_protocol=2),
        valid("config_debounce_ms", "CONFIG", 3, key=1, value=25),
        valid("config_retransmit_ms_max", "CONFIG", 4, key=2, value=1000),
        valid("config_unknown_key", "CONFIG", 5, key=9, value=0xBEEF),
        valid("ping", "PING", 6),
        valid("ping_seq_wrap", "PING", 65535),
        valid("ping_after_wrap", "PING", 0),
        valid("reset", "RESET", 7),
        valid("query", "QUERY", 8),
        valid("ack_first_report", "ACK", 0),
        valid("ack_seq_wrap", "ACK", 65535),
        valid("identify_pindeck", "IDENTIFY", 1, protocol=1, node_type=1, fw_major=1,
              fw_minor=0, fw_patch=0, boot_id=0xDEADBEEF, next_report=0, inputs=12),
        valid("identify_pockets", "IDENTIFY", 1, protocol=1, node_type=2, fw_major=1,
              fw_minor=2, fw_patch=3, boot_id=0x01020304, next_report=65535, inputs=7),
        valid("identify_foulline", "IDENTIFY", 2, protocol=1, node_type=3, fw_major=1,
              fw_minor=0, fw_patch=0, boot_id=0, next_report=513, inputs=1),
        valid("config_ok", "CONFIG_OK", 3, key=1, value=25),
        valid("pong_running", "PONG", 6, uptime_ms=123456, unacked=3, state=0),
        valid("pong_shutdown_uptime_wrap", "PONG", 65535, uptime_ms=0xFFFFFFFF, unacked=64,
              state=1),
        valid("reset_ok", "RESET_OK", 7),
        valid("query_ok", "QUERY_OK", 8),
        valid("nack_unknown_type", "NACK", 9, code=1, text="unknown type 0x42"),
        valid("nack_bad_length", "NACK", 10, code=2, text="bad payload length 1"),
        valid("nack_out_of_bounds", "NACK", 11, code=3, text="debounce_ms 500 out of 1..200"),
        valid("nack_protocol_mismatch", "NACK", 12, code=4,
              text="protocol mismatch: host 2, node 1"),
        valid("nack_shut_down", "NACK", 13, code=5, text="shut down: report queue full"),
        valid("nack_no_text", "NACK", 14, code=3, text=""),
        valid("nack_max_payload", "NACK", 15, code=1, text=LONGEST_TEXT),
        valid("report", "REPORT", 7, input=3, value=1, time_ms=1234),
        valid("report_seq_wrap_time_wrap", "REPORT", 65535, input=12, value=0,
              time_ms=0xFFFFFFFF),
        valid("report_after_wrap", "REPORT", 0, input=12, value=1, time_ms=0),
        valid("report_sync_bytes_inside", "REPORT", 0x7E7E, input=0x7E, value=1,
              time_ms=0x7E7E7E7E),
        valid("report_ball_identity", "REPORT", 300, input=7, value=15, time_ms=86400000),
        valid("shutdown_oscillating", "SHUTDOWN", 0, code=1, text="input 4 oscillating"),
        valid("shutdown_together", "SHUTDOWN", 0, code=1,
              text="ball detector and pinsetter both active > 5 s"),
        valid("shutdown_queue_full", "SHUTDOWN", 0, code=2, text="report queue full"),
        valid("shutdown_watchdog", "SHUTDOWN", 0, code=3, text="watchdog reset"),
        valid("shutdown_max_payload", "SHUTDOWN", 0, code=2, text=LONGEST_TEXT),
        invalid("bad_crc", bytes(bad_crc), "CRC does not match (PING with its CRC inverted)"),
        invalid("bad_sync", bytes(bad_sync), "last byte 0x7D, not the sync byte 0x7E"),
        invalid("len_too_small", bytes([6, 3, 0, 4, 0x7E, 0x7E]), "LEN 6 is below 7"),
        invalid("len_zero", bytes(7), "LEN 0 is below 7"),
        invalid("len_too_large", too_long, "LEN 65 is above 64"),
        invalid("len_wrong", bytes(wrong_len),
                "LEN 12 where the REPORT is 13 bytes: byte 11 is not 0x7E"),
        invalid("truncated", report[:9], "REPORT cut after 9 of its 13 bytes; a receiver "
                "waits for the rest, and discards it 1 s after it arrived"),
    ]


def render() -> str:
    """golden.json's exact text."""
    return json.dumps(vectors(), indent=1) + "\n"


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUT
    out.write_text(render(), encoding="ascii")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
