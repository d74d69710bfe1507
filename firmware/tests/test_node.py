# The node's protocol engine: commands, cached responses, reports with retransmission
# and cumulative ACKs, shutdown and RESET, on fake pins with a hand-moved clock.

import foulline
import pindeck
import pockets
import wire
from helpers import Bench, check, equal
from node import FW_VERSION, QUEUE_MAX, Switch


def _report(bench, number, value):
    """Drive an input, step past the debounce time, return the REPORT frames sent."""
    bench.set(number, value)
    bench.step(1, 12)
    return [f for f in bench.received() if f[0] == "REPORT"]


def test_identify_names_the_node():
    b = Bench(pindeck)
    name, seq, fields = b.command("IDENTIFY_REQ", {"host_protocol": 1}, seq=7)[0]
    equal((name, seq), ("IDENTIFY", 7), "response")
    equal(fields, {"protocol": 1, "node_type": 1, "fw_major": FW_VERSION[0],
                   "fw_minor": FW_VERSION[1], "fw_patch": FW_VERSION[2],
                   "boot_id": 0x12345678, "next_report": 0, "inputs": 12}, "fields")


def test_each_node_type_counts_its_inputs():
    for kind, count in ((pindeck, 12), (pockets, 7), (foulline, 1)):
        frames = Bench(kind).command("IDENTIFY_REQ", {"host_protocol": 1})
        equal((frames[0][2]["node_type"], frames[0][2]["inputs"]), (kind.NODE_TYPE, count),
              "identify")


def test_report_carries_the_edge_time_and_is_acknowledged():
    b = Bench(pindeck)
    b.step(1, 100)
    reports = _report(b, 3, 1)
    equal(reports, [("REPORT", 0, {"input": 3, "value": 1, "time_ms": 101})], "report")
    b.send("ACK", 0)
    b.step(1, 200)
    equal(b.received(), [], "acknowledged: never sent again, ACK never answered")
    equal(b.node.queue, [], "queue")


def test_unacknowledged_reports_are_resent_in_order_every_retransmit_ms():
    b = Bench(pindeck)
    equal(len(_report(b, 1, 1)), 1, "first report")
    equal(len(_report(b, 2, 1)), 1, "second report")
    b.step(1, 60)  # 50 ms after the first report was sent
    seqs = [f[1] for f in b.received()]
    equal(seqs[:2], [0, 1], "go-back-N from the oldest")
    b.step(50)
    equal([f[1] for f in b.received()], [0, 1], "again after retransmit_ms")


def test_cumulative_ack_clears_everything_up_to_its_seq():
    b = Bench(pindeck)
    for number in (1, 2, 3):
        _report(b, number, 1)
    b.send("ACK", 1)
    b.step(0)
    equal([entry[0] for entry in b.node.queue], [2], "left unacknowledged")
    b.step(50)
    equal([f[1] for f in b.received()], [2], "only report 2 resent")


def test_ack_of_a_report_not_queued_is_ignored():
    b = Bench(pindeck)
    _report(b, 1, 1)
    for stale in (65535, 5, 40000):
        b.send("ACK", stale)
        b.step(0)
    equal([entry[0] for entry in b.node.queue], [0], "still queued")


def test_report_seq_wraps_and_ack_covers_across_the_wrap():
    b = Bench(pindeck)
    b.node.next_seq = 65535
    equal([f[1] for f in _report(b, 1, 1) + _report(b, 2, 1)], [65535, 0], "seqs")
    b.send("ACK", 0)
    b.step(0)
    equal(b.node.queue, [], "both acknowledged")


def test_identify_next_report_is_the_oldest_unacknowledged():
    b = Bench(pindeck)
    for number in (1, 2, 3):
        _report(b, number, 1)
    b.send("ACK", 0)
    frames = b.command("IDENTIFY_REQ", {"host_protocol": 1})
    identify = [f for f in frames if f[0] == "IDENTIFY"][0]
    equal(identify[2]["next_report"], 1, "next_report")


