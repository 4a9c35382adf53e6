"""Field-name case conversion of the convention modes: every key the platform serves survives the trip to
snake_case / PascalCase and back to camelCase (what a client normalising records does)."""

from __future__ import annotations

from typing import Any

import httpx
from hypothesis import given
from hypothesis import strategies as st

from solvelens.sandbox.conventions.case import recase, to_camel, to_pascal, to_snake

CAMEL = st.from_regex(r"\A[a-z]{1,8}([A-Z][a-z]{1,8}){0,4}\Z")


def keys(value: Any) -> set[str]:
    """Every object key inside ``value``."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def test_every_served_key_round_trips(sandbox) -> None:
    with httpx.Client(base_url=sandbox.base_url, timeout=10) as client:
        problems = client.get("/problems", params={"sort": "most_solutions"}).json()
        pid = problems["problems"][0]["id"]
        bodies = [
            problems,
            client.get(f"/problems/{pid}").json(),
            client.get(f"/problems/{pid}/solutions").json(),
            client.get("/leaderboard").json(),
            client.get("/categories").json(),
            client.get("/stats").json(),
            client.get("/search", params={"q": "the"}).json(),
        ]
        bodies.append(client.get(f"/bots/{bodies[3]['bots'][0]['id']}").json())
    served = set().union(*(keys(b) for b in bodies))
    assert {"solutionCount", "topSolution", "btScore", "globalElo", "displayName"} <= served
    for key in served:
        assert to_camel(to_snake(key)) == key, key
        assert to_camel(to_pascal(key)) == key, key
        assert to_snake(to_pascal(key)) == to_snake(key), key


@given(CAMEL)
def test_camel_case_round_trips(name: str) -> None:
    assert to_camel(to_snake(name)) == name
    assert to_camel(to_pascal(name)) == name
    assert to_snake(name) == to_snake(to_snake(name))  # idempotent on snake_case


def test_payload_keys_of_tasks() -> None:
    payload = {
        "solution_a_id": "x",
        "problem_title": "t",
        "categories": [{"slug": "health", "name": "Health"}],
    }
    assert recase(payload, to_camel) == {
        "solutionAId": "x",
        "problemTitle": "t",
        "categories": [{"slug": "health", "name": "Health"}],
    }
    assert recase(recase(payload, to_pascal), to_snake) == payload
