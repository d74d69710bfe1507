# Framing, CRC, the message table and the receiver, against firmware/golden.json.

import binascii

import wire
from helpers import check, equal, golden


def _valid():
    return [v for v in golden() if "invalid" not in v]


def _invalid():
    return [v for v in golden() if "invalid" in v]


def test_crc16_check_value():
    # The published check value of CRC-16/CCITT-FALSE.
    equal(wire.crc16(b"123456789"), 0x29B1, "crc")


def test_encoder_produces_every_golden_frame():
    for vector in _valid():
        data = wire.frame(vector["message"], vector["seq"], vector["fields"])
        equal(binascii.hexlify(data).decode(), vector["hex"], vector["name"])


def test_receiver_accepts_every_golden_frame():
    for vector in _valid():
        rx = wire.Receiver()
        frames = rx.feed(binascii.unhexlify(vector["hex"]))
        equal(len(frames), 1, vector["name"])
        name, fields = wire.unpack(frames[0].type, frames[0].payload)
        equal((name, frames[0].type, frames[0].seq),
              (vector["message"], vector["type"], vector["seq"]), vector["name"])
        equal(fields, vector["fields"], vector["name"])
        equal(rx.framing_errors, 0, vector["name"])


def test_receiver_rejects_every_invalid_golden_frame():
    for vector in _invalid():
        rx = wire.Receiver()
        frames = rx.feed(binascii.unhexlify(vector["hex"]))
        equal(frames, [], vector["name"])
        equal(rx.framing_errors, vector["framing_errors"], vector["name"] + " framing errors")


def test_golden_types_and_directions_match_the_table():
    for vector in _valid():
        equal(wire.MESSAGES[vector["message"]][0], vector["type"], vector["name"])
        host_to_node = vector["type"] < 0x80
        equal(vector["direction"], "host->node" if host_to_node else "node->host",
              vector["name"])
    covered = set(v["message"] for v in _valid())
    equal(sorted(covered), sorted(wire.MESSAGES), "messages with a golden vector")


def test_frames_fed_one_byte_at_a_time():
    stream = b"".join(binascii.unhexlify(v["hex"]) for v in _valid())
    rx = wire.Receiver()
    frames = []
    for i in range(len(stream)):
        frames.extend(rx.feed(stream[i:i + 1]))
    equal(len(frames), len(_valid()), "frames")
    equal(rx.framing_errors, 0, "framing errors")


def test_frame_found_after_garbage():
    ping = wire.frame("PING", 9)
    garbage = bytes([0x7E, 0x0D, 0xFF, 0x00, 0x07, 0x07, 0x07, 0x41, 0x7E, 0x93, 0x09])
    rx = wire.Receiver()
    frames = rx.feed(garbage + ping + ping, 0)
    equal([(f.type, f.seq) for f in frames], [(0x04, 9), (0x04, 9)], "frames")
    check(rx.framing_errors > 0, "garbage that looks like a frame start counts")


def test_garbage_with_a_long_len_delays_the_next_frame_until_stale():
    # 0x22 claims a 34-byte frame: the receiver waits for it, then gives up on it
    # STALE_MS after it arrived even though bytes keep coming.
    ping = wire.frame("PING", 9)
    rx = wire.Receiver()
    equal(rx.feed(bytes([0x22, 0x01]) + ping, 0), [], "waiting for 34 bytes")
    equal(rx.feed(ping, wire.STALE_MS - 1), [], "still waiting")
    frames = rx.feed(b"\x01", wire.STALE_MS)
    equal([f.seq for f in frames], [9, 9], "both pings once the head is stale")
    equal(rx.framing_errors, 1, "one framing error for the stale fragment")


def test_corrupt_frame_is_dropped_and_the_next_one_found():
    first = bytearray(wire.frame("REPORT", 1, {"input": 1, "value": 1, "time_ms": 5}))
    first[6] ^= 0x10
    second = wire.frame("REPORT", 2, {"input": 2, "value": 0, "time_ms": 6})
    third = wire.frame("REPORT", 3, {"input": 3, "value": 1, "time_ms": 7})
    rx = wire.Receiver()
    frames = rx.feed(bytes(first) + second + third, 0)
    # Byte 6 now reads 0x15, a LEN of 21 that swallows the second frame until more
    # bytes come (here the third frame) or it goes stale.
    equal([f.seq for f in frames], [2, 3], "frames")
    check(rx.framing_errors >= 1, "the corrupt frame counts")


def test_truncated_frame_before_a_good_one_costs_only_itself():
    cut = wire.frame("REPORT", 1, {"input": 1, "value": 1, "time_ms": 5})[:6]
    good = wire.frame("PING", 3)
    rx = wire.Receiver()
    frames = rx.feed(cut + good + good)
    equal([f.seq for f in frames], [3, 3], "frames after the cut one")


def test_truncated_frame_is_discarded_when_stale():
    # LEN says 64: without the stale rule the next frames would wait behind it.
    cut = bytes([64, 1, 0, 0x90, 1, 1])
    good = wire.frame("PING", 5)
    rx = wire.Receiver()
    equal(rx.feed(cut, 0), [], "nothing yet")
    equal(rx.expire(wire.STALE_MS - 1), [], "still waiting just before STALE_MS")
    equal(rx.expire(wire.STALE_MS), [], "discarded at STALE_MS")
    equal(rx.framing_errors, 1, "one framing error for the discarded fragment")
    equal([f.seq for f in rx.feed(good, wire.STALE_MS + 1)], [5], "the next frame")
    equal(rx.buf, bytearray(), "nothing left over")


def test_stale_flush_keeps_a_complete_frame_behind_a_cut_one():
    cut = bytes([64, 1, 0, 0x90])
    good = wire.frame("PING", 6)
    rx = wire.Receiver()
    equal(rx.feed(cut + good, 0), [], "waiting on the LEN 64 head")
    equal([f.seq for f in rx.expire(wire.STALE_MS)], [6], "found once the head is stale")


def test_fresh_bytes_are_not_discarded_with_a_stale_head():
    cut = bytes([64, 1, 0, 0x90])
    good = wire.frame("PING", 7)
    rx = wire.Receiver()
    rx.feed(cut, 0)
    late = wire.STALE_MS + wire.STALE_MS // 2
    equal(rx.feed(good[:3], late), [], "the stale head goes, the new frame's start stays")
    equal([f.seq for f in rx.feed(good[3:], late + 1)], [7], "completed")


def test_encode_refuses_what_does_not_fit():
    for bad in ((0x100, 0, b""), (0x04, 0x10000, b""), (0x04, -1, b""), (0x8F, 0, bytes(58))):
        try:
            wire.encode(*bad)
        except ValueError:
            continue
        raise AssertionError("encoded %r" % (bad,))
    equal(len(wire.encode(0x8F, 0, bytes(57))), 64, "max frame")


def test_text_is_cut_to_fit_and_made_ascii():
    data = wire.frame("NACK", 1, {"code": 1, "text": "\u00e9" + "x" * 80})
    equal(len(data), 64, "frame length")
    name, fields = wire.unpack(data[3], data[4:-3])
    equal(fields["text"], "?" + "x" * 55, "text")


def test_unpack_refuses_wrong_lengths_and_types():
    for type_code, payload in ((0x04, b"\x00"), (0x90, bytes(5)), (0x91, b""), (0x42, b"")):
        try:
            wire.unpack(type_code, payload)
        except ValueError:
            continue
        raise AssertionError("unpacked 0x%02X %r" % (type_code, payload))