def test_repeated_seq_gets_the_cached_response_without_running_again():
    b = Bench(pindeck)
    _report(b, 1, 1)
    first = b.command("RESET", seq=500)
    equal([f[0] for f in first], ["RESET_OK"], "reset")
    _report(b, 2, 1)
    again = b.command("RESET", seq=500)
    equal(again, first, "cached response")
    equal([entry[0] for entry in b.node.queue], [1], "the new report was not cleared")


def test_repeated_query_does_not_report_twice():
    b = Bench(pindeck)
    frames = b.command("QUERY", seq=9)
    equal(len(frames), 13, "QUERY_OK and 12 reports")
    equal(b.command("QUERY", seq=9), [("QUERY_OK", 9, {})], "cached, no new reports")
    equal(len(b.node.queue), 12, "queue")


def test_same_seq_with_another_command_is_a_new_command():
    b = Bench(pindeck)
    b.command("CONFIG", {"key": 1, "value": 20}, seq=4)
    equal(b.command("CONFIG", {"key": 1, "value": 30}, seq=4)[0][2]["value"], 30, "value")
    equal(b.command("PING", seq=4)[0][0], "PONG", "different type")


def test_identify_req_is_answered_afresh_even_with_a_repeated_seq():
    b = Bench(pindeck)
    b.command("IDENTIFY_REQ", {"host_protocol": 1}, seq=0)
    _report(b, 1, 1)
    b.send("ACK", 0)
    frames = b.command("IDENTIFY_REQ", {"host_protocol": 1}, seq=0)
    equal(frames[0][2]["next_report"], 1, "a restarted host gets the queue as it is now")


def test_config_bounds():
    b = Bench(pindeck)
    cases = (
        (1, 0, ("NACK", 3, "debounce_ms 0 out of 1..200")),
        (1, 201, ("NACK", 3, "debounce_ms 201 out of 1..200")),
        (1, 1, ("CONFIG_OK", 1)),
        (1, 200, ("CONFIG_OK", 200)),
        (2, 9, ("NACK", 3, "retransmit_ms 9 out of 10..1000")),
        (2, 1001, ("NACK", 3, "retransmit_ms 1001 out of 10..1000")),
        (2, 10, ("CONFIG_OK", 10)),
        (2, 1000, ("CONFIG_OK", 1000)),
        (3, 1, ("NACK", 3, "unknown key 3")),
        (0, 1, ("NACK", 3, "unknown key 0")),
    )
    for key, value, expected in cases:
        name, _, fields = b.command("CONFIG", {"key": key, "value": value})[0]
        if name == "NACK":
            got = (name, fields["code"], fields["text"])
        else:
            got = (name, fields["value"])
            equal(fields["key"], key, "key")
        equal(got, expected, "CONFIG %d=%d" % (key, value))
    equal(b.node.config, {1: 200, 2: 1000}, "values in force")


def test_config_debounce_ms_takes_effect():
    b = Bench(foulline)
    b.command("CONFIG", {"key": 1, "value": 100})
    b.set(1, 1)
    b.step(1)  # the edge is seen at 1 ms
    b.step(1, 99)
    equal(b.received(), [], "not steady for 100 ms yet")
    b.step(1)
    equal(b.received(), [("REPORT", 0, {"input": 1, "value": 1, "time_ms": 1})],
          "steady for 100 ms")


def test_config_retransmit_ms_takes_effect():
    b = Bench(foulline)
    b.command("CONFIG", {"key": 2, "value": 500})
    _report(b, 1, 1)
    b.step(1, 480)
    equal(b.received(), [], "not yet")
    b.step(1, 20)
    equal([f[1] for f in b.received()], [0], "resent after 500 ms")


