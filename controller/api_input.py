"""How the controller's web APIs take input: JSON read strictly, and refused as JSON.

Python's `json` reads `NaN`, `Infinity` and `-Infinity` (and `1e400` as Infinity), which
JSON does not have and no answer can repeat; text with a lone surrogate (`"\\ud800"`),
which no log can store; and numbers of thousands of digits. A body is read as RFC 8259
says (UTF-8 text, finite numbers) and, as a club would decide, within what any request to
a table needs: whole numbers within 64 bits, nesting at most `MAX_DEPTH` deep. What is
refused is answered 422 naming where: `{"detail": [{"type", "loc", "msg"}]}`, `loc`
starting with "body" (then the field's keys and list indexes), "path", "query" or
"header", as FastAPI names a field that fails its model.

>>> read_json(b'{"players": ["Ann", 7]}')
{'players': ['Ann', 7]}
>>> try:
...     read_json(b'{"players": ["Ann", NaN]}')
... except Refused as refused:
...     print(refused)
422: body.players.1: not a finite number: JSON has no NaN or Infinity, nor numbers past 1.8e308
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Final

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict

from engine.core import JSON

#: The deepest nesting a body may have: a table's events are a few levels deep.
MAX_DEPTH: Final = 32
#: The largest whole number a body may hold (SQLite's, and every count at a table's).
LARGEST_INT: Final = 2**63 - 1
TOO_DEEP: Final = f"nested more than {MAX_DEPTH} deep"
TOO_LARGE: Final = f"a whole number past 2^63 - 1 ({LARGEST_INT}), more than any table counts"
VERSION: Final = "0.1.0"

Location = tuple[str | int, ...]
Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


class BodyModel(BaseModel):
    """A request's body: a key the route does not take is refused by name, not ignored
    (a misspelt `"reson"` would otherwise leave the reason out without a word)."""

    model_config = ConfigDict(extra="forbid")


class Refused(HTTPException):
    """422 for one place in the input, in the shape FastAPI gives a field that fails."""

    def __init__(self, loc: Location, kind: str, message: str) -> None:
        super().__init__(422, [{"type": kind, "loc": list(loc), "msg": message}])
        self.loc = loc
        self.message = message

    def __str__(self) -> str:
        return f"422: {'.'.join(map(str, self.loc))}: {self.message}"


def read_json(body: bytes) -> Any:
    """The JSON value of a request's body, or `Refused` naming where it is wrong."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refused(("body",), "utf8_invalid",
                      f"the body is not UTF-8 text (byte {error.start})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise Refused(("body",), "json_invalid", f"the body is not JSON: {error.msg} "
                      f"(line {error.lineno}, column {error.colno})") from None
    except RecursionError:
        raise Refused(("body",), "too_deep", TOO_DEEP) from None
    except ValueError:
        # The only ValueError json.loads raises besides a JSONDecodeError: a whole
        # number of more digits than Python converts (4300).
        raise Refused(("body",), "int_too_large", TOO_LARGE) from None
    check_values(value, ("body",))
    return value


def check_values(value: Any, where: Location) -> None:
    """Refuse (`Refused`) the first value, shallowest first, that a body may not hold."""
    pending: deque[tuple[Any, Location]] = deque([(value, where)])
    while pending:
        item, loc = pending.popleft()
        if len(loc) - len(where) > MAX_DEPTH:
            raise Refused(loc, "too_deep", TOO_DEEP)
        if isinstance(item, dict):
            for key, inner in item.items():
                _check_text(key, (*loc, key))
                pending.append((inner, (*loc, key)))
        elif isinstance(item, list):
            pending.extend((inner, (*loc, index)) for index, inner in enumerate(item))
        elif isinstance(item, str):
            _check_text(item, loc)
        elif isinstance(item, float) and not math.isfinite(item):
            raise Refused(loc, "finite_number", "not a finite number: JSON has no NaN or "
                          "Infinity, nor numbers past 1.8e308")
        elif isinstance(item, int) and abs(item) > LARGEST_INT:
            raise Refused(loc, "int_too_large", TOO_LARGE)


def _check_text(text: str, loc: Location) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise Refused(loc, "unicode_invalid", "not Unicode text: a lone surrogate "
                      f"(\\u{ord(text[error.start]):04x}) at character {error.start}") from None


class StrictJSONRequest(Request):
    """A request whose JSON body is read by `read_json` (FastAPI reads bodies by `json`)."""

    async def json(self) -> Any:
        return read_json(await self.body())


def checked_first(guard: Callable[..., Any],
                  check: Callable[[Request], Awaitable[object]]) -> type[APIRoute]:
    """A route class whose routes read JSON bodies strictly and, when they depend on
    `guard`, run `check` before reading the body at all.

    FastAPI reads a body before it solves the dependencies: without this, a stranger's
    malformed body to an operator's route would be answered 422, naming the route's
    fields, instead of 401 whatever the body.
    """

    class CheckedRoute(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()
            guarded = any(needed.call is guard for needed in self.dependant.dependencies)

            async def checked(request: Request) -> Response:
                strict = StrictJSONRequest(request.scope, request.receive)
                if guarded:
                    await check(strict)
                return await handler(strict)

            return checked

    return CheckedRoute


def field_errors(errors: Sequence[Any]) -> list[JSON]:
    """FastAPI's field errors without the input they quote: that may be what JSON cannot
    write, or what should not be sent back (a PIN)."""
    return [{"type": str(error["type"]),
             "loc": [part if isinstance(part, int) else str(part) for part in error["loc"]],
             "msg": str(error["msg"])} for error in errors]


async def refuse_invalid(request: Request, error: Exception) -> Response:
    """422 naming each field that failed its model: where (`loc`) and why (`msg`)."""
    errors = error.errors() if isinstance(error, RequestValidationError) else []
    return JSONResponse({"detail": field_errors(errors)}, 422)


def api_app(title: str, lifespan: Lifespan) -> FastAPI:
    """A FastAPI app as the controller serves them: bad input answered by
    `refuse_invalid`, and no `/docs` or `/redoc`, whose pages load Swagger UI and ReDoc
    from the internet, which a club's table may not reach (a blank page is worse than
    none): `GET /openapi.json` describes every route."""
    app = FastAPI(title=title, version=VERSION, lifespan=lifespan, docs_url=None,
                  redoc_url=None)
    app.add_exception_handler(RequestValidationError, refuse_invalid)
    return app
