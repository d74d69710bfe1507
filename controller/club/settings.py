"""The [mqtt] and [club] sections of the TOML config (docs/config.md, docs/club.md).

Kept apart from controller.config so the club's keys live with the club; the config
reader hands its key reader in, so errors still name the file, the key and its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from controller.club.topics import NAME_PATTERN
from controller.errors import ConfigError

STORES: Final = ("sqlite", "postgresql")


@dataclass(frozen=True, slots=True)
class MqttConfig:
    """The club's broker and who this table (or the club view) is on it."""

    host: str
    club: str
    port: int = 1883
    username: str | None = None
    """A table's default is its table id: the broker's ACL lets a table write only there."""
    password: str | None = None
    tls: bool = False
    ca_file: Path | None = None
    """The CA that signed the broker's certificate (TLS); None: the system's CAs."""
    keepalive: int = 30


@dataclass(frozen=True, slots=True)
class ClubConfig:
    """Club mode (`hoyle serve --club`): where the club view keeps every table's log."""

    store: str = "sqlite"
    dsn: str | None = None
    """The PostgreSQL connection string (store "postgresql")."""
    data_dir: Path = Path("club")
    """The folder of the SQLite club store, one log file per table (store "sqlite")."""


class KeyReader(Protocol):
    """What the config reader offers: typed keys, and errors naming file, key and line."""

    path: Path

    def section(self, data: Mapping[str, Any], name: str,
                allowed: set[str]) -> dict[str, Any]: ...

    def get(self, table: Mapping[str, Any], section: str, key: str, kind: type,
            default: Any) -> Any: ...

    def fail(self, key: str, problem: str) -> ConfigError: ...


def read_mqtt(keys: KeyReader, data: Mapping[str, Any]) -> MqttConfig | None:
    """The [mqtt] section, or None when the file has none (the table stays on its own)."""
    if "mqtt" not in data:
        return None
    mqtt = keys.section(data, "mqtt", {"host", "port", "club", "username", "password",
                                       "password_file", "tls", "ca_file", "keepalive"})
    host = keys.get(mqtt, "mqtt", "host", str, None)
    if host is None or not host.strip():
        raise keys.fail("mqtt", "needs host, the club broker's name or address")
    club = keys.get(mqtt, "mqtt", "club", str, None)
    if club is None or not NAME_PATTERN.fullmatch(club):
        raise keys.fail("mqtt.club" if club is not None else "mqtt",
                        "club must be 1-40 lower-case letters, digits or '-'")
    tls = keys.get(mqtt, "mqtt", "tls", bool, False)
    port = keys.get(mqtt, "mqtt", "port", int, 8883 if tls else 1883)
    if not 1 <= port <= 65535:
        raise keys.fail("mqtt.port", f"{port} is not a TCP port (1-65535)")
    keepalive = keys.get(mqtt, "mqtt", "keepalive", int, 30)
    if not 5 <= keepalive <= 600:
        raise keys.fail("mqtt.keepalive", "must be 5-600 seconds")
    if "password" in mqtt and "password_file" in mqtt:
        raise keys.fail("mqtt.password", "give password or password_file, not both")
    password = keys.get(mqtt, "mqtt", "password", str, None)
    secret = keys.get(mqtt, "mqtt", "password_file", str, None)
    if secret is not None:
        try:
            password = _relative(keys, secret).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            raise keys.fail("mqtt.password_file", f"cannot read {secret}: {error}") from None
    ca_file = keys.get(mqtt, "mqtt", "ca_file", str, None)
    ca_path = None
    if ca_file is not None:
        ca_path = _relative(keys, ca_file)
        if not tls:
            raise keys.fail("mqtt.ca_file", "is only used with tls = true")
        if not ca_path.is_file():
            raise keys.fail("mqtt.ca_file", f"no file at {ca_path}")
    return MqttConfig(host=host, club=club, port=port,
                      username=keys.get(mqtt, "mqtt", "username", str, None),
                      password=password, tls=tls, ca_file=ca_path, keepalive=keepalive)


def read_club(keys: KeyReader, data: Mapping[str, Any]) -> ClubConfig:
    """The [club] section (club mode only; its defaults otherwise)."""
    club = keys.section(data, "club", {"store", "dsn", "data_dir"})
    store = keys.get(club, "club", "store", str, "sqlite")
    if store not in STORES:
        raise keys.fail("club.store", f"{store!r} is not one of {', '.join(STORES)}")
    dsn = keys.get(club, "club", "dsn", str, None)
    if store == "postgresql" and not dsn:
        raise keys.fail("club.store", 'store "postgresql" needs club.dsn, e.g. '
                        '"postgresql://hoyle@db.club.lan/hoyle"')
    data_dir = _relative(keys, keys.get(club, "club", "data_dir", str, "club"))
    return ClubConfig(store=store, dsn=dsn, data_dir=data_dir)


def _relative(keys: KeyReader, value: str) -> Path:
    """A path from the file, relative to the file's folder."""
    path = Path(value)
    return path if path.is_absolute() else keys.path.parent / path
