"""An MQTT client to the club's broker from the [mqtt] settings: credentials and TLS."""

from __future__ import annotations

import socket
import ssl

import aiomqtt

from controller.club.settings import MqttConfig

NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
"""Send each message at once: with Nagle's algorithm a small publish waits for the ack of
the one before (held up to the peer's 40 ms delayed ack)."""

RETRY_FIRST = 0.25
RETRY_MOST = 4.0
"""Reconnect backoff, seconds: short, so a table back from a partition catches up soon."""


def connect(settings: MqttConfig, identifier: str, *, username: str | None = None,
            will: aiomqtt.Will | None = None) -> aiomqtt.Client:
    """A client (not yet connected: use it in `async with`) for this table or club view."""
    context = None
    if settings.tls:
        context = ssl.create_default_context(
            cafile=str(settings.ca_file) if settings.ca_file else None)
    return aiomqtt.Client(
        settings.host, settings.port, identifier=identifier,
        username=settings.username or username, password=settings.password,
        tls_context=context, will=will, keepalive=settings.keepalive, clean_session=True,
        timeout=10, socket_options=NO_DELAY)


def backoff(delay: float) -> float:
    """The next wait before reconnecting, doubling up to RETRY_MOST."""
    return min(delay * 2, RETRY_MOST)
