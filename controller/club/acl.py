"""The Mosquitto ACL of a club: each table writes only under its own topics.

A table's MQTT username is its table id, and the file has a block for each table the
club lists, so a table not listed may publish nothing; the club view and Home Assistant
have users of their own. docs/club.md shows the file and how to make the password file
with `mosquitto_passwd`.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.club.topics import (
    CLUB_LEAVES,
    DISCOVERY_PREFIX,
    NAME_PATTERN,
    ROOT,
    TABLE_LEAVES,
    Topics,
)
from controller.club.view import CLUB_USER


def acl_text(club: str, tables: Iterable[str], *, club_user: str = CLUB_USER,
             home_assistant_user: str | None = "homeassistant") -> str:
    """The ACL file for one club's broker and its tables (their ids are their usernames)."""
    tables = list(tables)
    for what, name in [("club", club), *(("table", t) for t in tables)]:
        if not NAME_PATTERN.fullmatch(name):
            raise ValueError(f"{what} id {name!r} must be 1-40 lower-case letters, digits "
                             "or '-'")
    base = f"{ROOT}/{club}"
    lines = [f"# Hoyle club {club}: made by controller.club.acl; see docs/club.md"]
    for table in tables:
        topics = Topics(club, table)
        lines += [
            "",
            f"# Table {table} writes its own topics only and reads what the club tells it.",
            f"user {table}",
            *(f"topic write {topics.leaf(leaf)}" for leaf in TABLE_LEAVES),
            *(f"topic read {topics.leaf(leaf)}" for leaf in CLUB_LEAVES),
            f"topic write {DISCOVERY_PREFIX}/+/{topics.node_id}/+/config",
        ]
    lines += [
        "",
        "# The club view reads every table and answers with acks and resend requests.",
        f"user {club_user}",
        f"topic read {base}/#",
        f"topic write {base}/+/ack",
        f"topic write {base}/+/resend",
    ]
    if home_assistant_user is not None:
        lines += [
            "",
            "# Home Assistant reads the tables' discovery, state and status.",
            f"user {home_assistant_user}",
            f"topic read {DISCOVERY_PREFIX}/#",
            f"topic read {base}/+/state",
            f"topic read {base}/+/status",
        ]
    return "\n".join(lines) + "\n"
