"""What the table service tests share: the operator's pin, a table's config, waiting on it."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

PIN = "4821"
OPERATOR = {"X-Operator-Pin": PIN}
#: Generous: a busy 2-core machine; only a failing test waits this long.
WAIT = 60.0


def write_config(path: Path, table: str, sections: str) -> Path:
    """A config file at `path`: the `[table]` keys given, its folder and the pin, `sections`.

    The layout is fixed (a blank first line, `[table]`, its keys), so a test can name the
    line of a key in `sections` that the config must refuse.
    """
    path.write_text(f'\n[table]\n{table}\ndata_dir = "{path.parent}"\n'
                    f'operator_pin = "{PIN}"\n{sections}')
    return path


def wait_for(check: Callable[[], Any]) -> Any:
    """What `check` returns once it is true; TimeoutError if it is not within `WAIT`."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.05)
    raise TimeoutError("the table did not get there")


def view(client: TestClient) -> dict[str, Any]:
    """The dashboard's view of the table."""
    result: dict[str, Any] = client.get("/api/view").json()
    return result


def device(client: TestClient, name: str) -> dict[str, Any] | None:
    """The table's device `name` as the dashboard shows it; None until the table knows it."""
    return next((d for d in view(client)["devices"] if d["name"] == name), None)
