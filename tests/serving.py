"""An ASGI app served by uvicorn in a thread of the test's process, on a listener the test
made (bound to 127.0.0.1), for tests that need a real server: a browser, a WebSocket."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from typing import Any

import uvicorn


@dataclass
class ServerThread:
    """uvicorn running `app` on `listener` in a daemon thread; `failure` holds what stopped
    it early. Wait for `started` (or `stopped()`), and `stop()` it when done."""

    server: uvicorn.Server
    thread: threading.Thread
    failure: list[BaseException]

    @property
    def started(self) -> bool:
        return bool(self.server.started)

    def stopped(self) -> bool:
        return bool(self.failure) or not self.thread.is_alive()

    def stop(self) -> None:
        """Ask the server to exit; the caller waits for `thread` with its own bound."""
        self.server.should_exit = True


def serve_in_thread(app: Any, listener: socket.socket, name: str, **config: Any) -> ServerThread:
    """Start uvicorn on `listener` (lifespan on, warnings only, and `config`) in a thread."""
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", **config))
    failure: list[BaseException] = []

    def run() -> None:
        try:
            server.run(sockets=[listener])
        except BaseException as error:  # reported by the caller's start wait
            failure.append(error)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return ServerThread(server, thread, failure)
