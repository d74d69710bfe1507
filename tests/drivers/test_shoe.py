"""The dealer shoe against the fake shoe on a pseudo-terminal, through a faulty cable.

Each test opens the host's DealerShoe with pyserial on the fake cable's pty, as on a Pi
with a shoe on USB, and checks what the croupier relies on: every card drawn reaches the
table once and in order, or the table stops with a reason naming what went wrong.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from drivers.errors import BadReading, DeviceUnavailable, DriverError
from drivers.shoe.cards import FULL_PACK, packs_of
from drivers.shoe.fake import WAIT, FakeShoe
from drivers.shoe.link import CommandRefused, DrawnCard, ShoeHealth, ShoeStatus, ShoeTiming
from drivers.shoe.protocol import (
    Ack,
    DeviceKind,
    HelloReq,
    Resend,
    ShoeState,
    decode_message,
    encode_message,
)
from drivers.shoe.shoe import DealerShoe
from drivers.shoe.shuffler import FakeShuffler
from drivers.wire.cable import Faults
from drivers.wire.fake import Recorder, wait_until
from drivers.wire.frame import decode
from drivers.wire.messages import ProtocolMismatch, WrongNode

DOC = Path(__file__).resolve().parents[2] / "docs" / "shoe.md"
NOISE = Faults(corrupt_bytes=0.005)
"""With the shoe's own 0.5% dropped bytes: 1% of the bytes spoilt, both ways."""


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as stack:
        yield stack


def seqs_and_codes(cards: list[DrawnCard]) -> list[tuple[int, str]]:
    return [(card.seq, card.code) for card in cards]


def wait_health(shoe: DealerShoe, state: str) -> ShoeHealth:
    wait_until(lambda: shoe.status().state == state, f"the shoe to be {state}")
    return shoe.status()


def test_thousands_of_cards_cross_a_noisy_line_once_each_and_in_order(stack: ExitStack) -> None:
    rng = random.Random(5)
    dealt = [rng.choice(FULL_PACK) for _ in range(3000)]
    fake = stack.enter_context(
        FakeShoe(dealt, line=NOISE, drop_bytes=0.005, retransmit_ms=20, seed=5)
    )
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards))
    shoe.wait_ready(WAIT)

    assert fake.draw(len(dealt)) == dealt
    got = cards.wait_for(len(dealt), timeout=60.0)
    fake.wait_acked()

    assert seqs_and_codes(got) == list(enumerate(dealt, start=1))
    health = shoe.status()
    assert health.state == "running"
    assert health.framing_errors > 0 and health.delivered == len(dealt)
    assert fake.cable.counts()["to_host"].corrupted_bytes > 0


def test_duplicated_card_frames_are_taken_once(stack: ExitStack) -> None:
    doubling = Faults(duplicate_frames=0.5)
    fake = stack.enter_context(FakeShoe(["AS", "2S", "3S", "4S"], line=doubling))
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards))
    shoe.wait_ready(WAIT)

    fake.duplicate_next()
    fake.draw(4)
    fake.wait_acked()

    assert seqs_and_codes(cards.items) == [(1, "AS"), (2, "2S"), (3, "3S"), (4, "4S")]
    assert shoe.status().duplicates > 0


def test_frames_with_a_bad_crc_are_dropped_and_their_cards_come_again(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe([], corrupt_crc=0.3, seed=3))
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards))
    shoe.wait_ready(WAIT)

    fake.load(list(FULL_PACK))
    fake.draw(52)

    assert [card.code for card in cards.wait_for(52)] == list(FULL_PACK)
    assert shoe.status().framing_errors > 0


def test_a_card_lost_on_the_line_is_asked_for_again(stack: ExitStack) -> None:
    # The shoe's own resend would come only after a minute: the host's RESEND fetches it.
    fake = stack.enter_context(FakeShoe(["KH", "QH", "JH"], retransmit_ms=60_000))
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards))
    shoe.wait_ready(WAIT)

    fake.lose_next()
    fake.draw(3)

    assert [card.code for card in cards.wait_for(3)] == ["KH", "QH", "JH"]
    assert Resend(seq=1) in [message for _seq, message in fake.from_host]


def test_a_gap_the_shoes_own_resend_filled_is_not_asked_for_again(stack: ExitStack) -> None:
    # A gap seen soon after a RESEND waits out the host's 100 ms between resends; the
    # shoe's own resend (20 ms) fills it first. Asking then would name a card not yet
    # drawn, which the shoe refuses while it holds unacknowledged cards: the table would
    # stop for a card that was never missing (seen under noise as a rare stall).
    fake = stack.enter_context(FakeShoe(["KH", "QH", "JH", "10H", "9H"], retransmit_ms=20))
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards))
    shoe.wait_ready(WAIT)

    fake.lose_next()
    fake.draw(2)
    cards.wait_for(2)
    fake.lose_next()
    fake.draw(2)
    cards.wait_for(4)
    fake.wait_acked()
    wait_until(lambda: shoe.status().resends >= 1, "the host to have asked for card 1")
    time.sleep(0.3)  # past the host's next chance to resend

    asked = [message.seq for _seq, message in fake.from_host if isinstance(message, Resend)]
    assert set(asked) <= {1, 3}, f"RESEND of a card never missing: {asked}"
    fake.draw(1)
    assert [card.code for card in cards.wait_for(5)] == ["KH", "QH", "JH", "10H", "9H"]
    assert shoe.status().state == "running"
    assert shoe.status().gaps > 0 and shoe.status().state == "running"


