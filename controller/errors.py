"""The service's errors: one root, each leaf also a builtin."""


class ControllerError(Exception):
    """Root of the errors the table service raises."""


class Rejected(ControllerError, ValueError):
    """A change the table refuses (an illegal event, no game in progress); nothing was logged."""


class ConfigError(ControllerError, ValueError):
    """A configuration file that is wrong; the message names the file, the key and the line."""


class CannotServe(ControllerError, OSError):
    """The service cannot start where it was asked to (a port in use, an address not of
    this machine); the message names the address and why."""
