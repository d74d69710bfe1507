"""The drivers' errors: one root, each leaf also a builtin so callers can catch either."""

__all__ = ["BadReading", "DeviceUnavailable", "DriverError", "LinkTimeout"]


class DriverError(Exception):
    """Root of every error a device driver raises."""


class DeviceUnavailable(DriverError, ConnectionError):
    """A device (or the backend it needs) cannot be reached; the message says why."""


class LinkTimeout(DriverError, TimeoutError):
    """A device did not answer within its bounded wait."""


class BadReading(DriverError, ValueError):
    """A device reported something that cannot be (a value out of range, time running back)."""
