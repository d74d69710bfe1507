"""The shuffler and the checks around a shoe: every pack verified, every card dealt kept.

- :func:`verify_packs` counts a shoe's cards against ``packs`` full packs and names
  every card missing, every card with too many copies (a duplicate, or an extra
  card of a known face) and every code that is no card, with its position.
- :class:`Shuffler`: the device that reads each card as it shuffles and reports the
  pack over the shoe protocol (CARD per card, then PACK_END with the count); each
  pack is verified, and one that fails raises :class:`PackRejected` with the report.
  :class:`FakeShuffler` is its fake, on the same pseudo-terminal machinery as
  :class:`~drivers.shoe.fake.FakeShoe`.
- :class:`DealtRecord`: the cards dealt from a shoe with their sequence numbers, in
  order, refusing a doubled or skipped card, replayable card by card for a dispute.

Example:
    >>> str(verify_packs(["AS", "AS", "ZZ", *FULL_PACK[2:]]))
    "missing 2S; 2 copies of AS in a 1-pack shoe; unknown card 'ZZ' at position 3"
    >>> verify_packs(FULL_PACK * 2, packs=2).ok
    True
"""

from __future__ import annotations

import random
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import serial

from drivers.closing import Closeable
from drivers.errors import BadReading, DriverError, LinkTimeout
from drivers.shoe.cards import FULL_PACK, is_card, packs_of
from drivers.shoe.fake import FakeShoe
from drivers.shoe.link import (
    CardLink,
    DrawnCard,
    HealthHandler,
    PackMark,
    ShoeHealth,
    ShoeIdentity,
    ShoeTiming,
    StatusHandler,
)
from drivers.shoe.protocol import PROTOCOL_VERSION, DeviceKind

__all__ = [
    "DealtRecord",
    "FakeShuffler",
    "PackRejected",
    "PackReport",
    "ShuffledPack",
    "Shuffler",
    "verify_packs",
]


@dataclass(frozen=True, slots=True)
class PackReport:
    """What is wrong with a shoe's cards against ``packs`` full packs (nothing, if ``ok``)."""

    packs: int
    cards: int
    """Cards read."""
    missing: tuple[tuple[str, int], ...]
    """(code, copies short), in pack order."""
    duplicated: tuple[tuple[str, int], ...]
    """(code, copies found) for every card found more than ``packs`` times, in pack order."""
    unknown: tuple[tuple[int, str], ...]
    """(position from 1, code) of every code that is no card, in order."""
    counted: int | None = None
    """How many cards the device said the pack held, when it said so."""

    @property
    def ok(self) -> bool:
        """True if the cards are exactly ``packs`` full packs."""
        return not (self.missing or self.duplicated or self.unknown or self.miscounted)

    @property
    def miscounted(self) -> bool:
        """True if the device counted another number of cards than arrived."""
        return self.counted is not None and self.counted != self.cards

    def problems(self) -> list[str]:
        """Each problem in words, e.g. "missing 7H", "2 copies of QS in a 1-pack shoe"."""
        shoe = f"{self.packs}-pack shoe"
        words = [
            f"missing {code}" if short == 1 else f"missing {short} copies of {code}"
            for code, short in self.missing
        ]
        words += [f"{found} copies of {code} in a {shoe}" for code, found in self.duplicated]
        words += [f"unknown card {code!r} at position {at}" for at, code in self.unknown]
        if self.miscounted:
            words.append(f"the device counted {self.counted} cards but {self.cards} arrived")
        return words

    def __str__(self) -> str:
        if self.ok:
            return f"{self.cards} cards: {self.packs} full pack{'s' * (self.packs > 1)}"
        return "; ".join(self.problems())


class PackRejected(DriverError, ValueError):
    """A pack failed verification: the table must not deal from it. ``report`` says why."""

    def __init__(self, report: PackReport) -> None:
        super().__init__(f"pack rejected: {report}")
        self.report: Final = report


def verify_packs(cards: Iterable[str], packs: int = 1, *, counted: int | None = None) -> PackReport:
    """Check ``cards`` against ``packs`` full packs (1..8); the report names every fault.

    ``counted`` is the number of cards the device said it read, if it said so.
    """
    packs_of(packs)
    seen: Counter[str] = Counter()
    unknown: list[tuple[int, str]] = []
    total = 0
    for position, code in enumerate(cards, start=1):
        total += 1
        if is_card(code):
            seen[code] += 1
        else:
            unknown.append((position, code))
    return PackReport(
        packs=packs,
        cards=total,
        missing=tuple((c, packs - seen[c]) for c in FULL_PACK if seen[c] < packs),
        duplicated=tuple((c, seen[c]) for c in FULL_PACK if seen[c] > packs),
        unknown=tuple(unknown),
        counted=counted,
    )


