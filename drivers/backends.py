"""Pin factories behind the device drivers: the Pi's real GPIO or gpiozero's mock pins.

The backend is named in the table's config and can be overridden for one run with the
``HOYLE_BACKEND`` environment variable (so a Pi can be run against fake pins without
editing its config). Every override and every fallback gpiozero makes is logged.

Example:
    >>> from drivers.backends import make_pin_factory
    >>> type(make_pin_factory("fake")).__name__
    'MockFactory'
"""

from __future__ import annotations

import logging
import os
import warnings
from typing import Final

from gpiozero import Device
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory

from drivers.errors import DeviceUnavailable

__all__ = ["BACKENDS", "ENV_VAR", "choose_backend", "make_pin_factory"]

BACKENDS: Final = ("real", "fake")
ENV_VAR: Final = "HOYLE_BACKEND"

_log = logging.getLogger(__name__)


def _check(backend: str, source: str) -> str:
    """Return ``backend`` if it is a known backend name, else raise naming the allowed ones."""
    if backend not in BACKENDS:
        raise ValueError(
            f"{source} {backend!r} is not a backend; use one of: {', '.join(BACKENDS)}"
        )
    return backend


def choose_backend(configured: str) -> str:
    """Return the backend to use: ``HOYLE_BACKEND`` if set, else the configured one."""
    override = os.environ.get(ENV_VAR, "").strip()
    if not override:
        return _check(configured, "configured backend")
    _check(override, ENV_VAR)
    if override != configured:
        _log.warning("%s=%s overrides the configured backend %r", ENV_VAR, override, configured)
    return override


def make_pin_factory(backend: str) -> Factory:
    """Return a gpiozero pin factory for ``backend`` ("real" or "fake").

    "real" takes the factory gpiozero itself prefers on this machine (lgpio, then
    RPi.GPIO, pigpio, native); if none loads, DeviceUnavailable gives each one's reason.
    """
    _check(backend, "backend")
    if backend == "fake":
        return MockFactory()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            # gpiozero's own choice (it honours GPIOZERO_PIN_FACTORY); the private
            # helper returns a factory without installing it as the process default.
            factory = Device._default_pin_factory()
        except Exception as exc:
            reasons = "; ".join(str(w.message) for w in caught) or str(exc)
            raise DeviceUnavailable(f"no GPIO pin factory could load: {reasons}") from exc
    for fallback in caught:
        _log.warning("GPIO backend fallback: %s", fallback.message)
    _log.info("GPIO backend: %s", type(factory).__name__)
    return factory
