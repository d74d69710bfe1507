"""The dealer shoe's line under noise: cards per second, and card drawn -> on_card latency.

The fake shoe (drivers.shoe.fake.FakeShoe) on a pseudo-terminal behind a FaultyCable,
the host's DealerShoe over pyserial, as on a Pi with a shoe on USB. The line spoils 1%
of the bytes: the shoe drops 0.5% of the bytes it sends and the cable flips a bit in
0.5% of the bytes both ways. Prints one JSON line per figure:

- cards per second: a shoe of ``--cards`` cards drawn at once, first draw to last
  ``on_card`` (every card checked: once each, in order);
- latency from the shoe dealing a card (its frame queued for the line) to ``on_card``
  returning on the host, cards drawn one at a time at a dealer's pace: p50, with p99.

Usage: .venv/bin/python bench/shoe.py [--cards 5000] [--single 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from drivers.shoe.cards import FULL_PACK
from drivers.shoe.fake import FakeShoe
from drivers.shoe.link import DrawnCard
from drivers.shoe.shoe import DealerShoe
from drivers.wire.cable import Faults
from drivers.wire.fake import Recorder

WAIT = 120.0
LINE = "1% of bytes spoilt (0.5% dropped by the shoe, 0.5% bit flips both ways)"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def noisy_shoe(cards: list[str], seed: int) -> FakeShoe:
    return FakeShoe(
        cards, line=Faults(corrupt_bytes=0.005), drop_bytes=0.005, retransmit_ms=20, seed=seed
    )


def throughput(count: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    dealt = [rng.choice(FULL_PACK) for _ in range(count)]
    cards = Recorder[DrawnCard]()
    with noisy_shoe(dealt, seed) as fake, DealerShoe(fake.port, on_card=cards) as shoe:
        shoe.wait_ready(WAIT)
        start = time.perf_counter()
        fake.draw(count)
        got = cards.wait_for(count, WAIT)
        elapsed = time.perf_counter() - start
        health = shoe.status()
    if [(c.seq, c.code) for c in got] != list(enumerate(dealt, start=1)):
        raise SystemExit("cards lost, doubled or out of order")
    return {
        "what": "shoe cards through a noisy line",
        "value": round(count / elapsed, 1),
        "unit": "cards/s",
        "cards": count,
        "line": LINE,
        "gaps": health.gaps,
        "duplicates": health.duplicates,
        "framing_errors": health.framing_errors,
    }


def latency(count: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed + 1)
    dealt = [rng.choice(FULL_PACK) for _ in range(count)]
    arrived: dict[int, float] = {}
    cards = Recorder[DrawnCard]()

    def on_card(card: DrawnCard) -> None:
        arrived[card.seq] = time.monotonic()
        cards(card)

    with noisy_shoe(dealt, seed) as fake, DealerShoe(fake.port, on_card=on_card) as shoe:
        shoe.wait_ready(WAIT)
        for number in range(1, count + 1):
            fake.draw(1)
            cards.wait_for(number, WAIT)
        draws = fake.history()
    millis = [(arrived[d.seq] - d.sent_at) * 1000 for d in draws]
    return {
        "what": "card drawn -> on_card latency, p50",
        "value": round(statistics.median(millis), 2),
        "unit": "ms",
        "p99": round(percentile(millis, 0.99), 2),
        "cards": count,
        "line": LINE,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=5000)
    parser.add_argument("--single", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(throughput(args.cards, args.seed)), flush=True)
    print(json.dumps(latency(args.single, args.seed)), flush=True)


if __name__ == "__main__":
    main()