@dataclass(frozen=True, slots=True)
class ShuffledPack:
    """One pack (or shoe) as the shuffler read it, with its verification."""

    cards: tuple[str, ...]
    report: PackReport
    boot_id: int
    first_seq: int | None
    """Sequence number of its first card (None for an empty pack)."""
    end_seq: int
    """Sequence number of its PACK_END."""


class Shuffler(Closeable):
    """A card shuffler on a serial port: each pack it reports is verified against ``packs``.

    ``on_pack`` (on the reader thread) gets every :class:`ShuffledPack`, good or not;
    :meth:`wait_pack` returns the next good one or raises :class:`PackRejected`.
    A host that restarts in the middle of a pack gets a report saying the device
    counted more cards than arrived: the pack goes through the shuffler again.

    Example:
        >>> from drivers.shoe.fake import WAIT
        >>> with FakeShuffler() as fake, Shuffler(fake.port, packs=1) as shuffler:
        ...     _ = shuffler.wait_ready(WAIT)
        ...     _ = fake.shuffle(list(FULL_PACK))
        ...     len(shuffler.wait_pack(WAIT).cards)
        52
    """

    def __init__(
        self,
        port: str,
        *,
        packs: int = 1,
        on_pack: Callable[[ShuffledPack], None] | None = None,
        on_status: StatusHandler | None = None,
        on_health: HealthHandler | None = None,
        resume: tuple[int, int] | None = None,
        timing: ShoeTiming | None = None,
        serial_factory: Callable[..., Any] = serial.Serial,
        protocol: int = PROTOCOL_VERSION,
    ) -> None:
        """Open ``port`` in the background; packs are checked against ``packs`` packs."""
        packs_of(packs)
        self.port: Final = port
        self.packs = packs
        self.on_pack = on_pack
        self._cond = threading.Condition()
        self._cards: list[DrawnCard] = []
        self._done: deque[ShuffledPack] = deque()
        self._link = CardLink(
            port,
            kind=DeviceKind.SHUFFLER,
            on_item=self._took_item,
            on_status=on_status,
            on_health=on_health,
            resume=resume,
            timing=timing,
            serial_factory=serial_factory,
            protocol=protocol,
        )

    def wait_ready(self, timeout: float) -> ShoeIdentity:
        """Wait until the shuffler is greeted; its identity (see CardLink.wait_ready)."""
        return self._link.wait_ready(timeout)

    def wait_pack(self, timeout: float) -> ShuffledPack:
        """The next pack the shuffler finished, verified.

        PackRejected (with the report) if it is not ``packs`` full packs; LinkTimeout if
        none comes within ``timeout``.
        """
        with self._cond:
            if not self._cond.wait_for(lambda: bool(self._done), timeout):
                raise LinkTimeout(
                    f"{self.port}: no pack from the shuffler in {timeout:g} s "
                    f"({len(self._cards)} cards of one so far)"
                )
            pack = self._done.popleft()
        if not pack.report.ok:
            raise PackRejected(pack.report)
        return pack

    def status(self) -> ShoeHealth:
        """The line's state and reason, the shuffler's identity and state, the counters."""
        return self._link.health()

    def position(self) -> tuple[int, int] | None:
        """``(boot_id, seq)`` of the last item taken: what a restarted host resumes from."""
        return self._link.position()

    def close(self) -> None:
        """Stop reading and close the port."""
        self._link.close()

    def __repr__(self) -> str:
        return f"Shuffler({self.port!r}, packs={self.packs})"

    def _took_item(self, item: DrawnCard | PackMark) -> None:
        if isinstance(item, DrawnCard):
            with self._cond:
                self._cards.append(item)
            return
        with self._cond:
            cards, self._cards = self._cards, []
        codes = tuple(card.code for card in cards)
        pack = ShuffledPack(
            cards=codes,
            report=verify_packs(codes, self.packs, counted=item.count),
            boot_id=item.boot_id,
            first_seq=cards[0].seq if cards else None,
            end_seq=item.seq,
        )
        handler = self.on_pack
        if handler is not None:
            handler(pack)
        with self._cond:
            self._done.append(pack)
            self._cond.notify_all()


