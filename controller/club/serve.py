"""Club mode, `hoyle serve --club`: the club view and its pages, from the config."""

from __future__ import annotations

import logging

import uvicorn
from fastapi import FastAPI

from controller.club.store import open_store
from controller.club.view import ClubView
from controller.club.web import create_club_app
from controller.config import Config
from controller.errors import ConfigError
from controller.listener import listen

log = logging.getLogger(__name__)


def build_club(config: Config) -> FastAPI:
    """The club view's app from a config with an [mqtt] section (and [club])."""
    if config.mqtt is None:
        raise ConfigError(f"{config.source}: mqtt: club mode needs the club's broker "
                          "([mqtt] with host, club, username and password)")
    return create_club_app(ClubView(config.mqtt, open_store(config.club)))


def serve_club(config: Config, *, host: str | None = None, port: int | None = None) -> None:
    """Serve the club view: its port is taken first, then the store (its one writer)."""
    host = host or config.host
    port = port or config.port
    listener = listen(host, port)
    try:
        app = build_club(config)
    except BaseException:
        listener.close()
        raise
    assert config.mqtt is not None
    log.info("club %s: club view at http://%s:%d/ (store: %s)", config.mqtt.club, host, port,
             config.club.store)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])
