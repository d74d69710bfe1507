"""The operator's credential: the PIN kept as a scrypt hash, sessions, and the wrong-PIN brake.

The config holds `scrypt$N$r$p$salt$key` (made by `hoyle pin-hash`), never the PIN,
so a copied config file does not give the PIN away. A PIN exchanged at
`POST /api/session` opens a server-side session: a random token in an HttpOnly
cookie, with its own CSRF token that the page sends back in a header.

>>> stored = hash_pin("4821")
>>> check = PinCheck(stored)
>>> check.verify("4821"), check.verify("1234")
(True, False)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from controller.errors import ControllerError

PIN_PATTERN = re.compile(r"\d{4,12}")
SCHEME = "scrypt"
#: 16 MiB and about 50 ms on a desktop, a few hundred on a Pi: slow for a guesser,
#: and only paid on a sign-in (a verified PIN is remembered by a keyed digest).
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
SALT_BYTES = 16
KEY_BYTES = 32
#: An evening at the club, then the operator signs in again.
SESSION_SECONDS = 12 * 3600
MAX_SESSIONS = 32
#: Wrong PINs from one address before it is locked out, the first lock-out and the longest.
FREE_TRIES = 5
FIRST_LOCKOUT = 30.0
LONGEST_LOCKOUT = 3600.0
MAX_TRACKED_CLIENTS = 4096

Clock = Callable[[], float]


class PinHashError(ControllerError, ValueError):
    """A stored PIN hash that is not `scrypt$N$r$p$salt$key` with sane parameters."""


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """The stored form of `pin`: scrypt with a random salt, as `scrypt$N$r$p$salt$key`."""
    if not PIN_PATTERN.fullmatch(pin):
        raise ValueError("a PIN is 4-12 digits")
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    key = _scrypt(pin, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_BYTES)
    return "$".join((SCHEME, str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P), _b64(salt), _b64(key)))


def is_pin_hash(text: str) -> bool:
    """Whether a configured PIN is in its hashed form (else it is plain digits)."""
    return text.startswith(SCHEME + "$")


@dataclass(frozen=True, slots=True)
class PinHash:
    """A parsed `scrypt$N$r$p$salt$key`; `parse` refuses parameters that would stall the Pi."""

    n: int
    r: int
    p: int
    salt: bytes
    key: bytes

    @classmethod
    def parse(cls, text: str) -> PinHash:
        parts = text.split("$")
        if len(parts) != 6 or parts[0] != SCHEME:
            raise PinHashError("not a PIN hash: expected scrypt$N$r$p$salt$key from "
                               "`hoyle pin-hash`")
        try:
            n, r, p = (int(v) for v in parts[1:4])
            salt, key = _unb64(parts[4]), _unb64(parts[5])
        except (ValueError, binascii.Error):
            raise PinHashError("not a PIN hash: N, r and p must be numbers, salt and key "
                               "base64") from None
        if not (2**10 <= n <= 2**20 and n & (n - 1) == 0 and 1 <= r <= 32 and 1 <= p <= 4
                and 128 * n * r <= 2**26):
            raise PinHashError(f"scrypt parameters N={n} r={r} p={p} are out of range")
        if len(salt) < 8 or not 16 <= len(key) <= 64:
            raise PinHashError("the PIN hash's salt or key is too short")
        return cls(n, r, p, salt, key)

    def matches(self, pin: str) -> bool:
        return hmac.compare_digest(
            _scrypt(pin, self.salt, self.n, self.r, self.p, len(self.key)), self.key)


class PinCheck:
    """Checks PINs against the configured one: a `scrypt$` hash, or plain digits (tests, sim).

    Once a PIN has matched, a digest keyed by a secret of this process remembers it, so
    scripts that send the PIN with each request do not pay for scrypt every time.
    """

    def __init__(self, configured: str) -> None:
        self._secret = secrets.token_bytes(32)
        self._hash: PinHash | None = None
        self._known: bytes | None = None
        if is_pin_hash(configured):
            self._hash = PinHash.parse(configured)
        else:
            self._known = self._digest(configured)

    def verify(self, pin: str) -> bool:
        digest = self._digest(pin)
        if self._known is not None:
            return hmac.compare_digest(digest, self._known)
        if len(pin) > 64 or self._hash is None or not self._hash.matches(pin):
            return False
        self._known = digest
        return True

    def _digest(self, pin: str) -> bytes:
        return hmac.digest(self._secret, pin.encode("utf-8", "surrogatepass"), "sha256")


@dataclass(frozen=True, slots=True)
class Session:
    """One signed-in operator: the cookie's token, the CSRF token bound to it, its end."""

    token: str
    csrf: str
    expires: float
    name: str | None = None
    """Who signed in, as they gave it (None: "the operator"); the log names them."""


class Sessions:
    """Server-side sessions; at most `MAX_SESSIONS` live (the oldest gives way)."""

    def __init__(self, *, clock: Clock = time.monotonic,
                 lifetime: float = SESSION_SECONDS) -> None:
        self._clock = clock
        self._lifetime = lifetime
        self._live: OrderedDict[str, Session] = OrderedDict()

    def open(self, name: str | None = None) -> Session:
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32),
                          self._clock() + self._lifetime, name)
        self._live[session.token] = session
        while len(self._live) > MAX_SESSIONS:
            self._live.popitem(last=False)
        return session

    def get(self, token: str | None) -> Session | None:
        """The live session of a cookie's token; None if there is none or it has expired."""
        if not token:
            return None
        session = self._live.get(token)
        if session is not None and session.expires <= self._clock():
            del self._live[token]
            return None
        return session

    def end(self, token: str) -> None:
        self._live.pop(token, None)

    def remaining(self, session: Session) -> int:
        return max(0, round(session.expires - self._clock()))


@dataclass(slots=True)
class _Tries:
    failures: int = 0
    locked_until: float = 0.0


class Throttle:
    """Wrong PINs per client address: `FREE_TRIES`, then lock-outs that double each time.

    >>> now = [0.0]
    >>> brake = Throttle(clock=lambda: now[0])
    >>> for _ in range(FREE_TRIES):
    ...     brake.failed("10.0.0.9")
    >>> brake.wait("10.0.0.9"), brake.wait("10.0.0.8")
    (30.0, 0.0)
    """

    def __init__(self, *, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._clients: OrderedDict[str, _Tries] = OrderedDict()

    def wait(self, client: str) -> float:
        """Seconds until `client` may try a PIN again (0: now)."""
        tries = self._clients.get(client)
        if tries is None:
            return 0.0
        return max(0.0, tries.locked_until - self._clock())

    def failed(self, client: str) -> None:
        tries = self._clients.pop(client, None) or _Tries()
        self._clients[client] = tries
        tries.failures += 1
        over = tries.failures - FREE_TRIES
        if over >= 0:
            tries.locked_until = self._clock() + min(LONGEST_LOCKOUT, FIRST_LOCKOUT * 2**over)
        # Forgetting the longest-quiet address first keeps a flood from growing the table.
        while len(self._clients) > MAX_TRACKED_CLIENTS:
            self._clients.popitem(last=False)

    def succeeded(self, client: str) -> None:
        self._clients.pop(client, None)


def _scrypt(pin: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(pin.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p,
                          dklen=length, maxmem=2 * 128 * n * r * p + 2**20)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]+", text):
        raise ValueError("not base64")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