class FakeShuffler(FakeShoe):
    """A shuffler in Python on a pty: reports each card it shuffles, then PACK_END.

    The fault knobs are :class:`~drivers.shoe.fake.FakeShoe`'s (a misread card, a lost
    frame, an unplug...); the cards it is given are the pack as loaded, so a pack with
    a card missing or doubled is reported as it is.
    """

    def __init__(self, *, seed: int = 0, capacity: int = 8 * 52 + 1, **options: Any) -> None:
        """A shuffler with nothing in it; ``options`` as for FakeShoe."""
        super().__init__([], kind=DeviceKind.SHUFFLER, seed=seed, capacity=capacity, **options)
        self._order = random.Random(seed)

    def shuffle(self, cards: Sequence[str] | None = None, *, packs: int = 1) -> list[str]:
        """Shuffle ``cards`` (default: ``packs`` full packs) and report them; the order read."""
        order = list(cards) if cards is not None else packs_of(packs)
        self._order.shuffle(order)
        self._put([*order, None])
        return order


class DealtRecord:
    """The cards dealt from a shoe, in order, each once: what a dispute is replayed from.

    :meth:`add` takes each :class:`DrawnCard` as the shoe delivers it; a card already
    held is ignored (False), one that skips a sequence number or contradicts a card
    held raises BadReading. A new ``boot_id`` starts a new sequence.

    Example:
        >>> record = DealtRecord()
        >>> record.add(DrawnCard(7, 1, "AS", 0, 0.0)), record.add(DrawnCard(7, 1, "AS", 0, 0.0))
        (True, False)
        >>> _ = record.add(DrawnCard(7, 2, "10H", 5, 0.0))
        >>> [card.code for card in record.replay()], record.codes(upto=1)
        (['AS', '10H'], ['AS'])
    """

    def __init__(self, cards: Iterable[DrawnCard] = ()) -> None:
        """A record holding ``cards`` (checked as by :meth:`add`)."""
        self._cards: list[DrawnCard] = []
        self._by_seq: dict[tuple[int, int], DrawnCard] = {}
        for card in cards:
            self.add(card)

    def add(self, card: DrawnCard) -> bool:
        """Keep ``card``; False if it is already held. BadReading for a skip or a clash."""
        held = self._by_seq.get((card.boot_id, card.seq))
        if held is not None:
            if held.code != card.code:
                raise BadReading(
                    f"card {card.seq} is held as {held.code}; the shoe now says {card.code}"
                )
            return False
        last = self._cards[-1] if self._cards else None
        if last is not None and last.boot_id == card.boot_id and card.seq != last.seq + 1:
            raise BadReading(
                f"card {card.seq} cannot follow card {last.seq}: "
                + (
                    f"cards {last.seq + 1}..{card.seq - 1} are missing"
                    if card.seq > last.seq
                    else "the shoe's numbers went back"
                )
            )
        self._cards.append(card)
        self._by_seq[(card.boot_id, card.seq)] = card
        return True

    def __len__(self) -> int:
        return len(self._cards)

    def __getitem__(self, index: int) -> DrawnCard:
        return self._cards[index]

    def replay(self, upto: int | None = None) -> Iterator[DrawnCard]:
        """The cards in the order dealt, one at a time (the first ``upto`` only, if given)."""
        return iter(self._cards[:upto])

    def codes(self, upto: int | None = None) -> list[str]:
        """The codes dealt, in order (the first ``upto`` only, if given)."""
        return [card.code for card in self._cards[:upto]]

    def verify(self, packs: int) -> PackReport:
        """The record checked against ``packs`` full packs (for a shoe dealt to its end)."""
        return verify_packs(self.codes(), packs)

    def to_json(self) -> list[dict[str, Any]]:
        """The record as JSON-ready rows, one per card."""
        return [
            {
                "boot_id": c.boot_id,
                "seq": c.seq,
                "code": c.code,
                "shoe_ms": c.shoe_ms,
                "received_at": c.received_at,
            }
            for c in self._cards
        ]

    @classmethod
    def from_json(cls, rows: Iterable[dict[str, Any]]) -> DealtRecord:
        """A record from :meth:`to_json` rows, checked card by card."""
        return cls(
            DrawnCard(
                int(row["boot_id"]),
                int(row["seq"]),
                str(row["code"]),
                int(row["shoe_ms"]),
                float(row["received_at"]),
            )
            for row in rows
        )
