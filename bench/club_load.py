"""Club load: 200 simulated lanes through one Mosquitto broker to one club view.

Each lane is a real table (its own durable SQLite log, the rules, the bus) with its
publisher; a bowler rolls a ball every 8-12 s per lane (a league night's pace), and
every entry also republishes the lane's retained state. The club view runs in its own
process (so its CPU and memory are its own) with the SQLite club store; Mosquitto runs
on this machine on loopback, with TCP_NODELAY like the clients.

What is timed, per entry, on this machine's one clock (time.time in both processes):
- from the table's change (its entry durable in the table's log and published on its
  bus: the moment the lane's own dashboard and scoreboard show it) to the club view's
  change (the entry durable in the club store and folded into the table's view and the
  league: what the club view's /api/club serves and its /ws sends). This is the figure
  with the 50 ms target.
- the same end, from the entry's ts in the table's log (taken before the table's own
  commit, so it adds the table's fsync, here on a disk shared by all 200 lanes and the
  club view, where a real lane has its own).
The club page's /ws coalesces its pushes (controller.club.web.PUSH_EVERY), so a browser
may see a change up to that much later; that is not in these figures.

Prints one JSON line per figure: both latencies' p50 and p99, the club view's CPU (share
of one core) and memory (peak RSS), with the entries timed and the load average.

Usage: .venv/bin/python bench/club_load.py [--tables 200] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from controller.bus import Change
from controller.club.publisher import TablePublisher
from controller.club.settings import MqttConfig
from controller.club.store import SqliteClubStore
from controller.club.view import ClubView
from controller.eventlog import SqliteEventLog
from controller.table import Table

#: Debian puts the broker in /usr/sbin, which is not on every user's PATH.
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"

CLUB = "bench"
BALL_EVERY = (8.0, 12.0)
HOW = ("table's bus change (its SQLite append durable) -> publisher -> Mosquitto 2 on "
       "127.0.0.1 (QoS 1) -> club view (own process) -> SQLite club store durable, folded")
HOW_LOG = ("table's log ts (before its SQLite append, WAL, synchronous=FULL, is durable) -> "
           "the same path")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# -- the club view's side (a child process) ------------------------------------------------

async def club_side(port: int, folder: Path) -> dict[str, Any]:
    """Mirror every lane until told to stop; when each entry was shown, and the costs."""
    shown: list[tuple[str, int, float, float]] = []
    view = ClubView(MqttConfig("127.0.0.1", CLUB, port=port, keepalive=30),
                    SqliteClubStore(folder))

    def stored(table: str, entries: list[Any]) -> None:
        # The listeners run once the entries are durable in the club store and folded.
        now = time.time()
        shown.extend((table, entry.seq, entry.ts, now) for entry in entries)

    view.listeners.append(stored)
    view.start()
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)  # "measure": the lanes are seated
    del shown[:]
    start_cpu, start = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    await loop.run_in_executor(None, sys.stdin.readline)  # "stop"
    usage, wall = resource.getrusage(resource.RUSAGE_SELF), time.monotonic() - start
    cpu = (usage.ru_utime - start_cpu.ru_utime + usage.ru_stime - start_cpu.ru_stime) / wall
    result = {"shown": shown, "cpu": cpu, "rss_kib": usage.ru_maxrss,
              "tables": len(view.mirrors)}
    await view.close()
    return result


# -- the lanes' side (this process) --------------------------------------------------------

async def bowl(table: Table, rng: random.Random, until: float) -> None:
    """A league bowler on one lane: a ball every 8-12 s, a new game when one ends."""
    await asyncio.sleep(rng.uniform(0, BALL_EVERY[1]))
    while time.monotonic() < until:
        game = table.view()["game"]
        if game is None or game["over"]:
            await table.record("start", "operator", {"game": "ten-pins",
                                                     "players": ["Ann", "Bob"], "options": {}})
        else:
            up = game["up"]
            standing = sorted(rng.sample(up["standing"], rng.randint(0, len(up["standing"]))))
            await table.record("event", "sensor:lane", {"event": {
                "type": "ball", "player": up["player"], "standing": standing, "foul": False}})
        await asyncio.sleep(rng.uniform(*BALL_EVERY))


async def lanes_side(args: argparse.Namespace, port: int, folder: Path,
                     club: subprocess.Popen[str]) -> dict[tuple[str, int], float]:
    """Play every lane; when each lane showed each of its entries (table, seq -> time)."""
    assert club.stdin is not None
    # 200 tables share this process (a real one has its Pi to itself), and each sends
    # its log reads and snapshots to the default executor: give them threads enough.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(64))
    tables = [Table(SqliteEventLog(folder / f"lane-{n}.db"), f"lane-{n}")
              for n in range(1, args.tables + 1)]
    shown: dict[tuple[str, int], float] = {}

    def showing(table_id: str) -> Callable[[Change], None]:
        def show(change: Change) -> None:
            shown[table_id, change.seq] = time.time()
        return show

    publishers = []
    for table in tables:
        table.recover()
        # Subscribed before the publisher, so the time is taken before it is woken.
        table.bus.subscribe("bench", showing(table.table_id))
        publisher = TablePublisher(table, MqttConfig("127.0.0.1", CLUB, port=port))
        publisher.start()
        publishers.append(publisher)
    deadline = time.monotonic() + 60
    while not all(p.connected for p in publishers) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    # The league night is under way: every lane has a game on (the first entries of 200
    # new logs at once are the start-up, not the evening's pace).
    await asyncio.gather(*(t.record("start", "operator", {
        "game": "ten-pins", "players": ["Ann", "Bob"], "options": {}}) for t in tables))
    deadline = time.monotonic() + 120
    while any(p.acked < t.log.last_seq() for p, t in zip(publishers, tables, strict=True)) \
            and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    club.stdin.write("measure\n")
    club.stdin.flush()
    until = time.monotonic() + args.seconds
    await asyncio.gather(*(bowl(t, random.Random(n), until) for n, t in enumerate(tables)))
    deadline = time.monotonic() + 30
    while any(p.sent < t.log.last_seq() for p, t in zip(publishers, tables, strict=True)) \
            and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(1)
    club.stdin.write("stop\n")
    club.stdin.flush()
    await asyncio.gather(*(p.close() for p in publishers))
    for table in tables:
        table.log.close()
    return shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--club-side", nargs=2, metavar=("PORT", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.club_side:
        result = asyncio.run(club_side(int(args.club_side[0]), Path(args.club_side[1])))
        print(json.dumps(result), flush=True)
        return
    folder = Path(tempfile.mkdtemp(prefix="hoyle-club-load-"))
    port = free_port()
    (folder / "mosquitto.conf").write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        f"max_inflight_messages 100\nset_tcp_nodelay true\nlog_dest none\n"
        f"user {getpass.getuser()}\n")
    broker = subprocess.Popen([MOSQUITTO, "-c", str(folder / "mosquitto.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (folder / "club").mkdir()
    (folder / "lanes").mkdir()
    club = subprocess.Popen([sys.executable, __file__, "--club-side", str(port),
                             str(folder / "club")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert club.stdout is not None
        if club.stdout.readline().strip() != "ready":
            raise RuntimeError("the club view did not start")
        at_table = asyncio.run(lanes_side(args, port, folder / "lanes", club))
        result = json.loads(club.stdout.readline())
        club.wait(30)
    finally:
        for process in (club, broker):
            if process.poll() is None:
                process.terminate()
                process.wait(30)
        shutil.rmtree(folder, ignore_errors=True)
    rows = [(at_table[table, seq], ts, at_club) for table, seq, ts, at_club in result["shown"]
            if (table, seq) in at_table]
    from_change = [(at_club - change) * 1000 for change, _, at_club in rows]
    from_log = [(at_club - ts) * 1000 for _, ts, at_club in rows]
    common = {"tables": args.tables, "seconds": args.seconds, "entries": len(rows),
              "loadavg_1m": round(os.getloadavg()[0], 2),
              "peer": "mosquitto 2 on loopback, same machine"}
    for what, values, how in (("club_table_change_to_club_view", from_change, HOW),
                              ("club_table_log_ts_to_club_view", from_log, HOW_LOG)):
        print(json.dumps({"what": f"{what}_p50", "value": round(statistics.median(values), 2),
                          "unit": "ms", **common, "how": how}))
        print(json.dumps({"what": f"{what}_p99", "value": round(percentile(values, 0.99), 2),
                          "unit": "ms", "target": 50, "max": round(max(values), 2),
                          "over_target": sum(v > 50 for v in values), **common}))
    print(json.dumps({"what": "club_view_cpu", "value": round(result["cpu"] * 100, 1),
                      "unit": "% of one core", **common}))
    print(json.dumps({"what": "club_view_peak_rss", "value": round(result["rss_kib"] / 1024, 1),
                      "unit": "MiB", "tables_mirrored": result["tables"], **common}))


if __name__ == "__main__":
    main()
