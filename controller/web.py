"""The table's dashboard: a live page for everyone, and routes for the operator.

Spectators read (`GET`, the WebSocket); every route that changes the table needs the
operator's PIN in the `X-Operator-Pin` header. Errors come back as JSON
`{"detail": "..."}`: 401 wrong PIN, 409 a change the rules refuse, 422 bad input.
"""


import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, HTTPException, Query, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from controller.bus import Change
from controller.dice_audit import audit, sessions
from controller.errors import Rejected
from controller.table import Table
from engine.core import JSON
from engine.registry import all_games

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
CLIENT_QUEUE = 64
Name = Annotated[str, Field(min_length=1, max_length=40)]
Reason = Annotated[str, Field(min_length=1, max_length=500)]


class StartGame(BaseModel):
    game: str = Field(min_length=1, max_length=60)
    players: list[Name] = Field(min_length=1, max_length=12)
    options: dict[str, Any] = Field(default_factory=dict)


class DeadBall(BaseModel):
    player: Name


class Resolve(BaseModel):
    standing: list[int] | None = Field(default=None, max_length=10)
    dice: list[int] | None = Field(default=None, min_length=1, max_length=9)
    to: str | None = Field(default=None, min_length=1, max_length=40)
    card: str | None = Field(default=None, min_length=2, max_length=3)
    ball: int | Annotated[str, Field(min_length=1, max_length=20)] | None = None
    foul: bool = False
    void: bool = False
    reason: Reason


class TableEvent(BaseModel):
    event: dict[str, Any]


class Correct(BaseModel):
    target: int = Field(ge=1)
    event: dict[str, Any] | None = None
    reason: Reason


class Abandon(BaseModel):
    reason: Reason


class Clients:
    """The WebSocket clients' queues; a slow client loses old views, never the newest."""

    def __init__(self) -> None:
        self.queues: set[asyncio.Queue[JSON]] = set()

    def publish(self, change: Change) -> None:
        for queue in self.queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(change.view)


def create_app(table: Table, operator_pin: str, *,
               lifespan_hooks: tuple[Callable[[], Any], Callable[[], Any]] | None = None,
               ) -> FastAPI:
    """The dashboard app for one table; `lifespan_hooks` start and stop its devices."""
    clients = Clients()
    table.bus.subscribe("websocket", clients.publish)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if lifespan_hooks:
            await _maybe_await(lifespan_hooks[0]())
        try:
            yield
        finally:
            if lifespan_hooks:
                await _maybe_await(lifespan_hooks[1]())

    app = FastAPI(title="Hoyle table controller", version="0.1.0", lifespan=lifespan)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def operator(x_operator_pin: Annotated[str | None, Header()] = None) -> str:
        if x_operator_pin is None or not hmac.compare_digest(
                x_operator_pin.encode(), operator_pin.encode()):
            raise HTTPException(401, "the operator's PIN is needed for this")
        return "operator"

    Operator = Annotated[str, Depends(operator)]

    async def record(kind: str, source: str, body: JSON) -> JSON:
        try:
            change = await table.record(kind, source, body)
        except Rejected as error:
            raise HTTPException(409, str(error)) from None
        return {"seq": change.seq, "rulings": [r.to_json() for r in change.rulings],
                "view": change.view}

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "table.html")

    @app.get("/api/view")
    async def view() -> JSON:
        """The table as the dashboard draws it."""
        return table.view()

    @app.get("/api/games")
    async def games() -> list[JSON]:
        """Every game the table can rule."""
        return [g.describe() for g in all_games()]

    @app.get("/api/history")
    async def history(after: Annotated[int, Query(ge=0)] = 0,
                      limit: Annotated[int, Query(ge=1, le=5000)] = 500) -> list[JSON]:
        """The current game's log entries from its start, each with its rulings and laws."""
        return await asyncio.to_thread(table.history, after, limit)

    @app.post("/api/game")
    async def start_game(body: StartGame, who: Operator) -> JSON:
        """Start a game (any game in progress ends)."""
        return await record("start", who, body.model_dump())

    @app.post("/api/dead-ball")
    async def dead_ball(body: DeadBall, who: Operator) -> JSON:
        """The umpire declares the player's last ball dead; it is rerolled."""
        return await record("event", who, {"event": {"type": "dead_ball",
                                                     "player": body.player}})

    @app.post("/api/flags/{seq}/resolve")
    async def resolve(seq: int, body: Resolve, who: Operator) -> JSON:
        """Settle a flagged reading: give what really happened, or void it."""
        flag = table.state.flags.get(seq)
        if flag is None:
            raise HTTPException(404, f"there is no open flag {seq}")
        event = None
        reading = flag["reading"]
        if body.void:
            pass
        elif reading.get("type") == "card":
            if body.to is None:
                raise HTTPException(422, "say which hand the card went to, or void the reading")
            event = {"type": "card", "to": body.to, "card": body.card or reading["card"]}
        elif reading.get("type") == "pocket":
            ball = body.ball if body.ball is not None else reading.get("ball")
            if ball is None:
                raise HTTPException(422, f"say which ball fell in {reading.get('pocket')}, "
                                         "or void the reading")
            event = {"type": "pocket", "ball": ball, "pocket": reading.get("pocket")}
        elif reading.get("type") == "throw":
            if body.dice is None:
                raise HTTPException(422, "give the dice faces, or void the reading")
            event = dict(reading, dice=body.dice)
        else:
            if body.standing is None:
                raise HTTPException(422, "give the pins standing, or void the reading")
            event = dict(reading, standing=body.standing, foul=body.foul)
        return await record("resolve", who, {"flag": seq, "event": event,
                                             "reason": body.reason})

    @app.post("/api/events")
    async def table_event(body: TableEvent, who: Operator) -> JSON:
        """An event the operator tells the table: a bet placed, a referee's rethrow..."""
        return await record("event", who, {"event": body.event})

    @app.get("/api/dice/audit")
    async def dice_audit() -> JSON:
        """Face counts and the chi-square test of the dice, per game session and per die."""
        def run() -> JSON:
            return audit(sessions(table.log), table.table_id)
        return await asyncio.to_thread(run)

    @app.post("/api/corrections")
    async def correct(body: Correct, who: Operator) -> JSON:
        """Replace (or void, with no event) an earlier event of the game, with a reason."""
        return await record("correct", who, body.model_dump())

    @app.post("/api/abandon")
    async def abandon(body: Abandon, who: Operator) -> JSON:
        """Give up the game in progress."""
        return await record("abandon", who, body.model_dump())

    @app.websocket("/ws")
    async def live(socket: WebSocket) -> None:
        await socket.accept()
        queue: asyncio.Queue[JSON] = asyncio.Queue(CLIENT_QUEUE)
        clients.queues.add(queue)
        try:
            await socket.send_json(table.view())
            while True:
                await socket.send_json(await queue.get())
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            clients.queues.discard(queue)
            with contextlib.suppress(RuntimeError):
                await socket.close()

    return app


async def _maybe_await(value: Any) -> None:
    if asyncio.iscoroutine(value):
        await value
