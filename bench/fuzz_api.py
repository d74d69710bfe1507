"""OpenAPI-driven fuzz run of the dashboard's whole API: no request may get a 5xx.

Schemathesis generates requests from `GET /openapi.json` for every operation, valid
(positive) and invalid (negative) ones, each sent twice: as a spectator (no credential)
and as the signed-in operator (session cookie and its CSRF token), against the app in
process (ASGI) on a fresh table with a game in progress. Seeded, so a run repeats.
Then every operation gets the bodies no JSON library writes (`raw_bodies`: NaN,
Infinity, -Infinity, 1e400, a number of 5001 digits, nesting 10,000 deep, bytes that are
not UTF-8, text that is not JSON, an empty body, a lone surrogate, a wrong content type,
an oversized body), whole and in each of its body's fields, as both again.

Prints one JSON line: {"what": "api fuzz", "value": <5xx count>, "unit": "server errors",
"routes", "requests" (all), "raw_requests" (of them, the raw bodies), "statuses",
"seconds", "failures"}.

Usage: .venv/bin/python bench/fuzz_api.py [--examples 25] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import APIOperation
from schemathesis.core.result import Ok
from schemathesis.generation import GenerationMode

from controller.auth import hash_pin
from controller.eventlog import SqliteEventLog
from controller.table import Table
from controller.web import CSRF_HEADER, MAX_BODY, PIN_HEADER, SESSION_COOKIE, create_app

PIN = "4821"
JSON_TYPE = "application/json"
DEEP = 10_000
#: Values JSON has no room for, or a server must not take, as a body's text writes them.
ODD_VALUES: dict[str, bytes] = {
    "NaN": b"NaN", "Infinity": b"Infinity", "-Infinity": b"-Infinity", "1e400": b"1e400",
    "10**5000": b"1" + b"0" * 5000, "2**63": str(2**63).encode(), "[NaN]": b"[NaN]",
    "nested NaN": b'{"a": NaN}', "lone surrogate": b'"\\ud800"',
    "deep list": b"[" * DEEP + b"]" * DEEP,
}
#: Whole bodies no JSON library writes: (name, bytes, content type or None for none).
ODD_BODIES: list[tuple[str, bytes, str | None]] = [
    *((name, value, JSON_TYPE) for name, value in ODD_VALUES.items()),
    ("deep object", b'{"a":' * DEEP + b"1" + b"}" * DEEP, JSON_TYPE),
    ("not UTF-8", b'{"reason": "\xff\xfe"}', JSON_TYPE),
    ("bare bytes", b"\xff", JSON_TYPE),
    ("not JSON", b"reason=x", JSON_TYPE),
    ("empty", b"", JSON_TYPE),
    ("null", b"null", JSON_TYPE),
    ("unknown key", b'{"no_such_key": 1}', JSON_TYPE),
    ("text/plain", b'{"reason": "x"}', "text/plain"),
    ("no content type", b'{"reason": "x"}', None),
    ("oversized", b'{"reason": "' + b"x" * MAX_BODY + b'"}', JSON_TYPE),
]


@dataclass(slots=True)
class FuzzResult:
    """What a fuzz run sent and what came back; `failures` are the 5xx answers."""

    routes: int = 0
    requests: int = 0
    raw_requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    unsatisfiable: set[str] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        return {"routes": self.routes, "requests": self.requests,
                "raw_requests": self.raw_requests,
                "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
                "failures": self.failures[:10], "no_cases": sorted(self.unsatisfiable)}


@contextmanager
def fuzz_table(folder: Path) -> Iterator[tuple[FastAPI, Table]]:
    """The dashboard on a fresh table with a ten-pin game in progress, the PIN hashed."""
    table = Table(SqliteEventLog(folder / "fuzz.db"), "fuzz")
    table.recover()
    asyncio.run(table.record("start", "operator", {"game": "ten-pins",
                                                    "players": ["Ann", "Bob"]}))
    try:
        yield create_app(table, hash_pin(PIN)), table
    finally:
        table.log.close()


def sign_in(client: TestClient) -> tuple[dict[str, str], dict[str, str]]:
    """A new operator session: the CSRF header and the session cookie to send."""
    signed = client.post("/api/session", json={"pin": PIN})
    signed.raise_for_status()
    return {CSRF_HEADER: signed.json()["csrf"]}, {SESSION_COOKIE: client.cookies[SESSION_COOKIE]}


def fuzz(examples: int, seed_value: int) -> FuzzResult:
    """Fuzz every operation with up to `examples` cases per mode and credential, then
    send it the raw bodies."""
    result = FuzzResult()
    with tempfile.TemporaryDirectory() as folder, fuzz_table(Path(folder)) as (app, _):
        # Signs in from an address of its own: the fuzzed wrong PINs lock out theirs.
        operator = TestClient(app, client=("fuzz-operator", 1), raise_server_exceptions=False)
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        operations = []
        for item in schema.get_all_operations():
            if not isinstance(item, Ok):
                raise SystemExit(f"the API's OpenAPI schema is invalid: {item.err()}")
            operations.append(item.ok())
        result.routes = len(operations)
        for operation in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                label = f"{operation.label} ({mode.value})"
                try:
                    send_cases(operation, mode, None, examples, seed_value, result)
                    # Afresh each time: the fuzzed sign-out ends the session.
                    send_cases(operation, mode, sign_in(operator), examples, seed_value, result)
                except Unsatisfiable:
                    # An operation with nothing to get wrong has no negative cases.
                    result.unsatisfiable.add(label)
        send_raw(app, operator, result)
    return result


def raw_bodies(fields: list[str]) -> list[tuple[str, bytes, str | None]]:
    """`ODD_BODIES`, then each odd value in each of the body's `fields` by itself."""
    return ODD_BODIES + [(f"{name} in {field}", b"{%s: %s}" % (json.dumps(field).encode(),
                                                                value), JSON_TYPE)
                         for field in fields for name, value in ODD_VALUES.items()]


