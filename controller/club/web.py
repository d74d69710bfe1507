"""The club pages: every table live (its game, score and device health) and the league.

Read-only: nothing here changes a table. `GET /api/club` and `GET /api/league` are JSON;
`/ws` sends the club's tables and the league again whenever something was stored: at most
every PUSH_EVERY seconds, never twice the same in a row, and each screen by itself, so
every screen ends up showing the last change (`Changes`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse

from controller.api_input import api_app
from controller.club.discovery import score_line
from controller.club.view import ClubView
from controller.logentry import LogEntry
from engine.core import JSON

PAGE: Final = Path(__file__).parent.parent / "static" / "club.html"
PUSH_EVERY: Final = 0.5


class Changes:
    """A count of changes that any number of waiters await, each past what it has seen.

    Each waiter keeps the `version` it last acted on and awaits `newer_than(version)`: a
    change made while it was busy (or sleeping) is still newer than that, so none is
    missed, whatever the other waiters do. Everything runs on the one event loop.
    """

    def __init__(self) -> None:
        self.version = 0
        self._bumped = asyncio.Event()

    def bump(self) -> None:
        """One more change: wake every waiter (each gets a fresh event for the next)."""
        self.version += 1
        bumped, self._bumped = self._bumped, asyncio.Event()
        bumped.set()

    async def newer_than(self, seen: int) -> int:
        """The version once it is past `seen` (at once if it already is)."""
        while self.version <= seen:
            await self._bumped.wait()
        return self.version


def club_json(view: ClubView) -> JSON:
    """The club page's data: the broker link and every table with its score line."""
    tables = view.tables()
    for table in tables:
        table["score"] = score_line(table)
    return {"club": view.settings.club, "connected": view.connected, "tables": tables}


def create_club_app(view: ClubView) -> FastAPI:
    """The club view's app; its lifespan starts and closes the view."""
    changes = Changes()

    def on_stored(_table: str, _entries: list[LogEntry]) -> None:
        changes.bump()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        view.listeners.append(on_stored)
        view.start()
        try:
            yield
        finally:
            await view.close()

    app = api_app("Hoyle club view", lifespan)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(PAGE)

    @app.get("/api/club")
    async def club() -> JSON:
        """Every table: its game, score, devices, link to the broker and entries stored."""
        return club_json(view)

    @app.get("/api/league")
    async def league() -> list[JSON]:
        """League standings per game: each bowler's games, pins, average and high game."""
        return view.league.standings()

    @app.get("/api/tables/{table_id}")
    async def table(table_id: str) -> JSON:
        """One table as the club holds it."""
        mirror = view.mirrors.get(table_id)
        if mirror is None:
            raise HTTPException(404, f"the club has heard nothing from table {table_id!r}")
        return mirror.view()

    @app.websocket("/ws")
    async def live(socket: WebSocket) -> None:
        await socket.accept()
        sent: str | None = None  # the last text this screen was sent
        try:
            while True:
                seen = changes.version  # what the payload below shows
                text = json.dumps({"club": club_json(view), "league": view.league.standings()},
                                  separators=(",", ":"), ensure_ascii=False)
                if text != sent:
                    await socket.send_text(text)
                    sent = text
                await changes.newer_than(seen)
                await asyncio.sleep(PUSH_EVERY)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            with contextlib.suppress(RuntimeError):
                await socket.close()

    return app
