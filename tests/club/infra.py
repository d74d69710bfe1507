"""Real servers for the club tests: Mosquitto, PostgreSQL, a cuttable TCP relay, certificates.

Each server is started by the test in a temp dir on loopback and stopped by its PID.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from controller.club.acl import acl_text


def _postgres_bin() -> Path:
    """The newest Debian PostgreSQL server's bin folder (tools/bootstrap.sh installs one)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda path: int(path.parent.parent.name) if
                   path.parent.parent.name.isdigit() else 0)
    return found[-1].parent if found else Path("/usr/lib/postgresql/15/bin")


#: Debian puts the broker in /usr/sbin, which is not on every user's PATH.
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
PG_BIN = _postgres_bin()
CLUB = "riverside"
CLUB_PASSWORD = "club-secret"
HA_PASSWORD = "ha-secret"
WAIT = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(check: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Poll `check` until true; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what} after {timeout} s")
        time.sleep(0.05)


async def until(check: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """The event loop's `wait_for`: poll without blocking the loop."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what} after {timeout} s")
        await asyncio.sleep(0.05)


def accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def table_password(table: str) -> str:
    return f"pw-{table}"


@dataclass
class Certificates:
    """A self-made CA and a broker certificate it signed, for 127.0.0.1 and localhost."""

    ca: Path
    cert: Path
    key: Path


def make_certificates(folder: Path) -> Certificates:
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
        "/CN=Hoyle test club CA", "-keyout", "ca.key", "-out", "ca.pem")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout",
        "broker.key", "-out", "broker.csr")
    (folder / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("x509", "-req", "-in", "broker.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "broker.pem")
    return Certificates(folder / "ca.pem", folder / "broker.pem", folder / "broker.key")


@dataclass
class Broker:
    """A Mosquitto broker with the club's password file and ACL, on loopback."""

    folder: Path
    tables: list[str]
    port: int = field(default_factory=free_port)
    tls: Certificates | None = None
    tls_port: int | None = None
    process: subprocess.Popen[bytes] | None = None

    def __post_init__(self) -> None:
        users = {table: table_password(table) for table in [*self.tables, "lane-9"]}
        users["club-view"] = CLUB_PASSWORD
        users["homeassistant"] = HA_PASSWORD
        passwd = self.folder / "passwd"
        passwd.write_text("".join(f"{user}:{password}\n" for user, password in users.items()))
        subprocess.run(["mosquitto_passwd", "-U", str(passwd)], check=True)
        (self.folder / "acl").write_text(acl_text(CLUB, self.tables))
        lines = [f"listener {self.port} 127.0.0.1", "allow_anonymous false",
                 f"password_file {passwd}", f"acl_file {self.folder / 'acl'}",
                 "persistence false", f"log_dest file {self.folder / 'broker.log'}",
                 f"user {getpass.getuser()}", "max_inflight_messages 100",
                 "set_tcp_nodelay true"]
        if self.tls is not None:
            self.tls_port = free_port()
            lines += [f"listener {self.tls_port} 127.0.0.1", f"cafile {self.tls.ca}",
                      f"certfile {self.tls.cert}", f"keyfile {self.tls.key}"]
        (self.folder / "mosquitto.conf").write_text("\n".join(lines) + "\n")

    def start(self) -> None:
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.folder / "mosquitto.conf")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: accepts(self.port), "mosquitto to listen", 10)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class Postgres:
    """A PostgreSQL 15 cluster in a temp dir, on a unix socket only."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="hoyle-pg-"))
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else getpass.getuser()
        self.process: subprocess.Popen[bytes] | None = None
        self._databases = 0

    def _as_owner(self, args: list[str]) -> list[str]:
        """Run as the postgres user when the tests run as root (the server refuses root)."""
        if os.geteuid() != 0:
            return args
        return ["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", *args]

    def start(self) -> None:
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        data = self.folder / "data"
        subprocess.run(self._as_owner([str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust",
                                       "-U", self.user, "--no-sync", "-E", "UTF8"]),
                       check=True, capture_output=True)
        self.process = subprocess.Popen(
            self._as_owner([str(PG_BIN / "postgres"), "-D", str(data), "-p", str(self.port),
                            "-k", str(self.folder), "-c", "listen_addresses=",
                            "-c", "fsync=off"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self._ready, "PostgreSQL to accept connections", 30)

    def dsn(self, database: str = "postgres") -> str:
        return f"host={self.folder} port={self.port} user={self.user} dbname={database}"

    def _ready(self) -> bool:
        import psycopg

        try:
            psycopg.connect(self.dsn(), connect_timeout=2).close()
        except psycopg.OperationalError:
            return False
        return True

    def new_database(self) -> str:
        """A fresh, empty database's DSN."""
        import psycopg

        self._databases += 1
        name = f"club{self._databases}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}".encode())
        return self.dsn(name)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class Relay:
    """A TCP relay to the broker that the test can cut (a network partition) and heal."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    async def heal(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port,
                                                  reuse_address=True)

    async def cut(self) -> None:
        """Drop every connection and refuse new ones until healed."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for writer in list(self._links):
            writer.transport.abort()
        self._links.clear()
        if server is not None:
            await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._links.update((writer, up_writer))
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        self._links.discard(writer)
        writer.transport.abort()


def count_all(logs: Iterable[tuple[str, int, int]]) -> str:
    """The end-of-test count line: table, entries in its log, entries in the club store."""
    return "; ".join(f"{table}: log {mine}, club {theirs}" for table, mine, theirs in logs)