def test_ping_reports_uptime_unacked_and_state():
    b = Bench(pindeck)
    _report(b, 5, 1)
    b.step(1, 5)
    b.received()
    equal(b.command("PING", seq=3), [("PONG", 3, {"uptime_ms": 17, "unacked": 1,
                                                  "state": 0})], "pong")


def test_bad_payload_length_and_unknown_types_are_refused():
    b = Bench(pindeck)
    b.stream.incoming.extend(wire.encode(0x04, 20, b"\x00"))
    b.step(0)
    equal(b.only("NACK")[1:], (20, {"code": 2, "text": "bad payload length 1"}), "ping+1")
    for type_code in (0x42, 0x81, 0x90, 0x00):
        b.stream.incoming.extend(wire.encode(type_code, 21 + type_code, b""))
        b.step(0)
        equal(b.only("NACK")[2], {"code": 1, "text": "unknown type 0x%02X" % type_code},
              "type 0x%02X" % type_code)


def test_protocol_mismatch_identifies_then_refuses_with_nack_4():
    b = Bench(pindeck)
    frames = b.command("IDENTIFY_REQ", {"host_protocol": 2})
    equal((frames[0][0], frames[0][2]["protocol"]), ("IDENTIFY", 1), "identify anyway")
    for name in ("PING", "QUERY", "RESET"):
        equal(b.command(name)[0][2], {"code": 4, "text": "protocol mismatch: host 2, node 1"},
              name)
    b.command("CONFIG", {"key": 1, "value": 50})
    equal(b.node.config[1], 10, "mismatched CONFIG not applied")
    b.command("IDENTIFY_REQ", {"host_protocol": 1})
    equal(b.command("PING")[0][0], "PONG", "matched again")


def test_oscillating_input_shuts_the_node_down():
    b = Bench(pindeck)
    for i in range(1100):
        b.set(4, (i + 1) % 2)
        b.step(i % 2)  # two samples a millisecond: 2000 changes a second
    frames = b.received()
    shutdowns = [f for f in frames if f[0] == "SHUTDOWN"]
    equal(shutdowns, [("SHUTDOWN", 0, {"code": 1, "text": "input 4 oscillating"})], "shutdown")
    equal(b.node.state, wire.STATE_SHUTDOWN, "state")


def test_shutdown_repeats_every_second_and_refuses_commands():
    b = Bench(pindeck)
    b.node.enter_shutdown(1, "test", b.now)
    b.step(0)
    equal(b.received(), [("SHUTDOWN", 0, {"code": 1, "text": "test"})], "at once")
    b.step(1, 999)
    equal(b.received(), [], "not before a second")
    b.step(1)
    equal([f[0] for f in b.received()], ["SHUTDOWN"], "a second later")
    for name, fields in (("CONFIG", {"key": 1, "value": 5}), ("QUERY", None)):
        equal(b.command(name, fields)[0][2], {"code": 5, "text": "shut down: test"}, name)
    equal(b.command("PING")[0][2]["state"], 1, "PONG state")
    equal(b.command("IDENTIFY_REQ", {"host_protocol": 1})[0][0], "IDENTIFY", "identify")
    b.set(1, 1)
    b.step(1, 50)
    equal([f[0] for f in b.received()], [], "inputs not reported in shutdown")


def test_reset_leaves_shutdown_and_clears_the_queue():
    b = Bench(pindeck)
    _report(b, 1, 1)
    _report(b, 2, 1)
    b.node.enter_shutdown(1, "test", b.now)
    frames = b.command("RESET")
    equal([f[0] for f in frames], ["RESET_OK"], "reset")
    equal((b.node.state, b.node.queue), (0, []), "running, queue empty")
    b.step(1, 2000)
    equal(b.received(), [], "no SHUTDOWN and no retransmission after RESET")
    equal(_report(b, 3, 1)[0][1], 2, "report numbering goes on")
    identify = b.command("IDENTIFY_REQ", {"host_protocol": 1})[0]
    equal(identify[2]["next_report"], 2, "next_report after RESET")