def test_a_card_the_shoe_skipped_stops_the_table_naming_it(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe(["9C", "8C", "7C"]))
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards))
    shoe.wait_ready(WAIT)
    fake.draw(1)
    cards.wait_for(1)

    fake.skip_next()
    fake.draw(2)

    health = wait_health(shoe, "unavailable")
    assert "card 2 never arrived" in health.reason and "cannot resend" in health.reason
    assert [card.code for card in cards.items] == ["9C"]
    assert health.stopped_at == 2
    with pytest.raises(DeviceUnavailable, match="card 2"):
        shoe.wait_ready(WAIT)
    with pytest.raises(ValueError, match="not stopped at item 3"):
        shoe.go_on_after(3)

    # The operator settled card 2 (no card was drawn): the cards behind it flow again.
    shoe.go_on_after(2)
    cards.wait_for(3)
    assert [(card.seq, card.code) for card in cards.items] == [(1, "9C"), (3, "8C"), (4, "7C")]
    assert wait_health(shoe, "running").stopped_at is None
    fake.wait_acked()


def test_a_code_that_is_no_card_is_reported_by_name_and_never_dealt(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe(["AD", "5D", "6D"]))
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards))
    shoe.wait_ready(WAIT)

    fake.draw(1)
    cards.wait_for(1)
    fake.misread_next("1X")
    fake.draw(2)

    health = wait_health(shoe, "unavailable")
    assert "'1X'" in health.reason and "card 2" in health.reason
    assert health.bad_cards >= 1
    with pytest.raises(BadReading, match="'1X'"):
        shoe.wait_ready(WAIT)
    assert [card.code for card in cards.items] == ["AD"]
    assert health.stopped_at == 2

    # The dealer showed card 2 and the table has it: the shoe frees it and goes on.
    shoe.go_on_after(2)
    cards.wait_for(2)
    assert [(card.seq, card.code) for card in cards.items] == [(1, "AD"), (3, "6D")]
    fake.wait_acked()


def test_after_an_unplug_the_cards_drawn_meanwhile_arrive_none_lost_or_doubled(
    stack: ExitStack,
) -> None:
    fake = stack.enter_context(FakeShoe(packs=1, seed=9))
    cards = Recorder[DrawnCard]()
    health = Recorder[ShoeHealth]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards, on_health=health))
    shoe.wait_ready(WAIT)
    drawn = fake.draw(10)
    cards.wait_for(10)

    fake.unplug()
    drawn += fake.draw(10)
    wait_health(shoe, "unavailable")
    fake.replug()
    drawn += fake.draw(10)

    assert [card.code for card in cards.wait_for(30)] == drawn
    fake.wait_acked()
    assert [card.seq for card in cards.items] == list(range(1, 31))
    assert "unavailable" in [h.state for h in health.items]
    assert shoe.status().state == "running" and shoe.status().reconnects >= 1


def test_a_stalled_line_pauses_the_table_and_loses_nothing(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe(["2H", "3H", "4H", "5H"]))
    cards = Recorder[DrawnCard]()
    # A health check every 0.2 s finds the line silent well within the stall.
    timing = ShoeTiming(query_interval=0.2)
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards, timing=timing))
    shoe.wait_ready(WAIT)

    fake.stall(1.5)
    fake.draw(4)

    assert "did not answer" in wait_health(shoe, "unavailable").reason
    assert [card.code for card in cards.wait_for(4)] == ["2H", "3H", "4H", "5H"]
    wait_health(shoe, "running")


def test_a_restarted_host_resumes_after_the_last_card_it_kept(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe(["AC", "2C", "3C", "4C", "5C"]))
    kept: list[str] = []

    def keep_until_the_disk_fills(card: DrawnCard) -> None:
        if len(kept) == 2:
            raise OSError("disk full")
        kept.append(card.code)

    first = DealerShoe(fake.port, on_card=keep_until_the_disk_fills)
    first.wait_ready(WAIT)
    fake.draw(5)
    wait_health(first, "unavailable")
    assert "disk full" in first.status().reason
    position = first.position()
    first.close()
    assert position == (fake.boot_id, 2)

    cards = Recorder[DrawnCard]()
    second = stack.enter_context(DealerShoe(fake.port, on_card=cards, resume=position))
    second.wait_ready(WAIT)

    assert seqs_and_codes(cards.wait_for(3)) == [(3, "3C"), (4, "4C"), (5, "5C")]
    fake.wait_acked()
    hello = [m for _s, m in fake.from_host if isinstance(m, HelloReq)][-1]
    assert (hello.held_boot, hello.held_seq) == (fake.boot_id, 2)
    assert seqs_and_codes(cards.items) == [(3, "3C"), (4, "4C"), (5, "5C")]


