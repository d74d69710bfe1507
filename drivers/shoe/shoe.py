"""`DealerShoe`: the banking table's card shoe, read card by card over USB serial.

Every card drawn reaches ``on_card`` once and in order (a :class:`DrawnCard` with the
shoe's sequence number), and is acknowledged to the shoe only after ``on_card``
returns, so the controller makes it durable first; a restarted host passes
``resume`` (the last card it holds) and gets every card it had not made its own. A
card the shoe cannot resend, or a code that names no card, stops the line with the
reason (state "unavailable"); the shoe's own state (loaded, cut card, empty, jam,
door open) comes through ``on_status``. The protocol is in docs/shoe.md; the line is
:class:`~drivers.shoe.link.CardLink`.

Example:
    >>> from drivers.shoe.fake import WAIT, FakeShoe
    >>> from drivers.wire.fake import Recorder
    >>> drawn = Recorder[DrawnCard]()
    >>> with FakeShoe(["QS", "7H"], cut_card=1) as fake:
    ...     with DealerShoe(fake.port, on_card=drawn) as shoe:
    ...         shoe.wait_ready(WAIT).serial
    ...         _ = fake.draw(2)
    ...         [(card.seq, card.code) for card in drawn.wait_for(2)]
    'SIM-0001'
    [(1, 'QS'), (2, '7H')]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import serial

from drivers.closing import Closeable
from drivers.errors import BadReading
from drivers.shoe.cards import MAX_PACKS
from drivers.shoe.link import (
    CardLink,
    DrawnCard,
    HealthHandler,
    PackMark,
    ShoeHealth,
    ShoeIdentity,
    ShoeStatus,
    ShoeTiming,
    StatusHandler,
)
from drivers.shoe.protocol import PROTOCOL_VERSION, DeviceKind, NewShoe

__all__ = ["CardHandler", "DealerShoe"]

CardHandler = Callable[[DrawnCard], None]


class DealerShoe(Closeable):
    """A dealer shoe on a serial port: each card drawn reaches ``on_card`` once, in order.

    ``on_card`` runs on the shoe's reader thread; when it returns the card is
    acknowledged. ``on_status`` gets the shoe's state when it changes; ``on_health``
    the line's (running / unavailable with the reason). ``resume`` is ``(boot_id,
    seq)`` of the last card a previous host made durable (see :meth:`position`).
    """

    def __init__(
        self,
        port: str,
        *,
        on_card: CardHandler,
        on_status: StatusHandler | None = None,
        on_health: HealthHandler | None = None,
        resume: tuple[int, int] | None = None,
        timing: ShoeTiming | None = None,
        serial_factory: Callable[..., Any] = serial.Serial,
        protocol: int = PROTOCOL_VERSION,
    ) -> None:
        """Open ``port`` in the background (see :meth:`wait_ready`)."""
        self.port = port
        self.on_card = on_card
        self._link = CardLink(
            port,
            kind=DeviceKind.SHOE,
            on_item=self._took_item,
            on_status=on_status,
            on_health=on_health,
            resume=resume,
            timing=timing,
            serial_factory=serial_factory,
            protocol=protocol,
        )

    def wait_ready(self, timeout: float) -> ShoeIdentity:
        """Wait until the shoe is greeted and cards flow; its identity (maker, serial...).

        ProtocolMismatch / WrongNode if refused, DeviceUnavailable with the reason if
        stopped, LinkTimeout after ``timeout``.
        """
        return self._link.wait_ready(timeout)

    def status(self) -> ShoeHealth:
        """The line's state and reason, the shoe's identity and state, the counters."""
        return self._link.health()

    def position(self) -> tuple[int, int] | None:
        """``(boot_id, seq)`` of the last card ``on_card`` returned from: what to resume."""
        return self._link.position()

    def query(self) -> ShoeStatus:
        """Ask the shoe for its state now."""
        return self._link.query()

    def new_shoe(self, packs: int) -> ShoeStatus:
        """Tell the shoe a fresh shoe of ``packs`` packs is loaded; its state after.

        ValueError outside 1..8 packs; CommandRefused if the shoe says no (door open,
        jammed); DeviceUnavailable / LinkTimeout if it cannot be asked.
        """
        if isinstance(packs, bool) or not isinstance(packs, int) or not 1 <= packs <= MAX_PACKS:
            raise ValueError(f"a shoe holds 1..{MAX_PACKS} packs, not {packs!r}")
        return self._link.ask(NewShoe(packs))

    def go_on_after(self, seq: int) -> None:
        """Carry on after card ``seq``, where the shoe stopped (``status().stopped_at``):
        the dealer showed it and the table has it from the operator. ValueError if the
        shoe is not stopped at ``seq``."""
        self._link.go_on_after(seq)

    def close(self) -> None:
        """Stop reading and close the port."""
        self._link.close()

    def __repr__(self) -> str:
        return f"DealerShoe({self.port!r}, state={self.status().state!r})"

    def _took_item(self, item: DrawnCard | PackMark) -> None:
        if isinstance(item, PackMark):
            raise BadReading(f"{self.port}: a shoe sent PACK_END {item.seq}, a shuffler's message")
        self.on_card(item)

