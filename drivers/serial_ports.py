"""What the serial links (the sensor nodes', `drivers.wire.link`, and the dealer shoe's,
`drivers.shoe.link`) do alike: tell that a device path has gone, close a port without
raising, and announce a change of the link's state to the log and to the link's owner.

>>> port_gone("socket://localhost:7000"), port_gone("/dev/no-such-tty")
(False, True)
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any, Final, TypeVar

import serial

# pyserial's SerialException is an OSError; both are named for the reader's sake.
PORT_ERRORS: Final = (serial.SerialException, OSError)
#: States a link reaches in the ordinary course, logged as news, not as warnings.
ORDINARY_STATES: Final = frozenset({"connecting", "running", "closed"})

_Snapshot = TypeVar("_Snapshot")


def port_gone(port: str) -> bool:
    """True for a device path (not a pyserial URL such as ``socket://``) that is not there:
    the device was unplugged."""
    return "://" not in port and os.sep in port and not os.path.exists(port)


def close_quietly(port: Any, name: str, log: logging.Logger) -> None:
    """Close an open serial port (None: nothing to close); a port that fails to close is
    gone already, so the failure is only logged."""
    if port is None:
        return
    try:
        port.close()
    except PORT_ERRORS as exc:
        log.debug("%s: close failed: %s", name, exc)


def announce_state(name: str, state: str, reason: str, snapshot: _Snapshot,
                   handler: Callable[[_Snapshot], object] | None, handler_name: str,
                   log: logging.Logger) -> None:
    """Log a link's new state (with its reason) and hand its `snapshot` to the owner's
    `handler`, whose failure is logged and does not stop the link."""
    level = logging.INFO if state in ORDINARY_STATES else logging.WARNING
    log.log(level, "%s: %s%s", name, state, f" ({reason})" if reason else "")
    if handler is None:
        return
    try:
        handler(snapshot)
    except Exception:
        log.exception("%s: %s failed; carrying on", name, handler_name)


__all__ = ["ORDINARY_STATES", "PORT_ERRORS", "announce_state", "close_quietly", "port_gone"]