def test_a_card_is_acknowledged_only_after_the_table_took_it(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe(["10S", "JS"]))
    acks_seen: list[list[int]] = []

    def on_card(card: DrawnCard) -> None:
        acks_seen.append([m.seq for _s, m in fake.from_host if isinstance(m, Ack)])

    shoe = stack.enter_context(DealerShoe(fake.port, on_card=on_card))
    shoe.wait_ready(WAIT)
    fake.draw(2)
    fake.wait_acked()

    assert all(card_seq not in acked for card_seq, acked in enumerate(acks_seen, start=1))
    assert shoe.status().delivered == 2


def test_the_shoe_state_reaches_the_table(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe(["AH", "2H", "3H", "4H"], cut_card=2))
    statuses = Recorder[ShoeStatus]()
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards, on_status=statuses))
    shoe.wait_ready(WAIT)

    fake.jam("card stuck at the reader")
    wait_until(lambda: statuses.items[-1].state == ShoeState.JAM, "a jam")
    assert statuses.items[-1].detail == "card stuck at the reader"
    with pytest.raises(CommandRefused, match="stuck"):
        shoe.new_shoe(6)
    fake.clear_jam()
    fake.open_door()
    wait_until(lambda: shoe.query().state == ShoeState.DOOR_OPEN, "the door open")
    fake.close_door()

    fake.draw(2)
    wait_until(lambda: statuses.items[-1].state == ShoeState.CUT_CARD, "the cut card")
    fake.draw(2)
    wait_until(lambda: statuses.items[-1].state == ShoeState.EMPTY, "an empty shoe")

    loaded = shoe.new_shoe(6)
    assert (loaded.state, loaded.packs, loaded.dealt) == (ShoeState.LOADED, 6, 0)
    assert fake.remaining == 6 * 52
    assert [card.code for card in cards.wait_for(4)] == ["AH", "2H", "3H", "4H"]
    with pytest.raises(ValueError, match=r"1\.\.8 packs"):
        shoe.new_shoe(9)


def test_a_shoe_of_another_protocol_version_is_refused_naming_both(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe(["AS"], protocol=2))
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=Recorder[DrawnCard]()))
    with pytest.raises(ProtocolMismatch, match=r"version 2.*version 1"):
        shoe.wait_ready(WAIT)


def test_a_shuffler_is_not_taken_for_a_shoe(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShuffler())
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=Recorder[DrawnCard]()))
    with pytest.raises(WrongNode, match=r"shoe.*shuffler"):
        shoe.wait_ready(WAIT)
    assert fake.kind == DeviceKind.SHUFFLER


def test_a_missing_port_is_named_in_the_shoe_state(tmp_path: Path) -> None:
    port = str(tmp_path / "ttyACM9")
    with DealerShoe(port, on_card=Recorder[DrawnCard]()) as shoe:
        health = wait_health(shoe, "unavailable")
        assert port in health.reason and "cannot open" in health.reason
        with pytest.raises(DeviceUnavailable, match="cannot open"):
            shoe.wait_ready(0.3)
        with pytest.raises(DeviceUnavailable, match="cannot open"):
            shoe.query()


def test_a_silent_port_is_reported_as_a_shoe_that_does_not_answer(stack: ExitStack) -> None:
    master, slave = os.openpty()
    stack.callback(os.close, master)
    stack.callback(os.close, slave)
    port = os.ttyname(slave)
    shoe = stack.enter_context(DealerShoe(port, on_card=Recorder[DrawnCard]()))

    health = wait_health(shoe, "unavailable")
    assert "no shoe answers" in health.reason and "HELLO_REQ" in health.reason
    with pytest.raises(DeviceUnavailable, match="did not answer HELLO_REQ"):
        shoe.wait_ready(0.3)


def test_errors_are_driver_errors_and_builtins() -> None:
    assert issubclass(CommandRefused, DriverError) and issubclass(CommandRefused, ValueError)
    assert issubclass(BadReading, ValueError)


def test_every_byte_example_in_the_protocol_document_is_a_valid_frame() -> None:
    examples = re.findall(r"^    ((?:[0-9A-F]{2} )+[0-9A-F]{2})$", DOC.read_text(), re.M)
    assert len(examples) >= 9
    for example in examples:
        raw = bytes.fromhex(example)
        frame = decode(raw)
        assert encode_message(decode_message(frame), frame.seq) == raw, example


def test_a_full_shoe_of_eight_packs_is_dealt_to_its_end(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShoe(packs=8, seed=2, retransmit_ms=20))
    cards = Recorder[DrawnCard]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=cards))
    shoe.wait_ready(WAIT)
    drawn = fake.draw(1000)

    assert len(drawn) == 8 * 52
    got = [card.code for card in cards.wait_for(len(drawn))]
    assert got == drawn and sorted(got) == sorted(packs_of(8))
    wait_until(lambda: shoe.query().state == ShoeState.EMPTY, "an empty shoe")
