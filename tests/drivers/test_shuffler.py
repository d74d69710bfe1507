"""Pack verification, the shuffler on a pseudo-terminal, and the record of cards dealt."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.errors import BadReading, DriverError, LinkTimeout
from drivers.shoe.cards import FULL_PACK, MAX_PACKS, packs_of
from drivers.shoe.fake import WAIT, FakeShoe
from drivers.shoe.link import DrawnCard
from drivers.shoe.shoe import DealerShoe
from drivers.shoe.shuffler import (
    DealtRecord,
    FakeShuffler,
    PackRejected,
    ShuffledPack,
    Shuffler,
    verify_packs,
)
from drivers.wire.cable import Faults
from drivers.wire.fake import Recorder, wait_until

UNKNOWN = ["ZZ", "1H", "11S", "JOKER", "as", "10", ""]


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as stack:
        yield stack


@st.composite
def spoilt_shoes(draw: st.DrawFn) -> tuple[int, list[str], Counter[str], list[tuple[int, str]]]:
    """A shoe of 1-8 packs with cards removed, added and duplicated, and what was done."""
    packs = draw(st.integers(1, MAX_PACKS))
    rng = random.Random(draw(st.integers(0, 2**32)))
    cards = packs_of(packs)
    change: Counter[str] = Counter()
    for _ in range(draw(st.integers(0, 6))):
        removed = cards.pop(rng.randrange(len(cards)))
        change[removed] -= 1
    for _ in range(draw(st.integers(0, 4))):
        duplicate = rng.choice(cards)
        cards.append(duplicate)
        change[duplicate] += 1
    for _ in range(draw(st.integers(0, 4))):
        extra = rng.choice(FULL_PACK)
        cards.append(extra)
        change[extra] += 1
    rng.shuffle(cards)
    unknown: list[tuple[int, str]] = []
    for _ in range(draw(st.integers(0, 3))):
        cards.insert(rng.randrange(len(cards) + 1), draw(st.sampled_from(UNKNOWN)))
    unknown = [(at, code) for at, code in enumerate(cards, start=1) if code not in FULL_PACK]
    return packs, cards, change, unknown


@settings(max_examples=300, deadline=None)
@given(spoilt_shoes())
def test_every_missing_extra_and_unknown_card_is_named_exactly(
    shoe: tuple[int, list[str], Counter[str], list[tuple[int, str]]],
) -> None:
    packs, cards, change, unknown = shoe

    report = verify_packs(cards, packs)

    assert dict(report.missing) == {c: -n for c, n in change.items() if n < 0}
    assert dict(report.duplicated) == {c: packs + n for c, n in change.items() if n > 0}
    assert list(report.unknown) == unknown
    assert report.ok == (not unknown and not +change and not -change)
    text = str(report)
    for code, short in report.missing:
        assert (f"missing {code}" if short == 1 else f"missing {short} copies of {code}") in text
    for code, found in report.duplicated:
        assert f"{found} copies of {code} in a {packs}-pack shoe" in text
    for at, code in unknown:
        assert f"unknown card {code!r} at position {at}" in text


def test_a_report_reads_as_the_croupier_would_say_it() -> None:
    cards = [c for c in FULL_PACK if c != "7H"] + ["QS"]
    cards.insert(16, "ZZ")
    assert str(verify_packs(cards)) == (
        "missing 7H; 2 copies of QS in a 1-pack shoe; unknown card 'ZZ' at position 17"
    )
    assert str(verify_packs(packs_of(6), packs=6)) == "312 cards: 6 full packs"


def test_a_shoe_size_outside_one_to_eight_packs_is_refused() -> None:
    with pytest.raises(ValueError, match=r"1\.\.8 packs"):
        verify_packs(FULL_PACK, packs=0)
    with pytest.raises(ValueError, match=r"1\.\.8 packs"):
        verify_packs(FULL_PACK, packs=9)


def test_a_good_pack_through_the_shuffler_is_accepted(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShuffler(seed=4, line=Faults(corrupt_bytes=0.005)))
    packs = Recorder[ShuffledPack]()
    shuffler = stack.enter_context(Shuffler(fake.port, packs=6, on_pack=packs))
    shuffler.wait_ready(WAIT)

    order = fake.shuffle(packs=6)
    pack = shuffler.wait_pack(WAIT)

    assert list(pack.cards) == order and pack.report.ok
    assert (pack.first_seq, pack.end_seq) == (1, 6 * 52 + 1)
    assert packs.items == [pack]


def test_a_pack_with_a_card_missing_and_one_doubled_is_rejected_naming_both(
    stack: ExitStack,
) -> None:
    fake = stack.enter_context(FakeShuffler())
    shuffler = stack.enter_context(Shuffler(fake.port, packs=1))
    shuffler.wait_ready(WAIT)

    fake.shuffle([c if c != "7H" else "QS" for c in FULL_PACK])
    with pytest.raises(PackRejected, match="missing 7H; 2 copies of QS in a 1-pack shoe") as err:
        shuffler.wait_pack(WAIT)

    assert isinstance(err.value, DriverError) and isinstance(err.value, ValueError)
    assert err.value.report.missing == (("7H", 1),)


def test_a_pack_cut_short_by_a_host_restart_is_rejected(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShuffler())
    fake.shuffle(list(FULL_PACK))
    fake.wait_drawn(52)

    # The host before this one kept the first ten cards, then died.
    restarted = Shuffler(fake.port, packs=1, resume=(fake.boot_id, 10))
    shuffler = stack.enter_context(restarted)
    with pytest.raises(PackRejected, match="counted 52 cards but 42 arrived"):
        shuffler.wait_pack(WAIT)


def test_a_misread_in_the_shuffler_stops_the_line_naming_the_code(stack: ExitStack) -> None:
    fake = stack.enter_context(FakeShuffler())
    shuffler = stack.enter_context(Shuffler(fake.port, packs=1))
    shuffler.wait_ready(WAIT)
    fake.misread_next("KX")
    fake.shuffle(list(FULL_PACK))

    wait_until(lambda: shuffler.status().state == "unavailable", "the shuffler to stop")
    with pytest.raises(BadReading, match="'KX'"):
        shuffler.wait_ready(WAIT)
    with pytest.raises(LinkTimeout):
        shuffler.wait_pack(0.2)


def test_the_dealt_record_replays_a_noisy_shoe_card_by_card(stack: ExitStack) -> None:
    fake = stack.enter_context(
        FakeShoe(packs=2, seed=8, line=Faults(corrupt_bytes=0.005), drop_bytes=0.005)
    )
    record = DealtRecord()
    added = Recorder[bool]()
    shoe = stack.enter_context(DealerShoe(fake.port, on_card=lambda c: added(record.add(c))))
    shoe.wait_ready(WAIT)
    drawn = fake.draw(2 * 52)
    assert added.wait_for(len(drawn)) == [True] * len(drawn)

    assert record.codes() == drawn and record.verify(2).ok
    assert [card.seq for card in record.replay()] == list(range(1, 105))
    assert record.codes(upto=3) == drawn[:3]
    rows = json.loads(json.dumps(record.to_json()))
    assert DealtRecord.from_json(rows).codes() == drawn


def test_the_dealt_record_takes_a_card_once_and_refuses_a_skip_or_a_clash() -> None:
    record = DealtRecord([DrawnCard(1, 1, "AS", 10, 0.0), DrawnCard(1, 2, "KD", 20, 0.0)])

    assert record.add(DrawnCard(1, 2, "KD", 20, 0.0)) is False
    with pytest.raises(BadReading, match=r"cards 3\.\.4 are missing"):
        record.add(DrawnCard(1, 5, "QD", 50, 0.0))
    with pytest.raises(BadReading, match="held as KD; the shoe now says QD"):
        record.add(DrawnCard(1, 2, "QD", 20, 0.0))
    assert record.add(DrawnCard(2, 1, "JD", 5, 0.0)) is True
    assert [(c.boot_id, c.seq, c.code) for c in record.replay()] == [
        (1, 1, "AS"), (1, 2, "KD"), (2, 1, "JD")
    ]
