"""What the browser tests share: a served simulated table, and the page as people use it.

Each test module serves one table (`serve_table`): the real service built from a config
on the simulated table, under uvicorn on 127.0.0.1 and a port the system picks, in a
thread of this process, stopped when the module is done.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
from playwright.sync_api import BrowserContext, Locator, Page, expect

from controller.config import load_config
from controller.service import build
from tests.controller.helpers import PIN, write_config
from tests.serving import serve_in_thread

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
#: Generous bounds for a busy 2-core machine; only a failing test waits this long.
WAIT = 60.0
WAIT_MS = int(WAIT * 1000)
#: Seconds the server's shutdown waits for open requests and WebSockets before cancelling them.
GRACE = 5
#: The operator's PIN header, for a test's own setup requests (the page signs in instead).
OPERATOR = {"X-Operator-Pin": PIN}

#: The screenshots this run saved, for the run's summary.
SAVED: list[Path] = []


def chromium_path() -> str | None:
    """Debian's Chromium, if installed (tools/bootstrap.sh installs it)."""
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


@dataclass(frozen=True, slots=True)
class Served:
    """A table served for a test module, by its address."""

    url: str

    def api(self) -> httpx.Client:
        """A client of the table's API (a script, not the page)."""
        return httpx.Client(base_url=self.url, timeout=WAIT)


def table_config(folder: Path, table: str, sections: str) -> Path:
    """A config file in `folder`: the `[table]` keys, the test PIN, the other `sections`."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_config(folder / "table.toml", table, sections + '\n[scoreboard]\nkind = "none"\n')


@contextmanager
def serve_table(config_path: Path) -> Iterator[Served]:
    """The table of `config_path` served by uvicorn on 127.0.0.1, stopped on leaving."""
    service = build(load_config(config_path))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    # A WebSocket handler of a quiet table waits for the next view, not for its client to
    # go, so shutting down must not wait on it for ever: it is cancelled after a while.
    running = serve_in_thread(service.app, listener, f"uvicorn-{port}",
                              timeout_graceful_shutdown=GRACE)
    try:
        wait_until(lambda: running.started or running.stopped(), "the server to start")
        if not running.started:
            raise RuntimeError("the table's server did not start: "
                               f"{running.failure or 'it stopped'}")
        yield Served(f"http://127.0.0.1:{port}")
    finally:
        running.stop()
        running.thread.join(WAIT)
        listener.close()
        if running.thread.is_alive():
            raise RuntimeError("the table's server did not stop")


def wait_until(check: Callable[[], T | None], what: str) -> T:
    """What `check` returns once it is true; fails naming `what` if it is not within WAIT."""
    deadline = time.monotonic() + WAIT
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def open_page(context: BrowserContext, served: Served) -> Page:
    """The table's page, once its live connection has shown a view."""
    page = context.new_page()
    page.goto(served.url + "/")
    expect(page.locator("#link")).to_have_text("Live", timeout=WAIT_MS)
    return page


def sign_in(page: Page, name: str = "") -> None:
    """Sign in through the page's Operator panel, as the operator would (by `name`, if
    given)."""
    operator = page.locator("#operator")
    if operator.get_attribute("open") is None:
        operator.locator("summary").click()
    page.locator("#operator-name").fill(name)
    page.locator("#pin").fill(PIN)
    page.locator("#sign-in").click()
    expect(page.locator("#signed-in-text")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#operator-controls")).to_be_visible(timeout=WAIT_MS)


def screenshot(page: Page, family: str) -> None:
    """Save the whole page as test-artifacts/screenshots/<family>.png and say where."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{family}.png"
    page.screenshot(path=str(path), full_page=True)
    SAVED.append(path)
    print(f"screenshot of the {family} page: {path}")


def history_line(page: Page, seq: int) -> Locator:
    """The page's History line of log entry `seq` ("#12 Ann: strike · by sensor:lane")."""
    return page.locator("#history .history-text").filter(has_text=re.compile(rf"^#{seq} "))


def history(served: Served, *, operator: bool = False) -> list[dict[str, Any]]:
    """The current game's log entries as `GET /api/history` gives them to a spectator (or,
    with `operator`, to the operator: with the private numbers drawn)."""
    with served.api() as client:
        response = client.get("/api/history", params={"limit": 5000},
                              headers=OPERATOR if operator else None)
        response.raise_for_status()
        entries: list[dict[str, Any]] = response.json()
        return entries


def view(served: Served) -> dict[str, Any]:
    """The table's view as `GET /api/view` gives it."""
    with served.api() as client:
        response = client.get("/api/view")
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result


def mark_page(page: Page) -> None:
    """Leave a mark in the page's window: it survives updates, not a reload."""
    page.evaluate("window.hoyleTestMark = 'not reloaded'")


def still_marked(page: Page) -> bool:
    """Whether the page is the same document `mark_page` marked (no reload happened)."""
    return bool(page.evaluate("window.hoyleTestMark === 'not reloaded'"))
