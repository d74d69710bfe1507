"""The operator's credential: the hashed PIN, sessions, CSRF, the wrong-PIN brake, bad input."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from controller.auth import FIRST_LOCKOUT, FREE_TRIES, SESSION_SECONDS, PinCheck, hash_pin
from controller.cli import main
from controller.config import load_config
from controller.errors import ConfigError
from controller.eventlog import SqliteEventLog
from controller.table import Table
from controller.web import CSRF_HEADER, MAX_BODY, PIN_HEADER, SESSION_COOKIE, create_app
from tests.controller.helpers import PIN
from tests.controller.test_web import sign_in

ROOT = Path(__file__).resolve().parents[2]
#: The PIN as a table's config holds it; hashed once, as scrypt is slow on purpose.
STORED = hash_pin(PIN)
CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
#: Exchanging the PIN for a session needs no session: the PIN in its body is the credential.
SIGN_IN = "/api/session"
#: A request each state-changing route would take from the operator; a new route needs one.
BODIES: dict[str, dict[str, Any] | None] = {
    "/api/session/end": None,
    "/api/game": {"game": "ten-pins", "players": ["Ann"]},
    "/api/dead-ball": {"player": "Ann"},
    "/api/flags/{seq}/resolve": {"void": True, "reason": "misread"},
    "/api/events": {"event": {"type": "dead_ball", "player": "Ann"}},
    "/api/corrections": {"target": 2, "reason": "misread",
                         "event": {"type": "ball", "player": "Ann", "standing": []}},
    "/api/abandon": {"reason": "the lane broke"},
}

#: Bodies no route can take, however its fields are named.
UNREADABLE = [b"reason=x", b"", b'{"reason": "\xff"}', b"[" * 10_000 + b"]" * 10_000,
              b'{"reason": NaN}', b'{"reason": 5}', b'{"reason": "x", "reson": "x"}']


class Clock:
    """A clock the test moves by hand: lock-outs and sessions end without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(SqliteEventLog(tmp_path / "lane.db"), "lane-1")
    table.recover()
    asyncio.run(table.record("start", "operator", {"game": "ten-pins", "players": ["Ann"]}))
    asyncio.run(table.reading(ball([7, 10]), "sensor"))
    asyncio.run(table.reading(ball([6, 7]), "sensor"))
    assert table.view()["flags"], "pin 6 rose again: the reading waits for the operator"
    yield table
    table.log.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(table: Table, clock: Clock) -> Iterator[TestClient]:
    with TestClient(create_app(table, STORED, clock=clock)) as client:
        yield client


def ball(standing: list[int]) -> dict[str, Any]:
    return {"type": "ball", "player": "Ann", "standing": standing}


def changing_routes(client: TestClient) -> list[tuple[str, str]]:
    """Every (method, path) of the app that is not a plain read."""
    routes = []
    for route in client.app.routes:  # type: ignore[attr-defined]
        if isinstance(route, APIRoute):
            routes += [(method, route.path) for method in sorted(route.methods or ()) if
                       method in CHANGING]
    return routes


def test_the_config_keeps_a_hash_and_only_the_pin_matches_it(tmp_path: Path) -> None:
    assert PIN not in STORED and hash_pin(PIN) != STORED, "salted: two hashes differ"
    path = tmp_path / "lane.toml"
    path.write_text(f'[table]\noperator_pin_hash = "{STORED}"\n')
    check = PinCheck(load_config(path).operator_pin)
    assert check.verify(PIN)
    assert not check.verify("4822") and not check.verify("")


@pytest.mark.parametrize(("table", "key"), [
    ('operator_pin_hash = "scrypt$16384$8$1$c2FsdA$a2V5"', "table.operator_pin_hash"),
    ('operator_pin_hash = "4821"', "table.operator_pin_hash"),
    ('operator_pin_hash = "scrypt$1073741824$8$1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5"',
     "table.operator_pin_hash"),
    ('operator_pin = "12ab"', "table.operator_pin"),
    ('operator_pin = "4821"\noperator_pin_hash = "scrypt$x"', "table.operator_pin"),
])
def test_a_bad_pin_setting_names_its_key_and_line(tmp_path: Path, table: str, key: str) -> None:
    path = tmp_path / "lane.toml"
    path.write_text(f"[table]\n{table}\n")
    with pytest.raises(ConfigError, match=rf"line 2: {key}:"):
        load_config(path)


def test_every_example_config_loads_with_a_hashed_pin() -> None:
    examples = sorted((ROOT / "examples").glob("*.toml"))
    assert examples
    for path in examples:
        assert load_config(path).operator_pin.startswith("scrypt$"), path.name