def test_queue_overflow_shuts_down_with_code_2():
    b = Bench(pockets)
    b.board.uarts["reader"].inject(bytes(range(1, QUEUE_MAX + 2)))
    b.step(1)
    frames = b.received()
    equal(len([f for f in frames if f[0] == "REPORT"]), QUEUE_MAX, "reports sent")
    equal(frames[-1], ("SHUTDOWN", 0, {"code": 2, "text": "report queue full"}), "shutdown")
    equal(len(b.node.queue), QUEUE_MAX, "queued reports are kept until RESET")


def test_queued_reports_are_still_resent_in_shutdown():
    b = Bench(pindeck)
    _report(b, 1, 1)
    b.node.enter_shutdown(1, "test", b.now)
    b.step(1, 50)
    names = [f[0] for f in b.received()]
    check("REPORT" in names, "the report taken before the shutdown is not lost")
    b.send("ACK", 0)
    b.step(0)
    equal(b.node.queue, [], "acknowledged in shutdown")


def test_query_reports_every_input_after_its_response():
    b = Bench(pindeck)
    b.set(2, 1)
    b.step(1, 20)
    b.received()
    b.send("ACK", 0)
    frames = b.command("QUERY", seq=60)
    equal(frames[0], ("QUERY_OK", 60, {}), "response first")
    values = [(f[2]["input"], f[2]["value"]) for f in frames[1:]]
    equal(values, [(n, 1 if n == 2 else 0) for n in range(1, 13)], "every input")
    equal(frames[2][2]["time_ms"], 1, "the time of the edge that began the steady run")
    equal([f[1] for f in frames[1:]], list(range(1, 13)), "numbered as reports")


def test_pin_deck_ball_detector_and_pinsetter_together_over_5s():
    b = Bench(pindeck)
    b.set(11, 1)
    b.set(12, 1)
    b.step(1, 5000)
    check("SHUTDOWN" not in [f[0] for f in b.received()], "5 s is allowed")
    b.step(1, 20)
    shutdowns = [f for f in b.received() if f[0] == "SHUTDOWN"]
    equal(shutdowns[0][2], {"code": 1,
                            "text": "ball detector and pinsetter both active > 5 s"}, "text")


def test_pockets_ball_identity_reports_each_ball():
    b = Bench(pockets)
    b.set(7, 15)
    b.set(7, 15)
    b.step(1)
    reports = [f[2] for f in b.received()]
    equal(reports, [{"input": 7, "value": 15, "time_ms": 1}] * 2, "two balls numbered 15")
    equal(b.node.by_number[7].value, 15, "current value")


def test_foul_line_beam_is_active_high():
    b = Bench(foulline)
    equal(b.node.by_number[1].pin.value(), 0, "beam seen: pin low")
    equal([f[2]["value"] for f in _report(b, 1, 1)], [1], "broken")
    equal(b.node.by_number[1].pin.value(), 1, "beam broken: pin high")


class _Broken:
    number = 1
    value = 0
    since = 0

    def poll(self, now_ms, debounce_ms):
        raise OSError(5)

    def fault(self):
        return None

    def restart(self, now_ms):
        pass


def test_an_exception_in_the_loop_shuts_down_with_code_2():
    b = Bench(foulline)
    b.node.inputs = [_Broken()]
    b.step(1)
    frames = b.received()
    equal(frames[0][0], "SHUTDOWN", "shutdown")
    equal(frames[0][2]["code"], 2, "internal error")
    check(frames[0][2]["text"].startswith("internal error: OSError"), frames[0][2]["text"])


def test_switch_reads_active_low_through_the_pull_up():
    class Pin:
        level = 1

        def value(self):
            return self.level

    pin = Pin()
    switch = Switch(1, pin, 0)
    equal(switch.read(), 0, "open contact")
    pin.level = 0
    equal(switch.read(), 1, "closed contact")
