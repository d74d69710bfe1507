"""The club pages: every table live (its game, score and device health) and the league.

Read-only: nothing here changes a table. `GET /api/club` and `GET /api/league` are JSON;
`/ws` sends the club's tables again whenever something was stored (at most every
PUSH_EVERY seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse

from controller.club.discovery import score_line
from controller.club.view import ClubView
from controller.logentry import LogEntry
from engine.core import JSON

PAGE: Final = Path(__file__).parent.parent / "static" / "club.html"
PUSH_EVERY: Final = 0.5


def club_json(view: ClubView) -> JSON:
    """The club page's data: the broker link and every table with its score line."""
    tables = view.tables()
    for table in tables:
        table["score"] = score_line(table)
    return {"club": view.settings.club, "connected": view.connected, "tables": tables}


def create_club_app(view: ClubView) -> FastAPI:
    """The club view's app; its lifespan starts and closes the view."""
    changed = asyncio.Event()

    def on_stored(_table: str, _entries: list[LogEntry]) -> None:
        changed.set()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        view.listeners.append(on_stored)
        view.start()
        try:
            yield
        finally:
            await view.close()

    app = FastAPI(title="Hoyle club view", version="0.1.0", lifespan=lifespan)

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
        try:
            while True:
                await socket.send_json({"club": club_json(view),
                                        "league": view.league.standings()})
                await changed.wait()
                changed.clear()
                await asyncio.sleep(PUSH_EVERY)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            with contextlib.suppress(RuntimeError):
                await socket.close()

    return app
