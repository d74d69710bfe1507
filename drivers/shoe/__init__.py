"""The banking table's dealer shoe and shuffler (protocol: docs/shoe.md).

- :mod:`drivers.shoe.cards`: the 52 card codes, checked on the drivers' side.
- :mod:`drivers.shoe.protocol`: the shoe's messages over the project's one framing.
- :mod:`drivers.shoe.link`: :class:`CardLink`, the host's end of a shoe's or
  shuffler's line: each card once, in order, acknowledged once the consumer has it.
- :mod:`drivers.shoe.shoe`: :class:`DealerShoe`.
- :mod:`drivers.shoe.shuffler`: :func:`verify_packs`, :class:`Shuffler`,
  :class:`DealtRecord`, :class:`PackRejected`.
- :mod:`drivers.shoe.fake`: :class:`FakeShoe`, a shoe in Python on a pseudo-terminal
  with fault knobs (the simulated table deals from it).
"""

from drivers.shoe.cards import CARD_CODES, FULL_PACK, MAX_PACKS, is_card, packs_of
from drivers.shoe.link import (
    CardLink,
    CommandRefused,
    DrawnCard,
    PackMark,
    ShoeHealth,
    ShoeIdentity,
    ShoeStatus,
    ShoeTiming,
)
from drivers.shoe.protocol import PROTOCOL_VERSION, DeviceKind, ShoeState
from drivers.shoe.shoe import DealerShoe
from drivers.shoe.shuffler import (
    DealtRecord,
    FakeShuffler,
    PackRejected,
    PackReport,
    ShuffledPack,
    Shuffler,
    verify_packs,
)

__all__ = [
    "CARD_CODES",
    "FULL_PACK",
    "MAX_PACKS",
    "PROTOCOL_VERSION",
    "CardLink",
    "CommandRefused",
    "DealerShoe",
    "DealtRecord",
    "DeviceKind",
    "DrawnCard",
    "FakeShuffler",
    "PackMark",
    "PackRejected",
    "PackReport",
    "ShoeHealth",
    "ShoeIdentity",
    "ShoeState",
    "ShoeStatus",
    "ShoeTiming",
    "ShuffledPack",
    "Shuffler",
    "is_card",
    "packs_of",
    "verify_packs",
]
