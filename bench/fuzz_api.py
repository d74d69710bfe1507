"""OpenAPI-driven fuzz run of the dashboard's whole API: no request may get a 5xx.

Schemathesis generates requests from `GET /openapi.json` for every operation, valid
(positive) and invalid (negative) ones, each sent twice: as a spectator (no credential)
and as the signed-in operator (session cookie and its CSRF token), against the app in
process (ASGI) on a fresh table with a game in progress. Seeded, so a run repeats.

Prints one JSON line: {"what": "api fuzz", "value": <5xx count>, "unit": "server errors",
"routes", "requests", "statuses", "seconds", "failures"}.

Usage: .venv/bin/python bench/fuzz_api.py [--examples 25] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
from controller.web import CSRF_HEADER, PIN_HEADER, SESSION_COOKIE, create_app

PIN = "4821"


@dataclass(slots=True)
class FuzzResult:
    """What a fuzz run sent and what came back; `failures` are the 5xx answers."""

    routes: int = 0
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    unsatisfiable: set[str] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        return {"routes": self.routes, "requests": self.requests,
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
    """Fuzz every operation with up to `examples` cases per mode and credential."""
    result = FuzzResult()
    with tempfile.TemporaryDirectory() as folder, fuzz_table(Path(folder)) as (app, _):
        # Signs in from an address of its own: the fuzzed wrong PINs lock out theirs.
        operator = TestClient(app, client=("fuzz-operator", 1))
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
    return result


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
