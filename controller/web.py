"""The table's dashboard: a live page for everyone, and routes for the operator.

Spectators read (`GET`, the WebSocket, which takes no commands); a read by the operator
(his session's cookie, or the PIN header) also shows the private numbers players drew,
which spectators see only once the game is over (controller/privacy.py). Every route that
changes anything needs the operator: a session opened at `POST /api/session` with the
PIN (an HttpOnly cookie, plus its CSRF token in the `X-CSRF-Token` header), or, for
scripts, the PIN itself in the `X-Operator-Pin` header, checked before the body is read
(a stranger learns nothing of a route's fields). Wrong PINs are rate-limited per client
address. Errors come back as JSON `{"detail": "..."}`: 401 no or wrong credential, 403 no
or wrong CSRF token, 404 no such thing, 409 a change the rules refuse, 413 a body over
`MAX_BODY`, 422 bad input (`detail` lists each place wrong, controller/api_input.py),
429 locked out (see Retry-After). docs/dashboard.md lists the routes.
"""

import asyncio
import contextlib
import hmac
import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import lru_cache
from pathlib import Path as FilePath
from typing import Annotated, Any

import anyio
from fastapi import (
    Depends,
    FastAPI,
    Header,
    HTTPException,
    Path,
    Query,
    Request,
    Response,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import Field, field_validator
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.api_input import BodyModel, api_app, checked_first
from controller.auth import PinCheck, Sessions, Throttle
from controller.bus import Change
from controller.dice_audit import audit, sessions
from controller.errors import Rejected
from controller.kinds import DICE, WORDS, games_for
from controller.privacy import Disclosure, public_entry
from controller.table import Table, replay_entries
from engine.core import JSON
from engine.registry import all_games

log = logging.getLogger(__name__)

STATIC = FilePath(__file__).parent / "static"
#: The seed books beside the repository (shared/seeds): a ruling's law quotes them if there.
SEEDS = FilePath(__file__).resolve().parents[2] / "shared" / "seeds"
CLIENT_QUEUE = 64
#: The largest request body taken: an operator's request is well under 1 KiB.
MAX_BODY = 64 * 1024
SESSION_COOKIE = "hoyle_session"
CSRF_HEADER = "X-CSRF-Token"
PIN_HEADER = "X-Operator-Pin"
#: Where a request keeps who was found acting, once checked (`scope` is the request's own).
ACTOR = "hoyle.operator"
#: The most log entries a ruling's detail lists before it (the game's latest ones).
LED_TO_IT = 200
#: Log sequence numbers, as SQLite can hold them.
Seq = Annotated[int, Path(ge=1, le=2**62)]
Name = Annotated[str, Field(min_length=1, max_length=40)]
Reason = Annotated[str, Field(min_length=1, max_length=500)]


class SignIn(BodyModel):
    pin: str = Field(min_length=1, max_length=64)
    name: str | None = Field(default=None, max_length=40, description=(
        "Who is signing in: each entry they make is logged as by \"operator <name>\" "
        "(without it, by \"operator\")"))

    @field_validator("name")
    @classmethod
    def _printable(cls, name: str | None) -> str | None:
        if name is None or not name.strip():
            return None
        if not name.isprintable():
            raise ValueError("the name must be printable text")
        return " ".join(name.split())


class StartGame(BodyModel):
    game: str = Field(min_length=1, max_length=60)
    players: list[Name] = Field(min_length=1, max_length=12)
    options: dict[str, Any] = Field(default_factory=dict)


class DeadBall(BodyModel):
    player: Name


class Resolve(BodyModel):
    standing: list[int] | None = Field(default=None, max_length=10)
    dice: list[int] | None = Field(default=None, min_length=1, max_length=9)
    to: str | None = Field(default=None, min_length=1, max_length=40)
    card: str | None = Field(default=None, min_length=2, max_length=3)
    ball: int | Annotated[str, Field(min_length=1, max_length=20)] | None = None
    foul: bool = False
    void: bool = False
    reason: Reason


class TableEvent(BodyModel):
    event: dict[str, Any]


class Correct(BodyModel):
    target: int = Field(ge=1, le=2**62)
    event: dict[str, Any] | None = None
    reason: Reason


class Abandon(BodyModel):
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


class BodyLimit:
    """Refuses request bodies over `limit` bytes with 413, whether declared or streamed."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        taken = 0

        async def counted() -> Message:
            nonlocal taken
            message = await receive()
            taken += len(message.get("body", b""))
            if taken > self.limit:
                raise HTTPException(413, self._why())
            return message

        await self.app(scope, counted, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        await JSONResponse({"detail": self._why()}, 413)(scope, receive, send)

    def _why(self) -> str:
        return f"the request body is over the limit of {self.limit // 1024} KiB"


def create_app(table: Table, operator_pin: str, *,
               lifespan_hooks: tuple[Callable[[], Any], Callable[[], Any]] | None = None,
               seeds: FilePath = SEEDS, clock: Callable[[], float] = time.monotonic,
               ) -> FastAPI:
    """The dashboard app for one table; `lifespan_hooks` start and stop its devices.

    `operator_pin` is the PIN as configured (`Config.operator_pin`): a `scrypt$` hash, or
    plain digits for tests and the simulated table. `clock` times sessions and lock-outs.
    """
    clients = Clients()
    table.bus.subscribe("websocket", clients.publish)
    pin_check = PinCheck(operator_pin)
    signed_in = Sessions(clock=clock)
    throttle = Throttle(clock=clock)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if lifespan_hooks:
            await _maybe_await(lifespan_hooks[0]())
        try:
            yield
        finally:
            if lifespan_hooks:
                await _maybe_await(lifespan_hooks[1]())

    app = api_app("Hoyle table controller", lifespan)
    app.add_middleware(BodyLimit)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    async def check_pin(request: Request, pin: str) -> None:
        """Pass a PIN attempt through the per-address brake; 429 or 401 if it fails."""
        client = request.client.host if request.client else "unknown"
        wait = throttle.wait(client)
        if wait > 0:
            raise HTTPException(429, f"too many wrong PINs from {client}: try again in "
                                f"{math.ceil(wait)} s", headers={"Retry-After":
                                                                 str(math.ceil(wait))})
        if await asyncio.to_thread(pin_check.verify, pin):
            throttle.succeeded(client)
            return
        throttle.failed(client)
        raise HTTPException(401, "wrong PIN")

    async def identify(request: Request) -> str:
        """Who is acting: the operator, by the session and its CSRF token, or by the PIN;
        checked once a request (the route checks it before it reads the body)."""
        if ACTOR not in request.scope:
            request.scope[ACTOR] = await acting(request)
        return str(request.scope[ACTOR])

    async def acting(request: Request) -> str:
        pin = request.headers.get(PIN_HEADER)
        if pin is not None:
            # A browser cannot send this header to another site's table without that
            # table's consent (CORS), so it needs no CSRF token.
            await check_pin(request, pin)
            return "operator"
        session = signed_in.get(request.cookies.get(SESSION_COOKIE))
        if session is None:
            raise HTTPException(401, "sign in as the operator first (POST /api/session "
                                "with the PIN)")
        csrf = request.headers.get(CSRF_HEADER)
        if csrf is None or not _same(csrf, session.csrf):
            raise HTTPException(403, f"the {CSRF_HEADER} header is missing or wrong for "
                                "this session: reload the page")
        return "operator" if session.name is None else f"operator {session.name}"

    async def operator(
            request: Request,
            x_operator_pin: Annotated[str | None, Header(
                description="The operator's PIN, for scripts; the page signs in instead",
            )] = None,
            x_csrf_token: Annotated[str | None, Header(
                description="The session's CSRF token (GET /api/session gives it)",
            )] = None) -> str:
        """The operator's credential, as `identify` reads it: the headers are named here
        for `/openapi.json`."""
        return await identify(request)

    Operator = Annotated[str, Depends(operator)]
    app.router.route_class = checked_first(operator, identify)

    async def reader(
            request: Request, response: Response,
            x_operator_pin: Annotated[str | None, Header(
                description="The operator's PIN, for scripts: the answer then shows what "
                            "only the operator sees (the private numbers)",
            )] = None) -> bool:
        """Whether a read is the operator's: his session's cookie (a read changes nothing,
        so it needs no CSRF token; another site's page can neither send the cookie, which
        is SameSite=Strict, nor read the answer) or the PIN header (a wrong one: 401)."""
        if x_operator_pin is not None:
            await check_pin(request, x_operator_pin)
            is_operator = True
        else:
            is_operator = signed_in.get(request.cookies.get(SESSION_COOKIE)) is not None
        if is_operator:
            # The answer holds what spectators may not see: no cache may keep it.
            response.headers["Cache-Control"] = "no-store"
        return is_operator

    Reader = Annotated[bool, Depends(reader)]

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

    @app.get("/api/session")
    async def session_state(request: Request, response: Response) -> JSON:
        """Whether this browser is signed in as the operator, and its CSRF token if so."""
        response.headers["Cache-Control"] = "no-store"
        session = signed_in.get(request.cookies.get(SESSION_COOKIE))
        if session is None:
            return {"operator": False, "csrf": None, "expires_in": None, "name": None}
        return {"operator": True, "csrf": session.csrf,
                "expires_in": signed_in.remaining(session), "name": session.name}

    @app.post("/api/session")
    async def sign_in(body: SignIn, request: Request, response: Response) -> JSON:
        """Exchange the operator's PIN for a session cookie (and its CSRF token)."""
        await check_pin(request, body.pin)
        session = signed_in.open(body.name)
        response.headers["Cache-Control"] = "no-store"
        response.set_cookie(SESSION_COOKIE, session.token,
                            max_age=signed_in.remaining(session), path="/", httponly=True,
                            samesite="strict", secure=request.url.scheme == "https")
        return {"operator": True, "csrf": session.csrf,
                "expires_in": signed_in.remaining(session), "name": session.name}

    @app.post("/api/session/end")
    async def sign_out(request: Request, response: Response, who: Operator) -> JSON:
        """End this browser's operator session."""
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            signed_in.end(token)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return {"operator": False, "csrf": None, "expires_in": None, "name": None}

    @app.get("/api/view")
    async def view(is_operator: Reader) -> JSON:
        """The table as the dashboard draws it (for the operator, with the private numbers)."""
        return table.view(is_operator)

    @app.get("/api/games")
    async def games() -> list[JSON]:
        """Every game this table can serve: its kind's (a lane's bowling games...), or
        every game the controller rules for a table of no kind."""
        served = all_games() if table.kind is None else games_for(table.kind)
        return [g.describe() for g in served]

    @app.get("/api/history")
    async def history(is_operator: Reader,
                      after: Annotated[int, Query(ge=0, le=2**62)] = 0,
                      limit: Annotated[int, Query(ge=1, le=5000)] = 500) -> list[JSON]:
        """The current game's log entries from its start, each with its rulings and laws
        (a private number drawn shows only to the operator until the game is over)."""
        seen = None if is_operator else table.disclosure()
        return await asyncio.to_thread(table.history, after, limit, seen)

    @app.get("/api/rulings/{seq}")
    async def ruling(seq: Seq, is_operator: Reader) -> JSON:
        """The rulings log entry `seq` produced, their laws (with the book's words when the
        seed books are at hand) and the game's entries that led to them."""
        seen = None if is_operator else table.disclosure()
        detail = await asyncio.to_thread(ruling_detail, table, seq, seeds, seen)
        if isinstance(detail, str):
            raise HTTPException(404, detail)
        return detail

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
    async def resolve(seq: Seq, body: Resolve, who: Operator) -> JSON:
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
            card = body.card or reading["card"]
            if card is None:
                raise HTTPException(422, "say which card it was (the dealer shows it), "
                                         "or void the reading")
            event = {"type": "card", "to": body.to, "card": card}
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
        """Face counts and the chi-square test of the dice, per game session and per die
        (409 on a table that is not a dice table: it throws no dice to audit)."""
        if table.kind not in (None, DICE):
            raise HTTPException(409, f"this table is {WORDS[table.kind]}, not a dice table: "
                                "it has no dice to audit")

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

        async def send(scope: anyio.CancelScope) -> None:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                await socket.send_json(table.view())
                while True:
                    await socket.send_json(await queue.get())
            scope.cancel()

        async def receive(scope: anyio.CancelScope) -> None:
            # The socket takes no commands; reading is how a client's leaving is noticed
            # on a quiet table (and how a server shutting down ends this handler).
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                while (await socket.receive())["type"] != "websocket.disconnect":
                    pass
            scope.cancel()

        try:
            async with anyio.create_task_group() as group:
                group.start_soon(send, group.cancel_scope)
                group.start_soon(receive, group.cancel_scope)
        finally:
            clients.queues.discard(queue)
            with anyio.CancelScope(shield=True), contextlib.suppress(RuntimeError,
                                                                    WebSocketDisconnect):
                await socket.close()

    return app


def ruling_detail(table: Table, seq: int, seeds: FilePath,
                  seen: Disclosure | None = None) -> JSON | str:
    """What `GET /api/rulings/{seq}` answers, or why there is nothing (a 404's message);
    with `seen` (a public reader's), the private draws it hides are redacted."""
    if seq > table.log.last_seq():
        return f"there is no log entry {seq} yet"
    start = None
    for entry in table.log.entries(kinds=("start",)):
        if entry.seq > seq:
            break
        start = entry
    if start is None:
        return f"log entry {seq} is not part of a game"
    led: list[JSON] = []
    for entry, rulings in replay_entries(table.log, start.seq):
        if entry.seq > seq:
            break
        record = entry.to_json()
        record["rulings"] = [r.to_json() for r in rulings]
        led.append(public_entry(record, seen))
    target = led[-1]
    if not target["rulings"]:
        return f"log entry {seq} ({target['kind']}) made no ruling"
    for ruling in target["rulings"]:
        law = ruling["law"]
        law["text"] = _law_text(seeds, law["book"], law["lines"])
    return {"seq": seq, "game": start.body["game"], "start_seq": start.seq,
            "entry": {k: v for k, v in target.items() if k != "rulings"},
            "rulings": target["rulings"], "earlier": max(0, len(led) - 1 - LED_TO_IT),
            "events": led[-1 - LED_TO_IT:-1]}


def _law_text(seeds: FilePath, book: str, lines: str) -> str | None:
    """The law's words from its seed book, whitespace folded; None without the books."""
    first, _, last = lines.partition("-")
    if FilePath(book).name != book or not (first.isdigit() and last.isdigit()):
        return None
    text = _seed_lines(seeds / book)
    if text is None or not 1 <= int(first) <= int(last) <= len(text):
        return None
    return " ".join(" ".join(text[int(first) - 1:int(last)]).split())


@lru_cache(maxsize=4)
def _seed_lines(path: FilePath) -> tuple[str, ...] | None:
    try:
        return tuple(path.read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return None


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode())


async def _maybe_await(value: Any) -> None:
    if asyncio.iscoroutine(value):
        await value
