"""Fixtures the table service's API tests share: a table of no kind, and its app's client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.eventlog import SqliteEventLog
from controller.table import Table
from controller.web import create_app
from tests.controller.helpers import PIN


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A table on a fresh log in `tmp_path`, of no kind (it starts any game)."""
    table = Table(SqliteEventLog(tmp_path / "lane.db"), "lane-1")
    table.recover()
    yield table
    table.log.close()


@pytest.fixture
def client(table: Table) -> Iterator[TestClient]:
    """The dashboard app of `table` (operator PIN `helpers.PIN`), lifespan running."""
    with TestClient(create_app(table, PIN)) as client:
        yield client