@pytest.mark.parametrize(("given", "code"), [("4821\n", 0), ("12\n", 2), ("12ab\n", 2)])
def test_pin_hash_command_hashes_the_pin_from_stdin(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], given: str,
        code: int) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(given))
    assert main(["pin-hash"]) == code
    out, err = capsys.readouterr()
    if code == 0:
        assert PinCheck(out.strip()).verify(given.strip())
    else:
        assert out == "" and "4-12 digits" in err


def test_serve_refuses_a_plain_pin_beyond_this_machine(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    assert main(["serve", "--host", "0.0.0.0"]) == 2
    assert "operator_pin_hash" in capsys.readouterr().err


def test_sign_in_gives_an_http_only_strict_cookie_and_sign_out_ends_it(
        client: TestClient, table: Table) -> None:
    assert client.get("/api/session").json()["operator"] is False
    done = client.post("/api/session", json={"pin": PIN})
    assert done.status_code == 200
    cookie = done.headers["set-cookie"]
    assert f"{SESSION_COOKIE}=" in cookie and "HttpOnly" in cookie
    assert "samesite=strict" in cookie.lower()
    csrf = {CSRF_HEADER: done.json()["csrf"]}
    assert client.get("/api/session").json() == {"operator": True, "csrf": csrf[CSRF_HEADER],
                                                 "expires_in": SESSION_SECONDS, "name": None}
    assert client.post("/api/abandon", json={"reason": "x"}, headers=csrf).status_code == 200
    assert client.post("/api/session/end", headers=csrf).status_code == 200
    before = table.log.last_seq()
    assert client.post("/api/game", json=BODIES["/api/game"], headers=csrf).status_code == 401
    assert client.get("/api/session").json()["operator"] is False
    assert table.log.last_seq() == before


def test_an_operator_who_signs_in_by_name_is_named_in_the_log(
        client: TestClient, table: Table) -> None:
    done = client.post("/api/session", json={"pin": PIN, "name": "  Mary   Ellis "})
    assert done.status_code == 200 and done.json()["name"] == "Mary Ellis"
    csrf = {CSRF_HEADER: done.json()["csrf"]}
    assert client.get("/api/session").json()["name"] == "Mary Ellis"
    assert client.post("/api/abandon", json={"reason": "the lane broke"},
                       headers=csrf).status_code == 200
    assert table.log.get(table.log.last_seq()).source == "operator Mary Ellis"
    # A script with the PIN, and a page signed in with no name, act as "operator".
    client.post("/api/session/end", headers=csrf)
    pin = {PIN_HEADER: PIN}
    assert client.post("/api/game", json=BODIES["/api/game"], headers=pin).status_code == 200
    assert table.log.get(table.log.last_seq()).source == "operator"


@pytest.mark.parametrize("name", ["Mary\nEllis", "x" * 41])
def test_a_name_that_is_not_one_line_of_print_is_refused(
        client: TestClient, table: Table, name: str) -> None:
    done = client.post("/api/session", json={"pin": PIN, "name": name})
    assert done.status_code == 422
    assert "name" in done.text
    assert client.get("/api/session").json()["operator"] is False


def test_a_session_expires(client: TestClient, table: Table, clock: Clock) -> None:
    csrf = sign_in(client)
    clock.now += SESSION_SECONDS + 1
    before = table.log.last_seq()
    assert client.post("/api/abandon", json={"reason": "x"}, headers=csrf).status_code == 401
    assert table.log.last_seq() == before


def test_wrong_pins_lock_the_address_out_for_longer_each_time(client: TestClient,
                                                              clock: Clock) -> None:
    for _ in range(FREE_TRIES):
        assert client.post("/api/session", json={"pin": "1111"}).status_code == 401
    locked = client.post("/api/session", json={"pin": PIN})
    assert locked.status_code == 429, "even the right PIN waits out the lock-out"
    assert int(locked.headers["Retry-After"]) == FIRST_LOCKOUT
    header = client.post("/api/abandon", json={"reason": "x"}, headers={PIN_HEADER: PIN})
    assert header.status_code == 429, "a script's PIN is braked the same way"
    other = TestClient(client.app, client=("10.0.0.7", 5000))
    assert other.post("/api/session", json={"pin": PIN}).status_code == 200
    clock.now += FIRST_LOCKOUT
    assert client.post("/api/session", json={"pin": "1111"}).status_code == 401
    again = client.post("/api/session", json={"pin": PIN})
    assert again.status_code == 429 and int(again.headers["Retry-After"]) == 2 * FIRST_LOCKOUT
    clock.now += 2 * FIRST_LOCKOUT
    assert client.post("/api/session", json={"pin": PIN}).status_code == 200
    assert client.post("/api/session", json={"pin": "1111"}).status_code == 401, \
        "a right PIN starts the count afresh"


def test_every_state_changing_route_refuses_without_the_credential_or_csrf_token(
        client: TestClient, table: Table) -> None:
    routes = changing_routes(client)
    assert {path for _, path in routes} == set(BODIES) | {SIGN_IN}
    other = TestClient(client.app)
    sign_in(other)
    stolen = {CSRF_HEADER: sign_in(other)[CSRF_HEADER]}
    before = table.log.last_seq()
    for method, path in routes:
        if path == SIGN_IN:
            continue
        url = path.replace("{seq}", str(before))
        body = BODIES[path]
        client.cookies.clear()
        refused = client.request(method, url, json=body)
        assert refused.status_code == 401, (path, refused.text)
        refused = client.request(method, url, json=body, headers={PIN_HEADER: "0000"})
        assert refused.status_code == 401, (path, refused.text)
        csrf = sign_in(client)
        for headers in ({}, {CSRF_HEADER: "forged"}, stolen):
            refused = client.request(method, url, json=body, headers=headers)
            assert refused.status_code == 403, (path, headers, refused.text)
        assert client.get("/api/session").json()["operator"] is True
        assert csrf
    assert table.log.last_seq() == before


def test_the_routes_bodies_are_ones_the_operator_may_send(client: TestClient,
                                                          table: Table) -> None:
    csrf = sign_in(client)
    flag = table.view()["flags"][0]["seq"]
    for path in ("/api/flags/{seq}/resolve", "/api/corrections", "/api/events",
                 "/api/dead-ball", "/api/abandon", "/api/game", "/api/session/end"):
        if "dead" in path + str(BODIES[path]):
            asyncio.run(table.reading(ball([]), "sensor"))
        done = client.post(path.replace("{seq}", str(flag)), json=BODIES[path], headers=csrf)
        assert done.status_code == 200, (path, done.text)


def test_scripts_may_send_the_pin_instead_of_a_session(client: TestClient,
                                                       table: Table) -> None:
    done = client.post("/api/abandon", json={"reason": "x"}, headers={PIN_HEADER: PIN})
    assert done.status_code == 200, done.text
    entry = table.log.get(table.log.last_seq())
    assert (entry.kind, entry.source, entry.body["reason"]) == ("abandon", "operator", "x")


def test_the_websocket_takes_no_commands(client: TestClient, table: Table) -> None:
    before = table.log.last_seq()
    with client.websocket_connect("/ws") as socket:
        assert socket.receive_json()["seq"] == before
        socket.send_json({"kind": "abandon", "body": {"reason": "x"}})
        socket.send_text("abandon")
    assert client.get("/api/view").json()["seq"] == before
    assert table.log.last_seq() == before


@pytest.mark.parametrize(("path", "body", "status"), [
    ("/api/flags/abc/resolve", {"void": True, "reason": "x"}, 422),
    ("/api/flags/0/resolve", {"void": True, "reason": "x"}, 422),
    ("/api/flags/99999999999999999999999/resolve", {"void": True, "reason": "x"}, 422),
    ("/api/flags/9/resolve", {"void": True, "reason": "x"}, 404),
    ("/api/game", {"game": "ten-pins", "players": "Ann"}, 422),
    ("/api/game", {"game": 7, "players": ["Ann"]}, 422),
    ("/api/game", {"game": "ten-pins", "players": ["x" * 41]}, 422),
    ("/api/corrections", {"target": "two", "reason": "x"}, 422),
    ("/api/corrections", {"target": 2, "reason": ""}, 422),
    ("/api/corrections", {"target": 99, "reason": "x"}, 409),
    ("/api/events", {"event": ["not", "an", "object"]}, 422),
    ("/api/events", {"event": {"type": "bet", "amount": float("nan")}}, 422),
    ("/api/dead-ball", {}, 422),
    ("/api/abandon", {"reason": "x" * 501}, 422),
])
def test_bad_input_is_refused_with_a_clear_4xx_and_nothing_changes(
        client: TestClient, table: Table, path: str, body: dict[str, Any],
        status: int) -> None:
    csrf = sign_in(client)
    before = table.log.last_seq()
    refused = client.post(path, content=_json(body), headers={
        **csrf, "Content-Type": "application/json"})
    assert refused.status_code == status, refused.text
    assert refused.json()["detail"]
    assert table.log.last_seq() == before


@pytest.mark.parametrize("query", ["after=-1", "after=x", "limit=0", "limit=5001"])
def test_bad_history_queries_are_refused(client: TestClient, query: str) -> None:
    assert client.get(f"/api/history?{query}").status_code == 422


def test_oversize_bodies_get_413_declared_or_streamed(client: TestClient,
                                                      table: Table) -> None:
    csrf = sign_in(client)
    before = table.log.last_seq()
    big = {"reason": "x", "pad": "y" * MAX_BODY}
    refused = client.post("/api/abandon", json=big, headers=csrf)
    assert refused.status_code == 413 and "64 KiB" in refused.json()["detail"]

    def chunks() -> Iterator[bytes]:
        yield b'{"reason": "x", "pad": "'
        for _ in range(MAX_BODY // 1024 + 1):
            yield b"y" * 1024
        yield b'"}'

    streamed = client.post("/api/abandon", content=chunks(),
                           headers={**csrf, "Content-Type": "application/json"})
    assert streamed.status_code == 413
    assert table.log.last_seq() == before


def _json(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()


def test_a_stranger_is_refused_whatever_the_body_and_learns_none_of_its_fields(
        client: TestClient, table: Table) -> None:
    before = table.log.last_seq()
    for method, path in changing_routes(client):
        if path == SIGN_IN:
            continue
        url = path.replace("{seq}", str(before))
        for body in UNREADABLE:
            refused = client.request(method, url, content=body,
                                     headers={"Content-Type": "application/json"})
            assert refused.status_code == 401, (path, body[:20], refused.text)
            assert "sign in" in refused.json()["detail"]
        sign_in(client)
        for body in UNREADABLE:
            forged = client.request(method, url, content=body, headers={
                CSRF_HEADER: "forged", "Content-Type": "application/json"})
            assert forged.status_code == 403, (path, body[:20], forged.text)
        client.cookies.clear()
    assert table.log.last_seq() == before


@pytest.mark.parametrize(("path", "body", "loc"), [
    ("/api/session", b'{"pin": NaN}', ["body", "pin"]),
    ("/api/session", b'{"pin": "4821", "nmae": "Mary"}', ["body", "nmae"]),
    ("/api/abandon", b'{"reason": NaN}', ["body", "reason"]),
    ("/api/abandon", b'{"reason": "x", "reson": "the lane broke"}', ["body", "reson"]),
    ("/api/abandon", b'{"reason": "\\ud800"}', ["body", "reason"]),
    ("/api/abandon", b'{"reason": "\xff"}', ["body"]),
    ("/api/abandon", b"reason=x", ["body"]),
    ("/api/abandon", b"", ["body"]),
    ("/api/dead-ball", b'{"player": Infinity}', ["body", "player"]),
    ("/api/dead-ball", b'{"player": "Ann", "ball": 2}', ["body", "ball"]),
    ("/api/game", b'{"game": "ten-pins", "players": [NaN]}', ["body", "players", 0]),
    ("/api/game", b'{"game": "ten-pins", "players": ["Ann"], "option": {}}', ["body", "option"]),
    ("/api/game", b'{"game": "ten-pins", "players": ["Ann"], "options": {"foul_penalty": '
     + str(2**64).encode() + b"}}", ["body", "options", "foul_penalty"]),
    ("/api/flags/{flag}/resolve", b'{"standing": [-Infinity], "reason": "x"}',
     ["body", "standing", 0]),
    ("/api/flags/{flag}/resolve", b'{"standing": [7], "reason": "x", "fowl": true}',
     ["body", "fowl"]),
    ("/api/corrections", b'{"target": 1e400, "reason": "x"}', ["body", "target"]),
    ("/api/corrections", b'{"target": 1' + b"0" * 5000 + b', "reason": "x"}', ["body"]),
    ("/api/corrections", b'{"target": 2, "reason": "x", "evnt": null}', ["body", "evnt"]),
    ("/api/events", b'{"event": {"type": "bet", "amount": NaN}}', ["body", "event", "amount"]),
    ("/api/events", b'{"event": ' + b"[" * 10_000 + b"]" * 10_000 + b"}", ["body"]),
    ("/api/events", b'{"event": {"type": "dead_ball"}, "events": []}', ["body", "events"]),
])
def test_what_json_cannot_hold_or_a_route_does_not_take_is_refused_naming_where(
        client: TestClient, table: Table, path: str, body: bytes, loc: list[str | int]) -> None:
    csrf = sign_in(client)
    before = table.log.last_seq()
    flag = table.view()["flags"][0]["seq"]
    refused = client.post(path.replace("{flag}", str(flag)), content=body,
                          headers={**csrf, "Content-Type": "application/json"})
    assert refused.status_code == 422, refused.text
    detail = json.loads(refused.text, parse_constant=_no_constant)["detail"]
    assert detail[0]["loc"] == loc and detail[0]["msg"]
    assert all("input" not in error for error in detail), "the input is not sent back"
    assert table.log.last_seq() == before


def _no_constant(name: str) -> None:
    raise AssertionError(f"the answer holds {name}, which is not JSON")
