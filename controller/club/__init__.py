"""Club scale: tables publish their logs to the club's MQTT broker; a club view mirrors them.

The topic layout, the resend protocol and the league are described in docs/club.md.
"""

from __future__ import annotations

__all__ = ["BrokerError", "ClubError", "StoreMismatch"]


class ClubError(Exception):
    """Root of the errors raised by the club publisher, the club view and its store."""


class BrokerError(ClubError, ConnectionError):
    """The club's broker cannot be reached, or refused this client's credentials."""


class StoreMismatch(ClubError, ValueError):
    """The club store numbered a mirrored entry differently from the table's own log."""
