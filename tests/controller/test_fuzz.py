"""A small OpenAPI-driven fuzz run over the whole API: nothing a client sends gets a 5xx.

bench/fuzz_api.py runs the same fuzzing with more examples and prints its figures.
"""

from __future__ import annotations

from bench.fuzz_api import ODD_BODIES, fuzz


def test_no_request_to_any_route_gets_a_server_error() -> None:
    result = fuzz(examples=2, seed_value=11)
    assert result.routes >= 14
    assert result.failures == []
    assert result.requests >= 2 * result.routes
    assert result.raw_requests >= 2 * len(ODD_BODIES) * result.routes, \
        "every route got every body no JSON library writes, from a spectator and the operator"
    assert {401, 403, 422} & set(result.statuses), "spectators' changes were refused"
    assert 200 in result.statuses, "the operator's requests went through"