def body_fields(schema: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    """The top-level fields of an operation's JSON body, as `/openapi.json` names them."""
    body = operation.get("requestBody", {}).get("content", {}).get(JSON_TYPE, {})
    shape = body.get("schema", {})
    if "$ref" in shape:
        shape = schema["components"]["schemas"][shape["$ref"].rsplit("/", 1)[-1]]
    return sorted(shape.get("properties", {}))


def send_raw(app: FastAPI, operator: TestClient, result: FuzzResult) -> None:
    """Send `raw_bodies` to every operation of `/openapi.json`, as a spectator and as the
    signed-in operator (signed in again whenever a request ended the session)."""
    spectator = TestClient(app, client=("fuzz-spectator", 1), raise_server_exceptions=False)
    schema = spectator.get("/openapi.json").json()
    csrf, _ = sign_in(operator)
    for path, methods in schema["paths"].items():
        url = re.sub(r"\{[^}]+\}", "1", path)
        for method, operation in methods.items():
            for name, body, content_type in raw_bodies(body_fields(schema, operation)):
                headers = {} if content_type is None else {"Content-Type": content_type}
                label = f"{method.upper()} {path} ({name}"
                send_one(spectator, method, url, body, headers, f"{label}, spectator)", result)
                done = send_one(operator, method, url, body, {**headers, **csrf},
                                f"{label}, operator)", result)
                if done == 401:
                    csrf, _ = sign_in(operator)


def send_one(client: TestClient, method: str, url: str, body: bytes, headers: dict[str, str],
             label: str, result: FuzzResult) -> int:
    """Send one raw request and count its answer; its status."""
    response = client.request(method, url, content=body, headers=headers)
    result.requests += 1
    result.raw_requests += 1
    result.statuses[response.status_code] += 1
    if response.status_code >= 500:
        result.failures.append(f"{label}: {response.status_code} {response.text[:200]}")
    return response.status_code


Operation = APIOperation[Any, Any, Any, Any]


def send_cases(operation: Operation, mode: GenerationMode,
               operator: tuple[dict[str, str], dict[str, str]] | None, examples: int,
               seed_value: int, result: FuzzResult) -> None:
    """Send generated cases of one operation, as a spectator or (`operator`) signed in."""
    headers, cookies = operator if operator is not None else (None, None)
    who = "spectator" if operator is None else "operator"

    @seed(seed_value)
    @settings(max_examples=examples, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(mode, headers=headers))
    def send(case: schemathesis.Case[Operation]) -> None:
        if operator is not None:
            # A random PIN would be checked instead of the session, and lock the
            # client out: without it the operator's requests go deeper.
            for name in [h for h in case.headers or {} if h.lower() == PIN_HEADER.lower()]:
                del case.headers[name]
        response = case.call(cookies=cookies)
        result.requests += 1
        result.statuses[response.status_code] += 1
        if response.status_code >= 500:
            result.failures.append(f"{operation.label} ({mode.value}, {who}): "
                                   f"{response.status_code} {response.text[:200]}")

    send()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=25,
                        help="cases per operation, mode and credential")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    started = time.perf_counter()
    result = fuzz(args.examples, args.seed)
    print(json.dumps({"what": "api fuzz", "value": len(result.failures),
                      "unit": "server errors", **result.to_json(),
                      "examples": args.examples, "seed": args.seed,
                      "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
